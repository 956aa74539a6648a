// Round-trip tests for the PRNG primitives threefry2x32 and random_bits.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// 0-d keys with counters of any shape; both results have the counters' type.
// CHECK-LABEL: func.func @threefry_scalar_keys(
// CHECK-SAME: %[[K0:[a-z0-9_]+]]: tensor<ui32>, %[[K1:[a-z0-9_]+]]: tensor<ui32>, %[[X0:[a-z0-9_]+]]: tensor<4xui32>, %[[X1:[a-z0-9_]+]]: tensor<4xui32>, %[[C0:[a-z0-9_]+]]: tensor<ui32>, %[[C1:[a-z0-9_]+]]: tensor<ui32>, %[[N0:[a-z0-9_]+]]: tensor<0xui32>, %[[N1:[a-z0-9_]+]]: tensor<0xui32>) -> (tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<0xui32>, tensor<0xui32>)
// CHECK-NEXT: %[[Y0:[a-z0-9_]+]], %[[Y1:[a-z0-9_]+]] = jaxc.threefry2x32 %[[K0]], %[[K1]], %[[X0]], %[[X1]] : tensor<ui32>, tensor<4xui32>
// CHECK-NEXT: %[[Z0:[a-z0-9_]+]], %[[Z1:[a-z0-9_]+]] = jaxc.threefry2x32 %[[K0]], %[[K1]], %[[C0]], %[[C1]] : tensor<ui32>, tensor<ui32>
// CHECK-NEXT: %[[E0:[a-z0-9_]+]], %[[E1:[a-z0-9_]+]] = jaxc.threefry2x32 %[[K0]], %[[K1]], %[[N0]], %[[N1]] : tensor<ui32>, tensor<0xui32>
// CHECK-NEXT: return %[[Y0]], %[[Y1]], %[[Z0]], %[[Z1]], %[[E0]], %[[E1]] : tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<0xui32>, tensor<0xui32>
func.func @threefry_scalar_keys(%k0: tensor<ui32>, %k1: tensor<ui32>, %x0: tensor<4xui32>, %x1: tensor<4xui32>, %c0: tensor<ui32>, %c1: tensor<ui32>, %n0: tensor<0xui32>, %n1: tensor<0xui32>) -> (tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<0xui32>, tensor<0xui32>) {
  %y0, %y1 = jaxc.threefry2x32 %k0, %k1, %x0, %x1 : tensor<ui32>, tensor<4xui32>
  %z0, %z1 = jaxc.threefry2x32 %k0, %k1, %c0, %c1 : tensor<ui32>, tensor<ui32>
  %e0, %e1 = jaxc.threefry2x32 %k0, %k1, %n0, %n1 : tensor<ui32>, tensor<0xui32>
  return %y0, %y1, %z0, %z1, %e0, %e1 : tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<0xui32>, tensor<0xui32>
}

// Keys of the counters' shape.
// CHECK-LABEL: func.func @threefry_full_keys(
// CHECK-SAME: %[[K0:[a-z0-9_]+]]: tensor<2x3xui32>, %[[K1:[a-z0-9_]+]]: tensor<2x3xui32>, %[[X0:[a-z0-9_]+]]: tensor<2x3xui32>, %[[X1:[a-z0-9_]+]]: tensor<2x3xui32>) -> (tensor<2x3xui32>, tensor<2x3xui32>)
// CHECK-NEXT: %[[Y0:[a-z0-9_]+]], %[[Y1:[a-z0-9_]+]] = jaxc.threefry2x32 %[[K0]], %[[K1]], %[[X0]], %[[X1]] : tensor<2x3xui32>, tensor<2x3xui32>
// CHECK-NEXT: return %[[Y0]], %[[Y1]] : tensor<2x3xui32>, tensor<2x3xui32>
func.func @threefry_full_keys(%k0: tensor<2x3xui32>, %k1: tensor<2x3xui32>, %x0: tensor<2x3xui32>, %x1: tensor<2x3xui32>) -> (tensor<2x3xui32>, tensor<2x3xui32>) {
  %y0, %y1 = jaxc.threefry2x32 %k0, %k1, %x0, %x1 : tensor<2x3xui32>, tensor<2x3xui32>
  return %y0, %y1 : tensor<2x3xui32>, tensor<2x3xui32>
}

// The result's unsigned element type sets the bit width.
// CHECK-LABEL: func.func @random_bits(
// CHECK-SAME: %[[KEY:[a-z0-9_]+]]: tensor<2xui32>) -> (tensor<3x4xui32>, tensor<5xui8>, tensor<2x2xui16>, tensor<7xui64>, tensor<ui32>, tensor<0x3xui8>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<3x4xui32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<5xui8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<2x2xui16>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<7xui64>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<ui32>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.random_bits %[[KEY]] : tensor<2xui32> -> tensor<0x3xui8>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<3x4xui32>, tensor<5xui8>, tensor<2x2xui16>, tensor<7xui64>, tensor<ui32>, tensor<0x3xui8>
func.func @random_bits(%key: tensor<2xui32>) -> (tensor<3x4xui32>, tensor<5xui8>, tensor<2x2xui16>, tensor<7xui64>, tensor<ui32>, tensor<0x3xui8>) {
  %a = jaxc.random_bits %key : tensor<2xui32> -> tensor<3x4xui32>
  %b = jaxc.random_bits %key : tensor<2xui32> -> tensor<5xui8>
  %c = jaxc.random_bits %key : tensor<2xui32> -> tensor<2x2xui16>
  %d = jaxc.random_bits %key : tensor<2xui32> -> tensor<7xui64>
  %e = jaxc.random_bits %key : tensor<2xui32> -> tensor<ui32>
  %f = jaxc.random_bits %key : tensor<2xui32> -> tensor<0x3xui8>
  return %a, %b, %c, %d, %e, %f : tensor<3x4xui32>, tensor<5xui8>, tensor<2x2xui16>, tensor<7xui64>, tensor<ui32>, tensor<0x3xui8>
}
