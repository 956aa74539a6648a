"""Shape functions of `jaxc.numpy`: reshaping, joining and splitting,
repeating, flipping and rolling, padding, taking, sorting and nonzero.

Everything is computed with lax calls on arrays; shapes, axes, repeats and
pad widths are static (a traced one is a ConcretizationTypeError). The
functions whose output shape depends on array values (`nonzero`,
`argwhere`, per-element `repeat`) need concrete values unless a static
size (`size=`, `total_repeat_length=`) is given, as in JAX.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence, cast

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from . import _indexing
from ._util import (
    asarray,
    broadcast_shapes,
    broadcast_to as _broadcast_to,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    place,
    promote_dtypes,
    static_shape,
)

__all__ = [
    "reshape", "ravel", "transpose", "matrix_transpose", "permute_dims", "swapaxes", "moveaxis",
    "expand_dims", "squeeze", "concatenate", "concat", "stack", "hstack", "vstack", "dstack",
    "column_stack", "split", "array_split", "tile", "repeat", "flip", "fliplr", "flipud", "roll",
    "rot90", "pad", "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d",
    "take", "take_along_axis", "sort", "sort_complex", "argsort", "nonzero", "flatnonzero", "argwhere", "astype",
    "ndim", "shape", "size",
]


def _static_int(value: Any, what: str, fn: str) -> int:
    if isinstance(value, core.Tracer):  # known only outside jit (an eager grad's argument)
        value = core.concrete(value, f"{what} of jnp.{fn}").tolist()
    try:
        return int(operator.index(value))
    except TypeError:
        raise TypeError(f"jnp.{fn}: {what} must be an int, got {value!r}") from None


def _static_ints(values: Any, what: str, fn: str) -> tuple[int, ...]:
    """An int or a sequence of ints (static) as a tuple."""
    if isinstance(values, core.Tracer):  # known only outside jit (an eager grad's argument)
        values = core.concrete(values, f"{what} of jnp.{fn}").tolist()
    if isinstance(values, (ArrayBase, np.ndarray)) and values.ndim > 0:
        values = np.asarray(values).tolist()
    seq = values if isinstance(values, (tuple, list)) else (values,)
    return tuple(_static_int(v, what, fn) for v in seq)


# ---------------------------------------------------------------------------
# Reshaping and transposing
# ---------------------------------------------------------------------------

def _resolve_shape(shape: Any, old: tuple[int, ...], fn: str) -> tuple[int, ...]:
    """A reshape target with at most one -1 (inferred)."""
    dims = _static_ints(shape, "the shape argument", fn)
    size = int(np.prod(old, dtype=np.int64))
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise TypeError(f"jnp.{fn}: can only specify one unknown dimension (-1), got {dims}")
    if any(d < -1 for d in dims):
        raise TypeError(f"jnp.{fn}: invalid shape {dims} (negative dimension)")
    known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
    if unknown:
        if known == 0 or size % known:
            raise TypeError(f"jnp.{fn}: cannot reshape array of shape {old} (size {size}) into shape {dims}")
        dims = tuple(size // known if d == -1 else d for d in dims)
    elif known != size:
        raise TypeError(f"jnp.{fn}: cannot reshape array of shape {old} (size {size}) into shape {dims}")
    return dims


def reshape(a: Any, shape: Any, order: str = "C", *, copy: Any = None) -> Any:
    """`a` with a new shape (one dimension may be -1), its elements read and
    written in row-major ("C") or column-major ("F") order. As in JAX 0.10,
    only the method takes the shape as separate ints (``x.reshape(2, 3)``)."""
    a = asarray(a, fn="reshape")
    shape = _resolve_shape(shape, a.shape, "reshape")
    if order == "C":
        return lax.reshape(a, shape)
    if order == "F":
        return transpose(lax.reshape(transpose(a), shape[::-1]))
    if order == "A":
        raise NotImplementedError("jnp.reshape: order='A' is not implemented")
    raise ValueError(f"jnp.reshape: unexpected value for 'order' argument: {order}")


def ravel(a: Any, order: str = "C") -> Any:
    """`a` flattened to 1-d, read in row-major ("C") or column-major ("F")
    order (as in JAX, "A" and "K" are not implemented)."""
    if order in ("A", "K"):
        raise NotImplementedError(f"jnp.ravel: order={order!r} is not implemented")
    if order not in ("C", "F"):
        raise ValueError(f"jnp.ravel: unexpected value for 'order' argument: {order}")
    a = asarray(a, fn="ravel")
    return lax.reshape(transpose(a) if order == "F" else a, (a.size,))


def transpose(a: Any, axes: Any = None) -> Any:
    """Permute the dimensions (reversed when `axes` is None); the method
    also takes them as separate ints: ``x.transpose(1, 0)``."""
    a = asarray(a, fn="transpose")
    if axes is None:
        return lax.transpose(a, tuple(reversed(range(a.ndim))))
    perm = tuple(canonicalize_axis(ax, a.ndim, "transpose") for ax in _static_ints(axes, "axes", "transpose"))
    if sorted(perm) != list(range(a.ndim)):
        raise TypeError(f"jnp.transpose: axes {tuple(axes) if isinstance(axes, (list, tuple)) else axes} "
                         f"are not a permutation of the {a.ndim} dimensions of shape {a.shape}")
    return lax.transpose(a, perm)


def permute_dims(a: Any, /, axes: Any) -> Any:
    """Array API name of `transpose` (`axes` required)."""
    return transpose(a, tuple(axes))


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two dimensions."""
    x = asarray(x, fn="matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"jnp.matrix_transpose: x must have at least 2 dimensions, got shape {x.shape}")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return lax.transpose(x, perm)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """Exchange two dimensions."""
    a = asarray(a, fn="swapaxes")
    i = canonicalize_axis(axis1, a.ndim, "swapaxes")
    j = canonicalize_axis(axis2, a.ndim, "swapaxes")
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """Move dimensions `source` to positions `destination` (ints or sequences)."""
    a = asarray(a, fn="moveaxis")
    src = [canonicalize_axis(s, a.ndim, "moveaxis") for s in _static_ints(source, "source", "moveaxis")]
    dst = [canonicalize_axis(d, a.ndim, "moveaxis")
           for d in _static_ints(destination, "destination", "moveaxis")]
    if len(src) != len(dst):
        raise ValueError(f"jnp.moveaxis: source {source!r} and destination {destination!r} must have "
                         "the same number of elements")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"jnp.moveaxis: repeated axis in source {source!r} or destination {destination!r}")
    order = [d for d in range(a.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return lax.transpose(a, order)


def expand_dims(a: Any, axis: Any) -> Any:
    """Insert size-1 dimensions at positions `axis` (of the result)."""
    a = asarray(a, fn="expand_dims")
    axes = _static_ints(axis, "axis", "expand_dims")
    out_ndim = a.ndim + len(axes)
    where = canonicalize_axes(axes, out_ndim, "expand_dims")
    shape = iter(a.shape)
    return lax.reshape(a, tuple(1 if d in where else next(shape) for d in range(out_ndim)))


def squeeze(a: Any, axis: Any = None) -> Any:
    """Remove size-1 dimensions (all of them, or those in `axis`, which must have size 1)."""
    a = asarray(a, fn="squeeze")
    if axis is None:
        drop = tuple(d for d, n in enumerate(a.shape) if n == 1)
    else:
        drop = canonicalize_axes(_static_ints(axis, "axis", "squeeze"), a.ndim, "squeeze")
        bad = [d for d in drop if a.shape[d] != 1]
        if bad:
            raise ValueError(f"jnp.squeeze: cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={a.shape} and dimensions={drop}")
    return lax.reshape(a, tuple(n for d, n in enumerate(a.shape) if d not in drop))


# ---------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------

def _sequence(arrays: Any, fn: str) -> list[Any]:
    """The arrays of a sequence argument, promoted to their common dtype."""
    if isinstance(arrays, (ArrayBase, np.ndarray)):
        rows: Any = arrays  # indexable (jnp attaches the indexing of ArrayBase)
        arrays = [rows[i] for i in range(len(rows))] if rows.ndim else [rows]
    arrays = [a if isinstance(a, (ArrayBase, bool, int, float)) else asarray(a, fn=fn) for a in arrays]
    if not arrays:
        raise ValueError(f"jnp.{fn}: need at least one array")
    return promote_dtypes(fn, *arrays)


def _with_dtype(x: Any, dtype: Any) -> Any:
    return x if dtype is None else astype(x, dtype)


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (axis None: flatten them first);
    dtypes promote."""
    fn = "concatenate"
    if isinstance(arrays, ArrayBase) and axis is not None:
        # An array is the sequence of its rows: move them next to `axis`, merge.
        if arrays.ndim < 2:
            raise ValueError(f"jnp.{fn}: zero-dimensional arrays cannot be concatenated")
        ax = canonicalize_axis(axis, arrays.ndim - 1, fn)
        moved = moveaxis(arrays, 0, ax)
        shape = list(moved.shape)
        shape[ax:ax + 2] = [shape[ax] * shape[ax + 1]]
        return _with_dtype(lax.reshape(moved, tuple(shape)), dtype)
    xs = _sequence(arrays, fn)
    if axis is None:
        xs = [ravel(x) for x in xs]
        axis = 0
    first = xs[0]
    if first.ndim == 0:
        raise ValueError(f"jnp.{fn}: zero-dimensional arrays cannot be concatenated")
    ax = canonicalize_axis(axis, first.ndim, fn)
    for x in xs[1:]:
        if x.ndim != first.ndim:
            raise TypeError(f"jnp.{fn}: all the input arrays must have the same number of dimensions, "
                             f"got {first.shape} and {x.shape}")
        if any(m != n for d, (m, n) in enumerate(zip(first.shape, x.shape)) if d != ax):
            raise TypeError(f"jnp.{fn}: arrays must have the same shape except along axis {ax}, "
                             f"got {first.shape} and {x.shape}")
    nonempty = [x for x in xs if x.shape[ax]] or xs[:1]
    return _with_dtype(lax.concatenate(nonempty, ax), dtype)


def concat(arrays: Any, /, *, axis: int | None = 0) -> Any:
    """Array API name of `concatenate`."""
    return concatenate(arrays, axis)


def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Join arrays of one shape along a new axis."""
    fn = "stack"
    if out is not None:
        raise NotImplementedError("jnp.stack: the out argument is not supported (arrays are immutable)")
    if isinstance(arrays, ArrayBase):
        if arrays.ndim == 0:
            raise ValueError(f"jnp.{fn}: need at least one array (got a 0-d array)")
        return _with_dtype(moveaxis(arrays, 0, canonicalize_axis(axis, arrays.ndim, fn)), dtype)
    xs = _sequence(arrays, fn)
    shape = xs[0].shape
    for x in xs[1:]:
        if x.shape != shape:
            raise ValueError(f"jnp.{fn}: all input arrays must have the same shape, got {shape} and "
                             f"{x.shape}")
    ax = canonicalize_axis(axis, len(shape) + 1, fn)
    new_shape = shape[:ax] + (1,) + shape[ax:]
    return _with_dtype(lax.concatenate([lax.reshape(x, new_shape) for x in xs], ax), dtype)


def vstack(tup: Any, dtype: Any = None) -> Any:
    """Stack along the first axis (1-d arrays become rows)."""
    return concatenate([atleast_2d(x) for x in _sequence(tup, "vstack")], 0, dtype)


def hstack(tup: Any, dtype: Any = None) -> Any:
    """Stack along the second axis (the first for 1-d arrays)."""
    xs = [atleast_1d(x) for x in _sequence(tup, "hstack")]
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1, dtype)


def dstack(tup: Any, dtype: Any = None) -> Any:
    """Stack along the third axis."""
    return concatenate([atleast_3d(x) for x in _sequence(tup, "dstack")], 2, dtype)


def column_stack(tup: Any) -> Any:
    """1-d arrays as columns, stacked along the second axis."""
    xs = _sequence(tup, "column_stack")
    return concatenate([lax.reshape(x, (x.size, 1)) if x.ndim < 2 else x for x in xs], 1)


def _split_points(n: int, indices_or_sections: Any, fn: str, equal: bool) -> list[int]:
    if isinstance(indices_or_sections, core.Tracer):
        raise core.ConcretizationTypeError(indices_or_sections, f"indices_or_sections of jnp.{fn}")
    if np.ndim(indices_or_sections) == 0:
        sections = _static_int(indices_or_sections, "the number of sections", fn)
        if sections <= 0:
            raise ValueError(f"jnp.{fn}: number of sections must be larger than 0, got {sections}")
        if equal and n % sections:
            raise ValueError(f"jnp.{fn}: array split does not result in an equal division: {n} elements "
                             f"into {sections} sections")
        small, extra = divmod(n, sections)
        sizes = [small + 1] * extra + [small] * (sections - extra)
        return [0, *np.cumsum(sizes).tolist()]
    return [0, *_static_ints(indices_or_sections, "indices", fn), n]


def _split(ary: Any, indices_or_sections: Any, axis: int, fn: str, equal: bool) -> list[Any]:
    ary = asarray(ary, fn=fn)
    ax = canonicalize_axis(axis, ary.ndim, fn)
    n = ary.shape[ax]
    points = _split_points(n, indices_or_sections, fn, equal)
    pieces = []
    for start, stop in zip(points[:-1], points[1:]):
        start, stop, _ = slice(start, stop).indices(n)
        pieces.append(lax.slice_in_dim(ary, start, max(start, stop), 1, ax))
    return pieces


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Split into equal sections (an int that must divide the axis) or at indices."""
    return _split(ary, indices_or_sections, axis, "split", True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """As `split`, but sections may differ in size by one (the first ones larger)."""
    return _split(ary, indices_or_sections, axis, "array_split", False)


# ---------------------------------------------------------------------------
# Repeating, flipping, rolling
# ---------------------------------------------------------------------------

def tile(A: Any, reps: Any) -> Any:
    """`A` repeated `reps` times along each axis."""
    a = asarray(A, fn="tile")
    reps = _static_ints(reps, "reps", "tile")
    if any(r < 0 for r in reps):
        raise ValueError(f"jnp.tile: reps must be non-negative, got {reps}")
    ndim = max(a.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - a.ndim) + a.shape
    interleaved = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    a = lax.reshape(a, shape)
    tiled = lax.broadcast_in_dim(a, interleaved, tuple(range(1, 2 * ndim, 2)))
    return lax.reshape(tiled, tuple(r * n for r, n in zip(reps, shape)))


def repeat(a: Any, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None) -> Any:
    """Repeat each element `repeats` times (an int, or one count per element
    along `axis`). Per-element counts must be concrete unless
    `total_repeat_length` fixes the output length (then the output is cut, or
    padded with the last element)."""
    fn = "repeat"
    a = asarray(a, fn=fn)
    if axis is None or a.ndim == 0:  # a 0-d array repeats as a 1-d one, whatever the axis (as JAX)
        a = ravel(a)
        axis = 0
    ax = canonicalize_axis(axis, a.ndim, fn)
    n = a.shape[ax]
    total = None if total_repeat_length is None else \
        _static_int(total_repeat_length, "total_repeat_length", fn)
    if isinstance(repeats, core.Tracer):
        if total is None:
            raise core.ConcretizationTypeError(
                repeats, "jnp.repeat with traced repeats (the output shape depends on their values; "
                "pass total_repeat_length=... to fix it)")
        return _repeat_traced(a, repeats, ax, total)
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iub":
        raise TypeError(f"jnp.repeat: repeats must be integers, got {counts.dtype.name}")
    if np.any(counts < 0):
        raise ValueError(f"jnp.repeat: repeats may not contain negative values, got {counts.tolist()}")
    if counts.ndim == 0 and (total is None or total == int(counts) * n):
        r = int(counts)
        shape = a.shape[:ax + 1] + (r,) + a.shape[ax + 1:]
        dims = tuple(d if d <= ax else d + 1 for d in range(a.ndim))
        out = lax.broadcast_in_dim(a, shape, dims)
        return lax.reshape(out, a.shape[:ax] + (n * r,) + a.shape[ax + 1:])
    if counts.ndim > 1 or counts.size not in (1, n):
        raise ValueError(f"jnp.repeat: repeats of shape {counts.shape} do not match axis {ax} of size {n}")
    source = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
    if total is not None:
        last = source[-1:] if source.size else np.zeros(0, source.dtype)
        source = np.concatenate([source[:total], np.repeat(last, max(total - source.size, 0))])
        if source.size < total:
            raise ValueError(f"jnp.repeat: cannot repeat an empty selection to total_repeat_length {total}")
    return _take_static(a, source, ax)


def _take_static(a: Any, source: np.ndarray, axis: int) -> Any:
    index = (slice(None),) * axis + (source.astype(np.int32),)
    return _indexing.take_indices(a, index, "clip", None, "jnp.repeat")


def _repeat_traced(a: Any, repeats: Any, axis: int, total: int) -> Any:
    """Run-time repeat counts: mark the output positions where each
    element's run ends; a running count of the marks is then the source
    index of every output position (past the end: the last element)."""
    n = a.shape[axis]
    if total == 0 or n == 0:
        return lax.full(a.shape[:axis] + (total,) + a.shape[axis + 1:], 0, a.dtype)
    counts = lax.convert_element_type(repeats, dtypes.int32)
    if counts.shape != (n,):
        counts = _broadcast_to(counts, (n,), "repeat")
    if n == 1:
        source = lax.full((total,), 0, dtypes.int32)
    else:
        ends = lax.reshape(lax.slice(lax.cumsum(counts, 0), (0,), (n - 1,)), (n - 1, 1))
        ones = lax.full((n - 1,), 1, dtypes.int32)
        marks = lax.scatter(lax.full((total,), 0, dtypes.int32), ends, ones,
                            lax.ScatterDimensionNumbers((), (0,), (0,)), "add")  # ends >= total: dropped
        source = lax.cumsum(marks, 0)
    return _indexing.take_indices(a, (slice(None),) * axis + (source,), "clip", None, "jnp.repeat")


def flip(m: Any, axis: Any = None) -> Any:
    """Reverse the order of elements along `axis` (all axes when None)."""
    m = asarray(m, fn="flip")
    axes = canonicalize_axes(None if axis is None else _static_ints(axis, "axis", "flip"), m.ndim, "flip")
    return lax.rev(m, axes)


def fliplr(m: Any) -> Any:
    """Reverse the second axis."""
    m = asarray(m, fn="fliplr")
    if m.ndim < 2:
        raise ValueError(f"jnp.fliplr: the array must be at least 2-d, got shape {m.shape}")
    return lax.rev(m, (1,))


def flipud(m: Any) -> Any:
    """Reverse the first axis."""
    m = asarray(m, fn="flipud")
    if m.ndim < 1:
        raise ValueError("jnp.flipud: the array must be at least 1-d, got a 0-d array")
    return lax.rev(m, (0,))


def _roll_axis(a: Any, shift: Any, axis: int) -> Any:
    n = a.shape[axis]
    if n == 0:
        return a
    if isinstance(shift, ArrayBase):
        # Run-time shift: a window of n elements into [a, a].
        shift = lax.convert_element_type(shift, dtypes.int32)
        s = lax.rem(shift, lax.full_like(shift, n))
        s = lax.select(lax.lt(s, lax.full_like(s, 0)), lax.add(s, lax.full_like(s, n)), s)
        doubled = lax.concatenate([a, a], axis)
        starts = [lax.constant(np.int32(0))] * a.ndim
        starts[axis] = lax.sub(lax.full_like(s, n), s)
        return lax.dynamic_slice(doubled, starts, a.shape)
    s = shift % n
    if s == 0:
        return a
    tail, head = lax.slice_in_dim(a, n - s, n, 1, axis), lax.slice_in_dim(a, 0, n - s, 1, axis)
    return lax.concatenate([tail, head], axis)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Shift elements along `axis` (cyclically); axis None rolls the
    flattened array. `shift` may be traced."""
    fn = "roll"
    a = asarray(a, fn=fn)
    if isinstance(shift, ArrayBase) and shift.ndim == 0:
        shifts: list[Any] = [shift]
    elif isinstance(shift, core.Tracer):
        traced: Any = shift  # indexable (jnp attaches the indexing of tracers)
        shifts = [traced[i] for i in range(traced.shape[0])]
    else:
        shifts = list(_static_ints(shift, "shift", fn))
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"jnp.roll: a single shift is needed when axis is None, got {shift!r}")
        return lax.reshape(_roll_axis(ravel(a), shifts[0], 0), a.shape)
    axes = [canonicalize_axis(ax, a.ndim, fn) for ax in _static_ints(axis, "axis", fn)]
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError(f"jnp.roll: shift {shift!r} and axis {axis!r} have different lengths")
    count = max(len(shifts), len(axes))
    shifts = shifts * count if len(shifts) == 1 else shifts
    axes = axes * count if len(axes) == 1 else axes
    for s, ax in zip(shifts, axes):  # repeated axes accumulate
        a = _roll_axis(a, s, ax)
    return a


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """Rotate by 90 degrees `k` times in the plane of `axes` (from the first
    axis toward the second)."""
    fn = "rot90"
    m = asarray(m, fn=fn)
    plane = _static_ints(axes, "axes", fn)
    if len(plane) != 2:
        raise ValueError(f"jnp.rot90: axes must be two axes, got {plane}")
    if m.ndim < 2:
        raise ValueError(f"jnp.rot90: the array must be at least 2-d, got shape {m.shape}")
    a0, a1 = (canonicalize_axis(ax, m.ndim, fn) for ax in plane)
    if a0 == a1:
        raise ValueError(f"jnp.rot90: axes must be different, got {plane}")
    k = _static_int(k, "k", fn) % 4
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 0:
        return m
    if k == 1:
        return lax.transpose(lax.rev(m, (a1,)), perm)
    if k == 2:
        return lax.rev(m, (a0, a1))
    return lax.rev(lax.transpose(m, perm), (a1,))


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------

def _pad_pairs(value: Any, ndim: int, what: str) -> np.ndarray:
    """NumPy's broadcasting of a pad argument to one (before, after) pair per axis."""
    array = np.asarray(value)
    try:
        return np.broadcast_to(array, (ndim, 2))
    except ValueError:
        raise ValueError(f"jnp.pad: {what} of shape {array.shape} cannot be broadcast to ({ndim}, 2) "
                         "(one (before, after) pair per axis)") from None


def _source_runs(source: np.ndarray) -> list[tuple[int, int, bool]]:
    """Split a list of source positions into runs of consecutive positions:
    (first, last + 1, reversed)."""
    runs = []
    i = 0
    while i < len(source):
        j = i + 1
        step = int(source[j] - source[i]) if j < len(source) else 1
        if step not in (1, -1):
            step = 1
        while j < len(source) and source[j] - source[j - 1] == step:
            j += 1
        lo, hi = sorted((int(source[i]), int(source[j - 1])))
        runs.append((lo, hi + 1, step == -1 and j - i > 1))
        i = j
    return runs


# mode -> the keyword arguments it takes (NumPy's and JAX's)
_PAD_OPTIONS: dict[str, set[str]] = {
    "constant": {"constant_values"}, "empty": set(), "edge": set(), "wrap": set(),
    "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
    "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"}}


def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """Pad as NumPy: mode "constant" (`constant_values`: a scalar or per-axis
    (before, after) pairs), "edge", "reflect" and "symmetric" (`reflect_type`
    "even" or "odd"), "wrap", "empty" (zeros), "linear_ramp" (`end_values`),
    "maximum", "minimum", "mean", "median" (`stat_length`), or a function
    ``f(vector, (before, after), axis, kwargs) -> vector`` applied along each
    axis, as JAX's (it returns the padded vector). `pad_width`: an int, a
    pair, or a pair per axis."""
    fn = "pad"
    array = asarray(array, fn=fn)
    widths = _static_pad_values(pad_width, "pad_width")
    if widths.size and widths.dtype.kind not in "iu":
        raise TypeError(f"jnp.pad: pad_width must be integers, got {pad_width!r}")
    widths = _pad_pairs(widths.astype(np.int64), array.ndim, "pad_width")
    if np.any(widths < 0):
        raise ValueError(f"jnp.pad: pad_width must be non-negative, got {widths.tolist()}")
    if callable(mode):
        return _pad_with_function(array, widths, mode, kwargs)
    if mode not in _PAD_OPTIONS:
        raise NotImplementedError(f"Unimplemented padding mode {mode!r} for np.pad (the modes: "
                                  f"{', '.join(_PAD_OPTIONS)}, or a function)")
    unexpected = set(kwargs) - _PAD_OPTIONS[mode]
    if unexpected:
        raise ValueError(f"jnp.pad: unsupported keyword arguments for mode {mode!r}: {sorted(unexpected)}")
    if mode in ("constant", "empty"):
        return _pad_constant(array, widths, kwargs.get("constant_values", 0))
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    if mode == "linear_ramp":
        ends = _pad_pairs(_static_pad_values(kwargs.get("end_values", 0), "end_values"), array.ndim,
                          "end_values")
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = kwargs.get("stat_length")
        if lengths is not None:
            lengths = _pad_pairs(_static_pad_values(lengths, "stat_length"), array.ndim, "stat_length")
            if lengths.dtype.kind not in "iu" or np.any(lengths < 0):
                raise ValueError(f"jnp.pad: stat_length must be non-negative integers, got {lengths.tolist()}")
    for axis in range(array.ndim):
        before, after = (int(w) for w in widths[axis])
        if not before and not after:
            continue
        if array.shape[axis] == 0:
            raise ValueError(f"jnp.pad: can't extend empty axis {axis} using modes other than "
                             "'constant' or 'empty'")
        if mode == "linear_ramp":
            array = _pad_linear_ramp(array, axis, before, after, ends[axis])
        elif mode in ("maximum", "minimum", "mean", "median"):
            array = _pad_statistic(array, axis, before, after, None if lengths is None else lengths[axis], mode)
        elif reflect_type == "odd" and mode in ("reflect", "symmetric"):
            array = _pad_odd_reflection(array, axis, before, after, mode == "symmetric")
        else:
            array = _pad_from_positions(array, axis, before, after, mode)
    return array


def _static_pad_values(value: Any, what: str) -> np.ndarray:
    """A pad argument that must be known while tracing (pad_width,
    end_values, stat_length) as a NumPy array."""
    if isinstance(value, core.Tracer):
        raise core.ConcretizationTypeError(value, f"{what} of jnp.pad")
    # (cast: ArrayBase does not declare the tolist() of Array and Tracer)
    return np.asarray(cast(Any, value).tolist() if isinstance(value, ArrayBase) else value)


def _pad_from_positions(array: Any, axis: int, before: int, after: int, mode: str) -> Any:
    """Edge, wrap and even reflections: NumPy's pad of the positions
    0..n-1 says where each element comes from; runs of them become slices."""
    source = np.pad(np.arange(array.shape[axis]), (before, after), mode=cast(Any, mode))
    pieces = []
    for lo, hi, backwards in _source_runs(source):
        piece = lax.slice_in_dim(array, lo, hi, 1, axis)
        pieces.append(lax.rev(piece, (axis,)) if backwards else piece)
    return lax.concatenate(pieces, axis)


def _pad_odd_reflection(array: Any, axis: int, before: int, after: int, symmetric: bool) -> Any:
    """Odd reflections (`reflect_type="odd"`): each reflected chunk is
    2 * edge - chunk, and the next chunk reflects about the new edge (so
    long pads keep the slope):

        pad([1, 2, 4], (0, 4), "reflect", reflect_type="odd") = [1, 2, 4, 6, 7, 8, 10]
    """
    n = array.shape[axis]
    offset = 0 if symmetric else 1
    for side, width in ((0, before), (1, after)):
        edge = lax.slice_in_dim(array, 0, 1, 1, axis) if side == 0 else \
            lax.slice_in_dim(array, array.shape[axis] - 1, array.shape[axis], 1, axis)
        while width > 0:
            step = min(width, n - offset) if n > offset else width
            width -= step
            size = array.shape[axis]
            if n == 1:  # a single element reflects onto itself (NumPy: edge padding)
                chunk = lax.concatenate([edge] * step, axis)
            elif side == 0:
                chunk = lax.rev(lax.slice_in_dim(array, offset, offset + step, 1, axis), (axis,))
            else:
                chunk = lax.rev(lax.slice_in_dim(array, size - step - offset, size - offset, 1, axis), (axis,))
            chunk = lax.sub(lax.mul(lax.full_like(edge, 2), edge), chunk)  # edge broadcast along `axis`
            edge = lax.slice_in_dim(chunk, 0, 1, 1, axis) if side == 0 else \
                lax.slice_in_dim(chunk, step - 1, step, 1, axis)
            array = lax.concatenate([chunk, array] if side == 0 else [array, chunk], axis)
    return array


def _pad_linear_ramp(array: Any, axis: int, before: int, after: int, ends: np.ndarray) -> Any:
    """Ramps from `ends` (before, after) to the edge values, the edge itself
    excluded (jnp.linspace in the array's dtype: integers take the floor)."""
    from ._creation import linspace
    n = array.shape[axis]
    pieces = []
    for side, width in ((0, before), (1, after)):
        edge = lax.squeeze(lax.slice_in_dim(array, 0 if side == 0 else n - 1, 1 if side == 0 else n, 1, axis),
                           (axis,))
        ramp = linspace(ends[side], edge, width, endpoint=False, dtype=array.dtype, axis=axis)
        pieces.append(ramp if side == 0 else lax.rev(ramp, (axis,)))
    return lax.concatenate([pieces[0], array, pieces[1]], axis)


def _pad_statistic(array: Any, axis: int, before: int, after: int, lengths: np.ndarray | None,
                   statistic: str) -> Any:
    """Each side filled with a statistic of the `lengths` elements nearest to
    it (all of the axis by default); integer arrays round mean and median
    to the nearest even integer."""
    from . import _elementwise, _reductions
    reduce: Any = {"maximum": _reductions.max, "minimum": _reductions.min, "mean": _reductions.mean,
                   "median": _reductions.median}[statistic]
    n = array.shape[axis]
    stats = []
    for side in (0, 1):
        count = n if lengths is None else int(lengths[side])
        if count == 0:
            raise ValueError("jnp.pad: stat_length of 0 yields no value for padding")
        count = min(count, n)
        lo, hi = (0, count) if side == 0 else (n - count, n)
        part = lax.slice_in_dim(array, lo, hi, 1, axis)
        stat = reduce(part, axis=axis, keepdims=True)
        if dtypes.is_int(array.dtype):
            stat = _elementwise.round(stat)
        stats.append(lax.convert_element_type(stat, array.dtype))
    shape = list(array.shape)
    pieces = []
    for stat, width in zip(stats, (before, after)):
        shape[axis] = width
        pieces.append(_broadcast_to(stat, tuple(shape), "pad"))
    return lax.concatenate([pieces[0], array, pieces[1]], axis)


def _pad_with_function(array: Any, widths: np.ndarray, function: Any, kwargs: dict) -> Any:
    """A function mode, as JAX's: the array padded with zeros, then
    ``function(vector, (before, after), axis, kwargs)`` applied along each
    axis in turn (`apply_along_axis`), its result the new vector."""
    from ._functional import apply_along_axis
    padded = _pad_constant(array, widths, 0)
    for axis in range(padded.ndim):
        padded = apply_along_axis(function, axis, padded, tuple(int(w) for w in widths[axis]), axis, kwargs)
    return padded


def _pad_constant(array: Any, widths: np.ndarray, values: Any) -> Any:
    config = [(int(lo), int(hi), 0) for lo, hi in widths]
    if isinstance(values, ArrayBase) and values.ndim == 0:
        return lax.pad(array, lax.convert_element_type(values, array.dtype), config)
    if isinstance(values, core.Tracer):
        pairs = _broadcast_to(lax.convert_element_type(values, array.dtype), (array.ndim, 2), "pad")
        sides = [[pairs[d, k] for k in range(2)] for d in range(array.ndim)]
    else:
        static = np.asarray(values)
        if static.ndim == 0:
            return lax.pad(array, lax.constant(static.astype(array.dtype)), config)
        pairs = _pad_pairs(static, array.ndim, "constant_values").astype(array.dtype)
        if np.all(pairs == pairs.flat[0]):
            return lax.pad(array, lax.constant(pairs.flat[0]), config)
        sides = [[lax.constant(pairs[d, k]) for k in range(2)] for d in range(array.ndim)]
    # Different values per side: pad one side at a time, axis by axis (as NumPy).
    for d, (lo, hi, _) in enumerate(config):
        for k, width in enumerate((lo, hi)):
            if width:
                side = [(0, 0, 0)] * array.ndim
                side[d] = (width, 0, 0) if k == 0 else (0, width, 0)
                array = lax.pad(array, sides[d][k], side)
    return array


# ---------------------------------------------------------------------------
# Broadcasting and at-least-n-d
# ---------------------------------------------------------------------------

def broadcast_to(array: Any, shape: Any) -> Any:
    """`array` broadcast to `shape` (NumPy's rules)."""
    return _broadcast_to(array, static_shape(shape, "broadcast_to"), "broadcast_to")


def broadcast_arrays(*args: Any) -> list[Any]:
    """The arguments broadcast to their common shape (dtypes unchanged)."""
    arrays = [asarray(a, fn="broadcast_arrays") for a in args]
    shape = broadcast_shapes("broadcast_arrays", *[a.shape for a in arrays])
    return [_broadcast_to(a, shape, "broadcast_arrays") for a in arrays]


def _atleast(arys: Sequence[Any], ndim: int, fn: str) -> Any:
    out = []
    for a in arys:
        a = asarray(a, fn=fn)
        if a.ndim < ndim:
            if a.ndim == 0:
                shape = (1,) * ndim
            elif a.ndim == 1:
                shape = (1, a.shape[0], 1)[:ndim] if ndim == 3 else (1, a.shape[0])
            else:
                shape = a.shape + (1,)
            a = lax.reshape(a, shape)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys: Any) -> Any:
    """Each argument with at least 1 dimension (a list when several)."""
    return _atleast(arys, 1, "atleast_1d")


