"""`jaxc-gpu-host-shared-memory`: every buffer the host allocates is CUDA
managed memory, readable by kernels and by host code alike.

The GPU pipeline keeps scalar host code (a while loop's predicate, a
dynamic_slice start) on the host and runs loop nests as kernels; both touch
the same buffers. Managed memory (``cuMemAllocManaged`` behind
``gpu.alloc host_shared``) makes that correct without copies; kernel launches
are synchronous, so host reads see what kernels wrote. Constants
(``memref.get_global``, host globals a kernel cannot read) are copied into a
managed buffer of their own, freed at the end of their block. `memref.alloca`
(ownership flags of the deallocation pipeline) stays on the host stack: only
host code reads it.

Before::

    %a = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    %g = memref.get_global @cst : memref<8xf32>
    memref.dealloc %a : memref<8xf32>
    return

After::

    %a = gpu.alloc  host_shared () : memref<8xf32>
    %g0 = memref.get_global @cst : memref<8xf32>
    %g = gpu.alloc  host_shared () : memref<8xf32>
    memref.copy %g0, %g : memref<8xf32> to memref<8xf32>
    %t = gpu.wait async
    %t1 = gpu.dealloc async [%t] %a : memref<8xf32>
    gpu.wait [%t1]
    ...the same three lines free %g...
    return
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu, memref
from mlir.passmanager import ExternalPass

from ..ir import ops_named
from ..registry import register_pass


@register_pass("jaxc-gpu-host-shared-memory",
               "allocate every host buffer (and a copy of every constant) in CUDA managed memory")
def host_shared_memory(op: ir.Operation, pass_: ExternalPass) -> None:
    allocs, deallocs, constants = (ops_named(op, [name]) for name in (
        "memref.alloc", "memref.dealloc", "memref.get_global"))
    with op.context:
        for alloc in allocs:
            _replace_alloc(alloc)
        for dealloc in deallocs:
            with ir.InsertionPoint(dealloc), dealloc.location:
                _free(dealloc.operands[0])
            dealloc.erase()
        for get_global in constants:
            _copy_constant(get_global)


def _managed_alloc(memref_type: ir.Type, dynamic_sizes) -> ir.Value:
    return gpu.AllocOp(memref_type, None, [], list(dynamic_sizes), [], hostShared=True).memref


def _free(buffer: ir.Value) -> None:
    token = ir.Type.parse("!gpu.async.token")
    ready = gpu.WaitOp(token, []).asyncToken
    done = gpu.DeallocOp(token, [ready], buffer).asyncToken
    gpu.WaitOp(None, [done])


def _replace_alloc(alloc: ir.Operation) -> None:
    with ir.InsertionPoint(alloc), alloc.location:
        managed = _managed_alloc(alloc.results[0].type, alloc.operands)
    alloc.results[0].replace_all_uses_with(managed)
    alloc.erase()


def _copy_constant(get_global: ir.Operation) -> None:
    """Copy the global into a managed buffer; free it before the block ends
    unless the block's terminator hands it on."""
    constant = get_global.results[0]
    with ir.InsertionPoint(get_global), get_global.location:
        managed = _managed_alloc(constant.type, [])
    constant.replace_all_uses_with(managed)
    get_global.move_before(managed.owner)
    with ir.InsertionPoint(get_global), get_global.location:
        copy = memref.CopyOp(constant, managed)
    copy.operation.move_after(managed.owner)
    terminator = _block_terminator(managed.owner)
    if not any(operand == managed for operand in terminator.operands):
        with ir.InsertionPoint(terminator), get_global.location:
            _free(managed)


def _block_terminator(op: ir.Operation) -> ir.Operation:
    operations = op.operation.block.operations
    return operations[len(operations) - 1].operation
