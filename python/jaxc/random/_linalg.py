"""Samplers that need matrix factorizations: multivariate_normal, orthogonal.

The factorizations are `jaxc.lax.linalg`'s: Cholesky factors and
sign-normalised QR factors are unique, so `multivariate_normal(method=
"cholesky")` and `orthogonal` give JAX's numbers (to rounding).
Eigenvectors are unique only up to sign: with method="eigh"/"svd" the
samples have the right distribution, and equal JAX's only where LAPACK's
signs are ours (e.g. a diagonal covariance).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import core, dtypes, numpy as jnp
from ..api import jit
from ..lax import linalg
from ._keys import canonical_shape, check_key
from ._uniform import check_shape, float_dtype, normal_body

__all__ = ["multivariate_normal", "orthogonal"]


# ---------------------------------------------------------------------------
# multivariate_normal
# ---------------------------------------------------------------------------

def _factor(cov: Any, method: str) -> Any:
    """F with F Fᵀ = cov, as JAX builds it for each method."""
    if method == "cholesky":
        return linalg.cholesky(cov)
    v, w = linalg.eigh(cov)
    if method == "svd":  # the SVD of a symmetric PSD matrix: singular values descending
        w, v = w[..., ::-1], v[..., :, ::-1]
    return v * jnp.sqrt(w[..., None, :])


@jit(static_argnums=(3, 4, 5))
def _multivariate_normal(data, mean, cov, shape, dtype, method):
    z = normal_body(data, (*shape, mean.shape[-1]), dtype)
    return mean + jnp.einsum("...ij,...j->...i", _factor(cov, method), z)


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Any = None, dtype: Any = None,
                        method: str = "cholesky", *, out_sharding: Any = None) -> Any:
    """Normal vectors with the given mean (..., n) and covariance (..., n, n)."""
    data, _ = check_key("multivariate_normal", key)
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    common = dtypes.to_inexact(jnp.result_type(mean, cov))
    mean, cov = mean.astype(common), cov.astype(common)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else float_dtype(dtype, "multivariate_normal")
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {cov.shape}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        shape = canonical_shape(shape, "multivariate_normal")
        check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    return _multivariate_normal(data, mean, cov, shape, dtype, method)


# ---------------------------------------------------------------------------
# orthogonal
# ---------------------------------------------------------------------------

@jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(data, n, m, shape, dtype):
    z = normal_body(data, (*shape, max(n, m), min(n, m)), dtype)
    q, r = linalg.qr(z, full_matrices=False)
    x = q * jnp.sign(jnp.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return jnp.swapaxes(x, -1, -2) if n < m else x


def orthogonal(key: Any, n: int, shape: Any = (), dtype: Any = None, m: int | None = None, *,
               out_sharding: Any = None) -> Any:
    """A uniformly random (semi-)orthogonal n×m matrix (m defaults to n)."""
    shape = canonical_shape(shape, "orthogonal")
    data, _ = check_key("orthogonal", key)
    dtype = float_dtype(dtype, "orthogonal", np.inexact, "a float or complex")
    if np.issubdtype(dtype, np.complexfloating):
        raise NotImplementedError(f"random.orthogonal: dtype {dtype} needs a complex QR decomposition, "
                                  "which jaxc does not have yet")
    n = _static_int(n, "n")
    m = n if m is None else _static_int(m, "m")
    return _orthogonal(data, n, m, shape, dtype)


def _static_int(value: Any, name: str) -> int:
    if isinstance(value, core.Tracer):
        raise core.ConcretizationTypeError(value, f"jax.random.orthogonal's argument {name}")
    return operator.index(value)
