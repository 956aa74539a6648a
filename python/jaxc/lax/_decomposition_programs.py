"""The programs of `jaxc.qr` and `jaxc.eigh`: what `jaxc-expand-linalg`
replaces those ops by where no compiled library computes them (complex or
16-bit elements, the GPU, library calls off). Built with lax only, every
dtype explicit: a pass runs them, and passes may not import `jaxc.numpy`
nor run its promotion (docs/architecture.md's layering), so running them
loads no `jaxc.numpy` module. The operands are checked by lax.linalg.

`qr_program` is LAPACK's geqr2 (Householder reflectors from larfg, so the
signs are LAPACK's and numpy's) followed by the reflectors' product in
compact WY form (larft): H_0 ... H_{k-1} = I - V T V^H, two matrix products
instead of a rank-1 update of Q per reflector.

`eigh_program` is cyclic Jacobi: each rotation J zeroes a[p, q] of the
Hermitian matrix, a <- J^H a J, v <- v J (two rows and columns updated in
place), sweeping all pairs p < q until the off-diagonal mass is below
eps^2 of the whole (or 30 sweeps); the diagonal then holds the
eigenvalues, sorted ascending with v's columns.

16-bit floats (float16, bfloat16) are computed in float32 and rounded back.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _more, _ops
from ._control_flow import fori_loop, while_loop
from ._linalg_ops import _int32, _iota, _matmul, _scalar, _select, _spread, _swap_last

_SHORT_FLOATS = ("float16", "bfloat16")  # computed in float32
_MAX_SWEEPS = 30  # Jacobi sweeps at most


def _is_complex(x: Any) -> bool:
    return np.dtype(x.dtype).kind == "c"


def _real_part(x: Any) -> Any:
    return _ops.real(x) if _is_complex(x) else x


def _squared_moduli(x: Any) -> Any:
    """|x|^2 elementwise, of x's real dtype (x * x for real x)."""
    if _is_complex(x):
        re, im = _ops.real(x), _ops.imag(x)
        return _ops.add(_ops.mul(re, re), _ops.mul(im, im))
    return _ops.mul(x, x)


def _conj(x: Any) -> Any:
    return _ops.conj(x) if _is_complex(x) else x


def _as(x: Any, dtype: Any) -> Any:
    """A real x as `dtype` (complex: x + 0i)."""
    return x if x.dtype == dtype else _ops.convert_element_type(x, dtype)


def _full(shape: tuple[int, ...], value: Any, dtype: Any) -> Any:
    return _ops.full(shape, value, dtype)


def _eye(shape: tuple[int, ...], dtype: Any) -> Any:
    """Identity matrices (rectangular: ones where row == column) of `shape`."""
    nb = len(shape) - 2
    return _select(_ops.eq(_iota(shape, nb), _iota(shape, nb + 1)), _full(shape, 1, dtype))


def _in_float32(program: Any, x: Any, *args: Any) -> tuple[Any, ...]:
    """program(x as float32, *args) with every result rounded back to x's dtype."""
    return tuple(_ops.convert_element_type(y, x.dtype)
                 for y in program(_ops.convert_element_type(x, np.float32), *args))


# ------------------------------------------------------------------------ QR

