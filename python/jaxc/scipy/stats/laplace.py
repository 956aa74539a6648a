"""`jax.scipy.stats.laplace`: the Laplace (double exponential) distribution."""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """-|x - loc| / scale - log(2 scale)."""
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    return -(jnp.abs(x - loc) / scale + jnp.log(2 * scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(z) / 2 for z = (x - loc) / scale <= 0, else 1 - exp(-z) / 2."""
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    diff = (x - loc) / scale
    return jnp.where(diff <= 0, 0.5 * jnp.exp(diff), 1 - 0.5 * jnp.exp(-diff))
