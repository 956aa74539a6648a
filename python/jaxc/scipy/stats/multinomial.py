"""`jax.scipy.stats.multinomial`: the multinomial distribution (categories on the last axis)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact, promote_dtypes

__all__ = ["logpmf", "pmf"]


def logpmf(x: Any, n: Any, p: Any) -> Any:
    """gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1), axis=-1) where the counts
    sum to n (JAX sums all of x), -inf elsewhere. x and n must be integers."""
    p, = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_dtypes("multinomial.logpmf", x, n)
    if x.ndim and n.ndim and x.ndim != n.ndim:   # JAX's rank promotion (a scalar stays one)
        rank = max(x.ndim, n.ndim)
        x, n = (jnp.reshape(v, (1,) * (rank - v.ndim) + v.shape) for v in (x, n))
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    logprobs = special.gammaln(n + 1) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1), axis=-1)
    return jnp.where(jnp.sum(x) == n, logprobs, -np.inf)


def pmf(x: Any, n: Any, p: Any) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(x, n, p))
