/* Singular value decompositions for compiled CPU code, f32 and f64, on
   AVX-512, AVX2+FMA and SSE2 (JAX's lax.linalg.svd for real types): for
   `batch` row-major m x n matrices X (contiguous, one after the other),
   k = min(m, n), ku = m when `full`, else k, and kv = n when `full`, else k,

       X = U[:, :k] diag(s) Vh[:k, :]   (U m x ku and Vh^T n x kv with
                                         orthonormal columns, s >= 0
                                         descending)

   s into `s` (batch x k), U into `u` (batch x m x ku) and Vh into `vh`
   (batch x kv x n), row-major, x only read:

       void _mlir_ciface_jaxc_svd_f32(long batch, long m, long n, long full, intptr_t x,
                                      intptr_t s, intptr_t u, intptr_t vh);     (and _f64)

   U and Vh are complete orthonormal sets whatever the rank: the columns of
   zero singular values, and the `full` ones past k, included (every vector
   is a product of reflections and rotations of the identity's). m or n
   zero: s empty, U and Vh the identity's first columns and rows.
   Signs: each right singular vector (row of Vh, the `full` ones past k
   too) has its component of largest modulus (the first of them on a tie)
   positive, its column of U following; U's `full` columns past k (no
   partner) likewise. A matrix holding an inf or a NaN gives all-NaN s, U
   and Vh, as does one where QR fails to converge (30 k steps; it should
   not happen): each matrix of the batch on its own (JAX's LAPACK call
   fails there).

   Computed in double for both types (f32 in, f32 out), as Golub, Kahan and
   Reinsch (LAPACK's dgebrd, dorgbr and dbdsqr; svd_family.h). Per matrix,
   on its tall orientation A (X, or X^T when m < n: X^T = U' S V'^T gives
   U = V' and Vh = U'^T), M x N with M >= N: A's columns into the rows of
   a work array (A^T: every vector below is a contiguous row), scaled by a
   power of two to a largest modulus in [0.5, 1) (exact; no overflow or
   underflow in the norms below, whatever X's scale); Householder
   bidiagonalization, one pass over the remaining rows per step (the
   previous step's right reflector, this step's left reflector and the
   next right reflector's products fused); U^T and V^T formed in place
   from the reflectors (backwards, as dorg2r, NBR reflectors at a time:
   the rows below a block's take all of its reflectors in one pass); then
   implicit-shift QR on the bidiagonal (shift: the trailing 2 x 2's
   smaller singular value; negligible: at most DBL_EPSILON times the
   bidiagonal's largest row sum, a backward-stable absolute test, so
   singular values are accurate relative to the largest), its rotations
   recorded and applied GROUP sweeps at a time to the rows of U^T and V^T,
   a strip of a few vector registers of columns at a time with the row a
   sweep carries held in registers (about the machine's multiply-add rate;
   the most time, with the scalar chase of the bulge next). Then the
   singular values made positive and sorted, the signs chosen, and the
   vectors transposed (permuted, signed, rounded to the type) into the
   outputs. The vector code is svd_family.h, once per instruction set (GNU
   C vector types).
   By measurement on a busy 2-core AVX-512 machine, f32 or f64 alike, with
   vectors (numpy.linalg.svd, LAPACK's gesdd, single-threaded, in
   brackets): 64 x 64 0.17 ms (0.32), 256 x 256 5.2 ms (10.2), 512 x 128
   2.3 ms (4.0) and 3.8-4.4 ms full (10.5-12), 512 x 512 35 ms (60-64).
   NBR = 4: 1 was 15% slower at 512 x 512 and 40% with the full U of 512 x
   128, 8 within 3%; GROUP 8 to 64 alike.
   Work arrays (doubles; ldm, ldn: M, N rounded up to an odd number of
   cache lines): U^T (M or N rows of ldm), V^T (N x ldn), the bidiagonal,
   signs, reflectors' scalars and recorded rotations (6 + 4 GROUP vectors
   of ldn), 1 + max(4, NBR) vectors of ldm and the order (M or N longs):
   the thread's scratch of gemm.c (kernels.h), else a fresh allocation;
   out of memory, NaNs. Single-threaded: the threads are the caller's. No
   dependencies but libc and libm. Built into libjaxc_kernels.so with the
   other kernels; jaxc.runtime.aot compiles it, with gemm.c (the scratch),
   into exported programs that call it. */
