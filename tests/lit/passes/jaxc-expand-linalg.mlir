// RUN: jaxc-opt %s --jaxc-expand-linalg="library-calls=false" | FileCheck %s --check-prefix=EXPAND
// RUN: jaxc-opt %s --jaxc-expand-linalg | FileCheck %s --check-prefix=KEEP
// RUN: env JAXC_CPU_LIBRARY_CALLS=0 jaxc-opt %s --jaxc-expand-linalg | FileCheck %s --check-prefix=EXPAND

// Where no library is called, an LU factorization becomes a loop of jaxc ops
// over the columns (fewer than two blocks of 32: one step per column, a
// jaxc.scan): the
// pivot is the argmax of the column's moduli, the pivot row one gather, the
// row swap selects, then the rank-1 update. With library calls on (the CPU's
// default) an f32 or f64 one stays.
// EXPAND-LABEL: func.func @four_by_four
// EXPAND-NOT: jaxc.lu
// EXPAND: jaxc.scan init({{.*}}) xs() length = 4
// EXPAND: jaxc.abs
// EXPAND: jaxc.argmax
// EXPAND: jaxc.gather
// EXPAND: jaxc.div
// EXPAND: jaxc.mul
// EXPAND: jaxc.sub
// EXPAND: return
// KEEP-LABEL: func.func @four_by_four
// KEEP: jaxc.lu %arg0 : tensor<4x4xf32>
func.func @four_by_four(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %f, %p, %q = jaxc.lu %a : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>)
  return %f, %p, %q : tensor<4x4xf32>, tensor<4xi32>, tensor<4xi32>
}

// The library factors f32 and f64 only: complex (and 16-bit) ones expand on
// every target.
// EXPAND-LABEL: func.func @complex
// EXPAND-NOT: jaxc.lu
// KEEP-LABEL: func.func @complex
// KEEP-NOT: jaxc.lu
// KEEP: jaxc.scan init({{.*}}) xs() length = 2
// KEEP: return
func.func @complex(%a: tensor<3x2xcomplex<f64>>) -> (tensor<3x2xcomplex<f64>>, tensor<2xi32>, tensor<3xi32>) {
  %f, %p, %q = jaxc.lu %a : tensor<3x2xcomplex<f64>> -> (tensor<3x2xcomplex<f64>>, tensor<2xi32>, tensor<3xi32>)
  return %f, %p, %q : tensor<3x2xcomplex<f64>>, tensor<2xi32>, tensor<3xi32>
}

// From two blocks of 32 columns on, the loop runs over blocks: each factors
// its 32 columns in an inner loop (a jaxc.while: its bounds are the block's), permutes the rows once (a gather) and
// updates the trailing matrix with one product.
// EXPAND-LABEL: func.func @blocked
// EXPAND: jaxc.scan init({{.*}}) xs() length = 2
// EXPAND: jaxc.while
// EXPAND: jaxc.gather
// EXPAND: jaxc.dot_general {{.*}} : (tensor<64x32xf64>, tensor<32x64xf64>) -> tensor<64x64xf64>
// EXPAND: return
func.func @blocked(%a: tensor<64x64xf64>) -> (tensor<64x64xf64>, tensor<64xi32>, tensor<64xi32>) {
  %f, %p, %q = jaxc.lu %a : tensor<64x64xf64> -> (tensor<64x64xf64>, tensor<64xi32>, tensor<64xi32>)
  return %f, %p, %q : tensor<64x64xf64>, tensor<64xi32>, tensor<64xi32>
}

// A triangular solve of fewer than two blocks of 32 rows: substitution row
// by row (a jaxc.scan), each row one product with the rows solved before it
// and a division by the diagonal. A right-side solve is the left-side one
// of the transposes; conjugate_a conjugates a first.
// EXPAND-LABEL: func.func @solve
// EXPAND-NOT: jaxc.triangular_solve
// EXPAND: jaxc.scan init({{.*}}) xs() length = 4
// EXPAND: jaxc.dot_general
// EXPAND: jaxc.div
// KEEP-LABEL: func.func @solve
// KEEP: jaxc.triangular_solve %arg0, %arg1 left_side lower
func.func @solve(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %x = jaxc.triangular_solve %a, %b left_side lower : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %x : tensor<4x2xf32>
}

// EXPAND-LABEL: func.func @right_conjugate
// EXPAND: jaxc.conj %arg0
// EXPAND: jaxc.transpose
// EXPAND: jaxc.scan
// KEEP-LABEL: func.func @right_conjugate
// KEEP-NOT: jaxc.triangular_solve
// KEEP: jaxc.conj %arg0
func.func @right_conjugate(%a: tensor<3x3xcomplex<f32>>, %b: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %x = jaxc.triangular_solve %a, %b conjugate_a unit_diagonal : (tensor<3x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %x : tensor<2x3xcomplex<f32>>
}

// A Cholesky factorization: a loop over the columns (each one product with
// the columns done, a square root, a division), then every entry NaN unless
// all pivots are positive and all entries finite.
// EXPAND-LABEL: func.func @cholesky
// EXPAND-NOT: jaxc.cholesky
// EXPAND: jaxc.scan init({{.*}}) xs() length = 5
// EXPAND: jaxc.dot_general
// EXPAND: jaxc.sqrt
// EXPAND: jaxc.div
// EXPAND: jaxc.is_finite
// EXPAND: jaxc.constant dense<0x7FF8000000000000> : tensor<f64>
// EXPAND: jaxc.select
// KEEP-LABEL: func.func @cholesky
// KEEP: jaxc.cholesky %arg0 : tensor<5x5xf64>
func.func @cholesky(%a: tensor<5x5xf64>) -> tensor<5x5xf64> {
  %l = jaxc.cholesky %a : tensor<5x5xf64>
  return %l : tensor<5x5xf64>
}
