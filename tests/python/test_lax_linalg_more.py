"""The rest of jax.lax.linalg and jax.scipy.linalg (issue #17): LAPACK's
packed Householder forms (hessenberg, tridiagonal, householder_product,
ormqr) against scipy.linalg.lapack's gehrd/sytrd/orgqr/ormqr, the real and
complex Schur forms, cholesky_update, symmetric_product, tridiagonal_solve
(against gtsv), qdwh, the algorithm enums, and scipy.linalg's qr_multiply,
rsf2csf and solve_sylvester against SciPy: float32 and float64, eagerly,
under jit, under vmap (against a Python loop), derivatives against float64
finite differences (check_grads), bad arguments, and JAX itself where it is
installed."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.scipy import linalg as jsl
from jaxc.test_util import check_grads

RNG = np.random.default_rng(17)
LL = lax.linalg


@pytest.fixture
def lapack():
    """scipy.linalg.lapack (the `test` extra does not install SciPy: those checks skip)."""
    return pytest.importorskip("scipy.linalg.lapack")


@pytest.fixture
def sl():
    return pytest.importorskip("scipy.linalg")


def rand(*shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def close(got, want, tol):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def same_eigenvalues(got, want, tol):
    """`got` and `want` hold the same values up to order: each of `got`
    matched to its nearest unmatched one of `want` (sorting complex values
    breaks when two real parts differ by rounding only)."""
    left = list(np.asarray(want).ravel())
    for value in np.asarray(got).ravel():
        nearest = int(np.argmin([abs(value - w) for w in left]))
        assert abs(value - left[nearest]) <= tol * max(1.0, abs(left[nearest])), (value, left)
        left.pop(nearest)


def tolerance(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


def lapack_name(kind, dtype):
    """scipy.linalg.lapack's routine `kind` for dtype, e.g. ('gehrd', float32) -> sgehrd."""
    prefix = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[np.dtype(dtype).type]
    if prefix in "cz":
        kind = {"sytrd": "hetrd", "orgqr": "ungqr", "ormqr": "unmqr"}.get(kind, kind)
    return prefix + kind


def loop_matches(fn, *args, tol=1e-5, batches=True):
    """fn applied to each batch member (a Python loop) equals fn under vmap,
    under jit of vmap and, where fn takes batches, fn under jit."""
    looped = [fn(*(a[i] for a in args)) for i in range(args[0].shape[0])]
    runs = [jaxc.vmap(fn)(*args), jaxc.jit(fn if batches else jaxc.vmap(fn))(*args)]
    for batched in runs:
        batched = batched if isinstance(batched, (list, tuple)) else [batched]
        for k, part in enumerate(batched):
            want = [lp[k] if isinstance(lp, (list, tuple)) else lp for lp in looped]
            close(part, np.stack([np.asarray(w) for w in want]), tol)


