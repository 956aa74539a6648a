// RUN: jaxc-opt %s --jaxc-to-linalg | FileCheck %s
// (A collective outside a pmap's module: jaxc-to-linalg-unsupported.mlir.)

// In a pmap's per-device program (jaxc.spmd_axes names its axis and lane
// count), a collective is a call of the SPMD runtime on buffers: the operand
// read-only, the result new; one declaration per signature.
// CHECK-DAG: func.func private @jaxc_spmd_lane() -> i64
// CHECK-DAG: func.func private @jaxc_spmd_ppermute__0(memref<3xf32>, memref<3xf32>, i64, i64)
// CHECK-DAG: func.func private @jaxc_spmd_all_gather__0(memref<3xf32>, memref<4x3xf32>, i64)
// CHECK-DAG: func.func private @jaxc_spmd_all_reduce__0(memref<3xf32>, memref<3xf32>, i64, i32, i32)
// CHECK-LABEL: func.func @per_device
// CHECK: %[[XB:.+]] = bufferization.to_buffer %arg0 read_only : tensor<3xf32> to memref<3xf32>
// CHECK: %[[SB:.+]] = memref.alloc() : memref<3xf32>
// psum: 3 elements of f32 (type code 0), sum (op code 0)
// CHECK: call @jaxc_spmd_all_reduce__0(%[[XB]], %[[SB]], %c3_i64, %c0_i32, %c0_i32_0)
// CHECK: bufferization.to_tensor %[[SB]] restrict writable
// pmax: op code 1
// CHECK: call @jaxc_spmd_all_reduce__0({{.*}}, %c1_i32)
// all_gather: 12 bytes per lane, stacked, then moved to dimension 1
// CHECK: call @jaxc_spmd_all_gather__0({{.*}}, %c12_i64)
// CHECK: linalg.transpose ins({{.*}} : tensor<4x3xf32>) outs({{.*}} : tensor<3x4xf32>) permutation = [1, 0]
// ppermute: the source of this lane from a table indexed by the lane
// CHECK: %cst = arith.constant dense<[-1, 0, 1, -1]> : tensor<4xi64>
// CHECK: %[[LANE:.+]] = call @jaxc_spmd_lane() : () -> i64
// CHECK: %[[I:.+]] = arith.index_cast %[[LANE]]
// CHECK-NEXT: %[[FROM:.+]] = tensor.extract %cst[%[[I]]] : tensor<4xi64>
// CHECK: call @jaxc_spmd_ppermute__0({{.*}}, %c12_i64_5, %[[FROM]])
// axis_index: the lane
// CHECK: %[[L:.+]] = call @jaxc_spmd_lane() : () -> i64
// CHECK-NEXT: %[[L32:.+]] = arith.trunci %[[L]] : i64 to i32
// CHECK-NEXT: tensor.from_elements %[[L32]] : tensor<i32>
module attributes {jaxc.spmd_axes = {i = 4 : i64}} {
  func.func @per_device(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<i32>) {
    %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
    %m = jaxc.pmax %x, axes = ["i"] : tensor<3xf32>
    %g = jaxc.all_gather %x, axes = ["i"], dim = 1, axis_size = 4 : tensor<3xf32> -> tensor<3x4xf32>
    %p = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 2] : tensor<3xf32>
    %i = jaxc.axis_index "i" : tensor<i32>
    return %s, %m, %g, %p, %i : tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<i32>
  }
}
