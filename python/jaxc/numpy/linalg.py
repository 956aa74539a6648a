"""`jaxc.numpy.linalg`: norms, the products that NumPy's linalg namespace
also offers (matmul, tensordot, outer, vecdot, trace, diagonal, cross,
multi_dot, matrix_power, matrix_transpose), and the LU and Cholesky based
functions: det, slogdet, solve, inv, cholesky, tensorsolve, tensorinv;
qr; eigh and eigvalsh; svd and svdvals and what rests on them (pinv,
lstsq, matrix_rank, cond, matrix norms 2, -2, 'nuc').

The factorizations are `jaxc.lax.linalg` programs. solve, inv, det and
slogdet differentiate with JAX's rules (dx = solve(a, db - da x);
d inv = -inv da inv; d logdet = trace(solve(a, da))), not through the LU
loop; pinv with the Golub-Pereyra rule. eig and eigvals (lax/_eig.py:
the complex Schur form by shifted QR) give complex results for real and
complex matrices, with JAX's derivative rule.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from .. import lax
from .._autodiff import custom_jvp
from . import _creation, _elementwise as _ew, _linalg, _more, _reductions as _red, _shape
from ._linalg import diagonal as _diagonal, trace as _trace, vecdot
from ._util import asarray, canonicalize_axis, promote_dtypes_inexact

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "tensordot", "outer", "vecdot", "cross", "trace",
           "diagonal", "multi_dot", "matrix_power", "matrix_transpose", "det", "slogdet", "solve", "inv",
           "cholesky", "tensorsolve", "tensorinv", "qr", "eigh", "eigvalsh", "svd", "svdvals", "matrix_rank",
           "cond", "eig", "eigvals", "pinv", "lstsq"]


# ---------------------------------------------------------------------------
# The Array API's products: jnp's, with its positional-only x1, x2
# ---------------------------------------------------------------------------

def matmul(x1: Any, x2: Any, /, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`jnp.matmul`."""
    return _linalg.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """`jnp.tensordot` (`axes` by keyword)."""
    return _linalg.tensordot(x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type)


def outer(x1: Any, x2: Any, /) -> Any:
    """The outer product of two 1-d arrays (others are a ValueError, unlike `jnp.outer`)."""
    x1, x2 = asarray(x1, fn="linalg.outer"), asarray(x2, fn="linalg.outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"jnp.linalg.outer: input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} x2.ndim={x2.ndim}")
    return _linalg.outer(x1, x2)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """`jnp.cross` of 3-vectors along `axis` (2-vectors are a ValueError)."""
    x1, x2 = asarray(x1, fn="linalg.cross"), asarray(x2, fn="linalg.cross")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("jnp.linalg.cross: both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they have x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}")
    return _linalg.cross(x1, x2, axis=axis)


# ---------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------

def _abs(x: Any) -> Any:
    return lax.abs(x)


def _moduli(x: Any, ord: Any, matrix: bool) -> Any:
    """|x| for a complex `x` (every norm but the spectral ones depends on the
    moduli alone; those take the singular values of `x` itself); a real `x`
    as it is."""
    if not _more.iscomplexobj(x):
        return x
    if matrix and (ord == "nuc" or not isinstance(ord, str) and ord in (2, -2)):
        return x
    return lax.abs(x)


