"""`jaxc.numpy.linalg`: norms, and the products that NumPy's linalg
namespace also offers (matmul, tensordot, outer, vecdot, trace, diagonal,
cross, multi_dot, matrix_power).

Decompositions (svd, qr, cholesky, eig), solvers and what rests on them
(inv, det, solve, pinv, matrix norms 2/-2/'nuc', negative matrix powers)
are not implemented: they raise NotImplementedError naming what is missing.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import lax
from . import _reductions as _red
from ._linalg import cross, diagonal as _diagonal, matmul, outer, tensordot, trace as _trace, vecdot
from ._util import asarray, canonicalize_axis, promote_dtypes_inexact

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "tensordot", "outer", "vecdot", "cross", "trace",
           "diagonal", "multi_dot", "matrix_power"]


def _needs_svd(what: str) -> NotImplementedError:
    return NotImplementedError(f"jnp.linalg.{what} needs the singular values of the matrix (an SVD), "
                               "which jaxc does not implement yet")


# ---------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------

def _abs(x: Any) -> Any:
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
    if isinstance(ord, str) and ord == "nuc":
        raise _needs_svd("norm(ord='nuc')")
    if not isinstance(ord, str) and ord in (2, -2):
        raise _needs_svd(f"norm(ord={ord}) of a matrix")
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
    axes = tuple(range(x.ndim)) if axis is None else _norm_axes("vector_norm", axis, x.ndim)
    return _vector_norm(x, axes, ord, keepdims)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """The `ord`-norm of the matrices in the last two dimensions."""
    (x,) = promote_dtypes_inexact("linalg.matrix_norm", x)
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
        raise NotImplementedError("jnp.linalg.matrix_power with a negative power needs a matrix inverse, "
                                  "which jaxc does not implement yet")
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
