// Round-trip tests for dot_general, conv_general_dilated, dft, hermitian_dft, lu, triangular_solve, cholesky, qr,
// eigh and svd. Result shapes
// are worked out in comments; the result element type is the preferred one
// and may differ from the operands'.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// Result dims: batch, then free lhs dims, then free rhs dims.
// 2x3 . 3x4 contracting lhs[1] with rhs[0] -> 2x4.
// CHECK-LABEL: func.func @dot_matmul(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-z0-9_]+]]: tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x4xf32>
func.func @dot_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// 4x2x3 . 4x3x5, batch [0] x [0], contract [2] x [1] -> 4x2x5.
// CHECK-LABEL: func.func @dot_batched(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x2x3xf64>, %[[B:[a-z0-9_]+]]: tensor<4x3x5xf64>) -> tensor<4x2x5xf64>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [0] x [0], contract = [2] x [1] : (tensor<4x2x3xf64>, tensor<4x3x5xf64>) -> tensor<4x2x5xf64>
// CHECK-NEXT: return %[[C]] : tensor<4x2x5xf64>
func.func @dot_batched(%a: tensor<4x2x3xf64>, %b: tensor<4x3x5xf64>) -> tensor<4x2x5xf64> {
  %c = jaxc.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<4x2x3xf64>, tensor<4x3x5xf64>) -> tensor<4x2x5xf64>
  return %c : tensor<4x2x5xf64>
}

// A batch dimension that is not leading comes first in the result:
// 3x8x2 . 2x8x5, batch [1] x [1], contract [2] x [0] -> 8x3x5.
// CHECK-LABEL: func.func @dot_batched_inner(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<3x8x2xf16>, %[[B:[a-z0-9_]+]]: tensor<2x8x5xf16>) -> tensor<8x3x5xf16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [1] x [1], contract = [2] x [0] : (tensor<3x8x2xf16>, tensor<2x8x5xf16>) -> tensor<8x3x5xf16>
// CHECK-NEXT: return %[[C]] : tensor<8x3x5xf16>
func.func @dot_batched_inner(%a: tensor<3x8x2xf16>, %b: tensor<2x8x5xf16>) -> tensor<8x3x5xf16> {
  %c = jaxc.dot_general %a, %b, batch = [1] x [1], contract = [2] x [0] : (tensor<3x8x2xf16>, tensor<2x8x5xf16>) -> tensor<8x3x5xf16>
  return %c : tensor<8x3x5xf16>
}

// Vector dot -> 0-d; outer product (nothing contracted) -> 3x4.
// CHECK-LABEL: func.func @dot_vector(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[Y:[a-z0-9_]+]]: tensor<3xf32>, %[[Z:[a-z0-9_]+]]: tensor<4xf32>) -> (tensor<f32>, tensor<3x4xf32>)
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.dot_general %[[X]], %[[Y]], batch = [] x [], contract = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[O:[a-z0-9_]+]] = jaxc.dot_general %[[X]], %[[Z]], batch = [] x [], contract = [] x [] : (tensor<3xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[D]], %[[O]] : tensor<f32>, tensor<3x4xf32>
func.func @dot_vector(%x: tensor<3xf32>, %y: tensor<3xf32>, %z: tensor<4xf32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %d = jaxc.dot_general %x, %y, batch = [] x [], contract = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %o = jaxc.dot_general %x, %z, batch = [] x [], contract = [] x [] : (tensor<3xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %d, %o : tensor<f32>, tensor<3x4xf32>
}

// Two contracting dims in different orders: 2x3x4 . 4x3x5 contracting
// lhs[1, 2] with rhs[1, 0] -> 2x5.
// CHECK-LABEL: func.func @dot_two_contracting(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2x3x4xi32>, %[[B:[a-z0-9_]+]]: tensor<4x3x5xi32>) -> tensor<2x5xi32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [] x [], contract = [1, 2] x [1, 0] : (tensor<2x3x4xi32>, tensor<4x3x5xi32>) -> tensor<2x5xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x5xi32>
func.func @dot_two_contracting(%a: tensor<2x3x4xi32>, %b: tensor<4x3x5xi32>) -> tensor<2x5xi32> {
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1, 2] x [1, 0] : (tensor<2x3x4xi32>, tensor<4x3x5xi32>) -> tensor<2x5xi32>
  return %c : tensor<2x5xi32>
}

