"""Array creation: `jnp.array`, `zeros`, `arange`, `linspace`, `eye`, `tril`, ...

Sizes, shapes, offsets and counts are static (Python values; a traced one
is a `ConcretizationTypeError`). Outside `jit`, arrays built from Python or
NumPy values are computed on the host and become constants: ``jnp.zeros(3)``
or ``jnp.arange(10)`` launch no kernel. Inside `jit` large index patterns
are built from `iota` instead of embedded as constants.

Dtypes follow JAX: float32/int32 by default, ``jnp.array([1, 2.5])`` takes
the promotion of its elements, ``jnp.array(1.0)`` and ``jnp.full(s, 1.0)``
are weakly typed like the Python scalar they hold.
"""
from __future__ import annotations

import operator
import warnings
from types import SimpleNamespace
from typing import Any, Sequence

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from ..lax._parallel import vary_like
from ._util import (
    asarray as _asarray,
    broadcast_shapes,
    broadcast_to,
    canonicalize_axis,
    check_arraylike,
    check_device,
    place,
    static_shape,
)


def _eager() -> bool:
    return core.current_scope() is None


def _dtype_arg(dtype: Any, fn: str) -> Any:
    """A user's dtype argument, canonicalized (None stays None)."""
    if dtype is None:
        return None
    try:
        return dtypes.canonicalize(dtype)
    except TypeError as error:
        raise TypeError(f"jnp.{fn}: {error}") from None


def _static_int(value: Any, what: str, fn: str) -> int:
    """A static integer argument (count, offset); tracers cannot be one."""
    if isinstance(value, core.Tracer):  # known only outside jit (an eager grad's argument)
        value = core.concrete(value, f"the {what} argument of jnp.{fn}").tolist()
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"jnp.{fn}: {what} must be an integer, got {value!r}") from None


# ---------------------------------------------------------------------------
# array / asarray
# ---------------------------------------------------------------------------

