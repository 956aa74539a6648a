"""jaxc.scipy.stats (issue #17): every distribution function against
scipy.stats over grids that cover the support edges and points outside it
(float32; a few in float64), parameters broadcasting, integer inputs
promoting, jit and vmap, float64 gradients against finite differences, the
multivariate distributions, and the errors JAX raises. Where JAX's formulas
give something other than SciPy (documented below), the expected value is
JAX's, and with JAX installed the quirks are compared with jax.scipy.stats."""
import warnings

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.stats as js
from jaxc.test_util import check_grads

ss = pytest.importorskip("scipy.stats")

inf, nan = np.inf, np.nan
def g(*v): return np.array(v, dtype=np.float64)
# 16 points each
XR = g(-inf, -30., -5., -2.5, -1., -0.3, 0., 0.2, 0.5, 1., 1.7, 3., 6., 25., inf, nan)   # real line
XP = g(-1., -1e-3, 0., 1e-3, 0.1, 0.5, 0.9, 1., 1.5, 2., 3.5, 5., 10., 30., 100., inf)    # half line
XU = g(-0.5, -1e-3, 0., 1e-4, 0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99, 1., 1.2, 2.)  # unit interval
Q = g(-0.1, 0., 1e-6, 1e-3, 0.02, 0.1, 0.25, 0.4, 0.5, 0.6, 0.8, 0.95, 0.999, 1 - 1e-6, 1., 1.5)
K = g(-2., -1., 0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 15., 20., 40.)                # counts
KP = g(-2., -1., 0., 1., 2., 3., 4., 5., 6., 7., 8., 10., 15., 20., 2.5, 40.)              # and a non-integer
QI = g(1e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)  # open (0, 1)
XT = np.where(np.isnan(XR), -1.2, XR)

def _open_unit(ref):
    """JAX: NaN at q = 0 and q = 1 too (SciPy: -inf, inf)."""
    return lambda q, *a: np.where((q > 0) & (q < 1), ref(q, *a), np.nan)

A16 = g(0.5, 1., 2., 3.5, 0.5, 1., 2., 3.5, 0.5, 1., 2., 3.5, 0.5, 1., 2., 3.5)
B16 = g(0.5, 0.5, 0.5, 0.5, 1., 1., 1., 1., 2., 2., 2., 2., 5., 5., 5., 5.)

