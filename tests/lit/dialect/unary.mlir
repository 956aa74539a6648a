// Round-trip tests for the unary elementwise ops (result type = operand type,
// except is_finite, which gives i1).
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @float_unary_f32(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = jaxc.neg %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ABS:[a-z0-9_]+]] = jaxc.abs %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SIGN:[a-z0-9_]+]] = jaxc.sign %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[EXP:[a-z0-9_]+]] = jaxc.exp %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[EXP2:[a-z0-9_]+]] = jaxc.exp2 %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[EXPM1:[a-z0-9_]+]] = jaxc.expm1 %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LOG:[a-z0-9_]+]] = jaxc.log %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LOG1P:[a-z0-9_]+]] = jaxc.log1p %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SIN:[a-z0-9_]+]] = jaxc.sin %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[COS:[a-z0-9_]+]] = jaxc.cos %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[TAN:[a-z0-9_]+]] = jaxc.tan %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ASIN:[a-z0-9_]+]] = jaxc.asin %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ACOS:[a-z0-9_]+]] = jaxc.acos %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ATAN:[a-z0-9_]+]] = jaxc.atan %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SINH:[a-z0-9_]+]] = jaxc.sinh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[COSH:[a-z0-9_]+]] = jaxc.cosh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[TANH:[a-z0-9_]+]] = jaxc.tanh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ASINH:[a-z0-9_]+]] = jaxc.asinh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ACOSH:[a-z0-9_]+]] = jaxc.acosh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ATANH:[a-z0-9_]+]] = jaxc.atanh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LOGISTIC:[a-z0-9_]+]] = jaxc.logistic %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SQRT:[a-z0-9_]+]] = jaxc.sqrt %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[RSQRT:[a-z0-9_]+]] = jaxc.rsqrt %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[CBRT:[a-z0-9_]+]] = jaxc.cbrt %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[FLOOR:[a-z0-9_]+]] = jaxc.floor %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[CEIL:[a-z0-9_]+]] = jaxc.ceil %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ERF:[a-z0-9_]+]] = jaxc.erf %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ERF_INV:[a-z0-9_]+]] = jaxc.erf_inv %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[LGAMMA:[a-z0-9_]+]] = jaxc.lgamma %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[NEG]], %[[ABS]], %[[SIGN]], %[[EXP]], %[[EXP2]], %[[EXPM1]], %[[LOG]], %[[LOG1P]], %[[SIN]], %[[COS]], %[[TAN]], %[[ASIN]], %[[ACOS]], %[[ATAN]], %[[SINH]], %[[COSH]], %[[TANH]], %[[ASINH]], %[[ACOSH]], %[[ATANH]], %[[LOGISTIC]], %[[SQRT]], %[[RSQRT]], %[[CBRT]], %[[FLOOR]], %[[CEIL]], %[[ERF]], %[[ERF_INV]], %[[LGAMMA]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
func.func @float_unary_f32(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %neg = jaxc.neg %x : tensor<2x3xf32>
  %abs = jaxc.abs %x : tensor<2x3xf32>
  %sign = jaxc.sign %x : tensor<2x3xf32>
  %exp = jaxc.exp %x : tensor<2x3xf32>
  %exp2 = jaxc.exp2 %x : tensor<2x3xf32>
  %expm1 = jaxc.expm1 %x : tensor<2x3xf32>
  %log = jaxc.log %x : tensor<2x3xf32>
  %log1p = jaxc.log1p %x : tensor<2x3xf32>
  %sin = jaxc.sin %x : tensor<2x3xf32>
  %cos = jaxc.cos %x : tensor<2x3xf32>
  %tan = jaxc.tan %x : tensor<2x3xf32>
  %asin = jaxc.asin %x : tensor<2x3xf32>
  %acos = jaxc.acos %x : tensor<2x3xf32>
  %atan = jaxc.atan %x : tensor<2x3xf32>
  %sinh = jaxc.sinh %x : tensor<2x3xf32>
  %cosh = jaxc.cosh %x : tensor<2x3xf32>
  %tanh = jaxc.tanh %x : tensor<2x3xf32>
  %asinh = jaxc.asinh %x : tensor<2x3xf32>
  %acosh = jaxc.acosh %x : tensor<2x3xf32>
  %atanh = jaxc.atanh %x : tensor<2x3xf32>
  %logistic = jaxc.logistic %x : tensor<2x3xf32>
  %sqrt = jaxc.sqrt %x : tensor<2x3xf32>
  %rsqrt = jaxc.rsqrt %x : tensor<2x3xf32>
  %cbrt = jaxc.cbrt %x : tensor<2x3xf32>
  %floor = jaxc.floor %x : tensor<2x3xf32>
  %ceil = jaxc.ceil %x : tensor<2x3xf32>
  %erf = jaxc.erf %x : tensor<2x3xf32>
  %erf_inv = jaxc.erf_inv %x : tensor<2x3xf32>
  %lgamma = jaxc.lgamma %x : tensor<2x3xf32>
  return %neg, %abs, %sign, %exp, %exp2, %expm1, %log, %log1p, %sin, %cos, %tan, %asin, %acos, %atan, %sinh, %cosh, %tanh, %asinh, %acosh, %atanh, %logistic, %sqrt, %rsqrt, %cbrt, %floor, %ceil, %erf, %erf_inv, %lgamma : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @float_unary_other_types(
// CHECK-SAME: %[[H:[a-z0-9_]+]]: tensor<4xf16>, %[[B:[a-z0-9_]+]]: tensor<2x2xbf16>, %[[D:[a-z0-9_]+]]: tensor<f64>, %[[E:[a-z0-9_]+]]: tensor<0x3xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<0x3xf32>, tensor<0x3xf32>)
// CHECK-NEXT: %[[DIGAMMA:[a-z0-9_]+]] = jaxc.digamma %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[EXP:[a-z0-9_]+]] = jaxc.exp %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[TANH:[a-z0-9_]+]] = jaxc.tanh %[[B]] : tensor<2x2xbf16>
// CHECK-NEXT: %[[LOG:[a-z0-9_]+]] = jaxc.log %[[B]] : tensor<2x2xbf16>
// CHECK-NEXT: %[[SIN:[a-z0-9_]+]] = jaxc.sin %[[D]] : tensor<f64>
// CHECK-NEXT: %[[SQRT:[a-z0-9_]+]] = jaxc.sqrt %[[D]] : tensor<f64>
// CHECK-NEXT: %[[DIGAMMA64:[a-z0-9_]+]] = jaxc.digamma %[[D]] : tensor<f64>
// CHECK-NEXT: %[[COS:[a-z0-9_]+]] = jaxc.cos %[[E]] : tensor<0x3xf32>
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = jaxc.neg %[[E]] : tensor<0x3xf32>
// CHECK-NEXT: return %[[DIGAMMA]], %[[EXP]], %[[TANH]], %[[LOG]], %[[SIN]], %[[SQRT]], %[[DIGAMMA64]], %[[COS]], %[[NEG]] : tensor<4xf16>, tensor<4xf16>, tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<0x3xf32>, tensor<0x3xf32>
func.func @float_unary_other_types(%h: tensor<4xf16>, %b: tensor<2x2xbf16>, %d: tensor<f64>, %e: tensor<0x3xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<0x3xf32>, tensor<0x3xf32>) {
  %digamma = jaxc.digamma %h : tensor<4xf16>
  %exp = jaxc.exp %h : tensor<4xf16>
  %tanh = jaxc.tanh %b : tensor<2x2xbf16>
  %log = jaxc.log %b : tensor<2x2xbf16>
  %sin = jaxc.sin %d : tensor<f64>
  %sqrt = jaxc.sqrt %d : tensor<f64>
  %digamma64 = jaxc.digamma %d : tensor<f64>
  %cos = jaxc.cos %e : tensor<0x3xf32>
  %neg = jaxc.neg %e : tensor<0x3xf32>
  return %digamma, %exp, %tanh, %log, %sin, %sqrt, %digamma64, %cos, %neg : tensor<4xf16>, tensor<4xf16>, tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<0x3xf32>, tensor<0x3xf32>
}

// CHECK-LABEL: func.func @signed_unary(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xi8>, %[[B:[a-z0-9_]+]]: tensor<2x3xi16>, %[[C:[a-z0-9_]+]]: tensor<i32>, %[[D:[a-z0-9_]+]]: tensor<3xi64>) -> (tensor<4xi8>, tensor<2x3xi16>, tensor<i32>, tensor<3xi64>, tensor<4xi8>, tensor<2x3xi16>)
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = jaxc.neg %[[A]] : tensor<4xi8>
// CHECK-NEXT: %[[ABS:[a-z0-9_]+]] = jaxc.abs %[[B]] : tensor<2x3xi16>
// CHECK-NEXT: %[[SIGN:[a-z0-9_]+]] = jaxc.sign %[[C]] : tensor<i32>
// CHECK-NEXT: %[[NOT:[a-z0-9_]+]] = jaxc.not %[[D]] : tensor<3xi64>
// CHECK-NEXT: %[[POPCNT:[a-z0-9_]+]] = jaxc.population_count %[[A]] : tensor<4xi8>
// CHECK-NEXT: %[[CLZ:[a-z0-9_]+]] = jaxc.clz %[[B]] : tensor<2x3xi16>
// CHECK-NEXT: return %[[NEG]], %[[ABS]], %[[SIGN]], %[[NOT]], %[[POPCNT]], %[[CLZ]] : tensor<4xi8>, tensor<2x3xi16>, tensor<i32>, tensor<3xi64>, tensor<4xi8>, tensor<2x3xi16>
func.func @signed_unary(%a: tensor<4xi8>, %b: tensor<2x3xi16>, %c: tensor<i32>, %d: tensor<3xi64>) -> (tensor<4xi8>, tensor<2x3xi16>, tensor<i32>, tensor<3xi64>, tensor<4xi8>, tensor<2x3xi16>) {
  %neg = jaxc.neg %a : tensor<4xi8>
  %abs = jaxc.abs %b : tensor<2x3xi16>
  %sign = jaxc.sign %c : tensor<i32>
  %not = jaxc.not %d : tensor<3xi64>
  %popcnt = jaxc.population_count %a : tensor<4xi8>
  %clz = jaxc.clz %b : tensor<2x3xi16>
  return %neg, %abs, %sign, %not, %popcnt, %clz : tensor<4xi8>, tensor<2x3xi16>, tensor<i32>, tensor<3xi64>, tensor<4xi8>, tensor<2x3xi16>
}

// CHECK-LABEL: func.func @unsigned_unary(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xui8>, %[[B:[a-z0-9_]+]]: tensor<ui16>, %[[C:[a-z0-9_]+]]: tensor<2x2xui32>, %[[D:[a-z0-9_]+]]: tensor<0xui64>) -> (tensor<4xui8>, tensor<ui16>, tensor<2x2xui32>, tensor<0xui64>, tensor<4xui8>, tensor<2x2xui32>)
// CHECK-NEXT: %[[ABS:[a-z0-9_]+]] = jaxc.abs %[[A]] : tensor<4xui8>
// CHECK-NEXT: %[[NOT:[a-z0-9_]+]] = jaxc.not %[[B]] : tensor<ui16>
// CHECK-NEXT: %[[POPCNT:[a-z0-9_]+]] = jaxc.population_count %[[C]] : tensor<2x2xui32>
// CHECK-NEXT: %[[CLZ:[a-z0-9_]+]] = jaxc.clz %[[D]] : tensor<0xui64>
// CHECK-NEXT: %[[SIGN:[a-z0-9_]+]] = jaxc.sign %[[A]] : tensor<4xui8>
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = jaxc.neg %[[C]] : tensor<2x2xui32>
// CHECK-NEXT: return %[[ABS]], %[[NOT]], %[[POPCNT]], %[[CLZ]], %[[SIGN]], %[[NEG]] : tensor<4xui8>, tensor<ui16>, tensor<2x2xui32>, tensor<0xui64>, tensor<4xui8>, tensor<2x2xui32>
func.func @unsigned_unary(%a: tensor<4xui8>, %b: tensor<ui16>, %c: tensor<2x2xui32>, %d: tensor<0xui64>) -> (tensor<4xui8>, tensor<ui16>, tensor<2x2xui32>, tensor<0xui64>, tensor<4xui8>, tensor<2x2xui32>) {
  %abs = jaxc.abs %a : tensor<4xui8>
  %not = jaxc.not %b : tensor<ui16>
  %popcnt = jaxc.population_count %c : tensor<2x2xui32>
  %clz = jaxc.clz %d : tensor<0xui64>
  %sign = jaxc.sign %a : tensor<4xui8>
  %neg = jaxc.neg %c : tensor<2x2xui32>
  return %abs, %not, %popcnt, %clz, %sign, %neg : tensor<4xui8>, tensor<ui16>, tensor<2x2xui32>, tensor<0xui64>, tensor<4xui8>, tensor<2x2xui32>
}

// CHECK-LABEL: func.func @not_i1(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<3xi1>, %[[Q:[a-z0-9_]+]]: tensor<i1>) -> (tensor<3xi1>, tensor<i1>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.not %[[P]] : tensor<3xi1>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.not %[[Q]] : tensor<i1>
// CHECK-NEXT: return %[[A]], %[[B]] : tensor<3xi1>, tensor<i1>
func.func @not_i1(%p: tensor<3xi1>, %q: tensor<i1>) -> (tensor<3xi1>, tensor<i1>) {
  %a = jaxc.not %p : tensor<3xi1>
  %b = jaxc.not %q : tensor<i1>
  return %a, %b : tensor<3xi1>, tensor<i1>
}

// `away_from_zero` is the default rounding method: the printer elides it.
// CHECK-LABEL: func.func @round(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[H:[a-z0-9_]+]]: tensor<f16>, %[[D:[a-z0-9_]+]]: tensor<2x0xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f16>, tensor<2x0xf64>)
// CHECK-NEXT: %[[DEFAULT:[a-z0-9_]+]] = jaxc.round %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[AWAY:[a-z0-9_]+]] = jaxc.round %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[EVEN:[a-z0-9_]+]] = jaxc.round %[[X]], to_nearest_even : tensor<4xf32>
// CHECK-NEXT: %[[H_EVEN:[a-z0-9_]+]] = jaxc.round %[[H]], to_nearest_even : tensor<f16>
// CHECK-NEXT: %[[D_AWAY:[a-z0-9_]+]] = jaxc.round %[[D]] : tensor<2x0xf64>
// CHECK-NEXT: return %[[DEFAULT]], %[[AWAY]], %[[EVEN]], %[[H_EVEN]], %[[D_AWAY]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f16>, tensor<2x0xf64>
func.func @round(%x: tensor<4xf32>, %h: tensor<f16>, %d: tensor<2x0xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f16>, tensor<2x0xf64>) {
  %default = jaxc.round %x : tensor<4xf32>
  %away = jaxc.round %x, away_from_zero : tensor<4xf32>
  %even = jaxc.round %x, to_nearest_even : tensor<4xf32>
  %h_even = jaxc.round %h, to_nearest_even : tensor<f16>
  %d_away = jaxc.round %d : tensor<2x0xf64>
  return %default, %away, %even, %h_even, %d_away : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f16>, tensor<2x0xf64>
}

// CHECK-LABEL: func.func @is_finite(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[H:[a-z0-9_]+]]: tensor<f16>, %[[B:[a-z0-9_]+]]: tensor<2x3xbf16>, %[[D:[a-z0-9_]+]]: tensor<0x3xf64>) -> (tensor<4xi1>, tensor<i1>, tensor<2x3xi1>, tensor<0x3xi1>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.is_finite %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.is_finite %[[H]] : tensor<f16>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.is_finite %[[B]] : tensor<2x3xbf16>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.is_finite %[[D]] : tensor<0x3xf64>
// CHECK-NEXT: return %[[A]], %[[C]], %[[E]], %[[F]] : tensor<4xi1>, tensor<i1>, tensor<2x3xi1>, tensor<0x3xi1>
func.func @is_finite(%x: tensor<4xf32>, %h: tensor<f16>, %b: tensor<2x3xbf16>, %d: tensor<0x3xf64>) -> (tensor<4xi1>, tensor<i1>, tensor<2x3xi1>, tensor<0x3xi1>) {
  %a = jaxc.is_finite %x : tensor<4xf32>
  %c = jaxc.is_finite %h : tensor<f16>
  %e = jaxc.is_finite %b : tensor<2x3xbf16>
  %f = jaxc.is_finite %d : tensor<0x3xf64>
  return %a, %c, %e, %f : tensor<4xi1>, tensor<i1>, tensor<2x3xi1>, tensor<0x3xi1>
}

// CHECK-LABEL: func.func @stop_gradient(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[P:[a-z0-9_]+]]: tensor<2xi1>, %[[I:[a-z0-9_]+]]: tensor<i32>, %[[U:[a-z0-9_]+]]: tensor<3xui64>, %[[B:[a-z0-9_]+]]: tensor<0xbf16>) -> (tensor<4xf32>, tensor<2xi1>, tensor<i32>, tensor<3xui64>, tensor<0xbf16>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.stop_gradient %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.stop_gradient %[[P]] : tensor<2xi1>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.stop_gradient %[[I]] : tensor<i32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.stop_gradient %[[U]] : tensor<3xui64>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.stop_gradient %[[B]] : tensor<0xbf16>
// CHECK-NEXT: return %[[A]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<4xf32>, tensor<2xi1>, tensor<i32>, tensor<3xui64>, tensor<0xbf16>
func.func @stop_gradient(%x: tensor<4xf32>, %p: tensor<2xi1>, %i: tensor<i32>, %u: tensor<3xui64>, %b: tensor<0xbf16>) -> (tensor<4xf32>, tensor<2xi1>, tensor<i32>, tensor<3xui64>, tensor<0xbf16>) {
  %a = jaxc.stop_gradient %x : tensor<4xf32>
  %c = jaxc.stop_gradient %p : tensor<2xi1>
  %d = jaxc.stop_gradient %i : tensor<i32>
  %e = jaxc.stop_gradient %u : tensor<3xui64>
  %f = jaxc.stop_gradient %b : tensor<0xbf16>
  return %a, %c, %d, %e, %f : tensor<4xf32>, tensor<2xi1>, tensor<i32>, tensor<3xui64>, tensor<0xbf16>
}
