"""`jaxc.ops`: JAX's segment reductions.

    import jaxc as jax
    jax.ops.segment_sum(data, segment_ids, num_segments=3)   # out[s] = sum of data[i] with ids[i] == s

Each is a `lax.scatter` of `data` into `num_segments` rows that start at the
reduction's identity (0, 1, the dtype's lowest or highest value). Ids
outside [0, num_segments) are dropped (negative ones too: they are not
counted from the end), unless ``mode="clip"`` clamps them into range.
`num_segments` defaults to ``max(segment_ids) + 1``, which needs concrete
ids (under `jit` it raises `ConcretizationTypeError`, as in JAX).
`indices_are_sorted`, `unique_indices` and `bucket_size` are accepted and do
not change the result.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import core, dtypes, numpy as jnp
from ._autodiff import stop_gradient
from .lax import _ops as lax_ops

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]

# reduction -> (lax.scatter kind, the identity it starts from, by dtype)
_SEGMENT_REDUCTIONS = {
    "sum": ("add", lambda dtype: np.zeros((), dtype)),
    "prod": ("mul", lambda dtype: np.ones((), dtype)),
    "max": ("max", lambda dtype: _lowest(dtype)),
    "min": ("min", lambda dtype: _highest(dtype)),
}
# GatherScatterMode names `mode` may take: drop out-of-range ids, or clamp them.
_DROP_MODES = (None, "fill_or_drop", "drop", "promise_in_bounds")
_CLIP_MODES = ("clip",)


def _lowest(dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return np.array(False)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.array(-np.inf, dtype)
    return np.array(np.iinfo(dtype).min, dtype)


def _highest(dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return np.array(True)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.array(np.inf, dtype)
    return np.array(np.iinfo(dtype).max, dtype)


def _segment(reduction: str, data: Any, segment_ids: Any, num_segments: int | None,
             indices_are_sorted: bool, unique_indices: bool, bucket_size: int | None,
             mode: Any) -> Any:
    fn = f"segment_{reduction}"
    data = jnp.asarray(data)
    segment_ids = jnp.asarray(segment_ids)
    if not dtypes.issubdtype(segment_ids.dtype, np.integer):
        raise TypeError(f"{fn}: segment_ids must be integers, got {segment_ids.dtype}")
    if data.ndim < segment_ids.ndim or data.shape[:segment_ids.ndim] != segment_ids.shape:
        raise ValueError(f"{fn}: segment_ids of shape {segment_ids.shape} do not index the leading "
                         f"dimensions of data of shape {data.shape}")
    if bucket_size is not None and (not isinstance(bucket_size, int) or bucket_size <= 0):
        raise ValueError(f"{fn}: bucket_size must be a positive int or None, got {bucket_size!r}")
    if num_segments is None:
        if segment_ids.size == 0:
            raise ValueError(f"{fn}: num_segments is required when segment_ids is empty")
        if isinstance(segment_ids, core.Tracer):  # JAX's error type
            raise core.ConcretizationTypeError(segment_ids, f"{fn} without num_segments (it is then "
                                               "the largest segment id + 1)")
        num_segments = int(np.max(np.asarray(segment_ids))) + 1
    num_segments = operator.index(num_segments)
    if num_segments < 0:
        raise ValueError(f"{fn}: num_segments must be non-negative, got {num_segments}")
    name = getattr(mode, "name", mode)
    name = name.lower() if isinstance(name, str) else name
    if name in _CLIP_MODES:
        segment_ids = jnp.clip(segment_ids, 0, max(num_segments - 1, 0))
    elif name not in _DROP_MODES:
        raise ValueError(f"{fn}: unknown mode {mode!r} (expected 'fill_or_drop', 'clip' or "
                         "'promise_in_bounds')")
    if segment_ids.size == 0 or num_segments == 0 or reduction in ("sum", "prod") \
            or not dtypes.issubdtype(data.dtype, np.inexact):
        return _scatter(reduction, num_segments, data, segment_ids)
    return _extremal(reduction, num_segments, data, segment_ids)


def _scatter(reduction: str, num_segments: int, data: Any, segment_ids: Any) -> Any:
    """`data` scattered into `num_segments` rows of the reduction's identity."""
    kind, identity = _SEGMENT_REDUCTIONS[reduction]
    leading = segment_ids.ndim
    out = jnp.full((num_segments,) + data.shape[leading:], identity(data.dtype), data.dtype)
    if segment_ids.size == 0 or num_segments == 0:
        return out
    dimension_numbers = lax_ops.ScatterDimensionNumbers(
        update_window_dims=tuple(range(leading, data.ndim)), inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,))
    return lax_ops.scatter(out, segment_ids[..., None], data, dimension_numbers, kind)


def _extremal(reduction: str, num_segments: int, data: Any, segment_ids: Any) -> Any:
    """segment_max/min of floats, differentiable as JAX's scatter max/min: the
    derivative of a segment is the mean of the derivatives of the elements
    equal to its extremum (ties share it). The scatter itself is not
    differentiated: a term that is exactly zero (finite `data` minus itself)
    but has that derivative is added to it."""
    out = stop_gradient(_scatter(reduction, num_segments, data, segment_ids))
    # Ids outside the segments gather some row here; their updates are dropped below.
    hit = data == jnp.take(out, jnp.clip(segment_ids, 0, num_segments - 1), axis=0)
    count = _scatter("sum", num_segments, hit.astype(data.dtype), segment_ids)
    finite = jnp.where(jnp.isfinite(data), data, jnp.zeros_like(data))
    zero = jnp.where(hit, stop_gradient(finite) - finite, jnp.zeros_like(data))  # +0.0
    # out - (+0.0) is out bit for bit, -0.0 included (out + 0.0 would not be).
    return out - _scatter("sum", num_segments, zero, segment_ids) / jnp.maximum(count, 1)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
    """``out[s] = sum(data[i] for i where segment_ids[i] == s)``; empty segments are 0."""
    return _segment("sum", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                    bucket_size, mode)


def segment_prod(data: Any, segment_ids: Any, num_segments: int | None = None,
                 indices_are_sorted: bool = False, unique_indices: bool = False,
                 bucket_size: int | None = None, mode: Any = None) -> Any:
    """The product over each segment; empty segments are 1."""
    return _segment("prod", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                    bucket_size, mode)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
    """The maximum over each segment; empty segments are -inf (the lowest int, False)."""
    return _segment("max", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                    bucket_size, mode)


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Any:
    """The minimum over each segment; empty segments are +inf (the highest int, True)."""
    return _segment("min", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                    bucket_size, mode)
