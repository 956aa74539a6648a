/* Non-symmetric eigenproblems for compiled CPU code, f32 and f64 (JAX's
   lax.linalg.hessenberg, lax.linalg.schur and lax.linalg.eig of real
   matrices): for `batch` row-major n x n matrices X (contiguous, one after
   the other), x only read, all computed in double (f32 in, f32 out):

       void _mlir_ciface_jaxc_hessenberg_f32(long batch, long n, intptr_t x, intptr_t a, intptr_t taus);
       void _mlir_ciface_jaxc_schur_f32(long batch, long n, intptr_t x, intptr_t t, intptr_t z);
       void _mlir_ciface_jaxc_eig_f32(long batch, long n, long left, long right, intptr_t x,
                                      intptr_t w, intptr_t vl, intptr_t vr);          (and _f64)

   hessenberg: LAPACK gehrd's packed output. `a` (batch x n x n): on and
   above the first subdiagonal the upper Hessenberg H, below it the
   Householder vectors: H_j = I - tau_j v_j v_j^T (j = 0 .. n-3), v_j zero
   to j, 1 at j+1 (implied), v_j[j+2 ..] in column j below the subdiagonal;
   `taus` (batch x (n-1)), tau_{n-2} = 0, as is the tau of a column already
   zero below the subdiagonal (no reflection). dlarfg's signs:
   beta = -sign(alpha) |(alpha, x)|, tau = (beta - alpha) / beta,
   v = x / (alpha - beta). X = Q H Q^T, Q = H_0 ... H_{n-3}. Not scaled:
   LAPACK's arithmetic, NaN and inf spreading where reflections take them
   (each reflector's norm is taken of the vector divided by its largest
   modulus: no overflow or underflow there).

   schur: X = Z T Z^T, Z orthogonal, T quasi upper triangular as LAPACK's
   dgees (without sorting) leaves it: 1x1 blocks for real eigenvalues,
   2x2 blocks for complex pairs in dlanv2's standard form (equal diagonal,
   off-diagonal entries of opposite signs), exact zeros below the first
   subdiagonal and below every 1x1 block.

   eig: LAPACK dgeev's. `w` (batch x n complex, interleaved re, im) the
   eigenvalues in the order of T's diagonal blocks (a pair: the one with
   positive imaginary part first, then its conjugate); with `right`
   nonzero `vr` (batch x n x n complex), column j the right eigenvector of
   w[j] (X vr_j = w_j vr_j); with `left` nonzero `vl`, column j the left one
   (vl_j^H X = w_j vl_j^H); a pair's columns conjugate. Each vector has
   norm 1 and its first component of largest modulus real and positive
   (LAPACK makes it real but keeps its sign: a vector may be -1 times
   LAPACK's, a complex one that times a phase). A buffer whose flag is 0 is
   not written.

   A matrix with an inf or a NaN gives NaN outputs in schur and eig (each
   matrix of the batch on its own), as does one where the QR iteration
   runs past its budget (JAXC_EIG_SWEEPS max(10, n) double-shift sweeps a
   matrix in all; about 1.8 n are needed). n = 0 or no matrices: nothing
   written.

   Per matrix, in double, row-major (rows of ld doubles, an odd number of
   cache lines):
   - schur and eig: X scaled by a power of two (exact) to a largest modulus
     in [0.5, 1), scaled back at the end; balanced as LAPACK does it
     (dgebal's 3.12 order): schur permutes only (dgees), isolating
     eigenvalues in triangular corners, eig also scales rows and columns by
     powers of two (dgeev);
   - Hessenberg reduction on the unreduced rows and columns (dgehd2's
     reflectors), two passes over the rows a step: the left update fused
     with y = A v, the right update with the next step's v^T A (its
     reflector made between the passes from the column the right update is
     about to change by -tau y);
   - Q accumulated backwards (each reflector on a shrinking trailing
     block), transposed: Z^T is kept, so that the QR iteration's updates of
     Z's columns are contiguous row updates;
   - dlahqr's double-shift QR: deflation by Ahues and Kressner's test,
     Wilkinson's double shift from the trailing 2x2 block, exceptional
     shifts after 10, 30, 50 ... sweeps without a deflation (made from the
     top of the active block) and after 20, 40 ... (from its bottom), the
     bulge started at two consecutive small
     subdiagonal entries when there are, each 2x2 block standardized as it
     deflates (dlanv2) and its rotation applied to the rest of T and to Z.
     With no vectors wanted (eig's w alone) only the active block;
   - eig's vectors: those of T by back substitution (dtrevc's): x_j = 1, a
     pair's start from its standardized block, each step a real or complex
     1x1 or 2x2 solve (complete pivoting), a pivot below
     max(ulp |lambda|, n safmin / ulp) raised to it, the vector so far
     scaled down whenever an entry would pass 2^900 / (n max|T|); the left
     ones as the right ones of T reversed and transposed, reversed and
     conjugated; times Z by gemm.c's products, 64 vectors at a time over
     the rows of Z they reach (triangular); the balancing undone;
     normalized.

   The eigenvalues come out in LAPACK's order where LAPACK runs the same
   iteration: dhseqr uses dlahqr up to n = 75, so for random matrices w
   and T's blocks are LAPACK's, in its order, and T and Z equal dgees's up
   to the signs of Z's columns and a rotation within each 2x2 block (both
   standard forms; which of them either library lands on changes with the
   last bit of X). Rounding may still order clustered or tied eigenvalues
   (symmetric, orthogonal matrices) differently, as it does in LAPACK.
   Beyond n = 75 LAPACK's dlaqr0 (multishift QR with aggressive early
   deflation) deflates in another order: the same eigenvalues, in another.

   The Hessenberg reduction, Q and the QR iteration are compiled once per
   instruction-set family (eig_family.h: SSE2, AVX2 with FMA, AVX-512; the
   best the CPU runs, kernels.h), their row updates in vectors of the
   family's width; Z^T's row updates deferred and applied 32 reflectors of
   a sweep at a time in one pass over its rows (each column's window of
   three rows in registers).

   Measured (a busy 2-core AVX-512 Zen 5 VM, the AVX-512 family; f64, f32
   the same), against SciPy/NumPy (LAPACK in OpenBLAS, f64, one thread) in
   the same script: n = 256 hessenberg 2.2 ms (scipy.linalg.hessenberg
   2.1), schur 12 ms (scipy.linalg.schur 21), eig with right vectors 13.5
   ms (np.linalg.eig 23), w alone 8.3 ms (np.linalg.eigvals 17); n = 512
   18, 97, 107 and 63 ms (LAPACK 16, 238, 257, 218); n = 1000 0.12, 0.78,
   0.86 and 0.47 s (LAPACK 0.09, 0.50, 0.57, 0.35: its multishift QR
   scales better). The SSE2 family: about 2x those for schur and eig, 1.5x
   for w alone. About 1.8 n double-shift sweeps a matrix; most of the QR
   iteration's time is the row updates of T and Z^T, T's column updates
   (three entries a row, scalar) and the 3-element reflectors.

   Work arrays: up to 4 n x ld matrices, 16 vectors of ld doubles and 2 of
   ld longs, the thread's scratch of gemm.c (kernels.h), else a fresh
   allocation; out of memory, NaNs. MXCSR's FTZ and DAZ (as compiled code
   calls it) do no harm: schur's and eig's scaled matrix is far from the
   denormals (hessenberg, not scaled, takes denormal entries as zeros).
   Single-threaded: the threads are the caller's. No dependencies but libc
   and libm. Built into libjaxc_kernels.so with gemm.c and the other
   kernels; jaxc.runtime.aot compiles it, with gemm.c, into exported
   programs that call it. */
