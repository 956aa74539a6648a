"""The operators and methods of `jaxc.Array` and of tracers.

Both classes derive from `core.ArrayBase`; this module attaches the Python
operators (each with its reflected form) and the NumPy-style methods, each
a thin call into `jaxc.numpy`, so eager arrays and traced values behave the
same. The package `jaxc` attaches them (core does not import upward).

Inside a compiler pass's rules (`core.emitting`) operators are not jnp's:
they map straight to lax (`RULE_OPERATORS`: `1 - y` is `lax.sub(1, y)`, the
Python scalar taking y's dtype, no weak-type promotion), so the IR a pass
emits never depends on jnp's promotion rules and running a pass imports no
`jaxc.numpy` module; jnp's methods there are an error naming the lax
function to use::

    with emitting(block, loc) as e:
        y = e.wrap(value)
        partial = 1 - y * y        # jaxc.mul, jaxc.sub on y's dtype
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

import numpy as np

from .core import ArrayBase, Tracer, in_rules


def _forward(name: str) -> Callable:
    def op(self: Any, other: Any) -> Any:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        if in_rules():
            return _rule_operator(name)(self, other)
        return getattr(_jnp(), name)(self, other)
    return op


def _reflected(name: str) -> Callable:
    def op(self: Any, other: Any) -> Any:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        if in_rules():
            return _rule_operator(name)(other, self)
        return getattr(_jnp(), name)(other, self)
    return op


_OPERAND_TYPES = (ArrayBase, int, float, complex, bool, np.ndarray, np.generic, list, tuple)


def _jnp():
    module = sys.modules.get("jaxc.numpy")
    return module if module is not None else importlib.import_module("jaxc.numpy")


def _unary(name: str) -> Callable:
    def op(self: Any) -> Any:
        if in_rules():
            return _rule_operator(name)(self)
        return getattr(_jnp(), name)(self)
    return op


def _method(name: str) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if in_rules():
            _refuse_in_rules(f"x.{name}()")
        return getattr(_jnp(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


# --- inside pass rules: lax, not jnp ------------------------------------------------------

# jnp's name of an operator -> the lax function it is inside a pass's rules
RULE_OPERATORS = {
    "add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "div", "power": "pow",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
    "greater_equal": "ge", "negative": "neg", "abs": "abs", "invert": "bitwise_not",
}


def _rule_operator(name: str) -> Callable:
    from .lax import _ops as lax
    if name == "positive":
        return lambda x: x
    if name == "power":
        return lambda x, y: lax.integer_pow(x, y) if isinstance(y, int) else lax.pow(x, y)
    if name not in RULE_OPERATORS:
        _refuse_in_rules(f"the operator jnp.{name}")
    return getattr(lax, RULE_OPERATORS[name])


def _refuse_in_rules(what: str) -> None:
    raise TypeError(f"{what} on a traced value inside a compiler pass's rule: rules build IR with jaxc.lax "
                    "(explicit dtypes), never with jnp's promotion")


BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "mod", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
}
COMPARISON_OPERATORS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                        "gt": "greater", "ge": "greater_equal"}
UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "invert"}
METHODS = ["sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin",
           "all", "any", "cumsum", "cumprod", "ravel", "flatten", "swapaxes", "squeeze",
           "clip", "round", "dot", "sort", "argsort", "take", "repeat", "nonzero", "conj", "conjugate",
           "trace", "diagonal", "ptp", "searchsorted", "argpartition", "choose", "copy"]
_METHOD_TARGET = {"flatten": "ravel"}


def attach() -> None:
    for dunder, name in BINARY_OPERATORS.items():
        setattr(ArrayBase, f"__{dunder}__", _forward(name))
        setattr(ArrayBase, f"__r{dunder}__", _reflected(name))
    for dunder, name in COMPARISON_OPERATORS.items():
        setattr(ArrayBase, f"__{dunder}__", _forward(name))
    for dunder, name in UNARY_OPERATORS.items():
        setattr(ArrayBase, f"__{dunder}__", _unary(name))
    for name in METHODS:
        setattr(ArrayBase, name, _method(_METHOD_TARGET.get(name, name)))
    # setattr: ArrayBase declares none of these (mypy sees the class as core defines it)
    attributes = {
        "reshape": _front_end_only(_reshape, "x.reshape()"),
        "transpose": _front_end_only(_transpose, "x.transpose()"),
        "astype": _front_end_only(_astype, "x.astype()"),
        "T": property(lambda self: _method("transpose")(self)),
        "mT": property(lambda self: _method("matrix_transpose")(self)),
        "real": property(_front_end_only(lambda self: _jnp().real(self), "x.real")),
        "imag": property(_front_end_only(lambda self: _jnp().imag(self), "x.imag")),
        "__getitem__": _front_end_only(lambda self, index: _indexing().getitem(self, index), "x[index]"),
        "at": property(_front_end_only(lambda self: _indexing().AtIndexer(self), "x.at")),
        "__setitem__": _no_setitem,
        "__round__": _round,
        "compress": _front_end_only(_compress, "x.compress()"),
        "view": _front_end_only(_view, "x.view()"),
        "tobytes": _tobytes,
        "to_device": _to_device,
        "__array_namespace__": _array_namespace,
    }
    for name, value in attributes.items():
        setattr(ArrayBase, name, value)
    setattr(Tracer, "__iter__", _tracer_rows)


def _front_end_only(fn: Callable, what: str) -> Callable:
    """`fn`, refused inside a pass's rules (`_refuse_in_rules`)."""
    def method(*args: Any, **kwargs: Any) -> Any:
        if in_rules():
            _refuse_in_rules(what)
        return fn(*args, **kwargs)
    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


