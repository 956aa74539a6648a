// RUN: jaxc-opt %s --split-input-file --jaxc-unshare-empties | FileCheck %s

// One empty tensor (CSE merged the branches' own) written at three depths:
// the function's block and the first branch level keep it; each branch two
// or more levels down gets an empty of its own at its start, shared by its
// ops (the generic and the one inside its loop) but not by deeper branches.
// CHECK-LABEL: func.func @nested(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK: scf.if
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK: scf.if
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E2]] : tensor<4xf32>)
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} outs(%[[E2]] : tensor<4xf32>)
// CHECK: scf.if
// CHECK-NEXT: %[[E3:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E3]] : tensor<4xf32>)
// CHECK: } else {
// CHECK-NEXT: %[[E4:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: scf.yield %[[E4]]
#id = affine_map<(d0) -> (d0)>
func.func @nested(%a: tensor<4xf32>, %p: i1, %n: index) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = scf.if %p -> (tensor<4xf32>) {
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = math.cos %in : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %r2 = scf.if %p -> (tensor<4xf32>) {
      %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %s = math.exp %in : f32
        linalg.yield %s : f32
      } -> tensor<4xf32>
      %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) {
        %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%acc : tensor<4xf32>) outs(%e : tensor<4xf32>) {
        ^bb0(%in: f32, %out: f32):
          %s = math.tanh %in : f32
          linalg.yield %s : f32
        } -> tensor<4xf32>
        scf.yield %w : tensor<4xf32>
      }
      %r3 = scf.if %p -> (tensor<4xf32>) {
        %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%l : tensor<4xf32>) outs(%e : tensor<4xf32>) {
        ^bb0(%in: f32, %out: f32):
          %s = math.log %in : f32
          linalg.yield %s : f32
        } -> tensor<4xf32>
        scf.yield %v : tensor<4xf32>
      } else {
        scf.yield %e : tensor<4xf32>
      }
      scf.yield %r3 : tensor<4xf32>
    } else {
      scf.yield %y : tensor<4xf32>
    }
    scf.yield %r2 : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// An index_switch counts as a branch; a dynamic empty is cloned with its
// sizes (they dominate every nested block).
// CHECK-LABEL: func.func @switch(
// CHECK-SAME: %[[N:[a-z0-9_]+]]: index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: scf.index_switch
// CHECK: scf.if
// CHECK-NEXT: %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: scf.yield %[[E2]]
// CHECK: } else {
// CHECK-NEXT: %[[E3:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: scf.yield %[[E3]]
// CHECK: default {
// CHECK-NEXT: scf.yield %[[E]]
func.func @switch(%n: index, %k: index, %p: i1) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = scf.index_switch %k -> tensor<?xf32>
  case 0 {
    %r2 = scf.if %p -> (tensor<?xf32>) {
      scf.yield %e : tensor<?xf32>
    } else {
      scf.yield %e : tensor<?xf32>
    }
    scf.yield %r2 : tensor<?xf32>
  }
  default {
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
