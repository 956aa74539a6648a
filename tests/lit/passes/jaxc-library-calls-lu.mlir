// RUN: jaxc-opt %s --jaxc-library-calls | FileCheck %s

// A call of lu.c as jaxc-to-linalg made it (its buffers unranked memrefs,
// so bufferization saw them) passes the buffers' aligned pointers after
// bufferization; the declaration takes seven indices.
// CHECK: func.func private @jaxc_lu_f32(index, index, index, index, index, index, index)
// CHECK-LABEL: func.func @factor
// CHECK: %[[A:.+]] = memref.extract_aligned_pointer_as_index %{{.+}} : memref<*xf32> -> index
// CHECK: %[[F:.+]] = memref.extract_aligned_pointer_as_index %{{.+}} : memref<*xf32> -> index
// CHECK: %[[P:.+]] = memref.extract_aligned_pointer_as_index %{{.+}} : memref<*xi32> -> index
// CHECK: %[[Q:.+]] = memref.extract_aligned_pointer_as_index %{{.+}} : memref<*xi32> -> index
// CHECK: call @jaxc_lu_f32(%c1, %c4, %c4, %[[A]], %[[F]], %[[P]], %[[Q]]) : (index, index, index, index, index, index, index) -> ()
// CHECK-NOT: memref<*xf32>) -> ()
func.func private @jaxc_lu_f32(index, index, index, memref<*xf32>, memref<*xf32>, memref<*xi32>, memref<*xi32>)
func.func @factor(%a: memref<4x4xf32>, %f: memref<4x4xf32>, %p: memref<4xi32>, %q: memref<4xi32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ua = memref.cast %a : memref<4x4xf32> to memref<*xf32>
  %uf = memref.cast %f : memref<4x4xf32> to memref<*xf32>
  %up = memref.cast %p : memref<4xi32> to memref<*xi32>
  %uq = memref.cast %q : memref<4xi32> to memref<*xi32>
  call @jaxc_lu_f32(%c1, %c4, %c4, %ua, %uf, %up, %uq) : (index, index, index, memref<*xf32>, memref<*xf32>, memref<*xi32>, memref<*xi32>) -> ()
  return
}
