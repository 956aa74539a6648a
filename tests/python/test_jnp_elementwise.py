"""Every elementwise jnp function against NumPy, eagerly and under jit, with
JAX's result dtypes. One (2, 3) shape is shared by most cases (each new
shape compiles new kernels); 0-d, size-0 and broadcasting run on a
representative of each kind of promotion."""
import numpy as np
import pytest
from jnp_check import _jax_numpy, assert_close, check, check_jax, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.numpy import _elementwise

nan, inf = np.nan, np.inf
F = np.array([[-2.5, -0.5, 0.0], [0.5, 1.5, 3.0]], np.float32)
F2 = np.array([[1.5, -2.0, 0.5], [-0.75, 2.5, 4.0]], np.float32)  # no zeros: a divisor
POS = np.array([[0.25, 0.5, 1.0], [2.0, 3.5, 10.0]], np.float32)
UNIT = np.array([[-1.0, -0.5, 0.0], [0.25, 0.75, 1.0]], np.float32)
OPEN_UNIT = np.array([[-0.9, -0.5, 0.0], [0.25, 0.5, 0.9]], np.float32)
GE1 = np.array([[1.0, 1.5, 2.0], [3.0, 10.0, 100.0]], np.float32)
SPECIAL = np.array([[nan, inf, -inf], [0.0, -0.0, 1.0]], np.float32)
I = np.array([[-7, -1, 0], [5, 6, 7]], np.int32)
I2 = np.array([[2, -3, 5], [-2, 4, 3]], np.int32)  # no zeros: a divisor
I_POS = np.array([[1, 2, 3], [4, 5, 7]], np.int32)
SMALL = np.array([[0, 1, 2], [3, 1, 2]], np.int32)  # exponents and shift amounts
B = np.array([[True, False, True], [False, True, False]])
B2 = np.array([[True, True, False], [False, False, True]])


# -- unary functions ------------------------------------------------------------
# name -> (NumPy reference, float input, int input). Inexact functions return
# float32 for float32 and int32 inputs alike (``jnp.sin(int32)`` is float32).

INEXACT_UNARY = {
    "exp": (np.exp, F, SMALL), "exp2": (np.exp2, F, SMALL), "expm1": (np.expm1, F, SMALL),
    "log": (np.log, POS, I_POS), "log1p": (np.log1p, POS, I_POS), "log2": (np.log2, POS, I_POS),
    "log10": (np.log10, POS, I_POS), "sqrt": (np.sqrt, POS, I_POS), "cbrt": (np.cbrt, F, I),
    "reciprocal": (np.reciprocal, F2, I2), "fabs": (np.fabs, F, I), "rint": (np.rint, F, I),
    "sin": (np.sin, F, I), "cos": (np.cos, F, I), "tan": (np.tan, F, I),
    "arcsin": (np.arcsin, UNIT, None), "arccos": (np.arccos, UNIT, None), "arctan": (np.arctan, F, I),
    "asin": (np.arcsin, UNIT, None), "acos": (np.arccos, UNIT, None), "atan": (np.arctan, F, I),
    "sinh": (np.sinh, F, SMALL), "cosh": (np.cosh, F, SMALL), "tanh": (np.tanh, F, I),
    "arcsinh": (np.arcsinh, F, I), "arccosh": (np.arccosh, GE1, I_POS), "arctanh": (np.arctanh, OPEN_UNIT, None),
    "asinh": (np.arcsinh, F, I), "acosh": (np.arccosh, GE1, I_POS), "atanh": (np.arctanh, OPEN_UNIT, None),
    "deg2rad": (np.deg2rad, F, I), "rad2deg": (np.rad2deg, F, I), "radians": (np.radians, F, I),
    "degrees": (np.degrees, F, I), "sinc": (np.sinc, F, I),
}


@pytest.mark.parametrize("name", sorted(INEXACT_UNARY))
def test_inexact_unary(name):
    np_fn, x, ints = INEXACT_UNARY[name]
    fn = getattr(jnp, name)
    check(fn, np_fn, x, dtype="float32", rtol=2e-6)
    check_jax(fn, name, x, rtol=2e-6)
    if ints is not None:
        check(fn, None, ints, dtype="float32", rtol=2e-6, expected=np_fn(ints.astype(np.float32)))


