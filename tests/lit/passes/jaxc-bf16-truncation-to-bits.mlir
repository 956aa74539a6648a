// jaxc-bf16-truncation-to-bits: f32 -> bf16 as integer rounding to nearest
// even (AVX512-BF16's vcvtneps2bf16 would flush subnormal inputs to zero);
// a NaN keeps its sign, made quiet. Other truncations are left alone.
// RUN: jaxc-opt %s --jaxc-bf16-truncation-to-bits | FileCheck %s

// CHECK-LABEL: func.func @vector
// CHECK-NOT: arith.truncf
// CHECK: %[[B:.+]] = arith.bitcast %arg0 : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrui %[[B]]
// CHECK: %[[R:.+]] = arith.addi %[[B]], %{{.+}} : vector<8xi32>
// CHECK: %[[H:.+]] = arith.shrui %[[R]]
// CHECK: arith.trunci %[[H]] : vector<8xi32> to vector<8xi16>
// CHECK: arith.ori
// CHECK: arith.cmpf uno, %arg0, %arg0 : vector<8xf32>
// CHECK: arith.select
// CHECK: arith.bitcast %{{.+}} : vector<8xi16> to vector<8xbf16>
func.func @vector(%x: vector<8xf32>) -> vector<8xbf16> {
  %y = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %y : vector<8xbf16>
}

// CHECK-LABEL: func.func @scalar
// CHECK: arith.bitcast %arg0 : f32 to i32
// CHECK: arith.bitcast %{{.+}} : i16 to bf16
func.func @scalar(%x: f32) -> bf16 {
  %y = arith.truncf %x : f32 to bf16
  return %y : bf16
}

// CHECK-LABEL: func.func @others
// CHECK: arith.truncf %arg0 : f32 to f16
// CHECK: arith.truncf %arg1 : f64 to bf16
func.func @others(%x: f32, %d: f64) -> (f16, bf16) {
  %h = arith.truncf %x : f32 to f16
  %b = arith.truncf %d : f64 to bf16
  return %h, %b : f16, bf16
}
