/* One family of eig.c: the Hessenberg reduction (hessenberg), Q (form_q)
   and the QR iteration (francis, dlahqr's double-shift QR) with the row
   updates they spend their time in, in double, on one instruction set.
   eig.c includes this file once per family, inside a `#pragma GCC target`
   region, defining W (doubles in one vector register) and SUFFIX (names);
   ULP, JAXC_EIG_SWEEPS, Z_SWEEP, reflector and standardize are eig.c's.
   Arrays are row-major with a row stride ld; rows start anywhere
   (unaligned vectors). */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define UV FN(uv)
#define INLINE static inline __attribute__((always_inline))

typedef double V __attribute__((vector_size(W * sizeof(double))));
typedef double UV __attribute__((vector_size(W * sizeof(double)), aligned(sizeof(double)))); /* unaligned */

INLINE double FN(hsum)(V v)
{
    double s = 0;
    for (int q = 0; q < W; q++) s += v[q];
    return s;
}

/* a . b, n entries, in 4 partial sums of vectors. */
static double FN(dot)(const double *a, const double *b, long n)
{
    V s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    long i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
        s0 += *(const UV *)(a + i) * *(const UV *)(b + i);
        s1 += *(const UV *)(a + i + W) * *(const UV *)(b + i + W);
        s2 += *(const UV *)(a + i + 2 * W) * *(const UV *)(b + i + 2 * W);
        s3 += *(const UV *)(a + i + 3 * W) * *(const UV *)(b + i + 3 * W);
    }
    for (; i + W <= n; i += W) s0 += *(const UV *)(a + i) * *(const UV *)(b + i);
    double r = FN(hsum)((s0 + s1) + (s2 + s3));
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}

/* y += s x. */
INLINE void FN(axpy)(double *restrict y, double s, const double *restrict x, long n)
{
    long i = 0;
    for (; i + W <= n; i += W) *(UV *)(y + i) += s * *(const UV *)(x + i);
    for (; i < n; i++) y[i] += s * x[i];
}

/* ------------------------------------------------------------------------
   Hessenberg reduction (dgehd2's): for j = ilo .. ihi-2 the reflector H_j
   of column j below the diagonal (rows j+1 .. ihi) applied from the left
   to rows j+1 .. ihi, columns j+1 .. n-1, and from the right to rows
   0 .. ihi, columns j+1 .. ihi; beta stored at a[j+1][j], v below it, tau
   in taus[j]. Two passes over the rows a step: the left update with the
   row's y = row . v, then the right update with the next step's
   w = v'^T rows (its reflector made from column j+1 between the passes:
   the right update changes that column by -tau y). work: 5 vectors of ld. */

/* row += s w, and returns the new row . v (m entries), in 4 partial sums of vectors. */
static double FN(update_dot)(double *restrict row, double s, const double *restrict w, const double *restrict v,
                             long m)
{
    V s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    long i = 0;
    for (; i + 4 * W <= m; i += 4 * W) {
        const V a0 = *(UV *)(row + i) + s * *(const UV *)(w + i);
        const V a1 = *(UV *)(row + i + W) + s * *(const UV *)(w + i + W);
        const V a2 = *(UV *)(row + i + 2 * W) + s * *(const UV *)(w + i + 2 * W);
        const V a3 = *(UV *)(row + i + 3 * W) + s * *(const UV *)(w + i + 3 * W);
        *(UV *)(row + i) = a0;
        *(UV *)(row + i + W) = a1;
        *(UV *)(row + i + 2 * W) = a2;
        *(UV *)(row + i + 3 * W) = a3;
        s0 += a0 * *(const UV *)(v + i);
        s1 += a1 * *(const UV *)(v + i + W);
        s2 += a2 * *(const UV *)(v + i + 2 * W);
        s3 += a3 * *(const UV *)(v + i + 3 * W);
    }
    for (; i + W <= m; i += W) {
        const V a0 = *(UV *)(row + i) + s * *(const UV *)(w + i);
        *(UV *)(row + i) = a0;
        s0 += a0 * *(const UV *)(v + i);
    }
    double r = FN(hsum)((s0 + s1) + (s2 + s3));
    for (; i < m; i++) {
        row[i] += s * w[i];
        r += row[i] * v[i];
    }
    return r;
}

