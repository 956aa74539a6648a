// --split-input-file: each chunk between split markers is its own input;
// the outputs are joined with the marker; diagnostics keep the file's line
// numbers; one failing chunk makes the exit status 1, but the other chunks
// are still printed.
// RUN: not jaxc-opt %s --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not jaxc-opt %s --split-input-file --output-split-marker='// ====' | FileCheck %s --check-prefix=MARKER
// Without splitting, the first error stops the whole file.
// RUN: not jaxc-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// OUT-LABEL: func.func @first() {
// OUT-NEXT:    return
// OUT-NEXT:  }
// OUT-NEXT:  }
// OUT-EMPTY:
// OUT-NEXT:  {{^}}// {{-{5}$}}
// OUT-NEXT:  {{^}}// {{-{5}$}}
// OUT-NEXT:  {{^}}// {{-{5}$}}
// OUT-NEXT:  module {
// OUT-NEXT:    func.func @fourth() {
// MARKER:      {{^}}// ===={{$}}
// MARKER-NEXT: {{^}}// ===={{$}}
// MARKER-NEXT: {{^}}// ===={{$}}
// MARKER-NEXT: module {
func.func @first() {
  return
}

// -----

func.func @second(%x: i32) -> i64 {
  // ERR: split-input-file.mlir:[[@LINE+3]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @second
  // ERR-NEXT: {{^}}  return %x : i32
  // WHOLE: split-input-file.mlir:[[@LINE+1]]:3: error: type of return operand 0
  return %x : i32
}

// -----

// Each chunk is parsed on its own: @first is not defined here.
// ERR: split-input-file.mlir:[[@LINE+2]]:3: error: 'func.call' op 'first' does not reference a valid function
func.func @third() {
  func.call @first() : () -> ()
  return
}

// -----

// ERR-NOT: error
func.func @fourth() {
  return
}
