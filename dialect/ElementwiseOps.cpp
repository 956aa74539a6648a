// Creation and elementwise ops: type inference, verifiers and folders.
#include "JaxcDialect.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::jaxc;

namespace {

bool isUnsignedElement(Type type) {
  auto intType = llvm::dyn_cast<IntegerType>(getElementTypeOrSelf(type));
  return intType && intType.isUnsigned();
}

/// Dense constant small enough to fold, or null. Complex constants are not
/// folded (their elements are neither APInt nor APFloat).
DenseElementsAttr foldableConstant(Attribute attr) {
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements) ||
      llvm::isa<ComplexType>(dense.getElementType()))
    return nullptr;
  return dense;
}

using IntFn = std::function<std::optional<APInt>(const APInt &, const APInt &)>;
using FloatFn = std::function<std::optional<APFloat>(const APFloat &, const APFloat &)>;

/// Applies `intFn` or `floatFn` element by element to two constants.
Attribute foldBinary(ArrayRef<Attribute> operands, Type resultType,
                     const IntFn &intFn, const FloatFn &floatFn) {
  DenseElementsAttr lhs = foldableConstant(operands[0]);
  DenseElementsAttr rhs = foldableConstant(operands[1]);
  auto shaped = llvm::dyn_cast<ShapedType>(resultType);
  if (!lhs || !rhs || !shaped || lhs.getType() != rhs.getType())
    return {};
  Type element = shaped.getElementType();
  int64_t count = lhs.isSplat() && rhs.isSplat() ? 1 : shaped.getNumElements();
  if (llvm::isa<FloatType>(element)) {
    if (!floatFn)
      return {};
    SmallVector<APFloat> values;
    auto lv = lhs.getValues<APFloat>(), rv = rhs.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i) {
      std::optional<APFloat> r = floatFn(lv[lhs.isSplat() ? 0 : i], rv[rhs.isSplat() ? 0 : i]);
      if (!r)
        return {};
      values.push_back(*r);
    }
    return count == 1 ? DenseElementsAttr::get(shaped, values.front())
                      : DenseElementsAttr::get(shaped, values);
  }
  if (!intFn)
    return {};
  SmallVector<APInt> values;
  auto lv = lhs.getValues<APInt>(), rv = rhs.getValues<APInt>();
  for (int64_t i = 0; i < count; ++i) {
    std::optional<APInt> r = intFn(lv[lhs.isSplat() ? 0 : i], rv[rhs.isSplat() ? 0 : i]);
    if (!r)
      return {};
    values.push_back(*r);
  }
  return count == 1 ? DenseElementsAttr::get(shaped, values.front())
                    : DenseElementsAttr::get(shaped, values);
}

using UnaryIntFn = std::function<std::optional<APInt>(const APInt &)>;
using UnaryFloatFn = std::function<std::optional<APFloat>(const APFloat &)>;

Attribute foldUnary(Attribute operand, Type resultType, const UnaryIntFn &intFn,
                    const UnaryFloatFn &floatFn) {
  DenseElementsAttr input = foldableConstant(operand);
  auto shaped = llvm::dyn_cast<ShapedType>(resultType);
  if (!input || !shaped)
    return {};
  Type element = shaped.getElementType();
  if (element != input.getElementType())
    return {};  // abs of a complex constant: not folded
  int64_t count = input.isSplat() ? 1 : shaped.getNumElements();
  if (llvm::isa<FloatType>(element)) {
    if (!floatFn)
      return {};
    SmallVector<APFloat> values;
    auto iv = input.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i) {
      std::optional<APFloat> r = floatFn(iv[i]);
      if (!r)
        return {};
      values.push_back(*r);
    }
    return count == 1 ? DenseElementsAttr::get(shaped, values.front())
                      : DenseElementsAttr::get(shaped, values);
  }
  if (!intFn)
    return {};
  SmallVector<APInt> values;
  auto iv = input.getValues<APInt>();
  for (int64_t i = 0; i < count; ++i) {
    std::optional<APInt> r = intFn(iv[i]);
    if (!r)
      return {};
    values.push_back(*r);
  }
  return count == 1 ? DenseElementsAttr::get(shaped, values.front())
                    : DenseElementsAttr::get(shaped, values);
}

