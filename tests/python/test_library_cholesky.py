"""Cholesky factorizations of the compiled library (python/jaxc/runtime/cholesky.c,
built with gemm.c into libjaxc_kernels.so), called directly through ctypes
against a left-looking NumPy reference in float64: sizes below, at and across
the block size, a batch with one matrix that is not positive definite, f32 and
f64, NaN garbage above the diagonal (never read), matrices that are not positive
definite, zero, or hold a NaN or an inf (all NaN), empty shapes, each
instruction-set family, the out-of-memory path (potf2 in place) and the copy an
exported program (jaxc.runtime.aot) compiles into itself. Every call's output
sits between guard values that must survive it, and x must be left as it was.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, kernel_builder, library_fixture, skip_unless_the_cpu_runs

ARGTYPES = [ctypes.c_long] * 2 + [ctypes.c_void_p] * 2
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}
NAMES = {np.float32: "f32", np.float64: "f64"}
GUARD = 40
SIZES = [1, 2, 31, 32, 33, 64, 100, 257]


_entries = float_entries("cholesky", ARGTYPES)
library = library_fixture(_entries)


def reference(x: np.ndarray) -> np.ndarray:
    """Left-looking Cholesky in float64 of x's lower triangle; all NaN when
    the result is not a finite L with a positive diagonal."""
    a = x.astype(np.float64)
    n = a.shape[0]
    lower = np.zeros((n, n))
    with np.errstate(all="ignore"):
        for j in range(n):
            r = a[j:, j] - lower[j:, :j] @ lower[j, :j]
            d = np.sqrt(r[0])
            lower[j, j] = d
            lower[j + 1:, j] = r[1:] / d
    if not ((np.diag(lower) > 0).all() and np.isfinite(lower).all()):
        return np.full((n, n), np.nan)
    return lower


def factor(entry, x: np.ndarray) -> np.ndarray:
    """L of the batch `x` (batch x n x n) by `entry`, asserting that nothing
    outside it was written and x was only read."""
    batch, n, _ = x.shape
    x = np.ascontiguousarray(x)
    before = x.copy()
    buffer = np.full(batch * n * n + 2 * GUARD, -7.25, x.dtype)
    out = buffer[GUARD:GUARD + batch * n * n]
    entry(batch, n, x.ctypes.data, out.ctypes.data)
    assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return out.reshape(batch, n, n)


def check(entry, x: np.ndarray, what: str = "") -> np.ndarray:
    """`entry` on the batch x against the reference: all NaN where it is,
    else to rounding with exact zeros above the diagonal."""
    lower = factor(entry, x)
    tolerance = TOLERANCE[x.dtype.type]
    for b in range(x.shape[0]):
        f = reference(x[b])
        message = f"{what} {x.dtype} {x.shape} matrix {b}"
        if np.isnan(f).all():
            assert np.isnan(lower[b]).all(), f"not all NaN: {message}"
            continue
        assert not np.triu(lower[b], 1).any(), f"nonzero above the diagonal: {message}"
        np.testing.assert_allclose(lower[b], f, rtol=tolerance, atol=tolerance * np.abs(f).max(), err_msg=message)
    return lower


def _spd(batch: int, n: int, dtype, seed: int, garbage: bool = True) -> np.ndarray:
    """Random symmetric positive definite matrices A A^T / n + I, NaN above
    the diagonal when `garbage` (only the lower triangle may be read)."""
    a = np.random.default_rng(seed).standard_normal((batch, n, n))
    x = a @ a.transpose(0, 2, 1) / n + np.eye(n)
    if garbage:
        x[:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = np.nan
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_random_matrices(library, dtype, n):
    x = _spd(1, n, dtype, n)
    lower = check(library[dtype], x).astype(np.float64)[0]
    assert np.isfinite(lower).all()
    full = np.tril(x[0].astype(np.float64)) + np.tril(x[0].astype(np.float64), -1).T  # and L L^T = A
    np.testing.assert_allclose(lower @ lower.T, full, rtol=0, atol=TOLERANCE[dtype] * 10 * np.abs(full).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_garbage_above_the_diagonal_is_not_read(library, dtype):
    clean = _spd(1, 100, dtype, 5, garbage=False)
    noisy = clean.copy()
    noisy[0][np.triu_indices(100, 1)] = np.random.default_rng(1).standard_normal(4950) * 1e30
    np.testing.assert_array_equal(factor(library[dtype], noisy), factor(library[dtype], clean))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch(library, dtype):
    """Each matrix decided on its own: the second, not positive definite, all NaN."""
    x = _spd(3, 70, dtype, 3)
    x[1, 50, 50] = -100
    lower = check(library[dtype], x)
    assert np.isnan(lower[1]).all()
    assert np.isfinite(lower[0]).all() and np.isfinite(lower[2]).all()
    np.testing.assert_array_equal(lower[2], factor(library[dtype], x[2:3])[0])


def _bad(n: int, dtype, seed: int, kind: str) -> np.ndarray:
    x = _spd(1, n, dtype, seed, garbage=False)
    k = n * 2 // 3
    if kind == "negative eigenvalue":
        q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
        values = np.linspace(1, 2, n)
        values[k] = -0.5
        x[0] = ((q * values) @ q.T).astype(dtype)
    elif kind == "zero":
        x[:] = 0
    elif kind == "nan diagonal":
        x[0, k, k] = np.nan
    elif kind == "nan below":
        x[0, n - 1, k] = np.nan
    elif kind == "inf below":
        x[0, k, k // 2] = np.inf
    elif kind == "inf diagonal":
        x[0, n - 1, n - 1] = np.inf
    elif kind == "last pivot zero":
        x[0, n - 1, n - 1] -= float(reference(x[0])[n - 1, n - 1]) ** 2 * 2
    return x


KINDS = ["negative eigenvalue", "zero", "nan diagonal", "nan below", "inf below", "inf diagonal", "last pivot zero"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 100])
@pytest.mark.parametrize("kind", KINDS)
def test_not_positive_definite(library, dtype, n, kind):
    if n == 1 and kind in ("nan below", "inf below"):
        pytest.skip("nothing below the diagonal")
    x = _bad(n, dtype, n, kind)
    assert np.isnan(reference(x[0])).all()
    assert np.isnan(factor(library[dtype], x)).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,n", [(0, 4), (2, 0), (0, 0), (1, 0)])
def test_empty(library, dtype, batch, n):
    assert factor(library[dtype], np.ones((batch, n, n), dtype)).size == 0


# --------------------------------------------------------------------------
# cholesky.c compiled here: each family (JAXC_CHOLESKY_FAMILY), and no memory


NO_MEMORY = """
#include <stddef.h>
void *jaxc_cholesky_test_no_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
void *jaxc_cholesky_test_no_alloc(size_t alignment, size_t bytes) { (void)alignment; (void)bytes; return NULL; }
"""


@pytest.fixture(scope="module")
def compile_cholesky(tmp_path_factory):
    """compile_cholesky(name, flags): a library of cholesky.c (compiled with `flags`) and gemm.c."""
    return kernel_builder(tmp_path_factory, "cholesky.c", _entries)


def _compiled_cases(entries, what):
    for dtype in (np.float32, np.float64):
        for n in (1, 5, 33, 100, 257):
            check(entries[dtype], _spd(2, n, dtype, n + 11), what)
        x = _spd(3, 100, dtype, 8)
        x[0] = _bad(100, dtype, 1, "negative eigenvalue")[0]
        x[2, 90, 40] = np.nan
        lower = check(entries[dtype], x, what)
        assert np.isnan(lower[0]).all() and np.isfinite(lower[1]).all() and np.isnan(lower[2]).all()


@pytest.mark.parametrize("family,number", [("sse2", 1), ("avx2", 2), ("avx512", 3)])
def test_each_family(compile_cholesky, family, number):
    skip_unless_the_cpu_runs(family)
    build, _ = compile_cholesky
    _compiled_cases(build(family, [f"-DJAXC_CHOLESKY_FAMILY={number}"]), family)


def test_no_memory(compile_cholesky):
    """No scratch and no aligned_alloc: potf2 in place, the same results."""
    build, tmp = compile_cholesky
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    _compiled_cases(build("no_memory", ["-Djaxc_scratch=jaxc_cholesky_test_no_scratch",
                                        "-Daligned_alloc=jaxc_cholesky_test_no_alloc"], [str(stub)]), "no memory")


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    for dtype, run in exported_runs(tmp_path, "cholesky", ARGTYPES).items():
        check(run, _spd(2, 90, dtype, 1), "exported")
