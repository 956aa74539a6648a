"""erf_inv, lgamma, digamma, nextafter, bitcast_convert between widths and
random_bits on the CPU (passes/lowering/special.py), against references:
erf_inv by bisection on math.erf/math.erfc, math.lgamma, digamma by a
50-digit Decimal recurrence + asymptotic series, np.nextafter, NumPy .view,
and a pure-Python jax `_threefry_random_bits_partitionable`."""
import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
from jnp_check import flushed

from jaxc.runtime import compile_module

MASK = 0xFFFFFFFF


# --------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------

def erf_inv_ref(y: float) -> float:
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    a = abs(y)
    if a == 0:
        return y
    lo, hi = 0.0, 30.0
    while True:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        below = math.erf(mid) < a if a <= 0.5 else math.erfc(mid) > 1.0 - a
        lo, hi = (mid, hi) if below else (lo, mid)
    return math.copysign(0.5 * (lo + hi), y)


def lgamma_ref(x: float) -> float:
    if math.isnan(x):
        return math.nan
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    return math.lgamma(x)


def _digamma_decimal(y: Decimal) -> Decimal:
    acc = Decimal(0)
    while y < 60:
        acc -= 1 / y
        y += 1
    inv2 = 1 / (y * y)
    coefficients = [Decimal(1) / 12, Decimal(-1) / 120, Decimal(1) / 252, Decimal(-1) / 240,
                    Decimal(1) / 132, Decimal(-691) / 32760, Decimal(1) / 12]
    series = sum(c * inv2 ** (k + 1) for k, c in enumerate(coefficients))
    return acc + y.ln() - 1 / (2 * y) - series


def digamma_ref(x: float) -> float:
    if math.isnan(x) or x == -math.inf or (x <= 0 and x == math.floor(x)):
        return math.nan
    if x == math.inf:
        return math.inf
    getcontext().prec = 50
    if x < 0.5:  # psi(x) = psi(1 - x) - pi cot(pi x)
        r = x - round(x)
        return float(_digamma_decimal(Decimal(1) - Decimal(x)) - Decimal(math.pi / math.tan(math.pi * r)))
    return float(_digamma_decimal(Decimal(x)))


def test_digamma_reference_known_values():
    gamma = 0.57721566490153286061
    assert digamma_ref(1.0) == pytest.approx(-gamma, rel=1e-15)
    assert digamma_ref(0.5) == pytest.approx(-gamma - 2 * math.log(2), rel=1e-15)
    assert digamma_ref(5.0) == pytest.approx(1 + 1 / 2 + 1 / 3 + 1 / 4 - gamma, rel=1e-15)
    assert digamma_ref(-0.5) == pytest.approx(-gamma - 2 * math.log(2) + 2, rel=1e-14)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------



def _unary(op: str, ty: str, n: int):
    t = f"tensor<{n}x{ty}>"
    return compile_module(f"func.func @f(%x: {t}) -> {t} {{\n"
                          f"  %r = jaxc.{op} %x : {t}\n  return %r : {t}\n}}\n")["f"]


def _check(got, x, ref, rtol, scale_floor):
    """|got - ref| <= rtol * max(|ref|, scale_floor) (or a few subnormal steps);
    NaN and inf exactly. Compiled code flushes subnormals (docs/semantics.md):
    a subnormal input reads as zero and a subnormal result is zero."""
    expected = flushed(np.array([ref(float(v)) for v in flushed(x, x.dtype)]), x.dtype)
    got = got.astype(np.float64)
    special = ~np.isfinite(expected)
    np.testing.assert_array_equal(got[special], expected[special], err_msg=f"x={x[special]}")
    finite = ~special
    err = np.abs(got[finite] - expected[finite])
    bound = rtol * np.maximum(np.abs(expected[finite]), scale_floor)
    bound = np.maximum(bound, 4 * float(np.finfo(x.dtype).smallest_subnormal))  # subnormal results
    bad = err > bound
    assert not bad.any(), (x[finite][bad][:5], got[finite][bad][:5], expected[finite][bad][:5])


RNG = np.random.default_rng(0)
ERF_INV_X = np.concatenate([RNG.uniform(-1, 1, 400), 1 - 10 ** RNG.uniform(-15, -1, 100),
                            -(1 - 10 ** RNG.uniform(-15, -1, 50)), 10 ** RNG.uniform(-300, -1, 50),
                            [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.0, np.inf, -np.inf, np.nan]])