def qr_program(x: Any, full_matrices: bool) -> tuple[Any, Any]:
    """(q, r) with x = q r for matrices x (..., m, n), m, n >= 1, real or
    complex, as LAPACK's geqrf + orgqr (numpy.linalg.qr's signs): q is
    H_0 H_1 ... H_{k-1}, k = min(m, n) (m x m, or its first k columns
    unless `full_matrices`), r upper triangular (m x n, or k x n) with a
    real diagonal and exact zeros below it.

    Step j (`_householder_step`) reflects column j of r from row j down
    onto row j: with alpha = r[j, j] and x = r[j + 1:, j] (larfg),

        beta = -sign(Re alpha) |[alpha, x]|            (real)
        tau = (beta - alpha) / beta,  v = [1, x / (alpha - beta)]
        r <- H^H r = r - conj(tau) v (v^H r),  H = I - tau v v^H

    and H = I (tau = 0, beta = alpha) where x is zero and alpha real. The
    product of the reflectors is then formed in compact WY form (larft,
    `_wy_factor`): H_0 ... H_{k-1} = I - V T V^H, V's columns the v's, T
    upper triangular."""
    if x.dtype.name in _SHORT_FLOATS:
        return _in_float32(qr_program, x, full_matrices)  # type: ignore[return-value]
    *batch, m, n = x.shape
    nb = len(batch)
    k = min(m, n)
    start = (x, _full((*batch, m, k), 0, x.dtype), _full((*batch, k), 0, x.dtype))
    r, vs, taus = fori_loop(0, k, _householder_step, start)
    rows = m if full_matrices else k
    r = _ops.slice(r, (0,) * x.ndim, (*batch, rows, n))
    r = _select(_ops.le(_iota(r.shape, nb), _iota(r.shape, nb + 1)), r)  # zeros below the diagonal, exactly
    columns = m if full_matrices else k
    # Q = E - V (T (V^H E)), E the first `columns` columns of I: V^H E is V^H's first columns
    head = _swap_last(_conj(_ops.slice(vs, (0,) * x.ndim, (*batch, columns, k))))  # (..., k, columns)
    q = _ops.sub(_eye((*batch, m, columns), x.dtype), _matmul(vs, _matmul(_wy_factor(vs, taus), head)))
    return q, r


