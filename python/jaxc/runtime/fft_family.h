/* One family of fft.c: the transform of blocks of W columns for one element
   type T on one instruction set. fft.c includes this file once per family,
   inside a `#pragma GCC target` region, defining T, W (lanes of one vector
   register: 64, 32 or 16 bytes) and SUFFIX (names).

   A block lives in a work buffer of `C`s, one per point: its real and
   imaginary parts as two vectors whose lanes are the block's columns, so
   that every operation of the transform is one vector operation for W
   columns at once. */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define VU FN(vu)
#define C FN(c)
#define INLINE static inline __attribute__((always_inline))

typedef T V __attribute__((vector_size(W * sizeof(T))));
typedef T VU __attribute__((vector_size(W * sizeof(T)), aligned(sizeof(T))));
typedef struct {
    V re, im;
} C;

/* z *= (wr + i wi) */
#define CMUL(z, wr, wi)                                   \
    do {                                                  \
        V re_ = (z).re * (wr) - (z).im * (wi);            \
        (z).im = (z).re * (wi) + (z).im * (wr);           \
        (z).re = re_;                                     \
    } while (0)

/* ---------------------------------------------------------------- stages */

/* One Stockham stage of radix p on sub-length L = p m, stride s (decimation
   in frequency): for k < m, q < s, the p points in[q + s (k + t m)] (t < p)
   give out[q + s (p k + u)] = w_L^(k u) sum_t a_t w_p^(t u) (u < p), with
   w_L = exp(-2 pi i / L). The twiddles w_L^(k u), u = 1 .. p-1, are the
   stage's table row k; row 0 is 1 and skipped (`twiddle` 0). */

INLINE void FN(radix2_column)(const C *restrict a, C *restrict b, long s, long sm, const T *w, int twiddle)
{
    for (long q = 0; q < s; q++) {
        C a0 = a[q], a1 = a[q + sm];
        C b0 = {a0.re + a1.re, a0.im + a1.im}, b1 = {a0.re - a1.re, a0.im - a1.im};
        if (twiddle)
            CMUL(b1, w[0], w[1]);
        b[q] = b0;
        b[q + s] = b1;
    }
}

static void FN(radix2)(const struct stage *st, const C *restrict in, C *restrict out)
{
    const long m = st->m, s = st->s;
    const T *tw = st->twiddles;
    FN(radix2_column)(in, out, s, s * m, tw, 0);
    for (long k = 1; k < m; k++) FN(radix2_column)(in + s * k, out + 2 * s * k, s, s * m, tw + 2 * k, 1);
}

/* b_u = sum_t a_t w_4^(t u) in place, w_4 = -i: no multiplications. */
INLINE void FN(dft4)(C *a0, C *a1, C *a2, C *a3)
{
    C t0 = {a0->re + a2->re, a0->im + a2->im}, t1 = {a0->re - a2->re, a0->im - a2->im};
    C t2 = {a1->re + a3->re, a1->im + a3->im}, t3 = {a1->re - a3->re, a1->im - a3->im};
    *a0 = (C){t0.re + t2.re, t0.im + t2.im};
    *a2 = (C){t0.re - t2.re, t0.im - t2.im};
    *a1 = (C){t1.re + t3.im, t1.im - t3.re};  /* t1 - i t3 */
    *a3 = (C){t1.re - t3.im, t1.im + t3.re};  /* t1 + i t3 */
}

INLINE void FN(radix4_column)(const C *restrict a, C *restrict b, long s, long sm, const T *w, int twiddle)
{
    for (long q = 0; q < s; q++) {
        C x0 = a[q], x1 = a[q + sm], x2 = a[q + 2 * sm], x3 = a[q + 3 * sm];
        FN(dft4)(&x0, &x1, &x2, &x3);
        if (twiddle) {
            CMUL(x1, w[0], w[1]);
            CMUL(x2, w[2], w[3]);
            CMUL(x3, w[4], w[5]);
        }
        b[q] = x0;
        b[q + s] = x1;
        b[q + 2 * s] = x2;
        b[q + 3 * s] = x3;
    }
}

static void FN(radix4)(const struct stage *st, const C *restrict in, C *restrict out)
{
    const long m = st->m, s = st->s;
    const T *tw = st->twiddles;
    FN(radix4_column)(in, out, s, s * m, tw, 0);
    for (long k = 1; k < m; k++) FN(radix4_column)(in + s * k, out + 4 * s * k, s, s * m, tw + 6 * k, 1);
}

