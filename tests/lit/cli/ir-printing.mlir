// IR dumps go to stderr with mlir-opt's headers; project passes appear in
// them like upstream ones.
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(func.func(canonicalize),jaxc-cleanup)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: jaxc-opt %s --cse --jaxc-cleanup --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: jaxc-opt %s --jaxc-cleanup --jaxc-cleanup --cse --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: not jaxc-opt %s --cse --jaxc-cleanup=max-iterations=1 --mlir-print-ir-after-all --mlir-print-ir-after-failure -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE

// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:   %[[SQ:.+]] = arith.muli %arg0, %arg0 : i32
// AFTER-NEXT:   %[[SQ2:.+]] = arith.muli %arg0, %arg0 : i32
// AFTER:      // -----// IR Dump After JaxcCleanup (jaxc-cleanup) //----- //
// AFTER-NEXT: module {
// AFTER-NEXT:   func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:     %[[SQ:.+]] = arith.muli %arg0, %arg0 : i32
// AFTER-NEXT:     %{{.+}} = arith.addi %[[SQ]], %[[SQ]] : i32

// BEFORE:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: module {
// BEFORE:      // -----// IR Dump Before JaxcCleanup (jaxc-cleanup) //----- //
// BEFORE-NEXT: module {

// The second cleanup and the CSE change nothing, so they print nothing.
// CHANGE:     // -----// IR Dump After JaxcCleanup (jaxc-cleanup) //----- //
// CHANGE-NOT: IR Dump

// FAILURE-NOT: IR Dump After CSE
// FAILURE:     error: jaxc-cleanup did not converge
// FAILURE:     // -----// IR Dump After JaxcCleanup Failed (jaxc-cleanup) //----- //

// SCOPE:      // -----// IR Dump After Canonicalizer (canonicalize) ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  %1 = arith.muli %0, %x : i32
  %2 = arith.muli %x, %x : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
