// jaxc-autodiff errors name the op and its line.
// RUN: not jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-autodiff)' 2>&1 | FileCheck %s --check-prefix=ERR

// Reverse mode cannot go through a while loop (no static trip count).
// ERR: jaxc-autodiff-errors.mlir:[[# @LINE + 2]]:8: error: jaxc-autodiff: Reverse-mode differentiation does not work for lax.while_loop
func.func private @loop(%x: tensor<f32>) -> tensor<f32> {
  %r = jaxc.while(%x : tensor<f32>) cond {
  ^bb0(%a: tensor<f32>):
    %limit = jaxc.constant dense<1.000000e+01> : tensor<f32>
    %p = jaxc.compare lt, %a, %limit : tensor<f32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>):
    %d = jaxc.add %a, %a : tensor<f32>
    jaxc.yield %d : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @loop_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx = jaxc.vjp @loop(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

// An op without a derivative rule is named at its line, with the reason.
// ERR: jaxc-autodiff-errors.mlir:[[# @LINE + 2]]:8: error: jaxc-autodiff: 'jaxc.pmax' has no reverse-mode (vjp) rule: pmax and pmin are not differentiable (as in JAX)
func.func private @total(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.pmax %x, axes = ["i"] : tensor<f32>
  return %0 : tensor<f32>
}
func.func @total_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx = jaxc.vjp @total(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}

// -----

// A custom_jvp rule that raised when jit traced it (jaxc.rule_error: the
// error's id in the tracing process, its message) is an error only once the
// call is differentiated, as JAX traces a rule only then.
// ERR: jaxc-autodiff-errors.mlir:[[# @LINE + 10]]:8: error: jaxc-autodiff: the custom_jvp rule f_jvp raised NotImplementedError: no derivative here
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.sin %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f_jvp(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {jaxc.rule_error = [0, "the custom_jvp rule f_jvp raised NotImplementedError: no derivative here"]} {
  %0 = jaxc.constant dense<0.0> : tensor<f32>
  return %0, %0 : tensor<f32>, tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = jaxc.custom_jvp_call @f(%x) jvp = @f_jvp : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @g_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %y, %dx = jaxc.vjp @g(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %dx : tensor<f32>
}
