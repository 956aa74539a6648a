"""`jaxc.scipy.linalg`: the LU, Cholesky, triangular-solve, QR (and
qr_multiply), SVD, polar, symmetric-eigenvalue and Schur (schur, rsf2csf,
solve_sylvester, sqrtm, funm) part of `jax.scipy.linalg` (SciPy's
signatures, JAX's behaviour) on the programs of `jaxc.lax.linalg`; expm
(scaling and squaring of a Pade approximant) and the special matrices
(_special_matrices.py).

    p, l, u = jaxc.scipy.linalg.lu(a)              # a = p @ l @ u
    x = jaxc.scipy.linalg.lu_solve(lu_factor(a), b)
    x = jaxc.scipy.linalg.cho_solve(cho_factor(a), b)
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import dtypes, lax, numpy as jnp
from .._autodiff import custom_jvp, jvp
from ..lax import fori_loop, linalg as lax_linalg
from ..numpy import linalg as np_linalg
from ..numpy._util import promote_dtypes_inexact
from ._special_matrices import (
    block_diag,
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion", "convolution_matrix",
           "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler", "fiedler_companion", "hadamard",
           "hankel", "helmert", "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
           "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "solve", "solve_sylvester", "solve_triangular", "svd",
           "toeplitz", "hessenberg", "schur", "sqrtm", "funm"]

_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}  # C: the conjugate transpose


def _square(fn: str, a: Any) -> Any:
    (a,) = promote_dtypes_inexact(f"scipy.linalg.{fn}", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"jax.scipy.linalg.{fn}: expected a square matrix (or a batch), got shape {a.shape}")
    return a


def _transposed(trans: Any, fn: str) -> bool:
    if trans not in _TRANS:
        raise ValueError(f"jax.scipy.linalg.{fn}: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return _TRANS[trans]


def _system(fn: str, a: Any, b: Any) -> tuple[Any, Any, bool]:
    """(a, b, whether b was a vector) for solving with the square (..., n, n)
    `a`: b as (..., n, k), both floats of a's dtype, broadcast to one batch."""
    a = _square(fn, a)
    (b,) = promote_dtypes_inexact(f"scipy.linalg.{fn}", b)
    vector = b.ndim == a.ndim - 1
    if vector:
        b = b[..., None]
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"jax.scipy.linalg.{fn}: b of shape {b.shape} does not fit a of shape {a.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (jnp.broadcast_to(a, (*batch, *a.shape[-2:])),
            jnp.broadcast_to(b.astype(a.dtype), (*batch, *b.shape[-2:])), vector)


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug: Any = None, check_finite: bool = True) -> Any:
    """x with op(a) x = b for triangular `a` (its lower triangle read when
    `lower`, else its upper); op is the identity (trans 0/'N') or the
    transpose (1/'T', 2/'C'). `b`: (..., n) or (..., n, k)."""
    del overwrite_b, debug, check_finite
    a, b, vector = _system("solve_triangular", a, b)
    x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, unit_diagonal=unit_diagonal,
                                    transpose_a=_transposed(trans, "solve_triangular"))
    return x[..., 0] if vector else x


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """(lu, piv): L below the diagonal of `lu` (unit diagonal implied), U on
    and above it; row i was swapped with row piv[i] (int32), as LAPACK."""
    del overwrite_a, check_finite
    (a,) = promote_dtypes_inexact("scipy.linalg.lu_factor", a)
    factors, pivots, _ = lax_linalg.lu(a)
    return factors, pivots