def atleast_2d(*arys: Any) -> Any:
    """At least 2-d: a 1-d array of n becomes shape (1, n)."""
    return _atleast(arys, 2, "atleast_2d")


def atleast_3d(*arys: Any) -> Any:
    """At least 3-d: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)."""
    return _atleast(arys, 3, "atleast_3d")


# ---------------------------------------------------------------------------
# Taking
# ---------------------------------------------------------------------------

_TAKE_MODES = {None: "fill", "fill": "fill", "clip": "clamp", "wrap": "wrap"}


def _take_mode(mode: Any, fn: str) -> str:
    if mode == "raise":
        raise NotImplementedError(f"jnp.{fn}: mode='raise' is not supported (compiled code cannot "
                                  "raise); use 'fill', 'clip' or 'wrap'")
    if mode not in _TAKE_MODES:
        raise ValueError(f"jnp.{fn}: invalid mode {mode!r} (expected 'fill', 'clip' or 'wrap')")
    return _TAKE_MODES[mode]


def _index_array(indices: Any, fn: str) -> Any:
    """Integer indices as a NumPy array (static) or an Array/Tracer."""
    check_arraylike(fn, indices)
    if not isinstance(indices, ArrayBase):
        indices = np.asarray(indices)
        if indices.dtype == object:
            indices = asarray(indices.tolist(), fn=fn, lists=True)
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"jnp.{fn}: indices must be integers, got {np.dtype(indices.dtype).name}")
    return indices


