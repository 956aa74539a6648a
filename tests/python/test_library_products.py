"""Matrix products computed by the compiled library (python/jaxc/runtime/gemm.c,
passes/schedules/library.py, jaxc-library-calls) against NumPy in float64:
every layout (A·B, Aᵀ·B, A·Bᵀ, Aᵀ·Bᵀ, batched), f32 and f64, shapes that do
not divide the register tiles, non-contiguous inputs, each instruction-set
family (AVX-512, AVX2, SSE2) and gradients. Each jit case also asserts that
the call really is in the `loops` stage, so a product that silently stops
using the library fails here; the families are also called directly
(ctypes) with odd strides. Products in an exported program (jaxc.runtime.aot)
carry their own copy of the library.
"""
from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.passes import host
from jaxc.runtime import cpu

TOLERANCE = {np.float32: 2e-5, np.float64: 1e-12}
FAMILIES = [f"{t}_{isa}" for isa in ("avx512", "avx2", "sse2") for t in ("f32", "f64")]


def _supported(family: str) -> bool:
    flags = host.cpu_flags()
    isa = family.split("_")[1]
    return isa == "sse2" or ("avx2" in flags and "fma" in flags and (isa == "avx2" or "avx512f" in flags))


def _loops_text(f, *args) -> str:
    return jaxc.jit(f).lower(*args).as_text(stage="loops")


def _check(f, args, reference, dtype):
    text = _loops_text(f, *args)
    assert "call @jaxc_gemm_" in text, "the product is not a call of the library"
    out = np.asarray(jaxc.jit(f)(*args))
    assert out.dtype == dtype
    scale = np.abs(reference).max() or 1.0
    np.testing.assert_allclose(out, reference, rtol=TOLERANCE[dtype] * 10,
                               atol=TOLERANCE[dtype] * 10 * scale)


@pytest.fixture
def x64():
    jaxc.config.update("jax_enable_x64", True)
    yield
    jaxc.config.update("jax_enable_x64", False)


LAYOUTS = {
    "ab": ("ij,jk->ik", lambda a, b: a @ b),
    "aTb": ("ji,jk->ik", lambda a, b: a.T @ b),
    "abT": ("ij,kj->ik", lambda a, b: a @ b.T),
    "aTbT": ("ji,kj->ik", lambda a, b: a.T @ b.T),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("m,k,n", [(37, 29, 45), (130, 300, 67), (8, 200, 33), (257, 3, 129)])
def test_layouts_f32(layout, m, k, n):
    rng = np.random.default_rng(m * n + k)
    spec, product = LAYOUTS[layout]
    a_shape = (k, m) if layout.startswith("aT") else (m, k)
    b_shape = (n, k) if layout.endswith("bT") else (k, n)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    reference = np.einsum(spec, a.astype(np.float64), b.astype(np.float64))
    _check(product, (a, b), reference, np.float32)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layouts_f64(layout, x64):
    rng = np.random.default_rng(7)
    spec, product = LAYOUTS[layout]
    m, k, n = 61, 90, 47
    a = rng.standard_normal((k, m) if layout.startswith("aT") else (m, k))
    b = rng.standard_normal((n, k) if layout.endswith("bT") else (k, n))
    _check(product, (a, b), np.einsum(spec, a, b), np.float64)


def test_batched_and_broadcast():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 40, 30)).astype(np.float32)
    b = rng.standard_normal((5, 30, 50)).astype(np.float32)
    w = rng.standard_normal((30, 50)).astype(np.float32)
    _check(lambda x, y: jnp.einsum("bij,bjk->bik", x, y), (a, b),
           np.einsum("bij,bjk->bik", a.astype(np.float64), b), np.float32)
    _check(lambda x, y: x @ y, (a, w), a.astype(np.float64) @ w, np.float32)
    _check(lambda x, y: jnp.einsum("bji,bjk->bik", x, y), (a.transpose(0, 2, 1).copy(), b),
           np.einsum("bij,bjk->bik", a.astype(np.float64), b), np.float32)


