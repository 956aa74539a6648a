// jaxc-batch: bad requests are errors at the request, never a crash.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(jaxc-batch)'

func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @unmapped_output_is_mapped(%xs: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{jaxc-batch: out_axes[0] is None (-1) but output 0 of @id depends on the mapped axis}}
  %0 = jaxc.vmap @id(%xs) in_axes = [0] out_axes = [-1] axis_size = 4 : (tensor<4x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Mutual recursion: neither request can ever be the innermost.
func.func private @a(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{jaxc-batch: 'jaxc.vmap' cannot be expanded: its callee is recursive or maps itself}}
  %0 = jaxc.vmap @b(%x) in_axes = [-1] out_axes = [-1] axis_size = 2 : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @b(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.vmap @a(%x) in_axes = [-1] out_axes = [-1] axis_size = 2 : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The verifier checks a request against its callee before the pass runs.
func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @wrong_size(%xs: tensor<4x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'jaxc.vmap' op input #0 has type 'tensor<4x3xf32>' but in_axes[0] = 0 and axis_size 5 need 'tensor<5x3xf32>'}}
  %0 = jaxc.vmap @id(%xs) in_axes = [0] out_axes = [0] axis_size = 5 : (tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
