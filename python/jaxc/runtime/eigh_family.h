/* One family of eigh.c: the decomposition of one symmetric matrix, in
   double whatever the entry's type, on one instruction set. eigh.c includes
   this file once per family, inside a `#pragma GCC target` region, defining
   W (doubles in one vector register), G (QL sweeps applied at once, 4 to 8)
   and SUFFIX (names); STRIDE, JAXC_EIGH_SWEEPS and the QL_ states are
   eigh.c's. Arrays are row-major with a row stride ld (a multiple of 8, so
   of W), 64-byte aligned. */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define UV FN(uv)
#define INLINE static inline __attribute__((always_inline))

_Static_assert(G >= 4 && G <= 8, "G sweeps: 2 G vector registers, and eigh.c's work arrays");

typedef double V __attribute__((vector_size(W * sizeof(double))));
typedef double UV __attribute__((vector_size(W * sizeof(double)), aligned(sizeof(double))));  /* unaligned */

INLINE double FN(hsum)(V v)
{
    double s = 0;
    for (int q = 0; q < W; q++) s += v[q];
    return s;
}

/* One step of the tridiagonalization, over rows 0..i-1 of the lower
   triangle `a`: each row first takes the previous step's update,
   A -= up qp^T + qp up^T (columns 0..row; up = qp = 0 where there is none),
   then adds its part of p = A u (u = 0 where there is no reflection):
   row r's dot with u into p[r], u[r] times its columns below the diagonal
   into p[0..r-1] (A's entries above the diagonal, by symmetry). Two rows
   at a time, so that the vectors' loads serve both; every access along
   contiguous rows. */
static void FN(pass)(long i, long ld, double *restrict a, const double *restrict up, const double *restrict qp,
                     const double *restrict u, double *restrict p)
{
    long r = 0;
    for (; r + 1 < i; r += 2) {
        double *restrict x0 = a + r * ld, *restrict x1 = x0 + ld;
        const double a0 = up[r], b0 = qp[r], a1 = up[r + 1], b1 = qp[r + 1], u0 = u[r], u1 = u[r + 1];
        V s0 = {0}, s1 = {0};
        long c = 0;
        for (; c + W <= r; c += W) {
            const V qv = *(const UV *)(qp + c), uv = *(const UV *)(up + c), wv = *(const UV *)(u + c);
            const V v0 = *(UV *)(x0 + c) - (a0 * qv + b0 * uv);
            const V v1 = *(UV *)(x1 + c) - (a1 * qv + b1 * uv);
            *(UV *)(x0 + c) = v0;
            *(UV *)(x1 + c) = v1;
            s0 += v0 * wv;
            s1 += v1 * wv;
            *(UV *)(p + c) += v0 * u0 + v1 * u1;
        }
        double t0 = FN(hsum)(s0), t1 = FN(hsum)(s1);
        for (; c < r; c++) {
            const double v0 = x0[c] - (a0 * qp[c] + b0 * up[c]);
            const double v1 = x1[c] - (a1 * qp[c] + b1 * up[c]);
            x0[c] = v0;
            x1[c] = v1;
            t0 += v0 * u[c];
            t1 += v1 * u[c];
            p[c] += v0 * u0 + v1 * u1;
        }
        /* Row r's diagonal, row r+1's column r and its diagonal. */
        const double v0 = x0[r] - (a0 * qp[r] + b0 * up[r]);
        const double v1 = x1[r] - (a1 * qp[r] + b1 * up[r]);
        const double v2 = x1[r + 1] - (a1 * qp[r + 1] + b1 * up[r + 1]);
        x0[r] = v0;
        x1[r] = v1;
        x1[r + 1] = v2;
        p[r] += t0 + v0 * u0 + v1 * u1;
        p[r + 1] += t1 + v1 * u0 + v2 * u1;
    }
    if (r < i) {
        double *restrict x0 = a + r * ld;
        const double a0 = up[r], b0 = qp[r], u0 = u[r];
        V s0 = {0};
        long c = 0;
        for (; c + W <= r; c += W) {
            const V v0 = *(UV *)(x0 + c) - (a0 * *(const UV *)(qp + c) + b0 * *(const UV *)(up + c));
            *(UV *)(x0 + c) = v0;
            s0 += v0 * *(const UV *)(u + c);
            *(UV *)(p + c) += v0 * u0;
        }
        double t0 = FN(hsum)(s0);
        for (; c < r; c++) {
            const double v0 = x0[c] - (a0 * qp[c] + b0 * up[c]);
            x0[c] = v0;
            t0 += v0 * u[c];
            p[c] += v0 * u0;
        }
        const double v0 = x0[r] - (a0 * qp[r] + b0 * up[r]);
        x0[r] = v0;
        p[r] += t0 + v0 * u0;
    }
}

