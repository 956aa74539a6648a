// --list-passes: the project passes with their summaries and options, then
// the upstream passes and pipelines of the pinned mlir-opt.
// RUN: jaxc-opt --list-passes | FileCheck %s
// CHECK-LABEL: Project passes (jaxc):
// CHECK:       jaxc-cleanup canonicalize, CSE and symbol DCE until nothing changes
// CHECK-NEXT:    max-iterations=int default: 10
// CHECK:       jaxc-to-linalg lower jaxc ops
// CHECK-LABEL: Upstream passes
// CHECK:       {{^}} canonicalize Canonicalize operations
// CHECK:       {{^}} cse Eliminate common sub-expressions
// CHECK-LABEL: Upstream pass pipelines
// CHECK:       {{^}} sparsifier 
