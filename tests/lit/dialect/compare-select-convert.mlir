// Round-trip tests for compare (result i1 of the operands' shape), select,
// clamp, convert and bitcast_convert.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @compare_float_directions(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>)
// CHECK-NEXT: %[[EQ:[a-z0-9_]+]] = jaxc.compare eq, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[NE:[a-z0-9_]+]] = jaxc.compare ne, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LT:[a-z0-9_]+]] = jaxc.compare lt, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LE:[a-z0-9_]+]] = jaxc.compare le, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[GT:[a-z0-9_]+]] = jaxc.compare gt, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[GE:[a-z0-9_]+]] = jaxc.compare ge, %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
func.func @compare_float_directions(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %eq = jaxc.compare eq, %x, %y : tensor<2x3xf32>
  %ne = jaxc.compare ne, %x, %y : tensor<2x3xf32>
  %lt = jaxc.compare lt, %x, %y : tensor<2x3xf32>
  %le = jaxc.compare le, %x, %y : tensor<2x3xf32>
  %gt = jaxc.compare gt, %x, %y : tensor<2x3xf32>
  %ge = jaxc.compare ge, %x, %y : tensor<2x3xf32>
  return %eq, %ne, %lt, %le, %gt, %ge : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_float_types(
// CHECK-SAME: %[[H:[a-z0-9_]+]]: tensor<4xf16>, %[[B:[a-z0-9_]+]]: tensor<bf16>, %[[D:[a-z0-9_]+]]: tensor<0x2xf64>) -> (tensor<4xi1>, tensor<i1>, tensor<0x2xi1>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.compare lt, %[[H]], %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.compare ge, %[[B]], %[[B]] : tensor<bf16>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.compare ne, %[[D]], %[[D]] : tensor<0x2xf64>
// CHECK-NEXT: return %[[A]], %[[C]], %[[E]] : tensor<4xi1>, tensor<i1>, tensor<0x2xi1>
func.func @compare_float_types(%h: tensor<4xf16>, %b: tensor<bf16>, %d: tensor<0x2xf64>) -> (tensor<4xi1>, tensor<i1>, tensor<0x2xi1>) {
  %a = jaxc.compare lt, %h, %h : tensor<4xf16>
  %c = jaxc.compare ge, %b, %b : tensor<bf16>
  %e = jaxc.compare ne, %d, %d : tensor<0x2xf64>
  return %a, %c, %e : tensor<4xi1>, tensor<i1>, tensor<0x2xi1>
}

// CHECK-LABEL: func.func @compare_signed(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xi32>, %[[B:[a-z0-9_]+]]: tensor<4xi32>, %[[C:[a-z0-9_]+]]: tensor<i8>, %[[D:[a-z0-9_]+]]: tensor<2x2xi16>, %[[E:[a-z0-9_]+]]: tensor<3xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2x2xi1>, tensor<3xi1>)
// CHECK-NEXT: %[[EQ:[a-z0-9_]+]] = jaxc.compare eq, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[NE:[a-z0-9_]+]] = jaxc.compare ne, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[LT:[a-z0-9_]+]] = jaxc.compare lt, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[LE:[a-z0-9_]+]] = jaxc.compare le, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[GT:[a-z0-9_]+]] = jaxc.compare gt, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[GE:[a-z0-9_]+]] = jaxc.compare ge, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[C8:[a-z0-9_]+]] = jaxc.compare lt, %[[C]], %[[C]] : tensor<i8>
// CHECK-NEXT: %[[C16:[a-z0-9_]+]] = jaxc.compare gt, %[[D]], %[[D]] : tensor<2x2xi16>
// CHECK-NEXT: %[[C64:[a-z0-9_]+]] = jaxc.compare le, %[[E]], %[[E]] : tensor<3xi64>
// CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]], %[[C8]], %[[C16]], %[[C64]] : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2x2xi1>, tensor<3xi1>
func.func @compare_signed(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<i8>, %d: tensor<2x2xi16>, %e: tensor<3xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2x2xi1>, tensor<3xi1>) {
  %eq = jaxc.compare eq, %a, %b : tensor<4xi32>
  %ne = jaxc.compare ne, %a, %b : tensor<4xi32>
  %lt = jaxc.compare lt, %a, %b : tensor<4xi32>
  %le = jaxc.compare le, %a, %b : tensor<4xi32>
  %gt = jaxc.compare gt, %a, %b : tensor<4xi32>
  %ge = jaxc.compare ge, %a, %b : tensor<4xi32>
  %c8 = jaxc.compare lt, %c, %c : tensor<i8>
  %c16 = jaxc.compare gt, %d, %d : tensor<2x2xi16>
  %c64 = jaxc.compare le, %e, %e : tensor<3xi64>
  return %eq, %ne, %lt, %le, %gt, %ge, %c8, %c16, %c64 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2x2xi1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @compare_unsigned(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xui32>, %[[B:[a-z0-9_]+]]: tensor<4xui32>, %[[C:[a-z0-9_]+]]: tensor<ui8>, %[[D:[a-z0-9_]+]]: tensor<2xui16>, %[[E:[a-z0-9_]+]]: tensor<0xui64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2xi1>, tensor<0xi1>)
// CHECK-NEXT: %[[EQ:[a-z0-9_]+]] = jaxc.compare eq, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[NE:[a-z0-9_]+]] = jaxc.compare ne, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[LT:[a-z0-9_]+]] = jaxc.compare lt, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[LE:[a-z0-9_]+]] = jaxc.compare le, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[GT:[a-z0-9_]+]] = jaxc.compare gt, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[GE:[a-z0-9_]+]] = jaxc.compare ge, %[[A]], %[[B]] : tensor<4xui32>
// CHECK-NEXT: %[[C8:[a-z0-9_]+]] = jaxc.compare lt, %[[C]], %[[C]] : tensor<ui8>
// CHECK-NEXT: %[[C16:[a-z0-9_]+]] = jaxc.compare ge, %[[D]], %[[D]] : tensor<2xui16>
// CHECK-NEXT: %[[C64:[a-z0-9_]+]] = jaxc.compare gt, %[[E]], %[[E]] : tensor<0xui64>
// CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]], %[[C8]], %[[C16]], %[[C64]] : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2xi1>, tensor<0xi1>
func.func @compare_unsigned(%a: tensor<4xui32>, %b: tensor<4xui32>, %c: tensor<ui8>, %d: tensor<2xui16>, %e: tensor<0xui64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2xi1>, tensor<0xi1>) {
  %eq = jaxc.compare eq, %a, %b : tensor<4xui32>
  %ne = jaxc.compare ne, %a, %b : tensor<4xui32>
  %lt = jaxc.compare lt, %a, %b : tensor<4xui32>
  %le = jaxc.compare le, %a, %b : tensor<4xui32>
  %gt = jaxc.compare gt, %a, %b : tensor<4xui32>
  %ge = jaxc.compare ge, %a, %b : tensor<4xui32>
  %c8 = jaxc.compare lt, %c, %c : tensor<ui8>
  %c16 = jaxc.compare ge, %d, %d : tensor<2xui16>
  %c64 = jaxc.compare gt, %e, %e : tensor<0xui64>
  return %eq, %ne, %lt, %le, %gt, %ge, %c8, %c16, %c64 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<2xi1>, tensor<0xi1>
}

// CHECK-LABEL: func.func @compare_pred(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<3xi1>, %[[Q:[a-z0-9_]+]]: tensor<3xi1>, %[[S:[a-z0-9_]+]]: tensor<i1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<i1>)
// CHECK-NEXT: %[[EQ:[a-z0-9_]+]] = jaxc.compare eq, %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[NE:[a-z0-9_]+]] = jaxc.compare ne, %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[LT:[a-z0-9_]+]] = jaxc.compare lt, %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[GE:[a-z0-9_]+]] = jaxc.compare ge, %[[S]], %[[S]] : tensor<i1>
// CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[GE]] : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<i1>
func.func @compare_pred(%p: tensor<3xi1>, %q: tensor<3xi1>, %s: tensor<i1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<i1>) {
  %eq = jaxc.compare eq, %p, %q : tensor<3xi1>
  %ne = jaxc.compare ne, %p, %q : tensor<3xi1>
  %lt = jaxc.compare lt, %p, %q : tensor<3xi1>
  %ge = jaxc.compare ge, %s, %s : tensor<i1>
  return %eq, %ne, %lt, %ge : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<i1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[M:[a-z0-9_]+]]: tensor<2x3xi1>, %[[S:[a-z0-9_]+]]: tensor<i1>, %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3xf32>, %[[I:[a-z0-9_]+]]: tensor<4xui8>, %[[J:[a-z0-9_]+]]: tensor<4xui8>, %[[A:[a-z0-9_]+]]: tensor<i64>, %[[P:[a-z0-9_]+]]: tensor<0x2xi1>, %[[E:[a-z0-9_]+]]: tensor<0x2xbf16>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xui8>, tensor<i64>, tensor<0x2xbf16>, tensor<0x2xi1>)
// CHECK-NEXT: %[[FULL:[a-z0-9_]+]] = jaxc.select %[[M]], %[[X]], %[[Y]] : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK-NEXT: %[[SCALAR:[a-z0-9_]+]] = jaxc.select %[[S]], %[[X]], %[[Y]] : tensor<i1>, tensor<2x3xf32>
// CHECK-NEXT: %[[UINT:[a-z0-9_]+]] = jaxc.select %[[S]], %[[I]], %[[J]] : tensor<i1>, tensor<4xui8>
// CHECK-NEXT: %[[ZERO_D:[a-z0-9_]+]] = jaxc.select %[[S]], %[[A]], %[[A]] : tensor<i1>, tensor<i64>
// CHECK-NEXT: %[[EMPTY:[a-z0-9_]+]] = jaxc.select %[[P]], %[[E]], %[[E]] : tensor<0x2xi1>, tensor<0x2xbf16>
// CHECK-NEXT: %[[PRED:[a-z0-9_]+]] = jaxc.select %[[S]], %[[P]], %[[P]] : tensor<i1>, tensor<0x2xi1>
// CHECK-NEXT: return %[[FULL]], %[[SCALAR]], %[[UINT]], %[[ZERO_D]], %[[EMPTY]], %[[PRED]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xui8>, tensor<i64>, tensor<0x2xbf16>, tensor<0x2xi1>
func.func @select(%m: tensor<2x3xi1>, %s: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %i: tensor<4xui8>, %j: tensor<4xui8>, %a: tensor<i64>, %p: tensor<0x2xi1>, %e: tensor<0x2xbf16>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xui8>, tensor<i64>, tensor<0x2xbf16>, tensor<0x2xi1>) {
  %full = jaxc.select %m, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>
  %scalar = jaxc.select %s, %x, %y : tensor<i1>, tensor<2x3xf32>
  %uint = jaxc.select %s, %i, %j : tensor<i1>, tensor<4xui8>
  %zero_d = jaxc.select %s, %a, %a : tensor<i1>, tensor<i64>
  %empty = jaxc.select %p, %e, %e : tensor<0x2xi1>, tensor<0x2xbf16>
  %pred = jaxc.select %s, %p, %p : tensor<i1>, tensor<0x2xi1>
  return %full, %scalar, %uint, %zero_d, %empty, %pred : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xui8>, tensor<i64>, tensor<0x2xbf16>, tensor<0x2xi1>
}

// CHECK-LABEL: func.func @clamp(
// CHECK-SAME: %[[LO:[a-z0-9_]+]]: tensor<f32>, %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[HI:[a-z0-9_]+]]: tensor<f32>, %[[LO4:[a-z0-9_]+]]: tensor<4xf32>, %[[HI4:[a-z0-9_]+]]: tensor<4xf32>, %[[I:[a-z0-9_]+]]: tensor<2x2xi16>, %[[ILO:[a-z0-9_]+]]: tensor<i16>, %[[U:[a-z0-9_]+]]: tensor<ui32>, %[[E:[a-z0-9_]+]]: tensor<0xf64>, %[[ELO:[a-z0-9_]+]]: tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xi16>, tensor<ui32>, tensor<0xf64>)
// CHECK-NEXT: %[[SCALAR_BOUNDS:[a-z0-9_]+]] = jaxc.clamp %[[LO]], %[[X]], %[[HI]] : tensor<f32>, tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[FULL_BOUNDS:[a-z0-9_]+]] = jaxc.clamp %[[LO4]], %[[X]], %[[HI4]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[MIXED1:[a-z0-9_]+]] = jaxc.clamp %[[LO]], %[[X]], %[[HI4]] : tensor<f32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[MIXED2:[a-z0-9_]+]] = jaxc.clamp %[[LO4]], %[[X]], %[[HI]] : tensor<4xf32>, tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[INT:[a-z0-9_]+]] = jaxc.clamp %[[ILO]], %[[I]], %[[ILO]] : tensor<i16>, tensor<2x2xi16>, tensor<i16>
// CHECK-NEXT: %[[ZERO_D:[a-z0-9_]+]] = jaxc.clamp %[[U]], %[[U]], %[[U]] : tensor<ui32>, tensor<ui32>, tensor<ui32>
// CHECK-NEXT: %[[EMPTY:[a-z0-9_]+]] = jaxc.clamp %[[ELO]], %[[E]], %[[ELO]] : tensor<f64>, tensor<0xf64>, tensor<f64>
// CHECK-NEXT: return %[[SCALAR_BOUNDS]], %[[FULL_BOUNDS]], %[[MIXED1]], %[[MIXED2]], %[[INT]], %[[ZERO_D]], %[[EMPTY]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xi16>, tensor<ui32>, tensor<0xf64>
func.func @clamp(%lo: tensor<f32>, %x: tensor<4xf32>, %hi: tensor<f32>, %lo4: tensor<4xf32>, %hi4: tensor<4xf32>, %i: tensor<2x2xi16>, %ilo: tensor<i16>, %u: tensor<ui32>, %e: tensor<0xf64>, %elo: tensor<f64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xi16>, tensor<ui32>, tensor<0xf64>) {
  %scalar_bounds = jaxc.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<f32>
  %full_bounds = jaxc.clamp %lo4, %x, %hi4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %mixed1 = jaxc.clamp %lo, %x, %hi4 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  %mixed2 = jaxc.clamp %lo4, %x, %hi : tensor<4xf32>, tensor<4xf32>, tensor<f32>
  %int = jaxc.clamp %ilo, %i, %ilo : tensor<i16>, tensor<2x2xi16>, tensor<i16>
  %zero_d = jaxc.clamp %u, %u, %u : tensor<ui32>, tensor<ui32>, tensor<ui32>
  %empty = jaxc.clamp %elo, %e, %elo : tensor<f64>, tensor<0xf64>, tensor<f64>
  return %scalar_bounds, %full_bounds, %mixed1, %mixed2, %int, %zero_d, %empty : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xi16>, tensor<ui32>, tensor<0xf64>
}

// CHECK-LABEL: func.func @convert(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[I:[a-z0-9_]+]]: tensor<4xi32>, %[[U:[a-z0-9_]+]]: tensor<ui8>, %[[P:[a-z0-9_]+]]: tensor<3xi1>, %[[D:[a-z0-9_]+]]: tensor<0x2xf64>, %[[H:[a-z0-9_]+]]: tensor<5xf16>) -> (tensor<2x3xi32>, tensor<4xf16>, tensor<f64>, tensor<3xf32>, tensor<0x2xbf16>, tensor<5xui64>, tensor<4xi1>, tensor<4xi8>, tensor<2x3xf32>)
// CHECK-NEXT: %[[F2I:[a-z0-9_]+]] = jaxc.convert %[[X]] : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK-NEXT: %[[I2H:[a-z0-9_]+]] = jaxc.convert %[[I]] : tensor<4xi32> -> tensor<4xf16>
// CHECK-NEXT: %[[U2D:[a-z0-9_]+]] = jaxc.convert %[[U]] : tensor<ui8> -> tensor<f64>
// CHECK-NEXT: %[[P2F:[a-z0-9_]+]] = jaxc.convert %[[P]] : tensor<3xi1> -> tensor<3xf32>
// CHECK-NEXT: %[[D2B:[a-z0-9_]+]] = jaxc.convert %[[D]] : tensor<0x2xf64> -> tensor<0x2xbf16>
// CHECK-NEXT: %[[H2U:[a-z0-9_]+]] = jaxc.convert %[[H]] : tensor<5xf16> -> tensor<5xui64>
// CHECK-NEXT: %[[I2P:[a-z0-9_]+]] = jaxc.convert %[[I]] : tensor<4xi32> -> tensor<4xi1>
// CHECK-NEXT: %[[I2I:[a-z0-9_]+]] = jaxc.convert %[[I]] : tensor<4xi32> -> tensor<4xi8>
// CHECK-NEXT: %[[SAME:[a-z0-9_]+]] = jaxc.convert %[[X]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[F2I]], %[[I2H]], %[[U2D]], %[[P2F]], %[[D2B]], %[[H2U]], %[[I2P]], %[[I2I]], %[[SAME]] : tensor<2x3xi32>, tensor<4xf16>, tensor<f64>, tensor<3xf32>, tensor<0x2xbf16>, tensor<5xui64>, tensor<4xi1>, tensor<4xi8>, tensor<2x3xf32>
func.func @convert(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %u: tensor<ui8>, %p: tensor<3xi1>, %d: tensor<0x2xf64>, %h: tensor<5xf16>) -> (tensor<2x3xi32>, tensor<4xf16>, tensor<f64>, tensor<3xf32>, tensor<0x2xbf16>, tensor<5xui64>, tensor<4xi1>, tensor<4xi8>, tensor<2x3xf32>) {
  %f2i = jaxc.convert %x : tensor<2x3xf32> -> tensor<2x3xi32>
  %i2h = jaxc.convert %i : tensor<4xi32> -> tensor<4xf16>
  %u2d = jaxc.convert %u : tensor<ui8> -> tensor<f64>
  %p2f = jaxc.convert %p : tensor<3xi1> -> tensor<3xf32>
  %d2b = jaxc.convert %d : tensor<0x2xf64> -> tensor<0x2xbf16>
  %h2u = jaxc.convert %h : tensor<5xf16> -> tensor<5xui64>
  %i2p = jaxc.convert %i : tensor<4xi32> -> tensor<4xi1>
  %i2i = jaxc.convert %i : tensor<4xi32> -> tensor<4xi8>
  %same = jaxc.convert %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %f2i, %i2h, %u2d, %p2f, %d2b, %h2u, %i2p, %i2i, %same : tensor<2x3xi32>, tensor<4xf16>, tensor<f64>, tensor<3xf32>, tensor<0x2xbf16>, tensor<5xui64>, tensor<4xi1>, tensor<4xi8>, tensor<2x3xf32>
}

// Equal widths keep the shape.
// CHECK-LABEL: func.func @bitcast_convert_equal(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[L:[a-z0-9_]+]]: tensor<2x2xi64>, %[[H:[a-z0-9_]+]]: tensor<f16>, %[[U:[a-z0-9_]+]]: tensor<0xui8>) -> (tensor<4xui32>, tensor<2x2xf64>, tensor<i16>, tensor<0xi8>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.bitcast_convert %[[X]] : tensor<4xf32> -> tensor<4xui32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.bitcast_convert %[[L]] : tensor<2x2xi64> -> tensor<2x2xf64>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.bitcast_convert %[[H]] : tensor<f16> -> tensor<i16>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.bitcast_convert %[[U]] : tensor<0xui8> -> tensor<0xi8>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<4xui32>, tensor<2x2xf64>, tensor<i16>, tensor<0xi8>
func.func @bitcast_convert_equal(%x: tensor<4xf32>, %l: tensor<2x2xi64>, %h: tensor<f16>, %u: tensor<0xui8>) -> (tensor<4xui32>, tensor<2x2xf64>, tensor<i16>, tensor<0xi8>) {
  %a = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<4xui32>
  %b = jaxc.bitcast_convert %l : tensor<2x2xi64> -> tensor<2x2xf64>
  %c = jaxc.bitcast_convert %h : tensor<f16> -> tensor<i16>
  %d = jaxc.bitcast_convert %u : tensor<0xui8> -> tensor<0xi8>
  return %a, %b, %c, %d : tensor<4xui32>, tensor<2x2xf64>, tensor<i16>, tensor<0xi8>
}

// A narrower result gains a trailing dimension of the width ratio.
// CHECK-LABEL: func.func @bitcast_convert_narrower(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[D:[a-z0-9_]+]]: tensor<3xf64>, %[[S:[a-z0-9_]+]]: tensor<f32>, %[[U:[a-z0-9_]+]]: tensor<2x0xui64>) -> (tensor<4x2xui16>, tensor<3x8xi8>, tensor<2xbf16>, tensor<2x0x2xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.bitcast_convert %[[X]] : tensor<4xf32> -> tensor<4x2xui16>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.bitcast_convert %[[D]] : tensor<3xf64> -> tensor<3x8xi8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.bitcast_convert %[[S]] : tensor<f32> -> tensor<2xbf16>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.bitcast_convert %[[U]] : tensor<2x0xui64> -> tensor<2x0x2xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[E]] : tensor<4x2xui16>, tensor<3x8xi8>, tensor<2xbf16>, tensor<2x0x2xf32>
func.func @bitcast_convert_narrower(%x: tensor<4xf32>, %d: tensor<3xf64>, %s: tensor<f32>, %u: tensor<2x0xui64>) -> (tensor<4x2xui16>, tensor<3x8xi8>, tensor<2xbf16>, tensor<2x0x2xf32>) {
  %a = jaxc.bitcast_convert %x : tensor<4xf32> -> tensor<4x2xui16>
  %b = jaxc.bitcast_convert %d : tensor<3xf64> -> tensor<3x8xi8>
  %c = jaxc.bitcast_convert %s : tensor<f32> -> tensor<2xbf16>
  %e = jaxc.bitcast_convert %u : tensor<2x0xui64> -> tensor<2x0x2xf32>
  return %a, %b, %c, %e : tensor<4x2xui16>, tensor<3x8xi8>, tensor<2xbf16>, tensor<2x0x2xf32>
}

// A wider result drops the trailing dimension, which must be the width ratio.
// CHECK-LABEL: func.func @bitcast_convert_wider(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x2xui16>, %[[B:[a-z0-9_]+]]: tensor<2x3x4xi8>, %[[H:[a-z0-9_]+]]: tensor<2xf16>, %[[E:[a-z0-9_]+]]: tensor<0x2xi32>) -> (tensor<4xf32>, tensor<2x3xui32>, tensor<f32>, tensor<0xf64>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.bitcast_convert %[[X]] : tensor<4x2xui16> -> tensor<4xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.bitcast_convert %[[B]] : tensor<2x3x4xi8> -> tensor<2x3xui32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.bitcast_convert %[[H]] : tensor<2xf16> -> tensor<f32>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.bitcast_convert %[[E]] : tensor<0x2xi32> -> tensor<0xf64>
// CHECK-NEXT: return %[[A]], %[[C]], %[[D]], %[[F]] : tensor<4xf32>, tensor<2x3xui32>, tensor<f32>, tensor<0xf64>
func.func @bitcast_convert_wider(%x: tensor<4x2xui16>, %b: tensor<2x3x4xi8>, %h: tensor<2xf16>, %e: tensor<0x2xi32>) -> (tensor<4xf32>, tensor<2x3xui32>, tensor<f32>, tensor<0xf64>) {
  %a = jaxc.bitcast_convert %x : tensor<4x2xui16> -> tensor<4xf32>
  %c = jaxc.bitcast_convert %b : tensor<2x3x4xi8> -> tensor<2x3xui32>
  %d = jaxc.bitcast_convert %h : tensor<2xf16> -> tensor<f32>
  %f = jaxc.bitcast_convert %e : tensor<0x2xi32> -> tensor<0xf64>
  return %a, %c, %d, %f : tensor<4xf32>, tensor<2x3xui32>, tensor<f32>, tensor<0xf64>
}
