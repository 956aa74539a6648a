// RUN: jaxc-opt %s --jaxc-gpu-host-shared-memory | FileCheck %s

// Buffers become managed memory; a constant is copied into a managed buffer
// (the copy itself reads the host global) and freed before the block ends.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.+]]: memref<4xf32>, %[[OUT:.+]]: memref<4xf32>)
// CHECK-NEXT: %[[A:.+]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK-NEXT: %[[G:.+]] = memref.get_global @cst : memref<4xf32>
// CHECK-NEXT: %[[C:.+]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK-NEXT: memref.copy %[[G]], %[[C]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: linalg.add ins(%[[X]], %[[C]] : memref<4xf32>, memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT: memref.copy %[[A]], %[[OUT]]
// CHECK-NEXT: %[[T0:.+]] = gpu.wait async
// CHECK-NEXT: %[[T1:.+]] = gpu.dealloc async [%[[T0]]] %[[A]] : memref<4xf32>
// CHECK-NEXT: gpu.wait [%[[T1]]]
// CHECK-NEXT: %[[T2:.+]] = gpu.wait async
// CHECK-NEXT: %[[T3:.+]] = gpu.dealloc async [%[[T2]]] %[[C]] : memref<4xf32>
// CHECK-NEXT: gpu.wait [%[[T3]]]
// CHECK-NEXT: return
memref.global "private" constant @cst : memref<4xf32> = dense<1.0>
func.func @f(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %g = memref.get_global @cst : memref<4xf32>
  linalg.add ins(%x, %g : memref<4xf32>, memref<4xf32>) outs(%a : memref<4xf32>)
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// A constant handed on by the block's terminator is not freed there.
// CHECK-LABEL: func.func @returned
// CHECK-NEXT: %[[G:.+]] = memref.get_global @cst : memref<4xf32>
// CHECK-NEXT: %[[C:.+]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK-NEXT: memref.copy %[[G]], %[[C]]
// CHECK-NEXT: return %[[C]] : memref<4xf32>
func.func @returned() -> memref<4xf32> {
  %g = memref.get_global @cst : memref<4xf32>
  return %g : memref<4xf32>
}
