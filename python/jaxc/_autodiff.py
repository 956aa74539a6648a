"""Automatic differentiation: `grad`, `value_and_grad`, `jvp`, `vjp`,
`linearize`, `jacfwd`, `jacrev`, `hessian`, `custom_jvp`, `custom_vjp`.

Nothing is differentiated while tracing. Each function traces the user's
function into a private `func.func` of the module being traced (the
*callee*) and emits a request op that calls it; the `jaxc-autodiff` pass
expands requests into ordinary ops before lowering, innermost first, so
transformations compose by nesting (`grad(grad(f))`, `jit(grad(f))`,
`jvp(grad(f), ...)`). `make_ir(grad(f))(2.0)` for ``f(x) = x ** 3``:

    func.func @jit_grad_f(%arg0: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.constant dense<1.000000e+00> : tensor<f32>
      %1:2 = jaxc.vjp @f_0(%arg0) cotangents(%0) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      return %1#1 : tensor<f32>
    }
    func.func private @f_0(%arg0: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.constant dense<3.000000e+00> : tensor<f32>
      %1 = jaxc.pow %arg0, %0 : tensor<f32>
      return %1 : tensor<f32>
    }

What a callee closes over (outer tracers, concrete Arrays) becomes extra
trailing arguments, passed by the request: a jvp gives them zero tangents,
a vjp's cotangents for them are dropped. Called outside any trace, the
transformed function runs through `jit` (cached per signature).

`jacfwd` and `jacrev` map one jvp / vjp request over the basis vectors of
the inputs / outputs with `vmap` (one request each, whatever the size).
"""
from __future__ import annotations

import functools
import inspect
import operator
import re
import threading
import weakref
from typing import Any, Callable, NamedTuple, Sequence

import mlir.ir as ir
import numpy as np
from mlir.dialects import func as func_d

import jaxc.dialect as jd

from . import core, dtypes, tree_util
from .core import ShapedArray
from .lax import _ops as lax
from .lax._ops import stop_gradient

# Function attribute of a request's callee: its last N arguments are values the
# traced function closed over, constants for the request (passes/autodiff/jvp.py).
CAPTURED_ARGS = "jaxc.captured_args"

__all__ = ["grad", "value_and_grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev", "hessian",
           "custom_jvp", "custom_vjp", "stop_gradient"]


def _name(fun: Any) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


# ---------------------------------------------------------------------------
# Callees: Python functions traced into private functions of the module
# ---------------------------------------------------------------------------

def _trace_module(scope: core.Scope) -> ir.Operation:
    """The module being traced. The outermost scope is the traced function
    (a region's temporary block lives in a holder module that is discarded)."""
    while scope.parent is not None:
        scope = scope.parent
    op = scope.block.owner.operation
    while op.name != "builtin.module":
        op = op.parent
    return op


def _fresh_symbol(module: ir.Operation, base: str) -> str:
    """``<base>_<n>`` with the smallest n not yet a symbol of `module`."""
    base = re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_") or "fn"
    table = ir.SymbolTable(module)
    n = 0
    while f"{base}_{n}" in table:
        n += 1
    return f"{base}_{n}"


class _Callee:
    """`fun(*tracers)` traced into a new private ``func.func`` of the module
    being traced. Its arguments are one per aval of `in_avals`, then one per
    object it `captured`; its results are the leaves of the output pytree
    (`out_tree`, `out_avals`). `what` names the function in errors."""

    def __init__(self, fun: Callable, in_avals: Sequence[ShapedArray], base: str, what: str,
                 values: Sequence[Any] | None = None) -> None:
        """`values`: the arrays or tracers the callee will be called with;
        where they are concrete (an eager grad), so are its arguments."""
        outer = core.current_scope()
        assert outer is not None  # called while tracing
        module = _trace_module(outer)
        ctx = core.context()
        with ctx, core.user_location():
            self.symbol = _fresh_symbol(module, base)
            arg_types = [core.ir_type(a.shape, a.dtype) for a in in_avals]
            with ir.InsertionPoint(module.regions[0].blocks[0]):
                self.func = func_d.FuncOp(self.symbol, ir.FunctionType.get(arg_types, []),
                                          visibility="private")
            self.block = self.func.add_entry_block()
            scope = core.Scope(self.block, outer, "function")
            try:
                with scope, ir.InsertionPoint(self.block):
                    recipes = [_recipe_of(x) for x in values] if values is not None else [None] * len(in_avals)
                    args = [core.Tracer(scope, v, a, r) for v, a, r in zip(self.block.arguments, in_avals, recipes)]
                    leaves, self.out_tree = tree_util.tree_flatten(tree_util._float0_as_nodes(fun(*args)))
                    outs = [core.as_operand(leaf, what) for leaf in leaves]
                    values = [scope.value(x) for x in outs]
                    func_d.ReturnOp(values)
            except BaseException:
                self.func.operation.erase()  # no half-traced function is left in the module
                raise
        self.n_in = len(in_avals)
        self.out_avals = [x.aval for x in outs]
        self.captured: list[Any] = list(scope.captured)
        self._update_type()

    def _update_type(self) -> None:
        results = list(self.block.operations)[-1].operands
        self.func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in self.block.arguments], [v.type for v in results], core.context()))

    def mark_captured(self) -> list[Any]:
        """The captured values, marked on the function (`jaxc.captured_args`:
        its last arguments) as constants for the request about to be made on
        it: JAX differentiates only the arguments it is given, so an op that
        reads only closed-over values (a pure_callback) needs no rule."""
        if self.captured:
            with core.context():
                self.func.attributes[CAPTURED_ARGS] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), len(self.captured))
        return self.captured

    def capture_spec(self, union: Sequence[Any]) -> list[int | ir.Type]:
        """For each object of `union`, the index of this callee's argument
        for it, or its type when this callee did not capture it."""
        own = {id(c): self.n_in + i for i, c in enumerate(self.captured)}
        with core.context():
            return [own[id(c)] if id(c) in own else core.ir_type(c.aval.shape, c.aval.dtype)
                    for c in union]

    def set_arguments(self, spec: Sequence[int | ir.Type]) -> None:
        """Make the arguments `spec`: an int moves that argument (with its
        uses) there, a type adds an unused argument."""
        old = list(self.block.arguments)
        loc = ir.Location.unknown(core.context())
        for s in spec:
            if isinstance(s, int):
                old[s].replace_all_uses_with(self.block.add_argument(old[s].type, loc))
            else:
                self.block.add_argument(s, loc)
        for _ in old:
            self.block.erase_argument(0)
        self._update_type()

    def append_results(self, extra: Sequence[ir.Value | ShapedArray]) -> None:
        """Return `extra` after the results: values of this function, or
        zeros of the given avals."""
        ret = list(self.block.operations)[-1]
        results = list(ret.operands)
        ret.operation.erase()
        scope = core.Scope(self.block, None, "function")
        with core.context(), core.user_location(), scope, ir.InsertionPoint(self.block):
            values = [v if isinstance(v, ir.Value) else scope.value(lax.full(v.shape, 0, v.dtype))
                      for v in extra]
            func_d.ReturnOp(results + values)
        self._update_type()


def _recipe_of(x: Any) -> Any:
    """What a callee argument passed `x` computes its concrete value from:
    `x` itself where it is concrete or a tracer that knows its value, else
    None (`core.concrete`)."""
    if isinstance(x, core.Tracer):
        return x if x.recipe is not None else None
    return x


def _union(*lists: Sequence[Any]) -> list[Any]:
    """Every object of `lists`, once, in first-seen order."""
    seen: dict[int, Any] = {}
    for objects in lists:
        for obj in objects:
            seen.setdefault(id(obj), obj)
    return list(seen.values())


# ---------------------------------------------------------------------------
# Emitting requests
# ---------------------------------------------------------------------------

