"""Symmetric eigendecompositions of the compiled library (python/jaxc/runtime/eigh.c,
built into libjaxc_kernels.so), called directly through ctypes against NumPy in
float64: eigenvalues against np.linalg.eigvalsh, the invariants A V = V diag(w)
and V^T V = I, eigenvectors against np.linalg.eigh's up to sign where the
eigenvalues are well separated, and the sign convention (each eigenvector's
component of largest modulus positive). Sizes around the vector widths, lower
and upper triangles, f32 and f64, NaN garbage in the triangle that is not read,
batches, diagonal, identity, rank-1, repeated eigenvalues and zero matrices,
huge and tiny scales, matrices holding a NaN or an inf (all NaN, the rest of the
batch unaffected), empty shapes, each instruction-set family, the fallback
allocation, QL's failure path, the out-of-memory path (all NaN) and the copy an
exported program (jaxc.runtime.aot) compiles into itself. Every call's outputs
sit between guard values that must survive it, and x must be left as it was.
"""
from __future__ import annotations

import concurrent.futures
import ctypes
import os
import subprocess

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, library_fixture, skip_unless_the_cpu_runs

from jaxc.passes import host
from jaxc.runtime import aot

ARGTYPES = [ctypes.c_long] * 3 + [ctypes.c_void_p] * 3
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-13}
NAMES = {np.float32: "f32", np.float64: "f64"}
GUARD = 40
SIZES = [1, 2, 3, 10, 31, 32, 33, 64, 100, 257]


_entries = float_entries("eigh", ARGTYPES)
library = library_fixture(_entries)


def decompose(entry, x: np.ndarray, lower: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(values, vectors) of the batch `x` (batch x n x n) by `entry`,
    asserting that nothing outside them was written and x was only read."""
    batch, n, _ = x.shape
    x = np.ascontiguousarray(x)
    before = x.copy()
    vectors = np.full(batch * n * n + 2 * GUARD, -7.25, x.dtype)
    values = np.full(batch * n + 2 * GUARD, -7.25, x.dtype)
    v, w = vectors[GUARD:GUARD + batch * n * n], values[GUARD:GUARD + batch * n]
    entry(batch, n, int(lower), x.ctypes.data, v.ctypes.data, w.ctypes.data)
    for buffer in (vectors, values):
        assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return w.reshape(batch, n), v.reshape(batch, n, n)


def symmetric(x: np.ndarray, lower: bool = True) -> np.ndarray:
    """The float64 symmetric matrix whose lower (upper) triangle is x's."""
    t = np.tril(x.astype(np.float64)) if lower else np.triu(x.astype(np.float64)).T
    return t + np.tril(t, -1).T


def _read_triangle(x: np.ndarray, lower: bool) -> np.ndarray:
    n = x.shape[-1]
    rows, cols = np.tril_indices(n) if lower else np.triu_indices(n)
    return x[..., rows, cols]


def check_matrix(w: np.ndarray, v: np.ndarray, a: np.ndarray, dtype, what: str = "",
                 compare_vectors: bool = True) -> None:
    """w and v (as returned) against the float64 symmetric a: eigenvalues,
    A V = V W, V^T V = I, signs, and NumPy's eigenvectors where separated."""
    n = a.shape[0]
    w, v = w.astype(np.float64), v.astype(np.float64)
    tolerance = TOLERANCE[dtype]
    reference, reference_vectors = np.linalg.eigh(a)
    norm = max(np.abs(reference).max(), np.finfo(np.float64).tiny) if n else 1.0
    assert np.isfinite(w).all() and np.isfinite(v).all(), f"not finite: {what}"
    assert (np.diff(w) >= 0).all(), f"not ascending: {what}"
    np.testing.assert_allclose(w, reference, rtol=0, atol=tolerance * norm, err_msg=f"values: {what}")
    residual = np.abs(a @ v - v * w).max() / norm
    assert residual <= tolerance * 10, f"A V - V W {residual:.2e}: {what}"
    orthogonality = np.abs(v.T @ v - np.eye(n)).max()
    assert orthogonality <= tolerance * 10, f"V^T V - I {orthogonality:.2e}: {what}"
    assert (v.max(axis=0) >= -v.min(axis=0) - tolerance).all(), f"largest component negative: {what}"
    if compare_vectors and n > 1:
        gaps = np.diff(reference)
        separation = np.minimum(np.r_[np.inf, gaps], np.r_[gaps, np.inf])
        for j in np.nonzero(separation > 1e-3 * norm)[0]:
            sign = 1.0 if v[:, j] @ reference_vectors[:, j] >= 0 else -1.0
            np.testing.assert_allclose(v[:, j], sign * reference_vectors[:, j], rtol=0,
                                       atol=tolerance * 1e3, err_msg=f"vector {j}: {what}")


def check(entry, x: np.ndarray, lower: bool = True, what: str = "", compare_vectors: bool = True):
    """`entry` on the batch x: all NaN where x's read triangle is not all
    finite, else against NumPy."""
    w, v = decompose(entry, x, lower)
    for b in range(x.shape[0]):
        message = f"{what} {x.dtype} {x.shape} lower={lower} matrix {b}"
        if not np.isfinite(_read_triangle(x[b], lower)).all():
            assert np.isnan(w[b]).all() and np.isnan(v[b]).all(), f"not all NaN: {message}"
            continue
        check_matrix(w[b], v[b], symmetric(x[b], lower), x.dtype.type, message, compare_vectors)
    return w, v


def _random(batch: int, n: int, dtype, seed: int, lower: bool = True, garbage: bool = True) -> np.ndarray:
    """Random symmetric matrices, NaN in the triangle not read when `garbage`."""
    a = np.random.default_rng(seed).standard_normal((batch, n, n))
    x = a + a.transpose(0, 2, 1)
    if garbage:
        rows, cols = np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)
        x[:, rows, cols] = np.nan
    return x.astype(dtype)


