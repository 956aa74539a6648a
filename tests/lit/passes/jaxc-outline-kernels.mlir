// RUN: jaxc-opt %s --split-input-file --jaxc-outline-kernels | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --jaxc-outline-kernels=min-copies=3 | FileCheck %s --check-prefix=THREE

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>

// Two equal products (each zeroing the one shared fill) and one tanh: the
// products become one function that fills its own accumulator, called
// twice; the tanh occurs once and stays. The shared fill goes once no
// kernel reads it.
// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x64xf32>, %[[W0:[a-z0-9_]+]]: tensor<64x64xf32>, %[[W1:[a-z0-9_]+]]: tensor<64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.*]] = call @jaxc_kernel_0(%[[X]], %[[W0]]) : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: math.tanh
// CHECK: %[[Q:.*]] = call @jaxc_kernel_0(%[[T]], %[[W1]])
// CHECK: return %[[Q]]
// CHECK: func.func private @jaxc_kernel_0(%[[A:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<64x64xf32>) -> tensor<32x64xf32> attributes {jaxc.outlined_kernel, passthrough = ["noinline"]}
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<32x64xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[F:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<32x64xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield %[[Z]]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<32x64xf32>, tensor<64x64xf32>) outs(%[[F]] : tensor<32x64xf32>)
// CHECK: return %[[R]]
// CHECK-NOT: func.func
// THREE-LABEL: func.func @two_layers(
// THREE-NOT: call
// THREE-NOT: func.func private
func.func @two_layers(%x: tensor<32x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %fill = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<32x64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<32x64xf32>
  %p = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w0 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%fill : tensor<32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<32x64xf32>) outs(%e2 : tensor<32x64xf32>) {
  ^bb0(%a: f32, %c: f32):
    %h = math.tanh %a : f32
    linalg.yield %h : f32
  } -> tensor<32x64xf32>
  %q = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %w1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%fill : tensor<32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %q : tensor<32x64xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// Kernels in a loop body and in the function, reading a value from outside
// (%s, an argument) and an accumulator that is not a fill (an argument too):
// one function for the three; a kernel under 1024 iterations stays.
// CHECK-LABEL: func.func @in_loop(
// CHECK: %[[A:.*]] = call @jaxc_kernel_0(%arg0, %arg2, %arg1)
// CHECK: scf.for
// CHECK: call @jaxc_kernel_0(
// CHECK: scf.yield
// CHECK: call @jaxc_kernel_0(
// CHECK: linalg.generic
// CHECK: func.func private @jaxc_kernel_0(%{{.*}}: tensor<2048xf32>, %{{.*}}: tensor<2048xf32>, %{{.*}}: f32) -> tensor<2048xf32>
// CHECK: arith.mulf
// CHECK-NOT: func.func
// THREE-LABEL: func.func @in_loop(
// THREE-COUNT-3: call @jaxc_kernel_0(
func.func @in_loop(%x: tensor<2048xf32>, %s: f32, %acc: tensor<2048xf32>, %small: tensor<16xf32>) -> (tensor<2048xf32>, tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<2048xf32>) outs(%acc : tensor<2048xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %s : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<2048xf32>
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %a) -> tensor<2048xf32> {
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v : tensor<2048xf32>) outs(%acc : tensor<2048xf32>) {
    ^bb0(%in: f32, %o: f32):
      %m = arith.mulf %in, %s : f32
      %r = arith.addf %m, %o : f32
      linalg.yield %r : f32
    } -> tensor<2048xf32>
    scf.yield %b : tensor<2048xf32>
  }
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%l : tensor<2048xf32>) outs(%acc : tensor<2048xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %s : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<2048xf32>
  %e = tensor.empty() : tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%small : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %c, %d : tensor<2048xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// Different constants inside: different kernels, nothing outlined.
// CHECK-LABEL: func.func @differ(
// CHECK-NOT: call
// CHECK-NOT: func.func private
func.func @differ(%x: tensor<2048xf32>) -> (tensor<2048xf32>, tensor<2048xf32>) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<2048xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<2048xf32>) outs(%e : tensor<2048xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %two : f32
    linalg.yield %m : f32
  } -> tensor<2048xf32>
  %e1 = tensor.empty() : tensor<2048xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<2048xf32>) outs(%e1 : tensor<2048xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %three : f32
    linalg.yield %m : f32
  } -> tensor<2048xf32>
  return %a, %b : tensor<2048xf32>, tensor<2048xf32>
}
