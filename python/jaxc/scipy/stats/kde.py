"""`jax.scipy.stats.gaussian_kde`: kernel density estimation with Gaussian kernels.

A pytree (its arrays are the leaves), as JAX's. The covariance's inverse and
the Cholesky factors come from lax.linalg.cholesky and forward substitution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import numpy as jnp, random
from ...lax.linalg import cholesky
from ...numpy._util import check_arraylike
from ...tree_util import register_pytree_node_class
from .. import special
from ._util import promote_dtypes_inexact, solve_lower

__all__ = ["gaussian_kde"]


def _spd_inverse(a: Any) -> tuple[Any, Any]:
    """The inverse of a symmetric positive definite matrix, and its lower Cholesky factor."""
    lower = cholesky(a)
    r = solve_lower(lower, jnp.eye(a.shape[-1], dtype=a.dtype))   # row i: lower^-1 e_i, so r = lower^-T
    return r @ r.T, lower


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """The density sum_i w_i N(x; dataset[:, i], covariance) of a (d, n) dataset;
    the bandwidth by Scott's or Silverman's rule, a scalar factor or a callable."""
    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact("gaussian_kde", dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = promote_dtypes_inexact("gaussian_kde", dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._setattr("dataset", dataset)
        self._setattr("weights", weights)
        neff = self._setattr("neff", 1 / jnp.sum(weights ** 2))
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=True, bias=False, aweights=weights))
        data_inv_cov, _ = _spd_inverse(data_covariance)
        self._setattr("covariance", data_covariance * factor ** 2)
        self._setattr("inv_cov", data_inv_cov / factor ** 2)

    def _setattr(self, name: str, value: Any) -> Any:
        object.__setattr__(self, name, value)
        return value

    def tree_flatten(self) -> tuple[tuple, None]:
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: Any, children: Any) -> "gaussian_kde":
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children):
            kde._setattr(name, value)
        return kde

    @property
    def d(self) -> int:
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        return self.dataset.shape[1]

    def evaluate(self, points: Any) -> Any:
        """The density at (d, m) points (or m points of a 1-d dataset)."""
        check_arraylike("evaluate", points)
        return _kernel_eval(False, self.dataset.T, self.weights, self._reshape_points(points).T, self.inv_cov)

    def __call__(self, points: Any) -> Any:
        return self.evaluate(points)

    def pdf(self, x: Any) -> Any:
        """evaluate(x)."""
        return self.evaluate(x)

    def logpdf(self, x: Any) -> Any:
        """The log density (a logsumexp over the kernels)."""
        check_arraylike("logpdf", x)
        return _kernel_eval(True, self.dataset.T, self.weights, self._reshape_points(x).T, self.inv_cov)

    def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
        """The integral of the density times N(mean, cov)."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        return _kernel_convolve(self.covariance + cov, self.dataset, self.weights, mean[:, None])[0]

    def integrate_box_1d(self, low: Any, high: Any) -> Any:
        """The probability mass in [low, high] of a 1-d density."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other: "gaussian_kde") -> Any:
        """The integral of the product of two densities."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        sm, lg = (self, other) if self.n < other.n else (other, self)
        result = _kernel_convolve(self.covariance + other.covariance, lg.dataset, lg.weights, sm.dataset)
        return jnp.sum(result * sm.weights)

    def resample(self, key: Any, shape: Any = ()) -> Any:
        """(d, *shape) samples: a data point chosen by weight plus N(0, covariance) noise."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype), self.covariance,
                                         shape=shape, dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: Any = None) -> Any:
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points: Any) -> Any:
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = jnp.reshape(points, (self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _kernel_convolve(cov: Any, target: Any, weights: Any, means: Any) -> Any:
    """sum_i w_i N(target[:, i]; means[:, j], cov) for each column j of (d, k) `means`."""
    inv, lower = _spd_inverse(cov)
    norm = 1.0 / (jnp.sqrt(2 * np.pi) ** target.shape[0] * jnp.prod(jnp.diagonal(lower)))
    diff = target[:, :, None] - means[:, None, :]                                  # (d, n, k)
    arg = 0.5 * jnp.sum(diff * jnp.einsum("ij,jnk->ink", inv, diff), axis=0)       # (n, k)
    return norm * jnp.sum(jnp.exp(-arg) * weights[:, None], axis=0)


def _kernel_eval(in_log: bool, points: Any, weights: Any, xi: Any, precision: Any) -> Any:
    """sum_i w_i exp(-|W (x - points_i)|**2 / 2) |W| / sqrt(2 pi)**d at each row of
    xi, W W^T = precision (its log by logsumexp when `in_log`)."""
    points, weights, xi, precision = promote_dtypes_inexact("gaussian_kde", points, weights, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    whitening = cholesky(precision)
    points, xi = points @ whitening, xi @ whitening
    log_norm = jnp.sum(jnp.log(jnp.diagonal(whitening))) - 0.5 * d * jnp.log(2 * np.pi)
    arg = log_norm - 0.5 * jnp.sum(jnp.square(xi[:, None, :] - points[None, :, :]), axis=-1)   # (m, n)
    if in_log:
        return special.logsumexp(jnp.log(weights) + arg, axis=1)
    return jnp.sum(weights * jnp.exp(arg), axis=1)
