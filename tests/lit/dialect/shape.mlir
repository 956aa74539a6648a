// Round-trip tests for the shape ops: broadcast_in_dim reshape transpose
// reverse slice dynamic_slice dynamic_update_slice concatenate pad squeeze
// expand_dims. Result types that the ops infer are worked out in comments.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @broadcast_in_dim(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[S:[a-z0-9_]+]]: tensor<f64>, %[[Y:[a-z0-9_]+]]: tensor<1x3xi32>, %[[U:[a-z0-9_]+]]: tensor<3xui8>, %[[P:[a-z0-9_]+]]: tensor<2x1xi1>) -> (tensor<2x3xf32>, tensor<2x2xf64>, tensor<4x5x3xi32>, tensor<0x3xui8>, tensor<2x7xi1>, tensor<3xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[X]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[S]], dims = [] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[Y]], dims = [0, 2] : (tensor<1x3xi32>) -> tensor<4x5x3xi32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[U]], dims = [1] : (tensor<3xui8>) -> tensor<0x3xui8>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[P]], dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x7xi1>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.broadcast_in_dim %[[X]], dims = [0] : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<2x3xf32>, tensor<2x2xf64>, tensor<4x5x3xi32>, tensor<0x3xui8>, tensor<2x7xi1>, tensor<3xf32>
func.func @broadcast_in_dim(%x: tensor<3xf32>, %s: tensor<f64>, %y: tensor<1x3xi32>, %u: tensor<3xui8>, %p: tensor<2x1xi1>) -> (tensor<2x3xf32>, tensor<2x2xf64>, tensor<4x5x3xi32>, tensor<0x3xui8>, tensor<2x7xi1>, tensor<3xf32>) {
  %a = jaxc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %b = jaxc.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<2x2xf64>
  %c = jaxc.broadcast_in_dim %y, dims = [0, 2] : (tensor<1x3xi32>) -> tensor<4x5x3xi32>
  %d = jaxc.broadcast_in_dim %u, dims = [1] : (tensor<3xui8>) -> tensor<0x3xui8>
  %e = jaxc.broadcast_in_dim %p, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x7xi1>
  %f = jaxc.broadcast_in_dim %x, dims = [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %a, %b, %c, %d, %e, %f : tensor<2x3xf32>, tensor<2x2xf64>, tensor<4x5x3xi32>, tensor<0x3xui8>, tensor<2x7xi1>, tensor<3xf32>
}

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<6xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3xbf16>, %[[S:[a-z0-9_]+]]: tensor<i64>, %[[O:[a-z0-9_]+]]: tensor<1x1xui16>, %[[E:[a-z0-9_]+]]: tensor<0x3xf32>, %[[P:[a-z0-9_]+]]: tensor<4xi1>) -> (tensor<2x3xf32>, tensor<6xbf16>, tensor<1x1xi64>, tensor<ui16>, tensor<3x0xf32>, tensor<2x1x2xi1>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.reshape %[[X]] : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.reshape %[[Y]] : (tensor<2x3xbf16>) -> tensor<6xbf16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.reshape %[[S]] : (tensor<i64>) -> tensor<1x1xi64>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.reshape %[[O]] : (tensor<1x1xui16>) -> tensor<ui16>
// CHECK-NEXT: %[[E2:[a-z0-9_]+]] = jaxc.reshape %[[E]] : (tensor<0x3xf32>) -> tensor<3x0xf32>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.reshape %[[P]] : (tensor<4xi1>) -> tensor<2x1x2xi1>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E2]], %[[F]] : tensor<2x3xf32>, tensor<6xbf16>, tensor<1x1xi64>, tensor<ui16>, tensor<3x0xf32>, tensor<2x1x2xi1>
func.func @reshape(%x: tensor<6xf32>, %y: tensor<2x3xbf16>, %s: tensor<i64>, %o: tensor<1x1xui16>, %e: tensor<0x3xf32>, %p: tensor<4xi1>) -> (tensor<2x3xf32>, tensor<6xbf16>, tensor<1x1xi64>, tensor<ui16>, tensor<3x0xf32>, tensor<2x1x2xi1>) {
  %a = jaxc.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
  %b = jaxc.reshape %y : (tensor<2x3xbf16>) -> tensor<6xbf16>
  %c = jaxc.reshape %s : (tensor<i64>) -> tensor<1x1xi64>
  %d = jaxc.reshape %o : (tensor<1x1xui16>) -> tensor<ui16>
  %e2 = jaxc.reshape %e : (tensor<0x3xf32>) -> tensor<3x0xf32>
  %f = jaxc.reshape %p : (tensor<4xi1>) -> tensor<2x1x2xi1>
  return %a, %b, %c, %d, %e2, %f : tensor<2x3xf32>, tensor<6xbf16>, tensor<1x1xi64>, tensor<ui16>, tensor<3x0xf32>, tensor<2x1x2xi1>
}

// Result dimension i is operand dimension perm[i]: 2x3x4 with [1, 2, 0] is
// 3x4x2 (the inverse permutation would give 4x2x3).
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3x4xi8>, %[[S:[a-z0-9_]+]]: tensor<f16>, %[[E:[a-z0-9_]+]]: tensor<0x3xui32>) -> (tensor<3x2xf32>, tensor<3x4x2xi8>, tensor<4x2x3xi8>, tensor<2x3x4xi8>, tensor<f16>, tensor<3x0xui32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.transpose %[[X]], perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.transpose %[[Y]], perm = [1, 2, 0] : tensor<2x3x4xi8> -> tensor<3x4x2xi8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.transpose %[[Y]], perm = [2, 0, 1] : tensor<2x3x4xi8> -> tensor<4x2x3xi8>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.transpose %[[Y]], perm = [0, 1, 2] : tensor<2x3x4xi8> -> tensor<2x3x4xi8>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.transpose %[[S]], perm = [] : tensor<f16> -> tensor<f16>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.transpose %[[E]], perm = [1, 0] : tensor<0x3xui32> -> tensor<3x0xui32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[F]], %[[G]] : tensor<3x2xf32>, tensor<3x4x2xi8>, tensor<4x2x3xi8>, tensor<2x3x4xi8>, tensor<f16>, tensor<3x0xui32>
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x3x4xi8>, %s: tensor<f16>, %e: tensor<0x3xui32>) -> (tensor<3x2xf32>, tensor<3x4x2xi8>, tensor<4x2x3xi8>, tensor<2x3x4xi8>, tensor<f16>, tensor<3x0xui32>) {
  %a = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = jaxc.transpose %y, perm = [1, 2, 0] : tensor<2x3x4xi8> -> tensor<3x4x2xi8>
  %c = jaxc.transpose %y, perm = [2, 0, 1] : tensor<2x3x4xi8> -> tensor<4x2x3xi8>
  %d = jaxc.transpose %y, perm = [0, 1, 2] : tensor<2x3x4xi8> -> tensor<2x3x4xi8>
  %f = jaxc.transpose %s, perm = [] : tensor<f16> -> tensor<f16>
  %g = jaxc.transpose %e, perm = [1, 0] : tensor<0x3xui32> -> tensor<3x0xui32>
  return %a, %b, %c, %d, %f, %g : tensor<3x2xf32>, tensor<3x4x2xi8>, tensor<4x2x3xi8>, tensor<2x3x4xi8>, tensor<f16>, tensor<3x0xui32>
}

