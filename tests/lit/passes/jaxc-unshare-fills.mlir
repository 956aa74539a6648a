// RUN: jaxc-opt %s --jaxc-unshare-fills | FileCheck %s

// A zero fill that two ops write in place: the first keeps it, the second
// gets a fill of its own (on an empty tensor of its own) just before it; a
// linalg input keeps reading the original.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[Z0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT: %[[X:.*]] = linalg.add ins(%[[A]], %[[Z0]] : {{.*}}) outs(%[[Z0]] : tensor<4xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT: %[[Y:.*]] = linalg.add ins(%[[A]], %[[X]] : {{.*}}) outs(%[[Z1]] : tensor<4xf32>)
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @shared(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %x = linalg.add ins(%a, %z : tensor<4xf32>, tensor<4xf32>) outs(%z : tensor<4xf32>) -> tensor<4xf32>
  %y = linalg.add ins(%a, %x : tensor<4xf32>, tensor<4xf32>) outs(%z : tensor<4xf32>) -> tensor<4xf32>
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}
