// jaxc-partition: a program whose arguments and results carry jaxc.sharding
// becomes one device's program (the shard dialect's passes, in a child
// process); the collectives they make are lowered like pmap's.
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,jaxc-partition)' | FileCheck %s

// a @ w with k split over the 4 devices of "i": each device multiplies its
// 8x4 and 4x4 blocks, then a psum over "i" (the SPMD runtime's all_reduce).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%{{.*}}: tensor<8x4xf32> {{.*}}, %{{.*}}: tensor<4x4xf32> {{.*}}) -> tensor<8x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x4xf32>)
// CHECK: call @jaxc_spmd_all_reduce__0(
// CHECK-NOT: shard.
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @matmul(%a: tensor<8x16xf32> {jaxc.sharding = [[], [0]]}, %w: tensor<16x4xf32> {jaxc.sharding = [[0], []]})
      -> (tensor<8x4xf32> {jaxc.sharding = [[], []]}) {
    %c = jaxc.dot_general %a, %w, batch = [] x [], contract = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    return %c : tensor<8x4xf32>
  }
}

// -----

// Elementwise, rows split: no communication at all.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%{{.*}}: tensor<2x16xf32> {{.*}}) -> tensor<2x16xf32>
// CHECK-NOT: jaxc_spmd
// CHECK: return
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @rows(%a: tensor<8x16xf32> {jaxc.sharding = [[0]]}) -> (tensor<8x16xf32> {jaxc.sharding = [[0]]}) {
    %s = jaxc.sin %a : tensor<8x16xf32>
    return %s : tensor<8x16xf32>
  }
}

// -----

// Without shardings the module is left alone.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<8xf32> {{.*}}) -> tensor<8xf32>
func.func @plain(%a: tensor<8xf32>) -> tensor<8xf32> {
  %s = jaxc.sin %a : tensor<8xf32>
  return %s : tensor<8xf32>
}
