// jaxc-annotate-shardings then jaxc-propagate-shardings: the first steps
// of splitting a program with shardings, each a stage (annotated,
// propagated) before jaxc-partition's.
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,jaxc-annotate-shardings)' | FileCheck %s --check-prefix=ANN
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,jaxc-annotate-shardings,jaxc-propagate-shardings)' | FileCheck %s --check-prefix=PROP
// The partition of the annotated and propagated module is the one of the plain module:
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,jaxc-annotate-shardings,jaxc-propagate-shardings,jaxc-partition)' > %t.staged
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-to-linalg,jaxc-partition)' > %t.whole
// RUN: diff %t.staged %t.whole

// ANN-LABEL: module attributes {jaxc.spmd_axes
// ANN: shard.grid @jaxc_mesh(shape = 4)
// ANN-LABEL: func.func @rows
// ANN: %[[S:.*]] = shard.sharding @jaxc_mesh split_axes = {{\[}}[0], []] : !shard.sharding
// ANN: shard.shard %arg0 to %[[S]] : tensor<8x16xf32>
// ANN: linalg.generic
// ANN: shard.shard %{{.*}} to %{{.*}} : tensor<8x16xf32>
// ANN-NEXT: return

// The propagation annotates the generic's init too.
// PROP-LABEL: func.func @rows
// PROP: %[[E:.*]] = tensor.empty() : tensor<8x16xf32>
// PROP: shard.shard %[[E]] to
// PROP: linalg.generic
module attributes {jaxc.spmd_axes = [["i", 4]]} {
  func.func @rows(%a: tensor<8x16xf32> {jaxc.sharding = [[0]]}) -> (tensor<8x16xf32> {jaxc.sharding = [[0]]}) {
    %s = jaxc.sin %a : tensor<8x16xf32>
    return %s : tensor<8x16xf32>
  }
}

// -----

// Without shardings: unchanged, no grid.
// ANN-LABEL: func.func @plain
// ANN-NOT: shard.
// PROP-LABEL: func.func @plain
// PROP-NOT: shard.
func.func @plain(%a: tensor<8xf32>) -> tensor<8xf32> {
  %s = arith.addf %a, %a : tensor<8xf32>
  return %s : tensor<8xf32>
}

