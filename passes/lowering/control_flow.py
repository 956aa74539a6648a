"""Lowering rules for cond, while, scan (to scf) and cumulative.

The jaxc region's operations move into the scf op's block; block arguments
are replaced by the values scf provides; `jaxc.yield` becomes `scf.yield` (or
`scf.condition` in a while's cond region). For example

    %r = jaxc.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {A}, {B}
  ->
    %i = index of %p (false -> 0, true -> 1; integer indices are clamped)
    %r = scf.if (%i == 0) -> tensor<f32> { A with %x; scf.yield }
         else { B with %x; scf.yield }

(more branches nest: else { scf.if (%i - 1 == 0) ... }).

scan becomes an scf.for over the leading axis whose iteration arguments are
the carries and the stacked ys; x slices are rank-reducing extract_slices.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .common import (
    filled,
    generic,
    identity_map,
    is_bool,
    is_unsigned,
    scalar_const,
    shape_of,
    signless,
    storage_element,
    to_compute,
)


def _dynamic() -> int:
    return ir.ShapedType.get_dynamic_stride_or_offset()


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def move_region(src: ir.Block, dst: ir.Block, arg_values: Sequence[ir.Value],
                 make_terminator: Callable[[list[ir.Value]], None]) -> None:
    """Move `src`'s ops into `dst`: uses of src's arguments become `arg_values`
    and the jaxc.yield becomes what `make_terminator(yielded)` builds at the
    end of `dst` (after any ops already there)."""
    for arg, value in zip(src.arguments, arg_values):
        arg.replace_all_uses_with(value)
    ops = list(src.operations)
    jaxc_yield = ops[-1]
    yielded = list(jaxc_yield.operands)
    with ir.InsertionPoint(dst):
        anchor_count = len(list(dst.operations))
        make_terminator(yielded)
    anchor = list(dst.operations)[anchor_count]
    for inner in ops[:-1]:
        inner.move_before(anchor)
    jaxc_yield.erase()


def _slice_at(value: ir.Value, position: ir.Value) -> ir.Value:
    """value[position] along the leading axis, rank-reduced. (An empty slice
    is just an empty tensor: the slice ops reject offset 0 on a size-0 dim.)"""
    shape = shape_of(value)
    element = ir.RankedTensorType(value.type).element_type
    if 0 in shape[1:]:
        return tensor.empty(shape[1:], element)
    result = ir.RankedTensorType.get(shape[1:], element)
    return tensor.extract_slice(result, value, [position], [], [], [_dynamic()] + [0] * (len(shape) - 1),
                                [1] + shape[1:], [1] * len(shape))


def _insert_at(piece: ir.Value, into: ir.Value, position: ir.Value) -> ir.Value:
    """into[position] = piece along the leading axis (nothing to write for
    an empty piece)."""
    shape = shape_of(into)
    if 0 in shape[1:]:
        return into
    return tensor.insert_slice(piece, into, [position], [], [], [_dynamic()] + [0] * (len(shape) - 1),
                               [1] + shape[1:], [1] * len(shape))


def cond(op, elements) -> list[ir.Value]:
    branches = list(op.regions)
    t = elements[0]
    index = tensor.extract(op.operands[0], [])  # a bool is stored as i8 0/1
    if not is_bool(t):  # lax.switch clamps the index into range
        last = scalar_const(t, len(branches) - 1)
        index = arith.minui(index, last) if is_unsigned(t) else \
            arith.minsi(arith.maxsi(index, scalar_const(t, 0)), last)
    operands = list(op.operands[1:])
    if len(branches) == 1:
        return _inline(branches[0].blocks[0], operands, op)
    return _if_chain(index, branches, [signless(r.type) for r in op.results], operands)


def _if_chain(index: ir.Value, branches: Sequence[ir.Region], result_types: list[ir.Type],
              operands: list[ir.Value]) -> list[ir.Value]:
    """`if index == 0 {branch 0} else if index == 1 {branch 1} ... else {last}`.
    Not scf.index_switch: one-shot-bufferize misses the aliasing of its
    results and overwrites a live buffer (docs/toolchain.md)."""
    is_first = arith.cmpi(arith.CmpIPredicate.eq, index, arith.constant(index.type, 0))
    branch = scf.IfOp(is_first, result_types, has_else=True)
    move_region(branches[0].blocks[0], branch.then_block, operands, lambda ys: scf.YieldOp(ys))
    if len(branches) == 2:
        move_region(branches[1].blocks[0], branch.else_block, operands, lambda ys: scf.YieldOp(ys))
    else:
        with ir.InsertionPoint(branch.else_block):
            shifted = arith.subi(index, arith.constant(index.type, 1))
            scf.YieldOp(_if_chain(shifted, branches[1:], result_types, operands))
    return list(branch.results)


def _inline(block: ir.Block, operands: list[ir.Value], before: ir.Operation) -> list[ir.Value]:
    """A one-branch switch: the branch's ops in place, its yielded values returned."""
    for arg, value in zip(block.arguments, operands):
        arg.replace_all_uses_with(value)
    ops = list(block.operations)
    yielded = list(ops[-1].operands)
    for inner in ops[:-1]:
        inner.move_before(before)
    ops[-1].erase()
    return yielded


