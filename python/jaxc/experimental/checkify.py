"""`jax.experimental.checkify`: run-time checks as values.

`checkify(f)` returns a function that gives ``(error, out)``: `out` is what
`f` returns and `error` an `Error` that records which checks failed while
it ran. Checks are `check(pred, msg, *fmt_args)` calls inside `f` (the
message is formatted with the run-time values of the arrays in `fmt_args`)
and, when asked for with `errors=`, automatic checks jaxc adds after the
ops that may produce a NaN (`nan_checks`), divide by zero (`div_checks`) or
index out of bounds (`index_checks`).

    def f(x):
        checkify.check(x > 0, "x must be positive, got {}", x)
        return jnp.log(x)
    err, y = jax.jit(checkify.checkify(f))(-3.)
    err.get()   # 'x must be positive, got -3.0 (`check` failed)'
    err.throw() # raises checkify.JaxRuntimeError with that message

How it works. The error is ordinary traced data: while `f` is traced, a
*checker* (one per checkify trace and per scope) holds the current error,
a pytree of arrays of that scope. A `check` adds its failure flag, a code
naming it and its format arguments (the *payload*) to the error with a few
`or`/`select` ops, so the error reaches the output like any other value.
Errors live in *slots*, one per kind of error and payload type; a slot
keeps the first failure recorded in it, and `get` reports the failed slot
with the smallest code. As in JAX, `check`s of a checkify call take smaller
codes than its automatic checks, so a failed `check` is reported first.

Two small hooks let the checker see through jaxc's tracing:
`core.bind_hook` runs the automatic checks after each primitive is traced,
and `lax._control_flow.functionalize_hook` lets checkify take over `cond`,
`switch`, `while_loop` and `scan` (so `fori_loop` and `map` too): the
branches and loop bodies get their own checker for their region, and the
error is passed in and out of the op as extra operands and results. A body
is first traced as it is; only when it records errors is the call traced
again with the error threaded through.

Not supported (a clear error, never a silently missed check): checks and
automatic checks inside functions that `grad`, `jvp`, `vjp`, `vmap`,
`custom_jvp`/`custom_vjp` or `checkpoint` trace under a checkify call,
since their traced functions cannot return the error. Apply checkify
inside the transformation instead (``vmap(checkify(f))``).
"""
from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import core, dtypes, numpy as jnp, tree_util
from ..array import Array
from ..core import ArrayBase, ShapedArray
from ..lax import _control_flow, _ops as lax

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks", "check",
           "check_error", "checkify", "debug_check", "div_checks", "float_checks", "index_checks",
           "init_error", "nan_checks", "user_checks"]


# ---------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------

class JaxRuntimeError(ValueError):
    """Raised by `Error.throw`, `check_error`, and by a `check` that fails
    outside checkify: its message is the failed check's."""


