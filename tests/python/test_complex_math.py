"""Complex elementary functions at special values and across the range
(passes/lowering/complex_math.py): sinh, cosh, sin, cos, asin, acos, asinh,
acosh, atan, atanh, log1p, exp2 and sqrt on complex64 and complex128.

- A grid of parts {+-0, +-tiny, +-0.5, +-1, +-2, +-1e10, +-big, +-inf, nan}
  (tiny = 1e-30 / 1e-300, big = 1e30 / 1e300), eagerly, under jit and as
  0-d arrays, against NumPy: finite results to a few ulp per part, zeros,
  infinities and NaNs exactly (signs included). The reference is NumPy's
  complex128 function (C99 Annex G) read with JAX's conventions where the
  two differ (see `_reference`); log1p and exp2, which NumPy computes as
  log(1 + z) and exp(z log 2), get exact references instead.
- Random inputs over the whole range and near the branch points, the unit
  circle and |1 + z| = 1, to a few ulp.
- The C99 table that the Array API conformance suite checks, exactly.
- JAX itself, where installed: the same values, except the documented places
  where JAX's own formulas lose the value or make a number from a NaN.
- Gradients of real(f(z)) against JAX.

Compiled CPU code flushes subnormals to zero (as XLA), so inputs stay normal
and references are flushed.
"""
from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from jnp_check import flushed

import jaxc
import jaxc.numpy as jnp

FUNCTIONS = ["sinh", "cosh", "sin", "cos", "arcsin", "arccos", "arcsinh", "arccosh",
             "arctan", "arctanh", "log1p", "exp2", "sqrt"]
DTYPES = [np.complex64, np.complex128]
# Largest error per part, in ulps of the reference part: ours (about 3 ulp at
# most) plus, for complex128, NumPy's own (glibc's casin is off by up to 3).
ULPS = {np.complex64: 4, np.complex128: 8}


def _part_dtype(dtype):
    return np.float32 if dtype == np.complex64 else np.float64


def _big_region(dtype) -> float:
    """|z| from which the inverse functions use their asymptotic forms
    (complex_math._Real.big)."""
    return 2.0 ** (np.finfo(_part_dtype(dtype)).maxexp // 2 - 3)


def _complex(re, im, dtype) -> np.ndarray:
    """Parts to complex without arithmetic (1j * inf and -0 + 0 lose signs)."""
    z = np.empty(np.broadcast(re, im).shape, dtype)
    z.real, z.imag = re, im
    return z


def grid(dtype) -> np.ndarray:
    tiny, big = (1e-30, 1e30) if dtype == np.complex64 else (1e-300, 1e300)
    values = [v * s for v in (0.0, tiny, 0.5, 1.0, 2.0, 1e10, big, np.inf) for s in (1, -1)] + [np.nan]
    re, im = np.meshgrid(values, values, indexing="ij")
    return _complex(re, im, dtype).ravel()


def random_points(dtype, n=300, seed=0) -> np.ndarray:
    """Log-uniform over the normal range, a box around 0, and points near +-1,
    +-i, the unit circle, the circle |1 + z| = 1 and the origin."""
    rng = np.random.default_rng(seed)
    part = _part_dtype(dtype)
    lo, hi = (-37, 38) if part == np.float32 else (-300, 307)
    sign = lambda: rng.choice([-1.0, 1.0], n)  # noqa: E731
    near = 10.0 ** rng.uniform(-12, -1, n) * sign()
    small = 10.0 ** rng.uniform(-30 if part == np.float32 else -200, -1, n) * sign()
    theta = rng.uniform(-np.pi, np.pi, n)
    points = [10.0 ** rng.uniform(lo, hi, n) * sign() + 1j * 10.0 ** rng.uniform(lo, hi, n) * sign(),
              rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n),
              sign() * (1 + near) + 1j * small, small + 1j * sign() * (1 + near),
              (1 + near) * np.exp(1j * theta), -1 + (1 + near) * np.exp(1j * theta),
              small * np.exp(1j * theta)]
    w = np.concatenate(points)
    return _complex(w.real.astype(part), w.imag.astype(part), dtype)


# -- references ------------------------------------------------------------------------

def _with_zero(a, sign):
    return np.where(a == 0, np.copysign(0.0, sign), a)