// Preferred element types: bf16 x bf16 -> f32, i8 x i8 -> i32, ui8 -> ui32,
// f32 -> f64.
// CHECK-LABEL: func.func @dot_preferred_type(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2x3xbf16>, %[[B:[a-z0-9_]+]]: tensor<3x4xbf16>, %[[I:[a-z0-9_]+]]: tensor<5x6xi8>, %[[J:[a-z0-9_]+]]: tensor<6xi8>, %[[U:[a-z0-9_]+]]: tensor<3xui8>, %[[F:[a-z0-9_]+]]: tensor<2x3xf32>, %[[G:[a-z0-9_]+]]: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<5xi32>, tensor<ui32>, tensor<2x4xf64>)
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [] x [], contract = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.dot_general %[[I]], %[[J]], batch = [] x [], contract = [1] x [0] : (tensor<5x6xi8>, tensor<6xi8>) -> tensor<5xi32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.dot_general %[[U]], %[[U]], batch = [] x [], contract = [0] x [0] : (tensor<3xui8>, tensor<3xui8>) -> tensor<ui32>
// CHECK-NEXT: %[[H:[a-z0-9_]+]] = jaxc.dot_general %[[F]], %[[G]], batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
// CHECK-NEXT: return %[[C]], %[[D]], %[[E]], %[[H]] : tensor<2x4xf32>, tensor<5xi32>, tensor<ui32>, tensor<2x4xf64>
func.func @dot_preferred_type(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %i: tensor<5x6xi8>, %j: tensor<6xi8>, %u: tensor<3xui8>, %f: tensor<2x3xf32>, %g: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<5xi32>, tensor<ui32>, tensor<2x4xf64>) {
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  %d = jaxc.dot_general %i, %j, batch = [] x [], contract = [1] x [0] : (tensor<5x6xi8>, tensor<6xi8>) -> tensor<5xi32>
  %e = jaxc.dot_general %u, %u, batch = [] x [], contract = [0] x [0] : (tensor<3xui8>, tensor<3xui8>) -> tensor<ui32>
  %h = jaxc.dot_general %f, %g, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  return %c, %d, %e, %h : tensor<2x4xf32>, tensor<5xi32>, tensor<ui32>, tensor<2x4xf64>
}

// Zero-size: 0x3 . 3x4 -> 0x4; contracting a size-0 dim: 2x0 . 0x3 -> 2x3.
// CHECK-LABEL: func.func @dot_zero_size(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<0x3xf32>, %[[B:[a-z0-9_]+]]: tensor<3x4xf32>, %[[C:[a-z0-9_]+]]: tensor<2x0xf32>, %[[D:[a-z0-9_]+]]: tensor<0x3xf32>) -> (tensor<0x4xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.dot_general %[[A]], %[[B]], batch = [] x [], contract = [1] x [0] : (tensor<0x3xf32>, tensor<3x4xf32>) -> tensor<0x4xf32>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.dot_general %[[C]], %[[D]], batch = [] x [], contract = [1] x [0] : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]], %[[S]] : tensor<0x4xf32>, tensor<2x3xf32>
func.func @dot_zero_size(%a: tensor<0x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x0xf32>, %d: tensor<0x3xf32>) -> (tensor<0x4xf32>, tensor<2x3xf32>) {
  %r = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<0x3xf32>, tensor<3x4xf32>) -> tensor<0x4xf32>
  %s = jaxc.dot_general %c, %d, batch = [] x [], contract = [1] x [0] : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %r, %s : tensor<0x4xf32>, tensor<2x3xf32>
}

