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
