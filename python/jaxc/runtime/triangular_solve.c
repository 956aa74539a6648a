/* Triangular solves for compiled CPU code, f32 and f64, on AVX-512,
   AVX2+FMA and SSE2 (JAX's lax.linalg.triangular_solve for real types):
   for `batch` row-major m x n matrices B (contiguous, one after the other)
   and as many k x k matrices A (k = m when left_side, else n),

       op(A) X = B   (left_side)      or      X op(A) = B   (otherwise)

   with op(A) = A, or A^T when transpose_a; A triangular: only its lower
   triangle is read when `lower`, else only its upper, and not its diagonal
   when unit_diagonal (taken as ones). X into `x` (the layout of b, another
   buffer that overlaps neither b nor a):

       void _mlir_ciface_jaxc_triangular_solve_f32(long batch, long m, long n, intptr_t a, intptr_t b,
                                                   intptr_t x, long left_side, long lower,
                                                   long transpose_a, long unit_diagonal);   (and _f64)

   A zero (or subnormal, inf, NaN) diagonal gives what IEEE division by it
   gives; the other diagonals are multiplied by their reciprocal.

   Blocked as LAPACK's trsm, recursively (triangular_solve_family.h): the
   unknowns (rows of X on the left, its columns on the right) split in two
   at a multiple of NB near the middle, the first half solved, the second
   half's right-hand sides less its product with the first (gemm.c's
   product on strided views of a and x: a transpose costs no copy; the
   product or its transpose, whichever gemm.c computes better for few
   right-hand sides), the second half solved. The products accumulate in x
   (the first one overwrites), and a diagonal block of NB or fewer takes b
   less them by substitution: the block packed (its triangle only, in the
   order of solution, so that an upper one runs as a lower one through
   negative strides), RB rows at a time against 2 vectors of right-hand
   sides. On the left side those are along X's rows, in place; on the
   right side 2 W rows of X are transposed (W x W in registers) into a
   buffer, solved there and transposed back. So b is read once, x written
   about log2(k / NB) times (the products) and nothing is copied whole.
   NB = 96, or 32 for at most 2 vectors of right-hand sides, by measurement
   on an AVX-512 Zen 5 at k = 256: with 256 right-hand sides 64 was 2-4%
   slower and 32 5-10%; with 8, 64 and 96 were 5-15% slower than 32. The
   work buffer (a packed block and a strip) is the thread's scratch of
   gemm.c (kernels.h); out of memory, plain substitution from a into x,
   slowly. Single-threaded: the threads are the caller's. No dependencies
   but libc. Built into libjaxc_kernels.so with gemm.c and the other
   kernels; jaxc.runtime.aot compiles it, with gemm.c, into exported
   programs that call it. */
#pragma GCC optimize("O3")
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

/* The diagonal blocks' size, NB_FEW for at most FEW vectors of right-
   hand sides (-D to measure others). */
#ifndef NB_F32
#define NB_F32 96
#endif
#ifndef NB_F64
#define NB_F64 96
#endif
#ifndef NB_FEW
#define NB_FEW 32
#endif
#ifndef FEW
#define FEW 2
#endif


/* SSE2 (every x86-64 CPU): one xmm a vector; 16 registers, so 4 rows of
   2 vectors at a time. */
#define RB 4
#define T float
#define W 4
#define NB NB_F32
#define SUFFIX f32_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define W 2
#define NB NB_F64
#define SUFFIX f64_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM

/* AVX2 + FMA: one ymm a vector; 4 rows at a time (8 spill). */
JAXC_TARGET_PUSH("avx2,fma")
#define T float
#define W 8
#define NB NB_F32
#define SUFFIX f32_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define W 4
#define NB NB_F64
#define SUFFIX f64_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector; 32 registers, so 8 rows at a time (4 were
   5% slower). */
#undef RB
#define RB 8
JAXC_TARGET_PUSH("avx512f,fma")
#define T float
#define W 16
#define NB NB_F32
#define SUFFIX f32_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define W 8
#define NB NB_F64
#define SUFFIX f64_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "triangular_solve_family.h"
#undef T
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#undef RB
JAXC_TARGET_POP()

#ifndef JAXC_TRSM_FAMILY
#define JAXC_TRSM_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The work buffer: a packed diagonal block (NB x NB), its diagonal,
   reciprocals and flags (3 NB) and a strip (NB x 32: 2 vectors of the
   widest family). The thread's scratch, else a fresh allocation
   (*allocated set), else NULL (substitution from a into x). */
static void *work_buffer(long nb, size_t size, int *allocated)
{
    const size_t bytes = size * (size_t)((nb * nb + 3 * nb + 15) / 16 * 16 + nb * 32);
    return jaxc_work_buffer(JAXC_SCRATCH_TRSM, bytes, allocated);
}

#define ENTRY(T, TYPE, NB)                                                                                       \
    void _mlir_ciface_jaxc_triangular_solve_##TYPE(long batch, long m, long n, intptr_t a, intptr_t b,          \
                                                   intptr_t x, long left_side, long lower, long transpose_a,    \
                                                   long unit_diagonal)                                          \
    {                                                                                                            \
        if (batch <= 0 || m <= 0 || n <= 0)                                                                      \
            return;                                                                                              \
        const long k = left_side ? m : n;                                                                        \
        const int left = left_side != 0, low = lower != 0, trans = transpose_a != 0, unit = unit_diagonal != 0; \
        int allocated = 0;                                                                                       \
        T *work = work_buffer(NB, sizeof(T), &allocated);                                                        \
        const int use = jaxc_best_family(JAXC_TRSM_FAMILY);                                                      \
        void (*solve)(long, long, const T *, const T *, T *, int, int, int, int, T *) =                         \
            use == 3 ? solve_##TYPE##_avx512 : use == 2 ? solve_##TYPE##_avx2 : solve_##TYPE##_sse2;             \
        void (*unblocked)(long, long, const T *, const T *, T *, int, int, int, int) =                          \
            use == 3 ? unblocked_##TYPE##_avx512 : use == 2 ? unblocked_##TYPE##_avx2 : unblocked_##TYPE##_sse2; \
        for (long i = 0; i < batch; i++) {                                                                       \
            const T *ai = (const T *)a + i * k * k, *bi = (const T *)b + i * m * n;                              \
            T *xi = (T *)x + i * m * n;                                                                          \
            if (work)                                                                                            \
                solve(m, n, ai, bi, xi, left, low, trans, unit, work);                                           \
            else                                                                                                 \
                unblocked(m, n, ai, bi, xi, left, low, trans, unit);                                             \
        }                                                                                                        \
        if (allocated)                                                                                           \
            free(work);                                                                                          \
    }
ENTRY(float, f32, NB_F32)
ENTRY(double, f64, NB_F64)
#undef ENTRY
