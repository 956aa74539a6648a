// --verify-diagnostics: this file is its own check. Every designator form of
// mlir-opt works: @+N, @-N, @above, @below, a designator on the diagnostic's
// own line, expected-*-re with {{regex}} pieces, notes of a diagnostic, and
// errors from passes. The failing cases are in Inputs/verify-diagnostics-fail.mlir.
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics=only-expected
// RUN: jaxc-opt %s --split-input-file --verify-diagnostics --jaxc-cleanup
// RUN: not jaxc-opt %S/Inputs/verify-diagnostics-fail.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %S/Inputs/verify-diagnostics-fail.mlir --strict-whitespace
// RUN: not jaxc-opt %S/Inputs/verify-diagnostics-fail.mlir --split-input-file --verify-diagnostics=only-expected 2>&1 | FileCheck %s --check-prefix=ONLY
// ONLY-NOT: unexpected
// ONLY: error: expected error "this message is never produced" was not produced

func.func @return_type(%a: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64')}}
  return %a : i32
}

// -----

func.func @below(%a: i32) -> i64 {
  // expected-error @below {{doesn't match function result type}}
  return %a : i32
}

// -----

func.func @regex(%a: i32) -> i64 {
  // expected-error-re @below {{type of return operand {{[0-9]+}} ('i{{[[:digit:]]+}}')}}
  return %a : i32
}

// -----

func.func @above(%a: i32) -> i64 {
  return %a : i32
  // expected-error @above {{in function @above}}
}

// -----

func.func @minus(%a: i32) -> i64 {
  return %a : i32

  // expected-error @-2 {{result type ('i64')}}
}

// -----

// expected-note @below {{see existing symbol definition here}}
func.func @twice() {
  return
}
func.func @twice() { // expected-error {{redefinition of symbol named 'twice'}}
  return
}

// -----

func.func @parse_error() {
  // expected-error @+1 {{expected ','}}
  %0 = arith.addi %a : i32
}

// -----

// expected-error @+1 {{operation being parsed with an unregistered dialect}}
"unknown.op"() : () -> ()
