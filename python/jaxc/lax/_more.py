"""More of JAX's `jax.lax` names, built from the other lax functions (no
ops of their own): windowed and general reductions, convolution wrappers,
slicing conveniences, `top_k`, scans and a few special functions.

    lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        -> a pad with the init value, one strided slice per window offset,
           combined with lax.max (no reduce-window op)
    lax.associative_scan(jnp.add, x)    -> O(n log n) odd/even recursion
    lax.top_k(x, 3)                     -> 3 rounds of max, then first index, over the
                                           3 chunks with the largest maxima

`reduce_window` and `reduce` take any `computation` that works elementwise
on arrays (JAX calls it on scalars; here it is called on whole slices):
lax.add/mul/max/min and bitwise and/or with their identity as init value
map to jaxc's reductions directly; anything else is combined pairwise.
"""
from __future__ import annotations

import builtins
import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

import jaxc.dialect as jd

from .. import core, dtypes, tree_util
from . import _ops as L

__all__ = [
    "reduce_window", "reduce", "reduce_xor", "conv", "conv_with_general_padding", "conv_transpose",
    "conv_general_dilated_patches", "dynamic_slice_in_dim", "dynamic_update_slice_in_dim",
    "dynamic_index_in_dim", "square", "reciprocal", "erfc", "collapse", "broadcast_to_rank",
    "broadcast_shapes", "select_n", "top_k", "cumlogsumexp", "associative_scan", "batch_matmul",
    "zeta", "polygamma", "igamma", "igammac",
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _concrete(x: Any) -> np.ndarray | None:
    """The value of `x` when it is known now (not a tracer), else None."""
    if isinstance(x, core.Tracer):
        return None
    try:
        return np.asarray(x)
    except Exception:  # noqa: BLE001 -- anything that is not a plain value
        return None


def _identity(kind: str, dtype: np.dtype) -> Any:
    """The identity of a monoid reduction for `dtype`."""
    dtype = np.dtype(dtype)
    if kind == "sum" or kind == "or":
        return dtype.type(0)
    if kind == "prod":
        return dtype.type(1)
    if dtype == np.bool_:
        return {"max": False, "min": True, "and": True}[kind]
    if dtypes.is_float(dtype):
        return {"max": -np.inf, "min": np.inf}[kind]
    info = np.iinfo(dtype)
    return {"max": info.min, "min": info.max, "and": -1 if info.min < 0 else info.max}[kind]


# computation -> the jaxc reduction it is, when the init value is its identity
_MONOIDS = {L.add: "sum", L.mul: "prod", L.max: "max", L.min: "min", L.bitwise_and: "and",
            L.bitwise_or: "or"}
_REDUCERS = {"sum": L.reduce_sum, "prod": L.reduce_prod, "max": L.reduce_max, "min": L.reduce_min,
             "and": L.reduce_and, "or": L.reduce_or}


def _is_identity(computation: Any, inits: Sequence[Any], dtype: np.dtype) -> str | None:
    """The monoid kind when `computation` is one of lax's and the (single)
    init value is known and is its identity, else None."""
    kind = _MONOIDS.get(computation) if len(inits) == 1 else None
    if kind is None or (kind in ("and", "or") and dtypes.is_float(dtype)):
        return None
    value = _concrete(inits[0])
    if value is None or value.shape != ():
        return None
    with np.errstate(invalid="ignore"):
        return kind if bool(value == _identity(kind, dtype)) else None


def _operands_and_inits(what: str, operands: Any, init_values: Any) -> tuple[list, list, Any]:
    """Flattened operands (arrays of one shape) and init values (0-d arrays
    of each operand's dtype), and the operands' tree structure."""
    flat, tree = tree_util.tree_flatten(operands)
    inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: {tree} vs. {init_tree}")
    if not flat:
        raise ValueError(f"{what} must have at least one operand.")
    xs = [L._array(x, what) for x in flat]
    if any(x.shape != xs[0].shape for x in xs[1:]):
        raise ValueError(f"{what} operands must all have the same shape, got "
                         f"{', '.join(str(x.shape) for x in xs)}")
    out = []
    for x, init in zip(xs, inits):
        init = L._like(init, what, x.dtype)
        if init.ndim != 0:
            raise TypeError(f"{what}: init values must be scalars, got shape {init.shape}")
        if init.dtype != x.dtype:
            init = L.convert_element_type(init, x.dtype)
        out.append(init)
    return xs, out, tree


def _combiner(what: str, computation: Callable, tree: Any) -> Callable[[list, list], list]:
    """`computation` on flat lists of leaves (called on pytrees like `tree`)."""
    if not callable(computation):
        raise TypeError(f"lax.{what}: computation must be callable, got {type(computation).__name__}")

    def combine(a: list, b: list) -> list:
        out = computation(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        leaves, out_tree = tree_util.tree_flatten(out)
        if out_tree != tree:
            raise ValueError(f"{what} output must have the same tree structure as the operands "
                             f"{tree} vs. {out_tree}")
        return [L._array(leaf, what) for leaf in leaves]
    return combine


def _filled(init: Any, shape: Sequence[int]) -> Any:
    return L.broadcast_in_dim(init, tuple(shape), ())


def _positive(values: tuple[int, ...], what: str, name: str) -> tuple[int, ...]:
    if any(v <= 0 for v in values):
        raise TypeError(f"{what} {name} must have every element be strictly positive, got {values}.")
    return values


# ---------------------------------------------------------------------------
# Windowed and general reductions
# ---------------------------------------------------------------------------

def reduce_window(operand: Any, init_value: Any, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding: Any = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """XLA's ReduceWindow: `computation` over the windows of `operand` (an
    array or a pytree of arrays, with `init_value` of the same structure).

    The operand is dilated by `base_dilation` and padded (`padding`:
    "VALID", "SAME", "SAME_LOWER" or (low, high) pairs) with the init value;
    the window, dilated by `window_dilation`, steps by `window_strides`.
    Built as one strided slice per window offset, combined in the window's
    row-major order; with lax.add/mul/max/min and their identity as init
    value that is all. Otherwise the init value is combined in first and,
    as in XLA, padding and dilation holes are skipped (masked out)."""
    what = "reduce_window"
    xs, inits, tree = _operands_and_inits(what, operand, init_value)
    combine = _combiner(what, computation, tree)
    shape = xs[0].shape
    ndim = len(shape)
    window = L._ints(window_dimensions, what, "window_dimensions")
    if len(window) != ndim:
        raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: got operand "
                        f"shape {shape} with window_dimensions {window}.")

    def per_dim(values: Any, name: str) -> tuple[int, ...]:
        if values is None:
            return (1,) * ndim
        values = L._ints(values, what, name)
        if len(values) != ndim:
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got {name} "
                            f"{values} and window_dimensions {window}.")
        return _positive(values, what, name)
    strides = per_dim(window_strides, "window_strides")
    base = per_dim(base_dilation, "base_dilation")
    wdil = per_dim(window_dilation, "window_dilation")
    _positive(window, what, "window_dimensions")
    dilated_window = tuple((w - 1) * d + 1 for w, d in zip(window, wdil))
    if isinstance(padding, str):
        pads = L.padtype_to_pads(shape, dilated_window, strides, padding)
    else:
        try:
            pads = [(int(L.operator_index(lo)), int(L.operator_index(hi))) for lo, hi in padding]
        except (TypeError, ValueError):
            raise ValueError(f"lax.reduce_window: padding must be a string or (low, high) pairs, "
                             f"got {padding!r}") from None
        if len(pads) != ndim:
            raise ValueError(f"lax.reduce_window: padding has {len(pads)} (low, high) pairs for an operand "
                             f"of rank {ndim}")
    padded = [((n - 1) * b + 1 if n else 0) + lo + hi for n, b, (lo, hi) in zip(shape, base, pads)]
    out_shape = tuple(builtins.max((p - w) // s + 1, 0) if p >= w else 0
                      for p, w, s in zip(padded, dilated_window, strides))
    monoid = _is_identity(computation, inits, xs[0].dtype)
    if 0 in out_shape:
        return tree_util.tree_unflatten(tree, [_filled(init, out_shape) for init in inits])
    if any(b != 1 for b in base) or any(lo or hi for lo, hi in pads):
        xs = [L.pad(x, init, [(lo, hi, b - 1) for (lo, hi), b in zip(pads, base)]) for x, init in zip(xs, inits)]
    real = [_real_positions(n, b, lo, hi) for n, b, (lo, hi) in zip(shape, base, pads)]
    result = None if monoid else [_filled(init, out_shape) for init in inits]
    for offset in itertools.product(*(range(w) for w in window)):
        start = [o * d for o, d in zip(offset, wdil)]
        limit = [s0 + (n - 1) * s + 1 for s0, n, s in zip(start, out_shape, strides)]
        pieces = [L.slice(x, start, limit, strides) for x in xs]
        if monoid:  # padding holds the identity: nothing to mask
            result = pieces if result is None else combine(result, pieces)
            continue
        # As XLA does, padding and base-dilation holes are skipped, not
        # combined as init values (which matters when init is no identity).
        mask = np.ones((), bool)
        for d, (r, s0, s1, s) in enumerate(zip(real, start, limit, strides)):
            mask = np.logical_and(mask[..., None], r[s0:s1:s]) if d else r[s0:s1:s]
        if not mask.any():
            continue
        assert result is not None  # filled with the init values before the loop (no monoid)
        combined = combine(result, pieces)
        if not mask.all():
            keep = L.constant(mask)
            combined = [L.select(keep, c, r) for c, r in zip(combined, result)]
        result = combined
    assert result is not None  # the window has positive sizes: the loop ran
    return tree_util.tree_unflatten(tree, result)


def _real_positions(n: int, base: int, lo: int, hi: int) -> np.ndarray:
    """Which positions of one dimension, dilated by `base` and padded by
    (lo, hi), hold an operand element (not padding nor a dilation hole)."""
    real = np.zeros((n - 1) * base + 1 if n else 0, bool)
    real[::base] = True
    real = real[builtins.max(-lo, 0):len(real) - builtins.max(-hi, 0)]
    return np.concatenate([np.zeros(builtins.max(lo, 0), bool), real, np.zeros(builtins.max(hi, 0), bool)])


def _pairwise(xs: list, axis: int, combine: Callable[[list, list], list]) -> list:
    """`xs` reduced along `axis` to size 1 by combining neighbours, halving
    the size each round (order kept, so `combine` need only be associative)."""
    n = xs[0].shape[axis]
    while n > 1:
        half = n // 2
        evens = [L.slice_in_dim(x, 0, 2 * half, 2, axis) for x in xs]
        odds = [L.slice_in_dim(x, 1, 2 * half, 2, axis) for x in xs]
        out = combine(evens, odds)
        if n % 2:
            out = [L.concatenate([o, L.slice_in_dim(x, n - 1, n, 1, axis)], axis) for o, x in zip(out, xs)]
        xs, n = out, half + n % 2
    return xs


def _reduce_dims(what: str, ndim: int, aval: Any, dimensions: Any) -> tuple[int, ...]:
    dims = L._ints(dimensions, what, "dimensions")
    if any(not 0 <= d < ndim for d in dims):
        raise ValueError(f"reduction axes {dims} contains out-of-bounds indices for {aval.str_short()}.")
    if len(set(dims)) != len(dims):
        raise ValueError(f"reduction axes {dims} contains duplicate indices.")
    return tuple(sorted(dims))


def _generic_reduce(xs: list, inits: list, dims: tuple[int, ...], combine: Callable,
                    identity: bool) -> list:
    shape = xs[0].shape
    out_shape = tuple(n for i, n in enumerate(shape) if i not in dims)
    if any(shape[d] == 0 for d in dims):
        return [_filled(init, out_shape) for init in inits]
    for d in dims:
        xs = _pairwise(xs, d, combine)
    xs = [L.squeeze(x, dims) for x in xs]
    return xs if identity else combine([_filled(init, out_shape) for init in inits], xs)


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any],
           dimensions: Sequence[int]) -> Any:
    """XLA's Reduce: `computation` (an associative function, elementwise on
    arrays) over `dimensions` of `operands` (an array or pytree), starting
    from `init_values`. lax.add/mul/max/min/bitwise_and/bitwise_or with their
    identity are jaxc's reductions; any other computation is applied to
    neighbouring slices, halving each dimension per round (O(log n) rounds),
    and then to the init value and the result."""
    xs, inits, tree = _operands_and_inits("reduce", operands, init_values)
    dims = _reduce_dims("reduce", xs[0].ndim, xs[0].aval, dimensions)
    monoid = _is_identity(computation, inits, xs[0].dtype)
    if monoid is not None:
        return tree_util.tree_unflatten(tree, [_REDUCERS[monoid](xs[0], dims)])
    combine = _combiner("reduce", computation, tree)
    return tree_util.tree_unflatten(tree, _generic_reduce(xs, inits, dims, combine, identity=False))


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """Bitwise XOR over `axes` (bool or integer operands)."""
    x = L._array(operand, "reduce_xor")
    if not (x.dtype == np.bool_ or dtypes.is_int(x.dtype)):
        raise TypeError(f"logical reduction requires operand dtype bool or int, got {x.dtype.name}.")
    dims = _reduce_dims("reduce_xor", x.ndim, x.aval, axes)
    if not dims:
        return x
    init = L.full((), _identity("or", x.dtype), x.dtype)
    return _generic_reduce([x], [init], dims, lambda a, b: [L.bitwise_xor(a[0], b[0])], identity=True)[0]


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------

