"""`jax.scipy.stats.dirichlet`: the Dirichlet distribution (categories on axis 0)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def _is_simplex(x: Any) -> Any:
    return jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < 1e-6)


def logpdf(x: Any, alpha: Any) -> Any:
    """sum((alpha - 1) log x) - (sum(gammaln(alpha)) - gammaln(sum(alpha))) on the
    simplex (x > 0, summing to 1 within 1e-6 along axis 0), -inf off it. x may
    leave out the last category (one entry fewer than alpha along axis 0)."""
    x, alpha = promote_dtypes_inexact("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.ndim == 0 or x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one entry fewer; "
                         f"got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    normalize_term = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
    alpha = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalize_term
    return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x: Any, alpha: Any) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, alpha))
