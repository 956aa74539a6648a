"""`jaxc-gpu-sync-host-shared-allocs`: managed allocations leave the token
chains `gpu-async-region` put them in.

`gpu-async-region` chains every gpu op of a function on async tokens, so
kernels launch back to back on one stream and the host waits only where it
reads memory or returns. It makes `gpu.alloc host_shared` async as well,
which `gpu-to-llvm` refuses ("Host Shared allocation cannot be done
async"): `cuMemAllocManaged` is synchronous anyway. This pass makes each one
synchronous again and passes its dependency on to its token's users.

Before::

    %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<8xf32>
    %t2 = gpu.launch_func async [%t1] @k::@k ...

After::

    %m = gpu.alloc  host_shared () : memref<8xf32>
    %t2 = gpu.launch_func async [%t0] @k::@k ...
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import ExternalPass

from ..ir import ops_named
from ..registry import register_pass


@register_pass("jaxc-gpu-sync-host-shared-allocs",
               "make async gpu.alloc host_shared synchronous (gpu-to-llvm lowers no other form)")
def sync_host_shared_allocs(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for alloc in ops_named(op, ["gpu.alloc"]):
            if "hostShared" not in alloc.attributes or len(alloc.results) < 2:
                continue
            view = alloc.opview if isinstance(alloc, ir.Operation) else alloc
            dependencies = list(view.asyncDependencies)
            if len(dependencies) != 1:
                raise ValueError(f"{alloc.location}: a managed allocation waits on "
                                 f"{len(dependencies)} tokens; expected 1")
            with ir.InsertionPoint(alloc), alloc.location:
                managed = gpu.AllocOp(alloc.results[0].type, None, [], list(view.dynamicSizes),
                                      list(view.symbolOperands), hostShared=True).memref
            alloc.results[0].replace_all_uses_with(managed)
            alloc.results[1].replace_all_uses_with(dependencies[0])
            alloc.erase()
