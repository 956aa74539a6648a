"""`jaxc-drop-fusion-barriers`: replace each ``linalg.copy`` (or
``bufferization.alloc_tensor() copy(...)``) that `jaxc-bound-fusion` or
`jaxc-contraction-fusion-barriers` inserted (marked ``jaxc.fusion_barrier``)
by its input, once `linalg-fuse-elementwise-ops` has run (bound_fusion.py
and contraction_fusion_barriers.py say why).

    %b = linalg.copy {jaxc.fusion_barrier} ins(%2 ...) outs(%e ...)
    %3 = linalg.generic ... ins(%b ...)
      ->
    %3 = linalg.generic ... ins(%2 ...)
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .bound_fusion import BARRIER
from .ir import ops_named
from .registry import register_pass


@register_pass("jaxc-drop-fusion-barriers", "replace the fusion-barrier copies by their inputs")
def drop_fusion_barriers(op: ir.Operation, pass_: ExternalPass) -> None:
    for copy in ops_named(op, ["linalg.copy", "bufferization.alloc_tensor"]):
        if BARRIER in copy.attributes:
            copy.results[0].replace_all_uses_with(copy.operands[0])
            copy.erase()
