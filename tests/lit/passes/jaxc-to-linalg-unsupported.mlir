// RUN: jaxc-opt %s --jaxc-to-linalg --verify-diagnostics

// An op without a lowering rule is an error at its own line.
func.func @sort(%x: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{jaxc-to-linalg: no lowering for 'jaxc.sort' yet; it cannot run on the CPU}}
  %0 = jaxc.sort(%x), dim = 0, num_keys = 1 : tensor<5xf32>
  return %0 : tensor<5xf32>
}
