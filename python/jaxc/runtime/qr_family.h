/* One family of qr.c: the QR factorization of one matrix for one element
   type T on one instruction set. qr.c includes this file once per family,
   inside a `#pragma GCC target` region, defining T (float or double), F64
   (whether T is double), W (lanes of one vector register), NB (the panel
   width) and SUFFIX (names). */
#if F64
#define SQRT __builtin_sqrt
#define ABS __builtin_fabs
#define HYPOT hypot
#define COPYSIGN __builtin_copysign
#define TMIN DBL_MIN
#define TMAX DBL_MAX
#define TEPS DBL_EPSILON
#define GEMM _mlir_ciface_jaxc_gemm_f64_avx512
#else
#define SQRT __builtin_sqrtf
#define ABS __builtin_fabsf
#define HYPOT hypotf
#define COPYSIGN __builtin_copysignf
#define TMIN FLT_MIN
#define TMAX FLT_MAX
#define TEPS FLT_EPSILON
#define GEMM _mlir_ciface_jaxc_gemm_f32_avx512
#endif
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define INLINE static inline __attribute__((always_inline))

/* The packed panel's row stride (a multiple of every W), and the vectors of
   a row that one pass over the panel updates (accumulators in registers). */
#define LD ((NB + 15) / 16 * 16)
#define CH (LD / W < 4 ? LD / W : 4)
/* LAPACK's safmin of dlarfg, dlamch('S') / dlamch('E'): below it a
   reflector's column is rescaled (2^-102 in f32, 2^-969 in f64); and the
   smallest sum of squares taken as it is (smaller ones may have lost
   squares to underflow: recomputed scaled). */
#define SAFMIN ((T)2 * TMIN / TEPS)
#define SS_LOW (TMIN / TEPS)
/* One block's -T in the buffer (64-byte aligned whatever NB). */
#define NT ((NB * NB + 15) / 16 * 16)

typedef T V __attribute__((vector_size(W * sizeof(T))));

/* The 2-norm of len elements `stride` apart without overflow or underflow:
   their sum of squares when that is safely inside T's range, else LAPACK's
   scaled sum (scale^2 ssq, one pass). */
static T FN(nrm2)(const T *x, long len, long stride)
{
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long i = 0;
    for (; i + 4 <= len; i += 4) {
        const T a = x[i * stride], b = x[(i + 1) * stride], c = x[(i + 2) * stride], d = x[(i + 3) * stride];
        s0 += a * a;
        s1 += b * b;
        s2 += c * c;
        s3 += d * d;
    }
    for (; i < len; i++) s0 += x[i * stride] * x[i * stride];
    const T ss = (s0 + s1) + (s2 + s3);
    if (ss >= SS_LOW && ss <= TMAX)
        return SQRT(ss);
    T scale = 0, ssq = 1;
    for (i = 0; i < len; i++) {
        const T v = ABS(x[i * stride]);
        if (v != 0) {  /* NaN too: the result is NaN */
            if (scale < v) {
                ssq = 1 + ssq * (scale / v) * (scale / v);
                scale = v;
            } else {
                ssq += (v / scale) * (v / scale);
            }
        }
    }
    return scale * SQRT(ssq);
}

/* dlarfg: the reflector H = I - tau v v^T with H [alpha; x] = [beta; 0],
   v = [1; x *scale] (scale = 1 / (alpha - beta); x, len elements `stride`
   apart, is left for the caller to scale), given xnorm = |x|. No
   reflection (tau 0, scale 1, beta = alpha) when x is zero; else
   beta = -sign(alpha) |[alpha; x]|, and when |beta| is below safmin, x
   and alpha are first rescaled (in place) by 1 / safmin, at most 20 times,
   and beta recomputed from them. Returns beta. */