class JaxException(Exception):
    """A kind of error checkify records. `where` is the user's ``file:line``
    of the check; the static parts are in `_static()`, the run-time values
    in `_payload()`, and `_rebuild` makes the exception from both."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def _static(self) -> tuple:
        return (self.where,)

    def _payload(self) -> list[Any]:
        return []

    @classmethod
    def _rebuild(cls, static: tuple, payload: list[Any]) -> "JaxException":
        return cls(*static)


class FailedCheckError(JaxException):
    """A `check` whose predicate was false."""

    def __init__(self, where: str, fmt_string: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
        super().__init__(where)
        self.fmt_string = fmt_string
        self.args = fmt_args
        self.kwargs = fmt_kwargs

    def _static(self) -> tuple:
        return (self.where, self.fmt_string, tree_util.tree_structure((self.args, self.kwargs)))

    def _payload(self) -> list[Any]:
        return tree_util.tree_leaves((self.args, self.kwargs))

    @classmethod
    def _rebuild(cls, static: tuple, payload: list[Any]) -> "FailedCheckError":
        where, fmt_string, tree = static
        args, kwargs = tree_util.tree_unflatten(tree, payload)
        return cls(where, fmt_string, *args, **kwargs)

    def __str__(self) -> str:
        return self.fmt_string.format(*self.args, **self.kwargs) + " (`check` failed)"


class NaNError(JaxException):
    """A primitive produced a NaN (named by JAX's name for it)."""

    def __init__(self, where: str, primitive_name: str) -> None:
        super().__init__(where)
        self.prim = primitive_name

    def _static(self) -> tuple:
        return (self.where, self.prim)

    def __str__(self) -> str:
        return f"nan generated by primitive: {self.prim}."


class DivisionByZeroError(JaxException):
    """A division whose divisor had a zero."""

    def __str__(self) -> str:
        return "division by zero"


class OOBError(JaxException):
    """An out-of-bounds index of a gather, scatter or dynamic slice; the
    payload is int32[3]: the index, its axis and the axis size."""

    def __init__(self, where: str, primitive_name: str, operand_shape: tuple[int, ...], payload: Any) -> None:
        super().__init__(where)
        self.prim = primitive_name
        self.operand_shape = operand_shape
        self._oob = payload

    def _static(self) -> tuple:
        return (self.where, self.prim, self.operand_shape)

    def _payload(self) -> list[Any]:
        return [self._oob]

    @classmethod
    def _rebuild(cls, static: tuple, payload: list[Any]) -> "OOBError":
        where, primitive_name, operand_shape = static
        return cls(where, primitive_name, operand_shape, payload[0])

    def __str__(self) -> str:
        index, axis, size = (int(v) for v in np.asarray(self._oob))
        return (f"out-of-bounds indexing for array of shape {self.operand_shape}: index {index} is out "
                f"of bounds for axis {axis} with size {size}. ")


class BatchedError(JaxException):
    """The errors of a batched `Error` (from `vmap`), by mapped index."""

    def __init__(self, error_mapping: dict[tuple[int, ...], JaxException]) -> None:
        super().__init__(next(iter(error_mapping.values())).where)
        self.error_mapping = error_mapping

    def __str__(self) -> str:
        return "\n".join(f"at mapped index {', '.join(map(str, index))}: {error}"
                         for index, error in self.error_mapping.items())

    def __repr__(self) -> str:
        return f"BatchedError(error_mapping={self.error_mapping!r})"


ErrorCategory = type  # a category is an exception class; the check sets below are frozensets of them

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


# ---------------------------------------------------------------------------
# The Error value
# ---------------------------------------------------------------------------

class _Slot(NamedTuple):
    """Where an error is kept: its kind and its payload's (shape, dtype name,
    weak type) per leaf. Failures of one slot share its payload arrays."""
    error_type: type
    payload_types: tuple[tuple[tuple[int, ...], str, bool], ...]


def _slot_order(slot: _Slot) -> tuple:
    return (slot.error_type.__name__, slot.payload_types)


def _payload_type(x: Any) -> tuple[tuple[int, ...], str, bool]:
    return (tuple(x.shape), np.dtype(x.dtype).name, bool(x.weak_type))


class Error:
    """What the checks of a checkified function found: per slot, whether a
    check failed (`_pred`), the code of the first failure (`_code`) and its
    payload (`_payload`); `_metadata` maps each code to the kind of error
    and its static parts. A pytree whose leaves are those arrays, so it
    passes through `jit` and `vmap` (which batches every leaf)."""

    __slots__ = ("_pred", "_code", "_metadata", "_payload")

    def __init__(self, _pred: dict, _code: dict, _metadata: dict, _payload: dict) -> None:
        self._pred = _pred
        self._code = _code
        self._metadata = _metadata
        self._payload = _payload

    def get(self) -> str | None:
        """The message of the first failed check, or None when none failed."""
        exception = self.get_exception()
        return None if exception is None else str(exception)

    def get_exception(self) -> JaxException | None:
        """The first failed check as an exception (a `BatchedError` listing
        each failing index for a batched error), or None."""
        if any(np.shape(pred) for pred in self._pred.values()):
            return self._batched_exception()
        first = None
        for slot, pred in self._pred.items():
            if bool(np.asarray(pred)):
                code = int(np.asarray(self._code[slot]))
                if first is None or code < first[0]:
                    first = (code, slot)
        if first is None:
            return None
        code, slot = first
        return _exception(self._metadata[code], list(self._payload[slot]))

    def _batched_exception(self) -> BatchedError | None:
        preds = {slot: np.asarray(p) for slot, p in self._pred.items()}
        codes = {slot: np.asarray(c) for slot, c in self._code.items()}
        payloads = {slot: [np.asarray(x) for x in leaves] for slot, leaves in self._payload.items()}
        shape = next(iter(preds.values())).shape
        mapping = {}
        for index in np.ndindex(*shape):
            first = None
            for slot, pred in preds.items():
                if pred[index] and (first is None or codes[slot][index] < first[0]):
                    first = (int(codes[slot][index]), slot)
            if first is not None:
                code, slot = first
                leaves = [_like(x[index], leaf) for x, leaf in zip(payloads[slot], self._payload[slot])]
                mapping[index] = _exception(self._metadata[code], leaves)
        return BatchedError(mapping) if mapping else None

    def throw(self) -> None:
        """Raise `JaxRuntimeError` with the first failure's message, if any
        (under checkify, the failures are recorded instead)."""
        _check_error(self)

    def __str__(self) -> str:
        return f"Error({self.get()})"

    def __repr__(self) -> str:
        slots = ", ".join(f"{slot.error_type.__name__}: pred={self._pred[slot]!r}, code={self._code[slot]!r}"
                          for slot in self._pred)
        return f"Error({{{slots}}})"


def _exception(info: tuple, payload: list[Any]) -> JaxException:
    error_type, static = info
    return error_type._rebuild(static, payload)


def _like(value: Any, template: Any) -> Array:
    """`value` (NumPy) as a concrete Array (even while tracing) with the
    weak type of `template`."""
    array = Array._from_value(np.asarray(value))
    if getattr(template, "weak_type", False):
        array.aval = ShapedArray(array.shape, array.dtype, True)
    return array


def _flatten_error(error: Error) -> tuple[tuple, tuple]:
    slots = sorted(error._pred, key=_slot_order)
    children = ([error._pred[s] for s in slots], [error._code[s] for s in slots],
                [list(error._payload[s]) for s in slots])
    return children, (tuple(slots), tuple(sorted(error._metadata.items())))


def _unflatten_error(aux: tuple, children: Any) -> Error:
    slots, metadata = aux
    preds, codes, payloads = children
    return Error(dict(zip(slots, preds)), dict(zip(slots, codes)), dict(metadata),
                 {s: list(p) for s, p in zip(slots, payloads)})


tree_util.register_pytree_node(Error, _flatten_error, _unflatten_error)

init_error = Error({}, {}, {}, {})


# ---------------------------------------------------------------------------
# Building errors
# ---------------------------------------------------------------------------

_STATE = threading.local()
_user_codes = itertools.count(1)
_automatic_codes = itertools.count(1 << 30)  # after every check's code, as in JAX


class _quiet:
    """While active, ops that checkify itself emits are not checked."""

    def __enter__(self) -> None:
        _STATE.quiet = getattr(_STATE, "quiet", 0) + 1

    def __exit__(self, *exc: Any) -> None:
        _STATE.quiet -= 1


def _new_error(exception: JaxException, failed: Any, codes: Any) -> Error:
    """A one-slot error: `exception` happened where `failed` (a bool array);
    its code is the next of `codes`."""
    payload = [core.as_operand(x, "checkify") for x in exception._payload()]
    slot = _Slot(type(exception), tuple(_payload_type(x) for x in payload))
    info = (type(exception), exception._static())
    code = _new_code(codes, info)
    return Error({slot: failed}, {slot: lax.constant(code, _code_dtype(), weak_type=True)},
                 {code: info}, {slot: payload})


def _new_code(codes: Any, info: tuple) -> int:
    """The next code of `codes`, or, while a trace is replayed (see
    `_codes_of`), the code the same check had in the recorded trace."""
    replay = getattr(_STATE, "replay", None)
    if replay:
        code, recorded = replay.pop(0)
        if recorded == info:
            return code
        replay.clear()  # the trace went another way: fresh codes from here
    code = next(codes)
    recording = getattr(_STATE, "recording", None)
    if recording is not None:
        recording.append((code, info))
    return code


class _codes_of:
    """``with _codes_of(recorded):`` records the codes of the checks traced
    inside into `recorded` (a list) when it is empty, else gives them to the
    same checks traced again, in order: one check, one code, as in JAX where
    a function is traced once however often checkify copies it."""

    def __init__(self, recorded: list) -> None:
        self.recorded = recorded

    def __enter__(self) -> None:
        self.saved = getattr(_STATE, "recording", None), getattr(_STATE, "replay", None)
        if self.recorded:
            _STATE.recording, _STATE.replay = None, list(self.recorded)
        else:
            _STATE.recording, _STATE.replay = self.recorded, None

    def __exit__(self, *exc: Any) -> None:
        _STATE.recording, _STATE.replay = self.saved


def _code_dtype() -> np.dtype:
    return dtypes.canonicalize(np.int64)


def _merge(error: Error, new: Error, enabled: frozenset) -> Error:
    """`error` with the failures of `new` in the enabled categories added;
    each slot keeps its first failure."""
    pred, code, payload = dict(error._pred), dict(error._code), dict(error._payload)
    with _quiet():
        for slot, failed in new._pred.items():
            if slot.error_type not in enabled:
                continue
            before = pred.get(slot)
            if before is None:
                pred[slot], code[slot], payload[slot] = failed, new._code[slot], list(new._payload[slot])
                continue
            pred[slot] = jnp.logical_or(before, failed)
            code[slot] = lax.select(before, code[slot], new._code[slot])
            payload[slot] = [lax.select(before, old, x) for old, x in zip(payload[slot], new._payload[slot])]
    return Error(pred, code, {**error._metadata, **new._metadata}, payload)


def _with_slots(error: Error, slots: set) -> Error:
    """`error` with an empty (never failed) entry for each slot of `slots` it lacks."""
    pred, code, payload = dict(error._pred), dict(error._code), dict(error._payload)
    with _quiet():
        for slot in slots - set(pred):
            pred[slot] = lax.constant(False, np.bool_)
            code[slot] = lax.constant(-1, _code_dtype(), weak_type=True)
            payload[slot] = [lax.convert_element_type(lax.full(shape, 1, dtype), dtype, weak_type=weak)
                             for shape, dtype, weak in slot.payload_types]
    return Error(pred, code, error._metadata, payload)


def _reduce_batched(error: Error) -> Error:
    """A batched error as one error: per slot, the entry of the last
    failing index (the last index when none failed), as JAX picks it."""
    if not any(np.shape(p) for p in error._pred.values()):
        return error
    pred, code, payload = {}, {}, {}
    with _quiet():
        for slot, failed in error._pred.items():
            flat = jnp.reshape(failed, (-1,))
            size = flat.shape[0]
            index = jnp.max(jnp.where(flat, jnp.arange(size), -1))
            index = jnp.where(index < 0, size - 1, index)
            pred[slot] = flat[index]
            code[slot] = jnp.reshape(error._code[slot], (-1,))[index]
            payload[slot] = [jnp.reshape(x, (size, *x.shape[failed.ndim:]))[index] for x in error._payload[slot]]
    return Error(pred, code, error._metadata, payload)


# ---------------------------------------------------------------------------
# Checkers: the error state of a checkify trace, per scope
# ---------------------------------------------------------------------------

class _Checker:
    """The error of one checkify call while it is traced in `scope` (a
    function, or a region of a control-flow op); `busy` while it has handed
    a control-flow call to lax (so the hook lets that call through)."""

    def __init__(self, scope: core.Scope, enabled: frozenset, error: Error) -> None:
        self.scope = scope
        self.enabled = enabled
        self.error = error
        self.busy = 0

    def __enter__(self) -> "_Checker":
        _stack().append(self)
        _hooks_in_use(+1)
        return self

    def __exit__(self, *exc: Any) -> None:
        _stack().pop()
        _hooks_in_use(-1)


def _traced_scope() -> core.Scope:
    """The current scope, where a checker is made: always under a trace."""
    scope = core.current_scope()
    assert scope is not None  # checkify's traced paths and the regions of control flow
    return scope


def _stack() -> list[_Checker]:
    stack = getattr(_STATE, "checkers", None)
    if stack is None:
        stack = _STATE.checkers = []
    return stack


_HOOK_LOCK = threading.Lock()
_hook_users = 0


def _hooks_in_use(change: int) -> None:
    """Install the tracing hooks while any thread has a checker."""
    global _hook_users
    with _HOOK_LOCK:
        _hook_users += change
        core.bind_hook = _after_bind if _hook_users else None
        _control_flow.functionalize_hook = _take_over if _hook_users else None


def _checker_of(scope: core.Scope | None) -> tuple[_Checker | None, bool]:
    """(the checker that owns `scope`'s checks, whether it is `scope`'s own);
    a checker of an enclosing scope owns the checks of scopes nested in it
    that have none of their own (the functions grad, vmap... trace)."""
    for checker in reversed(_stack()):
        if checker.scope is scope:
            return checker, True
        if checker.scope.is_ancestor_of(scope):
            return checker, False
    return None, False


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{core.where()}: checkify: {what} inside a function traced by grad, jvp, vjp, vmap, "
        "custom_jvp, custom_vjp, checkpoint or eval_shape under checkify is not supported: jaxc cannot "
        "return the error from such a function. Apply checkify inside the transformation instead "
        "(e.g. vmap(checkify(f)), or grad(g, has_aux=True) where g returns checkify(f)'s error as aux).")