def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def _leaf_type(leaf: Any, fn: str) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) of one element: an array, a NumPy value or a Python number."""
    if hasattr(leaf, "__jax_array__"):
        leaf = leaf.__jax_array__()
    if isinstance(leaf, (np.ndarray, np.generic)):
        kind_ok = leaf.dtype.kind in "biufc" or leaf.dtype == dtypes.bfloat16
    else:
        kind_ok = isinstance(leaf, (ArrayBase, bool, int, float, complex))
    if not kind_ok:
        what = f"{type(leaf).__name__} of dtype {leaf.dtype}" if hasattr(leaf, "dtype") else type(leaf).__name__
        raise TypeError(f"jnp.{fn}: cannot convert {what} to an array (only numbers and booleans)")
    try:
        return dtypes.dtype_and_weak(leaf)
    except TypeError as error:
        raise TypeError(f"jnp.{fn}: {error}") from None


def _stack_nested(x: Any, dtype: np.dtype, fn: str) -> Any:
    """A nested list of arrays and scalars as one array of `dtype`."""
    if not isinstance(x, (list, tuple)):
        return lax.convert_element_type(_asarray(x, fn=fn), dtype)
    parts = [_stack_nested(e, dtype, fn) for e in x]
    if not parts:
        return lax.constant(np.zeros((0,), dtype))
    shapes = {p.shape for p in parts}
    if len(shapes) > 1:
        raise ValueError(f"jnp.{fn}: setting an array element with a sequence: the nested sequences "
                         f"have inhomogeneous shapes {sorted(shapes)}")
    return lax.concatenate([lax.expand_dims(p, (0,)) for p in parts], 0)


def _from_sequence(x: Any, dtype: Any, fn: str) -> Any:
    leaves = _leaves(x)
    if dtype is None:
        dtype = dtypes.promote(*[_leaf_type(leaf, fn) for leaf in leaves])[0] if leaves \
            else dtypes.default_float()
    arrays: list[Any] = [leaf for leaf in leaves if isinstance(leaf, ArrayBase)]
    if arrays and not (_eager() and all(a.is_ready() for a in arrays)):
        return _stack_nested(x, dtype, fn)
    # Host data only (or ready arrays): NumPy builds it, one constant results.
    try:
        value = np.array([_host_leaf(e) for e in x] if arrays else x, dtype=dtype)
    except ValueError as error:
        raise ValueError(f"jnp.{fn}: {error}") from None
    return lax.constant(value)


def _host_leaf(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_host_leaf(e) for e in x]
    return np.asarray(x) if isinstance(x, ArrayBase) else x


def array(object: Any, dtype: Any = None, *args: Any, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, device: Any = None) -> Any:
    """An array holding `object` (array, scalar, NumPy value, or nested
    lists of them) on `device` (a Device or a Sharding; by default where it
    is); `ndmin` adds leading axes. Arrays are immutable, so `copy` never
    needs to copy data. As in JAX 0.10, passing copy, order and ndmin
    positionally (`args`) still works, with a DeprecationWarning."""
    if args:
        copy, order, ndmin = _positional_array_args(args, copy, order, ndmin)
    if order is not None and order != "K":
        raise NotImplementedError(f"jnp.array: only order='K' is implemented, got order={order!r}")
    dtype = _dtype_arg(dtype, "array")
    if isinstance(object, ArrayBase):
        out = object if dtype is None else lax.convert_element_type(object, dtype)
        if copy and out is object:
            out = lax._with_weak(object, object.weak_type)  # a new Array object, same data
    elif object is None:  # JAX's exception type (elsewhere None is a TypeError)
        raise ValueError("None is not a valid value for jnp.array")
    elif isinstance(object, core.Ref):
        raise TypeError(f"jnp.array: got a mutable array reference Ref{{{object.aval.str_short()}}}; read its "
                        "value with ref[...] (or jaxc.freeze(ref))")
    elif isinstance(object, (list, tuple)):
        out = _from_sequence(object, dtype, "array")
    else:
        out = _asarray(object, dtype, fn="array", lists=True)  # converts what has __array__, too
    ndmin = _static_int(ndmin, "ndmin", "array")
    if out.ndim < ndmin:
        out = lax.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return place(out, device, "jnp.array")


def _positional_array_args(args: tuple, copy: Any, order: Any, ndmin: Any) -> tuple:
    """(copy, order, ndmin) from jnp.array's deprecated positional arguments (JAX's errors)."""
    if len(args) > 3:
        raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} were given")
    given = (copy, order, ndmin)
    for name, value, default in list(zip(("copy", "order", "ndmin"), given, (True, "K", 0)))[:len(args)]:
        if value != default:
            raise TypeError(f"array() got multiple values for argument '{name}'")
    warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array positionally is deprecated. "
                  "Use keyword arguments instead.", DeprecationWarning, stacklevel=3)
    return (*args, *given[len(args):])


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None) -> Any:
    """`a` as an array (on `device` if given), without copying an array
    that already has `dtype`. copy=False with host data bound for a GPU is
    JAX's ValueError (a copy is needed)."""
    if copy is False and not isinstance(a, ArrayBase) and _has_buffer(a):
        platform = _platform(device, "jnp.asarray")
        if platform != "cpu":
            raise ValueError(f"jnp.asarray: cannot convert object of type {type(a)} to a jaxc Array on "
                             f"platform={platform} with copy=False. Consider using copy=None or copy=True instead.")
    return array(a, dtype=dtype, copy=bool(copy), order=order, device=device)


def _platform(device: Any, fn: str) -> str:
    """The platform of `device` (a Device, a Sharding, None: the default device)."""
    from ..dispatch import default_device
    from ..sharding import Sharding
    device = check_device(device, fn) or default_device()
    return next(iter(device.device_set)).platform if isinstance(device, Sharding) else device.platform


def _has_buffer(x: Any) -> bool:
    try:
        memoryview(x)
    except TypeError:
        return False
    return True