def _with_values(values, seed: int) -> np.ndarray:
    """Q diag(values) Q^T for a random orthogonal Q."""
    n = len(values)
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return (q * np.asarray(values, np.float64)) @ q.T


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lower", [True, False])
def test_random_matrices(library, dtype, n, lower):
    check(library[dtype], _random(2, n, dtype, n, lower), lower)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lower", [True, False])
def test_unread_triangle_is_not_read(library, dtype, lower):
    clean = _random(1, 100, dtype, 5, lower, garbage=False)
    noisy = clean.copy()
    rows, cols = np.triu_indices(100, 1) if lower else np.tril_indices(100, -1)
    noisy[0][rows, cols] = np.random.default_rng(1).standard_normal(4950) * 1e30
    noisy[0, rows[7], cols[7]] = np.inf
    for got, expected in zip(decompose(library[dtype], noisy, lower), decompose(library[dtype], clean, lower)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lower_and_upper_agree(library, dtype):
    """The upper triangle of x^T is the lower triangle of x: the same results, bit for bit."""
    x = _random(2, 45, dtype, 9, garbage=False)
    x[:, np.triu_indices(45, 1)[0], np.triu_indices(45, 1)[1]] = 3.0
    for got, expected in zip(decompose(library[dtype], np.ascontiguousarray(x.transpose(0, 2, 1)), False),
                             decompose(library[dtype], x, True)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch(library, dtype):
    """Each matrix decided on its own: the second, with a NaN, all NaN."""
    x = _random(4, 70, dtype, 3)
    x[1, 50, 20] = np.nan
    w, v = check(library[dtype], x)
    assert np.isnan(w[1]).all() and np.isnan(v[1]).all()
    for b in (0, 2, 3):
        assert np.isfinite(w[b]).all() and np.isfinite(v[b]).all()
        single = decompose(library[dtype], x[b:b + 1])
        np.testing.assert_array_equal(w[b], single[0][0])
        np.testing.assert_array_equal(v[b], single[1][0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 64])
@pytest.mark.parametrize("where", ["nan diagonal", "nan below", "inf below", "-inf diagonal"])
@pytest.mark.parametrize("lower", [True, False])
def test_not_finite(library, dtype, n, where, lower):
    if n == 1 and "below" in where:
        pytest.skip("nothing below the diagonal")
    x = _random(3, n, dtype, n, lower)
    k = n * 2 // 3
    i, j = (k, k) if "diagonal" in where else (n - 1, k // 2)
    if not lower:
        i, j = j, i
    x[1, i, j] = np.nan if where.startswith("nan") else -np.inf if where.startswith("-") else np.inf
    w, v = check(library[dtype], x, lower)
    assert np.isnan(w[1]).all() and np.isnan(v[1]).all()
    assert np.isfinite(w[[0, 2]]).all() and np.isfinite(v[[0, 2]]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_diagonal(library, dtype, n):
    """A diagonal matrix: its diagonal sorted and the permuted identity, exactly."""
    d = np.random.default_rng(n).standard_normal(n).astype(dtype)
    x = np.diag(d)[None]
    x[0][np.triu_indices(n, 1)] = np.nan
    w, v = decompose(library[dtype], x)
    order = np.argsort(d, kind="stable")
    np.testing.assert_array_equal(w[0], d[order])
    np.testing.assert_array_equal(v[0], np.eye(n, dtype=dtype)[:, order])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 6, 33])
def test_identity_and_zero(library, dtype, n):
    for scale in (1.0, 0.0):
        x = (np.eye(n) * scale).astype(dtype)[None]
        w, v = decompose(library[dtype], x)
        np.testing.assert_array_equal(w[0], np.full(n, scale, dtype))
        np.testing.assert_array_equal(v[0], np.eye(n, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lower", [True, False])
def test_repeated_eigenvalues(library, dtype, lower):
    """Rank-1 u u^T, and Q diag(...) Q^T with clusters: invariants only where repeated."""
    u = np.random.default_rng(2).standard_normal(50)
    cases = [np.outer(u, u), _with_values([1, 1, 1, 2, 2, 3, -1, -1, 0, 0, 0, 0] * 4, 3),
             _with_values([5.0] * 20 + [5.0 + 1e-9] * 20, 4), np.full((17, 17), -2.0)]
    for a in cases:
        check(library[dtype], a.astype(dtype)[None], lower, "repeated")


@pytest.mark.parametrize("dtype,scale", [(np.float64, 1e30), (np.float64, 1e-30), (np.float64, 1e300),
                                         (np.float64, 1e-300), (np.float64, 1e-310), (np.float32, 1e30),
                                         (np.float32, 1e-30)])
def test_scales(library, dtype, scale):
    """Huge and tiny matrices: the unit-scale results times the scale."""
    a = np.random.default_rng(8).standard_normal((60, 60))
    a = (a + a.T) / 16
    x = (a * scale).astype(dtype)
    if scale < 1e-300:  # subnormal: fewer digits to compare
        w, v = decompose(library[dtype], x[None])
        np.testing.assert_allclose(w[0] / scale, np.linalg.eigvalsh(x / scale), rtol=0, atol=1e-3)
        np.testing.assert_allclose(v[0].T @ v[0], np.eye(60), rtol=0, atol=1e-13)
        return
    check(library[dtype], x[None], what=f"scale {scale}")
    w, v = decompose(library[dtype], x[None])
    exact = symmetric(x)
    reference = np.linalg.eigvalsh(exact / scale)
    np.testing.assert_allclose(w[0].astype(np.float64) / scale, reference, rtol=0,
                               atol=TOLERANCE[dtype] * np.abs(reference).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tridiagonal_and_graded(library, dtype):
    """Already tridiagonal (no reflector), and widely graded eigenvalues."""
    n = 80
    t = np.diag(np.random.default_rng(5).standard_normal(n)) + np.diag(np.ones(n - 1), -1)
    check(library[dtype], t.astype(dtype)[None], what="tridiagonal")
    graded = _with_values(np.logspace(-6, 6, 30) * np.tile([1, -1], 15), 6)
    check(library[dtype], graded.astype(dtype)[None], what="graded")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,n", [(0, 4), (2, 0), (0, 0), (1, 0)])
def test_empty(library, dtype, batch, n):
    w, v = decompose(library[dtype], np.ones((batch, n, n), dtype))
    assert w.size == 0 and v.size == 0


# --------------------------------------------------------------------------
# eigh.c compiled here: each family (JAXC_EIGH_FAMILY), the fallback
# allocation with QL allowed no sweep (JAXC_EIGH_SWEEPS=0), and no memory


NO_MEMORY = """
#include <stddef.h>
void *jaxc_eigh_test_no_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
void *jaxc_eigh_test_no_alloc(size_t alignment, size_t bytes) { (void)alignment; (void)bytes; return NULL; }
"""

FAMILIES = [("sse2", 1), ("avx2", 2), ("avx512", 3)]


def _best_family() -> int:
    flags = host.cpu_flags()
    return 3 if {"avx512f", "avx2", "fma"} <= flags else 2 if {"avx2", "fma"} <= flags else 1


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """name -> entries of a library of eigh.c (compiled with its flags) and
    gemm.c (the scratch), all built at once."""
    compiler = aot.find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp("eigh")
    sources = {os.path.basename(path): path for path in aot.KERNEL_SOURCES}
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    builds = {"fallback": ["-Djaxc_scratch=jaxc_eigh_test_no_scratch", "-DJAXC_EIGH_SWEEPS=0", str(stub)],
              "no_memory": ["-Djaxc_scratch=jaxc_eigh_test_no_scratch", "-Daligned_alloc=jaxc_eigh_test_no_alloc",
                            str(stub)]}
    best = _best_family()
    builds.update({family: [f"-DJAXC_EIGH_FAMILY={number}"] for family, number in FAMILIES if number < best})
    gemm = str(tmp / "gemm.o")

    def build(name: str) -> str:
        library = str(tmp / f"{name}.so")
        subprocess.run([*compiler, "-shared", "-fPIC", "-O3", "-std=gnu11", *builds[name], "-o", library,
                        sources["eigh.c"], gemm, "-pthread", "-lm"], check=True)
        return library

    subprocess.run([*compiler, "-c", "-fPIC", "-O3", "-std=gnu11", "-o", gemm, sources["gemm.c"]], check=True)
    with concurrent.futures.ThreadPoolExecutor(len(builds)) as pool:
        libraries = dict(zip(builds, pool.map(build, builds)))
    return {name: _entries(ctypes.CDLL(path)) for name, path in libraries.items()}


def _compiled_cases(entries, what):
    for dtype in (np.float32, np.float64):
        for n in (1, 5, 33, 100):
            for lower in (True, False):
                check(entries[dtype], _random(2, n, dtype, n + 11, lower), lower, what)
        x = _random(3, 64, dtype, 8)
        x[2, 40, 30] = np.inf
        w, v = check(entries[dtype], x, what=what)
        assert np.isfinite(w[:2]).all() and np.isnan(w[2]).all() and np.isnan(v[2]).all()
        check(entries[dtype], _with_values([1, 1, 2, 2, 2, 3] * 5, 1).astype(dtype)[None], what=what)


@pytest.mark.parametrize("family,number", FAMILIES)
def test_each_family(library, compiled, family, number):
    skip_unless_the_cpu_runs(family)
    _compiled_cases(compiled[family] if number < _best_family() else library, family)


def test_fallback_allocation_and_no_convergence(compiled):
    """No scratch: a fresh allocation, the same results. QL allowed no sweep:
    matrices that need one all NaN, the diagonal ones of the batch exact."""
    entries = compiled["fallback"]
    for dtype in (np.float32, np.float64):
        x = _random(3, 30, dtype, 2, garbage=False)
        x[0] = np.diag(np.arange(30, 0, -1)).astype(dtype)
        x[2] = np.diag(np.linspace(-1, 1, 30)).astype(dtype)
        w, v = decompose(entries[dtype], x)
        assert np.isnan(w[1]).all() and np.isnan(v[1]).all()
        for b in (0, 2):
            order = np.argsort(np.diag(x[b]), kind="stable")
            np.testing.assert_array_equal(w[b], np.diag(x[b])[order])
            np.testing.assert_array_equal(v[b], np.eye(30, dtype=dtype)[:, order])


def test_no_memory(compiled):
    """No scratch and no aligned_alloc: all NaN, nothing written out of bounds."""
    for dtype in (np.float32, np.float64):
        w, v = decompose(compiled["no_memory"][dtype], _random(2, 20, dtype, 1))
        assert np.isnan(w).all() and np.isnan(v).all()


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    for dtype, run in exported_runs(tmp_path, "eigh", ARGTYPES).items():
        for lower in (True, False):
            check(run, _random(2, 90, dtype, 1, lower), lower, "exported")
