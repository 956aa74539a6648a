"""Element types and JAX's type promotion.

The dtypes jaxc computes with are NumPy dtypes (bfloat16 from ml_dtypes).
Without ``jax_enable_x64`` the 64-bit ones canonicalize to 32 bits, as in JAX.
Python scalars are *weakly typed*: ``x + 1.0`` keeps ``x``'s float dtype.

Promotion is JAX's lattice (``jax.numpy.promote_types``): the result of two
types is their least upper bound, with the weak categories ``i*`` (Python
int) and ``f*`` (Python float) between the concrete types::

    b1 -> i* -> {u8, i8};  u8 -> {i16, u16};  u16 -> {i32, u32};  u32 -> {i64, u64}
    i8 -> i16 -> i32 -> i64 -> f*;  u64 -> f*;  f* -> {bf16, f16, c*} -> f32 -> f64
    f32 -> c64;  f64 -> c128;  c* (Python complex) -> c64 -> c128
"""
from __future__ import annotations

import functools
import threading
from typing import Any

import numpy as np

from ._config import config

try:
    import ml_dtypes as _ml_dtypes
    bfloat16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    bfloat16 = None

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

# The dtype of the tangents and cotangents of integer and bool values (JAX's
# `jax.dtypes.float0`): zero bytes per element. Such values are NumPy arrays,
# never Arrays: they carry no data and do not enter compiled programs.
float0 = np.dtype([("float0", np.void, 0)])


def is_float0(x: Any) -> bool:
    """Whether `x` is an array of float0 (a symbolic zero tangent)."""
    return getattr(x, "dtype", None) == float0


def float0_zeros(shape: tuple[int, ...]) -> np.ndarray:
    """The float0 tangent of an integer or bool value of `shape`."""
    return np.zeros(shape, float0)


SUPPORTED = [bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, float32, float64, complex64, complex128] + ([bfloat16] if bfloat16 is not None else [])

# NumPy dtype -> MLIR element type of the jaxc dialect.
_ELEMENT_TYPES = {bool_: "i1", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
                  uint8: "ui8", uint16: "ui16", uint32: "ui32", uint64: "ui64",
                  float16: "f16", float32: "f32", float64: "f64",
                  complex64: "complex<f32>", complex128: "complex<f64>"}
if bfloat16 is not None:
    _ELEMENT_TYPES[bfloat16] = "bf16"

_TO_32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}

# The promotion lattice: node -> the nodes directly above it.
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "i*", "f*", "c*"
_LATTICE: dict[Any, list[Any]] = {
    bool_: [_WEAK_INT], _WEAK_INT: [uint8, int8],
    uint8: [int16, uint16], uint16: [int32, uint32], uint32: [int64, uint64], uint64: [_WEAK_FLOAT],
    int8: [int16], int16: [int32], int32: [int64], int64: [_WEAK_FLOAT],
    _WEAK_FLOAT: [float16, _WEAK_COMPLEX] + ([bfloat16] if bfloat16 is not None else []),
    float16: [float32], float32: [float64, complex64], float64: [complex128],
    _WEAK_COMPLEX: [complex64], complex64: [complex128], complex128: [],
}
if bfloat16 is not None:
    _LATTICE[bfloat16] = [float32]


_THREAD = threading.local()


def x64_enabled() -> bool:
    """jax_enable_x64, or forced on in this thread (a pass emitting ops into
    IR that may hold 64-bit types: `core.emitting`)."""
    return config.jax_enable_x64 or getattr(_THREAD, "force_x64", False)


def trace_context() -> tuple:
    """What besides its arguments decides how a function traces: x64 and the
    values of `_config.TRACE_OPTIONS` (part of every jit cache key)."""
    return (x64_enabled(), *config.trace_context)


def trace_context_id() -> int:
    """The compiled jit cache's number for `trace_context()`; -1 (never
    matched) while this thread forces x64 against the option."""
    return config._trace_context_id if x64_enabled() == config.jax_enable_x64 else -1


