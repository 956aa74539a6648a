"""Elementwise `jaxc.numpy` functions: NumPy's names, JAX's promotion.

Tables map each jnp name to the lax function it applies and the kind of
promotion: `_NUMERIC` keeps the promoted dtype (ints stay ints),
`_INEXACT` turns ints and bools into the default float first (``jnp.sin(1)``
is float32), `_COMPARISONS` give bool arrays.
"""
from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from .. import dtypes, lax
from ._util import asarray, promote_args, promote_args_inexact, promote_dtypes_inexact


def _unary(name: str, fn: Callable[[Any], Any], inexact: bool) -> Callable[[Any], Any]:
    def apply(x: Any, /) -> Any:
        (x,) = promote_dtypes_inexact(name, x) if inexact else [asarray(x, fn=name)]
        return fn(x)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"jnp.{name}, elementwise."
    return apply


def _binary(name: str, fn: Callable[[Any, Any], Any], inexact: bool) -> Callable[[Any, Any], Any]:
    def apply(x: Any, y: Any, /) -> Any:
        x, y = promote_args_inexact(name, x, y) if inexact else promote_args(name, x, y)
        return fn(x, y)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = f"jnp.{name}, elementwise with broadcasting."
    return apply


def _bool_or_int(name: str, x: Any) -> None:
    if not (dtypes.is_int(x.dtype) or x.dtype == np.bool_):
        raise TypeError(f"jnp.{name} is only defined for integer and boolean arrays, got {x.dtype.name}")


def _int_only(name: str, fn: Callable) -> Callable:
    def apply(*xs: Any) -> Any:
        for x in xs:
            _bool_or_int(name, x)
        return fn(*xs)
    return apply


# -- rules written in terms of lax -------------------------------------------

def _zero(x: Any) -> Any:
    return lax.full_like(x, 0)


def _one(x: Any) -> Any:
    return lax.full_like(x, 1)


def _floor_divide(x: Any, y: Any) -> Any:
    if dtypes.is_float(x.dtype):
        return lax.floor(lax.div(x, y))
    if x.dtype == np.bool_:
        raise TypeError("jnp.floor_divide is not defined for booleans")
    if dtypes.is_unsigned(x.dtype):
        return lax.div(x, y)
    quotient = lax.div(x, y)
    # C division truncates; round toward -inf when the signs differ and there is a remainder.
    remainder = lax.rem(x, y)
    fix = lax.bitwise_and(lax.ne(remainder, _zero(remainder)), lax.ne(lax.lt(x, _zero(x)), lax.lt(y, _zero(y))))
    return lax.select(fix, lax.sub(quotient, _one(quotient)), quotient)


def _mod(x: Any, y: Any) -> Any:
    if x.dtype == np.bool_:
        raise TypeError("jnp.mod is not defined for booleans")
    remainder = lax.rem(x, y)
    if dtypes.is_unsigned(x.dtype):
        return remainder
    # Python's sign convention: the result has the sign of the divisor.
    fix = lax.bitwise_and(lax.ne(remainder, _zero(remainder)),
                          lax.ne(lax.lt(remainder, _zero(remainder)), lax.lt(y, _zero(y))))
    return lax.select(fix, lax.add(remainder, y), remainder)


def _power(x: Any, y: Any) -> Any:
    return lax.pow(x, y)


def _true_divide(x: Any, y: Any) -> Any:
    return lax.div(x, y)


def _logaddexp(x: Any, y: Any) -> Any:
    big = lax.max(x, y)
    small = lax.min(x, y)
    diff = lax.sub(small, big)
    out = lax.add(big, lax.log1p(lax.exp(diff)))
    # Equal infinities: the difference is NaN; the answer is the infinity itself.
    return lax.select(lax.eq(x, y), lax.add(x, lax.full_like(x, np.log(2.0))), out)


def _hypot(x: Any, y: Any) -> Any:
    ax, ay = lax.abs(x), lax.abs(y)
    big, small = lax.max(ax, ay), lax.min(ax, ay)
    safe = lax.select(lax.eq(big, _zero(big)), _one(big), big)
    ratio = lax.div(small, safe)
    out = lax.mul(big, lax.sqrt(lax.add(_one(ratio), lax.mul(ratio, ratio))))
    return lax.select(lax.eq(big, _zero(big)), _zero(big), lax.select(lax.is_finite(big), out, big))


def _copysign(x: Any, y: Any) -> Any:
    negative = lax.lt(lax.bitcast_sign(y), lax.full_like(lax.bitcast_sign(y), 0))
    ax = lax.abs(x)
    return lax.select(negative, lax.neg(ax), ax)


def _heaviside(x: Any, h0: Any) -> Any:
    return lax.select(lax.lt(x, _zero(x)), _zero(x), lax.select(lax.gt(x, _zero(x)), _one(x), h0))


