"""`jaxc-gpu-one-kernel-module`: move every kernel into the first
`gpu.module`, and point each `gpu.launch_func` at it there.

`gpu-kernel-outlining` gives each kernel a module of its own, and upstream
`gpu-to-llvm` (22.1.8) finds each launch's module by a scan of the top-level
symbols: K kernels in K modules cost K^2 symbol visits (3000 nested while
loops on the GPU, 6377 kernels: 31 s of `gpu-to-llvm`, 1.3 s with one
module). One module is also one PTX compile and one module load at run
time instead of K. A kernel whose name the first module already has takes
its old module's name (unique among the module's symbols). Modules whose
attributes differ from the first's (a target attached to one only), or that
hold anything but kernels, stay as they are.

    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel {...} }
    gpu.module @f_kernel_0 { gpu.func @f_kernel(...) kernel {...} }
    gpu.launch_func @f_kernel_0::@f_kernel ...
  ->
    gpu.module @f_kernel {
      gpu.func @f_kernel(...) kernel {...}
      gpu.func @f_kernel_0(...) kernel {...}
    }
    gpu.launch_func @f_kernel::@f_kernel_0 ...
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from ..ir import ops_named, symbol_name, symbol_names, unique_name
from ..registry import register_pass


@register_pass("jaxc-gpu-one-kernel-module",
               "move every kernel into one gpu.module (gpu-to-llvm's lookup of each launch's module costs "
               "K^2 with one module per kernel)")
def one_kernel_module(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        modules = [o.operation for o in op.regions[0].blocks[0].operations if o.operation.name == "gpu.module"]
        if len(modules) < 2:
            return
        first = modules[0]
        into = first.regions[0].blocks[0]
        taken = symbol_names(first)
        moved: dict[tuple[str, str], str] = {}  # (module, kernel) -> the kernel's name in the first module
        for module in modules[1:]:
            if _attributes(module) != _attributes(first) or not _kernels_only(module):
                continue
            module_name = symbol_name(module)
            for inner in list(module.regions[0].blocks[0].operations):
                inner = inner.operation
                name = symbol_name(inner)
                new = name if name not in taken else unique_name(module_name, taken)
                inner.attributes["sym_name"] = ir.StringAttr.get(new)
                taken.add(new)
                moved[(module_name, name)] = new
                into.append(inner)
            module.erase()
        first_name = symbol_name(first)
        for launch in ops_named(op, ("gpu.launch_func",)):
            module_name, kernel = ir.SymbolRefAttr(launch.attributes["kernel"]).value
            if (module_name, kernel) in moved:
                launch.attributes["kernel"] = ir.SymbolRefAttr.get([first_name, moved[(module_name, kernel)]])


def _kernels_only(module: ir.Operation) -> bool:
    """Whether `module` holds kernels only (no helper a kernel could call by
    a name that moving may change)."""
    return all(o.operation.name == "gpu.func" and "gpu.kernel" in o.operation.attributes
               for o in module.regions[0].blocks[0].operations)


def _attributes(module: ir.Operation) -> list[tuple[str, str]]:
    """A module's attributes but its name, as text."""
    return sorted((name, str(module.attributes[name])) for name in module.attributes if name != "sym_name")

