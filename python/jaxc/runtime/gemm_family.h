/* One family of gemm.c: the packed product for one element type T on one
   instruction set. gemm.c includes this file once per family, defining
   T, SUFFIX (names), TARGET (the function attribute), W (lanes of a vector),
   MR x NRV (register tile: MR rows of A times NRV vectors of B), the
   cache tiles KC, MC, NC, SUPPORTED (whether this CPU has TARGET) and
   FALLBACK (the gemm function of the family below). */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define NR (NRV * W)

typedef T FN(vec) __attribute__((vector_size(W * sizeof(T)), aligned(W * sizeof(T))));
typedef T FN(unaligned) __attribute__((vector_size(W * sizeof(T)), aligned(sizeof(T))));

/* The register tile: acc (MR x NR) = sum over p < kc of a[p][:] (x) b[p][:]
   (a: kc steps of MR elements, b: kc steps of NR, both packed), then
   C += acc, or C = acc when `overwrite`, on the mr x nr corner of the tile
   that lies inside C. */
static __attribute__((target(TARGET), noinline)) void
FN(micro)(long kc, const T *restrict a, const T *restrict b, T *restrict c, long rsc, long csc,
          long mr, long nr, int overwrite)
{
    FN(vec) acc[MR][NRV];
#pragma GCC unroll 32
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
        for (int j = 0; j < NRV; j++) acc[i][j] = (FN(vec)){0};
    for (long p = 0; p < kc; p++) {
        FN(vec) bv[NRV];
#pragma GCC unroll 8
        for (int j = 0; j < NRV; j++) bv[j] = ((const FN(vec) *)b)[j];
#pragma GCC unroll 32
        for (int i = 0; i < MR; i++) {
            T ai = a[i];  /* broadcast: one vbroadcastss, MR x NRV multiply-adds per step */
#pragma GCC unroll 8
            for (int j = 0; j < NRV; j++) acc[i][j] += ai * bv[j];
        }
        a += MR;
        b += NR;
    }
    if (mr == MR && nr == NR && csc == 1) {
#pragma GCC unroll 32
        for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
            for (int j = 0; j < NRV; j++) {
                FN(unaligned) *row = (FN(unaligned) *)(c + i * rsc + j * W);
                *row = overwrite ? acc[i][j] : *row + acc[i][j];
            }
        return;
    }
    T tile[MR * NR] __attribute__((aligned(64)));
#pragma GCC unroll 32
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
        for (int j = 0; j < NRV; j++) *(FN(vec) *)(tile + i * NR + j * W) = acc[i][j];
    for (long i = 0; i < mr; i++)
        for (long j = 0; j < nr; j++) {
            T *out = c + i * rsc + j * csc;
            *out = overwrite ? tile[i * NR + j] : *out + tile[i * NR + j];
        }
}

/* B[0:kc, 0:nc] (strides rsb, csb) as NR-wide panels, each kc x NR and
   contiguous, zero beyond nc. */
static __attribute__((target(TARGET))) void
FN(pack_b)(long kc, long nc, const T *b, long rsb, long csb, T *restrict out)
{
    for (long j0 = 0; j0 < nc; j0 += NR) {
        long nr = nc - j0 < NR ? nc - j0 : NR;
        const T *src = b + j0 * csb;
        if (nr == NR && csb == 1) {
            for (long p = 0; p < kc; p++)
                for (int j = 0; j < NR; j++) out[p * NR + j] = src[p * rsb + j];
        } else if (nr == NR && rsb == 1) {  /* column by column: reads contiguous */
            for (int j = 0; j < NR; j++) {
                const T *column = src + j * csb;
                for (long p = 0; p < kc; p++) out[p * NR + j] = column[p];
            }
        } else {
            for (long p = 0; p < kc; p++) {
                for (long j = 0; j < nr; j++) out[p * NR + j] = src[p * rsb + j * csb];
                for (long j = nr; j < NR; j++) out[p * NR + j] = 0;
            }
        }
        out += kc * NR;
    }
}

/* A[0:mc, 0:kc] (strides rsa, csa) as MR-row panels, each kc x MR (k-major)
   and contiguous, zero beyond mc. */
