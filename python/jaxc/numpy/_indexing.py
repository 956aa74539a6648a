"""Indexing: ``x[idx]`` and ``x.at[idx].set/add/mul/min/max/get``.

NumPy's basic and advanced indexing with JAX's semantics:

- ints (negative counts from the end; a static int out of range is
  treated as an index array: it clamps when read, as in JAX), slices with
  any step (clamped to the axis), ``None``, ``...``;
- integer arrays (broadcast together; their dimensions replace the indexed
  ones where the advanced indices are adjacent, else they go first, as in
  NumPy; Python ints count as advanced indices then);
- boolean masks become the integer indices of their True elements, which
  needs a concrete mask (under jit: `NonConcreteBooleanIndexError`);
- traced or Array integer scalars are dynamic indices (negative ones wrap);
- ``jaxc.ds(start, size, stride)`` (`Slice`): a window of static size at a
  start that may be traced, clamped into the axis as `lax.dynamic_slice`
  does (JAX's `jax.ds`), for arrays and Refs alike.

Out-of-range dynamic or array indices clamp when reading (JAX's default;
``x.at[i].get(mode="fill", fill_value=...)`` fills instead) and are dropped
when updating (``mode="clip"`` clamps them). Static basic indexing lowers to
``lax.slice``/``rev``/``reshape`` (ints and unit-step slices to
``dynamic_slice`` eagerly, so ``x[i]`` for different ``i`` shares one
kernel); only array indices use ``gather``/``scatter``.
"""
from __future__ import annotations

import operator
from typing import Any, NamedTuple, Sequence

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from ._util import asarray, broadcast_shapes, broadcast_to

# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class NonConcreteBooleanIndexError(core.ConcretizationTypeError, core.JAXIndexError):
    """A traced boolean array was used as an index (the result's shape
    would depend on its values)."""

    def __init__(self, tracer: Any, fn: str) -> None:
        TypeError.__init__(
            self,
            f"{core.where()}: {fn}: Array boolean indices must be concrete; got the traced value "
            f"{tracer.aval.str_short()}. Under jit the number of True elements (the result's shape) "
            "is unknown. Use jnp.where(mask, x, fill) to keep the shape, or "
            "jnp.nonzero(mask, size=N, fill_value=...) for a fixed number of indices.")


# ---------------------------------------------------------------------------
# Parsed indices: one entry per index element (Ellipsis expanded, bool masks
# turned into integer arrays, missing trailing dimensions as full slices)
# ---------------------------------------------------------------------------

class _NewAxis(NamedTuple):
    """``None``: a new dimension of size 1."""


class _Int(NamedTuple):
    """A static int, normalized into [0, size)."""
    value: int


class _Dynamic(NamedTuple):
    """A 0-d integer Array or tracer (a run-time index)."""
    value: Any


class _Slice(NamedTuple):
    start: int
    step: int
    length: int

    def is_full(self, size: int) -> bool:
        return type(self.start) is int and self.start == 0 and self.step == 1 and self.length == size


class Slice:
    """A window of `size` elements `stride` apart from `start` (an int or
    a 0-d integer array, maybe traced); `ds` makes one. A pytree whose one
    leaf is a traced start."""

    __slots__ = ("start", "size", "stride")

    def __init__(self, start: Any, size: int, stride: int = 1) -> None:
        if not isinstance(stride, (int, np.integer)) or stride < 1:
            raise ValueError(f"jaxc.ds: the stride must be a static int >= 1, got {stride!r}")
        try:
            size = operator.index(size)
        except TypeError:
            raise TypeError(f"jaxc.ds: the size must be a static int, got {size!r}") from None
        if size < 0:
            raise ValueError(f"jaxc.ds: the size must be >= 0, got {size}")
        self.start, self.size, self.stride = start, size, int(stride)

    def __repr__(self) -> str:
        return f"Slice(start={self.start!r}, size={self.size}, stride={self.stride})"


def ds(start: Any, size: Any = None, stride: Any = None) -> Any:
    """JAX's `jax.ds` (dslice): ``ds(None)`` is ``:``, ``ds(j)`` the first j
    elements, ``ds(i, j)`` the j elements from i (a run-time i too),
    ``ds(i, j, k)`` every k-th of them: ``x[jaxc.ds(i, 2)]`` under jit."""
    if start is None:
        return slice(None)
    if size is None:
        start, size = 0, start
    return Slice(start, size, 1 if stride is None else stride)


def _flatten_slice(s: Slice) -> tuple[tuple, tuple]:
    dynamic = isinstance(s.start, ArrayBase)
    return ((s.start,) if dynamic else (), (None if dynamic else s.start, s.size, s.stride))


