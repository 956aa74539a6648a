"""More of `jaxc.scipy.special`: Bernoulli numbers, beta, comb, the
exponential and trigonometric integrals, the Fresnel integrals, Dawson's
function, erfcx, spence, Owen's T, the incomplete beta function, Bessel
functions J_n and the confluent and Gauss hypergeometric functions.

Each is a program of lax ops (series, continued fractions evaluated with a
fixed number of terms in `lax.fori_loop`, asymptotic expansions, selects
between them), so it runs eagerly and under jit, vmap and the derivative
transforms. float16 and bfloat16 are computed in float32. Where the
derivative has a closed form (erfcx, dawsn, exp1, expi, expn, sici,
fresnel, owens_t) it is a `custom_jvp`; the others are differentiated
through their loops. Regions of lower accuracy are noted per function and
in docs/frontend.md.
"""
from __future__ import annotations

import functools
import math
import operator
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .. import dtypes, lax
from .._autodiff import custom_jvp
from ..numpy._util import asarray, promote_args_inexact  # first: jaxc.numpy sets up the front end
from . import _special_base as _sp
from ._special_base import _const as _c, _where

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "comb", "dawsn", "erfcx", "exp1", "expi", "expn",
           "fresnel", "hyp1f1", "hyp2f1", "owens_t", "sici", "spence"]

_EULER_GAMMA = 0.57721566490153286061
# The positive zero of Ei (split into hi + lo per dtype by _split_constant).
_EI_ROOT = Fraction("0.3725074107813666344619918665801191335357")


# -- helpers ---------------------------------------------------------------------------

def _prepare(name: str, *args: Any) -> tuple[list[Any], Callable[[Any], Any]]:
    """The arguments promoted to one inexact dtype and broadcast (16-bit
    floats widened to float32) and a function that casts results back."""
    promoted = promote_args_inexact(name, *args)
    dtype, weak = promoted[0].dtype, promoted[0].weak_type
    if np.issubdtype(dtype, np.complexfloating):
        raise ValueError(f"{name}: complex inputs are not supported.")
    if dtype.itemsize < 4:
        promoted = [lax.convert_element_type(a, np.float32) for a in promoted]

    def finish(out: Any) -> Any:
        return lax.convert_element_type(out, dtype, weak)
    return promoted, finish


def _wide(x: Any) -> bool:
    return x.dtype == np.float64


def _float(i: Any, like: Any) -> Any:
    """A loop counter as a float array of `like`'s shape."""
    return lax.full_like(like, 0) + lax.convert_element_type(i, like.dtype)


def _split_constant(value: Fraction, dtype: np.dtype) -> tuple[float, float]:
    """`value` as hi + lo, hi the nearest `dtype` number."""
    hi = float(np.asarray(float(value), dtype))
    return hi, float(value - Fraction(hi))


def _exp_square(x: Any, sign: float) -> Any:
    """exp(sign * x**2) with x**2 split as hi**2 + (x - hi)(x + hi), hi**2
    exact for |x| < 16 (float32) / 64 (float64): past the point where
    exp(-x**2) underflows."""
    bits = 20 if _wide(x) else 8
    x = lax.clamp(_c(x, -64.0), x, _c(x, 64.0))  # exp(+-4096) is 0 or inf already
    scale = _c(x, 2.0 ** bits)
    hi = lax.div(lax.floor(lax.mul(x, scale)), scale)
    rest = lax.mul(lax.sub(x, hi), lax.add(x, hi))
    return lax.mul(lax.exp(lax.mul(_c(x, sign), lax.mul(hi, hi))), lax.exp(lax.mul(_c(x, sign), rest)))


def _keep_derivative(condition: Any, value: Any, general: Any, out: Any) -> Any:
    """`value` where `condition` (else `out`), differentiated as `general`
    (the general formula, valid there too) where that is finite: a special
    case's closed form must not cut the derivative in the parameters."""
    blended = lax.add(general, lax.stop_gradient(lax.sub(value, general)))
    return _where(condition, _where(lax.is_finite(general), blended, value), out)


def _backward(n_terms: int, step: Callable[[Any, Any], Any], init: Any) -> Any:
    """Apply step(k, carry) for k = n_terms, ..., 1 (k a float counter):
    a continued fraction or series evaluated from its tail."""
    def body(i: Any, carry: Any) -> Any:
        return step(n_terms - i, carry)
    return lax.fori_loop(0, n_terms, body, init)


def _forward(n_terms: int, step: Callable[[Any, Any], Any], init: Any) -> Any:
    """Apply step(k, carry) for k = 1, ..., n_terms."""
    return lax.fori_loop(1, n_terms + 1, step, init)


# -- Bernoulli numbers, beta, comb ------------------------------------------------------

_BERNOULLI_EXACT = 300  # beyond (from about 260 on), |B_n| overflows float64


@functools.lru_cache(maxsize=None)
def _bernoulli_fractions(n: int) -> tuple[Fraction, ...]:
    """B_0 .. B_n exactly (B_1 = -1/2), from sum_{k<=m} C(m+1, k) B_k = 0;
    the odd ones past B_1 are zero."""
    values = [Fraction(1), Fraction(-1, 2)][:n + 1]
    for m in range(2, n + 1):
        if m % 2:
            values.append(Fraction(0))
            continue
        total = Fraction(1) - Fraction(m + 1, 2)  # k = 0 and k = 1
        binom = m + 1  # C(m+1, 1)
        for k in range(2, m):
            binom = binom * (m + 2 - k) // k
            if k % 2 == 0:
                total += binom * values[k]
        values.append(-total / (m + 1))
    return tuple(values)