#pragma GCC optimize("O3")
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* The QR iteration's budget: JAXC_EIG_SWEEPS max(10, n) double-shift sweeps
   a matrix in all (-D for tests). */
#ifndef JAXC_EIG_SWEEPS
#define JAXC_EIG_SWEEPS 30
#endif

/* The reflectors of a double-shift sweep applied to Z^T in one pass over
   its rows (eig_family.h's sweep_rows). */
#define Z_SWEEP 32

/* The eigenvectors of T one gemm.c product multiplies by Z. */
#define VECTOR_BLOCK 64

#define ULP DBL_EPSILON /* LAPACK's dlamch('P') */

typedef double vec2 __attribute__((vector_size(16)));

static inline vec2 load2(const double *p)
{
    vec2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* a . b, n entries, in 8 partial sums. */
static double dot(const double *a, const double *b, long n)
{
    vec2 s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
    long i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 += load2(a + i) * load2(b + i);
        s1 += load2(a + i + 2) * load2(b + i + 2);
        s2 += load2(a + i + 4) * load2(b + i + 4);
        s3 += load2(a + i + 6) * load2(b + i + 6);
    }
    for (; i + 2 <= n; i += 2) s0 += load2(a + i) * load2(b + i);
    const vec2 s = (s0 + s1) + (s2 + s3);
    double r = s[0] + s[1];
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}

static inline void scale_vector(double *x, long n, double s)
{
    for (long i = 0; i < n; i++) x[i] *= s;
}

/* The elementary reflector of dlarfg: for the m-vector (alpha, x) (x at
   stride inc), H = I - tau (1, v)^T (1, v) with H (alpha, x) = (beta, 0):
   beta = -sign(alpha) |(alpha, x)|, tau = (beta - alpha) / beta,
   v = x / (alpha - beta); tau = 0 (H = I) when x is zero. alpha becomes
   beta, x becomes v; returns tau. The norm is taken of the vector divided
   by its largest modulus (no overflow, no underflow); NaN and inf give
   NaNs. */
static inline __attribute__((always_inline)) double reflector(long m, double *alpha, double *x, long inc)
{
    if (m <= 1)
        return 0;
    double largest = 0;
    for (long i = 0; i < m - 1; i++) {
        const double t = fabs(x[i * inc]);
        if (t > largest || t != t)
            largest = t;
    }
    if (largest == 0)
        return 0;
    const double a = *alpha;
    const double scale = fabs(a) > largest ? fabs(a) : largest;
    double ssq = (a / scale) * (a / scale);
    for (long i = 0; i < m - 1; i++) {
        const double t = x[i * inc] / scale;
        ssq += t * t;
    }
    const double beta = -copysign(scale * sqrt(ssq), a);
    const double tau = (beta - a) / beta, d = a - beta;
    if (fabs(d) > 0x1p-1000) {
        const double inv = 1 / d;
        for (long i = 0; i < m - 1; i++) x[i * inc] *= inv;
    } else {
        for (long i = 0; i < m - 1; i++) x[i * inc] /= d;
    }
    *alpha = beta;
    return tau;
}


/* to (n x ld) = from^T (n x ld), in tiles of 16 x 16. */
static void transpose(long n, long ld, const double *from, double *to)
{
    for (long i0 = 0; i0 < n; i0 += 16) {
        const long i1 = i0 + 16 < n ? i0 + 16 : n;
        for (long j0 = 0; j0 < n; j0 += 16) {
            const long j1 = j0 + 16 < n ? j0 + 16 : n;
            for (long i = i0; i < i1; i++)
                for (long j = j0; j < j1; j++) to[j * ld + i] = from[i * ld + j];
        }
    }
}

/* ------------------------------------------------------------------------
   Balancing (dgebal's): the permutation that isolates eigenvalues (rows
   whose off-diagonal entries in the leading part are zero pushed down, then
   columns pushed left), and when `scale`, powers of two d that make the
   rows and columns of a[ilo..ihi] of similar norms. perm[i] for i outside
   [ilo, ihi]: the row and column exchanged with i (dgebal's SCALE), d[i]
   (1 outside). */