/* Householder tridiagonalization of the n x n lower triangle `a` from its
   last row up (EISPACK's tred2 order, so that each reflector is a
   contiguous row): step i (n-1 down to 1) takes row i's columns 0..i-1 as
   x, and the reflector P = I - u u^T / h with u = x - beta e_{i-1},
   beta = -sign(x_{i-1}) |x|, maps x to beta e_{i-1}; then
   A = P A P on the leading i x i block, as A -= u q^T + q u^T with
   p = A u / h and q = p - (u^T p / 2h) u. That update is applied a step
   late, in the same pass over the rows as the next step's p (`pass`);
   row i itself first, which makes the next x. T's diagonal into d, its
   subdiagonal T[i][i-1] into e[i] (e[0] = 0), u into row i of a (h[i] = 0
   where x already is a multiple of e_{i-1}: no reflector). Work: three
   vectors of ld (buffers of p and q, and zeros). */
static void FN(tridiagonalize)(long n, long ld, double *restrict a, double *restrict d, double *restrict e,
                               double *restrict h, double *restrict work)
{
    double *zero = work, *qs[2] = {work + ld, work + 2 * ld};
    for (long c = 0; c < ld; c++) zero[c] = 0;
    const double *up = zero, *qp = zero;  /* the update not yet applied */
    int pending = 0, which = 0;
    e[0] = 0;
    for (long i = n - 1; i >= 1; i--) {
        double *x = a + i * ld;
        if (pending) {
            const double ai = up[i], bi = qp[i];
            for (long c = 0; c <= i; c++) x[c] -= ai * qp[c] + bi * up[c];
        }
        d[i] = x[i];
        const double alpha = x[i - 1];
        double sigma = 0;
        for (long c = 0; c < i - 1; c++) sigma += x[c] * x[c];
        if (sigma == 0) {
            e[i] = alpha;
            h[i] = 0;
            if (pending)
                FN(pass)(i, ld, a, up, qp, zero, qs[which]);  /* p unused: it was the previous q */
            up = qp = zero;
            pending = 0;
            continue;
        }
        const double norm = __builtin_sqrt(alpha * alpha + sigma);
        const double beta = alpha >= 0 ? -norm : norm;
        const double hh = norm * (norm + __builtin_fabs(alpha));
        x[i - 1] = alpha - beta;
        e[i] = beta;
        h[i] = hh;
        double *p = qs[which];
        for (long c = 0; c < i; c++) p[c] = 0;
        FN(pass)(i, ld, a, up, qp, x, p);
        const double inv = 1 / hh;
        double k = 0;
        for (long c = 0; c < i; c++) {
            p[c] *= inv;
            k += x[c] * p[c];
        }
        k *= 0.5 * inv;
        for (long c = 0; c < i; c++) p[c] -= k * x[c];
        for (long c = i; c < ld; c++) p[c] = 0;
        up = x;
        qp = p;
        pending = 1;
        which ^= 1;
    }
    d[0] = a[0];
}

