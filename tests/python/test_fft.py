"""jnp.fft and lax.fft (issue #17) against numpy.fft: every function, lengths
that take each path of the transform, axes, `n`/`s` cropping and padding, the
three norms; derivatives against finite differences, vmap against a loop,
and JAX where it is installed. Both routes of `jaxc.dft`: the call of the
compiled FFT (the CPU's default) and its expansion into matrix products
(`jaxc-expand-dft`: one product with the DFT matrix, Cooley-Tukey steps,
Bluestein for primes above 64) with library calls off."""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.passes import host
from jaxc.test_util import check_grads

try:
    import jax.numpy as jax_numpy
except ImportError:  # pragma: no cover - JAX is an optional extra
    jax_numpy = None

C64 = np.complex64
# 1, at most 64 (one product with the DFT matrix), 67 (a prime: Bluestein),
# 100 = 10 x 10 and 256 = 16 x 16 (one Cooley-Tukey step), 1000 = 25 x 40,
# 134 = 2 x 67 (a step, then Bluestein), 8192 = 64 x (8 x 16) (two steps).
LENGTHS = [1, 2, 5, 12, 16, 32, 48, 63, 67, 100, 134, 256, 1000, 8192]


def _tolerance(n):
    return 2e-6 * max(1.0, np.log2(max(n, 2))) * 10


@pytest.mark.parametrize("n", LENGTHS)
def test_complex_transforms_against_numpy(n):
    x = rand((3, n), C64, -1.0, 1.0)
    scale = np.max(np.abs(np.fft.fft(x)))
    got, back = jaxc.jit(lambda v: (jnp.fft.fft(v), jnp.fft.ifft(v)))(x)
    assert got.dtype == np.complex64 and back.dtype == np.complex64
    assert_close(got, np.fft.fft(x), rtol=0, atol=_tolerance(n) * scale)
    assert_close(back, np.fft.ifft(x), rtol=0, atol=_tolerance(n) * scale / n)


@pytest.mark.parametrize("n", [1, 2, 7, 16, 67, 100, 1000])
def test_real_transforms_against_numpy(n):
    x = rand((2, n), np.float32, -1.0, 1.0)
    spectrum = np.fft.rfft(x)
    scale = np.max(np.abs(spectrum))
    got, back = jaxc.jit(lambda v, s: (jnp.fft.rfft(v), jnp.fft.irfft(s, n)))(x, spectrum.astype(C64))
    assert got.shape == (2, n // 2 + 1) and back.dtype == np.float32
    assert_close(got, spectrum, rtol=0, atol=_tolerance(n) * scale)
    assert_close(back, np.fft.irfft(spectrum, n), rtol=0, atol=_tolerance(n) * scale / max(n, 1) * 4)


def test_complex128_is_accurate(x64):
    x = rand((4, 96), np.complex128)
    check(jnp.fft.fft, np.fft.fft, x, rtol=1e-12, atol=1e-11, dtype=np.complex128)
    x = rand((97,), np.complex128)  # Bluestein
    check(jnp.fft.ifft, np.fft.ifft, x, rtol=1e-11, atol=1e-12, dtype=np.complex128)


@pytest.mark.parametrize("name, kwargs", [
    ("fft", {"n": 7, "axis": 0}), ("fft", {"n": 20}), ("ifft", {"axis": 1, "norm": "ortho"}),
    ("fft", {"norm": "forward"}), ("ifft", {"norm": "forward"}), ("fftn", {}),
    ("ifftn", {"axes": (0, 2)}), ("fftn", {"s": (3, 8), "axes": (1, 2)}), ("fft2", {}),
    ("ifft2", {"s": (5, 12)}), ("fftn", {"norm": "ortho"}),
])
def test_complex_variants(name, kwargs):
    x = rand((4, 6, 10), C64)
    check(lambda v: getattr(jnp.fft, name)(v, **kwargs), lambda v: getattr(np.fft, name)(v, **kwargs), x,
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name, kwargs", [
    ("rfft", {"n": 9}), ("rfft", {"axis": 0, "norm": "ortho"}), ("rfftn", {}),
    ("rfftn", {"s": (4, 12), "axes": (0, 2)}), ("rfft2", {}), ("rfft2", {"norm": "forward"}),
    ("ihfft", {}), ("ihfft", {"n": 8, "norm": "ortho"}),
])
def test_real_input_variants(name, kwargs):
    x = rand((4, 6, 10), np.float32)
    check(lambda v: getattr(jnp.fft, name)(v, **kwargs), lambda v: getattr(np.fft, name)(v, **kwargs), x,
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name, kwargs", [
    ("irfft", {}), ("irfft", {"n": 7}), ("irfft", {"n": 30, "norm": "ortho"}), ("irfftn", {}),
    ("irfftn", {"s": (4, 6, 9)}), ("irfft2", {}), ("irfft2", {"s": (5, 8), "norm": "forward"}),
    ("hfft", {}), ("hfft", {"n": 11, "norm": "ortho"}), ("hfft", {"norm": "forward"}),
])
def test_real_output_variants(name, kwargs):
    x = rand((4, 6, 10), C64)
    check(lambda v: getattr(jnp.fft, name)(v, **kwargs), lambda v: getattr(np.fft, name)(v, **kwargs), x,
          rtol=1e-4, atol=1e-4)


