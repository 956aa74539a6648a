// Folders and canonicalization patterns of the jaxc dialect.
// Every expected constant below was worked out by hand (integer wrap-around,
// unsigned semantics, f32 rounding of the double libm result).
// RUN: jaxc-opt %s --canonicalize | FileCheck %s

//===----------------------------------------------------------------------===//
// Binary constant folding
//===----------------------------------------------------------------------===//

// 1.5 + 2.25 = 3.75
// CHECK-LABEL: func.func @add_f32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<3.750000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @add_f32_splat() -> tensor<4xf32> {
  %a = jaxc.constant dense<1.5> : tensor<4xf32>
  %b = jaxc.constant dense<2.25> : tensor<4xf32>
  %r = jaxc.add %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @add_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1.500000e+00, 2.250000e+00, -2.500000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @add_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.0, 2.0, -3.5]> : tensor<3xf32>
  %b = jaxc.constant dense<[0.5, 0.25, 1.0]> : tensor<3xf32>
  %r = jaxc.add %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}

// A splat and an array constant.
// CHECK-LABEL: func.func @add_f32_splat_and_array()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1.500000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @add_f32_splat_and_array() -> tensor<2xf32> {
  %a = jaxc.constant dense<1.0> : tensor<2xf32>
  %b = jaxc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %r = jaxc.add %a, %b : tensor<2xf32>
  return %r : tensor<2xf32>
}

// INT_MAX + 1 wraps to INT_MIN.
// CHECK-LABEL: func.func @add_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[3, 1, -2147483648]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @add_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[1, -2, 2147483647]> : tensor<3xi32>
  %b = jaxc.constant dense<[2, 3, 1]> : tensor<3xi32>
  %r = jaxc.add %a, %b : tensor<3xi32>
  return %r : tensor<3xi32>
}

// UINT_MAX + 1 wraps to 0.
// CHECK-LABEL: func.func @add_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[0, 3]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @add_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[4294967295, 1]> : tensor<2xui32>
  %b = jaxc.constant dense<[1, 2]> : tensor<2xui32>
  %r = jaxc.add %a, %b : tensor<2xui32>
  return %r : tensor<2xui32>
}

// add on i1 is logical or.
// CHECK-LABEL: func.func @add_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @add_i1() -> tensor<4xi1> {
  %a = jaxc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = jaxc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %r = jaxc.add %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @sub_f32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<-2.500000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @sub_f32_splat() -> tensor<4xf32> {
  %a = jaxc.constant dense<5.0> : tensor<4xf32>
  %b = jaxc.constant dense<7.5> : tensor<4xf32>
  %r = jaxc.sub %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// INT_MIN - 1 wraps to INT_MAX.
// CHECK-LABEL: func.func @sub_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[7, -7, 2147483647]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @sub_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[10, -3, -2147483648]> : tensor<3xi32>
  %b = jaxc.constant dense<[3, 4, 1]> : tensor<3xi32>
  %r = jaxc.sub %a, %b : tensor<3xi32>
  return %r : tensor<3xi32>
}

// 1 - 2 wraps to UINT_MAX.
// CHECK-LABEL: func.func @sub_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[4294967295, 7]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @sub_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[1, 10]> : tensor<2xui32>
  %b = jaxc.constant dense<[2, 3]> : tensor<2xui32>
  %r = jaxc.sub %a, %b : tensor<2xui32>
  return %r : tensor<2xui32>
}

// CHECK-LABEL: func.func @mul_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[3.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @mul_f32() -> tensor<2xf32> {
  %a = jaxc.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = jaxc.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %r = jaxc.mul %a, %b : tensor<2xf32>
  return %r : tensor<2xf32>
}

// 65536 * 65536 = 2^32 wraps to 0.
// CHECK-LABEL: func.func @mul_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[15, -24, 0]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @mul_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[3, -4, 65536]> : tensor<3xi32>
  %b = jaxc.constant dense<[5, 6, 65536]> : tensor<3xi32>
  %r = jaxc.mul %a, %b : tensor<3xi32>
  return %r : tensor<3xi32>
}