# ------------------------------------------------- packed Householder forms

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES)
def test_hessenberg_matches_gehrd(dtype, lapack):
    with jaxc.enable_x64():
        for n in ([1, 2, 5] if dtype == np.float64 else [5]):
            a = rand(n, n, dtype=dtype)
            packed, taus = LL.hessenberg(a)
            assert packed.dtype == dtype and taus.dtype == dtype and taus.shape == (max(n - 1, 0),)
            want_packed, want_taus, info = getattr(lapack, lapack_name("gehrd", dtype))(a)
            assert info == 0
            close(packed, want_packed, tolerance(dtype))
            close(taus, want_taus[:n - 1], tolerance(dtype))
    # the definition: a = q h q^H, q the product of the reflectors below the subdiagonal
    a = rand(5, 5, dtype=np.complex128)
    with jaxc.enable_x64():
        packed, taus = (np.asarray(x) for x in LL.hessenberg(a))
        h = np.triu(packed, -1)
        q = np.eye(5, dtype=a.dtype)
        q[1:, 1:] = np.asarray(LL.householder_product(packed[1:, :-1], taus))
    close(q @ h @ q.conj().T, a, 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_matches_sytrd(dtype, lower, lapack):
    a = rand(5, 5, dtype=dtype)  # not Hermitian: only the `lower` (or upper) triangle is read
    with jaxc.enable_x64():
        packed, d, e, taus = LL.tridiagonal(a, lower=lower)
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    assert packed.dtype == dtype and d.dtype == real and e.dtype == real and taus.dtype == dtype
    want_packed, want_d, want_e, want_taus, info = getattr(lapack, lapack_name("sytrd", dtype))(a, lower=int(lower))
    assert info == 0
    for got, want in ((packed, want_packed), (d, want_d), (e, want_e), (taus, want_taus)):
        close(got, want, tolerance(dtype))


@pytest.mark.parametrize("dtype, shape", [(dtype, (6, 4)) for dtype in DTYPES] +
                         [(np.float64, (4, 4)), (np.complex128, (4, 4))])
def test_householder_product_and_ormqr_match_orgqr_and_ormqr(dtype, shape, lapack):
    qr, taus, _, info = getattr(lapack, lapack_name("geqrf", dtype))(rand(*shape, dtype=dtype))
    assert info == 0
    m = shape[0]
    orgqr, ormqr = getattr(lapack, lapack_name("orgqr", dtype)), getattr(lapack, lapack_name("ormqr", dtype))
    transposed = "C" if np.dtype(dtype).kind == "c" else "T"
    with jaxc.enable_x64():
        close(LL.householder_product(qr, taus), orgqr(qr, taus)[0], tolerance(dtype))
        close(LL.householder_product(qr, taus[:2]), orgqr(qr, taus[:2])[0], tolerance(dtype))  # fewer reflectors
        for left in (True, False):
            c = rand(m, 3, dtype=dtype) if left else rand(3, m, dtype=dtype)
            for transpose in (False, True):
                got = LL.ormqr(qr, taus, c, left=left, transpose=transpose)
                want = ormqr("L" if left else "R", transposed if transpose else "N", qr, taus, c, lwork=64)[0]
                close(got, want, tolerance(dtype))


def test_packed_forms_batched_jit_vmap():
    a = rand(3, 4, 4).astype(np.float32)
    loop_matches(LL.hessenberg, a)
    loop_matches(lambda x: LL.tridiagonal(x, lower=False), a)
    packed, taus = LL.hessenberg(a)  # any reflectors will do
    c = rand(3, 4, 2).astype(np.float32)
    loop_matches(LL.householder_product, packed, taus[..., :2])
    loop_matches(lambda p, t, c: LL.ormqr(p, t, c, transpose=True), packed, taus, c)


def test_packed_forms_match_jax(jax_x64):
    a = rand(2, 5, 5)
    c = rand(2, 5, 3)
    with jaxc.enable_x64():
        for ours, theirs in ((LL.hessenberg(a), jax_x64.lax.linalg.hessenberg(a)),
                             (LL.tridiagonal(a, lower=False), jax_x64.lax.linalg.tridiagonal(a, lower=False))):
            assert len(ours) == len(theirs)
            for x, y in zip(ours, theirs):
                close(x, y, 1e-11)
        packed, taus = (np.asarray(x) for x in LL.hessenberg(a))
        close(LL.householder_product(packed, taus), jax_x64.lax.linalg.householder_product(packed, taus), 1e-11)
        close(LL.ormqr(packed, taus, c, transpose=True), jax_x64.lax.linalg.ormqr(packed, taus, c, transpose=True),
              1e-11)


def test_packed_form_errors():
    f32 = np.ones((3, 3), np.float32)
    for fn in (LL.hessenberg, LL.tridiagonal, LL.schur):
        with pytest.raises(ValueError, match=f"lax.linalg.{fn.__name__}: .*square"):
            fn(np.ones((3, 4), np.float32))
        with pytest.raises(TypeError, match=f"lax.linalg.{fn.__name__}: .*rank at least 2"):
            fn(np.ones(3, np.float32))
        with pytest.raises(TypeError, match=f"lax.linalg.{fn.__name__}: .*floating-point or complex"):
            fn(np.ones((3, 3), np.int32))
    taus = np.ones(2, np.float32)
    with pytest.raises(ValueError, match="householder_product: a must have at least as many rows"):
        LL.householder_product(np.ones((2, 3), np.float32), taus)
    with pytest.raises(ValueError, match="householder_product: 4 taus are more than"):
        LL.householder_product(f32, np.ones(4, np.float32))
    with pytest.raises(TypeError, match="householder_product: the arguments must have one dtype"):
        LL.householder_product(f32, taus.astype(np.complex64))
    with pytest.raises(TypeError, match="householder_product: the arguments must have the same number of batch"):
        LL.householder_product(f32, taus[None])
    with pytest.raises(ValueError, match="householder_product: .* differ in their batch dimensions"):
        LL.householder_product(np.stack([f32, f32]), np.stack([taus] * 3))
    with pytest.raises(ValueError, match="ormqr: with left=True, c must have as many rows"):
        LL.ormqr(f32, taus, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="ormqr: with left=False, c must have as many columns"):
        LL.ormqr(f32, taus, np.ones((3, 2), np.float32), left=False)
    with pytest.raises(TypeError, match="ormqr: argument 2 must have rank at least 2"):
        LL.ormqr(f32, taus, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="ormqr: the arguments must have one dtype"):
        LL.ormqr(f32, taus, np.ones((3, 2), np.complex64))


# -------------------------------------------------------------------- Schur

def check_real_schur(a, t, z, tol):
    """a = z t z^T with z orthogonal and t quasi upper triangular, its 2x2
    blocks standardized (equal diagonal, off-diagonals of opposite signs),
    and t's eigenvalues NumPy's."""
    t, z = np.asarray(t), np.asarray(z)
    n = a.shape[-1]
    assert t.dtype == a.dtype and z.dtype == a.dtype
    close(z @ t @ z.T, a, tol)
    close(z.T @ z, np.eye(n), tol)
    assert np.all(np.tril(t, -2) == 0)
    sub = np.diagonal(t, -1)
    assert not np.any((sub[:-1] != 0) & (sub[1:] != 0))  # blocks of at most 2
    values, i = [], 0
    while i < n:
        if i < n - 1 and sub[i] != 0:
            assert t[i, i] == t[i + 1, i + 1] and t[i, i + 1] * sub[i] < 0
            values += list(np.linalg.eigvals(t[i:i + 2, i:i + 2].astype(np.float64)))
            i += 2
        else:
            values.append(t[i, i])
            i += 1
    same_eigenvalues(np.array(values), np.linalg.eigvals(a.astype(np.float64)), tol * 10)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 9])
