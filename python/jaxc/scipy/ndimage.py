"""`jaxc.scipy.ndimage`: `map_coordinates`, nearest (``order=0``) and linear
(``order=1``) interpolation of an N-d array at given coordinates, with the
boundary modes 'constant', 'nearest', 'wrap', 'mirror' and 'reflect', as
`jax.scipy.ndimage` (whose 'constant' and 'wrap' are SciPy's 'grid-constant'
and 'grid-wrap').

    image = jnp.arange(12.0).reshape(3, 4)
    jaxc.scipy.ndimage.map_coordinates(image, [rows, cols], order=1)
    jaxc.scipy.ndimage.map_coordinates(image, [rows, cols], order=0, mode="wrap")
"""
from __future__ import annotations

import functools
import itertools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes, lax, numpy as jnp
from ..api import jit
from ..numpy._elementwise import clip, where

__all__ = ["map_coordinates"]


def _mirror(index: Any, size: int) -> Any:
    """Indices reflected about the first and last samples (the period
    2 (size - 1) triangle wave): -1 -> 1, size -> size - 2."""
    if size == 1:
        return jnp.zeros_like(index)
    s = size - 1
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index: Any, size: int) -> Any:
    """Indices reflected about the array's edges (period 2 size):
    -1 -> 0, size -> size - 1."""
    return (_mirror(2 * index + 1, 2 * size + 1) - 1) // 2


_INDEX_FIXERS: dict[str, Callable[[Any, int], Any]] = {
    "constant": lambda index, size: clip(index, 0, size - 1),   # any index in range: the read is masked
    "nearest": lambda index, size: clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _is_integral(x: Any) -> bool:
    return dtypes.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_


def _round_half_away(x: Any) -> Any:
    return x if dtypes.issubdtype(x.dtype, np.integer) else lax.round(x)


def _floor(x: Any) -> Any:
    """`jnp.floor`: integers and booleans as they are."""
    return x if _is_integral(x) else lax.floor(x)


def _nearest_nodes(coordinate: Any) -> list[tuple[Any, Any]]:
    """The nearest sample (ties away from zero), of weight 1 (a NumPy
    scalar of the coordinates' dtype, as in JAX)."""
    index = _round_half_away(coordinate).astype(np.int32)
    return [(index, coordinate.dtype.type(1))]


def _linear_nodes(coordinate: Any) -> list[tuple[Any, Any]]:
    """The samples below and above, weighted by the distance to the other."""
    lower = _floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@jit(static_argnums=(2, 3, 4))
def _map_coordinates(input: Any, coordinates: Sequence[Any], order: int, mode: str, cval: Any) -> Any:
    array = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    fill = jnp.asarray(cval, array.dtype)
    if len(coords) != array.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coords)} != {array.ndim}")
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode!r}. "
                                  f"Currently supported modes are {sorted(_INDEX_FIXERS)}.")
    if order == 0:
        nodes_of = _nearest_nodes
    elif order == 1:
        nodes_of = _linear_nodes
    else:
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1 "
                                  f"(0: nearest, 1: linear), got order={order!r}")
    per_axis = []
    for coordinate, size in zip(coords, array.shape):
        axis_nodes = []
        for index, weight in nodes_of(coordinate):
            # Outside the array only 'constant' reads cval (where `valid` is False).
            valid = (index >= 0) & (index < size) if mode == "constant" else None
            axis_nodes.append((fixer(index, size), valid, weight))
        per_axis.append(axis_nodes)
    terms = []
    for corner in itertools.product(*per_axis):
        indices = tuple(index for index, _, _ in corner)
        masks = [valid for _, valid, _ in corner if valid is not None]
        value = array[indices]
        if masks:
            value = where(functools.reduce(operator.and_, masks), value, fill)
        weight = functools.reduce(operator.mul, [w for _, _, w in corner])
        terms.append(weight * value)
    result = functools.reduce(operator.add, terms)
    if dtypes.issubdtype(array.dtype, np.integer):
        result = _round_half_away(result)
    return result.astype(array.dtype)


def map_coordinates(input: Any, coordinates: Sequence[Any], order: int, mode: str = "constant",
                    cval: Any = 0.0) -> Any:
    """Interpolate the N-d `input` at `coordinates` (N arrays of one
    broadcast shape, in index units): ``order`` 0 (nearest sample) or 1
    (linear). Outside the array `mode` 'constant' reads `cval`; 'nearest',
    'wrap', 'mirror' and 'reflect' extend the array. Integer inputs round
    the result half away from zero. `order`, `mode` and `cval` are static
    (hashable), as in JAX."""
    return _map_coordinates(input, coordinates, order, mode, cval)
