"""Lowering rules for creation and elementwise ops.

Every elementwise op becomes one `linalg.generic` whose body applies the
scalar arith/math op chosen by element kind, e.g.

    %z = jaxc.add %x, %y : tensor<4xf32>
  ->
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.generic {indexing_maps = [id, id, id], iterator_types = ["parallel"]}
           ins(%x, %y : ...) outs(%e : ...) {
         ^bb0(%a: f32, %b: f32, %o: f32):
           %s = arith.addf %a, %b : f32
           linalg.yield %s : f32
         } -> tensor<4xf32>

Integer semantics follow XLA (docs/semantics.md): division by zero gives -1
(all ones) and x % 0 gives x, INT_MIN / -1 gives INT_MIN, out-of-range shifts
give 0 (arithmetic right shifts fill with the sign), float -> int conversion
saturates and maps NaN to 0.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, math, scf

from .common import (bit_width, element_type, empty, filled, generic, identity_map, is_bool, is_float,
                     is_unsigned, kind, loop_index, map_elements, operand_element,
                     scalar_const, shape_of, signless)

Rule = Callable[[ir.OpView], list[ir.Value]]


def _elementwise(scalar_rules: dict[str, Callable[..., ir.Value]]) -> Rule:
    """A rule applying `scalar_rules[kind]` (kind of the first operand) per element."""
    def rule(op: ir.OpView) -> list[ir.Value]:
        t = operand_element(op, 0)
        fn = scalar_rules.get(kind(t)) or scalar_rules.get("any")
        if fn is None:
            raise LoweringError(op, f"no lowering of '{op.name}' for {t} elements")
        result_type = op.results[0].type
        return [map_elements(result_type, list(op.operands), lambda a: fn(t, *a))]
    return rule


class LoweringError(Exception):
    """An op the lowering cannot handle; reported at the op's location."""

    def __init__(self, op: ir.OpView, message: str):
        super().__init__(message)
        self.location = op.location


# --------------------------------------------------------------------------
# Scalar helpers (t is the original element type, values are signless)
# --------------------------------------------------------------------------

def _cmp(t: ir.Type, direction: str, a: ir.Value, b: ir.Value) -> ir.Value:
    """Compare by jaxc direction: ordered float compares (une for ne)."""
    if is_float(t):
        predicate = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt",
                     "ge": "oge"}[direction]
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate.upper()), a, b)
    prefix = "u" if is_unsigned(t) else "s"
    predicate = direction if direction in ("eq", "ne") else prefix + direction
    return arith.cmpi(getattr(arith.CmpIPredicate, predicate), a, b)


def _select(c, a, b):
    return arith.select(c, a, b)


def _nonzero_divisor(t, b) -> tuple[ir.Value, ir.Value]:
    """(b == 0, b with 0 replaced by 1): integer division must not trap."""
    divisor_is_zero = arith.cmpi(arith.CmpIPredicate.eq, b, scalar_const(t, 0))
    return divisor_is_zero, _select(divisor_is_zero, scalar_const(t, 1), b)


def _div(t, a, b):
    if is_float(t):
        return arith.divf(a, b)
    one, all_ones = scalar_const(t, 1), scalar_const(t, -1)
    divisor_is_zero, safe = _nonzero_divisor(t, b)
    if is_unsigned(t):
        return _select(divisor_is_zero, all_ones, arith.divui(a, safe))
    # INT_MIN / -1 overflows: divide by 1 instead, which gives INT_MIN.
    int_min = scalar_const(t, 1 << (bit_width(t) - 1))
    overflow = arith.andi(arith.cmpi(arith.CmpIPredicate.eq, a, int_min),
                          arith.cmpi(arith.CmpIPredicate.eq, b, all_ones))
    safe = _select(overflow, one, safe)
    return _select(divisor_is_zero, all_ones, arith.divsi(a, safe))


def _rem(t, a, b):
    if is_float(t):
        return arith.remf(a, b)
    one, all_ones = scalar_const(t, 1), scalar_const(t, -1)
    divisor_is_zero, safe = _nonzero_divisor(t, b)
    if is_unsigned(t):
        return _select(divisor_is_zero, a, arith.remui(a, safe))
    # INT_MIN % -1 overflows in hardware; the result is 0 (any x % -1 is 0).
    safe = _select(arith.cmpi(arith.CmpIPredicate.eq, b, all_ones), one, safe)
    return _select(divisor_is_zero, a, arith.remsi(a, safe))


def _shift(t, a, b, op, fill_sign: bool):
    """XLA shifts: amounts >= width (read as unsigned) give 0, or the sign fill."""
    width = scalar_const(t, bit_width(t))
    too_far = arith.cmpi(arith.CmpIPredicate.uge, b, width)
    if fill_sign:
        return op(a, _select(too_far, scalar_const(t, bit_width(t) - 1), b))
    return _select(too_far, scalar_const(t, 0), op(a, b))