def test_non_contiguous_inputs_and_accumulation():
    rng = np.random.default_rng(2)
    big = rng.standard_normal((120, 90)).astype(np.float32)
    b = rng.standard_normal((45, 70)).astype(np.float32)
    c = rng.standard_normal((60, 70)).astype(np.float32)

    def f(x, y, z):  # strided slices of the input, and a product added to another array
        return x[::2, 1::2] @ y + z

    reference = big[::2, 1::2].astype(np.float64) @ b + c
    _check(f, (big, b, c), reference, np.float32)


def test_threads_split_rows_and_columns():
    """Big enough to split between threads: C taller than wide (rows) and
    wider than tall (columns), sizes no register tile divides."""
    rng = np.random.default_rng(3)
    for m, k, n in ((1001, 77, 65), (33, 150, 1003)):
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        with host.override(threads=2):
            text = _loops_text(lambda x, y: x @ y, a, b)
            assert "omp.parallel" in text and "call @jaxc_gemm_" in text
            out = np.asarray(jaxc.jit(lambda x, y: x @ y)(a, b))
        np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("bits,family", [(512, "avx512"), (256, "avx2"), (128, "sse2")])
def test_each_family_through_jit(bits, family):
    rng = np.random.default_rng(bits)
    a = rng.standard_normal((50, 70)).astype(np.float32)
    b = rng.standard_normal((70, 40)).astype(np.float32)
    with host.override(vector_bits=bits):
        text = _loops_text(lambda x, y: x @ y, a, b)
        assert f"call @jaxc_gemm_f32_{family}(" in text
        out = np.asarray(jaxc.jit(lambda x, y: x @ y)(a, b))
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_generated_when_switched_off(monkeypatch):
    a = np.ones((40, 60), np.float32)
    b = np.ones((60, 50), np.float32)
    monkeypatch.setenv("JAXC_CPU_LIBRARY_CALLS", "0")
    text = _loops_text(lambda x, y: x @ y * 2, a, b)
    assert "jaxc_gemm" not in text and "vector." in text
    np.testing.assert_array_equal(np.asarray(jaxc.jit(lambda x, y: x @ y * 2)(a, b)), np.full((40, 50), 120.0))