def take(a: Any, indices: Any, axis: int | None = None, out: None = None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False, fill_value: Any = None) -> Any:
    """Elements of `a` at `indices` along `axis` (flattened when None).

    As in JAX (not NumPy), out-of-range indices do not raise: the default
    mode "fill" returns `fill_value` (NaN for floats, the most negative
    signed int, the largest unsigned int, True for bools) for them, and
    negative indices in [-n, 0) count from the end; "clip" clamps into
    range (negative indices to 0, as NumPy); "wrap" takes them modulo the
    axis size."""
    fn = "take"
    if out is not None:
        raise NotImplementedError("jnp.take: the out argument is not supported (arrays are immutable)")
    a = asarray(a, fn=fn)
    mode = _take_mode(mode, fn)
    indices = _index_array(indices, fn)
    if axis is None:
        a = ravel(a)
        axis = 0
    ax = canonicalize_axis(axis, a.ndim, fn)
    if a.shape[ax] == 0 and np.size(indices):
        raise IndexError("jnp.take: cannot do a non-empty take from an empty axis")
    index = (slice(None),) * ax + (indices if np.ndim(indices) else _as_1d(indices),)
    result = _indexing.take_indices(a, index, mode, fill_value, f"jnp.{fn}")
    if np.ndim(indices) == 0:
        result = lax.reshape(result, a.shape[:ax] + a.shape[ax + 1:])
    return result


