// RUN: jaxc-opt %s --split-input-file --jaxc-denormal-mode='mode=preserve-sign' | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --jaxc-denormal-mode='mode=ieee' | FileCheck %s --check-prefix=IEEE
// RUN: not jaxc-opt %s --split-input-file --jaxc-denormal-mode='mode=flush' 2>&1 | FileCheck %s --check-prefix=ERR

// The module's own function definitions get the mode, for every float type
// and for f32; declarations (libm, the runtime) and a gpu.module's kernels
// are left alone.
// CHECK-LABEL: llvm.func @bits_test
// CHECK-SAME: denormal_fp_math = "preserve-sign,preserve-sign"
// CHECK-SAME: denormal_fp_math_f32 = "preserve-sign,preserve-sign"
// CHECK: llvm.func @sinf(f32) -> f32
// CHECK-NOT: denormal_fp_math
// CHECK: llvm.func @kernel
// CHECK-NOT: denormal_fp_math
// IEEE-LABEL: llvm.func @bits_test
// IEEE-SAME: denormal_fp_math = "ieee,ieee"
// ERR: error: jaxc-denormal-mode: mode must be one of ieee, preserve-sign, positive-zero, dynamic, not 'flush'
module attributes {gpu.container_module} {
  llvm.func @bits_test(%x: f32) -> i1 {
    %mask = llvm.mlir.constant(2147483647 : i32) : i32
    %zero = llvm.mlir.constant(0 : i32) : i32
    %bits = llvm.bitcast %x : f32 to i32
    %magnitude = llvm.and %bits, %mask : i32
    %is_zero = llvm.icmp "eq" %magnitude, %zero : i32
    llvm.return %is_zero : i1
  }
  llvm.func @sinf(f32) -> f32
  gpu.module @kernels {
    llvm.func @kernel(%x: f32) -> f32 {
      llvm.return %x : f32
    }
  }
}