def test_gradient_of_a_product():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    x = rng.standard_normal((48, 64)).astype(np.float32)

    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    grad = np.asarray(jaxc.jit(jaxc.grad(loss))(w, x))
    assert "call @jaxc_gemm_" in jaxc.jit(jaxc.grad(loss)).lower(w, x).as_text(stage="loops")
    h = np.tanh(x.astype(np.float64) @ w)
    reference = x.T.astype(np.float64) @ (2 * h * (1 - h ** 2))
    np.testing.assert_allclose(grad, reference, rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------
# The library on its own: every family, through its C entry point


def _entry(family: str):
    library = ctypes.CDLL(cpu.kernels_library())
    function = getattr(library, f"_mlir_ciface_jaxc_gemm_{family}")
    function.argtypes = [ctypes.c_long] * 16
    function.restype = None
    return function


@pytest.mark.parametrize("family", FAMILIES)
def test_families_directly(family):
    if not _supported(family):
        pytest.skip(f"this CPU cannot run {family}")  # (the entry would fall back; tested below)
    call = _entry(family)
    dtype = np.float32 if family.startswith("f32") else np.float64
    rng = np.random.default_rng(5)
    for (m, n, k), (ta, tb, tc), overwrite in itertools.product(
            # the last six take the unpacked path for small B (gemm_family.h, `small`):
            # rows not a multiple of its 8, partial vectors, C shorter than a register tile, B past L1
            [(1, 1, 1), (13, 33, 5), (29, 65, 513), (0, 5, 5), (5, 5, 0), (300, 1, 7),
             (17, 16, 32), (8, 64, 64), (3, 100, 9), (70, 20, 30), (130, 37, 16), (40, 10, 700)],
            itertools.product((False, True), repeat=3), (0, 1)):
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
        a, b = (a.T if ta else a), (b.T if tb else b)
        c0 = rng.standard_normal((m, n)).astype(dtype)
        c = c0.copy(order="F" if tc else "C")
        size = c.itemsize

        def strides(x):
            return x.strides[0] // size, x.strides[1] // size

        call(m, n, k, a.ctypes.data, 0, *strides(a), b.ctypes.data, 0, *strides(b),
             c.ctypes.data, 0, *strides(c), overwrite)
        reference = a.astype(np.float64) @ b.astype(np.float64) + (0 if overwrite else c0)
        tolerance = TOLERANCE[dtype] * 10 * np.sqrt(k + 1)
        np.testing.assert_allclose(c, reference, rtol=tolerance, atol=tolerance,
                                   err_msg=f"{family} m={m} n={n} k={k} ta={ta} tb={tb} tc={tc} overwrite={overwrite}")


def test_offsets_select_the_views():
    """The pointer + offset convention of memref.extract_strided_metadata: a
    product of views inside bigger buffers writes only its part of C."""
    call = _entry("f32_sse2")
    rng = np.random.default_rng(6)
    a = rng.standard_normal((20, 30)).astype(np.float32)
    b = rng.standard_normal((30, 40)).astype(np.float32)
    c = np.zeros((20, 40), np.float32)
    call(5, 7, 11, a.ctypes.data, 3 * 30 + 2, 30, 1, b.ctypes.data, 4 * 40 + 1, 40, 1,
         c.ctypes.data, 2 * 40 + 6, 40, 1, 1)
    expected = np.zeros((20, 40))
    expected[2:7, 6:13] = a[3:8, 2:13].astype(np.float64) @ b[4:15, 1:8]
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


UNLOAD_PROGRAM = """
import ctypes, sys, threading, _ctypes
import numpy as np
library = ctypes.CDLL(sys.argv[1])
entry = library._mlir_ciface_jaxc_gemm_f32_sse2
entry.argtypes, entry.restype = [ctypes.c_long] * 16, None
a = np.ones((8, 8), np.float32)
c = np.zeros((8, 8), np.float32)
unloaded = threading.Event()

def work():
    entry(8, 8, 8, a.ctypes.data, 0, 8, 1, a.ctypes.data, 0, 8, 1, c.ctypes.data, 0, 8, 1, 1)
    unloaded.wait()  # this thread's packing buffers outlive the library

thread = threading.Thread(target=work)
thread.start()
while not c.any():
    pass
_ctypes.dlclose(library._handle)
unloaded.set()
thread.join()  # the thread ends after the unload
print(c[0, 0])
"""


def test_a_thread_ending_after_the_library_is_unloaded():
    """LLVM's static destructors dlclose the execution engine's libraries at
    exit, before the OpenMP workers end: a worker's packing buffers must not
    be freed by code that is no longer there (this crashed with SIGSEGV)."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", UNLOAD_PROGRAM, cpu.kernels_library()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stdout.strip() == "8.0"


def test_exported_program_carries_the_library(tmp_path):
    import jaxc_aot as aot_loader

    from jaxc.runtime.aot import export_module

    module = """
    func.func @mm(%a: tensor<40x60xf32>, %b: tensor<60x50xf32>) -> tensor<40x50xf32> {
      %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0]
          : (tensor<40x60xf32>, tensor<60x50xf32>) -> tensor<40x50xf32>
      return %c : tensor<40x50xf32>
    }
    """
    path = tmp_path / "mm.jaxc"
    export_module(module, path)
    rng = np.random.default_rng(8)
    a = rng.standard_normal((40, 60)).astype(np.float32)
    b = rng.standard_normal((60, 50)).astype(np.float32)
    (c,) = aot_loader.load(path)["mm"](a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