def _unflatten_slice(aux: tuple, children: Any) -> Slice:
    start, size, stride = aux
    children = tuple(children)
    return Slice(children[0] if children else start, size, stride)


def _register_slice() -> None:
    from ..tree_util import register_pytree_node
    register_pytree_node(Slice, _flatten_slice, _unflatten_slice)


_register_slice()


class _Advanced(NamedTuple):
    """An integer index array (np.ndarray or Array/Tracer). `inserted`: it
    indexes a size-1 dimension inserted for a 0-d boolean index."""
    value: Any
    inserted: bool = False


def _is_marker(entry: Any) -> bool:
    """Does this entry count as an advanced index (in advanced mode)?"""
    return isinstance(entry, (_Int, _Dynamic, _Advanced))


def _consumes_dim(entry: Any) -> bool:
    return not isinstance(entry, _NewAxis) and not (isinstance(entry, _Advanced) and entry.inserted)


_LIST_INDEX_ERROR = ("{fn}: using a non-tuple sequence for multidimensional indexing is not allowed "
                     "(as in JAX); use x[jnp.array(seq)] for an index array or x[tuple(seq)] for "
                     "one index per dimension")


def _classify(item: Any, position: int, fn: str) -> Any:
    """One element of an index tuple as None, Ellipsis, slice, int, or an
    array-like (np.ndarray or ArrayBase); bool scalars become 0-d masks."""
    if item is None or item is Ellipsis or isinstance(item, (slice, Slice)):
        return item
    if isinstance(item, (bool, np.bool_)):
        return np.asarray(item)
    if isinstance(item, (int, np.integer)):
        return int(item)
    array: Any  # an ArrayBase or np.ndarray (None while NumPy fails)
    if isinstance(item, ArrayBase):
        array = item
    elif isinstance(item, (list, tuple)) and any(isinstance(leaf, ArrayBase) for leaf in _leaves(item)):
        array = asarray(item, fn=fn, lists=True)
    elif hasattr(item, "__jax_array__"):
        array = asarray(item, fn=fn)
    else:
        try:
            array = np.asarray(item)
        except (TypeError, ValueError):
            array = None
        if array is None or array.dtype == object:
            raise TypeError(f"{fn}: invalid index {item!r} at position {position} (use ints, slices, "
                            "None, ..., or integer/boolean arrays)")
        if array.size == 0 and array.dtype.kind == "f" and isinstance(item, (list, tuple)):
            array = array.astype(np.int32)  # an empty list is an empty integer index
    dtype = np.dtype(array.dtype)
    if dtype != np.bool_ and not dtypes.is_int(dtype):
        raise TypeError(f"{fn}: indexer must have integer or boolean type, got indexer with type "
                        f"{dtype.name} at position {position}")
    return array


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def _parse(shape: Sequence[int], index: Any, fn: str, updating: bool = False) -> list[Any]:
    """The entries of `index` applied to an array of `shape` (`updating`:
    for a scatter, which indexes `ds` windows differently)."""
    if not isinstance(index, tuple):
        if isinstance(index, list):
            raise TypeError(_LIST_INDEX_ERROR.format(fn=fn))
        index = (index,)
    items = [_classify(item, i, fn) for i, item in enumerate(index)]
    consumed = 0
    ellipses = 0
    for item in items:
        if item is Ellipsis:
            ellipses += 1
        elif item is not None:
            is_mask = not isinstance(item, (int, slice, Slice)) and item.dtype == np.bool_
            consumed += item.ndim if is_mask else 1
    if ellipses > 1:
        raise IndexError(f"{fn}: an index can only have a single ellipsis ('...')")
    ndim = len(shape)
    if consumed > ndim:
        raise IndexError(f"{fn}: too many indices for array: array is {ndim}-dimensional, but "
                         f"{consumed} were indexed")
    entries: list[Any] = []
    dim = 0
    for item in items:
        if item is None:
            entries.append(_NewAxis())
        elif item is Ellipsis:
            for _ in range(ndim - consumed):
                entries.append(_Slice(0, 1, shape[dim]))
                dim += 1
        elif isinstance(item, slice):
            entries.append(_parse_slice(item, shape[dim], fn))
            dim += 1
        elif isinstance(item, Slice):
            entries.append(_window(item, shape[dim], fn, updating))
            dim += 1
        elif isinstance(item, int):
            entries.append(_static_int(item, shape[dim], dim, fn))
            dim += 1
        elif item.dtype == np.bool_:
            entries.extend(_mask_entries(item, shape[dim:dim + item.ndim], dim, fn))
            dim += item.ndim
        elif item.ndim == 0 and isinstance(item, ArrayBase):
            entries.append(_Dynamic(item))
            dim += 1
        elif item.ndim == 0:
            entries.append(_static_int(int(item), shape[dim], dim, fn))
            dim += 1
        else:
            entries.append(_Advanced(item))
            dim += 1
    entries.extend(_Slice(0, 1, shape[d]) for d in range(dim, ndim))
    return entries


