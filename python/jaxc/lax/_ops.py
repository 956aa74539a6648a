"""`jaxc.lax` primitives: one `Primitive` per `jaxc` op, and the functions
users call (``lax.add(x, y)``, ``lax.broadcast_in_dim(x, shape, dims)``).

Like JAX's lax, these functions do not promote dtypes or broadcast: operands
must agree (a Python scalar takes the dtype of the array beside it). The
`jaxc.numpy` layer promotes and broadcasts, then calls these.

Each primitive's `build` makes its op with the classes generated from the
ODS, so result types come from the dialect's own inference:

    lax.sin(x)   ->   %1 = jaxc.sin %0 : tensor<3xf32>
"""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np
import mlir.ir as ir

import jaxc.dialect as jd

from .. import core, dtypes
from ..core import ArrayBase, Primitive, ShapedArray

# ---------------------------------------------------------------------------
# Operands
# ---------------------------------------------------------------------------


def _array(x: Any, what: str, dtype: Any = None) -> Any:
    """`x` as an Array/Tracer; Python scalars and NumPy values are converted
    (to `dtype` when given)."""
    if isinstance(x, ArrayBase):
        return x
    from ..array import Array
    scope = core.current_scope()
    if isinstance(x, (list, tuple)):
        raise TypeError(f"lax.{what}: expected an array, got a {type(x).__name__}; use jnp.asarray first")
    try:
        array = Array._from_value(x, dtype)
    except TypeError as error:
        raise TypeError(f"lax.{what}: {error}") from None
    if scope is None:
        return array
    return constant(array._ready_value(), weak_type=array.weak_type)


def _same(what: str, *xs: Any) -> list[Any]:
    """Operands of an n-ary elementwise primitive: same shape and dtype."""
    arrays = [x for x in xs if isinstance(x, ArrayBase)]
    like = arrays[0] if arrays else None
    out = [x if isinstance(x, ArrayBase) else _array(x, what, like.dtype if like is not None else None)
           for x in xs]
    first = out[0].aval
    for x in out[1:]:
        if x.dtype != first.dtype:
            raise TypeError(f"lax.{what} requires arguments to have the same dtypes, got "
                            f"{', '.join(y.dtype.name for y in out)}")
        if x.shape != first.shape:
            raise TypeError(f"lax.{what} got incompatible shapes "
                            f"{', '.join(str(y.shape) for y in out)} (lax does not broadcast; "
                            "jnp does)")
    return out


def constant(value: Any, dtype: Any = None, weak_type: bool = False) -> Any:
    """A constant array: a ready Array outside a trace, a `jaxc.constant`
    inside one."""
    from ..array import Array
    array = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
    scope = core.current_scope()
    if scope is None:
        result = Array._from_value(array)
        if weak_type:
            result.aval = ShapedArray(result.shape, result.dtype, True)
        return result
    array = array.astype(dtypes.canonicalize(array.dtype), copy=False)
    with core.context(), core.user_location(), ir.InsertionPoint(scope.block):
        return scope.tracer(core.constant_value(array), weak_type)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

def _unary(name: str, op: type, **kw: Any) -> Primitive:
    return Primitive(name, lambda x: op(x).result, **kw)


def _binary(name: str, op: type) -> Primitive:
    return Primitive(name, lambda x, y: op(x, y).result)


_never_weak = lambda avals, **params: False  # noqa: E731

UNARY = {name: _unary(name, op) for name, op in {
    "neg": jd.NegOp, "abs": jd.AbsOp, "sign": jd.SignOp, "exp": jd.ExpOp, "exp2": jd.Exp2Op,
    "expm1": jd.Expm1Op, "log": jd.LogOp, "log1p": jd.Log1pOp, "sin": jd.SinOp, "cos": jd.CosOp,
    "tan": jd.TanOp, "asin": jd.AsinOp, "acos": jd.AcosOp, "atan": jd.AtanOp, "sinh": jd.SinhOp,
    "cosh": jd.CoshOp, "tanh": jd.TanhOp, "asinh": jd.AsinhOp, "acosh": jd.AcoshOp,
    "atanh": jd.AtanhOp, "logistic": jd.LogisticOp, "sqrt": jd.SqrtOp, "rsqrt": jd.RsqrtOp,
    "cbrt": jd.CbrtOp, "floor": jd.FloorOp, "ceil": jd.CeilOp, "not": jd.NotOp, "erf": jd.ErfOp,
    "erf_inv": jd.ErfInvOp, "lgamma": jd.LgammaOp, "digamma": jd.DigammaOp,
    "population_count": jd.PopulationCountOp, "clz": jd.ClzOp,
    "stop_gradient": jd.StopGradientOp,
}.items()}
UNARY["is_finite"] = _unary("is_finite", jd.IsFiniteOp, weak=_never_weak)

