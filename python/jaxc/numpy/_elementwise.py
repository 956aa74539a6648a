"""Elementwise `jaxc.numpy` functions: NumPy's names, JAX's promotion.

Tables map each jnp name to the lax rule it applies; the table says how the
arguments are promoted first:

- `_PLAIN_*`: JAX's promotion, dtype kept (``int8 + 1`` is int8),
- `_NUMERIC_*`: as plain, then bool becomes int32 (``jnp.power(True, True)``
  is int32, as in JAX),
- `_INEXACT_*`: ints and bools become the default float (``jnp.sin(1)`` is
  float32),
- `_COMPARISONS`: plain promotion, bool result.

Integer division by zero follows XLA (docs/semantics.md) through JAX's
formulas: ``x // 0`` is -1 or -2 for signed, the maximum for unsigned;
``x % 0`` and ``fmod(x, 0)`` are 0.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .. import dtypes, lax
from .._autodiff import custom_jvp
from ..core import ArrayBase
from ._util import (
    asarray,
    broadcast_shapes,
    broadcast_to,
    check_arraylike,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    promote_dtypes_inexact,
)

# -- promotion ----------------------------------------------------------------

def _to_numeric(x: Any) -> Any:
    """Bools become int32 (JAX's `to_numeric_dtype`); other dtypes are kept."""
    return lax.convert_element_type(x, dtypes.int32) if x.dtype == np.bool_ else x


def _promote_plain(name: str, *xs: Any) -> list[Any]:
    return promote_args(name, *xs)


def _promote_numeric(name: str, *xs: Any) -> list[Any]:
    return [_to_numeric(x) for x in promote_args(name, *xs)]


def _promote_inexact(name: str, *xs: Any) -> list[Any]:
    if len(xs) == 1:
        return promote_dtypes_inexact(name, *xs)
    return promote_args_inexact(name, *xs)


def _unary(name: str, fn: Callable[[Any], Any], promote: Callable) -> Callable[[Any], Any]:
    def apply(x: Any, /) -> Any:
        (x,) = promote(name, x)
        return fn(x)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"jnp.{name}, elementwise."
    return apply


# Binary functions whose parameters JAX names x1, x2 (the others: x, y).
_X1_X2 = {"arctan2", "atan2", "bitwise_right_shift", "copysign", "divide", "floor_divide", "fmod", "heaviside",
          "hypot", "mod", "remainder", "right_shift", "true_divide"}


def _binary(name: str, fn: Callable[[Any, Any], Any], promote: Callable) -> Callable[[Any, Any], Any]:
    if name in _X1_X2:
        def apply(x1: Any, x2: Any, /) -> Any:
            return fn(*promote(name, x1, x2))
    else:
        def apply(x: Any, y: Any, /) -> Any:
            return fn(*promote(name, x, y))
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"jnp.{name}, elementwise with broadcasting."
    return apply


def _asarray_one(name: str, x: Any) -> list[Any]:
    return [asarray(x, fn=name)]


# -- dtype checks ---------------------------------------------------------------

def _int_only(name: str, fn: Callable) -> Callable:
    """`fn` for integer and boolean operands; floats are a TypeError naming `name`."""
    def apply(*xs: Any) -> Any:
        for x in xs:
            if not (dtypes.is_int(x.dtype) or x.dtype == np.bool_):
                raise TypeError(f"jnp.{name} is only defined for integer and boolean arrays, "
                                f"got {x.dtype.name}")
        return fn(*xs)
    return apply


def _no_bool(name: str, fn: Callable, hint: str) -> Callable:
    """`fn` for numbers; booleans are a TypeError (as in NumPy and JAX)."""
    def apply(*xs: Any) -> Any:
        if any(x.dtype == np.bool_ for x in xs):
            raise TypeError(f"jnp.{name} does not accept booleans; {hint}")
        return fn(*xs)
    return apply


# -- rules written in terms of lax --------------------------------------------

def _zero(x: Any) -> Any:
    return lax.full_like(x, 0)


def _one(x: Any) -> Any:
    return lax.full_like(x, 1)


def _nonzero_divisor(y: Any) -> Any:
    """Integer divisors with 0 replaced by 1 (JAX: ``x % 0`` is 0)."""
    return lax.select(lax.eq(y, _zero(y)), _one(y), y)


def _floor_divide(x: Any, y: Any) -> Any:
    if dtypes.is_float(x.dtype):
        return _float_divmod(x, y)[0]
    quotient = lax.div(x, y)
    if dtypes.is_unsigned(x.dtype):
        return quotient
    # C division truncates; round toward -inf when the signs differ and there is a remainder.
    fix = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), lax.ne(lax.rem(x, y), _zero(x)))
    return lax.select(fix, lax.sub(quotient, _one(quotient)), quotient)


