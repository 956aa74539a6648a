// From jaxc IR: the linalg stage lowers jaxc ops, --run checks the numerics.
// RUN: jaxc-opt %s --stage=linalg | FileCheck %s
// RUN: jaxc-opt %s --run=f --arg='[[0, 1], [2, 3]]:f32' --arg='[[1, 0], [0, 1]]:f32' | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func @f(
// CHECK-NOT: jaxc.
// CHECK: linalg.
// CHECK: return

// exp(x) @ w + x with w = I: exp(x) + x
// NUM: array({{\[}}[ 1.       ,  3.7182817],
// NUM-NEXT: [ 9.389056 , 23.085537 ]], dtype=float32)
func.func @f(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = jaxc.exp %x : tensor<2x2xf32>
  %d = jaxc.dot_general %e, %w, batch = [] x [], contract = [1] x [0]
         : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = jaxc.add %d, %x : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
