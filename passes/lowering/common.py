"""Helpers shared by the lowering rules: types, constants, linalg.generic.

jaxc tensors may hold unsigned integers (`ui32`); arith and linalg need
signless ones (`i32`). Rules read signedness from the jaxc op's original
types and build everything on signless types.

Booleans are *stored* as i8 (0 or 1) in tensors, as XLA stores PRED: the
pinned MemRefToLLVM asserts on loads and stores of i1 (docs/toolchain.md).
Scalar code inside linalg bodies works on i1: `map_elements` truncates i8
inputs that were i1 and widens i1 results back to i8.
"""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, complex as complex_dialect, tensor

from .. import linalg_ops as linalg

ScalarBody = Callable[[Sequence[ir.Value]], ir.Value]


class LoweringError(Exception):
    """An op the lowering cannot handle; reported at the op's location."""

    def __init__(self, op: ir.OpView, message: str):
        super().__init__(message)
        self.location = op.location


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------

def signless(t: ir.Type) -> ir.Type:
    """Scalars: `ui32` -> `i32` (i1 stays i1). Tensors: the storage type,
    `tensor<4xui32>` -> `tensor<4xi32>`, `tensor<4xi1>` -> `tensor<4xi8>`."""
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get(t.shape, storage_element(t.element_type))
    if isinstance(t, ir.IntegerType) and not t.is_signless:
        return ir.IntegerType.get_signless(t.width)
    return t


def storage_element(t: ir.Type) -> ir.Type:
    """The element type a tensor holds after lowering: signless, i1 as i8."""
    if isinstance(t, ir.IntegerType) and t.width == 1:
        return ir.IntegerType.get_signless(8)
    return signless(t)


def to_compute(t: ir.Type, x: ir.Value) -> ir.Value:
    """A stored element as a scalar of (signless) type `t`: i8 -> i1 for booleans."""
    return arith.trunci(ir.IntegerType.get_signless(1), x) if is_bool(t) else x


def to_storage(t: ir.Type, x: ir.Value) -> ir.Value:
    """A scalar of type `t` as a stored element: i1 -> i8 for booleans."""
    return arith.extui(ir.IntegerType.get_signless(8), x) if is_bool(t) else x


def element_type(value_or_type) -> ir.Type:
    """The (original, possibly unsigned) element type of a tensor value or type."""
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return ir.RankedTensorType(t).element_type


def shape_of(value_or_type) -> list[int]:
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return list(ir.RankedTensorType(t).shape)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def is_complex(t: ir.Type) -> bool:
    return isinstance(t, ir.ComplexType)


def component(t: ir.Type) -> ir.Type:
    """The f32/f64 parts of a complex<f32>/complex<f64> element type."""
    return ir.ComplexType(t).element_type


def is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def is_unsigned(t: ir.Type) -> bool:
    """Unsigned integers and i1 compare and divide as unsigned."""
    return isinstance(t, ir.IntegerType) and (t.is_unsigned or t.width == 1)


def kind(t: ir.Type) -> str:
    """'float', 'complex', 'bool', 'unsigned' or 'signed': picks the op of a rule."""
    if is_float(t):
        return "float"
    if is_complex(t):
        return "complex"
    if is_bool(t):
        return "bool"
    return "unsigned" if ir.IntegerType(t).is_unsigned else "signed"


def bit_width(t: ir.Type) -> int:
    if is_complex(t):
        return 2 * bit_width(component(t))
    if is_float(t):
        return {ir.F16Type: 16, ir.BF16Type: 16, ir.F32Type: 32, ir.F64Type: 64}[type(t)]
    return ir.IntegerType(t).width


Rule = Callable[[ir.OpView, Sequence[ir.Type]], list[ir.Value]]
"""A lowering rule: `rule(op, elements)` builds, at op, the values that replace
its results. The driver lowers producers first, so op's operands may already
be signless; `elements` are the element types they had in the jaxc IR (ui32
stays ui32), as an MLIR conversion pattern gets the op beside its adaptor."""


# --------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------

