"""`jaxc.lax` primitives one by one, eagerly and under `jaxc.jit`, against
NumPy references computed here (XLA's rules where they differ from NumPy:
integer division by zero, shifts past the bit width, saturating casts).

Elementwise tables are checked with one jit per table (one compile) and one
eager kernel per op; the rest with a small `check` that runs both modes.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from jnp_check import assert_close, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def check(fn, expected, *args, dtype=None, rtol=1e-6, atol=1e-6):
    """fn(*args) eagerly and under jit (array args traced) equals `expected`
    (a value or a pytree of values); `dtype`: every result's dtype."""
    for mode, out in (("eager", fn(*args)), ("jit", jaxc.jit(fn)(*args))):
        assert_close(out, expected, rtol, atol, mode)
        if dtype is not None:
            for leaf in jaxc.tree_util.tree_leaves(out):
                assert leaf.dtype == np.dtype(dtype), f"{mode}: dtype {leaf.dtype}, expected {np.dtype(dtype)}"


# Ops lowered to a libm call: two of them in one jit fail to compile (the
# libm declaration is emitted twice; see test_two_libm_calls_in_one_jit), so
# the tables jit them one at a time.
LIBM_OPS = ("log1p", "expm1", "lgamma")


def jit_table(names, inputs):
    """{name: lax.<name>(*inputs[name])} under jit: one compile for the lot
    (plus one per op of LIBM_OPS)."""
    groups = [[n for n in names if n not in LIBM_OPS]] + [[n] for n in names if n in LIBM_OPS]
    out = {}
    for group in filter(None, groups):
        out.update(jaxc.jit(lambda ins: {name: getattr(lax, name)(*ins[name]) for name in group})(
            {name: inputs[name] for name in group}))
    return out


def check_table(table, inputs, rtol=1e-6, atol=1e-6, dtype=None):
    """Each `lax.<name>(*inputs[name])` against `table[name](*inputs[name])`:
    every op eagerly, and all of them in one jit."""
    expected = {name: ref(*(np.asarray(a) for a in inputs[name])) for name, ref in table.items()}
    eager = {name: getattr(lax, name)(*inputs[name]) for name in table}
    jitted = jit_table(list(table), inputs)
    for name in table:
        for mode, out in (("eager", eager[name]), ("jit", jitted[name])):
            assert_close(out, expected[name], rtol, atol, f"lax.{name} {mode}")
            want = dtype or np.asarray(inputs[name][0]).dtype
            assert out.dtype == want, f"lax.{name} {mode}: dtype {out.dtype}, expected {want}"


# ---------------------------------------------------------------------------
# References for the special functions (NumPy has none; scipy is not a dependency)
# ---------------------------------------------------------------------------

def _digamma(x: float) -> float:
    if x < 0.5:  # reflection
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return result + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def _erf_inv(y: float) -> float:
    x = 0.0
    for _ in range(100):  # Newton on erf(x) - y
        step = (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-17:
            break
    return x


def _vectorized(fn):
    return lambda x: np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _same_dtype(fn):
    return lambda *xs: np.asarray(fn(*(x.astype(np.float64) for x in xs))).astype(xs[0].dtype)


# ---------------------------------------------------------------------------
# Elementwise unary
# ---------------------------------------------------------------------------

# name -> (reference, low, high): the inputs are drawn from [low, high)
FLOAT_UNARY = {
    "neg": (np.negative, -3, 3), "abs": (np.abs, -3, 3), "sign": (np.sign, -3, 3),
    "exp": (np.exp, -5, 5), "exp2": (np.exp2, -5, 5), "expm1": (np.expm1, -1, 1),
    "log": (np.log, 0.01, 10), "log1p": (np.log1p, -0.9, 3), "sin": (np.sin, -4, 4),
    "cos": (np.cos, -4, 4), "tan": (np.tan, -1.4, 1.4), "asin": (np.arcsin, -0.99, 0.99),
    "acos": (np.arccos, -0.99, 0.99), "atan": (np.arctan, -5, 5), "sinh": (np.sinh, -3, 3),
    "cosh": (np.cosh, -3, 3), "tanh": (np.tanh, -3, 3), "asinh": (np.arcsinh, -5, 5),
    "acosh": (np.arccosh, 1, 5), "atanh": (np.arctanh, -0.99, 0.99),
    "logistic": (lambda x: 1 / (1 + np.exp(-x)), -6, 6), "sqrt": (np.sqrt, 0, 9),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 9), "cbrt": (np.cbrt, -9, 9),
    "floor": (np.floor, -3, 3), "ceil": (np.ceil, -3, 3), "is_finite": (np.isfinite, -3, 3),
    "erf": (_vectorized(math.erf), -3, 3), "erf_inv": (_vectorized(_erf_inv), -0.99, 0.99),
    "lgamma": (_vectorized(math.lgamma), 0.1, 6), "digamma": (_vectorized(_digamma), 0.1, 6),
}


def _float_unary_inputs(dtype):
    return {name: (rand((2, 5), dtype, lo, hi),) for name, (_, lo, hi) in FLOAT_UNARY.items()}


# name -> reference computed in float64 and cast back to the input's dtype
UNARY_REFS = {name: (_same_dtype(ref) if name != "is_finite" else ref) for name, (ref, _, _) in FLOAT_UNARY.items()}


def test_float32_unary_ops():
    inputs = _float_unary_inputs(np.float32)
    table = UNARY_REFS
    expected = {name: table[name](inputs[name][0]) for name in table}
    eager = {name: getattr(lax, name)(*inputs[name]) for name in table}
    jitted = jit_table(list(table), inputs)
    for name in table:
        for mode, out in (("eager", eager[name]), ("jit", jitted[name])):
            assert_close(out, expected[name], 3e-6, 2e-6, f"lax.{name} {mode}")
            assert out.dtype == (np.bool_ if name == "is_finite" else np.float32), name


def test_float64_unary_ops(x64):
    inputs = _float_unary_inputs(np.float64)
    table = UNARY_REFS
    for name in table:  # eager: kernels named like libm's f64 functions (@sin) once crashed
        out = getattr(lax, name)(*inputs[name])
        assert out.dtype == (np.bool_ if name == "is_finite" else np.float64), name
        assert_close(out, table[name](inputs[name][0]), 1e-12, 1e-13, f"lax.{name} float64")
    jitted = jit_table(list(table), inputs)
    for name in table:
        assert_close(jitted[name], table[name](inputs[name][0]), 1e-12, 1e-13, f"lax.{name} float64 jit")


def test_float_unary_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0], np.float32)
    with np.errstate(all="ignore"):
        refs = {"log": np.log, "sqrt": np.sqrt, "exp": np.exp, "sign": np.sign, "is_finite": np.isfinite,
                "abs": np.abs, "floor": np.floor, "tanh": np.tanh, "logistic": lambda v: 1 / (1 + np.exp(-v)),
                "rsqrt": lambda v: 1 / np.sqrt(v)}
        expected = {name: ref(x) for name, ref in refs.items()}
    jitted = jaxc.jit(lambda v: {name: getattr(lax, name)(v) for name in refs})(x)
    for name in refs:
        for mode, out in (("eager", getattr(lax, name)(x)), ("jit", jitted[name])):
            assert_close(out, expected[name], what=f"lax.{name} {mode}")
    sign = np.asarray(lax.sign(x))
    assert np.signbit(sign[1]) and not np.signbit(sign[0])  # sign(-0.0) = -0.0
    assert np.asarray(lax.erf_inv(np.array([1.0, -1.0, 1.5], np.float32))).tolist()[:2] == [np.inf, -np.inf]
    assert np.isnan(np.asarray(lax.erf_inv(np.float32(1.5))))
    assert np.asarray(lax.lgamma(np.array([0.0, -2.0], np.float32))).tolist() == [np.inf, np.inf]
    assert np.isnan(np.asarray(lax.digamma(np.array([0.0, -2.0], np.float32)))).all()
    negative = np.array([-0.5, -2.5, -3.7], np.float32)  # the reflection formulas
    expected = (UNARY_REFS["lgamma"](negative), UNARY_REFS["digamma"](negative))
    check(lambda v: (lax.lgamma(v), lax.digamma(v)), expected, negative, rtol=1e-5, atol=1e-5)


def test_two_libm_calls_in_one_jit():
    """passes/expm1_log1p_to_libm.py once declared log1pf per use ('redefinition of symbol')."""
    x = np.array([0.5, 1e-8], np.float32)
    out = jaxc.jit(lambda v: (lax.log1p(v), lax.log1p(v + 1), lax.expm1(v), lax.expm1(v + 1)))(x)
    assert_close(out, (np.log1p(x), np.log1p(x + 1), np.expm1(x), np.expm1(x + 1)))


def test_float_unary_0d_and_size_0():
    for x in (np.float32(0.5), np.zeros((0, 3), np.float32)):
        check(lambda v: (lax.sin(v), lax.neg(v), lax.is_finite(v)),
              (np.sin(x), -x, np.isfinite(x)), x)


INT_EDGES = np.array([0, 1, -1, 7, -8, 100, I32_MIN, I32_MAX], np.int32)
U8_EDGES = np.array([0, 1, 7, 0x80, 200, 255], np.uint8)


def _popcount(x):
    bits = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    return np.array([bin(int(v)).count("1") for v in bits.ravel()]).reshape(x.shape).astype(x.dtype)


def _clz(x):
    width = 8 * x.dtype.itemsize
    bits = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    return np.array([width - int(v).bit_length() for v in bits.ravel()]).reshape(x.shape).astype(x.dtype)


INT_UNARY = {"neg": lambda x: (0 - x.astype(np.int64)).astype(x.dtype),
             "abs": lambda x: np.abs(x.astype(np.int64)).astype(x.dtype),  # abs(INT_MIN) wraps; uint: identity
             "sign": np.sign, "bitwise_not": np.invert, "population_count": _popcount, "clz": _clz}


@pytest.mark.parametrize("x", [INT_EDGES, U8_EDGES], ids=["int32", "uint8"])
def test_integer_unary_ops(x):
    check_table(INT_UNARY, {name: (x,) for name in INT_UNARY})