/* Q^T = P_2 P_3 ... P_{n-1} (A = Q T Q^T) into z (n x ld, zeros past
   column n). Row r of Q^T is e_r^T P_{r+1} ... P_{n-1} (P_i leaves e_r as
   it is for i <= r: u_i is zero from i on), and before P_i it is zero
   from column i on: so P_i takes from it (row . u) u^T / h over its first
   i columns only (rounded up to W: the reflectors' rows of `a` are first
   cleared from their diagonal to that), a dot product and an update along
   two contiguous rows. The rows are independent: in blocks of NR, each
   taking a block of NU reflectors at a time (the block of reflectors,
   NU rows of `a`, stays in L2 while every block of rows takes it; the
   block of rows in L1), the dot products of NR rows with one reflector
   sharing its loads. */
#define NR 4
#define NU 64
INLINE void FN(reflect_rows)(int rows, double *restrict z, long ld, const double *restrict u, long len, double inv)
{
    V s[NR][2];
    for (int q = 0; q < rows; q++) s[q][0] = s[q][1] = (V){0};
    long c = 0;
    for (; c + 2 * W <= len; c += 2 * W) {
        const V u0 = *(const V *)(u + c), u1 = *(const V *)(u + c + W);
        for (int q = 0; q < rows; q++) {
            s[q][0] += *(const V *)(z + q * ld + c) * u0;
            s[q][1] += *(const V *)(z + q * ld + c + W) * u1;
        }
    }
    if (c < len) {
        const V u0 = *(const V *)(u + c);
        for (int q = 0; q < rows; q++) s[q][0] += *(const V *)(z + q * ld + c) * u0;
    }
    double g[NR];
    for (int q = 0; q < rows; q++) g[q] = FN(hsum)(s[q][0] + s[q][1]) * inv;
    for (c = 0; c < len; c += W) {
        const V u0 = *(const V *)(u + c);
        for (int q = 0; q < rows; q++) *(V *)(z + q * ld + c) -= g[q] * u0;
    }
}

static void FN(accumulate)(long n, long ld, double *restrict a, const double *restrict h, double *restrict z)
{
    for (long i = 2; i < n; i++)
        for (long c = i; c < (i + W - 1) / W * W; c++) a[i * ld + c] = 0;
    for (long r = 0; r < n; r++) {
        double *row = z + r * ld;
        for (long c = 0; c < ld; c++) row[c] = 0;
        row[r] = 1;
    }
    for (long i0 = 2; i0 < n; i0 += NU) {
        const long i1 = i0 + NU < n ? i0 + NU : n;
        for (long r0 = 0; r0 < i1 - 1; r0 += NR) {
            const long r1 = r0 + NR < n ? r0 + NR : n;
            for (long i = i0 > r0 + 1 ? i0 : r0 + 1; i < i1; i++) {
                if (h[i] == 0)
                    continue;
                const long len = (i + W - 1) / W * W;
                const double *u = a + i * ld, inv = 1 / h[i];
                if (i >= r1 && r1 - r0 == NR)
                    FN(reflect_rows)(NR, z + r0 * ld, ld, u, len, inv);
                else
                    for (long r = r0; r < r1 && r < i; r++) FN(reflect_rows)(1, z + r * ld, ld, u, len, inv);
            }
        }
    }
}
#undef NR
#undef NU

/* sqrt(a^2 + b^2), by libm's hypot where the squares might overflow or
   underflow. */
INLINE double FN(pythag)(double a, double b)
{
    const double r = __builtin_sqrt(a * a + b * b);
    if (r > 0x1p-450 && r < 0x1p450)
        return r;
    return hypot(a, b);
}

