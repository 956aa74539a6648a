"""`jaxc.lax` primitives: one `Primitive` per `jaxc` op, and the functions
users call (``lax.add(x, y)``, ``lax.broadcast_in_dim(x, shape, dims)``).

Like JAX's lax, these functions do not promote dtypes: operands must agree
(a Python or NumPy scalar takes the dtype of the array beside it), and
elementwise ops broadcast only 0-d operands and size-1 dimensions of equal
rank. The `jaxc.numpy` layer promotes and broadcasts, then calls these.

Each primitive's `build` makes its op with the classes generated from the
ODS, so result types come from the dialect's own inference, and the
dialect's verifier checks the op at once, so a bad operand or attribute is
reported at the user's line (a `TypeError` naming the op):

    lax.sin(x)   ->   %1 = jaxc.sin %0 : tensor<3xf32>
"""
from __future__ import annotations

import builtins
import enum
import operator
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import mlir.ir as ir
import numpy as np

import jaxc.dialect as jd
from jaxc.dialect import op_table

from .. import core, dtypes
from .._config import config
from ..core import ArrayBase, Primitive, ShapedArray

# ---------------------------------------------------------------------------
# Operands
# ---------------------------------------------------------------------------


_PYTHON_SCALARS = (bool, int, float, complex)


def _array_of(x: Any) -> Any:
    """`core.as_operand`'s conversion while jaxc.numpy is not loaded."""
    return _array(x, "asarray")


def _array(x: Any, what: str, dtype: Any = None) -> Any:
    """`x` as an Array/Tracer; Python scalars and NumPy values are converted
    (to `dtype` when given; a Python scalar stays weakly typed)."""
    if isinstance(x, ArrayBase):
        return x
    from ..array import Array
    scope = core.current_scope()
    if isinstance(x, (list, tuple)):
        raise TypeError(f"lax.{what}: expected an array, got a {type(x).__name__}; use jnp.asarray first")
    try:
        array = Array._from_value(x, dtype)
    except (TypeError, OverflowError) as error:
        raise type(error)(f"lax.{what}: {error}") from None
    weak = array.weak_type or type(x) in _PYTHON_SCALARS
    if scope is None:
        if weak != array.weak_type:
            array.aval = ShapedArray(array.shape, array.dtype, weak)
        return array
    return constant(array._ready_value(), weak_type=weak)


# The kind of a Python or NumPy scalar -> the dtype kinds it may adopt from
# the array beside it (a float never silently becomes an integer, nor an int
# a bool).
_SCALAR_KINDS = {bool: "b", int: "i", float: "f", complex: "c", "b": "b", "i": "i", "u": "i", "f": "f",
                 "c": "c"}
_ADOPTS = {"b": "biufc", "i": "iufc", "f": "fc", "c": "c"}


def _scalar_kind(x: Any) -> str | None:
    """"b", "i", "f" or "c" for a Python or NumPy scalar, None for anything else."""
    if isinstance(x, np.generic):
        return _SCALAR_KINDS.get(x.dtype.kind)
    return _SCALAR_KINDS.get(type(x))


def _same(what: str, *xs: Any) -> list[Any]:
    """Operands of an n-ary elementwise primitive, of one dtype and shape.

    A Python or NumPy scalar takes the dtype of the first array operand
    (when its kind fits); as in JAX, a 0-d operand broadcasts, and so do
    size-1 dimensions between operands of equal rank (no new leading
    dimensions)."""
    first = xs[0]
    if isinstance(first, ArrayBase):  # the common case: arrays of one shape and dtype
        strong = first.aval.strong
        for x in xs[1:]:
            if not isinstance(x, ArrayBase) or x.aval.strong != strong:
                break
        else:
            return list(xs)
    kinds = [_scalar_kind(x) for x in xs]
    arrays = [x if kind else _array(x, what) for x, kind in zip(xs, kinds)]
    like = next((a.dtype for a, kind in zip(arrays, kinds) if not kind), None)
    out = [x if not kind else _like(x, what, like) if like is not None else _array(x, what)
           for x, kind in zip(arrays, kinds)]
    first = out[0].aval
    if any(x.dtype != first.dtype for x in out[1:]):
        raise TypeError(f"lax.{what} requires arguments to have the same dtypes, got "
                        f"{', '.join(y.dtype.name for y in out)}")
    if all(x.shape == first.shape for x in out[1:]):
        return out
    shape = _broadcast_shape(what, [x.shape for x in out])
    return [x if x.shape == shape else
            broadcast_in_dim(x, shape, tuple(range(x.ndim))) for x in out]


