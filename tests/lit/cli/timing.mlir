// --mlir-timing: one execution time report on stderr, in mlir-opt's formats
// (Wall Time column only): Parser, the passes as nested when run, Output,
// Rest, Total; --stage puts each stage's passes under a `stage 'NAME'` row.
// RUN: jaxc-opt %s --mlir-timing --pass-pipeline='builtin.module(canonicalize,func.func(cse,canonicalize),jaxc-cleanup)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// RUN: jaxc-opt %s --mlir-timing --mlir-timing-display=list --canonicalize --cse --canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: jaxc-opt %s --mlir-timing --mlir-timing-display=list --canonicalize --cse --canonicalize -o /dev/null 2>&1 | grep -c Canonicalizer | FileCheck %s --check-prefix=LIST-ONCE
// RUN: jaxc-opt %s --mlir-timing --mlir-output-format=json --pass-pipeline='builtin.module(func.func(cse))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: jaxc-opt %s --mlir-timing --mlir-timing-display=list --mlir-output-format=json --cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON-LIST
// RUN: jaxc-opt %s --mlir-timing --stage=linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// As in mlir-opt, the display and format options alone change nothing.
// RUN: jaxc-opt %s --mlir-timing-display=list --mlir-output-format=json --cse 2>&1 | FileCheck %s --check-prefix=NO-TIMING
// RUN: not jaxc-opt %s --mlir-timing --mlir-timing-display=flat 2>&1 | FileCheck %s --check-prefix=BAD-DISPLAY
// RUN: not jaxc-opt %s --mlir-timing --mlir-output-format=yaml 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT

// TREE:      ===-------------------------------------------------------------------------===
// TREE-NEXT:                          ... Execution time report ...
// TREE-NEXT: ===-------------------------------------------------------------------------===
// TREE-NEXT:   Total Execution Time: {{[0-9]+\.[0-9][0-9][0-9][0-9]}} seconds
// TREE-EMPTY:
// TREE-NEXT:   ----Wall Time----  ----Name----
// TREE-NEXT:     {{[0-9]+\.[0-9][0-9][0-9][0-9]}} ({{ *[0-9]+\.[0-9]}}%)  Parser
// TREE-NEXT:     {{.*}}%)  Canonicalizer
// TREE-NEXT:     {{.*}}%)  'func.func' Pipeline
// TREE-NEXT:     {{.*}}%)    CSE
// TREE-NEXT:     {{.*}}%)      (A) DominanceInfo
// TREE-NEXT:     {{.*}}%)    Canonicalizer
// TREE-NEXT:     {{.*}}%)  JaxcCleanup
// TREE-NEXT:     {{.*}}%)  Output
// TREE-NEXT:     {{.*}}%)  Rest
// TREE-NEXT:     {{[0-9]+\.[0-9][0-9][0-9][0-9]}} (100.0%)  Total
// TREE-NOT:  {{.}}

// The list adds up the rows by name (both canonicalizes in one row).
// LIST:       ----Wall Time----  ----Name----
// LIST-DAG:   %)  Canonicalizer
// LIST-DAG:   %)  CSE
// LIST-DAG:   %)  (A) DominanceInfo
// LIST-DAG:   %)  Parser
// LIST-DAG:   %)  Output
// LIST:       %)  Rest
// LIST-NEXT:  (100.0%)  Total
// LIST-ONCE:  {{^1$}}

// JSON:      [
// JSON-NEXT: {"wall": {"duration": {{ *[0-9.]+}}, "percentage": {{ *[0-9.]+}}}, "name": "Parser", "passes": [
// JSON-NEXT: {}]},
// JSON-NEXT: {"wall": {{.*}}, "name": "'func.func' Pipeline", "passes": [
// JSON-NEXT:   {"wall": {{.*}}, "name": "CSE", "passes": [
// JSON-NEXT:     {"wall": {{.*}}, "name": "(A) DominanceInfo", "passes": [
// JSON-NEXT:     {}]},
// JSON-NEXT:   {}]},
// JSON-NEXT: {}]},
// JSON-NEXT: {"wall": {{.*}}, "name": "Output", "passes": [
// JSON-NEXT: {}]},
// JSON-NEXT: {"wall": {{.*}}, "name": "Rest"},
// JSON-NEXT: {"wall": {"duration": {{ *[0-9.]+}}, "percentage": 100.0}, "name": "Total"}
// JSON-NEXT: ]

// JSON-LIST:     [
// JSON-LIST-DAG: {"wall": {{.*}}, "name": "CSE"},
// JSON-LIST-DAG: {"wall": {{.*}}, "name": "Parser"},
// JSON-LIST:     {"wall": {{.*}}, "name": "Rest"},
// JSON-LIST-NEXT: {"wall": {{.*}}, "name": "Total"}
// JSON-LIST-NEXT: ]

// STAGES:      ----Wall Time----  ----Name----
// STAGES-NEXT: %)  Parser
// STAGES-NEXT: %)  stage 'traced'
// STAGES-NEXT: %)  stage 'transformed'
// STAGES-NEXT: %)    JaxcBatch
// STAGES-NEXT: %)    JaxcAutodiff
// STAGES-NEXT: %)    JaxcCheckNoRequests
// STAGES-NEXT: %)  stage 'optimized'
// STAGES-NEXT: %)    JaxcSpmdControlFlow
// STAGES-NEXT: %)    JaxcOutlineDeepRegions
// STAGES-NEXT: %)    JaxcPadSumsToUpdates
// STAGES-NEXT: %)    JaxcExpandDft
// STAGES-NEXT: %)    JaxcExpandLinalg
// STAGES-NEXT: %)    JaxcExpandTopK
// STAGES-NEXT: %)    JaxcCleanup
// STAGES-NEXT: %)  stage 'linalg'
// STAGES-NEXT: %)    JaxcToLinalg
// STAGES-NEXT: %)    JaxcCheckLowered
// STAGES-NEXT: %)    Canonicalizer
// STAGES-NEXT: %)    CSE
// STAGES-NEXT: %)      (A) DominanceInfo
// STAGES-NEXT: %)    Canonicalizer
// STAGES-NEXT: %)  Output
// STAGES-NEXT: %)  Rest
// STAGES-NEXT: %)  Total

// NO-TIMING-NOT: Execution time report
// NO-TIMING:     func.func @f
// NO-TIMING-NOT: Execution time report

// BAD-DISPLAY: jaxc-opt: error: argument --mlir-timing-display: invalid choice: 'flat' (choose from 'list', 'tree')
// BAD-FORMAT:  jaxc-opt: error: argument --mlir-output-format: invalid choice: 'yaml' (choose from 'text', 'json')
func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  %1 = arith.muli %0, %x : i32
  %2 = arith.muli %x, %x : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