def _emit(make_op: Callable[[list[ir.Value], list[ir.Type]], Any], operands: Sequence[Any],
          result_avals: Sequence[ShapedArray]) -> list[core.Tracer]:
    """Build ``make_op(operand values, result types)`` in the current scope
    at the user's line; its results as tracers of `result_avals`."""
    scope = core.current_scope()
    assert scope is not None  # called while tracing
    with core.context(), core.user_location(), ir.InsertionPoint(scope.block):
        values = [scope.value(x) for x in operands]
        op = make_op(values, [core.ir_type(a.shape, a.dtype) for a in result_avals])
    return [scope.tracer(v, a.weak_type) for v, a in zip(op.results, result_avals)]


def _zeros(aval: ShapedArray) -> Any:
    return lax.full(aval.shape, 0, aval.dtype)


def _jvp_call(callee: _Callee, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
    """``jaxc.jvp @callee(primals, captured) tangents(tangents, zeros)``:
    (outputs, output tangents)."""
    caps = callee.mark_captured()
    n = len(primals) + len(caps)
    operands = [*primals, *caps, *tangents, *[_zeros(c.aval) for c in caps]]
    outs = _emit(lambda v, t: jd.JvpOp(t, callee.symbol, v[:n], v[n:]), operands, callee.out_avals * 2)
    k = len(callee.out_avals)
    return outs[:k], outs[k:]


def _vjp_call(callee: _Callee, primals: Sequence[Any], cts: Sequence[Any]) -> tuple[list, list]:
    """``jaxc.vjp @callee(primals, captured) cotangents(cts)``: (outputs,
    cotangents of `primals`; those of the captured values are dropped)."""
    caps = callee.mark_captured()
    n = len(primals) + len(caps)
    in_avals = [x.aval for x in primals] + [c.aval for c in caps]
    outs = _emit(lambda v, t: jd.VjpOp(t, callee.symbol, v[:n], v[n:]), [*primals, *caps, *cts],
                 callee.out_avals + in_avals)
    k = len(callee.out_avals)
    return outs[:k], outs[k:k + len(primals)]


# ---------------------------------------------------------------------------
# Arguments and checks
# ---------------------------------------------------------------------------

def _operands(tree: Any, what: str) -> tuple[list[Any], Any]:
    """The leaves of `tree` as arrays (Arrays or tracers), and its structure."""
    leaves, treedef = tree_util.tree_flatten(tree)
    return [core.as_operand(leaf, what) for leaf in leaves], treedef


def _check_argnums(argnums: Any, what: str) -> int | tuple[int, ...]:
    """`argnums` as an int or a tuple of ints (JAX accepts both)."""
    try:
        return operator.index(argnums)
    except TypeError:
        pass
    try:
        return tuple(operator.index(i) for i in argnums)
    except TypeError:
        raise TypeError(f"{what}: argnums must be an int or a sequence of ints, got "
                        f"{argnums!r}") from None


def _positions(argnums: int | tuple[int, ...], n_args: int, what: str, fun: Callable) -> tuple[int, ...]:
    """The argument positions `argnums` names, negative ones resolved."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    for i in nums:
        if not -n_args <= i < n_args:
            raise TypeError(f"{core.where()}: {what}({_name(fun)}): differentiating with respect "
                            f"to argnums={argnums} requires at least {max(i + 1, -i)} positional "
                            f"arguments to be passed by the caller, but got only {n_args} "
                            "positional arguments.")
    return tuple(i % n_args for i in nums)


def _substitute(args: tuple, positions: Sequence[int], values: Sequence[Any]) -> tuple:
    new = list(args)
    for i, v in zip(positions, values):
        new[i] = v
    return tuple(new)


def _check_inputs(what: str, fun: Callable, leaves: Sequence[Any], floating_only: bool = False,
                  holomorphic: bool = False) -> None:
    """Differentiated inputs must be float or complex: complex with
    `holomorphic`, float only for jacfwd without it (as JAX, with its words)."""
    for x in leaves:
        if holomorphic:
            if not dtypes.is_complex(x.dtype):
                raise TypeError(f"{core.where()}: {what} with holomorphic=True requires inputs with "
                                f"complex dtype, but got {x.dtype.name} (an argument of {_name(fun)}).")
            continue
        ok = dtypes.is_float(x.dtype) if floating_only else dtypes.is_inexact(x.dtype)
        if ok:
            continue
        if floating_only and dtypes.is_complex(x.dtype):
            raise TypeError(f"{core.where()}: {what} requires real-valued inputs (input dtype that is a "
                            f"sub-dtype of np.floating), but got {x.dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiation of "
                            f"non-holomorphic functions involving complex inputs, use jax.jvp directly.")
        kind = ("real-valued inputs (input dtype that is a sub-dtype of np.floating)"
                if floating_only else "real- or complex-valued inputs (input dtype that is a "
                "sub-dtype of np.inexact)")
        raise TypeError(f"{core.where()}: {what} requires {kind}, but got {x.dtype.name} "
                        f"(an argument of {_name(fun)}). If you want to use Boolean- or "
                        "integer-valued inputs, use vjp or set allow_int to True.")


def _check_outputs(what: str, fun: Callable, leaves: Sequence[Any], holomorphic: bool = False) -> None:
    """Outputs of grad/jacrev must be real floats (complex with `holomorphic`)."""
    for y in leaves:
        if holomorphic:
            if not dtypes.is_complex(y.dtype):
                raise TypeError(f"{core.where()}: {what} with holomorphic=True requires outputs with "
                                f"complex dtype, but got {y.dtype.name} from {_name(fun)}.")
            continue
        if dtypes.is_complex(y.dtype):
            raise TypeError(f"{core.where()}: {what} requires real-valued outputs (output dtype that "
                            f"is a sub-dtype of np.floating), but got {y.dtype.name} from "
                            f"{_name(fun)}. For holomorphic differentiation, pass holomorphic=True. "
                            "For differentiation of non-holomorphic functions involving complex "
                            "outputs, use jax.vjp directly.")
        if not dtypes.is_float(y.dtype):
            raise TypeError(f"{core.where()}: {what} requires real-valued outputs (output dtype that "
                            f"is a sub-dtype of np.floating), but got {y.dtype.name} from "
                            f"{_name(fun)}. For integer outputs, use vjp directly.")


def _split_aux(out: Any, has_aux: bool, what: str, fun: Callable) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        got = "an array" if isinstance(out, core.ArrayBase) else type(out).__name__
        raise TypeError(f"{core.where()}: {what} with has_aux=True requires {_name(fun)} to return "
                        f"a pair (output, aux), got {got}")
    return out[0], out[1]


def _like(x: Any, aval: ShapedArray, what: str, kind: str) -> Any:
    """`x` as a tangent / cotangent for a value of type `aval`: same shape
    and dtype (a weakly typed scalar is converted); zeros for an integer or
    boolean value, whose tangent does not matter (given as float0, which a
    jvp requires there, as JAX's does; a vjp also takes zeros of the value's
    own dtype)."""
    if dtypes.is_float0(x):  # the symbolic zero of an integer or bool value
        if dtypes.is_inexact(aval.dtype):
            raise TypeError(f"{core.where()}: {what}: {kind} of dtype float0 for a value of dtype "
                            f"{aval.dtype.name} (float0 is the {kind} of integer and bool values only)")
        if tuple(x.shape) != tuple(aval.shape):
            raise ValueError(f"{core.where()}: {what}: {kind} of shape {x.shape} for a value of shape "
                             f"{aval.shape} ({kind}s must have the shape and dtype of their value)")
        return _zeros(aval)
    x = core.as_operand(x, what)
    if x.shape != aval.shape:
        raise ValueError(f"{core.where()}: {what}: {kind} of shape {x.shape} for a value of shape "
                         f"{aval.shape} ({kind}s must have the shape and dtype of their value)")
    if not dtypes.is_inexact(aval.dtype):
        if what == "jvp":  # JAX's words
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must be equal, "
                            "or in case of int/bool primal dtype the tangent dtype must be float0."
                            f"Got primal dtype {aval.dtype.name} and so expected tangent dtype "
                            f"{dtypes.float0}, but got tangent dtype {x.dtype.name} instead.")
        return _zeros(aval)
    if x.dtype != aval.dtype:
        if not x.weak_type:
            raise TypeError(f"{core.where()}: {what}: {kind} of dtype {x.dtype.name} for a value of "
                            f"dtype {aval.dtype.name} ({kind}s must have the dtype of their value)")
        x = lax.convert_element_type(x, aval.dtype)
    return x


def _float0_where_integer(values: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """`values` (derivatives) with those of integer and bool values as float0
    zeros, as JAX gives them."""
    return [v if dtypes.is_inexact(a.dtype) else dtypes.float0_zeros(a.shape) for v, a in zip(values, avals)]


def _resolve_kwargs(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    """Keyword arguments moved to their positions (custom_jvp/custom_vjp
    take positional arguments only, as in JAX)."""
    if not kwargs:
        return args
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f"{_name(fun)}: keyword arguments {sorted(bound.kwargs)} could not be "
                        "resolved to positions")
    return bound.args


# ---------------------------------------------------------------------------
# Running eagerly
# ---------------------------------------------------------------------------

class _Transformed:
    """A function made by `grad`, `jacfwd`, ...: under a trace it emits its
    requests; called eagerly it runs through a `jit` it keeps, so a second
    call with the same avals does not retrace. Arguments that are not
    arrays (a `self`, a config object) are static in that jit."""

    def __init__(self, fun: Callable, what: str, impl: Callable) -> None:
        self.__wrapped__ = fun
        self.__name__ = f"{what}_{_name(fun)}"
        self.__doc__ = getattr(fun, "__doc__", None)
        self._impl = impl
        self._jits: dict[tuple, Any] = {}  # (static positions, static names) -> jit

    def __repr__(self) -> str:
        return f"<jaxc {self.__name__}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if core.current_scope() is not None:
            return self._impl(*args, **kwargs)
        static = (tuple(i for i, a in enumerate(args) if not _is_arrays(a)),
                  tuple(k for k, v in kwargs.items() if not _is_arrays(v)))
        jitted = self._jits.get(static)
        if jitted is None:
            from .api import JitFunction

            def run(*a: Any, **k: Any) -> Any:
                return self._impl(*a, **k)
            run.__name__ = self.__name__
            jitted = self._jits[static] = JitFunction(run, static[0], static[1], concrete_trace=True)
        return jitted(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    @property
    def trace_count(self) -> int:
        return sum(j.trace_count for j in self._jits.values())

    def _cache_size(self) -> int:
        return sum(j._cache_size() for j in self._jits.values())


def _is_arrays(tree: Any) -> bool:
    """Whether every leaf of `tree` is an array, a NumPy value or a Python number."""
    return all(isinstance(x, (core.ArrayBase, np.ndarray, np.generic, bool, int, float, complex))
               for x in tree_util.tree_leaves(tree))


# fun -> {key: jit}; the jitted functions hold `fun` weakly, so entries go with it.
_EAGER: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def _eager_call(fun: Callable, key: tuple, impl: Callable, *args: Any) -> Any:
    """``impl(fun, *args)`` outside any trace, compiled by a `jit` cached per
    (fun, key): repeated eager `jvp(f, ...)` calls trace once per signature.
    `impl` must not hold `fun` (it is passed in)."""
    from .api import JitFunction
    fun_ref: Callable[[], Callable | None]
    try:
        per_fun = _EAGER.setdefault(fun, {})
        fun_ref = weakref.ref(fun)
    except TypeError:  # not hashable or not weakly referenceable: no cache
        per_fun, fun_ref = {}, (lambda: fun)
    jitted = per_fun.get(key)
    if jitted is None:
        def run(*a: Any) -> Any:
            return impl(fun_ref(), *a)
        run.__name__ = f"{key[0]}_{_name(fun)}"
        jitted = per_fun[key] = JitFunction(run, concrete_trace=True)
    return jitted(*args)


# ---------------------------------------------------------------------------
# grad and value_and_grad
# ---------------------------------------------------------------------------

def _value_and_grad(fun: Callable, argnums: int | tuple[int, ...], has_aux: bool, what: str,
                    args: tuple, kwargs: dict, holomorphic: bool = False,
                    allow_int: bool = False) -> tuple[Any, Any]:
    """((output or (output, aux)), gradient) under a trace: one vjp request
    with cotangent 1 for the output and 0 for aux. With `allow_int`, integer
    and bool arguments get float0 gradients."""
    positions = _positions(argnums, len(args), what, fun)
    leaves, in_tree = _operands(tuple(args[i] for i in positions), what)
    _check_inputs(what, fun, [x for x in leaves if not allow_int or dtypes.is_inexact(x.dtype)],
                  holomorphic=holomorphic)

    def flat_fun(*xs: Any) -> Any:
        out = fun(*_substitute(args, positions, tree_util.tree_unflatten(in_tree, xs)), **kwargs)
        out, aux = _split_aux(out, has_aux, what, fun)
        out_leaves = tree_util.tree_leaves(out)
        if not tree_util.tree_structure(out).is_leaf() or not out_leaves:
            raise TypeError(f"{core.where()}: {what} requires real scalar outputs, got "
                            f"{type(out).__name__} from {_name(fun)}")
        y = core.as_operand(out, what)
        if y.shape != ():
            raise TypeError(f"{core.where()}: {what} requires real scalar outputs, got shape "
                            f"{y.shape} from {_name(fun)}. For a non-scalar output use vjp or "
                            "jacrev, or reduce it (e.g. .sum()).")
        _check_outputs(what, fun, [y], holomorphic)
        return (y, aux) if has_aux else y

    with _request("rev"):
        callee = _Callee(flat_fun, [x.aval for x in leaves], _name(fun), f"{what}({_name(fun)})", leaves)
    y_aval, aux_avals = callee.out_avals[0], callee.out_avals[1:]
    cts = [lax.full((), 1, y_aval.dtype)] + [_zeros(a) for a in aux_avals]
    outs, x_bars = _vjp_call(callee, leaves, cts)
    grads = tree_util.tree_unflatten(in_tree, _float0_where_integer(x_bars, [x.aval for x in leaves]))
    return tree_util.tree_unflatten(callee.out_tree, outs), grads[0] if isinstance(argnums, int) else grads


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """``f(*args) -> (fun(*args), gradient)``: the gradient of the real
    scalar output of `fun` with respect to the arguments `argnums` (an int,
    or a tuple giving a tuple of gradients). With `has_aux`, `fun` returns
    (output, aux) and the value is that pair. With `holomorphic`, inputs and
    output are complex and the gradient is the complex derivative. With
    `allow_int`, integer and bool arguments may be among `argnums`: their
    gradients are float0 zeros (NumPy arrays of `jaxc.dtypes.float0`)."""
    argnums = _check_argnums(argnums, "value_and_grad")

    def impl(*args: Any, **kwargs: Any) -> Any:
        return _value_and_grad(fun, argnums, has_aux, "value_and_grad", args, kwargs, holomorphic, allow_int)
    return _Transformed(fun, "value_and_grad", impl)


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """The gradient of `fun`'s real scalar output with respect to the
    arguments `argnums` (pytrees of float or complex arrays); each gradient
    has its argument's shape, dtype and weak type. With `has_aux`, `fun`
    returns (output, aux) and the gradient function returns (gradient, aux).
    As in JAX, for a complex argument z = x + iy the gradient of a real f
    is df/dx - i df/dy (its conjugate points uphill); with `holomorphic`,
    f is complex and the gradient is the complex derivative f'(z). With
    `allow_int`, integer and bool arguments get float0 zeros."""
    argnums = _check_argnums(argnums, "grad")

    def impl(*args: Any, **kwargs: Any) -> Any:
        value, g = _value_and_grad(fun, argnums, has_aux, "grad", args, kwargs, holomorphic, allow_int)
        return (g, value[1]) if has_aux else g
    return _Transformed(fun, "grad", impl)


# ---------------------------------------------------------------------------
# jvp, vjp, linearize
# ---------------------------------------------------------------------------

def _jvp_traced(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool) -> Any:
    leaves, in_tree = _operands(tuple(primals), "jvp")
    t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
    if t_tree != in_tree:
        raise TypeError(f"{core.where()}: jvp: primal and tangent arguments must have the same "
                        f"tree structure, got {in_tree} and {t_tree}")
    t_leaves = [_like(t, x.aval, "jvp", "tangent") for t, x in zip(t_leaves, leaves)]

    def flat_fun(*xs: Any) -> Any:
        return _split_aux(fun(*tree_util.tree_unflatten(in_tree, xs)), has_aux, "jvp", fun)

    with _request("fwd"):
        callee = _Callee(flat_fun, [x.aval for x in leaves], _name(fun), f"jvp({_name(fun)})", leaves)
    outs, out_dots = _jvp_call(callee, leaves, t_leaves)
    out_tree, aux_tree = callee.out_tree.children()
    n = out_tree.num_leaves
    out_dots = _float0_where_integer(out_dots[:n], callee.out_avals[:n])
    primal_out = tree_util.tree_unflatten(out_tree, outs[:n])
    tangent_out = tree_util.tree_unflatten(out_tree, out_dots[:n])
    if not has_aux:
        return primal_out, tangent_out
    return primal_out, tangent_out, tree_util.tree_unflatten(aux_tree, outs[n:])


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False) -> Any:
    """``(fun(*primals), J(primals) @ tangents)``: the forward-mode derivative
    along `tangents` (pytrees like `primals`). With `has_aux`, `fun` returns
    (output, aux) and jvp returns (output, output tangent, aux)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    if len(primals) != len(tangents):
        raise TypeError(f"jvp: {len(primals)} primal arguments but {len(tangents)} tangents")
    if core.current_scope() is None:
        return _eager_call(fun, ("jvp", has_aux), functools.partial(_jvp_traced, has_aux=has_aux),
                           tuple(primals), tuple(tangents))
    return _jvp_traced(fun, primals, tangents, has_aux)


def _vjp_traced(fun: Callable, primals: tuple, ct: Any, rec_leaves: Sequence[Any] = (), *,
                has_aux: bool, records: Sequence[_Recorded] = ()) -> tuple:
    leaves, in_tree = _operands(primals, "vjp")

    def flat_fun(*xs: Any) -> Any:
        return _split_aux(fun(*tree_util.tree_unflatten(in_tree, xs)), has_aux, "vjp", fun)[0]

    callee = None
    if any(rec.kept for rec in records):  # the custom_vjp calls reuse what vjp's forward pass computed
        replay = _Replay(records, rec_leaves)
        with _request(replay):
            callee = _Callee(flat_fun, [x.aval for x in leaves], _name(fun), f"vjp({_name(fun)})", leaves)
        if not replay.complete():  # fun did not call them in the same order: trace it anew
            callee.func.erase()
            callee = None
    if callee is None:
        with _request("rev"):
            callee = _Callee(flat_fun, [x.aval for x in leaves], _name(fun), f"vjp({_name(fun)})", leaves)
    ct_leaves, ct_tree = tree_util.tree_flatten(ct)
    if ct_tree != callee.out_tree:
        raise TypeError(f"{core.where()}: vjp: tree structure of the cotangent {ct_tree} does not "
                        f"match the structure of the primal output {callee.out_tree}")
    cts = [_like(c, a, "vjp", "cotangent") for c, a in zip(ct_leaves, callee.out_avals)]
    _, x_bars = _vjp_call(callee, leaves, cts)
    return tree_util.tree_unflatten(in_tree, _float0_where_integer(x_bars, [x.aval for x in leaves]))


class _VjpFunction:
    """The `vjp_fn` of ``out, vjp_fn = vjp(fun, *primals)``: ``vjp_fn(ct)``
    emits a vjp request (which recomputes the forward, except the custom_vjp
    calls that the eager forward pass recorded: their bwd rules take the
    recorded residuals) and returns one cotangent per primal, as a tuple."""

    def __init__(self, fun: Callable, primals: tuple, has_aux: bool, recorded: _Primal) -> None:
        self.fun = fun
        self.primals = primals
        self.has_aux = has_aux
        self.records = tuple(rec for rec, _ in recorded)
        self.rec_leaves = [x for _, leaves in recorded for x in leaves]

    def __call__(self, ct: Any) -> tuple:
        impl = functools.partial(_vjp_traced, has_aux=self.has_aux, records=self.records)
        if core.current_scope() is None:
            return _eager_call(self.fun, ("vjp", self.has_aux, self.records), impl, self.primals, ct,
                               self.rec_leaves)
        return impl(self.fun, self.primals, ct, self.rec_leaves)


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``(fun(*primals), vjp_fn)`` where ``vjp_fn(ct)`` is the cotangent `ct`
    (a pytree like the output) pulled back to the primals: a tuple with one
    cotangent per primal. With `has_aux`, `fun` returns (output, aux) and
    vjp returns (output, vjp_fn, aux)."""
    recorded = _Primal()
    with _request(recorded):  # custom_vjp functions run their fwd rule, as in JAX
        out, aux = _split_aux(fun(*primals), has_aux, "vjp", fun)
    vjp_fn = _VjpFunction(fun, primals, has_aux, recorded)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


@tree_util.register_pytree_node_class
class _Residuals:
    """What `fwd` of `fwd_and_bwd` hands to `bwd`: a pytree whose leaves are
    the arguments of the forward call, from which the backward pass
    recomputes what it needs (a vjp of `fun` at them). Calling it with an
    output cotangent gives the cotangents of the differentiated arguments,
    as calling JAX's residuals (its vjp function) does."""

    def __init__(self, fun: Callable, positions: tuple[int, ...], has_aux: bool, args: tuple) -> None:
        self.fun, self.positions, self.has_aux, self.args = fun, positions, has_aux, args

    def __call__(self, cotangent: Any) -> tuple:
        def differentiated(*values: Any) -> Any:
            return self.fun(*_substitute(self.args, self.positions, values))
        pulled = vjp(differentiated, *(self.args[i] for i in self.positions), has_aux=self.has_aux)
        return pulled[1](cotangent)

    def tree_flatten(self) -> tuple[tuple, tuple[Callable, tuple[int, ...], bool]]:
        return (self.args,), (self.fun, self.positions, self.has_aux)

    @classmethod
    def tree_unflatten(cls, aux: tuple[Callable, tuple[int, ...], bool], children: tuple) -> "_Residuals":
        return cls(*aux, children[0])


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
    """JAX's ``fwd, bwd = fwd_and_bwd(fun, argnums)``: ``y, residuals =
    fwd(*args)`` (``y, residuals, aux`` with `has_aux`) and
    ``bwd(residuals, cotangent)``, the tuple of cotangents of the arguments
    `argnums` names. With `jitted` both are jit functions, so a training loop
    compiles `bwd` once (a vjp function jitted anew each step recompiles).
    The residuals are the forward call's arguments: `bwd` recomputes the
    forward pass inside its own program."""
    argnums = _check_argnums(argnums, "fwd_and_bwd")

    def fwd(*args: Any) -> Any:
        positions = _positions(argnums, len(args), "fwd_and_bwd", fun)
        out, aux = _split_aux(fun(*args), has_aux, "fwd_and_bwd", fun)
        residuals = _Residuals(fun, positions, has_aux, args)
        return (out, residuals, aux) if has_aux else (out, residuals)

    def bwd(residuals: _Residuals, cotangent: Any) -> tuple:
        if not isinstance(residuals, _Residuals):
            raise TypeError(f"fwd_and_bwd: bwd takes the residuals that fwd returned, got "
                            f"{type(residuals).__name__}")
        return residuals(cotangent)

    if jitted:
        from .api import jit
        return jit(fwd), jit(bwd)
    return fwd, bwd


class _LinearizedFunction:
    """The `f_jvp` of ``out, f_jvp = linearize(fun, *primals)``:
    ``f_jvp(*tangents)`` emits a jvp request and returns the output tangent."""

    def __init__(self, fun: Callable, primals: tuple, has_aux: bool) -> None:
        self.fun = fun
        self.primals = primals
        self.has_aux = has_aux

    def __call__(self, *tangents: Any) -> Any:
        if len(tangents) != len(self.primals):
            raise TypeError(f"linearized function {_name(self.fun)} called with {len(tangents)} "
                            f"tangents for {len(self.primals)} primal arguments")
        return jvp(self.fun, self.primals, tangents, has_aux=self.has_aux)[1]


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the jvp of
    `fun` at `primals` (each call emits a jvp request). With `has_aux`,
    `fun` returns (output, aux) and linearize returns (output, f_jvp, aux)."""
    out, aux = _split_aux(fun(*primals), has_aux, "linearize", fun)
    f_jvp = _LinearizedFunction(fun, primals, has_aux)
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


# ---------------------------------------------------------------------------
# Jacobians
# ---------------------------------------------------------------------------

def _jacobian(fun: Callable, argnums: int | tuple[int, ...], has_aux: bool, what: str,
              args: tuple, kwargs: dict, holomorphic: bool = False) -> Any:
    """jacfwd / jacrev under a trace: a jvp request mapped over the basis of
    the inputs (fwd) or a vjp request mapped over the basis of the outputs
    (rev), by one vmap; each block J[o][i] has shape out + in."""
    positions = _positions(argnums, len(args), what, fun)
    leaves, in_tree = _operands(tuple(args[i] for i in positions), what)
    _check_inputs(what, fun, leaves, floating_only=what == "jacfwd", holomorphic=holomorphic)

    def flat_fun(*xs: Any) -> Any:
        return fun(*_substitute(args, positions, tree_util.tree_unflatten(in_tree, xs)), **kwargs)

    def main_fun(*xs: Any) -> Any:
        return _split_aux(flat_fun(*xs), has_aux, what, fun)

    with _request("fwd" if what == "jacfwd" else "rev"):
        callee = _Callee(main_fun, [x.aval for x in leaves], _name(fun), f"{what}({_name(fun)})", leaves)
    out_tree = callee.out_tree.children()[0]
    n_out = out_tree.num_leaves
    out_avals, aux_avals = callee.out_avals[:n_out], callee.out_avals[n_out:]
    in_avals = [x.aval for x in leaves]
    if what == "jacfwd":
        if holomorphic:
            _check_outputs(what, fun, out_avals, holomorphic)
        blocks = _jacobian_blocks(in_avals, out_avals, lambda ts: _jvp_call(callee, leaves, ts)[1][:n_out],
                                  forward=True)
    else:
        _check_outputs(what, fun, out_avals, holomorphic)

        def pull(cts: list) -> list:
            return _vjp_call(callee, leaves, cts + [_zeros(a) for a in aux_avals])[1]
        blocks = _jacobian_blocks(out_avals, in_avals, pull, forward=False)
    per_out = [tree_util.tree_unflatten(in_tree, row) for row in blocks]
    jac = tree_util.tree_unflatten(out_tree, [p[0] if isinstance(argnums, int) else p for p in per_out])
    if not has_aux:
        return jac
    return jac, _split_aux(flat_fun(*leaves), True, what, fun)[1]


def _basis_stack(avals: Sequence[ShapedArray], k: int) -> np.ndarray:
    """Rows of the identity over every element of `avals` together, the
    columns of input `k` shaped as it: shape (total size,) + avals[k].shape."""
    total = sum(a.size for a in avals)
    offset = sum(a.size for a in avals[:k])
    rows = np.zeros((total, avals[k].size), avals[k].dtype)
    rows[offset:offset + avals[k].size] = np.eye(avals[k].size, dtype=avals[k].dtype)
    return rows.reshape((total,) + avals[k].shape)


def _jacobian_blocks(seed_avals: Sequence[ShapedArray], result_avals: Sequence[ShapedArray],
                     linear_map: Callable[[list], list], forward: bool) -> list[list[Any]]:
    """J[o][i] of shape out_o + in_i, by mapping `linear_map` (a jvp of
    tangents, or a vjp of cotangents) over every basis vector at once with
    one vmap. Forward mode seeds the inputs (`seed_avals`) and gets output
    columns; reverse mode seeds the outputs and gets input rows."""
    from . import numpy as jnp
    from ._batching import vmap
    total = sum(a.size for a in seed_avals)
    if total == 0:
        mapped = [jnp.zeros((0,) + r.shape, r.dtype) for r in result_avals]
    else:
        mapped = vmap(lambda *seeds: linear_map(list(seeds)))(*[_basis_stack(seed_avals, k)
                                                                 for k in range(len(seed_avals))])
    blocks = []  # blocks[s][r]: (seed s's elements) x result r
    offset = 0
    for s in seed_avals:
        rows = [lax.slice_in_dim(m, offset, offset + s.size, axis=0).reshape(s.shape + r.shape)
                for m, r in zip(mapped, result_avals)]
        blocks.append(rows)
        offset += s.size
    if forward:  # blocks[i][o] has shape in_i + out_o: move the input dims last
        return [[jnp.moveaxis(blocks[i][o], tuple(range(seed_avals[i].ndim)),
                              tuple(range(-seed_avals[i].ndim, 0)))
                 for i in range(len(seed_avals))] for o in range(len(result_avals))]
    return blocks


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """The Jacobian of `fun` with respect to the arguments `argnums`, by
    forward mode: a jvp mapped (vmap) over the basis of the inputs. For an
    output of shape S and an input of shape T the block has shape S + T."""
    argnums = _check_argnums(argnums, "jacfwd")

    def impl(*args: Any, **kwargs: Any) -> Any:
        return _jacobian(fun, argnums, has_aux, "jacfwd", args, kwargs, holomorphic)
    return _Transformed(fun, "jacfwd", impl)


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """The Jacobian of `fun` with respect to the arguments `argnums`, by
    reverse mode: a vjp mapped (vmap) over the basis of the outputs. Same layout as `jacfwd`."""
    argnums = _check_argnums(argnums, "jacrev")

    def impl(*args: Any, **kwargs: Any) -> Any:
        return _jacobian(fun, argnums, has_aux, "jacrev", args, kwargs, holomorphic)
    return _Transformed(fun, "jacrev", impl)


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """``jacfwd(jacrev(fun, argnums), argnums)``: for a scalar function of an
    input of shape T, an array of shape T + T."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


# ---------------------------------------------------------------------------
# Custom derivative rules
# ---------------------------------------------------------------------------

_LEVELS = threading.local()  # the autodiff requests being traced around this code, innermost last


def _levels() -> tuple[Any, ...]:
    """The autodiff requests whose functions are being traced, innermost
    last: "rev", "fwd", a `_Primal` (vjp's forward pass), a `_Replay` (a
    pullback's "rev"), or "none" (a rule that nothing differentiates)."""
    return getattr(_LEVELS, "stack", ())


class _at_levels:
    """Trace with `stack` as the enclosing autodiff requests. A request
    pushes its kind while tracing its function; a custom rule is traced
    without the innermost one (only the outer requests differentiate it),
    as JAX traces a rule one level down. So calls of custom functions in
    their own rules nest no deeper than the requests around them."""

    def __init__(self, stack: tuple[Any, ...]) -> None:
        self.stack = stack

    def __enter__(self) -> None:
        self.saved = _levels()
        _LEVELS.stack = self.stack

    def __exit__(self, *exc: Any) -> None:
        _LEVELS.stack = self.saved


def _request(kind: Any) -> _at_levels:
    return _at_levels(_levels() + (kind,))


def _kind(levels: tuple) -> str:
    """The innermost request's kind; "" outside any."""
    return "" if not levels else levels[-1] if isinstance(levels[-1], str) else levels[-1].kind


class _Recorded(NamedTuple):
    """A custom_vjp call in vjp's forward pass: which function, on which
    avals, and whether its fwd rule's (output, residuals) were kept (with
    their structure and number of leaves)."""
    owner: "weakref.ref[Any]"
    avals: tuple
    kept: bool
    trees: tuple = ()
    n_leaves: int = 0


class _Primal(list):
    """The level of vjp's forward pass. Its custom_vjp calls run their fwd
    rule and append (record, leaves): the outputs and residuals of the eager
    ones are kept, for the pullback to use instead of running fwd again."""
    kind = "primal"


class _Replay:
    """The level of a pullback's reverse request: its custom_vjp calls take
    the recorded outputs and residuals in order while they match."""
    kind = "rev"

    def __init__(self, records: Sequence[_Recorded], leaves: Sequence[Any]) -> None:
        self.records, self.leaves = list(records), list(leaves)
        self.next = 0  # the next record
        self.start = 0  # its first leaf
        self.matched = True

    def take(self, owner: Any, avals: Sequence[ShapedArray]) -> tuple[_Recorded, list] | None:
        rec = self.records[self.next] if self.matched and self.next < len(self.records) else None
        self.matched = rec is not None and rec.owner() is owner and rec.avals == tuple(avals)
        self.next += 1
        if rec is None or not self.matched or not rec.kept:
            return None
        start, self.start = self.start, self.start + rec.n_leaves
        return rec, self.leaves[start:self.start]

    def complete(self) -> bool:
        return self.matched and self.next == len(self.records)


def _rule_levels(levels: tuple[Any, ...]) -> tuple[Any, ...]:
    """The levels a custom rule is traced at: without the innermost request;
    "none" where no request is left (the calls in it are just evaluated)."""
    return levels[:-1] or ("none",)


def _split_nondiff(args: tuple, nondiff: tuple[int, ...]) -> tuple[list[Any], list[int], list[Any]]:
    """(non-differentiable values, positions of the others, their values)."""
    positions = [i for i in range(len(args)) if i not in nondiff]
    return [args[i] for i in nondiff], positions, [args[i] for i in positions]


def _check_pair(out: Any, what: str) -> tuple[Any, Any]:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{core.where()}: {what} must return a pair (a tuple of length two), got "
                        f"{type(out).__name__}")
    return out[0], out[1]


