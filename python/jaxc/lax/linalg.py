"""`jaxc.lax.linalg`: LU with partial pivoting, Cholesky and triangular
solves, as JAX's `jax.lax.linalg` has them.

`lu` and `triangular_solve` are ops, `jaxc.lu` and `jaxc.triangular_solve`
(defined in `_linalg_ops`, with their programs), with their own derivative
and batching rules: on the CPU an f32/f64 one is a call of the compiled
library (lu.c, triangular_solve.c), and `jaxc-expand-linalg` rewrites the
others (and all of them on the GPU) into blocked programs of jaxc ops. The
rest are programs of jaxc ops, not library calls: a `fori_loop` over the
columns whose body updates the whole (batched) matrix with masked vector
operations, so they run under jit, vmap and grad like any other program
and lower through the normal stages (n steps of O(n^2) work each).

`qr` reflects column by column (Householder, LAPACK's signs: R's diagonal
may be negative) and `eigh` runs cyclic Jacobi sweeps until the
off-diagonal part is below the dtype's epsilon; `svd` is one-sided Jacobi.

Complex matrices take the same algorithms with conjugate transposes:
Cholesky L L^H (a real diagonal), LAPACK's complex reflectors for QR
(`_larfg`, beta real, so R's diagonal is real), and for eigh and svd the
unitary Jacobi rotation [[c, s u], [-s conj(u), c]], u = a_pq / |a_pq|,
which zeroes a Hermitian 2x2's off-diagonal; eigenvalues and singular
values are real.

`cholesky`, `eigh` and `svd` differentiate with JAX's rules (dL = L
phi(L^-1 dA L^-H), phi: the lower triangle, diagonal halved;
dw = re diag(V^H dA V), dV = V (F o V^H dA V), F_ij = 1 / (w_j - w_i); the
SVD's in _svd_jvp); `lu` with JAX's rule (passes/autodiff/linalg.py); `qr` and
`triangular_solve` are differentiated as the programs they are.

LAPACK's packed forms (`hessenberg` as gehrd, `tridiagonal` as sytrd/hetrd,
`householder_product` as orgqr, `ormqr`) share one reduction, `_reduce`,
whose reflectors are larfg's (`_larfg`: beta real, tau = (beta - alpha) /
beta, v's leading entry 1), so the packed matrices and taus are LAPACK's.
`schur` is lax/_eig.py's (the real Schur form for real matrices),
`tridiagonal_solve` is gtsv's elimination with row interchanges, and `qdwh`
the QR-based dynamically weighted Halley iteration for the polar
decomposition.
"""
from __future__ import annotations

import enum
import functools
import operator
from typing import Any

import numpy as np

from .. import dtypes, numpy as jnp
from .._autodiff import custom_jvp
from . import _ops
from ._control_flow import fori_loop, while_loop
from ._linalg_ops import (  # noqa: F401
    CHOLESKY,
    EIG,
    EIGH,
    HESSENBERG,
    LU,
    QR,
    SCHUR,
    SVD,
    TRIANGULAR_SOLVE,
    library_computes,
    lu_program,
    triangular_solve_program,
)

__all__ = ["EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky", "cholesky_update", "eig", "eigh",
           "hessenberg", "householder_product", "lu", "lu_pivots_to_permutation", "ormqr", "qdwh", "qr", "schur",
           "svd", "symmetric_product", "triangular_solve", "tridiagonal", "tridiagonal_solve"]


class EigImplementation(enum.Enum):
    """The algorithm `eig` is asked for (jaxc has one; every member is accepted)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """The algorithm `eigh` is asked for (jaxc has one: Jacobi rotations)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """The algorithm `svd` is asked for (jaxc has one; every member is accepted)."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def _matrix(fn: str, x: Any, square: bool = False, complex_ok: bool = False) -> Any:
    """`x` as a float (or, with `complex_ok`, complex) array of matrices
    (..., m, n), or TypeError/ValueError."""
    x = jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"{fn}: the argument must have at least 2 dimensions, got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{fn}: the argument must be a batch of square matrices, got shape {x.shape}")
    if complex_ok and jnp.issubdtype(x.dtype, jnp.complexfloating):
        return x
    if not jnp.issubdtype(x.dtype, jnp.floating):
        kind = "floating-point or complex" if complex_ok else "floating-point"
        raise TypeError(f"{fn}: the argument must be a {kind} array, got {x.dtype}")
    return x


def _conj(x: Any) -> Any:
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def _h(x: Any) -> Any:
    """The conjugate transposes of matrices x (..., m, n) (transposes, for real x)."""
    return _conj(jnp.swapaxes(x, -1, -2))


# --------------------------------------------------------------------- LU

def lu(x: Any) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting of (..., m, n) matrices:
    (lu, pivots, permutation). `lu` holds U on and above the diagonal and
    the multipliers of the unit lower L below it; `pivots[k]` (int32,
    min(m, n) of them) is the row swapped with row k at step k;
    `permutation` (int32, m) is the row order they make: x[permutation] = L U.
    Real or complex (the pivot is the largest modulus).

    One `jaxc.lu` op: a call of the compiled library (lu.c) on the CPU for
    f32 and f64, `lu_program` elsewhere (`jaxc-expand-linalg`)."""
    x = _matrix("lax.linalg.lu", x, complex_ok=True)
    *batch, m, n = x.shape
    if min(m, n) == 0 or 0 in batch:  # nothing to factor
        return x, jnp.zeros((*batch, min(m, n)), np.int32), jnp.broadcast_to(jnp.arange(m, dtype=np.int32),
                                                                             (*batch, m))
    factors, pivots, permutation = LU.bind(x)
    return factors, pivots, permutation


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The row order (int32, `permutation_size` of them) that swapping row k
    with row pivots[k], for k = 0, 1, ..., makes of 0, 1, ..., n-1."""
    pivots = jnp.asarray(pivots)
    if not jnp.issubdtype(pivots.dtype, jnp.integer):
        raise TypeError(f"lax.linalg.lu_pivots_to_permutation: pivots must be integers, got {pivots.dtype}")
    if pivots.ndim < 1 or pivots.shape[-1] > permutation_size:
        raise ValueError(f"lax.linalg.lu_pivots_to_permutation: pivots of shape {pivots.shape} do not fit "
                         f"a permutation of size {permutation_size}")
    rows = jnp.arange(permutation_size, dtype=np.int32)
    start = jnp.broadcast_to(rows, (*pivots.shape[:-1], permutation_size))

    def step(k: Any, permutation: Any) -> Any:
        p = pivots[..., k][..., None].astype(np.int32)
        order = jnp.where(rows == k, p, jnp.where(rows == p, k, rows))
        return jnp.take_along_axis(permutation, order, axis=-1)

    return fori_loop(0, pivots.shape[-1], step, start) if pivots.shape[-1] else start


# --------------------------------------------------------- triangular solve

def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:
    """x with op(a) x = b (`left_side`) or x op(a) = b, for triangular `a`
    (..., n, n) (`lower`: its lower triangle is read, else the upper) and
    `b` (..., n, k) or (..., k, n); op(a) is a, or its transpose with
    `transpose_a`, conjugated with `conjugate_a` (complex `a`).
    `unit_diagonal` takes a's diagonal as ones. The batch dims of `a` and
    `b` must be equal, as in JAX. One `jaxc.triangular_solve` op: a call of
    the compiled library on the CPU for f32 and f64,
    `triangular_solve_program` elsewhere (`jaxc-expand-linalg`)."""
    a = _matrix("lax.linalg.triangular_solve", a, square=True, complex_ok=True)
    b = jnp.asarray(b)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2]:
        raise ValueError(f"lax.linalg.triangular_solve: b of shape {b.shape} must have a's batch dims "
                         f"(a: {a.shape}) and be a batch of matrices")
    n = a.shape[-1]
    if (b.shape[-2] if left_side else b.shape[-1]) != n:
        raise ValueError(f"lax.linalg.triangular_solve: a of shape {a.shape} does not fit b of shape "
                         f"{b.shape} (left_side={left_side})")
    if b.dtype != a.dtype:
        raise TypeError(f"lax.linalg.triangular_solve: a and b must have one dtype, got {a.dtype} and {b.dtype}")
    if 0 in b.shape:  # nothing to solve
        return jnp.zeros_like(b)
    return TRIANGULAR_SOLVE.bind(a, b, left_side=bool(left_side), lower=bool(lower), transpose_a=bool(transpose_a),
                                 conjugate_a=bool(conjugate_a) and jnp.iscomplexobj(a),
                                 unit_diagonal=bool(unit_diagonal))


# ------------------------------------------------------------------ Cholesky

def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of Hermitian (real: symmetric) positive
    definite (..., n, n) matrices: L L^H = x, L's diagonal real and
    positive. With `symmetrize_input`, (x + x^H) / 2 is factored, else the
    lower triangle alone is read (and the real part of the diagonal). A
    matrix that is not positive definite gives a matrix of NaNs, as JAX."""
    x = _matrix("lax.linalg.cholesky", x, square=True, complex_ok=True)
    if symmetrize_input:
        x = (x + _h(x)) / 2
    if 0 in x.shape:
        return x
    return CHOLESKY.bind(x)  # reads the lower triangle: so does its derivative


