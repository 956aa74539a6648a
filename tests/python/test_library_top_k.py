"""top_k of the compiled library (python/jaxc/runtime/top_k.c, built into
libjaxc_kernels.so), called directly through ctypes against a NumPy reference
of lax.top_k's order computed here from the bits: the integer key
bits ^ ((bits >> 31) & 0x7fffffff) (>> 63 for f64), every NaN of a sign one
key (the largest when positive, next to the least when negative), equal keys
in index order. f32 and f64; rows of 1 entry to a few thousand, around the
block (32) and chunk (64 blocks) sizes and not multiples of them; k from 0 to
n, across the switch to the sort (SORT_RATIO and SORT_MIN_N); no rows, one,
many; random data, many ties, all-equal rows, NaN of both signs with payloads,
+-inf, +-0.0, denormals, the extremes; rows sorted either way (the best at the
end: an insertion every entry); the k-th a -0.0 where a block's maximum is
0.0; f64 entries equal in their high 32 bits. The values must be x's bits,
the indices exact; every call's outputs sit between guard values that must
survive it, and x must be left as it was. Also top_k.c compiled here without
SSE2 (the plain C blocks), without memory (the sort's malloc failing: the
insertion path at any k) and called with MXCSR's FTZ and DAZ set (as compiled
code calls it: denormals compare as zeros), and the copy an exported program
(jaxc.runtime.aot) compiles into itself.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, kernel_builder, library_fixture

ARGTYPES = [ctypes.c_long] * 3 + [ctypes.c_void_p] * 3
NAMES = {np.float32: "f32", np.float64: "f64"}
BITS = {np.float32: np.int32, np.float64: np.int64}
GUARD = 40
SORT_RATIO, SORT_MIN_N = 3, 64  # top_k.c's switch to the sort: k * k > SORT_RATIO n, n >= SORT_MIN_N


_entries = float_entries("top_k", ARGTYPES)
library = library_fixture(_entries)


def reference(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The bits of the k largest entries of each row of x (rows x n) and their
    indices, in lax.top_k's order, from the keys of the bits."""
    signed = BITS[x.dtype.type]
    width = np.iinfo(signed).bits
    bits = x.view(signed)
    magnitude = np.iinfo(signed).max
    key = bits ^ ((bits >> (width - 1)) & magnitude)
    key = np.where(np.isnan(x), np.where(bits < 0, np.iinfo(signed).min + 1, magnitude), key)
    order = np.argsort(-key, axis=-1, kind="stable")[:, :k]  # -key: keys are above the least
    return np.take_along_axis(bits, order, axis=-1), order.astype(np.int32)


