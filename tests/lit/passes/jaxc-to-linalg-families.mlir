// RUN: jaxc-opt %s --split-input-file --jaxc-to-linalg | FileCheck %s
// The shape of the lowered IR for the op families not shown in
// jaxc-to-linalg.mlir (numerics are in tests/python).

// gather: one generic over the result; each element reads its start index and
// extracts from the operand.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5x3xf32> {{.*}}, %[[IDX:[^:]+]]: tensor<2x1xi32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(
// CHECK: tensor.extract %[[IDX]][%{{.+}}, %{{.+}}] : tensor<2x1xi32>
// CHECK: tensor.extract %[[X]][%{{.+}}, %{{.+}}] : tensor<5x3xf32>
func.func @gather(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// take (one element per index, the index vector added by a reshape): the
// starts are read through the generic's input, so whatever computed them
// fuses into the gather (passes/lowering/shape.py, _starts_per_element).
// CHECK-LABEL: func.func @take
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5xf32> {{.*}}, %[[I:[^:]+]]: tensor<4xi32>
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[START:.+]]: i32, %{{.+}}: f32):
// CHECK: arith.extsi %[[START]] : i32 to i64
// CHECK-NOT: tensor.extract %[[I]]
// CHECK: tensor.extract %[[X]][%{{.+}}] : tensor<5xf32>
func.func @take(%x: tensor<5xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %idx = jaxc.reshape %i : (tensor<4xi32>) -> tensor<4x1xi32>
  %g = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1] : (tensor<5xf32>, tensor<4x1xi32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// scatter: a loop over the updates carrying the result; in-bounds updates
// combine on scalars (the update computation's jaxc.add is an arith.addf, no
// 0-d tensors) and insert the value.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5xf32>
// CHECK: %[[R:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[X]]) -> (tensor<5xf32>) {
// CHECK: scf.if %{{.+}} -> (tensor<5xf32>) {
// CHECK-NOT: tensor.from_elements
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: tensor.insert %[[SUM]] into %[[ACC]][%{{.+}}] : tensor<5xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ACC]] : tensor<5xf32>
// CHECK: return %[[R]] : tensor<5xf32>
func.func @scatter_add(%x: tensor<5xf32>, %idx: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %r = jaxc.scatter %x[%idx], %u update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = jaxc.add %old, %new : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %r : tensor<5xf32>
}

// -----

// scatter of rows: the index is read and checked once per row, outside the
// loop over the row's elements.
// CHECK-LABEL: func.func @scatter_add_rows
// CHECK: scf.for %[[N:.+]] = %{{.+}} to %c2 step %{{.+}} iter_args(%[[ACC:.+]] = %arg0) -> (tensor<5x3xf32>) {
// CHECK: tensor.extract %arg1[%[[N]], %{{.+}}] : tensor<2x1xi32>
// CHECK: scf.if %{{.+}} -> (tensor<5x3xf32>) {
// CHECK: scf.for %[[W:.+]] = %{{.+}} to %c3 step %{{.+}} iter_args(%[[ROW:.+]] = %[[ACC]]) -> (tensor<5x3xf32>) {
// CHECK-NOT: tensor.extract %arg1
// CHECK: tensor.extract %arg2[%[[N]], %[[W]]] : tensor<2x3xf32>
// CHECK: arith.addf
// CHECK: tensor.insert %{{.+}} into %[[ROW]][%{{.+}}, %[[W]]] : tensor<5x3xf32>
func.func @scatter_add_rows(%x: tensor<5x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %r = jaxc.scatter %x[%idx], %u update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = jaxc.add %old, %new : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %r : tensor<5x3xf32>
}

// -----

// scatter whose update computation has an op without a scalar rule
// (jaxc.select): the region moves into the loop and is lowered there, as
// generics on 0-d tensors.
// CHECK-LABEL: func.func @scatter_select
// CHECK: scf.if %{{.+}} -> (tensor<5xf32>) {
// CHECK: tensor.from_elements %{{.+}} : tensor<f32>
// CHECK: linalg.generic {{.+}} iterator_types = []
// CHECK: arith.select
func.func @scatter_select(%x: tensor<5xf32>, %idx: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %r = jaxc.scatter %x[%idx], %u update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %p = jaxc.compare gt, %new, %old : tensor<f32>
    %s = jaxc.select %p, %new, %old : tensor<i1>, tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %r : tensor<5xf32>
}

// -----

