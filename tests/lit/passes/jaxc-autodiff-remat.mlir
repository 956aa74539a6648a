// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-autodiff,jaxc-cleanup)' | FileCheck %s

// Reverse mode of jaxc.remat: the forward sweep computes @g, the backward
// sweep recomputes it from its argument behind an optimization barrier (so
// CSE cannot merge it back), then runs the adjoints on the recomputed values.
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.sin %x : tensor<f32>
  %1 = jaxc.sin %0 : tensor<f32>
  return %1 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.remat @g(%x) : (tensor<f32>) -> tensor<f32>
  %1 = jaxc.mul %0, %0 : tensor<f32>
  return %1 : tensor<f32>
}
// CHECK-LABEL: func.func @nothing_saveable(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[CT:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[S0:.*]] = jaxc.sin %[[X]]
// CHECK-NEXT: %[[S1:.*]] = jaxc.sin %[[S0]]
// CHECK-NEXT: %[[Y:.*]] = jaxc.mul %[[S1]], %[[S1]]
// CHECK-NEXT: %[[M:.*]] = jaxc.mul %[[CT]], %[[S1]]
// CHECK-NEXT: %[[CT1:.*]] = jaxc.add %[[M]], %[[M]]
// CHECK-NEXT: %[[XB:.*]] = jaxc.optimization_barrier %[[X]] : tensor<f32>
// CHECK-NEXT: %[[R0:.*]] = jaxc.sin %[[XB]]
// CHECK-NEXT: %[[C1:.*]] = jaxc.cos %[[R0]]
// CHECK-NEXT: %[[T:.*]] = jaxc.mul %[[CT1]], %[[C1]]
// CHECK-NEXT: %[[C0:.*]] = jaxc.cos %[[XB]]
// CHECK-NEXT: %[[DX:.*]] = jaxc.mul %[[T]], %[[C0]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @nothing_saveable(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %dx = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %dx : tensor<f32>, tensor<f32>
}

// -----

// dots_saveable: the product is taken from the forward sweep (behind the
// barrier, since the recomputed tanh reads it); only tanh is recomputed.
// The adjoint of the product reads the weights directly: they need no barrier.
func.func private @layer(%w: tensor<4x4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.dot_general %w, %x, batch = [] x [], contract = [1] x [0] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = jaxc.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @net(%w: tensor<4x4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.remat @layer(%w, %x) policy = "dots_saveable" : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @dots_saveable(
// CHECK-SAME: %[[W:[a-z0-9_]+]]: tensor<4x4xf32>, %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[CT:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: %[[D:.*]] = jaxc.dot_general %[[W]], %[[X]]
// CHECK-NOT: jaxc.dot_general %[[W]], %[[X]]
// CHECK: %[[DB:.*]] = jaxc.optimization_barrier %[[D]] : tensor<4xf32>
// CHECK-NEXT: jaxc.tanh %[[DB]]
// CHECK-NOT: jaxc.optimization_barrier
// CHECK: jaxc.dot_general %{{.*}}, %[[W]]
func.func @dots_saveable(%w: tensor<4x4xf32>, %x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %y, %dw, %dx = jaxc.vjp @net(%w, %x) cotangents(%ct) : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>)
  return %dx : tensor<4xf32>
}

// -----

// save_only_these_names: the value named "h" is saved, its producer is not
// recomputed; prevent_cse = false leaves out the barrier, so the cleanup
// merges what is recomputed with the forward sweep (one sin, one exp).
func.func private @named(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.sin %x : tensor<f32>
  %1 = jaxc.checkpoint_name %0 name = "h" : tensor<f32>
  %2 = jaxc.exp %1 : tensor<f32>
  return %2 : tensor<f32>
}
func.func private @outer(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.remat @named(%x) policy = "save_only_these_names" names = ["h"] {prevent_cse = false} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// CHECK-LABEL: func.func @names_without_barrier(
// CHECK-NOT: jaxc.optimization_barrier
// CHECK-COUNT-1: jaxc.sin
// CHECK-NOT: jaxc.sin
func.func @names_without_barrier(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx = jaxc.vjp @outer(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

// Outside reverse mode a remat is a call: inlined.
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.sin %x : tensor<f32>
  return %0 : tensor<f32>
}
// CHECK-LABEL: func.func @plain_call(
// CHECK-NEXT: jaxc.sin
// CHECK-NEXT: return
func.func @plain_call(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.remat @h(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