def _predicate(pred: ir.Value) -> ir.Value:
    """The i1 held by a 0-d boolean tensor (stored as i8). The producer may not
    be lowered yet, so the stored type is spelled out."""
    stored = tensor.ExtractOp(pred, [], results=[ir.IntegerType.get_signless(8)]).result
    return to_compute(ir.IntegerType.get_signless(1), stored)


def while_(op, elements) -> list[ir.Value]:
    types = [signless(r.type) for r in op.results]
    loop = scf.WhileOp(types, list(op.operands))
    before = loop.regions[0].blocks.append(*types)
    after = loop.regions[1].blocks.append(*types)
    move_region(op.regions[0].blocks[0], before, list(before.arguments),
                 lambda ys: scf.condition(_predicate(ys[0]), list(before.arguments)))
    move_region(op.regions[1].blocks[0], after, list(after.arguments),
                 lambda ys: scf.YieldOp(ys))
    return list(loop.results)


def scan(op, elements) -> list[ir.Value]:
    init, xs = list(op.init), list(op.xs)
    length = ir.IntegerAttr(op.attributes["length"]).value
    reverse = "reverse" in op.attributes
    ys_types = [signless(r.type) for r in op.results[len(init):]]
    stacked = [tensor.empty(shape_of(t), ir.RankedTensorType(t).element_type) for t in ys_types]
    loop = scf.ForOp(_index(0), _index(length), _index(1), init + stacked)
    body = loop.body
    iv, carries = body.arguments[0], list(body.arguments[1:1 + len(init)])
    accumulators = list(body.arguments[1 + len(init):])
    with ir.InsertionPoint(body):
        position = arith.subi(_index(length - 1), iv) if reverse else iv
        x_slices = [_slice_at(x, position) for x in xs]

    def terminator(yielded: list[ir.Value]) -> None:
        new_carries, y_slices = yielded[:len(init)], yielded[len(init):]
        updated = [_insert_at(y, acc, position) for y, acc in zip(y_slices, accumulators)]
        scf.YieldOp(new_carries + updated)

    move_region(op.regions[0].blocks[0], body, carries + x_slices, terminator)
    return list(loop.results)


_CUMULATIVE = ["jaxc.add", "jaxc.mul", "jaxc.max", "jaxc.min"]
# A scan along the last axis runs over blocks of this many rows: the slices
# of one position then span 8 cache lines in and 8 out, which the next
# positions reuse. A slice of every row spanned thousands and missed the
# cache at each step (cumsum of 4096 x 1024 f32: 71 ms); blocks of 16 or 32
# rows 4 KB apart overflow the ways of one L1 set (9.4 ms at 16, 4.8 at 8).
ROW_BLOCK = 8


def cumulative(op, elements) -> list[ir.Value]:
    """out[i] = combine(out[i-1], x[i]) along `axis` (from the end when reversed),
    as an scf.for over the axis carrying the running slice; along the last
    axis of many rows, inside an scf.for over blocks of `ROW_BLOCK` rows
    (the leading axes collapsed into one)::

        scf.for %rb = 0 to R - R % 8 step 8 {          // then the last R % 8 rows
          scf.for %j = 0 to L { %run = %run + %x[%rb:%rb+8, %j]; %out[%rb:%rb+8, %j] = %run } }
    """
    from .elementwise import BINARY, scalar_rule  # the scalar combiners
    t = elements[0]
    reduction = ["sum", "prod", "max", "min"][ir.IntegerAttr(op.attributes["kind"]).value]
    fn = scalar_rule(BINARY[_CUMULATIVE[["sum", "prod", "max", "min"].index(reduction)]], t)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    x = op.operands[0]
    shape = shape_of(x)
    if 0 in shape:  # nothing to scan (and no slice of it can be extracted)
        return [tensor.empty(shape, storage_element(t))]
    rows = math.prod(shape[:-1])
    if axis == len(shape) - 1 and rows >= 2 * ROW_BLOCK:
        return [_scan_row_blocks(x, shape, t, fn, reduction, reverse, rows)]
    return [_scan(x, shape, axis, t, fn, reduction, reverse)]


