// RUN: jaxc-opt %s --jaxc-serial-foralls | FileCheck %s

// A bufferized forall the row schedule marked jaxc.serial becomes an
// scf.for nest with the same bounds and body; an unmarked one stays (OpenMP
// splits it later).
// CHECK-LABEL: func.func @rows(
// CHECK-NOT: scf.forall
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK: scf.forall (%[[T:.*]]) in (2) {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]]
// CHECK: return
func.func @rows(%x: memref<64x8xf32>, %y: memref<64x8xf32>, %z: memref<2xf32>) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i, %j) in (64, 8) {
    %v = memref.load %x[%i, %j] : memref<64x8xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %y[%i, %j] : memref<64x8xf32>
  } {jaxc.serial}
  scf.forall (%t) in (2) {
    memref.store %one, %z[%t] : memref<2xf32>
  }
  return
}