def lu_solve(lu_and_piv: tuple[Any, Any], b: Any, trans: Any = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
    """x with a x = b (trans 0) or a^T x = b (1, 2) from `lu_factor(a)`."""
    del overwrite_b, check_finite
    factors, pivots = lu_and_piv
    factors, b, vector = _system("lu_solve", factors, b)
    n = factors.shape[-1]
    permutation = lax_linalg.lu_pivots_to_permutation(pivots, n)
    permutation = jnp.broadcast_to(permutation, (*b.shape[:-2], n))
    if not _transposed(trans, "lu_solve"):
        x = np_linalg._lu_solve(factors, permutation, b)
    else:  # a = P^T L U, so a^T x = b is U^T L^T (P x) = b
        w = lax_linalg.triangular_solve(factors, b, left_side=True, lower=False, transpose_a=True)
        w = lax_linalg.triangular_solve(factors, w, left_side=True, lower=True, transpose_a=True,
                                        unit_diagonal=True)
        inverse = jnp.argsort(permutation, axis=-1)
        x = jnp.take_along_axis(w, jnp.broadcast_to(inverse[..., :, None], w.shape), axis=-2)
    return x[..., 0] if vector else x


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """(p, l, u) with a = p @ l @ u for an m x n `a` (l: m x k unit lower,
    u: k x n upper, k = min(m, n)); with `permute_l`, (p @ l, u)."""
    del overwrite_a, check_finite
    (a,) = promote_dtypes_inexact("scipy.linalg.lu", a)
    factors, _, permutation = lax_linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lower = jnp.tril(factors[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
    upper = jnp.triu(factors[..., :k, :])
    # a[permutation] = l @ u, so a = p @ l @ u with p[permutation[i], i] = 1
    p = jnp.swapaxes(jnp.eye(m, dtype=a.dtype)[permutation], -1, -2)
    if permute_l:
        return jnp.matmul(p, lower), upper
    return p, lower, upper


def _h(x: Any) -> Any:
    """The conjugate transposes of the matrices in the last two dimensions."""
    x = jnp.swapaxes(x, -1, -2)
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The Cholesky factor of a Hermitian (real: symmetric) positive
    definite matrix: upper U with U^H U = a (SciPy's default), from a's
    upper triangle, or lower L with L L^H = a, from its lower triangle (the
    other triangle is not read, as SciPy and JAX)."""
    del overwrite_a, check_finite
    a = _square("cholesky", a)
    factor = lax_linalg.cholesky(a if lower else _h(a), symmetrize_input=False)
    return factor if lower else _h(factor)


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
    """(c, lower) for `cho_solve`: c is `cholesky(a, lower)`."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """x with a x = b from `cho_factor(a)`: two triangular solves."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b, vector = _system("cho_solve", c, b)
    conjugate = jnp.iscomplexobj(c)
    # a = L L^H (lower) or U^H U (upper): solve with the lower factor, then its conjugate transpose
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                    conjugate_a=conjugate and not lower)
    x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower,
                                    conjugate_a=conjugate and lower)
    return x[..., 0] if vector else x


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The determinant (jnp.linalg.det)."""
    return np_linalg.det(a)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The inverse (jnp.linalg.inv)."""
    return np_linalg.inv(a)


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen") -> Any:
    """x with a x = b. `assume_a`: 'gen' (LU), 'sym' (LU too), or 'her'/'pos'
    (Cholesky of the triangle `lower` names)."""
    del overwrite_a, overwrite_b, debug, check_finite
    if assume_a in ("gen", "sym"):
        a, matrix, vector = _system("solve", a, b)
        x = np_linalg.solve(a, matrix)
        return x[..., 0] if vector else x
    if assume_a in ("her", "pos"):
        symmetric = lax_linalg._from_triangle(_square("solve", a), lower)
        return cho_solve(cho_factor(symmetric, lower=True), b)
    raise ValueError(f"jax.scipy.linalg.solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got {assume_a!r}")


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals: None = None, type: int = 1,
         check_finite: bool = True) -> Any:
    """Eigenvalues (ascending, real) and eigenvectors of a symmetric (or
    complex Hermitian) matrix, read from its `lower` (or upper) triangle:
    (w, v), or w with `eigvals_only`. The generalized problem (`b`, `type`)
    and eigenvalue subsets (`eigvals`) are not implemented, as in JAX."""
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None or type != 1 or eigvals is not None:
        raise NotImplementedError("jax.scipy.linalg.eigh: the generalized problem (b, type) and eigenvalue "
                                  "subsets (eigvals) are not implemented in jaxc")
    v, w = lax_linalg.eigh(_square("eigh", a), lower=lower, symmetrize_input=False)
    return w if eigvals_only else (w, v)


def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True) -> Any:
    """QR by Householder reflections: (q, r) with mode "full" (q m x m, r
    m x n) or "economic" (q m x k, r k x n); (r,) with mode "r" (m x n)."""
    del overwrite_a, lwork, check_finite
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"jax.scipy.linalg.qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    (a,) = promote_dtypes_inexact("scipy.linalg.qr", a)
    q, r = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode in ("full", "r"))
    return (r,) if mode == "r" else (q, r)


