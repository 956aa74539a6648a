// Invalid creation and elementwise ops: constant, iota, unary, binary,
// compare, select, clamp, convert, bitcast_convert, plus the ODS-level
// element-type and shape constraints shared by every op.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @constant_value_type_differs_from_result() {
  // expected-error @+1 {{'jaxc.constant' op value has type 'tensor<2xf32>' but the result has type 'tensor<3xf32>'}}
  %0 = "jaxc.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_dynamic_shape() {
  // expected-error @+1 {{'jaxc.constant' op result #0 must be statically shaped tensor of jaxc element type values, but got 'tensor<?xf32>'}}
  %0 = "jaxc.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<?xf32>
  return
}

// -----

func.func @iota_rank_0() {
  // expected-error @+1 {{'jaxc.iota' op result must have rank >= 1, got 'tensor<i32>'}}
  %0 = jaxc.iota dim = 0 : tensor<i32>
  return
}

// -----

func.func @iota_dimension_too_large() {
  // expected-error @+1 {{'jaxc.iota' op iota_dimension 2 is out of range for result 'tensor<2x3xi32>' of rank 2}}
  %0 = jaxc.iota dim = 2 : tensor<2x3xi32>
  return
}

// -----

// (The message prints -1 as 18446744073709551615 today: the I64Attr getter is
// unsigned. Only the stable part is matched.)
func.func @iota_dimension_negative() {
  // expected-error @+1 {{is out of range for result 'tensor<2x3xf32>' of rank 2}}
  %0 = jaxc.iota dim = -1 : tensor<2x3xf32>
  return
}

// -----

func.func @iota_of_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jaxc.iota' op result #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer values, but got 'tensor<4xi1>'}}
  %0 = jaxc.iota dim = 0 : tensor<4xi1>
  return
}

// -----

// A float-only op on integers.
func.func @sin_of_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.sin' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi32>'}}
  %0 = jaxc.sin %x : tensor<4xi32>
  return
}

// -----

func.func @exp_of_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jaxc.exp' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi1>'}}
  %0 = jaxc.exp %x : tensor<4xi1>
  return
}

// -----

// Dynamic shapes are rejected everywhere.
func.func @neg_of_dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.neg' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<?xf32>'}}
  %0 = jaxc.neg %x : tensor<?xf32>
  return
}

// -----

// So are unranked tensors: the custom syntax parses only ranked tensors, the
// generic form reaches the ODS constraint.
func.func @exp_of_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'jaxc.exp' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = jaxc.exp %x : tensor<*xf32>
  return
}

// -----

func.func @exp_of_unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'jaxc.exp' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<*xf32>'}}
  %0 = "jaxc.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Element types outside the jaxc set (index, f8, i4) are rejected.
func.func @add_of_index(%x: tensor<4xindex>) {
  // expected-error @+1 {{'jaxc.add' op operand #0 must be statically shaped tensor of jaxc element type values, but got 'tensor<4xindex>'}}
  %0 = jaxc.add %x, %x : tensor<4xindex>
  return
}

// -----

func.func @abs_of_i4(%x: tensor<4xi4>) {
  // expected-error @+1 {{'jaxc.abs' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi4>'}}
  %0 = jaxc.abs %x : tensor<4xi4>
  return
}

// -----

// Scalars are 0-d tensors, not bare element types.
func.func @neg_of_bare_f32(%x: f32) {
  // expected-error @+1 {{custom op 'jaxc.neg' invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = jaxc.neg %x : f32
  return
}

// -----

func.func @neg_of_bare_f32_generic(%x: f32) {
  // expected-error @+1 {{'jaxc.neg' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'f32'}}
  %0 = "jaxc.neg"(%x) : (f32) -> f32
  return
}

// -----

func.func @not_of_f32(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.not' op operand #0 must be statically shaped tensor of jaxc integer or 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = jaxc.not %x : tensor<4xf32>
  return
}

// -----

func.func @population_count_of_f32(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.population_count' op operand #0 must be statically shaped tensor of jaxc integer values, but got 'tensor<4xf32>'}}
  %0 = jaxc.population_count %x : tensor<4xf32>
  return
}

// -----

func.func @unary_result_type_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.sin' op requires the same type for all operands and results}}
  %0 = "jaxc.sin"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @round_unknown_method(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'rounding_method' [away_from_zero, to_nearest_even]}}
  %0 = jaxc.round %x, to_zero : tensor<4xf32>
  return
}

// -----

func.func @round_of_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.round' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = jaxc.round %x : tensor<4xi32>
  return
}

// -----

// is_finite infers its result while parsing: a dynamic operand is reported
// by the type inference, by name.
func.func @is_finite_of_dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.is_finite' op operand must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.is_finite %x : tensor<?xf32>
  return
}

