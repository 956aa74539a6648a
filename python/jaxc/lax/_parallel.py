"""Collectives over named axes: `psum`, `pmax`, `pmin`, `pmean`,
`all_gather`, `all_to_all`, `ppermute` and `axis_index`, as in `jax.lax`.

An axis name is bound by an enclosing `vmap(..., axis_name=...)` (pmap does
not exist yet); naming any other axis is a NameError at the user's line, as
in JAX. Each call emits one `jaxc` collective naming the axes; the
`jaxc-batch` pass turns it into ordinary ops when it expands the vmap that
binds the name (passes/batching/collectives.py):

    vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(xs)
      callee:   %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
      expanded: %s = jaxc.reduce sum %xs, dims = [0] : tensor<8x3xf32> -> tensor<3xf32>

The functions map over pytrees (`psum({"a": x, "b": y}, "i")`). `axis_name`
may be a tuple of names for the reductions and `axis_index` (the axes are
then flattened in order, the first outermost); `all_gather`, `all_to_all`
and `ppermute` over several names are emitted but not batched yet.
`axis_index_groups` is not supported. As in JAX, `psum` of a Python scalar
is concrete (`psum(1, "i")` is the axis size) and `pmean` of integers is a
float.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import mlir.ir as ir
import numpy as np

import jaxc.dialect as jd

from .. import core, dtypes, tree_util
from . import _ops as lax

__all__ = ["psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "ppermute", "axis_index"]

_PYTHON_SCALARS = (bool, int, float, complex)


# ---------------------------------------------------------------------------
# Axis names
# ---------------------------------------------------------------------------

def _names(axis_name: Any, what: str) -> tuple[str, ...]:
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if not names:
        raise ValueError(f"{core.where()}: lax.{what} needs at least one axis name, got {axis_name!r}")
    if any(n is None for n in names):
        raise TypeError(f"{core.where()}: lax.{what}: None is not an axis name")
    return tuple(str(n) for n in names)


def _axis_size(name: str) -> int:
    """The size of the innermost enclosing vmap axis called `name`."""
    from .._batching import bound_axes
    bound = bound_axes()
    for bound_name, size in reversed(bound):
        if bound_name == name:
            return size
    available = sorted({n for n, _ in bound})
    raise NameError(f"{core.where()}: unbound axis name: {name}. The following axis names (e.g. "
                    f"defined by vmap) are available to collective operations: {available}")


def _group_size(names: Sequence[str]) -> int:
    return math.prod(_axis_size(n) for n in names)


def _check_no_groups(axis_index_groups: Any, what: str) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{core.where()}: lax.{what}: axis_index_groups is not supported")


def _axes_attr(names: Sequence[str]) -> ir.Attribute:
    return ir.ArrayAttr.get([ir.StringAttr.get(n) for n in names])


# ---------------------------------------------------------------------------
# Primitives
# ---------------------------------------------------------------------------

_ALL_REDUCE = {"psum": jd.PsumOp, "pmax": jd.PmaxOp, "pmin": jd.PminOp, "pmean": jd.PmeanOp}
_REDUCE_PRIMS = {name: lax._primitive(name, lambda x, axes, _op=op: _op(x, _axes_attr(axes)).result)
                 for name, op in _ALL_REDUCE.items()}
ALL_GATHER = lax._primitive("all_gather", lambda x, axes, dimension, axis_size, tiled: jd.AllGatherOp(
    x, _axes_attr(axes), dimension, axis_size, tiled=True if tiled else None).result)
ALL_TO_ALL = lax._primitive("all_to_all", lambda x, axes, split_axis, concat_axis, axis_size: jd.AllToAllOp(
    x, _axes_attr(axes), split_axis, concat_axis, axis_size).result)
PPERMUTE = lax._primitive("ppermute", lambda x, axes, perm: jd.PpermuteOp(
    x, _axes_attr(axes), ir.DenseI64ArrayAttr.get(list(perm))).result)
AXIS_INDEX = lax._primitive("axis_index", lambda name: jd.AxisIndexOp(
    core.ir_type((), np.int32), ir.StringAttr.get(name)).result, weak=lambda avals, **p: False)


def _operand(x: Any, what: str) -> Any:
    return core.as_operand(x, f"lax.{what}")


def _tree_map(f, x: Any) -> Any:
    leaves, tree = tree_util.tree_flatten(x)
    return tree_util.tree_unflatten(tree, [f(leaf) for leaf in leaves])


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The sum of `x` over the named axes; every member gets it. Booleans
    are summed as int32; a Python scalar gives a Python scalar (so
    `psum(1, name)` is the axis size)."""
    names = _names(axis_name, "psum")
    _check_no_groups(axis_index_groups, "psum")
    size = _group_size(names)

    def one(leaf: Any) -> Any:
        if type(leaf) in _PYTHON_SCALARS:
            return (int(leaf) if type(leaf) is bool else leaf) * size
        leaf = _operand(leaf, "psum")
        if leaf.dtype == np.bool_:
            leaf = lax.convert_element_type(leaf, np.int32)
        return _REDUCE_PRIMS["psum"].bind(leaf, axes=names)
    return _tree_map(one, x)


