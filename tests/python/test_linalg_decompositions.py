"""jaxc.lax.linalg (lu, triangular_solve, cholesky, qr, eigh), the
jnp.linalg functions built on them (det, slogdet, solve, inv, cholesky,
qr, eigh, eigvalsh, svd, svdvals, pinv, lstsq, norms 2/-2/'nuc', matrix_rank, cond,
matrix_power < 0, tensorsolve, tensorinv) and jaxc.scipy.linalg, against
NumPy and SciPy: eagerly, under jit, under vmap (against a Python loop)
and, where differentiable, under grad (check_grads, float64)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.scipy import linalg as jsl
from jaxc.test_util import check_grads

RNG = np.random.default_rng(7)
LA = jnp.linalg


@pytest.fixture
def sl():
    """SciPy's linalg (the `test` extra does not install SciPy: those checks skip)."""
    return pytest.importorskip("scipy.linalg")


def rand(*shape):
    return RNG.standard_normal(shape)


def spd(n, *batch):
    a = rand(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)


# ------------------------------------------------------------------------ LU

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (1, 1), (6, 6)])
def test_lu_reconstructs_and_pivots_by_magnitude(shape):
    a = rand(*shape).astype(np.float32)
    factors, pivots, permutation = lax.linalg.lu(a)
    assert np.asarray(pivots).dtype == np.int32 and np.asarray(permutation).dtype == np.int32
    k = min(shape)
    f = np.asarray(factors)
    lower = np.tril(f[:, :k], -1) + np.eye(shape[0], k)
    close(a[np.asarray(permutation)], lower @ np.triu(f[:k, :]))
    np.testing.assert_array_equal(np.asarray(lax.linalg.lu_pivots_to_permutation(pivots, shape[0])),
                                  np.asarray(permutation))
    assert np.all(np.abs(np.tril(f[:, :k], -1)) <= 1 + 1e-6)  # partial pivoting: multipliers at most 1


@pytest.mark.parametrize("n", [1, 4, 6])
def test_lu_matches_lapack(n, sl):
    a = rand(n, n).astype(np.float32)
    factors, pivots, _ = lax.linalg.lu(a)
    want_factors, want_pivots = sl.lu_factor(a)
    close(factors, want_factors)
    np.testing.assert_array_equal(np.asarray(pivots), want_pivots)


def test_lu_batched_jit_vmap_singular_and_empty():
    a = rand(3, 4, 4).astype(np.float32)
    eager = [np.asarray(x) for x in lax.linalg.lu(a)]
    jitted = [np.asarray(x) for x in jaxc.jit(lax.linalg.lu)(a)]
    mapped = [np.asarray(x) for x in jaxc.vmap(lax.linalg.lu)(a)]
    for i in range(3):
        looped = [np.asarray(x) for x in lax.linalg.lu(a[i])]
        for e, j, m, lp in zip(eager, jitted, mapped, looped):
            close(e[i], lp)
            close(j[i], lp)
            close(m[i], lp)
    factors, _, _ = lax.linalg.lu(np.ones((3, 3), np.float32))  # singular: no division by the zero pivot
    assert np.all(np.isfinite(np.asarray(factors)))
    empty = lax.linalg.lu(np.ones((0, 0), np.float32))
    assert [np.asarray(x).shape for x in empty] == [(0, 0), (0,), (0,)]


def test_lu_argument_errors():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        lax.linalg.lu(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="floating-point"):
        lax.linalg.lu(np.ones((2, 2), np.int32))


def np_lu(a):
    """Partial-pivoting LU row by row in NumPy (float64 or complex128):
    (factors, pivots, permutation), the first largest modulus as pivot, as
    LAPACK's getf2."""
    f = np.array(a)
    m, n = f.shape
    permutation = np.arange(m)
    pivots = np.zeros(min(m, n), np.int32)
    for k in range(min(m, n)):
        p = k + int(np.argmax(np.abs(f[k:, k])))
        pivots[k] = p
        f[[k, p]] = f[[p, k]]
        permutation[[k, p]] = permutation[[p, k]]
        if f[k, k] != 0:
            f[k + 1:, k] /= f[k, k]
        f[k + 1:, k + 1:] -= np.outer(f[k + 1:, k], f[k, k + 1:])
    return f, pivots, permutation


