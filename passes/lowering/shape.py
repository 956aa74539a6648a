"""Lowering rules for shape ops: data movement on tensors.

    %t = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  ->
    %e = tensor.empty() : tensor<3x2xf32>
    %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]

Static slices become tensor.extract_slice / insert_slice; reshapes become
tensor.collapse_shape / expand_shape (`_reshape`); broadcasts and reversals are
linalg.generic ops whose input map does the work (`(d0, d1) -> (d1)`,
`(d0) -> (n - 1 - d0)`). Dynamic start indices are clamped into range as XLA
does.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from .. import linalg_ops as linalg
from .common import (
    clamp_start,
    element_type,
    empty,
    generic,
    identity_map,
    loop_index,
    operand_coordinates,
    padded,
    read_index,
    shape_of,
    signless,
    widen_index,
)


def _array(op, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _int(op, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _reshape(value: ir.Value, result_type: ir.Type) -> ir.Value:
    """Row-major reshape as tensor.collapse_shape and/or expand_shape, which
    elementwise fusion folds into the loops around them (a tensor.reshape
    stops fusion and becomes a copy). A reshape that neither groups the
    source's dims nor the result's (2x3 -> 3x2) collapses to 1-D first; one
    with a size-0 dim stays a tensor.reshape.

        tensor<4096xf32> -> tensor<4096x1xf32>:  tensor.expand_shape %x [[0, 1]]
        tensor<2x3xf32> -> tensor<3x2xf32>:      collapse_shape [[0, 1]], expand_shape [[0, 1]]
    """
    source, shape = shape_of(value.type), shape_of(result_type)
    result_type = signless(result_type)
    element = ir.RankedTensorType(result_type).element_type
    if 0 in source or 0 in shape:
        index = ir.IndexType.get()
        shape_type = ir.RankedTensorType.get([len(shape)], index)
        attr = ir.DenseElementsAttr.get(np.array(shape, dtype=np.int64).reshape(len(shape)),
                                        type=shape_type)
        return tensor.reshape(result_type, value, arith.constant(shape_type, attr))
    if len(shape) <= len(source) and (groups := reshape_groups(source, shape)) is not None:
        return tensor.collapse_shape(result_type, value, groups)
    if len(shape) > len(source) and (groups := reshape_groups(shape, source)) is not None:
        return tensor.expand_shape(result_type, value, groups, [], shape)
    flat = tensor.collapse_shape(ir.RankedTensorType.get([int(np.prod(source))], element), value,
                                 [list(range(len(source)))] if source else [])
    return tensor.expand_shape(result_type, flat, [list(range(len(shape)))] if shape else [], [], shape)


def reshape_groups(longer: list[int], shorter: list[int]) -> list[list[int]] | None:
    """The dims of `longer` that make up each dim of `shorter` (consecutive
    runs whose product is that dim; trailing 1s join the last run), or None
    when there are none. No size may be 0.

        reshape_groups([4096, 1], [4096]) == [[0, 1]]
        reshape_groups([2, 3, 4], [6, 4]) == [[0, 1], [2]]
        reshape_groups([2, 3], [3, 2]) is None
    """
    if not shorter:
        return [] if all(d == 1 for d in longer) else None
    groups: list[list[int]] = []
    i = 0
    for d in shorter:
        group: list[int] = []
        product = 1
        while i < len(longer) and (product < d or not group):
            group.append(i)
            product *= longer[i]
            i += 1
        if product != d or not group:
            return None
        groups.append(group)
    if any(longer[k] != 1 for k in range(i, len(longer))):
        return None
    groups[-1].extend(range(i, len(longer)))
    return groups


def reshape(op, elements):
    if signless(op.operands[0].type) == signless(op.results[0].type):
        return [op.operands[0]]
    return [_reshape(op.operands[0], op.results[0].type)]


def broadcast_in_dim(op, elements):
    """result[d...] = operand[d_{dims[i]}] (index 0 where the operand has size 1)."""
    out_shape = shape_of(op.results[0].type)
    in_shape = shape_of(op.operands[0])
    dims = _array(op, "broadcast_dimensions")
    rank = len(out_shape)
    exprs = [ir.AffineConstantExpr.get(0) if in_shape[i] == 1 and out_shape[d] != 1
             else ir.AffineDimExpr.get(d) for i, d in enumerate(dims)]
    maps = [ir.AffineMap.get(rank, 0, exprs), identity_map(rank)]
    return generic([op.results[0].type], [op.operands[0]], maps, ["parallel"] * rank,
                   lambda x, _out: [x])


def transpose(op, elements):
    if not shape_of(op.operands[0]):  # rank 0: nothing to permute (and no empty permutation map)
        return [op.operands[0]]
    result = op.results[0].type
    init = empty(shape_of(result), element_type(result))
    return [linalg.transpose(op.operands[0], outs=[init],
                             permutation=_array(op, "permutation")).results[0]]


def reverse(op, elements):
    """result[..., i, ...] = operand[..., n - 1 - i, ...] on the reversed dims."""
    shape = shape_of(op.operands[0])
    dims = set(_array(op, "dimensions"))
    rank = len(shape)
    exprs = []
    for d in range(rank):
        dim = ir.AffineDimExpr.get(d)
        exprs.append(ir.AffineExpr.__sub__(ir.AffineConstantExpr.get(shape[d] - 1), dim)
                     if d in dims else dim)
    maps = [ir.AffineMap.get(rank, 0, exprs), identity_map(rank)]
    return generic([op.results[0].type], [op.operands[0]], maps, ["parallel"] * rank,
                   lambda x, _out: [x])


def _empty_result(op):
    """Slices with a zero-size result are just an empty tensor (extract_slice
    rejects offset 0 into a zero-size dimension)."""
    result = op.results[0].type
    return [empty(shape_of(result), element_type(result))] if 0 in shape_of(result) else None


def slice_(op, elements):
    if (zero_size := _empty_result(op)) is not None:
        return zero_size
    return [tensor.extract_slice(signless(op.results[0].type), op.operands[0], [], [], [],
                                 _array(op, "start_indices"),
                                 [s for s in shape_of(op.results[0].type)],
                                 _array(op, "strides"))]


def _clamped_starts(indices, index_types, operand_shape, sizes) -> list[ir.Value]:
    """XLA clamps each start into [0, dim - size]; returns index values."""
    return [clamp_start(read_index(idx, [], t), dim - size, t)
            for idx, t, dim, size in zip(indices, index_types, operand_shape, sizes)]


def _dynamic_attr(n: int) -> list[int]:
    return [ir.ShapedType.get_dynamic_stride_or_offset()] * n


def dynamic_slice(op, elements):
    if (zero_size := _empty_result(op)) is not None:
        return zero_size
    operand, indices = op.operands[0], list(op.operands[1:])
    sizes = _array(op, "slice_sizes")
    index_types = [elements[1 + i] for i in range(len(indices))]
    starts = _clamped_starts(indices, index_types, shape_of(operand), sizes)
    return [tensor.extract_slice(signless(op.results[0].type), operand, starts, [], [],
                                 _dynamic_attr(len(sizes)), sizes, [1] * len(sizes))]


def dynamic_update_slice(op, elements):
    operand, update, indices = op.operands[0], op.operands[1], list(op.operands[2:])
    sizes = shape_of(update)
    index_types = [elements[2 + i] for i in range(len(indices))]
    starts = _clamped_starts(indices, index_types, shape_of(operand), sizes)
    return [tensor.insert_slice(update, operand, starts, [], [], _dynamic_attr(len(sizes)),
                                sizes, [1] * len(sizes))]


def concatenate(op, elements):
    """Insert each input at its running offset along the dimension."""
    dim = _int(op, "dimension")
    result = op.results[0].type
    acc = empty(shape_of(result), element_type(result))
    offset = 0
    for value in op.operands:
        shape = shape_of(value)
        if 0 in shape:  # contributes nothing; insert_slice rejects its offsets
            continue
        offsets = [offset if d == dim else 0 for d in range(len(shape))]
        acc = tensor.insert_slice(value, acc, [], [], [], offsets, shape, [1] * len(shape))
        offset += shape[dim]
    return [acc]


def pad(op, elements):
    """The operand padded with the padding value (common.padded)."""
    operand, value = op.operands
    low, high, interior = (_array(op, n) for n in
                           ("edge_padding_low", "edge_padding_high", "interior_padding"))
    return [padded(operand, element_type(op.results[0].type), tensor.extract(value, []), low, high, interior)]


def squeeze(op, elements):
    return [_reshape(op.operands[0], op.results[0].type)]


def expand_dims(op, elements):
    return [_reshape(op.operands[0], op.results[0].type)]


RULES = {
    "jaxc.reshape": reshape,
    "jaxc.broadcast_in_dim": broadcast_in_dim,
    "jaxc.transpose": transpose,
    "jaxc.reverse": reverse,
    "jaxc.slice": slice_,
    "jaxc.dynamic_slice": dynamic_slice,
    "jaxc.dynamic_update_slice": dynamic_update_slice,
    "jaxc.concatenate": concatenate,
    "jaxc.pad": pad,
    "jaxc.squeeze": squeeze,
    "jaxc.expand_dims": expand_dims,
}


def gather(op, elements):
    """XLA gather as one linalg.generic over the result: each element reads its
    start indices from `start_indices`, clamps them so the slice stays in
    bounds, adds its offset within the slice and extracts from the operand.

        out[b..., o...] = operand[clamp(start[b...][k] at start_index_map[k]) + offset o]
    """
    operand, indices = op.operands
    operand_shape, indices_shape = shape_of(operand), shape_of(indices)
    result = op.results[0].type
    out_shape = shape_of(result)
    offset_dims = _array(op, "offset_dims")
    collapsed = _array(op, "collapsed_slice_dims")
    start_index_map = _array(op, "start_index_map")
    slice_sizes = _array(op, "slice_sizes")
    index_vector_dim = _int(op, "index_vector_dim")
    index_type = elements[1]
    if 0 in out_shape:
        return [empty(out_shape, element_type(result))]
    batch_dims = [d for d in range(len(out_shape)) if d not in offset_dims]
    window_dims = [d for d in range(len(operand_shape)) if d not in collapsed]
    index = ir.IndexType.get()
    starts_in = _starts_per_element(indices, indices_shape, index_vector_dim, out_shape, offset_dims)
    if starts_in is not None:  # one start per result element: read through ins, so index math fuses in
        dim = start_index_map[0]

        def one_start(start, _out):
            coordinates = operand_coordinates(len(operand_shape), {
                dim: clamp_start(widen_index(start, index_type), operand_shape[dim] - slice_sizes[dim], index_type)},
                {})
            return [tensor.extract(operand, coordinates)]
        identity = identity_map(len(out_shape))
        return generic([result], [starts_in], [identity, identity], ["parallel"] * len(out_shape), one_start)

    def body(_out):
        loop = [loop_index(d) for d in range(len(out_shape))]
        batch = [loop[d] for d in batch_dims]
        starts = {}
        for k, operand_dim in enumerate(start_index_map):
            position = list(batch)
            if index_vector_dim < len(indices_shape):
                position.insert(index_vector_dim, arith.constant(index, k))
            starts[operand_dim] = clamp_start(
                read_index(indices, position, index_type),
                operand_shape[operand_dim] - slice_sizes[operand_dim], index_type)
        offsets = {d: loop[offset_dims[i]] for i, d in enumerate(window_dims)}
        coordinates = operand_coordinates(len(operand_shape), starts, offsets)
        return [tensor.extract(operand, coordinates)]
    return generic([result], [], [identity_map(len(out_shape))], ["parallel"] * len(out_shape),
                   body)


def _starts_per_element(indices, indices_shape, index_vector_dim, out_shape, offset_dims):
    """The start indices as a tensor of the result's shape, when the gather
    takes one element per result element by one index (`take`, ``x[idx]``
    of a 1-d x: slice sizes 1, no offset dims) and a reshape only added the
    index vector dim of size 1; else None. Read as an input of the gather's
    generic, the arithmetic that computed them fuses into it (several steps
    of a binary search to one loop, not a kernel or two each)."""
    if offset_dims or index_vector_dim != len(indices_shape) - 1 or indices_shape[-1] != 1:
        return None
    owner = indices.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None
    if owner.name != "tensor.expand_shape" or shape_of(owner.operands[0]) != list(out_shape):
        return None
    return owner.operands[0]


RULES["jaxc.gather"] = gather