def _vector_norm(x: Any, axes: tuple[int, ...], ord: Any, keepdims: bool) -> Any:
    """The `ord`-norm of the vectors along `axes` of the float array `x`."""
    if ord is None or ord == 2:
        return lax.sqrt(_red.sum(lax.mul(x, x), axes, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"jnp.linalg.norm: invalid norm order {ord!r} for vectors")
    if ord == np.inf:
        return _red.max(_abs(x), axes, keepdims=keepdims)
    if ord == -np.inf:
        return _red.min(_abs(x), axes, keepdims=keepdims)
    if ord == 0:
        return _red.sum(lax.ne(x, lax.full_like(x, 0)), axes, dtype=x.dtype, keepdims=keepdims)
    if ord == 1:
        return _red.sum(_abs(x), axes, keepdims=keepdims)
    p = float(ord)
    powered = _red.sum(lax.pow(_abs(x), lax.full_like(x, p)), axes, keepdims=keepdims)
    return lax.pow(powered, lax.full_like(powered, 1.0 / p))


# ord -> (sum over the row axis first (column sums)?, the extremum taken over those sums)
_MATRIX_NORMS = {1: (True, "max"), -1: (True, "min"), np.inf: (False, "max"), -np.inf: (False, "min")}


def _matrix_norm(x: Any, axes: tuple[int, int], ord: Any, keepdims: bool) -> Any:
    """The `ord`-norm of the matrices in the `axes` planes of the float array `x`."""
    row_axis, col_axis = axes
    if ord is None or ord == "fro":
        return lax.sqrt(_red.sum(lax.mul(x, x), axes, keepdims=keepdims))
    if isinstance(ord, str) and ord == "nuc" or not isinstance(ord, str) and ord in (2, -2):
        moved = _shape.moveaxis(x, (row_axis, col_axis), (-2, -1))
        values = svdvals(moved)
        result = (_red.sum(values, -1) if ord == "nuc" else
                  _red.max(values, -1) if ord == 2 else _red.min(values, -1))
        if keepdims:
            result = _shape.expand_dims(result, tuple(sorted((row_axis, col_axis))))
        return result
    if isinstance(ord, str) or ord not in _MATRIX_NORMS:
        raise ValueError(f"jnp.linalg.norm: invalid norm order {ord!r} for matrices")
    column_sums_first, extremum = _MATRIX_NORMS[ord]
    summed, then = (row_axis, col_axis) if column_sums_first else (col_axis, row_axis)
    sums = _red.sum(_abs(x), summed, keepdims=keepdims)
    if not keepdims and then > summed:
        then -= 1
    return getattr(_red, extremum)(sums, then, keepdims=keepdims)


def _norm_axes(fn: str, axis: Any, ndim: int) -> tuple[int, ...]:
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(canonicalize_axis(a, ndim, fn) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"jnp.linalg.{fn}: repeated axis in {axis!r}")
    return out


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector norms (ord None/2, 1, inf, -inf, 0, any p) along one axis and
    matrix norms ('fro', 1, -1, inf, -inf) over two; with axis None, a 1-d
    or 2-d `x` picks by its rank and ord None is the 2-norm of all elements."""
    (x,) = promote_dtypes_inexact("linalg.norm", x)
    matrix = (x.ndim == 2 if axis is None else not isinstance(axis, int) and len(tuple(axis)) == 2)
    x = _moduli(x, ord, matrix and ord is not None)
    if axis is None:
        if ord is None:
            result = lax.sqrt(_red.sum(lax.mul(x, x)))
            return lax.reshape(result, (1,) * x.ndim) if keepdims else result
        if x.ndim not in (1, 2):
            raise ValueError(f"jnp.linalg.norm: ord={ord!r} needs a 1-d or 2-d array or an axis, got shape "
                             f"{x.shape}")
        axes = tuple(range(x.ndim))
    else:
        axes = _norm_axes("norm", axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, axes, ord, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, axes, ord, keepdims)
    raise ValueError(f"jnp.linalg.norm: axis must name 1 or 2 axes, got {axis!r} for shape {x.shape}")


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """The `ord`-norm of vectors along `axis` (all elements, as one vector, when None)."""
    (x,) = promote_dtypes_inexact("linalg.vector_norm", x)
    x = _moduli(x, ord, False)
    axes = tuple(range(x.ndim)) if axis is None else _norm_axes("vector_norm", axis, x.ndim)
    return _vector_norm(x, axes, ord, keepdims)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """The `ord`-norm of the matrices in the last two dimensions."""
    (x,) = promote_dtypes_inexact("linalg.matrix_norm", x)
    x = _moduli(x, ord, True)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.matrix_norm: needs at least 2 dimensions, got shape {x.shape}")
    return _matrix_norm(x, (x.ndim - 2, x.ndim - 1), ord, keepdims)


# ---------------------------------------------------------------------------
# Products
# ---------------------------------------------------------------------------

def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """Trace of the matrices in the last two dimensions (array API form)."""
    return _trace(x, offset, -2, -1, dtype)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """Diagonals of the matrices in the last two dimensions (array API form)."""
    return _diagonal(x, offset, -2, -1)


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """``arrays[0] @ arrays[1] @ ...`` in the cheapest order (1-d first and
    last operands are a row and a column vector)."""
    arrays = [asarray(a, fn="linalg.multi_dot") for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"jnp.linalg.multi_dot: needs at least 2 arrays, got {len(arrays)}")
    for i, a in enumerate(arrays):
        inner = 0 < i < len(arrays) - 1
        if a.ndim != 2 and (inner or a.ndim != 1):
            raise ValueError(f"jnp.linalg.multi_dot: array {i} has shape {a.shape}; the first and last "
                             "must be 1-d or 2-d, the others 2-d")
    dims = [arrays[0].shape[0] if arrays[0].ndim == 2 else 1]
    dims += [a.shape[-1] if a.ndim == 2 else 1 for a in arrays[:-1]] + \
        [arrays[-1].shape[-1] if arrays[-1].ndim == 2 else 1]
    order = _chain_order(dims)

    def product(i: int, j: int) -> Any:
        if i == j:
            return arrays[i]
        k = order[i][j]
        return matmul(product(i, k), product(k + 1, j))
    return product(0, len(arrays) - 1)


def _chain_order(dims: list[int]) -> list[list[int]]:
    """Matrix-chain dynamic programme: split[i][j] is where to split the
    product of matrices i..j (matrix k is dims[k] x dims[k + 1])."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k) for k in range(i, j))
    return split


def matrix_power(a: Any, n: int) -> Any:
    """``a @ a @ ... @ a`` (`n` factors; n = 0 gives the identity) by
    repeated squaring; negative `n` needs a matrix inverse."""
    a = asarray(a, fn="linalg.matrix_power")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"jnp.linalg.matrix_power: needs square matrices in the last two dimensions, got "
                         f"shape {a.shape}")
    try:
        n = int(lax._ops.operator_index(n))
    except TypeError:
        raise TypeError(f"jnp.linalg.matrix_power: n must be an int, got {n!r}") from None
    if n < 0:
        a, n = inv(a), -n
    if n == 0:
        size = a.shape[-1]
        eye = lax.eq(lax.broadcasted_iota(np.int32, (size, size), 0), lax.broadcasted_iota(np.int32, (size, size), 1))
        eye = lax.convert_element_type(eye, a.dtype)
        return lax.broadcast_in_dim(eye, a.shape, (a.ndim - 2, a.ndim - 1))
    result, square = None, a
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


