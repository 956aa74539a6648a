// Reductions and contractions: type inference and verifiers.
#include "JaxcDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::jaxc;

//===----------------------------------------------------------------------===//
// reduce, argmax/argmin, cumulative, sort
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ReduceOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getDimensionsAttr() || !adaptor.getKindAttr() ||
      failed(checkDimensions(loc, name, adaptor.getDimensions(), in.getRank(), "dimensions")))
    return failure();
  ReduceKind kind = adaptor.getKind();
  bool isLogical = kind == ReduceKind::And || kind == ReduceKind::Or;
  if (isLogical && llvm::isa<FloatType>(in.getElementType())) {
    emitOpErrorAt(loc, name) << "'" << stringifyReduceKind(kind)
                             << "' needs integer or i1 elements, got " << in;
    return failure();
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!llvm::is_contained(adaptor.getDimensions(), d))
      shape.push_back(in.getDimSize(d));
  inferred.push_back(in.clone(shape));
  return success();
}

/// argmax/argmin: `axis` is removed from the shape; the index type is free.
template <typename ArgOp>
static LogicalResult verifyArgReduce(ArgOp op) {
  auto in = llvm::cast<RankedTensorType>(op.getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(op.getType());
  int64_t axis = op.getAxis();
  if (axis < 0 || axis >= in.getRank())
    return op.emitOpError() << "axis " << axis << " is out of range for operand " << in
                            << " of rank " << in.getRank();
  SmallVector<int64_t> shape(in.getShape());
  shape.erase(shape.begin() + axis);
  if (ArrayRef<int64_t>(shape) != out.getShape()) {
    auto diag = op.emitOpError() << "result " << out << " must have shape [";
    llvm::interleaveComma(shape, diag);
    return diag << "] (operand " << in << " without axis " << axis << ")";
  }
  return success();
}
LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

LogicalResult CumulativeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    CumulativeOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  RankedTensorType in = getStaticTensor(loc, getOperationName(), operands[0], "operand");
  if (!in || !adaptor.getAxisAttr())
    return failure();
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= in.getRank()) {
    emitOpErrorAt(loc, getOperationName()) << "axis " << axis << " is out of range for operand "
                                           << in << " of rank " << in.getRank();
    return failure();
  }
  inferred.push_back(in);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
    TopKOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, adaptor.getOperand(), "operand");
  if (!in || !adaptor.getKAttr())
    return failure();
  if (in.getRank() < 1) {
    emitOpErrorAt(loc, name) << "operand " << in << " must have at least one axis (top_k works along the last)";
    return failure();
  }
  int64_t k = adaptor.getK(), n = in.getShape().back();
  if (k < 0 || k > n) {
    emitOpErrorAt(loc, name) << "k = " << k << " must be between 0 and the size of the last axis (" << n
                             << ") of operand " << in;
    return failure();
  }
  SmallVector<int64_t> shape(in.getShape().drop_back());
  shape.push_back(k);
  inferred.push_back(RankedTensorType::get(shape, in.getElementType()));
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(context, 32)));
  return success();
}

LogicalResult SortOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    SortOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  if (operands.empty()) {
    emitOpErrorAt(loc, name) << "needs at least one input";
    return failure();
  }
  RankedTensorType first = getStaticTensor(loc, name, operands[0], "input #0");
  if (!first || !adaptor.getDimensionAttr())
    return failure();
  for (auto [i, value] : llvm::enumerate(operands)) {
    RankedTensorType type = getStaticTensor(loc, name, value, "input");
    if (!type)
      return failure();
    if (type.getShape() != first.getShape()) {
      emitOpErrorAt(loc, name) << "input #" << i << " of type " << type
                               << " must have the shape of input #0 " << first;
      return failure();
    }
    inferred.push_back(type);
  }
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= first.getRank()) {
    emitOpErrorAt(loc, name) << "dimension " << dim << " is out of range for inputs of rank "
                             << first.getRank();
    return failure();
  }
  // Python builders may leave the defaulted attribute unset here.
  int64_t numKeys = adaptor.getNumKeysAttr() ? adaptor.getNumKeys() : 1;
  if (numKeys < 1 || numKeys > static_cast<int64_t>(operands.size())) {
    emitOpErrorAt(loc, name) << "num_keys " << numKeys << " must be in [1, "
                             << operands.size() << "] (the number of inputs)";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

/// Result types match when shapes agree: the element type is the preferred one.
static bool sameShapes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = llvm::dyn_cast<RankedTensorType>(l), rt = llvm::dyn_cast<RankedTensorType>(r);
    if (!lt || !rt || lt.getShape() != rt.getShape())
      return false;
  }
  return true;
}

