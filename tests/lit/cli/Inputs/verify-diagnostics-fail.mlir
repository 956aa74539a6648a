// Failing --verify-diagnostics cases, checked by ../verify-diagnostics.mlir.
// (Files under Inputs/ are not tests of their own.)

// A broken regex is reported while the file is scanned, before anything runs.
// CHECK: verify-diagnostics-fail.mlir:[[@LINE+1]]:4: error: found start of regex with no end '}}'
// expected-error-re @below {{bad {{[a-z]+}}
func.func @bad_regex() {
  return
}

// -----

func.func @wrong_text(%a: i32) -> i64 {
  // CHECK: verify-diagnostics-fail.mlir:[[@LINE+2]]:3: error: unexpected error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @wrong_text
  // expected-error @+1 {{this message is never produced}}
  return %a : i32
}

// -----

func.func @wrong_kind(%a: i32) -> i64 {
  // CHECK: verify-diagnostics-fail.mlir:[[@LINE+1]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
  // expected-warning @+1 {{doesn't match function result type}}
  return %a : i32
}

// -----

func.func @wrong_line(%a: i32) -> i64 {
  // CHECK: verify-diagnostics-fail.mlir:[[@LINE+2]]:3: error: unexpected error: type of return operand 0
  // expected-error @-1 {{doesn't match function result type}}
  return %a : i32
}

// Designators nothing matched are reported last, in file order, underlined.
// CHECK: verify-diagnostics-fail.mlir:15:6: error: expected error "this message is never produced" was not produced
// CHECK-NEXT: {{^}}  // expected-error @+1 {{[{][{]}}this message is never produced{{[}][}]}}
// CHECK-NEXT: {{^}}     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~{{$}}
// CHECK: verify-diagnostics-fail.mlir:23:6: error: expected warning "doesn't match function result type" was not produced
// CHECK: verify-diagnostics-fail.mlir:31:6: error: expected error "doesn't match function result type" was not produced
