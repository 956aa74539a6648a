"""Batching rules of the shape and indexing ops.

Most are the same op one dimension up: their dimension attributes step past
the leading batch axis (which transpose and broadcast_in_dim keep in place).
Batched start indices turn a dynamic_slice into a gather and a
dynamic_update_slice into a scatter. A gather or scatter whose operand and
indices are both batched gets the batch position as an extra leading index
component (an iota), so lane b reads and writes only slice b of the operand
(the dialect's gather/scatter have no operand batching dimensions).

    %0 = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>       (x batched)
  ->
    %0 = jaxc.transpose %xs, perm = [0, 2, 1] : tensor<8x2x3xf32> -> tensor<8x3x2xf32>

    %0 = jaxc.dynamic_slice %x[%i], sizes = [2]
           : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>                           (i batched)
  ->
    %1 = jaxc.reshape %is : (tensor<8xi32>) -> tensor<8x1xi32>
    %0 = jaxc.gather %x[%1] offset_dims = [1], collapsed_slice_dims = [], start_index_map = [0],
           index_vector_dim = 1, slice_sizes = [2] : (tensor<5xf32>, tensor<8x1xi32>) -> tensor<8x2xf32>
"""
from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np
from mlir import ir

from jaxc import core, lax
from jaxc.lax import _ops

from .interpreter import BATCH, Axis, RuleError, batched_all, broadcast_batch, i64, i64_array, integer, ints, same_op

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _shift(dims: Sequence[int]) -> list[int]:
    """Dimension numbers of the unbatched op, counted past the batch axis."""
    return [d + 1 for d in dims]


def _lead(dims: Sequence[int]) -> ir.Attribute:
    """The batch axis itself, then the shifted dimension numbers."""
    return i64_array([0] + _shift(dims))


def _constant(value: Any, dtype: np.dtype) -> Any:
    """A 0-d constant of exactly `dtype` (lax.constant narrows 64-bit types
    without x64, and the IR may hold them)."""
    scope = core.current_scope()
    with core.context(), core.user_location(), ir.InsertionPoint(scope.block):
        return scope.tracer(core.constant_value(np.asarray(value, dtype)))


def _iota(dtype: np.dtype, shape: Sequence[int], dimension: int) -> Any:
    return _ops.IOTA.bind(dtype=dtype, shape=tuple(shape), dimension=dimension)


def _convert(x: Any, dtype: np.dtype) -> Any:
    return x if x.dtype == dtype else _ops.CONVERT.bind(x, dtype=dtype, weak_type=False)


def _index_dtype(indices: Sequence[Any], size: int) -> np.dtype:
    """One integer type for several start indices and a lane position below
    `size`: the widest of theirs (signed first), or int32 if that is too
    narrow for the positions."""
    dtype = max((x.dtype for x in indices), key=lambda d: (d.itemsize, d.kind == "i"))
    return dtype if _fits(size - 1, dtype) else np.dtype(np.int32)


def _fits(value: int, dtype: np.dtype) -> bool:
    return value <= np.iinfo(dtype).max


def _index_rows(starts: Sequence[Any], batched: Sequence[bool], size: int, batch_index: bool) -> Any:
    """0-d start indices (batched ones of shape (size,)) as one (size, k)
    index array, one row per lane; with `batch_index` the lane's position
    comes first."""
    dtype = _index_dtype(starts, size)
    columns = [_iota(dtype, (size,), 0)] if batch_index else []
    columns += [x if b else broadcast_batch(x, size) for x, b in zip(starts, batched)]
    return lax.concatenate([lax.reshape(_convert(c, dtype), (size, 1)) for c in columns], 1)


def _with_batch_index(indices: Any, vector_dim: int) -> tuple[Any, int]:
    """Batched gather/scatter indices (index vectors along `vector_dim`, the
    trailing implicit one when it is the rank) with the lane's position as a
    first index component; and the index vector dimension after that."""
    if vector_dim == indices.ndim:
        indices = lax.expand_dims(indices, (indices.ndim,))
    if not _fits(indices.shape[0] - 1, indices.dtype):
        indices = _convert(indices, np.dtype(np.int32))
    shape = list(indices.shape)
    shape[vector_dim] = 1
    return lax.concatenate([_iota(indices.dtype, shape, 0), indices], vector_dim), vector_dim


# ---------------------------------------------------------------------------
# Ops of one operand: the same op one dimension up
# ---------------------------------------------------------------------------

