"""Elementwise kernels (every loop parallel): split the outer loop over the
threads, tile the innermost loop by two vector registers, peel the last
partial tile (left as scalar code) and vectorize the full tiles. A kernel
that reads an input across its rows (a transpose, alone or fused) is tiled
in squares of lanes x lanes instead, when the lanes divide both loops: each
tile reads whole vectors of the input's rows and turns them in registers.
A kernel with several results (jaxc-fuse-elementwise-dags) is tiled the
same way, each result written from the same loop.

    linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1000x1000xf32>)
    ->  scf.forall (%t) in (2) {                       // threads
          scf.for %i = 0 to 1000 step 16 {             // 1-D after flattening
            vector.transfer_read ... : vector<16xf32>
            math.sin ... : vector<16xf32>
            vector.transfer_write ...
    }}

    transpose of 1024 x 1024 f32 (AVX2: 8 lanes)
    ->  scf.for %i = 0 to 512 step 8 { scf.for %j = 0 to 1024 step 8 {
          %t = vector.transfer_read %x[%j, %i] : vector<8x8xf32>     // 8 rows of x
          %r = vector.transpose %t, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
          vector.transfer_write %r, %out[%i, %j] : vector<8x8xf32>, ...
"""
from __future__ import annotations

from mlir import ir

from ..host import Target
from .kernel import Kernel
from .script import Plan, Script

UNROLL = 2  # vector registers per tile: hides the latency of a chain of FMAs


def schedule(kernel: Kernel, target: Target) -> Plan | None:
    if kernel.reduction or any(m is None for m in kernel.maps):
        return None  # maps that add loop indices (im2col's patches): the vectorizer refuses them
    lanes = target.lanes(kernel.element_bits)
    step = lanes * UNROLL
    s = Script(kernel.ident)
    op = s.match_kernel()
    rank = len(kernel.ranges)
    ranges = list(kernel.ranges)
    if (rank > 1 and all(kernel.is_identity(i) for i in range(len(kernel.maps)))
            and not (ranges[-1] >= lanes and _gathers_rows(kernel))):
        op = s.flatten(op)  # every operand read in order: one loop over all elements
        ranges, rank = [kernel.size], 1
    if ranges[-1] < lanes:
        return None  # no full vector in a row
    inner: int | None = ranges[-1]  # one thread's innermost trip count (None: some chunk is partial)
    threads = kernel.threads(target.threads)
    per_thread = list(ranges)  # the loops one thread runs (a 1: partial chunks)
    if threads > 1 and (ranges[0] >= threads * (step if rank == 1 else 1)):
        if rank == 1:  # chunks that are whole tiles
            chunk = -(-ranges[0] // threads)
            chunk = -(-chunk // step) * step
            op, _ = s.tile_forall_sizes(op, [chunk])
            inner = chunk if ranges[0] % chunk == 0 else None
        else:
            op, _ = s.tile_forall(op, [threads] + [0] * (rank - 1))
            per_thread[0] = ranges[0] // threads if ranges[0] % threads == 0 else 1
    across = _read_across(kernel)
    if across is not None and per_thread[across] % lanes == 0 and ranges[-1] % lanes == 0:
        # square tiles of lanes x lanes: rows of the input read as vectors, turned
        # in registers (vector.transpose: shuffles), written as rows of the result
        sizes = [1] * rank
        sizes[across] = sizes[-1] = lanes
        s.tile(op, sizes)
        shuffles = (SHUFFLE_16X16,) if (lanes, kernel.element_bits) == (16, 32) else ()
        return Plan(s.text(), TRANSPOSE_PATTERNS + shuffles)
    _, loops = s.tile(op, [1] * (rank - 1) + [step])
    if inner is None or inner % step:
        s.peel(loops[-1])  # full tiles first; the last partial tile stays scalar
    return Plan(s.text())


TRANSPOSE_PATTERNS = ("vector.transfer_permutation_patterns",)
# 16 x 16 tiles of 32-bit elements (AVX-512) turned by 64 shuffles of two
# vectors (upstream's shuffle_16x16 takes no other width). Left to
# canonicalization, the transpose became 256 lane extracts and inserts
# (vector.to_elements / from_elements) that LLVM then spent ~30 ms turning
# back into shuffles, worse ones: x.T + 1 of 2048² compiled in 73 ms and ran
# in 1.43 ms, now 43 ms and 0.92 ms. (8 x 8 tiles, AVX2: the lane code
# compiles in ~30 ms and runs as fast as shuffle_1d; upstream's AVX2 strategy
# emits inline asm, which the JIT cannot assemble.)
SHUFFLE_16X16 = "vector.lower_transpose lowering_strategy = shuffle_16x16"


def _gathers_rows(kernel: Kernel) -> bool:
    """Whether every `tensor.extract` of the body reads along the innermost
    loop (its last index is that loop's index plus an offset that does not
    depend on it) or at one place per row, and one at least along it: a
    gather of whole rows (`x[idx]`). Kept 2-D, the vectorizer reads each
    row as vectors; flattened, every element's position is divided back
    into (row, column) and gathered. (take_along_axis reads at a position
    loaded per element: not rows.)

        %j = linalg.index 1 : index
        %v = tensor.extract %x[%r, %j]          or   tensor.extract %flat[%start + %j]
    """
    last = len(kernel.ranges) - 1
    seen: dict[ir.Value, bool] = {}

    def innermost(value: ir.Value) -> bool:
        owner = value.owner
        return (isinstance(owner, ir.OpView) and owner.operation.name == "linalg.index"
                and ir.IntegerAttr(owner.attributes["dim"]).value == last)

    def depends(value: ir.Value) -> bool:
        if value not in seen:
            owner = value.owner  # a block argument (an input element) depends on no loop
            seen[value] = isinstance(owner, ir.OpView) and (
                innermost(value) or any(depends(v) for v in owner.operation.operands))
        return seen[value]

    def along(index: ir.Value) -> bool:
        owner = index.owner
        if innermost(index):
            return True
        if not (isinstance(owner, ir.OpView) and owner.operation.name == "arith.addi"):
            return False
        a, b = owner.operation.operands
        return (innermost(a) and not depends(b)) or (innermost(b) and not depends(a))

    extracts = [list(op.operands)[1:] for op in kernel.op.regions[0].blocks[0].operations
                if op.operation.name == "tensor.extract" and len(op.operands) > 1]
    return (any(along(index[-1]) for index in extracts)
            and all(along(index[-1]) or not depends(index[-1]) for index in extracts)
            and not any(depends(i) for index in extracts for i in index[:-1]))


def _read_across(kernel: Kernel) -> int | None:
    """The loop that an input reads contiguously when it is not the innermost
    loop (a transpose: that input's rows run across the result's), else None."""
    last = len(kernel.ranges) - 1
    for operand in range(kernel.n_inputs):
        dims = kernel.maps[operand]
        if dims and dims[-1] != last and last in dims:
            return dims[-1]
    return None
