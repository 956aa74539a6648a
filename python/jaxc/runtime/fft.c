/* Discrete Fourier transforms for compiled CPU code, f32 and f64, on
   AVX-512, AVX2+FMA and SSE2: for `columns` sequences of n points,

       Y[c, k] = scale * sum_(j < n) X[c, j] exp(sign 2 pi i j k / n)    (sign -1 or +1, k < outputs <= n)

   X real (parts = 1) or complex (parts = 2: real and imaginary planes, or
   complex elements in place, part stride 1 and point stride 2, as
   jaxc.dft's call passes a complex64/128 memref), Y always complex, its
   first `outputs` frequencies written (a real FFT keeps n/2 + 1), any
   strides and offsets as MLIR memref descriptors give them (in parts):

       void _mlir_ciface_jaxc_dft_f32(long n, long outputs, long columns, long parts,
               intptr_t x, long x_offset, long x_part_stride, long x_column_stride, long x_stride,
               intptr_t y, long y_offset, long y_part_stride, long y_column_stride, long y_stride,
               long sign, double scale);          (and _f64; element (p, c, j) of x is at
                                                   x[x_offset + p x_part_stride + c x_column_stride + j x_stride])

   and the transform of Hermitian sequences (Y[c, n - k] = conj(Y[c, k])),
   of which x holds the first n/2 + 1 points, to real ones (numpy's irfft
   for sign +1 and scale 1/n; the imaginary parts of the points 0 and n/2
   do not count):

       y[c, j] = scale * Re(sum_(k < n) X[c, k] exp(sign 2 pi i j k / n))

       void _mlir_ciface_jaxc_hermitian_dft_f32(long n, long columns,
               intptr_t x, long x_offset, long x_part_stride, long x_column_stride, long x_stride,
               intptr_t y, long y_offset, long y_column_stride, long y_stride,
               long sign, double scale);          (and _f64)

   Fast for every n (O(n log n)): Stockham autosort FFTs of mixed radix (8,
   4, 2 and the odd primes up to 13, fft_family.h), Bluestein's algorithm
   over a power-of-two FFT when n has a larger prime factor. Vectorized
   across columns: a block of columns, one vector register wide (AVX-512:
   16 f32 or 8 f64), is gathered into a work buffer, transformed there and
   scattered to y. Real input columns go two blocks to a transform, one as
   the real parts and one as the imaginary, and are separated after it;
   the Hermitian transform's pairs of inputs are combined before it, and
   its two real outputs are the result's real and imaginary parts. A few
   columns (which would leave most lanes empty) and
   long contiguous ones go a column at a time through a split n = n1 n2
   that makes columns of the column (SPLIT). The inverse transform (sign +1)
   is the forward one with real and imaginary parts exchanged on the way in
   and out, so plans are for sign -1 only.

   Plans (factors, twiddles, Bluestein's chirp and kernel, the split) are
   made once per (n, element type), in double with the exponents reduced
   exactly in integers, and shared by every thread (CACHED_PLANS of them;
   beyond, a call makes its own). The work buffers are the thread's scratch
   of gemm.c (kernels.h). Out of memory, a direct O(n^2) sum that needs none
   gives the same result, slowly. No dependencies but libc and libm. Built
   into libjaxc_kernels.so with gemm.c; jaxc.runtime.aot compiles both into
   exported programs that call either. */
#pragma GCC optimize("O3")
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

#define MAX_ODD_RADIX 13
#define MAX_STAGES 64
#define CACHED_PLANS 64
/* A few long columns go through the split n = n1 n2, n2 the largest
   divisor of n up to SPLIT (at least 4) and n1 at least SPLIT (the blocks
   of columns would be mostly empty lanes): n1-point transforms of n2
   columns, twiddles, n2-point transforms of n1 columns. So do contiguous
   columns whose block's two work buffers would take more than SPLIT_BYTES
   (n > 16384 on AVX-512): 2-4 MB of buffers a thread instead of up to 256
   bytes a point, and faster from n = 32768 on (Zen 4). */
#define SPLIT 16
#define SPLIT_BYTES (1L << 22)

struct stage {
    int p;          /* radix */
    long m, s;      /* sub-length L = p m, stride s */
    void *twiddles; /* (re, im) of w_L^(k u), k < m, u = 1 .. p-1 */
    void *roots;    /* odd p: cos and sin of 2 pi r / p, r < p */
};

