// RUN: jaxc-opt %s --split-input-file --jaxc-elide-result-copies | FileCheck %s

// Panels copied out through a collapse_shape: the out-parameter, expanded,
// takes the alloc's place and the copy goes.
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME: %[[X:.*]]: memref<2x4xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-NEXT: %[[V:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[V]]
// CHECK-NEXT: return
func.func @collapsed(%x: memref<2x4xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<2x4xf32>
  memref.copy %x, %a : memref<2x4xf32> to memref<2x4xf32>
  %c = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %c, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// And through an expand_shape, with collapse_shape.
// CHECK-LABEL: func.func @expanded(
// CHECK-SAME: %[[X:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<2x4xf32>)
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]] : memref<2x4xf32> into memref<8xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[V]]
// CHECK-NEXT: return
func.func @expanded(%x: memref<8xf32>, %out: memref<2x4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  memref.copy %e, %out : memref<2x4xf32> to memref<2x4xf32>
  return
}

// -----

// Kept: the temporary is read after the copy (it would then read what a
// later write to the out-parameter left), the out-parameter has another
// use, the alloc's size is dynamic.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: memref.expand_shape
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK: memref.copy %{{.*}}, %arg3
// CHECK: memref.copy %{{.*}}, %arg4
// CHECK: return
func.func @kept(%x: memref<2x4xf32>, %n: index, %o1: memref<8xf32>, %o2: memref<8xf32>, %o3: memref<?xf32>) {
  %a = memref.alloc() : memref<2x4xf32>
  memref.copy %x, %a : memref<2x4xf32> to memref<2x4xf32>
  %c = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %c, %o1 : memref<8xf32> to memref<8xf32>
  %k = arith.constant 0 : index
  %r = memref.load %a[%k, %k] : memref<2x4xf32>
  %b = memref.alloc() : memref<2x4xf32>
  %d = memref.collapse_shape %b [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %d, %o2 : memref<8xf32> to memref<8xf32>
  memref.store %r, %o2[%k] : memref<8xf32>
  %m = memref.alloc(%n) : memref<?x4xf32>
  %e = memref.collapse_shape %m [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  memref.copy %e, %o3 : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A result a call wrote into a temporary (buffer-results-to-out-params
// rewrites return ops before call sites, so it copied the call's buffer
// out): the call writes the out-parameter itself.
// CHECK-LABEL: func.func @called(
// CHECK-SAME: %[[X:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-NEXT: call @fill_it(%[[X]], %[[OUT]])
// CHECK-NEXT: return
func.func private @fill_it(%x: memref<8xf32>, %out: memref<8xf32>)
func.func @called(%x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  call @fill_it(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Kept: a temporary of another type than the out-parameter (a layout), or
// read after the copy.
// CHECK-LABEL: func.func @called_kept(
// CHECK: memref.copy %{{.*}}, %arg1
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK: return
func.func private @fill_it2(%x: memref<8xf32>, %out: memref<8xf32>)
func.func @called_kept(%x: memref<8xf32>, %o1: memref<8xf32, strided<[2]>>, %o2: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  call @fill_it2(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.copy %a, %o1 : memref<8xf32> to memref<8xf32, strided<[2]>>
  %b = memref.alloc() : memref<8xf32>
  call @fill_it2(%x, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  memref.copy %b, %o2 : memref<8xf32> to memref<8xf32>
  %k = arith.constant 0 : index
  %r = memref.load %b[%k] : memref<8xf32>
  memref.store %r, %x[%k] : memref<8xf32>
  return
}
