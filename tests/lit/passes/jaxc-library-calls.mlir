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

// A DFT's generic (lowering/reduction.py), marked by hand, on a thread's
// tile of a dynamic number of sequences, keeping the first 5 of 8
// frequencies (a real FFT): the call gets the points (the input's), the
// outputs (the output's), the sequences and the parts (1: a real input),
// then each operand's pointer, offset, part stride and strides (sequences,
// points) counted in parts: the complex output's are doubled, its part
// stride is 1.
// CHECK-LABEL: func.func @dft_tile
// CHECK: %[[X:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[Y:.+]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: call @jaxc_dft_f32(%c8, %c5, %{{.*}}, %c1, %[[X]], %{{.*}}, %c0, %c10, %c1, %[[Y]], %{{.*}}, %c1, %c10, %c2, %c1, %cst) : (index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, f64) -> ()
// CHECK-NOT: linalg.generic
func.func @dft_tile(%x: memref<?x8xf32, strided<[10, 1], offset: ?>>, %y: memref<?x5xcomplex<f32>, strided<[5, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_dft_f32"}
      ins(%x : memref<?x8xf32, strided<[10, 1], offset: ?>>) outs(%y : memref<?x5xcomplex<f32>, strided<[5, 1], offset: ?>>)
      attrs = {jaxc.dft_scale = 0.125 : f64, jaxc.dft_sign = 1 : i64} {
  ^bb0(%in: f32, %out: complex<f32>):
    linalg.yield %out : complex<f32>
  }
  return
}
