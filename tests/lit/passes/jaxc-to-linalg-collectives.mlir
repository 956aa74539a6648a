// RUN: jaxc-opt %s --split-input-file --jaxc-to-linalg | FileCheck %s
// (A collective outside a pmap's module: jaxc-to-linalg-unsupported.mlir.)

// In a pmap's or shard_map's per-device program (jaxc.spmd_axes lists its
// mesh axes and their sizes), a collective is a call of the SPMD runtime on
// buffers: the operand read-only, the result new; one declaration per
// signature. A table (lane -> the lanes of its group) travels with the
// reductions and gathers.
// CHECK-DAG: func.func private @jaxc_spmd_lane() -> i64
// CHECK-DAG: func.func private @jaxc_spmd_ppermute__0(memref<3xf32>, memref<3xf32>, i64, i64)
// CHECK-DAG: func.func private @jaxc_spmd_all_gather__0(memref<3xf32>, memref<4x3xf32>, i64, memref<4x4xi64>, i64, i64)
// CHECK-DAG: func.func private @jaxc_spmd_all_reduce__0(memref<3xf32>, memref<3xf32>, i64, i32, i32, memref<4x4xi64>, i64, i64)
// CHECK-LABEL: func.func @per_device
// psum: 3 elements of f32 (type code 0), sum (op code 0), over the group of all four lanes
// CHECK: %[[GROUPS:.+]] = arith.constant dense<{{\[}}[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<4x4xi64>
// CHECK: %[[TABLE:.+]] = bufferization.to_buffer %[[GROUPS]] read_only
// CHECK: %[[XB:.+]] = bufferization.to_buffer %arg0 read_only : tensor<3xf32> to memref<3xf32>
// CHECK: %[[SB:.+]] = memref.alloc() : memref<3xf32>
// CHECK: call @jaxc_spmd_all_reduce__0(%[[XB]], %[[SB]], %c3_i64, %c0_i32, %c0_i32_0, %[[TABLE]], %c4_i64, %c0_i64)
// CHECK: bufferization.to_tensor %[[SB]] restrict writable
// pmax: op code 1
// CHECK: call @jaxc_spmd_all_reduce__0({{.*}}, %c1_i32, {{.*}})
// all_gather: 12 bytes per lane, stacked, then moved to dimension 1
// CHECK: call @jaxc_spmd_all_gather__0({{.*}}, %c12_i64, {{.*}})
// CHECK: linalg.transpose ins({{.*}} : tensor<4x3xf32>) outs({{.*}} : tensor<3x4xf32>) permutation = [1, 0]
// ppermute: the source of this lane from a table indexed by the lane
// CHECK: %[[FROMS:.+]] = arith.constant dense<[-1, 0, 1, -1]> : tensor<4xi64>
// CHECK: %[[LANE:.+]] = call @jaxc_spmd_lane() : () -> i64
// CHECK-NEXT: %[[I:.+]] = arith.index_cast %[[LANE]]
// CHECK-NEXT: %[[FROM:.+]] = tensor.extract %[[FROMS]][%[[I]]] : tensor<4xi64>
// CHECK: call @jaxc_spmd_ppermute__0({{.*}}, %[[FROM]])
// axis_index: this lane's position on the axis
// CHECK: %[[POS:.+]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
// CHECK: %[[L:.+]] = call @jaxc_spmd_lane() : () -> i64
// CHECK: %[[P:.+]] = tensor.extract %[[POS]]
// CHECK-NEXT: %[[P32:.+]] = arith.trunci %[[P]] : i64 to i32
// CHECK-NEXT: tensor.from_elements %[[P32]] : tensor<i32>
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @per_device(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<i32>) {
    %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
    %m = jaxc.pmax %x, axes = ["i"] : tensor<3xf32>
    %g = jaxc.all_gather %x, axes = ["i"], dim = 1, axis_size = 4 : tensor<3xf32> -> tensor<3x4xf32>
    %p = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 2] : tensor<3xf32>
    %i = jaxc.axis_index "i" : tensor<i32>
    return %s, %m, %g, %p, %i : tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<i32>
  }
}

// -----

// A pmap across two processes (jaxc.distributed): 4 devices, 2 lanes here.
// The group table lists this process's lanes; `across` = 1 makes the
// runtime finish with MPI; all_gather stacks all 4; axis_index adds the
// lanes of the processes before this one.
// CHECK-LABEL: func.func @two_processes
// CHECK: %[[GROUPS:.+]] = arith.constant dense<{{\[}}[0, 1], [0, 1]]> : tensor<2x2xi64>
// CHECK: call @jaxc_spmd_all_reduce__0({{.*}}, %c2_i64, %c1_i64)
// CHECK: call @jaxc_spmd_all_gather__0({{.*}}) : (memref<3xf32>, memref<4x3xf32>, i64, memref<2x2xi64>, i64, i64) -> ()
// CHECK: %[[P:.+]] = call @jaxc_spmd_process() : () -> i64
// CHECK: arith.muli %[[P]], %c2_i64
module attributes {jaxc.spmd_axes = [["i", 4]], jaxc.spmd_processes = 2} {
  func.func @two_processes(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<i32>) {
    %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
    %g = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
    %i = jaxc.axis_index "i" : tensor<i32>
    return %s, %g, %i : tensor<3xf32>, tensor<4x3xf32>, tensor<i32>
  }
}

// -----

// Across processes, ppermute gathers every lane's operand (one MPI call per
// process) and takes the row of this lane's source, from a table indexed by
// its global position (lane position + process x 2), or zeros where none
// sends (here to 0 and 2).
// CHECK-LABEL: func.func @ring_across_processes
// CHECK: call @jaxc_spmd_all_gather__0({{.*}}) : (memref<3xf32>, memref<4x3xf32>, i64, memref<2x2xi64>, i64, i64) -> ()
// CHECK: %[[SOURCES:.+]] = arith.constant dense<[-1, 0, -1, 2]> : tensor<4xi64>
// CHECK: %[[P:.+]] = call @jaxc_spmd_process() : () -> i64
// CHECK: %[[SOURCE:.+]] = tensor.extract %[[SOURCES]]
// CHECK: %[[SENDS:.+]] = arith.cmpi sge, %[[SOURCE]], %c0_i64
// CHECK: tensor.extract_slice {{.*}} [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK: arith.select %[[SENDS]], {{.*}} : tensor<3xf32>
module attributes {jaxc.spmd_axes = [["i", 4]], jaxc.spmd_processes = 2} {
  func.func @ring_across_processes(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 2, 3] : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
