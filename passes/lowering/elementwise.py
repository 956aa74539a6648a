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

import ctypes
import functools
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, complex as cx, math, scf

from . import complex_math
from .common import (
    LoweringError,
    Rule,
    bit_width,
    component,
    element_type,
    empty,
    filled,
    generic,
    identity_map,
    is_bool,
    is_complex,
    is_float,
    is_unsigned,
    kind,
    loop_index,
    map_elements,
    scalar_const,
    shape_of,
    signless,
)


def scalar_rule(scalar_rules: dict[str, Callable[..., ir.Value]], t: ir.Type) -> Callable[..., ir.Value] | None:
    """The rule of an op's table (UNARY or BINARY entry) for elements of
    type `t`: the one for its kind, else the one for "any"; None if neither."""
    return scalar_rules.get(kind(t)) or scalar_rules.get("any")


def _elementwise(scalar_rules: dict[str, Callable[..., ir.Value]]) -> Rule:
    """A rule applying `scalar_rules[kind]` (kind of the first operand) per element."""
    def rule(op: ir.OpView, elements: Sequence[ir.Type]) -> list[ir.Value]:
        t = elements[0]
        fn = scalar_rule(scalar_rules, t)
        if fn is None:
            raise LoweringError(op, f"no lowering of '{op.name}' for {t} elements")
        result_type = op.results[0].type
        return [map_elements(result_type, list(op.operands), lambda a: fn(t, *a), elements)]
    return rule


# --------------------------------------------------------------------------
# Scalar helpers (t is the original element type, values are signless)
# --------------------------------------------------------------------------

def _cmp(t: ir.Type, direction: str, a: ir.Value, b: ir.Value) -> ir.Value:
    """Compare by jaxc direction: ordered float compares (une for ne);
    complex numbers in lexicographic order (real part, then imaginary), as JAX."""
    if is_complex(t):
        return _complex_cmp(t, direction, a, b)
    if is_float(t):
        predicate = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt",
                     "ge": "oge"}[direction]
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate.upper()), a, b)
    prefix = "u" if is_unsigned(t) else "s"
    predicate = direction if direction in ("eq", "ne") else prefix + direction
    return arith.cmpi(getattr(arith.CmpIPredicate, predicate), a, b)


def _complex_mul(t: ir.Type, a: ir.Value, b: ir.Value) -> ir.Value:
    """(ac - bd) + (ad + bc)i, XLA's product (complex.mul would add C99's
    inf/NaN recovery: several times the code in every loop that multiplies)."""
    ar, ai, br, bi = cx.re(a), cx.im(a), cx.re(b), cx.im(b)
    return cx.create_(t, arith.subf(arith.mulf(ar, br), arith.mulf(ai, bi)),
                      arith.addf(arith.mulf(ar, bi), arith.mulf(ai, br)))


def _complex_cmp(t: ir.Type, direction: str, a: ir.Value, b: ir.Value) -> ir.Value:
    """a < b  <=>  re(a) < re(b), or re(a) == re(b) and im(a) < im(b) (likewise le, gt, ge)."""
    if direction in ("eq", "ne"):
        return cx.eq(a, b) if direction == "eq" else cx.neq(a, b)
    part = component(t)
    ra, rb, ia, ib = cx.re(a), cx.re(b), cx.im(a), cx.im(b)
    strict = {"lt": "lt", "le": "lt", "gt": "gt", "ge": "gt"}[direction]
    return arith.ori(_cmp(part, strict, ra, rb),
                     arith.andi(_cmp(part, "eq", ra, rb), _cmp(part, direction, ia, ib)))


def _complex_max(t, a, b, direction):
    """JAX's lexicographic max (direction "gt") or min ("lt") of complex
    numbers: a where a > b (a < b), else b; so a NaN operand gives the other."""
    return _select(_complex_cmp(t, direction, a, b), a, b)


def _select(c, a, b):
    return arith.select(c, a, b)


def _nonzero_divisor(t, b) -> tuple[ir.Value, ir.Value]:
    """(b == 0, b with 0 replaced by 1): integer division must not trap."""
    divisor_is_zero = arith.cmpi(arith.CmpIPredicate.eq, b, scalar_const(t, 0))
    return divisor_is_zero, _select(divisor_is_zero, scalar_const(t, 1), b)


def _div(t, a, b):
    if is_complex(t):
        return cx.div(a, b)  # Smith's algorithm (convert-complex-to-standard)
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


# Complex elementary functions without a usable complex-dialect op: each part
# by the robust algorithms of complex_math (Hull et al.'s asin, Kahan's atanh
# and sqrt, C99's special values), op name -> rule(t, z).
COMPLEX_UNARY = complex_math.RULES