def _broadcast_shape(what: str, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The common shape of elementwise operands: 0-d ones broadcast, and
    size-1 dimensions of operands of equal rank."""
    ranked = [s for s in shapes if s]
    if not ranked:
        return ()
    if len({len(s) for s in ranked}) == 1:
        dims = []
        for sizes in zip(*ranked):
            big = set(sizes) - {1}
            if len(big) > 1:
                break
            dims.append(big.pop() if big else 1)
        else:
            return tuple(dims)
    raise TypeError(f"lax.{what} got incompatible shapes {', '.join(str(s) for s in shapes)} (lax "
                    "broadcasts only 0-d operands and size-1 dimensions of equal rank; jnp "
                    "broadcasts fully)")


def _ints(values: Any, what: str, name: str) -> tuple[int, ...]:
    """A static sequence of ints (axes, a permutation, sizes) as a tuple."""
    try:
        return tuple(int(operator_index(v)) for v in values)
    except (core.ConcretizationTypeError, core.TracerIntegerConversionError):
        raise
    except TypeError:
        raise TypeError(f"lax.{what}: {name} must be a sequence of ints, got {values!r}") from None


def _int(value: Any, what: str, name: str) -> int:
    """A static int (an axis, a count)."""
    try:
        return int(operator_index(value))
    except (core.ConcretizationTypeError, core.TracerIntegerConversionError):
        raise
    except TypeError:
        raise TypeError(f"lax.{what}: {name} must be an int, got {value!r}") from None


def _dtype(dtype: Any, what: str) -> np.dtype:
    """A dtype argument, canonicalized (64-bit types become 32-bit without x64)."""
    try:
        return dtypes.canonicalize(dtype)
    except TypeError as error:
        raise TypeError(f"lax.{what}: {error}") from None


def _like(x: Any, what: str, dtype: np.dtype) -> Any:
    """`x` as an operand beside an array of `dtype`: a Python or NumPy scalar
    takes that dtype when its kind fits; anything else is used as it is."""
    kind = _scalar_kind(x)
    return _array(x, what, dtype if kind and dtype.kind in _ADOPTS[kind] else None)


def _axis(axis: Any, ndim: int, what: str) -> int:
    """A static axis in [-ndim, ndim) as a non-negative int."""
    axis = _int(axis, what, "axis")
    if not -ndim <= axis < ndim:
        raise ValueError(f"lax.{what}: axis {axis} is out of range for an array of rank {ndim}")
    return axis % ndim


def _primitive(name: str, build: Callable[..., Any], **kw: Any) -> Primitive:
    """A Primitive whose op the dialect verifier checks as soon as it is
    built. The generated builders only infer result types, so without this
    an operand of the wrong type or a bad attribute would surface only when
    the module is compiled; this way the error names the op, the user's
    line and the verifier's message (see `core.build_checked`)."""
    def build_and_verify(*values: Any, **params: Any) -> Any:
        out = build(*values, **params)
        first = out if isinstance(out, ir.Value) else next(iter(out), None)
        if first is not None:
            op = first.owner
            try:
                op.verify()
            except ir.MLIRError:
                op.erase()
                raise
        return out
    return Primitive(name, build_and_verify, **kw)


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
        tracer = scope.tracer(core.constant_value(array), weak_type)
    tracer.recipe = array  # a constant's value is known (core.concrete)
    return tracer


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

_never_weak = lambda avals, **params: False  # noqa: E731
_NEVER_WEAK = {"is_finite"}  # a bool result, never weak (as in JAX)


def _elementwise_primitive(op_name: str) -> Primitive:
    """The primitive of an op of the "unary" or "binary" family: its operands
    in, its one result (inferred by the dialect) out."""
    name = op_name.removeprefix("jaxc.")
    op = getattr(jd, op_table.OPS[op_name].cls)
    return _primitive(name, lambda *xs: op(*xs).result, weak=_never_weak if name in _NEVER_WEAK else None)


# Every op of the two families of the op table (jaxc.dialect.op_table), by its short name.
UNARY = {name.removeprefix("jaxc."): _elementwise_primitive(name) for name in op_table.ops_in("unary")}
BINARY = {name.removeprefix("jaxc."): _elementwise_primitive(name) for name in op_table.ops_in("binary")}

_DIRECTIONS = {"eq": jd.ComparisonDirection.EQ, "ne": jd.ComparisonDirection.NE,
               "lt": jd.ComparisonDirection.LT, "le": jd.ComparisonDirection.LE,
               "gt": jd.ComparisonDirection.GT, "ge": jd.ComparisonDirection.GE}
COMPARE = _primitive("compare", lambda x, y, direction: jd.CompareOp(_DIRECTIONS[direction], x, y).result,
                     weak=_never_weak)
ROUND = _primitive("round", lambda x, method: jd.RoundOp(x, rounding_method=getattr(
    jd.RoundingMethod, method)).result)
SELECT = _primitive("select", lambda p, t, f: jd.SelectOp(p, t, f).result,
                    weak=lambda avals: avals[1].weak_type and avals[2].weak_type)
CLAMP = _primitive("clamp", lambda lo, x, hi: jd.ClampOp(lo, x, hi).result)
CONVERT = _primitive("convert_element_type",
                     lambda x, dtype, weak_type: jd.ConvertOp(core.ir_type(
                         ir.RankedTensorType(x.type).shape, dtype), x).result,
                     weak=lambda avals, dtype, weak_type: weak_type)
BITCAST = _primitive("bitcast_convert_type", lambda x, dtype, shape: jd.BitcastConvertOp(
    core.ir_type(shape, dtype), x).result, weak=_never_weak)


# JAX's names for the ops whose short names are Python keywords.
_PUBLIC_NAMES = {"not": "bitwise_not", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor"}


def _define_unary(name: str) -> Callable[[Any], Any]:
    prim = UNARY[name]

    def apply(x: Any) -> Any:
        return prim.bind(_array(x, name))
    apply.__name__ = apply.__qualname__ = _PUBLIC_NAMES.get(name, name)
    apply.__doc__ = f"Elementwise `jaxc.{name}`."
    return apply


def _define_binary(name: str) -> Callable[[Any, Any], Any]:
    prim = BINARY[name]

    def apply(x: Any, y: Any) -> Any:
        return prim.bind(*_same(name, x, y))
    apply.__name__ = apply.__qualname__ = _PUBLIC_NAMES.get(name, name)
    apply.__doc__ = f"Elementwise `jaxc.{name}` (operands of one shape and dtype)."
    return apply


# `lax.sin`, `lax.add`, `lax.bitwise_not`, ...: one function per primitive
# above. Those that check or convert their operands first (real, imag,
# conj, complex, pow, stop_gradient) are defined below and replace these.
globals().update({f.__name__: f for f in [*map(_define_unary, UNARY), *map(_define_binary, BINARY)]})
_stop_gradient = _define_unary("stop_gradient")

if TYPE_CHECKING:  # a type checker cannot see the functions made above
    def __getattr__(name: str): ...  # unannotated on purpose (docs/architecture.md)


def real(x: Any) -> Any:
    """The real part of a complex array (`jaxc.real`), of the parts' dtype."""
    return UNARY["real"].bind(_complex_operand(x, "real"))


def imag(x: Any) -> Any:
    """The imaginary part of a complex array (`jaxc.imag`)."""
    return UNARY["imag"].bind(_complex_operand(x, "imag"))


def conj(x: Any) -> Any:
    """The complex conjugate (`jaxc.conj`); a real array becomes complex, as in JAX."""
    x = _array(x, "conj")
    if not dtypes.is_complex(x.dtype):
        x = convert_element_type(x, dtypes.complex_dtype(x.dtype))
    return UNARY["conj"].bind(x)


def complex(x: Any, y: Any) -> Any:
    """`x + i * y` from two float arrays of one dtype (`jaxc.complex`)."""
    x, y = _same("complex", x, y)
    if not dtypes.is_float(x.dtype) or x.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"lax.complex requires float32 or float64 arguments, got {x.dtype.name}")
    return BINARY["complex"].bind(x, y)


def _complex_operand(x: Any, what: str) -> Any:
    x = _array(x, what)
    if not dtypes.is_complex(x.dtype):
        raise TypeError(f"lax.{what} requires a complex argument, got {x.dtype.name}")
    return x


def pow(x: Any, y: Any) -> Any:
    """Elementwise `x ** y`; as in JAX, an integer exponent may go with a
    float base (it is converted to the base's dtype)."""
    if _scalar_kind(x) is None and _scalar_kind(y) is None:
        x, y = _array(x, "pow"), _array(y, "pow")
        if dtypes.is_inexact(x.dtype) and (dtypes.is_int(y.dtype) or y.dtype == np.bool_):
            y = convert_element_type(y, x.dtype)
    return BINARY["pow"].bind(*_same("pow", x, y))


def integer_pow(x: Any, y: int) -> Any:
    """Elementwise `x ** y` for a Python integer `y`, as JAX computes it:
    repeated squaring and multiplying (in JAX's order, so the results agree
    bit for bit), `1 / x ** -y` for a negative `y`, ones for 0. `jnp.power`
    and `x ** 2` come here when the exponent is a Python or NumPy integer.

        integer_pow(x, 3)  ->  %0 = jaxc.mul %x, %x ; %1 = jaxc.mul %x, %0
    """
    x = _array(x, "integer_pow")
    if isinstance(y, (float, np.floating)) and float(y).is_integer():
        y = int(y)
    try:
        y = operator.index(y)
    except TypeError:
        raise TypeError(f"lax.integer_pow: the exponent must be an integer, got {y!r}") from None
    if y < 0 and not dtypes.is_float(x.dtype):
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.dtype.name}[{','.join(map(str, x.shape))}], {y})")
    if y == 0:
        return full_like(x, 1)
    mul, div = BINARY["mul"].bind, BINARY["div"].bind  # operands of one type
    exponent, base, acc = builtins.abs(y), x, None
    while exponent > 0:
        if exponent & 1:
            acc = base if acc is None else mul(acc, base)
        exponent >>= 1
        if exponent > 0:
            base = mul(base, base)
    return div(full_like(acc, 1), acc) if y < 0 else acc


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


