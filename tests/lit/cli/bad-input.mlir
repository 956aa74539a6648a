// Bad input never crashes jaxc-opt: each case is a clean `FILE:LINE:COL:
// error:` and exit status 1 (`not` fails on a crash, too). Every chunk
// below is broken in its own way.
// RUN: not jaxc-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not jaxc-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=ALLOW

// Empty input (and input with only comments) is an empty module, as in mlir-opt.
// RUN: jaxc-opt < /dev/null | FileCheck %s --check-prefix=EMPTY
// RUN: printf '  // only a comment\n' | jaxc-opt | FileCheck %s --check-prefix=EMPTY
// EMPTY: module {
// EMPTY-NEXT: }

// Bytes that are not UTF-8, control characters, NUL bytes.
// RUN: printf '\377\376\000garbage' | not jaxc-opt 2>&1 | FileCheck %s --check-prefix=BYTES
// BYTES: <stdin>:1:1: error: input is not valid UTF-8 text (byte 0xff: invalid start byte)
// RUN: printf 'func.func \001' | not jaxc-opt 2>&1 | FileCheck %s --check-prefix=CONTROL
// CONTROL: <stdin>:1:11: error: unexpected character
// RUN: printf 'func.func @f() {\n  return\n}\n\000\000junk' | not jaxc-opt 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: <stdin>:4:3: error: custom op 'junk' is unknown

// A missing input file, an output file that cannot be written.
// RUN: not jaxc-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: jaxc-opt: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: not jaxc-opt %s -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: jaxc-opt: error: cannot open output file '{{.*}}no-such-dir/out.mlir': No such file or directory

// CHECK: bad-input.mlir:[[@LINE+2]]:9: error: expected operation name in quotes
func.func @truncated() {
  return
// -----
func.func @unknown_op() {
  // CHECK: bad-input.mlir:[[@LINE+1]]:8: error: custom op 'arith.frobnicate' is unknown
  %0 = arith.frobnicate : i32
  return
}
// -----
func.func @unknown_dialect() {
  // CHECK: bad-input.mlir:[[@LINE+2]]:19: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
  // ALLOW: %{{.+}} = "nosuch.op"() : () -> i32
  %0 = "nosuch.op"() : () -> i32
  return
}
// -----
// CHECK: bad-input.mlir:[[@LINE+4]]:23: error: use of value '%b' expects different type than prior uses: 'i32' vs 'f32'
// CHECK-NEXT: {{^}}  %0 = arith.addi %a, %b : i32
// CHECK: bad-input.mlir:[[@LINE+1]]:33: note: prior use here
func.func @wrong_types(%a: i32, %b: f32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
// -----
func.func @bad_attribute() -> tensor<2xi32> {
  // CHECK: bad-input.mlir:[[@LINE+1]]:23: error: inferred shape of elements literal ([3]) does not match type ([2])
  %0 = arith.constant dense<[1, 2, 3]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
// -----
// CHECK: bad-input.mlir:[[@LINE+1]]:36: error: expected non-function type
func.func @bad_type(%a: tensor<2x?xq32>) {
  return
}
// -----
// CHECK: bad-input.mlir:[[@LINE+1]]:62: error: expected ']'
func.func @bad_attribute_syntax() attributes {x = dense<[1, 2> : tensor<2xi32>} {
  return
}
// -----
func.func @verifier(%a: i32) -> i64 {
  // CHECK: bad-input.mlir:[[@LINE+2]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @verifier
  // CHECK: bad-input.mlir:[[@LINE+1]]:3: note: see current operation: "func.return"(%arg0) : (i32) -> ()
  return %a : i32
}
// -----
// An integer list entry above 64 bits: upstream's linalg parsers abort on it
// (a null attribute), so jaxc-opt reports it before MLIR parses the chunk.
func.func @huge_dimension(%x: tensor<4xf32>, %o: tensor<f32>) -> tensor<f32> {
  // CHECK: bad-input.mlir:[[@LINE+1]]:83: error: integer 99999999999999999999999 does not fit in 64 bits
  %r = linalg.reduce ins(%x : tensor<4xf32>) outs(%o : tensor<f32>) dimensions = [99999999999999999999999]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
