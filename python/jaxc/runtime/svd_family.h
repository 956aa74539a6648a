/* One family of svd.c: the decomposition of one tall matrix, in double
   whatever the entry's type, on one instruction set. svd.c includes this
   file once per family, inside a `#pragma GCC target` region, defining W
   (doubles in one vector register) and SUFFIX (names); GROUP (QR sweeps
   whose rotations are applied together) is svd.c's. Arrays are row-major
   with row strides that are multiples of 8 (so of W) and 64-byte aligned
   rows; rows are zero (or at least finite) from their length up to the
   stride, so that every loop below runs over whole, aligned vectors. */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define INLINE static inline __attribute__((always_inline))

typedef double V __attribute__((vector_size(W * sizeof(double))));

INLINE double FN(hsum)(V v)
{
    double s = 0;
    for (int q = 0; q < W; q++) s += v[q];
    return s;
}

/* Below this a sum of squares may have lost bits to underflow: the vector
   whose squares it sums (at most 2^-480 long, where the matrix's largest
   modulus is at least 1/2) is taken as zero. */
#define NEGLIGIBLE_SQUARES 0x1p-960

/* Householder bidiagonalization of the tall M x N matrix A (M >= N) held
   transposed in b (N rows of ld: row c is A's column c, so that A's
   columns are contiguous): A = H_0 .. H_{N-1} Bd G_{N-3}^T .. G_0^T, Bd
   upper bidiagonal (d its diagonal, e[j] = Bd[j][j+1]).
   Left reflector H_j = I - tau[j] v v^T (v[j] = 1, zero above j) from A's
   column j below its diagonal (row j of b, which then holds v past j);
   right reflector G_j = I - taur[j] w w^T (w[j+1] = 1, zero up to j) from
   A's row j right of its superdiagonal: w[c] for c >= j+2 into b[c][j]
   (column j of b, dead by then). No reflection (tau 0) where the vector to
   annihilate is already zero (or negligible, and then made zero).
   One pass over the rows below j per step, two rows at a time: each row
   first takes the previous step's right update (row c -= taur w[c] z,
   z = w^T A's block), then H_j (row -= tau (row . v) v), then adds itself,
   times its entry in column j (next step's w, unscaled), into the next z.
   Work: four vectors of ld (v, z, the next z, a row of zeros). */