@pytest.mark.parametrize("shape", [(64, 64), (100, 100), (130, 70), (70, 130), (2, 96, 96)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_blocked_lu_matches_row_by_row(shape, dtype, x64):
    """From two blocks of columns on, LU is blocked (whole blocks, then the
    columns left over; wide, tall, batched; a zero column and two equal rows
    inside the blocks): the same pivots and factors as the row-by-row
    algorithm, under jit and vmap."""
    a = rand(*shape) + (1j * rand(*shape) if dtype == np.complex128 else 0)
    a[..., 40] = 0  # no pivot in column 40: the step leaves it
    a[..., 50, :] = a[..., 10, :]
    factors, pivots, permutation = jaxc.jit(lax.linalg.lu)(a.astype(dtype))
    for i in np.ndindex(*shape[:-2]):
        want = np_lu(a[i])
        np.testing.assert_allclose(np.asarray(factors)[i], want[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(np.asarray(pivots)[i], want[1])
        np.testing.assert_array_equal(np.asarray(permutation)[i], want[2])
    if len(shape) == 3:
        mapped = jaxc.vmap(lax.linalg.lu)(a.astype(dtype))
        for got, want in zip(mapped, (factors, pivots, permutation)):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n,k", [(100, 3), (96, 96), (70, 1)])
def test_blocked_triangular_solve_every_form(n, k, x64):
    """Blocked substitution (two blocks of rows or more; a remainder) in
    every form, against NumPy's solve in float64."""
    for left_side, lower, transpose_a, unit_diagonal in itertools.product([True, False], repeat=4):
        a = rand(n, n) / np.sqrt(n) + 3 * np.eye(n)
        tri = np.tril(a) if lower else np.triu(a)
        if unit_diagonal:
            tri = tri - np.diag(np.diagonal(tri)) + np.eye(n)
        op = tri.T if transpose_a else tri
        b = rand(n, k) if left_side else rand(k, n)
        want = np.linalg.solve(op, b) if left_side else np.linalg.solve(op.T, b.T).T
        got = lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                          unit_diagonal=unit_diagonal)
        close(got, want, 1e-10)


def test_blocked_solve_inv_and_their_gradients(x64):
    a = rand(80, 80) + 8 * np.eye(80)
    b = rand(80, 5)
    close(jaxc.jit(LA.solve)(a, b), np.linalg.solve(a, b), 1e-10)
    close(jaxc.jit(LA.inv)(a), np.linalg.inv(a), 1e-10)
    check_grads(lambda a, b: LA.solve(a, b), (a, b), order=1, modes=("fwd", "rev"))


# ------------------------------------------------------------ triangular solve

@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve_every_form(left_side, lower, transpose_a, unit_diagonal):
    n = 5
    a = rand(2, n, n) + 3 * np.eye(n)
    b = rand(2, n, 3) if left_side else rand(2, 3, n)
    tri = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        tri = tri - np.diagonal(tri, axis1=-2, axis2=-1)[..., None] * np.eye(n) + np.eye(n)
    op = np.swapaxes(tri, -1, -2) if transpose_a else tri
    want = np.linalg.solve(op, b) if left_side else np.swapaxes(
        np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    got = lax.linalg.triangular_solve(a.astype(np.float32), b.astype(np.float32), left_side=left_side,
                                      lower=lower, transpose_a=transpose_a, unit_diagonal=unit_diagonal)
    close(got, want, 1e-4)


def test_triangular_solve_errors():
    a = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="batch dims"):
        lax.linalg.triangular_solve(a, np.ones((2, 3, 1), np.float32), left_side=True)
    with pytest.raises(ValueError, match="does not fit"):
        lax.linalg.triangular_solve(a, np.ones((4, 1), np.float32), left_side=True)
    with pytest.raises(ValueError, match="square"):
        lax.linalg.triangular_solve(np.ones((3, 2), np.float32), np.ones((3, 1), np.float32), left_side=True)


# ------------------------------------------------------------------ Cholesky

@pytest.mark.parametrize("batch", [(), (3,)])
def test_cholesky(batch):
    m = spd(5, *batch)
    close(LA.cholesky(m.astype(np.float32)), np.linalg.cholesky(m), 1e-4)
    close(LA.cholesky(m.astype(np.float32), upper=True), np.swapaxes(np.linalg.cholesky(m), -1, -2), 1e-4)
    close(jaxc.jit(LA.cholesky)(m.astype(np.float32)), np.linalg.cholesky(m), 1e-4)
    lopsided = np.tril(m) * 2 - np.diagonal(m, axis1=-2, axis2=-1)[..., None] * np.eye(5)  # only the lower half
    close(lax.linalg.cholesky(lopsided.astype(np.float32)), np.linalg.cholesky(
        (lopsided + np.swapaxes(lopsided, -1, -2)) / 2), 1e-4)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_all_nan():
    got = np.asarray(LA.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)))
    assert np.isnan(got).all()
    batch = np.asarray(LA.cholesky(np.stack([np.eye(2), -np.eye(2)]).astype(np.float32)))
    close(batch[0], np.eye(2))
    assert np.isnan(batch[1]).all()


def test_cholesky_gradient(x64):
    a = rand(4, 4)
    check_grads(lambda a: LA.cholesky(a @ a.T + 4 * jnp.eye(4)), (a,), order=1, modes=("fwd", "rev"))


# ------------------------------------------------- det, slogdet, solve, inv

def test_det_and_slogdet():
    a = rand(3, 5, 5).astype(np.float32)
    close(LA.det(a), np.linalg.det(a.astype(np.float64)), 1e-4)
    sign, logabsdet = LA.slogdet(a)
    want = np.linalg.slogdet(a.astype(np.float64))
    close(sign, want.sign)
    close(logabsdet, want.logabsdet, 1e-4)
    assert float(LA.det(np.ones((3, 3), np.float32))) == 0.0
    sign, logabsdet = LA.slogdet(np.ones((3, 3), np.float32))
    assert float(sign) == 0.0 and float(logabsdet) == -np.inf
    assert float(LA.det(np.zeros((0, 0), np.float32))) == 1.0
    close(LA.det(np.array([[2, 1], [1, 3]])), 5.0)  # ints become floats
    close(jaxc.vmap(LA.det)(a), [np.linalg.det(x.astype(np.float64)) for x in a], 1e-4)
    with pytest.raises(ValueError, match="square matrix"):
        LA.det(np.ones((2, 3)))
    with pytest.raises(ValueError, match="unknown method"):
        LA.slogdet(a, method="qr")


def test_solve_shapes_and_broadcasting():
    a, b = rand(2, 4, 4), rand(4)
    close(LA.solve(a, b), np.linalg.solve(a, b[None, :, None])[..., 0], 1e-4)  # vector b
    bm = rand(3, 1, 4, 2)
    close(LA.solve(a, bm), np.linalg.solve(a, bm), 1e-4)  # batch dims broadcast
    close(jaxc.jit(LA.solve)(a, bm), np.linalg.solve(a, bm), 1e-4)
    looped = np.stack([np.linalg.solve(a[i], bm[0, 0]) for i in range(2)])
    close(jaxc.vmap(LA.solve, in_axes=(0, None))(a, bm[0, 0]), looped, 1e-4)
    with pytest.raises(ValueError, match="does not fit"):
        LA.solve(a, rand(3))
    with pytest.raises(ValueError, match="does not fit"):
        LA.solve(a, rand(3, 2))


def test_inv_and_negative_matrix_power():
    a = rand(3, 4, 4)
    close(LA.inv(a), np.linalg.inv(a), 1e-4)
    close(jaxc.jit(LA.inv)(a), np.linalg.inv(a), 1e-4)
    close(LA.matrix_power(a[0], -3), np.linalg.matrix_power(a[0], -3), 1e-3)
    assert not np.isfinite(np.asarray(LA.inv(np.ones((2, 2), np.float32)))).all()
    close(LA.matrix_transpose(a), np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        LA.matrix_transpose(np.ones(3))


def test_tensorsolve_and_tensorinv():
    a = rand(6, 2, 3)
    close(LA.tensorinv(a, 1), np.linalg.tensorinv(a, 1), 1e-4)
    a4, b = rand(2, 3, 6), rand(2, 3)
    close(LA.tensorsolve(a4, b), np.linalg.tensorsolve(a4, b), 1e-4)
    a5 = rand(2, 6, 3)
    close(LA.tensorsolve(a5, b, axes=(1,)), np.linalg.tensorsolve(a5, b, axes=(1,)), 1e-4)
    with pytest.raises(ValueError, match="not square"):
        LA.tensorinv(rand(2, 3), 1)


def test_gradients_follow_the_closed_forms(x64):
    a, b = rand(4, 4) + 4 * np.eye(4), rand(4, 2)
    check_grads(LA.det, (a,), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: LA.slogdet(a).logabsdet, (a,), order=2, modes=("fwd", "rev"))
    check_grads(LA.inv, (a,), order=1, modes=("fwd", "rev"))
    check_grads(LA.solve, (a, b), order=1, modes=("fwd", "rev"))
    g = jaxc.grad(LA.det)(a)
    close(g, np.linalg.det(a) * np.linalg.inv(a).T, 1e-8)


# -------------------------------------------------------- QR, eigh, singular values

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(shape, mode):
    a = rand(*shape)
    got, want = LA.qr(a.astype(np.float32), mode), np.linalg.qr(a, mode)
    if mode == "r":
        close(got, want, 1e-4)
    else:
        close(got.Q, want.Q, 1e-4)
        close(got.R, want.R, 1e-4)


def test_qr_gradient(x64):
    check_grads(lambda a: LA.qr(a).R, (rand(5, 3),), order=1, modes=("fwd", "rev"))


def test_eigh_and_eigvalsh():
    s = rand(2, 6, 6)
    s = s + np.swapaxes(s, -1, -2)
    w, v = LA.eigh(s.astype(np.float32))
    close(w, np.linalg.eigvalsh(s), 1e-4)
    w, v = np.asarray(w, np.float64), np.asarray(v, np.float64)
    close(v @ (w[..., :, None] * np.swapaxes(v, -1, -2)), s, 1e-4)
    close(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(6), s.shape), 1e-5)
    upper = np.triu(s[0]) * 3  # only the upper triangle is read with UPLO='U'
    close(LA.eigvalsh(upper.astype(np.float32), UPLO="U", symmetrize_input=False),
          np.linalg.eigvalsh(upper, UPLO="U"), 1e-4)
    close(jaxc.vmap(LA.eigvalsh)(s.astype(np.float32)), np.linalg.eigvalsh(s), 1e-4)
    with pytest.raises(ValueError, match="UPLO"):
        LA.eigh(s, UPLO="X")


def test_eigh_gradients(x64):
    s = rand(4, 4)
    s = s + s.T
    check_grads(lambda s: LA.eigvalsh(s), (s,), order=1, modes=("fwd", "rev"))
    # repeated eigenvalues: a finite gradient of the eigenvalues (not 0 * inf)
    g = jaxc.grad(lambda s: jnp.sum(LA.eigvalsh(s) ** 3))(np.eye(3))
    close(g, 3 * np.eye(3), 1e-10)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 3)])