def _static_int(value: int, size: int, dim: int, fn: str) -> Any:
    """An in-range static int as `_Int`; an out-of-range one as a 0-d index
    array, so it clamps when read, fills or drops with the other modes (JAX)."""
    if -size <= value < size:
        return _Int(value % size)
    return _Advanced(np.asarray(value, np.int64))


def _parse_slice(item: slice, size: int, fn: str) -> _Slice:
    for bound in (item.start, item.stop, item.step):
        if isinstance(bound, core.Tracer):
            raise core.ConcretizationTypeError(
                bound, f"{fn}: a slice bound (slices need a static start, stop and step; for a window "
                "at a run-time position use lax.dynamic_slice or lax.dynamic_update_slice)")
    try:
        parts = [None if p is None else operator.index(p) for p in (item.start, item.stop, item.step)]
    except TypeError:
        raise TypeError(f"{fn}: slice indices must be integers or None, got {item!r}") from None
    if parts[2] == 0:
        raise ValueError(f"{fn}: slice step cannot be zero")
    start, stop, step = slice(*parts).indices(size)
    return _Slice(start, step, len(range(start, stop, step)))


def _window(item: Slice, size: int, fn: str, updating: bool) -> Any:
    """A `ds` window as JAX indexes it: a negative start counts from the
    end; with stride 1 a dynamic_slice (a read clamps the start so the
    window fits; an update out of range is dropped whole unless
    mode="clip", `_update_slice`), with a larger stride the window's index
    array (a read clamps each index, an update drops those out of range)."""
    start = item.start
    if isinstance(start, ArrayBase):
        if start.ndim != 0 or not dtypes.is_int(start.dtype):
            raise TypeError(f"{fn}: a jaxc.ds start must be a 0-d integer, got {start.aval.str_short()}")
        start = lax.select(lax.lt(start, lax.full((), 0, start.dtype)),
                           lax.add(start, lax.full((), size, start.dtype)), start)
    else:
        start = operator.index(start)
        start = start + size if start < 0 else start
    if item.stride == 1:
        if item.size > size:
            raise IndexError(f"{fn}: a jaxc.ds window of {item.size} elements is longer than the axis "
                             f"of size {size}")
        if isinstance(start, ArrayBase) or updating:
            return _Slice(start, 1, item.size)
        return _Slice(min(max(start, 0), size - item.size), 1, item.size)
    if isinstance(start, ArrayBase):
        steps = lax.mul(lax.iota(start.dtype, item.size), lax.full((item.size,), item.stride, start.dtype))
        return _Advanced(lax.add(steps, lax.broadcast_in_dim(start, (item.size,), ())))
    return _Advanced(np.arange(start, start + item.size * item.stride, item.stride, dtype=np.int64))


def _mask_entries(mask: Any, shape: Sequence[int], dim: int, fn: str) -> list[Any]:
    """A boolean mask as the integer arrays of its True elements (static)."""
    if isinstance(mask, core.Tracer):
        raise NonConcreteBooleanIndexError(mask, fn)
    value = np.asarray(mask)
    if value.ndim == 0:
        return [_Advanced(np.zeros(int(value), np.int32), inserted=True)]
    for axis, (size, mask_size) in enumerate(zip(shape, value.shape)):
        if size != mask_size:
            raise IndexError(f"{fn}: boolean index did not match indexed array along axis {dim + axis}; "
                             f"size of axis is {size} but size of corresponding boolean axis is {mask_size}")
    return [_Advanced(np.asarray(i, np.int32 if value.size < 2**31 else np.int64)) for i in np.nonzero(value)]


def _batch_shape(entries: Sequence[Any], fn: str) -> tuple[int, ...]:
    """The shape the advanced index arrays broadcast to."""
    shapes = [tuple(e.value.shape) for e in entries if isinstance(e, _Advanced)]
    try:
        return broadcast_shapes(fn, *shapes)
    except ValueError:  # JAX's type; NumPy raises IndexError
        raise ValueError(f"{fn}: shape mismatch: indexing arrays could not be broadcast together with "
                         f"shapes {' '.join(str(s) for s in shapes)}") from None


def _advanced_block(entries: Sequence[Any]) -> tuple[bool, int]:
    """(whether the advanced indices are adjacent, the entry position of the
    first one). NumPy puts their dimensions there when adjacent, else first."""
    markers = [i for i, e in enumerate(entries) if _is_marker(e)]
    adjacent = markers == list(range(markers[0], markers[-1] + 1))
    return adjacent, markers[0]