# "dist.func": (args, scipy reference or None (= scipy.stats.<dist>.<func>), rtol32, atol32)
CASES = {
  "norm.logpdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-6),
  "norm.pdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "norm.cdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "norm.logcdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-6),
  "norm.sf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "norm.logsf": ((XR, 0.5, 2.0), None, 1e-5, 1e-6),
  "norm.ppf": ((Q, 0.5, 2.0), None, 1e-5, 1e-5),
  "norm.isf": ((Q, 0.5, 2.0), lambda q, *a: ss.norm.ppf(np.float32(1) - q.astype(np.float32), *a), 1e-5, 1e-4),
  "uniform.logpdf": ((XU, 0.1, 0.8), None, 1e-6, 1e-6),
  "uniform.pdf": ((XU, 0.1, 0.8), None, 1e-6, 1e-6),
  "uniform.cdf": ((XU, 0.1, 0.8), None, 1e-6, 1e-6),
  "uniform.ppf": ((Q, 0.1, 0.8), None, 1e-6, 1e-6),
  "expon.logpdf": ((XP, 0.5, 2.0), None, 1e-6, 1e-6),
  "expon.pdf": ((XP, 0.5, 2.0), None, 1e-6, 1e-7),
  "expon.cdf": ((XP, 0.5, 2.0), None, 1e-6, 1e-7),
  "expon.logcdf": ((XP, 0.5, 2.0), None, 1e-5, 1e-6),
  "expon.sf": ((XP, 0.5, 2.0), None, 1e-6, 1e-7),
  "expon.logsf": ((XP, 0.5, 2.0), None, 1e-6, 1e-6),
  "expon.ppf": ((Q, 0.5, 2.0), None, 1e-5, 1e-5),
  "laplace.logpdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-6),
  "laplace.pdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "laplace.cdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "logistic.logpdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-6),
  "logistic.pdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "logistic.cdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "logistic.sf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "logistic.ppf": ((Q, 0.5, 2.0), None, 1e-5, 1e-5),
  "logistic.isf": ((Q, 0.5, 2.0), None, 1e-5, 1e-5),
  "cauchy.logpdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-6),
  "cauchy.pdf": ((XR, 0.5, 2.0), None, 1e-6, 1e-7),
  "cauchy.cdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-6),
  "cauchy.logcdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "cauchy.sf": ((XR, 0.5, 2.0), None, 1e-5, 1e-6),
  "cauchy.logsf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "cauchy.ppf": ((QI, 0.5, 2.0), None, 1e-4, 1e-4),
  "cauchy.isf": ((QI, 0.5, 2.0), None, 1e-4, 1e-4),
  "gamma.logpdf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-5),
  "gamma.pdf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-6),
  "gamma.cdf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-6),
  "gamma.logcdf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-5),
  "gamma.sf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-6),
  "gamma.logsf": ((XP, A16, 0.5, 1.5), None, 1e-5, 1e-5),
  "chi2.logpdf": ((XP, A16 * 2 + 1, 0.0, 1.5), None, 1e-5, 1e-5),
  "chi2.pdf": ((XP, A16 * 2 + 1, 0.0, 1.5), None, 1e-5, 1e-6),
  "chi2.cdf": ((XP, A16 * 2, 0.0, 1.5), None, 1e-5, 1e-6),
  "chi2.logcdf": ((XP, A16 * 2, 0.0, 1.5), None, 1e-5, 1e-5),
  "chi2.sf": ((XP, A16 * 2, 0.0, 1.5), None, 1e-5, 1e-6),
  "chi2.logsf": ((XP, A16 * 2, 0.0, 1.5), None, 1e-5, 1e-5),
  "beta.logpdf": ((XU, A16, B16), None, 1e-5, 1e-5),
  "beta.pdf": ((XU, A16, B16), None, 1e-5, 1e-6),
  "beta.cdf": ((XU, A16, B16), None, 2e-5, 1e-6),
  "beta.logcdf": ((XU, A16, B16), None, 2e-5, 1e-5),
  "beta.sf": ((XU, A16, B16), None, 2e-5, 1e-6),
  "beta.logsf": ((XU, A16, B16), None, 2e-5, 1e-5),
  "t.logpdf": ((XR, A16 * 3, 0.5, 2.0), None, 1e-5, 1e-5),
  "t.pdf": ((XR, A16 * 3, 0.5, 2.0), None, 1e-5, 1e-7),
  "pareto.logpdf": ((XP, A16, 0.2, 1.5), None, 1e-5, 1e-5),
  "pareto.pdf": ((XP, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "pareto.cdf": ((XP, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "pareto.logcdf": ((XP, A16, 0.2, 1.5), None, 1e-4, 1e-5),
  "pareto.sf": ((XP, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "pareto.logsf": ((XP, A16, 0.2, 1.5), None, 1e-5, 1e-5),
  "pareto.ppf": ((Q, A16, 0.2, 1.5), None, 1e-4, 1e-5),
  "gumbel_l.logpdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_l.pdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_l.cdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_l.logcdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_l.sf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_l.logsf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_l.ppf": ((Q, 0.5, 2.0), _open_unit(ss.gumbel_l.ppf), 1e-4, 1e-5),
  "gumbel_r.logpdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_r.pdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_r.cdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_r.logcdf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_r.sf": ((XR, 0.5, 2.0), None, 1e-5, 1e-7),
  "gumbel_r.logsf": ((XR, 0.5, 2.0), None, 1e-5, 1e-5),
  "gumbel_r.ppf": ((Q, 0.5, 2.0), _open_unit(ss.gumbel_r.ppf), 1e-4, 1e-5),
  "gennorm.logpdf": ((XR, A16), None, 1e-5, 1e-5),
  "gennorm.pdf": ((XR, A16), None, 1e-5, 1e-7),
  "gennorm.cdf": ((XR, A16), None, 1e-5, 1e-6),
  "vonmises.logpdf": ((XR, A16 * 4), None, 1e-5, 1e-5),
  "vonmises.pdf": ((XR, A16 * 4), None, 1e-5, 1e-6),
  "wrapcauchy.logpdf": ((XR + 0.7, XU), None, 1e-5, 1e-5),
  "wrapcauchy.pdf": ((XR + 0.7, XU), None, 1e-5, 1e-6),
  "truncnorm.logpdf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-5),
  "truncnorm.pdf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "truncnorm.cdf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "truncnorm.logcdf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-5),
  "truncnorm.sf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-6),
  "truncnorm.logsf": ((XT, -1.0, A16, 0.2, 1.5), None, 1e-5, 1e-5),
  "bernoulli.logpmf": ((K, 0.3), None, 1e-6, 1e-6),
  "bernoulli.pmf": ((K, 0.3), None, 1e-6, 1e-6),
  "bernoulli.cdf": ((XU * 2 - 0.5, XU), None, 1e-6, 1e-6),
  "bernoulli.ppf": ((Q, XU), None, 1e-6, 1e-6),
  "binom.logpmf": ((K, 10.0, 0.3), None, 1e-5, 1e-5),
  "binom.pmf": ((K, 10.0, 0.3), None, 1e-5, 1e-7),
  "betabinom.logpmf": ((K, 10.0, A16, B16), None, 1e-5, 1e-5),
  "betabinom.pmf": ((K, 10.0, A16, B16), None, 1e-5, 1e-7),
  "geom.logpmf": ((K, 0.3), None, 1e-5, 1e-5),
  "geom.pmf": ((K, 0.3), None, 1e-5, 1e-7),
  "nbinom.logpmf": ((K, 4.0, 0.3), None, 1e-5, 1e-5),
  "nbinom.pmf": ((K, 4.0, 0.3), None, 1e-5, 1e-7),
  "poisson.logpmf": ((KP, 3.5), None, 1e-5, 1e-5),
  "poisson.pmf": ((KP, 3.5), None, 1e-5, 1e-7),
  "poisson.cdf": ((KP, 3.5), None, 1e-5, 1e-6),
}


def _f32(args):
    return [np.asarray(a, np.float32) for a in args]


def _reference(name, ref, args):
    dist, fn = name.split(".")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return (ref or getattr(getattr(ss, dist), fn))(*args)


def _function(name):
    dist, fn = name.split(".")
    return getattr(getattr(js, dist), fn)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_scipy_float32(name):
    args, ref, rtol, atol = CASES[name]
    args = _f32(args)
    out = _function(name)(*args)
    assert out.dtype == np.float32 and out.shape == (16,)
    expected = _reference(name, ref, [a.astype(np.float64) for a in args])
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=atol, err_msg=name)


# name -> rtol in float64 (atol 1e-13). betabinom: special.betaln (JAX's algorithm, the
# asymptotic algdiv once max(a, b) >= 8) agrees with SciPy's to about 1e-7 only, as JAX's does.
F64_CASES = {
    "norm.logpdf": 1e-14, "norm.cdf": 1e-13, "norm.logcdf": 1e-12, "norm.ppf": 1e-12, "norm.logsf": 1e-12,
    "gamma.logpdf": 1e-13, "gamma.cdf": 1e-11, "gamma.sf": 1e-11, "beta.logpdf": 1e-12, "beta.cdf": 1e-11,
    "beta.sf": 1e-11, "t.logpdf": 1e-13, "chi2.cdf": 1e-11, "truncnorm.logpdf": 1e-12, "truncnorm.logcdf": 1e-11,
    "poisson.logpmf": 1e-13, "binom.logpmf": 1e-12, "betabinom.logpmf": 1e-6, "expon.logcdf": 1e-13,
    "gumbel_r.logsf": 1e-13, "cauchy.ppf": 1e-12, "pareto.logcdf": 1e-13, "vonmises.logpdf": 1e-13,
}


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(F64_CASES))
def test_against_scipy_float64(name):
    args, ref, _, _ = CASES[name]
    args = [np.asarray(a, np.float64) for a in args]
    out = _function(name)(*args)
    assert out.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), _reference(name, ref, args), rtol=F64_CASES[name],
                               atol=1e-13, err_msg=name)


# Where JAX's formulas differ from SciPy: no domain checks in the closed forms
# (cauchy.ppf at 0 and 1 is tan(-+pi/2), finite; binom/geom/nbinom accept a
# non-integer k), gumbel ppf is NaN at 0 and 1, truncnorm.cdf(NaN) is 1,
# norm.isf(q) is ppf(1 - q) (rounded in float32).
QUIRKS = {
    "cauchy.ppf": (g(0., 1., -0.5, 2.), 0.5, 2.0),
    "cauchy.isf": (g(0., 1., -0.5, 2.), 0.5, 2.0),
    "binom.logpmf": (g(2.5, 9.5, 10.5, -0.5), 10.0, 0.3),
    "geom.logpmf": (g(2.5, 0.5, 1.5, -0.5), 0.3),
    "nbinom.logpmf": (g(2.5, 0.5, 1.5, -0.5), 4.0, 0.3),
    "gumbel_r.ppf": (g(0., 1., 0.5, 2.), 0.5, 2.0),
    "truncnorm.cdf": (g(nan, 0.5, -3., 3.), -1.0, 1.0),
    "truncnorm.logpdf": (g(0.5, 0.0, 1.0, 2.0), 1.0, g(1.0, 2.0, 0.5, -1.0)),
    "norm.isf": (g(1e-6, 1e-9, 0.5, 1.0),),
    "beta.logpdf": (g(0.5, 0.5, 0.5, 0.5), g(-1., 1., 1., 0.), g(1., 1., 0., 2.)),
    "betabinom.logpmf": (g(0., 1., 11., 2.7), g(0., 0., 10., 10.), 2.0, 3.0),
    "poisson.logpmf": (g(2.5, -1., 0., 3.), g(3., 3., 0., 0.)),
    "bernoulli.cdf": (g(0.5, nan, 0.5, 2.), g(nan, 0.3, 1.5, 0.3)),
    "expon.ppf": (g(-0.1, 0., 1., nan),),
    "uniform.cdf": (g(nan, 0.1, 0.2, 5.),),
    "gennorm.cdf": (g(-1., 0., 1., 2.), 0.7),
    "wrapcauchy.logpdf": (g(-0.1, 0.5, 6.3, 1.0), g(0.5, 0.0, 0.5, 1.0)),
    "vonmises.logpdf": (g(0.5, 0.5, 0.5, 0.5), g(0.0, -1.0, 1e-3, 700.)),
    "gumbel_l.logpdf": (g(0.5, 0.5, 0.5, 0.5), 0.0, g(0.0, -1.0, 1.0, 2.0)),
}


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_edge_cases_match_jax(name):
    jax_stats = pytest.importorskip("jax.scipy.stats")
    args = _f32(QUIRKS[name])
    dist, fn = name.split(".")
    expected = np.asarray(getattr(getattr(jax_stats, dist), fn)(*args))
    np.testing.assert_allclose(np.asarray(_function(name)(*args)), expected, rtol=2e-6, atol=1e-6, err_msg=name)


def test_edge_cases_known_values():
    """The quirks above, as plain facts (no JAX needed)."""
    assert np.isfinite(np.asarray(js.cauchy.ppf(jnp.array([0.0, 1.0])))).all()
    np.testing.assert_allclose(np.asarray(js.binom.pmf(2.5, 10, 0.3)), 0.2642606, rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(js.gumbel_r.ppf(jnp.array([0.0, 1.0]))), [np.nan, np.nan])
    assert float(js.truncnorm.cdf(np.float32(np.nan), -1.0, 1.0)) == 1.0
    assert float(js.poisson.logpmf(2.5, 3.0)) == -np.inf
    np.testing.assert_array_equal(np.asarray(js.beta.logpdf(0.5, jnp.array([-1.0, 1.0]), 0.0)), [np.nan, np.nan])
    assert float(js.betabinom.pmf(0, 0, 2.0, 3.0)) == 1.0
    assert np.isnan(float(js.vonmises.logpdf(0.5, 0.0))) and np.isnan(float(js.gumbel_l.logpdf(0.5, 0.0, -1.0)))


def test_broadcasting_and_promotion():
    x = np.linspace(-2, 3, 4, dtype=np.float32)[:, None]
    loc = np.array([0.0, 0.5, -1.0], np.float32)
    out = js.norm.logpdf(x, loc, 2.0)
    assert out.shape == (4, 3) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), ss.norm.logpdf(x, loc, 2.0), rtol=1e-6)
    assert js.norm.logpdf(1).dtype == np.float32                         # int -> float32
    k = np.arange(-1, 6, dtype=np.int32)
    pmf = js.poisson.pmf(k, 3)
    assert pmf.dtype == np.float32
    np.testing.assert_allclose(np.asarray(pmf), ss.poisson.pmf(k, 3), rtol=1e-5, atol=1e-7)
    assert js.norm.ppf(np.float16(0.3)).dtype == np.float32              # ppf: the default float (JAX)
    assert js.gamma.logpdf(np.float16(1.0), 2.0).dtype == np.float16