/// The preferred element type may differ from the operands' but stays in
/// their category: float operands give a float result, integers an integer.
static bool sameShapesAndCategory(TypeRange lhs, TypeRange rhs) {
  if (!sameShapes(lhs, rhs))
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs))
    if (llvm::isa<FloatType>(getElementTypeOrSelf(l)) !=
        llvm::isa<FloatType>(getElementTypeOrSelf(r)))
      return false;
  return true;
}

bool DotGeneralOp::isCompatibleReturnTypes(TypeRange lhs, TypeRange rhs) {
  return sameShapesAndCategory(lhs, rhs);
}

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    DotGeneralOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType lhs = getStaticTensor(loc, name, adaptor.getLhs(), "operand 'lhs'");
  RankedTensorType rhs = getStaticTensor(loc, name, adaptor.getRhs(), "operand 'rhs'");
  if (!lhs || !rhs || !adaptor.getLhsBatchingDimensionsAttr() ||
      !adaptor.getRhsBatchingDimensionsAttr() || !adaptor.getLhsContractingDimensionsAttr() ||
      !adaptor.getRhsContractingDimensionsAttr())
    return failure();
  if (lhs.getElementType() != rhs.getElementType()) {
    emitOpErrorAt(loc, name) << "operands must have the same element type, got lhs " << lhs
                             << " and rhs " << rhs;
    return failure();
  }
  ArrayRef<int64_t> lb = adaptor.getLhsBatchingDimensions(),
                    rb = adaptor.getRhsBatchingDimensions(),
                    lc = adaptor.getLhsContractingDimensions(),
                    rc = adaptor.getRhsContractingDimensions();
  if (lb.size() != rb.size() || lc.size() != rc.size()) {
    emitOpErrorAt(loc, name) << "lhs and rhs need as many batching dimensions (" << lb.size()
                             << " vs " << rb.size() << ") and contracting dimensions ("
                             << lc.size() << " vs " << rc.size() << ")";
    return failure();
  }
  if (failed(checkDimensions(loc, name, lb, lhs.getRank(), "lhs_batching_dimensions")) ||
      failed(checkDimensions(loc, name, lc, lhs.getRank(), "lhs_contracting_dimensions")) ||
      failed(checkDimensions(loc, name, rb, rhs.getRank(), "rhs_batching_dimensions")) ||
      failed(checkDimensions(loc, name, rc, rhs.getRank(), "rhs_contracting_dimensions")))
    return failure();
  for (auto [side, batching, contracting] : {std::make_tuple(StringRef("lhs"), lb, lc),
                                              std::make_tuple(StringRef("rhs"), rb, rc)}) {
    for (int64_t d : contracting) {
      if (llvm::is_contained(batching, d)) {
        emitOpErrorAt(loc, name) << side << " dimension " << d
                                 << " is both a batching and a contracting dimension";
        return failure();
      }
    }
  }
  SmallVector<int64_t> lhsUsed(lb), rhsUsed(rb);
  lhsUsed.append(lc.begin(), lc.end());
  rhsUsed.append(rc.begin(), rc.end());
  for (auto [kind, ldims, rdims] : {std::make_tuple(StringRef("batching"), lb, rb),
                                    std::make_tuple(StringRef("contracting"), lc, rc)}) {
    for (auto [l, r] : llvm::zip(ldims, rdims)) {
      if (lhs.getDimSize(l) != rhs.getDimSize(r)) {
        emitOpErrorAt(loc, name) << kind << " dimension lhs[" << l << "] of size "
                                 << lhs.getDimSize(l) << " does not match rhs[" << r
                                 << "] of size " << rhs.getDimSize(r) << " (lhs " << lhs
                                 << ", rhs " << rhs << ")";
        return failure();
      }
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t d : lb)
    shape.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!llvm::is_contained(lhsUsed, d))
      shape.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!llvm::is_contained(rhsUsed, d))
      shape.push_back(rhs.getDimSize(d));
  inferred.push_back(lhs.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// conv_general_dilated
//===----------------------------------------------------------------------===//

bool ConvGeneralDilatedOp::isCompatibleReturnTypes(TypeRange lhs, TypeRange rhs) {
  return sameShapesAndCategory(lhs, rhs);
}

LogicalResult ConvGeneralDilatedOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ConvGeneralDilatedOp::Adaptor a, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = a.getOperands();
  StringRef name = getOperationName();
  RankedTensorType lhs = getStaticTensor(loc, name, a.getLhs(), "operand 'lhs'");
  RankedTensorType rhs = getStaticTensor(loc, name, a.getRhs(), "operand 'rhs'");
  if (!lhs || !rhs || !a.getWindowStridesAttr() || !a.getPaddingAttr() ||
      !a.getLhsDilationAttr() || !a.getRhsDilationAttr() || !a.getLhsSpecAttr() ||
      !a.getRhsSpecAttr() || !a.getOutSpecAttr())
    return failure();
  if (lhs.getElementType() != rhs.getElementType()) {
    emitOpErrorAt(loc, name) << "operands must have the same element type, got lhs " << lhs
                             << " and rhs " << rhs;
    return failure();
  }
  int64_t rank = lhs.getRank(), spatial = rank - 2;
  if (rank < 3 || rhs.getRank() != rank) {
    emitOpErrorAt(loc, name) << "lhs " << lhs << " and rhs " << rhs
                             << " must have the same rank, at least 3";
    return failure();
  }
  for (auto [attrName, spec] : {std::make_pair(StringRef("lhs_spec"), a.getLhsSpec()),
                                {StringRef("rhs_spec"), a.getRhsSpec()},
                                {StringRef("out_spec"), a.getOutSpec()}}) {
    if (static_cast<int64_t>(spec.size()) != rank) {
      emitOpErrorAt(loc, name) << attrName << " has " << spec.size()
                               << " entries but the operands have rank " << rank;
      return failure();
    }
    if (failed(checkDimensions(loc, name, spec, rank, attrName)))
      return failure();
  }
  for (auto [attrName, values, expected] :
       {std::make_tuple(StringRef("window_strides"), a.getWindowStrides(), spatial),
        std::make_tuple(StringRef("lhs_dilation"), a.getLhsDilation(), spatial),
        std::make_tuple(StringRef("rhs_dilation"), a.getRhsDilation(), spatial),
        std::make_tuple(StringRef("padding"), a.getPadding(), 2 * spatial)}) {
    if (static_cast<int64_t>(values.size()) != expected) {
      emitOpErrorAt(loc, name) << attrName << " has " << values.size() << " entries but needs "
                               << expected << " for " << spatial << " spatial dimensions";
      return failure();
    }
    if (attrName != "padding" && llvm::any_of(values, [](int64_t v) { return v < 1; })) {
      emitOpErrorAt(loc, name) << attrName << " entries must be >= 1";
      return failure();
    }
  }
  ArrayRef<int64_t> ls = a.getLhsSpec(), rs = a.getRhsSpec(), os = a.getOutSpec();
  int64_t batch = lhs.getDimSize(ls[0]), inFeatures = lhs.getDimSize(ls[1]);
  int64_t outFeatures = rhs.getDimSize(rs[0]), kernelIn = rhs.getDimSize(rs[1]);
  // Python builders may leave the defaulted attributes unset here.
  int64_t groups = a.getFeatureGroupCountAttr() ? a.getFeatureGroupCount() : 1;
  int64_t batchGroups = a.getBatchGroupCountAttr() ? a.getBatchGroupCount() : 1;
  if (groups < 1 || batchGroups < 1 || (groups > 1 && batchGroups > 1)) {
    emitOpErrorAt(loc, name) << "feature_group_count (" << groups << ") and batch_group_count ("
                             << batchGroups << ") must be >= 1 and not both > 1";
    return failure();
  }
  if (inFeatures != kernelIn * groups || outFeatures % groups != 0) {
    emitOpErrorAt(loc, name) << "lhs feature size " << inFeatures << " must equal rhs input "
                             << "feature size " << kernelIn << " times feature_group_count "
                             << groups << ", and rhs output features " << outFeatures
                             << " must divide by it";
    return failure();
  }
  if (batch % batchGroups != 0 || outFeatures % batchGroups != 0) {
    emitOpErrorAt(loc, name) << "batch size " << batch << " and output features " << outFeatures
                             << " must divide by batch_group_count " << batchGroups;
    return failure();
  }
  SmallVector<__int128> shape(rank, 0);
  shape[os[0]] = batch / batchGroups;
  shape[os[1]] = outFeatures;
  for (int64_t i = 0; i < spatial; ++i) {
    __int128 in = lhs.getDimSize(ls[2 + i]), window = rhs.getDimSize(rs[2 + i]);
    __int128 dilatedIn = in == 0 ? 0 : (in - 1) * a.getLhsDilation()[i] + 1;
    __int128 padded = dilatedIn + a.getPadding()[2 * i] + a.getPadding()[2 * i + 1];
    __int128 dilatedWindow = window == 0 ? 0 : (window - 1) * a.getRhsDilation()[i] + 1;
    shape[os[2 + i]] =
        padded < dilatedWindow ? 0 : (padded - dilatedWindow) / a.getWindowStrides()[i] + 1;
  }
  RankedTensorType result = cloneChecked(loc, name, lhs, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

/// The checks jaxc.dft and jaxc.hermitian_dft share: the operand has an
/// axis to transform, `axis` is one of them, the sign is -1 or 1, and the
/// result has the operand's rank.
static LogicalResult verifyTransform(Operation *op, RankedTensorType in, RankedTensorType out, int64_t axis,
                                     int64_t sign) {
  if (in.getRank() < 1)
    return op->emitOpError() << "operand " << in << " must have an axis to transform (rank >= 1)";
  if (axis < 0 || axis >= in.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range for operand " << in << " (0 <= axis < "
                             << in.getRank() << ")";
  if (sign != 1 && sign != -1)
    return op->emitOpError() << "sign must be -1 (forward) or 1 (inverse), got " << sign;
  if (out.getRank() != in.getRank())
    return op->emitOpError() << "result " << out << " must have the operand's rank " << in.getRank();
  return success();
}

LogicalResult DftOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getResult().getType());
  Type element = in.getElementType();
  if (auto complex = llvm::dyn_cast<ComplexType>(element))
    element = complex.getElementType();
  if (!element.isF32() && !element.isF64())
    return emitOpError() << "operand " << in << " must have f32, f64, complex<f32> or complex<f64> elements";
  int64_t axis = getAxis();
  if (failed(verifyTransform(*this, in, out, axis, getSign())))
    return failure();
  if (out.getElementType() != ComplexType::get(element))
    return emitOpError() << "result " << out << " must have " << ComplexType::get(element) << " elements";
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t m = out.getDimSize(d), n = in.getDimSize(d);
    if (d == axis ? m > n || (m < 1 && n > 0) : m != n)
      return emitOpError() << "result " << out << " does not fit operand " << in << ": "
                           << (d == axis ? "the axis must hold 1 to n of the operand's n points"
                                         : "the other axes must be the operand's");
  }
  return success();
}

LogicalResult HermitianDftOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getResult().getType());
  Type part = llvm::cast<ComplexType>(in.getElementType()).getElementType();  // f32 or f64 (ODS)
  if (out.getElementType() != part)
    return emitOpError() << "result " << out << " must have the operand's part type " << part;
  int64_t axis = getAxis();
  if (failed(verifyTransform(*this, in, out, axis, getSign())))
    return failure();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = out.getDimSize(d), m = in.getDimSize(d);
    if (d == axis ? n < 1 || n / 2 + 1 != m : n != m)
      return emitOpError() << "result " << out << " does not fit operand " << in << ": "
                           << (d == axis ? "the axis must hold n >= 1 points where the operand holds n//2 + 1"
                                         : "the other axes must be the operand's");
  }
  return success();
}

