"""`jaxc.lax.linalg`: LU with partial pivoting, Cholesky and triangular
solves, as JAX's `jax.lax.linalg` has them.

Each is a program of jaxc ops, not a library call: a `fori_loop` over the
columns whose body updates the whole (batched) matrix with masked vector
operations, so it runs under jit, vmap and grad like any other program and
lowers through the normal stages (n steps of O(n^2) work each). LU at step
k, on rows r and columns c of `a`:

    p = argmax over r >= k of |a[r, k]|           (the pivot row)
    swap rows k and p
    l[r] = a[r, k] / a[k, k]        for r > k     (unscaled when a[k, k] == 0, as LAPACK)
    a[r, c] -= l[r] * a[k, c]       for r > k, c > k
    a[r, k] = l[r]                  for r > k

`qr` reflects column by column (Householder, LAPACK's signs: R's diagonal
may be negative) and `eigh` runs cyclic Jacobi sweeps until the
off-diagonal part is below the dtype's epsilon.

`cholesky` and `eigh` differentiate with JAX's rules (dL = L phi(L^-1 dA
L^-T), phi: the lower triangle, diagonal halved; dw = diag(V^T dA V),
dV = V (F o V^T dA V), F_ij = 1 / (w_j - w_i)); `lu`, `qr` and
`triangular_solve` are differentiated as the programs they are. Real dtypes
only (jaxc has no complex numbers yet).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as jnp
from .._autodiff import custom_jvp
from ._control_flow import fori_loop

__all__ = ["cholesky", "eig", "eigh", "lu", "lu_pivots_to_permutation", "qr", "svd", "triangular_solve"]


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


# --------------------------------------------------------------------- LU

def lu(x: Any) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting of (..., m, n) matrices:
    (lu, pivots, permutation). `lu` holds U on and above the diagonal and
    the multipliers of the unit lower L below it; `pivots[k]` (int32,
    min(m, n) of them) is the row swapped with row k at step k;
    `permutation` (int32, m) is the row order they make: x[permutation] = L U.
    Real or complex (the pivot is the largest modulus)."""
    x = _matrix("lax.linalg.lu", x, complex_ok=True)
    *batch, m, n = x.shape
    steps = min(m, n)
    rows, cols = jnp.arange(m, dtype=np.int32), jnp.arange(n, dtype=np.int32)

    def step(k: Any, state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        a, permutation, pivots = state
        column = a[..., :, k]
        p = jnp.argmax(jnp.where(rows >= k, jnp.abs(column), -1), axis=-1).astype(np.int32)[..., None]
        order = jnp.where(rows == k, p, jnp.where(rows == p, k, rows))  # swap rows k and p
        a = jnp.take_along_axis(a, jnp.broadcast_to(order[..., :, None], a.shape), axis=-2)
        permutation = jnp.take_along_axis(permutation, order, axis=-1)
        pivots = jnp.where(jnp.arange(steps, dtype=np.int32) == k, p, pivots)
        column, pivot = a[..., :, k], a[..., k, k][..., None]
        multipliers = jnp.where(rows > k, jnp.where(pivot != 0, column / pivot, column), 0)
        pivot_row = jnp.where(cols > k, a[..., k, :], 0)
        a = a - multipliers[..., :, None] * pivot_row[..., None, :]
        a = jnp.where((rows[:, None] > k) & (cols[None, :] == k), multipliers[..., :, None], a)
        return a, permutation, pivots

    start = (x, jnp.broadcast_to(rows, (*batch, m)), jnp.zeros((*batch, steps), np.int32))
    if steps == 0:  # nothing to factor (the loop body could not even be traced)
        return start[0], start[2], start[1]
    factors, permutation, pivots = fori_loop(0, steps, step, start)
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
    `b` must be equal, as in JAX."""
    a = _matrix("lax.linalg.triangular_solve", a, square=True, complex_ok=True)
    if conjugate_a:
        a = jnp.conj(a)
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
    if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        return jnp.swapaxes(triangular_solve(a, jnp.swapaxes(b, -1, -2), left_side=True, lower=lower,
                                             transpose_a=not transpose_a, unit_diagonal=unit_diagonal), -1, -2)
    if transpose_a:  # the transpose of a lower triangle is an upper one
        a, lower = jnp.swapaxes(a, -1, -2), not lower
    return _substitute(a, b, lower, unit_diagonal)


def _substitute(t: Any, b: Any, lower: bool, unit_diagonal: bool) -> Any:
    """Forward (`lower`) or backward substitution: x with t x = b."""
    n = t.shape[-1]
    rows = jnp.arange(n, dtype=np.int32)

    def step(s: Any, x: Any) -> Any:
        i = s if lower else n - 1 - s
        known = rows < i if lower else rows > i
        row = jnp.where(known, t[..., i, :], 0)
        value = b[..., i, :] - jnp.matmul(row[..., None, :], x)[..., 0, :]
        if not unit_diagonal:
            value = value / t[..., i, i][..., None]
        return jnp.where((rows == i)[:, None], value[..., None, :], x)

    return fori_loop(0, n, step, jnp.zeros_like(b)) if n else jnp.zeros_like(b)


# ------------------------------------------------------------------ Cholesky

def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of symmetric positive definite (..., n, n)
    matrices: L L^T = x. With `symmetrize_input`, (x + x^T) / 2 is factored.
    A matrix that is not positive definite gives a matrix of NaNs, as JAX."""
    x = _matrix("lax.linalg.cholesky", x, square=True)
    if symmetrize_input:
        x = (x + jnp.swapaxes(x, -1, -2)) / 2
    return _cholesky(x)


@custom_jvp
def _cholesky(x: Any) -> Any:
    n = x.shape[-1]
    rows = jnp.arange(n, dtype=np.int32)

    def step(j: Any, factor: Any) -> Any:
        residual = x[..., :, j] - jnp.matmul(factor, factor[..., j, :][..., :, None])[..., 0]
        diagonal = jnp.sqrt(residual[..., j])[..., None]
        column = jnp.where(rows > j, residual / diagonal, jnp.where(rows == j, diagonal, 0))
        return jnp.where(rows[None, :] == j, column[..., :, None], factor)

    if n == 0:
        return x
    factor = fori_loop(0, n, step, jnp.zeros_like(x))
    diagonal = jnp.diagonal(factor, axis1=-2, axis2=-1)
    ok = jnp.all(diagonal > 0, axis=-1) & jnp.all(jnp.isfinite(factor), axis=(-2, -1))
    return jnp.where(ok[..., None, None], factor, jnp.nan)


@_cholesky.defjvp
def _cholesky_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    factor = _cholesky(x)
    # L^-1 dx L^-T, then phi: its lower triangle with the diagonal halved
    right = triangular_solve(factor, dx, left_side=False, lower=True, transpose_a=True)
    middle = triangular_solve(factor, right, left_side=True, lower=True)
    n = x.shape[-1]
    halves = jnp.tril(jnp.ones((n, n), x.dtype)) - jnp.eye(n, dtype=x.dtype) / 2
    return factor, jnp.matmul(factor, middle * halves)


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


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True) -> tuple[Any, Any]:
    """(q, r) with x = q r for (..., m, n) matrices, by Householder
    reflections: q (m x m, or m x k with k = min(m, n) unless
    `full_matrices`) orthogonal, r (m x n, or k x n) upper triangular."""
    if pivoting:
        raise NotImplementedError("lax.linalg.qr(pivoting=True) is not implemented in jaxc")
    x = _matrix("lax.linalg.qr", x)
    r, q = _householder(x)
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices:
        return q, jnp.triu(r)
    return q[..., :, :k], jnp.triu(r[..., :k, :])