def test_bad_arguments():
    with pytest.raises(TypeError, match="incompatible shapes"):
        js.norm.logpdf(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="norm.logpdf requires ndarray or scalar arguments"):
        js.norm.logpdf([1.0, 2.0])


def test_jit_and_vmap():
    x, a, b = _f32((XU, A16, B16))
    np.testing.assert_allclose(np.asarray(jaxc.jit(js.gamma.logpdf)(x, a, 0.5)),
                               np.asarray(js.gamma.logpdf(x, a, 0.5)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.jit(js.norm.cdf)(x, scale=2.0)), ss.norm.cdf(x, scale=2.0),
                               rtol=1e-6)
    # vmap over the shape parameters (beta.cdf is a while_loop: batched predicate)
    out = jaxc.vmap(js.beta.cdf, in_axes=(None, 0, 0))(x[:4], a[:3], b[:3])
    assert out.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(out), ss.beta.cdf(x[:4], a[:3, None], b[:3, None]), rtol=2e-5, atol=1e-6)
    out = jaxc.vmap(js.t.logpdf, in_axes=(0, None))(x.reshape(4, 4), 3.0)
    np.testing.assert_allclose(np.asarray(out), ss.t.logpdf(x.reshape(4, 4), 3.0), rtol=1e-5)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name, args", [
    ("norm", (np.array([-1.5, 0.3, 2.0]), 0.5, 1.7)),
    ("gamma", (np.array([0.3, 1.5, 4.0]), 2.5, 0.1, 1.3)),
    ("beta", (np.array([0.2, 0.5, 0.9]), 2.5, 1.5)),
    ("t", (np.array([-1.5, 0.3, 2.0]), 3.5, 0.5, 1.7)),
])
def test_logpdf_gradients_float64(name, args):
    check_grads(getattr(js, name).logpdf, args, order=1, modes=("fwd", "rev"), rtol=1e-6, atol=1e-8)