// scatter with no updates: the result is the operand, and the update
// computation goes away with the op (its jaxc.add is never lowered).
// CHECK-LABEL: func.func @scatter_no_updates
// CHECK-SAME: (%[[X:[^:]+]]: tensor<0x3xf32>
// CHECK-NOT: scf.for
// CHECK-NOT: jaxc.
// CHECK: return %[[X]] : tensor<0x3xf32>
func.func @scatter_no_updates(%x: tensor<0x3xf32>, %idx: tensor<2x1xi32>, %u: tensor<0x2xf32>) -> tensor<0x3xf32> {
  %r = jaxc.scatter %x[%idx], %u update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1 : (tensor<0x3xf32>, tensor<2x1xi32>, tensor<0x2xf32>) -> tensor<0x3xf32> {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    %s = jaxc.add %old, %new : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %r : tensor<0x3xf32>
}

// -----

// sort: a stable bottom-up merge sort: 2 passes (4 = 2^2), made as one step
// that merges the input into a scratch copy of it (runs of width 1 << 2k) and
// back (width 2 << 2k), so each tensor keeps its place in the loop (swapped,
// bufferization copied both whole tensors per pass); one merge loop per pair
// of runs carrying the two read positions.
// CHECK-LABEL: func.func @sort
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %c1{{.*}} step %{{.+}} iter_args(%[[IN:.+]] = %arg0, %[[SCRATCH:.+]] = %arg0) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK: %[[K2:.+]] = arith.shli %[[K]], %{{.+}} : index
// CHECK: %[[W:.+]] = arith.shli %{{.+}}, %[[K2]] : index
// CHECK: scf.for %[[S:.+]] = %{{.+}} to %c4 step %{{.+}} iter_args(%{{.+}} = %[[SCRATCH]])
// CHECK: scf.for %{{.+}} = %[[S]] to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[S]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (index, index, tensor<4xf32>) {
// CHECK: arith.bitcast %{{.+}} : f32 to i32
// CHECK: tensor.insert
// CHECK: scf.for %{{.+}} = %{{.+}} to %c4{{[_0-9]*}} step %{{.+}} iter_args(%{{.+}} = %[[IN]])
func.func @sort(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = jaxc.sort(%x), dim = 0, num_keys = 1 stable : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// conv_general_dilated: one generic, window offsets in the lhs map.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 + d4)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
func.func @conv(%x: tensor<1x2x5xf32>, %w: tensor<3x2x2xf32>) -> tensor<1x3x4xf32> {
  %y = jaxc.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0], lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2], out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1 : (tensor<1x2x5xf32>, tensor<3x2x2xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// scan: an scf.for over the leading axis; x slices are rank-reducing.
// CHECK-LABEL: func.func @scan
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[C:.+]] = %{{.+}}) -> (tensor<f32>) {
// CHECK-NEXT: %[[X:.+]] = tensor.extract_slice %{{.+}}[%[[I]]] [1] [1] : tensor<3xf32> to tensor<f32>
// CHECK: arith.addf
// CHECK: scf.yield
func.func @scan(%xs: tensor<3xf32>) -> tensor<f32> {
  %c0 = jaxc.constant dense<0.0> : tensor<f32>
  %c = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<3xf32>) length = 3 -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %s : tensor<f32>
  }
  return %c : tensor<f32>
}

// -----

// threefry2x32: one generic; 20 rounds of add/rotate/xor on i32 words
// (unsigned types become signless).
// CHECK-LABEL: func.func @threefry
// CHECK-SAME: (%{{[^:]+}}: tensor<i32> {{.*}}, %{{[^:]+}}: tensor<4xi32>
// CHECK: linalg.generic
// CHECK-COUNT-20: arith.shli
// CHECK: linalg.yield
func.func @threefry(%k: tensor<ui32>, %x: tensor<4xui32>) -> tensor<4xui32> {
  %a, %b = jaxc.threefry2x32 %k, %k, %x, %x : tensor<ui32>, tensor<4xui32>
  return %a : tensor<4xui32>
}

// -----

