"""`jax.scipy.stats.gumbel_l`: the left-skewed Gumbel distribution (NaN where scale <= 0)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """z - exp(z) - log(scale), z = (x - loc) / scale."""
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, special.xlogy(-1, scale) + (z - jnp.exp(z)), np.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(-expm1(-exp(z)))."""
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), np.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logcdf)."""
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """loc + scale log(-log1p(-p)); NaN outside (0, 1)."""
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * jnp.log(special.xlog1py(-1, -p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logsf)."""
    return jnp.exp(logsf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-exp(z)."""
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp((x - loc) / scale), np.nan)
