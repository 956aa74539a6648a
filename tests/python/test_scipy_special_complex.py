"""The complex-valued jax.scipy.special names (scipy/_special_complex.py):
wofz, the Faddeeva function, and sph_harm_y, the spherical harmonics.
Against SciPy over grids (complex64 against SciPy at the same inputs, the
result rounded to complex64), eagerly and under jit; vmap against a Python
loop; derivatives against the closed forms, SciPy's and finite differences
in float64; JAX's dtypes and exception types; and, where JAX is installed,
against jax.scipy.special."""
import numpy as np
import pytest

import jaxc
import jaxc.scipy.special as js
from jaxc.test_util import check_grads

sp = pytest.importorskip("scipy.special")

# relative to |w|; complex64: 1e-6 but where 2 exp(-z**2) and w(-z) nearly cancel below the real axis
_RTOL = {np.complex128: 5e-14, np.complex64: 4e-6}


def _axis(n):
    """-1e3 .. 1e3, log-spaced, with 0, points near 0 and the region boundaries of the algorithm."""
    logs = np.logspace(-3, 3, n)
    extra = [0.0, 1e-10, 0.9, 1.26, 4.4, 5.5, 6.3, 6.31, 26.6]
    return np.unique(np.concatenate([-logs, logs, extra, -np.asarray(extra)]))


def _plane():
    re, im = np.meshgrid(_axis(31), _axis(31))
    return (re + 1j * im).ravel()


def _lines():
    """The real and imaginary axes, just off the real axis, |z| up to 1e300, and the diagonals of the lower
    half-plane (where exp(-z**2) neither overflows nor vanishes)."""
    rng = np.random.default_rng(0)
    t = rng.uniform(-1e3, 1e3, 300)
    tiny = 10.0 ** rng.uniform(-300, -1, 300) * rng.choice([-1, 1], 300)
    huge = 10.0 ** rng.uniform(3, 300, 200) * np.exp(1j * rng.uniform(0, np.pi, 200))
    diagonal = 10.0 ** rng.uniform(0, 3, 300)
    lower = diagonal * rng.choice([-1, 1], 300) - 1j * diagonal * (1 + rng.uniform(-0.05, 0.05, 300))
    return np.concatenate([t + 0j, 1j * t, rng.uniform(-40, 40, 300) + 1j * tiny, huge, lower,
                           rng.uniform(-15, 15, 500) + 1j * rng.uniform(-15, 15, 500)])


def _reference(z, dtype):
    with np.errstate(all="ignore"):
        return sp.wofz(z.astype(np.complex128)).astype(dtype)  # complex64: overflow to inf, as jaxc's


def _assert_w(got, want, rtol):
    """|got - want| <= rtol |want| where SciPy is finite (subnormal complex64 results may be flushed to 0);
    elsewhere the same infinities and NaNs, part by part."""
    got = np.asarray(got)
    assert got.dtype == want.dtype
    finite = np.isfinite(want)
    tiny = np.finfo(want.real.dtype).tiny
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=2 * tiny)
    for part in (np.real, np.imag):
        g, w = part(got[~finite]), part(want[~finite])
        np.testing.assert_array_equal(np.isfinite(g), np.isfinite(w))
        np.testing.assert_array_equal(g[~np.isfinite(w)], w[~np.isfinite(w)])
        np.testing.assert_allclose(g[np.isfinite(w)], w[np.isfinite(w)], rtol=rtol)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("points", ["plane", "lines"])
def test_wofz_against_scipy(points, dtype, mode, request):
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    with np.errstate(over="ignore"):  # complex64: |z| past 3e38 becomes inf
        z = (_plane() if points == "plane" else _lines()).astype(dtype)
    fn = js.wofz if mode == "eager" else jaxc.jit(js.wofz)
    _assert_w(fn(z), _reference(z, dtype), _RTOL[dtype])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_wofz_overflow_boundary(dtype, request):
    # y**2 - x**2 just below and above log(max float): finite and infinite parts exactly where SciPy's are
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    x = np.linspace(0.5, 20, 400)
    a = 709.6 if dtype == np.complex128 else 88.6
    z = np.concatenate([x - 1j * np.sqrt(x * x + a + d) for d in (-1.0, 0.0, 0.3, 1.0)]).astype(dtype)
    _assert_w(js.wofz(z), _reference(z, dtype), _RTOL[dtype])