static __attribute__((target(TARGET))) void
FN(pack_a)(long mc, long kc, const T *a, long rsa, long csa, T *restrict out)
{
    for (long i0 = 0; i0 < mc; i0 += MR) {
        long mr = mc - i0 < MR ? mc - i0 : MR;
        const T *src = a + i0 * rsa;
        if (mr == MR && csa == 1) {
            for (long p = 0; p < kc; p++)
                for (int i = 0; i < MR; i++) out[p * MR + i] = src[i * rsa + p];
        } else if (mr == MR && rsa == 1) {
            for (long p = 0; p < kc; p++)
                for (int i = 0; i < MR; i++) out[p * MR + i] = src[i + p * csa];
        } else {
            for (long p = 0; p < kc; p++) {
                for (long i = 0; i < mr; i++) out[p * MR + i] = src[i * rsa + p * csa];
                for (long i = mr; i < MR; i++) out[p * MR + i] = 0;
            }
        }
        out += kc * MR;
    }
}

/* A small product straight from A and B, no packing: C's rows SR at a
   time, its columns W at a time, each (SR x W) block of accumulators summed
   over all of k from B's rows (contiguous: csb == 1) and a broadcast of
   A's element (B's rows are copied into a contiguous k x n block first when
   they are not contiguous). B's last n % W columns are first copied,
   zero-padded, into a k x W panel `tail`. For the shapes `FN(gemm)` sends here (C narrow or
   short, B in cache) packing both operands and running MR x NR tiles over
   C's edges cost more than the product (gemm.c, SMALL_B_BYTES). */
static __attribute__((target(TARGET))) void
FN(small)(long m, long n, long k, const T *a, long rsa, long csa, const T *b, long rsb,
          T *c, long rsc, long csc, int overwrite, T *restrict tail)
{
    long full = n / W * W;
    if (full < n)
        for (long p = 0; p < k; p++)
            for (long j = 0; j < W; j++) tail[p * W + j] = full + j < n ? b[p * rsb + full + j] : 0;
    for (long i0 = 0; i0 < m; i0 += SR) {
        long rows = m - i0 < SR ? m - i0 : SR;
        const T *ai = a + i0 * rsa;
        for (long j = 0; j < n; j += W) {
            const T *bj = j < full ? b + j : tail;
            long ldb = j < full ? rsb : W, cols = j < full ? W : n - full;
            FN(vec) acc[SR];
#pragma GCC unroll 8
            for (int r = 0; r < SR; r++) acc[r] = (FN(vec)){0};
            if (rows == SR) {
                for (long p = 0; p < k; p++) {
                    FN(vec) bv = *(const FN(unaligned) *)(bj + p * ldb);
#pragma GCC unroll 8
                    for (int r = 0; r < SR; r++) acc[r] += ai[r * rsa + p * csa] * bv;
                }
            } else {
                for (long p = 0; p < k; p++) {
                    FN(vec) bv = *(const FN(unaligned) *)(bj + p * ldb);
#pragma GCC unroll 8
                    for (int r = 0; r < SR; r++)
                        if (r < rows) acc[r] += ai[r * rsa + p * csa] * bv;
                }
            }
            for (long r = 0; r < rows; r++) {
                T *out = c + (i0 + r) * rsc + j * csc;
                if (cols == W && csc == 1) {
                    FN(unaligned) *row = (FN(unaligned) *)out;
                    *row = overwrite ? acc[r] : *row + acc[r];
                } else {
                    T lanes[W] __attribute__((aligned(64)));
                    *(FN(vec) *)lanes = acc[r];
                    for (long q = 0; q < cols; q++) out[q * csc] = overwrite ? lanes[q] : out[q * csc] + lanes[q];
                }
            }
        }
    }
}

/* C (m x n) = A (m x k) . B (k x n) (+ C unless `overwrite`); strides in
   elements. Loops, outermost first: n by NC (B's block packed), k by KC,
   m by MC (A's block packed), then register tiles, NR-wide column panels
   outside MR-row panels so that one panel of B stays in L1. */
