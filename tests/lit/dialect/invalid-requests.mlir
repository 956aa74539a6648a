// Invalid transformation requests: jvp, vjp, vmap, custom_jvp_call,
// custom_vjp_call, remat (with checkpoint_name and optimization_barrier).
// The named functions must exist with matching types; these checks run
// when the module verifies its symbol uses.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @jvp_callee_missing(%x: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op callee @nope does not name a function}}
  %0:2 = jaxc.jvp @nope(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// The symbol exists but is not a function.
memref.global "private" @not_a_function : memref<f32>
func.func @jvp_callee_not_a_function(%x: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op callee @not_a_function does not name a function}}
  %0:2 = jaxc.jvp @not_a_function(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// A function whose type is not a builtin function type.
llvm.func @llvm_sin(f32) -> f32
func.func @jvp_callee_without_function_type(%x: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op callee @llvm_sin has no function type}}
  %0:2 = jaxc.jvp @llvm_sin(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func @jvp_primal_types(%x: tensor<f64>, %t: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op primal types ('tensor<f64>') do not match @f: expected ('tensor<f32>')}}
  %0:2 = jaxc.jvp @f(%x) tangents(%t) : (tensor<f64>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func @jvp_tangent_count(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op tangent types () do not match @f: expected ('tensor<f32>')}}
  %0:2 = jaxc.jvp @f(%x) tangents() : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func @jvp_result_types(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.jvp' op result types (outputs, then tangents) ('tensor<f32>') do not match @f: expected ('tensor<f32>', 'tensor<f32>')}}
  %0 = jaxc.jvp @f(%x) tangents(%x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @vjp_callee_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.vjp' op callee @nope does not name a function}}
  %0:2 = jaxc.vjp @nope(%x) cotangents(%x) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vjp_primal_types(%x: tensor<4xf32>, %ct: tensor<f32>) {
  // expected-error @+1 {{'jaxc.vjp' op primal types ('tensor<4xf32>') do not match @f: expected ('tensor<3xf32>')}}
  %0:2 = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<4xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

// Cotangents are one per callee output (not per input).
func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vjp_cotangent_types(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.vjp' op cotangent types ('tensor<3xf32>') do not match @f: expected ('tensor<f32>')}}
  %0:2 = jaxc.vjp @f(%x) cotangents(%x) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vjp_result_types(%x: tensor<3xf32>, %ct: tensor<f32>) {
  // expected-error @+1 {{'jaxc.vjp' op result types (outputs, then input cotangents) ('tensor<f32>', 'tensor<f32>') do not match @f: expected ('tensor<f32>', 'tensor<3xf32>')}}
  %0:2 = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @vmap_callee_missing(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op callee @nope does not name a function}}
  %0 = jaxc.vmap @nope(%xs) in_axes = [0] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_negative_axis_size(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op axis_size -1 must be >= 0}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [0] axis_size = -1 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @vmap_in_axes_count(%xs: tensor<8x3xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op in_axes has 1 entries and there are 2 inputs, but @f takes 2}}
  %0 = jaxc.vmap @f(%xs, %w) in_axes = [0] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @vmap_input_count(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op in_axes has 2 entries and there are 1 inputs, but @f takes 2}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0, -1] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_out_axes_count(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op out_axes has 2 entries but @f returns 1}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [0, 0] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

// in_axes[i] may be at most the rank of input i (a new trailing dimension).
func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_in_axis_out_of_range(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op in_axes[0] = 2 is not a valid batch dimension for 'tensor<3xf32>' (use -1 for unbatched)}}
  %0 = jaxc.vmap @f(%xs) in_axes = [2] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_in_axis_negative(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op in_axes[0] = -2 is not a valid batch dimension for 'tensor<3xf32>' (use -1 for unbatched)}}
  %0 = jaxc.vmap @f(%xs) in_axes = [-2] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

// The input is batched along dimension 1, but in_axes says 0.
func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_in_axis_wrong(%xs: tensor<3x8xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op input #0 has type 'tensor<3x8xf32>' but in_axes[0] = 0 and axis_size 8 need 'tensor<8x3xf32>'}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [0] axis_size = 8 : (tensor<3x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @vmap_unbatched_input_type(%xs: tensor<8x3xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op input #1 has type 'tensor<8x3xf32>' but in_axes[1] = -1 and axis_size 8 need 'tensor<3xf32>'}}
  %0 = jaxc.vmap @f(%xs, %w) in_axes = [0, -1] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<f32>
func.func @vmap_out_axis_out_of_range(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op out_axes[0] = 1 is not a valid batch dimension for 'tensor<f32>'}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [1] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<2xf32>
func.func @vmap_result_type(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op result #0 has type 'tensor<8x2xf32>' but out_axes[0] = 1 and axis_size 8 give 'tensor<2x8xf32>'}}
  %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [1] axis_size = 8 : (tensor<8x3xf32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @custom_jvp_call_callee_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op callee @nope does not name a function}}
  %0 = jaxc.custom_jvp_call @nope(%x) jvp = @nope : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func @custom_jvp_call_rule_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op jvp rule @f_rule does not name a function}}
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_rule(tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func @custom_jvp_call_argument_types(%x: tensor<f64>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op argument types ('tensor<f64>') do not match @f: expected ('tensor<f32>')}}
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f64>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_rule(tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func @custom_jvp_call_result_types(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op result types ('tensor<2xf32>') do not match @f: expected ('tensor<f32>')}}
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f32>) -> tensor<2xf32>
  return
}

