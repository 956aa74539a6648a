// RUN: jaxc-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,jaxc-schedule{vector-bits=256 threads=1 library-calls=false},canonicalize,cse)' | FileCheck %s
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,linalg-fuse-elementwise-ops,jaxc-schedule{vector-bits=512 threads=2 library-calls=false},canonicalize,cse)' | FileCheck %s --check-prefix=AVX512
// RUN: env JAXC_CPU_VECTOR_BITS=256 JAXC_CPU_THREADS=1 jaxc-opt %s --print-schedule | FileCheck %s --check-prefix=SCHEDULE

// The RUN lines above generate every product as a loop nest
// (library-calls=false); jaxc-schedule-library.mlir shows the default, calls
// of the compiled library, which --print-schedule prints here: a product
// (f32 A·B, A·Bᵀ, the convolution's) is one match on AVX2 with one thread,
// nothing to tile. Narrow products (fewer columns than a vector) are still
// generated.
// --print-schedule: the transform script of each kernel, with its class.
// SCHEDULE: // kernel 0: elementwise, loops [64, 64] ['parallel', 'parallel'] at loc({{.*}}jaxc-schedule.mlir":{{[0-9]+}}:8)
// SCHEDULE: flatten_elementwise
// SCHEDULE: transform.structured.tile_using_for %{{.*}} tile_sizes [16]
// SCHEDULE: // kernel {{[0-9]+}}: contraction, library call jaxc_gemm_f32_avx2, loops [64, 40, 100] ['parallel', 'parallel', 'reduction']
// SCHEDULE-NEXT: module attributes
// SCHEDULE-NEXT: transform.named_sequence
// SCHEDULE-NEXT: transform.structured.match
// SCHEDULE-NEXT: transform.yield
// SCHEDULE: // then: a call of jaxc_gemm_f32_avx2 (jaxc-library-calls, after bufferization)
// SCHEDULE: // kernel {{[0-9]+}}: contraction, library call jaxc_gemm_f32_avx2, loops [64, 40, 100]
// SCHEDULE: // kernel {{[0-9]+}}: reduction, loops [64, 100] ['parallel', 'reduction']
// SCHEDULE: transform.structured.tile_reduction_using_for %{{.*}} by tile_sizes = [0, 32]
// SCHEDULE: // kernel {{[0-9]+}}: reduction, loops [100, 64] ['reduction', 'parallel']
// SCHEDULE-NOT: tile_sizes [16, 0]
// SCHEDULE: tile_sizes [1, 16] interchange = [1, 0]
// SCHEDULE: // kernel {{[0-9]+}}: contraction, library call jaxc_gemm_f32_avx2, loops [64, 45, 100]
// SCHEDULE: // kernel {{[0-9]+}}: contraction (narrow, computed as its transpose), loops [5, 64, 100]
// SCHEDULE: // kernel {{[0-9]+}}: contraction, library call jaxc_gemm_f32_avx2, loops [256, 8, 27]
// SCHEDULE: // kernel {{[0-9]+}}: reduction, loops [100, 512] ['reduction', 'parallel']
// SCHEDULE: transform.structured.match
// SCHEDULE-NEXT: tile_sizes [16, 0]
// SCHEDULE-NEXT: tile_sizes [1, 16] interchange = [1, 0]
// SCHEDULE: // kernel {{[0-9]+}}: contraction, library call jaxc_gemm_f32_avx2, loops [256, 1004, 64]

