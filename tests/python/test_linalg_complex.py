"""Complex (complex64, complex128) factorizations (issue #17): lax.linalg's
cholesky, qr, eigh and svd and the jnp.linalg and jaxc.scipy.linalg
functions built on them, against NumPy/SciPy (values; invariants where a
phase is free: reconstruction, unitarity, |<v_i, v_ref_i>| = 1), under jit,
under vmap (against a Python loop), under grad (check_grads in complex128)
and against JAX where it is installed."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.scipy import linalg as jsl
from jaxc.test_util import check_grads

LL = lax.linalg
LA = jnp.linalg
RNG = np.random.default_rng(17)
DTYPES = [np.complex64, np.complex128]


@pytest.fixture
def sl():
    return pytest.importorskip("scipy.linalg")


def crand(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def hermitian(n, *batch, dtype=np.complex128):
    a = crand(*batch, n, n, dtype=dtype)
    return (a + h(a)) / 2


def hpd(n, *batch, dtype=np.complex128):
    """A Hermitian positive definite matrix (or a batch)."""
    a = crand(*batch, n, n)
    return (a @ h(a) + n * np.eye(n)).astype(dtype)


def h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.complex64, np.float32) else 1e-10


def close(got, want, tolerance):
    np.testing.assert_allclose(np.asarray(got, np.complex128), np.asarray(want, np.complex128),
                               rtol=tolerance, atol=tolerance)


def unitary_columns(q, tolerance):
    q = np.asarray(q)
    close(h(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), tolerance)


def same_up_to_phase(got, want, tolerance):
    """Each column of `got` is the column of `want` times a unit phase: |<g_i, w_i>| = 1."""
    overlaps = np.abs(np.einsum("...ij,...ij->...j", np.conj(np.asarray(got)), np.asarray(want)))
    close(overlaps, np.ones_like(overlaps), tolerance)


# ------------------------------------------------------------------ Cholesky

@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(dtype, x64):
    a = hpd(4, 2, dtype=dtype)
    factor = LL.cholesky(a)
    assert factor.dtype == dtype
    close(factor, np.linalg.cholesky(a.astype(np.complex128)), tol(dtype))
    diagonal = np.diagonal(np.asarray(factor), axis1=-2, axis2=-1)
    assert np.all(diagonal.imag == 0) and np.all(diagonal.real > 0)
    close(jaxc.jit(LL.cholesky)(a), factor, tol(dtype))
    # symmetrize_input=False reads the lower triangle (and the real part of the diagonal)
    junk = np.tril(a) + np.triu(crand(4, 4, dtype=dtype), 1) + 0.5j * np.eye(4)
    close(LL.cholesky(junk, symmetrize_input=False), factor, tol(dtype))
    upper = LA.cholesky(a, upper=True)
    close(upper, h(np.asarray(factor)), tol(dtype))
    close(h(np.asarray(upper)) @ np.asarray(upper), a, 10 * tol(dtype))
    # not positive definite: NaNs, as JAX
    assert np.all(np.isnan(np.asarray(LL.cholesky(-a[0]))))


def test_cholesky_complex64_default_precision():
    a = hpd(3, dtype=np.complex64)
    close(LA.cholesky(a), np.linalg.cholesky(a.astype(np.complex128)), tol(np.complex64))


def test_scipy_cholesky_and_solves(sl, x64):
    a = hpd(4)
    b = crand(4, 2)
    junk = crand(4, 4)
    for lower in (True, False):
        # one triangle is read, as SciPy (and JAX): the other may hold anything
        given = np.where(np.tril(np.ones((4, 4), bool)) if lower else np.triu(np.ones((4, 4), bool)), a, junk)
        close(jsl.cholesky(given, lower=lower), sl.cholesky(given, lower=lower), 1e-10)
        factors = jsl.cho_factor(a, lower=lower)
        close(jsl.cho_solve(factors, b), sl.cho_solve(sl.cho_factor(a, lower=lower), b), 1e-10)
        close(jsl.cho_solve(factors, b[:, 0]), np.linalg.solve(a, b[:, 0]), 1e-10)
    close(jsl.solve(np.tril(a), b, assume_a="pos", lower=True), np.linalg.solve(a, b), 1e-10)
    close(jsl.solve(a, b, assume_a="her"), sl.solve(a, b, assume_a="her"), 1e-10)


# ------------------------------------------------------------------------ QR

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_matches_lapack(shape, x64):
    # the same reflectors as LAPACK's geqrf (beta real, -sign(re alpha) |x|), so Q and R are NumPy's
    a = crand(*shape)
    for full in (False, True):
        q, r = LL.qr(a, full_matrices=full)
        want_q, want_r = np.linalg.qr(a, mode="complete" if full else "reduced")
        close(q, want_q, 1e-10)
        close(r, want_r, 1e-10)
        assert np.all(np.diagonal(np.asarray(r)).imag == 0)
        unitary_columns(q, 1e-10)
    q, r = LA.qr(a)
    close(np.asarray(q) @ np.asarray(r), a, 1e-10)
    close(LA.qr(a, mode="r"), np.linalg.qr(a, mode="r"), 1e-10)


def test_qr_complex64_jit_and_scipy(sl):
    a = crand(2, 5, 3, dtype=np.complex64)
    q, r = jaxc.jit(lambda x: LL.qr(x, full_matrices=False))(a)
    assert q.dtype == r.dtype == np.complex64
    for i in range(2):
        want_q, want_r = np.linalg.qr(a[i].astype(np.complex128))
        close(q[i], want_q, tol(np.complex64))
        close(r[i], want_r, tol(np.complex64))
    for mode in ("full", "economic"):
        for got, want in zip(jsl.qr(a[0], mode=mode), sl.qr(a[0], mode=mode)):
            close(got, want, tol(np.complex64))


# ---------------------------------------------------------------------- eigh

@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh(dtype, x64):
    a = hermitian(4, 2, dtype=dtype)
    v, w = LL.eigh(a)
    real = np.float32 if dtype == np.complex64 else np.float64
    assert w.dtype == real and v.dtype == dtype
    want_w, want_v = np.linalg.eigh(a.astype(np.complex128))
    close(w, want_w, tol(dtype))
    v = np.asarray(v)
    unitary_columns(v, tol(dtype))
    close(a @ v, v * np.asarray(w)[..., None, :], 10 * tol(dtype))
    same_up_to_phase(v, want_v, tol(dtype))
    # symmetrize_input=False: the lower (or upper) triangle alone, the diagonal's real part
    junk = crand(4, 4, dtype=dtype)
    lower_only = np.tril(a[0], -1) + np.triu(junk, 1) + np.diag(np.diagonal(a[0]) + 0.25j)
    close(LL.eigh(lower_only, symmetrize_input=False)[1], want_w[0], tol(dtype))
    upper_only = np.triu(a[0], 1) + np.tril(junk, -1) + np.diag(np.diagonal(a[0]))
    close(LL.eigh(upper_only, lower=False, symmetrize_input=False)[1], want_w[0], tol(dtype))
    close(LA.eigvalsh(upper_only, UPLO="U", symmetrize_input=False), want_w[0], tol(dtype))
    w_np, v_np = LA.eigh(a[1])
    close(w_np, want_w[1], tol(dtype))
    same_up_to_phase(v_np, want_v[1], tol(dtype))


def test_eigh_jit_and_scipy(sl, x64):
    a = hermitian(5)
    w, v = jaxc.jit(jsl.eigh)(a)
    close(w, np.linalg.eigvalsh(a), 1e-10)
    same_up_to_phase(v, np.linalg.eigh(a)[1], 1e-10)
    upper = np.triu(a)
    close(jsl.eigh(upper, lower=False, eigvals_only=True), sl.eigh(upper, lower=False, eigvals_only=True), 1e-10)


# ----------------------------------------------------------------------- SVD

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_svd(shape, x64):
    a = crand(2, *shape)
    want_s = np.linalg.svd(a, compute_uv=False)
    u, s, vh = LL.svd(a, full_matrices=False)
    assert s.dtype == np.float64
    close(s, want_s, 1e-10)
    u, vh = np.asarray(u), np.asarray(vh)
    close((u * np.asarray(s)[..., None, :]) @ vh, a, 1e-10)
    unitary_columns(u, 1e-10)
    unitary_columns(h(vh), 1e-10)
    same_up_to_phase(u, np.linalg.svd(a, full_matrices=False)[0], 1e-9)
    u, s, vh = LA.svd(a, full_matrices=True)
    unitary_columns(u, 1e-10)
    unitary_columns(vh, 1e-10)
    k = min(shape)
    close((np.asarray(u)[..., :k] * np.asarray(s)[..., None, :]) @ np.asarray(vh)[..., :k, :], a, 1e-10)
    close(LA.svdvals(a), want_s, 1e-10)
    close(LL.svd(a, compute_uv=False), want_s, 1e-10)


def test_svd_complex64_jit_and_scipy(sl):
    a = crand(4, 3, dtype=np.complex64)
    u, s, vh = jaxc.jit(jsl.svd)(a)
    assert u.dtype == vh.dtype == np.complex64 and s.dtype == np.float32
    close(s, sl.svd(a, compute_uv=False), tol(np.complex64))
    close((np.asarray(u)[:, :3] * np.asarray(s)) @ np.asarray(vh), a, tol(np.complex64))
    close(jsl.svd(a, compute_uv=False), sl.svd(a, compute_uv=False), tol(np.complex64))


def test_jit_of_the_full_svd_of_a_non_square_matrix():
    # the full SVD has no derivative (its extra columns are not unique), yet jit of it compiles
    for a in (crand(4, 3, dtype=np.complex64), crand(3, 4).real.astype(np.float32)):
        u, s, vh = jaxc.jit(LA.svd)(a)
        assert u.shape == (a.shape[0],) * 2 and vh.shape == (a.shape[1],) * 2
        close(s, np.linalg.svd(a, compute_uv=False), tol(np.complex64))
        unitary_columns(u, tol(np.complex64))
        unitary_columns(vh, tol(np.complex64))
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        jaxc.jit(jaxc.grad(lambda a: jnp.sum(jnp.abs(LA.svd(a)[0]))))(a)


def test_functions_built_on_the_svd(sl, x64):
    a = crand(5, 3)
    close(LA.pinv(a), np.linalg.pinv(a), 1e-10)
    herm = hermitian(4)
    close(LA.pinv(herm, hermitian=True), np.linalg.pinv(herm, hermitian=True), 1e-10)
    s = LA.svd(herm, hermitian=True, compute_uv=False)
    close(s, np.linalg.svd(herm, compute_uv=False), 1e-10)
    u, s, vh = LA.svd(herm, hermitian=True)
    close((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), herm, 1e-10)
    deficient = crand(5, 2) @ crand(2, 4)
    assert int(LA.matrix_rank(deficient)) == 2 == np.linalg.matrix_rank(deficient)
    assert int(LA.matrix_rank(herm, hermitian=True)) == 4
    b = crand(5, 2)
    got, want = LA.lstsq(a, b), np.linalg.lstsq(a, b, rcond=None)
    for g, w in zip(got, want):
        close(g, w, 1e-10)
    assert got.residuals.dtype == np.float64 and got.singular_values.dtype == np.float64
    close(LA.lstsq(a, b[:, 0]).solution, np.linalg.lstsq(a, b[:, 0], rcond=None)[0], 1e-10)
    for ord in (2, -2, "nuc", "fro", 1):
        close(LA.norm(a, ord=ord), np.linalg.norm(a, ord=ord), 1e-10)
        close(LA.matrix_norm(a, ord=ord), np.linalg.norm(a, ord=ord), 1e-10)
    close(LA.norm(np.stack([a, 2 * a]), ord=2, axis=(1, 2), keepdims=True),
          np.linalg.norm(np.stack([a, 2 * a]), ord=2, axis=(1, 2), keepdims=True), 1e-10)
    square = crand(4, 4)
    close(LA.cond(square), np.linalg.cond(square), 1e-8)
    close(LA.cond(square, -2), np.linalg.cond(square, -2), 1e-8)
    for side in ("right", "left"):
        for got, want in zip(jsl.polar(a, side=side), sl.polar(a, side=side)):
            close(got, want, 1e-10)


# ------------------------------------------------------ vmap against a loop

@pytest.mark.parametrize("name", ["cholesky", "qr", "eigh", "svd"])
def test_vmap_under_jit_matches_a_loop(name):
    batch = hpd(3, 3, dtype=np.complex64) if name == "cholesky" else \
        hermitian(3, 3, dtype=np.complex64) if name == "eigh" else crand(3, 4, 3, dtype=np.complex64)
    fn = {"cholesky": LL.cholesky, "qr": lambda x: LL.qr(x, full_matrices=False), "eigh": LL.eigh,
          "svd": lambda x: LL.svd(x, full_matrices=False)}[name]
    mapped = jaxc.jit(jaxc.vmap(fn))(batch)
    looped = [fn(x) for x in batch]
    for i in range(3):
        for got, want in zip(jaxc.tree_util.tree_leaves(mapped), jaxc.tree_util.tree_leaves(looped[i])):
            close(np.asarray(got)[i], want, tol(np.complex64))


# ----------------------------------------------------------------- gradients

def _projector(v):
    """The projector onto the first column of v: free of v's phase."""
    first = v[:, :1]
    return first @ jnp.conj(first.T)


