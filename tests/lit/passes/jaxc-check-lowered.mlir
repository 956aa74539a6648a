// RUN: jaxc-opt %s --split-input-file --jaxc-check-lowered --verify-diagnostics | FileCheck %s

// A jaxc op left after the lowering is an error at its own line, one per op
// (jaxc-to-linalg is left out on purpose).
func.func @left(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jaxc.add' was not lowered to linalg: jaxc-to-linalg has no rule for it}}
  %0 = jaxc.add %x, %y : tensor<4xf32>
  // expected-error @+1 {{'jaxc.sin' was not lowered to linalg: jaxc-to-linalg has no rule for it}}
  %1 = jaxc.sin %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Lowered IR (no jaxc op) passes through unchanged.
// CHECK-LABEL: func.func @lowered
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[A:.+]] = linalg.add ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[A]]
func.func @lowered(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
