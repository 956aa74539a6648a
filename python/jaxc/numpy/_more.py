"""More `jaxc.numpy` functions (issue #17, jax.numpy breadth): differences
and cumulative sums, splitting helpers, polynomials, 1-d convolution,
covariance, set membership and sorted search, interpolation, window
functions, dtype predicates and the integer/float helpers gcd, lcm, ldexp,
frexp and spacing.

Everything is built from existing jnp and lax operations with JAX's dtype
rules (float32/int32 defaults, weak Python scalars). Shapes, axes and
orders (``n``, ``m``, ``N``, ``M``) are static; a traced one is a
ConcretizationTypeError, as in JAX. Complex-only functions (jaxc has no
complex dtype yet) and functions whose output shape depends on values are
not here: docs/frontend.md lists them.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from . import _creation, _elementwise as _ew, _linalg, _reductions, _shape
from ._shape import _static_int
from ._util import (
    asarray,
    broadcast_shapes,
    broadcast_to,
    canonicalize_axis,
    promote_args,
    promote_dtypes,
    promote_dtypes_inexact,
)

__all__ = [
    "diff", "ediff1d", "append", "unstack", "hsplit", "vsplit", "dsplit", "cumulative_sum",
    "cumulative_prod", "nan_to_num", "select", "trapezoid", "polyval", "polyadd", "polysub", "polymul",
    "polyder", "polyint", "vander", "convolve", "correlate", "cov", "corrcoef", "isin", "searchsorted",
    "digitize", "interp", "rollaxis", "matvec", "vecmat", "hamming", "hanning", "bartlett", "blackman",
    "can_cast", "isdtype", "isscalar", "iterable", "isreal", "iscomplex", "isrealobj", "iscomplexobj",
    "gcd", "lcm", "ldexp", "frexp", "spacing", "bincount", "histogram", "histogram_bin_edges",
]


def _const(x: Any, value: Any) -> Any:
    """`value` as a 0-d constant of x's dtype, broadcast to x's shape."""
    return lax.full_like(x, value)


def _slice(x: Any, start: int, stop: int | None, axis: int) -> Any:
    n = x.shape[axis]
    start, stop, _ = slice(start, stop).indices(n)
    return lax.slice_in_dim(x, start, max(start, stop), 1, axis)


def _take1d(x: Any, index: Any) -> Any:
    """x[index] for a 1-d `x` and an integer array `index` within bounds."""
    return _shape.take(x, index, mode="clip")


# ---------------------------------------------------------------------------
# Differences, appending, cumulative sums
# ---------------------------------------------------------------------------

def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The n-th discrete difference along `axis` (``a[1:] - a[:-1]``, n
    times); bools give ``a[1:] != a[:-1]``. `prepend`/`append` values (a
    scalar is broadcast) are joined to `a` along `axis` first."""
    arr = asarray(a, fn="diff")
    n = _static_int(n, "n", "diff")
    axis = _static_int(axis, "axis", "diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if arr.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, arr.ndim, "diff")
    parts = [arr]
    for where, extra in ((0, prepend), (None, append)):
        if extra is None:
            continue
        extra = asarray(extra, fn="diff")
        if extra.ndim == 0:
            shape = list(arr.shape)
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape), "diff")
        parts.insert(0 if where == 0 else len(parts), extra)
    if len(parts) > 1:
        arr = _shape.concatenate(parts, axis)
    op = lax.ne if arr.dtype == np.bool_ else lax.sub
    for _ in range(n):
        arr = op(_slice(arr, 1, None, axis), _slice(arr, 0, -1, axis))
    return arr


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """Differences of consecutive elements of the flattened `ary`, with
    `to_begin`/`to_end` (cast to ary's dtype) joined at the ends."""
    arr = _shape.ravel(asarray(ary, fn="ediff1d"))
    result = lax.sub(_slice(arr, 1, None, 0), _slice(arr, 0, -1, 0))
    if to_begin is not None:
        begin = _shape.ravel(lax.convert_element_type(asarray(to_begin, fn="ediff1d"), arr.dtype))
        result = _shape.concatenate([begin, result])
    if to_end is not None:
        end = _shape.ravel(lax.convert_element_type(asarray(to_end, fn="ediff1d"), arr.dtype))
        result = _shape.concatenate([result, end])
    return result


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """`values` joined to the end of `arr` (both flattened when axis is None)."""
    if axis is None:
        return _shape.concatenate([_shape.ravel(asarray(arr, fn="append")),
                                   _shape.ravel(asarray(values, fn="append"))], 0)
    return _shape.concatenate([asarray(arr, fn="append"), asarray(values, fn="append")], axis)


