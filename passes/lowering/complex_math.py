"""Complex elementary functions, computed on the real and imaginary parts.

The textbook formulas (asin z = -i log(iz + sqrt(1 - z^2)), ...) and the
complex dialect's polar forms overflow once |z| passes sqrt(max), lose the
digits of a small part or near a branch point, and turn infinities into
NaN. These rules compute each part with real arith/math ops instead, by the
algorithms of the libraries that get them right (x = re z, y = im z):

- asin, acos, asinh, acosh: Hull, Fairgrieve & Tang, "Implementing the
  complex arcsine and arccosine functions using exception handling" (ACM
  TOMS 1997), as XLA. With r = |z + 1|, s = |z - 1|, A = (r + s)/2:
  Re asin = atan2(x, sqrt(A^2 - x^2)), |Im asin| = log1p(A - 1 + sqrt((A - 1)(A + 1))),
  where A - 1 and A^2 - x^2 are rewritten free of cancellation (and of y^2
  underflow) on either side of |x| = 1; beyond sqrt(max)/8,
  |Im asin| = log 2 + log|z| and sqrt(A^2 - x^2) = |y|.
  acos shares the parts, asinh z = -i asin(iz), acosh z = +-i acos z.
- atanh, atan: Kahan's formulas, Re = log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4,
  Im = atan2(2y, (1 - |x|)(1 + |x|) - y^2) / 2; at |x| = 1 and small y the
  limit log(2/|y|)/2; beyond sqrt(max)/8, Re = x/|z|^2 and Im = +-pi/2.
  atan z = -i atanh(iz).
- sinh, cosh, sin, cos: sinh x cos y + i cosh x sin y (cosh x cos y +
  i sinh x sin y), with e^|x|/2 taken as two factors e^(|x|/2) where cosh x
  overflows but the product need not; sin z = -i sinh(iz), cos z = cosh(iz).
- exp2: 2^x (cos(y log 2) + i sin(y log 2)), 2^x exactly rather than
  e^(x log 2), and y log 2 in two f64 words (an FMA) so that the angle keeps
  its digits up to |y| ~ 1e15.
- log1p: arg = atan2(y, 1 + x); log|1 + z| = log1p(2x + x^2 + y^2)/2 where
  |1 + z| is near 1, with the sum in two words (exact squares by FMA, Knuth's
  TwoSum; in f64 for f32 parts) since it cancels near the circle |1 + z| = 1;
  elsewhere (near -1, far out) the log of a scaled hypot(1 + x, y).
- sqrt: Kahan's, t = sqrt((|x| + |z|)/2) (scaled at the ends of the range),
  then y/(2t) for the other part.

Special values are C99 Annex G's (NumPy's) with JAX's choices where the two
differ: the inverse functions and sqrt read the sign of y as `y < 0`, so a
-0 imaginary part is on the upper side of a branch cut (asin(2 - 0j) =
pi/2 + 1.317j, sqrt(-1 - 0j) = 1j, as JAX; C99 gives the lower side), and
atanh's real part takes its sign as `x >= 0`. Where JAX's own formulas
produce NaN or a number from a NaN or an infinite part that C99 does not
(sinh(inf + inf j), exp2(-inf), atanh(nan + nan j) = nan - pi/2 j, ...), the
C99 value is kept.

Every rule is straight-line code (selects, no branches) of about 40 to 90
scalar ops in the body of the op's elementwise linalg.generic. For example
jaxc.atanh on complex<f32> (abridged):

    ^bb0(%in: complex<f32>, %out: complex<f32>):
      %2 = complex.re %in : complex<f32>
      %3 = complex.im %in : complex<f32>
      %4 = math.absf %2 : f32
      %5 = math.absf %3 : f32
      %6 = arith.subf %cst_1, %4 : f32          // 1 - |x|
      ...
      %10 = arith.addf %9, %7 : f32             // (1 - |x|)^2 + y^2
      %11 = arith.divf %8, %10 : f32
      %12 = math.log1p %11 : f32                // 4 Re atanh z
      ...
      %25 = math.atan2 %21, %24 : f32           // 2 Im atanh z
      ...
      %29 = arith.ori %27, %28 : i1             // |z| >= 2^61: x/|z|^2 + i(+-pi/2)
      ...
      %56 = complex.create %54, %55 : complex<f32>
      linalg.yield %56 : complex<f32>
"""
from __future__ import annotations

