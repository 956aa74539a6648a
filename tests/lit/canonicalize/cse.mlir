// jaxc ops are Pure (or, with regions, RecursiveMemoryEffects over pure
// bodies), so common-subexpression elimination merges identical ones.
// RUN: jaxc-opt %s --cse | FileCheck %s

// Two identical sines become one.
// CHECK-LABEL: func.func @identical_sin(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.sin %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.add %[[S]], %[[S]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @identical_sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.sin %x : tensor<4xf32>
  %1 = jaxc.sin %x : tensor<4xf32>
  %2 = jaxc.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// Different operands: both stay.
// CHECK-LABEL: func.func @sin_of_different_operands(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.sin %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.sin %[[Y]] : tensor<4xf32>
// CHECK-NEXT: return %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>
func.func @sin_of_different_operands(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = jaxc.sin %x : tensor<4xf32>
  %1 = jaxc.sin %y : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// Attributes take part: equal comparisons merge, different directions stay.
// CHECK-LABEL: func.func @compare_directions(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[LT:[a-z0-9_]+]] = jaxc.compare lt, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[GT:[a-z0-9_]+]] = jaxc.compare gt, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: return %[[LT]], %[[LT]], %[[GT]] : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
func.func @compare_directions(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = jaxc.compare lt, %x, %y : tensor<4xf32>
  %1 = jaxc.compare lt, %x, %y : tensor<4xf32>
  %2 = jaxc.compare gt, %x, %y : tensor<4xf32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Identical constants merge; so do the ops that use them.
// CHECK-LABEL: func.func @identical_constants(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xi32>)
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[C]] : tensor<3xi32>
// CHECK-NEXT: return %[[M]], %[[M]] : tensor<3xi32>, tensor<3xi32>
func.func @identical_constants(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %c0 = jaxc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %c1 = jaxc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = jaxc.mul %x, %c0 : tensor<3xi32>
  %1 = jaxc.mul %x, %c1 : tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// Shape ops with the same attributes merge, with different ones stay.
// CHECK-LABEL: func.func @transposes(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x2xf32>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = jaxc.transpose %[[X]], perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = jaxc.transpose %[[X]], perm = [0, 1] : tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %[[T]], %[[T]], %[[I]] : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
func.func @transposes(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = jaxc.transpose %x, perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = jaxc.transpose %x, perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = jaxc.transpose %x, perm = [0, 1] : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
