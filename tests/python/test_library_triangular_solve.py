"""Triangular solves of the compiled library (python/jaxc/runtime/triangular_solve.c,
built with gemm.c into libjaxc_kernels.so), called directly through ctypes against
a float64 NumPy reference: every combination of left_side, lower, transpose_a and
unit_diagonal, f32 and f64, systems below, at and across the diagonal blocks'
size with 1 to 256 right-hand sides, a batch, empty shapes, zero and tiny
diagonals (IEEE division), each instruction-set family, the scratch and
out-of-memory paths, many threads at once and the copy an exported program
(jaxc.runtime.aot) compiles into itself. A holds NaN wherever the solve must
not read it (the other triangle; the diagonal when unit_diagonal); every
call's output sits between guard values that must survive it, and a and b
must be left as they were.
"""
from __future__ import annotations

import ctypes
import functools
import itertools
import os
import subprocess
import threading

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, library_fixture, program_calling

from jaxc.passes import host
from jaxc.runtime import aot

ARGTYPES = [ctypes.c_long] * 3 + [ctypes.c_void_p] * 3 + [ctypes.c_long] * 4
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}
NAMES = {np.float32: "f32", np.float64: "f64"}
GUARD = 40
# (left_side, lower, transpose_a, unit_diagonal)
FLAGS = list(itertools.product((1, 0), repeat=4))
FLAG_IDS = ["{}-{}-{}-{}".format("left" if f[0] else "right", "lower" if f[1] else "upper",
                                 "T" if f[2] else "N", "unit" if f[3] else "diag") for f in FLAGS]
ORDERS = [1, 2, 31, 32, 33, 64, 100, 257]
COUNTS = [1, 3, 8, 64, 256]


_entries = float_entries("triangular_solve", ARGTYPES)
library = library_fixture(_entries)


def _shape(k: int, count: int, left: int) -> tuple[int, int]:
    """(m, n) of B for a k x k A and `count` right-hand sides."""
    return (k, count) if left else (count, k)


@functools.lru_cache(maxsize=None)
def case(dtype, batch: int, k: int, count: int, flags: tuple, seed: int = 0):
    """(a, b, expected): a batch of well-conditioned triangular A with NaN
    where it must not be read, B, and X in float64 (the arrays are shared:
    the solve must leave them as they are)."""
    left, lower, transpose, unit = flags
    rng = np.random.default_rng([seed, batch, k, count, *flags, int(dtype == np.float32)])
    t = rng.standard_normal((batch, k, k)) * (0.5 / np.sqrt(max(k, 1)))
    diagonal = np.arange(k)
    t[:, diagonal, diagonal] = 1 if unit else rng.uniform(1, 2, (batch, k)) * rng.choice([-1, 1], (batch, k))
    t = t.astype(dtype)
    inside = np.tril(np.ones((k, k), bool)) if lower else np.triu(np.ones((k, k), bool))
    a = np.where(inside, t, np.nan).astype(dtype)
    if unit:
        a[:, diagonal, diagonal] = np.nan
    clean = np.where(inside, t, 0).astype(np.float64)
    b = rng.standard_normal((batch, *_shape(k, count, left))).astype(dtype)
    return a, b, reference(clean, b, left, transpose)


