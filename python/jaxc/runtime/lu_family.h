/* One family of lu.c: the blocked factorization of one matrix for one
   element type T on one instruction set. lu.c includes this file once per
   family, inside a `#pragma GCC target` region, defining T, I (the signed
   integer type of T's size), ABS (T's fabs), W (lanes of one vector
   register), NB (the panel width), SUFFIX (names) and GEMM (gemm.c's entry
   for T). */
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SUFFIX)
#define V FN(v)
#define IV FN(iv)
#define INLINE static inline __attribute__((always_inline))

typedef T V __attribute__((vector_size(W * sizeof(T))));
typedef I IV __attribute__((vector_size(W * sizeof(T))));

/* The pivot's row among rows 0..rows-1 of a column: the first with the
   largest modulus, or the first NaN (numpy's argmax). */
static long FN(argmax)(const T *column, long rows)
{
    long best_row = 0;
    T best = -1;
    for (long i = 0; i < rows; i++) {
        const T v = ABS(column[i]);
        if (!(v <= best)) {  /* larger, or NaN */
            if (v != v)
                return i;
            best = v;
            best_row = i;
        }
    }
    return best_row;
}

/* Swap rows i and j (i < j) of the m x n matrix `a` outside columns c0..c1-1
   and their entries of the permutation. */
INLINE void FN(swap_rows)(T *a, long n, long i, long j, long c0, long c1, int32_t *permutation)
{
    T *ri = a + i * n, *rj = a + j * n;
    for (long q = 0; q < c0; q++) {
        const T t = ri[q];
        ri[q] = rj[q];
        rj[q] = t;
    }
    for (long q = c1; q < n; q++) {
        const T t = ri[q];
        ri[q] = rj[q];
        rj[q] = t;
    }
    const int32_t t = permutation[i];
    permutation[i] = permutation[j];
    permutation[j] = t;
}

/* getf2 on the panel: columns c0..c0+jb-1 of rows c0..m-1, packed in `p`
   (local row r at p + r ld, ld a multiple of W, the columns beyond jb
   zero), the column being eliminated also in `column` (rows contiguous, so
   that its division by the pivot is vector operations). Column c: its pivot
   row swapped with row c (in p, and outside the panel's columns in `a`),
   the rows below divided by the pivot (unless it is 0), then updated,
   vector by vector: the first vector keeps its lanes left of column c, and
   column c's lane gets the multiplier. The next column's values go into
   `column` and its pivot is searched as the rows are updated. */
static void FN(panel)(long m, long n, T *a, long c0, long jb, T *restrict p, long ld, T *restrict column,
                      int32_t *pivots, int32_t *permutation)
{
    const long rows = m - c0, vectors = ld / W;
    IV lane;
    for (int q = 0; q < W; q++) lane[q] = q;
    for (long i = 0; i < rows; i++) column[i] = p[i * ld];
    long pivot = FN(argmax)(column, rows);
    for (long c = 0; c < jb; c++) {
        pivots[c0 + c] = (int32_t)(c0 + pivot);
        if (pivot != c) {
            V *x = (V *)(p + c * ld), *y = (V *)(p + pivot * ld);
            for (long v = 0; v < vectors; v++) {
                const V t = x[v];
                x[v] = y[v];
                y[v] = t;
            }
            const T t = column[c];
            column[c] = column[pivot];
            column[pivot] = t;
            FN(swap_rows)(a, n, c0 + c, c0 + pivot, c0, c0 + jb, permutation);
        }
        const T d = column[c];
        if (d != 0)
            for (long i = c + 1; i < rows; i++) column[i] /= d;
        const V *u = (const V *)(p + c * ld);
        const long first = c / W;
        const IV left = lane < (I)(c % W), here = lane == (I)(c % W), right = ~(left | here);
        if (c + 1 == jb) {  /* the panel's last column: no next pivot */
            for (long i = c + 1; i < rows; i++) {
                V *r = (V *)(p + i * ld);
                const T l = column[i];
                const V old = r[first], updated = old - l * u[first], lv = (V){0} + l;
                r[first] = (V)(((IV)updated & right) | ((IV)old & left) | ((IV)lv & here));
                for (long v = first + 1; v < vectors; v++) r[v] -= l * u[v];
            }
            break;
        }
        long best_row = c + 1;
        T best = -1;
        int search = 1;
        for (long i = c + 1; i < rows; i++) {
            T *row = p + i * ld;
            V *r = (V *)row;
            const T l = column[i];
            const V old = r[first], updated = old - l * u[first], lv = (V){0} + l;
            r[first] = (V)(((IV)updated & right) | ((IV)old & left) | ((IV)lv & here));
            for (long v = first + 1; v < vectors; v++) r[v] -= l * u[v];
            const T next = row[c + 1], e = ABS(next);
            column[i] = next;
            if (search && !(e <= best)) {  /* larger, or the first NaN */
                best_row = i;
                if (e != e)
                    search = 0;
                else
                    best = e;
            }
        }
        pivot = best_row;
    }
}

