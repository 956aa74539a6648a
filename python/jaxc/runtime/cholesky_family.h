/* One family of cholesky.c: the blocked factorization of one matrix for
   one element type T on one instruction set. cholesky.c includes this file
   once per family, inside a `#pragma GCC target` region, defining T, W
   (lanes of one vector register), NB (the diagonal blocks' size), UB (the
   width of the trailing update's block columns), SQRT (T's sqrt), SUFFIX
   (names) and GEMM (gemm.c's entry for T). */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define UV FN(uv)
#define INLINE static inline __attribute__((always_inline))

typedef T V __attribute__((vector_size(W * sizeof(T))));
typedef T UV __attribute__((vector_size(W * sizeof(T)), aligned(sizeof(T))));  /* unaligned loads */

/* x . y over `len` elements: 4 vector accumulators, then the rest. */
INLINE T FN(dot)(const T *x, const T *y, long len)
{
    V s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    long t = 0;
    for (; t + 4 * W <= len; t += 4 * W) {
        s0 += *(const UV *)(x + t) * *(const UV *)(y + t);
        s1 += *(const UV *)(x + t + W) * *(const UV *)(y + t + W);
        s2 += *(const UV *)(x + t + 2 * W) * *(const UV *)(y + t + 2 * W);
        s3 += *(const UV *)(x + t + 3 * W) * *(const UV *)(y + t + 3 * W);
    }
    for (; t + W <= len; t += W) s0 += *(const UV *)(x + t) * *(const UV *)(y + t);
    s0 = (s0 + s1) + (s2 + s3);
    T s = 0;
    for (int q = 0; q < W; q++) s += s0[q];
    for (; t < len; t++) s += x[t] * y[t];
    return s;
}

/* potf2 in place, row by row (Cholesky-Banachiewicz: each entry its row's
   and a row above's dot product, both contiguous): the k x k matrix at `a`
   (row stride lda), only its lower triangle read and written. 0, or -1 as
   soon as a diagonal is not positive (or NaN): the matrix is not positive
   definite. */
static int FN(potf2)(long k, T *a, long lda)
{
    for (long i = 0; i < k; i++) {
        T *ri = a + i * lda;
        for (long j = 0; j < i; j++) {
            const T *rj = a + j * lda;
            ri[j] = (ri[j] - FN(dot)(ri, rj, j)) / rj[j];
        }
        const T r = ri[i] - FN(dot)(ri, ri, i);
        if (!(r > 0))
            return -1;
        ri[i] = SQRT(r);
    }
    return 0;
}

/* L21 = A21 L11^-T for the rows2 x jb panel below a factored diagonal
   block (both in `a`, row stride n), vectorized along the rows: q (jb x ld,
   ld a multiple of 4 W) takes -A21^T, each 4 W columns of it (rows of the
   panel) are solved left-looking, column c of L21 as its row of q less the
   rows above times row c of L11, times 1 / L11[c][c] (`inv`), into
   -L21^T, which then goes back into `a` as L21 and stays in q for the
   update (gemm's B). */
static void FN(panel)(long rows2, long jb, T *a, long n, const T *l11, const T *restrict inv, T *restrict q,
                      long ld)
{
    for (long i = 0; i < rows2; i++) {
        const T *src = a + i * n;
        for (long c = 0; c < jb; c++) q[c * ld + i] = -src[c];
    }
    for (long c = 0; c < jb; c++)
        for (long i = rows2; i < ld; i++) q[c * ld + i] = 0;
    for (long i0 = 0; i0 < ld; i0 += 4 * W) {
        for (long c = 0; c < jb; c++) {
            const T *lc = l11 + c * n;
            V *qc = (V *)(q + c * ld + i0);
            V a0 = qc[0], a1 = qc[1], a2 = qc[2], a3 = qc[3];
            V b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
            long t = 0;
            for (; t + 2 <= c; t += 2) {
                const V *qt = (const V *)(q + t * ld + i0), *qu = (const V *)(q + (t + 1) * ld + i0);
                const T lt = lc[t], lu = lc[t + 1];
                a0 -= lt * qt[0];
                a1 -= lt * qt[1];
                a2 -= lt * qt[2];
                a3 -= lt * qt[3];
                b0 -= lu * qu[0];
                b1 -= lu * qu[1];
                b2 -= lu * qu[2];
                b3 -= lu * qu[3];
            }
            if (t < c) {
                const V *qt = (const V *)(q + t * ld + i0);
                const T lt = lc[t];
                a0 -= lt * qt[0];
                a1 -= lt * qt[1];
                a2 -= lt * qt[2];
                a3 -= lt * qt[3];
            }
            const T s = inv[c];
            qc[0] = (a0 + b0) * s;
            qc[1] = (a1 + b1) * s;
            qc[2] = (a2 + b2) * s;
            qc[3] = (a3 + b3) * s;
        }
    }
    for (long i = 0; i < rows2; i++) {
        T *dst = a + i * n;
        for (long c = 0; c < jb; c++) dst[c] = -q[c * ld + i];
    }
}

/* The n x n matrix `a` (its lower triangle; row-major) factored in place,
   the lower triangle only: 0, or -1 when a diagonal is not positive.
   `work` holds NB ld + NB (rounded up to 16) elements, ld = n rounded up to
   a multiple of 4 W, or is NULL (then potf2 on the whole matrix). For each diagonal
   block: potf2 on it, the panel below solved (-L21^T into work), then the
   trailing matrix's lower triangle, a block column of UB at a time from
   its diagonal down, += L21 (-L21^T) by gemm (the squares on the diagonal
   whole: what lands above it is garbage that the caller clears). */
static int FN(factor)(long n, T *a, T *work)
{
    if (!work)
        return FN(potf2)(n, a, n);
    for (long k0 = 0; k0 < n; k0 += NB) {
        const long jb = n - k0 < NB ? n - k0 : NB, k1 = k0 + jb, rows2 = n - k1;
        T *l11 = a + k0 * n + k0;
        if (FN(potf2)(jb, l11, n))
            return -1;
        if (rows2 == 0)
            break;
        const long ld = (rows2 + 4 * W - 1) / (4 * W) * (4 * W);
        T *inv = work, *q = work + (NB + 15) / 16 * 16;  /* 64-byte aligned */
        for (long c = 0; c < jb; c++) inv[c] = 1 / l11[c * n + c];
        FN(panel)(rows2, jb, a + k1 * n + k0, n, l11, inv, q, ld);
        for (long j0 = 0; j0 < rows2; j0 += UB) {
            const long w = rows2 - j0 < UB ? rows2 - j0 : UB;
            GEMM(rows2 - j0, w, jb, (intptr_t)a, (k1 + j0) * n + k0, n, 1, (intptr_t)q, j0, ld, 1, (intptr_t)a,
                 (k1 + j0) * n + k1 + j0, n, 1, 0);
        }
    }
    return 0;
}

#undef INLINE
#undef UV
#undef V
#undef FN
#undef CAT
#undef CAT_