class RoundingMethod(enum.IntEnum):
    """How `round` breaks ties (JAX's `lax.RoundingMethod`)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


# rounding_method as given (enum, int or the dialect's name) -> the dialect's name
_ROUNDING_METHODS = {0: "AwayFromZero", 1: "ToNearestEven", "AwayFromZero": "AwayFromZero",
                     "ToNearestEven": "ToNearestEven"}


def round(x: Any, rounding_method: Any = RoundingMethod.AWAY_FROM_ZERO) -> Any:
    """Round to an integral value, ties away from zero or to the nearest even
    (`RoundingMethod`, 0/1, or "AwayFromZero"/"ToNearestEven")."""
    method = _ROUNDING_METHODS.get(rounding_method) if isinstance(rounding_method, (int, str)) else None
    if method is None:
        raise ValueError(f"lax.round: unknown rounding_method {rounding_method!r} (use "
                         "lax.RoundingMethod.AWAY_FROM_ZERO or TO_NEAREST_EVEN)")
    return ROUND.bind(_array(x, "round"), method=method)


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`on_true` where `pred`, else `on_false` (cases of one shape; the
    predicate of that shape or 0-d)."""
    on_true, on_false = _same("select", on_true, on_false)
    pred = _array(pred, "select")
    if pred.dtype != np.bool_:
        raise TypeError(f"lax.select: the predicate must be bool, got {pred.dtype.name}")
    if pred.ndim == 0 and on_true.ndim:
        pred = broadcast_in_dim(pred, on_true.shape, ())
    if pred.shape != on_true.shape:
        raise TypeError(f"lax.select: predicate shape {pred.shape} differs from the operands' "
                        f"{on_true.shape}")
    return SELECT.bind(pred, on_true, on_false)


