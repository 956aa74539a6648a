"""Reductions of `jaxc.numpy`: sum, mean, max, argmax, cumsum, median, the
NaN-ignoring variants and friends, with JAX's dtype rules.

Every reduction goes through `_reduce`, driven by the `_MONOIDS` table (the
lax reduction, the binary op that folds in ``initial``, the identity that
``where=`` masks with). Dtypes follow JAX, not NumPy: sums and products of
bools and small ints give the default int (small unsigned ints give
uint32), mean/var/std of ints give the default float, float16 and bfloat16
are accumulated in float32, argmax gives the default int.
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import dtypes, lax
from ._util import asarray, broadcast_to, canonicalize_axes, canonicalize_axis, promote_dtypes_inexact

__all__ = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "argmax", "argmin", "all",
           "any", "cumsum", "cumprod", "nancumsum", "nancumprod", "median", "average", "nansum", "nanprod",
           "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin", "ptp",
           "count_nonzero"]


# ---------------------------------------------------------------------------
# dtype rules
# ---------------------------------------------------------------------------

def promote_integer(dtype: np.dtype) -> np.dtype:
    """Bools and ints narrower than the default int widen to it (unsigned
    ones to the default unsigned), as JAX's sum/prod do."""
    if dtype == np.bool_:
        return dtypes.default_int()
    if dtypes.is_unsigned(dtype):
        wide = dtypes.canonicalize(np.uint64)
        return wide if dtype.itemsize < wide.itemsize else dtype
    if dtypes.is_int(dtype):
        wide = dtypes.default_int()
        return wide if dtype.itemsize < wide.itemsize else dtype
    return dtype