def test_bool_not():
    check_table({"bitwise_not": np.logical_not}, {"bitwise_not": (np.array([True, False]),)})


def test_unsupported_dtypes_name_the_op():
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: sin cannot be applied to \(tensor<3xi32>\)"):
        lax.sin(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="not cannot be applied to .*tensor<3xf32>"):
        lax.bitwise_not(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: sin cannot be applied to .*must be .*float"):
        jaxc.jit(lax.sin)(np.arange(3, dtype=np.int32))


# ---------------------------------------------------------------------------
# Elementwise binary and comparisons
# ---------------------------------------------------------------------------

def _nan_max(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.maximum(x, y)).astype(x.dtype)


def _nan_min(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.minimum(x, y)).astype(x.dtype)


FLOAT_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                "rem": np.fmod, "pow": np.power, "max": _nan_max, "min": _nan_min,
                "atan2": np.arctan2, "nextafter": np.nextafter}


def _float_binary_inputs(dtype):
    x = rand((3, 4), dtype, -4, 4)
    y = rand((3, 4), dtype, 0.5, 3) * np.where(rand((3, 4), np.bool_), 1, -1).astype(dtype)
    x[0, 0], y[0, 1] = np.nan, np.nan  # NaN propagates through max/min
    return {name: ((np.abs(x) + 0.1).astype(dtype) if name == "pow" else x, y) for name in FLOAT_BINARY}


def test_float32_binary_ops():
    with np.errstate(all="ignore"):
        check_table({n: _same_dtype(f) if n not in ("nextafter", "max", "min") else f
                     for n, f in FLOAT_BINARY.items()}, _float_binary_inputs(np.float32), rtol=2e-6)


def test_float64_binary_ops(x64):
    inputs = _float_binary_inputs(np.float64)
    with np.errstate(all="ignore"):
        expected = {name: ref(*inputs[name]) for name, ref in FLOAT_BINARY.items()}
    jitted = jit_table(list(FLOAT_BINARY), inputs)
    for name in FLOAT_BINARY:
        for mode, out in (("jit", jitted[name]), ("eager", getattr(lax, name)(*inputs[name]))):
            assert out.dtype == np.float64
            assert_close(out, expected[name], 1e-13, 1e-14, f"lax.{name} float64 {mode}")


def test_float_max_min_signed_zero_and_nextafter_edges():
    zero, neg_zero = np.float32(0.0), np.float32(-0.0)
    assert not np.signbit(np.asarray(lax.max(neg_zero, zero)))
    x = np.array([0.0, 1.0, 1.0, np.inf], np.float32)
    y = np.array([1.0, 0.0, 1.0, 0.0], np.float32)
    check(lax.nextafter, np.nextafter(x, y), x, y)  # the smallest subnormal, equal inputs, inf


def _xla_div(x, y):
    """Integer division rounding toward zero; x/0 is -1 (all ones), INT_MIN/-1 is INT_MIN."""
    wide_x, wide_y = x.astype(np.int64), y.astype(np.int64)
    safe = np.where(wide_y == 0, 1, wide_y)
    quotient = np.trunc(wide_x / safe).astype(np.int64)  # exact for 32-bit operands
    quotient = np.where(wide_y == 0, -1, quotient)
    return quotient.astype(x.dtype)  # INT_MIN / -1 wraps back to INT_MIN


def _xla_rem(x, y):
    """Remainder with the dividend's sign; x % 0 is x."""
    wide_x, wide_y = x.astype(np.int64), y.astype(np.int64)
    safe = np.where(wide_y == 0, 1, wide_y)
    return np.where(wide_y == 0, wide_x, np.fmod(wide_x, safe)).astype(x.dtype)


def _wrap(fn):
    return lambda x, y: fn(x.astype(np.int64), y.astype(np.int64)).astype(x.dtype)


def _shift(kind):
    def ref(x, y):
        width = 8 * x.dtype.itemsize
        amount = y.astype(np.int64) % (1 << width)  # the amount is read as unsigned
        unsigned = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
        big = amount >= width
        amount = np.where(big, 0, amount).astype(np.uint64)
        if kind == "left":
            out = np.where(big, 0, unsigned << amount)
        elif kind == "logical":
            out = np.where(big, 0, unsigned >> amount)
        else:  # arithmetic: on the signed reading of the bits
            signed = x.view(f"i{x.dtype.itemsize}").astype(np.int64)
            out = np.where(big, np.where(signed < 0, -1, 0), signed >> amount.astype(np.int64))
        return out.astype(np.int64).astype(f"u{x.dtype.itemsize}").view(x.dtype)  # keep the low bits
    return ref


INT_BINARY = {"add": _wrap(np.add), "sub": _wrap(np.subtract), "mul": _wrap(np.multiply),
              "div": _xla_div, "rem": _xla_rem, "max": np.maximum, "min": np.minimum,
              "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
              "shift_left": _shift("left"), "shift_right_logical": _shift("logical"),
              "shift_right_arithmetic": _shift("arithmetic")}


def test_int32_binary_ops():
    x = np.array([7, -7, 7, -7, 5, I32_MIN, I32_MIN, I32_MAX, -1, 123456], np.int32)
    y = np.array([2, 2, -2, -2, 0, -1, 1, 2, 0, -1000], np.int32)
    shifts = np.array([0, 1, 31, 32, 33, -1, 4, 1, 31, 100], np.int32)
    inputs = {name: (x, shifts if name.startswith("shift") else y) for name in INT_BINARY}
    check_table(INT_BINARY, inputs)


def test_uint8_binary_ops():
    x = np.array([200, 7, 255, 0x80, 3, 0], np.uint8)
    y = np.array([100, 0, 2, 1, 9, 255], np.uint8)
    check_table(INT_BINARY, {name: (x, y) for name in INT_BINARY})


def test_bool_binary_ops():
    x = np.array([True, True, False, False])
    y = np.array([True, False, True, False])
    table = {"bitwise_and": np.logical_and, "bitwise_or": np.logical_or, "bitwise_xor": np.logical_xor,
             "max": np.logical_or, "min": np.logical_and}
    check_table(table, {name: (x, y) for name in table})


COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}


@pytest.mark.parametrize("x, y", [
    (np.array([1.0, np.nan, np.nan, -0.0, 2.0, -np.inf], np.float32),
     np.array([1.0, np.nan, 1.0, 0.0, 1.0, np.inf], np.float32)),
    (np.array([-1, 0, 5, I32_MIN], np.int32), np.array([1, 0, 4, I32_MAX], np.int32)),
    (np.array([200, 0, 5], np.uint8), np.array([100, 0, 255], np.uint8)),  # unsigned order
    (np.array([True, False, True]), np.array([False, False, True])),
], ids=["float32", "int32", "uint8", "bool"])
def test_comparisons(x, y):
    check_table(COMPARISONS, {name: (x, y) for name in COMPARISONS}, dtype=np.bool_)


def test_python_scalars_take_the_array_dtype_and_broadcast():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(lambda v: lax.add(v, 1), x + 1, x, dtype=np.float32)
    check(lambda v: lax.mul(2.5, v), x * 2.5, x, dtype=np.float32)
    check(lambda v: lax.lt(v, 2), x < 2, x, dtype=np.bool_)
    u = np.array([250, 3], np.uint8)
    check(lambda v: lax.add(v, 10), np.array([4, 13], np.uint8), u, dtype=np.uint8)
    h = np.array([1.5, 2.0], np.float16)
    check(lambda v: lax.mul(v, 2.0), h * 2, h, dtype=np.float16)
    out = lax.add(2, 3)
    assert out.dtype == np.int32 and out.weak_type and int(out) == 5


def test_zero_d_operands_and_size_one_dims_broadcast():
    x = rand((2, 3))
    s = jnp.asarray(np.float32(4.0))  # a 0-d array (under jit: a 0-d tracer)
    check(lax.sub, x - 4, x, s)
    check(lax.sub, 4 - x, s, x)
    row = rand((1, 3))
    check(lax.mul, x * row, x, row)
    check(lax.max, np.maximum(row.T, row), row.T, row)


def test_pow_with_an_integer_exponent():
    x = np.array([2.0, -2.0, 0.5, 0.0], np.float32)
    n = np.array([3, 3, -2, -1], np.int32)
    with np.errstate(divide="ignore"):
        check(lax.pow, np.power(x, n.astype(np.float32)), x, n, dtype=np.float32)


def test_binary_errors_name_the_op_and_types():
    f, i = np.ones(3, np.float32), np.ones(3, np.int32)
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, got float32, int32"):
        lax.add(f, i)
    with pytest.raises(TypeError, match="lax.mul requires arguments to have the same dtypes, got int32, float32"):
        lax.mul(i, 1.5)  # a Python float does not silently become an int
    with pytest.raises(TypeError, match=r"lax.sub got incompatible shapes \(3,\), \(4,\)"):
        lax.sub(f, np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"lax.max got incompatible shapes \(2, 3\), \(3,\)"):
        lax.max(np.ones((2, 3), np.float32), f)  # lax does not add leading dimensions
    with pytest.raises(TypeError, match="lax.eq requires arguments to have the same dtypes"):
        lax.eq(f, i)
    with pytest.raises(TypeError, match="shift_left cannot be applied to .*f32"):
        lax.shift_left(f, f)
    with pytest.raises(OverflowError, match="lax.add: Python int 300 is too large for uint8"):
        lax.add(np.ones(2, np.uint8), 300)


def test_round_methods():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, 2.7, -0.0], np.float32)
    away = (np.sign(x) * np.floor(np.abs(x.astype(np.float64)) + 0.5)).astype(np.float32)
    check(lax.round, away, x)
    check(lambda v: lax.round(v, 0), away, x)
    check(lambda v: lax.round(v, lax.RoundingMethod.TO_NEAREST_EVEN), np.round(x), x, dtype=np.float32)
    check(lambda v: lax.round(v, "ToNearestEven"), np.round(x), x)
    assert lax.RoundingMethod.AWAY_FROM_ZERO == 0 and lax.RoundingMethod.TO_NEAREST_EVEN == 1
    with pytest.raises(ValueError, match="lax.round: unknown rounding_method 'up'"):
        lax.round(x, "up")
    with pytest.raises(ValueError, match="lax.round: unknown rounding_method 2"):
        lax.round(x, 2)