def _householder(z: Any) -> tuple[Any, Any]:
    """(R, Q) of z (..., m, n): min(m, n) reflections H = I - tau v v^T,
    each zeroing a column below the diagonal (beta = -sign(alpha) |x|, and
    no reflection where that part is already zero, as LAPACK's dlarfg),
    applied to z (giving R) and accumulated into Q (m x m)."""
    m, n = z.shape[-2:]
    rows = jnp.arange(m)
    eye = jnp.broadcast_to(jnp.eye(m, dtype=z.dtype), (*z.shape[:-2], m, m))

    def reflect(j: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        r, q = carry
        x = jnp.where(rows >= j, _matvec(r, _unit(n, j, z.dtype)), jnp.zeros((), z.dtype))
        ej = _unit(m, j, z.dtype)
        alpha = jnp.sum(x * ej, axis=-1, keepdims=True)
        norm = jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True))
        beta = jnp.where(alpha >= 0, -norm, norm)
        v = x - beta * ej
        vv = jnp.sum(v * v, axis=-1, keepdims=True)
        below = jnp.any(jnp.where(rows > j, x, 0) != 0, axis=-1, keepdims=True)
        reflects = below & (vv > 0)  # nothing below the diagonal: H = I, as dlarfg
        tau = jnp.where(reflects, 2 / jnp.where(reflects, vv, jnp.ones_like(vv)), jnp.zeros_like(vv))
        r = r - _outer(tau * v, _vecmat(v, r))
        q = q - _outer(_matvec(q, v) * tau, v)
        return r, q

    steps = min(m, n)
    return fori_loop(0, steps, reflect, (z, eye)) if steps else (z, eye)


