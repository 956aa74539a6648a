"""Helpers shared by the lowering rules: types, constants, linalg.generic.

jaxc tensors may hold unsigned integers (`ui32`); arith and linalg need
signless ones (`i32`). Rules read signedness from the jaxc op's own types
and build everything on signless types.
"""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

ScalarBody = Callable[[Sequence[ir.Value]], ir.Value]


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------

def signless(t: ir.Type) -> ir.Type:
    """`ui32` -> `i32`, `tensor<4xui32>` -> `tensor<4xi32>`; others unchanged."""
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get(t.shape, signless(t.element_type))
    if isinstance(t, ir.IntegerType) and not t.is_signless:
        return ir.IntegerType.get_signless(t.width)
    return t


def element_type(value_or_type) -> ir.Type:
    """The (original, possibly unsigned) element type of a tensor value or type."""
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return ir.RankedTensorType(t).element_type


def shape_of(value_or_type) -> list[int]:
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return list(ir.RankedTensorType(t).shape)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def is_unsigned(t: ir.Type) -> bool:
    """Unsigned integers and i1 compare and divide as unsigned."""
    return isinstance(t, ir.IntegerType) and (t.is_unsigned or t.width == 1)


def kind(t: ir.Type) -> str:
    """'float', 'bool', 'unsigned' or 'signed': picks the arith op of a rule."""
    if is_float(t):
        return "float"
    if is_bool(t):
        return "bool"
    return "unsigned" if ir.IntegerType(t).is_unsigned else "signed"


def bit_width(t: ir.Type) -> int:
    if is_float(t):
        return {ir.F16Type: 16, ir.BF16Type: 16, ir.F32Type: 32, ir.F64Type: 64}[type(t)]
    return ir.IntegerType(t).width


# The driver lowers producers first, so by the time a rule runs its operands
# may already be signless. It records each op's original operand types here.
_original_operand_types: list[ir.Type] = []


def set_original_operand_types(types: Sequence[ir.Type]) -> None:
    """Called by the pass driver before each rule."""
    _original_operand_types[:] = list(types)


def operand_element(op: ir.OpView, index: int) -> ir.Type:
    """The element type operand `index` had in the jaxc IR (ui32 stays ui32)."""
    return ir.RankedTensorType(_original_operand_types[index]).element_type


# --------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------

def scalar_const(t: ir.Type, value) -> ir.Value:
    """A scalar arith.constant of signless type `t` (floats may be inf/nan)."""
    t = signless(t)
    if is_float(t):
        return arith.constant(t, ir.FloatAttr.get(t, float(value)))
    width = ir.IntegerType(t).width
    value = int(value) & ((1 << width) - 1)
    if width > 1 and value >= 1 << (width - 1):
        value -= 1 << width  # IntegerAttr takes the signed reading of the bits
    return arith.constant(t, ir.IntegerAttr.get(t, value))


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
    return tensor.empty(list(shape), signless(elem))


def filled(shape: Sequence[int], elem: ir.Type, scalar: ir.Value) -> ir.Value:
    """A tensor of `shape` holding `scalar` everywhere (linalg.fill)."""
    return linalg.fill(scalar, outs=[empty(shape, elem)])


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
    `maps` lists the input maps then the output maps.
    """
    result_types = [signless(t) for t in result_types]
    if inits is None:
        inits = [empty(shape_of(t), ir.RankedTensorType(t).element_type) for t in result_types]
    iterator_attrs = [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]
    op = linalg.GenericOp(
        result_types, list(inputs), list(inits),
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get(iterator_attrs))
    element_types = [ir.RankedTensorType(v.type).element_type for v in list(inputs) + list(inits)]
    block = op.regions[0].blocks.append(*element_types)
    with ir.InsertionPoint(block):
        linalg.YieldOp(list(body(*block.arguments)))
    return list(op.results)


def map_elements(result_type: ir.Type, inputs: Sequence[ir.Value],
                 scalar_fn: ScalarBody) -> ir.Value:
    """An elementwise linalg.generic: result[i] = scalar_fn([in[i] for in in inputs]).

    0-d inputs broadcast over the result shape.
    """
    rank = len(shape_of(result_type))
    maps = [broadcast_map(rank, v) for v in inputs] + [identity_map(rank)]
    (result,) = generic([result_type], inputs, maps, ["parallel"] * rank,
                        lambda *args: [scalar_fn(args[:len(inputs)])])
    return result
