"""Ordering, quantiles and index helpers of `jaxc.numpy` (issue #17):
`lexsort`, `partition`, `argpartition`, `quantile`, `percentile` and their
NaN-ignoring forms, `nanmedian`, `ravel_multi_index`, `unravel_index`,
`packbits`, `unpackbits`, `trim_zeros`, `extract`, `compress`, `delete`,
`insert`, `place` and `put`.

Built from sorts, gathers and scatters with JAX's semantics (see each
docstring). As in JAX, functions whose output shape depends on values
(`trim_zeros`, `compress`/`extract` without ``size``, `delete` with an
index array) need concrete input: a traced one is a
ConcretizationTypeError. `place` and `put` need ``inplace=False`` (arrays
are immutable), as in JAX.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import core, dtypes, lax
from . import _elementwise as _ew, _reductions, _shape
from ._reductions import _axes_to_end
from ._shape import _static_int
from ._util import asarray, canonicalize_axes, canonicalize_axis, promote_dtypes, promote_dtypes_inexact

__all__ = ["lexsort", "partition", "argpartition", "quantile", "percentile", "nanquantile", "nanpercentile",
           "nanmedian", "ravel_multi_index", "unravel_index", "packbits", "unpackbits", "trim_zeros",
           "extract", "compress", "delete", "insert", "place", "put"]


def _concrete(x: Any, what: str) -> None:
    if isinstance(x, core.Tracer):
        raise core.ConcretizationTypeError(x, what)


# ---------------------------------------------------------------------------
# lexsort, partition, argpartition
# ---------------------------------------------------------------------------

def lexsort(keys: Any, axis: int = -1) -> Any:
    """Indices that sort by several keys: the last key is the primary one,
    ties broken by the one before, and so on (stable)."""
    arrays = [asarray(k, fn="lexsort") for k in keys]
    if not arrays:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({k.shape for k in arrays}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = arrays[0].shape
    if not shape:
        return lax.full((), 0, dtypes.default_int())
    axis = canonicalize_axis(axis, len(shape), "lexsort")
    iota = lax.broadcasted_iota(dtypes.default_int(), shape, axis)
    return lax.sort((*arrays[::-1], iota), axis, is_stable=True, num_keys=len(arrays))[-1]


def _kth(a: Any, kth: Any, axis: Any, fn: str) -> tuple[Any, int, int]:
    a = asarray(a, fn=fn)
    axis = canonicalize_axis(axis, a.ndim, fn)
    kth = canonicalize_axis(_static_int(kth, "kth", fn), a.shape[axis], fn)
    return _shape.moveaxis(a, axis, -1), axis, kth


def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """JAX's layout of a partial sort along `axis`: the kth+1 smallest
    values in ascending order (so position kth holds the kth smallest),
    then the others in descending order; NaNs count as the largest."""
    arr, axis, kth = _kth(a, kth, axis, "partition")
    last = arr.ndim - 1
    ordered = lax.sort(arr, last, is_stable=True)
    n = arr.shape[last]
    bottom = lax.slice_in_dim(ordered, 0, kth + 1, 1, last)
    top = lax.rev(lax.slice_in_dim(ordered, kth + 1, n, 1, last), (last,))
    return _shape.moveaxis(lax.concatenate([bottom, top], last), -1, axis)


def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """JAX's layout of `argpartition`: the indices of the kth+1 smallest
    values in ascending order of value (ties by index), then the indices of
    the others in increasing index order."""
    arr, axis, kth = _kth(a, kth, axis, "argpartition")
    last = arr.ndim - 1
    n = arr.shape[last]
    order = _shape.argsort(arr, axis=last)
    bottom = lax.slice_in_dim(order, 0, kth + 1, 1, last)
    # Rank of each position in the sort; positions ranked > kth keep index order.
    rank = _shape.argsort(order, axis=last)
    taken = lax.convert_element_type(lax.le(rank, lax.full_like(rank, kth)), np.int32)
    iota = lax.broadcasted_iota(dtypes.default_int(), arr.shape, last)
    _, rest = lax.sort((taken, iota), last, is_stable=True, num_keys=1)
    top = lax.slice_in_dim(rest, 0, n - kth - 1, 1, last)
    return _shape.moveaxis(lax.concatenate([bottom, top], last), -1, axis)


# ---------------------------------------------------------------------------
# Quantiles
# ---------------------------------------------------------------------------

def _linear(low: Any, high: Any, frac: Any) -> Any:
    return lax.add(lax.mul(low, lax.sub(lax.full_like(frac, 1), frac)), lax.mul(high, frac))


_METHODS = {
    "linear": _linear,
    "lower": lambda low, high, frac: low,
    "higher": lambda low, high, frac: high,
    "nearest": lambda low, high, frac: lax.select(lax.le(frac, lax.full_like(frac, 0.5)), low, high),
    "midpoint": lambda low, high, frac: lax.mul(lax.add(low, high), lax.full_like(low, 0.5)),
}


def _quantile(fn: str, a: Any, q: Any, axis: Any, out: Any, overwrite_input: bool, method: str,
              keepdims: bool, weights: Any, skip_nans: bool) -> Any:
    """Quantiles `q` (in [0, 1]) of `a` over `axis`: the sorted values at
    positions q * (n - 1), combined by `method`; the result has q's shape
    in front. `skip_nans` counts only the non-NaN values (NaNs sort last)."""
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{fn} does not support overwrite_input=True or out != None")
    if method == "inverted_cdf" or weights is not None:
        raise NotImplementedError(f"jnp.{fn}: method='inverted_cdf' and weights are not supported by jaxc")
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
                         "'inverted_cdf'")
    (a,) = promote_dtypes_inexact(fn, asarray(a, fn=fn))
    (q,) = promote_dtypes_inexact(fn, asarray(q, fn=fn))
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    axes = canonicalize_axes(axis, a.ndim, fn)
    kept = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    kept_dims = tuple(1 if i in axes else d for i, d in enumerate(a.shape)) if keepdims else kept
    out_shape = q.shape + kept
    rows = _axes_to_end(a, axes)
    n = rows.shape[-1]
    if n == 0:
        return lax.full(q.shape + kept_dims, np.nan, a.dtype)
    last = rows.ndim - 1
    nans = lax.ne(rows, rows)
    if skip_nans:
        count = _reductions.sum(lax.bitwise_not(nans), axis=last, dtype=q.dtype)
    else:
        any_nan = lax.broadcast_in_dim(lax.reduce_or(nans, (last,)), rows.shape, tuple(range(last)))
        rows = lax.select(any_nan, lax.full_like(rows, np.nan), rows)
        count = lax.full(kept, n, q.dtype)
    rows = lax.sort(rows, last, is_stable=True)
    qb = lax.broadcast_in_dim(q, out_shape, tuple(range(q.ndim)))
    top = lax.sub(lax.broadcast_in_dim(count, out_shape, tuple(range(q.ndim, len(out_shape)))),
                  lax.full(out_shape, 1, q.dtype))
    position = lax.mul(qb, top)
    zero = lax.full_like(position, 0)
    low = lax.max(zero, lax.min(lax.floor(position), top))
    high = lax.max(zero, lax.min(lax.ceil(position), top))
    frac = lax.sub(position, lax.floor(position))
    table = lax.broadcast_in_dim(rows, out_shape + (n,), tuple(range(q.ndim, len(out_shape) + 1)))

    def at(index: Any) -> Any:
        index = lax.expand_dims(lax.convert_element_type(index, dtypes.default_int()), (len(out_shape),))
        value = _shape.take_along_axis(table, index, axis=-1, mode="clip")
        return lax.convert_element_type(lax.squeeze(value, (len(out_shape),)), q.dtype)
    result = _METHODS[method](at(low), at(high), frac)
    return lax.convert_element_type(lax.reshape(result, q.shape + kept_dims), a.dtype)


def quantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """The `q`-th quantiles (0-d or 1-d q in [0, 1]) of `a` over `axis`
    (an int, a tuple, or None for all); NaN where the values hold a NaN.
    Methods: linear, lower, higher, midpoint, nearest (JAX's: a position
    exactly halfway rounds down)."""
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, weights, False)


def nanquantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """`quantile` ignoring NaNs (NaN where all values are NaN)."""
    return _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, weights, True)


def _percent(fn: str, q: Any) -> Any:
    (q,) = promote_dtypes_inexact(fn, asarray(q, fn=fn))
    return _ew.true_divide(q, 100)


def percentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """`quantile` with `q` in percent."""
    return _quantile("quantile", a, _percent("percentile", q), axis, out, overwrite_input, method, keepdims,
                     weights, False)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """`nanquantile` with `q` in percent."""
    return _quantile("nanquantile", a, _percent("nanpercentile", q), axis, out, overwrite_input, method,
                     keepdims, weights, True)


def nanmedian(a: Any, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """The median ignoring NaNs (JAX: `nanquantile` at 0.5, 'midpoint')."""
    return _quantile("nanquantile", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None, True)


# ---------------------------------------------------------------------------
# Flat and multi-dimensional indices
# ---------------------------------------------------------------------------

def _index_mode(index: Any, d: int, mode: str) -> Any:
    return {"clip": lambda: _ew.clip(index, 0, d - 1), "wrap": lambda: _ew.remainder(index, d),
            "ignore": lambda: index, "raise": lambda: index}[mode]()


def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise", order: str = "C",
                      *, dtype: Any = None) -> Any:
    """Flat indices of the coordinates `multi_index` in an array of shape
    `dims` (row-major 'C' or column-major 'F'). mode 'raise' checks the
    coordinates, which needs concrete values; 'clip', 'wrap' and 'ignore'
    work under jit."""
    fn = "ravel_multi_index"
    if len(multi_index) != len(dims):
        raise ValueError(f"jnp.{fn}: len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(_static_int(d, "dims", fn) for d in dims)
    arrays = [asarray(i, fn=fn) for i in multi_index]
    if mode not in ("raise", "clip", "wrap", "ignore"):
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order not in ("C", "F"):
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    if dtype is None:
        dtype = promote_dtypes(fn, *arrays)[0].dtype if arrays else dtypes.default_int()
    dtype = np.dtype(dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype={dtype!r} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise ValueError(f"jnp.{fn}: dtype={dtype!r} not large enough to hold flattened index for "
                         f"dims={dims!r}. Use the dtype argument to pass a suitable dtype.")
    for index in arrays:
        if mode == "raise":
            _concrete(index, f"jnp.{fn} with mode='raise' (use mode='wrap' or mode='clip' under jit)")
        if not dtypes.issubdtype(index.dtype, np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise" and any(np.any((np.asarray(i) < 0) | (np.asarray(i) >= d)) for i, d in zip(arrays, dims)):
        raise ValueError("invalid entry in coordinates array")
    strides = np.cumprod((1,) + dims[:-1]) if order == "F" else np.cumprod((1,) + dims[1:][::-1])[::-1]
    result = lax.full((), 0, dtype)
    for index, d, stride in zip(arrays, dims, strides):
        term = lax.convert_element_type(_index_mode(index, d, mode), dtype)
        result = _ew.add(result, _ew.multiply(term, lax.full((), int(stride), dtype)))
    return result


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates of flat `indices` in an array of `shape` (row-major).
    As in JAX, out-of-range indices are clipped: -1 is the last element, and
    anything past either end gives the first or last coordinates."""
    arr = asarray(indices, fn="unravel_index")
    try:
        dims = list(shape)
    except TypeError:
        dims = [shape]
    if any(np.ndim(s) != 0 for s in dims):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    dims = [_static_int(s, "shape", "unravel_index") for s in dims]
    coords: list[Any] = [None] * len(dims)
    for i in reversed(range(len(dims))):
        arr, coords[i] = _ew.divmod(arr, dims[i])
    above = _ew.greater(arr, 0)
    below = _ew.less(arr, -1) if dtypes.issubdtype(arr.dtype, np.signedinteger) else _ew.not_equal(arr, arr)
    return tuple(_ew.where(above, s - 1, _ew.where(below, 0, c)) for s, c in zip(dims, coords))


