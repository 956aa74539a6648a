"""`jax.scipy.stats.gamma`: the gamma distribution with shape `a`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """(a - 1) log(y) - y - gammaln(a) - log(scale), y = (x - loc) / scale; -inf for x < loc."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    y = jnp.where(ok, (x - loc) / scale, 1.0)
    log_probs = special.xlogy(a - 1, y) - y - (special.gammaln(a) + jnp.log(scale))
    return jnp.where(ok, log_probs, -np.inf)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """gammainc(a, y), y clamped to [0, inf]."""
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, jnp.clip((x - loc) / scale, 0, np.inf))


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(cdf)."""
    return jnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """gammaincc(a, y); 1 for y < 0."""
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 1.0, special.gammaincc(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(sf)."""
    return jnp.log(sf(x, a, loc, scale))
