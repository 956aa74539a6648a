"""`jaxc-gpu-copy-kernels`: a `memref.copy` between device buffers becomes a
parallel loop (so a kernel) instead of a host memcpy over managed memory.

Reshapes, slices, concatenation and padding bufferize to copies into and out
of views; on the host those would drag every page across the bus. A copy
out of a `memref.get_global` constant stays on the host: the constant lives
in host memory, and the copy is what brings it to a managed buffer.

Before::

    memref.copy %src, %dst : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>

After::

    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      %v = memref.load %src[%i, %j] : memref<4x8xf32, strided<[16, 1]>>
      memref.store %v, %dst[%i, %j] : memref<4x8xf32>
      scf.reduce
    }

A copy of rank 0 becomes a load and a store (`jaxc-gpu-sequential-kernels`
puts them in a kernel).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref
from mlir.passmanager import ExternalPass

from ..ir import ops_named
from ..registry import register_pass
from . import buffers, loops


@register_pass("jaxc-gpu-copy-kernels",
               "turn memref.copy between device buffers into a parallel loop of loads and stores")
def copy_kernels(op: ir.Operation, pass_: ExternalPass) -> None:
    copies = [copy for copy in ops_named(op, ["memref.copy"])
              if not buffers.in_host_memory(copy.operands[0])]
    with op.context:
        for copy in copies:
            _to_loop(copy)
            copy.erase()


def _to_loop(copy: ir.Operation) -> None:
    source, target = copy.operands[0], copy.operands[1]
    shape = ir.MemRefType(source.type).shape
    index = ir.IndexType.get()
    with ir.InsertionPoint(copy), copy.location:
        if not shape:
            memref.StoreOp(memref.LoadOp(source, []).result, target, [])
            return
        zero, one = arith.constant(index, 0), arith.constant(index, 1)
        sizes = [arith.constant(index, size) if size != ir.ShapedType.get_dynamic_size()
                 else memref.DimOp(source, arith.constant(index, dim)).result
                 for dim, size in enumerate(shape)]
        body = loops.parallel_loop([zero] * len(shape), sizes, [one] * len(shape), copy.location)
    with ir.InsertionPoint(body), copy.location:
        indices = list(body.arguments)
        memref.StoreOp(memref.LoadOp(source, indices).result, target, indices)
    loops.end_body(body, copy.location)