struct plan {
    long n;
    int f32;  /* the tables' element type: float, else double */
    int stage_count;
    struct stage stage[MAX_STAGES];
    /* Bluestein: the FFT of length M, chirp (n points) and kernel (M) */
    struct plan *inner;
    void *chirp, *kernel;
    /* The split n = n1 n2 (else NULL): plans of n1 and n2 points,
       twiddles w_n^(j2 k1) at j2 n1 + k1 (j2 < n2, k1 < n1) */
    struct plan *split_outer, *split_inner;
    void *split_twiddles;
};

/* ------------------------------------------------------------------ plans */

static void free_plan(struct plan *plan)
{
    if (!plan)
        return;
    for (int i = 0; i < plan->stage_count; i++) {
        free(plan->stage[i].twiddles);
        free(plan->stage[i].roots);
    }
    free_plan(plan->inner);
    free(plan->chirp);
    free(plan->kernel);
    free_plan(plan->split_outer);
    free_plan(plan->split_inner);
    free(plan->split_twiddles);
    free(plan);
}

static void *table(long complex_count, int f32)
{
    return malloc((size_t)(complex_count > 0 ? complex_count : 1) * 2 * (f32 ? sizeof(float) : sizeof(double)));
}

/* table[i] = re + i im */
static void put(void *table, long i, double re, double im, int f32)
{
    if (f32) {
        ((float *)table)[2 * i] = (float)re;
        ((float *)table)[2 * i + 1] = (float)im;
    } else {
        ((double *)table)[2 * i] = re;
        ((double *)table)[2 * i + 1] = im;
    }
}

/* exp(-2 pi i e / d), 0 <= e < d */
static void root(long e, long d, double *re, double *im)
{
    const double angle = 2 * M_PI * ((double)e / (double)d);
    *re = cos(angle);
    *im = -sin(angle);
}

/* The radices of n, as many 8s as possible first, then a 4 or a 2; 0 when
   n has a prime factor above MAX_ODD_RADIX. */
static int factor(long n, int *radices)
{
    static const int odd[] = {3, 5, 7, 11, 13};
    int count = 0;
    while (n % 8 == 0) {
        radices[count++] = 8;
        n /= 8;
    }
    if (n % 4 == 0) {
        radices[count++] = 4;
        n /= 4;
    }
    if (n % 2 == 0) {
        radices[count++] = 2;
        n /= 2;
    }
    for (int i = 0; i < 5; i++)
        while (n % odd[i] == 0) {
            radices[count++] = odd[i];
            n /= odd[i];
        }
    return n == 1 ? count : 0;
}

static struct plan *build_bluestein(long n, int f32);

/* The plan of the forward transform (sign -1) of length n, with its split
   when `split` and n has one; NULL when out of memory. */
static struct plan *build(long n, int f32, int split)
{
    int radices[MAX_STAGES];
    const int count = factor(n, radices);
    if (count == 0 && n > 1)
        return build_bluestein(n, f32);
    struct plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return NULL;
    plan->n = n;
    plan->f32 = f32;
    long L = n, s = 1;
    for (int i = 0; i < count; i++) {
        const int p = radices[i];
        const long m = L / p;
        struct stage *st = &plan->stage[plan->stage_count++];
        *st = (struct stage){p, m, s, table(m * (p - 1), f32), p % 2 ? table(p, f32) : NULL};
        if (!st->twiddles || (p % 2 && !st->roots)) {
            free_plan(plan);
            return NULL;
        }
        for (long k = 0; k < m; k++)
            for (int u = 1; u < p; u++) {
                double re, im;
                root(k * u, L, &re, &im);  /* k u < m p = L */
                put(st->twiddles, k * (p - 1) + u - 1, re, im, f32);
            }
        if (p % 2)
            for (int r = 0; r < p; r++) {
                const double angle = 2 * M_PI * ((double)r / p);
                put(st->roots, r, cos(angle), sin(angle), f32);
            }
        L /= p;
        s *= p;
    }
    long n2 = SPLIT;
    while (n2 >= 4 && n % n2 != 0) n2--;
    if (split && n2 >= 4 && n / n2 >= SPLIT) {
        const long n1 = n / n2;
        plan->split_outer = build(n1, f32, 0);
        plan->split_inner = build(n2, f32, 0);
        plan->split_twiddles = table(n, f32);
        if (!plan->split_outer || !plan->split_inner || !plan->split_twiddles) {
            free_plan(plan);
            return NULL;
        }
        for (long j2 = 0; j2 < n2; j2++)
            for (long k1 = 0; k1 < n1; k1++) {
                double re, im;
                root(j2 * k1, n, &re, &im);  /* j2 k1 < n2 n1 = n */
                put(plan->split_twiddles, j2 * n1 + k1, re, im, f32);
            }
    }
    return plan;
}

