"""`jax.scipy.stats.chi2`: the chi-square distribution with `df` degrees of freedom."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import lax, numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """(df/2 - 1) log(y) - y/2 - lgamma(df/2) - df log(2)/2 - log(scale); -inf for x < loc."""
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    df_on_two = df / 2
    kernel = (df_on_two - 1) * jnp.log(y) - y / 2
    nrml_cnst = -(lax.lgamma(df_on_two) + np.log(2) * df / 2)
    return jnp.where(x < loc, -np.inf, nrml_cnst - jnp.log(scale) + kernel)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half_y(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
    x, df, loc, scale = promote_args_inexact(name, x, df, loc, scale)
    return df / 2, jnp.clip((x - loc) / (scale * 2), 0, np.inf)


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """gammainc(df/2, y/2), y clamped to [0, inf]."""
    return special.gammainc(*_half_y("chi2.cdf", x, df, loc, scale))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(cdf)."""
    return jnp.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """gammaincc(df/2, y/2), y clamped to [0, inf]."""
    return special.gammaincc(*_half_y("chi2.sf", x, df, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(sf)."""
    return jnp.log(sf(x, df, loc, scale))