def test_round_trips():
    x = rand((5, 40), np.float32)
    assert_close(jnp.fft.irfft(jnp.fft.rfft(x), 40), x, rtol=1e-5, atol=1e-5)
    z = rand((5, 33), C64)
    assert_close(jnp.fft.ifftn(jnp.fft.fftn(z)), z, rtol=1e-5, atol=1e-5)


def test_integer_and_bool_inputs_become_complex64():
    assert jnp.fft.fft(np.arange(6)).dtype == np.complex64
    assert_close(jnp.fft.fft(np.arange(6)), np.fft.fft(np.arange(6)), rtol=1e-6, atol=1e-5)
    assert jnp.fft.rfft(np.array([True, False, True])).dtype == np.complex64


_DTYPE_CASES = [np.int8, np.uint8, np.int32, np.int64, np.bool_, np.float16, np.float32]
_DTYPE_FNS = ["fft", "rfft", "ifft", "fftn", "rfftn", "irfft", "hfft"]


def _result_dtypes(fft_module):
    out = {}
    for dtype in _DTYPE_CASES:
        for name in _DTYPE_FNS:
            try:
                out[dtype.__name__, name] = str(getattr(fft_module, name)(np.ones(4, dtype)).dtype)
            except ValueError:
                out[dtype.__name__, name] = "ValueError"
    return out


def test_result_dtypes_under_x64_follow_the_input_width(x64):
    # ints as JAX's to_inexact (int32 -> complex64, int64 -> complex128), not the
    # default float; an RFFT of float16 is JAX's ValueError
    got = _result_dtypes(jnp.fft)
    assert got["int32", "fft"] == got["bool", "rfft"] == got["int8", "fftn"] == "complex64"
    assert got["int64", "fft"] == got["int64", "rfftn"] == "complex128"
    assert got["int32", "irfft"] == "float32" and got["int64", "hfft"] == "float64"
    assert got["float16", "rfft"] == got["float16", "rfftn"] == "ValueError"
    with pytest.raises(ValueError, match="RFFT input must be float32 or float64, got float16"):
        jnp.fft.rfft(np.ones(4, np.float16))
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    try:
        assert got == _result_dtypes(jax.numpy.fft)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_frequencies_and_shifts():
    check(lambda: jnp.fft.fftfreq(7, 0.5), None, expected=np.fft.fftfreq(7, 0.5), dtype="float32", jit=False)
    check(lambda: jnp.fft.fftfreq(8), None, expected=np.fft.fftfreq(8), jit=False)
    check(lambda: jnp.fft.rfftfreq(9, 2.0), None, expected=np.fft.rfftfreq(9, 2.0), jit=False)
    x = rand((5, 6), np.float32)
    check(jnp.fft.fftshift, np.fft.fftshift, x)
    check(lambda v: jnp.fft.ifftshift(v, axes=1), lambda v: np.fft.ifftshift(v, axes=1), x)
    check(lambda v: jnp.fft.ifftshift(jnp.fft.fftshift(v)), lambda v: v, x)


