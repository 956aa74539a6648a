// The CUDA stages of one function: kernels, NVVM, PTX for two chips, and the
// errors for chips jaxc does not compile for.
// RUN: jaxc-opt %s --stages --target=cuda | FileCheck %s
// RUN: jaxc-opt %s --stage=gpu | FileCheck %s --check-prefix=GPU
// RUN: jaxc-opt %s --stage=ptx | FileCheck %s --check-prefix=SM90
// RUN: jaxc-opt %s --stage=ptx --chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: not jaxc-opt %s --stage=ptx --chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not jaxc-opt %s --stage=loops --target=cuda 2>&1 | FileCheck %s --check-prefix=STAGE

// CHECK: // ===== stage: fused =====
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: // ===== stage: bufferized =====
// CHECK: // ===== stage: gpu =====
// CHECK: gpu.launch_func async [%{{.+}}] @f_kernel::@f_kernel
// CHECK: gpu.module @f_kernel
// CHECK: // ===== stage: nvvm =====
// CHECK: gpu.module @f_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">]
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: // ===== stage: ptx =====
// CHECK: // ----- gpu.module @f_kernel (sm_90)
// CHECK: // ===== stage: binary =====
// CHECK: gpu.binary @f_kernel
// CHECK: // ===== stage: llvmir =====
// CHECK: call void @mgpuLaunchKernel(

// 1000 elements: 4 blocks of 256 threads; exp and add fused into one kernel,
// launched on a stream the host waits for before it returns.
// GPU-LABEL: func.func @f(
// GPU: %[[C256:.+]] = arith.constant 256 : index
// GPU-NEXT: %[[C4:.+]] = arith.constant 4 : index
// GPU-NEXT: %[[T0:.+]] = gpu.wait async
// GPU-NEXT: %[[T1:.+]] = gpu.launch_func async [%[[T0]]] @f_kernel::@f_kernel blocks in (%[[C4]], %{{.+}}, %{{.+}}) threads in (%[[C256]], %{{.+}}, %{{.+}})
// GPU-NEXT: gpu.wait [%[[T1]]]
// GPU-NEXT: return
// GPU: gpu.func @f_kernel(
// GPU-SAME: kernel
// GPU: gpu.block_id x
// GPU: math.exp
// GPU-NEXT: arith.addf

// libdevice's expf is linked in: no external call is left.
// SM90: .version 7.8
// SM90-NEXT: .target sm_90
// SM90-NOT: .extern .func __nv_
// SM90: .visible .entry f_kernel(
// SM80: .version 7.0
// SM80-NEXT: .target sm_80

// CHIP: jaxc-opt: error: unsupported CUDA chip 'sm_75'; jaxc compiles for: sm_80, sm_86
// STAGE: jaxc-opt: error: unknown stage 'loops' of target 'cuda'; the stages are: traced, transformed, optimized, linalg, fused, bufferized, gpu, nvvm, ptx, binary, llvmir

func.func @f(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %e = jaxc.exp %x : tensor<1000xf32>
  %y = jaxc.add %e, %x : tensor<1000xf32>
  return %y : tensor<1000xf32>
}