def _h(x: Any) -> Any:
    """The conjugate transposes of the matrices in the last two dimensions."""
    x = matrix_transpose(x)
    return lax.conj(x) if _more.iscomplexobj(x) else x


def matrix_transpose(x: Any, /) -> Any:
    """The matrices in the last two dimensions, transposed."""
    x = asarray(x, fn="linalg.matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.matrix_transpose: needs at least 2 dimensions, got shape {x.shape}")
    return lax.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


# ---------------------------------------------------------------------------
# LU and Cholesky based: determinants, solvers, inverse
# ---------------------------------------------------------------------------

def _square(fn: str, a: Any) -> Any:
    """`a` as a float batch of square matrices, or ValueError."""
    (a,) = promote_dtypes_inexact(f"linalg.{fn}", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"jnp.linalg.{fn}: the argument must be a square matrix or a batch of them "
                         f"(... x n x n), got shape {a.shape}")
    return a


def _lu_solve(factors: Any, permutation: Any, b: Any) -> Any:
    """x with a x = b from a's LU factors: b permuted, then forward
    substitution through L (unit diagonal) and backward through U."""
    b = _shape.take_along_axis(b, _shape.broadcast_to(permutation[..., :, None], b.shape), axis=-2)
    y = lax.linalg.triangular_solve(factors, b, left_side=True, lower=True, unit_diagonal=True)
    return lax.linalg.triangular_solve(factors, y, left_side=True, lower=False)