def top_k(entry, x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The values' bits and the indices of `entry` on x (rows x n), asserting
    that nothing outside them was written and x was only read."""
    rows, n = x.shape
    x = np.ascontiguousarray(x)
    signed = BITS[x.dtype.type]
    before = x.view(signed).copy()
    values_buffer = np.full(rows * k + 2 * GUARD, -7.25, x.dtype)
    indices_buffer = np.full(rows * k + 2 * GUARD, -7, np.int32)
    values, indices = values_buffer[GUARD:GUARD + rows * k], indices_buffer[GUARD:GUARD + rows * k]
    entry(rows, n, k, x.ctypes.data, values.ctypes.data, indices.ctypes.data)
    for buffer, guard in ((values_buffer, -7.25), (indices_buffer, -7)):
        assert (buffer[:GUARD] == guard).all() and (buffer[-GUARD:] == guard).all(), "written out of bounds"
    np.testing.assert_array_equal(x.view(signed), before, err_msg="x was written")
    return values.view(signed).reshape(rows, k), indices.reshape(rows, k)


def check(entry, x: np.ndarray, k: int, what: str = "") -> None:
    values, indices = top_k(entry, x, k)
    ref_values, ref_indices = reference(x, k)
    message = f"{what} {x.dtype} {x.shape} k={k}"
    np.testing.assert_array_equal(indices, ref_indices, err_msg=f"indices: {message}")
    np.testing.assert_array_equal(values, ref_values, err_msg=f"values (bits): {message}")


def _ks(n: int) -> list[int]:
    """k = 0, 1, small, around the block and the chunk's 64 blocks, the
    switch to the sort (the last k before it and the first after), n."""
    last = math.isqrt(SORT_RATIO * n)
    return sorted({k for k in (0, 1, 2, 3, 7, 8, 31, 32, 33, 64, 65, 200, last, last + 1, n - 1, n) if 0 <= k <= n})


SIZES = [1, 2, 5, 31, 32, 33, 63, 100, 255, 256, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4133]
CASES = [(n, k) for n in SIZES for k in _ks(n)]


def _random(rows: int, n: int, dtype, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, n)).astype(dtype)


def _ties(rows: int, n: int, dtype, seed: int) -> np.ndarray:
    """Small integers: many entries equal to the k-th, in every block."""
    return np.random.default_rng(seed).integers(-3, 4, (rows, n)).astype(dtype)


def _special_values(dtype) -> np.ndarray:
    """NaNs of both signs with payloads, the infinities, the zeros, denormals,
    the extremes and a few ordinary numbers."""
    info = np.finfo(dtype)
    signed = BITS[dtype]
    if dtype == np.float32:
        nans = np.array([0x7fc00000, 0x7f800001, 0x7fc12345, -0x00400000, -0x007fffff, -0x003edcbb], np.int64)
    else:
        nans = np.array([0x7ff8000000000000, 0x7ff0000000000001, 0x7ff8123456789abc,
                         -0x0008000000000000, -0x000fffffffffffff, -0x0007edcba9876544], np.int64)
    nans = nans.astype(signed).view(dtype)
    numbers = np.array([np.inf, -np.inf, 0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal,
                        info.smallest_subnormal * 3, -info.smallest_subnormal * 7, info.smallest_normal,
                        -info.smallest_normal, info.max, info.min, 1.0, -1.0, 0.5, -2.5], dtype)
    return np.concatenate([nans, numbers])


def _specials(rows: int, n: int, dtype, seed: int) -> np.ndarray:
    """Entries drawn from the special values (so repeated: ties between NaNs,
    zeros), with some random numbers between."""
    rng = np.random.default_rng(seed)
    x = rng.choice(_special_values(dtype), (rows, n))
    ordinary = rng.random((rows, n)) < 0.3
    x[ordinary] = rng.standard_normal(int(ordinary.sum())).astype(dtype)
    return x


DATA = {"random": _random, "ties": _ties, "specials": _specials}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,k", CASES, ids=str)
@pytest.mark.parametrize("data", list(DATA))
def test_rows(library, dtype, n, k, data):
    check(library[dtype], DATA[data](3, n, dtype, n * 1000 + k), k, data)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 200])
@pytest.mark.parametrize("n,k", [(1, 1), (100, 8), (1000, 8), (1000, 64), (300, 300)], ids=str)
def test_row_counts(library, dtype, rows, n, k):
    """No rows (nothing written), one, many; each row on its own: the same as
    a call on it alone."""
    x = _random(rows, n, dtype, rows + n + k)
    check(library[dtype], x, k)
    if rows > 1:
        values, indices = top_k(library[dtype], x[rows // 2:rows // 2 + 1], k)
        all_values, all_indices = top_k(library[dtype], x, k)
        np.testing.assert_array_equal(values[0], all_values[rows // 2])
        np.testing.assert_array_equal(indices[0], all_indices[rows // 2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 33, 1025, 2049])
@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, np.inf, -np.inf, np.nan, -np.nan])
def test_all_equal(library, dtype, n, value):
    """Every entry the same: the first k indices."""
    x = np.full((2, n), value, dtype)
    for k in _ks(n):
        check(library[dtype], x, k)
        assert (top_k(library[dtype], x, k)[1] == np.arange(k)).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [5, 64, 1000, 2049])
@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_sorted_rows(library, dtype, n, order):
    """Ascending: the best entries at the end, each entry better than all
    before (an insertion every entry); descending: the first k."""
    x = np.sort(_random(2, n, dtype, n), axis=1)
    if order == "descending":
        x = x[:, ::-1]
    for k in _ks(n):
        check(library[dtype], x, k, order)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [40, 1000, 2100])
def test_zeros_of_both_signs(library, dtype, n):
    """0.0 ranks above -0.0 and they are not equal: a few positives, then
    zeros of both signs where the k-th falls, then negatives."""
    rng = np.random.default_rng(n)
    x = np.where(rng.random((3, n)) < 0.5, dtype(0.0), dtype(-0.0)).astype(dtype)
    x[:, rng.choice(n, 5, replace=False)] = 1.0
    x[:, rng.choice(n, n // 4, replace=False)] = -1.0
    for k in sorted({k for k in (1, 5, 6, 8, 20, 33, 64, n // 2, n) if k <= n}):
        check(library[dtype], x, k, "zeros")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1000, 2100])
def test_negative_zero_kth(library, dtype, n):
    """The k-th best a -0.0 below two 0.0s, each at the end or the start of
    a block (where it, not a -0.0, is the block's maximum: the bound may be
    0.0 while -0.0s must count): five 1.0s, -0.0 and negatives elsewhere."""
    rng = np.random.default_rng(n + 3)
    x = np.full((4, n), -0.0, dtype)
    x[:, rng.choice(n, n // 3, replace=False)] = -2.0
    x[:, rng.choice(np.arange(100, n), 5, replace=False)] = 1.0
    for row, zeros in enumerate([[31, 63], [0, 32], [31, 95], [3, 40]]):
        x[row, zeros] = 0.0
    for k in (5, 6, 7, 8, 9, 20, 33):
        check(library[dtype], x, k, "-0.0")


@pytest.mark.parametrize("n", [100, 1000, 3000])
def test_f64_equal_high_halves(library, n):
    """f64 entries whose bits differ only in the low 32 (the sort orders the
    high halves first, then runs of equal ones by the low halves), some
    equal, of both signs."""
    rng = np.random.default_rng(n)
    low = rng.integers(0, 40, (3, n))
    x = (1.0 + low * 2.0 ** -52) * np.where(rng.random((3, n)) < 0.3, -1.0, 1.0)
    x[2] = 1.0 + rng.integers(0, 2 ** 32, n) * 2.0 ** -52
    for k in _ks(n):
        check(library[np.float64], x, k, "low halves")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [33, 1000, 2049, 4133])
def test_nan_in_blocks(library, dtype, n):
    """NaNs of either sign in some blocks (positive ones are the largest,
    negative ones the least), the rest random; rows of NaNs mostly."""
    rng = np.random.default_rng(n)
    x = _random(4, n, dtype, n + 1)
    nans = _special_values(dtype)[:6]
    for row in range(3):
        where = rng.choice(n, max(1, n // (10 * (row + 1))), replace=False)
        x[row, where] = rng.choice(nans[3 * (row % 2):3 * (row % 2) + 3], len(where))
    x[3] = rng.choice(nans, n)
    x[3, rng.choice(n, 3, replace=False)] = 7.0
    for k in _ks(n):
        check(library[dtype], x, k, "NaN")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ties_across_chunks(library, dtype):
    """Entries equal to the k-th best in several chunks: the earliest win."""
    n = 64 * 32 * 3 + 17
    x = np.zeros((2, n), dtype) - 5
    x[0, [3, 100, 2047, 2048, 4000, 6000, n - 1]] = 2.0
    x[0, [50, 5000]] = 3.0
    x[1, ::97] = 1.0
    x[1, 4096 + 5] = 9.0
    for k in (1, 2, 3, 4, 5, 8, 9, 10, 40, 64, 65, 100):
        check(library[dtype], x, k, "ties")


# --------------------------------------------------------------------------
# top_k.c compiled here: the plain C blocks (no SSE2), and no memory


NO_MEMORY = """
#include <stddef.h>
void *jaxc_top_k_test_no_malloc(size_t bytes) { (void)bytes; return NULL; }
"""


@pytest.fixture(scope="module")
def compile_top_k(tmp_path_factory):
    """compile_top_k(name, flags): a library of top_k.c (compiled with `flags`) and gemm.c."""
    return kernel_builder(tmp_path_factory, "top_k.c", _entries)


def _compiled_cases(entries, what):
    for dtype in (np.float32, np.float64):
        for n in (1, 31, 33, 1000, 2049):
            for k in _ks(n):
                for name, data in DATA.items():
                    check(entries[dtype], data(2, n, dtype, n + k), k, f"{what} {name}")
        x = np.sort(_random(2, 1000, dtype, 5), axis=1)
        for k in (1, 8, 64, 999):
            check(entries[dtype], x, k, f"{what} ascending")


def test_plain_c(compile_top_k):
    """Without SSE2's intrinsics: the blocks in plain C, the same results."""
    build, _ = compile_top_k
    _compiled_cases(build("plain", ["-U__SSE2__"]), "plain C")


def test_no_memory(compile_top_k):
    """No malloc: the insertion path at every k, the same results."""
    build, tmp = compile_top_k
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    _compiled_cases(build("no_memory", ["-Dmalloc=jaxc_top_k_test_no_malloc"], [str(stub)]), "no memory")


FLUSHING = """
#include <stdint.h>
#include <xmmintrin.h>
#undef _mlir_ciface_jaxc_top_k_f32 /* the kernel's, renamed, is inner */
#undef _mlir_ciface_jaxc_top_k_f64
#define WRAP(TYPE)                                                                                           \\
    void jaxc_top_k_test_inner_##TYPE(long, long, long, intptr_t, intptr_t, intptr_t);                      \\
    void _mlir_ciface_jaxc_top_k_##TYPE(long rows, long n, long k, intptr_t x, intptr_t v, intptr_t i)     \\
    {                                                                                                        \\
        const unsigned int saved = _mm_getcsr();                                                             \\
        _mm_setcsr(saved | 0x8040u);                                                                         \\
        jaxc_top_k_test_inner_##TYPE(rows, n, k, x, v, i);                                                   \\
        _mm_setcsr(saved);                                                                                   \\
    }
WRAP(f32)
WRAP(f64)
"""


def test_denormals_flushed(compile_top_k):
    """Called as compiled code calls it, with MXCSR's FTZ and DAZ set (floats
    compare denormals as zeros; the order is still the bits'): rows of
    denormals and zeros of both signs around the k-th, in the same results."""
    build, tmp = compile_top_k
    wrapper = tmp / "flushing.c"
    wrapper.write_text(FLUSHING)
    entries = build("flushing", [f"-D_mlir_ciface_jaxc_top_k_{name}=jaxc_top_k_test_inner_{name}"
                                 for name in NAMES.values()], [str(wrapper)])
    for dtype in (np.float32, np.float64):
        info = np.finfo(dtype)
        rng = np.random.default_rng(7)
        for n in (40, 1000, 2100):
            tiny = rng.integers(-50, 50, (5, n)) * info.smallest_subnormal
            x = np.where(rng.random((5, n)) < 0.2, -0.0, tiny).astype(dtype)
            x[1, rng.choice(n, 3, replace=False)] = 1.0
            x[2, rng.choice(n, n // 2, replace=False)] = info.smallest_normal
            x[3] = np.where(rng.random(n) < 0.5, 0.0, -0.0)
            x[3, rng.choice(n, 6, replace=False)] = info.smallest_subnormal * 3
            x[4] = -np.abs(x[4]) - info.smallest_subnormal  # negative denormals below a few ones
            x[4, rng.choice(n, 3, replace=False)] = 1.0
            for k in _ks(n):
                check(entries[dtype], x, k, "flushed")
        for name, data in DATA.items():
            check(entries[dtype], data(3, 1000, dtype, 11), 8, f"flushed {name}")


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    for dtype, run in exported_runs(tmp_path, "top_k", ARGTYPES).items():
        for n, k in ((1000, 8), (1000, 100), (33, 33)):
            check(run, _random(3, n, dtype, n + k), k, "exported")
            check(run, _specials(3, n, dtype, n + k), k, "exported")