def test_singular_values_and_what_rests_on_them(shape):
    a = rand(*shape)
    close(LA.svdvals(a.astype(np.float32)), np.linalg.svd(a, compute_uv=False), 1e-4)
    close(LA.svd(a.astype(np.float32), compute_uv=False), np.linalg.svd(a, compute_uv=False), 1e-4)
    for order in (2, -2, "nuc"):
        close(LA.norm(a.astype(np.float32), order, axis=(-2, -1)), np.linalg.norm(a, order, axis=(-2, -1)), 1e-4)
    close(LA.matrix_rank(a.astype(np.float32)), np.linalg.matrix_rank(a))


def test_rank_cond_and_the_two_norm_gradient(x64):
    low_rank = rand(5, 2) @ rand(2, 4)
    assert int(LA.matrix_rank(low_rank)) == 2
    assert int(LA.matrix_rank(low_rank, tol=1e30)) == 0
    a = rand(4, 4)
    for p in (None, 2, -2, 1, np.inf, "fro"):
        close(LA.cond(a, p), np.linalg.cond(a, p), 1e-8)
    u, _, vt = np.linalg.svd(a)
    close(jaxc.grad(lambda a: LA.norm(a, 2))(a), np.outer(u[:, 0], vt[0]), 1e-7)
    close(LA.norm(a, 2, keepdims=True), np.linalg.norm(a, 2, keepdims=True), 1e-10)


