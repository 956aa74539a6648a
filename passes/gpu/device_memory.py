"""`jaxc-gpu-device-memory`: buffers that only kernels touch move from CUDA
managed memory to device memory.

`jaxc-gpu-host-shared-memory` puts every buffer in managed memory before the
kernels exist. Once they are outlined, a buffer whose every use (through
views) is a kernel launch or its free never reaches the host: it becomes a
plain `gpu.alloc` (``cuMemAlloc``), so the GPU's first touch of it does not
fault pages over from the host. A constant copied into such a buffer is
copied with `gpu.memcpy` instead of by the host. Buffers the host reads or
writes (a while loop's predicate, a dynamic_slice start) stay managed.

Before::

    %a = gpu.alloc  host_shared () : memref<8xf32>
    gpu.launch_func @k::@k blocks in (...) threads in (...) args(%a : memref<8xf32>)
    %t = gpu.wait async
    %t1 = gpu.dealloc async [%t] %a : memref<8xf32>
    gpu.wait [%t1]

After::

    %t0 = gpu.wait async
    %a, %t2 = gpu.alloc async [%t0] () : memref<8xf32>
    gpu.wait [%t2]
    gpu.launch_func @k::@k blocks in (...) threads in (...) args(%a : memref<8xf32>)
    ...the same free...
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import ExternalPass

from ..ir import ops_named
from ..registry import register_pass
from . import buffers

# Uses that keep a buffer on the device: it is passed to a kernel, or freed.
DEVICE_USES = ("gpu.launch_func", "gpu.dealloc")


@register_pass("jaxc-gpu-device-memory",
               "put buffers that only kernels use in device memory instead of managed memory")
def device_memory(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for alloc in ops_named(op, ["gpu.alloc"]):
            if "hostShared" not in alloc.attributes:
                continue
            fill = _device_only(alloc.results[0])
            if fill is not False:
                _to_device(alloc, fill)


def _device_only(buffer: ir.Value):
    """False if the host touches `buffer`; else the `memref.copy` of a host
    constant into it (None if there is none)."""
    fill = None
    for use in _uses_through_views(buffer):
        name = use.name
        if name in DEVICE_USES:
            continue
        if (name == "memref.copy" and fill is None and use.operands[1] == buffer
                and buffers.in_host_memory(use.operands[0])):
            fill = use
            continue
        return False
    return fill


def _uses_through_views(buffer: ir.Value) -> list[ir.Operation]:
    uses = []
    for use in buffer.uses:
        owner = use.owner
        if owner.name in buffers.VIEW_OPS and use.operand_number == 0:
            uses.extend(_uses_through_views(owner.results[0]))
        else:
            uses.append(owner)
    return uses


def _to_device(alloc: ir.Operation, fill: ir.Operation | None) -> None:
    token = ir.Type.parse("!gpu.async.token")
    with ir.InsertionPoint(alloc), alloc.location:
        ready = gpu.WaitOp(token, []).asyncToken
        device = gpu.AllocOp(alloc.results[0].type, token, [ready], list(alloc.operands), [])
        gpu.WaitOp(None, [device.asyncToken])
    alloc.results[0].replace_all_uses_with(device.memref)
    alloc.erase()
    if fill is not None:
        with ir.InsertionPoint(fill), fill.location:
            ready = gpu.WaitOp(token, []).asyncToken
            copied = gpu.MemcpyOp(token, [ready], fill.operands[1], fill.operands[0]).asyncToken
            gpu.WaitOp(None, [copied])
        fill.erase()
