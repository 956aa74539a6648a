// Randomness, collectives and transformation requests.
#include "JaxcDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::jaxc;

//===----------------------------------------------------------------------===//
// threefry2x32, random_bits
//===----------------------------------------------------------------------===//

LogicalResult Threefry2x32Op::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    Threefry2x32Op::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  if (operands.size() != 4) {
    emitOpErrorAt(loc, name) << "expects 4 operands (key0, key1, x0, x1)";
    return failure();
  }
  RankedTensorType key = getStaticTensor(loc, name, operands[0], "operand 'key0'");
  RankedTensorType x = getStaticTensor(loc, name, operands[2], "operand 'x0'");
  if (!key || !x)
    return failure();
  if (operands[1].getType() != key || operands[3].getType() != x) {
    emitOpErrorAt(loc, name) << "key1 must have the type of key0 (" << key
                             << ") and x1 the type of x0 (" << x << ")";
    return failure();
  }
  if (key.getRank() != 0 && key.getShape() != x.getShape()) {
    emitOpErrorAt(loc, name) << "keys " << key << " must be 0-d or have the shape of x0 " << x;
    return failure();
  }
  inferred.append({x, x});
  return success();
}

LogicalResult RandomBitsOp::verify() {
  auto key = llvm::cast<RankedTensorType>(getKey().getType());
  if (key.getShape() != ArrayRef<int64_t>{2})
    return emitOpError() << "key must be a raw threefry key tensor<2xui32>, got " << key;
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Collectives name at least one mapped axis.
template <typename CollectiveOp>
static LogicalResult verifyAxes(CollectiveOp op) {
  if (op.getAxes().empty())
    return op.emitOpError() << "needs at least one axis name in 'axes'";
  return success();
}
LogicalResult PsumOp::verify() { return verifyAxes(*this); }
LogicalResult PmaxOp::verify() { return verifyAxes(*this); }
LogicalResult PminOp::verify() { return verifyAxes(*this); }
LogicalResult PmeanOp::verify() { return verifyAxes(*this); }
LogicalResult PvaryOp::verify() { return verifyAxes(*this); }

/// all_gather and all_to_all name at least one non-empty axis.
static LogicalResult checkAxes(std::optional<Location> loc, StringRef name, ArrayAttr axes) {
  if (!axes || axes.empty()) {
    emitOpErrorAt(loc, name) << "needs at least one axis name in 'axes'";
    return failure();
  }
  return success();
}

LogicalResult AxisIndexOp::verify() {
  if (getAxisName().empty())
    return emitOpError() << "axis_name must not be empty";
  return success();
}

/// A callback's vmapped dims lead every operand and result, with one size.
LogicalResult CallbackOp::verify() {
  int64_t rank = getBatchRank();
  if (rank < 0)
    return emitOpError() << "batch_rank must be at least 0, got " << rank;
  if (rank == 0)
    return success();
  std::optional<SmallVector<int64_t>> batch;
  SmallVector<Type> types(getOperandTypes());
  types.append(getResultTypes().begin(), getResultTypes().end());
  for (Type type : types) {
    auto tensor = llvm::cast<RankedTensorType>(type);
    if (tensor.getRank() < rank)
      return emitOpError() << "batch_rank " << rank << " exceeds the rank of " << tensor;
    SmallVector<int64_t> dims(tensor.getShape().take_front(rank));
    if (batch && *batch != dims)
      return emitOpError() << "the leading " << rank
                           << " (vmapped) dims differ between operands and results";
    batch = dims;
  }
  return success();
}

LogicalResult AllGatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    AllGatherOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getDimensionAttr() || !adaptor.getAxisSizeAttr() ||
      failed(checkAxes(loc, name, adaptor.getAxesAttr())))
    return failure();
  int64_t dim = adaptor.getDimension(), size = adaptor.getAxisSize();
  bool tiled = adaptor.getTiled();
  int64_t limit = tiled ? in.getRank() : in.getRank() + 1;
  if (dim < 0 || dim >= limit || size < 1) {
    emitOpErrorAt(loc, name) << "dimension " << dim << " must be in [0, " << limit
                             << ") and axis_size " << size << " >= 1 for operand " << in;
    return failure();
  }
  SmallVector<__int128> shape(in.getShape().begin(), in.getShape().end());
  if (tiled)
    shape[dim] *= size;
  else
    shape.insert(shape.begin() + dim, size);
  RankedTensorType result = cloneChecked(loc, name, in, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

LogicalResult AllToAllOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
    AllToAllOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange operands = adaptor.getOperands();
  StringRef name = getOperationName();
  RankedTensorType in = getStaticTensor(loc, name, operands[0], "operand");
  if (!in || !adaptor.getSplitAxisAttr() || !adaptor.getConcatAxisAttr() ||
      !adaptor.getAxisSizeAttr() || failed(checkAxes(loc, name, adaptor.getAxesAttr())))
    return failure();
  int64_t split = adaptor.getSplitAxis(), concat = adaptor.getConcatAxis(),
          size = adaptor.getAxisSize();
  if (split < 0 || split >= in.getRank() || concat < 0 || concat >= in.getRank() || size < 1) {
    emitOpErrorAt(loc, name) << "split_axis " << split << " and concat_axis " << concat
                             << " must be dimensions of " << in << " and axis_size " << size
                             << " >= 1";
    return failure();
  }
  if (in.getDimSize(split) % size != 0) {
    emitOpErrorAt(loc, name) << "split dimension " << split << " of size " << in.getDimSize(split)
                             << " does not divide by axis_size " << size;
    return failure();
  }
  SmallVector<__int128> shape(in.getShape().begin(), in.getShape().end());
  shape[split] /= size;
  shape[concat] *= size;
  RankedTensorType result = cloneChecked(loc, name, in, shape);
  if (!result)
    return failure();
  inferred.push_back(result);
  return success();
}

