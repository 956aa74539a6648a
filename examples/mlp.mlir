// A two-layer perceptron and its loss, written by hand in the jaxc dialect.
// `make demo` verifies it, prints it, and canonicalizes it with jaxc-opt.
module {
  // relu(x @ w1 + b1) @ w2 + b2 for a batch of 8 inputs of width 4.
  func.func @mlp(%x: tensor<8x4xf32>, %w1: tensor<4x16xf32>, %b1: tensor<16xf32>,
                 %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> tensor<8x3xf32> {
    %h = jaxc.dot_general %x, %w1, batch = [] x [], contract = [1] x [0]
           : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    %bb1 = jaxc.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %h1 = jaxc.add %h, %bb1 : tensor<8x16xf32>
    %zero = jaxc.constant dense<0.0> : tensor<8x16xf32>
    %a = jaxc.max %h1, %zero : tensor<8x16xf32>
    %o = jaxc.dot_general %a, %w2, batch = [] x [], contract = [1] x [0]
           : (tensor<8x16xf32>, tensor<16x3xf32>) -> tensor<8x3xf32>
    %bb2 = jaxc.broadcast_in_dim %b2, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
    %y = jaxc.add %o, %bb2 : tensor<8x3xf32>
    return %y : tensor<8x3xf32>
  }

  // Mean squared error against targets, with a redundant `* 1` and a double
  // transpose that canonicalization removes.
  func.func @loss(%x: tensor<8x4xf32>, %w1: tensor<4x16xf32>, %b1: tensor<16xf32>,
                  %w2: tensor<16x3xf32>, %b2: tensor<3xf32>, %t: tensor<8x3xf32>) -> tensor<f32> {
    %y = func.call @mlp(%x, %w1, %b1, %w2, %b2)
           : (tensor<8x4xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
    %yt = jaxc.transpose %y, perm = [1, 0] : tensor<8x3xf32> -> tensor<3x8xf32>
    %ytt = jaxc.transpose %yt, perm = [1, 0] : tensor<3x8xf32> -> tensor<8x3xf32>
    %d = jaxc.sub %ytt, %t : tensor<8x3xf32>
    %one = jaxc.constant dense<1.0> : tensor<8x3xf32>
    %d1 = jaxc.mul %d, %one : tensor<8x3xf32>
    %sq = jaxc.mul %d1, %d1 : tensor<8x3xf32>
    %s = jaxc.reduce sum %sq, dims = [0, 1] : tensor<8x3xf32> -> tensor<f32>
    %n = jaxc.constant dense<24.0> : tensor<f32>
    %l = jaxc.div %s, %n : tensor<f32>
    return %l : tensor<f32>
  }

  // The gradient of the loss, as a request that the jaxc-autodiff pass
  // (a later issue) expands.
  func.func @loss_grad(%x: tensor<8x4xf32>, %w1: tensor<4x16xf32>, %b1: tensor<16xf32>,
                       %w2: tensor<16x3xf32>, %b2: tensor<3xf32>, %t: tensor<8x3xf32>)
      -> (tensor<f32>, tensor<4x16xf32>) {
    %ct = jaxc.constant dense<1.0> : tensor<f32>
    %l, %gx, %gw1, %gb1, %gw2, %gb2, %gt = jaxc.vjp @loss(%x, %w1, %b1, %w2, %b2, %t) cotangents(%ct)
      : (tensor<8x4xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<f32>)
        -> (tensor<f32>, tensor<8x4xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<3xf32>, tensor<8x3xf32>)
    return %l, %gw1 : tensor<f32>, tensor<4x16xf32>
  }
}
