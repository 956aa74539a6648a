"""Building `scf.parallel` loops (the bindings have no builder for them).

    body = parallel_loop([c0], [n], [c1], loc)     # scf.parallel (%i) = (%c0) to (%n) step (%c1)
    ... ops into `body`, then end_body(body, loc)  # scf.reduce
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir


def parallel_loop(lowers: Sequence[ir.Value], uppers: Sequence[ir.Value],
                  steps: Sequence[ir.Value], location: ir.Location) -> ir.Block:
    """An `scf.parallel` at the current insertion point; returns its empty body
    (one index argument per dimension)."""
    rank = len(lowers)
    loop = ir.Operation.create(
        "scf.parallel", results=[], operands=[*lowers, *uppers, *steps],
        attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([rank, rank, rank, 0])},
        regions=1, loc=location)
    return loop.regions[0].blocks.append(*([ir.IndexType.get()] * rank), arg_locs=[location] * rank)


def end_body(body: ir.Block, location: ir.Location) -> ir.Operation:
    """Terminate a parallel loop's body with an `scf.reduce` of no values."""
    with ir.InsertionPoint(body):
        return ir.Operation.create("scf.reduce", operands=[], attributes={}, regions=0, loc=location)