LogicalResult PpermuteOp::verify() {
  if (failed(verifyAxes(*this)))
    return failure();
  ArrayRef<int64_t> perm = getPerm();
  if (perm.size() % 2 != 0)
    return emitOpError() << "perm must list (source, destination) pairs, got " << perm.size()
                         << " entries";
  llvm::SmallDenseSet<int64_t> sources, destinations;
  for (size_t i = 0; i < perm.size(); i += 2) {
    if (perm[i] < 0 || perm[i + 1] < 0)
      return emitOpError() << "perm pair (" << perm[i] << ", " << perm[i + 1]
                           << ") has a negative device index";
    if (!sources.insert(perm[i]).second)
      return emitOpError() << "perm sends from device " << perm[i] << " twice";
    if (!destinations.insert(perm[i + 1]).second)
      return emitOpError() << "perm sends to device " << perm[i + 1] << " twice";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Transformation requests: the named functions must exist with matching types
//===----------------------------------------------------------------------===//

/// The type of the function `symbol` names, or failure with an error naming
/// its role ("callee", "jvp", ...).
static FailureOr<FunctionType> lookupFunctionType(Operation *op,
                                                  SymbolTableCollection &symbols,
                                                  FlatSymbolRefAttr symbol, StringRef role) {
  auto fn = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(op, symbol);
  if (!fn)
    return op->emitOpError() << role << " " << symbol << " does not name a function";
  auto type = llvm::dyn_cast<FunctionType>(fn.getFunctionType());
  if (!type)
    return op->emitOpError() << role << " " << symbol << " has no function type";
  return type;
}

/// Checks `actual` against `expected`, naming the list and the symbol.
static LogicalResult expectTypes(Operation *op, StringRef what, TypeRange actual,
                                 TypeRange expected, FlatSymbolRefAttr symbol) {
  if (actual == expected)
    return success();
  auto diag = op->emitOpError() << what << " (";
  llvm::interleaveComma(actual, diag);
  diag << ") do not match " << symbol << ": expected (";
  llvm::interleaveComma(expected, diag);
  return diag << ")";
}

static SmallVector<Type> concatTypes(TypeRange a, TypeRange b) {
  SmallVector<Type> all(a);
  all.append(b.begin(), b.end());
  return all;
}

LogicalResult JvpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  TypeRange ins = fn->getInputs(), outs = fn->getResults();
  if (failed(expectTypes(*this, "primal types", getPrimals().getTypes(), ins, getCalleeAttr())) ||
      failed(expectTypes(*this, "tangent types", getTangents().getTypes(), ins, getCalleeAttr())))
    return failure();
  return expectTypes(*this, "result types (outputs, then tangents)", getResultTypes(),
                     concatTypes(outs, outs), getCalleeAttr());
}

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  TypeRange ins = fn->getInputs(), outs = fn->getResults();
  if (failed(expectTypes(*this, "primal types", getPrimals().getTypes(), ins, getCalleeAttr())) ||
      failed(expectTypes(*this, "cotangent types", getCotangents().getTypes(), outs,
                         getCalleeAttr())))
    return failure();
  return expectTypes(*this, "result types (outputs, then input cotangents)", getResultTypes(),
                     concatTypes(outs, ins), getCalleeAttr());
}

