"""`jaxc.scipy.special`: special functions with SciPy's names and JAX's dtypes.

Integer and boolean arguments become the default float (``erf(1)`` is
float32). erf, erfinv, gammaln and digamma are single lax primitives; erfc
adds a tail formula so that it keeps its relative accuracy where
``1 - erf(x)`` would cancel; logsumexp subtracts the maximum first and
handles rows of -inf (result -inf) and +inf (result +inf). The gamma
family (gamma, betaln, gammainc, zeta, polygamma, ...), log_ndtr/ndtri,
the Bessel functions i0/i1 (and their exponentially scaled forms),
rel_entr/kl_div and boxcox are compositions of lax ops, with JAX's regions
and errors (tests/python/test_scipy_special_more.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, lax
from .._autodiff import custom_jvp
from ..numpy._util import (
    asarray,
    broadcast_shapes,
    broadcast_to,
    canonicalize_axes,
    promote_args_inexact,  # first: jaxc.numpy sets up the front end
)
from ._special_base import _const, _inexact, _where, erfc, gamma, gammasgn


def _unary(name: str, prim: Any, doc: str) -> Any:
    def apply(x: Any) -> Any:
        return prim(_inexact(name, x))
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = doc
    return apply


erf = _unary("erf", lax.erf, "The error function 2/sqrt(pi) * integral_0^x exp(-t**2) dt.")
erfinv = _unary("erfinv", lax.erf_inv, "The inverse of erf on (-1, 1); +-inf at +-1, NaN outside.")
gammaln = _unary("gammaln", lax.lgamma, "log|Gamma(x)|; +inf at 0 and the negative integers.")
digamma = _unary("digamma", lax.digamma, "The logarithmic derivative of Gamma; NaN at 0 and the negative integers.")
expit = _unary("expit", lax.logistic, "The logistic sigmoid 1 / (1 + exp(-x)).")


def logit(x: Any) -> Any:
    """log(x / (1 - x)), the inverse of expit (-inf at 0, +inf at 1)."""
    x = _inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(lax.full_like(x, 1), x)))


def ndtr(x: Any) -> Any:
    """The standard normal CDF, 0.5 * erfc(-x / sqrt(2))."""
    x = _inexact("ndtr", x)
    return lax.mul(lax.full_like(x, 0.5), erfc(lax.mul(x, lax.full_like(x, -np.sqrt(0.5)))))


# -- x * log(y) ----------------------------------------------------------------------

def _x_times_log(name: str, log: Any, dlog: Any) -> Any:
    """x * log(y) with 0 where x == 0 (SciPy's), differentiated as JAX does
    (`dlog(y)` is log's derivative): x' log(y) + y' x dlog(y), so
    d/dx xlogy(0, 0) = -inf rather than the select's 0."""
    @custom_jvp
    def core(x: Any, y: Any) -> Any:
        product = lax.mul(x, log(y))
        # SciPy: 0 where x == 0, whatever y is, unless y is NaN.
        zero_x = lax.bitwise_and(lax.eq(x, lax.full_like(x, 0)), lax.eq(y, y))
        return lax.select(zero_x, lax.full_like(product, 0), product)

    @core.defjvp
    def core_jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        return core(x, y), lax.add(lax.mul(tx, log(y)), lax.mul(ty, lax.mul(x, dlog(y))))

    def apply(x: Any, y: Any) -> Any:
        return core(*promote_args_inexact(name, x, y))
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"x * {log.__name__}(y), with 0 where x == 0 (even where y is 0)."
    return apply


xlogy = _x_times_log("xlogy", lax.log, lambda y: lax.div(lax.full_like(y, 1), y))
xlog1py = _x_times_log("xlog1py", lax.log1p, lambda y: lax.div(lax.full_like(y, 1), lax.add(lax.full_like(y, 1), y)))


@custom_jvp
def _x_log_x(x: Any) -> Any:
    """x log(x), 0 at 0; its derivative log(x) + 1 (-inf at 0), as JAX's."""
    return xlogy(x, x)


@_x_log_x.defjvp
def _x_log_x_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (t,) = primals, tangents
    return _x_log_x(x), lax.mul(t, lax.add(lax.log(x), lax.full_like(x, 1)))


def entr(x: Any) -> Any:
    """-x * log(x): 0 at 0, -inf for negative x, NaN for NaN; the derivative
    -(log(x) + 1) (+inf at 0), as in JAX."""
    x = _inexact("entr", x)
    return lax.select(lax.lt(x, lax.full_like(x, 0)), lax.full_like(x, -np.inf), lax.neg(_x_log_x(x)))


# -- logsumexp ------------------------------------------------------------------------

def expand_reduced(reduced: Any, axes: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    """A reduction over `axes` broadcast back to the full `shape`."""
    kept = tuple(d for d in range(len(shape)) if d not in axes)
    return lax.broadcast_in_dim(reduced, shape, kept)


def keep_dims(reduced: Any, axes: tuple[int, ...]) -> Any:
    """A reduction over `axes` with those axes kept as size 1."""
    shape = list(reduced.shape)
    for axis in sorted(axes):
        shape.insert(axis, 1)
    return lax.reshape(reduced, tuple(shape))


def stable_max(x: Any, axes: tuple[int, ...]) -> Any:
    """The max over `axes`, with non-finite maxima replaced by 0 (a safe shift
    for exp(x - max): rows of -inf stay -inf, rows with +inf give +inf)."""
    big = lax.reduce_max(x, axes)
    return lax.select(lax.is_finite(big), big, lax.full_like(big, 0))


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False,
              where: Any = None) -> Any:
    """log(sum(b * exp(a))) over `axis`, computed stably. With `b`, a
    negative sum is NaN unless `return_sign` (then ``(log|sum|, sign)``)."""
    if b is None:
        a = _inexact("logsumexp", a)
    else:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = lax.select(lax.ne(b, lax.full_like(b, 0)), a, lax.full_like(a, -np.inf))
    if where is not None:
        mask = asarray(where, fn="logsumexp")
        if mask.dtype != np.bool_:
            mask = lax.ne(mask, lax.full_like(mask, 0))
        shape = broadcast_shapes("logsumexp", mask.shape, a.shape)
        mask, a = broadcast_to(mask, shape, "logsumexp"), broadcast_to(a, shape, "logsumexp")
        b = None if b is None else broadcast_to(b, shape, "logsumexp")
        a = lax.select(mask, a, lax.full_like(a, -np.inf))
    axes = canonicalize_axes(axis, a.ndim, "logsumexp")
    shift = stable_max(a, axes)
    terms = lax.exp(lax.sub(a, expand_reduced(shift, axes, a.shape)))
    if b is not None:
        terms = lax.mul(terms, b)
    total = lax.reduce_sum(terms, axes)
    sign = lax.sign(total)
    out = lax.add(lax.log(lax.abs(total)), shift)
    if keepdims:
        out, sign = keep_dims(out, axes), keep_dims(sign, axes)
    if return_sign:
        return out, sign
    if b is not None:
        out = lax.select(lax.lt(sign, lax.full_like(sign, 0)), lax.full_like(out, np.nan), out)
    return out


__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "expit", "gammaln", "logit", "logsumexp", "ndtr",
           "xlog1py", "xlogy"]


# -- gamma family ----------------------------------------------------------------------

def loggamma(x: Any) -> Any:
    """log(Gamma(x)) for real x > 0; NaN for x <= 0 (real inputs only)."""
    x = _inexact("loggamma", x)
    if np.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("loggamma: complex inputs are not supported by jaxc")
    return _where(lax.gt(x, _const(x, 0)), lax.lgamma(x), _const(x, np.nan))


def factorial(n: Any, exact: bool = False) -> Any:
    """n! = Gamma(n + 1) as a float; 0 for n < 0. ``exact=True`` is not supported (as in JAX)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n = _inexact("factorial", n)
    value = lax.exp(lax.lgamma(lax.add(n, _const(n, 1))))
    return _where(lax.lt(n, _const(n, 0)), _const(n, 0), value)


def poch(z: Any, m: Any) -> Any:
    """The Pochhammer symbol Gamma(z + m) / Gamma(z); 1 where m == 0."""
    z, m = promote_args_inexact("poch", z, m)
    if np.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    ratio = lax.div(gamma(lax.add(z, m)), gamma(z))
    return _where(lax.eq(m, _const(m, 0)), _const(ratio, 1), ratio)


def multigammaln(a: Any, d: Any) -> Any:
    """log of the multivariate gamma function of dimension `d` (a concrete
    integer): d(d-1)/4 log(pi) + sum_{j<d} gammaln(a - j/2)."""
    d = int(d)
    a = _inexact("multigammaln", a)
    out = _const(a, 0.25 * d * (d - 1) * np.log(np.pi))
    for j in range(d):
        out = lax.add(out, lax.lgamma(lax.sub(a, _const(a, 0.5 * j))))
    return out


# cdflib's algdiv coefficients: del(b) - del(a + b) for b >= 8, where
# lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + del(x).
_ALGDIV = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03, -0.595202931351870e-03,
           0.837308034031215e-03, -0.165322962780713e-02)


def _algdiv(a: Any, b: Any) -> Any:
    """lgamma(b) - lgamma(a + b) for a <= b, b >= 8 (cdflib's algdiv)."""
    one = _const(a, 1)
    h = lax.div(a, b)
    c = lax.div(h, lax.add(one, h))
    c2 = lax.mul(c, c)
    sums = [one]  # s_{2k+1} = 1 + c + c**2 s_{2k-1}
    for _ in range(5):
        sums.append(lax.add(one, lax.add(c, lax.mul(c2, sums[-1]))))
    t = lax.div(one, lax.mul(b, b))
    w = lax.mul(_const(a, _ALGDIV[5]), sums[5])
    for k in range(4, 0, -1):
        w = lax.add(lax.mul(w, t), lax.mul(_const(a, _ALGDIV[k]), sums[k]))
    w = lax.add(lax.mul(w, t), _const(a, _ALGDIV[0]))
    w = lax.mul(w, lax.div(c, b))
    u = lax.mul(lax.add(b, lax.sub(a, _const(a, 0.5))), lax.log1p(lax.div(a, b)))
    v = lax.mul(a, lax.sub(lax.log(b), one))
    return _where(lax.le(u, v), lax.sub(lax.sub(w, v), u), lax.sub(lax.sub(w, u), v))


def betaln(a: Any, b: Any) -> Any:
    """log|B(a, b)|: lgamma(a) + lgamma(b) - lgamma(a + b) for max(a, b) < 8,
    else lgamma(min) + algdiv (keeps its accuracy for large arguments)."""
    a, b = promote_args_inexact("betaln", a, b)
    small, large = lax.min(a, b), lax.max(a, b)
    direct = lax.add(lax.lgamma(small), lax.sub(lax.lgamma(large), lax.lgamma(lax.add(small, large))))
    big = lax.ge(large, _const(large, 8))
    safe_large = _where(big, large, _const(large, 8))
    asymptotic = lax.add(lax.lgamma(small), _algdiv(small, safe_large))
    return _where(big, asymptotic, direct)


def gammainc(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def zeta(x: Any, q: Any = None) -> Any:
    """The Hurwitz zeta function sum_{n>=0} (n + q)**-x (`q` is required, as in JAX)."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to compute the "
                                  "Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return lax.zeta(x, q)


def polygamma(n: Any, x: Any) -> Any:
    """The n-th derivative of digamma; `n` must have an integer dtype."""
    n_dtype = asarray(n, fn="polygamma").dtype
    if not np.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n, x = promote_args_inexact("polygamma", n, x)
    return lax.polygamma(n, x)


# -- normal distribution ----------------------------------------------------------------

def _log_ndtr_series(x: Any, series_order: int) -> Any:
    """log(ndtr(x)) for x << -1: -x**2/2 - log(-x) - log(2 pi)/2 +
    log(1 + sum_{n=1}^N (-1)**n (2n-1)!! / x**(2n))."""
    x2 = lax.mul(x, x)
    total = _const(x, 1.0)
    power = x2
    double_factorial = 1
    for n in range(1, series_order + 1):
        double_factorial *= 2 * n - 1
        term = lax.div(_const(x, float(double_factorial)), power)
        total = lax.sub(total, term) if n % 2 else lax.add(total, term)
        power = lax.mul(power, x2)
    scale = lax.sub(lax.sub(lax.mul(_const(x, -0.5), x2), lax.log(lax.neg(x))), _const(x, 0.5 * np.log(2 * np.pi)))
    return lax.add(scale, lax.log(total))


def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """log of the standard normal CDF, accurate in both tails: -ndtr(-x)
    above 8 (float64; 5 for float32), log(ndtr(x)) down to -20 (-10), an
    asymptotic series (`series_order` terms, 0..30) below."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = asarray(x, fn="log_ndtr")
    if x.dtype == dtypes.float64:
        lower, upper = -20.0, 8.0
    elif x.dtype == dtypes.float32:
        lower, upper = -10.0, 5.0
    else:
        raise TypeError(f"x.dtype={np.dtype(x.dtype)} is not supported.")
    above = lax.gt(x, _const(x, upper))
    values = ndtr(_where(above, lax.neg(x), lax.max(x, _const(x, lower))))
    series = _log_ndtr_series(lax.min(x, _const(x, lower)), series_order)
    middle = _where(lax.gt(x, _const(x, lower)), lax.log(values), series)
    return _where(above, lax.neg(values), middle)


_NDTRI_NEWTON_STEPS = 8
_NDTRI_SERIES_ORDER = 12  # log_ndtr's asymptotic series below -20: converged to rounding


def ndtri(p: Any) -> Any:
    """The inverse of ndtr: sqrt(2) erfinv(2p - 1) in the middle; in the
    tails (p or 1 - p below exp(-2)) Newton steps on log_ndtr from the
    asymptotic start -sqrt(-2 log p - log(-2 log p) - log(2 pi)), so that
    tiny p keep their accuracy. -inf at 0, +inf at 1, NaN outside [0, 1]."""
    p = _inexact("ndtri", p)
    compute = lax.convert_element_type(p, dtypes.float32) if p.dtype.itemsize < 4 else p
    zero, one, half = _const(compute, 0), _const(compute, 1), _const(compute, 0.5)
    middle = lax.mul(_const(compute, np.sqrt(2.0)), lax.erf_inv(lax.sub(lax.mul(_const(compute, 2), compute), one)))
    upper = lax.gt(compute, half)
    small = _where(upper, lax.sub(one, compute), compute)  # the tail probability, <= 1/2
    tail_cut = _const(compute, np.exp(-2.0))
    safe = lax.min(lax.max(small, _const(compute, np.finfo(compute.dtype).tiny)), tail_cut)
    log_p = lax.log(safe)
    t = lax.mul(_const(compute, -2), log_p)
    start = lax.sub(lax.sub(t, lax.log(t)), _const(compute, np.log(2 * np.pi)))
    x = lax.neg(lax.sqrt(lax.max(start, _const(compute, 0.25))))
    for _ in range(_NDTRI_NEWTON_STEPS):
        log_cdf = log_ndtr(x, series_order=_NDTRI_SERIES_ORDER)
        # d/dx log_ndtr(x) = pdf(x) / ndtr(x)
        log_slope = lax.sub(lax.sub(lax.mul(_const(x, -0.5), lax.mul(x, x)), _const(x, 0.5 * np.log(2 * np.pi))),
                            log_cdf)
        x = lax.sub(x, lax.mul(lax.sub(log_cdf, log_p), lax.exp(lax.neg(log_slope))))
    tail = _where(upper, lax.neg(x), x)
    out = _where(lax.lt(small, tail_cut), tail, middle)
    # below the smallest normal: keep the Newton result (log_p saturates), JAX gives ~ -37.5 / -38.5 there too
    out = _where(lax.eq(compute, zero), _const(compute, -np.inf), out)
    out = _where(lax.eq(compute, one), _const(compute, np.inf), out)
    out = _where(lax.bitwise_or(lax.lt(compute, zero), lax.gt(compute, one)), _const(compute, np.nan), out)
    out = _where(lax.ne(compute, compute), compute, out)
    return lax.convert_element_type(out, p.dtype, p.weak_type)


# -- modified Bessel functions of order 0 and 1 ----------------------------------------
# e**-|x| I_nu(x): the power series (x/2)**nu sum_k (x**2/4)**k / (k! (k + nu)!)
# for |x| <= 20 and the asymptotic expansion
# 1/sqrt(2 pi x) sum_k (-1)**k prod_{j<=k} (4 nu**2 - (2j - 1)**2) / (k! (8x)**k) above.
_BESSEL_SPLIT = 20.0
_BESSEL_SERIES_TERMS = 64
_BESSEL_ASYMPTOTIC_TERMS = 36


def _bessel_ie(nu: int, x: Any) -> Any:
    ax = lax.abs(x)
    split = _const(ax, _BESSEL_SPLIT)
    near = lax.min(ax, split)
    quarter = lax.mul(_const(ax, 0.25), lax.mul(near, near))
    term = _const(ax, 1.0)
    total = term
    for k in range(1, _BESSEL_SERIES_TERMS):
        term = lax.mul(term, lax.div(quarter, _const(ax, float(k * (k + nu)))))
        total = lax.add(total, term)
    series = lax.mul(total, lax.exp(lax.neg(near)))
    if nu == 1:
        series = lax.mul(series, lax.mul(_const(ax, 0.5), near))
    far = lax.max(ax, split)
    mu = 4.0 * nu * nu
    term = _const(ax, 1.0)
    total = term
    for k in range(1, _BESSEL_ASYMPTOTIC_TERMS):
        factor = -(mu - (2 * k - 1) ** 2) / (8.0 * k)
        term = lax.mul(term, lax.div(_const(ax, factor), far))
        total = lax.add(total, term)
    asymptotic = lax.mul(total, lax.rsqrt(lax.mul(_const(ax, 2 * np.pi), far)))
    out = _where(lax.le(ax, split), series, asymptotic)
    if nu == 1:
        out = _where(lax.lt(x, _const(x, 0)), lax.neg(out), out)
    return _where(lax.ne(x, x), x, out)


def i0e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function exp(-|x|) I0(x)."""
    return _bessel_ie(0, _inexact("i0e", x))


def i1e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function exp(-|x|) I1(x)."""
    return _bessel_ie(1, _inexact("i1e", x))


def i0(x: Any) -> Any:
    """The modified Bessel function I0(x) = exp(|x|) i0e(x)."""
    x = _inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), _bessel_ie(0, x))


def i1(x: Any) -> Any:
    """The modified Bessel function I1(x) = exp(|x|) i1e(x)."""
    x = _inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), _bessel_ie(1, x))