def conv(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: str, precision: Any = None,
         preferred_element_type: Any = None) -> Any:
    """`conv_general_dilated` in the default layouts (NCHW, OIHW, NCHW)."""
    return L.conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                  preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                              lhs_dilation: Sequence[int] | None, rhs_dilation: Sequence[int] | None,
                              precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`conv_general_dilated` in the default layouts, with dilations."""
    return L.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                  rhs_dilation=rhs_dilation, precision=precision,
                                  preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: Any) -> tuple[int, int]:
    """(before, after) padding of a transposed convolution's dilated input,
    from the forward convolution's padding (JAX's rule)."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else int(np.ceil(total / 2))
    elif padding == "VALID":
        total = k + s - 2 + builtins.max(k - s, 0)
        before = k - 1
    elif isinstance(padding, (tuple, list)):
        pads = tuple(k - p - 1 for p in padding)
        before, total = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                      5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Any,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None, preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Any:
    """JAX's transposed convolution: a unit-stride convolution of `lhs`
    dilated by `strides`. "SAME"/"VALID" (and, with
    `use_consistent_padding`, (low, high) pairs) are the forward
    convolution's padding; other pairs pad the dilated input as given.
    `transpose_kernel` flips the kernel's spatial axes and swaps its I and O
    axes (the gradient of a forward convolution). Layouts default to
    NHWC/HWIO (by rank)."""
    lhs = L._array(lhs, "conv_transpose")
    rhs = L._array(rhs, "conv_transpose")
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise TypeError(f"lax.conv_transpose: lhs and rhs must have the same rank (at least 2), got shapes "
                        f"{lhs.shape} and {rhs.shape}")
    ndim = lhs.ndim
    one = (1,) * (ndim - 2)
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_LAYOUTS[ndim]
    dn = L.conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    kernel = [rhs.shape[d] for d in dn.rhs_spec[2:]]
    strides = L._ints(strides, "conv_transpose", "strides")
    rhs_dilation = one if rhs_dilation is None else L._ints(rhs_dilation, "conv_transpose", "rhs_dilation")
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        effective = [(k - 1) * r + 1 if k else 0 for k, r in zip(kernel, rhs_dilation)]
        per_dim: list[str | tuple[int, ...]] = \
            [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
        pads: Any = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(effective, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = L.rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ndim))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        rhs = L.transpose(rhs, perm)
    return L.conv_general_dilated(lhs, rhs, one, pads, strides, rhs_dilation, dn, precision=precision,
                                  preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs: Any, filter_shape: Sequence[int], window_strides: Sequence[int],
                                 padding: Any, lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                                 precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The patches `conv_general_dilated` would see, flattened into the
    output's feature dimension (channel-major, then the filter's spatial
    dimensions in the rhs layout's order): a grouped convolution with an
    identity kernel, as JAX builds it."""
    lhs = L._array(lhs, "conv_general_dilated_patches")
    filter_shape = L._ints(filter_shape, "conv_general_dilated_patches", "filter_shape")
    dn = L.conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    ndim = lhs.ndim
    size = math.prod(filter_shape)
    channels = lhs.shape[dn.lhs_spec[1]]
    eye = L.convert_element_type(L.eq(L.broadcasted_iota(np.int32, (size, size), 0),
                                      L.broadcasted_iota(np.int32, (size, size), 1)), lhs.dtype)
    rhs = L.broadcast_in_dim(eye, (channels, size, size), (1, 2))
    rhs = L.reshape(rhs, (channels * size, 1, *filter_shape))
    perm: list[Any] = [None] * ndim
    perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = 0, 1
    rest = iter(range(2, ndim))
    perm = [p if p is not None else next(rest) for p in perm]
    rhs = L.transpose(rhs, perm)
    return L.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn,
                                  feature_group_count=channels, precision=precision,
                                  preferred_element_type=preferred_element_type)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """Matrix products over the leading (batch) dimensions of equal-rank operands."""
    lhs = L._array(lhs, "batch_matmul")
    rhs = L._array(rhs, "batch_matmul")
    if builtins.min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs.ndim}, {rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs.ndim}, {rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return L.dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)), precision=precision)


# ---------------------------------------------------------------------------
# Slicing conveniences
# ---------------------------------------------------------------------------

def _start_index(index: Any, size: int, allow_negative: bool, what: str) -> Any:
    """A start index, counted from the end of `size` when negative."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        index = int(index)
        return index + size if allow_negative and index < 0 else index
    index = L._array(index, what)
    if index.ndim != 0 or not dtypes.is_int(index.dtype):
        raise TypeError(f"lax.{what}: the start index must be a 0-d integer, got {index.aval.str_short()}")
    if allow_negative and np.dtype(index.dtype).kind == "i":
        index = L.select(L.lt(index, 0), L.add(index, size), index)
    return index


def _starts(x: Any, axis: int, index: Any) -> list[Any]:
    """Start indices: `index` at `axis`, zeros (of its dtype) elsewhere."""
    zero = 0 if isinstance(index, int) else L.full((), 0, index.dtype)
    starts = [zero] * x.ndim
    starts[axis] = index
    return starts


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Any:
    """`operand[..., start:start + slice_size, ...]` along `axis` for a
    run-time start (negative counts from the end; clamped into range)."""
    x = L._array(operand, "dynamic_slice_in_dim")
    axis = L._axis(axis, x.ndim, "dynamic_slice_in_dim")
    index = _start_index(start_index, x.shape[axis], allow_negative_indices, "dynamic_slice_in_dim")
    sizes = list(x.shape)
    sizes[axis] = L._int(slice_size, "dynamic_slice_in_dim", "slice_size")
    return L.dynamic_slice(x, _starts(x, axis, index), sizes)


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Any:
    """`operand` with `update` written at a run-time start along `axis`."""
    x = L._array(operand, "dynamic_update_slice_in_dim")
    axis = L._axis(axis, x.ndim, "dynamic_update_slice_in_dim")
    index = _start_index(start_index, x.shape[axis], allow_negative_indices, "dynamic_update_slice_in_dim")
    return L.dynamic_update_slice(x, update, _starts(x, axis, index))


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Any:
    """`operand[..., index, ...]` along `axis` for a run-time index
    (negative counts from the end); `keepdims` keeps the axis (size 1)."""
    x = L._array(operand, "dynamic_index_in_dim")
    axis = L._axis(axis, x.ndim, "dynamic_index_in_dim")
    out = dynamic_slice_in_dim(x, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else L.squeeze(out, (axis,))


# ---------------------------------------------------------------------------
# Elementwise and shape conveniences
# ---------------------------------------------------------------------------

def square(x: Any) -> Any:
    """x * x."""
    x = L._array(x, "square")
    return L.mul(x, x)


def reciprocal(x: Any) -> Any:
    """1 / x (`integer_pow(x, -1)`: integers are refused, as in JAX)."""
    return L.integer_pow(x, -1)


def _floating(what: str, *xs: Any) -> list[Any]:
    """Operands of one float dtype (JAX's lax refuses integers here)."""
    out = L._same(what, *xs)
    for position, x in enumerate(out):
        if not dtypes.is_float(x.dtype):
            where = f" at position {position}" if len(out) > 1 else ""
            raise TypeError(f"{what} does not accept dtype {x.dtype.name}{where}. Accepted dtypes{where} are "
                            "subtypes of floating.")
    return out


def erfc(x: Any) -> Any:
    """1 - erf(x), accurate in the tail (jaxc.scipy.special.erfc)."""
    x, = _floating("erfc", x)
    from ..scipy.special import erfc as special_erfc
    return special_erfc(x)


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """Dimensions [start, stop) merged into one (row-major)."""
    x = L._array(operand, "collapse")
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(x.ndim)
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {x.shape}[{start_dimension}:{stop_dimension}]")
    return L.reshape(x, x.shape[:lo] + (math.prod(x.shape[lo:hi]),) + x.shape[hi:])


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """Leading size-1 dimensions added up to `rank`."""
    x = L._array(x, "broadcast_to_rank")
    rank = L._int(rank, "broadcast_to_rank", "rank")
    return x if x.ndim >= rank else L.broadcast(x, (1,) * (rank - x.ndim))


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy broadcasting gives `shapes`."""
    int_shapes = [tuple(int(L.operator_index(d)) for d in s) for s in shapes]
    ndim = builtins.max((len(s) for s in int_shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + s for s in int_shapes]
    out = []
    for sizes in zip(*padded):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in int_shapes]}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def select_n(which: Any, *cases: Any) -> Any:
    """cases[which] elementwise: `which` bool (two cases at most) or
    integer, 0-d or of the cases' shape."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    arrays = L._same("select_n", *cases)
    which = L._array(which, "select_n")
    if not (which.dtype == np.bool_ or dtypes.is_int(which.dtype)):
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype.name}.")
    if which.dtype == np.bool_ and len(arrays) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    if which.ndim and which.shape != arrays[0].shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got `which` shape "
                        f"{which.shape} but case shape {arrays[0].shape}.")
    if len(arrays) == 1:
        return arrays[0]
    if which.dtype == np.bool_:
        return L.select(which, arrays[1], arrays[0])

    def pick(offset: int, chosen: Sequence[Any]) -> Any:
        if len(chosen) == 1:
            return chosen[0]
        mid = len(chosen) // 2
        return L.select(L.lt(which, offset + mid), pick(offset, chosen[:mid]), pick(offset + mid, chosen[mid:]))
    return pick(0, arrays)