def _result_shape(entries: Sequence[Any], batch: tuple[int, ...], advanced: bool) -> tuple[int, ...]:
    """The shape of x[index] (with size-1 dimensions for None)."""
    if not advanced:
        return tuple(1 if isinstance(e, _NewAxis) else e.length for e in entries
                     if isinstance(e, (_NewAxis, _Slice)))
    adjacent, first = _advanced_block(entries)
    shape: list[int] = [] if adjacent else list(batch)
    for i, e in enumerate(entries):
        if adjacent and i == first:
            shape.extend(batch)
        elif isinstance(e, _NewAxis):
            shape.append(1)
        elif isinstance(e, _Slice):
            shape.append(e.length)
    return tuple(shape)


# ---------------------------------------------------------------------------
# Index arithmetic
# ---------------------------------------------------------------------------

def _index_dtype(values: Sequence[Any]) -> np.dtype:
    wide = dtypes.x64_enabled() and any(isinstance(v, ArrayBase) and v.dtype.itemsize == 8 for v in values)
    return np.dtype(np.int64 if wide else np.int32)


def _normalize(value: Any, size: int, mode: str, dtype: np.dtype) -> Any:
    """An index array in `dtype` with negative indices wrapped once, then
    for mode "clip" clamped into range; "wrap": modulo size instead; "raw":
    not wrapped (negative ones clamp to 0 in gather); else out-of-range
    indices stay out of range."""
    if not isinstance(value, ArrayBase):
        v = np.asarray(value, np.int64)
        if mode != "raw":
            v = np.where(v < 0, v + size, v)
        if mode == "clip":
            v = np.clip(v, 0, max(size - 1, 0))
        elif mode == "wrap":
            v = np.mod(np.asarray(value, np.int64), size)
        return np.clip(v, -1, size).astype(dtype)  # out of range stays out of range, without overflow
    if dtypes.is_unsigned(value.dtype) and value.dtype.itemsize >= dtype.itemsize:
        value = lax.min(value, lax.full_like(value, size))
    value = lax.convert_element_type(value, dtype)
    zero = lax.full_like(value, 0)
    if mode == "wrap":
        remainder = lax.rem(value, lax.full_like(value, size))
        return lax.select(lax.lt(remainder, zero), lax.add(remainder, lax.full_like(value, size)), remainder)
    if mode != "raw" and not dtypes.is_unsigned(dtype):
        value = lax.select(lax.lt(value, zero), lax.add(value, lax.full_like(value, size)), value)
    if mode == "clip":
        lo, hi = (lax.constant(np.asarray(v, dtype)) for v in (0, max(size - 1, 0)))
        value = lax.clamp(lo, value, hi)
    return value


def _in_range(components: Sequence[Any], sizes: Sequence[int], shape: tuple[int, ...]) -> Any:
    """Bool array of `shape`: every (normalized) index component is in range."""
    static = [np.broadcast_to((c >= 0) & (c < n), shape) for c, n in zip(components, sizes)
              if not isinstance(c, ArrayBase)]
    valid = lax.constant(np.logical_and.reduce(static, axis=0)) if static else None
    for c, n in zip(components, sizes):
        if isinstance(c, ArrayBase):
            ok = lax.bitwise_and(lax.ge(c, lax.full_like(c, 0)), lax.lt(c, lax.full_like(c, n)))
            ok = broadcast_to(ok, shape)
            valid = ok if valid is None else lax.bitwise_and(valid, ok)
    return valid


