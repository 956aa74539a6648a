"""`jax.scipy.stats.multivariate_normal`: the multivariate normal distribution.

The covariance is factored by lax.linalg.cholesky and the quadratic form
solved by forward substitution; a covariance that is not positive definite
gives NaN."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ...lax.linalg import cholesky
from ._util import promote_dtypes_inexact, solve_lower

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    """log N(x; mean, cov); x and mean on the last axis; cov a scalar (times the
    identity) or (..., n, n). A scalar mean is the univariate case."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact("multivariate_normal.logpdf", x, mean, cov)
    if not mean.shape:
        return -1 / 2 * jnp.square(x - mean) / cov - 1 / 2 * (np.log(2 * np.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -1 / 2 * jnp.sum(y * y, axis=-1) / cov - n / 2 * (np.log(2 * np.pi) + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    lower = cholesky(cov)
    y = solve_lower(lower, x - mean)
    log_det = jnp.sum(jnp.log(jnp.diagonal(lower, axis1=-1, axis2=-2)), axis=-1)
    return -1 / 2 * jnp.sum(y * y, axis=-1) - n / 2 * np.log(2 * np.pi) - log_det


def pdf(x: Any, mean: Any, cov: Any) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, mean, cov))