GRADIENT_CASES = {
    "cholesky": (lambda a: LL.cholesky(a), lambda: (hpd(3),)),
    "qr": (lambda a: LL.qr(a, full_matrices=False), lambda: (crand(4, 3),)),
    "qr_wide": (lambda a: LL.qr(a, full_matrices=False), lambda: (crand(2, 3),)),
    "eigh": (lambda a: (lambda v, w: (w, _projector(v)))(*LL.eigh(a)), lambda: (hermitian(3),)),
    "eigvalsh": (lambda a: LA.eigvalsh(a), lambda: (crand(3, 3),)),
    "svd": (lambda a: (lambda u, s, vh: (s, u @ vh, _projector(u), _projector(jnp.conj(vh.T))))(
        *LL.svd(a, full_matrices=False)), lambda: (crand(4, 3),)),
    "svd_wide": (lambda a: (lambda u, s, vh: (s, u @ vh))(*LA.svd(a, full_matrices=False)), lambda: (crand(2, 3),)),
    "svdvals": (lambda a: LA.svdvals(a), lambda: (crand(3, 3),)),
    "pinv": (lambda a: LA.pinv(a), lambda: (crand(4, 3),)),
    "cho_solve": (lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b), lambda: (hpd(3), crand(3, 2))),
    # one triangle is read: the derivative is that of the function of that triangle alone
    "scipy_cholesky_lower": (lambda a: jsl.cholesky(a, lower=True), lambda: (hpd(3),)),
    "cholesky_unsymmetrized": (lambda a: LL.cholesky(a, symmetrize_input=False), lambda: (hpd(3),)),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradients_against_finite_differences(name, x64):
    fn, args = GRADIENT_CASES[name]
    check_grads(fn, args(), order=1, modes=("fwd", "rev"))


