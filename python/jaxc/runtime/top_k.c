/* The k largest entries of each row, f32 and f64, for compiled CPU code
   (JAX's lax.top_k): for `rows` row-major rows of n entries (contiguous,
   one after the other) and 0 <= k <= n, each row's k largest entries,
   largest first, into `values` (rows x k, the type of x) and their indices
   in the row into `indices` (rows x k, int32), x only read:

       void _mlir_ciface_jaxc_top_k_f32(long rows, long n, long k,
                                        intptr_t x, intptr_t values, intptr_t indices);   (and _f64)

   The order is lax.top_k's: that of the integer key of each entry's bits
   (int32 for f32, int64 for f64), key = bits ^ ((bits >> 31) & 0x7fffffff)
   (the magnitude of negatives flipped; >> 63 and 0x7fff...f for f64),
   every NaN of a sign one key, INT_MAX when the sign bit is clear, else
   INT_MIN + 1:

       -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN,

   equal keys in index order (the lower index first). The values are
   copied from x bit for bit (NaN payloads kept). k = 0 or no rows: nothing
   written. Rows of more than INT32_MAX entries are not supported (the
   indices are int32).

   Small k (select): one pass over the row keeping its best k entries so
   far, sorted by key, in the outputs themselves (the keys in `values`' row
   until the end, when the entries' bits replace them). An entry counts
   when its key is greater than the floor: the k-th kept key once k are
   kept (so a later equal entry loses the tie), and at least a bound less
   one; it is shifted in from the end. The row goes by chunks of 64 blocks
   of 32 entries: first each block's maximum as a float (NaN when it has a
   NaN), and when k of them are numbers the k-th largest, found by counting
   the greater ones, is a bound: k entries are not below it, so no entry
   below it is among the best. Then each block whose maximum is not below
   the floor's value t is compared with t, !(x < t), four or two entries at
   a time, into a mask of the entries that may count (every entry whose key
   is greater than the floor: a NaN passes, as does anything when t is
   NaN), and only those are looked at, with their exact keys. The float
   comparisons only ever pass more entries than count, also where MXCSR's
   DAZ makes denormals compare as zeros, as compiled code calls this: a
   bound of zero or a denormal is taken as the least denormal. Large k
   (sort): the row's (high 32 bits of the key, descending as unsigned, and
   index) pairs sorted by an LSD radix sort of the 32 bits, a byte a pass
   (passes where every pair has the same byte skipped), which keeps equal
   keys in index order; for f64 then the runs of equal high halves that
   reach into the first k the same way by their low halves; the first k
   taken. Its buffer (2 n pairs) is malloc'ed for the call; out of memory,
   select at any k (O(n k) at worst).

   The sort when k * k > 3 n and n >= 64, by measurement on a busy 2-core
   AVX-512 machine (AMD EPYC): the two cross at k near 2 to 4 sqrt(n) from
   n = 128 to 65536, f32 and f64. 4096 rows of 1024 random normal f32, in
   ms: k = 1 0.7, 8 1.7, 16 2.8, 32 5.7, 48 15.9 (select; no bound: 32
   blocks), 64 15.7, 256 16, 1024 17.6 (sort); f64 1.4, 2.4, 3.6, 6.5, 15,
   17.6, 18.9, 23. The blocks' comparisons and maxima are SSE2 (every x86-64
   CPU: 5.0 to 3.3 ms at f32 k = 8 before the bounds, against the plain C,
   which GCC makes branches of), plain C without it.

   jaxc-to-linalg lowers jaxc.top_k of f32 and f64 (what lax.top_k binds,
   on the last axis) to calls of these through jaxc-library-calls, which
   passes the buffers' aligned pointers. Single-threaded: the threads are
   the caller's. No dependencies but libc. Built into libjaxc_kernels.so
   with gemm.c and the other kernels; jaxc.runtime.aot compiles it, with
   gemm.c, into exported programs that call it. */
#pragma GCC optimize("O3")
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "kernels.h"

/* The switch to the sort: k * k > SORT_RATIO n and n >= SORT_MIN_N; the
   blocks of a chunk (at most 64; -D to measure others). BLOCK is 32: a
   block's candidates are the bits of a uint32_t. */
