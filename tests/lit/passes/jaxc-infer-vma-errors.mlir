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
