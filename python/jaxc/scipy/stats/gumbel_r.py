"""`jax.scipy.stats.gumbel_r`: the right-skewed Gumbel distribution (NaN where scale <= 0)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import nn, numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-(z + exp(-z)) - log(scale), z = (x - loc) / scale."""
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, special.xlogy(-1, scale) + -(z + jnp.exp(-z)), np.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-exp(-z)."""
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp(-((x - loc) / scale)), np.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logcdf)."""
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """loc - scale log(-log(p)); NaN outside (0, 1)."""
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * jnp.log(special.xlogy(-1, p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """1 - exp(-exp(-z))."""
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, 1 - jnp.exp(-jnp.exp(neg_z)), np.nan)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log1mexp(exp(-z)) = log(1 - exp(-exp(-z)))."""
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, nn.log1mexp(jnp.exp(neg_z)), np.nan)
