"""`jnp.ufunc` and `jnp.frompyfunc`: NumPy's ufunc objects, as JAX has them.

    jnp.add.reduce(x, axis=1)              # jnp.sum
    jnp.maximum.accumulate(x)              # running maximum
    jnp.add.at(x, idx, 1, inplace=False)   # x.at[idx].add(1)
    jnp.frompyfunc(lambda a, b: a * b + 1, nin=2, nout=1).outer(x, y)

A ufunc wraps an elementwise function of `nin` arguments and `nout`
results. Calls broadcast (`vectorize`); `outer` maps over all pairs; binary
ufuncs with one result also `reduce`, `accumulate`, `reduceat` along an
axis and apply themselves `at` indices. Each method has a generic form built
on lax control flow (a `fori_loop` or `scan` over the axis, as JAX's
``_reduce_via_scan`` and friends); a ufunc may bring a faster one: the
built-in ufuncs at the end (`_BINARY`) use `jnp.sum`, `cumsum`,
``x.at[i].add`` and so on. As in JAX the methods are jit-compiled with the
ufunc static (ufuncs are immutable and hashable), ``out=`` is
NotImplemented and `at` requires ``inplace=False``.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import numpy as np

from .. import api, dtypes, lax
from . import _elementwise as _ew, _reductions as _red, _shape
from ._util import asarray, broadcast_shapes, broadcast_to, canonicalize_axes, canonicalize_axis, check_arraylike

_AT_INPLACE = ("Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like np.ufunc.at(). "
               "Instead, you can pass inplace=False and capture the result; e.g.\n"
               ">>> arr = jnp.add.at(arr, ind, val, inplace=False)")


def _vmap(fn: Callable, in_axes: Any) -> Callable:
    from .._batching import vmap  # imported late: jaxc.numpy loads before the transformations
    return vmap(fn, in_axes=in_axes)


def _one(x: Any) -> Any:
    """A 0-d one of x's dtype and weak type (to find a ufunc's result dtype)."""
    return lax.full_like(asarray(x), 1, shape=())


def _index_tuple(indices: Any) -> tuple:
    """JAX's rule for `at` indices: a tuple, or one index; lists are a TypeError."""
    if isinstance(indices, tuple):
        return indices
    if isinstance(indices, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; use "
                        "`arr[array(seq)]` instead of `arr[seq]`.")
    return (indices,)


