"""`jax.scipy.stats.norm`: the normal distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log N(x; loc, scale**2)."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = scale * scale
    return (jnp.log(2 * np.pi * scale_sqrd) + (x - loc) * (x - loc) / scale_sqrd) / -2


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """ndtr((x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return special.ndtr((x - loc) / scale)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log_ndtr((x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """cdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """logcdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """ndtri(q) * scale + loc, in the default float dtype (as JAX)."""
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """ppf(1 - q)."""
    return ppf(1 - jnp.asarray(q), loc, scale)
