"""Unique values and set operations of `jaxc.numpy` (issue #17): `unique`
and its Array API forms, `intersect1d`, `union1d`, `setdiff1d`, `setxor1d`.

Their output sizes depend on the values, so, as in JAX, without ``size=``
they need concrete input (a traced one is a ConcretizationTypeError that
says to pass ``size``). With ``size=`` they work under jit and vmap: the
result is truncated to `size` entries or padded with `fill_value` (by
default the smallest value found; see each function). Everything is a
stable sort, a mask of the first element of each run, and a `nonzero`
with `size` that compacts the selected positions.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import core, dtypes, lax
from . import _shape
from ._shape import _static_int
from ._util import asarray, canonicalize_axis, promote_dtypes

__all__ = ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values", "intersect1d",
           "union1d", "setdiff1d", "setxor1d"]

_SIZE_HINT = ("the argument of jnp.{fn} (its output size depends on the values: pass a static size=... "
              "and fill_value=... to use it under jit or vmap)")


def _concrete(fn: str, *arrays: Any) -> None:
    """Refuse traced `arrays` when no `size` is given (JAX's error type)."""
    for a in arrays:
        if isinstance(a, core.Tracer):
            raise core.ConcretizationTypeError(a, _SIZE_HINT.format(fn=fn))


def _size(size: Any, fn: str) -> int | None:
    if size is None:
        return None
    size = _static_int(size, "size", fn)
    if size < 0:
        raise ValueError(f"jnp.{fn}: size must be non-negative, got {size}")
    return size


def _index(values: Any) -> Any:
    return lax.convert_element_type(values, dtypes.default_int())


def _iota(n: int) -> Any:
    return lax.iota(dtypes.default_int(), n)


def _first_of_runs(columns: list[Any], equal_nan: bool) -> Any:
    """True where a sorted row differs from the one before (and at row 0)."""
    n = columns[0].shape[0] if columns else 0
    differs = lax.full((n - 1,), False, np.bool_)
    for col in columns:
        later, earlier = lax.slice_in_dim(col, 1, n, 1, 0), lax.slice_in_dim(col, 0, n - 1, 1, 0)
        ne = lax.ne(later, earlier)
        if equal_nan and dtypes.is_float(col.dtype):
            both_nan = lax.bitwise_and(lax.ne(later, later), lax.ne(earlier, earlier))
            ne = lax.bitwise_and(ne, lax.bitwise_not(both_nan))
        differs = lax.bitwise_or(differs, ne)
    return lax.concatenate([lax.full((1,), True, np.bool_), differs], 0)


def _valid(size: int, count: Any) -> Any:
    """arange(size) < count."""
    return lax.lt(_iota(size), lax.broadcast_in_dim(_index(count), (size,), ()))


def _fill(values: Any, valid: Any, fill_value: Any) -> Any:
    """`values` (rows along axis 0) where `valid`, else `fill_value`."""
    fill = lax.broadcast_in_dim(lax.convert_element_type(asarray(fill_value, fn="unique"), values.dtype),
                                values.shape, ())
    return lax.select(lax.broadcast_in_dim(valid, values.shape, (0,)), values, fill)


def _unique_rows(rows: Any, equal_nan: bool, size: int, fill_value: Any) -> dict[str, Any]:
    """Unique rows of the 2-d `rows` (n, m), sorted lexicographically and
    laid out for `size` results: values, index, inverse, counts, count."""
    n, m = rows.shape
    columns = [lax.index_in_dim(rows, j, 1, False) for j in range(m)]
    if m:
        *columns, perm = lax.sort((*columns, _iota(n)), 0, is_stable=True, num_keys=m)
    else:
        perm = _iota(n)
    mask = _first_of_runs(columns, equal_nan) if m else lax.concatenate(
        [lax.full((1,), True, np.bool_), lax.full((n - 1,), False, np.bool_)], 0)
    count = lax.reduce_sum(lax.convert_element_type(mask, dtypes.default_int()), (0,))
    ind = _shape.nonzero(mask, size=size)[0]
    aux = lax.reshape(_shape.stack(columns, axis=1), (n, m)) if m else rows
    values = _shape.take(aux, ind, axis=0, mode="clip")
    if fill_value is not None:
        values = _fill(values, _valid(size, count), fill_value)
    starts = _shape.nonzero(mask, size=size + 1)[0]
    ends = lax.slice_in_dim(starts, 1, size + 1, 1, 0)
    ends = lax.select(lax.ne(ends, lax.full_like(ends, 0)), ends, lax.full_like(ends, n))  # padding: n
    starts = lax.concatenate([lax.slice_in_dim(starts, 0, 1, 1, 0), lax.slice_in_dim(ends, 0, size - 1, 1, 0)], 0) \
        if size else ends
    slot = lax.sub(lax.cumsum(lax.convert_element_type(mask, dtypes.default_int()), 0),
                   lax.full((n,), 1, dtypes.default_int()))
    inverse = lax.full((n,), 0, dtypes.default_int()).at[perm].set(slot)
    return dict(values=values, index=_shape.take(perm, ind, mode="clip"), inverse=inverse,
                counts=lax.sub(ends, starts), count=count)


def _unique(arr: Any, axis: int, equal_nan: bool, size: int | None, fill_value: Any,
            fn: str) -> dict[str, Any]:
    """The unique slices of `arr` along `axis` (see `_unique_rows`); without
    `size`, trimmed to the concrete count."""
    n = arr.shape[axis]
    rest = arr.shape[:axis] + arr.shape[axis + 1:]
    if n == 0:
        if size and fill_value is None:
            raise ValueError(f"jnp.{fn}: for zero-sized input with nonzero size argument, fill_value "
                             "must be specified")
        empty = lax.full((0,), 0, dtypes.default_int())
        values = lax.full((size or 0, *rest), 0 if fill_value is None else fill_value, arr.dtype)
        return dict(values=_shape.moveaxis(values, 0, axis), index=empty, inverse=empty, counts=empty)
    rows = lax.reshape(_shape.moveaxis(arr, axis, 0), (n, int(np.prod(rest, dtype=np.int64))))
    out = _unique_rows(rows, equal_nan, n if size is None else size, fill_value)
    if size is None:
        count = int(np.asarray(out["count"]))
        for key in ("values", "index", "counts"):
            out[key] = lax.slice_in_dim(out[key], 0, count, 1, 0)
    values = lax.reshape(out["values"], (out["values"].shape[0], *rest))
    out["values"] = _shape.moveaxis(values, 0, axis)
    return out


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: Any = None, sorted: bool = True) -> Any:
    """The sorted unique values of `ar` (flattened, or the unique slices
    along `axis`), optionally with the index of each one's first occurrence,
    the inverse (the position in the result of every input element, in
    ar's shape when axis is None) and the counts. NaNs count as one value
    when `equal_nan`. With `size`: the first `size` results, padded with
    `fill_value` (default: the smallest value), the index of the smallest
    value, and zero counts. `sorted` is ignored, as in JAX."""
    del sorted
    arr = asarray(ar, fn="unique")
    size = _size(size, "unique")
    if size is None:
        _concrete("unique", arr)
    shape = arr.shape
    if axis is None:
        arr, axis_int = _shape.ravel(arr), 0
    else:
        axis_int = canonicalize_axis(_static_int(axis, "axis", "unique"), arr.ndim, "unique")
    out = _unique(arr, axis_int, equal_nan, size, fill_value, "unique")
    if axis is None:
        out["inverse"] = lax.reshape(out["inverse"], shape)
    wanted = [("values", True), ("index", return_index), ("inverse", return_inverse),
              ("counts", return_counts)]
    results = tuple(out[key] for key, want in wanted if want)
    return results[0] if len(results) == 1 else results


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
    """Array API: (values, indices, inverse_indices, counts); NaNs distinct."""
    return _UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size, fill_value=fill_value))