static T FN(larfg)(T alpha, T xnorm, T *x, long len, long stride, T *tau, T *scale)
{
    *tau = 0;
    *scale = 1;
    if (len <= 0 || xnorm == 0)
        return alpha;
    T beta = -COPYSIGN(HYPOT(alpha, xnorm), alpha);
    int knt = 0;
    if (ABS(beta) < SAFMIN) {
        const T rsafmin = 1 / SAFMIN;
        do {
            knt++;
            for (long i = 0; i < len; i++) x[i * stride] *= rsafmin;
            beta *= rsafmin;
            alpha *= rsafmin;
        } while (ABS(beta) < SAFMIN && knt < 20);
        beta = -COPYSIGN(HYPOT(alpha, FN(nrm2)(x, len, stride)), alpha);
    }
    *tau = (beta - alpha) / beta;
    *scale = 1 / (alpha - beta);
    for (; knt > 0; knt--) beta *= SAFMIN;
    return beta;
}

/* H = I - tau v v^T on the vectors c0..c0+nvec-1 of rows j..rows-1 of the
   packed panel p, v = [1; column j below row j, times s]: w = tau v^T P,
   two rows at a time, its lanes of columns up to j cleared (they hold v
   and R), then P -= v w. Returns the sum of squares of column j + 1 below
   row j + 1 after the update when `next` (then column j + 1 is in vector
   c0), else 0. */
INLINE T FN(reflect_vectors)(long rows, T *p, long j, T tau, T s, long c0, const int nvec, int next)
{
    V w[CH], u[CH];
    V *xj = (V *)(p + j * LD) + c0;
#pragma GCC unroll 4
    for (int q = 0; q < nvec; q++) {
        w[q] = xj[q];
        u[q] = (V){0};
    }
    long r = j + 1;
    for (; r + 1 < rows; r += 2) {
        const T v0 = p[r * LD + j] * s, v1 = p[(r + 1) * LD + j] * s;
        const V *x0 = (const V *)(p + r * LD) + c0, *x1 = (const V *)(p + (r + 1) * LD) + c0;
#pragma GCC unroll 4
        for (int q = 0; q < nvec; q++) {
            w[q] += v0 * x0[q];
            u[q] += v1 * x1[q];
        }
    }
    if (r < rows) {
        const T v0 = p[r * LD + j] * s;
        const V *x0 = (const V *)(p + r * LD) + c0;
#pragma GCC unroll 4
        for (int q = 0; q < nvec; q++) w[q] += v0 * x0[q];
    }
#pragma GCC unroll 4
    for (int q = 0; q < nvec; q++) w[q] = (w[q] + u[q]) * tau;
    for (int l = 0; l < W && c0 * W + l <= j; l++) w[0][l] = 0;
#pragma GCC unroll 4
    for (int q = 0; q < nvec; q++) xj[q] -= w[q];
    for (r = j + 1; r < rows && (!next || r < j + 2); r++) {
        const T v = p[r * LD + j] * s;
        V *x = (V *)(p + r * LD) + c0;
#pragma GCC unroll 4
        for (int q = 0; q < nvec; q++) x[q] -= v * w[q];
    }
    if (!next)
        return 0;
    V ss = {0};
    for (; r < rows; r++) {
        const T v = p[r * LD + j] * s;
        V *x = (V *)(p + r * LD) + c0;
#pragma GCC unroll 4
        for (int q = 0; q < nvec; q++) x[q] -= v * w[q];
        ss += x[0] * x[0];
    }
    return ss[(j + 1) % W];
}

/* H_j applied to the panel's columns j+1..jb-1 (vectors of CH at a time);
   the sum of squares of column j+1 below row j+1 after it. */
static T FN(reflect)(long rows, long jb, T *p, long j, T tau, T s)
{
    const long first = (j + 1) / W, end = (jb + W - 1) / W;
    T ss = 0;
    for (long c0 = first; c0 < end; c0 += CH) {
        const long nvec = end - c0 < CH ? end - c0 : CH;
        const int next = c0 == first;
        if (nvec == CH)
            ss += FN(reflect_vectors)(rows, p, j, tau, s, c0, CH, next);
        else if (nvec == 1)
            ss += FN(reflect_vectors)(rows, p, j, tau, s, c0, 1, next);
        else if (CH > 2 && nvec == 2)
            ss += FN(reflect_vectors)(rows, p, j, tau, s, c0, 2, next);
        else if (CH > 3 && nvec == 3)
            ss += FN(reflect_vectors)(rows, p, j, tau, s, c0, 3, next);
    }
    return ss;
}

