"""`jaxc.numpy.fft`: NumPy's discrete Fourier transforms, on `lax.fft`.

    jnp.fft.fft(x)              # complex spectrum along the last axis
    jnp.fft.rfft(x, n=64)       # real input, n//2 + 1 frequencies
    jnp.fft.irfftn(X, s=(8, 8)) # back to a real 8x8 array

`n` / `s` crop or zero-pad the input along each transformed axis; `norm` is
"backward" (default: the inverse divides by n), "ortho" (both by sqrt(n)) or
"forward" (the forward transform divides by n). Real and integer inputs are
promoted to complex as in JAX (float32 -> complex64).
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from .. import dtypes, lax
from ..lax._fft import FftType, fft_along
from ._util import asarray, canonicalize_axis, place, promote_args_inexact

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _norm_scale(norm: str | None, n: int, inverse: bool, fn: str) -> float:
    """The factor `lax.fft`'s result (inverse already divided by n) is multiplied by."""
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f'jnp.fft.{fn}: invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward"')
    if norm == "backward":
        return 1.0
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    return float(n) if inverse else 1 / n


def _resize(x: Any, axis: int, n: int) -> Any:
    """`x` cropped or zero-padded to length n along `axis`."""
    size = x.shape[axis]
    if n == size:
        return x
    if n < size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    config = [(0, 0, 0)] * x.ndim
    config[axis] = (0, n - size, 0)
    return lax.pad(x, lax.full((), 0, x.dtype), config)


def _axes_and_sizes(x: Any, s: Sequence[int] | None, axes: Sequence[int] | None, fn: str,
                    default_last: int | None = None) -> tuple[list[int], Sequence[int | None]]:
    """Normalized axes (unique) and their requested lengths (None: as is)."""
    if axes is None:
        count = len(s) if s is not None else (default_last or x.ndim)
        axes = list(range(x.ndim - count, x.ndim))
    else:
        axes = [canonicalize_axis(a, x.ndim, f"fft.{fn}") for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"jnp.fft.{fn}: axes {tuple(axes)} repeat an axis")
    if s is None:
        return axes, [None] * len(axes)
    s = [operator.index(n) for n in s]
    if len(s) != len(axes):
        raise ValueError(f"jnp.fft.{fn}: s {tuple(s)} and axes {tuple(axes)} must have the same length")
    for n in s:
        if n < 1:
            raise ValueError(f"jnp.fft.{fn}: invalid number of data points ({n}) specified")
    return axes, s


def _complex_input(a: Any, fn: str) -> Any:
    x = asarray(a, fn=f"fft.{fn}")
    if x.dtype == np.bool_ or dtypes.is_int(x.dtype):  # as JAX: int32 -> complex64, int64 -> complex128
        x = lax.convert_element_type(x, dtypes.to_inexact(x.dtype), False)
    if not dtypes.is_complex(x.dtype):
        x = lax.convert_element_type(x, dtypes.complex_dtype(x.dtype))
    return x


def _real_input(a: Any, fn: str) -> Any:
    x = asarray(a, fn=f"fft.{fn}")
    if dtypes.is_complex(x.dtype):
        raise TypeError(f"jnp.fft.{fn} does not support complex input, got {x.dtype.name}")
    if x.dtype == np.bool_ or dtypes.is_int(x.dtype):  # as JAX: int32 -> float32, int64 -> float64
        x = lax.convert_element_type(x, dtypes.to_inexact(x.dtype), False)
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"jnp.fft.{fn}: RFFT input must be float32 or float64, got {x.dtype.name}")
    return x


def _scale(x: Any, factor: float) -> Any:
    return x if factor == 1.0 else lax.mul(x, lax.full_like(x, factor))


def _complex_nd(a: Any, s: Any, axes: Any, norm: str | None, inverse: bool, fn: str,
                default_last: int | None = None) -> Any:
    x = _complex_input(a, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn, default_last)
    total = 1
    for axis, n in zip(axes, sizes):
        x = _resize(x, axis, n if n is not None else x.shape[axis])
        if x.shape[axis] == 0:
            raise ValueError(f"jnp.fft.{fn}: invalid number of data points (0) specified")
        total *= x.shape[axis]
        x = _on_axis(x, axis, FftType.IFFT if inverse else FftType.FFT)
    return _scale(x, _norm_scale(norm, total, inverse, fn))


def _on_axis(x: Any, axis: int, kind: FftType, n: int | None = None) -> Any:
    """`lax.fft` of one kind along `axis`, where it is."""
    return fft_along(x, kind, axis, n)


def _real_nd(a: Any, s: Any, axes: Any, norm: str | None, fn: str, default_last: int | None = None) -> Any:
    """rfftn: rfft along the last of `axes`, then fft along the others."""
    x = _real_input(a, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn, default_last)
    total = 1
    for axis, n in zip(axes, sizes):
        x = _resize(x, axis, n if n is not None else x.shape[axis])
        total *= x.shape[axis]
    x = _on_axis(x, axes[-1], FftType.RFFT)
    for axis in axes[:-1]:
        x = _on_axis(x, axis, FftType.FFT)
    return _scale(x, _norm_scale(norm, total, False, fn))