# ---------------------------------------------------------------------------
# top_k and scans
# ---------------------------------------------------------------------------

def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Any, Any]:
    """The `k` largest entries along `axis`, largest first, and their int32
    indices; equal entries in index order. As in JAX (the order of the
    bits), NaN ranks above +inf, a NaN with the sign bit set below -inf, and
    0.0 above -0.0.

    Binds `jaxc.top_k` on the last axis (the axis moved there and back):
    on the CPU an f32 or f64 one is a call of the compiled library
    (top_k.c), anywhere else `jaxc-expand-top-k` makes it `top_k_program`."""
    x = L._array(operand, "top_k")
    k = L._int(k, "top_k", "k")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = L._axis(axis, x.ndim, "top_k")
    n = x.shape[axis]
    if k > n:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got k={k} with "
                         f"shape={list(x.shape)} and axis={axis}")
    if np.dtype(x.dtype).kind == "c":
        raise ValueError("top_k is not compatible with complex inputs.")
    last = x.ndim - 1
    order = list(range(x.ndim))
    order[axis], order[last] = last, axis
    values, indices = TOP_K.bind(x if axis == last else L.transpose(x, order), k=k)
    if axis == last:
        return values, indices
    return L.transpose(values, order), L.transpose(indices, order)


def _top_k_op(x: Any, *, k: int) -> list[Any]:
    """`jaxc.top_k` of x along its last axis: (values, indices)."""
    return list(jd.TopKOp(x, k).results)