def test_grad_of_a_real_loss_under_jit_and_vmap(x64):
    def loss(a):
        factor = LL.cholesky(a)
        _, s, _ = LL.svd(a)
        return jnp.sum(jnp.abs(factor) ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum(s ** 3)

    batch = hpd(3, 2)
    mapped = jaxc.jit(jaxc.vmap(jaxc.grad(loss)))(batch)
    for i in range(2):
        close(mapped[i], jaxc.grad(loss)(batch[i]), 1e-9)


# ---------------------------------------------------------------------- JAX

def test_values_match_jax(jax_x64):
    jax = jax_x64
    jax_scipy_linalg = pytest.importorskip("jax.scipy.linalg")
    with jaxc.enable_x64():
        a, herm, spd = crand(4, 3), hermitian(4), hpd(4)
        close(LL.cholesky(spd), jax.lax.linalg.cholesky(spd), 1e-10)
        for full in (True, False):
            for got, want in zip(LL.qr(a, full_matrices=full), jax.lax.linalg.qr(a, full_matrices=full)):
                close(got, want, 1e-10)
        v, w = LL.eigh(herm)
        want_v, want_w = jax.lax.linalg.eigh(herm)
        close(w, want_w, 1e-10)
        same_up_to_phase(v, want_v, 1e-10)
        u, s, vh = LL.svd(a, full_matrices=False)
        want_u, want_s, want_vh = jax.lax.linalg.svd(a, full_matrices=False)
        close(s, want_s, 1e-10)
        same_up_to_phase(u, want_u, 1e-10)
        same_up_to_phase(h(np.asarray(vh)), h(np.asarray(want_vh)), 1e-10)
        close(np.asarray(u) @ np.asarray(vh), np.asarray(want_u) @ np.asarray(want_vh), 1e-10)
        for ord in (2, -2, "nuc"):
            close(LA.norm(a, ord=ord), jax.numpy.linalg.norm(a, ord=ord), 1e-10)
        b = crand(4, 2)
        for got, want in zip(LA.lstsq(a, b), jax.numpy.linalg.lstsq(a, b)):
            close(got, want, 1e-10)
        close(LA.pinv(a), jax.numpy.linalg.pinv(a), 1e-10)
        close(jsl.cho_solve(jsl.cho_factor(spd), b), jax_scipy_linalg.cho_solve(jax_scipy_linalg.cho_factor(spd), b),
              1e-10)


def test_derivatives_match_jax(jax_x64):
    jax = jax_x64
    cases = [
        (lambda a: LL.cholesky(a), lambda a: jax.lax.linalg.cholesky(a), hpd(3)),
        (lambda a: LL.qr(a, full_matrices=False), lambda a: jax.lax.linalg.qr(a, full_matrices=False), crand(4, 3)),
        (LA.eigvalsh, jax.numpy.linalg.eigvalsh, crand(3, 3)),
        (lambda a: _projector(LA.eigh(a)[1]), lambda a: _jax_projector(jax, jax.numpy.linalg.eigh(a)[1]), hermitian(3)),
        (LA.svdvals, jax.numpy.linalg.svdvals, crand(4, 3)),
        (lambda a: (lambda u, s, vh: u @ vh)(*LA.svd(a, full_matrices=False)),
         lambda a: (lambda u, s, vh: u @ vh)(*jax.numpy.linalg.svd(a, full_matrices=False)), crand(3, 4)),
        (LA.pinv, jax.numpy.linalg.pinv, crand(4, 3)),
    ]
    with jaxc.enable_x64():
        for mine, theirs, a in cases:
            da = crand(*a.shape)
            got = jaxc.jvp(mine, (a,), (da,))
            want = jax.jvp(theirs, (a,), (da,))
            for g, w in zip(jaxc.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
                close(g, w, 1e-8)

        def loss(a):
            return jnp.sum(jnp.abs(LL.cholesky(a)) ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum(LA.svdvals(a) ** 3)

        def jax_loss(a):
            jnp_ = jax.numpy
            return (jnp_.sum(jnp_.abs(jax.lax.linalg.cholesky(a)) ** 2 * jnp_.arange(1.0, 4.0))
                    + jnp_.sum(jnp_.linalg.svdvals(a) ** 3))

        a = hpd(3)
        close(jaxc.grad(loss)(a), jax.grad(jax_loss)(a), 1e-8)


def _jax_projector(jax, v):
    first = v[:, :1]
    return first @ jax.numpy.conj(first.T)


# -------------------------------------------------------- errors, signatures

def test_non_float_input_is_a_type_error():
    for fn in (LL.cholesky, LL.qr, LL.eigh, LL.svd):
        with pytest.raises(TypeError, match=r"lax.linalg.\w+: the argument must be a floating-point or complex array"):
            fn(np.eye(3, dtype=np.int32))


def test_signatures_match_jax():
    jax = pytest.importorskip("jax")
    jax_scipy_linalg = pytest.importorskip("jax.scipy.linalg")
    pairs = [(getattr(jax.lax.linalg, n), getattr(LL, n)) for n in ("cholesky", "qr", "eigh", "svd")]
    pairs += [(getattr(jax.numpy.linalg, n), getattr(LA, n))
              for n in ("cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "lstsq",
                        "norm", "matrix_norm", "cond")]
    pairs += [(getattr(jax_scipy_linalg, n), getattr(jsl, n))
              for n in ("cholesky", "cho_factor", "cho_solve", "qr", "svd", "eigh", "polar", "solve")]

    def parameters(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    for theirs, mine in pairs:
        assert parameters(mine) == parameters(theirs), f"{theirs.__module__}.{theirs.__name__}"
