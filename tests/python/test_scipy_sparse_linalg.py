"""jaxc.scipy.sparse.linalg (cg, bicgstab, gmres with both solve methods)
against numpy.linalg.solve, SciPy's solvers stopped after a few steps, and,
when installed, JAX 0.10's results: A and M as matrices, functions and
matmul objects, x0, pytree right-hand sides, jit, vmap, implicit
derivatives (custom_linear_solve), complex systems and bad inputs."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse.linalg as ssl

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.sparse.linalg as splinalg
from jaxc.test_util import check_grads

N = 8
# (name, function name, keyword arguments, needs a symmetric positive definite A)
SOLVERS = [
    ("cg", "cg", {}, True),
    ("bicgstab", "bicgstab", {}, False),
    ("gmres-batched", "gmres", {"solve_method": "batched", "restart": 3}, False),
    ("gmres-incremental", "gmres", {"solve_method": "incremental", "restart": 3}, False),
]
IDS = [s[0] for s in SOLVERS]


def _system(spd, dtype, n=N, seed=0):
    """A (symmetric positive definite when `spd`, else nonsymmetric and well
    conditioned) and b."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, n))
    a = q @ q.T / n + np.eye(n) if spd else 3 * np.eye(n) + 0.5 * q
    return a.astype(dtype), rng.standard_normal(n).astype(dtype)


def _solver(solver, module=splinalg):
    _, fname, kw, _ = solver
    fn = getattr(module, fname)
    return lambda *a, **k: fn(*a, **kw, **k)


def _tol(dtype):
    return (dict(rtol=2e-4, atol=2e-4), 1e-7) if dtype == np.float32 else (dict(rtol=1e-9, atol=1e-9), 1e-13)


def _check_info(solver, info):
    if solver[1] == "gmres":
        assert np.asarray(info).shape == () and int(info) == 0
    else:
        assert info is None


def _jax(request, dtype):
    """JAX's sparse linalg module (x64 when dtype is float64), or a skip."""
    jax = pytest.importorskip("jax")
    if dtype == np.float64:
        request.getfixturevalue("jax_x64")
        request.getfixturevalue("x64")
    import jax.scipy.sparse.linalg as jsp
    return jax, jsp


def _assert_like_jax(got, want, tol):
    g_leaves, g_tree = jaxc.tree_util.tree_flatten(got)
    w_leaves, w_tree = jaxc.tree_util.tree_flatten(want)
    assert len(g_leaves) == len(w_leaves)
    for g, w in zip(g_leaves, w_leaves):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), **tol)


# --- solutions ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_solves_match_numpy(solver, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    a, b = _system(solver[3], dtype)
    want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    close, tol = _tol(dtype)
    for op in (a, jnp.asarray(a), lambda v: jnp.dot(a, v)):
        x, info = _solver(solver)(op, b, tol=tol)
        assert x.dtype == dtype and x.shape == (N,)
        _check_info(solver, info)
        np.testing.assert_allclose(np.asarray(x), want, **close)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_preconditioner_as_matrix_and_function(solver, x64):
    a, b = _system(solver[3], np.float64, seed=1)
    a = a * np.linspace(1, 20, N)[:, None] if not solver[3] else a * np.sqrt(np.outer(np.arange(1, N + 1),
                                                                                      np.arange(1, N + 1)))
    jacobi = 1 / np.diag(a)
    want = np.linalg.solve(a, b)
    for m in (np.diag(jacobi), lambda v: jacobi * v):
        x, info = _solver(solver)(a, b, tol=1e-13, M=m)
        _check_info(solver, info)
        np.testing.assert_allclose(np.asarray(x), want, rtol=1e-9, atol=1e-9)
    # the preconditioner is used: after one step the solutions differ
    plain = _solver(solver)(a, b, maxiter=1)[0]
    pre = _solver(solver)(a, b, maxiter=1, M=np.diag(jacobi))[0]
    assert np.abs(np.asarray(plain) - np.asarray(pre)).max() > 1e-3


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_x0_is_the_starting_point(solver, x64):
    a, b = _system(solver[3], np.float64, seed=2)
    x0 = np.random.default_rng(3).standard_normal(N)
    x, _ = _solver(solver)(a, b, x0, maxiter=0)  # no step: x0 itself
    np.testing.assert_array_equal(np.asarray(x), x0)
    exact = np.linalg.solve(a, b)
    x, _ = _solver(solver)(a, b, x0=exact, maxiter=1)  # converged already: no step either
    np.testing.assert_allclose(np.asarray(x), exact, rtol=1e-12, atol=1e-12)
    x, _ = _solver(solver)(a, b, x0=x0, tol=1e-13)
    np.testing.assert_allclose(np.asarray(x), exact, rtol=1e-9, atol=1e-9)


