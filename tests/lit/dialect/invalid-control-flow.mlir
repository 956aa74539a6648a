// Invalid control flow: cond, while, scan and their terminator jaxc.yield.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics

func.func @cond_without_branches(%i: tensor<i32>) {
  // expected-error @+1 {{'jaxc.cond' op needs at least one branch}}
  "jaxc.cond"(%i) : (tensor<i32>) -> ()
  return
}

// -----

func.func @cond_predicate_with_three_branches(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op with an i1 predicate needs exactly 2 branches (false, true), got 3}}
  %0 = jaxc.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_predicate_with_one_branch(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op with an i1 predicate needs exactly 2 branches (false, true), got 1}}
  %0 = jaxc.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_branch_arguments(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op branch #1 region takes ('tensor<f64>') but must take ('tensor<f32>')}}
  %0 = jaxc.cond %i (%x) : tensor<i32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f64>):
    %c = jaxc.constant dense<1.0> : tensor<f32>
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @cond_branch_yields_nothing(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op branch #0 region yields () but must yield ('tensor<f32>')}}
  %0 = jaxc.cond %i (%x) : tensor<i32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield
  }
  return
}

// -----

func.func @cond_branch_terminator(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op branch #0 region must end in jaxc.yield}}
  %0 = jaxc.cond %i (%x) : tensor<i32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    llvm.unreachable
  }
  return
}

// -----

func.func @cond_float_index(%i: tensor<f32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op operand #0 must be 0D tensor of jaxc integer or 1-bit signless integer values, but got 'tensor<f32>'}}
  %0 = jaxc.cond %i (%x) : tensor<f32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_index_not_0d(%i: tensor<1xi32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.cond' op operand #0 must be 0D tensor of jaxc integer or 1-bit signless integer values, but got 'tensor<1xi32>'}}
  %0 = jaxc.cond %i (%x) : tensor<1xi32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }
  return
}

// -----