# ---------------------------------------------------------------------------
# Bits
# ---------------------------------------------------------------------------

def _bitorder(bitorder: str) -> np.ndarray:
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = np.arange(8, dtype=np.uint8)
    return bits[::-1].copy() if bitorder == "big" else bits


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """The truth of each element packed 8 to a uint8 along `axis` (the
    flattened array when None), zero-padded to a multiple of 8."""
    arr = asarray(a, fn="packbits")
    if not (dtypes.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    bits = _bitorder(bitorder)
    arr = lax.convert_element_type(lax.ne(arr, lax.full_like(arr, 0)), np.uint8)
    if axis is None:
        arr, axis = _shape.ravel(arr), 0
    axis = canonicalize_axis(axis, arr.ndim, "packbits")
    arr = _shape.swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        arr = lax.pad(arr, lax.full((), 0, np.uint8), [(0, 0, 0)] * (arr.ndim - 1) + [(0, 8 - remainder, 0)])
    arr = lax.reshape(arr, arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    shifted = lax.shift_left(arr, lax.broadcast_in_dim(lax.constant(bits), arr.shape, (arr.ndim - 1,)))
    packed = lax.reduce_sum(shifted, (arr.ndim - 1,))
    return _shape.swapaxes(packed, axis, -1)


def unpackbits(a: Any, axis: int | None = None, count: int | None = None, bitorder: str = "big") -> Any:
    """The bits of a uint8 array as 0/1 uint8 values along `axis` (the
    flattened array when None); `count` keeps that many (or pads with 0s)."""
    arr = asarray(a, fn="unpackbits")
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    masks = (np.uint8(1) << _bitorder(bitorder)).astype(np.uint8)
    if axis is None:
        arr, axis = _shape.ravel(arr), 0
    axis = canonicalize_axis(axis, arr.ndim, "unpackbits")
    arr = _shape.swapaxes(arr, axis, -1)
    shape = arr.shape + (8,)
    bits = lax.bitwise_and(lax.broadcast_in_dim(arr, shape, tuple(range(arr.ndim))),
                           lax.broadcast_in_dim(lax.constant(masks), shape, (arr.ndim,)))
    unpacked = lax.convert_element_type(lax.ne(bits, lax.full_like(bits, 0)), np.uint8)
    unpacked = lax.reshape(unpacked, arr.shape[:-1] + (arr.shape[-1] * 8,))
    if count is not None:
        count = _static_int(count, "count", "unpackbits")
        width = unpacked.shape[-1]
        last = unpacked.ndim - 1
        unpacked = lax.pad(unpacked, lax.full((), 0, np.uint8),
                           [(0, 0, 0)] * last + [(0, count - width, 0)]) if count > width else \
            lax.slice_in_dim(unpacked, 0, max(count, 0) if count >= 0 else width + count, 1, last)
    return _shape.swapaxes(unpacked, axis, -1)


# ---------------------------------------------------------------------------
# Value-dependent selections: trim_zeros, extract, compress, delete, insert
# ---------------------------------------------------------------------------

def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """`filt` without its leading ('f') and/or trailing ('b') all-zero
    slices along `axis` (all axes by default). Needs concrete values."""
    arr = asarray(filt, fn="trim_zeros")
    _concrete(arr, "the filt argument of jnp.trim_zeros (its output size depends on the values)")
    axes = canonicalize_axes(axis, arr.ndim, "trim_zeros")
    front, back = "f" in trim.lower(), "b" in trim.lower()
    if not axes or not (front or back):
        return arr
    values = np.asarray(arr) != 0
    index = []
    for ax in range(arr.ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        nonzero = values.any(axis=tuple(i for i in range(arr.ndim) if i != ax))
        if not nonzero.any():
            index.append(slice(0, 0))
            continue
        hits = np.flatnonzero(nonzero)
        index.append(slice(int(hits[0]) if front else None, int(hits[-1]) + 1 if back else None))
    return arr[tuple(index)]


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:
    """The slices of `a` along `axis` (flattened when None) where the 1-d
    `condition` is true. Without `size` the condition must be concrete; with
    it, the first `size` selected slices, padded with `fill_value`."""
    fn = "compress"
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = asarray(condition, fn=fn)
    cond = cond if cond.dtype == np.bool_ else lax.ne(cond, lax.full_like(cond, 0))
    arr = asarray(a, fn=fn)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        arr, axis = _shape.ravel(arr), 0
    else:
        axis = canonicalize_axis(axis, arr.ndim, fn)
        arr = _shape.moveaxis(arr, axis, 0)
    n = arr.shape[0]
    extra = lax.slice_in_dim(cond, min(n, cond.shape[0]), cond.shape[0], 1, 0)
    cond = lax.slice_in_dim(cond, 0, min(n, cond.shape[0]), 1, 0)
    arr = lax.slice_in_dim(arr, 0, cond.shape[0], 1, 0)
    if size is None:
        _concrete(cond, f"the condition of jnp.{fn} without size= (pass size=... to use it under jit)")
        if np.any(np.asarray(extra)):
            raise ValueError("condition contains entries that are out of bounds")
        result = _shape.take(arr, lax.constant(np.flatnonzero(np.asarray(cond)).astype(np.int32)), axis=0)
    else:
        size = _static_int(size, "size", fn)
        if not 0 <= size <= arr.shape[0]:
            raise ValueError(f"size must be positive and not greater than the size of the array axis; got "
                             f"size={size!r} for a.shape[axis]={arr.shape[0]}")
        fill = lax.convert_element_type(asarray(fill_value, fn=fn), arr.dtype)
        arr = lax.select(lax.broadcast_in_dim(cond, arr.shape, (0,)), arr,
                         lax.broadcast_in_dim(fill, arr.shape, ()))
        order = _shape.argsort(cond, stable=True, descending=True)
        result = lax.slice_in_dim(_shape.take(arr, order, axis=0, mode="clip"), 0, size, 1, 0)
    return _shape.moveaxis(result, 0, axis)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """The elements of the flattened `arr` where the flattened `condition`
    is true (see `compress` for `size` and `fill_value`)."""
    return compress(_shape.ravel(asarray(condition, fn="extract")), _shape.ravel(asarray(arr, fn="extract")),
                    size=size, fill_value=fill_value)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False) -> Any:
    """`arr` without the slices along `axis` (flattened when None) that `obj`
    names: an int, a slice, an integer array or a boolean mask. An array
    `obj` must be concrete unless `assume_unique_indices` (then it may be
    traced, as in JAX)."""
    fn = "delete"
    a = asarray(arr, fn=fn)
    if axis is None:
        a, axis = _shape.ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim, fn)
    n = a.shape[axis]
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)):
        i = canonicalize_axis(int(obj), n, fn)
        return lax.concatenate([lax.slice_in_dim(a, 0, i, 1, axis), lax.slice_in_dim(a, i + 1, n, 1, axis)], axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    index = asarray(obj, fn=fn)
    if dtypes.issubdtype(index.dtype, np.integer) and assume_unique_indices:
        index = _shape.ravel(index)
        index = _shape.sort(_ew.clip(_ew.where(_ew.less(index, 0), _ew.add(index, n), index), 0, n))
        index = _ew.subtract(index, lax.iota(index.dtype, index.shape[0]))
        keep = lax.iota(index.dtype, n - index.shape[0])
        shape = (index.shape[0], keep.shape[0])
        passed = lax.ge(lax.broadcast_in_dim(keep, shape, (1,)), lax.broadcast_in_dim(index, shape, (0,)))
        keep = lax.add(keep, lax.reduce_sum(lax.convert_element_type(passed, keep.dtype), (0,)))
        return _shape.take(a, keep, axis=axis, mode="clip")
    _concrete(index, f"the obj argument of jnp.{fn} (pass assume_unique_indices=True to use it under jit)")
    values = np.asarray(index)
    if dtypes.issubdtype(values.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[values] = False
    elif values.dtype == np.bool_:
        if values.shape != (n,):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be one-dimensional with "
                             "length matching specified axis.")
        mask = ~values
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={values.dtype}; must be integer or bool.")
    return _shape.take(a, lax.constant(np.flatnonzero(mask).astype(np.int32)), axis=axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """`arr` with `values` inserted along `axis` (flattened when None)
    before the positions `obj` (an int, a slice or a 1-d integer array,
    possibly traced; negative ones count from the end)."""
    fn = "insert"
    a = asarray(arr, fn=fn)
    vals = asarray(values, fn=fn)
    if axis is None:
        a, axis = _shape.ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim, fn)
    n = a.shape[axis]
    indices = asarray(np.arange(*obj.indices(n)) if isinstance(obj, slice) else obj, fn=fn)
    if indices.ndim > 1:
        raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}")
    if not dtypes.issubdtype(indices.dtype, np.integer):
        if indices.size == 0 and not isinstance(obj, core.ArrayBase):
            indices = lax.convert_element_type(indices, dtypes.default_int())
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    vals = lax.convert_element_type(vals, a.dtype)
    vals = lax.reshape(vals, (1,) * (a.ndim - vals.ndim) + vals.shape)
    if indices.size == 1:
        first = lax.reshape(indices, ())
        if indices.ndim == 0:
            vals = _shape.moveaxis(vals, 0, axis)
        indices = lax.broadcast_in_dim(first, (vals.shape[axis],), ())
    count = indices.shape[0] if vals.shape[axis] in (1, indices.shape[0]) else -1
    if count < 0:
        raise ValueError(f"jnp.insert(): {indices.shape[0]} positions for {vals.shape[axis]} values")
    out_shape = list(a.shape)
    out_shape[axis] += count
    indices = _ew.clip(_ew.where(_ew.less(indices, 0), _ew.add(indices, n), indices), 0, n)
    slots = indices.at[_shape.argsort(indices)].add(lax.iota(indices.dtype, count))
    mask = lax.full((n + count,), True, np.bool_).at[slots].set(False)
    kept = _shape.nonzero(mask, size=n)[0]
    lead = (slice(None),) * axis
    vals = _shape.broadcast_to(vals, tuple(count if i == axis else d for i, d in enumerate(out_shape)))
    out = lax.full(tuple(out_shape), 0, a.dtype)
    out = out.at[lead + (slots,)].set(vals)
    return out.at[lead + (kept,)].set(a)


