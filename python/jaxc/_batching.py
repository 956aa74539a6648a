"""`vmap`: map a function over a batch axis of its arguments.

Nothing is batched while tracing. `vmap(f)` traces `f` on one slice into a
private `func.func` (the callee) and emits a `jaxc.vmap` request naming the
batch axis of every input (`in_axes`, -1 for an unmapped one) and of every
output (`out_axes`); the `jaxc-batch` pass rewrites the request into batched
ops before lowering, innermost first, so vmap composes with jit, grad and
itself. `make_ir(vmap(jnp.dot, in_axes=(0, None)))(m, v)` for m of shape
(4, 3) and v of shape (3,):

    func.func @jit_vmap_dot(%arg0: tensor<4x3xf32>, %arg1: tensor<3xf32>) -> tensor<4xf32> {
      %0 = jaxc.vmap @dot_0(%arg0, %arg1) in_axes = [0, -1] out_axes = [0] axis_size = 4
             : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }

What the callee closes over becomes extra unmapped inputs. Called outside
any trace, the mapped function runs through `jit` (cached per signature).
"""
from __future__ import annotations

import contextlib
import inspect
import itertools
import operator
import threading
from typing import Any, Callable, Iterator

import mlir.ir as ir
import numpy as np
import optree

import jaxc.dialect as jd

from . import core, dtypes, tree_util
from ._autodiff import _Callee, _emit, _name, _Transformed
from .core import ShapedArray

__all__ = ["vmap"]


class _Unmapped:
    """Stands for None in an axes tree (where None would be an empty subtree)."""

    def __repr__(self) -> str:
        return "None"


_UNMAPPED = _Unmapped()

# (axis_name, size) of the vmaps whose callee is being traced, innermost
# last: the collectives in `lax` look their axis up here
_AXES = threading.local()


