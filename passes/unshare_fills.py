"""`jaxc-unshare-fills`: give each user that may write a tensor
`linalg.fill` in place (all but linalg inputs) a fill of its own, just
before it.

CSE merges the zero fills of every matrix product of a function into one
tensor; one-shot bufferization then allocates that fill once and, since
every product writes its accumulator in place, copies it into a fresh
buffer per product (`memref.copy`: a read and a write of the whole result,
where a fill is one write). Runs right before `one-shot-bufferize`, with no
CSE between them.

    %e = tensor.empty() : tensor<64x64xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %a = scf.for ... iter_args(%acc = %z) ...
    %b = scf.for ... iter_args(%acc = %z) ...
  ->
    %e = tensor.empty() : tensor<64x64xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %a = scf.for ... iter_args(%acc = %z) ...
    %e1 = tensor.empty() : tensor<64x64xf32>
    %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %b = scf.for ... iter_args(%acc = %z1) ...
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass


@register_pass("jaxc-unshare-fills",
               "give each user of a tensor linalg.fill its own fill (no copies after bufferization)")
def unshare_fills(op: ir.Operation, pass_: ExternalPass) -> None:
    """Unshare every tensor fill under `op`."""
    for fill in ops_named(op, ("linalg.fill",)):
        if len(fill.results) == 1:
            _unshare(fill)


def _is_read_only(user: ir.Operation, number: int) -> bool:
    """Whether operand `number` of `user` is a linalg op's input (read, never
    written in place)."""
    if not user.name.startswith("linalg.") or "operandSegmentSizes" not in user.attributes:
        return False
    return number < ir.DenseI32ArrayAttr(user.attributes["operandSegmentSizes"])[0]


def _unshare(fill: ir.Operation) -> None:
    """A clone of `fill` for each user that may write it in place, but the
    first in the block."""
    uses = [(use.owner.operation, use.operand_number) for use in fill.results[0].uses]
    uses = [(user, number) for user, number in uses if not _is_read_only(user, number)]
    if len(uses) < 2:
        return
    order = {o.operation: i for i, o in enumerate(fill.block.operations)}
    uses.sort(key=lambda use: order.get(use[0], -1))  # the first writer keeps the original
    init = fill.operands[1]
    empty = None if isinstance(init.owner, ir.Block) or init.owner.operation.name != "tensor.empty" \
        else init.owner.operation
    for user, number in uses[1:]:
        if user.block != fill.block:  # a use inside a region: cloning there could repeat the fill
            continue
        with ir.InsertionPoint(user):
            operands = list(fill.operands)
            if empty is not None and not empty.operands:  # static shape: a fresh empty of its own
                operands[1] = empty.clone().results[0]
            copy = fill.clone()
            for i, value in enumerate(operands):
                copy.operands[i] = value
        user.operands[number] = copy.results[0]