LogicalResult LuOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  if (in.getRank() < 2)
    return emitOpError() << "operand " << in << " must be a batch of matrices (rank >= 2)";
  if (getLu().getType() != in)
    return emitOpError() << "result lu " << getLu().getType() << " must have the operand's type " << in;
  ArrayRef<int64_t> shape = in.getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  SmallVector<int64_t> pivots(shape.drop_back(2)), permutation(shape.drop_back(2));
  pivots.push_back(std::min(m, n));
  permutation.push_back(m);
  if (llvm::cast<RankedTensorType>(getPivots().getType()).getShape() != ArrayRef<int64_t>(pivots))
    return emitOpError() << "result pivots " << getPivots().getType() << " must have the batch axes and min(m, n) = "
                         << std::min(m, n) << " entries per matrix of operand " << in;
  if (llvm::cast<RankedTensorType>(getPermutation().getType()).getShape() != ArrayRef<int64_t>(permutation))
    return emitOpError() << "result permutation " << getPermutation().getType()
                         << " must have the batch axes and m = " << m << " entries per matrix of operand " << in;
  return success();
}

LogicalResult TriangularSolveOp::verify() {
  auto a = llvm::cast<RankedTensorType>(getA().getType());
  auto b = llvm::cast<RankedTensorType>(getB().getType());
  if (a.getRank() < 2 || a.getDimSize(a.getRank() - 1) != a.getDimSize(a.getRank() - 2))
    return emitOpError() << "a " << a << " must be a batch of square matrices";
  if (b.getElementType() != a.getElementType())
    return emitOpError() << "a " << a << " and b " << b << " must have one element type";
  if (b.getRank() != a.getRank() || a.getShape().drop_back(2) != b.getShape().drop_back(2))
    return emitOpError() << "b " << b << " must be a batch of matrices with a's batch axes (a: " << a << ")";
  int64_t k = a.getShape().back();
  int64_t side = getLeftSide() ? b.getDimSize(b.getRank() - 2) : b.getShape().back();
  if (side != k)
    return emitOpError() << "a " << a << " does not fit b " << b << ": b's " << (getLeftSide() ? "rows" : "columns")
                         << " must be a's " << k << (getLeftSide() ? " (left_side)" : " (right side)");
  if (getResult().getType() != b)
    return emitOpError() << "result " << getResult().getType() << " must have b's type " << b;
  return success();
}

