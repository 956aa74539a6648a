"""`jax.scipy.stats.betabinom`: the beta-binomial distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ...api import jit
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


@jit
def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """-log1p(n) - betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b) - betaln(a, b),
    y = floor(k) - loc; -inf outside [-loc, n]; NaN for n < 0, a <= 0 or b <= 0."""
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k) - loc
    combiln = -(jnp.log1p(n) + special.betaln(n - y + 1, y + 1))
    beta_lns = special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), 0.0, combiln + beta_lns)
    log_probs = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def pmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, n, a, b, loc))