def _numpy_reference(name, z) -> np.ndarray:
    """NumPy's complex128 function, with JAX's reading of signed zeros: the
    inverse functions and sqrt take a -0 imaginary part as y >= 0 (the upper
    side of a branch cut), asinh and atanh give a -0 real part the sign of +0,
    atanh's pi/2 beyond `_big_region` takes the sign as y < 0 (so atan's the
    same of x), and atan gives +-0 imaginary parts the -0 of -i atanh(iz).
    NumPy (C99) reads the signs of zeros instead."""
    w = z.astype(np.complex128)
    x, y = w.real.copy(), w.imag.copy()
    large = np.maximum(np.abs(x), np.abs(y)) >= _big_region(z.dtype)
    if name in ("arcsin", "arccos", "arccosh", "sqrt"):
        y = _with_zero(y, 1.0)
    elif name == "arcsinh":
        x = _with_zero(x, 1.0)
    elif name == "arctanh":
        x = _with_zero(x, 1.0)
        y = np.where(large, _with_zero(y, 1.0), y)
    elif name == "arctan":
        y = _with_zero(y, -1.0)
        x = np.where(large, _with_zero(x, 1.0), x)
    with np.errstate(all="ignore"):
        out = getattr(np, name)(_complex(x, y, np.complex128))
    nan_part = np.isnan(x) | np.isnan(y)
    inf_part = np.isinf(x) | np.isinf(y)
    if name in ("arcsin", "arccos", "arcsinh", "arccosh"):
        # JAX: a NaN part beside a finite one gives NaN + NaN j throughout (C99
        # keeps asin(0 + nan j) = 0 + nan j, acos(0 + nan j) = pi/2 + nan j, ...).
        out = np.where(nan_part & ~inf_part, np.complex128(complex(np.nan, np.nan)), out)
    if name == "arctanh":
        # atanh(nan +- inf j) = +-0 + pi/2 j, sign unspecified by C99; JAX's is -0.
        out.real = np.where(np.isnan(x) & np.isinf(y), -0.0, out.real)
    if name in ("cosh", "cos"):
        # cosh(nan +- 0j) = nan +- 0j, sign unspecified by C99; JAX's is +0 (cos z = cosh(iz)).
        a, b = (x, y) if name == "cosh" else (-y, x)
        out.imag = np.where(np.isnan(a) & (b == 0), 0.0, out.imag)
    return out


def _log1p_reference(z) -> np.ndarray:
    """log|1 + z| from |1 + z|^2 - 1 = 2x + x^2 + y^2 summed exactly (NumPy's
    log(1 + z) loses it for small z and near the circle |1 + z| = 1)."""
    out = np.empty(z.shape, np.complex128)
    for k, w in enumerate(z.astype(np.complex128)):
        x, y = float(w.real), float(w.imag)
        if not (math.isfinite(x) and math.isfinite(y)):
            with np.errstate(all="ignore"):
                out[k] = np.log1p(w)
            continue
        if max(abs(x), abs(y)) > 1e100:
            re = math.log(math.hypot(1 + x, y))
        else:
            t = 2 * Fraction(x) + Fraction(x) ** 2 + Fraction(y) ** 2
            if abs(t) <= 0.5:
                re = 0.5 * math.log1p(float(t))
            elif float(1 + t) > 0:
                re = 0.5 * math.log(float(1 + t))
            else:  # |1 + z|^2 underflows: 1 + x is exact here
                re = math.log(math.hypot(1 + x, y)) if (1 + x, y) != (0, 0) else -math.inf
        out[k] = complex(re, math.atan2(y, 1 + x))
    return out


def _pi(context) -> decimal.Decimal:
    """pi = 16 atan(1/5) - 4 atan(1/239) (Machin) to the context's precision."""
    def atan_inverse(n):
        x = context.divide(1, n)
        term, total, k = x, x, 1
        while True:
            term = context.multiply(term, -x * x)
            k += 2
            step = context.divide(term, k)
            if step == 0 or abs(step) < decimal.Decimal(10) ** -(context.prec + 5):
                return total
            total = context.add(total, step)
    return context.subtract(context.multiply(16, atan_inverse(5)), context.multiply(4, atan_inverse(239)))


