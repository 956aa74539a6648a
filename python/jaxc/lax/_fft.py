"""`lax.fft`: fast Fourier transforms as programs of jaxc ops.

A 1-D transform of length n along the last axis (the other axes flattened
into rows) is built at trace time:

- n at most `_DFT_MAX`: one dot_general with the DFT matrix;
- n a power of two: iterative radix-2. The rows are put in bit-reversed
  order (a gather), then one `lax.scan` step per butterfly stage computes
  ``y = x[:, a] + t * x[:, b]`` from index and twiddle tables (constants
  computed in float64), so the IR is the same size for every n;
- any other n: Bluestein's algorithm, a convolution of power-of-two length
  M >= 2n - 1 done with the radix-2 transform.

Every length costs O(n log n). The inverse is ``conj(fft(conj(x))) / n``.
Everything is ordinary jaxc ops, so jit, grad and vmap apply unchanged (an
eager call runs the ops as one jitted program):

    lax.fft(x, FftType.FFT, (8,))    # x: complex64[3, 8]
      -> %w = jaxc.constant ... : tensor<8x8xcomplex<f32>>
         jaxc.dot_general %x, %w, contract = [1] x [0]
    lax.fft(x, FftType.FFT, (64,))
      -> jaxc.gather (bit reversal), jaxc.scan over 6 stages {gather, gather, mul, add}
"""
from __future__ import annotations

import enum
import operator
from typing import Any, Sequence

import numpy as np

from .. import core, dtypes
from . import _ops

_DFT_MAX = 16  # lengths up to this are one dot_general with the DFT matrix


class FftType(enum.IntEnum):
    """The transform `lax.fft` computes (JAX's `lax.FftType`)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _constant(values: np.ndarray, dtype: np.dtype) -> Any:
    return _ops.constant(values.astype(dtype))


def _dft(x: Any) -> Any:
    """x @ W along the last axis, W[j, k] = exp(-2 pi i j k / n)."""
    n = x.shape[-1]
    jk = np.outer(np.arange(n), np.arange(n)) % n  # exact exponents
    w = _constant(np.exp(-2j * np.pi * jk / n), x.dtype)
    return _ops.dot_general(x, w, (([1], [0]), ([], [])))


def _radix2_tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For n = 2^bits: the bit-reversal permutation and, per butterfly stage
    s (blocks of 2L, L = 2^s), indices a, b and factors t with
    y[k] = x[a[k]] + t[k] * x[b[k]]."""
    bits = n.bit_length() - 1
    k = np.arange(n)
    reverse = np.zeros(n, np.int64)
    for bit in range(bits):
        reverse |= ((k >> bit) & 1) << (bits - 1 - bit)
    a, b, t = [], [], []
    for stage in range(bits):
        half = 1 << stage
        j = k % (2 * half)
        low = j < half
        twiddle = np.exp(-2j * np.pi * np.where(low, j, j - half) / (2 * half))
        a.append(np.where(low, k, k - half))
        b.append(np.where(low, k + half, k))
        t.append(np.where(low, twiddle, -twiddle))
    return reverse, np.array(a), np.array(b), np.array(t)


def _radix2(x: Any) -> Any:
    """Iterative radix-2 (n a power of two): the bit-reversed rows, then one
    `lax.scan` step per butterfly stage, y = x[:, a] + t * x[:, b] (gathers
    with the stage's index tables). The IR is the same for every n."""
    from ._control_flow import scan

    reverse, a, b, t = _radix2_tables(x.shape[1])
    index_dtype = dtypes.canonicalize(np.int32)
    x = _take_columns(x, _ops.constant(reverse.astype(index_dtype)))

    def stage(carry: Any, tables: Any) -> tuple[Any, None]:
        a_s, b_s, t_s = tables
        twiddled = _ops.mul(_ops.broadcast_in_dim(t_s, carry.shape, (1,)), _take_columns(carry, b_s))
        return _ops.add(_take_columns(carry, a_s), twiddled), None
    x, _ = scan(stage, x, (_ops.constant(a.astype(index_dtype)), _ops.constant(b.astype(index_dtype)),
                           _constant(t, x.dtype)))
    return x


def _take_columns(x: Any, columns: Any) -> Any:
    """x[:, columns] for a 1-D integer array of in-range columns."""
    from ..numpy._shape import take
    return take(x, columns, axis=1, mode="clip")


def _bluestein(x: Any) -> Any:
    """X_k = c_k * sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(-i pi j^2 / n): a
    linear convolution, done as a cyclic one of power-of-two length."""
    rows, n = x.shape
    m = 1 << (2 * n - 2).bit_length()
    chirp = np.exp(-1j * np.pi * ((np.arange(n) ** 2) % (2 * n)) / n)  # j^2 mod 2n: exact
    kernel = np.zeros(m, np.complex128)
    kernel[:n] = np.conj(chirp)
    kernel[m - n + 1:] = np.conj(chirp[1:])[::-1]
    kernel_hat = _constant(np.fft.fft(kernel), x.dtype)
    chirp_c = _constant(chirp, x.dtype)
    a = _ops.mul(x, _ops.broadcast_in_dim(chirp_c, x.shape, (1,)))
    a = _ops.pad(a, _ops.full((), 0, x.dtype), [(0, 0, 0), (0, m - n, 0)])
    a_hat = _forward(a)
    product = _ops.mul(a_hat, _ops.broadcast_in_dim(kernel_hat, a_hat.shape, (1,)))
    conv = _ops.slice_in_dim(_inverse_rows(product), 0, n, axis=1)
    return _ops.mul(conv, _ops.broadcast_in_dim(chirp_c, conv.shape, (1,)))