static void swap_columns(double *a, long ld, long i, long j, long rows)
{
    for (long r = 0; r < rows; r++) {
        const double t = a[r * ld + i];
        a[r * ld + i] = a[r * ld + j];
        a[r * ld + j] = t;
    }
}

static void swap_rows(double *a, long ld, long i, long j, long from, long to)
{
    for (long c = from; c < to; c++) {
        const double t = a[i * ld + c];
        a[i * ld + c] = a[j * ld + c];
        a[j * ld + c] = t;
    }
}

static void balance(long n, long ld, double *a, int scale, long *ilo, long *ihi, long *perm, double *d)
{
    long k = 0, l = n - 1;
    for (long i = 0; i < n; i++) {
        perm[i] = i;
        d[i] = 1;
    }
    *ilo = 0;
    *ihi = n - 1;
    if (n == 0)
        return;
    /* Rows isolating an eigenvalue, pushed down. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (long i = l; i >= 0; i--) {
            long j = 0;
            while (j <= l && (j == i || a[i * ld + j] == 0)) j++;
            if (j <= l)
                continue;
            perm[l] = i;
            if (i != l) {
                swap_columns(a, ld, i, l, l + 1);
                swap_rows(a, ld, i, l, k, n);
            }
            changed = 1;
            if (l == 0) {
                *ilo = *ihi = 0;
                return;
            }
            l--;
        }
    }
    /* Columns isolating an eigenvalue, pushed left. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (long j = k; j <= l; j++) {
            long i = k;
            while (i <= l && (i == j || a[i * ld + j] == 0)) i++;
            if (i <= l)
                continue;
            perm[k] = j;
            if (j != k) {
                swap_columns(a, ld, j, k, l + 1);
                swap_rows(a, ld, j, k, k, n);
            }
            changed = 1;
            k++;
        }
    }
    *ilo = k;
    *ihi = l;
    if (!scale)
        return;
    /* Scaling: row and column i of a[k..l] balanced by powers of two. */
    const double sfmin1 = DBL_MIN / ULP, sfmax1 = 1 / sfmin1, sfmin2 = sfmin1 * 2, sfmax2 = 1 / sfmin2;
    for (int changed = 1, passes = 0; changed && passes < 1000; passes++) {
        changed = 0;
        for (long i = k; i <= l; i++) {
            double c = 0, r = 0, ca = 0, ra = 0;
            for (long t = k; t <= l; t++) {
                c += a[t * ld + i] * a[t * ld + i];
                r += a[i * ld + t] * a[i * ld + t];
            }
            c = sqrt(c);
            r = sqrt(r);
            for (long t = 0; t <= l; t++) ca = fabs(a[t * ld + i]) > ca ? fabs(a[t * ld + i]) : ca;
            for (long t = k; t < n; t++) ra = fabs(a[i * ld + t]) > ra ? fabs(a[i * ld + t]) : ra;
            if (c == 0 || r == 0)
                continue;
            if (!(c + ca + r + ra < INFINITY))
                return;
            double g = r / 2, f = 1;
            const double s = c + r;
            while (c < g && fmax(f, fmax(c, ca)) < sfmax2 && fmin(r, fmin(g, ra)) > sfmin2) {
                f *= 2;
                c *= 2;
                ca *= 2;
                r /= 2;
                g /= 2;
                ra /= 2;
            }
            g = c / 2;
            while (g >= r && fmax(r, ra) < sfmax2 && fmin(fmin(f, c), fmin(g, ca)) > sfmin2) {
                f /= 2;
                c /= 2;
                g /= 2;
                ca /= 2;
                r *= 2;
                ra *= 2;
            }
            if (c + r >= 0.95 * s)
                continue;
            if (f < 1 && d[i] < 1 && f * d[i] <= sfmin1)
                continue;
            if (f > 1 && d[i] > 1 && d[i] >= sfmax1 / f)
                continue;
            d[i] *= f;
            changed = 1;
            scale_vector(a + i * ld + k, n - k, 1 / f);
            for (long t = 0; t <= l; t++) a[t * ld + i] *= f;
        }
    }
}

/* Where row r of the back-transformed vectors comes from: the exchanges of
   balance undone (dgebak's order), as a map pos (row r is row pos[r]). */
static void unpermute(long n, long ilo, long ihi, const long *perm, long *pos)
{
    for (long r = 0; r < n; r++) pos[r] = r;
    for (long ii = 0; ii < n; ii++) {
        long i = ii;
        if (i >= ilo && i <= ihi)
            continue;
        if (i < ilo)
            i = ilo - 1 - ii;
        const long k = perm[i];
        if (k != i) {
            const long t = pos[i];
            pos[i] = pos[k];
            pos[k] = t;
        }
    }
}

/* ------------------------------------------------------------------------
   The standard form of a real 2x2 block (dlanv2's): [a b; c d] =
   [cs -sn; sn cs] [a' b'; c' d'] [cs sn; -sn cs] with c' = 0 (real
   eigenvalues a', d') or a' = d' and b' c' < 0 (the complex pair
   a' +- i sqrt(|b'| |c'|)). */