#pragma GCC optimize("O3")
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* QR sweeps whose rotations are applied together (-D to measure others). */
#ifndef GROUP
#define GROUP 32
#endif
/* Reflectors applied together in forming U^T and V^T (-D to measure others). */
#ifndef NBR
#define NBR 4
#endif
#define REST (NBR > 4 ? NBR : 4) /* vectors of ldm in the family's work */


/* SSE2 (every x86-64 CPU): one xmm a vector. */
#define W 2
#define SUFFIX sse2
#include "svd_family.h"
#undef W
#undef SUFFIX

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define W 4
#define SUFFIX avx2
#include "svd_family.h"
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define W 8
#define SUFFIX avx512
#include "svd_family.h"
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

#ifndef JAXC_SVD_FAMILY
#define JAXC_SVD_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* `len` rounded up to an odd number of cache lines of doubles (rows of
   that stride do not all map to the same cache sets). */
static long stride_of(long len) { return ((len + 7) / 16 * 2 + 1) * 8; }

/* The work arrays of an M x N decomposition (M >= N) with `rows` rows of
   U^T: U^T (rows x ldm), V^T (N x ldn), d, the signs (2 ldn + ldm), the
   family's work (3 ldn + 4 GROUP ldn + REST ldm) and the order (`rows`
   longs). The thread's scratch, else a fresh allocation (*allocated set),
   else NULL. */
static size_t work_doubles(long rows, long N, long ldm, long ldn)
{
    return (size_t)rows * (size_t)ldm + (size_t)N * (size_t)ldn + (size_t)(6 + 4 * GROUP) * (size_t)ldn
           + (size_t)(1 + REST) * (size_t)ldm;
}

/* The order of the singular values d (descending; finite, non-negative)
   into `order`: an insertion sort, O(N^2) at worst, nothing next to the
   O(N^3) before it (the order QR leaves is mostly sorted already). */
static void sort_order(long n, const double *d, long *order)
{
    for (long j = 0; j < n; j++) {
        const long o = j;
        long k = j;
        for (; k > 0 && d[order[k - 1]] < d[o]; k--) order[k] = order[k - 1];
        order[k] = o;
    }
}

/* +1 or -1: the sign of the first component of largest modulus of v. */
static double sign_of(long n, const double *v)
{
    long best = 0;
    double largest = -1;
    for (long i = 0; i < n; i++)
        if (fabs(v[i]) > largest) {
            largest = fabs(v[i]);
            best = i;
        }
    return v[best] < 0 ? -1.0 : 1.0;
}

/* 2^k in two factors, each a normal double (|k| <= 2200). */
static void power_of_two(int k, double *f0, double *f1)
{
    *f0 = ldexp(1.0, k / 2);
    *f1 = ldexp(1.0, k - k / 2);
}

/* Per matrix: A^T into the work array (the largest modulus, and whether
   all are finite, first), scaled by 2^-e; the decomposition; then the
   outputs. NaNs where it fails. */