static __attribute__((target(TARGET))) void
FN(gemm)(long m, long n, long k, const T *a, long rsa, long csa, const T *b, long rsb, long csb,
         T *c, long rsc, long csc, int overwrite)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        if (overwrite)
            for (long i = 0; i < m; i++)
                for (long j = 0; j < n; j++) c[i * rsc + j * csc] = 0;
        return;
    }
    if ((size_t)k * (size_t)n * sizeof(T) <= SMALL_B_BYTES && (n <= SMALL_VECTORS * W || m < MR)
        && (csb == 1 || m >= SMALL_COPY_ROWS)) {
        T *tail = scratch(0, sizeof(T) * (size_t)k * W);
        T *rows = csb == 1 ? (T *)b : scratch(1, sizeof(T) * (size_t)k * (size_t)n);
        if (tail && rows) {
            if (rows != b)  /* B's rows made contiguous: one copy of k x n */
                for (long p = 0; p < k; p++)
                    for (long j = 0; j < n; j++) rows[p * n + j] = b[p * rsb + j * csb];
            FN(small)(m, n, k, a, rsa, csa, rows, rows == b ? rsb : n, c, rsc, csc, overwrite, tail);
            return;
        }
    }
    T *bp = scratch(0, sizeof(T) * (size_t)KC * ((NC + NR - 1) / NR * NR));
    T *ap = scratch(1, sizeof(T) * (size_t)KC * ((MC + MR - 1) / MR * MR));
    if (!ap || !bp) {  /* no memory for the panels: the product in place, slowly */
        for (long i = 0; i < m; i++)
            for (long j = 0; j < n; j++) {
                T sum = overwrite ? 0 : c[i * rsc + j * csc];
                for (long p = 0; p < k; p++) sum += a[i * rsa + p * csa] * b[p * rsb + j * csb];
                c[i * rsc + j * csc] = sum;
            }
        return;
    }
    for (long j0 = 0; j0 < n; j0 += NC) {
        long nc = n - j0 < NC ? n - j0 : NC;
        for (long p0 = 0; p0 < k; p0 += KC) {
            long kc = k - p0 < KC ? k - p0 : KC;
            FN(pack_b)(kc, nc, b + p0 * rsb + j0 * csb, rsb, csb, bp);
            for (long i0 = 0; i0 < m; i0 += MC) {
                long mc = m - i0 < MC ? m - i0 : MC;
                FN(pack_a)(mc, kc, a + i0 * rsa + p0 * csa, rsa, csa, ap);
                for (long j1 = 0; j1 < nc; j1 += NR) {
                    long nr = nc - j1 < NR ? nc - j1 : NR;
                    for (long i1 = 0; i1 < mc; i1 += MR) {
                        long mr = mc - i1 < MR ? mc - i1 : MR;
                        FN(micro)(kc, ap + i1 * kc, bp + j1 * kc, c + (i0 + i1) * rsc + (j0 + j1) * csc,
                                  rsc, csc, mr, nr, overwrite && p0 == 0);
                    }
                }
            }
        }
    }
}

/* The entry compiled code calls (the C interface of
   func.func private @jaxc_gemm_<T>_<isa>(index x 16)): base pointers and
   offsets as memref.extract_strided_metadata gives them. On a CPU without
   the family's instructions (code compiled for another machine) the family
   below it computes the product. */
void CAT(_mlir_ciface_jaxc_gemm, SUFFIX)(long m, long n, long k, intptr_t a, long a_offset, long rsa, long csa,
                                          intptr_t b, long b_offset, long rsb, long csb, intptr_t c, long c_offset,
                                          long rsc, long csc, long overwrite)
{
    if (SUPPORTED)
        FN(gemm)(m, n, k, (const T *)a + a_offset, rsa, csa, (const T *)b + b_offset, rsb, csb,
                 (T *)c + c_offset, rsc, csc, (int)overwrite);
    else
        FALLBACK(m, n, k, (const T *)a + a_offset, rsa, csa, (const T *)b + b_offset, rsb, csb,
                 (T *)c + c_offset, rsc, csc, (int)overwrite);
}

#undef NR
#undef FN
#undef CAT
#undef CAT_
