"""JAX's special-function primitives that jaxc builds from other ops:
`betainc` (the regularized incomplete beta function), `bessel_i0e`,
`bessel_i1e`, `igamma_grad_a` (d/da of the regularized lower incomplete
gamma function) and `random_gamma_grad` (the reparameterization derivative
of a Gamma(a) sample). As JAX's lax versions they take floating operands of
one dtype (no integer promotion); float16 and bfloat16 are computed in
float32. The programs are those of jaxc.scipy.special (betainc, i0e, i1e)
and of jaxc.random.gamma's derivative."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _ops as L
from ._more import _floating

__all__ = ["betainc", "bessel_i0e", "bessel_i1e", "igamma_grad_a", "random_gamma_grad"]


def _widened(xs: list[Any]) -> tuple[list[Any], Any]:
    dtype = xs[0].dtype
    if dtype.itemsize >= 4:
        return xs, lambda out: out
    return [L.convert_element_type(x, np.float32) for x in xs], lambda out: L.convert_element_type(out, dtype)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b) (NaN outside a, b
    >= 0, 0 <= x <= 1); see jaxc.scipy.special.betainc."""
    from ..scipy._special_more import _betainc_impl
    (a, b, x), finish = _widened(_floating("regularized_incomplete_beta", a, b, x))
    return finish(_betainc_impl(a, b, x))


def bessel_i0e(x: Any) -> Any:
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0."""
    from ..scipy.special import i0e
    (x,), finish = _widened(_floating("bessel_i0e", x))
    return finish(i0e(x))


def bessel_i1e(x: Any) -> Any:
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1."""
    from ..scipy.special import i1e
    (x,), finish = _widened(_floating("bessel_i1e", x))
    return finish(i1e(x))


def random_gamma_grad(a: Any, x: Any) -> Any:
    """d x / d a for x distributed as Gamma(a, 1) at a fixed value of its CDF
    P(a, x): -(dP/da) / (dP/dx), by the series / continued fraction of P
    differentiated in a (NaN for a <= 0 or x < 0, 0 at x == 0)."""
    from ..random._gamma import _random_gamma_grad
    a, x = _floating("random_gamma_grad", a, x)
    return _random_gamma_grad(a, x)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """d/da of the regularized lower incomplete gamma function P(a, x):
    -random_gamma_grad(a, x) times the density x**(a-1) exp(-x) / Gamma(a)
    (0 at x == 0 and x == inf, NaN for a <= 0 or x < 0)."""
    from ..random._gamma import _random_gamma_grad
    (a, x), finish = _widened(_floating("igamma_grad_a", a, x))
    zero = L.full_like(x, 0)
    positive = L.bitwise_and(L.gt(x, zero), L.lt(x, L.full_like(x, np.inf)))
    safe_x = L.select(positive, x, L.full_like(x, 1))
    log_density = L.sub(L.sub(L.mul(L.sub(a, L.full_like(a, 1)), L.log(safe_x)), safe_x), L.lgamma(a))
    out = L.neg(L.mul(_random_gamma_grad(a, safe_x), L.exp(log_density)))
    out = L.select(positive, out, zero)
    invalid = L.bitwise_or(L.bitwise_or(L.le(a, L.full_like(a, 0)), L.lt(x, zero)),
                           L.bitwise_or(L.ne(a, a), L.ne(x, x)))
    return finish(L.select(invalid, L.full_like(x, np.nan), out))