// Branches are isolated from above: values enter as branch operands.
func.func @cond_uses_value_from_above(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = jaxc.cond %i () : tensor<i32>, () -> tensor<f32> {
    // expected-error @+1 {{using value defined outside the region}}
    jaxc.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_arguments(%x: tensor<i32>) {
  // expected-error @+1 {{'jaxc.while' op cond region takes ('tensor<f32>') but must take ('tensor<i32>')}}
  %0 = jaxc.while(%x : tensor<i32>) cond {
  ^bb0(%i: tensor<f32>):
    %p = jaxc.constant dense<true> : tensor<i1>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    jaxc.yield %i : tensor<i32>
  }
  return
}

// -----

func.func @while_cond_yields_non_predicate(%x: tensor<i32>) {
  // expected-error @+1 {{'jaxc.while' op cond region yields ('tensor<i32>') but must yield ('tensor<i1>')}}
  %0 = jaxc.while(%x : tensor<i32>) cond {
  ^bb0(%i: tensor<i32>):
    jaxc.yield %i : tensor<i32>
  } do {
  ^bb0(%i: tensor<i32>):
    jaxc.yield %i : tensor<i32>
  }
  return
}

// -----

func.func @while_body_arguments(%x: tensor<i32>, %y: tensor<f32>) {
  // expected-error @+1 {{'jaxc.while' op body region takes ('tensor<i32>') but must take ('tensor<i32>', 'tensor<f32>')}}
  %0:2 = jaxc.while(%x, %y : tensor<i32>, tensor<f32>) cond {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %p = jaxc.constant dense<true> : tensor<i1>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    jaxc.yield %i : tensor<i32>
  }
  return
}

// -----

func.func @while_body_yield_types(%x: tensor<i32>) {
  // expected-error @+1 {{'jaxc.while' op body region yields ('tensor<4xi32>') but must yield ('tensor<i32>')}}
  %0 = jaxc.while(%x : tensor<i32>) cond {
  ^bb0(%i: tensor<i32>):
    %p = jaxc.constant dense<true> : tensor<i1>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %c = jaxc.constant dense<0> : tensor<4xi32>
    jaxc.yield %c : tensor<4xi32>
  }
  return
}

// -----

func.func @while_results_differ_from_init(%x: tensor<i32>) {
  // expected-error @+2 {{'jaxc.while' op inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<i64>'}}
  // expected-error @+1 {{'jaxc.while' op failed to infer returned types}}
  %0 = "jaxc.while"(%x) ({
  ^bb0(%i: tensor<i32>):
    %p = jaxc.constant dense<true> : tensor<i1>
    jaxc.yield %p : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    jaxc.yield %i : tensor<i32>
  }) : (tensor<i32>) -> tensor<i64>
  return
}

// -----

func.func @scan_negative_length(%c0: tensor<f32>) {
  // expected-error @+1 {{'jaxc.scan' op length -1 must be >= 0}}
  %0 = jaxc.scan init(%c0 : tensor<f32>) xs() length = -1 -> tensor<f32> {
  ^bb0(%c: tensor<f32>):
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @scan_xs_leading_dimension(%c0: tensor<f32>, %xs: tensor<4xf32>) {
  // expected-error @+1 {{'jaxc.scan' op xs #0 of type 'tensor<4xf32>' must have a leading dimension of size length = 5}}
  %0:2 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<4xf32>) length = 5 -> tensor<f32>, tensor<5xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c, %x : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @scan_xs_0d(%c0: tensor<f32>, %xs: tensor<f32>) {
  // expected-error @+1 {{'jaxc.scan' op xs #0 of type 'tensor<f32>' must have a leading dimension of size length = 1}}
  %0 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<f32>) length = 1 -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @scan_too_few_results(%c0: tensor<f32>, %d0: tensor<i32>, %xs: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.scan' op has 1 results but 2 carried values; results are the carry followed by the ys}}
  %0 = jaxc.scan init(%c0, %d0 : tensor<f32>, tensor<i32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %d: tensor<i32>, %x: tensor<f32>):
    jaxc.yield %c, %d : tensor<f32>, tensor<i32>
  }
  return
}

// -----

func.func @scan_carry_result_type(%c0: tensor<f32>, %xs: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.scan' op result #0 of type 'tensor<f64>' must have the type of init #0 'tensor<f32>'}}
  %0 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f64> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @scan_stacked_result_leading_dimension(%c0: tensor<f32>, %xs: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.scan' op stacked result #1 of type 'tensor<4xf32>' must have a leading dimension of size length = 5}}
  %0:2 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f32>, tensor<4xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c, %x : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @scan_stacked_result_0d(%c0: tensor<f32>, %xs: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.scan' op stacked result #1 of type 'tensor<f32>' must have a leading dimension of size length = 5}}
  %0:2 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f32>, tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c, %x : tensor<f32>, tensor<f32>
  }
  return
}

// -----

// The body takes the carry and one slice of each xs.
func.func @scan_body_arguments(%c0: tensor<f32>, %xs: tensor<5x3xf32>) {
  // expected-error @+1 {{'jaxc.scan' op body region takes ('tensor<f32>', 'tensor<5x3xf32>') but must take ('tensor<f32>', 'tensor<3xf32>')}}
  %0 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5x3xf32>) length = 5 -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<5x3xf32>):
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

// The body yields the new carry and one slice of each ys.
func.func @scan_body_yields(%c0: tensor<f32>, %xs: tensor<5xf32>) {
  // expected-error @+1 {{'jaxc.scan' op body region yields ('tensor<f32>') but must yield ('tensor<f32>', 'tensor<f32>')}}
  %0:2 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f32>, tensor<5xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    jaxc.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @yield_outside_region(%x: tensor<f32>) {
  // expected-error @+1 {{'jaxc.yield' op expects parent op to be one of 'jaxc.cond, jaxc.while, jaxc.scan, jaxc.scatter'}}
  jaxc.yield %x : tensor<f32>
}
