// Control flow and booleans run on the CPU through every stage (the
// deallocation of loop-carried buffers keeps i1 ownership flags, which
// jaxc-widen-i1-memrefs stores as i8).
// RUN: jaxc-opt %s --run=cond --arg='true' --arg='[1,-2,0.5]' | FileCheck %s --check-prefix=TRUE
// RUN: jaxc-opt %s --run=cond --arg='false' --arg='[1,-2,0.5]' | FileCheck %s --check-prefix=FALSE
// RUN: jaxc-opt %s --run=count --arg='10' | FileCheck %s --check-prefix=COUNT
// An input that is one `module {...}` (jaxc-opt's own output) runs too:
// RUN: jaxc-opt %s | jaxc-opt --run=count --arg='10' | FileCheck %s --check-prefix=COUNT
// RUN: jaxc-opt %s --run=suffix_sums --arg='[1,2,3,4,5]' | FileCheck %s --check-prefix=SCAN
// RUN: jaxc-opt %s --run=lt --arg='[1,2,3]' --arg='[2,2,2]' | FileCheck %s --check-prefix=BOOL

// TRUE: result 0: array([ 1. , -2. ,  0.5], dtype=float32)
// FALSE: result 0: array([-1. ,  2. , -0.5], dtype=float32)
func.func @cond(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = jaxc.cond %p (%x) : tensor<i1>, (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %n = jaxc.neg %a : tensor<3xf32>
    jaxc.yield %n : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    jaxc.yield %a : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// 0, 3, 6, 9, 12: the first multiple of 3 not below 10.
// COUNT: result 0: array(12, dtype=int32)
func.func @count(%n: tensor<i32>) -> tensor<i32> {
  %z = jaxc.constant dense<0> : tensor<i32>
  %r:2 = jaxc.while (%z, %n : tensor<i32>, tensor<i32>) cond {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %p = jaxc.compare lt, %i, %m : tensor<i32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %three = jaxc.constant dense<3> : tensor<i32>
    %j = jaxc.add %i, %three : tensor<i32>
    jaxc.yield %j, %m : tensor<i32>, tensor<i32>
  }
  return %r#0 : tensor<i32>
}

// A reversed scan: suffix sums, and the total as the carry.
// SCAN: result 0: array(15., dtype=float32)
// SCAN-NEXT: result 1: array([15., 14., 12.,  9.,  5.], dtype=float32)
func.func @suffix_sums(%xs: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
  %c0 = jaxc.constant dense<0.0> : tensor<f32>
  %c, %ys = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 reverse -> tensor<f32>, tensor<5xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %s, %s : tensor<f32>, tensor<f32>
  }
  return %c, %ys : tensor<f32>, tensor<5xf32>
}

// BOOL: result 0: array([ True, False, False], dtype=bool)
func.func @lt(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %0 = jaxc.compare lt, %a, %b : tensor<3xf32>
  return %0 : tensor<3xi1>
}