/* row += s v (m entries), and w[i-1] += c row[i] for i = 1 .. m-1. */
static void FN(update_accumulate)(double *restrict row, double s, const double *restrict v, long m, double *restrict w,
                              double c)
{
    row[0] += s * v[0];
    for (long i = 1; i < m; i++) {
        row[i] += s * v[i];
        w[i - 1] += c * row[i];
    }
}

static void FN(hessenberg)(long n, long ld, long ilo, long ihi, double *a, double *taus, double *work)
{
#define A(i, j) a[(i) * ld + (j)]
    double *v = work, *w = v + ld, *y = w + ld, *u = y + ld, *w2 = u + ld;
    if (ihi - ilo < 2)
        return;
    double tau = taus[ilo] = reflector(ihi - ilo, &A(ilo + 1, ilo), &A(ilo + 2, ilo), ld);
    int have_w = 0;
    for (long j = ilo; j + 2 <= ihi; j++) {
        const long m = ihi - j, width = n - j - 1; /* rows (and columns) j+1 .. ihi; columns j+1 .. n-1 */
        const int next = j + 3 <= ihi;
        if (tau == 0) {
            if (next)
                tau = taus[j + 1] = reflector(m - 1, &A(j + 2, j + 1), &A(j + 3, j + 1), ld);
            have_w = 0;
            continue;
        }
        v[0] = 1;
        for (long k = 1; k < m; k++) v[k] = A(j + 1 + k, j);
        if (!have_w) {
            memcpy(w, &A(j + 1, j + 1), width * sizeof(double));
            for (long k = 1; k < m; k++) FN(axpy)(w, v[k], &A(j + 1 + k, j + 1), width);
        }
        /* The left update and y. */
        for (long r = 0; r <= ihi; r++) {
            double *row = &A(r, j + 1);
            if (r <= j) {
                y[r] = FN(dot)(row, v, m);
            } else {
                const double s = -tau * v[r - j - 1];
                y[r] = FN(update_dot)(row, s, w, v, m);
                FN(axpy)(row + m, s, w + m, width - m);
            }
        }
        /* The next reflector, from column j+1 as the right update leaves it. */
        double next_tau = 0;
        if (next) {
            for (long r = j + 2; r <= ihi; r++) u[r - j - 2] = A(r, j + 1) - tau * y[r];
            next_tau = reflector(m - 1, u, u + 1, 1);
        }
        /* The right update, and the next step's w. */
        const int accumulate = next && next_tau != 0;
        if (accumulate)
            memset(w2, 0, (width - 1) * sizeof(double));
        for (long r = 0; r <= ihi; r++) {
            double *row = &A(r, j + 1);
            if (accumulate && r >= j + 2) {
                FN(update_accumulate)(row, -tau * y[r], v, m, w2, r == j + 2 ? 1 : u[r - j - 2]);
                FN(axpy)(w2 + m - 1, r == j + 2 ? 1 : u[r - j - 2], row + m, width - m);
            } else {
                FN(axpy)(row, -tau * y[r], v, m);
            }
        }
        if (next) {
            for (long r = j + 2; r <= ihi; r++) A(r, j + 1) = u[r - j - 2];
            taus[j + 1] = next_tau;
        }
        double *t = w;
        w = w2;
        w2 = t;
        have_w = accumulate;
        tau = next_tau;
    }
#undef A
}

/* Q = H_ilo ... H_{ihi-2} of hessenberg's reflectors (in a below the
   subdiagonal, taus) into q (n x ld, row-major), backward: each H_j from
   the left to rows and columns j+1 .. ihi. w: a work vector of n. */