def _cumulative(name: str, fn: Any, identity: int, x: Any, axis: Any, dtype: Any,
                include_initial: bool) -> Any:
    x = asarray(x, fn=name)
    if x.ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a {name.replace('_', ' ')}, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        axis = 0
        if x.ndim > 1:
            raise ValueError(f"The input array has rank {x.ndim}, however axis was not set to an explicit "
                             "value. The axis argument is only optional for one-dimensional arrays.")
    axis = canonicalize_axis(axis, x.ndim, name)
    out = fn(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = lax.concatenate([lax.full(tuple(shape), identity, out.dtype), out], axis)
    return out


def cumulative_sum(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Any:
    """Array API running sum along `axis` (optional only for 1-d input);
    `include_initial` starts the result with a 0. Without `dtype`, bools and
    narrow ints sum in the default (unsigned) int, as `sum` and JAX's."""
    if dtype is None:
        dtype = _reductions.promote_integer(asarray(x, fn="cumulative_sum").dtype)
    return _cumulative("cumulative_sum", _reductions.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Any:
    """Array API running product along `axis` (optional only for 1-d input);
    `include_initial` starts the result with a 1."""
    return _cumulative("cumulative_prod", _reductions.cumprod, 1, x, axis, dtype, include_initial)


def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    """NaN -> `nan`, +inf -> `posinf` (default the largest finite value),
    -inf -> `neginf` (default the most negative); ints and bools unchanged."""
    del copy
    x = asarray(x, fn="nan_to_num")
    if not dtypes.is_float(x.dtype):
        return x
    info = dtypes.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf

    def fill(value: Any) -> Any:
        return broadcast_to(asarray(value, x.dtype, "nan_to_num"), x.shape, "nan_to_num")
    out = lax.select(lax.ne(x, x), fill(nan), x)
    out = lax.select(lax.eq(out, _const(out, np.inf)), fill(posinf), out)
    return lax.select(lax.eq(out, _const(out, -np.inf)), fill(neginf), out)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """The element of the first `choicelist` entry whose condition holds,
    else `default` (everything broadcast together)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    conds = [asarray(c, fn="select") for c in condlist]
    conds = [c if c.dtype == np.bool_ else lax.ne(c, _const(c, 0)) for c in conds]
    choices = promote_dtypes("select", default, *choicelist)
    shape = broadcast_shapes("select", *[c.shape for c in conds], *[c.shape for c in choices])
    result = broadcast_to(choices[0], shape, "select")
    for cond, choice in reversed(list(zip(conds, choices[1:]))):
        result = lax.select(broadcast_to(cond, shape, "select"), broadcast_to(choice, shape, "select"), result)
    return result


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """Integral of `y` along `axis` by the trapezoidal rule, with sample
    points `x` (1-d, or y's shape) or a spacing `dx`."""
    axis = _static_int(axis, "axis", "trapezoid")
    if x is None:
        (y_arr,) = promote_dtypes_inexact("trapezoid", asarray(y, fn="trapezoid"))
        dx_arr = asarray(dx, fn="trapezoid")
        if dx_arr.ndim > 0:
            dx_arr = lax.reshape(dx_arr, (1,) * (y_arr.ndim - dx_arr.ndim) + dx_arr.shape)
            dx_arr = _shape.moveaxis(dx_arr, axis, -1)
    else:
        y_arr, x_arr = promote_dtypes_inexact("trapezoid", asarray(y, fn="trapezoid"),
                                              asarray(x, fn="trapezoid"))
        if x_arr.ndim == 1:
            dx_arr = diff(x_arr)
        else:
            dx_arr = _shape.moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = _shape.moveaxis(y_arr, axis, -1)
    if dx_arr.ndim == 0 or dx_arr.shape[-1] == 1:
        step = dx_arr if dx_arr.ndim == 0 else lax.index_in_dim(dx_arr, 0, dx_arr.ndim - 1, False)
        ends = _ew.add(_slice(y_arr, 0, 1, -1 % y_arr.ndim), _slice(y_arr, -1, None, -1 % y_arr.ndim))
        inner = _ew.subtract(_reductions.sum(y_arr, -1), _ew.multiply(0.5, lax.squeeze(ends, (y_arr.ndim - 1,))))
        return _ew.multiply(step, inner)
    last = y_arr.ndim - 1
    pairs = _ew.add(_slice(y_arr, 1, None, last), _slice(y_arr, 0, -1, last))
    return _ew.multiply(0.5, _reductions.sum(_ew.multiply(dx_arr, pairs), -1))


# ---------------------------------------------------------------------------
# Splitting, stacking, axes, vector products
# ---------------------------------------------------------------------------

def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `x` along `axis`, as a tuple."""
    x = asarray(x, fn="unstack")
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = canonicalize_axis(axis, x.ndim, "unstack")
    return tuple(lax.index_in_dim(x, i, axis, False) for i in range(x.shape[axis]))


def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """`split` along axis 1 (axis 0 for 1-d input)."""
    a = asarray(ary, fn="hsplit")
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return _shape.split(a, indices_or_sections, axis=0 if a.ndim == 1 else 1)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """`split` along axis 0 (2-d or more)."""
    a = asarray(ary, fn="vsplit")
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _shape.split(a, indices_or_sections, axis=0)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """`split` along axis 2 (3-d or more)."""
    a = asarray(ary, fn="dsplit")
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _shape.split(a, indices_or_sections, axis=2)


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Move `axis` so that it comes before position `start` (NumPy's older
    form of `moveaxis`)."""
    a = asarray(a, fn="rollaxis")
    start = _static_int(start, "start", "rollaxis")
    axis = canonicalize_axis(axis, a.ndim, "rollaxis")
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"start={start} must satisfy {-a.ndim}<=start<={a.ndim}")
    if start < 0:
        start += a.ndim
    if start > axis:
        start -= 1
    return _shape.moveaxis(a, axis, start)


def matvec(x1: Any, x2: Any, /) -> Any:
    """Matrix-vector products over broadcast batch dimensions:
    (..., n, m) and (..., m) -> (..., n)."""
    x1, x2 = asarray(x1, fn="matvec"), asarray(x2, fn="matvec")
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"jnp.matvec: x1 must be at least 2-d and x2 at least 1-d, got shapes "
                         f"{x1.shape} and {x2.shape}")
    return lax.squeeze(_linalg.matmul(x1, _shape.expand_dims(x2, -1)), (-1 % (max(x1.ndim, x2.ndim + 1)),))


def vecmat(x1: Any, x2: Any, /) -> Any:
    """Vector-matrix products over broadcast batch dimensions:
    (..., n) and (..., n, m) -> (..., m)."""
    x1, x2 = asarray(x1, fn="vecmat"), asarray(x2, fn="vecmat")
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"jnp.vecmat: x1 must be at least 1-d and x2 at least 2-d, got shapes "
                         f"{x1.shape} and {x2.shape}")
    out = _linalg.matmul(_shape.expand_dims(x1, -2), x2)
    return lax.squeeze(out, (out.ndim - 2,))


# ---------------------------------------------------------------------------
# Polynomials
# ---------------------------------------------------------------------------

def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """The polynomial with coefficients `p` (highest power first, along
    p's first axis) at `x`, by Horner's rule; `unroll` is accepted for JAX
    compatibility."""
    del unroll
    p_arr, x_arr = promote_dtypes("polyval", asarray(p, fn="polyval"), asarray(x, fn="polyval"))
    if p_arr.ndim == 0:
        raise ValueError("jnp.polyval: p must be at least 1-d (the coefficients along axis 0)")
    shape = broadcast_shapes("polyval", p_arr.shape[1:], x_arr.shape)
    y = lax.full(shape, 0, x_arr.dtype)
    y = lax._with_weak(y, x_arr.weak_type) if y.weak_type != x_arr.weak_type else y
    for i in range(p_arr.shape[0]):
        y = _ew.add(_ew.multiply(y, x_arr), lax.index_in_dim(p_arr, i, 0, False))
    return y


def polyadd(a1: Any, a2: Any) -> Any:
    """The sum of two polynomials (coefficient arrays, highest power first)."""
    a1, a2 = promote_dtypes("polyadd", asarray(a1, fn="polyadd"), asarray(a2, fn="polyadd"))
    if a2.shape[0] > a1.shape[0]:
        a1, a2 = a2, a1
    pad = [(a1.shape[0] - a2.shape[0], 0, 0)] + [(0, 0, 0)] * (a2.ndim - 1)
    return lax.add(a1, lax.pad(a2, lax.full((), 0, a2.dtype), pad))


def polysub(a1: Any, a2: Any) -> Any:
    """The difference of two polynomials."""
    a1, a2 = promote_dtypes("polysub", asarray(a1, fn="polysub"), asarray(a2, fn="polysub"))
    return polyadd(a1, _ew.negative(a2))


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """The product of two polynomials (a full convolution, in floats).
    `trim_leading_zeros` needs concrete coefficients, as in JAX."""
    a1, a2 = promote_dtypes_inexact("polymul", asarray(a1, fn="polymul"), asarray(a2, fn="polymul"))
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = _trim_front_zeros(a1), _trim_front_zeros(a2)
    if a1.shape[0] == 0:
        a1 = lax.full((1,), 0, a2.dtype)
    if a2.shape[0] == 0:
        a2 = lax.full((1,), 0, a1.dtype)
    return convolve(a1, a2, mode="full")


def _trim_front_zeros(a: Any) -> Any:
    if isinstance(a, core.Tracer):
        raise core.ConcretizationTypeError(a, "trim_leading_zeros=True of jnp.polymul")
    values = np.asarray(a)
    nonzero = np.flatnonzero(values)
    return _slice(a, int(nonzero[0]) if nonzero.size else a.shape[0], None, 0)


def _falling_products(count: int, m: int, start: int) -> np.ndarray:
    """prod_{j<m} (k - j) for k in [start, start + count), as a constant."""
    k = np.arange(start, start + count, dtype=np.float64)[None, :] - np.arange(m, dtype=np.float64)[:, None]
    return np.prod(k, axis=0)


def polyder(p: Any, m: int = 1) -> Any:
    """The m-th derivative of the polynomial `p`."""
    (p_arr,) = promote_dtypes_inexact("polyder", asarray(p, fn="polyder"))
    m = _static_int(m, "m", "polyder")
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p_arr
    n = p_arr.shape[0]
    coeff = _falling_products(max(n - m, 0), m, m)[::-1]
    return lax.mul(_slice(p_arr, 0, -m, 0), lax.constant(coeff.astype(p_arr.dtype)))


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The m-th antiderivative of the polynomial `p`; `k` are the
    integration constants (a scalar or m of them, lowest order last)."""
    m = _static_int(m, "m", "polyint")
    p_arr, k_arr = promote_dtypes_inexact("polyint", asarray(p, fn="polyint"),
                                          asarray(0 if k is None else k, fn="polyint"))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = _shape.atleast_1d(k_arr)
    if k_arr.shape[0] == 1:
        k_arr = broadcast_to(lax.reshape(k_arr, ()), (m,), "polyint")
    if k_arr.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p_arr
    n = p_arr.shape[0] + m
    grid = np.arange(n, dtype=np.float64)[None, :] - np.arange(m, dtype=np.float64)[:, None]
    coeff = np.maximum(1, grid).prod(0)[::-1]
    joined = _shape.concatenate([p_arr, k_arr])
    return lax.div(joined, lax.constant(coeff.astype(p_arr.dtype)))


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """The Vandermonde matrix of the 1-d `x`: columns x**(N-1), ..., x**0
    (reversed when `increasing`)."""
    x = asarray(x, fn="vander")
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else _static_int(N, "N", "vander")
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = np.arange(N) if increasing else np.arange(N)[::-1] + 0
    exps = lax.constant(powers.astype(x.dtype))
    base = lax.broadcast_in_dim(x, (x.shape[0], N), (0,))
    exps = lax.broadcast_in_dim(exps, (x.shape[0], N), (1,))
    if x.dtype == np.bool_:
        return lax.bitwise_or(base, lax.eq(exps, _const(exps, False)))
    return lax.pow(base, exps)


# ---------------------------------------------------------------------------
# Convolution and statistics
# ---------------------------------------------------------------------------

def _conv(x: Any, y: Any, mode: str, op: str, precision: Any, preferred_element_type: Any) -> Any:
    x, y = asarray(x, fn=op), asarray(y, fn=op)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = promote_dtypes_inexact(op, x, y)
    else:
        x, y = promote_dtypes(op, x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse_out = False
    if op == "correlate":
        if dtypes.is_complex(y.dtype):  # c[k] = sum_n a[n + k] conj(v[n]), as NumPy
            y = lax.conj(y)
        if x.shape[0] < y.shape[0]:
            x, y = y, x
            reverse_out = True
    else:
        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = lax.rev(y, (0,))
    k = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(k // 2, k - k // 2 - 1)]
    elif mode == "full":
        padding = [(k - 1, k - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = lax.conv_general_dilated(lax.reshape(x, (1, 1, x.shape[0])), lax.reshape(y, (1, 1, k)), (1,),
                                   padding, precision=precision,
                                   preferred_element_type=preferred_element_type)
    out = lax.reshape(out, (out.shape[-1],))
    return lax.rev(out, (0,)) if reverse_out else out


def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Any:
    """The discrete linear convolution of two 1-d arrays (mode 'full',
    'same' or 'valid'); ints and bools compute in the default float unless
    `preferred_element_type` is given."""
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """The cross-correlation of two 1-d arrays (mode 'valid', 'same' or 'full')."""
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)


def _check_inexact_dtype(dtype: Any, fn: str) -> None:
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"{fn}: dtype must be a subclass of float or complex; got dtype={dtype}")


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:
    """The covariance matrix of the variables in the rows of `m` (columns
    when not `rowvar`), with NumPy's ddof/bias and frequency/analytic weights."""
    if y is not None:
        m, y = promote_dtypes_inexact("cov", asarray(m, fn="cov"), asarray(y, fn="cov"))
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        (m,) = promote_dtypes_inexact("cov", asarray(m, fn="cov"))
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    _check_inexact_dtype(dtype, "cov")
    X = _shape.atleast_2d(m)
    if not rowvar and m.ndim != 1:
        X = _shape.transpose(X)
    if X.shape[0] == 0:
        return lax.full((0, 0), 0, dtypes.default_float())
    if y is not None:
        y_arr = _shape.atleast_2d(y)
        if not rowvar and y_arr.shape[0] != 1:
            y_arr = _shape.transpose(y_arr)
        X = _shape.concatenate([X, y_arr], axis=0)
    if X.shape[1] == 0:
        shape = () if X.shape[0] == 1 else (X.shape[0], X.shape[0])
        return lax.full(shape, np.nan, X.dtype)
    if ddof is None:
        ddof = 1 if not bias else 0
    w = None
    if fweights is not None:
        fweights = asarray(fweights, fn="cov")
        if fweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if not dtypes.is_int(fweights.dtype):
            raise TypeError("fweights must be integer.")
        w = _ew.abs(fweights)
    if aweights is not None:
        aweights = asarray(aweights, fn="cov")
        if aweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        aweights = _ew.abs(aweights)
        w = aweights if w is None else _ew.multiply(w, aweights)
    if dtype is not None:
        X = lax.convert_element_type(X, dtypes.canonicalize(dtype))
        w = lax.convert_element_type(w, dtypes.canonicalize(dtype)) if w is not None else None
    avg, w_sum = _reductions.average(X, axis=1, weights=w, returned=True)
    w_sum = lax.index_in_dim(w_sum, 0, 0, False)
    if w is None:
        f = X.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = _ew.subtract(w_sum, ddof)
    else:
        f = _ew.subtract(w_sum, _ew.divide(_ew.multiply(ddof, _reductions.sum(_ew.multiply(w, aweights))),
                                           w_sum))
    X = _ew.subtract(X, _shape.expand_dims(avg, 1))
    X_T = _shape.transpose(X if w is None else _ew.multiply(X, w))
    if dtypes.is_complex(X_T.dtype):
        X_T = lax.conj(X_T)
    return _shape.squeeze(_ew.true_divide(_linalg.dot(X, X_T), f))


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    """Pearson correlation coefficients (the covariance normalized by the
    standard deviations), clipped to [-1, 1]."""
    _check_inexact_dtype(dtype, "corrcoef")
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _ew.divide(c, c)
    d = _ew.real(_linalg.diagonal(c))
    stddev = _ew.sqrt(d)
    c = _ew.divide(_ew.divide(c, _shape.expand_dims(stddev, 1)), _shape.expand_dims(stddev, 0))
    if dtypes.is_complex(c.dtype):  # each part clipped, as NumPy
        return lax.complex(_ew.clip(_ew.real(c), -1, 1), _ew.clip(_ew.imag(c), -1, 1))
    return _ew.clip(c, -1, 1)


# ---------------------------------------------------------------------------
# Membership, sorted search, interpolation
# ---------------------------------------------------------------------------

def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto") -> Any:
    """Whether each element of `element` occurs in `test_elements` (the
    negation when `invert`); the result has element's shape."""
    del assume_unique
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"jnp.isin: method={method!r} is not one of 'auto', 'compare_all', "
                         "'binary_search', 'sort'")
    element, tests = promote_dtypes("isin", asarray(element, fn="isin"), asarray(test_elements, fn="isin"))
    tests = _shape.ravel(tests)
    shape = element.shape + (tests.shape[0],)
    eq = lax.eq(lax.broadcast_in_dim(element, shape, tuple(range(element.ndim))),
                lax.broadcast_in_dim(tests, shape, (element.ndim,)))
    found = lax.reduce_or(eq, (element.ndim,))
    return lax.bitwise_not(found) if invert else found


