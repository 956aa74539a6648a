"""PTX out of the `nvvm` stage: every gpu.module serialized by upstream
`gpu-module-to-binary{format=isa}` with libdevice linked, as text.

    text = ptx_text(module)     # module at the nvvm stage; it is not changed

The text holds one section per kernel module::

    // ----- gpu.module @f_kernel (sm_90)
    .version 7.8
    .target sm_90
    ...
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile

from mlir import ir
from mlir.passmanager import PassManager

from ..ir import first_op
from . import targets


class SerializeError(ValueError):
    """A module whose kernels cannot be serialized (message says why)."""


def check_libdevice(module: ir.Module) -> None:
    """Kernels that call libdevice (``__nv_sinf`` ...) need a toolkit to link
    it from; raise `SerializeError` naming the first such call when there is none."""
    if targets.toolkit_path() is not None:
        return
    libdevice = first_op(module.operation, lambda op: op.name == "llvm.func"
                         and ir.StringAttr(op.attributes["sym_name"]).value.startswith("__nv_"))
    if libdevice is not None:
        name = ir.StringAttr(libdevice.attributes["sym_name"]).value
        raise SerializeError(f"kernels call libdevice's {name}, but {targets.MISSING_TOOLKIT}")


@dataclasses.dataclass(frozen=True)
class KernelPtx:
    """The PTX of one gpu.module."""

    module: str  # the gpu.module's symbol name
    chip: str
    text: str


def kernel_ptx(module: ir.Module) -> list[KernelPtx]:
    """The PTX of each gpu.module of `module` (at the nvvm stage, left unchanged)."""
    from mlir.dialects.gpu import ObjectAttr

    check_libdevice(module)
    copy = module.operation.clone()
    try:
        with module.context:
            PassManager.parse(f"builtin.module({targets.module_to_binary_pass('isa')})").run(copy)
        kernels = []
        for op in copy.regions[0].blocks[0].operations:
            if op.operation.name != "gpu.binary":
                continue
            name = ir.StringAttr(op.operation.attributes["sym_name"]).value
            for attr in ir.ArrayAttr(op.operation.attributes["objects"]):
                obj = ObjectAttr(attr)
                text = obj.object.decode("utf-8", "replace").rstrip("\0").rstrip() + "\n"
                kernels.append(KernelPtx(name, _chip(str(obj.target)), text))
        return kernels
    finally:
        copy.erase()


def ptx_text(module: ir.Module) -> str:
    """Every kernel module's PTX, each under a ``// ----- gpu.module @NAME (CHIP)`` line."""
    return "\n".join(f"// ----- gpu.module @{k.module} ({k.chip})\n{k.text}"
                     for k in kernel_ptx(module))


def assemble(ptx: str, chip: str) -> bytes:
    """A cubin for `chip` from PTX text, by ``ptxas -arch=CHIP``; `SerializeError`
    with ptxas's messages when it refuses, or when there is no ptxas."""
    ptxas = targets.ptxas_path()
    if ptxas is None:
        raise SerializeError("no ptxas found: `pip install nvidia-cuda-nvcc-cu12` (make test "
                             f"does) or set {targets.ENV_TOOLKIT}")
    targets.check_chip(chip)
    with tempfile.TemporaryDirectory() as tmp:
        source, cubin = os.path.join(tmp, "kernel.ptx"), os.path.join(tmp, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, f"-arch={chip}", source, "-o", cubin],
                              capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0:
            raise SerializeError(f"ptxas -arch={chip} rejected the PTX:\n{proc.stderr.strip()}")
        with open(cubin, "rb") as f:
            return f.read()


def _chip(target: str) -> str:
    """``#nvvm.target<O = 3, chip = "sm_90", ...>`` -> ``sm_90``."""
    marker = 'chip = "'
    start = target.find(marker)
    return target[start + len(marker):target.index('"', start + len(marker))] if start >= 0 else "?"