def reference(clean: np.ndarray, b: np.ndarray, left: int, transpose: int) -> np.ndarray:
    """op(A) X = B (left) or X op(A) = B in float64, A the triangular matrices
    (the diagonal as the solve takes it)."""
    op = np.swapaxes(clean, -1, -2) if transpose else clean
    b = b.astype(np.float64)
    if op.shape[-1] == 0 or b.size == 0:
        return np.zeros(b.shape)
    if left:
        return np.linalg.solve(op, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def solve(entry, a: np.ndarray, b: np.ndarray, flags: tuple) -> np.ndarray:
    """X of the batch by `entry`, asserting that nothing outside it was
    written and a and b were only read."""
    batch, m, n = b.shape
    a_before, b_before = a.copy(), b.copy()
    buffer = np.full(batch * m * n + 2 * GUARD, -7.25, b.dtype)
    x = buffer[GUARD:GUARD + batch * m * n]
    entry(batch, m, n, a.ctypes.data, b.ctypes.data, x.ctypes.data, *flags)
    assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"
    np.testing.assert_array_equal(a, a_before, err_msg="a was written")
    np.testing.assert_array_equal(b, b_before, err_msg="b was written")
    return x.reshape(batch, m, n)


def check(entry, dtype, batch: int, k: int, count: int, flags: tuple, what: str = "") -> np.ndarray:
    a, b, expected = case(dtype, batch, k, count, flags)
    x = solve(entry, a, b, flags)
    tolerance = TOLERANCE[dtype]
    scale = max(float(np.abs(expected).max()) if expected.size else 1.0, 1.0)
    np.testing.assert_allclose(x, expected, rtol=tolerance, atol=tolerance * scale,
                               err_msg=f"{what} {dtype.__name__} batch {batch} k {k} count {count} flags {flags}")
    return x


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shapes(library, dtype, flags):
    """Every order below, at and across the diagonal blocks (64) and their
    halves, times 1 to 256 right-hand sides (tails of the vectors, the
    transposed products gemm.c prefers for few)."""
    for k, count in itertools.product(ORDERS, COUNTS):
        check(library[dtype], dtype, 1, k, count, flags)


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch(library, dtype, flags):
    """Three systems, each its own A and B; each the same alone."""
    for k, count in ((100, 40), (33, 3), (70, 17)):
        x = check(library[dtype], dtype, 3, k, count, flags)
        a, b, _ = case(dtype, 3, k, count, flags)
        single = solve(library[dtype], a[1:2].copy(), b[1:2].copy(), flags)
        np.testing.assert_array_equal(x[1], single[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,m,n", [(0, 4, 4), (2, 0, 5), (2, 5, 0), (0, 0, 0), (3, 0, 0), (1, 0, 3)])
def test_empty(library, dtype, batch, m, n):
    """Nothing to solve: nothing written (the guards), no crash."""
    for flags in FLAGS:
        k = m if flags[0] else n
        a = np.full((batch, k, k), np.nan, dtype)
        x = solve(library[dtype], a, np.ones((batch, m, n), dtype), flags)
        assert x.size == 0


def _solved_before(flags: tuple, k: int, j: int) -> np.ndarray:
    """The vectors (rows of X on the left, columns on the right) solved
    before vector j: those of lower index when the triangle in use makes
    the solve go forward."""
    left, lower, transpose, _ = flags
    forward = (lower ^ transpose) if left else not (lower ^ transpose)
    return np.arange(j) if forward else np.arange(j + 1, k)


def _vectors(x: np.ndarray, left: int, index) -> np.ndarray:
    return x[index] if left else x[:, index]


@pytest.mark.parametrize("flags", [f for f in FLAGS if not f[3]], ids=[i for f, i in zip(FLAGS, FLAG_IDS) if not f[3]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k,count,j", [(70, 8, 45), (150, 20, 100), (9, 3, 0)])
def test_zero_diagonal(library, dtype, flags, k, count, j):
    """A[j, j] = 0: what IEEE division gives, no crash. The vectors solved
    before j are the reference's, vector j is +-inf (its right-hand side,
    nonzero, over 0), and all that depend on it are inf or NaN."""
    left = flags[0]
    a, b, _ = case(dtype, 1, k, count, flags, seed=j)
    a = a.copy()
    a[0, j, j] = 0
    clean = np.nan_to_num(a[0].astype(np.float64), nan=0.0)
    clean[j, j] = 1  # vector j is then its right-hand side less the solved ones: the numerator
    numerator = reference(clean, b[0], left, flags[2])
    x = solve(library[dtype], a, b, flags)[0]
    before = _solved_before(flags, k, j)
    np.testing.assert_allclose(_vectors(x, left, before), _vectors(numerator, left, before),
                               rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype] * np.abs(numerator).max())
    got = _vectors(x, left, j)
    assert np.isinf(got).all(), got
    np.testing.assert_array_equal(np.sign(got), np.sign(_vectors(numerator, left, j)))
    after = np.setdiff1d(np.arange(k), np.append(before, j))
    assert not np.isfinite(_vectors(x, left, after)).any()


TINY = {np.float32: (2e-39, 1e-30, 1e38, 1e30), np.float64: (1e-310, 1e-300, 1e308, 1e300)}


@pytest.mark.parametrize("flags", [f for f in FLAGS if not f[3]], ids=[i for f, i in zip(FLAGS, FLAG_IDS) if not f[3]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiny_and_huge_diagonals(library, dtype, flags):
    """A subnormal diagonal (its reciprocal overflows) and a huge one (its
    reciprocal is subnormal) divide: exactly b / d, finite. Their rows and
    columns are otherwise zero, so that the rest is the reference's."""
    left = flags[0]
    k, count = 130, 5
    tiny, small, huge, large = TINY[dtype]
    a, b, _ = case(dtype, 1, k, count, flags, seed=1)
    a, b = a.copy(), b.copy()
    special = {20: (tiny, small), 90: (huge, large)}
    for j, (d, value) in special.items():
        a[0, j, :] = np.where(np.isnan(a[0, j, :]), np.nan, 0)
        a[0, :, j] = np.where(np.isnan(a[0, :, j]), np.nan, 0)
        a[0, j, j] = d
        if left:
            b[0, j, :] = value
        else:
            b[0, :, j] = value
    clean = np.nan_to_num(a[0].astype(np.float64), nan=0.0)
    for j in special:
        clean[j, j] = 1
    expected = reference(clean, b[0], left, flags[2])
    x = solve(library[dtype], a, b, flags)[0]
    for j, (d, value) in special.items():
        got = _vectors(x, left, j)
        want = dtype(value) / dtype(d)
        assert np.isfinite(want) and (got == want).all(), (j, got, want)
        if left:
            expected[j, :] = want
        else:
            expected[:, j] = want
    np.testing.assert_allclose(x, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype] * 10)


@pytest.mark.parametrize("dtype,k", [(np.float32, 1100), (np.float64, 800)])
def test_large_few(library, dtype, k):
    """Large systems, few right-hand sides: products of more than gemm.c
    computes without packing, in parts."""
    for flags in FLAGS:
        if not flags[3]:
            check(library[dtype], dtype, 1, k, 3, flags)


def test_threads(library):
    """Eight threads (ctypes releases the GIL) solving at once, each with its
    own scratch buffers."""
    failures = []

    def work(seed):
        try:
            for i in range(6):
                dtype = (np.float32, np.float64)[(seed + i) % 2]
                k, count = ((40, 5), (100, 64), (150, 17))[(seed + i) % 3]
                check(library[dtype], dtype, 1, k, count, FLAGS[(seed * 6 + i) % len(FLAGS)], f"thread {seed}")
        except AssertionError as error:
            failures.append(str(error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]


# --------------------------------------------------------------------------
# triangular_solve.c compiled here: each family (JAXC_TRSM_FAMILY), each with
# jaxc_scratch and aligned_alloc wrapped so that a test can take them away
# (jaxc_trsm_test_memory: 0 both, 1 no scratch: a fresh buffer, 2 neither:
# plain substitution)


MEMORY = """
#undef jaxc_scratch  /* compiled with the same -D as triangular_solve.c */
#undef aligned_alloc
#include <stddef.h>
#include <stdlib.h>
void *jaxc_scratch(int which, size_t bytes);
int jaxc_trsm_test_memory;
void *jaxc_trsm_test_scratch(int which, size_t bytes)
{
    return jaxc_trsm_test_memory ? NULL : jaxc_scratch(which, bytes);
}
void *jaxc_trsm_test_alloc(size_t alignment, size_t bytes)
{
    return jaxc_trsm_test_memory == 2 ? NULL : aligned_alloc(alignment, bytes);
}
"""
FAMILIES = {"sse2": 1, "avx2": 2, "avx512": 3}


def _runs(family: str) -> bool:
    flags = host.cpu_flags()
    return family == "sse2" or ({"avx2", "fma"} <= flags and (family == "avx2" or "avx512f" in flags))


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    """{family: (entries, memory switch)}: triangular_solve.c with
    -DJAXC_TRSM_FAMILY, the wrappers and gemm.c, compiled in parallel."""
    compiler = aot.find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp("triangular_solve")
    sources = {os.path.basename(path): path for path in aot.KERNEL_SOURCES}
    memory = tmp / "memory.c"
    memory.write_text(MEMORY)
    gemm = str(tmp / "gemm.o")
    subprocess.run([*compiler, "-c", "-fPIC", "-O3", "-std=gnu11", "-o", gemm, sources["gemm.c"]], check=True)
    built = {}
    for family, number in FAMILIES.items():
        if _runs(family):
            library = str(tmp / f"{family}.so")
            command = [*compiler, "-shared", "-fPIC", "-O3", "-std=gnu11", f"-DJAXC_TRSM_FAMILY={number}",
                       "-Djaxc_scratch=jaxc_trsm_test_scratch", "-Daligned_alloc=jaxc_trsm_test_alloc", "-o",
                       library, sources["triangular_solve.c"], gemm, str(memory), "-pthread"]
            built[family] = (library, subprocess.Popen(command))
    result = {}
    for family, (library, process) in built.items():
        assert process.wait() == 0, f"compiling {family}"
        loaded = ctypes.CDLL(library)
        result[family] = (_entries(loaded), ctypes.c_int.in_dll(loaded, "jaxc_trsm_test_memory"))
    return result


FAMILY_SHAPES = [(1, 1), (33, 3), (100, 17), (257, 40), (70, 1)]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family(families, family):
    """The blocked solve in each family: every case, tails of its vector
    width in both directions, partial diagonal blocks."""
    if family not in families:
        pytest.skip(f"this CPU cannot run {family}")
    entries, memory = families[family]
    memory.value = 0
    for dtype, flags in itertools.product((np.float32, np.float64), FLAGS):
        for k, count in FAMILY_SHAPES:
            check(entries[dtype], dtype, 1, k, count, flags, family)
        check(entries[dtype], dtype, 3, 70, 17, flags, family)


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("mode", [1, 2], ids=["no-scratch", "no-memory"])
def test_memory(families, family, mode):
    """No scratch: the same blocked solve in a fresh buffer. No memory at
    all: plain substitution from a into x, the same results."""
    if family not in families:
        pytest.skip(f"this CPU cannot run {family}")
    entries, memory = families[family]
    memory.value = mode
    try:
        for dtype, flags in itertools.product((np.float32, np.float64), FLAGS):
            for k, count in ((33, 3), (100, 17)):
                check(entries[dtype], dtype, 2, k, count, flags, f"{family} memory {mode}")
        x = solve(entries[np.float32], np.zeros((1, 3, 3), np.float32), np.ones((1, 3, 2), np.float32),
                  (1, 1, 0, 0))
        assert np.isinf(x[0, 0]).all() and not np.isfinite(x[0, 1:]).any()  # 1 / 0, then inf - inf
    finally:
        memory.value = 0


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    """A program that calls the solve compiles it and gemm.c into itself, and
    no other kernel source (aot.kernel_sources)."""
    for dtype, run in exported_runs(tmp_path, "triangular_solve", ARGTYPES).items():
        for flags in ((1, 1, 0, 0), (0, 0, 1, 1)):
            check(run, dtype, 2, 90, 70, flags, "exported")


def test_exported_programs_compile_only_the_kernels_they_call():
    def names(llvm_ir):
        return [os.path.basename(path) for path in aot.kernel_sources(llvm_ir)]

    assert names(program_calling("triangular_solve", 10)) == ["gemm.c", "triangular_solve.c"]
    assert names("call void @_mlir_ciface_jaxc_hermitian_dft_f32(i64 %0) call @_mlir_ciface_jaxc_svd_f64()") == \
        ["gemm.c", "fft.c", "svd.c"]
    assert names("define void @f() { ret void }") == []
    assert sorted(set(aot.KERNEL_FILES.values())) == sorted(os.path.basename(p) for p in aot.KERNEL_SOURCES)