def copy(a: Any, order: str | None = None) -> Any:
    """A new array with the contents of `a`."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """An array with the contents of `x`, any object with ``__dlpack__`` and
    ``__dlpack_device__`` (a NumPy or jaxc array, a host torch tensor...),
    on `device`: `jaxc.dlpack.from_dlpack`."""
    from ..dlpack import from_dlpack as _from_dlpack
    return _from_dlpack(x, device=device, copy=copy)


# ---------------------------------------------------------------------------
# Filled arrays
# ---------------------------------------------------------------------------

def _filled(shape: tuple[int, ...], value: Any, dtype: np.dtype, weak: bool) -> Any:
    out = lax.full(shape, value, dtype)
    return lax._with_weak(out, True) if weak and not out.weak_type else out


def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Any:
    """An array of `shape` filled with `fill_value` (a scalar, or an array
    broadcast to `shape`), on `device` if given; the dtype is fill_value's
    unless given."""
    return place(_full(shape, fill_value, dtype), device, "jnp.full")


def _full(shape: Any, fill_value: Any, dtype: Any) -> Any:
    shape = static_shape(shape, "full")
    dtype = _dtype_arg(dtype, "full")
    check_arraylike("full", fill_value)
    if np.ndim(fill_value) != 0:
        return broadcast_to(array(fill_value, dtype, copy=False), shape, "full")
    value_dtype, weak = _leaf_type(fill_value, "full")
    return _filled(shape, fill_value, dtype or value_dtype, weak and dtype is None)


def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    """An array of zeros (default dtype float32)."""
    out = lax.full(static_shape(shape, "zeros"), 0, _dtype_arg(dtype, "zeros") or dtypes.default_float())
    return place(out, device, "jnp.zeros")


def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    """An array of ones (default dtype float32)."""
    out = lax.full(static_shape(shape, "ones"), 1, _dtype_arg(dtype, "ones") or dtypes.default_float())
    return place(out, device, "jnp.ones")


def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Any:
    """Zeros: jaxc arrays are never uninitialized."""
    out = lax.full(static_shape(shape, "empty"), 0, _dtype_arg(dtype, "empty") or dtypes.default_float())
    return place(out, device, "jnp.empty")


def _like(a: Any, fn: str) -> tuple[tuple[int, ...], np.dtype, bool]:
    """(shape, dtype, weak_type) of `a` without computing anything."""
    if isinstance(a, ArrayBase):
        return a.shape, a.dtype, a.weak_type
    check_arraylike(fn, a)
    dtype, weak = _leaf_type(a, fn)
    return np.shape(a), dtype, weak


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """`fill_value` in the shape and dtype of `a` (either may be overridden);
    keeps a's weak type when the dtype is not given."""
    return place(_full_like(a, fill_value, dtype, shape, "full_like"), device, "jnp.full_like")


def _full_like(a: Any, fill_value: Any, dtype: Any, shape: Any, fn: str) -> Any:
    a_shape, a_dtype, a_weak = _like(a, fn)
    shape = a_shape if shape is None else static_shape(shape, fn)
    dtype = _dtype_arg(dtype, fn)
    check_arraylike(fn, fill_value)
    if np.ndim(fill_value) != 0:
        out = broadcast_to(array(fill_value, dtype or a_dtype, copy=False), shape, fn)
    else:
        out = _filled(shape, fill_value, dtype or a_dtype, a_weak and dtype is None)
    return vary_like(out, a)  # in a shard_map body, typed as `a` (as JAX's)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """Zeros in the shape and dtype of `a`."""
    return place(_full_like(a, 0, dtype, shape, "zeros_like"), device, "jnp.zeros_like")


def ones_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """Ones in the shape and dtype of `a`."""
    return place(_full_like(a, 1, dtype, shape, "ones_like"), device, "jnp.ones_like")


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """`zeros_like`: jaxc arrays are never uninitialized."""
    return place(_full_like(prototype, 0, dtype, shape, "empty_like"), device, "jnp.empty_like")


# ---------------------------------------------------------------------------
# Ranges
# ---------------------------------------------------------------------------

def _static_scalar(x: Any, what: str, fn: str) -> Any:
    """A static number (Python, NumPy, or a concrete 0-d Array)."""
    if isinstance(x, core.Tracer):  # known only outside jit (an eager grad's argument)
        x = core.concrete(x, f"the {what} argument of jnp.{fn}").tolist()
    if isinstance(x, ArrayBase):
        if x.ndim:
            raise TypeError(f"jnp.{fn}: {what} must be a scalar, got an array of shape {x.shape}")
        return np.asarray(x)[()]
    if np.ndim(x):
        raise TypeError(f"jnp.{fn}: {what} must be a scalar, got shape {np.shape(x)}")
    return x


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, device: Any = None) -> Any:
    """Evenly spaced values in [start, stop) (static arguments; one argument
    is the stop), on `device` if given. Ints give the default int, any float
    the default float, unless `dtype` is given."""
    return place(_arange(start, stop, step, dtype), device, "jnp.arange")


