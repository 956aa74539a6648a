"""`lax.fft`: fast Fourier transforms as programs of jaxc ops.

The transform works on real arrays: a complex array becomes its parts
(re, im) stacked on a leading axis, and each transform runs down the
columns of that stack, (2, n, C) -> (2, n, C), where C counts the
transforms done together (every row of the input). A complex product by a
constant matrix is then one real matrix product of the stack:

    [Yr; Yi] = [[Wr, -Wi], [Wi, Wr]] @ [Xr; Xi]        (2n x 2n) @ (2n x C)

which the contraction schedule packs and vectorizes (complex kernels stay
scalar: docs/toolchain.md). A length n is done

- at most `_DIRECT_MAX`: as that one product with its DFT matrix;
- n = n1 * n2 with n1 <= `_DIRECT_MAX` (n1 the largest such factor at most
  sqrt(n)): Cooley-Tukey in four steps: the length-n1 DFTs of the n2
  interleaved subsequences (one product), twiddle factors (elementwise),
  a transpose, then the length-n2 transforms of the n1 results (recursively);
- a prime above `_DIRECT_MAX` (or a factor n2 that is one): Bluestein's
  algorithm, a convolution of length M >= 2n - 1, M a power of two.

A real input skips the imaginary half of the first product, a real output
(IRFFT) the imaginary half of the last; the inverse uses the conjugate
matrices and twiddles, its 1/n folded into the first product. Each axis is
moved next to the parts axis in turn (a transpose each way; none for the
leading axis). Everything is ordinary jaxc ops, so jit, grad and vmap apply
unchanged (an eager call runs the ops as one jitted program):

    lax.fft(x, FftType.FFT, (1024,))    # x: complex64[256, 1024]
      -> parts (2, 1024, 256): dot_general (64x64) @ (64x8192) [n1 = 32],
         twiddles, transpose, dot_general (64x64) @ (64x8192) [n2 = 32]
"""
from __future__ import annotations

import enum
import math
import operator
from typing import Any, Sequence

import numpy as np

from .. import core, dtypes
from . import _ops

_DIRECT_MAX = 64  # lengths up to this are one real product with the DFT matrix


class FftType(enum.IntEnum):
    """The transform `lax.fft` computes (JAX's `lax.FftType`)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _constant(values: np.ndarray, dtype: np.dtype) -> Any:
    return _ops.constant(values.astype(dtype))


def _dft_blocks(n: int, sign: int, scale: float, real_input: bool, real_output: bool) -> np.ndarray:
    """The real matrix that maps the stacked parts [re; im] of n points to
    those of scale * Y, Y_k = sum_j X_j exp(sign 2 pi i j k / n): (2n, 2n);
    without the input's imaginary columns for a real input, without the
    output's imaginary rows when only the real part is wanted."""
    jk = np.outer(np.arange(n), np.arange(n)) % n  # exact exponents
    w = scale * np.exp(sign * 2j * np.pi * jk / n)  # symmetric: W^T = W
    blocks = np.block([[w.real, -w.imag], [w.imag, w.real]])
    return blocks[:n if real_output else 2 * n, :n if real_input else 2 * n]


def _part(z: Any, index: int) -> Any:
    """z[index] of a stack of parts (2, ...)."""
    return _ops.reshape(_ops.slice_in_dim(z, index, index + 1, axis=0), z.shape[1:])


def _stack(re: Any, im: Any) -> Any:
    return _ops.concatenate([_ops.reshape(re, (1, *re.shape)), _ops.reshape(im, (1, *im.shape))], 0)


def _times_constant(z: Any, table: np.ndarray) -> Any:
    """The parts of z * table, `table` a complex array of z's shape without
    its leading axis and trailing column axis (broadcast over the columns)."""
    shape = z.shape[1:]
    dims = tuple(range(table.ndim))
    tr = _ops.broadcast_in_dim(_constant(table.real, z.dtype), shape, dims)
    ti = _ops.broadcast_in_dim(_constant(table.imag, z.dtype), shape, dims)
    re, im = _part(z, 0), _part(z, 1)
    return _stack(_ops.sub(_ops.mul(re, tr), _ops.mul(im, ti)), _ops.add(_ops.mul(re, ti), _ops.mul(im, tr)))


def _direct(z: Any, sign: int, scale: float, real_output: bool) -> Any:
    """The transform down the columns of z (parts, n <= _DIRECT_MAX): one product."""
    parts, n, columns = z.shape
    w = _constant(_dft_blocks(n, sign, scale, real_input=parts == 1, real_output=real_output), z.dtype)
    y = _ops.dot_general(w, _ops.reshape(z, (parts * n, columns)), (([1], [0]), ([], [])))
    return _ops.reshape(y, (1 if real_output else 2, n, columns))


def _factor(n: int) -> int:
    """The largest factor of n that is at most sqrt(n) and _DIRECT_MAX (1 for a prime)."""
    for d in range(min(math.isqrt(n), _DIRECT_MAX), 1, -1):
        if n % d == 0:
            return d
    return 1