BINARY = {name: _binary(name, op) for name, op in {
    "add": jd.AddOp, "sub": jd.SubOp, "mul": jd.MulOp, "div": jd.DivOp, "rem": jd.RemOp,
    "pow": jd.PowOp, "max": jd.MaxOp, "min": jd.MinOp, "atan2": jd.Atan2Op, "and": jd.AndOp,
    "or": jd.OrOp, "xor": jd.XorOp, "shift_left": jd.ShiftLeftOp,
    "shift_right_logical": jd.ShiftRightLogicalOp,
    "shift_right_arithmetic": jd.ShiftRightArithmeticOp, "nextafter": jd.NextAfterOp,
}.items()}

_DIRECTIONS = {"eq": jd.ComparisonDirection.EQ, "ne": jd.ComparisonDirection.NE,
               "lt": jd.ComparisonDirection.LT, "le": jd.ComparisonDirection.LE,
               "gt": jd.ComparisonDirection.GT, "ge": jd.ComparisonDirection.GE}
COMPARE = Primitive("compare", lambda x, y, direction: jd.CompareOp(_DIRECTIONS[direction], x, y).result,
                    weak=_never_weak)
ROUND = Primitive("round", lambda x, method: jd.RoundOp(x, rounding_method=getattr(
    jd.RoundingMethod, method)).result)
SELECT = Primitive("select", lambda p, t, f: jd.SelectOp(p, t, f).result,
                   weak=lambda avals: avals[1].weak_type and avals[2].weak_type)
CLAMP = Primitive("clamp", lambda lo, x, hi: jd.ClampOp(lo, x, hi).result)
CONVERT = Primitive("convert_element_type",
                    lambda x, dtype, weak_type: jd.ConvertOp(core.ir_type(
                        ir.RankedTensorType(x.type).shape, dtype), x).result,
                    weak=lambda avals, dtype, weak_type: weak_type)
BITCAST = Primitive("bitcast_convert_type", lambda x, dtype, shape: jd.BitcastConvertOp(
    core.ir_type(shape, dtype), x).result, weak=_never_weak)


def _define_unary(name: str):
    prim = UNARY[name]

    def apply(x: Any) -> Any:
        return prim.bind(_array(x, name))
    apply.__name__ = apply.__qualname__ = {"not": "bitwise_not"}.get(name, name)
    apply.__doc__ = f"Elementwise `jaxc.{name}`."
    return apply


def _define_binary(name: str):
    prim = BINARY[name]

    def apply(x: Any, y: Any) -> Any:
        return prim.bind(*_same(name, x, y))
    apply.__name__ = apply.__qualname__ = {"and": "bitwise_and", "or": "bitwise_or",
                                           "xor": "bitwise_xor"}.get(name, name)
    apply.__doc__ = f"Elementwise `jaxc.{name}` (operands of one shape and dtype)."
    return apply


neg, abs, sign, exp, exp2, expm1, log, log1p, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, \
    asinh, acosh, atanh, logistic, sqrt, rsqrt, cbrt, floor, ceil, bitwise_not, erf, erf_inv, \
    lgamma, digamma, population_count, clz, is_finite = (_define_unary(n) for n in (
        "neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log1p", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "sqrt",
        "rsqrt", "cbrt", "floor", "ceil", "not", "erf", "erf_inv", "lgamma", "digamma",
        "population_count", "clz", "is_finite"))
_stop_gradient = _define_unary("stop_gradient")

add, sub, mul, div, rem, pow, max, min, atan2, bitwise_and, bitwise_or, bitwise_xor, shift_left, \
    shift_right_logical, shift_right_arithmetic, nextafter = (_define_binary(n) for n in (
        "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "and", "or", "xor",
        "shift_left", "shift_right_logical", "shift_right_arithmetic", "nextafter"))


def stop_gradient(x: Any) -> Any:
    """The identity, whose derivative is zero (applied to every leaf of a pytree)."""
    from ..tree_util import tree_map
    return tree_map(lambda leaf: _stop_gradient(leaf), x)


def _compare(direction: str):
    def apply(x: Any, y: Any) -> Any:
        return COMPARE.bind(*_same(direction, x, y), direction=direction)
    apply.__name__ = apply.__qualname__ = direction
    apply.__doc__ = f"Elementwise comparison `{direction}` (a bool array)."
    return apply


