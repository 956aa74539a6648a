// RUN: jaxc-opt %s --linalg-generalize-named-ops --jaxc-bound-fusion=max-ops=2 | FileCheck %s --check-prefix=BOUND
// RUN: jaxc-opt %s --linalg-generalize-named-ops --jaxc-bound-fusion=max-ops=2 --linalg-fuse-elementwise-ops --jaxc-drop-fusion-barriers | FileCheck %s --check-prefix=FUSED

// A chain of three one-op generics: with max-ops=2, fusion may not take all
// three, so a marked copy goes before the third; fusion then stops there and
// the copy is dropped afterwards, leaving two kernels.
// BOUND-LABEL: func.func @chain
// BOUND: %[[B:.+]] = linalg.copy {{{.*}}jaxc.fusion_barrier} ins(%{{.+}} : tensor<4xf32>)
// BOUND: linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>)
// FUSED-LABEL: func.func @chain
// FUSED-NOT: linalg.copy
// FUSED: %[[K1:.+]] = linalg.generic
// FUSED: math.sin
// FUSED: arith.mulf
// FUSED: linalg.generic {{.*}} ins(%[[K1]] : tensor<4xf32>)
// FUSED: math.exp
// FUSED-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.exp %in : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %c : tensor<4xf32>
}