def _match(leaves: Sequence[Any], tree: Any, avals: Sequence[ShapedArray], expected_tree: Any,
           what: str, kind: str) -> list[Any]:
    """Leaves that must have the structure and types of the function's
    outputs (weakly typed scalars are converted)."""
    if tree != expected_tree:
        raise TypeError(f"{core.where()}: {what} must produce {kind} with the structure of the "
                        f"function's output {expected_tree}, got {tree}")
    out = []
    for x, a in zip(leaves, avals):
        x = core.as_operand(x, what)
        if x.shape != a.shape or (x.dtype != a.dtype and not x.weak_type):
            raise TypeError(f"{core.where()}: {what} must produce {kind} of the function's output "
                            f"types, expected {a.str_short()} but got {x.aval.str_short()}")
        out.append(lax.convert_element_type(x, a.dtype) if x.dtype != a.dtype else x)
    return out


def forward_def_attribute(wrapper: Any, name: str) -> Any:
    """A custom-rule wrapper's ``__getattr__``: a ``def*`` method it lacks is
    the wrapped function's (``custom_vjp(custom_vmap(f)).def_vmap``), as in JAX."""
    fun = wrapper.__dict__.get("_fun")
    if name.startswith("def") and fun is not None:
        return getattr(fun, name)
    raise AttributeError(f"'{type(wrapper).__name__}' object has no attribute '{name}'")


