"""`lax.fft`: fast Fourier transforms on `jaxc.dft`.

`jaxc.dft` transforms a real or complex array along one axis, every
sequence at once, into a complex array of the same shape; each transformed
axis is one op. On the CPU the op is a call of the compiled FFT
(`jaxc.runtime`'s fft.c: Stockham, mixed radix, Bluestein, vectorized
across sequences, reading and writing the complex elements where they are,
sequences in rows or in columns); `jaxc-expand-dft` (the GPU, or
``JAXC_CPU_LIBRARY_CALLS=0``) rewrites it into `dft_program`: ordinary
jaxc ops on the parts (re, im) stacked on a leading axis and transposed to
(2, n, C) (C counts the sequences), where a complex product by a constant
matrix is one real matrix product:

    [Yr; Yi] = [[Wr, -Wi], [Wi, Wr]] @ [Xr; Xi]        (2n x 2n) @ (2n x C)

A length n is done there

- at most `_DIRECT_MAX`: as that one product with its DFT matrix;
- n = n1 * n2 with n1 <= `_DIRECT_MAX` (n1 the largest such factor at most
  sqrt(n)): Cooley-Tukey in four steps: the length-n1 DFTs of the n2
  interleaved subsequences (one product), twiddle factors (elementwise),
  a transpose, then the length-n2 transforms of the n1 results (recursively);
- a prime above `_DIRECT_MAX` (or a factor n2 that is one): Bluestein's
  algorithm, a convolution of length M >= 2n - 1, M a power of two.

A real input skips the imaginary half of the first product. RFFT's first
axis is a `jaxc.dft` that keeps the first n//2 + 1 frequencies; IRFFT's
last a `jaxc.hermitian_dft` (n//2 + 1 complex points to n real ones; its
program mirrors the conjugates back in and keeps the real part); the
inverse uses sign +1 and scale 1/n. jit, grad and vmap apply through the
ops' rules (the DFT matrix is symmetric, so the transpose of a DFT is the
same DFT, as in JAX; an eager call runs the ops as one jitted program):

    lax.fft(x, FftType.FFT, (256, 1024))    # x: complex64[256, 1024]
      -> %y = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0
                : tensor<256x1024xcomplex<f32>> -> tensor<256x1024xcomplex<f32>>
         %z = jaxc.dft %y, axis = 1, sign = -1, scale = 1.0
                : tensor<256x1024xcomplex<f32>> -> tensor<256x1024xcomplex<f32>>
"""
from __future__ import annotations

import enum
import math
import operator
from typing import Any, Sequence

import numpy as np
from mlir import ir

import jaxc.dialect as jd

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


def _dft_blocks(n: int, sign: int, scale: float, real_input: bool) -> np.ndarray:
    """The real matrix that maps the stacked parts [re; im] of n points to
    those of scale * Y, Y_k = sum_j X_j exp(sign 2 pi i j k / n): (2n, 2n);
    without the input's imaginary columns for a real input."""
    jk = np.outer(np.arange(n), np.arange(n)) % n  # exact exponents
    w = scale * np.exp(sign * 2j * np.pi * jk / n)  # symmetric: W^T = W
    blocks = np.block([[w.real, -w.imag], [w.imag, w.real]])
    return blocks[:, :n if real_input else 2 * n]


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


def _direct(z: Any, sign: int, scale: float) -> Any:
    """The transform down the columns of z (parts, n <= _DIRECT_MAX): one product."""
    parts, n, columns = z.shape
    w = _constant(_dft_blocks(n, sign, scale, real_input=parts == 1), z.dtype)
    y = _ops.dot_general(w, _ops.reshape(z, (parts * n, columns)), (([1], [0]), ([], [])))
    return _ops.reshape(y, (2, n, columns))


def _factor(n: int) -> int:
    """The largest factor of n that is at most sqrt(n) and _DIRECT_MAX (1 for a prime)."""
    for d in range(min(math.isqrt(n), _DIRECT_MAX), 1, -1):
        if n % d == 0:
            return d
    return 1


def _columns(z: Any, sign: int = -1, scale: float = 1.0) -> Any:
    """scale * the DFT (sign -1; +1: the unscaled inverse) down the columns
    of a stack of parts (1 or 2, n, C) -> (2, n, C)."""
    parts, n, columns = z.shape
    if n == 0 or columns == 0:
        return _ops.full((2, n, columns), 0, z.dtype)
    if n <= _DIRECT_MAX:
        return _direct(z, sign, scale)
    n1 = _factor(n)
    if n1 == 1:
        return _bluestein(z, sign, scale)
    n2 = n // n1
    # j = n2 j1 + j2, k = k1 + n1 k2:  X[k] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 x[j] w_n1^(j1 k1)
    y = _ops.reshape(_direct(_ops.reshape(z, (parts, n1, n2 * columns)), sign, scale), (2, n1, n2, columns))
    y = _times_constant(y, np.exp(sign * 2j * np.pi * np.outer(np.arange(n1), np.arange(n2)) / n))
    y = _ops.transpose(y, (0, 2, 1, 3))  # (2, j2, k1, C)
    y = _columns(_ops.reshape(y, (2, n2, n1 * columns)), sign, 1.0)  # (2, k2, k1 * C)
    return _ops.reshape(y, (2, n, columns))


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