/// Folds a libm function for f32/f64 elements (other widths are left alone).
UnaryFloatFn viaDouble(double (*fn)(double)) {
  return [fn](const APFloat &x) -> std::optional<APFloat> {
    const llvm::fltSemantics &sem = x.getSemantics();
    if (&sem != &APFloat::IEEEsingle() && &sem != &APFloat::IEEEdouble())
      return std::nullopt;
    if (&sem == &APFloat::IEEEsingle())
      return APFloat(static_cast<float>(fn(x.convertToFloat())));
    return APFloat(fn(x.convertToDouble()));
  };
}

/// True when `attr` is a constant whose every element equals `value`.
bool isSplatOf(Attribute attr, int64_t value) {
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || llvm::isa<ComplexType>(dense.getElementType()))
    return false;
  Type element = dense.getElementType();
  if (llvm::isa<FloatType>(element))
    return dense.getSplatValue<APFloat>().isExactlyValue(static_cast<double>(value));
  if (element.isInteger(1))
    return dense.getSplatValue<APInt>().getZExtValue() == static_cast<uint64_t>(value);
  return dense.getSplatValue<APInt>().getSExtValue() == value;
}

/// A splat that leaves every x unchanged under addition: 0 for integers,
/// -0.0 for floats (since -0.0 + 0.0 = +0.0).
bool isAdditiveIdentity(Attribute attr) {
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || llvm::isa<ComplexType>(dense.getElementType()))
    return false;
  if (llvm::isa<FloatType>(dense.getElementType())) {
    APFloat value = dense.getSplatValue<APFloat>();
    return value.isZero() && value.isNegative();
  }
  return dense.getSplatValue<APInt>().isZero();
}

/// NaN-propagating max/min for floats.
std::optional<APFloat> floatMax(const APFloat &a, const APFloat &b) {
  return llvm::maximum(a, b);
}
std::optional<APFloat> floatMin(const APFloat &a, const APFloat &b) {
  return llvm::minimum(a, b);
}

} // namespace

//===----------------------------------------------------------------------===//
// constant, iota
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ConstantOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto value = llvm::dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value) {
    emitOpErrorAt(loc, getOperationName()) << "requires a `value` elements attribute";
    return failure();
  }
  inferred.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError() << "value has type " << getValue().getType()
                         << " but the result has type " << getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult IotaOp::verify() {
  int64_t rank = getType().getRank();
  int64_t dim = getIotaDimensionAttr().getInt();
  if (rank == 0)
    return emitOpError() << "result must have rank >= 1, got " << getType();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "iota_dimension " << dim
                         << " is out of range for result " << getType() << " of rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Unary folders
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   [](const APInt &x) -> std::optional<APInt> { return -x; },
                   [](const APFloat &x) -> std::optional<APFloat> { return neg(x); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType());
  return foldUnary(adaptor.getOperand(), getType(),
                   [isUnsigned](const APInt &x) -> std::optional<APInt> {
                     return isUnsigned ? x : x.abs();
                   },
                   [](const APFloat &x) -> std::optional<APFloat> { return abs(x); });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperand(), getType(),
                   [](const APInt &x) -> std::optional<APInt> { return ~x; }, nullptr);
}

OpFoldResult ExpOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::exp)); }
OpFoldResult LogOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::log)); }
OpFoldResult SinOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::sin)); }
OpFoldResult CosOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::cos)); }
OpFoldResult TanhOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::tanh)); }
OpFoldResult SqrtOp::fold(FoldAdaptor a) { return foldUnary(a.getOperand(), getType(), nullptr, viaDouble(std::sqrt)); }

static LogicalResult inferSameType(StringRef opName, std::optional<Location> loc,
                                   ValueRange operands, SmallVectorImpl<Type> &inferred);

/// The component type of a complex tensor type; other types unchanged.
static RankedTensorType realTensorOf(RankedTensorType type) {
  if (auto complex = llvm::dyn_cast<ComplexType>(type.getElementType()))
    return type.clone(complex.getElementType());
  return type;
}

LogicalResult AbsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    AbsOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType type = getStaticTensor(loc, getOperationName(), adaptor.getOperand(), "operand");
  if (!type)
    return failure();
  inferred.push_back(realTensorOf(type));
  return success();
}