# ------------------------------------------------------------------------ QR

def _unit(n: int, j: Any, dtype: Any) -> Any:
    """The one-hot vector e_j of length n."""
    return (jnp.arange(n) == j).astype(dtype)


def _matvec(a: Any, v: Any) -> Any:
    return jnp.einsum("...ij,...j->...i", a, v)


def _vecmat(v: Any, a: Any) -> Any:
    return jnp.einsum("...i,...ij->...j", v, a)


def _outer(u: Any, v: Any) -> Any:
    return u[..., :, None] * v[..., None, :]


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None) -> tuple[Any, Any]:
    """(q, r) with x = q r for (..., m, n) matrices, real or complex, by
    Householder reflections (one `jaxc.qr` op: LAPACK's geqrf and orgqr):
    q (m x m, or m x k with k = min(m, n) unless `full_matrices`)
    orthogonal (unitary), r (m x n, or k x n) upper triangular with a real
    diagonal (LAPACK's signs, as JAX). Differentiated by JAX's rule, also
    for wide matrices and full_matrices. `use_magma` (a GPU backend choice
    in JAX) is accepted and ignored."""
    del use_magma
    if pivoting:
        raise NotImplementedError("lax.linalg.qr(pivoting=True) is not implemented in jaxc")
    x = _matrix("lax.linalg.qr", x, complex_ok=True)
    *batch, m, n = x.shape
    if m == 0 or n == 0:
        k = m if full_matrices else min(m, n)
        return (jnp.broadcast_to(jnp.eye(m, k, dtype=x.dtype), (*batch, m, k)),
                jnp.zeros((*batch, k, n), x.dtype))
    q, r = _qr(bool(full_matrices), x)
    return q, r


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _qr(full_matrices: bool, x: Any) -> tuple[Any, Any]:
    q, r = QR.bind(x, full_matrices=full_matrices)
    return q, r


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
    """(dq, dr) of x = q r for m >= n, q (m x n), r (n x n) (JAX's rule)."""
    dx_rinv = triangular_solve(r, dx)  # dx r^-1 (a right-side solve)
    qt_dx_rinv = jnp.matmul(_h(q), dx_rinv)
    lower = jnp.tril(qt_dx_rinv, -1)
    do = lower - _h(lower)  # skew-Hermitian
    if jnp.iscomplexobj(qt_dx_rinv):  # the imaginary part of the diagonal
        n = r.shape[-1]
        do = do + jnp.eye(n, dtype=do.dtype) * (qt_dx_rinv - jnp.real(qt_dx_rinv).astype(qt_dx_rinv.dtype))
    return jnp.matmul(q, do - qt_dx_rinv) + dx_rinv, jnp.matmul(qt_dx_rinv - do, r)


