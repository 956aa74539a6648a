"""The jax.scipy.special names added for issue #17 (betaln, gamma, gammasgn,
loggamma, factorial, poch, multigammaln, gammainc, gammaincc, zeta,
polygamma, log_ndtr, ndtri, i0e, i1e, i0, i1, rel_entr, kl_div, softmax,
log_softmax, boxcox, boxcox1p) against SciPy in float32 and float64, eager
and under jit; vmap against a Python loop; gradients by check_grads; and,
where JAX is installed, against jax.scipy.special."""
import numpy as np
import pytest

import jaxc
import jaxc.scipy.special as js
from jaxc.test_util import check_grads

sp = pytest.importorskip("scipy.special")


def _grid(*values):
    return np.array(values, dtype=np.float64)


def _loggamma_ref(x):
    # JAX (real input): log Gamma(x) for x > 0, NaN elsewhere (SciPy gives inf at 0)
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, sp.gammaln(np.where(x > 0, x, 1.0)), np.nan)


_A = _grid(0.1, 1.0, 2.5, 7.9, 8.0, 12.0, 1e3, 1e6)
_BA, _BB = (m.ravel() for m in np.meshgrid(_A, _A))
_GA = _grid(0.5, 2.0, 10.0, 50.0, 0.5, 3.0, 100.0, 1.0)
_GX = _grid(0.1, 3.0, 8.0, 60.0, 20.0, 0.01, 90.0, 1e-3)

# name -> (arguments, reference, rtol float32, rtol float64, atol or (atol float32, atol float64));
# log_ndtr just below 5 (float32) / 8 (float64) is log(ndtr(x)) as in JAX: absolute error ~ eps; below
# -10 / -20 JAX's 3-term asymptotic series: relative error ~ 1e-11 in float64
CASES = {
    "betaln": ((_BA, _BB), sp.betaln, 2e-5, 1e-12, 1e-5),
    "gamma": ((_grid(-2.5, -1.5, -0.5, 0.5, 1.0, 4.5, 10.0, 25.0, -3.0, np.nan),), sp.gamma, 5e-5, 1e-12, 0),
    "gammasgn": ((_grid(-2.5, -1.5, -0.5, -3.0, 0.5, 7.0, np.inf, -np.inf, np.nan),), sp.gammasgn, 0, 0, 0),
    "loggamma": ((_grid(-1.5, 0.0, 1e-3, 0.5, 1.0, 2.0, 7.5, 1e3, 1e10),), _loggamma_ref, 2e-6, 1e-14, 1e-6),
    "factorial": ((_grid(-2.0, 0.0, 1.0, 2.5, 5.0, 20.0, 30.0),),
                  lambda n: sp.factorial(n, exact=False), 5e-5, 1e-12, 0),
    "poch": ((_grid(1.5, 2.0, -1.5, 3.0, 10.0, 0.5), _grid(2.0, 0.0, 3.0, -1.5, 4.5, 0.25)), sp.poch, 5e-5, 1e-12, 0),
    "gammainc": ((_GA, _GX), sp.gammainc, 5e-5, 1e-12, 1e-7),
    "gammaincc": ((_GA, _GX), sp.gammaincc, 5e-5, 1e-12, 1e-7),
    "zeta": ((_grid(2.0, 3.5, 10.0, 1.5, 30.0, 0.5), _grid(1.0, 0.5, 3.0, 20.0, 1.0, 1.0)), sp.zeta, 1e-5, 1e-13, 0),
    "log_ndtr": ((_grid(-1e3, -40.0, -25.0, -20.5, -19.9, -12.0, -10.5, -9.0, -5.0, -1.0, 0.0, 0.3, 2.5,
                        4.9, 5.1, 7.9, 8.1, 12.0, 30.0),), sp.log_ndtr, 1e-5, 1e-10, (6e-8, 1e-15)),
    "ndtri": ((_grid(0.0, 1e-37, 1e-30, 1e-10, 1e-3, 0.05, 0.13, 0.2, 0.5, 0.7, 0.9, 0.95, 0.999, 1 - 1e-7,
                     1.0, 1.2, -0.1, np.nan),), sp.ndtri, 2e-6, 1e-13, 0),
    "i0e": ((_grid(-800.0, -60.0, -20.5, -19.0, -1.0, -1e-3, 0.0, 0.5, 3.0, 20.0, 21.0, 50.0, 1e4),),
            sp.i0e, 2e-6, 1e-14, 0),
    "i1e": ((_grid(-800.0, -60.0, -20.5, -19.0, -1.0, -1e-3, 0.0, 0.5, 3.0, 20.0, 21.0, 50.0, 1e4),),
            sp.i1e, 2e-6, 1e-14, 0),
    "i0": ((_grid(-30.0, -5.0, -1.0, 0.0, 0.5, 3.0, 19.0, 20.0, 21.0, 50.0),), sp.i0, 2e-6, 1e-14, 0),
    "i1": ((_grid(-30.0, -5.0, -1.0, 0.0, 0.5, 3.0, 19.0, 20.0, 21.0, 50.0),), sp.i1, 2e-6, 1e-14, 0),
    "rel_entr": ((_grid(0.0, 0.0, 1.0, 2.0, 0.5, -1.0, 1.0, 1e-20),
                  _grid(0.0, 1.0, 0.0, 3.0, 0.1, 1.0, -1.0, 1e10)), sp.rel_entr, 2e-6, 1e-14, 0),
    "kl_div": ((_grid(0.0, 0.0, 1.0, 2.0, 0.5, -1.0, 1.0, 3.0),
                _grid(0.0, 1.0, 0.0, 3.0, 0.1, 1.0, -1.0, 3.0)), sp.kl_div, 2e-6, 1e-14, 1e-7),
    "boxcox": ((_grid(0.1, 1.0, 5.0, -0.5, 0.0, 1e3, 2.0), _grid(0.0, 0.5, -2.0, 1.0, 1.0, 1e-9, 3.0)),
               sp.boxcox, 2e-6, 1e-14, 0),
    "boxcox1p": ((_grid(0.1, 1e-8, 5.0, -1.5, -1.0, 1e3, 2.0), _grid(0.0, 0.5, -2.0, 1.0, 1.0, 1e-9, 3.0)),
                 sp.boxcox1p, 2e-6, 1e-14, 0),
}


