"""`jaxc.scipy.interpolate`: `RegularGridInterpolator`, linear or nearest
interpolation on a rectilinear grid (strictly increasing, possibly
non-uniform axes), as `jax.scipy.interpolate`. Points outside the grid get
`fill_value` (NaN by default) or, with ``fill_value=None``, are extrapolated.
The interpolator is a pytree (its grid, values and fill value are the leaves).

    interp = jaxc.scipy.interpolate.RegularGridInterpolator((x, y), values)
    interp(jnp.array([[0.5, 1.5], [2.0, 0.25]]))      # (n, ndim) points
    interp((xs, ys), method="nearest")                # or a tuple of arrays
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import numpy as jnp
from ..numpy._elementwise import clip, where
from ..numpy._util import check_arraylike, promote_dtypes_inexact
from ..tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_arraylike(fn: str, *args: Any) -> None:
    """JAX's check: arrays and scalars, not lists or tuples (TypeError)."""
    for position, arg in enumerate(args):
        try:
            check_arraylike(fn, arg)
        except TypeError:
            raise TypeError(f"{fn} requires ndarray or scalar arguments, got {type(arg)} at position "
                            f"{position}.") from None


def _check_method(method: Any) -> None:
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined (use 'linear' or 'nearest')")


def _ndim_coords_from_arrays(points: Any, ndim: int) -> Any:
    """The sample points as an (..., ndim) array: a tuple of arrays (broadcast
    together, converted to the default float dtype) or one array (a 1-d one
    read as consecutive points of `ndim` coordinates)."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = jnp.broadcast_arrays(*points)
        out = jnp.empty(parts[0].shape + (len(parts),), dtype=float)
        for j, part in enumerate(parts):
            out = out.at[..., j].set(part)
        return out
    _check_arraylike("RegularGridInterpolator", points)
    points = jnp.asarray(points)
    return points.reshape(-1, ndim) if points.ndim == 1 else points


class RegularGridInterpolator:
    """Interpolate `values` given on the grid ``points`` (a sequence of N
    strictly increasing 1-d arrays; `values` has at least N dimensions, the
    trailing ones carried along). `method` 'linear' or 'nearest';
    `bounds_error` must be False (JAX cannot raise under jit); points outside
    the grid get `fill_value`, or are extrapolated when it is None.

    A decreasing axis is not supported (the results are wrong, as in JAX):
    flip the axis and `values` along it first."""

    def __init__(self, points: Any, values: Any, method: str = "linear", bounds_error: bool = False,
                 fill_value: Any = np.nan):
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT: JAX and jaxc support only "
                                      "bounds_error=False")
        _check_arraylike("RegularGridInterpolator", values)
        if len(points) > np.ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has {np.ndim(values)} dimensions")
        values, = promote_dtypes_inexact("RegularGridInterpolator", values)
        if fill_value is not None:
            _check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible with values "
                                 f"(got {fill_value.dtype} for values of {values.dtype})")
        self.fill_value = fill_value
        _check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi: Any, method: str | None = None) -> Any:
        """The interpolated values at `xi`: an (..., N) array (or a tuple of
        N arrays broadcast together), giving an (...) + values.shape[N:] result."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _ndim_coords_from_arrays(xi, ndim)
        if xi.ndim == 0:
            raise IndexError(f"the requested sample points xi must have at least one dimension (of size "
                             f"{ndim}), got a 0-d array")
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[-1]}, but this "
                             f"RegularGridInterpolator has dimension {ndim}")
        xi_shape = xi.shape
        xi = xi.reshape(-1, ndim)
        indices, distances, out_of_bounds = self._find_indices(xi.T)
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self._evaluate_nearest(indices, distances)
        if self.fill_value is not None:
            mask = out_of_bounds.reshape(result.shape[:1] + (1,) * (result.ndim - 1))
            result = where(mask, self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _find_indices(self, xi: Any) -> tuple[list[Any], list[Any], Any]:
        """Per axis: the cell (lower grid index, clamped to the grid's
        cells), the distance into it in units of its width, and whether each
        point is outside the grid."""
        indices, distances = [], []
        out_of_bounds = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            out_of_bounds = out_of_bounds | (x < g[0]) | (x > g[-1])
        return indices, distances, out_of_bounds

    def _evaluate_linear(self, indices: list[Any], distances: list[Any]) -> Any:
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        result = None
        for corner in itertools.product(*[((i, 1 - y), (i + 1, y)) for i, y in zip(indices, distances)]):
            weight = corner[0][1]
            for _, w in corner[1:]:
                weight = weight * w
            term = self.values[tuple(i for i, _ in corner)] * weight[trailing]
            result = term if result is None else result + term
        return result

    def _evaluate_nearest(self, indices: list[Any], distances: list[Any]) -> Any:
        return self.values[tuple(where(y <= 0.5, i, i + 1) for i, y in zip(indices, distances))]


def _flatten(interp: RegularGridInterpolator) -> tuple[tuple[Any, ...], tuple[str, bool]]:
    return (interp.grid, interp.values, interp.fill_value), (interp.method, interp.bounds_error)


def _unflatten(aux: Any, children: Any) -> RegularGridInterpolator:
    """Rebuilt through `__init__`, as in JAX (the values promoted again)."""
    grid, values, fill_value = children
    method, bounds_error = aux
    return RegularGridInterpolator(grid, values, method, bounds_error, fill_value)


register_pytree_node(RegularGridInterpolator, _flatten, _unflatten)
