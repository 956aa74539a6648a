"""QR factorizations of the compiled library (python/jaxc/runtime/qr.c, built
with gemm.c into libjaxc_kernels.so), called directly through ctypes against
numpy.linalg.qr (LAPACK's dgeqrf and dorgqr, whose Householder conventions the
kernel follows, signs included) in float64: square sizes below, at and across
the panel width, tall and wide shapes, full ('complete') and reduced Q, batches,
f32 and f64, zero columns (no reflection), a zero matrix, empty shapes, columns
of very large and very small magnitude (scaled norms, dlarfg's rescaling), NaN
and inf (no crash), each instruction-set family, the out-of-memory path (geqr2
and org2r in place) and the copy an exported program (jaxc.runtime.aot)
compiles into itself. Every call's outputs sit between guard values that must
survive it, and x must be left as it was.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from kernel_build import exported_runs, float_entries, kernel_builder, library_fixture, skip_unless_the_cpu_runs

ARGTYPES = [ctypes.c_long] * 4 + [ctypes.c_void_p] * 3
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}
NAMES = {np.float32: "f32", np.float64: "f64"}
GUARD = 40
SIZES = [1, 2, 31, 32, 33, 64, 100, 257]
SHAPES = [(70, 30), (30, 70), (257, 5), (5, 257), (65, 97), (97, 65), (3, 1), (1, 3)]


_entries = float_entries("qr", ARGTYPES)
library = library_fixture(_entries)


def _guarded(size: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    buffer = np.full(size + 2 * GUARD, -7.25, dtype)
    return buffer, buffer[GUARD:GUARD + size]


def factor(entry, x: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray]:
    """Q and R of the batch `x` (batch x m x n) by `entry`, asserting that
    nothing outside them was written and x was only read."""
    batch, m, n = x.shape
    k = min(m, n)
    kq = m if full else k
    x = np.ascontiguousarray(x)
    before = x.copy()
    q_buffer, q = _guarded(batch * m * kq, x.dtype)
    r_buffer, r = _guarded(batch * kq * n, x.dtype)
    entry(batch, m, n, int(full), x.ctypes.data, q.ctypes.data, r.ctypes.data)
    for buffer in (q_buffer, r_buffer):
        assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return q.reshape(batch, m, kq), r.reshape(batch, kq, n)


def check(entry, x: np.ndarray, full: bool, what: str = "") -> tuple[np.ndarray, np.ndarray]:
    """`entry` on the batch x against numpy.linalg.qr in float64: Q to the
    tolerance, R column by column relative to x's column (so that columns of
    any magnitude count alike), exact zeros below R's diagonal, Q's columns
    orthonormal and Q R = x."""
    q, r = factor(entry, x, full)
    tolerance = TOLERANCE[x.dtype.type]
    for b in range(x.shape[0]):
        message = f"{what} {x.dtype} {x.shape} full={full} matrix {b}"
        a = x[b].astype(np.float64)
        q_ref, r_ref = np.linalg.qr(a, mode="complete" if full else "reduced")
        scale = np.abs(a).max(axis=0)  # per column of R (a norm of 1e300s would overflow)
        scale = np.where(scale > 0, scale, 1)
        assert not np.tril(r[b], -1).any(), f"nonzero below the diagonal: {message}"
        np.testing.assert_allclose(q[b], q_ref, rtol=0, atol=tolerance, err_msg=f"Q: {message}")
        np.testing.assert_allclose(r[b] / scale, r_ref / scale,
                                   rtol=0, atol=tolerance, err_msg=f"R: {message}")
        q64, r64 = q[b].astype(np.float64), r[b].astype(np.float64)
        np.testing.assert_allclose(q64.T @ q64, np.eye(q.shape[2]), rtol=0, atol=tolerance,
                                   err_msg=f"Q^T Q: {message}")
        np.testing.assert_allclose((q64 @ r64) / scale, a / scale,
                                   rtol=0, atol=tolerance, err_msg=f"Q R: {message}")
    return q, r


def _random(batch: int, m: int, n: int, dtype, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, m, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(n, n) for n in SIZES] + SHAPES, ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_random_matrices(library, dtype, shape, full):
    m, n = shape
    check(library[dtype], _random(1, m, n, dtype, m * 1000 + n), full)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("full", [False, True])
def test_batch(library, dtype, full):
    """Each matrix on its own: the same as a call on it alone."""
    x = _random(3, 90, 45, dtype, 3)
    x[1] *= 1e3
    q, r = check(library[dtype], x, full)
    q2, r2 = factor(library[dtype], x[2:3], full)
    np.testing.assert_array_equal(q[2], q2[0])
    np.testing.assert_array_equal(r[2], r2[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,zeros", [((70, 60), [0, 31, 32, 40, 59]), ((40, 40), [39]), ((20, 50), [5, 19, 45])],
                         ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_zero_columns(library, dtype, shape, zeros, full):
    """A zero column: no reflection (tau 0), R's column exactly zero."""
    x = _random(1, *shape, dtype, 9)
    x[0][:, zeros] = 0
    _, r = check(library[dtype], x, full)
    assert not r[0][:, zeros].any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (3, 5), (40, 40), (70, 33)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_zero_matrix(library, dtype, shape, full):
    """No reflections at all: Q the identity's columns, R zero, exactly."""
    m, n = shape
    q, r = factor(library[dtype], np.zeros((2, m, n), dtype), full)
    np.testing.assert_array_equal(q, np.broadcast_to(np.eye(m, q.shape[2], dtype=dtype), q.shape))
    np.testing.assert_array_equal(r, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,m,n", [(0, 4, 4), (2, 0, 3), (2, 3, 0), (1, 0, 0), (0, 0, 0), (0, 5, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_empty(library, dtype, batch, m, n, full):
    """No columns or no rows: Q the identity's first kq columns, R empty."""
    q, r = factor(library[dtype], np.ones((batch, m, n), dtype), full)
    assert r.size == 0
    np.testing.assert_array_equal(q, np.broadcast_to(np.eye(m, q.shape[2], dtype=dtype), q.shape))


MAGNITUDES = {np.float32: [1e30, 1e-30, 1e-35, 2e-39], np.float64: [1e300, 1e-300, 1e-305, 1e-310]}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(60, 40), (40, 40), (30, 45)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_extreme_magnitudes(library, dtype, shape, full):
    """Columns whose squares overflow or underflow, some below dlarfg's safmin
    (rescaled): the same Q, and R relative to each column."""
    m, n = shape
    x = _random(1, m, n, dtype, 17).astype(np.float64)
    for i, magnitude in enumerate(MAGNITUDES[dtype]):
        x[0][:, [i, 10 + i, 33 + i]] *= magnitude
    x = x.astype(dtype)
    q, r = check(library[dtype], x, full)
    assert np.isfinite(q).all() and np.isfinite(r).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [(0, 0), (50, 20), (10, 39)])