// -----

// The rule takes (primals..., tangents...).
func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_rule(tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func @custom_jvp_call_rule_inputs(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op jvp rule inputs (primals, tangents) ('tensor<f32>') do not match @f_rule: expected ('tensor<f32>', 'tensor<f32>')}}
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// The rule returns (outputs..., tangents...).
func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_rule(tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @custom_jvp_call_rule_results(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_jvp_call' op jvp rule results (outputs, tangents) ('tensor<f32>') do not match @f_rule: expected ('tensor<f32>', 'tensor<f32>')}}
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @custom_vjp_call_callee_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op callee @nope does not name a function}}
  %0 = jaxc.custom_vjp_call @nope(%x) fwd = @nope bwd = @nope : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_fwd_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op fwd @f_fwd does not name a function}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func @custom_vjp_call_bwd_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op bwd @f_bwd does not name a function}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func private @f_bwd(tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_argument_types(%x: tensor<i32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op argument types ('tensor<i32>') do not match @f: expected ('tensor<f32>')}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<i32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func private @f_bwd(tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_result_types(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op result types ('tensor<f32>', 'tensor<f32>') do not match @f: expected ('tensor<f32>')}}
  %0:2 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f64>) -> (tensor<f32>, tensor<f32>)
func.func private @f_bwd(tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_fwd_inputs(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op fwd inputs ('tensor<f64>') do not match @f_fwd: expected ('tensor<f32>')}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>)
func.func private @f_bwd(tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_fwd_returns_too_little(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op fwd @f_fwd must return the outputs followed by residuals, but returns only 0 values}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
func.func private @f_bwd(tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @custom_vjp_call_fwd_leading_results(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op fwd leading results ('tensor<3xf32>') do not match @f_fwd: expected ('tensor<f32>')}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// bwd takes (residuals..., output cotangents...): here one residual of type
// tensor<2xf32>, then the cotangent of the tensor<f32> output.
func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<f32>, tensor<2xf32>)
func.func private @f_bwd(tensor<f32>, tensor<2xf32>) -> tensor<f32>
func.func @custom_vjp_call_bwd_inputs(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op bwd inputs (residuals, output cotangents) ('tensor<f32>', 'tensor<2xf32>') do not match @f_bwd: expected ('tensor<2xf32>', 'tensor<f32>')}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @f(tensor<f32>) -> tensor<f32>
func.func private @f_fwd(tensor<f32>) -> (tensor<f32>, tensor<2xf32>)
func.func private @f_bwd(tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
func.func @custom_vjp_call_bwd_results(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.custom_vjp_call' op bwd results (input cotangents) ('tensor<f32>', 'tensor<f32>') do not match @f_bwd: expected ('tensor<f32>')}}
  %0 = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @sum3(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = jaxc.reduce sum %x, dims = [0] : tensor<3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @vmap_drops_a_result(%xs: tensor<8x3xf32>) {
  // expected-error @+1 {{'jaxc.vmap' op has 0 results but @sum3 returns 1}}
  jaxc.vmap @sum3(%xs) in_axes = [0] out_axes = [0] axis_size = 8 : (tensor<8x3xf32>) -> ()
  return
}

// -----

func.func private @g(%x: tensor<f32>) -> tensor<f32>
func.func @remat_unknown_policy(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.remat' op unknown policy "save_some"; the policies are: nothing_saveable, everything_saveable, dots_saveable, dots_with_no_batch_dims_saveable, save_only_these_names, save_any_names_but_these, save_anything_except_these_names}}
  %0 = jaxc.remat @g(%x) policy = "save_some" : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @g(%x: tensor<f32>) -> tensor<f32>
func.func @remat_names_missing(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.remat' op policy "save_only_these_names" needs `names`}}
  %0 = jaxc.remat @g(%x) policy = "save_only_these_names" : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @g(%x: tensor<f32>) -> tensor<f32>
func.func @remat_names_unused(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.remat' op policy "dots_saveable" takes no `names`}}
  %0 = jaxc.remat @g(%x) policy = "dots_saveable" names = ["h"] : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func private @g(%x: tensor<f32>) -> tensor<f32>
func.func @remat_types(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jaxc.remat' op argument types ('tensor<2xf32>') do not match @g: expected ('tensor<f32>')}}
  %0 = jaxc.remat @g(%x) : (tensor<2xf32>) -> tensor<f32>
  return
}

// -----

func.func @checkpoint_name_type(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.checkpoint_name' op requires the same type for all operands and results}}
  %0 = "jaxc.checkpoint_name"(%x) {label = "h"} : (tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @optimization_barrier_types(%x: tensor<f32>) {
  // expected-error @+2 {{'jaxc.optimization_barrier' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'jaxc.optimization_barrier' op failed to infer returned types}}
  %0 = "jaxc.optimization_barrier"(%x) : (tensor<f32>) -> tensor<2xf32>
  return
}