TOP_K = L._primitive("top_k", _top_k_op, multiple_results=True, weak=L._never_weak)


def top_k_program(x: Any, k: int) -> tuple[Any, Any]:
    """`jaxc.top_k` of x (along its last axis) as jaxc ops: `jaxc-expand-top-k`
    builds it where no library computes the op. Small `k` (`_by_rounds`):
    k rounds of "the largest entry not taken yet, then the first index
    holding it" over integer keys in top_k's order, after keeping only the
    k chunks with the largest maxima (`_top_k_last`); larger `k`: a sort
    on the same keys."""
    n = x.shape[-1]
    if _by_rounds(k, n, math.prod(x.shape)):
        return _top_k_last(x, k)
    return _top_k_by_sort(x, k, x.ndim - 1, n)


def _by_rounds(k: int, n: int, size: int) -> bool:
    """Rounds cost ~2k passes over the row (fewer after the chunk filter),
    sort ~log2(n) slower ones: rounds while k is under 8 log2(n), on arrays
    whose flat int32 positions (the gathers' indices) do not overflow."""
    return 0 < k <= 8 * max(1, math.ceil(math.log2(max(n, 2)))) and 0 < size <= np.iinfo(np.int32).max


_MIN_CHUNK = 8  # entries per chunk of the filter (an AVX2 vector of f32)


