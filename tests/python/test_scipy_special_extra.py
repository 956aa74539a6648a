"""The jax.scipy.special names of scipy/_special_more.py (bernoulli, beta,
comb, erfcx, dawsn, exp1, expi, expn, sici, fresnel, spence, owens_t,
betainc, bessel_jn, hyp1f1, hyp2f1) and the lax names of lax/_special.py
(betainc, bessel_i0e, bessel_i1e, igamma_grad_a, random_gamma_grad) against
SciPy: float32 under jit and float64 eagerly, edges (0, signed zeros,
negatives, poles, +-inf, NaN) and JAX's conventions where they differ from
SciPy's, vmap against a Python loop, derivatives by check_grads (float64)
and JAX's exception types."""
import numpy as np
import pytest

import jaxc
import jaxc.scipy.special as js
from jaxc import lax
from jaxc.test_util import check_grads

sp = pytest.importorskip("scipy.special")


def _grid(*values):
    return np.array(values, dtype=np.float64)


def _mesh(*axes):
    return tuple(m.ravel() for m in np.meshgrid(*axes, indexing="ij"))


_X = _grid(-30.0, -7.5, -2.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-30, 1e-5, 0.3, 0.9, 1.0, 1.5, 1.99, 2.0, 2.01,
           3.0, 4.2, 4.3, 6.2, 6.3, 10.0, 30.0, 1e3, 1e10, np.inf, -np.inf, np.nan)
_POSITIVE = _grid(0.0, 1e-30, 1e-5, 0.2, 0.5, 0.9, 1.0, 1.01, 1.5, 2.0, 3.0, 7.5, 30.0, 100.0, 700.0, np.inf,
                  -1.0, np.nan)
_BETA_AB = _mesh(_grid(0.1, 0.5, 1.0, 2.5, 7.9, 8.1, 30.0, 200.0), _grid(0.1, 0.5, 1.0, 2.5, 7.9, 8.1, 30.0, 200.0))
_BETAINC = _mesh(_grid(0.1, 0.5, 1.0, 2.0, 5.0, 30.0, 200.0, 1e3), _grid(0.1, 0.5, 1.0, 2.0, 5.0, 30.0, 200.0, 1e3),
                 _grid(1e-3, 0.1, 0.3, 0.5, 0.7, 0.9))
_EXPN = _mesh(_grid(0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0),
              _grid(0.0, 1e-3, 0.5, 1.0, 1.01, 2.0, 5.0, 30.0, 300.0, np.inf, np.nan, -1.0))
_OWENS = _mesh(_grid(0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 20.0, -1.0, -3.0, np.inf),
               _grid(0.0, 1e-3, 0.1, 0.5, 0.99, 1.0, 1.01, 2.0, 10.0, 1e3, np.inf, -0.5, -2.0))
_HYP1F1 = _mesh(_grid(0.1, 0.5, 1.0, 2.5, 7.0, -2.0, -3.5), _grid(0.2, 1.0, 1.5, 3.0, 10.0, 30.0),
                _grid(-60.0, -20.0, -1.0, -1e-3, 0.0, 0.3, 1.0, 5.0, 20.0, 60.0, 80.0))
_HYP2F1 = _mesh(_grid(0.1, 0.5, 1.0, 2.5, 7.0), _grid(0.1, 0.5, 1.0, 2.5, 7.0), _grid(0.3, 1.5, 4.0, 10.0),
                _grid(-3.0, -1.0, -0.5, 0.0, 0.2, 0.5, 0.7, 0.9))
_COMB = _mesh(_grid(0.0, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 5.5, -1.0), _grid(0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 50.0, 2.5,
                                                                           -1.0))


