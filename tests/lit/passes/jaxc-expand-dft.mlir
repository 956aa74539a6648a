// RUN: jaxc-opt %s --jaxc-expand-dft="library-calls=false" | FileCheck %s --check-prefix=EXPAND
// RUN: jaxc-opt %s --jaxc-expand-dft | FileCheck %s --check-prefix=KEEP
// RUN: env JAXC_CPU_LIBRARY_CALLS=0 jaxc-opt %s --jaxc-expand-dft | FileCheck %s --check-prefix=EXPAND

// Where no FFT library is called, a DFT becomes matrix products. Four points:
// the parts stacked and moved to (parts, points, sequences), one product of
// the 8x8 real DFT matrix [[Wr, -Wi], [Wi, Wr]] with them, moved back and
// made complex. With library calls on (the CPU's default) the op stays.
// EXPAND-LABEL: func.func @four_points
// EXPAND: %[[RE:.+]] = jaxc.real %arg0
// EXPAND: %[[IM:.+]] = jaxc.imag %arg0
// EXPAND: %[[P:.+]] = jaxc.concatenate
// EXPAND: %[[T:.+]] = jaxc.transpose %[[P]], perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// EXPAND: %[[W:.+]] = jaxc.constant dense<{{.*}}> : tensor<8x8xf32>
// EXPAND: %[[C:.+]] = jaxc.reshape %[[T]] : (tensor<2x4x3xf32>) -> tensor<8x3xf32>
// EXPAND: %[[D:.+]] = jaxc.dot_general %[[W]], %[[C]], batch = [] x [], contract = [1] x [0]
// EXPAND: %[[B:.+]] = jaxc.reshape %[[D]] : (tensor<8x3xf32>) -> tensor<2x4x3xf32>
// EXPAND: jaxc.transpose %[[B]], perm = [0, 2, 1] : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
// EXPAND: %[[Y:.+]] = jaxc.complex
// EXPAND: return %[[Y]]
// KEEP-LABEL: func.func @four_points
// KEEP: jaxc.dft %arg0, axis = 1, sign = -1
func.func @four_points(%x: tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>> {
  %y = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<3x4xcomplex<f32>> -> tensor<3x4xcomplex<f32>>
  return %y : tensor<3x4xcomplex<f32>>
}

// Along the first axis the points are already the rows of the parts'
// columns: no transpose either way.
// EXPAND-LABEL: func.func @first_axis
// EXPAND-NOT: jaxc.transpose
// EXPAND: jaxc.dot_general %{{.*}}, %{{.*}}, batch = [] x [], contract = [1] x [0] : (tensor<8x8xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// EXPAND-NOT: jaxc.transpose
// EXPAND: return
func.func @first_axis(%x: tensor<4x3xcomplex<f32>>) -> tensor<4x3xcomplex<f32>> {
  %y = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<4x3xcomplex<f32>> -> tensor<4x3xcomplex<f32>>
  return %y : tensor<4x3xcomplex<f32>>
}

// A Hermitian DFT: the full spectrum (the conjugates of points 1..3
// mirrored after the 5 given), its transform as products, the real part.
// EXPAND-LABEL: func.func @hermitian
// EXPAND-NOT: jaxc.hermitian_dft
// EXPAND: %[[S:.+]] = jaxc.slice %arg0
// EXPAND: %[[C:.+]] = jaxc.conj %[[S]]
// EXPAND: %[[M:.+]] = jaxc.reverse %[[C]], dims = [1]
// EXPAND: jaxc.concatenate(%arg0, %[[M]]), dim = 1 : (tensor<2x5xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
// EXPAND: jaxc.dot_general
// EXPAND: %[[R:.+]] = jaxc.real
// EXPAND: return %[[R]] : tensor<2x8xf32>
// KEEP-LABEL: func.func @hermitian
// KEEP: jaxc.hermitian_dft %arg0, axis = 1, sign = 1
func.func @hermitian(%x: tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32> {
  %y = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 0.125 : tensor<2x5xcomplex<f32>> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// A real input of a prime length above 64: Bluestein's convolution, itself
// two transforms of 256 points (16 x 16: two products each) between the
// chirp multiplications; no jaxc.dft is left, and the program's helper
// function is gone.
// EXPAND-LABEL: func.func @prime_length
// EXPAND-NOT: jaxc.dft
// EXPAND-COUNT-4: jaxc.dot_general
// EXPAND-NOT: jaxc.dft
// EXPAND: return
// EXPAND-NOT: func.func private @dft_program
func.func @prime_length(%x: tensor<67xf64>) -> tensor<67xcomplex<f64>> {
  %y = jaxc.dft %x, axis = 0, sign = 1, scale = 0.5 : tensor<67xf64> -> tensor<67xcomplex<f64>>
  return %y : tensor<67xcomplex<f64>>
}

// Inside a region (a loop body), the program goes where the op was.
// EXPAND-LABEL: func.func @in_a_loop
// EXPAND: jaxc.while
// EXPAND: jaxc.dot_general
// EXPAND: jaxc.yield
func.func @in_a_loop(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %r = jaxc.while(%x : tensor<8xcomplex<f32>>) cond {
  ^bb0(%v: tensor<8xcomplex<f32>>):
    %t = jaxc.constant dense<false> : tensor<i1>
    jaxc.yield %t : tensor<i1>
  } do {
  ^bb0(%v: tensor<8xcomplex<f32>>):
    %y = jaxc.dft %v, axis = 0, sign = -1, scale = 1.0 : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
    jaxc.yield %y : tensor<8xcomplex<f32>>
  }
  return %r : tensor<8xcomplex<f32>>
}
