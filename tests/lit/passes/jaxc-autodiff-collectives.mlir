// jaxc-autodiff on a pmap's per-device program: each collective is linear,
// and its cotangent goes through its transpose.
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-autodiff,jaxc-cleanup)' | FileCheck %s

// psum transposes to psum: d/dx of sum_i psum(x)^2 is psum(2 psum(x) ct).
// CHECK-LABEL: func.func @square_of_psum_vjp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3xf32>, %[[CT:[^:]+]]: tensor<3xf32>)
// CHECK: %[[S:.+]] = jaxc.psum %[[X]], axes = ["i"] : tensor<3xf32>
// CHECK: %[[CS:.+]] = jaxc.psum %{{.+}}, axes = ["i"] : tensor<3xf32>
// CHECK: return %[[CS]] : tensor<3xf32>
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func private @square_of_psum(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
    %1 = jaxc.mul %0, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func @square_of_psum_vjp(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
    %y, %dx = jaxc.vjp @square_of_psum(%x) cotangents(%ct) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    return %dx : tensor<3xf32>
  }
}

// -----

// ppermute transposes to the reversed pairs; all_gather to psum and this
// member's slice at axis_index.
// CHECK-LABEL: func.func @moves_vjp
// CHECK: %[[T:.+]] = jaxc.psum %{{.+}}, axes = ["i"] : tensor<4x3xf32>
// CHECK: %[[I:.+]] = jaxc.axis_index "i" : tensor<i32>
// CHECK: jaxc.dynamic_slice %[[T]][%[[I]], %{{.+}}], sizes = [1, 3]
// CHECK: jaxc.ppermute %{{.+}}, axes = ["i"], perm = [1, 0, 2, 1] : tensor<3xf32>
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func private @moves(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
    %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 2] : tensor<3xf32>
    %1 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
    return %0, %1 : tensor<3xf32>, tensor<4x3xf32>
  }
  func.func @moves_vjp(%x: tensor<3xf32>, %c0: tensor<3xf32>, %c1: tensor<4x3xf32>) -> tensor<3xf32> {
    %y:2, %dx = jaxc.vjp @moves(%x) cotangents(%c0, %c1) : (tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>)
    return %dx : tensor<3xf32>
  }
}