def _float_divmod(x: Any, y: Any) -> tuple[Any, Any]:
    """Python's float divmod: ``x == q * y + r`` with q integral and r of
    y's sign; division by zero gives ``x / 0`` and NaN, as in NumPy."""
    rem = lax.rem(x, y)
    quotient = lax.div(lax.sub(x, rem), y)
    fix = lax.bitwise_and(lax.ne(rem, _zero(rem)), lax.ne(lax.lt(rem, _zero(rem)), lax.lt(y, _zero(y))))
    rem = lax.select(fix, lax.add(rem, y), rem)
    quotient = lax.select(fix, lax.sub(quotient, _one(quotient)), quotient)
    # The quotient is integral up to rounding: round it to the nearest integer.
    floor = lax.floor(quotient)
    up = lax.gt(lax.sub(quotient, floor), lax.full_like(quotient, 0.5))
    floor = lax.select(up, lax.add(floor, _one(floor)), floor)
    by_zero = lax.eq(y, _zero(y))
    return lax.select(by_zero, lax.div(x, y), floor), rem


def _mod(x: Any, y: Any) -> Any:
    if not dtypes.is_float(x.dtype):
        y = _nonzero_divisor(y)
    remainder = lax.rem(x, y)
    if dtypes.is_unsigned(x.dtype):
        return remainder
    # Python's sign convention: the result has the sign of the divisor.
    fix = lax.bitwise_and(lax.ne(remainder, _zero(remainder)),
                          lax.ne(lax.lt(remainder, _zero(remainder)), lax.lt(y, _zero(y))))
    return lax.select(fix, lax.add(remainder, y), remainder)


def _fmod(x: Any, y: Any) -> Any:
    return lax.rem(x, y if dtypes.is_float(x.dtype) else _nonzero_divisor(y))


def _replace_inf(x: Any) -> Any:
    """x with +inf as 0 (the exponents of logaddexp's derivative)."""
    return lax.select(lax.eq(x, lax.full_like(x, np.inf)), _zero(x), x)


@custom_jvp
def _logaddexp(x: Any, y: Any) -> Any:
    big = lax.max(x, y)
    small = lax.min(x, y)
    out = lax.add(big, lax.log1p(lax.exp(lax.sub(small, big))))
    # Equal infinities: the difference is NaN; the answer is the infinity itself.
    return lax.select(lax.eq(x, y), lax.add(x, lax.full_like(x, np.log(2.0))), out)


@custom_jvp
def _logaddexp2(x: Any, y: Any) -> Any:
    big = lax.max(x, y)
    small = lax.min(x, y)
    log2_of_sum = lax.div(lax.log1p(lax.exp2(lax.sub(small, big))), lax.full_like(x, np.log(2.0)))
    return lax.select(lax.eq(x, y), lax.add(x, _one(x)), lax.add(big, log2_of_sum))


def _weighted_tangents(primal: Any, power: Callable[[Any], Any]) -> Callable:
    """JAX's rule for logaddexp (`power` exp) and logaddexp2 (exp2): each
    tangent weighed by power(x_i - out), +inf read as 0; 1/2 each at a tie
    (softplus'(0) = 0.5)."""
    def jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        out = primal(x, y)
        weight = [power(lax.sub(_replace_inf(v), _replace_inf(out))) for v in (x, y)]
        return out, lax.add(lax.mul(tx, weight[0]), lax.mul(ty, weight[1]))
    return jvp


_logaddexp.defjvp(_weighted_tangents(_logaddexp, lax.exp))
_logaddexp2.defjvp(_weighted_tangents(_logaddexp2, lax.exp2))


