"""Shared helpers of `jaxc.numpy`: converting arguments, promoting dtypes
and broadcasting shapes with JAX's rules, normalizing axes. Errors name the
jnp function and the shapes involved."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import core, dtypes, lax
from .._config import config
from ..core import ArrayBase

_ARRAYLIKE = (ArrayBase, np.ndarray, np.generic, bool, int, float, complex)


def check_arraylike(fn: str, x: Any) -> None:
    """JAX's `check_arraylike`: jnp functions take arrays and scalars, not
    Python lists or tuples (only `jnp.array`/`jnp.asarray` convert those),
    nor strings, None or other objects, even with ``__array__`` (unless they
    have ``__jax_array__``)."""
    if isinstance(x, _ARRAYLIKE) or hasattr(x, "__jax_array__"):
        return
    if isinstance(x, (list, tuple)):
        raise TypeError(f"jnp.{fn} requires ndarray or scalar arguments, got {type(x)} "
                        f"(JAX does not accept lists or tuples here: use jnp.asarray(x))")
    raise TypeError(f"jnp.{fn} requires ndarray or scalar arguments, got {type(x)}: "
                    f"{_short_repr(x)} is not an array")


def _short_repr(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def asarray(x: Any, dtype: Any = None, fn: str = "asarray", *, lists: bool = False) -> Any:
    """`x` as an Array/Tracer (a copy only when converting). Python scalars
    are weakly typed. A list or tuple is a TypeError (`check_arraylike`)
    unless `lists`: then lists and tuples of arrays are stacked."""
    if isinstance(x, ArrayBase):
        if dtype is None:
            return x
        return lax.convert_element_type(x, dtype)
    if not lists:
        check_arraylike(fn, x)
    if isinstance(x, (list, tuple)):
        if any(isinstance(leaf, ArrayBase) for leaf in _flat(x)):
            from . import _shape
            return _shape.stack([asarray(e, dtype, fn, lists=True) for e in x]) if x else \
                lax.constant(np.zeros((0,), dtypes.canonicalize(dtype or float)))
    if hasattr(x, "__jax_array__"):
        return asarray(x.__jax_array__(), dtype, fn, lists=lists)
    if dtype is None and isinstance(x, (bool, int, float, complex)):
        scalar_dtype, weak = dtypes.scalar_dtype(x)
        _check_int_range(x, scalar_dtype, fn)
        return lax.constant(np.asarray(x, scalar_dtype), weak_type=weak)
    try:
        value = np.asarray(x)
    except (TypeError, ValueError) as error:
        raise TypeError(f"jnp.{fn}: cannot convert {type(x).__name__} to an array: {error}") from None
    if value.dtype == object or (value.dtype.kind in "USVO" and not dtypes.is_float(value.dtype)):
        raise TypeError(f"jnp.{fn}: cannot convert {type(x).__name__} of dtype {value.dtype} to an "
                        "array (only numbers and booleans)")
    target = dtypes.canonicalize(dtype if dtype is not None else value.dtype)
    if isinstance(x, int) and not isinstance(x, bool):
        _check_int_range(x, target, fn)
    return lax.constant(value.astype(target, copy=False))


_SCALAR_ARRAYS: dict[tuple, Any] = {}


def _scalar_array(x: Any, dtype: np.dtype, weak: bool, fn: str) -> Any:
    """A ready 0-d Array holding the Python scalar `x` (eager mode). Arrays
    are immutable, so the common scalars of a program (``x * 2.0``) are
    made once and reused."""
    key = (type(x), x.hex() if type(x) is float else x, dtype, weak)  # hex: -0.0 != 0.0
    array = _SCALAR_ARRAYS.get(key)
    if array is None:
        _check_int_range(x, dtype, fn)
        array = lax.constant(np.asarray(x, dtype), weak_type=weak)
        if len(_SCALAR_ARRAYS) < 4096:
            _SCALAR_ARRAYS[key] = array
    return array


def _check_int_range(x: Any, dtype: np.dtype, fn: str) -> None:
    if isinstance(x, int) and not isinstance(x, bool) and np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"jnp.{fn}: Python int {x} is too large to convert to {np.dtype(dtype).name}")


def _flat(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for e in x for leaf in _flat(e)]
    return [x]


def broadcast_shapes(fn: str, *shapes: Sequence[int], operands: bool = False) -> tuple[int, ...]:
    """NumPy broadcasting of `shapes`; the error names `fn` and the shapes.
    JAX raises ValueError from jnp.broadcast_shapes/broadcast_arrays/where;
    with `operands` (the operands of a ufunc or lax-style op) the type
    follows their ranks (`_operand_shape_error`), decided only on failure."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(ndim):
        size = 1
        for shape in shapes:
            d = shape[axis - ndim + len(shape)] if axis - ndim + len(shape) >= 0 else 1
            if d == 1:
                continue
            if size not in (1, d):
                error = _operand_shape_error(shapes) if operands else ValueError
                raise error(f"jnp.{fn}: incompatible shapes for broadcasting: "
                                 f"{', '.join(str(tuple(s)) for s in shapes)}")
            size = d
        result.append(size)
    return tuple(result)


