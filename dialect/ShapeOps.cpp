// Shape ops: type inference, verifiers, folders and canonicalizations.
#include "JaxcDialect.h"

using namespace mlir;
using namespace mlir::jaxc;

namespace {

/// Prints `[a, b, c]` into a diagnostic.
template <typename Diag>
Diag &printList(Diag &diag, ArrayRef<int64_t> values) {
  diag << "[";
  llvm::interleaveComma(values, diag);
  return diag << "]";
}

bool isSortedUnique(ArrayRef<int64_t> values) {
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i] <= values[i - 1])
      return false;
  return true;
}

/// Checks that `attrName` has one entry per dimension of a rank-`rank` operand.
LogicalResult checkPerDimension(std::optional<Location> loc, StringRef opName,
                                StringRef attrName, size_t size, int64_t rank) {
  if (static_cast<int64_t>(size) == rank)
    return success();
  emitOpErrorAt(loc, opName) << attrName << " has " << size
                             << " entries but the operand has rank " << rank;
  return failure();
}

} // namespace

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getType());
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "operand " << in << " and result " << out
                         << " must have the same element type";
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError() << "broadcast_dimensions has " << dims.size()
                         << " entries but the operand " << in << " has rank " << in.getRank();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= out.getRank())
      return emitOpError() << "broadcast_dimensions[" << i << "] = " << dim
                           << " is out of range for the result " << out << " of rank "
                           << out.getRank();
    if (i > 0 && dim <= dims[i - 1])
      return emitOpError() << "broadcast_dimensions must be strictly increasing, got "
                           << getBroadcastDimensionsAttr();
    int64_t inSize = in.getDimSize(i), outSize = out.getDimSize(dim);
    if (inSize != 1 && inSize != outSize)
      return emitOpError() << "operand dimension " << i << " of size " << inSize
                           << " cannot broadcast to result dimension " << dim << " of size "
                           << outSize << " (operand " << in << ", result " << out << ")";
  }
  return success();
}

// broadcast_in_dim(x : T -> T, dims = [0, 1, ...]) -> x; splat constants broadcast.
OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto splat = llvm::dyn_cast_or_null<SplatElementsAttr>(adaptor.getOperand());
  if (splat)
    return SplatElementsAttr::get(llvm::cast<ShapedType>(getType()),
                                  splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto out = llvm::cast<RankedTensorType>(getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "operand " << in << " and result " << out
                         << " must have the same element type";
  std::optional<int64_t> inCount = elementCount(in.getShape());
  std::optional<int64_t> outCount = elementCount(out.getShape());
  if (!inCount || !outCount)
    return emitOpError() << "cannot reshape " << in << " into " << out
                         << ": more than INT64_MAX elements";
  if (*inCount != *outCount)
    return emitOpError() << "cannot reshape " << in << " (" << *inCount
                         << " elements) into " << out << " (" << *outCount << " elements)";
  return success();
}

// reshape(x : T -> T) -> x; constants are reshaped.
OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return dense.reshape(llvm::cast<ShapedType>(getType()));
  return {};
}

// reshape(reshape(x)) -> reshape(x)
LogicalResult ReshapeOp::canonicalize(ReshapeOp op, PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<ReshapeOp>();
  if (!inner)
    return failure();
  rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getOperand());
  return success();
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    TransposeOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getPermutationAttr())
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (failed(checkPerDimension(loc, name, "permutation", perm.size(), in.getRank())) ||
      failed(checkDimensions(loc, name, perm, in.getRank(), "permutation")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(in.getDimSize(dim));
  inferred.push_back(in.clone(shape));
  return success();
}

// transpose(x, [0, 1, ..., n-1]) -> x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, dim] : llvm::enumerate(getPermutation()))
    if (static_cast<int64_t>(i) != dim)
      return {};
  return getOperand();
}