def test_wofz_edges(x64):
    inf, nan = np.inf, np.nan
    z = np.array([complex(a, b) for a in (-inf, -1.0, 0.0, 1.0, inf) for b in (-inf, -30.0, -1.0, 0.0, 1.0, inf)]
                 + [-30j, 30 - 30j, complex(-0.0, 0.0), complex(0.0, -0.0), 1e-300j, -1e-300j, 5e-324])
    _assert_w(js.wofz(z), sp.wofz(z), 5e-14)
    # NaN in either part: NaN in both (SciPy keeps a zero imaginary part for 0 + NaN i)
    got = np.asarray(js.wofz(np.array([nan, complex(0, nan), complex(inf, nan), complex(nan, -inf)])))
    assert np.isnan(got.real).all() and np.isnan(got.imag).all()


@pytest.mark.parametrize("value, dtype, dtype_x64", [
    (1, np.complex64, np.complex128),
    (1.5, np.complex64, np.complex128),
    (1 + 1j, np.complex64, np.complex128),
    (True, np.complex64, np.complex64),
    (np.float16(1.5), np.complex64, np.complex64),
    (np.float32(1.5), np.complex64, np.complex64),
    (np.float64(1.5), np.complex64, np.complex128),
    (np.int32(2), np.complex64, np.complex64),
    (np.int64(2), np.complex64, np.complex128),
    (np.uint8(2), np.complex64, np.complex64),
    (np.complex64(1 + 1j), np.complex64, np.complex64),
])
def test_wofz_dtypes(value, dtype, dtype_x64):
    # JAX's promote_args_complex: the dtype's complex type, integers as jnp.float_ of them; never weak
    for x64, want in ((False, dtype), (True, dtype_x64)):
        with jaxc.enable_x64(x64):
            out = js.wofz(value)
            assert out.dtype == want and not out.weak_type
            np.testing.assert_allclose(complex(out), sp.wofz(complex(value)), rtol=2e-6)
    out = js.wofz(np.zeros((2, 3), np.float32))
    assert out.shape == (2, 3) and out.dtype == np.complex64


def test_wofz_errors():
    for bad in ([1.0, 2.0], (1j,), "a", None):
        with pytest.raises(TypeError):
            js.wofz(bad)


def test_wofz_vmap_matches_loop():
    rng = np.random.default_rng(1)
    z = (rng.uniform(-8, 8, (5, 4)) + 1j * rng.uniform(-8, 8, (5, 4))).astype(np.complex64)
    batched = np.asarray(jaxc.vmap(js.wofz)(z))
    looped = np.stack([np.asarray(js.wofz(row)) for row in z])
    np.testing.assert_allclose(batched, looped, rtol=1e-6)
    _assert_w(batched, _reference(z, np.complex64), _RTOL[np.complex64])
    got = np.asarray(jaxc.vmap(js.wofz, in_axes=1)(z))
    np.testing.assert_allclose(got, looped.T, rtol=1e-6)


_GRAD_POINTS = np.array([1 + 1j, 0.3 - 0.2j, -5 + 0.01j, 8 - 7.5j, 30 + 1j, 0j, 2j, -2j, 0.1 + 5j])


