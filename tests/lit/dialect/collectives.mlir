// Round-trip tests for the collectives over named axes.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @all_reduce(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[I:[a-z0-9_]+]]: tensor<2x3xi32>, %[[U:[a-z0-9_]+]]: tensor<ui8>, %[[B:[a-z0-9_]+]]: tensor<0xbf16>, %[[P:[a-z0-9_]+]]: tensor<3xi1>) -> (tensor<4xf32>, tensor<2x3xi32>, tensor<ui8>, tensor<4xf32>, tensor<0xbf16>, tensor<3xi1>, tensor<2x3xi32>)
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = jaxc.psum %[[X]], axes = ["i"] : tensor<4xf32>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.pmax %[[I]], axes = ["i", "j"] : tensor<2x3xi32>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.pmin %[[U]], axes = ["batch"] : tensor<ui8>
// CHECK-NEXT: %[[MEAN:[a-z0-9_]+]] = jaxc.pmean %[[X]], axes = ["j"] : tensor<4xf32>
// CHECK-NEXT: %[[EMPTY:[a-z0-9_]+]] = jaxc.psum %[[B]], axes = ["i"] : tensor<0xbf16>
// CHECK-NEXT: %[[ANY:[a-z0-9_]+]] = jaxc.pmax %[[P]], axes = ["i"] : tensor<3xi1>
// CHECK-NEXT: %[[SUM2:[a-z0-9_]+]] = jaxc.psum %[[I]], axes = ["i", "j"] : tensor<2x3xi32>
// CHECK-NEXT: return %[[SUM]], %[[MAX]], %[[MIN]], %[[MEAN]], %[[EMPTY]], %[[ANY]], %[[SUM2]] : tensor<4xf32>, tensor<2x3xi32>, tensor<ui8>, tensor<4xf32>, tensor<0xbf16>, tensor<3xi1>, tensor<2x3xi32>
func.func @all_reduce(%x: tensor<4xf32>, %i: tensor<2x3xi32>, %u: tensor<ui8>, %b: tensor<0xbf16>, %p: tensor<3xi1>) -> (tensor<4xf32>, tensor<2x3xi32>, tensor<ui8>, tensor<4xf32>, tensor<0xbf16>, tensor<3xi1>, tensor<2x3xi32>) {
  %sum = jaxc.psum %x, axes = ["i"] : tensor<4xf32>
  %max = jaxc.pmax %i, axes = ["i", "j"] : tensor<2x3xi32>
  %min = jaxc.pmin %u, axes = ["batch"] : tensor<ui8>
  %mean = jaxc.pmean %x, axes = ["j"] : tensor<4xf32>
  %empty = jaxc.psum %b, axes = ["i"] : tensor<0xbf16>
  %any = jaxc.pmax %p, axes = ["i"] : tensor<3xi1>
  %sum2 = jaxc.psum %i, axes = ["i", "j"] : tensor<2x3xi32>
  return %sum, %max, %min, %mean, %empty, %any, %sum2 : tensor<4xf32>, tensor<2x3xi32>, tensor<ui8>, tensor<4xf32>, tensor<0xbf16>, tensor<3xi1>, tensor<2x3xi32>
}

// Not tiled: a new dimension of axis_size at `dim`; tiled: `dim` grows by
// the factor axis_size.
// CHECK-LABEL: func.func @all_gather(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[M:[a-z0-9_]+]]: tensor<2x3xi64>, %[[S:[a-z0-9_]+]]: tensor<f16>) -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<12xf32>, tensor<2x3x2xi64>, tensor<2x9xi64>, tensor<8xf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.all_gather %[[X]], axes = ["i"], dim = 0, axis_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.all_gather %[[X]], axes = ["i"], dim = 1, axis_size = 4 : tensor<3xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.all_gather %[[X]], axes = ["i"], dim = 0, axis_size = 4 tiled : tensor<3xf32> -> tensor<12xf32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.all_gather %[[M]], axes = ["i", "j"], dim = 2, axis_size = 2 : tensor<2x3xi64> -> tensor<2x3x2xi64>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.all_gather %[[M]], axes = ["j"], dim = 1, axis_size = 3 tiled : tensor<2x3xi64> -> tensor<2x9xi64>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.all_gather %[[S]], axes = ["i"], dim = 0, axis_size = 8 : tensor<f16> -> tensor<8xf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<4x3xf32>, tensor<3x4xf32>, tensor<12xf32>, tensor<2x3x2xi64>, tensor<2x9xi64>, tensor<8xf16>
func.func @all_gather(%x: tensor<3xf32>, %m: tensor<2x3xi64>, %s: tensor<f16>) -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<12xf32>, tensor<2x3x2xi64>, tensor<2x9xi64>, tensor<8xf16>) {
  %a = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
  %b = jaxc.all_gather %x, axes = ["i"], dim = 1, axis_size = 4 : tensor<3xf32> -> tensor<3x4xf32>
  %c = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 tiled : tensor<3xf32> -> tensor<12xf32>
  %d = jaxc.all_gather %m, axes = ["i", "j"], dim = 2, axis_size = 2 : tensor<2x3xi64> -> tensor<2x3x2xi64>
  %e = jaxc.all_gather %m, axes = ["j"], dim = 1, axis_size = 3 tiled : tensor<2x3xi64> -> tensor<2x9xi64>
  %f = jaxc.all_gather %s, axes = ["i"], dim = 0, axis_size = 8 : tensor<f16> -> tensor<8xf16>
  return %a, %b, %c, %d, %e, %f : tensor<4x3xf32>, tensor<3x4xf32>, tensor<12xf32>, tensor<2x3x2xi64>, tensor<2x9xi64>, tensor<8xf16>
}

