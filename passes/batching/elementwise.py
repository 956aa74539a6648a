"""Batching rules of the elementwise ops: apply the op to the batched
operands, with each unbatched operand broadcast along the batch axis (a 0-d
predicate, clamp bound or threefry key that is unbatched stays 0-d, as the op
accepts it).

    %0 = jaxc.add %x, %w : tensor<3xf32>          (x batched, w not)
  ->
    %w8 = jaxc.broadcast_in_dim %w, dims = [1] : tensor<3xf32> -> tensor<8x3xf32>
    %0 = jaxc.add %xs, %w8 : tensor<8x3xf32>
"""
from __future__ import annotations

from jaxc import lax
from jaxc.dialect import op_table

from .interpreter import BATCH, Axis, broadcast_batch, same_op

# op -> groups of operand positions that may stay 0-d next to larger
# operands; a group stays 0-d only while all its members do (threefry's two
# keys must have one type)
SCALAR_OPERANDS = {"jaxc.select": ((0,),), "jaxc.clamp": ((0,), (2,)), "jaxc.threefry2x32": ((0, 1),)}


def _elementwise(op, xs, batched, axis: Axis):
    """Unbatched operands broadcast along the batch axis, 0-d batched ones
    along the element shape; then the op itself."""
    shapes = [tuple(x.shape[1:]) if b else tuple(x.shape) for x, b in zip(xs, batched)]
    shape = max(shapes, key=len)
    keep_scalar = {i for group in SCALAR_OPERANDS.get(op.name, ())
                   if all(not batched[i] and shapes[i] == () for i in group) for i in group}
    operands = []
    for i, (x, b, s) in enumerate(zip(xs, batched, shapes)):
        if not b and not (s == () and i in keep_scalar):
            x = broadcast_batch(x, axis.size)
            b = True
        if b and s != shape:  # a batched 0-d operand next to larger ones
            x = lax.broadcast_in_dim(x, (axis.size, *shape), (0,))
        operands.append(x)
    return same_op(op, operands, axis.size), [True] * len(op.results)


# Every op of the elementwise families of the op table.
ELEMENTWISE = op_table.ops_in("unary", "binary", "elementwise")
for _name in ELEMENTWISE:
    BATCH[_name] = _elementwise