// 3e9 * 2 = 6e9 = 6000000000 - 4294967296 = 1705032704 (mod 2^32).
// CHECK-LABEL: func.func @mul_ui32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<1705032704> : tensor<4xui32>
// CHECK-NEXT: return %[[R]] : tensor<4xui32>
func.func @mul_ui32_splat() -> tensor<4xui32> {
  %a = jaxc.constant dense<3000000000> : tensor<4xui32>
  %b = jaxc.constant dense<2> : tensor<4xui32>
  %r = jaxc.mul %a, %b : tensor<4xui32>
  return %r : tensor<4xui32>
}

// mul on i1 is logical and.
// CHECK-LABEL: func.func @mul_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @mul_i1() -> tensor<4xi1> {
  %a = jaxc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = jaxc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %r = jaxc.mul %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}

// Float division by zero is +inf (0x7F800000).
// CHECK-LABEL: func.func @div_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[2.500000e-01, -1.500000e+00, 0x7F800000]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @div_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.0, -3.0, 1.0]> : tensor<3xf32>
  %b = jaxc.constant dense<[4.0, 2.0, 0.0]> : tensor<3xf32>
  %r = jaxc.div %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}

// Signed division rounds toward zero.
// CHECK-LABEL: func.func @div_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[3, -3, -3, 3]> : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @div_i32() -> tensor<4xi32> {
  %a = jaxc.constant dense<[7, -7, 7, -7]> : tensor<4xi32>
  %b = jaxc.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %r = jaxc.div %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}

// Unsigned: 4294967295 / 2 = 2147483647 (as signed, -1 / 2 would be 0).
// CHECK-LABEL: func.func @div_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[2147483647, 3]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @div_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[4294967295, 7]> : tensor<2xui32>
  %b = jaxc.constant dense<[2, 2]> : tensor<2xui32>
  %r = jaxc.div %a, %b : tensor<2xui32>
  return %r : tensor<2xui32>
}

// max propagates NaN.
// CHECK-LABEL: func.func @max_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1.000000e+00, 3.000000e+00, 0x7FC00000]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @max_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.0, -2.0, 0x7FC00000]> : tensor<3xf32>
  %b = jaxc.constant dense<[0.5, 3.0, 1.0]> : tensor<3xf32>
  %r = jaxc.max %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}

// min propagates NaN.
// CHECK-LABEL: func.func @min_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[5.000000e-01, -2.000000e+00, 0x7FC00000]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @min_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.0, -2.0, 1.0]> : tensor<3xf32>
  %b = jaxc.constant dense<[0.5, 3.0, 0x7FC00000]> : tensor<3xf32>
  %r = jaxc.min %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @max_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1, 5]> : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @max_i32() -> tensor<2xi32> {
  %a = jaxc.constant dense<[-1, 5]> : tensor<2xi32>
  %b = jaxc.constant dense<[1, 3]> : tensor<2xi32>
  %r = jaxc.max %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// CHECK-LABEL: func.func @min_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[-1, 3]> : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @min_i32() -> tensor<2xi32> {
  %a = jaxc.constant dense<[-1, 5]> : tensor<2xi32>
  %b = jaxc.constant dense<[1, 3]> : tensor<2xi32>
  %r = jaxc.min %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// Unsigned: 4294967295 is the largest ui32 (as signed it would be -1).
// CHECK-LABEL: func.func @max_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[4294967295, 5]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @max_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[4294967295, 5]> : tensor<2xui32>
  %b = jaxc.constant dense<[1, 3]> : tensor<2xui32>
  %r = jaxc.max %a, %b : tensor<2xui32>
  return %r : tensor<2xui32>
}

// CHECK-LABEL: func.func @min_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1, 3]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @min_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[4294967295, 5]> : tensor<2xui32>
  %b = jaxc.constant dense<[1, 3]> : tensor<2xui32>
  %r = jaxc.min %a, %b : tensor<2xui32>
  return %r : tensor<2xui32>
}

// On i1, true > false.
// CHECK-LABEL: func.func @max_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: return %[[R]] : tensor<2xi1>
func.func @max_i1() -> tensor<2xi1> {
  %a = jaxc.constant dense<[true, false]> : tensor<2xi1>
  %b = jaxc.constant dense<[false, false]> : tensor<2xi1>
  %r = jaxc.max %a, %b : tensor<2xi1>
  return %r : tensor<2xi1>
}