def _total_less(a: Any, b: Any) -> Any:
    """a < b with NaN above everything (the order `sort` uses)."""
    less = lax.lt(a, b)
    if dtypes.is_float(a.dtype):
        less = lax.bitwise_or(less, lax.bitwise_and(lax.ne(b, b), lax.eq(a, a)))
    return less


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan") -> Any:
    """Where to insert `v` into the sorted 1-d `a` to keep it sorted: the
    first such index (side='left') or the last (side='right'). NaNs sort
    last. `method` is accepted for JAX compatibility.

    A branchless binary search that carries one index per query: with
    2^k > len(a), the answer (how many of `a` lie before `v`) is built
    bit by bit from the highest, ``base += step`` when ``a[base + step - 1]``
    still lies before `v`. Each step is a gather, a compare and a select
    of the step before's only result, so the whole search fuses into one
    loop over the queries; a search carrying (lo, hi) shares both between
    the next step's two updates, and its steps stayed separate kernels
    with their masks in memory (2x JAX)."""
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of ['left', 'right'].")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"jnp.searchsorted: invalid method={method!r} (one of 'scan', 'scan_unrolled', "
                         "'sort', 'compare_all')")
    a = asarray(a, fn="searchsorted")
    v = asarray(v, fn="searchsorted")
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = promote_dtypes("searchsorted", a, v)
    if sorter is not None:
        a = _take1d(a, asarray(sorter, fn="searchsorted"))
    index_dtype = dtypes.default_int()
    n = a.shape[0]
    base = lax.full(v.shape, 0, index_dtype)
    last = lax.full(v.shape, n, index_dtype)
    for bit in reversed(range(n.bit_length())):
        step = lax.full(v.shape, 1 << bit, index_dtype)
        candidate = lax.add(base, step)  # a[candidate - 1] is the last element it would count
        pivot = _take1d(a, lax.sub(candidate, lax.full(v.shape, 1, index_dtype)))  # (clipped past the end)
        # left: count a[i] < v; right: count a[i] <= v (not v < a[i])
        before = _total_less(pivot, v) if side == "left" else lax.bitwise_not(_total_less(v, pivot))
        base = lax.select(lax.bitwise_and(lax.le(candidate, last), before), candidate, base)
    return base