# name -> (function, arguments, reference, rtol float32, rtol float64, atol float32, atol float64).
# References are SciPy at the float32-rounded arguments (for float32 the result rounded to float32: overflow
# to inf, underflow to 0; subnormal results may be flushed to 0). The absolute tolerances cover zero
# crossings (Ci near 0.6165, hyp2f1 with cancelling terms).
CASES = {
    "beta": (js.beta, _BETA_AB, sp.beta, 2e-5, 1e-12, 0, 0),
    "comb": (js.comb, _COMB, sp.comb, 1e-5, 1e-12, 0, 0),
    "comb_repetition": (lambda n, k: js.comb(n, k, repetition=True),
                        (_grid(0.0, 1.0, 2.0, 5.0, 10.0, 30.0, 5.5), _grid(1.0, 0.0, 3.0, 2.0, 5.0, 10.0, 2.5)),
                        lambda n, k: sp.comb(n, k, repetition=True), 1e-5, 1e-12, 0, 0),
    "erfcx": (js.erfcx, (_X,), sp.erfcx, 1e-6, 2e-14, 0, 0),
    "dawsn": (js.dawsn, (_X,), sp.dawsn, 2e-6, 1e-14, 0, 0),
    "exp1": (js.exp1, (_POSITIVE,), sp.exp1, 2e-6, 1e-14, 0, 0),
    # (near its zero 0.3725... and at 40 SciPy loses digits: test_expi_near_root)
    "expi": (js.expi, (np.concatenate([_X[_X < 700], _grid(0.2, 0.5, 39.9, 100.0, -700.0, 700.0)]),), sp.expi,
             2e-6, 1e-14, 0, 0),
    "expn": (js.expn, _EXPN, sp.expn, 5e-6, 1e-13, 0, 0),
    "sici": (js.sici, (np.concatenate([_X, _grid(0.6165, 3.99, 4.01, -4.01, 1e5)]),), sp.sici, 1e-6, 1e-14,
             1e-7, 1e-15),
    "fresnel": (js.fresnel, (np.concatenate([_X[np.abs(_X) < 100], _grid(1.49, 1.51, 1.79, 1.81, 99.7, -55.3,
                                                                          np.inf)]),), sp.fresnel, 1e-6, 1e-14,
                0, 0),
    "spence": (js.spence, (np.concatenate([_POSITIVE, _grid(0.49, 0.5, 0.51, 0.999, 1.001, 1.999, 2.001, 1e10)]),),
               sp.spence, 1e-6, 1e-14, 0, 0),
    "owens_t": (js.owens_t, _OWENS, sp.owens_t, 2e-6, 1e-13, 0, 0),
    # float32: the fraction's rounding grows with the steps it needs (about sqrt(a + b))
    "betainc": (js.betainc, _BETAINC, sp.betainc, 2e-5, 1e-12, 0, 0),
    # float64: SciPy's 1F1(1; 30; 80) is off by 2e-11 (mpmath agrees with jaxc to 1e-15)
    "hyp1f1": (js.hyp1f1, _HYP1F1, sp.hyp1f1, 2e-5, 3e-11, 0, 0),
    "hyp2f1": (js.hyp2f1, _HYP2F1, sp.hyp2f1, 5e-4, 5e-12, 1e-7, 0),
}


def _reference(ref, args, dtype):
    with np.errstate(all="ignore"):
        want = ref(*[a.astype(np.float64) for a in args])
    want = want if isinstance(want, tuple) else (want,)
    if dtype == np.float32:
        with np.errstate(over="ignore"):
            want = tuple(np.asarray(w).astype(np.float32).astype(np.float64) for w in want)
    return want


def _check(got, want, rtol, atol, dtype):
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == dtype
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32-jit", "f64-eager"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_scipy(name, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    fn, args, ref, rtol32, rtol64, atol32, atol64 = CASES[name]
    args = [np.asarray(a, dtype) for a in args]
    want = _reference(ref, args, dtype)
    got = jaxc.jit(fn)(*args) if dtype == np.float32 else fn(*args)
    # results below the smallest normal number may be flushed to zero
    tiny = float(np.finfo(dtype).tiny)
    if dtype == np.float32:
        _check(got, want, rtol32, max(atol32, tiny), dtype)
    else:
        _check(got, want, rtol64, max(atol64, tiny), dtype)