eq, ne, lt, le, gt, ge = (_compare(d) for d in ("eq", "ne", "lt", "le", "gt", "ge"))


def round(x: Any, rounding_method: str = "AwayFromZero") -> Any:
    """Round to an integral value: ``AwayFromZero`` (0) or ``ToNearestEven`` (1)."""
    method = {0: "AwayFromZero", 1: "ToNearestEven"}.get(rounding_method, rounding_method)
    if method not in ("AwayFromZero", "ToNearestEven"):
        raise ValueError(f"lax.round: unknown rounding_method {rounding_method!r}")
    return ROUND.bind(_array(x, "round"), method=method)


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`on_true` where `pred`, else `on_false` (all of one shape)."""
    on_true, on_false = _same("select", on_true, on_false)
    pred = _array(pred, "select")
    if pred.dtype != np.bool_:
        raise TypeError(f"lax.select: the predicate must be bool, got {pred.dtype.name}")
    if pred.shape != on_true.shape:
        raise TypeError(f"lax.select: predicate shape {pred.shape} differs from the operands' "
                        f"{on_true.shape}")
    return SELECT.bind(pred, on_true, on_false)


def clamp(min: Any, x: Any, max: Any) -> Any:
    """Clamp `x` into [min, max] (bounds of x's shape, or 0-d)."""
    x = _array(x, "clamp")
    lo = _array(min, "clamp", x.dtype)
    hi = _array(max, "clamp", x.dtype)
    return CLAMP.bind(lo, x, hi)


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Cast to `new_dtype` (float->int truncates toward zero and saturates, NaN->0)."""
    x = _array(x, "convert_element_type")
    dtype = dtypes.canonicalize(new_dtype)
    if x.dtype == dtype and x.weak_type == weak_type:
        return x
    if x.dtype == dtype:
        return _with_weak(x, weak_type)
    return CONVERT.bind(x, dtype=dtype, weak_type=weak_type)


def _with_weak(x: Any, weak_type: bool) -> Any:
    """`x` with its weak-type flag changed (no computation)."""
    from ..array import Array
    if isinstance(x, Array):
        out = Array._pending(ShapedArray(x.shape, x.dtype, weak_type), None, 0, x.device) \
            if x._value is None else Array._ready(x._value, ShapedArray(x.shape, x.dtype, weak_type), x.device)
        if x._value is None:
            out._task, out._index = x._task, x._index
        return out
    return core.Tracer(x.scope, x.value, ShapedArray(x.shape, x.dtype, weak_type))


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    """Reinterpret the bits; a narrower type adds a trailing dimension, a
    wider one consumes it."""
    x = _array(x, "bitcast_convert_type")
    dtype = dtypes.canonicalize(new_dtype)
    old, new = x.dtype.itemsize, dtype.itemsize
    if old == new:
        shape = x.shape
    elif old > new:
        shape = (*x.shape, old // new)
    else:
        if not x.shape or x.shape[-1] != new // old:
            raise TypeError(f"lax.bitcast_convert_type: {x.dtype.name}{list(x.shape)} to "
                            f"{dtype.name} needs a last dimension of {new // old}")
        shape = x.shape[:-1]
    return BITCAST.bind(x, dtype=dtype, shape=shape)


# ---------------------------------------------------------------------------
# Creation and shape
# ---------------------------------------------------------------------------

IOTA = Primitive("iota", lambda dtype, shape, dimension: jd.IotaOp(core.ir_type(shape, dtype), dimension).result)
BROADCAST_IN_DIM = Primitive("broadcast_in_dim", lambda x, shape, broadcast_dimensions: jd.BroadcastInDimOp(
    core.ir_type(shape, core.aval_of_type(x.type).dtype), x, list(broadcast_dimensions)).result)
RESHAPE = Primitive("reshape", lambda x, new_sizes: jd.ReshapeOp(
    core.ir_type(new_sizes, core.aval_of_type(x.type).dtype), x).result)
TRANSPOSE = Primitive("transpose", lambda x, permutation: jd.TransposeOp(x, list(permutation)).result)
REV = Primitive("rev", lambda x, dimensions: jd.ReverseOp(x, list(dimensions)).result)
SLICE = Primitive("slice", lambda x, start, limit, strides: jd.SliceOp(
    x, list(start), list(limit), list(strides)).result)
DYNAMIC_SLICE = Primitive("dynamic_slice", lambda x, *idx, slice_sizes: jd.DynamicSliceOp(
    x, list(idx), list(slice_sizes)).result)
DYNAMIC_UPDATE_SLICE = Primitive("dynamic_update_slice", lambda x, u, *idx: jd.DynamicUpdateSliceOp(
    x, u, list(idx)).result)
CONCATENATE = Primitive("concatenate", lambda *xs, dimension: jd.ConcatenateOp(list(xs), dimension).result)
PAD = Primitive("pad", lambda x, v, low, high, interior: jd.PadOp(
    x, v, list(low), list(high), list(interior)).result)
SQUEEZE = Primitive("squeeze", lambda x, dimensions: jd.SqueezeOp(x, list(dimensions)).result)
EXPAND_DIMS = Primitive("expand_dims", lambda x, dimensions: jd.ExpandDimsOp(x, list(dimensions)).result)


def iota(dtype: Any, size: int) -> Any:
    """[0, 1, ..., size-1] of `dtype`."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """An array of `shape` counting along `dimension`."""
    shape = _shape(shape, "broadcasted_iota")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"lax.broadcasted_iota: dimension {dimension} out of range for shape {shape}")
    return IOTA.bind(dtype=dtypes.canonicalize(dtype), shape=shape, dimension=int(dimension))


def _shape(shape: Any, what: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(operator_index(d)) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    except TypeError:
        raise TypeError(f"{what}: shapes must be tuples of Python ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{what}: negative dimension in shape {dims}")
    return dims


def operator_index(d: Any) -> int:
    import operator
    if isinstance(d, core.Tracer):
        raise core.ConcretizationTypeError(d, "a shape or size")
    return operator.index(d)


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Broadcast `x` to `shape`; operand dimension i becomes result
    dimension broadcast_dimensions[i] (sizes equal or 1)."""
    x = _array(x, "broadcast_in_dim")
    shape = _shape(shape, "lax.broadcast_in_dim")
    dims = tuple(int(d) for d in broadcast_dimensions)
    if x.shape == shape and dims == tuple(range(len(shape))):
        return x
    if x.size == 1 and core.current_scope() is None and getattr(x, "_value", None) is not None:
        # Eagerly, filling with a known scalar is host work, not a kernel launch.
        from ..array import Array
        value = np.full(shape, x._value.reshape(()), x.dtype)
        value.flags.writeable = False
        return Array._ready(value, ShapedArray(shape, x.dtype, x.weak_type), x.device)
    return BROADCAST_IN_DIM.bind(x, shape=shape, broadcast_dimensions=dims)


def broadcast(x: Any, sizes: Sequence[int]) -> Any:
    """Add leading dimensions `sizes`."""
    x = _array(x, "broadcast")
    sizes = _shape(sizes, "lax.broadcast")
    return broadcast_in_dim(x, sizes + x.shape, tuple(range(len(sizes), len(sizes) + x.ndim)))


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """Same elements in row-major order, new shape (`dimensions`: transpose first)."""
    x = _array(x, "reshape")
    if dimensions is not None:
        x = transpose(x, dimensions)
    new_sizes = _shape(new_sizes, "lax.reshape")
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"lax.reshape: cannot reshape an array of shape {x.shape} (size {x.size}) "
                        f"into shape {new_sizes}")
    if new_sizes == x.shape:
        return x
    return RESHAPE.bind(x, new_sizes=new_sizes)


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    x = _array(x, "transpose")
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(x.ndim)):
        return x
    return TRANSPOSE.bind(x, permutation=permutation)


