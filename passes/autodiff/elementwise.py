"""Derivative rules of the elementwise ops.

`PARTIALS[op](*operands, result)` gives the partial derivative of the result
with respect to each operand (None where it is not differentiable). One
table serves both modes: forward mode sums `tangent_i * partial_i`, reverse
mode gives `cotangent * partial_i` to operand i. Linear ops (add, sub, neg,
select, convert) have direct rules instead, so no multiply by one is emitted.

    jaxc.sin %x   partial  cos(x)
    jaxc.div %a, %b   partials  1/b, -(a/b)/b
"""
from __future__ import annotations

import math

import numpy as np

from jaxc import lax

from ..ir import is_inexact
from .jvp import JVP, ZERO_DERIVATIVE
from .vjp import VJP


def _sq(x):
    return x * x


def _max_partial(a, b, strict):
    """1 where `a` wins, 1/2 on ties (as JAX), else 0."""
    return lax.select(strict(a, b), lax.full_like(a, 1), lax.select(lax.eq(a, b), lax.full_like(a, 0.5),
                                                                       lax.full_like(a, 0)))


def _abs_partial(x):
    """1 where x >= 0 (-0 and 0 included), else -1: JAX's convention at the kink."""
    return lax.select(lax.ge(x, lax.full_like(x, 0)), lax.full_like(x, 1), lax.full_like(x, -1))


def _trigamma(x):
    """polygamma(1, x), the derivative of digamma: ten steps of
    psi1(x) = psi1(x + 1) + 1/x^2, then the asymptotic series (error below
    1e-12); x < 1/2 by the reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)."""
    reflect = lax.lt(x, lax.full_like(x, 0.5))
    z = lax.select(reflect, 1 - x, x)
    total = lax.full_like(z, 0)
    for _ in range(10):
        total = total + 1 / _sq(z)
        z = z + 1
    inv = 1 / z
    inv2 = _sq(inv)
    series = inv * (1 + inv * (0.5 + inv * (1 / 6 + inv2 * (-1 / 30 + inv2 * (1 / 42 + inv2 * (-1 / 30))))))
    positive = total + series
    return lax.select(reflect, (math.pi ** 2) / _sq(lax.sin(math.pi * x)) - positive, positive)


def _pow_partials(a, b, y):
    zero = lax.full_like(a, 0)
    da = lax.select(lax.eq(b, zero), zero, b * lax.pow(a, b - 1))
    db = lax.select(lax.eq(a, zero), zero, lax.log(a)) * y
    return [da, db]


PARTIALS = {
    "jaxc.exp": lambda x, y: [y],
    "jaxc.exp2": lambda x, y: [y * math.log(2)],
    "jaxc.expm1": lambda x, y: [y + 1],
    "jaxc.log": lambda x, y: [1 / x],
    "jaxc.log1p": lambda x, y: [1 / (x + 1)],
    "jaxc.sin": lambda x, y: [lax.cos(x)],
    "jaxc.cos": lambda x, y: [-lax.sin(x)],
    "jaxc.tan": lambda x, y: [1 + _sq(y)],
    "jaxc.asin": lambda x, y: [lax.rsqrt(1 - _sq(x))],
    "jaxc.acos": lambda x, y: [-lax.rsqrt(1 - _sq(x))],
    "jaxc.atan": lambda x, y: [1 / (1 + _sq(x))],
    "jaxc.sinh": lambda x, y: [lax.cosh(x)],
    "jaxc.cosh": lambda x, y: [lax.sinh(x)],
    "jaxc.tanh": lambda x, y: [1 - _sq(y)],
    "jaxc.asinh": lambda x, y: [lax.rsqrt(_sq(x) + 1)],
    "jaxc.acosh": lambda x, y: [lax.rsqrt((x - 1) * (x + 1))],
    "jaxc.atanh": lambda x, y: [1 / ((1 - x) * (1 + x))],
    "jaxc.logistic": lambda x, y: [y * (1 - y)],
    "jaxc.sqrt": lambda x, y: [0.5 / y],
    "jaxc.rsqrt": lambda x, y: [-0.5 * y / x],
    "jaxc.cbrt": lambda x, y: [1 / (3 * _sq(y))],
    "jaxc.erf": lambda x, y: [2 / math.sqrt(math.pi) * lax.exp(-_sq(x))],
    "jaxc.erf_inv": lambda x, y: [math.sqrt(math.pi) / 2 * lax.exp(_sq(y))],
    "jaxc.lgamma": lambda x, y: [lax.digamma(x)],
    "jaxc.digamma": lambda x, y: [_trigamma(x)],
    "jaxc.mul": lambda a, b, y: [b, a],
    "jaxc.div": lambda a, b, y: [1 / b, -y / b],
    "jaxc.rem": lambda a, b, y: [lax.full_like(a, 1), -lax.sign(a / b) * lax.floor(lax.abs(a / b))],
    "jaxc.pow": _pow_partials,
    "jaxc.max": lambda a, b, y: [_max_partial(a, b, lax.gt), _max_partial(b, a, lax.gt)],
    "jaxc.min": lambda a, b, y: [_max_partial(a, b, lax.lt), _max_partial(b, a, lax.lt)],
    "jaxc.atan2": lambda a, b, y: [b / (_sq(a) + _sq(b)), -a / (_sq(a) + _sq(b))],
}

