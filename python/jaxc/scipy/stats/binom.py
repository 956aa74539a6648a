"""`jax.scipy.stats.binom`: the binomial distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """log C(n, y) + xlogy(y, p) + xlog1py(n - y, -p), y = k - loc; -inf outside
    [loc, loc + n] (k need not be an integer: the gamma-function extension)."""
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = special.gammaln(n + 1) - (special.gammaln(y + 1) + special.gammaln(n - y + 1))
    log_linear_term = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    log_probs = comb_term + log_linear_term
    log_probs = jnp.where(((y == 0) & (n == 0)) | (log_linear_term == 0), 0.0, log_probs)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, n, p, loc))