def _upcast_f16(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 accumulate in float32."""
    return np.dtype(np.float32) if dtypes.is_float(dtype) and dtype.itemsize == 2 else dtype


def _inexact(dtype: np.dtype) -> np.dtype:
    return dtypes.to_inexact(dtype)


def _user_dtype(dtype: Any) -> np.dtype | None:
    return None if dtype is None else dtypes.canonicalize(dtype)


# ---------------------------------------------------------------------------
# The reduction driver
# ---------------------------------------------------------------------------

def _lowest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return False
    return -np.inf if dtypes.is_float(dtype) else dtypes.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    return np.inf if dtypes.is_float(dtype) else dtypes.iinfo(dtype).max


class _Monoid(NamedTuple):
    reduce: Callable[[Any, tuple[int, ...]], Any]      # lax reduction over axes
    bool_reduce: Callable[[Any, tuple[int, ...]], Any]  # the same on bools
    combine: Callable[[Any, Any], Any]                   # folds `initial` into the result
    identity: Callable[[np.dtype], Any]                  # what `where=False` elements become
    has_identity: bool                                   # False: empty reductions are errors


_MONOIDS = {
    "sum": _Monoid(lax.reduce_sum, lax.reduce_or, lax.add, lambda dtype: 0, True),
    "prod": _Monoid(lax.reduce_prod, lax.reduce_and, lax.mul, lambda dtype: 1, True),
    "max": _Monoid(lax.reduce_max, lax.reduce_or, lax.max, _lowest, False),
    "min": _Monoid(lax.reduce_min, lax.reduce_and, lax.min, _highest, False),
    "all": _Monoid(lax.reduce_and, lax.reduce_and, lax.bitwise_and, lambda dtype: True, True),
    "any": _Monoid(lax.reduce_or, lax.reduce_or, lax.bitwise_or, lambda dtype: False, True),
    "logical_xor": _Monoid(lax.reduce_xor, lax.reduce_xor, lax.bitwise_xor, lambda dtype: False, True),
    # jnp.bitwise_and.reduce etc. (integers and bools only)
    "bitwise_and": _Monoid(lax.reduce_and, lax.reduce_and, lax.bitwise_and, lambda dtype: np.array(-1).astype(dtype),
                           True),
    "bitwise_or": _Monoid(lax.reduce_or, lax.reduce_or, lax.bitwise_or, lambda dtype: 0, True),
    "bitwise_xor": _Monoid(lax.reduce_xor, lax.reduce_xor, lax.bitwise_xor, lambda dtype: 0, True),
}


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"jnp.{name}: the 'out' argument is not supported (arrays are immutable)")


def _mask(name: str, x: Any, where: Any, fill: Any) -> Any:
    """`x` where `where` (broadcast to x's shape), else `fill`."""
    where = broadcast_to(asarray(where, fn=name), x.shape, name)
    if where.dtype != np.bool_:
        where = lax.ne(where, lax.full_like(where, 0))
    return lax.select(where, x, lax.full_like(x, fill))


def _reduce(kind: str, name: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: bool, initial: Any,
            where: Any, promote_integers: bool = False, upcast_f16: bool = False) -> Any:
    """The reduction `kind` of `a` over `axis` with JAX's dtype rules."""
    _no_out(name, out)
    monoid = _MONOIDS[kind]
    a = asarray(a, fn=name)
    if kind in ("all", "any", "logical_xor") and a.dtype != np.bool_:
        a = lax.ne(a, lax.full_like(a, 0))
    elif kind.startswith("bitwise") and not (dtypes.is_int(a.dtype) or a.dtype == np.bool_):
        raise ValueError(f"integer argument required; got dtype={a.dtype}")
    elif kind in ("sum", "prod") and a.dtype == np.bool_:
        a = lax.convert_element_type(a, dtypes.default_int())
    axes = canonicalize_axes(axis, a.ndim, name)
    if not monoid.has_identity and initial is None:
        if where is not None:
            raise ValueError(f"jnp.{name}: reduction operation {kind} has no identity, so a where mask "
                             "needs an 'initial' value")
        empty = [a.shape[i] for i in axes if a.shape[i] == 0]
        if empty:
            raise ValueError(f"jnp.{name}: zero-size array to reduction operation {kind} which has no "
                             f"identity (shape {a.shape}, axis {axis})")
    result_dtype = _user_dtype(dtype) or a.dtype
    if dtype is None and promote_integers:
        result_dtype = promote_integer(result_dtype)
    computation_dtype = _upcast_f16(result_dtype) if upcast_f16 else result_dtype
    a = lax.convert_element_type(a, computation_dtype)
    if where is not None:
        a = _mask(name, a, where, monoid.identity(computation_dtype))
    reduce = monoid.bool_reduce if computation_dtype == np.bool_ else monoid.reduce
    result = reduce(a, axes)
    if initial is not None:
        init = asarray(initial, fn=name)
        if init.ndim:
            raise ValueError(f"jnp.{name}: initial must be a scalar, got shape {init.shape}")
        init = lax.broadcast_in_dim(lax.convert_element_type(init, computation_dtype), result.shape, ())
        result = monoid.combine(init, result)
    if keepdims:
        result = lax.expand_dims(result, axes)
    return lax.convert_element_type(result, result_dtype)


def _axis_count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return math.prod(shape[i] for i in axes)


# ---------------------------------------------------------------------------
# Sums, products, extrema, boolean reductions
# ---------------------------------------------------------------------------

def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
        initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """Sum over `axis` (bools and small ints sum in the default int)."""
    return _reduce("sum", "sum", a, axis, dtype, out, keepdims, initial, where, promote_integers, True)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """Product over `axis` (bools and small ints multiply in the default int)."""
    return _reduce("prod", "prod", a, axis, dtype, out, keepdims, initial, where, promote_integers, True)


def max(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
        where: Any = None) -> Any:
    """Maximum over `axis` (NaN propagates; an empty axis needs `initial`)."""
    return _reduce("max", "max", a, axis, None, out, keepdims, initial, where)


def min(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
        where: Any = None) -> Any:
    """Minimum over `axis` (NaN propagates; an empty axis needs `initial`)."""
    return _reduce("min", "min", a, axis, None, out, keepdims, initial, where)


def amax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
         where: Any = None) -> Any:
    """Alias of `max`."""
    return max(a, axis, out, keepdims, initial, where)


def amin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
         where: Any = None) -> Any:
    """Alias of `min`."""
    return min(a, axis, out, keepdims, initial, where)


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = None) -> Any:
    """Whether every element over `axis` is nonzero (True for an empty axis)."""
    return _reduce("all", "all", a, axis, None, out, keepdims, None, where)


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = None) -> Any:
    """Whether some element over `axis` is nonzero (False for an empty axis)."""
    return _reduce("any", "any", a, axis, None, out, keepdims, None, where)


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Peak to peak: ``max - min`` over `axis`."""
    _no_out("ptp", out)
    a = asarray(a, fn="ptp")
    if a.dtype == np.bool_:
        raise TypeError("jnp.ptp is not defined for booleans (max - min would subtract booleans)")
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Number of nonzero elements over `axis` (default int)."""
    a = asarray(a, fn="count_nonzero")
    nonzero = a if a.dtype == np.bool_ else lax.ne(a, lax.full_like(a, 0))
    return sum(nonzero, axis, dtype=dtypes.default_int(), keepdims=keepdims)