def _as_1d(indices: Any) -> Any:
    return lax.reshape(indices, (1,)) if isinstance(indices, ArrayBase) else np.reshape(indices, (1,))


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1, mode: str | None = None,
                    fill_value: Any = None, *, wrap_negative_indices: bool | None = None) -> Any:
    """``result[..., j, ...] = arr[..., indices[..., j, ...], ...]`` along
    `axis`; other dimensions broadcast. Out-of-range indices give
    `fill_value` by default (mode "fill", as in JAX; "clip" clamps).
    Negative indices count from the end unless `wrap_negative_indices` is
    False (default: True, except for mode "promise_in_bounds")."""
    fn = "take_along_axis"
    arr = asarray(arr, fn=fn)
    wrap = mode != "promise_in_bounds" if wrap_negative_indices is None else wrap_negative_indices
    mode = "clamp" if mode == "promise_in_bounds" else _take_mode(mode, fn)
    indices = _index_array(indices, fn)
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError(f"jnp.{fn}: when axis is None, indices must be 1-d, got shape "
                             f"{np.shape(indices)}")
        arr = ravel(arr)
        axis = 0
    if np.ndim(indices) != arr.ndim:
        raise ValueError(f"jnp.{fn}: indices and arr must have the same number of dimensions, got "
                         f"{np.shape(indices)} and {arr.shape}")
    ax = canonicalize_axis(axis, arr.ndim, fn)
    if mode == "clamp" and wrap:
        mode = "clip"  # negative indices wrapped, then clamped
    if mode == "fill" and not wrap and not dtypes.is_unsigned(indices.dtype):  # negatives are out of range
        indices = asarray(indices)
        if indices.dtype.itemsize < dtypes.default_int().itemsize:
            indices = lax.convert_element_type(indices, dtypes.default_int())
        negative = lax.lt(indices, lax.full_like(indices, 0))
        indices = lax.select(negative, lax.full_like(indices, arr.shape[ax]), indices)
    shape = []
    for d, (m, n) in enumerate(zip(arr.shape, np.shape(indices))):
        if d == ax:
            shape.append(n)
        elif m != n and 1 not in (m, n):
            raise ValueError(f"jnp.{fn}: arr of shape {arr.shape} and indices of shape {np.shape(indices)} "
                             f"do not broadcast along dimension {d}")
        else:
            shape.append(max(m, n) if min(m, n) else 0)
    if arr.shape[ax] == 0:
        return lax.full(tuple(shape), 0, arr.dtype)
    index = []
    for d in range(arr.ndim):
        if d == ax:
            index.append(indices)
        else:
            position = np.arange(shape[d]) if arr.shape[d] != 1 else np.zeros(shape[d], np.int64)
            index.append(position.reshape([-1 if e == d else 1 for e in range(arr.ndim)]))
    return _indexing.take_indices(arr, tuple(index), mode, fill_value, f"jnp.{fn}")


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