def qr_multiply(a: Any, c: Any, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False) -> tuple[Any, ...]:
    """(Q c, R) (`mode` 'left') or (c Q, R) ('right') with Q (m x k) and R
    (k x n) the economic QR of a (..., m, n), k = min(m, n), without forming
    Q (lax.linalg.ormqr on LAPACK's packed QR); conj(Q) with `conjugate`.
    `c`: (..., k, p) for 'left', (..., p, m) for 'right', or 1-d (a column,
    or a row; the result is then 1-d). With `pivoting` (column pivoting,
    as LAPACK's geqp3), also the column order P (int32): a[..., P] = Q R.
    Batch dims broadcast."""
    del overwrite_a, overwrite_c
    if mode not in ("right", "left"):
        raise ValueError(f"jax.scipy.linalg.qr_multiply: mode must be 'right' or 'left', got {mode!r}")
    a, c = promote_dtypes_inexact("scipy.linalg.qr_multiply", a, c)
    if a.ndim < 2 or c.ndim < 1:
        raise ValueError(f"jax.scipy.linalg.qr_multiply: a must be a matrix (or a batch) and c at least 1-d, got "
                         f"shapes {a.shape} and {c.shape}")
    left = mode == "left"
    m, n = a.shape[-2:]
    k = min(m, n)
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if left else c[None, :]
    if (c.shape[-2] if left else c.shape[-1]) != (k if left else m):
        side = f"Q @ c: Q has {k} columns, but c has {c.shape[-2]} rows" if left else \
            f"c @ Q: Q has {m} rows, but c has {c.shape[-1]} columns"
        raise ValueError(f"jax.scipy.linalg.qr_multiply: shapes are not compatible for {side} (a: {a.shape})")
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, (*batch, m, n))
    c = jnp.broadcast_to(c, (*batch, *c.shape[-2:]))
    packed, taus, r, permutation = lax_linalg._geqrf(a, pivoting)
    c = jnp.conj(c) if conjugate else c  # conj(Q) c = conj(Q conj(c))
    if left:  # Q (m x k) c = Q_full [c; 0]
        padding = [(0, 0)] * len(batch) + [(0, m - k), (0, 0)]
        result = lax_linalg.ormqr(packed, taus, jnp.pad(c, padding), left=True)
    else:
        result = lax_linalg.ormqr(packed, taus, c, left=False)[..., :k]
    result = jnp.conj(result) if conjugate else result
    if vector:
        result = result[..., 0] if left else result[..., 0, :]
    r = r[..., :k, :]
    return (result, r, permutation) if pivoting else (result, r)