# ---------------------------------------------------------------------------
# Mean, variance, standard deviation, weighted average
# ---------------------------------------------------------------------------

def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False, *,
         where: Any = None) -> Any:
    """Arithmetic mean over `axis` (ints give the default float; NaN for an empty axis)."""
    _no_out("mean", out)
    a = asarray(a, fn="mean")
    axes = canonicalize_axes(axis, a.ndim, "mean")
    result_dtype = _user_dtype(dtype) or _inexact(a.dtype)
    computation_dtype = _upcast_f16(result_dtype)
    total = sum(a, axes, dtype=computation_dtype, keepdims=keepdims, where=where)
    if where is None:
        count = lax.full_like(total, _axis_count(a.shape, axes))
    else:
        count = sum(broadcast_to(asarray(where, fn="mean"), a.shape, "mean"), axes, dtype=computation_dtype,
                    keepdims=keepdims)
    return lax.convert_element_type(lax.div(total, count), result_dtype)


def _var_dtypes(name: str, a_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """(computation dtype, result dtype) of var/std."""
    result_dtype = _user_dtype(dtype) or dtypes.real_dtype(_inexact(a_dtype))
    if dtypes.is_complex(a_dtype):  # computed in the complex dtype, real result (as JAX)
        return a_dtype, dtypes.real_dtype(result_dtype)
    if name == "std" and not dtypes.is_float(result_dtype):
        raise ValueError(f"jnp.std: dtype must be a float dtype, got {result_dtype.name}")
    return _upcast_f16(result_dtype), result_dtype


def _correction(name: str, ddof: Any, correction: Any) -> Any:
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"jnp.{name}: ddof and correction can't both be given")
    return correction


def _divide_by_dof(squares: Any, count: Any, ddof: Any, name: str) -> Any:
    """``squares / (count - ddof)``, NaN where the divisor is not positive.
    A static count and ddof decide that in Python."""
    if isinstance(count, int) and isinstance(ddof, (int, float)):
        divisor = count - ddof
        if divisor <= 0:
            return lax.full_like(squares, np.nan)
        return lax.div(squares, lax.full_like(squares, divisor))
    if isinstance(count, int):
        count = lax.full_like(squares, count)
    ddof = lax.convert_element_type(asarray(ddof, fn=name), count.dtype)
    divisor = lax.sub(count, broadcast_to(ddof, count.shape, name))
    return lax.select(lax.gt(divisor, lax.full_like(divisor, 0)), lax.div(squares, divisor),
                      lax.full_like(squares, np.nan))


def _given_mean(name: str, a_mean: Any, a: Any) -> Any:
    """A caller's precomputed mean (``mean=``), in a's dtype and shape."""
    return broadcast_to(lax.convert_element_type(asarray(a_mean, fn=name), a.dtype), a.shape, name)


def _variance(name: str, a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where: Any,
              a_mean: Any = None) -> Any:
    a = asarray(a, fn=name)
    axes = canonicalize_axes(axis, a.ndim, name)
    computation_dtype, result_dtype = _var_dtypes(name, a.dtype, dtype)
    a = lax.convert_element_type(a, computation_dtype)
    if a_mean is None:
        a_mean = mean(a, axes, keepdims=True, where=where)
    centered = lax.sub(a, _given_mean(name, a_mean, a))
    if dtypes.is_complex(centered.dtype):  # |c|^2 = re(c * conj(c))
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        squares = sum(centered, axes, keepdims=keepdims, where=where)
    else:
        squares = sum(lax.mul(centered, centered), axes, keepdims=keepdims, where=where)
    if where is None:
        count = _axis_count(a.shape, axes)
    else:
        count = sum(broadcast_to(asarray(where, fn=name), a.shape, name), axes,
                    dtype=dtypes.real_dtype(computation_dtype),
                    keepdims=keepdims)
    result = _divide_by_dof(squares, count, ddof, name)
    return lax.convert_element_type(result, result_dtype)


