// Invalid reductions: reduce, argmax, argmin, cumulative, sort, top_k, hessenberg, schur, eig.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @reduce_dimension_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.reduce' op dimensions[0] = 2 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce sum %x, dims = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_dimension_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.reduce' op dimensions[1] = -1 is out of range for rank 2}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce max %x, dims = [0, -1] : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_dimension_repeats(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.reduce' op dimensions repeats dimension 1}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce sum %x, dims = [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_and_of_floats(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.reduce' op 'and' needs integer or i1 elements, got 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce and %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_or_of_floats(%x: tensor<2x3xbf16>) {
  // expected-error @+2 {{'jaxc.reduce' op 'or' needs integer or i1 elements, got 'tensor<2x3xbf16>'}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce or %x, dims = [0] : tensor<2x3xbf16> -> tensor<3xbf16>
  return
}

// -----

func.func @reduce_unknown_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, prod, max, min, and, or]}}
  %0 = jaxc.reduce mean %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_wrong_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jaxc.reduce' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'jaxc.reduce' op failed to infer returned types}}
  %0 = jaxc.reduce sum %x, dims = [1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.argmax' op axis 2 is out of range for operand 'tensor<2x3xf32>' of rank 2}}
  %0 = jaxc.argmax %x, axis = 2 : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @argmin_axis_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.argmin' op axis -1 is out of range for operand 'tensor<2x3xf32>' of rank 2}}
  %0 = jaxc.argmin %x, axis = -1 : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @argmax_wrong_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.argmax' op result 'tensor<3xi32>' must have shape [2] (operand 'tensor<2x3xf32>' without axis 1)}}
  %0 = jaxc.argmax %x, axis = 1 : tensor<2x3xf32> -> tensor<3xi32>
  return
}

// -----

func.func @argmin_float_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jaxc.argmin' op result #0 must be statically shaped tensor of jaxc integer values, but got 'tensor<2xf32>'}}
  %0 = jaxc.argmin %x, axis = 1 : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

// cumulative infers its result while parsing: one error.
func.func @cumulative_axis_out_of_range(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.cumulative' op axis 1 is out of range for operand 'tensor<5xf32>' of rank 1}}
  %0 = jaxc.cumulative sum %x, axis = 1 : tensor<5xf32>
  return
}

// -----

func.func @cumulative_of_0d(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cumulative' op axis 0 is out of range for operand 'tensor<f32>' of rank 0}}
  %0 = jaxc.cumulative prod %x, axis = 0 reverse : tensor<f32>
  return
}

// -----

func.func @cumulative_unknown_kind(%x: tensor<5xi32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, prod, max, min]}}
  %0 = jaxc.cumulative and %x, axis = 0 : tensor<5xi32>
  return
}

// -----

func.func @cumulative_of_i1(%x: tensor<5xi1>) {
  // expected-error @+1 {{'jaxc.cumulative' op operand #0 must be statically shaped tensor of jaxc float (f16, bf16, f32, f64) or jaxc integer or jaxc complex (complex<f32>, complex<f64>) values, but got 'tensor<5xi1>'}}
  %0 = jaxc.cumulative max %x, axis = 0 : tensor<5xi1>
  return
}

// -----

func.func @cumulative_of_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.cumulative' op operand must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = jaxc.cumulative sum %x, axis = 0 : tensor<?xf32>
  return
}

// -----

// No inputs: only the generic form can write that.
func.func @sort_no_inputs() {
  // expected-error @+2 {{'jaxc.sort' op needs at least one input}}
  // expected-error @+1 {{'jaxc.sort' op failed to infer returned types}}
  "jaxc.sort"() {dimension = 0 : i64, num_keys = 1 : i64} : () -> ()
  return
}

// -----

// The custom form infers the results while parsing: one error per case.
func.func @sort_shapes_differ(%k: tensor<5xf32>, %v: tensor<4xi32>) {
  // expected-error @+1 {{'jaxc.sort' op input #1 of type 'tensor<4xi32>' must have the shape of input #0 'tensor<5xf32>'}}
  %0:2 = jaxc.sort(%k, %v), dim = 0, num_keys = 1 : tensor<5xf32>, tensor<4xi32>
  return
}

// -----

func.func @sort_dimension_out_of_range(%k: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.sort' op dimension 1 is out of range for inputs of rank 1}}
  %0 = jaxc.sort(%k), dim = 1, num_keys = 1 stable : tensor<5xf32>
  return
}

// -----

func.func @sort_too_many_keys(%k: tensor<5xf32>, %v: tensor<5xi32>) {
  // expected-error @+1 {{'jaxc.sort' op num_keys 3 must be in [1, 2] (the number of inputs)}}
  %0:2 = jaxc.sort(%k, %v), dim = 0, num_keys = 3 : tensor<5xf32>, tensor<5xi32>
  return
}

