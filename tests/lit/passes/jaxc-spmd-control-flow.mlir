// RUN: jaxc-opt %s --split-input-file --jaxc-spmd-control-flow | FileCheck %s

// A per-device program: the cond's second branch holds a psum, so every
// lane runs both branches and keeps its own branch's value; the cond
// without a collective stays.

// CHECK-LABEL: func.func @f(
// CHECK-NOT: jaxc.cond %{{.*}}(%arg0)
// CHECK: %[[A:.*]] = call @[[F0:branch[_0-9]*]](%arg0)
// CHECK: %[[B:.*]] = call @[[F1:branch[_0-9]*]](%arg0)
// CHECK: %[[R:.*]] = jaxc.select %{{.*}}, %[[B]], %[[A]]
// CHECK: jaxc.cond %{{.*}}(%[[R]])
// CHECK: func.func private @[[F0]](
// CHECK: jaxc.mul
// CHECK: func.func private @[[F1]](
// CHECK: jaxc.psum
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @f(%x: tensor<f32>) -> tensor<f32> {
    %half = jaxc.constant dense<1.5> : tensor<f32>
    %p = jaxc.compare gt, %x, %half : tensor<f32>
    %r = jaxc.cond %p(%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
    ^bb0(%a: tensor<f32>):
      %two = jaxc.constant dense<2.0> : tensor<f32>
      %m = jaxc.mul %a, %two : tensor<f32>
      jaxc.yield %m : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %s = jaxc.psum %a, axes = ["i"] : tensor<f32>
      jaxc.yield %s : tensor<f32>
    }
    %q = jaxc.cond %p(%r) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
    ^bb0(%a: tensor<f32>):
      jaxc.yield %a : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %n = jaxc.neg %a : tensor<f32>
      jaxc.yield %n : tensor<f32>
    }
    return %q : tensor<f32>
  }
}

// -----

// A switch on an int index: branch k where index == k, the last from its
// index up, branch 0 below 1 (clamped as lax.switch).

// CHECK-LABEL: func.func @g(
// CHECK: %[[ONE:.*]] = jaxc.constant dense<1> : tensor<i32>
// CHECK: %[[IS1:.*]] = jaxc.compare eq, %arg0, %[[ONE]]
// CHECK: %[[S:.*]] = jaxc.select %[[IS1]]
// CHECK: %[[TWO:.*]] = jaxc.constant dense<2> : tensor<i32>
// CHECK: %[[IS2:.*]] = jaxc.compare ge, %arg0, %[[TWO]]
// CHECK: jaxc.select %[[IS2]], %{{.*}}, %[[S]]
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @g(%k: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
    %r = jaxc.cond %k(%x) : tensor<i32>, (tensor<f32>) -> tensor<f32> {
    ^bb0(%a: tensor<f32>):
      jaxc.yield %a : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %s = jaxc.pmax %a, axes = ["i"] : tensor<f32>
      jaxc.yield %s : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %n = jaxc.neg %a : tensor<f32>
      jaxc.yield %n : tensor<f32>
    }
    return %r : tensor<f32>
  }
}

// -----

// A while whose body holds a psum: it runs while any lane's predicate holds
// (a pmax over every mesh axis); a lane whose own is false keeps its carry.

// CHECK-LABEL: func.func @h(
// CHECK: jaxc.while
// CHECK: %[[P:.*]] = func.call @while_cond(
// CHECK: %[[ANY:.*]] = jaxc.pmax %[[P]], axes = ["i", "j"]
// CHECK: jaxc.yield %[[ANY]]
// CHECK: %[[Q:.*]] = func.call @while_cond(
// CHECK: %[[N:.*]] = func.call @while_body(
// CHECK: jaxc.select %[[Q]], %[[N]], %arg
module attributes {jaxc.spmd_axes = [["i", 2], ["j", 2]]} {
  func.func @h(%x: tensor<f32>) -> tensor<f32> {
    %r = jaxc.while(%x : tensor<f32>) cond {
    ^bb0(%c: tensor<f32>):
      %ten = jaxc.constant dense<10.0> : tensor<f32>
      %p = jaxc.compare lt, %c, %ten : tensor<f32>
      jaxc.yield %p : tensor<i1>
    } do {
    ^bb0(%c: tensor<f32>):
      %s = jaxc.psum %c, axes = ["i"] : tensor<f32>
      %n = jaxc.add %c, %s : tensor<f32>
      jaxc.yield %n : tensor<f32>
    }
    return %r : tensor<f32>
  }
}

// -----

// Not a per-device program: left as it is.

// CHECK-LABEL: func.func @plain(
// CHECK: jaxc.cond
func.func @plain(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = jaxc.cond %p(%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    %n = jaxc.neg %a : tensor<f32>
    jaxc.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}