# ---------------------------------------------------------------------------
# select, clamp
# ---------------------------------------------------------------------------

def test_select():
    p = np.array([[True, False, True], [False, False, True]])
    a, b = rand((2, 3)), rand((2, 3))
    check(lax.select, np.where(p, a, b), p, a, b, dtype=np.float32)
    check(lambda q: lax.select(q, a, b), np.where(True, a, b), np.bool_(True))  # 0-d predicate
    ia, ib = rand((2, 3), np.int32), rand((2, 3), np.int32)
    check(lax.select, np.where(p, ia, ib), p, ia, ib, dtype=np.int32)
    with pytest.raises(TypeError, match="lax.select: the predicate must be bool, got float32"):
        lax.select(a, a, b)
    with pytest.raises(TypeError, match=r"lax.select: predicate shape \(3,\) .* \(2, 3\)"):
        lax.select(np.ones(3, bool), a, b)
    with pytest.raises(TypeError, match="lax.select requires arguments to have the same dtypes"):
        lax.select(p, a, ib)


def test_clamp():
    x = np.array([-3.0, -0.5, 0.25, 2.0, np.nan], np.float32)
    check(lambda v: lax.clamp(np.float32(-1), v, np.float32(1)), np.clip(x, -1, 1), x)  # 0-d bounds
    check(lambda v: lax.clamp(-1.0, v, 1.0), np.clip(x, -1, 1), x, dtype=np.float32)    # Python bounds
    lo = np.full(5, -0.6, np.float32)
    check(lambda v, low: lax.clamp(low, v, 0.5), np.clip(x, -0.6, 0.5), x, lo)          # array bound
    i = np.array([-5, 0, 5, 9], np.int32)
    check(lambda v: lax.clamp(0, v, 6), np.clip(i, 0, 6), i, dtype=np.int32)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: clamp cannot be applied to .*tensor<4xf32>"):
        lax.clamp(0.0, x, np.ones(4, np.float32))


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------

def test_convert_float_to_int_saturates_and_maps_nan_to_zero():
    x = np.array([np.nan, 1e10, -1e10, 2.7, -2.7, np.inf, -np.inf, 255.9, 256.0], np.float32)
    to_i32 = np.array([0, I32_MAX, I32_MIN, 2, -2, I32_MAX, I32_MIN, 255, 256], np.int32)
    to_u8 = np.array([0, 255, 0, 2, 0, 255, 0, 255, 255], np.uint8)
    check(lambda v: lax.convert_element_type(v, np.int32), to_i32, x, dtype=np.int32)
    check(lambda v: lax.convert_element_type(v, np.uint8), to_u8, x, dtype=np.uint8)
    check(lambda v: lax.convert_element_type(v, np.bool_), x != 0, x, dtype=np.bool_)  # NaN -> True


def test_convert_between_ints_floats_and_bools():
    i = np.array([-1, 300, 0, 65537, I32_MIN], np.int32)
    check(lambda v: lax.convert_element_type(v, np.uint8), i.astype(np.uint8), i)       # low bits
    check(lambda v: lax.convert_element_type(v, np.int16), i.astype(np.int16), i)
    check(lambda v: lax.convert_element_type(v, np.float32), i.astype(np.float32), i)
    u = np.array([255, 0, 128], np.uint8)
    check(lambda v: lax.convert_element_type(v, np.int32), u.astype(np.int32), u)        # zero-extends
    check(lambda v: lax.convert_element_type(v, np.float32), u.astype(np.float32), u)
    b = np.array([True, False])
    check(lambda v: lax.convert_element_type(v, np.float32), b.astype(np.float32), b)
    f = np.array([1.0001, 65504.0, 1e6, 3.14159], np.float32)
    with np.errstate(over="ignore"):
        halves = f.astype(np.float16)  # 1e6 overflows to inf
    check(lambda v: lax.convert_element_type(v, np.float16), halves, f, dtype=np.float16)


def test_convert_weak_type_flag():
    x = jnp.asarray(np.ones(3, np.float32))
    weak = lax.convert_element_type(x, np.float32, weak_type=True)
    assert weak.weak_type and weak.dtype == np.float32
    assert not lax.convert_element_type(weak, np.float32).weak_type
    assert lax.convert_element_type(x, np.int32, weak_type=True).weak_type
    seen = []

    def spy(v):
        seen.extend([lax.convert_element_type(v, np.int32, weak_type=True).weak_type,
                     lax.convert_element_type(v, np.float32, weak_type=True).weak_type,
                     lax.convert_element_type(v, np.int32).weak_type])
        return v
    jaxc.jit(spy)(np.ones(2, np.float32))
    assert seen == [True, True, False]
    out = jaxc.jit(lambda v: lax.convert_element_type(v, np.float32, weak_type=True))(np.ones(2, np.int32))
    assert out.weak_type and out.dtype == np.float32


def test_convert_x64_and_canonicalization(x64):
    x = np.array([1.5, -2.5], np.float64)
    check(lambda v: lax.convert_element_type(v, np.int64), np.array([1, -2], np.int64), x, dtype=np.int64)
    check(lambda v: lax.convert_element_type(v, np.float32), x.astype(np.float32), x, dtype=np.float32)


def test_convert_without_x64_canonicalizes_the_target():
    out = lax.convert_element_type(np.array([1.5], np.float32), np.int64)
    assert out.dtype == np.int32


def test_bitcast_convert_type():
    f = np.array([[1.0, -2.5, np.inf], [0.0, -0.0, 3e-40]], np.float32)
    check(lambda v: lax.bitcast_convert_type(v, np.int32), f.view(np.int32), f, dtype=np.int32)
    check(lambda v: lax.bitcast_convert_type(v, np.uint32), f.view(np.uint32), f, dtype=np.uint32)
    narrow = f.view(np.uint8).reshape(2, 3, 4)  # little endian: low byte first
    check(lambda v: lax.bitcast_convert_type(v, np.uint8), narrow, f, dtype=np.uint8)
    check(lambda v: lax.bitcast_convert_type(v, np.float32), f, narrow, dtype=np.float32)
    halves = f.view(np.float16).reshape(2, 3, 2)
    check(lambda v: lax.bitcast_convert_type(v, np.float16), halves, f, dtype=np.float16)
    check(lambda v: lax.bitcast_convert_type(v, np.int32), f.view(np.int32), halves)
    with pytest.raises(TypeError, match=r"lax.bitcast_convert_type: uint8\[3\] to float32 needs a last dimension "
                                        r"of 4"):
        lax.bitcast_convert_type(np.ones(3, np.uint8), np.float32)
    with pytest.raises(TypeError, match=r"lax.bitcast_convert_type: uint8\[\] to int16 needs a last dimension "
                                        r"of 2"):
        lax.bitcast_convert_type(np.uint8(1), np.int16)


def test_bitcast_x64(x64):
    d = np.array([1.0, -0.1], np.float64)
    check(lambda v: lax.bitcast_convert_type(v, np.uint32), d.view(np.uint32).reshape(2, 2), d)
    check(lambda v: lax.bitcast_convert_type(v, np.int64), d.view(np.int64), d, dtype=np.int64)


# ---------------------------------------------------------------------------
# Creation and shape
# ---------------------------------------------------------------------------

def test_iota_and_broadcasted_iota():
    for dtype in (np.int32, np.float32, np.uint8):
        out = lax.iota(dtype, 5)
        assert out.dtype == dtype
        assert_close(out, np.arange(5, dtype=dtype))
    assert lax.iota(np.int32, 0).shape == (0,)
    assert_close(lax.broadcasted_iota(np.int32, (2, 3), 1), np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)))
    assert_close(lax.broadcasted_iota(np.float32, (2, 3), 0),
                 np.repeat(np.arange(2.0, dtype=np.float32), 3).reshape(2, 3))
    out = jaxc.jit(lambda: (lax.iota(np.int32, 4), lax.broadcasted_iota(np.uint8, (2, 2), 0)))()
    assert_close(out, (np.arange(4, dtype=np.int32), np.array([[0, 0], [1, 1]], np.uint8)))
    with pytest.raises(ValueError, match=r"lax.broadcasted_iota: dimension 2 out of range for shape \(2, 3\)"):
        lax.broadcasted_iota(np.int32, (2, 3), 2)
    with pytest.raises(ValueError, match=r"lax.broadcasted_iota: negative dimension in shape \(-1,\)"):
        lax.iota(np.int32, -1)


def test_iota_int64_under_x64(x64):
    assert lax.iota(np.int64, 3).dtype == np.int64
    assert lax.iota(int, 3).dtype == np.int64


def test_broadcast_in_dim_and_broadcast():
    x = rand((3, 1))
    check(lambda v: lax.broadcast_in_dim(v, (2, 3, 4), (1, 2)), np.broadcast_to(x, (2, 3, 4)), x)
    check(lambda v: lax.broadcast_in_dim(v, (3, 5), (0, 1)), np.broadcast_to(x, (3, 5)), x)
    row = rand((4,))
    check(lambda v: lax.broadcast_in_dim(v, (4, 2), (0,)), np.broadcast_to(row[:, None], (4, 2)), row)
    check(lambda v: lax.broadcast_in_dim(v, (2, 0), ()), np.zeros((2, 0), np.float32), np.float32(1))
    check(lambda v: lax.broadcast(v, (2,)), np.broadcast_to(x, (2, 3, 1)), x)
    check(lambda v: lax.broadcast(v, ()), x, x)
    check(lambda v: lax.broadcast(v, (2, 3)), np.full((2, 3), 7, np.int32), np.int32(7), dtype=np.int32)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: broadcast_in_dim cannot be applied to .*"
                                        r"operand dimension 0 of size 3 cannot broadcast"):
        lax.broadcast_in_dim(x, (4, 2), (0, 1))
    with pytest.raises(TypeError, match="broadcast_in_dim .*broadcast_dimensions has 1 entries"):
        lax.broadcast_in_dim(x, (3, 2), (0,))


