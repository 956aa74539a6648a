// RUN: not jaxc-opt %s --split-input-file --jaxc-annotate-shardings 2>&1 | FileCheck %s
// RUN: not jaxc-opt %s --split-input-file --jaxc-partition 2>&1 | FileCheck %s --check-prefix=PART

// A module with shardings but no mesh: an error at the module, named by the pass that found it.
// CHECK: error: jaxc-annotate-shardings: jaxc.sharding attributes need the module's mesh (jaxc.spmd_axes)
// PART: error: jaxc-partition: jaxc.sharding attributes need the module's mesh (jaxc.spmd_axes)
func.func @no_mesh(%a: tensor<8xf32> {jaxc.sharding = [[0]]}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