def _top_k_last(x: Any, k: int) -> tuple[Any, Any]:
    """top_k along the last axis. Keys: the entries as integers in top_k's
    order. The row is cut into c >= 2k chunks of s entries; the k chunks with
    the largest maxima (ties: the first) hold the k largest entries (any
    entry beaten by the maxima of k other chunks is not among them), so the
    rounds run over those k*s candidates only, with their own indices.

        x (R, 1000), k=4:  chunk maxima (R, 63, 16) -> (R, 63); 4 rounds -> 4 chunks;
                           candidates (R, 64) and their indices; 4 rounds -> (R, 4)
    """
    n = x.shape[-1]
    rows = x.shape[:-1]
    keys = _order_keys(x)
    size = max(_MIN_CHUNK, -(-n // (16 * k) + 7) // 8 * 8)
    chunks = -(-n // size)
    if chunks >= 2 * k:
        lowest = np.iinfo(keys.dtype).min
        padded = L.pad(keys, keys.dtype.type(lowest), [(0, 0, 0)] * len(rows) + [(0, chunks * size - n, 0)])
        blocks = L.reshape(padded, rows + (chunks, size))
        maxima = L.reduce_max(blocks, (len(rows) + 1,))
        chosen = _rounds(maxima, L.broadcasted_iota(np.int32, maxima.shape, len(rows)), k)
        keys = L.reshape(_take_rows(L.reshape(blocks, rows + (chunks * size,)), chosen, size), rows + (k * size,))
        within = L.broadcasted_iota(np.int32, rows + (k, size), len(rows) + 1)
        first = L.broadcast_in_dim(L.mul(chosen, L.full(chosen.shape, size, np.int32)), rows + (k, size),
                                   tuple(range(len(rows) + 1)))
        index = L.reshape(L.add(first, within), rows + (k * size,))
    else:
        index = L.broadcasted_iota(np.int32, keys.shape, len(rows))
    indices = _rounds(keys, index, k)
    return _take_rows(x, indices, 1), indices


def _order_keys(x: Any) -> Any:
    """Integers in top_k's order of `x`: a float's bits with the magnitude
    flipped when the sign bit is set (-NaN < -inf < -0.0 < 0.0 < inf < NaN;
    every NaN of a sign alike); integers as they are, booleans as int8."""
    if x.dtype == np.bool_:
        return L.convert_element_type(x, np.int8)
    if not dtypes.is_float(x.dtype):
        return x
    bits = L.bitcast_sign(x)
    width = x.dtype.itemsize * 8
    magnitude = L.full(bits.shape, (1 << (width - 1)) - 1, bits.dtype)
    keys = L.bitwise_xor(bits, L.bitwise_and(L.shift_right_arithmetic(bits, L.full(bits.shape, width - 1, bits.dtype)),
                                             magnitude))
    nan_key = L.select(L.lt(bits, L.full(bits.shape, 0, bits.dtype)),
                       L.full(bits.shape, np.iinfo(bits.dtype).min + 1, bits.dtype), magnitude)
    return L.select(L.ne(x, x), nan_key, keys)


def _rounds(keys: Any, index: Any, k: int) -> Any:
    """The `index` entries of the k largest `keys` along the last axis,
    largest first, ties by lower index: round t takes the largest key below
    the last one taken (or equal to it at a higher index), then the lowest
    index holding it.

        keys [3, 1, 3], index [0, 1, 2], k=2  ->  [0, 2]
    """
    from ._control_flow import fori_loop
    rows = keys.shape[:-1]
    info = np.iinfo(keys.dtype)
    beyond = np.iinfo(np.int32).max

    def per_row(v: Any) -> Any:
        return L.broadcast_in_dim(v, keys.shape, tuple(range(len(rows))))

    def round_(t: Any, state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        last_key, last_index, taken = state
        remaining = L.bitwise_or(L.lt(keys, per_row(last_key)),
                                 L.bitwise_and(L.eq(keys, per_row(last_key)), L.gt(index, per_row(last_index))))
        key = L.reduce_max(L.select(remaining, keys, L.full(keys.shape, info.min, keys.dtype)), (len(rows),))
        at = L.bitwise_and(remaining, L.eq(keys, per_row(key)))
        first = L.reduce_min(L.select(at, index, L.full(index.shape, beyond, np.int32)), (len(rows),))
        taken = L.dynamic_update_slice(taken, L.reshape(first, rows + (1,)), (0,) * len(rows) + (t,))
        return key, first, taken

    start = (L.full(rows, info.max, keys.dtype), L.full(rows, -1, np.int32), L.full(rows + (k,), 0, np.int32))
    return fori_loop(0, k, round_, start)[2]


def _take_rows(x: Any, starts: Any, size: int) -> Any:
    """x[..., starts[..., j] * size : + size] for each j, joined: (rows..., m)
    starts of an (rows..., n) array -> (rows..., m, size) (size 1: (rows..., m))."""
    rows = x.shape[:-1]
    n = x.shape[-1]
    count = math.prod(rows)
    m = starts.shape[-1]
    dims = (L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,)) if size > 1
            else L.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)))
    out = L.gather(L.reshape(x, (count * n,)), _flat_starts(starts, n, size), dims, (size,))
    return L.reshape(out, rows + ((m, size) if size > 1 else (m,)))