def scalar_const(t: ir.Type, value) -> ir.Value:
    """A scalar arith.constant of signless type `t` (floats may be inf/nan;
    a complex `t` takes a Python complex or real, as complex.constant)."""
    t = signless(t)
    if is_complex(t):
        value = complex(value)
        part = component(t)
        return complex_dialect.constant(t, ir.ArrayAttr.get(
            [ir.FloatAttr.get(part, value.real), ir.FloatAttr.get(part, value.imag)]))
    if is_float(t):
        return arith.constant(t, ir.FloatAttr.get(t, float(value)))
    width = ir.IntegerType(t).width
    value = int(value) & ((1 << width) - 1)
    if width > 1 and value >= 1 << (width - 1):
        value -= 1 << width  # IntegerAttr takes the signed reading of the bits
    return arith.constant(t, ir.IntegerAttr.get(t, value))


# --------------------------------------------------------------------------
# Run-time indices (dynamic_slice, gather, scatter)
# --------------------------------------------------------------------------

def read_index(indices: ir.Value, position: Sequence[ir.Value], t: ir.Type) -> ir.Value:
    """indices[position] as an i64, extended by the signedness of its original
    element type `t` (ui32 4000000000 stays positive)."""
    return widen_index(tensor.extract(indices, list(position)), t)


def widen_index(raw: ir.Value, t: ir.Type) -> ir.Value:
    """An integer index value as an i64, extended by the signedness of its
    original element type `t`."""
    wide = ir.IntegerType.get_signless(64)
    if ir.IntegerType(raw.type).width < 64:
        raw = (arith.extui if is_unsigned(t) else arith.extsi)(wide, raw)
    return raw


def clamp_start(start: ir.Value, high: int, t: ir.Type) -> ir.Value:
    """An i64 start (of original type `t`) clamped into [0, high], as an index."""
    wide = ir.IntegerType.get_signless(64)
    limit = scalar_const(wide, high)
    if is_unsigned(t):
        clamped = arith.minui(start, limit)
    else:
        clamped = arith.minsi(arith.maxsi(start, scalar_const(wide, 0)), limit)
    return arith.index_cast(ir.IndexType.get(), clamped)


def operand_coordinates(rank: int, starts: dict[int, ir.Value],
                        offsets: dict[int, ir.Value]) -> list[ir.Value]:
    """Per operand dimension: start + offset, either alone, or 0 without both."""
    coordinates = []
    for d in range(rank):
        start, offset = starts.get(d), offsets.get(d)
        if start is None and offset is None:
            coordinates.append(arith.constant(ir.IndexType.get(), 0))
        elif start is None or offset is None:
            coordinates.append(offset if start is None else start)
        else:
            coordinates.append(arith.addi(start, offset))
    return coordinates


def int_min(t: ir.Type) -> int:
    width = bit_width(t)
    return 0 if is_unsigned(t) else -(1 << (width - 1))


def int_max(t: ir.Type) -> int:
    width = bit_width(t)
    return (1 << width) - 1 if is_unsigned(t) else (1 << (width - 1)) - 1


# --------------------------------------------------------------------------
# Tensors
# --------------------------------------------------------------------------

def empty(shape: Sequence[int], elem: ir.Type) -> ir.Value:
    return tensor.empty(list(shape), storage_element(elem))


def filled(shape: Sequence[int], elem: ir.Type, scalar: ir.Value) -> ir.Value:
    """A tensor of `shape` holding `scalar` everywhere (linalg.fill); an i1
    scalar is stored as i8."""
    if is_bool(scalar.type):
        scalar = to_storage(scalar.type, scalar)
    return linalg.fill(scalar, outs=[empty(shape, elem)])