/* In-place forward FFT of M (a power of two) complex doubles (re, im
   interleaved): Bluestein's kernel, computed once per plan in double. */
static int fft_double(long M, double *z)
{
    double *w = malloc(sizeof(double) * (size_t)M);  /* exp(-2 pi i k / M), k < M/2 */
    if (!w)
        return -1;
    for (long k = 0; k < M / 2; k++) root(k, M, &w[2 * k], &w[2 * k + 1]);
    for (long i = 1, j = 0; i < M; i++) {  /* bit reversal */
        long bit = M >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double t = z[2 * i];
            z[2 * i] = z[2 * j];
            z[2 * j] = t;
            t = z[2 * i + 1];
            z[2 * i + 1] = z[2 * j + 1];
            z[2 * j + 1] = t;
        }
    }
    for (long len = 2; len <= M; len *= 2) {
        const long half = len / 2, step = M / len;
        for (long i = 0; i < M; i += len)
            for (long k = 0; k < half; k++) {
                const double wr = w[2 * k * step], wi = w[2 * k * step + 1];
                double *a = z + 2 * (i + k), *b = z + 2 * (i + k + half);
                const double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
                b[0] = a[0] - br;
                b[1] = a[1] - bi;
                a[0] += br;
                a[1] += bi;
            }
    }
    free(w);
    return 0;
}

static struct plan *build_bluestein(long n, int f32)
{
    long M = 1;
    while (M < 2 * n - 1) M *= 2;
    struct plan *plan = calloc(1, sizeof *plan);
    double *b = calloc((size_t)M, 2 * sizeof(double));
    if (!plan || !b)
        goto fail;
    plan->n = n;
    plan->f32 = f32;
    plan->inner = build(M, f32, 1);  /* its split: Bluestein a column at a time */
    plan->chirp = table(n, f32);
    plan->kernel = table(M, f32);
    if (!plan->inner || !plan->chirp || !plan->kernel)
        goto fail;
    /* c_j = exp(-i pi (j^2 mod 2n) / n) = exp(-2 pi i (j^2 mod 2n) / 2n); b = conj(c), cyclic */
    for (long j = 0, j2 = 0; j < n; j++) {
        double re, im;
        root(j2, 2 * n, &re, &im);
        put(plan->chirp, j, re, im, f32);
        b[2 * j] = re;
        b[2 * j + 1] = -im;
        if (j > 0) {
            b[2 * (M - j)] = re;
            b[2 * (M - j) + 1] = -im;
        }
        j2 = (j2 + 2 * j + 1) % (2 * n);  /* (j + 1)^2 */
    }
    if (fft_double(M, b) != 0)
        goto fail;
    for (long k = 0; k < M; k++) put(plan->kernel, k, b[2 * k] / M, b[2 * k + 1] / M, f32);
    free(b);
    return plan;
fail:
    free(b);
    free_plan(plan);
    return NULL;
}

/* Plans made so far, shared by every thread (read-only once made); beyond
   CACHED_PLANS a call makes its own and frees it. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan *cache[CACHED_PLANS];
static int cache_count;

static struct plan *cached(long n, int f32)
{
    for (int i = 0; i < cache_count; i++)
        if (cache[i]->n == n && cache[i]->f32 == f32)
            return cache[i];
    return NULL;
}

/* The plan for (n, f32), *temporary when the caller must free it; NULL when
   out of memory. */
static struct plan *get_plan(long n, int f32, int *temporary)
{
    *temporary = 0;
    pthread_mutex_lock(&cache_lock);
    struct plan *plan = cached(n, f32);
    pthread_mutex_unlock(&cache_lock);
    if (plan)
        return plan;
    struct plan *made = build(n, f32, 1);  /* outside the lock: other sizes go on meanwhile */
    if (!made)
        return NULL;
    pthread_mutex_lock(&cache_lock);
    plan = cached(n, f32);  /* another thread may have made it meanwhile */
    if (!plan && cache_count < CACHED_PLANS)
        cache[cache_count++] = plan = made;
    pthread_mutex_unlock(&cache_lock);
    if (plan == made)
        return plan;
    if (plan) {
        free_plan(made);
        return plan;
    }
    *temporary = 1;
    return made;
}

__attribute__((destructor)) static void fft_unload(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < cache_count; i++) free_plan(cache[i]);
    cache_count = 0;
    pthread_mutex_unlock(&cache_lock);
}

/* --------------------------------------------------------------- families */


/* SSE2 (every x86-64 CPU): one xmm a vector. The vectors are each target's
   own width: GCC's lowering of wider vector extensions to narrower
   registers goes through memory (AVX2 with 64-byte vectors ran 6x slower). */