def check_svd(a, u, s, vh, full):
    """u, s, vh are an SVD of a (float64 checks): orthonormal factors of the
    right shapes, a = u diag(s) vh, s descending and as NumPy's."""
    u, s, vh = (np.asarray(t, np.float64) for t in (u, s, vh))
    m, n = a.shape[-2:]
    k = min(m, n)
    assert u.shape == (*a.shape[:-2], m, m if full else k) and vh.shape == (*a.shape[:-2], n if full else k, n)
    close(s, np.linalg.svd(a, compute_uv=False), 1e-4)
    close(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2))
    close(vh @ np.swapaxes(vh, -1, -2), np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] + (vh.shape[-2],) * 2))
    close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, 1e-4)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (1, 1), (6, 1), (0, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_factors(shape, full):
    a = rand(*shape)
    u, s, vh = LA.svd(a.astype(np.float32), full_matrices=full)
    check_svd(a, u, s, vh, full)


def test_svd_rank_deficient_zero_jit_vmap_and_lax():
    low_rank = rand(6, 2) @ rand(2, 4)
    check_svd(low_rank, *LA.svd(low_rank.astype(np.float32)), True)  # vectors for the zero singular values too
    check_svd(np.zeros((3, 2)), *LA.svd(np.zeros((3, 2), np.float32)), True)
    a = rand(3, 5, 4)
    u, s, vh = jaxc.jit(lambda a: LA.svd(a, full_matrices=False))(a.astype(np.float32))
    check_svd(a, u, s, vh, False)
    s_loop = np.stack([np.asarray(LA.svdvals(m.astype(np.float32))) for m in a])
    close(jaxc.vmap(LA.svdvals)(a.astype(np.float32)), s_loop, 1e-6)
    u, s, vh = lax.linalg.svd(a[0].astype(np.float32), full_matrices=False)
    check_svd(a[0], u, s, vh, False)
    close(lax.linalg.svd(a[0].astype(np.float32), compute_uv=False), s, 1e-6)
    w = rand(5, 5)
    w = w + w.T
    u, s, vh = LA.svd(w.astype(np.float32), hermitian=True)
    check_svd(w, u, s, vh, True)
    close(LA.svd(w.astype(np.float32), hermitian=True, compute_uv=False), s, 1e-6)


def test_svd_gradients(x64):
    a = rand(4, 3)

    def invariants(a):  # functions of the factors that do not depend on their signs
        u, s, vh = LA.svd(a, full_matrices=False)
        return s ** 3, u[:, :2] * u[:1, :2], vh[:2] * vh[:2, :1]

    check_grads(invariants, (a,), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: invariants(a.T), (a,), order=1, modes=("rev",))
    check_grads(LA.svdvals, (rand(3, 3),), order=1, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        jaxc.grad(lambda a: jnp.sum(LA.svd(a)[0]))(a)


def test_pinv(x64):
    a = rand(6, 2) @ rand(2, 4)
    close(LA.pinv(a), np.linalg.pinv(a, rcond=1e-10), 1e-10)
    close(LA.pinv(a.T), np.linalg.pinv(a.T, rcond=1e-10), 1e-10)
    batch = rand(2, 3, 5)
    close(LA.pinv(batch), np.linalg.pinv(batch), 1e-10)
    close(LA.pinv(a, rtol=1e30), np.zeros((4, 6)))  # everything below the cutoff
    close(LA.pinv(a, rcond=1e30), np.zeros((4, 6)))
    w = rand(4, 4)
    close(LA.pinv(w + w.T, hermitian=True), np.linalg.pinv(w + w.T), 1e-8)
    assert LA.pinv(np.zeros((0, 3))).shape == (3, 0)
    check_grads(LA.pinv, (rand(4, 3),), order=1, modes=("fwd", "rev"))
    with pytest.raises(ValueError, match="only one of rtol and rcond"):
        LA.pinv(a, rtol=1.0, rcond=1.0)


def test_lstsq(x64):
    a, b = rand(7, 3), rand(7, 2)
    for got, want in zip(LA.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)):
        close(got, want, 1e-10)
    for got, want in zip(LA.lstsq(a, b[:, 0], numpy_resid=True), np.linalg.lstsq(a, b[:, 0], rcond=None)):
        close(got, want, 1e-10)
    low_rank = rand(6, 2) @ rand(2, 4)  # minimum-norm solution, rank 2, no residuals in NumPy
    x, residuals, rank, s = LA.lstsq(low_rank, b[:6], numpy_resid=True)
    want = np.linalg.lstsq(low_rank, b[:6], rcond=None)
    close(x, want[0], 1e-10)
    assert int(rank) == 2 and residuals.shape == (0,) and want[1].shape == (0,)
    x = jaxc.jit(lambda a, b: LA.lstsq(a, b).solution)(a, b)
    close(x, np.linalg.lstsq(a, b, rcond=None)[0], 1e-10)
    with pytest.raises(TypeError, match="2-D"):
        LA.lstsq(rand(2, 3, 3), b)
    with pytest.raises(TypeError, match="rows"):
        LA.lstsq(a, rand(6))


def test_eig_of_a_real_matrix_is_complex():
    a = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]], np.float32)  # eigenvalues +-2i, 3
    w, v = LA.eig(a)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    np.testing.assert_allclose(np.sort_complex(np.asarray(LA.eigvals(a))),
                               np.sort_complex(np.array([-2j, 2j, 3])), rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------- scipy.linalg

def test_scipy_linalg_lu_family(sl):
    a, b, v = rand(5, 5), rand(5, 2), rand(5)
    for got, want in zip(jsl.lu(a), sl.lu(a)):
        close(got, want, 1e-4)
    for shape in [(5, 3), (3, 5)]:
        r = rand(*shape)
        for got, want in zip(jsl.lu(r), sl.lu(r)):
            close(got, want, 1e-4)
        for got, want in zip(jsl.lu(r, permute_l=True), sl.lu(r, permute_l=True)):
            close(got, want, 1e-4)
    factors = jsl.lu_factor(a)
    for trans in (0, 1):
        close(jsl.lu_solve(factors, b, trans=trans), sl.lu_solve(sl.lu_factor(a), b, trans=trans), 1e-4)
        close(jsl.lu_solve(factors, v, trans=trans), sl.lu_solve(sl.lu_factor(a), v, trans=trans), 1e-4)
    close(jsl.lu_solve(factors, b, trans="T"), sl.lu_solve(sl.lu_factor(a), b, trans=1), 1e-4)
    with pytest.raises(ValueError, match="trans"):
        jsl.lu_solve(factors, b, trans=3)


def test_scipy_linalg_triangular_and_cholesky(sl):
    a, b = rand(5, 5) + 5 * np.eye(5), rand(5, 2)
    for lower in (True, False):
        tri = np.tril(a) if lower else np.triu(a)
        for trans in (0, 1):
            close(jsl.solve_triangular(tri, b, trans=trans, lower=lower),
                  sl.solve_triangular(tri, b, trans=trans, lower=lower), 1e-4)
            close(jsl.solve_triangular(tri, b[:, 0], trans=trans, lower=lower, unit_diagonal=True),
                  sl.solve_triangular(tri, b[:, 0], trans=trans, lower=lower, unit_diagonal=True), 1e-4)
    m = spd(5)
    for lower in (True, False):
        close(jsl.cholesky(m, lower=lower), sl.cholesky(m, lower=lower), 1e-4)
        close(jsl.cho_solve(jsl.cho_factor(m, lower=lower), b), sl.cho_solve(sl.cho_factor(m, lower=lower), b), 1e-4)
    for assume_a in ("gen", "sym", "pos"):
        close(jsl.solve(m, b, assume_a=assume_a), sl.solve(m, b, assume_a=assume_a), 1e-4)
    close(jsl.solve(np.triu(m), b, assume_a="pos"), sl.solve(np.triu(m), b, assume_a="pos"), 1e-4)
    close(jsl.det(a), sl.det(a), 1e-3)
    close(jsl.inv(a), sl.inv(a), 1e-4)
    with pytest.raises(ValueError, match="assume_a"):
        jsl.solve(m, b, assume_a="banded")


def test_scipy_linalg_eigh_and_qr(sl):
    s = rand(5, 5)
    s = s + s.T
    w, v = jsl.eigh(np.tril(s))  # the lower triangle alone
    close(w, sl.eigh(np.tril(s), eigvals_only=True), 1e-4)
    close(np.abs(np.asarray(v)), np.abs(sl.eigh(s)[1]), 1e-4)  # eigenvectors up to sign
    close(jsl.eigh(np.triu(s), lower=False, eigvals_only=True), sl.eigh(np.triu(s), lower=False, eigvals_only=True),
          1e-4)
    a = rand(5, 3)
    for mode in ("full", "economic", "r"):
        for got, want in zip(jsl.qr(a, mode=mode), sl.qr(a, mode=mode)):
            close(got, want, 1e-4)
    with pytest.raises(NotImplementedError, match="generalized"):
        jsl.eigh(s, np.eye(5))


def test_scipy_linalg_svd_polar_expm(sl):
    a = rand(5, 3)
    u, s, vh = jsl.svd(a.astype(np.float32))
    check_svd(a, u, s, vh, True)
    close(jsl.svd(a, compute_uv=False), sl.svd(a, compute_uv=False), 1e-4)
    with jaxc.enable_x64():
        for side in ("right", "left"):
            for got, want in zip(jsl.polar(a.T, side), sl.polar(a.T, side)):
                close(got, want, 1e-9)
        for scale in (0.1, 1, 10, 100):
            m = rand(5, 5) * scale
            close(jsl.expm(m), sl.expm(m), 1e-9)
    m = rand(4, 4)
    close(jsl.expm(m.astype(np.float32)), sl.expm(m), 1e-4 * np.abs(sl.expm(m)).max())


def test_expm_without_scipy(x64):
    s = rand(2, 4, 4)
    s = (s + np.swapaxes(s, -1, -2)) * 3  # symmetric: V exp(w) V^T
    w, v = np.linalg.eigh(s)
    close(jsl.expm(s), v @ (np.exp(w)[..., :, None] * np.swapaxes(v, -1, -2)), 1e-9)
    nilpotent = np.triu(rand(4, 4), 1)  # the series stops after n terms
    series = sum(np.linalg.matrix_power(nilpotent, k) / math.factorial(k) for k in range(4))
    close(jsl.expm(nilpotent, upper_triangular=True), series, 1e-12)
    assert np.all(np.isnan(np.asarray(jsl.expm(np.full((2, 2), 100.0), max_squarings=2))))  # needs 6
    close(jsl.expm(np.full((2, 2), 100.0)), (np.exp(200.0) + 1) / 2 * np.ones((2, 2)), 1e-9)
    check_grads(jsl.expm, (rand(3, 3),), order=1, modes=("fwd", "rev"))
    with pytest.raises(ValueError, match="square"):
        jsl.expm(rand(2, 3))


def test_polar_without_scipy(x64):
    a = rand(5, 3)
    u, p = jsl.polar(a)
    close(u @ p, a, 1e-12)
    close(u.T @ u, np.eye(3), 1e-12)
    close(p, p.T, 1e-12)
    assert np.all(np.linalg.eigvalsh(np.asarray(p)) > 0)
    u, p = jsl.polar(a.T, side="left", method="svd")
    close(p @ u, a.T, 1e-12)
    with pytest.raises(ValueError, match="side"):
        jsl.polar(a, side="up")
    with pytest.raises(ValueError, match="method"):
        jsl.polar(a, method="newton")


def test_special_matrices_by_their_definitions(x64):
    c, r = np.array([1.0, 2, 3]), np.array([9.0, 8, 7, 6])
    i, j = np.arange(3)[:, None], np.arange(4)[None, :]
    close(jsl.toeplitz(c, r), np.where(i >= j, c[np.abs(i - j) % 3], r[np.abs(j - i)]))
    close(jsl.toeplitz(c), c[np.abs(i - j[:, :3])])
    batch = rand(2, 3)
    close(jsl.toeplitz(batch), np.stack([np.asarray(jsl.toeplitz(row)) for row in batch]))
    close(jsl.hankel(c, r), np.where(i + j < 3, c[np.minimum(i + j, 2)], r[np.maximum(i + j - 2, 0)]))
    close(jsl.hankel(c), np.where(i[:, :3] + j[:, :3] < 3, c[np.minimum(i + j[:, :3], 2)], 0))
    close(jsl.circulant(c), c[(i[:, :3] - j[:, :3]) % 3])
    x = rand(3)
    close(jsl.circulant(c) @ x, np.real(np.fft.ifft(np.fft.fft(c) * np.fft.fft(x))), 1e-12)
    for m, n in [(5, 3), (2, 3), (1, 4)]:
        a, x = rand(m), rand(n)
        for mode in ("full", "same", "valid"):
            close(jsl.convolution_matrix(a, n, mode) @ x, np.convolve(a, x, mode), 1e-12)
    poly = np.array([2.0, -3, -11, 6])
    for companion in (jsl.companion(poly), jsl.fiedler_companion(poly)):
        close(np.sort(np.linalg.eigvals(np.asarray(companion)).real), np.sort(np.roots(poly).real), 1e-10)
    close(jsl.fiedler(c), np.abs(c[:, None] - c[None, :]))
    close(jsl.leslie(c, r[:2]), np.array([[1, 2, 3], [9, 0, 0], [0, 8, 0]]))
    blocks = jsl.block_diag(np.ones((2, 2)), 3.0, np.array([1, 2]))
    close(blocks, np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 3, 0, 0], [0, 0, 0, 1, 2]]))
    assert jsl.block_diag().shape == (1, 0)
    close(jsl.hilbert(5) @ jsl.invhilbert(5), np.eye(5), 1e-8)
    close(jsl.pascal(5), [[math.comb(i + j, i) for j in range(5)] for i in range(5)])
    for kind in ("symmetric", "lower", "upper"):
        close(jsl.pascal(6, kind) @ jsl.invpascal(6, kind), np.eye(6), 0)
    h = np.asarray(jsl.hadamard(8))
    assert h.dtype == np.int64 and set(np.unique(h)) == {-1, 1}
    close(h @ h.T, 8 * np.eye(8), 0)
    helmert = np.asarray(jsl.helmert(5, full=True))
    close(helmert @ helmert.T, np.eye(5), 1e-12)
    close(jsl.helmert(5), helmert[1:])