def clamp(min: Any, x: Any, max: Any) -> Any:
    """Clamp `x` into [min, max] (bounds of x's shape, or 0-d)."""
    x = _array(x, "clamp")
    lo, hi = _like(min, "clamp", x.dtype), _like(max, "clamp", x.dtype)
    return CLAMP.bind(lo, x, hi)


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Cast to `new_dtype` (float->int truncates toward zero and saturates, NaN->0)."""
    x = _array(x, "convert_element_type")
    dtype = _dtype(new_dtype, "convert_element_type")
    if x.dtype == dtype and x.weak_type == weak_type:
        return x
    if x.dtype == dtype:
        return _with_weak(x, weak_type)
    return CONVERT.bind(x, dtype=dtype, weak_type=weak_type)


def _with_weak(x: Any, weak_type: bool) -> Any:
    """`x` with its weak-type flag changed (no computation)."""
    from ..array import Array
    if isinstance(x, Array):
        out = Array._pending(ShapedArray(x.shape, x.dtype, weak_type), None, None, x.device) \
            if x._value is None else Array._ready(x._value, ShapedArray(x.shape, x.dtype, weak_type), x.device)
        if x._value is None:
            out._task, out._cell = x._task, x._cell
        return out
    return core.Tracer(x.scope, x.value, ShapedArray(x.shape, x.dtype, weak_type),
                       x if x.recipe is not None else None)


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    """Reinterpret the bits; a narrower type adds a trailing dimension, a
    wider one consumes it."""
    x = _array(x, "bitcast_convert_type")
    dtype = _dtype(new_dtype, "bitcast_convert_type")
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

IOTA = _primitive("iota", lambda dtype, shape, dimension: jd.IotaOp(core.ir_type(shape, dtype), dimension).result)
BROADCAST_IN_DIM = _primitive("broadcast_in_dim", lambda x, shape, broadcast_dimensions: jd.BroadcastInDimOp(
    core.ir_type(shape, core.aval_of_type(x.type).dtype), x, list(broadcast_dimensions)).result)
RESHAPE = _primitive("reshape", lambda x, new_sizes: jd.ReshapeOp(
    core.ir_type(new_sizes, core.aval_of_type(x.type).dtype), x).result)
TRANSPOSE = _primitive("transpose", lambda x, permutation: jd.TransposeOp(x, list(permutation)).result)
REV = _primitive("rev", lambda x, dimensions: jd.ReverseOp(x, list(dimensions)).result)
SLICE = _primitive("slice", lambda x, start, limit, strides: jd.SliceOp(
    x, list(start), list(limit), list(strides)).result)
DYNAMIC_SLICE = _primitive("dynamic_slice", lambda x, *idx, slice_sizes: jd.DynamicSliceOp(
    x, list(idx), list(slice_sizes)).result)
DYNAMIC_UPDATE_SLICE = _primitive("dynamic_update_slice", lambda x, u, *idx: jd.DynamicUpdateSliceOp(
    x, u, list(idx)).result)
CONCATENATE = _primitive("concatenate", lambda *xs, dimension: jd.ConcatenateOp(list(xs), dimension).result)
PAD = _primitive("pad", lambda x, v, low, high, interior: jd.PadOp(
    x, v, list(low), list(high), list(interior)).result)
SQUEEZE = _primitive("squeeze", lambda x, dimensions: jd.SqueezeOp(x, list(dimensions)).result)
EXPAND_DIMS = _primitive("expand_dims", lambda x, dimensions: jd.ExpandDimsOp(x, list(dimensions)).result)


def iota(dtype: Any, size: int) -> Any:
    """[0, 1, ..., size-1] of `dtype`."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """An array of `shape` counting along `dimension`."""
    shape = _shape(shape, "lax.broadcasted_iota")
    dimension = _int(dimension, "broadcasted_iota", "dimension")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"lax.broadcasted_iota: dimension {dimension} out of range for shape {shape}")
    return IOTA.bind(dtype=_dtype(dtype, "broadcasted_iota"), shape=shape, dimension=dimension)


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
    if isinstance(d, core.Tracer):  # known only outside jit (an eager grad's argument)
        d = core.concrete(d, "a shape or size").tolist()
    return operator.index(d)


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Broadcast `x` to `shape`; operand dimension i becomes result
    dimension broadcast_dimensions[i] (sizes equal or 1)."""
    x = _array(x, "broadcast_in_dim")
    shape = _shape(shape, "lax.broadcast_in_dim")
    dims = _ints(broadcast_dimensions, "broadcast_in_dim", "broadcast_dimensions")
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
    permutation = _ints(permutation, "transpose", "permutation")
    if permutation == tuple(range(x.ndim)):
        return x
    return TRANSPOSE.bind(x, permutation=permutation)


def rev(x: Any, dimensions: Sequence[int]) -> Any:
    """Reverse the order of elements along `dimensions`."""
    x = _array(x, "rev")
    dimensions = _ints(dimensions, "rev", "dimensions")
    if not dimensions:
        return x
    return REV.bind(x, dimensions=dimensions)


def slice(x: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Any:
    x = _array(x, "slice")
    start = _ints(start_indices, "slice", "start_indices")
    limit = _ints(limit_indices, "slice", "limit_indices")
    strides = _ints(strides, "slice", "strides") if strides is not None else (1,) * x.ndim
    if start == (0,) * x.ndim and limit == x.shape and strides == (1,) * x.ndim:
        return x
    return SLICE.bind(x, start=start, limit=limit, strides=strides)


def slice_in_dim(x: Any, start_index: int | None, limit_index: int | None, stride: int = 1,
                 axis: int = 0) -> Any:
    x = _array(x, "slice_in_dim")
    axis = _axis(axis, x.ndim, "slice_in_dim")
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
    axis = _axis(axis, x.ndim, "index_in_dim")
    size = x.shape[axis]
    index = _int(index, "index_in_dim", "index")
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


def _one_start_per_dim(idx: Sequence[Any], x: Any, what: str) -> None:
    if len(idx) != x.ndim:
        raise ValueError(f"lax.{what}: length of slice indices must match number of operand dimensions "
                         f"({len(idx)} vs {x.shape})")


def dynamic_slice(x: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int]) -> Any:
    """A `slice_sizes` window at run-time `start_indices` (clamped into range)."""
    x = _array(x, "dynamic_slice")
    idx = _index_scalars(start_indices, "dynamic_slice")
    _one_start_per_dim(idx, x, "dynamic_slice")
    return DYNAMIC_SLICE.bind(x, *idx, slice_sizes=_shape(slice_sizes, "lax.dynamic_slice"))


def dynamic_update_slice(x: Any, update: Any, start_indices: Sequence[Any]) -> Any:
    x = _array(x, "dynamic_update_slice")
    update = _like(update, "dynamic_update_slice", x.dtype)
    idx = _index_scalars(start_indices, "dynamic_update_slice")
    _one_start_per_dim(idx, x, "dynamic_update_slice")
    return DYNAMIC_UPDATE_SLICE.bind(x, update, *idx)


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
    x = _array(operand, "dynamic_index_in_dim")
    axis = _axis(axis, x.ndim, "dynamic_index_in_dim")
    starts = [0] * x.ndim
    starts[axis] = index
    sizes = list(x.shape)
    sizes[axis] = 1
    out = dynamic_slice(x, starts, sizes)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_index_in_dim(x: Any, update: Any, index: Any, axis: int) -> Any:
    x = _array(x, "dynamic_update_index_in_dim")
    update = _like(update, "dynamic_update_index_in_dim", x.dtype)
    axis = _axis(axis, x.ndim, "dynamic_update_index_in_dim")
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
    return CONCATENATE.bind(*xs, dimension=_int(dimension, "concatenate", "dimension"))


