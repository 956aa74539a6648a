"""jaxc.scipy.signal, jaxc.scipy.integrate and jaxc.scipy.optimize (issue #17)
against SciPy's values and, when installed, JAX 0.10.2's results."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.signal

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.integrate as cint
import jaxc.scipy.optimize as copt
import jaxc.scipy.signal as csig

SHAPES_1D = [((7,), (3,)), ((3,), (7,)), ((1,), (4,)), ((4,), (1,)), ((1,), (1,)), ((5,), (5,)), ((6,), (4,))]
SHAPES_2D = [((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 4), (4, 4)), ((1, 1), (3, 2)), ((3, 1), (1, 1)),
             ((6, 5), (3, 4))]
MODES = ["full", "same", "valid"]


def _pair(s1, s2, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(s1).astype(dtype), rng.standard_normal(s2).astype(dtype)


def _tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)


def _check(fn_name, a, b, mode, jit=False, **kw):
    ours = getattr(csig, fn_name)
    if jit:
        ours = jaxc.jit(ours, static_argnames=("mode",) + tuple(kw))
    got = ours(a, b, mode=mode, **kw)
    want = getattr(scipy.signal, fn_name)(a, b, mode=mode, **kw)
    assert got.dtype == a.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, **_tol(a.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", ["convolve", "correlate"])
def test_convolve_correlate_match_scipy(fn, mode, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    for s1, s2 in SHAPES_1D + SHAPES_2D:
        if fn == "correlate" and mode == "same" and s1 < s2:
            continue  # JAX centres 'same' on the second input when it is larger; SciPy on the first
        a, b = _pair(s1, s2, dtype)
        for method in ("auto", "direct", "fft"):
            if method == "fft" and fn == "correlate" and mode != "full":
                continue  # SciPy's fft correlate of swapped inputs differs from JAX's centring
            _check(fn, a, b, mode, method=method)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", ["convolve2d", "correlate2d"])
def test_2d_match_scipy(fn, mode, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    for s1, s2 in SHAPES_2D:
        if mode == "same" and s1 < s2:
            continue
        a, b = _pair(s1, s2, dtype, seed=1)
        _check(fn, a, b, mode)


@pytest.mark.parametrize("mode", MODES)
def test_fftconvolve_matches_scipy(mode):
    for s1, s2 in SHAPES_1D + SHAPES_2D:
        a, b = _pair(s1, s2, np.float32, seed=2)
        _check("fftconvolve", a, b, mode)
    a, b = _pair((3, 8), (3, 4), np.float32, seed=3)
    got = csig.fftconvolve(a, b, mode=mode, axes=1)
    np.testing.assert_allclose(np.asarray(got), scipy.signal.fftconvolve(a, b, mode=mode, axes=1), rtol=2e-5,
                               atol=2e-5)
    got = csig.fftconvolve(a.T, b.T, mode=mode, axes=[0])
    np.testing.assert_allclose(np.asarray(got), scipy.signal.fftconvolve(a.T, b.T, mode=mode, axes=[0]),
                               rtol=2e-5, atol=2e-5)


def test_under_jit_matches_eager():
    for fn in ("convolve", "correlate", "fftconvolve"):
        for mode in MODES:
            a, b = _pair((9,), (4,), np.float32, seed=4)
            _check(fn, a, b, mode, jit=True)
    a, b = _pair((5, 6), (2, 3), np.float32, seed=5)
    _check("convolve2d", a, b, "same", jit=True)
    _check("correlate2d", a, b, "valid", jit=True)


def test_integer_inputs_promote_to_float():
    out = csig.convolve(np.array([1, 2, 3]), np.array([0, 1, 0]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), [0, 1, 2, 3, 0])


def test_convolve_vmap_matches_loop():
    rng = np.random.default_rng(6)
    xs, k = rng.standard_normal((4, 10)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    for mode in MODES:
        batched = jaxc.vmap(lambda x, mode=mode: csig.convolve(x, k, mode=mode))(xs)
        looped = np.stack([np.asarray(csig.convolve(x, k, mode=mode)) for x in xs])
        np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-6, atol=1e-6)
    ks = rng.standard_normal((4, 3)).astype(np.float32)
    batched = jaxc.vmap(csig.convolve)(xs, ks)
    np.testing.assert_allclose(np.asarray(batched), np.stack([np.asarray(csig.convolve(x, kk)) for x, kk in
                                                              zip(xs, ks)]), rtol=1e-6, atol=1e-6)


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_convolve_gradient_matches_finite_differences(x64):
    a, b = _pair((6,), (3,), np.float64, seed=7)
    w = np.random.default_rng(8).standard_normal(8)
    for method in ("direct", "fft"):
        loss = lambda x, y, m=method: jnp.sum(csig.convolve(x, y, method=m) * w)  # noqa: E731
        ga, gb = jaxc.grad(loss, argnums=(0, 1))(a, b)
        np.testing.assert_allclose(np.asarray(ga), _fd_grad(lambda x: float(np.sum(np.convolve(x, b) * w)), a),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(np.asarray(gb), _fd_grad(lambda y: float(np.sum(np.convolve(a, y) * w)), b),
                                   rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_detrend_matches_scipy(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = np.random.default_rng(9).standard_normal((4, 30)).astype(dtype) + np.arange(30, dtype=dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for kw in ({}, {"type": "constant"}, {"bp": [10, 20]}, {"axis": 0}, {"axis": 0, "type": "constant"}):
        got = csig.detrend(x, **kw)
        assert got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got), scipy.signal.detrend(x, **kw), **tol)
    np.testing.assert_allclose(np.asarray(jaxc.jit(csig.detrend)(x)), scipy.signal.detrend(x), **tol)


def test_signal_bad_inputs_raise_as_jax():
    a, b = np.ones(5, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError):
        csig.convolve(a, b, mode="bogus")
    with pytest.raises(ValueError):
        csig.convolve(a, b, method="bogus")
    with pytest.raises(ValueError):
        csig.convolve(a, np.ones((3, 3), np.float32))
    with pytest.raises(ValueError):
        csig.convolve(np.ones((2, 5)), np.ones((3, 2)))
    with pytest.raises(ValueError):
        csig.convolve(np.ones(0), b)
    with pytest.raises(ValueError):
        csig.fftconvolve(a, b, mode="bogus")
    with pytest.raises(ValueError):
        csig.fftconvolve(np.ones((2, 5)), np.ones((3, 2)), mode="valid")
    with pytest.raises(ValueError):
        csig.fftconvolve(np.ones((2, 5)), np.ones((3, 2)), axes=1)
    for fn in (csig.convolve2d, csig.correlate2d):
        with pytest.raises(NotImplementedError):
            fn(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")
        with pytest.raises(NotImplementedError):
            fn(np.ones((3, 3)), np.ones((2, 2)), boundary="symm")
        with pytest.raises(NotImplementedError):
            fn(np.ones((3, 3)), np.ones((2, 2)), fillvalue=1)
        with pytest.raises(ValueError):
            fn(a, b)
    with pytest.raises(ValueError):
        csig.detrend(a, type="quadratic")
    with pytest.raises(ValueError):
        csig.detrend(a, bp=[7])
    with pytest.raises(NotImplementedError):
        csig.detrend(a, overwrite_data=True)


def test_signal_matches_jax():
    jax = pytest.importorskip("jax")
    import jax.scipy.signal as jsig
    for s1, s2 in SHAPES_1D + SHAPES_2D:
        a, b = _pair(s1, s2, np.float32, seed=10)
        for mode in MODES:
            fns = ["convolve", "correlate", "fftconvolve"] + (["convolve2d", "correlate2d"] if len(s1) == 2 else [])
            for fn in fns:
                want = np.asarray(getattr(jsig, fn)(jax.numpy.asarray(a), jax.numpy.asarray(b), mode=mode))
                got = np.asarray(getattr(csig, fn)(a, b, mode=mode))
                assert got.dtype == want.dtype and got.shape == want.shape, (fn, s1, s2, mode)
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=f"{fn} {s1} {s2} {mode}")
    x = np.random.default_rng(11).standard_normal((3, 20)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(csig.detrend(x, bp=5)), np.asarray(jsig.detrend(x, bp=5)), rtol=1e-5,
                               atol=1e-5)


# --- integrate ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trapezoid_matches_scipy(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    rng = np.random.default_rng(12)
    tol = _tol(dtype)
    for shape in [(1,), (2,), (7,), (3, 5), (4, 1, 6)]:
        y = rng.standard_normal(shape).astype(dtype)
        x = np.sort(rng.standard_normal(shape[-1])).astype(dtype)
        for kw in ({}, {"dx": 0.5}, {"x": x}):
            got = cint.trapezoid(y, **kw)
            assert got.dtype == dtype
            np.testing.assert_allclose(np.asarray(got), scipy.integrate.trapezoid(y, **kw), **tol)
        got = jaxc.jit(cint.trapezoid, static_argnames="axis")(y, axis=0)
        np.testing.assert_allclose(np.asarray(got), scipy.integrate.trapezoid(y, axis=0), **tol)
    assert cint.trapezoid(np.array([1, 2, 3, 2, 3, 2, 1])).dtype == dtype  # int64 -> default float


def test_trapezoid_gradient_matches_finite_differences(x64):
    rng = np.random.default_rng(13)
    y, x = rng.standard_normal(6), np.sort(rng.standard_normal(6))
    gy, gx = jaxc.grad(lambda y, x: cint.trapezoid(y, x), argnums=(0, 1))(y, x)
    np.testing.assert_allclose(np.asarray(gy), _fd_grad(lambda v: scipy.integrate.trapezoid(v, x), y), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(np.asarray(gx), _fd_grad(lambda v: scipy.integrate.trapezoid(y, v), x), rtol=1e-6,
                               atol=1e-8)


def test_trapezoid_matches_jax():
    jax = pytest.importorskip("jax")
    y = np.random.default_rng(14).standard_normal((3, 7)).astype(np.float32)
    x = np.linspace(0, 2, 7, dtype=np.float32)
    for kw in ({}, {"dx": 0.25}, {"x": x}):
        np.testing.assert_allclose(np.asarray(cint.trapezoid(y, **kw)),
                                   np.asarray(jax.scipy.integrate.trapezoid(y, **kw)), rtol=1e-6)


# --- optimize ----------------------------------------------------------------

def rosen(x, np_=jnp):
    return np_.sum(100. * (x[1:] - x[:-1] ** 2) ** 2 + (1. - x[:-1]) ** 2)


def quadratic(x, np_=jnp):
    n = x.shape[0]
    return np_.sum((1. + np_.arange(n)) * (x - np_.arange(n)) ** 2) + 0.5 * (x[0] - x[-1]) ** 2


def smooth(x, np_=jnp):
    return np_.sum(np_.cosh(x - 0.5 * np_.arange(x.shape[0]))) + 0.1 * np_.sum(x) ** 2


def _x0s(dtype):
    return [np.zeros(2, dtype), np.full(3, -1.2, dtype), np.linspace(-1, 1, 5).astype(dtype), np.ones(1, dtype)]


def test_minimize_bfgs_matches_scipy(x64):
    # Not Rosenbrock: JAX's line search gives up on it (status 3) from most
    # starting points, and jaxc does the same (test_minimize_matches_jax).
    for fun in (quadratic, smooth):
        for x0 in _x0s(np.float64):
            res = copt.minimize(fun, x0, method="BFGS")
            ref = scipy.optimize.minimize(lambda x: float(fun(x, np)), x0, method="BFGS")
            assert bool(res.success) and int(res.status) == 0
            assert res.x.dtype == np.float64 and res.hess_inv.shape == (x0.size, x0.size)
            np.testing.assert_allclose(np.asarray(res.x), ref.x, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(float(res.fun), ref.fun, atol=1e-8)
            assert int(res.nit) <= ref.nit + 15


def test_minimize_under_jit_and_args(x64):
    def fun(x, a, b):
        return jnp.sum((x - a) ** 2) * b

    a = np.array([1.0, -2.0, 3.0])
    solve = jaxc.jit(lambda x0, a: copt.minimize(fun, x0, (a, 2.0), method="bfgs"))
    res = solve(np.zeros(3), a)
    eager = copt.minimize(fun, np.zeros(3), (a, 2.0), method="bfgs")
    np.testing.assert_allclose(np.asarray(res.x), a, atol=1e-6)
    np.testing.assert_allclose(np.asarray(res.x), np.asarray(eager.x), rtol=1e-12, atol=1e-12)
    assert int(res.nit) == int(eager.nit)
    assert isinstance(res, copt.OptimizeResults)


def test_minimize_options_and_errors():
    res = copt.minimize(rosen, np.zeros(3, np.float32), method="BFGS", options={"maxiter": 2})
    assert int(res.nit) == 2 and int(res.status) == 1 and not bool(res.success)
    with pytest.raises(ValueError, match="not recognized"):
        copt.minimize(rosen, np.zeros(3, np.float32), method="Nelder-Mead")
    with pytest.raises(TypeError):
        copt.minimize(rosen, np.zeros(3, np.float32), args=[1], method="BFGS")
    with pytest.raises(TypeError):
        copt.minimize(rosen, np.zeros(3, np.float32))  # method is required


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_minimize_matches_jax(dtype, request):
    jax = pytest.importorskip("jax")
    import jax.numpy as jjnp
    import jax.scipy.optimize as jopt
    if dtype == np.float64:
        request.getfixturevalue("x64")
        jax.config.update("jax_enable_x64", True)
    try:
        for fun in (rosen, quadratic, smooth):
            for x0 in _x0s(dtype):
                want = jopt.minimize(lambda x, f=fun: f(x, jjnp), jjnp.asarray(x0), method="BFGS")
                got = copt.minimize(fun, x0, method="BFGS")
                for field in ("success", "status", "nit", "nfev", "njev"):
                    assert int(getattr(got, field)) == int(getattr(want, field)), (fun.__name__, x0, field)
                for field in ("x", "fun", "jac", "hess_inv", "nit", "status"):
                    assert np.asarray(getattr(got, field)).dtype == np.asarray(getattr(want, field)).dtype, field
                tol = 1e-4 if dtype == np.float32 else 1e-8
                np.testing.assert_allclose(np.asarray(got.x), np.asarray(want.x), rtol=tol, atol=tol)
                np.testing.assert_allclose(float(got.fun), float(want.fun), rtol=tol, atol=tol)
    finally:
        if dtype == np.float64:
            jax.config.update("jax_enable_x64", False)