# Piecewise-constant, integer, boolean or random results.
ZERO_DERIVATIVE.update({
    "jaxc.sign", "jaxc.floor", "jaxc.ceil", "jaxc.round", "jaxc.is_finite", "jaxc.not",
    "jaxc.population_count", "jaxc.clz", "jaxc.and", "jaxc.or", "jaxc.xor", "jaxc.shift_left",
    "jaxc.shift_right_logical", "jaxc.shift_right_arithmetic", "jaxc.nextafter", "jaxc.compare",
    "jaxc.stop_gradient", "jaxc.bitcast_convert", "jaxc.constant", "jaxc.iota",
    "jaxc.threefry2x32", "jaxc.random_bits", "jaxc.axis_index",
})


def _jvp_from_partials(op, xs, ys, ts):
    partials = PARTIALS[op.name](*xs, ys[0])
    terms = [t * p for t, p in zip(ts, partials) if t is not None]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return [total]


def _vjp_from_partials(op, xs, ys, cts):
    partials = PARTIALS[op.name](*xs, ys[0])
    return [cts[0] * p if is_inexact(x.value.type) else None for x, p in zip(xs, partials)]


for _name in PARTIALS:
    JVP[_name] = _jvp_from_partials
    VJP[_name] = _vjp_from_partials


def _is_complex(x) -> bool:
    return np.dtype(x.dtype).kind == "c"


def _abs_direction(x, y):
    """conj(x) / |x| (0 where x = 0), as a complex: d|x| = re(dx * conj(x) / |x|)."""
    y = lax.convert_element_type(y, x.dtype)
    return lax.conj(x) / lax.select(lax.eq(y, lax.full_like(y, 0)), lax.full_like(y, 1), y)


def _abs_jvp(op, xs, ys, ts):
    if _is_complex(xs[0]):
        return [lax.real(ts[0] * _abs_direction(xs[0], ys[0]))]
    return [ts[0] * _abs_partial(xs[0])]


def _abs_vjp(op, xs, ys, cts):
    if _is_complex(xs[0]):
        return [lax.convert_element_type(cts[0], xs[0].dtype) * _abs_direction(xs[0], ys[0])]
    return [cts[0] * _abs_partial(xs[0]) if is_inexact(xs[0].value.type) else None]


def _complex_jvp(op, xs, ys, ts):
    return [lax.complex(_zero_or(ts[0], xs[0]), _zero_or(ts[1], xs[1]))]


def _zero_or(t, like):
    return lax.full_like(like, 0) if t is None else t


def _convert_back(ct, x):
    return lax.convert_element_type(ct, x.dtype) if is_inexact(x.value.type) else None


def _convert_jvp(op, xs, ys, ts):
    return [lax.convert_element_type(ts[0], ys[0].dtype) if is_inexact(ys[0].value.type) else None]


def _clamp_masks(lo, x, hi):
    """Where the derivative goes to x, lo and hi, as in JAX: to x strictly
    inside (lo, hi), to lo where lo > x (and lo < hi), to hi where hi < x;
    at a tie to nobody (the derivative is 0 there)."""
    lo_b, hi_b = (lax.broadcast_in_dim(v, x.shape, ()) if v.shape != x.shape else v for v in (lo, hi))
    return (lax.bitwise_and(lax.gt(x, lo_b), lax.lt(x, hi_b)),
            lax.bitwise_and(lax.gt(lo_b, x), lax.lt(lo_b, hi_b)), lax.lt(hi_b, x))


