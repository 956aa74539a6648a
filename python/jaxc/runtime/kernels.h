/* What the kernels of libjaxc_kernels.so share (gemm.c, fft.c, lu.c,
   triangular_solve.c, cholesky.c, qr.c, eigh.c, svd.c, top_k.c, eig.c; an exported program compiles the
   ones it calls into itself, jaxc.runtime.aot): the per-thread scratch buffers of gemm.c.
   Hidden: each program.so, and the library, binds to its own copy. */
#ifndef JAXC_KERNELS_H
#define JAXC_KERNELS_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The buffer slots: gemm's packed panels of B and of A, then fft.c's: the
   work buffers of a block of columns, the intermediate of a transform split
   in two, the sequences of Bluestein's convolution one column at a time;
   then lu.c's packed panel and -U12, then triangular_solve.c's packed
   diagonal block and strip, then cholesky.c's -L21^T, qr.c's panel and
   block-reflector products, eigh.c's, svd.c's and eig.c's work arrays. */
enum {
    JAXC_SCRATCH_GEMM_B,
    JAXC_SCRATCH_GEMM_A,
    JAXC_SCRATCH_FFT,
    JAXC_SCRATCH_FFT_SPLIT,
    JAXC_SCRATCH_FFT_BLUESTEIN,
    JAXC_SCRATCH_LU,
    JAXC_SCRATCH_TRSM,
    JAXC_SCRATCH_CHOLESKY,
    JAXC_SCRATCH_QR,
    JAXC_SCRATCH_EIGH,
    JAXC_SCRATCH_SVD,
    JAXC_SCRATCH_EIG,
    JAXC_SCRATCH_SLOTS
};

/* The functions between JAXC_TARGET_PUSH("avx512f,fma") and JAXC_TARGET_POP()
   (an instruction-set family's: one *_family.h included with its macros)
   are compiled for that target, by GCC or clang. */
#define JAXC_PRAGMA(text) _Pragma(#text)
#ifdef __clang__
#define JAXC_TARGET_PUSH(isa) JAXC_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define JAXC_TARGET_POP() JAXC_PRAGMA(clang attribute pop)
#else
#define JAXC_TARGET_PUSH(isa) JAXC_PRAGMA(GCC push_options) JAXC_PRAGMA(GCC target(isa))
#define JAXC_TARGET_POP() JAXC_PRAGMA(GCC pop_options)
#endif

/* This thread's buffer `which`, at least `bytes` long and 64-byte aligned
   (grown as needed, kept, freed when the thread exits); NULL when out of
   memory. Its contents are garbage: a slot is scratch for one call. */
__attribute__((visibility("hidden"))) void *jaxc_scratch(int which, size_t bytes);

/* gemm.c's products C = A.B (+ C), any strides (its header comment), which
   lu.c, triangular_solve.c, cholesky.c and qr.c call; the best family the
   CPU runs. */
void _mlir_ciface_jaxc_gemm_f32_avx512(long m, long n, long k, intptr_t a, long a_offset, long rsa, long csa,
                                       intptr_t b, long b_offset, long rsb, long csb, intptr_t c, long c_offset,
                                       long rsc, long csc, long overwrite);
void _mlir_ciface_jaxc_gemm_f64_avx512(long m, long n, long k, intptr_t a, long a_offset, long rsa, long csa,
                                       intptr_t b, long b_offset, long rsb, long csb, intptr_t c, long c_offset,
                                       long rsc, long csc, long overwrite);

/* A kernel's work buffer: the thread's scratch `which`, else a fresh
   64-byte aligned allocation (*allocated set: the caller frees it), else
   NULL (the kernel's way without one). */
static inline void *jaxc_work_buffer(int which, size_t bytes, int *allocated)
{
    void *work = jaxc_scratch(which, bytes);
    *allocated = 0;
    if (!work && (work = aligned_alloc(64, (bytes + 63) / 64 * 64)))
        *allocated = 1;
    return work;
}

/* Whether this CPU runs AVX2 with FMA, and AVX-512F (with those): the
   instruction-set families the kernels are compiled for, SSE2 the third. */
static inline int jaxc_has_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static inline int jaxc_has_avx512(void) { return __builtin_cpu_supports("avx512f") && jaxc_has_avx2(); }

/* The family a call uses, 1 SSE2, 2 AVX2, 3 AVX-512: the best this CPU
   runs, or `forced` when the CPU runs it (a test's -DJAXC_<KERNEL>_FAMILY;
   0: none). */
static inline int jaxc_best_family(int forced)
{
    const int best = jaxc_has_avx512() ? 3 : jaxc_has_avx2() ? 2 : 1;
    return forced > 0 && forced < best ? forced : best;
}

#endif
