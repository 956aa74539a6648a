// RUN: not jaxc-opt %s --split-input-file --jaxc-library-calls 2>&1 | FileCheck %s --check-prefix=ERR

// A library_call naming jaxc's library on an op the library cannot compute
// is an error at the op.

func.func @unknown_family(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf16>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_gemm_f16_avx512": no such function in the library (it has jaxc_gemm_f32_avx2, jaxc_gemm_f32_avx512, jaxc_gemm_f32_sse2, jaxc_gemm_f64_avx2, jaxc_gemm_f64_avx512, jaxc_gemm_f64_sse2)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f16_avx512"}
      ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  }
  return
}

// -----

func.func @wrong_element(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_gemm_f64_avx2": the operands' element types (f32) are not f64
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f64_avx2"}
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @not_a_product(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_gemm_f32_avx2": the body must be yield(acc + a * b) (arith.mulf, arith.addf)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f32_avx2"}
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.subf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @not_product_maps(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_gemm_f32_avx2": the indexing maps are not those of a matrix product C(m, n) += A(m, k) * B(k, n) (each operand reading its two loops, in any order, and the same batch loops)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f32_avx2"}
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @batched(%a: memref<2x8x8xf32>, %b: memref<2x8x8xf32>, %c: memref<2x8x8xf32>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_gemm_f32_avx2": a batch loop has more than one iteration: tile the batch loops to 1 first
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f32_avx2"}
      ins(%a, %b : memref<2x8x8xf32>, memref<2x8x8xf32>) outs(%c : memref<2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @on_tensors(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:8: error: library_call "jaxc_gemm_f32_avx2": the op must have two memref inputs and one memref output (this pass runs after bufferization)
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_gemm_f32_avx2"}
      ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