def _reducer(name: str, doc: str):
    def apply(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
        names = _names(axis_name, name)
        _check_no_groups(axis_index_groups, name)
        _group_size(names)
        return _tree_map(lambda leaf: _REDUCE_PRIMS[name].bind(_operand(leaf, name), axes=names), x)
    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = doc
    return apply


pmax = _reducer("pmax", "The maximum of `x` over the named axes; every member gets it.")
pmin = _reducer("pmin", "The minimum of `x` over the named axes; every member gets it.")


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of `x` over the named axes; every member gets it. Integers
    and booleans give floats (`psum(x) / size`, as JAX)."""
    names = _names(axis_name, "pmean")
    _check_no_groups(axis_index_groups, "pmean")
    size = _group_size(names)

    def one(leaf: Any) -> Any:
        if type(leaf) in _PYTHON_SCALARS:
            return leaf * size / size
        leaf = _operand(leaf, "pmean")
        if dtypes.issubdtype(leaf.dtype, np.inexact):
            return _REDUCE_PRIMS["pmean"].bind(leaf, axes=names)
        from .. import numpy as jnp
        return jnp.true_divide(psum(leaf, names), size)
    return _tree_map(one, x)


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------

def _canonical_axis(axis: Any, ndim: int, what: str, name: str) -> int:
    axis = lax.operator_index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{core.where()}: lax.{what}: {name}={axis} is out of range for "
                         f"{ndim} dimensions")
    return axis % ndim


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> Any:
    """Every member's `x`, stacked along a new dimension `axis` (or, when
    `tiled`, concatenated along the existing dimension `axis`)."""
    names = _names(axis_name, "all_gather")
    _check_no_groups(axis_index_groups, "all_gather")
    size = _group_size(names)

    def one(leaf: Any) -> Any:
        leaf = _operand(leaf, "all_gather")
        if tiled and leaf.ndim == 0:
            raise ValueError(f"{core.where()}: lax.all_gather: tiled=True needs an operand of rank >= 1, "
                             f"got {leaf.aval.str_short()}")
        dim = _canonical_axis(axis, leaf.ndim if tiled else leaf.ndim + 1, "all_gather", "axis")
        return ALL_GATHER.bind(leaf, axes=names, dimension=dim, axis_size=size, tiled=bool(tiled))
    return _tree_map(one, x)


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Split `x` along `split_axis` into one chunk per member, send chunk j
    to member j and concatenate what arrives (in member order) along
    `concat_axis`. Untiled, `x.shape[split_axis]` must be the axis size: that
    dimension goes away and a new one of the axis size appears at
    `concat_axis`."""
    names = _names(axis_name, "all_to_all")
    _check_no_groups(axis_index_groups, "all_to_all")
    size = _group_size(names)

    def one(leaf: Any) -> Any:
        leaf = _operand(leaf, "all_to_all")
        if leaf.ndim == 0:
            raise ValueError(f"{core.where()}: lax.all_to_all needs an operand of rank >= 1, got "
                             f"{leaf.aval.str_short()}")
        split = _canonical_axis(split_axis, leaf.ndim, "all_to_all", "split_axis")
        concat = _canonical_axis(concat_axis, leaf.ndim, "all_to_all", "concat_axis")
        length = leaf.shape[split]
        if tiled and length % size:
            raise ValueError(f"{core.where()}: lax.all_to_all: the size of split_axis ({length}) must be "
                             f"divisible by the size of the named axis {'/'.join(names)} ({size})")
        if not tiled and length != size:
            raise ValueError(f"{core.where()}: lax.all_to_all requires the size of the named axis "
                             f"{'/'.join(names)} ({size}) to equal x.shape[split_axis] ({length})")
        if not tiled and split != concat:
            # a new dimension of 1 at concat_axis grows to `size`; the split
            # one shrinks to 1 and goes away
            if split < concat:
                concat += 1
            else:
                split += 1
            leaf = lax.expand_dims(leaf, (concat,))
        out = ALL_TO_ALL.bind(leaf, axes=names, split_axis=split, concat_axis=concat, axis_size=size)
        if not tiled and split != concat:
            out = lax.squeeze(out, (split,))
        return out
    return _tree_map(one, x)


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Member `src` sends `x` to member `dst` for each (src, dst) of `perm`;
    members no pair sends to get zeros."""
    names = _names(axis_name, "ppermute")
    size = _group_size(names)
    try:
        pairs = [(lax.operator_index(s), lax.operator_index(d)) for s, d in perm]
    except (TypeError, ValueError):
        raise TypeError(f"{core.where()}: lax.ppermute: perm must be a sequence of (source, destination) "
                        f"pairs of ints, got {perm!r}") from None
    sources, destinations = [s for s, _ in pairs], [d for _, d in pairs]
    if len(set(sources)) != len(sources) or len(set(destinations)) != len(destinations):
        raise ValueError(f"{core.where()}: lax.ppermute: sources and destinations must be unique, got {perm!r}")
    bad = [p for p in pairs if not (0 <= p[0] < size and 0 <= p[1] < size)]
    if bad:
        raise ValueError(f"{core.where()}: lax.ppermute: perm pair {bad[0]} is out of range for the axis "
                         f"{'/'.join(names)} of size {size}")
    flat = tuple(i for p in pairs for i in p)
    return _tree_map(lambda leaf: PPERMUTE.bind(_operand(leaf, "ppermute"), axes=names, perm=flat), x)


def axis_index(axis_name: Any) -> Any:
    """This member's int32 index along the named axis (for a tuple of names,
    along their flattening, the first outermost)."""
    names = _names(axis_name, "axis_index")
    sizes = [_axis_size(n) for n in names]
    index = AXIS_INDEX.bind(name=names[0])
    for name, size in zip(names[1:], sizes[1:]):
        index = lax.add(lax.mul(index, np.int32(size)), AXIS_INDEX.bind(name=name))
    return index
