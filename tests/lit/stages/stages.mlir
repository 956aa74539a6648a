// Every CPU stage of one linalg-on-tensors function, and the key IR of each.
// RUN: jaxc-opt %s --stages | FileCheck %s
// RUN: jaxc-opt %s --stage=bufferized | FileCheck %s --check-prefix=BUF
// RUN: jaxc-opt %s --stage=llvm | FileCheck %s --check-prefix=LLVM
// RUN: jaxc-opt %s --stage=asm | FileCheck %s --check-prefix=ASM
// RUN: not jaxc-opt %s --stage=nope 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not jaxc-opt %s --stage=llvm --cse 2>&1 | FileCheck %s --check-prefix=MIX

// CHECK: // ===== stage: traced =====
// CHECK: linalg.exp ins(%{{.*}} : tensor<16xf32>)
// CHECK: // ===== stage: transformed =====
// CHECK: // ===== stage: optimized =====
// CHECK: // ===== stage: linalg =====
// CHECK: linalg.add
// CHECK: // ===== stage: annotated =====
// CHECK: // ===== stage: propagated =====
// CHECK: // ===== stage: partitioned =====
// CHECK: linalg.add
// CHECK: // ===== stage: scheduled =====
// CHECK: linalg.generic
// CHECK: // ===== stage: bufferized =====
// CHECK-NOT: memref.alloc
// CHECK: // ===== stage: loops =====
// CHECK: scf.for
// CHECK: // ===== stage: llvm =====
// CHECK: llvm.func @_mlir_ciface_f
// CHECK: // ===== stage: llvmir =====
// CHECK: define void @_mlir_ciface_f(ptr
// CHECK: // ===== stage: asm =====
// CHECK: _mlir_ciface_f:

// The `scheduled` stage fused exp, exp and add into one loop nest (too
// small to tile: under 1024 elements), so there is no temporary buffer.
// BUF-LABEL: func.func @f(
// BUF-SAME: %[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>) {
// BUF-NEXT: linalg.generic {{.*}} ins(%[[X]] : memref<16xf32>) outs(%[[OUT]] : memref<16xf32>)
// BUF-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// BUF-NEXT: %[[E:.*]] = math.exp %[[IN]] : f32
// BUF-NEXT: %[[EE:.*]] = math.exp %[[E]] : f32
// BUF-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[EE]] : f32
// BUF-NEXT: linalg.yield %[[S]] : f32
// BUF: return

// LLVM-LABEL: llvm.func @f(
// LLVM-NOT: llvm.call @malloc
// LLVM-LABEL: llvm.func @_mlir_ciface_f(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {denormal_fp_math = "{{[a-z-]+}},{{[a-z-]+}}", denormal_fp_math_f32 = {{.*}}, llvm.emit_c_interface}

// ASM-LABEL: _mlir_ciface_f:
// ASM: {{(call|jmp)[lq]?}}

// BAD: jaxc-opt: error: unknown stage 'nope'; the stages are: traced, transformed, optimized, linalg, annotated, propagated, partitioned, scheduled, bufferized, loops, llvm, llvmir, asm
// MIX: jaxc-opt: error: '--stage' can't be used with '--pass-pipeline' or individual pass options

func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %1 = linalg.exp ins(%0 : tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %2 = linalg.add ins(%0, %1 : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}
