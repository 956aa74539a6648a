// RUN: jaxc-opt %s --jaxc-gpu-one-kernel-module | FileCheck %s

// Three outlined kernels named @f_kernel move into the first module; the two
// whose name is taken there are renamed after their old modules. A module
// with a target attached (other attributes than the first's) and one holding
// a helper function stay; every launch names where its kernel is now.
// CHECK-LABEL: gpu.module @f_kernel {
// CHECK-NEXT: gpu.func @f_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK: gpu.func @f_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK: gpu.func @f_kernel_1(%{{.*}}: memref<4xf32>) kernel
// CHECK-NOT: gpu.module @f_kernel_0
// CHECK-NOT: gpu.module @f_kernel_1
// CHECK: gpu.module @targeted [#nvvm.target]
// CHECK-NEXT: gpu.func @f_kernel(
// CHECK: gpu.module @helped {
// CHECK-NEXT: gpu.func @f_kernel(
// CHECK: func.func @helper(
// CHECK-LABEL: func.func @f(
// CHECK-NEXT: %{{.*}} = arith.constant 1 : index
// CHECK-NEXT: gpu.launch_func @f_kernel::@f_kernel blocks
// CHECK-NEXT: gpu.launch_func @f_kernel::@f_kernel_0 blocks
// CHECK-NEXT: gpu.launch_func @f_kernel::@f_kernel_1 blocks
// CHECK-NEXT: gpu.launch_func @f_kernel::@f_kernel_0 blocks
// CHECK-NEXT: gpu.launch_func @targeted::@f_kernel blocks
// CHECK-NEXT: gpu.launch_func @helped::@f_kernel blocks
module attributes {gpu.container_module} {
  gpu.module @f_kernel {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @targeted [#nvvm.target] {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @helped {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      func.call @helper(%m) : (memref<4xf32>) -> ()
      gpu.return
    }
    func.func @helper(%m: memref<4xf32>) {
      return
    }
  }
  func.func @f(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @targeted::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @helped::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}
