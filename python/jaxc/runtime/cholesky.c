/* Cholesky factorizations for compiled CPU code, f32 and f64, on AVX-512,
   AVX2+FMA and SSE2 (JAX's lax.linalg.cholesky for real types): for
   `batch` row-major n x n matrices X (contiguous, one after the other),
   of which only the lower triangle is read (what lies above the diagonal
   may be anything, NaN included),

       A = L L^T      (A the symmetric matrix whose lower triangle is X's,
                       L lower triangular with a positive diagonal)

   L into `l` (the layout of x, another buffer), exact zeros above its
   diagonal:

       void _mlir_ciface_jaxc_cholesky_f32(long batch, long n, intptr_t x, intptr_t l);   (and _f64)

   A matrix that is not positive definite (a diagonal of L would be the
   square root of zero, of a negative number or of NaN), or whose L is not
   finite (an inf or NaN in X's lower triangle), gives n x n NaNs, as JAX:
   each matrix of the batch on its own.

   Blocked as LAPACK's potrf (lower, right-looking; cholesky_family.h):
   X's lower triangle is copied into l (zeros above) and factored there.
   A diagonal block of NB by potf2 row by row (each entry a dot product of
   two contiguous rows); the panel below it L21 = A21 L11^-T, transposed
   into a buffer and solved there along its rows, 4 vectors of them at a
   time; then the trailing lower triangle A22 += L21 (-L21^T) by gemm.c's
   product, which does most of the work, a block column of UB at a time
   from its diagonal down (the squares on the diagonal whole; the garbage
   they leave above it is cleared at the end). NB = 32 and UB = 128, by
   measurement on a busy 2-core AVX-512 machine: NB 16 was 10-35% slower
   at 512-1000 (faster at 64), 48, 64 and 96 5-60% slower at 64-512; UB
   256 and 512 5-25% slower at 512-1000.
   The buffer (-L21^T and the reciprocals of L11's diagonal) is the
   thread's scratch of gemm.c (kernels.h); out of memory, potf2 on the
   whole matrix in l, slowly. Single-threaded: the threads are the
   caller's. No dependencies but libc and libm. Built into
   libjaxc_kernels.so with gemm.c and the other kernels; jaxc.runtime.aot
   compiles it, with gemm.c, into exported programs that call it. */
#pragma GCC optimize("O3")
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* The diagonal blocks' size and the update's block columns (-D to
   measure others). */
#ifndef NB_F32
#define NB_F32 32
#endif
#ifndef NB_F64
#define NB_F64 32
#endif
#ifndef UB
#define UB 128
#endif


/* SSE2 (every x86-64 CPU): one xmm a vector. */
#define T float
#define SQRT __builtin_sqrtf
#define W 4
#define NB NB_F32
#define SUFFIX f32_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define SQRT __builtin_sqrt
#define W 2
#define NB NB_F64
#define SUFFIX f64_sse2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define T float
#define SQRT __builtin_sqrtf
#define W 8
#define NB NB_F32
#define SUFFIX f32_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define SQRT __builtin_sqrt
#define W 4
#define NB NB_F64
#define SUFFIX f64_avx2
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define T float
#define SQRT __builtin_sqrtf
#define W 16
#define NB NB_F32
#define SUFFIX f32_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
#define T double
#define SQRT __builtin_sqrt
#define W 8
#define NB NB_F64
#define SUFFIX f64_avx512
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#include "cholesky_family.h"
#undef T
#undef SQRT
#undef W
#undef NB
#undef SUFFIX
#undef GEMM
JAXC_TARGET_POP()

#ifndef JAXC_CHOLESKY_FAMILY
#define JAXC_CHOLESKY_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The work buffer of an n x n factorization with blocks of nb: -L21^T
   (nb rows of n rounded up to 64) and nb reciprocals (rounded up to 16).
   The thread's scratch, else a fresh allocation (*allocated set), else
   NULL (potf2 in place). */
static void *work_buffer(long n, long nb, size_t size, int *allocated)
{
    const size_t bytes = size * ((size_t)nb * (size_t)((n + 63) / 64 * 64) + (size_t)((nb + 15) / 16 * 16));
    return jaxc_work_buffer(JAXC_SCRATCH_CHOLESKY, bytes, allocated);
}

/* Per matrix: x's lower triangle into a (zeros above), the factorization,
   then the check (a positive diagonal, all finite) as the triangle above
   the diagonal is cleared of the update's garbage; NaNs if it fails. */
#define ENTRY(T, TYPE, NB)                                                                                   \
    void _mlir_ciface_jaxc_cholesky_##TYPE(long batch, long n, intptr_t x, intptr_t l)                     \
    {                                                                                                        \
        if (batch <= 0 || n <= 0)                                                                            \
            return;                                                                                          \
        int allocated = 0;                                                                                   \
        T *work = work_buffer(n, NB, sizeof(T), &allocated);                                                 \
        const int use = jaxc_best_family(JAXC_CHOLESKY_FAMILY);                                              \
        int (*factor)(long, T *, T *) = use == 3   ? factor_##TYPE##_avx512                                  \
                                        : use == 2 ? factor_##TYPE##_avx2                                    \
                                                   : factor_##TYPE##_sse2;                                   \
        for (long b = 0; b < batch; b++) {                                                                   \
            const T *xb = (const T *)x + b * n * n;                                                          \
            T *a = (T *)l + b * n * n;                                                                       \
            for (long i = 0; i < n; i++) {                                                                   \
                memcpy(a + i * n, xb + i * n, sizeof(T) * (size_t)(i + 1));                                  \
                memset(a + i * n + i + 1, 0, sizeof(T) * (size_t)(n - i - 1));                               \
            }                                                                                                \
            int ok = factor(n, a, work) == 0;                                                                \
            for (long i = 0; ok && i < n; i++) {                                                             \
                const T *row = a + i * n;                                                                    \
                int finite = 1;                                                                              \
                for (long j = 0; j <= i; j++) finite &= row[j] - row[j] == 0;  /* not inf, not NaN */       \
                ok = finite && row[i] > 0;                                                                   \
                memset(a + i * n + i + 1, 0, sizeof(T) * (size_t)(n - i - 1));                               \
            }                                                                                                \
            if (!ok)                                                                                         \
                for (long i = 0; i < n * n; i++) a[i] = NAN;                                                 \
        }                                                                                                    \
        if (allocated)                                                                                       \
            free(work);                                                                                      \
    }
ENTRY(float, f32, NB_F32)
ENTRY(double, f64, NB_F64)
#undef ENTRY
