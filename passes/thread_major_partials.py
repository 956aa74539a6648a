"""`jaxc-thread-major-partials`: store per-thread partial results with the
thread outermost, so that each thread's part is contiguous.

A column reduction split over the threads by rows
(`tile_reduction_using_forall`, schedules/reduction.py) keeps its partial
sums in a buffer whose last dimension is the thread: thread t reads and
writes the column `[0, t] [cols, 1]`, elements `threads` apart. Such a
strided vector transfer becomes one scalar load or store per lane
(`convert-vector-to-scf`), which LLVM must unroll: 32 loads, 32 inserts, 32
extracts and 32 stores for every 16 rows of a 1024-column sum, and 30-40% of
the compile time of `(x - x.mean(0)) / x.std(0)`. Here the buffer is
allocated thread-major and the old shape is a strided view of it
(`memref.reinterpret_cast`): each thread's column is then a contiguous
`memref<colsxf32, strided<[1], offset: ?>>` and its transfers plain vector
loads and stores.

    %p = memref.alloc() : memref<1024x2xf32>
    %s = memref.subview %p[0, %t] [1024, 1] [1, 1]
        : memref<1024x2xf32> to memref<1024xf32, strided<[2], offset: ?>>

becomes

    %n = memref.alloc() : memref<2x1024xf32>
    %p = memref.reinterpret_cast %n to offset: [0], sizes: [1024, 2], strides: [1, 1024]
        : memref<2x1024xf32> to memref<1024x2xf32, strided<[1, 1024]>>
    %s = memref.subview %p[0, %t] [1024, 1] [1, 1]
        : memref<1024x2xf32, strided<[1, 1024]>> to memref<1024xf32, strided<[1], offset: ?>>

Only a static alloc with the identity layout, rank 2 or more (2 or more
elements in the last dimension and in the others), at least one
such subview (all dimensions whole but the last, taken one element at a
time) and no uses other than those subviews, linalg ops and its dealloc
(which frees the new buffer) is rewritten. Runs in the `bufferized` stage
after `jaxc-free-at-last-use` (the view is used where the alloc was).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import memref
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass

# Users that take a buffer of any strided layout in place of the alloc.
ANY_LAYOUT_USERS = ("linalg.fill", "linalg.reduce", "linalg.generic", "linalg.copy")


@register_pass("jaxc-thread-major-partials",
               "allocate per-thread partial results (a buffer whose last dimension each subview "
               "fixes) with that dimension outermost: each thread's part becomes contiguous")
def thread_major_partials(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for alloc in ops_named(op, ("memref.alloc",)):
            if _is_partials(alloc):
                _make_thread_major(alloc)


def _is_partials(alloc: ir.Operation) -> bool:
    t = alloc.results[0].type
    if not isinstance(t, ir.MemRefType) or len(alloc.operands):
        return False
    m = ir.MemRefType(t)
    if (m.rank < 2 or not m.has_static_shape or math.prod(m.shape[:-1]) < 2 or m.shape[-1] < 2
            or not isinstance(m.layout, ir.AffineMapAttr)
            or ir.AffineMapAttr(m.layout).value != ir.AffineMap.get_identity(m.rank)):
        return False
    subviews = 0
    for use in alloc.results[0].uses:
        user = use.owner
        if user.name == "memref.subview" and use.operand_number == 0:
            if not _takes_one_of_last(user, list(m.shape)):
                return False
            subviews += 1
        elif user.name not in ANY_LAYOUT_USERS and user.name != "memref.dealloc":
            return False
    return subviews > 0


def _takes_one_of_last(subview: ir.Operation, shape: list[int]) -> bool:
    """Whether `subview` is `[0, .., 0, %t] [d0, .., dn-2, 1] [1, ..]`,
    dropping the last dimension."""
    offsets = list(ir.DenseI64ArrayAttr(subview.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(subview.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(subview.attributes["static_strides"]))
    result = ir.MemRefType(subview.results[0].type)
    return (all(o == 0 for o in offsets[:-1]) and sizes == shape[:-1] + [1]
            and all(s == 1 for s in strides) and list(result.shape) == shape[:-1])


def _make_thread_major(alloc: ir.Operation) -> None:
    old = ir.MemRefType(alloc.results[0].type)
    shape = list(old.shape)
    threads, inner = shape[-1], shape[:-1]
    element = old.element_type
    # strides of the old dimensions in [threads, *inner], row-major; a dimension
    # of 1 gets stride 1, never the thread's (the subview's rank reduction
    # would not know which unit dimension it drops)
    strides = [math.prod(inner[i + 1:]) if size > 1 else 1 for i, size in enumerate(inner)] + [math.prod(inner)]
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    part_type = ir.MemRefType.get(inner, element, ir.StridedLayoutAttr.get(dynamic, strides[:-1]),
                                  loc=alloc.location)
    with ir.InsertionPoint(alloc), alloc.location:
        new = memref.AllocOp(ir.MemRefType.get([threads] + inner, element), [], [],
                             alignment=_alignment(alloc)).result
        view_type = ir.MemRefType.get(shape, element, ir.StridedLayoutAttr.get(0, strides))
        view = memref.ReinterpretCastOp(view_type, new, [], [], [], [0], shape, strides).result
    for use in list(alloc.results[0].uses):
        user = use.owner
        if user.name == "memref.dealloc":
            user.operands[0] = new
        elif user.name == "memref.subview":
            with ir.InsertionPoint(user), user.location:
                part = memref.SubViewOp(part_type, view, list(user.operands[1:]), [], [],
                                        user.attributes["static_offsets"], user.attributes["static_sizes"],
                                        user.attributes["static_strides"]).result
            user.results[0].replace_all_uses_with(part)
            user.erase()
        else:
            user.operands[use.operand_number] = view
    alloc.erase()


def _alignment(alloc: ir.Operation) -> int | None:
    return ir.IntegerAttr(alloc.attributes["alignment"]).value if "alignment" in alloc.attributes else None
