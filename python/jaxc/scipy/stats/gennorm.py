"""`jax.scipy.stats.gennorm`: the generalized normal distribution with shape `beta`."""
from __future__ import annotations

from typing import Any

from ... import lax, numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x: Any, beta: Any) -> Any:
    """log(beta / 2) - lgamma(1 / beta) - |x|**beta."""
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - lax.lgamma(1 / beta) - jnp.power(jnp.abs(x), beta)


def cdf(x: Any, beta: Any) -> Any:
    """(1 + sign(x) igamma(1 / beta, |x|**beta)) / 2."""
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * lax.igamma(1 / beta, jnp.power(jnp.abs(x), beta)))


def pdf(x: Any, beta: Any) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, beta))
