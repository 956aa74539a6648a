"""`jaxc-bound-fusion`: keep upstream
elementwise fusion linear in the length of a chain.

`linalg-fuse-elementwise-ops` fuses a producer into its consumer by cloning
both bodies into a new generic; along a chain of N elementwise ops the fused
body grows by one op per step, so the pass clones N^2/2 ops (2000 ops of
`sin`/`mul`: 7 s, issue #20). `jaxc-bound-fusion` runs before it and puts a
`linalg.copy` marked ``jaxc.fusion_barrier`` on the operands where a fused
body would pass `max-ops` ops (the fusion pass fuses only generic into
generic, so a copy stops it); `jaxc-drop-fusion-barriers` runs after it and
replaces each marked copy by its input. A chain of N ops becomes
ceil(N / max-ops) kernels, each with a temporary between it and the next.

Before fusion, with max-ops=2, three one-op generics %1 -> %2 -> %3::

    %2 = linalg.generic ... ins(%1 ...)        // %1: a one-op generic
    %b = linalg.copy {jaxc.fusion_barrier} ins(%2 ...) outs(%e ...)
    %3 = linalg.generic ... ins(%b ...)
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor
from mlir.passmanager import ExternalPass

from . import linalg_ops as linalg
from .ir import ops_named
from .registry import register_pass

BARRIER = "jaxc.fusion_barrier"


@register_pass("jaxc-bound-fusion", "stop elementwise fusion where a fused body would pass max-ops ops")
def bound_fusion(op: ir.Operation, pass_: ExternalPass, *, max_ops: int = 128) -> None:
    size: dict = {}  # generic result -> ops of the body its consumer would fuse in
    with op.context:
        for generic in ops_named(op, ["linalg.generic"]):
            block = generic.regions[0].blocks[0]
            total = len(block.operations) - 1  # the yield is not an op of the fused body
            producers = []
            for index, value in enumerate(generic.operands):
                if value in size and _one_use(value):
                    producers.append((size[value], index))
                    total += size[value]
            for fused, index in sorted(producers, reverse=True):
                if total <= max_ops:
                    break
                if insert_barrier(generic, index):
                    total -= fused
            for result in generic.results:
                size[result] = total


def _one_use(value: ir.Value) -> bool:
    """Whether `value` is its generic's only used result, used once (the
    fusion pass fuses such producers only)."""
    owner = value.owner
    uses = 0
    for result in owner.results:
        uses += sum(1 for _ in result.uses)
    return uses == 1


def insert_barrier(generic: ir.Operation, index: int) -> bool:
    """Put a marked copy between operand `index` of `generic` and its
    producer (False, and nothing done, for an operand of dynamic shape)."""
    value = generic.operands[index]
    type_ = value.type
    if not isinstance(type_, ir.RankedTensorType) or not type_.has_static_shape:
        return False
    with generic.location, ir.InsertionPoint(generic):
        empty = tensor.EmptyOp(list(type_.shape), type_.element_type).result
        copied = linalg.copy(value, outs=[empty])
    copied.owner.attributes[BARRIER] = ir.UnitAttr.get()
    generic.operands[index] = copied
    return True
