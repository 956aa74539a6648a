// Invalid host callbacks.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @batch_rank_too_large(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.callback' op batch_rank 2 exceeds the rank of 'tensor<3xf32>'}}
  jaxc.callback 1 (%x) {batch_rank = 2} : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @batch_dims_differ(%x: tensor<4x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'jaxc.callback' op the leading 1 (vmapped) dims differ between operands and results}}
  %y = jaxc.callback 1 (%x) {batch_rank = 1} : (tensor<4x3xf32>) -> tensor<5xf32>
  return %y : tensor<5xf32>
}

// -----

func.func @negative_batch_rank(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jaxc.callback' op batch_rank must be at least 0, got -1}}
  jaxc.callback 1 (%x) {batch_rank = -1} : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @dynamic_operand(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jaxc.callback' op operand #0 must be variadic of statically shaped tensor}}
  jaxc.callback 1 (%x) : (tensor<?xf32>) -> ()
  return
}