// NCHW / OIHW / NCHW, no padding: 8 - 3 + 1 = 6 -> 1x4x6x6.
// CHECK-LABEL: func.func @conv_nchw(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x3x8x8xf32>, %[[W:[a-z0-9_]+]]: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[X]], %[[W]], window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: return %[[Y]] : tensor<1x4x6x6xf32>
func.func @conv_nchw(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1, batch_group_count = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// NHWC / HWIO / NHWC with padding, strides and window dilation.
// H: 9 + 1 + 1 = 11 padded, window (3 - 1) * 2 + 1 = 5, stride 2: (11 - 5) / 2 + 1 = 4.
// W: 10 + 2 + 0 = 12 padded, window 3, stride 3: (12 - 3) / 3 + 1 = 4.
// -> 2x4x4x8 (batch 2, 8 output features last).
// CHECK-LABEL: func.func @conv_nhwc(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x9x10x3xf32>, %[[W:[a-z0-9_]+]]: tensor<3x3x3x8xf32>) -> tensor<2x4x4x8xf32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[X]], %[[W]], window_strides = [2, 3], padding = [1, 1, 2, 0], lhs_dilation = [1, 1], rhs_dilation = [2, 1], lhs_spec = [0, 3, 1, 2], rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<2x9x10x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x4x4x8xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x4x4x8xf32>
func.func @conv_nhwc(%x: tensor<2x9x10x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<2x4x4x8xf32> {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [2, 3], padding = [1, 1, 2, 0], lhs_dilation = [1, 1], rhs_dilation = [2, 1], lhs_spec = [0, 3, 1, 2], rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<2x9x10x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x4x4x8xf32>
  return %y : tensor<2x4x4x8xf32>
}

// 1-D NWC input, WIO kernel, NCW output, input (lhs) dilation 2:
// W: (5 - 1) * 2 + 1 = 9, padded 11, window 3: 11 - 3 + 1 = 9 -> 1x4x9.
// CHECK-LABEL: func.func @conv_lhs_dilation(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x5x2xf64>, %[[W:[a-z0-9_]+]]: tensor<3x2x4xf64>) -> tensor<1x4x9xf64>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[X]], %[[W]], window_strides = [1], padding = [1, 1], lhs_dilation = [2], rhs_dilation = [1], lhs_spec = [0, 2, 1], rhs_spec = [2, 1, 0], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x5x2xf64>, tensor<3x2x4xf64>) -> tensor<1x4x9xf64>
// CHECK-NEXT: return %[[Y]] : tensor<1x4x9xf64>
func.func @conv_lhs_dilation(%x: tensor<1x5x2xf64>, %w: tensor<3x2x4xf64>) -> tensor<1x4x9xf64> {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [1], padding = [1, 1], lhs_dilation = [2], rhs_dilation = [1], lhs_spec = [0, 2, 1], rhs_spec = [2, 1, 0], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x5x2xf64>, tensor<3x2x4xf64>) -> tensor<1x4x9xf64>
  return %y : tensor<1x4x9xf64>
}

// Feature groups: depthwise (4 groups, 1 input feature each) -> 1x8x3x3;
// 2 groups of 3 features, 1-D -> 2x4x6.
// CHECK-LABEL: func.func @conv_feature_groups(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x4x5x5xf32>, %[[W:[a-z0-9_]+]]: tensor<8x1x3x3xf32>, %[[A:[a-z0-9_]+]]: tensor<2x6x7xf16>, %[[K:[a-z0-9_]+]]: tensor<4x3x2xf16>) -> (tensor<1x8x3x3xf32>, tensor<2x4x6xf16>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[X]], %[[W]], window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 4, batch_group_count = 1 : (tensor<1x4x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[A]], %[[K]], window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 2, batch_group_count = 1 : (tensor<2x6x7xf16>, tensor<4x3x2xf16>) -> tensor<2x4x6xf16>
// CHECK-NEXT: return %[[Y]], %[[Z]] : tensor<1x8x3x3xf32>, tensor<2x4x6xf16>
func.func @conv_feature_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<8x1x3x3xf32>, %a: tensor<2x6x7xf16>, %k: tensor<4x3x2xf16>) -> (tensor<1x8x3x3xf32>, tensor<2x4x6xf16>) {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 4, batch_group_count = 1 : (tensor<1x4x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  %z = jaxc.conv_general_dilated %a, %k, window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 2, batch_group_count = 1 : (tensor<2x6x7xf16>, tensor<4x3x2xf16>) -> tensor<2x4x6xf16>
  return %y, %z : tensor<1x8x3x3xf32>, tensor<2x4x6xf16>
}

// Batch groups divide the batch: 4 / 2 = 2, 6 output features, 5 - 3 + 1 = 3
// -> 2x6x3. Preferred element type: bf16 operands, f32 result.
// CHECK-LABEL: func.func @conv_batch_groups_preferred(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x2x5xbf16>, %[[W:[a-z0-9_]+]]: tensor<6x2x3xbf16>, %[[I:[a-z0-9_]+]]: tensor<1x1x4xi8>, %[[K:[a-z0-9_]+]]: tensor<1x1x2xi8>) -> (tensor<2x6x3xf32>, tensor<1x1x3xi32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[X]], %[[W]], window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 2 : (tensor<4x2x5xbf16>, tensor<6x2x3xbf16>) -> tensor<2x6x3xf32>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.conv_general_dilated %[[I]], %[[K]], window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x1x4xi8>, tensor<1x1x2xi8>) -> tensor<1x1x3xi32>
// CHECK-NEXT: return %[[Y]], %[[Z]] : tensor<2x6x3xf32>, tensor<1x1x3xi32>
func.func @conv_batch_groups_preferred(%x: tensor<4x2x5xbf16>, %w: tensor<6x2x3xbf16>, %i: tensor<1x1x4xi8>, %k: tensor<1x1x2xi8>) -> (tensor<2x6x3xf32>, tensor<1x1x3xi32>) {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 2 : (tensor<4x2x5xbf16>, tensor<6x2x3xbf16>) -> tensor<2x6x3xf32>
  %z = jaxc.conv_general_dilated %i, %k, window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x1x4xi8>, tensor<1x1x2xi8>) -> tensor<1x1x3xi32>
  return %y, %z : tensor<2x6x3xf32>, tensor<1x1x3xi32>
}

