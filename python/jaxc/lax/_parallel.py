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
may be a tuple of names (the axes are then flattened in order, the first
outermost): reductions and `axis_index` take them as they are; `all_gather`
over several names is one gather per name, and `all_to_all` and `ppermute`
gather every member's operand and take their part of it.
`axis_index_groups` (psum, pmean, pmax, pmin, all_gather, all_to_all;
psum_scatter in _extra.py) reduce, gather or exchange
within each member's group: every member's value gathered, the group's
taken. `pcast(x, axes, to='varying')` (and
its older name `pvary`) types a value as varying in a shard_map body
(`jaxc.pvary`, passes/infer_vma.py). As in JAX, `psum` of a Python scalar
is concrete (`psum(1, "i")` is the axis size) and `pmean` of integers is a
float.
"""
from __future__ import annotations

import contextlib
import math
import threading
from typing import Any, Iterator, Sequence

import mlir.ir as ir
import numpy as np

import jaxc.dialect as jd

from .. import core, dtypes, tree_util
from . import _ops as lax

__all__ = ["psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "ppermute", "axis_index", "pcast",
           "pvary"]

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


def _groups(axis_index_groups: Any, names: Sequence[str], what: str) -> list[list[int]] | None:
    """`axis_index_groups` checked as JAX checks them: equal groups that
    cover the members of the (flattened) axes exactly once."""
    if axis_index_groups is None:
        return None
    try:
        groups = [[lax.operator_index(i) for i in group] for group in axis_index_groups]
    except TypeError:
        raise TypeError(f"{core.where()}: lax.{what}: axis_index_groups must be a sequence of sequences of "
                        f"ints, got {axis_index_groups!r}") from None
    if not groups or {i for g in groups for i in g} != set(range(len(groups) * len(groups[0]))) \
            or any(len(g) != len(groups[0]) for g in groups):
        raise ValueError(f"{core.where()}: axis_index_groups must cover all indices exactly once")
    size = _group_size(names)
    if len(groups) * len(groups[0]) != size:
        raise ValueError(f"{core.where()}: lax.{what}: axis_index_groups cover {len(groups) * len(groups[0])} "
                         f"members, but the axis {'/'.join(names)} has {size}")
    return groups


def _mine(table: np.ndarray, names: Sequence[str]) -> Any:
    """Row i of a per-member constant `table` on member i of the flattened `names`."""
    return lax.dynamic_index_in_dim(lax.constant(table), axis_index(tuple(names)), 0, keepdims=False)


def _group_members(groups: list[list[int]]) -> np.ndarray:
    """(members, group size): row m lists the group of member m, in the group's order."""
    group_of = {m: g for g in groups for m in g}
    return np.array([group_of[m] for m in range(len(group_of))], np.int32)


def _place_in_group(groups: list[list[int]]) -> np.ndarray:
    """Member m's position in its group."""
    place = np.zeros(sum(len(g) for g in groups), np.int32)
    for group in groups:
        place[group] = np.arange(len(group))
    return place


def _group_rows(gathered: Any, names: Sequence[str], groups: list[list[int]]) -> Any:
    """The rows of `gathered` (every member's value along dim 0) that belong
    to this member's group, in the group's order."""
    from .. import numpy as jnp
    return jnp.take(gathered, _mine(_group_members(groups), names), axis=0)


def _grouped_reduction(leaf: Any, names: Sequence[str], groups: list[list[int]], kind: str) -> Any:
    """psum/pmax/pmin within this member's group: every member's value
    gathered, the others' masked out, reduced."""
    gathered = _gather_over(leaf, names, 0, False, False)
    members = _group_members(groups)
    in_group = np.array([[k in row for k in range(len(members))] for row in members.tolist()])
    mine = lax.broadcast_in_dim(_mine(in_group, names), gathered.shape, (0,))
    if kind == "sum":
        neutral: Any = 0
    elif leaf.dtype == np.bool_:
        neutral = kind == "min"
    else:
        info = np.finfo(leaf.dtype) if dtypes.issubdtype(leaf.dtype, np.inexact) else np.iinfo(leaf.dtype)
        neutral = -np.inf if kind == "max" and info.dtype.kind == "f" else \
            np.inf if info.dtype.kind == "f" else (info.min if kind == "max" else info.max)
    masked = lax.select(mine, gathered, lax.full(gathered.shape, neutral, leaf.dtype))
    if leaf.dtype == np.bool_:
        return {"max": lax.reduce_or, "min": lax.reduce_and}[kind](masked, (0,))
    return {"sum": lax.reduce_sum, "max": lax.reduce_max, "min": lax.reduce_min}[kind](masked, (0,))


