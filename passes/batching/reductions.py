"""Batching rules of reduce, argmax/argmin, cumulative and sort: the batch
axis leads, so each op runs once on the batched operand with its dimension
attributes shifted past it (sort first broadcasts its unbatched operands,
which it permutes per lane like the others).

    %0 = jaxc.reduce max %x, dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  ->
    %0 = jaxc.reduce max %xs, dims = [1, 3] : tensor<8x2x3x4xf32> -> tensor<8x3xf32>
"""
from __future__ import annotations

from .interpreter import BATCH, Axis, batched_all, i64, i64_array, integer, ints, same_op


def _shifted(values) -> list[int]:
    return [v + 1 for v in values]


def _reduce(op, xs, batched, axis: Axis):
    dims = _shifted(ints(op, "dimensions"))
    return same_op(op, xs, axis.size, dimensions=i64_array(dims)), [True]


def _along_axis(op, xs, batched, axis: Axis):
    """argmax, argmin, cumulative: one `axis` attribute, one result."""
    return same_op(op, xs, axis.size, axis=i64(integer(op, "axis") + 1)), [True]


def _sort(op, xs, batched, axis: Axis):
    """Every operand is permuted, so the unbatched ones are broadcast; keys,
    num_keys and stability stay, each lane sorts on its own."""
    operands = batched_all(xs, batched, axis.size)
    dimension = integer(op, "dimension") + 1
    return same_op(op, operands, axis.size, dimension=i64(dimension)), [True] * len(op.results)


BATCH["jaxc.reduce"] = _reduce
BATCH["jaxc.argmax"] = _along_axis
BATCH["jaxc.argmin"] = _along_axis
BATCH["jaxc.cumulative"] = _along_axis
BATCH["jaxc.sort"] = _sort