def _tile_to(values: Any, size: int) -> Any:
    reps = -(-size // values.shape[0])
    return lax.slice_in_dim(_shape.tile(values, reps), 0, size, 1, 0)


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """A copy of `arr` whose elements where `mask` is true take the values
    `vals` in order (repeated as needed); needs ``inplace=False``."""
    data, mask_arr = asarray(arr, fn="place"), asarray(mask, fn="place")
    vals_arr = _shape.ravel(asarray(vals, fn="place"))
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. "
                         "Pass inplace=False to instead return an updated array.")
    if data.size != mask_arr.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals_arr.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    flat_mask = _shape.ravel(mask_arr)
    flat_mask = flat_mask if flat_mask.dtype == np.bool_ else lax.ne(flat_mask, lax.full_like(flat_mask, 0))
    indices = _shape.nonzero(flat_mask, size=data.size, fill_value=data.size)[0]
    updated = _shape.ravel(data).at[indices].set(_tile_to(vals_arr, data.size), mode="drop")
    return lax.reshape(updated, data.shape)


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """A copy of `a` with the flat positions `ind` set to `v` (repeated as
    needed); mode None drops out-of-range positions, 'clip' and 'wrap' bring
    them in range (as in JAX, None goes through `unravel_index`, which
    clips); needs ``inplace=False``."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. "
                         "Pass inplace=False to instead return an updated array.")
    arr = asarray(a, fn="put")
    ind_arr = _shape.ravel(asarray(ind, fn="put"))
    v_arr = _shape.ravel(asarray(v, fn="put"))
    if not arr.size or not ind_arr.size or not v_arr.size:
        return arr
    v_arr = _tile_to(v_arr, ind_arr.shape[0])
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    if mode not in (None, "clip", "wrap"):
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    if mode is not None:
        ind_arr = _index_mode(ind_arr, arr.size, mode)
    return arr.at[unravel_index(ind_arr, arr.shape)].set(v_arr, mode="drop")