# -- entropies, transforms --------------------------------------------------------------

def rel_entr(p: Any, q: Any) -> Any:
    """p log(p / q) for p, q > 0; 0 for p == 0 <= q; +inf otherwise (NaN
    arguments included, as in JAX; SciPy gives NaN there)."""
    p, q = promote_args_inexact("rel_entr", p, q)
    zero, one = _const(p, 0), _const(p, 1)
    both = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p, safe_q = _where(both, p, one), _where(both, q, one)
    value = lax.mul(safe_p, lax.log(lax.div(safe_p, safe_q)))
    return _where(both, value, _where(p_zero, zero, _const(p, np.inf)))


def kl_div(p: Any, q: Any) -> Any:
    """rel_entr(p, q) - p + q."""
    p, q = promote_args_inexact("kl_div", p, q)
    return lax.add(lax.sub(rel_entr(p, q), p), q)


def softmax(x: Any, /, *, axis: Any = None) -> Any:
    """exp(x) / sum(exp(x)) over `axis` (all axes by default); jaxc.nn.softmax."""
    from .. import nn
    return nn.softmax(x, axis=axis)


def log_softmax(x: Any, /, *, axis: Any = None) -> Any:
    """x - logsumexp(x) over `axis` (all axes by default); jaxc.nn.log_softmax."""
    from .. import nn
    return nn.log_softmax(x, axis=axis)