_NOT_FUNCTIONALIZED = (
    "checkify.check was staged (under jit, a lax control-flow function, vmap...) without checkify: "
    "its failure cannot be raised from compiled code. Wrap the function in checkify.checkify and "
    "inspect or throw the returned error.")


def _record(new: Error, debug: bool = False) -> None:
    """What a `check` or `check_error` does with the error `new`: add it
    to the checker of the current scope; outside any trace raise at once;
    in a trace without checkify raise when the values are known while
    tracing (an eager grad), else it is an error (as JAX's staging)."""
    scope = core.current_scope()
    if scope is None:
        if not debug:
            _raise_if_failed(new)
        return
    checker, own = _checker_of(scope)
    if checker is not None:
        if not own:
            raise _unsupported("a check")
        checker.error = _merge(checker.error, new, checker.enabled)
        return
    if debug or (scope.kind == "region" and scope.parent is None):
        return  # a region traced outside any trace is never run (eval_shape): nothing to check
    known = _known_values(new)
    if known is None:
        raise ValueError(_NOT_FUNCTIONALIZED)
    _raise_if_failed(known)


def _known_values(error: Error) -> Error | None:
    """`error` with its leaves as Arrays when all are known while tracing
    (`core.concrete`), else None."""
    leaves, tree = tree_util.tree_flatten(error)
    known = []
    for leaf in leaves:
        if isinstance(leaf, core.Tracer):
            try:
                leaf = _like(core.concrete(leaf, "checkify.check"), leaf)
            except core.ConcretizationTypeError:
                return None
        known.append(leaf)
    return tree_util.tree_unflatten(tree, known)


