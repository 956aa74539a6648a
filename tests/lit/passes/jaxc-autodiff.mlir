// jaxc-autodiff: jvp/vjp requests become derivative code (then jaxc-cleanup).
// RUN: jaxc-opt %s --split-input-file --pass-pipeline='builtin.module(jaxc-autodiff,jaxc-cleanup)' | FileCheck %s

// A chain of elementwise ops: one forward sweep, then the adjoints in
// reverse; d/dx exp(sin x) * x = exp(sin x) + x exp(sin x) cos x.
// CHECK-LABEL: func.func @chain_vjp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3xf32>, %[[CT:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[S:.+]] = jaxc.sin %[[X]] : tensor<3xf32>
// CHECK-NEXT: %[[E:.+]] = jaxc.exp %[[S]] : tensor<3xf32>
// CHECK-NEXT: %[[A:.+]] = jaxc.mul %[[CT]], %[[X]] : tensor<3xf32>
// CHECK-NEXT: %[[B:.+]] = jaxc.mul %[[CT]], %[[E]] : tensor<3xf32>
// CHECK-NEXT: %[[C:.+]] = jaxc.mul %[[A]], %[[E]] : tensor<3xf32>
// CHECK-NEXT: %[[COS:.+]] = jaxc.cos %[[X]] : tensor<3xf32>
// CHECK-NEXT: %[[D:.+]] = jaxc.mul %[[C]], %[[COS]] : tensor<3xf32>
// CHECK-NEXT: %[[R:.+]] = jaxc.add %[[B]], %[[D]] : tensor<3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
// CHECK-NOT: func.func private
func.func private @chain(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = jaxc.sin %x : tensor<3xf32>
  %1 = jaxc.exp %0 : tensor<3xf32>
  %2 = jaxc.mul %1, %x : tensor<3xf32>
  return %2 : tensor<3xf32>
}
func.func @chain_vjp(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %y, %dx = jaxc.vjp @chain(%x) cotangents(%ct) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<3xf32>
}

// -----

// dot_general: the adjoint of each operand is one dot_general (an outer
// product for the matrix, a vector-matrix product for the vector); forward
// mode is the sum of two.
// CHECK-LABEL: func.func @matvec_vjp
// CHECK-SAME: (%[[W:[^:]+]]: tensor<2x3xf32>, %[[X:[^:]+]]: tensor<3xf32>, %[[CT:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: %[[DW:.+]] = jaxc.dot_general %[[CT]], %[[X]], batch = [] x [], contract = [] x [] : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.+]] = jaxc.dot_general %[[CT]], %[[W]], batch = [] x [], contract = [0] x [0] : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[DW]], %[[DX]]
// CHECK-LABEL: func.func @matvec_jvp
// CHECK-SAME: (%[[W:[^:]+]]: tensor<2x3xf32>, %[[X:[^:]+]]: tensor<3xf32>, %[[TW:[^:]+]]: tensor<2x3xf32>, %[[TX:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[A:.+]] = jaxc.dot_general %[[TW]], %[[X]]
// CHECK-NEXT: %[[B:.+]] = jaxc.dot_general %[[W]], %[[TX]]
// CHECK-NEXT: %[[T:.+]] = jaxc.add %[[A]], %[[B]] : tensor<2xf32>
// CHECK-NEXT: return %[[T]] : tensor<2xf32>
func.func private @matvec(%w: tensor<2x3xf32>, %x: tensor<3xf32>) -> tensor<2xf32> {
  %0 = jaxc.dot_general %w, %x, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @matvec_vjp(%w: tensor<2x3xf32>, %x: tensor<3xf32>, %ct: tensor<2xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %y, %dw, %dx = jaxc.vjp @matvec(%w, %x) cotangents(%ct) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2x3xf32>, tensor<3xf32>)
  return %dw, %dx : tensor<2x3xf32>, tensor<3xf32>
}
func.func @matvec_jvp(%w: tensor<2x3xf32>, %x: tensor<3xf32>, %tw: tensor<2x3xf32>, %tx: tensor<3xf32>) -> tensor<2xf32> {
  %y, %t = jaxc.jvp @matvec(%w, %x) tangents(%tw, %tx) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %t : tensor<2xf32>
}

// -----

// A sum over a dimension: its adjoint broadcasts the cotangent back.
// CHECK-LABEL: func.func @total_vjp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[CT:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: %[[B:.+]] = jaxc.broadcast_in_dim %[[CT]], dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[B]] : tensor<2x3xf32>
func.func private @total(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = jaxc.reduce sum %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @total_vjp(%x: tensor<2x3xf32>, %ct: tensor<2xf32>) -> tensor<2x3xf32> {
  %y, %dx = jaxc.vjp @total(%x) cotangents(%ct) : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2x3xf32>)
  return %dx : tensor<2x3xf32>
}

// -----

