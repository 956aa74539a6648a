"""Index tricks of `jaxc.numpy` (issue #17): the ``r_``/``c_`` concatenators,
the ``mgrid``/``ogrid`` grids, ``s_``/``index_exp``, ``ix_``,
``mask_indices`` and a functional ``fill_diagonal``.

    jnp.r_[jnp.array([1, 2]), 0:3, 7]     # concatenate arrays, ranges, scalars
    jnp.mgrid[0:2, 0:1:3j]               # dense grid (a complex step is a count)
    jnp.fill_diagonal(a, 0.0, inplace=False)

Slices in ``r_``, ``c_``, ``mgrid`` and ``ogrid`` are static Python
numbers: an integer range gives the default int, a float bound or step (or
a complex step, the number of points of a closed range) the default float,
as in JAX. ``s_`` and ``index_exp`` are NumPy's own objects (as in JAX).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from . import _creation, _shape
from ._util import asarray, check_arraylike

__all__ = ["r_", "c_", "s_", "index_exp", "mgrid", "ogrid", "ix_", "mask_indices", "fill_diagonal"]

s_ = np.s_
index_exp = np.index_exp


# ---------------------------------------------------------------------------
# Ranges from slices: mgrid, ogrid and the slices of r_/c_
# ---------------------------------------------------------------------------

def _slice_values(item: Any, name: str) -> tuple[Any, Any, Any]:
    """(start, stop, step) of a slice of static numbers (0-d concrete arrays
    are read as numbers; a traced bound is a ConcretizationTypeError)."""
    if not isinstance(item, slice):
        raise TypeError(f"jnp.{name}[...] takes slices such as 0:5 or 0:1:5j, got {item!r}")
    if item.stop is None:
        raise ValueError(f"jnp.{name}[...]: a slice needs a stop value, got {item!r}")
    values: list[Any] = []
    for what, value in (("start", item.start), ("stop", item.stop), ("step", item.step)):
        if isinstance(value, core.Tracer):
            value = core.concrete(value, f"the slice {what} of jnp.{name}[...]")
        if isinstance(value, (ArrayBase, np.ndarray)):
            if value.ndim != 0:
                raise TypeError(f"jnp.{name}[...]: slice bounds must be scalars, got shape {np.shape(value)}")
            value = np.asarray(value).item()
        if value is not None and not isinstance(value, (int, float, complex, np.number)):
            raise TypeError(f"jnp.{name}[...]: slice bounds must be numbers, got {value!r}")
        values.append(value)
    start, stop, step = values
    return 0 if start is None else start, stop, 1 if step is None else step


def _is_float_slice(item: slice, name: str) -> bool:
    start, stop, step = _slice_values(item, name)
    return any(isinstance(v, (float, complex, np.floating, np.complexfloating)) for v in (start, stop, step))


def _range(item: slice, dtype: np.dtype, name: str) -> Any:
    """The 1-d range a slice stands for: arange(start, stop, step), or
    linspace(start, stop, n) (both ends included) for a complex step n*1j."""
    start, stop, step = _slice_values(item, name)
    if isinstance(step, (complex, np.complexfloating)):
        count = int(abs(step))  # type: ignore[call-overload]  # mypy joins float and np.floating to object
        return _creation.linspace(float(np.real(start)), float(np.real(stop)), count, dtype=dtype)
    return _creation.arange(start, stop, step, dtype=dtype)


def _grid_dtype(items: tuple, name: str) -> np.dtype:
    floating = any(_is_float_slice(item, name) for item in items)
    return dtypes.default_float() if floating else dtypes.default_int()


class _Grid:
    """``mgrid[...]``/``ogrid[...]``: the ranges of the slices as a dense
    grid (stacked, ``indexing='ij'``) or as broadcastable open arrays."""

    def __init__(self, sparse: bool, name: str) -> None:
        self.sparse = sparse
        self.name = name

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return _range(key, _grid_dtype((key,), self.name), self.name)
        if not isinstance(key, tuple):
            raise TypeError(f"jnp.{self.name}[...] takes slices such as 0:5 or 0:1:5j, got {key!r}")
        if not key:
            return [] if self.sparse else lax.full((0,), 0, dtypes.default_int())
        dtype = _grid_dtype(key, self.name)
        ranges = [_range(item, dtype, self.name) for item in key]
        if self.sparse:
            n = len(ranges)
            return [lax.reshape(r, tuple(r.shape[0] if d == i else 1 for d in range(n)))
                    for i, r in enumerate(ranges)]
        return _shape.stack(_creation.meshgrid(*ranges, indexing="ij"))

    def __repr__(self) -> str:
        return f"jaxc.numpy.{self.name}"


mgrid = _Grid(sparse=False, name="mgrid")
ogrid = _Grid(sparse=True, name="ogrid")


# ---------------------------------------------------------------------------
# r_ and c_
# ---------------------------------------------------------------------------

def _directive(text: str, axis: int, ndmin: int, trans1d: int) -> tuple[int, int, int, str | None]:
    """Parse a leading string of r_/c_: 'r' or 'c' (a row or a column
    result), or 'axis[,ndmin[,trans1d]]'."""
    if text in ("r", "c"):
        return axis, ndmin, trans1d, text
    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"could not understand directive {text!r} (expected 'r', 'c' or "
                         "'axis[,ndmin[,trans1d]]')") from None
    if not 1 <= len(numbers) <= 3:
        raise ValueError(f"could not understand directive {text!r} (at most three integers)")
    numbers += [ndmin, trans1d][len(numbers) - 1:]
    return numbers[0], numbers[1], numbers[2], None


def _with_ndmin(item: Any, ndmin: int, trans1d: int) -> Any:
    """`item` raised to `ndmin` dimensions: the new axes go first, then
    (for trans1d != -1) the item's own axes move so that they start at
    position `trans1d` of the result (NumPy's r_ rule)."""
    ndim = item.ndim
    if ndim >= ndmin:
        return item
    item = lax.reshape(item, (1,) * (ndmin - ndim) + item.shape)
    if trans1d == -1:
        return item
    start = trans1d + (ndmin - ndim + 1 if trans1d < 0 else 0)
    new = list(range(ndmin - ndim))  # the added axes
    own = list(range(ndmin - ndim, ndmin))
    order = new[:start] + own + new[start:]
    return lax.transpose(item, tuple(order))


class _AxisConcat:
    """``r_[...]``/``c_[...]``: concatenate arrays, scalars and slice ranges
    along `axis`, each item first raised to `ndmin` dimensions."""

    def __init__(self, axis: int, ndmin: int, trans1d: int, name: str) -> None:
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, None
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d, matrix = _directive(items[0], axis, ndmin, trans1d)
            items = items[1:]
        arrays = []
        for item in items:
            if isinstance(item, str):
                raise ValueError(f"jnp.{self.name}[...]: a string directive must be placed at the beginning")
            if isinstance(item, slice):
                item = _range(item, _grid_dtype((item,), self.name), self.name)
            else:
                item = asarray(item, fn=self.name, lists=True)
            arrays.append(_with_ndmin(item, ndmin, trans1d))
        if not arrays:
            raise ValueError(f"jnp.{self.name}[...]: need at least one array to concatenate")
        out = _shape.concatenate(arrays, axis=axis)
        if matrix == "r" and out.ndim == 1:
            out = lax.reshape(out, (1, out.shape[0]))
        elif matrix == "c" and out.ndim == 1:
            out = lax.reshape(out, (out.shape[0], 1))
        return out

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"jaxc.numpy.{self.name}"


r_ = _AxisConcat(axis=0, ndmin=1, trans1d=-1, name="r_")
c_ = _AxisConcat(axis=-1, ndmin=2, trans1d=0, name="c_")


# ---------------------------------------------------------------------------
# ix_, mask_indices, fill_diagonal
# ---------------------------------------------------------------------------

def ix_(*args: Any) -> tuple[Any, ...]:
    """Open-mesh index arrays from 1-d integer sequences: the k-th of n
    results has shape (1, ..., len, ..., 1) with the length at position k,
    so that ``a[jnp.ix_(rows, cols)]`` picks the cross product."""
    arrays = []
    for a in args:
        check_arraylike("ix_", a)
        arrays.append(asarray(a, fn="ix_"))
    out = []
    for k, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"Arguments to jnp.ix_ must be 1-dimensional, got shape {a.shape}")
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jnp.ix_ are not implemented "
                                      "(use jnp.nonzero(mask)[0] first)")
        shape = tuple(a.shape[0] if d == k else 1 for d in range(len(arrays)))
        out.append(lax.reshape(a, shape))
    return tuple(out)