def padded(operand: ir.Value, elem: ir.Type, fill: ir.Value, low: Sequence[int], high: Sequence[int],
           interior: Sequence[int]) -> ir.Value:
    """`operand` padded with the scalar `fill`: `interior` fills between
    neighbours, `low`/`high` at the edges (negative: cropped). Filled, the
    operand inserted with stride interior + 1 at max(low, 0), then cropped.
    An empty operand places nothing and an empty result is an empty tensor
    (the slice ops reject any offset into a size-0 dim)."""
    in_shape = shape_of(operand)
    grown = [max(l, 0) + max(h, 0) + n + max(n - 1, 0) * i for l, h, n, i in zip(low, high, in_shape, interior)]
    out_shape = [l + h + n + max(n - 1, 0) * i for l, h, n, i in zip(low, high, in_shape, interior)]
    base = filled(grown, elem, fill)
    placed = base if 0 in in_shape else tensor.insert_slice(
        operand, base, [], [], [], [max(l, 0) for l in low], in_shape, [i + 1 for i in interior])
    if grown == out_shape:
        return placed
    if 0 in out_shape:
        return empty(out_shape, elem)
    result_type = ir.RankedTensorType.get(out_shape, ir.RankedTensorType(placed.type).element_type)
    return tensor.extract_slice(result_type, placed, [], [], [], [max(-l, 0) for l in low], out_shape,
                                [1] * len(out_shape))


def loop_index(dim: int) -> ir.Value:
    """The current iteration index of loop `dim` inside a linalg body. (The
    package's `linalg.index` name is the OpDSL class, not this op.)"""
    return linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim)).result


def identity_map(rank: int) -> ir.AffineMap:
    return ir.AffineMap.get_identity(rank)


def projection_map(rank: int, dims: Sequence[int]) -> ir.AffineMap:
    """(d0, ..., d{rank-1}) -> (d{dims[0]}, d{dims[1]}, ...)."""
    return ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in dims])


def broadcast_map(rank: int, operand: ir.Value) -> ir.AffineMap:
    """Identity for full-shape operands, () for 0-d operands broadcast to `rank`."""
    return identity_map(rank) if shape_of(operand) else ir.AffineMap.get(rank, 0, [])


def generic(result_types: Sequence[ir.Type], inputs: Sequence[ir.Value],
            maps: Sequence[ir.AffineMap], iterators: Sequence[str],
            body: Callable[..., Sequence[ir.Value]],
            inits: Sequence[ir.Value] | None = None) -> list[ir.Value]:
    """A linalg.generic whose region is `body(*input_scalars, *output_scalars)`.

    Outputs start as tensor.empty of `result_types` unless `inits` are given;
    `maps` lists the input maps then the output maps. An input may be a
    scalar (read through a map with no results, as a fill's value).
    """
    result_types = [signless(t) for t in result_types]
    if inits is None:
        inits = [empty(shape_of(t), ir.RankedTensorType(t).element_type) for t in result_types]
    iterator_attrs = [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]
    op = linalg.GenericOp(
        result_types, list(inputs), list(inits),
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get(iterator_attrs))
    element_types = [ir.RankedTensorType(v.type).element_type if isinstance(v.type, ir.ShapedType) else v.type
                     for v in list(inputs) + list(inits)]
    block = op.regions[0].blocks.append(*element_types)
    with ir.InsertionPoint(block):
        linalg.YieldOp(list(body(*block.arguments)))
    return list(op.results)


def map_elements(result_type: ir.Type, inputs: Sequence[ir.Value], scalar_fn: ScalarBody,
                 input_elements: Sequence[ir.Type]) -> ir.Value:
    """An elementwise linalg.generic: result[i] = scalar_fn([in[i] for in in inputs]).

    `input_elements` are the inputs' element types in the jaxc IR (a rule's
    `elements` when `inputs` are its op's leading operands; booleans arrive as
    i1 scalars). `result_type` is the original result type. 0-d inputs
    broadcast over the result shape.
    """
    rank = len(shape_of(result_type))
    out_element = ir.RankedTensorType(result_type).element_type
    maps = [broadcast_map(rank, v) for v in inputs] + [identity_map(rank)]

    def body(*args):
        scalars = [to_compute(t, a) for t, a in zip(input_elements, args[:len(inputs)])]
        return [to_storage(out_element, scalar_fn(scalars))]
    (result,) = generic([result_type], inputs, maps, ["parallel"] * rank, body)
    return result
