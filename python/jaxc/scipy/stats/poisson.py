"""`jax.scipy.stats.poisson`: the Poisson distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ...api import jit
from .. import special
from ._util import promote_args_inexact, promote_dtypes_inexact

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """xlogy(x, mu) - gammaln(x + 1) - mu, x = k - loc; -inf for x < 0 or a non-integer k."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return jnp.where((x < 0) | (jnp.round(k) != k), -np.inf, log_probs)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """gammaincc(floor(1 + x), mu); 0 for x < 0."""
    k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
    x = k - loc
    return jnp.where(x < 0, 0.0, special.gammaincc(jnp.floor(1 + x), mu))


def _entropy_sum(mu: Any, max_k: int, upper_bounds: Any) -> Any:
    """-sum p log p over k < upper_bounds (at most max_k terms)."""
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = jnp.where(k < upper_bounds[None, :], pmf(k, mu, 0), 0.0)
    return jnp.sum(special.entr(probs), axis=0)


@jit
def entropy(mu: Any, loc: Any = 0) -> Any:
    """The entropy: 0 at mu == 0, a direct sum of -p log p below mu = 100 (35 terms
    below 10, 250 below 100), the asymptotic series log(2 pi e mu)/2 - 1/(12 mu) above."""
    mu, loc = promote_dtypes_inexact("poisson.entropy", mu, loc)
    result_shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    small = _entropy_sum(flat, 35, jnp.ceil(flat + 20))
    medium = _entropy_sum(flat, 250, jnp.ceil(flat + 10 * jnp.sqrt(flat) + 20))
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    result = jnp.where(flat == 0, 0.0, jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(result, mu.shape), result_shape)