def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False,
        *, where: Any = None, mean: Any = None, correction: Any = None) -> Any:
    """Variance over `axis`, dividing by ``N - ddof`` (NaN when that is not
    positive). `mean`: a's mean, already computed (broadcastable to a, as
    ``jnp.mean(a, axis, keepdims=True)``)."""
    _no_out("var", out)
    return _variance("var", a, axis, dtype, _correction("var", ddof, correction), keepdims, where, mean)


def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False,
        *, where: Any = None, mean: Any = None, correction: Any = None) -> Any:
    """Standard deviation over `axis`: ``sqrt(var)`` (`mean` as for var)."""
    _no_out("std", out)
    return lax.sqrt(_variance("std", a, axis, dtype, _correction("std", ddof, correction), keepdims, where, mean))


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
    """Weighted mean over `axis`; with ``returned=True`` also the sum of the
    weights (broadcast to the result's shape)."""
    if weights is None:
        (a,) = promote_dtypes_inexact("average", a)
        axes = canonicalize_axes(axis, a.ndim, "average")
        avg = mean(a, axes, keepdims=keepdims)
        weights_sum = lax.full_like(avg, _axis_count(a.shape, axes))
    else:
        a, weights = promote_dtypes_inexact("average", a, weights)
        axes = canonicalize_axes(axis, a.ndim, "average")
        if weights.shape != a.shape:
            if weights.ndim != 1:
                raise ValueError(f"jnp.average: weights of shape {weights.shape} must be 1-d when they differ "
                                 f"from the shape of a {a.shape}")
            if axis is None or isinstance(axis, (tuple, list)) and len(axes) != 1:
                raise ValueError(f"jnp.average: 1-d weights of shape {weights.shape} need a single axis, "
                                 f"got axis={axis!r} for a of shape {a.shape}")
            (along,) = axes
            if weights.shape[0] != a.shape[along]:
                raise ValueError(f"jnp.average: length of weights {weights.shape[0]} differs from a.shape"
                                 f"[{along}] = {a.shape[along]} (a of shape {a.shape})")
            weights = lax.broadcast_in_dim(weights, a.shape, (along,))
        weights_sum = sum(weights, axes, keepdims=keepdims)
        avg = lax.div(sum(lax.mul(a, weights), axes, keepdims=keepdims), weights_sum)
    if returned:
        return avg, broadcast_to(weights_sum, avg.shape, "average")
    return avg


# ---------------------------------------------------------------------------
# Arg-reductions
# ---------------------------------------------------------------------------

def _arg_reduce(name: str, lax_fn: Callable, a: Any, axis: Any, out: Any, keepdims: bool) -> Any:
    _no_out(name, out)
    a = asarray(a, fn=name)
    if dtypes.is_complex(a.dtype):
        raise TypeError(f"jnp.{name} does not accept dtype {a.dtype.name}: complex numbers have no order "
                        "(as in JAX; compare their real parts or abs)")
    if axis is None:
        flat = lax.reshape(a, (a.size,))
        axis_index = 0
    else:
        flat = a
        axis_index = canonicalize_axis(axis, a.ndim, name)
    if flat.ndim == 0 or flat.shape[axis_index] == 0:
        raise ValueError(f"jnp.{name}: attempt to get {name} of an empty sequence (shape {a.shape}, "
                         f"axis {axis})")
    result = lax_fn(flat, axis_index, dtypes.default_int())
    if keepdims:
        result = lax.reshape(result, (1,) * a.ndim) if axis is None else lax.expand_dims(result, (axis_index,))
    return result


def argmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Index of the first maximum along `axis` (of the flattened array when
    axis is None); a NaN counts as the maximum."""
    return _arg_reduce("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Index of the first minimum along `axis`; a NaN counts as the minimum."""
    return _arg_reduce("argmin", lax.argmin, a, axis, out, keepdims)


# ---------------------------------------------------------------------------
# Cumulative reductions
# ---------------------------------------------------------------------------

def _cumulative(name: str, lax_fn: Callable, a: Any, axis: Any, dtype: Any, out: Any,
                nan_fill: Any = None) -> Any:
    """`lax_fn` along `axis` (flattened when None). As in JAX, the result
    keeps a's dtype, except that bools accumulate in the default int."""
    _no_out(name, out)
    a = asarray(a, fn=name)
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
    axis = canonicalize_axis(axis, a.ndim, name)
    if nan_fill is not None and dtypes.is_float(a.dtype):
        a = lax.select(lax.ne(a, a), lax.full_like(a, nan_fill), a)
    result_dtype = _user_dtype(dtype) or (promote_integer(a.dtype) if a.dtype == np.bool_ else a.dtype)
    computation_dtype = promote_integer(result_dtype) if result_dtype == np.bool_ else result_dtype
    result = lax_fn(lax.convert_element_type(a, computation_dtype), axis)
    return lax.convert_element_type(result, result_dtype)


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Running sum along `axis` (of the flattened array when axis is None)."""
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype, out)


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """Running product along `axis` (of the flattened array when axis is None)."""
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype, out)


def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """`cumsum` with NaNs counted as 0."""
    return _cumulative("nancumsum", lax.cumsum, a, axis, dtype, out, nan_fill=0)


def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """`cumprod` with NaNs counted as 1."""
    return _cumulative("nancumprod", lax.cumprod, a, axis, dtype, out, nan_fill=1)


# ---------------------------------------------------------------------------
# Median
# ---------------------------------------------------------------------------

def _axes_to_end(x: Any, axes: tuple[int, ...]) -> Any:
    """`x` with `axes` moved to the end and merged into one."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = lax.transpose(x, (*kept, *axes)) if list(axes) != list(range(len(kept), x.ndim)) else x
    return lax.reshape(moved, (*[x.shape[i] for i in kept], _axis_count(x.shape, axes)))


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """Median over `axis`: the middle element (or the mean of the middle two)
    of the sorted values; NaN where a NaN is present or the axis is empty."""
    _no_out("median", out)
    (a,) = promote_dtypes_inexact("median", a)
    axes = canonicalize_axes(axis, a.ndim, "median")
    kept_shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape)) if keepdims else kept_shape
    n = _axis_count(a.shape, axes)
    if n == 0:
        return lax.full(out_shape, np.nan, a.dtype)
    rows = lax.sort(_axes_to_end(a, axes), dimension=len(kept_shape))
    last = len(kept_shape)
    middle = lax.index_in_dim(rows, n // 2, last, keepdims=False)
    if n % 2 == 0:
        below = lax.index_in_dim(rows, n // 2 - 1, last, keepdims=False)
        middle = lax.mul(lax.add(below, middle), lax.full_like(middle, 0.5))
    largest = lax.index_in_dim(rows, n - 1, last, keepdims=False)  # NaNs sort last
    result = lax.select(lax.ne(largest, largest), largest, middle)
    return lax.reshape(result, out_shape)


# ---------------------------------------------------------------------------
# NaN-ignoring reductions
# ---------------------------------------------------------------------------

def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


def _nan_to(x: Any, value: Any) -> Any:
    return lax.select(_isnan(x), lax.full_like(x, value), x)


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """`sum` with NaNs counted as 0."""
    a = asarray(a, fn="nansum")
    a = _nan_to(a, 0) if dtypes.is_float(a.dtype) else a
    return _reduce("sum", "nansum", a, axis, dtype, out, keepdims, initial, where, True, True)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            initial: Any = None, where: Any = None) -> Any:
    """`prod` with NaNs counted as 1."""
    a = asarray(a, fn="nanprod")
    a = _nan_to(a, 1) if dtypes.is_float(a.dtype) else a
    return _reduce("prod", "nanprod", a, axis, dtype, out, keepdims, initial, where, True, True)


def _nan_extremum(kind: str, a: Any, axis: Any, out: Any, keepdims: bool, initial: Any, where: Any) -> Any:
    name = f"nan{kind}"
    a = asarray(a, fn=name)
    if not dtypes.is_float(a.dtype):
        return _reduce(kind, name, a, axis, None, out, keepdims, initial, where)
    fill = _MONOIDS[kind].identity(a.dtype)
    result = _reduce(kind, name, _nan_to(a, fill), axis, None, out, keepdims, initial, where)
    if initial is not None:
        return result
    all_nan = all(_isnan(a), axis, keepdims=keepdims)
    return lax.select(all_nan, lax.full_like(result, np.nan), result)


def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
           where: Any = None) -> Any:
    """`max` ignoring NaNs (NaN where every element is NaN)."""
    return _nan_extremum("max", a, axis, out, keepdims, initial, where)


