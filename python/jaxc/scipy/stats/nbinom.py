"""`jax.scipy.stats.nbinom`: the negative binomial distribution."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """gammaln(y + n) - gammaln(n) - gammaln(y + 1) + xlogy(n, p) + xlogy(y, 1 - p),
    y = k - loc; -inf for k < loc."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1)
    log_linear_term = special.xlogy(n, p) + special.xlogy(y, 1 - p)
    return jnp.where(k < loc, -np.inf, comb_term + log_linear_term)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, n, p, loc))