// A strided slice: its adjoint pads the cotangent back with zeros (the
// interior padding undoes the stride).
// CHECK-LABEL: func.func @window_vjp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5xf32>, %[[CT:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: %[[ZERO:.+]] = jaxc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:.+]] = jaxc.pad %[[CT]], %[[ZERO]], low = [1], high = [1], interior = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>
// CHECK-NEXT: return %[[DX]] : tensor<5xf32>
func.func private @window(%x: tensor<5xf32>) -> tensor<2xf32> {
  %0 = jaxc.slice %x, start = [1], limit = [5], strides = [2] : tensor<5xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @window_vjp(%x: tensor<5xf32>, %ct: tensor<2xf32>) -> tensor<5xf32> {
  %y, %dx = jaxc.vjp @window(%x) cotangents(%ct) : (tensor<5xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<5xf32>)
  return %dx : tensor<5xf32>
}

// -----

// cond in forward mode: one cond carrying (operand, tangent); each branch is
// the jvp of the original branch (a request on the outlined branch, expanded
// in the next round). The boolean predicate gets no tangent.
// CHECK-LABEL: func.func @pick_jvp
// CHECK-SAME: (%[[P:[^:]+]]: tensor<i1>, %[[X:[^:]+]]: tensor<f32>, %[[TP:[^:]+]]: tensor<i1>, %[[T:[^:]+]]: tensor<f32>)
// CHECK-NEXT: %[[R:.+]]:2 = jaxc.cond %[[P]](%[[X]], %[[T]]) : tensor<i1>, (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<f32>, %[[TA:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[S:.+]] = jaxc.sin %[[A]]
// CHECK-NEXT: %[[C:.+]] = jaxc.cos %[[A]]
// CHECK-NEXT: %[[TS:.+]] = jaxc.mul %[[TA]], %[[C]]
// CHECK-NEXT: jaxc.yield %[[S]], %[[TS]]
// CHECK: ^bb0(%[[B:[^:]+]]: tensor<f32>, %[[TB:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[M:.+]] = jaxc.mul %[[B]], %[[B]]
// CHECK-NEXT: %[[P1:.+]] = jaxc.mul %[[TB]], %[[B]]
// CHECK-NEXT: %[[TM:.+]] = jaxc.add %[[P1]], %[[P1]]
// CHECK-NEXT: jaxc.yield %[[M]], %[[TM]]
// CHECK: return %[[R]]#1 : tensor<f32>
// CHECK-NOT: func.func private
func.func private @pick(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = jaxc.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    %n = jaxc.sin %a : tensor<f32>
    jaxc.yield %n : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    %m = jaxc.mul %a, %a : tensor<f32>
    jaxc.yield %m : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @pick_jvp(%p: tensor<i1>, %x: tensor<f32>, %tp: tensor<i1>, %t: tensor<f32>) -> tensor<f32> {
  %y, %ty = jaxc.jvp @pick(%p, %x) tangents(%tp, %t) : (tensor<i1>, tensor<f32>, tensor<i1>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %ty : tensor<f32>
}

// -----

// top_k: the values' tangent is the operand's at the indices (a gather on
// the rows flattened, position row * 5 + index); the adjoint adds the
// cotangent there (a scatter-add into zeros, the indices unique).
// CHECK-LABEL: func.func @best_vjp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x5xf32>, %[[CT:[^:]+]]: tensor<2x3xf32>)
// CHECK: %[[V:.+]], %[[I:.+]] = jaxc.top_k %[[X]], k = 3 : tensor<2x5xf32>
// CHECK: %[[ROW:.+]] = jaxc.iota dim = 0 : tensor<2x3xi32>
// CHECK: %[[AT:.+]] = jaxc.add %{{.+}}, %[[I]] : tensor<2x3xi32>
// CHECK: %[[S:.+]] = jaxc.scatter %{{.+}}[%{{.+}}], %{{.+}} update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 unique_indices : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10xf32>
// CHECK: jaxc.add
// CHECK: %[[DX:.+]] = jaxc.reshape %[[S]] : (tensor<10xf32>) -> tensor<2x5xf32>
// CHECK: return %[[DX]]
// CHECK-LABEL: func.func @best_jvp
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x5xf32>, %[[T:[^:]+]]: tensor<2x5xf32>)
// CHECK: %[[V:.+]], %[[I:.+]] = jaxc.top_k %[[X]], k = 3 : tensor<2x5xf32>
// CHECK: %[[FLAT:.+]] = jaxc.reshape %[[T]] : (tensor<2x5xf32>) -> tensor<10xf32>
// CHECK: %[[G:.+]] = jaxc.gather %[[FLAT]][%{{.+}}] offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1] : (tensor<10xf32>, tensor<6x1xi32>) -> tensor<6xf32>
// CHECK: %[[DY:.+]] = jaxc.reshape %[[G]] : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK: return %[[DY]]
func.func private @best(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %v, %i = jaxc.top_k %x, k = 3 : tensor<2x5xf32>
  return %v : tensor<2x3xf32>
}
func.func @best_vjp(%x: tensor<2x5xf32>, %ct: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %y, %dx = jaxc.vjp @best(%x) cotangents(%ct) : (tensor<2x5xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
  return %dx : tensor<2x5xf32>
}
func.func @best_jvp(%x: tensor<2x5xf32>, %t: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %y, %dy = jaxc.jvp @best(%x) tangents(%t) : (tensor<2x5xf32>, tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %dy : tensor<2x3xf32>
}
