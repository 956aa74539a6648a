"""Batching rule of host callbacks (`jaxc.callback`): the callback runs once
per lane, JAX's "sequential" vmap of a callback. Every operand gets the
batch axis in front (unbatched ones are broadcast), every result too, and
`batch_rank` counts the leading vmapped dims; the runtime loops over them
with the innermost vmap's index slowest, JAX's order (python/jaxc/_callback.py):

    %y = jaxc.callback 8 (%x, %s) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>   (x batched, B = 4)
  ->
    %sb = (%s broadcast to tensor<4xf32>)
    %y = jaxc.callback 8 (%xs, %sb) {batch_rank = 1}
           : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>

Inside nested vmaps the outer axis comes first. An ordered io_callback
(unit attributes `jaxc.io_callback`, `jaxc.ordered`) cannot be vmapped:
JAX's ValueError reaches the caller as it is.
"""
from __future__ import annotations

from mlir import ir

from ..pipeline import UserCodeError
from .interpreter import BATCH, batched_all, batched_type, i64, rebuild


def _callback(op, xs, batched, axis):
    if "jaxc.ordered" in op.attributes:
        raise UserCodeError(op, ValueError("Cannot `vmap` ordered IO callback."))
    operands = batched_all(xs, batched, axis.size)
    rank = ir.IntegerAttr(op.attributes["batch_rank"]).value
    results = rebuild(op, operands, [batched_type(r.type, axis.size) for r in op.results],
                      batch_rank=i64(rank + 1))
    return results, [True] * len(results)


BATCH["jaxc.callback"] = _callback
