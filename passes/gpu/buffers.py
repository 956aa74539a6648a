"""Where a buffer comes from, through the ops that only view it.

    origin(%v)  # "memref.get_global" for %v = memref.subview (memref.get_global @c)
"""
from __future__ import annotations

from mlir import ir

# Ops that only make a new view of their first operand's buffer.
VIEW_OPS = ("memref.subview", "memref.reinterpret_cast", "memref.expand_shape",
            "memref.collapse_shape", "memref.cast", "memref.reshape")
# Buffers in host memory, which a kernel cannot read.
HOST_MEMORY = ("memref.alloca", "memref.get_global")


def origin(buffer: ir.Value) -> str | None:
    """The name of the op that made `buffer`'s storage; None for a block argument."""
    while not isinstance(buffer.owner, ir.Block):
        op = buffer.owner.operation  # not OpView.name: get_global's `name` is its symbol
        if op.name not in VIEW_OPS:
            return op.name
        buffer = op.operands[0]
    return None


def in_host_memory(buffer: ir.Value) -> bool:
    """Whether `buffer` is (a view of) host memory: a stack buffer or a global."""
    return origin(buffer) in HOST_MEMORY