def test_jax_conventions():
    f = np.float32
    # beta: NaN where a, b or a + b is a pole (SciPy: +-inf or -0)
    got = js.beta(f([-1.0, -1.5, 0.0]), f([2.0, -0.5, 1.0]))
    np.testing.assert_array_equal(np.asarray(got), [np.nan, np.nan, np.inf])
    np.testing.assert_allclose(float(js.beta(-0.5, 1.5)), -np.pi, rtol=1e-6)
    # comb: 0 outside 0 <= k <= N; with repetition 1 where k == 0 <= N, and C(N + k - 1, k) otherwise
    np.testing.assert_array_equal(np.asarray(js.comb(f([5.0, 5.0, -5.0, -1.0]), f([7.0, -1.0, 2.0, -1.0]))), 0.0)
    got = js.comb(f([0.0, -1.0, -1.0]), f([0.0, 0.0, 2.0]), repetition=True)
    np.testing.assert_array_equal(np.asarray(got), [1.0, 0.0, 0.0])
    assert js.comb(5, 2).dtype == np.float32
    # hyp1f1: 1 where a == 0 (also a == b == 0), exp(x) where a == b, inf where b is a non-positive integer
    got = js.hyp1f1(f([0.0, 0.0, 2.0, 2.0, 2.0]), f([0.0, 3.0, 2.0, 0.0, -1.0]), f([1.0, 2.0, 1.5, 1.0, 1.0]))
    np.testing.assert_allclose(np.asarray(got), [1.0, 1.0, np.exp(1.5), np.inf, np.inf], rtol=1e-6)
    # hyp2f1: 1 at x == 0 or where a or b is 0, inf where c is a non-positive integer or x > 1, Gauss's sum
    # at x == 1 (c - a - b > 0, or a terminating series), (1 - x)**-a where b == c
    got = js.hyp2f1(f([1.0, 0.0, 1.0, 1.0, 0.5, -2.0, 1.0, 1.5]), f([2.0, 2.0, 2.0, 2.0, 0.5, 2.5, 1.0, 2.5]),
                    f([3.0, 3.0, -2.0, 3.0, 1.5, 0.3, 1.0, 2.5]), f([0.0, 0.5, 0.5, 2.0, 1.0, 1.0, 0.99, 0.3]))
    want = [1.0, 1.0, np.inf, np.inf, np.pi / 2, sp.hyp2f1(-2.0, 2.5, 0.3, 1.0), 100.0, 0.7 ** -1.5]
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6)
    # expn: real orders (the generalized E_nu), NaN for n < 0 or x < 0, 0 at +inf
    got = js.expn(f([2.5, 2.5, 0.5, -1.0, 1.0, 2.0]), f([1.5, 0.5, 3.0, 1.0, -1.0, np.inf]))
    # E_2.5(1.5), E_2.5(0.5), E_0.5(3) = sqrt(pi / 3) erfc(sqrt 3)
    want = [0.0639949721096907, 0.265126496948901, np.sqrt(np.pi / 3) * sp.erfc(np.sqrt(3.0)), np.nan, np.nan, 0.0]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    # spence: NaN below 0 and at +inf (as SciPy and JAX); owens_t(0, inf) = 1/4 (SciPy; JAX gives NaN)
    np.testing.assert_array_equal(np.asarray(js.spence(f([-1.0, np.inf]))), [np.nan, np.nan])
    np.testing.assert_allclose(float(js.owens_t(0.0, np.inf)), 0.25)
    # signed zeros and odd symmetry
    s, c = js.fresnel(f(-0.0))
    assert np.signbit(np.asarray(s)) and np.signbit(np.asarray(c))
    assert np.signbit(np.asarray(js.dawsn(f(-0.0)))) and np.signbit(np.asarray(js.sici(f(-0.0))[0]))
    # integers promote to the default float
    for out in (js.erfcx(1), js.expn(2, 1), js.sici(2)[1], js.hyp2f1(1, 1, 2, 0), js.bessel_jn(2, v=1)):
        assert np.asarray(out).dtype == np.float32