@_qr.defjvp
def _qr_jvp(full_matrices: bool, primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    """JAX's QR derivative: the thin rule on the square part of a wide
    matrix (dR2 = dQ^H X2 + Q^H dX2 for the rest), and for full_matrices of
    a tall one the last m - n columns of dQ by Z = Q_pn (Q_nn - I)^-1
    (arXiv 2409.13374, Eqs. 32-33)."""
    (x,), (dx,) = primals, tangents
    q, r = _qr(full_matrices, x)
    m, n = x.shape[-2:]
    if m < n:
        dq, dr1 = _thin_qr_jvp(q, r[..., :, :m], dx[..., :, :m])
        dr2 = jnp.matmul(_h(dq), x[..., :, m:]) + jnp.matmul(_h(q), dx[..., :, m:])
        return (q, r), (dq, jnp.concatenate([dr1, dr2], axis=-1))
    q_mn = q[..., :, :n] if full_matrices else q
    r_nn = r[..., :n, :n] if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return (q, r), (dq_mn, dr_nn)
    q_nn, q_pn, q_mp = q_mn[..., :n, :], q_mn[..., n:, :], q[..., :, n:]
    dq_nn, dq_pn = dq_mn[..., :n, :], dq_mn[..., n:, :]
    z_pn_h = jnp.linalg.solve(_h(q_nn - jnp.eye(n, dtype=q.dtype)), _h(q_pn))  # (Q_nn - I)^H Z^H = Q_pn^H
    z_pn = _h(z_pn_h)
    dq_mp = jnp.matmul(dq_mn, z_pn_h) - jnp.matmul(q_mn + jnp.matmul(q_mp, z_pn),
                                                     _h(dq_pn - jnp.matmul(z_pn, dq_nn)))
    dr = jnp.concatenate([dr_nn, jnp.zeros((*dr_nn.shape[:-2], m - n, n), dr_nn.dtype)], axis=-2)
    return (q, r), (jnp.concatenate([dq_mn, dq_mp], axis=-1), dr)


# ------------------------------------------------ LAPACK's packed Householder forms

def _operands(fn: str, arrays: tuple[Any, ...], ranks: tuple[int, ...], complex_ok: bool = True) -> list[Any]:
    """The operands of lax.linalg.`fn` as arrays, checked as JAX checks a
    linear-algebra primitive's (TypeError): each of at least its rank, of a
    floating (or, with `complex_ok`, complex) dtype, all of one dtype, with
    one number of batch dimensions."""
    checked = [jnp.asarray(x) for x in arrays]
    kind = jnp.inexact if complex_ok else jnp.floating
    for i, (x, rank) in enumerate(zip(checked, ranks)):
        if not jnp.issubdtype(x.dtype, kind):
            what = "floating-point or complex" if complex_ok else "floating-point"
            raise TypeError(f"lax.linalg.{fn}: argument {i} must be a {what} array, got {x.dtype}")
        if x.ndim < rank:
            raise TypeError(f"lax.linalg.{fn}: argument {i} must have rank at least {rank}, got shape {x.shape}")
    if len({x.dtype for x in checked}) > 1:
        raise TypeError(f"lax.linalg.{fn}: the arguments must have one dtype, got "
                        f"{', '.join(str(x.dtype) for x in checked)}")
    if len({x.ndim - rank for x, rank in zip(checked, ranks)}) > 1:
        raise TypeError(f"lax.linalg.{fn}: the arguments must have the same number of batch dimensions, got "
                        f"shapes {', '.join(str(x.shape) for x in checked)}")
    return checked


def _column(x: Any, j: Any) -> Any:
    """Column j (a traced index) of the matrices x (..., m, n)."""
    return _ops.dynamic_index_in_dim(x, j, axis=-1, keepdims=False)


def _larfg(alpha: Any, x: Any) -> tuple[Any, Any, Any]:
    """LAPACK's larfg for a vector [alpha, x] (alpha (...), x (..., m), zero
    outside the vector): (beta, tau, v) with H = I - tau [1, v] [1, v]^H and
    H^H [alpha, x] = [beta, 0]: beta real, -sign(Re alpha) |[alpha, x]|,
    tau = (beta - alpha) / beta, v = x / (alpha - beta). Where x is zero and
    alpha real, H = I (tau 0, beta alpha)."""
    rest = jnp.sum(jnp.abs(x) ** 2, axis=-1)
    identity = rest == 0
    if jnp.iscomplexobj(alpha):
        identity = identity & (jnp.imag(alpha) == 0)
    norm = jnp.sqrt(jnp.abs(alpha) ** 2 + rest).astype(alpha.dtype)
    beta = jnp.where(identity, alpha, jnp.where(jnp.real(alpha) >= 0, -norm, norm))
    tau = jnp.where(identity, 0, (beta - alpha) / jnp.where(identity, 1, beta))
    v = x / jnp.where(identity, 1, alpha - beta)[..., None]
    return beta, tau, v


def _reduce(a: Any, offset: int, two_sided: bool, pivoting: bool = False) -> tuple[Any, Any, Any, Any]:
    """LAPACK's unblocked Householder reductions of matrices a (..., m, n):
    step j reflects column j from row j + offset down onto that row (H_j
    from _larfg) and applies H_j^H on the left (geqrf: offset 0) or on both
    sides, H_j^H a H_j (gehrd, sytrd: offset 1). With `pivoting` (geqp3),
    the remaining column of largest norm is swapped into column j first.
    Returns (r, vs, taus, permutation): r the reduced matrices (exact zeros
    below row j + offset in column j), vs the reflectors as columns (1 at
    row j + offset), taus (..., steps), the column order (int32, (..., n))."""
    *batch, m, n = a.shape
    steps = min(m, n) if offset == 0 else max(n - 1, 0)
    rows, cols = jnp.arange(m), jnp.arange(n)
    one = jnp.ones((), a.dtype)

    def step(j: Any, carry: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
        r, vs, taus, permutation = carry
        if pivoting:
            norms = jnp.sum(jnp.where(rows[:, None] >= j, jnp.abs(r) ** 2, 0), axis=-2)
            p = jnp.argmax(jnp.where(cols >= j, norms, -1), axis=-1).astype(np.int32)[..., None]
            order = jnp.where(cols == j, p, jnp.where(cols == p, j, cols))
            r = jnp.take_along_axis(r, jnp.broadcast_to(order[..., None, :], r.shape), axis=-1)
            permutation = jnp.take_along_axis(permutation, order, axis=-1)
        column = _column(r, j)
        top = j + offset
        alpha = jnp.sum(jnp.where(rows == top, column, 0), axis=-1)
        beta, tau, v = _larfg(alpha, jnp.where(rows > top, column, 0))
        v = jnp.where(rows == top, one, v)
        r = r - _conj(tau)[..., None, None] * _outer(v, _vecmat(_conj(v), r))
        if two_sided:
            r = r - tau[..., None, None] * _outer(_matvec(r, v), _conj(v))
        column = jnp.where(rows < top, column, jnp.where(rows == top, beta[..., None], 0))
        r = jnp.where(cols == j, column[..., :, None], r)
        vs = jnp.where(cols == j, v[..., :, None], vs)
        taus = jnp.where(jnp.arange(steps) == j, tau[..., None], taus)
        return r, vs, taus, permutation

    start = (a, jnp.zeros_like(a), jnp.zeros((*batch, steps), a.dtype),
             jnp.broadcast_to(cols.astype(np.int32), (*batch, n)))
    return fori_loop(0, steps, step, start) if steps else start


def _packed(r: Any, vs: Any, offset: int) -> Any:
    """LAPACK's packed matrix: the reflectors below the band, r on and above."""
    m, n = r.shape[-2:]
    below = jnp.arange(m)[:, None] > jnp.arange(n)[None, :] + offset
    return jnp.where(below, vs, r)


def _square_operand(fn: str, a: Any) -> Any:
    (a,) = _operands(fn, (a,), (2,))
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"lax.linalg.{fn}: the argument must be a batch of square matrices, got shape {a.shape}")
    return a


def hessenberg(a: Any) -> list[Any]:
    """[a, taus]: the upper Hessenberg form of square (..., n, n) matrices,
    packed as LAPACK's gehrd: on and above the first subdiagonal of `a` the
    Hessenberg matrix h, below it the Householder vectors v_i (v_i's entry
    i + 1 is an implied 1); taus (..., n - 1). a = q h q^H with
    q = householder_product(a, taus) on rows and columns 1 and on. Real
    f32/f64 matrices: `jaxc.hessenberg` (the compiled library, eig.c);
    others a jnp program (unblocked reflections)."""
    a = _square_operand("hessenberg", a)
    if library_computes(a):
        return list(HESSENBERG.bind(a))
    r, vs, taus, _ = _reduce(a, 1, True)
    return [_packed(r, vs, 1), taus]


def tridiagonal(a: Any, *, lower: bool = True) -> list[Any]:
    """[a, d, e, taus]: the tridiagonal form of Hermitian (..., n, n)
    matrices read from their `lower` (or upper) triangle, as LAPACK's
    sytrd/hetrd: d (real) the diagonal, e (real) the first sub- (or super-)
    diagonal, and `a` with d, e and, beyond them, the Householder vectors in
    that triangle (the other one as given); taus (..., n - 1)."""
    a = _square_operand("tridiagonal", a)
    if not lower:  # the upper reduction is the lower one of the matrix reversed along both axes
        flipped, d, e, taus = tridiagonal(a[..., ::-1, ::-1], lower=True)
        return [flipped[..., ::-1, ::-1], d[..., ::-1], e[..., ::-1], taus[..., ::-1]]
    n = a.shape[-1]
    triangle = jnp.tril(a, -1)
    diagonal = jnp.real(jnp.diagonal(a, axis1=-2, axis2=-1)).astype(a.dtype)
    hermitian = triangle + _conj(jnp.swapaxes(triangle, -1, -2)) + diagonal[..., None] * jnp.eye(n, dtype=a.dtype)
    r, vs, taus, _ = _reduce(hermitian, 1, True)
    d = jnp.real(jnp.diagonal(r, axis1=-2, axis2=-1))
    e = jnp.real(jnp.diagonal(r, offset=-1, axis1=-2, axis2=-1))
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    by_column = jnp.concatenate([e, jnp.zeros((*e.shape[:-1], 1), e.dtype)], axis=-1)  # e[j] at (j + 1, j)
    band = jnp.where(rows == cols, d[..., None, :].astype(a.dtype),
                     jnp.where(rows == cols + 1, by_column[..., None, :].astype(a.dtype), a))
    return [jnp.where(rows > cols + 1, vs, band), d, e, taus]


def _reflectors(a: Any, taus: Any, c: Any, left: bool, transpose: bool) -> Any:
    """Q c, Q^H c (`transpose`), c Q or c Q^H (not `left`) for
    Q = H_0 H_1 ... H_{k-1}, H_i = I - taus_i v_i v_i^H, v_i column i of `a`
    below the diagonal with 1 on it (LAPACK's ormqr/unmqr)."""
    m = a.shape[-2]
    k = taus.shape[-1]
    rows = jnp.arange(m)
    one = jnp.ones((), a.dtype)

    def apply(s: Any, c: Any) -> Any:
        i = k - 1 - s if left != transpose else s  # the reflector applied first
        v = jnp.where(rows > i, _column(a, i), jnp.where(rows == i, one, 0))
        tau = _ops.dynamic_index_in_dim(taus, i, axis=-1)[..., None]
        tau = _conj(tau) if transpose else tau
        if left:
            return c - tau * _outer(v, _vecmat(_conj(v), c))
        return c - tau * _outer(_matvec(c, v), _conj(v))

    return fori_loop(0, k, apply, c) if k else c


def _reflector_operands(fn: str, a: Any, taus: Any) -> None:
    m, n = a.shape[-2:]
    if taus.shape[-1] > min(m, n):
        raise ValueError(f"lax.linalg.{fn}: {taus.shape[-1]} taus are more than the {min(m, n)} reflectors that "
                         f"a of shape {a.shape} holds")
    if a.shape[:-2] != taus.shape[:-1]:
        raise ValueError(f"lax.linalg.{fn}: a of shape {a.shape} and taus of shape {taus.shape} differ in their "
                         "batch dimensions")


def householder_product(a: Any, taus: Any) -> Any:
    """The first n columns of H_0 H_1 ... H_{k-1} (LAPACK's orgqr/ungqr):
    (..., m, n) matrices with orthonormal columns, from the reflectors below
    the diagonal of `a` (..., m, n), m >= n, and `taus` (..., k), k <= n."""
    a, taus = _operands("householder_product", (a, taus), (2, 1))
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(f"lax.linalg.householder_product: a must have at least as many rows as columns, got "
                         f"shape {a.shape}")
    _reflector_operands("householder_product", a, taus)
    eye = jnp.broadcast_to(jnp.eye(m, n, dtype=a.dtype), a.shape)
    return _reflectors(a, taus, eye, left=True, transpose=False)


def ormqr(a: Any, taus: Any, c: Any, *, left: bool = True, transpose: bool = False) -> Any:
    """Q c, Q^H c (`transpose`), c Q or c Q^H (not `left`) without forming Q,
    the m x m product of the reflectors in `a` (..., m, n) and `taus`
    (..., k), as LAPACK's ormqr/unmqr; `c` (..., p, q) with m rows (`left`)
    or m columns."""
    a, taus, c = _operands("ormqr", (a, taus, c), (2, 1, 2))
    m = a.shape[-2]
    if (c.shape[-2] if left else c.shape[-1]) != m:
        side = "rows" if left else "columns"
        raise ValueError(f"lax.linalg.ormqr: with left={left}, c must have as many {side} as a has rows, got a "
                         f"of shape {a.shape} and c of shape {c.shape}")
    _reflector_operands("ormqr", a, taus)
    if c.shape[:-2] != a.shape[:-2]:
        raise ValueError(f"lax.linalg.ormqr: a of shape {a.shape} and c of shape {c.shape} differ in their batch "
                         "dimensions")
    return _reflectors(a, taus, c, left, transpose)


def _geqrf(a: Any, pivoting: bool = False) -> tuple[Any, Any, Any, Any]:
    """(packed, taus, r, permutation): LAPACK's geqrf (geqp3 with
    `pivoting`) of matrices (..., m, n), real or complex; r is R (m x n)."""
    r, vs, taus, permutation = _reduce(a, 0, False, pivoting)
    return _packed(r, vs, 0), taus, r, permutation


# ---------------------------------------------------------------------- eigh

def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: Any = None, implementation: Any = None) -> tuple[Any, Any]:
    """(v, w): the eigenvectors (columns of v, orthonormal) and eigenvalues
    (ascending, real) of symmetric or, complex, Hermitian (..., n, n)
    matrices, as JAX's lax.linalg.eigh. With `symmetrize_input` (x + x^H) / 2
    is used, else only the `lower` (or upper) triangle is read (and the real
    part of the diagonal). `implementation` (an EighImplementation) is
    ignored, as JAX on CPU ignores a value it does not know: jaxc has one
    per target (`jaxc.eigh`)."""
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.eigh(subset_by_index=...) is not implemented in jaxc")
    del sort_eigenvalues, implementation  # always sorted; one implementation
    x = _matrix("lax.linalg.eigh", x, square=True, complex_ok=True)
    if x.shape[-1] == 0:
        return x, jnp.zeros(x.shape[:-1], dtypes.real_dtype(x.dtype))
    if symmetrize_input:
        x = (x + _h(x)) / 2
    else:
        x = _from_triangle(x, lower)
    w, v = _eigh(x)
    return v, w