def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, initial: Any = None,
           where: Any = None) -> Any:
    """`min` ignoring NaNs (NaN where every element is NaN)."""
    return _nan_extremum("min", a, axis, out, keepdims, initial, where)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            where: Any = None) -> Any:
    """`mean` of the non-NaN elements (NaN where there are none)."""
    _no_out("nanmean", out)
    a = asarray(a, fn="nanmean")
    if not dtypes.is_float(a.dtype):
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    result_dtype = _user_dtype(dtype) or a.dtype
    computation_dtype = _upcast_f16(result_dtype)
    count = sum(lax.eq(a, a), axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    total = nansum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return lax.convert_element_type(lax.div(total, count), result_dtype)


def _nan_variance(name: str, a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where: Any,
                  a_mean: Any) -> Any:
    a = asarray(a, fn=name)
    if not dtypes.is_float(a.dtype):
        return _variance(name, a, axis, dtype, ddof, keepdims, where, a_mean)
    axes = canonicalize_axes(axis, a.ndim, name)
    computation_dtype, result_dtype = _var_dtypes(name, a.dtype, dtype)
    a = lax.convert_element_type(a, computation_dtype)
    if a_mean is None:
        a_mean = nanmean(a, axes, keepdims=True, where=where)
    centered = _nan_to(lax.sub(a, _given_mean(name, a_mean, a)), 0)
    if dtypes.is_complex(centered.dtype):  # |c|^2 = re(c * conj(c))
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        squares = sum(centered, axes, keepdims=keepdims, where=where)
    else:
        squares = sum(lax.mul(centered, centered), axes, keepdims=keepdims, where=where)
    count = sum(lax.eq(a, a), axes, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = _divide_by_dof(squares, count, ddof, name)
    return lax.convert_element_type(result, result_dtype)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False,
           where: Any = None, mean: Any = None) -> Any:
    """`var` of the non-NaN elements (`mean`: their mean, already computed)."""
    _no_out("nanvar", out)
    return _nan_variance("nanvar", a, axis, dtype, ddof, keepdims, where, mean)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False,
           where: Any = None, mean: Any = None) -> Any:
    """`std` of the non-NaN elements (`mean`: their mean, already computed)."""
    _no_out("nanstd", out)
    return lax.sqrt(_nan_variance("nanstd", a, axis, dtype, ddof, keepdims, where, mean))


def _nan_arg_reduce(name: str, arg_fn: Callable, fill: float, a: Any, axis: Any, out: Any,
                    keepdims: bool) -> Any:
    a = asarray(a, fn=name)
    if not dtypes.is_float(a.dtype):
        return arg_fn(a, axis, out, keepdims)
    nan = _isnan(a)
    result = arg_fn(lax.select(nan, lax.full_like(a, fill), a), axis, out, keepdims)
    all_nan = all(nan, axis, keepdims=keepdims)
    return lax.select(all_nan, lax.full_like(result, -1), result)


def nanargmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """`argmax` ignoring NaNs; -1 where every element is NaN (as JAX)."""
    return _nan_arg_reduce("nanargmax", argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """`argmin` ignoring NaNs; -1 where every element is NaN (as JAX)."""
    return _nan_arg_reduce("nanargmin", argmin, np.inf, a, axis, out, keepdims)

