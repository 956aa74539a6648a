// RUN: jaxc-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,jaxc-schedule{vector-bits=512 threads=2},canonicalize,cse)' | FileCheck %s
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,jaxc-schedule{vector-bits=256 threads=1},canonicalize,cse)' | FileCheck %s --check-prefix=AVX2
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,jaxc-schedule{vector-bits=512 threads=2},canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},jaxc-library-calls,canonicalize)' | FileCheck %s --check-prefix=CALL

// f32 and f64 products are calls of the compiled library (gemm.c, schedules/library.py):
// the schedule only splits C between the threads, in whole 14-row register
// tiles (1000 rows: 504 + 496), and names the family of the target's vector
// width. The zero fill of C is gone: the call writes C (jaxc.gemm_overwrite).
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %arg0[%{{.*}}, 0] [%{{.*}}, 1000] [1, 1] : tensor<1000x1000xf32> to tensor<?x1000xf32>
// CHECK: linalg.generic {{.*}}library_call = "jaxc_gemm_f32_avx512"{{.*}} attrs = {jaxc.gemm_overwrite}
// AVX2-LABEL: func.func @matmul
// AVX2-NOT: scf.forall
// AVX2: library_call = "jaxc_gemm_f32_avx2"
// After bufferization, jaxc-library-calls passes each operand's pointer,
// offset and strides along (m, k), (k, n), (m, n), and 1: overwrite.
// CALL-LABEL: func.func @matmul
// CALL: scf.forall
// CALL: memref.extract_strided_metadata %{{.*}} : memref<?x1000xf32, strided<[1000, 1], offset: ?>>
// CALL: memref.extract_aligned_pointer_as_index
// CALL: call @jaxc_gemm_f32_avx512(%{{.*}}, %c1000, %c1000, %{{.*}}, %{{.*}}, %c1000, %c1, %{{.*}}, %c0, %c1000, %c1, %{{.*}}, %{{.*}}, %c1000, %c1, %c1) : (index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
// CALL-NOT: linalg.generic
func.func @matmul(%a: tensor<1000x1000xf32>, %b: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1000x1000xf32>, tensor<1000x1000xf32>) outs(%f : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// C given (not a zero fill): the call adds to it. One thread below 2 MFLOP.
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}library_call = "jaxc_gemm_f32_avx512"
// CHECK-NOT: jaxc.gemm_overwrite
// CHECK-SAME: outs(%arg2 : tensor<64x64xf32>)
// CALL-LABEL: func.func @accumulate
// CALL: call @jaxc_gemm_f32_avx512(%c64, %c64, %c32, %{{.*}}, %c0, %c32, %c1, %{{.*}}, %c0, %c64, %c1, %{{.*}}, %c0, %c64, %c1, %c0) :
func.func @accumulate(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// Aᵀ·B in f64, wider than tall: the columns of C are split, in whole 16-column
// tiles (2048: 1024 + 1024).
// CHECK-LABEL: func.func @transposed_f64
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %arg1[0, %{{.*}}] [256, 1024] [1, 1] : tensor<256x2048xf64> to tensor<256x1024xf64>
// CHECK: library_call = "jaxc_gemm_f64_avx512"
// AVX2-LABEL: func.func @transposed_f64
// AVX2: library_call = "jaxc_gemm_f64_avx2"
// A is read as (k, m): its strides along m and k are 1 and 64.
// CALL-LABEL: func.func @transposed_f64
// CALL: call @jaxc_gemm_f64_avx512(%c64, %c1024, %c256, %{{.*}}, %c0, %c1, %c64,
func.func @transposed_f64(%a: tensor<256x64xf64>, %b: tensor<256x2048xf64>) -> tensor<64x2048xf64> {
  %c0 = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x2048xf64>
  %f = linalg.fill ins(%c0 : f64) outs(%e : tensor<64x2048xf64>) -> tensor<64x2048xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<256x64xf64>, tensor<256x2048xf64>) outs(%f : tensor<64x2048xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<64x2048xf64>
  return %0 : tensor<64x2048xf64>
}

// Batched: the threads take whole products (8 of them); with one thread a
// loop runs over them. Each call sees one product (batch dim of size 1).
// CHECK-LABEL: func.func @batched
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: library_call = "jaxc_gemm_f32_avx512"
// AVX2-LABEL: func.func @batched
// AVX2: scf.for %{{.*}} = %c0 to %c8 step %c1
// AVX2: library_call = "jaxc_gemm_f32_avx2"
// CALL-LABEL: func.func @batched
// CALL: call @jaxc_gemm_f32_avx512(%c128, %c128, %c64,
func.func @batched(%a: tensor<8x128x64xf32>, %b: tensor<8x64x128xf32>) -> tensor<8x128x128xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128x128xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<8x128x64xf32>, tensor<8x64x128xf32>) outs(%f : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  return %0 : tensor<8x128x128xf32>
}