// Elementwise: the fused sin+add is flattened to 1-D and walked 16 lanes
// (two AVX2 registers) at a time. With 2 threads and AVX-512 the loop is
// split in two forall chunks of 32-lane tiles.
// CHECK-LABEL: func.func @sin_add
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<64x64xf32> into tensor<4096xf32>
// CHECK: scf.for %[[I:.+]] = %{{.*}} to %{{.*}} step %c16
// CHECK-NEXT: %[[V:.+]] = vector.transfer_read %{{.*}}[%[[I]]], %{{.*}} {in_bounds = [true]} : tensor<4096xf32>, vector<16xf32>
// CHECK-NEXT: %[[S:.+]] = math.sin %[[V]] : vector<16xf32>
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[S]], %[[V]] : vector<16xf32>
// CHECK-NEXT: vector.transfer_write %[[A]]
// AVX512-LABEL: func.func @sin_add
// AVX512-NOT: scf.forall
// AVX512: math.sin %{{.*}} : vector<32xf32>
func.func @sin_add(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// Work enough to pay for a fork/join (2^17 elements x 5, an exp costing 4
// loads and stores): with 2 threads the loop is split into two scf.forall
// chunks.
// CHECK-LABEL: func.func @parallel
// CHECK-NOT: scf.forall
// CHECK: math.exp %{{.*}} : vector<16xf32>
// AVX512-LABEL: func.func @parallel
// AVX512: scf.forall (%{{.*}}) in (2)
// AVX512: scf.for
// AVX512: math.exp %{{.*}} : vector<32xf32>
func.func @parallel(%x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %e = tensor.empty() : tensor<512x256xf32>
  %0 = linalg.exp ins(%x : tensor<512x256xf32>) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}

// A kernel with several results (jaxc-fuse-elementwise-dags merges a value
// with several users and its users): split over the threads and vectorized
// as one loop, each result written in full vectors, an f16 one too.
// AVX512-LABEL: func.func @several_results
// AVX512: scf.forall (%{{.*}}) in (2) shared_outs({{.*}}) -> (tensor<131072xf32>, tensor<131072xf16>)
// AVX512: math.exp %{{.*}} : vector<32xf32>
// AVX512: arith.truncf %{{.*}} : vector<32xf32> to vector<32xf16>
// AVX512-DAG: vector.transfer_write %{{.*}} : vector<32xf32>, tensor<65536xf32>
// AVX512-DAG: vector.transfer_write %{{.*}} : vector<32xf16>, tensor<65536xf16>
// AVX512: tensor.parallel_insert_slice
// AVX512: tensor.parallel_insert_slice
func.func @several_results(%x: tensor<512x256xf32>) -> (tensor<512x256xf32>, tensor<512x256xf16>) {
  %e = tensor.empty() : tensor<512x256xf32>
  %h = tensor.empty() : tensor<512x256xf16>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]} ins(%x : tensor<512x256xf32>) outs(%e, %h : tensor<512x256xf32>, tensor<512x256xf16>) {
  ^bb0(%in: f32, %out: f32, %out_h: f16):
    %1 = math.exp %in : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %1, %2 : f32, f16
  } -> (tensor<512x256xf32>, tensor<512x256xf16>)
  return %0#0, %0#1 : tensor<512x256xf32>, tensor<512x256xf16>
}

// As many elements, too little work (2^17 x 1.25): one thread.
// AVX512-LABEL: func.func @cheap_serial
// AVX512-NOT: scf.forall
// AVX512: arith.addf %{{.*}} : vector<32xf32>
// AVX512: return
func.func @cheap_serial(%x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %e = tensor.empty() : tensor<512x256xf32>
  %0 = linalg.add ins(%x, %x : tensor<512x256xf32>, tensor<512x256xf32>) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}

// A size that no tile divides (3000 = 187 * 16 + 8): full tiles, then the
// last 8 elements as one narrower vector.
// CHECK-LABEL: func.func @odd_size
// CHECK: scf.for %{{.*}} = %c0 to %c2992 step %c16
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: math.exp %{{.*}} : vector<8xf32>
func.func @odd_size(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %e = tensor.empty() : tensor<3000xf32>
  %0 = linalg.exp ins(%x : tensor<3000xf32>) outs(%e : tensor<3000xf32>) -> tensor<3000xf32>
  return %0 : tensor<3000xf32>
}

