"""`jax.scipy.stats.uniform`: the uniform distribution on [loc, loc + scale]."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-log(scale) on [loc, loc + scale], -inf outside."""
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    return jnp.where((x > loc + scale) | (x < loc), -np.inf, -jnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """0 below loc, 1 above loc + scale, (x - loc) / scale between (0 where NaN)."""
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    return jnp.select([x < loc, x > loc + scale, inside], [jnp.zeros_like(x), jnp.ones_like(x), (x - loc) / scale])


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """loc + scale * q; NaN for q outside [0, 1]."""
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)