// dft: a complex or real operand, a complex result of its shape; the
// transform runs along `axis` at every position of the others.
// CHECK-LABEL: func.func @dft(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3x8xcomplex<f32>>, %[[R:[a-z0-9_]+]]: tensor<8xf64>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.dft %[[X]], axis = 1, sign = -1, scale = 1.000000e+00 : tensor<3x8xcomplex<f32>> -> tensor<3x8xcomplex<f32>>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.dft %[[R]], axis = 0, sign = 1, scale = 1.250000e-01 : tensor<8xf64> -> tensor<8xcomplex<f64>>
// CHECK-NEXT: return %[[Y]], %[[Z]]
func.func @dft(%x: tensor<3x8xcomplex<f32>>, %r: tensor<8xf64>) -> (tensor<3x8xcomplex<f32>>, tensor<8xcomplex<f64>>) {
  %y = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<3x8xcomplex<f32>> -> tensor<3x8xcomplex<f32>>
  %z = jaxc.dft %r, axis = 0, sign = 1, scale = 0.125 : tensor<8xf64> -> tensor<8xcomplex<f64>>
  return %y, %z : tensor<3x8xcomplex<f32>>, tensor<8xcomplex<f64>>
}

// hermitian_dft: n//2 + 1 complex points in, n real points out on the axis
// (the result type says n: 8 and 7 both take 5 points), the other axes kept.
// CHECK-LABEL: func.func @hermitian_dft(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3x5xcomplex<f32>>, %[[C:[a-z0-9_]+]]: tensor<5x2xcomplex<f64>>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.hermitian_dft %[[X]], axis = 1, sign = 1, scale = 1.250000e-01 : tensor<3x5xcomplex<f32>> -> tensor<3x8xf32>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.hermitian_dft %[[C]], axis = 0, sign = -1, scale = 1.000000e+00 : tensor<5x2xcomplex<f64>> -> tensor<9x2xf64>
// CHECK-NEXT: return %[[Y]], %[[Z]]
func.func @hermitian_dft(%x: tensor<3x5xcomplex<f32>>, %c: tensor<5x2xcomplex<f64>>) -> (tensor<3x8xf32>, tensor<9x2xf64>) {
  %y = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 0.125 : tensor<3x5xcomplex<f32>> -> tensor<3x8xf32>
  %z = jaxc.hermitian_dft %c, axis = 0, sign = -1, scale = 1.0 : tensor<5x2xcomplex<f64>> -> tensor<9x2xf64>
  return %y, %z : tensor<3x8xf32>, tensor<9x2xf64>
}