# ---------------------------------------------------------------------- eigh

def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: Any = None) -> tuple[Any, Any]:
    """(v, w): the eigenvectors (columns of v) and eigenvalues (ascending)
    of symmetric (..., n, n) matrices, as JAX's lax.linalg.eigh. Without
    `symmetrize_input` only the `lower` (or upper) triangle is read."""
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.eigh(subset_by_index=...) is not implemented in jaxc")
    del sort_eigenvalues  # always sorted
    x = _matrix("lax.linalg.eigh", x, square=True)
    if symmetrize_input:
        x = (x + jnp.swapaxes(x, -1, -2)) / 2
    else:
        x = _from_triangle(x, lower)
    w, v = _eigh(x)
    return v, w


def _from_triangle(x: Any, lower: bool) -> Any:
    """The symmetric matrices whose lower (or upper) triangle is x's."""
    triangle = jnp.tril(x) if lower else jnp.triu(x)
    return triangle + jnp.swapaxes(triangle, -1, -2) - triangle * jnp.eye(x.shape[-1], dtype=x.dtype)


def _jacobi_rotation(app: Any, aqq: Any, apq: Any, ep: Any, eq: Any) -> tuple[Any, Any]:
    """Columns p and q of J - I for the Jacobi rotation J that zeroes the
    off-diagonal apq of the symmetric 2x2 [[app, apq], [apq, aqq]] (the
    identity where apq is already 0): c e_p - s e_q - e_p, s e_p + c e_q - e_q."""
    rotating = apq != 0
    theta = (aqq - app) / (2 * jnp.where(rotating, apq, jnp.ones_like(apq)))
    t = jnp.sign(theta) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1))
    t = jnp.where(theta == 0, jnp.ones_like(t), t)
    c = jnp.where(rotating, 1 / jnp.sqrt(t * t + 1), jnp.ones_like(t))
    s = jnp.where(rotating, t * c, jnp.zeros_like(t))
    return (c - 1) * ep - s * eq, s * ep + (c - 1) * eq


def _rotate_columns(x: Any, a1: Any, a2: Any, ep: Any, eq: Any) -> Any:
    """x J, for J - I given by its columns p (a1) and q (a2)."""
    return x + _outer(_matvec(x, a1), ep) + _outer(_matvec(x, a2), eq)