@pytest.mark.parametrize("kind, lengths, make, reference", [
    (lax.FftType.FFT, (8,), lambda: rand((3, 8), C64), lambda x: np.fft.fft(x)),
    (lax.FftType.IFFT, (4, 6), lambda: rand((2, 4, 6), C64), lambda x: np.fft.ifft2(x)),
    (lax.FftType.RFFT, (5, 10), lambda: rand((5, 10), np.float32), lambda x: np.fft.rfft2(x)),
    (lax.FftType.IRFFT, (3, 10), lambda: rand((3, 6), C64), lambda x: np.fft.irfft2(x, (3, 10))),
])
def test_lax_fft(kind, lengths, make, reference):
    x = make()
    check(lambda v: lax.fft(v, kind, lengths), reference, x, rtol=1e-4, atol=1e-4)


def test_gradients(x64):
    x = np.array([0.3, -1.0, 2.0, 0.5, -0.7])
    check_grads(lambda v: jnp.abs(jnp.fft.fft(v)).sum(), (x,), 2)
    check_grads(lambda v: jnp.fft.irfft(jnp.fft.rfft(v) ** 2, 5), (x,), 1)
    z = x + 1j * x[::-1]
    check_grads(lambda v: jnp.fft.ifft(jnp.fft.fft(v) * v), (z,), 1)
    check_grads(lambda v: jnp.real(jnp.fft.fft2(v.reshape(1, 5))).sum(), (z,), 1)


def test_vmap_against_loop():
    x = rand((4, 3, 16), C64)
    got = jaxc.vmap(lambda v: jnp.fft.fft(v, axis=0))(x)
    expected = np.stack([np.fft.fft(v, axis=0) for v in x])
    assert_close(got, expected, rtol=1e-4, atol=1e-4)


def test_bad_arguments():
    x = jnp.ones(8, C64)
    with pytest.raises(ValueError, match='invalid norm value .sideways.'):
        jnp.fft.fft(x, norm="sideways")
    with pytest.raises(ValueError, match=r"invalid number of data points \(0\)"):
        jnp.fft.fft(x, n=0)
    with pytest.raises(TypeError, match="jnp.fft.rfft does not support complex input"):
        jnp.fft.rfft(x)
    with pytest.raises(ValueError, match="s .* and axes .* must have the same length"):
        jnp.fft.fftn(jnp.ones((2, 2), C64), s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="repeat an axis"):
        jnp.fft.fftn(jnp.ones((2, 2), C64), axes=(0, 0))
    with pytest.raises(ValueError, match=r"lax.fft: FFT with fft_lengths \(4,\) needs trailing dimensions"):
        lax.fft(x, lax.FftType.FFT, (4,))
    with pytest.raises(TypeError, match="lax.fft: FFT needs a complex operand, got float32"):
        lax.fft(jnp.ones(8), lax.FftType.FFT, (8,))
    with pytest.raises(ValueError, match="unknown fft_type"):
        lax.fft(x, "FOURIER", (8,))


@pytest.mark.skipif(jax_numpy is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "fft2", "rfftn", "hfft"])
def test_against_jax(name):
    x = rand((4, 12), np.float32 if name.startswith("rfft") else C64)
    mine = getattr(jnp.fft, name)(x)
    theirs = np.asarray(getattr(jax_numpy.fft, name)(x))
    assert np.asarray(mine).dtype == theirs.dtype
    assert_close(mine, theirs, rtol=1e-4, atol=1e-4)