/* Radix 8 (fewer passes over the block than radix 4; 16 vectors of data
   fit AVX-512's registers): with w_8 = (1 - i) / sqrt 2, the even outputs
   are the 4-point transform of a_t + a_(t+4), the odd ones that of
   (a_t - a_(t+4)) w_8^t. */
INLINE void FN(radix8_column)(const C *restrict a, C *restrict b, long s, long sm, const T *w, int twiddle)
{
    const T h = (T)0.70710678118654752440;  /* 1 / sqrt 2 */
    for (long q = 0; q < s; q++) {
        C x[8];
#pragma GCC unroll 8
        for (int t = 0; t < 8; t++) x[t] = a[q + t * sm];
        C e[4], o[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) {
            e[t] = (C){x[t].re + x[t + 4].re, x[t].im + x[t + 4].im};
            o[t] = (C){x[t].re - x[t + 4].re, x[t].im - x[t + 4].im};
        }
        o[1] = (C){(o[1].re + o[1].im) * h, (o[1].im - o[1].re) * h};  /* w_8 */
        o[2] = (C){o[2].im, -o[2].re};                                  /* w_8^2 = -i */
        o[3] = (C){(o[3].im - o[3].re) * h, -(o[3].re + o[3].im) * h}; /* w_8^3 = -(1 + i) / sqrt 2 */
        FN(dft4)(&e[0], &e[1], &e[2], &e[3]);
        FN(dft4)(&o[0], &o[1], &o[2], &o[3]);
        C out[8];
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) {
            out[2 * v] = e[v];
            out[2 * v + 1] = o[v];
        }
        b[q] = out[0];
#pragma GCC unroll 8
        for (int u = 1; u < 8; u++) {
            if (twiddle)
                CMUL(out[u], w[2 * (u - 1)], w[2 * (u - 1) + 1]);
            b[q + u * s] = out[u];
        }
    }
}

static void FN(radix8)(const struct stage *st, const C *restrict in, C *restrict out)
{
    const long m = st->m, s = st->s;
    const T *tw = st->twiddles;
    FN(radix8_column)(in, out, s, s * m, tw, 0);
    for (long k = 1; k < m; k++) FN(radix8_column)(in + s * k, out + 8 * s * k, s, s * m, tw + 14 * k, 1);
}

/* An odd prime radix p <= MAX_ODD_RADIX, O(p^2): with S_t = a_t + a_(p-t),
   D_t = a_t - a_(p-t) (t = 1 .. h = (p-1)/2),
   A_u = a_0 + sum_t S_t cos(2 pi t u / p), B_u = sum_t D_t sin(2 pi t u / p),
   b_u = A_u - i B_u and b_(p-u) = A_u + i B_u. `roots` holds cos and sin of
   2 pi r / p, r < p. Inlined with a constant p for 3, 5 and 7 (unrolled);
   11 and 13 run the same code with p a variable (smaller and rare). Row
   k = 0 of the twiddles is exactly 1 and multiplies nothing. */
INLINE void FN(odd_column)(const int p, const C *restrict a, C *restrict b, long s, long sm,
                           const T *restrict roots, const T *w)
{
    const int h = (p - 1) / 2;
    for (long q = 0; q < s; q++) {
        C x[MAX_ODD_RADIX], sum[MAX_ODD_RADIX / 2 + 1], dif[MAX_ODD_RADIX / 2 + 1], out[MAX_ODD_RADIX];
#pragma GCC unroll 8
        for (int t = 0; t < p; t++) x[t] = a[q + t * sm];
        C b0 = x[0];
#pragma GCC unroll 4
        for (int t = 1; t <= h; t++) {
            sum[t].re = x[t].re + x[p - t].re;
            sum[t].im = x[t].im + x[p - t].im;
            dif[t].re = x[t].re - x[p - t].re;
            dif[t].im = x[t].im - x[p - t].im;
            b0.re += sum[t].re;
            b0.im += sum[t].im;
        }
        out[0] = b0;
#pragma GCC unroll 4
        for (int u = 1; u <= h; u++) {
            C A = x[0], B = {{0}, {0}};
#pragma GCC unroll 4
            for (int t = 1, r = u; t <= h; t++, r = r + u < p ? r + u : r + u - p) {  /* r = t u mod p */
                A.re += sum[t].re * roots[2 * r];
                A.im += sum[t].im * roots[2 * r];
                B.re += dif[t].re * roots[2 * r + 1];
                B.im += dif[t].im * roots[2 * r + 1];
            }
            out[u].re = A.re + B.im;
            out[u].im = A.im - B.re;
            out[p - u].re = A.re - B.im;
            out[p - u].im = A.im + B.re;
        }
        b[q] = out[0];
#pragma GCC unroll 8
        for (int u = 1; u < p; u++) {
            CMUL(out[u], w[2 * (u - 1)], w[2 * (u - 1) + 1]);
            b[q + u * s] = out[u];
        }
    }
}