def _boxcox(name: str, log: Any) -> Any:
    def apply(x: Any, lmbda: Any) -> Any:
        x, lmbda = promote_args_inexact(name, x, lmbda)
        zero = lax.eq(lmbda, _const(lmbda, 0))
        safe = _where(zero, _const(lmbda, 1), lmbda)
        logged = log(x)
        power = lax.div(lax.expm1(lax.mul(safe, logged)), safe)
        return _where(zero, logged, power)
    apply.__name__ = apply.__qualname__ = name
    return apply


boxcox = _boxcox("boxcox", lax.log)
boxcox.__doc__ = "(x**lmbda - 1) / lmbda, log(x) where lmbda == 0 (NaN for x < 0)."
boxcox1p = _boxcox("boxcox1p", lax.log1p)
boxcox1p.__doc__ = "((1 + x)**lmbda - 1) / lmbda, log1p(x) where lmbda == 0 (NaN for x < -1)."


__all__ += ["betaln", "boxcox", "boxcox1p", "factorial", "gamma", "gammainc", "gammaincc", "gammasgn", "i0",
            "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma", "multigammaln", "ndtri", "poch",
            "polygamma", "rel_entr", "softmax", "zeta"]

# the exponential, trigonometric and hypergeometric families, betainc, bessel_jn, ... (they use the above)
from ._special_more import (  # noqa: E402
    bernoulli,
    bessel_jn,
    beta,
    betainc,
    comb,
    dawsn,
    erfcx,
    exp1,
    expi,
    expn,
    fresnel,
    hyp1f1,
    hyp2f1,
    owens_t,
    sici,
    spence,
)

__all__ += ["bernoulli", "bessel_jn", "beta", "betainc", "comb", "dawsn", "erfcx", "exp1", "expi", "expn",
            "fresnel", "hyp1f1", "hyp2f1", "owens_t", "sici", "spence"]

# the complex-valued ones: the Faddeeva function and the spherical harmonics
from ._special_complex import sph_harm_y, wofz  # noqa: E402

__all__ += ["sph_harm_y", "wofz"]