GAMMA_X = np.concatenate([RNG.uniform(-20, 20, 400), 10 ** RNG.uniform(-10, 30, 100),
                          -RNG.uniform(0, 1, 50), RNG.uniform(0.5, 3, 50), -10 ** RNG.uniform(-10, 5, 50),
                          [0.0, -0.0, 1.0, 2.0, 0.5, -0.5, -1.0, -2.0, -3.0, -100.0, 1e-30,
                           np.inf, -np.inf, np.nan]])

# (op, reference, f64 relative tolerance, f32 relative tolerance, scale floor)
# erf_inv: relative everywhere. lgamma/digamma: relative to max(|ref|, 1), as
# their roots make relative error meaningless there.
CASES = [("erf_inv", erf_inv_ref, ERF_INV_X, 1e-14, 1e-6, 0.0),
         ("lgamma", lgamma_ref, GAMMA_X, 1e-13, 1e-5, 1.0),
         ("digamma", digamma_ref, GAMMA_X, 1e-13, 1e-5, 1.0)]


@pytest.mark.parametrize("op, ref, xs, rtol64, rtol32, floor", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_special_function(op, ref, xs, rtol64, rtol32, floor, dtype):
    x = xs.astype(dtype)
    ty = "f64" if dtype == np.float64 else "f32"
    (got,) = _unary(op, ty, len(x))(x)
    assert got.dtype == dtype
    _check(got, x, ref, rtol64 if dtype == np.float64 else rtol32, floor)


@pytest.mark.parametrize("op, ref, xs, rtol64, rtol32, floor", CASES, ids=[c[0] for c in CASES])
def test_special_function_f16(op, ref, xs, rtol64, rtol32, floor):
    x = xs[np.abs(xs) < 6e4].astype(np.float16)
    (got,) = _unary(op, "f16", len(x))(x)
    assert got.dtype == np.float16
    # Reference at the f16 input, rounded to f16: within 1 ulp (computed in f32).
    with np.errstate(over="ignore"):  # lgamma of large f16 overflows to inf, as computed
        expected = np.array([ref(float(v)) for v in x]).astype(np.float16)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got[~finite], expected[~finite])
    ulp = np.spacing(np.maximum(np.abs(expected[finite]), np.float16(floor or 6e-8)))
    assert np.all(np.abs(got[finite].astype(np.float64) - expected[finite]) <= ulp.astype(np.float64))


def _bf16_bits(values):
    return (np.array(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("op, ref", [("erf_inv", erf_inv_ref), ("lgamma", lgamma_ref),
                                     ("digamma", digamma_ref)])
def test_special_function_bf16(op, ref):
    x = _bf16_bits([0.5, -0.25, 3.0, 10.0, 0.75, -2.5])
    (got,) = _unary(op, "bf16", len(x))(x)
    got = _bf16_value(np.asarray(got).view(np.uint16))
    expected = np.array([ref(float(v)) for v in _bf16_value(x)])
    np.testing.assert_allclose(got, expected, rtol=2 ** -7, atol=1e-6)


def test_special_values_exactly():
    f = _unary("lgamma", "f64", 8)
    (got,) = f(np.array([0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, 1.0, 2.0]))
    assert list(got[:6]) == [np.inf] * 6
    assert abs(got[6]) < 1e-15 and abs(got[7]) < 1e-15
    (got,) = _unary("digamma", "f64", 7)(np.array([0.0, -0.0, -1.0, -5.0, -np.inf, np.inf, np.nan]))
    assert np.isnan(got[[0, 1, 2, 3, 4, 6]]).all() and got[5] == np.inf
    (got,) = _unary("erf_inv", "f32", 6)(np.array([0.0, -0.0, 1.0, -1.0, 1.0000001, np.nan], np.float32))
    assert got[0] == 0 and not np.signbit(got[0]) and got[1] == 0 and np.signbit(got[1])
    assert got[2] == np.inf and got[3] == -np.inf and np.isnan(got[4]) and np.isnan(got[5])


# --------------------------------------------------------------------------
# nextafter
# --------------------------------------------------------------------------

def _binary(op: str, ty: str, n: int):
    t = f"tensor<{n}x{ty}>"
    return compile_module(f"func.func @f(%x: {t}, %y: {t}) -> {t} {{\n"
                          f"  %r = jaxc.{op} %x, %y : {t}\n  return %r : {t}\n}}\n")["f"]


@pytest.mark.parametrize("dtype, ty", [(np.float32, "f32"), (np.float64, "f64"), (np.float16, "f16")])
def test_nextafter_matches_numpy(dtype, ty):
    info = np.finfo(dtype)
    tiny_sub = np.array(info.smallest_subnormal, dtype)
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max),
               float(tiny_sub), -float(tiny_sub), float(info.tiny), -float(info.tiny),
               float(info.tiny) - float(tiny_sub), 2.5, -3.75]
    a, b = (np.array(v, dtype) for v in zip(*[(x, y) for x in special for y in special]))
    a = np.concatenate([a, RNG.standard_normal(50).astype(dtype)])
    b = np.concatenate([b, RNG.standard_normal(50).astype(dtype)])
    (got,) = _binary("nextafter", ty, len(a))(a, b)
    with np.errstate(over="ignore"):
        expected = np.nextafter(a, b)
    # NumPy's float16 nextafter returns lhs when lhs == rhs (C99, XLA and
    # NumPy's float32/float64 return rhs: nextafter(0, -0) = -0).
    expected = np.where(a == b, b, expected)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan)
    width = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype]
    np.testing.assert_array_equal(got[~nan].view(width), expected[~nan].view(width))


