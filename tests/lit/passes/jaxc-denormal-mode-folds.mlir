// x86-64 (calls set FTZ and DAZ there). LLVM folds an integer test of a
// float's bits into a float compare with zero when it may assume IEEE
// denormals; under DAZ that compare is true for denormals. With the mode
// the `llvm` stage declares, the test stays on the integer bits.
// RUN: jaxc-opt %s --stage=llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: jaxc-opt %s --stage=llvmir | opt -O3 -S | FileCheck %s --check-prefix=OPT
// RUN: jaxc-opt %s --stage=llvmir | sed -e 's/preserve-sign,preserve-sign/ieee,ieee/g' | opt -O3 -S | FileCheck %s --check-prefix=FOLDED
// LLVMIR: attributes #{{[0-9]+}} = { "denormal-fp-math"="{{preserve-sign,preserve-sign|ieee,ieee}}" "denormal-fp-math-f32"=
// OPT-LABEL: define {{.*}} @zero_bits(
// OPT-NOT: fcmp
// OPT: ret i1
// FOLDED-LABEL: define {{.*}} @zero_bits(
// FOLDED: fcmp oeq float %{{.*}}, 0.0
func.func @zero_bits(%x: f32) -> i1 {
  %mask = arith.constant 2147483647 : i32
  %zero = arith.constant 0 : i32
  %bits = arith.bitcast %x : f32 to i32
  %magnitude = arith.andi %bits, %mask : i32
  %is_zero = arith.cmpi eq, %magnitude, %zero : i32
  return %is_zero : i1
}
