"""Lowering rule for `jaxc.scatter` (XLA scatter): an scf.for nest over every
element of `updates`, carrying the result (initially the operand).

For update element u at index (b..., w...) (scatter batch dims b, window
dims w):

    start[scatter_dims_to_operand_dims[k]] = scatter_indices[b... with k at index_vector_dim]
    index[d] = start[d] + (offset of window dim mapped to d, 0 for inserted dims)
    if every start lies in [0, operand_dim - window_size]:   # else the update is skipped
        result[index] = update_computation(result[index], u)

The bounds check is per window, as XLA's scatter expander does: an update
whose whole window does not fit in the operand is dropped entirely (no
clamping, unlike gather). Unsigned indices are read as unsigned. Updates are
applied one after another in row-major order of `updates`, so duplicate
indices combine sequentially.

The update_computation region moves into the scf.if's then-block: its two
arguments become `tensor.from_elements` of the current value and the update
element, and its jaxc.yield becomes a `tensor.extract` + `tensor.insert` +
`scf.yield`. The region's jaxc ops were collected by the driver before this
rule ran and are lowered after it, where they now are.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .common import is_unsigned, operand_coordinates, read_index, scalar_const, shape_of, signless, storage_element
from .control_flow import move_region

RULES: dict = {}


def _array(op, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _int(op, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


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

    def body(update_index: list[ir.Value], acc: ir.Value) -> ir.Value:
        batch = [update_index[d] for d in scatter_update_dims]
        starts: dict[int, ir.Value] = {}
        valid = None
        for k, operand_dim in enumerate(to_operand):
            position = list(batch)
            if index_vector_dim < len(indices_shape):
                position.insert(index_vector_dim, _index(k))
            raw = read_index(indices, position, index_elem)
            high = scalar_const(wide, operand_shape[operand_dim] - window_size[operand_dim])
            if unsigned:
                ok = arith.cmpi(arith.CmpIPredicate.ule, raw, high)
                if operand_shape[operand_dim] - window_size[operand_dim] < 0:
                    ok = arith.constant(ir.IntegerType.get_signless(1), 0)
            else:
                ok = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, raw, scalar_const(wide, 0)),
                                arith.cmpi(arith.CmpIPredicate.sle, raw, high))
            valid = ok if valid is None else arith.andi(valid, ok)
            starts[operand_dim] = arith.index_cast(index_type, raw)
        offsets = {d: update_index[w] for w, d in zip(window_dims, window_operand_dims)}
        coordinates = operand_coordinates(len(operand_shape), starts, offsets)
        update = tensor.extract(updates, update_index)
        if valid is None:  # no scatter dimensions: always in bounds
            valid = arith.constant(ir.IntegerType.get_signless(1), 1)
        branch = scf.IfOp(valid, [result_type], has_else=True)
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([acc])
        with ir.InsertionPoint(branch.then_block):
            current = tensor.extract(acc, coordinates)
            old = tensor.from_elements(scalar_tensor, [current])
            new = tensor.from_elements(scalar_tensor, [update])

        def terminator(yielded):
            # The producer may not be lowered yet: spell out the stored type.
            value = tensor.ExtractOp(yielded[0], [], results=[stored]).result
            scf.YieldOp([tensor.insert(value, acc, coordinates)])

        move_region(block, branch.then_block, [old, new], terminator)
        return branch.results[0]

    def nest(level: int, update_index: list[ir.Value], acc: ir.Value) -> ir.Value:
        if level == len(updates_shape):
            return body(update_index, acc)
        loop = scf.ForOp(_index(0), _index(updates_shape[level]), _index(1), [acc])
        with ir.InsertionPoint(loop.body):
            iv, inner_acc = loop.body.arguments
            scf.YieldOp([nest(level + 1, update_index + [iv], inner_acc)])
        return loop.results[0]

    return [nest(0, [], operand)]


RULES["jaxc.scatter"] = scatter
