"""Lowering rules for special functions, nextafter, bitcast_convert between
widths and random_bits.

Special functions are scalar approximations built from arith/math ops in the
body of one elementwise linalg.generic. f16 and bf16 are computed in f32
(`arith.extf`, then `arith.truncf`).

- `erf_inv`: Giles, "Approximating the erfinv function" (GPU Gems, 2010),
  single-precision polynomial in w = -log((1 - x)(1 + x)) (as XLA's f32
  ErfInv). f64 starts from the same formula evaluated in f64 and refines it by
  four Newton steps on erf(r) = |x| for |x| <= 0.5 and on
  log(erfc(r)) = log(1 - |x|) for |x| > 0.5 (1 - |x| is exact there). erf_inv(+-1)
  = +-inf, |x| > 1 and NaN give NaN, erf_inv(-0) = -0.
- `lgamma`: log|Gamma(x)| by the Lanczos approximation, g = 7, n = 9, for
  x >= 0.5; for x < 0.5 the reflection formula
  log|Gamma(x)| = log(pi) - log|sin(pi x)| - log|Gamma(1 - x)|, with sin on the
  exactly reduced fraction of |x|. Poles (0, -0, negative integers) and
  +-inf give +inf (as jax.lax.lgamma).
- `digamma`: for x < 0.5 the reflection psi(x) = psi(1 - x) - pi / tan(pi r),
  r = x - round(x) (exact); then the recurrence psi(x) = psi(x + 1) - 1/x
  shifts x to >= 10 (f64) or >= 6 (f32) and the asymptotic series
  log x - 1/(2x) - sum B_2k / (2k x^2k) finishes. Non-positive integers and
  -inf give NaN (as jax.lax.digamma); +inf gives +inf.
- `nextafter`: on the bit pattern (same-width integer +-1), as np.nextafter:
  NaN if either operand is NaN, rhs if lhs == rhs (so nextafter(0, -0) = -0),
  the smallest subnormal with rhs's sign if lhs is +-0. No flushing: the
  result's bits are computed as integers.
- `bitcast_convert` between widths: the wider element's bits split into the
  trailing dimension little-endian (element 0 is the low part), as
  lax.bitcast_convert_type and NumPy's `.view`; narrower -> wider is the
  inverse (a linalg.generic reducing over the trailing dimension with `or`).
- `random_bits`: JAX's partitionable threefry random bits
  (`jax._src.prng._threefry_random_bits_partitionable`, the default since
  jax_threefry_partitionable became True in JAX 0.5). For result element i
  (row-major flat index, a 64-bit counter split into hi and lo 32-bit words)
  (b1, b2) = threefry2x32(key[0], key[1], hi, lo); the result is
  `(b1 << 32) | b2` for 64 bits, `b1 ^ b2` for 32 bits and the low 8/16
  bits of `b1 ^ b2` for 8/16 bits.
"""
from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, math, tensor

from .. import linalg_ops as linalg
from . import elementwise
from .common import (
    LoweringError,
    bit_width,
    element_type,
    generic,
    identity_map,
    is_bool,
    is_float,
    loop_index,
    map_elements,
    projection_map,
    scalar_const,
    shape_of,
    signless,
)
from .random import _cipher

F = arith.CmpFPredicate
I = arith.CmpIPredicate


# --------------------------------------------------------------------------
# Scalar helpers
# --------------------------------------------------------------------------

def _c(t, v):
    return scalar_const(t, v)


def _poly(t, w, coefficients):
    """Horner: coefficients from the highest degree down."""
    p = _c(t, coefficients[0])
    for c in coefficients[1:]:
        p = arith.addf(_c(t, c), arith.mulf(p, w))
    return p


def _is_inf(x):
    return arith.cmpf(F.OEQ, math.absf(x), _c(x.type, float("inf")))


def _is_nan(x):
    return arith.cmpf(F.UNO, x, x)


def _unary_float(name: str, compute):
    """A rule applying compute(x) (on f32 or f64 scalars) elementwise; f16 and
    bf16 go through f32."""
    def rule(op, elements):
        t = elements[0]
        if not is_float(t):
            raise LoweringError(op, f"no lowering of '{op.name}' for {t} elements")

        def scalar(a):
            x = a[0]
            if bit_width(t) == 16:
                return arith.truncf(t, compute(arith.extf(ir.F32Type.get(), x)))
            return compute(x)
        return [map_elements(op.results[0].type, [op.operands[0]], scalar, elements)]
    rule.__name__ = name
    return rule


