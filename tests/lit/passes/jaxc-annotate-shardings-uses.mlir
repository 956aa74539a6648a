// jaxc-annotate-shardings on a dense layer, tanh and a sum (after cse, as
// jit's pipeline runs it): the matmul's init and tanh's shared one
// tensor.empty, which upstream's propagation annotated twice and aborted on
// (docs/toolchain.md); each user gets its own. The first result has no
// jaxc.sharding and the second is a scalar: neither is annotated (the
// propagation chooses), and the partition reduces the scalar over the mesh.
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(jaxc-to-linalg,cse,jaxc-annotate-shardings)' | FileCheck %s
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(jaxc-to-linalg,cse,jaxc-partition)' | FileCheck %s --check-prefix=PART

// CHECK-LABEL: func.func @layer
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8x4xf32>)
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<8x4xf32>) outs(%[[E2]] : tensor<8x4xf32>)
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-NOT: shard.shard
// CHECK: return %[[M]], %[[S]] : tensor<8x4xf32>, tensor<f32>

// CHECK-LABEL: func.func @two_sums
// CHECK: shard.shard %arg0 to %{{.*}} : tensor<8x4xf32>
// CHECK-NOT: shard.shard %arg1
// CHECK: %[[F1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[F2]] : tensor<4xf32>)
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[F1]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[Z1]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[Z2]] : tensor<4xf32>)

// PART-LABEL: func.func @layer
// PART-SAME: (%arg0: tensor<2x16xf32> {{.*}}, %arg1: tensor<16x4xf32> {{.*}}) -> (tensor<2x4xf32>, tensor<f32>)
// PART: call @jaxc_spmd_all_reduce__0
// PART-NOT: shard.
// PART: return
// PART-LABEL: func.func @two_sums
// PART-SAME: (%arg0: tensor<2x4xf32> {{.*}}, %arg1: tensor<f32> {{.*}}) -> (tensor<4xf32>, tensor<4xf32>)
// PART: call @jaxc_spmd_all_reduce
// PART-NOT: shard.
module attributes {jaxc.spmd_axes = [["d", 4]]} {
  func.func @layer(%x: tensor<8x16xf32> {jaxc.sharding = [[0]]}, %w: tensor<16x4xf32> {jaxc.sharding = []})
      -> (tensor<8x4xf32>, tensor<f32> {jaxc.sharding = []}) {
    %m = jaxc.dot_general %x, %w, batch = [] x [], contract = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %t = jaxc.tanh %m : tensor<8x4xf32>
    %s = jaxc.reduce sum %t, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
    return %m, %s : tensor<8x4xf32>, tensor<f32>
  }

  // Two sums share one zero fill after cse: each gets its own (and its own
  // empty). The scalar argument is not annotated (`[[]]` for a scalar made
  // the propagation abort; it is replicated anyway).
  func.func @two_sums(%a: tensor<8x4xf32> {jaxc.sharding = [[0]]}, %s: tensor<f32> {jaxc.sharding = []})
      -> (tensor<4xf32> {jaxc.sharding = []}, tensor<4xf32> {jaxc.sharding = []}) {
    %b = jaxc.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %m = jaxc.mul %a, %b : tensor<8x4xf32>
    %x = jaxc.reduce sum %a, dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
    %y = jaxc.reduce sum %m, dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
    return %x, %y : tensor<4xf32>, tensor<4xf32>
  }
}