def _flat_starts(starts: Any, n: int, size: int) -> Any:
    """The positions in rows of n flattened of `starts` (rows..., m) counted
    in blocks of `size`: (count * m, 1), a gather's or scatter's indices."""
    count = math.prod(starts.shape[:-1])
    m = starts.shape[-1]
    row = L.broadcasted_iota(np.int32, (count, m), 0)
    flat = L.add(L.mul(row, L.full((count, m), n, np.int32)),
                 L.mul(L.reshape(starts, (count, m)), L.full((count, m), size, np.int32)))
    return L.reshape(flat, (count * m, 1))


def top_k_tangent(tangent: Any, indices: Any) -> Any:
    """The tangent of top_k's values: the operand's tangent at their indices
    along the last axis (`jaxc-autodiff`'s rule of `jaxc.top_k`)."""
    if 0 in tangent.shape or 0 in indices.shape:  # no entries (or none taken): nothing to gather
        return L.full(indices.shape, 0, tangent.dtype)
    return _take_rows(tangent, indices, 1)


def top_k_cotangent(cotangent: Any, indices: Any, n: int) -> Any:
    """The cotangent of top_k's operand (rows..., n): the values' cotangent
    added at their indices along the last axis, zero elsewhere (the
    transpose of `top_k_tangent`)."""
    count = math.prod(cotangent.shape[:-1])
    if count * n == 0 or 0 in cotangent.shape:
        return L.full(cotangent.shape[:-1] + (n,), 0, cotangent.dtype)
    dims = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    out = L.scatter_add(L.full((count * n,), 0, cotangent.dtype), _flat_starts(indices, n, 1),
                        L.reshape(cotangent, (count * cotangent.shape[-1],)), dims, unique_indices=True)
    return L.reshape(out, cotangent.shape[:-1] + (n,))


