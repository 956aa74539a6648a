"""Lowering rule for `jaxc.scatter` (XLA scatter): an scf.for nest over the
scatter positions of `updates`, carrying the result (initially the operand),
with the bounds check per window and an inner nest over the window:

    for b... in the scatter dims of updates:          # scf.for each, carrying acc
      start[scatter_dims_to_operand_dims[k]] = scatter_indices[b... with k at index_vector_dim]
      if every start lies in [0, operand_dim - window_size]:   # else the window is skipped
        for w... in the window dims of updates:       # scf.for each
          index[d] = start[d] + (offset of window dim mapped to d, 0 for inserted dims)
          acc[index] = update_computation(acc[index], updates[b..., w...])

The bounds check is per window, as XLA's scatter expander does: an update
whose whole window does not fit in the operand is dropped entirely (no
clamping, unlike gather). Unsigned indices are read as unsigned. Windows
are applied one after another in row-major order of the scatter positions,
so duplicate indices combine sequentially.

An update computation made of elementwise ops with scalar rules (the
add/mul/min/max/set of `lax.scatter_*`) is applied to scalars, e.g.

    ^bb0(%old: tensor<f32>, %new: tensor<f32>):
      %s = jaxc.add %old, %new : tensor<f32>        ->   %s = arith.addf %current, %update : f32
      jaxc.yield %s : tensor<f32>

Any other region moves into the innermost loop: its two arguments become
`tensor.from_elements` of the current value and the update element, and its
jaxc.yield a `tensor.extract` + `tensor.insert` + `scf.yield`. The region's
jaxc ops were collected by the driver before this rule ran and are lowered
after it, where they now are (each a 0-d tensor op per element: slow).
"""
from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .common import (
    element_type,
    is_unsigned,
    operand_coordinates,
    read_index,
    scalar_const,
    shape_of,
    signless,
    storage_element,
    to_compute,
    to_storage,
)
from .control_flow import move_region
from .elementwise import BINARY, UNARY, scalar_rule

RULES: dict = {}

ScalarCombine = Callable[[ir.Value, ir.Value], ir.Value]