def test_special_matrices_dtypes_and_errors():
    assert jsl.hilbert(3).dtype == np.float32 and jsl.pascal(3).dtype == np.float32
    assert jsl.hadamard(4).dtype == np.int32 and jsl.hadamard(4, np.float32).dtype == np.float32
    assert jsl.fiedler(np.array([1, 4])).dtype == np.int32
    with pytest.raises(TypeError, match="list"):
        jsl.toeplitz([1, 2])
    with pytest.raises(ValueError, match="power of 2"):
        jsl.hadamard(3)
    with pytest.raises(ValueError, match="kind"):
        jsl.pascal(3, "diagonal")
    with pytest.raises(ValueError, match="one shorter"):
        jsl.leslie(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="mode"):
        jsl.convolution_matrix(np.ones(3), 2, "circular")
    with pytest.raises(ValueError, match="positive integer"):
        jsl.convolution_matrix(np.ones(3), 0)
    with pytest.raises(ValueError, match="at most 2"):
        jsl.block_diag(np.ones((2, 2, 2)))


def test_special_matrices_match_scipy(sl):
    rows = rand(6)
    for name, args in [("toeplitz", (rows[:3], rows[3:])), ("hankel", (rows[:3], rows[2:])),
                       ("circulant", (rows,)), ("companion", (rows,)), ("fiedler", (rows,)),
                       ("fiedler_companion", (rows,)), ("leslie", (rows[:4], rows[3:])),
                       ("hilbert", (4,)), ("hadamard", (4,)), ("helmert", (4,)), ("pascal", (4,))]:
        with jaxc.enable_x64():
            close(getattr(jsl, name)(*args), getattr(sl, name)(*args), 1e-12)