// CHECK-LABEL: func.func @and_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @and_i1() -> tensor<4xi1> {
  %a = jaxc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = jaxc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %r = jaxc.and %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @or_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @or_i1() -> tensor<4xi1> {
  %a = jaxc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = jaxc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %r = jaxc.or %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @xor_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @xor_i1() -> tensor<4xi1> {
  %a = jaxc.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = jaxc.constant dense<[true, false, true, false]> : tensor<4xi1>
  %r = jaxc.xor %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}

// 0b1100 & 0b1010 = 0b1000; -1 & 5 = 5.
// CHECK-LABEL: func.func @and_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[8, 5]> : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @and_i32() -> tensor<2xi32> {
  %a = jaxc.constant dense<[12, -1]> : tensor<2xi32>
  %b = jaxc.constant dense<[10, 5]> : tensor<2xi32>
  %r = jaxc.and %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// 0b1100 | 0b1010 = 0b1110; ...11000 | 011 = ...11011 = -5.
// CHECK-LABEL: func.func @or_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[14, -5]> : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @or_i32() -> tensor<2xi32> {
  %a = jaxc.constant dense<[12, -8]> : tensor<2xi32>
  %b = jaxc.constant dense<[10, 3]> : tensor<2xi32>
  %r = jaxc.or %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// 0b1100 ^ 0b1010 = 0b0110; -1 ^ 5 = ~5 = -6.
// CHECK-LABEL: func.func @xor_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[6, -6]> : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @xor_i32() -> tensor<2xi32> {
  %a = jaxc.constant dense<[12, -1]> : tensor<2xi32>
  %b = jaxc.constant dense<[10, 5]> : tensor<2xi32>
  %r = jaxc.xor %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// CHECK-LABEL: func.func @xor_i32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<240> : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @xor_i32_splat() -> tensor<4xi32> {
  %a = jaxc.constant dense<255> : tensor<4xi32>
  %b = jaxc.constant dense<15> : tensor<4xi32>
  %r = jaxc.xor %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Unary constant folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @neg_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[-1.500000e+00, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @neg_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.5, -2.0, 0.0]> : tensor<3xf32>
  %r = jaxc.neg %a : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -INT_MIN wraps to INT_MIN.
// CHECK-LABEL: func.func @neg_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[-5, 7, -2147483648]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @neg_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[5, -7, -2147483648]> : tensor<3xi32>
  %r = jaxc.neg %a : tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @neg_f32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<-3.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x2xf32>
func.func @neg_f32_splat() -> tensor<2x2xf32> {
  %a = jaxc.constant dense<3.0> : tensor<2x2xf32>
  %r = jaxc.neg %a : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @abs_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[2.500000e+00, 3.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @abs_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[-2.5, 3.0, -0.0]> : tensor<3xf32>
  %r = jaxc.abs %a : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @abs_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[7, 7, 0]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @abs_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[-7, 7, 0]> : tensor<3xi32>
  %r = jaxc.abs %a : tensor<3xi32>
  return %r : tensor<3xi32>
}

// Unsigned values are their own absolute value.
// CHECK-LABEL: func.func @abs_ui32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[4294967295, 3]> : tensor<2xui32>
// CHECK-NEXT: return %[[R]] : tensor<2xui32>
func.func @abs_ui32() -> tensor<2xui32> {
  %a = jaxc.constant dense<[4294967295, 3]> : tensor<2xui32>
  %r = jaxc.abs %a : tensor<2xui32>
  return %r : tensor<2xui32>
}

// e = 2.718281828...; the nearest f32 is 2.71828175 (2.7182817459...).
// CHECK-LABEL: func.func @exp_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @exp_f32() -> tensor<2xf32> {
  %a = jaxc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %r = jaxc.exp %a : tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @exp_f64()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<2.7182818284590451> : tensor<f64>
// CHECK-NEXT: return %[[R]] : tensor<f64>
func.func @exp_f64() -> tensor<f64> {
  %a = jaxc.constant dense<1.0> : tensor<f64>
  %r = jaxc.exp %a : tensor<f64>
  return %r : tensor<f64>
}

// CHECK-LABEL: func.func @log_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[0.000000e+00, 1.38629436, 0.693147182]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @log_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[1.0, 4.0, 2.0]> : tensor<3xf32>
  %r = jaxc.log %a : tensor<3xf32>
  return %r : tensor<3xf32>
}

// sin(0.5) = 0.4794255386...
// CHECK-LABEL: func.func @sin_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[0.000000e+00, 0.47942555]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @sin_f32() -> tensor<2xf32> {
  %a = jaxc.constant dense<[0.0, 0.5]> : tensor<2xf32>
  %r = jaxc.sin %a : tensor<2xf32>
  return %r : tensor<2xf32>
}

