"""Functional helpers of `jaxc.numpy` (issue #17): `vectorize` (with
`excluded` and gufunc `signature`), `apply_along_axis`, `apply_over_axes`,
`piecewise`, `fromfunction` (all built on `jaxc.vmap`), and `choose`,
`put_along_axis`, `resize`, `block`.

    norms = jnp.vectorize(jnp.linalg.norm, signature="(n)->()")(x)    # (..., n) -> (...)
    jnp.piecewise(x, [x < 0, x > 1], [lambda v: v ** 2, 1.0, 0.5])
    jnp.put_along_axis(a, idx, 0.0, axis=1, inplace=False)

As in JAX, the mapped functions see the same shapes they would in a
Python loop (scalars for `vectorize` without a signature, for `piecewise`
and `fromfunction`; 1-d slices for `apply_along_axis`) but are traced once
and batched. Arrays are immutable: `put_along_axis` needs
``inplace=False``.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Sequence

import numpy as np

from .. import core, dtypes, lax
from ..core import ArrayBase
from . import _creation, _elementwise as _ew, _shape
from ._util import asarray, broadcast_shapes, broadcast_to, canonicalize_axis, check_arraylike, promote_dtypes

__all__ = ["vectorize", "apply_along_axis", "apply_over_axes", "piecewise", "fromfunction", "choose",
           "put_along_axis", "resize", "block"]


def _strong(x: Any) -> Any:
    """`x` without the weak type (results that JAX gives as strong arrays)."""
    return lax._with_weak(x, False) if x.weak_type else x


def _vmap(fn: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    from .._batching import vmap  # imported late: jaxc.numpy loads before the transformations
    return vmap(fn, in_axes=in_axes, out_axes=out_axes)


# ---------------------------------------------------------------------------
# vectorize
# ---------------------------------------------------------------------------

_NAME = r"\w+"
_CORE = rf"\((?:{_NAME}(?:,{_NAME})*)?\)"
_ARGS = rf"{_CORE}(?:,{_CORE})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    text = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(text):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = text.split("->")

    def dims(part: str) -> list[tuple[str, ...]]:
        return [tuple(re.findall(_NAME, group)) for group in re.findall(r"\(([^)]*)\)", part)]
    return dims(inputs), dims(outputs)


def _bind_core_sizes(shape: tuple[int, ...], names: tuple[str, ...], sizes: dict[str, int], what: str,
                     where: str) -> None:
    core_shape = shape[len(shape) - len(names):] if names else ()
    for name, size in zip(names, core_shape):
        known = sizes.setdefault(name, size)
        if known != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs {known} {where}")


def vectorize(pyfunc: Callable, *, excluded: Any = frozenset(), signature: str | None = None) -> Callable:
    """`pyfunc` made to broadcast over leading dimensions, with `jaxc.vmap`.

    Without `signature`, pyfunc sees 0-d arrays (its arguments broadcast
    together) and may return any shape, or a tuple. With a gufunc
    `signature` such as ``'(m,n),(n)->(m)'``, each argument's trailing
    dimensions are its core dimensions (sizes checked for consistency) and
    the results must have the declared core shapes. `excluded` names
    positional indices or keyword names passed through unchanged; other
    keyword arguments are vectorized after the positional ones."""
    excluded = frozenset(excluded)
    for e in excluded:
        if not isinstance(e, (int, str)) or isinstance(e, bool):
            raise TypeError(f"jnp.vectorize: excluded must hold ints and strings, got {e!r}")
    where = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        positions = [i for i in range(len(args)) if i not in excluded]
        names = [name for name in kwargs if name not in excluded]
        fixed_kwargs = {name: value for name, value in kwargs.items() if name in excluded}
        arrays = [asarray(args[i], fn="vectorize", lists=True) for i in positions]
        arrays += [asarray(kwargs[name], fn="vectorize", lists=True) for name in names]

        def call(*values: Any) -> Any:
            full = list(args)
            for i, v in zip(positions, values):
                full[i] = v
            named = dict(fixed_kwargs)
            named.update(zip(names, values[len(positions):]))
            return pyfunc(*full, **named)

        if signature is None:
            in_core: list[tuple[str, ...]] = [()] * len(arrays)
            out_core = None
        else:
            in_core, out_core = _parse_signature(signature)
            if len(in_core) != len(arrays):
                raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, got "
                                f"{len(arrays)} {where}")
        sizes: dict[str, int] = {}
        batch_shapes = []
        for array, names_ in zip(arrays, in_core):
            if array.ndim < len(names_):
                raise ValueError(f"input with shape {array.shape} does not have enough dimensions for all "
                                 f"core dimensions {names_!r} {where}")
            _bind_core_sizes(array.shape, names_, sizes, "input", where)
            batch_shapes.append(array.shape[:array.ndim - len(names_)])
        try:
            batch = broadcast_shapes("vectorize", *batch_shapes)
        except ValueError:
            raise ValueError(f"jnp.vectorize: the loop dimensions {batch_shapes} do not broadcast "
                             f"{where}") from None
        arrays = [broadcast_to(a, batch + a.shape[a.ndim - len(names_):], "vectorize")
                  for a, names_ in zip(arrays, in_core)]

        def checked(*values: Any) -> Any:
            out = call(*values)
            if out_core is None:
                return out
            outs = out if len(out_core) > 1 else (out,)
            if len(out_core) > 1 and not isinstance(out, tuple):
                raise TypeError(f"output must be a tuple when multiple outputs are expected, got {out!r} {where}")
            if len(out_core) == 1 and isinstance(out, tuple):
                raise TypeError(f"wrong number of output arguments: expected 1, got {len(out)} {where}")
            if len(outs) != len(out_core):
                raise TypeError(f"wrong number of output arguments: expected {len(out_core)}, got "
                                f"{len(outs)} {where}")
            outs = tuple(asarray(o, fn="vectorize", lists=True) for o in outs)
            local = dict(sizes)
            for o, names_ in zip(outs, out_core):
                if o.ndim != len(names_):
                    raise ValueError(f"output shape {o.shape} does not match core dimensions {names_!r} {where}")
                _bind_core_sizes(o.shape, names_, local, "output", where)
            return outs if len(out_core) > 1 else outs[0]

        fn = checked
        for _ in batch:
            fn = _vmap(fn)
        return fn(*arrays)

    return wrapped


# ---------------------------------------------------------------------------
# apply_along_axis, apply_over_axes, piecewise, fromfunction
# ---------------------------------------------------------------------------

def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d(v, *args, **kwargs)`` for every 1-d slice v of `arr` along
    `axis`; the result's dimensions replace that axis (a scalar result
    removes it)."""
    check_arraylike("apply_along_axis", arr)
    arr = asarray(arr, fn="apply_along_axis")
    if isinstance(axis, (float, np.floating)):
        raise TypeError(f"jnp.apply_along_axis: axis must be an int, got {axis!r}")
    axis = canonicalize_axis(axis, arr.ndim, "apply_along_axis")

    def fn(v: Any) -> Any:
        return func1d(v, *args, **kwargs)
    for _ in range(axis + 1, arr.ndim):  # the dimensions after axis stay last
        fn = _vmap(fn, in_axes=-1, out_axes=-1)
    for _ in range(axis):
        fn = _vmap(fn, in_axes=0, out_axes=0)
    return fn(arr)