def _result_type(x: Any, axis: int, points: int, complex_result: bool) -> ir.RankedTensorType:
    """`x`'s tensor type with `points` points on `axis`, complex or real
    (the real part type of `x`'s elements)."""
    operand = ir.RankedTensorType(x.type)
    shape = list(operand.shape)
    shape[axis] = points
    part = operand.element_type
    if isinstance(part, ir.ComplexType):
        part = ir.ComplexType(part).element_type
    return ir.RankedTensorType.get(shape, ir.ComplexType.get(part) if complex_result else part)


def _dft_op(x: Any, points: int, axis: int, sign: int, scale: float) -> Any:
    """The op, its result type (complex, `points` frequencies on the axis) spelled out."""
    return jd.DftOp(_result_type(x, axis, points, complex_result=True), x, axis, sign, scale).result


DFT = _ops._primitive("dft", lambda x, points, axis, sign, scale: _dft_op(x, points, axis, sign, scale),
                      weak=_ops._never_weak)


def _hermitian_op(x: Any, n: int, axis: int, sign: int, scale: float) -> Any:
    """The op, its result type (real parts, n points on the axis) spelled out."""
    return jd.HermitianDftOp(_result_type(x, axis, n, complex_result=False), x, axis, sign, scale).result


HERMITIAN_DFT = _ops._primitive("hermitian_dft", lambda x, n, axis, sign, scale: _hermitian_op(x, n, axis, sign, scale),
                                weak=_ops._never_weak)


def real_dtype(dtype: np.dtype) -> np.dtype:
    """float32 for complex64, float64 for complex128."""
    return dtypes.float32 if dtype == dtypes.complex64 else dtypes.float64


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """complex64 for float32 and complex64, complex128 for the 64-bit ones."""
    return dtypes.complex64 if dtype in (dtypes.float32, dtypes.complex64) else dtypes.complex128


def dft(x: Any, sign: int = -1, scale: float = 1.0, axis: int = -1, points: int | None = None) -> Any:
    """`jaxc.dft`: scale * the DFT (sign -1; +1: the unscaled inverse) along
    axis `axis` (negative: from the end) of a real or complex array, complex
    of the same shape, or only its first `points` frequencies on the axis."""
    axis %= x.ndim
    points = x.shape[axis] if points is None else int(points)
    if 0 in x.shape or points == 0:
        shape = list(x.shape)
        shape[axis] = points
        return _ops.full(tuple(shape), 0, complex_dtype(x.dtype))
    return DFT.bind(x, points=points, axis=axis, sign=int(sign), scale=float(scale))


def hermitian_dft(x: Any, n: int, sign: int = 1, scale: float = 1.0, axis: int = -1) -> Any:
    """`jaxc.hermitian_dft`: the real sequences of n points along `axis`
    whose spectrum (sign +1: numpy's irfft for scale 1/n) x holds the first
    n//2 + 1 points of: scale * Re(sum_k X~_k exp(sign 2 pi i j k / n)), X~
    the Hermitian sequence (X~_(n-k) = conj(X~_k))."""
    axis %= x.ndim
    if 0 in x.shape:
        shape = list(x.shape)
        shape[axis] = n
        return _ops.full(tuple(shape), 0, real_dtype(x.dtype))
    return HERMITIAN_DFT.bind(x, n=int(n), axis=axis, sign=int(sign), scale=float(scale))