class ufunc:
    """Universal functions which operate element by element on arrays
    (JAX's `jax.numpy.ufunc`). Most ufuncs are the built-in ones
    (`jnp.add`, ...); make others with `jnp.frompyfunc`.

    `func` takes `nin` arrays and returns `nout`; `identity` is the value
    that empty reductions give. `call`, `reduce`, `accumulate`, `at` and
    `reduceat` replace the generic implementations of those methods (they
    are called with the method's arguments, keywords as in the method).
    """

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity: Any = None, call: Callable[..., Any] | None = None,
                 reduce: Callable[..., Any] | None = None, accumulate: Callable[..., Any] | None = None,
                 at: Callable[..., Any] | None = None, reduceat: Callable[..., Any] | None = None) -> None:
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # Read-only (properties below): a ufunc is a static argument of its jitted methods.
        self.__props = {"func": func, "nin": operator.index(nin), "nout": operator.index(nout),
                        "nargs": operator.index(nargs or nin), "identity": identity, "call": call,
                        "reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat}

    _func = property(lambda self: self.__props["func"])
    nin = property(lambda self: self.__props["nin"])
    nout = property(lambda self: self.__props["nout"])
    nargs = property(lambda self: self.__props["nargs"])
    identity = property(lambda self: self.__props["identity"])

    def _key(self) -> tuple:
        # call, reduce, ... are implementation details, not part of the identity (as JAX).
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        for x in args:
            check_arraylike(self.__name__, x)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self.__props["call"]
        if call is not None:
            return call(*args)
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__} expected {self.nin} arguments, got {len(args)}")
        return self._call_vectorized(*args)

    def _call_vectorized(self, *args: Any) -> Any:
        from ._functional import vectorize
        return vectorize(self._func)(*args)

    _call_vectorized = api.jit(_call_vectorized, static_argnums=0)

    def _binary_only(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, *xs: Any) -> np.dtype:
        from .._api_more import eval_shape
        return np.dtype(eval_shape(self._func, *map(_one, xs)).dtype)

    # -- reduce -----------------------------------------------------------------

    def reduce(self, a: Any, axis: Any = 0, dtype: Any = None, out: None = None, keepdims: bool = False,
               initial: Any = None, where: Any = None) -> Any:
        """Reduce `a` along `axis` (an int, None for all axes; the built-in
        ufuncs also take tuples) by applying the ufunc cumulatively:
        ``jnp.add.reduce`` is `jnp.sum`, ``jnp.logical_and.reduce`` is
        `jnp.all`. `initial` starts the reduction (default: the identity);
        `where` (bool, broadcast to a's shape) selects the elements, and
        needs an identity or `initial`. `out` is not supported."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary_only("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                                 "where mask one has to specify 'initial'.")
            where = asarray(where)
            if where.dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={where.dtype}")
        reduce = self.__props["reduce"] or self._reduce_via_scan
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    reduce = api.jit(reduce, static_argnames=("self", "axis", "dtype", "out", "keepdims"))

    def _reduce_via_scan(self, a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
                         initial: Any = None, where: Any = None) -> Any:
        a = asarray(a)
        name = f"{self.__name__}.reduce"
        initial = self.identity if initial is None else initial
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.canonicalize(dtype)
        if where is not None:
            where = broadcast_to(asarray(where), a.shape, name)
        if isinstance(axis, tuple):
            canonicalize_axes(axis, a.ndim, name)
            raise NotImplementedError("tuple of axes")
        if axis is None:  # the flattened array
            shape = (1,) * a.ndim if keepdims else ()
            a = _shape.ravel(a)
            where = None if where is None else _shape.ravel(where)
        else:  # `axis` moved to the front
            axis = canonicalize_axis(axis, a.ndim, name)
            shape = (*a.shape[:axis], *((1,) if keepdims else ()), *a.shape[axis + 1:])
            a = _shape.moveaxis(a, axis, 0)
            where = None if where is None else _shape.moveaxis(where, axis, 0)
        if a.shape[0] == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return broadcast_to(lax.convert_element_type(asarray(initial), dtype), shape, name)

        def step(i: Any, acc: Any) -> Any:
            new = self(acc, lax.convert_element_type(lax.dynamic_index_in_dim(a, i, 0, False), dtype))
            return new if where is None else _ew.where(lax.dynamic_index_in_dim(where, i, 0, False), new, acc)

        start, acc = (1, a[0]) if initial is None else (0, initial)
        acc = broadcast_to(lax.convert_element_type(asarray(acc), dtype), a.shape[1:], name)
        return _shape.reshape(lax.fori_loop(start, a.shape[0], step, acc), shape)

    # -- accumulate -------------------------------------------------------------

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running reduction along `axis`: ``jnp.add.accumulate`` is
        `jnp.cumsum`, ``jnp.maximum.accumulate`` a running maximum. `out`
        is not supported."""
        self._binary_only("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self.__props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    accumulate = api.jit(accumulate, static_argnames=("self", "axis", "dtype"))

    def _accumulate_via_scan(self, a: Any, axis: int = 0, dtype: Any = None) -> Any:
        name = f"{self.__name__}.accumulate"
        check_arraylike(name, a)
        a = asarray(a)
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.canonicalize(dtype)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, a.ndim, name)
        if a.size == 0:
            return lax.full(a.shape, 0, dtype)
        a = lax.convert_element_type(_shape.moveaxis(a, axis, 0), dtype)

        def step(acc: Any, x: Any) -> tuple[Any, Any]:
            acc = self(acc, x)
            return acc, acc

        _, rest = lax.scan(step, a[0], a[1:])
        return _shape.moveaxis(_shape.concatenate([a[:1], rest]), 0, axis)

    # -- at ---------------------------------------------------------------------

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """`a` with the ufunc applied at `indices`: ``a[i] = ufunc(a[i], b)``
        (``ufunc(a[i])`` for unary ufuncs), repeated indices applying
        repeatedly, as NumPy's unbuffered ``ufunc.at``. JAX arrays are
        immutable: pass ``inplace=False`` and use the result."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        at = self.__props["at"] or self._at_via_scan
        return at(a, indices) if b is None else at(a, indices, b)

    at = api.jit(at, static_argnums=0, static_argnames="inplace")

    def _at_via_scan(self, a: Any, indices: Any, *args: Any) -> Any:
        for x in (a, *args):
            check_arraylike(f"{self.__name__}.at", x)
        dtype = self._result_dtype(a, *args)
        a = lax.convert_element_type(asarray(a), dtype)
        args = tuple(lax.convert_element_type(asarray(x), dtype) for x in args)
        indices = _index_tuple(indices)
        if not indices:
            return a
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = broadcast_shapes(f"{self.__name__}.at", *shapes) if shapes else ()
        if not shape:  # one position: no repeats to apply in turn
            return a.at[indices].set(self(a.at[indices].get(), *args))
        count = math.prod(shape)
        if args:
            b = args[0]
            args = (_shape.reshape(broadcast_to(b, (*shape, *b.shape[len(shape):])), (count, *b.shape[len(shape):])),)
        indices = tuple(i if isinstance(i, slice) else _shape.ravel(broadcast_to(asarray(i), shape)) for i in indices)

        def step(a: Any, k: Any) -> tuple[Any, None]:
            index = tuple(i if isinstance(i, slice) else i[k] for i in indices)
            return a.at[index].set(self(a.at[index].get(), *(x[k] for x in args))), None

        return lax.scan(step, a, lax.iota(dtypes.default_int(), count))[0]

    # -- reduceat ---------------------------------------------------------------

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """Reductions over the slices ``indices[i]:indices[i+1]`` along
        `axis` (the last one to the end; where ``indices[i] >=
        indices[i+1]`` the result is ``a[indices[i]]``). `indices` is a 1-d
        integer array. As in JAX, `dtype` is accepted and not used; `out`
        is not supported."""
        self._binary_only("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self.__props["reduceat"] or self._reduceat_via_scan
        return reduceat(a, indices, axis=axis, dtype=dtype)

    reduceat = api.jit(reduceat, static_argnames=("self", "axis", "dtype"))

    def _reduceat_via_scan(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None) -> Any:
        name = f"{self.__name__}.reduceat"
        for x in (a, indices):
            check_arraylike(name, x)
        a, (indices,) = asarray(a), _index_tuple(indices)
        indices = asarray(indices)
        if a.ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
        if indices.ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got indices.shape={indices.shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, a.ndim, name)
        out = _shape.take(a, indices, axis=axis)
        bounds = _shape.concatenate([indices, lax.full((1,), a.shape[axis], indices.dtype)])
        bounds = lax.expand_dims(bounds, [d for d in range(a.ndim) if d != axis])  # along `axis`
        starts = lax.slice_in_dim(bounds, 0, bounds.shape[axis] - 1, axis=axis)
        ends = lax.slice_in_dim(bounds, 1, bounds.shape[axis], axis=axis)

        def step(i: Any, out: Any) -> Any:
            inside = lax.bitwise_and(lax.gt(i, starts), lax.lt(i, ends))
            return _ew.where(inside, self(out, lax.dynamic_slice_in_dim(a, i, 1, axis)), out)

        return lax.fori_loop(0, a.shape[axis], step, out)

    # -- outer ------------------------------------------------------------------

    def outer(self, A: Any, B: Any, /) -> Any:
        """The ufunc of every pair ``(A[i...], B[j...])``, of shape
        ``(*A.shape, *B.shape)``."""
        self._binary_only("outer")
        for x in (A, B):
            check_arraylike(f"{self.__name__}.outer", x)
        A, B = asarray(A), asarray(B)
        flat = _vmap(_vmap(self, (None, 0)), (0, None))(lax.reshape(A, (A.size,)), lax.reshape(B, (B.size,)))
        return lax.reshape(flat, (*A.shape, *B.shape))

    outer = api.jit(outer, static_argnums=0)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A `ufunc` from a function of `nin` scalars returning `nout` values
    (traceable by jaxc); calls are vectorized with `jnp.vectorize`."""
    return ufunc(func, nin, nout, identity=identity)