// lu: the factors in the operand's type, min(m, n) pivots and m rows of the
// permutation per matrix, the leading axes batch axes.
// CHECK-LABEL: func.func @lu(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x4xf32>, %[[B:[a-z0-9_]+]]: tensor<2x5x3xcomplex<f64>>)
// CHECK-NEXT: %[[F:[a-z0-9_]+]], %[[P:[a-z0-9_]+]], %[[Q:[a-z0-9_]+]] = jaxc.lu %[[A]] : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: %[[G:[a-z0-9_]+]], %{{.+}}, %{{.+}} = jaxc.lu %[[B]] : tensor<2x5x3xcomplex<f64>> -> (tensor<2x5x3xcomplex<f64>>, tensor<2x3xi32>, tensor<2x5xi32>)
// CHECK-NEXT: return %[[F]], %[[P]], %[[Q]], %[[G]]
func.func @lu(%a: tensor<4x4xf32>, %b: tensor<2x5x3xcomplex<f64>>)
    -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x5x3xcomplex<f64>>) {
  %f, %p, %q = jaxc.lu %a : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>)
  %g, %r, %s = jaxc.lu %b : tensor<2x5x3xcomplex<f64>> -> (tensor<2x5x3xcomplex<f64>>, tensor<2x3xi32>, tensor<2x5xi32>)
  return %f, %p, %q, %g : tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x5x3xcomplex<f64>>
}

// triangular_solve: b's type for the result; the flags are unit attributes,
// printed in a fixed order when set.
// CHECK-LABEL: func.func @triangular_solve(
// CHECK-SAME: %[[L:[a-z0-9_]+]]: tensor<4x4xf32>, %[[B:[a-z0-9_]+]]: tensor<4x2xf32>, %[[U:[a-z0-9_]+]]: tensor<3x5x5xcomplex<f64>>, %[[C:[a-z0-9_]+]]: tensor<3x2x5xcomplex<f64>>)
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = jaxc.triangular_solve %[[L]], %[[B]] left_side lower unit_diagonal : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.triangular_solve %[[U]], %[[C]] transpose_a conjugate_a : (tensor<3x5x5xcomplex<f64>>, tensor<3x2x5xcomplex<f64>>) -> tensor<3x2x5xcomplex<f64>>
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @triangular_solve(%l: tensor<4x4xf32>, %b: tensor<4x2xf32>, %u: tensor<3x5x5xcomplex<f64>>, %c: tensor<3x2x5xcomplex<f64>>)
    -> (tensor<4x2xf32>, tensor<3x2x5xcomplex<f64>>) {
  %x = jaxc.triangular_solve %l, %b left_side lower unit_diagonal : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = jaxc.triangular_solve %u, %c transpose_a conjugate_a : (tensor<3x5x5xcomplex<f64>>, tensor<3x2x5xcomplex<f64>>) -> tensor<3x2x5xcomplex<f64>>
  return %x, %y : tensor<4x2xf32>, tensor<3x2x5xcomplex<f64>>
}