static void FN(form_q)(long n, long ld, long ilo, long ihi, const double *a, const double *taus, double *q, double *w)
{
    for (long i = 0; i < n; i++) {
        memset(q + i * ld, 0, n * sizeof(double));
        q[i * ld + i] = 1;
    }
    for (long j = ihi - 2; j >= ilo; j--) {
        const double tau = taus[j];
        if (tau == 0)
            continue;
        const long m = ihi - j;
        double *top = q + (j + 1) * ld + j + 1;
        memcpy(w, top, m * sizeof(double));
        for (long r = 1; r < m; r++) FN(axpy)(w, a[(j + 1 + r) * ld + j], top + r * ld, m);
        FN(axpy)(top, -tau, w, m);
        for (long r = 1; r < m; r++) FN(axpy)(top + r * ld, -tau * a[(j + 1 + r) * ld + j], w, m);
    }
}

/* Rows x0, x1, x2 of len entries times the reflector I - t1 (1, v2, v3)^T (1, v2, v3)
   from the left (t2 = t1 v2, t3 = t1 v3); rows2 the 2-entry one. */
INLINE void FN(rows3)(double *restrict x0, double *restrict x1, double *restrict x2, long len, double v2, double v3,
                      double t1, double t2, double t3)
{
    long j = 0;
    for (; j + W <= len; j += W) {
        const V a0 = *(UV *)(x0 + j), a1 = *(UV *)(x1 + j), a2 = *(UV *)(x2 + j);
        const V s = a0 + v2 * a1 + v3 * a2;
        *(UV *)(x0 + j) = a0 - s * t1;
        *(UV *)(x1 + j) = a1 - s * t2;
        *(UV *)(x2 + j) = a2 - s * t3;
    }
    for (; j < len; j++) {
        const double s = x0[j] + v2 * x1[j] + v3 * x2[j];
        x0[j] -= s * t1;
        x1[j] -= s * t2;
        x2[j] -= s * t3;
    }
}

INLINE void FN(rows2)(double *restrict x0, double *restrict x1, long len, double v2, double t1, double t2)
{
    long j = 0;
    for (; j + W <= len; j += W) {
        const V a0 = *(UV *)(x0 + j), a1 = *(UV *)(x1 + j);
        const V s = a0 + v2 * a1;
        *(UV *)(x0 + j) = a0 - s * t1;
        *(UV *)(x1 + j) = a1 - s * t2;
    }
    for (; j < len; j++) {
        const double s = x0[j] + v2 * x1[j];
        x0[j] -= s * t1;
        x1[j] -= s * t2;
    }
}

/* Rows 0 .. count+1 of x (len entries, row stride ld) times count 3-row
   reflectors in order, the q-th on rows q, q+1, q+2, its (v2, v3, t1, t2, t3)
   at e[5 q] (as rows3), then when `two` a 2-row one on rows count,
   count+1 ((v2, -, t1, t2) at e[5 count], as rows2): the row updates of a
   stretch of a sweep in one pass over the rows, each column's window of
   rows in registers, 4 vectors of columns at a time. */
/* sweep_rows on nu vectors of columns from x. */
INLINE void FN(sweep_columns)(double *p, long ld, long count, int two, const double *e, const int nu)
{
    V a0[4], a1[4];
    for (int u = 0; u < nu; u++) {
        a0[u] = *(UV *)(p + u * W);
        a1[u] = *(UV *)(p + ld + u * W);
    }
    for (long q = 0; q < count; q++, p += ld) {
        const double *f = e + 5 * q;
        const double v2 = f[0], v3 = f[1], t1 = f[2], t2 = f[3], t3 = f[4];
        for (int u = 0; u < nu; u++) {
            const V a2 = *(UV *)(p + 2 * ld + u * W);
            const V s = a0[u] + v2 * a1[u] + v3 * a2;
            *(UV *)(p + u * W) = a0[u] - s * t1;
            a0[u] = a1[u] - s * t2;
            a1[u] = a2 - s * t3;
        }
    }
    if (two) {
        const double *f = e + 5 * count;
        const double v2 = f[0], t1 = f[2], t2 = f[3];
        for (int u = 0; u < nu; u++) {
            const V s = a0[u] + v2 * a1[u];
            a0[u] -= s * t1;
            a1[u] -= s * t2;
        }
    }
    for (int u = 0; u < nu; u++) {
        *(UV *)(p + u * W) = a0[u];
        *(UV *)(p + ld + u * W) = a1[u];
    }
}

