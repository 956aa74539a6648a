"""`jaxc.custom_batching`: functions with their own vmap rule, as JAX's
`jax.custom_batching`.

    @custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        return xs * ys, True          # (batched outputs, which outputs are batched)

    jaxc.vmap(f)(xs, ys)              # xs * ys: the rule, not the function

Under a trace a call of `f` is a call of the function traced into a
private function, marked with the number under which this process keeps
the call's rule and argument structure (`MARKED`):

    %r = func.call @f_0(%x, %y) {jaxc.custom_vmap = 3 : i64} : (...) -> tensor<f32>

Unbatched, it is a plain call (jit, grad and the lowering see only the
function). `jaxc-batch` hands a marked call with a batched operand to
`batch_call`, which calls the rule on the batched values (batch axis first)
and emits what it computes in place of the call. The rule runs when the
program is compiled, as JAX runs it when the program is traced; an
exception it raises reaches the caller as it is.

`sequential_vmap(f)`: the rule is a loop over the lanes (`lax.map`), for
functions that do not batch.
"""
from __future__ import annotations

import functools
import itertools
import threading
from typing import Any, Callable, NamedTuple

import mlir.ir as ir
import optree
from mlir.dialects import func as func_d

from . import core, tree_util
from ._autodiff import _Callee, _emit, _name, _operands, forward_def_attribute

ATTRIBUTE = "jaxc.custom_vmap"  # on func.call: its number in MARKED


class Marked(NamedTuple):
    """What a marked call's batching needs: the function (its rule) and the
    structure of its arguments and results."""
    fn: "custom_vmap"
    in_tree: Any
    n_args: int
    out_tree: Any


# call number -> Marked; a number per traced call, so that no two programs share
# one (a program is never taken from the compile cache for another's rule)
MARKED: dict[int, Marked] = {}
_NUMBERS = itertools.count()
_LOCK = threading.Lock()