def solve_sylvester(A: Any, B: Any, C: Any, *, method: str = "schur", tol: float = 1e-8) -> Any:
    """X with A X + X B = C for A (..., m, m), B (..., n, n), C (..., m, n)
    (batch dims broadcast). `method` "schur" (Bartels-Stewart: the complex
    Schur forms A = U R U^H and B = V S V^H turn it into R Y + Y S = U^H C V,
    solved column by column with triangular solves, X = U Y V^H) or
    "eigen" (the eigendecompositions: Y_ij = F_ij / (a_i + b_j)). NaNs
    where some eigenvalues of A and B sum to less than `tol` in modulus.
    Real when C is. Differentiable in A, B and C (dX solves the equation
    with dC - dA X - X dB)."""
    A, B, C = promote_dtypes_inexact("scipy.linalg.solve_sylvester", A, B, C)
    if A.ndim < 2 or B.ndim < 2 or C.ndim < 2:
        raise ValueError(f"jax.scipy.linalg.solve_sylvester: A, B and C must be matrices (or batches), got shapes "
                         f"{A.shape}, {B.shape} and {C.shape}")
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"jax.scipy.linalg.solve_sylvester: incompatible shapes for Sylvester equation:\nA: "
                         f"{A.shape}\nB: {B.shape}\nC: {C.shape}")
    if method not in ("schur", "eigen"):
        raise ValueError(f"jax.scipy.linalg.solve_sylvester: unrecognized method {method!r}; the two valid methods "
                         "are 'schur' and 'eigen'")
    solve_one = functools.partial(_sylvester, method, float(tol))
    return jnp.vectorize(solve_one, signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


def _sylvester_factors(method: str, a: Any, b: Any) -> tuple[Any, ...]:
    """What solving A X + X B = F takes for any F: Schur forms (u, r, v, s)
    or eigendecompositions (ua, wa, ub, wb), complex."""
    if method == "schur":
        complex_dtype = dtypes.complex_dtype(a.dtype)
        r, u = lax_linalg.schur(a.astype(complex_dtype))
        s, v = lax_linalg.schur(b.astype(complex_dtype))
        return u, r, v, s
    wa, ua = np_linalg.eig(a)
    wb, ub = np_linalg.eig(b)
    return ua, wa, ub, wb


def _sylvester_apply(method: str, factors: tuple[Any, ...], f: Any) -> Any:
    """X with A X + X B = f from _sylvester_factors (complex)."""
    if method == "eigen":
        ua, wa, ub, wb = factors
        y = np_linalg.solve(ua, f.astype(ua.dtype) @ ub) / (wa[:, None] + wb[None, :])
        return ua @ y @ np_linalg.inv(ub)
    u, r, v, s = factors
    m, n = f.shape
    g = jnp.conj(u.T) @ f.astype(u.dtype) @ v
    columns = jnp.arange(n)
    eye = jnp.eye(m, dtype=r.dtype)

    def column(j: Any, y: Any) -> Any:  # (R + s_jj I) y_j = g_j - sum_{k < j} s_kj y_k
        s_j = lax.dynamic_index_in_dim(s, j, axis=1, keepdims=False)
        rhs = lax.dynamic_index_in_dim(g, j, axis=1, keepdims=False) - y @ jnp.where(columns < j, s_j, 0)
        s_jj = jnp.sum(jnp.where(columns == j, s_j, 0))
        y_j = lax_linalg.triangular_solve(r + s_jj * eye, rhs[:, None], left_side=True, lower=False)[:, 0]
        return jnp.where(columns[None, :] == j, y_j[:, None], y)

    y = fori_loop(0, n, column, jnp.zeros_like(g)) if n else g
    return u @ y @ jnp.conj(v.T)


def _sylvester_result(method: str, factors: tuple[Any, ...], f: Any, tol: float) -> Any:
    x = _sylvester_apply(method, factors, f)
    x = x if jnp.iscomplexobj(f) else jnp.real(x)
    wa, wb = (jnp.diagonal(factors[1]), jnp.diagonal(factors[3])) if method == "schur" else \
        (factors[1], factors[3])
    singular = jnp.any(jnp.abs(wa[:, None] + wb[None, :]) < tol)
    return jnp.where(singular, jnp.nan, x).astype(f.dtype)


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _sylvester(method: str, tol: float, a: Any, b: Any, c: Any) -> Any:
    return _sylvester_result(method, _sylvester_factors(method, a, b), c, tol)


@_sylvester.defjvp
def _sylvester_jvp(method: str, tol: float, primals: tuple[Any, Any, Any],
                   tangents: tuple[Any, Any, Any]) -> tuple[Any, Any]:
    (a, b, c), (da, db, dc) = primals, tangents
    factors = _sylvester_factors(method, a, b)
    x = _sylvester_result(method, factors, c, tol)
    return x, _sylvester_result(method, factors, dc - da @ x - x @ db, tol)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd") -> Any:
    """(u, s, vh) with a = u diag(s) vh, or s with `compute_uv=False`
    (jnp.linalg.svd; `lapack_driver` is accepted and ignored)."""
    del overwrite_a, check_finite, lapack_driver
    if not compute_uv:
        return np_linalg.svd(a, compute_uv=False)
    return tuple(np_linalg.svd(a, full_matrices=full_matrices))


def polar(a: Any, side: str = "right", *, method: str = "qdwh", eps: Any = None,
          max_iterations: Any = None) -> tuple[Any, Any]:
    """The polar decomposition (u, p): a = u p (`side` 'right') or p u
    ('left'), u with orthonormal columns (or rows), p Hermitian positive
    semidefinite; from the SVD a = U S V^H: u = U V^H, p = V S V^H (or
    U S U^H). Real or complex. `method` 'qdwh' and 'svd' give the same
    factors here."""
    del eps, max_iterations
    if side not in ("right", "left"):
        raise ValueError(f"jax.scipy.linalg.polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"jax.scipy.linalg.polar: method must be 'qdwh' or 'svd', got {method!r}")
    (a,) = promote_dtypes_inexact("scipy.linalg.polar", a)
    if a.ndim != 2:
        raise ValueError(f"jax.scipy.linalg.polar: a must be a matrix, got shape {a.shape}")
    u, s, vh = np_linalg.svd(a, full_matrices=False)
    unitary = jnp.matmul(u, vh)
    basis = _h(vh) if side == "right" else u
    return unitary, jnp.matmul(basis * s[..., None, :].astype(a.dtype), _h(basis))


# Pade approximants of exp (Higham 2005): coefficients b_0..b_m and the
# largest 1-norm each is accurate for, in double (degree 13) and single
# precision (degree 7).
_PADE = {13: ((64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800, 129060195264000,
               10559470521600, 670442572800, 33522128640, 1323241920, 40840800, 960960, 16380, 182, 1),
              5.371920351148152),
         7: ((17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1), 3.925724783138660)}


def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """The matrix exponential of (..., n, n) matrices by scaling and
    squaring: exp(A) = r(A / 2^s)^(2^s), r the degree-13 (float64) or
    degree-7 (float32) Pade approximant, s the fewest halvings that bring
    the 1-norm within its range. NaN where more than `max_squarings`
    squarings would be needed, as JAX."""
    del upper_triangular  # the same result either way
    a = _square("expm", A)
    if a.shape[-1] == 0:
        return a
    degree = 13 if a.dtype == np.float64 else 7
    coefficients, theta = _PADE[degree]
    norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2), axis=-1)
    halvings = jnp.ceil(jnp.log2(jnp.where(norm > theta, norm, theta) / theta))
    scaled = a / jnp.exp2(halvings)[..., None, None]
    numerator, denominator = _pade(scaled, coefficients)
    r = np_linalg.solve(denominator, numerator)

    def square(i: Any, r: Any) -> Any:
        return jnp.where((i < halvings)[..., None, None], jnp.matmul(r, r), r)

    r = fori_loop(0, max_squarings, square, r)
    return jnp.where((halvings > max_squarings)[..., None, None], jnp.nan, r)


