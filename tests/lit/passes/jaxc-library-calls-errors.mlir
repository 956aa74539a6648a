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

// -----

func.func @dft_unknown_element(%x: memref<4x8xcomplex<f16>>, %y: memref<4x8xcomplex<f16>>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_dft_f16": no such function in the library (it has jaxc_dft_f32, jaxc_dft_f64)
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_dft_f16"}
      ins(%x : memref<4x8xcomplex<f16>>) outs(%y : memref<4x8xcomplex<f16>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: complex<f16>, %out: complex<f16>):
    linalg.yield %in : complex<f16>
  }
  return
}

// -----

func.func @dft_without_sign(%x: memref<4x8xcomplex<f32>>, %y: memref<4x8xcomplex<f32>>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_dft_f32": the op is not the generic of a jaxc.dft (no jaxc.dft_sign and jaxc.dft_scale)
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_dft_f32"}
      ins(%x : memref<4x8xcomplex<f32>>) outs(%y : memref<4x8xcomplex<f32>>) {
  ^bb0(%in: complex<f32>, %out: complex<f32>):
    linalg.yield %in : complex<f32>
  }
  return
}

// -----

func.func @dft_real_output(%x: memref<4x8xcomplex<f32>>, %y: memref<4x8xf32>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_dft_f32": the input (complex<f32>) must be f32 or complex<f32> and the output (f32) complex<f32>
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_dft_f32"}
      ins(%x : memref<4x8xcomplex<f32>>) outs(%y : memref<4x8xf32>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: complex<f32>, %out: f32):
    linalg.yield %out : f32
  }
  return
}

// -----

func.func @dft_on_tensors(%x: tensor<4x8xcomplex<f32>>, %y: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:8: error: library_call "jaxc_dft_f32": the op must have one rank-2 memref input and one rank-2 memref output (this pass runs after bufferization)
  %r = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_dft_f32"}
      ins(%x : tensor<4x8xcomplex<f32>>) outs(%y : tensor<4x8xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: complex<f32>, %out: complex<f32>):
    linalg.yield %in : complex<f32>
  } -> tensor<4x8xcomplex<f32>>
  return %r : tensor<4x8xcomplex<f32>>
}

// -----

func.func @hermitian_dft_complex_output(%x: memref<4x5xcomplex<f32>>, %y: memref<4x8xcomplex<f32>>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_hermitian_dft_f32": the input (complex<f32>) must be complex<f32> and the output (complex<f32>) f32
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_hermitian_dft_f32"}
      ins(%x : memref<4x5xcomplex<f32>>) outs(%y : memref<4x8xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = 1 : i64} {
  ^bb0(%in: complex<f32>, %out: complex<f32>):
    linalg.yield %out : complex<f32>
  }
  return
}

// -----

func.func @hermitian_dft_f16(%x: memref<4x5xcomplex<f16>>, %y: memref<4x8xf16>) {
  // ERR: jaxc-library-calls-errors.mlir:[[# @LINE + 1]]:3: error: library_call "jaxc_hermitian_dft_f16": no such function in the library (it has jaxc_hermitian_dft_f32, jaxc_hermitian_dft_f64)
  linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                  iterator_types = ["parallel", "parallel", "reduction"], library_call = "jaxc_hermitian_dft_f16"}
      ins(%x : memref<4x5xcomplex<f16>>) outs(%y : memref<4x8xf16>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = 1 : i64} {
  ^bb0(%in: complex<f16>, %out: f16):
    linalg.yield %out : f16
  }
  return
}
