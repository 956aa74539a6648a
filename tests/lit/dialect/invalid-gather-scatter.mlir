// Invalid gather and scatter: XLA dimension numbers and the scatter region.
// The valid base case of every gather is x[idx] with x : 5x3, idx : 2x1; of
// every scatter, its inverse with updates : 2x3.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @gather_index_vector_dim_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op index_vector_dim 3 must be in [0, 2] for indices 'tensor<2x1xi32>'}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 3, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_index_vector_dim_negative(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op index_vector_dim -1 must be in [0, 2] for indices 'tensor<2x1xi32>'}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = -1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_slice_sizes_count(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op slice_sizes has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_collapsed_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op collapsed_slice_dims[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [2], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_collapsed_repeats(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op collapsed_slice_dims repeats dimension 0}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0, 0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_start_index_map_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op start_index_map[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [2], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_start_index_map_size(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op start_index_map has 2 entries but the index vector of 'tensor<2x1xi32>' has 1}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

// index_vector_dim == rank(indices): the index vector has length 1.
func.func @gather_implicit_index_vector(%x: tensor<5x3xf32>, %idx: tensor<2xi32>) {
  // expected-error @+2 {{'jaxc.gather' op start_index_map has 2 entries but the index vector of 'tensor<2xi32>' has 1}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_collapsed_not_sorted(%x: tensor<5x3xf32>, %idx: tensor<2x2xi32>) {
  // expected-error @+2 {{'jaxc.gather' op collapsed_slice_dims must be sorted and unique, got [1, 0]}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [1, 0], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_offset_dims_not_sorted(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op offset_dims must be sorted and unique, got [2, 1]}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [2, 1], collapsed_slice_dims = [], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x1x3xf32>
  return
}

// -----

func.func @gather_slice_size_too_large(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op slice_sizes[1] = 4 must be in [0, 3] for operand 'tensor<5x3xf32>'}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 4] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_collapsed_slice_size(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op collapsed dimension 0 has slice size 2; collapsed slices must have size <= 1}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [2, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_offset_dims_count(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op offset_dims has 0 entries but operand rank 2 minus 1 collapsed dimensions is 1}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_offset_dims_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op offset_dims[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_wrong_result_type(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.gather' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'jaxc.gather' op failed to infer returned types}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<5x3xf32>, %idx: tensor<2x1xf32>) {
  // expected-error @+1 {{'jaxc.gather' op operand #1 must be statically shaped tensor of jaxc integer values, but got 'tensor<2x1xf32>'}}
  %0 = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_updates_element_type(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xi32>) {
  // expected-error @+1 {{'jaxc.scatter' op updates 'tensor<2x3xi32>' must have the element type of operand 'tensor<5x3xf32>'}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xi32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_index_vector_dim_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op index_vector_dim 3 must be in [0, 2] for indices 'tensor<2x1xi32>'}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 3 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_inserted_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op inserted_window_dims[0] = 2 is out of range for rank 2}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [2], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_dims_to_operand_dims_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op scatter_dims_to_operand_dims[0] = 5 is out of range for rank 2}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [5], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_update_window_dims_out_of_range(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update_window_dims[0] = 2 is out of range for rank 2 of the updates}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_dims_to_operand_dims_size(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op scatter_dims_to_operand_dims has 2 entries but the index vector of 'tensor<2x1xi32>' has 1}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_inserted_not_sorted(%x: tensor<5x3xf32>, %idx: tensor<2x2xi32>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op inserted_window_dims must be sorted and unique, got [1, 0]}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [], inserted_window_dims = [1, 0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x2xi32>, tensor<2xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_window_plus_inserted_not_rank(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update_window_dims (1) plus inserted_window_dims (0) must equal the operand rank 2}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_updates_rank(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op updates 'tensor<2x1x3xf32>' must have rank 2 (scatter batch dims plus update_window_dims)}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x1x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_window_too_large(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update window dimension 1 of size 4 exceeds operand dimension 1 of 'tensor<5x3xf32>'}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_batch_size_differs(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op updates 'tensor<3x3xf32>' dimension 0 must match the scatter batch size 2 of indices 'tensor<2x1xi32>'}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<3x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_region_arguments(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update_computation region takes ('tensor<f32>') but must take ('tensor<f32>', 'tensor<f32>')}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}

// -----

func.func @scatter_region_yield_type(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update_computation region yields ('tensor<f32>', 'tensor<f32>') but must yield ('tensor<f32>')}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %old, %new : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @scatter_region_terminator(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op update_computation region must end in jaxc.yield}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    llvm.unreachable
  }
  return
}

// -----

func.func @scatter_empty_region(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.scatter' op region #0 ('update_computation') failed to verify constraint: region with 1 blocks}}
  %0 = "jaxc.scatter"(%x, %idx, %u) ({}) {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @scatter_wrong_result_type(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.scatter' op inferred type(s) 'tensor<5x3xf32>' are incompatible with return type(s) of operation 'tensor<3x5xf32>'}}
  // expected-error @+1 {{'jaxc.scatter' op failed to infer returned types}}
  %0 = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<3x5xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    jaxc.yield %new : tensor<f32>
  }
  return
}