def unique_counts(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueCountsResult:
    """Array API: (values, counts); NaNs distinct."""
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_inverse(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueInverseResult:
    """Array API: (values, inverse_indices); NaNs distinct."""
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                        fill_value=fill_value))


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Array API: the sorted unique values; NaNs distinct."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ---------------------------------------------------------------------------
# Set operations on flattened arrays
# ---------------------------------------------------------------------------

def _compact(keep: Any, values: Any, size: int) -> tuple[Any, Any, Any]:
    """(values[keep] in the first slots of `size`, the positions, the count)."""
    positions = _shape.nonzero(keep, size=size)[0]
    count = lax.reduce_sum(lax.convert_element_type(keep, dtypes.default_int()), (0,))
    return _take(values, positions), positions, count


def _take(values: Any, index: Any) -> Any:
    """values[index] for in-range `index`; zeros (to be filled) when `values` is empty."""
    if not values.shape[0]:
        return lax.full(index.shape, 0, values.dtype)
    return _shape.take(values, index, mode="clip")


def _smallest_fill(values: Any, valid: Any) -> Any:
    """JAX's default padding of a set result: its smallest value (0 if empty)."""
    if not values.shape[0]:
        return values
    largest = lax.reduce_max(lax.select(valid, values, lax.full_like(values, 0)), (0,))
    smallest = lax.reduce_min(lax.select(valid, values, lax.broadcast_in_dim(largest, values.shape, ())), (0,))
    return lax.select(valid, values, lax.broadcast_in_dim(smallest, values.shape, ()))


