// RUN: jaxc-opt %s --split-input-file --jaxc-fuse-elementwise-dags | FileCheck %s
// RUN: jaxc-opt %s --split-input-file --jaxc-fuse-elementwise-dags=max-ops=2 | FileCheck %s --check-prefix=SMALL
// RUN: jaxc-opt %s --split-input-file --jaxc-fuse-elementwise-dags=max-call-ops=2 | FileCheck %s --check-prefix=CALLS

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// %a has two users (%b and %c): one generic computes a, b and c in order
// and returns the two values used outside (b and c); the broadcast input %s
// keeps its map.
// CHECK-LABEL: func.func @dag
// CHECK: %[[M:.+]]:2 = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel"]} ins(%arg0, %arg1 : tensor<8xf32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[A:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.addf %[[A]], %[[S]] : f32
// CHECK-NEXT: %[[C:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[B]], %[[C]] : f32, f32
// CHECK: return %[[M]]#0, %[[M]]#1
// CHECK-NOT: linalg.generic
// SMALL-LABEL: func.func @dag
// SMALL-COUNT-2: linalg.generic
func.func @dag(%x: tensor<8xf32>, %s: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel"]} ins(%a, %s : tensor<8xf32>, tensor<f32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.subf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A use of %a by another op before %b (the merged op would take %b's
// place, after that use): nothing merges.
// CHECK-LABEL: func.func @used_in_between
// CHECK-COUNT-2: linalg.generic
func.func @used_in_between(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sin %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %slice = tensor.extract_slice %a[0] [2] [1] : tensor<8xf32> to tensor<2xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %b, %slice : tensor<8xf32>, tensor<2xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (7 - d0)>

// %b reads %a reversed (not an identity map): the two stay apart.
// CHECK-LABEL: func.func @not_elementwise_edge
// CHECK-COUNT-2: linalg.generic
func.func @not_elementwise_edge(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (7 - d0)>

// %c reads %a elementwise but %b reversed: %c cannot join the group of %a
// and %b (the merged body would read its own result), which merge alone.
// CHECK-LABEL: func.func @reads_a_member_reversed
// CHECK: %[[AB:.+]]:2 = linalg.generic
// CHECK: linalg.generic {{.+}} ins(%[[AB]]#0, %[[AB]]#1 :
// CHECK-NOT: linalg.generic
func.func @reads_a_member_reversed(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #rev, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A body with a math op that becomes a libmvec call (math.log) merges only
// up to max-call-ops ops: every vector live across the call is spilled, so a
// long hash and the call in one loop ran slower than two kernels.
// CHECK-LABEL: func.func @calls
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CALLS-LABEL: func.func @calls
// CALLS-COUNT-2: linalg.generic
func.func @calls(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %in : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.log %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