# ---------------------------------------------------------------------------
# The built-in ufuncs: _elementwise's functions with JAX's fast paths
# ---------------------------------------------------------------------------

def _monoid_reduce(kind: str) -> Callable[..., Any]:
    """`reduce` by `_reductions._reduce`'s monoid `kind` (a lax reduction)."""
    def reduce(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False, initial: Any = None,
               where: Any = None) -> Any:
        return _red._reduce(kind, kind, a, axis, dtype, None, keepdims, initial, where)
    return reduce


def _logsumexp(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False, initial: Any = None,
               where: Any = None) -> Any:
    """``log(sum(exp(a)))`` without overflow: `logaddexp.reduce`. As in
    JAX, `dtype` is checked but not used (the result is a's inexact dtype)."""
    if dtype is not None:
        dtypes.canonicalize(dtype)
    (a,) = _ew._promote_inexact("logaddexp.reduce", a)
    axes = canonicalize_axes(axis, a.ndim, "logaddexp.reduce")
    top = _red.max(_ew.real(a), axes, keepdims=keepdims, where=where, initial=-np.inf)
    top = lax.stop_gradient(lax.select(lax.is_finite(top), top, lax.full_like(top, 0)))
    shift = lax.convert_element_type(top if keepdims else lax.expand_dims(top, axes), a.dtype)
    total = _red.sum(lax.exp(lax.sub(a, broadcast_to(shift, a.shape))), axes, keepdims=keepdims, where=where)
    result = lax.add(lax.log(total), lax.convert_element_type(top, total.dtype))
    return result if initial is None else _ew.logaddexp(initial, result)


