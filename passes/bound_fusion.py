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

It also cuts where a gather's index (a `tensor.extract` at a computed
position) would be computed along more than `max-index-paths` paths through
the fused body, or a value the body yields would: the vectorizer classifies
each such index by walking every path back to the loop's inputs, with no
memo, so a binary search whose steps all fused into one body (each step's
index computed from the step before's gather) took 0.65 s to vectorize at
10 steps and 24 s at 12. Over the limit, every input that brings more than
one path gets a barrier, and counting starts again at this generic.

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


@register_pass("jaxc-bound-fusion", "stop elementwise fusion where a fused body would pass max-ops ops "
               "or an index it reads at would be computed along more than max-index-paths paths")
def bound_fusion(op: ir.Operation, pass_: ExternalPass, *, max_ops: int = 128, max_index_paths: int = 100000) -> None:
    size: dict = {}  # generic result -> ops of the body its consumer would fuse in
    paths: dict = {}  # generic result -> paths (through its fused body) from inputs to the value it yields
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
            results = _bound_index_paths(generic, paths, max_index_paths)
            for result, count in zip(generic.results, results):
                size[result] = total
                paths[result] = count


def _one_use(value: ir.Value) -> bool:
    """Whether `value` is its generic's only used result, used once (the
    fusion pass fuses such producers only)."""
    owner = value.owner
    uses = 0
    for result in owner.results:
        uses += sum(1 for _ in result.uses)
    return uses == 1


def _bound_index_paths(generic: ir.Operation, paths: dict, limit: int) -> list[int]:
    """Put barriers on `generic`'s inputs where, in the body fusion would
    make of it and its producers, an index read by a `tensor.extract` or a
    value it yields would be computed along more than `limit` paths (then
    on every input that brings more than one, so that counting starts again
    here); returns the paths of each yielded value. The vectorizer's
    analysis of a gather's index walks every path back to the loop's
    inputs: a binary search fused into one body, 10 steps of it, took 0.65 s,
    12 steps 24 s."""
    inputs = len(generic.regions[0].blocks[0].arguments) - len(generic.results)
    feeding = {index: paths[value] for index, value in enumerate(list(generic.operands)[:inputs])
               if paths.get(value, 1) > 1}
    worst, yielded = _index_paths(generic, feeding, limit)
    if max([worst, *yielded]) <= limit:
        return yielded
    for index in feeding:
        insert_barrier(generic, index)
    return _index_paths(generic, {}, limit)[1]


def _index_paths(generic: ir.Operation, feeding: dict, limit: int) -> tuple[int, list[int]]:
    """(the most paths any extract index of the body is computed along, the
    paths of each yielded value), block argument i standing for
    `feeding.get(i, 1)` paths; counts saturate at limit + 1."""
    block = generic.regions[0].blocks[0]
    count = {arg: feeding.get(i, 1) for i, arg in enumerate(block.arguments)}
    worst = 0
    for inner in block.operations:
        ins = sum(count.get(v, 1) for v in inner.operands)
        if inner.name == "tensor.extract":
            worst = max(worst, sum(count.get(v, 1) for v in list(inner.operands)[1:]))
        elif inner.name == "linalg.yield":
            return worst, [min(count.get(v, 1), limit + 1) for v in inner.operands]
        for result in inner.results:
            count[result] = min(max(ins, 1), limit + 1)
    return worst, [1] * len(generic.results)


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