// Not for the library: bf16 (no such family), a body that converts
// (f16 inputs accumulated in f32) and narrow products (fewer columns than a
// vector's lanes): those are generated loop nests as before.
// CHECK-LABEL: func.func @not_library
// CHECK-NOT: library_call
// CHECK: return
func.func @not_library(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %h: tensor<64x64xf16>, %w: tensor<64x5xf32>, %x: tensor<1000x64xf32>)
    -> (tensor<64x64xbf16>, tensor<64x64xf32>, tensor<1000x5xf32>) {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x64xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%f : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %z32 = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<64x64xf32>
  %f32 = linalg.fill ins(%z32 : f32) outs(%e32 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %h : tensor<64x64xf16>, tensor<64x64xf16>) outs(%f32 : tensor<64x64xf32>) {
  ^bb0(%x16: f16, %y16: f16, %acc: f32):
    %xe = arith.extf %x16 : f16 to f32
    %ye = arith.extf %y16 : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %en = tensor.empty() : tensor<1000x5xf32>
  %fn = linalg.fill ins(%z32 : f32) outs(%en : tensor<1000x5xf32>) -> tensor<1000x5xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<1000x64xf32>, tensor<64x5xf32>) outs(%fn : tensor<1000x5xf32>) -> tensor<1000x5xf32>
  return %0, %1, %2 : tensor<64x64xbf16>, tensor<64x64xf32>, tensor<1000x5xf32>
}

// The generic of a jaxc.dft (jaxc-to-linalg) becomes a call of the FFT
// (fft.c): jaxc_dft_f32 or jaxc_dft_f64, the zero init gone (the call
// writes every element). 256 sequences of 1024 points: the threads take
// 128 each (whole vectors of 16); the call gets the points, the outputs
// (all of them), the sequences and parts, each operand's pointer, offset, part stride and strides in parts
// (a complex element is two), the sign and the scale.
// CHECK-LABEL: func.func @dft_f32
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.generic {{.*}}library_call = "jaxc_dft_f32"{{.*}} ins(%{{.*}} : tensor<128x1024xcomplex<f32>>) outs(%{{.*}} : tensor<128x1024xcomplex<f32>>)
// CALL-LABEL: func.func @dft_f32
// CALL: scf.forall
// CALL: call @jaxc_dft_f32(%c1024, %c1024, %c128, %c2, %{{.*}}, %{{.*}}, %c1, %c2048, %c2, %{{.*}}, %{{.*}}, %c1, %c2048, %c2, %c-1, %{{.*}}) : (index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, f64) -> ()
// CALL-NOT: linalg.generic
func.func @dft_f32(%x: tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>> {
  %step = arith.constant -0.00613592332 : f32
  %scale = arith.constant 1.0 : f32
  %n = arith.constant 1024 : index
  %zero = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %e = tensor.empty() : tensor<256x1024xcomplex<f32>>
  %init = linalg.fill ins(%zero : complex<f32>) outs(%e : tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>>
  %y = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<256x1024xcomplex<f32>>) outs(%init : tensor<256x1024xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: complex<f32>, %out: complex<f32>):
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %jk = arith.muli %j, %k : index
    %r = arith.remui %jk, %n : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %angle = arith.mulf %rf, %step : f32
    %cos = math.cos %angle : f32
    %sin = math.sin %angle : f32
    %wr = arith.mulf %cos, %scale : f32
    %wi = arith.mulf %sin, %scale : f32
    %w = complex.create %wr, %wi : complex<f32>
    %term = complex.mul %in, %w : complex<f32>
    %s = complex.add %out, %term : complex<f32>
    linalg.yield %s : complex<f32>
  }
    -> tensor<256x1024xcomplex<f32>>
  return %y : tensor<256x1024xcomplex<f32>>
}

