/* Symmetric eigendecompositions for compiled CPU code, f32 and f64, on
   AVX-512, AVX2+FMA and SSE2 (JAX's lax.linalg.eigh for real types): for
   `batch` row-major n x n matrices X (contiguous, one after the other), of
   which only one triangle is read, diagonal included (the lower one when
   `lower` is nonzero, else the upper one; the other may hold anything, NaN
   included),

       A = V diag(w) V^T   (A the symmetric matrix whose that-triangle is X's,
                            V orthogonal, w ascending)

   V into `vectors` (the layout of x, another buffer: column j,
   vectors[i n + j] for i = 0..n-1, is the unit eigenvector of w[j]) and w
   into `values` (batch x n); x is only read:

       void _mlir_ciface_jaxc_eigh_f32(long batch, long n, long lower, intptr_t x,
                                       intptr_t vectors, intptr_t values);      (and _f64)

   Signs: each eigenvector's component of largest modulus (the first of
   them on a tie) is positive. A matrix whose read triangle holds an inf or
   a NaN gives n x n and n NaNs, as does one where QL does not converge
   within 30 n sweeps (it should not happen): each matrix of the batch on
   its own.

   Computed in double for both types (f32 in, f32 out). Per matrix
   (eigh_family.h):
   - the read triangle is copied into a work array as a lower triangle,
     scaled by a power of two to a largest modulus in [0.5, 1) (exact; no
     overflow or underflow in the norms below, whatever X's scale);
   - Householder tridiagonalization from the last row up (EISPACK tred2's
     order: each reflector is a contiguous row of the lower triangle), each
     step's symmetric rank-2 update fused with the next step's A u in one
     pass over the rows;
   - Q^T = P_2 ... P_{n-1} built row by row (each row of Q^T takes the
     reflectors in turn: dot products and updates along contiguous rows,
     a block of rows and a block of reflectors at a time);
   - the implicit QL algorithm with Wilkinson's shift (tql2) on the
     tridiagonal. Its rotations go to the rows of Q^T, i.e. V^T (a rotation
     combines two contiguous rows), G sweeps at a time, as one wavefront a
     vector of columns wide whose 2 G rows in flight stay in registers: a
     load, a store and G rotations a step (4 G multiplies and
     multiply-adds), compute-bound. QL itself, a latency-bound chain of
     square roots and divisions, runs as a state machine interleaved with
     the wavefront's steps, producing the next group of sweeps as this one
     is applied;
   - the eigenvalues sorted, the signs chosen, V^T transposed (permuted,
     signed, rounded to the type) into `vectors`, w scaled back.
   About 10/3 n^3 multiply-adds in all, two thirds of them QL's.
   Measured (a busy 2-core AVX-512 Zen 5 VM, f64; f32 the same): n = 64
   0.11 ms, 256 2.4 ms, 512 18 ms, against 0.20, 4.2 and 23 ms for
   np.linalg.eigh (LAPACK syevd, OpenBLAS, one thread); AVX2 1.6x and
   SSE2 3.5x the AVX-512 times at 256.
   Work arrays: (2 n + 37) ld + 512 doubles and ld longs (ld: n rounded up
   to an odd number of 64-byte lines, so that the rows in flight do not
   share cache sets), the thread's scratch of gemm.c (kernels.h), else a
   fresh allocation; out of memory, NaNs. Single-threaded: the threads are
   the caller's. No dependencies but libc and libm. Built into
   libjaxc_kernels.so with the other kernels; jaxc.runtime.aot compiles
   it, with gemm.c (the scratch), into exported programs that call it. */
#pragma GCC optimize("O3")
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* The work arrays past the two matrices, in vectors of ld doubles (and
   WORK_EXTRA doubles): the eigenvalues, then decompose's: 2 (T's
   off-diagonal, the reflectors' h; the tridiagonalization's 3 vectors
   after them), then QL's: 2 (G + 1) for the recorded rotations and
   2 G (n + 4 G) for them laid out by step (G <= 8). */
#define WORK_VECTORS 37
#define WORK_EXTRA 512

/* QL's budget: JAXC_EIGH_SWEEPS n sweeps a matrix (-D for tests). */
#ifndef JAXC_EIGH_SWEEPS
#define JAXC_EIGH_SWEEPS 30
#endif

/* The QL sweeps a wavefront applies at once, each family's (4 to 8: 2 G
   vector registers hold its rows), and its steps between two of QL's
   rotations (-D to measure others). */
#ifndef G_SSE2
#define G_SSE2 4
#endif
#ifndef G_AVX2
#define G_AVX2 6
#endif
#ifndef G_AVX512
#define G_AVX512 8
#endif
#ifndef STRIDE
#define STRIDE 4
#endif

/* The states of eigh_family.h's QL. */
enum { QL_RUNNING, QL_READY, QL_DONE, QL_FAILED };


/* SSE2 (every x86-64 CPU): one xmm a vector. */
#define W 2
#define G G_SSE2
#define SUFFIX sse2
#include "eigh_family.h"
#undef W
#undef G
#undef SUFFIX

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define W 4
#define G G_AVX2
#define SUFFIX avx2
#include "eigh_family.h"
#undef W
#undef G
#undef SUFFIX
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define W 8
#define G G_AVX512
#define SUFFIX avx512
#include "eigh_family.h"
#undef W
#undef G
#undef SUFFIX
JAXC_TARGET_POP()

#ifndef JAXC_EIGH_FAMILY
#define JAXC_EIGH_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The work arrays of an n x n decomposition: the lower triangle (n x ld),
   V^T (n x ld), WORK_VECTORS vectors of ld doubles and WORK_EXTRA doubles,
   ld longs (the order). The thread's scratch, else a fresh allocation
   (*allocated set), else NULL. */
