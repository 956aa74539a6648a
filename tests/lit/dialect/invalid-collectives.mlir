// Invalid collectives over named axes: psum pmax pmin pmean all_gather
// all_to_all ppermute axis_index.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @psum_without_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.psum' op needs at least one axis name in 'axes'}}
  %0 = jaxc.psum %x, axes = [] : tensor<4xf32>
  return
}

// -----

func.func @pmax_without_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.pmax' op needs at least one axis name in 'axes'}}
  %0 = jaxc.pmax %x, axes = [] : tensor<4xf32>
  return
}

// -----

func.func @pmin_without_axes(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.pmin' op needs at least one axis name in 'axes'}}
  %0 = jaxc.pmin %x, axes = [] : tensor<4xi32>
  return
}

// -----

func.func @pmean_without_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.pmean' op needs at least one axis name in 'axes'}}
  %0 = jaxc.pmean %x, axes = [] : tensor<4xf32>
  return
}

// -----

func.func @psum_axes_not_strings(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.psum' op attribute 'axes' failed to satisfy constraint: string array attribute}}
  %0 = jaxc.psum %x, axes = [0] : tensor<4xf32>
  return
}

// -----

func.func @psum_result_type_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.psum' op requires the same type for all operands and results}}
  %0 = "jaxc.psum"(%x) {axes = ["i"]} : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @all_gather_dimension_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op dimension 2 must be in [0, 2) and axis_size 4 >= 1 for operand 'tensor<3xf32>'}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 2, axis_size = 4 : tensor<3xf32> -> tensor<3x4xf32>
  return
}

// -----

// Tiled gathers concatenate along an existing dimension.
func.func @all_gather_tiled_dimension_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op dimension 1 must be in [0, 1) and axis_size 4 >= 1 for operand 'tensor<3xf32>'}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 1, axis_size = 4 tiled : tensor<3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @all_gather_zero_axis_size(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op dimension 0 must be in [0, 2) and axis_size 0 >= 1 for operand 'tensor<3xf32>'}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 0 : tensor<3xf32> -> tensor<0x3xf32>
  return
}

// -----

func.func @all_gather_wrong_result_type(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op inferred type(s) 'tensor<12xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 tiled : tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @all_to_all_split_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.all_to_all' op split_axis 2 and concat_axis 0 must be dimensions of 'tensor<4x3xf32>' and axis_size 2 >= 1}}
  // expected-error @+1 {{'jaxc.all_to_all' op failed to infer returned types}}
  %0 = jaxc.all_to_all %x, axes = ["i"], split_axis = 2, concat_axis = 0, axis_size = 2 : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @all_to_all_concat_axis_negative(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.all_to_all' op split_axis 0 and concat_axis -1 must be dimensions of 'tensor<4x3xf32>' and axis_size 2 >= 1}}
  // expected-error @+1 {{'jaxc.all_to_all' op failed to infer returned types}}
  %0 = jaxc.all_to_all %x, axes = ["i"], split_axis = 0, concat_axis = -1, axis_size = 2 : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @all_to_all_zero_axis_size(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.all_to_all' op split_axis 0 and concat_axis 1 must be dimensions of 'tensor<4x3xf32>' and axis_size 0 >= 1}}
  // expected-error @+1 {{'jaxc.all_to_all' op failed to infer returned types}}
  %0 = jaxc.all_to_all %x, axes = ["i"], split_axis = 0, concat_axis = 1, axis_size = 0 : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @all_to_all_split_not_divisible(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.all_to_all' op split dimension 1 of size 3 does not divide by axis_size 2}}
  // expected-error @+1 {{'jaxc.all_to_all' op failed to infer returned types}}
  %0 = jaxc.all_to_all %x, axes = ["i"], split_axis = 1, concat_axis = 0, axis_size = 2 : tensor<4x3xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @ppermute_without_axes(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.ppermute' op needs at least one axis name in 'axes'}}
  %0 = jaxc.ppermute %x, axes = [], perm = [0, 1, 1, 0] : tensor<3xf32>
  return
}

// -----

func.func @ppermute_odd_perm(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.ppermute' op perm must list (source, destination) pairs, got 3 entries}}
  %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1] : tensor<3xf32>
  return
}

// -----

func.func @ppermute_negative_device(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.ppermute' op perm pair (0, -1) has a negative device index}}
  %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, -1] : tensor<3xf32>
  return
}

// -----

func.func @ppermute_source_twice(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.ppermute' op perm sends from device 0 twice}}
  %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 0, 2] : tensor<3xf32>
  return
}

// -----

func.func @ppermute_destination_twice(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.ppermute' op perm sends to device 1 twice}}
  %0 = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 2, 1] : tensor<3xf32>
  return
}

// -----

func.func @axis_index_not_i32() {
  // expected-error @+1 {{'jaxc.axis_index' op result #0 must be 0D tensor of 32-bit signless integer values, but got 'tensor<i64>'}}
  %0 = jaxc.axis_index "i" : tensor<i64>
  return
}

// -----

func.func @all_gather_tiled_overflows(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op result dimension 0 would have size > INT64_MAX}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 6148914691236517206 tiled : tensor<3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @all_gather_too_many_elements(%x: tensor<1073741824xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op result would have more than INT64_MAX elements}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 1099511627776 : tensor<1073741824xf32> -> tensor<2xf32>
  return
}

// -----

func.func @all_gather_no_axes(%x: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.all_gather' op needs at least one axis name in 'axes'}}
  // expected-error @+1 {{'jaxc.all_gather' op failed to infer returned types}}
  %0 = jaxc.all_gather %x, axes = [], dim = 0, axis_size = 2 : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @all_to_all_no_axes(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.all_to_all' op needs at least one axis name in 'axes'}}
  // expected-error @+1 {{'jaxc.all_to_all' op failed to infer returned types}}
  %0 = jaxc.all_to_all %x, axes = [], split_axis = 0, concat_axis = 1, axis_size = 2 : tensor<4x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @axis_index_empty_name() {
  // expected-error @+1 {{'jaxc.axis_index' op axis_name must not be empty}}
  %0 = jaxc.axis_index "" : tensor<i32>
  return
}

// -----

func.func @pvary_without_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.pvary' op needs at least one axis name in 'axes'}}
  %0 = jaxc.pvary %x, axes = [] : tensor<4xf32>
  return
}

// -----

func.func @pvary_changes_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.pvary' op requires the same type for all operands and results}}
  %0 = "jaxc.pvary"(%x) {axes = ["i"]} : (tensor<4xf32>) -> tensor<4xf64>
  return
}