def pad(x: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """Pad with (low, high, interior) per dimension (negative low/high crop)."""
    x = _array(x, "pad")
    value = _like(padding_value, "pad", x.dtype)
    config = [_ints(c, "pad", "each padding_config entry") for c in padding_config]
    if any(len(c) != 3 for c in config):
        raise ValueError(f"lax.pad: padding_config entries must be (low, high, interior) triples, got "
                         f"{padding_config!r}")
    if len(config) != x.ndim:
        raise ValueError(f"lax.pad: padding_config has {len(config)} entries for a {x.ndim}-d operand")
    low, high, interior = (tuple(c[k] for c in config) for k in range(3))
    return PAD.bind(x, value, low=low, high=high, interior=interior)


def _wrap_negative(dimensions: Sequence[int], rank: int) -> tuple[int, ...]:
    """Negative dimensions counted from the end of `rank` (out-of-range ones
    are left for the verifier to report)."""
    return tuple(d + rank if -rank <= d < 0 else d for d in dimensions)


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    """Remove the size-1 `dimensions` (negative ones count from the end)."""
    x = _array(x, "squeeze")
    dimensions = _wrap_negative(_ints(dimensions, "squeeze", "dimensions"), x.ndim)
    if not dimensions:
        return x
    return SQUEEZE.bind(x, dimensions=dimensions)


def expand_dims(x: Any, dimensions: Sequence[int]) -> Any:
    """Insert size-1 `dimensions` (positions in the result; negative ones
    count from its end)."""
    x = _array(x, "expand_dims")
    dimensions = _ints(dimensions, "expand_dims", "dimensions")
    dimensions = _wrap_negative(dimensions, x.ndim + len(dimensions))
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


GATHER = _primitive("gather", lambda x, idx, offset_dims, collapsed, start_map, index_vector_dim, slice_sizes:
                    jd.GatherOp(x, idx, list(offset_dims), list(collapsed), list(start_map), index_vector_dim,
                                list(slice_sizes)).result, weak=lambda avals, **p: avals[0].weak_type)


# op -> (the out-of-bounds modes it implements, by JAX's GatherScatterMode
# names, and what it does): gather clamps its windows into the operand,
# scatter skips those that do not fit.
_MODES = {"gather": ((None, "clip", "promise_in_bounds"), "clamps out-of-range windows (mode 'clip')"),
          "scatter": ((None, "fill_or_drop", "drop", "promise_in_bounds"),
                      "skips out-of-range windows (mode 'drop')")}


def _check_mode(mode: Any, what: str) -> None:
    allowed, behaviour = _MODES[what]
    name = getattr(mode, "name", mode)
    if (name.lower() if isinstance(name, str) else name) not in allowed:
        raise ValueError(f"lax.{what}: mode {mode!r} is not supported: jaxc's {what} {behaviour}")


def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: Any = None, fill_value: Any = None) -> Any:
    """XLA gather; the index vector is the last dimension of `start_indices`.
    Out-of-range windows are clamped into the operand (mode "clip")."""
    _check_mode(mode, "gather")
    if fill_value is not None:
        raise ValueError("lax.gather: fill_value is not supported (windows are clamped, never filled)")
    operand = _array(operand, "gather")
    idx = _array(start_indices, "gather")
    dn = dimension_numbers
    return GATHER.bind(operand, idx, offset_dims=_ints(dn.offset_dims, "gather", "offset_dims"),
                       collapsed=_ints(dn.collapsed_slice_dims, "gather", "collapsed_slice_dims"),
                       start_map=_ints(dn.start_index_map, "gather", "start_index_map"),
                       index_vector_dim=idx.ndim - 1, slice_sizes=_ints(slice_sizes, "gather", "slice_sizes"))


def _combiner(kind: str):
    ops = {"add": jd.AddOp, "mul": jd.MulOp, "min": jd.MinOp, "max": jd.MaxOp}
    return ops.get(kind)


