// Round-trip tests for complex elements: the complex ops (real, imag, conj,
// complex), abs's real result, and complex operands of the inexact ops.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @parts(
// CHECK-SAME: %[[Z:[a-z0-9_]+]]: tensor<3xcomplex<f32>>, %[[X:[a-z0-9_]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[RE:[a-z0-9_]+]] = jaxc.real %[[Z]] : tensor<3xcomplex<f32>>
// CHECK-NEXT: %[[IM:[a-z0-9_]+]] = jaxc.imag %[[Z]] : tensor<3xcomplex<f32>>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.complex %[[RE]], %[[X]] : tensor<3xf32>
// CHECK-NEXT: %[[CJ:[a-z0-9_]+]] = jaxc.conj %[[C]] : tensor<3xcomplex<f32>>
// CHECK-NEXT: %[[ABS:[a-z0-9_]+]] = jaxc.abs %[[CJ]] : tensor<3xcomplex<f32>>
// CHECK-NEXT: return %[[CJ]], %[[IM]], %[[ABS]] : tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>
func.func @parts(%z: tensor<3xcomplex<f32>>, %x: tensor<3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>) {
  %re = jaxc.real %z : tensor<3xcomplex<f32>>
  %im = jaxc.imag %z : tensor<3xcomplex<f32>>
  %c = jaxc.complex %re, %x : tensor<3xf32>
  %cj = jaxc.conj %c : tensor<3xcomplex<f32>>
  %a = jaxc.abs %cj : tensor<3xcomplex<f32>>
  return %cj, %im, %a : tensor<3xcomplex<f32>>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @arithmetic(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2xcomplex<f64>>, %[[B:[a-z0-9_]+]]: tensor<2xcomplex<f64>>)
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = jaxc.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.mul %[[A]], %[[K]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.div %[[M]], %[[B]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.exp %[[D]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.asinh %[[E]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.pow %[[S]], %[[A]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = jaxc.compare lt, %[[P]], %[[B]] : tensor<2xcomplex<f64>>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.convert %[[P]] : tensor<2xcomplex<f64>> -> tensor<2xf32>
// CHECK-NEXT: return %[[P]], %[[Q]], %[[F]] : tensor<2xcomplex<f64>>, tensor<2xi1>, tensor<2xf32>
func.func @arithmetic(%a: tensor<2xcomplex<f64>>, %b: tensor<2xcomplex<f64>>) -> (tensor<2xcomplex<f64>>, tensor<2xi1>, tensor<2xf32>) {
  %k = jaxc.constant dense<(1.0, -2.0)> : tensor<2xcomplex<f64>>
  %m = jaxc.mul %a, %k : tensor<2xcomplex<f64>>
  %d = jaxc.div %m, %b : tensor<2xcomplex<f64>>
  %e = jaxc.exp %d : tensor<2xcomplex<f64>>
  %s = jaxc.asinh %e : tensor<2xcomplex<f64>>
  %p = jaxc.pow %s, %a : tensor<2xcomplex<f64>>
  %q = jaxc.compare lt, %p, %b : tensor<2xcomplex<f64>>
  %f = jaxc.convert %p : tensor<2xcomplex<f64>> -> tensor<2xf32>
  return %p, %q, %f : tensor<2xcomplex<f64>>, tensor<2xi1>, tensor<2xf32>
}
