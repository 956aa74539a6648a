// RUN: jaxc-opt %s --jaxc-library-calls --canonicalize | FileCheck %s
// Bad input: jaxc-library-calls-errors.mlir.

// A·Bᵀ on memrefs, marked by hand: the pointers, offsets and strides of A
// along (m, k), of B along (k, n) (B is n x k: strides 1 and 100) and of C.
// No jaxc.gemm_overwrite: the call adds to C (last argument 0).
// CHECK-LABEL: func.func @a_bt
// CHECK: %[[A:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[B:.+]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[C:.+]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: call @jaxc_gemm_f32_sse2(%c64, %c40, %c100, %[[A]], %c0, %c100, %c1, %[[B]], %c0, %c1, %c100, %[[C]], %c0, %c40, %c1, %c0)
// CHECK-NOT: linalg.generic
func.func @a_bt(%a: memref<64x100xf32>, %b: memref<40x100xf32>, %c: memref<64x40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f32_sse2"}
      ins(%a, %b : memref<64x100xf32>, memref<40x100xf32>) outs(%c : memref<64x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A generic with another library_call is not this pass's.
// CHECK-LABEL: func.func @other_library
// CHECK: linalg.generic {{.*}}library_call = "my_gemm"
func.func @other_library(%a: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"], library_call = "my_gemm"}
      ins(%a : memref<4x4xf32>) outs(%c : memref<4x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    linalg.yield %x : f32
  }
  return
}
