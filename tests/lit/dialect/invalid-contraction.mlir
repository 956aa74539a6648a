// Invalid contractions: dot_general, conv_general_dilated, dft, lu, triangular_solve, cholesky, qr,
// eigh, svd and hermitian_dft. dot_general and conv check their operands in type inference
// during verification, so MLIR adds "failed to infer returned types" after
// each message; the DFTs' result types are given, and their verifiers say
// what is wrong.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @dot_general_element_types_differ(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+2 {{'jaxc.dot_general' op operands must have the same element type, got lhs 'tensor<2x3xf32>' and rhs 'tensor<3x4xf16>'}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_general_batching_counts_differ(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op lhs and rhs need as many batching dimensions (1 vs 0) and contracting dimensions (1 vs 1)}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [0] x [], contract = [2] x [1] : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x4x5xf32>
  return
}

// -----

func.func @dot_general_contracting_counts_differ(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op lhs and rhs need as many batching dimensions (0 vs 0) and contracting dimensions (1 vs 2)}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0, 1] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dot_general_lhs_dimension_out_of_range(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op lhs_contracting_dimensions[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [2] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_general_rhs_dimension_negative(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op rhs_contracting_dimensions[0] = -1 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [-1] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// A dimension cannot be both a batching and a contracting dimension.
func.func @dot_general_dimension_used_twice(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op lhs dimension 0 is both a batching and a contracting dimension}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [0] x [0], contract = [0] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

// Contracting dimensions of different sizes.
func.func @dot_general_contracting_size_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op contracting dimension lhs[1] of size 3 does not match rhs[0] of size 4 (lhs 'tensor<2x3xf32>', rhs 'tensor<4x5xf32>')}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_general_batching_size_mismatch(%a: tensor<4x2x3xf32>, %b: tensor<5x3x6xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op batching dimension lhs[0] of size 4 does not match rhs[0] of size 5 (lhs 'tensor<4x2x3xf32>', rhs 'tensor<5x3x6xf32>')}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<4x2x3xf32>, tensor<5x3x6xf32>) -> tensor<4x2x6xf32>
  return
}

// -----

// The result element type is free (the preferred type), its shape is not.
func.func @dot_general_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'jaxc.dot_general' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf64>'}}
  // expected-error @+1 {{'jaxc.dot_general' op failed to infer returned types}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf64>
  return
}

// -----

func.func @dot_general_of_i1(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) {
  // expected-error @+1 {{'jaxc.dot_general' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<2x3xi1>'}}
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
  return
}

// -----

func.func @conv_element_types_differ(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op operands must have the same element type, got lhs 'tensor<1x3x8x8xf32>' and rhs 'tensor<4x3x3x3xf16>'}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_rank_too_small(%x: tensor<1x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op lhs 'tensor<1x3xf32>' and rhs 'tensor<4x3xf32>' must have the same rank, at least 3}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [], padding = [], lhs_dilation = [], rhs_dilation = [], lhs_spec = [0, 1], rhs_spec = [0, 1], out_spec = [0, 1], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @conv_ranks_differ(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op lhs 'tensor<1x3x8x8xf32>' and rhs 'tensor<4x3x3xf32>' must have the same rank, at least 3}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_lhs_spec_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op lhs_spec has 3 entries but the operands have rank 4}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_rhs_spec_out_of_range(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op rhs_spec[3] = 4 is out of range for rank 4}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 4], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_out_spec_repeats(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op out_spec repeats dimension 2}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window_strides_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op window_strides has 1 entries but needs 2 for 2 spatial dimensions}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op padding has 2 entries but needs 4 for 2 spatial dimensions}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op window_strides entries must be >= 1}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 0], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_rhs_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op rhs_dilation entries must be >= 1}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [0, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_both_group_counts(%x: tensor<2x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op feature_group_count (2) and batch_group_count (2) must be >= 1 and not both > 1}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 2, batch_group_count = 2 : (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_group_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op feature_group_count (0) and batch_group_count (1) must be >= 1 and not both > 1}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 0, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_feature_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op lhs feature size 3 must equal rhs input feature size 2 times feature_group_count 1, and rhs output features 4 must divide by it}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Feature groups: 4 input features in 2 groups of 2, but 3 output features
// do not split into 2 groups.
func.func @conv_output_features_not_divisible(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op lhs feature size 4 must equal rhs input feature size 2 times feature_group_count 2, and rhs output features 3 must divide by it}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 2, batch_group_count = 1 : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_batch_group_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op batch size 1 and output features 4 must divide by batch_group_count 2}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 2 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_wrong_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jaxc.conv_general_dilated' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{'jaxc.conv_general_dilated' op failed to infer returned types}}
  %0 = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @dft_rank_zero(%x: tensor<complex<f32>>) {
  // expected-error @+1 {{'jaxc.dft' op operand 'tensor<complex<f32>>' must have an axis to transform (rank >= 1)}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<complex<f32>> -> tensor<complex<f32>>
  return
}