@pytest.fixture(params=["library", "products"])
def route(request):
    """Each route of jaxc.dft: the compiled FFT, or the expanded products."""
    with host.override(library_calls=request.param == "library"):
        yield request.param


# Sequences not a multiple of the FFT's 16 lanes and split over two threads
# (257 = 144 + 113), lengths with radices 4, 2, 3, 5, 7 and large primes
# (Bluestein), real and complex inputs.
@pytest.mark.parametrize("shape", [(257, 512), (64, 1000), (3, 1009), (40, 2 * 1009), (17, 210), (1, 4096)])
def test_both_routes_against_numpy(route, shape):
    x = rand(shape, C64, -1.0, 1.0)
    r = rand(shape, np.float32, -1.0, 1.0)
    fft, ifft, rfft2 = jaxc.jit(lambda v, w: (jnp.fft.fft(v), jnp.fft.ifft(v, axis=0), jnp.fft.rfft2(w)))(x, r)
    n = shape[-1]
    scale = np.max(np.abs(np.fft.fft(x)))
    assert_close(fft, np.fft.fft(x), rtol=0, atol=_tolerance(n) * scale)
    assert_close(ifft, np.fft.ifft(x, axis=0), rtol=0, atol=_tolerance(shape[0]) * scale)
    expected = np.fft.rfft2(r)
    assert_close(rfft2, expected, rtol=0, atol=_tolerance(r.size) * np.max(np.abs(expected)))


def test_both_routes_complex128(route, x64):
    x = rand((5, 360), np.complex128)
    check(jnp.fft.fft, np.fft.fft, x, rtol=1e-12, atol=1e-11, dtype=np.complex128)
    x = rand((3, 101), np.complex128)  # Bluestein
    check(jnp.fft.ifft, np.fft.ifft, x, rtol=1e-11, atol=1e-12, dtype=np.complex128)


@pytest.mark.parametrize("dtype, call", [(C64, "jaxc_dft_f32"), (np.complex128, "jaxc_dft_f64")])
def test_the_cpu_calls_the_compiled_fft(dtype, call, x64):
    x = rand((300, 256), dtype)
    lowered = jaxc.jit(jnp.fft.fft).lower(x)
    assert "jaxc.dft" in lowered.as_text(stage="traced")
    loops = lowered.as_text(stage="loops")
    assert f"call @{call}(" in loops and "omp.parallel" in loops  # 300 sequences over the threads
    assert "dot_general" not in lowered.as_text(stage="optimized")


def test_without_library_calls_the_dft_is_products():
    x = rand((4, 128), C64)
    with host.override(library_calls=False):
        lowered = jaxc.jit(jnp.fft.fft).lower(x)
        optimized = lowered.as_text(stage="optimized")
        loops = lowered.as_text(stage="loops")
    assert "jaxc.dft" not in optimized and "jaxc.dot_general" in optimized
    assert "jaxc_dft" not in loops


def test_gradients_of_long_transforms(route, x64):
    x = rand((2, 96), np.float64)
    check_grads(lambda v: (jnp.abs(jnp.fft.rfft(v)) ** 2).sum(), (x,), 1)
    z = rand((3, 67), np.complex128)
    check_grads(lambda v: jnp.real(jnp.fft.ifft(jnp.fft.fft(v, axis=0) * v)).sum(), (z,), 1)


def test_vmap_of_real_transforms_against_loop(route):
    x = rand((5, 6, 40), np.float32)
    got = jaxc.vmap(lambda v: jnp.fft.irfft(jnp.fft.rfft(v, axis=0) * 2.0, n=6, axis=0), in_axes=2, out_axes=1)(x)
    expected = np.stack([np.fft.irfft(np.fft.rfft(x[:, :, i], axis=0) * 2.0, n=6, axis=0) for i in range(40)], 1)
    assert_close(got, expected, rtol=1e-4, atol=1e-4)