/// `type` with a batch dimension of size `size` inserted at `axis` (-1: none).
static FailureOr<Type> batchedType(Type type, int64_t axis, int64_t size) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (axis == -1)
    return type;
  if (!tensor || axis < 0 || axis > tensor.getRank())
    return failure();
  SmallVector<int64_t> shape(tensor.getShape());
  shape.insert(shape.begin() + axis, size);
  return Type(tensor.clone(shape));
}

LogicalResult VmapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  ArrayRef<int64_t> inAxes = getInAxes(), outAxes = getOutAxes();
  int64_t size = getAxisSize();
  if (size < 0)
    return emitOpError() << "axis_size " << size << " must be >= 0";
  if (inAxes.size() != fn->getNumInputs() || getInputs().size() != fn->getNumInputs())
    return emitOpError() << "in_axes has " << inAxes.size() << " entries and there are "
                         << getInputs().size() << " inputs, but " << getCalleeAttr()
                         << " takes " << fn->getNumInputs();
  if (outAxes.size() != fn->getNumResults())
    return emitOpError() << "out_axes has " << outAxes.size() << " entries but "
                         << getCalleeAttr() << " returns " << fn->getNumResults();
  for (auto [i, axis] : llvm::enumerate(inAxes)) {
    FailureOr<Type> expected = batchedType(fn->getInput(i), axis, size);
    if (failed(expected))
      return emitOpError() << "in_axes[" << i << "] = " << axis << " is not a valid batch "
                           << "dimension for " << fn->getInput(i) << " (use -1 for unbatched)";
    if (getInputs()[i].getType() != *expected)
      return emitOpError() << "input #" << i << " has type " << getInputs()[i].getType()
                           << " but in_axes[" << i << "] = " << axis << " and axis_size "
                           << size << " need " << *expected;
  }
  if (getNumResults() != fn->getNumResults())
    return emitOpError() << "has " << getNumResults() << " results but " << getCalleeAttr()
                         << " returns " << fn->getNumResults();
  for (auto [j, axis] : llvm::enumerate(outAxes)) {
    FailureOr<Type> expected = batchedType(fn->getResult(j), axis, size);
    if (failed(expected))
      return emitOpError() << "out_axes[" << j << "] = " << axis << " is not a valid batch "
                           << "dimension for " << fn->getResult(j);
    if (getResult(j).getType() != *expected)
      return emitOpError() << "result #" << j << " has type " << getResult(j).getType()
                           << " but out_axes[" << j << "] = " << axis << " and axis_size "
                           << size << " give " << *expected;
  }
  return success();
}

