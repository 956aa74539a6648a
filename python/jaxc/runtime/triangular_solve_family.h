/* One family of triangular_solve.c: the blocked solve of one system for one
   element type T on one instruction set. triangular_solve.c includes this
   file once per family, inside a `#pragma GCC target` region, defining T,
   W (lanes of one vector register: 2, 4, 8 or 16), NB (the diagonal
   blocks' size; NB_FEW for at most FEW vectors of right-hand sides), RB
   (rows the substitution takes at a time: 4 or 8), SUFFIX (names) and
   GEMM (gemm.c's entry for T).

   The problem in the terms used here: k unknown vectors y_0..y_k-1 of L
   elements and the triangular k x k matrix M (M(i, j) at a[i rm + j cm]),
   sum_j M(i, j) y_j = c_i. Left side: y_i is row i of X (L = n), M =
   op(A). Right side: y_j is column j of X (L = m), M = op(A)^T. `fwd`:
   M's lower triangle is the one to read (solved first to last), else the
   upper (last to first). Positions 0..k-1 are the order of solution:
   position p is vector p when fwd, else k-1-p; a range of positions is a
   range of vectors either way. */
#if RB != 4 && RB != 8
#error "RB: 4 or 8 rows at a time"
#endif
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define UV FN(uv)
#define PROBLEM FN(problem)
#define INLINE static inline __attribute__((always_inline))

typedef T V __attribute__((vector_size(W * sizeof(T))));
typedef T UV __attribute__((vector_size(W * sizeof(T)), aligned(sizeof(T))));

/* Lanes l of a shuffle of two vectors, with h a power of two below W: the
   first (IA) and the second (IB) of the pair of rows i, i + h after the
   transposition's stage h (2 x 2 blocks of h x h swapped). */
#define IA(l, h) (((l) & (h)) ? W + (l) - (h) : (l))
#define IB(l, h) (((l) & (h)) ? W + (l) : (l) + (h))
#if W == 16
#define LANES(F, h) F(0, h), F(1, h), F(2, h), F(3, h), F(4, h), F(5, h), F(6, h), F(7, h), F(8, h), F(9, h), \
                    F(10, h), F(11, h), F(12, h), F(13, h), F(14, h), F(15, h)
#elif W == 8
#define LANES(F, h) F(0, h), F(1, h), F(2, h), F(3, h), F(4, h), F(5, h), F(6, h), F(7, h)
#elif W == 4
#define LANES(F, h) F(0, h), F(1, h), F(2, h), F(3, h)
#else
#define LANES(F, h) F(0, h), F(1, h)
#endif
#define STAGE(h)                                                        \
    for (int i = 0; i < W; i++)                                         \
        if (!(i & (h))) {                                               \
            const V x0 = r[i], x1 = r[i + (h)];                         \
            r[i] = __builtin_shufflevector(x0, x1, LANES(IA, h));       \
            r[i + (h)] = __builtin_shufflevector(x0, x1, LANES(IB, h)); \
        }

/* The W x W matrix of rows r[0..W-1] transposed in registers. */
INLINE void FN(transpose)(V *r)
{
#if W >= 16
    STAGE(8)
#endif
#if W >= 8
    STAGE(4)
#endif
#if W >= 4
    STAGE(2)
#endif
    STAGE(1)
}
#undef STAGE
#undef LANES
#undef IB
#undef IA

struct PROBLEM {
    long k, m, n;
    const T *a;  /* M(i, j) = a[i rm + j cm] */
    long rm, cm;
    int fwd, unit, left;
    long nb;  /* the diagonal blocks' size, at most NB */
    const T *b;
    T *x;
    /* the work buffer: a diagonal block of M packed in the order of
       solution (d: its strict lower triangle, NB x NB), its diagonal, the
       reciprocals and whether to divide instead, and the buffer of a strip
       (NB rows of 2 W) */
    T *d, *diag, *inv, *divide, *buf;
};

