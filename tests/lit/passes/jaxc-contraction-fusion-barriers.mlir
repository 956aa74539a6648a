// RUN: jaxc-opt %s --linalg-generalize-named-ops --jaxc-contraction-fusion-barriers | FileCheck %s --check-prefix=BARRIER
// RUN: jaxc-opt %s --linalg-generalize-named-ops --jaxc-contraction-fusion-barriers --linalg-fuse-elementwise-ops --jaxc-drop-fusion-barriers | FileCheck %s --check-prefix=FUSED

// tanh(a) @ b: the tanh generic gets a marked copy before the contraction,
// so fusion leaves two kernels and the contraction body stays mul + add.
// BARRIER-LABEL: func.func @computed_operand
// BARRIER: %[[T:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<8x16xf32>)
// BARRIER: math.tanh
// BARRIER: %[[C:.+]] = linalg.copy {{{.*}}jaxc.fusion_barrier} ins(%[[T]] : tensor<8x16xf32>)
// BARRIER: linalg.generic {{.*}} ins(%[[C]], %arg1 : tensor<8x16xf32>, tensor<16x4xf32>)
// FUSED-LABEL: func.func @computed_operand
// FUSED-NOT: linalg.copy
// FUSED: %[[T:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<8x16xf32>)
// FUSED: math.tanh
// FUSED: linalg.generic {{.*}} ins(%[[T]], %arg1 : tensor<8x16xf32>, tensor<16x4xf32>)
// FUSED-NOT: math.tanh
// FUSED: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @computed_operand(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = math.tanh %in : f32
    linalg.yield %h : f32
  } -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<8x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%t, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// A transposed operand only moves elements: it fuses into the contraction's
// indexing map, with no barrier.
// BARRIER-LABEL: func.func @moved_operand
// BARRIER-NOT: linalg.copy
// BARRIER: return
// FUSED-LABEL: func.func @moved_operand
// FUSED-COUNT-2: linalg.generic
// FUSED-NOT: linalg.generic
// FUSED: return
func.func @moved_operand(%a: tensor<16x8xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%a : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<8x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%t, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// A filled operand (the cotangent of sum(a @ b)) is a computed one: fused,
// the contraction would become a column sum repeated for every row.
// BARRIER-LABEL: func.func @filled_operand
// BARRIER: %[[F:.+]] = linalg.generic {{.*}} ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x16xf32>)
// BARRIER: %[[C:.+]] = linalg.copy {{{.*}}jaxc.fusion_barrier} ins(%[[F]] : tensor<8x16xf32>)
// BARRIER: linalg.generic {{.*}} ins(%[[C]], %arg0 : tensor<8x16xf32>, tensor<16x4xf32>)
func.func @filled_operand(%b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.fill ins(%one : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<8x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
