// mlir-opt's command-line habits: one or two dashes, `=value` or a separate
// value, `--flag=true|false`; errors are `jaxc-opt: error:` and status 1.
// RUN: jaxc-opt -split-input-file -mlir-print-op-generic %s -o=%t && FileCheck %s --check-prefix=GENERIC < %t
// RUN: jaxc-opt --verify-each=false -cse %s --mlir-print-debuginfo=true | FileCheck %s --check-prefix=LOC
// RUN: jaxc-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not jaxc-opt %s -o 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// RUN: not jaxc-opt %s --mlir-print-no-such-thing 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// RUN: not jaxc-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS
// RUN: not jaxc-opt %s --mlir-print-debuginfo=maybe 2>&1 | FileCheck %s --check-prefix=BAD-BOOL

// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "f"}>
// LOC: loc("{{.*}}command-line.mlir":[[@LINE+6]]:1)
// HELP: usage: jaxc-opt [options] [--pass-pipeline=PIPELINE | --PASS[=OPTIONS]...] [INPUT]
// NO-VALUE: jaxc-opt: error: option '-o' requires a value
// UNKNOWN-OPTION: jaxc-opt: error: unknown or unsupported option '-mlir-print-no-such-thing'
// TWO-INPUTS: jaxc-opt: error: unrecognized arguments:
// BAD-BOOL: jaxc-opt: error: option '--mlir-print-debuginfo' expects true or false, got 'maybe'
func.func @f() {
  return
}