def rev(x: Any, dimensions: Sequence[int]) -> Any:
    """Reverse the order of elements along `dimensions`."""
    x = _array(x, "rev")
    dimensions = tuple(int(d) for d in dimensions)
    if not dimensions:
        return x
    return REV.bind(x, dimensions=dimensions)


def slice(x: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Any:
    x = _array(x, "slice")
    start = tuple(int(s) for s in start_indices)
    limit = tuple(int(s) for s in limit_indices)
    strides = tuple(int(s) for s in strides) if strides is not None else (1,) * x.ndim
    if start == (0,) * x.ndim and limit == x.shape and strides == (1,) * x.ndim:
        return x
    return SLICE.bind(x, start=start, limit=limit, strides=strides)


def slice_in_dim(x: Any, start_index: int | None, limit_index: int | None, stride: int = 1,
                 axis: int = 0) -> Any:
    x = _array(x, "slice_in_dim")
    start = [0] * x.ndim
    limit = list(x.shape)
    strides = [1] * x.ndim
    size = x.shape[axis]
    start[axis] = 0 if start_index is None else (start_index + size if start_index < 0 else start_index)
    limit[axis] = size if limit_index is None else (limit_index + size if limit_index < 0 else limit_index)
    strides[axis] = stride
    return slice(x, start, limit, strides)


def index_in_dim(x: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    x = _array(x, "index_in_dim")
    size = x.shape[axis]
    if index < 0:
        index += size
    if not 0 <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _index_scalars(indices: Sequence[Any], what: str) -> list[Any]:
    out = []
    for i in indices:
        i = _array(i, what, dtypes.default_int() if isinstance(i, int) else None)
        if i.ndim != 0 or not (dtypes.is_int(i.dtype)):
            raise TypeError(f"lax.{what}: start indices must be 0-d integers, got {i.aval.str_short()}")
        out.append(i)
    return out


def dynamic_slice(x: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int]) -> Any:
    """A `slice_sizes` window at run-time `start_indices` (clamped into range)."""
    x = _array(x, "dynamic_slice")
    idx = _index_scalars(start_indices, "dynamic_slice")
    return DYNAMIC_SLICE.bind(x, *idx, slice_sizes=_shape(slice_sizes, "lax.dynamic_slice"))


def dynamic_update_slice(x: Any, update: Any, start_indices: Sequence[Any]) -> Any:
    x = _array(x, "dynamic_update_slice")
    update = _array(update, "dynamic_update_slice", x.dtype)
    idx = _index_scalars(start_indices, "dynamic_update_slice")
    return DYNAMIC_UPDATE_SLICE.bind(x, update, *idx)


def dynamic_index_in_dim(x: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
    x = _array(x, "dynamic_index_in_dim")
    starts = [0] * x.ndim
    starts[axis] = index
    sizes = list(x.shape)
    sizes[axis] = 1
    out = dynamic_slice(x, starts, sizes)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_index_in_dim(x: Any, update: Any, index: Any, axis: int) -> Any:
    x = _array(x, "dynamic_update_index_in_dim")
    update = _array(update, "dynamic_update_index_in_dim", x.dtype)
    if update.ndim == x.ndim - 1:
        update = expand_dims(update, (axis,))
    starts = [0] * x.ndim
    starts[axis] = index
    return dynamic_update_slice(x, update, starts)


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    xs = [_array(x, "concatenate") for x in operands]
    if not xs:
        raise ValueError("lax.concatenate needs at least one operand")
    if len(xs) == 1:
        return xs[0]
    return CONCATENATE.bind(*xs, dimension=int(dimension))


def pad(x: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """Pad with (low, high, interior) per dimension (negative low/high crop)."""
    x = _array(x, "pad")
    value = _array(padding_value, "pad", x.dtype)
    config = [tuple(int(v) for v in c) for c in padding_config]
    if len(config) != x.ndim:
        raise ValueError(f"lax.pad: padding_config has {len(config)} entries for a {x.ndim}-d operand")
    low, high, interior = (tuple(c[k] for c in config) for k in range(3))
    return PAD.bind(x, value, low=low, high=high, interior=interior)


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    x = _array(x, "squeeze")
    dimensions = tuple(int(d) for d in dimensions)
    if not dimensions:
        return x
    return SQUEEZE.bind(x, dimensions=dimensions)


def expand_dims(x: Any, dimensions: Sequence[int]) -> Any:
    x = _array(x, "expand_dims")
    dimensions = tuple(int(d) for d in dimensions)
    if not dimensions:
        return x
    return EXPAND_DIMS.bind(x, dimensions=dimensions)


# ---------------------------------------------------------------------------
# Gather and scatter
# ---------------------------------------------------------------------------

class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]


GATHER = Primitive("gather", lambda x, idx, offset_dims, collapsed, start_map, index_vector_dim, slice_sizes:
                   jd.GatherOp(x, idx, list(offset_dims), list(collapsed), list(start_map), index_vector_dim,
                               list(slice_sizes)).result, weak=lambda avals, **p: avals[0].weak_type)


def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int]) -> Any:
    """XLA gather; the index vector is the last dimension of `start_indices`.
    Out-of-range windows are clamped into the operand."""
    operand = _array(operand, "gather")
    idx = _array(start_indices, "gather")
    dn = dimension_numbers
    return GATHER.bind(operand, idx, offset_dims=tuple(dn.offset_dims),
                       collapsed=tuple(dn.collapsed_slice_dims), start_map=tuple(dn.start_index_map),
                       index_vector_dim=idx.ndim - 1, slice_sizes=tuple(int(s) for s in slice_sizes))


