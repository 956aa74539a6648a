"""The special functions that the others build on: erfc (with its tail
formulas) and gamma's sign and value, shared by `jaxc.scipy.special` (which
exports them) and its `_special_more` families::

    erfc(x) = 1 - erf(x), from a tail formula where that would cancel
    gamma(x) = gammasgn(x) * exp(gammaln(x))
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes, lax
from ..numpy._util import promote_dtypes_inexact  # first: jaxc.numpy sets up the front end


def _inexact(name: str, x: Any) -> Any:
    return promote_dtypes_inexact(name, x)[0]


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


def _const(like: Any, value: float) -> Any:
    return lax.full_like(like, value)


def _where(condition: Any, a: Any, b: Any) -> Any:
    return lax.select(condition, a, b)


def gammasgn(x: Any) -> Any:
    """The sign of Gamma(x): -1 on (-2k-1, -2k) and at -0, NaN at the
    negative integers, -inf and NaN, else +1."""
    x = _inexact("gammasgn", x)
    zero, one = _const(x, 0), _const(x, 1)
    floor_x = lax.floor(x)
    negative = lax.lt(x, zero)
    odd_floor = lax.ne(lax.rem(floor_x, _const(x, 2)), zero)
    minus_zero = lax.bitwise_and(lax.eq(x, zero), lax.lt(lax.div(one, x), zero))
    out = _where(lax.bitwise_or(lax.bitwise_and(negative, odd_floor), minus_zero), lax.neg(one), one)
    nan = lax.bitwise_or(lax.bitwise_and(negative, lax.eq(x, floor_x)), lax.ne(x, x))
    return _where(nan, _const(x, np.nan), out)


def gamma(x: Any) -> Any:
    """Gamma(x) for real x: gammasgn(x) * exp(gammaln(x)) (NaN at the poles
    x = -1, -2, ..., +-inf at +-0)."""
    x = _inexact("gamma", x)
    return lax.mul(gammasgn(x), lax.exp(lax.lgamma(x)))