#define T float
#define W 4
#define SUFFIX f32_sse2
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX
#define T double
#define W 2
#define SUFFIX f64_sse2
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX

/* AVX2 + FMA: one ymm a vector. */
JAXC_TARGET_PUSH("avx2,fma")
#define T float
#define W 8
#define SUFFIX f32_avx2
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX
#define T double
#define W 4
#define SUFFIX f64_avx2
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

/* AVX-512: one zmm a vector. */
JAXC_TARGET_PUSH("avx512f,fma")
#define T float
#define W 16
#define SUFFIX f32_avx512
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX
#define T double
#define W 8
#define SUFFIX f64_avx512
#include "fft_family.h"
#undef T
#undef W
#undef SUFFIX
JAXC_TARGET_POP()

/* Which code computes the transforms: FAMILY_AUTO (the best this CPU
   runs), or one set by jaxc_dft_use_family (tests). */
enum { FAMILY_AUTO, FAMILY_DIRECT, FAMILY_SSE2, FAMILY_AVX2, FAMILY_AVX512 };
static int chosen_family = FAMILY_AUTO;

static int best_family(void) { return jaxc_has_avx512() ? FAMILY_AVX512 : jaxc_has_avx2() ? FAMILY_AVX2 : FAMILY_SSE2; }

/* For tests: compute with `family` (0: the best this CPU runs, 1: the direct
   O(n^2) sums of the out-of-memory path, 2: SSE2, 3: AVX2, 4: AVX-512;
   a family this CPU lacks gives the best it has). Returns the family now
   in use. Not for concurrent use with transforms in flight. */
int jaxc_dft_use_family(int family)
{
    if (family < FAMILY_AUTO || family > FAMILY_AVX512)
        family = FAMILY_AUTO;
    if (family > best_family())
        family = best_family();
    __atomic_store_n(&chosen_family, family, __ATOMIC_RELAXED);
    return family == FAMILY_AUTO ? best_family() : family;
}

static int family(void)
{
    const int chosen = __atomic_load_n(&chosen_family, __ATOMIC_RELAXED);
    return chosen == FAMILY_AUTO ? best_family() : chosen;
}

/* ------------------------------------------------------------ the entries */

/* The O(n^2) sums, in double, with no memory but the stack: what a call
   computes when there is no memory for a plan or the work buffers. */
#define DIRECT(T, NAME)                                                                                   \
    static void NAME(long n, long outputs, long columns, long parts, const T *x, long xps, long xcs,      \
                     long xs, T *y, long yps, long ycs, long ys, long sign, double scale)                 \
    {                                                                                                     \
        for (long c = 0; c < columns; c++)                                                                \
            for (long k = 0; k < outputs; k++) {                                                          \
                double re = 0, im = 0;                                                                    \
                for (long j = 0, e = 0; j < n; j++) { /* e = j k mod n */                                 \
                    const double angle = 2 * M_PI * ((double)e / (double)n);                              \
                    const double wr = cos(angle), wi = sign * sin(angle);                                 \
                    const double xr = x[c * xcs + j * xs], xi = parts == 2 ? x[xps + c * xcs + j * xs] : 0;  \
                    re += xr * wr - xi * wi;                                                              \
                    im += xr * wi + xi * wr;                                                              \
                    e += k;                                                                               \
                    if (e >= n)                                                                           \
                        e -= n;                                                                           \
                }                                                                                         \
                y[c * ycs + k * ys] = (T)(scale * re);                                                    \
                y[yps + c * ycs + k * ys] = (T)(scale * im);                                              \
            }                                                                                             \
    }
DIRECT(float, direct_f32)
DIRECT(double, direct_f64)
#undef DIRECT

/* The Hermitian transform's O(n^2) sums: the mirrored half counts twice,
   and only the real part is wanted. */
#define DIRECT_HERMITIAN(T, NAME)                                                                         \
    static void NAME(long n, long columns, const T *x, long xps, long xcs, long xs, T *y, long ycs,       \
                     long ys, long sign, double scale)                                                    \
    {                                                                                                     \
        for (long c = 0; c < columns; c++)                                                                \
            for (long j = 0; j < n; j++) {                                                                \
                double re = 0;                                                                            \
                for (long k = 0, e = 0; k <= n / 2; k++) { /* e = j k mod n */                            \
                    const double angle = 2 * M_PI * ((double)e / (double)n);                              \
                    const double weight = k == 0 || 2 * k == n ? 1 : 2;                                  \
                    const double xr = x[c * xcs + k * xs], xi = x[xps + c * xcs + k * xs];                \
                    re += weight * (xr * cos(angle) - sign * xi * sin(angle));                            \
                    e += j;                                                                               \
                    if (e >= n)                                                                           \
                        e -= n;                                                                           \
                }                                                                                         \
                y[c * ycs + j * ys] = (T)(scale * re);                                                    \
            }                                                                                             \
    }