def _shifted(*names: str, lead: bool = False):
    """The rule of a one-operand op whose attributes `names` are dimension
    numbers; with `lead` they list every result dimension, the batch axis
    first (transpose, broadcast_in_dim)."""
    def rule(op, xs, batched, axis: Axis):
        attrs = {n: _lead(ints(op, n)) if lead else i64_array(_shift(ints(op, n))) for n in names}
        return same_op(op, xs, axis.size, **attrs), [True]
    return rule


def _slice(op, xs, batched, axis: Axis):
    return same_op(op, xs, axis.size, start_indices=i64_array([0] + ints(op, "start_indices")),
                   limit_indices=i64_array([axis.size] + ints(op, "limit_indices")),
                   strides=i64_array([1] + ints(op, "strides"))), [True]


def _concatenate(op, xs, batched, axis: Axis):
    """Unbatched inputs are broadcast; the joined dimension moves up one."""
    return same_op(op, batched_all(xs, batched, axis.size), axis.size,
                   dimension=i64(integer(op, "dimension") + 1)), [True]


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------

_PAD_ATTRS = ("edge_padding_low", "edge_padding_high", "interior_padding")


def _pad(op, xs, batched, axis: Axis):
    """An unbatched padding value pads every lane the same way. A batched one
    (a value per lane) cannot be an operand of pad: pad with a placeholder,
    then select each lane's value where a padded mask says "not the
    operand"."""
    x, value = xs
    low, high, interior = (ints(op, n) for n in _PAD_ATTRS)
    if not batched[1]:
        return same_op(op, xs, axis.size, edge_padding_low=i64_array([0] + low),
                       edge_padding_high=i64_array([0] + high),
                       interior_padding=i64_array([0] + interior)), [True]
    config = list(zip(low, high, interior))
    placeholder = _constant(0, x.dtype)
    if batched[0]:
        padded = lax.pad(x, placeholder, [(0, 0, 0)] + config)
    else:
        padded = broadcast_batch(lax.pad(x, placeholder, config), axis.size)
    element_shape = x.shape[1:] if batched[0] else x.shape
    inside = lax.pad(lax.full(element_shape, True, np.bool_), _constant(False, np.dtype(np.bool_)), config)
    fill = lax.broadcast_in_dim(value, padded.shape, (0,))
    return [lax.select(broadcast_batch(inside, axis.size), padded, fill)], [True]


# ---------------------------------------------------------------------------
# dynamic_slice, dynamic_update_slice
# ---------------------------------------------------------------------------

def _dynamic_slice(op, xs, batched, axis: Axis):
    """Unbatched starts: one more start (0) and size (the batch) in front.
    Batched starts: a gather with one index row per lane (led by the lane's
    position when the operand is batched); gather clamps the windows into
    the operand as dynamic_slice does."""
    x, starts = xs[0], xs[1:]
    sizes = ints(op, "slice_sizes")
    if not any(batched[1:]):
        zero = _constant(0, starts[0].dtype if starts else np.dtype(np.int32))
        return [lax.dynamic_slice(x, [zero, *starts], [axis.size, *sizes])], [True]
    rows = _index_rows(starts, batched[1:], axis.size, batch_index=batched[0])
    rank = len(sizes)
    if batched[0]:
        dims = lax.GatherDimensionNumbers(offset_dims=tuple(range(1, rank + 1)), collapsed_slice_dims=(0,),
                                          start_index_map=tuple(range(rank + 1)))
        sizes = [1, *sizes]
    else:
        dims = lax.GatherDimensionNumbers(offset_dims=tuple(range(1, rank + 1)), collapsed_slice_dims=(),
                                          start_index_map=tuple(range(rank)))
    return [lax.gather(x, rows, dims, sizes)], [True]


def _clamp_start(start: Any, last: int) -> Any:
    """`start` clamped into [0, last]."""
    last = min(last, int(np.iinfo(start.dtype).max))
    return lax.clamp(_constant(0, start.dtype), start, _constant(last, start.dtype))


def _dynamic_update_slice(op, xs, batched, axis: Axis):
    """Unbatched starts: one more start (0) in front, operand and update
    batched. Batched starts: a scatter (set) of each lane's update at its
    lane's row of the operand; the starts are clamped first, as
    dynamic_update_slice clamps them (scatter would drop the window)."""
    x, update = batched_all(xs[:2], batched[:2], axis.size)
    starts = xs[2:]
    if not any(batched[2:]):
        zero = _constant(0, starts[0].dtype if starts else np.dtype(np.int32))
        return [lax.dynamic_update_slice(x, update, [zero, *starts])], [True]
    starts = [_clamp_start(s, x.shape[d + 1] - update.shape[d + 1]) for d, s in enumerate(starts)]
    rows = _index_rows(starts, batched[2:], axis.size, batch_index=True)
    dims = lax.ScatterDimensionNumbers(update_window_dims=tuple(range(1, x.ndim)), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=tuple(range(x.ndim)))
    return [lax.scatter(x, rows, update, dims)], [True]


