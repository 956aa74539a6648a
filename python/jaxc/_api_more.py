"""Abstract evaluation: `make_jaxpr`, `eval_shape`, `ShapeDtypeStruct`,
`typeof`, and `device_get`.

`make_jaxpr(f)(*args)` and `eval_shape(f, *args)` trace `f` (as `jit` does)
without compiling or running it. Only the shape, dtype and weak type of an
argument matter, so an argument may be an array, a NumPy value, a Python
scalar, a `ShapeDtypeStruct`, or anything with `.shape` and `.dtype`:

    >>> eval_shape(lambda x: x.sum(0), ShapeDtypeStruct((3, 4), jnp.float32))
    ShapeDtypeStruct(shape=(4,), dtype=float32)

`make_jaxpr` returns jaxc's traced IR (the `jaxc` dialect, as `make_ir`)
where JAX returns a jaxpr, with the same `in_avals`, `out_avals`, `consts`.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from . import api, core, dtypes, tree_util
from .core import ArrayBase, ShapedArray

__all__ = ["make_jaxpr", "eval_shape", "ShapeDtypeStruct", "typeof", "device_get"]


class ShapeDtypeStruct:
    """The shape and dtype of an array, without the array: an argument of
    `eval_shape`, `make_jaxpr` or `jit(f).lower`, and what `eval_shape`
    returns. Hashable, equal by value."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape: Any, dtype: Any, *, sharding: Any = None, weak_type: bool = False) -> None:
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        self.shape = tuple(operator.index(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def update(self, **changes: Any) -> "ShapeDtypeStruct":
        """A copy with some of shape, dtype, sharding, weak_type replaced."""
        fields = {"shape": self.shape, "dtype": self.dtype, "sharding": self.sharding,
                  "weak_type": self.weak_type}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"ShapeDtypeStruct.update: unknown field(s) {', '.join(sorted(unknown))}")
        fields.update(changes)
        return ShapeDtypeStruct(fields.pop("shape"), fields.pop("dtype"), **fields)

    def _key(self) -> tuple:
        return (self.shape, self.dtype, self.sharding, self.weak_type)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        sharding = f", sharding={self.sharding!r}" if self.sharding is not None else ""
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"


def typeof(x: Any) -> ShapedArray:
    """The abstract value of an array, a tracer, a NumPy value or a Python
    scalar: ``typeof(1.0)`` is ``ShapedArray(float32[], weak_type=True)``."""
    try:
        return api._leaf_aval(x)
    except TypeError:
        raise TypeError(f"typeof: {type(x).__name__} {x!r} is not an array, a tracer, a NumPy "
                        "value or a Python scalar") from None


def device_get(x: Any) -> Any:
    """A pytree with every Array replaced by a NumPy array (waiting for it);
    other leaves are returned as they are."""
    return tree_util.tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, ArrayBase) else leaf, x)


# ---------------------------------------------------------------------------
# Tracing abstract arguments
# ---------------------------------------------------------------------------

