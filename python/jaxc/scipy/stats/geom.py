"""`jax.scipy.stats.geom`: the geometric distribution (trials up to the first success)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """xlog1py(x - 1, -p) + log(p), x = k - loc; -inf for x <= 0."""
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    return jnp.where(x <= 0, -np.inf, special.xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """exp(logpmf)."""
    return jnp.exp(logpmf(k, p, loc))