LogicalResult CholeskyOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  if (in.getRank() < 2 || in.getDimSize(in.getRank() - 1) != in.getDimSize(in.getRank() - 2))
    return emitOpError() << "operand " << in << " must be a batch of square matrices";
  return success();
}

LogicalResult QrOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  if (in.getRank() < 2)
    return emitOpError() << "operand " << in << " must be a batch of matrices (rank >= 2)";
  ArrayRef<int64_t> shape = in.getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  int64_t k = getFullMatrices() ? m : std::min(m, n);
  SmallVector<int64_t> q(shape.drop_back(2)), r(shape.drop_back(2));
  q.append({m, k});
  r.append({k, n});
  auto qType = llvm::cast<RankedTensorType>(getQ().getType());
  auto rType = llvm::cast<RankedTensorType>(getR().getType());
  if (qType != RankedTensorType::get(q, in.getElementType()))
    return emitOpError() << "result q " << qType << " must have the operand's batch axes and element type and "
                         << m << " x " << k << " matrices (" << (getFullMatrices() ? "m x m, full_matrices" : "m x min(m, n)")
                         << ") for operand " << in;
  if (rType != RankedTensorType::get(r, in.getElementType()))
    return emitOpError() << "result r " << rType << " must have the operand's batch axes and element type and "
                         << k << " x " << n << " matrices for operand " << in;
  return success();
}

