"""Samplers that need matrix factorizations: multivariate_normal, orthogonal.

jaxc.numpy has no decompositions yet, so the three these samplers need are
written here in lax, over any leading batch dimensions, with one-hot masks
instead of dynamic slices (each loop step is a few matrix-vector products):

- `cholesky`: column by column, L[:, j] = (A[:, j] - L L[j, :]) / sqrt(...);
- `householder_qr`: the reduced Q and R of a tall matrix by Householder
  reflections;
- `symmetric_eigh`: cyclic Jacobi rotations until the off-diagonal part is
  below the dtype's epsilon, eigenvalues ascending.

Cholesky factors and sign-normalised QR factors are unique, so
`multivariate_normal(method="cholesky")` and `orthogonal` give JAX's numbers
(to rounding). Eigenvectors are unique only up to sign: with
method="eigh"/"svd" the samples have the right distribution, and equal JAX's
only where LAPACK's signs are ours (e.g. a diagonal covariance).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from .. import numpy as jnp
from ..api import jit
from ._keys import canonical_shape, check_key
from ._uniform import check_shape, float_dtype, normal_body

__all__ = ["multivariate_normal", "orthogonal"]


def _unit(n: int, j: Any, dtype: Any) -> Any:
    """The one-hot vector e_j of length n."""
    return (jnp.arange(n) == j).astype(dtype)


def _matvec(a: Any, v: Any) -> Any:
    return jnp.einsum("...ij,...j->...i", a, v)


def _vecmat(v: Any, a: Any) -> Any:
    return jnp.einsum("...i,...ij->...j", v, a)


def _outer(u: Any, v: Any) -> Any:
    return u[..., :, None] * v[..., None, :]


def cholesky(a: Any) -> Any:
    """The lower factor L of a = L Lᵀ (NaN where a is not positive definite)."""
    n = a.shape[-1]
    index = jnp.arange(n)

    def column(j, lower):
        e = _unit(n, j, a.dtype)
        v = _matvec(a, e) - _matvec(lower, _vecmat(e, lower))   # a[:, j] - L L[j, :]
        d = jnp.sqrt(jnp.sum(v * e, axis=-1, keepdims=True))      # sqrt(v[j])
        col = jnp.where(index > j, v / d, jnp.where(index == j, d, jnp.zeros_like(v)))
        return lower + _outer(col, e)
    return lax.fori_loop(0, n, column, jnp.zeros_like(a))


def householder_qr(z: Any) -> tuple[Any, Any]:
    """(Q, diag R) of the reduced QR of z (..., m, n), m >= n."""
    m, n = z.shape[-2:]
    rows = jnp.arange(m)
    eye = jnp.broadcast_to(jnp.eye(m, dtype=z.dtype), (*z.shape[:-2], m, m))

    def reflect(j, carry):
        r, q = carry
        x = jnp.where(rows >= j, _matvec(r, _unit(n, j, z.dtype)), jnp.zeros((), z.dtype))
        ej = _unit(m, j, z.dtype)
        alpha = jnp.sum(x * ej, axis=-1, keepdims=True)
        norm = jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True))
        beta = jnp.where(alpha >= 0, -norm, norm)
        v = x - beta * ej                                          # H = I - 2 v vᵀ / vᵀv
        vv = jnp.sum(v * v, axis=-1, keepdims=True)
        tau = jnp.where(vv > 0, 2 / jnp.where(vv > 0, vv, jnp.ones_like(vv)), jnp.zeros_like(vv))
        r = r - _outer(tau * v, _vecmat(v, r))
        q = q - _outer(_matvec(q, v) * tau, v)
        return r, q
    r, q = lax.fori_loop(0, n, reflect, (z, eye))
    return q[..., :, :n], jnp.diagonal(r, axis1=-2, axis2=-1)


def symmetric_eigh(a: Any) -> tuple[Any, Any]:
    """(eigenvalues ascending, eigenvectors as columns) of symmetric a, by
    cyclic Jacobi sweeps."""
    n = a.shape[-1]
    dtype = a.dtype
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    if not pairs:
        return jnp.diagonal(a, axis1=-2, axis2=-1), jnp.ones_like(a)
    unit_p = jnp.asarray(np.eye(n, dtype=dtype)[[p for p, _ in pairs]])
    unit_q = jnp.asarray(np.eye(n, dtype=dtype)[[q for _, q in pairs]])
    eps = float(dtypes.finfo(dtype).eps)

    def rotate(k, carry):
        # A <- Jᵀ A J, V <- V J with J = I + a1 e_pᵀ + a2 e_qᵀ zeroing A[p, q]
        m, v = carry
        ep = lax.dynamic_index_in_dim(unit_p, k, keepdims=False)
        eq = lax.dynamic_index_in_dim(unit_q, k, keepdims=False)
        app = jnp.sum(_vecmat(ep, m) * ep, -1, keepdims=True)
        aqq = jnp.sum(_vecmat(eq, m) * eq, -1, keepdims=True)
        apq = jnp.sum(_vecmat(ep, m) * eq, -1, keepdims=True)
        rotating = apq != 0
        theta = (aqq - app) / (2 * jnp.where(rotating, apq, jnp.ones_like(apq)))
        t = jnp.sign(theta) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1))
        t = jnp.where(theta == 0, jnp.ones_like(t), t)
        c = jnp.where(rotating, 1 / jnp.sqrt(t * t + 1), jnp.ones_like(t))
        s = jnp.where(rotating, t * c, jnp.zeros_like(t))
        a1 = (c - 1) * ep - s * eq
        a2 = s * ep + (c - 1) * eq
        mj = m + _outer(_matvec(m, a1), ep) + _outer(_matvec(m, a2), eq)
        m = mj + _outer(ep, _vecmat(a1, mj)) + _outer(eq, _vecmat(a2, mj))
        v = v + _outer(_matvec(v, a1), ep) + _outer(_matvec(v, a2), eq)
        return m, v

    def off_diagonal_large(carry):
        m, _, sweeps = carry
        off = jnp.sum(m * m) - jnp.sum(jnp.diagonal(m, axis1=-2, axis2=-1) ** 2)
        return (off > (eps * eps) * jnp.sum(m * m)) & (sweeps < 30)

    def sweep(carry):
        m, v, sweeps = carry
        m, v = lax.fori_loop(0, len(pairs), rotate, (m, v))
        return m, v, sweeps + 1

    eye = jnp.broadcast_to(jnp.eye(n, dtype=dtype), a.shape)
    m, v, _ = lax.while_loop(off_diagonal_large, sweep, (a, eye, jnp.int32(0)))
    w = jnp.diagonal(m, axis1=-2, axis2=-1)
    order = jnp.argsort(w, axis=-1)
    return (jnp.take_along_axis(w, order, axis=-1),
            jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1))


# ---------------------------------------------------------------------------
# multivariate_normal
# ---------------------------------------------------------------------------

def _factor(cov: Any, method: str) -> Any:
    """F with F Fᵀ = cov, as JAX builds it for each method."""
    if method == "cholesky":
        return cholesky(cov)
    w, v = symmetric_eigh(cov)
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
    q, r_diagonal = householder_qr(z)
    x = q * jnp.sign(r_diagonal)[..., None, :]
    return jnp.swapaxes(x, -1, -2) if n < m else x


def orthogonal(key: Any, n: int, shape: Any = (), dtype: Any = None, m: int | None = None, *,
               out_sharding: Any = None) -> Any:
    """A uniformly random (semi-)orthogonal n×m matrix (m defaults to n)."""
    shape = canonical_shape(shape, "orthogonal")
    data, _ = check_key("orthogonal", key)
    dtype = float_dtype(dtype, "orthogonal", np.inexact, "a float or complex")
    n = _static_int(n, "n")
    m = n if m is None else _static_int(m, "m")
    return _orthogonal(data, n, m, shape, dtype)


def _static_int(value: Any, name: str) -> int:
    if isinstance(value, core.Tracer):
        raise core.ConcretizationTypeError(value, f"jax.random.orthogonal's argument {name}")
    return operator.index(value)