def _int_pow(t, a, b):
    """a ** b by squaring (wrapping). Negative signed exponents give 0, except
    for a = 1 (1) and a = -1 (+-1 by parity), as XLA."""
    st = signless(t)
    one, zero = scalar_const(t, 1), scalar_const(t, 0)
    loop = scf.WhileOp([st, st, st], [one, a, b])
    before = loop.regions[0].blocks.append(st, st, st)
    with ir.InsertionPoint(before):
        result, base, e = before.arguments
        more = arith.cmpi(arith.CmpIPredicate.ne if is_unsigned(t) else arith.CmpIPredicate.sgt,
                          e, zero)
        scf.condition(more, [result, base, e])
    after = loop.regions[1].blocks.append(st, st, st)
    with ir.InsertionPoint(after):
        result, base, e = after.arguments
        odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(e, one), zero)
        scf.YieldOp([_select(odd, arith.muli(result, base), result), arith.muli(base, base),
                     arith.shrui(e, one)])
    power = loop.results[0]
    if is_unsigned(t):
        return power
    minus_one = scalar_const(t, -1)
    odd_exponent = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(b, one), zero)
    special = _select(arith.cmpi(arith.CmpIPredicate.eq, a, one), one,
                      _select(arith.cmpi(arith.CmpIPredicate.eq, a, minus_one),
                              _select(odd_exponent, minus_one, one), zero))
    return _select(arith.cmpi(arith.CmpIPredicate.slt, b, zero), special, power)


def _sign(t, x):
    zero = scalar_const(t, 0)
    if is_float(t):
        one, minus_one = scalar_const(t, 1.0), scalar_const(t, -1.0)
        # sign(nan) = nan and sign(-0.0) = -0.0: fall through to x.
        return _select(_cmp(t, "gt", x, zero), one,
                       _select(_cmp(t, "lt", x, zero), minus_one, x))
    one = scalar_const(t, 1)
    if is_unsigned(t):
        return _select(_cmp(t, "ne", x, zero), one, zero)
    return _select(_cmp(t, "gt", x, zero), one,
                   _select(_cmp(t, "lt", x, zero), scalar_const(t, -1), zero))


def _logistic(t, x):
    one = scalar_const(t, 1.0)
    return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))


def _float_only(fn) -> dict:
    return {"float": lambda t, *a: fn(*a)}


UNARY = {
    "jaxc.neg": {"float": lambda t, x: arith.negf(x),
                 "signed": lambda t, x: arith.subi(scalar_const(t, 0), x),
                 "unsigned": lambda t, x: arith.subi(scalar_const(t, 0), x)},
    "jaxc.abs": {"float": lambda t, x: math.absf(x),
                 "signed": lambda t, x: math.absi(x),
                 "unsigned": lambda t, x: x},
    "jaxc.sign": {"any": _sign},
    "jaxc.exp": _float_only(math.exp),
    "jaxc.exp2": _float_only(math.exp2),
    "jaxc.expm1": _float_only(math.expm1),
    "jaxc.log": _float_only(math.log),
    "jaxc.log1p": _float_only(math.log1p),
    "jaxc.sin": _float_only(math.sin),
    "jaxc.cos": _float_only(math.cos),
    "jaxc.tan": _float_only(math.tan),
    "jaxc.asin": _float_only(math.asin),
    "jaxc.acos": _float_only(math.acos),
    "jaxc.atan": _float_only(math.atan),
    "jaxc.sinh": _float_only(math.sinh),
    "jaxc.cosh": _float_only(math.cosh),
    "jaxc.tanh": _float_only(math.tanh),
    "jaxc.asinh": _float_only(math.asinh),
    "jaxc.acosh": _float_only(math.acosh),
    "jaxc.atanh": _float_only(math.atanh),
    "jaxc.logistic": {"float": _logistic},
    "jaxc.sqrt": _float_only(math.sqrt),
    "jaxc.rsqrt": _float_only(math.rsqrt),
    "jaxc.cbrt": _float_only(math.cbrt),
    "jaxc.floor": _float_only(math.floor),
    "jaxc.ceil": _float_only(math.ceil),
    "jaxc.erf": _float_only(math.erf),
    "jaxc.is_finite": _float_only(math.isfinite),
    "jaxc.not": {"any": lambda t, x: arith.xori(x, scalar_const(t, -1))},
    "jaxc.population_count": {"signed": lambda t, x: math.ctpop(x),
                              "unsigned": lambda t, x: math.ctpop(x)},
    "jaxc.clz": {"signed": lambda t, x: math.ctlz(x), "unsigned": lambda t, x: math.ctlz(x)},
}

