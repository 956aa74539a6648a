// RUN: not jaxc-opt %s --split-input-file --jaxc-infer-vma 2>&1 | FileCheck %s


// CHECK: error: jaxc-infer-vma: argument axes ['z'] are not manual axes ['x']
func.func @bad(%a: tensor<f32>) -> tensor<f32> attributes {jaxc.vma = {manual = ["x"], sizes = [2], args = [["z"]]}} {
  return %a : tensor<f32>
}

// -----

// CHECK: error: jaxc-infer-vma: jaxc.vma needs one size per manual axis (['x', 'y'])
func.func @sizes(%a: tensor<f32>) -> tensor<f32> attributes {jaxc.vma = {manual = ["x", "y"], sizes = [2], args = [["x"]]}} {
  return %a : tensor<f32>
}

// -----

// CHECK: error: jaxc-infer-vma: jaxc.vma lists 2 arguments, @count takes 1
func.func @count(%a: tensor<f32>) -> tensor<f32> attributes {jaxc.vma = {manual = ["x"], sizes = [2], args = [["x"], []]}} {
  return %a : tensor<f32>
}

// -----

// CHECK: error: while_loop body function carry input and carry output must have equal types, but they differ:
// CHECK: The input carry component 0 has type float32[] but the corresponding output carry component has type float32[]{V:x}, so the manual axis types do not match.
// CHECK: This might be fixed by applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry component 0.
func.func @carry(%a: tensor<f32>) -> tensor<f32> attributes {jaxc.vma = {manual = ["x"], sizes = [4], args = [["x"]]}} {
  %zero = jaxc.constant dense<0.0> : tensor<f32>
  %r:2 = jaxc.while (%zero, %a : tensor<f32>, tensor<f32>) cond {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %ten = jaxc.constant dense<10.0> : tensor<f32>
    %p = jaxc.compare lt, %c, %ten : tensor<f32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %n = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %n, %x : tensor<f32>, tensor<f32>
  }
  return %r#0 : tensor<f32>
}

// -----

// CHECK: error: scan body function carry input and carry output must have equal types, but they differ:
// CHECK: The input carry component 0 has type float32[2]{V:x} but the corresponding output carry component has type float32[2]{V:(x,y)}
func.func @scan(%a: tensor<2xf32>, %xs: tensor<3x2xf32>) -> tensor<2xf32>
    attributes {jaxc.vma = {manual = ["x", "y"], sizes = [2, 2], args = [["x"], ["y"]]}} {
  %r:2 = jaxc.scan init(%a : tensor<2xf32>) xs(%xs : tensor<3x2xf32>) length = 3 -> tensor<2xf32>, tensor<3x2xf32> {
  ^bb0(%c: tensor<2xf32>, %x: tensor<2xf32>):
    %n = jaxc.add %c, %x : tensor<2xf32>
    jaxc.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  }
  return %r#0 : tensor<2xf32>
}

// -----

// CHECK: error: cond branches must have equal output types but they differ.
// CHECK: The output of true_fun has type float32[] but the corresponding output of false_fun has type float32[]{V:x}, so the manual axis types do not match.
// CHECK: This might be fixed by applying `jax.lax.pcast(..., ('x',), to='varying')` to the output of true_fun.
// CHECK: Revise true_fun and/or false_fun so that all output types match.
func.func @cond(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32>
    attributes {jaxc.vma = {manual = ["x"], sizes = [2], args = [[], ["x"]]}} {
  %r = jaxc.cond %p(%a) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%x: tensor<f32>):
    jaxc.yield %x : tensor<f32>
  }, {
  ^bb0(%x: tensor<f32>):
    %one = jaxc.constant dense<1.0> : tensor<f32>
    jaxc.yield %one : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// CHECK: error: Unsupported pcast from=varying, to='varying'
func.func @pcast(%a: tensor<f32>) -> tensor<f32> attributes {jaxc.vma = {manual = ["x"], sizes = [2], args = [["x"]]}} {
  %v = jaxc.pvary %a, axes = ["x"] : tensor<f32>
  return %v : tensor<f32>
}