def _logsumexp2(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False, initial: Any = None,
                where: Any = None) -> Any:
    """``log2(sum(2 ** a))``: `logaddexp2.reduce`, by `_logsumexp`."""
    ln2 = float(np.log(2))
    initial = None if initial is None else _ew.multiply(initial, ln2)
    scaled = _ew.multiply(asarray(a, fn="logaddexp2.reduce"), ln2)
    return _ew.true_divide(_logsumexp(scaled, axis, dtype, keepdims, initial, where), ln2)


def _scatter_at(method: str) -> Callable[[Any, Any, Any], Any]:
    """`at` by ``a.at[indices].<method>(b)``; bools go through int32 (as JAX)."""
    def at(a: Any, indices: Any, b: Any) -> Any:
        a = asarray(a)
        if a.dtype == np.bool_:
            b = lax.convert_element_type(lax.convert_element_type(asarray(b), np.bool_), dtypes.int32)
            a = lax.convert_element_type(a, dtypes.int32)
            return lax.convert_element_type(getattr(a.at[indices], method)(b), np.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _subtract_at(a: Any, indices: Any, b: Any) -> Any:
    """``a.at[indices].add(-b)``, b in a's dtype (modular for unsigned ints)."""
    a = asarray(a)
    return a.at[indices].add(_ew.negative(lax.convert_element_type(asarray(b), a.dtype)))


# name: (identity, reduce, accumulate, at); None: the generic method.
_BINARY = {
    "add": (0, _red.sum, _red.cumsum, _scatter_at("add")),
    "multiply": (1, _red.prod, _red.cumprod, _scatter_at("multiply")),
    "subtract": (None, None, None, _subtract_at),
    "maximum": (None, _monoid_reduce("max"), None, None),
    "minimum": (None, _monoid_reduce("min"), None, None),
    "bitwise_and": (-1, _monoid_reduce("bitwise_and"), None, None),
    "bitwise_or": (0, _monoid_reduce("bitwise_or"), None, None),
    "bitwise_xor": (0, _monoid_reduce("bitwise_xor"), None, None),
    "logical_and": (True, _monoid_reduce("all"), None, None),
    "logical_or": (False, _monoid_reduce("any"), None, None),
    "logical_xor": (False, _monoid_reduce("logical_xor"), None, None),
    "logaddexp": (-np.inf, _logsumexp, None, None),
    "logaddexp2": (-np.inf, _logsumexp2, None, None),
}

for _name, (_identity, _reduce, _accumulate, _at) in _BINARY.items():
    _fn = getattr(_ew, _name)
    globals()[_name] = ufunc(_fn, 2, 1, call=_fn, identity=_identity, reduce=_reduce, accumulate=_accumulate,
                             at=_at)
negative = ufunc(_ew.negative, 1, 1, call=_ew.negative)

__all__ = ["ufunc", "frompyfunc", "negative", *_BINARY]

del _name, _identity, _reduce, _accumulate, _at, _fn