@custom_jvp
def _solve(a: Any, b: Any) -> Any:
    factors, _, permutation = lax.linalg.lu(a)
    return _lu_solve(factors, permutation, b)


@_solve.defjvp
def _solve_jvp(primals: tuple[Any, Any], tangents: tuple[Any, Any]) -> tuple[Any, Any]:
    (a, b), (da, db) = primals, tangents
    x = _solve(a, b)
    return x, _solve(a, db - matmul(da, x))


def solve(a: Any, b: Any) -> Any:
    """x with a x = b. `b` of one dimension is a vector (result: a's batch
    dims and n); otherwise a batch of n x k matrices, whose batch dims
    broadcast against a's. A singular `a` gives infinities or NaNs."""
    a = _square("solve", a)
    a, b = promote_dtypes_inexact("linalg.solve", a, b)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError(f"jnp.linalg.solve: b of shape {b.shape} does not fit a of shape {a.shape}")
        column = _shape.broadcast_to(b[:, None], (*a.shape[:-2], n, 1))
        return _solve(a, column)[..., 0]
    if b.shape[-2] != n:
        raise ValueError(f"jnp.linalg.solve: b of shape {b.shape} does not fit a of shape {a.shape} "
                         f"(b must be (..., {n}, k), or ({n},))")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return _solve(_shape.broadcast_to(a, (*batch, n, n)), _shape.broadcast_to(b, (*batch, *b.shape[-2:])))


@custom_jvp
def _inv(a: Any) -> Any:
    n = a.shape[-1]
    return _solve(a, _shape.broadcast_to(_creation.eye(n, dtype=a.dtype), a.shape))


@_inv.defjvp
def _inv_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    y = _inv(a)
    return y, -matmul(matmul(y, da), y)


def inv(a: Any) -> Any:
    """The inverse of a square matrix (or of each in a batch). A singular
    matrix gives infinities or NaNs, as in JAX."""
    return _inv(_square("inv", a))


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


def _lu_diagonal_and_parity(a: Any) -> tuple[Any, Any]:
    """The diagonal of U and (-1) ** (the number of row swaps) of `a`'s LU."""
    factors, pivots, _ = lax.linalg.lu(a)
    swaps = _red.sum(pivots != _creation.arange(a.shape[-1], dtype=np.int32), axis=-1)
    parity = _ew.where(swaps % 2 == 0, 1, -1).astype(a.dtype)
    return _linalg.diagonal(factors, axis1=-2, axis2=-1), parity


@custom_jvp
def _slogdet(a: Any) -> tuple[Any, Any]:
    diagonal, parity = _lu_diagonal_and_parity(a)
    sign = parity * _red.prod(lax.sign(diagonal), axis=-1)  # lax: the diagonal is float or complex
    return sign, _red.sum(lax.log(lax.abs(diagonal)), axis=-1)


@_slogdet.defjvp
def _slogdet_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    sign, logabsdet = _slogdet(a)
    t = _linalg.trace(_solve(a, da), axis1=-2, axis2=-1)  # d log det
    if _more.iscomplexobj(a):  # the phase turns: d sign = i im(t) sign
        return (sign, logabsdet), (sign * (1j * _ew.imag(t)), _ew.real(t))
    return (sign, logabsdet), (_creation.zeros_like(sign), t)


def slogdet(a: Any, *, method: Any = None) -> SlogdetResult:
    """(sign, log|det|) of square matrices; a singular one gives (0, -inf).
    `method`: None or "lu" (the only one)."""
    if method not in (None, "lu"):
        raise ValueError(f"jnp.linalg.slogdet: unknown method {method!r} (jaxc has 'lu')")
    return SlogdetResult(*_slogdet(_square("slogdet", a)))


@custom_jvp
def _det(a: Any) -> Any:
    diagonal, parity = _lu_diagonal_and_parity(a)
    return parity * _red.prod(diagonal, axis=-1)


@_det.defjvp
def _det_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    d = _det(a)
    return d, d * _linalg.trace(_solve(a, da), axis1=-2, axis2=-1)


def det(a: Any) -> Any:
    """The determinant of square matrices (1 for 0 x 0). Its derivative is
    det(a) trace(a^-1 da): NaN at a singular matrix (JAX's is finite there)."""
    return _det(_square("det", a))


