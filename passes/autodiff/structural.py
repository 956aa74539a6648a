"""Derivative rules of the shape and indexing ops.

They are linear in their array operands, so forward mode applies the same op
to the tangents (`apply_op`), and reverse mode needs only a transpose rule,
written with lax functions:

    broadcast_in_dim   <->  reduce sum over the new and the stretched dims
    slice              <->  pad with zeros (interior padding undoes strides)
    dynamic_slice      <->  dynamic_update_slice into zeros
    gather             <->  scatter-add into zeros (at the clamped windows)
    scatter            <->  gather (zero where the window was dropped)

Scatters that combine with mul, min or max are not linear: their rules
(forward and reverse) read the primal values. scatter-mul scales the
operand's tangent by the updates and, under `unique_indices`, adds the
operand times the updates' tangent; in scatter-min/max the operand and the
updates that tie for an element's result share its derivative evenly.
"""
from __future__ import annotations

import numpy as np

from jaxc import lax
from jaxc.lax import _ops

from ..ir import RuleError, integer, ints, is_inexact
from ..pipeline import RefusedProgram
from .jvp import JVP, apply_op, instantiate
from .vjp import VJP


def _zeros(x):
    return lax.full(x.shape, 0, x.dtype)


def _float(x) -> bool:
    return is_inexact(x.value.type)


# ---------------------------------------------------------------------------
# Forward mode: the op itself on the tangents of its linear operands
# ---------------------------------------------------------------------------

def _linear_in_first(op, xs, ys, ts):
    """Ops linear in operand 0 whose other operands are indices."""
    return apply_op(op, [ts[0]] + xs[1:]) if ts[0] is not None else [None] * len(ys)


def _jointly_linear(count):
    """Ops linear in their first `count` operands together (the rest are indices)."""
    def rule(op, xs, ys, ts):
        tangents = [instantiate(t, x) for t, x in zip(ts[:count], xs[:count])]
        return apply_op(op, tangents + xs[count:])
    return rule


for _name in ("jaxc.broadcast_in_dim", "jaxc.reshape", "jaxc.transpose", "jaxc.reverse", "jaxc.slice",
              "jaxc.squeeze", "jaxc.expand_dims", "jaxc.dynamic_slice", "jaxc.gather"):
    JVP[_name] = _linear_in_first
JVP["jaxc.pad"] = _jointly_linear(2)
JVP["jaxc.dynamic_update_slice"] = _jointly_linear(2)
JVP["jaxc.concatenate"] = lambda op, xs, ys, ts: apply_op(op, [instantiate(t, x) for t, x in zip(ts, xs)])


# the combiner region's op -> the scatter's kind
_COMBINERS = {"jaxc.add": "add", "jaxc.mul": "mul", "jaxc.min": "min", "jaxc.max": "max"}


def _scatter_kind(op) -> str:
    """set, add, mul, min or max, from the combiner region."""
    body = list(op.regions[0].blocks[0].operations)
    if len(body) == 1:
        return "set"
    if len(body) == 2 and body[0].name in _COMBINERS:
        return _COMBINERS[body[0].name]
    raise RuleError(op, f"jaxc-autodiff: scatter combining with '{body[0].name}' is not differentiable "
                    "(only set, add, mul, min and max are)")


def _scatter_into(op, kind: str, base, idx, updates):
    """A scatter-`kind` of `updates` into `base` at `idx`, with `op`'s windows
    and promise of unique indices."""
    return _ops.SCATTER.bind(base, idx, updates, kind=kind,
                             update_window_dims=tuple(ints(op, "update_window_dims")),
                             inserted=tuple(ints(op, "inserted_window_dims")),
                             dims_map=tuple(ints(op, "scatter_dims_to_operand_dims")),
                             index_vector_dim=integer(op, "index_vector_dim"),
                             unique_indices="unique_indices" in op.attributes)


def _at_updates(op, value, idx, updates):
    """`value` (shaped like the operand) read where each element of `updates`
    lands (the gather inverse to the scatter), and whether it lands at all
    (the scatter drops a window that does not fit; the gather clamps it)."""
    window, inserted = ints(op, "update_window_dims"), ints(op, "inserted_window_dims")
    dims_map, vector_dim = ints(op, "scatter_dims_to_operand_dims"), integer(op, "index_vector_dim")
    sizes, k = [], 0
    for d in range(value.ndim):
        if d in inserted:
            sizes.append(1)
        else:
            sizes.append(updates.shape[window[k]])
            k += 1
    read = _ops.GATHER.bind(value, idx, offset_dims=tuple(window), collapsed=tuple(inserted),
                            start_map=tuple(dims_map), index_vector_dim=vector_dim, slice_sizes=tuple(sizes))
    vectors = _with_index_vector(idx, vector_dim)
    limits = _window_limits(vectors, vector_dim, dims_map, value.shape, sizes)
    fits = lax.bitwise_and(lax.ge(vectors, lax.full(vectors.shape, 0, vectors.dtype)), lax.le(vectors, limits))
    fits = lax.reduce_and(fits, [vector_dim])
    scatter_dims = [d for d in range(updates.ndim) if d not in window]
    return read, lax.broadcast_in_dim(fits, read.shape, scatter_dims)