def test_gmres_restart_and_atol(x64):
    a, b = _system(False, np.float64, n=12, seed=4)
    want = np.linalg.solve(a, b)
    for method in ("batched", "incremental"):
        for restart in (1, 2, 5, 12, 40):  # 40: more than the size, cut to 12
            x, info = splinalg.gmres(a, b, restart=restart, tol=0.0, atol=1e-12, solve_method=method)
            assert int(info) == 0
            np.testing.assert_allclose(np.asarray(x), want, rtol=1e-9, atol=1e-9)
        one, _ = splinalg.gmres(a, b, restart=2, maxiter=1, solve_method=method)
        assert np.abs(np.asarray(one) - want).max() > 1e-3  # a single cycle of 2 steps is not enough


def test_matmul_object_operator():
    class Scaled:  # not an array: used through @ (it has the square shape JAX asks for)
        shape = (4, 4)

        def __matmul__(self, v):
            return 2.0 * v

    b = np.arange(1.0, 5.0, dtype=np.float32)
    for fn in (splinalg.cg, splinalg.bicgstab, splinalg.gmres):
        np.testing.assert_allclose(np.asarray(fn(Scaled(), b)[0]), b / 2, rtol=1e-5)


# --- agreement with SciPy and JAX stopped early --------------------------------

@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_early_stop_matches_scipy(solver, x64):
    a, b = _system(solver[3], np.float64, seed=5)
    jacobi = np.diag(1 / np.diag(a))
    ref_fn = getattr(ssl, solver[1])
    extra = {"restart": 3} if solver[1] == "gmres" else {}
    exact = np.linalg.solve(a, b)
    for maxiter in (1, 2, 3):
        for m in (None, jacobi):
            x, _ = _solver(solver)(a, b, maxiter=maxiter, M=m)
            ref, _ = ref_fn(a, b, rtol=1e-5, atol=0.0, maxiter=maxiter, M=m, **extra)
            np.testing.assert_allclose(np.asarray(x), ref, rtol=1e-10, atol=1e-10)
            assert np.abs(np.asarray(x) - exact).max() > 1e-6  # it did stop early


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_matches_jax(solver, dtype, request):
    _, jsp = _jax(request, dtype)
    a, b = _system(solver[3], dtype, seed=6)
    x0 = (0.1 * np.arange(N)).astype(dtype)
    m = np.diag(1 / np.diag(a)).astype(dtype)
    close = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)
    for kw in ({"maxiter": 2}, {"maxiter": 1, "x0": x0, "M": m}, {"tol": 1e-2, "atol": 1e-3, "M": m, "x0": x0}):
        x, info = _solver(solver)(a, b, **kw)
        want, want_info = _solver(solver, jsp)(a, b, **kw)
        _assert_like_jax(x, want, close)
        if want_info is None:
            assert info is None
        else:
            assert int(info) == int(want_info)
            assert np.asarray(info).dtype == np.asarray(want_info).dtype