# name -> (NumPy reference, dtype kept for float32 / int32 / bool inputs, or the result dtype)
SAME = "same"
NUMERIC_UNARY = {
    "positive": (np.positive, SAME), "absolute": (np.absolute, SAME), "abs": (np.abs, SAME),
    "floor": (np.floor, SAME), "ceil": (np.ceil, SAME), "trunc": (np.trunc, SAME), "fix": (np.fix, SAME),
    "conj": (np.conj, SAME), "conjugate": (np.conjugate, SAME), "real": (np.real, SAME),
    "imag": (np.imag, SAME), "negative": (np.negative, SAME), "sign": (np.sign, SAME),
    "square": (np.square, SAME),
    "isnan": (np.isnan, "bool"), "isinf": (np.isinf, "bool"), "isfinite": (np.isfinite, "bool"),
    "signbit": (np.signbit, "bool"), "isposinf": (np.isposinf, "bool"), "isneginf": (np.isneginf, "bool"),
}


@pytest.mark.parametrize("name", sorted(NUMERIC_UNARY))
def test_numeric_unary(name):
    np_fn, kind = NUMERIC_UNARY[name]
    fn = getattr(jnp, name)
    for x in (F, I):
        expected = np_fn(x)
        if name in ("floor", "ceil", "trunc", "fix"):
            expected = expected.astype(x.dtype)  # JAX keeps integer dtypes
        check(fn, None, x, expected=expected, dtype=x.dtype if kind == SAME else kind)
    if kind == "bool":
        check(fn, np_fn, SPECIAL, dtype="bool")


BOOL_UNARY = {  # on booleans: NumPy's values, JAX's dtypes
    "positive": "bool", "absolute": "bool", "abs": "bool", "floor": "bool", "ceil": "bool",
    "trunc": "bool", "fix": "bool", "conj": "bool", "conjugate": "bool", "real": "bool", "imag": "bool",
    "square": "int32", "isnan": "bool", "isinf": "bool", "isfinite": "bool", "signbit": "bool",
    "isposinf": "bool", "isneginf": "bool",
}


@pytest.mark.parametrize("name", sorted(BOOL_UNARY))
def test_numeric_unary_on_booleans(name):
    np_fn = {"square": lambda b: np.square(b.astype(np.int32)), "positive": lambda b: b}.get(
        name, NUMERIC_UNARY[name][0])  # NumPy has no bool loop for these two
    expected = np_fn(B)
    if name in ("floor", "ceil", "trunc", "fix", "imag"):
        expected = expected.astype(bool)
    check(getattr(jnp, name), None, B, expected=expected, dtype=BOOL_UNARY[name])


@pytest.mark.parametrize("name, hint", [("negative", "use jnp.logical_not"), ("sign", "convert them")])
def test_boolean_negation_is_an_error(name, hint):
    with pytest.raises(TypeError, match=f"jnp.{name} does not accept booleans; {hint}"):
        getattr(jnp, name)(B)


def test_unsigned_sign_abs_negative():
    u = np.array([0, 3, 255], np.uint8)
    check(jnp.sign, np.sign, u, dtype="uint8")
    check(jnp.abs, np.abs, u, dtype="uint8")
    check(jnp.negative, np.negative, u, dtype="uint8")
    check(jnp.signbit, np.signbit, u, dtype="bool")
    check(jnp.abs, None, np.array([-128, -1, 5], np.int8), expected=np.array([-128, 1, 5], np.int8))  # wraps


BITWISE_UNARY = {"invert": np.invert, "bitwise_not": np.bitwise_not, "bitwise_invert": np.invert,
                 "bitwise_count": np.bitwise_count}


@pytest.mark.parametrize("name", sorted(BITWISE_UNARY))
def test_bitwise_unary(name):
    fn, np_fn = getattr(jnp, name), BITWISE_UNARY[name]
    out_dtype = (lambda d: "uint8") if name == "bitwise_count" else (lambda d: d)
    for x in (I, np.array([0, 1, 127, 128, 255], np.uint8), B, np.array([-128, -1, 0, 7], np.int8)):
        check(fn, np_fn, x, dtype=out_dtype(x.dtype))
    with pytest.raises(TypeError, match=f"jnp.{name} is only defined for integer and boolean arrays, got float32"):
        fn(F)


