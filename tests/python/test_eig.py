"""Non-symmetric eigenproblems (issue #17): Hessenberg and real and complex
Schur decompositions, eig/eigvals (the defining identities and NumPy's
eigenvalues), their derivatives against finite differences, roots and poly,
and the Schur-based functions of matrices against SciPy. Real f32/f64
matrices take both routes: `jaxc.hessenberg`/`jaxc.schur`/`jaxc.eig` (the
compiled library, eig.c) and, with library calls off, the jnp programs of
lax/_eig.py."""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import assert_close

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.linalg as jsl
from jaxc import lax
from jaxc.test_util import check_grads

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # pragma: no cover - SciPy is installed by make test
    scipy_linalg = None



@pytest.fixture(params=["library", "program"])
def route(request):
    """Real f32/f64 matrices: the ops that call eig.c (the CPU's default), or
    the programs (library calls off, as lax.linalg decides at trace time)."""
    from jaxc.passes import host
    with host.override(library_calls=request.param == "library"):
        yield request.param


def _matrix(n, dtype=np.float64, seed=0):
    """A random n x n matrix, the same for the same arguments whatever the
    test order (xdist), so a failure reproduces."""
    rng = np.random.default_rng([11, n, seed, np.dtype(dtype).num])
    a = rng.normal(size=(n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=(n, n))
    return a.astype(dtype)


def _same_eigenvalues(got, expected, tol):
    """Each expected eigenvalue has a computed one within tol (a matching)."""
    got, expected = list(np.asarray(got)), list(np.asarray(expected))
    assert len(got) == len(expected)
    for value in expected:
        distances = [abs(value - g) for g in got]
        best = int(np.argmin(distances))
        assert distances[best] <= tol * max(1.0, abs(value)), (value, got)
        got.pop(best)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_hessenberg_and_schur(x64, n, dtype, route):
    a = _matrix(n, dtype)
    h, q = jsl.hessenberg(a, calc_q=True)
    h, q = np.asarray(h), np.asarray(q)
    assert h.dtype == a.dtype
    assert_close(q @ h @ q.conj().T, a, rtol=1e-12, atol=1e-12)
    assert_close(q.conj().T @ q, np.eye(n), rtol=1e-12, atol=1e-12)
    assert np.all(np.tril(h, -2) == 0)
    t, z = jsl.schur(a, output="complex")
    t, z = np.asarray(t), np.asarray(z)
    assert t.dtype == np.complex128
    assert_close(z @ t @ z.conj().T, a, rtol=1e-11, atol=1e-11)
    assert_close(z.conj().T @ z, np.eye(n), rtol=1e-12, atol=1e-12)
    assert np.all(np.tril(t, -1) == 0)
    t, z = (np.asarray(x) for x in jsl.schur(a))  # the real form of a real matrix (more: test_lax_linalg_more.py)
    assert t.dtype == a.dtype and np.all(np.tril(t, -2) == 0)
    assert_close(z @ t @ z.conj().T, a, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("n", [1, 2, 4, 9])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_identities_and_numpy_eigenvalues(n, dtype, route):
    a = _matrix(n, dtype)
    w, v = jaxc.jit(jnp.linalg.eig)(a)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    w, v = np.asarray(w), np.asarray(v)
    scale = np.abs(a).max()
    assert_close(a @ v, v * w, rtol=0, atol=2e-5 * scale * n)
    assert_close(np.linalg.norm(v, axis=0), np.ones(n), rtol=1e-5, atol=1e-5)
    _same_eigenvalues(jnp.linalg.eigvals(a), np.linalg.eigvals(a), 1e-4)


def test_eig_special_matrices(x64, route):
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i
    _same_eigenvalues(jnp.linalg.eigvals(rotation), [1j, -1j], 1e-12)
    triangular = np.triu(_matrix(5)) + np.diag(np.arange(5.0))
    _same_eigenvalues(jnp.linalg.eigvals(triangular), np.diag(triangular), 1e-12)
    repeated = np.eye(4) * 3.0  # one eigenvalue four times: every vector is an eigenvector
    w, v = jnp.linalg.eig(repeated)
    assert_close(w, np.full(4, 3.0 + 0j), rtol=1e-12, atol=1e-12)
    assert_close(repeated @ np.asarray(v), 3 * np.asarray(v), rtol=1e-12, atol=1e-12)
    jordan = np.array([[2.0, 1.0], [0.0, 2.0]])  # defective
    _same_eigenvalues(jnp.linalg.eigvals(jordan), [2.0, 2.0], 1e-7)
    companion = np.diag(np.ones(6), -1)  # of x^7 + 2x^6 + ... + 8: complex roots
    companion[0, :] = -np.arange(2.0, 9.0)
    _same_eigenvalues(jnp.linalg.eigvals(companion), np.linalg.eigvals(companion), 1e-8)


def test_eig_batches_and_vmap(route):
    a = np.stack([_matrix(4, np.float32, seed) for seed in range(3)])
    w, v = jnp.linalg.eig(a)
    assert w.shape == (3, 4) and v.shape == (3, 4, 4)
    for k in range(3):
        _same_eigenvalues(w[k], np.linalg.eigvals(a[k]), 1e-4)
    mapped = jaxc.vmap(jnp.linalg.eigvals)(a)
    for k in range(3):
        _same_eigenvalues(mapped[k], np.linalg.eigvals(a[k]), 1e-4)


def test_lax_eig_left_and_right_vectors(x64, route):
    a = _matrix(5)
    w, vl, vr = (np.asarray(x) for x in lax.linalg.eig(a))
    assert_close(a @ vr, vr * w, rtol=1e-10, atol=1e-10)
    assert_close(vl.conj().T @ a, w[:, None] * vl.conj().T, rtol=1e-10, atol=1e-10)
    assert_close(np.linalg.norm(vl, axis=0), np.ones(5), rtol=1e-12, atol=1e-12)
    assert len(lax.linalg.eig(a, compute_left_eigenvectors=False)) == 2
    assert len(lax.linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)) == 1
    w_only_left, vl_only = lax.linalg.eig(a, compute_right_eigenvectors=False)
    assert_close(np.asarray(w_only_left), w, rtol=1e-12, atol=1e-12)
    assert_close(np.asarray(vl_only), vl, rtol=1e-12, atol=1e-12)


def test_lax_eig_computes_both_sides_in_one_op():
    """The default (left and right vectors) is one geev call: one `jaxc.eig`
    in the optimized program, with or without a derivative (CSE merges the
    primal's op with its derivative rule's)."""
    a = _matrix(5, np.float32)
    assert jaxc.jit(lax.linalg.eig).lower(a).as_text(stage="optimized").count("jaxc.eig %") == 1
    f = jaxc.jit(jaxc.jvp, static_argnums=0)
    text = f.lower(lambda m: lax.linalg.eig(m)[2], (a,), (a,)).as_text(stage="optimized")
    assert text.count("jaxc.eig %") == 1


def test_eig_derivatives(x64, route):
    a = _matrix(4)
    # eigenvalues (sums of symmetric functions of them are order-free)
    check_grads(lambda m: jnp.sum(jnp.linalg.eigvals(m) ** 2), (a,), 1)
    # eigenvectors up to their phase: |v|^2 is phase-free
    check_grads(lambda m: jnp.abs(jnp.linalg.eig(m)[1]) ** 2, (a,), 1, modes=("fwd",))
    check_grads(lambda m: jnp.abs(lax.linalg.eig(m)[2]) ** 2, (a,), 1, modes=("fwd",))  # with vl
    check_grads(lambda m: lax.linalg.eig(m)[0].real, (a,), 1, modes=("fwd",))
    z = _matrix(3, np.complex128)
    check_grads(lambda m: jnp.sum(jnp.linalg.eigvals(m) ** 3), (z,), 1, modes=("rev",))


@pytest.mark.parametrize("name, call", [("eig", "jaxc_eig_f32"), ("schur", "jaxc_schur_f32"),
                                        ("hessenberg", "jaxc_hessenberg_f32")])
def test_the_cpu_calls_the_compiled_library(name, call):
    lowered = jaxc.jit(getattr(lax.linalg, name)).lower(_matrix(6, np.float32))
    assert f"jaxc.{name} %" in lowered.as_text(stage="traced")
    assert f"call @{call}(" in lowered.as_text(stage="loops")
    from jaxc.passes import host
    with host.override(library_calls=False):  # traced as programs instead
        text = jaxc.jit(getattr(lax.linalg, name)).lower(_matrix(6, np.float32)).as_text(stage="traced")
    assert f"jaxc.{name} %" not in text and ("jaxc.while" in text or "jaxc.scan" in text)


def test_the_gpu_stages_refuse_the_library_ops():
    """No program to expand them into: a clear error where no library is
    called (the GPU), naming the op and the place."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    text = jaxc.jit(lambda m: jnp.linalg.eigvals(m)).lower(_matrix(4, np.float32)).as_text(stage="transformed")
    module = ir.Module.parse(text, make_context())
    with pytest.raises(Exception, match=r"'jaxc.eig' is computed by the CPU's compiled library \(eig.c\) only"):
        stages.run_stages(module, "optimized", target="cuda", first="transformed")


@pytest.mark.parametrize("name", ["hessenberg", "schur"])
def test_hessenberg_and_schur_are_not_differentiable_as_in_jax(name):
    with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}' not implemented"):
        jaxc.grad(lambda m: getattr(lax.linalg, name)(m)[0].sum())(_matrix(4, np.float32))


def test_eig_is_lapacks(x64):
    """The library follows LAPACK's geev (NumPy's): the same eigenvalues in
    the same order, and the same vectors (norm 1, the largest component
    real)."""
    a = _matrix(7)
    w, v = (np.asarray(x) for x in jnp.linalg.eig(a))
    expected_w, expected_v = np.linalg.eig(a)
    assert_close(w, expected_w, rtol=1e-10, atol=1e-10)
    largest = np.argmax(np.abs(expected_v), axis=0)
    phase = expected_v[largest, np.arange(7)]
    assert_close(v, expected_v * (np.abs(phase) / phase), rtol=1e-9, atol=1e-9)


def test_roots_and_poly():
    p = np.array([0.0, 1.0, -6.0, 11.0, -6.0, 0.0])  # x (x-1)(x-2)(x-3), a leading zero
    r = jnp.roots(p)
    assert r.dtype == np.complex64
    _same_eigenvalues(r, np.roots(p), 1e-4)
    _same_eigenvalues(jnp.roots(np.array([1.0, 0.0, 1.0])), [1j, -1j], 1e-6)
    assert jnp.roots(np.array([0.0, 0.0])).shape == (0,)
    jitted = jaxc.jit(lambda q: jnp.roots(q, strip_zeros=False))(np.array([1.0, -3.0, 2.0]))
    _same_eigenvalues(jitted, [1.0, 2.0], 1e-5)
    a = _matrix(3, np.float32)
    coefficients = jnp.poly(a)
    assert coefficients.dtype == np.complex64
    assert_close(coefficients, np.poly(a), rtol=1e-4, atol=1e-4)
    with pytest.raises(jaxc.errors.ConcretizationTypeError):
        jaxc.jit(jnp.roots)(p)


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")
def test_sqrtm_and_funm_against_scipy(x64):
    a = _matrix(5)
    root = np.asarray(jsl.sqrtm(a))
    assert_close(root @ root, a, rtol=1e-10, atol=1e-10)
    assert_close(root, scipy_linalg.sqrtm(a), rtol=1e-9, atol=1e-9)
    assert_close(jsl.funm(a, jnp.exp), scipy_linalg.expm(a), rtol=1e-9, atol=1e-9)
    assert_close(jsl.funm(a, jnp.sin), scipy_linalg.funm(a, np.sin), rtol=1e-9, atol=1e-9)
    value, error = jsl.funm(a, jnp.cos, disp=False)
    assert_close(value, scipy_linalg.funm(a, np.cos), rtol=1e-9, atol=1e-9)
    assert np.isnan(float(error))


def test_errors():
    with pytest.raises(ValueError, match="output must be 'real' or 'complex'"):
        jsl.schur(np.eye(3), output="quaternion")
    with pytest.raises(ValueError, match="jnp.linalg.eig: the argument must be a square matrix"):
        jnp.linalg.eig(np.ones((2, 3)))
    with pytest.raises(ValueError, match="rank-1"):
        jnp.roots(np.ones((2, 2)))
    with pytest.raises(NotImplementedError, match="blocksize=1"):
        jsl.sqrtm(np.eye(2), blocksize=2)
