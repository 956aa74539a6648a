// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,linalg-generalize-named-ops,linalg-fuse-elementwise-ops,jaxc-schedule{vector-bits=256 threads=1 library-calls=false},canonicalize,cse)' | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --jaxc-to-linalg | env JAXC_CPU_VECTOR_BITS=256 JAXC_CPU_THREADS=1 jaxc-opt --split-input-file --print-schedule | FileCheck %s --check-prefix=SCHEDULE
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,linalg-generalize-named-ops,linalg-fuse-elementwise-ops,jaxc-schedule{vector-bits=256 threads=2 library-calls=false},canonicalize,cse)' | FileCheck %s --check-prefix=THREADS

// Fused rows: reductions over the rows and the op they feed become one
// forall over the rows; inside it each reduction keeps 32 partial results
// (4 AVX2 registers) and each elementwise op takes 16-lane tiles.

// softmax: the consumer is elementwise over the rows.
// SCHEDULE: // kernel {{[0-9]+}}: fused rows, loops [64, 100] ['parallel', 'parallel']
// SCHEDULE: transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 0]
// SCHEDULE-COUNT-2: transform.structured.tile_reduction_using_for %{{.*}} by tile_sizes = [0, 32]
// SCHEDULE: transform.annotate %{{.*}} "jaxc.serial"
// Too little work for a fork/join (and one thread here): the forall is marked
// for jaxc-serial-foralls, which makes it an scf.for after bufferization.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.forall (%{{.*}}) in (64)
// CHECK: scf.for {{.*}} -> (vector<1x32xf32>)
// CHECK: arith.maximumf {{.*}} : vector<1x32xf32>
// CHECK: math.exp {{.*}} : vector<1x16xf32>
// CHECK: scf.for {{.*}} -> (vector<1x32xf32>)
// CHECK: arith.addf {{.*}} : vector<1x32xf32>
// CHECK: arith.divf {{.*}} : vector<1x16xf32>
// CHECK: } {jaxc.serial}
// CHECK-NOT: scf.forall (
func.func @softmax(%arg0: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %0 = jaxc.reduce max %arg0, dims = [1] : tensor<64x100xf32> -> tensor<64xf32>
  %3 = jaxc.broadcast_in_dim %0, dims = [0] : (tensor<64xf32>) -> tensor<64x100xf32>
  %4 = jaxc.sub %arg0, %3 : tensor<64x100xf32>
  %5 = jaxc.exp %4 : tensor<64x100xf32>
  %6 = jaxc.reduce sum %5, dims = [1] : tensor<64x100xf32> -> tensor<64xf32>
  %9 = jaxc.broadcast_in_dim %6, dims = [0] : (tensor<64xf32>) -> tensor<64x100xf32>
  %10 = jaxc.div %5, %9 : tensor<64x100xf32>
  return %10 : tensor<64x100xf32>
}

// -----

// argmax along the rows: the consumer is itself a row reduction (the first
// index holding the row's max), its indices a constant read in 32-lane
// partials like the max; both in one forall.
// SCHEDULE: // kernel {{[0-9]+}}: fused rows, loops [64, 100] ['parallel', 'reduction']
// SCHEDULE: transform.structured.tile_using_forall %{{.*}} tile_sizes [1, 0]
// SCHEDULE: transform.structured.fuse_into_containing_op
// SCHEDULE-COUNT-2: transform.structured.tile_reduction_using_for %{{.*}} by tile_sizes = [0, 32]
// CHECK-LABEL: func.func @argmax
// CHECK: scf.forall (%{{.*}}) in (64)
// CHECK: arith.maximumf {{.*}} : vector<1x32xf32>
// CHECK: vector.multi_reduction <maximumf>
// CHECK: arith.cmpf oeq, {{.*}} : vector<1x32xf32>
// CHECK: arith.minsi {{.*}} : vector<1x32xi32>
// CHECK: vector.multi_reduction <minsi>
// CHECK-NOT: scf.forall (
func.func @argmax(%arg0: tensor<64x100xf32>) -> tensor<64xi32> {
  %0 = jaxc.argmax %arg0, axis = 1 : tensor<64x100xf32> -> tensor<64xi32>
  return %0 : tensor<64xi32>
}

// -----

// A product reduces rows too, but it is not a fused-rows consumer: the
// max and the subtraction are fused rows, the product a kernel of its own.
// SCHEDULE: // kernel {{[0-9]+}}: fused rows, loops [64, 100] ['parallel', 'parallel']
// SCHEDULE-NEXT: module attributes
// SCHEDULE: // kernel {{[0-9]+}}: contraction
// CHECK-LABEL: func.func @tanh_matmul
func.func @tanh_matmul(%a: tensor<64x100xf32>, %b: tensor<100x40xf32>) -> tensor<64x40xf32> {
  %0 = jaxc.reduce max %a, dims = [1] : tensor<64x100xf32> -> tensor<64xf32>
  %1 = jaxc.broadcast_in_dim %0, dims = [0] : (tensor<64xf32>) -> tensor<64x100xf32>
  %2 = jaxc.sub %a, %1 : tensor<64x100xf32>
  %3 = jaxc.dot_general %2, %b, batch = [] x [], contract = [1] x [0] : (tensor<64x100xf32>, tensor<100x40xf32>) -> tensor<64x40xf32>
  return %3 : tensor<64x40xf32>
}

// -----

// With 2 threads, a softmax whose work pays for a fork/join (4096 x 1024)
// keeps an unmarked forall over its rows, which OpenMP splits; the 64 x 100
// one above is marked to stay one thread's loop.
// THREADS-LABEL: func.func @softmax
// THREADS: } {jaxc.serial}
// THREADS-LABEL: func.func @big_softmax
// THREADS: scf.forall (%{{.*}}) in (4096)
// THREADS: math.exp {{.*}} : vector<1x16xf32>
// THREADS-NOT: jaxc.serial
func.func @big_softmax(%arg0: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = jaxc.reduce max %arg0, dims = [1] : tensor<4096x1024xf32> -> tensor<4096xf32>
  %1 = jaxc.broadcast_in_dim %0, dims = [0] : (tensor<4096xf32>) -> tensor<4096x1024xf32>
  %2 = jaxc.sub %arg0, %1 : tensor<4096x1024xf32>
  %3 = jaxc.exp %2 : tensor<4096x1024xf32>
  %4 = jaxc.reduce sum %3, dims = [1] : tensor<4096x1024xf32> -> tensor<4096xf32>
  %5 = jaxc.broadcast_in_dim %4, dims = [0] : (tensor<4096xf32>) -> tensor<4096x1024xf32>
  %6 = jaxc.div %3, %5 : tensor<4096x1024xf32>
  return %6 : tensor<4096x1024xf32>
}