// cholesky: the factor in the operand's type, leading axes batch axes.
// CHECK-LABEL: func.func @cholesky(
// CHECK-NEXT: %[[L:[a-z0-9_]+]] = jaxc.cholesky %arg0 : tensor<4x4xf32>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.cholesky %arg1 : tensor<2x3x3xcomplex<f64>>
// CHECK-NEXT: return %[[L]], %[[M]]
func.func @cholesky(%a: tensor<4x4xf32>, %b: tensor<2x3x3xcomplex<f64>>) -> (tensor<4x4xf32>, tensor<2x3x3xcomplex<f64>>) {
  %l = jaxc.cholesky %a : tensor<4x4xf32>
  %m = jaxc.cholesky %b : tensor<2x3x3xcomplex<f64>>
  return %l, %m : tensor<4x4xf32>, tensor<2x3x3xcomplex<f64>>
}

// qr: q is m x m with full_matrices, else m x min(m, n); r the rest.
// CHECK-LABEL: func.func @qr(
// CHECK-NEXT: %[[Q:[a-z0-9_]+]], %[[R:[a-z0-9_]+]] = jaxc.qr %arg0 full_matrices : tensor<5x3xf32> -> (tensor<5x5xf32>, tensor<5x3xf32>)
// CHECK-NEXT: %[[Q2:[a-z0-9_]+]], %[[R2:[a-z0-9_]+]] = jaxc.qr %arg1 : tensor<2x3x5xcomplex<f64>> -> (tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>)
// CHECK-NEXT: return %[[Q]], %[[R]], %[[Q2]], %[[R2]]
func.func @qr(%a: tensor<5x3xf32>, %b: tensor<2x3x5xcomplex<f64>>)
    -> (tensor<5x5xf32>, tensor<5x3xf32>, tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>) {
  %q, %r = jaxc.qr %a full_matrices : tensor<5x3xf32> -> (tensor<5x5xf32>, tensor<5x3xf32>)
  %q2, %r2 = jaxc.qr %b : tensor<2x3x5xcomplex<f64>> -> (tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>)
  return %q, %r, %q2, %r2 : tensor<5x5xf32>, tensor<5x3xf32>, tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>
}

// eigh: the vectors in the operand's type, the values real, one per row.
// CHECK-LABEL: func.func @eigh(
// CHECK-NEXT: %[[V:[a-z0-9_]+]], %[[W:[a-z0-9_]+]] = jaxc.eigh %arg0 lower : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[U:[a-z0-9_]+]], %[[E:[a-z0-9_]+]] = jaxc.eigh %arg1 : tensor<2x3x3xcomplex<f64>> -> (tensor<2x3x3xcomplex<f64>>, tensor<2x3xf64>)
// CHECK-NEXT: return %[[V]], %[[W]], %[[U]], %[[E]]
func.func @eigh(%a: tensor<4x4xf32>, %b: tensor<2x3x3xcomplex<f64>>)
    -> (tensor<4x4xf32>, tensor<4xf32>, tensor<2x3x3xcomplex<f64>>, tensor<2x3xf64>) {
  %v, %w = jaxc.eigh %a lower : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xf32>)
  %u, %e = jaxc.eigh %b : tensor<2x3x3xcomplex<f64>> -> (tensor<2x3x3xcomplex<f64>>, tensor<2x3xf64>)
  return %v, %w, %u, %e : tensor<4x4xf32>, tensor<4xf32>, tensor<2x3x3xcomplex<f64>>, tensor<2x3xf64>
}

// svd: s real, min(m, n) per matrix; u m x m and vh n x n with full_matrices.
// CHECK-LABEL: func.func @svd(
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}} = jaxc.svd %arg0 full_matrices : tensor<5x3xf32> -> (tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>)
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}} = jaxc.svd %arg1 : tensor<2x3x5xcomplex<f64>> -> (tensor<2x3xf64>, tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>)
func.func @svd(%a: tensor<5x3xf32>, %b: tensor<2x3x5xcomplex<f64>>) -> (tensor<3xf32>, tensor<2x3x5xcomplex<f64>>) {
  %s, %u, %vh = jaxc.svd %a full_matrices : tensor<5x3xf32> -> (tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>)
  %t, %v, %wh = jaxc.svd %b : tensor<2x3x5xcomplex<f64>> -> (tensor<2x3xf64>, tensor<2x3x3xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>)
  return %s, %wh : tensor<3xf32>, tensor<2x3x5xcomplex<f64>>
}
