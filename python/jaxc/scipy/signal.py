"""`jaxc.scipy.signal`: N-dimensional convolution and correlation (direct, on
`lax.conv_general_dilated`, or by FFT), their 2-D forms, `detrend`, and the
spectral functions `stft`, `istft`, `csd` and `welch` (in `_spectral.py`),
with `jax.scipy.signal`'s signatures, dtypes and errors.

    y = jaxc.scipy.signal.convolve(x, k, mode="same")
    c = jaxc.scipy.signal.correlate2d(image, template, mode="valid")
    z = jaxc.scipy.signal.fftconvolve(x, k, axes=1)   # batched over axis 0
    d = jaxc.scipy.signal.detrend(x, type="linear", bp=[50])
    f, pxx = jaxc.scipy.signal.welch(x, fs=100.0, nperseg=64)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import lax, numpy as jnp
from .._batching import vmap
from ..numpy import linalg as np_linalg
from ..numpy._util import canonicalize_axis, promote_dtypes_inexact
from ._spectral import csd, istft, stft, welch

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve", "istft", "stft",
           "welch"]

_MODES = ("full", "same", "valid")


def _convolve_nd(in1: Any, in2: Any, mode: str, precision: Any) -> Any:
    """Direct N-d convolution: one `conv_general_dilated` with batch and
    feature dimensions of size 1, the smaller input as the (flipped) kernel."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes {in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact("convolve", in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    original_kernel_shape = in2.shape
    if swap:
        in1, in2 = in2, in1
    if mode == "valid":
        padding = [(0, 0)] * in2.ndim
    elif mode == "same":
        # Centred as JAX does: relative to the *second* argument's shape.
        padding = [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2)
                   for s, so in zip(in2.shape, original_kernel_shape)]
    else:
        padding = [(s - 1, s - 1) for s in in2.shape]
    out = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None], (1,) * in2.ndim, padding,
                                   precision=precision)
    return out[0, 0]


def _fftconvolve_unbatched(in1: Any, in2: Any, mode: str) -> Any:
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as "
                             "large as the other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape)):
        conv = in1 * in2
    elif jnp.iscomplexobj(in1):
        conv = jnp.fft.ifftn(jnp.fft.fftn(in1, full_shape) * jnp.fft.fftn(in2, full_shape), full_shape)
    else:
        conv = jnp.fft.irfftn(jnp.fft.rfftn(in1, full_shape) * jnp.fft.rfftn(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape))
    start = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax.dynamic_slice(conv, start, out_shape)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """Convolve two N-d arrays by FFT (`scipy.signal.fftconvolve`); with `axes`,
    only over those axes, the others batched (and of equal sizes)."""
    in1, in2 = promote_dtypes_inexact("fftconvolve", in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")

    def conv(a: Any, b: Any) -> Any:
        return _fftconvolve_unbatched(a, b, mode)

    if axes is None:
        return conv(in1, in2)
    axes = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
    axes = tuple(canonicalize_axis(ax, in1.ndim, "fftconvolve") for ax in axes)
    mapped = set(range(in1.ndim)) - set(axes)
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                         f"in2.shape={in2.shape} axes={axes}")
    for ax in sorted(mapped):
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None) -> Any:
    """Convolution of two N-d arrays (`scipy.signal.convolve`); method 'auto'
    and 'direct' convolve directly, 'fft' by `fftconvolve`."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision)
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None) -> Any:
    """Cross-correlation of two N-d arrays (`scipy.signal.correlate`): the
    convolution with `in2` flipped and conjugated."""
    return convolve(in1, jnp.flip(jnp.conj(jnp.asarray(in2))), mode, method=method, precision=precision)


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: Any) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
               precision: Any = None) -> Any:
    """2-D convolution (`scipy.signal.convolve2d`); as in JAX only
    boundary='fill' with fillvalue=0 (others raise NotImplementedError)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0,
                precision: Any = None) -> Any:
    """2-D cross-correlation (`scipy.signal.correlate2d`), boundary='fill' with
    fillvalue=0 only, arranged as JAX arranges it (so 'same' and swapped
    'valid' inputs are centred as in JAX)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "valid" and swap and in1.shape != in2.shape:
        return _convolve_nd(jnp.flip(in2), jnp.conj(in1), mode, precision)
    if mode == "full" and swap:
        return jnp.conj(_convolve_nd(jnp.flip(in2), jnp.conj(in1), mode, precision))
    return jnp.flip(_convolve_nd(jnp.flip(in1), jnp.conj(in2), mode, precision))


def detrend(data: Any, axis: int = -1, type: str = "linear", bp: Any = 0, overwrite_data: None = None) -> Any:
    """Remove the mean ('constant') or a least-squares line ('linear', one
    per segment between the breakpoints `bp`) along `axis`."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (x,) = promote_dtypes_inexact("detrend", jnp.asarray(data))
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = x.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along given axis.")
    x = jnp.moveaxis(x, axis, 0)
    shape = x.shape
    x = x.reshape(n, -1)
    for lo, hi in zip(breaks[:-1], breaks[1:]):
        npts = int(hi - lo)
        a = jnp.vstack([jnp.ones(npts, dtype=x.dtype),
                        jnp.arange(1, npts + 1, dtype=x.dtype) / np.asarray(npts).astype(x.dtype)]).T
        coef = np_linalg.lstsq(a, x[lo:hi])[0]
        x = x.at[lo:hi].add(-jnp.matmul(a, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(x.reshape(shape), 0, axis)