import decimal
import math as pymath

import numpy as np
from mlir import ir
from mlir.dialects import arith, complex as cx, math

from .common import component, scalar_const

F = arith.CmpFPredicate


class _Real:
    """Builders for scalar arithmetic on one float type (the parts of a
    complex type), with its range constants; constants are made once per rule."""

    def __init__(self, t: ir.Type):
        self.t = t
        info = np.finfo(np.float64 if isinstance(t, ir.F64Type) else np.float32)
        self.max = float(info.max)
        self.eps = float(info.eps)
        self.max_exp = int(info.maxexp)  # 128 / 1024
        self.min_exp = int(info.minexp)  # -126 / -1022
        self.mant = int(info.nmant)  # 23 / 52
        # |z| at and above which the asymptotic forms replace the general
        # ones: squares and products of parts stay below max/32 under it.
        self.big = 2.0 ** (self.max_exp // 2 - 3)
        self._constants: dict[str, _V] = {}

    def c(self, value: float) -> "_V":
        key = float(value).hex()  # tells -0.0 from 0.0; one key for NaN
        if key not in self._constants:
            self._constants[key] = _V(self, scalar_const(self.t, float(value)))
        return self._constants[key]

    def v(self, value: ir.Value) -> "_V":
        return _V(self, value)


class _V:
    """A scalar float value with arithmetic operators (arith ops, no
    fast-math flags) and ordered comparisons."""
    __slots__ = ("r", "val")

    def __init__(self, r: _Real, val: ir.Value):
        self.r, self.val = r, val

    def _other(self, o) -> ir.Value:
        return o.val if isinstance(o, _V) else self.r.c(o).val

    def __add__(self, o): return _V(self.r, arith.addf(self.val, self._other(o)))
    def __radd__(self, o): return _V(self.r, arith.addf(self._other(o), self.val))
    def __sub__(self, o): return _V(self.r, arith.subf(self.val, self._other(o)))
    def __rsub__(self, o): return _V(self.r, arith.subf(self._other(o), self.val))
    def __mul__(self, o): return _V(self.r, arith.mulf(self.val, self._other(o)))
    def __rmul__(self, o): return _V(self.r, arith.mulf(self._other(o), self.val))
    def __truediv__(self, o): return _V(self.r, arith.divf(self.val, self._other(o)))
    def __rtruediv__(self, o): return _V(self.r, arith.divf(self._other(o), self.val))
    def __neg__(self): return _V(self.r, arith.negf(self.val))

    def _cmp(self, predicate, o) -> "_B":
        return _B(arith.cmpf(predicate, self.val, self._other(o)))

    def __lt__(self, o): return self._cmp(F.OLT, o)
    def __le__(self, o): return self._cmp(F.OLE, o)
    def __gt__(self, o): return self._cmp(F.OGT, o)
    def __ge__(self, o): return self._cmp(F.OGE, o)
    def eq(self, o): return self._cmp(F.OEQ, o)
    def ne(self, o): return self._cmp(F.UNE, o)

    def isnan(self) -> "_B":
        return _B(arith.cmpf(F.UNO, self.val, self.val))

    def isinf(self) -> "_B":
        return abs_(self).eq(pymath.inf)

    def isfinite(self) -> "_B":
        return abs_(self) < pymath.inf


class _B:
    """An i1 with the boolean operators."""
    __slots__ = ("val",)

    def __init__(self, val: ir.Value):
        self.val = val

    def __and__(self, o): return _B(arith.andi(self.val, o.val))
    def __or__(self, o): return _B(arith.ori(self.val, o.val))

    def __invert__(self):
        return _B(arith.xori(self.val, arith.constant(ir.IntegerType.get_signless(1), 1)))


def _unary(op):
    return lambda a: _V(a.r, op(a.val))


abs_, sqrt, log, log1p, exp, exp2, sin, cos, sinh, cosh = (_unary(op) for op in (
    math.absf, math.sqrt, math.log, math.log1p, math.exp, math.exp2, math.sin, math.cos, math.sinh,
    math.cosh))


def atan2(a: _V, b: _V) -> _V:
    return _V(a.r, math.atan2(a.val, b.val))


def copysign(a: _V, b: _V) -> _V:
    return _V(a.r, math.copysign(a.val, b.val))


def maxnum(a: _V, b: _V) -> _V:
    """The larger, ignoring a NaN operand."""
    return _V(a.r, arith.maxnumf(a.val, b.val))


def minimum(a: _V, b: _V) -> _V:
    """The smaller, NaN if either is NaN."""
    return _V(a.r, arith.minimumf(a.val, b.val))


def where(c: _B, a, b, r: _Real | None = None) -> _V:
    """a where c, else b (numbers become constants of a's, b's or r's type)."""
    r = a.r if isinstance(a, _V) else b.r if isinstance(b, _V) else r
    assert r is not None, "where of two numbers needs r"
    a = a if isinstance(a, _V) else r.c(a)
    b = b if isinstance(b, _V) else r.c(b)
    return _V(r, arith.select(c.val, a.val, b.val))


def _sign_if(negative: _B, a: _V) -> _V:
    """-a where `negative`, else a."""
    return where(negative, -a, a)


# --------------------------------------------------------------------------
# Real helpers
# --------------------------------------------------------------------------

def _hypot(a: _V, b: _V) -> _V:
    """sqrt(a^2 + b^2) for a, b >= 0 without overflow or underflow; inf if
    either is inf (even with a NaN), else NaN if either is NaN."""
    mx, mn = _V(a.r, arith.maximumf(a.val, b.val)), minimum(a, b)
    q = mn / mx
    h = where(mx.eq(0), mx, mx * sqrt(1 + q * q))
    return where(a.isinf() | b.isinf(), pymath.inf, h)


def _log_hypot(a: _V, b: _V) -> _V:
    """log(sqrt(a^2 + b^2)) for a, b >= 0, as log(max) + log1p((min/max)^2)/2:
    finite wherever the logarithm is, -inf at 0, inf if either is inf."""
    mx, mn = _V(a.r, arith.maximumf(a.val, b.val)), minimum(a, b)
    q = where(mx.eq(0) | mx.eq(pymath.inf), 0.0, mn / mx)
    h = log(mx) + 0.5 * log1p(q * q)
    return where(a.isinf() | b.isinf(), pymath.inf, h)


def _parts(z: ir.Value) -> tuple[_Real, _V, _V]:
    r = _Real(component(z.type))
    return r, r.v(cx.re(z)), r.v(cx.im(z))


def _create(t: ir.Type, re: _V, im: _V) -> ir.Value:
    return cx.create_(t, re.val, im.val)


# --------------------------------------------------------------------------
# asin, acos, asinh, acosh (Hull, Fairgrieve & Tang)
# --------------------------------------------------------------------------

def _asin_core(ax: _V, ay: _V) -> tuple[_V, _V]:
    """(D, L) for x = +-ax, y = +-ay: asin(x + iy) = atan2(x, D) +- i L and
    acos(x + iy) = atan2(D, x) -+ i L, with D = sqrt(A^2 - x^2) >= 0 and
    L = log(A + sqrt(A^2 - 1)) >= 0."""
    r_ = ax.r
    xp1, xm1 = ax + 1, ax - 1
    yy = ay * ay
    r = sqrt(xp1 * xp1 + yy)  # |z + 1|: xp1 >= 1, no underflow
    s = _hypot(abs_(xm1), ay)  # |z - 1|: both may be tiny
    a = 0.5 * (r + s)
    rpx = r + xp1
    # A - 1 = ((r - (x + 1)) + (s -+ (1 - x)))/2, with r - (x + 1) = y^2/(r + x + 1);
    # for x < 1 also s - (1 - x) = y^2/(s + 1 - x), and y is factored out of the
    # square root so that y^2 may underflow.
    c = 0.5 * (1 / rpx + 1 / (s - xm1))
    below = yy * c + ay * sqrt(c * (a + 1))
    am1 = 0.5 * (yy / rpx + (s + xm1))
    above = am1 + sqrt(am1 * (a + 1))
    l_general = log1p(where(ax < 1, below, above))
    # A^2 - x^2 = (A + x)(A - x), A - x = (y^2/(r + x + 1) + (s + 1 - x))/2 for x <= 1,
    # (y^2/(r + x + 1) + y^2/(s + x - 1))/2 for x > 1 (y out of the root again).
    apx = a + ax
    d_general = where(ax <= 1, sqrt(0.5 * apx * (yy / rpx + (s - xm1))),
                      ay * sqrt(0.5 * apx * (1 / rpx + 1 / (s + xm1))))
    # |z| >= big: A = |z| and A^2 - x^2 = y^2 to working precision. A NaN part
    # beside a big finite one makes L NaN (through min), beside an infinite one
    # L = inf (C99's asin(inf + nan j) = nan + inf j).
    large = (ax >= r_.big) | (ay >= r_.big)
    mx = maxnum(ax, ay)
    q = where(mx.eq(pymath.inf), 0.0, minimum(ax, ay) / mx)
    l_large = log(mx) + pymath.log(2.0) + 0.5 * log1p(q * q)
    return where(large, ay, d_general), where(large, l_large, l_general)


def asin(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    d, l = _asin_core(abs_(x), abs_(y))
    return _create(t, atan2(x, d), _sign_if(y < 0, l))


def acos(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    d, l = _asin_core(abs_(x), abs_(y))
    return _create(t, atan2(d, x), _sign_if(~(y < 0), l))


def asinh(t: ir.Type, z: ir.Value) -> ir.Value:
    """-i asin(iz), iz = -y + ix."""
    _, x, y = _parts(z)
    d, l = _asin_core(abs_(y), abs_(x))
    return _create(t, _sign_if(x < 0, l), atan2(y, d))


def acosh(t: ir.Type, z: ir.Value) -> ir.Value:
    """i acos z for y >= 0, -i acos z below: the real part is L >= 0."""
    _, x, y = _parts(z)
    d, l = _asin_core(abs_(x), abs_(y))
    return _create(t, l, _sign_if(y < 0, atan2(d, x)))


# --------------------------------------------------------------------------
# atanh, atan (Kahan)
# --------------------------------------------------------------------------

def _atanh_parts(x: _V, y: _V) -> tuple[_V, _V]:
    r_ = x.r
    ax, ay = abs_(x), abs_(y)
    omx = 1 - ax  # exact near |x| = 1
    yy = ay * ay
    re_general = 0.25 * log1p(4 * ax / (omx * omx + yy))
    # |x| = 1: log1p(4/y^2)/4 = log(2/|y|)/2 up to y^2/4 (y^2 may underflow);
    # inf at y = 0.
    at_one = ax.eq(1) & (ay < pymath.sqrt(r_.eps))
    re_general = where(at_one, 0.5 * (pymath.log(2.0) - log(ay)), re_general)
    im_general = 0.5 * atan2(2 * y, omx * (1 + ax) - yy)
    # |z| >= big: Re = |x|/|z|^2 (0 at infinity), Im = +-pi/2 (NaN if a part
    # is NaN, unless y is infinite: C99's atanh(nan + inf j) = 0 + pi/2 j).
    large = (ax >= r_.big) | (ay >= r_.big)
    mx = maxnum(ax, ay)
    q = minimum(ax, ay) / mx
    re_large = where(mx.eq(pymath.inf), 0.0, ax / mx / mx / (1 + q * q))
    im_large = where(y.isnan() | (x.isnan() & ~ay.eq(pymath.inf)), pymath.nan,
                     _sign_if(y < 0, r_.c(pymath.pi / 2)))
    # Re atanh(+-0 + iy) = 0 for every y (C99's atanh(0 + nan j) = 0 + nan j)
    re = where(large, re_large, where(ax.eq(0), 0.0, re_general))
    return where(x >= 0, re, -re), where(large, im_large, im_general)


def atanh(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    return _create(t, *_atanh_parts(x, y))


def atan(t: ir.Type, z: ir.Value) -> ir.Value:
    """-i atanh(iz), iz = -y + ix, rotated exactly (no complex product)."""
    _, x, y = _parts(z)
    re, im = _atanh_parts(-y, x)
    return _create(t, im, -re)


# --------------------------------------------------------------------------
# sinh, cosh, sin, cos, exp2
# --------------------------------------------------------------------------

def _scaled_exp(a: _V, cy: _V, sy: _V, exp_fn, threshold: float,
                direct: tuple[_V, _V]) -> tuple[_V, _V]:
    """(E cy, E sy) for E = exp_fn(a) where it overflows: E = e * e with
    e = exp_fn(a/2), multiplied in so that the products may stay finite;
    `direct` where a < threshold."""
    e = exp_fn(0.5 * a)
    large = a >= threshold
    return (where(large, e * cy * e, direct[0]), where(large, e * sy * e, direct[1]))


def _sinh_cosh(x: _V, y: _V, odd: bool) -> tuple[_V, _V]:
    """sinh(x + iy) (odd) or cosh(x + iy) with C99's special values."""
    r_ = x.r
    ax = abs_(x)
    cy, sy = cos(y), sin(y)
    sh, ch = sinh(x), cosh(x)
    # cosh x overflows (|x| > log max) before cosh x cos y must: there e^|x|/2
    # comes in as two factors e^(|x|/2), each multiplied in.
    half = copysign(r_.c(0.5), x)
    threshold = float(np.floor(np.log(r_.max)))
    if odd:
        direct = (sh * cy, ch * sy)
        re, im = _scaled_exp(ax, half * cy, 0.5 * sy, exp, threshold, direct)
        # sinh(x + 0i) = sinh x + 0i (x inf, NaN too); sinh(+-0 or +-inf + i inf or nan)
        # has real part +-0 or +-inf.
        wild = ~y.isfinite()
        re = where(wild & ax.eq(0), x, where(wild & ax.eq(pymath.inf), ax, re))
        im = where(y.eq(0), y, im)
    else:
        direct = (ch * cy, sh * sy)
        re, im = _scaled_exp(ax, 0.5 * cy, half * sy, exp, threshold, direct)
        # cosh(inf + i inf or nan) = inf + nan i; cosh(x + 0i) = cosh x + (sign x) 0i
        # (+0 for NaN x, as JAX); cosh(+-0 + i inf or nan) = nan + 0i.
        wild = ~y.isfinite()
        re = where(wild & ax.eq(pymath.inf), ax, re)
        im = where(y.eq(0), where(x.isnan(), 0.0, copysign(r_.c(1.0), x) * y),
                   where(wild & ax.eq(0), 0.0, im))
    return re, im


def sinh_(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    return _create(t, *_sinh_cosh(x, y, odd=True))


def cosh_(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    return _create(t, *_sinh_cosh(x, y, odd=False))


def sin_(t: ir.Type, z: ir.Value) -> ir.Value:
    """-i sinh(iz), iz = -y + ix."""
    _, x, y = _parts(z)
    re, im = _sinh_cosh(-y, x, odd=True)
    return _create(t, im, -re)


def cos_(t: ir.Type, z: ir.Value) -> ir.Value:
    """cosh(iz), iz = -y + ix."""
    _, x, y = _parts(z)
    return _create(t, *_sinh_cosh(-y, x, odd=False))


_LN2 = decimal.Decimal(2).ln(decimal.Context(prec=40))
_LN2_HI = float(_LN2)
_LN2_LO = float(_LN2 - decimal.Decimal(_LN2_HI))  # ln 2 = _LN2_HI + _LN2_LO to 2^-106


def _cis_y_ln2(r_: _Real, y: _V) -> tuple[_V, _V]:
    """(cos, sin) of y log 2 without the rounding of y log 2, which grows
    with |y|: y log 2 = hi + lo in two f64 words (an FMA; f32 parts widened),
    cos(hi + lo) = cos hi cos lo - sin hi sin lo."""
    narrow = not isinstance(r_.t, ir.F64Type)
    w = _Real(ir.F64Type.get()) if narrow else r_
    yw = w.v(arith.extf(w.t, y.val)) if narrow else y
    hi = yw * _LN2_HI
    lo = _V(w, math.fma(yw.val, w.c(_LN2_HI).val, (-hi).val)) + yw * _LN2_LO
    ch, sh, cl, sl = cos(hi), sin(hi), cos(lo), sin(lo)
    c, s = ch * cl - sh * sl, sh * cl + ch * sl
    if narrow:
        c, s = (r_.v(arith.truncf(r_.t, v.val)) for v in (c, s))
    return c, s


def exp2_(t: ir.Type, z: ir.Value) -> ir.Value:
    """2^x (cos(y log 2) + i sin(y log 2)), with cexp's special values."""
    r_, x, y = _parts(z)
    cy, sy = _cis_y_ln2(r_, y)
    p = exp2(x)
    re, im = _scaled_exp(x, cy, sy, exp2, float(r_.max_exp - 1), (p * cy, p * sy))
    wild = ~y.isfinite()
    re = where(wild & x.eq(pymath.inf), x, where(wild & x.eq(-pymath.inf), 0.0, re))
    im = where(y.eq(0), y, where(wild & x.eq(-pymath.inf), copysign(r_.c(0.0), y), im))
    return _create(t, re, im)


# --------------------------------------------------------------------------
# log1p, sqrt
# --------------------------------------------------------------------------

def _two_sum(a: _V, b: _V) -> tuple[_V, _V]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _square(a: _V) -> tuple[_V, _V]:
    """(h, l) with a^2 = h + l exactly (an FMA gives the rounding error)."""
    h = a * a
    return h, _V(a.r, math.fma(a.val, a.val, (-h).val))


def _two_word_sum(x: _V, y: _V) -> _V:
    """2x + x^2 + y^2 to about twice the working precision (f32 parts are
    summed in f64, where their squares are exact)."""
    r_ = x.r
    narrow = not isinstance(r_.t, ir.F64Type)
    if narrow:
        w = _Real(ir.F64Type.get())
        x, y = (w.v(arith.extf(w.t, v.val)) for v in (x, y))
    hx, lx = _square(x)
    hy, ly = _square(y)
    s1, e1 = _two_sum(2 * x, hx)
    s2, e2 = _two_sum(s1, hy)
    u = s2 + ((e1 + e2) + (lx + ly))
    return r_.v(arith.truncf(r_.t, u.val)) if narrow else u


def log1p_(t: ir.Type, z: ir.Value) -> ir.Value:
    _, x, y = _parts(z)
    xp1 = x + 1
    # |1 + z|^2 - 1 = 2x + x^2 + y^2: its log1p where |1 + z|^2 is in (1/2, 2),
    # exact for tiny z; the sum is carried in two words (the squares' rounding
    # errors, two TwoSums) because it cancels near the circle |1 + z| = 1.
    # Elsewhere log|1 + z| has no cancellation to fear. (A square below f64's
    # normal range is flushed: log1p(1e-306 + 1e-160j) loses its y^2/2.)
    u = _two_word_sum(x, y)
    near = (u > -0.5) & (u < 1)
    re = where(near, 0.5 * log1p(u), _log_hypot(abs_(xp1), abs_(y)))
    return _create(t, re, atan2(y, xp1))


def sqrt_(t: ir.Type, z: ir.Value) -> ir.Value:
    r_, x, y = _parts(z)
    ax, ay = abs_(x), abs_(y)
    mx = _V(r_, arith.maximumf(ax.val, ay.val))
    # scale by 4^k so that |x| + |z| neither overflows nor loses bits as a subnormal
    k_small = (r_.mant + 2) // 2 * 2
    large = mx >= 2.0 ** (r_.max_exp - 2)
    small = mx < 2.0 ** (r_.min_exp + k_small)
    scale = where(large, 0.25, where(small, 2.0 ** k_small, 1.0, r_))
    unscale = where(large, 2.0, where(small, 2.0 ** (-k_small // 2), 1.0, r_))
    sx, sy = ax * scale, ay * scale
    root = sqrt(0.5 * (sx + _hypot(sx, sy))) * unscale  # sqrt((|x| + |z|)/2)
    other = ay / (2 * root)
    re = where(x >= 0, root, other)
    im = where(x >= 0, other, root)
    # sqrt(+-0 +- 0i) = 0 + 0i (as JAX); sqrt(x +- inf i) = inf +- inf i for every x.
    re = where(root.eq(0), 0.0, re)
    im = where(root.eq(0), 0.0, _sign_if(y < 0, im))
    re = where(ay.eq(pymath.inf), pymath.inf, re)
    return _create(t, re, where(ay.eq(pymath.inf), y, im))


RULES = {
    "jaxc.asin": asin, "jaxc.acos": acos, "jaxc.asinh": asinh, "jaxc.acosh": acosh,
    "jaxc.atanh": atanh, "jaxc.atan": atan, "jaxc.sinh": sinh_, "jaxc.cosh": cosh_,
    "jaxc.sin": sin_, "jaxc.cos": cos_, "jaxc.exp2": exp2_, "jaxc.log1p": log1p_,
    "jaxc.sqrt": sqrt_,
}
"""jaxc op -> rule(t, z) building the complex result for a complex element z of type t."""