def _top_k_by_sort(x: Any, k: int, axis: int, n: int) -> tuple[Any, Any]:
    """top_k from an ascending sort on (the order key reversed, the index),
    its first k: the rounds' order (`_order_keys`), ties by lower index."""
    descending = L.bitwise_not(_order_keys(x))  # ~key reverses the order of signed and unsigned keys alike
    _, indices, values = L.sort((descending, L.broadcasted_iota(np.int32, x.shape, axis), x), dimension=axis,
                                num_keys=2)
    return L.slice_in_dim(values, 0, k, 1, axis), L.slice_in_dim(indices, 0, k, 1, axis)


def _interleave(a: Any, b: Any, axis: int) -> Any:
    """a[0], b[0], a[1], b[1], ... along `axis` (a has as many elements as
    b or one more)."""
    n = a.shape[axis] + b.shape[axis]
    if b.shape[axis] < a.shape[axis]:
        b = L.concatenate([b, L.slice_in_dim(a, 0, 1, 1, axis)], axis)
    pairs = L.concatenate([L.expand_dims(a, (axis + 1,)), L.expand_dims(b, (axis + 1,))], axis + 1)
    shape = list(a.shape)
    shape[axis] *= 2
    out = L.reshape(pairs, shape)
    return out if shape[axis] == n else L.slice_in_dim(out, 0, n, 1, axis)


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Inclusive scan of an associative `fn` along `axis` of every leaf of
    `elems`: [a, fn(a, b), fn(fn(a, b), c), ...] (from the end when
    `reverse`). The odd/even recursion of Blelloch: O(n) calls of `fn`
    on slices, in O(log n) rounds."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        return elems
    leaves = [L._array(leaf, "associative_scan") for leaf in leaves]
    axis = L._axis(axis, leaves[0].ndim, "associative_scan")
    n = leaves[0].shape[axis]
    if any(leaf.ndim <= axis or leaf.shape[axis] != n for leaf in leaves[1:]):
        raise ValueError(f"Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[leaf.shape for leaf in leaves]})")
    if reverse:
        leaves = [L.rev(leaf, (axis,)) for leaf in leaves]

    def combine(a: list, b: list) -> list:
        out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        return [L._array(leaf, "associative_scan") for leaf in tree_util.tree_leaves(out)]

    def scan(xs: list) -> list:
        size = xs[0].shape[axis]
        if size < 2:
            return xs
        pairs = combine([L.slice_in_dim(x, 0, size - 1, 2, axis) for x in xs],
                        [L.slice_in_dim(x, 1, size, 2, axis) for x in xs])
        odd = scan(pairs)  # results at positions 1, 3, 5, ...
        first = [L.slice_in_dim(x, 0, 1, 1, axis) for x in xs]
        if size > 2:  # positions 2, 4, ... (no empty slices: their derivatives do not compile)
            head = odd if size % 2 else [L.slice_in_dim(o, 0, o.shape[axis] - 1, 1, axis) for o in odd]
            rest = combine(head, [L.slice_in_dim(x, 2, size, 2, axis) for x in xs])
            even = [L.concatenate([f, r], axis) for f, r in zip(first, rest)]
        else:
            even = first
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [L.rev(leaf, (axis,)) for leaf in out]
    return tree_util.tree_unflatten(tree, out)


def _logaddexp(x: Any, y: Any) -> Any:
    """log(exp(x) + exp(y)) without overflow (x + y where both are infinite
    of one sign or either is NaN)."""
    big = L.max(x, y)
    delta = L.sub(x, y)
    return L.select(L.ne(delta, delta), L.add(x, y), L.add(big, L.log1p(L.exp(L.neg(L.abs(delta))))))


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """log(cumsum(exp(x))) along `axis`, without overflow: an
    `associative_scan` of logaddexp."""
    x = L._array(operand, "cumlogsumexp")
    if not dtypes.is_float(x.dtype):
        raise TypeError(f"cumlogsumexp does not accept dtype {x.dtype.name}: it requires floating-point inputs")
    axis = L._axis(axis, x.ndim, "cumlogsumexp")
    return associative_scan(_logaddexp, x, reverse=bool(reverse), axis=axis)


# ---------------------------------------------------------------------------
# Special functions
# ---------------------------------------------------------------------------

# Euler-Maclaurin coefficients (2k)! / B_2k (Cephes' zeta)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_ZETA_TERMS = 10  # direct terms (q + i)**-x for i < 10; the tail starts at q + 10


def _const(like: Any, value: float) -> Any:
    return L.full_like(like, value)


