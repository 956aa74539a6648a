// jaxc-cleanup: canonicalize, CSE and symbol DCE, repeated until nothing
// changes. (DESIGN.md section 9 puts a pass's test at
// tests/lit/passes/jaxc-cleanup.mlir; it lives with the CLI tests for now.)
// RUN: jaxc-opt %s --split-input-file --jaxc-cleanup | FileCheck %s
// RUN: not jaxc-opt %s --split-input-file --jaxc-cleanup=max-iterations=1 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not jaxc-opt %s --jaxc-cleanup=max-iterations=0 2>&1 | FileCheck %s --check-prefix=ZERO

// A private function becomes dead only after its caller's call is folded
// away: that takes a second round.
// CHECK-LABEL: func.func @caller(%arg0: i32) -> i32 {
// CHECK-NEXT:    return %arg0 : i32
// CHECK-NEXT:  }
// CHECK-NOT:   func.func
// The module has no line of its own (the error is reported on it).
// LIMIT: jaxc-cleanup.mlir:0:0: error: jaxc-cleanup did not converge within max-iterations=1 rounds; raise it, or look for rewrite patterns that undo each other
// ZERO: error: jaxc-cleanup: max-iterations must be at least 1
func.func @caller(%x: i32) -> i32 {
  %false = arith.constant false
  %r = scf.if %false -> i32 {
    %y = func.call @helper(%x) : (i32) -> i32
    scf.yield %y : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
}

func.func private @helper(%x: i32) -> i32 {
  %0 = arith.muli %x, %x : i32
  return %0 : i32
}

// -----

// Already clean: one round, no change, no error even with max-iterations=1.
// CHECK-LABEL: func.func @clean(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[E:.+]] = math.exp %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[E]] : tensor<4xf32>
// LIMIT-NOT: error
func.func @clean(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