def test_beta_cdf_gradients():
    """betainc is a fixed-length fori_loop, so reverse mode goes through it: d cdf/dx is
    the pdf, and (unlike JAX, which refuses them) d/da and d/db match finite differences."""
    x = np.linspace(0.05, 0.95, 16).astype(np.float32)
    grads = jaxc.vmap(jaxc.grad(lambda x: js.beta.cdf(x, 2.0, 3.0)))(x)
    np.testing.assert_allclose(np.asarray(grads), ss.beta.pdf(x, 2.0, 3.0), rtol=2e-5)
    with jaxc.enable_x64():
        check_grads(js.beta.cdf, (np.array([0.2, 0.5, 0.9]), np.array([0.7, 2.5, 4.0]), np.array([1.5, 3.0, 0.8])),
                    order=1, modes=("fwd", "rev"), rtol=1e-6, atol=1e-8)


def test_multivariate_normal():
    rng = np.random.RandomState(0)
    m = rng.randn(3, 3)
    cov = (m @ m.T + 3 * np.eye(3)).astype(np.float32)
    mean = np.array([0.5, -1.0, 2.0], np.float32)
    x = rng.randn(5, 3).astype(np.float32)
    out = js.multivariate_normal.logpdf(x, mean, cov)
    assert out.shape == (5,)
    np.testing.assert_allclose(np.asarray(out), ss.multivariate_normal.logpdf(x, mean, cov), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(js.multivariate_normal.pdf(x, mean, cov)),
                               ss.multivariate_normal.pdf(x, mean, cov), rtol=1e-5)
    # a batch of covariances, broadcast against one x; a scalar covariance; a scalar mean
    covs = np.stack([cov, 2 * np.eye(3, dtype=np.float32)])
    out = js.multivariate_normal.logpdf(x[0], mean, covs)
    np.testing.assert_allclose(np.asarray(out), [ss.multivariate_normal.logpdf(x[0], mean, c) for c in covs],
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(js.multivariate_normal.logpdf(x, mean, np.float32(2.0))),
                               ss.multivariate_normal.logpdf(x, mean, 2.0 * np.eye(3)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(js.multivariate_normal.logpdf(x[:, 0], np.float32(0.5), np.float32(2.0))),
                               ss.norm.logpdf(x[:, 0], 0.5, np.sqrt(2.0)), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        js.multivariate_normal.logpdf(x, mean, cov, allow_singular=True)
    with pytest.raises(ValueError, match="incompatible shapes"):
        js.multivariate_normal.logpdf(x, mean, np.eye(2, dtype=np.float32))


def test_dirichlet():
    alpha = np.array([0.5, 2.0, 3.5], np.float32)
    x64 = np.array([[0.25, 0.125, 0.5, 0.375], [0.25, 0.625, 0.25, 0.25], [0.5, 0.25, 0.25, 0.375]])
    x = x64.astype(np.float32)
    out = js.dirichlet.logpdf(x, alpha)
    assert out.shape == (4,)
    np.testing.assert_allclose(np.asarray(out), ss.dirichlet.logpdf(x64, alpha), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(js.dirichlet.pdf(x[:2], alpha)),       # the last entry left out
                               ss.dirichlet.pdf(x64, alpha), rtol=1e-5)
    off = js.dirichlet.logpdf(np.array([0.5, 0.6, -0.1], np.float32), alpha)     # off the simplex
    assert float(off) == -np.inf
    with pytest.raises(ValueError, match="`alpha` must be one-dimensional"):
        js.dirichlet.logpdf(x, alpha[None])
    with pytest.raises(ValueError, match="one entry fewer"):
        js.dirichlet.logpdf(x[:1], alpha)


def test_multinomial():
    x = np.array([[2, 3, 5], [0, 0, 10], [4, 4, 2]], np.int32)
    p = np.array([0.2, 0.3, 0.5], np.float32)
    for row in x:
        out = js.multinomial.logpmf(row, 10, p)
        assert out.shape == () and out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), ss.multinomial.logpmf(row, 10, p), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(js.multinomial.pmf(x[0], 10, p)), ss.multinomial.pmf(x[0], 10, p),
                               rtol=1e-5)
    assert float(js.multinomial.logpmf(np.array([2, 2, 5]), 10, p)) == -np.inf     # counts sum to 9
    # JAX compares the sum of *all* of x with n: rows of a batch (30 in all) are -inf
    np.testing.assert_array_equal(np.asarray(js.multinomial.logpmf(x, 10, p)), [-np.inf] * 3)
    assert js.multinomial.logpmf(x, np.array([10, 10, 10]), p).shape == (1, 3)   # rank promotion, as JAX
    with pytest.raises(ValueError, match="x and n must be of integer type"):
        js.multinomial.logpmf(x.astype(np.float32), 10, p)