static void FN(bidiagonalize)(long M, long N, long ld, double *restrict b, double *restrict d, double *restrict e,
                              double *restrict tau, double *restrict taur, double *restrict work)
{
    double *v = work, *z = work + ld, *zn = work + 2 * ld, *dummy = work + 3 * ld;
    const long mr = (M + W - 1) / W * W;
    /* The right update not yet applied (pending): rows c >= j less
       tr w[c] z, tr = taur[j-1], w[j] = 1 and w[c] = b[c][j-1] below. */
    int pending = 0;
    double tr = 0;
    for (long c = 0; c < ld; c++) v[c] = z[c] = zn[c] = dummy[c] = 0;
    for (long j = 0; j < N; j++) {
        double *row = b + j * ld;
        const long j0 = j / W * W;
        if (pending)
            for (long c = j0; c < mr; c += W) *(V *)(row + c) -= tr * *(const V *)(z + c);
        /* H_j from row j's columns j..M-1. */
        const double alpha = row[j];
        double sigma = 0;
        for (long c = j + 1; c < M; c++) sigma += row[c] * row[c];
        double t = 0;
        if (sigma <= NEGLIGIBLE_SQUARES) {
            for (long c = j + 1; c < M; c++) row[c] = 0;
            d[j] = alpha;
        } else {
            const double norm = __builtin_sqrt(alpha * alpha + sigma);
            const double beta = alpha >= 0 ? -norm : norm;
            t = (beta - alpha) / beta;
            const double scale = 1 / (alpha - beta);
            for (long c = j + 1; c < M; c++) row[c] *= scale;
            d[j] = beta;
        }
        tau[j] = t;
        for (long c = j0; c < mr; c++) v[c] = 0;
        if (t != 0) {
            v[j] = 1;
            for (long c = j + 1; c < M; c++) v[c] = row[c];
        }
        if (j + 1 >= N) {
            break;
        }
        /* The pass over rows j+1..N-1: the pending update, H_j, and the next
           right reflector's sums (column j below row j+1 and its products
           with the rows, into zn). */
        for (long c = j0; c < mr; c++) zn[c] = 0;
        double sq = 0;
        for (long r = j + 1; r < N; r += 2) {
            const int two = r + 1 < N;
            double *x0 = b + r * ld, *x1 = two ? x0 + ld : dummy;  /* dummy: zeros, and stays so */
            const double g0 = pending ? tr * x0[j - 1] : 0, g1 = pending && two ? tr * x1[j - 1] : 0;
            V s0 = {0}, s1 = {0};
            if (pending) {
                for (long c = j0; c < mr; c += W) {
                    const V zv = *(const V *)(z + c), vv = *(const V *)(v + c);
                    const V a0 = *(V *)(x0 + c) - g0 * zv, a1 = *(V *)(x1 + c) - g1 * zv;
                    *(V *)(x0 + c) = a0;
                    *(V *)(x1 + c) = a1;
                    s0 += a0 * vv;
                    s1 += a1 * vv;
                }
            } else if (t != 0) {
                for (long c = j0; c < mr; c += W) {
                    const V vv = *(const V *)(v + c);
                    s0 += *(V *)(x0 + c) * vv;
                    s1 += *(V *)(x1 + c) * vv;
                }
            }
            const double t0 = t * FN(hsum)(s0), t1 = t * FN(hsum)(s1);
            /* Column j of these rows after H_j: next right reflector's x. */
            const double y0 = x0[j] - t0, y1 = x1[j] - t1;
            const double k0 = r == j + 1 ? 0 : y0;  /* row j+1 is w's leading 1, added apart */
            if (r != j + 1)
                sq += y0 * y0;
            sq += y1 * y1;
            for (long c = j0; c < mr; c += W) {
                const V vv = *(const V *)(v + c);
                const V a0 = *(V *)(x0 + c) - t0 * vv, a1 = *(V *)(x1 + c) - t1 * vv;
                *(V *)(x0 + c) = a0;
                *(V *)(x1 + c) = a1;
                *(V *)(zn + c) += k0 * a0 + y1 * a1;
            }
            x0[j] = y0;
            x1[j] = y1;
        }
        /* G_j from column j of rows j+1..N-1: alpha b[j+1][j], x below. */
        double *next = b + (j + 1) * ld;
        const double a2 = next[j];
        pending = 0;
        taur[j] = 0;
        if (sq <= NEGLIGIBLE_SQUARES) {
            for (long c = j + 2; c < N; c++) b[c * ld + j] = 0;
            e[j] = a2;
        } else {
            const double norm = __builtin_sqrt(a2 * a2 + sq);
            const double beta = a2 >= 0 ? -norm : norm;
            const double tj = (beta - a2) / beta, scale = 1 / (a2 - beta);
            for (long c = j + 2; c < N; c++) b[c * ld + j] *= scale;
            e[j] = beta;
            taur[j] = tj;
            /* z = w^T (rows j+1..N-1), columns j+1..M-1 (zero before). */
            const long c0 = (j + 1) / W * W;
            for (long c = c0; c < mr; c += W)
                *(V *)(zn + c) = *(const V *)(next + c) + scale * *(const V *)(zn + c);
            for (long c = c0; c <= j; c++) zn[c] = 0;
            double *swap = z;
            z = zn;
            zn = swap;
            tr = tj;
            pending = 1;
        }
    }
}

/* Rows r0..r1-1 of q less t (row . v) v, over the aligned columns c0..lr-1
   (v zero outside its reflector's columns). Two rows at a time. */
