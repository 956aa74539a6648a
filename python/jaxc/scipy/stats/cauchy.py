"""`jax.scipy.stats.cauchy`: the Cauchy distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-log(pi scale) - log1p(z**2), z = (x - loc) / scale."""
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -(jnp.log(np.pi * scale) + jnp.log1p(z * z))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """1/2 + arctan(z) / pi."""
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    return 0.5 + (1 / np.pi) * jnp.arctan((x - loc) / scale)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(cdf)."""
    return jnp.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """cdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """logcdf(-x, -loc, scale)."""
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """tan(pi/2 - pi q) * scale + loc."""
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    return jnp.tan(np.pi / 2 - np.pi * q) * scale + loc


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """tan(pi q - pi/2) * scale + loc."""
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    return jnp.tan(np.pi * q - np.pi / 2) * scale + loc