/* geqr2 on the packed panel p: rows x jb (row stride LD, zero beyond jb),
   one column after the other: its reflector (larfg; |x| from the sum of
   squares the previous update left, when that is safely in range), then
   H_j on the columns to its right. The columns' scaling into v is left
   to the end: one pass over the rows, vector by vector. R on and above
   the diagonal, v below it, tau into `tau`. */
static void FN(panel)(long rows, long jb, T *p, T *tau)
{
    T scale[LD] __attribute__((aligned(64)));
    T ss = -1;  /* unknown */
    for (long j = 0; j < LD; j++) scale[j] = 1;
    for (long j = 0; j < jb; j++) {
        T *pj = p + j * LD;
        const long below = rows - j - 1;
        T xnorm = 0;
        if (below > 0)
            xnorm = ss >= SS_LOW && ss <= TMAX ? SQRT(ss) : FN(nrm2)(pj + LD + j, below, LD);
        pj[j] = FN(larfg)(pj[j], xnorm, pj + LD + j, below, LD, &tau[j], &scale[j]);
        ss = -1;
        if (tau[j] != 0 && j + 1 < jb)
            ss = FN(reflect)(rows, jb, p, j, tau[j], scale[j]);
    }
    for (long r = 1; r < rows && r < jb; r++)
        for (long c = 0; c < r; c++) p[r * LD + c] *= scale[c];
    const long nv = (jb + W - 1) / W;
    for (long r = jb; r < rows; r++) {
        V *x = (V *)(p + r * LD);
        for (long q = 0; q < nv; q++) x[q] *= ((const V *)scale)[q];
    }
}

/* -T of the block reflector H_0 .. H_{jb-1} = I - V T V^T (dlarft, forward,
   columnwise) into negt (NB x NB, zeros below the diagonal), V the panel p
   (rows x jb, unit lower trapezoidal: ones on the diagonal, zeros above):
   G = V^T V by gemm into g (jb x jb, row stride NB), then column i of T
   above the diagonal, -tau_i T G[:i, i]. */
static void FN(larft)(long rows, long jb, const T *p, const T *tau, T *restrict g, T *restrict negt)
{
    GEMM(jb, jb, rows, (intptr_t)p, 0, 1, LD, (intptr_t)p, 0, LD, 1, (intptr_t)g, 0, NB, 1, 1);
    for (long i = 0; i < NB * NB; i++) negt[i] = 0;
    for (long i = 0; i < jb; i++) {
        const T *gi = g + i * NB;  /* G[p][i] = G[i][p] */
        for (long l = 0; l < i; l++) {
            const T *tl = negt + l * NB;
            T s = 0;
            for (long q = l; q < i; q++) s += tl[q] * gi[q];
            negt[l * NB + i] = -tau[i] * s;
        }
        negt[i * NB + i] = -tau[i];
    }
}

/* C += V (M (V^T C)) for the rows x nc matrix C (row stride ldc) and a
   block reflector's V (the panel p) and jb x jb M (row and column strides
   rsm, csm: -T^T applies H^T, -T applies H); w1 and w2 hold jb x nc
   (row stride ldw). Three of gemm's products. */
static void FN(apply)(long rows, long nc, long jb, const T *p, const T *m, long rsm, long csm, T *c, long ldc,
                      T *w1, T *w2, long ldw)
{
    GEMM(jb, nc, rows, (intptr_t)p, 0, 1, LD, (intptr_t)c, 0, ldc, 1, (intptr_t)w1, 0, ldw, 1, 1);
    GEMM(jb, nc, jb, (intptr_t)m, 0, rsm, csm, (intptr_t)w1, 0, ldw, 1, (intptr_t)w2, 0, ldw, 1, 1);
    GEMM(rows, nc, jb, (intptr_t)p, 0, LD, 1, (intptr_t)w2, 0, ldw, 1, (intptr_t)c, 0, ldc, 1, 0);
}

