"""The batching interpreter: derive `@f_vmap` from `@f` for one vmap request.

Each value of the callee's body becomes a pair (tracer, batched): a batched
value carries the batch axis as its leading dimension (inputs are moved
there on entry, outputs moved to their `out_axes` on return), an unbatched
one is the original value. Ops whose operands are all unbatched are copied
as they are; the others go to their rule in `BATCH`, looked up by op name:

    rule(op, xs, batched, axis) -> (results, batched flags)

where `axis` is the `Axis` being mapped (size and optional name). Ops that
depend on the mapped axis even with unbatched operands (`axis_index`,
collectives naming it) are in `AXIS_OPS` and always go to their rule.

    func.func private @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
      %0 = jaxc.mul %x, %w : tensor<3xf32>
      return %0 : tensor<3xf32>
    }
    %ys = jaxc.vmap @f(%xs, %w) in_axes = [1, -1] out_axes = [0] axis_size = 8
            : (tensor<3x8xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  ->
    func.func private @f_vmap(%xs: tensor<3x8xf32>, %w: tensor<3xf32>) -> tensor<8x3xf32> {
      %0 = jaxc.transpose %xs, perm = [1, 0] : tensor<3x8xf32> -> tensor<8x3xf32>
      %1 = jaxc.broadcast_in_dim %w, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
      %2 = jaxc.mul %0, %1 : tensor<8x3xf32>
      return %2 : tensor<8x3xf32>
    }
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

from mlir import ir

from ..autodiff.jvp import apply_op
from ..ir import (
    RuleError,
    finish_function,
    functions,
    integer,
    ints,
    module_of,
    new_function,
    ops_named,
    reaching,
    referenced,
    symbol_name,
)


@dataclasses.dataclass(frozen=True)
class Axis:
    """The axis a vmap request maps over."""

    size: int
    name: Optional[str] = None
    # functions whose bodies reach an op of AXIS_OPS (through calls and requests)
    functions_using_axis: frozenset = frozenset()


Rule = Callable[[ir.Operation, list, list, Axis], tuple[list, list]]
# op name -> rule(op, xs, batched, axis) -> (results, batched flags)
BATCH: dict[str, Rule] = {}
# ops that go to their rule even when no operand is batched
AXIS_OPS: set[str] = set()
# ops without operands: the same value in every lane, never batched
NEVER_BATCHED: dict[str, str] = {
    "jaxc.constant": "no operands: the same value in every lane",
    "jaxc.iota": "no operands: the same value in every lane",
}
# ops no rule batches, with the reason the error gives
NOT_BATCHABLE: dict[str, str] = {
    "jaxc.vmap": "requests inside a callee are expanded first (this one should have been)",
    "jaxc.yield": "a region terminator; its region's op is batched as a whole",
}


# ---------------------------------------------------------------------------
# Helpers for rules
# ---------------------------------------------------------------------------

def moveaxis(x: Any, source: int, destination: int) -> Any:
    """`x` with dimension `source` moved to `destination` (a transpose)."""
    from jaxc import lax
    if source == destination:
        return x
    perm = [d for d in range(x.ndim) if d != source]
    perm.insert(destination, source)
    return lax.transpose(x, perm)


def broadcast_batch(x: Any, size: int) -> Any:
    """An unbatched `x` repeated along a new leading batch axis of `size`."""
    from jaxc import lax
    return lax.broadcast_in_dim(x, (size, *x.shape), tuple(range(1, x.ndim + 1)))


def batched_all(xs: Sequence[Any], batched: Sequence[bool], size: int) -> list[Any]:
    """Every value batched (the unbatched ones broadcast)."""
    return [x if b else broadcast_batch(x, size) for x, b in zip(xs, batched)]


def batched_type(type_: ir.Type, size: int) -> ir.Type:
    t = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get([size, *t.shape], t.element_type)


def rebuild(op: ir.Operation, operands: Sequence[Any], result_types: Sequence[ir.Type],
            **attributes: ir.Attribute) -> list[Any]:
    """A copy of `op` on `operands` (tracers) with new result types and some
    attributes replaced; regions (e.g. a scatter's combiner) move over from a
    clone. The copy is verified, so a rule's mistake surfaces at once."""
    from jaxc import core
    scope = core.current_scope()
    attrs = {a.name: a.attr for a in (op.attributes[i] for i in range(len(op.attributes)))}
    attrs.update(attributes)
    with core.user_location(), ir.InsertionPoint(scope.block):
        new = ir.Operation.create(op.name, results=list(result_types),
                                  operands=[scope.value(x) for x in operands], attributes=attrs,
                                  regions=len(op.regions))
        if op.regions:
            source = op.clone(ip=ir.InsertionPoint(scope.block))
            for src, dst in zip(source.regions, new.regions):
                _move_region(src, dst)
            source.erase()
    new.verify()
    return [scope.tracer(r) for r in new.results]


def _move_region(source: ir.Region, target: ir.Region) -> None:
    old = source.blocks[0]
    block = target.blocks.append(*[a.type for a in old.arguments])
    for arg, new in zip(old.arguments, block.arguments):
        arg.replace_all_uses_with(new)
    for child in list(old.operations):
        block.append(child)


def same_op(op: ir.Operation, operands: Sequence[Any], size: int, **attributes: ir.Attribute) -> list[Any]:
    """`op` on batched operands: each result gains the leading batch axis."""
    return rebuild(op, operands, [batched_type(r.type, size) for r in op.results], **attributes)


def i64_array(values: Sequence[int]) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def i64(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


__all__ = ["Axis", "BATCH", "AXIS_OPS", "NEVER_BATCHED", "NOT_BATCHABLE", "RuleError", "moveaxis", "broadcast_batch",
           "batched_all", "batched_type", "rebuild", "same_op", "i64_array", "i64", "ints", "integer",
           "derive_vmap", "batch_op"]


# ---------------------------------------------------------------------------
# The interpreter
# ---------------------------------------------------------------------------

def derive_vmap(request: ir.Operation, callee: ir.Operation) -> str:
    """Build `@<callee>_vmap`, taking the request's operands as they are (batch
    axes at `in_axes`) and returning its results (batch axes at `out_axes`);
    return its name."""
    from jaxc.core import emitting
    in_axes, out_axes = ints(request, "in_axes"), ints(request, "out_axes")
    module = module_of(callee)
    using = reaching(functions(module), tuple(AXIS_OPS)) if AXIS_OPS else {}
    axis = Axis(integer(request, "axis_size"), _axis_name(request),
                frozenset(name for name, uses in using.items() if uses))
    body = callee.regions[0].blocks[0]
    ops = list(body.operations)
    arg_types = [v.type for v in request.operands]
    fn, block = new_function(module, f"{symbol_name(callee)}_vmap", arg_types, request.location)
    with emitting(block, request.location) as e:
        env: dict[ir.Value, tuple[Any, bool]] = {}
        for arg, new, in_axis in zip(body.arguments, block.arguments, in_axes):
            x = e.wrap(new)
            env[arg] = (moveaxis(x, in_axis, 0), True) if in_axis >= 0 else (x, False)
        for op in ops[:-1]:
            e.at(op.location)
            batch_op(op, env, axis)
        e.at(request.location)
        results = []
        for j, (value, out_axis) in enumerate(zip(ops[-1].operands, out_axes)):
            x, batched = env[value]
            if out_axis < 0:
                if batched:
                    raise RuleError(request, f"jaxc-batch: out_axes[{j}] is None (-1) but output {j} of "
                                    f"@{symbol_name(callee)} depends on the mapped axis")
            else:
                x = moveaxis(x if batched else broadcast_batch(x, axis.size), 0, out_axis)
            results.append(x.value)
    finish_function(fn, block, results, request.location)
    return symbol_name(fn)


def batch_op(op: ir.Operation, env: dict, axis: Axis) -> None:
    """Emit the batched form of one op; record its results in `env`."""
    xs = [env[v][0] for v in op.operands]
    batched = [env[v][1] for v in op.operands]
    if not any(batched) and not _uses_axis(op, axis):
        ys, out_batched = apply_op(op, xs), [False] * len(op.results)
    elif axis.size == 0 and _empty_when_unmapped(op, axis):
        ys, out_batched = [_empty_batch(r.type) for r in op.results], [True] * len(op.results)
    elif op.name in BATCH:
        ys, out_batched = BATCH[op.name](op, xs, batched, axis)
    else:
        why = NOT_BATCHABLE.get(op.name)
        raise RuleError(op, f"jaxc-batch: '{op.name}' has no batching rule" + (f": {why}" if why else ""))
    for result, y, b in zip(op.results, ys, out_batched):
        env[result] = (y, b)


# ops that must run (or be refused) even over an empty batch
_EFFECTFUL = ("jaxc.callback",)


def _empty_when_unmapped(op: ir.Operation, axis: Axis) -> bool:
    """Whether `op` over an empty batch is just its empty results: an op
    without regions, callees, effects or use of the axis. (Its rule might
    build an invalid op there, e.g. a gather window of 1 on the size-0 axis.)"""
    return not (len(op.regions) or referenced(op) or op.name in _EFFECTFUL or _uses_axis(op, axis))


def _empty_batch(type_: ir.Type) -> Any:
    """The value of a result of type `type_` over an empty batch: a
    `tensor<0x...>` constant."""
    from jaxc import core, lax
    aval = core.aval_of_type(type_)
    return lax.full((0, *aval.shape), 0, aval.dtype)


def _uses_axis(op: ir.Operation, axis: Axis) -> bool:
    """Whether `op` depends on the mapped axis even with unbatched operands:
    an axis op itself, or a region or callee holding one (a psum in a cond)."""
    if op.name in AXIS_OPS:
        return True
    if len(op.regions) and ops_named(op, tuple(AXIS_OPS)):
        return True
    return any(name in axis.functions_using_axis for name in referenced(op))


def _axis_name(request: ir.Operation) -> Optional[str]:
    return ir.StringAttr(request.attributes["axis_name"]).value if "axis_name" in request.attributes else None
