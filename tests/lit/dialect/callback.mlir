// Host callbacks: round trip; side effects keep them (the verifier: invalid-callback.mlir).
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @callbacks
// CHECK-NEXT: jaxc.callback 7(%arg0) : (tensor<3xf32>) -> ()
// CHECK-NEXT: jaxc.callback 7(%arg0) : (tensor<3xf32>) -> ()
// CHECK-NEXT: %[[Y:.+]] = jaxc.callback 8(%arg0, %arg1) : (tensor<3xf32>, tensor<ui8>) -> tensor<3xf32>
// CHECK-NEXT: %[[Z:.+]] = jaxc.callback 9(%arg2) {batch_rank = 1 : i64} : (tensor<4x3xi1>) -> tensor<4xf32>
// Side effects: canonicalize and CSE keep both identical calls and the unused result.
// KEPT-LABEL: func.func @callbacks
// KEPT-COUNT-2: jaxc.callback 7
// KEPT: jaxc.callback 8
func.func @callbacks(%x: tensor<3xf32>, %u: tensor<ui8>, %b: tensor<4x3xi1>) -> tensor<4xf32> {
  jaxc.callback 7 (%x) : (tensor<3xf32>) -> ()
  jaxc.callback 7 (%x) : (tensor<3xf32>) -> ()
  %y = jaxc.callback 8 (%x, %u) : (tensor<3xf32>, tensor<ui8>) -> tensor<3xf32>
  %z = jaxc.callback 9 (%b) {batch_rank = 1} : (tensor<4x3xi1>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
