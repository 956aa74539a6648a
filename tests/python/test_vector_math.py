"""Vector math (glibc's libmvec through `jaxc-vector-math-to-libmvec`, or
native instructions) against float64 NumPy over wide ranges, in ulps of the
float32 result. The bounds are those docs/performance.md lists (measured
maximum rounded up, so a regression of the library or of the lowering shows).
Each case also checks that the compiled code calls libmvec (or, for
sqrt/rsqrt, no libm at all), so a silent fall-back to scalar calls fails.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.passes import host, vector_math

RNG = np.random.default_rng(7)
N = 1 << 15


def spread(lo: float, hi: float, *, log: bool = True, signed: bool = True) -> np.ndarray:
    """N float32 values with magnitudes from lo to hi (log-uniform or uniform)."""
    magnitude = (np.exp(RNG.uniform(np.log(lo), np.log(hi), N)) if log else RNG.uniform(lo, hi, N))
    sign = RNG.choice([-1.0, 1.0], N) if signed else 1.0
    return (sign * magnitude).astype(np.float32)


_erf = np.vectorize(math.erf)

# name: (jaxc function, float64 reference, input, max ulps, libmvec base name or None)
UNARY = {
    "sin": (jnp.sin, np.sin, spread(1e-6, 1e6), 2.0, "sin"),
    "cos": (jnp.cos, np.cos, spread(1e-6, 1e6), 2.0, "cos"),
    "tan": (jnp.tan, np.tan, spread(1e-6, 1e4), 3.5, "tan"),
    "exp": (jnp.exp, np.exp, spread(-87, 88, log=False, signed=False), 3.0, "exp"),
    "exp2": (jnp.exp2, np.exp2, spread(-125, 127, log=False, signed=False), 1.5, "exp2"),
    "expm1": (jnp.expm1, np.expm1, spread(1e-8, 80), 2.0, "expm1"),
    "log": (jnp.log, np.log, spread(1e-30, 1e30, signed=False), 4.0, "log"),
    "log1p": (jnp.log1p, np.log1p, spread(1e-8, 1e30, signed=False), 2.0, "log1p"),
    "tanh": (jnp.tanh, np.tanh, spread(1e-6, 20), 1.5, "tanh"),
    "logistic": (lax.logistic, lambda x: 1 / (1 + np.exp(-x)), spread(1e-6, 80), 3.5, "exp"),
    "erf": (lax.erf, _erf, spread(1e-6, 6), 2.0, "erf"),
    "atan": (jnp.arctan, np.arctan, spread(1e-6, 1e6), 2.0, "atan"),
    "sqrt": (jnp.sqrt, np.sqrt, spread(1e-30, 1e30, signed=False), 0.5, None),
    "rsqrt": (lax.rsqrt, lambda x: 1 / np.sqrt(x), spread(1e-30, 1e30, signed=False), 1.5, None),
}

BINARY = {
    "atan2": (jnp.arctan2, np.arctan2, spread(1e-6, 1e6), spread(1e-6, 1e6), 3.0, "atan2"),
    "pow": (jnp.power, np.power, spread(1e-3, 1e3, signed=False), spread(1e-3, 30, log=False), 1.0, "pow"),
}


def ulp_error(got: np.ndarray, exact: np.ndarray) -> float:
    keep = np.isfinite(exact) & (np.abs(exact) < 3e38) & ((np.abs(exact) > 1e-37) | (exact == 0))
    exact = exact[keep]
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    return float(np.max(np.abs(got[keep].astype(np.float64) - exact) / ulp))


def assert_uses_libmvec(f, args, base: str | None) -> None:
    """The llvm stage calls libmvec for `base` (f32), or our own kernel where
    `vector_math.OWN_KERNELS` has one for this host."""
    llvm = jaxc.jit(f).lower(*args).as_text(stage="llvm")
    if base is None:
        assert "_ZGV" not in llvm and "sqrtf" not in llvm
        return
    if host.target().vector_bits < 256:
        pytest.skip("no libmvec entry points for SSE-only hosts (per-lane libm calls)")
    own = vector_math.OWN_KERNELS.get((base, "f32", host.target().vector_bits))
    if own is not None:
        assert f"llvm.call @{own[0]}(" in llvm and "_ZGV" not in llvm, f"{base}: our kernel is not called"
        return
    assert f"_{base}f" in llvm and "_ZGV" in llvm, f"{base}: no libmvec call in the llvm stage"


# On an AVX512 host: glibc's AVX-512 entry points (`_ZGVeN16v_*`) are less
# accurate for two functions, our own exp kernel (`vector_math.EXPF_AVX512`,
# measured 0.86 ulp, logistic 1.98) more (docs/performance.md): the bounds there.
AVX512_BOUNDS = {"erf": 4.5, "expm1": 2.5, "exp": 1.0, "logistic": 2.5}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ulps(name):
    f, reference, x, bound, base = UNARY[name]
    if host.target().vector_bits == 512:
        bound = AVX512_BOUNDS.get(name, bound)
    got = np.asarray(jaxc.jit(f)(x))
    error = ulp_error(got, reference(x.astype(np.float64)))
    assert error <= bound, f"{name}: {error:.2f} ulp > {bound}"
    assert_uses_libmvec(f, (x,), base)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ulps(name):
    f, reference, a, b, bound, base = BINARY[name]
    got = np.asarray(jaxc.jit(f)(a, b))
    error = ulp_error(got, reference(a.astype(np.float64), b.astype(np.float64)))
    assert error <= bound, f"{name}: {error:.2f} ulp > {bound}"
    assert_uses_libmvec(f, (a, b), base)


def test_sin_cos_large_arguments():
    """|x| up to 1e6 (where a short polynomial would be off by 1e-3 or worse)."""
    x = np.linspace(1e5, 1e6, N, dtype=np.float32)
    for f, g in ((jnp.sin, np.sin), (jnp.cos, np.cos)):
        got = np.asarray(jaxc.jit(f)(x))
        assert np.max(np.abs(got - g(x.astype(np.float64)))) < 1e-6


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 88.8, -104.0] * 200, np.float32)
    with np.errstate(all="ignore"):
        for f, g in ((jnp.exp, np.exp), (jnp.sin, np.sin), (jnp.tanh, np.tanh), (jnp.log1p, np.log1p),
                     (jnp.expm1, np.expm1)):
            got = np.asarray(jaxc.jit(f)(x))
            want = g(x)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=1e-30)
            np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])


def test_exp_at_its_limits():
    """exp where it overflows, near the smallest normal result (below it the
    result is flushed to 0, as XLA's FTZ/DAZ code does), where n = round(x /
    ln 2) changes, at +-inf and NaN, in every lane of a 16-lane vector."""
    edges = np.array([88.72283, 88.72284, 88.7229, 89.0, 1e30, -87.33654, -87.3366, -87.5, -103.97,
                      -103.98, -1e30, 0.3465736, 0.3465737, -0.3465736, -0.3465737, 1.0397208, 1e-7,
                      -1e-7, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    x = np.repeat(edges, 16)
    got = np.asarray(jaxc.jit(jnp.exp)(x))
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    smallest_normal = np.finfo(np.float32).tiny
    want[np.abs(want) < smallest_normal] = 0.0
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1.5e-7, atol=0)


def test_own_kernel_is_inlined_into_the_loop():
    """On AVX-512 the exp of a vectorized loop is our kernel, inlined: no call
    is left in the machine code, and the scaling is one vscalefps."""
    if host.target().vector_bits != 512:
        pytest.skip("our exp kernel is AVX-512's (elsewhere: libmvec)")
    x = np.ones((64, 256), np.float32)
    asm = jaxc.jit(lambda v: jnp.exp(v) * 2).lower(x).as_text(stage="asm")
    assert "vscalefps" in asm
    assert "jaxc_expf_avx512" not in asm and "expf" not in asm


def test_f64_uses_libmvec_too():
    jaxc.config.update("jax_enable_x64", True)
    try:
        x = spread(1e-3, 1e3)
        x64 = x.astype(np.float64)
        got = np.asarray(jaxc.jit(jnp.sin)(x64))
        np.testing.assert_allclose(got, np.sin(x64), rtol=1e-14, atol=1e-15)
        llvm = jaxc.jit(jnp.sin).lower(x64).as_text(stage="llvm")
        if host.target().vector_bits >= 256:
            assert "v_sin(" in llvm or "v_sin\"" in llvm, "f64 sin: no libmvec call"
    finally:
        jaxc.config.update("jax_enable_x64", False)