def _pade(a: Any, b: tuple[int, ...]) -> tuple[Any, Any]:
    """(N, D) = (V + U, V - U): V the even and U the odd terms of
    sum b_j a^j, with the powers a^2, a^4, a^6 shared."""
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = jnp.matmul(a, a)
    a4 = jnp.matmul(a2, a2)
    a6 = jnp.matmul(a4, a2)
    if len(b) == 14:
        odd = jnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
        even = jnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    else:
        odd = b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
        even = b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    u = jnp.matmul(a, odd)
    return even + u, even - u


def expm_frechet(A: Any, E: Any, *, method: Any = None, compute_expm: bool = True) -> Any:
    """The Frechet derivative of expm at A in the direction E (the jvp of
    `expm`): (expm(A), L) or L alone without `compute_expm`."""
    del method
    a, e = _square("expm_frechet", A), _square("expm_frechet", E)
    if a.shape != e.shape:
        raise ValueError(f"jax.scipy.linalg.expm_frechet: A of shape {a.shape} and E of shape {e.shape} differ")
    value, derivative = jvp(expm, (a,), (e.astype(a.dtype),))
    return (value, derivative) if compute_expm else derivative


def eigh_tridiagonal(d: Any, e: Any, *, eigvals_only: bool = False, select: str = "a", select_range: Any = None,
                     tol: Any = None, key: Any = None) -> Any:
    """The eigenvalues (ascending), and eigenvectors unless `eigvals_only`,
    of the symmetric tridiagonal matrix with diagonal d and off-diagonal e;
    `select` 'a' (all) or 'i' (indices select_range[0]..select_range[1])."""
    del tol, key
    d, e = promote_dtypes_inexact("scipy.linalg.eigh_tridiagonal", d, e)
    if d.ndim != 1 or e.shape != (max(d.shape[0] - 1, 0),):
        raise ValueError(f"jax.scipy.linalg.eigh_tridiagonal: d (n,) and e (n - 1,) expected, got shapes "
                         f"{d.shape} and {e.shape}")
    if select not in ("a", "i"):
        raise NotImplementedError(f"jax.scipy.linalg.eigh_tridiagonal(select={select!r}): jaxc selects all "
                                  "('a') or by index ('i'); a value range gives a data-dependent size")
    matrix = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)
    v, w = lax_linalg.eigh(matrix, symmetrize_input=False)
    if select == "i":
        if select_range is None:
            raise ValueError("jax.scipy.linalg.eigh_tridiagonal: select='i' needs select_range=(lo, hi)")
        low, high = (int(i) for i in select_range)
        w, v = w[low:high + 1], v[:, low:high + 1]
    return w if eigvals_only else (w, v)


