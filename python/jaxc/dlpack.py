"""`jax.dlpack`: arrays from and to other libraries through DLPack.

    y = jaxc.dlpack.from_dlpack(torch_or_numpy_array)   # a jaxc Array (sharing its memory if it can)
    z = np.from_dlpack(jaxc_array)                       # Arrays export __dlpack__

jaxc's arrays live in host memory (CPU devices); a producer on another
device (DLPack device type other than CPU) is refused with a BufferError.
"""
from __future__ import annotations

from typing import Any

import numpy as np

SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_))

_CPU = 1  # kDLCPU


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of `dtype` travel through DLPack (bfloat16 too)."""
    from . import dtypes
    dtype = np.dtype(dtype)
    return dtype in SUPPORTED_DTYPES or dtype == dtypes.bfloat16


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Any:
    """A jaxc Array with the contents of `external_array` (any object with
    ``__dlpack__`` and ``__dlpack_device__``), its dtype canonicalized, on
    `device` (a Device or a one-device Sharding; default: the default
    device). As JAX on the CPU, the Array shares the producer's memory when
    it can (the data C-contiguous, of a canonical dtype, bound for a CPU
    device) unless ``copy=True``, so later writes through the producer show
    in it; ``copy=False`` where it cannot share is JAX's ValueError. JAX
    also needs the data 64-byte aligned; jaxc's kernels need only the
    elements aligned, so jaxc shares more often (its own arrays included)."""
    from .api import device_put
    from .numpy._util import check_device
    from .sharding import Sharding
    check_device(device, "from_dlpack")
    if isinstance(device, Sharding) and len(device.device_set) > 1:
        raise ValueError("from_dlpack can only unpack a dlpack tensor onto a singular device, but a "
                         f"Sharding with {len(device.device_set)} devices was provided.")
    if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
        raise TypeError(f"from_dlpack: {type(external_array).__name__} has no __dlpack__ and "
                        "__dlpack_device__ methods (DLPack capsules themselves are no longer accepted, "
                        "as in JAX)")
    kind, _ = external_array.__dlpack_device__()
    if int(kind) != _CPU:
        raise BufferError(f"from_dlpack: the array is on DLPack device type {int(kind)}; jaxc "
                          "takes host (CPU) arrays only")
    value = np.from_dlpack(external_array)
    if not is_supported_dtype(value.dtype):
        raise TypeError(f"from_dlpack: dtype {value.dtype} is not supported")
    if copy is True:
        return device_put(value, device)  # device_put copies host data
    target = _target_device(device)
    why_copy = _why_copy(value, target)
    if why_copy is None:
        return _shared(value, target)
    if copy is False:
        raise ValueError(f"Specified input which requires a copy since {why_copy}. However copy=False. "
                         "Set copy=True or copy=None to perform the requested operation.")
    return device_put(value, device)


def _target_device(device: Any) -> Any:
    """The one device `device` (None, a Device or a one-device Sharding) names."""
    from .dispatch import default_device
    from .sharding import Sharding
    if isinstance(device, Sharding):
        return next(iter(device.device_set))
    return default_device() if device is None else device


def _why_copy(value: np.ndarray, device: Any) -> str | None:
    """Why `value` cannot be shared as an Array on `device` (None if it can):
    JAX's conditions on the CPU."""
    from . import dtypes
    from .dispatch import Device
    if not (isinstance(device, Device) and device.platform == "cpu"):
        return f"the array must move to {device}"
    if dtypes.canonicalize(value.dtype) != value.dtype:
        return f"its dtype {value.dtype} becomes {dtypes.canonicalize(value.dtype)} (64-bit types are off)"
    if not value.flags.c_contiguous:
        return "the source data buffer is not contiguous in row-major order"
    if not value.flags.aligned:
        return f"the source data buffer is not aligned to its {value.dtype} elements"
    return None


def _shared(value: np.ndarray, device: Any) -> Any:
    """An Array reading `value`'s memory (a read-only view of it)."""
    from .array import Array
    from .core import ShapedArray
    view = value.view()
    view.flags.writeable = False
    return Array._ready(view, ShapedArray(view.shape, view.dtype, False), device)