#define ODD_STAGE(name, p)                                                                              \
    static void FN(name)(const int p_, const struct stage *st, const C *restrict in, C *restrict out)   \
    {                                                                                                   \
        const long m = st->m, s = st->s;                                                                \
        (void)p_;                                                                                       \
        const T *tw = st->twiddles, *roots = st->roots;                                                 \
        for (long k = 0; k < m; k++)                                                                    \
            FN(odd_column)(p, in + s * k, out + p * s * k, s, s * m, roots, tw + 2 * (p - 1) * k);      \
    }
ODD_STAGE(radix3, 3)
ODD_STAGE(radix5, 5)
ODD_STAGE(radix7, 7)
ODD_STAGE(radix_odd, p_)
#undef ODD_STAGE

/* The plan's stages on the block in `a`, ping-ponging with `b`; returns the
   buffer that holds the transform. */
static C *FN(stockham)(const struct plan *plan, C *a, C *b)
{
    for (int i = 0; i < plan->stage_count; i++) {
        const struct stage *st = &plan->stage[i];
        switch (st->p) {
        case 2: FN(radix2)(st, a, b); break;
        case 3: FN(radix3)(3, st, a, b); break;
        case 4: FN(radix4)(st, a, b); break;
        case 8: FN(radix8)(st, a, b); break;
        case 5: FN(radix5)(5, st, a, b); break;
        case 7: FN(radix7)(7, st, a, b); break;
        default: FN(radix_odd)(st->p, st, a, b); break;
        }
        C *t = a;
        a = b;
        b = t;
    }
    return a;
}

/* Bluestein (n with a prime factor above MAX_ODD_RADIX): with the chirp
   c_j = exp(-i pi j^2 / n), X_k = c_k sum_j (x_j c_j) conj(c_(k-j)), a
   cyclic convolution of length M (a power of two >= 2n - 1) with the
   plan's kernel K = FFT_M(conj(c)) / M: A = FFT_M(x c), the inverse
   transform of A K as conj(FFT_M(conj(A K))), times c. `a` holds x
   (n points) and has room for M; returns the buffer that holds X. */
static C *FN(bluestein)(const struct plan *plan, C *a, C *b)
{
    const long n = plan->n, M = plan->inner->n;
    const T *chirp = plan->chirp, *kernel = plan->kernel;
    for (long j = 0; j < n; j++) CMUL(a[j], chirp[2 * j], chirp[2 * j + 1]);
    for (long j = n; j < M; j++) a[j] = (C){{0}, {0}};
    C *r = FN(stockham)(plan->inner, a, b);
    for (long k = 0; k < M; k++) {
        CMUL(r[k], kernel[2 * k], kernel[2 * k + 1]);
        r[k].im = -r[k].im;
    }
    C *out = FN(stockham)(plan->inner, r, r == a ? b : a);
    for (long k = 0; k < n; k++) {
        out[k].im = -out[k].im;
        CMUL(out[k], chirp[2 * k], chirp[2 * k + 1]);
    }
    return out;
}

/* ------------------------------------------------------ gather / scatter */