def bound_axes() -> list[tuple[str, int]]:
    """The named axes bound by the enclosing vmaps, innermost last."""
    if not hasattr(_AXES, "stack"):
        _AXES.stack = []
    return _AXES.stack


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_size: int | None = None,
         axis_name: str | None = None, spmd_axis_name: Any = None) -> Callable:
    """`fun` mapped over a batch axis, as `jax.vmap`.

    `in_axes`: an int (the mapped axis of every argument; negative counts
    from the end), None (not mapped), or a tuple with one entry per
    positional argument, each a pytree prefix of that argument (dicts
    included). Keyword arguments are mapped over axis 0. `out_axes`: likewise
    for the output pytree; None means the output must not depend on the
    batch. `axis_size` is needed only when no input is mapped; `axis_name`
    names the axis for collectives (`lax.psum(x, axis_name)`) and
    `lax.axis_index`.
    """
    if not callable(fun):
        raise TypeError(f"vmap: fun must be callable, got {type(fun).__name__}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if spmd_axis_name is not None:
        raise NotImplementedError("vmap: spmd_axis_name needs pmap, which does not exist yet")
    _check_axes_tree(in_axes, "in_axes")
    _check_axes_tree(out_axes, "out_axes")
    if axis_size is not None:
        axis_size = operator.index(axis_size)
    name = axis_name if axis_name is None else str(axis_name)

    def impl(*args: Any, **kwargs: Any) -> Any:
        return _vmap(fun, in_axes, out_axes, axis_size, name, args, kwargs)
    return _Transformed(fun, "vmap", impl)


def _check_axes_tree(axes: Any, what: str) -> None:
    for leaf in optree.tree_leaves(axes, none_is_leaf=True, namespace=tree_util.NAMESPACE):
        if leaf is not None and not isinstance(leaf, int):
            raise TypeError(f"vmap {what} must be an int, None, or a (nested) container with those "
                            f"types as leaves, but got {leaf!r} ({type(leaf).__name__})")


def _broadcast_axes(axes: Any, tree: Any, what: str) -> list[int | None]:
    """One axis (or None) per leaf of `tree`, `axes` being a prefix of it."""
    marked = optree.tree_map(lambda a: _UNMAPPED if a is None else a, axes, none_is_leaf=True,
                             namespace=tree_util.NAMESPACE)
    try:
        full = optree.broadcast_prefix(marked, tree, none_is_leaf=False, namespace=tree_util.NAMESPACE)
    except ValueError as error:
        raise ValueError(f"{core.where()}: vmap {what} specification must be a tree prefix of the "
                         f"corresponding value, got specification {axes!r} for value tree "
                         f"{tree_util.tree_structure(tree)}: {error}") from None
    return [None if isinstance(a, _Unmapped) else a for a in full]


def _argument_names(fun: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"args[{i}]" for i in range(n)]


def _leaf_names(fun: Callable, args: tuple, kwargs: dict) -> list[str]:
    """A readable name per leaf of (args, kwargs): `xs`, `params['w']`, ..."""
    names = []
    for arg_name, arg in zip(_argument_names(fun, len(args)), args):
        for path in optree.tree_paths(arg, none_is_leaf=False, namespace=tree_util.NAMESPACE):
            names.append(arg_name + "".join(f"[{p!r}]" for p in path))
    for key, value in kwargs.items():
        for path in optree.tree_paths(value, none_is_leaf=False, namespace=tree_util.NAMESPACE):
            names.append(key + "".join(f"[{p!r}]" for p in path))
    return names


def flat_in_axes(in_axes: Any, args: tuple, kwargs: dict, transform: str) -> tuple[list, Any, list]:
    """The leaves of (args, kwargs), their tree, and each leaf's mapped axis
    per `in_axes` (None: unmapped; keyword arguments: 0), for vmap and pmap."""
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError(f"{core.where()}: {transform} in_axes must be an int, None, or a tuple of entries "
                         f"corresponding to the positional arguments passed to the function, but got "
                         f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    axes = _broadcast_axes(in_axes, args, "in_axes") + [0] * (len(leaves) - len(tree_util.tree_leaves(args)))
    return leaves, in_tree, axes


@contextlib.contextmanager
def binding(axes: list[tuple[str, int]]) -> Iterator[None]:
    """Bind named axes (name, size) for the collectives traced inside."""
    stack = bound_axes()
    stack.extend(axes)
    try:
        yield
    finally:
        del stack[len(stack) - len(axes):]


def _vmap(fun: Callable, in_axes: Any, out_axes: Any, axis_size: int | None, axis_name: str | None,
          args: tuple, kwargs: dict) -> Any:
    what = f"vmap({_name(fun)})"
    leaves, in_tree, axes = flat_in_axes(in_axes, args, kwargs, "vmap")
    leaves = [core.as_operand(x, what) for x in leaves]
    names = _leaf_names(fun, args, kwargs)
    axes = [_normalize_in_axis(a, x, n) for a, x, n in zip(axes, leaves, names)]
    size = _axis_size(axes, leaves, names, axis_size)
    slice_avals = [ShapedArray(x.shape if a is None else x.shape[:a] + x.shape[a + 1:], x.dtype, x.weak_type)
                   for x, a in zip(leaves, axes)]

    def flat_fun(*xs: Any) -> Any:
        a, k = tree_util.tree_unflatten(in_tree, xs)
        return fun(*a, **k)

    with binding([] if axis_name is None else [(axis_name, size)]):
        callee = _Callee(flat_fun, slice_avals, _name(fun), what)
    if out_axes is None or type(out_axes) is int:
        # one axis for every leaf: no result tree rebuilt from avals (a custom pytree's
        # unflatten may not take them: RegularGridInterpolator's __init__)
        out_leaf_axes: list[int | None] = [out_axes] * len(callee.out_avals)
        float0_axes: Iterator[int | None] = itertools.repeat(out_axes)
    else:
        out_shapes = tree_util.tree_unflatten(callee.out_tree, callee.out_avals)  # float0 zeros too
        all_axes = _broadcast_axes(out_axes, out_shapes, "out_axes")
        kinds = [dtypes.is_float0(y) for y in tree_util.tree_leaves(out_shapes)]
        out_leaf_axes = [a for a, f in zip(all_axes, kinds) if not f]
        float0_axes = iter([a for a, f in zip(all_axes, kinds) if f])
    out_leaf_axes = [_normalize_out_axis(a, y, what) for a, y in zip(out_leaf_axes, callee.out_avals)]
    result_avals = [y if a is None else ShapedArray(y.shape[:a] + (size,) + y.shape[a:], y.dtype, y.weak_type)
                    for y, a in zip(callee.out_avals, out_leaf_axes)]
    operands = leaves + list(callee.captured)
    in_attr = [-1 if a is None else a for a in axes] + [-1] * len(callee.captured)
    out_attr = [-1 if a is None else a for a in out_leaf_axes]

    def make(values: list[ir.Value], types: list[ir.Type]) -> Any:
        return jd.VmapOp(types, callee.symbol, values, in_attr, out_attr, size,
                         axis_name=None if axis_name is None else ir.StringAttr.get(axis_name))
    outs = _emit(make, operands, result_avals)
    result = tree_util.tree_unflatten(callee.out_tree, outs)
    if any(dtypes.is_float0(y) for y in tree_util.tree_leaves(result)):
        # float0 results (tangents of integers) gain the mapped axis too
        result = tree_util.tree_map(lambda y: _batched_float0(y, next(float0_axes), size)
                                    if dtypes.is_float0(y) else y, result)
    return result


def _batched_float0(y: np.ndarray, axis: int | None, size: int) -> np.ndarray:
    if axis is None:
        return y
    shape = list(y.shape)
    shape.insert(axis % (len(shape) + 1), size)
    return dtypes.float0_zeros(tuple(shape))


def _normalize_in_axis(axis: int | None, x: Any, name: str, what: str = "vmap") -> int | None:
    if axis is None:
        return None
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{core.where()}: {what} was requested to map its argument along axis {axis}, "
                         f"which implies that its rank should be at least {axis + 1 if axis >= 0 else -axis}, "
                         f"but is only {x.ndim} (its shape is {x.shape}; argument {name})")
    return axis % x.ndim


def _normalize_out_axis(axis: int | None, y: ShapedArray, what: str) -> int | None:
    if axis is None:
        return None
    if not -(y.ndim + 1) <= axis <= y.ndim:
        raise ValueError(f"{core.where()}: {what}: out_axes={axis} is out of range for an output of "
                         f"rank {y.ndim} (shape {y.shape}); the mapped output has rank {y.ndim + 1}")
    return axis % (y.ndim + 1)


def _axis_size(axes: list, leaves: list, names: list[str], axis_size: int | None,
               what: str = "vmap") -> int:
    """The one size of every mapped axis (and `axis_size`, when given)."""
    sizes = {(n, x.shape[a], a, x.aval.str_short()) for n, x, a in zip(names, leaves, axes) if a is not None}
    distinct = {s[1] for s in sizes}
    if axis_size is not None:
        distinct.add(axis_size)
    if not distinct:
        raise ValueError(f"{core.where()}: {what} must have at least one non-None value in in_axes "
                         "(or be given axis_size)")
    if len(distinct) > 1:
        lines = [f"  * axis {a} of argument {n} of type {t} has size {s}"
                 for n, s, a, t in sorted(sizes, key=lambda s: names.index(s[0]))]
        if axis_size is not None:
            lines.append(f"  * axis_size is {axis_size}")
        raise ValueError(f"{core.where()}: {what} got inconsistent sizes for array axes to be mapped:\n"
                         + "\n".join(lines))
    return distinct.pop()