def test_nan_and_inf_propagate(library, dtype, value, where):
    """No requirement but to finish and write only the outputs: some NaN or inf."""
    x = _random(2, 70, 40, dtype, 4)
    x[0][where] = value
    for full in (False, True):
        q, r = factor(library[dtype], x, full)
        assert not (np.isfinite(q[0]).all() and np.isfinite(r[0]).all())
        check(library[dtype], x[1:], full)


# --------------------------------------------------------------------------
# qr.c compiled here: each family (JAXC_QR_FAMILY), and no memory


NO_MEMORY = """
#include <stddef.h>
void *jaxc_qr_test_no_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
void *jaxc_qr_test_no_alloc(size_t alignment, size_t bytes) { (void)alignment; (void)bytes; return NULL; }
"""


@pytest.fixture(scope="module")
def compile_qr(tmp_path_factory):
    """compile_qr(name, flags): a library of qr.c (compiled with `flags`) and gemm.c."""
    return kernel_builder(tmp_path_factory, "qr.c", _entries)


def _compiled_cases(entries, what):
    for dtype in (np.float32, np.float64):
        for full in (False, True):
            for m, n in ((1, 1), (5, 5), (33, 33), (100, 100), (70, 30), (30, 70), (257, 5), (5, 257)):
                check(entries[dtype], _random(2, m, n, dtype, m + n), full, what)
            x = _random(1, 60, 40, dtype, 8)
            x[0][:, [3, 32]] = 0
            x[0][:, 5] *= MAGNITUDES[dtype][0]
            x[0][:, 35] *= MAGNITUDES[dtype][2]
            check(entries[dtype], x, full, what)
            q, r = factor(entries[dtype], np.ones((2, 0, 3), dtype), full)
            assert q.size == 0 and r.size == 0
            q, r = factor(entries[dtype], np.ones((1, 3, 0), dtype), full)
            np.testing.assert_array_equal(q[0], np.eye(3, q.shape[2]))


@pytest.mark.parametrize("family,number", [("sse2", 1), ("avx2", 2), ("avx512", 3)])
def test_each_family(compile_qr, family, number):
    skip_unless_the_cpu_runs(family)
    build, _ = compile_qr
    _compiled_cases(build(family, [f"-DJAXC_QR_FAMILY={number}"]), family)


def test_no_memory(compile_qr):
    """No scratch and no aligned_alloc: geqr2 and org2r in place, the same results."""
    build, tmp = compile_qr
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    _compiled_cases(build("no_memory", ["-Djaxc_scratch=jaxc_qr_test_no_scratch",
                                        "-Daligned_alloc=jaxc_qr_test_no_alloc"], [str(stub)]), "no memory")


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    for dtype, run in exported_runs(tmp_path, "qr", ARGTYPES).items():
        for full in (False, True):
            check(run, _random(2, 90, 50, dtype, 1), full, "exported")
