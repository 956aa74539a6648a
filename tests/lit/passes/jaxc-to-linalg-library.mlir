// RUN: jaxc-opt %s --jaxc-to-linalg | FileCheck %s

// An f32 or f64 LU factorization is a call of the compiled library (lu.c):
// the operand as a read-only buffer, the factors, pivots and permutation in
// new buffers, the counts (matrices, rows, columns) then every buffer as an
// unranked memref (one declaration for every shape; jaxc-library-calls
// passes pointers after bufferization), the results handed back as tensors.
// CHECK: func.func private @jaxc_lu_f64(index, index, index, memref<*xf64>, memref<*xf64>, memref<*xi32>, memref<*xi32>)
// CHECK: func.func private @jaxc_lu_f32(index, index, index, memref<*xf32>, memref<*xf32>, memref<*xi32>, memref<*xi32>)
// CHECK-LABEL: func.func @batched
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[F:.+]] = memref.alloc() : memref<2x5x3xf32>
// CHECK-DAG: %[[P:.+]] = memref.alloc() : memref<2x3xi32>
// CHECK-DAG: %[[Q:.+]] = memref.alloc() : memref<2x5xi32>
// CHECK-DAG: %[[A:.+]] = bufferization.to_buffer %arg0 read_only : tensor<2x5x3xf32> to memref<2x5x3xf32>
// CHECK-DAG: %[[UA:.+]] = memref.cast %[[A]] : memref<2x5x3xf32> to memref<*xf32>
// CHECK-DAG: %[[UF:.+]] = memref.cast %[[F]] : memref<2x5x3xf32> to memref<*xf32>
// CHECK-DAG: %[[UP:.+]] = memref.cast %[[P]] : memref<2x3xi32> to memref<*xi32>
// CHECK-DAG: %[[UQ:.+]] = memref.cast %[[Q]] : memref<2x5xi32> to memref<*xi32>
// CHECK: call @jaxc_lu_f32(%[[C2]], %[[C5]], %[[C3]], %[[UA]], %[[UF]], %[[UP]], %[[UQ]])
// CHECK-DAG: %[[TF:.+]] = bufferization.to_tensor %[[F]] restrict writable : memref<2x5x3xf32> to tensor<2x5x3xf32>
// CHECK-DAG: %[[TP:.+]] = bufferization.to_tensor %[[P]] restrict writable : memref<2x3xi32> to tensor<2x3xi32>
// CHECK-DAG: %[[TQ:.+]] = bufferization.to_tensor %[[Q]] restrict writable : memref<2x5xi32> to tensor<2x5xi32>
// CHECK: return %[[TF]], %[[TP]], %[[TQ]]
func.func @batched(%a: tensor<2x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x5xi32>) {
  %f, %p, %q = jaxc.lu %a : tensor<2x5x3xf32> -> (tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x5xi32>)
  return %f, %p, %q : tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x5xi32>
}

// One declaration per element type, however many calls.
// CHECK-LABEL: func.func @twice
// CHECK: call @jaxc_lu_f64(
// CHECK: call @jaxc_lu_f64(
func.func @twice(%a: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>) {
  %f, %p, %q = jaxc.lu %a : tensor<4x4xf64> -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>)
  %g, %r, %s = jaxc.lu %f : tensor<4x4xf64> -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>)
  return %f, %g : tensor<4x4xf64>, tensor<4x4xf64>
}

// A triangular solve passes b's counts, the buffers of a, b and the result,
// then its flags as 0 or 1: left_side, lower, transpose_a, unit_diagonal.
// CHECK-LABEL: func.func @solve
// CHECK-DAG: %[[X:.+]] = memref.alloc() : memref<3x4xf64>
// CHECK-DAG: %[[A:.+]] = bufferization.to_buffer %arg0 read_only : tensor<4x4xf64> to memref<4x4xf64>
// CHECK-DAG: %[[B:.+]] = bufferization.to_buffer %arg1 read_only : tensor<3x4xf64> to memref<3x4xf64>
// CHECK: call @jaxc_triangular_solve_f64(%c1, %c3, %c4, %{{.+}}, %{{.+}}, %{{.+}}, %c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}}) : (index, index, index, memref<*xf64>, memref<*xf64>, memref<*xf64>, index, index, index, index) -> ()
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[X]] restrict writable
// CHECK: return %[[R]]
func.func @solve(%a: tensor<4x4xf64>, %b: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %x = jaxc.triangular_solve %a, %b transpose_a unit_diagonal : (tensor<4x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %x : tensor<3x4xf64>
}

// A Cholesky factorization passes the matrices and their size, then the
// buffers of the operand and the factor.
// CHECK-LABEL: func.func @cholesky
// CHECK-DAG: %[[L:.+]] = memref.alloc() : memref<3x5x5xf32>
// CHECK-DAG: %[[A:.+]] = bufferization.to_buffer %arg0 read_only : tensor<3x5x5xf32> to memref<3x5x5xf32>
// CHECK: call @jaxc_cholesky_f32(%c3, %c5, %{{.+}}, %{{.+}}) : (index, index, memref<*xf32>, memref<*xf32>) -> ()
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[L]] restrict writable
// CHECK: return %[[R]]
func.func @cholesky(%a: tensor<3x5x5xf32>) -> tensor<3x5x5xf32> {
  %l = jaxc.cholesky %a : tensor<3x5x5xf32>
  return %l : tensor<3x5x5xf32>
}

