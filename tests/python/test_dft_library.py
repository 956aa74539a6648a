"""Discrete Fourier transforms of the compiled library (python/jaxc/runtime/fft.c,
built with gemm.c into libjaxc_kernels.so), called directly through ctypes
against numpy.fft in float64: every kind of length (powers of two, mixed
radices, primes up to 13, Bluestein for larger prime factors), column counts
that do and do not fill the vector blocks, a few or long columns (split in two
transforms, Bluestein a column at a time), real and complex input (a real input
takes two blocks of columns in one FFT: 17 and 40 columns pair a full block with
a partial or a full one), both signs,
scale, strided, transposed and offset layouts, f32 and f64, each
instruction-set family and the direct out-of-memory path, many threads at once,
more lengths than the plan cache holds, unloading, and the copy an exported
program (jaxc.runtime.aot) compiles into itself.
"""
from __future__ import annotations

import contextlib
import ctypes
import subprocess
import sys
import threading

import numpy as np
import pytest

from jaxc.runtime import cpu

L = ctypes.c_long
ARGTYPES = [L, L, L, L, ctypes.c_void_p, L, L, L, L, ctypes.c_void_p, L, L, L, L, L, ctypes.c_double]
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}
SIZES = [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 64, 100, 127, 128, 1000, 1009, 1024, 2 * 1009, 4096]
COLUMNS = [1, 3, 16, 17, 40, 47]
# jaxc_dft_use_family: 0 the best this CPU runs, 1 direct O(n^2), 2 SSE2, 3 AVX2, 4 AVX-512
FAMILIES = {"direct": 1, "sse2": 2, "avx2": 3, "avx512": 4}


@pytest.fixture(scope="module")
def library():
    lib = ctypes.CDLL(cpu.kernels_library())
    for name in ("f32", "f64"):
        entry = getattr(lib, f"_mlir_ciface_jaxc_dft_{name}")
        entry.argtypes, entry.restype = ARGTYPES, None
        entry = getattr(lib, f"_mlir_ciface_jaxc_hermitian_dft_{name}")
        entry.argtypes, entry.restype = HERMITIAN_ARGTYPES, None
    lib.jaxc_dft_use_family.argtypes, lib.jaxc_dft_use_family.restype = [ctypes.c_int], ctypes.c_int
    yield lib
    lib.jaxc_dft_use_family(0)


def _entry(library, dtype):
    return library._mlir_ciface_jaxc_dft_f32 if dtype == np.float32 else library._mlir_ciface_jaxc_dft_f64