def test_reshape_transpose_rev():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    check(lambda v: lax.reshape(v, (6, 4)), x.reshape(6, 4), x)
    check(lambda v: lax.reshape(v, (4, 6), dimensions=(2, 0, 1)), x.transpose(2, 0, 1).reshape(4, 6), x)
    check(lambda v: lax.reshape(v, ()), np.float32(3), np.array([3.0], np.float32))
    check(lambda v: lax.reshape(v, (0, 5)), np.zeros((0, 5), np.float32), np.zeros((5, 0), np.float32))
    check(lambda v: lax.transpose(v, (2, 0, 1)), x.transpose(2, 0, 1), x)
    check(lambda v: lax.transpose(v, (0, 1, 2)), x, x)
    check(lambda v: lax.rev(v, (0, 2)), x[::-1, :, ::-1], x)
    check(lambda v: lax.rev(v, ()), x, x)
    with pytest.raises(TypeError, match=r"lax.reshape: cannot reshape an array of shape \(2, 3, 4\) "
                                        r"\(size 24\) into shape \(5, 5\)"):
        lax.reshape(x, (5, 5))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: transpose cannot be applied to .*permutation"):
        lax.transpose(x, (0, 0, 1))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: transpose cannot be applied to .*permutation"):
        jaxc.jit(lambda v: lax.transpose(v, (1, 0)))(x)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: rev cannot be applied to .*out of range"):
        lax.rev(x, (3,))


def test_slices():
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    check(lambda v: lax.slice(v, (1, 0), (4, 6)), x[1:4, 0:6], x)
    check(lambda v: lax.slice(v, (0, 1), (5, 6), (2, 3)), x[0:5:2, 1:6:3], x)
    check(lambda v: lax.slice(v, (2, 2), (2, 5)), x[2:2, 2:5], x)
    check(lambda v: lax.slice_in_dim(v, 1, None, 2, axis=1), x[:, 1::2], x)
    check(lambda v: lax.slice_in_dim(v, -3, -1, axis=0), x[-3:-1], x)
    check(lambda v: lax.slice_in_dim(v, None, 3, axis=-1), x[:, :3], x)
    check(lambda v: lax.index_in_dim(v, -1, 0), x[-1:], x)
    check(lambda v: lax.index_in_dim(v, 2, 1, keepdims=False), x[:, 2], x)
    check(lambda v: lax.index_in_dim(v, 2, -1, keepdims=False), x[:, 2], x)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: slice cannot be applied to .*dimension 0"):
        lax.slice(x, (0, 0), (6, 6))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        lax.index_in_dim(x, 5)


def test_dynamic_slice_clamps_the_start():
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    check(lambda v, i: lax.dynamic_slice(v, (i, 1), (2, 3)), x[1:3, 1:4], x, np.int32(1))
    check(lambda v, i: lax.dynamic_slice(v, (i, i), (2, 3)), x[2:4, 2:5], x, np.int32(7))   # clamped
    check(lambda v, i: lax.dynamic_slice(v, (i, 0), (2, 5)), x[0:2], x, np.int32(-3))        # clamped to 0
    check(lambda v, i: lax.dynamic_slice(v, (i, 0), (2, 5)), x[2:4], x, np.uint8(200))       # unsigned
    check(lambda v: lax.dynamic_slice(v, (1, 2), (3, 2)), x[1:4, 2:4], x)                    # Python ints
    check(lambda v, i: lax.dynamic_index_in_dim(v, i, 1), x[:, 3:4], x, np.int32(3))
    check(lambda v, i: lax.dynamic_index_in_dim(v, i, 0, keepdims=False), x[3], x, np.int32(9))
    with pytest.raises(TypeError, match=r"lax.dynamic_slice: start indices must be 0-d integers, got float32\[\]"):
        lax.dynamic_slice(x, (np.float32(1), 0), (1, 1))
    with pytest.raises(ValueError, match=r"lax.dynamic_slice: length of slice indices must match number of "
                                         r"operand dimensions \(1 vs \(4, 5\)\)"):  # JAX's ValueError
        lax.dynamic_slice(x, (0,), (1, 1))


def test_dynamic_update_slice():
    x = np.zeros((4, 5), np.float32)
    u = np.arange(6, dtype=np.float32).reshape(2, 3) + 1

    def ref(r, c):
        out = x.copy()
        out[r:r + 2, c:c + 3] = u
        return out
    check(lambda v, w, i: lax.dynamic_update_slice(v, w, (i, 1)), ref(1, 1), x, u, np.int32(1))
    check(lambda v, w, i: lax.dynamic_update_slice(v, w, (i, i)), ref(2, 2), x, u, np.int32(50))  # clamped
    check(lambda v, w: lax.dynamic_update_slice(v, w, (0, -4)), ref(0, 0), x, u)
    row = np.full(5, 9.0, np.float32)
    expected = x.copy()
    expected[2] = row
    check(lambda v, w, i: lax.dynamic_update_index_in_dim(v, w, i, 0), expected, x, row, np.int32(2))
    check(lambda v, w, i: lax.dynamic_update_index_in_dim(v, w[None], i, 0), expected, x, row, np.int32(2))
    col = np.arange(4, dtype=np.float32)
    expected = x.copy()
    expected[:, 4] = col
    check(lambda v, w, i: lax.dynamic_update_index_in_dim(v, w, i, 1), expected, x, col, np.int32(4))
    with pytest.raises(TypeError, match=r"dynamic_update_slice cannot be applied to .*larger than the operand"):
        lax.dynamic_update_slice(x, np.zeros((5, 1), np.float32), (0, 0))


def test_concatenate():
    a, b, c = rand((2, 3)), rand((1, 3)), rand((0, 3))
    check(lambda *xs: lax.concatenate(xs, 0), np.concatenate([a, b, c]), a, b, c)
    check(lambda p, q: lax.concatenate([p, q], 1), np.concatenate([a, a[:, :2]], 1), a, a[:, :2])
    check(lambda p: lax.concatenate([p], 0), a, a)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: concatenate cannot be applied to .*must match"):
        lax.concatenate([a, rand((2, 2))], 0)
    with pytest.raises(ValueError, match="lax.concatenate needs at least one operand"):
        lax.concatenate([], 0)


def _pad_ref(x, value, config):
    """lax.pad in NumPy: interior padding, then edge padding (negative crops)."""
    out = x
    for axis, (lo, hi, interior) in enumerate(config):
        n = out.shape[axis]
        size = n + max(n - 1, 0) * interior
        shape = list(out.shape)
        shape[axis] = size
        spread = np.full(shape, value, np.float32)
        index = [slice(None)] * out.ndim
        index[axis] = slice(None, None, interior + 1)
        spread[tuple(index)] = out
        before = [(0, 0)] * out.ndim
        before[axis] = (max(lo, 0), max(hi, 0))
        spread = np.pad(spread, before, constant_values=value)
        index = [slice(None)] * out.ndim
        index[axis] = slice(max(-lo, 0), spread.shape[axis] - max(-hi, 0))
        out = spread[tuple(index)]
    return out


def test_pad_negative_and_interior():
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    configs = ([(1, 2, 0), (0, 1, 0)], [(0, 0, 1), (1, 0, 2)], [(-1, 1, 0), (2, -2, 1)], [(0, -1, 1), (-2, -1, 0)])
    for config in configs:
        check(lambda v, p: lax.pad(v, p, config), _pad_ref(x, -1.0, config), x, np.float32(-1))
    check(lambda v: lax.pad(v, 0, [(1, 1, 1)]), np.array([0, 5, 0, 6, 0], np.int32), np.array([5, 6], np.int32))
    with pytest.raises(ValueError, match="lax.pad: padding_config has 1 entries for a 2-d operand"):
        lax.pad(x, 0.0, [(0, 0, 0)])
    with pytest.raises(TypeError, match=r"pad cannot be applied to .*interior_padding\[0\] = -1"):
        lax.pad(x, 0.0, [(0, 0, -1), (0, 0, 0)])


def test_pad_cropping_a_whole_dimension():
    """low = -size used to extract at offset == size, which tensor.extract_slice rejects."""
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    check(lambda v: lax.pad(v, 0.0, [(0, 0, 0), (-3, 0, 0)]), np.zeros((2, 0), np.float32), x)


def test_squeeze_and_expand_dims():
    x = rand((1, 3, 1))
    check(lambda v: lax.squeeze(v, (0, 2)), x.reshape(3), x)
    check(lambda v: lax.squeeze(v, (-1,)), x.reshape(1, 3), x)
    check(lambda v: lax.expand_dims(v, (0, 3)), x.reshape(1, 1, 3, 1, 1), x)
    check(lambda v: lax.expand_dims(v, (-1,)), x[..., None], x)
    check(lambda v: lax.expand_dims(v, (0,)), np.full((1,), 2, np.float32), np.float32(2))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: squeeze cannot be applied to .*dimension 1 of size 3"):
        lax.squeeze(x, (1,))


def test_full_and_full_like():
    check(lambda: lax.full((2, 3), 1.5), np.full((2, 3), 1.5, np.float32), dtype=np.float32)
    check(lambda: lax.full((2,), 7, np.uint8), np.full(2, 7, np.uint8), dtype=np.uint8)
    check(lambda: lax.full((), True), np.bool_(True), dtype=np.bool_)
    check(lambda f: lax.full((2, 2), f, np.int32), np.full((2, 2), 3, np.int32), np.float32(3.7))
    x = rand((2, 3), np.int32)
    check(lambda v: lax.full_like(v, 4), np.full((2, 3), 4, np.int32), x, dtype=np.int32)
    check(lambda v: lax.full_like(v, 0.5, np.float32), np.full((2, 3), 0.5, np.float32), x, dtype=np.float32)
    check(lambda v: lax.full_like(v, 1, shape=(4,)), np.ones(4, np.int32), x, dtype=np.int32)
    weak = lax.full_like(lax.add(1.0, 2.0), 3.0)
    assert weak.weak_type and weak.dtype == np.float32
    with pytest.raises(TypeError, match=r"lax.full: fill_value must be a scalar, got shape \(2,\)"):
        lax.full((2,), jnp.asarray(np.ones(2, np.float32)))


def test_stop_gradient_is_the_identity_on_pytrees():
    x = rand((2, 3))
    tree = {"a": x, "b": (np.arange(3, dtype=np.int32), np.float32(2))}
    check(lax.stop_gradient, tree, tree)
    assert lax.stop_gradient(x).dtype == np.float32