static void FN(sweep_rows)(double *x, long ld, long len, long count, int two, const double *e)
{
    long j = 0;
    for (; j + 4 * W <= len; j += 4 * W) FN(sweep_columns)(x + j, ld, count, two, e, 4);
    for (; j + W <= len; j += W) FN(sweep_columns)(x + j, ld, count, two, e, 1);
    for (; j < len; j++) {
        double *p = x + j;
        double a0 = p[0], a1 = p[ld];
        for (long q = 0; q < count; q++, p += ld) {
            const double *f = e + 5 * q;
            const double a2 = p[2 * ld];
            const double s = a0 + f[0] * a1 + f[1] * a2;
            p[0] = a0 - s * f[2];
            a0 = a1 - s * f[3];
            a1 = a2 - s * f[4];
        }
        if (two) {
            const double *f = e + 5 * count;
            const double s = a0 + f[0] * a1;
            a0 -= s * f[2];
            a1 -= s * f[3];
        }
        p[0] = a0;
        p[ld] = a1;
    }
}

/* The plane rotation (x, y) <- (c x + s y, c y - s x) of two rows. */
INLINE void FN(rotate)(double *restrict x, double *restrict y, long len, double c, double s)
{
    long j = 0;
    for (; j + W <= len; j += W) {
        const V a = *(UV *)(x + j), b = *(UV *)(y + j);
        *(UV *)(x + j) = c * a + s * b;
        *(UV *)(y + j) = c * b - s * a;
    }
    for (; j < len; j++) {
        const double a = x[j], b = y[j];
        x[j] = c * a + s * b;
        y[j] = c * b - s * a;
    }
}

/* The same down two columns of a row-major matrix (len rows from x). */
INLINE void FN(rotate_columns)(double *x, long ld, long len, double c, double s)
{
    for (long j = 0; j < len; j++, x += ld) {
        const double a = x[0], b = x[1];
        x[0] = c * a + s * b;
        x[1] = c * b - s * a;
    }
}

/* The real Schur form of the upper Hessenberg h (n x ld) in rows and
   columns ilo .. ihi (dlahqr's double-shift QR): the eigenvalues into wr,
   wi (ilo .. ihi); with want_t all of h transformed (T), else only the
   active block; zt (when not NULL: Z^T, n x ld) gets the transformations
   in its rows, columns ilo .. ihi. Returns 0, or 1 when the sweeps ran out. */
#define H(i, j) h[(i) * ld + (j)]

