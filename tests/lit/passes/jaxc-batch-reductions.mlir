// jaxc-batch: reductions, sort, top_k and convolution under vmap (then jaxc-cleanup).
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-cleanup)' | FileCheck %s

// A reduce over two dimensions: the batch axis moves to the front, the
// reduced dimensions shift past it, the result moves to out_axes = 1.
// CHECK-LABEL: func.func @total_vmap
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<2x8x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = jaxc.transpose %[[XS]], perm = [1, 0, 2, 3] : tensor<2x8x3x4xf32> -> tensor<8x2x3x4xf32>
// CHECK-NEXT: %[[R:.+]] = jaxc.reduce max %[[T]], dims = [1, 3] : tensor<8x2x3x4xf32> -> tensor<8x3xf32>
// CHECK-NEXT: %[[O:.+]] = jaxc.transpose %[[R]], perm = [1, 0] : tensor<8x3xf32> -> tensor<3x8xf32>
// CHECK-NEXT: return %[[O]] : tensor<3x8xf32>
// CHECK-NOT: func.func private
func.func private @total(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = jaxc.reduce max %x, dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @total_vmap(%xs: tensor<2x8x3x4xf32>) -> tensor<3x8xf32> {
  %y = jaxc.vmap @total(%xs) in_axes = [1] out_axes = [1] axis_size = 8 : (tensor<2x8x3x4xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// A key-value sort with unbatched keys and batched values: the keys are
// broadcast (each lane permutes its own copy), one sort along dim 0 + 1.
// CHECK-LABEL: func.func @by_key_vmap
// CHECK-SAME: (%[[K:[^:]+]]: tensor<5xi32>, %[[VS:[^:]+]]: tensor<8x5xf32>)
// CHECK-NEXT: %[[KS:.+]] = jaxc.broadcast_in_dim %[[K]], dims = [1] : (tensor<5xi32>) -> tensor<8x5xi32>
// CHECK-NEXT: %[[S:.+]]:2 = jaxc.sort(%[[KS]], %[[VS]]), dim = 1, num_keys = 1 stable : tensor<8x5xi32>, tensor<8x5xf32>
// CHECK-NEXT: return %[[S]]#0, %[[S]]#1 : tensor<8x5xi32>, tensor<8x5xf32>
func.func private @by_key(%k: tensor<5xi32>, %v: tensor<5xf32>) -> (tensor<5xi32>, tensor<5xf32>) {
  %0, %1 = jaxc.sort(%k, %v), dim = 0, num_keys = 1 stable : tensor<5xi32>, tensor<5xf32>
  return %0, %1 : tensor<5xi32>, tensor<5xf32>
}
func.func @by_key_vmap(%k: tensor<5xi32>, %vs: tensor<8x5xf32>) -> (tensor<8x5xi32>, tensor<8x5xf32>) {
  %a, %b = jaxc.vmap @by_key(%k, %vs) in_axes = [-1, 0] out_axes = [0, 0] axis_size = 8 : (tensor<5xi32>, tensor<8x5xf32>) -> (tensor<8x5xi32>, tensor<8x5xf32>)
  return %a, %b : tensor<8x5xi32>, tensor<8x5xf32>
}

// -----

// An NHWC convolution with a batched lhs: the batch axis folds into the
// conv's own batch dimension (8 x 2 = 16 images) and is split off the result.
// CHECK-LABEL: func.func @conv_vmap
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<8x2x6x6x3xf32>, %[[W:[^:]+]]: tensor<3x3x3x4xf32>)
// CHECK-NEXT: %[[X:.+]] = jaxc.reshape %[[XS]] : (tensor<8x2x6x6x3xf32>) -> tensor<16x6x6x3xf32>
// CHECK-NEXT: %[[Y:.+]] = jaxc.conv_general_dilated %[[X]], %[[W]], {{.*}} lhs_spec = [0, 3, 1, 2], rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<16x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<16x4x4x4xf32>
// CHECK-NEXT: %[[YS:.+]] = jaxc.reshape %[[Y]] : (tensor<16x4x4x4xf32>) -> tensor<8x2x4x4x4xf32>
// CHECK-NEXT: return %[[YS]] : tensor<8x2x4x4x4xf32>
func.func private @conv(%x: tensor<2x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<2x4x4x4xf32> {
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 3, 1, 2], rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}
func.func @conv_vmap(%xs: tensor<8x2x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<8x2x4x4x4xf32> {
  %y = jaxc.vmap @conv(%xs, %w) in_axes = [0, -1] out_axes = [0] axis_size = 8 : (tensor<8x2x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<8x2x4x4x4xf32>
  return %y : tensor<8x2x4x4x4xf32>
}

// -----

// top_k works along the last axis at every position of the others: the
// batch axis (here the last) moves to the front, one top_k, the indices
// moved to out_axes = 1.
// CHECK-LABEL: func.func @best_vmap
// CHECK-SAME: (%[[XS:[^:]+]]: tensor<5x8xf32>)
// CHECK-NEXT: %[[T:.+]] = jaxc.transpose %[[XS]], perm = [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
// CHECK-NEXT: %[[V:.+]], %[[I:.+]] = jaxc.top_k %[[T]], k = 2 : tensor<8x5xf32>
// CHECK-NEXT: %[[O:.+]] = jaxc.transpose %[[I]], perm = [1, 0] : tensor<8x2xi32> -> tensor<2x8xi32>
// CHECK-NEXT: return %[[V]], %[[O]] : tensor<8x2xf32>, tensor<2x8xi32>
func.func private @best(%x: tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %v, %i = jaxc.top_k %x, k = 2 : tensor<5xf32>
  return %v, %i : tensor<2xf32>, tensor<2xi32>
}
func.func @best_vmap(%xs: tensor<5x8xf32>) -> (tensor<8x2xf32>, tensor<2x8xi32>) {
  %a, %b = jaxc.vmap @best(%xs) in_axes = [1] out_axes = [0, 1] axis_size = 8 : (tensor<5x8xf32>) -> (tensor<8x2xf32>, tensor<2x8xi32>)
  return %a, %b : tensor<8x2xf32>, tensor<2x8xi32>
}