// CHECK-LABEL: func.func @reverse(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[I:[a-z0-9_]+]]: tensor<5xui64>, %[[S:[a-z0-9_]+]]: tensor<i1>, %[[E:[a-z0-9_]+]]: tensor<0x2xf64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xui64>, tensor<i1>, tensor<0x2xf64>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.reverse %[[X]], dims = [0, 1] : tensor<2x3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.reverse %[[X]], dims = [1] : tensor<2x3xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.reverse %[[I]], dims = [0] : tensor<5xui64>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.reverse %[[S]], dims = [] : tensor<i1>
// CHECK-NEXT: %[[E2:[a-z0-9_]+]] = jaxc.reverse %[[E]], dims = [0] : tensor<0x2xf64>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E2]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xui64>, tensor<i1>, tensor<0x2xf64>
func.func @reverse(%x: tensor<2x3xf32>, %i: tensor<5xui64>, %s: tensor<i1>, %e: tensor<0x2xf64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xui64>, tensor<i1>, tensor<0x2xf64>) {
  %a = jaxc.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  %b = jaxc.reverse %x, dims = [1] : tensor<2x3xf32>
  %c = jaxc.reverse %i, dims = [0] : tensor<5xui64>
  %d = jaxc.reverse %s, dims = [] : tensor<i1>
  %e2 = jaxc.reverse %e, dims = [0] : tensor<0x2xf64>
  return %a, %b, %c, %d, %e2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xui64>, tensor<i1>, tensor<0x2xf64>
}