/* The implicit QL algorithm with Wilkinson's shift (EISPACK's tql2) on the
   tridiagonal (d, e: e[i] couples i and i+1, e[n-1] = 0): d becomes the
   eigenvalues (unsorted). e[m] is negligible when at most DBL_EPSILON
   (|d[m]| + |d[m+1]|), or below the smallest normal double. Each sweep's
   rotations (c, s) are recorded in `rot` (sweep k of the group at
   rot + 2 (off[k] + hi[k]-1-i) for i = hi[k]-1 down to lo[k]), and the
   sweeps gathered into groups for the wavefront: up to G sweeps, as long as the
   rows they span (L..H) make at most a quarter more rotations than they
   have (the others are identities there). Run as a state machine, a
   rotation at a time (`advance`), so that the next group's (a chain of
   square roots and divisions, latency-bound) can be computed between the
   wavefront's steps applying this one's (throughput-bound). */
struct FN(ql) {
    double *d, *e, *rot;
    long n, l, m, i, budget;
    double g, s, c, p;
    int in_sweep, state;                                  /* QL_READY: the group is complete */
    long count, lo[G + 1], hi[G + 1], off[G + 1], used, useful, L, H;  /* the group */
    long spare, spare_lo;  /* a QL_READY group's next sweep (its length, first index), recorded past it */
};

/* A sweep begins: l past the eigenvalues found, m (the first negligible
   e[m] from l), the shift. */
__attribute__((noinline)) static void FN(ql_start)(struct FN(ql) *q)
{
    double *d = q->d, *e = q->e;
    const long n = q->n;
    for (;;) {
        long m = q->l;
        for (; m < n - 1; m++) {
            const double em = __builtin_fabs(e[m]);
            if (em <= 0x1p-52 * (__builtin_fabs(d[m]) + __builtin_fabs(d[m + 1])) || em < 0x1p-1022)
                break;
        }
        if (m > q->l) {
            q->m = m;
            break;
        }
        if (++q->l == n) {
            q->state = QL_DONE;
            return;
        }
    }
    if (q->budget-- <= 0) {
        q->state = QL_FAILED;
        return;
    }
    const long l = q->l, m = q->m;
    double g = (d[l + 1] - d[l]) / (2 * e[l]);
    const double r = FN(pythag)(g, 1);
    q->g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
    q->s = q->c = 1;
    q->p = 0;
    q->i = m - 1;
    q->in_sweep = 1;
}

/* A sweep ends, its rotations m-1 down to lo recorded (none if lo = m):
   it joins the group, or the group is QL_READY and it waits past it. */
__attribute__((noinline)) static void FN(ql_end)(struct FN(ql) *q, long lo, int underflow)
{
    const long m = q->m, len = m - lo;
    q->in_sweep = 0;
    if (!underflow) {
        q->d[q->l] -= q->p;
        q->e[q->l] = q->g;
        q->e[m] = 0;
    }
    if (len == 0)
        return;
    const long L1 = lo < q->L ? lo : q->L, H1 = m > q->H ? m : q->H;
    if (q->count == G || (q->count && 4 * (H1 - L1) * (q->count + 1) > 5 * (q->useful + len))) {
        q->spare = len;
        q->spare_lo = lo;
        q->state = QL_READY;
        return;
    }
    q->lo[q->count] = lo;
    q->hi[q->count] = m;
    q->off[q->count++] = q->used;
    q->used += len;
    q->useful += len;
    q->L = L1;
    q->H = H1;
}

/* Up to `steps` rotations (or sweeps begun), while QL_RUNNING. The
   sweep's running values (s, c, g, p and the index i) are the caller's
   `x`, which, inlined, keeps them in registers: the chain of rotations
   runs through them. */
