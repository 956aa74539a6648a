"""Non-symmetric eigenproblems: Hessenberg reduction, the complex Schur form
by shifted QR, and eig (eigenvalues, right and left eigenvectors), written
as jaxc programs (fori_loop / while_loop over jnp ops). Real f32/f64
matrices go to the compiled library instead (`jaxc.hessenberg`,
`jaxc.schur`, `jaxc.eig`: eig.c), where library calls are on; these
programs serve complex and 16-bit matrices and library calls off.

    hessenberg(a)  -> (h, q)      a = q h q^H, h zero below the subdiagonal
    schur(a)       -> (t, z)      a = z t z^H, t upper triangular (complex)
    schur_real(a)  -> (t, z)      a = z t z^T, t quasi upper triangular (real)
    eig(a)         -> (w, vl, vr) a vr = vr diag(w), vl^H a = diag(w) vl^H

The Schur form comes from single-shift QR iterations on the Hessenberg
matrix in complex arithmetic (real input too, so complex-conjugate pairs
need no 2x2 blocks): Wilkinson shifts, an exceptional shift after 10 steps
without deflation, deflation when a subdiagonal falls below eps times its
neighbours on the diagonal. Each step chases the bulge with Givens
rotations that touch two rows and two columns (dynamic slices), so a step
costs O(n^2) and the decomposition O(n^3). Eigenvectors of t come from one
batched triangular solve per eigenvalue, then z; each is scaled to norm 1.
The real Schur form (schur_real_single) is Francis's double-shift QR in
real arithmetic instead: 3x3 reflectors chase the bulge, and 2x2 blocks of
complex pairs are standardized as they deflate.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, numpy as jnp
from .._autodiff import custom_jvp
from . import _ops
from ._control_flow import fori_loop, while_loop
from .linalg import _outer, _unit, triangular_solve


def _conj(x: Any) -> Any:
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


# ----------------------------------------------------------------- Hessenberg

def hessenberg_single(a: Any) -> tuple[Any, Any]:
    """(h, q) with a = q h q^H for one n x n matrix: n - 2 Householder
    reflections H = I - tau v v^H, each zeroing a column below the
    subdiagonal (beta = -phase(alpha) |x|, as LAPACK's larfg)."""
    n = a.shape[-1]
    rows = jnp.arange(n)
    dtype = a.dtype

    def reflect(j: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        h, q = carry
        x = jnp.where(rows > j, h @ _unit(n, j, dtype), jnp.zeros((), dtype))
        e = _unit(n, j + 1, dtype)
        alpha = jnp.sum(x * e)
        norm = jnp.sqrt(jnp.sum(jnp.abs(x) ** 2)).astype(dtype)
        magnitude = jnp.abs(alpha).astype(dtype)
        phase = jnp.where(magnitude == 0, jnp.ones((), dtype), alpha / jnp.where(magnitude == 0, 1, magnitude))
        v = x - (-phase * norm) * e
        vv = jnp.sum(jnp.abs(v) ** 2)
        below = jnp.any(jnp.where(rows > j + 1, x, 0) != 0)
        tau = jnp.where(below & (vv > 0), 2 / jnp.where(vv > 0, vv, 1), 0).astype(dtype)
        vh = _conj(v)
        h = h - tau * _outer(v, vh @ h)
        h = h - tau * _outer(h @ v, vh)
        q = q - tau * _outer(q @ v, vh)
        return h, q

    eye = jnp.eye(n, dtype=dtype)
    if n < 3:
        return a, eye
    h, q = fori_loop(0, n - 2, reflect, (a, eye))
    return jnp.where(rows[:, None] > rows[None, :] + 1, jnp.zeros((), dtype), h), q


# -------------------------------------------------------------- Schur (complex)

def _givens(f: Any, g: Any) -> tuple[Any, Any]:
    """(c real, s complex) with [[c, s], [-conj(s), c]] [f, g] = [r, 0]."""
    af, ag = jnp.abs(f), jnp.abs(g)
    d = jnp.sqrt(af * af + ag * ag)
    safe_d = jnp.where(d == 0, 1, d)
    phase = jnp.where(af == 0, 1, f / jnp.where(af == 0, 1, af))
    c = jnp.where(ag == 0, 1, af / safe_d)
    s = jnp.where(ag == 0, 0, phase * jnp.conj(g) / safe_d)
    return c.astype(f.dtype), s


def _rotate_rows(t: Any, k: Any, c: Any, s: Any) -> Any:
    """Rows k, k+1 of t <- [[c, s], [-conj(s), c]] @ those rows."""
    n = t.shape[-1]
    two = _ops.dynamic_slice(t, (k, 0), (2, n))
    top, bottom = two[0], two[1]
    new = jnp.stack([c * top + s * bottom, -jnp.conj(s) * top + c * bottom])
    return _ops.dynamic_update_slice(t, new, (k, 0))


def _rotate_columns(t: Any, k: Any, c: Any, s: Any) -> Any:
    """Columns k, k+1 of t <- those columns @ [[c, -s], [conj(s), c]] (the
    conjugate transpose of the row rotation)."""
    n = t.shape[0]
    two = _ops.dynamic_slice(t, (0, k), (n, 2))
    left, right = two[:, 0], two[:, 1]
    new = jnp.stack([c * left + jnp.conj(s) * right, -s * left + c * right], axis=1)
    return _ops.dynamic_update_slice(t, new, (0, k))


def _entry(t: Any, i: Any, j: Any) -> Any:
    return _ops.dynamic_slice(t, (i, j), (1, 1))[0, 0]


def schur_single(a: Any) -> tuple[Any, Any]:
    """(t, z): the complex Schur form of one square matrix, a = z t z^H."""
    n = a.shape[-1]
    dtype = dtypes.complex_dtype(a.dtype)
    a = a.astype(dtype)
    if n < 2:
        return a, jnp.eye(n, dtype=dtype)
    h, q = hessenberg_single(a)
    eps = float(np.finfo(dtypes.real_dtype(dtype)).eps)
    rows = jnp.arange(n)
    sub_index = jnp.arange(1, n)

    def negligible(t: Any) -> Any:
        """Per i in 1..n-1: |t[i, i-1]| is below eps max(|t[i, i]| + |t[i-1, i-1]|,
        4 ||t||_F). The floor is the rounding noise the rotations leave: with
        the neighbours alone as the scale, a subdiagonal can stall at ~50 eps
        times them for hundreds of steps (2 in 60 random complex 12 x 12
        matrices did not converge in 30 n steps); with it, at most 17 steps
        per eigenvalue over 300 random 12 x 12 and 30 x 30 matrices, backward
        error under 1e-14."""
        diagonal = jnp.abs(jnp.diagonal(t))
        sub = jnp.abs(jnp.diagonal(t, offset=-1))
        scale = jnp.maximum(diagonal[1:] + diagonal[:-1], 4 * jnp.sqrt(jnp.sum(jnp.abs(t) ** 2)))
        return sub <= eps * scale

    def step(carry: tuple[Any, Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any, Any]:
        t, z, m, stall, iters = carry
        small = negligible(t)
        # small subdiagonals become exact zeros (t stays block triangular)
        t = jnp.where((rows[:, None] == rows[None, :] + 1) & jnp.concatenate([jnp.zeros(1, bool), small])[:, None],
                      jnp.zeros((), dtype), t)
        deflate = _ops.dynamic_index_in_dim(jnp.concatenate([jnp.ones(1, bool), small]), m, keepdims=False)
        # the top of the unreduced block that ends at m
        low = jnp.max(jnp.where(small & (sub_index <= m), sub_index, 0))
        a11, a12 = _entry(t, m - 1, m - 1), _entry(t, m - 1, m)
        a21, a22 = _entry(t, m, m - 1), _entry(t, m, m)
        half = (a11 - a22) / 2
        root = jnp.sqrt(half * half + a12 * a21)
        root = jnp.where(jnp.real(jnp.conj(half) * root) < 0, -root, root)
        wilkinson = a22 - a12 * a21 / jnp.where(half + root == 0, 1, half + root)
        exceptional = a22 + 0.75 * jnp.abs(a21)
        shift = jnp.where(stall % 11 == 10, exceptional, wilkinson)

        def chase(k: Any, tz: tuple[Any, Any]) -> tuple[Any, Any]:
            t, z = tz
            first = k == low
            f = jnp.where(first, _entry(t, k, k) - shift, _entry(t, k, jnp.maximum(k - 1, 0)))
            g = jnp.where(first, _entry(t, k + 1, k), _entry(t, k + 1, jnp.maximum(k - 1, 0)))
            c, s = _givens(f, g)
            active = (k >= low) & (k < m) & ~deflate
            c = jnp.where(active, c, jnp.ones((), dtype))
            s = jnp.where(active, s, jnp.zeros((), dtype))
            return _rotate_columns(_rotate_rows(t, k, c, s), k, c, s), _rotate_columns(z, k, c, s)

        t, z = fori_loop(0, n - 1, chase, (t, z))
        return (t, z, jnp.where(deflate, m - 1, m), jnp.where(deflate, 0, stall + 1), iters + 1)

    def unfinished(carry: tuple[Any, Any, Any, Any, Any]) -> Any:
        _, _, m, _, iters = carry
        return (m > 0) & (iters < 30 * n)

    start = (h, q, jnp.asarray(n - 1, dtypes.canonicalize(np.int32)), jnp.int32(0), jnp.int32(0))
    t, z, m, _, _ = while_loop(unfinished, step, start)
    converged = m <= 0  # else the iteration cap ended it: NaNs, not a wrong form
    nan = jnp.full((), np.nan, dtype)
    return jnp.where(converged, jnp.triu(t), nan), jnp.where(converged, z, nan)


# ------------------------------------------------------------------------- eig

def _triangular_eigenvectors(t: Any) -> Any:
    """Columns x_k with t x_k = t_kk x_k: x_k[k] = 1, zeros below, and above
    the solution of (T_kk - t_kk I) y = -t[:k, k]; tiny pivots (repeated
    eigenvalues) are raised to eps ||t||, as LAPACK's trevc."""
    n = t.shape[-1]
    dtype = t.dtype
    rows = jnp.arange(n)
    w = jnp.diagonal(t)
    eps = float(np.finfo(dtypes.real_dtype(dtype)).eps)
    smallest = jnp.maximum(eps * jnp.max(jnp.abs(t)), np.finfo(dtypes.real_dtype(dtype)).tiny)

    def system(k: Any, wk: Any) -> tuple[Any, Any]:
        inside = (rows[:, None] < k) & (rows[None, :] < k)
        shifted = t - wk * jnp.eye(n, dtype=dtype)
        diagonal = jnp.diagonal(shifted)
        diagonal = jnp.where(jnp.abs(diagonal) < smallest, smallest.astype(dtype), diagonal)
        shifted = jnp.where(jnp.eye(n, dtype=bool), diagonal[:, None] * jnp.eye(n, dtype=dtype), shifted)
        matrix = jnp.where(inside, shifted, jnp.eye(n, dtype=dtype))
        column = _ops.dynamic_slice(t, (0, k), (n, 1))[:, 0]
        rhs = jnp.where(rows < k, -column, jnp.where(rows == k, jnp.ones((), dtype), jnp.zeros((), dtype)))
        return matrix, rhs

    from .._batching import vmap
    matrices, rhs = vmap(system)(rows, w)
    x = triangular_solve(matrices, rhs[:, :, None], left_side=True, lower=False)[:, :, 0]
    return jnp.swapaxes(x, 0, 1)  # column k is x_k


def _normalize_columns(v: Any) -> Any:
    norms = jnp.sqrt(jnp.sum(jnp.abs(v) ** 2, axis=-2, keepdims=True))
    return v / jnp.where(norms == 0, 1, norms).astype(v.dtype)


def _eig_single(a: Any) -> tuple[Any, Any]:
    t, z = schur_single(a)
    vectors = z @ _triangular_eigenvectors(t)
    return jnp.diagonal(t), _normalize_columns(vectors)


@custom_jvp
def eig_values_vectors(a: Any) -> tuple[Any, Any]:
    """(w, v) of square matrices (..., n, n): a v = v diag(w), columns of v
    of norm 1. Real f32/f64: `jaxc.eig` (the compiled library, as LAPACK's
    geev); else the complex Schur form's program, batched by vmap."""
    from ._linalg_ops import EIG, library_computes
    if library_computes(a):
        w, _, v = EIG.bind(a, left=False, right=True)
        return w, v
    batch = a.shape[:-2]
    if not batch:
        return _eig_single(a)
    from .._batching import vmap
    flat = a.reshape((-1,) + a.shape[-2:])
    w, v = vmap(_eig_single)(flat)
    return w.reshape(batch + w.shape[-1:]), v.reshape(batch + v.shape[-2:])


@eig_values_vectors.defjvp
def _eig_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    w, v = eig_values_vectors(a)
    return (w, v), _eig_tangents(w, v, da)


def _eig_tangents(w: Any, v: Any, da: Any) -> tuple[Any, Any]:
    """dw = diag(V^-1 dA V); dV = V (F * V^-1 dA V) with F_ij = 1/(w_j - w_i)
    off the diagonal (0 for equal eigenvalues), minus the part along each
    column that would change its norm (columns stay of norm 1)."""
    rotated = jnp.linalg.solve(v, da.astype(v.dtype) @ v)
    n = v.shape[-1]
    gaps = w[..., None, :] - w[..., :, None]
    distinct = ~jnp.eye(n, dtype=bool) & (gaps != 0)
    factors = jnp.where(distinct, 1 / jnp.where(distinct, gaps, 1), 0)
    dv = v @ (factors * rotated)
    dv = dv - v * jnp.real(jnp.sum(jnp.conj(v) * dv, axis=-2, keepdims=True)).astype(v.dtype)
    return jnp.diagonal(rotated, axis1=-2, axis2=-1), dv


@custom_jvp
def eig_left_right(a: Any) -> tuple[Any, Any, Any]:
    """(w, vl, vr) of real f32/f64 matrices the library computes, from one
    `jaxc.eig` (geev with jobvl = jobvr = 'V'). Derivatives: w and vr as
    `eig_values_vectors`; vl gets none (as in jaxc's eig).

        %w, %vl, %vr = jaxc.eig %a {left = true, right = true} : ..."""
    from ._linalg_ops import EIG
    w, vl, vr = EIG.bind(a, left=True, right=True)
    return w, vl, vr


@eig_left_right.defjvp
def _eig_left_right_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    w, vl, vr = eig_left_right(a)
    dw, dvr = _eig_tangents(w, vr, da)
    return (w, vl, vr), (dw, jnp.zeros_like(vl), dvr)


@custom_jvp
def eigenvalues(a: Any) -> Any:
    """w of square matrices (..., n, n), as `eig_values_vectors` without the
    vectors: real f32/f64 ones by `jaxc.eig` computing none (geev with
    jobvl = jobvr = 'N'). The derivative needs the vectors: dw = diag(V^-1 dA V)."""
    from ._linalg_ops import EIG, library_computes
    if library_computes(a):
        return EIG.bind(a, left=False, right=False)[0]
    return eig_values_vectors(a)[0]


@eigenvalues.defjvp
def _eigenvalues_jvp(primals: tuple[Any], tangents: tuple[Any]) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    w, v = eig_values_vectors(a)
    rotated = jnp.linalg.solve(v, da.astype(v.dtype) @ v)
    return w, jnp.diagonal(rotated, axis1=-2, axis2=-1)


# ------------------------------------------------------------ Schur (real)

def _standardize(a: Any, b: Any, c: Any, d: Any) -> tuple[Any, Any, Any]:
    """(cs, sn, real): the rotation G = [[cs, -sn], [sn, cs]] that brings the
    real 2x2 block [[a, b], [c, d]] to LAPACK's standard form G^T M G (as
    lanv2): upper triangular where its eigenvalues are real (`real`; G's
    first column an eigenvector), else equal diagonal entries."""
    p = (a - d) / 2
    discriminant = p * p + b * c
    real = (discriminant >= 0) | (b == 0) | (c == 0)
    # real eigenvalues: the eigenvector (z, c) of d + z, z = p + sign(p) sqrt(disc)
    z = p + jnp.where(p >= 0, 1, -1) * jnp.sqrt(jnp.maximum(discriminant, 0))
    radius = jnp.sqrt(z * z + c * c)
    safe = jnp.where(radius == 0, 1, radius)
    cs_real = jnp.where((c == 0) | (radius == 0), 1, z / safe)
    sn_real = jnp.where((c == 0) | (radius == 0), 0, c / safe)
    # complex ones: the rotation by half the angle that makes the diagonal equal
    sigma = b + c
    tau = jnp.sqrt(sigma * sigma + (a - d) * (a - d))
    cs_complex = jnp.sqrt((1 + jnp.abs(sigma) / jnp.where(tau == 0, 1, tau)) / 2)
    sn_complex = jnp.where(tau == 0, 0, -(p / (jnp.where(tau == 0, 1, tau) * cs_complex))
                           * jnp.where(sigma >= 0, 1, -1))
    cs_complex = jnp.where(tau == 0, 1, cs_complex)
    return jnp.where(real, cs_real, cs_complex), jnp.where(real, sn_real, sn_complex), real


def _reflect_rows(t: Any, k: Any, v: Any, tau: Any) -> Any:
    """Rows k, k+1, k+2 of t <- (I - tau v v^T) those rows."""
    three = _ops.dynamic_slice(t, (k, 0), (3, t.shape[1]))
    return _ops.dynamic_update_slice(t, three - tau * _outer(v, v @ three), (k, 0))


def _reflect_columns(t: Any, k: Any, v: Any, tau: Any) -> Any:
    """Columns k, k+1, k+2 of t <- those columns (I - tau v v^T)."""
    three = _ops.dynamic_slice(t, (0, k), (t.shape[0], 3))
    return _ops.dynamic_update_slice(t, three - tau * _outer(three @ v, v), (0, k))


def schur_real_single(a: Any) -> tuple[Any, Any]:
    """(t, z): the real Schur form of one real square matrix, a = z t z^T,
    t quasi upper triangular: 1x1 blocks for real eigenvalues, standardized
    2x2 blocks (equal diagonal, off-diagonal of opposite signs) for complex
    pairs. Francis double-shift QR on the Hessenberg form: 3x3 reflectors
    chase the bulge through the unreduced block that ends at row m; the
    block deflates when a subdiagonal falls below eps times its diagonal
    neighbours (a 2x2 block is standardized as it deflates); exceptional
    shifts after 10 steps without deflation. The matrices carry one extra
    zero row and column so that every 3-row window is in range."""
    n = a.shape[-1]
    dtype = a.dtype
    if n < 2:
        return a, jnp.eye(n, dtype=dtype)
    h, q = hessenberg_single(a)
    size = n + 1
    t, z = jnp.pad(h, ((0, 1), (0, 1))), jnp.pad(q, ((0, 1), (0, 1)))
    eps = float(np.finfo(dtype).eps)
    rows = jnp.arange(size)
    sub_index = jnp.arange(1, size)
    one = jnp.ones((), dtype)

    def negligible(t: Any) -> Any:
        """Per i in 1..n: |t[i, i-1]| is below eps (|t[i, i]| + |t[i-1, i-1]|)."""
        diagonal = jnp.abs(jnp.diagonal(t))
        scale = diagonal[1:] + diagonal[:-1]
        scale = jnp.where(scale == 0, jnp.max(jnp.abs(t)), scale)
        return jnp.abs(jnp.diagonal(t, offset=-1)) <= eps * scale

    def reflector(x: Any, y: Any, w: Any) -> tuple[Any, Any]:
        """(v, tau): (I - tau v v^T) (x, y, w) = (beta, 0, 0), v = (1, ., .)."""
        norm = jnp.sqrt(x * x + y * y + w * w)
        beta = jnp.where(x >= 0, -norm, norm)
        trivial = (y == 0) & (w == 0)
        scale = jnp.where(trivial, 0, 1 / jnp.where(trivial, 1, x - beta))
        tau = jnp.where(trivial, 0, (beta - x) / jnp.where(trivial, 1, beta))
        return jnp.stack([one, y * scale, w * scale]), tau

    def step(carry: tuple[Any, Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any, Any]:
        t, z, m, stall, iters = carry
        small = negligible(t)
        # small subdiagonals and what the bulge left below them become exact zeros
        cleared = (rows[:, None] > rows[None, :] + 1) | (
            (rows[:, None] == rows[None, :] + 1) & jnp.concatenate([jnp.zeros(1, bool), small])[:, None])
        t = jnp.where(cleared, jnp.zeros((), dtype), t)
        low = jnp.max(jnp.where(small & (sub_index <= m), sub_index, 0))  # the block's top row
        top = jnp.maximum(m - 1, 0)
        a11, a12, a21, a22 = _entry(t, top, top), _entry(t, top, m), _entry(t, m, top), _entry(t, m, m)
        # a 2x2 block deflates, standardized by a rotation of rows and columns m-1, m
        pair = low == m - 1
        cs, sn, real = _standardize(a11, a12, a21, a22)
        cs, sn = jnp.where(pair, cs, one), jnp.where(pair, sn, 0)
        rotated = _rotate_columns(_rotate_rows(t, top, cs, sn), top, cs, sn)  # G^T t G
        mean = (_entry(rotated, top, top) + _entry(rotated, m, m)) / 2
        fixed = jnp.where(real, _ops.dynamic_update_slice(rotated, jnp.zeros((1, 1), dtype), (m, top)),
                          _ops.dynamic_update_slice(_ops.dynamic_update_slice(rotated, mean[None, None], (top, top)),
                                                    mean[None, None], (m, m)))
        t = jnp.where(pair, fixed, t)
        z = _rotate_columns(z, top, cs, sn)
        # a larger block takes a double-shift step: shifts the eigenvalues of its last 2x2 (or exceptional ones)
        exceptional = stall % 11 == 10
        s_ex = jnp.abs(a21) + jnp.abs(_entry(t, top, jnp.maximum(m - 2, 0)))
        h11 = jnp.where(exceptional, 0.75 * s_ex + a22, a11)
        h22 = jnp.where(exceptional, h11, a22)
        h12 = jnp.where(exceptional, -0.4375 * s_ex, a12)
        h21 = jnp.where(exceptional, s_ex, a21)
        trace, determinant = h11 + h22, h11 * h22 - h12 * h21
        sweep = low < m - 1

        def chase(k: Any, tz: tuple[Any, Any]) -> tuple[Any, Any]:
            t, z = tz
            first = k == low
            l0 = jnp.maximum(k - 1, 0)
            t00, t01, t10 = _entry(t, k, k), _entry(t, k, k + 1), _entry(t, k + 1, k)
            x = jnp.where(first, t00 * t00 + t01 * t10 - trace * t00 + determinant, _entry(t, k, l0))
            y = jnp.where(first, t10 * (t00 + _entry(t, k + 1, k + 1) - trace), _entry(t, k + 1, l0))
            w = jnp.where(first, t10 * _entry(t, k + 2, k + 1), _entry(t, k + 2, l0))
            w = jnp.where(k + 2 <= m, w, 0)  # the last reflector has two rows
            v, tau = reflector(x, y, w)
            tau = jnp.where(sweep & (k >= low) & (k < m), tau, 0)
            return _reflect_columns(_reflect_rows(t, k, v, tau), k, v, tau), _reflect_columns(z, k, v, tau)

        t, z = fori_loop(0, n - 1, chase, (t, z))
        deflated = jnp.where(low == m, 1, jnp.where(pair, 2, 0))
        return t, z, m - deflated, jnp.where(deflated > 0, 0, stall + 1), iters + 1

    def unfinished(carry: tuple[Any, Any, Any, Any, Any]) -> Any:
        _, _, m, _, iters = carry
        return (m > 0) & (iters < 30 * max(10, n))

    start = (t, z, jnp.asarray(n - 1, dtypes.canonicalize(np.int32)), jnp.int32(0), jnp.int32(0))
    t, z, _, _, _ = while_loop(unfinished, step, start)
    t, z = t[:n, :n], z[:n, :n]
    rows = jnp.arange(n)
    return jnp.where(rows[:, None] > rows[None, :] + 1, jnp.zeros((), dtype), t), z


def schur_batched(a: Any) -> tuple[Any, Any]:
    """(t, z) of square matrices (..., n, n): the real Schur form of real
    ones, the complex one of complex ones."""
    single = schur_single if jnp.iscomplexobj(a) else schur_real_single
    if a.ndim == 2:
        return single(a)
    from .._batching import vmap
    flat = a.reshape((-1,) + a.shape[-2:])
    t, z = vmap(single)(flat)
    return t.reshape(a.shape), z.reshape(a.shape)