def _arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
    given = {what: _static_scalar(v, what, "arange")
             for what, v in (("start", start), ("stop", stop), ("step", step)) if v is not None}
    dtype = _dtype_arg(dtype, "arange") or dtypes.promote(*[_leaf_type(v, "arange") for v in given.values()])[0]
    low, high = (0, given["start"]) if stop is None else (given["start"], given["stop"])
    stride = given.get("step", 1)
    if stride == 0:
        raise ZeroDivisionError("jnp.arange: step must not be zero")  # JAX's class
    value = np.arange(low, high, stride, dtype=dtype)
    if _eager() or low != 0 or stride != 1 or value.size == 0:
        return lax.constant(value)
    return lax.iota(dtype, value.size)  # traced: [0, n) as one op, not an n-element constant


# Linear spacing runs the same formula on the host (NumPy, for static
# bounds: a constant results) or as lax ops (for array bounds).
_HOST_OPS = SimpleNamespace(
    asarray=lambda x, dtype: np.asarray(x, dtype), iota=lambda dtype, n: np.arange(n, dtype=dtype),
    reshape=np.reshape, broadcast_to=np.broadcast_to, concatenate=np.concatenate,
    convert=lambda x, dtype: np.asarray(x).astype(dtype), floor=np.floor, power=np.power,
    log10=np.log10, sign=np.sign, full=lambda shape, value, dtype: np.full(shape, value, dtype))


def _device_ops() -> SimpleNamespace:
    from . import _elementwise as ew
    return SimpleNamespace(
        asarray=lambda x, dtype: array(x, dtype, copy=False), iota=lax.iota, reshape=lax.reshape,
        broadcast_to=lambda x, shape: broadcast_to(x, shape), concatenate=lax.concatenate,
        convert=lax.convert_element_type, floor=lax.floor, power=ew.power, log10=ew.log10, sign=ew.sign,
        full=lax.full)


def _ops_for(*values: Any) -> SimpleNamespace:
    return _device_ops() if any(isinstance(v, ArrayBase) for v in values) else _HOST_OPS


def _inexact_result(fn: str, dtype: Any, *values: Any) -> tuple[np.dtype, np.dtype]:
    """(result dtype, computation dtype): JAX's promotion of the bounds made
    inexact, unless `dtype` is given; ints compute in the default float."""
    if dtype is None:
        dtype = dtypes.promote(*[_leaf_type(v, fn) for v in values])[0]
        if not dtypes.is_float(dtype):
            dtype = dtypes.default_float()
    return dtype, (dtype if dtypes.is_float(dtype) else dtypes.default_float())


def _bounds_shape(fn: str, *values: Any) -> list[int]:
    return list(broadcast_shapes(fn, *[np.shape(v) if not isinstance(v, ArrayBase) else v.shape
                                       for v in values]))


def _linspace(ops: SimpleNamespace, start: Any, stop: Any, num: int, endpoint: bool, compute: np.dtype,
              axis: int, fn: str) -> tuple[Any, Any]:
    """(samples, step) in the `compute` dtype, as NumPy values or jaxc arrays."""
    bounds = _bounds_shape(fn, start, stop)
    axis = canonicalize_axis(axis, len(bounds) + 1, fn)
    start = ops.broadcast_to(ops.asarray(start, compute), tuple(bounds))
    stop = ops.broadcast_to(ops.asarray(stop, compute), tuple(bounds))
    out_shape = tuple(bounds[:axis] + [1] + bounds[axis:])
    divisions = num - 1 if endpoint else num
    if num > 1:
        delta = (stop - start) / ops.asarray(divisions, compute)
        step_shape = [1] * len(out_shape)
        step_shape[axis] = divisions
        fraction = ops.reshape(ops.iota(compute, divisions), tuple(step_shape)) / ops.asarray(divisions, compute)
        # The operators broadcast for NumPy values and jaxc arrays alike; this
        # form hits both end points exactly.
        out = ops.reshape(start, out_shape) * (1 - fraction) + ops.reshape(stop, out_shape) * fraction
        if endpoint:
            out = ops.concatenate([out, ops.reshape(stop, out_shape)], axis)
    elif num == 1:
        delta = ops.full((), np.nan, compute) if endpoint else stop - start
        out = ops.reshape(start, out_shape)
    else:
        delta = ops.full((), np.nan, compute)
        out = ops.full(out_shape[:axis] + (0,) + out_shape[axis + 1:], 0, compute)
    return out, delta


