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

// A loop carry keeps its type: the body yields a value varying over fewer
// axes (a psum over x) than the carry started with, so the yield gets a
// pvary. A pmean becomes an invariant psum divided by the group size.

// CHECK-LABEL: func.func @carry(
// CHECK-SAME: jaxc.vma_results = {{\[}}["x"], []]
// CHECK: jaxc.while(%arg0, %arg0 : tensor<f32>, tensor<f32>)
// CHECK: %[[S:.*]] = jaxc.psum %{{.*}}, axes = ["x"] invariant : tensor<f32>
// CHECK-NEXT: %[[V:.*]] = jaxc.pvary %[[S]], axes = ["x"] : tensor<f32>
// CHECK-NEXT: jaxc.yield %[[V]], %{{.*}} : tensor<f32>, tensor<f32>
// CHECK: %[[SUM:.*]] = jaxc.psum %arg0, axes = ["x"] invariant : tensor<f32>
// CHECK: %[[N:.*]] = jaxc.constant dense<4.000000e+00> : tensor<f32>
// CHECK: jaxc.div %[[SUM]], %[[N]]
func.func @carry(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>)
    attributes {jaxc.vma = {manual = ["x"], sizes = [4], args = [["x"]]}} {
  %r:2 = jaxc.while (%a, %a : tensor<f32>, tensor<f32>) cond {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %ten = jaxc.constant dense<10.0> : tensor<f32>
    %p = jaxc.compare lt, %c, %ten : tensor<f32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %n = jaxc.add %c, %x : tensor<f32>
    %s = jaxc.psum %n, axes = ["x"] : tensor<f32>
    jaxc.yield %s, %x : tensor<f32>, tensor<f32>
  }
  %m = jaxc.pmean %a, axes = ["x"] : tensor<f32>
  return %r#0, %m : tensor<f32>, tensor<f32>
}

// -----

// zeros_like(a) traced in a body: select(true, fill, a) marked jaxc.vma_like,
// replaced by the fill with a pvary to a's axes.

// CHECK-LABEL: func.func @like(
// CHECK-SAME: jaxc.vma_results = {{\[}}["x"]]
// CHECK: %[[Z:.*]] = jaxc.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %[[V:.*]] = jaxc.pvary %[[Z]], axes = ["x"] : tensor<2xf32>
// CHECK-NEXT: return %[[V]] : tensor<2xf32>
func.func @like(%a: tensor<2xf32>) -> tensor<2xf32>
    attributes {jaxc.vma = {manual = ["x", "y"], sizes = [2, 2], args = [["x"]]}} {
  %z = jaxc.constant dense<0.0> : tensor<2xf32>
  %t = jaxc.constant dense<true> : tensor<i1>
  %l = jaxc.select %t, %z, %a {jaxc.vma_like} : tensor<i1>, tensor<2xf32>
  return %l : tensor<2xf32>
}
