"""`jaxc-unshare-empties`: give each branch of a `scf.if` / `scf.index_switch`
nested two or more branches below a `tensor.empty` an empty tensor of its
own, which the ops of that branch use instead.

CSE replaces the `tensor.empty` of every nested branch by an equal one in an
enclosing block, so with N nested conditionals (the derivative of N nested
`lax.cond`) one empty tensor is the destination of kernels at every depth.
One-shot bufferization then checks each of those in-place writes against
all the others, across all the nesting: 1.2 s for 30 levels, 3.7 s for 40,
and growing as N^5. An empty tensor has no contents, so any op may take a
fresh one. Branches one level below keep the shared one: a cond's result
then still goes straight into the function's out-parameter. Runs right
before `one-shot-bufferize`, with no CSE between them.

    %e = tensor.empty() : tensor<f32>
    %r = scf.if %p -> (tensor<f32>) {                 // depth 1: keeps %e
      ...
      %s = scf.if %q -> (tensor<f32>) {               // depth 2
        %g = linalg.generic ... outs(%e : tensor<f32>)
  ->
      %s = scf.if %q -> (tensor<f32>) {
        %e1 = tensor.empty() : tensor<f32>
        %g = linalg.generic ... outs(%e1 : tensor<f32>)
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass

BRANCH_OPS = frozenset({"scf.if", "scf.index_switch"})  # each region runs at most once
SHARED_DEPTH = 1  # uses this many branches below the empty (or fewer) keep it


@register_pass("jaxc-unshare-empties",
               "give each deeply nested branch its own tensor.empty (one-shot bufferization's analysis "
               "grows as a power of the nesting depth otherwise)")
def unshare_empties(op: ir.Operation, pass_: ExternalPass) -> None:
    """Unshare every `tensor.empty` under `op` from the branches nested
    more than `SHARED_DEPTH` below it."""
    for empty in ops_named(op, ("tensor.empty",)):
        _unshare(empty)


def _branch_below(block: ir.Block, top: ir.Block) -> tuple[ir.Block | None, int]:
    """The innermost branch block enclosing `block` (itself included) below
    `top`, and how many branch regions lie between `top` and `block`."""
    innermost, depth = None, 0
    while block != top:
        owner = block.owner.operation
        if owner.name in BRANCH_OPS:
            depth += 1
            innermost = innermost or block
        block = owner.block
    return innermost, depth


def _unshare(empty: ir.Operation) -> None:
    clones: dict[ir.Block, ir.Operation] = {}
    for user, number in [(use.owner.operation, use.operand_number) for use in empty.results[0].uses]:
        branch, depth = _branch_below(user.block, empty.block)
        if branch is None or depth <= SHARED_DEPTH:
            continue
        if branch not in clones:
            with ir.InsertionPoint.at_block_begin(branch):
                clones[branch] = empty.clone()
        user.operands[number] = clones[branch].results[0]
