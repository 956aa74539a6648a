"""Batching rules of dot_general, conv_general_dilated, dft, hermitian_dft, lu,
triangular_solve, cholesky, qr, eigh, svd, hessenberg, schur, eig and top_k.

dot_general folds the batch axis into its batch dimensions when both
operands are batched; when one is, the axis is a free dimension of that
operand (no loop, no copy of the other operand):

    %0 = jaxc.dot_general %x, %w, batch = [] x [], contract = [0] x [0]
           : tensor<3xf32>, tensor<3xf32> -> tensor<f32>     (x batched, w not)
  ->
    %0 = jaxc.dot_general %xs, %w, batch = [] x [], contract = [1] x [0]
           : tensor<8x3xf32>, tensor<3xf32> -> tensor<8xf32>

conv_general_dilated folds the batch axis into one of its own dimensions:
a batched lhs into the conv's batch dimension, a batched rhs into its output
features, both into features with B times the groups (as JAX does); batch
or feature groups stay outermost in the folded dimension.

dft (and hermitian_dft) transforms along one axis at every position of the others: the
batched operand is transformed as it is, along the axis one further on.

    %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<16xf32> -> tensor<16xcomplex<f32>>   (x batched)
  ->
    %0 = jaxc.dft %xs, axis = 1, sign = -1, scale = 1.0 : tensor<8x16xf32> -> tensor<8x16xcomplex<f32>>

lu, triangular_solve, cholesky, qr, eigh, svd, hessenberg, schur and eig work on every matrix of their
operands' leading axes, and
top_k along the last axis at every position of the others: the batch axis
is one more of them (an unbatched operand of triangular_solve broadcast along it).
"""
from __future__ import annotations

from mlir import ir

from .interpreter import BATCH, Axis, batched_all, i64, i64_array, integer, ints, moveaxis, rebuild, same_op


def _shift(dims) -> list[int]:
    return [d + 1 for d in dims]


def _dot_general(op, xs, batched, axis: Axis):
    lhs, rhs = xs
    lb, rb = ints(op, "lhs_batching_dimensions"), ints(op, "rhs_batching_dimensions")
    lc, rc = ints(op, "lhs_contracting_dimensions"), ints(op, "rhs_contracting_dimensions")
    if batched[0]:
        lb, lc = _shift(lb), _shift(lc)
    if batched[1]:
        rb, rc = _shift(rb), _shift(rc)
    if all(batched):
        lb, rb = [0] + lb, [0] + rb
        position = 0
    elif batched[0]:
        position = len(lb)  # lhs dim 0 is the first lhs free dimension
    else:
        position = len(rb) + (lhs.ndim - len(lb) - len(lc))
    lhs_free = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rhs_free = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    shape = [lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lhs_free] + [rhs.shape[d] for d in rhs_free]
    element = ir.RankedTensorType(op.results[0].type).element_type
    out = rebuild(op, [lhs, rhs], [ir.RankedTensorType.get(shape, element)],
                  lhs_batching_dimensions=i64_array(lb), rhs_batching_dimensions=i64_array(rb),
                  lhs_contracting_dimensions=i64_array(lc), rhs_contracting_dimensions=i64_array(rc))[0]
    return [moveaxis(out, position, 0)], [True]


BATCH["jaxc.dot_general"] = _dot_general