// A QR decomposition passes (matrices, rows, columns, full_matrices) and the
// buffers of the operand, q and r; an eigendecomposition (matrices, size,
// lower) and the buffers of the operand, the vectors and the values.
// CHECK-LABEL: func.func @qr
// CHECK-DAG: %[[Q:.+]] = memref.alloc() : memref<2x5x5xf64>
// CHECK-DAG: %[[R:.+]] = memref.alloc() : memref<2x5x3xf64>
// CHECK: call @jaxc_qr_f64(%c2, %c5, %c3, %c1, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, index, index, memref<*xf64>, memref<*xf64>, memref<*xf64>) -> ()
// CHECK: bufferization.to_tensor %[[Q]] restrict writable
// CHECK: bufferization.to_tensor %[[R]] restrict writable
func.func @qr(%a: tensor<2x5x3xf64>) -> (tensor<2x5x5xf64>, tensor<2x5x3xf64>) {
  %q, %r = jaxc.qr %a full_matrices : tensor<2x5x3xf64> -> (tensor<2x5x5xf64>, tensor<2x5x3xf64>)
  return %q, %r : tensor<2x5x5xf64>, tensor<2x5x3xf64>
}

// A top_k passes (rows, the last axis's size, k) and the buffers of the
// operand, the values and the indices.
// CHECK-LABEL: func.func @top_k
// CHECK-DAG: %[[V:.+]] = memref.alloc() : memref<2x3x4xf32>
// CHECK-DAG: %[[I:.+]] = memref.alloc() : memref<2x3x4xi32>
// CHECK: call @jaxc_top_k_f32(%c6, %c50, %c4, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, index, memref<*xf32>, memref<*xf32>, memref<*xi32>) -> ()
// CHECK: bufferization.to_tensor %[[V]] restrict writable
// CHECK: bufferization.to_tensor %[[I]] restrict writable
func.func @top_k(%x: tensor<2x3x50xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi32>) {
  %v, %i = jaxc.top_k %x, k = 4 : tensor<2x3x50xf32>
  return %v, %i : tensor<2x3x4xf32>, tensor<2x3x4xi32>
}

// Hessenberg (matrices, size; operand, packed, taus), Schur (matrices,
// size; operand, t, z) and eig (matrices, size, left, right; operand, w, vl,
// vr: complex buffers) call eig.c.
// CHECK-LABEL: func.func @nonsymmetric
// CHECK: call @jaxc_hessenberg_f32(%c2, %c5, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
// CHECK: call @jaxc_schur_f32(%c2{{.*}}, %c5{{.*}}, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
// CHECK: call @jaxc_eig_f32(%c2{{.*}}, %c5{{.*}}, %c0, %c1, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, index, index, memref<*xf32>, memref<*xcomplex<f32>>, memref<*xcomplex<f32>>, memref<*xcomplex<f32>>) -> ()
func.func @nonsymmetric(%a: tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x4xf32>, tensor<2x5x5xf32>, tensor<2x5x5xf32>, tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>) {
  %h, %taus = jaxc.hessenberg %a : tensor<2x5x5xf32>
  %t, %z = jaxc.schur %a : tensor<2x5x5xf32>
  %w, %vl, %vr = jaxc.eig %a right : tensor<2x5x5xf32>
  return %h, %taus, %t, %z, %w, %vr : tensor<2x5x5xf32>, tensor<2x4xf32>, tensor<2x5x5xf32>, tensor<2x5x5xf32>, tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>
}

// CHECK-LABEL: func.func @eigh
// CHECK-DAG: %[[V:.+]] = memref.alloc() : memref<4x4xf32>
// CHECK-DAG: %[[W:.+]] = memref.alloc() : memref<4xf32>
// CHECK: call @jaxc_eigh_f32(%c1, %c4, %c0, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, index, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
func.func @eigh(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %v, %w = jaxc.eigh %a : tensor<4x4xf32> -> (tensor<4x4xf32>, tensor<4xf32>)
  return %v, %w : tensor<4x4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @svd
// CHECK: call @jaxc_svd_f32(%c1, %c3, %c5, %c0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (index, index, index, index, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>) -> ()
func.func @svd(%a: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>) {
  %s, %u, %vh = jaxc.svd %a : tensor<3x5xf32> -> (tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>)
  return %s, %u, %vh : tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>
}