#ifndef SORT_RATIO
#define SORT_RATIO 3
#endif
#ifndef SORT_MIN_N
#define SORT_MIN_N 64
#endif
#ifndef CHUNK
#define CHUNK 64
#endif
#define BLOCK 32

/* The block x[0..32): bit j of block_mask set when !(x[j] < t) (x[j] not
   below t, or either NaN); block_max the largest entry (one of the block's
   values, or a zero for a denormal where DAZ is set) or NaN when there is
   a NaN. count_greater: how many of m[0..g) are greater than v. SSE2
   (every x86-64 CPU) where there is, else plain C (GCC does not vectorize
   these from plain C: the mask is branches, the maximum is not one under
   IEEE rules, f64 comparisons are not counted in vectors). */
#ifdef __SSE2__
static inline uint32_t block_mask_f32(const float *x, float t)
{
    const __m128 tv = _mm_set1_ps(t);
    __m128 c[8], any = _mm_setzero_ps();
    for (int j = 0; j < 8; j++) {
        c[j] = _mm_cmpnlt_ps(_mm_loadu_ps(x + 4 * j), tv);
        any = _mm_or_ps(any, c[j]);
    }
    if (!_mm_movemask_ps(any))
        return 0;
    uint32_t mask = 0;
    for (int j = 0; j < 8; j++)
        mask |= (uint32_t)_mm_movemask_ps(c[j]) << 4 * j;
    return mask;
}

static inline uint32_t block_mask_f64(const double *x, double t)
{
    const __m128d tv = _mm_set1_pd(t);
    __m128d c[16], any = _mm_setzero_pd();
    for (int j = 0; j < 16; j++) {
        c[j] = _mm_cmpnlt_pd(_mm_loadu_pd(x + 2 * j), tv);
        any = _mm_or_pd(any, c[j]);
    }
    if (!_mm_movemask_pd(any))
        return 0;
    uint32_t mask = 0;
    for (int j = 0; j < 16; j++)
        mask |= (uint32_t)_mm_movemask_pd(c[j]) << 2 * j;
    return mask;
}

static inline float block_max_f32(const float *x)
{
    __m128 top = _mm_loadu_ps(x), nan = _mm_cmpunord_ps(top, top);
    for (int j = 1; j < 8; j++) {
        const __m128 v = _mm_loadu_ps(x + 4 * j);
        top = _mm_max_ps(top, v);
        nan = _mm_or_ps(nan, _mm_cmpunord_ps(v, v));
    }
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, 0x4e));
    top = _mm_max_ps(top, _mm_shuffle_ps(top, top, 0xb1));
    return _mm_movemask_ps(nan) ? NAN : _mm_cvtss_f32(top);
}

static inline double block_max_f64(const double *x)
{
    __m128d top = _mm_loadu_pd(x), nan = _mm_cmpunord_pd(top, top);
    for (int j = 1; j < 16; j++) {
        const __m128d v = _mm_loadu_pd(x + 2 * j);
        top = _mm_max_pd(top, v);
        nan = _mm_or_pd(nan, _mm_cmpunord_pd(v, v));
    }
    top = _mm_max_pd(top, _mm_shuffle_pd(top, top, 1));
    return _mm_movemask_pd(nan) ? NAN : _mm_cvtsd_f64(top);
}

static inline long count_greater_f64(const double *m, long g, double v)
{
    const __m128d vv = _mm_set1_pd(v);
    __m128i count = _mm_setzero_si128();
    long j = 0;
    for (; j + 2 <= g; j += 2)
        count = _mm_sub_epi64(count, _mm_castpd_si128(_mm_cmpgt_pd(_mm_loadu_pd(m + j), vv)));
    int64_t lanes[2];
    _mm_storeu_si128((__m128i *)lanes, count);
    return (long)(lanes[0] + lanes[1]) + (j < g && m[j] > v);
}
#else
#define PLAIN_BLOCK(TYPE, T)                                    \
    static inline uint32_t block_mask_##TYPE(const T *x, T t)   \
    {                                                           \
        uint32_t mask = 0;                                      \
        for (int j = 0; j < BLOCK; j++)                         \
            mask |= (uint32_t)!(x[j] < t) << j;                 \
        return mask;                                            \
    }                                                           \
                                                                \
    static inline T block_max_##TYPE(const T *x)                \
    {                                                           \
        T top = x[0];                                           \
        for (int j = 0; j < BLOCK; j++) {                       \
            if (x[j] != x[j])                                   \
                return NAN;                                     \
            top = x[j] > top ? x[j] : top;                      \
        }                                                       \
        return top;                                             \
    }