LogicalResult CustomJvpCallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  FailureOr<FunctionType> rule = lookupFunctionType(*this, symbols, getJvpAttr(), "jvp rule");
  if (failed(rule))
    return failure();
  TypeRange args = getArgs().getTypes(), results = getResultTypes();
  if (failed(expectTypes(*this, "argument types", args, fn->getInputs(), getCalleeAttr())) ||
      failed(expectTypes(*this, "result types", results, fn->getResults(), getCalleeAttr())) ||
      failed(expectTypes(*this, "jvp rule inputs (primals, tangents)", rule->getInputs(),
                         concatTypes(args, args), getJvpAttr())))
    return failure();
  return expectTypes(*this, "jvp rule results (outputs, tangents)", rule->getResults(),
                     concatTypes(results, results), getJvpAttr());
}

LogicalResult CustomVjpCallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  FailureOr<FunctionType> fwd = lookupFunctionType(*this, symbols, getFwdAttr(), "fwd");
  if (failed(fwd))
    return failure();
  FailureOr<FunctionType> bwd = lookupFunctionType(*this, symbols, getBwdAttr(), "bwd");
  if (failed(bwd))
    return failure();
  TypeRange args = getArgs().getTypes(), results = getResultTypes();
  if (failed(expectTypes(*this, "argument types", args, fn->getInputs(), getCalleeAttr())) ||
      failed(expectTypes(*this, "result types", results, fn->getResults(), getCalleeAttr())) ||
      failed(expectTypes(*this, "fwd inputs", fwd->getInputs(), args, getFwdAttr())))
    return failure();
  if (fwd->getNumResults() < results.size())
    return emitOpError() << "fwd " << getFwdAttr() << " must return the outputs followed by "
                         << "residuals, but returns only " << fwd->getNumResults() << " values";
  if (failed(expectTypes(*this, "fwd leading results", fwd->getResults().take_front(results.size()),
                         results, getFwdAttr())))
    return failure();
  TypeRange residuals = fwd->getResults().drop_front(results.size());
  if (failed(expectTypes(*this, "bwd inputs (residuals, output cotangents)", bwd->getInputs(),
                         concatTypes(residuals, results), getBwdAttr())))
    return failure();
  return expectTypes(*this, "bwd results (input cotangents)", bwd->getResults(), args,
                     getBwdAttr());
}

//===----------------------------------------------------------------------===//
// remat, optimization_barrier
//===----------------------------------------------------------------------===//

/// Remat policies that read `names`, then the ones that do not.
static constexpr llvm::StringLiteral kNamedPolicies[] = {
    "save_only_these_names", "save_any_names_but_these", "save_anything_except_these_names"};
static constexpr llvm::StringLiteral kPlainPolicies[] = {
    "nothing_saveable", "everything_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable"};

LogicalResult RematOp::verify() {
  StringRef policy = getPolicy();
  bool named = llvm::is_contained(kNamedPolicies, policy);
  if (!named && !llvm::is_contained(kPlainPolicies, policy)) {
    auto diag = emitOpError() << "unknown policy \"" << policy << "\"; the policies are: ";
    llvm::interleaveComma(kPlainPolicies, diag);
    diag << ", ";
    llvm::interleaveComma(kNamedPolicies, diag);
    return diag;
  }
  if (named && !getNames())
    return emitOpError() << "policy \"" << policy << "\" needs `names`";
  if (!named && getNames())
    return emitOpError() << "policy \"" << policy << "\" takes no `names`";
  return success();
}

LogicalResult RematOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionType> fn = lookupFunctionType(*this, symbols, getCalleeAttr(), "callee");
  if (failed(fn))
    return failure();
  if (failed(expectTypes(*this, "argument types", getArgs().getTypes(), fn->getInputs(),
                         getCalleeAttr())))
    return failure();
  return expectTypes(*this, "result types", getResultTypes(), fn->getResults(), getCalleeAttr());
}

LogicalResult OptimizationBarrierOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
    OptimizationBarrierOp::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  for (Value operand : adaptor.getOperands())
    inferred.push_back(operand.getType());
  return success();
}