// A rank-0 transpose is its operand (an empty permutation has no linalg.transpose).
// CHECK-LABEL: func.func @transpose_rank0
// CHECK-SAME: (%[[X:[^:]+]]: tensor<f32>
// CHECK-NEXT: return %[[X]] : tensor<f32>
func.func @transpose_rank0(%x: tensor<f32>) -> tensor<f32> {
  %t = jaxc.transpose %x, perm = [] : tensor<f32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// A dot_general without contracting dims (an outer product) is a plain product
// into an empty tensor: no fill, no accumulation (an all-parallel generic that
// reads its init is miscompiled once fused into a broadcasting consumer).
// CHECK-LABEL: func.func @outer_product
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @outer_product(%a: tensor<3xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %o = jaxc.dot_general %a, %b, batch = [] x [], contract = [] x [] : (tensor<3xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// complex elements: each op becomes the complex dialect's scalar op in the
// generic's body (mul is XLA's (ac - bd) + (ad + bc)i on the parts); a complex
// constant is complex.create of two real constants (the Python bindings
// cannot build a complex arith.constant).
// CHECK-LABEL: func.func @complex_ops
// CHECK-SAME: (%[[Z:[^:]+]]: tensor<4xcomplex<f32>> {{.*}}, %[[X:[^:]+]]: tensor<4xf32>
// CHECK-DAG: %[[RE:.+]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[IM:.+]] = arith.constant dense<-2.000000e+00> : tensor<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[RE]], %[[IM]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: complex.create %{{.+}}, %{{.+}} : complex<f32>
// CHECK: %[[AR:.+]] = complex.re %[[A:[^ ]+]] : complex<f32>
// CHECK-NEXT: %[[AI:.+]] = complex.im %[[A]] : complex<f32>
// CHECK-NEXT: %[[BR:.+]] = complex.re %[[B:[^ ]+]] : complex<f32>
// CHECK-NEXT: %[[BI:.+]] = complex.im %[[B]] : complex<f32>
// CHECK-NEXT: %[[RR:.+]] = arith.mulf %[[AR]], %[[BR]] : f32
// CHECK-NEXT: %[[II:.+]] = arith.mulf %[[AI]], %[[BI]] : f32
// CHECK-NEXT: %[[RE:.+]] = arith.subf %[[RR]], %[[II]] : f32
// CHECK-NEXT: %[[RI:.+]] = arith.mulf %[[AR]], %[[BI]] : f32
// CHECK-NEXT: %[[IR:.+]] = arith.mulf %[[AI]], %[[BR]] : f32
// CHECK-NEXT: %[[IM:.+]] = arith.addf %[[RI]], %[[IR]] : f32
// CHECK-NEXT: complex.create %[[RE]], %[[IM]] : complex<f32>
// CHECK: complex.exp %{{.+}} : complex<f32>
// CHECK: complex.abs %{{.+}} : complex<f32>
// CHECK: complex.re %{{.+}} : complex<f32>
// CHECK: complex.create %{{.+}}, %{{.+}} : complex<f32>
func.func @complex_ops(%z: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>) {
  %k = jaxc.constant dense<(1.0, -2.0)> : tensor<4xcomplex<f32>>
  %m = jaxc.mul %z, %k : tensor<4xcomplex<f32>>
  %e = jaxc.exp %m : tensor<4xcomplex<f32>>
  %a = jaxc.abs %e : tensor<4xcomplex<f32>>
  %r = jaxc.real %e : tensor<4xcomplex<f32>>
  %c = jaxc.convert %x : tensor<4xf32> -> tensor<4xcomplex<f32>>
  return %a, %r, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>
}

// -----

// An ordering of complex numbers is lexicographic: real parts, then imaginary.
// CHECK-LABEL: func.func @complex_less
// CHECK: %[[RA:.+]] = complex.re %[[A:[^ ]+]] : complex<f64>
// CHECK: %[[RB:.+]] = complex.re %[[B:[^ ]+]] : complex<f64>
// CHECK: %[[IA:.+]] = complex.im %[[A]] : complex<f64>
// CHECK: %[[IB:.+]] = complex.im %[[B]] : complex<f64>
// CHECK: %[[LT:.+]] = arith.cmpf olt, %[[RA]], %[[RB]] : f64
// CHECK: %[[EQ:.+]] = arith.cmpf oeq, %[[RA]], %[[RB]] : f64
// CHECK: %[[ILT:.+]] = arith.cmpf olt, %[[IA]], %[[IB]] : f64
// CHECK: %[[BOTH:.+]] = arith.andi %[[EQ]], %[[ILT]] : i1
// CHECK: arith.ori %[[LT]], %[[BOTH]] : i1
func.func @complex_less(%a: tensor<3xcomplex<f64>>, %b: tensor<3xcomplex<f64>>) -> tensor<3xi1> {
  %0 = jaxc.compare lt, %a, %b : tensor<3xcomplex<f64>>
  return %0 : tensor<3xi1>
}
