/* QR factorizations for compiled CPU code, f32 and f64, on AVX-512,
   AVX2+FMA and SSE2 (JAX's lax.linalg.qr for real types): for `batch`
   row-major m x n matrices X (contiguous, one after the other),
   k = min(m, n) and kq = m when `full`, else k,

       X = Q R      (Q m x kq with orthonormal columns, R kq x n upper
                     trapezoidal, exact zeros below its diagonal)

   Q into `q` (batch x m x kq) and R into `r` (batch x kq x n), row-major,
   x only read:

       void _mlir_ciface_jaxc_qr_f32(long batch, long m, long n, long full,
                                     intptr_t x, intptr_t q, intptr_t r);     (and _f64)

   Q and R are LAPACK's (dgeqrf then dorgqr; numpy.linalg.qr's) to
   rounding, signs included: Q = H_0 H_1 .. H_{k-1}, its first kq columns,
   and H_j = I - tau_j v_j v_j^T as dlarfg makes it from column j's alpha
   (on the diagonal) and x (below it): no reflection (tau 0, R's diagonal
   alpha) when x is zero, else beta = -sign(alpha) hypot(alpha, |x|),
   tau = (beta - alpha) / beta, v = [1; x (1 / (alpha - beta))], rescaled as
   dlarfg when |beta| is below safmin, with |x| computed without overflow
   or underflow. m or n zero: Q the identity's first kq columns, R empty.
   NaNs and infs propagate as they will.

   Blocked as LAPACK (qr_family.h): the matrix is copied into whichever of
   q and r has its shape (q when reduced and m >= n, else r). A panel of NB
   columns and all the rows below its top is packed into a buffer (rows of
   NB rounded up to 16, so columns are vector lanes) and factored there
   unblocked: each column's reflector, then its w = tau v^T P and P -= v w
   over whole vector registers of the rows, which also gives the next
   column's sum of squares. Then T of the panel's block reflector
   I - V T V^T (dlarft: V^T V by gemm, then the triangle), and the columns
   right of the panel C -= V (T^T (V^T C)): three of gemm.c's products,
   most of the work. Q: the blocks from the last, each block's columns set
   to the identity's and the block reflector applied to the columns from
   its first on, the same three products (T kept from the factorization).
   NB = 32, by measurement on a busy 2-core AVX-512 machine: 16 was 15-30%
   slower at 256-1000 (faster only at 64), 48 and 64 5-30% slower at 256
   and 512 x 128 and within 8% at 1000. 256 x 256 f32, full: 0.4 ms.
   The buffers (tau, the T's, the panel and two NB x max(m, n) products)
   are the thread's scratch of gemm.c (kernels.h); out of memory, geqr2
   and org2r in place, slowly (tau kept on q's diagonal). Single-threaded:
   the threads are the caller's. No dependencies but libc and libm. Built
   into libjaxc_kernels.so with gemm.c and the other kernels;
   jaxc.runtime.aot compiles it, with gemm.c, into exported programs that
   call it. */
#pragma GCC optimize("O3")
#include <float.h>
#include <math.h>
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
#define F64 0
#define W 4
#define NB NB_F32
#define SUFFIX f32_sse2
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX
#define T double
#define F64 1
#define W 2
#define NB NB_F64
#define SUFFIX f64_sse2
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define T float
#define F64 0
#define W 8
#define NB NB_F32
#define SUFFIX f32_avx2
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX
#define T double
#define F64 1
#define W 4
#define NB NB_F64
#define SUFFIX f64_avx2
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define T float
#define F64 0
#define W 16
#define NB NB_F32
#define SUFFIX f32_avx512
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX
#define T double
#define F64 1
#define W 8
#define NB NB_F64
#define SUFFIX f64_avx512
#include "qr_family.h"
#undef T
#undef F64
#undef W
#undef NB
#undef SUFFIX
JAXC_TARGET_POP()

#ifndef JAXC_QR_FAMILY
#define JAXC_QR_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The work buffer of an m x n factorization with panels of nb (qr_family.h,
   qr): tau (k rounded up to 16), one nb x nb T a panel (each rounded up to
   16), the packed panel (m rows of nb rounded up to 16) and two products
   of nb x max(m, n) (rounded up to 16). The thread's scratch, else a fresh
   allocation (*allocated set), else NULL (geqr2 and org2r in place). */
static void *work_buffer(long m, long n, long nb, size_t size, int *allocated)
{
    const size_t k = (size_t)(m < n ? m : n), wide = (size_t)(m > n ? m : n), b = (size_t)nb;
    const size_t elements = (k + 15) / 16 * 16 + (k + b - 1) / b * ((b * b + 15) / 16 * 16)
                            + (size_t)m * ((b + 15) / 16 * 16) + 2 * b * ((wide + 15) / 16 * 16);
    return jaxc_work_buffer(JAXC_SCRATCH_QR, size * elements, allocated);
}

/* Per matrix: the family's qr; an empty matrix gives the identity's
   columns and no R. */
#define ENTRY(T, TYPE, NB)                                                                                     \
    void _mlir_ciface_jaxc_qr_##TYPE(long batch, long m, long n, long full, intptr_t x, intptr_t q, intptr_t r) \
    {                                                                                                          \
        if (batch <= 0 || m < 0 || n < 0)                                                                      \
            return;                                                                                            \
        const long k = m < n ? m : n, kq = full ? m : k;                                                       \
        if (k == 0) {                                                                                          \
            for (long b = 0; b < batch; b++)                                                                   \
                for (long i = 0; i < m; i++)                                                                   \
                    for (long c = 0; c < kq; c++) ((T *)q)[(b * m + i) * kq + c] = i == c;                     \
            return;                                                                                            \
        }                                                                                                      \
        int allocated = 0;                                                                                     \
        T *work = work_buffer(m, n, NB, sizeof(T), &allocated);                                                \
        const int use = jaxc_best_family(JAXC_QR_FAMILY);                                                      \
        void (*factor)(long, long, long, const T *, T *, T *, T *) = use == 3   ? qr_##TYPE##_avx512          \
                                                                     : use == 2 ? qr_##TYPE##_avx2            \
                                                                                : qr_##TYPE##_sse2;           \
        for (long b = 0; b < batch; b++)                                                                       \
            factor(m, n, full, (const T *)x + b * m * n, (T *)q + b * m * kq, (T *)r + b * kq * n, work);     \
        if (allocated)                                                                                         \
            free(work);                                                                                        \
    }
ENTRY(float, f32, NB_F32)
ENTRY(double, f64, NB_F64)
#undef ENTRY