class custom_vmap:
    """Customize how a function batches under `jaxc.vmap` (JAX's
    `jax.custom_batching.custom_vmap`). `def_vmap(rule)` sets the rule
    ``rule(axis_size, in_batched, *args) -> (out, out_batched)``: `args` as
    the function takes them, batched ones with the mapped axis first;
    `in_batched` and `out_batched` are pytrees of bools (`out_batched` may be
    a prefix of the output: one bool for all of it)."""

    def __init__(self, fun: Callable) -> None:
        functools.update_wrapper(self, fun)
        self.fun = self._fun = fun
        self.vmap_rule: Callable | None = None

    __getattr__ = forward_def_attribute

    def def_vmap(self, vmap_rule: Callable) -> Callable:
        """Set the vmap rule; returns it unchanged (usable as a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"custom_vmap {_name(self.fun)}: keyword arguments are not supported, "
                            f"got {sorted(kwargs)}")
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function {_name(self.fun)} "
                                 "using def_vmap.")
        if core.current_scope() is None:  # eager and unbatched: just the function
            return self.fun(*args)
        leaves, in_tree = _operands(args, f"custom_vmap {_name(self.fun)}")
        avals = [x.aval for x in leaves]
        callee = _Callee(lambda *xs: self.fun(*tree_util.tree_unflatten(in_tree, xs)), avals,
                         _name(self.fun), f"custom_vmap {_name(self.fun)}")
        with _LOCK:
            n = next(_NUMBERS)
        MARKED[n] = Marked(self, in_tree, len(leaves), callee.out_tree)
        number = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)

        def call(values: list[ir.Value], types: list[ir.Type]) -> Any:
            op = func_d.CallOp(types, callee.symbol, values)
            op.operation.attributes[ATTRIBUTE] = number
            return op

        outs = _emit(call, [*leaves, *callee.captured], callee.out_avals)
        return tree_util.tree_unflatten(callee.out_tree, outs)


def sequential_vmap(f: Callable) -> custom_vmap:
    """`f` as a custom_vmap function whose rule calls it once per lane, in a
    loop (`lax.map`): for functions that do not batch (JAX's
    `jax.custom_batching.sequential_vmap`)."""
    from .lax import map as lax_map

    wrapped = custom_vmap(f)

    @wrapped.def_vmap
    def rule(axis_size: int, in_batched: Any, *args: Any) -> tuple[Any, bool]:
        leaves, tree = tree_util.tree_flatten(args)
        flags = tree_util.tree_leaves(in_batched)

        def lane(batched_leaves: list[Any]) -> Any:
            it = iter(batched_leaves)
            return wrapped(*tree_util.tree_unflatten(tree, [next(it) if b else x for x, b in zip(leaves, flags)]))

        return lax_map(lane, [x for x, b in zip(leaves, flags) if b]), True

    return wrapped


# --- the batching rule (passes/batching/control_flow.py calls it) -------------------

def batch_call(op: ir.Operation, xs: list[Any], batched: list[bool], axis_size: int) -> tuple[list[Any], list[bool]]:
    """The batched form of a marked call: the rule on `xs` (batched ones with
    the mapped axis first); (flat results, which are batched). What the rule
    raises, and a ValueError/TypeError when its results do not fit the
    call's, leave as a `UserCodeError` (the caller gets the exception)."""
    from jaxc.passes.ir import RuleError
    from jaxc.passes.pipeline import UserCodeError

    number = ir.IntegerAttr(op.attributes[ATTRIBUTE]).value
    marked = MARKED.get(number)
    if marked is None:
        symbol = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        raise RuleError(op, f"jaxc-batch: no custom_vmap rule numbered {number} (for @{symbol}) in this "
                        "process: the module was traced elsewhere, and the call cannot be batched")
    fn, in_tree, n_args, out_tree = marked

    def fail(error: BaseException):
        raise UserCodeError(op, error)

    if any(batched[n_args:]):
        fail(ValueError(f"custom_vmap {_name(fn.fun)}: batching a function that closes over a value the "
                        "vmap maps is not supported; pass the value as an argument"))
    args = tree_util.tree_unflatten(in_tree, xs[:n_args])
    in_batched = tree_util.tree_unflatten(in_tree, batched[:n_args])
    vmap_rule = fn.vmap_rule
    assert vmap_rule is not None  # custom_vmap.__call__ marks a call only once a rule is set
    try:
        with core.user_code():
            result = vmap_rule(axis_size, in_batched, *args)
    except Exception as error:  # noqa: BLE001 -- the user's rule: raised again at the caller
        fail(error)
    name = _name(fn.vmap_rule)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail(TypeError(f"the custom vmap rule {name} must return a pair (output, out_batched), "
                       f"got {type(result).__name__}"))
    out, out_batched = result
    leaves, tree = tree_util.tree_flatten(out)
    if tree != out_tree:
        fail(ValueError(f"the custom vmap rule {name} returned an output of structure {tree}, but the "
                        f"function's output has structure {out_tree}"))
    try:
        flags = optree.broadcast_prefix(out_batched, out, none_is_leaf=False, namespace=tree_util.NAMESPACE)
    except ValueError as error:
        fail(ValueError(f"structure of output value and output batching specification returned by custom "
                        f"vmap rule ({name}) do not match: {error}"))
    values = []
    for i, (leaf, flag, result_value) in enumerate(zip(leaves, flags, op.results)):
        x = core.as_operand(leaf, f"custom vmap rule {name}")
        want = ir.RankedTensorType(result_value.type)
        shape = (axis_size, *want.shape) if flag else tuple(want.shape)
        if tuple(x.shape) != shape or core.ir_type(x.shape, x.dtype) != ir.RankedTensorType.get(
                list(shape), want.element_type):
            fail(ValueError(f"the custom vmap rule {name} returned output {i} of type {x.dtype}{list(x.shape)}, "
                            f"expected {want.element_type}{list(shape)} "
                            f"({'batched' if flag else 'unbatched'}, as out_batched says)"))
        values.append(x)
    return values, [bool(f) for f in flags]


__all__ = ["custom_vmap", "sequential_vmap"]