def _raise_if_failed(error: Error) -> None:
    exception = _reduce_batched(error).get_exception()
    if exception is not None:
        raise JaxRuntimeError(str(exception)) from exception


# ---------------------------------------------------------------------------
# check, check_error, checkify
# ---------------------------------------------------------------------------

def check(pred: Any, msg: str, *fmt_args: Any, debug: bool = False, **fmt_kwargs: Any) -> None:
    """Check that `pred` (a boolean scalar) holds; if not, fail with `msg`
    formatted (`str.format`) with the run-time values of `fmt_args` and
    `fmt_kwargs` (pytrees of arrays). Under `checkify` the failure is
    recorded in the returned `Error`; outside any trace it raises
    `JaxRuntimeError`; staged without checkify it is an error. With
    `debug=True` the check is dropped unless checkified."""
    _check(pred, msg, debug, fmt_args, fmt_kwargs)


def debug_check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """A `check` that only runs under `checkify` (elsewhere it does nothing)."""
    _check(pred, msg, True, fmt_args, fmt_kwargs)


def _check(pred: Any, msg: str, debug: bool, fmt_args: tuple, fmt_kwargs: dict) -> None:
    name = "debug_check" if debug else "check"
    scalar_bool = isinstance(pred, ArrayBase) and pred.shape == () and pred.dtype == np.bool_
    if not (isinstance(pred, bool) or scalar_bool):
        raise TypeError(f"checkify.{name}: pred must be a Python bool or a boolean scalar array, got {pred}")
    for arg in tree_util.tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (ArrayBase, np.ndarray)):
            raise TypeError(f"checkify.{name}: the formatting arguments must be pytrees of arrays, but "
                            f"got {arg!r} of type {type(arg)}")
    with _quiet():
        failed = jnp.logical_not(pred)
    _record(_new_error(FailedCheckError(core.where(), msg, *fmt_args, **fmt_kwargs), failed,
                       _user_codes), debug)