BINARY = {
    "jaxc.add": {"float": lambda t, a, b: arith.addf(a, b), "bool": lambda t, a, b: arith.ori(a, b),
                 "signed": lambda t, a, b: arith.addi(a, b), "unsigned": lambda t, a, b: arith.addi(a, b)},
    "jaxc.sub": {"float": lambda t, a, b: arith.subf(a, b),
                 "signed": lambda t, a, b: arith.subi(a, b), "unsigned": lambda t, a, b: arith.subi(a, b)},
    "jaxc.mul": {"float": lambda t, a, b: arith.mulf(a, b), "bool": lambda t, a, b: arith.andi(a, b),
                 "signed": lambda t, a, b: arith.muli(a, b), "unsigned": lambda t, a, b: arith.muli(a, b)},
    "jaxc.div": {"any": _div},
    "jaxc.rem": {"any": _rem},
    "jaxc.pow": {"float": lambda t, a, b: math.powf(a, b),
                 "signed": lambda t, a, b: _int_pow(t, a, b),
                 "unsigned": lambda t, a, b: _int_pow(t, a, b)},
    "jaxc.max": {"float": lambda t, a, b: arith.maximumf(a, b), "bool": lambda t, a, b: arith.ori(a, b),
                 "signed": lambda t, a, b: arith.maxsi(a, b), "unsigned": lambda t, a, b: arith.maxui(a, b)},
    "jaxc.min": {"float": lambda t, a, b: arith.minimumf(a, b), "bool": lambda t, a, b: arith.andi(a, b),
                 "signed": lambda t, a, b: arith.minsi(a, b), "unsigned": lambda t, a, b: arith.minui(a, b)},
    "jaxc.atan2": {"float": lambda t, a, b: math.atan2(a, b)},
    "jaxc.and": {"any": lambda t, a, b: arith.andi(a, b)},
    "jaxc.or": {"any": lambda t, a, b: arith.ori(a, b)},
    "jaxc.xor": {"any": lambda t, a, b: arith.xori(a, b)},
    "jaxc.shift_left": {"any": lambda t, a, b: _shift(t, a, b, arith.shli, False)},
    "jaxc.shift_right_logical": {"any": lambda t, a, b: _shift(t, a, b, arith.shrui, False)},
    "jaxc.shift_right_arithmetic": {"any": lambda t, a, b: _shift(t, a, b, arith.shrsi, True)},
}


# --------------------------------------------------------------------------
# Rules with attributes or mixed types
# --------------------------------------------------------------------------

_SPLAT_FILL_THRESHOLD = 64  # elements


def constant(op) -> list[ir.Value]:
    """jaxc.constant -> arith.constant on the signless type (same bits)."""
    value = op.attributes["value"]
    result_type = signless(op.results[0].type)
    dense = ir.DenseElementsAttr(value)
    if 0 in shape_of(result_type):  # no elements: nothing to read from the attribute
        return [empty(shape_of(result_type), element_type(op.results[0].type))]
    if dense.is_splat and np.prod(shape_of(result_type)) > _SPLAT_FILL_THRESHOLD:
        # A large splat would become a full-size global buffer: fill instead.
        t = element_type(op.results[0].type)
        if is_float(t):  # via the attribute: NumPy cannot read bf16 elements
            first = ir.FloatAttr(dense.get_splat_value()).value
        else:
            first = int(np.array(dense).flat[0])
        scalar = scalar_const(t, first)
        return [filled(shape_of(result_type), t, scalar)]
    if result_type == op.results[0].type:
        return [arith.constant(result_type, value)]
    array = np.array(ir.DenseElementsAttr(value))  # unsigned or bool NumPy array
    if array.dtype == np.bool_:
        signed = array.astype(np.int8)  # booleans are stored as i8
    else:
        signed = array.view(array.dtype.str.replace("u", "i"))
    if ir.DenseElementsAttr(value).is_splat:
        attr = ir.DenseElementsAttr.get_splat(
            result_type, ir.IntegerAttr.get(ir.RankedTensorType(result_type).element_type,
                                            int(signed.flat[0])))
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(signed), type=result_type)
    return [arith.constant(result_type, attr)]


def iota(op) -> list[ir.Value]:
    """result[i...] = i_dim, converted to the element type."""
    result_type = op.results[0].type
    t = element_type(result_type)
    dim = ir.IntegerAttr(op.attributes["iota_dimension"]).value
    rank = len(shape_of(result_type))

    def body(_out):
        index = loop_index(dim)
        as_int = arith.index_cast(ir.IntegerType.get_signless(64), index)
        if is_float(t):
            return [arith.sitofp(signless(t), as_int)]
        if bit_width(t) < 64:
            return [arith.trunci(signless(t), as_int)]
        return [as_int]
    return generic([result_type], [], [identity_map(rank)], ["parallel"] * rank, body)


