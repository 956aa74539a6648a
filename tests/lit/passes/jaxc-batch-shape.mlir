// jaxc-batch: the shape and indexing rules (passes/batching/shape.py), then jaxc-cleanup.
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-batch,jaxc-cleanup)' | FileCheck %s

// transpose: the permutation keeps the batch axis first; the move of the
// mapped axis 1 to the front folds into the same transpose.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x4x3xf32>)
// CHECK-NEXT: %[[T:.+]] = jaxc.transpose %[[X]], perm = [1, 2, 0] : tensor<2x4x3xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x3x2xf32>
// CHECK-NOT: func.func private
func.func private @tr(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
func.func @transpose(%xs: tensor<2x4x3xf32>) -> tensor<4x3x2xf32> {
  %0 = jaxc.vmap @tr(%xs) in_axes = [1] out_axes = [0] axis_size = 4 : (tensor<2x4x3xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// dynamic_slice with a batched start index and an unbatched operand: one
// gather, an index row per lane (the unbatched start repeated), no loop.
// CHECK-LABEL: func.func @dynamic_slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5x3xf32>, %[[I:[^:]+]]: tensor<4xi32>)
// CHECK-DAG: %[[ZERO:.+]] = jaxc.constant dense<0> : tensor<4x1xi32>
// CHECK-DAG: %[[COL:.+]] = jaxc.reshape %[[I]] : (tensor<4xi32>) -> tensor<4x1xi32>
// CHECK: %[[ROWS:.+]] = jaxc.concatenate(%[[COL]], %[[ZERO]]), dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
// CHECK-NEXT: %[[G:.+]] = jaxc.gather %[[X]][%[[ROWS]]] offset_dims = [1, 2], collapsed_slice_dims = [], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [2, 3] : (tensor<5x3xf32>, tensor<4x2xi32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x2x3xf32>
// CHECK-NOT: jaxc.dynamic_slice
func.func private @ds(%x: tensor<5x3xf32>, %i: tensor<i32>) -> tensor<2x3xf32> {
  %c0 = jaxc.constant dense<0> : tensor<i32>
  %0 = jaxc.dynamic_slice %x[%i, %c0], sizes = [2, 3] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @dynamic_slice(%x: tensor<5x3xf32>, %is: tensor<4xi32>) -> tensor<4x2x3xf32> {
  %0 = jaxc.vmap @ds(%x, %is) in_axes = [-1, 0] out_axes = [0] axis_size = 4 : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// concatenate with an unbatched operand: it is broadcast along the batch
// axis, the joined dimension moves up one; out_axes = [1] transposes last.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x2xf32>, %[[W:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[WB:.+]] = jaxc.broadcast_in_dim %[[W]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[C:.+]] = jaxc.concatenate(%[[X]], %[[WB]]), dim = 1 : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %[[T:.+]] = jaxc.transpose %[[C]], perm = [1, 0] : tensor<4x5xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<5x4xf32>
func.func private @cat(%x: tensor<2xf32>, %w: tensor<3xf32>) -> tensor<5xf32> {
  %0 = jaxc.concatenate(%x, %w), dim = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
func.func @concatenate(%xs: tensor<4x2xf32>, %w: tensor<3xf32>) -> tensor<5x4xf32> {
  %0 = jaxc.vmap @cat(%xs, %w) in_axes = [0, -1] out_axes = [1] axis_size = 4 : (tensor<4x2xf32>, tensor<3xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// scatter-add (x.at[i].add(u)) with batched operand and indices: the lane's
// position (an iota) leads each index vector and is one more inserted
// dimension; the unbatched update is broadcast; the combiner is kept.
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x5xf32>, %[[I:[^:]+]]: tensor<4x1xi32>, %[[U:[^:]+]]: tensor<f32>)
// CHECK-DAG: %[[UB:.+]] = jaxc.broadcast_in_dim %[[U]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-DAG: %[[LANE:.+]] = jaxc.iota dim = 0 : tensor<4x1xi32>
// CHECK: %[[IDX:.+]] = jaxc.concatenate(%[[LANE]], %[[I]]), dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
// CHECK-NEXT: %[[S:.+]] = jaxc.scatter %[[X]][%[[IDX]]], %[[UB]] update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 : (tensor<4x5xf32>, tensor<4x2xi32>, tensor<4xf32>) -> tensor<4x5xf32> {
// CHECK-NEXT: ^bb0(%[[OLD:[^:]+]]: tensor<f32>, %[[NEW:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[SUM:.+]] = jaxc.add %[[OLD]], %[[NEW]] : tensor<f32>
// CHECK-NEXT: jaxc.yield %[[SUM]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[S]] : tensor<4x5xf32>
func.func private @sc(%x: tensor<5xf32>, %i: tensor<1xi32>, %u: tensor<f32>) -> tensor<5xf32> {
  %0 = jaxc.scatter %x[%i], %u update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 0 : (tensor<5xf32>, tensor<1xi32>, tensor<f32>) -> tensor<5xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = jaxc.add %old, %new : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %0 : tensor<5xf32>
}
func.func @scatter(%xs: tensor<4x5xf32>, %is: tensor<4x1xi32>, %u: tensor<f32>) -> tensor<4x5xf32> {
  %0 = jaxc.vmap @sc(%xs, %is, %u) in_axes = [0, 0, -1] out_axes = [0] axis_size = 4 : (tensor<4x5xf32>, tensor<4x1xi32>, tensor<f32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// An empty batch: an op without regions or callees whose operands are
// batched is just its empty result (the gather rule would build a window of
// 1 on the size-0 batch axis, which does not verify).
// CHECK-LABEL: func.func @empty_batch_gather
// CHECK-NEXT: %[[E:.+]] = jaxc.constant dense<{{.+}}> : tensor<0x2xf32>
// CHECK-NEXT: return %[[E]] : tensor<0x2xf32>
func.func private @take(%x: tensor<3xf32>, %i: tensor<2xi32>) -> tensor<2xf32> {
  %idx = jaxc.reshape %i : (tensor<2xi32>) -> tensor<2x1xi32>
  %0 = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1] : (tensor<3xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @empty_batch_gather(%xs: tensor<0x3xf32>, %is: tensor<0x2xi32>) -> tensor<0x2xf32> {
  %0 = jaxc.vmap @take(%xs, %is) in_axes = [0, 0] out_axes = [0] axis_size = 0 : (tensor<0x3xf32>, tensor<0x2xi32>) -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}
