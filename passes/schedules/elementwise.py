"""Elementwise kernels (every loop parallel): split the outer loop over the
threads, tile the innermost loop by two vector registers, peel the last
partial tile (left as scalar code) and vectorize the full tiles.

    linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1000x1000xf32>)
    ->  scf.forall (%t) in (2) {                       // threads
          scf.for %i = 0 to 1000 step 16 {             // 1-D after flattening
            vector.transfer_read ... : vector<16xf32>
            math.sin ... : vector<16xf32>
            vector.transfer_write ...
    }}
"""
from __future__ import annotations

from ..host import Target
from .kernel import Kernel
from .script import Plan, Script

PARALLEL_MIN_ELEMENTS = 1 << 15  # below this the fork/join (~20 us) costs more than it saves
UNROLL = 2  # vector registers per tile: hides the latency of a chain of FMAs


def schedule(kernel: Kernel, target: Target) -> Plan | None:
    if kernel.reduction or kernel.n_outputs != 1 or any(m is None for m in kernel.maps):
        return None  # maps that add loop indices (im2col's patches): the vectorizer refuses them
    lanes = target.lanes(kernel.element_bits)
    step = lanes * UNROLL
    s = Script(kernel.ident)
    op = s.match_kernel()
    rank = len(kernel.ranges)
    ranges = list(kernel.ranges)
    if rank > 1 and all(kernel.is_identity(i) for i in range(len(kernel.maps))):
        op = s.flatten(op)  # every operand read in order: one loop over all elements
        ranges, rank = [kernel.size], 1
    inner = ranges[-1]
    if inner < lanes:
        return None  # no full vector in a row
    threads = target.threads if kernel.size >= PARALLEL_MIN_ELEMENTS else 1
    if threads > 1 and (ranges[0] >= threads * (step if rank == 1 else 1)):
        if rank == 1:  # chunks that are whole tiles
            chunk = -(-ranges[0] // threads)
            chunk = -(-chunk // step) * step
            op, _ = s.tile_forall_sizes(op, [chunk])
            inner = chunk if ranges[0] % chunk == 0 else None
        else:
            op, _ = s.tile_forall(op, [threads] + [0] * (rank - 1))
    _, loops = s.tile(op, [1] * (rank - 1) + [step])
    if inner is None or inner % step:
        s.peel(loops[-1])  # full tiles first; the last partial tile stays scalar
    return Plan(s.text())
