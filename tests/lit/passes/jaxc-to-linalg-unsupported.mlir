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