def _finish(ops: SimpleNamespace, out: Any, dtype: np.dtype) -> Any:
    """Convert to the result dtype; host results become one constant."""
    out = ops.convert(out, dtype)
    return lax.constant(np.asarray(out, dtype)) if ops is _HOST_OPS else out


def _sample_count(num: Any, fn: str) -> int:
    num = _static_int(num, "num", fn)
    if num < 0:
        raise ValueError(f"jnp.{fn}: number of samples, {num}, must be non-negative")
    return num


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:
    """`num` evenly spaced values from start to stop (inclusive unless not
    `endpoint`); array bounds broadcast and the samples run along `axis`.
    Integer dtypes take the floor, as NumPy does."""
    num = _sample_count(num, "linspace")
    dtype, compute = _inexact_result("linspace", _dtype_arg(dtype, "linspace"), start, stop)
    ops = _ops_for(start, stop)
    out, delta = _linspace(ops, start, stop, num, endpoint, compute, axis, "linspace")
    if dtypes.is_int(dtype):
        out = ops.floor(out)
    out = _finish(ops, out, dtype)
    return place((out, _finish(ops, delta, compute)) if retstep else out, device, "jnp.linspace")


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
    """``base ** linspace(start, stop, num)``."""
    num = _sample_count(num, "logspace")
    dtype, compute = _inexact_result("logspace", _dtype_arg(dtype, "logspace"), start, stop)
    ops = _ops_for(start, stop, base)
    exponents, _ = _linspace(ops, start, stop, num, endpoint, compute, axis, "logspace")
    return _finish(ops, ops.power(ops.asarray(base, compute), exponents), dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
    """`num` values from start to stop spaced evenly on a log scale (start
    and stop of one sign; zero is an error for static bounds)."""
    num = _sample_count(num, "geomspace")
    dtype, compute = _inexact_result("geomspace", _dtype_arg(dtype, "geomspace"), start, stop)
    ops = _ops_for(start, stop)
    if ops is _HOST_OPS and (np.any(np.asarray(start) == 0) or np.any(np.asarray(stop) == 0)):
        raise ValueError("jnp.geomspace: a geometric sequence cannot include zero")
    start, stop = ops.asarray(start, compute), ops.asarray(stop, compute)
    sign = ops.sign(start)
    exponents, _ = _linspace(ops, ops.log10(start / sign), ops.log10(stop / sign), num, endpoint, compute,
                             axis, "geomspace")
    axis = canonicalize_axis(axis, exponents.ndim, "geomspace")
    sign = ops.broadcast_to(sign, tuple(np.delete(exponents.shape, axis)))
    sign = ops.reshape(sign, tuple(exponents.shape[:axis]) + (1,) + tuple(exponents.shape[axis + 1:]))
    return _finish(ops, sign * ops.power(ops.asarray(10.0, compute), exponents), dtype)


# ---------------------------------------------------------------------------
# Diagonals and triangles
# ---------------------------------------------------------------------------

# Which (row i, column j) of an n x m grid a band selects, given offset k.
_BANDS = {
    "diagonal": (lambda n, m, k: np.eye(n, m, k, dtype=bool), lax.eq),     # j - i == k
    "lower": (lambda n, m, k: np.tri(n, m, k, dtype=bool), lax.le),        # j - i <= k
    "upper": (lambda n, m, k: ~np.tri(n, m, k - 1, dtype=bool), lax.ge),   # j - i >= k
}


def _band(kind: str, n: int, m: int, k: int, shape: Sequence[int] | None = None) -> Any:
    """A bool n x m mask (broadcast to `shape` if given): a host constant
    outside jit, two iotas and a comparison inside."""
    host, compare = _BANDS[kind]
    shape = tuple(shape) if shape is not None else (n, m)
    if _eager():
        return lax.constant(np.ascontiguousarray(np.broadcast_to(host(n, m, k), shape)))
    index = dtypes.int64 if max(n, m, abs(k)) >= 2 ** 31 - 1 else dtypes.int32
    offset = lax.sub(lax.broadcasted_iota(index, (n, m), 1), lax.broadcasted_iota(index, (n, m), 0))
    mask = compare(offset, lax.full((n, m), k, index))
    return lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def _band_array(kind: str, n: int, m: int, k: int, dtype: np.dtype) -> Any:
    mask = _band(kind, n, m, k)
    if _eager():
        return lax.constant(np.asarray(mask).astype(dtype))
    return lax.convert_element_type(mask, dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, *, device: Any = None) -> Any:
    """Ones on the k-th diagonal of an N x M matrix, zeros elsewhere."""
    n = _static_int(N, "N", "eye")
    m = n if M is None else _static_int(M, "M", "eye")
    k = _static_int(k, "k", "eye")
    if n < 0 or m < 0:  # JAX's eye checks this itself: a ValueError (other shapes: TypeError)
        raise ValueError(f"jnp.eye: negative dimensions are not allowed, got {n} and {m}")
    out = _band_array("diagonal", n, m, k, _dtype_arg(dtype, "eye") or dtypes.default_float())
    return place(out, device, "jnp.eye")


def identity(n: int, dtype: Any = None) -> Any:
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones at and below the k-th diagonal (default dtype float32, as JAX)."""
    n = _static_int(N, "N", "tri")
    m = n if M is None else _static_int(M, "M", "tri")
    k = _static_int(k, "k", "tri")
    static_shape((n, m), "tri")
    return _band_array("lower", n, m, k, _dtype_arg(dtype, "tri") or dtypes.float32)


def _triangle(fn: str, kind: str, m: Any, k: Any) -> Any:
    x = _asarray(m, fn=fn)
    k = _static_int(k, "k", fn)
    if x.ndim < 2:
        raise ValueError(f"jnp.{fn}: the argument must be at least 2-D, got shape {x.shape}")
    mask = _band(kind, x.shape[-2], x.shape[-1], k, x.shape)
    return lax.select(mask, x, lax.full_like(x, 0))


def tril(m: Any, k: int = 0) -> Any:
    """`m` with the elements above the k-th diagonal zeroed (last two axes)."""
    return _triangle("tril", "lower", m, k)


def triu(m: Any, k: int = 0) -> Any:
    """`m` with the elements below the k-th diagonal zeroed (last two axes)."""
    return _triangle("triu", "upper", m, k)


def diag(v: Any, k: int = 0) -> Any:
    """1-d `v`: a matrix with v on the k-th diagonal; 2-d `v`: its k-th diagonal."""
    x = _asarray(v, fn="diag")
    k = _static_int(k, "k", "diag")
    if x.ndim == 1:
        n = x.shape[0] + abs(k)
        padded = lax.pad(x, 0, [(0, abs(k), 0)]) if k else x
        # Row i of the result reads v[i] (k >= 0); column j reads v[j] (k < 0).
        spread = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
        return lax.select(_band("diagonal", n, n, k), spread, lax.full_like(spread, 0))
    if x.ndim == 2:
        return _diagonal(x, k)
    raise ValueError(f"jnp.diag: the input must be 1-d or 2-d, got shape {x.shape}")


def _diagonal(x: Any, k: int) -> Any:
    """The k-th diagonal of a matrix: a strided slice of its flattening."""
    n, m = x.shape
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    if length == 0:
        return lax.full_like(x, 0, shape=(0,))
    start = k if k >= 0 else -k * m
    flat = lax.reshape(x, (n * m,))
    return lax.slice(flat, (start,), (start + (length - 1) * (m + 1) + 1,), (m + 1,))


def diagflat(v: Any, k: int = 0) -> Any:
    """A matrix with the flattened `v` on the k-th diagonal."""
    x = _asarray(v, fn="diagflat")
    return diag(lax.reshape(x, (x.size,)), k)


# ---------------------------------------------------------------------------
# Grids and index arrays
# ---------------------------------------------------------------------------

def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list[Any]:
    """Coordinate arrays from 1-d coordinate vectors; ``indexing='xy'``
    swaps the first two output axes (Cartesian), 'ij' does not (matrix)."""
    arrays = [_asarray(x, fn="meshgrid") for x in xi]
    if any(a.ndim != 1 for a in arrays):
        raise ValueError(f"jnp.meshgrid: arguments must be 1-D, got shapes {[a.shape for a in arrays]}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"jnp.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(arrays)
    for a, axis in zip(arrays, axes):
        shape[axis] = a.shape[0]
    outputs = []
    for a, axis in zip(arrays, axes):
        if sparse:
            outputs.append(lax.reshape(a, tuple(d if i == axis else 1 for i, d in enumerate(shape))))
        else:
            outputs.append(lax.broadcast_in_dim(a, tuple(shape), (axis,)))
    return outputs


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """The index of every position of a grid of shape `dimensions`:
    ``(len(dimensions), *dimensions)``, or a tuple of broadcastable arrays."""
    dims = static_shape(dimensions, "indices")
    dtype = _dtype_arg(dtype, "indices") or dtypes.default_int()
    if _eager():
        if sparse:
            return tuple(lax.constant(g) for g in np.indices(dims, dtype=dtype, sparse=True))
        return lax.constant(np.indices(dims, dtype=dtype))
    if sparse:
        return tuple(lax.reshape(lax.iota(dtype, d), tuple(d if j == i else 1 for j in range(len(dims))))
                     for i, d in enumerate(dims))
    grids = [lax.broadcasted_iota(dtype, (1, *dims), i + 1) for i in range(len(dims))]
    return lax.concatenate(grids, 0) if grids else lax.constant(np.zeros((0,), dtype))


def _index_arrays(host: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
    return tuple(lax.constant(np.asarray(h, dtypes.default_int())) for h in host)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """(rows, columns) of the lower triangle (below the k-th diagonal) of an n x m matrix."""
    n = _static_int(n, "n", "tril_indices")
    m = n if m is None else _static_int(m, "m", "tril_indices")
    return _index_arrays(np.tril_indices(n, _static_int(k, "k", "tril_indices"), m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """(rows, columns) of the upper triangle (above the k-th diagonal) of an n x m matrix."""
    n = _static_int(n, "n", "triu_indices")
    m = n if m is None else _static_int(m, "m", "triu_indices")
    return _index_arrays(np.triu_indices(n, _static_int(k, "k", "triu_indices"), m))


def _matrix_shape(arr: Any, fn: str) -> tuple[int, int]:
    shape = arr.shape if isinstance(arr, ArrayBase) else np.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"jnp.{fn}: the input must be 2-d, got shape {tuple(shape)}")
    return shape


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    n, m = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    n, m = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    """Indices of the main diagonal of an n x ... x n array (`ndim` copies of arange(n))."""
    n = _static_int(n, "n", "diag_indices")
    ndim = _static_int(ndim, "ndim", "diag_indices")
    if n < 0 or ndim < 0:
        raise ValueError(f"jnp.diag_indices: n and ndim must be non-negative, got n={n}, ndim={ndim}")
    return _index_arrays(np.diag_indices(n, ndim))


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    shape = arr.shape if isinstance(arr, ArrayBase) else np.shape(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"jnp.diag_indices_from: the input must be square with at least 2 dimensions, "
                         f"got shape {tuple(shape)}")
    return diag_indices(shape[0], len(shape))


__all__ = ["arange", "array", "asarray", "copy", "diag", "diag_indices", "diag_indices_from", "diagflat",
           "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "geomspace", "identity",
           "indices", "linspace", "logspace", "meshgrid", "ones", "ones_like", "tri", "tril", "tril_indices",
           "tril_indices_from", "triu", "triu_indices", "triu_indices_from", "zeros", "zeros_like"]