class custom_jvp:
    """A function with a custom forward-mode derivative rule, as in JAX:

        @custom_jvp
        def f(x):
            return jnp.log1p(jnp.exp(x))

        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (x_dot,) = primals, tangents
            return f(x), x_dot * jax.nn.sigmoid(x)

    Under a trace a call emits ``jaxc.custom_jvp_call @f_0(...) jvp =
    @f_jvp_0``; the rule receives the primals and tangents of the
    differentiable arguments (`nondiff_argnums` ones are passed first, as
    plain values). Values the function closes over get no derivative.
    Called eagerly, it just runs `fun`. Calls of the function in its own
    rule are custom calls again for the outer derivatives."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self._fun = fun  # not `fun`: jit copies a wrapped object's __dict__ over its own
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None

    __getattr__ = forward_def_attribute

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``."""
        if symbolic_zeros:
            raise NotImplementedError("custom_jvp.defjvp: symbolic_zeros=True is not supported")
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument, ``jvps[i](x_dot, primal_out, *primals)``
        (None: no dependence); the output tangent is their sum."""
        if self.nondiff_argnums:
            raise TypeError("custom_jvp.defjvps cannot be used with nondiff_argnums")

        def rule(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
            out = self(*primals)  # as JAX: higher derivatives of `out` use this rule too
            parts = [f(t, out, *primals) for f, t in zip(jvps, tangents) if f is not None]
            if not parts:
                return out, tree_util.tree_map(lambda y: lax.full_like(y, 0), out)
            return out, tree_util.tree_map(lambda *ts: functools.reduce(operator.add, ts), *parts)
        self.defjvp(rule)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        jvp_rule = self.jvp
        if jvp_rule is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_name(self._fun)} using "
                                 "defjvp.")
        args = _resolve_kwargs(self._fun, args, kwargs)
        levels = _levels()
        if _kind(levels) == "primal":  # vjp's forward pass: as under the requests around it
            with _at_levels(levels[:-1]):
                return self(*args)
        if core.current_scope() is None or _kind(levels) == "none":
            return self._fun(*args)
        nondiff, positions, diff = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = _operands(tuple(diff), f"custom_jvp {_name(self._fun)}")
        n = len(leaves)
        avals = [x.aval for x in leaves]

        def flat_fun(*xs: Any) -> Any:
            return self._fun(*_substitute(args, positions, tree_util.tree_unflatten(in_tree, xs)))

        with _at_levels(("none",)):  # only evaluated: the rule gives its derivatives
            callee = _Callee(flat_fun, avals, _name(self._fun), f"custom_jvp {_name(self._fun)}")
        what = f"the custom_jvp rule {_name(jvp_rule)}"

        def flat_rule(*xts: Any) -> list[Any]:
            primals = tree_util.tree_unflatten(in_tree, xts[:n])
            tangents = tree_util.tree_unflatten(in_tree, xts[n:])
            out, out_dot = _check_pair(jvp_rule(*nondiff, primals, tangents), what)
            p_leaves, p_tree = tree_util.tree_flatten(out)
            t_leaves, t_tree = tree_util.tree_flatten(out_dot)
            p = _match(p_leaves, p_tree, callee.out_avals, callee.out_tree, what, "primal outputs")
            t = _match(t_leaves, t_tree, callee.out_avals, callee.out_tree, what, "tangent outputs")
            return p + t

        with _at_levels(_rule_levels(levels)):
            rule = _rule_callee(flat_rule, avals + avals, callee.out_avals * 2, f"{_name(self._fun)}_jvp", what,
                                levels)
        union = _union(callee.captured, rule.captured)
        callee.set_arguments([*range(n), *callee.capture_spec(union)])
        cap_types = [core.ir_type(c.aval.shape, c.aval.dtype) for c in union]
        rule.set_arguments([*range(n), *rule.capture_spec(union), *range(n, 2 * n), *cap_types])
        outs = _emit(lambda v, t: jd.CustomJvpCallOp(t, callee.symbol, rule.symbol, v),
                     [*leaves, *union], callee.out_avals)
        return tree_util.tree_unflatten(callee.out_tree, outs)


def _rule_callee(fun: Callable, in_avals: list[ShapedArray], out_avals: list[ShapedArray], base: str, what: str,
                 levels: tuple) -> _Callee:
    """A custom rule (custom_jvp's rule, custom_vjp's bwd) traced into a
    callee. If it raises outside any autodiff request (under jit, which may
    be differentiated later), the callee is a stand-in: zeros of the rule's
    output types, its function marked with the error, which jaxc-autodiff
    raises if the call is ever differentiated (JAX traces the rules only
    then). Under a request the error is the user's at once."""
    try:
        return _Callee(fun, in_avals, base, what)
    except Exception as error:
        if levels:
            raise
        return _failed_rule(in_avals, out_avals, error, base, what)