// -----

func.func @dft_axis(%x: tensor<4x8xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.dft' op axis 2 is out of range for operand 'tensor<4x8xcomplex<f32>>' (0 <= axis < 2)}}
  %0 = jaxc.dft %x, axis = 2, sign = -1, scale = 1.0 : tensor<4x8xcomplex<f32>> -> tensor<4x8xcomplex<f32>>
  return
}

// -----

func.func @dft_negative_axis(%x: tensor<4x8xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.dft' op axis -1 is out of range for operand 'tensor<4x8xcomplex<f32>>' (0 <= axis < 2)}}
  %0 = jaxc.dft %x, axis = -1, sign = -1, scale = 1.0 : tensor<4x8xcomplex<f32>> -> tensor<4x8xcomplex<f32>>
  return
}

// -----

func.func @dft_sign(%x: tensor<8xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.dft' op sign must be -1 (forward) or 1 (inverse), got 2}}
  %0 = jaxc.dft %x, axis = 0, sign = 2, scale = 1.0 : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
  return
}

// -----

func.func @dft_integer(%x: tensor<8xi32>) {
  // expected-error @+1 {{'jaxc.dft' op operand #0 must be statically shaped tensor of}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xi32> -> tensor<8xcomplex<f32>>
  return
}

// -----

func.func @dft_f16(%x: tensor<8xf16>) {
  // expected-error @+1 {{'jaxc.dft' op operand 'tensor<8xf16>' must have f32, f64, complex<f32> or complex<f64> elements}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xf16> -> tensor<8xcomplex<f32>>
  return
}

// -----

func.func @dft_real_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{'jaxc.dft' op result #0 must be statically shaped tensor of}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @dft_result_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{'jaxc.dft' op result 'tensor<8xcomplex<f64>>' must have 'complex<f32>' elements}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xf32> -> tensor<8xcomplex<f64>>
  return
}

// -----

func.func @hermitian_dft_length(%x: tensor<3x5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op result 'tensor<3x10xf32>' does not fit operand 'tensor<3x5xcomplex<f32>>': the axis must hold n >= 1 points where the operand holds n//2 + 1}}
  %0 = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 1.0 : tensor<3x5xcomplex<f32>> -> tensor<3x10xf32>
  return
}

// -----

func.func @hermitian_dft_other_axes(%x: tensor<3x5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op result 'tensor<4x8xf32>' does not fit operand 'tensor<3x5xcomplex<f32>>': the other axes must be the operand's}}
  %0 = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 1.0 : tensor<3x5xcomplex<f32>> -> tensor<4x8xf32>
  return
}

// -----

func.func @hermitian_dft_part_type(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op result 'tensor<8xf64>' must have the operand's part type 'f32'}}
  %0 = jaxc.hermitian_dft %x, axis = 0, sign = 1, scale = 1.0 : tensor<5xcomplex<f32>> -> tensor<8xf64>
  return
}

// -----

func.func @hermitian_dft_axis(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op axis 1 is out of range for operand 'tensor<5xcomplex<f32>>' (0 <= axis < 1)}}
  %0 = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 1.0 : tensor<5xcomplex<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @hermitian_dft_sign(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op sign must be -1 (forward) or 1 (inverse), got 0}}
  %0 = jaxc.hermitian_dft %x, axis = 0, sign = 0, scale = 1.0 : tensor<5xcomplex<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @hermitian_dft_real_operand(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op operand #0 must be statically shaped tensor of}}
  %0 = jaxc.hermitian_dft %x, axis = 0, sign = 1, scale = 1.0 : tensor<5xf32> -> tensor<8xf32>
  return
}

// -----

func.func @dft_more_frequencies_than_points(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'jaxc.dft' op result 'tensor<4x9xcomplex<f32>>' does not fit operand 'tensor<4x8xf32>': the axis must hold 1 to n of the operand's n points}}
  %0 = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<4x8xf32> -> tensor<4x9xcomplex<f32>>
  return
}