def test_nextafter_bf16():
    values = [0.0, -0.0, 1.0, -1.0, 3.0, np.inf]
    a, b = (_bf16_bits(v) for v in zip(*[(x, y) for x in values for y in values]))
    (got,) = _binary("nextafter", "bf16", len(a))(a, b)
    got = np.asarray(got).view(np.uint16).astype(np.int64)
    fa, fb = _bf16_value(a), _bf16_value(b)
    for i in range(len(a)):
        if fa[i] == fb[i]:
            expected = b[i]
        elif fa[i] == 0:
            expected = (b[i] & 0x8000) | 1
        else:
            away = (fa[i] > 0) == (fb[i] > fa[i])
            expected = int(a[i]) + (1 if away else -1)
        assert got[i] == expected, (fa[i], fb[i])


# --------------------------------------------------------------------------
# bitcast_convert between widths
# --------------------------------------------------------------------------

PAIRS = [("f32", np.float32, "ui16", np.uint16), ("f32", np.float32, "ui8", np.uint8),
         ("f64", np.float64, "ui32", np.uint32), ("f64", np.float64, "f32", np.float32),
         ("i64", np.int64, "i16", np.int16), ("ui32", np.uint32, "i8", np.int8),
         ("f16", np.float16, "ui8", np.uint8), ("i32", np.int32, "f16", np.float16)]


def _bitcast(src: str, src_shape, dst: str, dst_shape):
    st = f"tensor<{''.join(f'{d}x' for d in src_shape)}{src}>"
    dt = f"tensor<{''.join(f'{d}x' for d in dst_shape)}{dst}>"
    return compile_module(f"func.func @f(%x: {st}) -> {dt} {{\n"
                          f"  %r = jaxc.bitcast_convert %x : {st} -> {dt}\n  return %r : {dt}\n}}\n")["f"]


def _random_of(dtype, shape):
    raw = RNG.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


@pytest.mark.parametrize("src, sdt, dst, ddt", PAIRS, ids=[f"{p[0]}-{p[2]}" for p in PAIRS])
def test_bitcast_wider_to_narrower_and_back(src, sdt, dst, ddt):
    ratio = np.dtype(sdt).itemsize // np.dtype(ddt).itemsize
    x = _random_of(sdt, (3, 4))
    (narrow,) = _bitcast(src, (3, 4), dst, (3, 4, ratio))(x)
    assert narrow.shape == (3, 4, ratio)
    expected = x.view(ddt).reshape(3, 4, ratio)  # NumPy .view: little-endian
    np.testing.assert_array_equal(narrow.view(f"u{np.dtype(ddt).itemsize}"),
                                  expected.view(f"u{np.dtype(ddt).itemsize}"))
    (back,) = _bitcast(dst, (3, 4, ratio), src, (3, 4))(expected)
    np.testing.assert_array_equal(back.view(f"u{np.dtype(sdt).itemsize}"),
                                  x.view(f"u{np.dtype(sdt).itemsize}"))