/* geqrf on the m x n matrix `a` (row stride n), k = min(m, n) reflectors:
   for each panel of NB columns, pack it (with the rows below it), geqr2 on
   it, unpack it (R and v), make the packed copy V (unit diagonal, zeros
   above), -T into negt (one NB x NB block a panel, kept for orgqr), and
   the columns to its right C -= V T^T V^T C. */
static void FN(geqrf)(long m, long n, T *a, T *tau, T *negt, T *p, T *w1, T *w2, long ldw)
{
    const long k = m < n ? m : n;
    for (long k0 = 0; k0 < k; k0 += NB) {
        const long jb = k - k0 < NB ? k - k0 : NB, rows = m - k0, k1 = k0 + jb;
        T *corner = a + k0 * n + k0;
        for (long r = 0; r < rows; r++) {
            const T *src = corner + r * n;
            T *dst = p + r * LD;
            for (long c = 0; c < jb; c++) dst[c] = src[c];
            for (long c = jb; c < LD; c++) dst[c] = 0;
        }
        FN(panel)(rows, jb, p, tau + k0);
        for (long r = 0; r < rows; r++) {
            const T *src = p + r * LD;
            T *dst = corner + r * n;
            for (long c = 0; c < jb; c++) dst[c] = src[c];
        }
        for (long r = 0; r < jb; r++) {
            p[r * LD + r] = 1;
            memset(p + r * LD + r + 1, 0, sizeof(T) * (size_t)(jb - r - 1));
        }
        T *t = negt + k0 / NB * NT;
        FN(larft)(rows, jb, p, tau + k0, w1, t);
        if (k1 < n)
            FN(apply)(rows, n - k1, jb, p, t, 1, NB, corner + jb, n, w1, w2, ldw);
    }
}

/* orgqr: the first kq columns of Q = H_0 .. H_{k-1} into q (m x kq, row
   stride ldq), the reflectors' v below the diagonal of `a` (row stride
   lda; q itself when a == q: each block's v is packed before its columns
   are overwritten) and their -T in negt. Columns k.. start as the
   identity's; then the blocks from the last: the block's own columns set
   to the identity's, and H_b applied to columns k0.. of rows k0.. (rows
   above them are zero in those columns). */
static void FN(orgqr)(long m, long kq, long k, const T *a, long lda, T *q, long ldq, const T *negt, T *p, T *w1,
                      T *w2, long ldw)
{
    for (long i = 0; i < m; i++)
        for (long c = k; c < kq; c++) q[i * ldq + c] = i == c;
    for (long k0 = (k - 1) / NB * NB; k0 >= 0; k0 -= NB) {
        const long jb = k - k0 < NB ? k - k0 : NB, rows = m - k0;
        for (long r = 0; r < rows; r++) {
            const T *src = a + (k0 + r) * lda + k0;
            T *dst = p + r * LD;
            for (long c = 0; c < jb; c++) dst[c] = r > c ? src[c] : r == c;
            memset(dst + jb, 0, sizeof(T) * (size_t)(LD - jb));
        }
        for (long i = 0; i < m; i++)
            for (long c = 0; c < jb; c++) q[i * ldq + k0 + c] = i == k0 + c;
        FN(apply)(rows, kq - k0, jb, p, negt + k0 / NB * NT, NB, 1, q + k0 * ldq + k0, ldq, w1, w2, ldw);
    }
}

/* Out of memory: geqr2 in place on `a` (row stride n), one column of the
   trailing matrix at a time (no buffer), beta_j into beta[j sb] and tau_j
   into tau[j st] (the caller's spare room: the diagonals of r and q). */
static void FN(geqr2)(long m, long n, T *a, T *beta, long sb, T *tau, long st)
{
    const long k = m < n ? m : n;
    for (long j = 0; j < k; j++) {
        T *x = a + (j + 1) * n + j, t;
        const long below = m - j - 1;
        T scale;
        const T b = FN(larfg)(a[j * n + j], FN(nrm2)(x, below, n), x, below, n, &t, &scale);
        for (long i = 0; i < below; i++) x[i * n] *= scale;
        beta[j * sb] = b;
        tau[j * st] = t;
        if (t == 0)
            continue;
        for (long c = j + 1; c < n; c++) {
            T s = a[j * n + c];
            for (long i = 0; i < below; i++) s += x[i * n] * a[(j + 1 + i) * n + c];
            s *= t;
            a[j * n + c] -= s;
            for (long i = 0; i < below; i++) a[(j + 1 + i) * n + c] -= s * x[i * n];
        }
    }
}

