"""`jaxc-gpu-linearize-parallel-loops`: an outermost multi-dimensional
`scf.parallel` with constant bounds becomes one loop over the product of its
trip counts, the original indices recovered with `divui`/`remui`.

Tiling the single dimension by the block size then maps consecutive
iterations of the innermost (contiguous) dimension to consecutive threads,
whatever the rank: coalesced accesses and full blocks for any shape.

Before::

    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
      ... %i ... %j ...
    }

After::

    scf.parallel (%n) = (%c0) to (%c128) step (%c1) {
      %i = arith.divui %n, %c16 : index
      %j = arith.remui %n, %c16 : index
      ... %i ... %j ...
    }
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import ExternalPass

from ..ir import preorder_ops
from ..registry import register_pass
from . import loops


@register_pass("jaxc-gpu-linearize-parallel-loops",
               "fold an outermost multi-dimensional scf.parallel with constant bounds into one dimension")
def linearize_parallel_loops(op: ir.Operation, pass_: ExternalPass) -> None:
    def is_parallel(inner: ir.Operation) -> bool:
        return inner.name == "scf.parallel"

    outermost = [inner for inner in preorder_ops(op, stop_at=is_parallel) if is_parallel(inner)]
    with op.context:
        for loop in outermost:
            bounds = _constant_bounds(loop)
            if bounds is not None and len(bounds) > 1 and not loop.results \
                    and math.prod(_trips(bounds)) > 1:
                _linearize(loop, bounds)


def _constant(value: ir.Value) -> int | None:
    if isinstance(value.owner, ir.Block) or value.owner.operation.name != "arith.constant":
        return None
    owner = value.owner.operation
    return ir.IntegerAttr(owner.attributes["value"]).value


def _constant_bounds(loop: ir.Operation) -> list[tuple[int, int, int]] | None:
    """(lower, upper, step) per dimension, or None if one is not constant."""
    rank = len(loop.regions[0].blocks[0].arguments)
    constants = [_constant(v) for v in list(loop.operands)[:3 * rank]]
    values = [v for v in constants if v is not None]
    if len(values) != len(constants):
        return None
    return list(zip(values[:rank], values[rank:2 * rank], values[2 * rank:]))


def _trips(bounds: list[tuple[int, int, int]]) -> list[int]:
    return [max(0, -(-(upper - lower) // step)) for lower, upper, step in bounds]


def _linearize(loop: ir.Operation, bounds: list[tuple[int, int, int]]) -> None:
    trips = _trips(bounds)
    index = ir.IndexType.get()
    body = loop.regions[0].blocks[0]
    with ir.InsertionPoint(loop), loop.location:
        zero, one, total = (arith.constant(index, v) for v in (0, 1, math.prod(trips)))
        new_body = loops.parallel_loop([zero], [total], [one], loop.location)
    with ir.InsertionPoint(new_body), loop.location:
        for i, (arg, (lower, _, step)) in enumerate(zip(body.arguments, bounds)):
            inner_trips, outer_trips = math.prod(trips[i + 1:]), math.prod(trips[:i])
            position = new_body.arguments[0]
            if inner_trips > 1:
                position = arith.divui(position, arith.constant(index, inner_trips))
            if outer_trips > 1:
                position = arith.remui(position, arith.constant(index, trips[i]))
            if step != 1:
                position = arith.muli(position, arith.constant(index, step))
            if lower != 0:
                position = arith.addi(position, arith.constant(index, lower))
            arg.replace_all_uses_with(position)
    for inner in list(body.operations):  # the body, its scf.reduce terminator included
        inner.operation.move_after(_last(new_body))
    loop.erase()


def _last(block: ir.Block) -> ir.Operation:
    operations = block.operations
    return operations[len(operations) - 1].operation
