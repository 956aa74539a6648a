// The jaxc dialect: C++ declarations generated from ODS plus shared helpers.
#ifndef JAXC_DIALECT_H
#define JAXC_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "JaxcDialect.h.inc"
#include "JaxcEnums.h.inc"

#define GET_OP_CLASSES
#include "JaxcOps.h.inc"

namespace mlir::jaxc {

/// Custom directive `custom<SameType>(type($a), type($b))`: one type printed,
/// parsed once and assigned to both operands.
ParseResult parseSameType(OpAsmParser &parser, Type &first, Type &second);
void printSameType(OpAsmPrinter &printer, Operation *op, Type first, Type second);

/// Emits "'<opName>' op <message>" at `loc` (when given) and returns failure:
/// the inferReturnTypes counterpart of Operation::emitOpError.
InFlightDiagnostic emitOpErrorAt(std::optional<Location> loc, StringRef opName);

/// The static ranked tensor type of `value`, or null (with an error naming
/// `what`) when the value is not one.
RankedTensorType getStaticTensor(std::optional<Location> loc, StringRef opName,
                                 Value value, StringRef what);

/// Checks that every entry of `dims` is a valid dimension of a rank-`rank`
/// tensor and (when `unique`) appears once. `attrName` names the attribute.
LogicalResult checkDimensions(std::optional<Location> loc, StringRef opName,
                              ArrayRef<int64_t> dims, int64_t rank,
                              StringRef attrName, bool unique = true,
                              StringRef rankOf = "");

/// `like` with the given shape, after checking that every size is in
/// [0, INT64_MAX] and that the element count fits in int64; null (with an
/// error) otherwise. Sizes computed in __int128 arrive here unclamped.
RankedTensorType cloneChecked(std::optional<Location> loc, StringRef opName,
                              RankedTensorType like, ArrayRef<__int128> shape);

/// The number of elements of `shape`, or nothing when it overflows int64.
std::optional<int64_t> elementCount(ArrayRef<int64_t> shape);

/// Verifies that `region` has one block whose arguments have `argTypes` and
/// whose jaxc.yield returns `yieldTypes`; `what` names the region.
LogicalResult verifyRegionSignature(Operation *op, Region &region, StringRef what,
                                    TypeRange argTypes, TypeRange yieldTypes);

/// Largest constant (in elements) that folders will compute.
constexpr int64_t kMaxFoldElements = 1024;

} // namespace mlir::jaxc

#endif // JAXC_DIALECT_H