def test_poisson_entropy():
    mu = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 99.0, 100.0, 500.0], np.float32)
    out = js.poisson.entropy(mu)
    expected = [ss.poisson(m).entropy() if m else 0.0 for m in mu.astype(np.float64)]
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-6)
    assert js.poisson.entropy(3.0, np.zeros(2)).shape == (2,)


def test_public_functions_match_jax():
    jax_stats = pytest.importorskip("jax.scipy.stats")
    import inspect
    for dist in [n for n in dir(jax_stats) if inspect.ismodule(getattr(jax_stats, n))]:
        for fn in [n for n in dir(getattr(jax_stats, dist)) if not n.startswith("_")]:
            ours = getattr(getattr(js, dist), fn)
            theirs = getattr(getattr(jax_stats, dist), fn)
            assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters), (dist, fn)
            assert [p.default for p in inspect.signature(ours).parameters.values()] == \
                [p.default for p in inspect.signature(theirs).parameters.values()], (dist, fn)
    for fn in ("mode", "rankdata", "sem"):  # gaussian_kde: a class, tested below
        ours, theirs = inspect.signature(getattr(js, fn)), inspect.signature(getattr(jax_stats, fn))
        assert [(p.name, p.default, p.kind) for p in ours.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in theirs.parameters.values()], fn


