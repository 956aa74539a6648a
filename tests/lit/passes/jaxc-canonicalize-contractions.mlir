// RUN: jaxc-opt %s --jaxc-canonicalize-contractions | FileCheck %s

// The maps of a canonical matmul (m, n, k) and of the transpose copy.
// CHECK-DAG: #[[MK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KN:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[NM:.+]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[SWAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>

#x3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w2 = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#o3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// x @ w with x: f32[8, 16, 32]: the two m loops become one (x collapsed to
// 128 x 32), the zero fill is remade at 128 x 24, the result expanded back.
// CHECK-LABEL: func.func @two_m_loops
// CHECK-SAME: (%[[X:.+]]: tensor<8x16x32xf32>, %[[W:.+]]: tensor<32x24xf32>)
// CHECK: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<8x16x32xf32> into tensor<128x32xf32>
// CHECK: %[[FILL:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<128x24xf32>)
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X2]], %[[W]] : tensor<128x32xf32>, tensor<32x24xf32>) outs(%[[FILL]] : tensor<128x24xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[R:.+]] = tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] output_shape [8, 16, 24]
// CHECK: return %[[R]]
func.func @two_m_loops(%x: tensor<8x16x32xf32>, %w: tensor<32x24xf32>) -> tensor<8x16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16x24xf32>
  %fill = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%zero : f32) outs(%e : tensor<8x16x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16x24xf32>
  %r = linalg.generic {indexing_maps = [#x3, #w2, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x16x32xf32>, tensor<32x24xf32>) outs(%fill : tensor<8x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16x24xf32>
  return %r : tensor<8x16x24xf32>
}

// The rhs reads k and n loops interleaved, (k0, n0, k1, n1), as a transpose
// fused into the product leaves them: it is first copied into (k0, k1, n0,
// n1) order, then the product is a 64 x 64 x 512 matmul.
// CHECK-LABEL: func.func @interleaved_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<64x2x32xf32>, %[[B:.+]]: tensor<2x32x32x16xf32>, %[[C:.+]]: tensor<64x32x16xf32>)
// CHECK: %[[A2:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0], [1, 2]] : tensor<64x2x32xf32> into tensor<64x64xf32>
// CHECK: %[[BT:.+]] = linalg.generic {indexing_maps = [#[[SWAP]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<2x32x32x16xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: %[[B2:.+]] = tensor.collapse_shape %[[BT]] {{\[}}[0, 1], [2, 3]] : tensor<2x32x32x16xf32> into tensor<64x512xf32>
// CHECK: %[[C2:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2]] : tensor<64x32x16xf32> into tensor<64x512xf32>
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A2]], %[[B2]] : tensor<64x64xf32>, tensor<64x512xf32>) outs(%[[C2]] : tensor<64x512xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [64, 32, 16]
func.func @interleaved_rhs(%a: tensor<64x2x32xf32>, %b: tensor<2x32x32x16xf32>, %c: tensor<64x32x16xf32>) -> tensor<64x32x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d3, d1, d4, d2)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<64x2x32xf32>, tensor<2x32x32x16xf32>) outs(%c : tensor<64x32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x32x16xf32>
  return %r : tensor<64x32x16xf32>
}

// Already canonical (batch, m, n, k): unchanged.
// CHECK-LABEL: func.func @canonical
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @canonical(%a: tensor<4x64x32xf32>, %b: tensor<4x32x16xf32>, %c: tensor<4x64x16xf32>) -> tensor<4x64x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64x32xf32>, tensor<4x32x16xf32>) outs(%c : tensor<4x64x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x64x16xf32>
  return %r : tensor<4x64x16xf32>
}

// The result is read (n, m): left as it is.
// CHECK-LABEL: func.func @transposed_result
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[NM]]]
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @transposed_result(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d2, d1)>,
                                        affine_map<(d0, d1, d2) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