def _combiner(kind: str):
    ops = {"add": jd.AddOp, "mul": jd.MulOp, "min": jd.MinOp, "max": jd.MaxOp}
    return ops.get(kind)


def _build_scatter(x, idx, upd, kind, update_window_dims, inserted, dims_map, index_vector_dim):
    op = jd.ScatterOp(x.type, x, idx, upd, list(update_window_dims), list(inserted), list(dims_map),
                      index_vector_dim)
    scalar = core.ir_type((), core.aval_of_type(x.type).dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        combine = _combiner(kind)
        new = block.arguments[1] if combine is None else combine(block.arguments[0], block.arguments[1]).result
        jd.YieldOp([new])
    return op.result


SCATTER = Primitive("scatter", _build_scatter, weak=lambda avals, **p: avals[0].weak_type)
SCATTER_KINDS = ("set", "add", "mul", "min", "max")


def scatter(operand: Any, scatter_indices: Any, updates: Any,
            dimension_numbers: ScatterDimensionNumbers, kind: str = "set") -> Any:
    """XLA scatter combining with `kind` (set/add/mul/min/max); the index
    vector is the last dimension of the indices; out-of-range windows are
    skipped."""
    if kind not in SCATTER_KINDS:
        raise ValueError(f"lax.scatter: kind must be one of {SCATTER_KINDS}, got {kind!r}")
    operand = _array(operand, "scatter")
    idx = _array(scatter_indices, "scatter")
    updates = _array(updates, "scatter", operand.dtype)
    dn = dimension_numbers
    return SCATTER.bind(operand, idx, updates, kind=kind,
                        update_window_dims=tuple(dn.update_window_dims),
                        inserted=tuple(dn.inserted_window_dims),
                        dims_map=tuple(dn.scatter_dims_to_operand_dims), index_vector_dim=idx.ndim - 1)


def scatter_add(operand, scatter_indices, updates, dimension_numbers):
    return scatter(operand, scatter_indices, updates, dimension_numbers, "add")


# ---------------------------------------------------------------------------
# Reductions, sorting, contractions
# ---------------------------------------------------------------------------

_REDUCE_KINDS = {"sum": jd.ReduceKind.Sum, "prod": jd.ReduceKind.Prod, "max": jd.ReduceKind.Max,
                 "min": jd.ReduceKind.Min, "and": jd.ReduceKind.And, "or": jd.ReduceKind.Or}
REDUCE = Primitive("reduce", lambda x, kind, axes: jd.ReduceOp(_REDUCE_KINDS[kind], x, list(axes)).result)
_CUMULATIVE_KINDS = {"sum": jd.CumulativeKind.Sum, "prod": jd.CumulativeKind.Prod,
                     "max": jd.CumulativeKind.Max, "min": jd.CumulativeKind.Min}
CUMULATIVE = Primitive("cumulative", lambda x, kind, axis, reverse: jd.CumulativeOp(
    _CUMULATIVE_KINDS[kind], x, axis, reverse=reverse or None).result)
ARGMAX = Primitive("argmax", lambda x, axis, index_dtype: jd.ArgMaxOp(core.ir_type(
    _drop(ir.RankedTensorType(x.type).shape, axis), index_dtype), x, axis).result, weak=_never_weak)
ARGMIN = Primitive("argmin", lambda x, axis, index_dtype: jd.ArgMinOp(core.ir_type(
    _drop(ir.RankedTensorType(x.type).shape, axis), index_dtype), x, axis).result, weak=_never_weak)
SORT = Primitive("sort", lambda *xs, dimension, is_stable, num_keys: jd.SortOp(
    list(xs), dimension, num_keys=num_keys, is_stable=is_stable or None).results,
    multiple_results=True)


def _drop(shape: Sequence[int], axis: int) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(shape) if i != axis)