def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """The Cholesky factor of Hermitian (real: symmetric) positive definite
    matrices: lower L with L L^H = a, or with `upper` its conjugate
    transpose U (U^H U = a). NaNs where a matrix is not positive definite."""
    factor = lax.linalg.cholesky(_square("cholesky", a), symmetrize_input=symmetrize_input)
    return _h(factor) if upper else factor


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """x with tensordot(a, x, x.ndim) = b: a reshaped to a square matrix
    (b.size rows), solved, reshaped to a.shape[b.ndim:]. `axes` moves those
    axes of `a` to the end first."""
    a, b = asarray(a, fn="linalg.tensorsolve"), asarray(b, fn="linalg.tensorsolve")
    if axes is not None:
        a = _shape.moveaxis(a, axes, [a.ndim - 1 - i for i in range(len(np.atleast_1d(axes)))][::-1])
    rows = int(np.prod(b.shape))
    result_shape = a.shape[b.ndim:]
    if a.shape[:b.ndim] != b.shape or int(np.prod(result_shape)) != rows:
        raise ValueError(f"jnp.linalg.tensorsolve: a of shape {a.shape} does not fit b of shape {b.shape}")
    return _shape.reshape(solve(_shape.reshape(a, (rows, rows)), _shape.reshape(b, (rows,))), result_shape)


def tensorinv(a: Any, ind: int = 2) -> Any:
    """The inverse of `a` as a tensor of its first `ind` dims by the rest:
    tensordot(tensorinv(a), a, ind) is the identity."""
    a = asarray(a, fn="linalg.tensorinv")
    if ind <= 0:
        raise ValueError(f"jnp.linalg.tensorinv: ind must be a positive integer, got {ind}")
    outer, inner = a.shape[:ind], a.shape[ind:]
    rows = int(np.prod(outer))
    if rows != int(np.prod(inner)):
        raise ValueError(f"jnp.linalg.tensorinv: a of shape {a.shape} is not square for ind={ind}")
    return _shape.reshape(inv(_shape.reshape(a, (rows, rows))), (*inner, *outer))


# ---------------------------------------------------------------------------
# QR, symmetric eigenproblems, singular values
# ---------------------------------------------------------------------------

class QRResult(NamedTuple):
    Q: Any
    R: Any


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR of (..., m, n) real or complex matrices by Householder
    reflections: (Q, R) with mode "reduced" (Q m x k, R k x n,
    k = min(m, n)) or "complete" (Q m x m, R m x n); R alone with mode "r".
    R's diagonal is real and may be negative (LAPACK's signs, as NumPy and
    JAX)."""
    (a,) = promote_dtypes_inexact("linalg.qr", a)
    if a.ndim < 2:
        raise ValueError(f"jnp.linalg.qr: the argument must have at least 2 dimensions, got shape {a.shape}")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"jnp.linalg.qr: unsupported mode {mode!r} (jaxc has 'reduced', 'complete', 'r')")
    q, r = lax.linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


def _uplo(fn: str, UPLO: Any) -> bool:
    """Whether the lower triangle is read."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"jnp.linalg.{fn}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO != "U"