# jaxc.dft takes the axis: sequences in rows (the last axis), columns (the
# first) or a middle axis (the lowering transposes a copy), sizes that are
# not multiples of the FFT's 16 lanes, real and complex inputs.
@pytest.mark.parametrize("shape", [(5,), (40, 6), (3, 35, 7), (2, 3, 4, 5), (1, 8), (8, 1), (3, 1, 4)])
def test_dft_along_each_axis(route, shape):
    for axis in range(len(shape)):
        for dtype in (C64, np.float32):
            x = rand(shape, dtype, -1.0, 1.0)
            forward, inverse = jaxc.jit(lambda v, a=axis: (lax._fft.dft(v, -1, 1.0, a), lax._fft.dft(v, 1, 0.5, a)))(x)
            expected = np.fft.fft(x.astype(np.complex128), axis=axis)
            tolerance = _tolerance(shape[axis]) * np.max(np.abs(expected))
            assert forward.dtype == C64
            assert_close(forward, expected, rtol=0, atol=tolerance)
            assert_close(inverse, 0.5 * shape[axis] * np.fft.ifft(x.astype(np.complex128), axis=axis),
                         rtol=0, atol=tolerance)


def test_transforms_along_axes_have_no_transposes():
    x = rand((16, 24), C64)
    r = rand((4, 16, 24), np.float32)
    lowered = jaxc.jit(lambda v, w: (jnp.fft.fft(v, axis=0), jnp.fft.irfft2(jnp.fft.rfft2(w)),
                                     jnp.fft.fftn(v))).lower(x, r)
    traced = lowered.as_text(stage="traced")
    assert "jaxc.transpose" not in traced and "jaxc.slice" not in traced and "jaxc.concatenate" not in traced
    # rfft2's last axis keeps its first 13 frequencies; irfft2's last is a Hermitian DFT
    assert "tensor<4x16x24xf32> -> tensor<4x16x13xcomplex<f32>>" in traced
    assert "jaxc.hermitian_dft" in traced and "-> tensor<4x16x24xf32>" in traced
    assert "axis = 0, sign = -1" in traced and "axis = 1, sign = 1" in traced and "axis = 2, sign = -1" in traced
    got = lowered.compile()(x, r)
    assert_close(got[0], np.fft.fft(x, axis=0), rtol=1e-4, atol=1e-4)
    assert_close(got[1], np.fft.irfft2(np.fft.rfft2(r), r.shape[-2:]), rtol=1e-4, atol=1e-4)
    assert_close(got[2], np.fft.fftn(x), rtol=1e-4, atol=1e-3)


def test_gradients_along_the_first_axis(route, x64):
    z = rand((6, 3), np.complex128)
    check_grads(lambda v: jnp.real(jnp.fft.fft(v, axis=0) * jnp.conj(v)).sum(), (z,), 1)
    r = rand((7, 2, 3), np.float64)
    check_grads(lambda v: (jnp.abs(jnp.fft.rfft(v, axis=1)) ** 2).sum(), (r,), 1)


def test_fft_along_checks_its_arguments():
    x = jnp.ones((4, 6), C64)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for an array of rank 2"):
        lax._fft.fft_along(x, lax.FftType.FFT, 2)
    with pytest.raises(ValueError, match=r"FFT with fft_lengths \(5,\) needs dimension 0 \(5,\), got \(4,\)"):
        lax._fft.fft_along(x, lax.FftType.FFT, 0, 5)
    with pytest.raises(TypeError, match="RFFT needs a float32 or float64 operand"):
        lax._fft.fft_along(x, lax.FftType.RFFT, -1)
    assert_close(lax._fft.fft_along(x, lax.FftType.IRFFT, 1), np.fft.irfft(np.ones((4, 6)), axis=1),
                 rtol=1e-5, atol=1e-5)