def test_expi_near_root(x64):
    # relative accuracy around Ei's zero 0.3725...; mpmath's values (SciPy's lose digits here)
    x = _grid(0.3725, 0.37250741, 0.3726, 40.1)
    want = _grid(-2.887418318874596456e-5, -3.0443730423541984658e-9, 3.6071944315775779759e-4,
                 6657825191607100.0358)
    np.testing.assert_allclose(np.asarray(js.expi(x)), want, rtol=1e-14)


def test_half_precision():
    x = np.array([0.5, 1.5, 3.0], np.float16)
    for fn, ref in ((js.erfcx, sp.erfcx), (js.dawsn, sp.dawsn), (js.exp1, sp.exp1)):
        out = fn(x)
        assert np.asarray(out).dtype == np.float16
        np.testing.assert_allclose(np.asarray(out, np.float64), ref(x.astype(np.float64)), rtol=2e-3)


def test_bernoulli():
    b = js.bernoulli(30)
    assert np.asarray(b).dtype == np.float32 and b.shape == (31,)
    np.testing.assert_allclose(np.asarray(b), sp.bernoulli(30), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(js.bernoulli(0)), [1.0])
    np.testing.assert_array_equal(np.asarray(js.bernoulli(1)), [1.0, -0.5])
    with np.errstate(over="ignore"):  # float32 overflows from B_66 on
        np.testing.assert_allclose(np.asarray(js.bernoulli(70)), sp.bernoulli(70).astype(np.float32), rtol=1e-6)
    with pytest.raises(TypeError):
        js.bernoulli(2.0)
    with pytest.raises(ValueError, match="non-negative"):
        js.bernoulli(-1)
    with pytest.raises(TypeError):
        jaxc.jit(js.bernoulli)(3)


def test_bernoulli_x64(x64):
    b = np.asarray(js.bernoulli(250))
    assert b.dtype == np.float64
    np.testing.assert_allclose(b, sp.bernoulli(250), rtol=1e-10)  # SciPy's are good to about 1e-12
    assert b[20] == -174611 / 330 and b[30] == 8615841276005 / 14322  # exact to rounding