static void standardize(double *pa, double *pb, double *pc, double *pd, double *rt1r, double *rt1i, double *rt2r,
                        double *rt2i, double *cs, double *sn)
{
    double a = *pa, b = *pb, c = *pc, d = *pd;
    const double eps = ULP;
    /* dlanv2's SAFMN2: the power of two near sqrt(safmin / eps). */
    const double safmn2 = 0x1p-511, safmx2 = 1 / safmn2;
    if (c == 0) {
        *cs = 1;
        *sn = 0;
    } else if (b == 0) {
        *cs = 0;
        *sn = 1;
        const double t = d;
        d = a;
        a = t;
        b = -c;
        c = 0;
    } else if (a - d == 0 && signbit(b) != signbit(c)) {
        *cs = 1;
        *sn = 0;
    } else {
        double temp = a - d, p = 0.5 * temp;
        const double bcmax = fmax(fabs(b), fabs(c));
        const double bcmis = fmin(fabs(b), fabs(c)) * copysign(1, b) * copysign(1, c);
        double scale = fmax(fabs(p), bcmax);
        double z = (p / scale) * p + (bcmax / scale) * bcmis;
        if (z >= 4 * eps) {
            /* Real eigenvalues. */
            z = p + copysign(sqrt(scale) * sqrt(z), p);
            a = d + z;
            d = d - (bcmax / z) * bcmis;
            const double tau = hypot(c, z);
            *cs = z / tau;
            *sn = c / tau;
            b = b - c;
            c = 0;
        } else {
            /* Complex or nearly equal real eigenvalues: equal diagonal. */
            double sigma = b + c;
            for (int count = 0; count < 20; count++) {
                scale = fmax(fabs(temp), fabs(sigma));
                if (scale >= safmx2) {
                    sigma *= safmn2;
                    temp *= safmn2;
                    continue;
                }
                if (scale <= safmn2) {
                    sigma *= safmx2;
                    temp *= safmx2;
                    continue;
                }
                break;
            }
            p = 0.5 * temp;
            double tau = hypot(sigma, temp);
            *cs = sqrt(0.5 * (1 + fabs(sigma) / tau));
            *sn = -(p / (tau * *cs)) * copysign(1, sigma);
            const double aa = a * *cs + b * *sn, bb = -a * *sn + b * *cs;
            const double cc = c * *cs + d * *sn, dd = -c * *sn + d * *cs;
            a = aa * *cs + cc * *sn;
            b = bb * *cs + dd * *sn;
            c = -aa * *sn + cc * *cs;
            d = -bb * *sn + dd * *cs;
            temp = 0.5 * (a + d);
            a = temp;
            d = temp;
            if (c != 0) {
                if (b != 0) {
                    if (signbit(b) == signbit(c)) {
                        /* Real eigenvalues: upper triangular. */
                        const double sab = sqrt(fabs(b)), sac = sqrt(fabs(c));
                        p = copysign(sab * sac, c);
                        tau = 1 / sqrt(fabs(b + c));
                        a = temp + p;
                        d = temp - p;
                        b = b - c;
                        c = 0;
                        const double cs1 = sab * tau, sn1 = sac * tau;
                        temp = *cs * cs1 - *sn * sn1;
                        *sn = *cs * sn1 + *sn * cs1;
                        *cs = temp;
                    }
                } else {
                    b = -c;
                    c = 0;
                    temp = *cs;
                    *cs = -*sn;
                    *sn = temp;
                }
            }
        }
    }
    *rt1r = a;
    *rt2r = d;
    if (c == 0) {
        *rt1i = 0;
        *rt2i = 0;
    } else {
        *rt1i = sqrt(fabs(b)) * sqrt(fabs(c));
        *rt2i = -*rt1i;
    }
    *pa = a;
    *pb = b;
    *pc = c;
    *pd = d;
}

/* ------------------------------------------------------------------------
   The Hessenberg reduction, Q and the QR iteration, one copy a family
   (eig_family.h). */

/* SSE2 (every x86-64 CPU): one xmm a vector. */
#define W 2
#define SUFFIX sse2
#include "eig_family.h"
#undef W
#undef SUFFIX

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define W 4
#define SUFFIX avx2
#include "eig_family.h"
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define W 8
#define SUFFIX avx512
#include "eig_family.h"
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

#ifndef JAXC_EIG_FAMILY
#define JAXC_EIG_FAMILY 0 /* tests force a family (jaxc_best_family): 1 SSE2, 2 AVX2, 3 AVX-512 */
#endif

/* The Hessenberg reduction and Q, by the family this CPU runs best
   (eig_family.h's hessenberg and form_q). */
static void hessenberg(long n, long ld, long ilo, long ihi, double *a, double *taus, double *work)
{
    const int use = jaxc_best_family(JAXC_EIG_FAMILY);
    (use == 3 ? hessenberg_avx512 : use == 2 ? hessenberg_avx2 : hessenberg_sse2)(n, ld, ilo, ihi, a, taus, work);
}

static void form_q(long n, long ld, long ilo, long ihi, const double *a, const double *taus, double *q, double *w)
{
    const int use = jaxc_best_family(JAXC_EIG_FAMILY);
    (use == 3 ? form_q_avx512 : use == 2 ? form_q_avx2 : form_q_sse2)(n, ld, ilo, ihi, a, taus, q, w);
}

/* The real Schur form of the upper Hessenberg h by the family this CPU runs
   best (eig_family.h's francis): 0, or 1 when the sweeps ran out. */
static int francis(long n, long ld, long ilo, long ihi, double *h, int want_t, double *zt, double *wr, double *wi)
{
    const int use = jaxc_best_family(JAXC_EIG_FAMILY);
    return (use == 3   ? francis_avx512
            : use == 2 ? francis_avx2
                       : francis_sse2)(n, ld, ilo, ihi, h, want_t, zt, wr, wi);
}

/* ------------------------------------------------------------------------
   Eigenvectors of an upper quasi-triangular matrix by back substitution
   (dtrevc's). */
#define M(i, j) m[(i) * ld + (j)]

static inline double cabs1(double complex z) { return fabs(creal(z)) + fabs(cimag(z)); }

/* The factor s <= 1 by which a right side of modulus b must be scaled so
   that b s / p stays within big. */
static inline double limit(double b, double p, double big) { return b > p * big ? p * big / b : 1.0; }

/* x of [c0 c1; c2 c3] x = s b (complex; complete pivoting, a pivot below
   smin taken as smin); returns s <= 1, what keeps x within big. */