def _fmax(x: Any, y: Any) -> Any:
    return lax.select(lax.ne(x, x), y, lax.select(lax.ne(y, y), x, lax.max(x, y)))


def _fmin(x: Any, y: Any) -> Any:
    return lax.select(lax.ne(x, x), y, lax.select(lax.ne(y, y), x, lax.min(x, y)))


def _fmod(x: Any, y: Any) -> Any:
    return lax.rem(x, y)


def _square(x: Any) -> Any:
    return lax.mul(x, x)


def _reciprocal(x: Any) -> Any:
    return lax.div(_one(x), x)


def _deg2rad(x: Any) -> Any:
    return lax.mul(x, lax.full_like(x, np.pi / 180))


def _rad2deg(x: Any) -> Any:
    return lax.mul(x, lax.full_like(x, 180 / np.pi))


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


def _negative(x: Any) -> Any:
    if x.dtype == np.bool_:
        raise TypeError("jnp.negative is not defined for booleans (use jnp.logical_not)")
    return lax.neg(x)


def _sign(x: Any) -> Any:
    if dtypes.is_unsigned(x.dtype):
        return lax.convert_element_type(lax.ne(x, _zero(x)), x.dtype, x.weak_type)
    return lax.sign(x)


def _round_half_even(x: Any) -> Any:
    return lax.round(x, "ToNearestEven") if dtypes.is_float(x.dtype) else x


def _integer_identity(op: Callable) -> Callable:
    return lambda x: op(x) if dtypes.is_float(x.dtype) else x


def _trunc(x: Any) -> Any:
    if not dtypes.is_float(x.dtype):
        return x
    return lax.select(lax.lt(x, _zero(x)), lax.ceil(x), lax.floor(x))


def _left_shift(x: Any, y: Any) -> Any:
    return lax.shift_left(x, y)


def _right_shift(x: Any, y: Any) -> Any:
    return (lax.shift_right_logical if dtypes.is_unsigned(x.dtype) else lax.shift_right_arithmetic)(x, y)


def _invert(x: Any) -> Any:
    return lax.bitwise_not(x)


_NUMERIC_BINARY = {
    "add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "maximum": lax.max, "minimum": lax.min,
    "floor_divide": _floor_divide, "mod": _mod, "remainder": _mod, "fmod": _fmod, "power": _power,
    "bitwise_and": _int_only("bitwise_and", lax.bitwise_and),
    "bitwise_or": _int_only("bitwise_or", lax.bitwise_or),
    "bitwise_xor": _int_only("bitwise_xor", lax.bitwise_xor),
    "left_shift": _int_only("left_shift", _left_shift),
    "right_shift": _int_only("right_shift", _right_shift),
    "heaviside": _heaviside,
}
_INEXACT_BINARY = {
    "true_divide": _true_divide, "divide": _true_divide, "arctan2": lax.atan2, "hypot": _hypot,
    "logaddexp": _logaddexp, "copysign": _copysign, "nextafter": lax.nextafter,
    "fmax": _fmax, "fmin": _fmin, "float_power": _power,
}
_COMPARISONS = {"equal": lax.eq, "not_equal": lax.ne, "less": lax.lt, "less_equal": lax.le,
                "greater": lax.gt, "greater_equal": lax.ge}
_NUMERIC_UNARY = {
    "negative": _negative, "positive": lambda x: x, "absolute": _abs, "abs": _abs, "sign": _sign,
    "square": _square, "floor": _integer_identity(lax.floor), "ceil": _integer_identity(lax.ceil),
    "rint": _round_half_even, "trunc": _trunc, "fix": _trunc,
    "invert": _int_only("invert", _invert), "bitwise_not": _int_only("bitwise_not", _invert),
    "isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite, "signbit": _signbit,
    "conj": lambda x: x, "conjugate": lambda x: x, "real": lambda x: x,
}
_INEXACT_UNARY = {
    "exp": lax.exp, "exp2": lax.exp2, "expm1": lax.expm1, "log": lax.log, "log1p": lax.log1p,
    "log2": lambda x: lax.div(lax.log(x), lax.full_like(x, np.log(2.0))),
    "log10": lambda x: lax.div(lax.log(x), lax.full_like(x, np.log(10.0))),
    "sqrt": lax.sqrt, "cbrt": lax.cbrt, "reciprocal": _reciprocal,
    "sin": lax.sin, "cos": lax.cos, "tan": lax.tan, "arcsin": lax.asin, "arccos": lax.acos,
    "arctan": lax.atan, "sinh": lax.sinh, "cosh": lax.cosh, "tanh": lax.tanh, "arcsinh": lax.asinh,
    "arccosh": lax.acosh, "arctanh": lax.atanh, "deg2rad": _deg2rad, "rad2deg": _rad2deg,
    "radians": _deg2rad, "degrees": _rad2deg, "sinc": _sinc,
}