// A small real-input f64 DFT: one call, no threads (too little work); the
// input has one part (part stride 0), the output two.
// CHECK-LABEL: func.func @dft_f64
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}library_call = "jaxc_dft_f64"
// CALL-LABEL: func.func @dft_f64
// CALL: call @jaxc_dft_f64(%c64, %c64, %c40, %c1, %{{.*}}, %c0, %c0, %c64, %c1, %{{.*}}, %c0, %c1, %c128, %c2, %c1, %{{.*}})
func.func @dft_f64(%x: tensor<40x64xf64>) -> tensor<40x64xcomplex<f64>> {
  %step = arith.constant 0.098174770424681 : f64
  %scale = arith.constant 0.015625 : f64
  %n = arith.constant 64 : index
  %zero = complex.constant [0.0 : f64, 0.0 : f64] : complex<f64>
  %e = tensor.empty() : tensor<40x64xcomplex<f64>>
  %init = linalg.fill ins(%zero : complex<f64>) outs(%e : tensor<40x64xcomplex<f64>>) -> tensor<40x64xcomplex<f64>>
  %y = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<40x64xf64>) outs(%init : tensor<40x64xcomplex<f64>>) attrs = {jaxc.dft_scale = 0.015625 : f64, jaxc.dft_sign = 1 : i64} {
  ^bb0(%in: f64, %out: complex<f64>):
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %jk = arith.muli %j, %k : index
    %r = arith.remui %jk, %n : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f64
    %angle = arith.mulf %rf, %step : f64
    %cos = math.cos %angle : f64
    %sin = math.sin %angle : f64
    %wr = arith.mulf %cos, %scale : f64
    %wi = arith.mulf %sin, %scale : f64
    %tr = arith.mulf %in, %wr : f64
    %ti = arith.mulf %in, %wi : f64
    %term = complex.create %tr, %ti : complex<f64>
    %s = complex.add %out, %term : complex<f64>
    linalg.yield %s : complex<f64>
  }
    -> tensor<40x64xcomplex<f64>>
  return %y : tensor<40x64xcomplex<f64>>
}
// Sequences in columns (a jaxc.dft along axis 0: maps (c, k, j) -> (j, c),
// (k, c)): 512 points down each of 257 columns. The threads split the
// columns (144 = 9 vectors of 16, and 113); the call gets the points, the
// columns of its tile, and each operand's strides along the sequences (2
// parts: the next column) and the points (514 parts: the next row).
// CHECK-LABEL: func.func @dft_columns
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.generic {{.*}}library_call = "jaxc_dft_f32"{{.*}} ins(%{{.*}} : tensor<512x?xcomplex<f32>>)
// CALL-LABEL: func.func @dft_columns
// CALL: scf.forall
// CALL: call @jaxc_dft_f32(%c512, %c512, %{{.*}}, %c2, %{{.*}}, %{{.*}}, %c1, %c2, %c514, %{{.*}}, %{{.*}}, %c1, %c2, %c514, %c-1, %{{.*}})
func.func @dft_columns(%x: tensor<512x257xcomplex<f32>>) -> tensor<512x257xcomplex<f32>> {
  %step = arith.constant -0.0122718466 : f32
  %scale = arith.constant 1.0 : f32
  %n = arith.constant 512 : index
  %zero = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %e = tensor.empty() : tensor<512x257xcomplex<f32>>
  %init = linalg.fill ins(%zero : complex<f32>) outs(%e : tensor<512x257xcomplex<f32>>) -> tensor<512x257xcomplex<f32>>
  %y = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (j, c)>, affine_map<(c, k, j) -> (k, c)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<512x257xcomplex<f32>>) outs(%init : tensor<512x257xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: complex<f32>, %out: complex<f32>):
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %jk = arith.muli %j, %k : index
    %r = arith.remui %jk, %n : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %angle = arith.mulf %rf, %step : f32
    %cos = math.cos %angle : f32
    %sin = math.sin %angle : f32
    %wr = arith.mulf %cos, %scale : f32
    %wi = arith.mulf %sin, %scale : f32
    %w = complex.create %wr, %wi : complex<f32>
    %term = complex.mul %in, %w : complex<f32>
    %s = complex.add %out, %term : complex<f32>
    linalg.yield %s : complex<f32>
  }
    -> tensor<512x257xcomplex<f32>>
  return %y : tensor<512x257xcomplex<f32>>
}

// The generic of a jaxc.hermitian_dft (a real result) calls
// jaxc_hermitian_dft_f32: the output's points and the sequences, the
// input's pointer, offset, part stride and strides (in parts), the real
// output's pointer, offset and strides (no part stride), the sign and the
// scale; 512 sequences split over the threads.
// CHECK-LABEL: func.func @hermitian_dft
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.generic {{.*}}library_call = "jaxc_hermitian_dft_f32"{{.*}} ins(%{{.*}} : tensor<256x257xcomplex<f32>>) outs(%{{.*}} : tensor<256x512xf32>)
// CALL-LABEL: func.func @hermitian_dft
// CALL: call @jaxc_hermitian_dft_f32(%c512, %c256, %{{.*}}, %{{.*}}, %c1, %c514, %c2, %{{.*}}, %{{.*}}, %c512, %c1, %c1, %{{.*}}) : (index, index, index, index, index, index, index, index, index, index, index, index, f64) -> ()
func.func @hermitian_dft(%x: tensor<512x257xcomplex<f32>>) -> tensor<512x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<512x257xcomplex<f32>>) outs(%init : tensor<512x512xf32>) attrs = {jaxc.dft_scale = 0.001953125 : f64, jaxc.dft_sign = 1 : i64} {
  ^bb0(%in: complex<f32>, %out: f32):
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %jk = arith.muli %j, %k : index
    %n = arith.constant 512 : index
    %r = arith.remui %jk, %n : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %step = arith.constant 0.0122718466 : f32
    %angle = arith.mulf %rf, %step : f32
    %cos = math.cos %angle : f32
    %sin = math.sin %angle : f32
    %re = complex.re %in : complex<f32>
    %im = complex.im %in : complex<f32>
    %a = arith.mulf %re, %cos : f32
    %b = arith.mulf %im, %sin : f32
    %t = arith.subf %a, %b : f32
    %s = arith.addf %out, %t : f32
    linalg.yield %s : f32
  } -> tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}