#define JAXC_COMPLEX_PART_INFER(OP)                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,            \
                                     OP::Adaptor adaptor, SmallVectorImpl<Type> &inferred) { \
    RankedTensorType type =                                                                 \
        getStaticTensor(loc, getOperationName(), adaptor.getOperand(), "operand");          \
    if (!type)                                                                              \
      return failure();                                                                     \
    inferred.push_back(realTensorOf(type));                                                 \
    return success();                                                                       \
  }
JAXC_COMPLEX_PART_INFER(RealOp)
JAXC_COMPLEX_PART_INFER(ImagOp)
#undef JAXC_COMPLEX_PART_INFER

LogicalResult ComplexOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ComplexOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> common;
  if (failed(inferSameType(getOperationName(), loc, adaptor.getOperands(), common)))
    return failure();
  auto type = llvm::dyn_cast<RankedTensorType>(common.front());
  if (!type || !llvm::isa<FloatType>(type.getElementType())) {
    emitOpErrorAt(loc, getOperationName()) << "operands must be f32 or f64 tensors, got " << common.front();
    return failure();
  }
  inferred.push_back(type.clone(ComplexType::get(type.getElementType())));
  return success();
}

LogicalResult IsFiniteOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
    IsFiniteOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  RankedTensorType type = getStaticTensor(loc, getOperationName(), operands[0], "operand");
  if (!type)
    return failure();
  inferred.push_back(type.clone(IntegerType::get(ctx, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Binary ops: identical operand types, named in the error
//===----------------------------------------------------------------------===//

/// Result type of a binary elementwise op: the common type of lhs and rhs.
static LogicalResult inferSameType(StringRef opName, std::optional<Location> loc,
                                   ValueRange operands, SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2) {
    emitOpErrorAt(loc, opName) << "expects 2 operands (lhs, rhs), got " << operands.size();
    return failure();
  }
  Type lhs = operands[0].getType(), rhs = operands[1].getType();
  if (lhs != rhs) {
    emitOpErrorAt(loc, opName) << "operand 'rhs' has type " << rhs
                               << " but operand 'lhs' has type " << lhs
                               << "; elementwise operands must have the same shape and element type";
    return failure();
  }
  inferred.push_back(lhs);
  return success();
}

#define JAXC_BINARY_INFER(OP)                                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,    \
                                     OP::Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {            \
    return inferSameType(getOperationName(), loc, adaptor.getOperands(), inferred); \
  }
JAXC_BINARY_INFER(AddOp)
JAXC_BINARY_INFER(SubOp)
JAXC_BINARY_INFER(MulOp)
JAXC_BINARY_INFER(DivOp)
JAXC_BINARY_INFER(RemOp)
JAXC_BINARY_INFER(PowOp)
JAXC_BINARY_INFER(MaxOp)
JAXC_BINARY_INFER(MinOp)
JAXC_BINARY_INFER(Atan2Op)
JAXC_BINARY_INFER(AndOp)
JAXC_BINARY_INFER(OrOp)
JAXC_BINARY_INFER(XorOp)
JAXC_BINARY_INFER(ShiftLeftOp)
JAXC_BINARY_INFER(ShiftRightLogicalOp)
JAXC_BINARY_INFER(ShiftRightArithmeticOp)
JAXC_BINARY_INFER(NextAfterOp)
#undef JAXC_BINARY_INFER

// x + 0 -> x for integers, x + (-0.0) -> x for floats (x + 0.0 is not x when
// x = -0.0); constants fold. (For i1, add is logical or.)
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isAdditiveIdentity(adaptor.getRhs()))
    return getLhs();
  if (isAdditiveIdentity(adaptor.getLhs()))
    return getRhs();
  bool isBool = getElementTypeOrSelf(getType()).isInteger(1);
  return foldBinary(adaptor.getOperands(), getType(),
                    [isBool](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return isBool ? (a | b) : a + b;
                    },
                    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> { return a + b; });
}

// x - 0 -> x; constants fold.
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a - b; },
                    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> { return a - b; });
}

// x * 1 -> x; constants fold. (For i1, mul is logical and.)
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1))
    return getRhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a * b; },
                    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> { return a * b; });
}

