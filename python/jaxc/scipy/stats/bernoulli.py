"""`jax.scipy.stats.bernoulli`: the Bernoulli distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """xlogy(k, p) + xlog1py(1 - k, -p) for k - loc in [0, 1], -inf outside."""
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = special.xlogy(x, p) + special.xlog1py(1 - x, -p)
    return jnp.where((x < 0) | (x > 1), -np.inf, log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, p, loc))


def _bad_p(p: Any) -> Any:
    return jnp.isnan(p) | (p < 0) | (p > 1)


def cdf(k: Any, p: Any) -> Any:
    """0 for k < 0, 1 - p for 0 <= k < 1, 1 for k >= 1; NaN for a NaN or p outside [0, 1]."""
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    conditions = [jnp.isnan(k) | _bad_p(p), k < 0, (k >= 0) & (k < 1), k >= 1]
    values = [jnp.full_like(k, np.nan), jnp.zeros_like(k), 1 - p, jnp.ones_like(k)]
    return jnp.select(conditions, values)


def ppf(q: Any, p: Any) -> Any:
    """0 for q <= 1 - p, else 1; NaN for a NaN, or p or q outside [0, 1]."""
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    bad = jnp.isnan(q) | _bad_p(p) | (q < 0) | (q > 1)
    return jnp.where(bad, np.nan, jnp.where(q <= 1 - p, 0.0, 1.0))
