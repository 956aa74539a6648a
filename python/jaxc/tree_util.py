"""`jaxc.tree_util`: pytrees, as in JAX, on top of optree.

A pytree is a nest of tuples, lists, dicts, namedtuples, None and registered
classes; everything else is a leaf. optree does the flattening in C++ (it is
on jit's dispatch path); jaxc registers its classes in the "jaxc" namespace.

    leaves, tree = tree_flatten({"w": w, "b": (b, None)})
    tree_unflatten(tree, [2 * x for x in leaves])

Key paths (`tree_flatten_with_path`, `keystr`) use JAX's key classes:
`SequenceKey` (lists, tuples), `DictKey` (dicts), `GetAttrKey` (namedtuples,
dataclasses), `FlattenedIndexKey` (classes registered without keys).
Differences from JAX: a treedef is an `optree.PyTreeSpec` (its repr reads
`PyTreeSpec(...)`: the C++ type cannot take another repr, and a wrapper would
cost ~0.2 us per flatten) and `collections.deque` is a node. Dicts come back
with their keys sorted, as JAX's (optree alone would restore the original
insertion order: `_jax_key_order`).
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import operator
import warnings
from typing import Any, Callable, Hashable, Iterable, Sequence, TypeVar

import numpy as np
import optree

NAMESPACE = "jaxc"
PyTreeDef = optree.PyTreeSpec
T = TypeVar("T")
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]
_NodeClass = TypeVar("_NodeClass", bound=type[Any])


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves, treedef) of `tree`; None is an empty subtree."""
    return optree.tree_flatten(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    return optree.tree_unflatten(_jax_key_order(treedef), list(leaves))


_UNORDERED_DICTS = (dict, collections.defaultdict)


def _sorted_dict_node(node: PyTreeDef) -> PyTreeDef:
    """A one-level treedef; a dict's with its keys in flattening (sorted) order."""
    if node.type not in _UNORDERED_DICTS:
        return node
    skeleton: Any = node.unflatten(range(node.num_children))  # the dict (or defaultdict) of child indices
    ordered = {key: skeleton[key] for key in node.entries()}
    if node.type is collections.defaultdict:
        ordered = collections.defaultdict(skeleton.default_factory, ordered)
    # (ignored: optree annotates trees as `PyTree[T]`, a union at run time that mypy sees as a class no dict matches)
    return optree.tree_structure(ordered, none_is_leaf=False, namespace=NAMESPACE)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=4096)
def _cached_key_order(treedef: PyTreeDef) -> PyTreeDef:
    return treedef.transform(_sorted_dict_node)