class _Abstract(ArrayBase):
    """Stands for an argument leaf of which only the aval is used (a call
    traced, never run). Its `__array__` is a zero-byte broadcast, for the
    argument values `JitFunction._signature` lists and nobody reads."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.broadcast_to(np.zeros((), self.aval.dtype), self.aval.shape)


def _leaf_aval(x: Any) -> ShapedArray:
    """The aval of an argument leaf: `api._leaf_aval`'s, or that of a
    ShapeDtypeStruct or anything else with `.shape` and `.dtype`."""
    duck = (hasattr(x, "shape") and hasattr(x, "dtype")
            and not isinstance(x, (ArrayBase, np.ndarray, np.generic)))
    if duck:
        return ShapedArray(x.shape, dtypes.canonicalize(x.dtype), getattr(x, "weak_type", False))
    return api._leaf_aval(x)


def _abstract_leaf(x: Any) -> Any:
    """A stand-in for an argument leaf; a Ref stays itself (the trace reads
    and writes it through its own stand-in, `api.trace_function`)."""
    return x if isinstance(x, core.Ref) else _Abstract(_leaf_aval(x))


def _name(fun: Callable, what: str) -> str:
    """``what(f)``, how errors name the call; TypeError if `fun` is not callable."""
    if not callable(fun):
        raise TypeError(f"{what}: expected a function, got {type(fun).__name__} {fun!r}")
    return f"{what}({getattr(fun, '__name__', 'fn')})"


def abstract_arguments(jitted: api.JitFunction, args: tuple, kwargs: dict, what: str) -> tuple[tuple, dict]:
    """(args, kwargs) with every leaf of the dynamic arguments of `jitted`
    replaced by a stand-in holding its aval: a trace that needs no values.
    `what` names the API in errors (``eval_shape(f): ...``)."""
    name = _name(jitted.fun, what)
    try:
        args = tuple(a if i in jitted.static_argnums else tree_util.tree_map(_abstract_leaf, a)
                     for i, a in enumerate(args))
        kwargs = {k: v if k in jitted.static_argnames else tree_util.tree_map(_abstract_leaf, v)
                  for k, v in kwargs.items()}
    except TypeError as error:
        raise TypeError(f"{name}: {error}") from None
    return args, kwargs


def _trace(fun: Callable, static_argnums: Any, args: tuple, kwargs: dict, what: str) -> tuple[api.Traced, list]:
    """Trace `fun` on the avals of (args, kwargs): (Traced, the flat input avals)."""
    _name(fun, what)
    jitted = api.JitFunction(fun, static_argnums)
    args, kwargs = abstract_arguments(jitted, args, kwargs, what)
    key, _, rebuild = jitted._signature(args, kwargs)
    # trace_function, not jitted._trace: a jit of `fun` keeps its trace count.
    return api.trace_function(fun, key[1], rebuild, jitted._name), list(key[1])


def _shape_tree(out_tree: Any, out_avals: list[ShapedArray]) -> Any:
    structs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in out_avals]
    return tree_util.tree_unflatten(out_tree, structs)


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)`` as a pytree of
    `ShapeDtypeStruct`, found by tracing `fun` (nothing is compiled or run).
    `fun` is traced as a region of the current trace, if any, so inside
    `jit` it may close over the outer function's tracers."""
    name = _name(fun, "eval_shape")
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    try:
        avals = [_leaf_aval(x) for x in leaves]
    except TypeError as error:
        raise TypeError(f"{name}: {error}") from None

    def flat_fun(*tracers: Any) -> Any:
        call_args, call_kwargs = tree_util.tree_unflatten(tree, tracers)
        return fun(*call_args, **call_kwargs)
    outer = core.current_scope()
    body = _module_body(outer) if outer is not None else None
    count = len(body.operations) if body is not None else 0
    region = core.trace_region(flat_fun, avals, f"the result of {name}")
    if body is not None:  # drop the functions grad/vmap inside `fun` added to the outer module
        for op in list(body.operations)[count:]:
            op.operation.erase()
    return _shape_tree(region.out_tree, region.out_avals)


def _module_body(scope: core.Scope) -> Any:
    """The block of the module that `scope` (a trace in progress) builds."""
    from ._autodiff import _trace_module
    return _trace_module(scope).regions[0].blocks[0]


class ClosedIR:
    """What ``make_jaxpr(f)(*args)`` returns (JAX's `ClosedJaxpr`): prints as
    the traced IR. `jaxpr` is the `make_ir` object, `in_avals` the avals of
    the dynamic argument leaves, `out_avals` those of the results, `consts`
    the Arrays `f` closes over (extra arguments of the traced function)."""

    def __init__(self, traced: api.Traced, in_avals: list[ShapedArray]) -> None:
        self.jaxpr = api.IR(traced)
        self.in_avals = in_avals
        self.out_avals = list(traced.out_avals)
        self.consts = list(traced.consts)

    def as_text(self, debug_info: bool = False) -> str:
        return self.jaxpr.as_text(debug_info=debug_info)

    def __str__(self) -> str:
        return self.as_text()

    __repr__ = __str__


def make_jaxpr(fun: Callable, static_argnums: Any = (), return_shape: bool = False) -> Callable[..., Any]:
    """``make_jaxpr(f)(*args)``: `f` traced on the avals of `args`, as a
    `ClosedIR` (jaxc's IR where JAX shows a jaxpr); with ``return_shape=True``,
    ``(ClosedIR, pytree of ShapeDtypeStruct)``."""

    def make(*args: Any, **kwargs: Any) -> Any:
        traced, in_avals = _trace(fun, static_argnums, args, kwargs, "make_jaxpr")
        closed = ClosedIR(traced, in_avals)
        return (closed, _shape_tree(traced.out_tree, traced.out_avals)) if return_shape else closed
    return make
