"""Batching rules of the collectives and axis_index over the mapped axis.

A collective naming the request's `axis_name` acts across the lanes of the
batch axis, which is what vmap's named axis means:

    psum / pmean / pmax / pmin   a reduction over the batch axis; the result
                                 is unbatched (every lane sees it). Of an
                                 unbatched x: size * x, x, x, x.
    all_gather                   the batch moved to `dimension` (tiled: merged
                                 into it); unbatched.
    all_to_all                   split axis cut into size chunks; chunk i of
                                 every lane goes to lane i, concatenated in
                                 lane order along concat_axis; batched.
    ppermute                     lane d gets lane s's value for each (s, d)
                                 of perm (a gather), zeros where nothing
                                 arrives; batched.
    axis_index                   an iota over the batch; batched.
    pvary                        x, batched (an unbatched x broadcast over the
                                 lanes: its transpose then sums them, as the
                                 psum that transposes a pvary does).

    %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>        (x batched, B = 8)
  ->
    %s = jaxc.reduce sum %xs, dims = [0] : tensor<8x3xf32> -> tensor<3xf32>

A collective over another name belongs to an enclosing vmap (requests are
expanded innermost first): it stays, applied per lane to the batched values
(its dimension attributes shift by one), and the enclosing expansion
reduces it later (or, for a pmap's axis, the SPMD lowering,
passes/lowering/collectives.py). Reductions over several names drop the
request's name and leave the rest as the same op. A name that neither a vmap
request of the module nor its pmap (`jaxc.spmd_axes`) binds is an error, as
are all_gather, all_to_all and ppermute over several names.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from jaxc import lax

from ..autodiff.jvp import apply_op
from ..ir import module_of, ops_named
from ..lowering.collectives import spmd_axes
from .interpreter import (
    AXIS_OPS,
    BATCH,
    Axis,
    RuleError,
    batched_type,
    broadcast_batch,
    i64,
    integer,
    moveaxis,
    rebuild,
)


def _names(op: ir.Operation) -> list[str]:
    if op.name == "jaxc.axis_index":
        return [ir.StringAttr(op.attributes["axis_name"]).value]
    return [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["axes"])]


def _check_bound(op: ir.Operation, names: list[str], axis: Axis) -> None:
    """Every name is bound by some vmap request still in the module (the
    enclosing ones are: they are expanded after this one) or by the pmap
    whose per-device program the module is (`jaxc.spmd_axes`)."""
    module = module_of(op)
    bound: set[str] = set()
    bound.update(name for name, _ in spmd_axes(module))
    for request in ops_named(module, ("jaxc.vmap",)):
        if "axis_name" in request.attributes:
            bound.add(ir.StringAttr(request.attributes["axis_name"]).value)
    for name in names:
        if name not in bound:
            mapped = f"'{axis.name}'" if axis.name is not None else "an unnamed axis"
            raise RuleError(op, f"jaxc-batch: '{op.name}' names the axis '{name}', which no enclosing "
                            f"vmap binds (this vmap maps {mapped}, and no pmap binds it)")


def _foreign(op: ir.Operation, xs: list, batched: list, axis: Axis, names: list[str],
             **shifted: int) -> tuple[list, list]:
    """A collective of an enclosing vmap: per lane. `shifted` names the
    dimension attributes that move by one behind the batch axis."""
    _check_bound(op, names, axis)
    if not any(batched):
        return apply_op(op, xs), [False] * len(op.results)
    attrs = {k: i64(integer(op, k) + 1) for k in shifted}
    return rebuild(op, xs, [batched_type(r.type, axis.size) for r in op.results], **attrs), [True]


def _single(op: ir.Operation, names: list[str]) -> None:
    if len(names) > 1:
        raise RuleError(op, f"jaxc-batch: '{op.name}' over several axes ({', '.join(names)}) is not "
                        "batched yet; name one axis")


def _check_size(op: ir.Operation, axis: Axis) -> None:
    size = integer(op, "axis_size")
    if size != axis.size:
        raise RuleError(op, f"jaxc-batch: '{op.name}' has axis_size = {size} but the vmap of axis "
                        f"'{axis.name}' has size {axis.size}")


def _is_bool(x) -> bool:
    return x.dtype == np.bool_


# ---------------------------------------------------------------------------
# psum, pmean, pmax, pmin
# ---------------------------------------------------------------------------

def _all_reduce(kind: str):
    def rule(op, xs, batched, axis: Axis):
        names = _names(op)
        if axis.name not in names:
            return _foreign(op, xs, batched, axis, names)
        (x,), (b,) = xs, batched
        if not b and kind == "sum" and not _is_bool(x):
            y = lax.mul(x, np.array(axis.size, x.dtype))
        elif not b:  # every lane holds x (a boolean psum is an `or`, as with a batched x)
            y = x
        elif kind == "mean":
            y = lax.div(lax.reduce_sum(x, (0,)), np.array(axis.size, x.dtype))
        elif _is_bool(x):
            y = {"sum": lax.reduce_or, "max": lax.reduce_or, "min": lax.reduce_and}[kind](x, (0,))
        else:
            y = {"sum": lax.reduce_sum, "max": lax.reduce_max, "min": lax.reduce_min}[kind](x, (0,))
        rest = [n for n in names if n != axis.name]
        if rest:  # the other names belong to enclosing vmaps
            _check_bound(op, rest, axis)
            y = rebuild(op, [y], [op.results[0].type],
                        axes=ir.ArrayAttr.get([ir.StringAttr.get(n) for n in rest]))[0]
        return [y], [False]
    return rule


# ---------------------------------------------------------------------------
# all_gather, all_to_all, ppermute, axis_index
# ---------------------------------------------------------------------------

def _all_gather(op, xs, batched, axis: Axis):
    names = _names(op)
    dim = integer(op, "dimension")
    if axis.name not in names:
        return _foreign(op, xs, batched, axis, names, dimension=dim)
    _single(op, names)
    _check_size(op, axis)
    (x,), (b,) = xs, batched
    stacked = moveaxis(x if b else broadcast_batch(x, axis.size), 0, dim)
    if "tiled" in op.attributes:
        shape = list(stacked.shape)
        shape[dim:dim + 2] = [shape[dim] * shape[dim + 1]]
        stacked = lax.reshape(stacked, shape)
    return [stacked], [False]


def _all_to_all(op, xs, batched, axis: Axis):
    names = _names(op)
    split, concat = integer(op, "split_axis"), integer(op, "concat_axis")
    if axis.name not in names:
        return _foreign(op, xs, batched, axis, names, split_axis=split, concat_axis=concat)
    _single(op, names)
    _check_size(op, axis)
    (x,), (b,) = xs, batched
    x = x if b else broadcast_batch(x, axis.size)
    size, lane = axis.size, list(x.shape[1:])
    # (source, ..., chunk, piece, ...): the split dimension cut into chunks
    chunked = lax.reshape(x, [size, *lane[:split], size, lane[split] // size, *lane[split + 1:]])
    # where each dimension of a lane's piece lies in `chunked`
    where = [k + 1 if k < split else k + 2 for k in range(len(lane))]
    where[split] = split + 2
    perm = [split + 1] + where[:concat] + [0] + where[concat:]
    moved = lax.transpose(chunked, perm)  # (chunk = lane, ..., source, concat dim, ...)
    shape = list(moved.shape)
    shape[concat + 1:concat + 3] = [shape[concat + 1] * shape[concat + 2]]
    return [lax.reshape(moved, shape)], [True]


def _ppermute(op, xs, batched, axis: Axis):
    names = _names(op)
    if axis.name not in names:
        return _foreign(op, xs, batched, axis, names)
    _single(op, names)
    flat = list(ir.DenseI64ArrayAttr(op.attributes["perm"]))
    source = {}
    for s, d in zip(flat[::2], flat[1::2]):
        if s >= axis.size or d >= axis.size:
            raise RuleError(op, f"jaxc-batch: ppermute pair ({s}, {d}) is out of range for the axis "
                            f"'{axis.name}' of size {axis.size}")
        source[d] = s
    (x,), (b,) = xs, batched
    receives = [d in source for d in range(axis.size)]
    if not b and all(receives):
        return [x], [False]
    x = x if b else broadcast_batch(x, axis.size)
    index = [source.get(d, d) for d in range(axis.size)]
    if index != list(range(axis.size)):
        rank = x.ndim - 1
        dn = lax.GatherDimensionNumbers(offset_dims=tuple(range(1, rank + 1)), collapsed_slice_dims=(0,),
                                        start_index_map=(0,))
        indices = lax.constant(np.array(index, np.int32).reshape(axis.size, 1))
        x = lax.gather(x, indices, dn, (1, *x.shape[1:]))
    if not all(receives):
        mask = lax.broadcast_in_dim(lax.constant(np.array(receives)), x.shape, (0,))
        x = lax.select(mask, x, lax.full(x.shape, 0, x.dtype))
    return [x], [True]


def _pvary(op, xs, batched, axis: Axis):
    names = _names(op)
    if axis.name not in names:
        return _foreign(op, xs, batched, axis, names)
    (x,), (b,) = xs, batched
    x = x if b else broadcast_batch(x, axis.size)
    rest = [n for n in names if n != axis.name]
    if rest:  # the other names belong to enclosing vmaps
        _check_bound(op, rest, axis)
        x = rebuild(op, [x], [batched_type(op.results[0].type, axis.size)],
                    axes=ir.ArrayAttr.get([ir.StringAttr.get(n) for n in rest]))[0]
    return [x], [True]


def _axis_index(op, xs, batched, axis: Axis):
    names = _names(op)
    if axis.name not in names:
        return _foreign(op, xs, batched, axis, names)
    return [lax.iota(np.int32, axis.size)], [True]


RULES = {"jaxc.psum": _all_reduce("sum"), "jaxc.pmean": _all_reduce("mean"),
         "jaxc.pmax": _all_reduce("max"), "jaxc.pmin": _all_reduce("min"),
         "jaxc.all_gather": _all_gather, "jaxc.all_to_all": _all_to_all,
         "jaxc.ppermute": _ppermute, "jaxc.axis_index": _axis_index, "jaxc.pvary": _pvary}
BATCH.update(RULES)
AXIS_OPS.update(RULES)