# The direct sums jaxc-to-linalg makes of the two ops (what the FFT calls
# compute, and what runs where a DFT reaches the loops without being
# expanded or called): a module past the `optimized` stage (so nothing
# expands it) compiled with library calls off.
DIRECT_SUMS = """
func.func @main(%x: tensor<6x5xcomplex<f32>>, %r: tensor<3x6x4xf64>, %h: tensor<6x5xcomplex<f32>>)
    -> (tensor<6x5xcomplex<f32>>, tensor<3x6x4xcomplex<f64>>, tensor<6x9xf32>, tensor<10x5xf32>,
        tensor<6x3xcomplex<f32>>) {
  %a = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<6x5xcomplex<f32>> -> tensor<6x5xcomplex<f32>>
  %b = jaxc.dft %r, axis = 1, sign = 1, scale = 0.5 : tensor<3x6x4xf64> -> tensor<3x6x4xcomplex<f64>>
  %c = jaxc.hermitian_dft %h, axis = 1, sign = 1, scale = 0.25 : tensor<6x5xcomplex<f32>> -> tensor<6x9xf32>
  %d = jaxc.hermitian_dft %h, axis = 0, sign = -1, scale = 1.0 : tensor<6x5xcomplex<f32>> -> tensor<10x5xf32>
  %e = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<6x5xcomplex<f32>> -> tensor<6x3xcomplex<f32>>
  return %a, %b, %c, %d, %e : tensor<6x5xcomplex<f32>>, tensor<3x6x4xcomplex<f64>>, tensor<6x9xf32>, tensor<10x5xf32>,
    tensor<6x3xcomplex<f32>>
}
"""


def test_direct_sums_without_library_calls():
    from jaxc.runtime import cpu
    x, r, h = rand((6, 5), C64), rand((3, 6, 4), np.float64), rand((6, 5), C64)
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    with host.override(library_calls=False):
        executable = cpu.compile_module(DIRECT_SUMS, first_stage="optimized")
        module = ir.Module.parse(DIRECT_SUMS, make_context())
        loops = str(stages.run_stages(module, "loops", first="optimized"))
    assert "call @jaxc_" not in loops and "math.cos" in loops  # the sums' own loops
    a, b, c, d, e = executable["main"](x, r, h)
    assert_close(e, np.fft.fft(x, axis=1)[:, :3], rtol=1e-4, atol=1e-4)
    assert_close(a, np.fft.fft(x, axis=0), rtol=1e-4, atol=1e-4)
    assert_close(b, 0.5 * 6 * np.fft.ifft(r, axis=1), rtol=1e-10, atol=1e-10)
    assert_close(c, 0.25 * 9 * np.fft.irfft(h, 9, axis=1), rtol=1e-4, atol=1e-4)
    assert_close(d, 10 * np.fft.irfft(np.conj(h), 10, axis=0), rtol=1e-4, atol=1e-4)


# jaxc.hermitian_dft (irfft's last step): derivatives in both modes for
# even and odd lengths along either axis, and the gradient JAX gives a
# complex input (its transposes conjugate only through conj).
@pytest.mark.parametrize("n, axis", [(8, -1), (7, -1), (6, 0), (1, -1)])
def test_gradients_of_real_outputs(route, x64, n, axis):
    shape = [3, 3]
    shape[axis] = n // 2 + 1
    z = rand(tuple(shape), np.complex128)
    check_grads(lambda v: jnp.fft.irfft(v, n, axis=axis) ** 3, (z,), 1, modes=("fwd", "rev"))


@pytest.mark.skipif(jax_numpy is None, reason="JAX is not installed")
def test_gradient_of_a_real_output_against_jax(x64):
    import jax
    z = rand((2, 5), np.complex128)
    for n in (8, 9):
        mine = jaxc.grad(lambda v: (jnp.fft.irfft(v, n) ** 3).sum())(z)
        theirs = jax.grad(lambda v: (jax_numpy.fft.irfft(v, n) ** 3).sum())(z)  # JAX in float32
        assert_close(mine, np.asarray(theirs), rtol=1e-5, atol=1e-5)