_DATA = np.array([[3, 1, 3, 2, 3, 1], [5, 5, 4, 4, 0, 0], [2, 7, 7, 1, 1, 1]], np.int32)


def test_mode():
    for axis, keepdims in [(0, False), (1, False), (1, True), (None, False), (None, True)]:
        out = js.mode(_DATA, axis=axis, keepdims=keepdims)
        expected = ss.mode(_DATA, axis=axis, keepdims=keepdims)
        np.testing.assert_array_equal(np.asarray(out.mode), expected.mode, err_msg=str(axis))
        np.testing.assert_array_equal(np.asarray(out.count), expected.count, err_msg=str(axis))
        assert out.mode.dtype == np.int32 and out.count.dtype == np.int32
    floats = _DATA.astype(np.float32)
    out = jaxc.jit(lambda x: js.mode(x, axis=1))(floats)
    np.testing.assert_array_equal(np.asarray(out.mode), ss.mode(floats, axis=1).mode)
    # NaNs count as one value and sort last (jnp.unique); an empty axis gives NaN and a count of 0
    out = js.mode(np.array([1.0, np.nan, np.nan, 2.0], np.float32))
    assert np.isnan(float(out.mode)) and int(out.count) == 2
    out = js.mode(np.zeros((0, 2), np.float32))
    assert np.isnan(np.asarray(out.mode)).all() and out.mode.shape == (2,) and float(out.count[0]) == 0
    with pytest.raises(ValueError, match="Illegal nan_policy value 'bogus'"):
        js.mode(_DATA, nan_policy="bogus")
    with pytest.raises(NotImplementedError, match="nan_policy` of omit"):
        js.mode(_DATA, nan_policy="omit")
    with pytest.raises(TypeError, match="mode requires ndarray or scalar arguments"):
        js.mode([1, 2, 2])


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata(method):
    out = js.rankdata(_DATA, method)
    assert out.dtype == np.float32 and out.shape == (18,)
    np.testing.assert_array_equal(np.asarray(out), ss.rankdata(_DATA, method))
    for axis in (0, 1, -1):
        np.testing.assert_array_equal(np.asarray(js.rankdata(_DATA, method, axis=axis)),
                                      ss.rankdata(_DATA, method, axis=axis), err_msg=str(axis))
    with_nan = _DATA.astype(np.float32)
    with_nan[1, 2] = np.nan                            # a NaN makes its whole slice NaN, as SciPy
    np.testing.assert_array_equal(np.asarray(js.rankdata(with_nan, method, axis=1)),
                                  ss.rankdata(with_nan, method, axis=1))