// split_axis shrinks by axis_size, concat_axis grows by it.
// CHECK-LABEL: func.func @all_to_all(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<6x2x5xui16>) -> (tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2x15xui16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.all_to_all %[[X]], axes = ["i"], split_axis = 0, concat_axis = 1, axis_size = 2 : tensor<4x3xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.all_to_all %[[X]], axes = ["i"], split_axis = 0, concat_axis = 0, axis_size = 4 : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.all_to_all %[[Y]], axes = ["i", "j"], split_axis = 0, concat_axis = 2, axis_size = 3 : tensor<6x2x5xui16> -> tensor<2x2x15xui16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]] : tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2x15xui16>
func.func @all_to_all(%x: tensor<4x3xf32>, %y: tensor<6x2x5xui16>) -> (tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2x15xui16>) {
  %a = jaxc.all_to_all %x, axes = ["i"], split_axis = 0, concat_axis = 1, axis_size = 2 : tensor<4x3xf32> -> tensor<2x6xf32>
  %b = jaxc.all_to_all %x, axes = ["i"], split_axis = 0, concat_axis = 0, axis_size = 4 : tensor<4x3xf32> -> tensor<4x3xf32>
  %c = jaxc.all_to_all %y, axes = ["i", "j"], split_axis = 0, concat_axis = 2, axis_size = 3 : tensor<6x2x5xui16> -> tensor<2x2x15xui16>
  return %a, %b, %c : tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x2x15xui16>
}

// CHECK-LABEL: func.func @ppermute(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[I:[a-z0-9_]+]]: tensor<i8>, %[[E:[a-z0-9_]+]]: tensor<0x2xf64>) -> (tensor<3xf32>, tensor<i8>, tensor<0x2xf64>, tensor<3xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.ppermute %[[X]], axes = ["i"], perm = [0, 1, 1, 0] : tensor<3xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.ppermute %[[I]], axes = ["i", "j"], perm = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<i8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.ppermute %[[E]], axes = ["i"], perm = [1, 0] : tensor<0x2xf64>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.ppermute %[[X]], axes = ["i"], perm = [] : tensor<3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<3xf32>, tensor<i8>, tensor<0x2xf64>, tensor<3xf32>
func.func @ppermute(%x: tensor<3xf32>, %i: tensor<i8>, %e: tensor<0x2xf64>) -> (tensor<3xf32>, tensor<i8>, tensor<0x2xf64>, tensor<3xf32>) {
  %a = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 0] : tensor<3xf32>
  %b = jaxc.ppermute %i, axes = ["i", "j"], perm = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<i8>
  %c = jaxc.ppermute %e, axes = ["i"], perm = [1, 0] : tensor<0x2xf64>
  %d = jaxc.ppermute %x, axes = ["i"], perm = [] : tensor<3xf32>
  return %a, %b, %c, %d : tensor<3xf32>, tensor<i8>, tensor<0x2xf64>, tensor<3xf32>
}

// CHECK-LABEL: func.func @axis_index(
// CHECK-SAME: ) -> (tensor<i32>, tensor<i32>)
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = jaxc.axis_index "i" : tensor<i32>
// CHECK-NEXT: %[[J:[a-z0-9_]+]] = jaxc.axis_index "batch" : tensor<i32>
// CHECK-NEXT: return %[[I]], %[[J]] : tensor<i32>, tensor<i32>
func.func @axis_index() -> (tensor<i32>, tensor<i32>) {
  %i = jaxc.axis_index "i" : tensor<i32>
  %j = jaxc.axis_index "batch" : tensor<i32>
  return %i, %j : tensor<i32>, tensor<i32>
}

// The check_vma forms (passes/infer_vma.py): `invariant` reductions and
// gathers, and pvary.
// CHECK-LABEL: func.func @typed(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<12xf32>)
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = jaxc.pvary %[[X]], axes = ["i", "j"] : tensor<3xf32>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.psum %[[V]], axes = ["i"] invariant : tensor<3xf32>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.pmax %[[V]], axes = ["i", "j"] invariant : tensor<3xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.all_gather %[[V]], axes = ["i"], dim = 0, axis_size = 4 tiled invariant : tensor<3xf32> -> tensor<12xf32>
// CHECK-NEXT: return %[[V]], %[[S]], %[[M]], %[[G]]
func.func @typed(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<12xf32>) {
  %v = jaxc.pvary %x, axes = ["i", "j"] : tensor<3xf32>
  %s = jaxc.psum %v, axes = ["i"] invariant : tensor<3xf32>
  %m = jaxc.pmax %v, axes = ["i", "j"] invariant : tensor<3xf32>
  %g = jaxc.all_gather %v, axes = ["i"], dim = 0, axis_size = 4 tiled invariant : tensor<3xf32> -> tensor<12xf32>
  return %v, %s, %m, %g : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<12xf32>
}