def _failed_rule(in_avals: list[ShapedArray], out_avals: list[ShapedArray], error: Exception, base: str,
                 what: str) -> _Callee:
    """`_rule_callee`'s stand-in for a rule that raised `error`."""
    from .passes.autodiff.control_flow import defer_rule_error
    from .passes.ir import RULE_ERROR
    rule = _Callee(lambda *xs: [lax.full(a.shape, 0, a.dtype) for a in out_avals], in_avals, base, what)
    with core.context():
        rule.func.attributes[RULE_ERROR] = ir.ArrayAttr.get([
            ir.IntegerAttr.get(ir.IntegerType.get_signless(64), defer_rule_error(error)),
            ir.StringAttr.get(f"{what} raised {type(error).__name__}: {error}")])
    return rule


def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list[Any]]:
    """JAX's closure conversion, for custom derivative rules of functions
    that close over traced values: ``converted, consts = closure_convert(fun,
    *example_args)``, where ``converted(*args, *consts) == fun(*args)`` and
    `consts` are the tracers `fun` reads from enclosing traces (found by
    tracing `fun` once on `example_args`); values that are not traced stay
    closed over. A custom_vjp/custom_jvp function can then take the consts as
    arguments and differentiate with respect to them.

        def loss(w, x):
            f = lambda z: jnp.sin(w * z)          # w: a tracer under grad
            f_conv, consts = closure_convert(f, x)  # consts == [w]
            return apply(f_conv, x, *consts)        # apply: a custom_vjp
    """
    leaves, in_tree = tree_util.tree_flatten(example_args)
    avals = [core.as_operand(leaf, "closure_convert").aval for leaf in leaves]
    region = core.trace_region(lambda *xs: fun(*tree_util.tree_unflatten(in_tree, xs)), avals,
                               f"closure_convert({_name(fun)})")
    hoisted = [c for c in region.captured if isinstance(c, core.Tracer)]
    n_args = len(example_args)

    def converted(*args_and_consts: Any) -> Any:
        args, consts = args_and_consts[:n_args], args_and_consts[n_args:]
        if len(consts) != len(hoisted):
            raise TypeError(f"{core.where()}: the closure-converted {_name(fun)} takes {n_args} "
                            f"arguments and {len(hoisted)} constants, got {len(args_and_consts)} values")
        if core.current_scope() is None and hoisted:  # their trace is over: trace anew
            from .api import jit
            return jit(converted)(*args_and_consts)
        with core.replacing(list(zip(hoisted, consts))):
            return fun(*args)

    converted.__name__ = f"closure_converted_{_name(fun)}"
    return converted, hoisted