def test_real_schur_form(n, x64):
    for a in (rand(n, n), np.triu(rand(n, n), -1)):
        check_real_schur(a, *LL.schur(a), 1e-12)


def test_real_schur_form_of_hard_matrices(x64):
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    cycle = np.roll(np.eye(6), 1, axis=0)  # eigenvalues: the 6th roots of unity (exceptional shifts)
    companion = np.diag(np.ones(6), -1)
    companion[0, :] = -np.arange(2.0, 9.0)
    jordan = np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]])
    for a in (rotation, cycle, companion, jordan, np.zeros((4, 4)), 3 * np.eye(3)):
        check_real_schur(a, *LL.schur(a), 1e-8)


def test_schur_float32_complex_batched_jit_vmap(sl):
    a = rand(3, 5, 5).astype(np.float32)
    t, z = LL.schur(a)
    for i in range(3):
        check_real_schur(a[i], t[i], z[i], 2e-5)
    [t0] = LL.schur(a[0], compute_schur_vectors=False)
    close(t0, t[0], 1e-6)
    loop_matches(LL.schur, a)
    c = rand(5, 5, dtype=np.complex64)
    t, z = (np.asarray(x) for x in jaxc.jit(LL.schur)(c))
    assert t.dtype == np.complex64 and np.all(np.tril(t, -1) == 0)
    close(z @ t @ z.conj().T, c, 2e-5)
    # scipy.linalg.schur: the real form by default, the complex one on request; batches too
    tr, zr = jsl.schur(a)
    check_real_schur(a[2], tr[2], zr[2], 2e-5)
    tc, zc = (np.asarray(x) for x in jsl.schur(a[1], output="complex"))
    assert tc.dtype == np.complex64 and np.all(np.tril(tc, -1) == 0)
    close(zc @ tc @ zc.conj().T, a[1], 2e-5)
    want_t, _ = sl.schur(a[1].astype(np.float64), output="complex")
    same_eigenvalues(np.diagonal(tc), np.diagonal(want_t), 1e-4)


def test_schur_matches_jax_and_errors(jax_x64):
    a = rand(6, 6)
    with jaxc.enable_x64():
        ours = LL.schur(a)
    theirs = jax_x64.lax.linalg.schur(a)
    assert isinstance(ours, list) and len(ours) == len(theirs) == 2
    # the same kind of form (standardized blocks), the blocks in an order of each algorithm's choosing
    check_real_schur(a, *ours, 1e-12)
    check_real_schur(a, *(np.asarray(x) for x in theirs), 1e-12)
    with pytest.raises(NotImplementedError, match="lax.linalg.schur: sort_eig_vals"):
        LL.schur(np.eye(2, dtype=np.float32), sort_eig_vals=True)


# --------------------------------------------- cholesky_update, symmetric_product