# --------------------------------------------- Hessenberg, Schur and functions of matrices

def hessenberg(a: Any, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Any:
    """h (zero below the first subdiagonal) with a = q h q^H, and q with
    `calc_q`: Householder reflections, real or complex. Real f32/f64:
    lax.linalg.hessenberg (the compiled library, as LAPACK's gehrd), q
    from its reflectors (orghr); else lax/_eig.py's program."""
    from ..lax._eig import hessenberg_single
    a = _square("hessenberg", a)
    if a.ndim != 2:
        raise ValueError(f"jax.scipy.linalg.hessenberg: expected a 2-d matrix, got shape {a.shape}")
    if not lax_linalg.library_computes(a):
        h, q = hessenberg_single(a)
        return (h, q) if calc_q else h
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    n = a.shape[-1]
    q = jnp.eye(n, dtype=a.dtype)
    if n > 2:  # the reflectors act on rows and columns 1 and on
        q = q.at[1:, 1:].set(lax_linalg.householder_product(packed[1:, :-1], taus))
    return h, q


def schur(a: Any, output: str = "real") -> tuple[Any, Any]:
    """(t, z) with a = z t z^H, z unitary, for square (..., n, n) matrices:
    the real Schur form of a real matrix with `output="real"` (t quasi upper
    triangular: standardized 2x2 blocks for complex pairs), else the
    complex one (t upper triangular), as lax.linalg.schur."""
    if output not in ("real", "complex", "r", "c"):
        raise ValueError(f"jax.scipy.linalg.schur: output must be 'real' or 'complex', got {output!r}")
    a = _square("schur", a)
    if output in ("complex", "c"):
        a = a.astype(dtypes.complex_dtype(a.dtype))
    t, z = lax_linalg.schur(a)
    return t, z


def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """The complex Schur form (t, z) from a real one (T, Z), as SciPy's:
    from the bottom, each 2x2 block (|T[m, m-1]| above eps (|T[m-1, m-1]| +
    |T[m, m]|)) is made triangular by the rotation G = [[conj(c), s], [-s, c]],
    (c, s) = (mu - T[m, m], T[m, m-1]) / r, mu the block's eigenvalue with
    the principal square root (the one of positive imaginary part goes on
    top): T <- G T G^H, Z <- Z G^H. Batch dims broadcast."""
    del check_finite
    t, z = jnp.asarray(T), jnp.asarray(Z)
    for name, x in (("T", t), ("Z", z)):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"jax.scipy.linalg.rsf2csf: input {name!r} must be square, got shape {x.shape}")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"jax.scipy.linalg.rsf2csf: input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    (t, z) = promote_dtypes_inexact("scipy.linalg.rsf2csf", t, z)
    dtype = dtypes.complex_dtype(t.dtype)
    return jnp.vectorize(_rsf2csf, signature="(n,n),(n,n)->(n,n),(n,n)")(t.astype(dtype), z.astype(dtype))