def _reducer(kind: str):
    def apply(x: Any, axes: Sequence[int]) -> Any:
        x = _array(x, f"reduce_{kind}")
        axes = tuple(sorted(int(a) for a in axes))
        if not axes:
            return x
        return REDUCE.bind(x, kind=kind, axes=axes)
    apply.__name__ = apply.__qualname__ = f"reduce_{kind}"
    apply.__doc__ = f"Reduce with {kind} over `axes` (they disappear)."
    return apply


reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_and, reduce_or = (
    _reducer(k) for k in ("sum", "prod", "max", "min", "and", "or"))


def _cumulative(kind: str):
    def apply(x: Any, axis: int = 0, reverse: bool = False) -> Any:
        x = _array(x, f"cum{kind}")
        return CUMULATIVE.bind(x, kind=kind, axis=int(axis), reverse=bool(reverse))
    apply.__name__ = apply.__qualname__ = f"cum{kind}"
    return apply


cumsum, cumprod, cummax, cummin = (_cumulative(k) for k in ("sum", "prod", "max", "min"))


def argmax(x: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the first maximum along `axis` (NaN counts as the maximum)."""
    return ARGMAX.bind(_array(x, "argmax"), axis=int(axis), index_dtype=dtypes.canonicalize(index_dtype))


def argmin(x: Any, axis: int, index_dtype: Any) -> Any:
    return ARGMIN.bind(_array(x, "argmin"), axis=int(axis), index_dtype=dtypes.canonicalize(index_dtype))


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """Sort along `dimension`; several operands sort together by the first
    `num_keys` (a tuple in, a tuple out)."""
    multiple = isinstance(operand, (tuple, list))
    xs = [_array(x, "sort") for x in (operand if multiple else [operand])]
    dimension = int(dimension) % xs[0].ndim if xs[0].ndim else 0
    outs = SORT.bind(*xs, dimension=dimension, is_stable=bool(is_stable), num_keys=int(num_keys))
    return tuple(outs) if multiple else outs[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple[Any, Any]:
    return sort((keys, values), dimension, is_stable, 1)


def _build_dot(x, y, lc, rc, lb, rb, preferred):
    results = None if preferred is None else [core.ir_type(
        _dot_shape(ir.RankedTensorType(x.type).shape, ir.RankedTensorType(y.type).shape, lc, rc, lb, rb),
        preferred)]
    return jd.DotGeneralOp(x, y, list(lb), list(rb), list(lc), list(rc), results=results).result


def _dot_shape(ls, rs, lc, rc, lb, rb) -> tuple[int, ...]:
    batch = [ls[d] for d in lb]
    lfree = [d for i, d in enumerate(ls) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(rs) if i not in rc and i not in rb]
    return tuple(batch + lfree + rfree)


DOT_GENERAL = Primitive("dot_general", _build_dot, weak=lambda avals, **p: False)


def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Any:
    """Contract ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``;
    result dims are batch, lhs free, rhs free."""
    lhs = _array(lhs, "dot_general")
    rhs = _array(rhs, "dot_general")
    (lc, rc), (lb, rb) = dimension_numbers
    preferred = None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    return DOT_GENERAL.bind(lhs, rhs, lc=tuple(lc), rc=tuple(rc), lb=tuple(lb), rb=tuple(rb),
                            preferred=preferred)


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Vector/matrix product of 1-d or 2-d operands."""
    lhs = _array(lhs, "dot")
    rhs = _array(rhs, "dot")
    if lhs.ndim not in (1, 2) or rhs.ndim not in (1, 2):
        raise TypeError(f"lax.dot takes 1-d or 2-d operands, got shapes {lhs.shape} and {rhs.shape}")
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (0,)), ((), ())),
                       preferred_element_type=preferred_element_type)