LogicalResult EighOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  if (in.getRank() < 2 || in.getDimSize(in.getRank() - 1) != in.getDimSize(in.getRank() - 2))
    return emitOpError() << "operand " << in << " must be a batch of square matrices";
  if (getVectors().getType() != in)
    return emitOpError() << "result vectors " << getVectors().getType() << " must have the operand's type " << in;
  Type real = in.getElementType();
  if (auto complex = llvm::dyn_cast<ComplexType>(real))
    real = complex.getElementType();
  auto values = RankedTensorType::get(in.getShape().drop_back(), real);
  if (getValues().getType() != values)
    return emitOpError() << "result values " << getValues().getType() << " must be " << values
                         << ": one real value per row of each matrix of operand " << in;
  return success();
}

LogicalResult SvdOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  if (in.getRank() < 2)
    return emitOpError() << "operand " << in << " must be a batch of matrices (rank >= 2)";
  ArrayRef<int64_t> shape = in.getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  bool full = getFullMatrices();
  Type real = in.getElementType();
  if (auto complex = llvm::dyn_cast<ComplexType>(real))
    real = complex.getElementType();
  SmallVector<int64_t> s(shape.drop_back(2)), u(shape.drop_back(2)), vh(shape.drop_back(2));
  s.push_back(k);
  u.append({m, full ? m : k});
  vh.append({full ? n : k, n});
  auto sType = RankedTensorType::get(s, real);
  if (getS().getType() != sType)
    return emitOpError() << "result s " << getS().getType() << " must be " << sType
                         << ": min(m, n) real values per matrix of operand " << in;
  auto uType = RankedTensorType::get(u, in.getElementType());
  if (getU().getType() != uType)
    return emitOpError() << "result u " << getU().getType() << " must be " << uType << " for operand " << in
                         << (full ? " (m x m, full_matrices)" : " (m x min(m, n))");
  auto vhType = RankedTensorType::get(vh, in.getElementType());
  if (getVh().getType() != vhType)
    return emitOpError() << "result vh " << getVh().getType() << " must be " << vhType << " for operand " << in
                         << (full ? " (n x n, full_matrices)" : " (min(m, n) x n)");
  return success();
}