def _hypot(x: Any, y: Any) -> Any:
    ax, ay = lax.abs(x), lax.abs(y)
    big, small = lax.max(ax, ay), lax.min(ax, ay)
    safe = lax.select(lax.eq(big, _zero(big)), _one(big), big)
    ratio = lax.div(small, safe)
    out = lax.mul(big, lax.sqrt(lax.add(_one(ratio), lax.mul(ratio, ratio))))
    return lax.select(lax.eq(big, _zero(big)), _zero(big), lax.select(lax.is_finite(big), out, big))


def _copysign(x: Any, y: Any) -> Any:
    ax = lax.abs(x)
    return lax.select(_signbit(y), lax.neg(ax), ax)


def _heaviside(x: Any, h0: Any) -> Any:
    """0 below zero, 1 above, h0 at zero; NaN stays NaN (as in NumPy)."""
    step = lax.select(lax.lt(x, _zero(x)), _zero(x), lax.select(lax.gt(x, _zero(x)), _one(x), h0))
    return lax.select(lax.ne(x, x), x, step)


def _fmax(x: Any, y: Any) -> Any:
    """x where x > y or y is NaN, else y (a tie takes y, and so does its derivative, as in JAX)."""
    return lax.select(lax.bitwise_or(lax.gt(x, y), lax.ne(y, y)), x, y)


def _fmin(x: Any, y: Any) -> Any:
    """x where x < y or y is NaN, else y."""
    return lax.select(lax.bitwise_or(lax.lt(x, y), lax.ne(y, y)), x, y)


def _square(x: Any) -> Any:
    return lax.mul(x, x)


def _reciprocal(x: Any) -> Any:
    return lax.div(_one(x), x)


def _deg2rad(x: Any) -> Any:
    return lax.mul(x, lax.full_like(x, np.pi / 180))


def _rad2deg(x: Any) -> Any:
    return lax.mul(x, lax.full_like(x, 180 / np.pi))


def _log_base(base: float) -> Callable[[Any], Any]:
    return lambda x: lax.div(lax.log(x), lax.full_like(x, np.log(base)))


def _sinc(x: Any) -> Any:
    pix = lax.mul(x, lax.full_like(x, np.pi))
    zero = lax.eq(x, _zero(x))
    safe = lax.select(zero, _one(pix), pix)
    return lax.select(zero, _one(x), lax.div(lax.sin(safe), safe))


def _isnan(x: Any) -> Any:
    return lax.ne(x, x) if dtypes.is_float(x.dtype) else lax.full_like(x, False, np.bool_)


def _isinf(x: Any) -> Any:
    if not dtypes.is_float(x.dtype):
        return lax.full_like(x, False, np.bool_)
    return lax.eq(lax.abs(x), lax.full_like(x, np.inf))


def _equals_infinity(name: str, infinity: float, x: Any, out: None) -> Any:
    if out is not None:
        raise NotImplementedError(f"jnp.{name}: the 'out' argument is not supported (arrays are immutable)")
    x = asarray(x, fn=name)
    if dtypes.is_complex(x.dtype):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    if not dtypes.is_float(x.dtype):
        return lax.full_like(x, False, np.bool_)
    return lax.eq(x, lax.full_like(x, infinity))


def _isfinite(x: Any) -> Any:
    return lax.is_finite(x) if dtypes.is_float(x.dtype) else lax.full_like(x, True, np.bool_)


def _signbit(x: Any) -> Any:
    if dtypes.is_unsigned(x.dtype) or x.dtype == np.bool_:
        return lax.full_like(x, False, np.bool_)
    if dtypes.is_int(x.dtype):
        return lax.lt(x, _zero(x))
    bits = lax.bitcast_sign(x)
    return lax.lt(bits, lax.full_like(bits, 0))


def _abs(x: Any) -> Any:
    return x if dtypes.is_unsigned(x.dtype) or x.dtype == np.bool_ else lax.abs(x)


def _sign(x: Any) -> Any:
    if dtypes.is_unsigned(x.dtype):
        return lax.convert_element_type(lax.ne(x, _zero(x)), x.dtype, x.weak_type)
    return lax.sign(x)


def _round_half_even(x: Any) -> Any:
    if dtypes.is_complex(x.dtype):  # each part
        return lax.complex(_round_half_even(lax.real(x)), _round_half_even(lax.imag(x)))
    return lax.round(x, "ToNearestEven")


