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

// The generic of a jaxc.dft keeps its (sequences, points) loops and its
// attributes: opaque barriers before its input (here a collapse_shape,
// which the fusion pass would fold into its loops, through a linalg.copy
// too) and after its result.
// BARRIER-LABEL: func.func @dft
// BARRIER: %[[X:.+]] = tensor.collapse_shape %arg0
// BARRIER: %[[B:.+]] = bufferization.alloc_tensor() copy(%[[X]]) {jaxc.fusion_barrier} : tensor<6x8xf32>
// BARRIER: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6x8xf32>)
// BARRIER: %[[A:.+]] = bufferization.alloc_tensor() copy(%[[Y]]) {jaxc.fusion_barrier} : tensor<6x8xcomplex<f32>>
// BARRIER: tensor.expand_shape %[[A]]
// FUSED-LABEL: func.func @dft
// FUSED: %[[X:.+]] = tensor.collapse_shape %arg0
// FUSED: %[[Y:.+]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<6x8xf32>) {{.*}} attrs = {jaxc.dft_scale = 1.000000e+00 : f64, jaxc.dft_sign = -1 : i64}
// FUSED: tensor.expand_shape %[[Y]]
func.func @dft(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xcomplex<f32>> {
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
  %zero = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %step = arith.constant -0.785398185 : f32
  %n = arith.constant 8 : index
  %e = tensor.empty() : tensor<6x8xcomplex<f32>>
  %init = linalg.fill ins(%zero : complex<f32>) outs(%e : tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>>
  %y = linalg.generic {indexing_maps = [affine_map<(c, k, j) -> (c, j)>, affine_map<(c, k, j) -> (c, k)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2 : tensor<6x8xf32>) outs(%init : tensor<6x8xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.0 : f64, jaxc.dft_sign = -1 : i64} {
  ^bb0(%in: f32, %out: complex<f32>):
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %jk = arith.muli %j, %k : index
    %r = arith.remui %jk, %n : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %angle = arith.mulf %rf, %step : f32
    %cos = math.cos %angle : f32
    %sin = math.sin %angle : f32
    %tr = arith.mulf %in, %cos : f32
    %ti = arith.mulf %in, %sin : f32
    %term = complex.create %tr, %ti : complex<f32>
    %s = complex.add %out, %term : complex<f32>
    linalg.yield %s : complex<f32>
  } -> tensor<6x8xcomplex<f32>>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xcomplex<f32>> into tensor<2x3x8xcomplex<f32>>
  return %y3 : tensor<2x3x8xcomplex<f32>>
}