// cos(0.5) = 0.8775825618...
// CHECK-LABEL: func.func @cos_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[1.000000e+00, 0.87758255]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @cos_f32() -> tensor<2xf32> {
  %a = jaxc.constant dense<[0.0, 0.5]> : tensor<2xf32>
  %r = jaxc.cos %a : tensor<2xf32>
  return %r : tensor<2xf32>
}

// tanh(0.5) = 0.4621171572..., tanh(-1) = -0.7615941559...
// CHECK-LABEL: func.func @tanh_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[0.462117165, -0.761594176]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @tanh_f32() -> tensor<2xf32> {
  %a = jaxc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %r = jaxc.tanh %a : tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @sqrt_f32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[2.000000e+00, 1.41421354, 5.000000e-01]> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @sqrt_f32() -> tensor<3xf32> {
  %a = jaxc.constant dense<[4.0, 2.0, 0.25]> : tensor<3xf32>
  %r = jaxc.sqrt %a : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @sqrt_f32_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<3.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @sqrt_f32_splat() -> tensor<3xf32> {
  %a = jaxc.constant dense<9.0> : tensor<3xf32>
  %r = jaxc.sqrt %a : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @not_i1()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NEXT: return %[[R]] : tensor<2xi1>
func.func @not_i1() -> tensor<2xi1> {
  %a = jaxc.constant dense<[true, false]> : tensor<2xi1>
  %r = jaxc.not %a : tensor<2xi1>
  return %r : tensor<2xi1>
}

// ~x = -x - 1.
// CHECK-LABEL: func.func @not_i32()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<[-1, -6, 0]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @not_i32() -> tensor<3xi32> {
  %a = jaxc.constant dense<[0, 5, -1]> : tensor<3xi32>
  %r = jaxc.not %a : tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @not_ui8_splat()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<255> : tensor<4xui8>
// CHECK-NEXT: return %[[R]] : tensor<4xui8>
func.func @not_ui8_splat() -> tensor<4xui8> {
  %a = jaxc.constant dense<0> : tensor<4xui8>
  %r = jaxc.not %a : tensor<4xui8>
  return %r : tensor<4xui8>
}

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// x + (-0.0) -> x for floats (exact for every x, including -0.0)
// CHECK-LABEL: func.func @add_zero_rhs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @add_zero_rhs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = jaxc.constant dense<-0.0> : tensor<4xf32>
  %r = jaxc.add %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// x + 0.0 is not folded for floats: (-0.0) + 0.0 = +0.0, not -0.0.
// CHECK-LABEL: func.func @add_positive_zero_stays(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.add %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @add_positive_zero_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = jaxc.constant dense<0.0> : tensor<4xf32>
  %r = jaxc.add %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// 0 + x -> x
// CHECK-LABEL: func.func @add_zero_lhs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xi32>)
// CHECK-NEXT: return %[[X]] : tensor<3xi32>
func.func @add_zero_lhs(%x: tensor<3xi32>) -> tensor<3xi32> {
  %zero = jaxc.constant dense<0> : tensor<3xi32>
  %r = jaxc.add %zero, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}

// x or false -> x (add on i1)
// CHECK-LABEL: func.func @add_false(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xi1>)
// CHECK-NEXT: return %[[X]] : tensor<3xi1>
func.func @add_false(%x: tensor<3xi1>) -> tensor<3xi1> {
  %false = jaxc.constant dense<false> : tensor<3xi1>
  %r = jaxc.add %x, %false : tensor<3xi1>
  return %r : tensor<3xi1>
}

// x - 0 -> x
// CHECK-LABEL: func.func @sub_zero(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2xui32>)
// CHECK-NEXT: return %[[X]] : tensor<2xui32>
func.func @sub_zero(%x: tensor<2xui32>) -> tensor<2xui32> {
  %zero = jaxc.constant dense<0> : tensor<2xui32>
  %r = jaxc.sub %x, %zero : tensor<2xui32>
  return %r : tensor<2xui32>
}

// x * 1 -> x
// CHECK-LABEL: func.func @mul_one_rhs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x2xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x2xf32>
func.func @mul_one_rhs(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %one = jaxc.constant dense<1.0> : tensor<2x2xf32>
  %r = jaxc.mul %x, %one : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// 1 * x -> x
// CHECK-LABEL: func.func @mul_one_lhs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xi32>)
// CHECK-NEXT: return %[[X]] : tensor<3xi32>
func.func @mul_one_lhs(%x: tensor<3xi32>) -> tensor<3xi32> {
  %one = jaxc.constant dense<1> : tensor<3xi32>
  %r = jaxc.mul %one, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}

// x and true -> x (mul on i1)
// CHECK-LABEL: func.func @mul_true(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xi1>)
// CHECK-NEXT: return %[[X]] : tensor<3xi1>
func.func @mul_true(%x: tensor<3xi1>) -> tensor<3xi1> {
  %true = jaxc.constant dense<true> : tensor<3xi1>
  %r = jaxc.mul %x, %true : tensor<3xi1>
  return %r : tensor<3xi1>
}

// x / 1 -> x
// CHECK-LABEL: func.func @div_one(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[U:[a-z0-9_]+]]: tensor<4xui32>)
// CHECK-NEXT: return %[[X]], %[[U]] : tensor<4xf32>, tensor<4xui32>
func.func @div_one(%x: tensor<4xf32>, %u: tensor<4xui32>) -> (tensor<4xf32>, tensor<4xui32>) {
  %one = jaxc.constant dense<1.0> : tensor<4xf32>
  %r = jaxc.div %x, %one : tensor<4xf32>
  %uone = jaxc.constant dense<1> : tensor<4xui32>
  %s = jaxc.div %u, %uone : tensor<4xui32>
  return %r, %s : tensor<4xf32>, tensor<4xui32>
}

// max(x, x) -> x, min(x, x) -> x, and(x, x) -> x, or(x, x) -> x
// CHECK-LABEL: func.func @idempotent(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[I:[a-z0-9_]+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[I]], %[[I]] : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
func.func @idempotent(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = jaxc.max %x, %x : tensor<4xf32>
  %1 = jaxc.min %x, %x : tensor<4xf32>
  %2 = jaxc.and %i, %i : tensor<4xi32>
  %3 = jaxc.or %i, %i : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// convert(x : T -> T) -> x
// CHECK-LABEL: func.func @convert_same_type(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @convert_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = jaxc.convert %x : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A conversion that changes the type stays.
// CHECK-LABEL: func.func @convert_other_type(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.convert %[[X]] : tensor<4xf32> -> tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @convert_other_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  %r = jaxc.convert %x : tensor<4xf32> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]):
// p1 = [1, 0, 2], p2 = [0, 2, 1] -> [p1[0], p1[2], p1[1]] = [1, 2, 0].
// CHECK-LABEL: func.func @transpose_of_transpose(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = jaxc.transpose %[[X]], perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<3x4x2xf32>
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = jaxc.transpose %x, perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = jaxc.transpose %0, perm = [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// p1 = [1, 2, 0], p2 = [2, 0, 1] -> [p1[2], p1[0], p1[1]] = [0, 1, 2]: the
// identity, so both transposes go.
// CHECK-LABEL: func.func @transpose_of_transpose_identity(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_of_transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = jaxc.transpose %x, perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = jaxc.transpose %0, perm = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// transpose(dot_general(a, b)) that puts b's free dims before a's ->
// dot_general(b, a): the product is written in the transposed layout.
// Batch dims stay first; a's free dims (2) and b's (3, 4) swap places.
// CHECK-LABEL: func.func @transpose_of_dot_general(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<5x6x2xf32>, %[[B:[a-z0-9_]+]]: tensor<5x3x4x6xf32>)
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.dot_general %[[B]], %[[A]], batch = [0] x [0], contract = [3] x [1] : (tensor<5x3x4x6xf32>, tensor<5x6x2xf32>) -> tensor<5x3x4x2xf32>
// CHECK-NEXT: return %[[D]] : tensor<5x3x4x2xf32>
func.func @transpose_of_dot_general(%a: tensor<5x6x2xf32>, %b: tensor<5x3x4x6xf32>) -> tensor<5x3x4x2xf32> {
  %0 = jaxc.dot_general %a, %b, batch = [0] x [0], contract = [1] x [3] : (tensor<5x6x2xf32>, tensor<5x3x4x6xf32>) -> tensor<5x2x3x4xf32>
  %1 = jaxc.transpose %0, perm = [0, 2, 3, 1] : tensor<5x2x3x4xf32> -> tensor<5x3x4x2xf32>
  return %1 : tensor<5x3x4x2xf32>
}

// Any other permutation (here b's free dims reordered too) keeps the
// transpose, and so does a second use of the product.
// CHECK-LABEL: func.func @transpose_of_dot_general_kept(
// CHECK: %[[D:[a-z0-9_]+]] = jaxc.dot_general %{{.+}}, %{{.+}}, batch = [] x [], contract = [0] x [0]
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = jaxc.transpose %[[D]], perm = [2, 1, 0]
// CHECK: %[[E:[a-z0-9_]+]] = jaxc.dot_general %{{.+}}, %{{.+}}, batch = [] x [], contract = [1] x [0]
// CHECK-NEXT: %[[U:[a-z0-9_]+]] = jaxc.transpose %[[E]], perm = [1, 0]
// CHECK-NEXT: return %[[T]], %[[E]], %[[U]]
func.func @transpose_of_dot_general_kept(%a: tensor<6x2xf32>, %b: tensor<6x3x4xf32>, %c: tensor<2x3xf32>, %d: tensor<3x5xf32>)
    -> (tensor<4x3x2xf32>, tensor<2x5xf32>, tensor<5x2xf32>) {
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [0] x [0] : (tensor<6x2xf32>, tensor<6x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = jaxc.transpose %0, perm = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %2 = jaxc.dot_general %c, %d, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %3 = jaxc.transpose %2, perm = [1, 0] : tensor<2x5xf32> -> tensor<5x2xf32>
  return %1, %2, %3 : tensor<4x3x2xf32>, tensor<2x5xf32>, tensor<5x2xf32>
}

// transpose(x, [0, 1]) -> x
// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jaxc.transpose %x, perm = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// reshape(reshape(x)) -> reshape(x)
// CHECK-LABEL: func.func @reshape_of_reshape(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<6xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.reshape %[[X]] : (tensor<6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x2xf32>
func.func @reshape_of_reshape(%x: tensor<6xf32>) -> tensor<3x2xf32> {
  %0 = jaxc.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = jaxc.reshape %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// reshape(reshape(x : A -> B) : B -> A) -> x
// CHECK-LABEL: func.func @reshape_round_trip(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<6xf32>)
// CHECK-NEXT: return %[[X]] : tensor<6xf32>
func.func @reshape_round_trip(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = jaxc.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = jaxc.reshape %0 : (tensor<2x3xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// reshape(x : T -> T) -> x
// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xi32>
func.func @reshape_same_type(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = jaxc.reshape %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// A constant is reshaped row-major.
// CHECK-LABEL: func.func @reshape_of_constant()
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xi32>
func.func @reshape_of_constant() -> tensor<2x3xi32> {
  %c = jaxc.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = jaxc.reshape %c : (tensor<6xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @reshape_of_splat()
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<1.500000e+00> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]] : tensor<3x2xf32>
func.func @reshape_of_splat() -> tensor<3x2xf32> {
  %c = jaxc.constant dense<1.5> : tensor<6xf32>
  %0 = jaxc.reshape %c : (tensor<6xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// broadcast_in_dim(x : T -> T) -> x
// CHECK-LABEL: func.func @broadcast_same_type(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @broadcast_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jaxc.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A splat broadcasts to a splat of the result type.
// CHECK-LABEL: func.func @broadcast_of_splat()
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xf32>
func.func @broadcast_of_splat() -> tensor<2x3xf32> {
  %c = jaxc.constant dense<2.0> : tensor<f32>
  %0 = jaxc.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @broadcast_of_splat_1d()
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<7> : tensor<3x4xi32>
// CHECK-NEXT: return %[[C]] : tensor<3x4xi32>
func.func @broadcast_of_splat_1d() -> tensor<3x4xi32> {
  %c = jaxc.constant dense<7> : tensor<1xi32>
  %0 = jaxc.broadcast_in_dim %c, dims = [1] : (tensor<1xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// concatenate(x) -> x
// CHECK-LABEL: func.func @concatenate_one_input(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @concatenate_one_input(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jaxc.concatenate(%x), dim = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Dead code: unused pure ops disappear
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dead_exp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @dead_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = jaxc.exp %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Must not fold
//===----------------------------------------------------------------------===//

// Integer division by zero is left to run time: the whole constant stays
// unfolded, including the well-defined 6 / 2.
// CHECK-LABEL: func.func @no_fold_div_i32_by_zero()
// CHECK-DAG: %[[A:[a-z0-9_]+]] = jaxc.constant dense<[7, 6]> : tensor<2xi32>
// CHECK-DAG: %[[B:[a-z0-9_]+]] = jaxc.constant dense<[0, 2]> : tensor<2xi32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.div %[[A]], %[[B]] : tensor<2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2xi32>
func.func @no_fold_div_i32_by_zero() -> tensor<2xi32> {
  %a = jaxc.constant dense<[7, 6]> : tensor<2xi32>
  %b = jaxc.constant dense<[0, 2]> : tensor<2xi32>
  %r = jaxc.div %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}

// CHECK-LABEL: func.func @no_fold_div_ui32_by_zero()
// CHECK-DAG: %[[A:[a-z0-9_]+]] = jaxc.constant dense<5> : tensor<ui32>
// CHECK-DAG: %[[B:[a-z0-9_]+]] = jaxc.constant dense<0> : tensor<ui32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.div %[[A]], %[[B]] : tensor<ui32>
// CHECK-NEXT: return %[[R]] : tensor<ui32>
func.func @no_fold_div_ui32_by_zero() -> tensor<ui32> {
  %a = jaxc.constant dense<5> : tensor<ui32>
  %b = jaxc.constant dense<0> : tensor<ui32>
  %r = jaxc.div %a, %b : tensor<ui32>
  return %r : tensor<ui32>
}

// INT_MIN / -1 overflows.
// CHECK-LABEL: func.func @no_fold_div_int_min_by_minus_one()
// CHECK-DAG: %[[A:[a-z0-9_]+]] = jaxc.constant dense<-2147483648> : tensor<i32>
// CHECK-DAG: %[[B:[a-z0-9_]+]] = jaxc.constant dense<-1> : tensor<i32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.div %[[A]], %[[B]] : tensor<i32>
// CHECK-NEXT: return %[[R]] : tensor<i32>
func.func @no_fold_div_int_min_by_minus_one() -> tensor<i32> {
  %a = jaxc.constant dense<-2147483648> : tensor<i32>
  %b = jaxc.constant dense<-1> : tensor<i32>
  %r = jaxc.div %a, %b : tensor<i32>
  return %r : tensor<i32>
}

// For ui32, 2147483648 / 4294967295 is an ordinary unsigned division (= 0),
// not INT_MIN / -1.
// CHECK-LABEL: func.func @div_ui32_large()
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.constant dense<0> : tensor<ui32>
// CHECK-NEXT: return %[[R]] : tensor<ui32>
func.func @div_ui32_large() -> tensor<ui32> {
  %a = jaxc.constant dense<2147483648> : tensor<ui32>
  %b = jaxc.constant dense<4294967295> : tensor<ui32>
  %r = jaxc.div %a, %b : tensor<ui32>
  return %r : tensor<ui32>
}

// x + 1 is not x.
// CHECK-LABEL: func.func @no_fold_add_one(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = jaxc.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.add %[[X]], %[[ONE]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @no_fold_add_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = jaxc.constant dense<1.0> : tensor<4xf32>
  %r = jaxc.add %x, %one : tensor<4xf32>
  return %r : tensor<4xf32>
}

// 0 - x is not x.
// CHECK-LABEL: func.func @no_fold_zero_minus_x(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xi32>)
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = jaxc.constant dense<0> : tensor<4xi32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.sub %[[ZERO]], %[[X]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @no_fold_zero_minus_x(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = jaxc.constant dense<0> : tensor<4xi32>
  %r = jaxc.sub %zero, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// x * 0 is not 0 for floats (NaN * 0 = NaN, inf * 0 = NaN).
// CHECK-LABEL: func.func @no_fold_mul_zero_f32(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = jaxc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[ZERO]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @no_fold_mul_zero_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = jaxc.constant dense<0.0> : tensor<4xf32>
  %r = jaxc.mul %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// 1 / x is not x.
// CHECK-LABEL: func.func @no_fold_one_over_x(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = jaxc.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @no_fold_one_over_x(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = jaxc.constant dense<1.0> : tensor<4xf32>
  %r = jaxc.div %one, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// A non-identity transpose stays.
// CHECK-LABEL: func.func @no_fold_transpose(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = jaxc.transpose %[[X]], perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<3x2xf32>
func.func @no_fold_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