def hermitian_program(x: Any, n: int, sign: int, scale: float, axis: int) -> Any:
    """`hermitian_dft` as jaxc ops (`jaxc-expand-dft`): the full spectrum
    (the conjugates of points 1 .. n - n//2 - 1, mirrored, after the n//2 + 1
    given), its `dft_program`, the real part."""
    mirrored_count = n - (n // 2 + 1)
    if mirrored_count:
        mirror = _ops.rev(_ops.conj(_slice(x, axis, 1, 1 + mirrored_count)), (axis,))
        x = _ops.concatenate([x, mirror], axis)
    return _ops.real(dft_program(x, sign, scale, axis))


def dft_program(x: Any, sign: int, scale: float, axis: int) -> Any:
    """`dft` as jaxc ops (matrix products, twiddles, transposes on the
    stacked parts: the module docstring), for targets that call no FFT
    library (`jaxc-expand-dft`): the parts of x, the axes before and after
    `axis` each collapsed into one (dropped where empty), become the columns
    (n, C) and back; no transpose for axis 0."""
    shape, n = x.shape, x.shape[axis]
    before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    groups = [*([before] if before > 1 else []), n, *([after] if after > 1 else [])]
    z = _parts(x)
    z = _ops.reshape(z, (z.shape[0], *groups))
    order = (0, 2, 1, 3)[:len(groups) + 1] if before > 1 else tuple(range(len(groups) + 1))
    if before > 1:
        z = _ops.transpose(z, order)
    y = _columns(_ops.reshape(z, (z.shape[0], n, before * after)), sign, scale)
    y = _ops.reshape(y, (2, *[groups[d - 1] for d in order[1:]]))
    if before > 1:
        y = _ops.transpose(y, tuple(int(d) for d in np.argsort(order)))
    return _ops.complex(*(_ops.reshape(_part(y, i), shape) for i in (0, 1)))


def truncated_program(x: Any, sign: int, scale: float, axis: int, points: int) -> Any:
    """`dft_program`, its first `points` frequencies on the axis."""
    y = dft_program(x, sign, scale, axis)
    return y if points == x.shape[axis] else _slice(y, axis, 0, points)


def _forward(x: Any, axis: int) -> Any:
    return dft(x, -1, 1.0, axis)


def _inverse(x: Any, axis: int) -> Any:
    """The inverse DFT along `axis` (1/n times the sum with exp(+2 pi i jk/n))."""
    return dft(x, 1, 1.0 / max(x.shape[axis], 1), axis)


def _parts(x: Any) -> Any:
    """The stack of parts of x: (2, *shape) for a complex x, (1, *shape) for a real one."""
    if dtypes.is_complex(x.dtype):
        return _stack(_ops.real(x), _ops.imag(x))
    return _ops.reshape(x, (1, *x.shape))


def _slice(x: Any, axis: int, start: int, stop: int) -> Any:
    return _ops.slice_in_dim(x, start, stop, axis=axis)


def _real_inverse(x: Any, axis: int, n: int) -> Any:
    """The inverse transform along `axis` of the first n//2 + 1 frequencies
    of a real signal of n points (the rest are their conjugates, mirrored)."""
    return hermitian_dft(_slice(x, axis, 0, n // 2 + 1), n, 1, 1.0 / n, axis)


def fft(operand: Any, fft_type: Any, fft_lengths: Sequence[int]) -> Any:
    """Transforms over the last ``len(fft_lengths)`` axes (1 to 3):
    FFT/IFFT of a complex array, RFFT of a real one (the last axis becomes
    n//2 + 1), IRFFT back to a real array whose last axis is fft_lengths[-1].
    IFFT and IRFFT divide by the number of points, as XLA's."""
    x = _ops._array(operand, "fft")
    kind = _kind(fft_type)
    lengths = tuple(operator.index(n) for n in fft_lengths)
    if not 1 <= len(lengths) <= 3 or len(lengths) > x.ndim:
        raise ValueError(f"lax.fft: fft_lengths {lengths} must name 1 to 3 trailing axes of an array of "
                         f"rank {x.ndim}")
    return _checked(x, kind, lengths, tuple(range(x.ndim - len(lengths), x.ndim)), "trailing dimensions")


def fft_along(operand: Any, fft_type: Any, axis: int, n: int | None = None) -> Any:
    """`fft` of one axis, any axis, where it is (no transposes: `jaxc.dft`
    takes the axis); `n` is the transform's length (IRFFT: the output's,
    default 2 * (m - 1); the others: the axis's size). jnp.fft's steps."""
    x = _ops._array(operand, "fft")
    kind = _kind(fft_type)
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"lax.fft: axis {axis} is out of bounds for an array of rank {x.ndim}")
    axis %= x.ndim
    if n is None:
        n = 2 * (x.shape[axis] - 1) if kind == FftType.IRFFT else x.shape[axis]
    return _checked(x, kind, (operator.index(n),), (axis,), f"dimension {axis}")


def _kind(fft_type: Any) -> FftType:
    try:
        return FftType(fft_type) if not isinstance(fft_type, str) else FftType[fft_type.upper()]
    except (KeyError, ValueError):
        raise ValueError(f"lax.fft: unknown fft_type {fft_type!r} (use lax.FftType.FFT, IFFT, RFFT or IRFFT)") \
            from None


def _checked(x: Any, kind: FftType, lengths: tuple[int, ...], axes: tuple[int, ...], where: str) -> Any:
    """The transform after checking the operand's type and the sizes of `axes`."""
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
        raise ValueError(f"lax.fft: {kind.name} with fft_lengths {lengths} needs {where} "
                         f"{expected}, got {got}")
    if core.current_scope() is None:  # eager: one compiled program, not op by op
        return _eager_transform()(x, kind, lengths, axes)
    return _transform(x, kind, lengths, axes)


_EAGER: list = []


def _eager_transform() -> Any:
    if not _EAGER:
        from ..api import jit
        _EAGER.append(jit(_transform, static_argnums=(1, 2, 3)))
    return _EAGER[0]


def _transform(x: Any, kind: FftType, lengths: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    """The checked transform, as ops: one `jaxc.dft` per axis."""
    if kind == FftType.RFFT:  # the last axis first: a real input to it, its first n//2 + 1 frequencies
        x = dft(x, -1, 1.0, axes[-1], lengths[-1] // 2 + 1)
        axes = axes[:-1]
    inverse = kind in (FftType.IFFT, FftType.IRFFT)
    for axis in axes[:-1] if kind == FftType.IRFFT else axes:
        x = _inverse(x, axis) if inverse else _forward(x, axis)
    if kind == FftType.IRFFT:  # the last axis last: a real output
        return _real_inverse(x, axes[-1], lengths[-1])
    return x