def _inexact(real_fn, complex_fn) -> dict:
    """math.X on floats, complex.X on complex elements."""
    return {"float": lambda t, *a: real_fn(*a), "complex": lambda t, *a: complex_fn(*a)}


UNARY = {
    "jaxc.neg": {"float": lambda t, x: arith.negf(x), "complex": lambda t, x: cx.neg(x),
                 "signed": lambda t, x: arith.subi(scalar_const(t, 0), x),
                 "unsigned": lambda t, x: arith.subi(scalar_const(t, 0), x)},
    "jaxc.abs": {"float": lambda t, x: math.absf(x), "complex": lambda t, x: cx.abs(x),
                 "signed": lambda t, x: math.absi(x),
                 "unsigned": lambda t, x: x},
    "jaxc.sign": {"complex": lambda t, x: cx.sign(x), "any": _sign},
    "jaxc.conj": {"complex": lambda t, x: cx.conj(x)},
    "jaxc.real": {"complex": lambda t, x: cx.re(x)},
    "jaxc.imag": {"complex": lambda t, x: cx.im(x)},
    "jaxc.exp": _inexact(math.exp, cx.exp),
    "jaxc.exp2": {"float": lambda t, x: math.exp2(x), "complex": COMPLEX_UNARY["jaxc.exp2"]},
    "jaxc.expm1": _inexact(math.expm1, cx.expm1),
    "jaxc.log": _inexact(math.log, cx.log),
    "jaxc.log1p": {"float": lambda t, x: math.log1p(x), "complex": COMPLEX_UNARY["jaxc.log1p"]},
    "jaxc.sin": {"float": lambda t, x: math.sin(x), "complex": COMPLEX_UNARY["jaxc.sin"]},
    "jaxc.cos": {"float": lambda t, x: math.cos(x), "complex": COMPLEX_UNARY["jaxc.cos"]},
    "jaxc.tan": _inexact(math.tan, cx.tan),
    "jaxc.asin": {"float": lambda t, x: math.asin(x), "complex": COMPLEX_UNARY["jaxc.asin"]},
    "jaxc.acos": {"float": lambda t, x: math.acos(x), "complex": COMPLEX_UNARY["jaxc.acos"]},
    "jaxc.atan": {"float": lambda t, x: math.atan(x), "complex": COMPLEX_UNARY["jaxc.atan"]},
    "jaxc.sinh": {"float": lambda t, x: math.sinh(x), "complex": COMPLEX_UNARY["jaxc.sinh"]},
    "jaxc.cosh": {"float": lambda t, x: math.cosh(x), "complex": COMPLEX_UNARY["jaxc.cosh"]},
    "jaxc.tanh": _inexact(math.tanh, cx.tanh),
    "jaxc.asinh": {"float": lambda t, x: math.asinh(x), "complex": COMPLEX_UNARY["jaxc.asinh"]},
    "jaxc.acosh": {"float": lambda t, x: math.acosh(x), "complex": COMPLEX_UNARY["jaxc.acosh"]},
    "jaxc.atanh": {"float": lambda t, x: math.atanh(x), "complex": COMPLEX_UNARY["jaxc.atanh"]},
    "jaxc.logistic": {"float": _logistic},
    "jaxc.sqrt": {"float": lambda t, x: math.sqrt(x), "complex": COMPLEX_UNARY["jaxc.sqrt"]},
    "jaxc.rsqrt": _inexact(math.rsqrt, cx.rsqrt),
    "jaxc.cbrt": _float_only(math.cbrt),
    "jaxc.floor": _float_only(math.floor),
    "jaxc.ceil": _float_only(math.ceil),
    "jaxc.erf": _float_only(math.erf),
    # |x| < inf (ordered: false for NaN), not math.isfinite: its LLVM lowering
    # (llvm.intr.is.fpclass) takes no 2-D vector, which a scheduled kernel has
    "jaxc.is_finite": {"float": lambda t, x: arith.cmpf(arith.CmpFPredicate.OLT, math.absf(x),
                                                        scalar_const(t, float("inf")))},
    "jaxc.not": {"any": lambda t, x: arith.xori(x, scalar_const(t, -1))},
    "jaxc.population_count": {"signed": lambda t, x: math.ctpop(x),
                              "unsigned": lambda t, x: math.ctpop(x)},
    "jaxc.clz": {"signed": lambda t, x: math.ctlz(x), "unsigned": lambda t, x: math.ctlz(x)},
}

