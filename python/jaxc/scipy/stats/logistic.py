"""`jax.scipy.stats.logistic`: the logistic distribution."""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-2 logaddexp(z / 2, -z / 2) - log(scale), z = (x - loc) / scale."""
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    half_z = (x - loc) / scale / 2
    return -2 * jnp.logaddexp(half_z, -half_z) - jnp.log(scale)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """logit(x) * scale + loc."""
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return special.logit(x) * scale + loc


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """expit(-(x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return special.expit(-((x - loc) / scale))


def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-logit(x) * scale + loc."""
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return -special.logit(x) * scale + loc


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """expit((x - loc) / scale)."""
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return special.expit((x - loc) / scale)
