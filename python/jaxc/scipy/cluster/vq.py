"""`jaxc.scipy.cluster.vq`: `vq`, the nearest-code assignment of
`jax.scipy.cluster.vq` (`scipy.cluster.vq.vq` without `check_finite`).

    codes, dists = jaxc.scipy.cluster.vq.vq(obs, code_book)   # (M,) int, (M,) float
"""
from __future__ import annotations

from typing import Any

from ... import numpy as jnp
from ...numpy._util import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]

_NAME = "scipy.cluster.vq.vq"


def vq(obs: Any, code_book: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """Assign each observation (a row of `obs`, shape ``(M, N)``) the index of
    its nearest code (a row of `code_book`, shape ``(K, N)``) by Euclidean
    distance; 1-D inputs hold length-1 vectors. Returns ``(code, dist)``:
    the indices (ties go to the lowest) and the distances, both ``(M,)``.
    `check_finite` is unused, as in JAX."""
    del check_finite
    for position, arg in enumerate((obs, code_book)):
        try:
            check_arraylike(_NAME, arg)
        except TypeError:
            raise TypeError(f"{_NAME} requires ndarray or scalar arguments, got {type(arg)} at position "
                            f"{position} (use jnp.asarray for lists and tuples).") from None
    obs_arr, book = promote_dtypes_inexact(_NAME, obs, code_book)
    if obs_arr.ndim != book.ndim:
        raise ValueError(f"Observation and code_book should have the same rank, got shapes {obs_arr.shape} "
                         f"and {book.shape}")
    if obs_arr.ndim == 1:
        obs_arr, book = obs_arr[:, None], book[:, None]
    if obs_arr.ndim != 2:
        raise ValueError(f"ndim different than 1 or 2 are not supported, got {obs_arr.ndim}")
    if obs_arr.shape[1] != book.shape[1]:
        # JAX raises TypeError here (its subtraction's broadcasting error).
        raise TypeError(f"{_NAME}: observations of {obs_arr.shape[1]} features do not match codes of "
                        f"{book.shape[1]} features (shapes {obs_arr.shape} and {book.shape})")
    dist = jnp.linalg.norm(obs_arr[:, None, :] - book[None, :, :], axis=-1)  # (M, K)
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
