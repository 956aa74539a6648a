"""Derivative rules of the collectives, for the per-device program of a
pmap (under vmap, jaxc-batch expands them into ordinary ops before
jaxc-autodiff runs, so these see only a pmap's axis).

Each is linear in its operand: forward mode applies the same collective to
the tangents, and reverse mode its transpose, as JAX's rules do:

    psum / pmean         <->  psum / pmean of the cotangents
    psum invariant       <->  pvary of the cotangents: JAX's varying-to-
                              invariant collective
    pvary                <->  invariant psum of the cotangents (the gradient
                              of a value replicated over a shard_map's
                              devices sums theirs)
    all_gather           <->  psum, then this member's slice (reduce-scatter);
                              marked `invariant`: the slice alone
    all_to_all           <->  all_to_all with split and concat axes swapped
    ppermute             <->  ppermute along the reversed pairs
    pmax / pmin          not differentiable (as in JAX)

    %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
  vjp:
    %ct_x = jaxc.psum %ct_s, axes = ["i"] : tensor<3xf32>
"""
from __future__ import annotations

from mlir import ir

from jaxc import lax
from jaxc.lax import _parallel as P

from ..ir import RuleError, integer, ints
from .jvp import JVP, NOT_DIFFERENTIABLE, apply_op
from .vjp import VJP


def _names(op: ir.Operation) -> tuple[str, ...]:
    return tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["axes"]))


def _linear(op, xs, ys, ts):
    return [None if ts[0] is None else apply_op(op, [ts[0]])[0]]


def _reduction_transpose(op, xs, ys, cts):
    """psum/pmean: themselves; an `invariant` psum (a shard_map body under
    check_vma, passes/infer_vma.py, which also turns an invariant pmean into
    psum and a division): a pvary."""
    if "invariant" not in op.attributes:
        return [apply_op(op, [cts[0]])[0]]
    if op.name != "jaxc.psum":
        raise RuleError(op, f"jaxc-autodiff: an invariant '{op.name}' has no transpose (jaxc-infer-vma "
                            "writes invariant means as psum and a division)")
    return [P.PVARY.bind(cts[0], axes=_names(op))]


def _pvary_transpose(op, xs, ys, cts):
    return [P.PSUM_INVARIANT.bind(cts[0], axes=_names(op))]


def _all_gather_transpose(op, xs, ys, cts):
    names = _names(op)
    if len(names) != 1:
        raise RuleError(op, f"jaxc-autodiff: the transpose of '{op.name}' over several axes "
                            f"({', '.join(names)}) is not supported")
    dim = integer(op, "dimension")
    total = cts[0] if "invariant" in op.attributes else P._REDUCE_PRIMS["psum"].bind(cts[0], axes=names)
    index = P.AXIS_INDEX.bind(name=names[0])
    x = xs[0]
    chunk = x.shape[dim] if "tiled" in op.attributes else 1
    start = lax.mul(index, lax.full((), chunk, index.dtype))
    starts = [start if d == dim else lax.full((), 0, index.dtype) for d in range(total.ndim)]
    sizes = list(total.shape)
    sizes[dim] = chunk
    return [lax.reshape(lax.dynamic_slice(total, starts, sizes), x.shape)]


def _all_to_all_transpose(op, xs, ys, cts):
    return [P.ALL_TO_ALL.bind(cts[0], axes=_names(op), split_axis=integer(op, "concat_axis"),
                              concat_axis=integer(op, "split_axis"), axis_size=integer(op, "axis_size"))]


def _ppermute_transpose(op, xs, ys, cts):
    pairs = ints(op, "perm")
    reversed_pairs = tuple(i for s, d in zip(pairs[0::2], pairs[1::2]) for i in (d, s))
    return [P.PPERMUTE.bind(cts[0], axes=_names(op), perm=reversed_pairs)]


for _name in ("psum", "pmean", "pvary", "all_gather", "all_to_all", "ppermute"):
    JVP[f"jaxc.{_name}"] = _linear
    NOT_DIFFERENTIABLE.pop(f"jaxc.{_name}", None)
VJP["jaxc.psum"] = VJP["jaxc.pmean"] = _reduction_transpose
VJP["jaxc.pvary"] = _pvary_transpose
VJP["jaxc.all_gather"] = _all_gather_transpose
VJP["jaxc.all_to_all"] = _all_to_all_transpose
VJP["jaxc.ppermute"] = _ppermute_transpose