struct FN(ql_x) {
    double s, c, g, p;
    long i;
};
INLINE void FN(advance)(struct FN(ql) *q, struct FN(ql_x) *x, long steps)
{
    for (long k = 0; k < steps && q->state == QL_RUNNING; k++) {
        if (!q->in_sweep) {
            FN(ql_start)(q);
            *x = (struct FN(ql_x)){q->s, q->c, q->g, q->p, q->i};
            continue;
        }
        double *d = q->d, *e = q->e;
        const long i = x->i;
        const double f = x->s * e[i], b = x->c * e[i], g = x->g;
        double r = FN(pythag)(f, g);
        e[i + 1] = r;
        if (r == 0) {
            d[i + 1] -= x->p;
            e[q->m] = 0;
            FN(ql_end)(q, i + 1, 1);
            continue;
        }
        const double s = f / r, c = g / r, h = d[i + 1] - x->p;
        r = (d[i] - h) * s + 2 * c * b;
        x->p = s * r;
        d[i + 1] = h + x->p;
        x->g = c * r - b;
        x->s = s;
        x->c = c;
        double *pair = q->rot + 2 * (q->used + q->m - 1 - i);
        pair[0] = c;
        pair[1] = s;
        if ((x->i = i - 1) < q->l) {
            q->p = x->p;
            q->g = x->g;
            FN(ql_end)(q, q->l, 0);
        }
    }
}

/* Up to G QL sweeps' rotations applied to the rows of z (V^T:
   eigenvectors along rows) as one wavefront, one vector of columns at a
   time, all in registers. A group: sweeps k = 0..g-1 in order, sweep k
   rotating rows i and i+1 for i = hi[k]-1 down to lo[k] by (c, s): row i =
   c row i - s row i+1, row i+1 = s row i + c row i+1. Over the group's
   rows L..H (L the least lo, H the largest hi), at step t sweep k takes
   index i = H-1-t+2k, the identity where that is outside its range: its
   rotations two rows behind the sweep before it, so none of a step's share
   a row, each comes after those it must follow, and the rows in flight,
   H-1-t to H-t+2g-2, are 2 g registers (row r in register (H-r) mod 2g,
   so that with the steps unrolled 2 g times the registers are constants).
   Each step loads the row entering (H-1-t; zeros past L) and stores the
   one sweep g-1 is done with (H-t+2g-2); (c, s) of step t, sweep k at
   cs[2 (t g + k)], cs[2 (t g + k) + 1]; `steps` a multiple of 2g, the
   last ones identities. Every STRIDE steps, `quota` rotations of QL's
   next group (q, x: `advance`). */
INLINE void FN(wave)(const int g, long steps, long L, long H, const double *restrict cs, double *restrict z,
                     long ld, long j, struct FN(ql) *q, struct FN(ql_x) *x, long quota)
{
    const int P = 2 * g;
    V band[2 * G];
    for (int k = 0; k < P; k++) band[k] = (V){0};
    band[0] = *(V *)(z + H * ld + j);
    for (long t0 = 0; t0 < steps; t0 += P) {
#pragma GCC unroll 32
        for (int tau = 0; tau < P; tau++) {
            const long t = t0 + tau, in = H - 1 - t, out = H - t + P - 2;
            band[(tau + 1) % P] = in >= L ? *(const V *)(z + in * ld + j) : (V){0};
            const double *pairs = cs + 2 * t * g;
#pragma GCC unroll 16
            for (int k = 0; k < g; k++) {
                const int x = (tau + 1 - 2 * k + 2 * P) % P, y = (tau - 2 * k + 2 * P) % P;
                const V xv = band[x], yv = band[y];
                const double c = pairs[2 * k], s = pairs[2 * k + 1];
                band[x] = c * xv - s * yv;
                band[y] = s * xv + c * yv;
            }
            if (out <= H && out >= L)
                *(V *)(z + out * ld + j) = band[(tau + 2) % P];
            if (tau % STRIDE == STRIDE - 1 || tau == P - 1)
                FN(advance)(q, x, quota);
        }
    }
}