def _from_triangle(x: Any, lower: bool) -> Any:
    """The symmetric (complex: Hermitian, with the real part of x's
    diagonal) matrices whose lower (or upper) triangle is x's."""
    if jnp.iscomplexobj(x):
        strict = jnp.tril(x, -1) if lower else jnp.triu(x, 1)
        diagonal = jnp.real(jnp.diagonal(x, axis1=-2, axis2=-1)).astype(x.dtype)
        return strict + _h(strict) + diagonal[..., None] * jnp.eye(x.shape[-1], dtype=x.dtype)
    triangle = jnp.tril(x) if lower else jnp.triu(x)
    return triangle + jnp.swapaxes(triangle, -1, -2) - triangle * jnp.eye(x.shape[-1], dtype=x.dtype)


@custom_jvp
def _eigh(a: Any) -> tuple[Any, Any]:
    """(w ascending, v) of symmetric (Hermitian) `a`: one `jaxc.eigh`
    (the library's tridiagonal QL on the CPU, cyclic Jacobi sweeps
    elsewhere)."""
    v, w = EIGH.bind(a, lower=True)
    return w, v


@_eigh.defjvp
def _eigh_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    w, v = _eigh(a)
    rotated = jnp.matmul(_h(v), jnp.matmul(da, v))  # V^H dA V
    gaps = w[..., None, :] - w[..., :, None]  # w_j - w_i
    n = a.shape[-1]
    off = ~jnp.eye(n, dtype=bool)
    # 0 for equal eigenvalues too (JAX's inf there makes 0 * inf = NaN in
    # gradients that do not use the eigenvectors at all, e.g. of eigvalsh)
    distinct = off & (gaps != 0)
    factors = jnp.where(distinct, 1 / jnp.where(distinct, gaps, 1), 0)
    dw = jnp.diagonal(rotated, axis1=-2, axis2=-1)
    if jnp.iscomplexobj(a):  # dA is Hermitian, so the diagonal of V^H dA V is real
        dw, factors = jnp.real(dw), factors.astype(a.dtype)
    return (w, v), (dw, jnp.matmul(v, factors * rotated))