static void FN(reflect_rows)(const double *restrict v, double t, long c0, long lr, double *restrict q, long ld,
                             long r0, long r1)
{
    long r = r0;
    for (; r + 1 < r1; r += 2) {
        double *x0 = q + r * ld, *x1 = x0 + ld;
        V s0 = {0}, s1 = {0};
        for (long c = c0; c < lr; c += W) {
            const V vv = *(const V *)(v + c);
            s0 += *(V *)(x0 + c) * vv;
            s1 += *(V *)(x1 + c) * vv;
        }
        const double t0 = t * FN(hsum)(s0), t1 = t * FN(hsum)(s1);
        for (long c = c0; c < lr; c += W) {
            const V vv = *(const V *)(v + c);
            *(V *)(x0 + c) -= t0 * vv;
            *(V *)(x1 + c) -= t1 * vv;
        }
    }
    if (r < r1) {
        double *x0 = q + r * ld;
        V s0 = {0};
        for (long c = c0; c < lr; c += W) s0 += *(V *)(x0 + c) * *(const V *)(v + c);
        const double t0 = t * FN(hsum)(s0);
        for (long c = c0; c < lr; c += W) *(V *)(x0 + c) -= t0 * *(const V *)(v + c);
    }
}

/* Reflector j's v (v[p] = 1, p = j + s, then row p of q past p) into the
   vector `v` of ld, zero elsewhere. */
static void FN(gather)(const double *restrict q, long ld, long p, long len, double t, double *restrict v)
{
    const double *row = q + p * ld;
    for (long c = 0; c < ld; c++) v[c] = 0;
    if (t != 0) {
        v[p] = 1;
        for (long c = p + 1; c < len; c++) v[c] = row[c];
    }
}

/* Row p of q: e_p - t v. */
static void FN(set_row)(double *restrict row, const double *restrict v, double t, long p, long ld)
{
    for (long c = 0; c < ld; c++) row[c] = -t * v[c];
    row[p] += 1;
}

/* In place, as LAPACK's org2r: Q = H_0 H_1 .. H_{nref-1} (H_j = I - tau[j]
   v v^T acting on columns j+s.., v[j+s] = 1, v past it in row j+s of q,
   columns j+s+1..len-1), transposed, into the `rows` rows of q (row r is
   Q's column r; rows < s are the identity's). Backwards: before step j,
   the rows past j+s are Q's so far (zero before column j+s+1) and H_j
   changes only them (dot and update along the row) and row j+s, which
   becomes e_{j+s} - tau v. NBR reflectors at a time (all but the last
   nref % NBR): the rows past the block's take them all in one pass (their
   NBR dot products with the v's, then the coefficients a of
   row -= sum a_i v_i from the v's Gram matrix, then one update), the
   block's own rows one reflector at a time. Work: NBR vectors of ld. */
static void FN(org2r)(long rows, long nref, long len, long s, long ld, double *restrict q,
                      const double *restrict tau, double *restrict work)
{
    const long lr = (len + W - 1) / W * W;
    for (long r = 0; r < rows; r++)
        if (r < s || r >= nref + s) {
            double *row = q + r * ld;
            for (long c = 0; c < ld; c++) row[c] = 0;
            row[r] = 1;
        }
    long j1 = nref;
    for (; j1 % NBR; j1--) {
        const long j = j1 - 1, p = j + s;
        FN(gather)(q, ld, p, len, tau[j], work);
        if (tau[j] != 0)
            FN(reflect_rows)(work, tau[j], p / W * W, lr, q, ld, p + 1, rows);
        FN(set_row)(q + p * ld, work, tau[j], p, ld);
    }
    for (; j1 > 0; j1 -= NBR) {
        const long j0 = j1 - NBR, c0 = (j0 + s) / W * W;
        const double *v[NBR];
        double t[NBR], gram[NBR][NBR];
        for (int i = 0; i < NBR; i++) {
            t[i] = tau[j0 + i];
            FN(gather)(q, ld, j0 + i + s, len, t[i], work + i * ld);
            v[i] = work + i * ld;
        }
        for (int i = 0; i < NBR; i++)
            for (int k = i + 1; k < NBR; k++) {
                V g = {0};
                for (long c = (j0 + k + s) / W * W; c < lr; c += W)
                    g += *(const V *)(v[i] + c) * *(const V *)(v[k] + c);
                gram[i][k] = FN(hsum)(g);
            }
        for (long r = j1 + s; r < rows; r++) {
            double *x = q + r * ld;
            V acc[NBR];
            for (int i = 0; i < NBR; i++) acc[i] = (V){0};
            for (long c = c0; c < lr; c += W) {
                const V xv = *(V *)(x + c);
                for (int i = 0; i < NBR; i++) acc[i] += xv * *(const V *)(v[i] + c);
            }
            double a[NBR];
            for (int i = NBR - 1; i >= 0; i--) {
                double dot = FN(hsum)(acc[i]);
                for (int k = i + 1; k < NBR; k++) dot -= a[k] * gram[i][k];
                a[i] = t[i] * dot;
            }
            for (long c = c0; c < lr; c += W) {
                V xv = *(V *)(x + c);
                for (int i = 0; i < NBR; i++) xv -= a[i] * *(const V *)(v[i] + c);
                *(V *)(x + c) = xv;
            }
        }
        for (int i = NBR - 1; i >= 0; i--) {
            const long p = j0 + i + s;
            if (t[i] != 0)
                FN(reflect_rows)(v[i], t[i], p / W * W, lr, q, ld, p + 1, j1 + s);
            FN(set_row)(q + p * ld, v[i], t[i], p, ld);
        }
    }
}

