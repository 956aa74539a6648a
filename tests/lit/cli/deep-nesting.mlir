// Deeply nested input recurses deeply in MLIR's C++ parser (mlir-opt itself
// overflows its stack on these); jaxc-opt parses on a thread with a large
// stack, and would report a crash cleanly if even that were not enough.
// RUN: %python %S/Inputs/gen_deep.py attr 100000 > %t.attr.mlir
// RUN: jaxc-opt %t.attr.mlir | FileCheck %s --check-prefix=ATTR
// ATTR: func.func @deep() attributes {a = {{\[\[\[}}
// RUN: %python %S/Inputs/gen_deep.py unclosed 100000 > %t.unclosed.mlir
// RUN: not jaxc-opt %t.unclosed.mlir 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// UNCLOSED: unclosed.mlir:1:100035: error: expected attribute value
// RUN: %python %S/Inputs/gen_deep.py regions 2000 > %t.regions.mlir
// RUN: jaxc-opt %t.regions.mlir --canonicalize | FileCheck %s --check-prefix=REGIONS
// REGIONS-LABEL: func.func @deep() {
// REGIONS-NEXT:    return