# ---------------------------------------------------------------------------
# Gather and scatter
# ---------------------------------------------------------------------------

GDN, SDN = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
X53 = np.arange(15, dtype=np.float32).reshape(5, 3)


def test_gather_rows_points_windows_and_columns():
    rows = np.array([[0], [4], [2], [7], [-2]], np.int32)  # 7 and -2 clamp to 4 and 0
    check(lambda x, i: lax.gather(x, i, GDN((1,), (0,), (0,)), (1, 3)),
          X53[np.clip(rows[:, 0], 0, 4)], X53, rows)
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    points = np.array([[0, 1], [3, 4], [2, 0], [5, 9]], np.int32)
    check(lambda v, i: lax.gather(v, i, GDN((), (0, 1), (0, 1)), (1, 1)),
          x[np.clip(points[:, 0], 0, 3), np.clip(points[:, 1], 0, 4)], x, points, dtype=np.int32)
    flat = np.arange(6, dtype=np.float32) * 10
    starts = np.array([[1], [5]], np.int32)  # the second window [5, 8) is clamped to [3, 6)
    check(lambda v, i: lax.gather(v, i, GDN((1,), (), (0,)), (3,)), np.stack([flat[1:4], flat[3:6]]), flat, starts)
    cols = np.array([[2], [-1]], np.int32)
    check(lambda v, i: lax.gather(v, i, GDN((0,), (1,), (1,)), (5, 1)), X53[:, [2, 0]], X53, cols)
    batched = np.array([[[1], [0]], [[3], [3]]], np.int32)  # a 2-d batch of row indices
    check(lambda v, i: lax.gather(v, i, GDN((2,), (0,), (0,)), (1, 3)), X53[batched[..., 0]], X53, batched)


def test_gather_errors_name_the_op_and_the_line():
    rows = np.zeros((2, 1), np.int32)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: gather cannot be applied to .*start_index_map"):
        lax.gather(X53, rows, GDN((1,), (0,), (5,)), (1, 3))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: gather cannot be applied to"):
        jaxc.jit(lambda x: lax.gather(x, rows, GDN((1,), (0,), (0,)), (1, 9)))(X53)


def _scatter_rows_ref(operand, rows, updates, combine):
    out = operand.copy()
    for r, u in zip(rows[:, 0], updates):
        if 0 <= r < operand.shape[0]:  # out-of-range rows are dropped
            out[r] = combine(out[r], u)
    return out


SCATTER_COMBINE = {"set": lambda old, new: new, "add": np.add, "mul": np.multiply,
                   "min": np.minimum, "max": np.maximum}


@pytest.mark.parametrize("kind", list(SCATTER_COMBINE))
def test_scatter_rows_every_kind(kind):
    operand = rand((5, 3), np.float32, 1, 3)
    rows = np.array([[0], [2], [0], [9], [-1], [3]], np.int32)  # 0 repeats; 9 and -1 are dropped
    if kind == "set":
        rows = np.array([[0], [2], [9], [-1], [3], [4]], np.int32)  # set: no repeats (their order is unspecified)
    updates = rand((6, 3), np.float32, 0, 4)
    expected = _scatter_rows_ref(operand, rows, updates, SCATTER_COMBINE[kind])
    check(lambda x, i, u: lax.scatter(x, i, u, SDN((1,), (0,), (0,)), kind=kind), expected, operand, rows, updates,
          dtype=np.float32)


def test_scatter_points_windows_and_ints():
    x = np.zeros((4, 5), np.int32)
    points = np.array([[0, 1], [3, 4], [0, 1], [-1, 0], [2, 5]], np.int32)
    updates = np.array([1, 2, 3, 4, 5], np.int32)
    expected = x.copy()
    expected[0, 1], expected[3, 4] = 4, 2  # repeated point adds up; the last two are out of range
    check(lambda v, i, u: lax.scatter_add(v, i, u, SDN((), (0, 1), (0, 1))), expected, x, points, updates,
          dtype=np.int32)
    flat = np.zeros(6, np.float32)
    starts = np.array([[1], [4]], np.int32)  # the window [4, 7) does not fit: dropped whole
    windows = np.array([[1, 2, 3], [7, 8, 9]], np.float32)
    check(lambda v, i, u: lax.scatter(v, i, u, SDN((1,), (), (0,))), np.array([0, 1, 2, 3, 0, 0], np.float32),
          flat, starts, windows)
    check(lambda v, i: lax.scatter(v, i, np.full(2, 5.0, np.float32), SDN((), (0,), (0,))),
          np.array([0, 5, 0, 0, 0, 5], np.float32), flat, np.array([[1], [5]], np.int32))  # set, 1-element windows


def test_scatter_errors():
    rows = np.zeros((1, 1), np.int32)
    with pytest.raises(ValueError, match=r"lax.scatter: kind must be one of \('set', 'add', 'mul', 'min', 'max'\), "
                                         r"got 'sub'"):
        lax.scatter(X53, rows, np.ones((1, 3), np.float32), SDN((1,), (0,), (0,)), kind="sub")
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: scatter cannot be applied to "
                                        r".*scatter_dims_to_operand_dims"):
        lax.scatter(X53, rows, np.ones((1, 3), np.float32), SDN((1,), (0,), (5,)))


# ---------------------------------------------------------------------------
# Reductions, cumulative ops, arg-reductions
# ---------------------------------------------------------------------------

X234 = rand((2, 3, 4))
I234 = rand((2, 3, 4), np.int32, -5, 5)
REDUCERS = {"reduce_sum": np.sum, "reduce_prod": np.prod, "reduce_max": np.max, "reduce_min": np.min}


@pytest.mark.parametrize("axes", [(0, 2), (1,), (2, 0, 1), ()])
def test_reductions_over_axis_tuples(axes):
    arrays = {"f": X234, "i": I234}
    expected = {(name, k): ref(a, axis=axes) for name, ref in REDUCERS.items() for k, a in arrays.items()}
    jitted = jaxc.jit(lambda xs: {(name, k): getattr(lax, name)(a, axes)
                                  for name in REDUCERS for k, a in xs.items()})(arrays)
    for (name, k), want in expected.items():
        eager = getattr(lax, name)(arrays[k], axes)
        for mode, out in (("eager", eager), ("jit", jitted[name, k])):
            assert_close(out, want, 1e-5, 1e-5, f"lax.{name}({k}, {axes}) {mode}")
            assert out.dtype == arrays[k].dtype


def test_boolean_reductions_and_identities():
    b = rand((3, 4), np.bool_)
    check(lambda v: (lax.reduce_and(v, (1,)), lax.reduce_or(v, (0, 1))), (b.all(1), b.any()), b)
    empty = np.zeros((0, 3), np.float32)
    check(lambda v: (lax.reduce_sum(v, (0,)), lax.reduce_prod(v, (0,)), lax.reduce_max(v, (0,)),
                     lax.reduce_min(v, (0,))),
          (np.zeros(3), np.ones(3), np.full(3, -np.inf), np.full(3, np.inf)), empty)
    check(lambda v: (lax.reduce_max(v, (0,)), lax.reduce_min(v, (0,))),
          (np.full(3, I32_MIN, np.int32), np.full(3, I32_MAX, np.int32)), np.zeros((0, 3), np.int32))
    check(lambda v: (lax.reduce_and(v, (0,)), lax.reduce_or(v, (0,))), (np.ones(2, bool), np.zeros(2, bool)),
          np.zeros((0, 2), bool))
    nan = np.array([1.0, np.nan, 3.0], np.float32)
    check(lambda v: (lax.reduce_max(v, (0,)), lax.reduce_min(v, (0,))), (np.float32(np.nan),) * 2, nan)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: reduce cannot be applied to .*out of range"):
        lax.reduce_sum(X234, (3,))


def _cumulative_ref(fn, x, axis, reverse):
    if reverse:
        return np.flip(fn(np.flip(x, axis), axis=axis), axis)
    return fn(x, axis=axis)


CUMULATIVE = {"cumsum": np.cumsum, "cumprod": np.cumprod, "cummax": np.maximum.accumulate,
              "cummin": np.minimum.accumulate}


@pytest.mark.parametrize("axis, reverse", [(0, False), (2, True), (1, True)])
def test_cumulative_ops(axis, reverse):
    arrays = {"f": X234, "i": I234}
    jitted = jaxc.jit(lambda xs: {(name, k): getattr(lax, name)(a, axis, reverse)
                                  for name in CUMULATIVE for k, a in xs.items()})(arrays)
    for name, ref in CUMULATIVE.items():
        for k, a in arrays.items():
            want = _cumulative_ref(ref, a, axis, reverse).astype(a.dtype)
            for mode, out in (("eager", getattr(lax, name)(a, axis, reverse=reverse)), ("jit", jitted[name, k])):
                assert_close(out, want, 1e-5, 1e-5, f"lax.{name}({k}, {axis}, {reverse}) {mode}")
                assert out.dtype == a.dtype


@pytest.mark.parametrize("shape", [(37, 5), (16, 3), (3, 8, 6), (2, 9, 1)], ids=str)
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_ops_along_the_last_axis_of_many_rows(shape, reverse):
    """Scans over blocks of rows (`control_flow.ROW_BLOCK`), with a block of
    the remaining rows and the leading axes collapsed: every kind, float and int."""
    rng = np.random.default_rng(sum(shape))
    arrays = {"f": rng.uniform(0.5, 1.5, shape).astype(np.float32) * rng.choice([-1, 1], shape).astype(np.float32),
              "i": rng.integers(-3, 4, shape).astype(np.int32)}
    axis = len(shape) - 1
    jitted = jaxc.jit(lambda xs: {(name, k): getattr(lax, name)(a, axis, reverse)
                                  for name in CUMULATIVE for k, a in xs.items()})(arrays)
    for name, ref in CUMULATIVE.items():
        for k, a in arrays.items():
            want = _cumulative_ref(ref, a.astype(np.float64), axis, reverse)
            out = np.asarray(jitted[name, k])
            assert out.dtype == a.dtype
            if k == "i":
                np.testing.assert_array_equal(out, want.astype(a.dtype), err_msg=f"{name} {k}")
            else:
                np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6, err_msg=f"{name} {k}")