def _where(view, base):
    """(base pointer, element offset of `view` in `base`, element strides of `view`)."""
    size = view.itemsize
    if base is None:
        base = view
    offset, rest = divmod(view.__array_interface__["data"][0] - base.__array_interface__["data"][0], size)
    assert rest == 0 and offset >= 0
    return base.ctypes.data, offset, [s // size for s in view.strides]


def _call(library, x, y, sign=-1, scale=1.0, x_base=None, y_base=None):
    """The transform of x (parts, columns, n) into y (2, columns, m), its
    first m <= n frequencies, both views (of x_base / y_base when given,
    with offsets)."""
    parts, columns, n = x.shape
    outputs = y.shape[-1]
    assert y.shape == (2, columns, outputs) and outputs <= n and x.dtype == y.dtype
    xp, xo, (xps, xcs, xs) = _where(x, x_base)
    yp, yo, (yps, ycs, ys) = _where(y, y_base)
    _entry(library, x.dtype.type)(n, outputs, columns, parts, xp, xo, xps, xcs, xs, yp, yo, yps, ycs, ys, sign,
                                  scale)


def _reference(x, sign, scale):
    z = x[0].astype(np.float64) + (1j * x[1].astype(np.float64) if x.shape[0] == 2 else 0)
    n = z.shape[-1]
    out = np.fft.fft(z, axis=-1) if sign < 0 else np.fft.ifft(z, axis=-1) * n
    return out * scale


def _check(y, reference, dtype, what=""):
    n = reference.shape[-1]
    magnitude = np.abs(reference).max() if reference.size else 1.0
    tolerance = TOLERANCE[dtype] * max(magnitude, 1e-30) * max(np.log2(n), 1.0)
    got = y[0].astype(np.float64) + 1j * y[1].astype(np.float64)
    error = np.abs(got - reference).max() if reference.size else 0.0
    assert error <= tolerance, f"{what}: error {error:.3g} > {tolerance:.3g}"


def _data(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


# --------------------------------------------------------------------------
# lengths, columns, parts, signs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_against_numpy(library, n, dtype):
    rng = np.random.default_rng(n)
    for columns in COLUMNS:
        for parts in (1, 2):
            x = _data(rng, (parts, columns, n), dtype)
            for sign in (-1, 1):
                y = np.full((2, columns, n), np.nan, dtype)
                _call(library, x, y, sign)
                _check(y, _reference(x, sign, 1.0), dtype, f"n={n} columns={columns} parts={parts} sign={sign}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [6, 9, 10, 11, 13, 15, 49, 121, 169, 3 * 5 * 7 * 11 * 13, 2 * 17 * 19, 37 * 41, 8192,
                               2 ** 15, 3 * 2 ** 14])
def test_more_lengths(library, n, dtype):
    """Every odd radix, squares of them, products of two large primes, long
    lengths (from 2^15 on, contiguous columns go through the split too)."""
    rng = np.random.default_rng(n)
    x = _data(rng, (2, 19, n), dtype)
    for sign in (-1, 1):
        y = np.empty((2, 19, n), dtype)
        _call(library, x, y, sign)
        _check(y, _reference(x, sign, 1.0), dtype, f"n={n} sign={sign}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [127, 256, 1000, 1331, 2401, 3 * 2 ** 10, 4099, 2 ** 16])
def test_few_columns(library, n, dtype):
    """A few columns, each split in two transforms (n = n1 n2, n2 = 4 .. 16) or
    through Bluestein's convolution one at a time; contiguous and strided."""
    rng = np.random.default_rng(n)
    for columns in (1, 2, 5):
        for parts in (1, 2):
            x, x_base = _strided(rng, (parts, columns, n), dtype)
            for sign in (-1, 1):
                for y, y_base in ((np.empty((2, columns, n), dtype), None), _strided(rng, (2, columns, n), dtype)):
                    _call(library, x, y, sign, 0.5, x_base=x_base, y_base=y_base)
                    _check(y, _reference(x, sign, 0.5), dtype, f"n={n} columns={columns} parts={parts} sign={sign}")
                xc = np.ascontiguousarray(x)
                y = np.empty((2, columns, n), dtype)
                _call(library, xc, y, sign, 0.5)
                _check(y, _reference(x, sign, 0.5), dtype, f"n={n} columns={columns} parts={parts} sign={sign}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_and_scale(library, dtype):
    rng = np.random.default_rng(1)
    for n in (12, 128, 1009):
        x = _data(rng, (2, 5, n), dtype)
        z = x[0].astype(np.float64) + 1j * x[1]
        y = np.empty((2, 5, n), dtype)
        _call(library, x, y, +1, 1.0 / n)
        _check(y, np.fft.ifft(z, axis=-1), dtype, f"ifft n={n}")
        _call(library, x, y, -1, 0.5)
        _check(y, 0.5 * np.fft.fft(z, axis=-1), dtype, f"scaled n={n}")
        _call(library, x, y, -1, 0.0)
        assert not y.any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_trip(library, dtype):
    rng = np.random.default_rng(2)
    for n in (1, 100, 1009, 4096):
        x = _data(rng, (2, 3, n), dtype)
        y = np.empty_like(x)
        back = np.empty_like(x)
        _call(library, x, y, -1)
        _call(library, y, back, +1, 1.0 / n)
        _check(back, x[0].astype(np.float64) + 1j * x[1], dtype, f"round trip n={n}")


def test_length_one_is_scale_times_x(library):
    x = np.array([[[3.0, -2.0, 5.0]], [[1.0, 4.0, -7.0]]]).transpose(0, 2, 1).copy()  # (2, 3, 1)
    y = np.empty_like(x)
    _call(library, x, y, -1, 2.0)
    np.testing.assert_array_equal(y, 2 * x)


def test_no_columns_does_nothing(library):
    for dtype in (np.float32, np.float64):
        y = np.full((2, 0, 8), 7, dtype)
        entry = _entry(library, dtype)
        entry(8, 8, 0, 2, None, 0, 0, 8, 1, None, 0, 0, 8, 1, -1, 1.0)  # no pointer is touched
        x = np.ones((2, 4, 8), dtype)
        y = np.full((2, 4, 8), 7, dtype)
        entry(8, 8, 0, 2, x.ctypes.data, 0, 32, 8, 1, y.ctypes.data, 0, 32, 8, 1, -1, 1.0)
        assert (y == 7).all()


# --------------------------------------------------------------------------
# layouts


def _padded(rng, shape, dtype, pad):
    """A view of `shape` inside a bigger random buffer (so that a write outside
    the view shows), and the buffer."""
    base = _data(rng, tuple(s + p for s, p in zip(shape, pad)), dtype)
    view = base[tuple(slice(p, p + s) for s, p in zip(shape, pad))]
    return view, base


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [5, 16, 17, 64, 100, 256, 1000, 1009, 2048])
@pytest.mark.parametrize("columns", [1, 3, 16, 17, 40])
def test_layouts(library, dtype, n, columns):
    rng = np.random.default_rng(n * 100 + columns)
    for parts in (1, 2):
        reference_x = _data(rng, (parts, columns, n), dtype)
        layouts = {
            # points contiguous, columns padded apart, planes padded apart
            "rows": lambda a: _padded(rng, a.shape, dtype, (1, 2, 7)),
            # columns contiguous: x[p, j, c]
            "transposed": lambda a: _transposed(rng, a.shape, dtype),
            # every other point, every third column
            "strided": lambda a: _strided(rng, a.shape, dtype),
            # complex elements in place (jaxc.dft on complex64/128): parts 1 apart, points 2
            "interleaved": lambda a: _interleaved(rng, a.shape, dtype),
        }
        for x_layout, make_x in layouts.items():
            x, x_base = make_x(reference_x)
            x[...] = reference_x
            for y_layout, make_y in layouts.items():
                y, y_base = make_y(np.empty((2, columns, n)))
                outside = y_base.copy()
                inside = np.zeros(y_base.shape, bool)
                _mark(inside, y_base, y)
                for sign in (-1, 1):
                    _call(library, x, y, sign, 0.25, x_base=x_base, y_base=y_base)
                    _check(y, _reference(reference_x, sign, 0.25), dtype,
                           f"x {x_layout} y {y_layout} parts={parts} sign={sign}")
                    np.testing.assert_array_equal(y_base[~inside], outside[~inside],
                                                  err_msg=f"wrote outside y ({y_layout})")


def _transposed(rng, shape, dtype):
    parts, columns, n = shape
    base = _data(rng, (parts + 1, n + 3, columns + 5), dtype)
    view = base[1:, 2:2 + n, 3:3 + columns].transpose(0, 2, 1)
    return view, base


def _interleaved(rng, shape, dtype):
    parts, columns, n = shape
    base = _data(rng, (columns + 3, n + 1, 2), dtype)
    return base[2:2 + columns, 1:1 + n, :parts].transpose(2, 0, 1), base


def _strided(rng, shape, dtype):
    parts, columns, n = shape
    base = _data(rng, (parts, 3 * columns + 2, 2 * n + 1), dtype)
    return base[:, 1::3, 1::2][:, :columns, :n], base


def _mark(mask, base, view):
    """mask[i] = True where base[i] is an element of view."""
    flat = np.zeros(base.size, bool)
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    index = np.array(start)
    for size, stride in zip(view.shape, view.strides):
        index = index[..., None] + np.arange(size) * (stride // base.itemsize)
    flat[index.ravel()] = True
    mask[...] = flat.reshape(base.shape)


def test_offsets_select_the_views(library):
    """The pointer + offset convention of memref.extract_strided_metadata."""
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        xb = _data(rng, (3, 10, 40), dtype)
        yb = np.zeros((4, 12, 50), dtype)
        x, y = xb[1:3, 2:9, 5:37], yb[1:4:2, 3:10, 10:42]
        _call(library, x, y, -1, 1.0, x_base=xb, y_base=yb)
        _check(y, _reference(x, -1, 1.0), dtype, "offsets")
        outside = np.ones(yb.shape, bool)
        outside[1:4:2, 3:10, 10:42] = False
        assert not yb[outside].any()


# --------------------------------------------------------------------------
# families, memory, threads


@contextlib.contextmanager
def forced_family(library, family: str):
    """The block runs with fft.c forced to `family` (its level is yielded;
    the test is skipped where this CPU cannot run it); then the CPU's own."""
    level = FAMILIES[family]
    try:
        if library.jaxc_dft_use_family(level) != level:
            pytest.skip(f"this CPU cannot run {family}")
        yield level
    finally:
        library.jaxc_dft_use_family(0)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_families(library, family):
    sizes = [1, 2, 3, 5, 8, 17, 60] if family == "direct" else [1, 2, 3, 4, 5, 7, 8, 13, 17, 64, 100, 1009, 1024]
    with forced_family(library, family) as level:
        rng = np.random.default_rng(level)
        for dtype in (np.float32, np.float64):
            for n in sizes:
                for columns in (1, 16, 17):
                    for parts in (1, 2):
                        x = _data(rng, (parts, columns, n), dtype)
                        xt = np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1)
                        for sign in (-1, 1):
                            for xv in (x, xt):
                                y = np.empty((2, columns, n), dtype)
                                _call(library, xv, y, sign)
                                _check(y, _reference(x, sign, 1.0), dtype,
                                       f"{family} n={n} columns={columns} parts={parts} sign={sign}")


def test_more_lengths_than_the_cache_holds(library):
    """Beyond the cached plans a call makes and frees its own."""
    rng = np.random.default_rng(4)
    for n in range(300, 400):
        x = _data(rng, (2, 2, n), np.float64)
        y = np.empty_like(x)
        _call(library, x, y, -1)
        _check(y, _reference(x, -1, 1.0), np.float64, f"n={n}")


def test_threads_at_once(library):
    """Eight threads (ctypes releases the GIL) transforming at once, sizes mixed
    so that plans are made while others use theirs."""
    failures = []
    start = threading.Barrier(8)

    def work(seed):
        rng = np.random.default_rng(seed)
        start.wait()
        try:
            for i in range(25):
                n = int(rng.choice([3, 16, 17, 100, 127, 640 + seed, 1009, 2048, 2 * 1009 + 2 * seed]))
                dtype = np.float32 if i % 2 else np.float64
                columns = int(rng.integers(1, 40))
                x = _data(rng, (2, columns, n), dtype)
                y = np.empty_like(x)
                sign = -1 if i % 3 else 1
                _call(library, x, y, sign)
                _check(y, _reference(x, sign, 1.0), dtype, f"thread {seed} n={n}")
        except AssertionError as error:
            failures.append(str(error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]


GUARD_PROGRAM = """
import ctypes, mmap, sys
import numpy as np
library = ctypes.CDLL(sys.argv[1])
libc = ctypes.CDLL(None)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
keep = []

def guarded(shape, dtype):
    # a C-contiguous array whose last element ends where an inaccessible page begins
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    pages = -(-nbytes // mmap.PAGESIZE) + 1
    buffer = mmap.mmap(-1, pages * mmap.PAGESIZE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
    assert libc.mprotect(address + (pages - 1) * mmap.PAGESIZE, mmap.PAGESIZE, 0) == 0
    keep.append(buffer)
    return np.frombuffer(buffer, dtype, count=nbytes // np.dtype(dtype).itemsize,
                         offset=(pages - 1) * mmap.PAGESIZE - nbytes).reshape(shape)

for dtype, name in ((np.float32, "f32"), (np.float64, "f64")):
    entry = getattr(library, "_mlir_ciface_jaxc_dft_" + name)
    entry.argtypes = [ctypes.c_long] * 4 + [ctypes.c_void_p] + [ctypes.c_long] * 4 + [ctypes.c_void_p] \\
        + [ctypes.c_long] * 5 + [ctypes.c_double]
    for n in (1, 7, 16, 17, 40, 1009):
        for columns in (1, 5, 17, 33):
            for parts in (1, 2):
                rows = guarded((parts, columns, n), dtype)        # points contiguous
                cols = guarded((parts, n, columns), dtype)        # columns contiguous
                rows[...] = 1
                cols[...] = 1
                for x, (xps, xcs, xs) in ((rows, (columns * n, n, 1)), (cols, (n * columns, 1, columns))):
                    for y_transposed in (False, True):
                        y = guarded((2, n, columns) if y_transposed else (2, columns, n), dtype)
                        ys = (n * columns, 1, columns) if y_transposed else (columns * n, n, 1)
                        entry(n, n, columns, parts, x.ctypes.data, 0, xps, xcs, xs, y.ctypes.data, 0, *ys, -1, 1.0)
                        assert abs(float(y[0].max()) - n) <= 1e-3 * n, (n, columns)
print("ok")
"""


def test_reads_and_writes_stay_inside_the_views():
    """x and y end where an inaccessible page begins: a partial block of
    columns or points that read or wrote a lane beyond its view would fault."""
    proc = subprocess.run([sys.executable, "-c", GUARD_PROGRAM, cpu.kernels_library()],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.strip() == "ok"


UNLOAD_PROGRAM = """
import ctypes, sys, threading, _ctypes
import numpy as np
library = ctypes.CDLL(sys.argv[1])
entry = library._mlir_ciface_jaxc_dft_f32
entry.argtypes = [ctypes.c_long] * 4 + [ctypes.c_void_p] + [ctypes.c_long] * 4 + [ctypes.c_void_p] \\
    + [ctypes.c_long] * 5 + [ctypes.c_double]
entry.restype = None
x = np.ones((2, 3, 64), np.float32)
y = np.zeros((2, 3, 64), np.float32)
done, unloaded = threading.Event(), threading.Event()

def work():
    entry(64, 64, 3, 2, x.ctypes.data, 0, 192, 64, 1, y.ctypes.data, 0, 192, 64, 1, -1, 1.0)
    done.set()
    unloaded.wait()  # this thread's work buffers outlive the library

thread = threading.Thread(target=work)
thread.start()
done.wait()
_ctypes.dlclose(library._handle)
unloaded.set()
thread.join()  # the thread ends after the unload
print(y[0, 0, 0])
"""


def test_a_thread_ending_after_the_library_is_unloaded():
    proc = subprocess.run([sys.executable, "-c", UNLOAD_PROGRAM, cpu.kernels_library()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stdout.strip() == "64.0"


# --------------------------------------------------------------------------
# exported programs carry their own copy

PROGRAM_IR = """
declare void @_mlir_ciface_jaxc_dft_{t}(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                                        double)

define void @run_dft_{t}(i64 %n, i64 %o, i64 %c, i64 %p, i64 %x, i64 %xo, i64 %xps, i64 %xcs, i64 %xs,
                         i64 %y, i64 %yo, i64 %yps, i64 %ycs, i64 %ys, i64 %sign, double %scale) {{
  call void @_mlir_ciface_jaxc_dft_{t}(i64 %n, i64 %o, i64 %c, i64 %p, i64 %x, i64 %xo, i64 %xps, i64 %xcs, i64 %xs,
                                      i64 %y, i64 %yo, i64 %yps, i64 %ycs, i64 %ys, i64 %sign, double %scale)
  ret void
}}
"""


def test_exported_program_carries_the_library(tmp_path):
    from jaxc.runtime import aot

    if aot.find_c_compiler() is None:
        pytest.skip("no C compiler")
    llvm_ir = PROGRAM_IR.format(t="f32") + PROGRAM_IR.format(t="f64")
    program = ctypes.CDLL(aot._build_library(llvm_ir, str(tmp_path), target="cpu", cpu="x86-64-v2"))
    rng = np.random.default_rng(5)
    for dtype, name in ((np.float32, "f32"), (np.float64, "f64")):
        run = getattr(program, f"run_dft_{name}")
        run.argtypes, run.restype = ARGTYPES, None
        for n in (12, 1009):
            x = _data(rng, (2, 20, n), dtype)
            y = np.empty_like(x)
            run(n, n, 20, 2, x.ctypes.data, 0, 20 * n, n, 1, y.ctypes.data, 0, 20 * n, n, 1, -1, 1.0)
            _check(y, _reference(x, -1, 1.0), dtype, f"exported {name} n={n}")


# --------------------------------------------------------------------------
# Hermitian sequences to real ones (jaxc.hermitian_dft)

HERMITIAN_ARGTYPES = [ctypes.c_long] * 2 + [ctypes.c_void_p] + [ctypes.c_long] * 4 + [ctypes.c_void_p] \
    + [ctypes.c_long] * 4 + [ctypes.c_double]


def _call_hermitian(library, x, y, sign, scale, x_base=None, y_base=None):
    """x: (2, columns, n//2 + 1) parts (a view), y: (columns, n) real."""
    columns, n = y.shape
    assert x.shape == (2, columns, n // 2 + 1)
    xp, xo, (xps, xcs, xs) = _where(x, x_base)
    yp, yo, (ycs, ys) = _where(y, y_base)
    entry = library._mlir_ciface_jaxc_hermitian_dft_f32 if y.dtype == np.float32 \
        else library._mlir_ciface_jaxc_hermitian_dft_f64
    entry(n, columns, xp, xo, xps, xcs, xs, yp, yo, ycs, ys, sign, scale)


def _hermitian_reference(x, n, sign, scale):
    """scale * Re(sum_k X~_k exp(sign 2 pi i j k / n)), X~ the Hermitian
    sequence of n points whose first n//2 + 1 x holds (numpy's irfft)."""
    half = x[0].astype(np.float64) + 1j * x[1].astype(np.float64)
    y = np.fft.irfft(half if sign > 0 else np.conj(half), n, axis=-1) * n
    return scale * y


def _hermitian_layouts(rng, columns, n, dtype):
    """x (2, columns, n//2 + 1) three ways, each with its base: separate
    planes; complex elements in padded rows (parts 1 apart, points 2: the
    interleaved path); complex elements in columns (points a padded row apart)."""
    m = n // 2 + 1
    planes = _data(rng, (2, columns, m), dtype)
    rows = np.empty((columns, 2 * m + 2), dtype)  # padded rows of interleaved complex elements
    rows[:, :2 * m:2], rows[:, 1:2 * m:2] = planes[0], planes[1]
    size = rows.itemsize
    by_rows = np.lib.stride_tricks.as_strided(rows, (2, columns, m), (size, rows.strides[0], 2 * size))
    cols = np.empty((m, columns + 1, 2), dtype)
    cols[:, :columns, 0], cols[:, :columns, 1] = planes[0].T, planes[1].T
    by_cols = cols[:, :columns].transpose(2, 1, 0)
    return [(planes, None), (by_rows, rows), (by_cols, cols)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 16, 17, 64, 100, 127, 512, 1000, 1009, 4096])
def test_hermitian_against_numpy(library, n, dtype):
    rng = np.random.default_rng(n)
    for columns in (1, 3, 16, 17, 40):
        for x, x_base in _hermitian_layouts(rng, columns, n, dtype):
            assert np.shares_memory(x, x_base) if x_base is not None else True
            for sign, scale in ((1, 1.0 / n), (-1, 0.5)):
                reference = _hermitian_reference(x, n, sign, scale)
                for transposed in (False, True):
                    y = np.full((n, columns), np.nan, dtype).T if transposed else np.full((columns, n), np.nan, dtype)
                    _call_hermitian(library, x, y, sign, scale, x_base)
                    tolerance = TOLERANCE[dtype] * max(np.abs(reference).max(), 1e-30) * max(np.log2(n), 1.0)
                    error = np.abs(y - reference).max()
                    assert error <= tolerance, f"n={n} columns={columns} sign={sign} transposed={transposed}: " \
                                               f"error {error:.3g} > {tolerance:.3g}"


def test_hermitian_ignores_the_imaginary_parts_numpy_ignores(library):
    """The imaginary parts of the points 0 and n/2 (n even) do not count,
    in a block of its own or paired with another."""
    for n in (8, 9):
        x = np.zeros((2, 20, n // 2 + 1), np.float64)
        x[1, :, 0] = 5.0
        if n % 2 == 0:
            x[1, :, n // 2] = -3.0
        y = np.full((20, n), np.nan)
        _call_hermitian(library, x, y, 1, 1.0)
        np.testing.assert_array_equal(y, 0.0)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_hermitian_families(library, family):
    with forced_family(library, family) as level:
        rng = np.random.default_rng(level)
        for dtype in (np.float32, np.float64):
            for n in (1, 2, 3, 8, 17, 60, 1009):
                for columns in (1, 16, 17, 33):
                    for x, x_base in _hermitian_layouts(rng, columns, n, dtype):
                        reference = _hermitian_reference(x, n, 1, 1.0)
                        y = np.empty((columns, n), dtype)
                        _call_hermitian(library, x, y, 1, 1.0, x_base)
                        tolerance = TOLERANCE[dtype] * max(np.abs(reference).max(), 1e-30) * max(np.log2(n), 1.0)
                        assert np.abs(y - reference).max() <= tolerance, f"{family} n={n} columns={columns}"


HERMITIAN_PROGRAM_IR = """
declare void @_mlir_ciface_jaxc_hermitian_dft_f64(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, double)

define void @run(i64 %n, i64 %c, i64 %x, i64 %xo, i64 %xps, i64 %xcs, i64 %xs,
                 i64 %y, i64 %yo, i64 %ycs, i64 %ys, i64 %sign, double %scale) {
  call void @_mlir_ciface_jaxc_hermitian_dft_f64(i64 %n, i64 %c, i64 %x, i64 %xo, i64 %xps, i64 %xcs, i64 %xs,
                                                 i64 %y, i64 %yo, i64 %ycs, i64 %ys, i64 %sign, double %scale)
  ret void
}
"""


def test_exported_program_calling_only_the_hermitian_transform(tmp_path):
    from jaxc.runtime import aot

    if aot.find_c_compiler() is None:
        pytest.skip("no C compiler")
    program = ctypes.CDLL(aot._build_library(HERMITIAN_PROGRAM_IR, str(tmp_path), target="cpu", cpu="x86-64-v2"))
    program.run.argtypes, program.run.restype = HERMITIAN_ARGTYPES, None
    x = _data(np.random.default_rng(9), (2, 20, 7), np.float64)
    y = np.empty((20, 12))
    program.run(12, 20, x.ctypes.data, 0, 20 * 7, 7, 1, y.ctypes.data, 0, 12, 1, 1, 1.0 / 12)
    np.testing.assert_allclose(y, _hermitian_reference(x, 12, 1, 1.0 / 12), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------
# the first frequencies only (a real FFT's n//2 + 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 16, 64, 100, 1009, 4096, 2 ** 16])
def test_first_frequencies_only(library, n, dtype):
    """Only y's first m points are written (the rest of the row keeps its
    sentinel), on every path: blocks, pairs of real blocks, a few long
    columns (no split then), Bluestein a column at a time, the direct sums."""
    rng = np.random.default_rng(n + 1)
    for family in (0, 1):
        if family == 1 and n > 1009:
            continue  # the direct sums are O(n^2)
        library.jaxc_dft_use_family(family)
        try:
            for columns in (1, 3, 40):
                for parts in (1, 2):
                    x = _data(rng, (parts, columns, n), dtype)
                    for m in sorted({1, n // 2 + 1, n}):
                        y = np.full((2, columns, m + 3), -7.0, dtype)
                        _call(library, x, y[:, :, :m], -1, 0.5, y_base=y)
                        _check(y[:, :, :m], _reference(x, -1, 0.5)[:, :m], dtype,
                               f"family {family} n={n} m={m} columns={columns} parts={parts}")
                        assert (y[:, :, m:] == -7.0).all(), "wrote past the first m points"
        finally:
            library.jaxc_dft_use_family(0)