def test_rounding_functions_on_halves_and_specials():
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, nan, -inf], np.float32)
    for name in ("rint", "floor", "ceil", "trunc", "fix"):
        check(getattr(jnp, name), getattr(np, name), halves, dtype="float32")
    check(jnp.round, np.round, halves, dtype="float32")
    check(jnp.around, np.around, halves, dtype="float32")
    check(jnp.rint, None, I, expected=I.astype(np.float32), dtype="float32")  # JAX: rint(int) is float


# -- binary functions -------------------------------------------------------------
# name -> (NumPy reference, float operands, int operands or None).

PLAIN_BINARY = {  # dtype kept: float32 -> float32, int32 -> int32
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin, "floor_divide": np.floor_divide,
    "mod": np.mod, "remainder": np.remainder, "fmod": np.fmod, "power": np.power, "pow": np.power,
}
INEXACT_BINARY = {  # float32 results for int32 operands too
    "true_divide": np.true_divide, "divide": np.divide, "arctan2": np.arctan2, "atan2": np.arctan2,
    "hypot": np.hypot, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2, "copysign": np.copysign,
    "nextafter": np.nextafter, "float_power": np.float_power, "heaviside": np.heaviside,
}
COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
               "greater": np.greater, "greater_equal": np.greater_equal, "logical_and": np.logical_and,
               "logical_or": np.logical_or, "logical_xor": np.logical_xor}
INTEGER_BINARY = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
                  "left_shift": np.left_shift, "right_shift": np.right_shift,
                  "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift}


def _operands(name, dtype):
    if dtype == np.float32:
        return (POS, F2) if name in ("power", "pow", "float_power") else (F, F2)
    return (I, SMALL) if name in ("power", "pow", "float_power", "left_shift", "right_shift",
                                  "bitwise_left_shift", "bitwise_right_shift") else (I, I2)


@pytest.mark.parametrize("name", sorted(PLAIN_BINARY))
def test_plain_binary(name):
    fn, np_fn = getattr(jnp, name), PLAIN_BINARY[name]
    for dtype in (np.float32, np.int32):
        x, y = _operands(name, dtype)
        check(fn, np_fn, x, y, dtype=dtype, rtol=2e-6)
        check_jax(fn, name, x, y, rtol=2e-6)


@pytest.mark.parametrize("name", sorted(INEXACT_BINARY))
def test_inexact_binary(name):
    fn, np_fn = getattr(jnp, name), INEXACT_BINARY[name]
    x, y = _operands(name, np.float32)
    check(fn, np_fn, x, y, dtype="float32", rtol=2e-6)
    check_jax(fn, name, x, y, rtol=2e-6)
    x, y = _operands(name, np.int32)
    check(fn, None, x, y, dtype="float32", rtol=2e-6, expected=np_fn(x.astype(np.float32), y.astype(np.float32)))


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparisons_and_logical(name):
    fn, np_fn = getattr(jnp, name), COMPARISONS[name]
    for x, y in ((F, F2), (I, I2), (B, B2), (F, I)):
        check(fn, np_fn, x, y, dtype="bool")
    check(fn, np_fn, SPECIAL, SPECIAL[::-1], dtype="bool")


@pytest.mark.parametrize("name", sorted(INTEGER_BINARY))
def test_integer_binary(name):
    fn, np_fn = getattr(jnp, name), INTEGER_BINARY[name]
    x, y = _operands(name, np.int32)
    check(fn, np_fn, x, y, dtype="int32")
    u = np.array([0, 1, 200, 255], np.uint8)
    check(fn, np_fn, u, np.array([1, 3, 2, 7], np.uint8), dtype="uint8")
    with pytest.raises(TypeError, match=f"jnp.{name} is only defined for integer and boolean arrays, got float32"):
        fn(F, F2)