def _build_scatter(x, idx, upd, kind, update_window_dims, inserted, dims_map, index_vector_dim,
                   unique_indices=False):
    op = jd.ScatterOp(x.type, x, idx, upd, list(update_window_dims), list(inserted), list(dims_map),
                      index_vector_dim, unique_indices=unique_indices or None)
    scalar = core.ir_type((), core.aval_of_type(x.type).dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        combine = _combiner(kind)
        new = block.arguments[1] if combine is None else combine(block.arguments[0], block.arguments[1]).result
        jd.YieldOp([new])
    return op.result


SCATTER = _primitive("scatter", _build_scatter, weak=lambda avals, **p: avals[0].weak_type)
SCATTER_KINDS = ("set", "add", "mul", "min", "max")


def scatter(operand: Any, scatter_indices: Any, updates: Any,
            dimension_numbers: ScatterDimensionNumbers, kind: str = "set", *,
            indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None) -> Any:
    """XLA scatter combining with `kind` (set/add/mul/min/max); the index
    vector is the last dimension of the indices; out-of-range windows are
    skipped (mode "drop"). `unique_indices` promises that no two updates
    hit one element (what reverse mode through scatter_mul needs)."""
    if kind not in SCATTER_KINDS:
        raise ValueError(f"lax.scatter: kind must be one of {SCATTER_KINDS}, got {kind!r}")
    _check_mode(mode, "scatter")
    operand = _array(operand, "scatter")
    idx = _array(scatter_indices, "scatter")
    updates = _like(updates, "scatter", operand.dtype)
    dn = dimension_numbers
    return SCATTER.bind(operand, idx, updates, kind=kind,
                        update_window_dims=_ints(dn.update_window_dims, "scatter", "update_window_dims"),
                        inserted=_ints(dn.inserted_window_dims, "scatter", "inserted_window_dims"),
                        dims_map=_ints(dn.scatter_dims_to_operand_dims, "scatter", "scatter_dims_to_operand_dims"),
                        index_vector_dim=idx.ndim - 1, unique_indices=bool(unique_indices))


def _scatter_with(kind: str):
    def apply(operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers,
              **options: Any) -> Any:
        return scatter(operand, scatter_indices, updates, dimension_numbers, kind, **options)
    apply.__name__ = apply.__qualname__ = f"scatter_{kind}"
    apply.__doc__ = f"`scatter` combining repeated and existing values with {kind}."
    return apply


scatter_add, scatter_mul, scatter_min, scatter_max = (_scatter_with(k) for k in ("add", "mul", "min", "max"))


# ---------------------------------------------------------------------------
# Reductions, sorting, contractions
# ---------------------------------------------------------------------------

_REDUCE_KINDS = {"sum": jd.ReduceKind.Sum, "prod": jd.ReduceKind.Prod, "max": jd.ReduceKind.Max,
                 "min": jd.ReduceKind.Min, "and": jd.ReduceKind.And, "or": jd.ReduceKind.Or}
REDUCE = _primitive("reduce", lambda x, kind, axes: jd.ReduceOp(_REDUCE_KINDS[kind], x, list(axes)).result)
_CUMULATIVE_KINDS = {"sum": jd.CumulativeKind.Sum, "prod": jd.CumulativeKind.Prod,
                     "max": jd.CumulativeKind.Max, "min": jd.CumulativeKind.Min}
CUMULATIVE = _primitive("cumulative", lambda x, kind, axis, reverse: jd.CumulativeOp(
    _CUMULATIVE_KINDS[kind], x, axis, reverse=reverse or None).result)
ARGMAX = _primitive("argmax", lambda x, axis, index_dtype: jd.ArgMaxOp(core.ir_type(
    _drop(ir.RankedTensorType(x.type).shape, axis), index_dtype), x, axis).result, weak=_never_weak)
ARGMIN = _primitive("argmin", lambda x, axis, index_dtype: jd.ArgMinOp(core.ir_type(
    _drop(ir.RankedTensorType(x.type).shape, axis), index_dtype), x, axis).result, weak=_never_weak)
SORT = _primitive("sort", lambda *xs, dimension, is_stable, num_keys: jd.SortOp(
    list(xs), dimension, num_keys=num_keys, is_stable=is_stable or None).results,
    multiple_results=True)


def _drop(shape: Sequence[int], axis: int) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(shape) if i != axis)


_SHORT_DTYPES = {"float16": "f16", "bfloat16": "bf16"}


def _check_f16_reduction(x: Any, axes: tuple[int, ...]) -> None:
    """JAX's refusal, under `jax_allow_f16_reductions` False, of a sum of
    float16/bfloat16 over an axis longer than 1 (ValueError). Checked as
    the user's program is traced; the sums jaxc-autodiff builds for a
    derivative (JAX checks its transposes too) are not."""
    short = _SHORT_DTYPES.get(x.dtype.name)
    if short and any(x.shape[a] != 1 for a in axes if -x.ndim <= a < x.ndim):
        raise ValueError(f"reduce_sum on operand {short}[{','.join(map(str, x.shape))}] is not allowed "
                         "when jax_allow_f16_reductions=False.")


def _reducer(kind: str):
    def apply(x: Any, axes: Sequence[int]) -> Any:
        x = _array(x, f"reduce_{kind}")
        axes = tuple(sorted(_ints(axes, f"reduce_{kind}", "axes")))
        if not axes:
            return x
        if kind == "sum" and not config.jax_allow_f16_reductions and not core.in_rules():
            _check_f16_reduction(x, axes)
        return REDUCE.bind(x, kind=kind, axes=axes)
    apply.__name__ = apply.__qualname__ = f"reduce_{kind}"
    apply.__doc__ = f"Reduce with {kind} over `axes` (they disappear)."
    return apply


reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_and, reduce_or = (
    _reducer(k) for k in ("sum", "prod", "max", "min", "and", "or"))


def _cumulative(kind: str):
    def apply(x: Any, axis: int = 0, reverse: bool = False) -> Any:
        x = _array(x, f"cum{kind}")
        return CUMULATIVE.bind(x, kind=kind, axis=_int(axis, f"cum{kind}", "axis"), reverse=bool(reverse))
    apply.__name__ = apply.__qualname__ = f"cum{kind}"
    return apply


cumsum, cumprod, cummax, cummin = (_cumulative(k) for k in ("sum", "prod", "max", "min"))