static double solve2(const double complex c[4], const double complex b[2], double smin, double big,
                     double complex x[2])
{
    int p = 0;
    double best = cabs1(c[0]);
    for (int q = 1; q < 4; q++)
        if (cabs1(c[q]) > best) {
            best = cabs1(c[q]);
            p = q;
        }
    if (best < smin) {
        const double s = limit(fmax(cabs1(b[0]), cabs1(b[1])), smin, big);
        x[0] = b[0] * s / smin;
        x[1] = b[1] * s / smin;
        return s;
    }
    const int pr = p / 2, pc = p % 2;
    const double complex u11 = c[p], u12 = c[pr * 2 + 1 - pc];
    const double complex l21 = c[(1 - pr) * 2 + pc] / u11;
    double complex u22 = c[(1 - pr) * 2 + 1 - pc] - l21 * u12;
    if (cabs1(u22) < smin)
        u22 = smin;
    double complex b1 = b[pr], b2 = b[1 - pr] - l21 * b1;
    double s = limit(2 * cabs1(b2), cabs1(u22), big);
    b1 *= s;
    b2 *= s;
    double complex x2 = b2 / u22, t = b1 - u12 * x2;
    const double s2 = limit(2 * cabs1(t), cabs1(u11), big);
    if (s2 < 1) {
        x2 *= s2;
        t *= s2;
        s *= s2;
    }
    x[pc] = t / u11;
    x[1 - pc] = x2;
    return s;
}

/* Row j of y (n x ld): the right eigenvector of M's real eigenvalue
   M[j][j] (x[j] = 1, zero past j). */
static void real_vector(long n, long ld, const double *m, long j, double *x, double smlnum, double big)
{
    memset(x + j + 1, 0, (n - j - 1) * sizeof(double));
    x[j] = 1;
    const double lambda = M(j, j), smin = fmax(ULP * fabs(lambda), smlnum);
    for (long i = j - 1; i >= 0;) {
        if (i > 0 && M(i, i - 1) != 0) {
            const double complex c[4] = {M(i - 1, i - 1) - lambda, M(i - 1, i), M(i, i - 1), M(i, i) - lambda};
            const double complex b[2] = {-dot(&M(i - 1, i + 1), x + i + 1, j - i),
                                         -dot(&M(i, i + 1), x + i + 1, j - i)};
            double complex y[2];
            const double s = solve2(c, b, smin, big, y);
            if (s < 1)
                scale_vector(x + i + 1, j - i, s);
            x[i - 1] = creal(y[0]);
            x[i] = creal(y[1]);
            i -= 2;
        } else {
            double b = -dot(&M(i, i + 1), x + i + 1, j - i), p = M(i, i) - lambda;
            if (fabs(p) < smin)
                p = smin;
            const double s = limit(fabs(b), fabs(p), big);
            if (s < 1) {
                scale_vector(x + i + 1, j - i, s);
                b *= s;
            }
            x[i] = b / p;
            i--;
        }
    }
}

/* Rows j and j+1 of y: the real and imaginary parts of the right
   eigenvector of the eigenvalue with positive imaginary part of M's
   standardized 2x2 block at (j, j+1) (zero past j+1). */
static void complex_vector(long n, long ld, const double *m, long j, double *xr, double *xi, double smlnum,
                           double big)
{
    memset(xr + j + 2, 0, (n - j - 2) * sizeof(double));
    memset(xi + j + 2, 0, (n - j - 2) * sizeof(double));
    const double b = M(j, j + 1), c = M(j + 1, j), wr = M(j, j), wi = sqrt(fabs(b)) * sqrt(fabs(c));
    const double complex lambda = CMPLX(wr, wi);
    if (fabs(b) >= fabs(c)) {
        xr[j] = 1;
        xi[j + 1] = wi / b;
        xi[j] = xr[j + 1] = 0;
    } else {
        xr[j] = -wi / c;
        xi[j + 1] = 1;
        xi[j] = xr[j + 1] = 0;
    }
    const double smin = fmax(ULP * (fabs(wr) + wi), smlnum);
    for (long i = j - 1; i >= 0;) {
        const long len = j + 1 - i;
        if (i > 0 && M(i, i - 1) != 0) {
            const double complex c2[4] = {M(i - 1, i - 1) - lambda, M(i - 1, i), M(i, i - 1), M(i, i) - lambda};
            const double complex rhs[2] = {
                -CMPLX(dot(&M(i - 1, i + 1), xr + i + 1, len), dot(&M(i - 1, i + 1), xi + i + 1, len)),
                -CMPLX(dot(&M(i, i + 1), xr + i + 1, len), dot(&M(i, i + 1), xi + i + 1, len))};
            double complex y[2];
            const double s = solve2(c2, rhs, smin, big, y);
            if (s < 1) {
                scale_vector(xr + i + 1, len, s);
                scale_vector(xi + i + 1, len, s);
            }
            xr[i - 1] = creal(y[0]);
            xi[i - 1] = cimag(y[0]);
            xr[i] = creal(y[1]);
            xi[i] = cimag(y[1]);
            i -= 2;
        } else {
            double complex rhs = -CMPLX(dot(&M(i, i + 1), xr + i + 1, len), dot(&M(i, i + 1), xi + i + 1, len));
            double complex p = M(i, i) - lambda;
            if (cabs1(p) < smin)
                p = smin;
            const double s = limit(2 * cabs1(rhs), cabs1(p), big);
            if (s < 1) {
                scale_vector(xr + i + 1, len, s);
                scale_vector(xi + i + 1, len, s);
                rhs *= s;
            }
            const double complex x = rhs / p;
            xr[i] = creal(x);
            xi[i] = cimag(x);
            i--;
        }
    }
}

/* All of M's right eigenvectors into the rows of y: a real eigenvalue's
   in its row, a complex pair's real and imaginary parts in its two. */
