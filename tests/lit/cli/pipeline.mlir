// Choosing passes: --pass-pipeline mixing upstream and project passes at any
// nesting, and mlir-opt's per-pass flags, appended in the order given.
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(func.func(canonicalize),jaxc-cleanup)' | FileCheck %s --check-prefix=MIXED
// RUN: jaxc-opt %s --pass-pipeline=' builtin.module( func.func( canonicalize ) , jaxc-cleanup{ max-iterations=4 } ) ' | FileCheck %s --check-prefix=MIXED
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,jaxc-cleanup,cse))' | FileCheck %s --check-prefix=NESTED
// RUN: jaxc-opt %s --canonicalize --cse | FileCheck %s --check-prefix=CANON-CSE
// RUN: jaxc-opt %s -cse -canonicalize | FileCheck %s --check-prefix=CSE-CANON
// RUN: jaxc-opt %s '--canonicalize=max-iterations=3 top-down=false' --cse --symbol-dce | FileCheck %s --check-prefix=MIXED
// RUN: jaxc-opt %s --jaxc-cleanup=max-iterations=5 | FileCheck %s --check-prefix=MIXED
// RUN: jaxc-opt %s --pass-pipeline='builtin.module()' | FileCheck %s --check-prefix=NONE
// An op-specific upstream pass given as a flag is nested under its op, as
// mlir-opt does (affine-scalrep runs on func.func).
// RUN: jaxc-opt %s --affine-scalrep --jaxc-cleanup | FileCheck %s --check-prefix=MIXED

// MIXED-LABEL: func.func @fold(%arg0: i32) -> i32 {
// MIXED-NEXT:    %[[SQ:.+]] = arith.muli %arg0, %arg0 : i32
// MIXED-NEXT:    %[[SUM:.+]] = arith.addi %[[SQ]], %[[SQ]] : i32
// MIXED-NEXT:    return %[[SUM]] : i32
// MIXED-NEXT:  }
// MIXED-NOT:   @unused

// Nested under func.func, jaxc-cleanup runs on each function: it folds and
// CSEs, but symbol DCE needs the module, so @unused stays.
// NESTED-LABEL: func.func @fold(%arg0: i32) -> i32 {
// NESTED-NEXT:    %[[SQ:.+]] = arith.muli %arg0, %arg0 : i32
// NESTED-NEXT:    %[[SUM:.+]] = arith.addi %[[SQ]], %[[SQ]] : i32
// NESTED-NEXT:    return %[[SUM]] : i32
// NESTED-LABEL: func.func private @unused

// CANON-CSE-LABEL: func.func @fold(%arg0: i32) -> i32 {
// CANON-CSE-NEXT:    %[[SQ:.+]] = arith.muli %arg0, %arg0 : i32
// CANON-CSE-NEXT:    %[[SUM:.+]] = arith.addi %[[SQ]], %[[SQ]] : i32
// CANON-CSE-NEXT:    return %[[SUM]] : i32
// CANON-CSE-LABEL: func.func private @unused

// CSE first finds nothing to share; canonicalize then folds x + 0 and leaves
// two identical products.
// CSE-CANON-LABEL: func.func @fold(%arg0: i32) -> i32 {
// CSE-CANON-NEXT:    %[[A:.+]] = arith.muli %arg0, %arg0 : i32
// CSE-CANON-NEXT:    %[[B:.+]] = arith.muli %arg0, %arg0 : i32
// CSE-CANON-NEXT:    %[[SUM:.+]] = arith.addi %[[A]], %[[B]] : i32
// CSE-CANON-NEXT:    return %[[SUM]] : i32

// NONE-LABEL: func.func @fold(%arg0: i32) -> i32 {
// NONE-NEXT:    %{{.+}} = arith.constant 0 : i32
func.func @fold(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32     // x + 0 = x
  %1 = arith.muli %0, %x : i32
  %2 = arith.muli %x, %x : i32      // the same value as %1
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}

func.func private @unused(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}