/* The rotations of `count` QR sweeps applied to the rows of z (len
   columns, rounded up to W, of stride ld): sweep k (in order) rotates rows
   i and i+1 for i = lo[k]..hi[k]-1 (in order) by (c, s) = rot[2 t],
   rot[2 t + 1], t = off[k] + i - lo[k]: row i = c row i + s row i+1,
   row i+1 = c row i+1 - s row i. A strip of SV vectors of columns at a
   time, each sweep down the strip with the row it carries to the next
   rotation in registers (one load and one store a row a rotation). */
#define SV 4
static void FN(rotate)(long count, const long *restrict lo, const long *restrict hi, const long *restrict off,
                       const double *restrict rot, double *restrict z, long ld, long len)
{
    const long lr = (len + W - 1) / W * W;
    long j = 0;
    for (; j + SV * W <= lr; j += SV * W) {
        for (long k = 0; k < count; k++) {
            const double *rk = rot + 2 * off[k] - 2 * lo[k];
            V x[SV];
            for (int q = 0; q < SV; q++) x[q] = *(V *)(z + lo[k] * ld + j + q * W);
            for (long i = lo[k]; i < hi[k]; i++) {
                const double c = rk[2 * i], s = rk[2 * i + 1];
                double *ri = z + i * ld + j, *rn = ri + ld;
                for (int q = 0; q < SV; q++) {
                    const V y = *(V *)(rn + q * W);
                    *(V *)(ri + q * W) = c * x[q] + s * y;
                    x[q] = c * y - s * x[q];
                }
            }
            for (int q = 0; q < SV; q++) *(V *)(z + hi[k] * ld + j + q * W) = x[q];
        }
    }
    for (; j < lr; j += W) {
        for (long k = 0; k < count; k++) {
            const double *rk = rot + 2 * off[k] - 2 * lo[k];
            V x = *(V *)(z + lo[k] * ld + j);
            for (long i = lo[k]; i < hi[k]; i++) {
                const double c = rk[2 * i], s = rk[2 * i + 1];
                double *ri = z + i * ld + j, *rn = ri + ld;
                const V y = *(V *)rn;
                *(V *)ri = c * x + s * y;
                x = c * y - s * x;
            }
            *(V *)(z + hi[k] * ld + j) = x;
        }
    }
}

/* One rotation applied at once to rows i and k of z (any two rows). */
static void FN(rotate_pair)(double c, double s, double *restrict xi, double *restrict xk, long len)
{
    const long lr = (len + W - 1) / W * W;
    for (long j = 0; j < lr; j += W) {
        const V x = *(V *)(xi + j), y = *(V *)(xk + j);
        *(V *)(xi + j) = c * x + s * y;
        *(V *)(xk + j) = c * y - s * x;
    }
}