def _inverse_real_nd(a: Any, s: Any, axes: Any, norm: str | None, fn: str,
                     default_last: int | None = None) -> Any:
    """irfftn: ifft along all but the last of `axes`, then irfft along it
    (its output length s[-1], by default 2 * (m - 1))."""
    x = _complex_input(a, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn, default_last)
    last_n = sizes[-1] if sizes[-1] is not None else 2 * (x.shape[axes[-1]] - 1)
    if last_n < 1:
        raise ValueError(f"jnp.fft.{fn}: invalid number of data points ({last_n}) specified")
    total = last_n
    for axis, n in zip(axes[:-1], sizes[:-1]):
        x = _resize(x, axis, n if n is not None else x.shape[axis])
        total *= x.shape[axis]
        x = _on_axis(x, axis, FftType.IFFT)
    x = _resize(x, axes[-1], last_n // 2 + 1)
    x = _on_axis(x, axes[-1], FftType.IRFFT, last_n)
    return _scale(x, _norm_scale(norm, total, True, fn))


def _one(n: int | None) -> list[int] | None:
    return None if n is None else [n]


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The 1-D discrete Fourier transform along `axis`."""
    return _complex_nd(a, _one(n), [axis], norm, False, "fft")


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of `fft` (divides by n by default)."""
    return _complex_nd(a, _one(n), [axis], norm, True, "ifft")


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a real array: the n//2 + 1 non-negative frequencies."""
    return _real_nd(a, _one(n), [axis], norm, "rfft")


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of `rfft`: a real array of length n (default 2 * (m - 1))."""
    return _inverse_real_nd(a, _one(n), [axis], norm, "irfft")


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum."""
    inverse_norm = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}
    if norm not in inverse_norm:
        _norm_scale(norm, 1, False, "hfft")  # raises, naming the bad value
    return irfft(lax.conj(_complex_input(a, "hfft")), n, axis, inverse_norm[norm])


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of `hfft`: conj(rfft(a)) / n."""
    inverse_norm = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}
    if norm not in inverse_norm:
        _norm_scale(norm, 1, False, "ihfft")
    return lax.conj(rfft(a, n, axis, inverse_norm[norm]))


def fftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Any:
    """The n-D transform over `axes` (default all, or the last len(s))."""
    return _complex_nd(a, s, axes, norm, False, "fftn")


def ifftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """The inverse of `fftn`."""
    return _complex_nd(a, s, axes, norm, True, "ifftn")


def rfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """The n-D transform of a real array (the last axis halved)."""
    return _real_nd(a, s, axes, norm, "rfftn")


def irfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:
    """The inverse of `rfftn`."""
    return _inverse_real_nd(a, s, axes, norm, "irfftn")


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """`fftn` over two axes (the last two by default)."""
    return _complex_nd(a, s, axes, norm, False, "fft2")


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """The inverse of `fft2`."""
    return _complex_nd(a, s, axes, norm, True, "ifft2")


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """`rfftn` over two axes."""
    return _real_nd(a, s, axes, norm, "rfft2")


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Any:
    """The inverse of `rfft2`."""
    return _inverse_real_nd(a, s, axes, norm, "irfft2")


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an n-point transform: [0, 1, ..., -1] / (d n)."""
    n = operator.index(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return place(_frequencies(k, n, d, dtype), device, "jnp.fft.fftfreq")


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of `rfft`: [0, 1, ..., n//2] / (d n)."""
    n = operator.index(n)
    return place(_frequencies(np.arange(0, n // 2 + 1), n, d, dtype), device, "jnp.fft.rfftfreq")


def _frequencies(k: np.ndarray, n: int, d: Any, dtype: Any) -> Any:
    dtype = dtypes.canonicalize(dtype) if dtype is not None else dtypes.default_float()
    numerator, denominator = promote_args_inexact("true_divide", lax.constant(k.astype(dtype)),
                                                  asarray(d, fn="fft.fftfreq") * n)
    return lax.div(numerator, denominator).astype(dtype)  # jnp.true_divide


def _shift(x: Any, axes: Any, fn: str, inverse: bool) -> Any:
    from ._shape import roll
    x = asarray(x, fn=f"fft.{fn}")
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    shifts = [(-(x.shape[a] // 2) if inverse else x.shape[a] // 2) for a in axes]
    return roll(x, tuple(shifts), tuple(axes))


def fftshift(x: Any, axes: Any = None) -> Any:
    """The zero frequency moved to the center (a roll by n//2 along `axes`)."""
    return _shift(x, axes, "fftshift", False)


def ifftshift(x: Any, axes: Any = None) -> Any:
    """The inverse of `fftshift`."""
    return _shift(x, axes, "ifftshift", True)