def _principal_sqrt(w: Any) -> Any:
    """The square root of complex w with real part >= 0, and imaginary part
    >= 0 where that is 0 (sqrt(-4) = 2j whatever the sign of w's zero)."""
    x, y = jnp.real(w), jnp.imag(w)
    modulus = jnp.abs(w)
    real = jnp.sqrt(jnp.maximum(modulus + x, 0) / 2)
    imaginary = jnp.where(y < 0, -1, 1) * jnp.sqrt(jnp.maximum(modulus - x, 0) / 2)
    return lax.complex(real, imaginary)


def _rsf2csf(t: Any, z: Any) -> tuple[Any, Any]:
    n = t.shape[-1]
    eps = float(np.finfo(t.dtype).eps)
    rows = jnp.arange(n)

    def entry(x: Any, i: Any, j: Any) -> Any:
        return lax.dynamic_slice(x, (i, j), (1, 1))[0, 0]

    def step(s: Any, tz: tuple[Any, Any]) -> tuple[Any, Any]:
        t, z = tz
        m = n - 1 - s
        a11, a12, a21, a22 = entry(t, m - 1, m - 1), entry(t, m - 1, m), entry(t, m, m - 1), entry(t, m, m)
        couples = jnp.abs(a21) > eps * (jnp.abs(a11) + jnp.abs(a22))
        half = (a11 - a22) / 2
        mu = half + _principal_sqrt(half * half + a12 * a21)  # the eigenvalue (a11 + a22) / 2 + root, less a22
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(a21) ** 2).astype(t.dtype)
        r = jnp.where(couples, r, 1)
        c, s = jnp.where(couples, mu / r, 1), jnp.where(couples, a21 / r, 0)
        g = jnp.stack([jnp.stack([jnp.conj(c), s]), jnp.stack([-s, c])])
        two_rows = lax.dynamic_slice(t, (m - 1, 0), (2, n))
        t = lax.dynamic_update_slice(t, jnp.where(rows >= m - 1, g @ two_rows, two_rows), (m - 1, 0))
        two_columns = lax.dynamic_slice(t, (0, m - 1), (n, 2))
        rotated = jnp.where(rows[:, None] <= m, two_columns @ jnp.conj(g.T), two_columns)
        t = lax.dynamic_update_slice(t, rotated, (0, m - 1))
        z = lax.dynamic_update_slice(z, lax.dynamic_slice(z, (0, m - 1), (n, 2)) @ jnp.conj(g.T), (0, m - 1))
        t = jnp.where((rows[:, None] == m) & (rows[None, :] == m - 1), 0, t)
        return t, z

    return fori_loop(0, n - 1, step, (t, z)) if n > 1 else (t, z)


def _upper_triangular_columns(t: Any, column: Any) -> Any:
    """The upper-triangular f with f[:, j] = column(f, j) for j = 0..n-1,
    each column computed from the earlier ones (a fori_loop)."""
    n = t.shape[-1]

    def body(j: Any, f: Any) -> Any:
        return jnp.where(jnp.arange(n)[None, :] == j, column(f, j)[:, None], f)
    return fori_loop(0, n, body, jnp.zeros_like(t))


def _column_solve(t: Any, j: Any, diagonal_j: Any, rhs: Any, plus: bool, diagonal_value: Any = None) -> Any:
    """x[:j] solving (T[:j, :j] +/- d I) x = rhs[:j] (T upper triangular,
    d = diagonal_j), then x[j] = `diagonal_value` (default d) and zeros
    below; a masked full-size system."""
    n = t.shape[-1]
    rows = jnp.arange(n)
    inside = (rows[:, None] < j) & (rows[None, :] < j)
    eye = jnp.eye(n, dtype=t.dtype)
    shifted = t + diagonal_j * eye if plus else t - diagonal_j * eye
    matrix = jnp.where(inside, shifted, eye)
    x = lax_linalg.triangular_solve(matrix, jnp.where(rows < j, rhs, 0)[:, None], left_side=True,
                                    lower=False)[:, 0]
    value = diagonal_j if diagonal_value is None else diagonal_value
    return jnp.where(rows < j, x, jnp.where(rows == j, value, 0))


