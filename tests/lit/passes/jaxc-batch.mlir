// jaxc-batch: vmap requests become batched code (then jaxc-cleanup).
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-cleanup)' | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-autodiff,jaxc-cleanup)' | FileCheck %s --check-prefix=GRAD

// A mapped input at axis 1 moves to the front and back; the unmapped weight
// is broadcast along the batch axis.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: %[[X:.+]] = jaxc.transpose %arg0, perm = [1, 0] : tensor<3x8xf32> -> tensor<8x3xf32>
// CHECK-NEXT: %[[W:.+]] = jaxc.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[M:.+]] = jaxc.mul %[[X]], %[[W]] : tensor<8x3xf32>
// CHECK-NEXT: %[[R:.+]] = jaxc.transpose %[[M]], perm = [1, 0] : tensor<8x3xf32> -> tensor<3x8xf32>
// CHECK-NEXT: return %[[R]]
func.func private @scale(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %0 = jaxc.mul %x, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @elementwise(%xs: tensor<3x8xf32>, %w: tensor<3xf32>) -> tensor<3x8xf32> {
  %0 = jaxc.vmap @scale(%xs, %w) in_axes = [1, -1] out_axes = [1] axis_size = 8 : (tensor<3x8xf32>, tensor<3xf32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// The mat-vec product from a vec-vec dot with in_axes = [0, -1]: one
// dot_general whose contracting dimension moved past the batch axis, no loop.
// CHECK-LABEL: func.func @matvec
// CHECK-NEXT: %[[D:.+]] = jaxc.dot_general %arg0, %arg1, batch = [] x [], contract = [1] x [0] : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[D]] : tensor<4xf32>
func.func private @dot(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %0 = jaxc.dot_general %x, %y, batch = [] x [], contract = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @matvec(%m: tensor<4x3xf32>, %v: tensor<3xf32>) -> tensor<4xf32> {
  %0 = jaxc.vmap @dot(%m, %v) in_axes = [0, -1] out_axes = [0] axis_size = 4 : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A batched predicate: both branches run (here on the unbatched operand,
// so once each) and a select per lane picks branch 1 where the predicate holds.
// CHECK-LABEL: func.func @batched_predicate
// CHECK-DAG: %[[NEG:.+]] = jaxc.neg %arg1 : tensor<3xf32>
// CHECK-DAG: %[[SIN:.+]] = jaxc.sin %arg1 : tensor<3xf32>
// CHECK-DAG: %[[B0:.+]] = jaxc.broadcast_in_dim %[[NEG]], dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
// CHECK-DAG: %[[B1:.+]] = jaxc.broadcast_in_dim %[[SIN]], dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
// CHECK-DAG: %[[P:.+]] = jaxc.broadcast_in_dim %arg0, dims = [0] : (tensor<8xi1>) -> tensor<8x3xi1>
// CHECK: %[[R:.+]] = jaxc.select %[[P]], %[[B1]], %[[B0]] : tensor<8x3xi1>, tensor<8x3xf32>
// CHECK-NEXT: return %[[R]]
func.func private @pick(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = jaxc.cond %p (%x) : tensor<i1>, (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %n = jaxc.neg %a : tensor<3xf32>
    jaxc.yield %n : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %s = jaxc.sin %a : tensor<3xf32>
    jaxc.yield %s : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}
func.func @batched_predicate(%ps: tensor<8xi1>, %x: tensor<3xf32>) -> tensor<8x3xf32> {
  %0 = jaxc.vmap @pick(%ps, %x) in_axes = [0, -1] out_axes = [0] axis_size = 8 : (tensor<8xi1>, tensor<3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// vmap of grad: the vjp request is kept, on @f_batched (the callee with
// every input mapped, already expanded); jaxc-autodiff expands it next.
// CHECK-LABEL: func.func @vmap_of_grad
// CHECK: jaxc.vjp @f_batched(%arg0) cotangents(%{{.+}}) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// CHECK-LABEL: func.func private @f_batched
// CHECK-NEXT: jaxc.sin %arg0 : tensor<8xf32>
// GRAD-LABEL: func.func @vmap_of_grad
// GRAD-NEXT: %[[C:.+]] = jaxc.cos %arg0 : tensor<8xf32>
// GRAD-NEXT: return %[[C]] : tensor<8xf32>
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.sin %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @grad_f(%x: tensor<f32>) -> tensor<f32> {
  %one = jaxc.constant dense<1.0> : tensor<f32>
  %y, %dx = jaxc.vjp @f(%x) cotangents(%one) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}
func.func @vmap_of_grad(%xs: tensor<8xf32>) -> tensor<8xf32> {
  %0 = jaxc.vmap @grad_f(%xs) in_axes = [0] out_axes = [0] axis_size = 8 : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
