"""`jax.scipy.stats.wrapcauchy`: the wrapped Cauchy distribution on [0, 2 pi]."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, c: Any) -> Any:
    """log(1 - c**2) - log(2 pi) - log(1 + c**2 - 2 c cos(x)) on [0, 2 pi], -inf
    outside; NaN unless 0 < c < 1."""
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    value = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    inside = jnp.where((x >= 0) & (x <= np.pi * 2), value, -np.inf)
    return jnp.where((c > 0) & (c < 1), inside, np.nan)


def pdf(x: Any, c: Any) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, c))