def _jax_key_order(treedef: PyTreeDef) -> PyTreeDef:
    """`treedef` with every dict's keys sorted, as JAX builds dicts when it
    unflattens (``tree_map(f, {"x": 1, "v": 2})`` is ``{"v": ..., "x": ...}``);
    optree keeps the key order of the tree it flattened. Treedefs that differ
    only in that order are equal, so one cached answer serves them all."""
    try:
        return _cached_key_order(treedef)
    except TypeError:  # a registered node with unhashable data: not cached
        return treedef.transform(_sorted_dict_node)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return optree.tree_leaves(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return optree.tree_structure(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` leaf by leaf; `rest` must have the structure of `tree`."""
    leaves, treedef = optree.tree_flatten(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)
    columns = [treedef.flatten_up_to(r) for r in rest]
    return optree.tree_unflatten(_jax_key_order(treedef), [f(*xs) for xs in zip(leaves, *columns)])


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single node: a leaf or None (as JAX: `num_nodes == 1`)."""
    return treedef.num_nodes == 1


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have the structures `treedefs`."""
    return optree.treespec_tuple(list(treedefs), none_is_leaf=False, namespace=NAMESPACE)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of `iterable` is a leaf (None is not)."""
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(x is y for x, y in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """True for a registered node type (built-in or custom) or a namedtuple type."""
    return optree.register_pytree_node.get(typ, namespace=NAMESPACE) is not None


class _Unspecified:
    """No `initializer` / `identity` given (None is a valid one)."""


def tree_reduce(function: Callable[[T, Any], T], tree: Any, initializer: Any = _Unspecified(),
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """`functools.reduce` over the leaves of `tree`."""
    leaves = tree_leaves(tree, is_leaf)
    if isinstance(initializer, _Unspecified):
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *, identity: Any = _Unspecified(),
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduce the leaves pairwise as a balanced tree (`operation` must be associative)."""
    def reduce(xs: list) -> Any:
        if not xs:
            if isinstance(identity, _Unspecified):
                raise TypeError("Must specify identity for parallel reduction of empty sequence.")
            return identity
        if len(xs) == 1:
            return xs[0]
        return operation(reduce(xs[:len(xs) // 2]), reduce(xs[len(xs) // 2:]))
    return reduce(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """Turn an outer tree of inner trees into an inner tree of outer trees."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef_str(treedef)}\n != \n{treedef_str(expected)}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    return tree_unflatten(inner_treedef, [tree_unflatten(outer_treedef, col) for col in zip(*rows)])


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`full_tree`'s structure, each leaf the `prefix_tree` leaf above it."""
    leaves: list[Any] = []
    tree_map(lambda x, subtree: leaves.extend([x] * tree_structure(subtree).num_leaves),
             prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_unflatten(tree_structure(full_tree), leaves)


# -- key paths ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """Index `idx` of a list or tuple; prints as `[0]`."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    """Key `key` of a dict; prints as `['a']`."""
    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """Attribute `name` (namedtuple field, dataclass field); prints as `.name`."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """Child number `key` of a node registered without keys; prints as `[<flat index 0>]`."""
    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


# What `keystr(..., simple=True)` prints of each key class.
_SIMPLE_KEY = {SequenceKey: operator.attrgetter("idx"), DictKey: operator.attrgetter("key"),
               GetAttrKey: operator.attrgetter("name"), FlattenedIndexKey: operator.attrgetter("key")}


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: `"['a'][0].x"`, or `"a/0/x"` with `simple=True, separator="/"`."""
    if simple:
        return separator.join(str(_SIMPLE_KEY[type(k)](k)) if type(k) in _SIMPLE_KEY else str(k) for k in keys)
    return separator.join(map(str, keys))


# Key functions of the custom node types: node -> the keys of its children.
_KEYS: dict[type, Callable[[Any], list[Any]]] = {}


def _child_keys(node: Any, n_children: int) -> list[Any]:
    """The keys of `node`'s children: by the type's registration, else by its kind."""
    keys = _KEYS.get(type(node))
    if keys is not None:
        return keys(node)
    if optree.is_namedtuple_instance(node):
        return [GetAttrKey(f) for f in node._fields]
    if isinstance(node, dict):  # (ignored: optree's `PyTree[T]`, as in `_sorted_dict_node`)
        entries = optree.tree_flatten_one_level(node, none_is_leaf=False,  # type: ignore[arg-type]
                                                namespace=NAMESPACE).entries
        return [DictKey(k) for k in entries]
    return [SequenceKey(i) for i in range(n_children)]


def _is_leaf(tree: Any) -> bool:
    """Whether `tree` is a leaf of the "jaxc" registry (None is a node)."""
    return optree.tree_is_leaf(tree, none_is_leaf=False, namespace=NAMESPACE)


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """([(key path, leaf)], treedef); `is_leaf(path, x)` with `is_leaf_takes_path`."""
    pairs: list[tuple[KeyPath, Any]] = []
    stops: list[bool] = []   # is_leaf's answers, node by node in optree's (depth-first) order

    def visit(path: KeyPath, node: Any) -> None:
        if is_leaf is not None:
            stops.append(bool(is_leaf(path, node) if is_leaf_takes_path else is_leaf(node)))
            if stops[-1]:
                pairs.append((path, node))
                return
        if _is_leaf(node):
            pairs.append((path, node))
            return
        children = optree.tree_flatten_one_level(node, none_is_leaf=False, namespace=NAMESPACE).children
        for key, child in zip(_child_keys(node, len(children)), children):
            visit((*path, key), child)

    visit((), tree)
    answers = iter(stops)
    return pairs, tree_structure(tree, None if is_leaf is None else lambda _: next(answers))


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """`tree_map` with `f(path, x, *rest_leaves)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    columns = [treedef.flatten_up_to(r) for r in rest]
    return _jax_key_order(treedef).unflatten([f(path, x, *xs) for (path, x), *xs in zip(pairs, *columns)])


def flatten_one_level(tree: Any) -> tuple[list[Any], Hashable]:
    """(children, aux data) of one pytree node; ValueError on a leaf."""
    if _is_leaf(tree):
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    out = optree.tree_flatten_one_level(tree, none_is_leaf=False, namespace=NAMESPACE)
    as_jax = _JAX_AUX.get(type(tree))
    return out.children, (out.metadata if as_jax is None else as_jax(out.metadata))


# optree's aux data of the built-in mappings (key lists) -> JAX's (key tuples, hashable).
_JAX_AUX: dict[type, Callable[[Any], Hashable]] = {
    dict: tuple, collections.OrderedDict: tuple,
    collections.defaultdict: lambda aux: (aux[0], tuple(aux[1])),
}


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[KeyEntry, Any]], Hashable]:
    children, aux = flatten_one_level(tree)
    return list(zip(_child_keys(tree, len(children)), children)), aux


