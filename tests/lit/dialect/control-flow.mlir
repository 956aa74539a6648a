// Round-trip tests for the region ops cond, while and scan and their
// terminator yield. Regions are isolated from above: constants they need are
// defined inside them.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// An i1 predicate picks branch 0 when false, branch 1 when true.
// CHECK-LABEL: func.func @cond_pred(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<i1>, %[[X:[a-z0-9_]+]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.cond %[[P]](%[[X]]) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<f32>):
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = jaxc.neg %[[A]] : tensor<f32>
// CHECK-NEXT: jaxc.yield %[[N]] : tensor<f32>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<f32>):
// CHECK-NEXT: jaxc.yield %[[A]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<f32>
func.func @cond_pred(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = jaxc.cond %p(%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    %n = jaxc.neg %a : tensor<f32>
    jaxc.yield %n : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jaxc.yield %a : tensor<f32>
  }
  return %r : tensor<f32>
}

// An i32 index with three branches, two operands and two results.
// CHECK-LABEL: func.func @cond_index(
// CHECK-SAME: %[[I:[a-z0-9_]+]]: tensor<i32>, %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[N:[a-z0-9_]+]]: tensor<ui8>) -> (tensor<4xf32>, tensor<ui8>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.cond %[[I]](%[[X]], %[[N]]) : tensor<i32>, (tensor<4xf32>, tensor<ui8>) -> (tensor<4xf32>, tensor<ui8>) {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<ui8>):
// CHECK-NEXT: jaxc.yield %[[A]], %[[B]] : tensor<4xf32>, tensor<ui8>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<ui8>):
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.sin %[[A]] : tensor<4xf32>
// CHECK-NEXT: jaxc.yield %[[S]], %[[B]] : tensor<4xf32>, tensor<ui8>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<ui8>):
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = jaxc.constant dense<1> : tensor<ui8>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.add %[[B]], %[[ONE]] : tensor<ui8>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = jaxc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: jaxc.yield %[[Z]], %[[C]] : tensor<4xf32>, tensor<ui8>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<ui8>
func.func @cond_index(%i: tensor<i32>, %x: tensor<4xf32>, %n: tensor<ui8>) -> (tensor<4xf32>, tensor<ui8>) {
  %r:2 = jaxc.cond %i(%x, %n) : tensor<i32>, (tensor<4xf32>, tensor<ui8>) -> (tensor<4xf32>, tensor<ui8>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<ui8>):
    jaxc.yield %a, %b : tensor<4xf32>, tensor<ui8>
  }, {
  ^bb0(%a: tensor<4xf32>, %b: tensor<ui8>):
    %s = jaxc.sin %a : tensor<4xf32>
    jaxc.yield %s, %b : tensor<4xf32>, tensor<ui8>
  }, {
  ^bb0(%a: tensor<4xf32>, %b: tensor<ui8>):
    %one = jaxc.constant dense<1> : tensor<ui8>
    %c = jaxc.add %b, %one : tensor<ui8>
    %z = jaxc.constant dense<0.000000e+00> : tensor<4xf32>
    jaxc.yield %z, %c : tensor<4xf32>, tensor<ui8>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<ui8>
}

// Other index types; no branch operands; a single branch.
// CHECK-LABEL: func.func @cond_no_operands(
// CHECK-SAME: %[[I:[a-z0-9_]+]]: tensor<ui64>, %[[J:[a-z0-9_]+]]: tensor<i8>) -> (tensor<2xi16>, tensor<f64>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.cond %[[I]]() : tensor<ui64>, () -> tensor<2xi16> {
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.constant dense<[1, 2]> : tensor<2xi16>
// CHECK-NEXT: jaxc.yield %[[A]] : tensor<2xi16>
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.iota dim = 0 : tensor<2xi16>
// CHECK-NEXT: jaxc.yield %[[B]] : tensor<2xi16>
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.cond %[[J]]() : tensor<i8>, () -> tensor<f64> {
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: jaxc.yield %[[C]] : tensor<f64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]], %[[S]] : tensor<2xi16>, tensor<f64>
func.func @cond_no_operands(%i: tensor<ui64>, %j: tensor<i8>) -> (tensor<2xi16>, tensor<f64>) {
  %r = jaxc.cond %i() : tensor<ui64>, () -> tensor<2xi16> {
    %a = jaxc.constant dense<[1, 2]> : tensor<2xi16>
    jaxc.yield %a : tensor<2xi16>
  }, {
    %b = jaxc.iota dim = 0 : tensor<2xi16>
    jaxc.yield %b : tensor<2xi16>
  }
  %s = jaxc.cond %j() : tensor<i8>, () -> tensor<f64> {
    %c = jaxc.constant dense<5.000000e-01> : tensor<f64>
    jaxc.yield %c : tensor<f64>
  }
  return %r, %s : tensor<2xi16>, tensor<f64>
}