def _axes_attr(names: Sequence[str]) -> ir.Attribute:
    return ir.ArrayAttr.get([ir.StringAttr.get(n) for n in names])


# ---------------------------------------------------------------------------
# Primitives
# ---------------------------------------------------------------------------

_ALL_REDUCE = {"psum": jd.PsumOp, "pmax": jd.PmaxOp, "pmin": jd.PminOp, "pmean": jd.PmeanOp}
_REDUCE_PRIMS = {name: lax._primitive(name, lambda x, axes, _op=op: _op(x, _axes_attr(axes)).result)
                 for name, op in _ALL_REDUCE.items()}
# psum marked `invariant` (passes/infer_vma.py): the transpose of a pvary
PSUM_INVARIANT = lax._primitive("psum_invariant", lambda x, axes: jd.PsumOp(x, _axes_attr(axes), invariant=True).result)
PVARY = lax._primitive("pvary", lambda x, axes: jd.PvaryOp(x, _axes_attr(axes)).result)
ALL_GATHER = lax._primitive("all_gather", lambda x, axes, dimension, axis_size, tiled, invariant=False:
                            jd.AllGatherOp(x, _axes_attr(axes), dimension, axis_size,
                                           tiled=True if tiled else None,
                                           invariant=True if invariant else None).result)
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
    groups = _groups(axis_index_groups, names, "psum")
    size = _group_size(names) if groups is None else len(groups[0])

    def one(leaf: Any) -> Any:
        if type(leaf) in _PYTHON_SCALARS:
            return (int(leaf) if type(leaf) is bool else leaf) * size
        leaf = _operand(leaf, "psum")
        if leaf.dtype == np.bool_:
            leaf = lax.convert_element_type(leaf, np.int32)
        if groups is not None:
            return _grouped_reduction(leaf, names, groups, "sum")
        return _REDUCE_PRIMS["psum"].bind(leaf, axes=names)
    return _tree_map(one, x)


def _reducer(name: str, doc: str):
    def apply(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
        names = _names(axis_name, name)
        groups = _groups(axis_index_groups, names, name)
        _group_size(names)
        if groups is not None:
            return _tree_map(lambda leaf: _grouped_reduction(_operand(leaf, name), names, groups, name[1:]), x)
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
    groups = _groups(axis_index_groups, names, "pmean")
    size = _group_size(names) if groups is None else len(groups[0])

    def one(leaf: Any) -> Any:
        if type(leaf) in _PYTHON_SCALARS:
            return leaf * size / size
        leaf = _operand(leaf, "pmean")
        if dtypes.issubdtype(leaf.dtype, np.inexact) and groups is None:
            return _REDUCE_PRIMS["pmean"].bind(leaf, axes=names)
        from .. import numpy as jnp
        return jnp.true_divide(psum(leaf, names, axis_index_groups=groups), size)
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
               tiled: bool = False, to: str = "varying") -> Any:
    """Every member's `x`, stacked along a new dimension `axis` (or, when
    `tiled`, concatenated along the existing dimension `axis`). In a
    shard_map body the result varies over the axes (its transpose sums the
    cotangents and scatters them); with `to='invarying'` it is the same on
    every device (JAX's all_gather_invariant: its transpose is this
    device's slice of the cotangent)."""
    if to not in ("varying", "invarying", "reduced"):
        raise ValueError(f"{core.where()}: Got unexpected `to` value for `jax.lax.all_gather`. Allowed "
                         f"`to` values are: {{'varying', 'reduced', 'invarying'}}")
    if to == "reduced":
        raise NotImplementedError(_NO_REDUCED.format(where=core.where(), call="lax.all_gather(..., to='reduced')"))
    if to == "invarying":  # JAX's all_gather_invariant takes no groups either
        _check_no_groups(axis_index_groups, "all_gather(..., to='invarying')")
    names = _names(axis_name, "all_gather")
    groups = _groups(axis_index_groups, names, "all_gather")
    size = _group_size(names)

    def one(leaf: Any) -> Any:
        leaf = _operand(leaf, "all_gather")
        if tiled and leaf.ndim == 0:
            raise ValueError(f"{core.where()}: lax.all_gather: tiled=True needs an operand of rank >= 1, "
                             f"got {leaf.aval.str_short()}")
        dim = _canonical_axis(axis, leaf.ndim if tiled else leaf.ndim + 1, "all_gather", "axis")
        if groups is not None:
            return _gather_group(leaf, names, groups, dim, bool(tiled))
        if len(names) > 1:
            return _gather_over(leaf, names, dim, bool(tiled), to == "invarying")
        return ALL_GATHER.bind(leaf, axes=names, dimension=dim, axis_size=size, tiled=bool(tiled),
                               invariant=to == "invarying")
    return _tree_map(one, x)