// transpose(dot_general(a, b), [batch, b's free dims, a's free dims])
//   -> dot_general(b, a): the product written in the transposed layout
// directly (a vjp's weight gradient ends in such a transpose), when the
// product has no other use.
static LogicalResult swapDotGeneralOperands(TransposeOp op, PatternRewriter &rewriter) {
  auto dot = op.getOperand().getDefiningOp<DotGeneralOp>();
  if (!dot || !dot->hasOneUse())
    return failure();
  int64_t batch = dot.getLhsBatchingDimensions().size();
  int64_t lhsFree = cast<RankedTensorType>(dot.getLhs().getType()).getRank() - batch -
                    static_cast<int64_t>(dot.getLhsContractingDimensions().size());
  int64_t rank = cast<RankedTensorType>(dot.getType()).getRank();
  int64_t rhsFree = rank - batch - lhsFree;
  SmallVector<int64_t> swapped;
  for (int64_t i = 0; i < batch; ++i)
    swapped.push_back(i);
  for (int64_t i = 0; i < rhsFree; ++i)
    swapped.push_back(batch + lhsFree + i);
  for (int64_t i = 0; i < lhsFree; ++i)
    swapped.push_back(batch + i);
  if (lhsFree == 0 || rhsFree == 0 || ArrayRef<int64_t>(swapped) != op.getPermutation())
    return failure();
  rewriter.replaceOpWithNewOp<DotGeneralOp>(
      op, op.getType(), dot.getRhs(), dot.getLhs(), dot.getRhsBatchingDimensionsAttr(),
      dot.getLhsBatchingDimensionsAttr(), dot.getRhsContractingDimensionsAttr(),
      dot.getLhsContractingDimensionsAttr());
  return success();
}

// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]), and
// swapDotGeneralOperands above.
LogicalResult TransposeOp::canonicalize(TransposeOp op, PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<TransposeOp>();
  if (!inner)
    return swapDotGeneralOperands(op, rewriter);
  ArrayRef<int64_t> p1 = inner.getPermutation(), p2 = op.getPermutation();
  SmallVector<int64_t> composed;
  for (int64_t dim : p2)
    composed.push_back(p1[dim]);
  rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getOperand(),
                                           rewriter.getDenseI64ArrayAttr(composed));
  return success();
}

//===----------------------------------------------------------------------===//
// reverse, slice, dynamic_slice, dynamic_update_slice
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ReverseOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  RankedTensorType in = getStaticTensor(loc, getOperationName(), operands[0], "operand");
  if (!in || !adaptor.getDimensionsAttr() ||
      failed(checkDimensions(loc, getOperationName(), adaptor.getDimensions(), in.getRank(),
                             "dimensions")))
    return failure();
  inferred.push_back(in);
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    SliceOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getStartIndicesAttr() || !adaptor.getLimitIndicesAttr() ||
      !adaptor.getStridesAttr())
    return failure();
  ArrayRef<int64_t> start = adaptor.getStartIndices(), limit = adaptor.getLimitIndices(),
                    strides = adaptor.getStrides();
  if (failed(checkPerDimension(loc, name, "start_indices", start.size(), in.getRank())) ||
      failed(checkPerDimension(loc, name, "limit_indices", limit.size(), in.getRank())) ||
      failed(checkPerDimension(loc, name, "strides", strides.size(), in.getRank())))
    return failure();
  SmallVector<__int128> shape;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > in.getDimSize(d) || strides[d] < 1) {
      emitOpErrorAt(loc, name) << "dimension " << d << ": need 0 <= start (" << start[d]
                               << ") <= limit (" << limit[d] << ") <= size ("
                               << in.getDimSize(d) << ") and stride (" << strides[d]
                               << ") >= 1 for operand " << in;
      return failure();
    }
    int64_t extent = limit[d] - start[d];
    shape.push_back(extent / strides[d] + (extent % strides[d] != 0));
  }
  RankedTensorType result = cloneChecked(loc, name, in, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

/// Dynamic slices need one 0-d integer start index per operand dimension.
static LogicalResult checkStartIndices(std::optional<Location> loc, StringRef name,
                                       ValueRange indices, int64_t rank) {
  if (static_cast<int64_t>(indices.size()) == rank)
    return success();
  emitOpErrorAt(loc, name) << "has " << indices.size()
                           << " start indices but the operand has rank " << rank;
  return failure();
}

LogicalResult DynamicSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    DynamicSliceOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, adaptor.getOperand(), "operand");
  if (!in || !adaptor.getSliceSizesAttr())
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSliceSizes();
  if (failed(checkStartIndices(loc, name, adaptor.getStartIndices(), in.getRank())) ||
      failed(checkPerDimension(loc, name, "slice_sizes", sizes.size(), in.getRank())))
    return failure();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (sizes[d] < 0 || sizes[d] > in.getDimSize(d)) {
      emitOpErrorAt(loc, name) << "slice_sizes[" << d << "] = " << sizes[d]
                               << " must be in [0, " << in.getDimSize(d) << "] for operand " << in;
      return failure();
    }
  }
  inferred.push_back(in.clone(sizes));
  return success();
}