def _column(t: Any, j: Any) -> Any:
    return lax.dynamic_index_in_dim(t, j, axis=1, keepdims=False)


def sqrtm(A: Any, blocksize: int = 1) -> Any:
    """The principal square root of a square matrix, complex: the complex
    Schur form a = z t z^H (of a real matrix: its real form by
    lax.linalg.schur, then `rsf2csf`, as SciPy), then the upper-triangular r with r r = t column
    by column (Björck and Hammarling: r_jj = sqrt(t_jj), +i sqrt|t_jj| for a
    negative real t_jj as SciPy, and
    (R[:j, :j] + r_jj I) r[:j, j] = t[:j, j]), and z r z^H."""
    from ..lax._eig import schur_single
    if blocksize != 1:
        raise NotImplementedError("jax.scipy.linalg.sqrtm: only blocksize=1 is supported (as in JAX)")
    a = _square("sqrtm", A)
    if a.ndim != 2:
        raise ValueError(f"jax.scipy.linalg.sqrtm: expected a 2-d matrix, got shape {a.shape}")
    if jnp.iscomplexobj(a):
        t, z = schur_single(a)
    else:  # as SciPy: the real form made complex, so a real eigenvalue has no imaginary part at all
        t, z = rsf2csf(*lax_linalg.schur(a))
    diagonal = jnp.diagonal(t)
    # a negative real eigenvalue takes the root +i sqrt|x| (SciPy's), whatever the sign of its zero imaginary part
    diagonal = jnp.where(jnp.imag(diagonal) == 0, lax.complex(jnp.real(diagonal), jnp.zeros_like(jnp.real(diagonal))),
                         diagonal)
    roots = jnp.sqrt(diagonal)

    def column(r: Any, j: Any) -> Any:
        rjj = lax.dynamic_index_in_dim(roots, j, keepdims=False)
        return _column_solve(r, j, rjj, _column(t, j), plus=True)
    r = _upper_triangular_columns(t, column)
    return z @ r @ jnp.conj(z.T)


def funm(A: Any, func: Any, disp: bool = True) -> Any:
    """f(A) for a function `func` of arrays, by Parlett's recurrence on the
    complex Schur form: F = z f(t) z^H with f(t)_jj = func(t_jj) and, from
    t f(t) = f(t) t, (T[:j, :j] - t_jj I) F[:j, j] = F[:j, :j] t[:j, j] -
    t[:j, j] F_jj. Needs distinct eigenvalues (repeated ones give inf/NaN,
    as Parlett's method does). The result is complex. With `disp=False`,
    returns (F, NaN): SciPy's error estimate is not computed."""
    from ..lax._eig import schur_single
    a = _square("funm", A)
    if a.ndim != 2:
        raise ValueError(f"jax.scipy.linalg.funm: expected a 2-d matrix, got shape {a.shape}")
    if jnp.iscomplexobj(a):
        t, z = schur_single(a)
    else:  # as SciPy: the real form made complex, so a real eigenvalue has no imaginary part at all
        t, z = rsf2csf(*lax_linalg.schur(a))
    diagonal = jnp.diagonal(t)
    values = jnp.asarray(func(diagonal)).astype(t.dtype)

    def column(f: Any, j: Any) -> Any:
        t_j, fjj = _column(t, j), lax.dynamic_index_in_dim(values, j, keepdims=False)
        tjj = lax.dynamic_index_in_dim(diagonal, j, keepdims=False)
        return _column_solve(t, j, tjj, f @ t_j - t_j * fjj, plus=False, diagonal_value=fjj)
    f = _upper_triangular_columns(t, column)
    result = z @ f @ jnp.conj(z.T)
    return result if disp else (result, jnp.asarray(np.nan, dtype=jnp.real(result).dtype))