def _unique_indices(op) -> None:
    """JAX differentiates scatter_mul in its updates only under a promise of unique indices."""
    if "unique_indices" not in op.attributes:
        raise RefusedProgram(op, NotImplementedError,
                             "scatter_mul gradients are only implemented if `unique_indices=True`")


def _extremal_ties(op, x, idx, updates, out):
    """For scatter-min/max: whether the operand equals the result (kept),
    whether each update does (wins), and how many contenders tie for each
    result element (count). Ties split the derivative evenly (JAX's
    convention)."""
    read, fits = _at_updates(op, out, idx, updates)
    wins = lax.convert_element_type(lax.bitwise_and(fits, lax.eq(updates, read)), x.dtype)
    kept = lax.convert_element_type(lax.eq(x, out), x.dtype)
    return kept, wins, lax.add(kept, _scatter_into(op, "add", _zeros(x), idx, wins))


def _scatter_linear_jvp(op, xs, ys, ts):
    return apply_op(op, [instantiate(ts[0], xs[0]), xs[1], instantiate(ts[2], xs[2])])


def _scatter_mul_jvp(op, xs, ys, ts):
    """d(x * u) = dx * u + x * du at each updated element (du: unique indices only)."""
    x, idx, updates = xs
    out = _scatter_into(op, "mul", instantiate(ts[0], x), idx, updates)
    if ts[2] is not None:
        _unique_indices(op)
        out = lax.add(out, lax.mul(x, _scatter_into(op, "add", _zeros(x), idx, ts[2])))
    return [out]


def _scatter_extremal_jvp(op, xs, ys, ts):
    x, idx, updates = xs
    kept, wins, count = _extremal_ties(op, x, idx, updates, ys[0])
    t_x, t_updates = instantiate(ts[0], x), instantiate(ts[2], updates)
    total = lax.add(lax.mul(kept, t_x), _scatter_into(op, "add", _zeros(x), idx, lax.mul(wins, t_updates)))
    return [lax.div(total, count)]


_SCATTER_JVP = {"set": _scatter_linear_jvp, "add": _scatter_linear_jvp, "mul": _scatter_mul_jvp,
                "min": _scatter_extremal_jvp, "max": _scatter_extremal_jvp}
JVP["jaxc.scatter"] = lambda op, xs, ys, ts: _SCATTER_JVP[_scatter_kind(op)](op, xs, ys, ts)


# ---------------------------------------------------------------------------
# Reverse mode: transposes
# ---------------------------------------------------------------------------

def _unbroadcast(ct, x, dims):
    """The transpose of broadcast_in_dim(x, ct.shape, dims)."""
    summed = [d for d in range(ct.ndim) if d not in dims]
    stretched = [d for i, d in enumerate(dims) if x.shape[i] == 1 and ct.shape[d] != 1]
    out = lax.reduce_sum(ct, sorted(summed + stretched))
    return lax.reshape(out, x.shape)


def _slice_transpose(op, xs, ys, cts):
    x, ct = xs[0], cts[0]
    start, strides = ints(op, "start_indices"), ints(op, "strides")
    real_limit = [s + (n - 1) * st + 1 if n else s for s, n, st in zip(start, ct.shape, strides)]
    config = [(s, d - lim, st - 1) for s, d, lim, st in zip(start, x.shape, real_limit, strides)]
    return [lax.pad(ct, lax.full((), 0, ct.dtype), config)]


def _pad_transpose(op, xs, ys, cts):
    ct = cts[0]
    low, high, interior = ints(op, "edge_padding_low"), ints(op, "edge_padding_high"), ints(op, "interior_padding")
    unpadded = lax.pad(ct, lax.full((), 0, ct.dtype), [(-lo, -hi, 0) for lo, hi in zip(low, high)])
    ct_x = lax.slice(unpadded, [0] * ct.ndim, unpadded.shape, [i + 1 for i in interior])
    everything = tuple(range(ct.ndim))
    return [ct_x, lax.sub(lax.reduce_sum(ct, everything), lax.reduce_sum(ct_x, everything))]


def _concatenate_transpose(op, xs, ys, cts):
    dim, ct, start, out = integer(op, "dimension"), cts[0], 0, []
    for x in xs:
        limit = list(ct.shape)
        limit[dim] = start + x.shape[dim]
        begin = [0] * ct.ndim
        begin[dim] = start
        out.append(lax.slice(ct, begin, limit) if _float(x) else None)
        start += x.shape[dim]
    return out