def eigh(a: Any, UPLO: Any = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors (columns) of symmetric
    or Hermitian matrices. With `symmetrize_input` (a + a^H) / 2 is used,
    else the triangle `UPLO` names ('L', the default, or 'U')."""
    lower = _uplo("eigh", UPLO)
    v, w = lax.linalg.eigh(_square("eigh", a), lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: Any, UPLO: Any = "L", *, symmetrize_input: bool = True) -> Any:
    """The eigenvalues (ascending, real) of symmetric or Hermitian matrices."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


def _matrices(fn: str, x: Any) -> Any:
    (x,) = promote_dtypes_inexact(f"linalg.{fn}", x)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.{fn}: the argument must have at least 2 dimensions, got shape {x.shape}")
    return x


def svdvals(x: Any, /) -> Any:
    """The singular values of (..., m, n) matrices, descending."""
    return lax.linalg.svd(_matrices("svdvals", x), compute_uv=False)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: Any = None) -> Any:
    """SVDResult(U, S, Vh) with a = U diag(S) Vh (S descending and real;
    U, Vh unitary for complex a), or S alone (`compute_uv=False`). With
    `hermitian` the Hermitian a's eigenvectors give U (S = |eigenvalues|,
    Vh = (U sign(eigenvalues))^H)."""
    a = _matrices("svd", a)
    if subset_by_index is not None:
        raise NotImplementedError("jnp.linalg.svd(subset_by_index=...) is not implemented in jaxc")
    if hermitian:
        w, v = eigh(_square("svd", a))
        s = lax.abs(w)  # w: real eigenvalues
        order = _shape.argsort(-s, axis=-1)
        s = _shape.take_along_axis(s, order, axis=-1)
        if not compute_uv:
            return s
        columns = _shape.broadcast_to(order[..., None, :], v.shape)
        u = _shape.take_along_axis(v, columns, axis=-1)
        signs = _shape.take_along_axis(_ew.where(w < 0, -1, 1).astype(a.dtype), order, axis=-1)
        return SVDResult(u, s, _h(u * signs[..., None, :]))
    if not compute_uv:
        return lax.linalg.svd(a, compute_uv=False)
    return SVDResult(*lax.linalg.svd(a, full_matrices=full_matrices))