static void quasi_triangular_vectors(long n, long ld, const double *m, double *y)
{
    double largest = 0;
    for (long i = 0; i < n; i++)
        for (long j = i > 0 ? i - 1 : 0; j < n; j++) largest = fmax(largest, fabs(M(i, j)));
    const double smlnum = DBL_MIN * ((double)n / ULP);
    const double big = 0x1p900 / ((double)n * fmax(largest, 1));
    for (long j = 0; j < n;) {
        if (j + 1 < n && M(j + 1, j) != 0) {
            complex_vector(n, ld, m, j, y + j * ld, y + (j + 1) * ld, smlnum, big);
            j += 2;
        } else {
            real_vector(n, ld, m, j, y + j * ld, smlnum, big);
            j++;
        }
    }
}
#undef M

/* xt = yt zt (rows of vectors, n x ld each): the vectors of T
   back-transformed by Z, VECTOR_BLOCK rows at a time by gemm.c, each block
   over the rows of zt its vectors use (upper: the right vectors, zero past
   the block's pairs; else the left ones, zero before). */
static void back_transform(long n, long ld, const double *yt, const double *zt, double *xt, int upper)
{
    for (long j0 = 0; j0 < n; j0 += VECTOR_BLOCK) {
        const long j1 = j0 + VECTOR_BLOCK < n ? j0 + VECTOR_BLOCK : n;
        const long k0 = upper ? 0 : (j0 > 0 ? j0 - 1 : 0), k1 = upper ? (j1 + 1 < n ? j1 + 1 : n) : n;
        _mlir_ciface_jaxc_gemm_f64_avx512(j1 - j0, n, k1 - k0, (intptr_t)yt, j0 * ld + k0, ld, 1, (intptr_t)zt,
                                          k0 * ld, ld, 1, (intptr_t)xt, j0 * ld, ld, 1, 1);
    }
}

/* ------------------------------------------------------------------------
   The work arrays and the entry points. */

/* 2^k in two factors, each a normal double (|k| <= 2200). */
static void power_of_two(int k, double *f0, double *f1)
{
    *f0 = ldexp(1.0, k / 2);
    *f1 = ldexp(1.0, k - k / 2);
}

/* ld: n rounded up to an odd number of 64-byte lines (rows in flight do not
   share cache sets). */
static long leading(long n) { return ((n + 7) / 16 * 2 + 1) * 8; }

/* The work arrays: `matrices` n x ld matrices, VECTORS vectors of ld
   doubles, and ld longs. */
#define VECTORS 16
static double *work_buffer(long n, long ld, int matrices, int *allocated)
{
    const size_t bytes =
        sizeof(double) * ((size_t)matrices * (size_t)n + VECTORS) * (size_t)ld + 2 * sizeof(long) * (size_t)ld;
    return jaxc_work_buffer(JAXC_SCRATCH_EIG, bytes, allocated);
}

/* The largest modulus of x's entries (n x n), -1 when one is not finite. */
#define LARGEST(T)                                                                                            \
    static double largest_##T(long n, const T *x)                                                             \
    {                                                                                                         \
        double largest = 0;                                                                                   \
        int finite = 1;                                                                                       \
        for (long i = 0; i < n * n; i++) {                                                                    \
            const double v = x[i];                                                                            \
            finite &= v - v == 0;                                                                             \
            largest = fabs(v) > largest ? fabs(v) : largest;                                                  \
        }                                                                                                     \
        return finite ? largest : -1;                                                                         \
    }
LARGEST(float)
LARGEST(double)
#undef LARGEST

/* x (type T) scaled by 2^-k (the largest modulus into [0.5, 1)) into a
   (n x ld); returns k. */
#define LOAD(T)                                                                                               \
    static int load_##T(long n, long ld, const T *x, double largest, double *a)                               \
    {                                                                                                         \
        int k = 0;                                                                                            \
        if (largest > 0)                                                                                      \
            frexp(largest, &k);                                                                               \
        double f0, f1;                                                                                        \
        power_of_two(-k, &f0, &f1);                                                                           \
        for (long i = 0; i < n; i++)                                                                          \
            for (long j = 0; j < n; j++) a[i * ld + j] = (double)x[i * n + j] * f0 * f1;                      \
        return k;                                                                                             \
    }
LOAD(float)
LOAD(double)
#undef LOAD

/* The matrix of one vector family (right or left) of eig: the rows of xt
   (back-transformed by Z), the balancing's scaling (times d, or divided
   when `left`) and permutation undone, each of norm 1 with its first
   component of largest modulus real and positive, into out (n x n complex,
   column j the vector of w[j]). re, im: work vectors of n. */