/* QL's eigenvectors: the rows of z (the tridiagonalization's Q^T) rotated
   by every sweep, a group at a time: the group QL produced laid out by
   step into cs (identities where a sweep has no rotation, and for the
   sweeps that make its count up to 1, 2, 4 or G: fewer unrolled
   wavefronts to compile), QL's next group begun (the sweep waiting past
   this one its first), then this one applied by the wavefront, a vector
   of columns at a time, computing the next group as it goes (`quota`
   rotations every STRIDE steps: as many in all as this group has, a guess
   at the next one's), which is then finished. 0, or -1 after
   JAXC_EIGH_SWEEPS n sweeps without converging. Work: rot (2 (G + 1) ld
   doubles), then cs (2 G (n + 4 G)). */
static int FN(ql)(long n, long ld, double *restrict d, double *restrict e, double *restrict z,
                  double *restrict work)
{
    struct FN(ql) q = {.d = d, .e = e, .rot = work, .n = n, .budget = JAXC_EIGH_SWEEPS * n, .L = n};
    struct FN(ql_x) x = {0};
    double *cs = work + 2 * (G + 1) * ld;
    q.state = n > 1 ? QL_RUNNING : QL_DONE;
    for (;;) {
        FN(advance)(&q, &x, LONG_MAX);
        if (q.state == QL_FAILED)
            return -1;
        if (q.count == 0)
            return 0;
        const long count = q.count <= 2 ? q.count : q.count <= 4 ? 4 : G, L = q.L, H = q.H, P = 2 * count;
        const long steps = (H - L + P - 1 + P - 1) / P * P;
        for (long t = 0; t < steps; t++)
            for (long k = 0; k < count; k++) {
                const long i = H - 1 - t + 2 * k;
                double *pair = cs + 2 * (t * count + k);
                if (k < q.count && i >= q.lo[k] && i < q.hi[k]) {
                    pair[0] = q.rot[2 * (q.off[k] + q.hi[k] - 1 - i)];
                    pair[1] = q.rot[2 * (q.off[k] + q.hi[k] - 1 - i) + 1];
                } else {
                    pair[0] = 1;
                    pair[1] = 0;
                }
            }
        const long calls = (ld / W) * (steps / P) * ((P + STRIDE - 1) / STRIDE),
                   quota = (q.useful + calls - 1) / calls;
        if (q.state == QL_READY) {
            memmove(q.rot, q.rot + 2 * q.used, sizeof(double) * 2 * (size_t)q.spare);
            q.lo[0] = q.L = q.spare_lo;
            q.hi[0] = q.H = q.spare_lo + q.spare;
            q.off[0] = 0;
            q.count = 1;
            q.used = q.useful = q.spare;
            q.state = QL_RUNNING;
        } else {
            q.count = q.used = q.useful = 0;
        }
        for (long j = 0; j < ld; j += W) {
            switch (count) {
#define CASE(g)                                                                                                \
    case g:                                                                                                    \
        FN(wave)(g, steps, L, H, cs, z, ld, j, &q, &x, quota);                                                 \
        break;
                CASE(1)
                CASE(2)
                CASE(4)
#if G > 4
                CASE(G)
#endif
#undef CASE
            }
        }
    }
}

/* The eigenvalues of the n x n symmetric matrix whose lower triangle is
   a's (destroyed) into w (unsorted) and its eigenvectors into the rows of
   z (n x ld): 0, or -1 if QL did not converge. Work: 36 ld + 512 doubles
   (eigh.c's WORK_VECTORS less w). */
static int FN(decompose)(long n, long ld, double *restrict a, double *restrict z, double *restrict w,
                         double *restrict work)
{
    double *e = work, *h = work + ld, *rest = work + 2 * ld;
    FN(tridiagonalize)(n, ld, a, w, e, h, rest);
    FN(accumulate)(n, ld, a, h, z);
    for (long i = 0; i + 1 < n; i++) e[i] = e[i + 1];
    e[n - 1] = 0;
    return FN(ql)(n, ld, w, e, z, rest);
}

#undef INLINE
#undef UV
#undef V
#undef FN
#undef CAT
#undef CAT_
