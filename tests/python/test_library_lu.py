"""LU factorizations with partial pivoting of the compiled library
(python/jaxc/runtime/lu.c, built with gemm.c into libjaxc_kernels.so), called
directly through ctypes against a NumPy getf2 in float64: square, tall and wide
shapes below, at and across the panel width, a batch, f32 and f64, a zero column
inside a panel, two equal rows, an all-zero matrix, empty shapes, NaNs, each
instruction-set family, the out-of-memory path (getf2 in place), many threads at
once and the copy an exported program (jaxc.runtime.aot) compiles into itself.
Every call's outputs sit between guard values that must survive it, and x must
be left as it was.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, kernel_builder, library_fixture, skip_unless_the_cpu_runs

ARGTYPES = [ctypes.c_long] * 3 + [ctypes.c_void_p] * 4
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}
NAMES = {np.float32: "f32", np.float64: "f64"}
GUARD = 40
SHAPES = [(1, 1), (2, 2), (5, 3), (3, 5), (64, 64), (100, 100), (130, 70), (70, 130), (256, 256), (257, 255)]


_entries = float_entries("lu", ARGTYPES)
library = library_fixture(_entries)


def reference(x: np.ndarray):
    """getf2 in float64: the factors, pivots and permutation."""
    f = x.astype(np.float64)
    m, n = f.shape
    k = min(m, n)
    permutation = np.arange(m)
    pivots = np.zeros(k, np.int64)
    for c in range(k):
        p = c + int(np.argmax(np.abs(f[c:, c])))  # the first largest, or the first NaN
        pivots[c] = p
        f[[c, p]] = f[[p, c]]
        permutation[[c, p]] = permutation[[p, c]]
        if f[c, c] != 0:
            f[c + 1:, c] /= f[c, c]
        f[c + 1:, c + 1:] -= np.outer(f[c + 1:, c], f[c, c + 1:])
    return f, pivots, permutation


def _guarded(count: int, dtype, fill):
    """A buffer of `count` elements between GUARD elements of `fill` on each side."""
    buffer = np.full(count + 2 * GUARD, fill, dtype)
    return buffer, buffer[GUARD:GUARD + count]


def factor(entry, x: np.ndarray):
    """lu, pivots, permutation of the batch `x` (batch x m x n) by `entry`,
    asserting that nothing outside them was written and x was only read."""
    batch, m, n = x.shape
    k = min(m, n)
    x = np.ascontiguousarray(x)
    before = x.copy()
    lu_buffer, lu = _guarded(batch * m * n, x.dtype, -7.25)
    pivot_buffer, pivots = _guarded(batch * k, np.int32, -99)
    permutation_buffer, permutation = _guarded(batch * m, np.int32, -99)
    entry(batch, m, n, x.ctypes.data, lu.ctypes.data, pivots.ctypes.data, permutation.ctypes.data)
    for buffer, fill in ((lu_buffer, -7.25), (pivot_buffer, -99), (permutation_buffer, -99)):
        assert (buffer[:GUARD] == fill).all() and (buffer[-GUARD:] == fill).all(), "written out of bounds"
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return lu.reshape(batch, m, n), pivots.reshape(batch, k), permutation.reshape(batch, m)


def check(entry, x: np.ndarray, what: str = ""):
    """`entry` on the batch x against the reference: pivots and permutation
    exactly, the factors to rounding (NaN where the reference has NaN)."""
    lu, pivots, permutation = factor(entry, x)
    tolerance = TOLERANCE[x.dtype.type]
    for b in range(x.shape[0]):
        f, p, q = reference(x[b])
        message = f"{what} {x.dtype} {x.shape} matrix {b}"
        np.testing.assert_array_equal(pivots[b], p, err_msg=f"pivots: {message}")
        np.testing.assert_array_equal(permutation[b], q, err_msg=f"permutation: {message}")
        finite = np.abs(f[np.isfinite(f)])
        scale = max(float(finite.max()) if finite.size else 1.0, 1.0)
        np.testing.assert_allclose(lu[b], f, rtol=tolerance, atol=tolerance * scale, err_msg=message)
    return lu, pivots, permutation


def _random(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n", SHAPES)
def test_random_matrices(library, dtype, m, n):
    x = _random((1, m, n), dtype, m * 1000 + n)
    lu, _, permutation = check(library[dtype], x)
    k = min(m, n)  # and P X = L U
    lower = np.tril(lu[0].astype(np.float64), -1)[:, :k] + np.eye(m, k)
    upper = np.triu(lu[0].astype(np.float64))[:k]
    np.testing.assert_allclose(lower @ upper, x[0][permutation[0]], rtol=0,
                               atol=TOLERANCE[dtype] * 10 * np.sqrt(n) * np.abs(x).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch(library, dtype):
    x = _random((3, 40, 40), dtype, 3)
    lu, pivots, _ = check(library[dtype], x)
    single = factor(library[dtype], x[1:2])  # each matrix on its own: the same
    np.testing.assert_array_equal(lu[1], single[0][0])
    np.testing.assert_array_equal(pivots[1], single[1][0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_column_inside_a_panel(library, dtype):
    """Column 40 all zeros: its pivot is 0 (no division, no swap: the first
    row of equal moduli), in the middle of a panel."""
    x = _random((1, 100, 100), dtype, 40)
    x[0, :, 40] = 0
    _, pivots, _ = check(library[dtype], x)
    assert pivots[0, 40] == 40


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_equal_rows(library, dtype):
    x = _random((1, 100, 100), dtype, 2)
    x[0, 60] = x[0, 10]
    lu, _, _ = check(library[dtype], x)
    assert abs(float(lu[0, -1, -1])) <= TOLERANCE[dtype] * np.abs(x).max()  # singular


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n", [(5, 5), (70, 40), (40, 70)])
def test_all_zeros(library, dtype, m, n):
    lu, pivots, permutation = check(library[dtype], np.zeros((2, m, n), dtype))
    assert not lu.any()
    np.testing.assert_array_equal(pivots, np.broadcast_to(np.arange(min(m, n)), pivots.shape))
    np.testing.assert_array_equal(permutation, np.broadcast_to(np.arange(m), permutation.shape))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,m,n", [(0, 4, 4), (2, 0, 5), (2, 5, 0), (0, 0, 0), (1, 0, 0), (3, 1, 0)])
def test_empty(library, dtype, batch, m, n):
    """Nothing to factor: nothing written but the permutations (identities)."""
    x = np.ones((batch, m, n), dtype)
    lu, pivots, permutation = factor(library[dtype], x)
    assert lu.size == 0 and pivots.size == 0
    np.testing.assert_array_equal(permutation, np.broadcast_to(np.arange(m), (batch, m)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n,nans", [
    (6, 6, [(3, 0)]),                 # the first pivot is the NaN
    (100, 100, [(70, 45)]),           # inside the second panel, below its diagonal
    (100, 100, [(20, 80), (90, 80)]), # to the right of the first panel: the first NaN wins
    (80, 50, [(79, 49), (5, 3)]),
    (50, 80, [(0, 0), (49, 79)]),
])
def test_nans(library, dtype, m, n, nans):
    """A NaN is the largest modulus (the first NaN, as numpy's argmax): the
    pivots are the reference's, the factors NaN exactly where its are."""
    x = _random((1, m, n), dtype, m + n)
    for i, j in nans:
        x[0, i, j] = np.nan
    lu, _, _ = check(library[dtype], x, "NaN")
    f = reference(x[0])[0]
    np.testing.assert_array_equal(np.isnan(lu[0]), np.isnan(f))
    assert np.isnan(lu).any()


def test_threads(library):
    """Eight threads (ctypes releases the GIL) factoring at once, each with its
    own scratch buffers."""
    failures = []

    def work(seed):
        try:
            for i in range(6):
                dtype = (np.float32, np.float64)[(seed + i) % 2]
                size = (40, 100, 150)[(seed + i) % 3]
                check(library[dtype], _random((1, size, size - seed), dtype, seed * 10 + i), f"thread {seed}")
        except AssertionError as error:
            failures.append(str(error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]


# --------------------------------------------------------------------------
# lu.c compiled here: each family (JAXC_LU_FAMILY), and no memory for the panel


NO_MEMORY = """
#include <stddef.h>
void *jaxc_lu_test_no_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
void *jaxc_lu_test_no_alloc(size_t alignment, size_t bytes) { (void)alignment; (void)bytes; return NULL; }
"""


@pytest.fixture(scope="module")
def compile_lu(tmp_path_factory):
    """compile_lu(name, flags): a library of lu.c (compiled with `flags`) and gemm.c."""
    return kernel_builder(tmp_path_factory, "lu.c", _entries)


def _family_shapes():
    return [(1, 1), (5, 3), (3, 5), (33, 33), (100, 100), (130, 70), (70, 130), (257, 255)]


@pytest.mark.parametrize("family,number", [("sse2", 1), ("avx2", 2), ("avx512", 3)])
def test_each_family(compile_lu, family, number):
    skip_unless_the_cpu_runs(family)
    build, _ = compile_lu
    entries = build(family, [f"-DJAXC_LU_FAMILY={number}"])
    for dtype in (np.float32, np.float64):
        for m, n in _family_shapes():
            check(entries[dtype], _random((2, m, n), dtype, m + 7 * n), family)
        x = _random((1, 100, 100), dtype, 9)
        x[0, 50, 60] = np.nan
        x[0, :, 40] = 0
        check(entries[dtype], x, f"{family} NaN")


def test_no_memory(compile_lu):
    """No scratch and no aligned_alloc: getf2 in place, the same results."""
    build, tmp = compile_lu
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    entries = build("no_memory", ["-Djaxc_scratch=jaxc_lu_test_no_scratch",
                                  "-Daligned_alloc=jaxc_lu_test_no_alloc"], [str(stub)])
    for dtype in (np.float32, np.float64):
        for m, n in _family_shapes():
            check(entries[dtype], _random((2, m, n), dtype, m + 3 * n), "no memory")
        x = _random((1, 100, 100), dtype, 4)
        x[0, :, 40] = 0
        x[0, 60] = x[0, 10]
        check(entries[dtype], x, "no memory")
        x[0, 30, 20] = np.nan
        check(entries[dtype], x, "no memory NaN")


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    for dtype, run in exported_runs(tmp_path, "lu", ARGTYPES).items():
        check(run, _random((2, 90, 70), dtype, 1), "exported")
