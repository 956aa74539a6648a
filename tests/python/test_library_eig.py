"""Non-symmetric eigenproblems of the compiled library (python/jaxc/runtime/eig.c,
built into libjaxc_kernels.so), called directly through ctypes, f32 and f64,
against NumPy and SciPy (LAPACK) in float64:

- hessenberg: the packed output and taus against LAPACK's dgehrd (equal, not
  just equivalent: dlarfg's sign convention), and Q H Q^T = x with Q built
  here from the reflectors;
- schur: Z T Z^T = x, Z^T Z = I, T quasi upper triangular with exact zeros
  below its blocks and standardized 2x2 blocks (equal diagonal, b c < 0), the
  blocks' eigenvalues NumPy's; against scipy.linalg.schur (dgees) where LAPACK
  uses the same double-shift QR (dlahqr: n <= 75): the same eigenvalues in the
  same order and the same T and Z up to the signs of Z's columns and a
  rotation within each 2x2 block (the standard form leaves that free, and which
  one either library lands on changes with the last bit of x);
- eig: x vr = vr diag(w), vl^H x = diag(w) vl^H, unit columns whose first
  component of largest modulus is real and positive, conjugate pairs as LAPACK
  lays them out; w equal to LAPACK's (dgeev) in its order for n <= 75 and as a
  multiset beyond (LAPACK's multishift QR, dlaqr0, deflates in another order);
  the vectors against SciPy's after fixing their phase the same way;
- shapes n = 0 .. 257 and batches 0, 1, 3; diagonal, triangular, Hessenberg,
  symmetric, rotation, Jordan block, zero, companion, badly scaled, permutable
  (balancing) matrices; NaN and inf (NaN out, promptly: in a subprocess with a
  timeout); the left and right flags (an unwritten buffer keeps its guards);
- eig.c compiled here: each instruction-set family of the QR iteration
  (JAXC_EIG_FAMILY: SSE2, AVX2 with FMA, AVX-512) where the CPU runs it; the
  QR iteration allowed no sweep (NaN where one is needed), no memory (all NaN), called with MXCSR's FTZ and DAZ set (as
  compiled code calls it); and the copy an exported program compiles into
  itself.

Every call's outputs sit between guard values that must survive it, and x must
be left as it was.
"""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys

import numpy as np
import pytest
from kernel_build import float_entries, kernel_builder, library_fixture, program_calling, skip_unless_the_cpu_runs

from jaxc.runtime import aot, cpu

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # pragma: no cover - scipy is a test dependency
    scipy_linalg = None

needs_scipy = pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")

ARGTYPES = {"hessenberg": [ctypes.c_long] * 2 + [ctypes.c_void_p] * 3,
            "schur": [ctypes.c_long] * 2 + [ctypes.c_void_p] * 3,
            "eig": [ctypes.c_long] * 4 + [ctypes.c_void_p] * 4}
NAMES = {np.float32: "f32", np.float64: "f64"}
COMPLEX = {np.float32: np.complex64, np.float64: np.complex128}
EPS = {np.float32: float(np.finfo(np.float32).eps), np.float64: float(np.finfo(np.float64).eps)}
# Agreement with LAPACK's results (float64), relative to the matrix's norm: f32
# outputs are rounded from double.
AGREEMENT = {np.float32: 2e-5, np.float64: 1e-9}
GUARD = 40
SIZES = [0, 1, 2, 3, 5, 16, 33, 100, 257]
LAPACK_DLAHQR = 75  # LAPACK's dhseqr uses dlahqr (the double-shift QR eig.c follows) up to this order


def _entries(library: ctypes.CDLL) -> dict:
    return {(kernel, dtype): entry for kernel, argtypes in ARGTYPES.items()
            for dtype, entry in float_entries(kernel, argtypes)(library).items()}


library = library_fixture(_entries)