// Contraction: the register tile is chosen to divide the sizes (64 x 40: 8 x 8,
// eight accumulators). A is packed into 8-row panels (8 x 100 x 8: one k step
// of a panel is 32 bytes, half a cache line) and B into 8-wide panels (5 x 100
// x 8), each contiguous; both copies are vectorized, 5 k-rows at a time. The
// product runs over (A panel, row, B panel, lane, k): per B panel, per A
// panel, one vector.contract (outer product) per k step into accumulators
// carried through the k loop.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[A3:.+]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [8, 8, 100]
// CHECK: %[[AP:.+]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}}) -> (tensor<8x100x8xf32>)
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c100 step %c5
// CHECK-NEXT: vector.transfer_read %[[A3]]{{.*}} : tensor<8x8x100xf32>, vector<1x8x5xf32>
// CHECK-NEXT: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x8x5xf32> to vector<1x5x8xf32>
// CHECK: %[[B3:.+]] = tensor.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [100, 5, 8]
// CHECK: %[[BP:.+]] = scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args(%{{.*}}) -> (tensor<5x100x8xf32>)
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c100 step %c5
// CHECK-NEXT: vector.transfer_read %[[B3]]{{.*}} : tensor<100x5x8xf32>, vector<5x1x8xf32>
// CHECK-NEXT: vector.transpose %{{.*}}, [1, 0, 2] : vector<5x1x8xf32> to vector<1x5x8xf32>
// CHECK: scf.for %[[J:.+]] = %c0 to %c5 step %c1
// CHECK-NEXT: scf.for %[[I:.+]] = %c0 to %c8 step %c1
// CHECK-NEXT: %[[ACC0:.+]] = vector.transfer_read %{{.*}}[%[[I]], %c0, %[[J]], %c0]{{.*}} : tensor<8x8x5x8xf32>, vector<1x8x1x8xf32>
// CHECK-NEXT: scf.for %[[K:.+]] = %c0 to %c100 step %c1 iter_args(%[[ACC:.+]] = %[[ACC0]]) -> (vector<1x8x1x8xf32>)
// CHECK-NEXT: %[[A:.+]] = vector.transfer_read %[[AP]][%[[I]], %[[K]], %c0]{{.*}} : tensor<8x100x8xf32>, vector<1x1x8xf32>
// CHECK-NEXT: %[[B:.+]] = vector.transfer_read %[[BP]][%[[J]], %[[K]], %c0]{{.*}} : tensor<5x100x8xf32>, vector<1x1x8xf32>
// CHECK-NEXT: vector.contract {{.*}} %[[A]], %[[B]], %[[ACC]] : vector<1x1x8xf32>, vector<1x1x8xf32> into vector<1x8x1x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<8x8x5x8xf32> into tensor<64x40xf32>
func.func @matmul(%a: tensor<64x100xf32>, %b: tensor<100x40xf32>) -> tensor<64x40xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x40xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x40xf32>) -> tensor<64x40xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x100xf32>, tensor<100x40xf32>) outs(%f : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %0 : tensor<64x40xf32>
}

// A·Bᵀ: B (n x k) is packed into the same panels straight from its rows: each
// copy tile is a 5 x 8 block transposed in registers.
// CHECK-LABEL: func.func @matmul_b_transposed
// CHECK: tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [5, 8, 100]
// CHECK: vector.transpose %{{.*}}, [0, 2, 1] : vector<1x8x5xf32> to vector<1x5x8xf32>
// CHECK: vector.contract
func.func @matmul_b_transposed(%a: tensor<64x100xf32>, %b: tensor<40x100xf32>) -> tensor<64x40xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x40xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x40xf32>) -> tensor<64x40xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x100xf32>, tensor<40x100xf32>) outs(%f : tensor<64x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x40xf32>
  return %0 : tensor<64x40xf32>
}

// Row reduction: 32 partial sums (4 registers) per row, carried through the
// loop over the row; the 4 leftover columns are added to them, then the 32
// are combined in registers (vector.multi_reduction).
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.for %[[ROW:.+]] = %c0 to %c64 step %c1
// CHECK: scf.for %[[K:.+]] = %c0 to %c96 step %c32 iter_args(%[[P:.+]] = %{{.*}}) -> (vector<1x32xf32>)
// CHECK-NEXT: %[[X:.+]] = vector.transfer_read %{{.*}}[%[[ROW]], %[[K]]]{{.*}} : tensor<64x100xf32>, vector<1x32xf32>
// CHECK-NEXT: arith.addf %[[X]], %[[P]] : vector<1x32xf32>
// CHECK: vector<1x4xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x32xf32> to vector<1xf32>
func.func @row_sum(%x: tensor<64x100xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.reduce ins(%x : tensor<64x100xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<64xf32>
}

// Column reduction: 16 columns at a time, the rows looped inside with the
// accumulator in registers.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.for %[[J:.+]] = %c0 to %c64 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c100 step %c1 iter_args(%[[ACC:.+]] = %{{.*}}) -> (vector<16xf32>)
// CHECK: arith.addf %[[ACC]], %{{.*}} : vector<16xf32>
func.func @column_sum(%x: tensor<100x64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.reduce ins(%x : tensor<100x64xf32>) outs(%f : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<64xf32>
}

// No register tile divides 45 columns: 6 x 16 tiles (12 accumulators), and
// the last rows and columns are peeled into narrower tiles.
// CHECK-LABEL: func.func @matmul_remainders
// CHECK: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK: xf32> into vector<{{[0-9]+}}x{{[0-9]+}}xf32>
func.func @matmul_remainders(%a: tensor<64x100xf32>, %b: tensor<100x45xf32>) -> tensor<64x45xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x45xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x45xf32>) -> tensor<64x45xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x100xf32>, tensor<100x45xf32>) outs(%f : tensor<64x45xf32>) -> tensor<64x45xf32>
  return %0 : tensor<64x45xf32>
}

