"""Singular value decompositions of the compiled library (python/jaxc/runtime/svd.c,
built with the other kernels into libjaxc_kernels.so), called directly through
ctypes against numpy.linalg.svd in float64: square sizes, tall and wide shapes
(the kernel works on the tall orientation), full and reduced U and Vh, batches,
f32 and f64; singular values compared directly (to s[0]), U and Vh through
U diag(s) Vh = x and orthonormality (the `full` columns and rows included),
and to NumPy's vectors up to sign where the singular values are well apart;
the sign convention (each row of Vh's largest component positive); rank-deficient
and zero matrices (still orthonormal U and Vh), repeated singular values, graded
columns, extreme magnitudes, NaN and inf (all NaN for that matrix only), empty
shapes, each instruction-set family and the out-of-memory path (NaNs). Every
call's outputs sit between guard values that must survive it, and x must be left
as it was.
"""
from __future__ import annotations

import ctypes
import os
import subprocess

import numpy as np
import pytest
from kernel_build import float_entries, library_fixture, skip_unless_the_cpu_runs

from jaxc.runtime import aot

ARGTYPES = [ctypes.c_long] * 4 + [ctypes.c_void_p] * 4
NAMES = {np.float32: "f32", np.float64: "f64"}
# Singular values relative to s[0]; U diag(s) Vh - x relative to s[0]; U^T U - I and Vh Vh^T - I.
TOLERANCE = {np.float32: 2e-6, np.float64: 5e-14}
GUARD = 40
SIZES = [1, 2, 31, 33, 64]
SHAPES = [(5, 3), (3, 5), (100, 40), (40, 100), (257, 5), (5, 257), (7, 1), (1, 7), (2, 1), (65, 64)]


_entries = float_entries("svd", ARGTYPES)
library = library_fixture(_entries)