def test_grad_and_vmap_of_a_cumsum_over_many_rows():
    x = np.random.default_rng(7).standard_normal((20, 6))
    w = np.arange(6.0)
    with jaxc.enable_x64():
        grad = jaxc.grad(lambda x: jnp.sum(jnp.cumsum(x, axis=1) ** 2 * w))(x)
        batched = jaxc.vmap(lambda row: lax.cumsum(row, 0, reverse=True))(x)
    want = 2 * np.flip(np.cumsum(np.flip(np.cumsum(x, 1) * w, 1), 1), 1)
    np.testing.assert_allclose(np.asarray(grad), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(batched), np.flip(np.cumsum(np.flip(x, 1), 1), 1), rtol=1e-12)


def test_cumulative_defaults_and_errors():
    x = np.array([3, 1, 2], np.uint8)
    check(lambda v: (lax.cumsum(v), lax.cummax(v)), (np.array([3, 4, 6], np.uint8), np.full(3, 3, np.uint8)), x)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: cumulative cannot be applied to .*axis 3 is out of "
                                        r"range"):
        lax.cumsum(X234, 3)


def test_argmax_argmin_first_index_and_nan():
    x = np.array([[1.0, 3.0, 3.0, -2.0], [np.nan, 5.0, np.nan, 5.0], [0.0, -0.0, -4.0, -4.0]], np.float32)
    first_nan = lambda v, fn: np.where(np.isnan(v).any(1), np.argmax(np.isnan(v), 1), fn(v, 1))  # noqa: E731
    check(lambda v: lax.argmax(v, 1, np.int32), first_nan(x, np.argmax), x, dtype=np.int32)
    check(lambda v: lax.argmin(v, 1, np.int32), first_nan(x, np.argmin), x, dtype=np.int32)
    i = np.array([[2, 7, 7], [-1, -1, 0]], np.int32)
    check(lambda v: (lax.argmax(v, 0, np.int32), lax.argmin(v, 1, np.uint8)),
          (np.argmax(i, 0).astype(np.int32), np.argmin(i, 1).astype(np.uint8)), i)
    assert lax.argmin(i, 1, np.uint8).dtype == np.uint8
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: argmax cannot be applied to .*axis 2 is out of range"):
        lax.argmax(i, 2, np.int32)


# ---------------------------------------------------------------------------
# Sort
# ---------------------------------------------------------------------------


def test_sort_along_rows_copies_no_tensor_per_line():
    """The merge passes keep each tensor in its loop-carried place: when they
    swapped places, bufferization copied both whole tensors per pass and
    line (2048x1024 along the rows took 44 s). Only the two copies of the
    input (into the result and the scratch buffer) remain, and values agree."""
    x = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
    f = jaxc.jit(lambda v: lax.sort(v, dimension=1))
    text = f.lower(x).as_text("bufferized")
    assert text.count("memref.copy") == 2, text
    np.testing.assert_array_equal(np.asarray(f(x)), np.sort(x, axis=1))

def test_sort_floats_nan_and_signed_zero():
    x = np.array([3.0, np.nan, -np.inf, 0.0, -0.0, 1.0, np.inf, np.nan, -2.0], np.float32)
    for mode, sorted_x in (("eager", lax.sort(x)), ("jit", jaxc.jit(lax.sort)(x))):
        sorted_x = np.asarray(sorted_x)
        assert_close(sorted_x, np.sort(x), what=mode)  # NaNs last
        zeros = sorted_x[np.where(sorted_x == 0)]
        assert np.signbit(zeros).tolist() == [False, True], mode  # -0.0 ties with 0.0: stable order kept
    m = rand((3, 4))
    check(lambda v: lax.sort(v, dimension=0), np.sort(m, 0), m)
    check(lambda v: lax.sort(v, dimension=-1), np.sort(m, 1), m)
    for dtype in (np.int32, np.uint8, np.bool_):
        v = rand((7,), dtype, 0, 100)
        check(lax.sort, np.sort(v), v, dtype=dtype)


def test_sort_multiple_operands_and_num_keys():
    keys = np.array([2, 1, 2, 1, 0, 2], np.int32)
    second = np.array([5.0, 3.0, 1.0, 4.0, 9.0, 1.0], np.float32)
    payload = np.arange(6, dtype=np.int32)
    by_first = np.argsort(keys, kind="stable")
    check(lambda k, p: lax.sort((k, p), num_keys=1), (keys[by_first], payload[by_first]), keys, payload)
    by_both = np.lexsort((second, keys))  # last key is primary in lexsort
    check(lambda k, s, p: lax.sort((k, s, p), num_keys=2), (keys[by_both], second[by_both], payload[by_both]),
          keys, second, payload)
    check(lambda k, p: lax.sort_key_val(k, p), (keys[by_first], payload[by_first]), keys, payload)
    unstable = lax.sort((keys, payload), is_stable=False)
    assert_close(unstable[0], np.sort(keys))
    assert sorted(zip(np.asarray(unstable[0]).tolist(), np.asarray(unstable[1]).tolist())) == \
        sorted(zip(keys.tolist(), payload.tolist()))
    m = rand((2, 5))
    order = np.argsort(m, axis=0, kind="stable")
    idx = np.broadcast_to(np.arange(5, dtype=np.int32), (2, 5))
    check(lambda v, i: lax.sort_key_val(v, i, dimension=0), (np.sort(m, 0), np.take_along_axis(idx, order, 0)),
          m, idx)
    with pytest.raises(ValueError, match="lax.sort: axis 2 is out of range for an array of rank 2"):
        lax.sort(m, dimension=2)


# ---------------------------------------------------------------------------
# dot_general, dot
# ---------------------------------------------------------------------------

def test_dot_general_contractions_and_batches():
    a, b = rand((2, 3, 4)), rand((2, 4, 5))
    check(lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), np.einsum("bij,bjk->bik", a, b),
          a, b, rtol=1e-5, atol=1e-5)
    c = rand((4, 3, 2))
    check(lambda x, y: lax.dot_general(x, y, (((0, 1), (2, 1)), ((), ()))), np.einsum("ijk,lji->kl", a, c),
          a, c, rtol=1e-5, atol=1e-5)
    d = rand((5, 2))
    check(lambda x, y: lax.dot_general(x, y, (((), ()), ((), ()))), np.einsum("ijk,lm->ijklm", a, d), a, d)
    e = rand((3, 2, 6))
    check(lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((0,), (1,)))), np.einsum("bjk,jbm->bkm", a, e),
          a, e, rtol=1e-5, atol=1e-5)  # batch first, then lhs free, then rhs free
    i, j = rand((3, 4), np.int32), rand((4, 2), np.int32)
    check(lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), i @ j, i, j, dtype=np.int32)