/* Out of memory: org2r in place: q (m x kq, row stride ldq) from the v
   below the diagonal of `a` (row stride lda; a may be q) and tau_j at
   q[j][j]; the reflectors from the last, each applied to the columns
   right of its own one at a time, then its own column H_j e_j. */
static void FN(org2r)(long m, long kq, long k, const T *a, long lda, T *q, long ldq)
{
    for (long i = 0; i < m; i++)
        for (long c = k; c < kq; c++) q[i * ldq + c] = i == c;
    for (long j = k - 1; j >= 0; j--) {
        const T t = q[j * ldq + j];
        const T *v = a + (j + 1) * lda + j;
        const long below = m - j - 1;
        if (t != 0)
            for (long c = j + 1; c < kq; c++) {
                T s = q[j * ldq + c];
                for (long i = 0; i < below; i++) s += v[i * lda] * q[(j + 1 + i) * ldq + c];
                s *= t;
                q[j * ldq + c] -= s;
                for (long i = 0; i < below; i++) q[(j + 1 + i) * ldq + c] -= s * v[i * lda];
            }
        for (long i = 0; i < j; i++) q[i * ldq + j] = 0;
        for (long i = 0; i < below; i++) q[(j + 1 + i) * ldq + j] = -t * v[i * lda];
        q[j * ldq + j] = 1 - t;
    }
}

/* One matrix: x (m x n) into q (m x kq) and r (kq x n). The factorization
   runs in whichever of q and r is m x n: q when it is reduced and m >= n
   (R's triangle then copied out before Q overwrites it), else r (then Q
   from the v below its diagonal, which is cleared after). `work` is the
   blocked algorithm's buffer (qr.c, work_buffer), or NULL: geqr2 and org2r
   in place, tau in q's diagonal and, in q, beta in r's. */
static void FN(qr)(long m, long n, long full, const T *x, T *q, T *r, T *work)
{
    const long k = m < n ? m : n, kq = full ? m : k, in_q = !full && m >= n;
    T *a = in_q ? q : r;
    memcpy(a, x, sizeof(T) * (size_t)(m * n));
    if (work) {
        const long blocks = (k + NB - 1) / NB, ldw = ((m > n ? m : n) + 15) / 16 * 16;
        T *tau = work, *negt = tau + (k + 15) / 16 * 16, *p = negt + blocks * NT, *w1 = p + m * LD,
          *w2 = w1 + NB * ldw;
        FN(geqrf)(m, n, a, tau, negt, p, w1, w2, ldw);
        if (in_q) {
            for (long i = 0; i < n; i++) {
                memset(r + i * n, 0, sizeof(T) * (size_t)i);
                memcpy(r + i * n + i, a + i * n + i, sizeof(T) * (size_t)(n - i));
            }
        }
        FN(orgqr)(m, kq, k, a, n, q, kq, negt, p, w1, w2, ldw);
    } else {
        FN(geqr2)(m, n, a, r, n + 1, q, kq + 1);
        if (in_q)
            for (long i = 0; i < n; i++) {
                memset(r + i * n, 0, sizeof(T) * (size_t)i);
                memcpy(r + i * n + i + 1, a + i * n + i + 1, sizeof(T) * (size_t)(n - i - 1));
            }
        FN(org2r)(m, kq, k, a, n, q, kq);
    }
    if (!in_q)
        for (long i = 0; i < kq; i++) memset(r + i * n, 0, sizeof(T) * (size_t)(i < n ? i : n));
}

#undef NT
#undef SS_LOW
#undef SAFMIN
#undef CH
#undef LD
#undef INLINE
#undef V
#undef FN
#undef CAT
#undef CAT_
#undef GEMM
#undef TEPS
#undef TMAX
#undef TMIN
#undef COPYSIGN
#undef HYPOT
#undef ABS
#undef SQRT