LogicalResult DynamicUpdateSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    DynamicUpdateSliceOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, adaptor.getOperand(), "operand");
  RankedTensorType update = getStaticTensor(loc, name, adaptor.getUpdate(), "update");
  if (!in || !update ||
      failed(checkStartIndices(loc, name, adaptor.getStartIndices(), in.getRank())))
    return failure();
  if (update.getElementType() != in.getElementType() || update.getRank() != in.getRank()) {
    emitOpErrorAt(loc, name) << "update " << update
                             << " must have the rank and element type of the operand " << in;
    return failure();
  }
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (update.getDimSize(d) > in.getDimSize(d)) {
      emitOpErrorAt(loc, name) << "update " << update << " is larger than the operand "
                               << in << " in dimension " << d;
      return failure();
    }
  }
  inferred.push_back(in);
  return success();
}

//===----------------------------------------------------------------------===//
// concatenate, pad, squeeze, expand_dims
//===----------------------------------------------------------------------===//

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ConcatenateOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  if (operands.empty()) {
    emitOpErrorAt(loc, name) << "needs at least one input";
    return failure();
  }
  if (!adaptor.getDimensionAttr())
    return failure();
  RankedTensorType first = getStaticTensor(loc, name, operands[0], "input #0");
  if (!first)
    return failure();
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= first.getRank()) {
    emitOpErrorAt(loc, name) << "concatenate dimension " << dim
                             << " is out of range for inputs of rank " << first.getRank();
    return failure();
  }
  SmallVector<__int128> shape(first.getShape().begin(), first.getShape().end());
  for (auto [i, value] : llvm::enumerate(operands.drop_front())) {
    RankedTensorType type = getStaticTensor(loc, name, value, "input");
    if (!type)
      return failure();
    bool sameOtherDims = type.getRank() == first.getRank();
    for (int64_t d = 0; sameOtherDims && d < first.getRank(); ++d)
      sameOtherDims = d == dim || type.getDimSize(d) == first.getDimSize(d);
    if (type.getElementType() != first.getElementType() || !sameOtherDims) {
      emitOpErrorAt(loc, name) << "input #" << i + 1 << " of type " << type
                               << " must match input #0 " << first
                               << " in element type and in every dimension but " << dim;
      return failure();
    }
    shape[dim] += type.getDimSize(dim);
  }
  RankedTensorType result = cloneChecked(loc, name, first, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

// concatenate(x) -> x
OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    PadOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, adaptor.getOperand(), "operand");
  RankedTensorType value = getStaticTensor(loc, name, adaptor.getPaddingValue(), "padding_value");
  if (!in || !value || !adaptor.getEdgePaddingLowAttr() || !adaptor.getEdgePaddingHighAttr() ||
      !adaptor.getInteriorPaddingAttr())
    return failure();
  if (value.getElementType() != in.getElementType()) {
    emitOpErrorAt(loc, name) << "padding_value " << value
                             << " must have the element type of the operand " << in;
    return failure();
  }
  ArrayRef<int64_t> low = adaptor.getEdgePaddingLow(), high = adaptor.getEdgePaddingHigh(),
                    interior = adaptor.getInteriorPadding();
  if (failed(checkPerDimension(loc, name, "edge_padding_low", low.size(), in.getRank())) ||
      failed(checkPerDimension(loc, name, "edge_padding_high", high.size(), in.getRank())) ||
      failed(checkPerDimension(loc, name, "interior_padding", interior.size(), in.getRank())))
    return failure();
  SmallVector<__int128> shape;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    __int128 size = in.getDimSize(d);
    if (interior[d] < 0) {
      emitOpErrorAt(loc, name) << "interior_padding[" << d << "] = " << interior[d]
                               << " must be >= 0";
      return failure();
    }
    __int128 padded = __int128(low[d]) + high[d] + size +
                      (size > 0 ? size - 1 : 0) * __int128(interior[d]);
    if (padded < 0) {
      emitOpErrorAt(loc, name) << "padding dimension " << d << " of " << in
                               << " gives a negative size";
      return failure();
    }
    shape.push_back(padded);
  }
  RankedTensorType result = cloneChecked(loc, name, in, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    SqueezeOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getDimensionsAttr() ||
      failed(checkDimensions(loc, name, adaptor.getDimensions(), in.getRank(), "dimensions")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    bool squeezed = llvm::is_contained(adaptor.getDimensions(), d);
    if (squeezed && in.getDimSize(d) != 1) {
      emitOpErrorAt(loc, name) << "cannot squeeze dimension " << d << " of size "
                               << in.getDimSize(d) << " in " << in;
      return failure();
    }
    if (!squeezed)
      shape.push_back(in.getDimSize(d));
  }
  inferred.push_back(in.clone(shape));
  return success();
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ExpandDimsOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getDimensionsAttr())
    return failure();
  ArrayRef<int64_t> dims = adaptor.getDimensions();
  int64_t rank = in.getRank() + static_cast<int64_t>(dims.size());
  if (failed(checkDimensions(loc, name, dims, rank, "dimensions")))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> rest = in.getShape();
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(dims, d)) {
      shape.push_back(1);
    } else {
      shape.push_back(rest.front());
      rest = rest.drop_front();
    }
  }
  inferred.push_back(in.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// gather, scatter (XLA dimension numbers)
//===----------------------------------------------------------------------===//

/// The batch shape of `indices`: every dimension but `indexVectorDim`, and
/// the length of the index vector (1 when index_vector_dim == rank).
static LogicalResult splitIndices(std::optional<Location> loc, StringRef name,
                                  RankedTensorType indices, int64_t indexVectorDim,
                                  SmallVectorImpl<int64_t> &batchShape,
                                  int64_t &indexVectorSize) {
  if (indexVectorDim < 0 || indexVectorDim > indices.getRank()) {
    emitOpErrorAt(loc, name) << "index_vector_dim " << indexVectorDim
                             << " must be in [0, " << indices.getRank() << "] for indices "
                             << indices;
    return failure();
  }
  indexVectorSize = indexVectorDim == indices.getRank() ? 1 : indices.getDimSize(indexVectorDim);
  for (int64_t d = 0; d < indices.getRank(); ++d)
    if (d != indexVectorDim)
      batchShape.push_back(indices.getDimSize(d));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    GatherOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, adaptor.getOperand(), "operand");
  RankedTensorType indices = getStaticTensor(loc, name, adaptor.getStartIndices(), "start_indices");
  if (!in || !indices || !adaptor.getOffsetDimsAttr() || !adaptor.getCollapsedSliceDimsAttr() ||
      !adaptor.getStartIndexMapAttr() || !adaptor.getIndexVectorDimAttr() ||
      !adaptor.getSliceSizesAttr())
    return failure();
  ArrayRef<int64_t> offsetDims = adaptor.getOffsetDims(),
                    collapsed = adaptor.getCollapsedSliceDims(),
                    startIndexMap = adaptor.getStartIndexMap(),
                    sliceSizes = adaptor.getSliceSizes();
  SmallVector<int64_t> batchShape;
  int64_t indexVectorSize;
  if (failed(splitIndices(loc, name, indices, adaptor.getIndexVectorDim(), batchShape,
                          indexVectorSize)) ||
      failed(checkPerDimension(loc, name, "slice_sizes", sliceSizes.size(), in.getRank())) ||
      failed(checkDimensions(loc, name, collapsed, in.getRank(), "collapsed_slice_dims")) ||
      failed(checkDimensions(loc, name, startIndexMap, in.getRank(), "start_index_map")))
    return failure();
  if (static_cast<int64_t>(startIndexMap.size()) != indexVectorSize) {
    emitOpErrorAt(loc, name) << "start_index_map has " << startIndexMap.size()
                             << " entries but the index vector of " << indices << " has "
                             << indexVectorSize;
    return failure();
  }
  for (auto [attrName, values] : {std::make_pair(StringRef("offset_dims"), offsetDims),
                                  {StringRef("collapsed_slice_dims"), collapsed}}) {
    if (!isSortedUnique(values)) {
      auto diag = emitOpErrorAt(loc, name) << attrName << " must be sorted and unique, got ";
      printList(diag, values);
      return failure();
    }
  }
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (sliceSizes[d] < 0 || sliceSizes[d] > in.getDimSize(d)) {
      emitOpErrorAt(loc, name) << "slice_sizes[" << d << "] = " << sliceSizes[d]
                               << " must be in [0, " << in.getDimSize(d) << "] for operand " << in;
      return failure();
    }
  }
  SmallVector<int64_t> offsetSizes;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!llvm::is_contained(collapsed, d)) {
      offsetSizes.push_back(sliceSizes[d]);
    } else if (sliceSizes[d] > 1) {
      emitOpErrorAt(loc, name) << "collapsed dimension " << d << " has slice size "
                               << sliceSizes[d] << "; collapsed slices must have size <= 1";
      return failure();
    }
  }
  if (offsetDims.size() != offsetSizes.size()) {
    emitOpErrorAt(loc, name) << "offset_dims has " << offsetDims.size()
                             << " entries but operand rank " << in.getRank() << " minus "
                             << collapsed.size() << " collapsed dimensions is "
                             << offsetSizes.size();
    return failure();
  }
  int64_t rank = static_cast<int64_t>(batchShape.size() + offsetSizes.size());
  if (failed(checkDimensions(loc, name, offsetDims, rank, "offset_dims")))
    return failure();
  SmallVector<int64_t> shape;
  size_t nextBatch = 0, nextOffset = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(llvm::is_contained(offsetDims, d) ? offsetSizes[nextOffset++]
                                                      : batchShape[nextBatch++]);
  inferred.push_back(in.clone(shape));
  return success();
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    ScatterOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  RankedTensorType in = getStaticTensor(loc, getOperationName(), operands[0], "operand");
  if (!in)
    return failure();
  inferred.push_back(in);
  return success();
}