// -----

// Generic form: the verifier runs the same inference, then MLIR adds
// "failed to infer returned types".
func.func @sort_zero_keys(%k: tensor<5xf32>) {
  // expected-error @+2 {{'jaxc.sort' op num_keys 0 must be in [1, 1] (the number of inputs)}}
  // expected-error @+1 {{'jaxc.sort' op failed to infer returned types}}
  %0 = "jaxc.sort"(%k) {dimension = 0 : i64, num_keys = 0 : i64} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @sort_results_differ(%k: tensor<5xf32>) {
  // expected-error @+2 {{'jaxc.sort' op inferred type(s) 'tensor<5xf32>' are incompatible with return type(s) of operation 'tensor<5xf64>'}}
  // expected-error @+1 {{'jaxc.sort' op failed to infer returned types}}
  %0 = "jaxc.sort"(%k) {dimension = 0 : i64, num_keys = 1 : i64} : (tensor<5xf32>) -> tensor<5xf64>
  return
}

// -----

func.func @top_k_k_too_large(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{'jaxc.top_k' op k = 6 must be between 0 and the size of the last axis (5) of operand 'tensor<3x5xf32>'}}
  %v, %i = jaxc.top_k %x, k = 6 : tensor<3x5xf32>
  return
}

// -----

func.func @top_k_negative_k(%x: tensor<5xi32>) {
  // expected-error @+1 {{'jaxc.top_k' op k = -1 must be between 0 and the size of the last axis (5) of operand 'tensor<5xi32>'}}
  %v, %i = jaxc.top_k %x, k = -1 : tensor<5xi32>
  return
}

// -----

func.func @top_k_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.top_k' op operand 'tensor<f32>' must have at least one axis (top_k works along the last)}}
  %v, %i = jaxc.top_k %x, k = 1 : tensor<f32>
  return
}

// -----

func.func @top_k_complex(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %v, %i = jaxc.top_k %x, k = 1 : tensor<5xcomplex<f32>>
  return
}

// -----

// Generic form: the verifier runs the same inference.
func.func @top_k_wrong_values(%x: tensor<5xf32>) {
  // expected-error @+2 {{'jaxc.top_k' op inferred type(s) 'tensor<2xf32>', 'tensor<2xi32>' are incompatible with return type(s) of operation 'tensor<3xf32>', 'tensor<2xi32>'}}
  // expected-error @+1 {{'jaxc.top_k' op failed to infer returned types}}
  %v, %i = "jaxc.top_k"(%x) {k = 2 : i64} : (tensor<5xf32>) -> (tensor<3xf32>, tensor<2xi32>)
  return
}

// -----

// Indices are i32 (as JAX's).
func.func @top_k_wrong_indices(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.top_k' op result #1 must be tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %v, %i = "jaxc.top_k"(%x) {k = 2 : i64} : (tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @schur_not_square(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'jaxc.schur' op operand 'tensor<3x4xf32>' must be a batch of square matrices}}
  %t, %z = jaxc.schur %x : tensor<3x4xf32>
  return
}

// -----

func.func @hessenberg_vector(%x: tensor<4xf64>) {
  // expected-error @+1 {{'jaxc.hessenberg' op operand 'tensor<4xf64>' must be a batch of square matrices}}
  %a, %taus = jaxc.hessenberg %x : tensor<4xf64>
  return
}

// -----

// The library computes real f32 and f64 matrices; complex ones are lax programs.
func.func @eig_complex(%x: tensor<3x3xcomplex<f32>>) {
  // expected-error @+1 {{'jaxc.eig' op operand 'tensor<3x3xcomplex<f32>>' must have f32 or f64 elements}}
  %w, %vl, %vr = jaxc.eig %x right : tensor<3x3xcomplex<f32>>
  return
}

// -----

func.func @eig_wrong_values(%x: tensor<3x3xf32>) {
  // expected-error @+2 {{'jaxc.eig' op inferred type(s) 'tensor<3xcomplex<f32>>', 'tensor<3x3xcomplex<f32>>', 'tensor<3x3xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<3xcomplex<f64>>', 'tensor<3x3xcomplex<f32>>', 'tensor<3x3xcomplex<f32>>'}}
  // expected-error @+1 {{'jaxc.eig' op failed to infer returned types}}
  %w, %vl, %vr = "jaxc.eig"(%x) : (tensor<3x3xf32>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
  return
}

// -----

func.func @eig_integers(%x: tensor<3x3xi32>) {
  // expected-error @+1 {{'jaxc.eig' op operand 'tensor<3x3xi32>' must have f32 or f64 elements}}
  %w, %vl, %vr = jaxc.eig %x : tensor<3x3xi32>
  return
}
