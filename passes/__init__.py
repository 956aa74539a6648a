"""`jaxc.passes`: every project transformation and lowering, one pass per file.

Importing this package registers each pass with `registry`; `pipeline` turns
a textual pipeline that mixes them with upstream passes into one
`mlir.passmanager.PassManager`.
"""
from .registry import PassInfo, all_passes, lookup, register_pass

# One import per pass module; importing registers the pass.
from . import cleanup  # noqa: E402,F401  jaxc-cleanup
from . import check_no_requests  # noqa: E402,F401  jaxc-check-no-requests
from . import check_lowered  # noqa: E402,F401  jaxc-check-lowered
from . import expm1_log1p_to_libm  # noqa: E402,F401  jaxc-expm1-log1p-to-libm

__all__ = ["PassInfo", "all_passes", "lookup", "register_pass"]
from . import jaxc_to_linalg  # noqa: E402,F401  jaxc-to-linalg
from . import widen_i1_memrefs  # noqa: E402,F401  jaxc-widen-i1-memrefs
from . import strided_copies_to_loops  # noqa: E402,F401  jaxc-strided-copies-to-loops
from . import distinct_results  # noqa: E402,F401  jaxc-distinct-results
from . import elide_result_copies  # noqa: E402,F401  jaxc-elide-result-copies
from . import autodiff  # noqa: E402,F401  jaxc-autodiff
from . import batching  # noqa: E402,F401  jaxc-batch
from . import gpu  # noqa: E402,F401  jaxc-gpu-* (passes/gpu/)
from . import schedule  # noqa: E402,F401  jaxc-schedule
from . import vector_math  # noqa: E402,F401  jaxc-vector-math-to-libmvec
from . import bound_fusion  # noqa: E402,F401  jaxc-bound-fusion
from . import contraction_fusion_barriers  # noqa: E402,F401  jaxc-contraction-fusion-barriers
from . import drop_fusion_barriers  # noqa: E402,F401  jaxc-drop-fusion-barriers
from . import free_at_last_use  # noqa: E402,F401  jaxc-free-at-last-use
from . import unshare_fills  # noqa: E402,F401  jaxc-unshare-fills
from . import outline_kernels  # noqa: E402,F401  jaxc-outline-kernels
from . import pad_sums_to_updates  # noqa: E402,F401  jaxc-pad-sums-to-updates
from . import tree_horizontal_reductions  # noqa: E402,F401  jaxc-tree-horizontal-reductions
from . import canonicalize_contractions  # noqa: E402,F401  jaxc-canonicalize-contractions
from . import partition  # noqa: E402,F401  jaxc-partition
from . import bf16_truncation_to_bits  # noqa: E402,F401  jaxc-bf16-truncation-to-bits
from . import keep_loops_rolled  # noqa: E402,F401  jaxc-keep-loops-rolled
