// Round-trip tests for the transformation requests jvp, vjp, vmap and the
// custom-derivative calls; every symbol names a func.func in this file.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.sin %[[X]] : tensor<f32>
// CHECK-NEXT: return %[[Y]] : tensor<f32>
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %y = jaxc.sin %x : tensor<f32>
  return %y : tensor<f32>
}

// CHECK-LABEL: func.func @g(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf64>, %[[W:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[W]] : tensor<3xf64>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.reduce sum %[[P]], dims = [0] : tensor<3xf64> -> tensor<f64>
// CHECK-NEXT: return %[[S]], %[[P]] : tensor<f64>, tensor<3xf64>
func.func @g(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %p = jaxc.mul %x, %w : tensor<3xf64>
  %s = jaxc.reduce sum %p, dims = [0] : tensor<3xf64> -> tensor<f64>
  return %s, %p : tensor<f64>, tensor<3xf64>
}

// Results: the outputs, then their tangents.
// CHECK-LABEL: func.func @jvp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[X_DOT:[a-z0-9_]+]]: tensor<f32>, %[[A:[a-z0-9_]+]]: tensor<3xf64>, %[[B:[a-z0-9_]+]]: tensor<3xf64>, %[[A_DOT:[a-z0-9_]+]]: tensor<3xf64>, %[[B_DOT:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]]:2 = jaxc.jvp @f(%[[X]]) tangents(%[[X_DOT]]) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: %[[Z:[a-z0-9_]+]]:4 = jaxc.jvp @g(%[[A]], %[[B]]) tangents(%[[A_DOT]], %[[B_DOT]]) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>)
// CHECK-NEXT: return %[[Y]]#0, %[[Y]]#1, %[[Z]]#0, %[[Z]]#1, %[[Z]]#2, %[[Z]]#3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>
func.func @jvp(%x: tensor<f32>, %x_dot: tensor<f32>, %a: tensor<3xf64>, %b: tensor<3xf64>, %a_dot: tensor<3xf64>, %b_dot: tensor<3xf64>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>) {
  %y:2 = jaxc.jvp @f(%x) tangents(%x_dot) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  %z:4 = jaxc.jvp @g(%a, %b) tangents(%a_dot, %b_dot) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>)
  return %y#0, %y#1, %z#0, %z#1, %z#2, %z#3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>
}

