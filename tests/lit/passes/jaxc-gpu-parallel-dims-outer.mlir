// RUN: jaxc-opt %s --jaxc-gpu-parallel-dims-outer | FileCheck %s

// A column sum (reduction over rows, then the parallel columns) is
// interchanged: the parallel dim first, so it is one kernel, not a host loop
// over the rows launching one kernel each.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-NOT: jaxc.interchange
func.func @column_sum(%x: memref<128x10xf32>, %out: memref<10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<128x10xf32>) outs(%out : memref<10xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// linalg.index in the body follows its loop: index 0 (the rows) is now dim 1.
// CHECK-LABEL: func.func @weighted
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[ROW:.+]] = linalg.index 2 : index
// CHECK: affine.apply #{{.+}}(%{{.+}}, %{{.+}}, %[[ROW]])
func.func @weighted(%x: memref<4x8x3xf32>, %out: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x : memref<4x8x3xf32>) outs(%out : memref<8x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %w = arith.mulf %a, %f : f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Already parallel first: untouched.
// CHECK-LABEL: func.func @row_sum
// CHECK: indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "reduction"]
func.func @row_sum(%x: memref<128x10xf32>, %out: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x10xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