def _exp2_reference(z) -> np.ndarray:
    """2^x cis(y log 2) with y log 2 reduced in 400 digits (NumPy's
    exp(z log 2) rounds y log 2, which is wrong in every digit for |y| ~ 1e10)."""
    context = decimal.Context(prec=400)
    ln2, half_pi = decimal.Decimal(2).ln(context), context.divide(_pi(context), 2)
    out = np.empty(z.shape, np.complex128)
    for k, w in enumerate(z.astype(np.complex128)):
        x, y = float(w.real), float(w.imag)
        if not (math.isfinite(x) and math.isfinite(y)) or y == 0:
            with np.errstate(all="ignore"):
                out[k] = np.exp2(w)  # C99 cexp's special values; exact for real z
            continue
        theta = context.multiply(decimal.Decimal(y), ln2)
        quadrant = int(context.to_integral_value(context.divide(theta, half_pi)))
        r = float(context.subtract(theta, context.multiply(quadrant, half_pi)))
        c, s = [(math.cos(r), math.sin(r)), (-math.sin(r), math.cos(r)),
                (-math.cos(r), -math.sin(r)), (math.sin(r), -math.cos(r))][quadrant % 4]
        scale = math.inf if x >= 1024 else 2.0 ** x
        out[k] = complex(scale * c, scale * s)  # not a complex product: keep signs of zeros
    return out


def reference(name, z) -> np.ndarray:
    """The expected values of `name` at z as z's dtype, subnormals flushed."""
    if name == "log1p":
        out = _log1p_reference(z)
    elif name == "exp2":
        out = _exp2_reference(z)
    else:
        out = _numpy_reference(name, z)
    part = _part_dtype(z.dtype)
    with np.errstate(all="ignore"):
        return _complex(flushed(out.real.astype(part)), flushed(out.imag.astype(part)), z.dtype)


# C99 leaves these signs unspecified and NumPy (glibc) picks differently from
# the -i sinh(iz) that jaxc computes: sin(+-inf or nan +- inf j) = nan -+ inf j.
def _unspecified_sign(name, z):
    none = np.zeros(z.shape, bool)
    if name == "sin":
        return none, ~np.isfinite(z.real) & np.isinf(z.imag)
    return none, none


def ulp_errors(got, want, dtype, unspecified=None) -> np.ndarray:
    """Per element, the larger error of the two parts in ulps of `want`'s part;
    inf where a zero, infinity or NaN differs (the sign of zero and infinity
    included, except where `unspecified` masks a part)."""
    part = _part_dtype(dtype)
    tiny = float(np.finfo(part).tiny)
    errors = []
    masks = unspecified or (np.zeros(got.shape, bool),) * 2
    for g, w, free in ((got.real, want.real, masks[0]), (got.imag, want.imag, masks[1])):
        g, w = g.astype(np.float64), w.astype(np.float64)
        special = ~np.isfinite(w) | (w == 0)
        same_special = ((np.isnan(g) & np.isnan(w))
                        | ((g == w) & ((np.signbit(g) == np.signbit(w)) | free))
                        | (free & np.isinf(g) & np.isinf(w)))
        ulp = np.where(np.abs(w) < tiny, tiny, np.spacing(np.abs(w).astype(part)).astype(np.float64))
        with np.errstate(all="ignore"):
            finite = np.where(np.isfinite(g), np.abs(g - w) / ulp, np.inf)
        errors.append(np.where(special, np.where(same_special, 0.0, np.inf), finite))
    return np.maximum(*errors)


def _assert_within(name, z, got, want, ulps, what, unspecified=None):
    errors = ulp_errors(got, want, z.dtype, unspecified)
    bad = np.nonzero(~(errors <= ulps))[0]
    assert bad.size == 0, f"{name} {what}: {bad.size} of {z.size} off, e.g. " + "; ".join(
        f"{name}({z[k]!r}) = {got[k]!r}, expected {want[k]!r} ({errors[k]:.3g} ulp)" for k in bad[:6])


def _run(name, z):
    return np.asarray(getattr(jnp, name)(jnp.asarray(z)))


@pytest.fixture(params=DTYPES, ids=["complex64", "complex128"])
def dtype(request):
    if request.param == np.complex128:
        with jaxc.enable_x64():
            yield request.param
    else:
        yield request.param


# -- the grid and random inputs -------------------------------------------------------------

