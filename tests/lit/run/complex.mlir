// --run: complex arithmetic and functions on the CPU, against NumPy's values
// (np.exp((z + (1+2j)) * z) / (x + 1j*x) and its conj, abs, imag).
// RUN: jaxc-opt %s --run=f --arg='[1+1j, 2, 0, -1j]:complex<f32>' --arg='[1, 2, 3, 4]' | FileCheck %s

// CHECK: result 0: array([-1.24{{[0-9]+}}e-01 +0.228{{[0-9]*}}j, -1.42{{[0-9]+}}e+02+10.40{{[0-9]*}}j{{ *}},
// CHECK-NEXT: 1.66{{[0-9]+}}e-01 +0.166{{[0-9]*}}j, -1.02{{[0-9]+}}e-01 +0.469{{[0-9]*}}j],
// CHECK-NEXT: dtype=complex64)
// CHECK-NEXT: result 1: array([ 0.2601{{[0-9]*}}, 142.633{{[0-9]*}} , 0.2357{{[0-9]*}}, 0.4805{{[0-9]*}} ],
// CHECK-NEXT: dtype=float32)
// CHECK-NEXT: result 2: array([ -0.2285{{[0-9]*}}, -10.4043{{[0-9]*}} , -0.1666{{[0-9]*}}, -0.4695{{[0-9]*}}],
func.func @f(%z: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>) {
  %c = jaxc.constant dense<(1.0, 2.0)> : tensor<4xcomplex<f32>>
  %a = jaxc.add %z, %c : tensor<4xcomplex<f32>>
  %m = jaxc.mul %a, %z : tensor<4xcomplex<f32>>
  %e = jaxc.exp %m : tensor<4xcomplex<f32>>
  %w = jaxc.complex %x, %x : tensor<4xf32>
  %d = jaxc.div %e, %w : tensor<4xcomplex<f32>>
  %r = jaxc.abs %d : tensor<4xcomplex<f32>>
  %i = jaxc.imag %d : tensor<4xcomplex<f32>>
  %k = jaxc.conj %d : tensor<4xcomplex<f32>>
  return %k, %r, %i : tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>
}
