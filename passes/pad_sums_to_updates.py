"""`jaxc-pad-sums-to-updates`: a sum of zero-padded blocks that do not
overlap becomes a chain of `jaxc.dynamic_update_slice` into one padded block.

The cotangent of `x[i]` (a static slice) is the slice's cotangent padded
with zeros to the shape of `x`. A program that reads every `x[i]`, as a
Python loop over the layers of stacked weights or the steps of a sequence
does, gets the sum of N such pads: N arrays the size of `x` built and added,
O(N^2) work and memory for what is N disjoint writes. Here each `add` of a
zero pad to a value known to be zero on the pad's block writes the block
into that value instead:

    %a = jaxc.pad %ga, %zero, low = [0, 0], high = [2, 0], interior = [0, 0]
           : (tensor<1x8xf32>, tensor<f32>) -> tensor<3x8xf32>
    %b = jaxc.pad %gb, %zero, low = [1, 0], high = [1, 0], interior = [0, 0] : ...
    %s = jaxc.add %a, %b : tensor<3x8xf32>
  ->
    %a = jaxc.pad %ga, %zero, low = [0, 0], high = [2, 0], interior = [0, 0] : ...
    %s = jaxc.dynamic_update_slice %a, %gb[%c1, %c0]
           : (tensor<3x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<3x8xf32>

Where a value is known to be zero: outside the block of a pad of zero
(edge padding >= 0, no interior padding), outside the blocks that updates
with constant starts wrote into such a value, and everywhere in a zero
constant. The result is the sum's, but for the sign of zero: the sum turns
a -0.0 in a block into +0.0 (-0.0 + 0.0), the update keeps it.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ints, ops_named
from .registry import register_pass

Box = tuple[tuple[int, ...], tuple[int, ...]]  # (start, size) per dimension


@register_pass("jaxc-pad-sums-to-updates",
               "sums of non-overlapping zero pads become dynamic_update_slice chains")
def pad_sums_to_updates(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for add in ops_named(op, ["jaxc.add"]):
            _rewrite(add)


def _rewrite(add: ir.Operation) -> None:
    """Replace `add` by an update when one operand is a zero pad and the
    other is zero on its block."""
    x, y = add.operands[0], add.operands[1]
    if x.type != y.type or not isinstance(x.type, ir.RankedTensorType) or not x.type.has_static_shape:
        return
    for base, padded in ((x, y), (y, x)):
        block = _pad_block(padded)
        if block is None:
            continue
        written = _nonzero_blocks(base)
        if written is None or any(_overlap(block, other) for other in written):
            continue
        pad = _owner(padded)
        assert pad is not None  # `_pad_block` found a jaxc.pad there
        update = pad.operands[0]
        with ir.InsertionPoint(add), add.location:
            starts = [_index_constant(s) for s in block[0]]
            new = ir.Operation.create("jaxc.dynamic_update_slice", results=[add.results[0].type],
                                      operands=[base, update, *starts])
        add.results[0].replace_all_uses_with(new.results[0])
        add.erase()
        return


def _owner(value: ir.Value) -> ir.Operation | None:
    return value.owner if isinstance(value, ir.OpResult) else None


def _pad_block(value: ir.Value) -> Box | None:
    """The block a zero pad holds its operand in (None when `value` is not
    such a pad: nonzero padding, interior padding, cropping)."""
    pad = _owner(value)
    if pad is None or pad.name != "jaxc.pad" or not _is_zero_constant(pad.operands[1]):
        return None
    low, high = ints(pad, "edge_padding_low"), ints(pad, "edge_padding_high")
    if any(ints(pad, "interior_padding")) or min(low + high, default=0) < 0:
        return None
    shape = ir.RankedTensorType(pad.operands[0].type).shape
    return tuple(low), tuple(shape)


def _nonzero_blocks(value: ir.Value) -> list[Box] | None:
    """Blocks outside of which `value` is zero; None when not known."""
    if _is_zero_constant(value):
        return []
    block = _pad_block(value)
    if block is not None:
        return [block]
    update = _owner(value)
    if update is None or update.name != "jaxc.dynamic_update_slice":
        return None
    constants = [_constant_int(s) for s in update.operands[2:]]
    starts = [s for s in constants if s is not None]
    shape = ir.RankedTensorType(update.operands[1].type).shape
    full = ir.RankedTensorType(value.type).shape
    if len(starts) != len(constants) or any(s < 0 or s + n > f for s, n, f in zip(starts, shape, full)):
        return None  # run-time or clamped starts
    below = _nonzero_blocks(update.operands[0])
    return None if below is None else below + [(tuple(starts), tuple(shape))]


def _overlap(a: Box, b: Box) -> bool:
    return all(sa < sb + nb and sb < sa + na and na > 0 and nb > 0
               for sa, na, sb, nb in zip(a[0], a[1], b[0], b[1]))


def _constant(value: ir.Value) -> np.ndarray | None:
    op = _owner(value)
    if op is None or op.name != "jaxc.constant":
        return None
    element = ir.RankedTensorType(value.type).element_type
    if not isinstance(element, (ir.IntegerType, ir.FloatType)):
        return None  # complex: the bindings cannot read the attribute (docs/toolchain.md)
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseIntElementsAttr) and not isinstance(attr, ir.DenseFPElementsAttr):
        return None
    return np.array(attr)


def _is_zero_constant(value: ir.Value) -> bool:
    array = _constant(value)
    return array is not None and array.dtype.kind in "fiub" and not array.any()


def _constant_int(value: ir.Value) -> int | None:
    array = _constant(value)
    return int(array.reshape(())) if array is not None and array.size == 1 and array.dtype.kind in "iu" else None


def _index_constant(start: int) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    type_ = ir.RankedTensorType.get([], i32)
    attr = ir.DenseElementsAttr.get_splat(type_, ir.IntegerAttr.get(i32, start))
    return ir.Operation.create("jaxc.constant", results=[type_], attributes={"value": attr}).results[0]