#define WRITE_VECTORS(T)                                                                                      \
    static void write_vectors_##T(long n, long ld, const double *xt, const double *wi, const double *d,         \
                                  const long *pos, int left, double *re, double *im, T *out)                  \
    {                                                                                                         \
        for (long j = 0; j < n;) {                                                                            \
            const int pair = wi[j] != 0 && j + 1 < n;                                                         \
            const double *xr = xt + j * ld, *xi = pair ? xt + (j + 1) * ld : NULL;                            \
            double largest = 0;                                                                               \
            for (long r = 0; r < n; r++) {                                                                    \
                const long p = pos[r];                                                                        \
                const double f = left ? 1 / d[p] : d[p];                                                      \
                re[r] = xr[p] * f;                                                                            \
                im[r] = pair ? xi[p] * f : 0;                                                                 \
                largest = fmax(largest, fmax(fabs(re[r]), fabs(im[r])));                                      \
            }                                                                                                 \
            const double g = largest > 0 ? 1 / largest : 1;                                                   \
            double ssq = 0, best = -1;                                                                        \
            long at = 0;                                                                                      \
            for (long r = 0; r < n; r++) {                                                                    \
                re[r] *= g;                                                                                   \
                im[r] *= g;                                                                                   \
                const double q = re[r] * re[r] + im[r] * im[r];                                               \
                ssq += q;                                                                                     \
                if (q > best) {                                                                               \
                    best = q;                                                                                 \
                    at = r;                                                                                   \
                }                                                                                             \
            }                                                                                                 \
            /* The phase of the largest component, divided out, and the norm. */                              \
            const double modulus = sqrt(best), norm = sqrt(ssq);                                              \
            double cr = 1, ci = 0;                                                                            \
            if (modulus > 0) {                                                                                \
                cr = re[at] / modulus;                                                                        \
                ci = -im[at] / modulus;                                                                       \
            }                                                                                                 \
            cr /= norm;                                                                                       \
            ci /= norm;                                                                                       \
            for (long r = 0; r < n; r++) {                                                                    \
                const double a = re[r], b = im[r];                                                            \
                T *o = out + 2 * (r * n + j);                                                                 \
                o[0] = (T)(a * cr - b * ci);                                                                  \
                o[1] = r == at ? (T)0 : (T)(a * ci + b * cr);                                                 \
                if (pair) {                                                                                   \
                    o[2] = o[0];                                                                              \
                    o[3] = -o[1];                                                                             \
                }                                                                                             \
            }                                                                                                 \
            j += pair ? 2 : 1;                                                                                \
        }                                                                                                     \
    }
WRITE_VECTORS(float)
WRITE_VECTORS(double)
#undef WRITE_VECTORS

