// jaxc-batch: collectives over the vmapped axis name become ops across the
// batch axis (then jaxc-cleanup).
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-cleanup)' | FileCheck %s

// psum of a batched value: a sum over the batch axis, seen by every lane.
// CHECK-LABEL: func.func @psum
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[S:.+]] = jaxc.reduce sum %[[XS]], dims = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[B:.+]] = jaxc.broadcast_in_dim %[[S]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[R:.+]] = jaxc.div %[[XS]], %[[B]] : tensor<4x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x3xf32>
func.func private @norm(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
  %0 = jaxc.div %x, %s : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @psum(%xs: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = jaxc.vmap @norm(%xs) in_axes = [0] out_axes = [0] axis_size = 4 axis_name = "i" : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The batch axis at in_axes = 1 moves to the front first; psum of an
// unmapped value is axis_size times it. Both results are unbatched, so
// out_axes = -1 is allowed.
// CHECK-LABEL: func.func @psum_unbatched
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<3x4xf32>, %[[W:[^:]+]]: tensor<3xf32>)
// CHECK-DAG: %[[FOUR:.+]] = jaxc.constant dense<4.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[T:.+]] = jaxc.transpose %[[XS]], perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK: %[[S:.+]] = jaxc.reduce sum %[[T]], dims = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[M:.+]] = jaxc.mul %[[W]], %[[FOUR]] : tensor<3xf32>
// CHECK-NEXT: return %[[S]], %[[M]] : tensor<3xf32>, tensor<3xf32>
func.func private @total(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
  %t = jaxc.psum %w, axes = ["i"] : tensor<3xf32>
  return %s, %t : tensor<3xf32>, tensor<3xf32>
}
func.func @psum_unbatched(%xs: tensor<3x4xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = jaxc.vmap @total(%xs, %w) in_axes = [1, -1] out_axes = [-1, -1] axis_size = 4 axis_name = "i" : (tensor<3x4xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// axis_index: an iota over the batch (batched although it has no operand).
// CHECK-LABEL: func.func @axis_index
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<4x3xi32>)
// CHECK-NEXT: %[[I:.+]] = jaxc.iota dim = 0 : tensor<4xi32>
// CHECK-NEXT: %[[B:.+]] = jaxc.broadcast_in_dim %[[I]], dims = [0] : (tensor<4xi32>) -> tensor<4x3xi32>
// CHECK-NEXT: %[[R:.+]] = jaxc.mul %[[XS]], %[[B]] : tensor<4x3xi32>
// CHECK-NEXT: return %[[R]] : tensor<4x3xi32>
func.func private @index(%x: tensor<3xi32>) -> tensor<3xi32> {
  %i = jaxc.axis_index "i" : tensor<i32>
  %b = jaxc.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<3xi32>
  %0 = jaxc.mul %x, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}
func.func @axis_index(%xs: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %0 = jaxc.vmap @index(%xs) in_axes = [0] out_axes = [0] axis_size = 4 axis_name = "i" : (tensor<4x3xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

// Nested: the inner vmap ("j") leaves the psum and axis_index over "i"
// (per lane); the outer one ("i") then reduces over its own batch axis.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<4x2x3xf32>)
// CHECK-NEXT: %[[S:.+]] = jaxc.reduce sum %[[XS]], dims = [0] : tensor<4x2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[I:.+]] = jaxc.iota dim = 0 : tensor<4xi32>
// CHECK-NEXT: %[[IB:.+]] = jaxc.broadcast_in_dim %[[I]], dims = [0] : (tensor<4xi32>) -> tensor<4x2xi32>
// CHECK-NEXT: %[[SB:.+]] = jaxc.broadcast_in_dim %[[S]], dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[SB]], %[[IB]] : tensor<4x2x3xf32>, tensor<4x2xi32>
// CHECK-NOT: jaxc.psum
// CHECK-NOT: jaxc.axis_index
func.func private @inner(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>) {
  %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
  %i = jaxc.axis_index "i" : tensor<i32>
  return %s, %i : tensor<3xf32>, tensor<i32>
}
func.func private @outer(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xi32>) {
  %0:2 = jaxc.vmap @inner(%x) in_axes = [0] out_axes = [0, 0] axis_size = 2 axis_name = "j" : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2xi32>
}
func.func @nested(%xs: tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<4x2xi32>) {
  %0:2 = jaxc.vmap @outer(%xs) in_axes = [0] out_axes = [0, 0] axis_size = 4 axis_name = "i" : (tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<4x2xi32>)
  return %0#0, %0#1 : tensor<4x2x3xf32>, tensor<4x2xi32>
}

// -----

// ppermute: one gather of the sources; lanes nothing is sent to get zeros.
// CHECK-LABEL: func.func @ppermute
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<4x3xf32>)
// CHECK-DAG: %[[Z:.+]] = jaxc.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[MASK:.+]] = jaxc.constant dense<[false, true, true, true]> : tensor<4xi1>
// CHECK-DAG: %[[IDX:.+]] = jaxc.constant dense<{{\[}}[0], [0], [1], [2]]> : tensor<4x1xi32>
// CHECK: %[[G:.+]] = jaxc.gather %[[XS]][%[[IDX]]] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3]
// CHECK-NEXT: %[[MB:.+]] = jaxc.broadcast_in_dim %[[MASK]], dims = [0] : (tensor<4xi1>) -> tensor<4x3xi1>
// CHECK-NEXT: %[[R:.+]] = jaxc.select %[[MB]], %[[G]], %[[Z]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x3xf32>
func.func private @shift(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 2, 2, 3] : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @ppermute(%xs: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = jaxc.vmap @shift(%xs) in_axes = [0] out_axes = [0] axis_size = 4 axis_name = "i" : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// all_gather, tiled along dimension 1: the batch moves next to it and the
// two merge (lane-major), unbatched.
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<4x2x3xf32>)
// CHECK-NEXT: %[[T:.+]] = jaxc.transpose %[[XS]], perm = [1, 0, 2] : tensor<4x2x3xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT: %[[R:.+]] = jaxc.reshape %[[T]] : (tensor<2x4x3xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x12xf32>
func.func private @gather(%x: tensor<2x3xf32>) -> tensor<2x12xf32> {
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 1, axis_size = 4 tiled : tensor<2x3xf32> -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}
func.func @all_gather(%xs: tensor<4x2x3xf32>) -> tensor<2x12xf32> {
  %0 = jaxc.vmap @gather(%xs) in_axes = [0] out_axes = [-1] axis_size = 4 axis_name = "i" : (tensor<4x2x3xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}
