// RUN: jaxc-opt %s --jaxc-gpu-copy-kernels | FileCheck %s

// A copy out of a view becomes a parallel loop; a copy out of a host
// global stays a memref.copy (it runs on the host).
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<2x8xf32>, %[[S:.+]]: memref<f32>)
// CHECK-NEXT: %[[V:.+]] = memref.subview %[[X]][1, 0] [2, 8] [1, 1]
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: scf.parallel (%[[I:.+]], %[[J:.+]]) = (%[[C0]], %[[C0]]) to (%[[C2]], %[[C8]]) step (%[[C1]], %[[C1]]) {
// CHECK-NEXT: %[[E:.+]] = memref.load %[[V]][%[[I]], %[[J]]] : memref<2x8xf32, strided<[8, 1], offset: 8>>
// CHECK-NEXT: memref.store %[[E]], %[[OUT]][%[[I]], %[[J]]] : memref<2x8xf32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.+]] = memref.get_global @cst : memref<f32>
// CHECK-NEXT: memref.copy %[[G]], %[[S]] : memref<f32> to memref<f32>
// CHECK-NEXT: return
memref.global "private" constant @cst : memref<f32> = dense<1.0>
func.func @f(%x: memref<4x8xf32>, %out: memref<2x8xf32>, %s: memref<f32>) {
  %v = memref.subview %x[1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  memref.copy %v, %out : memref<2x8xf32, strided<[8, 1], offset: 8>> to memref<2x8xf32>
  %g = memref.get_global @cst : memref<f32>
  memref.copy %g, %s : memref<f32> to memref<f32>
  return
}

// Rank 0: a load and a store.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[A:.+]]: memref<i32>, %[[B:.+]]: memref<i32>)
// CHECK-NEXT: %[[L:.+]] = memref.load %[[A]][] : memref<i32>
// CHECK-NEXT: memref.store %[[L]], %[[B]][] : memref<i32>
// CHECK-NEXT: return
func.func @scalar(%a: memref<i32>, %b: memref<i32>) {
  memref.copy %a, %b : memref<i32> to memref<i32>
  return
}