#define ENTRIES(T, TYPE)                                                                                      \
    void _mlir_ciface_jaxc_hessenberg_##TYPE(long batch, long n, intptr_t x, intptr_t a, intptr_t taus)       \
    {                                                                                                         \
        if (batch <= 0 || n <= 0)                                                                             \
            return;                                                                                           \
        const long ld = leading(n);                                                                           \
        int allocated = 0;                                                                                    \
        double *work = work_buffer(n, ld, 1, &allocated);                                                     \
        double *h = work, *tau = h + n * ld, *hwork = tau + ld;                                               \
        for (long b = 0; b < batch; b++) {                                                                    \
            const T *xb = (const T *)x + b * n * n;                                                           \
            T *ab = (T *)a + b * n * n, *tb = (T *)taus + b * (n - 1);                                        \
            if (!work) {                                                                                      \
                for (long i = 0; i < n * n; i++) ab[i] = NAN;                                                 \
                for (long i = 0; i < n - 1; i++) tb[i] = NAN;                                                 \
                continue;                                                                                     \
            }                                                                                                 \
            for (long i = 0; i < n; i++)                                                                      \
                for (long j = 0; j < n; j++) h[i * ld + j] = xb[i * n + j];                                   \
            for (long i = 0; i < n; i++) tau[i] = 0;                                                          \
            hessenberg(n, ld, 0, n - 1, h, tau, hwork);                                                    \
            for (long i = 0; i < n; i++)                                                                      \
                for (long j = 0; j < n; j++) ab[i * n + j] = (T)h[i * ld + j];                                \
            for (long i = 0; i < n - 1; i++) tb[i] = (T)tau[i];                                               \
        }                                                                                                     \
        if (allocated)                                                                                        \
            free(work);                                                                                       \
    }                                                                                                         \
                                                                                                              \
    void _mlir_ciface_jaxc_schur_##TYPE(long batch, long n, intptr_t x, intptr_t t, intptr_t z)               \
    {                                                                                                         \
        if (batch <= 0 || n <= 0)                                                                             \
            return;                                                                                           \
        const long ld = leading(n);                                                                           \
        int allocated = 0;                                                                                    \
        double *work = work_buffer(n, ld, 3, &allocated);                                                     \
        double *h = work, *zt = h + n * ld, *q = zt + n * ld, *tau = q + n * ld, *wr = tau + ld;             \
        double *wi = wr + ld, *d = wi + ld, *w = d + ld, *hwork = w + ld;                                     \
        long *perm = (long *)(work + ((size_t)3 * n + VECTORS) * ld), *pos = perm + ld;                       \
        for (long b = 0; b < batch; b++) {                                                                    \
            const T *xb = (const T *)x + b * n * n;                                                           \
            T *tb = (T *)t + b * n * n, *zb = (T *)z + b * n * n;                                             \
            const double largest = work ? largest_##T(n, xb) : -1;                                            \
            int failed = largest < 0;                                                                         \
            int k = 0;                                                                                        \
            if (!failed) {                                                                                    \
                k = load_##T(n, ld, xb, largest, h);                                                          \
                long ilo, ihi;                                                                                \
                balance(n, ld, h, 0, &ilo, &ihi, perm, d);                                                    \
                for (long i = 0; i < n; i++) tau[i] = 0;                                                      \
                hessenberg(n, ld, ilo, ihi, h, tau, hwork);                                                \
                form_q(n, ld, ilo, ihi, h, tau, q, w);                                                        \
                transpose(n, ld, q, zt);                                                                      \
                for (long i = 2; i < n; i++) memset(h + i * ld, 0, (i - 1) * sizeof(double));                  \
                failed = francis(n, ld, ilo, ihi, h, 1, zt, wr, wi);                                          \
                unpermute(n, ilo, ihi, perm, pos);                                                            \
            }                                                                                                 \
            if (failed) {                                                                                     \
                for (long i = 0; i < n * n; i++) tb[i] = zb[i] = NAN;                                         \
                continue;                                                                                     \
            }                                                                                                 \
            double f0, f1;                                                                                    \
            power_of_two(k, &f0, &f1);                                                                        \
            for (long i = 0; i < n; i++)                                                                      \
                for (long j = 0; j < n; j++) tb[i * n + j] = (T)(h[i * ld + j] * f0 * f1);                    \
            /* z[r][c] = Z[pos[r]][c] = zt[c][pos[r]], in tiles. */                                            \
            for (long r0 = 0; r0 < n; r0 += 16) {                                                             \
                const long r1 = r0 + 16 < n ? r0 + 16 : n;                                                    \
                for (long c0 = 0; c0 < n; c0 += 16) {                                                         \
                    const long c1 = c0 + 16 < n ? c0 + 16 : n;                                                \
                    for (long c = c0; c < c1; c++)                                                            \
                        for (long r = r0; r < r1; r++) zb[r * n + c] = (T)zt[c * ld + pos[r]];                \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        if (allocated)                                                                                        \
            free(work);                                                                                       \
    }                                                                                                         \
                                                                                                              \
    void _mlir_ciface_jaxc_eig_##TYPE(long batch, long n, long left, long right, intptr_t x, intptr_t w,      \
                                      intptr_t vl, intptr_t vr)                                               \
    {                                                                                                         \
        if (batch <= 0 || n <= 0)                                                                             \
            return;                                                                                           \
        const long ld = leading(n);                                                                           \
        const int vectors = left || right;                                                                    \
        int allocated = 0;                                                                                    \
        double *work = work_buffer(n, ld, 4, &allocated);                                                     \
        double *h = work, *zt = h + n * ld, *y = zt + n * ld, *xt = y + n * ld, *tau = xt + n * ld;           \
        double *wr = tau + ld, *wi = wr + ld, *d = wi + ld, *re = d + ld, *im = re + ld, *u = im + ld,        \
               *hwork = u + ld;                                                                               \
        long *perm = (long *)(work + ((size_t)4 * n + VECTORS) * ld), *pos = perm + ld;                       \
        for (long b = 0; b < batch; b++) {                                                                    \
            const T *xb = (const T *)x + b * n * n;                                                           \
            T *wb = (T *)w + 2 * b * n, *vlb = (T *)vl + 2 * b * n * n, *vrb = (T *)vr + 2 * b * n * n;       \
            const double largest = work ? largest_##T(n, xb) : -1;                                            \
            int failed = largest < 0;                                                                         \
            int k = 0;                                                                                        \
            long ilo = 0, ihi = n - 1;                                                                        \
            if (!failed) {                                                                                    \
                k = load_##T(n, ld, xb, largest, h);                                                          \
                balance(n, ld, h, 1, &ilo, &ihi, perm, d);                                                    \
                for (long i = 0; i < n; i++) tau[i] = 0;                                                      \
                hessenberg(n, ld, ilo, ihi, h, tau, hwork);                                                \
                if (vectors) {                                                                                \
                    form_q(n, ld, ilo, ihi, h, tau, y, u);                                                    \
                    transpose(n, ld, y, zt);                                                                  \
                }                                                                                             \
                for (long i = 2; i < n; i++) memset(h + i * ld, 0, (i - 1) * sizeof(double));                  \
                for (long i = 0; i < n; i++) {                                                                \
                    wr[i] = h[i * ld + i];                                                                    \
                    wi[i] = 0;                                                                                \
                }                                                                                             \
                failed = francis(n, ld, ilo, ihi, h, vectors, vectors ? zt : NULL, wr, wi);                   \
            }                                                                                                 \
            if (failed) {                                                                                     \
                for (long i = 0; i < 2 * n; i++) wb[i] = NAN;                                                 \
                if (left)                                                                                     \
                    for (long i = 0; i < 2 * n * n; i++) vlb[i] = NAN;                                        \
                if (right)                                                                                    \
                    for (long i = 0; i < 2 * n * n; i++) vrb[i] = NAN;                                        \
                continue;                                                                                     \
            }                                                                                                 \
            double f0, f1;                                                                                    \
            power_of_two(k, &f0, &f1);                                                                        \
            for (long i = 0; i < n; i++) {                                                                    \
                wb[2 * i] = (T)(wr[i] * f0 * f1);                                                             \
                wb[2 * i + 1] = (T)(wi[i] * f0 * f1);                                                         \
            }                                                                                                 \
            if (!vectors)                                                                                     \
                continue;                                                                                     \
            unpermute(n, ilo, ihi, perm, pos);                                                                \
            if (right) {                                                                                      \
                quasi_triangular_vectors(n, ld, h, y);                                                        \
                back_transform(n, ld, y, zt, xt, 1);                                                          \
                write_vectors_##T(n, ld, xt, wi, d, pos, 0, re, im, vrb);                                     \
            }                                                                                                 \
            if (left) {                                                                                       \
                /* T's left eigenvectors: the right ones of R = P T^T P (P reversing the order), reversed  \
                   and conjugated. */                                                                         \
                for (long i = 0; i < n; i++)                                                                  \
                    for (long j = 0; j < n; j++) xt[i * ld + j] = h[(n - 1 - j) * ld + n - 1 - i];            \
                quasi_triangular_vectors(n, ld, xt, y);                                                       \
                for (long p = 0; p < n;) {                                                                    \
                    const int pair = p + 1 < n && h[(n - 1 - p) * ld + n - 2 - p] != 0;                                \
                    const long q = n - 1 - p - pair;                                                          \
                    for (long c = 0; c < n; c++) xt[q * ld + c] = y[p * ld + n - 1 - c];                      \
                    if (pair)                                                                                 \
                        for (long c = 0; c < n; c++) xt[(q + 1) * ld + c] = -y[(p + 1) * ld + n - 1 - c];     \
                    p += 1 + pair;                                                                            \
                }                                                                                             \
                back_transform(n, ld, xt, zt, y, 0);                                                          \
                write_vectors_##T(n, ld, y, wi, d, pos, 1, re, im, vlb);                                      \
            }                                                                                                 \
        }                                                                                                     \
        if (allocated)                                                                                        \
            free(work);                                                                                       \
    }
ENTRIES(float, f32)
ENTRIES(double, f64)
#undef ENTRIES
