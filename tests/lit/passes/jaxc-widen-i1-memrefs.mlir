// RUN: jaxc-opt %s --jaxc-widen-i1-memrefs | FileCheck %s

// i1 buffers become i8: stores widen, loads narrow, signatures follow.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%[[F:.+]]: memref<?xi8>, %[[I:.+]]: index) -> i1
// CHECK-NEXT: %[[L:.+]] = memref.load %[[F]][%[[I]]] : memref<?xi8>
// CHECK-NEXT: %[[N:.+]] = arith.trunci %[[L]] : i8 to i1
// CHECK-NEXT: return %[[N]] : i1
func.func private @helper(%flags: memref<?xi1>, %i: index) -> i1 {
  %f = memref.load %flags[%i] : memref<?xi1>
  return %f : i1
}

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[B:.+]]: i1)
// CHECK-NEXT: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.+]] = memref.alloca() : memref<2xi8>
// CHECK-NEXT: %[[W:.+]] = arith.extui %[[B]] : i1 to i8
// CHECK-NEXT: memref.store %[[W]], %[[A]][%[[C0]]] : memref<2xi8>
// CHECK-NEXT: %[[D:.+]] = memref.cast %[[A]] : memref<2xi8> to memref<?xi8>
// CHECK-NEXT: %[[R:.+]] = call @helper(%[[D]], %[[C0]]) : (memref<?xi8>, index) -> i1
// CHECK-NEXT: return %[[R]] : i1
func.func @caller(%b: i1) -> i1 {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2xi1>
  memref.store %b, %a[%c0] : memref<2xi1>
  %d = memref.cast %a : memref<2xi1> to memref<?xi1>
  %r = func.call @helper(%d, %c0) : (memref<?xi1>, index) -> i1
  return %r : i1
}
