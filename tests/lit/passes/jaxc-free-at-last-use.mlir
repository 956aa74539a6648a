// RUN: jaxc-opt %s --split-input-file --jaxc-free-at-last-use | FileCheck %s

// Each buffer is freed right after its last use, not at the end of the block.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[A]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.copy %[[B]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @chain(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A use through a view, inside a loop, counts as a use by the loop.
// CHECK-LABEL: func.func @view_in_loop(
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK: scf.for
// CHECK:   memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.copy %{{.*}}, %{{.*}}
// CHECK-NEXT: return
func.func @view_in_loop(%x: memref<2x4xf32>, %y: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<2x4xf32>
  memref.copy %x, %a : memref<2x4xf32> to memref<2x4xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %e = memref.load %v[%i] : memref<8xf32>
    memref.store %e, %out[%i] : memref<8xf32>
  }
  memref.copy %y, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<2x4xf32>
  return
}

// -----

// A buffer allocated in another block (here: outside the loop) keeps its
// dealloc where it is.
// CHECK-LABEL: func.func @other_block(
// CHECK: scf.for
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: }
func.func @other_block(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.dealloc %a : memref<4xf32>
  }
  return
}
