// Round-trip tests for gather and scatter (XLA dimension numbers). The
// gather result shapes are worked out in comments: batch dimensions are the
// indices' dimensions but index_vector_dim, offset dimensions are the
// slice_sizes of the operand dimensions that are not collapsed, placed at
// offset_dims.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// x[idx]: batch [2], offsets [3] at dimension 1 -> 2x3.
// CHECK-LABEL: func.func @gather_rows(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x3xf32>, %[[IDX:[a-z0-9_]+]]: tensor<2x1xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[IDX]]] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x3xf32>
func.func @gather_rows(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// index_vector_dim = rank of the indices: an implicit trailing index vector
// of length 1; batch [4], offsets [3] -> 4x3.
// CHECK-LABEL: func.func @gather_implicit_index_vector(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x3xbf16>, %[[IDX:[a-z0-9_]+]]: tensor<4xui8>) -> tensor<4x3xbf16>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[IDX]]] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] indices_are_sorted : (tensor<5x3xbf16>, tensor<4xui8>) -> tensor<4x3xbf16>
// CHECK-NEXT: return %[[G]] : tensor<4x3xbf16>
func.func @gather_implicit_index_vector(%x: tensor<5x3xbf16>, %idx: tensor<4xui8>) -> tensor<4x3xbf16> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] indices_are_sorted : (tensor<5x3xbf16>, tensor<4xui8>) -> tensor<4x3xbf16>
  return %g : tensor<4x3xbf16>
}

// Two coordinates per index: batch [3], dimensions 0 and 1 collapsed,
// offsets [6] -> 3x6.
// CHECK-LABEL: func.func @gather_points(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x5x6xf64>, %[[IDX:[a-z0-9_]+]]: tensor<3x2xi64>) -> tensor<3x6xf64>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[IDX]]] offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1, 6] : (tensor<4x5x6xf64>, tensor<3x2xi64>) -> tensor<3x6xf64>
// CHECK-NEXT: return %[[G]] : tensor<3x6xf64>
func.func @gather_points(%x: tensor<4x5x6xf64>, %idx: tensor<3x2xi64>) -> tensor<3x6xf64> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1, 6] : (tensor<4x5x6xf64>, tensor<3x2xi64>) -> tensor<3x6xf64>
  return %g : tensor<3x6xf64>
}

// Nothing collapsed, offset dimensions around the batch dimensions: batch
// [2, 3], offsets [8, 2] at dimensions 0 and 3 -> 8x2x3x2.
// CHECK-LABEL: func.func @gather_windows(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x6xi16>, %[[IDX:[a-z0-9_]+]]: tensor<2x3x1xui32>) -> tensor<8x2x3x2xi16>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[IDX]]] offset_dims = [0, 3], collapsed_slice_dims = [], start_index_map = [1], index_vector_dim = 2, slice_sizes = [8, 2] : (tensor<8x6xi16>, tensor<2x3x1xui32>) -> tensor<8x2x3x2xi16>
// CHECK-NEXT: return %[[G]] : tensor<8x2x3x2xi16>
func.func @gather_windows(%x: tensor<8x6xi16>, %idx: tensor<2x3x1xui32>) -> tensor<8x2x3x2xi16> {
  %g = jaxc.gather %x[%idx] offset_dims = [0, 3], collapsed_slice_dims = [], start_index_map = [1], index_vector_dim = 2, slice_sizes = [8, 2] : (tensor<8x6xi16>, tensor<2x3x1xui32>) -> tensor<8x2x3x2xi16>
  return %g : tensor<8x2x3x2xi16>
}

// index_vector_dim = 0: indices 1x3 are three index vectors of length 1;
// batch [3], offsets [2] -> 3x2.
// CHECK-LABEL: func.func @gather_leading_index_vector(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<7xi8>, %[[IDX:[a-z0-9_]+]]: tensor<1x3xi32>) -> tensor<3x2xi8>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[IDX]]] offset_dims = [1], collapsed_slice_dims = [], start_index_map = [0], index_vector_dim = 0, slice_sizes = [2] : (tensor<7xi8>, tensor<1x3xi32>) -> tensor<3x2xi8>
// CHECK-NEXT: return %[[G]] : tensor<3x2xi8>
func.func @gather_leading_index_vector(%x: tensor<7xi8>, %idx: tensor<1x3xi32>) -> tensor<3x2xi8> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [], start_index_map = [0], index_vector_dim = 0, slice_sizes = [2] : (tensor<7xi8>, tensor<1x3xi32>) -> tensor<3x2xi8>
  return %g : tensor<3x2xi8>
}