def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """The index of the bin of each `x` for monotonic `bins` (increasing or
    decreasing), NumPy's convention for `right`."""
    x = asarray(x, fn="digitize")
    bins_arr = asarray(bins, fn="digitize")
    if isinstance(right, core.Tracer):
        raise core.ConcretizationTypeError(right, "the right argument of jnp.digitize")
    if bins_arr.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins_arr.shape[0] == 0:
        return lax.full(x.shape, 0, np.int32)
    side = "right" if not right else "left"
    kwargs = {} if method is None else {"method": method}
    increasing = searchsorted(bins_arr, x, side=side, **kwargs)
    decreasing = lax.sub(lax.full_like(increasing, bins_arr.shape[0]),
                         searchsorted(lax.rev(bins_arr, (0,)), x, side=side, **kwargs))
    first = lax.index_in_dim(bins_arr, 0, 0, False)
    last = lax.index_in_dim(bins_arr, bins_arr.shape[0] - 1, 0, False)
    return _ew.where(lax.ge(last, first), increasing, decreasing)


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Any:
    """Piecewise-linear interpolation of the points (xp, fp) (xp increasing)
    at `x`; `left`/`right` are the values outside [xp[0], xp[-1]] (default
    fp[0], fp[-1]; 'extrapolate' extends the end segments); `period` makes
    the coordinates periodic."""
    x, xp, fp = asarray(x, fn="interp"), asarray(xp, fn="interp"), asarray(fp, fn="interp")
    if xp.shape != fp.shape or xp.ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x_arr, xp_arr = promote_dtypes_inexact("interp", x, xp)
    (fp_arr,) = promote_dtypes_inexact("interp", fp)
    extrapolate = []
    for name, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: {value!r}")
        extrapolate.append(isinstance(value, str))
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = _ew.abs(period)
        x_arr = _ew.remainder(x_arr, period)
        xp_arr = _ew.remainder(xp_arr, period)
        xp_arr, fp_arr = lax.sort_key_val(xp_arr, fp_arr)
        n = xp_arr.shape[0]
        xp_arr = _shape.concatenate([_ew.subtract(_slice(xp_arr, n - 1, n, 0), period), xp_arr,
                                     _ew.add(_slice(xp_arr, 0, 1, 0), period)])
        fp_arr = _shape.concatenate([_slice(fp_arr, n - 1, n, 0), fp_arr, _slice(fp_arr, 0, 1, 0)])
    n = xp_arr.shape[0]
    i = _ew.clip(searchsorted(xp_arr, x_arr, side="right"), 1, n - 1)
    im1 = lax.sub(i, lax.full_like(i, 1))
    f_lo, f_hi = _take1d(fp_arr, im1), _take1d(fp_arr, i)
    x_lo, x_hi = _take1d(xp_arr, im1), _take1d(xp_arr, i)
    df = _ew.subtract(f_hi, f_lo)
    dx = _ew.subtract(x_hi, x_lo)
    delta = _ew.subtract(x_arr, x_lo)
    epsilon = np.spacing(dtypes.finfo(xp_arr.dtype).eps)
    dx0 = _ew.less_equal(_ew.abs(dx), epsilon)  # no NaN gradients for repeated xp
    f = _ew.where(dx0, f_lo, _ew.add(f_lo, _ew.multiply(_ew.divide(delta, _ew.where(dx0, 1, dx)), df)))
    if period is None:
        if not extrapolate[0]:
            f = _ew.where(_ew.less(x_arr, lax.index_in_dim(xp_arr, 0, 0, False)),
                          lax.index_in_dim(fp_arr, 0, 0, False) if left is None else left, f)
        if not extrapolate[1]:
            f = _ew.where(_ew.greater(x_arr, lax.index_in_dim(xp_arr, n - 1, 0, False)),
                          lax.index_in_dim(fp_arr, n - 1, 0, False) if right is None else right, f)
    return f