class custom_vjp:
    """A function with a custom reverse-mode derivative rule, as in JAX:

        @custom_vjp
        def f(x, y):
            return jnp.sin(x) * y

        def f_fwd(x, y):
            return f(x, y), (jnp.cos(x), jnp.sin(x), y)

        def f_bwd(res, g):
            cos_x, sin_x, y = res
            return (cos_x * g * y, sin_x * g)

        f.defvjp(f_fwd, f_bwd)

    Under a trace a call emits ``jaxc.custom_vjp_call @f_0(...) fwd =
    @f_fwd_0 bwd = @f_bwd_0``. `fwd` takes the arguments and returns
    (output, residuals); `bwd` takes (residuals, output cotangent) (after the
    `nondiff_argnums` values) and returns a tuple with one cotangent per
    differentiable argument (None for zero). Values the functions close over
    get no derivative. Called eagerly, it just runs `fun`. Differentiated
    (in grad, vjp, ...), it runs `fwd` then `bwd` and not `fun`, as JAX
    does; `vjp`'s forward pass runs `fwd` and its pullback `bwd` (with the
    residuals `fwd` computed, where that pass was eager). Rules are traced
    one level down: a call of the function in its own rules is a custom
    call again for the outer derivatives (second order, `fixed_point`)."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self._fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    __getattr__ = forward_def_attribute

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        """Set the rules ``fwd(*args) -> (out, residuals)`` and
        ``bwd(residuals, ct) -> tuple of argument cotangents``."""
        if symbolic_zeros:
            raise NotImplementedError("custom_vjp.defvjp: symbolic_zeros=True is not supported")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fwd_rule = self.fwd
        if fwd_rule is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {_name(self._fun)} using "
                                 "defvjp.")
        args = _resolve_kwargs(self._fun, args, kwargs)
        levels = _levels()
        fwd_what = f"the custom_vjp fwd rule {_name(fwd_rule)}"
        bwd_what = f"the custom_vjp bwd rule {_name(self.bwd)}"
        if _kind(levels) == "primal":  # the forward pass of `vjp`: fwd's output, as in JAX
            with _at_levels(levels[:-1]):
                out, res = _check_pair(fwd_rule(*args), fwd_what)
            levels[-1].append(self._record(args, out, res, fwd_what, levels[:-1]))
            return out
        if core.current_scope() is None or _kind(levels) == "none":
            return self._fun(*args)
        nondiff, positions, diff = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = _operands(tuple(diff), f"custom_vjp {_name(self._fun)}")
        n = len(leaves)
        avals = [x.aval for x in leaves]
        trees: list[Any] = []  # output, residuals

        def full_args(xs: Sequence[Any]) -> tuple:
            return _substitute(args, positions, tree_util.tree_unflatten(in_tree, xs))

        callee = None
        if not levels:  # not differentiated (the rules are traced for the IR and its checks)
            with _at_levels(("none",)):
                callee = _Callee(lambda *xs: self._fun(*full_args(xs)), avals, _name(self._fun),
                                 f"custom_vjp {_name(self._fun)}")

        def flat_fwd(*xs: Any) -> list[Any]:
            out, res = _check_pair(fwd_rule(*full_args(xs)), fwd_what)
            p_leaves, p_tree = tree_util.tree_flatten(out)
            r_leaves, r_tree = _operands(res, fwd_what)
            trees.extend([p_tree, r_tree])
            if callee is not None:
                p_leaves = _match(p_leaves, p_tree, callee.out_avals, callee.out_tree, fwd_what,
                                  "primal outputs")
            return [core.as_operand(x, fwd_what) for x in p_leaves] + r_leaves

        def flat_bwd(*rcs: Any) -> list[Any]:
            res = tree_util.tree_unflatten(trees[1], rcs[:n_res])
            ct = tree_util.tree_unflatten(trees[0], rcs[n_res:])
            bwd_rule = self.bwd
            assert bwd_rule is not None  # defvjp sets it with fwd
            return _bwd_leaves(bwd_rule(*nondiff, res, ct), diff, avals, bwd_what)

        # As in JAX, a differentiated call runs fwd then bwd, not `fun`; in
        # a pullback, fwd's results may be those its vjp recorded.
        replayed = levels[-1].take(self, avals) if levels and isinstance(levels[-1], _Replay) else None
        if replayed is not None:
            trees.extend(replayed[0].trees)
        with _at_levels(_rule_levels(levels)):
            fwd = _Callee((lambda *xs: replayed[1]) if replayed else flat_fwd, avals,
                          f"{_name(self._fun)}_fwd", fwd_what)
            n_out = trees[0].num_leaves
            out_avals = fwd.out_avals[:n_out]
            n_res = len(fwd.out_avals) - n_out
            bwd = _rule_callee(flat_bwd, fwd.out_avals[n_out:] + out_avals, avals, f"{_name(self._fun)}_bwd",
                               bwd_what, levels)
        union = _union(*([callee.captured] if callee else []), fwd.captured, bwd.captured)
        fwd.set_arguments([*range(n), *fwd.capture_spec(union)])
        # What bwd closes over becomes extra residuals, returned by fwd;
        # bwd returns zero cotangents for the captured values.
        position = {id(c): n + k for k, c in enumerate(union)}
        fwd.append_results([fwd.block.arguments[position[id(c)]] for c in bwd.captured])
        bwd.set_arguments([*range(n_res), *range(n_res + n_out, bwd.n_in + len(bwd.captured)),
                           *range(n_res, n_res + n_out)])
        bwd.append_results([c.aval for c in union])
        # Differentiated, the primal function of the op is fwd without the residuals.
        fwd_avals = fwd.out_avals + [c.aval for c in bwd.captured]
        primal = callee or _Callee(
            lambda *xs: _emit(lambda v, t: func_d.CallOp(t, fwd.symbol, v), [*xs, *union], fwd_avals)[:n_out],
            avals, _name(self._fun), f"custom_vjp {_name(self._fun)}")
        primal.set_arguments([*range(n), *primal.capture_spec(union)])
        outs = _emit(lambda v, t: jd.CustomVjpCallOp(t, primal.symbol, fwd.symbol, bwd.symbol, v),
                     [*leaves, *union], out_avals)
        return tree_util.tree_unflatten(trees[0], outs)

    def _record(self, args: tuple, out: Any, res: Any, what: str,
                outer: tuple) -> tuple[_Recorded, list[Any]]:
        """What vjp's forward pass records of a call: its fwd rule's results
        are kept where they are concrete and no outer request differentiates them."""
        arg_leaves = _operands(tuple(_split_nondiff(args, self.nondiff_argnums)[2]), what)[0]
        (out_leaves, out_tree), (res_leaves, res_tree) = _operands(out, what), _operands(res, what)
        leaves = [*out_leaves, *res_leaves]
        rec = _Recorded(weakref.ref(self), tuple(x.aval for x in arg_leaves), False)
        if (_kind(outer) not in ("", "none") or core.current_scope() is not None
                or any(isinstance(x, core.Tracer) for x in arg_leaves + leaves)):
            return rec, []
        return rec._replace(kept=True, trees=(out_tree, res_tree), n_leaves=len(leaves)), leaves


def _bwd_leaves(cts: Any, diff: Sequence[Any], avals: Sequence[ShapedArray], what: str) -> list[Any]:
    """The flat input cotangents from a bwd rule's output: a tuple with one
    entry per differentiable argument, each like that argument (None: zero)."""
    if not isinstance(cts, (tuple, list)) or len(cts) != len(diff):
        raise TypeError(f"{core.where()}: {what} must return a tuple with one cotangent per "
                        f"differentiable argument ({len(diff)}), got {type(cts).__name__}"
                        + (f" of length {len(cts)}" if isinstance(cts, (tuple, list)) else ""))
    leaves: list[Any] = []
    for k, (ct, arg) in enumerate(zip(cts, diff)):
        arg_tree = tree_util.tree_structure(arg)
        if ct is None:
            leaves += [None] * arg_tree.num_leaves
            continue
        ct_leaves, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda x: x is None)
        if ct_tree != arg_tree:
            raise TypeError(f"{core.where()}: {what}: cotangent {k} has structure {ct_tree}, but "
                            f"the argument has structure {arg_tree}")
        leaves += ct_leaves
    return [_zeros(a) if ct is None else _like(ct, a, what, "cotangent") for ct, a in zip(leaves, avals)]


# ---------------------------------------------------------------------------
# Rematerialization (jax.checkpoint)
# ---------------------------------------------------------------------------

def _emit_checkpoint_name(x: Any, name: str) -> Any:
    return _emit(lambda v, t: jd.CheckpointNameOp(v[0], name), [x], [x.aval])[0]


def _emit_optimization_barrier(leaves: Sequence[Any]) -> list[Any]:
    return _emit(lambda v, t: jd.OptimizationBarrierOp(v), leaves, [x.aval for x in leaves])


class _PolicyPrimitive(NamedTuple):
    """What a custom remat policy is shown of an op: its JAX primitive name."""
    name: str


# jaxc op -> the name of JAX's primitive (where they differ: "jaxc.X" is "X")
_PRIMITIVE_NAMES = {"jaxc.checkpoint_name": "name", "jaxc.conv_general_dilated": "conv_general_dilated"}


def _policy_params(op: ir.Operation) -> dict[str, Any]:
    """The parameters JAX passes a policy for `op` (those the policies read)."""
    if op.name == "jaxc.checkpoint_name":
        return {"name": ir.StringAttr(op.attributes["label"]).value}
    if op.name == "jaxc.dot_general":
        dims = [tuple(ir.DenseI64ArrayAttr(op.attributes[f"{side}_{kind}_dimensions"]))
                for kind in ("contracting", "batching") for side in ("lhs", "rhs")]
        return {"dimension_numbers": ((dims[0], dims[1]), (dims[2], dims[3]))}
    return {}


def _mark_saved(callee: _Callee, policy: Callable[..., bool]) -> list[str]:
    """Evaluate a policy callable on every op of `callee`'s body; name the
    results of those it saves (`jaxc.checkpoint_name`, fresh names) and
    return the names, for ``policy = "save_only_these_names"``."""
    names: list[str] = []
    ops = list(callee.block.operations)[:-1]
    with core.context(), ir.Location.unknown(core.context()):
        for op in ops:
            op = op.operation
            prim = _PolicyPrimitive(_PRIMITIVE_NAMES.get(op.name, op.name.removeprefix("jaxc.")))
            avals = [core.aval_of_type(v.type) for v in op.operands]
            if not policy(prim, *avals, **_policy_params(op)):
                continue
            for result in op.results:
                names.append(f"jaxc_saved_{len(names)}")
                with ir.InsertionPoint.after(op), op.location:
                    named = jd.CheckpointNameOp(result, names[-1])
                result.replace_all_uses_except(named.result, named.operation)
                op = named.operation
    return names


def remat_call(fun: Callable, args: tuple, static: Sequence[int], policy: str | Callable[..., bool],
               names: Sequence[str] | None, prevent_cse: bool) -> Any:
    """``fun(*args)`` as ``jaxc.remat @fun_N(...)`` when traced (eagerly,
    just the call). `policy` is a policy name of `jaxc.remat` (with `names`
    for the named ones) or a callable, evaluated here on each op of the
    traced function. Arguments at `static` positions are passed as they are."""
    levels = _levels()
    if core.current_scope() is None or _kind(levels) in ("primal", "none"):
        return fun(*args)
    what = f"checkpoint {_name(fun)}"
    positions = [i for i in range(len(args)) if i not in static]
    leaves, in_tree = _operands(tuple(args[i] for i in positions), what)

    def flat_fun(*xs: Any) -> Any:
        return fun(*_substitute(args, positions, tree_util.tree_unflatten(in_tree, xs)))

    callee = _Callee(flat_fun, [x.aval for x in leaves], _name(fun), what, values=leaves)
    if callable(policy):
        names, policy = _mark_saved(callee, policy), "save_only_these_names"
    outs = _emit(lambda v, t: jd.RematOp(t, callee.symbol, v, policy=policy,
                                         names=list(names) if names is not None else None,
                                         prevent_cse=prevent_cse),
                 [*leaves, *callee.captured], callee.out_avals)
    return tree_util.tree_unflatten(callee.out_tree, outs)