// No indices: batch [0] -> 0x3; a 0-d result from a full collapse.
// CHECK-LABEL: func.func @gather_empty_and_scalar(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x3xi1>, %[[NONE:[a-z0-9_]+]]: tensor<0x1xi32>, %[[PT:[a-z0-9_]+]]: tensor<2xi32>) -> (tensor<0x3xi1>, tensor<i1>)
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[NONE]]] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xi1>, tensor<0x1xi32>) -> tensor<0x3xi1>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.gather %[[X]][%[[PT]]] offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0, slice_sizes = [1, 1] : (tensor<5x3xi1>, tensor<2xi32>) -> tensor<i1>
// CHECK-NEXT: return %[[G]], %[[S]] : tensor<0x3xi1>, tensor<i1>
func.func @gather_empty_and_scalar(%x: tensor<5x3xi1>, %none: tensor<0x1xi32>, %pt: tensor<2xi32>) -> (tensor<0x3xi1>, tensor<i1>) {
  %g = jaxc.gather %x[%none] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xi1>, tensor<0x1xi32>) -> tensor<0x3xi1>
  %s = jaxc.gather %x[%pt] offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0, slice_sizes = [1, 1] : (tensor<5x3xi1>, tensor<2xi32>) -> tensor<i1>
  return %g, %s : tensor<0x3xi1>, tensor<i1>
}

// x.at[idx].add(upd)
// CHECK-LABEL: func.func @scatter_add(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x3xf32>, %[[IDX:[a-z0-9_]+]]: tensor<2x1xi32>, %[[UPD:[a-z0-9_]+]]: tensor<2x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.scatter %[[X]][%[[IDX]]], %[[UPD]] update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
// CHECK-NEXT: ^bb0(%[[OLD:[a-z0-9_]+]]: tensor<f32>, %[[NEW:[a-z0-9_]+]]: tensor<f32>):
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.add %[[OLD]], %[[NEW]] : tensor<f32>
// CHECK-NEXT: jaxc.yield %[[S]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<5x3xf32>
func.func @scatter_add(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %upd: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %r = jaxc.scatter %x[%idx], %upd update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = jaxc.add %old, %new : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %r : tensor<5x3xf32>
}

// x.at[idx].set(upd) with both hints.
// CHECK-LABEL: func.func @scatter_set(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<6xui16>, %[[IDX:[a-z0-9_]+]]: tensor<3xi64>, %[[UPD:[a-z0-9_]+]]: tensor<3xui16>) -> tensor<6xui16>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.scatter %[[X]][%[[IDX]]], %[[UPD]] update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 indices_are_sorted unique_indices : (tensor<6xui16>, tensor<3xi64>, tensor<3xui16>) -> tensor<6xui16> {
// CHECK-NEXT: ^bb0(%[[OLD:[a-z0-9_]+]]: tensor<ui16>, %[[NEW:[a-z0-9_]+]]: tensor<ui16>):
// CHECK-NEXT: jaxc.yield %[[NEW]] : tensor<ui16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<6xui16>
func.func @scatter_set(%x: tensor<6xui16>, %idx: tensor<3xi64>, %upd: tensor<3xui16>) -> tensor<6xui16> {
  %r = jaxc.scatter %x[%idx], %upd update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 indices_are_sorted unique_indices : (tensor<6xui16>, tensor<3xi64>, tensor<3xui16>) -> tensor<6xui16> {
  ^bb0(%old: tensor<ui16>, %new: tensor<ui16>):
    jaxc.yield %new : tensor<ui16>
  }
  return %r : tensor<6xui16>
}

