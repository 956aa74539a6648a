// RUN: jaxc-opt %s --jaxc-keep-loops-rolled | FileCheck %s
// RUN: jaxc-opt %s --jaxc-keep-loops-rolled --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A vectorized loop and the loop nest around it: LLVM must not unroll either
// (the schedule chose the vector width); the annotation goes on each scf.for.
// CHECK-DAG: #[[DISABLE:[a-z_0-9]+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[COUNT:[a-z_0-9]+]] = #llvm.loop_unroll<count = 4 : i32>
// CHECK-DAG: #[[NO:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[DISABLE]]>
// CHECK-DAG: #[[USER:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[COUNT]]>
// CHECK-LABEL: func.func @rows
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_write
// CHECK-NEXT: } {loop_annotation = #[[NO]]}
// CHECK-NEXT: } {loop_annotation = #[[NO]]}
// The annotation reaches each loop's back edge in the LLVM dialect.
// LLVM-LABEL: llvm.func @rows
// LLVM-COUNT-2: llvm.br ^{{.*}} {loop_annotation = #{{.*}}}
func.func @rows(%out: memref<64x1000xf32>, %v: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1000 step %c8 {
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x1000xf32>
    }
  }
  return
}

// Loops that move vector lanes at their own index stay LLVM's to unroll
// (unrolled, the positions become constants): the insert loop, the extract
// loop; the loop around them is marked.
// CHECK-LABEL: func.func @lanes
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.insert
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }{{$}}
// CHECK: scf.for
// CHECK: vector.extract
// CHECK-NEXT: memref.store
// CHECK-NEXT: }{{$}}
// CHECK-NEXT: } {loop_annotation = #[[NO]]}
func.func @lanes(%in: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c16 step %c1 {
    %vec = scf.for %l = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %x = memref.load %in[%r, %l] : memref<16x32xf32>
      %next = vector.insert %x, %acc [%l] : f32 into vector<32xf32>
      scf.yield %next : vector<32xf32>
    }
    scf.for %l = %c0 to %c32 step %c1 {
      %y = vector.extract %vec[%l] : f32 from vector<32xf32>
      memref.store %y, %out[%r, %l] : memref<16x32xf32>
    }
  }
  return
}

// An annotation already there (a user's) is kept.
// CHECK-LABEL: func.func @annotated
// CHECK: } {loop_annotation = #[[USER]]}
func.func @annotated(%out: memref<16xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %x, %out[%i] : memref<16xf32>
  } {loop_annotation = #llvm.loop_annotation<unroll = <count = 4 : i32>>}
  return
}