def _guarded(count: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    buffer = np.full(count + 2 * GUARD, -7.25, dtype)
    return buffer, buffer[GUARD:GUARD + count]


def _check_guards(*buffers: np.ndarray, whole: bool = False) -> None:
    for buffer in buffers:
        if whole:
            assert (buffer == -7.25).all(), "a buffer that must not be written was"
        else:
            assert (buffer[:GUARD] == -7.25).all() and (buffer[-GUARD:] == -7.25).all(), "written out of bounds"


def _batch_shape(x: np.ndarray) -> tuple[int, int]:
    batch, n, _ = x.shape
    return batch, n


def hessenberg(entries, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, taus) of `entries` on the batch x (batch x n x n)."""
    batch, n = _batch_shape(x)
    x = np.ascontiguousarray(x)
    before = x.copy()
    a_buffer, a = _guarded(batch * n * n, x.dtype)
    t_buffer, t = _guarded(batch * max(n - 1, 0), x.dtype)
    entries["hessenberg", x.dtype.type](batch, n, x.ctypes.data, a.ctypes.data, t.ctypes.data)
    _check_guards(a_buffer, t_buffer)
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return a.reshape(batch, n, n), t.reshape(batch, max(n - 1, 0))


def schur(entries, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(t, z) of `entries` on the batch x."""
    batch, n = _batch_shape(x)
    x = np.ascontiguousarray(x)
    before = x.copy()
    t_buffer, t = _guarded(batch * n * n, x.dtype)
    z_buffer, z = _guarded(batch * n * n, x.dtype)
    entries["schur", x.dtype.type](batch, n, x.ctypes.data, t.ctypes.data, z.ctypes.data)
    _check_guards(t_buffer, z_buffer)
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    return t.reshape(batch, n, n), z.reshape(batch, n, n)


def eig(entries, x: np.ndarray, left: bool = True, right: bool = True):
    """(w, vl, vr) of `entries` on the batch x (complex; vl or vr None when
    not asked for, its buffer checked to be untouched)."""
    batch, n = _batch_shape(x)
    x = np.ascontiguousarray(x)
    before = x.copy()
    w_buffer, w = _guarded(2 * batch * n, x.dtype)
    l_buffer, vl = _guarded(2 * batch * n * n, x.dtype)
    r_buffer, vr = _guarded(2 * batch * n * n, x.dtype)
    entries["eig", x.dtype.type](batch, n, int(left), int(right), x.ctypes.data, w.ctypes.data,
                                 vl.ctypes.data, vr.ctypes.data)
    _check_guards(w_buffer)
    _check_guards(l_buffer, whole=not left)
    _check_guards(r_buffer, whole=not right)
    np.testing.assert_array_equal(x, before, err_msg="x was written")
    complex_type = COMPLEX[x.dtype.type]
    return (w.view(complex_type).reshape(batch, n),
            vl.view(complex_type).reshape(batch, n, n) if left else None,
            vr.view(complex_type).reshape(batch, n, n) if right else None)


# --------------------------------------------------------------------------
# references and checks

def _norm(x: np.ndarray) -> float:
    """x's Frobenius norm (scaled: no underflow), at least the least normal."""
    x = x.astype(np.float64)
    largest = float(np.abs(x).max()) if x.size else 0.0
    if largest == 0:
        return float(np.finfo(np.float64).tiny)
    return max(float(np.linalg.norm(x / largest)) * largest, float(np.finfo(np.float64).tiny))


def _residual_bound(dtype, n: int) -> float:
    """A bound on backward errors, relative to the norm."""
    return 50 * max(n, 1) * EPS[dtype]


def reflectors_q(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Q = H_0 ... H_{n-3} of gehrd's packing (float64)."""
    n = a.shape[0]
    q = np.eye(n)
    for j in range(n - 2, -1, -1):
        v = np.zeros(n)
        v[j + 1] = 1
        v[j + 2:] = a[j + 2:, j]
        q -= taus[j] * np.outer(v, v @ q)
    return q


def check_hessenberg(x: np.ndarray, a: np.ndarray, taus: np.ndarray, what: str, compare: bool = True) -> None:
    """The invariants, and a and taus against LAPACK's dgehrd when `compare`
    (not for badly scaled matrices: with tiny subdiagonal entries the
    reduction is ill-conditioned, two backward-stable ones differ)."""
    dtype = x.dtype.type
    n = x.shape[0]
    x64, a64, t64 = x.astype(np.float64), a.astype(np.float64), taus.astype(np.float64)
    if n <= 2:
        np.testing.assert_array_equal(a, x, err_msg=f"nothing to reduce: {what}")
        assert (taus == 0).all(), what
        return
    assert taus[n - 2] == 0, what
    assert ((t64 == 0) | ((t64 >= 1) & (t64 <= 2))).all(), f"taus out of [1, 2]: {what}"
    q = reflectors_q(a64, t64)
    h = np.triu(a64, -1)
    norm = _norm(x)
    bound = _residual_bound(dtype, n)
    assert np.abs(q.T @ q - np.eye(n)).max() <= bound, f"Q^T Q - I: {what}"
    assert np.abs(q @ h @ q.T - x64).max() <= bound * norm, f"Q H Q^T - x: {what}"
    if compare and scipy_linalg is not None:
        reference, reference_taus, info = scipy_linalg.lapack.dgehrd(x64)[:3]
        assert info == 0
        tolerance = AGREEMENT[dtype] * norm
        np.testing.assert_allclose(h, np.triu(reference, -1), rtol=0, atol=tolerance, err_msg=f"H: {what}")
        np.testing.assert_allclose(np.tril(a64, -2), np.tril(reference, -2), rtol=0, atol=AGREEMENT[dtype] * n,
                                   err_msg=f"reflectors: {what}")
        np.testing.assert_allclose(t64, reference_taus[:n - 1], rtol=0, atol=AGREEMENT[dtype] * n,
                                   err_msg=f"taus: {what}")


def blocks(t: np.ndarray) -> list[tuple[int, int]]:
    """(start, size) of T's diagonal blocks."""
    n, j, out = t.shape[0], 0, []
    while j < n:
        size = 2 if j + 1 < n and t[j + 1, j] != 0 else 1
        out.append((j, size))
        j += size
    return out


def block_eigenvalues(t: np.ndarray) -> np.ndarray:
    """The eigenvalues of T's blocks, in order, a pair's positive imaginary
    part first (the blocks being standardized)."""
    t = t.astype(np.float64)
    values: list[complex] = []
    for j, size in blocks(t):
        if size == 1:
            values.append(complex(t[j, j]))
        else:
            imaginary = np.sqrt(abs(t[j, j + 1])) * np.sqrt(abs(t[j + 1, j]))
            values += [complex(t[j, j], imaginary), complex(t[j, j], -imaginary)]
    return np.array(values, np.complex128)


def same_multiset(w: np.ndarray, reference: np.ndarray, tolerance: float) -> bool:
    """Whether w is a permutation of reference within tolerance (greedy
    nearest matching)."""
    left = list(reference)
    for value in w:
        if not left:
            return False
        distances = np.abs(np.array(left) - value)
        k = int(np.argmin(distances))
        if distances[k] > tolerance:
            return False
        left.pop(k)
    return not left


def check_schur(x: np.ndarray, t: np.ndarray, z: np.ndarray, what: str, compare: bool = True,
                values: bool = True) -> None:
    dtype = x.dtype.type
    n = x.shape[0]
    if n == 0:
        return
    assert np.isfinite(t).all() and np.isfinite(z).all(), f"not finite: {what}"
    x64, t64, z64 = x.astype(np.float64), t.astype(np.float64), z.astype(np.float64)
    norm = _norm(x)
    bound = _residual_bound(dtype, n)
    assert np.abs(z64.T @ z64 - np.eye(n)).max() <= bound, f"Z^T Z - I: {what}"
    assert np.abs(z64 @ t64 @ z64.T - x64).max() <= bound * norm, f"Z T Z^T - x: {what}"
    assert (np.tril(t, -2) == 0).all(), f"not zero below the subdiagonal: {what}"
    sub = np.diag(t, -1)
    assert not ((sub[:-1] != 0) & (sub[1:] != 0)).any(), f"blocks larger than 2x2: {what}"
    for j, size in blocks(t):
        if size == 2:
            assert t[j, j] == t[j + 1, j + 1], f"2x2 block at {j} not standardized: {what}"
            assert np.sign(t64[j, j + 1]) * np.sign(t64[j + 1, j]) < 0, f"2x2 block at {j} with real eigenvalues: {what}"
    if not values:
        return
    w = block_eigenvalues(t)
    reference = np.linalg.eigvals(x64)
    assert same_multiset(w, reference, AGREEMENT[dtype] * 100 * norm), f"eigenvalues: {what}"
    if compare and scipy_linalg is not None and 0 < n <= LAPACK_DLAHQR:
        t_ref, z_ref = scipy_linalg.schur(x64, output="real")
        tolerance = AGREEMENT[dtype] * 100
        np.testing.assert_allclose(w, block_eigenvalues(t_ref), rtol=0, atol=tolerance * norm,
                                   err_msg=f"LAPACK's order: {what}")
        assert blocks(t_ref) == blocks(t), f"LAPACK's blocks: {what}"
        # Z_ref = Z D and T_ref = D^T T D, D block diagonal orthogonal (signs, 2x2 rotations).
        d = np.zeros((n, n))
        for j, size in blocks(t):
            s = slice(j, j + size)
            d[s, s] = z64[:, s].T @ z_ref[:, s]
        assert np.abs(d.T @ d - np.eye(n)).max() <= tolerance, f"Schur vectors' subspaces: {what}"
        np.testing.assert_allclose(z64 @ d, z_ref, rtol=0, atol=tolerance, err_msg=f"Z: {what}")
        np.testing.assert_allclose(d.T @ t64 @ d, t_ref, rtol=0, atol=tolerance * norm, err_msg=f"T: {what}")


def _fix_phase(v: np.ndarray, at: np.ndarray) -> np.ndarray:
    """v's columns, each times the phase making its component `at` real
    positive."""
    pivots = v[at, np.arange(v.shape[1])]
    return v * (np.abs(pivots) / pivots)


def _normalized_columns(v: np.ndarray, dtype, what: str) -> np.ndarray:
    """Asserts unit columns whose component of largest modulus is real and
    positive; returns the index of that component, column by column."""
    n = v.shape[0]
    v64 = v.astype(np.complex128)
    np.testing.assert_allclose(np.linalg.norm(v64, axis=0), 1, rtol=0, atol=10 * n * EPS[dtype],
                               err_msg=f"norms: {what}")
    at = np.zeros(n, np.int64)
    for j in range(n):
        modulus = np.abs(v64[:, j])
        candidates = np.nonzero((v[:, j].imag == 0) & (v[:, j].real > 0)
                                & (modulus >= modulus.max() * (1 - 4 * EPS[dtype])))[0]
        assert len(candidates), f"column {j}'s largest component not real positive: {what}"
        at[j] = candidates[0]
    return at


def check_eig(x: np.ndarray, w: np.ndarray, vl, vr, what: str, compare: bool = True,
              vectors_well_conditioned: bool = True) -> None:
    dtype = x.dtype.type
    n = x.shape[0]
    if n == 0:
        return
    x64 = x.astype(np.float64)
    norm = _norm(x)
    bound = _residual_bound(dtype, n)
    assert np.isfinite(w).all(), f"not finite: {what}"
    w64 = w.astype(np.complex128)
    # Pairs as LAPACK lays them out: positive imaginary part first, then the conjugate.
    j = 0
    while j < n:
        if w[j].imag != 0:
            assert w[j].imag > 0 and j + 1 < n and w[j + 1] == np.conj(w[j]), f"pair at {j}: {what}"
            for v in (vl, vr):
                if v is not None:
                    np.testing.assert_array_equal(v[:, j + 1], np.conj(v[:, j]), err_msg=f"pair at {j}: {what}")
            j += 2
        else:
            for v in (vl, vr):
                if v is not None:
                    assert (v[:, j].imag == 0).all(), f"real eigenvalue {j} with a complex vector: {what}"
            j += 1
    reference = np.linalg.eigvals(x64)
    if vectors_well_conditioned:
        assert same_multiset(w64, reference, AGREEMENT[dtype] * 100 * norm), f"eigenvalues: {what}"
    at = {}
    for name, v in (("vr", vr), ("vl", vl)):
        if v is None:
            continue
        at[name] = _normalized_columns(v, dtype, f"{name}: {what}")
        v64 = v.astype(np.complex128)
        residual = x64 @ v64 - v64 * w64 if name == "vr" else v64.conj().T @ x64 - w64[:, None] * v64.conj().T
        assert np.abs(residual).max() <= bound * norm, f"{name} residual {np.abs(residual).max():.2e}: {what}"
    if not compare or scipy_linalg is None or n == 0:
        return
    w_ref, vl_ref, vr_ref = scipy_linalg.eig(x64, left=True, right=True)
    if n <= LAPACK_DLAHQR:
        np.testing.assert_allclose(w64, w_ref, rtol=0, atol=AGREEMENT[dtype] * 100 * norm,
                                   err_msg=f"LAPACK's order: {what}")
    else:
        return
    if not vectors_well_conditioned:
        return
    # The vectors of eigenvalues well apart from the others, phases fixed as here.
    gaps = np.where(np.eye(n, dtype=bool), np.inf, np.abs(w_ref[:, None] - w_ref[None, :]))
    separated = np.nonzero(gaps.min(axis=1) > 1e-2 * norm)[0] if n > 1 else np.array([0])
    for name, v, v_ref in (("vr", vr, vr_ref), ("vl", vl, vl_ref)):
        if v is None:
            continue
        fixed = _fix_phase(v_ref, at[name])
        np.testing.assert_allclose(v.astype(np.complex128)[:, separated], fixed[:, separated], rtol=0,
                                   atol=AGREEMENT[dtype] * 1e3, err_msg=f"{name} against LAPACK's: {what}")


# --------------------------------------------------------------------------
# matrices

def _random(batch: int, n: int, dtype, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, n, n)).astype(dtype)


def _companion(coefficients) -> np.ndarray:
    """The companion matrix of the monic polynomial with these lower
    coefficients (highest first)."""
    n = len(coefficients)
    c = np.zeros((n, n))
    c[0] = -np.asarray(coefficients, np.float64)
    c[np.arange(1, n), np.arange(n - 1)] = 1
    return c


# Matrices whose comparison with LAPACK is ill-posed: rounding decides the
# eigenvalues' order (clusters and ties: LAPACK's own order changes when x
# changes in its last bit), or, for the Hessenberg reduction, tiny subdiagonal
# entries make it ill-conditioned (LAPACK's H changes by 1e-7 then).
ORDER_ILL_POSED = {"symmetric", "orthogonal", "integers"}
HESSENBERG_ILL_POSED = {"balanced away", "lower triangular"}


def _structured(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    scales = 10.0 ** np.linspace(-12, 12, n)
    rotation = np.zeros((n, n))
    for j in range(0, n - 1, 2):
        angle = 0.3 + j
        rotation[j:j + 2, j:j + 2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    if n % 2:
        rotation[n - 1, n - 1] = 1
    isolated = a.copy()
    isolated[:, n // 3] = 0
    isolated[n // 3, n // 3] = 2.5
    isolated[2 * n // 3, :] = 0
    isolated[2 * n // 3, 2 * n // 3] = -1.5
    return {
        "diagonal": np.diag(rng.standard_normal(n)),
        "upper triangular": np.triu(a),
        "lower triangular": np.tril(a),
        "hessenberg": np.triu(a, -1),
        "symmetric": a + a.T,
        "orthogonal": q,
        "rotations": rotation,
        "companion": _companion(rng.standard_normal(n)),
        "balanced away": scales[:, None] * a / scales[None, :],
        "isolated rows and columns": isolated,
        "integers": rng.integers(-3, 4, (n, n)).astype(np.float64),
    }


# --------------------------------------------------------------------------
# hessenberg

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_hessenberg_random(library, dtype, n):
    x = _random(3, n, dtype, n)
    a, taus = hessenberg(library, x)
    for b in range(3):
        check_hessenberg(x[b], a[b], taus[b], f"{dtype.__name__} n={n} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [0, 1, 3])
def test_hessenberg_batches(library, dtype, batch):
    x = _random(batch, 12, dtype, batch)
    a, taus = hessenberg(library, x)
    for b in range(batch):
        check_hessenberg(x[b], a[b], taus[b], f"batch {batch} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [3, 8, 33])
def test_hessenberg_structured(library, dtype, n):
    for name, x in _structured(n, n).items():
        x = x.astype(dtype)
        a, taus = hessenberg(library, x[None])
        check_hessenberg(x, a[0], taus[0], f"{name} n={n}", compare=name not in HESSENBERG_ILL_POSED)
        if name in ("diagonal", "upper triangular", "hessenberg"):
            np.testing.assert_array_equal(a[0], x, err_msg=f"already Hessenberg: {name}")
            assert (taus == 0).all(), name
    # The first column already zero below the subdiagonal: its tau is 0, the rest reduced.
    x = _random(1, 10, dtype, 3)
    x[0, 2:, 0] = 0
    a, taus = hessenberg(library, x)
    check_hessenberg(x[0], a[0], taus[0], "zero column")
    assert taus[0, 0] == 0 and (taus[0, 1:8] != 0).all()


def test_hessenberg_zero_and_scales(library):
    for dtype in (np.float32, np.float64):
        x = np.zeros((1, 6, 6), dtype)
        a, taus = hessenberg(library, x)
        assert (a == 0).all() and (taus == 0).all()
        for scale in (1e-30, 1e30):
            x = (_random(1, 20, np.float64, 4) * scale).astype(dtype)
            a, taus = hessenberg(library, x)
            check_hessenberg(x[0], a[0], taus[0], f"scale {scale}")
    x = _random(1, 20, np.float64, 5) * 1e300  # LAPACK's norms do not overflow; nor do these
    a, taus = hessenberg(library, x)
    assert np.isfinite(a).all()
    check_hessenberg(x[0], a[0], taus[0], "scale 1e300")


# --------------------------------------------------------------------------
# schur

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_schur_random(library, dtype, n):
    x = _random(3, n, dtype, 100 + n)
    t, z = schur(library, x)
    for b in range(3):
        check_schur(x[b], t[b], z[b], f"{dtype.__name__} n={n} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [0, 1, 3])
def test_schur_batches(library, dtype, batch):
    x = _random(batch, 9, dtype, batch + 7)
    t, z = schur(library, x)
    for b in range(batch):
        check_schur(x[b], t[b], z[b], f"batch {batch} matrix {b}")


@needs_scipy
@pytest.mark.parametrize("n", [4, 7, 10, 20, 40, 75])
def test_schur_lapack_order(library, n):
    """Many random matrices in LAPACK's dlahqr regime: the same blocks in the
    same order, T and Z equal up to signs and rotations within 2x2 blocks."""
    x = _random(20, n, np.float64, 1000 + n)
    t, z = schur(library, x)
    for b in range(20):
        check_schur(x[b], t[b], z[b], f"n={n} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2, 3, 8, 33])
def test_schur_structured(library, dtype, n):
    for name, x in _structured(n, n + 1).items():
        x = x.astype(dtype)
        t, z = schur(library, x[None])
        # Badly scaled matrices: LAPACK's dgees balances by permutations only, as does schur.
        check_schur(x, t[0], z[0], f"{name} n={n}", compare=name not in ORDER_ILL_POSED | {"balanced away"})
        if name in ("diagonal", "upper triangular"):
            np.testing.assert_array_equal(t[0], x, err_msg=name)
            np.testing.assert_array_equal(z[0], np.eye(n, dtype=dtype), err_msg=name)


def test_schur_special(library):
    for dtype in (np.float32, np.float64):
        # The zero matrix and the identity: T = x, Z = I.
        for x in (np.zeros((5, 5), dtype), np.eye(5, dtype=dtype)):
            t, z = schur(library, x[None])
            np.testing.assert_array_equal(t[0], x)
            np.testing.assert_array_equal(z[0], np.eye(5, dtype=dtype))
        # A rotation by 90 degrees: already standard.
        x = np.array([[0, -1], [1, 0]], dtype)
        t, z = schur(library, x[None])
        check_schur(x, t[0], z[0], "rotation")
        # Jordan blocks (defective): the invariants hold.
        for value in (0.0, 2.0):
            x = (np.eye(7, k=1) + value * np.eye(7)).astype(dtype)
            t, z = schur(library, x[None])
            check_schur(x, t[0], z[0], f"Jordan block of {value}", values=False)
        # Scales from 1e-30 to 1e30 in one matrix; and huge and tiny matrices.
        rng = np.random.default_rng(3)
        x = (rng.standard_normal((20, 20)) * 10.0 ** rng.uniform(-30, 30, (20, 20))).astype(dtype)
        t, z = schur(library, x[None])
        check_schur(x, t[0], z[0], "entries of 1e-30 to 1e30", compare=False)
        for scale in (1e-30, 1e30) if dtype == np.float32 else (1e-300, 1e300):
            x = (rng.standard_normal((12, 12)) * scale).astype(dtype)
            t, z = schur(library, x[None])
            check_schur(x, t[0], z[0], f"scale {scale}", compare=False)


# --------------------------------------------------------------------------
# eig

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_eig_random(library, dtype, n):
    x = _random(3, n, dtype, 200 + n)
    w, vl, vr = eig(library, x)
    for b in range(3):
        check_eig(x[b], w[b], vl[b], vr[b], f"{dtype.__name__} n={n} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("left,right", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_eig_flags(library, dtype, left, right):
    """Each flag alone: the same w and vectors as with both; a buffer not
    asked for keeps its guard values (checked by `eig`)."""
    x = _random(3, 30, dtype, 5)
    w, vl, vr = eig(library, x, bool(left), bool(right))
    w_both, vl_both, vr_both = eig(library, x)
    np.testing.assert_array_equal(w, w_both)
    if left:
        np.testing.assert_array_equal(vl, vl_both)
    if right:
        np.testing.assert_array_equal(vr, vr_both)
    for b in range(3):
        check_eig(x[b], w[b], vl[b] if left else None, vr[b] if right else None, f"left={left} right={right}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [0, 1, 3])
def test_eig_batches(library, dtype, batch):
    x = _random(batch, 11, dtype, batch + 17)
    w, vl, vr = eig(library, x)
    for b in range(batch):
        check_eig(x[b], w[b], vl[b], vr[b], f"batch {batch} matrix {b}")


@needs_scipy
@pytest.mark.parametrize("n", [4, 7, 10, 20, 40, 75])
def test_eig_lapack_order(library, n):
    """Many random matrices where LAPACK uses dlahqr: w in LAPACK's order,
    the vectors LAPACK's up to their phase."""
    x = _random(20, n, np.float64, 2000 + n)
    w, vl, vr = eig(library, x)
    for b in range(20):
        check_eig(x[b], w[b], vl[b], vr[b], f"n={n} matrix {b}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2, 3, 8, 33])
def test_eig_structured(library, dtype, n):
    for name, x in _structured(n, n + 2).items():
        x = x.astype(dtype)
        w, vl, vr = eig(library, x[None])
        # Eigenvalues of symmetric or orthogonal matrices may come in clusters (vectors ill-determined).
        check_eig(x, w[0], vl[0], vr[0], f"{name} n={n}", compare=name not in ORDER_ILL_POSED,
                  vectors_well_conditioned=name not in ORDER_ILL_POSED | {"rotations"})
        if name == "diagonal":
            np.testing.assert_array_equal(w[0], np.diag(x))
            np.testing.assert_array_equal(vr[0], np.eye(n))
            np.testing.assert_array_equal(vl[0], np.eye(n))


def test_eig_special(library):
    for dtype in (np.float32, np.float64):
        # The zero matrix: w = 0, the unit vectors.
        w, vl, vr = eig(library, np.zeros((1, 6, 6), dtype))
        assert (w == 0).all()
        np.testing.assert_array_equal(vr[0], np.eye(6))
        np.testing.assert_array_equal(vl[0], np.eye(6))
        # A rotation: the pair +-i, LAPACK's vectors (1, -i)/sqrt(2) up to phase.
        x = np.array([[[0, -1], [1, 0]]], dtype)
        w, vl, vr = eig(library, x)
        np.testing.assert_allclose(w[0], [1j, -1j], atol=EPS[dtype])
        check_eig(x[0], w[0], vl[0], vr[0], "rotation")
        # Jordan blocks: repeated eigenvalues, nearly parallel vectors; the residuals hold.
        for value in (0.0, 2.0, -1e-3):
            x = (np.eye(7, k=1) + value * np.eye(7)).astype(dtype)
            w, vl, vr = eig(library, x[None])
            check_eig(x, w[0], vl[0], vr[0], f"Jordan block of {value}", vectors_well_conditioned=False)
            np.testing.assert_allclose(np.abs(vr[0][0]), 1, atol=1e-6, err_msg="Jordan block: e_0")
        # A companion matrix of roots 1 .. 10 (ill-conditioned eigenvalues, a real spectrum).
        x = _companion(np.poly(np.arange(1, 11))[1:]).astype(dtype)
        w, vl, vr = eig(library, x[None])
        check_eig(x, w[0], vl[0], vr[0], "companion of 1 .. 10", vectors_well_conditioned=False)
        np.testing.assert_allclose(np.sort(w[0].real), np.arange(1, 11), rtol=1e-3 if dtype == np.float32 else 1e-6)
        # Scales from 1e-30 to 1e30 in one matrix; a similarity that balancing undoes.
        rng = np.random.default_rng(9)
        x = (rng.standard_normal((20, 20)) * 10.0 ** rng.uniform(-30, 30, (20, 20))).astype(dtype)
        w, vl, vr = eig(library, x[None])
        check_eig(x, w[0], vl[0], vr[0], "entries of 1e-30 to 1e30", compare=False,
                  vectors_well_conditioned=False)
        d = 10.0 ** np.linspace(-15, 15, 16)
        a = rng.standard_normal((16, 16))
        x = (d[:, None] * a / d[None, :]).astype(dtype)
        w, _, _ = eig(library, x[None], False, False)
        # Balancing recovers the eigenvalues of a to the precision of the entries.
        assert same_multiset(w[0].astype(np.complex128), np.linalg.eigvals(a), 1e-4 if dtype == np.float32 else 1e-10)
        for scale in (1e-30, 1e30) if dtype == np.float32 else (1e-300, 1e300):
            x = (rng.standard_normal((12, 12)) * scale).astype(dtype)
            w, vl, vr = eig(library, x[None])
            check_eig(x, w[0], vl[0], vr[0], f"scale {scale}", compare=False)


# --------------------------------------------------------------------------
# NaN and inf: NaN out, promptly (in a subprocess, with a timeout)

NONFINITE_SCRIPT = r"""
import ctypes, json, sys
import numpy as np
library = ctypes.CDLL(sys.argv[1])
out = {}
for name, dtype in (("f32", np.float32), ("f64", np.float64)):
    hessenberg = getattr(library, f"_mlir_ciface_jaxc_hessenberg_{name}")
    schur = getattr(library, f"_mlir_ciface_jaxc_schur_{name}")
    eig = getattr(library, f"_mlir_ciface_jaxc_eig_{name}")
    hessenberg.argtypes = schur.argtypes = [ctypes.c_long] * 2 + [ctypes.c_void_p] * 3
    eig.argtypes = [ctypes.c_long] * 4 + [ctypes.c_void_p] * 4
    for value in ("nan", "inf", "-inf"):
        for n in (1, 2, 5, 40):
            x = np.random.default_rng(n).standard_normal((3, n, n)).astype(dtype)
            x[1, n // 2, n // 3] = float(value)
            a, taus = np.zeros_like(x), np.zeros((3, n - 1), dtype)
            hessenberg(3, n, x.ctypes.data, a.ctypes.data, taus.ctypes.data)
            t, z = np.zeros_like(x), np.zeros_like(x)
            schur(3, n, x.ctypes.data, t.ctypes.data, z.ctypes.data)
            w, vl, vr = np.zeros((3, 2 * n), dtype), np.zeros((3, 2 * n * n), dtype), np.zeros((3, 2 * n * n), dtype)
            eig(3, n, 1, 1, x.ctypes.data, w.ctypes.data, vl.ctypes.data, vr.ctypes.data)
            finite = [bool(np.isfinite(o[b]).all()) for o in (t, z, w, vl, vr) for b in (0, 2)]
            out[f"{name} {value} {n}"] = {
                "others finite": all(finite),
                "all nan": [bool(np.isnan(o[1]).all()) for o in (t, z, w, vl, vr)],
                "hessenberg nan": bool(np.isnan(a[1]).any() or np.isnan(taus[1]).any()),
                "hessenberg others finite": bool(np.isfinite(a[0]).all() and np.isfinite(a[2]).all()),
            }
print(json.dumps(out))
"""


def test_nonfinite_gives_nan_promptly():
    """A matrix holding a NaN or an inf: schur's and eig's outputs all NaN
    (the rest of the batch unaffected), hessenberg's with NaN in them (where
    a reflection mixes the entry in: n > 2), in a subprocess that must end
    within a minute."""
    result = subprocess.run([sys.executable, "-c", NONFINITE_SCRIPT, cpu.kernels_library()], capture_output=True,
                            text=True, timeout=60, check=True)
    for case, outcome in json.loads(result.stdout).items():
        assert outcome["others finite"] and outcome["hessenberg others finite"], case
        assert all(outcome["all nan"]), case
        n = int(case.split()[-1])
        assert outcome["hessenberg nan"] or (n <= 2 and "inf" in case), case


# --------------------------------------------------------------------------
# eig.c compiled here: each family, no sweeps allowed, no memory, flushed
# denormals

NO_MEMORY = """
#include <stddef.h>
void *jaxc_eig_test_no_scratch(int which, size_t bytes) { (void)which; (void)bytes; return NULL; }
void *jaxc_eig_test_no_alloc(size_t alignment, size_t bytes) { (void)alignment; (void)bytes; return NULL; }
"""

FLUSHING = """
#include <stdint.h>
#include <xmmintrin.h>
#undef _mlir_ciface_jaxc_hessenberg_f32 /* the kernel's, renamed, are inner */
#undef _mlir_ciface_jaxc_hessenberg_f64
#undef _mlir_ciface_jaxc_schur_f32
#undef _mlir_ciface_jaxc_schur_f64
#undef _mlir_ciface_jaxc_eig_f32
#undef _mlir_ciface_jaxc_eig_f64
#define WRAP(NAME, PARAMETERS, ARGUMENTS)                                                                    \\
    void jaxc_eig_test_inner_##NAME PARAMETERS;                                                              \\
    void _mlir_ciface_jaxc_##NAME PARAMETERS                                                                 \\
    {                                                                                                        \\
        const unsigned int saved = _mm_getcsr();                                                             \\
        _mm_setcsr(saved | 0x8040u);                                                                         \\
        jaxc_eig_test_inner_##NAME ARGUMENTS;                                                                \\
        _mm_setcsr(saved);                                                                                   \\
    }
#define THREE (long batch, long n, intptr_t x, intptr_t a, intptr_t b)
#define EIG (long batch, long n, long left, long right, intptr_t x, intptr_t w, intptr_t vl, intptr_t vr)
WRAP(hessenberg_f32, THREE, (batch, n, x, a, b))
WRAP(hessenberg_f64, THREE, (batch, n, x, a, b))
WRAP(schur_f32, THREE, (batch, n, x, a, b))
WRAP(schur_f64, THREE, (batch, n, x, a, b))
WRAP(eig_f32, EIG, (batch, n, left, right, x, w, vl, vr))
WRAP(eig_f64, EIG, (batch, n, left, right, x, w, vl, vr))
"""


@pytest.fixture(scope="module")
def compile_eig(tmp_path_factory):
    """compile_eig(name, flags, extra): a library of eig.c (compiled with
    `flags`) and gemm.c."""
    return kernel_builder(tmp_path_factory, "eig.c", _entries)


FAMILIES = [("sse2", 1), ("avx2", 2), ("avx512", 3)]


@pytest.mark.parametrize("family,number", FAMILIES)
def test_each_family(compile_eig, family, number):
    """The QR iteration of each instruction-set family (eig_family.h), forced:
    sizes around each vector width (the rows' tails), a batch with an inf,
    structured matrices."""
    skip_unless_the_cpu_runs(family)
    build, _ = compile_eig
    entries = build(family, [f"-DJAXC_EIG_FAMILY={number}"])
    for dtype in (np.float32, np.float64):
        for n in (2, 3, 4, 7, 9, 17, 40, 100):
            x = _random(2, n, dtype, 300 + n)
            t, z = schur(entries, x)
            w, vl, vr = eig(entries, x)
            for b in range(2):
                what = f"{family} {dtype.__name__} n={n} matrix {b}"
                check_schur(x[b], t[b], z[b], what)
                check_eig(x[b], w[b], vl[b], vr[b], what)
        x = _random(3, 20, dtype, 7)
        x[1, 5, 3] = np.inf
        t, z = schur(entries, x)
        w, vl, vr = eig(entries, x)
        for output in (t, z, w, vl, vr):
            assert np.isnan(output[1]).all() and np.isfinite(output[[0, 2]]).all()
        for name, y in _structured(33, 34).items():
            y = y.astype(dtype)
            t, z = schur(entries, y[None])
            check_schur(y, t[0], z[0], f"{family} {name}", compare=name not in ORDER_ILL_POSED | {"balanced away"})
            w, vl, vr = eig(entries, y[None])
            check_eig(y, w[0], vl[0], vr[0], f"{family} {name}", compare=name not in ORDER_ILL_POSED,
                      vectors_well_conditioned=name not in ORDER_ILL_POSED | {"rotations"})


def test_no_sweeps_allowed(compile_eig):
    """The QR iteration allowed no sweep: matrices that need one all NaN,
    triangular ones (no sweep needed) exact, the rest of the batch unaffected."""
    build, _ = compile_eig
    entries = build("no_sweeps", ["-DJAXC_EIG_SWEEPS=0"])
    for dtype in (np.float32, np.float64):
        x = _random(3, 10, dtype, 1)
        x[0] = np.triu(x[0])
        x[2] = np.diag(np.arange(10)).astype(dtype)
        t, z = schur(entries, x)
        w, vl, vr = eig(entries, x)
        for output in (t, z, w, vl, vr):
            assert np.isnan(output[1]).all()
        for b in (0, 2):
            np.testing.assert_array_equal(t[b], x[b])
            np.testing.assert_array_equal(w[b], np.diag(x[b]))
            check_eig(x[b], w[b], vl[b], vr[b], f"no sweeps, matrix {b}")


def test_no_memory(compile_eig):
    """No scratch and no aligned_alloc: all NaN, nothing written out of bounds."""
    build, tmp = compile_eig
    stub = tmp / "no_memory.c"
    stub.write_text(NO_MEMORY)
    entries = build("no_memory", ["-Djaxc_scratch=jaxc_eig_test_no_scratch",
                                  "-Daligned_alloc=jaxc_eig_test_no_alloc"], [str(stub)])
    for dtype in (np.float32, np.float64):
        x = _random(2, 9, dtype, 1)
        a, taus = hessenberg(entries, x)
        t, z = schur(entries, x)
        w, vl, vr = eig(entries, x)
        for output in (a, taus, t, z, w, vl, vr):
            assert np.isnan(output).all()


def test_fallback_allocation(compile_eig):
    """No scratch: a fresh allocation each call, the same results."""
    build, tmp = compile_eig
    stub = tmp / "no_scratch.c"
    stub.write_text(NO_MEMORY)
    entries = build("no_scratch", ["-Djaxc_scratch=jaxc_eig_test_no_scratch"], [str(stub)])
    for dtype in (np.float32, np.float64):
        x = _random(2, 40, dtype, 2)
        a, taus = hessenberg(entries, x)
        t, z = schur(entries, x)
        w, vl, vr = eig(entries, x)
        for b in range(2):
            check_hessenberg(x[b], a[b], taus[b], "fallback allocation")
            check_schur(x[b], t[b], z[b], "fallback allocation")
            check_eig(x[b], w[b], vl[b], vr[b], "fallback allocation")


def test_denormals_flushed(library, compile_eig):
    """Called as compiled code calls it, with MXCSR's FTZ and DAZ set: the
    same results on ordinary matrices, and small ones fine (scaled up first;
    denormal entries in x or the outputs count as zeros then)."""
    build, tmp = compile_eig
    wrapper = tmp / "flushing.c"
    wrapper.write_text(FLUSHING)
    entries = build("flushing", [f"-D_mlir_ciface_jaxc_{kernel}_{name}=jaxc_eig_test_inner_{kernel}_{name}"
                                 for kernel in ARGTYPES for name in NAMES.values()], [str(wrapper)])
    for dtype in (np.float32, np.float64):
        x = _random(2, 30, dtype, 3)
        for kernel in (hessenberg, schur, eig):
            for flushed, plain in zip(kernel(entries, x), kernel(library, x)):
                np.testing.assert_allclose(flushed, plain, rtol=0, atol=1e-12 if dtype == np.float64 else 1e-5)
        # Small matrices (entries normal numbers, well above the denormals an f32 output could flush).
        small = (_random(1, 12, np.float64, 4) * (1e-300 if dtype == np.float64 else 1e-30)).astype(dtype)
        t, z = schur(entries, small)
        check_schur(small[0], t[0], z[0], "small, flushed", compare=False)
        w, vl, vr = eig(entries, small)
        check_eig(small[0], w[0], vl[0], vr[0], "small, flushed", compare=False)


# --------------------------------------------------------------------------
# exported programs carry their own copy

def test_exported_program_carries_the_library(tmp_path):
    """One program calling all six entry points (eig.c compiled into it once)."""
    if aot.find_c_compiler() is None:
        pytest.skip("no C compiler")
    program = ctypes.CDLL(aot._build_library("".join(program_calling(kernel, len(argtypes))
                                                     for kernel, argtypes in ARGTYPES.items()),
                                             str(tmp_path), target="cpu", cpu="x86-64-v2"))
    runs = {}
    for kernel, argtypes in ARGTYPES.items():
        for dtype, name in NAMES.items():
            run = getattr(program, f"run_{kernel}_{name}")
            run.argtypes, run.restype = argtypes, None
            runs[kernel, dtype] = run
    for dtype in (np.float32, np.float64):
        x = _random(2, 50, dtype, 6)
        a, taus = hessenberg(runs, x)
        t, z = schur(runs, x)
        w, vl, vr = eig(runs, x)
        for b in range(2):
            check_hessenberg(x[b], a[b], taus[b], "exported")
            check_schur(x[b], t[b], z[b], "exported")
            check_eig(x[b], w[b], vl[b], vr[b], "exported")