#if W == 16
#define LO8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define HI8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define LO4 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define HI4 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define LO2 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define HI2 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define LO1 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define HI1 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#elif W == 8
#define LO4 0, 1, 2, 3, 8, 9, 10, 11
#define HI4 4, 5, 6, 7, 12, 13, 14, 15
#define LO2 0, 1, 8, 9, 4, 5, 12, 13
#define HI2 2, 3, 10, 11, 6, 7, 14, 15
#define LO1 0, 8, 2, 10, 4, 12, 6, 14
#define HI1 1, 9, 3, 11, 5, 13, 7, 15
#elif W == 4
#define LO2 0, 1, 4, 5
#define HI2 2, 3, 6, 7
#define LO1 0, 4, 2, 6
#define HI1 1, 5, 3, 7
#elif W == 2
#define LO1 0, 2
#define HI1 1, 3
#endif
/* r[i][l] becomes r[l][i]: at each level h, rows i and i + h (bit h of i
   clear) swap the off-diagonal h x h blocks of their 2h x 2h block. */
#define LEVEL(h)                                                                  \
    _Pragma("GCC unroll 16") for (int i = 0; i < W; i++) if (!(i & h))            \
    {                                                                             \
        V lo = r[i], hi = r[i + h];                                               \
        r[i] = __builtin_shufflevector(lo, hi, LO##h);                            \
        r[i + h] = __builtin_shufflevector(lo, hi, HI##h);                        \
    }
INLINE void FN(transpose)(V *r)
{
#if W >= 16
    LEVEL(8)
#endif
#if W >= 8
    LEVEL(4)
#endif
#if W >= 4
    LEVEL(2)
#endif
    LEVEL(1)
}
#undef LEVEL
#undef LO8
#undef HI8
#undef LO4
#undef HI4
#undef LO2
#undef HI2
#undef LO1
#undef HI1

/* One plane of the block (every other vector of `dst`, from dst[0]) from
   `lanes` columns of x (stride xcs) of n points (stride xs); lanes beyond
   `lanes` are zero. */
static void FN(load_plane)(long n, long lanes, const T *restrict x, long xcs, long xs, V *restrict dst)
{
    if (xcs == 1 && lanes == W) {  /* the columns side by side: one vector per point */
        for (long j = 0; j < n; j++) dst[2 * j] = *(const VU *)(x + j * xs);
        return;
    }
    long j0 = 0;
    if (xs == 1) {  /* the points of a column side by side: W x W tiles */
        for (; j0 + W <= n; j0 += W) {
            V r[W];
#pragma GCC unroll 16
            for (int l = 0; l < W; l++) r[l] = l < lanes ? *(const VU *)(x + l * xcs + j0) : (V){0};
            FN(transpose)(r);
#pragma GCC unroll 16
            for (int i = 0; i < W; i++) dst[2 * (j0 + i)] = r[i];
        }
    }
    T *d = (T *)dst;
    if (lanes < W)
        for (long j = j0; j < n; j++) dst[2 * j] = (V){0};
    if (xcs < xs) {
        for (long j = j0; j < n; j++)
            for (long l = 0; l < lanes; l++) d[2 * W * j + l] = x[l * xcs + j * xs];
    } else {
        for (long l = 0; l < lanes; l++)
            for (long j = j0; j < n; j++) d[2 * W * j + l] = x[l * xcs + j * xs];
    }
}

/* The inverse of load_plane, times `scale`: only the first `lanes` lanes
   are stored. */
static void FN(store_plane)(long n, long lanes, const V *restrict src, T *restrict y, long ycs, long ys, T scale)
{
    if (ycs == 1 && lanes == W) {
        for (long k = 0; k < n; k++) *(VU *)(y + k * ys) = src[2 * k] * scale;
        return;
    }
    long k0 = 0;
    if (ys == 1) {
        for (; k0 + W <= n; k0 += W) {
            V r[W];
#pragma GCC unroll 16
            for (int i = 0; i < W; i++) r[i] = src[2 * (k0 + i)] * scale;
            FN(transpose)(r);
#pragma GCC unroll 16
            for (int l = 0; l < W; l++)
                if (l < lanes)
                    *(VU *)(y + l * ycs + k0) = r[l];
        }
    }
    const T *d = (const T *)src;
    if (ycs < ys) {
        for (long k = k0; k < n; k++)
            for (long l = 0; l < lanes; l++) y[l * ycs + k * ys] = d[2 * W * k + l] * scale;
    } else {
        for (long l = 0; l < lanes; l++)
            for (long k = k0; k < n; k++) y[l * ycs + k * ys] = d[2 * W * k + l] * scale;
    }
}

/* Complex elements where they are (parts interleaved: part stride 1, the
   points 2 apart): W points of a column are two vectors, split into their
   real and imaginary parts, then transposed as load_plane's tiles. */
#if W == 16
#define EVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define ZIPLO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define ZIPHI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#elif W == 8
#define EVEN 0, 2, 4, 6, 8, 10, 12, 14
#define ODD 1, 3, 5, 7, 9, 11, 13, 15
#define ZIPLO 0, 8, 1, 9, 2, 10, 3, 11
#define ZIPHI 4, 12, 5, 13, 6, 14, 7, 15
#elif W == 4
#define EVEN 0, 2, 4, 6
#define ODD 1, 3, 5, 7
#define ZIPLO 0, 4, 1, 5
#define ZIPHI 2, 6, 3, 7
#elif W == 2
#define EVEN 0, 2
#define ODD 1, 3
#define ZIPLO 0, 2
#define ZIPHI 1, 3
#endif

/* Both planes of the block (real into dst[2j + re], imaginary into
   dst[2j + im]) from `lanes` columns (stride xcs) of n interleaved complex
   points; lanes beyond `lanes` are zero. */
static void FN(load_interleaved)(long n, long lanes, const T *restrict x, long xcs, V *restrict dst, int re,
                                 int im)
{
    long j0 = 0;
    for (; j0 + W <= n; j0 += W) {
        V r[W], i_[W];
#pragma GCC unroll 16
        for (int l = 0; l < W; l++) {
            if (l < lanes) {
                V lo = *(const VU *)(x + l * xcs + 2 * j0), hi = *(const VU *)(x + l * xcs + 2 * j0 + W);
                r[l] = __builtin_shufflevector(lo, hi, EVEN);
                i_[l] = __builtin_shufflevector(lo, hi, ODD);
            } else {
                r[l] = i_[l] = (V){0};
            }
        }
        FN(transpose)(r);
        FN(transpose)(i_);
#pragma GCC unroll 16
        for (int j = 0; j < W; j++) {
            dst[2 * (j0 + j) + re] = r[j];
            dst[2 * (j0 + j) + im] = i_[j];
        }
    }
    for (long j = j0; j < n; j++) {
        V r = {0}, i_ = {0};
        for (long l = 0; l < lanes; l++) {
            r[l] = x[l * xcs + 2 * j];
            i_[l] = x[l * xcs + 2 * j + 1];
        }
        dst[2 * j + re] = r;
        dst[2 * j + im] = i_;
    }
}

/* The inverse of load_interleaved, times `scale`: only the first `lanes`
   lanes are stored. */
static void FN(store_interleaved)(long n, long lanes, const V *restrict src, int re, int im, T *restrict y,
                                  long ycs, T scale)
{
    long k0 = 0;
    for (; k0 + W <= n; k0 += W) {
        V r[W], i_[W];
#pragma GCC unroll 16
        for (int k = 0; k < W; k++) {
            r[k] = src[2 * (k0 + k) + re] * scale;
            i_[k] = src[2 * (k0 + k) + im] * scale;
        }
        FN(transpose)(r);
        FN(transpose)(i_);
#pragma GCC unroll 16
        for (int l = 0; l < W; l++)
            if (l < lanes) {
                *(VU *)(y + l * ycs + 2 * k0) = __builtin_shufflevector(r[l], i_[l], ZIPLO);
                *(VU *)(y + l * ycs + 2 * k0 + W) = __builtin_shufflevector(r[l], i_[l], ZIPHI);
            }
    }
    for (long k = k0; k < n; k++) {
        V r = src[2 * k + re] * scale, i_ = src[2 * k + im] * scale;
        for (long l = 0; l < lanes; l++) {
            y[l * ycs + 2 * k] = r[l];
            y[l * ycs + 2 * k + 1] = i_[l];
        }
    }
}
#undef EVEN
#undef ODD
#undef ZIPLO
#undef ZIPHI

/* The two real transforms of a block that held x1 + i x2 (x1, x2 real
   columns): with Z its transform (planes re, im) and Z' the point n - k,
       X1 = (Z + conj(Z')) / 2,   X2 = (Z - conj(Z')) / (2i),
   twice: x1's into `x1` and x2's over `z`, pair by pair (k, n - k), in
   place. The halves are left to the store's scale. */
static void FN(separate)(long n, V *restrict z, V *restrict x1, int re, int im)
{
    for (long k = 0; k <= n / 2; k++) {
        const long kk = k ? n - k : 0;
        const V zr = z[2 * k + re], zi = z[2 * k + im], nr = z[2 * kk + re], ni = z[2 * kk + im];
        x1[2 * k + re] = zr + nr;
        x1[2 * k + im] = zi - ni;
        x1[2 * kk + re] = zr + nr;
        x1[2 * kk + im] = ni - zi;
        z[2 * k + re] = zi + ni;
        z[2 * k + im] = nr - zr;
        z[2 * kk + re] = zi + ni;
        z[2 * kk + im] = zr - nr;
    }
}

/* `lanes` complex columns of x (n points) into the block's planes re, im. */
INLINE void FN(load)(long n, long lanes, const T *x, long xps, long xcs, long xs, V *dst, int re, int im)
{
    if (xps == 1 && xs == 2) {  /* complex elements in place */
        FN(load_interleaved)(n, lanes, x, xcs, dst, re, im);
    } else {
        FN(load_plane)(n, lanes, x, xcs, xs, dst + re);
        FN(load_plane)(n, lanes, x + xps, xcs, xs, dst + im);
    }
}

/* The block's transform (planes re, im of `r`) into `lanes` columns of y. */
INLINE void FN(store)(long n, long lanes, const V *r, int re, int im, T *y, long yps, long ycs, long ys, T scale)
{
    if (yps == 1 && ys == 2) {
        FN(store_interleaved)(n, lanes, r, re, im, y, ycs, scale);
    } else {
        FN(store_plane)(n, lanes, r + re, y, ycs, ys, scale);
        FN(store_plane)(n, lanes, r + im, y + yps, ycs, ys, scale);
    }
}

/* The transform in blocks of W columns through the work buffers; the
   first `outputs` points of each are stored. An inverse transform (sign
   +1) is the forward one with real and imaginary parts exchanged on the
   way in and out. A real input takes two blocks at once, the second as
   the imaginary parts (`separate`): half the FFTs.
   Returns 0, or -1 when there is no memory for the work buffers. */
static int FN(dft)(const struct plan *plan, long outputs, long columns, long parts, const T *x, long xps, long xcs,
                   long xs, T *y, long yps, long ycs, long ys, int inverse, T scale)
{
    const long n = plan->n, length = plan->inner ? plan->inner->n : n;
    C *a = jaxc_scratch(JAXC_SCRATCH_FFT, 2 * (size_t)length * sizeof(C));
    if (!a)
        return -1;
    C *b = a + length;
    const int re = inverse, im = !inverse;  /* the buffer's planes of x's parts */
    for (long c0 = 0; c0 < columns;) {
        const long lanes = columns - c0 < W ? columns - c0 : W;
        const long paired = parts == 1 && columns - c0 > W ? (columns - c0 - W < W ? columns - c0 - W : W) : 0;
        if (parts == 2) {
            FN(load)(n, lanes, x + c0 * xcs, xps, xcs, xs, (V *)a, re, im);
        } else {
            FN(load_plane)(n, lanes, x + c0 * xcs, xcs, xs, (V *)a + re);
            if (paired)
                FN(load_plane)(n, paired, x + (c0 + W) * xcs, xcs, xs, (V *)a + im);
            else
                for (long j = 0; j < n; j++) ((V *)a)[2 * j + im] = (V){0};
        }
        C *r = plan->inner ? FN(bluestein)(plan, a, b) : FN(stockham)(plan, a, b);
        if (paired) {
            C *first = r == a ? b : a;
            FN(separate)(n, (V *)r, (V *)first, re, im);
            FN(store)(outputs, W, (const V *)first, re, im, y + c0 * ycs, yps, ycs, ys, scale / 2);
            FN(store)(outputs, paired, (const V *)r, re, im, y + (c0 + W) * ycs, yps, ycs, ys, scale / 2);
        } else {
            FN(store)(outputs, lanes, (const V *)r, re, im, y + c0 * ycs, yps, ycs, ys, scale);
        }
        c0 += lanes + paired;
    }
    return 0;
}

/* Hermitian columns, their first m = n/2 + 1 points in the planes of `a`
   (X1) and, when paired, `b` (X2), become Z = X1 + i X2 over all n points
   in `a`: the upper points are the conjugates mirrored, and the imaginary
   parts of the points 0 and n/2 (n even) do not count. Z's transform is
   y1 + i y2, both real. */
static void FN(hermitian_fill)(long n, V *restrict a, const V *restrict b, int re, int im)
{
    const long m = n / 2 + 1;
    const V zero = {0};
    for (long j = 0; j < m; j++) {
        const int real_point = j == 0 || 2 * j == n;
        const V x1r = a[2 * j + re], x1i = real_point ? zero : a[2 * j + im];
        const V x2r = b ? b[2 * j + re] : zero, x2i = b && !real_point ? b[2 * j + im] : zero;
        a[2 * j + re] = x1r - x2i;
        a[2 * j + im] = x1i + x2r;
        if (j >= 1 && n - j >= m) {
            a[2 * (n - j) + re] = x1r + x2i;
            a[2 * (n - j) + im] = x2r - x1i;
        }
    }
}

/* fft.c's Hermitian entry (after the plan): complex columns of n/2 + 1
   points (the first half of Hermitian sequences) to real columns of n,
   two blocks of columns per transform (`hermitian_fill`), the first's
   results in the real plane, the second's in the imaginary one.
   Returns 0, or -1 when there is no memory for the work buffers. */
static int FN(hermitian)(const struct plan *plan, long columns, const T *x, long xps, long xcs, long xs, T *y,
                         long ycs, long ys, int inverse, T scale)
{
    const long n = plan->n, m = n / 2 + 1, length = plan->inner ? plan->inner->n : n;
    C *a = jaxc_scratch(JAXC_SCRATCH_FFT, 2 * (size_t)length * sizeof(C));
    if (!a)
        return -1;
    C *b = a + length;
    const int re = inverse, im = !inverse;
    for (long c0 = 0; c0 < columns;) {
        const long lanes = columns - c0 < W ? columns - c0 : W;
        const long paired = columns - c0 > W ? (columns - c0 - W < W ? columns - c0 - W : W) : 0;
        FN(load)(m, lanes, x + c0 * xcs, xps, xcs, xs, (V *)a, re, im);
        if (paired)
            FN(load)(m, paired, x + (c0 + W) * xcs, xps, xcs, xs, (V *)b, re, im);
        FN(hermitian_fill)(n, (V *)a, paired ? (const V *)b : NULL, re, im);
        const C *r = plan->inner ? FN(bluestein)(plan, a, b) : FN(stockham)(plan, a, b);
        FN(store_plane)(n, lanes, (const V *)r + re, y + c0 * ycs, ycs, ys, scale);
        if (paired)
            FN(store_plane)(n, paired, (const V *)r + im, y + (c0 + W) * ycs, ycs, ys, scale);
        c0 += lanes + paired;
    }
    return 0;
}

/* A few long columns (n = n1 n2; the plan's split): per column,
       X[k1 + n1 k2] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 x[j1 n2 + j2] w_n1^(j1 k1),
   the inner sums as n2 columns of n1 points (into t, 2 planes of n2 x n1),
   the twiddles, the outer sums as n1 columns of n2 points: (nearly) every
   lane of every block busy. An inverse transform's twiddles are conjugate. */
static int FN(split)(const struct plan *plan, long columns, long parts, const T *x, long xps, long xcs, long xs,
                     T *y, long yps, long ycs, long ys, int inverse, T scale)
{
    const long n = plan->n, n2 = plan->split_inner->n, n1 = n / n2;
    T *restrict t = jaxc_scratch(JAXC_SCRATCH_FFT_SPLIT, 2 * (size_t)n * sizeof(T));
    if (!t)
        return -1;
    const T *restrict tw = plan->split_twiddles;
    const T conj = inverse ? -1 : 1;
    for (long c = 0; c < columns; c++) {
        if (FN(dft)(plan->split_outer, n1, n2, parts, x + c * xcs, xps, xs, n2 * xs, t, n, n1, 1, inverse, 1))
            return -1;
        for (long i = 0; i < n; i++) {
            const T re = t[i], im = t[n + i], wr = tw[2 * i], wi = conj * tw[2 * i + 1];
            t[i] = re * wr - im * wi;
            t[n + i] = re * wi + im * wr;
        }
        if (FN(dft)(plan->split_inner, n2, n1, 2, t, n, 1, n1, y + c * ycs, yps, ys, n1 * ys, inverse, scale))
            return -1;
    }
    return 0;
}

/* Bluestein a column at a time, for a few columns or long ones (the plan's
   FFT of M points has a split): the sequences of the convolution as two
   planes of M points each, a and b, their FFTs split. */
static int FN(bluestein_columns)(const struct plan *plan, long outputs, long columns, long parts, const T *x,
                                 long xps, long xcs, long xs, T *y, long yps, long ycs, long ys, int inverse, T scale)
{
    const long n = plan->n, M = plan->inner->n;
    T *restrict a = jaxc_scratch(JAXC_SCRATCH_FFT_BLUESTEIN, 4 * (size_t)M * sizeof(T));
    if (!a)
        return -1;
    T *restrict b = a + 2 * M;
    const T *restrict chirp = plan->chirp, *restrict kernel = plan->kernel;
    for (long c = 0; c < columns; c++) {
        const T *xr = x + c * xcs, *xi = x + xps + c * xcs;
        for (long j = 0; j < n; j++) {  /* x c, real and imaginary parts exchanged for the inverse */
            const T u = xr[j * xs], v = parts == 2 ? xi[j * xs] : 0;
            const T re = inverse ? v : u, im = inverse ? u : v;
            a[j] = re * chirp[2 * j] - im * chirp[2 * j + 1];
            a[M + j] = re * chirp[2 * j + 1] + im * chirp[2 * j];
        }
        for (long j = n; j < M; j++) a[j] = a[M + j] = 0;
        if (FN(split)(plan->inner, 1, 2, a, M, 0, 1, b, M, 0, 1, 0, 1))
            return -1;
        for (long k = 0; k < M; k++) {  /* conj(A K) */
            const T re = b[k], im = b[M + k];
            a[k] = re * kernel[2 * k] - im * kernel[2 * k + 1];
            a[M + k] = -(re * kernel[2 * k + 1] + im * kernel[2 * k]);
        }
        if (FN(split)(plan->inner, 1, 2, a, M, 0, 1, b, M, 0, 1, 0, 1))
            return -1;
        T *yr = y + c * ycs, *yi = y + yps + c * ycs;
        for (long k = 0; k < outputs; k++) {  /* c conj(B), scaled */
            const T re = b[k], im = -b[M + k];
            const T u = scale * (re * chirp[2 * k] - im * chirp[2 * k + 1]);
            const T v = scale * (re * chirp[2 * k + 1] + im * chirp[2 * k]);
            yr[k * ys] = inverse ? v : u;
            yi[k * ys] = inverse ? u : v;
        }
    }
    return 0;
}

/* Whether a transform by `plan` of `columns` columns goes through its
   split: for fewer columns than half a block, or for long contiguous ones
   whose block's work buffers would not fit the cache (SPLIT_BYTES) and
   whose split keeps at least half the lanes busy. */
INLINE int FN(splits)(const struct plan *plan, long columns, int contiguous)
{
    return plan->split_outer &&
           (2 * columns < W || (contiguous && 2 * plan->n * sizeof(C) > SPLIT_BYTES && 2 * plan->split_inner->n >= W));
}

/* fft.c's entry (after the plan): the split (which writes every point)
   or blocks of columns; Bluestein's FFTs likewise. */
static int FN(transform)(const struct plan *plan, long outputs, long columns, long parts, const T *x, long xps,
                         long xcs, long xs, T *y, long yps, long ycs, long ys, int inverse, T scale)
{
    if (plan->inner && FN(splits)(plan->inner, columns, 1))
        return FN(bluestein_columns)(plan, outputs, columns, parts, x, xps, xcs, xs, y, yps, ycs, ys, inverse,
                                     scale);
    if (outputs == plan->n && FN(splits)(plan, columns, xs == 1 && ys == 1))
        return FN(split)(plan, columns, parts, x, xps, xcs, xs, y, yps, ycs, ys, inverse, scale);
    return FN(dft)(plan, outputs, columns, parts, x, xps, xcs, xs, y, yps, ycs, ys, inverse, scale);
}

#undef CMUL
#undef INLINE
#undef C
#undef VU
#undef V
#undef FN
#undef CAT
#undef CAT_
