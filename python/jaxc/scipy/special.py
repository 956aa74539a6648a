"""`jaxc.scipy.special`: special functions with SciPy's names and JAX's dtypes.

Integer and boolean arguments become the default float (``erf(1)`` is
float32). erf, erfinv, gammaln and digamma are single lax primitives; erfc
adds a tail formula so that it keeps its relative accuracy where
``1 - erf(x)`` would cancel; logsumexp subtracts the maximum first and
handles rows of -inf (result -inf) and +inf (result +inf).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..numpy._util import (asarray, broadcast_shapes, broadcast_to, canonicalize_axes, promote_args_inexact,
                           promote_dtypes_inexact)  # first: jaxc.numpy sets up the front end
from .. import dtypes, lax


def _inexact(name: str, x: Any) -> Any:
    return promote_dtypes_inexact(name, x)[0]


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


# -- erfc ----------------------------------------------------------------------
# Cephes' erfcf rational approximations of erfc(x) * x * exp(x**2) in 1/x**2,
# for 1 <= x < 2 and x >= 2 (relative error about 3e-8).
_ERFC_NEAR = (2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1,
              6.210004621745983e-1, -4.944515323274145e-1, 3.404879937665872e-1, -2.741127028184656e-1,
              5.638259427386472e-1)
_ERFC_FAR = (-1.047766399936249e+1, 1.297719955372516e+1, -7.495518717768503e+0, 2.921019019210786e+0,
             -1.015265279202700e+0, 4.218463358204948e-1, -2.820767439740514e-1, 5.641895067754075e-1)
# float64: 1 - erf(x) below 2 (relative error < 1e-14), the continued
# fraction erfc(x) = exp(-x**2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...)))
# above (60 terms: converged to rounding for x >= 2).
_ERFC_FRACTION_TERMS = 60


def _polynomial(x: Any, coefficients: Sequence[float]) -> Any:
    out = lax.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        out = lax.add(lax.mul(out, x), lax.full_like(x, c))
    return out


def _exp_minus_square(x: Any, fraction_bits: int) -> Any:
    """exp(-x**2) without the rounding error of x**2: x = hi + lo with hi
    short enough that hi**2 is exact."""
    scale = lax.full_like(x, 2.0 ** fraction_bits)
    hi = lax.div(lax.floor(lax.mul(x, scale)), scale)
    lo_part = lax.mul(lax.sub(x, hi), lax.add(x, hi))  # x**2 - hi**2
    return lax.mul(lax.exp(lax.neg(lax.mul(hi, hi))), lax.exp(lax.neg(lo_part)))


def _erfc_tail32(ax: Any) -> Any:
    """erfc(|x|) for |x| >= 1, float32 accuracy."""
    q = lax.div(lax.full_like(ax, 1), ax)
    y = lax.mul(q, q)
    p = lax.select(lax.lt(ax, lax.full_like(ax, 2.0)), _polynomial(y, _ERFC_NEAR), _polynomial(y, _ERFC_FAR))
    return lax.mul(lax.mul(_exp_minus_square(ax, 8), q), p)


def _erfc_tail64(ax: Any) -> Any:
    """erfc(|x|) for |x| >= 2, float64 accuracy."""
    t = ax
    for n in range(_ERFC_FRACTION_TERMS, 0, -1):
        t = lax.add(ax, lax.div(lax.full_like(ax, n / 2), t))
    return lax.div(_exp_minus_square(ax, 20), lax.mul(t, lax.full_like(t, np.sqrt(np.pi))))


def erfc(x: Any) -> Any:
    """1 - erf(x), accurate also where it is tiny (large x)."""
    x = _inexact("erfc", x)
    wide = x.dtype == dtypes.float64
    compute = lax.convert_element_type(x, dtypes.float32) if x.dtype.itemsize < 4 else x
    ax = lax.abs(compute)
    one = lax.full_like(compute, 1.0)
    threshold = lax.full_like(compute, 2.0 if wide else 1.0)
    # The tail formula on [threshold, cap] only; erfc(cap) is below the smallest subnormal.
    cap = lax.full_like(compute, 28.0 if wide else 11.0)
    tail = (_erfc_tail64 if wide else _erfc_tail32)(lax.min(lax.max(ax, threshold), cap))
    positive = lax.select(lax.lt(ax, threshold), lax.sub(one, lax.erf(ax)), tail)
    out = lax.select(lax.lt(compute, lax.full_like(compute, 0)), lax.sub(lax.full_like(compute, 2.0), positive),
                     positive)
    out = lax.select(lax.ne(compute, compute), compute, out)  # NaN in, NaN out
    return lax.convert_element_type(out, x.dtype, x.weak_type)


def ndtr(x: Any) -> Any:
    """The standard normal CDF, 0.5 * erfc(-x / sqrt(2))."""
    x = _inexact("ndtr", x)
    return lax.mul(lax.full_like(x, 0.5), erfc(lax.mul(x, lax.full_like(x, -np.sqrt(0.5)))))


# -- x * log(y) ----------------------------------------------------------------------

def _x_times_log(name: str, log: Any) -> Any:
    def apply(x: Any, y: Any) -> Any:
        x, y = promote_args_inexact(name, x, y)
        product = lax.mul(x, log(y))
        # SciPy: 0 where x == 0, whatever y is, unless y is NaN.
        zero_x = lax.bitwise_and(lax.eq(x, lax.full_like(x, 0)), lax.eq(y, y))
        return lax.select(zero_x, lax.full_like(product, 0), product)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"x * {log.__name__}(y), with 0 where x == 0 (even where y is 0)."
    return apply


xlogy = _x_times_log("xlogy", lax.log)
xlog1py = _x_times_log("xlog1py", lax.log1p)


def entr(x: Any) -> Any:
    """-x * log(x): 0 at 0, -inf for negative x, NaN for NaN."""
    x = _inexact("entr", x)
    zero = lax.full_like(x, 0)
    positive = lax.gt(x, zero)
    safe = lax.select(positive, x, lax.full_like(x, 1))
    value = lax.select(positive, lax.neg(lax.mul(safe, lax.log(safe))), zero)
    value = lax.select(lax.lt(x, zero), lax.full_like(x, -np.inf), value)
    return lax.select(lax.ne(x, x), x, value)


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