# ---------------------------------------------------------------------------
# Window functions
# ---------------------------------------------------------------------------

def _window(name: str, M: Any, formula: Any) -> Any:
    if isinstance(M, core.Tracer):
        raise core.ConcretizationTypeError(M, f"the M argument of jnp.{name}")
    M = int(M)
    dtype = dtypes.default_float()
    if M <= 1:
        return lax.full((max(M, 0),), 1, dtype)
    n = lax.iota(dtype, M)
    return formula(n, M)


def hamming(M: int) -> Any:
    """The Hamming window of M points (float32)."""
    return _window("hamming", M, lambda n, M: _ew.subtract(
        0.54, _ew.multiply(0.46, _ew.cos(_ew.divide(_ew.multiply(2 * np.pi, n), M - 1)))))


def hanning(M: int) -> Any:
    """The Hann window of M points (float32)."""
    return _window("hanning", M, lambda n, M: _ew.multiply(
        0.5, _ew.subtract(1, _ew.cos(_ew.divide(_ew.multiply(2 * np.pi, n), M - 1)))))


def bartlett(M: int) -> Any:
    """The Bartlett (triangular) window of M points (float32)."""
    return _window("bartlett", M, lambda n, M: _ew.subtract(
        1, _ew.divide(_ew.abs(_ew.subtract(_ew.add(_ew.multiply(2, n), 1), M)), M - 1)))