PLAIN_BLOCK(f32, float)
PLAIN_BLOCK(f64, double)
#undef PLAIN_BLOCK

static inline long count_greater_f64(const double *m, long g, double v)
{
    long count = 0;
    for (long j = 0; j < g; j++)
        count += m[j] > v;
    return count;
}
#endif

/* count_greater of f32 in plain C, which GCC vectorizes. */
static inline long count_greater_f32(const float *m, long g, float v)
{
    int count = 0;
    for (long j = 0; j < g; j++)
        count += m[j] > v;
    return count;
}

/* The n pairs of `from` sorted by their high 32 bits, stably: an LSD radix
   sort, a byte a pass (count: the bytes' histograms; passes where every
   pair has the same byte skipped), between from and `to`; the one that
   holds the result. */
static uint64_t *sort_pairs(uint64_t *from, uint64_t *to, long n, uint32_t count[4][256])
{
    for (int b = 0; b < 4; b++) {
        const int shift = 32 + 8 * b;
        uint32_t *c = count[b];
        if (c[(from[0] >> shift) & 255] == (uint32_t)n)
            continue;
        uint32_t sum = 0;
        for (int d = 0; d < 256; d++) {
            const uint32_t here = c[d];
            c[d] = sum;
            sum += here;
        }
        for (long i = 0; i < n; i++) {
            const uint64_t pair = from[i];
            to[c[(pair >> shift) & 255]++] = pair;
        }
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    return from;
}

/* The functions of one type: T the float, U its bits, K its key (signed),
   K_MAX and K_MIN its limits, S the bits of the sign, M those of the
   magnitude, INF those of inf, NORMAL the least normal number and
   NORMAL_BITS its bits. */
#define TOP_K_FUNCTIONS(TYPE, T, U, K, K_MAX, K_MIN, S, M, INF, NORMAL, NORMAL_BITS)                              \
    /* The bits of *x. */                                                                                         \
    static inline U bits_##TYPE(const T *x)                                                                       \
    {                                                                                                             \
        U bits;                                                                                                   \
        memcpy(&bits, x, sizeof bits);                                                                            \
        return bits;                                                                                              \
    }                                                                                                             \
                                                                                                                  \
    /* The key of the entry of `bits`. */                                                                         \
    static inline K key_##TYPE(U bits)                                                                            \
    {                                                                                                             \
        if ((bits & M) > INF)                                                                                     \
            return bits & S ? K_MIN + 1 : K_MAX;                                                                  \
        return (K)(bits ^ (bits & S ? M : 0));                                                                    \
    }                                                                                                             \
                                                                                                                  \
    /* The value of `key` (NaN for NaN's and for keys below -inf's): every                                        \
       entry whose key is greater is not below it as a float, or NaN. */                                          \
    static inline T value_##TYPE(K key)                                                                           \
    {                                                                                                             \
        const U bits = (U)key ^ ((U)key & S ? M : 0);                                                             \
        T value;                                                                                                  \
        memcpy(&value, &bits, sizeof value);                                                                      \
        return value;                                                                                             \
    }                                                                                                             \
                                                                                                                  \
    /* Entry i, of `key`, into the sorted keys[0..last] and index[0..last]                                        \
       (what was at `last` dropped), after the equal keys. */                                                     \
    static inline void insert_##TYPE(K *keys, int32_t *index, long last, K key, long i)                           \
    {                                                                                                             \
        long p = last;                                                                                            \
        for (; p > 0 && keys[p - 1] < key; p--) {                                                                 \
            keys[p] = keys[p - 1];                                                                                \
            index[p] = index[p - 1];                                                                              \
        }                                                                                                         \
        keys[p] = key;                                                                                            \
        index[p] = (int32_t)i;                                                                                    \
    }                                                                                                             \
                                                                                                                  \
    /* Entry i of x into the best `filled` of k when its key is greater than                                      \
       `floor`; the floor after it. */                                                                            \
    static inline K consider_##TYPE(const T *x, long i, long k, K *keys, int32_t *index, long *filled, K floor)   \
    {                                                                                                             \
        const K key = key_##TYPE(bits_##TYPE(x + i));                                                             \
        if (key <= floor)                                                                                         \
            return floor;                                                                                         \
        if (*filled < k) {                                                                                        \
            insert_##TYPE(keys, index, *filled, key, i);                                                          \
            if (++*filled < k)                                                                                    \
                return floor;                                                                                     \
        } else                                                                                                    \
            insert_##TYPE(keys, index, k - 1, key, i);                                                            \
        return keys[k - 1] > floor ? keys[k - 1] : floor;                                                         \
    }                                                                                                             \
                                                                                                                  \
    /* The best k of one row of n by one pass (the small path): the keys                                          \
       sorted (descending, then by index) in `keys`, their indices in `index`,                                    \
       then the keys replaced by the entries' bits. An entry counts when its                                      \
       key is greater than `floor` (t its value as a float): the k-th best                                        \
       key when k are kept, and at least a chunk's bound less one. */                                             \
    static void select_##TYPE(long n, long k, const T *restrict x, K *restrict keys, int32_t *restrict index)     \
    {                                                                                                             \
        long filled = 0;                                                                                          \
        K floor = K_MIN;                                                                                          \
        T t = value_##TYPE(floor);                                                                                \
        const long blocks = n / BLOCK;                                                                            \
        for (long chunk = 0; chunk < blocks; chunk += CHUNK) {                                                    \
            const long g = blocks - chunk < CHUNK ? blocks - chunk : CHUNK;                                       \
            const T *at = x + chunk * BLOCK;                                                                      \
            T top[CHUNK];                                                                                         \
            long numbers = 0;                                                                                     \
            for (long b = 0; b < g; b++) {                                                                        \
                top[b] = block_max_##TYPE(at + b * BLOCK);                                                        \
                numbers += top[b] == top[b];                                                                      \
            }                                                                                                     \
            if (numbers >= k) {                                                                                   \
                /* The k-th largest of the blocks' maxima that are numbers:                                       \
                   k entries of the chunk are not below it. */                                                    \
                T bound = INFINITY;                                                                               \
                for (long b = 0; b < g; b++)                                                                      \
                    if (top[b] < bound && count_greater_##TYPE(top, g, top[b]) < k)                               \
                        bound = top[b];                                                                           \
                const K key = bound < NORMAL && bound > -NORMAL ? key_##TYPE(S | (NORMAL_BITS - 1))               \
                                                                : key_##TYPE(bits_##TYPE(&bound));                \
                if (key - 1 > floor) {                                                                            \
                    floor = key - 1;                                                                              \
                    t = value_##TYPE(floor);                                                                      \
                }                                                                                                 \
            }                                                                                                     \
            for (long b = 0; b < g; b++) {                                                                        \
                if (top[b] < t)                                                                                   \
                    continue;                                                                                     \
                const long first = (chunk + b) * BLOCK;                                                           \
                uint32_t mask = block_mask_##TYPE(x + first, t);                                                  \
                while (mask) {                                                                                    \
                    const long i = first + __builtin_ctz(mask);                                                   \
                    mask &= mask - 1;                                                                             \
                    const K before = floor;                                                                       \
                    floor = consider_##TYPE(x, i, k, keys, index, &filled, floor);                                \
                    if (floor != before)                                                                          \
                        t = value_##TYPE(floor);                                                                  \
                }                                                                                                 \
            }                                                                                                     \
        }                                                                                                         \
        for (long i = blocks * BLOCK; i < n; i++)                                                                 \
            if (!(x[i] < t)) {                                                                                    \
                floor = consider_##TYPE(x, i, k, keys, index, &filled, floor);                                    \
                t = value_##TYPE(floor);                                                                          \
            }                                                                                                     \
        for (long j = 0; j < k; j++)                                                                              \
            keys[j] = (K)bits_##TYPE(x + index[j]);                                                               \
    }                                                                                                             \
                                                                                                                  \
    /* The sort key of entry i: its key descending as unsigned ascending. */                                      \
    static inline U sort_key_##TYPE(const T *x, long i) { return ~((U)key_##TYPE(bits_##TYPE(x + i)) ^ S); }      \
                                                                                                                  \
    /* The best k of one row of n by sorting it, `work` 2 n pairs: each                                           \
       entry's (high 32 bits of its sort key, index) sorted, then (f64) runs                                      \
       of equal high halves that reach into the first k sorted by (low 32                                         \
       bits, index). */                                                                                           \
    static void sort_##TYPE(long n, long k, const T *restrict x, U *restrict values, int32_t *restrict index,     \
                            uint64_t *restrict work)                                                              \
    {                                                                                                             \
        uint32_t count[4][256];                                                                                   \
        memset(count, 0, sizeof count);                                                                           \
        for (long i = 0; i < n; i++) {                                                                            \
            const uint32_t high = (uint32_t)(sort_key_##TYPE(x, i) >> (8 * sizeof(U) - 32));                      \
            work[i] = (uint64_t)high << 32 | (uint64_t)i;                                                         \
            for (int b = 0; b < 4; b++)                                                                           \
                count[b][(high >> 8 * b) & 255]++;                                                                \
        }                                                                                                         \
        uint64_t *sorted = sort_pairs(work, work + n, n, count);                                                  \
        uint64_t *spare = sorted == work ? work + n : work;                                                       \
        for (long next = 1; sizeof(U) > 4 && next < n && next <= k; next++) {                                     \
            if ((sorted[next] ^ sorted[next - 1]) >> 32)                                                          \
                continue;                                                                                         \
            const long first = next - 1;                                                                          \
            const uint64_t high = sorted[first] >> 32;                                                            \
            long end = next + 1;                                                                                  \
            while (end < n && sorted[end] >> 32 == high)                                                          \
                end++;                                                                                            \
            memset(count, 0, sizeof count);                                                                       \
            for (long j = first; j < end; j++) {                                                                  \
                const uint32_t i = (uint32_t)sorted[j], low = (uint32_t)sort_key_##TYPE(x, i);                    \
                spare[j] = (uint64_t)low << 32 | i;                                                               \
                for (int b = 0; b < 4; b++)                                                                       \
                    count[b][(low >> 8 * b) & 255]++;                                                             \
            }                                                                                                     \
            const uint64_t *run = sort_pairs(spare + first, sorted + first, end - first, count);                  \
            for (long j = first; j < end; j++)                                                                    \
                sorted[j] = high << 32 | (uint32_t)run[j - first];                                                \
            next = end;                                                                                           \
        }                                                                                                         \
        for (long j = 0; j < k; j++) {                                                                            \
            index[j] = (int32_t)(uint32_t)sorted[j];                                                              \
            values[j] = bits_##TYPE(x + index[j]);                                                                \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    void _mlir_ciface_jaxc_top_k_##TYPE(long rows, long n, long k, intptr_t x, intptr_t values, intptr_t indices) \
    {                                                                                                             \
        if (rows <= 0 || k <= 0 || k > n)                                                                         \
            return;                                                                                               \
        const T *rows_x = (const T *)x;                                                                           \
        U *rows_values = (U *)values;                                                                             \
        int32_t *rows_indices = (int32_t *)indices;                                                               \
        /* k * k > SORT_RATIO n, without overflow. */                                                             \
        uint64_t *work = n >= SORT_MIN_N && k > SORT_RATIO * n / k ? malloc((size_t)n * 2 * sizeof(uint64_t))     \
                                                                   : NULL;                                        \
        for (long r = 0; r < rows; r++) {                                                                         \
            if (work)                                                                                             \
                sort_##TYPE(n, k, rows_x + r * n, rows_values + r * k, rows_indices + r * k, work);               \
            else                                                                                                  \
                select_##TYPE(n, k, rows_x + r * n, (K *)(rows_values + r * k), rows_indices + r * k);            \
        }                                                                                                         \
        free(work);                                                                                               \
    }

TOP_K_FUNCTIONS(f32, float, uint32_t, int32_t, INT32_MAX, INT32_MIN, 0x80000000u, 0x7fffffffu, 0x7f800000u, FLT_MIN,
                0x00800000u)
TOP_K_FUNCTIONS(f64, double, uint64_t, int64_t, INT64_MAX, INT64_MIN, 0x8000000000000000u, 0x7fffffffffffffffu,
                0x7ff0000000000000u, DBL_MIN, 0x0010000000000000u)
#undef TOP_K_FUNCTIONS
