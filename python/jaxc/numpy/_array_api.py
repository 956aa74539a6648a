"""The Python Array API (2024.12) metadata of `jaxc.numpy`, as JAX's.

    xp = x.__array_namespace__()            # jaxc.numpy, for any jaxc array
    info = xp.__array_namespace_info__()
    info.dtypes(kind="integral")            # {'int8': dtype('int8'), ...}

The dtypes listed are the standard's (no float16, bfloat16): 32-bit ones,
and the 64-bit ones too when ``jax_enable_x64`` is set, as in JAX.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .. import dtypes

__array_api_version__ = "2024.12"


def array_namespace(self: Any, *, api_version: str | None = None) -> ModuleType:
    """`Array.__array_namespace__`: jaxc.numpy (ValueError for another
    api_version than 2024.12)."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"{api_version=!r} is not available; available versions are: "
                         f"{[__array_api_version__]}")
    from .. import numpy
    return numpy


def __array_namespace_info__() -> ArrayNamespaceInfo:
    return ArrayNamespaceInfo()


_SIGNED = ("int8", "int16", "int32", "int64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
_KINDS = {
    "bool": ("bool",), "signed integer": _SIGNED, "unsigned integer": _UNSIGNED,
    "integral": _SIGNED + _UNSIGNED, "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": _SIGNED + _UNSIGNED + ("float32", "float64", "complex64", "complex128"),
}
_64_BIT = {"int64", "uint64", "float64", "complex128"}


class ArrayNamespaceInfo:
    """The Array API's inspection object (``__array_namespace_info__()``)."""

    _capabilities = {
        "boolean indexing": False,  # within transformations
        "data-dependent shapes": False,  # within transformations
        "max dimensions": 64,
    }

    def capabilities(self) -> dict:
        return self._capabilities

    def default_device(self) -> None:
        """None: arrays are not committed to a device (JAX's answer)."""
        return None

    def devices(self) -> list:
        """None (uncommitted), then every device (`jaxc.devices()`)."""
        from ..api import devices
        return [None] + devices()

    def default_dtypes(self, *, device: Any = None) -> dict:
        del device  # the same on every device
        return {"real floating": dtypes.default_float(), "complex floating": dtypes.default_complex(),
                "integral": dtypes.default_int(), "indexing": dtypes.default_int()}

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict:
        """The dtypes of `kind` (a kind name or a tuple of them; None: numeric
        and bool) by name; an unknown kind is a KeyError, as in JAX."""
        del device  # the same on every device
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        elif isinstance(kind, tuple):
            names = sum((_KINDS[k] for k in kind), ())
        else:
            names = _KINDS[kind]
        x64 = dtypes.x64_enabled()
        return {name: np.dtype(name) for name in names if x64 or name not in _64_BIT}


def finfo(dtype: Any):
    """Machine limits of the floating dtype named, as JAX's `jnp.finfo`
    (`jnp.finfo(jnp.float64)` is float64's even without x64, as the Array
    API's data-type functions expect)."""
    return dtypes.finfo(dtype, canonical=False)


def iinfo(int_type: Any):
    """Machine limits of the integer dtype named (`jnp.iinfo(jnp.int64)` is
    int64's even without x64), as JAX's."""
    return dtypes.iinfo(int_type, canonical=False)