_JN_Z = _grid(-20.0, -5.0, -1.0, -1e-3, -1e-6, 0.0, 1e-8, 1e-5, 1e-4, 2e-4, 0.1, 0.5, 1.0, 3.0, 7.0, 10.0, 15.0,
              18.0, 20.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_bessel_jn(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    z = _JN_Z.astype(dtype)
    got = np.asarray(jaxc.jit(lambda v: js.bessel_jn(v, v=12))(z))
    assert got.shape == (13, z.size) and got.dtype == dtype
    want = sp.jv(np.arange(13)[:, None], z.astype(np.float64)[None, :])
    if dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-7)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # a larger n_iter reaches larger |z| (n_iter = 50: to rounding up to |z| = 20, 1e-8 at 30);
    # +-inf gives 0, NaN NaN; the shape is (v + 1, *z.shape)
    z = np.array([60.0, -45.0, 30.0], dtype)
    far = js.bessel_jn(z, v=2, n_iter=120)
    np.testing.assert_allclose(np.asarray(far), sp.jv(np.arange(3)[:, None], z.astype(np.float64)[None, :]),
                               rtol=2e-5 if dtype == np.float32 else 1e-12, atol=1e-7 if dtype == np.float32 else 0)
    edge = np.asarray(js.bessel_jn(np.array([np.inf, -np.inf, np.nan], dtype), v=1))
    np.testing.assert_array_equal(edge, [[0.0, 0.0, np.nan], [0.0, 0.0, np.nan]])
    assert js.bessel_jn(dtype(1.0), v=0).shape == (1,)
    assert js.bessel_jn(np.ones((2, 3), dtype), v=2).shape == (3, 2, 3)


def test_bessel_jn_errors():
    with pytest.raises(TypeError):
        js.bessel_jn(1.0, v=1.5)
    with pytest.raises(ValueError):
        js.bessel_jn(1.0, v=-1)


def test_betainc_edges():
    a = _grid(0.0, -1.0, 1.0, 0.0, 1e-30, 2.0, 2.0, 2.0, 2.0, 2.0, np.nan, 2.0, 2.0)
    b = _grid(1.0, 1.0, 0.0, 0.0, 1.0, np.inf, 3.0, 3.0, 3.0, 3.0, 1.0, np.nan, 3.0)
    x = _grid(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -0.1, 1.2, 0.0, 1.0, 0.5, 0.5, np.nan)
    for dtype in (np.float32,):
        args = [v.astype(dtype) for v in (a, b, x)]
        want = sp.betainc(a, b, x)
        np.testing.assert_array_equal(np.asarray(js.betainc(*args)), want)
        np.testing.assert_array_equal(np.asarray(lax.betainc(*args)), want)


def test_betainc_large_and_skewed_x64(x64):
    # a, b up to 1e4 (the fraction's O(sqrt(a + b)) steps), b << 1 near x = 1 (no cancelling complement)
    a = _grid(1e3, 1e4, 1e4, 5.0, 5.0, 100.0, 0.5)
    b = _grid(1e3, 1e4, 2e4, 1e-3, 1e-2, 1e-3, 1e-3)
    x = _grid(0.5, 0.5, 0.33, 0.9, 0.9, 0.999, 0.5)
    np.testing.assert_allclose(np.asarray(js.betainc(a, b, x)), sp.betainc(a, b, x), rtol=1e-11)


def test_vmap_matches_loop():
    rng = np.random.default_rng(0)
    z = rng.uniform(-10.0, 10.0, (4, 3)).astype(np.float32)
    f = lambda v: js.bessel_jn(v, v=2)  # noqa: E731
    batched = np.asarray(jaxc.vmap(f)(z))
    looped = np.stack([np.asarray(f(z[i])) for i in range(4)])
    assert batched.shape == (4, 3, 3)
    np.testing.assert_allclose(batched, looped, rtol=1e-6, atol=1e-7)
    a, b = rng.uniform(0.5, 5.0, (2, 4, 3)).astype(np.float32)
    x = rng.uniform(0.0, 1.0, (4, 3)).astype(np.float32)
    batched = np.asarray(jaxc.vmap(js.betainc)(a, b, x))
    looped = np.stack([np.asarray(js.betainc(a[i], b[i], x[i])) for i in range(4)])
    np.testing.assert_allclose(batched, looped, rtol=1e-6)
    np.testing.assert_allclose(batched, sp.betainc(a, b, x), rtol=2e-5)
    s, c = jaxc.vmap(js.fresnel)(z)
    np.testing.assert_allclose(np.asarray(s), sp.fresnel(z.astype(np.float64))[0], rtol=2e-6)


_GRADS = {
    "erfcx": (js.erfcx, [_grid(-1.5, 0.3, 2.5, 8.0)]),
    "dawsn": (js.dawsn, [_grid(-1.5, 0.3, 5.0, 8.0)]),
    "exp1": (js.exp1, [_grid(0.3, 1.5, 8.0)]),
    "expi": (js.expi, [_grid(-2.0, 0.3, 1.5, 50.0)]),
    "expn": (lambda x: js.expn(_grid(1.0, 2.0, 3.0), x), [_grid(0.3, 1.5, 8.0)]),
    "sici": (js.sici, [_grid(-2.0, 0.3, 1.5, 8.0)]),
    "fresnel": (js.fresnel, [_grid(-2.0, 0.3, 1.5, 8.0)]),
    "spence": (js.spence, [_grid(0.2, 0.9, 1.5, 3.0)]),
    "owens_t": (js.owens_t, [_grid(0.3, -1.5, 2.0), _grid(0.5, 2.0, -0.7)]),
    "betainc": (js.betainc, [_grid(0.7, 2.0, 5.0), _grid(1.5, 3.0, 0.8), _grid(0.3, 0.6, 0.9)]),
    "beta": (js.beta, [_grid(0.7, 2.0, 9.0), _grid(1.5, 3.0, 0.8)]),
    "hyp1f1": (js.hyp1f1, [_grid(0.7, 2.0, 1.5, 0.0), _grid(1.5, 3.0, 1.5, 2.0), _grid(0.5, -2.0, 5.0, 0.7)]),
    "hyp2f1": (js.hyp2f1, [_grid(0.7, 2.0, 1.5, 0.0), _grid(1.5, 0.5, 2.5, 1.0), _grid(3.0, 4.0, 2.5, 2.0),
                           _grid(0.5, -2.0, 0.3, 0.4)]),
    "bessel_jn": (lambda z: js.bessel_jn(z, v=3), [_grid(0.5, 3.0, 10.0)]),
}


@pytest.mark.parametrize("name", sorted(_GRADS))
def test_grads(name, x64):
    # closed forms (custom_jvp) where JAX has them; through the series and fractions otherwise
    # (hyp1f1 / hyp2f1 also at their special cases a == b, b == c, a == 0)
    fn, args = _GRADS[name]
    check_grads(fn, args, order=1, modes=("fwd", "rev"), rtol=1e-5, atol=1e-7)


def test_lax_functions():
    f = np.float32
    a, b, x = _BETAINC
    got = lax.betainc(a.astype(f), b.astype(f), x.astype(f))
    np.testing.assert_allclose(np.asarray(got), sp.betainc(a, b, x.astype(f)), rtol=2e-5, atol=1e-30)
    v = _grid(-800.0, -20.5, -1.0, 0.0, 0.5, 3.0, 21.0, 1e4, np.nan)
    for fn, ref in ((lax.bessel_i0e, sp.i0e), (lax.bessel_i1e, sp.i1e)):
        out = fn(v.astype(f))
        assert out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), ref(v), rtol=2e-6)
    out = lax.bessel_i0e(np.array([1.0, 2.0], np.float16))
    assert out.dtype == np.float16