def round_(op) -> list[ir.Value]:
    method = ir.IntegerAttr(op.attributes["rounding_method"]).value if "rounding_method" in op.attributes else 0
    fn = math.roundeven if method == 1 else math.round
    return [map_elements(op.results[0].type, [op.operands[0]], lambda a: fn(a[0]))]


def compare(op) -> list[ir.Value]:
    direction = ["eq", "ne", "lt", "le", "gt", "ge"][ir.IntegerAttr(op.attributes["comparison_direction"]).value]
    t = operand_element(op, 0)
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: _cmp(t, direction, a[0], a[1]))]


def select(op) -> list[ir.Value]:
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: arith.select(a[0], a[1], a[2]))]


def clamp(op) -> list[ir.Value]:
    """clamp(lo, x, hi) = min(max(x, lo), hi), NaN-propagating for floats."""
    t = operand_element(op, 1)
    max_fn, min_fn = BINARY["jaxc.max"][kind(t)], BINARY["jaxc.min"][kind(t)]
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: min_fn(t, max_fn(t, a[1], a[0]), a[2]))]


def _convert_scalar(src: ir.Type, dst: ir.Type, x: ir.Value) -> ir.Value:
    """One element from `src` to `dst` with XLA's conversion semantics."""
    out = signless(dst)
    if src == dst:
        return x
    if is_bool(dst):  # anything -> bool: x != 0
        return _cmp(src, "ne", x, scalar_const(src, 0))
    if is_float(src) and is_float(dst):
        if bit_width(dst) > bit_width(src):
            return arith.extf(out, x)
        if bit_width(dst) < bit_width(src):
            return arith.truncf(out, x)
        return _float_same_width(out, x)
    if is_float(dst):  # int -> float
        return arith.uitofp(out, x) if is_unsigned(src) else arith.sitofp(out, x)
    if is_float(src):  # float -> int: saturate, NaN -> 0
        lo, hi = (1 << (bit_width(dst) - 1)) * -1, 1 << (bit_width(dst) - 1)
        if is_unsigned(dst):
            lo, hi = 0, 1 << bit_width(dst)
        # Bounds are powers of two (or 0), exact in every float type.
        to_int = arith.fptoui if is_unsigned(dst) else arith.fptosi
        converted = to_int(out, x)
        result = _select(_cmp(src, "ge", x, scalar_const(src, float(hi))),
                         scalar_const(dst, hi - 1), converted)
        result = _select(_cmp(src, "le", x, scalar_const(src, float(lo))),
                         scalar_const(dst, lo), result)
        return _select(arith.cmpf(arith.CmpFPredicate.UNO, x, x), scalar_const(dst, 0), result)
    # int -> int
    if bit_width(dst) > bit_width(src):
        return arith.extui(out, x) if is_unsigned(src) else arith.extsi(out, x)
    if bit_width(dst) < bit_width(src):
        return arith.trunci(out, x)
    return x  # same width, other signedness: same bits


def _float_same_width(out: ir.Type, x: ir.Value) -> ir.Value:
    """f16 <-> bf16: through f32, which holds both exactly."""
    wide = arith.extf(ir.F32Type.get(), x)
    return arith.truncf(out, wide)


def convert(op) -> list[ir.Value]:
    src, dst = operand_element(op, 0), element_type(op.results[0].type)
    return [map_elements(op.results[0].type, [op.operands[0]],
                         lambda a: _convert_scalar(src, dst, a[0]))]


def bitcast_convert(op) -> list[ir.Value]:
    src, dst = operand_element(op, 0), element_type(op.results[0].type)
    if bit_width(src) != bit_width(dst):
        raise LoweringError(op, "jaxc-to-linalg: bitcast_convert between different widths is not lowered yet")
    return [map_elements(op.results[0].type, [op.operands[0]],
                         lambda a: arith.bitcast(signless(dst), a[0]))]


def stop_gradient(op) -> list[ir.Value]:
    return [op.operands[0]]


RULES: dict[str, Rule] = {name: _elementwise(rules) for name, rules in {**UNARY, **BINARY}.items()}
RULES.update({
    "jaxc.constant": constant,
    "jaxc.iota": iota,
    "jaxc.round": round_,
    "jaxc.compare": compare,
    "jaxc.select": select,
    "jaxc.clamp": clamp,
    "jaxc.convert": convert,
    "jaxc.bitcast_convert": bitcast_convert,
    "jaxc.stop_gradient": stop_gradient,
})
