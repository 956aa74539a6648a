// RUN: jaxc-opt %s --jaxc-gpu-sequential-kernels | FileCheck %s

// A loop nest and the scalar code after it become one one-thread kernel; the
// load and truncation the host returns stay on the host.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.+]]: memref<1024xf32>, %[[ACC:.+]]: memref<f32>, %[[Y:.+]]: memref<f32>, %[[P:.+]]: memref<i8>)
// CHECK: arith.constant 1024 : index
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.+}}) = (%[[Z]]) to (%[[ONE]]) step (%[[ONE]]) {
// CHECK-NEXT: scf.for
// CHECK: arith.addf
// CHECK: }
// CHECK-NEXT: %[[A:.+]] = memref.load %[[ACC]][] : memref<f32>
// CHECK-NEXT: %[[S:.+]] = math.sin %[[A]] : f32
// CHECK-NEXT: memref.store %[[S]], %[[Y]][] : memref<f32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: %[[L:.+]] = memref.load %[[P]][] : memref<i8>
// CHECK-NEXT: %[[B:.+]] = arith.trunci %[[L]] : i8 to i1
// CHECK-NEXT: return %[[B]] : i1
func.func @f(%x: memref<1024xf32>, %acc: memref<f32>, %y: memref<f32>, %p: memref<i8>) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %k = %c0 to %c1024 step %c1 {
    %v = memref.load %x[%k] : memref<1024xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %a = memref.load %acc[] : memref<f32>
  %e = math.sin %a : f32
  memref.store %e, %y[] : memref<f32>
  %l = memref.load %p[] : memref<i8>
  %b = arith.trunci %l : i8 to i1
  return %b : i1
}

// Host memory (a stack buffer) and nests that launch kernels stay on the host.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step
// CHECK: memref.alloca
// CHECK: memref.store
// CHECK: scf.for
// CHECK-NEXT: scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step
// CHECK: return
func.func @stays(%x: memref<8xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %stack = memref.alloca() : memref<f32>
  memref.store %f, %stack[] : memref<f32>
  scf.for %k = %c0 to %c8 step %c1 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %f, %x[%i] : memref<8xf32>
      scf.reduce
    }
  }
  return
}