def _gather_over(leaf: Any, names: Sequence[str], dim: int, tiled: bool, invariant: bool) -> Any:
    """all_gather over several names (their members flattened, the first name
    outermost, as `axis_index` numbers them): one gather per name, the last
    first, each stacking at `dim`, then the stacked dims merged (with the
    gathered dim, when tiled)."""
    out = leaf
    for name in reversed(names):
        out = ALL_GATHER.bind(out, axes=(name,), dimension=dim, axis_size=_axis_size(name), tiled=False,
                              invariant=invariant)
    merged = len(names) + (1 if tiled else 0)
    shape = list(out.shape)
    return lax.reshape(out, shape[:dim] + [math.prod(shape[dim:dim + merged])] + shape[dim + merged:])


def _gather_group(leaf: Any, names: Sequence[str], groups: list[list[int]], dim: int, tiled: bool) -> Any:
    """all_gather within this member's group: every member's value gathered,
    then the rows of the group's members, in the group's order."""
    mine = _group_rows(_gather_over(leaf, names, 0, False, False), names, groups)  # (group size, *leaf.shape)
    moved = lax.transpose(mine, list(range(1, dim + 1)) + [0] + list(range(dim + 1, mine.ndim)))
    if not tiled:
        return moved
    shape = list(moved.shape)
    return lax.reshape(moved, shape[:dim] + [shape[dim] * shape[dim + 1]] + shape[dim + 2:])


def _own_rows(gathered: Any, names: Sequence[str], sources: Sequence[int]) -> Any:
    """Row `sources[i]` of `gathered` (every member's value stacked along
    dim 0) on member i of the flattened `names`; zeros where it is -1."""
    row = lax.dynamic_index_in_dim(gathered, _mine(np.array([max(s, 0) for s in sources], np.int32), names), 0,
                                   keepdims=False)
    if all(s >= 0 for s in sources):
        return row
    receives = _mine(np.array([s >= 0 for s in sources]), names)
    return lax.select(lax.broadcast_in_dim(receives, row.shape, ()), row, lax.full(row.shape, 0, row.dtype))


