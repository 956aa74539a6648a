// RUN: jaxc-opt %s --split-input-file --jaxc-to-linalg --verify-diagnostics

// Collectives need a mapped axis (a pmap's module, jaxc.spmd_axes); elsewhere
// they are an error at their own line, naming the op and why.
func.func @psum(%x: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'jaxc.psum' over the axes ['i']: a collective runs only inside a mapped computation, over its pmap or mesh axes (this module maps no axis; vmap axes are expanded before lowering)}}
  %0 = jaxc.psum %x, axes = ["i"] : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Transformation requests must be expanded before lowering.
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @g(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{jaxc-to-linalg: 'jaxc.jvp': a transformation request: expand it first (jaxc-autodiff / jaxc-batch)}}
  %y, %y_dot = jaxc.jvp @f(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %y_dot : tensor<f32>, tensor<f32>
}


// -----

// The library computes f32 and f64: any other LU must be expanded first.
func.func @complex_lu(%a: tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>> {
  // expected-error @+1 {{'jaxc.lu' of complex<f32> has no library call (the library computes f32 and f64): run jaxc-expand-linalg first}}
  %f, %p, %q = jaxc.lu %a : tensor<3x3xcomplex<f32>> -> (tensor<3x3xcomplex<f32>>, tensor<3xi32>, tensor<3xi32>)
  return %f : tensor<3x3xcomplex<f32>>
}

// -----

// Likewise a top_k of any other element type.
func.func @integer_top_k(%x: tensor<3x8xi32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{'jaxc.top_k' of i32 has no library call (the library computes f32 and f64): run jaxc-expand-top-k first}}
  %v, %i = jaxc.top_k %x, k = 2 : tensor<3x8xi32>
  return %v : tensor<3x2xi32>
}
