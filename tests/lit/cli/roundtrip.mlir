// Reading and printing: a file, stdin (none or '-'), -o, the generic form,
// and locations that carry the input's name.
// RUN: jaxc-opt %s | FileCheck %s
// RUN: jaxc-opt < %s | FileCheck %s
// RUN: jaxc-opt - < %s | FileCheck %s
// RUN: jaxc-opt %s -o %t && FileCheck %s < %t
// RUN: jaxc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: jaxc-opt < %s --mlir-print-debuginfo | FileCheck %s --check-prefix=STDIN

// CHECK-LABEL: func.func @add(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:    %[[SUM:.+]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT:    return %[[SUM]] : i32
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
// GENERIC:         "arith.addi"
// GENERIC:         "func.return"
// LOC: func.func @add(%arg0: i32 loc("{{.*}}roundtrip.mlir":[[@LINE+2]]:16), %arg1: i32 loc({{.*}}))
// STDIN: func.func @add(%arg0: i32 loc("<stdin>":[[@LINE+1]]:16)
func.func @add(%a: i32, %b: i32) -> i32 {
  %sum = arith.addi %a, %b : i32
  return %sum : i32
}

// CHECK-LABEL: func.func @reshape(%arg0: tensor<2x3xf32>) -> tensor<6xf32> {
// CHECK-NEXT:    %[[SHAPE:.+]] = arith.constant dense<6> : tensor<1xi64>
// CHECK-NEXT:    %[[R:.+]] = tensor.reshape %arg0(%[[SHAPE]]) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
// CHECK-NEXT:    return %[[R]] : tensor<6xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<6xf32>, sym_name = "reshape"}> ({
// GENERIC:         "tensor.reshape"
// LOC: #loc = loc("{{.*}}roundtrip.mlir":0:0)
func.func @reshape(%t: tensor<2x3xf32>) -> tensor<6xf32> {
  %shape = arith.constant dense<6> : tensor<1xi64>
  %r = tensor.reshape %t(%shape) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