def blackman(M: int) -> Any:
    """The Blackman window of M points (float32)."""
    def formula(n: Any, M: int) -> Any:
        c2 = _ew.cos(_ew.divide(_ew.multiply(2 * np.pi, n), M - 1))
        c4 = _ew.cos(_ew.divide(_ew.multiply(4 * np.pi, n), M - 1))
        return _ew.add(_ew.subtract(0.42, _ew.multiply(0.5, c2)), _ew.multiply(0.08, c4))
    return _window("blackman", M, formula)


# ---------------------------------------------------------------------------
# dtype and type predicates
# ---------------------------------------------------------------------------

def _dtype_of(x: Any) -> np.dtype:
    if isinstance(x, np.dtype):
        return x
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    if isinstance(x, type) and issubclass(x, np.generic):
        return np.dtype(x)
    return np.dtype(x)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """NumPy's `can_cast` on dtypes (an array or dtype `from_`)."""
    source = _dtype_of(from_) if isinstance(from_, ArrayBase) else from_
    return bool(np.can_cast(source, np.dtype(to), casting=cast(Any, casting)))  # NumPy checks the name


def _kind_dtypes() -> dict[str, set]:
    signed = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)}
    unsigned = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)}
    floats = {np.dtype(t) for t in (np.float16, np.float32, np.float64)}
    if dtypes.bfloat16 is not None:
        floats.add(np.dtype(dtypes.bfloat16))
    complexes = {np.dtype(np.complex64), np.dtype(np.complex128)}
    return {"bool": {np.dtype(np.bool_)}, "signed integer": signed, "unsigned integer": unsigned,
            "integral": signed | unsigned, "real floating": floats, "complex floating": complexes,
            "numeric": signed | unsigned | floats | complexes}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Array API `isdtype`: whether `dtype` is one of the dtypes `kind`
    names ('bool', 'signed integer', 'unsigned integer', 'integral', 'real
    floating', 'complex floating', 'numeric', a dtype, or a tuple of these)."""
    the_dtype = np.dtype(dtype)
    kinds = _kind_dtypes()
    options: set = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in kinds:
            options |= kinds[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as error:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of {list(kinds)}, or a "
                                 "compatible input for jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from error
    return the_dtype in options


def isscalar(element: Any) -> bool:
    """True for Python and NumPy scalars and for 0-d arrays (JAX's rule)."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, ArrayBase)):
        return element.ndim == 0
    if getattr(element, "__jax_array__", None) is not None:
        return asarray(element).ndim == 0
    return False


def iterable(y: Any) -> bool:
    """Whether ``iter(y)`` works (0-d arrays are not iterable)."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def iscomplexobj(x: Any) -> bool:
    """Whether `x` has a complex dtype."""
    if x is None:
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    return np.dtype(dtype).kind == "c"


def isrealobj(x: Any) -> bool:
    """``not iscomplexobj(x)``."""
    return not iscomplexobj(x)


def isreal(x: Any) -> Any:
    """Elementwise: the imaginary part is zero (always, for real dtypes)."""
    x = asarray(x, fn="isreal")
    if dtypes.is_complex(x.dtype):
        return lax.eq(lax.imag(x), lax.full(x.shape, 0, dtypes.real_dtype(x.dtype)))
    return lax.full(x.shape, True, np.bool_)


def iscomplex(x: Any) -> Any:
    """Elementwise: the imaginary part is nonzero (never, for real dtypes)."""
    x = asarray(x, fn="iscomplex")
    if dtypes.is_complex(x.dtype):
        return lax.ne(lax.imag(x), lax.full(x.shape, 0, dtypes.real_dtype(x.dtype)))
    return lax.full(x.shape, False, np.bool_)


# ---------------------------------------------------------------------------
# gcd, lcm, ldexp, frexp, spacing
# ---------------------------------------------------------------------------

def gcd(x1: Any, x2: Any) -> Any:
    """The greatest common divisor of |x1| and |x2| (integers), elementwise;
    gcd(0, 0) is 0."""
    x1, x2 = promote_args("gcd", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    zero = lax.full_like(x1, 0)

    def cond(carry: Any) -> Any:
        _, b = carry
        return lax.reduce_or(lax.ne(b, zero), tuple(range(b.ndim)))

    def body(carry: Any) -> Any:
        a, b = carry
        nonzero = lax.ne(b, zero)
        safe_b = lax.select(nonzero, b, lax.full_like(b, 1))
        return lax.select(nonzero, b, a), lax.select(nonzero, lax.rem(a, safe_b), zero)
    result, _ = lax.while_loop(cond, body, (_ew.abs(x1), _ew.abs(x2)))
    return result


def lcm(x1: Any, x2: Any) -> Any:
    """The least common multiple of |x1| and |x2| (integers), elementwise;
    0 when either is 0."""
    x1, x2 = promote_args("lcm", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    x1, x2 = _ew.abs(x1), _ew.abs(x2)
    d = gcd(x1, x2)
    zero = lax.full_like(d, 0)
    is_zero = lax.eq(d, zero)
    return lax.select(is_zero, zero, lax.mul(x1, lax.div(x2, lax.select(is_zero, lax.full_like(d, 1), d))))


def _float_layout(dtype: np.dtype) -> tuple[Any, int, int]:
    """(unsigned-free int dtype of the same width, mantissa bits, exponent bias)."""
    info = dtypes.finfo(dtype)
    int_dtype = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}[np.dtype(dtype).itemsize]
    return int_dtype, int(info.nmant), 1 - int(info.minexp)


def _exp2_int(e: Any, dtype: np.dtype) -> Any:
    """2.0**e exactly, for integer `e` in the normal exponent range of `dtype`."""
    int_dtype, nmant, bias = _float_layout(dtype)
    e = lax.convert_element_type(e, int_dtype)
    bits = lax.shift_left(lax.add(e, lax.full_like(e, bias)), lax.full_like(e, nmant))
    return lax.bitcast_convert_type(bits, dtype)


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """float16/bfloat16 work in float32 (exact for frexp/ldexp)."""
    return np.dtype(np.float32) if np.dtype(dtype).itemsize < 4 else np.dtype(dtype)


def _frexp_exact(x: Any) -> tuple[Any, Any]:
    """frexp of a float32/float64 `x`: the mantissa in [0.5, 1) and the
    exponent in the int dtype of the same width. Integer bit operations
    throughout, so subnormal inputs are normalized exactly (compiled code
    flushes subnormal floats, as XLA does)."""
    dtype = x.dtype
    int_dtype, nmant, bias = _float_layout(dtype)
    width = np.dtype(dtype).itemsize * 8
    exp_mask = (1 << (width - 1 - nmant)) - 1
    mant_mask = (1 << nmant) - 1

    def c(v: int) -> Any:
        return lax.full(x.shape, v, int_dtype)
    bits = lax.bitcast_convert_type(x, int_dtype)
    biased = lax.bitwise_and(lax.shift_right_logical(bits, c(nmant)), c(exp_mask))
    fraction = lax.bitwise_and(bits, c(mant_mask))
    sign = lax.bitwise_and(bits, c(-(1 << (width - 1))))
    subnormal = lax.eq(biased, c(0))
    # A subnormal's fraction shifted so that its leading one is the implicit bit.
    shift = lax.sub(lax.clz(fraction), c(width - 1 - nmant))
    normalized = lax.bitwise_and(lax.shift_left(fraction, lax.max(shift, c(0))), c(mant_mask))
    exponent = lax.select(subnormal, lax.sub(c(2 - bias), shift), lax.sub(biased, c(bias - 1)))
    fraction = lax.select(subnormal, normalized, fraction)
    mantissa = lax.bitcast_convert_type(
        lax.bitwise_or(lax.bitwise_or(sign, fraction), c((bias - 1) << nmant)), dtype)
    zero = lax.eq(lax.bitwise_and(bits, c((1 << (width - 1)) - 1)), c(0))
    special = lax.bitwise_or(zero, lax.eq(biased, c(exp_mask)))  # 0, inf, nan
    exponent = lax.select(special, c(0), exponent)
    # The bit operations have no derivative: the mantissa's is 2**-exponent
    # (the scale is clamped finite, so the zero tangent term stays finite).
    neg = lax.clamp(c(-(bias - 1)), lax.neg(exponent), c(bias - 1))
    half = lax.div(neg, c(2))
    scale = lax.mul(_exp2_int(half, dtype), _exp2_int(lax.sub(neg, half), dtype))
    tangent = lax.mul(lax.sub(x, lax.stop_gradient(x)), lax.stop_gradient(scale))
    return lax.select(special, x, lax.add(mantissa, tangent)), exponent


def frexp(x: Any, /) -> tuple[Any, Any]:
    """Mantissa and exponent, ``x == mantissa * 2**exponent`` with
    |mantissa| in [0.5, 1) (0, inf and NaN give themselves and exponent 0);
    the exponent is int32. Subnormals are normalized (NumPy's results)."""
    (x,) = promote_dtypes_inexact("frexp", asarray(x, fn="frexp"))
    work = lax.convert_element_type(x, _compute_dtype(x.dtype))
    mantissa, exponent = _frexp_exact(work)
    return lax.convert_element_type(mantissa, x.dtype), lax.convert_element_type(exponent, np.int32)


def ldexp(x1: Any, x2: Any, /) -> Any:
    """``x1 * 2**x2`` for an integer `x2`, exactly (one rounding, no
    intermediate overflow); x1 is promoted to a float."""
    x1, x2 = asarray(x1, fn="ldexp"), asarray(x2, fn="ldexp")
    if dtypes.is_float(x2.dtype):
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    (x1,) = promote_dtypes_inexact("ldexp", x1)
    shape = broadcast_shapes("ldexp", x1.shape, x2.shape, operands=True)
    x1, x2 = broadcast_to(x1, shape, "ldexp"), broadcast_to(x2, shape, "ldexp")
    out_dtype = x1.dtype
    work = lax.convert_element_type(x1, _compute_dtype(out_dtype))
    int_dtype, nmant, bias = _float_layout(work.dtype)
    mantissa, exponent = _frexp_exact(work)
    limit = 2 * (bias - 1)  # beyond it the result is 0 or inf whatever the mantissa
    bound = limit + nmant + 8
    if np.dtype(x2.dtype).itemsize > np.dtype(int_dtype).itemsize:  # clamp before narrowing
        x2 = lax.clamp(lax.full_like(x2, -bound), x2, lax.full_like(x2, bound))
    e = lax.convert_element_type(x2, int_dtype)
    e = lax.clamp(lax.full_like(e, -bound), e, lax.full_like(e, bound))
    total = lax.clamp(lax.full_like(exponent, -limit), lax.add(exponent, e), lax.full_like(exponent, limit))
    half = lax.div(total, lax.full_like(total, 2))
    result = lax.mul(lax.mul(mantissa, _exp2_int(half, work.dtype)),
                     _exp2_int(lax.sub(total, half), work.dtype))
    special = lax.bitwise_or(lax.bitwise_not(lax.is_finite(work)), lax.eq(mantissa, lax.full_like(mantissa, 0)))
    return lax.convert_element_type(lax.select(special, work, result), out_dtype)


def spacing(x: Any, /) -> Any:
    """The distance from `x` to the next float away from zero (toward +inf
    for float16, as NumPy and JAX do); the smallest subnormal, signed, at 0."""
    (arr,) = promote_dtypes_inexact("spacing", asarray(x, fn="spacing"))
    inf = lax.full_like(arr, np.inf)
    if arr.dtype == np.float16:
        return lax.sub(lax.nextafter(arr, inf), arr)
    result = lax.sub(lax.nextafter(arr, _ew.copysign(inf, arr)), arr)
    tiny = float(dtypes.finfo(arr.dtype).smallest_subnormal)
    return lax.select(lax.eq(result, lax.full_like(result, 0)), _ew.copysign(lax.full_like(arr, tiny), arr), result)


# ---------------------------------------------------------------------------
# Counting: bincount and histograms
# ---------------------------------------------------------------------------

def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None) -> Any:
    """How often each value 0..length-1 occurs in the 1-d integer `x` (or the
    sum of `weights` there). As in JAX, negative values count in bin 0 and
    values past `length` are dropped; `length` defaults to
    max(minlength, max(x) + 1), which needs a concrete `x` (under jit, pass
    `length`)."""
    x = asarray(x, fn="bincount")
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = _static_int(minlength, "minlength", "bincount")
    if length is None:
        if isinstance(x, core.Tracer):
            raise core.ConcretizationTypeError(x, "the x argument of jnp.bincount (pass a static "
                                                  "`length` to avoid this)")
        values = np.asarray(x)
        length = max(minlength, int(max(0, values.max())) + 1 if values.size else 0)
    else:
        length = _static_int(length, "length", "bincount")
    if weights is None:
        weights = lax.full((), 1, dtypes.default_int())
    else:
        weights = asarray(weights, fn="bincount")
        if weights.shape != x.shape:
            raise ValueError(f"type of weights must match type of x. Got x of shape {x.shape} and "
                             f"weights of shape {weights.shape}")
    counts = lax.full((length,), 0, weights.dtype)
    return counts.at[_ew.maximum(x, 0)].add(weights, mode="drop")


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """The edges of `histogram`'s bins: `bins` itself when it is a sequence,
    else bins + 1 evenly spaced edges over `range` (default: a's min to max;
    a range of width 0 is widened by 0.5 on each side), in a's inexact dtype."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    a = asarray(a, fn="histogram_bin_edges")
    dtype = dtypes.to_inexact(a.dtype)
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=dtype, fn="histogram_bin_edges")
    count = _static_int(bins, "bins", "histogram_bin_edges")
    if range is None:
        range = [_reductions.min(a), _reductions.max(a)]
    bounds = asarray(_shape.stack([asarray(r, fn="histogram_bin_edges") for r in range])
                     if isinstance(range, (list, tuple)) else range, dtype=dtype, fn="histogram_bin_edges")
    if bounds.shape != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    low, high = bounds[0], bounds[1]
    flat = _ew.equal(low, high)
    low = _ew.where(flat, _ew.subtract(low, 0.5), low)
    high = _ew.where(flat, _ew.add(high, 0.5), high)
    return _creation.linspace(low, high, count + 1, dtype=dtype)  # the last edge is `high` exactly


def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,
              density: bool | None = None) -> tuple[Any, Any]:
    """(counts, bin_edges) of the values of `a` (flattened) in `bins` bins, as
    NumPy: every bin is half-open except the last, which includes its right
    edge; values outside the edges are not counted. `weights` (a's shape)
    sum instead of counting; `density` divides by the total and the bin widths."""
    a = asarray(a, fn="histogram")
    if weights is None:
        (a,) = promote_dtypes_inexact("histogram", a)
        weights = lax.full(a.shape, 1, a.dtype)
    else:
        weights = asarray(weights, fn="histogram")
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact("histogram", a, weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    values, weights = _shape.ravel(a), _shape.ravel(weights)
    index = searchsorted(edges, values, side="right")
    last = edges.shape[0] - 1
    index = _ew.where(_ew.equal(values, edges[last]), last, index)
    counts = lax.full((edges.shape[0],), 0, weights.dtype).at[index].add(weights, mode="drop")[1:]
    if density:
        widths = diff(edges)
        counts = _ew.true_divide(_ew.true_divide(counts, widths), _reductions.sum(counts))
    return counts, edges
