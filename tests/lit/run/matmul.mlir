// --run: numerics of upstream linalg IR on the CPU.
// RUN: jaxc-opt %s --run=mm --arg='[[1,2],[3,4]]:f32' --arg='[[5,6],[7,8]]' | FileCheck %s --check-prefix=MM
// RUN: jaxc-opt %s --run=scale --arg='[1.5, -2, 0]:f64' --arg='2' | FileCheck %s --check-prefix=SCALE
// RUN: jaxc-opt %s --run=sum --arg='[1, 2, 3, 40]:i32' | FileCheck %s --check-prefix=SUM
// RUN: not jaxc-opt %s --run=mm --arg='[1]:f64' --arg='[1]' 2>&1 | FileCheck %s --check-prefix=ERR
// A call that cannot fit in memory is refused before anything is allocated.
// RUN: not jaxc-opt %s --run=huge --arg='1' 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: jaxc-opt: error: --run=@huge: its arguments and results need {{[0-9.]+}} GiB, more than this machine's {{[0-9.]+}} GiB of memory

// MM: result 0: array({{\[}}[19., 22.],
// MM-NEXT: [43., 50.]], dtype=float32)
func.func @mm(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// SCALE: result 0: array([ 3., -4.,  0.], dtype=float64)
// SCALE-NEXT: result 1: array(2., dtype=float64)
func.func @scale(%x: tensor<3xf64>, %s: tensor<f64>) -> (tensor<3xf64>, tensor<f64>) {
  %e = tensor.empty() : tensor<3xf64>
  %b = linalg.broadcast ins(%s : tensor<f64>) outs(%e : tensor<3xf64>) dimensions = [0]
  %r = linalg.mul ins(%x, %b : tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %r, %s : tensor<3xf64>, tensor<f64>
}

// SUM: result 0: array(46, dtype=int32)
func.func @sum(%x: tensor<4xi32>) -> tensor<i32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.reduce ins(%x : tensor<4xi32>) outs(%f : tensor<i32>) dimensions = [0]
    (%a: i32, %acc: i32) {
      %s = arith.addi %a, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<i32>
}

// ERR: jaxc-opt: error: --run=@mm: --arg '[1]:f64' does not match parameter type tensor<2x2xf32>

func.func @huge(%x: tensor<1000000000000xf32>) -> tensor<1000000000000xf32> {
  return %x : tensor<1000000000000xf32>
}