# ---------------------------------------------------------------------------
# gather, scatter
# ---------------------------------------------------------------------------

def _gather(op, xs, batched, axis: Axis):
    """Operand batched only: the batch axis is one more (full) window
    dimension, the first of the result. Indices only: one more batch
    dimension of the indices, the first of the result. Both: the lane's
    position leads each index vector and selects a collapsed batch row.
    The new gather has no `indices_are_sorted` hint: lane after lane, the
    batched indices of the second case need not be sorted."""
    x, indices = xs
    offset, collapsed = ints(op, "offset_dims"), ints(op, "collapsed_slice_dims")
    start_map, sizes = ints(op, "start_index_map"), ints(op, "slice_sizes")
    vector_dim = integer(op, "index_vector_dim")
    if not batched[1]:
        offset, collapsed, start_map = [0] + _shift(offset), _shift(collapsed), _shift(start_map)
        sizes = [axis.size, *sizes]
    elif not batched[0]:
        offset, vector_dim = _shift(offset), vector_dim + 1
    else:
        indices, vector_dim = _with_batch_index(indices, vector_dim + 1)
        offset, collapsed, start_map = _shift(offset), [0] + _shift(collapsed), [0] + _shift(start_map)
        sizes = [1, *sizes]
    return [_ops.GATHER.bind(x, indices, offset_dims=tuple(offset), collapsed=tuple(collapsed),
                             start_map=tuple(start_map), index_vector_dim=vector_dim,
                             slice_sizes=tuple(sizes))], [True]


def _scatter(op, xs, batched, axis: Axis):
    """Operand and updates are batched (each lane writes its own copy).
    Unbatched indices: the batch axis is one more (full) update window
    dimension. Batched indices: the lane's position leads each index vector
    and selects an inserted batch row."""
    x, indices, updates = xs
    x, updates = batched_all([x, updates], [batched[0], batched[2]], axis.size)
    window, inserted = ints(op, "update_window_dims"), ints(op, "inserted_window_dims")
    dims_map, vector_dim = ints(op, "scatter_dims_to_operand_dims"), integer(op, "index_vector_dim")
    if not batched[1]:
        attrs = dict(update_window_dims=_lead(window), inserted_window_dims=i64_array(_shift(inserted)),
                     scatter_dims_to_operand_dims=i64_array(_shift(dims_map)))
    else:
        indices, vector_dim = _with_batch_index(indices, vector_dim + 1)
        attrs = dict(update_window_dims=i64_array(_shift(window)), inserted_window_dims=_lead(inserted),
                     scatter_dims_to_operand_dims=_lead(dims_map), index_vector_dim=i64(vector_dim))
    return same_op(op, [x, indices, updates], axis.size, **attrs), [True]


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

def _reported(rule):
    """`rule` with a failure to build its ops (a verifier or lax error on an
    op it could not batch) reported as a RuleError naming the op."""
    @functools.wraps(rule)
    def checked(op, xs, batched, axis: Axis):
        try:
            return rule(op, xs, batched, axis)
        except RuleError:
            raise
        except (ir.MLIRError, TypeError, ValueError) as error:
            flags = ", ".join("batched" if b else "unbatched" for b in batched)
            raise RuleError(op, f"jaxc-batch: cannot batch '{op.name}' (operands {flags}; batch size "
                            f"{axis.size}): {error}") from error
    return checked


RULES = {
    "jaxc.broadcast_in_dim": _shifted("broadcast_dimensions", lead=True),
    "jaxc.reshape": _shifted(),
    "jaxc.transpose": _shifted("permutation", lead=True),
    "jaxc.reverse": _shifted("dimensions"),
    "jaxc.squeeze": _shifted("dimensions"),
    "jaxc.expand_dims": _shifted("dimensions"),
    "jaxc.slice": _slice,
    "jaxc.concatenate": _concatenate,
    "jaxc.pad": _pad,
    "jaxc.dynamic_slice": _dynamic_slice,
    "jaxc.dynamic_update_slice": _dynamic_update_slice,
    "jaxc.gather": _gather,
    "jaxc.scatter": _scatter,
}
BATCH.update({name: _reported(rule) for name, rule in RULES.items()})