def _sort_operand(a: Any, axis: Any, kind: Any, order: Any, fn: str) -> tuple[Any, int]:
    if kind is not None:  # JAX's TypeErrors
        raise TypeError(f"jnp.{fn}: the 'kind' argument is not supported. Use stable=True or stable=False "
                        "to specify sort stability.")
    if order is not None:
        raise TypeError(f"jnp.{fn}: the 'order' argument is not supported.")
    a = asarray(a, fn=fn)
    if axis is None:
        return ravel(a), 0
    return a, canonicalize_axis(axis, a.ndim, fn)


def sort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
         descending: bool = False) -> Any:
    """Sorted copy along `axis` (flattened when None); NaNs go last (first
    when descending), -0.0 and 0.0 are equal."""
    a, ax = _sort_operand(a, axis, kind, order, "sort")
    if a.shape[ax] <= 1:
        return a
    if descending:
        return lax.rev(lax.sort(a, ax, is_stable=True), (ax,))
    return lax.sort(a, ax, is_stable=True)


def sort_complex(a: Any) -> Any:
    """`a` sorted along its last axis (real part, then imaginary), as a
    complex array (real inputs are promoted, as in JAX)."""
    a = asarray(a, fn="sort_complex")
    out = sort(a, axis=-1)
    return lax.convert_element_type(out, dtypes.complex_dtype(dtypes.to_inexact(a.dtype)))