def check_error(error: Error) -> None:
    """Raise `JaxRuntimeError` if `error` holds a failure; under `checkify`
    the failures are recorded in its error instead (so an error returned
    by an inner checkify can be checked again)."""
    if not isinstance(error, Error):
        raise TypeError(f"checkify.check_error: expected an Error, got {type(error).__name__}")
    _check_error(error)


def _check_error(error: Error) -> None:
    if core.current_scope() is not None:  # batched errors become one (eagerly: in _raise_if_failed)
        error = _reduce_batched(error)
    _record(error)


def checkify(f: Callable[..., Any], errors: frozenset = user_checks) -> Callable[..., tuple[Error, Any]]:
    """`f` made to return ``(error, out)``: `out` is `f`'s result and
    `error` the `Error` of its checks in the categories of `errors` (a set
    of `user_checks`, `nan_checks`, `div_checks`, `index_checks`, or their
    unions `float_checks`, `automatic_checks`, `all_checks`). Like JAX,
    `f` is traced: array arguments are abstract, other arguments (Python
    numbers, NumPy arrays, anything else) are constants of the trace."""
    enabled = frozenset(errors)
    eager: dict[Any, Any] = {}  # key of the non-array arguments -> the jit that runs f

    def checked(*args: Any, **kwargs: Any) -> tuple[Error, Any]:
        if core.current_scope() is not None:
            return _checkify_traced(f, enabled, args, kwargs)
        return _checkify_eager(f, enabled, eager, args, kwargs)

    checked.__name__ = f"checkify_{getattr(f, '__name__', 'fun')}"
    checked.__doc__ = getattr(f, "__doc__", None)
    setattr(checked, "__wrapped__", f)  # as functools.wraps sets it (mypy knows no such attribute)
    return checked


def _checkify_traced(f: Callable, enabled: frozenset, args: tuple, kwargs: dict) -> tuple[Error, Any]:
    with _Checker(_traced_scope(), enabled, init_error) as checker:
        out = f(*args, **kwargs)
    return checker.error, out


def _checkify_eager(f: Callable, enabled: frozenset, cache: dict, args: tuple, kwargs: dict) -> Any:
    """Run `f` checkified through a jit: Arrays are its arguments, every
    other leaf is closed over (cached by value when hashable)."""
    from ..api import JitFunction
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    dynamic = [isinstance(leaf, Array) for leaf in leaves]
    try:
        key = (tree, tuple(None if d else _static_key(leaf) for leaf, d in zip(leaves, dynamic)))
        hash(key)
    except TypeError:
        key = None
    jitted = cache.get(key) if key is not None else None
    if jitted is None:
        def run(*arrays: Any) -> tuple[Error, Any]:
            given = iter(arrays)
            a, k = tree_util.tree_unflatten(tree, [next(given) if d else leaf for leaf, d in zip(leaves, dynamic)])
            return _checkify_traced(f, enabled, a, k)
        run.__name__ = f"checkify_{getattr(f, '__name__', 'fun')}"
        jitted = JitFunction(run, compile_always=True)
        if key is not None:
            cache[key] = jitted
    return jitted(*[leaf for leaf, d in zip(leaves, dynamic) if d])