def argmax(x: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the first maximum along `axis` (NaN counts as the maximum)."""
    return ARGMAX.bind(_array(x, "argmax"), axis=_int(axis, "argmax", "axis"),
                       index_dtype=_dtype(index_dtype, "argmax"))


def argmin(x: Any, axis: int, index_dtype: Any) -> Any:
    return ARGMIN.bind(_array(x, "argmin"), axis=_int(axis, "argmin", "axis"),
                       index_dtype=_dtype(index_dtype, "argmin"))


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """Sort along `dimension`; several operands sort together by the first
    `num_keys` (a tuple in, a tuple out)."""
    multiple = isinstance(operand, (tuple, list))
    xs = [_array(x, "sort") for x in (operand if multiple else [operand])]
    if not xs:
        raise ValueError("lax.sort needs at least one operand")
    dimension = _axis(dimension, xs[0].ndim, "sort") if xs[0].ndim else _int(dimension, "sort", "dimension")
    outs = SORT.bind(*xs, dimension=dimension, is_stable=bool(is_stable),
                     num_keys=_int(num_keys, "sort", "num_keys"))
    return tuple(outs) if multiple else outs[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple[Any, Any]:
    return sort((keys, values), dimension, is_stable, 1)


def _retyped(make: Callable[[Any], Any], preferred: Any) -> ir.Value:
    """The result of `make(results)`, an op built with inferred result types,
    or, given a `preferred` element type, rebuilt with it (the first build
    checks the operands and gives the shape)."""
    op = make(None)
    if preferred is None:
        return op.result
    shape = ir.RankedTensorType(op.result.type).shape
    op.operation.erase()
    return make([core.ir_type(shape, preferred)]).result


def _build_dot(x, y, lc, rc, lb, rb, preferred):
    return _retyped(lambda results: jd.DotGeneralOp(x, y, list(lb), list(rb), list(lc), list(rc),
                                                    results=results), preferred)


DOT_GENERAL = _primitive("dot_general", _build_dot, weak=lambda avals, **p: False)


def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Any:
    """Contract ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``;
    result dims are batch, lhs free, rhs free."""
    lhs = _array(lhs, "dot_general")
    rhs = _array(rhs, "dot_general")
    try:
        (lc, rc), (lb, rb) = ((tuple(int(d) for d in dims) for dims in pair) for pair in dimension_numbers)
    except (TypeError, ValueError):
        raise TypeError("lax.dot_general: dimension_numbers must be ((lhs_contracting, rhs_contracting), "
                        f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}") from None
    preferred = None if preferred_element_type is None else _dtype(preferred_element_type, "dot_general")
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
    return _retyped(lambda results: jd.ConvGeneralDilatedOp(
        x, w, list(window_strides), [p for pair in padding for p in pair], list(lhs_dilation),
        list(rhs_dilation), list(lhs_spec), list(rhs_spec), list(out_spec),
        feature_group_count=feature_group_count, batch_group_count=batch_group_count, results=results),
        preferred)


CONV = _primitive("conv_general_dilated", _build_conv, weak=lambda avals, **p: False)


class ConvDimensionNumbers(NamedTuple):
    """Where batch/feature and the spatial dimensions are in the lhs, rhs
    and output: (batch, feature, *spatial) for lhs and output, (out feature,
    in feature, *spatial) for rhs."""
    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


_CONV_LETTERS = (("N", "C"), ("O", "I"), ("N", "C"))  # lhs, rhs, out


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, strings such as ("NHWC", "HWIO", "NHWC"),
    or index tuples) as a `ConvDimensionNumbers`. As in JAX, the spatial
    dimensions are matched by letter and ordered as in the rhs string."""
    ndim = len(lhs_shape)
    if len(rhs_shape) != ndim:
        raise TypeError(f"lax.conv_general_dilated: lhs and rhs must have the same rank, got shapes "
                        f"{tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if dimension_numbers is None:
        default = tuple(range(ndim))
        return ConvDimensionNumbers(default, default, default)
    if isinstance(dimension_numbers, ConvDimensionNumbers) or not all(
            isinstance(spec, str) for spec in dimension_numbers):
        specs = ConvDimensionNumbers(*(tuple(int(d) for d in spec) for spec in dimension_numbers))
        if any(sorted(spec) != list(range(ndim)) for spec in specs):
            raise ValueError(f"lax.conv_general_dilated: dimension_numbers {tuple(specs)} must each be "
                             f"a permutation of range({ndim})")
        return specs
    strings = tuple(dimension_numbers)
    for text, letters in zip(strings, _CONV_LETTERS):
        if len(text) != ndim or len(set(text)) != ndim or not set(letters) <= set(text):
            raise ValueError(f"lax.conv_general_dilated: dimension_numbers {strings}: each must have "
                             f"{ndim} distinct letters, including {letters[0]!r} and {letters[1]!r} "
                             f"({', '.join(''.join(p) for p in _CONV_LETTERS)})")
    spatial = [c for c in strings[1] if c not in "OI"]  # the rhs order
    if {c for c in strings[0] if c not in "NC"} != set(spatial) or \
            {c for c in strings[2] if c not in "NC"} != set(spatial):
        raise ValueError(f"lax.conv_general_dilated: dimension_numbers {strings} must name the same "
                         "spatial dimensions in all three")
    return ConvDimensionNumbers(*(
        (text.index(first), text.index(second), *(text.index(c) for c in spatial))
        for text, (first, second) in zip(strings, _CONV_LETTERS)))


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int],
                    padding: str) -> list[tuple[int, int]]:
    """(low, high) padding per spatial dimension for "VALID", "SAME" (the
    output has ceil(in / stride) elements; an odd total pads more at the
    end) or "SAME_LOWER" (more at the start)."""
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):  # JAX's error, word for word
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                           f"got {padding}.")
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        total = builtins.max((-(-size // stride) - 1) * stride + window - size, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def _check_conv(lhs, rhs, lhs_spec, rhs_spec, strides, lhs_dilation, rhs_dilation, padding,
                feature_group_count: int, batch_group_count: int) -> None:
    """JAX's exception classes for arguments that do not fit the operands
    (ValueError, a wrong number of explicit pads: TypeError), before the op's
    own shape check."""
    what = "lax.conv_general_dilated"
    nspatial = lhs.ndim - 2
    for name, values in (("window_strides", strides), ("lhs_dilation", lhs_dilation),
                         ("rhs_dilation", rhs_dilation)):
        if len(values) != nspatial:
            raise ValueError(f"{what}: the window has {nspatial} spatial dimensions but {name} has "
                             f"{len(values)} entries: {tuple(values)}")
        if any(v <= 0 for v in values):
            raise ValueError(f"{what}: {name} must be positive, got {tuple(values)}")
    if not isinstance(padding, str) and len(padding) != nspatial:
        raise TypeError(f"{what}: wrong number of explicit pads: expected {nspatial}, got {len(padding)}")
    groups = feature_group_count
    features = lhs.shape[lhs_spec[1]]
    if groups <= 0 or features % groups:
        raise ValueError(f"{what}: feature_group_count must divide the lhs feature dimension size, "
                         f"but {groups} does not divide {features}")
    if batch_group_count == 1 and features // groups != rhs.shape[rhs_spec[1]]:
        raise ValueError(f"{what}: the lhs feature dimension size divided by feature_group_count must "
                         f"equal the rhs input feature dimension size, but {features} // {groups} != "
                         f"{rhs.shape[rhs_spec[1]]}")


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None) -> Any:
    """General dilated convolution; `padding` is "VALID", "SAME", "SAME_LOWER"
    or (low, high) pairs; `dimension_numbers` None (NCHW, OIHW, NCHW),
    strings such as ("NHWC", "HWIO", "NHWC"), or a `ConvDimensionNumbers`."""
    lhs = _array(lhs, "conv_general_dilated")
    rhs = _array(rhs, "conv_general_dilated")
    nspatial = lhs.ndim - 2
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    strides = _ints(window_strides, "conv_general_dilated", "window_strides")
    lhs_dilation = _ints(lhs_dilation or (1,) * nspatial, "conv_general_dilated", "lhs_dilation")
    rhs_dilation = _ints(rhs_dilation or (1,) * nspatial, "conv_general_dilated", "rhs_dilation")
    feature_group_count = _int(feature_group_count, "conv_general_dilated", "feature_group_count")
    batch_group_count = _int(batch_group_count, "conv_general_dilated", "batch_group_count")
    _check_conv(lhs, rhs, lhs_spec, rhs_spec, strides, lhs_dilation, rhs_dilation, padding,
                feature_group_count, batch_group_count)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("lax.conv_general_dilated: string padding is not supported with lhs_dilation "
                             "(a transposed convolution); give (low, high) pairs")
        windows = [(rhs.shape[d] - 1) * rd + 1 for d, rd in zip(rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads([lhs.shape[d] for d in lhs_spec[2:]], windows, strides, padding)
    try:
        padding = tuple((int(operator_index(lo)), int(operator_index(hi))) for lo, hi in padding)
    except (TypeError, ValueError):
        raise ValueError(f"lax.conv_general_dilated: padding must be a string or (low, high) pairs, "
                         f"got {padding!r}") from None
    preferred = None if preferred_element_type is None else _dtype(preferred_element_type, "conv_general_dilated")
    return CONV.bind(lhs, rhs, window_strides=strides, padding=padding, lhs_dilation=lhs_dilation,
                     rhs_dilation=rhs_dilation, lhs_spec=lhs_spec, rhs_spec=rhs_spec, out_spec=out_spec,
                     feature_group_count=feature_group_count, batch_group_count=batch_group_count,
                     preferred=preferred)


# ---------------------------------------------------------------------------
# Random bits
# ---------------------------------------------------------------------------

def _build_random_bits(key, shape, dtype, out_dtype):
    bits = jd.RandomBitsOp(core.ir_type(shape, dtype), key).result
    if out_dtype == dtype:
        return bits
    return jd.ConvertOp(core.ir_type(shape, out_dtype), bits).result  # keeps the low bits


THREEFRY = _primitive("threefry2x32", lambda k0, k1, x0, x1: jd.Threefry2x32Op(k0, k1, x0, x1).results,
                      multiple_results=True, weak=_never_weak)
RANDOM_BITS = _primitive("random_bits", _build_random_bits, weak=_never_weak)
_RANDOM_BITS_DTYPES = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}


def threefry2x32(key0: Any, key1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """The Threefry-2x32 block cipher (20 rounds) on uint32 arrays (the keys
    may be 0-d)."""
    args = [_array(a, "threefry2x32", dtypes.uint32 if type(a) is int else None)
            for a in (key0, key1, x0, x1)]
    if any(a.dtype != dtypes.uint32 for a in args):
        raise TypeError(f"lax.threefry2x32 requires uint32 arguments, got "
                        f"{', '.join(a.aval.str_short() for a in args)}")
    return tuple(THREEFRY.bind(*args))


def random_bits(key: Any, bit_width: int, shape: Sequence[int]) -> Any:
    """Unsigned random bits from a uint32[2] key (JAX's partitionable
    threefry). Without x64, 64 bits give uint32: the low word, as in JAX,
    whose uint64 then canonicalizes to uint32."""
    if bit_width not in _RANDOM_BITS_DTYPES:
        raise ValueError(f"lax.random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width!r}")
    key = _array(key, "random_bits")
    if key.dtype != dtypes.uint32 or key.shape != (2,):
        raise TypeError(f"lax.random_bits: the key must be uint32[2], got {key.aval.str_short()}")
    dtype = _RANDOM_BITS_DTYPES[bit_width]
    return RANDOM_BITS.bind(key, shape=_shape(shape, "lax.random_bits"), dtype=dtype,
                            out_dtype=dtypes.canonicalize(dtype))


# ---------------------------------------------------------------------------
# Small conveniences used by jnp
# ---------------------------------------------------------------------------

def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of `shape` filled with `fill_value` (weakly typed when
    `dtype` is None and the value is a Python scalar)."""
    shape = _shape(shape, "lax.full")
    if dtype is None:
        dtype, weak = dtypes.dtype_and_weak(fill_value)
    else:
        dtype, weak = dtypes.canonicalize(dtype), False
    value_shape = fill_value.shape if isinstance(fill_value, ArrayBase) else np.shape(fill_value)
    if value_shape:
        raise TypeError(f"lax.full: fill_value must be a scalar, got shape {value_shape}")
    if isinstance(fill_value, ArrayBase):
        value = convert_element_type(fill_value, dtype, weak_type=weak)
    else:
        value = constant(np.asarray(fill_value, dtype), weak_type=weak)
    return broadcast_in_dim(value, shape, ())


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Any:
    """`fill_value` in the shape (and dtype, unless given) of `x`; keeps x's weak type."""
    if not isinstance(x, ArrayBase):
        x = np.asarray(x)
        x = ShapedArray(x.shape, dtypes.canonicalize(x.dtype))
    dtype = dtypes.canonicalize(dtype) if dtype is not None else x.dtype
    out = full(x.shape if shape is None else shape, fill_value, dtype)
    if dtype == x.dtype and x.weak_type and not out.weak_type:
        out = _with_weak(out, True)
    from ._parallel import vary_like
    return vary_like(out, x)  # in a shard_map body, typed as x (as JAX's full_like)


_SIGNED_OF_WIDTH = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def bitcast_sign(x: Any) -> Any:
    """A float array's bits as a signed integer of the same width (negative
    exactly when the sign bit is set, -0.0 and NaNs included)."""
    return bitcast_convert_type(x, _SIGNED_OF_WIDTH[x.dtype.itemsize])