/* (c, s, r) with c f + s g = r, c g - s f = 0, c^2 + s^2 = 1. */
INLINE void FN(rotation)(double f, double g, double *c, double *s, double *r)
{
    if (g == 0) {
        *c = 1;
        *s = 0;
        *r = f;
        return;
    }
    if (f == 0) {
        *c = 0;
        *s = 1;
        *r = g;
        return;
    }
    const double q = f * f + g * g;
    double h = __builtin_sqrt(q), inv = h * (1 / q);  /* the square root and the division at once */
    if (!(h > 0x1p-450 && h < 0x1p450)) {
        h = hypot(f, g);
        inv = 1 / h;
    }
    *c = f * inv;
    *s = g * inv;
    *r = h;
}

/* The pending sweeps' rotations into ut's and vt's rows. */
static void FN(flush)(long *count, long *used, const long *lo, const long *hi, const long *off,
                      const double *rotu, const double *rotv, double *ut, long ldu, long m, double *vt, long ldv,
                      long n)
{
    if (*count) {
        FN(rotate)(*count, lo, hi, off, rotv, vt, ldv, n);
        FN(rotate)(*count, lo, hi, off, rotu, ut, ldu, m);
    }
    *count = *used = 0;
}

/* The SVD of the N x N upper bidiagonal (d, e) by Golub and Kahan's
   implicit-shift QR, as Golub and Reinsch (and LAPACK's dbdsqr, with an
   absolute threshold): d becomes the singular values (of either sign,
   unsorted), the left rotations are applied to the rows of ut (U^T, rows of
   m, stride ldu) and the right ones to those of vt (V^T, rows of n, stride
   ldv). A superdiagonal entry at most tol = DBL_EPSILON max(|d| + |e|) is
   taken as zero (the matrix splits); so is a diagonal one, whose row's
   superdiagonal is then chased right off the matrix by rotations of rows
   (or, on the block's last row, its column's up by rotations of columns).
   Each step on a block l..h: the shift is the smaller singular value of the
   block's trailing 2 x 2 (zero where it is negligible against d[l]), then
   the bulge chased down with a rotation of columns and one of rows at each
   i = l..h-1. The sweeps' rotations are recorded (rotu, rotv: 2 GROUP n
   doubles each) and applied GROUP sweeps at a time (`rotate`).
   0, or -1 after 30 N steps without converging. */
