"""`jaxc.ref`: mutable array references, as JAX's `jax.ref` (`jax.new_ref`).

    r = jaxc.new_ref(jnp.zeros(3))     # Ref([0., 0., 0.], dtype=float32)
    r[1] += 1.0                        # get, add, set: r is [0, 1, 0]
    jaxc.jit(lambda x: r.__setitem__(..., x * 2))(jnp.ones(3))   # r is [2, 2, 2]
    jaxc.freeze(r)                     # its value, an Array

A Ref is a box (`core.Ref`); reading gives an array, writing replaces the
box's value with a new array of the same shape and dtype (exactly: JAX
neither broadcasts nor converts a strongly typed value). Under jit a write
to a Ref made outside the function (an argument or closed over) becomes an
extra result the call writes back; inside `cond`, `switch`, `while_loop`,
`fori_loop` and `scan` an extra result or carry (docs/frontend.md, "Refs").
Refs made and used inside a function are ordinary values of its program,
so `grad` and `vmap` of such a function work; a write from inside grad or
vmap to a Ref made outside is NotImplementedError.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import core
from .core import Ref, ShapedArray

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get", "new_ref", "set", "swap"]

AbstractRef = core.RefAval  # the abstract value of a Ref (shape, dtype, weak type)

_KINDS = (None, "no_grad_no_remat")


def _as_array(x: Any, what: str) -> Any:
    from .numpy import asarray
    if isinstance(x, Ref):
        raise TypeError(f"{what}: got a Ref where an array is expected; read it with ref[...]")
    if isinstance(x, (list, tuple, dict, str)) or x is None:
        raise TypeError(f"Error interpreting argument to {what} as a JAX value. The problematic value is of "
                        f"type {type(x)} and was passed to {what} at position 0.")
    return asarray(x)


def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
    """A Ref holding `init_val` (an array; its shape, dtype and weak type are
    the Ref's). `kind`: None or 'no_grad_no_remat' (accepted: jaxc's autodiff
    never rematerializes a Ref's writes). `memory_space`: None only."""
    if memory_space is not None:
        raise NotImplementedError("new_ref: jaxc has one memory space; memory_space must be None")
    if kind not in _KINDS:
        raise ValueError(f"new_ref: kind must be None or 'no_grad_no_remat', got {kind!r}")
    value = _as_array(init_val, "new_ref")
    return Ref(value, value.aval)


def empty_ref(ty: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
    """A Ref of the shape and dtype of `ty` (a ShapeDtypeStruct or an
    array): its contents are unspecified until written (jaxc: zeros)."""
    from . import lax
    if memory_space is not None:
        raise NotImplementedError("empty_ref: jaxc has one memory space; memory_space must be None")
    if kind not in _KINDS:
        raise ValueError(f"empty_ref: kind must be None or 'no_grad_no_remat', got {kind!r}")
    value = lax.full(tuple(ty.shape), 0, np.dtype(ty.dtype))
    return Ref(value, value.aval)


def _index(idx: Any) -> tuple:
    """`idx` as a tuple; () for the whole Ref (None, ..., ())."""
    if idx is None or idx is Ellipsis:
        return ()
    return idx if isinstance(idx, tuple) else (idx,)


def get(ref: Ref, idx: Any = None) -> Any:
    """The elements of `ref` at the NumPy-style index `idx` (all: None or ...),
    as an array."""
    _check_ref(ref, "get")
    value = ref._read()
    index = _index(idx)
    return value[index] if index else value


def _update(ref: Ref, idx: Any, value: Any, op: str) -> tuple[Any, Any]:
    """(the old elements at idx, the new whole value) for `op` ('swap' or
    'addupdate') with JAX's checks of the value's shape and dtype."""
    from . import lax
    _check_ref(ref, op)
    current = ref._read()
    index = _index(idx)
    old = current[index] if index else current
    value = _as_array(value, op)
    if value.shape != old.shape:
        raise ValueError(f"Invalid shape for `{op}`. Ref shape: {ref.shape}. Expected shape: {old.shape}. "
                         f"Value shape: {value.shape}.")
    if value.dtype != ref.dtype:
        if not value.weak_type:
            raise ValueError(f"Invalid dtype for `{op}`. Ref dtype: {ref.dtype}. Value dtype: {value.dtype}.")
        value = lax.convert_element_type(value, ref.dtype)
    if op == "addupdate":
        new = current.at[index].add(value) if index else current + value
    else:
        new = current.at[index].set(value) if index else value
    if new.weak_type != ref.aval.weak_type:
        new = lax._with_weak(new, ref.aval.weak_type)
    return old, new


def swap(ref: Ref, idx: Any, value: Any, _function_name: str = "ref_swap") -> Any:
    """Write `value` at `idx` and return what was there."""
    old, new = _update(ref, idx, value, "swap")
    ref._write(new)
    return old


def set(ref: Ref, idx: Any, value: Any) -> None:  # noqa: A001 -- JAX's name
    """`ref[idx] = value`."""
    swap(ref, idx, value)


def addupdate(ref: Ref, idx: Any, x: Any) -> None:
    """`ref[idx] += x` in one update."""
    _, new = _update(ref, idx, x, "addupdate")
    ref._write(new)


def freeze(ref: Ref) -> Any:
    """The Ref's final value, as an array."""
    _check_ref(ref, "freeze")
    return ref._read()


def free_ref(ref: Ref) -> tuple:
    """Drop the Ref's value: using it afterwards is an error."""
    _check_ref(ref, "free_ref")
    scope = core.current_scope()
    if scope is not None and not scope.is_ancestor_of(ref._home):
        raise NotImplementedError("free_ref: a Ref made outside the traced function cannot be freed inside it")
    ref._value = None
    return ()


def _check_ref(ref: Any, what: str) -> None:
    if not isinstance(ref, Ref):
        raise TypeError(f"jaxc.ref.{what}: expected a Ref, got {type(ref).__name__}")


def _repr(ref: Ref) -> str:
    held = ref._value
    if held is None:
        return f"Ref(<freed>, {ref.aval.str_short()})"
    if isinstance(held, core.Tracer):
        return f"TracedRef{{{ref.aval.str_short()}}}"
    return "Ref(" + repr(held).split("(", 1)[1]


# The indexing and methods of core.Ref, attached from here (core imports nothing above it).
for _name, _method in {"__getitem__": get, "__setitem__": set, "__repr__": _repr, "get": get,
                       "set": lambda self, value, idx=None: set(self, idx, value),
                       "swap": lambda self, value, idx=None: swap(self, idx, value),
                       "addupdate": lambda self, x, idx=None: addupdate(self, idx, x)}.items():
    setattr(Ref, _name, _method)
del ShapedArray
