"""Spectral analysis for `jaxc.scipy.signal`: the short-time Fourier
transform (`stft`) and its inverse (`istft`), and Welch's estimates of the
power and cross spectral densities (`welch`, `csd`), with
`jax.scipy.signal`'s signatures, defaults, dtypes and errors.

    f, t, Z = stft(x, nperseg=64)          # Z: (..., freqs, segments)
    t, y = istft(Z, nperseg=64)            # y[..., :len(x)] ~ x
    f, P = welch(x, nperseg=64, average="median")

A signal is cut into segments of `nperseg` samples, `nperseg - noverlap`
apart; each is detrended, multiplied by the window and transformed by an
FFT of `nfft` points. Windows given by name ('hann', or any name or
(name, parameter) tuple that `scipy.signal.get_window` accepts, periodic as
SciPy's) are built on the host; 'hann' needs no SciPy.

As JAX does (and unlike SciPy), `welch`/`csd` with `nperseg=None` use the
whole signal as one segment, a callable `detrend` receives the segments
with the segment-index axis moved last (JAX's arrangement), and `istft`
takes `noverlap=0` (or `nperseg=0`) as "not given".
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import core, dtypes, numpy as jnp
from ..numpy._util import canonicalize_axis, check_arraylike, promote_dtypes_inexact

__all__ = ["csd", "istft", "stft", "welch"]

# Above this many `step`-sample blocks per segment, segments are gathered
# (and overlap-added by a scatter) instead of sliced from reshaped blocks.
_MAX_BLOCKS_PER_SEGMENT = 8


def _static_int(value: Any, what: str) -> int:
    """`int(value)`, which must be known while tracing (JAX's ConcretizationTypeError otherwise)."""
    if isinstance(value, core.Tracer):
        value = core.concrete(value, what)
    return int(value)


def _named_window(window: Any, nperseg: int, dtype: Any) -> Any:
    """The periodic window `window` (a name or a (name, parameters...) tuple)
    of `nperseg` points, as an array of `dtype`."""
    if isinstance(window, str) and window == "hann":
        values = np.ones(1) if nperseg == 1 else np.sin(np.linspace(0, np.pi, nperseg, endpoint=False)) ** 2
    else:
        try:
            from scipy.signal import get_window
        except ImportError as err:
            raise ImportError(f"scipy must be available to use window={window!r}") from err
        values = get_window(window, nperseg)
    return jnp.asarray(np.asarray(values), dtype=dtype)


def _window_and_length(window: Any, nperseg: int | None, signal_length: int, dtype: Any) -> tuple[Any, int]:
    """The window as an array and the segment length. A named window has
    `nperseg` points (the whole signal when None, and at most that, with a
    warning); an array window sets the length itself."""
    if isinstance(window, (str, tuple)):
        length = signal_length if nperseg is None else nperseg
        if length > signal_length:
            warnings.warn(f"nperseg={length} is greater than input_length={signal_length}, "
                          f"using nperseg={signal_length}")
            length = signal_length
        return _named_window(window, length, dtype), length
    win = jnp.asarray(window, dtype=dtype)
    length = win.size if nperseg is None else nperseg
    if win.ndim != 1:
        raise ValueError(f"window must be 1-D, got an array of shape {win.shape}")
    if signal_length < win.size:
        raise ValueError(f"window is longer than input signal ({win.size} > {signal_length} samples)")
    if length != win.size:
        raise ValueError(f"value specified for nperseg ({length}) is different from length of window ({win.size})")
    return win, length


def _segments(x: Any, nperseg: int, step: int) -> Any:
    """The segments of `x` along its last axis: (..., count, nperseg), the
    k-th starting at sample k * step."""
    *batch, length = x.shape
    count = (length - nperseg) // step + 1
    blocks_per_segment = -(-nperseg // step)
    if blocks_per_segment > _MAX_BLOCKS_PER_SEGMENT:
        starts = np.arange(count) * step
        return x[..., starts[:, None] + np.arange(nperseg)]
    # Cut the signal into blocks of `step` samples: segment k is blocks
    # k .. k + blocks_per_segment - 1, trimmed to nperseg samples.
    nblocks = count + blocks_per_segment - 1
    used = nblocks * step
    if used > length:
        x = jnp.pad(x, [(0, 0)] * len(batch) + [(0, used - length)])
    blocks = x[..., :used].reshape(*batch, nblocks, step)
    columns = [blocks[..., j:j + count, :] for j in range(blocks_per_segment)]
    return jnp.concatenate(columns, axis=-1)[..., :nperseg]


def _overlap_add(segments: Any, step: int) -> Any:
    """The inverse arrangement of `_segments`: (..., count, nperseg) summed
    into (..., (count - 1) * step + nperseg), segment k placed at k * step."""
    *batch, count, nperseg = segments.shape
    length = (count - 1) * step + nperseg
    blocks_per_segment = -(-nperseg // step)
    if blocks_per_segment > _MAX_BLOCKS_PER_SEGMENT:
        positions = (np.arange(count) * step)[:, None] + np.arange(nperseg)
        return jnp.zeros((*batch, length), segments.dtype).at[..., positions].add(segments)
    nblocks = count + blocks_per_segment - 1
    padded = jnp.pad(segments, [(0, 0)] * (len(batch) + 1) + [(0, blocks_per_segment * step - nperseg)])
    parts = padded.reshape(*batch, count, blocks_per_segment, step)
    total: Any = None
    for j in range(blocks_per_segment):
        shifted = jnp.pad(parts[..., j, :], [(0, 0)] * len(batch) + [(j, blocks_per_segment - 1 - j), (0, 0)])
        total = shifted if total is None else total + shifted
    return total.reshape(*batch, nblocks * step)[..., :length]


def _odd_extension(x: Any, n: int) -> Any:
    """`x` extended by `n` samples at both ends of its last axis, point-
    symmetrically about the end samples."""
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. "
                         f"It must not exceed x.shape[axis]-1, which is {x.shape[-1] - 1}.")
    first, last = x[..., :1], x[..., -1:]
    before = 2 * first - jnp.flip(x[..., 1:n + 1], axis=-1)
    after = 2 * last - jnp.flip(x[..., -n - 1:-1], axis=-1)
    return jnp.concatenate([before, x, after], axis=-1)


def _pad_last(mode: str) -> Callable[[Any, int], Any]:
    def extend(x: Any, n: int) -> Any:
        return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode)
    return extend


_BOUNDARIES: dict[Any, Callable[[Any, int], Any]] = {
    "even": _pad_last("reflect"),
    "odd": _odd_extension,
    "constant": _pad_last("edge"),
    "zeros": _pad_last("constant"),
    None: lambda x, n: x,
}


def _detrender(detrend: Any, axis: int) -> Callable[[Any], Any]:
    """The function applied to the segments (..., count, nperseg) before windowing."""
    if isinstance(detrend, str):
        from .signal import detrend as detrend_along

        return lambda segments: detrend_along(segments, axis=-1, type=detrend)
    if callable(detrend):
        # JAX hands the callable the segments with axis `axis` (of the
        # input) moved last, and moves it back afterwards.
        return lambda segments: jnp.moveaxis(detrend(jnp.moveaxis(segments, axis, -1)), -1, axis)
    if not detrend:
        return lambda segments: segments
    raise ValueError(f"Unsupported detrend type: {detrend!r} (expected 'constant', 'linear', False or a callable)")


def _segment_spectra(x: Any, win: Any, detrend_segments: Callable[[Any], Any], nperseg: int, step: int,
                     nfft: int, onesided: bool) -> Any:
    """The FFTs of the detrended, windowed segments of `x` (time on the last
    axis): (..., count, frequencies)."""
    segments = detrend_segments(_segments(x, nperseg, step))
    if jnp.iscomplexobj(win) and not jnp.iscomplexobj(segments):
        segments = segments.astype(dtypes.complex_dtype(segments.dtype))
    segments = win * segments
    if onesided:
        return jnp.fft.rfft(jnp.real(segments), n=nfft)
    return jnp.fft.fft(segments, n=nfft)


def _spectral(x: Any, y: Any, fs: Any, window: Any, nperseg: Any, noverlap: Any, nfft: Any, detrend: Any,
              return_onesided: bool, scaling: str, axis: Any, is_stft: bool, boundary: Any = None,
              padded: bool = False) -> tuple[Any, Any, Any]:
    """(frequencies, segment times, per-segment spectra) of `x` (with `y`,
    cross spectra; `is_stft`, the scaled FFTs themselves), the frequency
    axis at `axis` and the segments on the last axis."""
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: {list(_BOUNDARIES)}")
    name = "stft" if is_stft else "csd"
    if y is None:
        (x,) = promote_dtypes_inexact(name, x)
        axis = canonicalize_axis(axis, x.ndim, name)
        outer_shape = x.shape[:axis] + x.shape[axis + 1:]
    else:
        x, y = promote_dtypes_inexact(name, x, y)
        if x.ndim != y.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        axis = canonicalize_axis(axis, x.ndim, name)
        try:
            outer_shape = jnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:], y.shape[:axis] + y.shape[axis + 1:])
        except ValueError as err:
            raise ValueError(f"x and y cannot be broadcast together (shapes {x.shape} and {y.shape}, "
                             f"axis {axis}).") from err
    result_dtype = dtypes.complex_dtype(x.dtype)
    real_dtype = dtypes.real_dtype(result_dtype)

    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError(f"nperseg must be a positive integer, got {nperseg}")
    win, nperseg = _window_and_length(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(noverlap, "noverlap of windowed-FFT")
    nfft = nperseg if nfft is None else _static_int(nfft, "nfft of windowed-FFT")

    if x.size == 0 or (y is not None and y.size == 0):
        length = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = outer_shape[:axis] + (length,) + outer_shape[axis:]
        return jnp.zeros(shape, real_dtype), jnp.zeros(shape, real_dtype), jnp.zeros(shape, result_dtype)

    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        y = jnp.moveaxis(y, axis, -1)
        longest = max(x.shape[-1], y.shape[-1])
        x, y = (jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, longest - a.shape[-1])]) for a in (x, y))

    if nfft < nperseg:
        raise ValueError(f"nfft must be greater than or equal to nperseg (nfft={nfft}, nperseg={nperseg}).")
    if noverlap >= nperseg:
        raise ValueError(f"noverlap must be less than nperseg (noverlap={noverlap}, nperseg={nperseg}).")
    step = nperseg - noverlap

    signals = [x] if y is None else [x, y]
    signals = [_BOUNDARIES[boundary](s, nperseg // 2) for s in signals]
    if padded:
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [jnp.pad(s, [(0, 0)] * (s.ndim - 1) + [(0, extra)]) for s in signals]
    length = signals[0].shape[-1]

    detrend_segments = _detrender(detrend, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling!r} (expected 'density' or 'spectrum')")
    if is_stft:
        scale = jnp.sqrt(scale)

    onesided = bool(return_onesided)
    if onesided and jnp.iscomplexobj(x):
        warnings.warn("Input data is complex, switching to return_onesided=False")
        onesided = False
    if onesided:
        freqs = jnp.fft.rfftfreq(nfft, 1 / fs, dtype=real_dtype)
    else:
        freqs = jnp.fft.fftfreq(nfft, 1 / fs, dtype=real_dtype)

    spectra = [_segment_spectra(s, win, detrend_segments, nperseg, step, nfft, onesided) for s in signals]
    if is_stft:
        result = (spectra[0] * scale).astype(result_dtype)
    elif y is None:  # the auto-spectrum |X|^2 is real
        power = jnp.real(spectra[0]) ** 2 + jnp.imag(spectra[0]) ** 2
        result = (power * jnp.real(scale)).astype(real_dtype)
    else:
        result = (jnp.conj(spectra[0]) * spectra[1] * scale).astype(result_dtype)
    if onesided and not is_stft:
        # Fold in the negative frequencies: double all but 0 (and nfft/2 when nfft is even).
        weights = np.full(freqs.shape[0], 2.0)
        weights[0] = 1.0
        if nfft % 2 == 0:
            weights[-1] = 1.0
        result = result * weights.astype(real_dtype)

    times = jnp.asarray(np.arange(nperseg / 2, length - nperseg / 2 + 1, step).astype(real_dtype)) / fs
    if boundary is not None:
        times = times - (nperseg / 2) / fs
    return freqs, times, jnp.moveaxis(result, -1, axis)


def _median_bias(n: int) -> float:
    """How much smaller the median of n periodograms is than their mean
    (for chi-squared distributed values with 2 degrees of freedom)."""
    k = np.arange(2.0, n, 2.0)
    return float(1.0 + np.sum(1.0 / (k + 1.0) - 1.0 / k))


def stft(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int = 256, noverlap: int | None = None,
         nfft: int | None = None, detrend: Any = False, return_onesided: bool = True, boundary: str | None = "zeros",
         padded: bool = True, axis: int = -1) -> tuple[Any, Any, Any]:
    """Short-time Fourier transform (`scipy.signal.stft`): returns (f, t, Zxx)
    with the frequencies on `axis` and the segments last; `boundary` extends
    the signal by nperseg // 2 samples at each end ('zeros', 'even', 'odd',
    'constant' or None) and `padded` zero-pads it to a whole segment."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, "spectrum", axis,
                     is_stft=True, boundary=boundary, padded=padded)


def csd(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None,
        noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1,
        average: str = "mean") -> tuple[Any, Any]:
    """Cross spectral density by Welch's method (`scipy.signal.csd`): the
    mean (or bias-corrected median, of real and imaginary parts apart) over
    segments of conj(X) Y. Returns (f, Pxy); `y=None` gives the real PSD of x."""
    freqs, _, per_segment = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                                      scaling, axis, is_stft=False)
    if per_segment.ndim < 2 or per_segment.size == 0:
        return freqs, per_segment
    if per_segment.shape[-1] == 1:
        return freqs, per_segment[..., 0]
    if average == "mean":
        return freqs, per_segment.mean(axis=-1)
    if average == "median":
        bias = _median_bias(per_segment.shape[-1])
        if jnp.iscomplexobj(per_segment):
            median = (jnp.median(jnp.real(per_segment), axis=-1)
                      + 1j * jnp.median(jnp.imag(per_segment), axis=-1))
        else:
            median = jnp.median(per_segment, axis=-1)
        return freqs, median / np.asarray(bias, median.dtype)
    raise ValueError(f'average must be "median" or "mean", got {average!r}')


def welch(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None, noverlap: int | None = None,
          nfft: int | None = None, detrend: Any = "constant", return_onesided: bool = True,
          scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple[Any, Any]:
    """Power spectral density by Welch's method (`scipy.signal.welch`): the
    averaged periodograms of overlapping windowed segments. Returns (f, Pxx)."""
    freqs, power = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                       detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
                       average=average)
    return freqs, jnp.real(power)


def istft(Zxx: Any, fs: Any = 1.0, window: Any = "hann", nperseg: int | None = None, noverlap: int | None = None,
          nfft: int | None = None, input_onesided: bool = True, boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2) -> tuple[Any, Any]:
    """Inverse short-time Fourier transform (`scipy.signal.istft`) by
    weighted overlap-add: returns (t, x). `boundary=True` drops the
    nperseg // 2 samples `stft` added at each end."""
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError(f"Input stft must be at least 2d! Got shape {Zxx.shape}.")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim, "istft")
    time_axis = canonicalize_axis(time_axis, Zxx.ndim, "istft")
    if freq_axis == time_axis:
        raise ValueError(f"Must specify differing time and frequency axes! Both are {time_axis}.")
    Zxx = Zxx.astype(dtypes.complex_dtype(dtypes.to_inexact(Zxx.dtype)))

    default_length = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg = _static_int(nperseg or default_length, "nperseg: segment length of STFT")
    if nperseg < 1:
        raise ValueError(f"nperseg must be a positive integer, got {nperseg}")
    if nfft is None:
        nfft = default_length + 1 if input_onesided and nperseg == default_length + 1 else default_length
    else:
        nfft = _static_int(nfft, "nfft of STFT")
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = _static_int(noverlap or nperseg // 2, "noverlap of STFT")
    if noverlap >= nperseg:
        raise ValueError(f"noverlap must be less than nperseg (noverlap={noverlap}, nperseg={nperseg}).")
    step = nperseg - noverlap

    outer = tuple(i for i in range(Zxx.ndim) if i not in (freq_axis, time_axis))
    Zxx = jnp.transpose(Zxx, outer + (time_axis, freq_axis))  # (..., segments, frequencies)
    if input_onesided:
        segments = jnp.fft.irfft(Zxx, n=nfft, axis=-1)
    else:
        segments = jnp.fft.ifft(Zxx, n=nfft, axis=-1)
    segments = segments[..., :nperseg]

    if isinstance(window, (str, tuple)):
        win = _named_window(window, nperseg, segments.dtype)
    else:
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ValueError(f"window must be 1-D, got an array of shape {win.shape}")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}, got {win.shape[0]}")
    segments = segments * win.sum()  # undoes stft's 'spectrum' scaling

    x = _overlap_add(segments * win, step)
    norm = _overlap_add(jnp.broadcast_to(win * win, (segments.shape[-2], nperseg)), step)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)

    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    times = jnp.arange(x.shape[0], dtype=dtypes.real_dtype(x.dtype)) / fs
    return times, x
