"""NVIDIA targets: which chips jaxc compiles for, the PTX version used for
each, and where the CUDA tools (ptxas, libdevice) are.

The PTX version must be one the chip supports: asking LLVM 22.1.8 for
`sm_90` with its default PTX 6.0 aborts the whole process (`LLVM ERROR`), so
every chip name is checked against this table before it reaches LLVM.

    >>> ptx_features("sm_90")
    '+ptx78'
    >>> ptx_features("sm_42")
    Traceback (most recent call last):
    ...
    GpuTargetError: unsupported CUDA chip 'sm_42'; jaxc compiles for: sm_80, sm_86, ...
"""
from __future__ import annotations

import os
import shutil

DEFAULT_CHIP = "sm_90"

# chip -> the lowest PTX ISA version that supports it (PTX ISA notes, "Release History").
CHIP_PTX: dict[str, int] = {
    "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_89": 78,
    "sm_90": 78, "sm_90a": 80,
    "sm_100": 86, "sm_100a": 86, "sm_120": 87, "sm_120a": 87,
}

# Where the CUDA tools may live, in order; JAXC_CUDA_TOOLKIT overrides them all.
ENV_TOOLKIT = "JAXC_CUDA_TOOLKIT"
_SYSTEM_TOOLKITS = ("/usr/local/cuda", "/opt/cuda")


class GpuTargetError(ValueError):
    """An unsupported chip, or a missing CUDA tool."""


def check_chip(chip: str) -> str:
    """`chip` if jaxc supports it; a `GpuTargetError` listing the chips otherwise."""
    if chip not in CHIP_PTX:
        raise GpuTargetError(f"unsupported CUDA chip '{chip}'; jaxc compiles for: "
                             f"{', '.join(CHIP_PTX)}")
    return chip


def ptx_features(chip: str) -> str:
    """The `features` of `nvvm-attach-target` for `chip`: ``+ptx78`` for sm_90."""
    return f"+ptx{CHIP_PTX[check_chip(chip)]}"


def toolkit_path() -> str | None:
    """A CUDA toolkit root with ``nvvm/libdevice/libdevice.10.bc`` (and, usually,
    ``bin/ptxas``): $JAXC_CUDA_TOOLKIT, PyPI's nvidia-cuda-nvcc, $CUDA_HOME,
    /usr/local/cuda. None when there is none."""
    candidates = [os.environ.get(ENV_TOOLKIT)]
    try:
        import nvidia.cuda_nvcc as nvcc  # PyPI: nvidia-cuda-nvcc-cu12
        candidates += list(nvcc.__path__)
    except ImportError:
        pass
    candidates += [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), *_SYSTEM_TOOLKITS]
    for root in candidates:
        if root and os.path.exists(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")):
            return root
    return None


def ptxas_path() -> str | None:
    """The ptxas of `toolkit_path()`, else the first on PATH; None if there is none."""
    root = toolkit_path()
    if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
        return os.path.join(root, "bin", "ptxas")
    return shutil.which("ptxas")


MISSING_TOOLKIT = ("no CUDA toolkit with libdevice found (kernels call libdevice for exp, sin, "
                   "...): `pip install nvidia-cuda-nvcc-cu12` (make test does), or set "
                   f"{ENV_TOOLKIT} to a CUDA toolkit root")


def module_to_binary_pass(output: str | None = None) -> str:
    """`gpu-module-to-binary` with the CUDA toolkit found here (libdevice,
    ptxas). `output` is its format; None: a cubin ("bin") when ptxas is
    there, else PTX ("isa"), which the driver compiles when it loads it."""
    if output is None:
        output = "bin" if ptxas_path() else "isa"
    toolkit = toolkit_path()
    return f"gpu-module-to-binary{{format={output}{f' toolkit={toolkit}' if toolkit else ''}}}"