// x.at[i, j].max(upd) with two coordinates per index.
// CHECK-LABEL: func.func @scatter_points_max(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x5xi32>, %[[IDX:[a-z0-9_]+]]: tensor<3x2xi64>, %[[UPD:[a-z0-9_]+]]: tensor<3xi32>) -> tensor<4x5xi32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.scatter %[[X]][%[[IDX]]], %[[UPD]] update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 unique_indices : (tensor<4x5xi32>, tensor<3x2xi64>, tensor<3xi32>) -> tensor<4x5xi32> {
// CHECK-NEXT: ^bb0(%[[OLD:[a-z0-9_]+]]: tensor<i32>, %[[NEW:[a-z0-9_]+]]: tensor<i32>):
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.max %[[OLD]], %[[NEW]] : tensor<i32>
// CHECK-NEXT: jaxc.yield %[[M]] : tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x5xi32>
func.func @scatter_points_max(%x: tensor<4x5xi32>, %idx: tensor<3x2xi64>, %upd: tensor<3xi32>) -> tensor<4x5xi32> {
  %r = jaxc.scatter %x[%idx], %upd update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 unique_indices : (tensor<4x5xi32>, tensor<3x2xi64>, tensor<3xi32>) -> tensor<4x5xi32> {
  ^bb0(%old: tensor<i32>, %new: tensor<i32>):
    %m = jaxc.max %old, %new : tensor<i32>
    jaxc.yield %m : tensor<i32>
  }
  return %r : tensor<4x5xi32>
}

// Window updates smaller than the operand, no updates at all.
// CHECK-LABEL: func.func @scatter_windows(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x6xf16>, %[[IDX:[a-z0-9_]+]]: tensor<2x1xui8>, %[[UPD:[a-z0-9_]+]]: tensor<2x4x3xf16>, %[[NONE:[a-z0-9_]+]]: tensor<0x1xui8>, %[[EMPTY:[a-z0-9_]+]]: tensor<0x4x3xf16>) -> (tensor<4x6xf16>, tensor<4x6xf16>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.scatter %[[X]][%[[IDX]]], %[[UPD]] update_window_dims = [1, 2], inserted_window_dims = [], scatter_dims_to_operand_dims = [1], index_vector_dim = 1 : (tensor<4x6xf16>, tensor<2x1xui8>, tensor<2x4x3xf16>) -> tensor<4x6xf16> {
// CHECK-NEXT: ^bb0(%[[OLD:[a-z0-9_]+]]: tensor<f16>, %[[NEW:[a-z0-9_]+]]: tensor<f16>):
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.mul %[[OLD]], %[[NEW]] : tensor<f16>
// CHECK-NEXT: jaxc.yield %[[S]] : tensor<f16>
// CHECK-NEXT: }
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.scatter %[[X]][%[[NONE]]], %[[EMPTY]] update_window_dims = [1, 2], inserted_window_dims = [], scatter_dims_to_operand_dims = [1], index_vector_dim = 1 : (tensor<4x6xf16>, tensor<0x1xui8>, tensor<0x4x3xf16>) -> tensor<4x6xf16> {
// CHECK-NEXT: ^bb0(%[[OLD:[a-z0-9_]+]]: tensor<f16>, %[[NEW:[a-z0-9_]+]]: tensor<f16>):
// CHECK-NEXT: jaxc.yield %[[OLD]] : tensor<f16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]], %[[E]] : tensor<4x6xf16>, tensor<4x6xf16>
func.func @scatter_windows(%x: tensor<4x6xf16>, %idx: tensor<2x1xui8>, %upd: tensor<2x4x3xf16>, %none: tensor<0x1xui8>, %empty: tensor<0x4x3xf16>) -> (tensor<4x6xf16>, tensor<4x6xf16>) {
  %r = jaxc.scatter %x[%idx], %upd update_window_dims = [1, 2], inserted_window_dims = [], scatter_dims_to_operand_dims = [1], index_vector_dim = 1 : (tensor<4x6xf16>, tensor<2x1xui8>, tensor<2x4x3xf16>) -> tensor<4x6xf16> {
  ^bb0(%old: tensor<f16>, %new: tensor<f16>):
    %s = jaxc.mul %old, %new : tensor<f16>
    jaxc.yield %s : tensor<f16>
  }
  %e = jaxc.scatter %x[%none], %empty update_window_dims = [1, 2], inserted_window_dims = [], scatter_dims_to_operand_dims = [1], index_vector_dim = 1 : (tensor<4x6xf16>, tensor<0x1xui8>, tensor<0x4x3xf16>) -> tensor<4x6xf16> {
  ^bb0(%old: tensor<f16>, %new: tensor<f16>):
    jaxc.yield %old : tensor<f16>
  }
  return %r, %e : tensor<4x6xf16>, tensor<4x6xf16>
}