def argsort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None, stable: bool = True,
            descending: bool = False, dtype: Any = None) -> Any:
    """Indices that sort `a` along `axis` (stable: equal elements keep their
    order, also when descending); the default int dtype unless `dtype`."""
    a, ax = _sort_operand(a, axis, kind, order, "argsort")
    if dtype is not None:
        return lax.convert_element_type(argsort(a, ax, stable=stable, descending=descending), dtype)
    index_dtype = dtypes.default_int()
    n = a.shape[ax]
    if n <= 1:
        return lax.full(a.shape, 0, index_dtype)
    if descending:
        a = lax.rev(a, (ax,))
    iota = lax.broadcasted_iota(index_dtype, a.shape, ax)
    _, indices = lax.sort((a, iota), ax, is_stable=True, num_keys=1)
    if descending:
        indices = lax.sub(lax.full_like(indices, n - 1), lax.rev(indices, (ax,)))
    return indices


# ---------------------------------------------------------------------------
# Nonzero
# ---------------------------------------------------------------------------

def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
    """The indices of the nonzero elements, one array per dimension.

    Without `size` the values must be concrete (not under jit). With `size`
    the result has exactly `size` entries: the first ones, then
    `fill_value` (default 0; a scalar or one value per dimension)."""
    fn = "nonzero"
    a = asarray(a, fn=fn)
    if a.ndim == 0:
        raise ValueError("jnp.nonzero: calling nonzero on 0-d arrays is not allowed; use "
                         "jnp.atleast_1d(x).nonzero() instead")
    index_dtype = dtypes.default_int()
    if size is None:
        if isinstance(a, core.Tracer):
            raise core.ConcretizationTypeError(
                a, "jnp.nonzero without size= (the number of nonzero elements sets the output shape; "
                "pass size=... and fill_value=... to use it under jit)")
        return tuple(lax.constant(i.astype(index_dtype)) for i in np.nonzero(np.asarray(a)))
    size = _static_int(size, "size", fn)
    fills = _per_dim(fill_value, a.ndim, fn)
    if size == 0 or a.size == 0:
        return tuple(lax.full((size,), f, index_dtype) for f in fills)
    mask = lax.reshape(a if a.dtype == np.bool_ else lax.ne(a, lax.full_like(a, 0)), (a.size,))
    counts = lax.convert_element_type(mask, dtypes.int32)
    slot = lax.sub(lax.cumsum(counts, 0), lax.full_like(counts, 1))
    slot = lax.select(mask, slot, lax.full_like(slot, size))  # unselected -> out of range, dropped
    flat = lax.scatter(lax.full((size,), 0, dtypes.int32), lax.reshape(slot, (a.size, 1)),
                       lax.iota(dtypes.int32, a.size), lax.ScatterDimensionNumbers((), (0,), (0,)), "set")
    count = lax.broadcast_in_dim(lax.reduce_sum(counts, (0,)), (size,), ())
    valid = lax.lt(lax.iota(dtypes.int32, size), count)
    out = []
    stride = a.size
    for d, n in enumerate(a.shape):
        stride //= n
        coord = lax.rem(lax.div(flat, lax.full_like(flat, stride)), lax.full_like(flat, n))
        coord = lax.convert_element_type(coord, index_dtype)
        out.append(lax.select(valid, coord, lax.full((size,), fills[d], index_dtype)))
    return tuple(out)


