"""`jaxc-distinct-results`: a function never returns one buffer twice.

The pinned `buffer-results-to-out-params{hoist-static-allocs}` replaces a
returned allocation by its out-parameter and erases it; when the same
`memref.alloc` is returned twice (``return %y, %y``, which CSE also produces
from two equal results) the second use dangles and the pass segfaults. This
pass, run after bufferization, gives every repeated return operand its own
buffer and copies into it.

Before::

    return %alloc, %alloc : memref<3xf32>, memref<3xf32>

After::

    %copy = memref.alloc() : memref<3xf32>
    memref.copy %alloc, %copy : memref<3xf32> to memref<3xf32>
    return %alloc, %copy : memref<3xf32>, memref<3xf32>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass


@register_pass("jaxc-distinct-results", "copy a memref returned more than once into a buffer of its own")
def distinct_results(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for ret in ops_named(op, ("func.return",)):
            _separate_repeats(ret)


def _separate_repeats(ret: ir.Operation) -> None:
    seen: set = set()
    for index, value in enumerate(list(ret.operands)):
        if value not in seen or not isinstance(value.type, ir.MemRefType):
            seen.add(value)
            continue
        with ir.InsertionPoint(ret), ret.location:
            copy = memref.AllocOp(ir.MemRefType(value.type), [], []).result
            memref.CopyOp(value, copy)
        ret.operands[index] = copy
