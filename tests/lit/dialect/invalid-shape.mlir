// Invalid shape ops: broadcast_in_dim reshape transpose reverse slice
// dynamic_slice dynamic_update_slice concatenate pad squeeze expand_dims.
// (gather and scatter: invalid-gather-scatter.mlir.)
// Ops whose result type is written out are checked by type inference during
// verification; MLIR then adds "failed to infer returned types".
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @broadcast_in_dim_element_type_differs(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op operand 'tensor<3xf32>' and result 'tensor<2x3xf64>' must have the same element type}}
  %0 = jaxc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @broadcast_in_dim_too_many_dimensions(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op broadcast_dimensions has 2 entries but the operand 'tensor<3xf32>' has rank 1}}
  %0 = jaxc.broadcast_in_dim %x, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_in_dim_dimension_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op broadcast_dimensions[0] = 2 is out of range for the result 'tensor<2x3xf32>' of rank 2}}
  %0 = jaxc.broadcast_in_dim %x, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_in_dim_dimension_negative(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op broadcast_dimensions[0] = -1 is out of range for the result 'tensor<2x3xf32>' of rank 2}}
  %0 = jaxc.broadcast_in_dim %x, dims = [-1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_in_dim_not_increasing(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op broadcast_dimensions must be strictly increasing, got array<i64: 2, 1>}}
  %0 = jaxc.broadcast_in_dim %x, dims = [2, 1] : (tensor<2x3xf32>) -> tensor<3x3x2xf32>
  return
}

// -----

func.func @broadcast_in_dim_size_mismatch(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.broadcast_in_dim' op operand dimension 0 of size 3 cannot broadcast to result dimension 1 of size 4 (operand 'tensor<3xf32>', result 'tensor<2x4xf32>')}}
  %0 = jaxc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @reshape_changes_element_count(%x: tensor<6xf32>) {
  // expected-error @+1 {{'jaxc.reshape' op cannot reshape 'tensor<6xf32>' (6 elements) into 'tensor<4x2xf32>' (8 elements)}}
  %0 = jaxc.reshape %x : (tensor<6xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_changes_element_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{'jaxc.reshape' op operand 'tensor<6xf32>' and result 'tensor<2x3xi32>' must have the same element type}}
  %0 = jaxc.reshape %x : (tensor<6xf32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @reshape_to_dynamic(%x: tensor<6xf32>) {
  // expected-error @+1 {{'jaxc.reshape' op result #0 must be statically shaped tensor of jaxc element type values, but got 'tensor<?xf32>'}}
  %0 = jaxc.reshape %x : (tensor<6xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @transpose_permutation_too_short(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.transpose' op permutation has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.transpose' op failed to infer returned types}}
  %0 = jaxc.transpose %x, perm = [0] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @transpose_permutation_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.transpose' op permutation[1] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.transpose' op failed to infer returned types}}
  %0 = jaxc.transpose %x, perm = [0, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_permutation_repeats(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.transpose' op permutation repeats dimension 1}}
  // expected-error @+1 {{'jaxc.transpose' op failed to infer returned types}}
  %0 = jaxc.transpose %x, perm = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_wrong_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.transpose' op failed to infer returned types}}
  %0 = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// reverse infers its result while parsing: one error, no "failed to infer".
func.func @reverse_dimension_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.reverse' op dimensions[0] = 2 is out of range for rank 2}}
  %0 = jaxc.reverse %x, dims = [2] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_dimension_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.reverse' op dimensions[1] = -1 is out of range for rank 2}}
  %0 = jaxc.reverse %x, dims = [0, -1] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_dimension_repeats(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.reverse' op dimensions repeats dimension 0}}
  %0 = jaxc.reverse %x, dims = [0, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_of_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'jaxc.reverse' op operand must be a statically shaped tensor, got 'tensor<?x3xf32>'}}
  %0 = jaxc.reverse %x, dims = [0] : tensor<?x3xf32>
  return
}

// -----

func.func @slice_start_indices_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op start_indices has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0], limit = [2, 3], strides = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_limit_indices_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op limit_indices has 3 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 0], limit = [2, 3, 1], strides = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_strides_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op strides has 0 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 0], limit = [2, 3], strides = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_start_after_limit(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op dimension 1: need 0 <= start (2) <= limit (1) <= size (3) and stride (1) >= 1 for operand 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 2], limit = [2, 1], strides = [1, 1] : tensor<2x3xf32> -> tensor<2x0xf32>
  return
}

// -----

