"""`jax.scipy.stats.beta`: the beta distribution with shapes `a`, `b`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import betainc, promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-betaln(a, b) + (a-1) log(y) + (b-1) log1p(-y) - log(scale); -inf outside
    [loc, loc + scale]; NaN where a, b or scale is <= 0."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_linear_term = special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y)
    log_probs = -special.betaln(a, b) + log_linear_term - jnp.log(scale)
    result = jnp.where((x > loc + scale) | (x < loc), -np.inf, log_probs)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, result)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """betainc(a, b, y), y = (x - loc) / scale clamped to [0, 1]."""
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, jnp.clip((x - loc) / scale, 0, 1))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(cdf)."""
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """betainc(b, a, 1 - y), y clamped to [0, 1]."""
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - jnp.clip((x - loc) / scale, 0, 1))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(sf)."""
    return jnp.log(sf(x, a, b, loc, scale))