def _per_dim(fill_value: Any, ndim: int, fn: str) -> list[Any]:
    if fill_value is None:
        return [0] * ndim
    if isinstance(fill_value, core.Tracer):
        raise core.ConcretizationTypeError(fill_value, f"fill_value of jnp.{fn}")
    values = np.asarray(fill_value)
    if values.ndim == 0:
        return [values.item()] * ndim
    if values.shape != (ndim,):
        raise ValueError(f"jnp.{fn}: fill_value must be a scalar or have one value per dimension "
                         f"({ndim}), got shape {values.shape}")
    return values.tolist()


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Indices of the nonzero elements of the flattened array."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Indices of the nonzero elements as rows of shape (count, ndim)."""
    a = asarray(a, fn="argwhere")
    columns = nonzero(atleast_1d(a), size=size, fill_value=fill_value)
    if a.ndim == 0:
        return lax.full((columns[0].shape[0], 0), 0, dtypes.default_int())
    return stack(columns, axis=1)


# ---------------------------------------------------------------------------
# Dtype and shape queries
# ---------------------------------------------------------------------------

def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """`x` converted to `dtype` (floats to ints truncate toward zero and
    saturate, NaN to 0; to bool: x != 0); the result is strongly typed, on
    `device` if given."""
    return place(lax.convert_element_type(asarray(x, fn="astype"), dtype), device, "jnp.astype")


def ndim(a: Any) -> int:
    """Number of dimensions."""
    return a.ndim if isinstance(a, ArrayBase) else np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    """The shape."""
    return a.shape if isinstance(a, ArrayBase) else np.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    """Number of elements (along `axis` when given)."""
    dims = shape(a)
    if axis is None:
        return int(np.prod(dims, dtype=np.int64))
    return dims[canonicalize_axis(axis, len(dims), "size")]
