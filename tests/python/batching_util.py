"""`check_vmap`: vmap(f)(*args) against stacking f over a Python loop.

The reference slices every mapped argument with NumPy, calls `f` (under
`jaxc.jit`, so it is the unbatched program) once per index, and stacks the
results along each output's out_axis. Both sides run the same f, so the
test checks the batching, not the op.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

import jaxc
from jaxc import tree_util


def _per_arg(axes: Any, n: int) -> list:
    return list(axes) if isinstance(axes, (tuple, list)) else [axes] * n


def loop_reference(f: Callable, args: Sequence[Any], in_axes: Any = 0, out_axes: Any = 0) -> Any:
    """np.stack of f over the mapped axis (in_axes/out_axes: an int, None or
    one entry per argument / output leaf; no nested prefixes)."""
    axes = _per_arg(in_axes, len(args))
    sizes = {np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None}
    assert len(sizes) == 1, f"mapped sizes differ: {sizes}"
    size = sizes.pop()
    jf = jaxc.jit(f)
    outs = []
    for i in range(size):
        sliced = [a if ax is None else np.take(np.asarray(a), i, axis=ax) for a, ax in zip(args, axes)]
        outs.append(tree_util.tree_map(np.asarray, jf(*sliced)))
    leaves0, tree = tree_util.tree_flatten(outs[0])
    per_leaf = [[tree_util.tree_leaves(o)[k] for o in outs] for k in range(len(leaves0))]
    oaxes = _per_arg(out_axes, len(leaves0))
    stacked = [p[0] if ax is None else np.stack(p, axis=ax % (np.ndim(p[0]) + 1))
               for p, ax in zip(per_leaf, oaxes)]
    return tree_util.tree_unflatten(tree, stacked)


def check_vmap(f: Callable, args: Sequence[Any], in_axes: Any = 0, out_axes: Any = 0,
               rtol: float = 1e-6, atol: float = 1e-6, exact: bool = False) -> None:
    """vmap(f, in_axes, out_axes)(*args) equals the loop reference (dtype
    and shape included; `exact` for integer/bit results)."""
    got = jaxc.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    want = loop_reference(f, args, in_axes, out_axes)
    got_leaves, got_tree = tree_util.tree_flatten(got)
    want_leaves, want_tree = tree_util.tree_flatten(want)
    assert got_tree == want_tree, (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        g = np.asarray(g)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        if exact or not np.issubdtype(w.dtype, np.inexact):
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