def _scan_row_blocks(x: ir.Value, shape: list[int], t, fn, reduction: str, reverse: bool, rows: int) -> ir.Value:
    """The scan along the last axis of `x`, as rows x length, by blocks of
    `ROW_BLOCK` rows (and one block of the rest)."""
    length = shape[-1]
    element = storage_element(t)
    table = x
    if len(shape) > 2:
        table = tensor.collapse_shape(ir.RankedTensorType.get([rows, length], element), x,
                                      [list(range(len(shape) - 1)), [len(shape) - 1]])
    out = tensor.empty([rows, length], element)
    full = rows - rows % ROW_BLOCK

    def block(at: ir.Value, count: int, into: ir.Value) -> ir.Value:
        """Rows [at, at + count) scanned, each position written straight into `into`."""
        return _scan(table, [rows, length], 1, t, fn, reduction, reverse, out=into, rows=(at, count))

    loop = scf.ForOp(_index(0), _index(full), _index(ROW_BLOCK), [out])
    with ir.InsertionPoint(loop.body):
        scf.YieldOp([block(loop.induction_variable, ROW_BLOCK, loop.inner_iter_args[0])])
    result = loop.results[0]
    if rows % ROW_BLOCK:
        result = block(_index(full), rows % ROW_BLOCK, result)
    if len(shape) > 2:
        result = tensor.expand_shape(ir.RankedTensorType.get(shape, element), result,
                                     [list(range(len(shape) - 1)), [len(shape) - 1]], [], shape)
    return result


def _scan(x: ir.Value, shape: list[int], axis: int, t, fn, reduction: str, reverse: bool,
          out: ir.Value | None = None, rows: tuple[ir.Value, int] | None = None) -> ir.Value:
    """The scan of `x` along `axis`, written into `out` (None: a new
    tensor): an scf.for over the axis carrying the running slice (in place:
    the combining generic's outs is the carry). `rows` (first, count): only
    those rows of a 2-D `x` scanned along axis 1."""
    from .reduction import _identity
    length = shape[axis]
    # The running slice keeps the axis as a size-1 dim: a rank-reducing slice
    # is ambiguous when another dim is 1 too (canonicalize then dropped the wrong one).
    sizes = [1 if d == axis else s for d, s in enumerate(shape)]
    if rows is not None:
        sizes[0] = rows[1]
    slice_type = ir.RankedTensorType.get(sizes, storage_element(t))
    running = filled(sizes, t, scalar_const(t, _identity(reduction, t)))
    if out is None:
        out = tensor.empty(shape, storage_element(t))
    loop = scf.ForOp(_index(0), _index(length), _index(1), [running, out])
    iv, carry, acc = loop.body.arguments
    with ir.InsertionPoint(loop.body):
        position = arith.subi(_index(length - 1), iv) if reverse else iv
        dyn = [_dynamic() if d == axis else 0 for d in range(len(shape))]
        if rows is not None:
            dyn[0] = _dynamic()
        offsets = [position] if rows is None else [rows[0], position]
        piece = tensor.extract_slice(slice_type, x, offsets, [], [], dyn, sizes, [1] * len(shape))
        (combined,) = generic([slice_type], [piece], [identity_map(len(sizes))] * 2,
                              ["parallel"] * len(sizes), lambda p, c: [fn(t, c, p)], inits=[carry])
        updated = tensor.insert_slice(combined, acc, offsets, [], [], dyn, sizes, [1] * len(shape))
        scf.YieldOp([combined, updated])
    return loop.results[1]


RULES = {
    "jaxc.cond": cond,
    "jaxc.while": while_,
    "jaxc.scan": scan,
    "jaxc.cumulative": cumulative,
}