def test_wofz_derivative(x64):
    # holomorphic: w'(z) = -2 z w(z) + 2i / sqrt(pi), against SciPy's w and central differences of it
    want = -2 * _GRAD_POINTS * sp.wofz(_GRAD_POINTS) + 2j / np.sqrt(np.pi)
    h = 1e-6
    differences = (sp.wofz(_GRAD_POINTS + h) - sp.wofz(_GRAD_POINTS - h)) / (2 * h)
    np.testing.assert_allclose(differences, want, rtol=1e-7)
    grad = jaxc.grad(js.wofz, holomorphic=True)
    got = np.array([complex(grad(z)) for z in _GRAD_POINTS])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    batched = np.asarray(jaxc.jit(jaxc.vmap(grad))(_GRAD_POINTS))
    np.testing.assert_allclose(batched, want, rtol=1e-12)
    primal, tangent = jaxc.jvp(js.wofz, (_GRAD_POINTS,), (np.full(_GRAD_POINTS.shape, 0.5 - 0.2j),))
    np.testing.assert_allclose(np.asarray(primal), sp.wofz(_GRAD_POINTS), rtol=5e-14)
    np.testing.assert_allclose(np.asarray(tangent), want * (0.5 - 0.2j), rtol=1e-12)
    # w'' = (4 z**2 - 2) w - 4iz / sqrt(pi): the rule applies again
    second = jaxc.grad(grad, holomorphic=True)
    got = np.array([complex(second(z)) for z in _GRAD_POINTS[:5]])
    z = _GRAD_POINTS[:5]
    # (at 30 + i the two terms cancel to 1e-6 of their size, in both)
    np.testing.assert_allclose(got, (4 * z * z - 2) * sp.wofz(z) - 4j * z / np.sqrt(np.pi), rtol=1e-9)
    check_grads(js.wofz, (_GRAD_POINTS[:3],), order=2, modes=("fwd", "rev"), rtol=1e-6)
    check_grads(js.wofz, (_GRAD_POINTS[3:],), order=1, modes=("fwd", "rev"), rtol=1e-6)


def test_wofz_real_argument_grad(x64):
    # a real x is promoted to complex: d Re w / dx = -2 x exp(-x**2), d Im w / dx = 2/sqrt(pi) - 2 x Im w
    for x in (0.0, 0.7, -2.5, 9.0):
        np.testing.assert_allclose(float(jaxc.grad(lambda v: js.wofz(v).real)(x)), -2 * x * np.exp(-x * x),
                                   rtol=1e-12, atol=1e-300)
        want = 2 / np.sqrt(np.pi) - 2 * x * sp.wofz(x).imag
        np.testing.assert_allclose(float(jaxc.grad(lambda v: js.wofz(v).imag)(x)), want, rtol=1e-11, atol=1e-15)
    out = jaxc.grad(lambda v: js.wofz(v).real)(np.float32(1.0))
    assert np.asarray(out).dtype == np.float32
    np.testing.assert_allclose(float(out), -2 * np.exp(-1.0), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_wofz_against_jax(dtype, request):
    jax = pytest.importorskip("jax")
    import jax.scipy.special as jsp
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    z = _plane().astype(dtype)
    # JAX (Weideman's rational approximation, N = 32) is good to about 3e-13 / 5e-7 relative; below the real
    # axis its exp(-z**2) rounds its exponent and phase (float32), so keep to |z| < 5 there
    z = z[(z.imag >= 0) | (np.abs(z) < 5)]
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", dtype == np.complex128)
    try:
        want = np.asarray(jsp.wofz(z))
    finally:
        jax.config.update("jax_enable_x64", previous)
    got = np.asarray(js.wofz(z))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == np.complex128 else 2e-6, atol=1e-37)


# -- sph_harm_y ------------------------------------------------------------------------------------

_N_MAX = 10
_NM = np.array([(n, m) for n in range(_N_MAX + 1) for m in range(-n, n + 1)])
_THETA = np.array([0.0, 1e-8, 0.1, 0.7, np.pi / 2, 2.0, np.pi - 1e-6, np.pi])
_PHI = np.array([0.0, 0.3, 2.0, 4.5, 2 * np.pi])