// Sizes are ceil((limit - start) / stride): [1, 8) step 3 is 3 elements.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[V:[a-z0-9_]+]]: tensor<10xi16>, %[[M:[a-z0-9_]+]]: tensor<5x6xbf16>, %[[S:[a-z0-9_]+]]: tensor<ui8>) -> (tensor<2x2xf32>, tensor<3xi16>, tensor<3x2xbf16>, tensor<0xi16>, tensor<ui8>, tensor<1x1xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.slice %[[X]], start = [0, 1], limit = [2, 3], strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.slice %[[V]], start = [1], limit = [8], strides = [3] : tensor<10xi16> -> tensor<3xi16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.slice %[[M]], start = [0, 0], limit = [5, 6], strides = [2, 4] : tensor<5x6xbf16> -> tensor<3x2xbf16>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.slice %[[V]], start = [2], limit = [2], strides = [1] : tensor<10xi16> -> tensor<0xi16>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.slice %[[S]], start = [], limit = [], strides = [] : tensor<ui8> -> tensor<ui8>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.slice %[[M]], start = [4, 5], limit = [5, 6], strides = [7, 7] : tensor<5x6xbf16> -> tensor<1x1xbf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<2x2xf32>, tensor<3xi16>, tensor<3x2xbf16>, tensor<0xi16>, tensor<ui8>, tensor<1x1xbf16>
func.func @slice(%x: tensor<2x3xf32>, %v: tensor<10xi16>, %m: tensor<5x6xbf16>, %s: tensor<ui8>) -> (tensor<2x2xf32>, tensor<3xi16>, tensor<3x2xbf16>, tensor<0xi16>, tensor<ui8>, tensor<1x1xbf16>) {
  %a = jaxc.slice %x, start = [0, 1], limit = [2, 3], strides = [1, 1] : tensor<2x3xf32> -> tensor<2x2xf32>
  %b = jaxc.slice %v, start = [1], limit = [8], strides = [3] : tensor<10xi16> -> tensor<3xi16>
  %c = jaxc.slice %m, start = [0, 0], limit = [5, 6], strides = [2, 4] : tensor<5x6xbf16> -> tensor<3x2xbf16>
  %d = jaxc.slice %v, start = [2], limit = [2], strides = [1] : tensor<10xi16> -> tensor<0xi16>
  %e = jaxc.slice %s, start = [], limit = [], strides = [] : tensor<ui8> -> tensor<ui8>
  %f = jaxc.slice %m, start = [4, 5], limit = [5, 6], strides = [7, 7] : tensor<5x6xbf16> -> tensor<1x1xbf16>
  return %a, %b, %c, %d, %e, %f : tensor<2x2xf32>, tensor<3xi16>, tensor<3x2xbf16>, tensor<0xi16>, tensor<ui8>, tensor<1x1xbf16>
}