# -- registration ---------------------------------------------------------------------

def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, Iterable[Any]], Any],
                         flatten_with_keys_func: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None = None,
                         ) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux)`,
    `unflatten_func(aux, children) -> x` (JAX's signatures); key paths come
    from `flatten_with_keys_func(x) -> ([(key, child)], aux)`, else `FlattenedIndexKey`s."""
    with warnings.catch_warnings():
        # optree warns when a namedtuple subclass leaves its built-in handling; JAX allows it silently.
        warnings.filterwarnings("ignore", message=r".*subclass of `collections\.namedtuple`", category=UserWarning)
        optree.register_pytree_node(nodetype, flatten_func, unflatten_func, namespace=NAMESPACE)
    if flatten_with_keys_func is None:
        _KEYS[nodetype] = lambda x: [FlattenedIndexKey(i) for i in range(len(list(flatten_func(x)[0])))]
    else:
        _KEYS[nodetype] = lambda x: [k for k, _ in flatten_with_keys_func(x)[0]]


def register_pytree_node_class(cls: _NodeClass) -> _NodeClass:
    """Class decorator: `cls.tree_flatten()` and `cls.tree_unflatten(aux, children)`."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]],
                              unflatten_func: Callable[[Any, Iterable[Any]], Any],
                              flatten_func: Callable[[Any], tuple[Iterable[Any], Any]] | None = None) -> None:
    """`register_pytree_node` with `flatten_with_keys(x) -> ([(key, child)], aux)`."""
    if flatten_func is None:
        def flatten_func(x: Any) -> tuple[list[Any], Any]:
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: _NodeClass) -> _NodeClass:
    """Class decorator: `cls.tree_flatten_with_keys()`, `cls.tree_unflatten(aux, children)`
    (and `cls.tree_flatten()` if defined)."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"), cls.tree_unflatten, flatten)
    return cls


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> type:
    """Register a class by field names: `data_fields` are children (leaves under
    jit), `meta_fields` are static aux data. For a dataclass both default to its
    fields, static ones being those with `metadata={"static": True}` (`jaxc.tree.static`)."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be specified"
                            f" when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required when"
                            f" nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if {*data_fields, *meta_fields} != init_fields:
            msg = "data_fields and meta_fields must include all dataclass fields with ``init=True`` and only them."
            if missing := init_fields - {*meta_fields, *data_fields}:
                msg += f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
            if unexpected := {*meta_fields, *data_fields} - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}.")

    def flatten(x: Any) -> tuple[tuple, tuple]:
        return tuple(getattr(x, n) for n in data_fields), tuple(getattr(x, n) for n in meta_fields)

    def unflatten(meta: tuple, data: Iterable[Any]) -> Any:
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    register_pytree_node(nodetype, flatten, unflatten,
                         lambda x: ([(GetAttrKey(n), getattr(x, n)) for n in data_fields], flatten(x)[1]))
    return nodetype


class PyTreeRegistry:
    """JAX's registry of pytree node types, as `default_registry` (the one
    every tree function here uses) exposes it::

        default_registry.flatten({"a": 1, "b": (2, 3)})   # ([1, 2, 3], PyTreeDef(...))
        default_registry.flatten_one_level(3)             # None: a leaf
        default_registry.register_node(A, to_iterable, from_iterable)
    """

    def flatten(self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None,
                ) -> tuple[list[Any], PyTreeDef]:
        return tree_flatten(tree, leaf_predicate)

    def flatten_one_level(self, tree: Any) -> tuple[Iterable[Any], Hashable] | None:
        """(children, aux data) of a node; None for a leaf."""
        return None if _is_leaf(tree) else flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[Iterable[tuple[KeyEntry, Any]], Hashable] | None:
        return None if _is_leaf(tree) else flatten_one_level_with_keys(tree)

    def flatten_with_path(self, tree: Any, leaf_predicate: Callable[[KeyPath, Any], bool] | None = None,
                          ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
        """`leaf_predicate(path, x)` stops at a node, as in JAX."""
        return tree_flatten_with_path(tree, leaf_predicate, is_leaf_takes_path=True)

    def is_node(self, type: type) -> bool:
        return is_tree_node(type)

    def register_node(self, type: type, to_iterable: Callable[[Any], tuple[Iterable[Any], Any]],
                      from_iterable: Callable[[Any, Iterable[Any]], Any],
                      to_iterable_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None = None,
                      ) -> None:
        register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(self, type: type, data_fields: Sequence[str], meta_fields: Sequence[str], /) -> None:
        register_dataclass(type, data_fields, meta_fields)


default_registry = PyTreeRegistry()


def register_static(cls: type) -> type:
    """Register `cls` (hashable) as a pytree with no leaves: instances are static under jit."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x)
    return cls


# -- Partial --------------------------------------------------------------------------

class _HashableCallableShim:
    """Holds a `functools.partial` as Partial's function, so that its arguments stay aux data."""

    # the held partial's, set by `Partial.__new__`
    func: Callable
    args: tuple[Any, ...]
    keywords: dict[str, Any]

    def __init__(self, fun: Callable) -> None:
        self.fun = fun

    def __call__(self, *args: Any, **kw: Any) -> Any:
        return self.fun(*args, **kw)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: Any) -> bool:
        return self.fun == (other.fun if isinstance(other, _HashableCallableShim) else other)

    def __repr__(self) -> str:
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """`functools.partial` as a pytree: the bound arguments are its children (leaves
    under jit), the function its static aux data. `Partial(f)` makes `f` a jit argument."""

    def __new__(klass, func: Callable, *args: Any, **kw: Any) -> "Partial":
        if not isinstance(func, functools.partial):
            return super().__new__(klass, func, *args, **kw)
        # functools.partial would merge a partial's arguments into this one's: box it.
        shim = _HashableCallableShim(func)
        out = super().__new__(klass, shim, *args, **kw)
        shim.func, shim.args, shim.keywords = func.func, func.args, func.keywords
        return out


def _unflatten_partial(func: Callable, children: Iterable[Any]) -> Partial:
    args, keywords = children
    return Partial(func, *args, **keywords)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func), _unflatten_partial)


# -- printing treedefs as JAX does ----------------------------------------------------

def _node_aux(treedef: PyTreeDef) -> Any:
    """The aux data of `treedef`'s root node (rebuilt on placeholder leaves)."""
    one_level = treedef.one_level()
    assert one_level is not None  # a node: leaves have no aux data
    node = one_level.unflatten([None] * treedef.num_children)
    return flatten_one_level(node)[1]


def _join(children: Iterable[str]) -> str:
    return ", ".join(children)


def _type_name(treedef: PyTreeDef) -> str:
    """The name of the class of `treedef`'s root node (a namedtuple or custom node)."""
    node_type = treedef.type
    assert node_type is not None  # only leaves and None have no type
    return node_type.__name__


# optree kind -> how JAX prints such a node, given the spec and its children's strings.
_NODE_STR: dict[Any, Callable[[PyTreeDef, list[str]], str]] = {
    optree.PyTreeKind.LEAF: lambda t, cs: "*",
    optree.PyTreeKind.NONE: lambda t, cs: "None",
    optree.PyTreeKind.TUPLE: lambda t, cs: f"({cs[0]},)" if len(cs) == 1 else f"({_join(cs)})",
    optree.PyTreeKind.LIST: lambda t, cs: f"[{_join(cs)}]",
    optree.PyTreeKind.DICT: lambda t, cs: "{" + _join(f"{k!r}: {c}" for k, c in zip(t.entries(), cs)) + "}",
    optree.PyTreeKind.NAMEDTUPLE: lambda t, cs: f"CustomNode(namedtuple[{_type_name(t)}], [{_join(cs)}])",
    optree.PyTreeKind.ORDEREDDICT: lambda t, cs: f"CustomNode(OrderedDict[{tuple(t.entries())!r}], [{_join(cs)}])",
    optree.PyTreeKind.DEFAULTDICT: lambda t, cs: f"CustomNode(defaultdict[{_node_aux(t)!r}], [{_join(cs)}])",
}


def _node_str(treedef: PyTreeDef) -> str:
    children = [_node_str(c) for c in treedef.children()]
    rule = _NODE_STR.get(treedef.kind)
    if rule is not None:
        return rule(treedef, children)
    return f"CustomNode({_type_name(treedef)}[{_node_aux(treedef)!r}], [{_join(children)}])"


def treedef_str(treedef: PyTreeDef) -> str:
    """`treedef` as JAX prints a PyTreeDef: `PyTreeDef((*, {'a': *}))` (for error messages)."""
    return f"PyTreeDef({_node_str(treedef)})"


__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
           "SequenceKey", "all_leaves", "default_registry", "flatten_one_level", "flatten_one_level_with_keys",
           "is_tree_node", "keystr", "register_dataclass", "register_pytree_node", "register_pytree_node_class",
           "register_pytree_with_keys", "register_pytree_with_keys_class", "register_static", "tree_all",
           "tree_broadcast", "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
           "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative", "tree_structure",
           "tree_transpose", "tree_unflatten", "treedef_children", "treedef_is_leaf", "treedef_tuple"]


class _Float0Node:
    """A float0 array (the tangent of an integer value, `jaxc.dtypes.float0`)
    in the output of a traced function: it holds no data, so no program
    returns it. As a pytree node without children it is part of the output
    structure, and unflattening the structure makes the float0 zeros again."""

    __slots__ = ("shape",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def _float0_zeros(shape: tuple[int, ...], _children: Any) -> np.ndarray:
    from .dtypes import float0_zeros
    return float0_zeros(shape)


register_pytree_node(_Float0Node, lambda node: ((), node.shape), _float0_zeros)


def _float0_as_nodes(tree: Any) -> Any:
    """`tree` with its float0 arrays as `_Float0Node`s (structure, not leaves)."""
    from .dtypes import is_float0
    return tree_map(lambda x: _Float0Node(tuple(np.shape(x))) if is_float0(x) else x, tree)
