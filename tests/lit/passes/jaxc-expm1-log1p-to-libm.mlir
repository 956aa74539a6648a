// RUN: jaxc-opt %s --jaxc-expm1-log1p-to-libm | FileCheck %s

// Scalar f32/f64 expm1 and log1p become calls of libm's exact functions,
// each declared once however often it is called; vectors are left alone.
// CHECK-DAG: func.func private @expm1f(f32) -> f32 attributes {llvm.readnone}
// CHECK-DAG: func.func private @log1p(f64) -> f64 attributes {llvm.readnone}
// CHECK-LABEL: func.func @scalars
// CHECK-NEXT: %[[A:.+]] = call @expm1f(%arg0) : (f32) -> f32
// CHECK-NEXT: %[[B:.+]] = call @expm1f(%[[A]]) : (f32) -> f32
// CHECK-NEXT: %[[C:.+]] = call @log1p(%arg1) : (f64) -> f64
// CHECK-NEXT: %[[V:.+]] = math.expm1 %arg2 : vector<8xf32>
// CHECK-NEXT: return %[[B]], %[[C]], %[[V]]
func.func @scalars(%x: f32, %y: f64, %v: vector<8xf32>) -> (f32, f64, vector<8xf32>) {
  %a = math.expm1 %x : f32
  %b = math.expm1 %a : f32
  %c = math.log1p %y : f64
  %w = math.expm1 %v : vector<8xf32>
  return %b, %c, %w : f32, f64, vector<8xf32>
}
