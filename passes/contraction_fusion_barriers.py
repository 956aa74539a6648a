"""`jaxc-contraction-fusion-barriers`: keep computing producers out of
contractions, so that the contraction schedule (packed panels, register
tiles) still recognizes them.

`linalg-fuse-elementwise-ops` fuses an elementwise producer into any
generic consumer, a contraction included. `tanh(a) @ b` then becomes one
generic whose body is `acc + tanh(a) * b`: no longer a contraction, it is
scheduled as a plain reduction that evaluates `tanh` n times per element of
`a` and reads `a` column by column (84x slower than `a @ b` at 512^2). A
relu mask feeding a weight gradient (`select(h > 0, g, 0)`) and a filled
cotangent (`fill(1)`, from the gradient of `sum(a @ b)`) do the same.

This pass runs before the fusion pass and puts a `linalg.copy` marked
``jaxc.fusion_barrier`` (`jaxc-drop-fusion-barriers` removes it after
fusion) between each contraction operand and its producer generic, unless
that producer only moves tensor elements (a transpose or a broadcast of a
tensor, whose fusing just changes the contraction's indexing map) or
converts them (mixed precision). The producer stays a kernel of its own;
its result is a temporary the size of the operand.

    %t = linalg.generic {parallel} ins(%a) { tanh }
    %c = linalg.generic {parallel, parallel, reduction} ins(%t, %b) { acc + x * y }
      ->
    %t = linalg.generic {parallel} ins(%a) { tanh }
    %k = linalg.copy {jaxc.fusion_barrier} ins(%t ...) outs(%e ...)
    %c = linalg.generic {parallel, parallel, reduction} ins(%k, %b) { acc + x * y }

The generic of a `jaxc.dft` (a call of the compiled FFT, schedules/library.py)
must keep its (sequences, frequencies, points) loops as they are, but the fusion
pass folds reshapes into the loops of any linalg op (a copy included, from
which they travel on), dropping the generic's attributes. Its barriers are
``bufferization.alloc_tensor() copy(...)``, which no fusion looks through,
before its input and after its result:

    %y = linalg.generic {jaxc.dft_sign = -1, ...} ins(%x) ...
      ->
    %b = bufferization.alloc_tensor() copy(%x) {jaxc.fusion_barrier}
    %y = linalg.generic {jaxc.dft_sign = -1, ...} ins(%b) ...
    %a = bufferization.alloc_tensor() copy(%y) {jaxc.fusion_barrier}
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization
from mlir.passmanager import ExternalPass

from .bound_fusion import BARRIER, insert_barrier
from .ir import ops_named
from .registry import register_pass
from .schedules.kernel import defining_op, describe
from .schedules.library import is_dft

# Body ops of a producer whose fusing leaves a contraction a contraction.
CONVERSIONS = frozenset({"linalg.yield", "arith.extf", "arith.extsi", "arith.sitofp"})


@register_pass("jaxc-contraction-fusion-barriers",
               "stop elementwise fusion into contractions where the producer computes")
def contraction_fusion_barriers(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for generic in ops_named(op, ["linalg.generic"]):
            if is_dft(generic):
                _opaque_barriers(generic)
                continue
            kernel = describe(generic, 0)
            if kernel is None or not kernel.is_contraction:
                continue
            for index in range(kernel.n_inputs):
                if _computes(defining_op(generic.operands[index])):
                    insert_barrier(generic, index)


def _computes(producer: ir.Operation | None) -> bool:
    """Whether `producer` is a generic that the fusion pass would fuse and
    that does more than move or convert the elements of tensors."""
    if producer is None or producer.name != "linalg.generic":
        return False
    body = producer.regions[0].blocks[0]
    if any(inner.name not in CONVERSIONS for inner in body.operations):
        return True
    n_inputs = len(producer.operands) - len(producer.results)
    return any(not isinstance(v.type, ir.ShapedType) for v in producer.operands[:n_inputs])


def _opaque_barriers(generic: ir.Operation) -> None:
    """Marked alloc_tensor copies before `generic`'s input and after its result."""
    result = generic.results[0]
    uses = [(use.owner, use.operand_number) for use in result.uses]
    with generic.location, ir.InsertionPoint(generic):
        before = bufferization.AllocTensorOp(generic.operands[0].type, [], copy=generic.operands[0])
    with generic.location, ir.InsertionPoint.after(generic):
        after = bufferization.AllocTensorOp(result.type, [], copy=result)
    for barrier in (before, after):
        barrier.operation.attributes[BARRIER] = ir.UnitAttr.get()
    generic.operands[0] = before.result
    for owner, index in uses:
        owner.operands[index] = after.result