def test_dot_general_preferred_element_type():
    i8 = np.array([[100, 100], [-128, 127]], np.int8)
    check(lambda x: lax.dot_general(x, x, (((1,), (0,)), ((), ())), preferred_element_type=np.int32),
          i8.astype(np.int32) @ i8.astype(np.int32), i8, dtype=np.int32)
    h = rand((3, 4), np.float16)
    check(lambda x: lax.dot_general(x, x, (((1,), (1,)), ((), ())), preferred_element_type=np.float32),
          h.astype(np.float32) @ h.astype(np.float32).T, h, dtype=np.float32, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: dot_general cannot be applied to .*same element type"):
        lax.dot_general(h, i8, (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: dot_general cannot be applied to .*contracting "
                                        r"dimension"):
        lax.dot_general(h, h, (((0,), (1,)), ((), ())))
    with pytest.raises(TypeError, match=r"test_lax.py:\d+: dot_general cannot be applied to .*out of range"):
        lax.dot_general(h, h, (((5,), (1,)), ((), ())), preferred_element_type=np.float32)
    with pytest.raises(TypeError, match=r"lax.dot_general: dimension_numbers must be \(\(lhs_contracting, "):
        lax.dot_general(h, h, ((1,), (1,)))


def test_dot():
    m, v, w = rand((3, 4)), rand((4,)), rand((4, 2))
    check(lax.dot, v @ v, v, v, rtol=1e-5, atol=1e-5)
    check(lax.dot, m @ v, m, v, rtol=1e-5, atol=1e-5)
    check(lax.dot, v @ w, v, w, rtol=1e-5, atol=1e-5)
    check(lax.dot, m @ w, m, w, rtol=1e-5, atol=1e-5)
    i8 = np.array([[100, 1], [2, 100]], np.int8)
    check(lambda x: lax.dot(x, x, preferred_element_type=np.int32), i8.astype(np.int32) @ i8.astype(np.int32),
          i8, dtype=np.int32)
    with pytest.raises(TypeError, match=r"lax.dot takes 1-d or 2-d operands, got shapes \(2, 3, 4\) and \(4,\)"):
        lax.dot(X234, v)


# ---------------------------------------------------------------------------
# Convolution, against a direct loop
# ---------------------------------------------------------------------------

def _conv_ref(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, groups=1, batch_groups=1):
    """conv_general_dilated on N C *spatial / O I *spatial operands, by loops:
    dilate the lhs, pad it (negative pads crop), dilate the rhs, slide."""
    lhs, rhs = lhs.astype(np.float64), rhs.astype(np.float64)
    nsp = lhs.ndim - 2
    for k in range(nsp):
        if lhs_dilation[k] > 1:
            size = (lhs.shape[2 + k] - 1) * lhs_dilation[k] + 1
            spread = np.zeros(lhs.shape[:2 + k] + (size,) + lhs.shape[3 + k:])
            index = [slice(None)] * lhs.ndim
            index[2 + k] = slice(None, None, lhs_dilation[k])
            spread[tuple(index)] = lhs
            lhs = spread
        lo, hi = padding[k]
        width = [(0, 0)] * lhs.ndim
        width[2 + k] = (max(lo, 0), max(hi, 0))
        lhs = np.pad(lhs, width)
        index = [slice(None)] * lhs.ndim
        index[2 + k] = slice(max(-lo, 0), lhs.shape[2 + k] - max(-hi, 0))
        lhs = lhs[tuple(index)]
        if rhs_dilation[k] > 1:
            size = (rhs.shape[2 + k] - 1) * rhs_dilation[k] + 1
            spread = np.zeros(rhs.shape[:2 + k] + (size,) + rhs.shape[3 + k:])
            index = [slice(None)] * rhs.ndim
            index[2 + k] = slice(None, None, rhs_dilation[k])
            spread[tuple(index)] = rhs
            rhs = spread
    n, c = lhs.shape[:2]
    o, i = rhs.shape[:2]
    window = rhs.shape[2:]
    out_sp = [(lhs.shape[2 + k] - window[k]) // strides[k] + 1 for k in range(nsp)]
    out = np.zeros((n // batch_groups, o) + tuple(out_sp))
    per_group, per_batch_group = o // groups, o // batch_groups
    for b in range(n // batch_groups):
        for f in range(o):
            g, bg = f // per_group, f // per_batch_group
            image = lhs[bg * (n // batch_groups) + b, g * i:(g + 1) * i]
            for pos in np.ndindex(*out_sp):
                index = tuple(slice(p * s, p * s + w) for p, s, w in zip(pos, strides, window))
                out[(b, f) + pos] = np.sum(image[(slice(None),) + index] * rhs[f])
    return out


def _to_canonical(x, spec, first, second, spatial):
    """Transpose `x` laid out as the letters `spec` into (first, second, *spatial)."""
    return x.transpose([spec.index(c) for c in (first, second, *spatial)])


def _same_pads(in_sizes, windows, strides, lower=False):
    pads = []
    for size, w, s in zip(in_sizes, windows, strides):
        total = max((math.ceil(size / s) - 1) * s + w - size, 0)
        pads.append((total - total // 2, total // 2) if lower else (total // 2, total - total // 2))
    return pads


CONV_CASES = {
    # name: (lhs shape, rhs shape, strides, padding, lhs dil, rhs dil, specs, groups, batch groups)
    "nchw_valid": ((2, 3, 5, 6), (4, 3, 3, 2), (1, 1), "VALID", None, None, None, 1, 1),
    "nhwc_same_strided": ((1, 5, 6, 3), (3, 3, 3, 4), (2, 1), "SAME", None, None, ("NHWC", "HWIO", "NHWC"), 1, 1),
    "dilations_explicit": ((1, 2, 6, 5), (3, 2, 2, 3), (1, 2), [(1, 0), (2, -1)], (1, 2), (2, 1), None, 1, 1),
    "feature_groups": ((1, 4, 5, 5), (6, 2, 3, 3), (1, 1), "SAME", None, None, None, 2, 1),
    "batch_groups": ((4, 2, 4, 4), (6, 2, 2, 2), (1, 1), "VALID", None, None, None, 1, 2),
    "nwc_same_lower_1d": ((2, 7, 3), (4, 3, 2), (2,), "SAME_LOWER", None, (2,), ("NWC", "WIO", "NWC"), 1, 1),
    "mixed_letters": ((1, 3, 4, 5), (3, 2, 3, 2), (1, 1), "SAME", None, None, ("NCHW", "IOWH", "NWHC"), 1, 1),
}


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv_general_dilated(case):
    lhs_shape, rhs_shape, strides, padding, lhs_dil, rhs_dil, specs, groups, batch_groups = CONV_CASES[case]
    lhs, rhs = rand(lhs_shape), rand(rhs_shape)
    nsp = len(lhs_shape) - 2
    lhs_spec, rhs_spec, out_spec = specs or ("NC" + "HW"[:nsp], "OI" + "HW"[:nsp], "NC" + "HW"[:nsp])
    spatial = [c for c in rhs_spec if c not in "OI"]  # the spatial order follows the rhs spec
    canon_lhs = _to_canonical(lhs, lhs_spec, "N", "C", spatial)
    canon_rhs = _to_canonical(rhs, rhs_spec, "O", "I", spatial)
    dil = rhs_dil or (1,) * nsp
    if isinstance(padding, str):
        windows = [(k - 1) * d + 1 for k, d in zip(canon_rhs.shape[2:], dil)]
        pads = _same_pads(canon_lhs.shape[2:], windows, strides, padding == "SAME_LOWER") \
            if padding != "VALID" else [(0, 0)] * nsp
    else:
        pads = padding
    out = _conv_ref(canon_lhs, canon_rhs, strides, pads, lhs_dil or (1,) * nsp, dil, groups, batch_groups)
    canon_out = "NC" + "".join(spatial)
    expected = out.transpose([canon_out.index(c) for c in out_spec]).astype(np.float32)
    check(lambda a, b: lax.conv_general_dilated(a, b, strides, padding, lhs_dil, rhs_dil, specs, groups,
                                                batch_groups),
          expected, lhs, rhs, dtype=np.float32, rtol=1e-5, atol=1e-5)


def test_conv_preferred_element_type_and_dimension_numbers():
    lhs, rhs = rand((1, 2, 4, 4), np.float16), rand((3, 2, 2, 2), np.float16)
    expected = _conv_ref(lhs, rhs, (1, 1), [(0, 0)] * 2, (1, 1), (1, 1)).astype(np.float32)
    check(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID", preferred_element_type=np.float32),
          expected, lhs, rhs, dtype=np.float32, rtol=1e-5, atol=1e-5)
    dn = lax.conv_dimension_numbers((1, 5, 6, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_dimension_numbers((1, 1, 1), (1, 1, 1), None) == ((0, 1, 2),) * 3
    a, b = rand((1, 5, 6, 3)), rand((3, 3, 3, 4))
    assert_close(lax.conv_general_dilated(a, b, (1, 1), "SAME", dimension_numbers=dn),
                 lax.conv_general_dilated(a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME") == [(1, 1), (0, 1)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME_LOWER") == [(1, 1), (1, 0)]


def test_conv_errors():
    lhs, rhs = rand((1, 2, 4, 4)), rand((3, 2, 2, 2))
    # JAX's RuntimeError, from padtype_to_pads (stax and reduce_window padding too)
    with pytest.raises(RuntimeError, match="Unrecognized padding type: expected 'VALID', 'SAME', or "
                                           "'SAME_LOWER', got FULL."):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "FULL")
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.padtype_to_pads((5,), (3,), (1,), "full")
    with pytest.raises(ValueError, match="lax.conv_general_dilated: padding must be a string or"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), [1, 2])
    with pytest.raises(ValueError, match=r"dimension_numbers \('NHWC', 'HWI', 'NHWC'\): each must have 4 distinct"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", dimension_numbers=("NHWC", "HWI", "NHWC"))
    with pytest.raises(ValueError, match="must name the same spatial dimensions"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NDWC"))
    with pytest.raises(ValueError, match="string padding is not supported with lhs_dilation"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", lhs_dilation=(2, 1))
    with pytest.raises(TypeError, match=r"lhs and rhs must have the same rank, got shapes \(1, 2, 4, 4\) and "
                                        r"\(2, 2\)"):
        lax.conv_general_dilated(lhs, rhs[0, 0], (1, 1), "VALID")
    # JAX's classes: arguments that do not fit the operands are ValueErrors, a wrong
    # number of explicit pads a TypeError
    with pytest.raises(ValueError, match=r"lax.conv_general_dilated: the lhs feature dimension size divided by "
                                         r"feature_group_count must equal the rhs input feature dimension size, "
                                         r"but 2 // 1 != 3"):
        lax.conv_general_dilated(lhs, rand((3, 3, 2, 2)), (1, 1), "VALID")
    with pytest.raises(ValueError, match=r"the window has 2 spatial dimensions but window_strides has 1 entries"):
        lax.conv_general_dilated(lhs, rhs, (1,), "VALID")
    with pytest.raises(ValueError, match=r"rhs_dilation has 3 entries"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "VALID", rhs_dilation=(1, 1, 1))
    with pytest.raises(ValueError, match=r"window_strides must be positive, got \(0, 1\)"):
        lax.conv_general_dilated(lhs, rhs, (0, 1), "VALID")
    with pytest.raises(ValueError, match=r"feature_group_count must divide the lhs feature dimension size, but 3"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "VALID", feature_group_count=3)
    with pytest.raises(TypeError, match=r"wrong number of explicit pads: expected 2, got 1"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), [(0, 0)])


# ---------------------------------------------------------------------------
# Threefry and random bits
# ---------------------------------------------------------------------------

def _threefry_ref(k0, k1, x0, x1):
    """Threefry-2x32, 20 rounds (Random123), in NumPy uint32 arithmetic."""
    rotations = ((13, 15, 26, 6), (17, 29, 16, 24))
    k0, k1, x0, x1 = (np.asarray(v, np.uint32) for v in (k0, k1, x0, x1))
    ks = (k0, k1, np.uint32(0x1BD11BDA) ^ k0 ^ k1)
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for block in range(5):
        for r in rotations[block % 2]:
            x0 = x0 + x1
            x1 = ((x1 << np.uint32(r)) | (x1 >> np.uint32(32 - r))) ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + np.uint32(block + 1)
    return x0, x1


THREEFRY_KNOWN_ANSWERS = [  # (key0, key1, counter0, counter1) -> (out0, out1), Random123 / JAX's tests
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


def test_threefry_known_answers():
    args = [np.array([case[0][k] for case in THREEFRY_KNOWN_ANSWERS], np.uint32) for k in range(4)]
    expected = tuple(np.array([case[1][k] for case in THREEFRY_KNOWN_ANSWERS], np.uint32) for k in range(2))
    with np.errstate(over="ignore"):
        assert_close(_threefry_ref(*args), expected)  # the NumPy reference itself
    check(lambda *a: lax.threefry2x32(*a), expected, *args, dtype=np.uint32)


def test_threefry_scalar_keys_and_errors():
    x0 = np.arange(6, dtype=np.uint32).reshape(2, 3)
    x1 = x0 * np.uint32(7919)
    with np.errstate(over="ignore"):
        expected = _threefry_ref(np.uint32(42), np.uint32(7), x0, x1)
    check(lambda a, b: lax.threefry2x32(np.uint32(42), np.uint32(7), a, b), expected, x0, x1)
    out = lax.threefry2x32(42, 7, x0, x1)  # Python ints become uint32
    assert_close(out, expected)
    with pytest.raises(TypeError, match=r"lax.threefry2x32 requires uint32 arguments, got .*float32\[2,3\]"):
        lax.threefry2x32(0, 0, x0.astype(np.float32), x1)


def _random_bits_ref(key, bit_width, shape):
    size = math.prod(shape)
    counters = np.arange(size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        hi, lo = _threefry_ref(key[0], key[1], (counters >> np.uint64(32)).astype(np.uint32),
                               counters.astype(np.uint32))
    if bit_width == 64:
        bits = (hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)
    else:
        bits = (hi ^ lo).astype(f"uint{bit_width}")  # the low bits
    return bits.reshape(shape)


KEY = np.array([0, 42], np.uint32)


@pytest.mark.parametrize("bit_width, shape", [(32, (2, 3)), (8, (5,)), (16, ()), (32, (0, 4))])
def test_random_bits(bit_width, shape):
    check(lambda k: lax.random_bits(k, bit_width, shape), _random_bits_ref(KEY, bit_width, shape), KEY,
          dtype=f"uint{bit_width}")


def test_random_bits_64(x64):
    check(lambda k: lax.random_bits(k, 64, (3, 2)), _random_bits_ref(KEY, 64, (3, 2)), KEY, dtype=np.uint64)


def test_random_bits_64_without_x64_gives_the_low_word():
    expected = (_random_bits_ref(KEY, 64, (4,)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    check(lambda k: lax.random_bits(k, 64, (4,)), expected, KEY, dtype=np.uint32)


def test_random_bits_errors():
    with pytest.raises(ValueError, match="lax.random_bits: bit_width must be 8, 16, 32 or 64, got 12"):
        lax.random_bits(KEY, 12, (2,))
    with pytest.raises(TypeError, match=r"lax.random_bits: the key must be uint32\[2\], got uint32\[3\]"):
        lax.random_bits(np.zeros(3, np.uint32), 32, (2,))
    with pytest.raises(TypeError, match=r"lax.random_bits: the key must be uint32\[2\], got float32\[2\]"):
        lax.random_bits(np.zeros(2, np.float32), 32, (2,))


# ---------------------------------------------------------------------------
# Errors inside jit point at the user's line
# ---------------------------------------------------------------------------

def test_verifier_errors_under_jit_name_the_op_and_the_user_line():
    import inspect

    def bad(x):
        return lax.broadcast_in_dim(x, (4, 2), (0, 1))  # the offending line
    line = inspect.getsourcelines(bad)[1] + 1
    with pytest.raises(TypeError) as info:
        jaxc.jit(bad)(np.ones((3, 1), np.float32))
    message = str(info.value)
    assert f"test_lax.py:{line}: broadcast_in_dim cannot be applied to (tensor<3x1xf32>)" in message
    assert "operand dimension 0 of size 3 cannot broadcast to result dimension 0 of size 4" in message


def test_a_rejected_op_leaves_no_trace_in_the_jit_module():
    def f(x):
        with pytest.raises(TypeError, match="transpose cannot be applied"):
            lax.transpose(x, (0, 0))
        return lax.add(x, 1.0)
    x = rand((2, 2))
    assert_close(jaxc.jit(f)(x), x + 1)


# ---------------------------------------------------------------------------
# JAX-compatible extras: NumPy scalars, scatter_<kind>, modes, constants
# ---------------------------------------------------------------------------

def test_numpy_scalars_take_the_array_dtype_but_numpy_arrays_do_not():
    h = np.array([1.5, 2.0], np.float16)
    check(lambda v: lax.mul(v, np.float32(2)), h * 2, h, dtype=np.float16)
    u = np.array([1, 2], np.uint8)
    check(lambda v: lax.add(np.int64(3), v), u + 3, u, dtype=np.uint8)
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, got uint8, float32"):
        lax.add(u, np.float32(1))
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, got float16, float32"):
        lax.add(h, np.ones(2, np.float32))


def test_scatter_kind_functions_and_modes():
    operand = rand((5, 3), np.float32, 1, 3)
    rows = np.array([[1], [1], [7]], np.int32)
    updates = rand((3, 3), np.float32, 0, 4)
    dn = SDN((1,), (0,), (0,))
    for name, combine in (("scatter_add", np.add), ("scatter_mul", np.multiply), ("scatter_min", np.minimum),
                          ("scatter_max", np.maximum)):
        fn = getattr(lax, name)
        expected = _scatter_rows_ref(operand, rows, updates, combine)
        assert_close(fn(operand, rows, updates, dn, indices_are_sorted=True, mode="drop"), expected, what=name)
    clipped = lax.gather(X53, np.array([[9]], np.int32), GDN((1,), (0,), (0,)), (1, 3), mode="clip",
                         unique_indices=True)
    assert_close(clipped, X53[4:5])
    with pytest.raises(ValueError, match="lax.gather: mode 'fill' is not supported: jaxc's gather clamps"):
        lax.gather(X53, rows, GDN((1,), (0,), (0,)), (1, 3), mode="fill")
    with pytest.raises(ValueError, match="lax.scatter: mode 'clip' is not supported: jaxc's scatter skips"):
        lax.scatter_add(operand, rows, updates, dn, mode="clip")


def test_constant_bitcast_sign_and_operator_index():
    c = lax.constant(np.arange(3, dtype=np.int64))
    assert c.dtype == np.int32 and not c.weak_type
    assert lax.constant(2.0, weak_type=True).weak_type
    assert_close(lax.constant([1, 2], dtype=np.uint8), np.array([1, 2], np.uint8))
    out = jaxc.jit(lambda v: lax.add(v, lax.constant(np.array([1.0, 2.0], np.float32))))(np.ones(2, np.float32))
    assert_close(out, np.array([2.0, 3.0], np.float32))
    f = np.array([-0.0, 0.0, -1.0, 2.0, np.nan, -np.nan], np.float32)
    check(lax.bitcast_sign, f.view(np.int32), f, dtype=np.int32)
    h = f.astype(np.float16)
    check(lax.bitcast_sign, h.view(np.int16), h, dtype=np.int16)
    assert lax.operator_index(np.int64(3)) == 3
    with pytest.raises(jaxc.ConcretizationTypeError, match="a shape or size"):
        jaxc.jit(lambda n: lax.operator_index(n))(np.int32(3))


# ---------------------------------------------------------------------------
# Argument validation: a clear error naming the op, not a crash inside it
# ---------------------------------------------------------------------------

X23 = np.ones((2, 3), np.float32)
BAD_CALLS = {
    "reduce axes": (lambda: lax.reduce_sum(X23, 1), TypeError,
                    "lax.reduce_sum: axes must be a sequence of ints, got 1"),
    "transpose": (lambda: lax.transpose(X23, 1), TypeError,
                  "lax.transpose: permutation must be a sequence of ints"),
    "broadcast dims": (lambda: lax.broadcast_in_dim(X23, (2, 3), 0), TypeError,
                       "lax.broadcast_in_dim: broadcast_dimensions must be a sequence of ints, got 0"),
    "rev": (lambda: lax.rev(X23, 0), TypeError, "lax.rev: dimensions must be a sequence of ints, got 0"),
    "squeeze": (lambda: lax.squeeze(X23, 0), TypeError, "lax.squeeze: dimensions must be a sequence of ints"),
    "slice float": (lambda: lax.slice(X23, (0, 0.5), (1, 1)), TypeError, "lax.slice: start_indices must be a "
                                                                         r"sequence of ints, got \(0, 0.5\)"),
    "pad pairs": (lambda: lax.pad(X23, 0.0, [(0, 0), (0, 0)]), ValueError,
                  r"lax.pad: padding_config entries must be \(low, high, interior\) triples"),
    "convert dtype": (lambda: lax.convert_element_type(X23, "foo"), TypeError,
                      "lax.convert_element_type: 'foo' is not a dtype|lax.convert_element_type: .*foo"),
    "iota shape": (lambda: lax.iota(np.int32, 3.5), TypeError, "lax.broadcasted_iota: shapes must be tuples of"),
    "full shape": (lambda: lax.full((-1,), 0.0), ValueError, r"lax.full: negative dimension in shape \(-1,\)"),
    "cumsum axis": (lambda: lax.cumsum(X23, 0.5), TypeError, "lax.cumsum: axis must be an int, got 0.5"),
    "index_in_dim axis": (lambda: lax.index_in_dim(X23, 0, 2), ValueError,
                          "lax.index_in_dim: axis 2 is out of range for an array of rank 2"),
    "select list": (lambda: lax.select([True], X23, X23), TypeError, "lax.select: expected an array, got a list"),
    "update dtype": (lambda: lax.dynamic_update_slice(X23, np.ones((1, 1), np.int32), (0, 0)), TypeError,
                     r"test_lax.py:\d+: dynamic_update_slice cannot be applied to .*xi32"),
    "clamp dtype": (lambda: lax.clamp(0.5, np.arange(3, dtype=np.int32), 2), TypeError,
                    r"test_lax.py:\d+: clamp cannot be applied to \(tensor<f32>, tensor<3xi32>"),
    "dot dims": (lambda: lax.dot_general(X23, X23, 3), TypeError, "lax.dot_general: dimension_numbers must be"),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_clear_errors(name):
    call, error, pattern = BAD_CALLS[name]
    with pytest.raises(error, match=pattern):
        call()


def test_pad_of_an_empty_operand_and_the_gradient_of_an_empty_slice():
    """Padding a size-0 operand is all padding value (even with low padding
    equal to the result's size), and so the transpose of an empty slice at
    the end of an array is zeros."""
    got = jaxc.jit(lambda x: lax.pad(x, 1.0, [(2, 1, 0), (0, 0, 0)]))(jnp.zeros((0, 2)))
    np.testing.assert_array_equal(np.asarray(got), np.ones((3, 2)))
    np.testing.assert_array_equal(np.asarray(lax.pad(jnp.zeros(0), 1.0, [(4, 0, 0)])), np.ones(4))
    grad = jaxc.grad(lambda x: (lax.slice_in_dim(x, 4, 4) * 2).sum() + (x * x).sum())
    np.testing.assert_array_equal(np.asarray(grad(jnp.arange(4.0))), [0.0, 2.0, 4.0, 6.0])