def _stack_indices(components: Sequence[Any], shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """The components broadcast to `shape` and stacked along a new last
    dimension (the index vector of gather/scatter); one constant when all
    are static."""
    if not any(isinstance(c, ArrayBase) for c in components):
        return lax.constant(np.stack([np.broadcast_to(c, shape) for c in components], axis=-1).astype(dtype))
    columns = []
    for c in components:
        column = broadcast_to(c if isinstance(c, ArrayBase) else lax.constant(np.asarray(c, dtype)), shape)
        columns.append(lax.reshape(column, (*shape, 1)))
    return lax.concatenate(columns, len(shape))


def _start_scalar(value: Any, size: int) -> Any:
    """A start index for dynamic_slice: a static int as a constant, a
    dynamic one in the default int dtype with negative values wrapped."""
    dtype = dtypes.default_int()
    if isinstance(value, ArrayBase):
        return _normalize(value, size, "keep", dtype)  # dynamic_slice clamps
    return lax.constant(np.asarray(value, dtype))


def _fill_default(dtype: np.dtype) -> Any:
    """JAX's fill value for out-of-range reads: NaN (complex: NaN + NaN j),
    the most negative int, the largest unsigned int, True."""
    if dtypes.is_float(dtype):
        return np.nan
    if dtypes.is_complex(dtype):
        return complex(np.nan, np.nan)
    if dtype == np.bool_:
        return True
    return np.iinfo(dtype).max if dtypes.is_unsigned(dtype) else np.iinfo(dtype).min


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _slice_basic(x: Any, entries: Sequence[Any]) -> Any:
    """Apply the ints and slices of `entries` (one per dimension of x; an
    index array's dimension is a full slice here), keeping size-1
    dimensions for the ints."""
    starts: list[Any] = []
    sizes: list[int] = []
    strides: list[int] = []
    flips: list[int] = []
    dynamic = False
    for d, e in enumerate(entries):
        size = x.shape[d]
        if isinstance(e, _Int):
            starts.append(e.value)
            sizes.append(1)
            strides.append(1)
        elif isinstance(e, _Dynamic):
            if size == 0:
                raise IndexError(f"x[idx]: index is out of bounds for axis {d} with size 0")
            starts.append(e.value)
            sizes.append(1)
            strides.append(1)
            dynamic = True
        elif e.length == 0:
            starts.append(0)
            sizes.append(0)
            strides.append(1)
        else:
            step = abs(e.step)
            dynamic = dynamic or isinstance(e.start, ArrayBase)  # a jaxc.ds window
            first = e.start if e.step > 0 else e.start + (e.length - 1) * e.step
            starts.append(first)
            sizes.append((e.length - 1) * step + 1)
            strides.append(step)
            if e.step < 0 and e.length > 1:
                flips.append(d)
    if dynamic or (core.current_scope() is None and tuple(sizes) != x.shape):
        # Run-time starts (eagerly too: one compiled kernel whatever the
        # index values), then the strides.
        x = lax.dynamic_slice(x, [_start_scalar(s, n) for s, n in zip(starts, x.shape)], sizes)
        x = lax.slice(x, [0] * x.ndim, x.shape, strides)
    else:
        x = lax.slice(x, starts, [s + n for s, n in zip(starts, sizes)], strides)
    return lax.rev(x, flips)


def _keep_weak(out: Any, x: Any) -> Any:
    return lax._with_weak(out, True) if x.weak_type and not out.weak_type else out


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` with NumPy's rules; out-of-range dynamic or array indices
    clamp (JAX's default)."""
    return _get(asarray(x), index, "clip", None, "x[idx]")


def _get(x: Any, index: Any, mode: str, fill_value: Any, fn: str) -> Any:
    if index is Ellipsis or (isinstance(index, tuple) and not index):
        return x
    entries = _parse(x.shape, index, fn)
    if mode == "fill":
        entries = [_Advanced(e.value) if isinstance(e, _Dynamic) else e for e in entries]
    if not any(isinstance(e, _Advanced) for e in entries):
        y = _slice_basic(x, [e for e in entries if _consumes_dim(e)])
        return _keep_weak(lax.reshape(y, _result_shape(entries, (), False)), x)
    return _keep_weak(_gather(x, entries, mode, fill_value, fn), x)


def _gather(x: Any, entries: Sequence[Any], mode: str, fill_value: Any, fn: str) -> Any:
    """Advanced indexing: slice the basic part, then one gather over the
    array-indexed dimensions (windows over the others)."""
    batch = _batch_shape(entries, fn)
    out_shape = _result_shape(entries, batch, True)
    # 1. Ints and slices statically; array-indexed dimensions untouched.
    dim_entries = [e for e in entries if _consumes_dim(e)]
    y = _slice_basic(x, [_Slice(0, 1, x.shape[d]) if isinstance(e, _Advanced) else e
                         for d, e in enumerate(dim_entries)])
    # y's dimensions: one per slice or index array (inserted ones for 0-d bools).
    y_entries = [e for e in entries if isinstance(e, (_Slice, _Advanced))]
    y_shape = []
    dims = iter(range(y.ndim))
    for e in entries:
        if isinstance(e, _Advanced) and e.inserted:
            y_shape.append(1)
        elif _consumes_dim(e):
            d = next(dims)
            if isinstance(e, (_Slice, _Advanced)):
                y_shape.append(y.shape[d])
    y = lax.reshape(y, tuple(y_shape))
    indexed = [d for d, e in enumerate(y_entries) if isinstance(e, _Advanced)]
    sizes = [y.shape[d] for d in indexed]
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return lax.full(out_shape, 0, x.dtype)
    if any(n == 0 for n in sizes):
        if mode != "fill":
            raise IndexError(f"{fn}: cannot take elements from an axis of size 0")
        return lax.full(out_shape, _fill_default(x.dtype) if fill_value is None else fill_value, x.dtype)
    values = [e.value for e in y_entries if isinstance(e, _Advanced)]  # those of `indexed`
    dtype = _index_dtype(values)
    normalization = {"wrap": "wrap", "clamp": "raw"}.get(mode, "keep")
    components = [_normalize(v, n, normalization, dtype) for v, n in zip(values, sizes)]
    idx = _stack_indices(components, batch, dtype)
    adjacent, first = _advanced_block(entries)
    before = sum(isinstance(e, _Slice) for e in entries[:first]) if adjacent else 0
    windows = y.ndim - len(indexed)
    offset_dims = tuple(range(before)) + tuple(range(before + len(batch), windows + len(batch)))
    slice_sizes = [1 if d in indexed else y.shape[d] for d in range(y.ndim)]
    out = lax.gather(y, idx, lax.GatherDimensionNumbers(offset_dims, tuple(indexed), tuple(indexed)),
                     slice_sizes)
    if mode == "fill":
        valid = _in_range(components, sizes, batch)
        batch_dims = tuple(d for d in range(out.ndim) if d not in offset_dims)
        fill = lax.full(out.shape, _fill_default(x.dtype) if fill_value is None else fill_value, x.dtype)
        out = lax.select(lax.broadcast_in_dim(valid, out.shape, batch_dims), out, fill)
    return lax.reshape(out, out_shape)


def take_indices(x: Any, index: tuple, mode: str, fill_value: Any, fn: str) -> Any:
    """`x[index]` with an explicit out-of-range `mode`: "fill", "clip",
    "wrap", or "clamp" (clip without wrapping negative indices first, as
    NumPy's and JAX's take); for jnp.take, take_along_axis and repeat."""
    return _keep_weak(_gather(x, _parse(x.shape, index, fn), mode, fill_value, fn), x)


# ---------------------------------------------------------------------------
# Updating
# ---------------------------------------------------------------------------

_COMBINE = {"add": lax.add, "mul": lax.mul, "min": lax.min, "max": lax.max}
_GET_MODES = {None: "clip", "clip": "clip", "promise_in_bounds": "clip", "fill": "fill", "drop": "fill"}
_SET_MODES = {None: "drop", "drop": "drop", "fill": "drop", "promise_in_bounds": "drop", "clip": "clip"}


def _mode(mode: Any, table: dict, fn: str) -> str:
    key = getattr(mode, "name", mode)
    key = key.lower() if isinstance(key, str) else key
    if key == "fill_or_drop":
        key = "fill"
    if key not in table:
        raise ValueError(f"{fn}: unknown mode {mode!r} (expected one of "
                         f"{', '.join(repr(k) for k in table if k is not None)})")
    return table[key]


def _updates(values: Any, x: Any, shape: tuple[int, ...], fn: str) -> Any:
    """The update values in x's dtype, broadcast to the indexed shape."""
    values = asarray(values, fn=fn, lists=True)  # JAX's .at[...].set takes lists
    if values.dtype != x.dtype:
        values = lax.convert_element_type(values, x.dtype)
    lead = values.ndim - len(shape)
    if lead > 0 and all(d == 1 for d in values.shape[:lead]):
        values = lax.reshape(values, values.shape[lead:])
    try:
        return broadcast_to(values, shape, fn)
    except ValueError:
        raise ValueError(f"{fn}: cannot broadcast updates of shape {values.shape} to the indexed "
                         f"shape {shape}") from None


def _scatter(x: Any, index: Any, values: Any, kind: str, mode: str, fn: str, unique_indices: bool = False) -> Any:
    x = asarray(x, fn=fn)
    entries = _parse(x.shape, index, fn, updating=True)
    advanced = any(isinstance(e, _Advanced) for e in entries)
    batch = _batch_shape(entries, fn) if advanced else ()
    out_shape = _result_shape(entries, batch, advanced)
    updates = _updates(values, x, out_shape, fn)
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return x
    dim_entries = [e for e in entries if _consumes_dim(e)]
    if not advanced and all(isinstance(e, _Int) or (isinstance(e, _Slice) and (e.step == 1 or e.length == 1))
                            for e in dim_entries):
        out = _update_slice(x, dim_entries, updates, kind, mode)
    else:
        out = _scatter_general(x, entries, updates, kind, mode, batch, advanced, unique_indices)
    return _keep_weak(out, x)


def _update_slice(x: Any, dim_entries: Sequence[Any], updates: Any, kind: str, mode: str) -> Any:
    """Static ints and unit-step slices (and `ds` windows): update one box
    with dynamic_update_slice. A window whose start puts it out of range is
    dropped whole (XLA's scatter of a window), or clamped with mode="clip"."""
    starts = [e.value if isinstance(e, _Int) else e.start for e in dim_entries]
    box = tuple(1 if isinstance(e, _Int) else e.length for e in dim_entries)
    fits = [] if mode == "clip" else [
        (s, x.shape[d] - n) for d, (s, n) in enumerate(zip(starts, box))
        if isinstance(s, ArrayBase) or not 0 <= s <= x.shape[d] - n]
    dynamic = [(s, last) for s, last in fits if isinstance(s, ArrayBase)]
    if len(dynamic) < len(fits):
        return x  # a static window out of range
    updates = lax.reshape(updates, box)
    if kind != "set":
        updates = _COMBINE[kind](_slice_basic(x, [_Slice(s, 1, n) for s, n in zip(starts, box)]), updates)
    if box == x.shape and not dynamic:
        return updates
    out = lax.dynamic_update_slice(x, updates, [_start_scalar(s, n) for s, n in zip(starts, x.shape)])
    if dynamic:
        inside = [lax.bitwise_and(lax.ge(s, lax.full((), 0, s.dtype)), lax.le(s, lax.full((), last, s.dtype)))
                  for s, last in dynamic]
        ok = inside[0]
        for more in inside[1:]:
            ok = lax.bitwise_and(ok, more)
        out = lax.select(lax.broadcast_in_dim(ok, x.shape, ()), out, x)
    return out


def _scatter_general(x: Any, entries: Sequence[Any], updates: Any, kind: str, mode: str,
                     batch: tuple[int, ...], advanced: bool, unique_indices: bool = False) -> Any:
    """One scatter: every dimension that is not a full slice gets an index
    component (ints, slice ranges as iotas, index arrays)."""
    # x' = x with the size-1 dimensions of 0-d boolean indices inserted.
    x_shape = []
    dims = iter(x.shape)
    for e in entries:
        if isinstance(e, _Advanced) and e.inserted:
            x_shape.append(1)
        elif _consumes_dim(e):
            x_shape.append(next(dims))
    operand = lax.reshape(x, tuple(x_shape))
    # Label the dimensions of the updates (None dimensions dropped):
    # (kind, key, size) with kind "batch" (key: position in the broadcast
    # index shape), "window" (a full slice; key: dimension of x') or "slice".
    labels: list[tuple[str, int, int]] = []
    adjacent, first = _advanced_block(entries) if advanced else (True, -1)
    if not adjacent:
        labels.extend(("batch", j, n) for j, n in enumerate(batch))
    xdim_of: dict[int, int] = {}
    xdim = 0
    for i, e in enumerate(entries):
        if isinstance(e, _NewAxis):
            continue
        xdim_of[i] = xdim
        if adjacent and i == first:
            labels.extend(("batch", j, n) for j, n in enumerate(batch))
        if isinstance(e, _Slice):
            labels.append(("window" if e.is_full(x_shape[xdim]) else "slice", xdim, e.length))
        xdim += 1
    updates = lax.reshape(updates, tuple(size for _, _, size in labels))
    scatter_labels = [(kind_, key) for kind_, key, _ in labels if kind_ != "window"]
    scatter_shape = tuple(size for kind_, _, size in labels if kind_ != "window")
    first_batch = scatter_labels.index(("batch", 0)) if batch else 0
    # One index component per indexed dimension of x', in dimension order.
    indexed, components = [], []
    values = [e.value for e in entries if isinstance(e, (_Advanced, _Dynamic))]
    dtype = _index_dtype(values)
    for i, e in enumerate(entries):
        if isinstance(e, _NewAxis) or (isinstance(e, _Slice) and e.is_full(x_shape[xdim_of[i]])):
            continue
        d = xdim_of[i]
        size = x_shape[d]
        if isinstance(e, _Slice):
            where = scatter_labels.index(("slice", d))
            shape = [1] * len(scatter_shape)
            shape[where] = e.length
            component = np.arange(e.start, e.start + e.length * e.step, e.step).reshape(shape)
        elif isinstance(e, _Int):
            component = np.asarray(e.value)
        else:
            component = _normalize(e.value, size, mode, dtype)
            if isinstance(e, _Advanced):
                rank = component.ndim
                placed = (1,) * (first_batch + len(batch) - rank) + tuple(component.shape) + \
                    (1,) * (len(scatter_shape) - first_batch - len(batch))
                component = component.reshape(placed) if not isinstance(component, ArrayBase) else \
                    lax.reshape(component, placed)
        indexed.append(d)
        components.append(component)
    if any(x_shape[d] == 0 for d in indexed):
        return x  # every update is out of range
    idx = _stack_indices(components, scatter_shape, dtype)
    window_dims = tuple(i for i, (kind_, _, _) in enumerate(labels) if kind_ == "window")
    numbers = lax.ScatterDimensionNumbers(window_dims, tuple(indexed), tuple(indexed))
    out = lax.scatter(operand, idx, updates, numbers, kind, unique_indices=unique_indices)
    return lax.reshape(out, x.shape)


class _IndexUpdateRef:
    """``x.at[index]``: the update methods (each returns a new array)."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            fill_value: Any = None) -> Any:
        """``x[index]``; mode "fill" gives `fill_value` (default NaN, the
        most negative int, ...) for out-of-range indices instead of clamping."""
        fn = "x.at[idx].get"
        return _get(asarray(self.array), self.index, _mode(mode, _GET_MODES, fn), fill_value, fn)

    def _update(self, kind: str, values: Any, mode: Any, name: str, unique_indices: bool) -> Any:
        fn = f"x.at[idx].{name}"
        return _scatter(self.array, self.index, values, kind, _mode(mode, _SET_MODES, fn), fn, unique_indices)

    def set(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: Any = None) -> Any:
        """x with x[index] replaced by `values` (broadcast; one of repeated indices wins)."""
        return self._update("set", values, mode, "set", unique_indices)

    def add(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: Any = None) -> Any:
        """x with `values` added at x[index] (repeated indices accumulate)."""
        return self._update("add", values, mode, "add", unique_indices)

    def multiply(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                 mode: Any = None) -> Any:
        """x with x[index] multiplied by `values` (repeated indices accumulate)."""
        return self._update("mul", values, mode, "multiply", unique_indices)

    mul = multiply

    def subtract(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                 mode: Any = None) -> Any:
        """x with `values` subtracted at x[index] (repeated indices accumulate)."""
        from ._elementwise import negative
        return self._update("add", negative(values), mode, "subtract", unique_indices)

    def _scaled(self, combine: Any, values: Any, mode: Any, name: str, unique_indices: bool) -> Any:
        """combine(x, factors): factors are 1 except at x[index], where the
        `values` of every update there multiply (JAX's divide and power)."""
        fn = f"x.at[idx].{name}"
        x = asarray(self.array, fn=fn)
        ones = lax.full(x.shape, 1, dtypes.result_type(x, values))
        factors = _scatter(ones, self.index, values, "mul", _mode(mode, _SET_MODES, fn), fn, unique_indices)
        return combine(x, factors)

    def divide(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
               mode: Any = None) -> Any:
        """x with x[index] divided by `values` (true division; repeated
        indices divide again)."""
        from ._elementwise import true_divide
        return self._scaled(true_divide, values, mode, "divide", unique_indices)

    def power(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: Any = None) -> Any:
        """x with x[index] raised to `values` (repeated indices raise again:
        the exponents multiply)."""
        from ._elementwise import power
        return self._scaled(power, values, mode, "power", unique_indices)

    def apply(self, func: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: Any = None) -> Any:
        """x with the unary `func` applied to each element of x[index] (on
        0-d values, as JAX traces it), once per time an index names it:
        repeated indices apply it again."""
        from .. import vmap
        fn = "x.at[idx].apply"
        x = asarray(self.array, fn=fn)
        if not callable(func):
            raise TypeError(f"{fn}: func must be callable, got {type(func).__name__}")
        hits = _scatter(lax.full(x.shape, 0, np.int32), self.index, 1, "add", _mode(mode, _SET_MODES, fn), fn)

        def applied(y: Any) -> Any:
            flat = lax.reshape(y, (y.size,))
            return lax.convert_element_type(lax.reshape(vmap(func)(flat), y.shape), x.dtype)

        if unique_indices:
            return lax.select(lax.gt(hits, lax.full(x.shape, 0, np.int32)), applied(x), x)
        rounds = lax.reduce_max(hits, tuple(range(x.ndim))) if x.ndim else hits

        def again(state: Any) -> Any:
            k, y = state
            return k + 1, lax.select(lax.gt(hits, lax.full(x.shape, k, np.int32)), applied(y), y)
        return lax.while_loop(lambda state: state[0] < rounds, again, (np.int32(0), x))[1]

    def min(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: Any = None) -> Any:
        """x with x[index] replaced by min(x[index], values)."""
        return self._update("min", values, mode, "min", unique_indices)

    def max(self, values: Any, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: Any = None) -> Any:
        """x with x[index] replaced by max(x[index], values)."""
        return self._update("max", values, mode, "max", unique_indices)


class AtIndexer:
    """``x.at``: ``x.at[index].set(v)``, ``.add``, ``.subtract``,
    ``.mul``/``.multiply``, ``.divide``, ``.power``, ``.min``, ``.max``,
    ``.apply(func)``, ``.get()``. Out-of-range updates are dropped."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"AtIndexer({self.array!r})"
