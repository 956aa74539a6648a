"""`jax.scipy.stats.expon`: the exponential distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-(x - loc) / scale - log(scale) for x >= loc, -inf below."""
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    return jnp.where(x < loc, -np.inf, -((x - loc) / scale + jnp.log(scale)))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-expm1(-(x - loc) / scale), 0 below loc."""
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_scaled_x), -jnp.expm1(neg_scaled_x))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log1p(-sf)."""
    return jnp.log1p(-sf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-(x - loc) / scale, 0 below loc."""
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logsf)."""
    return jnp.exp(logsf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """loc - scale * log1p(-q); NaN for q outside [0, 1]."""
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * jnp.log1p(-q))
