"""vmap of every elementwise op (unary, binary, compare, select, clamp,
convert, bitcast_convert, threefry2x32) against a Python loop, with mapped
and unmapped operands and several in_axes/out_axes."""
from __future__ import annotations

import numpy as np
import pytest
from batching_util import check_vmap

import jaxc
from jaxc import lax
from jaxc.passes.batching import elementwise

RNG = np.random.default_rng(3)


def floats(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype(np.float32)


def ints(*shape, low=-50, high=50, dtype=np.int32):
    return RNG.integers(low, high, size=shape).astype(dtype)


def complexes(*shape, low=-1.0, high=1.0):
    return (RNG.uniform(low, high, size=shape) + 1j * RNG.uniform(low, high, size=shape)).astype(np.complex64)


POS = dict(low=0.5, high=2.0)
UNIT = dict(low=-0.8, high=0.8)

# op name -> (function of one operand, input maker)
UNARY = {
    "neg": (lax.neg, floats), "abs": (lax.abs, ints), "exp": (lax.exp, floats), "log": (lax.log, floats, POS),
    "sin": (lax.sin, floats), "cos": (lax.cos, floats), "tanh": (lax.tanh, floats),
    "sqrt": (lax.sqrt, floats, POS), "not": (lax.bitwise_not, ints), "sign": (lax.sign, floats),
    "exp2": (lax.exp2, floats), "expm1": (lax.expm1, floats), "log1p": (lax.log1p, floats, POS),
    "tan": (lax.tan, floats, UNIT), "asin": (lax.asin, floats, UNIT), "acos": (lax.acos, floats, UNIT),
    "atan": (lax.atan, floats), "sinh": (lax.sinh, floats), "cosh": (lax.cosh, floats),
    "asinh": (lax.asinh, floats), "acosh": (lax.acosh, floats, dict(low=1.5, high=3.0)),
    "atanh": (lax.atanh, floats, UNIT), "logistic": (lax.logistic, floats), "rsqrt": (lax.rsqrt, floats, POS),
    "cbrt": (lax.cbrt, floats, POS), "floor": (lax.floor, floats), "ceil": (lax.ceil, floats),
    "erf": (lax.erf, floats), "erf_inv": (lax.erf_inv, floats, UNIT), "lgamma": (lax.lgamma, floats, POS),
    "digamma": (lax.digamma, floats, POS), "population_count": (lax.population_count, ints),
    "clz": (lax.clz, ints), "stop_gradient": (lax.stop_gradient, floats),
    "checkpoint_name": (lambda x: jaxc.ad_checkpoint.checkpoint_name(x * 2.0, "h"), floats),
    "round": (lambda x: lax.round(x * 3.0), floats), "is_finite": (lax.is_finite, floats),
    "convert": (lambda x: lax.convert_element_type(x * 10.0, np.int32), floats),
    "bitcast_convert": (lambda x: lax.bitcast_convert_type(x, np.uint16), floats),
    "real": (lax.real, complexes), "imag": (lax.imag, complexes), "conj": (lax.conj, complexes),
}

BINARY = {
    "add": (lax.add, floats), "sub": (lax.sub, ints), "mul": (lax.mul, floats),
    "div": (lax.div, floats, POS), "max": (lax.max, floats), "min": (lax.min, ints),
    "and": (lax.bitwise_and, ints), "or": (lax.bitwise_or, ints), "xor": (lax.bitwise_xor, ints),
    "rem": (lax.rem, floats, POS), "pow": (lax.pow, floats, POS), "atan2": (lax.atan2, floats),
    "shift_left": (lambda a, b: lax.shift_left(a, b & 7), ints),
    "shift_right_logical": (lambda a, b: lax.shift_right_logical(a, b & 7), ints),
    "shift_right_arithmetic": (lambda a, b: lax.shift_right_arithmetic(a, b & 7), ints),
    "nextafter": (lax.nextafter, floats), "compare": (lax.lt, floats), "complex": (lax.complex, floats),
}


def make(spec, *shape):
    maker = spec[1]
    return maker(*shape, **(spec[2] if len(spec) > 2 else {}))


def test_every_elementwise_op_is_tested_here():
    """The op table's elementwise families (which give jaxc-batch its rules)
    and the cases of this file name the same ops."""
    tested = {f"jaxc.{name}" for name in [*UNARY, *BINARY, "select", "clamp", "threefry2x32"]}
    assert tested == set(elementwise.ELEMENTWISE)
    assert all(elementwise.BATCH[name] is elementwise._elementwise for name in tested)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("in_axis,out_axis", [(0, 0), (1, -1)])
def test_unary(name, in_axis, out_axis):
    spec = UNARY[name]
    x = make(spec, 4, 3) if in_axis == 0 else make(spec, 3, 4)
    check_vmap(spec[0], [x], in_axis, out_axis, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("in_axes,out_axes,shapes", [
    ((0, 0), 0, [(4, 3), (4, 3)]),
    ((0, None), 1, [(4, 3), (3,)]),
    ((None, 1), 0, [(3,), (3, 4)]),
])
def test_binary(name, in_axes, out_axes, shapes):
    spec = BINARY[name]
    a, b = (make(spec, *s) for s in shapes)
    check_vmap(spec[0], [a, b], in_axes, out_axes, rtol=2e-6, atol=2e-6)


PRED = np.array([[True, False, True]] * 2 + [[False, False, True]] * 2)
X, Y = floats(4, 3), floats(4, 3)


@pytest.mark.parametrize("args,in_axes", [
    ([PRED, X, Y], (0, 0, 0)),
    ([PRED[0], X, Y[0]], (None, 0, None)),
    ([PRED, X[0], Y.T], (0, None, 1)),
    ([PRED[0], X[0], Y], (None, None, 0)),
    ([np.array([True, False, False, True]), X, Y], (0, 0, 0)),    # a 0-d predicate per lane
    ([np.bool_(False), X, Y], (None, 0, 0)),                       # one 0-d predicate
])
def test_select(args, in_axes):
    check_vmap(lax.select, args, in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (0, None, None), (None, 0, 0), (0, 1, None)])
def test_clamp_with_scalar_and_full_bounds(in_axes):
    lo = np.array([-0.5, -0.2, 0.0, -1.0], np.float32)
    hi = np.array([0.5, 0.2, 0.3, 1.0], np.float32)
    x = floats(4, 3)
    args = [lo if in_axes[0] == 0 else lo[0], x if in_axes[1] in (0, None) else x.T,
            hi if in_axes[2] == 0 else hi[0]]
    if in_axes[1] is None:
        args[1] = x[0]
    check_vmap(lax.clamp, args, in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0, 0, 0), (None, None, 0, 0), (0, 0, None, None), (0, None, 1, None)])
def test_threefry2x32(in_axes):
    keys = ints(4, low=0, high=2 ** 31, dtype=np.uint32)
    counts = ints(4, 5, low=0, high=2 ** 31, dtype=np.uint32)
    args = [keys if in_axes[0] == 0 else keys[0], keys[::-1].copy() if in_axes[1] == 0 else keys[1],
            counts if in_axes[2] == 0 else (counts.T.copy() if in_axes[2] == 1 else counts[0]),
            counts[::-1].copy() if in_axes[3] == 0 else counts[1]]
    check_vmap(lambda a, b, c, d: lax.threefry2x32(a, b, c, d), args, in_axes, (0, 0), exact=True)