def _static_key(x: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic)):
        return ("ndarray", x.dtype.str, x.shape, np.ascontiguousarray(x).tobytes())
    return (type(x), x)


# ---------------------------------------------------------------------------
# Control flow: the error through branches and loop bodies
# ---------------------------------------------------------------------------

class _NewSlots(BaseException):
    """Raised out of a branch or loop body being traced when it recorded
    errors in slots its control-flow call does not pass in, to trace the
    call again with them (a BaseException: user code must not catch it)."""

    def __init__(self, owner: object, slots: set) -> None:
        super().__init__()
        self.owner = owner
        self.slots = slots


def _take_over(name: str, *args: Any, **kwargs: Any) -> Any:
    """`functionalize_hook`: thread the error of the current scope's checker
    through a control-flow call; NotImplemented leaves the call to lax."""
    checker, own = _checker_of(core.current_scope())
    if checker is None or not own or checker.busy:
        return NotImplemented
    return _CONTROL_FLOW[name](checker, *args, **kwargs)


class _handing_over:
    """While lax traces a control-flow call the checker made, the hook lets
    that call through."""

    def __init__(self, checker: _Checker) -> None:
        self.checker = checker

    def __enter__(self) -> None:
        self.checker.busy += 1

    def __exit__(self, *exc: Any) -> None:
        self.checker.busy -= 1


def _until_stable(checker: _Checker, plain: Callable[[object], Any], threaded: Callable[[set, object], Any]) -> Any:
    """Trace a control-flow call: first as `plain(owner)`, with bodies that
    must record no error; while a body records errors in slots not passed
    in, again as `threaded(slots, owner)` with the error threaded through
    those slots. Only the last trace's ops are used."""
    owner = object()
    slots: set = set()
    while True:
        saved = checker.error
        try:
            return threaded(slots, owner) if slots else plain(owner)
        except _NewSlots as new:
            if new.owner is not owner:
                raise
            checker.error = saved
            slots = slots | new.slots


def _unthreaded(checker: _Checker, fun: Callable, owner: object) -> Callable:
    """`fun` under a checker of its own region that must record nothing."""
    def plain(*args: Any) -> Any:
        with _Checker(_traced_scope(), checker.enabled, init_error) as inner:
            out = fun(*args)
        if inner.error._pred:
            raise _NewSlots(owner, set(inner.error._pred))
        return out
    return plain


def _threaded(checker: _Checker, call: Callable[[Callable, list], tuple[list, Any]], slots: set,
              owner: object) -> Any:
    """``call(wrap, start)`` with `start` the leaves of the checker's error
    with `slots` added; `wrap(fun)` makes ``fun()`` a function of the error
    leaves that returns (new error leaves, its result). `call` returns
    (final error leaves, result): the checker takes that error, and the
    result is returned."""
    start = _with_slots(checker.error, slots)
    start_leaves, start_tree = tree_util.tree_flatten(start)
    metadata = dict(start._metadata)

    def wrap(fun: Callable[[], Any]) -> Callable[[list], tuple[list, Any]]:
        def with_error(error_leaves: list) -> tuple[list, Any]:
            with _Checker(_traced_scope(), checker.enabled,
                          tree_util.tree_unflatten(start_tree, error_leaves)) as inner:
                out = fun()
            extra = set(inner.error._pred) - set(start._pred)
            if extra:
                raise _NewSlots(owner, extra)
            metadata.update(inner.error._metadata)
            return tree_util.tree_leaves(inner.error), out
        return with_error

    with _handing_over(checker):
        leaves, result = call(wrap, start_leaves)
    error = tree_util.tree_unflatten(start_tree, leaves)
    checker.error = Error(error._pred, error._code, metadata, error._payload)
    return result


