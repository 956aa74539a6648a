"""`jaxc-free-at-last-use`: move each `memref.dealloc` up to just after the
last use of its buffer.

Upstream `buffer-deallocation-pipeline` frees a block's buffers at the end
of the block, so every temporary of a function lives until it returns: the
peak memory of a function is the sum of its temporaries, and
rematerialization (`jaxc.remat`) could save nothing. This pass runs after
`convert-bufferization-to-memref`: a `memref.dealloc %a` in the block that
allocates `%a` moves to just after the last op of that block that uses `%a`
or a view of it (subview, reshape, cast: any memref an op derives from it),
counting uses inside the op's regions (loops, OpenMP regions) as uses by
the op.

    %a = memref.alloc() : memref<64xf32>
    linalg.generic ... outs(%a)             // last use of %a
    %b = memref.alloc() : memref<64xf32>
    linalg.generic ... ins(%a) outs(%b)     // last use of %a is here
    linalg.generic ... ins(%b) outs(%out)
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
  ->
    ...
    linalg.generic ... ins(%a) outs(%b)
    memref.dealloc %a : memref<64xf32>
    linalg.generic ... ins(%b) outs(%out)
    memref.dealloc %b : memref<64xf32>

Deallocs of buffers allocated elsewhere (a conditional ownership, a
buffer from a loop) stay where they are.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass


@register_pass("jaxc-free-at-last-use", "move each memref.dealloc to just after the last use of its buffer")
def free_at_last_use(op: ir.Operation, pass_: ExternalPass) -> None:
    deallocs = ops_named(op, ("memref.dealloc",))
    # Moving a dealloc keeps the order of every other op, and no dealloc uses
    # another's buffer, so each block is numbered once and every target is
    # found on that numbering before anything moves.
    positions: dict = {}
    moves = [(dealloc, _last_use(dealloc, positions)) for dealloc in deallocs]
    for dealloc, last in moves:
        if last is not None:
            dealloc.move_after(last)


def _last_use(dealloc: ir.Operation, positions: dict) -> ir.Operation | None:
    """The op after which `dealloc` should go, or None to leave it."""
    buffer = dealloc.operands[0]
    if isinstance(buffer.owner, ir.Block):  # a block argument
        return None
    alloc = buffer.owner.operation
    block = dealloc.block
    if alloc.name != "memref.alloc" or alloc.block != block:
        return None
    if block not in positions:
        positions[block] = {o.operation: i for i, o in enumerate(block.operations)}
    index = positions[block]
    last = alloc
    for user in _users(buffer, dealloc):
        while user.block != block:  # the op of this block that holds the use
            user = user.parent.operation
        if index[user] > index[last]:
            last = user
    return last if index[last] + 1 < index[dealloc] else None


def _users(buffer: ir.Value, dealloc: ir.Operation) -> list[ir.Operation]:
    """The ops that use `buffer` or a memref derived from it, but `dealloc`."""
    users, work = [], [buffer]
    while work:
        for use in work.pop().uses:
            owner = use.owner.operation
            if owner != dealloc:
                users.append(owner)
                work.extend(r for r in owner.results if isinstance(r.type, (ir.MemRefType, ir.UnrankedMemRefType)))
    return users