def _guarded(size: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    buffer = np.full(size + 2 * GUARD, -7.25, dtype)
    return buffer, buffer[GUARD:GUARD + size]


def decompose(entry, x: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """s, U and Vh of the batch `x` (batch x m x n) by `entry`, asserting
    that nothing outside them was written and x was only read."""
    batch, m, n = x.shape
    k = min(m, n)
    ku, kv = (m, n) if full else (k, k)
    x = np.ascontiguousarray(x)
    before = x.copy()
    s_buffer, s = _guarded(batch * k, x.dtype)
    u_buffer, u = _guarded(batch * m * ku, x.dtype)
    vh_buffer, vh = _guarded(batch * kv * n, x.dtype)
    entry(batch, m, n, int(full), x.ctypes.data, s.ctypes.data, u.ctypes.data, vh.ctypes.data)
    for buffer in (s_buffer, u_buffer, vh_buffer):
        assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return s.reshape(batch, k), u.reshape(batch, m, ku), vh.reshape(batch, kv, n)


def _largest_positive(vectors: np.ndarray) -> bool:
    """Whether each row's first component of largest modulus is positive."""
    if vectors.size == 0:
        return True
    picked = vectors[np.arange(vectors.shape[0]), np.argmax(np.abs(vectors), axis=1)]
    return bool((picked > 0).all())


def check(entry, x: np.ndarray, full: bool, what: str = "", tolerance: float | None = None):
    """`entry` on the batch x against numpy.linalg.svd in float64: s to the
    tolerance (relative to s[0]), non-negative and descending; U diag(s) Vh = x;
    U and Vh orthonormal; the sign convention; and the vectors of singular
    values apart from the others and from zero by 1e-3 s[0] equal to NumPy's
    up to sign."""
    s, u, vh = decompose(entry, x, full)
    tolerance = tolerance or TOLERANCE[x.dtype.type]
    for b in range(x.shape[0]):
        message = f"{what} {x.dtype} {x.shape} full={full} matrix {b}"
        a = x[b].astype(np.float64)
        u_ref, s_ref, vh_ref = np.linalg.svd(a, full_matrices=False)
        k = s_ref.size
        scale = s_ref[0] if k and s_ref[0] > 0 else 1.0
        s64, u64, vh64 = s[b].astype(np.float64), u[b].astype(np.float64), vh[b].astype(np.float64)
        assert np.isfinite(s64).all() and np.isfinite(u64).all() and np.isfinite(vh64).all(), message
        assert (s64 >= 0).all() and (np.diff(s64) <= 0).all(), f"s not descending: {message}"
        np.testing.assert_allclose(s64 / scale, s_ref / scale, rtol=0, atol=tolerance, err_msg=f"s: {message}")
        np.testing.assert_allclose((u64[:, :k] * s64) @ vh64[:k] / scale, a / scale, rtol=0, atol=4 * tolerance,
                                   err_msg=f"U diag(s) Vh: {message}")
        np.testing.assert_allclose(u64.T @ u64, np.eye(u64.shape[1]), rtol=0, atol=4 * tolerance,
                                   err_msg=f"U^T U: {message}")
        np.testing.assert_allclose(vh64 @ vh64.T, np.eye(vh64.shape[0]), rtol=0, atol=4 * tolerance,
                                   err_msg=f"Vh Vh^T: {message}")
        assert _largest_positive(vh64), f"signs of Vh's rows: {message}"
        gaps = np.abs(s_ref[:, None] - s_ref[None, :]) + np.eye(k) * scale
        apart = (gaps.min(axis=1, initial=scale) > 1e-3 * scale) & (s_ref > 1e-3 * scale)  # 0: more nullity
        for i in np.flatnonzero(apart):
            sign = 1.0 if vh64[i] @ vh_ref[i] >= 0 else -1.0
            np.testing.assert_allclose(sign * vh64[i], vh_ref[i], rtol=0, atol=1e3 * tolerance,
                                       err_msg=f"right vector {i}: {message}")
            np.testing.assert_allclose(sign * u64[:, i], u_ref[:, i], rtol=0, atol=1e3 * tolerance,
                                       err_msg=f"left vector {i}: {message}")
    return s, u, vh


def _random(batch: int, m: int, n: int, dtype, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, m, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(n, n) for n in SIZES] + SHAPES, ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_random_matrices(library, dtype, shape, full):
    m, n = shape
    check(library[dtype], _random(1, m, n, dtype, m * 1000 + n), full)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(90, 45), (45, 90), (20, 20)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_batch(library, dtype, shape, full):
    """Each matrix on its own: the same as a call on it alone."""
    x = _random(3, *shape, dtype, 3)
    x[1] *= 1e3
    s, u, vh = check(library[dtype], x, full)
    s2, u2, vh2 = decompose(library[dtype], x[2:3], full)
    np.testing.assert_array_equal(s[2], s2[0])
    np.testing.assert_array_equal(u[2], u2[0])
    np.testing.assert_array_equal(vh[2], vh2[0])


def _special(kind: str, m: int, n: int, rng) -> np.ndarray:
    if kind == "rank 1":
        return rng.standard_normal((m, 1)) @ rng.standard_normal((1, n))
    if kind == "rank half":
        r = max(1, min(m, n) // 2)
        return rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
    if kind == "orthogonal":  # all singular values 1
        q, _ = np.linalg.qr(rng.standard_normal((max(m, n), max(m, n))))
        return q[:m, :n]
    if kind == "repeated":  # singular values 3, 3, 3, 1, 1, ...
        k = min(m, n)
        left, _ = np.linalg.qr(rng.standard_normal((m, k)))
        right, _ = np.linalg.qr(rng.standard_normal((n, k)))
        return (left * np.where(np.arange(k) < 3, 3.0, 1.0)) @ right.T
    if kind == "identity":
        return np.eye(m, n)
    if kind == "graded":  # columns from 1 down to 1e-12
        return rng.standard_normal((m, n)) * np.logspace(0, -12, n)
    if kind == "zero row and column":
        a = rng.standard_normal((m, n))
        a[:, n // 2] = 0
        a[m // 2, :] = 0
        return a
    raise ValueError(kind)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["rank 1", "rank half", "orthogonal", "repeated", "identity", "graded",
                                  "zero row and column"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (40, 40), (70, 30), (30, 70)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_special_matrices(library, dtype, kind, shape, full):
    """Rank-deficient matrices (orthonormal vectors for the zero singular
    values too), repeated singular values, graded columns, zero rows and
    columns."""
    x = _special(kind, *shape, np.random.default_rng(len(kind)))
    check(library[dtype], x[None].astype(dtype), full, kind)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (3, 5), (40, 40), (70, 33)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_zero_matrix(library, dtype, shape, full):
    """s zero, U and Vh the identity's columns and rows, exactly."""
    m, n = shape
    s, u, vh = decompose(library[dtype], np.zeros((2, m, n), dtype), full)
    np.testing.assert_array_equal(s, 0)
    np.testing.assert_array_equal(u, np.broadcast_to(np.eye(m, u.shape[2], dtype=dtype), u.shape))
    np.testing.assert_array_equal(vh, np.broadcast_to(np.eye(vh.shape[1], n, dtype=dtype), vh.shape))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,m,n", [(0, 4, 4), (2, 0, 3), (2, 3, 0), (1, 0, 0), (0, 0, 0), (0, 5, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_empty(library, dtype, batch, m, n, full):
    """No columns or no rows: s empty, U and Vh the identity's first columns and rows."""
    s, u, vh = decompose(library[dtype], np.ones((batch, m, n), dtype), full)
    assert s.size == 0
    np.testing.assert_array_equal(u, np.broadcast_to(np.eye(m, u.shape[2], dtype=dtype), u.shape))
    np.testing.assert_array_equal(vh, np.broadcast_to(np.eye(vh.shape[1], n, dtype=dtype), vh.shape))


MAGNITUDES = {np.float32: [1e30, 1e-30, 1e-40], np.float64: [1e30, 1e-30, 1e300, 1e-300, 1e-310]}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(30, 20), (20, 30)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_extreme_magnitudes(library, dtype, shape, full):
    """Whole matrices whose squares would overflow or underflow (subnormal
    ones too): the same relative accuracy."""
    for i, magnitude in enumerate(MAGNITUDES[dtype]):
        x = (_random(1, *shape, np.float64, 17 + i) * magnitude).astype(dtype)
        check(library[dtype], x, full, f"magnitude {magnitude}",
              tolerance=1e-4 if magnitude < np.finfo(dtype).tiny else None)  # subnormal inputs: few bits


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("shape,where", [((40, 30), (0, 0)), ((40, 30), (39, 29)), ((30, 40), (10, 35))], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_nan_and_inf(library, dtype, value, shape, where, full):
    """All NaN for that matrix only, as JAX (whose LAPACK call fails)."""
    x = _random(3, *shape, dtype, 4)
    x[1][where] = value
    s, u, vh = decompose(library[dtype], x, full)
    assert np.isnan(s[1]).all() and np.isnan(u[1]).all() and np.isnan(vh[1]).all()
    check(library[dtype], x[[0, 2]], full)
    s2, u2, vh2 = decompose(library[dtype], x[[0, 2]], full)
    np.testing.assert_array_equal(s[[0, 2]], s2)
    np.testing.assert_array_equal(u[[0, 2]], u2)
    np.testing.assert_array_equal(vh[[0, 2]], vh2)


# --------------------------------------------------------------------------
# svd.c compiled here: each family (JAXC_SVD_FAMILY), and no memory

STUBS = """
#undef aligned_alloc
#include <stdlib.h>
void *jaxc_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
int jaxc_svd_test_no_memory;
void *jaxc_svd_test_alloc(size_t alignment, size_t bytes)
{
    return jaxc_svd_test_no_memory ? NULL : aligned_alloc(alignment, bytes);
}
"""
FAMILIES = [("sse2", 1), ("avx2", 2), ("avx512", 3)]


@pytest.fixture(scope="module")
def compiled_svd(tmp_path_factory):
    """{family: library}: svd.c built once per family, in parallel, with
    stubs for jaxc_scratch (none: the aligned_alloc path; the library's tests
    above take the scratch) and aligned_alloc (NULL while the library's
    jaxc_svd_test_no_memory is set)."""
    compiler = aot.find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp("svd")
    source = {os.path.basename(path): path for path in aot.KERNEL_SOURCES}["svd.c"]
    stubs = tmp / "stubs.c"
    stubs.write_text(STUBS)
    processes = {name: subprocess.Popen([*compiler, "-shared", "-fPIC", "-O3", "-std=gnu11",
                                         f"-DJAXC_SVD_FAMILY={number}", "-Daligned_alloc=jaxc_svd_test_alloc",
                                         "-o", str(tmp / f"{name}.so"), source, str(stubs), "-lm"])
                 for name, number in FAMILIES}
    for name, process in processes.items():
        assert process.wait() == 0, f"compiling {name}"
    return {name: ctypes.CDLL(str(tmp / f"{name}.so")) for name, _ in FAMILIES}


@pytest.mark.parametrize("family,number", FAMILIES)
def test_each_family(compiled_svd, family, number):
    skip_unless_the_cpu_runs(family)
    entries = _entries(compiled_svd[family])
    rng = np.random.default_rng(number)
    for dtype in (np.float32, np.float64):
        for full in (False, True):
            for m, n in ((1, 1), (5, 5), (33, 33), (70, 30), (30, 70), (257, 5), (5, 257)):
                check(entries[dtype], _random(2, m, n, dtype, m + n), full, family)
            for kind in ("rank half", "repeated", "zero row and column"):
                check(entries[dtype], _special(kind, 37, 21, rng)[None].astype(dtype), full, f"{family} {kind}")
            s, u, vh = decompose(entries[dtype], np.zeros((1, 9, 4), dtype), full)
            np.testing.assert_array_equal(u[0], np.eye(9, u.shape[2]))


def test_no_memory(compiled_svd):
    """No scratch and no aligned_alloc: all NaN, no crash (empty shapes,
    which need no memory, as ever); then memory again, and results."""
    library = compiled_svd["sse2"]
    entries = _entries(library)
    no_memory = ctypes.c_int.in_dll(library, "jaxc_svd_test_no_memory")
    no_memory.value = 1
    try:
        for dtype in (np.float32, np.float64):
            for full in (False, True):
                for m, n in ((1, 1), (30, 20), (20, 30)):
                    s, u, vh = decompose(entries[dtype], _random(2, m, n, dtype, 5), full)
                    assert np.isnan(s).all() and np.isnan(u).all() and np.isnan(vh).all()
                s, u, vh = decompose(entries[dtype], np.ones((1, 3, 0), dtype), full)
                np.testing.assert_array_equal(u[0], np.eye(3, u.shape[2]))
    finally:
        no_memory.value = 0
    check(entries[np.float64], _random(2, 30, 20, np.float64, 5), True, "memory again")