BINARY = {
    "jaxc.add": {"float": lambda t, a, b: arith.addf(a, b), "complex": lambda t, a, b: cx.add(a, b),
                 "bool": lambda t, a, b: arith.ori(a, b),
                 "signed": lambda t, a, b: arith.addi(a, b), "unsigned": lambda t, a, b: arith.addi(a, b)},
    "jaxc.sub": {"float": lambda t, a, b: arith.subf(a, b), "complex": lambda t, a, b: cx.sub(a, b),
                 "signed": lambda t, a, b: arith.subi(a, b), "unsigned": lambda t, a, b: arith.subi(a, b)},
    "jaxc.mul": {"float": lambda t, a, b: arith.mulf(a, b), "complex": lambda t, a, b: _complex_mul(t, a, b),
                 "bool": lambda t, a, b: arith.andi(a, b),
                 "signed": lambda t, a, b: arith.muli(a, b), "unsigned": lambda t, a, b: arith.muli(a, b)},
    "jaxc.div": {"any": _div},
    "jaxc.rem": {"any": _rem},
    "jaxc.pow": {"float": lambda t, a, b: math.powf(a, b), "complex": lambda t, a, b: cx.pow(a, b),
                 "signed": lambda t, a, b: _int_pow(t, a, b),
                 "unsigned": lambda t, a, b: _int_pow(t, a, b)},
    "jaxc.max": {"float": lambda t, a, b: arith.maximumf(a, b),
                 "complex": lambda t, a, b: _complex_max(t, a, b, "gt"), "bool": lambda t, a, b: arith.ori(a, b),
                 "signed": lambda t, a, b: arith.maxsi(a, b), "unsigned": lambda t, a, b: arith.maxui(a, b)},
    "jaxc.min": {"float": lambda t, a, b: arith.minimumf(a, b),
                 "complex": lambda t, a, b: _complex_max(t, a, b, "lt"), "bool": lambda t, a, b: arith.andi(a, b),
                 "signed": lambda t, a, b: arith.minsi(a, b), "unsigned": lambda t, a, b: arith.minui(a, b)},
    "jaxc.atan2": {"float": lambda t, a, b: math.atan2(a, b)},
    "jaxc.complex": {"float": lambda t, a, b: cx.create_(ir.ComplexType.get(t), a, b)},
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


def constant(op, elements) -> list[ir.Value]:
    """jaxc.constant -> arith.constant on the signless type (same bits)."""
    result_type = signless(op.results[0].type)
    if 0 in shape_of(result_type):  # no elements: nothing to read from the attribute (the
        # bindings cannot even wrap a complex one)
        return [empty(shape_of(result_type), element_type(op.results[0].type))]
    if is_complex(element_type(result_type)):
        return [_complex_constant_value(op)]
    value = op.attributes["value"]
    dense = ir.DenseElementsAttr(value)
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


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


@functools.lru_cache(maxsize=None)
def _dense_attribute_api() -> tuple:
    """The MLIR C API functions that read a dense attribute's raw data (set up once)."""
    from jaxc import dialect

    lib = dialect.library()
    get_attribute = lib.mlirOperationGetAttributeByName
    get_attribute.restype, get_attribute.argtypes = ctypes.c_void_p, [ctypes.c_void_p, _StringRef]
    raw_data = lib.mlirDenseElementsAttrGetRawData
    raw_data.restype, raw_data.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
    is_splat = lib.mlirDenseElementsAttrIsSplat
    is_splat.restype, is_splat.argtypes = ctypes.c_bool, [ctypes.c_void_p]
    capsule = ctypes.pythonapi.PyCapsule_GetPointer
    capsule.restype, capsule.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_attribute, raw_data, is_splat, capsule


def _complex_constant(op) -> np.ndarray:
    """The elements of a complex jaxc.constant as a NumPy array.

    The bindings cannot hand out a complex DenseElementsAttr (reading
    `op.attributes["value"]` raises "Can't cast unknown element type"), so the
    raw data is read through the MLIR C API (`mlirDenseElementsAttrGetRawData`)."""
    get_attribute, raw_data, is_splat, capsule = _dense_attribute_api()
    attribute = get_attribute(capsule(op.operation._CAPIPtr, b"mlir.ir.Operation._CAPIPtr"),
                              _StringRef(b"value", 5))
    result_type = op.results[0].type
    dtype = np.complex64 if bit_width(element_type(result_type)) == 64 else np.complex128
    shape = shape_of(result_type)
    count = 1 if is_splat(attribute) else int(np.prod(shape))
    buffer = (ctypes.c_char * (count * np.dtype(dtype).itemsize)).from_address(raw_data(attribute))
    values = np.frombuffer(bytes(buffer), dtype=dtype)
    return np.broadcast_to(values[0], shape) if count == 1 else values.reshape(shape)


def _complex_constant_value(op) -> ir.Value:
    """A complex constant as complex.create of two real constants, e.g.

        jaxc.constant dense<(1.0, 2.0)> : tensor<4xcomplex<f32>>
      ->
        linalg.generic ins(%re, %im : tensor<4xf32>, tensor<4xf32>) { complex.create ... }
    """
    values = _complex_constant(op)
    result_type = op.results[0].type
    t = element_type(result_type)
    part = component(t)
    part_type = ir.RankedTensorType.get(shape_of(result_type), part)
    parts = []
    for array in (np.ascontiguousarray(values.real), np.ascontiguousarray(values.imag)):
        if array.size > _SPLAT_FILL_THRESHOLD and (array == array.flat[0]).all():
            parts.append(filled(shape_of(result_type), part, scalar_const(part, float(array.flat[0]))))
        else:
            parts.append(arith.constant(part_type, ir.DenseElementsAttr.get(array, type=part_type)))
    return map_elements(result_type, parts, lambda a: cx.create_(t, a[0], a[1]), [part, part])


def iota(op, elements) -> list[ir.Value]:
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


def round_(op, elements) -> list[ir.Value]:
    method = ir.IntegerAttr(op.attributes["rounding_method"]).value if "rounding_method" in op.attributes else 0
    fn = math.roundeven if method == 1 else math.round
    return [map_elements(op.results[0].type, [op.operands[0]], lambda a: fn(a[0]), elements)]


def compare(op, elements) -> list[ir.Value]:
    direction = ["eq", "ne", "lt", "le", "gt", "ge"][ir.IntegerAttr(op.attributes["comparison_direction"]).value]
    t = elements[0]
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: _cmp(t, direction, a[0], a[1]), elements)]