def apply_over_axes(func: Callable, a: Any, axes: Sequence[int]) -> Any:
    """``func(a, axis)`` applied for each axis in turn; a result with one
    dimension fewer gets the axis back (size 1), so reductions keep it."""
    check_arraylike("apply_over_axes", a)
    a = asarray(a, fn="apply_over_axes")
    try:
        axes = list(axes)
    except TypeError:
        raise TypeError(f"jnp.apply_over_axes: axes must be a sequence of ints, got {axes!r}") from None
    ndim = a.ndim
    for axis in axes:
        axis = _shape._static_int(axis, "axes", "apply_over_axes")
        if axis < 0:
            axis += ndim
        out = asarray(func(a, axis), fn="apply_over_axes")
        if out.ndim == a.ndim:
            a = out
        elif out.ndim == a.ndim - 1:
            a = _shape.expand_dims(out, axis)
        else:
            raise ValueError(f"jnp.apply_over_axes: function is not returning an array of the correct shape "
                             f"(got {out.shape} from an input of shape {a.shape})")
    return a


def _elementwise(fn: Callable, x: Any, dtype: np.dtype, what: str) -> Any:
    """``fn`` applied to every element of `x` (it sees 0-d arrays), cast to `dtype`."""
    def scalar(e: Any) -> Any:
        out = asarray(fn(e), fn="piecewise", lists=True)
        if out.ndim != 0:
            raise ValueError(f"jnp.piecewise: {what} must return a scalar for a scalar input, got shape "
                             f"{out.shape}")
        return lax.convert_element_type(out, dtype)
    flat = _vmap(scalar)(_shape.ravel(x))
    return lax.reshape(flat, x.shape)


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """Where ``condlist[i]`` holds, ``funclist[i]`` (a function of x's
    elements, called with `args` and `kw`, or a constant); where several
    hold, the last one wins; where none does, ``funclist[n]`` if given, else
    0. Results are cast to x's dtype."""
    check_arraylike("piecewise", x)
    x = asarray(x, fn="piecewise")
    conds = asarray(condlist, fn="piecewise", lists=True)
    if conds.dtype != np.bool_:
        conds = lax.ne(conds, lax.full_like(conds, 0))
    if conds.ndim == 0:
        conds = lax.reshape(conds, (1,))
    n = conds.shape[0]
    funcs = list(funclist)
    if len(funcs) not in (n, n + 1):
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected; got "
                         f"{len(funcs)}")
    try:
        broadcast_shapes("piecewise", conds.shape[1:], x.shape)
    except ValueError:
        raise ValueError(f"jnp.piecewise: conditions of shape {conds.shape[1:]} do not broadcast to x's "
                         f"shape {x.shape}") from None
    conds = broadcast_to(conds, (n,) + x.shape, "piecewise")

    def value(f: Any, i: int) -> Any:
        if callable(f):
            return _elementwise(lambda e: f(e, *args, **kw), x, x.dtype, f"funclist[{i}]")
        return broadcast_to(lax.convert_element_type(asarray(f, fn="piecewise", lists=True), x.dtype),
                            x.shape, "piecewise")
    result = value(funcs[n], n) if len(funcs) == n + 1 else lax.full(x.shape, 0, x.dtype)
    for i in range(n):
        result = lax.select(lax.index_in_dim(conds, i, 0, False), value(funcs[i], i), result)
    return _strong(result)


