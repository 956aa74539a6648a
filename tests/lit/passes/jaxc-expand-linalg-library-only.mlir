// RUN: jaxc-opt %s --split-input-file --verify-diagnostics --jaxc-expand-linalg="library-calls=false"
// RUN: jaxc-opt %s --split-input-file --jaxc-expand-linalg | FileCheck %s

// jaxc.eig, jaxc.schur and jaxc.hessenberg have no program to expand into:
// lax.linalg binds them only where the compiled library computes them, and
// a target that calls no library (the GPU) says so. With library calls on
// (the CPU's default) they stay for jaxc-to-linalg to call eig.c.
// CHECK-LABEL: func.func @eig
// CHECK: jaxc.eig %arg0 right : tensor<4x4xf32>
func.func @eig(%a: tensor<4x4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'jaxc.eig' is computed by the CPU's compiled library (eig.c) only, and this target calls no library: run it on a CPU device}}
  %w, %vl, %vr = jaxc.eig %a right : tensor<4x4xf32>
  return %w : tensor<4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @schur
// CHECK: jaxc.schur %arg0 : tensor<4x4xf64>
func.func @schur(%a: tensor<4x4xf64>) -> tensor<4x4xf64> {
  // expected-error @+1 {{'jaxc.schur' is computed by the CPU's compiled library (eig.c) only}}
  %t, %z = jaxc.schur %a : tensor<4x4xf64>
  return %t : tensor<4x4xf64>
}

// -----

// CHECK-LABEL: func.func @hessenberg
// CHECK: jaxc.hessenberg %arg0 : tensor<3x3xf32>
func.func @hessenberg(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'jaxc.hessenberg' is computed by the CPU's compiled library (eig.c) only}}
  %h, %taus = jaxc.hessenberg %a : tensor<3x3xf32>
  return %h : tensor<3x3xf32>
}