def matrix_rank(M: Any, rtol: Any = None, *, hermitian: bool = False, tol: Any = None) -> Any:
    """The number of singular values above `rtol` times the largest (default
    rtol: max(m, n) * eps), or above `tol` when given; `hermitian`: M is
    Hermitian (singular values from `eigh`)."""
    if tol is not None and rtol is not None:
        raise ValueError("jnp.linalg.matrix_rank: only one of tol or rtol may be specified.")
    (M,) = promote_dtypes_inexact("linalg.matrix_rank", M)
    if M.ndim < 2:
        return _red.any(M != 0).astype(np.int32)
    values = svd(M, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(M.shape[-2:]) * np.finfo(M.dtype).eps
        tol = _red.max(values, axis=-1, keepdims=True) * _creation.asarray(rtol, values.dtype)[..., None]
    else:
        tol = _creation.asarray(tol, values.dtype)[..., None]
    return _red.sum(values > tol, axis=-1).astype(np.int32)


def cond(x: Any, p: Any = None) -> Any:
    """The condition number: largest over smallest singular value (p None,
    2; -2: the inverse), else norm(x, p) * norm(inv(x), p)."""
    x = _square("cond", x)
    if p is None or p in (2, -2):
        values = svdvals(x)
        ratio = values[..., 0] / values[..., -1]
        return 1 / ratio if p == -2 else ratio
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


def eig(a: Any) -> EigResult:
    """(eigenvalues, eigenvectors) of square matrices, complex (for real
    input too): a v = v diag(w), each column of v of norm 1. Real f32/f64
    matrices: the compiled library (eig.c, as LAPACK's geev: LAPACK's order
    of the eigenvalues up to n = 75, each vector's largest component real
    and positive); others: the complex Schur program's order (lax/_eig.py).
    Neither is sorted, as in JAX."""
    from ..lax._eig import eig_values_vectors
    w, v = eig_values_vectors(_square("eig", a))
    return EigResult(w, v)


def eigvals(a: Any) -> Any:
    """The (complex) eigenvalues of square matrices; see `eig` (no
    eigenvectors are computed unless differentiated)."""
    from ..lax._eig import eigenvalues
    return eigenvalues(_square("eigvals", a))


def _pinv_cutoff(s: Any, rtol: Any, dtype: Any, default: float) -> Any:
    """Singular values at or below this (per matrix) count as zero (`dtype`: theirs, real)."""
    rtol = default * np.finfo(dtype).eps if rtol is None else _creation.asarray(rtol, dtype)[..., None]
    return rtol * _red.max(s, axis=-1, keepdims=True)


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverse of (..., m, n) matrices from the SVD:
    V diag(1/s) U^H over the singular values above `rtol` (default
    10 max(m, n) eps) times the largest. Differentiates with the
    Golub-Pereyra rule, as JAX (not through the SVD)."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("jnp.linalg.pinv: only one of rtol and rcond may be specified")
        rtol = rcond
    a = _matrices("pinv", a)
    return _pinv(a, rtol, hermitian)


def _pinv_program(a: Any, rtol: Any, hermitian: bool) -> Any:
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return _creation.zeros((*a.shape[:-2], n, m), a.dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    kept = s > _pinv_cutoff(s, rtol, s.dtype, 10.0 * max(m, n))
    s_inv = _ew.where(kept, 1 / _ew.where(kept, s, 1), 0).astype(a.dtype)
    return _linalg.matmul(_h(vh) * s_inv[..., None, :], _h(u))


_pinv = custom_jvp(_pinv_program, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol: Any, hermitian: bool, primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    """dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P (with
    `hermitian`, of the Hermitian part of a, which is what is inverted)."""
    (a,), (da,) = primals, tangents
    p = _pinv(a, rtol, hermitian)
    if hermitian:
        a, da = (a + _h(a)) / 2, (da + _h(da)) / 2
    m, n = a.shape[-2:]
    pt, dat = _h(p), _h(da)
    left = _creation.eye(m, dtype=a.dtype) - _linalg.matmul(a, p)
    right = _creation.eye(n, dtype=a.dtype) - _linalg.matmul(p, a)
    dp = (-_linalg.matmul(p, _linalg.matmul(da, p)) + _linalg.matmul(_linalg.matmul(p, pt), _linalg.matmul(dat, left))
          + _linalg.matmul(right, _linalg.matmul(dat, _linalg.matmul(pt, p))))
    return p, dp


class LstsqResult(NamedTuple):
    solution: Any
    residuals: Any
    rank: Any
    singular_values: Any


def lstsq(a: Any, b: Any, rcond: Any = None, *, numpy_resid: bool = False) -> Any:
    """(x, residuals, rank, s): x minimizes |a x - b| (the minimum-norm one
    where a is rank deficient) for a (m, n) and b (m,) or (m, k), from the
    SVD; singular values below `rcond` (default max(m, n) eps; negative:
    eps) times the largest count as zero. The residuals are the squared
    norms of b - a x per column; with `numpy_resid` they are empty where
    NumPy gives none (rank < n or m <= n; needs a concrete rank)."""
    a, b = promote_dtypes_inexact("linalg.lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"jnp.linalg.lstsq: a must be a 2-D matrix, got shape {a.shape}")
    if b.ndim not in (1, 2):
        raise TypeError(f"jnp.linalg.lstsq: b must have 1 or 2 dimensions, got shape {b.shape}")
    m, n = a.shape
    if b.shape[0] != m:
        raise TypeError(f"jnp.linalg.lstsq: a of shape {a.shape} and b of shape {b.shape} have different "
                        "numbers of rows")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    eps = np.finfo(a.dtype).eps
    real_dtype = np.finfo(a.dtype).dtype
    if a.size == 0:
        s = _creation.zeros((0,), real_dtype)
        rank = _creation.asarray(0, np.int32)
        x = _creation.zeros((n, b.shape[1]), a.dtype)
    else:
        if rcond is None:
            rcond = eps * max(m, n)
        else:
            rcond = _ew.where(_creation.asarray(rcond) < 0, eps, rcond)
        u, s, vh = svd(a, full_matrices=False)
        kept = s >= _creation.asarray(rcond, real_dtype) * s[0]
        rank = _red.sum(kept).astype(np.int32)
        s_inv = _ew.where(kept, 1 / _ew.where(kept, s, 1), 0)[:, None].astype(a.dtype)
        x = _linalg.matmul(_h(vh), s_inv * _linalg.matmul(_h(u), b))
    if numpy_resid and (int(rank) < n or m <= n):
        residuals = _creation.zeros((0,), real_dtype)
    elif _more.iscomplexobj(a):
        residuals = _red.sum(lax.abs(b - _linalg.matmul(a, x)) ** 2, axis=0)
    else:
        residuals = _red.sum((b - _linalg.matmul(a, x)) ** 2, axis=0)
    return LstsqResult(x[:, 0] if vector else x, residuals, rank, s)
