"""`jaxc.tree`: JAX's `jax.tree` namespace, short names for `jaxc.tree_util`.

    jaxc.tree.map(lambda x: 2 * x, {"w": w, "b": b})
    jaxc.tree.leaves_with_path(params)   # [((DictKey(key='b'),), b), ...]
"""
import dataclasses as _dataclasses
from typing import Any as _Any

from .tree_util import (
    tree_all as all,
    tree_broadcast as broadcast,
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_reduce_associative as reduce_associative,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)


def static(**kwargs: _Any) -> _Any:
    """`dataclasses.field(**kwargs)` marked static for `jaxc.tree_util.register_dataclass`."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return _dataclasses.field(metadata=metadata, **kwargs)


__all__ = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
           "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose", "unflatten"]