def mask_indices(n: int, mask_func: Callable[..., Any], k: int = 0, *,
                 size: int | None = None) -> tuple[Any, Any]:
    """The (row, column) indices where ``mask_func(ones((n, n)), k)`` is
    nonzero (e.g. ``jnp.triu``: the upper triangle). Under jit pass a static
    `size` (results padded with zeros, or truncated), as for `nonzero`."""
    n = _shape._static_int(n, "n", "mask_indices")
    mask = mask_func(_creation.ones((n, n)), k)
    return _shape.nonzero(mask, size=size)


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """A copy of `a` with its main diagonal (``a[i, i, ..., i]``) set to the
    values of `val` (a scalar, or an array whose flattened values repeat
    along the diagonal), cast to a's dtype. Arrays are immutable: pass
    ``inplace=False``; the default ``inplace=True`` raises, as in JAX."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, so jnp.fill_diagonal cannot work in place: "
                                  "pass inplace=False to get the filled copy")
    if wrap:
        raise NotImplementedError("jnp.fill_diagonal: wrap=True is not implemented, use wrap=False")
    check_arraylike("fill_diagonal", a)
    check_arraylike("fill_diagonal", val)
    a = asarray(a, fn="fill_diagonal")
    val = asarray(val, fn="fill_diagonal")
    if a.ndim < 2:
        raise ValueError(f"jnp.fill_diagonal: array must be at least 2-d, got shape {a.shape}")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError(f"jnp.fill_diagonal: all dimensions of input must be of equal length, got shape "
                         f"{a.shape}")
    n = min(a.shape)
    if n == 0 or val.size == 0:
        return a
    values = lax.convert_element_type(_shape.ravel(val), a.dtype)
    if values.shape[0] != n:
        values = _shape.take(values, np.arange(n) % values.shape[0], mode="clip")
    index = np.arange(n)
    return a.at[(index,) * a.ndim].set(values)
