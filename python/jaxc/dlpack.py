"""`jax.dlpack`: arrays from and to other libraries through DLPack.

    y = jaxc.dlpack.from_dlpack(torch_or_numpy_array)   # a jaxc Array (a copy)
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
    device). The data is copied (jaxc arrays are immutable and own their
    buffers); ``copy=False`` is therefore a ValueError, as in JAX when a copy
    cannot be avoided."""
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
    if copy is False:
        raise ValueError("from_dlpack: jaxc always copies (copy=False cannot be honoured)")
    value = np.from_dlpack(external_array)
    if not is_supported_dtype(value.dtype):
        raise TypeError(f"from_dlpack: dtype {value.dtype} is not supported")
    return device_put(np.array(value, copy=True), device)