// for i in range(10): i += 1
// CHECK-LABEL: func.func @while_count(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<i32>) -> tensor<i32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = jaxc.while(%[[X]] : tensor<i32>) cond {
// CHECK-NEXT: ^bb0(%[[I:[a-z0-9_]+]]: tensor<i32>):
// CHECK-NEXT: %[[TEN:[a-z0-9_]+]] = jaxc.constant dense<10> : tensor<i32>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = jaxc.compare lt, %[[I]], %[[TEN]] : tensor<i32>
// CHECK-NEXT: jaxc.yield %[[P]] : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[I:[a-z0-9_]+]]: tensor<i32>):
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = jaxc.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = jaxc.add %[[I]], %[[ONE]] : tensor<i32>
// CHECK-NEXT: jaxc.yield %[[N]] : tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<i32>
func.func @while_count(%x: tensor<i32>) -> tensor<i32> {
  %r = jaxc.while(%x : tensor<i32>) cond {
  ^bb0(%i: tensor<i32>):
    %ten = jaxc.constant dense<10> : tensor<i32>
    %p = jaxc.compare lt, %i, %ten : tensor<i32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %one = jaxc.constant dense<1> : tensor<i32>
    %n = jaxc.add %i, %one : tensor<i32>
    jaxc.yield %n : tensor<i32>
  }
  return %r : tensor<i32>
}

// Three carried values of different types.
// CHECK-LABEL: func.func @while_carries(
// CHECK-SAME: %[[I:[a-z0-9_]+]]: tensor<ui32>, %[[ACC:[a-z0-9_]+]]: tensor<2x3xf32>, %[[FLAG:[a-z0-9_]+]]: tensor<i1>) -> (tensor<ui32>, tensor<2x3xf32>, tensor<i1>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:3 = jaxc.while(%[[I]], %[[ACC]], %[[FLAG]] : tensor<ui32>, tensor<2x3xf32>, tensor<i1>) cond {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<ui32>, %[[B:[a-z0-9_]+]]: tensor<2x3xf32>, %[[C:[a-z0-9_]+]]: tensor<i1>):
// CHECK-NEXT: jaxc.yield %[[C]] : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: tensor<ui32>, %[[B:[a-z0-9_]+]]: tensor<2x3xf32>, %[[C:[a-z0-9_]+]]: tensor<i1>):
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.exp %[[B]] : tensor<2x3xf32>
// CHECK-NEXT: %[[NC:[a-z0-9_]+]] = jaxc.not %[[C]] : tensor<i1>
// CHECK-NEXT: jaxc.yield %[[A]], %[[E]], %[[NC]] : tensor<ui32>, tensor<2x3xf32>, tensor<i1>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2 : tensor<ui32>, tensor<2x3xf32>, tensor<i1>
func.func @while_carries(%i: tensor<ui32>, %acc: tensor<2x3xf32>, %flag: tensor<i1>) -> (tensor<ui32>, tensor<2x3xf32>, tensor<i1>) {
  %r:3 = jaxc.while(%i, %acc, %flag : tensor<ui32>, tensor<2x3xf32>, tensor<i1>) cond {
  ^bb0(%a: tensor<ui32>, %b: tensor<2x3xf32>, %c: tensor<i1>):
    jaxc.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<ui32>, %b: tensor<2x3xf32>, %c: tensor<i1>):
    %e = jaxc.exp %b : tensor<2x3xf32>
    %nc = jaxc.not %c : tensor<i1>
    jaxc.yield %a, %e, %nc : tensor<ui32>, tensor<2x3xf32>, tensor<i1>
  }
  return %r#0, %r#1, %r#2 : tensor<ui32>, tensor<2x3xf32>, tensor<i1>
}

// cumsum as a scan: the body gets the carry and one slice of xs, yields the
// new carry and one slice of ys.
// CHECK-LABEL: func.func @scan_cumsum(
// CHECK-SAME: %[[C0:[a-z0-9_]+]]: tensor<f32>, %[[XS:[a-z0-9_]+]]: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.scan init(%[[C0]] : tensor<f32>) xs(%[[XS]] : tensor<5xf32>) length = 5 -> tensor<f32>, tensor<5xf32> {
// CHECK-NEXT: ^bb0(%[[C:[a-z0-9_]+]]: tensor<f32>, %[[X:[a-z0-9_]+]]: tensor<f32>):
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = jaxc.add %[[C]], %[[X]] : tensor<f32>
// CHECK-NEXT: jaxc.yield %[[S]], %[[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<f32>, tensor<5xf32>
func.func @scan_cumsum(%c0: tensor<f32>, %xs: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
  %r:2 = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 -> tensor<f32>, tensor<5xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %s, %s : tensor<f32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<5xf32>
}