def _fold(x, dim: int, groups: int):
    """Batched `x` (batch axis leading) with the batch axis folded into its
    dimension `dim` (counted without the batch axis): that dimension, seen
    as (groups, rest), becomes (groups, batch, rest) flattened, so groups
    stay outermost."""
    from jaxc import lax
    size, shape = x.shape[0], list(x.shape[1:])
    if groups > 1:
        x = lax.reshape(x, (size, *shape[:dim], groups, shape[dim] // groups, *shape[dim + 1:]))
    x = moveaxis(x, 0, dim + (groups > 1))
    return lax.reshape(x, (*shape[:dim], shape[dim] * size, *shape[dim + 1:]))


def _unfold(y, dim: int, groups: int, size: int, unbatched: int):
    """The inverse of `_fold`: dimension `dim` of `y` (`unbatched` elements
    per lane), seen as (groups, size, rest), gives up its `size` part as a
    leading batch axis."""
    from jaxc import lax
    shape = list(y.shape)
    rest = unbatched // groups
    split = [groups, size, rest] if groups > 1 else [size, rest]
    y = lax.reshape(y, (*shape[:dim], *split, *shape[dim + 1:]))
    y = moveaxis(y, dim + (groups > 1), 0)
    return lax.reshape(y, (size, *shape[:dim], groups * rest, *shape[dim + 1:]))


def _conv(op, xs, batched, axis: Axis):
    """One convolution for the whole batch:

    - lhs batched: the batch axis joins the lhs batch dimension (inside each
      of the batch groups) and leaves the output batch dimension;
    - rhs batched: it joins the rhs output features (inside each feature or
      batch group) and leaves the output features;
    - both: it joins the lhs features (feature_group_count times B) or, with
      batch groups, the lhs batch (batch_group_count times B), and the rhs
      output features; each lane is then its own group.
    """
    lhs, rhs = xs
    size = axis.size
    lhs_spec, rhs_spec, out_spec = ints(op, "lhs_spec"), ints(op, "rhs_spec"), ints(op, "out_spec")
    groups, batch_groups = (integer(op, name) if name in op.attributes else 1
                            for name in ("feature_group_count", "batch_group_count"))
    attrs = {}
    if all(batched):
        if batch_groups > 1:
            lhs = _fold(lhs, lhs_spec[0], 1)
            attrs["batch_group_count"] = i64(batch_groups * size)
        else:
            lhs = _fold(lhs, lhs_spec[1], 1)
            attrs["feature_group_count"] = i64(groups * size)
        rhs = _fold(rhs, rhs_spec[0], 1)
        out_dim, out_groups = out_spec[1], 1
    elif batched[0]:
        lhs = _fold(lhs, lhs_spec[0], batch_groups)
        out_dim, out_groups = out_spec[0], 1
    else:
        rhs = _fold(rhs, rhs_spec[0], groups * batch_groups)  # one of them is 1
        out_dim, out_groups = out_spec[1], groups * batch_groups
    result = ir.RankedTensorType(op.results[0].type)
    shape = list(result.shape)
    shape[out_dim] *= size
    out = rebuild(op, [lhs, rhs], [ir.RankedTensorType.get(shape, result.element_type)], **attrs)[0]
    return [_unfold(out, out_dim, out_groups, size, result.shape[out_dim])], [True]


BATCH["jaxc.conv_general_dilated"] = _conv


def _dft(op, xs, batched, axis: Axis):
    return same_op(op, xs, axis.size, axis=i64(integer(op, "axis") + 1)), [True]


BATCH["jaxc.dft"] = _dft
BATCH["jaxc.hermitian_dft"] = _dft


def _leading_batch_axes(op, xs, batched, axis: Axis):
    return same_op(op, xs, axis.size), [True] * len(op.results)


BATCH["jaxc.lu"] = _leading_batch_axes
BATCH["jaxc.cholesky"] = _leading_batch_axes
BATCH["jaxc.qr"] = _leading_batch_axes
BATCH["jaxc.eigh"] = _leading_batch_axes
BATCH["jaxc.svd"] = _leading_batch_axes
BATCH["jaxc.hessenberg"] = _leading_batch_axes
BATCH["jaxc.schur"] = _leading_batch_axes
BATCH["jaxc.eig"] = _leading_batch_axes
BATCH["jaxc.top_k"] = _leading_batch_axes  # along the last axis: every other axis is a batch axis


def _triangular_solve(op, xs, batched, axis: Axis):
    return same_op(op, batched_all(xs, batched, axis.size), axis.size), [True]


BATCH["jaxc.triangular_solve"] = _triangular_solve