// Results: the outputs, then one cotangent per input.
// CHECK-LABEL: func.func @vjp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[CT:[a-z0-9_]+]]: tensor<f32>, %[[A:[a-z0-9_]+]]: tensor<3xf64>, %[[B:[a-z0-9_]+]]: tensor<3xf64>, %[[S_BAR:[a-z0-9_]+]]: tensor<f64>, %[[P_BAR:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]]:2 = jaxc.vjp @f(%[[X]]) cotangents(%[[CT]]) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: %[[Z:[a-z0-9_]+]]:4 = jaxc.vjp @g(%[[A]], %[[B]]) cotangents(%[[S_BAR]], %[[P_BAR]]) : (tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: return %[[Y]]#0, %[[Y]]#1, %[[Z]]#0, %[[Z]]#1, %[[Z]]#2, %[[Z]]#3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
func.func @vjp(%x: tensor<f32>, %ct: tensor<f32>, %a: tensor<3xf64>, %b: tensor<3xf64>, %s_bar: tensor<f64>, %p_bar: tensor<3xf64>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %y:2 = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  %z:4 = jaxc.vjp @g(%a, %b) cotangents(%s_bar, %p_bar) : (tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %y#0, %y#1, %z#0, %z#1, %z#2, %z#3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// in_axes -1: not batched; out_axes place the batch dimension; axis_name is
// optional.
// CHECK-LABEL: func.func @vmap(
// CHECK-SAME: %[[XS:[a-z0-9_]+]]: tensor<8x3xf64>, %[[W:[a-z0-9_]+]]: tensor<3xf64>, %[[WS:[a-z0-9_]+]]: tensor<3x8xf64>, %[[F8:[a-z0-9_]+]]: tensor<8xf32>) -> (tensor<8xf64>, tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<8xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.vmap @g(%[[XS]], %[[W]]) in_axes = [0, -1] out_axes = [0, 1] axis_size = 8 : (tensor<8x3xf64>, tensor<3xf64>) -> (tensor<8xf64>, tensor<3x8xf64>)
// CHECK-NEXT: %[[S:[a-z0-9_]+]]:2 = jaxc.vmap @g(%[[XS]], %[[WS]]) in_axes = [0, 1] out_axes = [0, 0] axis_size = 8 axis_name = "batch" : (tensor<8x3xf64>, tensor<3x8xf64>) -> (tensor<8xf64>, tensor<8x3xf64>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = jaxc.vmap @f(%[[F8]]) in_axes = [0] out_axes = [0] axis_size = 8 axis_name = "i" : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[S]]#0, %[[S]]#1, %[[T]] : tensor<8xf64>, tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<8xf32>
func.func @vmap(%xs: tensor<8x3xf64>, %w: tensor<3xf64>, %ws: tensor<3x8xf64>, %f8: tensor<8xf32>) -> (tensor<8xf64>, tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<8xf32>) {
  %r:2 = jaxc.vmap @g(%xs, %w) in_axes = [0, -1] out_axes = [0, 1] axis_size = 8 : (tensor<8x3xf64>, tensor<3xf64>) -> (tensor<8xf64>, tensor<3x8xf64>)
  %s:2 = jaxc.vmap @g(%xs, %ws) in_axes = [0, 1] out_axes = [0, 0] axis_size = 8 axis_name = "batch" : (tensor<8x3xf64>, tensor<3x8xf64>) -> (tensor<8xf64>, tensor<8x3xf64>)
  %t = jaxc.vmap @f(%f8) in_axes = [0] out_axes = [0] axis_size = 8 axis_name = "i" : (tensor<8xf32>) -> tensor<8xf32>
  return %r#0, %r#1, %s#0, %s#1, %t : tensor<8xf64>, tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<8xf32>
}

// The jvp rule maps (primals, tangents) to (outputs, tangents).
// CHECK-LABEL: func.func @f_jvp_rule(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[X_DOT:[a-z0-9_]+]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.sin %[[X]] : tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.cos %[[X]] : tensor<f32>
// CHECK-NEXT: %[[Y_DOT:[a-z0-9_]+]] = jaxc.mul %[[C]], %[[X_DOT]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[Y_DOT]] : tensor<f32>, tensor<f32>
func.func @f_jvp_rule(%x: tensor<f32>, %x_dot: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y = jaxc.sin %x : tensor<f32>
  %c = jaxc.cos %x : tensor<f32>
  %y_dot = jaxc.mul %c, %x_dot : tensor<f32>
  return %y, %y_dot : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @custom_jvp_call(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.custom_jvp_call @f(%[[X]]) jvp = @f_jvp_rule : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %[[Y]] : tensor<f32>
func.func @custom_jvp_call(%x: tensor<f32>) -> tensor<f32> {
  %y = jaxc.custom_jvp_call @f(%x) jvp = @f_jvp_rule : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// fwd maps the inputs to (outputs, residuals); bwd maps (residuals, output
// cotangents) to the input cotangents.
// CHECK-LABEL: func.func @g_fwd(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf64>, %[[W:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[W]] : tensor<3xf64>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.reduce sum %[[P]], dims = [0] : tensor<3xf64> -> tensor<f64>
// CHECK-NEXT: return %[[S]], %[[P]], %[[X]], %[[W]] : tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
func.func @g_fwd(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %p = jaxc.mul %x, %w : tensor<3xf64>
  %s = jaxc.reduce sum %p, dims = [0] : tensor<3xf64> -> tensor<f64>
  return %s, %p, %x, %w : tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// CHECK-LABEL: func.func @g_bwd(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf64>, %[[W:[a-z0-9_]+]]: tensor<3xf64>, %[[S_BAR:[a-z0-9_]+]]: tensor<f64>, %[[P_BAR:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[X_BAR:[a-z0-9_]+]] = jaxc.mul %[[W]], %[[P_BAR]] : tensor<3xf64>
// CHECK-NEXT: %[[W_BAR:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[P_BAR]] : tensor<3xf64>
// CHECK-NEXT: return %[[X_BAR]], %[[W_BAR]] : tensor<3xf64>, tensor<3xf64>
func.func @g_bwd(%x: tensor<3xf64>, %w: tensor<3xf64>, %s_bar: tensor<f64>, %p_bar: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %x_bar = jaxc.mul %w, %p_bar : tensor<3xf64>
  %w_bar = jaxc.mul %x, %p_bar : tensor<3xf64>
  return %x_bar, %w_bar : tensor<3xf64>, tensor<3xf64>
}

// CHECK-LABEL: func.func @custom_vjp_call(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf64>, %[[W:[a-z0-9_]+]]: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.custom_vjp_call @g(%[[X]], %[[W]]) fwd = @g_fwd bwd = @g_bwd : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<f64>, tensor<3xf64>
func.func @custom_vjp_call(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %r:2 = jaxc.custom_vjp_call @g(%x, %w) fwd = @g_fwd bwd = @g_bwd : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<f64>, tensor<3xf64>
}

// CHECK-LABEL: func.func @remat(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.remat @f(%[[X]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.remat @f(%[[X]]) policy = "dots_saveable" : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.remat @f(%[[X]]) policy = "save_only_these_names" names = ["h", "z"] {prevent_cse = false} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = jaxc.checkpoint_name %[[A]] name = "h" : tensor<f32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.optimization_barrier %[[B]], %[[C]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: return %[[N]], %[[R]]#0, %[[R]]#1
func.func @remat(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = jaxc.remat @f(%x) policy = "nothing_saveable" : (tensor<f32>) -> tensor<f32>
  %b = jaxc.remat @f(%x) policy = "dots_saveable" : (tensor<f32>) -> tensor<f32>
  %c = jaxc.remat @f(%x) policy = "save_only_these_names" names = ["h", "z"] {prevent_cse = false} : (tensor<f32>) -> tensor<f32>
  %n = jaxc.checkpoint_name %a name = "h" : tensor<f32>
  %r:2 = jaxc.optimization_barrier %b, %c : tensor<f32>, tensor<f32>
  return %n, %r#0, %r#1 : tensor<f32>, tensor<f32>, tensor<f32>
}
