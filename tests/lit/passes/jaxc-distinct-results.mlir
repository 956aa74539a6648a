// RUN: jaxc-opt %s --jaxc-distinct-results | FileCheck %s
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(jaxc-distinct-results,buffer-results-to-out-params{modify-public-functions hoist-static-allocs})' | FileCheck %s --check-prefix=OUT

// A buffer returned twice gets a copy of its own; the first use stays.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.+]]: memref<3xf32>)
// CHECK-NEXT: %[[A:.+]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[A]]
// CHECK-NEXT: %[[C:.+]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT: memref.copy %[[A]], %[[C]] : memref<3xf32> to memref<3xf32>
// CHECK-NEXT: return %[[A]], %[[C]], %[[X]] : memref<3xf32>, memref<3xf32>, memref<3xf32>
// OUT-LABEL: func.func @twice
// OUT-SAME: (%{{.+}}: memref<3xf32>, %[[O0:.+]]: memref<3xf32>, %[[O1:.+]]: memref<3xf32>, %[[O2:.+]]: memref<3xf32>)
// OUT: memref.copy %[[O0]], %[[O1]]
func.func @twice(%x: memref<3xf32>) -> (memref<3xf32>, memref<3xf32>, memref<3xf32>) {
  %a = memref.alloc() : memref<3xf32>
  memref.copy %x, %a : memref<3xf32> to memref<3xf32>
  return %a, %a, %x : memref<3xf32>, memref<3xf32>, memref<3xf32>
}

// Distinct results and scalars are left alone.
// CHECK-LABEL: func.func @once
// CHECK-NEXT: return %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : memref<2xi8>, memref<2xi8>, i32, i32
func.func @once(%a: memref<2xi8>, %b: memref<2xi8>, %n: i32) -> (memref<2xi8>, memref<2xi8>, i32, i32) {
  return %a, %b, %n, %n : memref<2xi8>, memref<2xi8>, i32, i32
}
