"""Helpers shared by the distributions: argument promotion, the regularized
incomplete beta function (jaxc.scipy.special has no betainc) and forward
substitution (jaxc has no triangular solver)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import lax, numpy as jnp
from ...numpy._util import promote_args_inexact, promote_dtypes, promote_dtypes_inexact  # noqa: F401

__all__ = ["promote_args_inexact", "promote_dtypes", "promote_dtypes_inexact", "betainc", "solve_lower"]


def betainc(a: Any, b: Any, x: Any) -> Any:
    """I_x(a, b), XLA's algorithm (as JAX's lax.betainc): the continued
    fraction of DLMF 8.17.22 by Lentz's method, on the side of the symmetry
    I_x(a, b) = 1 - I_{1-x}(b, a) where it converges fast. XLA stops once every
    element has converged (at most 200 steps in float32, 600 in float64); this
    takes all of them in a fori_loop (a scan), so that reverse-mode autodiff
    goes through it: the derivatives are those of the fraction (JAX has the
    closed form for x only, and refuses a and b)."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    finfo = np.finfo(x.dtype)
    small = float(finfo.eps / 2)
    steps = 200 if x.dtype == np.float32 else 600
    inf = np.inf
    a_zero = (a == 0) | (b == inf)
    b_zero = (b == 0) | (a == inf)
    is_zero = (b_zero & (x != 1)) | (a_zero & (x == 0))
    is_one = (a_zero & (x != 0)) | (b_zero & (x == 1))
    is_nan = ((a < 0) | (b < 0) | (x < 0) | (x > 1) | (a_zero & b_zero)
              | jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(x))

    rapid = x < (a + 1) / (a + b + 2)
    a, b, x = jnp.where(rapid, a, b), jnp.where(rapid, b, a), jnp.where(rapid, x, 1 - x)

    def numerator(i: Any) -> Any:
        m = ((i - 1) // 2).astype(x.dtype)
        even = jnp.where(m == 0, -(a + b) * x / (a + 1),
                         -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)))
        odd = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        return jnp.where(i == 1, jnp.ones_like(x), jnp.where(i % 2 == 0, even, odd))

    def step(i: Any, carry: Any) -> Any:
        c, d, h = carry
        p = numerator(i)
        c = 1 + p / c
        c = jnp.where(jnp.abs(c) < small, small, c)
        d = 1 + p * d
        d = 1 / jnp.where(jnp.abs(d) < small, small, d)
        return c, d, h * (c * d)

    h0 = jnp.full_like(x, small)   # the 0th partial denominator is 0, below `small`
    fraction = lax.fori_loop(1, steps, step, (h0, jnp.zeros_like(x), h0))[2]

    lbeta_small_a = lax.lgamma(b) - lax.lgamma(a + b)
    factor = jnp.where(a < float(finfo.tiny * 2),
                       jnp.exp(jnp.log1p(-x) * b - lbeta_small_a),
                       jnp.exp(jnp.log(x) * a + jnp.log1p(-x) * b - lax.lgamma(a) - lbeta_small_a) / a)
    result = fraction * factor
    result = jnp.where(rapid, result, 1 - result)
    result = jnp.where(is_zero, 0.0, result)
    result = jnp.where(is_one, 1.0, result)
    return jnp.where(is_nan, np.nan, result)


def solve_lower(lower: Any, r: Any) -> Any:
    """y with lower @ y = r for a lower-triangular (..., n, n) `lower` and
    (..., n) `r` (batch dimensions broadcast), by forward substitution."""
    shape = jnp.broadcast_shapes(lower.shape[:-1], r.shape)
    lower = jnp.broadcast_to(lower, (*shape, lower.shape[-1]))
    column = jnp.broadcast_to(r.astype(lower.dtype), shape)[..., None]
    return lax.linalg.triangular_solve(lower, column, left_side=True, lower=True)[..., 0].astype(r.dtype)
