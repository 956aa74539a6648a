"""`jax.scipy.stats.pareto`: the Pareto distribution with shape `b`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(b / scale) - (b + 1) log(z), z = (x - loc) / scale; -inf for x < loc + scale."""
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    log_probs = -(jnp.log(scale / b) + (b + 1) * jnp.log((x - loc) / scale))
    return jnp.where(x < loc + scale, -np.inf, log_probs)


def pdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """1 - z**-b; 0 for x < loc + scale."""
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    value = 1 - jnp.power((x - loc) / scale, -b)
    return jnp.where(x < loc + scale, 0.0, value)


def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log1p(-z**-b); -inf for x < loc + scale."""
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    value = jnp.log1p(-jnp.power((x - loc) / scale, -b))
    return jnp.where(x < loc + scale, -np.inf, value)


def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-b log(z); 0 for x < loc + scale."""
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    value = -(b * jnp.log((x - loc) / scale))
    return jnp.where(x < loc + scale, 0.0, value)


def sf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logsf)."""
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """loc + scale (1 - q)**(-1/b); NaN for q outside [0, 1]."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    value = loc + scale * jnp.power(1 - q, -(1 / b))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