static int FN(bdsqr)(long N, double *restrict d, double *restrict e, double *restrict ut, long ldu, long m,
                     double *restrict vt, long ldv, double *restrict rotu, double *restrict rotv)
{
    double anorm = 0;
    for (long i = 0; i < N; i++) {
        const double a = __builtin_fabs(d[i]) + (i + 1 < N ? __builtin_fabs(e[i]) : 0);
        anorm = a > anorm ? a : anorm;
    }
    const double tol = 0x1p-52 * anorm;
    long budget = 30 * N + 30, count = 0, used = 0, lo[GROUP], hi[GROUP], off[GROUP];
    long h = N - 1;
    while (h > 0) {
        long l = h;
        while (l > 0 && __builtin_fabs(e[l - 1]) > tol) l--;
        if (l > 0)
            e[l - 1] = 0;
        if (l == h) {
            h--;
            continue;
        }
        long zero = -1;
        for (long i = h; i >= l; i--)
            if (__builtin_fabs(d[i]) <= tol) {
                zero = i;
                break;
            }
        if (zero >= 0) {
            FN(flush)(&count, &used, lo, hi, off, rotu, rotv, ut, ldu, m, vt, ldv, N);
            d[zero] = 0;
            if (zero < h) {
                /* Row `zero`: its superdiagonal f moves right along it. */
                double f = e[zero];
                e[zero] = 0;
                for (long j = zero + 1; j <= h; j++) {
                    double c, s, r;
                    FN(rotation)(d[j], f, &c, &s, &r);
                    d[j] = r;
                    if (j < h) {
                        f = -s * e[j];
                        e[j] *= c;
                    }
                    FN(rotate_pair)(c, s, ut + j * ldu, ut + zero * ldu, m);
                }
            } else {
                /* Column h: its entry above the diagonal moves up it. */
                double f = e[h - 1];
                e[h - 1] = 0;
                for (long j = h - 1; j >= l; j--) {
                    double c, s, r;
                    FN(rotation)(d[j], f, &c, &s, &r);
                    d[j] = r;
                    if (j > l) {
                        f = -s * e[j - 1];
                        e[j - 1] *= c;
                    }
                    FN(rotate_pair)(c, s, vt + j * ldv, vt + h * ldv, N);
                }
            }
            continue;
        }
        if (budget-- <= 0)
            return -1;
        /* The shift: the smaller singular value of [[d[h-1], e[h-1]], [0, d[h]]]. */
        double shift = 0;
        {
            const double fa = __builtin_fabs(d[h - 1]), ga = __builtin_fabs(e[h - 1]), ha = __builtin_fabs(d[h]);
            const double big = 0.5 * (__builtin_sqrt((fa + ha) * (fa + ha) + ga * ga)
                                      + __builtin_sqrt((fa - ha) * (fa - ha) + ga * ga));
            shift = fa * (ha / big);
            const double ratio = shift / d[l];
            if (ratio * ratio < 0x1p-52)
                shift = 0;
        }
        double f = (__builtin_fabs(d[l]) - shift) * ((d[l] >= 0 ? 1 : -1) + shift / d[l]), g = e[l];
        double *ru = rotu + 2 * used, *rv = rotv + 2 * used;
        for (long i = l; i < h; i++) {
            double c, s, r;
            FN(rotation)(f, g, &c, &s, &r);
            if (i > l)
                e[i - 1] = r;
            f = c * d[i] + s * e[i];
            e[i] = c * e[i] - s * d[i];
            g = s * d[i + 1];
            d[i + 1] *= c;
            rv[2 * (i - l)] = c;
            rv[2 * (i - l) + 1] = s;
            FN(rotation)(f, g, &c, &s, &r);
            d[i] = r;
            f = c * e[i] + s * d[i + 1];
            d[i + 1] = c * d[i + 1] - s * e[i];
            if (i + 1 < h) {
                g = s * e[i + 1];
                e[i + 1] *= c;
            }
            ru[2 * (i - l)] = c;
            ru[2 * (i - l) + 1] = s;
        }
        e[h - 1] = f;
        lo[count] = l;
        hi[count] = h;
        off[count] = used;
        used += h - l;
        if (++count == GROUP)
            FN(flush)(&count, &used, lo, hi, off, rotu, rotv, ut, ldu, m, vt, ldv, N);
    }
    FN(flush)(&count, &used, lo, hi, off, rotu, rotv, ut, ldu, m, vt, ldv, N);
    return 0;
}

/* The SVD of the tall M x N matrix A (M >= N) held transposed in b (rows
   of ldm, zero past M; `rows` of them: N, or M for a full U):
   A = U diag(d) V^T with U^T into b (its first `rows` rows) and V^T into
   vt (N rows of ldn), d of either sign and unsorted. 0, or -1 where QR
   did not converge. Work: 3 ldn + 4 GROUP ldn + max(4, NBR) ldm doubles. */
static int FN(decompose)(long M, long N, long rows, long ldm, long ldn, double *restrict b, double *restrict vt,
                         double *restrict d, double *restrict work)
{
    double *e = work, *tau = e + ldn, *taur = tau + ldn, *rotu = taur + ldn, *rotv = rotu + 2 * GROUP * ldn,
           *rest = rotv + 2 * GROUP * ldn;
    FN(bidiagonalize)(M, N, ldm, b, d, e, tau, taur, rest);
    /* V^T: the right reflectors' w into vt's rows (w_j past its leading 1
       into row j+1), then org2r on the block from (1, 1). */
    for (long j = 0; j + 2 < N; j++) {
        double *row = vt + (j + 1) * ldn;
        for (long c = j + 2; c < N; c++) row[c] = b[c * ldm + j];
    }
    if (N >= 2)
        taur[N - 2] = 0;
    FN(org2r)(N, N > 0 ? N - 1 : 0, N, 1, ldn, vt, taur, rest);
    FN(org2r)(rows, N, M, 0, ldm, b, tau, rest);
    return FN(bdsqr)(N, d, e, b, ldm, M, vt, ldn, rotu, rotv);
}

#undef SV
#undef NEGLIGIBLE_SQUARES
#undef INLINE
#undef V
#undef FN
#undef CAT
#undef CAT_
