// RUN: jaxc-opt %s --split-input-file --jaxc-to-linalg | FileCheck %s

// Unary elementwise: one linalg.generic with the math op in its body.
// Arguments are immutable arrays: bufferization may not write into them.
// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = math.exp %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Unsigned types become signless in the signature; the op keeps unsigned
// semantics (maxui).
// CHECK-LABEL: func.func @unsigned_max
// CHECK-SAME: (%[[A:[^:]+]]: tensor<3xi8> {bufferization.writable = false}, %[[B:[^:]+]]: tensor<3xi8> {bufferization.writable = false}) -> tensor<3xi8>
// CHECK: ^bb0(%[[X:.+]]: i8, %[[Y:.+]]: i8, %{{.+}}: i8):
// CHECK-NEXT: %[[M:.+]] = arith.maxui %[[X]], %[[Y]] : i8
// CHECK-NEXT: linalg.yield %[[M]] : i8
func.func @unsigned_max(%a: tensor<3xui8>, %b: tensor<3xui8>) -> tensor<3xui8> {
  %0 = jaxc.max %a, %b : tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// A call's unsigned results become signless before the rules run, so the op
// that uses one sees a signless value (and keeps the unsigned semantics).
// CHECK-LABEL: func.func @unsigned_call_result
// CHECK: %[[C:.+]] = call @unsigned_source(%{{.+}}) : (tensor<3xi32>) -> tensor<3xi32>
// CHECK: linalg.generic {{.+}} ins(%[[C]], %{{.+}} : tensor<3xi32>, tensor<3xi32>)
// CHECK: arith.divui %{{.+}}, %{{.+}} : i32
func.func private @unsigned_source(%a: tensor<3xui32>) -> tensor<3xui32> {
  return %a : tensor<3xui32>
}
func.func @unsigned_call_result(%a: tensor<3xui32>) -> tensor<3xui32> {
  %0 = func.call @unsigned_source(%a) : (tensor<3xui32>) -> tensor<3xui32>
  %1 = jaxc.div %0, %a : tensor<3xui32>
  return %1 : tensor<3xui32>
}

// -----

// Float comparisons are ordered: lt -> olt. Booleans are stored as i8.
// CHECK-LABEL: func.func @compare_lt
// CHECK-SAME: -> tensor<2xi8>
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: i8):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[W:.+]] = arith.extui %[[C]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[W]] : i8
func.func @compare_lt(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xi1> {
  %0 = jaxc.compare lt, %a, %b : tensor<2xf32>
  return %0 : tensor<2xi1>
}

// -----

// broadcast_in_dim is a generic whose input map drops the new dimension.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = jaxc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @strided_slice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8xi32> {bufferization.writable = false})
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %[[X]][1] [3] [2] : tensor<8xi32> to tensor<3xi32>
// CHECK-NEXT: return %[[S]] : tensor<3xi32>
func.func @strided_slice(%x: tensor<8xi32>) -> tensor<3xi32> {
  %0 = jaxc.slice %x, start = [1], limit = [7], strides = [2] : tensor<8xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// A max reduction starts from -inf and combines with NaN-propagating maximumf.
// CHECK-LABEL: func.func @reduce_max
// CHECK-NEXT: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT: %[[INIT:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%[[E]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<2x3xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[ACC]], %[[V]] : f32
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %0 = jaxc.reduce max %x, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// argmax along the last axis: the row's max (NaN-propagating), then the
// smallest index whose element equals it or is a NaN, the indices read from a
// constant (so the second reduction splits into partials like the first).
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @argmax_rows
// CHECK: %[[M:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK-DAG: %[[N:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[IOTA:.+]] = arith.constant dense<[0, 1, 2]> : tensor<3xi32>
// CHECK: %[[START:.+]] = linalg.fill ins(%[[N]] : i32)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[COL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%{{.+}}, %[[M]], %[[IOTA]] : tensor<2x3xf32>, tensor<2xf32>, tensor<3xi32>) outs(%[[START]] : tensor<2xi32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[MAX:.+]]: f32, %[[I:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpf oeq, %[[V]], %[[MAX]] : f32
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[HIT:.+]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT: %[[SEL:.+]] = arith.select %[[HIT]], %[[I]], %[[N]] : i32
// CHECK-NEXT: %[[FIRST:.+]] = arith.minsi %[[ACC]], %[[SEL]] : i32
// CHECK-NEXT: linalg.yield %[[FIRST]] : i32
func.func @argmax_rows(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  %0 = jaxc.argmax %x, axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Along another axis: one reduction carrying the value and its index.
// CHECK-LABEL: func.func @argmin_columns
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<2x3xi32>) outs(%{{.+}}, %{{.+}} : tensor<3xi32>, tensor<3xi32>)
// CHECK: linalg.index 0
func.func @argmin_columns(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  %0 = jaxc.argmin %x, axis = 0 : tensor<2x3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// dot_general: loops (i, j, k) with k a reduction; accumulate a * b.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[RES:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[RES]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// cond: a predicate picks the first region (false) or the second (true),
// as an scf.if on "index == 0" (not scf.index_switch: docs/toolchain.md).
// CHECK-LABEL: func.func @cond
// CHECK-SAME: (%[[P:[^:]+]]: tensor<i8> {bufferization.writable = false}, %[[X:[^:]+]]: tensor<3xf32> {bufferization.writable = false})
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG: %[[B:.+]] = tensor.extract %[[P]][] : tensor<i8>
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i8
// CHECK-NEXT: %[[R:.+]] = scf.if %[[IS0]] -> (tensor<3xf32>) {
// CHECK: math.absf
// CHECK: scf.yield
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[X]] : tensor<3xf32>
// CHECK: return %[[R]] : tensor<3xf32>
func.func @cond(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = jaxc.cond %p (%x) : tensor<i1>, (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %n = jaxc.abs %a : tensor<3xf32>
    jaxc.yield %n : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    jaxc.yield %a : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// while: the cond region ends in scf.condition on the i1 held by the
// predicate tensor.
// CHECK-LABEL: func.func @loop
// CHECK: %[[R:.+]] = scf.while (%[[I:.+]] = %{{.+}}) : (tensor<i32>) -> tensor<i32> {
// CHECK: %[[S:.+]] = tensor.extract %{{.+}}[] : tensor<i8>
// CHECK-NEXT: %[[C:.+]] = arith.trunci %[[S]] : i8 to i1
// CHECK-NEXT: scf.condition(%[[C]]) %[[I]] : tensor<i32>
// CHECK: } do {
// CHECK: scf.yield
// CHECK: return %[[R]] : tensor<i32>
func.func @loop(%n: tensor<i32>) -> tensor<i32> {
  %r = jaxc.while (%n : tensor<i32>) cond {
  ^bb0(%i: tensor<i32>):
    %z = jaxc.constant dense<100> : tensor<i32>
    %p = jaxc.compare lt, %i, %z : tensor<i32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %j = jaxc.add %i, %i : tensor<i32>
    jaxc.yield %j : tensor<i32>
  }
  return %r : tensor<i32>
}

// -----

// Reshapes become collapse_shape / expand_shape (which fusion folds into the
// loops around them); one that groups neither side's dims goes through 1-D;
// one with a size-0 dim stays a tensor.reshape.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[X:.+]]: tensor<4x6xf32>{{.*}}, %[[Z:.+]]: tensor<0x3xf32>{{.*}}, %[[S:.+]]: tensor<f32>{{.*}})
// CHECK: tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [4, 2, 3] : tensor<4x6xf32> into tensor<4x2x3xf32>
// CHECK: tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK-NEXT: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2, 3]] output_shape [4, 1, 6, 1] : tensor<4x6xf32> into tensor<4x1x6x1xf32>
// CHECK: tensor.reshape %[[Z]]
// CHECK: tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @reshapes(%x: tensor<4x6xf32>, %z: tensor<0x3xf32>, %s: tensor<f32>)
    -> (tensor<4x2x3xf32>, tensor<24xf32>, tensor<6x4xf32>, tensor<4x1x6x1xf32>, tensor<3x0xf32>, tensor<1x1xf32>) {
  %a = jaxc.reshape %x : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
  %b = jaxc.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
  %c = jaxc.reshape %x : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %d = jaxc.expand_dims %x, dims = [1, 3] : tensor<4x6xf32> -> tensor<4x1x6x1xf32>
  %e = jaxc.reshape %z : (tensor<0x3xf32>) -> tensor<3x0xf32>
  %f = jaxc.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  return %a, %b, %c, %d, %e, %f : tensor<4x2x3xf32>, tensor<24xf32>, tensor<6x4xf32>, tensor<4x1x6x1xf32>, tensor<3x0xf32>, tensor<1x1xf32>
}

// -----

// dft: the direct sum over the points j for each (sequence c, frequency k),
// accumulated into zeros; the leading axes are collapsed into one sequence
// axis. The angle is sign 2 pi ((j k) mod n) / n; a real input multiplies
// the parts of scale (cos + i sin). The generic carries the op's sign and
// scale for jaxc-schedule, which makes it a call of the compiled FFT.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dft
// CHECK: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
// CHECK: %[[Z:.+]] = linalg.fill
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<6x8xf32>) outs(%[[Z]] : tensor<6x8xcomplex<f32>>) attrs = {jaxc.dft_scale = 5.000000e-01 : f64, jaxc.dft_sign = 1 : i64}
// CHECK: arith.remui
// CHECK: math.cos
// CHECK: math.sin
// CHECK: complex.create
// CHECK: complex.add
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [2, 3, 8]
func.func @dft(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xcomplex<f32>> {
  %0 = jaxc.dft %x, axis = 2, sign = 1, scale = 0.5 : tensor<2x3x8xf32> -> tensor<2x3x8xcomplex<f32>>
  return %0 : tensor<2x3x8xcomplex<f32>>
}

// -----

// dft along the first axis: the sequences are the columns of (points, the
// other axes collapsed), read where they are (maps (c, k, j) -> (j, c) and
// (k, c)), no transpose.
// CHECK-DAG: #[[COLS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[COLS_OUT:.+]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @dft_columns
// CHECK-NOT: linalg.transpose
// CHECK: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<8x2x3xcomplex<f32>> into tensor<8x6xcomplex<f32>>
// CHECK: linalg.generic {indexing_maps = [#[[COLS]], #[[COLS_OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<8x6xcomplex<f32>>) outs(%{{.*}} : tensor<8x6xcomplex<f32>>) attrs = {jaxc.dft_scale = 1.000000e+00 : f64, jaxc.dft_sign = -1 : i64}
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @dft_columns(%x: tensor<8x2x3xcomplex<f32>>) -> tensor<8x2x3xcomplex<f32>> {
  %0 = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8x2x3xcomplex<f32>> -> tensor<8x2x3xcomplex<f32>>
  return %0 : tensor<8x2x3xcomplex<f32>>
}

// -----

// dft along a middle axis (axes before and after it): the rows of a
// transposed copy (A, B, n), and the result transposed back.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[ROWS_OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dft_middle_axis
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x3xf64>) outs(%{{.*}} : tensor<2x3x8xf64>) permutation = [0, 2, 1]
// CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS_OUT]]], {{.*}} ins(%{{.*}} : tensor<6x8xf64>) outs(%{{.*}} : tensor<6x8xcomplex<f64>>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x8xcomplex<f64>>) outs(%{{.*}} : tensor<2x8x3xcomplex<f64>>) permutation = [0, 2, 1]
func.func @dft_middle_axis(%x: tensor<2x8x3xf64>) -> tensor<2x8x3xcomplex<f64>> {
  %0 = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<2x8x3xf64> -> tensor<2x8x3xcomplex<f64>>
  return %0 : tensor<2x8x3xcomplex<f64>>
}

// -----

// hermitian_dft: the same direct sum from the n//2 + 1 given points (loop
// j) to the n real ones (loop k): w * (re(x) cos t - im(x) sin t), the
// weight w 1 for the points 0 and n/2 and 2 for the others (they stand for
// their mirrored conjugates too), into a real result.
// CHECK-LABEL: func.func @hermitian_dft
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x5xcomplex<f32>>) outs(%{{.*}} : tensor<3x8xf32>) attrs = {jaxc.dft_scale = 1.250000e-01 : f64, jaxc.dft_sign = 1 : i64}
// CHECK: ^bb0(%[[IN:.+]]: complex<f32>, %[[OUT:.+]]: f32):
// CHECK: %[[J:.+]] = linalg.index 2 : index
// CHECK: arith.cmpi eq, %[[J]]
// CHECK: %[[W:.+]] = arith.select
// CHECK: complex.re %[[IN]]
// CHECK: complex.im %[[IN]]
// CHECK: %[[T:.+]] = arith.mulf %[[W]]
// CHECK: arith.addf %[[OUT]], %[[T]] : f32
func.func @hermitian_dft(%x: tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32> {
  %0 = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 0.125 : tensor<3x5xcomplex<f32>> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// A cumulative op along the last axis of many rows: the leading axes are
// collapsed into 21 rows, scanned by blocks of 8 (two) and a block of the
// last 5, each position of a block combined into its running slice and
// written straight into the result.
// CHECK-LABEL: func.func @cumulative_rows
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<3x7x5xf32> into tensor<21x5xf32>
// CHECK: %[[BLOCKS:.+]] = scf.for %[[RB:.+]] = %{{.+}} to %c16 step %c8 iter_args(%[[OUT:.+]] = %{{.+}}) -> (tensor<21x5xf32>)
// CHECK: scf.for %[[J:.+]] = {{.+}} iter_args(%[[RUNNING:.+]] = %{{.+}}, %[[ACC:.+]] = %[[OUT]]) -> (tensor<8x1xf32>, tensor<21x5xf32>)
// CHECK: tensor.extract_slice %[[ROWS]][%[[RB]], %[[J]]] [8, 1] [1, 1]
// CHECK: arith.addf
// CHECK: tensor.insert_slice %{{.+}} into %[[ACC]][%[[RB]], %[[J]]] [8, 1] [1, 1]
// CHECK: scf.for {{.+}} -> (tensor<5x1xf32>, tensor<21x5xf32>)
// CHECK: tensor.extract_slice %[[ROWS]][%{{.+}}, %{{.+}}] [5, 1] [1, 1]
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2]] output_shape [3, 7, 5]
func.func @cumulative_rows(%x: tensor<3x7x5xf32>) -> tensor<3x7x5xf32> {
  %0 = jaxc.cumulative sum %x, axis = 2 : tensor<3x7x5xf32>
  return %0 : tensor<3x7x5xf32>
}