def _harmonics_grid():
    t, p, i = (a.ravel() for a in np.meshgrid(np.arange(len(_THETA)), np.arange(len(_PHI)), np.arange(len(_NM)),
                                              indexing="ij"))
    return _NM[i, 0], _NM[i, 1], _THETA[t], _PHI[p]


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_sph_harm_y_against_scipy(dtype, mode, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    n, m, theta, phi = _harmonics_grid()
    theta, phi = theta.astype(dtype), phi.astype(dtype)
    want = sp.sph_harm_y(n, m, theta.astype(np.float64), phi.astype(np.float64))
    if mode == "eager":
        got = js.sph_harm_y(n, m, theta, phi)
    else:
        got = jaxc.jit(lambda *a: js.sph_harm_y(*a, n_max=_N_MAX))(n, m, theta, phi)
    got = np.asarray(got)
    assert got.dtype == (np.complex128 if dtype == np.float64 else np.complex64)
    # |Y| <= sqrt((2n + 1) / (4 pi)) < 1.3: absolute tolerances; the poles are exact (sin(theta), not
    # sqrt(1 - cos(theta)**2): Y_1^1(1e-8) ~ 3.5e-9 keeps its digits)
    np.testing.assert_allclose(got, want, rtol=0, atol=5e-14 if dtype == np.float64 else 2e-6)
    near_pole = (theta == _THETA[1]) & (np.abs(want) > 0)
    np.testing.assert_allclose(got[near_pole], want[near_pole], rtol=1e-12 if dtype == np.float64 else 2e-6)


def test_sph_harm_y_conventions(x64):
    theta, phi = 0.9, 1.3
    one = np.array([1])
    c = np.cos(theta)
    s = np.sin(theta)
    # Condon-Shortley phase: Y_1^1 = -sqrt(3 / (8 pi)) sin(theta) exp(i phi); Y_0^0 = 1 / sqrt(4 pi)
    got = complex(js.sph_harm_y(one, one, theta, phi)[0])
    np.testing.assert_allclose(got, -np.sqrt(3 / (8 * np.pi)) * s * np.exp(1j * phi), rtol=1e-14)
    np.testing.assert_allclose(complex(js.sph_harm_y(np.array([0]), 0, theta, phi)[0]), 0.5 / np.sqrt(np.pi),
                               rtol=1e-15)
    want = 0.25 * np.sqrt(5 / np.pi) * (3 * c * c - 1)
    np.testing.assert_allclose(complex(js.sph_harm_y(np.array([2]), 0, theta, phi)[0]), want, rtol=1e-14)
    # Y_n^-m = (-1)**m conj(Y_n^m)
    n = np.repeat(np.arange(6), 6)
    m = np.tile(np.arange(6), 6)
    plus = np.asarray(js.sph_harm_y(n, m, theta, phi))
    minus = np.asarray(js.sph_harm_y(n, -m, theta, phi))
    np.testing.assert_allclose(minus, (-1.0) ** m * np.conj(plus), rtol=1e-14, atol=1e-300)


def test_sph_harm_y_shapes_and_clipping():
    n, m = np.array([0, 1, 2, 3]), np.array([0, -1, 2, 1])
    theta, phi = np.array([0.3, 0.5, 1.0, 2.0], np.float32), np.array([0.1, 1.0, 2.0, 3.0], np.float32)
    full = np.asarray(js.sph_harm_y(n, m, theta, phi))
    # a scalar theta applies to every entry; so does a scalar phi (and m broadcasts)
    np.testing.assert_allclose(np.asarray(js.sph_harm_y(n, m, 0.5, phi)),
                               sp.sph_harm_y(n, m, 0.5, phi.astype(np.float64)), atol=2e-6)
    np.testing.assert_allclose(np.asarray(js.sph_harm_y(n, 1, theta, 2.0)),
                               sp.sph_harm_y(n, 1, theta.astype(np.float64), 2.0), atol=2e-6)
    assert js.sph_harm_y(n, m[:, None], theta, phi).shape == (4, 4)
    assert js.sph_harm_y([0, 1, 2, 3], m, theta, phi).shape == (4,)  # n may be a list, as in JAX
    # theta of another length: entry i takes theta[min(i, len(theta) - 1)], as JAX's clipped gather
    got = np.asarray(js.sph_harm_y(n, m, theta[:2], phi))
    np.testing.assert_allclose(got, sp.sph_harm_y(n, m, theta[[0, 1, 1, 1]].astype(np.float64), phi), atol=2e-6)
    got = np.asarray(js.sph_harm_y(n[:2], m[:2], theta, phi[:2]))
    np.testing.assert_allclose(got, full[:2], rtol=1e-6)
    # n_max clips n and |m| in the Legendre function (JAX; m itself stays in (-1)**m exp(i m phi)), |m| > n
    # gives 0, n < 0 counts from the end of 0..n_max (JAX's indexing)
    got = np.asarray(js.sph_harm_y(np.array([10, 3, 1, -1]), np.array([2, -3, 2, 0]), 0.5, 1.0, n_max=2))
    want = sp.sph_harm_y(np.array([2, 2, 1, 2]), np.array([2, 2, 2, 0]), 0.5, np.array([1.0, 0.0, 1.0, 1.0]))
    want[1] *= -np.exp(-3j)
    np.testing.assert_allclose(got, want, atol=2e-6)
    assert got[2] == 0
    got = np.asarray(js.sph_harm_y(np.array([1, 1]), np.array([1, 0]), 0.5, 1.0, n_max=6))
    np.testing.assert_allclose(got, sp.sph_harm_y(1, np.array([1, 0]), 0.5, 1.0), atol=2e-6)
    # theta outside [0, pi]: Y of the theta with the same cos and |sin| (JAX and SciPy agree)
    got = np.asarray(js.sph_harm_y(np.array([1, 2]), np.array([1, 1]), np.array([-0.5, 4.0]), 1.0))
    np.testing.assert_allclose(got, sp.sph_harm_y(np.array([1, 2]), 1, np.array([-0.5, 4.0]), 1.0), atol=2e-6)


@pytest.mark.parametrize("theta, phi", [
    (np.array([0.0, 1.0], np.float32), np.array([0.0, 1.0], np.float32)),
    (np.array([0, 1, 2]), np.array([1, 2, 3])),
    (np.array([0.5, 1.0], np.float16), np.array([0.1, 1.0], np.float32)),
    (np.array([True, False]), np.array([0.3, 0.2], np.float64)),
])
def test_sph_harm_y_dtypes(theta, phi):
    # JAX: always the default complex dtype (its (-1.0)**|m| factor is a default float)
    n = np.arange(len(theta))
    for x64, want in ((False, np.complex64), (True, np.complex128)):
        with jaxc.enable_x64(x64):
            out = js.sph_harm_y(n, np.zeros_like(n), theta, phi)
            assert out.dtype == want
            np.testing.assert_allclose(np.asarray(out),
                                       sp.sph_harm_y(n, 0, theta.astype(np.float64), phi.astype(np.float64)),
                                       atol=2e-6)


def test_sph_harm_y_vmap_matches_loop():
    rng = np.random.default_rng(2)
    n = rng.integers(0, 7, (5, 3))
    m = rng.integers(-6, 7, (5, 3))
    m = np.clip(m, -n, n)
    theta = rng.uniform(0, np.pi, (5, 3)).astype(np.float32)
    phi = rng.uniform(0, 2 * np.pi, (5, 3)).astype(np.float32)

    def fn(a, b, c, d):
        return js.sph_harm_y(a, b, c, d, n_max=6)
    batched = np.asarray(jaxc.vmap(fn)(n, m, theta, phi))
    looped = np.stack([np.asarray(fn(n[i], m[i], theta[i], phi[i])) for i in range(5)])
    np.testing.assert_allclose(batched, looped, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(batched, sp.sph_harm_y(n, m, theta.astype(np.float64), phi.astype(np.float64)),
                               atol=2e-6)
    # only theta batched
    got = np.asarray(jaxc.vmap(lambda t: fn(n[0], m[0], t, phi[0]))(theta))
    np.testing.assert_allclose(got, sp.sph_harm_y(n[0], m[0], theta.astype(np.float64), phi[0]), atol=2e-6)


def test_sph_harm_y_grads(x64):
    # differentiable in theta and phi: against SciPy's diff_n=1 ([dY/dtheta, dY/dphi]), also at the poles
    n = np.array([1, 1, 2, 3, 5, 7, 4, 1, 2])
    m = np.array([1, 0, -1, 2, -3, 7, 0, -1, 1])
    theta = np.array([0.7, 2.0, 0.3, 1.1, 2.9, 1.6, 0.0, 0.0, np.pi])
    phi = np.array([0.3, 1.0, 5.0, 2.2, 0.1, 3.3, 1.0, 0.4, 2.0])
    _, d = sp.sph_harm_y(n, m, theta, phi, diff_n=1)
    for part in (np.real, np.imag):
        def f(t, p):
            return part(js.sph_harm_y(n, m, t, p)).sum()
        d_theta, d_phi = jaxc.grad(f, argnums=(0, 1))(theta, phi)
        np.testing.assert_allclose(np.asarray(d_theta), part(d[..., 0]), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(np.asarray(d_phi), part(d[..., 1]), rtol=1e-12, atol=1e-14)
    inner = slice(0, 6)

    def g(t, p):
        return js.sph_harm_y(n[inner], m[inner], t, p).real
    check_grads(g, (theta[inner], phi[inner]), order=2, modes=("fwd", "rev"), rtol=1e-6)


def test_sph_harm_y_errors():
    n, m = np.array([0, 1]), np.array([0, 1])
    theta, phi = np.array([0.5, 0.6]), np.array([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="diff_n"):
        js.sph_harm_y(n, m, theta, phi, diff_n=1)
    with pytest.raises(NotImplementedError, match="diff_n"):
        js.sph_harm_y(n, m, theta, phi, diff_n=0)
    with pytest.raises(TypeError):
        js.sph_harm_y(1, 1, 0.5, 1.0)  # n must be sized: len(n)
    with pytest.raises(TypeError):
        js.sph_harm_y(n, m.astype(np.float32), theta, phi)
    with pytest.raises(TypeError):
        js.sph_harm_y(n.astype(np.float32), m, theta, phi)
    with pytest.raises(IndexError):
        js.sph_harm_y(n, m.astype(bool), theta, phi)  # JAX: a boolean index
    with pytest.raises(TypeError):
        js.sph_harm_y(n, m, theta + 0j, phi)
    with pytest.raises(TypeError):
        js.sph_harm_y(n, m, theta, phi.astype(np.float16))  # JAX: lax.complex of float16
    with pytest.raises(TypeError):
        js.sph_harm_y(n, [0, 1], theta, phi)
    with pytest.raises(TypeError):
        js.sph_harm_y(n, m, theta, np.array([1.0, 2.0, 3.0]))  # shapes
    with pytest.raises(ValueError):
        js.sph_harm_y(n, m, np.ones((2, 2)), phi)
    with pytest.raises(IndexError):
        js.sph_harm_y(np.array([-1, -2]), m, theta, phi)  # max(n) < 0
    with pytest.raises(jaxc.errors.ConcretizationTypeError, match="n_max"):
        jaxc.jit(js.sph_harm_y)(n, m, theta, phi)  # n_max = max(n) needs a concrete n
    with pytest.raises(jaxc.errors.ConcretizationTypeError, match="n_max"):
        jaxc.jit(lambda k: js.sph_harm_y(n, m, theta, phi, n_max=k))(3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_sph_harm_y_against_jax(dtype, request):
    jax = pytest.importorskip("jax")
    import jax.scipy.special as jsp
    if dtype == np.float64:
        request.getfixturevalue("x64")
    n, m, theta, phi = _harmonics_grid()
    theta, phi = theta.astype(dtype), phi.astype(dtype)
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", dtype == np.float64)
    try:
        want = np.asarray(jsp.sph_harm_y(n, m, theta, phi))
        clipped = np.asarray(jsp.sph_harm_y(np.array([10, 3, -1]), np.array([2, -3, 1]), 0.5, 1.0, n_max=2))
    finally:
        jax.config.update("jax_enable_x64", previous)
    got = np.asarray(js.sph_harm_y(n, m, theta, phi))
    assert got.dtype == want.dtype
    # JAX's sqrt(1 - cos(theta)**2) loses the values near the poles (Y_1^1(1e-8) = 0): compare away from them
    away = (theta > 1e-3) & (theta < np.pi - 1e-3)
    np.testing.assert_allclose(got[away], want[away], rtol=0, atol=1e-13 if dtype == np.float64 else 4e-6)
    got = np.asarray(js.sph_harm_y(np.array([10, 3, -1]), np.array([2, -3, 1]), 0.5, 1.0, n_max=2))
    np.testing.assert_allclose(got, clipped, atol=1e-13 if dtype == np.float64 else 2e-6)