@custom_jvp
def _eigh(a: Any) -> tuple[Any, Any]:
    """(w ascending, v) of symmetric `a` by cyclic Jacobi sweeps: each
    rotation J zeroes a[p, q]; a <- J^T a J, v <- v J."""
    n = a.shape[-1]
    dtype = a.dtype
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    if not pairs:
        return jnp.diagonal(a, axis1=-2, axis2=-1), jnp.ones_like(a)
    unit_p = jnp.asarray(np.eye(n, dtype=dtype)[[p for p, _ in pairs]])
    unit_q = jnp.asarray(np.eye(n, dtype=dtype)[[q for _, q in pairs]])
    eps = float(np.finfo(dtype).eps)
    off_diagonal = ~jnp.eye(n, dtype=bool)
    from . import _ops

    def rotate(k: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        m, v = carry
        ep = _ops.dynamic_index_in_dim(unit_p, k, keepdims=False)
        eq = _ops.dynamic_index_in_dim(unit_q, k, keepdims=False)
        app = jnp.sum(_vecmat(ep, m) * ep, -1, keepdims=True)
        aqq = jnp.sum(_vecmat(eq, m) * eq, -1, keepdims=True)
        apq = jnp.sum(_vecmat(ep, m) * eq, -1, keepdims=True)
        a1, a2 = _jacobi_rotation(app, aqq, apq, ep, eq)
        mj = _rotate_columns(m, a1, a2, ep, eq)
        m = mj + _outer(ep, _vecmat(a1, mj)) + _outer(eq, _vecmat(a2, mj))
        return m, _rotate_columns(v, a1, a2, ep, eq)

    def off_diagonal_large(carry: tuple[Any, Any, Any]) -> Any:
        m, _, sweeps = carry
        off = jnp.sum(jnp.where(off_diagonal, m, 0) ** 2)  # not total - diagonal: that cancels
        return (off > (eps * eps) * jnp.sum(m * m)) & (sweeps < 30)

    def sweep(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        m, v, sweeps = carry
        m, v = fori_loop(0, len(pairs), rotate, (m, v))
        return m, v, sweeps + 1

    from ._control_flow import while_loop
    eye = jnp.broadcast_to(jnp.eye(n, dtype=dtype), a.shape)
    m, v, _ = while_loop(off_diagonal_large, sweep, (a, eye, jnp.int32(0)))
    w = jnp.diagonal(m, axis1=-2, axis2=-1)
    order = jnp.argsort(w, axis=-1)
    return (jnp.take_along_axis(w, order, axis=-1),
            jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1))


@_eigh.defjvp
def _eigh_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    w, v = _eigh(a)
    rotated = jnp.matmul(jnp.swapaxes(v, -1, -2), jnp.matmul(da, v))  # V^T dA V
    gaps = w[..., None, :] - w[..., :, None]  # w_j - w_i
    n = a.shape[-1]
    off = ~jnp.eye(n, dtype=bool)
    # 0 for equal eigenvalues too (JAX's inf there makes 0 * inf = NaN in
    # gradients that do not use the eigenvectors at all, e.g. of eigvalsh)
    distinct = off & (gaps != 0)
    factors = jnp.where(distinct, 1 / jnp.where(distinct, gaps, 1), 0)
    dw = jnp.diagonal(rotated, axis1=-2, axis2=-1)
    return (w, v), (dw, jnp.matmul(v, factors * rotated))


# ----------------------------------------------------------------------- eig

def eig(x: Any, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: Any = None, use_magma: Any = None) -> list[Any]:
    """[w, vl, vr] (vl and vr as asked for) of square (..., n, n) matrices,
    real or complex, all complex: x vr = vr diag(w) and vl^H x = diag(w) vl^H,
    every column of norm 1 (lax/_eig.py: the complex Schur form by shifted
    QR). Derivatives: JAX's rule for w and vr (vl is not differentiated)."""
    del enable_eigvec_derivs, implementation, use_magma  # one implementation, always differentiable
    from ._eig import _normalize_columns, eig_values_vectors
    x = _matrix("lax.linalg.eig", x, square=True, complex_ok=True)
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
    lax.linalg.svd: s (descending, min(m, n) of them) or (u, s, vh) with
    x = u diag(s) vh; u is m x m and vh n x n with `full_matrices`, else
    m x k and k x n (k = min(m, n)). `algorithm` is accepted and ignored:
    jaxc has one (one-sided Jacobi)."""
    del algorithm
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.svd(subset_by_index=...) is not implemented in jaxc")
    x = _matrix("lax.linalg.svd", x)
    if not compute_uv:
        return _singular_values(x)
    if full_matrices and x.shape[-2] != x.shape[-1]:
        return _svd_full(x)
    s, u, vh = _svd(x)
    return u, s, vh


def _svd_parts(x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
    """(s, u, vh) of x by one-sided Jacobi on the taller side: for m >= n
    the columns of x are rotated pairwise until orthogonal, x V = U S, then
    sorted; U is completed to an orthonormal basis by a QR of its columns
    (which also gives vectors for zero singular values). m < n: of x^T."""
    m, n = x.shape[-2:]
    if m < n:
        s, u, vh = _svd_parts(jnp.swapaxes(x, -1, -2), full_matrices)
        return s, jnp.swapaxes(vh, -1, -2), jnp.swapaxes(u, -1, -2)
    if n == 0:
        batch = x.shape[:-2]
        u = jnp.broadcast_to(jnp.eye(m, dtype=x.dtype), (*batch, m, m)) if full_matrices else \
            jnp.zeros((*batch, m, 0), x.dtype)
        return jnp.zeros((*batch, 0), x.dtype), u, jnp.zeros((*batch, 0, 0), x.dtype)
    columns, v = _orthogonalize_columns(x)
    s = jnp.sqrt(jnp.sum(columns * columns, axis=-2))
    order = jnp.argsort(-s, axis=-1)
    s = jnp.take_along_axis(s, order, axis=-1)
    columns = jnp.take_along_axis(columns, jnp.broadcast_to(order[..., None, :], columns.shape), axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    u = columns / jnp.where(s > 0, s, 1)[..., None, :]
    r, q = _householder(u)
    signs = jnp.where(jnp.diagonal(r, axis1=-2, axis2=-1) < 0, -1, 1).astype(x.dtype)
    q = jnp.concatenate([q[..., :, :n] * signs[..., None, :], q[..., :, n:]], axis=-1)
    return s, (q if full_matrices else q[..., :, :n]), jnp.swapaxes(v, -1, -2)


def _orthogonalize_columns(x: Any) -> tuple[Any, Any]:
    """(x V, V): cyclic sweeps of Jacobi rotations J on column pairs (p, q),
    each making columns p and q orthogonal (x <- x J, V <- V J), until every
    pair's |x_p . x_q| <= n eps |x_p| |x_q| (at most 30 sweeps)."""
    n = x.shape[-1]
    dtype = x.dtype
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    eye = jnp.broadcast_to(jnp.eye(n, dtype=dtype), (*x.shape[:-2], n, n))
    if not pairs:
        return x, eye
    unit_p = jnp.asarray(np.eye(n, dtype=dtype)[[p for p, _ in pairs]])
    unit_q = jnp.asarray(np.eye(n, dtype=dtype)[[q for _, q in pairs]])
    tolerance = n * float(np.finfo(dtype).eps)
    off_diagonal = ~jnp.eye(n, dtype=bool)
    from . import _ops
    from ._control_flow import while_loop

    def rotate(k: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        a, v = carry
        ep = _ops.dynamic_index_in_dim(unit_p, k, keepdims=False)
        eq = _ops.dynamic_index_in_dim(unit_q, k, keepdims=False)
        ap, aq = _matvec(a, ep), _matvec(a, eq)
        alpha = jnp.sum(ap * ap, -1, keepdims=True)
        beta = jnp.sum(aq * aq, -1, keepdims=True)
        gamma = jnp.sum(ap * aq, -1, keepdims=True)
        a1, a2 = _jacobi_rotation(alpha, beta, gamma, ep, eq)
        return _rotate_columns(a, a1, a2, ep, eq), _rotate_columns(v, a1, a2, ep, eq)

    def not_orthogonal(carry: tuple[Any, Any, Any]) -> Any:
        a, _, sweeps = carry
        gram = jnp.matmul(jnp.swapaxes(a, -1, -2), a)
        norms = jnp.diagonal(gram, axis1=-2, axis2=-1)
        scale = norms[..., :, None] * norms[..., None, :]
        large = off_diagonal & (gram * gram > (tolerance * tolerance) * scale)
        return jnp.any(large) & (sweeps < 30)

    def sweep(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        a, v, sweeps = carry
        a, v = fori_loop(0, len(pairs), rotate, (a, v))
        return a, v, sweeps + 1

    a, v, _ = while_loop(not_orthogonal, sweep, (x, eye, jnp.int32(0)))
    return a, v


@custom_jvp
def _singular_values(x: Any) -> Any:
    return _svd_parts(x, False)[0]


@_singular_values.defjvp
def _singular_values_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    s, u, vh = _svd_parts(x, False)
    return s, jnp.einsum("...ik,...ij,...kj->...k", u, dx, vh)  # diag(U^T dX V)


@custom_jvp
def _svd(x: Any) -> tuple[Any, Any, Any]:
    return _svd_parts(x, False)


@_svd.defjvp
def _svd_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    """The reduced SVD's derivative. With dP = U^T dX V (k x k),
    ds = diag(dP); dU = U (F o (dP S + S dP^T)) + (I - U U^T) dX V S^-1; dV = V (F o (S dP + dP^T S))
    + (I - V V^T) dX^T U S^-1, F_ij = 1 / (s_j^2 - s_i^2) off the diagonal
    (0 where equal). The projections vanish for square x."""
    (x,), (dx,) = primals, tangents
    s, u, vh = _svd(x)
    v = jnp.swapaxes(vh, -1, -2)
    ut = jnp.swapaxes(u, -1, -2)
    dp = jnp.matmul(ut, jnp.matmul(dx, v))
    dpt = jnp.swapaxes(dp, -1, -2)
    k = s.shape[-1]
    row, col = s[..., :, None], s[..., None, :]
    gaps = (col - row) * (col + row)  # s_j^2 - s_i^2
    distinct = ~jnp.eye(k, dtype=bool) & (gaps != 0)
    f = jnp.where(distinct, 1 / jnp.where(distinct, gaps, 1), 0)
    s_inv = jnp.where(s != 0, 1 / jnp.where(s != 0, s, 1), 0)
    du = jnp.matmul(u, f * (dp * col + row * dpt))
    dv = jnp.matmul(v, f * (row * dp + dpt * col))
    m, n = x.shape[-2:]
    if m > n:
        dxv = jnp.matmul(dx, v)
        du = du + (dxv - jnp.matmul(u, jnp.matmul(ut, dxv))) * s_inv[..., None, :]
    if n > m:
        dxu = jnp.matmul(jnp.swapaxes(dx, -1, -2), u)
        dv = dv + (dxu - jnp.matmul(v, jnp.matmul(vh, dxu))) * s_inv[..., None, :]
    return (s, u, vh), (jnp.diagonal(dp, axis1=-2, axis2=-1), du, jnp.swapaxes(dv, -1, -2))


@custom_jvp
def _svd_full(x: Any) -> tuple[Any, Any, Any]:
    s, u, vh = _svd_parts(x, True)
    return u, s, vh


@_svd_full.defjvp
def _svd_full_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    raise NotImplementedError("the derivative of svd(full_matrices=True) of a non-square matrix is not "
                              "defined (the extra singular vectors are not unique): use full_matrices=False")
