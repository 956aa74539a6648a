// Invalid randomness ops: threefry2x32 and random_bits.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

// threefry2x32 infers its results while parsing: one error per case.
func.func @threefry_key_shape(%k: tensor<3xui32>, %x: tensor<4xui32>) {
  // expected-error @+1 {{'jaxc.threefry2x32' op keys 'tensor<3xui32>' must be 0-d or have the shape of x0 'tensor<4xui32>'}}
  %0:2 = jaxc.threefry2x32 %k, %k, %x, %x : tensor<3xui32>, tensor<4xui32>
  return
}

// -----

func.func @threefry_dynamic_key(%k: tensor<?xui32>, %x: tensor<4xui32>) {
  // expected-error @+1 {{'jaxc.threefry2x32' op operand 'key0' must be a statically shaped tensor, got 'tensor<?xui32>'}}
  %0:2 = jaxc.threefry2x32 %k, %k, %x, %x : tensor<?xui32>, tensor<4xui32>
  return
}

// -----

func.func @threefry_dynamic_counter(%k: tensor<ui32>, %x: tensor<?xui32>) {
  // expected-error @+1 {{'jaxc.threefry2x32' op operand 'x0' must be a statically shaped tensor, got 'tensor<?xui32>'}}
  %0:2 = jaxc.threefry2x32 %k, %k, %x, %x : tensor<ui32>, tensor<?xui32>
  return
}

// -----

func.func @threefry_key1_differs(%k0: tensor<ui32>, %k1: tensor<4xui32>, %x: tensor<4xui32>) {
  // expected-error @+2 {{'jaxc.threefry2x32' op key1 must have the type of key0 ('tensor<ui32>') and x1 the type of x0 ('tensor<4xui32>')}}
  // expected-error @+1 {{'jaxc.threefry2x32' op failed to infer returned types}}
  %0:2 = "jaxc.threefry2x32"(%k0, %k1, %x, %x) : (tensor<ui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}

// -----

func.func @threefry_x1_differs(%k: tensor<ui32>, %x0: tensor<4xui32>, %x1: tensor<2x2xui32>) {
  // expected-error @+2 {{'jaxc.threefry2x32' op key1 must have the type of key0 ('tensor<ui32>') and x1 the type of x0 ('tensor<4xui32>')}}
  // expected-error @+1 {{'jaxc.threefry2x32' op failed to infer returned types}}
  %0:2 = "jaxc.threefry2x32"(%k, %k, %x0, %x1) : (tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<2x2xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}

// -----

func.func @threefry_signed_key(%k: tensor<i32>, %x: tensor<4xui32>) {
  // expected-error @+1 {{'jaxc.threefry2x32' op operand #0 must be statically shaped tensor of 32-bit unsigned integer values, but got 'tensor<i32>'}}
  %0:2 = jaxc.threefry2x32 %k, %k, %x, %x : tensor<i32>, tensor<4xui32>
  return
}

// -----

func.func @threefry_three_operands(%k: tensor<ui32>, %x: tensor<4xui32>) {
  // expected-error @+1 {{'jaxc.threefry2x32' op expected 4 operands, but found 3}}
  %0:2 = "jaxc.threefry2x32"(%k, %k, %x) : (tensor<ui32>, tensor<ui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}

// -----

func.func @threefry_wrong_result_type(%k: tensor<ui32>, %x: tensor<4xui32>) {
  // expected-error @+2 {{'jaxc.threefry2x32' op inferred type(s) 'tensor<4xui32>', 'tensor<4xui32>' are incompatible with return type(s) of operation 'tensor<4xui32>', 'tensor<2xui32>'}}
  // expected-error @+1 {{'jaxc.threefry2x32' op failed to infer returned types}}
  %0:2 = "jaxc.threefry2x32"(%k, %k, %x, %x) : (tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<2xui32>)
  return
}

// -----

func.func @random_bits_key_shape(%key: tensor<4xui32>) {
  // expected-error @+1 {{'jaxc.random_bits' op key must be a raw threefry key tensor<2xui32>, got 'tensor<4xui32>'}}
  %0 = jaxc.random_bits %key : tensor<4xui32> -> tensor<3x4xui32>
  return
}

// -----

func.func @random_bits_key_0d(%key: tensor<ui32>) {
  // expected-error @+1 {{'jaxc.random_bits' op key must be a raw threefry key tensor<2xui32>, got 'tensor<ui32>'}}
  %0 = jaxc.random_bits %key : tensor<ui32> -> tensor<8xui8>
  return
}

// -----

func.func @random_bits_signed_key(%key: tensor<2xi32>) {
  // expected-error @+1 {{'jaxc.random_bits' op operand #0 must be statically shaped tensor of 32-bit unsigned integer values, but got 'tensor<2xi32>'}}
  %0 = jaxc.random_bits %key : tensor<2xi32> -> tensor<3xui32>
  return
}

// -----

func.func @random_bits_signed_result(%key: tensor<2xui32>) {
  // expected-error @+1 {{'jaxc.random_bits' op result #0 must be statically shaped tensor of unsigned integer (ui8..ui64) values, but got 'tensor<3xi32>'}}
  %0 = jaxc.random_bits %key : tensor<2xui32> -> tensor<3xi32>
  return
}

// -----

func.func @random_bits_float_result(%key: tensor<2xui32>) {
  // expected-error @+1 {{'jaxc.random_bits' op result #0 must be statically shaped tensor of unsigned integer (ui8..ui64) values, but got 'tensor<3xf32>'}}
  %0 = jaxc.random_bits %key : tensor<2xui32> -> tensor<3xf32>
  return
}
