"""`jaxc.passes`: every project transformation and lowering, one pass per file.

Importing this package registers each pass with `registry`; `pipeline` turns
a textual pipeline that mixes them with upstream passes into one
`mlir.passmanager.PassManager`.
"""
# One import per pass module; importing registers the pass.
from . import (
    check_lowered,  # noqa: E402,F401  jaxc-check-lowered
    check_no_requests,  # noqa: E402,F401  jaxc-check-no-requests
    cleanup,  # noqa: E402,F401  jaxc-cleanup
    expm1_log1p_to_libm,  # noqa: E402,F401  jaxc-expm1-log1p-to-libm
)
from .registry import PassInfo, all_passes, lookup, register_pass

__all__ = ["PassInfo", "all_passes", "lookup", "register_pass"]
from . import (
    autodiff,  # noqa: E402,F401  jaxc-autodiff
    batching,  # noqa: E402,F401  jaxc-batch
    bf16_truncation_to_bits,  # noqa: E402,F401  jaxc-bf16-truncation-to-bits
    bound_fusion,  # noqa: E402,F401  jaxc-bound-fusion
    canonicalize_contractions,  # noqa: E402,F401  jaxc-canonicalize-contractions
    contraction_fusion_barriers,  # noqa: E402,F401  jaxc-contraction-fusion-barriers
    distinct_results,  # noqa: E402,F401  jaxc-distinct-results
    drop_fusion_barriers,  # noqa: E402,F401  jaxc-drop-fusion-barriers
    elide_result_copies,  # noqa: E402,F401  jaxc-elide-result-copies
    free_at_last_use,  # noqa: E402,F401  jaxc-free-at-last-use
    gpu,  # noqa: E402,F401  jaxc-gpu-* (passes/gpu/)
    jaxc_to_linalg,  # noqa: E402,F401  jaxc-to-linalg
    keep_loops_rolled,  # noqa: E402,F401  jaxc-keep-loops-rolled
    outline_kernels,  # noqa: E402,F401  jaxc-outline-kernels
    pad_sums_to_updates,  # noqa: E402,F401  jaxc-pad-sums-to-updates
    partition,  # noqa: E402,F401  jaxc-partition
    schedule,  # noqa: E402,F401  jaxc-schedule
    strided_copies_to_loops,  # noqa: E402,F401  jaxc-strided-copies-to-loops
    tree_horizontal_reductions,  # noqa: E402,F401  jaxc-tree-horizontal-reductions
    unshare_fills,  # noqa: E402,F401  jaxc-unshare-fills
    vector_math,  # noqa: E402,F401  jaxc-vector-math-to-libmvec
    widen_i1_memrefs,  # noqa: E402,F401  jaxc-widen-i1-memrefs
)
