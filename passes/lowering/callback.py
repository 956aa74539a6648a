"""Lowering of `jaxc.callback`: a call of an external function that the
runtime resolves to the host callback (python/jaxc/_callback.py).

The operands are handed over as buffers and the results are buffers the
callee fills; every memref is an operand of the call, so bufferization and
buffer deallocation see the uses:

    %y = jaxc.callback 8 (%x) : (tensor<3xf32>) -> tensor<3xf32>
  ->
    func.func private @jaxc_callback_8_0(memref<3xf32>, memref<3xf32>)
    ...
    %xb = bufferization.to_buffer %x read_only : tensor<3xf32> to memref<3xf32>
    %yb = memref.alloc() : memref<3xf32>
    func.call @jaxc_callback_8_0(%xb, %yb) : (memref<3xf32>, memref<3xf32>) -> ()
    %y = bufferization.to_tensor %yb restrict writable : memref<3xf32> to tensor<3xf32>

The `llvm` stage gives the declaration a C interface, so compiled code calls
``_mlir_ciface_jaxc_callback_8_0(descriptor*...)``. Each lowering gets a new
symbol, recorded with its operand and result avals and batch rank in
`jaxc._callback.SIGNATURES` for the runtime.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization, func, memref

from ..ir import declare_function
from .common import element_type, shape_of, signless


def _aval(shape, element: ir.Type):
    from jaxc import core
    return core.aval_of_type(ir.RankedTensorType.get(shape, element))


def _memref_of(tensor_type: ir.Type) -> ir.MemRefType:
    t = ir.RankedTensorType(signless(tensor_type))
    return ir.MemRefType.get(t.shape, t.element_type)


def callback(op, elements):
    from jaxc import _callback
    callback_id = ir.IntegerAttr(op.attributes["callback_id"]).value
    batch_rank = ir.IntegerAttr(op.attributes["batch_rank"]).value
    operand_avals = [_aval(shape_of(v), elements[i]) for i, v in enumerate(op.operands)]
    result_avals = [_aval(shape_of(r), element_type(r)) for r in op.results]
    symbol = _callback.new_symbol(callback_id, operand_avals, result_avals, batch_rank)
    in_types = [_memref_of(v.type) for v in op.operands]
    out_types = [_memref_of(r.type) for r in op.results]
    declare_function(op, symbol, in_types + out_types)
    buffers = [bufferization.ToBufferOp(t, v, read_only=True).result
               for t, v in zip(in_types, op.operands)]
    outs = [memref.AllocOp(t, [], []).result for t in out_types]
    func.CallOp([], symbol, buffers + outs)
    return [bufferization.ToTensorOp(signless(r.type), out, restrict=True, writable=True).result
            for r, out in zip(op.results, outs)]


RULES: dict = {"jaxc.callback": callback}