def test_rankdata_errors():
    with pytest.raises(ValueError, match="unknown method 'first'"):
        js.rankdata(_DATA, "first")
    with pytest.raises(NotImplementedError, match="In order to best JIT compile `rankdata`"):
        js.rankdata(_DATA, nan_policy="raise")


def test_sem():
    x = np.array([[1.0, 2.5, 4.0, 8.0], [0.5, np.nan, 3.0, 1.0], [2.0, 2.0, 6.0, 5.0]], np.float32)
    for axis in (0, 1, None):
        np.testing.assert_allclose(np.asarray(js.sem(x[[0, 2]], axis=axis)), ss.sem(x[[0, 2]], axis=axis), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(js.sem(x, axis=axis, ddof=0, nan_policy="omit")),
                                   ss.sem(x, axis=axis, ddof=0, nan_policy="omit"), rtol=1e-6)
    assert np.isnan(np.asarray(js.sem(x, axis=1))[1])
    assert js.sem(np.arange(6), keepdims=True).shape == (1,) and js.sem(np.arange(6)).dtype == np.float32
    with pytest.raises(ValueError, match="raise is not supported"):
        js.sem(x, nan_policy="raise")


def test_gaussian_kde():
    rng = np.random.RandomState(0)
    data = rng.randn(2, 30).astype(np.float32)
    weights = rng.rand(30).astype(np.float32)
    points = rng.randn(2, 5).astype(np.float32)
    for bw in (None, "silverman", 0.4, lambda kde: 0.5 * kde.neff ** -0.2):
        ours, theirs = js.gaussian_kde(data, bw, weights), ss.gaussian_kde(data, bw, weights)
        np.testing.assert_allclose(np.asarray(ours.covariance), theirs.covariance, rtol=2e-5)
        np.testing.assert_allclose(np.asarray(ours(points)), theirs(points), rtol=2e-5)
        np.testing.assert_allclose(np.asarray(ours.logpdf(points)), theirs.logpdf(points), rtol=2e-5, atol=1e-6)
    mean, cov = np.array([0.1, 0.2], np.float32), np.eye(2, dtype=np.float32)
    np.testing.assert_allclose(float(ours.integrate_gaussian(mean, cov)), theirs.integrate_gaussian(mean, cov),
                               rtol=2e-5)
    one, other = js.gaussian_kde(data[0]), js.gaussian_kde(data[1, :7])
    np.testing.assert_allclose(float(one.integrate_box_1d(-0.5, 1.0)),
                               ss.gaussian_kde(data[0]).integrate_box_1d(-0.5, 1.0), rtol=2e-5)
    np.testing.assert_allclose(float(one.integrate_kde(other)),
                               ss.gaussian_kde(data[0]).integrate_kde(ss.gaussian_kde(data[1, :7])), rtol=2e-5)
    # a pytree: passes through jit; resample draws JAX's numbers (random.choice + multivariate_normal)
    np.testing.assert_allclose(np.asarray(jaxc.jit(lambda k, x: k.pdf(x))(one, data[0, :3])),
                               ss.gaussian_kde(data[0])(data[0, :3]), rtol=2e-5)
    samples = one.resample(jaxc.random.key(0), (4000,))
    assert samples.shape == (1, 4000)
    assert abs(float(samples.std()) ** 2 - (data[0].var() + float(one.covariance[0, 0]))) < 0.1
    with pytest.raises(ValueError, match="`dataset` input should have multiple elements"):
        js.gaussian_kde(np.ones(1, np.float32))
    with pytest.raises(ValueError, match="`weights` input should be of length n"):
        js.gaussian_kde(data, weights=weights[:3])
    with pytest.raises(ValueError, match="`bw_method` should be 'scott', 'silverman'"):
        js.gaussian_kde(data, "bogus")
    with pytest.raises(ValueError, match="points have dimension 3, dataset has dimension 2"):
        ours.evaluate(np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match="integrate_box_1d\\(\\) only handles 1D pdfs"):
        ours.integrate_box_1d(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="use `integrate_box_1d`"):
        ours.integrate_box(mean, mean)


def test_gaussian_kde_resample_matches_jax():
    jax = pytest.importorskip("jax")
    import jax.scipy.stats as jax_stats
    data = np.random.RandomState(1).randn(1, 20).astype(np.float32)
    expected = jax_stats.gaussian_kde(data).resample(jax.random.key(3), (6,))
    np.testing.assert_allclose(np.asarray(js.gaussian_kde(data).resample(jaxc.random.key(3), (6,))),
                               np.asarray(expected), rtol=1e-5, atol=1e-6)
