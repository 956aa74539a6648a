"""Reductions: rows (the innermost loop reduces: sum over the last axis,
softmax's max and sum, a full sum) and columns (an outer loop reduces:
``X.mean(0)``).

Rows: split the parallel loops over the threads, one row per tile, and
split the row into W = 4 vector registers of independent partial sums
(`tile_reduction_using_for`): W lanes add in parallel, each over 1/W of the
row, then the W partials are combined -- faster, and more accurate than one
running sum. A full reduction splits its outer loop over the threads
(`tile_reduction_using_forall`) first, each thread keeping its own partials.

    for row:                                   // forall over threads
      %p = fill 0 : vector<32xf32>
      for k in 0..1024 step 32:  %p += x[row, k:k+32]
      out[row] = reduce(%p)

Columns: split over the threads (by the outer loop when it is parallel;
otherwise each thread sums its share of the rows into partials of its own,
`tile_reduction_using_forall`, combined at the end), then tile the innermost
parallel loop by two vector registers and keep the reduction loops inside,
so the accumulator stays in registers.

    forall t in 0..2:                          // x.sum(0) of 10000 x 100
      for c in 0..96 step 16:  %p = sum over rows t*5000..(t+1)*5000 of x[r, c:c+16]
    out = partials[0] + partials[1]

Rows of 1 KiB or more are taken in blocks of ROW_BLOCK (a column walk
would load one vector per row, each row a page apart):

    forall t in 0..2:                          // x.sum(0) of 4096 x 1024
      for r0 in t*2048..(t+1)*2048 step 16:
        for c in 0..1024 step 16:  p[c:c+16] += sum over r0..r0+16 of x[r, c:c+16]

The last step of a row (the W lanes of partial sums added into one) is
lowered as a tree of shuffles (`jaxc-tree-horizontal-reductions`).
"""
from __future__ import annotations

import math

from ..host import Target
from .kernel import Kernel
from .script import Plan, Script

PARTIAL_VECTORS = 4  # vector registers of partial sums in a row
COLUMN_VECTORS = 2  # vector registers of columns summed at once
# Column sums over rows of at least BLOCKED_ROW_BYTES go through the rows in
# blocks of ROW_BLOCK. x.sum(0), medians in ms (2 threads, interleaved in one
# process), unblocked -> blocks of 16: 4096 x 1024 2.74 -> 0.88, 1024 x 4096
# 2.41 -> 0.95, 8192 x 512 1.85 -> 1.07, 16384 x 256 2.03 -> 1.69; but
# 10000 x 100 0.20 -> 0.31 (a short row is already a stream).
ROW_BLOCK = 16
BLOCKED_ROW_BYTES = 1024


def schedule(kernel: Kernel, target: Target) -> Plan | None:
    if not kernel.reduction or kernel.n_outputs != 1 or any(m is None for m in kernel.maps):
        return None
    lanes = target.lanes(kernel.element_bits)
    inner = len(kernel.ranges) - 1
    if kernel.iterators[inner] == "reduction":
        return _rows(kernel, target, lanes)
    if kernel.reads_index:
        return None  # its rows would be split into per-thread partials
    return _columns(kernel, target, lanes)


def partial_width(lanes: int, extent: int) -> int:
    """Partial results of a row of `extent`: PARTIAL_VECTORS registers, fewer
    for a short row."""
    width = lanes * PARTIAL_VECTORS
    while width > lanes and extent < width:
        width //= 2
    return width


def split_into_partials(s: Script, op: str, rank: int, extent: int, width: int) -> None:
    """Split the innermost (reduction) loop of `op` into `width` partial results
    (`tile_reduction_using_for`), all vectorized with the kernel; the last partial
    tile of the row is peeled."""
    fill, partial, combine, loop = s.tile_reduction(op, [0] * (rank - 1) + [width])
    for part in (fill, partial, combine):
        s.annotate(part)
    if extent % width:
        s.peel(loop)


def reduce_row(s: Script, op: str, kernel: Kernel, width: int) -> None:
    """The innermost (reduction) loop of `op`, one of `kernel`'s row
    reductions: `split_into_partials`, or, for a body that reads its loop
    index, tiles of `width` reduced one after the other (each vectorized
    tile offsets the index; the last one is peeled)."""
    rank, extent = len(kernel.ranges), kernel.ranges[-1]
    if not kernel.reads_index:
        split_into_partials(s, op, rank, extent, width)
        return
    _, loops = s.tile(op, [0] * (rank - 1) + [width])
    if extent % width:
        s.peel(loops[-1])


def _rows(kernel: Kernel, target: Target, lanes: int) -> Plan | None:
    ranges, rank = kernel.ranges, len(kernel.ranges)
    width = partial_width(lanes, ranges[-1])
    if ranges[-1] < width:
        return None
    s = Script(kernel.ident)
    op = s.match_kernel()
    parallel = kernel.parallel
    threads = kernel.threads(target.threads)
    if parallel:
        if parallel != tuple(range(len(parallel))):
            return None  # parallel loops inside reduction loops: left scalar
        if threads > 1 and ranges[0] >= threads:
            op, _ = s.tile_forall(op, [threads] + [0] * (rank - 1))
        op, _ = s.tile(op, [1] * len(parallel) + [0] * (rank - len(parallel)))
    elif kernel.reads_index:
        return None  # per-thread partials of a full reduction would offset no index either
    elif threads > 1 and rank > 1 and ranges[0] >= threads:
        _, op, _, _ = s.tile_reduction_forall(op, [threads] + [0] * (rank - 1))
    n_reduction = rank - len(parallel)
    if n_reduction > 1:  # outer reduction loops one step at a time: each row has its own partials
        op, _ = s.tile(op, [0] * len(parallel) + [1] * (n_reduction - 1) + [0])
    reduce_row(s, op, kernel, width)
    return Plan(s.text())


def _columns(kernel: Kernel, target: Target, lanes: int) -> Plan | None:
    ranges, rank = kernel.ranges, len(kernel.ranges)
    if ranges[-1] < lanes:
        return None
    step = min(lanes * COLUMN_VECTORS, lanes * (ranges[-1] // lanes))
    s = Script(kernel.ident)
    op = s.match_kernel()
    threads = kernel.threads(target.threads)
    if threads > 1 and ranges[0] >= threads:
        if kernel.iterators[0] == "parallel":
            op, _ = s.tile_forall(op, [threads] + [0] * (rank - 1))
        else:  # each thread reduces its share of the rows into partials of its own
            _, op, _, _ = s.tile_reduction_forall(op, [threads] + [0] * (rank - 1))
    row_bytes = math.prod(ranges[1:]) * kernel.element_bits // 8
    if (kernel.iterators[0] == "reduction" and row_bytes >= BLOCKED_ROW_BYTES
            and ranges[0] // threads > ROW_BLOCK):
        # blocks of rows, each swept across all columns: ROW_BLOCK streams of
        # contiguous loads instead of one column of vectors a row apart
        op, _ = s.tile(op, [ROW_BLOCK] + [0] * (rank - 1))
    sizes = [1] * (rank - 1) + [step]
    # loops in the order: parallel ones first (outermost), reductions innermost
    order = list(kernel.parallel) + list(kernel.reduction)
    _, loops = s.tile(op, sizes, interchange=order)
    if ranges[-1] % step:
        s.peel(loops[order.index(rank - 1)])
    return Plan(s.text())
