// Control flow: region signatures of cond, while and scan.
#include "JaxcDialect.h"

using namespace mlir;
using namespace mlir::jaxc;

LogicalResult CondOp::verifyRegions() {
  auto index = llvm::cast<RankedTensorType>(getIndex().getType());
  size_t branches = getBranches().size();
  if (branches == 0)
    return emitOpError() << "needs at least one branch";
  if (index.getElementType().isInteger(1) && branches != 2)
    return emitOpError() << "with an i1 predicate needs exactly 2 branches (false, true), got "
                         << branches;
  SmallVector<Type> operandTypes(getBranchOperands().getTypes());
  SmallVector<Type> resultTypes(getResultTypes());
  for (auto [i, region] : llvm::enumerate(getBranches()))
    if (failed(verifyRegionSignature(*this, region, "branch #" + std::to_string(i),
                                     operandTypes, resultTypes)))
      return failure();
  return success();
}

LogicalResult WhileOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
    WhileOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult WhileOp::verifyRegions() {
  SmallVector<Type> carried(getInit().getTypes());
  auto pred = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(verifyRegionSignature(*this, getCond(), "cond", carried, {pred})))
    return failure();
  return verifyRegionSignature(*this, getBody(), "body", carried, carried);
}

LogicalResult ScanOp::verifyRegions() {
  int64_t length = getLength();
  if (length < 0)
    return emitOpError() << "length " << length << " must be >= 0";
  SmallVector<Type> argTypes(getInit().getTypes());
  for (auto [i, x] : llvm::enumerate(getXs())) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError() << "xs #" << i << " of type " << type
                           << " must have a leading dimension of size length = " << length;
    argTypes.push_back(RankedTensorType::get(type.getShape().drop_front(), type.getElementType()));
  }
  size_t numCarry = getInit().size();
  if (getNumResults() < numCarry)
    return emitOpError() << "has " << getNumResults() << " results but " << numCarry
                         << " carried values; results are the carry followed by the ys";
  SmallVector<Type> yieldTypes;
  for (auto [i, result] : llvm::enumerate(getResults())) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    if (i < numCarry) {
      if (type != getInit()[i].getType())
        return emitOpError() << "result #" << i << " of type " << type
                             << " must have the type of init #" << i << " "
                             << getInit()[i].getType();
      yieldTypes.push_back(type);
      continue;
    }
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError() << "stacked result #" << i << " of type " << type
                           << " must have a leading dimension of size length = " << length;
    yieldTypes.push_back(RankedTensorType::get(type.getShape().drop_front(), type.getElementType()));
  }
  return verifyRegionSignature(*this, getBody(), "body", argTypes, yieldTypes);
}