def _build_conv(x, w, window_strides, padding, lhs_dilation, rhs_dilation, lhs_spec, rhs_spec, out_spec,
                feature_group_count, batch_group_count, preferred):
    results = None
    op = jd.ConvGeneralDilatedOp(x, w, list(window_strides), [p for pair in padding for p in pair],
                                 list(lhs_dilation), list(rhs_dilation), list(lhs_spec), list(rhs_spec),
                                 list(out_spec), feature_group_count=feature_group_count,
                                 batch_group_count=batch_group_count, results=results)
    if preferred is None:
        return op.result
    shape = ir.RankedTensorType(op.result.type).shape
    op.operation.erase()
    return jd.ConvGeneralDilatedOp(x, w, list(window_strides), [p for pair in padding for p in pair],
                                   list(lhs_dilation), list(rhs_dilation), list(lhs_spec), list(rhs_spec),
                                   list(out_spec), feature_group_count=feature_group_count,
                                   batch_group_count=batch_group_count,
                                   results=[core.ir_type(shape, preferred)]).result


CONV = Primitive("conv_general_dilated", _build_conv, weak=lambda avals, **p: False)


def _conv_specs(dimension_numbers: Any, ndim: int) -> tuple[tuple[int, ...], ...]:
    if dimension_numbers is None:
        default = tuple(range(ndim))
        return default, default, default
    if all(isinstance(s, str) for s in dimension_numbers):
        lhs, rhs, out = dimension_numbers
        spatial_l = [c for c in lhs if c not in "NC"]
        spatial_r = [c for c in rhs if c not in "OI"]

        def spec(text: str, first: str, second: str, spatial: list[str], ref: list[str]) -> tuple[int, ...]:
            return (text.index(first), text.index(second), *[text.index(c) for c in ref])
        return (spec(lhs, "N", "C", spatial_l, spatial_l), spec(rhs, "O", "I", spatial_r, spatial_r),
                spec(out, "N", "C", spatial_l, [c for c in out if c not in "NC"]))
    return tuple(tuple(int(d) for d in s) for s in dimension_numbers)


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None) -> Any:
    """General dilated convolution; `padding` is "VALID", "SAME" or
    (low, high) pairs; `dimension_numbers` strings such as ("NHWC", "HWIO", "NHWC")."""
    lhs = _array(lhs, "conv_general_dilated")
    rhs = _array(rhs, "conv_general_dilated")
    nspatial = lhs.ndim - 2
    lhs_spec, rhs_spec, out_spec = _conv_specs(dimension_numbers, lhs.ndim)
    strides = tuple(window_strides)
    lhs_dilation = tuple(lhs_dilation or (1,) * nspatial)
    rhs_dilation = tuple(rhs_dilation or (1,) * nspatial)
    if isinstance(padding, str):
        in_sizes = [lhs.shape[d] for d in lhs_spec[2:]]
        k_sizes = [(rhs.shape[d] - 1) * rd + 1 for d, rd in zip(rhs_spec[2:], rhs_dilation)]
        if padding.upper() == "VALID":
            padding = [(0, 0)] * nspatial
        elif padding.upper() == "SAME":
            padding = []
            for size, k, s in zip(in_sizes, k_sizes, strides):
                out = -(-size // s)
                total = builtins_max((out - 1) * s + k - size, 0)
                padding.append((total // 2, total - total // 2))
        else:
            raise ValueError(f"lax.conv_general_dilated: padding must be 'VALID', 'SAME' or pairs, got {padding!r}")
    padding = tuple(tuple(int(p) for p in pair) for pair in padding)
    preferred = None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    return CONV.bind(lhs, rhs, window_strides=strides, padding=padding, lhs_dilation=lhs_dilation,
                     rhs_dilation=rhs_dilation, lhs_spec=lhs_spec, rhs_spec=rhs_spec, out_spec=out_spec,
                     feature_group_count=int(feature_group_count), batch_group_count=int(batch_group_count),
                     preferred=preferred)


import builtins as _builtins  # noqa: E402
builtins_max = _builtins.max

# ---------------------------------------------------------------------------
# Random bits
# ---------------------------------------------------------------------------

THREEFRY = Primitive("threefry2x32", lambda k0, k1, x0, x1: jd.Threefry2x32Op(k0, k1, x0, x1).results,
                     multiple_results=True, weak=_never_weak)
RANDOM_BITS = Primitive("random_bits", lambda key, shape, dtype: jd.RandomBitsOp(
    core.ir_type(shape, dtype), key).result, weak=_never_weak)


def threefry2x32(key0: Any, key1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """The Threefry-2x32 block cipher (20 rounds) on uint32 arrays."""
    args = [_array(a, "threefry2x32", dtypes.uint32) for a in (key0, key1, x0, x1)]
    return tuple(THREEFRY.bind(*args))


def random_bits(key: Any, bit_width: int, shape: Sequence[int]) -> Any:
    """Unsigned random bits from a uint32[2] key (JAX's partitionable threefry)."""
    dtype = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}[bit_width]
    return RANDOM_BITS.bind(_array(key, "random_bits"), shape=_shape(shape, "random_bits"), dtype=dtype)


# ---------------------------------------------------------------------------
# Small conveniences used by jnp
# ---------------------------------------------------------------------------

def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of `shape` filled with `fill_value`."""
    shape = _shape(shape, "lax.full")
    dtype = dtypes.canonicalize(dtype) if dtype is not None else dtypes.dtype_and_weak(fill_value)[0]
    if isinstance(fill_value, ArrayBase):
        value = convert_element_type(fill_value, dtype)
        if value.ndim:
            raise TypeError(f"lax.full: fill_value must be a scalar, got shape {value.shape}")
    else:
        value = constant(np.asarray(fill_value, dtype))
    return broadcast_in_dim(value, shape, ())


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Any:
    """`fill_value` in the shape (and dtype, unless given) of `x`; keeps x's weak type."""
    dtype = dtypes.canonicalize(dtype) if dtype is not None else x.dtype
    out = full(x.shape if shape is None else shape, fill_value, dtype)
    if dtype == x.dtype and x.weak_type and not out.weak_type:
        out = _with_weak(out, True)
    return out


_SIGNED_OF_WIDTH = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def bitcast_sign(x: Any) -> Any:
    """A float array's bits as a signed integer of the same width (negative
    exactly when the sign bit is set, -0.0 and NaNs included)."""
    return bitcast_convert_type(x, _SIGNED_OF_WIDTH[x.dtype.itemsize])