# --------------------------------------------------------------------------
# erf_inv
# --------------------------------------------------------------------------

# Giles (2010), single precision: w < 5 and w >= 5 branches.
_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                   0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erf_inv_giles(x):
    t = x.type
    one = _c(t, 1.0)
    w = arith.negf(math.log(arith.mulf(arith.subf(one, x), arith.addf(one, x))))
    central = _poly(t, arith.subf(w, _c(t, 2.5)), _ERFINV_CENTRAL)
    tail = _poly(t, arith.subf(math.sqrt(w), _c(t, 3.0)), _ERFINV_TAIL)
    p = arith.select(arith.cmpf(F.OLT, w, _c(t, 5.0)), central, tail)
    return arith.mulf(p, x)


def _erf_inv(x):
    t = x.type
    a = math.absf(x)
    one = _c(t, 1.0)
    r = _erf_inv_giles(a)
    if isinstance(t, ir.F64Type):
        # Newton on erf(r) = a; for a > 0.5 on log(erfc(r)) = log(1 - a), whose
        # derivative barely changes, so the tail converges from Giles' start.
        near_one = arith.cmpf(F.OGT, a, _c(t, 0.5))
        log_complement = math.log(arith.subf(one, a))  # 1 - a is exact for a >= 0.5
        scale = _c(t, pymath.sqrt(pymath.pi) / 2)
        for _ in range(4):
            erfc_r = math.erfc(r)
            tail = arith.mulf(arith.subf(log_complement, math.log(erfc_r)), erfc_r)
            residual = arith.select(near_one, tail, arith.subf(math.erf(r), a))
            r = arith.subf(r, arith.mulf(residual, arith.mulf(scale, math.exp(arith.mulf(r, r)))))
    r = arith.select(arith.cmpf(F.OEQ, a, one), _c(t, float("inf")), r)
    r = arith.select(arith.cmpf(F.OGT, a, one), _c(t, float("nan")), r)
    r = arith.select(_is_nan(x), x, r)
    return math.copysign(r, x)


# --------------------------------------------------------------------------
# lgamma
# --------------------------------------------------------------------------

