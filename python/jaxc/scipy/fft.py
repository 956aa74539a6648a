"""`jaxc.scipy.fft`: the discrete cosine transform of type 2 and its inverse,
along one axis (`dct`, `idct`) or several (`dctn`, `idctn`), with
`jax.scipy.fft`'s signatures, dtypes and errors (like JAX, only ``type=2``
and the norms None/"backward"/"ortho").

    y = jaxc.scipy.fft.dct(x, norm="ortho")          # along the last axis
    x = jaxc.scipy.fft.idct(y, norm="ortho")         # back again
    z = jaxc.scipy.fft.dctn(image, s=(8, 8), axes=(0, 1))

Each 1-D transform is Makhoul's: the even samples, then the odd ones
reversed, through one real FFT of the same length, turned by a quarter-sample
phase (J. Makhoul, "A Fast Cosine Transform in One and Two Dimensions",
1980); the inverse runs the same steps backwards through `irfft`. The n-D
transforms apply them along each axis in turn.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax, numpy as jnp
from ..numpy._util import canonicalize_axis, check_arraylike, promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]

_NORMS = (None, "backward", "ortho")


def _check(fn: str, x: Any, type: Any, norm: Any) -> Any:
    """`x` as an array, after JAX's checks in JAX's order: an array or
    scalar (TypeError), ``type == 2`` (NotImplementedError), a known norm
    (ValueError)."""
    check_arraylike(f"scipy.fft.{fn}", x)
    if type != 2:
        raise NotImplementedError(f"jaxc.scipy.fft.{fn}: only DCT type 2 is implemented, got type={type!r}")
    if norm not in _NORMS:
        raise ValueError(f"jaxc.scipy.fft.{fn}: norm={norm!r} is not implemented (use None, 'backward' or "
                         "'ortho')")
    return jnp.asarray(x)


def _real_input(fn: str, x: Any) -> Any:
    """Real `x` as the float dtype JAX computes in: ints and bools as
    `promote_dtypes_inexact` (int32 -> float32, int64 -> float64), float16
    and bfloat16 as float32 (the dtype of their FFT's real part)."""
    x, = promote_dtypes_inexact(f"scipy.fft.{fn}", x)
    dtype = x.dtype if x.dtype in (dtypes.float32, dtypes.float64) else dtypes.float32
    return lax.convert_element_type(x, dtype, False)


def _length(fn: str, n: Any, what: str) -> int:
    """A requested transform length: an int (TypeError) that is not negative
    (ValueError, as JAX's padding)."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"jaxc.scipy.fft.{fn}: {what} must be an integer, got {n!r}") from None
    if n < 0:
        raise ValueError(f"jaxc.scipy.fft.{fn}: {what} must not be negative, got {n}")
    return n


def _resize(x: Any, axis: int, n: int) -> Any:
    """`x` truncated or zero-padded to length `n` along `axis`."""
    size = x.shape[axis]
    if n < size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    if n > size:
        config = [(0, n - size if a == axis else 0, 0) for a in range(x.ndim)]
        return lax.pad(x, lax.full((), 0, x.dtype), config)
    return x


def _scale(n: int, norm: Any) -> np.ndarray:
    """The factors of the forward transform's outputs: 1 (backward), or
    sqrt(1/(4n)) for the first and sqrt(1/(2n)) for the others (ortho)."""
    if norm == "ortho":
        return np.concatenate([[np.sqrt(0.25 / n)], np.full(n - 1, np.sqrt(0.5 / n))])
    return np.ones(n)


def _constant(values: np.ndarray, dtype: Any) -> Any:
    return jnp.asarray(values.astype(dtype))


def _dct_last(x: Any, norm: Any) -> Any:
    """DCT-II of real `x` along its last axis (length n >= 1):
    y[k] = 2 sum_j x[j] cos(pi k (2j + 1) / (2n)), times `_scale`.

    With v = (x[0], x[2], ..., x[3], x[1]) and V = rfft(v),
    y[k] = Re(w[k] V[k]) and y[n - k] = -Im(w[k] V[k]), w[k] = 2 exp(-i pi k / (2n))."""
    n = x.shape[-1]
    v = jnp.concatenate([x[..., ::2], jnp.flip(x[..., 1::2], axis=-1)], axis=-1)
    spectrum = jnp.fft.rfft(v, axis=-1)
    k = np.arange(n // 2 + 1)
    w = 2 * _scale(n, norm)[k] * np.exp(-0.5j * np.pi * k / n)
    z = spectrum * _constant(w, spectrum.dtype)
    parts = [lax.real(z)]
    if n > 2:
        parts.append(-jnp.flip(lax.imag(z)[..., 1:(n + 1) // 2], axis=-1))
    return jnp.concatenate(parts, axis=-1) if len(parts) > 1 else parts[0]


def _idct_last(y: Any, norm: Any) -> Any:
    """The inverse of `_dct_last`: h[k] = (y[k] - i y[n - k]) / (2 w[k]) for
    k <= n // 2 (y[n] = 0) is the spectrum of v (Hermitian, so `irfft`),
    and x takes v's first half at the even places, its second half reversed
    at the odd ones."""
    n = y.shape[-1]
    half = n // 2 + 1
    reversed_tail = jnp.flip(y[..., n - half + 1:], axis=-1)  # y[n - k] for k = 1 .. half - 1
    zero = jnp.zeros(y.shape[:-1] + (1,), y.dtype)
    yr = jnp.concatenate([zero, reversed_tail], axis=-1) if half > 1 else zero
    k = np.arange(half)
    g = np.exp(0.5j * np.pi * k / n) / (2 * _scale(n, norm)[k])
    h = lax.complex(y[..., :half], -yr)
    v = jnp.fft.irfft(h * _constant(g, h.dtype), n, axis=-1)
    evens, odds = v[..., :(n + 1) // 2], jnp.flip(v[..., (n + 1) // 2:], axis=-1)
    if n % 2:
        odds = jnp.concatenate([odds, jnp.zeros(odds.shape[:-1] + (1,), odds.dtype)], axis=-1)
    out = jnp.reshape(jnp.stack([evens, odds], axis=-1), y.shape[:-1] + (2 * evens.shape[-1],))
    return out[..., :n] if n % 2 else out


def _transform(fn: str, x: Any, axes: list[int], sizes: list[int | None], norm: Any, inverse: bool) -> Any:
    """Resize `x` to `sizes` along `axes`, then transform along each axis
    (complex `x`: its real and imaginary parts apart, as JAX)."""
    for axis, n in zip(axes, sizes):
        if n is not None:
            x = _resize(x, axis, n)
    for axis in axes:
        if x.shape[axis] == 0:  # JAX fails (TypeError) on an empty transform axis
            raise TypeError(f"jaxc.scipy.fft.{fn}: the transform needs at least one point, got length 0 "
                            f"along axis {axis}")
    if dtypes.is_complex(x.dtype):
        return lax.complex(_transform(fn, lax.real(x), axes, [None] * len(axes), norm, inverse),
                           _transform(fn, lax.imag(x), axes, [None] * len(axes), norm, inverse))
    x = _real_input(fn, x)
    one = _idct_last if inverse else _dct_last
    for axis in axes:
        x = jnp.moveaxis(one(jnp.moveaxis(x, axis, -1), norm), -1, axis)
    return x


def _one_axis(fn: str, x: Any, type: Any, n: Any, axis: Any, norm: Any, inverse: bool) -> Any:
    x = _check(fn, x, type, norm)
    axis = canonicalize_axis(axis, x.ndim, f"scipy.fft.{fn}")
    size = None if n is None else _length(fn, n, "n")
    return _transform(fn, x, [axis], [size], norm, inverse)


def _many_axes(fn: str, x: Any, type: Any, s: Any, axes: Any, norm: Any, inverse: bool) -> Any:
    """dctn/idctn: JAX's reading of `s` and `axes`. `s` (an int or a
    sequence) has at most x.ndim entries; `axes` defaults to the last len(s)
    axes (all without `s`); entries of `s` pair with `axes` in order, and
    the axes beyond the end of `s` keep their length."""
    x = _check(fn, x, type, norm)
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [_length(fn, s, "s")]
        if len(s) > x.ndim:
            raise ValueError(f"jaxc.scipy.fft.{fn}: s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = list(range(x.ndim - len(s), x.ndim)) if s is not None else list(range(x.ndim))
    else:
        axes = [canonicalize_axis(a, x.ndim, f"scipy.fft.{fn}")
                for a in (axes if isinstance(axes, Sequence) else [axes])]
        if len(set(axes)) != len(axes):
            raise ValueError(f"jaxc.scipy.fft.{fn}: repeated axis in axes={tuple(axes)}")
    sizes: list[int | None] = [None] * len(axes)
    if s is not None:
        if len(axes) == 1 and not s:  # JAX takes s[0] for a single axis
            raise IndexError(f"jaxc.scipy.fft.{fn}: s is empty but axes names axis {axes[0]}")
        sizes[:len(s)] = [_length(fn, d, "each entry of s") for d in s[:len(axes)]]
    if not axes:
        return x  # nothing to transform: x as it is (even an int array), as JAX
    return _transform(fn, x, axes, sizes, norm, inverse)


def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Discrete cosine transform (type 2) of `x` along `axis`, truncated or
    zero-padded to length `n` first; `norm` None/"backward" or "ortho"."""
    return _one_axis("dct", x, type, n, axis, norm, inverse=False)


def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of `dct` (a DCT of type 3, scaled): ``idct(dct(x)) == x`` for
    the same `norm`; `x` is truncated or zero-padded to length `n` first."""
    return _one_axis("idct", x, type, n, axis, norm, inverse=True)


def dctn(x: Any, type: int = 2, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """`dct` along each of `axes` (default: the last len(s), or all), with
    the lengths `s` (default: as they are)."""
    return _many_axes("dctn", x, type, s, axes, norm, inverse=False)


def idctn(x: Any, type: int = 2, s: Any = None, axes: Any = None, norm: str | None = None) -> Any:
    """`idct` along each of `axes` (default: the last len(s), or all), with
    the lengths `s` (default: as they are); the inverse of `dctn`."""
    return _many_axes("idctn", x, type, s, axes, norm, inverse=True)
