"""`jaxc-strided-copies-to-loops`: a `memref.copy` between memrefs that are
not both contiguous becomes a `linalg.copy`, so that
`convert-linalg-to-loops` makes it a loop nest LLVM can vectorize.

`finalize-memref-to-llvm` lowers a copy of two contiguous memrefs to one
`llvm.memcpy`, and any other copy to a call of the runtime's `memrefCopy`,
which in MLIR's runner utilities moves one element per `memcpy` call: the
copies into and out of the subviews that bufferization makes (padding,
pooling windows, concatenation) cost a call per element. As loops, the
innermost contiguous dimension is copied with vector loads and stores.

Before::

    memref.copy %a, %sub : memref<64x4x4x16xf32>
                        to memref<64x4x4x16xf32, strided<[1024, 256, 32, 1], offset: 16>>

After::

    linalg.copy ins(%a : memref<64x4x4x16xf32>)
                outs(%sub : memref<64x4x4x16xf32, strided<[1024, 256, 32, 1], offset: 16>>)
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.passmanager import ExternalPass

from . import linalg_ops as linalg
from .ir import ops_named
from .registry import register_pass


@register_pass("jaxc-strided-copies-to-loops",
               "memref.copy of non-contiguous memrefs becomes linalg.copy (loops, not memrefCopy calls)")
def strided_copies_to_loops(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for copy in ops_named(op, ["memref.copy"]):
            source, target = copy.operands
            if contiguous(source.type) and contiguous(target.type):
                continue
            with ir.InsertionPoint(copy), copy.location:
                linalg.copy(source, outs=[target])
            copy.erase()


def contiguous(t: ir.Type) -> bool:
    """Whether a memref type is statically shaped and row-major contiguous
    (any offset): what `finalize-memref-to-llvm` copies with one memcpy."""
    m = ir.MemRefType(t)
    if not m.has_static_shape:
        return False
    strides, _ = m.get_strides_and_offset()
    shape = list(m.shape)
    expected = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    return all(s == e for s, e, n in zip(strides, expected, shape) if n != 1)
