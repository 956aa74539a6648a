"""`jax.scipy.stats.mode`, `rankdata` and `sem`.

mode and rankdata sort along the axis and find the runs of equal values
(NaNs count as equal, as in ``jnp.unique``): O(n log n), no value-dependent
shapes, so both work under jit."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ... import dtypes, lax, numpy as jnp
from ...numpy._util import asarray, canonicalize_axis, check_arraylike
from ._util import promote_args_inexact

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_NAN_POLICIES = ("propagate", "omit", "raise")


class ModeResult(NamedTuple):
    mode: Any
    count: Any


def _check_nan_policy(fn: str, nan_policy: str) -> None:
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(f"In order to best JIT compile `{fn}`, we cannot know whether `x` contains "
                                  f"nans. Please check if nans exist in `x` outside of the `{fn}` function.")


def _runs(s: Any) -> tuple[Any, Any, Any]:
    """For `s` sorted along axis 0: whether each position starts a run of equal
    values, and the run's start and end (exclusive) positions."""
    n = s.shape[0]
    differs = s[1:] != s[:-1]
    if jnp.issubdtype(s.dtype, jnp.inexact):
        differs = differs & ~(jnp.isnan(s[1:]) & jnp.isnan(s[:-1]))
    edge = jnp.ones((1,) + s.shape[1:], bool)
    first = jnp.concatenate([edge, differs], axis=0)
    last = jnp.concatenate([differs, edge], axis=0)
    index = lax.broadcasted_iota(jnp.int32, s.shape, 0)
    start = lax.cummax(jnp.where(first, index, 0), axis=0)
    end = lax.cummin(jnp.where(last, index + 1, n), axis=0, reverse=True)
    return first, start, end


def _columns(x: Any, axis: int) -> tuple[Any, tuple[int, ...]]:
    """`x` with `axis` first and the other axes flattened into one; their shape."""
    x = jnp.moveaxis(x, axis, 0)
    return x.reshape(x.shape[0], math.prod(x.shape[1:])), x.shape[1:]


def mode(a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most common value along `axis` (the smallest of equally common ones;
    NaN sorts last) and its count; `axis=None` uses the flattened array."""
    check_arraylike("mode", a)
    x = jnp.atleast_1d(asarray(a))
    _check_nan_policy("mode", nan_policy)
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x, axis = x.ravel(), 0
    else:
        axis = canonicalize_axis(axis, x.ndim, "mode")
        out_shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape) if keepdims or i != axis)
    columns, _ = _columns(x, axis)
    if columns.shape[0] == 0:
        float_dtype = dtypes.default_float()
        return ModeResult(jnp.full(out_shape, np.nan, float_dtype), jnp.zeros(out_shape, float_dtype))
    s = jnp.sort(columns, axis=0)
    _, start, end = _runs(s)
    counts = (end - start).astype(dtypes.default_int())
    best = jnp.argmax(counts, axis=0)
    value = jnp.take_along_axis(s, best[None], axis=0)[0]
    return ModeResult(value.reshape(out_shape), jnp.max(counts, axis=0).reshape(out_shape))


def rankdata(a: Any, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate") -> Any:
    """Ranks from 1 ('average', 'min', 'max', 'dense' or 'ordinal' for ties) in
    the default float dtype; all NaN (over the slice) if the input has a NaN."""
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    x = asarray(a)
    if axis is None:
        x, axis, shape = x.ravel(), 0, None
    else:
        axis = canonicalize_axis(axis, x.ndim, "rankdata")
        shape = jnp.moveaxis(x, axis, 0).shape
    columns, _ = _columns(x, axis)
    out_dtype = dtypes.default_float()
    order = jnp.argsort(columns, axis=0, stable=True)
    inverse = jnp.argsort(order, axis=0, stable=True)
    first, start, end = _runs(jnp.take_along_axis(columns, order, axis=0))
    if method == "ordinal":
        ranks = inverse + 1
    else:
        in_order = {"dense": lambda: jnp.cumsum(first.astype(np.int32), axis=0),
                    "min": lambda: start + 1,
                    "max": lambda: end,
                    "average": lambda: (start + 1 + end).astype(out_dtype) / 2}[method]()
        ranks = jnp.take_along_axis(in_order, inverse, axis=0)
    ranks = ranks.astype(out_dtype)
    ranks = jnp.where(jnp.any(jnp.isnan(columns), axis=0), np.nan, ranks)
    if shape is None:
        return ranks.reshape(-1)
    return jnp.moveaxis(ranks.reshape(shape), 0, axis)


def sem(a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Any:
    """The standard error of the mean: std(ddof) / sqrt(n) ('omit': of the non-NaN values)."""
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