def _dynamic_slice_transpose(op, xs, ys, cts):
    return [lax.dynamic_update_slice(_zeros(xs[0]), cts[0], xs[1:])] + [None] * (len(xs) - 1)


def _dynamic_update_slice_transpose(op, xs, ys, cts):
    update, starts = xs[1], xs[2:]
    ct = cts[0]
    return [lax.dynamic_update_slice(ct, _zeros(update), starts),
            lax.dynamic_slice(ct, starts, update.shape)] + [None] * len(starts)


def _window_limits(idx, vector_dim: int, dims: list[int], operand_shape, sizes):
    """The largest start each index component may take (operand size minus
    window size along the dim it indexes), broadcast against `idx`."""
    limits = np.array([operand_shape[d] - sizes[d] for d in dims], np.int64).astype(idx.dtype)
    return lax.broadcast_in_dim(limits, idx.shape, [vector_dim])


def _with_index_vector(idx, vector_dim: int):
    """`idx` with its index vector as a dimension (an implicit trailing 1 made explicit)."""
    return lax.reshape(idx, idx.shape + (1,)) if vector_dim == idx.ndim else idx


def _gather_transpose(op, xs, ys, cts):
    x, idx = xs
    # gather clamps out-of-range windows into the operand: its cotangent goes
    # to the clamped windows, so the scatter-add gets the clamped indices.
    vector_dim, dims = integer(op, "index_vector_dim"), ints(op, "start_index_map")
    vectors = _with_index_vector(idx, vector_dim)
    limits = _window_limits(vectors, vector_dim, dims, x.shape, ints(op, "slice_sizes"))
    clamped = lax.clamp(lax.full(vectors.shape, 0, vectors.dtype), vectors, limits)
    idx = lax.reshape(clamped, idx.shape)
    scattered = _ops.SCATTER.bind(_zeros(x), idx, cts[0], kind="add",
                                  update_window_dims=tuple(ints(op, "offset_dims")),
                                  inserted=tuple(ints(op, "collapsed_slice_dims")),
                                  dims_map=tuple(ints(op, "start_index_map")),
                                  index_vector_dim=integer(op, "index_vector_dim"))
    return [scattered, None]


def _scatter_vjp(op, xs, ys, cts):
    """set/add: the transpose (set: nothing reaches the overwritten operand
    elements); mul: the transpose of _scatter_mul_jvp; min/max: each
    contender's share of the cotangent."""
    x, idx, updates = xs
    ct = cts[0]
    kind = _scatter_kind(op)
    if kind in ("min", "max"):
        kept, wins, count = _extremal_ties(op, x, idx, updates, ys[0])
        shared = lax.div(ct, count)
        read, _ = _at_updates(op, shared, idx, updates)
        return [lax.mul(kept, shared), None, lax.mul(wins, read)]
    if kind == "mul":
        def ct_updates():   # only if the updates are differentiated
            _unique_indices(op)
            read, fits = _at_updates(op, lax.mul(x, ct), idx, updates)
            return lax.select(fits, read, _zeros(read))
        return [_scatter_into(op, "mul", ct, idx, updates), None, ct_updates]
    read, fits = _at_updates(op, ct, idx, updates)
    ct_updates = lax.select(fits, read, _zeros(read))
    if kind == "add":
        return [ct, None, ct_updates]
    return [_scatter_into(op, "set", ct, idx, _zeros(updates)), None, ct_updates]


VJP.update({
    "jaxc.broadcast_in_dim": lambda op, xs, ys, cts: [_unbroadcast(cts[0], xs[0], ints(op, "broadcast_dimensions"))],
    "jaxc.reshape": lambda op, xs, ys, cts: [lax.reshape(cts[0], xs[0].shape)],
    "jaxc.squeeze": lambda op, xs, ys, cts: [lax.reshape(cts[0], xs[0].shape)],
    "jaxc.expand_dims": lambda op, xs, ys, cts: [lax.reshape(cts[0], xs[0].shape)],
    "jaxc.transpose": lambda op, xs, ys, cts: [lax.transpose(cts[0], np.argsort(ints(op, "permutation")).tolist())],
    "jaxc.reverse": lambda op, xs, ys, cts: [lax.rev(cts[0], ints(op, "dimensions"))],
    "jaxc.slice": _slice_transpose,
    "jaxc.pad": _pad_transpose,
    "jaxc.concatenate": _concatenate_transpose,
    "jaxc.dynamic_slice": _dynamic_slice_transpose,
    "jaxc.dynamic_update_slice": _dynamic_update_slice_transpose,
    "jaxc.gather": _gather_transpose,
    "jaxc.scatter": _scatter_vjp,
})