for _name, _fn in _NUMERIC_BINARY.items():
    globals()[_name] = _binary(_name, _fn, inexact=False)
for _name, _fn in _INEXACT_BINARY.items():
    globals()[_name] = _binary(_name, _fn, inexact=True)
for _name, _fn in _COMPARISONS.items():
    globals()[_name] = _binary(_name, _fn, inexact=False)
for _name, _fn in _NUMERIC_UNARY.items():
    globals()[_name] = _unary(_name, _fn, inexact=False)
for _name, _fn in _INEXACT_UNARY.items():
    globals()[_name] = _unary(_name, _fn, inexact=True)

# The jnp "round" of NumPy rounds half to even; `around` is its alias.
def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """Round half to even, to `decimals` decimal places (ints: unchanged for decimals >= 0)."""
    x = asarray(a, fn="round")
    if not dtypes.is_float(x.dtype):
        return x
    if decimals == 0:
        return lax.round(x, "ToNearestEven")
    scale = lax.full_like(x, 10.0 ** decimals)
    return lax.div(lax.round(lax.mul(x, scale), "ToNearestEven"), scale)


around = round


def _logical_binary(name: str, fn: Callable) -> Callable:
    def apply(x: Any, y: Any, /) -> Any:
        x, y = promote_args(name, x, y)
        return fn(_truth(x), _truth(y))
    apply.__name__ = apply.__qualname__ = name
    return apply


def _truth(x: Any) -> Any:
    return x if x.dtype == np.bool_ else lax.ne(x, lax.full_like(x, 0))


logical_and = _logical_binary("logical_and", lax.bitwise_and)
logical_or = _logical_binary("logical_or", lax.bitwise_or)
logical_xor = _logical_binary("logical_xor", lax.bitwise_xor)


def logical_not(x: Any, /) -> Any:
    return lax.bitwise_not(_truth(asarray(x, fn="logical_not")))


def where(condition: Any, x: Any = None, y: Any = None, /) -> Any:
    """`x` where `condition`, else `y` (broadcast together). The one-argument
    form (indices of nonzeros) needs concrete values: use it outside jit."""
    if x is None and y is None:
        from ._shape import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("jnp.where takes either one argument or three")
    cond = _truth(asarray(condition, fn="where"))
    x, y = promote_args("where", x, y)
    from ._util import broadcast_shapes, broadcast_to
    shape = broadcast_shapes("where", cond.shape, x.shape)
    return lax.select(broadcast_to(cond, shape, "where"), broadcast_to(x, shape, "where"),
                      broadcast_to(y, shape, "where"))


def clip(a: Any, a_min: Any = None, a_max: Any = None, *, min: Any = None, max: Any = None) -> Any:
    """Limit values to [a_min, a_max] (either may be None)."""
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    x = asarray(a, fn="clip")
    if lo is not None:
        x = maximum(x, lo)  # noqa: F821 -- defined from the table above
    if hi is not None:
        x = minimum(x, hi)  # noqa: F821
    return x


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    a, b = promote_args_inexact("isclose", a, b)
    diff = lax.abs(lax.sub(a, b))
    tol = lax.add(lax.full_like(a, atol), lax.mul(lax.full_like(a, rtol), lax.abs(b)))
    close = lax.bitwise_or(lax.le(diff, tol), lax.eq(a, b))  # eq: equal infinities
    finite = lax.bitwise_and(lax.is_finite(a), lax.is_finite(b))
    close = lax.bitwise_and(close, lax.bitwise_or(finite, lax.eq(a, b)))
    if equal_nan:
        close = lax.bitwise_or(close, lax.bitwise_and(lax.ne(a, a), lax.ne(b, b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    return lax.reduce_and(isclose(a, b, rtol, atol, equal_nan), tuple(range(max_ndim(a, b))))


def max_ndim(*xs: Any) -> int:
    return builtins.max(asarray(x).ndim for x in xs)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    a1, a2 = asarray(a1, fn="array_equal"), asarray(a2, fn="array_equal")
    if a1.shape != a2.shape:
        return lax.constant(np.bool_(False))
    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_float(a1.dtype):
        eq = lax.bitwise_or(eq, lax.bitwise_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return lax.reduce_and(eq, tuple(range(a1.ndim)))


def array_equiv(a1: Any, a2: Any) -> Any:
    a1, a2 = promote_args("array_equiv", a1, a2)
    return lax.reduce_and(lax.eq(a1, a2), tuple(range(a1.ndim)))


__all__ = sorted([*_NUMERIC_BINARY, *_INEXACT_BINARY, *_COMPARISONS, *_NUMERIC_UNARY, *_INEXACT_UNARY,
                  "round", "around", "logical_and", "logical_or", "logical_xor", "logical_not", "where",
                  "clip", "isclose", "allclose", "array_equal", "array_equiv"])