def _to_float(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def bernoulli(n: int) -> Any:
    """The Bernoulli numbers B_0, ..., B_n (B_1 = -1/2) as a float array of
    length n + 1 (`n` a concrete non-negative int), exact to rounding."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"bernoulli: n must be a concrete Python integer, got {n!r}") from None
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    exact = _bernoulli_fractions(min(n, _BERNOULLI_EXACT))
    values = [_to_float(b) for b in exact]
    for m in range(len(values), n + 1):  # float64 overflow: sign (-1)**(m/2 + 1) for even m
        values.append(0.0 if m % 2 else (math.inf if m % 4 == 2 else -math.inf))
    dtype = dtypes.canonicalize(np.float64)
    with np.errstate(over="ignore"):
        return asarray(np.asarray(values, dtype), fn="bernoulli")


_STIRLING_TERMS = 9  # for x >= 8: the next term is below 1e-16 / x


def _stirling_rest(x: Any) -> Any:
    """lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2) = sum_k B_2k / (2k (2k-1) x**(2k-1)), x >= 8."""
    b = _bernoulli_fractions(2 * _STIRLING_TERMS)
    inv = lax.div(_c(x, 1), x)
    inv2 = lax.mul(inv, inv)
    acc = _c(x, 0)
    for k in range(_STIRLING_TERMS, 0, -1):
        acc = lax.add(lax.mul(acc, inv2), _c(x, float(b[2 * k] / (2 * k * (2 * k - 1)))))
    return lax.mul(acc, inv)


def _log_beta(a: Any, b: Any) -> Any:
    """log|B(a, b)|: lgamma(a) + lgamma(b) - lgamma(a + b) while max(a, b) < 8
    (or an argument is not positive), else Stirling's series for the large
    arguments with the log terms combined (no cancellation of large lgammas)."""
    lo, hi = lax.min(a, b), lax.max(a, b)
    eight, one, half = _c(a, 8), _c(a, 1), _c(a, 0.5)
    direct = lax.sub(lax.add(lax.lgamma(lo), lax.lgamma(hi)), lax.lgamma(lax.add(lo, hi)))
    big = lax.bitwise_and(lax.ge(hi, eight), lax.gt(lo, _c(a, 0)))
    sh = _where(big, hi, eight)
    sl = _where(big, lo, one)
    both = lax.ge(sl, eight)
    sl_big = _where(both, sl, eight)
    total = lax.add(sl, sh)
    log1p_lh = lax.log1p(lax.div(sl, sh))
    rest_sum = lax.sub(_stirling_rest(sh), _stirling_rest(total))
    # lgamma(hi) - lgamma(lo + hi) = -(hi - 1/2) log1p(lo/hi) - lo log(lo + hi) + lo + rest(hi) - rest(lo + hi)
    ratio = lax.add(lax.sub(lax.neg(lax.mul(lax.sub(sh, half), log1p_lh)), lax.mul(sl, lax.log(total))),
                    lax.add(sl, rest_sum))
    one_large = lax.add(lax.lgamma(sl), ratio)
    # both large: log(2 pi)/2 - log(lo + hi)/2 - (lo - 1/2) log1p(hi/lo) - (hi - 1/2) log1p(lo/hi) + rests
    two_large = lax.sub(lax.sub(_c(a, 0.5 * math.log(2 * math.pi)), lax.mul(half, lax.log(total))),
                        lax.add(lax.mul(lax.sub(sl_big, half), lax.log1p(lax.div(sh, sl_big))),
                                lax.mul(lax.sub(sh, half), log1p_lh)))
    two_large = lax.add(two_large, lax.add(_stirling_rest(sl_big), rest_sum))
    return _where(big, _where(both, two_large, one_large), direct)


def beta(a: Any, b: Any) -> Any:
    """The beta function Gamma(a) Gamma(b) / Gamma(a + b), as
    sign * exp(log|B(a, b)|): NaN where a, b or a + b is a pole (a
    non-positive integer), as in JAX."""
    (a, b), finish = _prepare("beta", a, b)
    sign = lax.mul(lax.mul(_sp.gammasgn(a), _sp.gammasgn(b)), _sp.gammasgn(lax.add(a, b)))
    return finish(lax.mul(sign, lax.exp(_log_beta(a, b))))


def _comb(N: Any, k: Any) -> Any:
    one = _c(N, 1)
    valid = lax.bitwise_and(lax.bitwise_and(lax.ge(k, _c(k, 0)), lax.le(k, N)), lax.ge(N, _c(N, 0)))
    safe_N = _where(valid, N, one)
    safe_k = _where(valid, k, one)
    log_value = lax.neg(lax.add(lax.log1p(safe_N), _log_beta(lax.add(lax.sub(safe_N, safe_k), one),
                                                            lax.add(safe_k, one))))
    return _where(valid, lax.exp(log_value), _c(N, 0))


def comb(N: Any, k: Any, *, repetition: bool = False) -> Any:
    """The number of combinations C(N, k) as a float, 1 / ((N + 1) B(N - k
    + 1, k + 1)); 0 unless 0 <= k <= N. With `repetition`, C(N + k - 1, k)
    (1 where k == 0 <= N), as in JAX."""
    (N, k), finish = _prepare("comb", N, k)
    if not repetition:
        return finish(_comb(N, k))
    first = lax.bitwise_and(lax.eq(k, _c(k, 0)), lax.ge(N, _c(N, 0)))
    return finish(_where(first, _c(N, 1), _comb(lax.sub(lax.add(N, k), _c(N, 1)), k)))


# -- erfcx, dawsn ------------------------------------------------------------------------

_ERFCX_FRACTION_TERMS = 60  # Laplace's continued fraction, float64, x >= 2


def _erfcx_positive(ax: Any) -> Any:
    """erfcx(|x|) for |x| >= 1 (float32) / 2 (float64)."""
    if _wide(ax):
        def step(k, t):
            return lax.add(ax, lax.div(lax.mul(_float(k, ax), _c(ax, 0.5)), t))
        t = _backward(_ERFCX_FRACTION_TERMS, step, ax)
        return lax.div(_c(ax, 1 / math.sqrt(math.pi)), t)
    q = lax.div(_c(ax, 1), ax)
    y = lax.mul(q, q)
    p = _where(lax.lt(ax, _c(ax, 2.0)), _sp._polynomial(y, _sp._ERFC_NEAR), _sp._polynomial(y, _sp._ERFC_FAR))
    return lax.mul(q, p)


@custom_jvp
def _erfcx(x: Any) -> Any:
    threshold = _c(x, 2.0 if _wide(x) else 1.0)
    tail = _erfcx_positive(lax.max(x, threshold))
    near = lax.max(x, _c(x, -30.0))  # exp(900) overflows: +inf below
    direct = lax.mul(_exp_square(near, 1.0), _sp.erfc(near))
    out = _where(lax.ge(x, threshold), tail, direct)
    return _where(lax.ne(x, x), x, out)


_erfcx.defjvps(lambda g, ans, x: lax.mul(g, lax.sub(lax.mul(lax.mul(_c(x, 2), x), ans),
                                                    _c(x, 2 / math.sqrt(math.pi)))))


def erfcx(x: Any) -> Any:
    """The scaled complementary error function exp(x**2) erfc(x): the tail
    formula of erfc without its exp(-x**2) for x >= 1 (float32; a continued
    fraction from 2 in float64), exp(x**2) erfc(x) below (+inf for x below
    about -9.4 / -26.6)."""
    (x,), finish = _prepare("erfcx", x)
    return finish(_erfcx(x))


def _dawsn_params(x: Any) -> tuple[float, int, int]:
    # (series/asymptotic split, series terms, asymptotic terms)
    return (6.25, 110, 40) if _wide(x) else (4.25, 55, 18)


@custom_jvp
def _dawsn(x: Any) -> Any:
    split, n_series, n_asymptotic = _dawsn_params(x)
    ax = lax.abs(x)
    # exp(-x**2) sum_n x**(2n+1) / (n! (2n+1)): positive terms, no cancellation
    near = lax.min(ax, _c(ax, split))
    x2 = lax.mul(near, near)

    def series_step(k, carry):
        term, total = carry
        kf = _float(k, near)
        term = lax.div(lax.mul(term, x2), kf)
        return term, lax.add(total, lax.div(term, lax.add(lax.mul(kf, _c(kf, 2)), _c(kf, 1))))
    _, total = _forward(n_series, series_step, (near, near))
    series = lax.mul(_exp_square(near, -1.0), total)
    # 1/(2x) sum_n (2n-1)!! / (2x**2)**n: asymptotic, its smallest term ~ exp(-x**2)
    far = lax.max(ax, _c(ax, split))
    half_inv_x2 = lax.div(_c(far, 0.5), lax.mul(far, far))
    term = lax.div(_c(far, 0.5), far)
    total = term
    for n in range(1, n_asymptotic):
        term = lax.mul(term, lax.mul(half_inv_x2, _c(far, 2 * n - 1)))
        total = lax.add(total, term)
    out = _where(lax.lt(ax, _c(ax, split)), series, total)
    out = lax.mul(lax.sign(x), out)  # odd; sign(+-0) keeps the zero's sign
    return _where(lax.ne(x, x), x, out)


_dawsn.defjvps(lambda g, ans, x: lax.mul(g, lax.sub(_c(x, 1), lax.mul(lax.mul(_c(x, 2), x), ans))))


def dawsn(x: Any) -> Any:
    """Dawson's integral exp(-x**2) integral_0^x exp(t**2) dt: a series of
    positive terms times exp(-x**2) for |x| < 4.25 (6.25 in float64), the
    asymptotic series above."""
    (x,), finish = _prepare("dawsn", x)
    return finish(_dawsn(x))


# -- exponential integrals ---------------------------------------------------------------

_EXPN_SERIES_TERMS = 26  # x <= 1
_EXPN_FRACTION_TERMS = 100  # x > 1: converged to rounding at x = 1, n = 1


def _expn_fraction(n: Any, x: Any) -> Any:
    """E_n(x) = exp(-x) / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...)))."""
    def step(k, t):
        kf = _float(k, x)
        b = lax.add(lax.add(x, n), lax.mul(_c(x, 2), lax.sub(kf, _c(x, 1))))
        return lax.sub(b, lax.div(lax.mul(kf, lax.add(n, lax.sub(kf, _c(x, 1)))), t))
    t = _backward(_EXPN_FRACTION_TERMS, step,
                  lax.add(lax.add(x, n), _c(x, 2.0 * _EXPN_FRACTION_TERMS)))
    return lax.div(lax.exp(lax.neg(x)), t)


def _expn_series(n: Any, x: Any) -> Any:
    """E_n(x), n > 0, 0 < x <= 1: c(n, x) - sum_{k != n-1} (-x)**k / ((k - n + 1) k!),
    c = (-x)**(n-1) / (n-1)! (psi(n) - log x) for integer n, else Gamma(1 - n) x**(n-1)."""
    one = _c(x, 1)
    nm1 = lax.sub(n, one)

    def step(k, carry):
        term, total = carry
        kf = _float(k, x)
        term = lax.div(lax.mul(term, lax.neg(x)), kf)
        denominator = lax.sub(kf, nm1)
        skip = lax.eq(denominator, _c(x, 0))
        part = lax.div(term, _where(skip, one, denominator))
        return term, lax.add(total, _where(skip, _c(x, 0), part))
    first = _where(lax.eq(nm1, _c(x, 0)), _c(x, 0), lax.div(_c(x, -1), nm1))  # k = 0
    _, total = _forward(_EXPN_SERIES_TERMS, step, (one, first))
    odd = lax.ne(lax.rem(nm1, _c(x, 2)), _c(x, 0))
    power = lax.exp(lax.sub(lax.mul(nm1, lax.log(x)), lax.lgamma(n)))
    power = _where(odd, lax.neg(power), power)
    integer = lax.eq(lax.floor(n), n)
    safe_n = _where(integer, _c(x, 0.5), n)
    fractional = lax.mul(_sp.gamma(lax.sub(one, safe_n)), lax.exp(lax.mul(lax.sub(safe_n, one), lax.log(x))))
    leading = _where(integer, lax.mul(power, lax.sub(lax.digamma(n), lax.log(x))), fractional)
    return lax.sub(leading, total)


def _expn_impl(n: Any, x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    positive = lax.gt(x, zero)
    safe_x = _where(positive, x, one)
    safe_n = _where(lax.gt(n, zero), n, one)
    small = lax.le(safe_x, one)
    series = _expn_series(safe_n, lax.min(safe_x, one))
    fraction = _expn_fraction(safe_n, lax.max(safe_x, one))
    out = _where(small, series, fraction)
    out = _where(lax.eq(n, zero), lax.div(lax.exp(lax.neg(safe_x)), safe_x), out)
    at_zero = _where(lax.le(n, one), _c(x, np.inf), lax.div(one, lax.sub(n, one)))
    out = _where(lax.eq(x, zero), at_zero, out)
    out = _where(lax.eq(x, _c(x, np.inf)), zero, out)
    invalid = lax.bitwise_or(lax.bitwise_or(lax.lt(n, zero), lax.lt(x, zero)),
                             lax.bitwise_or(lax.ne(x, x), lax.ne(n, n)))
    return _where(invalid, _c(x, np.nan), out)


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _expn(n: Any, x: Any) -> Any:
    return _expn_impl(n, x)


@_expn.defjvp
def _expn_jvp(n, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _expn(n, x), lax.mul(lax.neg(x_dot), _expn(lax.sub(n, _c(n, 1)), x))


def expn(n: Any, x: Any) -> Any:
    """The generalized exponential integral E_n(x) = integral_1^inf
    exp(-x t) / t**n dt for n >= 0 (real orders too, as JAX; SciPy truncates
    n) and x >= 0: a series for x <= 1, a continued fraction (100 terms)
    above; NaN for n < 0 or x < 0. Non-integer n within about 1e-3 of an
    integer lose digits for x <= 1 (the two parts of the series cancel).
    Differentiable in x (d/dx E_n = -E_{n-1})."""
    (n, x), finish = _prepare("expn", n, x)
    return finish(_expn(n, x))


@custom_jvp
def _exp1(x: Any) -> Any:
    return _expn_impl(_c(x, 1), x)


_exp1.defjvps(lambda g, ans, x: lax.mul(g, lax.neg(lax.div(lax.exp(lax.neg(x)), x))))


def exp1(x: Any) -> Any:
    """The exponential integral E1(x) = integral_x^inf exp(-t) / t dt (x >= 0;
    NaN below): expn(1, x)."""
    (x,), finish = _prepare("exp1", x)
    return finish(_exp1(x))


_EI_SERIES_TERMS = 100  # gamma + log x + sum x**k / (k k!) for 2 < x <= 40
_EI_ROOT_TERMS = 30  # the form around the zero, 0 < x <= 2
_EI_ASYMPTOTIC_SPLIT = 40.0
_EI_ASYMPTOTIC_TERMS = 40  # exp(x) / x sum k! / x**k: smallest term ~ exp(-x)


def _ei_positive(x: Any) -> Any:
    """Ei(x) for x > 0."""
    one = _c(x, 1)
    # near the zero x0 of Ei: Ei(x) = log(x / x0) + sum_k (x**k - x0**k) / (k k!),
    # with (x**k - x0**k) = (x - x0) h_k, h_k = x h_{k-1} + x0**(k-1)
    root_hi, root_lo = _split_constant(_EI_ROOT, x.dtype)
    near = lax.min(x, _c(x, 2.0))
    d = lax.sub(lax.sub(near, _c(x, root_hi)), _c(x, root_lo))
    root = _c(x, float(_EI_ROOT))

    def root_step(k, carry):
        h, root_power, fact, total = carry  # h_k, x0**k, k!
        kf = _float(k, x)
        fact = lax.mul(fact, kf)
        total = lax.add(total, lax.div(h, lax.mul(kf, fact)))
        return lax.add(lax.mul(near, h), root_power), lax.mul(root_power, root), fact, total
    _, _, _, total = _forward(_EI_ROOT_TERMS, root_step, (one, root, one, _c(x, 0)))
    log_ratio = _where(lax.lt(lax.abs(d), _c(x, 0.5 * float(_EI_ROOT))), lax.log1p(lax.div(d, root)),
                       lax.sub(lax.log(near), _c(x, math.log(float(_EI_ROOT)))))
    around_root = lax.add(log_ratio, lax.mul(d, total))
    # the plain series (all terms positive)
    mid = lax.min(lax.max(x, _c(x, 2.0)), _c(x, _EI_ASYMPTOTIC_SPLIT))

    def series_step(k, carry):
        term, total = carry
        kf = _float(k, x)
        term = lax.div(lax.mul(term, mid), kf)
        return term, lax.add(total, lax.div(term, kf))
    _, total = _forward(_EI_SERIES_TERMS, series_step, (one, _c(x, 0)))
    series = lax.add(lax.add(_c(x, _EULER_GAMMA), lax.log(mid)), total)
    # the asymptotic series
    far = lax.max(x, _c(x, _EI_ASYMPTOTIC_SPLIT))
    inv = lax.div(one, far)
    term, total = one, one
    for k in range(1, _EI_ASYMPTOTIC_TERMS):
        term = lax.mul(term, lax.mul(inv, _c(x, k)))
        total = lax.add(total, term)
    # exp(x) / x overflows before exp(x) * total / x would: split the exp
    half = lax.exp(lax.mul(_c(x, 0.5), far))
    asymptotic = lax.mul(lax.mul(half, lax.div(total, far)), half)
    out = _where(lax.le(x, _c(x, 2.0)), around_root, series)
    return _where(lax.gt(x, _c(x, _EI_ASYMPTOTIC_SPLIT)), asymptotic, out)


@custom_jvp
def _expi(x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    positive = _ei_positive(_where(lax.gt(x, zero), x, one))
    negative = lax.neg(_expn_impl(one, lax.neg(_where(lax.lt(x, zero), x, lax.neg(one)))))
    out = _where(lax.gt(x, zero), positive, negative)
    out = _where(lax.eq(x, zero), _c(x, -np.inf), out)
    out = _where(lax.eq(x, _c(x, np.inf)), x, out)
    out = _where(lax.eq(x, _c(x, -np.inf)), _c(x, -0.0), out)
    return _where(lax.ne(x, x), x, out)


_expi.defjvps(lambda g, ans, x: lax.mul(g, lax.div(lax.exp(x), x)))


def expi(x: Any) -> Any:
    """The exponential integral Ei(x) = -PV integral_{-x}^inf exp(-t) / t dt:
    a series expanded around its zero 0.3725... for 0 < x <= 2 (relative
    accuracy there too), the power series up to 40, the asymptotic series
    above; -E1(-x) for x < 0."""
    (x,), finish = _prepare("expi", x)
    return finish(_expi(x))


# -- sine and cosine integrals, Fresnel integrals ---------------------------------------

_SICI_SPLIT = 4.0
_SICI_SERIES_TERMS = 22
_SICI_FRACTION_TERMS = 60  # E1(i x) for x >= 4: converged to rounding


def _complex_div(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    """(ar + i ai) / (br + i bi), scaled by the larger part of the divisor."""
    big = lax.ge(lax.abs(br), lax.abs(bi))
    r = _where(big, lax.div(bi, br), lax.div(br, bi))
    den = _where(big, lax.add(br, lax.mul(bi, r)), lax.add(bi, lax.mul(br, r)))
    real = _where(big, lax.add(ar, lax.mul(ai, r)), lax.add(lax.mul(ar, r), ai))
    imag = _where(big, lax.sub(ai, lax.mul(ar, r)), lax.sub(lax.mul(ai, r), ar))
    return lax.div(real, den), lax.div(imag, den)


def _sici_impl(x: Any) -> tuple[Any, Any]:
    ax = lax.abs(x)
    one = _c(x, 1)
    # series: Si = sum (-1)**k x**(2k+1) / ((2k+1) (2k+1)!), Ci = gamma + log x + sum_{k>=1}
    # (-1)**k x**(2k) / (2k (2k)!)
    near = lax.min(ax, _c(x, _SICI_SPLIT))

    def series_step(k, carry):
        odd, si, ci = carry  # odd = (-1)**(k-1) x**(2k-1) / (2k-1)!
        kf = lax.mul(_float(k, x), _c(x, 2))
        even = lax.div(lax.mul(odd, lax.neg(near)), kf)
        odd = lax.div(lax.mul(even, near), lax.add(kf, one))
        return odd, lax.add(si, lax.div(odd, lax.add(kf, one))), lax.add(ci, lax.div(even, kf))
    _, si_series, ci_sum = _forward(_SICI_SERIES_TERMS, series_step, (near, near, _c(x, 0)))
    safe_near = _where(lax.gt(near, _c(x, 0)), near, one)
    ci_series = lax.add(lax.add(_c(x, _EULER_GAMMA), lax.log(safe_near)), ci_sum)
    # large x: E1(i x) = exp(-i x) / (i x + 1 - 1 / (i x + 3 - 4 / (i x + 5 - ...))) = -Ci + i (Si - pi/2)
    far = lax.max(ax, _c(x, _SICI_SPLIT))

    def fraction_step(k, carry):
        tr, ti = carry
        kf = _float(k, x)
        qr, qi = _complex_div(lax.mul(kf, kf), _c(x, 0), tr, ti)
        return lax.sub(lax.sub(lax.mul(kf, _c(x, 2)), one), qr), lax.sub(far, qi)
    tr, ti = _backward(_SICI_FRACTION_TERMS, fraction_step,
                       (_c(x, 2.0 * _SICI_FRACTION_TERMS + 1), far))
    hr, hi = _complex_div(one, _c(x, 0), tr, ti)
    cos, sin = lax.cos(far), lax.sin(far)
    ci_far = lax.neg(lax.add(lax.mul(cos, hr), lax.mul(sin, hi)))
    si_far = lax.add(_c(x, math.pi / 2), lax.sub(lax.mul(cos, hi), lax.mul(sin, hr)))
    small = lax.lt(ax, _c(x, _SICI_SPLIT))
    si = _where(small, si_series, si_far)
    ci = _where(small, ci_series, ci_far)
    infinite = lax.eq(ax, _c(x, np.inf))
    si = _where(infinite, _c(x, math.pi / 2), si)
    ci = _where(infinite, _where(lax.gt(x, _c(x, 0)), _c(x, 0), _c(x, np.nan)), ci)
    ci = _where(lax.eq(ax, _c(x, 0)), _c(x, -np.inf), ci)
    si = _where(lax.lt(x, _c(x, 0)), lax.neg(si), si)
    si = _where(lax.eq(x, _c(x, 0)), x, si)
    nan = lax.ne(x, x)
    return _where(nan, x, si), _where(nan, x, ci)


@custom_jvp
def _sici(x: Any) -> tuple[Any, Any]:
    return _sici_impl(x)


@_sici.defjvp
def _sici_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out = _sici(x)
    nonzero = lax.ne(x, _c(x, 0))
    safe = _where(nonzero, x, _c(x, 1))
    sinc = _where(nonzero, lax.div(lax.sin(safe), safe), _c(x, 1))
    return out, (lax.mul(x_dot, sinc), lax.mul(x_dot, lax.div(lax.cos(x), x)))


def sici(x: Any) -> tuple[Any, Any]:
    """The sine and cosine integrals (Si(x), Ci(x)): Si = integral_0^x sin t
    / t dt, Ci = gamma + log|x| + integral_0^|x| (cos t - 1) / t dt (for
    x < 0 the real part, as SciPy). Power series for |x| < 4, the continued
    fraction of E1(i x) above."""
    (x,), finish = _prepare("sici", x)
    si, ci = _sici(x)
    return finish(si), finish(ci)


_FRESNEL_SERIES_TERMS = 20
_FRESNEL_FRACTION_TERMS = 80  # erfc's continued fraction at (1 - i) sqrt(pi) x / 2, x >= 1.8


def _half_pi_x2_cos_sin(ax: Any) -> tuple[Any, Any]:
    """cos and sin of pi x**2 / 2 with x**2 reduced mod 4 exactly: x = 2m + r
    + f (r in {0, 1}, 0 <= f < 1), x**2 = r (1 + 2f) + 4 m f + f**2 (mod 4),
    and m f is exact."""
    n = lax.floor(ax)
    f = lax.sub(ax, n)
    m = lax.floor(lax.mul(n, _c(ax, 0.5)))
    r = lax.sub(n, lax.mul(m, _c(ax, 2)))
    mf = lax.mul(m, f)
    t = lax.add(lax.add(lax.mul(r, lax.add(_c(ax, 1), lax.mul(_c(ax, 2), f))),
                        lax.mul(_c(ax, 4), lax.sub(mf, lax.floor(mf)))), lax.mul(f, f))
    phase = lax.mul(_c(ax, math.pi / 2), t)
    return lax.cos(phase), lax.sin(phase)


def _fresnel_impl(x: Any) -> tuple[Any, Any]:
    ax = lax.abs(x)
    one = _c(x, 1)
    split = _c(x, 1.8 if _wide(x) else 1.5)
    # series in y = pi x**2 / 2: C = x sum (-1)**k y**(2k) / ((2k)! (4k+1)),
    # S = x sum (-1)**k y**(2k+1) / ((2k+1)! (4k+3))
    near = lax.min(ax, split)
    y = lax.mul(_c(x, math.pi / 2), lax.mul(near, near))

    def series_step(k, carry):
        odd, s, c = carry  # odd = (-1)**(k-1) y**(2k-1) / (2k-1)!
        kf = _float(k, x)
        even = lax.div(lax.mul(odd, lax.neg(y)), lax.mul(kf, _c(x, 2)))
        odd = lax.div(lax.mul(even, y), lax.add(lax.mul(kf, _c(x, 2)), one))
        four_k = lax.mul(kf, _c(x, 4))
        return (odd, lax.add(s, lax.div(odd, lax.add(four_k, _c(x, 3)))),
                lax.add(c, lax.div(even, lax.add(four_k, one))))
    _, s_sum, c_sum = _forward(_FRESNEL_SERIES_TERMS, series_step, (y, lax.div(y, _c(x, 3)), one))
    s_series, c_series = lax.mul(near, s_sum), lax.mul(near, c_sum)
    # C + i S = (1 + i)/2 (1 - erfc(z)), z = (1 - i) sqrt(pi) x / 2, erfc(z) = exp(-z**2) / sqrt(pi) / t
    # with t = z + (1/2) / (z + 1 / (z + (3/2) / ...)) and exp(-z**2) = exp(i pi x**2 / 2)
    far = lax.max(ax, split)
    zr = lax.mul(_c(x, math.sqrt(math.pi) / 2), far)
    zi = lax.neg(zr)

    def fraction_step(k, carry):
        tr, ti = carry
        qr, qi = _complex_div(lax.mul(_float(k, x), _c(x, 0.5)), _c(x, 0), tr, ti)
        return lax.add(zr, qr), lax.add(zi, qi)
    tr, ti = _backward(_FRESNEL_FRACTION_TERMS, fraction_step, (zr, zi))
    wr, wi = _complex_div(one, _c(x, 0), tr, ti)
    cos, sin = _half_pi_x2_cos_sin(far)
    pr = lax.sub(lax.mul(cos, wr), lax.mul(sin, wi))
    pi_ = lax.add(lax.mul(cos, wi), lax.mul(sin, wr))
    scale = _c(x, 0.5 / math.sqrt(math.pi))
    c_far = lax.sub(_c(x, 0.5), lax.mul(scale, lax.sub(pr, pi_)))
    s_far = lax.sub(_c(x, 0.5), lax.mul(scale, lax.add(pr, pi_)))
    small = lax.lt(ax, split)
    infinite = lax.eq(ax, _c(x, np.inf))
    s = _where(infinite, _c(x, 0.5), _where(small, s_series, s_far))
    c = _where(infinite, _c(x, 0.5), _where(small, c_series, c_far))
    negative = lax.lt(x, _c(x, 0))
    s, c = _where(negative, lax.neg(s), s), _where(negative, lax.neg(c), c)
    keep = lax.bitwise_or(lax.ne(x, x), lax.eq(x, _c(x, 0)))  # NaN, and the zero's sign
    return _where(keep, x, s), _where(keep, x, c)


@custom_jvp
def _fresnel(x: Any) -> tuple[Any, Any]:
    return _fresnel_impl(x)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    cos, sin = _half_pi_x2_cos_sin(lax.abs(x))
    return _fresnel(x), (lax.mul(x_dot, sin), lax.mul(x_dot, cos))


def fresnel(x: Any) -> tuple[Any, Any]:
    """The Fresnel integrals (S(x), C(x)) = integral_0^x (sin, cos)(pi t**2
    / 2) dt: power series for |x| < 1.5 (1.8 in float64), the continued
    fraction of erfc at (1 - i) sqrt(pi) x / 2 above, with x**2 reduced
    mod 4 exactly for the phase."""
    (x,), finish = _prepare("fresnel", x)
    s, c = _fresnel(x)
    return finish(s), finish(c)


# -- spence ----------------------------------------------------------------------------------

_DILOG_TERMS = 12  # Li2 in u = -log(1 - w), |u| <= log 2: (u / 2 pi)**24 ~ 1e-23


def _dilog_u(u: Any) -> Any:
    """Li2(w) as a series in u = -log(1 - w): sum_n B_n u**(n+1) / (n+1)!
    = u - u**2/4 + sum_k B_2k u**(2k+1) / (2k+1)!."""
    b = _bernoulli_fractions(2 * _DILOG_TERMS)
    coefficients = [float(b[2 * k] / math.factorial(2 * k + 1)) for k in range(1, _DILOG_TERMS + 1)]
    u2 = lax.mul(u, u)
    acc = _c(u, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = lax.add(lax.mul(acc, u2), _c(u, c))
    odd = lax.mul(u, lax.add(_c(u, 1), lax.mul(u2, acc)))
    return lax.sub(odd, lax.mul(_c(u, 0.25), u2))


def spence(x: Any) -> Any:
    """Spence's function integral_1^x log t / (1 - t) dt = Li2(1 - x) for
    x >= 0 (NaN below and at +inf): the dilogarithm's Bernoulli series in -log(1 - w),
    after the reflection (x < 1/2) or inversion (x > 2) formulas."""
    (x,), finish = _prepare("spence", x)
    zero, one, two, half = _c(x, 0), _c(x, 1), _c(x, 2), _c(x, 0.5)
    pi2_6 = _c(x, math.pi ** 2 / 6)
    # 1/2 <= x <= 2: Li2(1 - x), u = -log x
    mid = lax.min(lax.max(x, half), two)
    middle = _dilog_u(lax.neg(lax.log(mid)))
    # x < 1/2: pi**2/6 - log x log(1 - x) - Li2(x), u = -log1p(-x)
    low = lax.min(lax.max(x, _c(x, np.finfo(x.dtype).tiny)), half)
    lower = lax.sub(lax.sub(pi2_6, lax.mul(lax.log(low), lax.log1p(lax.neg(low)))),
                    _dilog_u(lax.neg(lax.log1p(lax.neg(low)))))
    # x > 2: -pi**2/6 - log(x - 1)**2 / 2 - Li2(1 / (1 - x)), u = log1p(-1/x)
    high = lax.max(x, two)
    log_high = lax.log(lax.sub(high, one))
    upper = lax.sub(lax.sub(lax.neg(pi2_6), lax.mul(half, lax.mul(log_high, log_high))),
                    _dilog_u(lax.log1p(lax.neg(lax.div(one, high)))))
    out = _where(lax.lt(x, half), lower, _where(lax.gt(x, two), upper, middle))
    out = _where(lax.eq(x, zero), pi2_6, out)
    invalid = lax.bitwise_or(lax.lt(x, zero), lax.eq(x, _c(x, np.inf)))  # NaN at +inf, as SciPy and JAX
    out = _where(invalid, _c(x, np.nan), out)
    return finish(_where(lax.ne(x, x), x, out))


# -- Owen's T ---------------------------------------------------------------------------------

_OWENS_NODES = 32
_OWENS_WIDTH = 12.0  # exp(-h**2 x**2 / 2) < exp(-72) past x = 12 / h


@functools.lru_cache(maxsize=None)
def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = np.polynomial.legendre.leggauss(n)
    return (nodes + 1) / 2, weights / 2  # on [0, 1]


def _owens_t_small_a(h: Any, a: Any) -> Any:
    """T(h, a) for h >= 0, 0 <= a <= 1: exp(-h**2/2) / (2 pi) integral_0^a
    exp(-h**2 x**2 / 2) / (1 + x**2) dx by Gauss-Legendre on [0, min(a, 12 / h)]."""
    nodes, weights = _gauss_legendre(_OWENS_NODES)
    h = lax.min(h, _c(h, 100.0))  # T(100, a) < exp(-5000): 0
    safe_h = _where(lax.gt(h, _c(h, 0)), h, _c(h, 1))
    cut = _where(lax.gt(h, _c(h, 0)), lax.div(_c(h, _OWENS_WIDTH), safe_h), _c(h, np.inf))
    b = lax.min(a, cut)
    half_h2 = lax.mul(_c(h, 0.5), lax.mul(h, h))
    total = _c(h, 0)
    for t, w in zip(nodes, weights):
        x = lax.mul(b, _c(b, t))
        x2 = lax.mul(x, x)
        f = lax.div(lax.exp(lax.neg(lax.mul(half_h2, x2))), lax.add(_c(x, 1), x2))
        total = lax.add(total, lax.mul(_c(f, w), f))
    scale = lax.mul(_exp_square(lax.mul(h, _c(h, math.sqrt(0.5))), -1.0), _c(h, 1 / (2 * math.pi)))
    return lax.mul(lax.mul(scale, b), total)


def _upper_normal(x: Any) -> Any:
    """Q(x) = 1 - ndtr(x) = erfc(x / sqrt 2) / 2."""
    return lax.mul(_c(x, 0.5), _sp.erfc(lax.mul(x, _c(x, math.sqrt(0.5)))))


def _owens_t_impl(h: Any, a: Any) -> Any:
    ah, aa = lax.abs(h), lax.abs(a)
    one = _c(h, 1)
    direct = _owens_t_small_a(ah, lax.min(aa, one))
    # a > 1: T(h, a) = (Q(h) + Q(a h)) / 2 - Q(h) Q(a h) - T(a h, 1 / a)
    big = lax.max(aa, one)
    ahh = lax.mul(big, ah)
    q_h, q_ah = _upper_normal(ah), _upper_normal(ahh)
    swapped = lax.sub(lax.sub(lax.mul(_c(h, 0.5), lax.add(q_h, q_ah)), lax.mul(q_h, q_ah)),
                      _owens_t_small_a(ahh, lax.div(one, big)))
    out = _where(lax.gt(aa, one), swapped, direct)
    out = _where(lax.eq(ah, _c(h, 0)), lax.mul(_c(h, 1 / (2 * math.pi)), lax.atan(aa)), out)
    out = _where(lax.eq(ah, _c(h, np.inf)), _c(h, 0), out)
    out = lax.mul(lax.sign(a), out)
    return _where(lax.bitwise_or(lax.ne(h, h), lax.ne(a, a)), _c(h, np.nan), out)


@custom_jvp
def _owens_t(h: Any, a: Any) -> Any:
    return _owens_t_impl(h, a)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (h_dot, a_dot) = primals, tangents
    # dT/dh = -exp(-h**2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi)); dT/da = exp(-(1 + a**2) h**2 / 2) / (2 pi (1 + a**2))
    half_h2 = lax.mul(_c(h, 0.5), lax.mul(h, h))
    d_h = lax.mul(lax.mul(lax.exp(lax.neg(half_h2)), lax.erf(lax.mul(lax.mul(a, h), _c(h, math.sqrt(0.5))))),
                  _c(h, -1 / (2 * math.sqrt(2 * math.pi))))
    one_a2 = lax.add(_c(a, 1), lax.mul(a, a))
    d_a = lax.div(lax.exp(lax.neg(lax.mul(one_a2, half_h2))), lax.mul(_c(a, 2 * math.pi), one_a2))
    return _owens_t(h, a), lax.add(lax.mul(d_h, h_dot), lax.mul(d_a, a_dot))


def owens_t(h: Any, a: Any) -> Any:
    """Owen's T function (1 / 2 pi) integral_0^a exp(-h**2 (1 + x**2) / 2) /
    (1 + x**2) dx: Gauss-Legendre quadrature (32 nodes) for |a| <= 1, the
    identity T(h, a) + T(a h, 1/a) = (Q(h) + Q(a h)) / 2 - Q(h) Q(a h) above."""
    (h, a), finish = _prepare("owens_t", h, a)
    return finish(_owens_t(h, a))


# -- the incomplete beta function ---------------------------------------------------------

_BETAINC_STEPS = 300  # Lentz steps of the continued fraction (each two partial fractions)


def _betainc_fraction(a: Any, b: Any, x: Any) -> Any:
    """The continued fraction 1 / (1 + d1 / (1 + d2 / ...)) of I_x(a, b) by
    modified Lentz, d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)), d_{2m} =
    m (b-m) x / ((a+2m-1)(a+2m))."""
    one = _c(x, 1)
    tiny = _c(x, float(np.finfo(x.dtype).tiny) * 16)

    def guard(v):
        return _where(lax.lt(lax.abs(v), tiny), tiny, v)

    eps = _c(x, float(np.finfo(x.dtype).eps))

    def update(coefficient, c, d):
        d = lax.div(one, guard(lax.add(one, lax.mul(coefficient, d))))
        c = guard(lax.add(one, lax.div(coefficient, c)))
        return c, d, lax.mul(c, d)

    def step(k, carry):
        c, d, h, done = carry
        m = _float(k, x)
        m2 = lax.mul(m, _c(x, 2))
        even = lax.div(lax.mul(lax.mul(m, lax.sub(b, m)), x),
                       lax.mul(lax.add(a, lax.sub(m2, one)), lax.add(a, m2)))
        c, d, f_even = update(even, c, d)
        odd = lax.div(lax.mul(lax.neg(lax.mul(lax.add(a, m), lax.add(lax.add(a, b), m))), x),
                      lax.mul(lax.add(a, m2), lax.add(lax.add(a, m2), one)))
        c, d, f_odd = update(odd, c, d)
        factor = lax.mul(f_even, f_odd)
        # once converged, stop multiplying: factors of 1 - ulp would drift h by an ulp a step
        h = _where(done, h, lax.mul(h, factor))
        done = lax.bitwise_or(done, lax.le(lax.abs(lax.sub(factor, one)), eps))
        return c, d, h, done
    first = lax.div(lax.neg(lax.mul(lax.add(a, b), x)), lax.add(a, one))
    d = lax.div(one, guard(lax.add(one, first)))
    _, _, h, _ = _forward(_BETAINC_STEPS, step, (one, d, d, lax.full_like(x, False, np.bool_)))
    return h


def _log1p_minus(t: Any) -> Any:
    """log1p(t) - t, by its series -t**2/2 + t**3/3 - ... for |t| < 0.1."""
    acc = _c(t, 0)
    for k in range(18, 1, -1):
        acc = lax.add(lax.mul(acc, t), _c(t, (-1) ** (k + 1) / k))
    series = lax.mul(lax.mul(acc, t), t)
    return _where(lax.lt(lax.abs(t), _c(t, 0.1)), series, lax.sub(lax.log1p(t), t))


def _betainc_front(a: Any, b: Any, x: Any) -> Any:
    """x**a (1-x)**b / B(a, b) for 0 < x < 1, a, b > 0. With a, b >= 8 as
    sqrt(a b / (2 pi (a + b))) exp(a phi(u / x0) + b phi(-u / y0) - rests),
    phi(t) = log1p(t) - t, x0 = a / (a + b), y0 = b / (a + b), u = x - x0
    (the exponent's large parts cancel analytically)."""
    eight = _c(a, 8)
    plain = lax.exp(lax.sub(lax.add(lax.mul(a, lax.log(x)), lax.mul(b, lax.log1p(lax.neg(x)))),
                            _log_beta(a, b)))
    large = lax.bitwise_and(lax.ge(a, eight), lax.ge(b, eight))
    la, lb = _where(large, a, eight), _where(large, b, eight)
    total = lax.add(la, lb)
    x0, y0 = lax.div(la, total), lax.div(lb, total)
    u = lax.sub(x, x0)
    exponent = lax.add(lax.mul(la, _log1p_minus(lax.div(u, x0))), lax.mul(lb, _log1p_minus(lax.neg(lax.div(u, y0)))))
    rests = lax.sub(lax.add(_stirling_rest(la), _stirling_rest(lb)), _stirling_rest(total))
    scale = lax.sqrt(lax.div(lax.mul(x0, lb), _c(a, 2 * math.pi)))
    return _where(large, lax.mul(scale, lax.exp(lax.sub(exponent, rests))), plain)


def _betainc_impl(a: Any, b: Any, x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    interior = lax.bitwise_and(lax.bitwise_and(lax.gt(x, zero), lax.lt(x, one)),
                               lax.bitwise_and(lax.gt(a, zero), lax.gt(b, zero)))
    finite = lax.bitwise_and(lax.is_finite(a), lax.is_finite(b))
    ok = lax.bitwise_and(interior, finite)
    sa, sb = _where(ok, a, one), _where(ok, b, one)
    sx = _where(ok, x, _c(x, 0.5))
    front = _betainc_front(sa, sb, sx)
    # the fraction converges fast below (a + 1) / (a + b + 2); past it use 1 - I_{1-x}(b, a), unless
    # x is still well below the mean a / (a + b) (b << 1: the complement would cancel)
    past = lax.gt(sx, lax.div(lax.add(sa, one), lax.add(lax.add(sa, sb), _c(x, 2))))
    near_mean = lax.lt(lax.mul(lax.sub(one, sx), lax.add(sa, sb)), lax.mul(_c(x, 1.5), sb))
    swap = lax.bitwise_and(past, near_mean)
    fa, fb = _where(swap, sb, sa), _where(swap, sa, sb)
    fx = _where(swap, lax.sub(one, sx), sx)
    part = lax.div(lax.mul(front, _betainc_fraction(fa, fb, fx)), fa)
    out = _where(swap, lax.sub(one, part), part)
    # the edges, as SciPy and JAX
    out = _where(lax.eq(x, zero), zero, out)
    out = _where(lax.eq(x, one), one, out)
    out = _where(lax.bitwise_and(lax.eq(a, zero), lax.gt(b, zero)), one, out)
    out = _where(lax.bitwise_and(lax.eq(b, zero), lax.gt(a, zero)), zero, out)
    inside = lax.bitwise_and(lax.gt(x, zero), lax.lt(x, one))
    out = _where(lax.bitwise_and(inside, lax.eq(b, _c(b, np.inf))), _where(lax.eq(a, _c(a, np.inf)), _c(x, np.nan),
                                                                           one), out)
    out = _where(lax.bitwise_and(lax.bitwise_and(inside, lax.eq(a, _c(a, np.inf))), lax.is_finite(b)), zero, out)
    invalid = lax.bitwise_or(lax.bitwise_or(lax.lt(a, zero), lax.lt(b, zero)),
                             lax.bitwise_or(lax.lt(x, zero), lax.gt(x, one)))
    invalid = lax.bitwise_or(invalid, lax.bitwise_and(lax.eq(a, zero), lax.eq(b, zero)))
    invalid = lax.bitwise_or(invalid, lax.bitwise_or(lax.ne(x, x), lax.bitwise_or(lax.ne(a, a), lax.ne(b, b))))
    return _where(invalid, _c(x, np.nan), out)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b) = integral_0^x
    t**(a-1) (1-t)**(b-1) dt / B(a, b): x**a (1-x)**b / (a B(a, b)) times
    a continued fraction (300 Lentz steps), on 1 - x with a and b swapped
    past the mean. Accurate for a, b up to about 1e4 (the fraction needs
    O(sqrt(max(a, b))) steps); float32 loses digits for a, b above about
    1e3 (rounding accumulates over the steps). Differentiable in a, b and x
    (JAX: x only)."""
    (a, b, x), finish = _prepare("betainc", a, b, x)
    return finish(_betainc_impl(a, b, x))


# -- Bessel functions J_0 .. J_v ---------------------------------------------------------

def _bessel_jn_impl(z: Any, v: int, start: int) -> Any:
    """J_0 .. J_v stacked along a new leading axis: Miller's backward
    recurrence f_{k-1} = (2k / z) f_k - f_{k+1} from f_{start+1} = 0, f_start = 1,
    kept in range by powers of two, normalized by J_0 + 2 (J_2 + J_4 + ...) = 1;
    the two-term series for |z| < 1e-4; 0 at +-inf."""
    shape = z.shape
    az = lax.abs(z)
    one, zero = _c(z, 1), _c(z, 0)
    small = lax.lt(az, _c(z, 1e-4))
    sz = _where(small, one, z)
    orders = lax.broadcasted_iota(z.dtype, (v + 1, *shape), 0)

    def expand(y):
        return lax.broadcast_in_dim(y, (v + 1, *shape), tuple(range(1, len(shape) + 1)))

    def step(k, carry):
        f_next, f, total, out = carry  # f_{k+1}, f_k
        kf = _float(k, z)
        f_prev = lax.sub(lax.mul(lax.div(lax.mul(_c(z, 2), kf), sz), f), f_next)
        even = lax.eq(lax.rem(kf, _c(z, 2)), one)  # k - 1 even
        total = _where(even, lax.add(total, lax.mul(_c(z, 2), f_prev)), total)
        out = lax.select(lax.eq(orders, expand(lax.sub(kf, one))), expand(f_prev), out)
        big = lax.gt(lax.abs(f_prev), one)
        exponent = lax.floor(lax.log(lax.abs(f_prev)) * _c(z, 1 / math.log(2)))
        scale = _where(big, lax.exp2(lax.neg(_where(big, exponent, zero))), one)
        return lax.mul(f, scale), lax.mul(f_prev, scale), lax.mul(total, scale), lax.mul(out, expand(scale))
    init = (zero, one, zero, lax.full((v + 1, *shape), 0, z.dtype))
    _, f0, total, out = _backward(start, step, init)
    # total counted f_0 twice
    miller = lax.div(out, expand(lax.sub(total, f0)))
    # |z| < 1e-4: J_n = (z/2)**n / n! (1 - (z/2)**2 / (n + 1))
    half = lax.mul(z, _c(z, 0.5))
    rows, power = [], one
    for n in range(v + 1):
        if n:
            power = lax.div(lax.mul(power, half), _c(z, n))
        rows.append(lax.mul(power, lax.sub(one, lax.div(lax.mul(half, half), _c(z, n + 1)))))
    series = lax.concatenate([lax.broadcast_in_dim(r, (1, *shape), tuple(range(1, len(shape) + 1)))
                              for r in rows], 0)
    out = lax.select(expand(small), series, miller)
    out = lax.select(expand(lax.eq(az, _c(z, np.inf))), lax.full_like(out, 0), out)
    return lax.select(expand(lax.ne(z, z)), expand(z), out)


def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """Bessel functions of the first kind J_0(z), ..., J_v(z) (`v` a concrete
    int), shape (v + 1, *z.shape), by Miller's backward recurrence from order
    max(n_iter, v) + 1. As in JAX, `n_iter` must exceed |z| comfortably (the
    default 50 is accurate to rounding for |z| up to about 20, to 1e-8 at
    30). 0 at +-inf."""
    try:
        v = operator.index(v)
    except TypeError:
        raise TypeError(f"bessel_jn: v must be a concrete Python integer, got {v!r}") from None
    n_iter = int(n_iter)
    if v < 0:
        raise ValueError(f"bessel_jn: v must be non-negative, got {v}")
    (z,), finish = _prepare("bessel_jn", z)
    return finish(_bessel_jn_impl(z, v, max(n_iter, v) + 1))


# -- hypergeometric functions --------------------------------------------------------------

_HYP1F1_TERMS = 600  # the power series below 200 (its terms peak near k = x + a)
_HYP1F1_ASYMPTOTIC_TERMS = 60


def _is_nonpositive_integer(x: Any) -> Any:
    return lax.bitwise_and(lax.le(x, _c(x, 0)), lax.eq(lax.floor(x), x))


def _hyp1f1_positive(a: Any, b: Any, y: Any, shift: Any) -> Any:
    """exp(shift) 1F1(a; b; y) for y >= 0: the power series below 200 or
    where a is a non-positive integer (a polynomial), else Gamma(b) / Gamma(a) exp(y) y**(a-b)
    sum_k (b-a)_k (1-a)_k / (k! y**k), all scale factors in the exponent."""
    one = _c(y, 1)
    split = _c(y, 200.0)
    polynomial = _is_nonpositive_integer(a)
    use_series = lax.bitwise_or(lax.lt(y, split), polynomial)
    near = _where(polynomial, y, lax.min(y, split))

    def step(k, carry):
        term, total = carry
        kf = _float(k, y)
        km1 = lax.sub(kf, one)
        ratio = lax.mul(lax.div(lax.add(a, km1), lax.add(b, km1)), lax.div(near, kf))
        term = lax.mul(term, ratio)
        return term, lax.add(total, term)
    _, series = _forward(_HYP1F1_TERMS, step, (one, one))
    series = lax.mul(series, lax.exp(shift))
    far = lax.max(y, split)
    sa = _where(use_series, one, a)
    term, total = one, one
    for k in range(1, _HYP1F1_ASYMPTOTIC_TERMS):
        ratio = lax.div(lax.mul(lax.add(lax.sub(b, sa), _c(y, k - 1)), lax.add(lax.sub(one, sa), _c(y, k - 1))),
                        lax.mul(far, _c(y, k)))
        term = lax.mul(term, ratio)
        total = lax.add(total, term)
    log_front = lax.add(lax.sub(lax.lgamma(b), lax.lgamma(sa)), lax.add(far, lax.mul(lax.sub(sa, b), lax.log(far))))
    sign = lax.mul(_sp.gammasgn(b), _sp.gammasgn(sa))
    asymptotic = lax.mul(lax.mul(sign, lax.exp(lax.add(log_front, _where(use_series, _c(y, 0), shift)))), total)
    return _where(use_series, series, asymptotic)


def _hyp1f1_impl(a: Any, b: Any, x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    negative = lax.lt(x, zero)
    # Kummer: 1F1(a; b; x) = exp(x) 1F1(b - a; b; -x)
    ka = _where(negative, lax.sub(b, a), a)
    bad_b = _is_nonpositive_integer(b)
    sb = _where(bad_b, one, b)
    general = _hyp1f1_positive(_where(bad_b, one, ka), sb, lax.abs(x), lax.min(x, zero))
    out = _where(bad_b, _c(x, np.inf), general)
    out = _keep_derivative(lax.bitwise_and(lax.eq(a, b), lax.ne(a, zero)), lax.exp(x), general, out)
    out = _keep_derivative(lax.eq(a, zero), one, general, out)
    nan = lax.bitwise_or(lax.bitwise_or(lax.ne(a, a), lax.ne(b, b)), lax.ne(x, x))
    return _where(nan, _c(x, np.nan), out)


def hyp1f1(a: Any, b: Any, x: Any) -> Any:
    """Kummer's confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k
    / (b)_k x**k / k!, for real a, b, x: the series (600 terms) for |x| <
    200, on exp(x) 1F1(b - a; b; -x) when x < 0 (Kummer's
    transformation), the asymptotic expansion above. As in JAX, 1 where a == 0 (also a == b
    == 0), exp(x) where a == b, inf where b is a non-positive integer.
    Accurate for moderate |a|, |b| (up to about 50), except where the
    series cancels (x < 0 with a - b >> 1: about 1e-8 relative at a = 20,
    x = -20 in float64); differentiable in a, b and x through the series."""
    (a, b, x), finish = _prepare("hyp1f1", a, b, x)
    return finish(_hyp1f1_impl(a, b, x))


_HYP2F1_TERMS = 600  # the series in z <= 0.9: z**600 ~ 1e-28


def _hyp2f1_series(a: Any, b: Any, c: Any, z: Any) -> Any:
    one = _c(z, 1)

    def step(k, carry):
        term, total = carry
        kf = _float(k, z)
        km1 = lax.sub(kf, one)
        ratio = lax.div(lax.mul(lax.add(a, km1), lax.add(b, km1)), lax.mul(lax.add(c, km1), kf))
        term = lax.mul(lax.mul(term, ratio), z)
        return term, lax.add(total, term)
    _, total = _forward(_HYP2F1_TERMS, step, (one, one))
    return total


def _rgamma(x: Any) -> Any:
    """1 / Gamma(x), 0 at the poles."""
    pole = _is_nonpositive_integer(x)
    return _where(pole, _c(x, 0), lax.div(_c(x, 1), _sp.gamma(_where(pole, _c(x, 1), x))))


def _hyp2f1_impl(a: Any, b: Any, c: Any, x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    d = lax.sub(lax.sub(c, a), b)
    inside = lax.lt(x, one)
    sx = _where(inside, x, zero)
    s = lax.sub(one, sx)
    # a polynomial when a or b is a non-positive integer: keep that parameter in the transforms
    a_poly, b_poly = _is_nonpositive_integer(a), _is_nonpositive_integer(b)
    keep_b = lax.bitwise_or(lax.bitwise_and(b_poly, lax.bitwise_not(a_poly)),
                            lax.bitwise_and(lax.bitwise_not(a_poly), lax.lt(b, a)))
    p, q = _where(keep_b, b, a), _where(keep_b, a, b)  # p: the kept parameter
    polynomial = lax.bitwise_or(a_poly, b_poly)
    # x < 0, Pfaff: (1 - x)**(-p) 2F1(p, c - q; c; x / (x - 1)), argument in (0, 1)
    negative = lax.bitwise_and(lax.lt(sx, zero), lax.bitwise_not(polynomial))
    # 0 <= x < 1 and c - a - b < 0, Euler: (1 - x)**(c-a-b) 2F1(c - a, c - b; c; x): faster decaying terms
    euler = lax.bitwise_and(lax.bitwise_and(lax.ge(sx, zero), lax.lt(d, zero)), lax.bitwise_not(polynomial))
    pa = _where(negative, p, _where(euler, lax.sub(c, a), a))
    pb = _where(negative, lax.sub(c, q), _where(euler, lax.sub(c, b), b))
    z = _where(negative, lax.div(sx, lax.sub(sx, one)), sx)
    factor = _where(negative, lax.pow(s, lax.neg(p)), _where(euler, lax.pow(s, d), one))
    sc = _where(_is_nonpositive_integer(c), _c(x, 0.5), c)
    general = lax.mul(factor, _hyp2f1_series(pa, pb, sc, z))
    # the special cases, in JAX's order of precedence
    out = _keep_derivative(lax.bitwise_and(inside, lax.eq(a, c)), lax.pow(s, lax.neg(b)), general, general)
    out = _keep_derivative(lax.bitwise_and(inside, lax.eq(b, c)), lax.pow(s, lax.neg(a)), general, out)
    # x == 1: the terminating series, else Gauss's sum Gamma(c) Gamma(d) / (Gamma(c - a) Gamma(c - b)) for d > 0
    gauss_ok = lax.gt(d, zero)
    sd = _where(gauss_ok, d, one)
    gauss = lax.mul(lax.mul(_sp.gamma(c), _sp.gamma(sd)), lax.mul(_rgamma(lax.sub(c, a)), _rgamma(lax.sub(c, b))))
    at_one = _where(polynomial, _hyp2f1_series(a, b, sc, one), _where(gauss_ok, gauss, _c(x, np.inf)))
    out = _where(lax.eq(x, one), at_one, out)
    out = _where(lax.gt(x, one), _c(x, np.inf), out)
    out = _where(_is_nonpositive_integer(c), _c(x, np.inf), out)
    trivial = lax.bitwise_or(lax.eq(x, zero), lax.bitwise_and(lax.bitwise_or(lax.eq(a, zero), lax.eq(b, zero)),
                                                              lax.ne(c, zero)))
    out = _keep_derivative(trivial, one, general, out)
    nan = lax.bitwise_or(lax.bitwise_or(lax.ne(a, a), lax.ne(b, b)), lax.bitwise_or(lax.ne(c, c), lax.ne(x, x)))
    return _where(nan, _c(x, np.nan), out)


def hyp2f1(a: Any, b: Any, c: Any, x: Any) -> Any:
    """The Gauss hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k
    / (c)_k x**k / k! for real arguments and x <= 1: the series (600 terms)
    on x for 0 <= x < 1 (Euler's transformation first where c - a - b < 0),
    Pfaff's transformation (1 - x)**(-a) 2F1(a, c - b; c; x / (x - 1)) for
    x < 0, Gauss's sum at x == 1. As in JAX: 1 where x == 0 or a or b is 0
    (c != 0), inf where c is a non-positive integer or x > 1 and at x == 1
    unless the series terminates or c - a - b > 0. Accurate to
    rounding while the series argument (x, or x / (x - 1)) is below about
    0.9, i.e. -9 <= x <= 0.9; slower convergence above loses digits
    (about 1e-9 at 0.95). Differentiable in all arguments through the
    series."""
    (a, b, c, x), finish = _prepare("hyp2f1", a, b, c, x)
    return finish(_hyp2f1_impl(a, b, c, x))
