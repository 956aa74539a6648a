// Dialect registration, constant materialization, shared helpers and the C
// entry point the Python package calls through ctypes.
#include "JaxcDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir-c/IR.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::jaxc;

#include "JaxcDialect.cpp.inc"
#include "JaxcEnums.cpp.inc"

void JaxcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "JaxcOps.cpp.inc"
      >();
}

Operation *JaxcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = llvm::dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

ParseResult mlir::jaxc::parseSameType(OpAsmParser &parser, Type &first,
                                      Type &second) {
  if (parser.parseType(first))
    return failure();
  second = first;
  return success();
}

void mlir::jaxc::printSameType(OpAsmPrinter &printer, Operation *, Type first,
                               Type second) {
  printer << first;
}

InFlightDiagnostic mlir::jaxc::emitOpErrorAt(std::optional<Location> loc,
                                             StringRef opName) {
  // inferReturnTypes may run without a location: then report nothing.
  if (!loc)
    return InFlightDiagnostic();
  return mlir::emitError(*loc) << "'" << opName << "' op ";
}

RankedTensorType mlir::jaxc::getStaticTensor(std::optional<Location> loc,
                                             StringRef opName, Value value,
                                             StringRef what) {
  auto type = llvm::dyn_cast_or_null<RankedTensorType>(value ? value.getType() : Type());
  if (type && type.hasStaticShape())
    return type;
  if (loc)
    emitOpErrorAt(loc, opName) << what << " must be a statically shaped tensor, got "
                               << (value ? value.getType() : Type());
  return nullptr;
}

LogicalResult mlir::jaxc::checkDimensions(std::optional<Location> loc,
                                          StringRef opName, ArrayRef<int64_t> dims,
                                          int64_t rank, StringRef attrName,
                                          bool unique, StringRef rankOf) {
  llvm::SmallVector<bool> seen(rank, false);
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank) {
      if (loc)
        emitOpErrorAt(loc, opName) << attrName << "[" << i << "] = " << dim
                                   << " is out of range for rank " << rank
                                   << (rankOf.empty() ? "" : " of the ") << rankOf;
      return failure();
    }
    if (unique && seen[dim]) {
      if (loc)
        emitOpErrorAt(loc, opName) << attrName << " repeats dimension " << dim;
      return failure();
    }
    seen[dim] = true;
  }
  return success();
}

std::optional<int64_t> mlir::jaxc::elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    if (size < 0 || llvm::MulOverflow(count, size, count))
      return std::nullopt;
  return count;
}

RankedTensorType mlir::jaxc::cloneChecked(std::optional<Location> loc, StringRef opName,
                                          RankedTensorType like, ArrayRef<__int128> shape) {
  SmallVector<int64_t> sizes;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size < 0 || size > std::numeric_limits<int64_t>::max()) {
      emitOpErrorAt(loc, opName) << "result dimension " << d << " would have size "
                                 << (size < 0 ? "< 0" : "> INT64_MAX")
                                 << "; check the attributes against the operand " << like;
      return nullptr;
    }
    sizes.push_back(static_cast<int64_t>(size));
  }
  if (!elementCount(sizes)) {
    emitOpErrorAt(loc, opName) << "result would have more than INT64_MAX elements";
    return nullptr;
  }
  return like.clone(sizes);
}

LogicalResult mlir::jaxc::verifyRegionSignature(Operation *op, Region &region,
                                                StringRef what, TypeRange argTypes,
                                                TypeRange yieldTypes) {
  if (region.empty())
    return op->emitOpError() << what << " region must not be empty";
  Block &block = region.front();
  if (block.getArgumentTypes() != argTypes) {
    auto diag = op->emitOpError() << what << " region takes (";
    llvm::interleaveComma(block.getArgumentTypes(), diag);
    diag << ") but must take (";
    llvm::interleaveComma(argTypes, diag);
    return diag << ")";
  }
  auto yield = llvm::dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << what << " region must end in jaxc.yield";
  if (yield.getValues().getTypes() != yieldTypes) {
    auto diag = op->emitOpError() << what << " region yields (";
    llvm::interleaveComma(yield.getValues().getTypes(), diag);
    diag << ") but must yield (";
    llvm::interleaveComma(yieldTypes, diag);
    return diag << ")";
  }
  return success();
}

#define GET_OP_CLASSES
#include "JaxcOps.cpp.inc"

//===----------------------------------------------------------------------===//
// C entry point
//===----------------------------------------------------------------------===//

/// Registers and loads the jaxc dialect into a context created by the Python
/// bindings (pointer from `ctx._CAPIPtr`).
extern "C" __attribute__((visibility("default"))) void
jaxcRegisterDialect(MlirContext context) {
  MLIRContext *ctx = unwrap(context);
  DialectRegistry registry;
  registry.insert<JaxcDialect>();
  ctx->appendDialectRegistry(registry);
  ctx->getOrLoadDialect<JaxcDialect>();
}
