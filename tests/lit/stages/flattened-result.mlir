// A flattened elementwise kernel writes its result straight into the
// out-param: the kernel runs on a collapse_shape of the result buffer, and
// the bufferized stage canonicalizes expand_shape(collapse_shape(alloc))
// back to the alloc before buffer-results-to-out-params, which then hoists
// it (before, a second pass over the result copied a temporary out).
// RUN: jaxc-opt %s --stage=bufferized | FileCheck %s
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<64x1024xf32>, %[[OUT:.*]]: memref<64x1024xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: memref.collapse_shape %[[OUT]] {{\[}}[0, 1]] : memref<64x1024xf32> into memref<65536xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return
func.func @f(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %c = jaxc.constant dense<1.5> : tensor<f32>
  %b = jaxc.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<64x1024xf32>
  %0 = jaxc.mul %x, %b : tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}