static double *work_buffer(long n, long ld, int *allocated)
{
    const size_t bytes = sizeof(double) * ((2 * (size_t)n + WORK_VECTORS) * (size_t)ld + WORK_EXTRA) +
                         sizeof(long) * (size_t)ld;
    return jaxc_work_buffer(JAXC_SCRATCH_EIGH, bytes, allocated);
}

/* The order of the eigenvalues w (ascending; finite) into `order`: an
   insertion sort, O(n^2) at worst, nothing next to the O(n^3) before it. */
static void sort_order(long n, const double *w, long *order)
{
    for (long j = 0; j < n; j++) {
        const long o = order[j] = j;
        long k = j;
        for (; k > 0 && w[order[k - 1]] > w[o]; k--) order[k] = order[k - 1];
        order[k] = o;
    }
}

/* +1 or -1: the sign of the first component of largest modulus of the
   eigenvector `v` (a row of V^T). */
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

/* Per matrix: the read triangle into a (as a lower triangle; the largest
   modulus, and whether all are finite, first), scaled by 2^k; the
   decomposition; then the outputs. NaNs where it fails. */
#define ENTRY(T, TYPE)                                                                                        \
    static void nans_##TYPE(long n, T *v, T *w)                                                               \
    {                                                                                                         \
        for (long i = 0; i < n * n; i++) v[i] = NAN;                                                          \
        for (long i = 0; i < n; i++) w[i] = NAN;                                                              \
    }                                                                                                         \
                                                                                                              \
    void _mlir_ciface_jaxc_eigh_##TYPE(long batch, long n, long lower, intptr_t x, intptr_t vectors,          \
                                       intptr_t values)                                                       \
    {                                                                                                         \
        if (batch <= 0 || n <= 0)                                                                             \
            return;                                                                                           \
        const long ld = ((n + 7) / 16 * 2 + 1) * 8; /* an odd number of cache lines */                        \
        int allocated = 0;                                                                                    \
        double *work = work_buffer(n, ld, &allocated);                                                        \
        const int use = jaxc_best_family(JAXC_EIGH_FAMILY);                                                   \
        int (*decompose)(long, long, double *, double *, double *, double *) =                                \
            use == 3 ? decompose_avx512 : use == 2 ? decompose_avx2 : decompose_sse2;                         \
        double *a = work, *z = a + n * ld, *w = z + n * ld, *rest = w + ld;                                   \
        long *order = (long *)(rest + (WORK_VECTORS - 1) * ld + WORK_EXTRA);                                  \
        for (long b = 0; b < batch; b++) {                                                                    \
            const T *xb = (const T *)x + b * n * n;                                                           \
            T *vb = (T *)vectors + b * n * n, *wb = (T *)values + b * n;                                      \
            if (!work) {                                                                                      \
                nans_##TYPE(n, vb, wb);                                                                       \
                continue;                                                                                     \
            }                                                                                                 \
            double largest = 0;                                                                               \
            int finite = 1;                                                                                   \
            for (long i = 0; i < n; i++)                                                                      \
                for (long j = 0; j <= i; j++) {                                                               \
                    const double v = lower ? xb[i * n + j] : xb[j * n + i];                                   \
                    finite &= v - v == 0; /* not inf, not NaN */                                              \
                    largest = fabs(v) > largest ? fabs(v) : largest;                                          \
                }                                                                                             \
            if (!finite) {                                                                                    \
                nans_##TYPE(n, vb, wb);                                                                       \
                continue;                                                                                     \
            }                                                                                                 \
            int k = 0;                                                                                        \
            if (largest > 0)                                                                                  \
                frexp(largest, &k);                                                                           \
            double f0, f1;                                                                                    \
            power_of_two(-k, &f0, &f1);                                                                       \
            for (long i = 0; i < n; i++) {                                                                    \
                double *row = a + i * ld;                                                                     \
                if (lower)                                                                                    \
                    for (long j = 0; j <= i; j++) row[j] = (double)xb[i * n + j] * f0 * f1;                   \
                else                                                                                          \
                    for (long j = 0; j <= i; j++) row[j] = (double)xb[j * n + i] * f0 * f1;                   \
            }                                                                                                 \
            if (decompose(n, ld, a, z, w, rest)) {                                                            \
                nans_##TYPE(n, vb, wb);                                                                       \
                continue;                                                                                     \
            }                                                                                                 \
            sort_order(n, w, order);                                                                          \
            power_of_two(k, &f0, &f1);                                                                        \
            double *sign = rest;                                                                              \
            for (long j = 0; j < n; j++) {                                                                    \
                wb[j] = (T)(w[order[j]] * f0 * f1);                                                           \
                sign[j] = sign_of(n, z + order[j] * ld);                                                      \
            }                                                                                                 \
            /* vb[i][j] = sign[j] z[order[j]][i], in tiles of 16 x 16. */                                      \
            for (long j0 = 0; j0 < n; j0 += 16) {                                                             \
                const long j1 = j0 + 16 < n ? j0 + 16 : n;                                                    \
                for (long i0 = 0; i0 < n; i0 += 16) {                                                         \
                    const long i1 = i0 + 16 < n ? i0 + 16 : n;                                                \
                    for (long j = j0; j < j1; j++) {                                                          \
                        const double *row = z + order[j] * ld, s = sign[j];                                   \
                        for (long i = i0; i < i1; i++) vb[i * n + j] = (T)(s * row[i]);                       \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        if (allocated)                                                                                        \
            free(work);                                                                                       \
    }
ENTRY(float, f32)
ENTRY(double, f64)
#undef ENTRY
