// RUN: jaxc-opt %s --jaxc-expand-top-k="library-calls=false" | FileCheck %s --check-prefix=EXPAND
// RUN: jaxc-opt %s --jaxc-expand-top-k | FileCheck %s --check-prefix=KEEP
// RUN: env JAXC_CPU_LIBRARY_CALLS=0 jaxc-opt %s --jaxc-expand-top-k | FileCheck %s --check-prefix=EXPAND

// Where no library is called, a top_k with a small k becomes rounds of max
// over integer keys (a float's bits, negatives' magnitude flipped): first
// over the maxima of chunks of the row (here 5 chunks of 8), keeping the 2
// chunks with the largest maxima, then over those chunks' entries, gathered;
// the values are gathered at the indices found. With library calls on (the
// CPU's default) an f32 or f64 one stays.
// EXPAND-LABEL: func.func @small_k
// EXPAND-NOT: jaxc.top_k
// EXPAND: jaxc.bitcast_convert
// EXPAND: jaxc.reduce max {{.*}} : tensor<3x5x8xi32> -> tensor<3x5xi32>
// EXPAND: jaxc.scan
// EXPAND: jaxc.gather
// EXPAND: jaxc.scan
// EXPAND: jaxc.gather
// EXPAND: return
// KEEP-LABEL: func.func @small_k
// KEEP: jaxc.top_k %arg0, k = 2 : tensor<3x40xf32>
func.func @small_k(%x: tensor<3x40xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %v, %i = jaxc.top_k %x, k = 2 : tensor<3x40xf32>
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi32>
}

// A large k (above 8 log2 n) sorts (the reversed key, the index, the
// values) and keeps the first k. The library computes f32 and f64 only: integers (and 16-bit
// floats) expand on every target.
// EXPAND-LABEL: func.func @large_k_integers
// EXPAND: jaxc.sort({{.*}}), dim = 0, num_keys = 2 stable
// EXPAND: jaxc.slice %{{.*}}, start = [0], limit = [100], strides = [1]
// KEEP-LABEL: func.func @large_k_integers
// KEEP-NOT: jaxc.top_k
// KEEP: jaxc.sort
func.func @large_k_integers(%x: tensor<1000xi32>) -> (tensor<100xi32>, tensor<100xi32>) {
  %v, %i = jaxc.top_k %x, k = 100 : tensor<1000xi32>
  return %v, %i : tensor<100xi32>, tensor<100xi32>
}