// CHECK-LABEL: func.func @dynamic_slice(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x4xf32>, %[[I:[a-z0-9_]+]]: tensor<i32>, %[[J:[a-z0-9_]+]]: tensor<i32>, %[[U:[a-z0-9_]+]]: tensor<ui8>, %[[L:[a-z0-9_]+]]: tensor<i64>, %[[V:[a-z0-9_]+]]: tensor<5xi1>, %[[S:[a-z0-9_]+]]: tensor<f64>) -> (tensor<1x2xf32>, tensor<4x0xf32>, tensor<3xi1>, tensor<f64>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.dynamic_slice %[[X]][%[[I]], %[[J]]], sizes = [1, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.dynamic_slice %[[X]][%[[U]], %[[L]]], sizes = [4, 0] : (tensor<4x4xf32>, tensor<ui8>, tensor<i64>) -> tensor<4x0xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dynamic_slice %[[V]][%[[U]]], sizes = [3] : (tensor<5xi1>, tensor<ui8>) -> tensor<3xi1>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.dynamic_slice %[[S]][], sizes = [] : (tensor<f64>) -> tensor<f64>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<1x2xf32>, tensor<4x0xf32>, tensor<3xi1>, tensor<f64>
func.func @dynamic_slice(%x: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i32>, %u: tensor<ui8>, %l: tensor<i64>, %v: tensor<5xi1>, %s: tensor<f64>) -> (tensor<1x2xf32>, tensor<4x0xf32>, tensor<3xi1>, tensor<f64>) {
  %a = jaxc.dynamic_slice %x[%i, %j], sizes = [1, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %b = jaxc.dynamic_slice %x[%u, %l], sizes = [4, 0] : (tensor<4x4xf32>, tensor<ui8>, tensor<i64>) -> tensor<4x0xf32>
  %c = jaxc.dynamic_slice %v[%u], sizes = [3] : (tensor<5xi1>, tensor<ui8>) -> tensor<3xi1>
  %d = jaxc.dynamic_slice %s[], sizes = [] : (tensor<f64>) -> tensor<f64>
  return %a, %b, %c, %d : tensor<1x2xf32>, tensor<4x0xf32>, tensor<3xi1>, tensor<f64>
}

// CHECK-LABEL: func.func @dynamic_update_slice(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x4xf32>, %[[UP:[a-z0-9_]+]]: tensor<1x2xf32>, %[[I:[a-z0-9_]+]]: tensor<i32>, %[[J:[a-z0-9_]+]]: tensor<i32>, %[[V:[a-z0-9_]+]]: tensor<6xui16>, %[[W:[a-z0-9_]+]]: tensor<6xui16>, %[[K:[a-z0-9_]+]]: tensor<i8>, %[[E:[a-z0-9_]+]]: tensor<0x4xf32>, %[[S:[a-z0-9_]+]]: tensor<bf16>) -> (tensor<4x4xf32>, tensor<6xui16>, tensor<4x4xf32>, tensor<bf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.dynamic_update_slice %[[X]], %[[UP]][%[[I]], %[[J]]] : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.dynamic_update_slice %[[V]], %[[W]][%[[K]]] : (tensor<6xui16>, tensor<6xui16>, tensor<i8>) -> tensor<6xui16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.dynamic_update_slice %[[X]], %[[E]][%[[K]], %[[K]]] : (tensor<4x4xf32>, tensor<0x4xf32>, tensor<i8>, tensor<i8>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.dynamic_update_slice %[[S]], %[[S]][] : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<4x4xf32>, tensor<6xui16>, tensor<4x4xf32>, tensor<bf16>
func.func @dynamic_update_slice(%x: tensor<4x4xf32>, %up: tensor<1x2xf32>, %i: tensor<i32>, %j: tensor<i32>, %v: tensor<6xui16>, %w: tensor<6xui16>, %k: tensor<i8>, %e: tensor<0x4xf32>, %s: tensor<bf16>) -> (tensor<4x4xf32>, tensor<6xui16>, tensor<4x4xf32>, tensor<bf16>) {
  %a = jaxc.dynamic_update_slice %x, %up[%i, %j] : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  %b = jaxc.dynamic_update_slice %v, %w[%k] : (tensor<6xui16>, tensor<6xui16>, tensor<i8>) -> tensor<6xui16>
  %c = jaxc.dynamic_update_slice %x, %e[%k, %k] : (tensor<4x4xf32>, tensor<0x4xf32>, tensor<i8>, tensor<i8>) -> tensor<4x4xf32>
  %d = jaxc.dynamic_update_slice %s, %s[] : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %a, %b, %c, %d : tensor<4x4xf32>, tensor<6xui16>, tensor<4x4xf32>, tensor<bf16>
}

// CHECK-LABEL: func.func @concatenate(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<1x3xf32>, %[[A:[a-z0-9_]+]]: tensor<2x1xi32>, %[[B:[a-z0-9_]+]]: tensor<2x0xi32>, %[[C:[a-z0-9_]+]]: tensor<2x4xi32>, %[[P:[a-z0-9_]+]]: tensor<3xi1>) -> (tensor<3x3xf32>, tensor<2x5xi32>, tensor<3xi1>, tensor<6xi1>)
// CHECK-NEXT: %[[R0:[a-z0-9_]+]] = jaxc.concatenate(%[[X]], %[[Y]]), dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: %[[R1:[a-z0-9_]+]] = jaxc.concatenate(%[[A]], %[[B]], %[[C]]), dim = 1 : (tensor<2x1xi32>, tensor<2x0xi32>, tensor<2x4xi32>) -> tensor<2x5xi32>
// CHECK-NEXT: %[[R2:[a-z0-9_]+]] = jaxc.concatenate(%[[P]]), dim = 0 : (tensor<3xi1>) -> tensor<3xi1>
// CHECK-NEXT: %[[R3:[a-z0-9_]+]] = jaxc.concatenate(%[[P]], %[[P]]), dim = 0 : (tensor<3xi1>, tensor<3xi1>) -> tensor<6xi1>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : tensor<3x3xf32>, tensor<2x5xi32>, tensor<3xi1>, tensor<6xi1>
func.func @concatenate(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %a: tensor<2x1xi32>, %b: tensor<2x0xi32>, %c: tensor<2x4xi32>, %p: tensor<3xi1>) -> (tensor<3x3xf32>, tensor<2x5xi32>, tensor<3xi1>, tensor<6xi1>) {
  %r0 = jaxc.concatenate(%x, %y), dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %r1 = jaxc.concatenate(%a, %b, %c), dim = 1 : (tensor<2x1xi32>, tensor<2x0xi32>, tensor<2x4xi32>) -> tensor<2x5xi32>
  %r2 = jaxc.concatenate(%p), dim = 0 : (tensor<3xi1>) -> tensor<3xi1>
  %r3 = jaxc.concatenate(%p, %p), dim = 0 : (tensor<3xi1>, tensor<3xi1>) -> tensor<6xi1>
  return %r0, %r1, %r2, %r3 : tensor<3x3xf32>, tensor<2x5xi32>, tensor<3xi1>, tensor<6xi1>
}

// Size per dimension: low + high + size + (size - 1) * interior; low and high
// may be negative: 4x5 with low [-1, 2], high [0, -1], interior [0, 2] is
// (-1 + 0 + 4) x (2 - 1 + 5 + 4 * 2) = 3x14.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[ZERO:[a-z0-9_]+]]: tensor<f32>, %[[M:[a-z0-9_]+]]: tensor<4x5xi32>, %[[IZ:[a-z0-9_]+]]: tensor<i32>, %[[E:[a-z0-9_]+]]: tensor<0xf32>, %[[S:[a-z0-9_]+]]: tensor<ui8>) -> (tensor<6xf32>, tensor<3x14xi32>, tensor<3xf32>, tensor<ui8>, tensor<3xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.pad %[[X]], %[[ZERO]], low = [1], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.pad %[[M]], %[[IZ]], low = [-1, 2], high = [0, -1], interior = [0, 2] : (tensor<4x5xi32>, tensor<i32>) -> tensor<3x14xi32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.pad %[[E]], %[[ZERO]], low = [2], high = [1], interior = [3] : (tensor<0xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.pad %[[S]], %[[S]], low = [], high = [], interior = [] : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.pad %[[X]], %[[ZERO]], low = [0], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[F]] : tensor<6xf32>, tensor<3x14xi32>, tensor<3xf32>, tensor<ui8>, tensor<3xf32>
func.func @pad(%x: tensor<3xf32>, %zero: tensor<f32>, %m: tensor<4x5xi32>, %iz: tensor<i32>, %e: tensor<0xf32>, %s: tensor<ui8>) -> (tensor<6xf32>, tensor<3x14xi32>, tensor<3xf32>, tensor<ui8>, tensor<3xf32>) {
  %a = jaxc.pad %x, %zero, low = [1], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  %b = jaxc.pad %m, %iz, low = [-1, 2], high = [0, -1], interior = [0, 2] : (tensor<4x5xi32>, tensor<i32>) -> tensor<3x14xi32>
  %c = jaxc.pad %e, %zero, low = [2], high = [1], interior = [3] : (tensor<0xf32>, tensor<f32>) -> tensor<3xf32>
  %d = jaxc.pad %s, %s, low = [], high = [], interior = [] : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %f = jaxc.pad %x, %zero, low = [0], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %a, %b, %c, %d, %f : tensor<6xf32>, tensor<3x14xi32>, tensor<3xf32>, tensor<ui8>, tensor<3xf32>
}

// CHECK-LABEL: func.func @squeeze(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x3x1xf32>, %[[O:[a-z0-9_]+]]: tensor<1x1xi64>, %[[E:[a-z0-9_]+]]: tensor<1x0xf16>, %[[Y:[a-z0-9_]+]]: tensor<2x1x3xui32>) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<i64>, tensor<0xf16>, tensor<2x3xui32>, tensor<2x1x3xui32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.squeeze %[[X]], dims = [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.squeeze %[[X]], dims = [0] : tensor<1x3x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.squeeze %[[O]], dims = [0, 1] : tensor<1x1xi64> -> tensor<i64>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.squeeze %[[E]], dims = [0] : tensor<1x0xf16> -> tensor<0xf16>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.squeeze %[[Y]], dims = [1] : tensor<2x1x3xui32> -> tensor<2x3xui32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.squeeze %[[Y]], dims = [] : tensor<2x1x3xui32> -> tensor<2x1x3xui32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[F]], %[[G]] : tensor<3xf32>, tensor<3x1xf32>, tensor<i64>, tensor<0xf16>, tensor<2x3xui32>, tensor<2x1x3xui32>
func.func @squeeze(%x: tensor<1x3x1xf32>, %o: tensor<1x1xi64>, %e: tensor<1x0xf16>, %y: tensor<2x1x3xui32>) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<i64>, tensor<0xf16>, tensor<2x3xui32>, tensor<2x1x3xui32>) {
  %a = jaxc.squeeze %x, dims = [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  %b = jaxc.squeeze %x, dims = [0] : tensor<1x3x1xf32> -> tensor<3x1xf32>
  %c = jaxc.squeeze %o, dims = [0, 1] : tensor<1x1xi64> -> tensor<i64>
  %d = jaxc.squeeze %e, dims = [0] : tensor<1x0xf16> -> tensor<0xf16>
  %f = jaxc.squeeze %y, dims = [1] : tensor<2x1x3xui32> -> tensor<2x3xui32>
  %g = jaxc.squeeze %y, dims = [] : tensor<2x1x3xui32> -> tensor<2x1x3xui32>
  return %a, %b, %c, %d, %f, %g : tensor<3xf32>, tensor<3x1xf32>, tensor<i64>, tensor<0xf16>, tensor<2x3xui32>, tensor<2x1x3xui32>
}

// `dims` are positions in the result.
// CHECK-LABEL: func.func @expand_dims(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[S:[a-z0-9_]+]]: tensor<i1>, %[[M:[a-z0-9_]+]]: tensor<2x3xi8>, %[[E:[a-z0-9_]+]]: tensor<0xbf16>) -> (tensor<1x3x1xf32>, tensor<1xi1>, tensor<2x1x3xi8>, tensor<2x3x1xi8>, tensor<1x1x2x3xi8>, tensor<0x1xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.expand_dims %[[X]], dims = [0, 2] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.expand_dims %[[S]], dims = [0] : tensor<i1> -> tensor<1xi1>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.expand_dims %[[M]], dims = [1] : tensor<2x3xi8> -> tensor<2x1x3xi8>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.expand_dims %[[M]], dims = [2] : tensor<2x3xi8> -> tensor<2x3x1xi8>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.expand_dims %[[M]], dims = [0, 1] : tensor<2x3xi8> -> tensor<1x1x2x3xi8>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.expand_dims %[[E]], dims = [1] : tensor<0xbf16> -> tensor<0x1xbf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[F]], %[[G]] : tensor<1x3x1xf32>, tensor<1xi1>, tensor<2x1x3xi8>, tensor<2x3x1xi8>, tensor<1x1x2x3xi8>, tensor<0x1xbf16>
func.func @expand_dims(%x: tensor<3xf32>, %s: tensor<i1>, %m: tensor<2x3xi8>, %e: tensor<0xbf16>) -> (tensor<1x3x1xf32>, tensor<1xi1>, tensor<2x1x3xi8>, tensor<2x3x1xi8>, tensor<1x1x2x3xi8>, tensor<0x1xbf16>) {
  %a = jaxc.expand_dims %x, dims = [0, 2] : tensor<3xf32> -> tensor<1x3x1xf32>
  %b = jaxc.expand_dims %s, dims = [0] : tensor<i1> -> tensor<1xi1>
  %c = jaxc.expand_dims %m, dims = [1] : tensor<2x3xi8> -> tensor<2x1x3xi8>
  %d = jaxc.expand_dims %m, dims = [2] : tensor<2x3xi8> -> tensor<2x3x1xi8>
  %f = jaxc.expand_dims %m, dims = [0, 1] : tensor<2x3xi8> -> tensor<1x1x2x3xi8>
  %g = jaxc.expand_dims %e, dims = [1] : tensor<0xbf16> -> tensor<0x1xbf16>
  return %a, %b, %c, %d, %f, %g : tensor<1x3x1xf32>, tensor<1xi1>, tensor<2x1x3xi8>, tensor<2x3x1xi8>, tensor<1x1x2x3xi8>, tensor<0x1xbf16>
}
