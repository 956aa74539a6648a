"""The complex-valued names of `jaxc.scipy.special`: the Faddeeva function
`wofz` and the spherical harmonics `sph_harm_y`.

wofz follows Poppe and Wijers' algorithm (ACM TOMS 680) in the first
quadrant: a power series near 0, Gautschi's truncated Taylor expansion
(its coefficients from the Laplace continued fraction) in the middle, the
continued fraction itself outside; the other quadrants by symmetry,
with SciPy's formula for the lower half-plane. sph_harm_y runs the
three-term recurrence of the normalized associated Legendre functions in
`fori_loop`s, elementwise. Both run eagerly and under jit, vmap and the
derivative transforms (wofz with its closed-form derivative).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from .._autodiff import custom_jvp
from ..numpy._util import asarray, broadcast_shapes, broadcast_to, promote_dtypes_inexact  # first: front end
from ._special_more import _backward, _c, _float, _forward, _where, _wide

__all__ = ["sph_harm_y", "wofz"]

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


# -- wofz -------------------------------------------------------------------------------------

# Poppe & Wijers scale the first quadrant by (6.3, 4.4): rho**2 = (x/6.3)**2 + (y/4.4)**2.
_WOFZ_SERIES_RHO2 = 0.02  # the power series below (680 uses 0.085264; smaller is better in float32)
_WOFZ_SERIES_TERMS = 28  # enough for 680's whole series region
_WOFZ_FRACTION_TERMS = 43  # 680's largest nu (42) + 1 everywhere: more terms only converge further
_WOFZ_ASYMPTOTIC = 1e8  # above, w = i / (sqrt(pi) z) to rounding (the next term is 1 / (2 z**2))


def _wofz_quadrant(x: Any, y: Any) -> tuple[Any, Any]:
    """(Re, Im) of w(x + iy) for finite x, y >= 0."""
    one = _c(x, 1)
    sx, sy = lax.div(x, _c(x, 6.3)), lax.div(y, _c(y, 4.4))
    rho2 = lax.add(lax.mul(sx, sx), lax.mul(sy, sy))
    # power series: w = exp(-z**2) (1 + 2i / sqrt(pi) z sum_k z**(2k) / (k! (2k + 1)))
    qr, qi = lax.mul(lax.sub(x, y), lax.add(x, y)), lax.mul(lax.mul(_c(x, 2), x), y)  # z**2

    def series_step(k, carry):
        sr, si = carry
        kf = _float(k, x)
        return (lax.add(lax.div(lax.sub(lax.mul(sr, qr), lax.mul(si, qi)), kf),
                        lax.div(one, lax.sub(lax.mul(kf, _c(x, 2)), one))),
                lax.div(lax.add(lax.mul(sr, qi), lax.mul(si, qr)), kf))
    sr, si = _backward(_WOFZ_SERIES_TERMS, series_step, (_c(x, 1 / (2 * _WOFZ_SERIES_TERMS + 1)), _c(x, 0)))
    u1 = lax.sub(one, lax.mul(_c(x, _TWO_OVER_SQRT_PI), lax.add(lax.mul(sr, y), lax.mul(si, x))))
    v1 = lax.mul(_c(x, _TWO_OVER_SQRT_PI), lax.sub(lax.mul(sr, x), lax.mul(si, y)))
    e = lax.exp(lax.neg(qr))
    u2, v2 = lax.mul(e, lax.cos(qi)), lax.neg(lax.mul(e, lax.sin(qi)))
    series = (lax.sub(lax.mul(u1, u2), lax.mul(v1, v2)), lax.add(lax.mul(u1, v2), lax.mul(v1, u2)))
    # rho < 1: Gautschi's Taylor expansion about z + ih, kappa + 1 terms; else (h = 0) the continued
    # fraction w = i / sqrt(pi) / (z - (1/2) / (z - 1 / (z - (3/2) / ...))) alone
    g = lax.mul(lax.sub(one, sy), lax.sqrt(lax.max(lax.sub(one, rho2), _c(x, 0))))
    h = lax.mul(_c(x, 1.88), g)
    plain = lax.eq(h, _c(h, 0))
    h2 = _where(plain, one, lax.mul(_c(h, 2), h))
    kappa = _where(plain, _c(x, -1), lax.floor(lax.add(lax.mul(_c(x, 34), g), _c(x, 7.5))))
    lam = _where(plain, _c(x, 0), lax.pow(h2, kappa))

    def fraction_step(k, carry):
        rx, ry, sx, sy, lam = carry  # r: the fraction's tail, s: the Taylor sum
        k1 = _float(k, x)  # n + 1 for n = nu, ..., 0
        tx, ty = lax.add(lax.add(y, h), lax.mul(k1, rx)), lax.sub(x, lax.mul(k1, ry))
        c = lax.div(_c(x, 0.5), lax.add(lax.mul(tx, tx), lax.mul(ty, ty)))
        rx, ry = lax.mul(c, tx), lax.mul(c, ty)
        taylor = lax.le(k1, lax.add(kappa, one))  # n <= kappa
        t = lax.add(lam, sx)
        sx, sy = (_where(taylor, lax.sub(lax.mul(rx, t), lax.mul(ry, sy)), sx),
                  _where(taylor, lax.add(lax.mul(ry, t), lax.mul(rx, sy)), sy))
        return rx, ry, sx, sy, _where(taylor, lax.div(lam, h2), lam)
    zero = _c(x, 0)
    rx, ry, sx, sy, _ = _backward(_WOFZ_FRACTION_TERMS, fraction_step, (zero, zero, zero, zero, lam))
    u = lax.mul(_c(x, _TWO_OVER_SQRT_PI), _where(plain, rx, sx))
    v = lax.mul(_c(x, _TWO_OVER_SQRT_PI), _where(plain, ry, sy))
    u = _where(lax.eq(y, zero), lax.exp(lax.neg(lax.mul(x, x))), u)  # the real axis: Re w = exp(-x**2)
    # |z| huge: i / (sqrt(pi) z) = (y + ix) / (sqrt(pi) |z|**2), scaled against overflow
    big = lax.max(lax.max(x, y), one)
    xb, yb = lax.div(x, big), lax.div(y, big)
    d = lax.add(lax.mul(xb, xb), lax.mul(yb, yb))

    def asymptotic(part):
        return lax.mul(lax.div(lax.div(part, d), big), _c(x, 1 / math.sqrt(math.pi)))
    far = lax.gt(lax.max(x, y), _c(x, _WOFZ_ASYMPTOTIC))
    small = lax.lt(rho2, _c(x, _WOFZ_SERIES_RHO2))
    re = _where(far, asymptotic(yb), _where(small, series[0], u))
    im = _where(far, asymptotic(xb), _where(small, series[1], v))
    return re, im


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """a + b = s + e exactly (Knuth)."""
    s = lax.add(a, b)
    bb = lax.sub(s, a)
    return s, lax.add(lax.sub(a, lax.sub(s, bb)), lax.sub(b, bb))


def _two_product(a: Any, b: Any) -> tuple[Any, Any]:
    """a * b = p + e exactly (Dekker, float32: Veltkamp's split in 12-bit halves)."""
    def halves(v):
        t = lax.mul(v, _c(v, 4097.0))
        hi = lax.sub(t, lax.sub(t, v))
        return hi, lax.sub(v, hi)
    (ah, al), (bh, bl) = halves(a), halves(b)
    p = lax.mul(a, b)
    e = lax.add(lax.add(lax.add(lax.sub(lax.mul(ah, bh), p), lax.mul(ah, bl)), lax.mul(al, bh)), lax.mul(al, bl))
    return p, e


def _exp_minus_z2(x: Any, y: Any) -> tuple[Any, Any, Any, Any]:
    """(a, b, a_lo, b_lo) with exp(-z**2) = exp(a + a_lo) (cos - i sin)(b + b_lo): a = (|y| - |x|)(|y| + |x|)
    and b = 2xy as SciPy (Faddeeva) computes them. In float32 the low parts make a and b exact, as
    SciPy's float64 is for float32 inputs."""
    ax, ay = lax.abs(x), lax.abs(y)
    zero = _c(x, 0)
    if _wide(x):
        return lax.mul(lax.sub(ay, ax), lax.add(ay, ax)), lax.mul(lax.mul(_c(x, 2), x), y), zero, zero
    d, d_lo = _two_sum(ay, lax.neg(ax))
    s, s_lo = _two_sum(ay, ax)
    a, a_lo = _two_product(d, s)
    a_lo = lax.add(a_lo, lax.add(lax.mul(d, s_lo), lax.mul(d_lo, s)))
    b, b_lo = _two_product(x, y)
    # |a_lo| < ulp(a) < 1 wherever exp(a) is finite and nonzero (no 0 * exp(huge))
    return (a, lax.mul(_c(x, 2), b), _where(lax.lt(lax.abs(a_lo), _c(x, 1)), a_lo, zero),
            _where(lax.is_finite(b_lo), lax.mul(_c(x, 2), b_lo), zero))


def _scaled(half: Any, factor: Any) -> Any:
    """half**2 * factor (half = exp(a/2): finite wherever the product is), 0 where `factor` or `half`
    is 0 (no inf * 0 for a huge or infinite z)."""
    zero = _c(factor, 0)
    out = lax.mul(lax.mul(half, factor), half)
    return _where(lax.bitwise_or(lax.eq(factor, zero), lax.eq(half, zero)), zero, out)


@custom_jvp
def _wofz(z: Any) -> Any:
    x, y = lax.real(z), lax.imag(z)
    ax, ay = lax.abs(x), lax.abs(y)
    infinite = lax.bitwise_or(lax.eq(ax, _c(x, np.inf)), lax.eq(ay, _c(y, np.inf)))
    u, v = _wofz_quadrant(_where(infinite, _c(x, 0), ax), _where(infinite, _c(y, 0), ay))
    u, v = _where(infinite, _c(x, 0), u), _where(infinite, _c(x, 0), v)  # w -> 0 as |z| -> inf, y >= 0
    v = _where(lax.lt(x, _c(x, 0)), lax.neg(v), v)  # w(-x + iy) = conj(w(x + iy)): now w(x + i|y|)
    # y < 0: w(z) = 2 exp(-z**2) - w(-z), w(-z) = conj(w(x + i|y|))
    a, b, a_lo, b_lo = _exp_minus_z2(x, y)
    on_axis = lax.eq(x, _c(x, 0))  # phase 0 also for y = -inf
    b, b_lo = _where(on_axis, _c(x, 0), b), _where(on_axis, _c(x, 0), b_lo)
    half = lax.mul(lax.exp(lax.mul(a, _c(x, 0.5))), lax.exp(lax.mul(a_lo, _c(x, 0.5))))  # exp(a / 2)
    cos_lo, sin_lo = lax.cos(b_lo), lax.sin(b_lo)
    two = _c(x, 2)
    cos = lax.mul(two, lax.sub(lax.mul(lax.cos(b), cos_lo), lax.mul(lax.sin(b), sin_lo)))
    sin = lax.mul(two, lax.add(lax.mul(lax.sin(b), cos_lo), lax.mul(lax.cos(b), sin_lo)))
    lower = lax.lt(y, _c(y, 0))
    u = _where(lower, lax.sub(_scaled(half, cos), u), u)
    v = _where(lower, lax.sub(v, _scaled(half, sin)), v)
    nan = lax.bitwise_or(lax.ne(x, x), lax.ne(y, y))
    return lax.complex(_where(nan, _c(x, np.nan), u), _where(nan, _c(x, np.nan), v))


@_wofz.defjvp
def _wofz_jvp(primals, tangents):
    # w'(z) = -2 z w(z) + 2i / sqrt(pi) (w is entire); w from _wofz itself, so that higher derivatives use
    # this rule again
    (z,), (z_dot,) = primals, tangents
    w = _wofz(z)
    slope = lax.add(lax.mul(lax.mul(lax.full_like(z, -2), z), w), lax.full_like(z, 1j * _TWO_OVER_SQRT_PI))
    return w, lax.mul(z_dot, slope)


def wofz(z: Any) -> Any:
    """The Faddeeva function w(z) = exp(-z**2) erfc(-iz) of a real or complex
    `z`, in the complex dtype of JAX's inexact promotion (complex128 from
    float64, int64 and, with x64, Python scalars; else complex64; never
    weak): Poppe and Wijers' algorithm (power series, Gautschi's Taylor
    expansion, the Laplace continued fraction; ACM TOMS 680) in the upper
    half-plane, 2 exp(-z**2) - w(-z) below (inf where that overflows, part
    by part as SciPy); w -> 0 as z -> infinity in the closed upper
    half-plane (JAX: NaN), NaN in, NaN out. Within 5e-14 (complex128) and
    1e-6 (complex64; 4e-6 below the real axis where 2 exp(-z**2) and w(-z)
    nearly cancel) of SciPy relative to |w|; near the real axis far out,
    where Re w ~ exp(-x**2) is tiny beside Im w, the real part has only that
    absolute accuracy."""
    z, = promote_dtypes_inexact("wofz", z)
    if not dtypes.is_complex(z.dtype):
        z = lax.convert_element_type(z, dtypes.complex_dtype(z.dtype))
    return _wofz(lax.convert_element_type(z, z.dtype, False))


# -- sph_harm_y ----------------------------------------------------------------------------------

def _concrete_int(value: Any, what: str) -> int:
    if isinstance(value, core.Tracer):
        value = core.concrete(value, what)
    return int(np.max(np.asarray(value)))


def _legendre(n: Any, am: Any, cos: Any, sin: Any, n_max: int) -> Any:
    """The normalized associated Legendre function sqrt((2n+1)/(4 pi) (n-m)!/(n+m)!) P_n^m(cos)
    with the Condon-Shortley phase, for 0 <= n, m <= n_max (0 where m > n): P_m^m from
    P_0^0 = 1/sqrt(4 pi) by factors -sqrt(1 + 1/(2k)) sin, then upwards in n,
    P_l = a_l cos P_{l-1} - b_l P_{l-2}, a_l = sqrt((4l**2 - 1) / (l**2 - m**2)),
    b_l = sqrt((2l+1) ((l-1)**2 - m**2) / ((2l-3) (l**2 - m**2)))."""
    one, zero = _c(cos, 1), _c(cos, 0)

    def diagonal(k, p):
        kf = _float(k, p)
        factor = lax.mul(lax.neg(lax.sqrt(lax.add(one, lax.div(_c(p, 0.5), kf)))), sin)
        return _where(lax.le(kf, am), lax.mul(p, factor), p)
    p_mm = _forward(n_max, diagonal, _c(cos, 1 / math.sqrt(4 * math.pi)))

    def upward(l, carry):
        p1, p2 = carry  # P_{l-1}, P_{l-2}
        lf = _float(l, cos)
        active = lax.bitwise_and(lax.gt(lf, am), lax.le(lf, n))
        d = _where(active, lax.sub(lax.mul(lf, lf), lax.mul(am, am)), one)  # no 0/0 where inactive
        a = lax.sqrt(lax.div(lax.sub(lax.mul(_c(d, 4), lax.mul(lf, lf)), one), d))
        lm1 = lax.sub(lf, one)
        b2 = lax.div(lax.mul(lax.add(lax.mul(_c(d, 2), lf), one), lax.sub(lax.mul(lm1, lm1), lax.mul(am, am))),
                     lax.mul(lax.sub(lax.mul(_c(d, 2), lf), _c(d, 3)), d))
        positive = lax.bitwise_and(active, lax.gt(b2, zero))  # b = 0 at l = m + 1; no sqrt'(0) * 0
        b = _where(positive, lax.sqrt(_where(positive, b2, one)), zero)
        p = lax.sub(lax.mul(lax.mul(a, cos), p1), lax.mul(b, p2))
        return _where(active, p, p1), _where(active, p1, p2)
    p, _ = _forward(n_max, upward, (p_mm, zero))
    return _where(lax.gt(am, n), zero, p)


def sph_harm_y(n: Any, m: Any, theta: Any, phi: Any, diff_n: Any = None, n_max: Any = None) -> Any:
    """The spherical harmonics Y_n^m(theta, phi) = sqrt((2n+1)/(4 pi) (n-m)!/(n+m)!)
    P_n^m(cos theta) exp(i m phi) with the Condon-Shortley phase (SciPy's
    `sph_harm_y`): degree `n` (a 1-D integer array, as in JAX), order `m`,
    `theta` the polar angle in [0, pi] (a scalar applies to every entry),
    `phi` the azimuth; Y_n^-m = (-1)**m conj(Y_n^m). As JAX: `n_max` (static;
    max(n) when omitted, so `n` must then be concrete) clips n and |m| to
    n_max, 0 where |m| > n, `diff_n` is not supported, the result is the
    default complex dtype. Computed in the default float dtype with sin(theta)
    itself (JAX uses sqrt(1 - cos(theta)**2), which loses the small values
    near the poles), differentiable in theta and phi."""
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    n = asarray(n, fn="sph_harm_y", lists=True)  # JAX takes a list of degrees (not of the others)
    m, theta, phi = (asarray(a, fn="sph_harm_y") for a in (m, theta, phi))
    for name, a in (("n", n), ("m", m)):
        if a.dtype == np.bool_:  # JAX indexes with n and m: a boolean mask
            raise IndexError(f"sph_harm_y: {name} must be an integer array, got bool")
        if not dtypes.is_int(a.dtype):
            raise TypeError(f"sph_harm_y: {name} must be an integer array, got {a.dtype.name}")
    for name, a in (("theta", theta), ("phi", phi)):
        if dtypes.is_complex(a.dtype):
            raise TypeError(f"sph_harm_y: {name} must be real, got {a.dtype.name}")
    if dtypes.is_float(phi.dtype) and phi.dtype.itemsize < 4:  # JAX: lax.complex of a 16-bit float
        raise TypeError(f"sph_harm_y: phi of dtype {phi.dtype.name} is not supported (lax.complex "
                        "requires float32 or float64)")
    if n.ndim == 0:
        raise TypeError("sph_harm_y: n must be an array of degrees (len() of unsized object)")
    if theta.ndim == 0:
        theta = lax.reshape(theta, (1,))
    if theta.ndim != 1:
        raise ValueError(f"sph_harm_y: theta must be a scalar or 1-D, got shape {theta.shape}")
    what = ("the `n_max` argument of `jnp.scipy.special.sph_harm` must be statically specified to use "
            "`sph_harm` within JAX transformations")
    n_max = _concrete_int(n if n_max is None else n_max, what)
    if n_max < 0:
        raise IndexError(f"sph_harm_y: n_max = {n_max}: the degrees must be non-negative")
    rows = n.shape[0]
    if theta.shape[0] != rows:  # JAX gathers theta[i] for entry i, the index clipped to theta's length
        theta = theta[np.minimum(np.arange(rows), theta.shape[0] - 1)]
    dtype = dtypes.default_float()
    n, m, theta, phi = (lax.convert_element_type(a, dtype) for a in (n, m, theta, phi))
    shape = broadcast_shapes("sph_harm_y", n.shape, m.shape, theta.shape, phi.shape, operands=True)
    n, m, theta, phi = (broadcast_to(a, shape, "sph_harm_y") for a in (n, m, theta, phi))
    top = _c(n, n_max)
    n = _where(lax.lt(n, _c(n, 0)), lax.add(n, _c(n, n_max + 1)), n)  # JAX's indexing: n < 0 from the end
    sin = lax.sin(theta)
    p = _legendre(lax.clamp(_c(n, 0), n, top), lax.min(lax.abs(m), top), lax.cos(theta),
                  _where(lax.lt(sin, _c(sin, 0)), lax.neg(sin), sin), n_max)
    odd = lax.ne(lax.rem(m, _c(m, 2)), _c(m, 0))
    p = _where(lax.bitwise_and(lax.lt(m, _c(m, 0)), odd), lax.neg(p), p)  # (-1)**m for m < 0
    angle = lax.mul(m, phi)
    return lax.complex(lax.mul(p, lax.cos(angle)), lax.mul(p, lax.sin(angle)))
