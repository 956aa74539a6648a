// RUN: jaxc-opt %s --jaxc-strided-copies-to-loops | FileCheck %s
// RUN: jaxc-opt %s --jaxc-strided-copies-to-loops --convert-linalg-to-loops | FileCheck %s --check-prefix=LOOPS

// Both sides contiguous (identity layouts, or a subview that is still one
// block): the copy stays, finalize-memref-to-llvm makes it one memcpy.
// CHECK-LABEL: func.func @contiguous
// CHECK-NEXT: memref.copy %arg0, %arg1 : memref<4x16xf32> to memref<4x16xf32>
// CHECK: memref.copy %arg0, %{{.*}} : memref<4x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 64>>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x16xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  memref.copy %a, %b : memref<4x16xf32> to memref<4x16xf32>
  %s = memref.subview %c[4, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 64>>
  memref.copy %a, %s : memref<4x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 64>>
  return
}

// Into a window of a padded buffer, and out of a strided view: linalg.copy,
// which convert-linalg-to-loops makes a loop nest (no memrefCopy call).
// CHECK-LABEL: func.func @strided
// CHECK: %[[S:.+]] = memref.subview %arg1[1, 1] [4, 16] [1, 1]
// CHECK-NEXT: linalg.copy {{.*}}ins(%arg0 : memref<4x16xf32>) outs(%[[S]] : memref<4x16xf32, strided<[18, 1], offset: 19>>)
// CHECK: %[[T:.+]] = memref.subview %arg1[0, 0] [3, 9] [2, 2]
// CHECK-NEXT: linalg.copy {{.*}}ins(%[[T]] : memref<3x9xf32, strided<[36, 2]>>) outs(%arg2 : memref<3x9xf32>)
// CHECK-NOT: memref.copy
// LOOPS-LABEL: func.func @strided
// LOOPS: scf.for
// LOOPS: scf.for
// LOOPS: memref.load
// LOOPS: memref.store
// LOOPS-NOT: memref.copy
func.func @strided(%a: memref<4x16xf32>, %padded: memref<6x18xf32>, %out: memref<3x9xf32>) {
  %s = memref.subview %padded[1, 1] [4, 16] [1, 1] : memref<6x18xf32> to memref<4x16xf32, strided<[18, 1], offset: 19>>
  memref.copy %a, %s : memref<4x16xf32> to memref<4x16xf32, strided<[18, 1], offset: 19>>
  %t = memref.subview %padded[0, 0] [3, 9] [2, 2] : memref<6x18xf32> to memref<3x9xf32, strided<[36, 2]>>
  memref.copy %t, %out : memref<3x9xf32, strided<[36, 2]>> to memref<3x9xf32>
  return
}

// Dynamic shapes: loops too (linalg.copy takes them).
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: linalg.copy {{.*}}ins(%arg0 : memref<?x4xf32>) outs(%arg1 : memref<?x4xf32>)
func.func @dynamic(%a: memref<?x4xf32>, %b: memref<?x4xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  return
}
