"""`jax.scipy.stats.t`: Student's t distribution with `df` degrees of freedom."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import lax, numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """lgamma((df+1)/2) - lgamma(df/2) - log(pi df scale**2)/2 - (df+1)/2 log1p(z**2/df)."""
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    df_over_two = df / 2
    df_plus_one_over_two = df_over_two + 0.5
    normalize_term = (lax.lgamma(df_over_two) + jnp.log(scale * scale * np.pi * df) / 2
                      - lax.lgamma(df_plus_one_over_two))
    return -(normalize_term + df_plus_one_over_two * jnp.log1p(z * z / df))


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, df, loc, scale))