def _forward(x: Any) -> Any:
    """The unnormalized DFT of each row of a 2-D complex array."""
    n = x.shape[1]
    if n <= 1 or x.size == 0:
        return x
    if n <= _DFT_MAX:
        return _dft(x)
    if n & (n - 1) == 0:
        return _radix2(x)
    return _bluestein(x)


def _inverse_rows(x: Any) -> Any:
    """The inverse DFT of each row: conj(fft(conj(x))) / n."""
    n = x.shape[1]
    out = _ops.conj(_forward(_ops.conj(x)))
    return _ops.div(out, _ops.full_like(out, max(n, 1)))


def _last_axis(transform: Any) -> Any:
    """`transform` of rows, applied along the last axis of any array (the
    other axes flattened: the recursion's loops stay two deep)."""
    def apply(x: Any) -> Any:
        *batch, n = x.shape
        rows = int(np.prod(batch, dtype=np.int64))
        return _ops.reshape(transform(_ops.reshape(x, (rows, n))), x.shape)
    return apply


_fft_last, _ifft_last = _last_axis(_forward), _last_axis(_inverse_rows)


def _along(x: Any, axis: int, fn: Any) -> Any:
    """`fn` (a transform of the last axis) applied along `axis`."""
    last = x.ndim - 1
    if axis == last:
        return fn(x)
    perm = [d for d in range(x.ndim) if d != axis] + [axis]
    back = np.argsort(perm)
    return _ops.transpose(fn(_ops.transpose(x, tuple(perm))), tuple(int(d) for d in back))


def _hermitian_full(x: Any, n: int) -> Any:
    """The full spectrum of length n whose first n//2+1 entries are `x`
    (the rest the conjugates mirrored), as irfft reads it."""
    keep = n // 2 + 1
    last = x.ndim - 1
    x = _ops.slice_in_dim(x, 0, keep, axis=last)
    mirrored_count = n - keep
    if mirrored_count == 0:
        return x
    mirror = _ops.rev(_ops.conj(_ops.slice_in_dim(x, 1, 1 + mirrored_count, axis=last)), (last,))
    return _ops.concatenate([x, mirror], last)


def fft(operand: Any, fft_type: Any, fft_lengths: Sequence[int]) -> Any:
    """Transforms over the last ``len(fft_lengths)`` axes (1 to 3):
    FFT/IFFT of a complex array, RFFT of a real one (the last axis becomes
    n//2 + 1), IRFFT back to a real array whose last axis is fft_lengths[-1].
    IFFT and IRFFT divide by the number of points, as XLA's."""
    x = _ops._array(operand, "fft")
    try:
        kind = FftType(fft_type) if not isinstance(fft_type, str) else FftType[fft_type.upper()]
    except (KeyError, ValueError):
        raise ValueError(f"lax.fft: unknown fft_type {fft_type!r} (use lax.FftType.FFT, IFFT, RFFT or IRFFT)") \
            from None
    lengths = tuple(operator.index(n) for n in fft_lengths)
    if not 1 <= len(lengths) <= 3 or len(lengths) > x.ndim:
        raise ValueError(f"lax.fft: fft_lengths {lengths} must name 1 to 3 trailing axes of an array of "
                         f"rank {x.ndim}")
    axes = list(range(x.ndim - len(lengths), x.ndim))
    if kind == FftType.RFFT:
        if not dtypes.is_float(x.dtype) or x.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"lax.fft: RFFT needs a float32 or float64 operand, got {x.dtype.name}")
        expected = lengths
    else:
        if not dtypes.is_complex(x.dtype):
            raise TypeError(f"lax.fft: {kind.name} needs a complex operand, got {x.dtype.name}")
        expected = lengths[:-1] + (lengths[-1] // 2 + 1,) if kind == FftType.IRFFT else lengths
    got = tuple(x.shape[d] for d in axes)
    if got != expected:
        raise ValueError(f"lax.fft: {kind.name} with fft_lengths {lengths} needs trailing dimensions "
                         f"{expected}, got {got}")
    if core.current_scope() is None:  # eager: one compiled program, not op by op
        return _eager_transform()(x, kind, lengths)
    return _transform(x, kind, lengths)


_EAGER: list = []


def _eager_transform() -> Any:
    if not _EAGER:
        from ..api import jit
        _EAGER.append(jit(_transform, static_argnums=(1, 2)))
    return _EAGER[0]


def _transform(x: Any, kind: FftType, lengths: tuple[int, ...]) -> Any:
    """The checked transform, as ops."""
    axes = list(range(x.ndim - len(lengths), x.ndim))
    if kind == FftType.FFT:
        for axis in axes:
            x = _along(x, axis, _fft_last)
        return x
    if kind == FftType.IFFT:
        for axis in axes:
            x = _along(x, axis, _ifft_last)
        return x
    if kind == FftType.RFFT:
        x = _ops.convert_element_type(x, dtypes.complex_dtype(x.dtype))
        last = x.ndim - 1
        x = _ops.slice_in_dim(_fft_last(x), 0, lengths[-1] // 2 + 1, axis=last)
        for axis in axes[:-1]:
            x = _along(x, axis, _fft_last)
        return x
    for axis in axes[:-1]:
        x = _along(x, axis, _ifft_last)
    return _ops.real(_ifft_last(_hermitian_full(x, lengths[-1])))