def test_bitcast_of_a_0d_value():
    x = np.array(1.0, np.float32)
    (parts,) = _bitcast("f32", (), "ui16", (2,))(x)
    np.testing.assert_array_equal(parts, x.reshape(1).view(np.uint16))
    (joined,) = _bitcast("ui16", (2,), "f32", ())(parts)
    assert joined.shape == () and joined == 1.0


def test_bitcast_same_width_still_works():
    x = np.array([1.0, -2.0, np.inf], np.float32)
    (bits,) = _bitcast("f32", (3,), "ui32", (3,))(x)
    np.testing.assert_array_equal(bits, x.view(np.uint32))


# --------------------------------------------------------------------------
# random_bits
# --------------------------------------------------------------------------

def _threefry(k0, k1, x0, x1):
    def rotl(v, r):
        return ((v << r) | (v >> (32 - r))) & MASK
    ks = [k0, k1, k0 ^ k1 ^ 0x1BD11BDA]
    x0, x1 = (x0 + ks[0]) & MASK, (x1 + ks[1]) & MASK
    for i in range(1, 6):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[(i - 1) % 2]:
            x0 = (x0 + x1) & MASK
            x1 = rotl(x1, r) ^ x0
        x0 = (x0 + ks[i % 3]) & MASK
        x1 = (x1 + ks[(i + 1) % 3] + i) & MASK
    return x0, x1


def random_bits_ref(key, width, shape):
    """jax._src.prng._threefry_random_bits_partitionable in plain Python."""
    out = []
    for flat in range(int(np.prod(shape, dtype=np.int64))):
        b1, b2 = _threefry(int(key[0]), int(key[1]), flat >> 32, flat & MASK)
        out.append((b1 << 32) | b2 if width == 64 else (b1 ^ b2) & ((1 << width) - 1))
    return np.array(out, dtype=f"uint{width}").reshape(shape)


def _original_random_bits_ref(key, width, n):
    """jax's pre-0.5 (non-partitionable) threefry_random_bits for width 32 and
    64 (x64): only used to check the cipher and key conventions against JAX's
    published values."""
    count = (width * n + 31) // 32
    half = (count + 1) // 2  # threefry_2x32 pads the iota to even length
    x = list(range(count)) + [0] * (2 * half - count)
    pairs = [_threefry(key[0], key[1], x[i], x[half + i]) for i in range(half)]
    bits = [p[0] for p in pairs] + [p[1] for p in pairs]
    bits = bits[:count]
    if width == 32:
        return bits
    return [(bits[i] << 32) | bits[n + i] for i in range(n)]


def test_cipher_conventions_match_jax_published_values():
    key = (0, 1701)  # random.PRNGKey(1701)
    assert _original_random_bits_ref(key, 32, 3) == [56197195, 4200222568, 961309823]
    assert _original_random_bits_ref(key, 64, 3) == [3982329540505020460, 16822122385914693683,
                                                     7882654074788531506]


def _random_bits(shape, ty):
    t = f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{ty}>"
    return compile_module(f"func.func @f(%k: tensor<2xui32>) -> {t} {{\n"
                          f"  %r = jaxc.random_bits %k : tensor<2xui32> -> {t}\n"
                          f"  return %r : {t}\n}}\n")["f"]


@pytest.mark.parametrize("width", [8, 16, 32, 64])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 1, 3)])
def test_random_bits_matches_partitionable_threefry(width, shape):
    key = np.array([0x12345678, 1701], np.uint32)
    (got,) = _random_bits(shape, f"ui{width}")(key)
    assert got.dtype == np.dtype(f"uint{width}") and got.shape == shape
    np.testing.assert_array_equal(got, random_bits_ref(key, width, shape))


def test_random_bits_is_a_prefix_in_flat_order():
    key = np.array([0, 42], np.uint32)
    (small,) = _random_bits((4,), "ui32")(key)
    (large,) = _random_bits((2, 4), "ui32")(key)
    np.testing.assert_array_equal(large[0], small)
    (other,) = _random_bits((4,), "ui32")(np.array([1, 42], np.uint32))
    assert not np.array_equal(other, small)
