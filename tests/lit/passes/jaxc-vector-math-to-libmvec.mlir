// RUN: jaxc-opt %s --pass-pipeline='builtin.module(jaxc-vector-math-to-libmvec{vector-bits=256})' | FileCheck %s
// RUN: jaxc-opt %s --pass-pipeline='builtin.module(jaxc-vector-math-to-libmvec{vector-bits=512})' | FileCheck %s --check-prefix=AVX512

// f32 exp with AVX-512: our own kernel, defined once at the top of the module
// (internal, so LLVM inlines it and drops it; @f32_exp below calls it).
// AVX512: func.func private @jaxc_expf_avx512(%{{.*}}: vector<16xf32>) -> vector<16xf32>
// AVX512-SAME: llvm.linkage = #llvm.linkage<internal>
// AVX512: math.roundeven
// AVX512: x86vector.avx512.mask.scalef
// AVX512-NOT: func.func private @jaxc_expf_avx512

// One register: one call (declared once, private, readnone).
// CHECK-DAG: func.func private @_ZGVdN8v_sinf(vector<8xf32>) -> vector<8xf32> attributes {llvm.readnone}
// CHECK-DAG: func.func private @_ZGVdN8vv_atan2f(vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-DAG: func.func private @_ZGVdN4v_exp(vector<4xf64>) -> vector<4xf64>
// CHECK-LABEL: func.func @one_register
// CHECK-NEXT: %[[S:.+]] = call @_ZGVdN8v_sinf(%arg0) : (vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT: return %[[S]]
func.func @one_register(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.sin %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// Two registers: two calls on the halves.
// CHECK-LABEL: func.func @two_registers
// CHECK-NEXT: %[[A:.+]] = vector.extract_strided_slice %arg0 {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// CHECK-NEXT: %[[SA:.+]] = call @_ZGVdN8v_sinf(%[[A]])
// CHECK-NEXT: %[[R0:.+]] = vector.insert_strided_slice %[[SA]], %arg0 {offsets = [0], strides = [1]} : vector<8xf32> into vector<16xf32>
// CHECK-NEXT: %[[B:.+]] = vector.extract_strided_slice %arg0 {offsets = [8], sizes = [8], strides = [1]}
// CHECK-NEXT: %[[SB:.+]] = call @_ZGVdN8v_sinf(%[[B]])
// CHECK-NEXT: %[[R1:.+]] = vector.insert_strided_slice %[[SB]], %[[R0]] {offsets = [8], strides = [1]}
// CHECK-NEXT: return %[[R1]]
// AVX512-LABEL: func.func @two_registers
// AVX512-NEXT: call @_ZGVeN16v_sinf(%arg0) : (vector<16xf32>) -> vector<16xf32>
func.func @two_registers(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.sin %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// 2-D vectors go through a shape_cast; binary functions take two vectors.
// CHECK-LABEL: func.func @two_d_binary
// CHECK: vector.shape_cast %arg0 : vector<1x8xf32> to vector<8xf32>
// CHECK: call @_ZGVdN8vv_atan2f
// CHECK: vector.shape_cast %{{.*}} : vector<8xf32> to vector<1x8xf32>
func.func @two_d_binary(%y: vector<1x8xf32>, %x: vector<1x8xf32>) -> vector<1x8xf32> {
  %0 = math.atan2 %y, %x : vector<1x8xf32>
  return %0 : vector<1x8xf32>
}

// f64: 4 lanes per AVX2 register.
// CHECK-LABEL: func.func @f64
// CHECK: call @_ZGVdN4v_exp
func.func @f64(%x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.exp %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// Left alone: scalars, a lane count that is not a multiple of the register,
// element types libmvec has no entry for, ops it does not have.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT: math.sin %{{.*}} : f32
// CHECK-NEXT: math.sin %{{.*}} : vector<4xf32>
// CHECK-NEXT: math.sin %{{.*}} : vector<16xf16>
// CHECK-NEXT: math.sqrt %{{.*}} : vector<8xf32>
func.func @left_alone(%a: f32, %b: vector<4xf32>, %c: vector<16xf16>, %d: vector<8xf32>) -> (f32, vector<4xf32>, vector<16xf16>, vector<8xf32>) {
  %0 = math.sin %a : f32
  %1 = math.sin %b : vector<4xf32>
  %2 = math.sin %c : vector<16xf16>
  %3 = math.sqrt %d : vector<8xf32>
  return %0, %1, %2, %3 : f32, vector<4xf32>, vector<16xf16>, vector<8xf32>
}

// f32 exp with AVX-512: our own kernel, called on each 16-lane piece (its
// definition: at the top); with AVX2 glibc's.
// AVX512-LABEL: func.func @f32_exp
// AVX512: call @jaxc_expf_avx512
// AVX512: call @jaxc_expf_avx512
// AVX512-NOT: _ZGVeN16v_expf
// CHECK-LABEL: func.func @f32_exp
// CHECK-COUNT-4: call @_ZGVdN8v_expf
func.func @f32_exp(%x: vector<2x16xf32>) -> vector<2x16xf32> {
  %0 = math.exp %x : vector<2x16xf32>
  return %0 : vector<2x16xf32>
}