def test_expm_frechet_and_eigh_tridiagonal(x64):
    a, e = rand(3, 3), rand(3, 3)
    value, derivative = jsl.expm_frechet(a, e)
    step = 1e-6
    close(derivative, (np.asarray(jsl.expm(a + step * e)) - np.asarray(jsl.expm(a - step * e))) / (2 * step), 1e-6)
    close(value, jsl.expm(a), 1e-12)
    close(jsl.expm_frechet(a, e, compute_expm=False), derivative, 1e-12)
    d, off = rand(5), rand(4)
    tridiagonal = np.diag(d) + np.diag(off, 1) + np.diag(off, -1)
    w, v = jsl.eigh_tridiagonal(d, off)
    close(w, np.linalg.eigvalsh(tridiagonal), 1e-10)
    close(tridiagonal @ np.asarray(v), np.asarray(v) * np.asarray(w)[None, :], 1e-10)
    close(jsl.eigh_tridiagonal(d, off, eigvals_only=True, select="i", select_range=(1, 2)),
          np.linalg.eigvalsh(tridiagonal)[1:3], 1e-10)
    with pytest.raises(ValueError, match="n - 1"):
        jsl.eigh_tridiagonal(d, off[:2])
    with pytest.raises(NotImplementedError, match="value range"):
        jsl.eigh_tridiagonal(d, off, select="v", select_range=(0, 1))