def _assert_matches(got, want, rtol, atol, dtype):
    got = np.asarray(got)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_scipy(name, dtype, mode, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    args, ref, rtol32, rtol64, atol = CASES[name]
    args = [a.astype(dtype) for a in args]
    with np.errstate(all="ignore"):
        want = np.asarray(ref(*[a.astype(np.float64) for a in args]), np.float64)
    if dtype == np.float32:
        # what float32 can hold: overflow to inf, underflow to 0
        want = want.astype(np.float32).astype(np.float64)
    fn = getattr(js, name)
    got = fn(*args) if mode == "eager" else jaxc.jit(fn)(*args)
    if isinstance(atol, tuple):
        atol = atol[0] if dtype == np.float32 else atol[1]
    _assert_matches(got, want, rtol32 if dtype == np.float32 else rtol64, atol, dtype)


def test_log_ndtr_right_tail_relative():
    # above the upper segment -ndtr(-x) keeps relative accuracy of the tiny values
    x = np.array([5.1, 6.0, 9.0, 12.0], np.float32)
    np.testing.assert_allclose(np.asarray(js.log_ndtr(x)), sp.log_ndtr(x.astype(np.float64)), rtol=2e-5)


def test_multigammaln(x64):
    a = np.array([1.5, 3.0, 5.5, 20.0, 1e3])
    for d in (1, 2, 3, 5):
        want = sp.multigammaln(a[a > (d - 1) / 2], d)
        got = js.multigammaln(a[a > (d - 1) / 2], d)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
    got32 = jaxc.jit(lambda v: js.multigammaln(v, 3))(a.astype(np.float32))
    assert np.asarray(got32).dtype == np.float32
    np.testing.assert_allclose(np.asarray(got32), sp.multigammaln(a, 3), rtol=2e-6)


def test_polygamma():
    n = np.array([0, 1, 2, 3, 1])
    x = np.array([1.0, 0.5, 3.0, 10.0, 30.0], np.float32)
    want = sp.polygamma(n, x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(js.polygamma(n, x)), want, rtol=2e-5)
    np.testing.assert_allclose(np.asarray(jaxc.jit(js.polygamma)(n, x)), want, rtol=2e-5)


def test_polygamma_x64(x64):
    n = np.array([0, 1, 2, 3, 4])
    x = np.array([1.0, 0.5, 3.0, 10.0, 2.5])
    np.testing.assert_allclose(np.asarray(js.polygamma(n, x)), sp.polygamma(n, x), rtol=1e-12)


def test_signed_zeros_and_int_inputs():
    np.testing.assert_array_equal(np.asarray(js.gammasgn(np.array([-0.0, 0.0], np.float32))), [-1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(js.gamma(np.array([-0.0, 0.0], np.float32))), [-np.inf, np.inf])
    out = js.factorial(4)
    assert np.asarray(out).dtype == np.float32
    np.testing.assert_allclose(float(out), 24.0, rtol=5e-6)
    # NaN arguments of rel_entr / kl_div give +inf, as in JAX (SciPy: NaN)
    np.testing.assert_array_equal(np.asarray(js.rel_entr(np.float32(np.nan), 1.0)), np.inf)
    np.testing.assert_array_equal(np.asarray(js.kl_div(1.0, np.float32(np.nan))), np.nan)
    out = js.gammainc(2, 3)
    assert np.asarray(out).dtype == np.float32
    np.testing.assert_allclose(float(out), sp.gammainc(2, 3), rtol=1e-6)


def test_softmax_and_log_softmax():
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]], np.float32)
    np.testing.assert_allclose(np.asarray(js.softmax(x)), sp.softmax(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(js.softmax(x, axis=1)), sp.softmax(x.astype(np.float64), axis=1),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(js.log_softmax(x)), sp.log_softmax(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.jit(lambda v: js.log_softmax(v, axis=0))(x)),
                               sp.log_softmax(x.astype(np.float64), axis=0), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(js.softmax(x, axis=(0, 1))), sp.softmax(x.astype(np.float64)),
                               rtol=1e-6)


def test_errors():
    with pytest.raises(NotImplementedError):
        js.factorial(3.0, exact=True)
    with pytest.raises(NotImplementedError):
        js.zeta(2.0)
    with pytest.raises(ValueError, match="integer type"):
        js.polygamma(1.0, 2.0)
    with pytest.raises(TypeError):
        js.log_ndtr(1.0, series_order=2.0)
    with pytest.raises(ValueError):
        js.log_ndtr(1.0, series_order=31)
    with pytest.raises(ValueError):
        js.log_ndtr(1.0, series_order=-1)
    with pytest.raises(TypeError):
        js.log_ndtr(np.int32(1))


def test_log_ndtr_series_order(x64):
    x = np.array([-25.0, -40.0, -100.0])
    # the remainder of the N-term series is about (2N+1)!! / x**(2N+2)
    for order, rtol in ((0, 1e-5), (1, 1e-7), (5, 1e-14)):
        got = np.asarray(js.log_ndtr(x, series_order=order))
        np.testing.assert_allclose(got, sp.log_ndtr(x), rtol=rtol)


def test_ndtri_inverts_ndtr(x64):
    p = np.logspace(-300, -1, 40)
    x = np.asarray(js.ndtri(p))
    np.testing.assert_allclose(x, sp.ndtri(p), rtol=1e-13)
    np.testing.assert_allclose(np.exp(sp.log_ndtr(x)), p, rtol=1e-11)


@pytest.mark.parametrize("name", ["betaln", "log_ndtr", "i0e"])
def test_vmap_matches_loop(name):
    rng = np.random.default_rng(0)
    if name == "betaln":
        args = (rng.uniform(0.1, 30.0, (4, 3)).astype(np.float32), rng.uniform(0.1, 30.0, (4, 3)).astype(np.float32))
    elif name == "log_ndtr":
        args = (rng.uniform(-30.0, 10.0, (4, 3)).astype(np.float32),)
    else:
        args = (rng.uniform(-40.0, 40.0, (4, 3)).astype(np.float32),)
    fn = getattr(js, name)
    batched = np.asarray(jaxc.vmap(fn)(*args))
    looped = np.stack([np.asarray(fn(*(a[i] for a in args))) for i in range(4)])
    np.testing.assert_allclose(batched, looped, rtol=1e-6, atol=1e-30)
    with np.errstate(all="ignore"):
        want = getattr(sp, name)(*(a.astype(np.float64) for a in args))
    np.testing.assert_allclose(batched, want, rtol=2e-5)


def test_vmap_multigammaln_axis1():
    a = np.array([[3.0, 4.5], [10.0, 2.0], [7.0, 1.5]], np.float32)
    got = np.asarray(jaxc.vmap(lambda v: js.multigammaln(v, 2), in_axes=1)(a))
    np.testing.assert_allclose(got, sp.multigammaln(a.T.astype(np.float64), 2), rtol=2e-6)


@pytest.mark.parametrize("fn, args", [
    (js.betaln, (2.5, 3.5)),
    (js.betaln, (3.0, 20.0)),
    (lambda x: js.gammainc(2.5, x), (1.7,)),
    (lambda x: js.gammainc(4.0, x), (9.0,)),
    (js.log_ndtr, (-30.0,)),
    (js.log_ndtr, (-3.0,)),
    (js.log_ndtr, (2.0,)),
    (js.log_ndtr, (10.0,)),
    (js.i0e, (0.7,)),
    (js.i0e, (-5.0,)),
    (js.i0e, (25.0,)),
    (js.rel_entr, (0.3, 0.6)),
], ids=["betaln", "betaln-large", "gammainc", "gammainc-fraction", "log_ndtr-series", "log_ndtr-mid",
        "log_ndtr-right", "log_ndtr-far", "i0e", "i0e-neg", "i0e-asymptotic", "rel_entr"])
def test_grads(fn, args, x64):
    args = tuple(np.float64(a) for a in args)
    check_grads(fn, args, order=1, modes=("fwd", "rev"), rtol=1e-5, atol=1e-8)
    assert np.isfinite(np.asarray(jaxc.grad(fn)(*args)))


def test_grad_values(x64):
    # d/dx gammainc(a, x) = x**(a-1) e**-x / Gamma(a); d/dx log_ndtr = pdf / cdf;
    # d/dx i0e = i1e - sign(x) i0e; d/dp rel_entr = log(p/q) + 1
    a, x = 2.5, 1.7
    want = x ** (a - 1) * np.exp(-x) / sp.gamma(a)
    np.testing.assert_allclose(float(jaxc.grad(lambda v: js.gammainc(a, v))(x)), want, rtol=1e-10)
    for v in (-30.0, -3.0, 2.0):
        want = np.exp(-0.5 * v * v - 0.5 * np.log(2 * np.pi) - sp.log_ndtr(v))
        np.testing.assert_allclose(float(jaxc.grad(js.log_ndtr)(v)), want, rtol=1e-8)
    for v in (0.7, -5.0, 25.0):
        want = sp.i1e(v) - np.sign(v) * sp.i0e(v)
        np.testing.assert_allclose(float(jaxc.grad(js.i0e)(v)), want, rtol=1e-10)
    np.testing.assert_allclose(float(jaxc.grad(js.rel_entr)(0.3, 0.6)), np.log(0.5) + 1, rtol=1e-12)
    # d/da betaln = digamma(a) - digamma(a + b); above b = 8 it is the derivative of algdiv's fit
    for a, b, rtol in ((2.5, 3.5, 1e-12), (2.5, 30.0, 1e-7)):
        da, db = jaxc.grad(js.betaln, argnums=(0, 1))(a, b)
        np.testing.assert_allclose([float(da), float(db)],
                                   [sp.digamma(a) - sp.digamma(a + b), sp.digamma(b) - sp.digamma(a + b)], rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES) + ["polygamma", "multigammaln", "softmax", "log_softmax"])
def test_against_jax(name, dtype, request):
    jax = pytest.importorskip("jax")
    import jax.scipy.special as jsp
    if dtype == np.float64:
        request.getfixturevalue("x64")
    if name == "polygamma":
        args = (np.array([0, 1, 2, 3]), np.array([1.0, 0.5, 3.0, 10.0], dtype))
    elif name == "multigammaln":
        args = (np.array([3.0, 5.5, 20.0], dtype), 3)
    elif name in ("softmax", "log_softmax"):
        args = (np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]], dtype),)
    else:
        args = tuple(a.astype(dtype) for a in CASES[name][0])
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", dtype == np.float64)
    try:
        want = np.asarray(getattr(jsp, name)(*args))
    finally:
        jax.config.update("jax_enable_x64", previous)
    got = np.asarray(getattr(js, name)(*args))
    assert got.dtype == want.dtype
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    if name == "gammaincc" or name == "gammainc":
        rtol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 if dtype == np.float32 else 1e-14, equal_nan=True)
