"""Tracing: abstract values, tracers, scopes and primitives.

A *primitive* (`Primitive`) knows how to build its `jaxc` op(s) from MLIR
values. `bind(prim, *operands, **params)` either

- emits the op into the innermost active *scope* (a function being traced
  by `jit`, or a region of `lax.cond`/`while_loop`/`scan`) and returns
  `Tracer`s, or
- outside any trace, runs a compiled one-op kernel (`jaxc.dispatch`) and
  returns `Array`s.

Every op is built at a location pointing at the user's source line (the
first frame outside the jaxc package), so IR and errors lead back to Python:

    %0 = jaxc.sin %arg0 : tensor<3xf32> loc("model.py":12:8)

Scopes capture what they use from outside: a region (IsolatedFromAbove in
the dialect) turns an outer tracer into a new block argument; a traced
function turns a concrete `Array` it closes over into an extra argument.
"""
from __future__ import annotations

import itertools
import math
import operator
import os
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Sequence

import mlir.ir as ir
import numpy as np
from mlir.dialects import func as func_d

from . import dtypes

if TYPE_CHECKING:
    from types import FrameType

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_PASSES_DIR = os.path.join(os.path.dirname(_PACKAGE_DIR), "passes")


# ---------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------

class ShapedArray:
    """The abstract value of an array: shape, dtype and weak type."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash", "strong")

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = hash((self.shape, self.dtype, self.weak_type))
        self.strong = (self.shape, self.dtype)  # what a compiled kernel depends on

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def strip_weak(self) -> "ShapedArray":
        return ShapedArray(self.shape, self.dtype, False) if self.weak_type else self

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return self._hash

    def str_short(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self) -> str:  # JAX's: float32[3], ~ for a weak type
        return ("~" if self.weak_type else "") + self.str_short()


# ---------------------------------------------------------------------------
# The MLIR context and types
# ---------------------------------------------------------------------------

_CONTEXT: ir.Context | None = None
_CONTEXT_LOCK = threading.RLock()


def context() -> ir.Context:
    """The one context every trace builds its IR in (a pass that emits
    through `emitting` builds in its module's context instead)."""
    global _CONTEXT
    override = getattr(_STATE, "context", None)
    if override is not None:
        return override
    if _CONTEXT is None:
        with _CONTEXT_LOCK:  # two threads tracing at once must not make two contexts
            if _CONTEXT is None:
                from jaxc.dialect import make_context
                _CONTEXT = make_context()
    return _CONTEXT


def ir_type(shape: Sequence[int], dtype: Any) -> ir.RankedTensorType:
    """`tensor<shape x element>` for a shape and dtype (in the active context)."""
    element = dtypes.element_type(dtype)
    dims = "".join(f"{d}x" for d in shape)
    return ir.Type.parse(f"tensor<{dims}{element}>")


def aval_of_type(type_: ir.Type, weak_type: bool = False) -> ShapedArray:
    """The abstract value of a ranked tensor type."""
    shape, dtype = _shape_and_dtype(type_)
    return ShapedArray(shape, dtype, weak_type)


_SHAPES_AND_DTYPES: dict[ir.Type, tuple[tuple[int, ...], np.dtype]] = {}  # a trace meets few distinct types


def _shape_and_dtype(type_: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
    """(shape, dtype) of a ranked tensor type, remembered (at most 4096 types)."""
    known = _SHAPES_AND_DTYPES.get(type_)
    if known is None:
        tensor = ir.RankedTensorType(type_)
        element = str(tensor.element_type)
        from jaxc.runtime import numpy_dtype
        known = (tuple(tensor.shape), dtypes.bfloat16 if element == "bf16" else numpy_dtype(element))
        if len(_SHAPES_AND_DTYPES) >= 4096:
            _SHAPES_AND_DTYPES.clear()
        _SHAPES_AND_DTYPES[type_] = known
    return known


# ---------------------------------------------------------------------------
# The user's source line
# ---------------------------------------------------------------------------

_INTERNAL_PREFIXES = (_PACKAGE_DIR, _PASSES_DIR, "<frozen")


def _is_internal(filename: str) -> bool:
    return filename.startswith(_INTERNAL_PREFIXES)


def user_frame() -> tuple[str, int, int]:
    """(file, line, column) of the innermost frame outside the jaxc package."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0, 0)
    code, line = frame.f_code, frame.f_lineno
    key = (code, frame.f_lasti)
    column = _COLUMNS.get(key)
    if column is None:  # a loop traces the same call again: remembered
        column = 1
        try:  # Python 3.11+: the column of the expression being evaluated
            positions = itertools.islice(code.co_positions(), frame.f_lasti // 2, None)
            start_line, _, start_col, _ = next(positions)
            if start_line == line and start_col is not None:
                column = start_col + 1
        except (AttributeError, StopIteration):
            pass
        if len(_COLUMNS) >= 4096:
            _COLUMNS.clear()
        _COLUMNS[key] = column
    return (code.co_filename, line, column)


_COLUMNS: dict[tuple[Any, int], int] = {}  # (code, bytecode offset) -> column of the user's expression


def user_location() -> ir.Location:
    override = getattr(_STATE, "location", None)
    if override is not None:
        return override
    filename, line, column = user_frame()
    return ir.Location.file(filename, line, column, context=context())


def where() -> str:
    """`file:line` of the user's code, for error messages (cheap: no column)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return "<unknown>" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class JAXTypeError(TypeError):
    """Base of the TypeErrors jaxc raises about traced values (JAX's name)."""


class JAXIndexError(IndexError):
    """Base of the IndexErrors jaxc raises about traced indices (JAX's name)."""


class _NeedsConcreteValue(JAXTypeError):
    """The errors about a traced value where Python needs a concrete one: their message."""

    def __init__(self, tracer: "Tracer", what: str) -> None:
        super().__init__(
            f"{where()}: {what} needs a concrete value, but got the traced value "
            f"{tracer.aval.str_short()} (an abstract array inside jit or a lax control-flow "
            "function). Python control flow on traced values cannot be compiled. Fixes: mark "
            "the argument static with jit(f, static_argnums=...) / static_argnames=..., or use "
            "lax.cond / lax.switch / lax.while_loop / lax.fori_loop / jnp.where instead of "
            "Python if/while.")


class ConcretizationTypeError(_NeedsConcreteValue):
    """A traced value was used where Python needs a concrete one (int(),
    float(), a shape...)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """bool() of a traced value (JAX's name)."""


class TracerIntegerConversionError(_NeedsConcreteValue):
    """__index__ of a traced integer (JAX's name; as JAX's, not a
    ConcretizationTypeError, and int() raises that one)."""


class TracerArrayConversionError(_NeedsConcreteValue):
    """np.asarray / __array__ of a traced value (JAX's name; as JAX's, not a
    ConcretizationTypeError)."""


class TracerLeakError(JAXTypeError):
    """A tracer was used outside the trace that created it (JAX's
    UnexpectedTracerError)."""


class KeyReuseError(JAXTypeError):
    """A random key consumed twice (checked under `jax_debug_key_reuse`;
    JAX's name)."""


class JaxcTypeError(TypeError):
    """An op was given operands or parameters it does not accept."""


# ---------------------------------------------------------------------------
# The shared array interface (operators are filled in by jaxc.numpy)
# ---------------------------------------------------------------------------

class HasAval:
    """The aval properties of what has one: arrays, tracers and Refs."""

    __slots__ = ()

    aval: ShapedArray  # a slot of each subclass

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type


class ArrayBase(HasAval):
    """What `Array` and `Tracer` share: the aval properties. jaxc.numpy
    attaches the operators and methods (``__add__``, ``sum``, ``at``...)."""

    __slots__ = ()
    __array_priority__ = 100

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return self.aval.shape[0]


class Tracer(ArrayBase):
    """A stand-in for an array while a function is traced: an MLIR value of
    a scope, with its abstract value."""

    __slots__ = ("aval", "value", "scope", "recipe")

    def __init__(self, scope: "Scope", value: ir.Value, aval: ShapedArray, recipe: Any = None) -> None:
        self.scope = scope
        self.value = value
        self.aval = aval
        self.recipe = recipe  # how to compute the value where it is known (`concrete`), else None

    def __repr__(self) -> str:
        # As JAX prints a tracer of jit: JitTracer(float32[3]), ~ for a weak type.
        # jaxc stages every transformation out (grad, vmap: into functions of the
        # module), so every tracer is a jit-like one: no primal or batch to show.
        weak = "~" if self.aval.weak_type else ""
        return f"JitTracer({weak}{self.aval.str_short()})"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(concrete(self, "bool() (a Python `if`, `while`, `and`, `or` or `not`)",
                             TracerBoolConversionError))

    def __float__(self) -> float:
        raise ConcretizationTypeError(self, "float()")

    def __int__(self) -> int:
        return int(concrete(self, "int()"))

    def __index__(self) -> int:
        if not np.issubdtype(self.aval.dtype, np.integer):  # bool too, as in JAX
            raise TypeError(f"only integer arrays can be used as an index, not {self.aval.dtype.name}")
        return operator.index(concrete(self, "using an array as a Python index (__index__)",
                                       TracerIntegerConversionError).item())

    def __complex__(self) -> complex:
        raise ConcretizationTypeError(self, "complex()")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TracerArrayConversionError(self, "converting to a NumPy array (np.asarray)")

    def item(self, *args: Any) -> Any:
        return concrete(self, ".item()").item(*args)

    def tolist(self) -> Any:
        raise ConcretizationTypeError(self, ".tolist()")

    # __iter__ (the rows, by lax.index_in_dim) is attached from above, by _operators

    def __hash__(self) -> int:
        raise TypeError("unhashable type: traced array (a jit argument used as a dict key or "
                        "static argument?)")

    def block_until_ready(self) -> "Tracer":
        return self


# ---------------------------------------------------------------------------
# Scopes
# ---------------------------------------------------------------------------

_STATE = threading.local()


class RefAval(ShapedArray):
    """The abstract value of a `Ref` argument of a jit function: the array
    it holds, told apart from an Array argument of the same type."""

    __slots__ = ()

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RefAval) and super().__eq__(other)

    def __hash__(self) -> int:
        return hash(("ref", self._hash))


class Ref(HasAval):
    """A mutable array reference (`jaxc.new_ref`): a box holding an array
    that functions read and write. Under a trace each write is a new value
    of the scope writing it; a scope that writes a Ref made outside it
    returns the last value (`finish_ref_writes`): jit as an extra output
    written back after the call, cond and loops as extra results and carries.

        r = jaxc.new_ref(jnp.zeros(3))
        jaxc.jit(lambda: r.__setitem__(1, 1.0))()   # r is now [0, 1, 0]

    Indexing (`r[...]`, `r[i] = v`) is attached by jaxc.ref."""

    __slots__ = ("_value", "aval", "_home", "__weakref__")

    def __init__(self, value: Any, aval: ShapedArray) -> None:
        self._value = value  # an Array (a tracer under a trace, None once freed) of type `aval`
        self.aval = aval
        self._home = current_scope()  # the scope it was made in (None: outside any trace)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self) -> Any:
        raise TypeError("a Ref is not iterable; read its value with ref[...]")

    def _read(self) -> Any:
        """The value now: an Array outside a trace, else a tracer of the scope."""
        scope = current_scope()
        if scope is not None:
            return scope.tracer(scope.value(self), self.aval.weak_type)
        if self._value is None:
            raise ValueError(_FREED)
        if isinstance(self._value, Tracer):
            raise TracerLeakError(f"{where()}: {_LEFT_ITS_TRACE}")
        return self._value

    def _write(self, value: Any) -> None:
        """Make `value` (an Array, or a tracer of the current scope) the value."""
        scope = current_scope()
        if scope is not None and not scope.is_ancestor_of(self._home) and id(self) not in scope.ref_writes:
            if not (isinstance(self._value, Tracer) and self._value.scope is scope):
                scope.value(self)  # the value the scope starts from: a block argument
            scope.ref_writes[id(self)] = (self, self._value)
        self._value = value


_FREED = "this Ref was freed (jaxc.free_ref); it holds no value"
_LEFT_ITS_TRACE = "a Ref made or written inside a trace was used after it; Refs made inside a function cannot leave it"


def finish_ref_writes(scope: "Scope") -> list[tuple[Ref, ir.Value]]:
    """(ref, its last value in `scope`) for each Ref made outside `scope`
    that it wrote, and each ref's value back to what it was before."""
    with ir.InsertionPoint(scope.block):
        finals = [(ref, scope.value(ref._value)) for ref, _ in scope.ref_writes.values()]
    scope.undo_ref_writes()
    return finals


def _stack() -> list["Scope"]:
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    return stack


def current_scope() -> "Scope | None":
    stack = _stack()
    return stack[-1] if stack else None


class emitting:
    """Build ops with the lax/jnp functions from inside a pass: calls append
    to `block`, in the block's context, at `location` (settable per op via
    `.at(location)`); `.wrap(value)` makes an MLIR value a Tracer. Capturing
    is an error: every value must already live in `block`'s function.

        with emitting(block, op.location) as e:
            t = e.wrap(tangent)
            out = lax.mul(t, lax.cos(e.wrap(x))).value
    """

    def __init__(self, block: ir.Block, location: ir.Location) -> None:
        self.scope = Scope(block, None, "emit")
        self.location = location

    def __enter__(self) -> "emitting":
        self._saved = (getattr(_STATE, "context", None), getattr(_STATE, "location", None),
                       getattr(_STATE, "rules", False))
        _STATE.context = self.location.context
        _STATE.location = self.location
        _STATE.rules = True  # operators on tracers are lax's now (_operators.RULE_OPERATORS)
        self._x64 = dtypes.forced_x64()  # the IR may hold f64 whatever the user's setting
        self._x64.__enter__()
        self.scope.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.scope.__exit__(*exc)
        self._x64.__exit__(*exc)
        _STATE.context, _STATE.location, _STATE.rules = self._saved

    def at(self, location: ir.Location) -> None:
        _STATE.location = location

    def wrap(self, value: ir.Value) -> "Tracer":
        return self.scope.tracer(value)


def in_rules() -> bool:
    """Whether this thread runs a compiler pass's rules (`emitting`), where
    operators on tracers are lax functions, not jnp's."""
    return getattr(_STATE, "rules", False)


class user_code:
    """While active, operators are jnp's again: a pass running the user's
    own code (a custom_vmap rule) gives it JAX's semantics."""

    def __enter__(self) -> None:
        self._saved = getattr(_STATE, "rules", False)
        _STATE.rules = False

    def __exit__(self, *exc: Any) -> None:
        _STATE.rules = self._saved


class replacing:
    """While active, every use of a tracer of `pairs` ((tracer, value), ...)
    while tracing reads its value instead (`closure_convert`: a closed-over
    tracer becomes an argument). A tracer is known by its IR value, so its
    weakly and strongly typed views count as one. Nested uses merge, inner
    pairs winning."""

    def __init__(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        self.pairs = [(t, v) for t, v in pairs if t is not v]

    def __enter__(self) -> None:
        self.saved = getattr(_STATE, "replacements", None)
        merged = dict(self.saved or {})
        merged.update((t.value, v) for t, v in self.pairs)
        _STATE.replacements = merged

    def __exit__(self, *exc: Any) -> None:
        _STATE.replacements = self.saved


class Scope:
    """A block being traced into: the body of a function or of a region.

    `value(x)` is the MLIR value of `x` in this block. A value from outside
    (a tracer of an enclosing scope, or a concrete Array) is *captured*: it
    becomes a new block argument, and the op that owns the region passes the
    outer value in (see `captured`).
    """

    def __init__(self, block: ir.Block, parent: "Scope | None", kind: str) -> None:
        self.block = block
        self.parent = parent
        self.kind = kind  # "function" or "region"
        self.captured: list[Any] = []  # outer objects, in block-argument order
        self._capture_index: dict[int, ir.Value] = {}
        self.ref_writes: dict[int, tuple[Ref, Any]] = {}  # id -> (a Ref made outside, its value before)
        self.repeats = False  # a loop body: it runs again and again on what it captures
        self.active = True

    def __enter__(self) -> "Scope":
        _stack().append(self)
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        _stack().pop()
        self.active = False
        written = self.undo_ref_writes()  # writes no one took over: undone, refused unless failing anyway
        if written and exc_type is None:
            raise NotImplementedError(
                f"{where()}: a function jaxc traced for grad, vmap, custom_jvp or another "
                f"transformation wrote {written} Ref(s) made outside it; jaxc carries Ref writes "
                "out of jit, cond, switch, while_loop, fori_loop and scan only (return the value instead)")

    def undo_ref_writes(self) -> int:
        """Put back the value each Ref made outside this scope had before
        the scope wrote it; how many there were."""
        for ref, before in self.ref_writes.values():
            ref._value = before
        count = len(self.ref_writes)
        self.ref_writes.clear()
        return count

    def is_ancestor_of(self, other: "Scope | None") -> bool:
        while other is not None:
            if other is self:
                return True
            other = other.parent
        return False

    def value(self, x: Any) -> ir.Value:
        """The MLIR value of `x` (Tracer, Array, Ref, NumPy array or scalar) here."""
        if isinstance(x, Tracer):
            replacements = getattr(_STATE, "replacements", None)
            if replacements and x.value in replacements:
                return self.value(replacements[x.value])
            if x.scope is self:
                return x.value
            if not x.scope.active or not x.scope.is_ancestor_of(self):
                raise TracerLeakError(
                    f"{where()}: a traced value {x.aval.str_short()} escaped the trace that "
                    "created it (it was stored outside a jit / lax function and used later). "
                    "Return it from the function instead.")
            return self._capture(x)
        from .array import Array
        if isinstance(x, Array):
            return self._capture(x)
        if isinstance(x, Ref):
            return self._ref_value(x)
        return constant_value(np.asarray(x))

    def _ref_value(self, ref: Ref) -> ir.Value:
        """A Ref's value here: this scope's own, else captured (keyed by the
        Ref, so a jit reads the Ref at each call and a loop can carry it)."""
        held = ref._value
        if isinstance(held, Tracer):
            if held.scope is self:
                return held.value
            if not held.scope.active or not held.scope.is_ancestor_of(self):
                raise TracerLeakError(f"{where()}: {_LEFT_ITS_TRACE}")
        elif held is None:
            raise ValueError(_FREED)
        return self._capture(ref)

    def _capture(self, x: Any) -> ir.Value:
        if self.kind == "emit":
            raise TracerLeakError(f"a pass rule used a value from outside its block: {x!r}")
        inner = self._capture_index.get(id(x))
        if inner is None:
            loc = ir.Location.unknown(context())
            inner = self.block.add_argument(ir_type(x.aval.shape, x.aval.dtype), loc)
            self.captured.append(x)
            self._capture_index[id(x)] = inner
        return inner

    def tracer(self, value: ir.Value, weak_type: bool = False) -> Tracer:
        return Tracer(self, value, aval_of_type(value.type, weak_type))


def constant_value(array: np.ndarray) -> ir.Value:
    """A `jaxc.constant` of a NumPy array, at the user's location."""
    import jaxc.dialect as jd
    array = np.require(array, requirements="C")
    type_ = ir_type(array.shape, array.dtype)
    if array.dtype == np.bool_:
        attr = ir.DenseElementsAttr.get(np.packbits(array, bitorder="little"), type=type_)
    elif dtypes.bfloat16 is not None and array.dtype == dtypes.bfloat16:
        attr = ir.DenseElementsAttr.get(array.view(np.uint16), type=type_)
    elif array.dtype.kind == "c":  # the bindings take no complex buffer: its parts, as raw data
        attr = ir.DenseElementsAttr.get(array.reshape(-1).view(array.real.dtype), type=type_)
    elif array.dtype.kind == "u":
        attr = ir.DenseElementsAttr.get(array.view(np.dtype(f"i{array.dtype.itemsize}")), type=type_)
    else:
        attr = ir.DenseElementsAttr.get(array, type=type_)
    return jd.ConstantOp(attr, loc=user_location()).result


# ---------------------------------------------------------------------------
# Tracing a function or a region
# ---------------------------------------------------------------------------

class TracedRegion:
    """A Python function traced into a temporary block (see `trace_region`).

    `out_values` are its results in that block, `captured` the outer objects
    it used (each a trailing block argument). `move_into` transplants the
    body into a region of the op being built."""

    def __init__(self, holder: ir.Module, block: ir.Block, n_args: int, out_values: list[ir.Value],
                 out_avals: list[ShapedArray], out_tree: Any, captured: list[Any]) -> None:
        self._holder = holder
        self.block = block
        self.n_args = n_args
        self.out_values = out_values
        self.out_avals = out_avals
        self.out_tree = out_tree
        self.captured = captured
        self.ref_writes: list[tuple[Ref, ir.Value]] = []  # (a Ref made outside, its last value here)

    def move_into(self, region: ir.Region, arg_types: Sequence[ir.Type], all_captured: Sequence[Any],
                  yield_values: Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]] | None = None) -> None:
        """Fill `region` with one block whose arguments are `arg_types`
        (the explicit ones) followed by one per object of `all_captured`
        (a superset of this region's captures, in the op's operand order),
        move the traced ops into it and end it with `jaxc.yield`.

        `yield_values(outs, block_args)` may change what is yielded (a
        while body also yields its captured values unchanged)."""
        import jaxc.dialect as jd
        capture_types = [ir_type(c.aval.shape, c.aval.dtype) for c in all_captured]
        block = region.blocks.append(*arg_types, *capture_types)
        outs = list(self.out_values)
        new_args = list(block.arguments)
        if yield_values is not None:
            outs = yield_values(outs, new_args)
        with ir.InsertionPoint(block), ir.Location.unknown(context()):
            terminator = jd.YieldOp(outs)
        for op in list(self.block.operations):
            op.move_before(terminator)
        old_args = list(self.block.arguments)
        for old, new in zip(old_args[:self.n_args], new_args[:self.n_args]):
            old.replace_all_uses_with(new)
        position = {id(c): i for i, c in enumerate(all_captured)}
        for old, obj in zip(old_args[self.n_args:], self.captured):
            old.replace_all_uses_with(new_args[self.n_args + position[id(obj)]])


def trace_region(fun: Callable[..., Any], in_avals: Sequence[ShapedArray], what: str,
                 writes_refs: bool = False, repeats: bool = False) -> TracedRegion:
    """Trace `fun(*tracers)` (one tracer per aval) into a fresh block, for a
    region of a control-flow op. `what` names the function in errors.
    `writes_refs`: the op carries the region's writes of Refs made outside it
    (`TracedRegion.ref_writes`); otherwise such a write is an error.
    `repeats`: the region is a loop body (`Scope.repeats`)."""
    from . import tree_util
    ctx = context()
    with ctx, ir.Location.unknown(ctx):
        holder = ir.Module.create()
        with ir.InsertionPoint(holder.body):
            arg_types = [ir_type(a.shape, a.dtype) for a in in_avals]
            fn = func_d.FuncOp("region", ir.FunctionType.get(arg_types, []))
            block = fn.add_entry_block()
        scope = Scope(block, current_scope(), "region")
        scope.repeats = repeats
        with scope, ir.InsertionPoint(block):
            args = [Tracer(scope, v, a) for v, a in zip(block.arguments, in_avals)]
            out = fun(*args)
            leaves, out_tree = tree_util.tree_flatten(out)
            check_no_refs(leaves, what)
            outs = [as_operand(leaf, what) for leaf in leaves]
            out_values = [scope.value(x) for x in outs]
            if not writes_refs and scope.undo_ref_writes():
                raise NotImplementedError(f"{what} wrote a Ref made outside it; it cannot (jaxc carries Ref "
                                          "writes out of the branches and bodies of cond, switch, while_loop, "
                                          "fori_loop and scan)")
            ref_writes = finish_ref_writes(scope) if writes_refs else []
        out_avals = [x.aval if isinstance(x, ArrayBase) else aval_of_type(v.type) for x, v in zip(outs, out_values)]
    region = TracedRegion(holder, block, len(in_avals), out_values, out_avals, out_tree, scope.captured)
    region.ref_writes = ref_writes
    return region


def check_no_refs(leaves: Sequence[Any], what: str) -> None:
    """A Ref among a function's results is JAX's ValueError."""
    for leaf in leaves:
        if isinstance(leaf, Ref):
            raise ValueError(f"{what} returned a mutable array reference of type Ref{{{leaf.aval.str_short()}}}, "
                             "but mutable array references cannot be returned.")


# How `as_operand` makes an array of anything else, attached from above (core
# imports nothing above it): lax's conversion of scalars and NumPy values when
# jaxc.lax loads (all a pass needs), jnp.asarray once jaxc.numpy does.
to_array: Callable[[Any], Any] | None = None


def as_operand(x: Any, what: str) -> Any:
    """`x` as an array-like operand (Tracer, Array): Python scalars and NumPy
    values become arrays; anything else is a TypeError naming `what`."""
    if isinstance(x, ArrayBase):
        return x
    if isinstance(x, Ref):
        raise TypeError(f"{what}: got a mutable array reference Ref{{{x.aval.str_short()}}} where an array "
                        "is expected; read its value with ref[...] (vmap over a Ref is not supported)")
    if to_array is None:
        raise RuntimeError("jaxc.core.as_operand: import jaxc.lax first (it attaches the conversion)")
    try:
        return to_array(x)
    except TypeError:
        raise TypeError(f"{what}: {type(x).__name__} {x!r} is not an array, a NumPy value or a "
                        "Python scalar") from None


# ---------------------------------------------------------------------------
# Primitives
# ---------------------------------------------------------------------------

class Primitive:
    """One `jaxc` op (or a small fixed group of ops) as a Python operation.

    `build(*values, **params)` builds the op(s) at the current insertion
    point and returns the result value(s) (a list when `multiple_results`).
    `weak(in_avals, **params)` says whether the results are weakly typed;
    by default they are when every operand is.
    """

    def __init__(self, name: str, build: Callable[..., Any], *, multiple_results: bool = False,
                 weak: Callable[..., bool] | None = None) -> None:
        self.name = name
        self.build = build
        self.multiple_results = multiple_results
        self.weak = weak or _all_weak

    def __repr__(self) -> str:
        return f"Primitive({self.name})"

    def bind(self, *operands: Any, **params: Any) -> Any:
        return bind(self, *operands, **params)


def _all_weak(in_avals: Sequence[ShapedArray], **params: Any) -> bool:
    return bool(in_avals) and all(a.weak_type for a in in_avals)


# Called as ``bind_hook(prim, operands, params, results)`` after each primitive
# is traced into a scope, when set (jaxc.experimental.checkify sets it while a
# checkify trace is active, to add its automatic checks after the op).
bind_hook: Callable[..., None] | None = None


def bind(prim: Primitive, *operands: Any, **params: Any) -> Any:
    """Apply `prim`: emit it into the active trace, or run it eagerly."""
    scope = current_scope()
    if scope is None:
        for x in operands:
            if isinstance(x, Tracer):
                raise TracerLeakError(
                    f"{where()}: {prim.name} got a traced value {x.aval.str_short()} outside the "
                    "trace that created it; return it from the jit / lax function instead")
        dispatch = sys.modules.get("jaxc.dispatch") or _import_dispatch()
        return dispatch.apply_eager(prim, operands, params)
    ctx = context()
    with ctx, user_location(), ir.InsertionPoint(scope.block):
        values = [scope.value(x) for x in operands]
        results = build_checked(prim, values, params)
    weak = prim.weak([x.aval for x in operands], **params)
    tracers = [scope.tracer(v, weak) for v in results]
    if any(type(x) is Tracer and x.recipe is not None for x in operands):
        _record_recipes(tracers, prim, operands, params)
    if bind_hook is not None:
        bind_hook(prim, operands, params, tracers)
    return tracers if prim.multiple_results else tracers[0]


# ---------------------------------------------------------------------------
# Concrete values while tracing (grad, jvp... called outside jit)
# ---------------------------------------------------------------------------
#
# A transformation called outside jit traces its function with the values of
# its arguments known: their tracers carry a `recipe`, and every op bound on
# them records (prim, operands, params, result index). Python control flow on
# such a tracer (bool, int, item) evaluates the recipe eagerly, one op at a
# time, as JAX's concrete JVP tracers do, and marks the trace value-dependent
# (`concretizations`): its caller must not reuse the trace for other values.
# Inside jit no argument has a recipe, so the ConcretizationTypeError stays.

def _record_recipes(tracers: Sequence[Tracer], prim: Primitive, operands: Sequence[Any],
                    params: dict) -> None:
    """Give `tracers` (the results of `prim`) recipes when every traced operand has one."""
    if all(type(x) is not Tracer or x.recipe is not None for x in operands):
        for index, tracer in enumerate(tracers):
            tracer.recipe = (prim, tuple(operands), params, index)


def concretizations() -> int:
    """How many traced values this thread has turned concrete so far."""
    return getattr(_STATE, "concretizations", 0)


def concrete(x: Tracer, what: str, error: type = ConcretizationTypeError) -> np.ndarray:
    """The value of tracer `x` as a NumPy array, computed from its recipe;
    `error(x, what)` when it has none (the value is abstract: inside jit or
    a lax control-flow body)."""
    value = _evaluate(x)
    if value is None:
        raise error(x, what)
    _STATE.concretizations = concretizations() + 1
    return np.asarray(value)


def _evaluate(x: Tracer) -> Any:
    """The concrete value (an Array or NumPy value) of tracer `x`, None when
    it depends on an abstract value. Evaluates recipes bottom up without
    recursion (a long Python loop makes a deep chain) and memoizes each
    tracer's value as its recipe."""
    from .array import Array
    unknown = (tuple, Tracer)  # recipes still to evaluate: an op, or an alias of another tracer
    saved, _STATE.stack = _stack(), []  # eager ops: outside every trace
    try:
        pending = [x]
        while pending:
            t = pending[-1]
            recipe = t.recipe
            if recipe is None:
                return None
            if type(recipe) is Tracer:  # an alias: the other tracer's value
                if recipe.recipe is None:
                    return None
                if type(recipe.recipe) in unknown:
                    pending.append(recipe)
                    continue
                t.recipe = recipe.recipe
            elif type(recipe) is tuple:
                prim, operands, params, index = recipe
                traced = [o for o in operands if type(o) is Tracer]
                if any(o.recipe is None for o in traced):
                    return None
                waiting = [o for o in traced if type(o.recipe) in unknown]
                if waiting:
                    pending.extend(waiting)
                    continue
                out = prim.bind(*[o.recipe if type(o) is Tracer else o for o in operands], **params)
                t.recipe = out[index] if prim.multiple_results else out
            pending.pop()
        value = x.recipe
        return value if isinstance(value, (Array, np.ndarray, np.generic, bool, int, float)) else None
    finally:
        _STATE.stack = saved


def _import_dispatch() -> Any:
    from . import dispatch  # imports this module: not at the top
    return dispatch


def build_checked(prim: Primitive, values: Sequence[ir.Value], params: dict) -> list[ir.Value]:
    """Build `prim` and return its results as a list; an MLIR error (a
    verifier or type-inference failure) becomes a `JaxcTypeError` with the
    dialect's message and the user's line."""
    ctx = context()
    diagnostics: list[str] = []

    def handler(diag) -> bool:
        diagnostics.append(str(diag.message))
        return True

    handle = ctx.attach_diagnostic_handler(handler)
    try:
        out = prim.build(*values, **params)
    except (ir.MLIRError, ValueError) as error:
        messages = [str(d.message) for d in getattr(error, "error_diagnostics", [])] or diagnostics
        detail = "; ".join(m for m in messages if "failed to infer" not in m) or str(error)
        types = ", ".join(str(v.type) for v in values)
        raise JaxcTypeError(f"{where()}: {prim.name} cannot be applied to ({types}): {detail}") from None
    finally:
        handle.detach()
    if isinstance(out, ir.Value):
        return [out]
    if isinstance(out, ir.OpView):
        return list(out.results)
    return list(out)