func.func @slice_limit_past_end(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op dimension 0: need 0 <= start (0) <= limit (3) <= size (2) and stride (1) >= 1 for operand 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 0], limit = [3, 3], strides = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op dimension 0: need 0 <= start (-1) <= limit (2) <= size (2) and stride (1) >= 1 for operand 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [-1, 0], limit = [2, 3], strides = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @slice_zero_stride(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.slice' op dimension 1: need 0 <= start (0) <= limit (3) <= size (3) and stride (0) >= 1 for operand 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 0], limit = [2, 3], strides = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_wrong_result_type(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{'jaxc.slice' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf32>'}}
  // expected-error @+1 {{'jaxc.slice' op failed to infer returned types}}
  %0 = jaxc.slice %x, start = [0, 0], limit = [2, 6], strides = [1, 2] : tensor<2x6xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @dynamic_slice_too_few_start_indices(%x: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_slice' op has 1 start indices but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.dynamic_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_slice %x[%i], sizes = [1, 2] : (tensor<4x4xf32>, tensor<i32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_slice_sizes_count(%x: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_slice' op slice_sizes has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.dynamic_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_slice %x[%i, %i], sizes = [1] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1xf32>
  return
}

// -----

func.func @dynamic_slice_size_too_large(%x: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_slice' op slice_sizes[1] = 5 must be in [0, 4] for operand 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'jaxc.dynamic_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_slice %x[%i, %i], sizes = [1, 5] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @dynamic_slice_size_negative(%x: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_slice' op slice_sizes[0] = -1 must be in [0, 4] for operand 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'jaxc.dynamic_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_slice %x[%i, %i], sizes = [-1, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_slice_float_index(%x: tensor<4x4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{'jaxc.dynamic_slice' op operand #1 must be variadic of 0D tensor of jaxc integer values, but got 'tensor<f32>'}}
  %0 = jaxc.dynamic_slice %x[%i, %i], sizes = [1, 2] : (tensor<4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_slice_index_not_0d(%x: tensor<4x4xf32>, %i: tensor<1xi32>) {
  // expected-error @+1 {{'jaxc.dynamic_slice' op operand #1 must be variadic of 0D tensor of jaxc integer values, but got 'tensor<1xi32>'}}
  %0 = jaxc.dynamic_slice %x[%i, %i], sizes = [1, 2] : (tensor<4x4xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_update_slice_too_many_start_indices(%x: tensor<4x4xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_update_slice' op has 3 start indices but the operand has rank 2}}
  // expected-error @+1 {{'jaxc.dynamic_update_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_update_slice %x, %u[%i, %i, %i] : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_update_slice_update_rank(%x: tensor<4x4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_update_slice' op update 'tensor<2xf32>' must have the rank and element type of the operand 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'jaxc.dynamic_update_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_update_slice %x, %u[%i, %i] : (tensor<4x4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_update_slice_update_element_type(%x: tensor<4x4xf32>, %u: tensor<1x2xi32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_update_slice' op update 'tensor<1x2xi32>' must have the rank and element type of the operand 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'jaxc.dynamic_update_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_update_slice %x, %u[%i, %i] : (tensor<4x4xf32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_update_slice_update_too_large(%x: tensor<4x4xf32>, %u: tensor<5x1xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{'jaxc.dynamic_update_slice' op update 'tensor<5x1xf32>' is larger than the operand 'tensor<4x4xf32>' in dimension 0}}
  // expected-error @+1 {{'jaxc.dynamic_update_slice' op failed to infer returned types}}
  %0 = jaxc.dynamic_update_slice %x, %u[%i, %i] : (tensor<4x4xf32>, tensor<5x1xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----

// No inputs: only the generic form can write that.
func.func @concatenate_no_inputs() {
  // expected-error @+2 {{'jaxc.concatenate' op needs at least one input}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = "jaxc.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

// Concatenating along a dimension the inputs do not have.
func.func @concatenate_missing_dimension(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op concatenate dimension 2 is out of range for inputs of rank 2}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %y), dim = 2 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concatenate_negative_dimension(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op concatenate dimension -1 is out of range for inputs of rank 2}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %x), dim = -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concatenate_of_0d(%x: tensor<f32>) {
  // expected-error @+2 {{'jaxc.concatenate' op concatenate dimension 0 is out of range for inputs of rank 0}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %x), dim = 0 : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @concatenate_other_dimension_differs(%x: tensor<2x3xf32>, %y: tensor<1x4xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op input #1 of type 'tensor<1x4xf32>' must match input #0 'tensor<2x3xf32>' in element type and in every dimension but 0}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %y), dim = 0 : (tensor<2x3xf32>, tensor<1x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concatenate_element_type_differs(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<2x1xi32>) {
  // expected-error @+2 {{'jaxc.concatenate' op input #2 of type 'tensor<2x1xi32>' must match input #0 'tensor<2x3xf32>' in element type and in every dimension but 1}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %y, %z), dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @concatenate_rank_differs(%x: tensor<2x3xf32>, %y: tensor<2xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op input #1 of type 'tensor<2xf32>' must match input #0 'tensor<2x3xf32>' in element type and in every dimension but 0}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %y), dim = 0 : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concatenate_wrong_result_type(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op inferred type(s) 'tensor<3x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = jaxc.concatenate(%x, %y), dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_value_element_type(%x: tensor<3xf32>, %v: tensor<i32>) {
  // expected-error @+2 {{'jaxc.pad' op padding_value 'tensor<i32>' must have the element type of the operand 'tensor<3xf32>'}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [1], high = [0], interior = [0] : (tensor<3xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_value_not_0d(%x: tensor<3xf32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'jaxc.pad' op operand #1 must be 0D tensor of jaxc element type values, but got 'tensor<1xf32>'}}
  %0 = jaxc.pad %x, %v, low = [1], high = [0], interior = [0] : (tensor<3xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_low_count(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op edge_padding_low has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [1, 0], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_high_count(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op edge_padding_high has 0 entries but the operand has rank 1}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [1], high = [], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_interior_count(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op interior_padding has 2 entries but the operand has rank 1}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [1], high = [0], interior = [0, 0] : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_negative_interior(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op interior_padding[0] = -1 must be >= 0}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [0], high = [0], interior = [-1] : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// Negative edge padding crops; cropping more than the whole dimension fails.
func.func @pad_negative_size(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op padding dimension 0 of 'tensor<3xf32>' gives a negative size}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [-4], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<0xf32>
  return
}

// -----

func.func @squeeze_dimension_not_1(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{'jaxc.squeeze' op cannot squeeze dimension 1 of size 3 in 'tensor<1x3xf32>'}}
  // expected-error @+1 {{'jaxc.squeeze' op failed to infer returned types}}
  %0 = jaxc.squeeze %x, dims = [1] : tensor<1x3xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_dimension_out_of_range(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{'jaxc.squeeze' op dimensions[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.squeeze' op failed to infer returned types}}
  %0 = jaxc.squeeze %x, dims = [2] : tensor<1x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @squeeze_dimension_repeats(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{'jaxc.squeeze' op dimensions repeats dimension 0}}
  // expected-error @+1 {{'jaxc.squeeze' op failed to infer returned types}}
  %0 = jaxc.squeeze %x, dims = [0, 0] : tensor<1x3xf32> -> tensor<3xf32>
  return
}

// -----

// expand_dims positions are dimensions of the result.
func.func @expand_dims_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.expand_dims' op dimensions[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.expand_dims' op failed to infer returned types}}
  %0 = jaxc.expand_dims %x, dims = [2] : tensor<3xf32> -> tensor<3x1xf32>
  return
}

// -----

func.func @expand_dims_repeats(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.expand_dims' op dimensions repeats dimension 0}}
  // expected-error @+1 {{'jaxc.expand_dims' op failed to infer returned types}}
  %0 = jaxc.expand_dims %x, dims = [0, 0] : tensor<3xf32> -> tensor<1x1x3xf32>
  return
}

// -----

func.func @expand_dims_wrong_result_type(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.expand_dims' op inferred type(s) 'tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<3x1xf32>'}}
  // expected-error @+1 {{'jaxc.expand_dims' op failed to infer returned types}}
  %0 = jaxc.expand_dims %x, dims = [0] : tensor<3xf32> -> tensor<3x1xf32>
  return
}

// -----

// Sizes are computed without overflow: three 2^62-element inputs would need
// a dimension larger than INT64_MAX.
func.func @concatenate_overflows(%x: tensor<4611686018427387904xf32>) {
  // expected-error @+2 {{'jaxc.concatenate' op result dimension 0 would have size > INT64_MAX; check the attributes against the operand 'tensor<4611686018427387904xf32>'}}
  // expected-error @+1 {{'jaxc.concatenate' op failed to infer returned types}}
  %0 = "jaxc.concatenate"(%x, %x, %x) <{dimension = 0 : i64}> : (tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_overflows(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jaxc.pad' op result dimension 0 would have size > INT64_MAX}}
  // expected-error @+1 {{'jaxc.pad' op failed to infer returned types}}
  %0 = jaxc.pad %x, %v, low = [9223372036854775807], high = [9223372036854775807], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// A huge stride takes one element: no overflow in the size computation.
func.func @slice_huge_stride(%x: tensor<2xf32>) -> tensor<1xf32> {
  %0 = jaxc.slice %x, start = [0], limit = [2], strides = [9223372036854775807] : tensor<2xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Each dimension fits in int64 but the element count would not.
func.func @reshape_too_many_elements(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'jaxc.reshape' op cannot reshape 'tensor<4294967296x4294967296xf32>' into 'tensor<0xf32>': more than INT64_MAX elements}}
  %0 = jaxc.reshape %x : (tensor<4294967296x4294967296xf32>) -> tensor<0xf32>
  return
}
