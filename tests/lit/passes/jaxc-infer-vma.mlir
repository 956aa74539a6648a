// RUN: jaxc-opt %s --split-input-file --jaxc-infer-vma | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --jaxc-infer-vma --jaxc-autodiff | FileCheck %s --check-prefix=GRAD

// A shard_map body: %a varies over x and y, %w is replicated. The product
// reads both, so %w gets a pvary; the psum over y is invariant over y; the
// loss is differentiated through a specialized copy of @loss.

// CHECK-LABEL: func.func private @body(
// CHECK-SAME: jaxc.vma_results = {{\[}}["x"], []]
// CHECK: %[[V:.*]] = jaxc.pvary %arg1, axes = ["x", "y"] : tensor<2xf32>
// CHECK: jaxc.mul %arg0, %[[V]]
// CHECK: jaxc.psum %{{.*}}, axes = ["y"] invariant : tensor<f32>
// CHECK: %[[ONE:.*]] = jaxc.pvary %{{.*}}, axes = ["x"] : tensor<f32>
// CHECK: jaxc.vjp @[[LOSS:loss_vma[_0-9]*]](%arg1, %arg0) cotangents(%[[ONE]])
// CHECK-LABEL: func.func private @loss(
// CHECK-NOT: pvary
// CHECK: jaxc.psum %{{.*}}, axes = ["y"] : tensor<f32>
// CHECK: func.func private @[[LOSS]](
// CHECK: jaxc.pvary %arg0, axes = ["x", "y"]
// CHECK: jaxc.psum %{{.*}}, axes = ["y"] invariant

// The gradient of the replicated %w: the pvary transposes to an invariant
// psum over x and y, the invariant psum over y to a pvary.
// GRAD-LABEL: func.func private @body(
// GRAD-NOT: jaxc.vjp
// GRAD: jaxc.pvary %{{.*}}, axes = ["y"]
// GRAD: jaxc.psum %{{.*}}, axes = ["x", "y"] invariant
func.func private @body(%a: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
    attributes {jaxc.vma = {manual = ["x", "y"], sizes = [2, 2], args = [["x", "y"], []]}} {
  %p = jaxc.mul %a, %w : tensor<2xf32>
  %r = jaxc.reduce sum %p, dims = [0] : tensor<2xf32> -> tensor<f32>
  %s = jaxc.psum %r, axes = ["y"] : tensor<f32>
  %one = jaxc.constant dense<1.0> : tensor<f32>
  %l, %g, %ga = jaxc.vjp @loss(%w, %a) cotangents(%one) : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>)
  return %s, %g : tensor<f32>, tensor<2xf32>
}
func.func private @loss(%w: tensor<2xf32>, %a: tensor<2xf32>) -> tensor<f32> {
  %p = jaxc.mul %w, %a : tensor<2xf32>
  %r = jaxc.reduce sum %p, dims = [0] : tensor<2xf32> -> tensor<f32>
  %s = jaxc.psum %r, axes = ["y"] : tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%a: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) {
  %s, %g = func.call @body(%a, %w) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %s, %g : tensor<f32>, tensor<2xf32>
}

// -----

// A loop carry starts replicated and becomes varying (it adds %a, carried
// along): the fixpoint types it varying over x, so its start gets a pvary.
// A pmean becomes an invariant psum divided by the group size.

// CHECK-LABEL: func.func @carry(
// CHECK-SAME: jaxc.vma_results = {{\[}}["x"], []]
// CHECK: %[[INIT:.*]] = jaxc.pvary %{{.*}}, axes = ["x"] : tensor<f32>
// CHECK: jaxc.while(%[[INIT]], %arg0 : tensor<f32>, tensor<f32>)
// CHECK: %[[SUM:.*]] = jaxc.psum %arg0, axes = ["x"] invariant : tensor<f32>
// CHECK: %[[N:.*]] = jaxc.constant dense<4.000000e+00> : tensor<f32>
// CHECK: jaxc.div %[[SUM]], %[[N]]
func.func @carry(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>)
    attributes {jaxc.vma = {manual = ["x"], sizes = [4], args = [["x"]]}} {
  %zero = jaxc.constant dense<0.0> : tensor<f32>
  %r:2 = jaxc.while (%zero, %a : tensor<f32>, tensor<f32>) cond {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %ten = jaxc.constant dense<10.0> : tensor<f32>
    %p = jaxc.compare lt, %c, %ten : tensor<f32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %n = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %n, %x : tensor<f32>, tensor<f32>
  }
  %m = jaxc.pmean %a, axes = ["x"] : tensor<f32>
  return %r#0, %m : tensor<f32>, tensor<f32>
}