// x / 1 -> x; constants fold (integer division by zero or overflow is left
// to run time, where docs/semantics.md defines it).
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(adaptor.getOperands(), getType(),
                    [isUnsigned](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      if (b.isZero())
                        return std::nullopt;
                      if (isUnsigned)
                        return a.udiv(b);
                      if (a.isMinSignedValue() && b.isAllOnes())
                        return std::nullopt;
                      return a.sdiv(b);
                    },
                    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> { return a / b; });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType()) || getElementTypeOrSelf(getType()).isInteger(1);
  return foldBinary(adaptor.getOperands(), getType(),
                    [isUnsigned](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return isUnsigned ? llvm::APIntOps::umax(a, b) : llvm::APIntOps::smax(a, b);
                    },
                    floatMax);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType()) || getElementTypeOrSelf(getType()).isInteger(1);
  return foldBinary(adaptor.getOperands(), getType(),
                    [isUnsigned](const APInt &a, const APInt &b) -> std::optional<APInt> {
                      return isUnsigned ? llvm::APIntOps::umin(a, b) : llvm::APIntOps::smin(a, b);
                    },
                    floatMin);
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a & b; },
                    nullptr);
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a | b; },
                    nullptr);
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBinary(adaptor.getOperands(), getType(),
                    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a ^ b; },
                    nullptr);
}

//===----------------------------------------------------------------------===//
// compare, select, clamp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
    CompareOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  SmallVector<Type> common;
  if (failed(inferSameType(getOperationName(), loc, operands, common)))
    return failure();
  RankedTensorType type = getStaticTensor(loc, getOperationName(), operands[0], "operand 'lhs'");
  if (!type)
    return failure();
  inferred.push_back(type.clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    SelectOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType pred = getStaticTensor(loc, name, operands[0], "operand 'pred'");
  RankedTensorType onTrue = getStaticTensor(loc, name, operands[1], "operand 'on_true'");
  if (!pred || !onTrue)
    return failure();
  if (operands[2].getType() != onTrue) {
    emitOpErrorAt(loc, name) << "operand 'on_false' has type " << operands[2].getType()
                             << " but operand 'on_true' has type " << onTrue;
    return failure();
  }
  if (pred.getRank() != 0 && pred.getShape() != onTrue.getShape()) {
    emitOpErrorAt(loc, name) << "predicate type " << pred
                             << " must be 0-d or have the shape of 'on_true' " << onTrue;
    return failure();
  }
  inferred.push_back(onTrue);
  return success();
}

LogicalResult ClampOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ClampOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType operand = getStaticTensor(loc, name, operands[1], "operand 'operand'");
  if (!operand)
    return failure();
  for (auto [index, bound] : {std::pair<int, StringRef>{0, "operand 'min'"},
                              {2, "operand 'max'"}}) {
    RankedTensorType type = getStaticTensor(loc, name, operands[index], bound);
    if (!type)
      return failure();
    if (type.getElementType() != operand.getElementType() ||
        (type.getRank() != 0 && type != operand)) {
      emitOpErrorAt(loc, name) << bound << " has type " << type
                               << " but must be 0-d or have the type of 'operand' " << operand
                               << " (same element type)";
      return failure();
    }
  }
  inferred.push_back(operand);
  return success();
}

//===----------------------------------------------------------------------===//
// convert, bitcast_convert
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape())
    return emitOpError() << "operand shape " << in << " and result shape " << out
                         << " differ; convert changes only the element type";
  return success();
}

// convert(x : T -> T) -> x
OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

LogicalResult BitcastConvertOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getType());
  if (llvm::isa<ComplexType>(in.getElementType()) || llvm::isa<ComplexType>(out.getElementType()))
    return emitOpError() << "cannot bitcast complex elements (" << in << " -> " << out << ")";
  unsigned inBits = in.getElementTypeBitWidth(), outBits = out.getElementTypeBitWidth();
  if (in.getElementType().isInteger(1) || out.getElementType().isInteger(1))
    return emitOpError() << "cannot bitcast i1 elements (" << in << " -> " << out << ")";
  SmallVector<int64_t> expected(in.getShape());
  if (inBits > outBits) {
    expected.push_back(inBits / outBits);
  } else if (inBits < outBits) {
    if (in.getRank() == 0 || in.getShape().back() != outBits / inBits)
      return emitOpError() << "operand " << in << " must end in a dimension of size "
                           << outBits / inBits << " to bitcast to " << outBits << "-bit elements";
    expected.pop_back();
  }
  if (ArrayRef<int64_t>(expected) != out.getShape()) {
    auto diag = emitOpError() << "result " << out << " must have shape [";
    llvm::interleaveComma(expected, diag);
    return diag << "] when bitcasting " << in;
  }
  return success();
}