LANCZOS_G = 7.0
LANCZOS_COEFFICIENTS = (
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma_lanczos(z):
    """log Gamma(z + 1) for z >= -0.5."""
    t = z.type
    s = _c(t, LANCZOS_COEFFICIENTS[0])
    for i, c in enumerate(LANCZOS_COEFFICIENTS[1:]):
        s = arith.addf(s, arith.divf(_c(t, c), arith.addf(z, _c(t, i + 1.0))))
    g_half = LANCZOS_G + 0.5
    tt = arith.addf(z, _c(t, g_half))
    log_t = arith.addf(_c(t, pymath.log(g_half)), math.log1p(arith.divf(z, _c(t, g_half))))
    # (z + 0.5) log t - t, as (z + 0.5 - t / log t) log t (no early overflow)
    main = arith.mulf(arith.subf(arith.addf(z, _c(t, 0.5)), arith.divf(tt, log_t)), log_t)
    return arith.addf(arith.addf(_c(t, 0.5 * pymath.log(2 * pymath.pi)), main), math.log(s))


def _lgamma(x):
    t = x.type
    one, half = _c(t, 1.0), _c(t, 0.5)
    reflect = arith.cmpf(F.OLT, x, half)
    z = arith.select(reflect, arith.negf(x), arith.subf(x, one))
    log_y = _lgamma_lanczos(z)
    a = math.absf(x)
    frac = arith.subf(a, math.floor(a))
    reduced = arith.select(arith.cmpf(F.OGT, frac, half), arith.subf(one, frac), frac)
    log_sin = math.log(math.sin(arith.mulf(_c(t, pymath.pi), reduced)))
    finite = arith.cmpf(F.OLT, math.absf(log_sin), _c(t, float("inf")))
    reflection = arith.select(
        finite, arith.subf(arith.subf(_c(t, pymath.log(pymath.pi)), log_sin), log_y),
        arith.negf(log_sin))
    result = arith.select(reflect, reflection, log_y)
    return arith.select(_is_inf(x), _c(t, float("inf")), result)


# --------------------------------------------------------------------------
# digamma
# --------------------------------------------------------------------------

# B_2k / (2k) for k = 1..7: 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma(x):
    t = x.type
    wide = isinstance(t, ir.F64Type)
    shift_to, terms = (10, 7) if wide else (6, 4)
    one, zero = _c(t, 1.0), _c(t, 0.0)
    reflect = arith.cmpf(F.OLT, x, _c(t, 0.5))
    r = arith.subf(x, math.round(x))  # exact; tan(pi x) = tan(pi r)
    reflection = arith.divf(_c(t, pymath.pi), math.tan(arith.mulf(_c(t, pymath.pi), r)))
    y = arith.select(reflect, arith.subf(one, x), x)
    acc = arith.select(reflect, arith.negf(reflection), zero)
    for _ in range(shift_to):
        small = arith.cmpf(F.OLT, y, _c(t, float(shift_to)))
        acc = arith.select(small, arith.subf(acc, arith.divf(one, y)), acc)
        y = arith.select(small, arith.addf(y, one), y)
    inv = arith.divf(one, y)
    inv2 = arith.mulf(inv, inv)
    series = _poly(t, inv2, list(reversed(_DIGAMMA_SERIES[:terms])) + [0.0])
    asymptotic = arith.subf(arith.subf(math.log(y), arith.mulf(_c(t, 0.5), inv)), series)
    result = arith.addf(acc, asymptotic)
    pole = arith.andi(arith.cmpf(F.OLE, x, zero), arith.cmpf(F.OEQ, x, math.floor(x)))
    result = arith.select(pole, _c(t, float("nan")), result)
    return arith.select(arith.cmpf(F.OEQ, x, _c(t, float("inf"))), x, result)


# --------------------------------------------------------------------------
# nextafter
# --------------------------------------------------------------------------

def nextafter(op, elements):
    t = elements[0]
    if not is_float(t):
        raise LoweringError(op, f"no lowering of '{op.name}' for {t} elements")
    width = bit_width(t)
    it = ir.IntegerType.get_signless(width)

    mantissa = {ir.F16Type: 10, ir.BF16Type: 7, ir.F32Type: 23, ir.F64Type: 52}[type(t)]
    inf_bits = ((1 << (width - 1)) - 1) >> mantissa << mantissa
    nan_bits = inf_bits | (1 << (mantissa - 1))

    def scalar(args):
        # All on the bits (no float compares: none can flush subnormals, and
        # bf16 compares crash the pinned LLVM's JIT).
        ia, ib = (arith.bitcast(it, v) for v in args)
        sign, one, zero = _c(it, 1 << (width - 1)), _c(it, 1), _c(it, 0)
        magnitude_mask = _c(it, (1 << (width - 1)) - 1)
        mag_a, mag_b = arith.andi(ia, magnitude_mask), arith.andi(ib, magnitude_mask)
        # Float order as signed integers: -magnitude for negative numbers.
        def ordered(bits, mag):
            negative = arith.cmpi(I.ne, arith.andi(bits, sign), zero)
            return arith.select(negative, arith.subi(zero, mag), mag)
        oa, ob = ordered(ia, mag_a), ordered(ib, mag_b)
        # Away from zero (bits + 1) when a > 0 and b > a, or a < 0 and b < a.
        away = arith.xori(arith.cmpi(I.sgt, oa, zero), arith.cmpi(I.slt, ob, oa))
        stepped = arith.select(away, arith.addi(ia, one), arith.subi(ia, one))
        from_zero = arith.ori(arith.andi(ib, sign), one)
        bits = arith.select(arith.cmpi(I.eq, mag_a, zero), from_zero, stepped)
        bits = arith.select(arith.cmpi(I.eq, oa, ob), ib, bits)  # a == b (0 == -0): b
        inf = _c(it, inf_bits)
        nan = arith.ori(arith.cmpi(I.ugt, mag_a, inf), arith.cmpi(I.ugt, mag_b, inf))
        bits = arith.select(nan, _c(it, nan_bits), bits)
        return arith.bitcast(signless(t), bits)
    return [map_elements(op.results[0].type, list(op.operands), scalar, elements)]


# --------------------------------------------------------------------------
# bitcast_convert
# --------------------------------------------------------------------------

def _to_bits(t, x):
    """A scalar of (original) type t as its signless integer bits."""
    return arith.bitcast(ir.IntegerType.get_signless(bit_width(t)), x) if is_float(t) else x


def _from_bits(t, x):
    return arith.bitcast(signless(t), x) if is_float(t) else x


def bitcast_convert(op, elements):
    src, dst = elements[0], element_type(op.results[0].type)
    if bit_width(src) == bit_width(dst):
        return elementwise.bitcast_convert(op, elements)
    if is_bool(src) or is_bool(dst):
        raise LoweringError(op, "jaxc-to-linalg: bitcast_convert of booleans between widths")
    x = op.operands[0]
    result_type = op.results[0].type
    sw, dw = bit_width(src), bit_width(dst)
    if sw > dw:  # split: result has a trailing dim of sw / dw
        rank = len(shape_of(result_type))
        wide = ir.IntegerType.get_signless(sw)
        narrow = ir.IntegerType.get_signless(dw)

        def body(a, _out):
            k = arith.index_cast(wide, loop_index(rank - 1))
            shifted = arith.shrui(_to_bits(src, a), arith.muli(k, _c(wide, dw)))
            return [_from_bits(dst, arith.trunci(narrow, shifted))]
        maps = [projection_map(rank, range(rank - 1)), identity_map(rank)]
        return generic([result_type], [x], maps, ["parallel"] * rank, body)
    # join: the operand's trailing dim of dw / sw becomes one element
    rank = len(shape_of(x))
    wide = ir.IntegerType.get_signless(dw)
    narrow = ir.IntegerType.get_signless(sw)
    int_type = ir.RankedTensorType.get(shape_of(result_type), wide)
    zero = linalg.fill(_c(wide, 0), outs=[tensor.empty(shape_of(result_type), wide)])

    def join(a, acc):
        k = arith.index_cast(wide, loop_index(rank - 1))
        part = arith.extui(wide, _to_bits(src, a))
        return [arith.ori(acc, arith.shli(part, arith.muli(k, _c(wide, sw))))]
    maps = [identity_map(rank), projection_map(rank, range(rank - 1))]
    (bits,) = generic([int_type], [x], maps, ["parallel"] * (rank - 1) + ["reduction"], join,
                      inits=[zero])
    if not is_float(dst):
        return [bits]
    return [map_elements(result_type, [bits], lambda a: _from_bits(dst, a[0]), [wide])]


# --------------------------------------------------------------------------
# random_bits
# --------------------------------------------------------------------------

def random_bits(op, elements):
    result_type = op.results[0].type
    t = element_type(result_type)
    width = bit_width(t)
    if width not in (8, 16, 32, 64):
        raise LoweringError(op, f"jaxc-to-linalg: random_bits of {t} elements")
    shape = shape_of(result_type)
    rank = len(shape)
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    key = op.operands[0]
    k0 = tensor.extract(key, [arith.constant(ir.IndexType.get(), 0)])
    k1 = tensor.extract(key, [arith.constant(ir.IndexType.get(), 1)])

    def body(_out):
        flat = _c(i64, 0)
        stride = 1
        for d in reversed(range(rank)):
            index = arith.index_cast(i64, loop_index(d))
            flat = arith.addi(flat, arith.muli(index, _c(i64, stride)))
            stride *= shape[d]
        hi = arith.trunci(i32, arith.shrui(flat, _c(i64, 32)))
        lo = arith.trunci(i32, flat)
        b1, b2 = _cipher(k0, k1, hi, lo)
        if width == 64:
            return [arith.ori(arith.shli(arith.extui(i64, b1), _c(i64, 32)), arith.extui(i64, b2))]
        mixed = arith.xori(b1, b2)
        if width == 32:
            return [mixed]
        return [arith.trunci(ir.IntegerType.get_signless(width), mixed)]
    return generic([result_type], [], [identity_map(rank)], ["parallel"] * rank, body)


RULES: dict = {
    "jaxc.erf_inv": _unary_float("erf_inv", _erf_inv),
    "jaxc.lgamma": _unary_float("lgamma", _lgamma),
    "jaxc.digamma": _unary_float("digamma", _digamma),
    "jaxc.nextafter": nextafter,
    "jaxc.bitcast_convert": bitcast_convert,
    "jaxc.random_bits": random_bits,
}
