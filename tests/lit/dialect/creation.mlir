// Round-trip tests for the creation ops: constant and iota.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @constant_scalars(
// CHECK-SAME: ) -> (tensor<f32>, tensor<f64>, tensor<i1>, tensor<i32>, tensor<ui8>)
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.constant dense<1.500000e+00> : tensor<f32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.constant dense<-2.500000e-01> : tensor<f64>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.constant dense<true> : tensor<i1>
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = jaxc.constant dense<-7> : tensor<i32>
// CHECK-NEXT: %[[U:[a-z0-9_]+]] = jaxc.constant dense<255> : tensor<ui8>
// CHECK-NEXT: return %[[F]], %[[D]], %[[P]], %[[I]], %[[U]] : tensor<f32>, tensor<f64>, tensor<i1>, tensor<i32>, tensor<ui8>
func.func @constant_scalars() -> (tensor<f32>, tensor<f64>, tensor<i1>, tensor<i32>, tensor<ui8>) {
  %f = jaxc.constant dense<1.500000e+00> : tensor<f32>
  %d = jaxc.constant dense<-2.500000e-01> : tensor<f64>
  %p = jaxc.constant dense<true> : tensor<i1>
  %i = jaxc.constant dense<-7> : tensor<i32>
  %u = jaxc.constant dense<255> : tensor<ui8>
  return %f, %d, %p, %i, %u : tensor<f32>, tensor<f64>, tensor<i1>, tensor<i32>, tensor<ui8>
}

// CHECK-LABEL: func.func @constant_arrays(
// CHECK-SAME: ) -> (tensor<2x3xf32>, tensor<3xf16>, tensor<2xbf16>, tensor<4xi1>, tensor<2xi64>, tensor<3xui16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT: %[[H:[a-z0-9_]+]] = jaxc.constant dense<[1.000000e+00, -2.000000e+00, 5.000000e-01]> : tensor<3xf16>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.constant dense<[true, false, false, true]> : tensor<4xi1>
// CHECK-NEXT: %[[L:[a-z0-9_]+]] = jaxc.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
// CHECK-NEXT: %[[U:[a-z0-9_]+]] = jaxc.constant dense<[0, 1, 65535]> : tensor<3xui16>
// CHECK-NEXT: return %[[A]], %[[H]], %[[B]], %[[P]], %[[L]], %[[U]] : tensor<2x3xf32>, tensor<3xf16>, tensor<2xbf16>, tensor<4xi1>, tensor<2xi64>, tensor<3xui16>
func.func @constant_arrays() -> (tensor<2x3xf32>, tensor<3xf16>, tensor<2xbf16>, tensor<4xi1>, tensor<2xi64>, tensor<3xui16>) {
  %a = jaxc.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
  %h = jaxc.constant dense<[1.000000e+00, -2.000000e+00, 5.000000e-01]> : tensor<3xf16>
  %b = jaxc.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xbf16>
  %p = jaxc.constant dense<[true, false, false, true]> : tensor<4xi1>
  %l = jaxc.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %u = jaxc.constant dense<[0, 1, 65535]> : tensor<3xui16>
  return %a, %h, %b, %p, %l, %u : tensor<2x3xf32>, tensor<3xf16>, tensor<2xbf16>, tensor<4xi1>, tensor<2xi64>, tensor<3xui16>
}

// CHECK-LABEL: func.func @constant_splat_and_empty(
// CHECK-SAME: ) -> (tensor<2x3xi8>, tensor<0x3xf32>, tensor<4x0xi16>, tensor<2xui64>)
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.constant dense<3> : tensor<2x3xi8>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.constant dense<> : tensor<0x3xf32>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.constant dense<> : tensor<4x0xi16>
// CHECK-NEXT: %[[U:[a-z0-9_]+]] = jaxc.constant dense<18446744073709551615> : tensor<2xui64>
// CHECK-NEXT: return %[[S]], %[[E]], %[[Z]], %[[U]] : tensor<2x3xi8>, tensor<0x3xf32>, tensor<4x0xi16>, tensor<2xui64>
func.func @constant_splat_and_empty() -> (tensor<2x3xi8>, tensor<0x3xf32>, tensor<4x0xi16>, tensor<2xui64>) {
  %s = jaxc.constant dense<3> : tensor<2x3xi8>
  %e = jaxc.constant dense<> : tensor<0x3xf32>
  %z = jaxc.constant dense<> : tensor<4x0xi16>
  %u = jaxc.constant dense<18446744073709551615> : tensor<2xui64>
  return %s, %e, %z, %u : tensor<2x3xi8>, tensor<0x3xf32>, tensor<4x0xi16>, tensor<2xui64>
}

// CHECK-LABEL: func.func @iota(
// CHECK-SAME: ) -> (tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xui16>, tensor<4x2xi64>, tensor<0x3xf64>, tensor<3xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.iota dim = 0 : tensor<5xi32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.iota dim = 1 : tensor<2x3xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.iota dim = 0 : tensor<2x3xui16>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.iota dim = 1 : tensor<4x2xi64>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.iota dim = 1 : tensor<0x3xf64>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.iota dim = 0 : tensor<3xbf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xui16>, tensor<4x2xi64>, tensor<0x3xf64>, tensor<3xbf16>
func.func @iota() -> (tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xui16>, tensor<4x2xi64>, tensor<0x3xf64>, tensor<3xbf16>) {
  %a = jaxc.iota dim = 0 : tensor<5xi32>
  %b = jaxc.iota dim = 1 : tensor<2x3xf32>
  %c = jaxc.iota dim = 0 : tensor<2x3xui16>
  %d = jaxc.iota dim = 1 : tensor<4x2xi64>
  %e = jaxc.iota dim = 1 : tensor<0x3xf64>
  %f = jaxc.iota dim = 0 : tensor<3xbf16>
  return %a, %b, %c, %d, %e, %f : tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xui16>, tensor<4x2xi64>, tensor<0x3xf64>, tensor<3xbf16>
}
