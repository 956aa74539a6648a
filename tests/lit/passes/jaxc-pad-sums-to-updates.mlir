// RUN: jaxc-opt %s --split-input-file --jaxc-pad-sums-to-updates | FileCheck %s

// Three zero pads of disjoint rows, summed: the first pad, then each other
// block written into it (constant starts).
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<1x4xf32>, %[[B:[a-z0-9_]+]]: tensor<1x4xf32>, %[[C:[a-z0-9_]+]]: tensor<1x4xf32>)
// CHECK: %[[PA:.*]] = jaxc.pad %[[A]], %{{.*}}, low = [0, 0], high = [2, 0]
// CHECK: %[[I1:.*]] = jaxc.constant dense<1> : tensor<i32>
// CHECK: %[[J1:.*]] = jaxc.constant dense<0> : tensor<i32>
// CHECK: %[[S1:.*]] = jaxc.dynamic_update_slice %[[PA]], %[[B]][%[[I1]], %[[J1]]]
// CHECK: %[[I2:.*]] = jaxc.constant dense<2> : tensor<i32>
// CHECK: %[[S2:.*]] = jaxc.dynamic_update_slice %[[S1]], %[[C]][%[[I2]], %{{.*}}]
// CHECK-NOT: jaxc.add
// CHECK: return %[[S2]]
func.func @rows(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>, %c: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %zero = jaxc.constant dense<0.0> : tensor<f32>
  %pa = jaxc.pad %a, %zero, low = [0, 0], high = [2, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %pb = jaxc.pad %b, %zero, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %pc = jaxc.pad %c, %zero, low = [2, 0], high = [0, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %s1 = jaxc.add %pa, %pb : tensor<3x4xf32>
  %s2 = jaxc.add %pc, %s1 : tensor<3x4xf32>
  return %s2 : tensor<3x4xf32>
}

// -----

// A pad added to a zero constant: written into the constant.
// CHECK-LABEL: func.func @into_zeros(
// CHECK: %[[Z:.*]] = jaxc.constant dense<0> : tensor<4x4xi32>
// CHECK: jaxc.dynamic_update_slice %[[Z]], %arg0
// CHECK-NOT: jaxc.add
func.func @into_zeros(%a: tensor<2x2xi32>) -> tensor<4x4xi32> {
  %zero = jaxc.constant dense<0> : tensor<i32>
  %zeros = jaxc.constant dense<0> : tensor<4x4xi32>
  %p = jaxc.pad %a, %zero, low = [1, 2], high = [1, 0], interior = [0, 0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<4x4xi32>
  %s = jaxc.add %zeros, %p : tensor<4x4xi32>
  return %s : tensor<4x4xi32>
}

// -----

// Kept: blocks that overlap; a pad of one; interior padding; cropping; a
// value updated at a run-time start (not known to be zero anywhere).
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: jaxc.dynamic_update_slice %{{.*}}, %arg0
// CHECK-COUNT-5: jaxc.add
func.func @kept(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %i: tensor<i32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<5x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>) {
  %zero = jaxc.constant dense<0.0> : tensor<f32>
  %one = jaxc.constant dense<1.0> : tensor<f32>
  %pa = jaxc.pad %a, %zero, low = [0, 0], high = [2, 0], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %pa1 = jaxc.pad %a, %zero, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %overlap = jaxc.add %pa, %pa1 : tensor<4x4xf32>
  %ones = jaxc.pad %a, %one, low = [2, 0], high = [0, 0], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %nonzero = jaxc.add %pa, %ones : tensor<4x4xf32>
  %spread = jaxc.pad %a, %zero, low = [0, 0], high = [2, 0], interior = [1, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<5x4xf32>
  %spread2 = jaxc.pad %a, %zero, low = [3, 0], high = [0, 0], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<5x4xf32>
  %interior = jaxc.add %spread, %spread2 : tensor<5x4xf32>
  %crop = jaxc.pad %b, %zero, low = [-2, 0], high = [0, 0], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %crop2 = jaxc.pad %b, %zero, low = [0, 0], high = [-2, 0], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %cropped = jaxc.add %crop, %crop2 : tensor<1x4xf32>
  %c0 = jaxc.constant dense<0> : tensor<i32>
  %moved = jaxc.dynamic_update_slice %pa, %a[%i, %c0] : (tensor<4x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  %pc = jaxc.pad %a, %zero, low = [2, 0], high = [0, 0], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %runtime = jaxc.add %moved, %pc : tensor<4x4xf32>
  return %overlap, %nonzero, %interior, %cropped, %runtime : tensor<4x4xf32>, tensor<4x4xf32>, tensor<5x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>
}
