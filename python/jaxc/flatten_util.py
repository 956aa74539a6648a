"""`jax.flatten_util`: `ravel_pytree`, a pytree of arrays as one flat vector
and the function that gives the pytree back.

    flat, unravel = ravel_pytree({"w": jnp.ones((2, 3)), "b": jnp.zeros(3)})
    flat.shape            # (9,): the leaves raveled in tree order
    unravel(flat * 2)     # {"w": ..., "b": ...} with the original shapes

The leaves are promoted to their common dtype (`jnp.result_type`); with
more than one dtype, `unravel` converts each piece back to its leaf's dtype
and takes only arrays of the common dtype (TypeError otherwise); with one,
it keeps the dtype it is given. `unravel` functions compare equal and hash
alike when they rebuild the same structure, so they can be static
arguments. An empty pytree gives an empty float32 vector.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from . import numpy as jnp, tree_util
from .lax import _ops as lax

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree: Any) -> tuple[Any, "Unravel"]:
    """``(flat, unravel)``: the leaves of `pytree` raveled and concatenated
    into one 1-d array, and the function mapping such an array back to a
    pytree of the same structure, shapes and dtypes."""
    leaves, tree = tree_util.tree_flatten(pytree)
    arrays = [jnp.asarray(leaf) for leaf in leaves]
    dtypes = tuple(np.dtype(a.dtype) for a in arrays)
    common = np.dtype(jnp.result_type(*dtypes)) if arrays else np.dtype(np.float32)  # dtypes: no weak types, as JAX
    if not arrays:
        flat = jnp.zeros((0,), np.float32)
    else:
        flat = jnp.concatenate([jnp.ravel(lax.convert_element_type(a, common)) for a in arrays])
    unravel = Unravel(tree, tuple(tuple(a.shape) for a in arrays), dtypes,
                      None if len(set(dtypes)) <= 1 else common)
    return flat, unravel


@dataclasses.dataclass(frozen=True)
class Unravel:
    """The inverse of one `ravel_pytree`: a 1-d array of the total size back
    to the pytree (`common`: the dtype it must have, when the leaves had
    several; None: any, each piece keeps it). Equal and hashed by these
    fields."""

    tree: Any
    shapes: tuple
    dtypes: tuple
    common: np.dtype | None

    @property
    def size(self) -> int:
        return sum(int(np.prod(s)) for s in self.shapes)

    def __repr__(self) -> str:
        return f"<unravel to {self.tree}>"

    def __call__(self, flat: Any) -> Any:
        flat = jnp.asarray(flat)
        if flat.shape != (self.size,):
            raise ValueError(f"unravel function expects a 1-d array of {self.size} elements (the leaves' "
                             f"sizes: {[int(np.prod(s)) for s in self.shapes]}), got shape {flat.shape}")
        if self.common is not None and flat.dtype != self.common:
            raise TypeError(f"unravel function given array of dtype {flat.dtype}, but expected dtype "
                            f"{self.common}")
        pieces, start = [], 0
        for shape, dtype in zip(self.shapes, self.dtypes):
            size = int(np.prod(shape))
            piece = lax.reshape(lax.slice_in_dim(flat, start, start + size, 1, 0), shape)
            pieces.append(piece if self.common is None else lax.convert_element_type(piece, dtype))
            start += size
        return tree_util.tree_unflatten(self.tree, pieces)