static int FN(francis)(long n, long ld, long ilo, long ihi, double *h, int want_t, double *zt, double *wr, double *wi)
{
    if (ihi < ilo)
        return 0;
    if (ilo == ihi) {
        wr[ilo] = H(ilo, ilo);
        wi[ilo] = 0;
        return 0;
    }
    for (long j = ilo; j <= ihi - 3; j++) {
        H(j + 2, j) = 0;
        H(j + 3, j) = 0;
    }
    if (ilo <= ihi - 2)
        H(ihi, ihi - 2) = 0;
    const long nh = ihi - ilo + 1, zlen = nh;
    const double smlnum = DBL_MIN * ((double)nh / ULP);
    const long budget = JAXC_EIG_SWEEPS * (nh > 10 ? nh : 10);
    long i1 = 0, i2 = n - 1, sweeps = 0, kdefl = 0;
    for (long i = ihi; i >= ilo;) {
        long l = ilo;
        for (;;) {
            /* A negligible subdiagonal entry (Ahues and Kressner's test). */
            long k;
            for (k = i; k > l; k--) {
                const double sub = fabs(H(k, k - 1));
                if (sub <= smlnum)
                    break;
                double tst = fabs(H(k - 1, k - 1)) + fabs(H(k, k));
                if (tst == 0) {
                    if (k - 2 >= ilo)
                        tst += fabs(H(k - 1, k - 2));
                    if (k + 1 <= ihi)
                        tst += fabs(H(k + 1, k));
                }
                if (sub <= ULP * tst) {
                    const double up = fabs(H(k - 1, k));
                    const double ab = fmax(sub, up), ba = fmin(sub, up);
                    const double diff = fabs(H(k - 1, k - 1) - H(k, k)), hkk = fabs(H(k, k));
                    const double aa = fmax(hkk, diff), bb = fmin(hkk, diff);
                    const double s = aa + ab;
                    if (ba * (ab / s) <= fmax(smlnum, ULP * (bb * (aa / s))))
                        break;
                }
            }
            l = k;
            if (l > ilo)
                H(l, l - 1) = 0;
            if (l >= i - 1)
                break;
            if (++sweeps > budget)
                return 1;
            kdefl++;
            if (!want_t) {
                i1 = l;
                i2 = i;
            }
            /* The shifts: the eigenvalues of the trailing 2x2 block, or
               exceptional ones every 10 sweeps without a deflation. */
            double h11, h12, h21, h22;
            if (kdefl % 20 == 0) {
                const double s = fabs(H(i, i - 1)) + fabs(H(i - 1, i - 2));
                h11 = 0.75 * s + H(i, i);
                h12 = -0.4375 * s;
                h21 = s;
                h22 = h11;
            } else if (kdefl % 10 == 0) {
                const double s = fabs(H(l + 1, l)) + fabs(H(l + 2, l + 1));
                h11 = 0.75 * s + H(l, l);
                h12 = -0.4375 * s;
                h21 = s;
                h22 = h11;
            } else {
                h11 = H(i - 1, i - 1);
                h21 = H(i, i - 1);
                h12 = H(i - 1, i);
                h22 = H(i, i);
            }
            double rt1r, rt1i, rt2r, rt2i;
            {
                const double s = fabs(h11) + fabs(h12) + fabs(h21) + fabs(h22);
                if (s == 0) {
                    rt1r = rt1i = rt2r = rt2i = 0;
                } else {
                    h11 /= s;
                    h21 /= s;
                    h12 /= s;
                    h22 /= s;
                    const double tr = (h11 + h22) / 2;
                    const double det = (h11 - tr) * (h22 - tr) - h12 * h21;
                    const double rtdisc = sqrt(fabs(det));
                    if (det >= 0) {
                        rt1r = tr * s;
                        rt2r = rt1r;
                        rt1i = rtdisc * s;
                        rt2i = -rt1i;
                    } else {
                        rt1r = tr + rtdisc;
                        rt2r = tr - rtdisc;
                        if (fabs(rt1r - h22) <= fabs(rt2r - h22)) {
                            rt1r *= s;
                            rt2r = rt1r;
                        } else {
                            rt2r *= s;
                            rt1r = rt2r;
                        }
                        rt1i = rt2i = 0;
                    }
                }
            }
            /* Where to start the bulge: two consecutive small subdiagonal
               entries, else l. */
            double v[3] = {0, 0, 0};
            long m;
            for (m = i - 2; m >= l; m--) {
                double s = fabs(H(m, m) - rt2r) + fabs(rt2i) + fabs(H(m + 1, m));
                const double h21s = H(m + 1, m) / s;
                v[0] = h21s * H(m, m + 1) + (H(m, m) - rt1r) * ((H(m, m) - rt2r) / s) - rt1i * (rt2i / s);
                v[1] = h21s * (H(m, m) + H(m + 1, m + 1) - rt1r - rt2r);
                v[2] = h21s * H(m + 2, m + 1);
                s = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
                v[0] /= s;
                v[1] /= s;
                v[2] /= s;
                if (m == l)
                    break;
                const double h00 = fabs(H(m, m - 1)) * (fabs(v[1]) + fabs(v[2]));
                const double h01 = fabs(v[0]) * (fabs(H(m - 1, m - 1)) + fabs(H(m, m)) + fabs(H(m + 1, m + 1)));
                if (h00 <= ULP * h01)
                    break;
            }
            /* The double-shift sweep: the bulge chased from m down to i. */
            /* Z^T's row updates deferred, Z_SWEEP reflectors at a time (sweep_rows). */
            double zsweep[5 * (Z_SWEEP + 1)];
            long zcount = 0, zfirst = m;
            for (long k = m; k <= i - 1; k++) {
                const long nr = i - k + 1 < 3 ? i - k + 1 : 3;
                if (k > m) {
                    v[0] = H(k, k - 1);
                    v[1] = H(k + 1, k - 1);
                    if (nr == 3)
                        v[2] = H(k + 2, k - 1);
                }
                const double t1 = nr == 3 ? reflector(3, v, v + 1, 1) : reflector(2, v, v + 1, 1);
                if (k > m) {
                    H(k, k - 1) = v[0];
                    H(k + 1, k - 1) = 0;
                    if (k < i - 1)
                        H(k + 2, k - 1) = 0;
                } else if (m > l) {
                    H(k, k - 1) *= 1 - t1;
                }
                const double v2 = v[1], t2 = t1 * v2;
                const long last = k + 3 < i ? k + 3 : i;
                if (nr == 3) {
                    const double v3 = v[2], t3 = t1 * v3;
                    FN(rows3)(&H(k, k), &H(k + 1, k), &H(k + 2, k), i2 - k + 1, v2, v3, t1, t2, t3);
                    for (long r = i1; r <= last; r++) {
                        double *p = &H(r, k);
                        const double s = p[0] + v2 * p[1] + v3 * p[2];
                        p[0] -= s * t1;
                        p[1] -= s * t2;
                        p[2] -= s * t3;
                    }
                    if (zt) {
                        double *e = zsweep + 5 * zcount;
                        e[0] = v2;
                        e[1] = v3;
                        e[2] = t1;
                        e[3] = t2;
                        e[4] = t3;
                        if (zcount++ == 0)
                            zfirst = k;
                        if (zcount == Z_SWEEP) {
                            FN(sweep_rows)(zt + zfirst * ld + ilo, ld, zlen, zcount, 0, zsweep);
                            zcount = 0;
                        }
                    }
                } else {
                    FN(rows2)(&H(k, k), &H(k + 1, k), i2 - k + 1, v2, t1, t2);
                    for (long r = i1; r <= i; r++) {
                        double *p = &H(r, k);
                        const double s = p[0] + v2 * p[1];
                        p[0] -= s * t1;
                        p[1] -= s * t2;
                    }
                    if (zt) {
                        double *e = zsweep + 5 * zcount;
                        e[0] = v2;
                        e[2] = t1;
                        e[3] = t2;
                        if (zcount == 0)
                            zfirst = k;
                        FN(sweep_rows)(zt + zfirst * ld + ilo, ld, zlen, zcount, 1, zsweep);
                        zcount = 0;
                    }
                }
            }
            if (zcount > 0)
                FN(sweep_rows)(zt + zfirst * ld + ilo, ld, zlen, zcount, 0, zsweep);
        }
        if (l == i) {
            wr[i] = H(i, i);
            wi[i] = 0;
        } else {
            /* A 2x2 block: its standard form, the rotation applied to the
               rest of the rows and columns, and to Z. */
            double cs, sn;
            standardize(&H(i - 1, i - 1), &H(i - 1, i), &H(i, i - 1), &H(i, i), &wr[i - 1], &wi[i - 1], &wr[i],
                        &wi[i], &cs, &sn);
            if (want_t) {
                if (i2 > i)
                    FN(rotate)(&H(i - 1, i + 1), &H(i, i + 1), i2 - i, cs, sn);
                FN(rotate_columns)(&H(i1, i - 1), ld, i - i1 - 1, cs, sn);
            }
            if (zt)
                FN(rotate)(zt + (i - 1) * ld + ilo, zt + i * ld + ilo, zlen, cs, sn);
        }
        kdefl = 0;
        i = l - 1;
    }
    return 0;
}
#undef H

#undef CAT_
#undef CAT
#undef FN
#undef V
#undef UV
#undef INLINE