/* The vector at position p. */
INLINE long FN(at)(const struct PROBLEM *pr, long p) { return pr->fwd ? p : pr->k - 1 - p; }

/* The diagonal block of positions p0..p0+nb-1 into d (only the triangle
   that is solved, and the diagonal unless unit): d[r NB + s] is the
   coefficient of the vector at position p0 + s in the equation of p0 + r.
   Each row is multiplied by the diagonal's reciprocal where that is a
   normal number, else divided by the diagonal (0, subnormal, inf, NaN:
   what IEEE division gives). */
static void FN(pack)(const struct PROBLEM *pr, long p0, long nb)
{
    const T *a = pr->a;
    const long rm = pr->rm, cm = pr->cm;
    if (rm == 1 && nb > 1) /* M's columns contiguous: column by column */
        for (long s = 0; s < nb; s++) {
            const T *column = a + FN(at)(pr, p0 + s) * cm;
            T *out = pr->d + s;
            for (long r = s + 1; r < nb; r++) out[r * NB] = column[FN(at)(pr, p0 + r)];
        }
    else
        for (long r = 0; r < nb; r++) {
            const T *row = a + FN(at)(pr, p0 + r) * rm;
            T *out = pr->d + r * NB;
            for (long s = 0; s < r; s++) out[s] = row[FN(at)(pr, p0 + s) * cm];
        }
    for (long r = 0; r < nb; r++) {
        const long i = FN(at)(pr, p0 + r);
        const T dg = pr->unit ? 1 : a[i * (rm + cm)], inv = 1 / dg;
        pr->diag[r] = dg;
        pr->inv[r] = inv;
        pr->divide[r] = !__builtin_isnormal(inv);
    }
}

/* Rows r0..r0+RB-1 of a strip U vectors wide (row r at p + r ldp, its
   right-hand side at src + r lds, less p's values when has_t), in
   registers a_q (and b_q, the second vector): each less the solved rows
   before r0 (their coefficients in d), then less the rows before it among
   these, then scaled by its diagonal and stored. (Named registers, not an
   array: GCC keeps an array of them on the stack.) */
#define ROW_INIT(q)                                                                           \
    T *const p##q = p + (r0 + q) * ldp;                                                       \
    const T *const d##q = pr->d + (r0 + q) * NB;                                              \
    V a##q = *(const UV *)(src + (r0 + q) * lds);                                             \
    V b##q = U == 2 ? *(const UV *)(src + (r0 + q) * lds + W) : (V){0};                       \
    if (has_t) {                                                                              \
        a##q -= *(const UV *)p##q;                                                            \
        if (U == 2)                                                                           \
            b##q -= *(const UV *)(p##q + W);                                                  \
    }
#define ROW_UPDATE(q)                 \
    {                                 \
        const T c = d##q[s];          \
        a##q -= c * v0;               \
        if (U == 2)                   \
            b##q -= c * v1;           \
    }
#define ROW_LESS(q, t)                \
    {                                 \
        const T c = d##q[r0 + t];     \
        a##q -= c * a##t;             \
        if (U == 2)                   \
            b##q -= c * b##t;         \
    }
