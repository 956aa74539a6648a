"""jaxc.lax.linalg (lu, triangular_solve, cholesky, qr, eigh), the
jnp.linalg functions built on them (det, slogdet, solve, inv, cholesky,
qr, eigh, eigvalsh, svdvals, norms 2/-2/'nuc', matrix_rank, cond,
matrix_power < 0, tensorsolve, tensorinv) and jaxc.scipy.linalg, against
NumPy and SciPy: eagerly, under jit, under vmap (against a Python loop)
and, where differentiable, under grad (check_grads, float64)."""
from __future__ import annotations

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


def test_what_needs_singular_vectors_or_complex_numbers_says_so():
    a = np.eye(3, dtype=np.float32)
    for call in (lambda: LA.svd(a), lambda: LA.pinv(a), lambda: LA.lstsq(a, a[0])):
        with pytest.raises(NotImplementedError, match="singular vectors"):
            call()
    for call in (lambda: LA.eig(a), lambda: LA.eigvals(a)):
        with pytest.raises(NotImplementedError, match="complex numbers"):
            call()


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
