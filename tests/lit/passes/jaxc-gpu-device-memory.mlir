// RUN: jaxc-opt %s --jaxc-gpu-device-memory | FileCheck %s

// A buffer only kernels use (through a view, too) becomes device memory; a
// constant copied into one is copied by gpu.memcpy; the buffer the host
// reads (%p) and the one returned (%r) stay managed.
// CHECK-LABEL: func.func @f
// CHECK: %[[T0:.+]] = gpu.wait async
// CHECK-NEXT: %[[A:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4x2xf32>
// CHECK-NEXT: gpu.wait [%[[T1]]]
// CHECK-NEXT: %[[V:.+]] = memref.collapse_shape %[[A]]
// CHECK-NEXT: %[[G:.+]] = memref.get_global @cst : memref<8xf32>
// CHECK-NEXT: %[[T2:.+]] = gpu.wait async
// CHECK-NEXT: %[[C:.+]], %[[T3:.+]] = gpu.alloc async [%[[T2]]] () : memref<8xf32>
// CHECK-NEXT: gpu.wait [%[[T3]]]
// CHECK-NEXT: %[[T4:.+]] = gpu.wait async
// CHECK-NEXT: %[[T5:.+]] = gpu.memcpy async [%[[T4]]] %[[C]], %[[G]] : memref<8xf32>, memref<8xf32>
// CHECK-NEXT: gpu.wait [%[[T5]]]
// CHECK-NEXT: %[[P:.+]] = gpu.alloc host_shared () : memref<i1>
// CHECK-NEXT: %[[R:.+]] = gpu.alloc host_shared () : memref<8xf32>
// CHECK-NEXT: gpu.launch_func @k::@k {{.*}} args(%[[V]] : memref<8xf32>, %[[C]] : memref<8xf32>, %[[P]] : memref<i1>, %[[R]] : memref<8xf32>)
// CHECK-NEXT: memref.load %[[P]][]
// CHECK-NEXT: gpu.wait async
// CHECK-NEXT: gpu.dealloc async {{.*}} %[[A]] : memref<4x2xf32>
module attributes {gpu.container_module} {
  memref.global "private" constant @cst : memref<8xf32> = dense<1.0>
  gpu.module @k {
    gpu.func @k(%v: memref<8xf32>, %c: memref<8xf32>, %p: memref<i1>, %r: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @f() -> (i1, memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc host_shared () : memref<4x2xf32>
    %v = memref.collapse_shape %a [[0, 1]] : memref<4x2xf32> into memref<8xf32>
    %g = memref.get_global @cst : memref<8xf32>
    %c = gpu.alloc host_shared () : memref<8xf32>
    memref.copy %g, %c : memref<8xf32> to memref<8xf32>
    %p = gpu.alloc host_shared () : memref<i1>
    %r = gpu.alloc host_shared () : memref<8xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : memref<8xf32>, %c : memref<8xf32>, %p : memref<i1>, %r : memref<8xf32>)
    %b = memref.load %p[] : memref<i1>
    %t = gpu.wait async
    %t1 = gpu.dealloc async [%t] %a : memref<4x2xf32>
    gpu.wait [%t1]
    %t2 = gpu.wait async
    %t3 = gpu.dealloc async [%t2] %c : memref<8xf32>
    gpu.wait [%t3]
    return %b, %r : i1, memref<8xf32>
  }
}
