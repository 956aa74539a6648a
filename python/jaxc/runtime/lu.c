/* LU factorization with partial pivoting for compiled CPU code, f32 and
   f64, on AVX-512, AVX2+FMA and SSE2: for `batch` row-major m x n matrices
   X (contiguous, one after the other), k = min(m, n),

       P X = L U      (L m x k unit lower triangular, U k x n upper triangular)

   L below the diagonal and U on and above it into `lu` (the same layout as
   x, another buffer), LAPACK getf2's pivots (row c was swapped with row
   pivots[c] at step c; int32, batch x k) and the permutation they make
   (row i of P X is row permutation[i] of X; int32, batch x m):

       void _mlir_ciface_jaxc_lu_f32(long batch, long m, long n, intptr_t x, intptr_t lu,
                                     intptr_t pivots, intptr_t permutation);     (and _f64)

   Step c, as getf2 and jaxc's lu without the library: the pivot is the
   first row at or below c with the largest modulus in column c (the first
   NaN, if there is one, as numpy's argmax); whole rows are swapped; the
   rows below are divided by the pivot unless it is 0, and the trailing
   matrix less their outer product with the pivot's row.

   Blocked as LAPACK's getrf (right-looking): a panel of NB columns and all
   the rows below is copied into a buffer, its rows one vector register
   multiple wide, and factored there column by column as above (the next
   pivot searched while the rows are updated; swaps go to the whole rows).
   Then U12 = L11^-1 A12 row by row, and the trailing matrix
   A22 += L21 (-U12) by gemm.c's product, which does most of the work. NB =
   32, by measurement on an AVX-512 Zen 4 (16 and 64 were 2-10% slower
   at 256-1000; 16 much slower for f64 at 512). The buffers are the thread's
   scratch of gemm.c (kernels.h); out of memory, getf2 in place, slowly.
   Single-threaded: the threads are the caller's. No dependencies but libc.
   Built into libjaxc_kernels.so with gemm.c and the other kernels;
   jaxc.runtime.aot compiles it, with gemm.c, into exported programs that
   call it. */
#pragma GCC optimize("O3")
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* The panel width (-D to measure others). */
#ifndef NB_F32
#define NB_F32 32
#endif
#ifndef NB_F64
#define NB_F64 32
#endif


/* SSE2 (every x86-64 CPU): one xmm a vector. */
#define T float
#define I int32_t
#define ABS __builtin_fabsf
#define W 4
#define NB NB_F32
#define SUFFIX f32_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define I int64_t
#define ABS __builtin_fabs
#define W 2
#define NB NB_F64
#define SUFFIX f64_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define T float
#define I int32_t
#define ABS __builtin_fabsf
#define W 8
#define NB NB_F32
#define SUFFIX f32_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define I int64_t
#define ABS __builtin_fabs
#define W 4
#define NB NB_F64
#define SUFFIX f64_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define T float
#define I int32_t
#define ABS __builtin_fabsf
#define W 16
#define NB NB_F32
#define SUFFIX f32_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define I int64_t
#define ABS __builtin_fabs
#define W 8
#define NB NB_F64
#define SUFFIX f64_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "lu_family.h"
#undef T
#undef I
#undef ABS
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
JAXC_TARGET_POP()

#ifndef JAXC_LU_FAMILY
#define JAXC_LU_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The work buffer of an m x n factorization with panels NB wide: the
   packed panel (m rows of NB rounded up to a multiple of 16), a column (m)
   and -U12 (NB x n). The thread's scratch, else a fresh allocation
   (*allocated set), else NULL (getf2 in place). */
static void *work_buffer(long m, long n, long nb, size_t size, int *allocated)
{
    const size_t bytes = size * ((size_t)m * (size_t)((nb + 15) / 16 * 16 + 1) + (size_t)nb * (size_t)n);
    return jaxc_work_buffer(JAXC_SCRATCH_LU, bytes, allocated);
}

#define ENTRY(T, TYPE, NB)                                                                                 \
    void _mlir_ciface_jaxc_lu_##TYPE(long batch, long m, long n, intptr_t x, intptr_t lu, intptr_t pivots, \
                                     intptr_t permutation)                                                 \
    {                                                                                                      \
        if (batch <= 0 || m < 0 || n < 0)                                                                  \
            return;                                                                                        \
        const long k = m < n ? m : n;                                                                      \
        int allocated = 0;                                                                                 \
        T *work = k > 0 ? work_buffer(m, n, NB, sizeof(T), &allocated) : NULL;                             \
        const int use = jaxc_best_family(JAXC_LU_FAMILY);                                                  \
        void (*factor)(long, long, T *, int32_t *, int32_t *, T *) = use == 3   ? factor_##TYPE##_avx512  \
                                                                      : use == 2 ? factor_##TYPE##_avx2    \
                                                                                 : factor_##TYPE##_sse2;   \
        for (long b = 0; b < batch; b++) {                                                                 \
            T *a = (T *)lu + b * m * n;                                                                    \
            int32_t *perm = (int32_t *)permutation + b * m;                                                \
            if (m * n > 0 && (const T *)x != (const T *)lu)                                                \
                memcpy(a, (const T *)x + b * m * n, sizeof(T) * (size_t)(m * n));                          \
            for (long i = 0; i < m; i++) perm[i] = (int32_t)i;                                             \
            if (k > 0)                                                                                     \
                factor(m, n, a, (int32_t *)pivots + b * k, perm, work);                                    \
        }                                                                                                  \
        if (allocated)                                                                                     \
            free(work);                                                                                    \
    }
ENTRY(float, f32, NB_F32)
ENTRY(double, f64, NB_F64)
#undef ENTRY