def broadcast_to(x: Any, shape: Sequence[int], fn: str = "broadcast_to") -> Any:
    x = asarray(x, fn=fn)
    shape = tuple(int(d) for d in shape)
    if x.shape == shape:
        return x
    if len(shape) < x.ndim:
        raise ValueError(f"jnp.{fn}: cannot broadcast shape {x.shape} to the smaller rank shape {shape}")
    lead = len(shape) - x.ndim
    for i, d in enumerate(x.shape):
        if d != 1 and d != shape[lead + i]:
            raise ValueError(f"jnp.{fn}: cannot broadcast shape {x.shape} to {shape}")
    keep = [i for i, d in enumerate(x.shape) if d == shape[lead + i]]
    squeezed = [i for i in range(x.ndim) if i not in keep]
    if squeezed:
        x = lax.reshape(x, tuple(x.shape[i] for i in keep))
    return lax.broadcast_in_dim(x, shape, tuple(lead + i for i in keep))


def promote_dtypes(fn: str, *args: Any) -> list[Any]:
    """Convert `args` to arrays of their common dtype (JAX's promotion;
    weak Python scalars adapt to the arrays)."""
    first = args[0] if args else None
    if isinstance(first, ArrayBase) and not first.aval.weak_type:
        # The common case: strong arrays of one canonical dtype (64-bit ones
        # become 32-bit without x64) need nothing.
        dtype = first.aval.dtype
        if (all(isinstance(a, ArrayBase) and a.aval.dtype == dtype and not a.aval.weak_type
                for a in args[1:]) and (dtype.itemsize < 8 or dtypes.x64_enabled())):
            return list(args)
    for a in args:
        check_arraylike(fn, a)
    args = tuple(asarray(a, fn=fn) if hasattr(a, "__jax_array__") and not isinstance(a, ArrayBase) else a
                 for a in args)
    typed = [dtypes.dtype_and_weak(a) for a in args]
    dtype, weak = dtypes.promote(*typed)
    out = []
    eager = core.current_scope() is None
    for a, (a_dtype, a_weak) in zip(args, typed):
        if isinstance(a, ArrayBase):
            out.append(a if a.dtype == dtype and a.weak_type == weak else
                       lax.convert_element_type(a, dtype, weak))
        elif eager and type(a) in (int, float, bool):
            out.append(_scalar_array(a, dtype, weak, fn))
        else:
            arr = asarray(a, dtype, fn)
            out.append(lax._with_weak(arr, weak) if arr.weak_type != weak else arr)
    return out


def promote_dtypes_inexact(fn: str, *args: Any) -> list[Any]:
    """As `promote_dtypes`, then ints and bools become floats
    (`dtypes.to_inexact`: int32 -> float32, int64 -> float64)."""
    out = promote_dtypes(fn, *args)
    if out and not dtypes.is_float(out[0].dtype):
        target = dtypes.to_inexact(out[0].dtype)
        weak = out[0].weak_type
        out = [lax.convert_element_type(a, target, weak) for a in out]
    return out


def _operand_shape_error(shapes: Sequence[Sequence[int]]) -> type:
    """The exception JAX raises for operands of a jnp op that do not
    broadcast: TypeError from lax's shape check when the operands that are
    not scalars have one rank ((3,) + (4,), also with a 0-d third operand),
    ValueError from jnp's rank promotion otherwise ((3, 4) + (3,))."""
    return TypeError if len({len(s) for s in shapes if len(s)}) <= 1 else ValueError