# ----------------------------------------------------------------------- eig

def eig(x: Any, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: Any = None, use_magma: Any = None) -> list[Any]:
    """[w, vl, vr] (vl and vr as asked for) of square (..., n, n) matrices,
    real or complex, all complex: x vr = vr diag(w) and vl^H x = diag(w) vl^H,
    every column of norm 1. Real f32/f64: `jaxc.eig` (the compiled library,
    eig.c, as LAPACK's geev: each column's largest component real); else
    lax/_eig.py's program (the complex Schur form by shifted QR).
    Derivatives: JAX's rule for w and vr (vl is not differentiated).
    `implementation`: None or any EigImplementation (jaxc has one)."""
    if implementation is not None and not isinstance(implementation, EigImplementation):
        raise ValueError(f"lax.linalg.eig: implementation must be None or an EigImplementation, "
                         f"got {implementation!r}")
    del enable_eigvec_derivs, implementation, use_magma  # one implementation, always differentiable
    from ._eig import _normalize_columns, eig_left_right, eig_values_vectors, eigenvalues
    x = _matrix("lax.linalg.eig", x, square=True, complex_ok=True)
    if not compute_left_eigenvectors and not compute_right_eigenvectors:
        return [eigenvalues(x)]
    if compute_left_eigenvectors and library_computes(x):  # one geev for both (vl not differentiated)
        w, vl, vr = eig_left_right(x)
        return [w, vl, vr] if compute_right_eigenvectors else [w, vl]
    w, vr = eig_values_vectors(x)
    out = [w]
    if compute_left_eigenvectors:  # rows of vr^-1 are the left eigenvectors (conjugated)
        out.append(_normalize_columns(jnp.conj(jnp.swapaxes(jnp.linalg.inv(vr), -1, -2))))
    if compute_right_eigenvectors:
        out.append(vr)
    return out


# ----------------------------------------------------------------------- SVD

def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index: Any = None,
        algorithm: Any = None) -> Any:
    """The singular value decomposition of (..., m, n) matrices, as JAX's
    lax.linalg.svd: s (descending, real, min(m, n) of them) or (u, s, vh)
    with x = u diag(s) vh, u and vh orthogonal (unitary, for complex x);
    u is m x m and vh n x n with `full_matrices`, else m x k and k x n
    (k = min(m, n)). `algorithm`, None or any SvdAlgorithm,
    is accepted and ignored: jaxc has one (one-sided Jacobi); another value
    raises NotImplementedError, as in JAX."""
    if algorithm is not None and not isinstance(algorithm, SvdAlgorithm):
        raise NotImplementedError(f"lax.linalg.svd: algorithm must be None or an SvdAlgorithm, got {algorithm!r}")
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.svd(subset_by_index=...) is not implemented in jaxc")
    x = _matrix("lax.linalg.svd", x, complex_ok=True)
    if not compute_uv:
        return _singular_values(x)
    if full_matrices and x.shape[-2] != x.shape[-1]:
        return _svd_full(x)
    s, u, vh = _svd(x)
    return u, s, vh