def test_lax_gamma_derivatives(x64):
    a = _grid(0.5, 2.0, 10.0, 0.1, 1.0, 5.0, 30.0, 3.0)
    x = _grid(1.0, 3.0, 2.0, 0.01, 10.0, 0.5, 25.0, 8.0)
    h = 1e-6
    # d/da P(a, x) by central differences of SciPy's gammainc (about 1e-9 accurate)
    want = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(a, x)), want, rtol=1e-6, atol=1e-12)
    # dx/da at a fixed CDF value p = P(a, x): x(a) = gammaincinv(a, p)
    p = sp.gammainc(a, x)
    want = (sp.gammaincinv(a + h, p) - sp.gammaincinv(a - h, p)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x)), want, rtol=1e-6)
    edges = lax.igamma_grad_a(_grid(1.0, -1.0, 1.0, 1.0, 0.0, np.nan), _grid(0.0, 1.0, -1.0, np.inf, 1.0, 1.0))
    np.testing.assert_array_equal(np.asarray(edges), [0.0, np.nan, np.nan, 0.0, np.nan, np.nan])


def test_lax_errors():
    # lax takes floating operands of one dtype, as JAX's primitives do
    with pytest.raises(TypeError):
        lax.bessel_i0e(1)
    with pytest.raises(TypeError):
        lax.bessel_i1e(np.arange(3))
    with pytest.raises(TypeError):
        lax.igamma_grad_a(np.float32(1.0), np.int32(2))
    with pytest.raises(TypeError):
        lax.betainc(np.float32(1.0), np.float32(2.0), np.float16(0.5))
    with pytest.raises(TypeError):
        lax.random_gamma_grad(np.int32(1), np.int32(2))
