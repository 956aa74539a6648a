"""`jnp.float32` and friends: dtype-like and callable, as in JAX.

    jnp.float32(2)             # Array(2., dtype=float32)
    x.dtype == jnp.float32     # True
    jnp.zeros(3, jnp.int8)     # accepted wherever a dtype is
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes


class ScalarType:
    """A scalar type: `.dtype` makes it a dtype for NumPy; calling it makes a
    0-d (or converted) jaxc array of that dtype."""

    def __init__(self, dtype: np.dtype, name: str) -> None:
        self.dtype = dtype
        self.__name__ = self.__qualname__ = name

    def __call__(self, x: Any) -> Any:
        from ._util import asarray
        return asarray(x, self.dtype, fn=self.__name__, lists=True)  # jnp.float32([1, 2]) as in JAX

    def __eq__(self, other: Any) -> Any:
        # As JAX's: equal to itself and to what its NumPy scalar type equals
        # (np.float32, np.dtype('float32')), never to a string or None, and
        # never raising (the Array API asks `==` against any object to work).
        return self is other or self.dtype.type == other

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return f"jaxc.numpy.{self.__name__}"


_NAMES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
_NAMES += ["bfloat16"] if dtypes.bfloat16 is not None else []
SCALAR_TYPES = {name: ScalarType(getattr(dtypes, name), name) for name in _NAMES}
# NumPy's C-style aliases, the same objects as in JAX (jnp.single is jnp.float32)
SCALAR_TYPES.update(single=SCALAR_TYPES["float32"], double=SCALAR_TYPES["float64"], uint=SCALAR_TYPES["uint64"],
                    csingle=SCALAR_TYPES["complex64"], cdouble=SCALAR_TYPES["complex128"],
                    complex_=SCALAR_TYPES["complex128"])