def _indexing():
    from .numpy import _indexing as module
    return module


def _reshape(self: Any, *args: Any, order: str = "C") -> Any:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``: jnp.reshape."""
    return _jnp().reshape(self, args[0] if len(args) == 1 else args, order)


def _transpose(self: Any, *args: Any) -> Any:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``: jnp.transpose."""
    return _jnp().transpose(self, args[0] if len(args) == 1 else (args or None))


def _astype(self: Any, dtype: Any, copy: bool = False, device: Any = None) -> Any:
    """jnp.astype (the method also takes copy and device positionally)."""
    return _jnp().astype(self, dtype, copy=copy, device=device)


def _tracer_rows(self: Any) -> Any:
    """Iterating a traced array: its rows (`lax.index_in_dim`)."""
    if not self.aval.shape:
        raise TypeError("iteration over a 0-d array")
    from .lax import _ops as lax
    return iter([lax.index_in_dim(self, i, 0, keepdims=False) for i in range(self.aval.shape[0])])


def _no_setitem(self: Any, index: Any, value: Any) -> None:
    raise TypeError("jaxc arrays are immutable; instead of x[idx] = y use x = x.at[idx].set(y)")


def _round(self: Any, ndigits: int | None = None) -> Any:
    """``round(x)``: the default int dtype, as JAX (``round(x, n)``: jnp.round)."""
    out = _jnp().round(self, ndigits or 0)
    return out if ndigits is not None else out.astype(int)


def _compress(self: Any, condition: Any, axis: int | None = None, *, size: int | None = None,
              fill_value: Any = 0) -> Any:
    """``x.compress(condition, axis)``: jnp.compress(condition, x, axis)."""
    return _jnp().compress(condition, self, axis, size=size, fill_value=fill_value)


def _view(self: Any, dtype: Any = None, type: Any = None) -> Any:
    """The same bits seen as `dtype` (JAX's Array.view): the last axis
    shrinks or grows by the ratio of the item sizes, as in NumPy.

        jnp.array([1.0], jnp.float32).view(jnp.int32)  ->  [1065353216]
    """
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    from . import dtypes
    from .lax import _ops as lax
    new = dtypes.canonicalize(dtype)
    old = self.dtype
    if self.ndim == 0 and new.itemsize != old.itemsize:
        raise ValueError("view() of a 0-d array needs a dtype of the same size")
    if new.itemsize == old.itemsize:
        return lax.bitcast_convert_type(self, new)
    if new.itemsize < old.itemsize:  # each element becomes ratio elements along the last axis
        out = lax.bitcast_convert_type(self, new)
        return lax.reshape(out, (*self.shape[:-1], self.shape[-1] * (old.itemsize // new.itemsize)))
    ratio = new.itemsize // old.itemsize
    if self.shape[-1] % ratio:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the total size in "
                         f"bytes of the last axis of the array: {self.shape[-1]} x {old.itemsize} bytes "
                         f"into {new.itemsize}-byte items")
    grouped = lax.reshape(self, (*self.shape[:-1], self.shape[-1] // ratio, ratio))
    return lax.bitcast_convert_type(grouped, new)


def _tobytes(self: Any, order: str = "C") -> bytes:
    """The array's bytes, as NumPy's tobytes (a traced array has none)."""
    return np.asarray(self).tobytes(order=order)  # type: ignore[arg-type]  # NumPy checks the letter


def _to_device(self: Any, device: Any, *, stream: Any = None) -> Any:
    """The array on `device` (a Device or a Sharding), by `jaxc.device_put`;
    `stream` is not implemented (JAX's NotImplementedError)."""
    if stream is not None:
        raise NotImplementedError("stream argument of array.to_device()")
    return _jnp()._util.place(self, device, "Array.to_device")


def _array_namespace(self: Any, *, api_version: str | None = None) -> Any:
    """The Array API namespace of the array: jaxc.numpy (ValueError for an
    api_version other than jaxc.numpy.__array_api_version__)."""
    return _jnp()._array_api.array_namespace(self, api_version=api_version)
