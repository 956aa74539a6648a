"""`jaxc-bf16-truncation-to-bits`: f32 -> bf16 rounding as integer
arithmetic, so that subnormals survive on every CPU.

On a CPU with AVX512-BF16, LLVM selects `vcvtneps2bf16` for `arith.truncf`
to bf16, and that instruction treats subnormal inputs as zero: 1e-40 became
0 instead of bf16's 0x0001, unlike JAX and unlike other CPUs. Rounding to
nearest even on the bits is exact everywhere (a NaN stays a NaN of its
sign, made quiet):

    %y = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  ->
    %b = arith.bitcast %x : vector<8xf32> to vector<8xi32>
    %r = arith.addi %b, (((%b >> 16) & 1) + 0x7fff)     round to nearest even
    %h = arith.trunci (%r >> 16) : vector<8xi32> to vector<8xi16>
    %y = arith.bitcast (select(isnan(%x), trunci((%b >> 16) | 0x40), %h)) : ... to vector<8xbf16>

Runs in the `llvm` stage after `math-extend-to-supported-types` (whose
bf16 math computes in f32 and truncates back).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    return ir.VectorType.get(ir.VectorType(t).shape, element) if isinstance(t, ir.VectorType) else element


def _splat(t: ir.Type, value: int) -> ir.Value:
    if isinstance(t, ir.VectorType):
        element = ir.VectorType(t).element_type
        return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(element, value))).result
    return arith.ConstantOp(t, value).result


def _is(t: ir.Type, cls: type) -> bool:
    return isinstance(ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t, cls)


@register_pass("jaxc-bf16-truncation-to-bits",
               "f32 -> bf16 truncation as integer rounding (subnormals kept on AVX512-BF16 CPUs)")
def bf16_truncation_to_bits(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context, op.location:
        for trunc in ops_named(op, ["arith.truncf"]):
            source, result = trunc.operands[0], trunc.results[0]
            if not (_is(source.type, ir.F32Type) and _is(result.type, ir.BF16Type)):
                continue
            i32 = _like(source.type, ir.IntegerType.get_signless(32))
            i16 = _like(source.type, ir.IntegerType.get_signless(16))
            with ir.InsertionPoint(trunc), trunc.location:
                bits = arith.bitcast(i32, source)
                sixteen = _splat(i32, 16)
                odd = arith.andi(arith.shrui(bits, sixteen), _splat(i32, 1))
                rounded = arith.addi(bits, arith.addi(odd, _splat(i32, 0x7FFF)))
                high = arith.trunci(i16, arith.shrui(rounded, sixteen))
                # a NaN keeps its sign and top payload bits, made quiet
                quiet = arith.trunci(i16, arith.ori(arith.shrui(bits, sixteen), _splat(i32, 0x40)))
                nan = arith.cmpf(arith.CmpFPredicate.UNO, source, source)
                value = arith.bitcast(result.type, arith.select(nan, quiet, high))
            result.replace_all_uses_with(value)
            trunc.erase()