#define ROW_FINISH(q)                               \
    {                                               \
        const long r = r0 + q;                      \
        if (pr->divide[r]) {                        \
            a##q /= pr->diag[r];                    \
            b##q /= pr->diag[r];                    \
        } else {                                    \
            a##q *= pr->inv[r];                     \
            b##q *= pr->inv[r];                     \
        }                                           \
        *(UV *)p##q = a##q;                         \
        if (U == 2)                                 \
            *(UV *)(p##q + W) = b##q;               \
    }

INLINE void FN(rows)(const int U, const int has_t, long r0, const struct PROBLEM *pr, T *p, long ldp, const T *src,
                     long lds)
{
    ROW_INIT(0)
    ROW_INIT(1)
    ROW_INIT(2)
    ROW_INIT(3)
#if RB == 8
    ROW_INIT(4)
    ROW_INIT(5)
    ROW_INIT(6)
    ROW_INIT(7)
#endif
    for (long s = 0; s < r0; s++) {
        const T *ps = p + s * ldp;
        const V v0 = *(const UV *)ps, v1 = U == 2 ? *(const UV *)(ps + W) : (V){0};
        ROW_UPDATE(0)
        ROW_UPDATE(1)
        ROW_UPDATE(2)
        ROW_UPDATE(3)
#if RB == 8
        ROW_UPDATE(4)
        ROW_UPDATE(5)
        ROW_UPDATE(6)
        ROW_UPDATE(7)
#endif
    }
    ROW_FINISH(0)
    ROW_LESS(1, 0)
    ROW_FINISH(1)
    ROW_LESS(2, 0)
    ROW_LESS(2, 1)
    ROW_FINISH(2)
    ROW_LESS(3, 0)
    ROW_LESS(3, 1)
    ROW_LESS(3, 2)
    ROW_FINISH(3)
#if RB == 8
    ROW_LESS(4, 0)
    ROW_LESS(4, 1)
    ROW_LESS(4, 2)
    ROW_LESS(4, 3)
    ROW_FINISH(4)
    ROW_LESS(5, 0)
    ROW_LESS(5, 1)
    ROW_LESS(5, 2)
    ROW_LESS(5, 3)
    ROW_LESS(5, 4)
    ROW_FINISH(5)
    ROW_LESS(6, 0)
    ROW_LESS(6, 1)
    ROW_LESS(6, 2)
    ROW_LESS(6, 3)
    ROW_LESS(6, 4)
    ROW_LESS(6, 5)
    ROW_FINISH(6)
    ROW_LESS(7, 0)
    ROW_LESS(7, 1)
    ROW_LESS(7, 2)
    ROW_LESS(7, 3)
    ROW_LESS(7, 4)
    ROW_LESS(7, 5)
    ROW_LESS(7, 6)
    ROW_FINISH(7)
#endif
}

/* One row r0 of a strip, as `rows`. */
INLINE void FN(row)(const int U, const int has_t, long r0, const struct PROBLEM *pr, T *p, long ldp, const T *src,
                    long lds)
{
    ROW_INIT(0)
    for (long s = 0; s < r0; s++) {
        const T *ps = p + s * ldp;
        const V v0 = *(const UV *)ps, v1 = U == 2 ? *(const UV *)(ps + W) : (V){0};
        ROW_UPDATE(0)
    }
    ROW_FINISH(0)
}
#undef ROW_FINISH
#undef ROW_LESS
#undef ROW_UPDATE
#undef ROW_INIT

/* Substitution on a strip of nb rows, U vectors wide, RB rows at a time. */
INLINE void FN(strip_of)(const int U, const int has_t, long nb, const struct PROBLEM *pr, T *p, long ldp,
                         const T *src, long lds)
{
    long r0 = 0;
    for (; r0 + RB <= nb; r0 += RB) FN(rows)(U, has_t, r0, pr, p, ldp, src, lds);
    for (; r0 < nb; r0++) FN(row)(U, has_t, r0, pr, p, ldp, src, lds);
}

static void FN(strip2)(long nb, const struct PROBLEM *pr, T *p, long ldp, const T *src, long lds, int has_t)
{
    if (has_t)
        FN(strip_of)(2, 1, nb, pr, p, ldp, src, lds);
    else
        FN(strip_of)(2, 0, nb, pr, p, ldp, src, lds);
}

static void FN(strip1)(long nb, const struct PROBLEM *pr, T *p, long ldp, const T *src, long lds, int has_t)
{
    if (has_t)
        FN(strip_of)(1, 1, nb, pr, p, ldp, src, lds);
    else
        FN(strip_of)(1, 0, nb, pr, p, ldp, src, lds);
}

/* Columns gc0..gc0+nb-1 of rows i..i+rows-1 (rows <= 2 W) of b, less x's
   when has_t, transposed into buf (row c: column gc0 + c, 2 W lanes, zero
   beyond `rows`): W x W tiles in registers (rows beyond `rows` zero), the
   last nb % W columns element by element. */
INLINE void FN(gather_of)(const int has_t, const struct PROBLEM *pr, long i, long rows, long gc0, long nb, T *buf)
{
    const long n = pr->n, ld = 2 * W;
    const T *b = pr->b + i * n + gc0, *x = pr->x + i * n + gc0;
    long c = 0;
    for (; c + W <= nb; c += W)
        for (int u = 0; u < 2; u++) {
            const long q0 = u * W, valid = rows - q0;
            V r[W];
#pragma GCC unroll 16
            for (int q = 0; q < W; q++) {
                r[q] = (V){0};
                if (q < valid) {
                    r[q] = *(const UV *)(b + (q0 + q) * n + c);
                    if (has_t)
                        r[q] -= *(const UV *)(x + (q0 + q) * n + c);
                }
            }
            FN(transpose)(r);
#pragma GCC unroll 16
            for (int q = 0; q < W; q++) *(V *)(buf + (c + q) * ld + q0) = r[q];
        }
    for (; c < nb; c++)
        for (long q = 0; q < ld; q++)
            buf[c * ld + q] = q < rows ? (has_t ? b[q * n + c] - x[q * n + c] : b[q * n + c]) : 0;
}

static void FN(gather)(const struct PROBLEM *pr, long i, long rows, long gc0, long nb, T *buf, int has_t)
{
    if (has_t)
        FN(gather_of)(1, pr, i, rows, gc0, nb, buf);
    else
        FN(gather_of)(0, pr, i, rows, gc0, nb, buf);
}

/* The inverse of gather: buf's first `rows` lanes of row c into column
   gc0 + c of x's rows i..i+rows-1. */
static void FN(scatter)(const struct PROBLEM *pr, long i, long rows, long gc0, long nb, const T *buf)
{
    const long n = pr->n, ld = 2 * W;
    T *x = pr->x + i * n + gc0;
    long c = 0;
    for (; c + W <= nb; c += W)
        for (int u = 0; u < 2 && u * W < rows; u++) {
            const long q0 = u * W, valid = rows - q0;
            V r[W];
#pragma GCC unroll 16
            for (int q = 0; q < W; q++) r[q] = *(const V *)(buf + (c + q) * ld + q0);
            FN(transpose)(r);
#pragma GCC unroll 16
            for (int q = 0; q < W; q++)
                if (q < valid)
                    *(UV *)(x + (q0 + q) * n + c) = r[q];
        }
    for (long q = 0; q < rows; q++)
        for (long cc = c; cc < nb; cc++) x[q * n + cc] = buf[cc * ld + q];
}

/* The diagonal block of positions p0..p1-1 (at most NB), by substitution:
   its right-hand sides are b's, less the products already accumulated in
   x when has_t. Left side: in place in x's rows, vectorized along them,
   2 W columns at a time (the last < W through buf). Right side: 2 W rows
   of X at a time transposed into buf, solved there, transposed back. */
static void FN(leaf)(const struct PROBLEM *pr, long p0, long p1, int has_t)
{
    const long nb = p1 - p0, n = pr->n;
    FN(pack)(pr, p0, nb);
    T *buf = pr->buf;
    if (pr->left) {
        const long ld = pr->fwd ? n : -n, first = FN(at)(pr, p0);
        T *p = pr->x + first * n;
        const T *src = pr->b + first * n;
        long j = 0;
        for (; j + 2 * W <= n; j += 2 * W) FN(strip2)(nb, pr, p + j, ld, src + j, ld, has_t);
        for (; j + W <= n; j += W) FN(strip1)(nb, pr, p + j, ld, src + j, ld, has_t);
        if (j < n) {
            const long rest = n - j;
            for (long r = 0; r < nb; r++)
                for (long q = 0; q < W; q++)
                    buf[r * W + q] = q >= rest           ? 0
                                     : has_t ? src[r * ld + j + q] - p[r * ld + j + q]
                                               : src[r * ld + j + q];
            FN(strip1)(nb, pr, buf, W, buf, W, 0);
            for (long r = 0; r < nb; r++)
                for (long q = 0; q < rest; q++) p[r * ld + j + q] = buf[r * W + q];
        }
        return;
    }
    const long gc0 = pr->fwd ? p0 : pr->k - p1, ld = 2 * W;
    T *p = pr->fwd ? buf : buf + (nb - 1) * ld;
    for (long i = 0; i < pr->m; i += 2 * W) {
        const long rows = pr->m - i < 2 * W ? pr->m - i : 2 * W;
        FN(gather)(pr, i, rows, gc0, nb, buf, has_t);
        if (rows > W)
            FN(strip2)(nb, pr, p, pr->fwd ? ld : -ld, p, pr->fwd ? ld : -ld, 0);
        else
            FN(strip1)(nb, pr, p, pr->fwd ? ld : -ld, p, pr->fwd ? ld : -ld, 0);
        FN(scatter)(pr, i, rows, gc0, nb, buf);
    }
}

/* gemm.c's C (+)= A B (strides in elements), C's columns in parts when C
   has few rows (< 16) and B is more than gemm.c computes without packing
   (SMALL_B_BYTES, 1 MB): packed, those rows would fill a fraction of its
   register tiles (14 rows on AVX-512), and B be copied for a few uses. */
static void FN(product)(long m, long n, long k, intptr_t a, long ao, long rsa, long csa, intptr_t b, long bo,
                        long rsb, long csb, intptr_t c, long co, long rsc, long csc, int overwrite)
{
    const long limit = (1L << 20) / (long)sizeof(T) / (k > 1 ? k : 1) / W * W, part = limit > W ? limit : W;
    if (m >= 16 || n <= part) {
        GEMM(m, n, k, a, ao, rsa, csa, b, bo, rsb, csb, c, co, rsc, csc, overwrite);
        return;
    }
    for (long j = 0; j < n; j += part)
        GEMM(m, n - j < part ? n - j : part, k, a, ao, rsa, csa, b, bo + j * csb, rsb, csb, c, co + j * csc, rsc,
             csc, overwrite);
}

/* The vectors at positions h..p1-1 (in x) plus (or, when overwrite, set
   to) M's block of them and positions p0..h-1 times those (solved, in x):
   a product on strided views, no copies. Either M's block is gemm.c's A
   (the left side's product, the right side's transposed) or M^T's block
   its B (the other two), whichever suits gemm.c: below 16 rows of C it
   computes without packing, full vectors wide, but only from contiguous
   rows of B (M^T's: M column-major), else broadcasting A's elements (M's:
   M row-major), and it packs C's rows into tiles of 14 (AVX-512), those
   below 48 mostly empty. So on the left M^T is B for M column-major and
   fewer than 16 right-hand sides; on the right M is A for M row-major and
   fewer than 48 rows (by measurement, k = 256 and 1024). */
static void FN(update)(const struct PROBLEM *pr, long p0, long h, long p1, int overwrite)
{
    const long g1 = pr->fwd ? p0 : pr->k - h, g2 = pr->fwd ? h : pr->k - p1, k1 = h - p0, k2 = p1 - h;
    const long m = pr->m, n = pr->n, block = g2 * pr->rm + g1 * pr->cm, rm = pr->rm, cm = pr->cm;
    const intptr_t a = (intptr_t)pr->a, x = (intptr_t)pr->x;
    if (pr->left) {
        if (rm == 1 && n < 16)  /* X[g2 rows]^T (+)= X[g1 rows]^T M[g2, g1]^T */
            FN(product)(n, k2, k1, x, g1 * n, 1, n, a, block, cm, rm, x, g2 * n, 1, n, overwrite);
        else  /* X[g2 rows] (+)= M[g2, g1] X[g1 rows] */
            FN(product)(k2, n, k1, a, block, rm, cm, x, g1 * n, n, 1, x, g2 * n, n, 1, overwrite);
    } else {
        if (rm != 1 && m < 48)  /* X[:, g2]^T (+)= M[g2, g1] X[:, g1]^T */
            FN(product)(k2, m, k1, a, block, rm, cm, x, g1, 1, n, x, g2, 1, n, overwrite);
        else  /* X[:, g2] (+)= X[:, g1] M[g2, g1]^T */
            FN(product)(m, k2, k1, x, g1, n, 1, a, block, cm, rm, x, g2, n, 1, overwrite);
    }
}

/* Positions p0..p1-1, their right-hand sides b's less what x holds when
   p0 > 0: split in two at a multiple of NB near the middle, the first
   half solved, the second half's right-hand sides updated with it (one
   product), the second half solved; blocks of NB or fewer by
   substitution. */
static void FN(range)(const struct PROBLEM *pr, long p0, long p1)
{
    const long nb = pr->nb;
    if (p1 - p0 <= nb) {
        FN(leaf)(pr, p0, p1, p0 > 0);
        return;
    }
    const long h = p0 + (p1 - p0 + nb - 1) / nb / 2 * nb;
    FN(range)(pr, p0, h);
    FN(update)(pr, p0, h, p1, p0 == 0);
    FN(range)(pr, h, p1);
}

/* One m x n system (see triangular_solve.c) with its work buffer. */
static void FN(solve)(long m, long n, const T *a, const T *b, T *x, int left, int lower, int transpose, int unit,
                      T *work)
{
    const long k = left ? m : n;
    /* op(A) at a[i ro + j co]; M = op(A) (left) or op(A)^T (right) */
    const long ro = transpose ? 1 : k, co = transpose ? k : 1;
    struct PROBLEM pr = {
        .k = k, .m = m, .n = n, .a = a,
        .rm = left ? ro : co, .cm = left ? co : ro,
        .fwd = left ? (lower ^ transpose) : !(lower ^ transpose), .unit = unit, .left = left,
        .nb = (left ? n : m) <= FEW * W && NB_FEW < NB ? NB_FEW : NB,
        .b = b, .x = x,
        .d = work, .diag = work + NB * NB, .inv = work + NB * NB + NB, .divide = work + NB * NB + 2 * NB,
        .buf = work + (NB * NB + 3 * NB + 15) / 16 * 16,  /* 64-byte aligned */
    };
    FN(range)(&pr, 0, k);
}

/* Without a work buffer: substitution one vector after the other, straight
   from a, in x (the same results up to rounding). */
static void FN(unblocked)(long m, long n, const T *a, const T *b, T *x, int left, int lower, int transpose,
                          int unit)
{
    const long k = left ? m : n, L = left ? n : m;
    const long ro = transpose ? 1 : k, co = transpose ? k : 1;
    const long rm = left ? ro : co, cm = left ? co : ro;
    const int fwd = left ? (lower ^ transpose) : !(lower ^ transpose);
    /* y_i[l] at x[i vs + l es] */
    const long vs = left ? n : 1, es = left ? 1 : n;
    for (long p = 0; p < k; p++) {
        const long i = fwd ? p : k - 1 - p;
        T *y = x + i * vs;
        const T *c = b + i * vs;
        for (long l = 0; l < L; l++) y[l * es] = c[l * es];
        for (long s = 0; s < p; s++) {
            const long j = fwd ? s : k - 1 - s;
            const T coefficient = a[i * rm + j * cm];
            const T *yj = x + j * vs;
            for (long l = 0; l < L; l++) y[l * es] -= coefficient * yj[l * es];
        }
        if (!unit) {
            const T dg = a[i * (rm + cm)];
            for (long l = 0; l < L; l++) y[l * es] /= dg;
        }
    }
}

#undef INLINE
#undef PROBLEM
#undef UV
#undef V
#undef FN
#undef CAT
#undef CAT_