// Fewer columns than a vector has lanes (a logits layer's weight gradient
// Aᵀ·B, 5 columns): the product is computed transposed (5 x 64, the 64 along
// the vectors) and written out by one small transpose.
// CHECK-LABEL: func.func @narrow_weight_gradient
// CHECK: vector.contract {{.*}} into vector<5x{{(16|32|64)}}xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<5x64xf32>) outs(%{{.*}} : tensor<64x5xf32>) permutation = [1, 0]
func.func @narrow_weight_gradient(%a: tensor<100x64xf32>, %b: tensor<100x5xf32>) -> tensor<64x5xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x5xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x5xf32>) -> tensor<64x5xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<100x64xf32>, tensor<100x5xf32>) outs(%f : tensor<64x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x5xf32>
  return %0 : tensor<64x5xf32>
}

// Small kernels (under 1024 iterations) stay scalar.
// CHECK-LABEL: func.func @small
// CHECK: linalg.generic
// CHECK-NOT: vector
func.func @small(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// Convolution (im2col, schedules/convolution.py): the windows of the lhs are
// copied into a patches matrix (K = 3·3·3 rows, M = 4·8·8 columns: the copy's
// innermost loop runs along the image row), the OIHW kernel is transposed to
// rows of B (27 x 8), the product is a packed contraction (A packed straight
// from the patches, seen as 27 x 32 panels x 8), and a transpose puts the
// result back in NCHW.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4x3x10x10xf32>) outs(%{{.*}} : tensor<3x3x3x4x8x8xf32>)
// CHECK-DAG: %[[B:.*]] = linalg.transpose ins(%arg1 : tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x8xf32>) permutation = [1, 2, 3, 0]
// CHECK-DAG: tensor.collapse_shape %[[B]] {{\[\[}}0, 1, 2], [3]] : tensor<3x3x3x8xf32> into tensor<27x8xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} : tensor<3x3x3x4x8x8xf32> into tensor<27x32x8xf32>
// CHECK: vector.contract
// CHECK: tensor.expand_shape %{{.*}} : tensor<256x8xf32> into tensor<4x8x8x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8x8x8xf32>) outs(%{{.*}} : tensor<4x8x8x8xf32>) permutation = [0, 3, 1, 2]
func.func @conv(%x: tensor<4x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8x8xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, o, y, x, c, i, j) -> (n, c, y + i, x + j)>, affine_map<(n, o, y, x, c, i, j) -> (o, c, i, j)>, affine_map<(n, o, y, x, c, i, j) -> (n, o, y, x)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<4x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<4x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8x8xf32>
  return %0 : tensor<4x8x8x8xf32>
}

// A column sum over rows of 1 KiB or more goes through the rows in blocks of
// 16, each swept across all columns (a 64-float row keeps the column walk).
// CHECK-LABEL: func.func @wide_column_sum
// CHECK: scf.for %{{.*}} = %c0 to %c100 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%[[ACC:.+]] = %{{.*}}) -> (vector<16xf32>)
// CHECK: arith.addf %[[ACC]], %{{.*}} : vector<16xf32>
func.func @wide_column_sum(%x: tensor<100x512xf32>) -> tensor<512xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %0 = linalg.reduce ins(%x : tensor<100x512xf32>) outs(%f : tensor<512xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<512xf32>
}

// No register tile divides n = 1004 (8 lanes): the 992 columns whole 4-vector
// tiles cover are a packed product of their own, the last 12 another, each
// inserted into its columns of the result; the whole product's fill is gone.
// CHECK-LABEL: func.func @split_columns
// CHECK: tensor.extract_slice %arg1[0, 0] [64, 992] [1, 1] : tensor<64x1004xf32> to tensor<64x992xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [256, 992] [1, 1] : tensor<256x992xf32> into tensor<256x1004xf32>
// CHECK: tensor.extract_slice %arg1[0, 992] [64, 12] [1, 1] : tensor<64x1004xf32> to tensor<64x12xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 992] [256, 12] [1, 1] : tensor<256x12xf32> into tensor<256x1004xf32>
func.func @split_columns(%a: tensor<256x64xf32>, %b: tensor<64x1004xf32>) -> tensor<256x1004xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1004xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<256x1004xf32>) -> tensor<256x1004xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x1004xf32>) outs(%f : tensor<256x1004xf32>) -> tensor<256x1004xf32>
  return %0 : tensor<256x1004xf32>
}