def pcast(x: Any, axis_name: Any, *, to: str) -> Any:
    """`to='varying'`: `x`, typed in a shard_map body as varying over the
    named axes (JAX's pvary: the identity on values, whose transpose sums
    the cotangents over the axes). A value already varying over one of them
    is JAX's ValueError (raised by passes/infer_vma.py at this line).
    `to='reduced'`/`'unreduced'` (JAX's sharding-in-types casts) are not
    supported."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{core.where()}: axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    if to not in ("varying", "reduced", "unreduced"):
        raise ValueError(f"{core.where()}: Got unexpected `to` value. Allowed `to` values are: "
                         f"{{'unreduced', 'reduced', 'varying'}}")
    if to != "varying":
        raise NotImplementedError(_NO_REDUCED.format(where=core.where(), call=f"lax.pcast(..., to={to!r})"))
    names = _names(axis_name, "pcast")
    _group_size(names)
    return _tree_map(lambda leaf: PVARY.bind(_operand(leaf, "pcast"), axes=names), x)


_NO_REDUCED = ("{where}: {call} is not supported: jaxc types a shard_map body by varying axes only, not by "
               "JAX's reduced/unreduced types (which JAX 0.10 checks op by op and lets leave the body only "
               "through out_specs on a mesh of Explicit axes); use to='varying', psum of a varying value, or "
               "all_gather(..., to='invarying')")

_VMA_BODY = threading.local()  # .active: a shard_map body under check_vma is being traced


@contextlib.contextmanager
def typing_vma(active: bool) -> Iterator[None]:
    """While tracing a shard_map body that check_vma types: `vary_like` marks."""
    before = getattr(_VMA_BODY, "active", False)
    _VMA_BODY.active = active
    try:
        yield
    finally:
        _VMA_BODY.active = before


def vary_like(out: Any, like: Any) -> Any:
    """`out` (a fill made for `zeros_like(like)` and friends), typed in a
    shard_map body as `like` is, as JAX types it: `select(true, out, like)`
    marked `jaxc.vma_like`, which passes/infer_vma.py replaces by `out`
    (pvaried). Elsewhere, or when the two differ in shape or dtype, `out`."""
    if not getattr(_VMA_BODY, "active", False) or not isinstance(like, core.Tracer) \
            or not isinstance(out, core.Tracer) or (out.shape, out.dtype) != (like.shape, like.dtype):
        return out
    return _VARY_LIKE.bind(out, like)


def _vary_like_op(fill: ir.Value, like: ir.Value) -> ir.Value:
    true = jd.ConstantOp(ir.DenseElementsAttr.get_splat(
        ir.RankedTensorType.get([], ir.IntegerType.get_signless(1)),
        ir.IntegerAttr.get(ir.IntegerType.get_signless(1), 1))).result
    op = jd.SelectOp(true, fill, like)
    op.operation.attributes["jaxc.vma_like"] = ir.UnitAttr.get()
    return op.result


_VARY_LIKE = lax._primitive("vary_like", _vary_like_op, weak=lambda avals: avals[0].weak_type)


def pvary(x: Any, axis_name: Any) -> Any:
    """`pcast(x, axis_name, to='varying')` (its older name)."""
    return pcast(x, axis_name, to="varying")


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Split `x` along `split_axis` into one chunk per member, send chunk j
    to member j and concatenate what arrives (in member order) along
    `concat_axis`. Untiled, `x.shape[split_axis]` must be the axis size: that
    dimension goes away and a new one of the axis size appears at
    `concat_axis`."""
    names = _names(axis_name, "all_to_all")
    groups = _groups(axis_index_groups, names, "all_to_all")
    size = _group_size(names) if groups is None else len(groups[0])

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
        if len(names) > 1 or groups is not None:
            out = _all_to_all_over(leaf, names, split, concat, size, groups)
        else:
            out = ALL_TO_ALL.bind(leaf, axes=names, split_axis=split, concat_axis=concat, axis_size=size)
        if not tiled and split != concat:
            out = lax.squeeze(out, (split,))
        return out
    return _tree_map(one, x)


def _all_to_all_over(leaf: Any, names: Sequence[str], split: int, concat: int, size: int,
                     groups: list[list[int]] | None = None) -> Any:
    """all_to_all over several names, or within groups: every member's
    operand gathered, then this member's chunk of each of its group's (chunk
    i of their split axis, i this member's position: its flattened index, or
    its place in its group), concatenated in (group) order along `concat`.
    (Every operand reaches every member: more than the exchange needs, as
    the MPI path does across processes.)"""
    gathered = _gather_over(leaf, names, 0, False, False)  # (members, *leaf.shape)
    me = axis_index(tuple(names))
    if groups is not None:
        gathered = _group_rows(gathered, names, groups)
        me = _mine(_place_in_group(groups), names)
    chunk = leaf.shape[split] // size
    starts = [lax.full((), 0, np.int32)] * gathered.ndim
    starts[split + 1] = lax.mul(me, np.int32(chunk))
    sizes = list(gathered.shape)
    sizes[split + 1] = chunk
    pieces = lax.dynamic_slice(gathered, starts, sizes)  # (size, ..., chunk, ...)
    order = list(range(1, concat + 1)) + [0] + list(range(concat + 1, pieces.ndim))
    moved = lax.transpose(pieces, order)  # the member dim right before concat's
    shape = list(moved.shape)
    return lax.reshape(moved, shape[:concat] + [shape[concat] * shape[concat + 1]] + shape[concat + 2:])


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
    if len(names) > 1:  # every member's value gathered, each takes its source's row
        sources = [-1] * size
        for src, dst in pairs:
            sources[dst] = src
        return _tree_map(lambda leaf: _own_rows(_gather_over(_operand(leaf, "ppermute"), names, 0, False, False),
                                                names, sources), x)
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
