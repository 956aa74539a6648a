// Round-trip tests for the binary elementwise ops: both operands and the
// result share one type, printed once.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @float_binary_f32(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[ADD:[a-z0-9_]+]] = jaxc.add %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SUB:[a-z0-9_]+]] = jaxc.sub %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[MUL:[a-z0-9_]+]] = jaxc.mul %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[DIV:[a-z0-9_]+]] = jaxc.div %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[REM:[a-z0-9_]+]] = jaxc.rem %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[POW:[a-z0-9_]+]] = jaxc.pow %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.max %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.min %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[ATAN2:[a-z0-9_]+]] = jaxc.atan2 %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: %[[NEXTAFTER:[a-z0-9_]+]] = jaxc.nextafter %[[X]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[REM]], %[[POW]], %[[MAX]], %[[MIN]], %[[ATAN2]], %[[NEXTAFTER]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
func.func @float_binary_f32(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %add = jaxc.add %x, %y : tensor<2x3xf32>
  %sub = jaxc.sub %x, %y : tensor<2x3xf32>
  %mul = jaxc.mul %x, %y : tensor<2x3xf32>
  %div = jaxc.div %x, %y : tensor<2x3xf32>
  %rem = jaxc.rem %x, %y : tensor<2x3xf32>
  %pow = jaxc.pow %x, %y : tensor<2x3xf32>
  %max = jaxc.max %x, %y : tensor<2x3xf32>
  %min = jaxc.min %x, %y : tensor<2x3xf32>
  %atan2 = jaxc.atan2 %x, %y : tensor<2x3xf32>
  %nextafter = jaxc.nextafter %x, %y : tensor<2x3xf32>
  return %add, %sub, %mul, %div, %rem, %pow, %max, %min, %atan2, %nextafter : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @float_binary_other_types(
// CHECK-SAME: %[[H:[a-z0-9_]+]]: tensor<4xf16>, %[[B:[a-z0-9_]+]]: tensor<bf16>, %[[D:[a-z0-9_]+]]: tensor<2x2xf64>, %[[E:[a-z0-9_]+]]: tensor<0x3xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<bf16>, tensor<bf16>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<0x3xf32>, tensor<0x3xf32>)
// CHECK-NEXT: %[[ADD:[a-z0-9_]+]] = jaxc.add %[[H]], %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[ATAN2:[a-z0-9_]+]] = jaxc.atan2 %[[H]], %[[H]] : tensor<4xf16>
// CHECK-NEXT: %[[MUL:[a-z0-9_]+]] = jaxc.mul %[[B]], %[[B]] : tensor<bf16>
// CHECK-NEXT: %[[NEXTAFTER:[a-z0-9_]+]] = jaxc.nextafter %[[B]], %[[B]] : tensor<bf16>
// CHECK-NEXT: %[[POW:[a-z0-9_]+]] = jaxc.pow %[[D]], %[[D]] : tensor<2x2xf64>
// CHECK-NEXT: %[[REM:[a-z0-9_]+]] = jaxc.rem %[[D]], %[[D]] : tensor<2x2xf64>
// CHECK-NEXT: %[[SUB:[a-z0-9_]+]] = jaxc.sub %[[E]], %[[E]] : tensor<0x3xf32>
// CHECK-NEXT: %[[DIV:[a-z0-9_]+]] = jaxc.div %[[E]], %[[E]] : tensor<0x3xf32>
// CHECK-NEXT: return %[[ADD]], %[[ATAN2]], %[[MUL]], %[[NEXTAFTER]], %[[POW]], %[[REM]], %[[SUB]], %[[DIV]] : tensor<4xf16>, tensor<4xf16>, tensor<bf16>, tensor<bf16>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<0x3xf32>, tensor<0x3xf32>
func.func @float_binary_other_types(%h: tensor<4xf16>, %b: tensor<bf16>, %d: tensor<2x2xf64>, %e: tensor<0x3xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<bf16>, tensor<bf16>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<0x3xf32>, tensor<0x3xf32>) {
  %add = jaxc.add %h, %h : tensor<4xf16>
  %atan2 = jaxc.atan2 %h, %h : tensor<4xf16>
  %mul = jaxc.mul %b, %b : tensor<bf16>
  %nextafter = jaxc.nextafter %b, %b : tensor<bf16>
  %pow = jaxc.pow %d, %d : tensor<2x2xf64>
  %rem = jaxc.rem %d, %d : tensor<2x2xf64>
  %sub = jaxc.sub %e, %e : tensor<0x3xf32>
  %div = jaxc.div %e, %e : tensor<0x3xf32>
  return %add, %atan2, %mul, %nextafter, %pow, %rem, %sub, %div : tensor<4xf16>, tensor<4xf16>, tensor<bf16>, tensor<bf16>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<0x3xf32>, tensor<0x3xf32>
}

// CHECK-LABEL: func.func @signed_binary(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xi32>, %[[B:[a-z0-9_]+]]: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: %[[ADD:[a-z0-9_]+]] = jaxc.add %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[SUB:[a-z0-9_]+]] = jaxc.sub %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[MUL:[a-z0-9_]+]] = jaxc.mul %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[DIV:[a-z0-9_]+]] = jaxc.div %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[REM:[a-z0-9_]+]] = jaxc.rem %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[POW:[a-z0-9_]+]] = jaxc.pow %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.max %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.min %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[AND:[a-z0-9_]+]] = jaxc.and %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[OR:[a-z0-9_]+]] = jaxc.or %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[XOR:[a-z0-9_]+]] = jaxc.xor %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[SHL:[a-z0-9_]+]] = jaxc.shift_left %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[SHRL:[a-z0-9_]+]] = jaxc.shift_right_logical %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[SHRA:[a-z0-9_]+]] = jaxc.shift_right_arithmetic %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[SUB2:[a-z0-9_]+]] = jaxc.sub %[[SHL]], %[[SHRA]] : tensor<4xi32>
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[REM]], %[[POW]], %[[MAX]], %[[MIN]], %[[AND]], %[[OR]], %[[XOR]], %[[SHL]], %[[SHRL]], %[[SHRA]], %[[SUB2]] : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
func.func @signed_binary(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %add = jaxc.add %a, %b : tensor<4xi32>
  %sub = jaxc.sub %a, %b : tensor<4xi32>
  %mul = jaxc.mul %a, %b : tensor<4xi32>
  %div = jaxc.div %a, %b : tensor<4xi32>
  %rem = jaxc.rem %a, %b : tensor<4xi32>
  %pow = jaxc.pow %a, %b : tensor<4xi32>
  %max = jaxc.max %a, %b : tensor<4xi32>
  %min = jaxc.min %a, %b : tensor<4xi32>
  %and = jaxc.and %a, %b : tensor<4xi32>
  %or = jaxc.or %a, %b : tensor<4xi32>
  %xor = jaxc.xor %a, %b : tensor<4xi32>
  %shl = jaxc.shift_left %a, %b : tensor<4xi32>
  %shrl = jaxc.shift_right_logical %a, %b : tensor<4xi32>
  %shra = jaxc.shift_right_arithmetic %a, %b : tensor<4xi32>
  %sub2 = jaxc.sub %shl, %shra : tensor<4xi32>
  return %add, %sub, %mul, %div, %rem, %pow, %max, %min, %and, %or, %xor, %shl, %shrl, %shra, %sub2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @int_binary_widths(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<i8>, %[[B:[a-z0-9_]+]]: tensor<3x2xi16>, %[[C:[a-z0-9_]+]]: tensor<2xi64>, %[[D:[a-z0-9_]+]]: tensor<0xi32>) -> (tensor<i8>, tensor<i8>, tensor<3x2xi16>, tensor<3x2xi16>, tensor<2xi64>, tensor<2xi64>, tensor<0xi32>)
// CHECK-NEXT: %[[DIV:[a-z0-9_]+]] = jaxc.div %[[A]], %[[A]] : tensor<i8>
// CHECK-NEXT: %[[SHRA:[a-z0-9_]+]] = jaxc.shift_right_arithmetic %[[A]], %[[A]] : tensor<i8>
// CHECK-NEXT: %[[REM:[a-z0-9_]+]] = jaxc.rem %[[B]], %[[B]] : tensor<3x2xi16>
// CHECK-NEXT: %[[XOR:[a-z0-9_]+]] = jaxc.xor %[[B]], %[[B]] : tensor<3x2xi16>
// CHECK-NEXT: %[[SHL:[a-z0-9_]+]] = jaxc.shift_left %[[C]], %[[C]] : tensor<2xi64>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.max %[[C]], %[[C]] : tensor<2xi64>
// CHECK-NEXT: %[[ADD:[a-z0-9_]+]] = jaxc.add %[[D]], %[[D]] : tensor<0xi32>
// CHECK-NEXT: return %[[DIV]], %[[SHRA]], %[[REM]], %[[XOR]], %[[SHL]], %[[MAX]], %[[ADD]] : tensor<i8>, tensor<i8>, tensor<3x2xi16>, tensor<3x2xi16>, tensor<2xi64>, tensor<2xi64>, tensor<0xi32>
func.func @int_binary_widths(%a: tensor<i8>, %b: tensor<3x2xi16>, %c: tensor<2xi64>, %d: tensor<0xi32>) -> (tensor<i8>, tensor<i8>, tensor<3x2xi16>, tensor<3x2xi16>, tensor<2xi64>, tensor<2xi64>, tensor<0xi32>) {
  %div = jaxc.div %a, %a : tensor<i8>
  %shra = jaxc.shift_right_arithmetic %a, %a : tensor<i8>
  %rem = jaxc.rem %b, %b : tensor<3x2xi16>
  %xor = jaxc.xor %b, %b : tensor<3x2xi16>
  %shl = jaxc.shift_left %c, %c : tensor<2xi64>
  %max = jaxc.max %c, %c : tensor<2xi64>
  %add = jaxc.add %d, %d : tensor<0xi32>
  return %div, %shra, %rem, %xor, %shl, %max, %add : tensor<i8>, tensor<i8>, tensor<3x2xi16>, tensor<3x2xi16>, tensor<2xi64>, tensor<2xi64>, tensor<0xi32>
}

// CHECK-LABEL: func.func @unsigned_binary(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4xui8>, %[[B:[a-z0-9_]+]]: tensor<ui16>, %[[C:[a-z0-9_]+]]: tensor<2x2xui32>, %[[D:[a-z0-9_]+]]: tensor<3xui64>) -> (tensor<4xui8>, tensor<4xui8>, tensor<ui16>, tensor<ui16>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<3xui64>, tensor<3xui64>, tensor<3xui64>)
// CHECK-NEXT: %[[DIV:[a-z0-9_]+]] = jaxc.div %[[A]], %[[A]] : tensor<4xui8>
// CHECK-NEXT: %[[REM:[a-z0-9_]+]] = jaxc.rem %[[A]], %[[A]] : tensor<4xui8>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.min %[[B]], %[[B]] : tensor<ui16>
// CHECK-NEXT: %[[SHRL:[a-z0-9_]+]] = jaxc.shift_right_logical %[[B]], %[[B]] : tensor<ui16>
// CHECK-NEXT: %[[SUB:[a-z0-9_]+]] = jaxc.sub %[[C]], %[[C]] : tensor<2x2xui32>
// CHECK-NEXT: %[[POW:[a-z0-9_]+]] = jaxc.pow %[[C]], %[[C]] : tensor<2x2xui32>
// CHECK-NEXT: %[[AND:[a-z0-9_]+]] = jaxc.and %[[C]], %[[C]] : tensor<2x2xui32>
// CHECK-NEXT: %[[MUL:[a-z0-9_]+]] = jaxc.mul %[[D]], %[[D]] : tensor<3xui64>
// CHECK-NEXT: %[[OR:[a-z0-9_]+]] = jaxc.or %[[D]], %[[D]] : tensor<3xui64>
// CHECK-NEXT: %[[SHRA:[a-z0-9_]+]] = jaxc.shift_right_arithmetic %[[D]], %[[D]] : tensor<3xui64>
// CHECK-NEXT: return %[[DIV]], %[[REM]], %[[MIN]], %[[SHRL]], %[[SUB]], %[[POW]], %[[AND]], %[[MUL]], %[[OR]], %[[SHRA]] : tensor<4xui8>, tensor<4xui8>, tensor<ui16>, tensor<ui16>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<3xui64>, tensor<3xui64>, tensor<3xui64>
func.func @unsigned_binary(%a: tensor<4xui8>, %b: tensor<ui16>, %c: tensor<2x2xui32>, %d: tensor<3xui64>) -> (tensor<4xui8>, tensor<4xui8>, tensor<ui16>, tensor<ui16>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<3xui64>, tensor<3xui64>, tensor<3xui64>) {
  %div = jaxc.div %a, %a : tensor<4xui8>
  %rem = jaxc.rem %a, %a : tensor<4xui8>
  %min = jaxc.min %b, %b : tensor<ui16>
  %shrl = jaxc.shift_right_logical %b, %b : tensor<ui16>
  %sub = jaxc.sub %c, %c : tensor<2x2xui32>
  %pow = jaxc.pow %c, %c : tensor<2x2xui32>
  %and = jaxc.and %c, %c : tensor<2x2xui32>
  %mul = jaxc.mul %d, %d : tensor<3xui64>
  %or = jaxc.or %d, %d : tensor<3xui64>
  %shra = jaxc.shift_right_arithmetic %d, %d : tensor<3xui64>
  return %div, %rem, %min, %shrl, %sub, %pow, %and, %mul, %or, %shra : tensor<4xui8>, tensor<4xui8>, tensor<ui16>, tensor<ui16>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<3xui64>, tensor<3xui64>, tensor<3xui64>
}

// i1: add is logical or, mul logical and; max/min and the bitwise ops apply.
// CHECK-LABEL: func.func @pred_binary(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<3xi1>, %[[Q:[a-z0-9_]+]]: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>)
// CHECK-NEXT: %[[ADD:[a-z0-9_]+]] = jaxc.add %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[MUL:[a-z0-9_]+]] = jaxc.mul %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.max %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.min %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[AND:[a-z0-9_]+]] = jaxc.and %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[OR:[a-z0-9_]+]] = jaxc.or %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: %[[XOR:[a-z0-9_]+]] = jaxc.xor %[[P]], %[[Q]] : tensor<3xi1>
// CHECK-NEXT: return %[[ADD]], %[[MUL]], %[[MAX]], %[[MIN]], %[[AND]], %[[OR]], %[[XOR]] : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
func.func @pred_binary(%p: tensor<3xi1>, %q: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %add = jaxc.add %p, %q : tensor<3xi1>
  %mul = jaxc.mul %p, %q : tensor<3xi1>
  %max = jaxc.max %p, %q : tensor<3xi1>
  %min = jaxc.min %p, %q : tensor<3xi1>
  %and = jaxc.and %p, %q : tensor<3xi1>
  %or = jaxc.or %p, %q : tensor<3xi1>
  %xor = jaxc.xor %p, %q : tensor<3xi1>
  return %add, %mul, %max, %min, %and, %or, %xor : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}
