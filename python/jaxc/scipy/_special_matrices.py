"""The special matrices of `jax.scipy.linalg` (SciPy's definitions, JAX's
dtypes: float results in the default float dtype, batches over leading
axes where JAX batches):

    toeplitz(c, r)[i, j]  = c[i - j] (i >= j), r[j - i] (i < j)
    hankel(c, r)[i, j]    = c[i + j] (i + j < len(c)), r[i + j - len(c) + 1]
    circulant(c)[i, j]    = c[(i - j) mod n]
    convolution_matrix(a, n) @ x = np.convolve(a, x)   (x of length n)

The constant ones (hilbert, invhilbert, pascal, invpascal, hadamard,
helmert) are computed exactly on the host, then converted.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import numpy as jnp
from ..numpy._util import check_arraylike, promote_dtypes_inexact

__all__ = ["block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
           "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal", "toeplitz"]


def _float_constant(values: np.ndarray) -> Any:
    """A host-computed matrix in the default float dtype."""
    return jnp.asarray(np.asarray(values, np.float64), dtype=float)


def _array(fn: str, x: Any) -> Any:
    """An array argument (lists are a TypeError, as in JAX)."""
    check_arraylike(f"scipy.linalg.{fn}", x)
    return jnp.asarray(x)


def _size(fn: str, n: Any) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"jax.scipy.linalg.{fn}: n must be a non-negative integer, got {n!r}")
    return int(n)


def toeplitz(c: Any, r: Any = None) -> Any:
    """The Toeplitz matrices with first column c and first row r (r[0] is
    ignored; r defaults to c): (..., len(c), len(r)) over broadcast batches."""
    c = jnp.atleast_1d(_array("toeplitz", c))
    r = c if r is None else jnp.atleast_1d(_array("toeplitz", r))
    dtype = jnp.result_type(c, r)
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c = jnp.broadcast_to(c.astype(dtype), (*batch, c.shape[-1]))
    r = jnp.broadcast_to(r.astype(dtype), (*batch, r.shape[-1]))
    m, n = c.shape[-1], r.shape[-1]
    offset = np.arange(m)[:, None] - np.arange(n)[None, :]
    below = jnp.take(c, np.clip(offset, 0, max(m - 1, 0)), axis=-1) if m else jnp.zeros((*batch, 0, n), dtype)
    above = jnp.take(r, np.clip(-offset, 0, max(n - 1, 0)), axis=-1) if n else jnp.zeros((*batch, m, 0), dtype)
    return jnp.where(offset >= 0, below, above)


def hankel(c: Any, r: Any = None) -> Any:
    """The Hankel matrices with first column c and last row r (r[0] is
    ignored; zeros by default): (..., len(c), len(r))."""
    c = jnp.atleast_1d(_array("hankel", c))
    r = jnp.zeros_like(c) if r is None else jnp.atleast_1d(_array("hankel", r))
    dtype = jnp.result_type(c, r)
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    m, n = c.shape[-1], r.shape[-1]
    values = jnp.concatenate([jnp.broadcast_to(c.astype(dtype), (*batch, m)),
                              jnp.broadcast_to(r.astype(dtype), (*batch, n))[..., 1:]], axis=-1)
    return jnp.take(values, np.arange(m)[:, None] + np.arange(n)[None, :], axis=-1)


def circulant(c: Any) -> Any:
    """The circulant matrices with first column c: (..., n, n)."""
    c = jnp.atleast_1d(_array("circulant", c))
    n = c.shape[-1]
    return jnp.take(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1), axis=-1)


def companion(a: Any) -> Any:
    """The companion matrices of the polynomials with coefficients a
    (highest power first): first row -a[1:] / a[0], ones below the diagonal."""
    (a,) = promote_dtypes_inexact("scipy.linalg.companion", a)
    if a.ndim < 1 or a.shape[-1] < 2:
        raise ValueError(f"jax.scipy.linalg.companion: a needs at least two coefficients, got shape {a.shape}")
    n = a.shape[-1] - 1
    first_row = -a[..., 1:] / a[..., :1]
    below = jnp.eye(n, k=-1, dtype=a.dtype)
    return jnp.where(np.arange(n)[:, None] == 0, first_row[..., None, :], below)


def block_diag(*arrs: Any) -> Any:
    """The block-diagonal matrix of the arguments (scalars and vectors count
    as 1 x 1 and 1 x n blocks); zeros((1, 0)) of none."""
    if not arrs:
        return jnp.zeros((1, 0), jnp.result_type(float))
    blocks = [jnp.atleast_2d(_array("block_diag", a)) for a in arrs]
    for i, b in enumerate(blocks):
        if b.ndim != 2:
            raise ValueError(f"jax.scipy.linalg.block_diag: argument {i} has {b.ndim} dimensions; "
                             "at most 2 are allowed")
    dtype = jnp.result_type(*blocks)
    width = sum(b.shape[1] for b in blocks)
    rows, before = [], 0
    for b in blocks:
        after = width - before - b.shape[1]
        rows.append(jnp.pad(b.astype(dtype), ((0, 0), (before, after))))
        before += b.shape[1]
    return jnp.concatenate(rows, axis=0)


_CONVOLUTION_MODES = ("full", "same", "valid")


def convolution_matrix(a: Any, n: int, mode: str = "full") -> Any:
    """The matrix A with A @ x = np.convolve(a, x, mode) for x of length n."""
    a = _array("convolution_matrix", a)
    if a.ndim != 1:
        raise ValueError(f"jax.scipy.linalg.convolution_matrix: a must be 1-D, got shape {a.shape}")
    if not isinstance(n, (int, np.integer)) or n <= 0:
        raise ValueError(f"jax.scipy.linalg.convolution_matrix: n must be a positive integer, got {n!r}")
    if mode not in _CONVOLUTION_MODES:
        raise ValueError(f"jax.scipy.linalg.convolution_matrix: mode must be one of {_CONVOLUTION_MODES}, "
                         f"got {mode!r}")
    m = a.shape[0]
    if m == 0:
        raise ValueError("jax.scipy.linalg.convolution_matrix: a must not be empty")
    full = toeplitz(jnp.pad(a, (0, n - 1)), jnp.zeros((n,), a.dtype))  # (m + n - 1) x n
    short, long = min(m, n), max(m, n)
    start, count = {"full": (0, m + n - 1), "same": ((short - 1) // 2, long),
                    "valid": (short - 1, long - short + 1)}[mode]
    return full[start:start + count]


def fiedler(a: Any) -> Any:
    """The symmetric Fiedler matrices |a_i - a_j| of (..., n) vectors."""
    a = _array("fiedler", a)
    if a.ndim < 1:
        raise ValueError("jax.scipy.linalg.fiedler: a must have at least one dimension")
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a: Any) -> Any:
    """Fiedler's pentadiagonal companion matrix of the polynomial with
    coefficients a (highest power first): its eigenvalues are the roots."""
    (a,) = promote_dtypes_inexact("scipy.linalg.fiedler_companion", a)
    if a.ndim != 1:
        raise ValueError(f"jax.scipy.linalg.fiedler_companion: a must be 1-D, got shape {a.shape}")
    if a.shape[0] <= 2:
        return (-(a[1:] / a[0]))[None, :] if a.shape[0] == 2 else jnp.zeros((0, 0), a.dtype)
    a = a / a[0]
    n = a.shape[0] - 1
    # (row, column, value): ones on the odd sub- and even superdiagonal
    # places, the coefficients beside them, and [-a1, 1] down column 0
    rows, cols, values = [0, 1], [0, 0], [-a[1], jnp.ones((), a.dtype)]
    for r, c in zip(range(3, n, 2), range(1, n - 2, 2)):
        rows, cols, values = rows + [r], cols + [c], values + [jnp.ones((), a.dtype)]
    for k, (r, c) in enumerate(zip(range(2, n, 2), range(1, n - 1, 2))):
        rows, cols, values = rows + [r], cols + [c], values + [-a[3 + 2 * k]]
    for r, c in zip(range(0, n - 2, 2), range(2, n, 2)):
        rows, cols, values = rows + [r], cols + [c], values + [jnp.ones((), a.dtype)]
    for k, (r, c) in enumerate(zip(range(0, n - 1, 2), range(1, n, 2))):
        rows, cols, values = rows + [r], cols + [c], values + [-a[2 + 2 * k]]
    return jnp.zeros((n, n), a.dtype).at[np.array(rows), np.array(cols)].set(jnp.stack(values))


def leslie(f: Any, s: Any) -> Any:
    """The Leslie matrices: fecundities f (..., n) in the first row,
    survival rates s (..., n - 1) below the diagonal."""
    f, s = jnp.atleast_1d(_array("leslie", f)), jnp.atleast_1d(_array("leslie", s))
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(f"jax.scipy.linalg.leslie: s must be one shorter than f along the last axis; got f "
                         f"shape {f.shape} and s shape {s.shape}")
    dtype = jnp.result_type(f, s)
    n = f.shape[-1]
    sub = jnp.where(np.eye(n, k=-1, dtype=bool), jnp.pad(s.astype(dtype), [(0, 0)] * (s.ndim - 1) + [(1, 0)])
                    [..., :, None], 0)
    return jnp.where(np.arange(n)[:, None] == 0, f.astype(dtype)[..., None, :], sub.astype(dtype))


def hilbert(n: int) -> Any:
    """The n x n Hilbert matrix 1 / (i + j + 1)."""
    n = _size("hilbert", n)
    i = np.arange(n)
    return _float_constant(1.0 / (i[:, None] + i[None, :] + 1))


def invhilbert(n: int) -> Any:
    """The exact inverse of hilbert(n) (integers; large for n > 12)."""
    n = _size("invhilbert", n)
    values = [[(-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
               * math.comb(i + j, i) ** 2 for j in range(n)] for i in range(n)]
    return _float_constant(np.array(values, dtype=object).astype(np.float64).reshape(n, n))


_PASCAL_KINDS = ("symmetric", "lower", "upper")


def _pascal_kind(fn: str, kind: Any) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"jax.scipy.linalg.{fn}: kind must be one of {list(_PASCAL_KINDS)}, got {kind!r}")
    return kind


def _pascal_lower(n: int, signed: bool) -> list[list[int]]:
    return [[(-1) ** (i + j) * math.comb(i, j) if signed else math.comb(i, j) for j in range(n)]
            for i in range(n)]


def _exact(rows: list[list[int]], n: int) -> Any:
    return _float_constant(np.array(rows, dtype=object).astype(np.float64).reshape(n, n))


def pascal(n: int, kind: Any = None) -> Any:
    """The Pascal matrix: binomials C(i + j, i) ('symmetric'), its lower
    factor C(i, j) or the upper one."""
    n, kind = _size("pascal", n), _pascal_kind("pascal", kind)
    lower = np.array(_pascal_lower(n, False), dtype=object).reshape(n, n)
    matrix = {"lower": lower, "upper": lower.T, "symmetric": lower.dot(lower.T) if n else lower}[kind]
    return _exact(matrix.tolist(), n)


def invpascal(n: int, kind: Any = None) -> Any:
    """The exact inverse of pascal(n, kind)."""
    n, kind = _size("invpascal", n), _pascal_kind("invpascal", kind)
    inverse_lower = np.array(_pascal_lower(n, True), dtype=object).reshape(n, n)
    matrix = {"lower": inverse_lower, "upper": inverse_lower.T,
              "symmetric": inverse_lower.T.dot(inverse_lower) if n else inverse_lower}[kind]
    return _exact(matrix.tolist(), n)


def dft(n: int, scale: str | None = None) -> Any:
    """The n x n discrete Fourier transform matrix, m[j, k] = exp(-2 pi i j k / n),
    divided by n (`scale="n"`) or sqrt(n) (`"sqrtn"`); in the default complex
    dtype. ``dft(n) @ x == jnp.fft.fft(x)``."""
    n = _size("dft", n)
    if scale not in (None, "n", "sqrtn"):
        raise ValueError(f"jax.scipy.linalg.dft: scale must be None, 'n' or 'sqrtn', got {scale!r}")
    jk = np.outer(np.arange(n), np.arange(n)) % max(n, 1)  # exact exponents
    m = np.exp(-2j * np.pi * jk / max(n, 1))
    if scale == "n":
        m = m / n
    elif scale == "sqrtn":
        m = m / math.sqrt(n)
    return jnp.asarray(m, dtype=complex)


def hadamard(n: int, dtype: Any = int) -> Any:
    """Sylvester's n x n Hadamard matrix (n a power of 2): entries +-1,
    H H^T = n I."""
    if not isinstance(n, (int, np.integer)) or n < 1 or n & (n - 1):
        raise ValueError(f"jax.scipy.linalg.hadamard: n must be a positive power of 2, got {n!r}")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return jnp.asarray(h, dtype=dtype)


def helmert(n: int, full: bool = False) -> Any:
    """The Helmert matrix: orthonormal rows, the first (kept with `full`)
    constant, row i a contrast of the first i entries against entry i."""
    n = _size("helmert", n)
    h = np.zeros((n, n))
    if n:
        h[0] = 1 / math.sqrt(n)
    for i in range(1, n):
        h[i, :i] = 1 / math.sqrt(i * (i + 1))
        h[i, i] = -i / math.sqrt(i * (i + 1))
    return _float_constant(h if full else h[1:])