#define ENTRY(T, TYPE)                                                                                           \
    static void nans_##TYPE(long m, long n, long k, long ku, long kv, T *s, T *u, T *vh)                         \
    {                                                                                                            \
        for (long i = 0; i < k; i++) s[i] = NAN;                                                                 \
        for (long i = 0; i < m * ku; i++) u[i] = NAN;                                                            \
        for (long i = 0; i < kv * n; i++) vh[i] = NAN;                                                           \
    }                                                                                                            \
                                                                                                                 \
    /* out[i][c] = sign[c] rows[order[c]][i] for i < len, c < count: a                                           \
       transposed write, in tiles of 16 x 16. */                                                                 \
    static void transpose_out_##TYPE(long len, long count, const double *rows, long ld, const long *order,       \
                                     const double *sign, T *out)                                                 \
    {                                                                                                            \
        for (long c0 = 0; c0 < count; c0 += 16) {                                                                \
            const long c1 = c0 + 16 < count ? c0 + 16 : count;                                                   \
            for (long i0 = 0; i0 < len; i0 += 16) {                                                              \
                const long i1 = i0 + 16 < len ? i0 + 16 : len;                                                   \
                for (long c = c0; c < c1; c++) {                                                                 \
                    const double *row = rows + order[c] * ld, g = sign[c];                                       \
                    for (long i = i0; i < i1; i++) out[i * count + c] = (T)(g * row[i]);                         \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
                                                                                                                 \
    void _mlir_ciface_jaxc_svd_##TYPE(long batch, long m, long n, long full, intptr_t x, intptr_t s,             \
                                      intptr_t u, intptr_t vh)                                                   \
    {                                                                                                            \
        if (batch <= 0 || m < 0 || n < 0)                                                                        \
            return;                                                                                              \
        const long k = m < n ? m : n, ku = full ? m : k, kv = full ? n : k;                                      \
        if (k == 0) {                                                                                            \
            for (long b = 0; b < batch; b++) {                                                                   \
                for (long i = 0; i < m; i++)                                                                     \
                    for (long c = 0; c < ku; c++) ((T *)u)[(b * m + i) * ku + c] = i == c;                       \
                for (long i = 0; i < kv; i++)                                                                    \
                    for (long c = 0; c < n; c++) ((T *)vh)[(b * kv + i) * n + c] = i == c;                       \
            }                                                                                                    \
            return;                                                                                              \
        }                                                                                                        \
        const int tall = m >= n;                                                                                 \
        const long M = tall ? m : n, N = k, rows = full ? M : N;                                                 \
        const long ldm = stride_of(M), ldn = stride_of(N);                                                       \
        int allocated = 0;                                                                                       \
        const size_t bytes = sizeof(double) * work_doubles(rows, N, ldm, ldn) + sizeof(long) * rows;            \
        double *work = jaxc_work_buffer(JAXC_SCRATCH_SVD, bytes, &allocated);                                    \
        const int use = jaxc_best_family(JAXC_SVD_FAMILY);                                                       \
        int (*decompose)(long, long, long, long, long, double *, double *, double *, double *) =                 \
            use == 3 ? decompose_avx512 : use == 2 ? decompose_avx2 : decompose_sse2;                            \
        double *ut = work, *vt = ut + rows * ldm, *d = vt + N * ldn, *gd = d + ldn, *gv = gd + ldn,              \
               *gu = gv + ldn, *rest = gu + ldm;                                                                 \
        long *order = (long *)(rest + (3 + 4 * GROUP) * ldn + REST * ldm);                                       \
        for (long b = 0; b < batch; b++) {                                                                       \
            const T *xb = (const T *)x + b * m * n;                                                              \
            T *sb = (T *)s + b * k, *ub = (T *)u + b * m * ku, *vb = (T *)vh + b * kv * n;                       \
            if (!work) {                                                                                         \
                nans_##TYPE(m, n, k, ku, kv, sb, ub, vb);                                                        \
                continue;                                                                                        \
            }                                                                                                    \
            double largest = 0;                                                                                  \
            int finite = 1;                                                                                      \
            for (long i = 0; i < m * n; i++) {                                                                   \
                const double v = xb[i];                                                                          \
                finite &= v - v == 0; /* not inf, not NaN */                                                     \
                largest = fabs(v) > largest ? fabs(v) : largest;                                                 \
            }                                                                                                    \
            if (!finite) {                                                                                       \
                nans_##TYPE(m, n, k, ku, kv, sb, ub, vb);                                                        \
                continue;                                                                                        \
            }                                                                                                    \
            int e = 0;                                                                                           \
            if (largest > 0)                                                                                     \
                frexp(largest, &e);                                                                              \
            double f0, f1;                                                                                       \
            power_of_two(-e, &f0, &f1);                                                                          \
            /* Row c of ut: A's column c (X's column c when tall, else X's row c), zero past M. */               \
            if (tall) {                                                                                          \
                for (long c0 = 0; c0 < N; c0 += 16) {                                                            \
                    const long c1 = c0 + 16 < N ? c0 + 16 : N;                                                   \
                    for (long i0 = 0; i0 < M; i0 += 16) {                                                        \
                        const long i1 = i0 + 16 < M ? i0 + 16 : M;                                               \
                        for (long c = c0; c < c1; c++)                                                           \
                            for (long i = i0; i < i1; i++) ut[c * ldm + i] = (double)xb[i * n + c] * f0 * f1;    \
                    }                                                                                            \
                }                                                                                                \
            } else {                                                                                             \
                for (long c = 0; c < N; c++)                                                                     \
                    for (long i = 0; i < M; i++) ut[c * ldm + i] = (double)xb[c * n + i] * f0 * f1;              \
            }                                                                                                    \
            for (long c = 0; c < N; c++) memset(ut + c * ldm + M, 0, sizeof(double) * (ldm - M));                \
            if (decompose(M, N, rows, ldm, ldn, ut, vt, d, rest)) {                                              \
                nans_##TYPE(m, n, k, ku, kv, sb, ub, vb);                                                        \
                continue;                                                                                        \
            }                                                                                                    \
            /* Signs, per output position: gu for ut's rows, gv for vt's; the right                              \
               singular vector (vt's row when tall, else ut's) decides, its partner also                         \
               takes d's sign. */                                                                                \
            for (long j = 0; j < N; j++) {                                                                       \
                gd[j] = d[j] < 0 ? -1.0 : 1.0;                                                                   \
                d[j] = fabs(d[j]);                                                                               \
            }                                                                                                    \
            sort_order(N, d, order);                                                                             \
            power_of_two(e, &f0, &f1);                                                                           \
            for (long j = 0; j < N; j++) {                                                                       \
                const long o = order[j];                                                                         \
                sb[j] = (T)(d[o] * f0 * f1);                                                                     \
                const double g = tall ? sign_of(N, vt + o * ldn) : sign_of(M, ut + o * ldm);                     \
                gu[j] = tall ? g * gd[o] : g;                                                                    \
                gv[j] = tall ? g : g * gd[o];                                                                    \
            }                                                                                                    \
            for (long j = N; j < rows; j++) {                                                                    \
                order[j] = j;                                                                                    \
                gu[j] = sign_of(M, ut + j * ldm);                                                                \
            }                                                                                                    \
            if (tall) {                                                                                          \
                for (long c = 0; c < N; c++) {                                                                   \
                    const double *row = vt + order[c] * ldn, g = gv[c];                                          \
                    for (long i = 0; i < n; i++) vb[c * n + i] = (T)(g * row[i]);                                \
                }                                                                                                \
                transpose_out_##TYPE(m, ku, ut, ldm, order, gu, ub);                                             \
            } else {                                                                                             \
                transpose_out_##TYPE(m, m, vt, ldn, order, gv, ub);                                              \
                for (long c = 0; c < kv; c++) {                                                                  \
                    const double *row = ut + order[c] * ldm, g = gu[c];                                          \
                    for (long i = 0; i < n; i++) vb[c * n + i] = (T)(g * row[i]);                                \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
        if (allocated)                                                                                           \
            free(work);                                                                                          \
    }
ENTRY(float, f32)
ENTRY(double, f64)
#undef ENTRY