def _integer_identity(name: str, op: Callable) -> Callable:
    """`op` on floats; ints and bools are already integral (JAX keeps their
    dtype); complex numbers are a TypeError, as in JAX."""
    def apply(x: Any) -> Any:
        if dtypes.is_complex(x.dtype):
            raise TypeError(f"jnp.{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                            "subtypes of floating, integer and bool.")
        return op(x) if dtypes.is_float(x.dtype) else x
    return apply


def _trunc(x: Any) -> Any:
    return lax.select(lax.lt(x, _zero(x)), lax.ceil(x), lax.floor(x))


def _shift_right(x: Any, y: Any) -> Any:
    return (lax.shift_right_logical if dtypes.is_unsigned(x.dtype) else lax.shift_right_arithmetic)(x, y)


def _bitwise_count(x: Any) -> Any:
    """Number of 1 bits of |x| (NumPy's definition), as uint8."""
    if x.dtype == np.bool_:
        return lax.convert_element_type(x, dtypes.uint8)
    return lax.convert_element_type(lax.population_count(_abs(x)), dtypes.uint8)


def _real(x: Any) -> Any:
    return lax.real(x) if dtypes.is_complex(x.dtype) else x


def _imag(x: Any) -> Any:
    return lax.imag(x) if dtypes.is_complex(x.dtype) else lax.full_like(x, 0)


def _conj(x: Any) -> Any:
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x


def _complex_parts_test(test: Callable[[Any], Any], combine: Callable[[Any, Any], Any]) -> Callable:
    """A float test (isnan, isinf, isfinite) of a complex value: of both parts."""
    def apply(x: Any) -> Any:
        if dtypes.is_complex(x.dtype):
            return combine(test(lax.real(x)), test(lax.imag(x)))
        return test(x)
    return apply


def _real_only(name: str, fn: Callable) -> Callable:
    """`fn` for real operands; complex ones are a TypeError naming `name`."""
    def apply(*xs: Any) -> Any:
        if any(dtypes.is_complex(x.dtype) for x in xs):
            raise TypeError(f"jnp.{name} does not support complex arguments (got "
                            f"{', '.join(x.dtype.name for x in xs)})")
        return fn(*xs)
    return apply


_isfinite_parts = _complex_parts_test(_isfinite, lax.bitwise_and)  # jnp.isfinite of an array

_PLAIN_BINARY = {
    "add": lax.add, "multiply": lax.mul, "maximum": lax.max, "minimum": lax.min,
    "subtract": _no_bool("subtract", lax.sub, "use jnp.logical_xor instead"),
    "bitwise_and": _int_only("bitwise_and", lax.bitwise_and),
    "bitwise_or": _int_only("bitwise_or", lax.bitwise_or),
    "bitwise_xor": _int_only("bitwise_xor", lax.bitwise_xor),
}
_NUMERIC_BINARY = {
    "floor_divide": _floor_divide, "mod": _mod, "remainder": _mod, "fmod": _fmod,
    "left_shift": _int_only("left_shift", lax.shift_left),
    "bitwise_left_shift": _int_only("bitwise_left_shift", lax.shift_left),
    "right_shift": _int_only("right_shift", _shift_right),
    "bitwise_right_shift": _int_only("bitwise_right_shift", _shift_right),
}
_INEXACT_BINARY = {
    "true_divide": lax.div, "divide": lax.div, "arctan2": lax.atan2, "atan2": lax.atan2,
    "hypot": _hypot, "logaddexp": _logaddexp, "logaddexp2": _logaddexp2, "copysign": _copysign,
    "nextafter": lax.nextafter, "float_power": lax.pow, "heaviside": _heaviside,
}
_COMPARISONS = {"equal": lax.eq, "not_equal": lax.ne, "less": lax.lt, "less_equal": lax.le,
                "greater": lax.gt, "greater_equal": lax.ge}
_PLAIN_UNARY = {
    "negative": _no_bool("negative", lax.neg, "use jnp.logical_not instead"), "positive": lambda x: x,
    "absolute": _abs, "abs": _abs, "sign": _no_bool("sign", _sign, "convert them to a number type first"),
    "floor": _integer_identity("floor", lax.floor), "ceil": _integer_identity("ceil", lax.ceil),
    "fix": _integer_identity("fix", _trunc),
    "invert": _int_only("invert", lax.bitwise_not), "bitwise_not": _int_only("bitwise_not", lax.bitwise_not),
    "bitwise_invert": _int_only("bitwise_invert", lax.bitwise_not),
    "bitwise_count": _int_only("bitwise_count", _bitwise_count),
    "isnan": _complex_parts_test(_isnan, lax.bitwise_or), "isinf": _complex_parts_test(_isinf, lax.bitwise_or),
    "isfinite": _isfinite_parts, "signbit": _signbit,
    "conj": _conj, "conjugate": _conj,
}
_NUMERIC_UNARY = {"square": _square}
_INEXACT_UNARY = {
    "exp": lax.exp, "exp2": lax.exp2, "expm1": lax.expm1, "log": lax.log, "log1p": lax.log1p,
    "log2": _log_base(2.0), "log10": _log_base(10.0),
    "sqrt": lax.sqrt, "cbrt": lax.cbrt, "reciprocal": _reciprocal, "fabs": _real_only("fabs", lax.abs),
    "rint": _round_half_even,
    "sin": lax.sin, "cos": lax.cos, "tan": lax.tan, "arcsin": lax.asin, "arccos": lax.acos,
    "arctan": lax.atan, "sinh": lax.sinh, "cosh": lax.cosh, "tanh": lax.tanh, "arcsinh": lax.asinh,
    "arccosh": lax.acosh, "arctanh": lax.atanh, "asin": lax.asin, "acos": lax.acos, "atan": lax.atan,
    "asinh": lax.asinh, "acosh": lax.acosh, "atanh": lax.atanh,
    "deg2rad": _deg2rad, "rad2deg": _rad2deg, "radians": _deg2rad, "degrees": _rad2deg, "sinc": _sinc,
}

_TABLES: list[tuple[dict[str, Any], Callable[..., Callable], Callable]] = [
    (_PLAIN_BINARY, _binary, _promote_plain), (_NUMERIC_BINARY, _binary, _promote_numeric),
    (_INEXACT_BINARY, _binary, _promote_inexact), (_COMPARISONS, _binary, _promote_plain),
    (_PLAIN_UNARY, _unary, _asarray_one), (_NUMERIC_UNARY, _unary, _promote_numeric),
    (_INEXACT_UNARY, _unary, _promote_inexact),
]
for _table, _make, _promote in _TABLES:
    for _name, _fn in _table.items():
        globals()[_name] = _make(_name, _fn, _promote)

if TYPE_CHECKING:  # a type checker cannot see the functions made above
    def __getattr__(name: str): ...  # unannotated on purpose (docs/architecture.md)


def fmax(x1: Any, x2: Any) -> Any:
    """The larger of x1 and x2, ignoring NaNs (NaN only where both are)."""
    return _fmax(*promote_args("fmax", x1, x2))


def fmin(x1: Any, x2: Any) -> Any:
    """The smaller of x1 and x2, ignoring NaNs (NaN only where both are)."""
    return _fmin(*promote_args("fmin", x1, x2))


def trunc(x: Any) -> Any:
    """Round toward zero (integers and bools are unchanged)."""
    return _integer_identity("trunc", _trunc)(asarray(x, fn="trunc"))


def real(val: Any, /) -> Any:
    """The real part (the value itself for real dtypes)."""
    return _real(asarray(val, fn="real"))


def imag(val: Any, /) -> Any:
    """The imaginary part (zeros for real dtypes)."""
    return _imag(asarray(val, fn="imag"))


def isposinf(x: Any, /, out: None = None) -> Any:
    """Whether x is +inf (False for integers; complex is a ValueError, as in JAX)."""
    return _equals_infinity("isposinf", np.inf, x, out)


def isneginf(x: Any, /, out: None = None) -> Any:
    """Whether x is -inf (False for integers; complex is a ValueError, as in JAX)."""
    return _equals_infinity("isneginf", -np.inf, x, out)


def power(x1: Any, x2: Any, /) -> Any:
    """jnp.power, elementwise with broadcasting. As in JAX, an exponent that
    is a Python or NumPy integer (not a jaxc array) is exact repeated
    multiplication, `lax.integer_pow` (so `x ** 2` is `x * x`); any other
    exponent is `lax.pow`."""
    exponent = _integer_exponent(x2)
    if exponent is not None:
        (x,) = _promote_numeric("power", x1)
        return lax.integer_pow(x, exponent)
    return lax.pow(*_promote_numeric("power", x1, x2))


def pow(x1: Any, x2: Any, /) -> Any:
    """jnp.pow: the same as `power`."""
    return power(x1, x2)


def _integer_exponent(x: Any) -> int | None:
    """`x` as an int when it is a Python or NumPy integer (a scalar or a 0-d
    array; JAX asks `operator.index`), else None."""
    if isinstance(x, ArrayBase):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def divmod(x1: Any, x2: Any, /) -> tuple[Any, Any]:
    """``(floor_divide(x1, x2), mod(x1, x2))``, computed together."""
    x, y = _promote_numeric("divmod", x1, x2)
    if dtypes.is_float(x.dtype):
        return _float_divmod(x, y)
    return _floor_divide(x, y), _mod(x, y)


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """(fractional part, integral part), both with x's sign."""
    if out is not None:
        raise NotImplementedError("jnp.modf: the 'out' argument is not supported (arrays are immutable)")
    (x,) = _promote_inexact("modf", x)
    whole = _trunc(x)
    # Infinities have no fractional part; the sign of x carries over (-0.0 included).
    fraction = lax.select(lax.eq(lax.abs(x), lax.full_like(x, np.inf)), _zero(x), lax.sub(x, whole))
    return _copysign(fraction, x), whole


def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """Round half to even, to `decimals` decimal places. Ints are unchanged
    for ``decimals >= 0`` and rounded to a multiple of ``10**-decimals``
    otherwise; float16 is rounded in float32 (as JAX does)."""
    if out is not None:
        raise NotImplementedError("jnp.round: the 'out' argument is not supported (arrays are immutable)")
    decimals = int(lax._ops.operator_index(decimals))
    x = asarray(a, fn="round")
    if x.dtype == np.bool_ or (dtypes.is_int(x.dtype) and decimals >= 0):
        return x
    if dtypes.is_int(x.dtype):
        return _round_int(x, 10 ** -decimals)
    if dtypes.is_complex(x.dtype):  # each part
        return lax.complex(round(lax.real(x), decimals), round(lax.imag(x), decimals))
    wide = lax.convert_element_type(x, dtypes.float32, x.weak_type) if x.dtype == dtypes.float16 else x
    if decimals == 0:
        rounded = lax.round(wide, "ToNearestEven")
    elif decimals > 0:
        scale = lax.full_like(wide, 10.0 ** decimals)
        rounded = lax.div(lax.round(lax.mul(wide, scale), "ToNearestEven"), scale)
    else:
        scale = lax.full_like(wide, 10.0 ** -decimals)
        rounded = lax.mul(lax.round(lax.div(wide, scale), "ToNearestEven"), scale)
    return lax.convert_element_type(rounded, x.dtype, x.weak_type)


def _round_int(x: Any, factor: int) -> Any:
    """Integers rounded to a multiple of `factor`, ties to the even multiple."""
    if factor > np.iinfo(x.dtype).max:
        return _zero(x)
    f = lax.full_like(x, factor)
    quotient = _floor_divide(x, f)
    rest = lax.sub(x, lax.mul(quotient, f))  # in [0, factor)
    other = lax.sub(f, rest)
    odd = lax.ne(lax.bitwise_and(quotient, _one(quotient)), _zero(quotient))
    up = lax.bitwise_or(lax.gt(rest, other), lax.bitwise_and(lax.eq(rest, other), odd))
    quotient = lax.select(up, lax.add(quotient, _one(quotient)), quotient)
    return lax.mul(quotient, f)


around = round


def _truth(x: Any) -> Any:
    return x if x.dtype == np.bool_ else lax.ne(x, lax.full_like(x, 0))


def _logical_binary(name: str, fn: Callable) -> Callable:
    def apply(x: Any, y: Any, /) -> Any:
        x, y = promote_args(name, x, y)
        return fn(_truth(x), _truth(y))
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"jnp.{name}: the truth values of x and y combined (bool)."
    return apply


logical_and = _logical_binary("logical_and", lax.bitwise_and)
logical_or = _logical_binary("logical_or", lax.bitwise_or)
logical_xor = _logical_binary("logical_xor", lax.bitwise_xor)


def logical_not(x: Any, /) -> Any:
    return lax.bitwise_not(_truth(asarray(x, fn="logical_not")))


def where(condition: Any, x: Any = None, y: Any = None, /, *, size: int | None = None,
          fill_value: Any = None) -> Any:
    """`x` where `condition`, else `y` (broadcast together). The one-argument
    form is `nonzero` (under jit it needs a static `size`, padded with
    `fill_value`)."""
    if x is None and y is None:
        from ._shape import nonzero
        return nonzero(condition, size=size, fill_value=fill_value)
    for arg in (condition, x, y):
        check_arraylike("where", arg)  # None too: JAX's TypeError for two arguments
    if size is not None or fill_value is not None:
        raise ValueError("jnp.where: size and fill_value arguments cannot be used in three-term where function.")
    cond = _truth(asarray(condition, fn="where"))
    x, y = promote_dtypes("where", x, y)
    shape = broadcast_shapes("where", cond.shape, x.shape, y.shape)  # ValueError, as in JAX
    return lax.select(broadcast_to(cond, shape, "where"), broadcast_to(x, shape, "where"),
                      broadcast_to(y, shape, "where"))


def clip(arr: Any = None, /, min: Any = None, max: Any = None) -> Any:
    """Limit values to [min, max] (either may be None; where min > max the
    result is max). As in JAX 0.10, the NumPy 1 keywords a/a_min/a_max are
    gone (positional calls are unchanged)."""
    if arr is None:
        raise ValueError("jnp.clip: no input was provided to the clip function.")
    x = asarray(arr, fn="clip")
    if any(v is not None and dtypes.is_complex(dtypes.dtype_and_weak(v)[0]) for v in (x, min, max)):
        raise ValueError("jnp.clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped.")
    if min is not None:
        x = lax.max(*promote_args("maximum", min, x))  # jnp.maximum
    if max is not None:
        x = lax.min(*promote_args("minimum", max, x))  # jnp.minimum
    return x


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close
    only to themselves; NaNs only when `equal_nan`."""
    a, b = promote_args_inexact("isclose", a, b)
    diff = lax.abs(lax.sub(a, b))  # real also for complex a, b
    tol = lax.add(lax.full_like(diff, atol), lax.mul(lax.full_like(diff, rtol), lax.abs(b)))
    close = lax.bitwise_or(lax.le(diff, tol), lax.eq(a, b))  # eq: equal infinities
    finite = lax.bitwise_and(_isfinite_parts(a), _isfinite_parts(b))
    close = lax.bitwise_and(close, lax.bitwise_or(finite, lax.eq(a, b)))
    if equal_nan:
        close = lax.bitwise_or(close, lax.bitwise_and(lax.ne(a, a), lax.ne(b, b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """Whether every element of `a` is close to `b` (a 0-d bool array)."""
    close = isclose(a, b, rtol, atol, equal_nan)
    return lax.reduce_and(close, tuple(range(close.ndim)))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """Same shape and equal elements (a 0-d bool array)."""
    a1, a2 = asarray(a1, fn="array_equal"), asarray(a2, fn="array_equal")
    if a1.shape != a2.shape:
        return lax.constant(np.bool_(False))
    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_float(a1.dtype):
        eq = lax.bitwise_or(eq, lax.bitwise_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return lax.reduce_and(eq, tuple(range(a1.ndim)))


def array_equiv(a1: Any, a2: Any) -> Any:
    """Equal after broadcasting (a 0-d bool array); False when the shapes
    do not broadcast."""
    a1, a2 = asarray(a1, fn="array_equiv"), asarray(a2, fn="array_equiv")
    try:
        broadcast_shapes("array_equiv", a1.shape, a2.shape)
    except ValueError:
        return lax.constant(np.bool_(False))
    a1, a2 = promote_args("array_equiv", a1, a2)
    return lax.reduce_and(lax.eq(a1, a2), tuple(range(a1.ndim)))


# The functions defined above, in a list literal (what a type checker reads), then those made from the tables.
__all__ = [
    "fmax", "fmin", "trunc", "real", "imag", "isposinf", "isneginf",
    "power", "pow", "divmod", "modf", "round", "around", "logical_and", "logical_or", "logical_xor", "logical_not",
    "where", "clip", "isclose", "allclose", "array_equal", "array_equiv"]
__all__ = sorted([name for table, _, _ in _TABLES for name in table] + __all__)

del _table, _make, _promote, _name, _fn
