// RUN: jaxc-opt %s --jaxc-gpu-linearize-parallel-loops | FileCheck %s

// A 2-d loop with constant bounds becomes one loop over 8 * 16 iterations.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.+]]: memref<8x16xf32>, %[[Y:.+]]: memref<8x16xf32>)
// CHECK: arith.constant 16 : index
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[N:.+]] = arith.constant 128 : index
// CHECK-NEXT: scf.parallel (%[[K:.+]]) = (%[[Z]]) to (%[[N]]) step (%[[ONE]]) {
// CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[I:.+]] = arith.divui %[[K]], %[[C16]] : index
// CHECK-NEXT: %[[C16B:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[J:.+]] = arith.remui %[[K]], %[[C16B]] : index
// CHECK-NEXT: %[[V:.+]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<8x16xf32>
// CHECK-NEXT: memref.store %[[V]], %[[Y]][%[[I]], %[[J]]] : memref<8x16xf32>
// CHECK-NEXT: scf.reduce
func.func @f(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x16xf32>
    memref.store %v, %y[%i, %j] : memref<8x16xf32>
    scf.reduce
  }
  return
}

// Lower bounds and steps are kept: (2..8 step 2) x (0..3) -> 9 iterations.
// CHECK-LABEL: func.func @strided
// CHECK: scf.parallel (%[[K:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[Q:.+]] = arith.divui %[[K]], %[[C3]] : index
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[S:.+]] = arith.muli %[[Q]], %[[C2]] : index
// CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[I:.+]] = arith.addi %[[S]], %[[C2B]] : index
// CHECK-NEXT: %[[C3B:.+]] = arith.constant 3 : index
// CHECK-NEXT: %[[J:.+]] = arith.remui %[[K]], %[[C3B]] : index
// CHECK-NEXT: memref.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]]
func.func @strided(%y: memref<8x3xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c2, %c0) to (%c8, %c3) step (%c2, %c1) {
    memref.store %v, %y[%i, %j] : memref<8x3xf32>
    scf.reduce
  }
  return
}

// Bounds that are not constants: left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) =
func.func @dynamic(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %x[%j] : memref<?xf32>
    scf.reduce
  }
  return
}