// -----

func.func @dft_other_axes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'jaxc.dft' op result 'tensor<3x5xcomplex<f32>>' does not fit operand 'tensor<4x8xf32>': the other axes must be the operand's}}
  %0 = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<4x8xf32> -> tensor<3x5xcomplex<f32>>
  return
}

// -----

func.func @dft_result_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'jaxc.dft' op result 'tensor<8x1xcomplex<f32>>' must have the operand's rank 1}}
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xf32> -> tensor<8x1xcomplex<f32>>
  return
}

// -----

func.func @hermitian_dft_result_rank(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.hermitian_dft' op result 'tensor<8x1xf32>' must have the operand's rank 1}}
  %0 = jaxc.hermitian_dft %x, axis = 0, sign = 1, scale = 1.0 : tensor<5xcomplex<f32>> -> tensor<8x1xf32>
  return
}

// -----

func.func @lu_of_a_vector(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.lu' op operand 'tensor<4xf32>' must be a batch of matrices (rank >= 2)}}
  %f, %p, %q = jaxc.lu %a : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>)
  return
}

// -----

func.func @lu_factors_type(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'jaxc.lu' op result lu 'tensor<4x4xf64>' must have the operand's type 'tensor<4x4xf32>'}}
  %f, %p, %q = jaxc.lu %a : tensor<4x4xf32> -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>)
  return
}

// -----

func.func @lu_pivots(%a: tensor<2x5x3xf32>) {
  // expected-error @+1 {{'jaxc.lu' op result pivots 'tensor<2x5xi32>' must have the batch axes and min(m, n) = 3 entries per matrix of operand 'tensor<2x5x3xf32>'}}
  %f, %p, %q = jaxc.lu %a : tensor<2x5x3xf32> -> (tensor<2x5x3xf32>, tensor<2x5xi32>, tensor<2x5xi32>)
  return
}

// -----

func.func @lu_permutation(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{'jaxc.lu' op result permutation 'tensor<3xi32>' must have the batch axes and m = 5 entries per matrix of operand 'tensor<5x3xf32>'}}
  %f, %p, %q = jaxc.lu %a : tensor<5x3xf32> -> (tensor<5x3xf32>, tensor<3xi32>, tensor<3xi32>)
  return
}

// -----

func.func @lu_of_integers(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'jaxc.lu' op operand #0 must be statically shaped tensor of}}
  %f, %p, %q = jaxc.lu %a : tensor<3x3xi32> -> (tensor<3x3xi32>, tensor<3xi32>, tensor<3xi32>)
  return
}

// -----

func.func @triangular_solve_not_square(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'jaxc.triangular_solve' op a 'tensor<4x3xf32>' must be a batch of square matrices}}
  %x = jaxc.triangular_solve %a, %b left_side : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @triangular_solve_element_types(%a: tensor<4x4xf32>, %b: tensor<4x2xf64>) {
  // expected-error @+1 {{'jaxc.triangular_solve' op a 'tensor<4x4xf32>' and b 'tensor<4x2xf64>' must have one element type}}
  %x = jaxc.triangular_solve %a, %b left_side : (tensor<4x4xf32>, tensor<4x2xf64>) -> tensor<4x2xf64>
  return
}

// -----