def _unbroadcast(ct, like):
    """Sum a cotangent of the full shape down to a 0-d operand's shape."""
    return ct if ct.shape == like.shape else lax.reduce_sum(ct, tuple(range(ct.ndim)))


def _clamp_jvp(op, xs, ys, ts):
    lo, x, hi = xs
    masks = _clamp_masks(lo, x, hi)
    total = lax.full_like(x, 0)
    for t, operand, mask in zip((ts[1], ts[0], ts[2]), (x, lo, hi), masks):
        if t is not None:
            t = t if t.shape == x.shape else lax.broadcast_in_dim(t, x.shape, ())
            total = total + lax.select(mask, t, lax.full_like(x, 0))
    return [total]


def _clamp_vjp(op, xs, ys, cts):
    lo, x, hi = xs
    in_x, at_lo, at_hi = _clamp_masks(lo, x, hi)
    zero = lax.full_like(x, 0)
    return [_unbroadcast(lax.select(at_lo, cts[0], zero), lo), lax.select(in_x, cts[0], zero),
            _unbroadcast(lax.select(at_hi, cts[0], zero), hi)]


def _select_jvp(op, xs, ys, ts):
    return [lax.select(xs[0], _zero_or(ts[1], xs[1]), _zero_or(ts[2], xs[2]))]


def _select_vjp(op, xs, ys, cts):
    zero = lax.full_like(cts[0], 0)
    return [None, lax.select(xs[0], cts[0], zero), lax.select(xs[0], zero, cts[0])]


def _sum_of(ts, xs):
    return [_zero_or(ts[0], xs[0]) + _zero_or(ts[1], xs[1]) if None not in ts else
            (ts[0] if ts[1] is None else ts[1])]


# The complex ops are linear. As in JAX, reverse mode transposes without
# conjugating: imag's transpose is ct -> complex(0, -ct), complex's is
# ct -> (re(ct), -im(ct)), so grad(f)(z) of a real f is conj(df/dz)-shaped.
JVP.update({
    "jaxc.abs": _abs_jvp,
    "jaxc.real": lambda op, xs, ys, ts: [lax.real(ts[0])],
    "jaxc.imag": lambda op, xs, ys, ts: [lax.imag(ts[0])],
    "jaxc.conj": lambda op, xs, ys, ts: [lax.conj(ts[0])],
    "jaxc.complex": _complex_jvp,
    "jaxc.add": lambda op, xs, ys, ts: _sum_of(ts, xs),
    "jaxc.sub": lambda op, xs, ys, ts: [_zero_or(ts[0], xs[0]) - _zero_or(ts[1], xs[1])] if ts[0] is not None
    else [-ts[1]],
    "jaxc.neg": lambda op, xs, ys, ts: [-ts[0]],
    "jaxc.convert": _convert_jvp,
    "jaxc.select": _select_jvp,
    "jaxc.clamp": _clamp_jvp,
})
VJP.update({
    "jaxc.abs": _abs_vjp,
    "jaxc.real": lambda op, xs, ys, cts: [lax.complex(cts[0], lax.full_like(cts[0], 0))],
    "jaxc.imag": lambda op, xs, ys, cts: [lax.complex(lax.full_like(cts[0], 0), -cts[0])],
    "jaxc.conj": lambda op, xs, ys, cts: [lax.conj(cts[0])],
    "jaxc.complex": lambda op, xs, ys, cts: [lax.real(cts[0]), -lax.imag(cts[0])],
    "jaxc.add": lambda op, xs, ys, cts: [cts[0], cts[0]],
    "jaxc.sub": lambda op, xs, ys, cts: [cts[0], -cts[0]],
    "jaxc.neg": lambda op, xs, ys, cts: [-cts[0]],
    "jaxc.convert": lambda op, xs, ys, cts: [_convert_back(cts[0], xs[0])] if is_inexact(ys[0].value.type)
    else [None],
    "jaxc.select": _select_vjp,
    "jaxc.clamp": _clamp_vjp,
})