def _columns(z: Any, sign: int = -1, scale: float = 1.0, real_output: bool = False) -> Any:
    """scale * the DFT (sign -1; +1: the unscaled inverse) down the columns
    of a stack of parts (1 or 2, n, C) -> (2, n, C), or (1, n, C): its real part."""
    parts, n, columns = z.shape
    out_parts = 1 if real_output else 2
    if n == 0 or columns == 0:
        return _ops.full((out_parts, n, columns), 0, z.dtype)
    if n <= _DIRECT_MAX:
        return _direct(z, sign, scale, real_output)
    n1 = _factor(n)
    if n1 == 1:
        y = _bluestein(z, sign, scale)
        return _ops.slice_in_dim(y, 0, 1, axis=0) if real_output else y
    n2 = n // n1
    # j = n2 j1 + j2, k = k1 + n1 k2:  X[k] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 x[j] w_n1^(j1 k1)
    y = _ops.reshape(_direct(_ops.reshape(z, (parts, n1, n2 * columns)), sign, scale, False),
                     (2, n1, n2, columns))
    y = _times_constant(y, np.exp(sign * 2j * np.pi * np.outer(np.arange(n1), np.arange(n2)) / n))
    y = _ops.transpose(y, (0, 2, 1, 3))  # (2, j2, k1, C)
    y = _columns(_ops.reshape(y, (2, n2, n1 * columns)), sign, 1.0, real_output)  # (., k2, k1 * C)
    return _ops.reshape(y, (out_parts, n, columns))


def _bluestein(z: Any, sign: int, scale: float) -> Any:
    """X_k = c_k * sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(sign i pi j^2 / n):
    a linear convolution, done as a cyclic one of power-of-two length M."""
    parts, n, columns = z.shape
    if parts == 1:
        z = _ops.concatenate([z, _ops.full(z.shape, 0, z.dtype)], 0)
    m = 1 << (2 * n - 2).bit_length()
    chirp = np.exp(sign * 1j * np.pi * ((np.arange(n) ** 2) % (2 * n)) / n)  # j^2 mod 2n: exact
    kernel = np.zeros(m, np.complex128)
    kernel[:n] = np.conj(chirp)
    kernel[m - n + 1:] = np.conj(chirp[1:])[::-1]
    a = _ops.pad(_times_constant(z, chirp[:, None]), _ops.full((), 0, z.dtype),
                 [(0, 0, 0), (0, m - n, 0), (0, 0, 0)])
    product = _times_constant(_columns(a), np.fft.fft(kernel)[:, None] / m)
    conv = _ops.slice_in_dim(_columns(product, sign=1), 0, n, axis=1)
    return _times_constant(conv, scale * chirp[:, None])


def _conjugate(z: Any) -> Any:
    """conj of a stack of parts: the imaginary part negated."""
    signs = _ops.broadcast_in_dim(_constant(np.array([1.0, -1.0]), z.dtype), z.shape, (0,))
    return _ops.mul(z, signs)


def _inverse_columns(z: Any, real_output: bool = False) -> Any:
    """The inverse DFT down the columns (1/n times the sum with exp(+2 pi i jk/n))."""
    return _columns(z, sign=1, scale=1.0 / max(z.shape[1], 1), real_output=real_output)


def _parts(x: Any) -> Any:
    """The stack of parts of x: (2, *shape) for a complex x, (1, *shape) for a real one."""
    if dtypes.is_complex(x.dtype):
        return _stack(_ops.real(x), _ops.imag(x))
    return _ops.reshape(x, (1, *x.shape))


def _along(z: Any, axis: int, transform: Any) -> Any:
    """`transform` (of columns: (p, n, C) -> (2, n', C)) applied along axis
    `axis` of the array whose parts are z: that axis is moved next to the
    parts axis and every other axis flattened into columns (one transpose
    each way; none for the leading axis)."""
    shape = z.shape[1:]
    others = [d for d in range(len(shape)) if d != axis]
    permutation = (0, axis + 1, *[d + 1 for d in others])
    columns = _ops.reshape(_ops.transpose(z, permutation), (z.shape[0], shape[axis],
                                                           math.prod(shape[d] for d in others)))
    y = transform(columns)
    y = _ops.reshape(y, (y.shape[0], y.shape[1], *[shape[d] for d in others]))
    return _ops.transpose(y, tuple(int(d) for d in np.argsort(permutation)))


def _keep_first(count: int, transform: Any) -> Any:
    """`transform` of columns, only its first `count` rows (RFFT's frequencies)."""
    return lambda z: _ops.slice_in_dim(transform(z), 0, count, axis=1)


def _real_inverse(n: int) -> Any:
    """The inverse transform of columns that hold the first n//2 + 1
    frequencies of a real signal of n points: the full spectrum (the rest
    are the conjugates, mirrored), inverted; only the real part is kept."""
    def transform(z: Any) -> Any:
        kept = _ops.slice_in_dim(z, 0, n // 2 + 1, axis=1)
        mirrored_count = n - (n // 2 + 1)
        if mirrored_count:
            mirror = _ops.rev(_conjugate(_ops.slice_in_dim(kept, 1, 1 + mirrored_count, axis=1)), (1,))
            kept = _ops.concatenate([kept, mirror], 1)
        return _inverse_columns(kept, real_output=True)
    return transform


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
    """The checked transform, as ops: on the parts of x, one axis after another."""
    axes = list(range(x.ndim - len(lengths), x.ndim))
    z = _parts(x)
    if kind == FftType.RFFT:  # the last axis first: a real input to it
        z = _along(z, axes[-1], _keep_first(lengths[-1] // 2 + 1, _columns))
        axes = axes[:-1]
    inverse = kind in (FftType.IFFT, FftType.IRFFT)
    for axis in axes[:-1] if kind == FftType.IRFFT else axes:
        z = _along(z, axis, _inverse_columns if inverse else _columns)
    if kind == FftType.IRFFT:  # the last axis last: a real output
        return _ops.reshape(_along(z, axes[-1], _real_inverse(lengths[-1])), x.shape[:-1] + (lengths[-1],))
    return _ops.complex(_part(z, 0), _part(z, 1))
