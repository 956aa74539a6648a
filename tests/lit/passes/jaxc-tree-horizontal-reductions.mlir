// RUN: jaxc-opt %s --jaxc-tree-horizontal-reductions | FileCheck %s

// The end of a row reduction: 32 lanes of partial sums and the row's running
// value become one vector.reduction, reassociated (a tree of shuffles).
// CHECK-LABEL: func.func @row_sum_lanes
// CHECK-SAME: (%[[P:.+]]: vector<1x32xf32>, %[[ACC:.+]]: vector<1xf32>)
// CHECK-NEXT: %[[F:.+]] = vector.shape_cast %[[P]] : vector<1x32xf32> to vector<32xf32>
// CHECK-NEXT: %[[A:.+]] = vector.extract %[[ACC]][0] : f32 from vector<1xf32>
// CHECK-NEXT: %[[S:.+]] = vector.reduction <add>, %[[F]], %[[A]] fastmath<reassoc> : vector<32xf32> into f32
// CHECK-NEXT: %[[R:.+]] = vector.broadcast %[[S]] : f32 to vector<1xf32>
// CHECK-NEXT: return %[[R]]
func.func @row_sum_lanes(%p: vector<1x32xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <add>, %p, %acc [1] : vector<1x32xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// Every dim reduced: the result is already a scalar. A maximum is exact in
// any order: no flag.
// CHECK-LABEL: func.func @all_lanes_max
// CHECK-NEXT: %[[S:.+]] = vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK-NEXT: return %[[S]]
func.func @all_lanes_max(%p: vector<16xf32>, %acc: f32) -> f32 {
  %r = vector.multi_reduction <maximumf>, %p, %acc [0] : vector<16xf32> to f32
  return %r : f32
}

// Two reduced inner dims flatten into one; integers take no flag.
// CHECK-LABEL: func.func @int_product
// CHECK: vector.shape_cast %{{.*}} : vector<1x4x8xi32> to vector<32xi32>
// CHECK: vector.reduction <mul>, %{{.*}}, %{{.*}} : vector<32xi32> into i32
// CHECK-NOT: fastmath
func.func @int_product(%p: vector<1x4x8xi32>, %acc: vector<1xi32>) -> vector<1xi32> {
  %r = vector.multi_reduction <mul>, %p, %acc [1, 2] : vector<1x4x8xi32> to vector<1xi32>
  return %r : vector<1xi32>
}

// Reductions over an outer dim, or with a parallel dim wider than 1, keep
// upstream's lowering (vector adds of rows).
// CHECK-LABEL: func.func @not_horizontal
// CHECK-NEXT: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<4x16xf32> to vector<16xf32>
// CHECK-NEXT: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<2x16xf32> to vector<2xf32>
func.func @not_horizontal(%p: vector<4x16xf32>, %acc: vector<16xf32>, %q: vector<2x16xf32>, %b: vector<2xf32>)
    -> (vector<16xf32>, vector<2xf32>) {
  %r = vector.multi_reduction <add>, %p, %acc [0] : vector<4x16xf32> to vector<16xf32>
  %s = vector.multi_reduction <add>, %q, %b [1] : vector<2x16xf32> to vector<2xf32>
  return %r, %s : vector<16xf32>, vector<2xf32>
}
