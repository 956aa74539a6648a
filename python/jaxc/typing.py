"""`jax.typing`: the annotations of JAX's API, for user code.

    def f(x: jaxc.typing.ArrayLike, dtype: jaxc.typing.DTypeLike = None) -> jaxc.Array: ...
"""
from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from .array import Array


class SupportsDType(Protocol):
    @property
    def dtype(self) -> np.dtype: ...


# What every array argument accepts: arrays, NumPy values and Python scalars.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
# What every dtype argument accepts.
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike"]