def _array(op, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _int(op, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def scalar_combine(block: ir.Block, elem: ir.Type) -> ScalarCombine | None:
    """The update computation as a function of two stored scalars (current,
    update) giving the stored result, when every op of `block` has a scalar
    rule; None otherwise."""
    ops = list(block.operations)
    steps = []  # (op, its operands' element type, its scalar rule)
    for inner in ops[:-1]:
        rules = UNARY.get(inner.name) or BINARY.get(inner.name)
        if rules is None or not inner.operands or len(inner.results) != 1:
            return None
        t = element_type(inner.operands[0])
        rule = scalar_rule(rules, t)
        if rule is None:
            return None
        steps.append((inner, t, rule))
    yielded = ops[-1].operands[0]

    def combine(current: ir.Value, update: ir.Value) -> ir.Value:
        values = {block.arguments[0]: to_compute(elem, current), block.arguments[1]: to_compute(elem, update)}
        for inner, t, rule in steps:
            values[inner.results[0]] = rule(t, *[values[v] for v in inner.operands])
        return to_storage(elem, values[yielded])
    return combine


def scatter(op, elements) -> list[ir.Value]:
    operand, indices, updates = list(op.operands)
    operand_shape, indices_shape, updates_shape = shape_of(operand), shape_of(indices), shape_of(updates)
    window_dims = _array(op, "update_window_dims")
    inserted = _array(op, "inserted_window_dims")
    to_operand = _array(op, "scatter_dims_to_operand_dims")
    index_vector_dim = _int(op, "index_vector_dim")
    elem = elements[0]
    index_elem = elements[1]
    stored = storage_element(elem)
    result_type = signless(op.results[0].type)
    scalar_tensor = ir.RankedTensorType.get([], stored)
    if 0 in updates_shape:
        return [operand]

    window_operand_dims = [d for d in range(len(operand_shape)) if d not in inserted]
    scatter_update_dims = [d for d in range(len(updates_shape)) if d not in window_dims]
    window_size = {d: 1 for d in range(len(operand_shape))}
    for w, d in zip(window_dims, window_operand_dims):
        window_size[d] = updates_shape[w]
    wide = ir.IntegerType.get_signless(64)
    index_type = ir.IndexType.get()
    unsigned = is_unsigned(index_elem)
    block = op.regions[0].blocks[0]
    combine = scalar_combine(block, elem)

    def starts_and_validity(batch: list[ir.Value]) -> tuple[dict[int, ir.Value], ir.Value]:
        starts: dict[int, ir.Value] = {}
        valid = None
        for k, operand_dim in enumerate(to_operand):
            position = list(batch)
            if index_vector_dim < len(indices_shape):
                position.insert(index_vector_dim, _index(k))
            raw = read_index(indices, position, index_elem)
            high = operand_shape[operand_dim] - window_size[operand_dim]
            if high < 0:
                ok = arith.constant(ir.IntegerType.get_signless(1), 0)
            elif unsigned:
                ok = arith.cmpi(arith.CmpIPredicate.ule, raw, scalar_const(wide, high))
            else:
                ok = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, raw, scalar_const(wide, 0)),
                                arith.cmpi(arith.CmpIPredicate.sle, raw, scalar_const(wide, high)))
            valid = ok if valid is None else arith.andi(valid, ok)
            starts[operand_dim] = arith.index_cast(index_type, raw)
        if valid is None:  # no scatter dimensions: always in bounds
            valid = arith.constant(ir.IntegerType.get_signless(1), 1)
        return starts, valid

    def update_element(batch: list[ir.Value], window: list[ir.Value], starts: dict[int, ir.Value],
                       acc: ir.Value) -> ir.Value:
        """acc with one element updated (built at the insertion point)."""
        update_index: list = [None] * len(updates_shape)
        for d, v in zip(scatter_update_dims, batch):
            update_index[d] = v
        for d, v in zip(window_dims, window):
            update_index[d] = v
        offsets = dict(zip(window_operand_dims, window))
        coordinates = operand_coordinates(len(operand_shape), starts, offsets)
        update = tensor.extract(updates, update_index)
        current = tensor.extract(acc, coordinates)
        if combine is not None:
            return tensor.insert(combine(current, update), acc, coordinates)
        old = tensor.from_elements(scalar_tensor, [current])
        new = tensor.from_elements(scalar_tensor, [update])
        inserted: list[ir.Value] = []

        def insert(yielded):
            # The producer may not be lowered yet: spell out the stored type.
            value = tensor.ExtractOp(yielded[0], [], results=[stored]).result
            inserted.append(tensor.insert(value, acc, coordinates))

        move_region(block, ir.InsertionPoint.current.block, [old, new], insert)
        return inserted[0]

    def loops(extents: list[int], acc: ir.Value, body: Callable[[list[ir.Value], ir.Value], ir.Value]) -> ir.Value:
        """An scf.for per extent around `body(ivs, acc)`, carrying acc."""
        if not extents:
            return body([], acc)
        loop = scf.ForOp(_index(0), _index(extents[0]), _index(1), [acc])
        with ir.InsertionPoint(loop.body):
            iv, inner_acc = loop.body.arguments
            scf.YieldOp([loops(extents[1:], inner_acc, lambda ivs, a: body([iv] + ivs, a))])
        return loop.results[0]

    def window(batch: list[ir.Value], acc: ir.Value) -> ir.Value:
        starts, valid = starts_and_validity(batch)
        branch = scf.IfOp(valid, [result_type], has_else=True)
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([acc])
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([loops([updates_shape[d] for d in window_dims], acc,
                               lambda offsets, a: update_element(batch, offsets, starts, a))])
        return branch.results[0]

    return [loops([updates_shape[d] for d in scatter_update_dims], operand, window)]


RULES["jaxc.scatter"] = scatter
