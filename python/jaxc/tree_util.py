"""`jaxc.tree_util`: pytrees, as in JAX, on top of optree.

A pytree is a nest of tuples, lists, dicts, namedtuples, None and registered
classes; everything else is a leaf. optree does the flattening in C++ (it is
on jit's dispatch path); jaxc registers its classes in the "jaxc" namespace.

    leaves, tree = tree_flatten({"w": w, "b": (b, None)})
    tree_unflatten(tree, [2 * x for x in leaves])
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import optree

NAMESPACE = "jaxc"
PyTreeDef = optree.PyTreeSpec


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves, treedef) of `tree`; None is an empty subtree."""
    return optree.tree_flatten(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    return optree.tree_unflatten(treedef, list(leaves))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return optree.tree_leaves(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return optree.tree_structure(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` leaf by leaf; `rest` must have the structure of `tree`."""
    return optree.tree_map(f, tree, *rest, is_leaf=is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    return treedef.is_leaf()


def tree_all(tree: Any) -> bool:
    return all(tree_leaves(tree))


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, Iterable[Any]], Any]) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux)`,
    `unflatten_func(aux, children) -> x` (JAX's signatures)."""
    optree.register_pytree_node(nodetype, flatten_func, unflatten_func, namespace=NAMESPACE)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: `cls.tree_flatten()` and `cls.tree_unflatten(aux, children)`."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


__all__ = ["PyTreeDef", "register_pytree_node", "register_pytree_node_class", "tree_all",
           "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten",
           "treedef_children", "treedef_is_leaf"]