LogicalResult ScatterOp::verify() {
  StringRef name = getOperationName();
  Location loc = getLoc();
  auto in = llvm::cast<RankedTensorType>(getOperand().getType());
  auto indices = llvm::cast<RankedTensorType>(getScatterIndices().getType());
  auto updates = llvm::cast<RankedTensorType>(getUpdates().getType());
  ArrayRef<int64_t> windowDims = getUpdateWindowDims(), inserted = getInsertedWindowDims(),
                    toOperand = getScatterDimsToOperandDims();
  if (updates.getElementType() != in.getElementType())
    return emitOpError() << "updates " << updates << " must have the element type of operand "
                         << in;
  SmallVector<int64_t> batchShape;
  int64_t indexVectorSize;
  if (failed(splitIndices(loc, name, indices, getIndexVectorDim(), batchShape, indexVectorSize)) ||
      failed(checkDimensions(loc, name, inserted, in.getRank(), "inserted_window_dims")) ||
      failed(checkDimensions(loc, name, toOperand, in.getRank(), "scatter_dims_to_operand_dims")) ||
      failed(checkDimensions(loc, name, windowDims, updates.getRank(), "update_window_dims",
                             /*unique=*/true, "updates")))
    return failure();
  if (static_cast<int64_t>(toOperand.size()) != indexVectorSize)
    return emitOpError() << "scatter_dims_to_operand_dims has " << toOperand.size()
                         << " entries but the index vector of " << indices << " has "
                         << indexVectorSize;
  for (auto [attrName, values] : {std::make_pair(StringRef("update_window_dims"), windowDims),
                                  {StringRef("inserted_window_dims"), inserted}}) {
    if (!isSortedUnique(values)) {
      auto diag = emitOpError() << attrName << " must be sorted and unique, got ";
      return printList(diag, values);
    }
  }
  if (static_cast<int64_t>(windowDims.size() + inserted.size()) != in.getRank())
    return emitOpError() << "update_window_dims (" << windowDims.size()
                         << ") plus inserted_window_dims (" << inserted.size()
                         << ") must equal the operand rank " << in.getRank();
  if (static_cast<int64_t>(batchShape.size() + windowDims.size()) != updates.getRank())
    return emitOpError() << "updates " << updates << " must have rank "
                         << batchShape.size() + windowDims.size()
                         << " (scatter batch dims plus update_window_dims)";
  size_t nextBatch = 0, nextWindow = 0;
  SmallVector<int64_t> windowOperandDims;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!llvm::is_contained(inserted, d))
      windowOperandDims.push_back(d);
  for (int64_t d = 0; d < updates.getRank(); ++d) {
    int64_t size = updates.getDimSize(d);
    if (llvm::is_contained(windowDims, d)) {
      int64_t operandDim = windowOperandDims[nextWindow++];
      if (size > in.getDimSize(operandDim))
        return emitOpError() << "update window dimension " << d << " of size " << size
                             << " exceeds operand dimension " << operandDim << " of " << in;
    } else if (size != batchShape[nextBatch++]) {
      return emitOpError() << "updates " << updates << " dimension " << d
                           << " must match the scatter batch size " << batchShape[nextBatch - 1]
                           << " of indices " << indices;
    }
  }
  auto scalar = RankedTensorType::get({}, in.getElementType());
  return verifyRegionSignature(*this, getUpdateComputation(), "update_computation",
                               {scalar, scalar}, {scalar});
}