def spd(n, *batch):
    a = rand(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cholesky_update(dtype):
    r = np.linalg.cholesky(spd(5)).T
    w = rand(5)
    want = np.linalg.cholesky(r.T @ r + np.outer(w, w)).T
    with jaxc.enable_x64():
        got = LL.cholesky_update(r.astype(dtype), w.astype(dtype))
        assert got.dtype == dtype
        close(got, want, tolerance(dtype) * 10)
        close(jaxc.jit(LL.cholesky_update)(r.astype(dtype), w.astype(dtype)), want, tolerance(dtype) * 10)
    rs = np.stack([np.linalg.cholesky(m).T for m in spd(4, 3)]).astype(np.float32)
    loop_matches(LL.cholesky_update, rs, rand(3, 4).astype(np.float32), batches=False)  # 2-d only, as JAX


def test_cholesky_update_gradient_and_errors(x64):
    r, w = np.linalg.cholesky(spd(4)).T, rand(4)
    check_grads(LL.cholesky_update, (r, w), order=1, modes=("fwd", "rev"))
    with pytest.raises(TypeError, match="cholesky_update: argument 0 must have rank 2"):
        LL.cholesky_update(np.stack([r, r]), np.stack([w, w]))
    with pytest.raises(TypeError, match="cholesky_update: argument 1 must have rank 1"):
        LL.cholesky_update(r, w[:, None])
    with pytest.raises(ValueError, match="cholesky_update: needs a square matrix and a vector of its size"):
        LL.cholesky_update(r, w[:3])
    with pytest.raises(ValueError, match="cholesky_update: needs a square matrix"):
        LL.cholesky_update(r[:3], w)
    with pytest.raises(TypeError, match="cholesky_update: the arguments must have one dtype"):
        LL.cholesky_update(r.astype(np.float32), w)
    with pytest.raises(TypeError, match="cholesky_update: argument 0 must be a floating-point array"):
        LL.cholesky_update(r.astype(np.complex128), w.astype(np.complex128))


def test_cholesky_update_matches_jax(jax_x64):
    r, w = np.linalg.cholesky(spd(6)).T, rand(6)
    with jaxc.enable_x64():
        close(LL.cholesky_update(r, w), jax_x64.lax.linalg.cholesky_update(r, w), 1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_symmetric_product(dtype):
    a, c = rand(2, 4, 3), rand(2, 4, 4)
    want = 2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c
    with jaxc.enable_x64():
        got = LL.symmetric_product(a.astype(dtype), c.astype(dtype), alpha=2.0, beta=0.5)
        assert got.dtype == dtype
        close(got, want, tolerance(dtype))
        sym = np.asarray(LL.symmetric_product(a.astype(dtype), c.astype(dtype), alpha=2.0, beta=0.5,
                                              symmetrize_output=True))
    lower = np.tril(want)
    close(sym, lower + np.swapaxes(np.tril(want, -1), -1, -2), tolerance(dtype))
    loop_matches(lambda a, c: LL.symmetric_product(a, c, beta=1.0), a.astype(np.float32), c.astype(np.float32))


def test_symmetric_product_gradient_errors_and_jax(x64):
    a, c = rand(3, 2), rand(3, 3)
    check_grads(lambda a, c: LL.symmetric_product(a, c, alpha=1.5, beta=-2.0), (a, c), order=1)
    with pytest.raises(ValueError, match="symmetric_product: needs A of shape"):
        LL.symmetric_product(a, c[:2, :2])
    with pytest.raises(ValueError, match="symmetric_product: needs A of shape"):
        LL.symmetric_product(a, c[:, :2])
    with pytest.raises(TypeError, match="symmetric_product: argument 0 must have rank at least 2"):
        LL.symmetric_product(a[0], c)
    with pytest.raises(TypeError, match="symmetric_product: the arguments must have the same number of batch"):
        LL.symmetric_product(a[None], c)
    with pytest.raises(TypeError, match="symmetric_product: A of shape .* differ in their batch dimensions"):
        LL.symmetric_product(np.stack([a, a]), c[None])
    with pytest.raises(TypeError, match="symmetric_product: argument 0 must be a floating-point array"):
        LL.symmetric_product(a.astype(np.complex128), c.astype(np.complex128))
    with pytest.raises(TypeError, match="symmetric_product: the arguments must have one dtype"):
        LL.symmetric_product(a.astype(np.float32), c)


def test_symmetric_product_matches_jax(jax_x64):
    a, c = rand(3, 4, 2), rand(3, 4, 4)
    theirs = jax_x64.lax.linalg.symmetric_product(a, c, alpha=1.5, beta=-2.0, symmetrize_output=True)
    with jaxc.enable_x64():
        close(LL.symmetric_product(a, c, alpha=1.5, beta=-2.0, symmetrize_output=True), theirs, 1e-12)


# -------------------------------------------------------------- tridiagonal solve

def tridiagonal_system(m, *batch, dtype=np.float64):
    dl, d, du = (rand(*batch, m, dtype=dtype) for _ in range(3))
    return dl, d, du, rand(*batch, m, 2, dtype=dtype)


def dense(dl, d, du):
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tridiagonal_solve_matches_gtsv(dtype, lapack):
    dl, d, du, b = tridiagonal_system(6, dtype=dtype)
    d[0] = 0  # the first step must swap rows
    with jaxc.enable_x64():
        x = LL.tridiagonal_solve(dl, d, du, b)
    assert x.dtype == dtype
    want = getattr(lapack, lapack_name("gtsv", dtype))(dl[1:], d, du[:-1], b)[3]
    close(x, want, tolerance(dtype) * 10)
    close(dense(dl, d, du) @ np.asarray(x), b, tolerance(dtype) * 10)
    # dl[0] and du[m - 1] are not read
    dl[0], du[-1] = 5, 7
    with jaxc.enable_x64():
        close(LL.tridiagonal_solve(dl, d, du, b), x, 1e-6)


def test_tridiagonal_solve_singular_batched_jit_vmap():
    dl, d, du, b = (x.astype(np.float32) for x in tridiagonal_system(5, 3))
    loop_matches(LL.tridiagonal_solve, dl, d, du, b)
    singular_d, singular_dl = d.copy(), dl.copy()
    singular_du = du.copy()
    singular_du[1, 1], singular_d[1, 2], singular_dl[1, 3] = 0, 0, 0  # member 1's column 2 is zero: all NaN,
    got = np.asarray(LL.tridiagonal_solve(singular_dl, singular_d, singular_du, b))  # as JAX (gtsv's info)
    assert np.isnan(got[1]).all() and np.isfinite(got[[0, 2]]).all()
    close(LL.tridiagonal_solve(dl, d, du, np.zeros((3, 5, 0), np.float32)), np.zeros((3, 5, 0)), 0)


def test_tridiagonal_solve_gradients(x64):
    dl, d, du, b = tridiagonal_system(5)
    d += 3
    check_grads(LL.tridiagonal_solve, (dl, d, du, b), order=1, modes=("fwd", "rev"))
    grads = jaxc.grad(lambda dl, du: jnp.sum(LL.tridiagonal_solve(dl, d, du, b)), argnums=(0, 1))(dl, du)
    assert float(grads[0][0]) == 0 and float(grads[1][-1]) == 0  # the unread entries


def test_tridiagonal_solve_perturbed_and_jax(jax_x64):
    dl, d, du, b = tridiagonal_system(6, 2)
    with jaxc.enable_x64():
        close(LL.tridiagonal_solve(dl, d, du, b), jax_x64.lax.linalg.tridiagonal_solve(dl, d, du, b), 1e-10)
        ours = jaxc.grad(lambda *a: jnp.sum(LL.tridiagonal_solve(*a) ** 2), argnums=(0, 1, 2, 3))(dl, d, du, b)
    theirs = jax_x64.grad(lambda *a: (jax_x64.lax.linalg.tridiagonal_solve(*a) ** 2).sum(), argnums=(0, 1, 2, 3))(
        dl, d, du, b)
    for x, y in zip(ours, theirs):
        close(x, y, 1e-8 * np.abs(np.asarray(y)).max())
    # a singular matrix, tridiag(-1, 2, -1) less its smallest eigenvalue: inverse iteration
    n = 4
    off = np.ones(n)
    diagonal = np.full(n, 2.0 - (2 - 2 * np.cos(np.pi / (n + 1))))
    rhs = np.ones((n, 1))
    with jaxc.enable_x64():
        x = np.asarray(LL.tridiagonal_solve(-off, diagonal, -off, rhs, perturb_singular=True))
    assert np.isfinite(x).all()
    vector = x[:, 0] / np.linalg.norm(x)
    close(np.abs(dense(-off, diagonal, -off) @ vector), np.zeros(n), 1e-10)  # a null vector
    theirs = jax_x64.lax.linalg.tridiagonal_solve(-off, diagonal, -off, rhs, perturb_singular=True)
    close(x, theirs, 1e-6 * np.abs(x).max())


def test_tridiagonal_solve_errors():
    dl, d, du, b = (x.astype(np.float32) for x in tridiagonal_system(4))
    with pytest.raises(TypeError, match="tridiagonal_solve: argument 3 must have rank at least 2"):
        LL.tridiagonal_solve(dl, d, du, b[:, 0])
    with pytest.raises(TypeError, match="tridiagonal_solve: the diagonals must have one shape"):
        LL.tridiagonal_solve(dl[:3], d, du, b)
    with pytest.raises(TypeError, match=r"tridiagonal_solve: b of shape \(3, 2\) must have 4 rows"):
        LL.tridiagonal_solve(dl, d, du, b[:3])
    with pytest.raises(ValueError, match="tridiagonal_solve: b of shape .* differ in their batch dimensions"):
        LL.tridiagonal_solve(dl[None], d[None], du[None], np.stack([b, b]))
    with pytest.raises(TypeError, match="tridiagonal_solve: the arguments must have one dtype"), jaxc.enable_x64():
        LL.tridiagonal_solve(dl.astype(np.float64), d, du, b)
    with pytest.raises(TypeError, match="tridiagonal_solve: argument 0 must be a floating-point or complex"):
        LL.tridiagonal_solve(*(np.ones(3, np.int32),) * 3, np.ones((3, 1), np.int32))
    with pytest.raises(TypeError, match="tridiagonal_solve: the arguments must have the same number of batch"):
        LL.tridiagonal_solve(dl, d, du, b[None])


# ---------------------------------------------------------------------- QDWH

def polar(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return u @ vh, vh.conj().T @ np.diag(s) @ vh


@pytest.mark.parametrize("dtype", DTYPES)
def test_qdwh_is_the_polar_decomposition(dtype):
    single = tolerance(dtype) > 1e-6
    scales = np.diag([1, 1e-2, 1e-3, 1] if single else [1, 1e-3, 1e-5, 1]).astype(dtype)  # ill-conditioned
    for x in (rand(6, 4, dtype=dtype), rand(4, 4, dtype=dtype) @ scales):
        with jaxc.enable_x64():
            u, h, iterations, converged = LL.qdwh(x)
        want_u, want_h = polar(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
        assert u.dtype == dtype and h.dtype == dtype
        close(u, want_u, 1e-3 if single else 1e-9)
        close(h, want_h, 1e-4 if single else 1e-12)
        assert bool(converged) and int(iterations) == (4 if single else 6)


def test_qdwh_options_jit_vmap_and_jvp(x64):
    x = rand(5, 3)
    u, h, iterations, converged = LL.qdwh(x, max_iterations=2)
    assert int(iterations) == 2 and not bool(converged)
    u, h, iterations, converged = LL.qdwh(x, eps=1e-3)  # a looser tolerance: fewer weighted steps
    assert int(iterations) == 3 and bool(converged)
    padded = np.zeros((7, 4))
    padded[:5, :3] = x
    u, h, _, _ = LL.qdwh(padded, dynamic_shape=(5, 3))
    want_u, want_h = polar(x)
    close(np.asarray(u)[:5, :3], want_u, 1e-10)
    close(np.asarray(h)[:3, :3], want_h, 1e-10)
    assert np.all(np.asarray(u)[5:] == 0) and np.all(np.asarray(h)[3:] == 0)
    zero = LL.qdwh(np.zeros((3, 3)))
    assert np.all(np.asarray(zero[0]) == 0) and bool(zero[3])
    xs = rand(3, 4, 4).astype(np.float32)
    loop_matches(lambda x: LL.qdwh(x)[:2], xs, tol=2e-5, batches=False)
    # forward mode through the iteration (JAX's reverse mode fails on its while loop too)
    check_grads(lambda x: LL.qdwh(x)[0], (x,), order=1, modes=("fwd",))
    check_grads(lambda x: LL.qdwh(x)[1], (x,), order=1, modes=("fwd",))


def test_qdwh_matches_jax_and_errors(jax_x64):
    x = rand(6, 4)
    with jaxc.enable_x64():
        ours = LL.qdwh(x)
    theirs = jax_x64.lax.linalg.qdwh(x)
    close(ours[0], theirs[0], 1e-12)
    close(ours[1], theirs[1], 1e-12)
    assert int(ours[2]) == int(theirs[2]) and bool(ours[3]) == bool(theirs[3])
    with pytest.raises(ValueError, match="qdwh: the input matrix of shape M x N must have M >= N"):
        LL.qdwh(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="qdwh: x must be a matrix"):
        LL.qdwh(np.ones((2, 3, 3), np.float32))
    with pytest.raises(ValueError, match="qdwh: x must be a floating-point or complex array"):
        LL.qdwh(np.ones((3, 3), np.int32))


# --------------------------------------------------------------------- enums

def test_algorithm_enums(jax_x64):
    ours = (LL.EigImplementation, LL.EighImplementation, LL.SvdAlgorithm)
    theirs = (jax_x64.lax.linalg.EigImplementation, jax_x64.lax.linalg.EighImplementation, jax_x64.lax.linalg.SvdAlgorithm)
    for mine, jaxs in zip(ours, theirs):
        assert [(m.name, m.value) for m in mine] == [(m.name, m.value) for m in jaxs]


def test_algorithm_enums_are_accepted(x64):
    a = rand(3, 3)
    s = np.linalg.svd(a, compute_uv=False)
    for algorithm in LL.SvdAlgorithm:
        close(LL.svd(a, compute_uv=False, algorithm=algorithm), s, 1e-12)
    for implementation in LL.EighImplementation:
        close(LL.eigh(a + a.T, implementation=implementation)[1], np.linalg.eigvalsh(a + a.T), 1e-12)
    for implementation in LL.EigImplementation:
        w = LL.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False,
                   implementation=implementation)[0]
        same_eigenvalues(np.asarray(w), np.linalg.eigvals(a), 1e-12)
    with pytest.raises(NotImplementedError, match="lax.linalg.svd: algorithm must be None or an SvdAlgorithm"):
        LL.svd(a, algorithm="qr")
    with pytest.raises(ValueError, match="lax.linalg.eig: implementation must be None or an EigImplementation"):
        LL.eig(a, implementation="lapack")


# -------------------------------------------------------------- qr_multiply

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_multiply_matches_scipy(shape, sl):
    a = rand(*shape)
    m, n = shape
    k = min(m, n)
    with jaxc.enable_x64():
        for mode, c in (("left", rand(k, 2)), ("right", rand(2, m))):
            for pivoting in (False, True):
                got, want = jsl.qr_multiply(a, c, mode=mode, pivoting=pivoting), \
                    sl.qr_multiply(a, c, mode=mode, pivoting=pivoting)
                assert len(got) == len(want)
                close(got[0], want[0], 1e-12)
                close(got[1], want[1], 1e-12)
                if pivoting:
                    np.testing.assert_array_equal(np.asarray(got[2]), want[2])
                    assert got[2].dtype == np.int32
            vector = c[:, 0] if mode == "left" else c[0]
            got, want = jsl.qr_multiply(a, vector, mode=mode), sl.qr_multiply(a, vector, mode=mode)
            assert got[0].shape == want[0].shape
            close(got[0], want[0], 1e-12)
            z = rand(*shape, dtype=np.complex128)
            got, want = jsl.qr_multiply(z, c, mode=mode, conjugate=True), \
                sl.qr_multiply(z, c, mode=mode, conjugate=True)
            close(got[0], want[0], 1e-12)
            close(got[1], want[1], 1e-12)


def test_qr_multiply_float32_batched_jit_vmap_and_errors(sl):
    a, c = rand(3, 5, 3).astype(np.float32), rand(3, 2, 5).astype(np.float32)
    got, r = jsl.qr_multiply(a, c)
    assert got.dtype == np.float32 and got.shape == (3, 2, 3) and r.shape == (3, 3, 3)
    for i in range(3):
        want = sl.qr_multiply(a[i].astype(np.float64), c[i].astype(np.float64))
        close(got[i], want[0], 1e-5)
        close(r[i], want[1], 1e-5)
    loop_matches(jsl.qr_multiply, a, c)
    broadcast, _ = jsl.qr_multiply(a, c[0])  # batch dims broadcast
    close(broadcast, np.asarray(jsl.qr_multiply(a, np.broadcast_to(c[0], c.shape))[0]), 1e-6)
    assert jsl.qr_multiply(np.ones((3, 2), np.int32), np.ones((2, 3), np.int32))[0].dtype == np.float32
    with pytest.raises(ValueError, match="qr_multiply: mode must be 'right' or 'left'"):
        jsl.qr_multiply(a[0], c[0], mode="up")
    with pytest.raises(ValueError, match="qr_multiply: shapes are not compatible for Q @ c: Q has 3 columns"):
        jsl.qr_multiply(a[0], np.ones((5, 2), np.float32), mode="left")
    with pytest.raises(ValueError, match="qr_multiply: shapes are not compatible for c @ Q: Q has 5 rows"):
        jsl.qr_multiply(a[0], np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="qr_multiply: a must be a matrix"):
        jsl.qr_multiply(a[0, 0], c[0])


def test_qr_multiply_matches_jax(jax_x64):
    a, c = rand(2, 6, 4), rand(2, 3, 6)
    with jaxc.enable_x64():
        ours = jsl.qr_multiply(a, c, pivoting=True)
    theirs = jax_x64.scipy.linalg.qr_multiply(a, c, pivoting=True)
    for x, y in zip(ours, theirs):
        close(x, y, 1e-12)


# ------------------------------------------------------------------ rsf2csf

def test_rsf2csf_matches_scipy(sl):
    a = rand(6, 6)
    t, z = sl.schur(a)
    with jaxc.enable_x64():
        got_t, got_z = jsl.rsf2csf(t, z)
    want_t, want_z = sl.rsf2csf(t, z)
    assert got_t.dtype == np.complex128
    close(got_t, want_t, 1e-12)
    close(got_z, want_z, 1e-12)
    got_t, got_z = jsl.rsf2csf(t.astype(np.float32), z.astype(np.float32))
    assert got_t.dtype == np.complex64
    close(got_t, want_t, 1e-5)
    close(got_z, want_z, 1e-5)


def test_rsf2csf_of_our_schur_form_batched_jit_vmap(x64):
    a = rand(3, 5, 5)
    t, z = jsl.schur(a)
    tc, zc = (np.asarray(x) for x in jsl.rsf2csf(t, z))
    for i in range(3):
        assert np.all(np.tril(tc[i], -1) == 0)
        close(zc[i] @ tc[i] @ zc[i].conj().T, a[i], 1e-12)
        close(zc[i].conj().T @ zc[i], np.eye(5), 1e-12)
    loop_matches(jsl.rsf2csf, np.asarray(t), np.asarray(z), tol=1e-12)
    one_t, one_z = jsl.rsf2csf(np.asarray(t)[0], np.asarray(z))  # batch dims broadcast
    assert one_t.shape == one_z.shape == (3, 5, 5)
    close(one_t[0], tc[0], 1e-12)
    close(one_z[0], zc[0], 1e-12)
    with pytest.raises(ValueError, match="rsf2csf: input 'T' must be square"):
        jsl.rsf2csf(np.ones((2, 3)), np.eye(2))
    with pytest.raises(ValueError, match="rsf2csf: input 'Z' must be square"):
        jsl.rsf2csf(np.eye(2), np.ones(2))
    with pytest.raises(ValueError, match="rsf2csf: input array shapes must match"):
        jsl.rsf2csf(np.eye(3), np.eye(2))


def test_rsf2csf_matches_jax(jax_x64):
    t, z = jax_x64.scipy.linalg.schur(rand(5, 5))
    with jaxc.enable_x64():
        ours = jsl.rsf2csf(np.asarray(t), np.asarray(z))
    for x, y in zip(ours, jax_x64.scipy.linalg.rsf2csf(t, z)):
        close(x, y, 1e-12)


# ---------------------------------------------------------------- solve_sylvester

@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester_matches_scipy(method, sl):
    a, b, c = rand(5, 5), rand(3, 3), rand(5, 3)
    want = sl.solve_sylvester(a, b, c)
    with jaxc.enable_x64():
        got = jsl.solve_sylvester(a, b, c, method=method)
        assert got.dtype == np.float64
        close(got, want, 1e-10)
        za, zb, zc = rand(4, 4, dtype=np.complex128), rand(2, 2, dtype=np.complex128), rand(4, 2, dtype=np.complex128)
        close(jsl.solve_sylvester(za, zb, zc, method=method), sl.solve_sylvester(za, zb, zc), 1e-10)
    got = jsl.solve_sylvester(a.astype(np.float32), b.astype(np.float32), c.astype(np.float32), method=method)
    assert got.dtype == np.float32
    close(got, want, 1e-4)


def test_solve_sylvester_nan_batched_jit_vmap(x64):
    b = -(1 - 1e-9) * np.eye(2)  # eigenvalues of A and B summing to 1e-9
    assert np.isnan(np.asarray(jsl.solve_sylvester(np.eye(2), b, np.ones((2, 2))))).all()
    assert np.isfinite(np.asarray(jsl.solve_sylvester(np.eye(2), b, np.ones((2, 2)), tol=1e-10))).all()
    a, b, c = rand(3, 4, 4), rand(3, 2, 2), rand(3, 4, 2)
    loop_matches(jsl.solve_sylvester, a, b, c, tol=1e-10)
    one_b = np.asarray(jsl.solve_sylvester(a, b[0], c))  # batch dims broadcast
    close(one_b[1], jsl.solve_sylvester(a[1], b[0], c[1]), 1e-12)


@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester_gradients(method, x64):
    a, b, c = rand(3, 3) + 3 * np.eye(3), rand(2, 2) + 3 * np.eye(2), rand(3, 2)
    check_grads(lambda a, b, c: jsl.solve_sylvester(a, b, c, method=method), (a, b, c), order=1,
                modes=("fwd", "rev"))


def test_solve_sylvester_matches_jax_and_errors(jax_x64):
    a, b, c = rand(4, 4), rand(3, 3), rand(4, 3)
    with jaxc.enable_x64():
        close(jsl.solve_sylvester(a, b, c), jax_x64.scipy.linalg.solve_sylvester(a, b, c), 1e-10)
        ours = jaxc.grad(lambda c: jnp.sum(jsl.solve_sylvester(a, b, c) ** 2))(c)
    theirs = jax_x64.grad(lambda c: (jax_x64.scipy.linalg.solve_sylvester(a, b, c) ** 2).sum())(c)
    close(ours, theirs, 1e-10)
    with pytest.raises(ValueError, match="solve_sylvester: incompatible shapes for Sylvester equation"):
        jsl.solve_sylvester(a[:3], b, c)
    with pytest.raises(ValueError, match="solve_sylvester: incompatible shapes for Sylvester equation"):
        jsl.solve_sylvester(a, b, c.T)
    with pytest.raises(ValueError, match="solve_sylvester: A, B and C must be matrices"):
        jsl.solve_sylvester(a, b, c[0])
    with pytest.raises(ValueError, match="solve_sylvester: unrecognized method 'qz'"):
        jsl.solve_sylvester(a, b, c, method="qz")