// -----

func.func @is_finite_of_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.is_finite' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = jaxc.is_finite %x : tensor<4xi32>
  return
}

// -----

// Binary operands of different element types: named by operand and type.
func.func @add_element_types_differ(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'jaxc.add' op operand 'rhs' has type 'tensor<4xf16>' but operand 'lhs' has type 'tensor<4xf32>'; elementwise operands must have the same shape and element type}}
  // expected-error @+1 {{'jaxc.add' op failed to infer returned types}}
  %0 = "jaxc.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @and_signedness_differs(%a: tensor<4xi32>, %b: tensor<4xui32>) {
  // expected-error @+2 {{'jaxc.and' op operand 'rhs' has type 'tensor<4xui32>' but operand 'lhs' has type 'tensor<4xi32>'}}
  // expected-error @+1 {{'jaxc.and' op failed to infer returned types}}
  %0 = "jaxc.and"(%a, %b) : (tensor<4xi32>, tensor<4xui32>) -> tensor<4xi32>
  return
}

// -----

// Binary operands of different shapes are named with their types.
func.func @add_shapes_differ(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'jaxc.add' op operand 'rhs' has type 'tensor<3xf32>' but operand 'lhs' has type 'tensor<4xf32>'; elementwise operands must have the same shape and element type}}
  // expected-error @+1 {{'jaxc.add' op failed to infer returned types}}
  %0 = "jaxc.add"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_result_type_differs(%a: tensor<4xf32>) {
  // expected-error @+2 {{'jaxc.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'jaxc.add' op failed to infer returned types}}
  %0 = "jaxc.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @sub_of_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'jaxc.sub' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi1>'}}
  %0 = jaxc.sub %a, %a : tensor<4xi1>
  return
}

// -----

func.func @xor_of_f32(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.xor' op operand #0 must be statically shaped tensor of jaxc integer or 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = jaxc.xor %a, %a : tensor<4xf32>
  return
}

// -----

func.func @shift_left_of_f32(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.shift_left' op operand #0 must be statically shaped tensor of jaxc integer values, but got 'tensor<4xf32>'}}
  %0 = jaxc.shift_left %a, %a : tensor<4xf32>
  return
}

// -----

func.func @atan2_of_i32(%a: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.atan2' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = jaxc.atan2 %a, %a : tensor<4xi32>
  return
}

// -----

func.func @compare_unknown_direction(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'comparison_direction' [eq, ne, lt, le, gt, ge]}}
  %0 = jaxc.compare lte, %a, %a : tensor<4xf32>
  return
}

// -----