//===----------------------------------------------------------------------===//
// hessenberg, schur, eig: batches of square matrices
//===----------------------------------------------------------------------===//

/// The operand as a batch of square matrices, or null after an error.
static RankedTensorType getSquareMatrices(std::optional<Location> loc, StringRef name, Value operand) {
  RankedTensorType in = getStaticTensor(loc, name, operand, "operand");
  if (!in)
    return nullptr;
  if (in.getRank() < 2 || in.getDimSize(in.getRank() - 1) != in.getDimSize(in.getRank() - 2)) {
    emitOpErrorAt(loc, name) << "operand " << in << " must be a batch of square matrices";
    return nullptr;
  }
  return in;
}

LogicalResult HessenbergOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    HessenbergOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType in = getSquareMatrices(loc, getOperationName(), adaptor.getOperand());
  if (!in)
    return failure();
  SmallVector<int64_t> taus(in.getShape().drop_back(2));
  taus.push_back(std::max<int64_t>(in.getShape().back() - 1, 0));
  inferred.push_back(in);
  inferred.push_back(RankedTensorType::get(taus, in.getElementType()));
  return success();
}

LogicalResult SchurOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    SchurOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType in = getSquareMatrices(loc, getOperationName(), adaptor.getOperand());
  if (!in)
    return failure();
  inferred.append({in, in});
  return success();
}

LogicalResult EigOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    EigOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RankedTensorType in = getSquareMatrices(loc, getOperationName(), adaptor.getOperand());
  if (!in)
    return failure();
  if (!in.getElementType().isF32() && !in.getElementType().isF64()) {  // ComplexType::get asserts on others
    emitOpErrorAt(loc, getOperationName()) << "operand " << in << " must have f32 or f64 elements";
    return failure();
  }
  auto complex = ComplexType::get(in.getElementType());
  inferred.push_back(RankedTensorType::get(in.getShape().drop_back(), complex));
  inferred.push_back(RankedTensorType::get(in.getShape(), complex));
  inferred.push_back(RankedTensorType::get(in.getShape(), complex));
  return success();
}
