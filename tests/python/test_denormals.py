"""Compiled CPU code flushes subnormals to zero, as XLA does for JAX on the
CPU (docs/semantics.md, Floating point): every path into compiled code
(inline on the caller's thread, the executor thread, OpenMP workers,
exported programs) sets FTZ/DAZ for the call and restores the caller's
mode. The reference is NumPy's exact result with its subnormals replaced
by zeros of the same sign."""
from __future__ import annotations

import platform

import numpy as np
import pytest
from jnp_check import flushed

import jaxc
import jaxc.numpy as jnp

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64", "i686"),
                                reason="subnormals are flushed on x86 hosts only")


def assert_same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), expected.view(f"u{expected.itemsize}"))


@pytest.mark.parametrize("dtype,scale", [(np.float32, np.float32(1e-30)), (np.float64, 1e-300)])
@pytest.mark.parametrize("n", [5, 1 << 20])  # inline on this thread; the executor and its OpenMP threads
def test_subnormal_results_become_zero(dtype, scale, n, x64):
    x = np.linspace(-1e-8, 1e-8, n).astype(dtype)
    x[0] = 1.0  # one normal result
    f = jaxc.jit(lambda x: x * scale)
    exact = x * dtype(scale)
    assert np.count_nonzero(np.abs(exact) < np.finfo(dtype).tiny) > n // 2  # the case is real
    assert_same_bits(f(x), flushed(exact))


@pytest.mark.parametrize("n", [4, 1 << 20])
def test_subnormal_inputs_read_as_zero(n):
    x = np.full(n, 1e-40, np.float32)
    x[1] = -1e-40
    x[2] = 2.5
    got = np.asarray(jaxc.jit(lambda x: x + np.float32(0))(x))
    assert_same_bits(got, flushed(x) + np.float32(0))
    assert np.asarray(jnp.sum(x)) == np.float32(2.5)  # eager kernels too


def test_caller_keeps_its_subnormals():
    """The caller's floating-point mode is restored: NumPy after a call (the
    inline path runs on this very thread) still computes subnormals."""
    jaxc.jit(lambda x: x * 2)(np.ones(3, np.float32)).block_until_ready()
    assert np.float32(1e-10) * np.float32(1e-30) != 0
    big = jaxc.jit(lambda x: x * 2)(np.ones(1 << 20, np.float32))
    big.block_until_ready()
    assert np.float64(1e-300) * 1e-10 != 0


def test_moves_keep_bits():
    """No arithmetic, no flushing: device_put, reshape and bitcast keep a subnormal."""
    x = np.array([1e-40, -3e-39, 1.0], np.float32)
    assert_same_bits(jaxc.device_put(x), x)
    assert_same_bits(jaxc.jit(lambda x: x.reshape(3, 1))(x), x.reshape(3, 1))
    bits = jaxc.jit(lambda x: jaxc.lax.bitcast_convert_type(x, jnp.uint32))(x)
    np.testing.assert_array_equal(np.asarray(bits), x.view(np.uint32))


def test_bf16_conversions_keep_subnormals():
    """bf16 <-> f32 are bit operations (a shift; rounding with integers), no
    arithmetic: subnormals survive both ways, as in JAX (bf16 bits 0x0001 ->
    f32 bits 0x00010000; f32 1e-40 -> bf16 bits 0x0001)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bits = np.array([0x0001, 0x8002, 0x3F80], np.uint16)
    widened = jaxc.jit(lambda b: b.astype(jnp.float32))(bits.view(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(np.asarray(widened).view(np.uint32), bits.astype(np.uint32) << 16)
    narrowed = jaxc.jit(lambda f: f.astype(jnp.bfloat16))(np.array([1e-40, -1e-40], np.float32))
    expected = np.array([1e-40, -1e-40], np.float32).astype(ml_dtypes.bfloat16)  # round to nearest even
    np.testing.assert_array_equal(np.asarray(narrowed).view(np.uint16), expected.view(np.uint16))
    assert expected.view(np.uint16)[0] != 0  # the case is real


def test_narrowing_conversion_flushes(x64):
    """f64 -> f32 below f32's smallest normal is a zero, as in JAX."""
    d = np.array([1e-40, -2.0 ** -140, 1e-30, 3.0])
    got = jaxc.jit(lambda d: d.astype(jnp.float32))(d)
    assert_same_bits(got, flushed(d.astype(np.float32)))


def test_aot_program_flushes(tmp_path):
    import jaxc_aot

    from jaxc.runtime import aot

    if aot.find_c_compiler() is None:
        pytest.skip("no C compiler to link program.so")
    x = np.linspace(-1e-8, 1e-8, 64).astype(np.float32)
    lowered = jaxc.jit(lambda x: x * np.float32(1e-30)).lower(x)
    path = tmp_path / "f.jaxc"
    aot.export_module(lowered.as_text("traced"), path)
    program = jaxc_aot.load(path)
    (got,) = program[program.functions[0]](x)
    assert_same_bits(got, flushed(x * np.float32(1e-30)))
    assert np.float32(1e-10) * np.float32(1e-30) != 0  # and the caller's mode is back


def test_bit_tests_of_subnormals_in_one_kernel():
    """A kernel that tests a float's bits and does float math with it: LLVM,
    told the denormal mode (`jaxc-denormal-mode`), keeps `(bits & 0x7fffffff)
    == 0` an integer test; assuming IEEE it made it `x == 0.0`, which DAZ
    makes true for subnormals (frexp of 1e-40 gave exponent 0)."""
    x = np.array([1e-40, -3e-44, 2.0 ** -149, 0.0, -0.0, 3.0, 1.5e-38], np.float32)

    def f(x):
        bits = jaxc.lax.bitcast_convert_type(x, jnp.int32)
        is_zero = (bits & 0x7FFFFFFF) == 0
        return is_zero, jnp.where(is_zero, x, x * 2 + 1), bits

    is_zero, _, bits = jaxc.jit(f)(x)
    np.testing.assert_array_equal(np.asarray(is_zero), (x.view(np.int32) & 0x7FFFFFFF) == 0)
    np.testing.assert_array_equal(np.asarray(bits), x.view(np.int32))
    mantissa, exponent = jaxc.jit(jnp.frexp)(x)
    want_mantissa, want_exponent = np.frexp(x)
    np.testing.assert_array_equal(np.asarray(exponent), want_exponent)
    np.testing.assert_array_equal(np.asarray(mantissa), want_mantissa)