def promote_args(fn: str, *args: Any) -> list[Any]:
    """Promote dtypes and broadcast shapes (what every binary jnp op does)."""
    first = getattr(args[0], "aval", None)
    if first is not None and all(getattr(a, "aval", None) == first for a in args[1:]):
        return list(args)  # the common case: nothing to do
    arrays = promote_dtypes(fn, *args)
    shape = broadcast_shapes(fn, *[a.shape for a in arrays], operands=True)
    check_rank_promotion(fn, [a.shape for a in arrays])
    return [broadcast_to(a, shape, fn) for a in arrays]


def promote_args_inexact(fn: str, *args: Any) -> list[Any]:
    arrays = promote_dtypes_inexact(fn, *args)
    shape = broadcast_shapes(fn, *[a.shape for a in arrays], operands=True)
    check_rank_promotion(fn, [a.shape for a in arrays])
    return [broadcast_to(a, shape, fn) for a in arrays]


def check_rank_promotion(fn: str, shapes: Sequence[Sequence[int]]) -> None:
    """`jax_numpy_rank_promotion` ('warn'/'raise'): JAX's warning or error
    when `fn` broadcasts operands of different ranks (see `_toplevel`)."""
    if config.jax_numpy_rank_promotion != "allow":
        from .._toplevel import check_rank_promotion as check
        check(fn, shapes)


def canonicalize_axis(axis: Any, ndim: int, fn: str) -> int:
    """`axis` in [0, ndim) (negative counts from the end); error names `fn`."""
    if isinstance(axis, core.Tracer):  # known only outside jit (an eager grad's argument)
        axis = core.concrete(axis, f"the axis argument of jnp.{fn}").tolist()
    try:
        axis = int(lax._ops.operator_index(axis))
    except TypeError:
        raise TypeError(f"jnp.{fn}: axis must be an int, got {axis!r}") from None
    if not -ndim <= axis < ndim:  # NumPy's AxisError: a ValueError (as JAX's) and an IndexError
        raise np.exceptions.AxisError(f"jnp.{fn}: axis {axis} is out of bounds for an array of "
                                      f"dimension {ndim}")
    return axis % ndim if ndim else 0


def canonicalize_axes(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """None -> all axes; int or tuple -> sorted normalized tuple (no repeats)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(canonicalize_axis(a, ndim, fn) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"jnp.{fn}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def static_shape(shape: Any, fn: str) -> tuple[int, ...]:
    """A shape argument (int or sequence of ints) as a tuple; tracers are a
    concretization error."""
    if isinstance(shape, core.Tracer):  # known only outside jit (an eager grad's argument)
        shape = core.concrete(shape, f"the shape argument of jnp.{fn}").tolist()
    seq = shape if isinstance(shape, (tuple, list)) else (shape,)
    out = []
    for d in seq:
        if isinstance(d, core.Tracer):
            raise core.ConcretizationTypeError(d, f"the shape argument of jnp.{fn}")
        try:
            out.append(int(lax._ops.operator_index(d)))
        except TypeError:
            raise TypeError(f"jnp.{fn}: shape must be ints, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise TypeError(f"jnp.{fn}: negative dimensions are not allowed, got {tuple(out)}")  # JAX's class
    return tuple(out)


def place(x: Any, device: Any, fn: str) -> Any:
    """`x` (an array or a pytree of them) put on `device`, a Device or a
    Sharding, by `jaxc.device_put` (None: left where it is; a traced value
    stays as it is)."""
    if device is None:
        return x
    from ..api import device_put
    return device_put(x, check_device(device, fn))


def check_device(device: Any, fn: str) -> Any:
    """`device` if it is None, a Device or a Sharding; else JAX's ValueError."""
    from ..dispatch import Device
    from ..sharding import Sharding
    if device is not None and not isinstance(device, (Device, Sharding)):
        raise ValueError(f"{fn}: device={device!r} must be a jaxc Device or a Sharding (see "
                         "jaxc.devices(), jaxc.sharding)")
    return device