func.func @triangular_solve_batch(%a: tensor<2x4x4xf32>, %b: tensor<3x4x2xf32>) {
  // expected-error @+1 {{'jaxc.triangular_solve' op b 'tensor<3x4x2xf32>' must be a batch of matrices with a's batch axes (a: 'tensor<2x4x4xf32>')}}
  %x = jaxc.triangular_solve %a, %b left_side : (tensor<2x4x4xf32>, tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @triangular_solve_side(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'jaxc.triangular_solve' op a 'tensor<4x4xf32>' does not fit b 'tensor<4x2xf32>': b's columns must be a's 4 (right side)}}
  %x = jaxc.triangular_solve %a, %b lower : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @triangular_solve_result(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'jaxc.triangular_solve' op result 'tensor<2x4xf32>' must have b's type 'tensor<4x2xf32>'}}
  %x = jaxc.triangular_solve %a, %b left_side : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @cholesky_not_square(%a: tensor<2x4x3xf32>) {
  // expected-error @+1 {{'jaxc.cholesky' op operand 'tensor<2x4x3xf32>' must be a batch of square matrices}}
  %l = jaxc.cholesky %a : tensor<2x4x3xf32>
  return
}

// -----

func.func @cholesky_of_a_vector(%a: tensor<4xf64>) {
  // expected-error @+1 {{'jaxc.cholesky' op operand 'tensor<4xf64>' must be a batch of square matrices}}
  %l = jaxc.cholesky %a : tensor<4xf64>
  return
}

// -----

func.func @qr_of_a_vector(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.qr' op operand 'tensor<4xf32>' must be a batch of matrices (rank >= 2)}}
  %q, %r = jaxc.qr %a : tensor<4xf32> -> (tensor<4x4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @qr_reduced_q_of_full_size(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{'jaxc.qr' op result q 'tensor<5x5xf32>' must have the operand's batch axes and element type and 5 x 3 matrices (m x min(m, n)) for operand 'tensor<5x3xf32>'}}
  %q, %r = jaxc.qr %a : tensor<5x3xf32> -> (tensor<5x5xf32>, tensor<5x3xf32>)
  return
}

// -----

func.func @qr_full_r_of_reduced_size(%a: tensor<2x5x3xf64>) {
  // expected-error @+1 {{'jaxc.qr' op result r 'tensor<2x3x3xf64>' must have the operand's batch axes and element type and 5 x 3 matrices for operand 'tensor<2x5x3xf64>'}}
  %q, %r = jaxc.qr %a full_matrices : tensor<2x5x3xf64> -> (tensor<2x5x5xf64>, tensor<2x3x3xf64>)
  return
}

// -----

func.func @eigh_not_square(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'jaxc.eigh' op operand 'tensor<4x3xf32>' must be a batch of square matrices}}
  %v, %w = jaxc.eigh %a : tensor<4x3xf32> -> (tensor<4x3xf32>, tensor<4xf32>)
  return
}

// -----

func.func @eigh_complex_values(%a: tensor<3x3xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.eigh' op result #1 must be}}
  %v, %w = jaxc.eigh %a : tensor<3x3xcomplex<f32>> -> (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>)
  return
}

// -----

func.func @eigh_values_of_the_wrong_type(%a: tensor<2x3x3xcomplex<f64>>) {
  // expected-error @+1 {{'jaxc.eigh' op result values 'tensor<2x3xf32>' must be 'tensor<2x3xf64>': one real value per row of each matrix of operand 'tensor<2x3x3xcomplex<f64>>'}}
  %v, %w = jaxc.eigh %a lower : tensor<2x3x3xcomplex<f64>> -> (tensor<2x3x3xcomplex<f64>>, tensor<2x3xf32>)
  return
}

// -----

func.func @svd_of_a_vector(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.svd' op operand 'tensor<4xf32>' must be a batch of matrices (rank >= 2)}}
  %s, %u, %vh = jaxc.svd %a : tensor<4xf32> -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @svd_values_of_the_wrong_count(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{'jaxc.svd' op result s 'tensor<5xf32>' must be 'tensor<3xf32>': min(m, n) real values per matrix of operand 'tensor<5x3xf32>'}}
  %s, %u, %vh = jaxc.svd %a : tensor<5x3xf32> -> (tensor<5xf32>, tensor<5x3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @svd_reduced_u_of_full_size(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{'jaxc.svd' op result u 'tensor<5x5xf32>' must be 'tensor<5x3xf32>' for operand 'tensor<5x3xf32>' (m x min(m, n))}}
  %s, %u, %vh = jaxc.svd %a : tensor<5x3xf32> -> (tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @svd_full_vh_of_reduced_size(%a: tensor<2x3x5xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.svd' op result vh 'tensor<2x3x5xcomplex<f32>>' must be 'tensor<2x5x5xcomplex<f32>>' for operand 'tensor<2x3x5xcomplex<f32>>' (n x n, full_matrices)}}
  %s, %u, %vh = jaxc.svd %a full_matrices : tensor<2x3x5xcomplex<f32>> -> (tensor<2x3xf32>, tensor<2x3x3xcomplex<f32>>, tensor<2x3x5xcomplex<f32>>)
  return
}

// -----

func.func @eigh_vectors_of_another_type(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{'jaxc.eigh' op result vectors 'tensor<3x3xf32>' must have the operand's type 'tensor<3x3xf64>'}}
  %v, %w = jaxc.eigh %a : tensor<3x3xf64> -> (tensor<3x3xf32>, tensor<3xf64>)
  return
}