def zeta(x: Any, q: Any) -> Any:
    """The Hurwitz zeta function sum_{n>=0} (n + q)**-x (x > 1): ten direct
    terms and the Euler-Maclaurin tail (Cephes' method). NaN for x < 1,
    inf at x == 1 and where q is a non-positive integer."""
    x, q = _floating("zeta", x, q)
    neg_x = L.neg(x)
    s = L.pow(q, neg_x)
    for i in range(1, _ZETA_TERMS):
        s = L.add(s, L.pow(L.add(q, _const(q, i)), neg_x))
    w = L.add(q, _const(q, _ZETA_TERMS))
    b = L.pow(w, neg_x)
    s = L.add(s, b)
    s = L.add(s, L.sub(L.div(L.mul(b, w), L.sub(x, _const(x, 1))), L.mul(_const(b, 0.5), b)))
    a = _const(x, 1.0)
    k = 0.0
    for coefficient in _ZETA_A:
        a = L.mul(a, L.add(x, _const(x, k)))
        b = L.div(b, w)
        s = L.add(s, L.div(L.mul(a, b), _const(a, coefficient)))
        k += 1
        a = L.mul(a, L.add(x, _const(x, k)))
        b = L.div(b, w)
        k += 1
    inf, nan = _const(s, np.inf), _const(s, np.nan)
    pole = L.bitwise_and(L.le(q, _const(q, 0)), L.eq(L.floor(q), q))
    s = L.select(pole, inf, s)
    s = L.select(L.eq(x, _const(x, 1)), inf, s)
    return L.select(L.lt(x, _const(x, 1)), nan, s)


def polygamma(m: Any, x: Any) -> Any:
    """The m-th derivative of digamma: digamma for m == 0, else
    (-1)**(m + 1) * m! * zeta(m + 1, x). NaN unless m is a non-negative
    integer."""
    m, x = _floating("polygamma", m, x)
    one = _const(m, 1)
    n = L.add(m, one)
    odd = L.ne(L.rem(m, _const(m, 2)), _const(m, 0))
    sign = L.select(odd, one, L.neg(one))
    higher = L.mul(L.mul(sign, L.exp(L.lgamma(n))), zeta(n, x))
    out = L.select(L.eq(m, _const(m, 0)), L.digamma(x), higher)
    valid = L.bitwise_and(L.eq(L.floor(m), m), L.ge(m, _const(m, 0)))
    return L.select(valid, out, _const(out, np.nan))


_IGAMMA_STEPS = 300  # series terms and continued-fraction steps (enough for a, x up to ~1e3 in float64)


def _igamma_parts(a: Any, x: Any) -> tuple[Any, Any, Any]:
    """(use the continued fraction, P by the series, Q by the continued
    fraction) elementwise (Cephes' igam/igamc, fixed step counts)."""
    from ._control_flow import fori_loop
    one, zero = _const(a, 1), _const(a, 0)
    use_fraction = L.bitwise_and(L.gt(x, one), L.gt(x, a))
    # keep the unused branch's arguments harmless
    xs = L.select(L.gt(x, zero), x, one)
    as_ = L.select(L.gt(a, zero), a, one)
    ax = L.exp(L.sub(L.sub(L.mul(as_, L.log(xs)), xs), L.lgamma(as_)))
    big = _const(a, 4503599627370496.0)
    biginv = _const(a, 2.22044604925031308085e-16)

    def step(_, carry):
        r, c, total, y, z, k, pkm2, qkm2, pkm1, qkm1, ans = carry
        r = L.add(r, one)
        c = L.mul(c, L.div(xs, r))
        total = L.add(total, c)
        k = L.add(k, one)
        y = L.add(y, one)
        z = L.add(z, _const(z, 2))
        yc = L.mul(y, k)
        pk = L.sub(L.mul(pkm1, z), L.mul(pkm2, yc))
        qk = L.sub(L.mul(qkm1, z), L.mul(qkm2, yc))
        nonzero = L.ne(qk, zero)
        ans = L.select(nonzero, L.div(pk, L.select(nonzero, qk, one)), ans)
        scale = L.select(L.gt(L.abs(pk), big), biginv, one)
        return (r, c, total, y, z, k, L.mul(pkm1, scale), L.mul(qkm1, scale), L.mul(pk, scale),
                L.mul(qk, scale), ans)

    y0 = L.sub(one, as_)
    z0 = L.add(L.add(xs, y0), one)
    carry = (as_, one, one, y0, z0, zero, one, xs, L.add(xs, one), L.mul(z0, xs),
             L.div(L.add(xs, one), L.mul(z0, xs)))
    carry = fori_loop(0, _IGAMMA_STEPS, step, carry)
    series = L.div(L.mul(carry[2], ax), as_)
    fraction = L.mul(carry[10], ax)
    return use_fraction, series, fraction


def _igamma_edges(a: Any, x: Any, out: Any, lower: bool) -> Any:
    zero, one = _const(a, 0), _const(a, 1)
    nan = _const(out, np.nan)
    at_zero_x, at_zero_a = (zero, one) if lower else (one, zero)
    out = L.select(L.eq(x, _const(x, np.inf)), at_zero_a, out)
    out = L.select(L.eq(a, zero), at_zero_a, out)
    out = L.select(L.eq(x, zero), at_zero_x, out)
    invalid = L.bitwise_or(L.bitwise_or(L.lt(x, zero), L.lt(a, zero)),
                           L.bitwise_or(L.bitwise_and(L.eq(a, zero), L.eq(x, zero)),
                                        L.bitwise_or(L.ne(a, a), L.ne(x, x))))
    return L.select(invalid, nan, out)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function P(a, x) (a, x >= 0):
    a power series where x <= max(1, a), else 1 - the continued fraction of
    Q (Cephes' split)."""
    a, x = _floating("igamma", a, x)
    use_fraction, series, fraction = _igamma_parts(a, x)
    out = L.select(use_fraction, L.sub(_const(a, 1), fraction), series)
    return _igamma_edges(a, x, out, lower=True)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = _floating("igammac", a, x)
    use_fraction, series, fraction = _igamma_parts(a, x)
    out = L.select(use_fraction, fraction, L.sub(_const(a, 1), series))
    return _igamma_edges(a, x, out, lower=False)