def select(op, elements) -> list[ir.Value]:
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: arith.select(a[0], a[1], a[2]), elements)]


def clamp(op, elements) -> list[ir.Value]:
    """clamp(lo, x, hi) = min(max(x, lo), hi), NaN-propagating for floats."""
    t = elements[1]
    max_fn, min_fn = BINARY["jaxc.max"][kind(t)], BINARY["jaxc.min"][kind(t)]
    return [map_elements(op.results[0].type, list(op.operands),
                         lambda a: min_fn(t, max_fn(t, a[1], a[0]), a[2]), elements)]


def _convert_scalar(src: ir.Type, dst: ir.Type, x: ir.Value) -> ir.Value:
    """One element from `src` to `dst` with XLA's conversion semantics."""
    out = signless(dst)
    if src == dst:
        return x
    if is_complex(src) or is_complex(dst):
        return _convert_complex(src, dst, x)
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


def _convert_complex(src: ir.Type, dst: ir.Type, x: ir.Value) -> ir.Value:
    """Conversions to or from complex: a real becomes re + 0i; a complex
    becomes its real part (as `lax.convert_element_type`), or x != 0 for bool."""
    if is_complex(src) and is_complex(dst):
        parts = [_convert_scalar(component(src), component(dst), part(x)) for part in (cx.re, cx.im)]
        return cx.create_(dst, *parts)
    if is_complex(src):
        if is_bool(dst):
            return cx.neq(x, scalar_const(src, 0))
        return _convert_scalar(component(src), dst, cx.re(x))
    real = _convert_scalar(src, component(dst), x)
    return cx.create_(dst, real, scalar_const(component(dst), 0.0))


def _float_same_width(out: ir.Type, x: ir.Value) -> ir.Value:
    """f16 <-> bf16: through f32, which holds both exactly."""
    wide = arith.extf(ir.F32Type.get(), x)
    return arith.truncf(out, wide)


def convert(op, elements) -> list[ir.Value]:
    src, dst = elements[0], element_type(op.results[0].type)
    return [map_elements(op.results[0].type, [op.operands[0]],
                         lambda a: _convert_scalar(src, dst, a[0]), elements)]


def bitcast_convert(op, elements) -> list[ir.Value]:
    src, dst = elements[0], element_type(op.results[0].type)
    if bit_width(src) != bit_width(dst):
        raise LoweringError(op, "jaxc-to-linalg: bitcast_convert between different widths is not lowered yet")
    return [map_elements(op.results[0].type, [op.operands[0]],
                         lambda a: arith.bitcast(signless(dst), a[0]), elements)]


def identity(op, elements) -> list[ir.Value]:
    """stop_gradient, checkpoint_name, pvary: the operand itself."""
    return [op.operands[0]]


def optimization_barrier(op, elements) -> list[ir.Value]:
    """Each operand copied into a tensor of its own: an allocation, which CSE
    never merges and fusion never looks through, so nothing computed from
    the results is merged with what is computed from the operands.

        %a = jaxc.optimization_barrier %x : tensor<4xf32>
      ->
        %a = bufferization.alloc_tensor() copy(%x) : tensor<4xf32>
    """
    from mlir.dialects import bufferization
    return [bufferization.AllocTensorOp(v.type, [], copy=v).result for v in op.operands]


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
    "jaxc.stop_gradient": identity,
    "jaxc.checkpoint_name": identity,
    "jaxc.pvary": identity,  # a type change only (passes/infer_vma.py)
    "jaxc.optimization_barrier": optimization_barrier,
})
