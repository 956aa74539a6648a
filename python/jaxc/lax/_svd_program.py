"""The program of `jaxc.svd`: what `jaxc-expand-linalg` replaces the op by
where no compiled library computes it (complex or 16-bit elements, the
GPU, library calls off). Built with lax only, every dtype explicit: a pass
runs it, and passes may not import `jaxc.numpy` nor run its promotion
(docs/architecture.md's layering), so running it loads no `jaxc.numpy`
module. The operands are checked by lax.linalg.

`svd_program` is one-sided Jacobi (Hestenes), as lax.linalg's
`_svd_parts_jacobi`: for m >= n the columns of x are rotated pairwise,
x <- x J, V <- V J, each rotation J (unitary for complex x) making the
pair (p, q) orthogonal, sweeping all pairs p < q in row order until every
pair is orthogonal to n eps (or 30 sweeps). Then x V = U S with S the
columns' norms; they are sorted descending, U's columns normalized, and
U completed to an orthonormal basis by a Householder QR of its columns
(`qr_program`, never the `jaxc.qr` op: inside the pass that expands the
ops a new op would stay unexpanded), which also gives vectors for zero
singular values. Wide matrices (m < n): of x^H, u and vh swapped back.

16-bit floats (float16, bfloat16) are computed in float32 and rounded back.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _ops
from ._control_flow import fori_loop, while_loop
from ._decomposition_programs import (
    _MAX_SWEEPS,
    _SHORT_FLOATS,
    _as,
    _combine,
    _conj,
    _eye,
    _full,
    _in_float32,
    _real_part,
    _rotation,
    _squared_moduli,
    qr_program,
)
from ._linalg_ops import _iota, _select, _swap_last


def svd_program(x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
    """(s, u, vh) with x = u[..., :, :k] diag(s) vh[..., :k, :] for matrices
    x (..., m, n), m, n >= 1, real or complex, k = min(m, n): s (..., k)
    real (x's real dtype), descending; u (..., m, m) unitary, or its first
    k columns unless `full_matrices`; vh (..., n, n) unitary, or its first
    k rows. Zero singular values get orthonormal vectors too.

    m >= n: x V = A by the rotations of `_orthogonalize_columns` (A's
    columns orthogonal), s_j = |A_j| sorted descending with A's and V's
    columns, U = A diag(1 / s) (zero columns stay zero) and

        U R = Q (Householder, LAPACK's signs),  U <- Q diag(sign(re R_jj))

    Q's first n columns times the signs of R's diagonal are U's nonzero
    columns themselves (R_jj = +-1 there: they are orthonormal already),
    the others complete the basis. vh = V^H. m < n: the SVD of x^H
    = (vh^H) s (u^H)."""
    if x.dtype.name in _SHORT_FLOATS:
        return _in_float32(svd_program, x, full_matrices)  # type: ignore[return-value]
    *batch, m, n = x.shape
    if m < n:
        s, u, vh = svd_program(_conj(_swap_last(x)), full_matrices)
        return s, _conj(_swap_last(vh)), _conj(_swap_last(u))
    nb = len(batch)
    columns, v = _orthogonalize_columns(x)
    s = _ops.sqrt(_ops.reduce_sum(_squared_moduli(columns), (nb,)))  # (..., n)
    columns, v, s = _sort_descending(s, columns, v)
    divisor = _ops.select(_ops.gt(s, _full(s.shape, 0, s.dtype)), s, _full(s.shape, 1, s.dtype))
    u = _ops.div(columns, _ops.broadcast_in_dim(_as(divisor, x.dtype), columns.shape, (*range(nb), nb + 1)))
    q, r = qr_program(u, full_matrices)  # r's diagonal real: +-1 where u's column is a unit vector
    diagonal = _ops.reduce_sum(_select(_ops.eq(_iota(r.shape, nb), _iota(r.shape, nb + 1)), r), (nb,))  # (..., n)
    real = _real_part(diagonal)
    signs = _as(_ops.select(_ops.lt(real, _full(real.shape, 0, real.dtype)), _full(real.shape, -1, real.dtype),
                            _full(real.shape, 1, real.dtype)), x.dtype)
    if q.shape[-1] > n:  # the completing columns keep their signs
        signs = _ops.concatenate([signs, _full((*batch, q.shape[-1] - n), 1, x.dtype)], nb)
    q = _ops.mul(q, _ops.broadcast_in_dim(signs, q.shape, (*range(nb), nb + 1)))
    return s, q, _conj(_swap_last(v))


def _orthogonalize_columns(x: Any) -> tuple[Any, Any]:
    """(x V, V) for matrices x (..., m, n): cyclic sweeps of `_rotate_pair`
    over the pairs p < q, V the product of the rotations, while some pair
    of some matrix has |x_p^H x_q| > n eps |x_p| |x_q| (at most 30 sweeps;
    a batch sweeps together until every matrix is done). The test reads the
    Gram matrix x^H x, one product per sweep."""
    *batch, m, n = x.shape
    nb = len(batch)
    v = _eye((*batch, n, n), x.dtype)
    if n == 1:
        return x, v
    real = np.finfo(x.dtype).dtype  # x's real dtype
    tolerance = n * float(np.finfo(real).eps)
    batch_axes = tuple(range(nb))
    gram_shape = (*batch, n, n)
    off_diagonal = _ops.ne(_iota(gram_shape, nb), _iota(gram_shape, nb + 1))

    def not_orthogonal(state: tuple[Any, Any, Any]) -> Any:
        a, _, sweeps = state
        gram = _ops.dot_general(_conj(a), a, (((nb,), (nb,)), (batch_axes, batch_axes)))  # a^H a
        norms = _ops.reduce_sum(_select(_ops.bitwise_not(off_diagonal), _real_part(gram)), (nb + 1,))  # |a_j|^2
        scale = _ops.mul(_ops.broadcast_in_dim(norms, gram_shape, (*batch_axes, nb)),
                         _ops.broadcast_in_dim(norms, gram_shape, (*batch_axes, nb + 1)))
        bound = _ops.mul(_full(gram_shape, tolerance * tolerance, real), scale)
        large = _ops.bitwise_and(off_diagonal, _ops.gt(_squared_moduli(gram), bound))
        return _ops.bitwise_and(_ops.reduce_or(large, tuple(range(nb + 2))),
                                _ops.lt(sweeps, _full((), _MAX_SWEEPS, np.int32)))

    def sweep(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        a, v, sweeps = state
        start = (a, v, _full((), 0, np.int32), _full((), 1, np.int32))
        a, v, _, _ = fori_loop(0, n * (n - 1) // 2, _rotate_pair, start)
        return a, v, _ops.add(sweeps, _full((), 1, np.int32))

    a, v, _ = while_loop(not_orthogonal, sweep, (x, v, _full((), 0, np.int32)))
    return a, v


def _rotate_pair(_: Any, state: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
    """One rotation of `_orthogonalize_columns`' sweep, on columns p and q;
    then the next pair in row order: (p, q + 1), or (p + 1, p + 2) after
    q = n - 1. J is `_rotation`'s for the pair's Hermitian Gram matrix

        [[|a_p|^2, a_p^H a_q], [a_q^H a_p, |a_q|^2]]

    (its J^H G J is diagonal, so the rotated columns are orthogonal):
    J = [[c, s u], [-s conj(u), c]], a_p <- c a_p - s conj(u) a_q,
    a_q <- s u a_p + c a_q, and the same on V's columns."""
    a, v, p, q = state
    nb = a.ndim - 2
    n = a.shape[-1]
    dtype = a.dtype
    ap = _ops.dynamic_index_in_dim(a, p, axis=nb + 1, keepdims=False)  # (..., m)
    aq = _ops.dynamic_index_in_dim(a, q, axis=nb + 1, keepdims=False)
    alpha = _ops.reduce_sum(_squared_moduli(ap), (nb,))
    beta = _ops.reduce_sum(_squared_moduli(aq), (nb,))
    gamma = _ops.reduce_sum(_ops.mul(_conj(ap), aq), (nb,))
    c, s, u, _ = _rotation(alpha, beta, gamma)
    c, s = _as(c, dtype), _as(s, dtype)
    su = s if u is None else _ops.mul(s, u)  # J[p, q]
    minus_su_bar = _ops.neg(_conj(su))  # J[q, p]
    a = _ops.dynamic_update_index_in_dim(a, _combine(c, minus_su_bar, ap, aq), p, nb + 1)
    a = _ops.dynamic_update_index_in_dim(a, _combine(su, c, ap, aq), q, nb + 1)
    vp = _ops.dynamic_index_in_dim(v, p, axis=nb + 1, keepdims=False)  # (..., n)
    vq = _ops.dynamic_index_in_dim(v, q, axis=nb + 1, keepdims=False)
    v = _ops.dynamic_update_index_in_dim(v, _combine(c, minus_su_bar, vp, vq), p, nb + 1)
    v = _ops.dynamic_update_index_in_dim(v, _combine(su, c, vp, vq), q, nb + 1)
    one = _full((), 1, np.int32)
    wrap = _ops.eq(_ops.add(q, one), _full((), n, np.int32))
    next_p = _ops.select(wrap, _ops.add(p, one), p)
    return a, v, next_p, _ops.select(wrap, _ops.add(next_p, one), _ops.add(q, one))


def _sort_descending(s: Any, columns: Any, v: Any) -> tuple[Any, Any, Any]:
    """(columns, v, s) with the columns of both matrices (..., m, n) and
    (..., n, n) ordered by s (..., n) descending, equal ones keeping their
    order (a stable sort on -s: jnp.argsort(-s)'s order)."""
    nb = s.ndim - 1
    *batch, m, n = columns.shape
    keys = _ops.neg(s)
    both = _ops.concatenate([columns, v], nb)  # (..., m + n, n): every row sorted with the same keys
    spread = _ops.broadcast_in_dim(keys, both.shape, (*range(nb), nb + 1))
    _, both = _ops.sort((spread, both), dimension=nb + 1, is_stable=True, num_keys=1)
    keys = _ops.sort(keys, dimension=nb, is_stable=True)
    columns = _ops.slice(both, (0,) * both.ndim, (*batch, m, n))
    v = _ops.slice(both, (0,) * nb + (m, 0), (*batch, m + n, n))
    return columns, v, _ops.neg(keys)
