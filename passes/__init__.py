"""`jaxc.passes`: every project transformation and lowering, one pass per file.

Importing this package registers each pass with `registry`; `pipeline` turns
a textual pipeline that mixes them with upstream passes into one
`mlir.passmanager.PassManager`.
"""
from .dialect_modules import use as _use_light_dialect_modules
from .registry import PassInfo, all_passes, lookup, register_pass

_use_light_dialect_modules()  # before any pass touches linalg or llvm IR

# One import per pass module; importing registers the pass. The GPU passes
# (passes/gpu/) register on first use (`registry`).
from . import (  # noqa: E402
    annotate_shardings,  # noqa: F401  jaxc-annotate-shardings
    autodiff,  # noqa: F401  jaxc-autodiff
    batching,  # noqa: F401  jaxc-batch
    bf16_truncation_to_bits,  # noqa: F401  jaxc-bf16-truncation-to-bits
    bound_fusion,  # noqa: F401  jaxc-bound-fusion
    canonicalize_contractions,  # noqa: F401  jaxc-canonicalize-contractions
    check_lowered,  # noqa: F401  jaxc-check-lowered
    check_no_requests,  # noqa: F401  jaxc-check-no-requests
    cleanup,  # noqa: F401  jaxc-cleanup
    contraction_fusion_barriers,  # noqa: F401  jaxc-contraction-fusion-barriers
    denormal_mode,  # noqa: F401  jaxc-denormal-mode
    distinct_results,  # noqa: F401  jaxc-distinct-results
    drop_fusion_barriers,  # noqa: F401  jaxc-drop-fusion-barriers
    elide_result_copies,  # noqa: F401  jaxc-elide-result-copies
    expand_dft,  # noqa: F401  jaxc-expand-dft
    expand_linalg,  # noqa: F401  jaxc-expand-linalg
    expand_top_k,  # noqa: F401  jaxc-expand-top-k
    expm1_log1p_to_libm,  # noqa: F401  jaxc-expm1-log1p-to-libm
    free_at_last_use,  # noqa: F401  jaxc-free-at-last-use
    fuse_elementwise_dags,  # noqa: F401  jaxc-fuse-elementwise-dags
    infer_vma,  # noqa: F401  jaxc-infer-vma
    jaxc_to_linalg,  # noqa: F401  jaxc-to-linalg
    keep_loops_rolled,  # noqa: F401  jaxc-keep-loops-rolled
    library_calls,  # noqa: F401  jaxc-library-calls
    outline_deep_regions,  # noqa: F401  jaxc-outline-deep-regions
    outline_kernels,  # noqa: F401  jaxc-outline-kernels
    pad_sums_to_updates,  # noqa: F401  jaxc-pad-sums-to-updates
    partition,  # noqa: F401  jaxc-partition
    propagate_shardings,  # noqa: F401  jaxc-propagate-shardings
    schedule,  # noqa: F401  jaxc-schedule
    serial_foralls,  # noqa: F401  jaxc-serial-foralls
    spmd_control_flow,  # noqa: F401  jaxc-spmd-control-flow
    strided_copies_to_loops,  # noqa: F401  jaxc-strided-copies-to-loops
    thread_major_partials,  # noqa: F401  jaxc-thread-major-partials
    tree_horizontal_reductions,  # noqa: F401  jaxc-tree-horizontal-reductions
    unshare_empties,  # noqa: F401  jaxc-unshare-empties
    unshare_fills,  # noqa: F401  jaxc-unshare-fills
    vector_math,  # noqa: F401  jaxc-vector-math-to-libmvec
    widen_i1_memrefs,  # noqa: F401  jaxc-widen-i1-memrefs
)

__all__ = ["PassInfo", "all_passes", "lookup", "register_pass"]