def _svd_parts(x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
    """(s, u, vh) of x: one `jaxc.svd` (the library on the CPU, one-sided
    Jacobi sweeps elsewhere); for an empty x the identity's vectors."""
    *batch, m, n = x.shape
    if m == 0 or n == 0:
        ku, kv = (m, n) if full_matrices else (0, 0)
        return (jnp.zeros((*batch, 0), dtypes.real_dtype(x.dtype)),
                jnp.broadcast_to(jnp.eye(m, ku, dtype=x.dtype), (*batch, m, ku)),
                jnp.broadcast_to(jnp.eye(kv, n, dtype=x.dtype), (*batch, kv, n)))
    s, u, vh = SVD.bind(x, full_matrices=full_matrices)
    return s, u, vh


@custom_jvp
def _singular_values(x: Any) -> Any:
    return _svd_parts(x, False)[0]


@_singular_values.defjvp
def _singular_values_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    s, u, vh = _svd(x)  # the custom_jvp function, so that outer derivatives differentiate its rule
    if jnp.iscomplexobj(x):  # re diag(U^H dX V)
        return s, jnp.real(jnp.einsum("...ik,...ij,...kj->...k", jnp.conj(u), dx, jnp.conj(vh)))
    return s, jnp.einsum("...ik,...ij,...kj->...k", u, dx, vh)  # diag(U^T dX V)


@custom_jvp
def _svd(x: Any) -> tuple[Any, Any, Any]:
    return _svd_parts(x, False)


@_svd.defjvp
def _svd_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    """The reduced SVD's derivative. With dP = U^H dX V (k x k),
    ds = re diag(dP); dU = U (F o (dP S + S dP^H)) + (I - U U^H) dX V S^-1; dV = V (F o (S dP + dP^H S))
    + (I - V V^H) dX^H U S^-1, F_ij = 1 / (s_j^2 - s_i^2) off the diagonal
    (0 where equal). The projections vanish for square x. For complex x, dU
    also gets U (i im diag(dP) / S): the phases of U and V are tied (as JAX's)."""
    (x,), (dx,) = primals, tangents
    s, u, vh = _svd(x)
    complex_input = jnp.iscomplexobj(x)
    v = _h(vh)
    ut = _h(u)
    dp = jnp.matmul(ut, jnp.matmul(dx, v))
    dpt = _h(dp)
    k = s.shape[-1]
    row, col = s[..., :, None], s[..., None, :]
    gaps = (col - row) * (col + row)  # s_j^2 - s_i^2
    distinct = ~jnp.eye(k, dtype=bool) & (gaps != 0)
    f = jnp.where(distinct, 1 / jnp.where(distinct, gaps, 1), 0)
    s_inv = jnp.where(s != 0, 1 / jnp.where(s != 0, s, 1), 0)
    if complex_input:  # the real factors as x's dtype
        f, row, col, s_inv = (y.astype(x.dtype) for y in (f, row, col, s_inv))
    du = jnp.matmul(u, f * (dp * col + row * dpt))
    dv = jnp.matmul(v, f * (row * dp + dpt * col))
    ds = jnp.diagonal(dp, axis1=-2, axis2=-1)
    if complex_input:
        du = du + u * ((ds - jnp.conj(ds)) / 2 * s_inv)[..., None, :]
        ds = jnp.real(ds)
    m, n = x.shape[-2:]
    if m > n:
        dxv = jnp.matmul(dx, v)
        du = du + (dxv - jnp.matmul(u, jnp.matmul(ut, dxv))) * s_inv[..., None, :]
    if n > m:
        dxu = jnp.matmul(_h(dx), u)
        dv = dv + (dxu - jnp.matmul(v, jnp.matmul(vh, dxu))) * s_inv[..., None, :]
    return (s, u, vh), (ds, du, _h(dv))


@custom_jvp
def _svd_full(x: Any) -> tuple[Any, Any, Any]:
    s, u, vh = _svd_parts(x, True)
    return u, s, vh


@_svd_full.defjvp
def _svd_full_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    raise NotImplementedError("the derivative of svd(full_matrices=True) of a non-square matrix is not "
                              "defined (the extra singular vectors are not unique): use full_matrices=False")


# ------------------------------------------------ Cholesky update, symmetric product

def cholesky_update(r_matrix: Any, w_vector: Any) -> Any:
    """The upper Cholesky factor of R^T R + w w^T from the upper R
    (n x n, R^T R = A) and w (n,), in O(n^2): row k of R and the rest of w
    are rotated so that w[k] becomes 0 (r = hypot(R[k, k], w[k]))."""
    r, w = (jnp.asarray(x) for x in (r_matrix, w_vector))
    for i, (x, rank) in enumerate(((r, 2), (w, 1))):
        if x.ndim != rank:
            raise TypeError(f"lax.linalg.cholesky_update: argument {i} must have rank {rank}, got shape {x.shape}")
    r, w = _operands("cholesky_update", (r, w), (2, 1), complex_ok=False)
    n = r.shape[0]
    if r.shape[1] != n or w.shape[0] != n:
        raise ValueError(f"lax.linalg.cholesky_update: needs a square matrix and a vector of its size, got shapes "
                         f"{r.shape} and {w.shape}")
    columns = jnp.arange(n)

    def step(k: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        r, w = carry
        row = _ops.dynamic_index_in_dim(r, k, keepdims=False)
        diagonal = jnp.sum(jnp.where(columns == k, row, 0))
        wk = jnp.sum(jnp.where(columns == k, w, 0))
        radius = jnp.sqrt(diagonal * diagonal + wk * wk)
        c, s = radius / diagonal, wk / diagonal
        rest = (row + s * w) / c
        row = jnp.where(columns > k, rest, jnp.where(columns == k, radius, row))
        w = jnp.where(columns > k, c * w - s * rest, 0)
        return jnp.where(columns[:, None] == k, row[None, :], r), w

    return fori_loop(0, n, step, (r, w))[0] if n else r


def symmetric_product(a_matrix: Any, c_matrix: Any, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False) -> Any:
    """alpha A A^T + beta C for A (..., m, n) and C (..., m, m). With
    `symmetrize_output` the upper triangle is the transpose of the lower."""
    a, c = _operands("symmetric_product", (a_matrix, c_matrix), (2, 2), complex_ok=False)
    if c.shape[-1] != c.shape[-2] or c.shape[-1] != a.shape[-2]:
        raise ValueError(f"lax.linalg.symmetric_product: needs A of shape (..., m, n) and C of shape (..., m, m), "
                         f"got {a.shape} and {c.shape}")
    if a.shape[:-2] != c.shape[:-2]:
        raise TypeError(f"lax.linalg.symmetric_product: A of shape {a.shape} and C of shape {c.shape} differ in "
                        "their batch dimensions")
    out = alpha * jnp.matmul(a, jnp.swapaxes(a, -1, -2)) + beta * c
    if symmetrize_output:
        lower = jnp.tril(out, -1)
        out = lower + jnp.swapaxes(lower, -1, -2) + jnp.tril(jnp.triu(out))
    return out


# -------------------------------------------------------------- tridiagonal solve

def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False) -> Any:
    """x with A x = b for the tridiagonal (..., m, m) A with sub-, main and
    superdiagonal dl, d, du (..., m) (dl[0] and du[m - 1] are not read)
    and b (..., m, k): Gaussian elimination with row interchanges, as
    LAPACK's gtsv. A singular A gives NaNs; with `perturb_singular`, pivots
    below eps max|U| are raised to that size instead (a finite x, for
    inverse iteration). Differentiable in all four (JAX's rule)."""
    dl, d, du, b = _operands("tridiagonal_solve", (dl, d, du, b), (1, 1, 1, 2))
    if not dl.shape == d.shape == du.shape:
        raise TypeError(f"lax.linalg.tridiagonal_solve: the diagonals must have one shape, got {dl.shape}, "
                        f"{d.shape} and {du.shape}")
    if b.shape[:-2] != d.shape[:-1]:
        raise ValueError(f"lax.linalg.tridiagonal_solve: b of shape {b.shape} and diagonals of shape {d.shape} "
                         "differ in their batch dimensions")
    if b.shape[-2] != d.shape[-1]:
        raise TypeError(f"lax.linalg.tridiagonal_solve: b of shape {b.shape} must have {d.shape[-1]} rows, as the "
                        f"diagonals (of shape {d.shape})")
    return _tridiagonal_solve(bool(perturb_singular), dl, d, du, b)


def _tridiagonal_factor(dl: Any, d: Any, du: Any, perturb: bool) -> tuple[Any, Any, Any, Any, Any]:
    """gtsv's elimination as a factorization (swaps, l, u0, u1, u2): at
    step i rows i and i + 1 are swapped where |d_i| < |dl_{i+1}|, and l_i
    times row i is taken from row i + 1; U has diagonal u0 and
    superdiagonals u1, u2. Zero pivots become NaN (or, with `perturb`,
    +-eps max|U|)."""
    m = d.shape[-1]
    index = jnp.arange(m)
    dl = jnp.where(index == 0, 0, dl)
    du = jnp.where(index == m - 1, 0, du)

    def entry(x: Any, i: Any) -> Any:
        return _ops.dynamic_index_in_dim(x, i, axis=-1, keepdims=False)

    def step(i: Any, carry: tuple[Any, ...]) -> tuple[Any, ...]:
        swaps, l, u0, u1, u2 = carry
        pivot, below, up = entry(u0, i), entry(dl, i + 1), entry(u1, i)
        next_diagonal, next_up = entry(u0, i + 1), entry(u1, i + 1)
        swap = jnp.abs(pivot) < jnp.abs(below)
        factor = jnp.where(swap, pivot / jnp.where(swap, below, 1),
                           jnp.where(pivot != 0, below / jnp.where(pivot != 0, pivot, 1), 0))
        at_i, at_next = (index == i), (index == i + 1)
        u0 = jnp.where(at_i, jnp.where(swap, below, pivot)[..., None], u0)
        u0 = jnp.where(at_next, jnp.where(swap, up - factor * next_diagonal, next_diagonal - factor * up)[..., None],
                       u0)
        u1 = jnp.where(at_i, jnp.where(swap, next_diagonal, up)[..., None], u1)
        u1 = jnp.where(at_next, jnp.where(swap, -factor * next_up, next_up)[..., None], u1)
        u2 = jnp.where(at_i, jnp.where(swap, next_up, 0)[..., None], u2)
        l = jnp.where(at_i, factor[..., None], l)
        swaps = jnp.where(at_i, swap[..., None], swaps)
        return swaps, l, u0, u1, u2

    start = (jnp.zeros(d.shape, bool), jnp.zeros_like(d), d, du, jnp.zeros_like(d))
    swaps, l, u0, u1, u2 = fori_loop(0, m - 1, step, start) if m > 1 else start
    if perturb:
        largest = jnp.max(jnp.abs(jnp.concatenate([u0, u1, u2], axis=-1)), axis=-1, keepdims=True)
        tiny = (float(np.finfo(dtypes.real_dtype(d.dtype)).eps) * largest).astype(d.dtype)
        small = jnp.abs(u0) < jnp.abs(tiny)
        direction = jnp.where(u0 == 0, 1, u0 / jnp.where(u0 == 0, 1, jnp.abs(u0)).astype(d.dtype))
        u0 = jnp.where(small, direction * tiny, u0)
    else:
        u0 = jnp.where(jnp.any(u0 == 0, axis=-1, keepdims=True), jnp.nan, u0)
    return swaps, l, u0, u1, u2


def _tridiagonal_apply(factors: tuple[Any, ...], b: Any) -> Any:
    """x from the factors of _tridiagonal_factor: the row operations on b,
    then back substitution with U."""
    swaps, l, u0, u1, u2 = factors
    m = b.shape[-2]
    rows = jnp.arange(m)[:, None]

    def row(x: Any, i: Any) -> Any:
        return _ops.dynamic_index_in_dim(x, i, axis=-2, keepdims=False)

    def eliminate(i: Any, b: Any) -> Any:
        this, below = row(b, i), row(b, i + 1)
        swap = _ops.dynamic_index_in_dim(swaps, i, axis=-1)
        factor = _ops.dynamic_index_in_dim(l, i, axis=-1)
        new_this = jnp.where(swap, below, this)
        new_below = jnp.where(swap, this - factor * below, below - factor * this)
        b = jnp.where(rows == i, new_this[..., None, :], b)
        return jnp.where(rows == i + 1, new_below[..., None, :], b)

    def substitute(s: Any, x: Any) -> Any:
        i = m - 1 - s
        value = row(b, i) - _ops.dynamic_index_in_dim(u1, i, axis=-1) * row(x, jnp.minimum(i + 1, m - 1)) \
            - _ops.dynamic_index_in_dim(u2, i, axis=-1) * row(x, jnp.minimum(i + 2, m - 1))
        return jnp.where(rows == i, (value / _ops.dynamic_index_in_dim(u0, i, axis=-1))[..., None, :], x)

    if m == 0:
        return b
    if m > 1:
        b = fori_loop(0, m - 1, eliminate, b)
    return fori_loop(0, m, substitute, jnp.zeros_like(b))


def _tridiagonal_matmul(dl: Any, d: Any, du: Any, x: Any) -> Any:
    """A x for the tridiagonal A of (dl, d, du) (dl[0], du[m - 1] unread)."""
    zero = jnp.zeros_like(x[..., :1, :])
    above = jnp.concatenate([zero, x[..., :-1, :]], axis=-2)  # x[i - 1] in row i
    below = jnp.concatenate([x[..., 1:, :], zero], axis=-2)  # x[i + 1] in row i
    return dl[..., None] * above + d[..., None] * x + du[..., None] * below


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _tridiagonal_solve(perturb: bool, dl: Any, d: Any, du: Any, b: Any) -> Any:
    return _tridiagonal_apply(_tridiagonal_factor(dl, d, du, perturb), b)


@_tridiagonal_solve.defjvp
def _tridiagonal_solve_jvp(perturb: bool, primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """dx = A^-1 (db - dA x)."""
    dl, d, du, b = primals
    ddl, dd, ddu, db = tangents
    factors = _tridiagonal_factor(dl, d, du, perturb)
    x = _tridiagonal_apply(factors, b)
    return x, _tridiagonal_apply(factors, db - _tridiagonal_matmul(ddl, dd, ddu, x))


# ------------------------------------------------------------------------ QDWH

def _qdwh_weights(eps: float, max_iterations: int) -> list[tuple[float, float, float]]:
    """The dynamic weights (a, b, c) of the steps until the lower bound l
    of the smallest singular value (from l = eps) reaches 1 - 5 eps:
    Nakatsukasa, Bai and Gygi's optimal Halley weights for [l, 1]."""
    weights: list[tuple[float, float, float]] = []
    l, tolerance = eps, 5 * eps
    while l + tolerance < 1 and len(weights) < max_iterations:
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        weights.append((a, b, c))
    return weights


def qdwh(x: Any, *, is_hermitian: bool = False, max_iterations: int | None = None, eps: float | None = None,
         dynamic_shape: tuple[int, int] | None = None) -> tuple[Any, Any, Any, Any]:
    """(u, h, num_iters, is_converged): the polar decomposition x = u h of
    an M x N matrix (M >= N) by the QR-based dynamically weighted Halley
    iteration, as JAX's: x is scaled by 1/sqrt(|x|_1 |x|_inf); each step
    u <- (b/c) u + (a - b/c) u (I + c u^H u)^-1 with the weights from
    _qdwh_weights (through a QR of [sqrt(c) u; I] while c > 100), then
    Halley steps (3, 1, 3) until |u - u_prev|_F <= (5 eps)^(1/3) or
    `max_iterations` (default 10) steps; a Newton-Schulz step refines u and
    h = (u^H x + (u^H x)^H) / 2. `dynamic_shape` (m, n), static: x's
    leading m x n block is decomposed and u, h padded with zeros.
    `is_hermitian` is unused, as in JAX."""
    del is_hermitian
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise ValueError(f"lax.linalg.qdwh: x must be a floating-point or complex array, got {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"lax.linalg.qdwh: x must be a matrix, got shape {x.shape}")
    rows, cols = x.shape
    if rows < cols:
        raise ValueError(f"lax.linalg.qdwh: the input matrix of shape M x N must have M >= N, got {x.shape}")
    max_iterations = 10 if max_iterations is None else operator.index(max_iterations)
    eps = float(np.finfo(dtypes.real_dtype(x.dtype)).eps) if eps is None else float(eps)
    if dynamic_shape is None:
        return _qdwh(x, max_iterations, eps)
    m, n = (operator.index(v) for v in dynamic_shape)
    u, h, iterations, converged = _qdwh(x[:m, :n], max_iterations, eps)
    return jnp.pad(u, ((0, rows - m), (0, cols - n))), jnp.pad(h, ((0, cols - n), (0, cols - n))), \
        iterations, converged


def _qdwh(x: Any, max_iterations: int, eps: float) -> tuple[Any, Any, Any, Any]:
    m, n = x.shape
    dtype = x.dtype
    eye = jnp.eye(n, dtype=dtype)
    one_norm = jnp.max(jnp.sum(jnp.abs(x), axis=0))
    inf_norm = jnp.max(jnp.sum(jnp.abs(x), axis=1))
    scale = jnp.where(one_norm == 0, 1, 1 / jnp.sqrt(jnp.where(one_norm == 0, 1, one_norm * inf_norm)))
    u = x * scale.astype(dtype)
    weights = _qdwh_weights(eps, max_iterations)
    by_qr = [w for w in weights if w[2] > 100]
    by_cholesky = weights[len(by_qr):]
    tolerance = (5 * eps) ** (1 / 3)

    def gram(u: Any) -> Any:
        return jnp.matmul(_conj(u.T), u)

    def qr_step(i: Any, u: Any) -> Any:
        a, b, c = (w[i] for w in coefficients(by_qr))
        packed, taus, _, _ = _geqrf(jnp.concatenate([jnp.sqrt(c).astype(dtype) * u, eye], axis=0))
        q = householder_product(packed, taus)
        e = b / c
        return e * u + ((a - e) / jnp.sqrt(c)) * jnp.matmul(q[:m], _conj(q[m:].T))

    def cholesky_step(u: Any, a: Any, b: Any, c: Any) -> tuple[Any, Any]:
        e = b / c  # u (I + c u^H u)^-1, by a solve with the Hermitian matrix
        inverse_times = _conj(jnp.linalg.solve(c * gram(u) + eye, _conj(u.T)).T)
        new = e * u + (a - e) * inverse_times
        return new, jnp.linalg.norm(new - u) > tolerance

    def coefficients(weights: list[tuple[float, float, float]]) -> tuple[Any, Any, Any]:
        return tuple(jnp.asarray([w[j] for w in weights], dtypes.real_dtype(dtype)) for j in range(3))

    if by_qr:
        u = fori_loop(0, len(by_qr), qr_step, u)
    unconverged = jnp.asarray(True)
    if by_cholesky:
        def weighted(i: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
            a, b, c = (w[i] for w in coefficients(by_cholesky))
            return cholesky_step(carry[0], a, b, c)
        u, unconverged = fori_loop(0, len(by_cholesky), weighted, (u, unconverged))

    def halley(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        k, u, _ = carry
        u, unconverged = cholesky_step(u, 3.0, 1.0, 3.0)
        return k + 1, u, unconverged

    start = (jnp.asarray(len(weights), dtypes.canonicalize(np.int64)), u, unconverged)
    iterations, u, unconverged = while_loop(lambda s: s[2] & (s[0] < max_iterations), halley, start)
    u = 1.5 * u - 0.5 * jnp.matmul(u, gram(u))
    h = jnp.matmul(_conj(u.T), x)
    return u, (h + _conj(h.T)) / 2, iterations, ~unconverged


# ----------------------------------------------------------------------- Schur

def schur(x: Any, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Any = None) -> list[Any]:
    """[t, z] (or [t] without `compute_schur_vectors`): the Schur form of
    square (..., n, n) matrices, x = z t z^H with z unitary: for real x the
    real Schur form (t quasi upper triangular, standardized 2x2 blocks for
    complex pairs), for complex x the complex one. Real f32/f64: `jaxc.schur`
    (the compiled library, eig.c: Francis double-shift QR), else the jnp
    programs of lax/_eig.py. Sorting (`sort_eig_vals`) is not implemented,
    as in JAX; `select_callable` is unused."""
    del select_callable
    x = _square_operand("schur", x)
    if sort_eig_vals:
        raise NotImplementedError("lax.linalg.schur: sort_eig_vals=True (the sort feature of LAPACK's gees) is not "
                                  "implemented")
    if library_computes(x):
        t, z = SCHUR.bind(x)
    else:
        from ._eig import schur_batched
        t, z = schur_batched(x)
    return [t, z] if compute_schur_vectors else [t]