class forced_x64:
    """Within this context, this thread canonicalizes as if x64 were on."""

    def __enter__(self) -> None:
        self._saved = getattr(_THREAD, "force_x64", False)
        _THREAD.force_x64 = True

    def __exit__(self, *exc: Any) -> None:
        _THREAD.force_x64 = self._saved


def element_type(dtype: np.dtype) -> str:
    """The dialect's element type name for a dtype (``float32`` -> ``f32``)."""
    try:
        return _ELEMENT_TYPES[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"jaxc does not support dtype {dtype} "
                        f"(supported: {', '.join(str(d) for d in SUPPORTED)})") from None


def canonicalize(dtype: Any) -> np.dtype:
    """`dtype` as jaxc computes with it: a NumPy dtype, 32-bit unless x64 is on.

    Accepts dtypes, scalar types (``jnp.float32``, ``float``, ``int``, ``bool``)
    and names (``"float32"``).
    """
    if dtype is float:
        dtype = float64 if x64_enabled() else float32
    elif dtype is int:
        dtype = int64 if x64_enabled() else int32
    elif dtype is bool:
        dtype = bool_
    elif dtype is complex:
        dtype = complex128 if x64_enabled() else complex64
    try:
        result = _named(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype") from None
    if result not in _ELEMENT_TYPES:
        element_type(result)  # raises the error naming the supported dtypes
    if not x64_enabled():
        result = _TO_32.get(result, result)
    return result


def default_int() -> np.dtype:
    return int64 if x64_enabled() else int32


def default_float() -> np.dtype:
    return float64 if x64_enabled() else float32


def default_complex() -> np.dtype:
    return complex128 if x64_enabled() else complex64


def is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or (bfloat16 is not None and np.dtype(dtype) == bfloat16)


def is_complex(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "c"


def is_inexact(dtype: np.dtype) -> bool:
    """Float or complex: the dtypes derivatives are taken in."""
    return is_float(dtype) or is_complex(dtype)


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of the parts of a complex dtype (complex64 -> float32);
    other dtypes unchanged."""
    return {complex64: float32, complex128: float64}.get(np.dtype(dtype), np.dtype(dtype))


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype with parts of `dtype` (float64 -> complex128; a
    float16/bfloat16 or integer gives complex64), canonicalized."""
    dtype = np.dtype(dtype)
    if is_complex(dtype):
        return dtype
    return canonicalize(complex128 if dtype == float64 else complex64)


def is_int(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind in "iu"


def is_unsigned(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "u"


# The float an integer or bool becomes in an inexact operation (jnp.sin,
# jnp.mean): JAX's table, not the promotion lattice; then canonicalized.
_TO_INEXACT = {bool_: float32, int8: float32, int16: float32, int32: float32, int64: float64,
               uint8: float32, uint16: float32, uint32: float32, uint64: float64}


def to_inexact(dtype: Any) -> np.dtype:
    """`dtype` if it is a float or complex, else the float JAX computes it in
    (int32 -> float32 and int64 -> float64, even with x64 on)."""
    dtype = np.dtype(dtype)
    if is_inexact(dtype):
        return dtype
    return canonicalize(_TO_INEXACT[dtype])


def scalar_dtype(value: Any) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) of a Python scalar: weak default int/float, or bool.
    NumPy scalars (``np.float64(1)`` is also a Python float) are strong."""
    if isinstance(value, np.generic):
        return canonicalize(value.dtype), False
    if isinstance(value, (bool, np.bool_)):
        return bool_, False
    if isinstance(value, int):
        return default_int(), True
    if isinstance(value, float):
        return default_float(), True
    if isinstance(value, complex):
        return default_complex(), True
    raise TypeError(f"{type(value).__name__} is not a Python scalar")


@functools.lru_cache(maxsize=None)
def _ancestors(node: Any) -> frozenset:
    above = {node}
    for parent in _LATTICE[node]:
        above |= _ancestors(parent)
    return frozenset(above)


def _node(dtype: np.dtype, weak: bool) -> Any:
    if weak and is_complex(dtype):
        return _WEAK_COMPLEX
    if weak and is_float(dtype):
        return _WEAK_FLOAT
    if weak and is_int(dtype):
        return _WEAK_INT
    return np.dtype(dtype)


@functools.lru_cache(maxsize=None)
def _join(a: Any, b: Any) -> Any:
    common = _ancestors(a) & _ancestors(b)
    least = [n for n in common if all(m in _ancestors(n) for m in common)]
    return least[0]


def promote(*typed: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
    """The result (dtype, weak_type) of an operation on values of these
    (dtype, weak_type)s, by JAX's lattice; canonicalized for x64."""
    if not typed:
        raise ValueError("promote() needs at least one type")
    node = _node(*typed[0])
    for dtype, weak in typed[1:]:
        node = _join(node, _node(dtype, weak))
    if node == _WEAK_INT:
        return default_int(), True
    if node == _WEAK_FLOAT:
        return default_float(), True
    if node == _WEAK_COMPLEX:
        return default_complex(), True
    return canonicalize(node), False


def promote_types(a: Any, b: Any) -> np.dtype:
    """`jnp.promote_types`: the promotion of two (strong) dtypes."""
    return promote((canonicalize(a), False), (canonicalize(b), False))[0]


def result_type(*args: Any) -> np.dtype:
    """`jnp.result_type`: the dtype an operation on `args` produces."""
    return promote(*[dtype_and_weak(a) for a in args])[0]


def dtype_and_weak(value: Any) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) of an array, tracer, NumPy value, Python scalar or dtype."""
    aval = getattr(value, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        return scalar_dtype(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return canonicalize(value.dtype), False
    return canonicalize(value), False


class TypePromotionError(ValueError):
    """A value whose dtype cannot be cast safely to the one asked for (JAX's
    `jax.dtypes.TypePromotionError`, e.g. a float64 parameter of a float32
    jax.random sampler)."""


class prng_key:  # noqa: N801 (JAX's name)
    """The category of typed PRNG key dtypes (`key<fry>`), as
    `jax.dtypes.prng_key`: `issubdtype(key.dtype, prng_key)` is True."""


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """`jnp.issubdtype`: whether dtype `arg1` is in category `arg2`
    (floating, integer, signedinteger, unsignedinteger, bool_, number,
    inexact, prng_key, or a dtype)."""
    dtype, category = arg1, arg2
    if getattr(dtype, "_is_prng_key", False):
        return category is prng_key or getattr(category, "_is_prng_key", False)
    if category is prng_key:
        return False
    dtype = np.dtype(dtype)
    if bfloat16 is not None and dtype == bfloat16:
        return category in (np.floating, np.inexact, np.number, np.generic) or np.dtype(category) == dtype
    return np.issubdtype(dtype, category)


def finfo(dtype: Any, canonical: bool = True):
    """Machine limits of a floating (or complex: its parts') dtype: the dtype
    jaxc computes with (`canonicalize`), or with canonical=False the dtype
    named, as `jnp.finfo` (JAX's finfo(float64) is float64's without x64 too)."""
    dtype = canonicalize(dtype) if canonical else _named(dtype)
    if bfloat16 is not None and dtype == bfloat16:
        return _ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def iinfo(dtype: Any, canonical: bool = True):
    """Machine limits of an integer dtype (`canonical` as in `finfo`)."""
    return np.iinfo(canonicalize(dtype) if canonical else _named(dtype))


def _named(dtype: Any) -> np.dtype:
    """The NumPy dtype `dtype` names (a dtype, name, type or jnp scalar type), not canonicalized."""
    return np.dtype(dtype if isinstance(dtype, (type, str)) else getattr(dtype, "dtype", dtype))