def _cond(checker: _Checker, pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    return _branches(checker, [true_fun, false_fun], operands,
                     lambda funs, *ops: _control_flow.cond(pred, funs[0], funs[1], *ops))


def _switch(checker: _Checker, index: Any, branches: Any, *operands: Any) -> Any:
    if len(branches) < 2:
        return NotImplemented  # lax.switch calls its one branch here
    return _branches(checker, list(branches), operands,
                     lambda funs, *ops: _control_flow.switch(index, funs, *ops))


def _branches(checker: _Checker, funs: list[Callable], operands: tuple, call: Callable) -> Any:
    """As JAX: every branch takes and returns the error with the slots of all branches."""
    def plain(owner: object) -> Any:
        with _handing_over(checker):
            return call([_unthreaded(checker, f, owner) for f in funs], *operands)

    def threaded(slots: set, owner: object) -> Any:
        def run(wrap: Callable, start: list) -> tuple[list, Any]:
            return call([lambda e, ops, f=f: wrap(lambda: f(*ops))(e) for f in funs], start, list(operands))
        return _threaded(checker, run, slots, owner)
    return _until_stable(checker, plain, threaded)


def _while_loop(checker: _Checker, cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """As JAX: the errors of cond_fun count at the first test (recorded
    before the loop) and at each later one (recorded by the body after its
    step); the loop's own test drops them."""
    tested = [False]  # whether cond_fun records errors

    def test(val: Callable[[Any], Any], owner: object) -> Callable:
        def run(carry: Any) -> Any:
            with _Checker(_traced_scope(), checker.enabled, init_error) as inner:
                out = cond_fun(val(carry))
            if inner.error._pred and not tested[0]:
                tested[0] = True
                raise _NewSlots(owner, set(inner.error._pred))
            return out
        return run

    def plain(owner: object) -> Any:
        with _handing_over(checker):
            return _control_flow.while_loop(test(lambda c: c, owner), _unthreaded(checker, body_fun, owner),
                                            init_val)

    def threaded(slots: set, owner: object) -> Any:
        test_codes: list = []  # cond_fun's checks keep their codes in both copies
        if tested[0]:
            with _codes_of(test_codes):
                cond_fun(init_val)  # the first test's errors, here

        def step(val: Any) -> Any:
            new = body_fun(val)
            if tested[0]:
                with _codes_of(test_codes):
                    cond_fun(new)  # the next test's errors
            return new

        def run(wrap: Callable, start: list) -> tuple[list, Any]:
            return _control_flow.while_loop(test(lambda c: c[1], owner),
                                            lambda c: wrap(lambda: step(c[1]))(c[0]), (start, init_val))
        return _threaded(checker, run, slots, owner)
    return _until_stable(checker, plain, threaded)


def _scan(checker: _Checker, f: Callable, init: Any, xs: Any = None, length: Any = None, reverse: bool = False,
          unroll: Any = 1) -> Any:
    def plain(owner: object) -> Any:
        with _handing_over(checker):
            return _control_flow.scan(_unthreaded(checker, f, owner), init, xs, length, reverse, unroll)

    def threaded(slots: set, owner: object) -> Any:
        def run(wrap: Callable, start: list) -> tuple[list, Any]:
            def step(carry: tuple, x: Any) -> Any:
                leaves, out = wrap(lambda: f(carry[1], x))(carry[0])
                if not isinstance(out, (tuple, list)) or len(out) != 2:
                    return out  # lax.scan reports it
                return (leaves, out[0]), out[1]
            (leaves, final), ys = _control_flow.scan(step, (start, init), xs, length, reverse, unroll)
            return leaves, (final, ys)
        return _threaded(checker, run, slots, owner)
    return _until_stable(checker, plain, threaded)


_CONTROL_FLOW: dict[str, Callable[..., Any]] = {"cond": _cond, "switch": _switch, "while_loop": _while_loop,
                                                 "scan": _scan}


# ---------------------------------------------------------------------------
# Automatic checks (core.bind_hook)
# ---------------------------------------------------------------------------

# jaxc primitive -> JAX's name for it where JAX's checkify looks for NaNs in its results.
_NAN_PRIMITIVES = {name: name for name in (
    "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "conv_general_dilated", "cos",
    "cosh", "digamma", "div", "dot_general", "erf", "erf_inv", "exp", "expm1", "lgamma", "log", "log1p",
    "logistic", "mul", "pad", "pow", "psum", "rem", "rsqrt", "sin", "sinh", "sqrt", "sub", "tan", "tanh")}
_REDUCE_NAMES = {"sum": "reduce_sum", "prod": "reduce_prod"}
_CUMULATIVE_NAMES = {"sum": "cumsum", "prod": "cumprod", "max": "cummax", "min": "cummin"}
_SCATTER_NAMES = {"set": "scatter", "add": "scatter-add", "mul": "scatter-mul", "min": "scatter-min",
                  "max": "scatter-max"}
_INDEXING = ("gather", "scatter", "dynamic_slice", "dynamic_update_slice")


def _jax_name(prim: core.Primitive, params: dict) -> str | None:
    if prim.name == "reduce":
        return _REDUCE_NAMES.get(params["kind"])
    if prim.name == "cumulative":
        return _CUMULATIVE_NAMES[params["kind"]]
    if prim.name == "scatter":
        return _SCATTER_NAMES[params["kind"]]
    return _NAN_PRIMITIVES.get(prim.name)


def _after_bind(prim: core.Primitive, operands: tuple, params: dict, results: list) -> None:
    """`core.bind_hook`: add the enabled automatic checks of `prim` to the
    checker of the current scope."""
    if getattr(_STATE, "quiet", 0) or not _stack():
        return
    checker, own = _checker_of(core.current_scope())
    if checker is None:
        return
    enabled = checker.enabled
    divides = prim.name == "div" and DivisionByZeroError in enabled
    indexes = prim.name in _INDEXING and OOBError in enabled
    # As in JAX, a scatter's results are checked for NaNs only along with its indices.
    nan_name = _jax_name(prim, params) if NaNError in enabled else None
    if prim.name == "scatter" and OOBError not in enabled:
        nan_name = None
    if not (divides or indexes or nan_name):
        return
    if not own:
        raise _unsupported(f"the automatic check of {prim.name}")
    where = core.where()
    with _quiet():
        if divides:
            failed = jnp.any(jnp.equal(operands[1], 0))
            _add(checker, DivisionByZeroError(where), failed)
        if indexes:
            oob = _OUT_OF_BOUNDS[prim.name](operands, params)
            if oob is not None:
                failed, payload = oob
                _add(checker, OOBError(where, _jax_name(prim, params) or prim.name, tuple(operands[0].shape),
                                       payload), failed)
        if nan_name:
            floats = [x for x in results if dtypes.is_inexact(x.dtype)]
            if floats:
                failed = floats[0] if len(floats) == 1 else None
                failed = jnp.any(jnp.stack([jnp.any(jnp.isnan(x)) for x in floats])) if failed is None \
                    else jnp.any(jnp.isnan(failed))
                _add(checker, NaNError(where, nan_name), failed)


def _add(checker: _Checker, exception: JaxException, failed: Any) -> None:
    checker.error = _merge(checker.error, _new_error(exception, failed, _automatic_codes), checker.enabled)


def _index_vectors(indices: Any, index_vector_dim: int) -> Any:
    """Gather/scatter indices with the index vector as the last dimension."""
    if index_vector_dim == indices.ndim:
        return jnp.expand_dims(indices, -1)
    return jnp.moveaxis(indices, index_vector_dim, -1)


def _oob_payload(oob: Any, indices: Any, dims_map: Any, operand_shape: tuple[int, ...]) -> Any:
    """int32[3]: the first out-of-bounds index (row-major over `indices`,
    whose last dimension indexes `dims_map`), its operand axis and that
    axis's size."""
    first = jnp.argmax(jnp.reshape(oob, (-1,)).astype(np.int32))
    axis = jnp.asarray(np.asarray(dims_map, np.int32))[first % indices.shape[-1]]
    size = jnp.asarray(np.asarray(operand_shape, np.int32))[axis]
    index = jnp.reshape(indices, (-1,))[first].astype(np.int32)
    return jnp.stack([index, axis, size])


def _starts_oob(operand: Any, starts: tuple, sizes: tuple[int, ...]) -> tuple[Any, Any] | None:
    if not starts:
        return None
    idx = jnp.stack([jnp.asarray(i) for i in starts])
    limit = np.asarray(operand.shape, np.int64) - np.asarray(sizes, np.int64)
    oob = (idx < 0) | (idx > limit.astype(idx.dtype))
    return jnp.any(oob), _oob_payload(oob, idx, range(operand.ndim), operand.shape)


def _dynamic_slice_oob(operands: tuple, params: dict) -> tuple[Any, Any] | None:
    return _starts_oob(operands[0], operands[1:], params["slice_sizes"])


def _dynamic_update_slice_oob(operands: tuple, params: dict) -> tuple[Any, Any] | None:
    return _starts_oob(operands[0], operands[2:], operands[1].shape)


def _window_oob(operand: Any, indices: Any, dims_map: tuple[int, ...], window: list[int],
                index_vector_dim: int) -> tuple[Any, Any] | None:
    idx = _index_vectors(indices, index_vector_dim)
    if idx.size == 0:
        return None
    limit = np.asarray([operand.shape[d] - window[d] for d in dims_map], np.int64)
    limit = np.minimum(limit, np.iinfo(idx.dtype).max).astype(idx.dtype)
    oob = (idx < 0) | (idx > limit)
    return jnp.any(oob), _oob_payload(oob, idx, dims_map, operand.shape)


def _gather_oob(operands: tuple, params: dict) -> tuple[Any, Any] | None:
    operand, indices = operands
    return _window_oob(operand, indices, params["start_map"], list(params["slice_sizes"]),
                       params["index_vector_dim"])


def _scatter_oob(operands: tuple, params: dict) -> tuple[Any, Any] | None:
    operand, indices, updates = operands
    window_dims = iter(params["update_window_dims"])
    window = [1 if d in params["inserted"] else updates.shape[next(window_dims)] for d in range(operand.ndim)]
    return _window_oob(operand, indices, params["dims_map"], window, params["index_vector_dim"])


_OUT_OF_BOUNDS = {"gather": _gather_oob, "scatter": _scatter_oob, "dynamic_slice": _dynamic_slice_oob,
                  "dynamic_update_slice": _dynamic_update_slice_oob}