def test_signatures_match_jax():
    pytest.importorskip("jax")
    import jax.scipy.sparse.linalg as jsp
    for name in ("cg", "bicgstab", "gmres"):
        ours, theirs = inspect.signature(getattr(splinalg, name)), inspect.signature(getattr(jsp, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name
    assert sorted(splinalg.__all__) == ["bicgstab", "cg", "gmres"]
    import jaxc.scipy.sparse as sparse
    assert sparse.linalg is splinalg


# --- pytrees --------------------------------------------------------------------

def _tree_system(spd, seed=7):
    """A 7x7 matrix acting on {"u": (3,), "w": (2, 2)}, b of that form, and
    the operator on the dicts."""
    a, flat_b = _system(spd, np.float64, n=7, seed=seed)
    b = {"u": flat_b[:3], "w": flat_b[3:].reshape(2, 2)}

    def apply(t, mat=a, np_=jnp):
        y = np_.dot(mat, np_.concatenate([t["u"], t["w"].reshape(-1)]))
        return {"u": y[:3], "w": y[3:].reshape(2, 2)}

    return a, b, apply


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_pytree_b(solver, x64):
    a, b, apply = _tree_system(solver[3])
    want = np.linalg.solve(a, np.concatenate([b["u"], b["w"].ravel()]))
    x0 = {"u": np.ones(3), "w": np.zeros((2, 2))}
    jacobi = 1 / np.diag(a)

    def precondition(t):
        return {"u": jacobi[:3] * t["u"], "w": jacobi[3:].reshape(2, 2) * t["w"]}

    for kw in ({}, {"x0": x0}, {"M": precondition, "x0": x0}):
        x, info = _solver(solver)(apply, b, tol=1e-13, **kw)
        _check_info(solver, info)
        assert sorted(x) == ["u", "w"] and x["u"].shape == (3,) and x["w"].shape == (2, 2)
        np.testing.assert_allclose(np.asarray(x["u"]), want[:3], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.asarray(x["w"]).ravel(), want[3:], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_pytree_b_matches_jax(solver, request):
    _, jsp = _jax(request, np.float64)
    import jax.numpy as jax_numpy
    a, b, apply = _tree_system(solver[3], seed=8)
    x0 = {"u": np.ones(3), "w": np.zeros((2, 2))}
    for kw in ({}, {"maxiter": 1, "x0": x0}):
        got, _ = _solver(solver)(apply, b, **kw)
        want, _ = _solver(solver, jsp)(lambda t: apply(t, np_=jax_numpy), b, **kw)
        _assert_like_jax(got, want, dict(rtol=1e-11, atol=1e-11))


# --- jit and vmap ---------------------------------------------------------------

@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_under_jit(solver):
    a, b = _system(solver[3], np.float32, seed=9)
    m = np.diag(1 / np.diag(a)).astype(np.float32)
    x0 = np.full(N, 0.1, np.float32)
    jitted = jaxc.jit(lambda a, b, x0, m: _solver(solver)(lambda v: a @ v, b, x0, maxiter=2, M=m)[0])
    eager, _ = _solver(solver)(a, b, x0, maxiter=2, M=m)
    np.testing.assert_allclose(np.asarray(jitted(a, b, x0, m)), np.asarray(eager), rtol=1e-5, atol=1e-6)
    full = jaxc.jit(lambda a, b: _solver(solver)(a, b, tol=1e-7))(a, b)
    _check_info(solver, full[1])
    np.testing.assert_allclose(np.asarray(full[0]), np.linalg.solve(a.astype(np.float64), b), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_vmap_over_b_matches_loop(solver):
    a, _ = _system(solver[3], np.float32, seed=10)
    bs = np.random.default_rng(11).standard_normal((3, N)).astype(np.float32)
    bs[1] *= 100.0  # a different scale: a different number of steps for the tolerance
    exact = np.linalg.solve(a.astype(np.float64), bs.T).T
    for kw in ({"tol": 1e-6}, {"maxiter": 1}):
        got = np.asarray(jaxc.vmap(lambda b: _solver(solver)(a, b, **kw)[0])(bs))
        want = np.stack([np.asarray(_solver(solver)(a, b, **kw)[0]) for b in bs])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
        if "tol" in kw:
            np.testing.assert_allclose(got, exact, rtol=2e-4, atol=2e-4 * np.abs(exact).max())
        else:
            assert np.abs(got - exact).max() > 1e-3 * np.abs(exact).max()  # stopped early, each its own way


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_vmap_over_matrix_and_b(solver, x64):
    rng = np.random.default_rng(12)
    mats = np.stack([_system(solver[3], np.float64, seed=s)[0] for s in range(3)])
    bs = rng.standard_normal((3, N))
    got = jaxc.vmap(lambda a, b: _solver(solver)(lambda v: a @ v, b, tol=1e-13)[0])(mats, bs)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(mats, bs[..., None])[..., 0], rtol=1e-9, atol=1e-9)


# --- derivatives ----------------------------------------------------------------

def _objective(solver, operator_kind):
    """f(b, P): a nonlinear function of the solution of A x = b, A built from
    P (P P^T / N + I for cg) and given as a matrix or a function."""
    def f(b, p):
        a = p @ p.T / N + jnp.eye(N) if solver[3] else p
        op = a if operator_kind == "matrix" else (lambda v: jnp.dot(a, v))
        x, _ = _solver(solver)(op, b, tol=1e-13)
        return jnp.sum(jnp.sin(x)) + jnp.dot(x, x)
    return f


@pytest.mark.parametrize("operator_kind", ["matrix", "function"])
@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_gradients_check_grads(solver, operator_kind, x64):
    rng = np.random.default_rng(13)
    p = rng.standard_normal((N, N)) if solver[3] else 3 * np.eye(N) + 0.5 * rng.standard_normal((N, N))
    b = rng.standard_normal(N)
    check_grads(_objective(solver, operator_kind), (b, p), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_gradient_against_finite_differences(solver, x64):
    # df/db and df/dA entry by entry, against central differences of the solve
    rng = np.random.default_rng(14)
    a, b = _system(solver[3], np.float64, seed=15)

    def f(b, a):
        return jnp.sum(jnp.tanh(_solver(solver)(a, b, tol=1e-14)[0]))

    def f_np(b, a):
        return float(np.sum(np.tanh(np.linalg.solve(a, b))))

    g_b, g_a = jaxc.grad(f, argnums=(0, 1))(b, a)
    eps = 1e-6
    for i in range(N):
        e = np.zeros(N)
        e[i] = eps
        assert abs(float(g_b[i]) - (f_np(b + e, a) - f_np(b - e, a)) / (2 * eps)) < 1e-7
    for i, j in [tuple(rng.integers(0, N, 2)) for _ in range(6)]:
        e = np.zeros((N, N))
        e[i, j] = eps
        e = (e + e.T) / 2 if solver[3] else e  # cg: a symmetric direction
        fd = (f_np(b, a + e) - f_np(b, a - e)) / (2 * eps)
        assert abs(float(np.sum(np.asarray(g_a) * e / eps)) - fd) < 1e-7


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_gradients_match_jax(solver, request):
    jax, jsp = _jax(request, np.float32)
    import jax.numpy as jax_numpy
    a, b = _system(solver[3], np.float32, seed=16)
    t_a, t_b = _system(solver[3], np.float32, seed=17)

    def make(np_, module):
        def f(b, a):
            x, _ = _solver(solver, module)(lambda v: np_.dot(a, v), b, tol=1e-6)
            return np_.sum(np_.cos(x) * np_.arange(N))
        return f

    ours, theirs = make(jnp, splinalg), make(jax_numpy, jsp)
    for g, w in zip(jaxc.grad(ours, (0, 1))(b, a), jax.grad(theirs, (0, 1))(b, a)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-3, atol=2e-4)
    got = jaxc.jvp(ours, (b, a), (t_b, t_a))[1]
    want = jax.jvp(theirs, (b, a), (t_b, t_a))[1]
    np.testing.assert_allclose(float(got), float(want), rtol=2e-3, atol=2e-4)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_pytree_gradient(solver, x64):
    a, b, apply = _tree_system(solver[3], seed=18)

    def f(b):
        x, _ = _solver(solver)(apply, b, tol=1e-14)
        return jnp.sum(x["u"] ** 2) + jnp.sum(jnp.sin(x["w"]))

    check_grads(f, (b,), order=1, modes=("fwd", "rev"))


# --- complex systems -------------------------------------------------------------

def _complex_system(spd):
    """complex64 A (Hermitian positive definite when `spd`) and b."""
    rng = np.random.default_rng(19)
    q = rng.standard_normal((N, N)) + 1j * rng.standard_normal((N, N))
    a = (q @ q.conj().T / N + np.eye(N) if spd else 3 * np.eye(N) + 0.5 * q).astype(np.complex64)
    return a, (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_complex(solver):
    a, b = _complex_system(solver[3])
    x, _ = _solver(solver)(a, b, tol=1e-6)
    assert x.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(a.astype(np.complex128), b), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("solver", SOLVERS, ids=IDS)
def test_complex_matches_jax(solver, request):
    a, b = _complex_system(solver[3])
    jax, jsp = _jax(request, np.complex64)
    import jax.numpy as jax_numpy
    _assert_like_jax(_solver(solver)(a, b, maxiter=2)[0], _solver(solver, jsp)(a, b, maxiter=2)[0],
                     dict(rtol=1e-4, atol=1e-5))

    def make(np_, module):
        return lambda br: np_.sum(np_.abs(_solver(solver, module)(a, br * (1 + 0.5j), tol=1e-6)[0]) ** 2)

    np.testing.assert_allclose(np.asarray(jaxc.grad(make(jnp, splinalg))(b.real)),
                               np.asarray(jax.grad(make(jax_numpy, jsp))(b.real)), rtol=2e-3, atol=2e-4)


# --- bad inputs --------------------------------------------------------------------

class _NoShape:
    def __matmul__(self, v):
        return v


_B = np.ones(3, np.float32)
_EYE = 2 * np.eye(3, dtype=np.float32)
BAD = [
    ("non-square A", lambda np_: dict(A=np.ones((3, 4), np.float32), b=_B), ValueError),
    ("1-D A", lambda np_: dict(A=np.ones(3, np.float32), b=_B), ValueError),
    ("scalar A", lambda np_: dict(A=3.0, b=_B), TypeError),
    ("list A", lambda np_: dict(A=[[1.0, 0.0], [0.0, 1.0]], b=_B), TypeError),
    ("matmul A without shape", lambda np_: dict(A=_NoShape(), b=_B), AttributeError),
    ("non-square M", lambda np_: dict(A=_EYE, b=_B, M=np.ones((2, 3), np.float32)), ValueError),
    ("x0 structure", lambda np_: dict(A=_EYE, b=_B, x0=(_B,)), ValueError),
    ("x0 dict keys", lambda np_: dict(A=lambda t: t, b={"a": _B}, x0={"b": _B}), ValueError),
    ("A of another size", lambda np_: dict(A=np.eye(4, dtype=np.float32), b=_B), TypeError),
    ("matvec shape", lambda np_: dict(A=lambda v: np_.concatenate([v, v]), b=_B), ValueError),
    ("matvec structure", lambda np_: dict(A=lambda t: [t["a"]], b={"a": _B}), TypeError),
]


@pytest.mark.parametrize("fname", ["cg", "bicgstab", "gmres"])
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_inputs_raise(case, fname):
    _, make, error = case
    with pytest.raises(error):
        getattr(splinalg, fname)(**make(jnp))


def test_bad_shapes_and_solve_method():
    with pytest.raises(ValueError, match="matching shapes"):
        splinalg.cg(_EYE, _B, np.ones(4, np.float32))
    with pytest.raises(ValueError, match="matching shapes"):
        splinalg.bicgstab(_EYE, _B, np.ones(4, np.float32))
    with pytest.raises(TypeError):  # gmres has no shape check: the product fails
        splinalg.gmres(_EYE, _B, np.ones(4, np.float32))
    with pytest.raises(ValueError, match="solve_method"):
        splinalg.gmres(_EYE, _B, solve_method="qr")
    with pytest.raises(TypeError):
        splinalg.cg(_EYE, _B, None, 1e-5)  # tol is keyword-only


def test_bad_inputs_raise_as_jax():
    pytest.importorskip("jax")
    import jax.numpy as jax_numpy
    import jax.scipy.sparse.linalg as jsp
    cases = [(name, make, error) for name, make, error in BAD] + [
        ("x0 shape", lambda np_: dict(A=_EYE, b=_B, x0=np.ones(4, np.float32)), None),
        ("solve_method", lambda np_: dict(A=_EYE, b=_B, solve_method="qr"), ValueError),
    ]
    for name, make, error in cases:
        for fname in ("cg", "bicgstab", "gmres"):
            if name == "solve_method" and fname != "gmres":
                continue
            raised = []
            for module, np_ in ((jsp, jax_numpy), (splinalg, jnp)):
                try:
                    getattr(module, fname)(**make(np_))
                    raised.append(None)
                except Exception as e:  # noqa: BLE001 - the type is what is compared
                    raised.append(type(e))
            assert raised[0] is not None and raised[1] is raised[0], (name, fname, raised)


def test_matvec_structure_and_shapes_both_wrong_as_jax():
    with pytest.raises(ValueError, match="output shapes"):
        splinalg.cg(lambda v: (v, v), _B)