/* U12 = L11^-1 A12 in place (rows 0..jb-1 of `a`, columns 0..n2-1, row
   stride n; L11 unit lower triangular, row stride ld), one row after the
   other, each less the rows above it times L11's multipliers, four rows
   at a time in the order getf2 takes them; and -U12 into b (jb x n2). */
static void FN(solve)(long jb, long n2, const T *l, long ld, T *a, long n, T *restrict b)
{
    for (long i = 0; i < jb; i++) {
        T *restrict row = a + i * n;
        const T *li = l + i * ld;
        long t = 0;
        for (; t + 4 <= i; t += 4) {
            const T l0 = li[t], l1 = li[t + 1], l2 = li[t + 2], l3 = li[t + 3];
            const T *restrict u0 = a + t * n, *restrict u1 = u0 + n, *restrict u2 = u1 + n, *restrict u3 = u2 + n;
            for (long j = 0; j < n2; j++) {
                T s = row[j];
                s -= l0 * u0[j];
                s -= l1 * u1[j];
                s -= l2 * u2[j];
                s -= l3 * u3[j];
                row[j] = s;
            }
        }
        for (; t < i; t++) {
            const T lt = li[t];
            const T *restrict ut = a + t * n;
            for (long j = 0; j < n2; j++) row[j] -= lt * ut[j];
        }
        T *restrict out = b + i * n2;
        for (long j = 0; j < n2; j++) out[j] = -row[j];
    }
}

/* getf2 in place, one element at a time: what a call computes when there is
   no memory for the panel. */
static void FN(unblocked)(long m, long n, T *a, int32_t *pivots, int32_t *permutation)
{
    const long k = m < n ? m : n;
    for (long c = 0; c < k; c++) {
        long pivot = c;
        T best = -1;
        for (long i = c; i < m; i++) {
            const T e = ABS(a[i * n + c]);
            if (!(e <= best)) {
                pivot = i;
                if (e != e)
                    break;
                best = e;
            }
        }
        pivots[c] = (int32_t)pivot;
        if (pivot != c)
            FN(swap_rows)(a, n, c, pivot, 0, 0, permutation);
        const T *u = a + c * n;
        const T d = u[c];
        for (long i = c + 1; i < m; i++) {
            T *row = a + i * n;
            if (d != 0)
                row[c] /= d;
            const T l = row[c];
            for (long j = c + 1; j < n; j++) row[j] -= l * u[j];
        }
    }
}

/* The m x n matrix `a` (row-major) factored in place; `work` holds
   m ld + m + NB n elements (ld: NB rounded up to W), or is NULL (then
   getf2 in place). For each panel of NB columns: pack it, getf2 on it,
   unpack it; U12 = L11^-1 A12 (and -U12 into work), then
   A22 += L21 (-U12) by gemm. */
static void FN(factor)(long m, long n, T *a, int32_t *pivots, int32_t *permutation, T *work)
{
    if (!work) {
        FN(unblocked)(m, n, a, pivots, permutation);
        return;
    }
    const long k = m < n ? m : n;
    for (long c0 = 0; c0 < k; c0 += NB) {
        const long jb = k - c0 < NB ? k - c0 : NB, ld = (jb + W - 1) / W * W, rows = m - c0, c1 = c0 + jb;
        const long n2 = n - c1;
        T *p = work, *column = p + rows * ld, *b = column + rows;
        for (long r = 0; r < rows; r++) {
            const T *src = a + (c0 + r) * n + c0;
            T *dst = p + r * ld;
            for (long q = 0; q < jb; q++) dst[q] = src[q];
            for (long q = jb; q < ld; q++) dst[q] = 0;
        }
        FN(panel)(m, n, a, c0, jb, p, ld, column, pivots, permutation);
        for (long r = 0; r < rows; r++) {
            const T *src = p + r * ld;
            T *dst = a + (c0 + r) * n + c0;
            for (long q = 0; q < jb; q++) dst[q] = src[q];
        }
        if (n2 > 0) {
            FN(solve)(jb, n2, p, ld, a + c0 * n + c1, n, b);
            if (rows > jb)
                GEMM(rows - jb, n2, jb, (intptr_t)(p + jb * ld), 0, ld, 1, (intptr_t)b, 0, n2, 1, (intptr_t)a,
                     c1 * n + c1, n, 1, 0);
        }
    }
}

#undef INLINE
#undef IV
#undef V
#undef FN
#undef CAT
#undef CAT_
