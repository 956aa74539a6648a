// RUN: jaxc-opt %s --jaxc-to-linalg | FileCheck %s --check-prefix=LOWER

// Lowered: operands as read-only buffers, results in new buffers, all passed
// to an external function the runtime resolves; booleans travel as i8.
// LOWER: func.func private @jaxc_callback_9_{{[0-9]+}}(memref<3xf32>, memref<2xi8>, memref<3xi32>)
// LOWER-LABEL: func.func @lowered
// LOWER: %[[XB:.+]] = bufferization.to_buffer %arg0 read_only : tensor<3xf32> to memref<3xf32>
// LOWER: %[[BB:.+]] = bufferization.to_buffer %arg1 read_only : tensor<2xi8> to memref<2xi8>
// LOWER: %[[OUT:.+]] = memref.alloc() : memref<3xi32>
// LOWER: call @jaxc_callback_9_{{[0-9]+}}(%[[XB]], %[[BB]], %[[OUT]]) : (memref<3xf32>, memref<2xi8>, memref<3xi32>) -> ()
// LOWER: %[[Y:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<3xi32> to tensor<3xi32>
// LOWER: return %[[Y]]
func.func @lowered(%x: tensor<3xf32>, %b: tensor<2xi1>) -> tensor<3xui32> {
  %y = jaxc.callback 9 (%x, %b) : (tensor<3xf32>, tensor<2xi1>) -> tensor<3xui32>
  return %y : tensor<3xui32>
}
