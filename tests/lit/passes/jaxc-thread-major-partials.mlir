// RUN: jaxc-opt %s --split-input-file --jaxc-thread-major-partials | FileCheck %s

// A column sum's per-thread partials (schedules/reduction.py): each thread's
// column becomes a contiguous row of a thread-major buffer, seen through a
// strided view in the old shape; the fill and the combining reduce read the
// view, the dealloc frees the new buffer.
// CHECK-LABEL: func.func @column_partials(
// CHECK: %[[NEW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1024xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[NEW]] to offset: [0], sizes: [1024, 2], strides: [1, 1024] : memref<2x1024xf32> to memref<1024x2xf32, strided<[1, 1024]>>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[VIEW]] : memref<1024x2xf32, strided<[1, 1024]>>)
// CHECK: scf.forall (%[[T:.*]]) in (2)
// CHECK: %[[PART:.*]] = memref.subview %[[VIEW]][0, %[[T]]] [1024, 1] [1, 1] : memref<1024x2xf32, strided<[1, 1024]>> to memref<1024xf32, strided<[1], offset: ?>>
// CHECK: vector.transfer_read %[[PART]][%{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1024xf32, strided<[1], offset: ?>>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[PART]][%{{.*}}] {in_bounds = [true]} : vector<32xf32>, memref<1024xf32, strided<[1], offset: ?>>
// CHECK: linalg.reduce ins(%[[VIEW]] : memref<1024x2xf32, strided<[1, 1024]>>)
// CHECK: memref.dealloc %[[NEW]] : memref<2x1024xf32>
func.func @column_partials(%x: memref<4096x1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %pad = ub.poison : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<1024x2xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1024x2xf32>)
  scf.forall (%t) in (2) {
    %s = memref.subview %p[0, %t] [1024, 1] [1, 1] : memref<1024x2xf32> to memref<1024xf32, strided<[2], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %a = vector.transfer_read %s[%j], %pad {in_bounds = [true]} : memref<1024xf32, strided<[2], offset: ?>>, vector<32xf32>
      %r = vector.transfer_read %x[%t, %j], %pad {in_bounds = [true]} : memref<4096x1024xf32>, vector<32xf32>
      %b = arith.addf %a, %r : vector<32xf32>
      vector.transfer_write %b, %s[%j] {in_bounds = [true]} : vector<32xf32>, memref<1024xf32, strided<[2], offset: ?>>
    }
  }
  linalg.reduce ins(%p : memref<1024x2xf32>) outs(%out : memref<1024xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  memref.dealloc %p : memref<1024x2xf32>
  return
}

// -----

// Three dimensions with a unit one (a reduction of a 3-d input over its
// first two axes): the unit dimension gets stride 1, so the subview's rank
// reduction still drops the thread's dimension.
// CHECK-LABEL: func.func @unit_dimension(
// CHECK: %[[NEW:.*]] = memref.alloc() : memref<2x1x100xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[NEW]] to offset: [0], sizes: [1, 100, 2], strides: [1, 1, 100]
// CHECK: memref.subview %[[VIEW]][0, 0, %{{.*}}] [1, 100, 1] [1, 1, 1] : memref<1x100x2xf32, strided<[1, 1, 100]>> to memref<1x100xf32, strided<[1, 1], offset: ?>>
func.func @unit_dimension(%v: vector<1x32xf32>) {
  %c0 = arith.constant 0 : index
  %p = memref.alloc() : memref<1x100x2xf32>
  scf.forall (%t) in (2) {
    %s = memref.subview %p[0, 0, %t] [1, 100, 1] [1, 1, 1] : memref<1x100x2xf32> to memref<1x100xf32, strided<[200, 2], offset: ?>>
    vector.transfer_write %v, %s[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x100xf32, strided<[200, 2], offset: ?>>
  }
  memref.dealloc %p : memref<1x100x2xf32>
  return
}

// -----

// Left alone: a buffer that leaves through a copy (an op that wants its
// layout), a subview that is not one thread's whole column, no subview at all.
// CHECK-LABEL: func.func @kept(
// CHECK: memref.alloc() : memref<64x2xf32>
// CHECK: memref.alloc() : memref<64x2xf32>
// CHECK: memref.alloc() : memref<64x2xf32>
// CHECK-NOT: memref.reinterpret_cast
// CHECK: return
func.func @kept(%out: memref<64x2xf32>, %t: index) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64x2xf32>
  %sa = memref.subview %a[0, %t] [64, 1] [1, 1] : memref<64x2xf32> to memref<64xf32, strided<[2], offset: ?>>
  linalg.fill ins(%zero : f32) outs(%sa : memref<64xf32, strided<[2], offset: ?>>)
  memref.copy %a, %out : memref<64x2xf32> to memref<64x2xf32>
  %b = memref.alloc() : memref<64x2xf32>
  %sb = memref.subview %b[0, %t] [32, 1] [1, 1] : memref<64x2xf32> to memref<32xf32, strided<[2], offset: ?>>
  linalg.fill ins(%zero : f32) outs(%sb : memref<32xf32, strided<[2], offset: ?>>)
  %c = memref.alloc() : memref<64x2xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x2xf32>)
  memref.dealloc %a : memref<64x2xf32>
  memref.dealloc %b : memref<64x2xf32>
  memref.dealloc %c : memref<64x2xf32>
  return
}