DIRECT_HERMITIAN(float, direct_hermitian_f32)
DIRECT_HERMITIAN(double, direct_hermitian_f64)
#undef DIRECT_HERMITIAN

#define ENTRY(T, TYPE, F32)                                                                                        \
    void _mlir_ciface_jaxc_dft_##TYPE(long n, long outputs, long columns, long parts, intptr_t x, long x_offset,  \
                                      long x_part_stride, long x_column_stride, long x_stride, intptr_t y,        \
                                      long y_offset, long y_part_stride, long y_column_stride, long y_stride,     \
                                      long sign, double scale)                                                    \
    {                                                                                                              \
        if (n <= 0 || columns <= 0 || outputs <= 0)                                                                \
            return;                                                                                                \
        if (outputs > n)                                                                                           \
            outputs = n;                                                                                           \
        const T *xs = (const T *)x + x_offset;                                                                     \
        T *ys = (T *)y + y_offset;                                                                                 \
        const int use = family();                                                                                  \
        int temporary = 0, failed = 1;                                                                             \
        struct plan *plan = use == FAMILY_DIRECT ? NULL : get_plan(n, F32, &temporary);                           \
        if (plan) {                                                                                                \
            int (*dft)(const struct plan *, long, long, long, const T *, long, long, long, T *, long, long, long, \
                       int, T) = use == FAMILY_AVX512 ? transform_##TYPE##_avx512                                  \
                                 : use == FAMILY_AVX2 ? transform_##TYPE##_avx2                                    \
                                                      : transform_##TYPE##_sse2;                                   \
            failed = dft(plan, outputs, columns, parts, xs, x_part_stride, x_column_stride, x_stride, ys,         \
                         y_part_stride, y_column_stride, y_stride, sign > 0, (T)scale);                            \
            if (temporary)                                                                                         \
                free_plan(plan);                                                                                   \
        }                                                                                                          \
        if (failed)                                                                                                \
            direct_##TYPE(n, outputs, columns, parts, xs, x_part_stride, x_column_stride, x_stride, ys,           \
                          y_part_stride, y_column_stride, y_stride, sign > 0 ? 1 : -1, scale);                     \
    }
ENTRY(float, f32, 1)
ENTRY(double, f64, 0)
#undef ENTRY

#define HERMITIAN_ENTRY(T, TYPE, F32)                                                                              \
    void _mlir_ciface_jaxc_hermitian_dft_##TYPE(long n, long columns, intptr_t x, long x_offset,                  \
                                                long x_part_stride, long x_column_stride, long x_stride,          \
                                                intptr_t y, long y_offset, long y_column_stride, long y_stride,   \
                                                long sign, double scale)                                          \
    {                                                                                                              \
        if (n <= 0 || columns <= 0)                                                                                \
            return;                                                                                                \
        const T *xs = (const T *)x + x_offset;                                                                     \
        T *ys = (T *)y + y_offset;                                                                                 \
        const int use = family();                                                                                  \
        int temporary = 0, failed = 1;                                                                             \
        struct plan *plan = use == FAMILY_DIRECT ? NULL : get_plan(n, F32, &temporary);                           \
        if (plan) {                                                                                                \
            int (*hermitian)(const struct plan *, long, const T *, long, long, long, T *, long, long, int, T) =   \
                use == FAMILY_AVX512 ? hermitian_##TYPE##_avx512                                                   \
                : use == FAMILY_AVX2 ? hermitian_##TYPE##_avx2                                                     \
                                     : hermitian_##TYPE##_sse2;                                                    \
            failed = hermitian(plan, columns, xs, x_part_stride, x_column_stride, x_stride, ys, y_column_stride,   \
                               y_stride, sign > 0, (T)scale);                                                      \
            if (temporary)                                                                                         \
                free_plan(plan);                                                                                   \
        }                                                                                                          \
        if (failed)                                                                                                \
            direct_hermitian_##TYPE(n, columns, xs, x_part_stride, x_column_stride, x_stride, ys, y_column_stride, \
                                    y_stride, sign > 0 ? 1 : -1, scale);                                           \
    }
HERMITIAN_ENTRY(float, f32, 1)
HERMITIAN_ENTRY(double, f64, 0)
#undef HERMITIAN_ENTRY