def _householder_step(j: Any, state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    """Step j of `qr_program`: state (r, the reflectors v as columns of
    (..., m, k), the taus (..., k))."""
    r, vs, taus = state
    *batch, m, n = r.shape
    nb = len(batch)
    dtype = r.dtype
    j = _int32(j)
    column = _more.dynamic_index_in_dim(r, j, axis=nb + 1, keepdims=False)  # (..., m)
    alpha = _more.dynamic_index_in_dim(column, j, axis=nb, keepdims=False)  # (...)
    rows = _iota(column.shape, nb)
    at_j = _ops.eq(rows, _scalar(j, rows.shape))
    below = _select(_ops.gt(rows, _scalar(j, rows.shape)), column)
    rest = _ops.reduce_sum(_squared_moduli(below), (nb,))  # |x|^2, real
    real = rest.dtype
    identity = _ops.eq(rest, _full(rest.shape, 0, real))
    if _is_complex(r):
        identity = _ops.bitwise_and(identity, _ops.eq(_ops.imag(alpha), _full(rest.shape, 0, real)))
    re_alpha = _real_part(alpha)
    norm = _ops.sqrt(_ops.add(_squared_moduli(alpha), rest))
    beta = _ops.select(identity, re_alpha,
                       _ops.select(_ops.ge(re_alpha, _full(rest.shape, 0, real)), _ops.neg(norm), norm))
    beta = _as(beta, dtype)
    one, zero = _full(alpha.shape, 1, dtype), _full(alpha.shape, 0, dtype)
    tau = _ops.select(identity, zero, _ops.div(_ops.sub(beta, alpha), _ops.select(identity, one, beta)))
    scale = _ops.select(identity, one, _ops.sub(alpha, beta))
    v = _select(at_j, _full(column.shape, 1, dtype), _ops.div(below, _spread(scale, column.shape)))
    # r - (conj(tau) v) (v^H r), both products as matrix products, (m, 1) (1, m) (m, n): with
    # v^H r a vector, the CPU scheduler's fused row groups (passes/schedules/rows.py) took that
    # per-column reduction of a square r for a per-row one and computed a wrong r (n >= 64)
    w = _matmul(_ops.reshape(_conj(v), (*batch, 1, m)), r)  # (..., 1, n)
    scaled = _ops.reshape(_ops.mul(_spread(_conj(tau), column.shape), v), (*batch, m, 1))
    r = _ops.sub(r, _matmul(scaled, w))
    # column j exactly: unchanged above row j, beta on it, zeros below
    column = _select(_ops.lt(rows, _scalar(j, rows.shape)), column, _select(at_j, beta))
    r = _select(_ops.eq(_iota(r.shape, nb + 1), _scalar(j, r.shape)), column, r)
    vs = _select(_ops.eq(_iota(vs.shape, nb + 1), _scalar(j, vs.shape)), v, vs)
    taus = _select(_ops.eq(_iota(taus.shape, nb), _scalar(j, taus.shape)), tau, taus)
    return r, vs, taus


def _wy_factor(vs: Any, taus: Any) -> Any:
    """T (..., k, k), upper triangular, with H_0 ... H_{k-1} = I - V T V^H
    (LAPACK's larft, forward, column-wise): T[i, i] = tau_i and

        T[:i, i] = -tau_i T[:i, :i] (V[:, :i]^H v_i)

    from the Gram matrix V^H V, one product; the loop is on k x k matrices."""
    *batch, _, k = vs.shape
    nb = len(batch)
    batch_axes = tuple(range(nb))
    gram = _ops.dot_general(_conj(vs), vs, (((nb,), (nb,)), (batch_axes, batch_axes)))  # (..., k, k)

    def column(i: Any, t: Any) -> Any:
        i = _int32(i)
        g = _more.dynamic_index_in_dim(gram, i, axis=nb + 1, keepdims=False)  # V^H v_i, (..., k)
        rows = _iota(g.shape, nb)
        above = _ops.lt(rows, _scalar(i, rows.shape))
        h = _ops.dot_general(t, _select(above, g), (((nb + 1,), (nb,)), (batch_axes, batch_axes)))  # T g
        tau = _spread(_more.dynamic_index_in_dim(taus, i, axis=nb, keepdims=False), g.shape)
        new = _select(above, _ops.neg(_ops.mul(tau, h)),
                      _select(_ops.eq(rows, _scalar(i, rows.shape)), tau))
        return _select(_ops.eq(_iota(t.shape, nb + 1), _scalar(i, t.shape)), new, t)

    return fori_loop(0, k, column, _full((*batch, k, k), 0, vs.dtype))


# ---------------------------------------------------------------------- eigh

def eigh_program(x: Any, lower: bool) -> tuple[Any, Any]:
    """(vectors, values) of the symmetric (complex: Hermitian) matrices
    (..., n, n), n >= 1, whose `lower` (else upper) triangle is x's,
    diagonal included (complex: its real part); the other triangle is never
    read. values (..., n) real (float32 for complex64), ascending; vectors
    (..., n, n) with orthonormal columns, a v = v diag(values).

    Cyclic Jacobi: for each pair p < q in turn, the rotation J of
    `_rotation` zeroes a[p, q]: a <- J^H a J, v <- v J (only rows and
    columns p and q change; the 2x2 block of p and q is then set to what
    exact arithmetic gives, a_pp - t |a_pq|, a_qq + t |a_pq| and zeros, as
    Rutishauser's Jacobi does: ten times more accurate in f32 than the
    rounded products). Sweeps over all pairs repeat while some matrix's
    off-diagonal sum of |a_ij|^2 exceeds eps^2 times its own total (at most
    30; a batch sweeps together until every matrix is done); the
    eigenvalues are then a's diagonal, sorted with v's columns."""
    if x.dtype.name in _SHORT_FLOATS:
        return _in_float32(eigh_program, x, lower)  # type: ignore[return-value]
    *batch, n, _ = x.shape
    nb = len(batch)
    a = _from_triangle(x, lower)
    shape = a.shape
    on_diagonal = _ops.eq(_iota(shape, nb), _iota(shape, nb + 1))
    if n > 1:
        real = _real_part(a).dtype
        eps = float(np.finfo(real).eps)
        matrix_axes = (nb, nb + 1)

        def not_converged(state: tuple[Any, Any, Any]) -> Any:
            a, _, sweeps = state
            moduli = _squared_moduli(a)
            off = _ops.reduce_sum(_select(on_diagonal, _full(shape, 0, real), moduli), matrix_axes)
            total = _ops.mul(_ops.reduce_sum(moduli, matrix_axes), _full(off.shape, eps * eps, real))
            large = _ops.reduce_or(_ops.gt(off, total), tuple(range(nb)))
            return _ops.bitwise_and(large, _ops.lt(sweeps, _full((), _MAX_SWEEPS, np.int32)))

        def sweep(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
            a, v, sweeps = state
            start = (a, v, _full((), 0, np.int32), _full((), 1, np.int32))
            a, v, _, _ = fori_loop(0, n * (n - 1) // 2, _jacobi_step, start)
            return a, v, _ops.add(sweeps, _full((), 1, np.int32))

        a, v, _ = while_loop(not_converged, sweep, (a, _eye(shape, a.dtype), _full((), 0, np.int32)))
    else:
        v = _full(shape, 1, a.dtype)
    # the diagonal (values[j] = a[j, j]) as a sum over the rows of the masked matrix
    values = _ops.reduce_sum(_select(on_diagonal, _real_part(a)), (nb,))  # (..., n)
    # v's columns sorted by their values: every row sorted with the same keys
    keys = _ops.broadcast_in_dim(values, shape, (*range(nb), nb + 1))
    _, vectors = _ops.sort((keys, v), dimension=nb + 1, is_stable=True, num_keys=1)
    return vectors, _ops.sort(values, dimension=nb, is_stable=True)


def _from_triangle(x: Any, lower: bool) -> Any:
    """The Hermitian matrices whose lower (or upper) triangle is x's, the
    diagonal real (complex: x's real part); by selects, so nothing of the
    other triangle (a NaN there) reaches the result."""
    nb = x.ndim - 2
    rows, cols = _iota(x.shape, nb), _iota(x.shape, nb + 1)
    reflected = _conj(_swap_last(x))
    strict = _ops.gt(rows, cols) if lower else _ops.lt(rows, cols)
    mirror = _ops.lt(rows, cols) if lower else _ops.gt(rows, cols)
    diagonal = _as(_ops.real(x), x.dtype) if _is_complex(x) else x
    return _ops.select(strict, x, _ops.select(mirror, reflected, diagonal))


def _rotation(app: Any, aqq: Any, apq: Any) -> tuple[Any, Any, Any, tuple[Any, Any]]:
    """(c, s, u, (a_pp, a_qq)), c and s real, u = apq / |apq| (None for real matrices),
    for the Jacobi rotation J = [[c, s u], [-s conj(u), c]] (rows and
    columns p, q) that zeroes the off-diagonal of the Hermitian 2x2
    [[app, apq], [conj(apq), aqq]] (app, aqq real):

        theta = (aqq - app) / (2 |apq|),  t = sign(theta) / (|theta| + sqrt(theta^2 + 1))
        c = 1 / sqrt(t^2 + 1),  s = t c          (t = 1 where theta = 0)

    (real: with apq in place of |apq|, and u = 1); J = I where apq = 0.
    Also (J^H a J)'s diagonal entries p and q, app - t |apq| and
    aqq + t |apq|, computed from t."""
    real = app.dtype
    one, zero = _full(app.shape, 1, real), _full(app.shape, 0, real)
    size = _ops.abs(apq) if _is_complex(apq) else apq
    rotating = _ops.ne(size, zero)
    safe = _ops.select(rotating, size, one)
    theta = _ops.div(_ops.sub(aqq, app), _ops.mul(_full(app.shape, 2, real), safe))
    root = _ops.sqrt(_ops.add(_ops.mul(theta, theta), one))
    t = _ops.div(_ops.sign(theta), _ops.add(_ops.abs(theta), root))
    t = _ops.select(_ops.eq(theta, zero), one, t)
    c = _ops.select(rotating, _ops.div(one, _ops.sqrt(_ops.add(_ops.mul(t, t), one))), one)
    s = _ops.select(rotating, _ops.mul(t, c), zero)
    # the rotated diagonal: a_pp - t size, a_qq + t size (a[p, q] becomes 0)
    shift = _ops.select(rotating, _ops.mul(t, size), zero)
    diagonal = (_ops.sub(app, shift), _ops.add(aqq, shift))
    if not _is_complex(apq):
        return c, s, None, diagonal
    u = _ops.select(rotating, _ops.div(apq, _as(safe, apq.dtype)), _full(apq.shape, 1, apq.dtype))
    return c, s, u, diagonal


def _combine(c: Any, s: Any, x: Any, y: Any) -> Any:
    """c x + s y for vectors x, y (..., n) and scalars c, s (...)."""
    return _ops.add(_ops.mul(_spread(c, x.shape), x), _ops.mul(_spread(s, y.shape), y))


def _rotate(z: Any, p: Any, q: Any, axis: int, jpp: Any, jqp: Any, jpq: Any, jqq: Any) -> Any:
    """z with its slices p and q along `axis` (columns: axis -1, rows: -2)
    replaced by z_p jpp + z_q jqp and z_p jpq + z_q jqq."""
    zp = _more.dynamic_index_in_dim(z, p, axis=axis, keepdims=False)
    zq = _more.dynamic_index_in_dim(z, q, axis=axis, keepdims=False)
    z = _ops.dynamic_update_index_in_dim(z, _combine(jpp, jqp, zp, zq), p, axis)
    return _ops.dynamic_update_index_in_dim(z, _combine(jpq, jqq, zp, zq), q, axis)


def _jacobi_step(_: Any, state: tuple[Any, Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
    """One rotation of `eigh_program`'s sweep, on the pair (p, q); then the
    next pair in row order: (p, q + 1), or (p + 1, p + 2) after q = n - 1."""
    a, v, p, q = state
    nb = a.ndim - 2
    n = a.shape[-1]
    dtype = a.dtype
    column_p = _more.dynamic_index_in_dim(a, p, axis=nb + 1, keepdims=False)
    column_q = _more.dynamic_index_in_dim(a, q, axis=nb + 1, keepdims=False)
    app = _real_part(_more.dynamic_index_in_dim(column_p, p, axis=nb, keepdims=False))
    aqq = _real_part(_more.dynamic_index_in_dim(column_q, q, axis=nb, keepdims=False))
    apq = _more.dynamic_index_in_dim(column_q, p, axis=nb, keepdims=False)
    c, s, u, (new_pp, new_qq) = _rotation(app, aqq, apq)
    c, s = _as(c, dtype), _as(s, dtype)
    su = s if u is None else _ops.mul(s, u)  # J[p, q]
    minus_su_bar = _ops.neg(_conj(su))  # J[q, p]
    # a J and v J (columns), then J^H (a J) (rows): J^H's row p is (c, -s u), row q (s conj(u), c)
    a = _rotate(a, p, q, nb + 1, c, minus_su_bar, su, c)
    v = _rotate(v, p, q, nb + 1, c, minus_su_bar, su, c)
    a = _rotate(a, p, q, nb, c, _ops.neg(su), _conj(su), c)
    # the 2x2 block of (p, q) as exact arithmetic has it (Rutishauser): diagonal from t, zeros off it
    block = _ops.reshape(_as(new_pp, dtype), (*a.shape[:nb], 1, 1))
    zero = _full(block.shape, 0, dtype)
    for (i, j), value in (((p, p), block), ((p, q), zero), ((q, p), zero),
                          ((q, q), _ops.reshape(_as(new_qq, dtype), block.shape))):
        a = _ops.dynamic_update_slice(a, value, [_full((), 0, np.int32)] * nb + [i, j])
    one = _full((), 1, np.int32)
    wrap = _ops.eq(_ops.add(q, one), _full((), n, np.int32))
    next_p = _ops.select(wrap, _ops.add(p, one), p)
    return a, v, next_p, _ops.select(wrap, _ops.add(next_p, one), _ops.add(q, one))
