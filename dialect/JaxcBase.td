// The jaxc dialect: definition, element types, enums and op base classes.
#ifndef JAXC_BASE_TD
#define JAXC_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Jaxc_Dialect : Dialect {
  let name = "jaxc";
  let cppNamespace = "::mlir::jaxc";
  let summary = "Tensor operations mirroring the jax.lax primitives";
  let description = [{
    Values are builtin ranked tensors; a scalar is a 0-d tensor. Element types
    are f16, bf16, f32, f64, i1, i8..i64 (signless = signed), ui8..ui64,
    complex<f32> and complex<f64>.
    Transformation requests (`jaxc.jvp`, `jaxc.vjp`, `jaxc.vmap`) are expanded
    by the jaxc-autodiff and jaxc-batch passes.

    ```mlir
    %0 = jaxc.sin %x : tensor<4xf32>
    %1 = jaxc.add %0, %x : tensor<4xf32>
    ```
  }];
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Element and tensor types
//===----------------------------------------------------------------------===//

def Jaxc_Float : AnyTypeOf<[F16, BF16, F32, F64], "jaxc float (f16, bf16, f32, f64)">;
def Jaxc_SignedInt : AnyTypeOf<[I8, I16, I32, I64], "signed integer (i8..i64)">;
def Jaxc_UnsignedInt : AnyTypeOf<[UI8, UI16, UI32, UI64], "unsigned integer (ui8..ui64)">;
def Jaxc_Int : AnyTypeOf<[Jaxc_SignedInt, Jaxc_UnsignedInt], "jaxc integer">;
def Jaxc_Complex : AnyTypeOf<[Complex<F32>, Complex<F64>], "jaxc complex (complex<f32>, complex<f64>)">;
def Jaxc_Element : AnyTypeOf<[Jaxc_Float, Jaxc_Int, I1, Jaxc_Complex], "jaxc element type">;

def Jaxc_Tensor : StaticShapeTensorOf<[Jaxc_Element]>;
def Jaxc_FloatTensor : StaticShapeTensorOf<[Jaxc_Float]>;
def Jaxc_IntTensor : StaticShapeTensorOf<[Jaxc_Int]>;
def Jaxc_IntOrPredTensor : StaticShapeTensorOf<[Jaxc_Int, I1]>;
def Jaxc_ComplexTensor : StaticShapeTensorOf<[Jaxc_Complex]>;
def Jaxc_InexactTensor : StaticShapeTensorOf<[Jaxc_Float, Jaxc_Complex]>;
def Jaxc_NumericTensor : StaticShapeTensorOf<[Jaxc_Float, Jaxc_Int, Jaxc_Complex]>;
def Jaxc_RealNumericTensor : StaticShapeTensorOf<[Jaxc_Float, Jaxc_Int]>;
def Jaxc_SignedNumericTensor : StaticShapeTensorOf<[Jaxc_Float, Jaxc_SignedInt]>;
def Jaxc_PredTensor : StaticShapeTensorOf<[I1]>;
def Jaxc_UI32Tensor : StaticShapeTensorOf<[UI32]>;
def Jaxc_UnsignedTensor : StaticShapeTensorOf<[Jaxc_UnsignedInt]>;
def Jaxc_ScalarInt : 0DTensorOf<[Jaxc_Int]>;
def Jaxc_ScalarIndex : 0DTensorOf<[Jaxc_Int, I1]>;
def Jaxc_Scalar : 0DTensorOf<[Jaxc_Element]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Jaxc_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "comparison direction", [
      I32EnumAttrCase<"EQ", 0, "eq">, I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">, I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">, I32EnumAttrCase<"GE", 5, "ge">]> {
  let cppNamespace = "::mlir::jaxc";
}

def Jaxc_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
      I32EnumAttrCase<"Sum", 0, "sum">, I32EnumAttrCase<"Prod", 1, "prod">,
      I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"And", 4, "and">, I32EnumAttrCase<"Or", 5, "or">]> {
  let cppNamespace = "::mlir::jaxc";
}

def Jaxc_CumulativeKind : I32EnumAttr<"CumulativeKind", "cumulative kind", [
      I32EnumAttrCase<"Sum", 0, "sum">, I32EnumAttrCase<"Prod", 1, "prod">,
      I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"Min", 3, "min">]> {
  let cppNamespace = "::mlir::jaxc";
}

def Jaxc_RoundingMethod : I32EnumAttr<"RoundingMethod", "rounding method", [
      I32EnumAttrCase<"AwayFromZero", 0, "away_from_zero">,
      I32EnumAttrCase<"ToNearestEven", 1, "to_nearest_even">]> {
  let cppNamespace = "::mlir::jaxc";
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// `family` files the op in the op table (`jaxc.dialect.op_table`, generated
// from these records at build time), which jaxc.lax, jaxc-batch and the
// completeness tests read instead of keeping lists of op names:
//   "unary"        elementwise, one operand, no attributes, result inferred
//   "binary"       elementwise, two operands of one type, no attributes, result inferred
//   "elementwise"  the other elementwise ops (attributes, result types, more operands)
//   ""             everything else
class Jaxc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Jaxc_Dialect, mnemonic, traits> {
  string family = "";
}

// One operand, same type in and out: `%y = jaxc.sin %x : tensor<4xf32>`.
class Jaxc_UnaryOp<string mnemonic, Type T, string what, list<Trait> traits = []>
    : Jaxc_Op<mnemonic, !listconcat([Pure, Elementwise, SameOperandsAndResultType,
                                     InferTypeOpInterface], traits)> {
  let summary = "elementwise " # what;
  let description = "Computes " # what # " of each element of `operand`.\n\n"
    # "```mlir\n%y = jaxc." # mnemonic # " %x : tensor<2x3xf32>\n```";
  let arguments = (ins T:$operand);
  let results = (outs T:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let family = "unary";
}

// Two operands of identical type; mismatches are reported by name and shape.
// (No `Elementwise` trait: its generic message would pre-empt ours.)
// `%z = jaxc.add %x, %y : tensor<4xf32>`.
class Jaxc_BinaryOp<string mnemonic, Type T, string what, list<Trait> traits = []>
    : Jaxc_Op<mnemonic, !listconcat([Pure,
                                     InferTypeOpAdaptor],
                                    traits)> {
  let summary = "elementwise " # what;
  let description = "Computes " # what # " of `lhs` and `rhs` element by "
    # "element. Both operands and the result have the same type.\n\n"
    # "```mlir\n%z = jaxc." # mnemonic # " %x, %y : tensor<2x3xf32>\n```";
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs T:$result);
  let family = "binary";
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` custom<SameType>(type($lhs), type($rhs))";
}

#endif // JAXC_BASE_TD