def fromfunction(function: Callable, shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """``function(i, j, ..., **kwargs)`` at every index of `shape` (static);
    `function` sees 0-d index arrays of `dtype` (default float), batched by
    vmap, so a constant result is broadcast to `shape`."""
    shape = _shape._static_ints(shape, "shape", "fromfunction")
    dtype = dtypes.canonicalize(dtype)
    n = len(shape)

    def fn(*index: Any) -> Any:
        return function(*index, **kwargs)
    for i in reversed(range(n)):
        fn = _vmap(fn, in_axes=tuple(0 if j == i else None for j in range(n)))
    return fn(*[_creation.arange(d, dtype=dtype) for d in shape])


# ---------------------------------------------------------------------------
# choose, put_along_axis, resize, block
# ---------------------------------------------------------------------------

def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
    """``choices[a[I]][I]`` for every index I of the broadcast shape. Indices
    outside [0, n) raise ValueError with mode 'raise' (which needs a
    concrete `a`, not under jit), wrap modulo n with 'wrap', or clip to the
    ends with 'clip'."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported (arrays are immutable).")
    check_arraylike("choose", a)
    a = asarray(a, fn="choose")
    if not dtypes.is_int(a.dtype):
        raise ValueError(f"jnp.choose: `a` array must be integer typed, got {a.dtype}")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    if isinstance(choices, (ArrayBase, np.ndarray)):
        rows: Any = choices  # indexable (jnp attaches the indexing of ArrayBase)
        choices = [rows[i] for i in range(rows.shape[0])] if rows.ndim else [rows]
    choices = list(choices)
    if not choices:
        raise ValueError("jnp.choose: choices must not be empty")
    n = len(choices)
    choices = promote_dtypes("choose", *[c if isinstance(c, (ArrayBase, bool, int, float)) else
                                         asarray(c, fn="choose") for c in choices])
    shape = broadcast_shapes("choose", a.shape, *[c.shape for c in choices])
    if mode == "raise":
        values = core.concrete(a, "the a argument of jnp.choose with mode='raise' (use mode='wrap' or "
                                  "mode='clip' under jit)") if isinstance(a, core.Tracer) else np.asarray(a)
        if values.size and (values.min() < 0 or values.max() >= n):
            raise ValueError(f"jnp.choose: invalid entry in choice array (indices must be in [0, {n}))")
    elif mode == "wrap":
        a = _ew.remainder(a, n)
    else:
        a = _ew.clip(a, 0, n - 1)
    a = broadcast_to(a, shape, "choose")
    result = broadcast_to(choices[0], shape, "choose")
    for i in range(1, n):
        result = lax.select(lax.eq(a, lax.full_like(a, i)), broadcast_to(choices[i], shape, "choose"), result)
    return _strong(result)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None, inplace: bool = True, *,
                   mode: str | None = None) -> Any:
    """A copy of `arr` with ``values`` written at `indices` along `axis` (the
    inverse of `take_along_axis`; other dimensions broadcast). Negative
    indices count from the end; by default (mode None or 'drop')
    out-of-range ones are dropped, 'clip' clamps them. Arrays are
    immutable: pass ``inplace=False``."""
    fn = "put_along_axis"
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike(fn, arr)
    check_arraylike(fn, indices)
    check_arraylike(fn, values)
    arr = asarray(arr, fn=fn)
    indices = asarray(indices, fn=fn)
    values = asarray(values, fn=fn)
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"jnp.{fn}: indices must be integers, got {indices.dtype}")
    original = arr.shape
    if axis is None:
        arr = _shape.ravel(arr)
        axis = 0
    if indices.ndim != arr.ndim:
        raise ValueError(f"put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={arr.ndim} and indices.ndim={indices.ndim}.")
    axis = canonicalize_axis(axis, arr.ndim, fn)
    try:
        values = broadcast_to(values, indices.shape, fn)
    except ValueError:
        raise ValueError(f"put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
                         f"values.shape={values.shape} and indices.shape={indices.shape}.") from None
    sizes = []
    for d, (m, k) in enumerate(zip(arr.shape, indices.shape)):
        if d == axis:
            sizes.append(k)
        elif m != k and k != 1:
            raise ValueError(f"jnp.{fn}: indices of shape {indices.shape} do not broadcast against arr of "
                             f"shape {arr.shape} along dimension {d}")
        else:
            sizes.append(m)
    shape = tuple(sizes)
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(broadcast_to(indices, shape, fn))
        else:
            index.append(np.arange(shape[d]).reshape([-1 if e == d else 1 for e in range(arr.ndim)]))
    out = arr.at[tuple(index)].set(broadcast_to(values, shape, fn), mode=mode)
    return lax.reshape(out, original) if out.shape != original else out


def resize(a: Any, new_shape: Any) -> Any:
    """An array of `new_shape` filled with a's flattened values, repeated as
    often as needed (zeros when `a` is empty)."""
    check_arraylike("resize", a)
    a = asarray(a, fn="resize")
    if isinstance(new_shape, (float, np.floating)):
        raise TypeError(f"jnp.resize: new_shape must be an int or a sequence of ints, got {new_shape!r}")
    shape = _shape._static_ints(new_shape, "new_shape", "resize")
    if any(d < 0 for d in shape):
        raise ValueError(f"jnp.resize: all elements of `new_shape` must be non-negative, got {shape}")
    size = int(np.prod(shape, dtype=np.int64))
    flat = _shape.ravel(a)
    if flat.shape[0] == 0:
        return lax.full(shape, 0, a.dtype)
    repeats = -(-size // flat.shape[0])
    if repeats > 1:
        flat = _shape.tile(flat, repeats)
    flat = lax.slice_in_dim(flat, 0, size, 1, 0)
    return lax.reshape(flat, shape)


def _block_depth(arrays: Any, path: str) -> int:
    if isinstance(arrays, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {arrays!r} at arrays{path}")
    if isinstance(arrays, list):
        if not arrays:
            raise ValueError(f"jax.numpy.block does not allow empty list arguments (arrays{path})")
        depths = {_block_depth(item, f"{path}[{i}]") for i, item in enumerate(arrays)}
        if len(depths) != 1:
            raise ValueError(f"Mismatched list depths in jax.numpy.block (arrays{path})")
        return depths.pop() + 1
    return 0


def _block_leaves(arrays: Any) -> list[Any]:
    if isinstance(arrays, list):
        return [leaf for item in arrays for leaf in _block_leaves(item)]
    return [arrays]


def block(arrays: Any) -> Any:
    """An array assembled from nested lists of blocks: the innermost lists
    join along the last axis, the next ones along the second-to-last, and
    so on; blocks get leading axes of size 1 up to the common rank."""
    depth = _block_depth(arrays, "")
    if depth == 0:
        check_arraylike("block", arrays)
        return asarray(arrays, fn="block")
    leaves = _block_leaves(arrays)
    for leaf in leaves:
        check_arraylike("block", leaf)
    promoted = iter(promote_dtypes("block", *leaves))
    ndim = max([depth] + [np.ndim(leaf) for leaf in leaves])

    def build(item: Any, level: int) -> Any:
        if level == depth:
            leaf = next(promoted)
            return lax.reshape(leaf, (1,) * (ndim - leaf.ndim) + leaf.shape) if leaf.ndim < ndim else leaf
        parts = [build(sub, level + 1) for sub in item]
        return _shape.concatenate(parts, axis=ndim - depth + level)
    return build(arrays, 0)