@pytest.mark.parametrize("name", FUNCTIONS)
def test_grid_against_numpy(name, dtype):
    z = grid(dtype)
    if name == "exp2":
        # |y| = 1e30 / 1e300: y log 2 needs more digits than two f64 words hold,
        # so only |exp2(z)| = 2^x is right there (NumPy's and JAX's no better).
        huge = np.isfinite(z.imag) & (np.abs(z.imag) > 1e15)
        moduli = np.abs(_run(name, z[huge]).astype(np.complex128))
        with np.errstate(over="ignore"):
            expected = np.exp2(z[huge].real.astype(_part_dtype(dtype)))
        np.testing.assert_allclose(moduli, expected, rtol=1e-6)
        z = z[~huge]
    want = reference(name, z)
    unspecified = _unspecified_sign(name, z)
    eager = _run(name, z)
    assert eager.dtype == dtype
    _assert_within(name, z, eager, want, ULPS[dtype], "eager", unspecified)
    jitted = np.asarray(jaxc.jit(getattr(jnp, name))(z.reshape(-1, z.size // 17 if z.size % 17 == 0 else 1))).ravel()
    _assert_within(name, z, jitted, want, ULPS[dtype], "under jit", unspecified)
    # 0-d operands: one element per kernel call
    picks = np.arange(0, z.size, 5)
    scalars = np.array([complex(getattr(jnp, name)(jnp.asarray(v))) for v in z[picks]], dtype)
    _assert_within(name, z[picks], scalars, want[picks], ULPS[dtype], "on 0-d arrays",
                   tuple(m[picks] for m in unspecified))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_random_against_numpy(name, dtype):
    z = random_points(dtype)
    if name == "exp2":  # beyond ~1e15 the f64 y log 2 in two words runs out of digits
        z = z[np.abs(z.imag) < 1e15]
    _assert_within(name, z, _run(name, z), reference(name, z), ULPS[dtype], "at random points")


# -- C99's special values (the Array API conformance table) -------------------------------------

INF, NAN, PI = math.inf, math.nan, math.pi
C99 = [
    # acos(+-0 + 0j) = pi/2 - 0j; acos(-inf + inf j) = 3pi/4 - inf j; acos(inf + inf j) = pi/4 - inf j;
    # acos(+-inf + nan j) = nan +- inf j (JAX: -inf); acos(nan + inf j) = nan - inf j
    ("arccos", (0.0, 0.0), (PI / 2, -0.0)), ("arccos", (-0.0, 0.0), (PI / 2, -0.0)),
    ("arccos", (-INF, INF), (3 * PI / 4, -INF)), ("arccos", (INF, INF), (PI / 4, -INF)),
    ("arccos", (INF, NAN), (NAN, -INF)), ("arccos", (-INF, NAN), (NAN, -INF)),
    ("arccos", (NAN, INF), (NAN, -INF)), ("arccos", (1.0, 0.0), (0.0, -0.0)),
    # acosh(-inf + inf j) = inf + 3pi/4 j; acosh(inf + inf j) = inf + pi/4 j;
    # acosh(+-inf + nan j) = inf + nan j; acosh(nan + inf j) = inf + nan j
    ("arccosh", (-INF, INF), (INF, 3 * PI / 4)), ("arccosh", (INF, INF), (INF, PI / 4)),
    ("arccosh", (INF, NAN), (INF, NAN)), ("arccosh", (-INF, NAN), (INF, NAN)),
    ("arccosh", (NAN, INF), (INF, NAN)), ("arccosh", (0.0, 0.0), (0.0, PI / 2)),
    ("arccosh", (1.0, 0.0), (0.0, 0.0)),
    # asinh(nan + inf j) = +-inf + nan j (JAX: +inf); asin(nan + inf j) = nan +- inf j
    ("arcsinh", (NAN, INF), (INF, NAN)), ("arcsinh", (INF, INF), (INF, PI / 4)),
    ("arcsinh", (0.0, 0.0), (0.0, 0.0)), ("arcsin", (NAN, INF), (NAN, INF)),
    ("arcsin", (INF, 0.0), (PI / 2, INF)), ("arcsin", (0.0, -0.0), (0.0, 0.0)),
    # atanh(1 + 0j) = inf + 0j; atanh(inf + inf j) = +0 + pi/2 j; atanh(nan + inf j) = +-0 + pi/2 j
    # (JAX: -0); atanh(+0 + nan j) = +0 + nan j; atanh(x + inf j) = +0 + pi/2 j
    ("arctanh", (1.0, 0.0), (INF, 0.0)), ("arctanh", (-1.0, 0.0), (-INF, 0.0)),
    ("arctanh", (INF, INF), (0.0, PI / 2)), ("arctanh", (NAN, INF), (-0.0, PI / 2)),
    ("arctanh", (0.0, NAN), (0.0, NAN)), ("arctanh", (1.0, INF), (0.0, PI / 2)),
    ("arctanh", (INF, 1.0), (0.0, PI / 2)), ("arctanh", (INF, NAN), (0.0, NAN)),
    ("arctan", (0.0, 1.0), (0.0, INF)), ("arctan", (INF, 1.0), (PI / 2, 0.0)),
    # cosh(inf + 0j) = inf + 0j; cosh(nan +- 0j) = nan + 0j (sign unspecified; JAX's +0);
    # sinh(inf + 0j) = inf + 0j; sinh(nan + 0j) = nan + 0j; the rest of C99's tables
    ("cosh", (INF, 0.0), (INF, 0.0)), ("cosh", (NAN, 0.0), (NAN, 0.0)), ("cosh", (NAN, -0.0), (NAN, 0.0)),
    ("cosh", (0.0, 0.0), (1.0, 0.0)), ("cosh", (0.0, INF), (NAN, 0.0)), ("cosh", (INF, INF), (INF, NAN)),
    ("cosh", (INF, NAN), (INF, NAN)), ("cosh", (1.0, INF), (NAN, NAN)), ("cosh", (NAN, 1.0), (NAN, NAN)),
    ("cosh", (INF, 1.0), (INF * math.cos(1.0), INF)), ("cosh", (-INF, 0.0), (INF, -0.0)),
    ("sinh", (INF, 0.0), (INF, 0.0)), ("sinh", (NAN, 0.0), (NAN, 0.0)), ("sinh", (0.0, 0.0), (0.0, 0.0)),
    ("sinh", (0.0, INF), (0.0, NAN)), ("sinh", (0.0, NAN), (0.0, NAN)), ("sinh", (INF, INF), (INF, NAN)),
    ("sinh", (INF, NAN), (INF, NAN)), ("sinh", (1.0, INF), (NAN, NAN)), ("sinh", (-INF, 2.0), (INF, INF)),
    ("sin", (0.0, INF), (0.0, INF)), ("cos", (0.0, INF), (INF, -0.0)), ("cos", (INF, 0.0), (NAN, 0.0)),
    # log1p(-1 + 0j) = -inf + 0j; log1p(-inf + inf j) = inf + 3pi/4 j; log1p(+-inf + nan j) = inf + nan j
    ("log1p", (-1.0, 0.0), (-INF, 0.0)), ("log1p", (-1.0, -0.0), (-INF, -0.0)),
    ("log1p", (-INF, INF), (INF, 3 * PI / 4)), ("log1p", (INF, NAN), (INF, NAN)),
    ("log1p", (NAN, INF), (INF, NAN)), ("log1p", (-INF, 1.0), (INF, PI)), ("log1p", (0.0, 0.0), (0.0, 0.0)),
    # exp2: cexp's table (JAX gives NaN for every infinite real part)
    ("exp2", (INF, 0.0), (INF, 0.0)), ("exp2", (-INF, 1.0), (0.0, 0.0)), ("exp2", (-INF, INF), (0.0, 0.0)),
    ("exp2", (INF, INF), (INF, NAN)), ("exp2", (NAN, 0.0), (NAN, 0.0)), ("exp2", (1.0, INF), (NAN, NAN)),
    # sqrt(x + inf j) = inf + inf j for every x; sqrt(-inf + y j) = +0 + inf j; sqrt(inf + nan j) = inf + nan j
    ("sqrt", (NAN, INF), (INF, INF)), ("sqrt", (1.0, -INF), (INF, -INF)), ("sqrt", (-INF, 1.0), (0.0, INF)),
    ("sqrt", (INF, NAN), (INF, NAN)), ("sqrt", (-INF, NAN), (NAN, INF)), ("sqrt", (-0.0, 0.0), (0.0, 0.0)),
    ("sqrt", (-4.0, 0.0), (0.0, 2.0)), ("sqrt", (-4.0, -0.0), (0.0, 2.0)),  # JAX: -0 as +0 (C99: -2j)
]


@pytest.mark.parametrize("name, z, expected", C99, ids=[f"{n}{z}" for n, z, _ in C99])
def test_c99_special_values(name, z, expected, dtype):
    zz = _complex(np.array([z[0]]), np.array([z[1]]), dtype)
    got = _run(name, zz)
    want = _complex(np.array([expected[0]]), np.array([expected[1]]), dtype)
    _assert_within(name, zz, got, want, 1, "special value")


def test_textbook_overflow_is_gone(dtype):
    """The formulas these replace overflow in z*z beyond sqrt(max) and lose
    small parts: asin(1e30j), asinh(1e20), acosh(1e20) are finite and right."""
    big = 1e30 if dtype == np.complex64 else 1e300
    z = np.array([big * 1j, big, -big, 3e-30 + 1e-30j], dtype)
    for name in ("arcsin", "arcsinh", "arccosh", "arctanh"):
        _assert_within(name, z, _run(name, z), reference(name, z), ULPS[dtype], "at large and small |z|")


# -- JAX --------------------------------------------------------------------------------------------

def _differs_from_jax_on_purpose(name, z, dtype):
    """Grid points where jaxc keeps C99's value or the accurate one and JAX
    does not, so that the comparison with JAX leaves them to the NumPy tests:
    - sinh, cosh, sin, cos, exp2: JAX computes (e^z -+ e^-z)/2 and e^(z log 2)
      with complex products, so zeros come out +0, inf * 0 becomes NaN,
      exp2(-inf) is NaN and small parts cancel (sinh(1e-30 + 0.5j) = 0.479j);
      only finite inputs and values compare, zeros unsigned.
    - asin, acos, asinh, acosh: a NaN part beside a big finite one gives JAX
      log(2|z|) for the other part (asin(1e30 + nan j) = nan + 69.8j): NaN here.
    - atan, atanh: JAX's NaN tests read a NaN part as negative and give +-pi/2
      for atanh(nan + nan j) and the like: NaN here (C99); at |x| = 1 with a
      tiny y JAX's (1 - |x|)^2 + y^2 underflows to inf: here log(2/|y|)/2.
    - log1p: log1p(-1 + 1e-30j) = -69.08 + pi/2 j (JAX -inf); inf/NaN mixes
      give C99's inf + nan j (JAX nan + nan j).
    - sqrt: inf/NaN mixes give C99's values (JAX nan + nan j)."""
    x, y = z.real, z.imag
    nan_part = np.isnan(x) | np.isnan(y)
    inf_part = np.isinf(x) | np.isinf(y)
    tiny = 1e-30 if dtype == np.complex64 else 1e-300
    if name in ("arcsin", "arccos", "arcsinh", "arccosh"):
        return nan_part & ~inf_part
    if name in ("arctanh", "arctan"):
        a, b = (x, y) if name == "arctanh" else (y, x)
        return nan_part | ((np.abs(a) == 1) & (np.abs(b) <= tiny) & (b != 0))
    if name == "log1p":
        return (nan_part & inf_part) | ((x == -1) & (np.abs(y) == tiny))
    if name == "sqrt":
        return nan_part & inf_part
    return ~np.isfinite(x) | ~np.isfinite(y)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_grid_against_jax(name, dtype):
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_numpy

    z = grid(dtype)
    with jax.enable_x64(dtype == np.complex128):
        theirs = np.asarray(getattr(jax_numpy, name)(z))
    ours = _run(name, z)
    keep = ~_differs_from_jax_on_purpose(name, z, dtype)
    part = _part_dtype(dtype)
    if name in ("sinh", "cosh", "sin", "cos", "exp2"):
        # finite values only, to JAX's accuracy (it cancels small parts), zeros unsigned
        keep &= np.isfinite(theirs.real) & np.isfinite(theirs.imag)
        if name == "exp2":  # JAX's e^(z log 2) rounds y log 2
            keep &= np.abs(z.imag) <= 2
        if name in ("sinh", "sin"):  # JAX's e^z - e^-z is 0 for tiny z
            keep &= np.abs(z) > 1e-3
        scale = np.maximum(np.abs(theirs[keep]), np.finfo(part).tiny)
        assert np.all(np.abs(ours[keep] - theirs[keep]) <= 8 * np.finfo(part).eps * scale), name
        return
    unsigned = (np.zeros(z.shape, bool),) * 2
    _assert_within(name, z[keep], ours[keep], theirs[keep], ULPS[dtype], "against JAX",
                   tuple(m[keep] for m in unsigned))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients_match_jax(name):
    jax = pytest.importorskip("jax")
    import jax.numpy as jax_numpy

    with jaxc.enable_x64(), jax.enable_x64(True):
        for z in (0.3 + 0.4j, -1.2 + 0.7j, 2.5 - 0.5j):
            ours = complex(jaxc.grad(lambda w: jnp.real(getattr(jnp, name)(w)))(jnp.asarray(z)))
            theirs = complex(jax.grad(lambda w: jax_numpy.real(getattr(jax_numpy, name)(w)))(z))
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14, err_msg=f"{name} at {z}")