func.func @compare_direction_out_of_range(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.compare' op attribute 'comparison_direction' failed to satisfy constraint: comparison direction}}
  %0 = "jaxc.compare"(%a, %a) {comparison_direction = 6 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_element_types_differ(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+2 {{'jaxc.compare' op operand 'rhs' has type 'tensor<4xi32>' but operand 'lhs' has type 'tensor<4xf32>'}}
  // expected-error @+1 {{'jaxc.compare' op failed to infer returned types}}
  %0 = "jaxc.compare"(%a, %b) {comparison_direction = 2 : i32} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "jaxc.compare"(%a, %a) {comparison_direction = 0 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_of_dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.compare' op operand 'lhs' must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.compare eq, %a, %a : tensor<?xf32>
  return
}

// -----

// The predicate is 0-d or has the operands' shape.
func.func @select_predicate_wrong_shape(%m: tensor<3xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.select' op predicate type 'tensor<3xi1>' must be 0-d or have the shape of 'on_true' 'tensor<4xf32>'}}
  %0 = jaxc.select %m, %x, %y : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_predicate_not_i1(%m: tensor<4xi32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = jaxc.select %m, %x, %x : tensor<4xi32>, tensor<4xf32>
  return
}

// -----

func.func @select_predicate_dynamic(%m: tensor<?xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.select' op operand 'pred' must be a statically shaped tensor, got 'tensor<?xi1>'}}
  %0 = jaxc.select %m, %x, %x : tensor<?xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_on_true_dynamic(%m: tensor<i1>, %x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.select' op operand 'on_true' must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.select %m, %x, %x : tensor<i1>, tensor<?xf32>
  return
}

// -----

func.func @select_branches_differ(%m: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+2 {{'jaxc.select' op operand 'on_false' has type 'tensor<4xi32>' but operand 'on_true' has type 'tensor<4xf32>'}}
  // expected-error @+1 {{'jaxc.select' op failed to infer returned types}}
  %0 = "jaxc.select"(%m, %x, %y) : (tensor<i1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_min_wrong_shape(%lo: tensor<3xf32>, %x: tensor<4xf32>, %hi: tensor<f32>) {
  // expected-error @+1 {{'jaxc.clamp' op operand 'min' has type 'tensor<3xf32>' but must be 0-d or have the type of 'operand' 'tensor<4xf32>' (same element type)}}
  %0 = jaxc.clamp %lo, %x, %hi : tensor<3xf32>, tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @clamp_max_wrong_element_type(%lo: tensor<f32>, %x: tensor<4xf32>, %hi: tensor<i32>) {
  // expected-error @+1 {{'jaxc.clamp' op operand 'max' has type 'tensor<i32>' but must be 0-d or have the type of 'operand' 'tensor<4xf32>' (same element type)}}
  %0 = jaxc.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<i32>
  return
}

// -----

func.func @clamp_operand_dynamic(%lo: tensor<f32>, %x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.clamp' op operand 'operand' must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.clamp %lo, %x, %lo : tensor<f32>, tensor<?xf32>, tensor<f32>
  return
}

// -----

func.func @clamp_min_dynamic(%lo: tensor<?xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.clamp' op operand 'min' must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.clamp %lo, %x, %x : tensor<?xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// convert changes only the element type.
func.func @convert_changes_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.convert' op operand shape 'tensor<4xf32>' and result shape 'tensor<3xi32>' differ; convert changes only the element type}}
  %0 = jaxc.convert %x : tensor<4xf32> -> tensor<3xi32>
  return
}

// -----

func.func @bitcast_convert_of_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op cannot bitcast i1 elements ('tensor<4xi1>' -> 'tensor<4xi8>')}}
  %0 = jaxc.bitcast_convert %x : tensor<4xi1> -> tensor<4xi8>
  return
}

// -----

func.func @bitcast_convert_to_i1(%x: tensor<4xi8>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op cannot bitcast i1 elements ('tensor<4xi8>' -> 'tensor<4xi1>')}}
  %0 = jaxc.bitcast_convert %x : tensor<4xi8> -> tensor<4xi1>
  return
}

// -----

// Widening needs a trailing dimension of the width ratio.
func.func @bitcast_convert_widen_without_trailing_dim(%x: tensor<4xui16>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op operand 'tensor<4xui16>' must end in a dimension of size 2 to bitcast to 32-bit elements}}
  %0 = jaxc.bitcast_convert %x : tensor<4xui16> -> tensor<f32>
  return
}

// -----

func.func @bitcast_convert_widen_from_0d(%x: tensor<ui8>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op operand 'tensor<ui8>' must end in a dimension of size 8 to bitcast to 64-bit elements}}
  %0 = jaxc.bitcast_convert %x : tensor<ui8> -> tensor<f64>
  return
}

// -----

// Narrowing adds the trailing dimension.
func.func @bitcast_convert_narrow_wrong_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op result 'tensor<4xui16>' must have shape [4, 2] when bitcasting 'tensor<4xf32>'}}
  %0 = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<4xui16>
  return
}

// -----

func.func @bitcast_convert_same_width_wrong_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op result 'tensor<2x2xi32>' must have shape [4] when bitcasting 'tensor<4xf32>'}}
  %0 = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<2x2xi32>
  return
}

// -----

func.func @bitcast_convert_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.bitcast_convert' op cannot bitcast complex elements ('tensor<4xcomplex<f32>>' -> 'tensor<4xi64>')}}
  %0 = jaxc.bitcast_convert %x : tensor<4xcomplex<f32>> -> tensor<4xi64>
  return
}

// -----

func.func @real_of_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.real' op operand #0 must be statically shaped tensor of jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xf32>'}}
  %0 = jaxc.real %x : tensor<4xf32>
  return
}

// -----

func.func @conj_of_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.conj' op operand #0 must be statically shaped tensor of jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xf32>'}}
  %0 = jaxc.conj %x : tensor<4xf32>
  return
}

// -----

func.func @complex_of_mixed_widths(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error @+2 {{'jaxc.complex' op operand 'rhs' has type 'tensor<4xf64>' but operand 'lhs' has type 'tensor<4xf32>'; elementwise operands must have the same shape and element type}}
  // expected-error @+1 {{'jaxc.complex' op failed to infer returned types}}
  %0 = "jaxc.complex"(%x, %y) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @complex_of_f16(%x: tensor<4xf16>) {
  // expected-error @+1 {{'jaxc.complex' op result #0 must be statically shaped tensor of jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<4xcomplex<f16>>'}}
  %0 = jaxc.complex %x, %x : tensor<4xf16>
  return
}

// -----

func.func @rem_of_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.rem' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = jaxc.rem %x, %x : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @floor_of_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.floor' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = jaxc.floor %x : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @complex_of_ints(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.complex' op operands must be f32 or f64 tensors, got 'tensor<4xi32>'}}
  %0 = jaxc.complex %x, %x : tensor<4xi32>
  return
}