def test_booleans_in_binary_functions():
    for name in ("add", "multiply", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"):
        check(getattr(jnp, name), getattr(np, name), B, B2, dtype="bool")
    # Arithmetic that needs numbers turns bools into int32 (JAX's rule).
    ones = np.ones_like(B)
    for name, y in (("power", B2), ("floor_divide", ones), ("mod", ones), ("fmod", ones), ("left_shift", B2),
                    ("right_shift", B2)):
        check(getattr(jnp, name), None, B, y, dtype="int32",
              expected=getattr(np, name)(B.astype(np.int32), y.astype(np.int32)))
    check(jnp.true_divide, np.true_divide, B, np.array([True] * 3), dtype="float32")
    with pytest.raises(TypeError, match="jnp.subtract does not accept booleans; use jnp.logical_xor"):
        jnp.subtract(B, B2)


@np.errstate(invalid="ignore")
def test_float_specials_in_binary_functions():
    a = np.array([nan, inf, -inf, inf, 1.0, -1.0, 0.0, -0.0], np.float32)
    b = np.array([1.0, inf, -inf, -inf, nan, inf, -0.0, 2.0], np.float32)
    for name in ("maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2", "hypot", "copysign",
                 "arctan2", "nextafter", "heaviside", "add", "multiply"):
        check(getattr(jnp, name), getattr(np, name), a, b, dtype="float32")
    check(jnp.copysign, np.copysign, np.float32([1, 1, 1]), np.float32([-0.0, 0.0, -nan]))
    check(jnp.heaviside, np.heaviside, np.float32([nan, -inf, inf, 0.0]), np.float32([0.5, 0.5, 0.5, nan]))


def test_float_floor_divide_and_mod_match_python():
    x = np.array([1.0, -1.0, 7.5, -7.5, 1.0, -1.0, 0.0, 1.0], np.float32)
    y = np.array([0.1, 0.1, -2.0, -2.0, 0.0, 0.0, 0.0, inf], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        check(jnp.floor_divide, np.floor_divide, x, y, dtype="float32")
        check(jnp.mod, np.mod, x, y, dtype="float32")
        check(jnp.divmod, np.divmod, x, y, dtype="float32")
        check(jnp.fmod, np.fmod, x, y, dtype="float32")
    assert float(jnp.floor_divide(1.0, 0.1)) == 9.0  # not floor(1 / 0.1) == 10


def test_integer_division_by_zero_follows_xla():
    """x // 0 as JAX on XLA (-1 from the division, then the floor fix-up),
    x % 0 and fmod(x, 0) are 0 (JAX replaces the zero divisor by one)."""
    x = np.array([5, -5, 0], np.int32)
    zero = np.zeros(3, np.int32)
    check(jnp.floor_divide, None, x, zero, expected=np.array([-2, -2, -1], np.int32), dtype="int32")
    check(jnp.mod, None, x, zero, expected=np.zeros(3, np.int32), dtype="int32")
    check(jnp.fmod, None, x, zero, expected=np.zeros(3, np.int32), dtype="int32")
    check(jnp.divmod, None, x, zero, expected=(np.array([-2, -2, -1], np.int32), np.zeros(3, np.int32)))
    u = np.array([7, 0], np.uint8)
    check(jnp.floor_divide, None, u, np.zeros(2, np.uint8), expected=np.array([255, 255], np.uint8))
    check(jnp.mod, None, u, np.zeros(2, np.uint8), expected=np.zeros(2, np.uint8))
    check_jax(jnp.floor_divide, "floor_divide", x, zero)
    check_jax(jnp.remainder, "remainder", x, zero)


def test_integer_division_signs_and_int8():
    x = np.array([-7, 7, -7, 7, -128, 0], np.int8)
    y = np.array([2, -2, -2, 2, -1, -3], np.int8)
    expected_quotient = np.array([-4, -4, 3, 3, -128, 0], np.int8)  # -128 // -1 wraps, as XLA
    check(jnp.floor_divide, None, x, y, expected=expected_quotient, dtype="int8")
    check(jnp.mod, None, x, y, expected=np.array([1, -1, -1, 1, 0, 0], np.int8), dtype="int8")
    check(jnp.fmod, None, x, y, expected=np.array([-1, 1, -1, 1, 0, 0], np.int8), dtype="int8")


def test_integer_power():
    base = np.array([2, -1, 1, 0, 3, -2, 0, 5], np.int32)
    exponent = np.array([-1, -3, -2, -1, -1, 3, 0, 2], np.int32)
    # Negative exponents truncate 1 / base**n toward zero (XLA): 0 unless |base| == 1.
    check(jnp.power, None, base, exponent, expected=np.array([0, -1, 1, 0, 0, -8, 1, 25], np.int32),
          dtype="int32")
    check(jnp.power, np.power, np.array([2, 3, 200], np.uint8), np.array([3, 2, 1], np.uint8), dtype="uint8")
    check(jnp.power, np.power, np.array([2, -3], np.int8), 3, dtype="int8")
    check(jnp.power, np.power, F2, 2, dtype="float32")
    check(jnp.float_power, np.float_power, I_POS, SMALL, dtype="float32", rtol=2e-6)


def test_divmod_modf():
    check(jnp.divmod, np.divmod, I, I2, dtype="int32")
    check(jnp.divmod, np.divmod, F, F2, dtype="float32")
    check(jnp.modf, np.modf, np.array([1.5, -2.5, 3.0, -0.0, inf, nan], np.float32), dtype="float32")
    check(jnp.modf, None, I, expected=(np.zeros((2, 3), np.float32), I.astype(np.float32)), dtype="float32")
    q, r = divmod(jnp.asarray(I), 3)  # the operator
    assert_close((q, r), np.divmod(I, 3))


def test_shifts_by_large_amounts():
    x = np.array([1, -8, 1, -8], np.int32)
    amount = np.array([31, 1, 40, 40], np.int32)
    check(jnp.left_shift, None, x, amount, expected=np.array([np.int32(-2 ** 31), -16, 0, 0], np.int32))
    check(jnp.right_shift, None, x, amount, expected=np.array([0, -4, 0, -1], np.int32))


# -- promotion, weak types, shapes --------------------------------------------------------

@pytest.mark.parametrize("fn, args, dtype, weak", [
    (jnp.add, (np.int8([1, 2]), 1), "int8", False),
    (jnp.add, (np.uint8([1, 2]), np.int8([1, 2])), "int16", False),
    (jnp.add, (np.float16([1, 2]), 1.0), "float16", False),
    (jnp.multiply, (np.int32([1, 2]), 1.5), "float32", True),  # int32 and a weak float: a weak float
    (jnp.add, (1, 2), "int32", True),
    (jnp.add, (1, 2.0), "float32", True),
    (jnp.sin, (np.int32([1, 2]),), "float32", False),
    (jnp.sin, (np.int8([1, 2]),), "float32", False),
    (jnp.sin, (1,), "float32", True),
    (jnp.true_divide, (np.int32([1, 2]), 2), "float32", False),
    (jnp.maximum, (np.uint16([1, 2]), np.int32([1, 2])), "int32", False),
    (jnp.bitwise_and, (np.uint8([3, 5]), 1), "uint8", False),
    (jnp.hypot, (np.float16([3, 5]), 4), "float16", False),
    (jnp.power, (np.bool_([True]), np.int32([2])), "int32", False),
    (jnp.where, (np.bool_([True, False]), 1, 2.0), "float32", True),
])
def test_result_dtypes_follow_jax(fn, args, dtype, weak):
    out = fn(*args)
    assert out.dtype == np.dtype(dtype)
    assert out.weak_type == weak
    traced = jaxc.jit(lambda *a: fn(*a))(*[np.asarray(a) if isinstance(a, (list, np.ndarray)) else a
                                            for a in args])
    assert traced.dtype == np.dtype(dtype)
    if _jax_numpy is not None:  # the same call in JAX, where it is installed
        theirs = getattr(_jax_numpy, fn.__name__)(*args)
        assert (theirs.dtype, theirs.weak_type) == (out.dtype, out.weak_type)


def test_python_int_out_of_range_is_an_error():
    with pytest.raises(OverflowError, match="jnp.add: Python int 300 is too large to convert to int8"):
        jnp.add(np.int8([1]), 300)


def test_zero_d_and_size_zero():
    scalar = np.array(0.5, np.float32)
    for fn, np_fn in ((jnp.sin, np.sin), (jnp.negative, np.negative), (jnp.isnan, np.isnan)):
        check(fn, np_fn, scalar)
        check(fn, np_fn, np.zeros((0, 3), np.float32))
    for fn, np_fn in ((jnp.add, np.add), (jnp.hypot, np.hypot), (jnp.floor_divide, np.floor_divide),
                      (jnp.less, np.less), (jnp.logical_or, np.logical_or)):
        check(fn, np_fn, scalar, np.array(2.0, np.float32))
        check(fn, np_fn, np.zeros((0, 3), np.float32), np.ones((1, 3), np.float32))
    assert jnp.add(np.float32(1), 2.0).shape == ()


def test_broadcasting():
    x, y = F.reshape(2, 1, 3), np.array([[1.0], [2.0], [-3.0], [4.0]], np.float32)
    for fn, np_fn in ((jnp.add, np.add), (jnp.arctan2, np.arctan2), (jnp.mod, np.mod),
                      (jnp.greater, np.greater), (jnp.logaddexp, np.logaddexp)):
        check(fn, np_fn, x, y, rtol=2e-6)
    check(jnp.subtract, np.subtract, I, np.array([1, 2, 3], np.int32), dtype="int32")
    with pytest.raises(TypeError, match=r"jnp.add: incompatible shapes for broadcasting: \(2,\), \(3,\)"):
        jnp.add(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match=r"jnp.hypot: incompatible shapes for broadcasting"):
        jaxc.jit(jnp.hypot)(np.ones(2, np.float32), np.ones(3, np.float32))


def test_float16_and_bfloat16():
    h = F.astype(np.float16)
    for name in ("sin", "exp", "sqrt", "log1p", "tanh"):
        check(getattr(jnp, name), getattr(np, name), np.abs(h), dtype="float16", rtol=2e-3, atol=1e-3)
    for name in ("add", "hypot", "logaddexp", "mod", "floor_divide"):
        check(getattr(jnp, name), getattr(np, name), h, F2.astype(np.float16), dtype="float16",
              rtol=2e-3, atol=2e-3)
    check(jnp.signbit, np.signbit, np.array([-0.0, 0.0, -1.0, nan], np.float16), dtype="bool")
    bf16 = jnp.asarray(F).astype(jnp.bfloat16) if hasattr(jnp.asarray(F), "astype") else None
    if bf16 is not None:
        out = jnp.multiply(bf16, 2)
        assert out.dtype == jnp.bfloat16
        assert_close(out.astype(np.float32), 2 * F, rtol=1e-2)


def test_float64(x64):
    # Only functions whose kernels make no libm call: an f64 kernel named like the
    # libm function it calls (sin, exp, log, ...) calls itself and crashes (reported).
    d = F.astype(np.float64)
    for name in ("sqrt", "floor", "negative", "rint"):
        check(getattr(jnp, name), getattr(np, name), np.abs(d), dtype="float64", rtol=1e-14)
    for name in ("add", "multiply", "true_divide", "hypot", "floor_divide", "mod", "nextafter", "copysign",
                 "fmax"):
        check(getattr(jnp, name), getattr(np, name), d, F2.astype(np.float64), dtype="float64", rtol=1e-14)
    assert jnp.sqrt(1).dtype == np.float64
    assert jnp.add(np.float32([1]), 1.0).dtype == np.float32  # weak scalars still adapt
    assert jnp.add(np.int32([1]), 1).dtype == np.int32


# -- the non-table functions ----------------------------------------------------------------

def test_round_and_around():
    x = np.array([1.2345, -2.675, 1234.5, -0.5, 2.5], np.float32)
    for decimals in (0, 1, 2, -1, -2):
        check(lambda a: jnp.round(a, decimals), lambda a: np.round(a, decimals), x, dtype="float32", rtol=1e-6)
    check(lambda a: jnp.around(a, 1), lambda a: np.around(a, 1), x, dtype="float32", rtol=1e-6)
    ints = np.array([15, 25, -15, 14, -25, 149, 150], np.int32)
    for decimals in (0, 2, -1, -2):
        check(lambda a: jnp.round(a, decimals), lambda a: np.round(a, decimals), ints, dtype="int32")
    check(lambda a: jnp.round(a, -3), lambda a: np.round(a, -3), np.array([-128, 127, 0], np.int8), dtype="int8")
    check(lambda a: jnp.round(a, 2), lambda a: np.round(a, 2), np.array([1.25, 2.675], np.float16),
          dtype="float16", rtol=1e-3)
    with pytest.raises(NotImplementedError, match="jnp.round: the 'out' argument is not supported"):
        jnp.round(x, out=np.empty(5))


def test_where():
    cond = B
    check(jnp.where, np.where, cond, F, F2, dtype="float32")
    check(jnp.where, np.where, I, F, 0.0, dtype="float32")  # nonzero ints are true
    check(lambda c, x: jnp.where(c, x, 2), lambda c, x: np.where(c, x, 2), cond[0], I, dtype="int32")
    check(jnp.where, np.where, np.array(True), I, I2, dtype="int32")
    with pytest.raises(TypeError, match="jnp.where requires ndarray or scalar arguments"):  # JAX's class
        jnp.where(cond, F)
    with pytest.raises(ValueError, match="size and fill_value"):
        jnp.where(cond, F, F2, size=3)
    assert_close(jnp.where(np.array([True, False, True]), size=5, fill_value=-1), [np.array([0, 2, -1, -1, -1])])
    assert_close(jaxc.jit(lambda c: jnp.where(c, size=2))(np.array([False, True, True])), [np.array([1, 2])])
    with pytest.raises(ValueError, match="jnp.where: incompatible shapes for broadcasting"):
        jnp.where(np.ones(4, bool), F, F2)


def test_clip():
    check(lambda x: jnp.clip(x, -1.0, 2.0), lambda x: np.clip(x, -1.0, 2.0), F, dtype="float32")
    check(lambda x: jnp.clip(x, max=0.5), lambda x: np.clip(x, None, 0.5), F, dtype="float32")
    check(lambda x: jnp.clip(x, min=0), lambda x: np.clip(x, 0, None), I, dtype="int32")
    check(lambda x, lo: jnp.clip(x, lo, 4), lambda x, lo: np.clip(x, lo, 4), I, I2, dtype="int32")
    check(lambda x: jnp.clip(x, 1.5, 3), lambda x: np.clip(x, 1.5, 3), I, dtype="float32")
    check(lambda x: jnp.clip(x), lambda x: x, F, dtype="float32")


def test_isclose_allclose():
    a = np.array([1.0, 1.0, inf, inf, nan, 1e-9, 100.0], np.float32)
    b = np.array([1.0 + 1e-6, 1.1, inf, -inf, nan, 0.0, 100.002], np.float32)
    check(jnp.isclose, np.isclose, a, b, dtype="bool")
    check(lambda x, y: jnp.isclose(x, y, equal_nan=True), lambda x, y: np.isclose(x, y, equal_nan=True), a, b)
    check(lambda x, y: jnp.isclose(x, y, rtol=0.2, atol=0.0), lambda x, y: np.isclose(x, y, rtol=0.2, atol=0.0),
          a, b)
    check(jnp.allclose, np.allclose, a[:3], b[:3], dtype="bool")
    check(jnp.allclose, np.allclose, a[:2], a[:2], dtype="bool")
    check(lambda x, y: jnp.allclose(x, y, equal_nan=True), lambda x, y: np.allclose(x, y, equal_nan=True),
          a[4:5], b[4:5])
    check(jnp.allclose, np.allclose, F, F[0], dtype="bool")
    assert bool(jnp.isclose(1, 2, atol=1))  # NumPy's tolerances for ints


def test_array_equal_equiv():
    check(jnp.array_equal, np.array_equal, F, F, dtype="bool")
    check(jnp.array_equal, np.array_equal, F, F2, dtype="bool")
    check(jnp.array_equal, np.array_equal, F, F[0], dtype="bool")
    nans = np.array([1.0, nan], np.float32)
    check(lambda x, y: jnp.array_equal(x, y, equal_nan=True),
          lambda x, y: np.array_equal(x, y, equal_nan=True), nans, nans, dtype="bool")
    check(jnp.array_equal, np.array_equal, nans, nans, dtype="bool")
    check(jnp.array_equiv, np.array_equiv, F, F[0], dtype="bool")
    check(jnp.array_equiv, np.array_equiv, np.ones((2, 3), np.float32), np.ones(3, np.float32), dtype="bool")
    check(jnp.array_equiv, np.array_equiv, F, np.ones(2, np.float32), dtype="bool")


def test_operators_use_these_functions():
    x, y = jnp.asarray(I), jnp.asarray(I2)
    assert_close(x // y, I // I2)
    assert_close(x % y, I % I2)
    assert_close(x ** 2, I ** 2)
    assert_close(-x, -I)
    assert_close(~x, ~I)
    assert_close(x << 1, I << 1)
    assert_close(abs(x), abs(I))
    assert_close(2 - x, 2 - I)


TESTED_ELSEWHERE = {"divmod", "modf", "round", "around", "logical_not", "where", "clip", "isclose", "allclose",
                    "array_equal", "array_equiv"}


def test_logical_not():
    for x in (B, I, F, SPECIAL):
        check(jnp.logical_not, np.logical_not, x, dtype="bool")


def test_every_public_name_is_tested():
    tested = (set(INEXACT_UNARY) | set(NUMERIC_UNARY) | set(BITWISE_UNARY) | set(PLAIN_BINARY)
              | set(INEXACT_BINARY) | set(COMPARISONS) | set(INTEGER_BINARY) | TESTED_ELSEWHERE)
    assert tested == set(_elementwise.__all__)


def _binary_exponentiation(x: np.ndarray, n: int) -> np.ndarray:
    """x ** n by squaring, in JAX's order (lax.integer_pow), in x's dtype."""
    acc, base, k = None, x, abs(n)
    if k == 0:
        return np.ones_like(x)
    while k:
        if k & 1:
            acc = base if acc is None else acc * base
        k >>= 1
        if k:
            base = base * base
    return (np.ones_like(acc) / acc) if n < 0 else acc


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 8, 13])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_power_by_an_integer_literal_multiplies(n, dtype, x64):
    """`x ** n` and jnp.power(x, n) with a Python or NumPy int n are exact
    repeated multiplication (lax.integer_pow), as in JAX: within rounding of
    float64 NumPy, bit for bit the squaring order."""
    x = rand((4, 5), dtype, 0.5, 2.0) * np.where(rand((4, 5)) > 0, 1, -1).astype(dtype)
    for exponent in (n, np.int64(n), np.array(n, np.int32)):
        got = np.asarray(jnp.power(x, exponent))
        np.testing.assert_array_equal(got, _binary_exponentiation(x, n))
        np.testing.assert_array_equal(np.asarray(jaxc.jit(lambda x: x ** n)(x)), got)
        assert got.dtype == dtype
    np.testing.assert_allclose(got, x.astype(np.float64) ** n, rtol=8 * np.finfo(dtype).eps)
    if dtype == np.float32:  # (JAX here runs without x64)
        check_jax(jnp.power, "power", x, n, rtol=0, atol=0)


def test_power_by_an_integer_literal_is_multiplication_in_the_ir():
    text = jaxc.jit(lambda x: x ** 3).lower(np.ones(3, np.float32)).as_text()
    assert "jaxc.mul" in text and "jaxc.pow" not in text
    # a jaxc array or a float exponent stays lax.pow, as in JAX
    for exponent in (jnp.asarray(np.int32(3)), 3.0):
        text = jaxc.jit(lambda x: x ** exponent).lower(np.ones(3, np.float32)).as_text()
        assert "jaxc.pow" in text


def test_integer_pow_of_integers_and_bools():
    u = np.array([2, 3, 200, 0], np.uint8)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(u) ** 9), u ** 9)  # wraps, as NumPy
    i = np.array([-3, 2, 7, 0], np.int8)
    check(lambda x: x ** 3, lambda x: x ** 3, i, dtype="int8")
    check(lambda x: jnp.power(x, 2), None, np.array([True, False]), expected=np.array([1, 0], np.int32),
          dtype="int32")
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got "
                                        r"integer_pow\(int32\[2\], -1\)"):
        jnp.asarray(np.array([2, 3], np.int32)) ** -1


def test_lax_integer_pow():
    x = rand((3,), np.float32)
    np.testing.assert_array_equal(np.asarray(lax.integer_pow(x, 5)), _binary_exponentiation(x, 5))
    np.testing.assert_array_equal(np.asarray(lax.integer_pow(x, 2.0)), x * x)  # an integral float, as JAX
    with pytest.raises(TypeError, match="lax.integer_pow: the exponent must be an integer, got 2.5"):
        lax.integer_pow(x, 2.5)


def test_integer_power_gradients_and_batching(x64):
    x = np.array([0.7, -1.3, 2.1])
    for n in (-2, 3, 6):
        grad = np.asarray(jaxc.vmap(jaxc.grad(lambda v: v ** n))(x))
        step = 1e-6
        numeric = ((x + step) ** n - (x - step) ** n) / (2 * step)
        np.testing.assert_allclose(grad, numeric, rtol=1e-7)
