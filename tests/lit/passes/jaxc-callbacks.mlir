// Host callbacks through jaxc-batch and jaxc-autodiff (lowering: jaxc-to-linalg-callback.mlir).
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-cleanup)' | FileCheck %s --check-prefix=BATCH
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-autodiff,jaxc-cleanup)' | FileCheck %s --check-prefix=GRAD

// vmap: the unbatched scalar is broadcast and batch_rank counts the new axis.
// BATCH-LABEL: func.func @lanes
// BATCH: %[[S:.+]] = jaxc.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
// BATCH: %[[Y:.+]] = jaxc.callback 3(%arg0, %[[S]]) {batch_rank = 1 : i64} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
// BATCH: return %[[Y]]
func.func private @per_lane(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %y = jaxc.callback 3 (%x, %s) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @lanes(%xs: tensor<4x3xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %ys = jaxc.vmap @per_lane(%xs, %s) in_axes = [0, -1] out_axes = [0] axis_size = 4 : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %ys : tensor<4x3xf32>
}

// -----

// grad: a callback without results stays on the primal value; the gradient
// of x*x is 2*x*ct.
// GRAD-LABEL: func.func @grad
// GRAD: jaxc.callback 5(%arg0) : (tensor<f32>) -> ()
// GRAD: jaxc.mul
// GRAD: return
func.func private @square(%x: tensor<f32>) -> tensor<f32> {
  jaxc.callback 5 (%x) : (tensor<f32>) -> ()
  %y = jaxc.mul %x, %x : tensor<f32>
  return %y : tensor<f32>
}
func.func @grad(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx = jaxc.vjp @square(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

// A callback with a result on a captured argument (`jaxc.captured_args = 1`:
// the last argument is a value the traced function closed over, a constant
// for the request) is not differentiated: d(x * cb(s))/dx = cb(s), and the
// callback runs on the primal s.
// GRAD-LABEL: func.func @grad_captured
// GRAD: %[[C:.+]] = jaxc.callback 6(%arg1) : (tensor<f32>) -> tensor<f32>
// GRAD: %[[D:.+]] = jaxc.mul %arg2, %[[C]]
// GRAD: return %[[D]]
func.func private @scaled(%x: tensor<f32>, %s: tensor<f32>) -> tensor<f32> attributes {jaxc.captured_args = 1 : i64} {
  %c = jaxc.callback 6 (%s) : (tensor<f32>) -> tensor<f32>
  %y = jaxc.mul %x, %c : tensor<f32>
  return %y : tensor<f32>
}
func.func @grad_captured(%x: tensor<f32>, %s: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx, %ds = jaxc.vjp @scaled(%x, %s) cotangents(%ct)
      : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}
