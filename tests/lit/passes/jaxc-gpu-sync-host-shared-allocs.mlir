// RUN: jaxc-opt %s --pass-pipeline="builtin.module(func.func(gpu-async-region),jaxc-gpu-sync-host-shared-allocs)" | FileCheck %s

// After gpu-async-region, the managed buffer is allocated synchronously again
// (gpu-to-llvm lowers no async host_shared allocation); the device buffer
// stays in the chain, and the launches that followed the managed allocation
// now wait on what it waited on. The host reads %s only after a wait.
// CHECK-LABEL: func.func @f
// CHECK: %[[T0:.+]] = gpu.wait async
// CHECK-NEXT: %[[A:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<8xf32>
// CHECK-NEXT: %[[S:.+]] = gpu.alloc host_shared () : memref<8xf32>
// CHECK-NEXT: %[[T2:.+]] = gpu.launch_func async [%[[T1]]] @k::@k {{.*}} args(%[[A]] : memref<8xf32>)
// CHECK-NEXT: %[[T3:.+]] = gpu.launch_func async [%[[T2]]] @k::@k {{.*}} args(%[[S]] : memref<8xf32>)
// CHECK-NEXT: gpu.wait [%[[T3]]]
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NOT: gpu.alloc async {{.*}} host_shared
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%v: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @f() -> f32 {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %a = gpu.alloc () : memref<8xf32>
    %s = gpu.alloc host_shared () : memref<8xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%s : memref<8xf32>)
    %x = memref.load %s[%c0] : memref<8xf32>
    gpu.dealloc %a : memref<8xf32>
    gpu.dealloc %s : memref<8xf32>
    return %x : f32
  }
}