def _finish(values: Any, count: Any, size: int | None, fill_value: Any) -> Any:
    """Trim to the concrete count (no size) or pad with `fill_value`."""
    if size is None:
        return lax.slice_in_dim(values, 0, int(np.asarray(count)), 1, 0)
    valid = _valid(size, count)
    return _smallest_fill(values, valid) if fill_value is None else _fill(values, valid, fill_value)


def _operands(fn: str, ar1: Any, ar2: Any, size: Any) -> tuple[Any, Any, int | None]:
    a, b = promote_dtypes(fn, asarray(ar1, fn=fn), asarray(ar2, fn=fn))
    size = _size(size, fn)
    if size is None:
        _concrete(fn, a, b)
    return _shape.ravel(a), _shape.ravel(b), size


def _unique_1d(a: Any, assume_unique: bool) -> dict[str, Any]:
    """Sorted unique values of the 1-d `a` padded to len(a), with first
    indices and the count (`assume_unique`: just sorted)."""
    n = a.shape[0]
    if assume_unique or n == 0:
        values, index = lax.sort((a, _iota(n)), 0, is_stable=True, num_keys=1) if n else (a, _iota(0))
        return dict(values=values, index=index, count=lax.full((), n, dtypes.default_int()))
    out = _unique_rows(lax.reshape(a, (n, 1)), True, n, None)
    out["values"] = lax.reshape(out["values"], (n,))
    return out


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted unique values in either array (flattened)."""
    a, b, size = _operands("union1d", ar1, ar2, size)
    return unique(_shape.concatenate([a, b]), size=size, fill_value=fill_value)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted unique values in both arrays (flattened); with
    `return_indices`, also the index of each one's first occurrence in ar1
    and in ar2. With `size`, values are padded with `fill_value` (default:
    the smallest of the intersection, 0 when it is empty) and indices with
    len(ar1), len(ar2)."""
    a, b, size = _operands("intersect1d", ar1, ar2, size)
    ua, ub = _unique_1d(a, assume_unique), _unique_1d(b, assume_unique)
    na, nb = a.shape[0], b.shape[0]
    valid_a = _valid(na, ua["count"])
    valid_b = _valid(nb, ub["count"])
    eq = lax.bitwise_and(lax.eq(lax.broadcast_in_dim(ua["values"], (na, nb), (0,)),
                                lax.broadcast_in_dim(ub["values"], (na, nb), (1,))),
                         lax.broadcast_in_dim(valid_b, (na, nb), (1,)))
    found = lax.bitwise_and(lax.reduce_or(eq, (1,)), valid_a) if nb else lax.full((na,), False, np.bool_)
    out_size = na if size is None else size
    values, positions, count = _compact(found, ua["values"], out_size)
    values = _finish(values, count, size, fill_value)
    if not return_indices:
        return values
    match_b = lax.argmax(lax.convert_element_type(eq, np.int32), 1, dtypes.default_int()) if nb else \
        lax.full((na,), 0, dtypes.default_int())
    index_a = _take(ua["index"], positions)
    index_b = _take(ub["index"], _take(match_b, positions))
    if size is None:
        count = int(np.asarray(count))
        return values, lax.slice_in_dim(index_a, 0, count, 1, 0), lax.slice_in_dim(index_b, 0, count, 1, 0)
    valid = _valid(size, count)
    return (values, lax.select(valid, index_a, lax.full_like(index_a, na)),
            lax.select(valid, index_b, lax.full_like(index_b, nb)))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
    """The unique values of ar1 not in ar2 (sorted; in ar1's order when
    `assume_unique`), in ar1's dtype. With `size`, padded with `fill_value`
    (default 0, as JAX)."""
    fn = "setdiff1d"
    dtype = asarray(ar1, fn=fn).dtype
    a, b, size = _operands(fn, ar1, ar2, size)
    n, m = a.shape[0], b.shape[0]
    ua = dict(values=a, count=lax.full((), n, dtypes.default_int())) if assume_unique else _unique_1d(a, False)
    found = lax.reduce_or(lax.eq(lax.broadcast_in_dim(ua["values"], (n, m), (0,)),
                                 lax.broadcast_in_dim(b, (n, m), (1,))), (1,)) if m else \
        lax.full((n,), False, np.bool_)
    keep = lax.bitwise_and(_valid(n, ua["count"]), lax.bitwise_not(found))
    values, _, count = _compact(keep, ua["values"], n if size is None else size)
    values = lax.convert_element_type(values, dtype)
    return _finish(values, count, size, 0 if fill_value is None else fill_value)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
    """The sorted values found in exactly one of the arrays. With `size`,
    padded with `fill_value` (default: the smallest result, 0 if none)."""
    a, b, size = _operands("setxor1d", ar1, ar2, size)
    ua, ub = _unique_1d(a, assume_unique), _unique_1d(b, assume_unique)
    n = a.shape[0] + b.shape[0]
    if n == 0:
        return lax.full((size or 0,), 0 if fill_value is None else fill_value, a.dtype)
    both = _shape.concatenate([ua["values"], ub["values"]])
    valid = _shape.concatenate([_valid(a.shape[0], ua["count"]), _valid(b.shape[0], ub["count"])])
    invalid, aux = lax.sort((lax.bitwise_not(valid), both), 0, is_stable=True, num_keys=2)
    valid = lax.bitwise_not(invalid)
    after = lax.ne(lax.slice_in_dim(aux, 1, n, 1, 0), lax.slice_in_dim(aux, 0, n - 1, 1, 0))
    next_valid = lax.slice_in_dim(valid, 1, n, 1, 0)
    true1 = lax.full((1,), True, np.bool_)
    differs_next = lax.concatenate([lax.bitwise_or(after, lax.bitwise_not(next_valid)), true1], 0)
    differs_prev = lax.concatenate([true1, after], 0)
    keep = lax.bitwise_and(valid, lax.bitwise_and(differs_next, differs_prev))
    values, _, count = _compact(keep, aux, n if size is None else size)
    return _finish(values, count, size, fill_value)
