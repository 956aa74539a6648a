// Creation and elementwise ops: constant, iota, unary, binary, compare,
// select, clamp, convert, bitcast_convert.
#ifndef JAXC_ELEMENTWISE_OPS_TD
#define JAXC_ELEMENTWISE_OPS_TD

include "JaxcBase.td"

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

def Jaxc_ConstantOp : Jaxc_Op<"constant", [ConstantLike, Pure,
    InferTypeOpAdaptor]> {
  let summary = "a constant tensor";
  let description = [{
    Produces the tensor held by `value`; its type is the result type.

    ```mlir
    %c = jaxc.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jaxc_IotaOp : Jaxc_Op<"iota", [Pure]> {
  let summary = "0, 1, 2, ... along one dimension";
  let description = [{
    Fills the result with its index along `iota_dimension`.

    ```mlir
    %i = jaxc.iota dim = 1 : tensor<2x3xi32>   // [[0, 1, 2], [0, 1, 2]]
    ```
  }];
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs Jaxc_RealNumericTensor:$result);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

let hasFolder = 1 in {
def Jaxc_NegOp : Jaxc_UnaryOp<"neg", Jaxc_NumericTensor, "negation">;
def Jaxc_ExpOp : Jaxc_UnaryOp<"exp", Jaxc_InexactTensor, "exponential (e to the power x)">;
def Jaxc_LogOp : Jaxc_UnaryOp<"log", Jaxc_InexactTensor, "natural logarithm">;
def Jaxc_SinOp : Jaxc_UnaryOp<"sin", Jaxc_InexactTensor, "sine">;
def Jaxc_CosOp : Jaxc_UnaryOp<"cos", Jaxc_InexactTensor, "cosine">;
def Jaxc_TanhOp : Jaxc_UnaryOp<"tanh", Jaxc_InexactTensor, "hyperbolic tangent">;
def Jaxc_SqrtOp : Jaxc_UnaryOp<"sqrt", Jaxc_InexactTensor, "square root">;
def Jaxc_NotOp : Jaxc_UnaryOp<"not", Jaxc_IntOrPredTensor, "bitwise (or logical, for i1) not">;
}
def Jaxc_SignOp : Jaxc_UnaryOp<"sign", Jaxc_NumericTensor, "sign (-1, 0 or 1; NaN for NaN)">;
def Jaxc_Exp2Op : Jaxc_UnaryOp<"exp2", Jaxc_InexactTensor, "base-2 exponential">;
def Jaxc_Expm1Op : Jaxc_UnaryOp<"expm1", Jaxc_InexactTensor, "exp(x) - 1, accurate near 0">;
def Jaxc_Log1pOp : Jaxc_UnaryOp<"log1p", Jaxc_InexactTensor, "log(1 + x), accurate near 0">;
def Jaxc_TanOp : Jaxc_UnaryOp<"tan", Jaxc_InexactTensor, "tangent">;
def Jaxc_AsinOp : Jaxc_UnaryOp<"asin", Jaxc_InexactTensor, "arcsine">;
def Jaxc_AcosOp : Jaxc_UnaryOp<"acos", Jaxc_InexactTensor, "arccosine">;
def Jaxc_AtanOp : Jaxc_UnaryOp<"atan", Jaxc_InexactTensor, "arctangent">;
def Jaxc_SinhOp : Jaxc_UnaryOp<"sinh", Jaxc_InexactTensor, "hyperbolic sine">;
def Jaxc_CoshOp : Jaxc_UnaryOp<"cosh", Jaxc_InexactTensor, "hyperbolic cosine">;
def Jaxc_AsinhOp : Jaxc_UnaryOp<"asinh", Jaxc_InexactTensor, "inverse hyperbolic sine">;
def Jaxc_AcoshOp : Jaxc_UnaryOp<"acosh", Jaxc_InexactTensor, "inverse hyperbolic cosine">;
def Jaxc_AtanhOp : Jaxc_UnaryOp<"atanh", Jaxc_InexactTensor, "inverse hyperbolic tangent">;
def Jaxc_LogisticOp : Jaxc_UnaryOp<"logistic", Jaxc_FloatTensor, "logistic sigmoid 1 / (1 + exp(-x))">;
def Jaxc_RsqrtOp : Jaxc_UnaryOp<"rsqrt", Jaxc_InexactTensor, "reciprocal square root">;
def Jaxc_CbrtOp : Jaxc_UnaryOp<"cbrt", Jaxc_FloatTensor, "cube root">;
def Jaxc_FloorOp : Jaxc_UnaryOp<"floor", Jaxc_FloatTensor, "floor">;
def Jaxc_CeilOp : Jaxc_UnaryOp<"ceil", Jaxc_FloatTensor, "ceiling">;
def Jaxc_ErfOp : Jaxc_UnaryOp<"erf", Jaxc_FloatTensor, "error function">;
def Jaxc_ErfInvOp : Jaxc_UnaryOp<"erf_inv", Jaxc_FloatTensor, "inverse error function">;
def Jaxc_LgammaOp : Jaxc_UnaryOp<"lgamma", Jaxc_FloatTensor, "log of the absolute value of the gamma function">;
def Jaxc_DigammaOp : Jaxc_UnaryOp<"digamma", Jaxc_FloatTensor, "digamma function">;
def Jaxc_PopulationCountOp : Jaxc_UnaryOp<"population_count", Jaxc_IntTensor, "number of set bits">;
def Jaxc_ClzOp : Jaxc_UnaryOp<"clz", Jaxc_IntTensor, "number of leading zero bits">;
def Jaxc_StopGradientOp : Jaxc_UnaryOp<"stop_gradient", Jaxc_Tensor, "identity, with a zero derivative"> {
  let description = [{
    The identity on values; autodiff treats the result as a constant.

    ```mlir
    %y = jaxc.stop_gradient %x : tensor<4xf32>
    ```
  }];
}

def Jaxc_AbsOp : Jaxc_Op<"abs", [Pure, Elementwise, InferTypeOpAdaptor]> {
  let family = "unary";
  let summary = "elementwise absolute value";
  let description = [{
    |x| of each element; the modulus of a complex element, as a real of its
    component type.

    ```mlir
    %y = jaxc.abs %x : tensor<4xf32>
    %m = jaxc.abs %z : tensor<4xcomplex<f32>>   // -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Jaxc_NumericTensor:$operand);
  let results = (outs Jaxc_NumericTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
  let hasFolder = 1;
}

def Jaxc_ConjOp : Jaxc_UnaryOp<"conj", Jaxc_ComplexTensor, "complex conjugate">;

class Jaxc_ComplexPartOp<string mnemonic, string what>
    : Jaxc_Op<mnemonic, [Pure, Elementwise, InferTypeOpAdaptor]> {
  let family = "unary";
  let summary = "elementwise " # what # " of a complex tensor";
  let description = "The " # what # " of each element, of the component type.\n\n"
    # "```mlir\n%r = jaxc." # mnemonic # " %z : tensor<4xcomplex<f32>>   // -> tensor<4xf32>\n```";
  let arguments = (ins Jaxc_ComplexTensor:$operand);
  let results = (outs Jaxc_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}
def Jaxc_RealOp : Jaxc_ComplexPartOp<"real", "real part">;
def Jaxc_ImagOp : Jaxc_ComplexPartOp<"imag", "imaginary part">;

def Jaxc_ComplexOp : Jaxc_Op<"complex", [Pure, InferTypeOpAdaptor]> {
  let family = "binary";
  let summary = "elementwise complex number from real and imaginary parts";
  let description = [{
    `lhs + i * rhs`; both operands have the same f32 or f64 type.

    ```mlir
    %z = jaxc.complex %re, %im : tensor<4xf32>   // -> tensor<4xcomplex<f32>>
    ```
  }];
  let arguments = (ins Jaxc_FloatTensor:$lhs, Jaxc_FloatTensor:$rhs);
  let results = (outs Jaxc_ComplexTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` custom<SameType>(type($lhs), type($rhs))";
}

def Jaxc_RoundOp : Jaxc_Op<"round", [Pure, Elementwise, SameOperandsAndResultType,
                                     InferTypeOpInterface]> {
  let family = "elementwise";
  let summary = "elementwise rounding to an integral value";
  let description = [{
    Rounds halfway cases away from zero (default) or to the nearest even.

    ```mlir
    %y = jaxc.round %x, to_nearest_even : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jaxc_FloatTensor:$operand,
                   DefaultValuedAttr<Jaxc_RoundingMethod, "RoundingMethod::AwayFromZero">:$rounding_method);
  let results = (outs Jaxc_FloatTensor:$result);
  let assemblyFormat = "$operand (`,` $rounding_method^)? attr-dict `:` type($result)";
}

def Jaxc_IsFiniteOp : Jaxc_Op<"is_finite", [Pure, Elementwise,
    InferTypeOpAdaptor]> {
  let family = "unary";
  let summary = "elementwise test for a finite value";
  let description = [{
    True where the element is neither infinite nor NaN; the result is i1.

    ```mlir
    %m = jaxc.is_finite %x : tensor<4xf32>   // -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Jaxc_FloatTensor:$operand);
  let results = (outs Jaxc_PredTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

let hasFolder = 1 in {
def Jaxc_AddOp : Jaxc_BinaryOp<"add", Jaxc_Tensor, "sum (logical or for i1)", [Commutative]>;
def Jaxc_SubOp : Jaxc_BinaryOp<"sub", Jaxc_NumericTensor, "difference">;
def Jaxc_MulOp : Jaxc_BinaryOp<"mul", Jaxc_Tensor, "product (logical and for i1)", [Commutative]>;
def Jaxc_DivOp : Jaxc_BinaryOp<"div", Jaxc_NumericTensor, "quotient (integers round toward zero)">;
def Jaxc_MaxOp : Jaxc_BinaryOp<"max", Jaxc_Tensor, "maximum (NaN-propagating)", [Commutative]>;
def Jaxc_MinOp : Jaxc_BinaryOp<"min", Jaxc_Tensor, "minimum (NaN-propagating)", [Commutative]>;
def Jaxc_AndOp : Jaxc_BinaryOp<"and", Jaxc_IntOrPredTensor, "bitwise and", [Commutative]>;
def Jaxc_OrOp : Jaxc_BinaryOp<"or", Jaxc_IntOrPredTensor, "bitwise or", [Commutative]>;
def Jaxc_XorOp : Jaxc_BinaryOp<"xor", Jaxc_IntOrPredTensor, "bitwise exclusive or", [Commutative]>;
}
def Jaxc_RemOp : Jaxc_BinaryOp<"rem", Jaxc_RealNumericTensor, "remainder with the sign of the dividend">;
def Jaxc_PowOp : Jaxc_BinaryOp<"pow", Jaxc_NumericTensor, "lhs raised to the power rhs">;
def Jaxc_Atan2Op : Jaxc_BinaryOp<"atan2", Jaxc_FloatTensor, "arctangent of lhs / rhs using both signs">;
def Jaxc_ShiftLeftOp : Jaxc_BinaryOp<"shift_left", Jaxc_IntTensor, "left shift">;
def Jaxc_ShiftRightLogicalOp : Jaxc_BinaryOp<"shift_right_logical", Jaxc_IntTensor, "logical right shift">;
def Jaxc_ShiftRightArithmeticOp : Jaxc_BinaryOp<"shift_right_arithmetic", Jaxc_IntTensor, "arithmetic right shift">;
def Jaxc_NextAfterOp : Jaxc_BinaryOp<"nextafter", Jaxc_FloatTensor, "next representable value after lhs toward rhs">;

//===----------------------------------------------------------------------===//
// Compare, select, clamp, conversions
//===----------------------------------------------------------------------===//

def Jaxc_CompareOp : Jaxc_Op<"compare", [Pure,
    InferTypeOpAdaptor]> {
  let family = "elementwise";
  let summary = "elementwise comparison";
  let description = [{
    Compares `lhs` with `rhs`; the result is i1 of the same shape. Floats
    compare as IEEE (ordered except `ne`), `iN` as signed and `uiN` as unsigned.

    ```mlir
    %m = jaxc.compare lt, %x, %y : tensor<4xf32>   // -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Jaxc_ComparisonDirection:$comparison_direction,
                   Jaxc_Tensor:$lhs, Jaxc_Tensor:$rhs);
  let results = (outs Jaxc_PredTensor:$result);
  let assemblyFormat = "$comparison_direction `,` $lhs `,` $rhs attr-dict `:` custom<SameType>(type($lhs), type($rhs))";
}

def Jaxc_SelectOp : Jaxc_Op<"select", [Pure,
    InferTypeOpAdaptor]> {
  let family = "elementwise";
  let summary = "choose elements from two tensors by a predicate";
  let description = [{
    `pred` is a 0-d i1 tensor or an i1 tensor of the operands' shape.

    ```mlir
    %r = jaxc.select %m, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Jaxc_PredTensor:$pred, Jaxc_Tensor:$on_true, Jaxc_Tensor:$on_false);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` custom<SameType>(type($on_true), type($on_false))";
}

def Jaxc_ClampOp : Jaxc_Op<"clamp", [Pure,
    InferTypeOpAdaptor]> {
  let family = "elementwise";
  let summary = "clamp elements between bounds";
  let description = [{
    `min(max(operand, min), max)`; `min` and `max` are 0-d or of the operand's type.

    ```mlir
    %r = jaxc.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$min, Jaxc_Tensor:$operand, Jaxc_Tensor:$max);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$min `,` $operand `,` $max attr-dict `:` type($min) `,` type($operand) `,` type($max)";
}

def Jaxc_ConvertOp : Jaxc_Op<"convert", [Pure]> {
  let family = "elementwise";
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts each element; the shapes of operand and result agree.

    ```mlir
    %i = jaxc.convert %x : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jaxc_BitcastConvertOp : Jaxc_Op<"bitcast_convert", [Pure]> {
  let family = "elementwise";
  let summary = "reinterpret the bits as another element type";
  let description = [{
    Equal widths keep the shape; a narrower result adds a trailing dimension of
    the width ratio, a wider result removes it (as `lax.bitcast_convert_type`).

    ```mlir
    %b = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<4xui32>
    %h = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<4x2xui16>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

#endif // JAXC_ELEMENTWISE_OPS_TD