// reverse; two carries, two xs, two ys of other shapes and types.
// CHECK-LABEL: func.func @scan_reverse_many(
// CHECK-SAME: %[[C0:[a-z0-9_]+]]: tensor<i32>, %[[H0:[a-z0-9_]+]]: tensor<3xf64>, %[[XS:[a-z0-9_]+]]: tensor<4x3xf64>, %[[KS:[a-z0-9_]+]]: tensor<4xi1>) -> (tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:4 = jaxc.scan init(%[[C0]], %[[H0]] : tensor<i32>, tensor<3xf64>) xs(%[[XS]], %[[KS]] : tensor<4x3xf64>, tensor<4xi1>) length = 4 reverse -> tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8> {
// CHECK-NEXT: ^bb0(%[[C:[a-z0-9_]+]]: tensor<i32>, %[[H:[a-z0-9_]+]]: tensor<3xf64>, %[[X:[a-z0-9_]+]]: tensor<3xf64>, %[[K:[a-z0-9_]+]]: tensor<i1>):
// CHECK-NEXT: %[[H1:[a-z0-9_]+]] = jaxc.mul %[[H]], %[[X]] : tensor<3xf64>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = jaxc.constant dense<7> : tensor<2xui8>
// CHECK-NEXT: jaxc.yield %[[C]], %[[H1]], %[[H1]], %[[Y]] : tensor<i32>, tensor<3xf64>, tensor<3xf64>, tensor<2xui8>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3 : tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8>
func.func @scan_reverse_many(%c0: tensor<i32>, %h0: tensor<3xf64>, %xs: tensor<4x3xf64>, %ks: tensor<4xi1>) -> (tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8>) {
  %r:4 = jaxc.scan init(%c0, %h0 : tensor<i32>, tensor<3xf64>) xs(%xs, %ks : tensor<4x3xf64>, tensor<4xi1>) length = 4 reverse -> tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8> {
  ^bb0(%c: tensor<i32>, %h: tensor<3xf64>, %x: tensor<3xf64>, %k: tensor<i1>):
    %h1 = jaxc.mul %h, %x : tensor<3xf64>
    %y = jaxc.constant dense<7> : tensor<2xui8>
    jaxc.yield %c, %h1, %h1, %y : tensor<i32>, tensor<3xf64>, tensor<3xf64>, tensor<2xui8>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<i32>, tensor<3xf64>, tensor<4x3xf64>, tensor<4x2xui8>
}

// No xs (a fori_loop with stacked outputs); no carry; length 0.
// CHECK-LABEL: func.func @scan_edge_cases(
// CHECK-SAME: %[[C0:[a-z0-9_]+]]: tensor<bf16>, %[[XS:[a-z0-9_]+]]: tensor<0x2xi64>) -> (tensor<bf16>, tensor<3xbf16>, tensor<0x2xi64>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]]:2 = jaxc.scan init(%[[C0]] : tensor<bf16>) xs() length = 3 -> tensor<bf16>, tensor<3xbf16> {
// CHECK-NEXT: ^bb0(%[[C:[a-z0-9_]+]]: tensor<bf16>):
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = jaxc.sqrt %[[C]] : tensor<bf16>
// CHECK-NEXT: jaxc.yield %[[N]], %[[C]] : tensor<bf16>, tensor<bf16>
// CHECK-NEXT: }
// CHECK-NEXT: %[[YS:[a-z0-9_]+]] = jaxc.scan init() xs(%[[XS]] : tensor<0x2xi64>) length = 0 reverse -> tensor<0x2xi64> {
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: tensor<2xi64>):
// CHECK-NEXT: jaxc.yield %[[X]] : tensor<2xi64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[YS]] : tensor<bf16>, tensor<3xbf16>, tensor<0x2xi64>
func.func @scan_edge_cases(%c0: tensor<bf16>, %xs: tensor<0x2xi64>) -> (tensor<bf16>, tensor<3xbf16>, tensor<0x2xi64>) {
  %r:2 = jaxc.scan init(%c0 : tensor<bf16>) xs() length = 3 -> tensor<bf16>, tensor<3xbf16> {
  ^bb0(%c: tensor<bf16>):
    %n = jaxc.sqrt %c : tensor<bf16>
    jaxc.yield %n, %c : tensor<bf16>, tensor<bf16>
  }
  %ys = jaxc.scan init() xs(%xs : tensor<0x2xi64>) length = 0 reverse -> tensor<0x2xi64> {
  ^bb0(%x: tensor<2xi64>):
    jaxc.yield %x : tensor<2xi64>
  }
  return %r#0, %r#1, %ys : tensor<bf16>, tensor<3xbf16>, tensor<0x2xi64>
}

// A loop with no carried values (its condition is constant) round-trips too.
// CHECK-LABEL: func.func @while_no_carry
// CHECK-NEXT: jaxc.while() cond {
// CHECK-NEXT:   %[[P:[a-z0-9_]+]] = jaxc.constant dense<false> : tensor<i1>
// CHECK-NEXT:   jaxc.yield %[[P]] : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT:   jaxc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @while_no_carry() {
  jaxc.while() cond {
    %p = jaxc.constant dense<false> : tensor<i1>
    jaxc.yield %p : tensor<i1>
  } do {
    jaxc.yield
  }
  return
}
