// RUN: jaxc-opt %s --linalg-generalize-named-ops --jaxc-bound-fusion=max-index-paths=3 | FileCheck %s --check-prefix=PATHS
// The index of the gather is computed along 2 paths in %d (in + in), 4 in
// %q: more than max-index-paths=3, so %d is read through a marked copy and
// the count starts again at %q (2 paths); the gather (2) needs no barrier.
// PATHS-LABEL: func.func @doubled_index
// PATHS: %[[D:.+]] = linalg.generic
// PATHS: %[[B:.+]] = linalg.copy {{{.*}}jaxc.fusion_barrier} ins(%[[D]] : tensor<8xindex>)
// PATHS: %[[Q:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xindex>)
// PATHS-NOT: jaxc.fusion_barrier
// PATHS: linalg.generic {{.*}} ins(%[[Q]] : tensor<8xindex>)
// PATHS: tensor.extract
#id = affine_map<(d0) -> (d0)>
func.func @doubled_index(%t: tensor<16xf32>, %i: tensor<8xindex>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xindex>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%i : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%in: index, %out: index):
    %s = arith.addi %in, %in : index
    linalg.yield %s : index
  } -> tensor<8xindex>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%d : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%in: index, %out: index):
    %s = arith.addi %in, %in : index
    linalg.yield %s : index
  } -> tensor<8xindex>
  %f = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%q : tensor<8xindex>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: index, %out: f32):
    %x = tensor.extract %t[%in] : tensor<16xf32>
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}
