"""jaxc.tree and jaxc.tree_util against JAX's documented results (and JAX itself when installed)."""
from __future__ import annotations

import collections
import dataclasses
import functools
import operator
import warnings

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
import jaxc.tree as jt
from jaxc import tree_util as tu

Point = collections.namedtuple("Point", ["x", "y"])


class Box:
    """A custom node registered without keys: its paths use FlattenedIndexKey."""

    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag

    def __eq__(self, other):
        return type(other) is Box and (self.a, self.b, self.tag) == (other.a, other.b, other.tag)


tu.register_pytree_node(Box, lambda b: ((b.a, b.b), b.tag), lambda tag, ch: Box(*ch, tag))


@tu.register_pytree_with_keys_class
class Special:
    """JAX's register_pytree_with_keys_class example."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten_with_keys(self):
        return (((tu.GetAttrKey("x"), self.x), (tu.GetAttrKey("y"), self.y)), None)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)


# -- jax.tree: the examples of JAX's docstrings -------------------------------------------

def test_namespace_names() -> None:
    assert sorted(jt.__all__) == ["all", "broadcast", "flatten", "flatten_with_path", "leaves",
                                  "leaves_with_path", "map", "map_with_path", "reduce",
                                  "reduce_associative", "static", "structure", "transpose", "unflatten"]
    assert jaxc.tree.map is tu.tree_map and jaxc.tree.leaves is tu.tree_leaves


def test_flatten_unflatten_leaves_structure() -> None:
    vals, treedef = jt.flatten([1, (2, 3), [4, 5]])
    assert vals == [1, 2, 3, 4, 5]
    assert tu.treedef_str(treedef) == "PyTreeDef([*, (*, *), [*, *]])"
    assert jt.unflatten(treedef, ["a", "b", "c", "d", "e"]) == ["a", ("b", "c"), ["d", "e"]]
    assert jt.leaves([1, (2, 3), [4, 5]]) == [1, 2, 3, 4, 5]
    assert jt.structure([1, (2, 3), [4, 5]]) == treedef
    assert jt.leaves({"b": 1, "a": (2, None)}) == [2, 1]      # sorted keys, None is no leaf
    assert jt.leaves([None, None]) == [] and jt.leaves(None) == []


def test_dicts_come_back_with_sorted_keys_as_in_jax() -> None:
    tree = {"x": 1.0, "v": {"z": 2.0, "a": (3.0, None)}, "d": collections.defaultdict(int, {"q": 4.0, "b": 5.0})}
    for out in (tu.tree_map(lambda v: v * 2, tree),
                tu.tree_unflatten(*reversed(tu.tree_flatten(tree))),
                tu.tree_map_with_path(lambda p, v: v, tree)):
        assert list(out) == ["d", "v", "x"] and list(out["v"]) == ["a", "z"] and list(out["d"]) == ["b", "q"]
        assert isinstance(out["d"], collections.defaultdict) and out["d"].default_factory is int
    ordered = collections.OrderedDict([("x", 1.0), ("v", 2.0)])
    assert list(tu.tree_map(lambda v: v, ordered)) == ["x", "v"]   # an OrderedDict keeps its order
    grads = jaxc.grad(lambda p: p["x"] * p["v"])({"x": 1.0, "v": 2.0})
    assert list(grads) == ["v", "x"] and float(grads["v"]) == 1.0
    jitted = jaxc.jit(lambda x: {"z": x, "a": x + 1})
    assert [list(jitted(1.0)) for _ in range(3)] == [["a", "z"]] * 3   # the first call and the C fast path


def test_map() -> None:
    assert jt.map(lambda x: x + 1, {"x": 7, "y": (42, 64)}) == {"x": 8, "y": (43, 65)}
    assert jt.map(lambda x: x + 1, {"x": 7, "y": None}) == {"x": 8, "y": None}
    assert jt.map(lambda x, y: x + y, [1, 2], [10, 20]) == [11, 22]
    # later trees may be deeper: `tree` is a prefix of them
    assert jt.map(lambda x, y: (x, y), [1, 2], [(1, 2), 3]) == [(1, (1, 2)), (2, 3)]
    assert jt.map(lambda x: x * 2, (1, [2, 3]), is_leaf=lambda x: isinstance(x, list)) == (2, [2, 3, 2, 3])


@pytest.mark.parametrize("trees, message", [
    (({"a": 1}, {"b": 1}), "key"),
    (([1, 2], [1, 2, 3]), "arity"),
    (((1, 2), [1, 2]), "tuple"),
    (([1, None], [2, 3]), "None"),
])
def test_map_structure_mismatch_is_value_error(trees, message) -> None:
    for fun in (jt.map, jt.map_with_path):
        with pytest.raises(ValueError, match=message):
            fun(lambda *xs: xs, *trees)


def test_reduce_and_all() -> None:
    assert jt.reduce(operator.add, [1, (2, 3), [4, 5, 6]]) == 21
    assert jt.reduce(operator.add, [], initializer=0) == 0
    assert jt.reduce(lambda acc, x: acc + [x], {"b": 1, "a": 2}, initializer=[]) == [2, 1]
    assert jt.reduce(lambda a, b: a + len(b), [[1, 2], [3]], 0, is_leaf=lambda x: isinstance(x, list)
                     and not isinstance(x[0], list)) == 3
    with pytest.raises(TypeError, match="empty"):
        jt.reduce(operator.add, [])
    assert jt.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]]) == 21
    assert jt.reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match="Must specify identity"):
        jt.reduce_associative(operator.add, [None])
    assert jt.all([True, {"a": True, "b": (True, True)}]) is True
    assert jt.all([False, (True, False)]) is False
    assert jt.all([[], [0]], is_leaf=lambda x: isinstance(x, list) and len(x) < 2) is False


def test_transpose() -> None:
    outer, inner = jt.structure([0, 0]), jt.structure((0, 0))
    assert jt.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert jt.transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])     # inner inferred
    with pytest.raises(TypeError, match=r"Mismatch\nPyTreeDef\(\[\(\*, \*\), \(\*,\)\]\)\n != \n"
                                        r"PyTreeDef\(\[\(\*, \*\), \(\*, \*\)\]\)"):
        jt.transpose(outer, inner, [(1, 2), (3,)])
    with pytest.raises(ValueError, match="arity"):
        jt.transpose(outer, None, [(1, 2), (3, 4), (5, 6)])


def test_broadcast() -> None:
    assert jt.broadcast((1, 2), ((3, 4), {"a": 5})) == ((1, 1), {"a": 2})
    assert jt.broadcast([1, None], [2, None]) == [1, None]
    assert jt.broadcast({"a": [1], "b": 2}, {"a": [(3, 4)], "b": [5, 6]},
                        is_leaf=lambda x: isinstance(x, list)) == {"a": [([1], [1])], "b": [2, 2]}
    with pytest.raises(ValueError):
        jt.broadcast([1, None], [2, 3])


# -- key paths -------------------------------------------------------------------------

def test_key_classes_print_as_jax() -> None:
    keys = (tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"), tu.FlattenedIndexKey(2), tu.DictKey(1))
    assert [repr(k) for k in keys] == ["DictKey(key='a')", "SequenceKey(idx=0)", "GetAttrKey(name='x')",
                                       "FlattenedIndexKey(key=2)", "DictKey(key=1)"]
    assert tu.keystr(keys) == "['a'][0].x[<flat index 2>][1]"
    assert tu.keystr(keys, simple=True, separator="/") == "a/0/x/2/1"
    assert (keys[1].idx, keys[0].key, keys[2].name, keys[3].key) == (0, "a", "x", 2)
    assert tu.SequenceKey(0) == tu.SequenceKey(0) and tu.SequenceKey(0) != tu.FlattenedIndexKey(0)
    match keys[2]:
        case tu.GetAttrKey(name=name):
            assert name == "x"


def test_leaves_with_path_keystr_documented() -> None:
    params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}}
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(params)]
    assert paths == ["['foo']['bar']['bat'][0]", "['foo']['bar']['bat'][1]", "['foo']['bar']['baz']"]
    simple = [tu.keystr(p, simple=True, separator="/") for p, _ in jt.leaves_with_path(params)]
    assert simple == ["foo/bar/bat/0", "foo/bar/bat/1", "foo/bar/baz"]


def test_paths_of_every_node_kind() -> None:
    tree = [Point(1, {"k": 2}), Box(3, None, "t"), Special(4, (5,)), collections.OrderedDict(b=6, a=7)]
    pairs, treedef = jt.flatten_with_path(tree)
    assert [(tu.keystr(p), x) for p, x in pairs] == [
        ("[0].x", 1), ("[0].y['k']", 2), ("[1][<flat index 0>]", 3),
        ("[2].x", 4), ("[2].y[0]", 5), ("[3]['b']", 6), ("[3]['a']", 7)]
    assert treedef == jt.structure(tree)
    assert jt.map_with_path(lambda p, x: tu.keystr(p), {"a": (1, None)}) == {"a": ("['a'][0]", None)}
    assert jt.map_with_path(lambda p, x, y: (len(p), x + y), [1, 2], [10, 20]) == [(1, 11), (1, 22)]


def test_is_leaf_with_and_without_path() -> None:
    tree = {"a": [1, 2], "b": (3, [4])}
    stop_lists = lambda x: isinstance(x, list)
    assert [(tu.keystr(p), x) for p, x in jt.leaves_with_path(tree, is_leaf=stop_lists)] \
        == [("['a']", [1, 2]), ("['b'][0]", 3), ("['b'][1]", [4])]
    pairs, treedef = jt.flatten_with_path(tree, is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)
    assert [(tu.keystr(p), x) for p, x in pairs] == [("['a']", [1, 2]), ("['b']", (3, [4]))]
    assert tu.treedef_str(treedef) == "PyTreeDef({'a': *, 'b': *})"
    assert jt.map_with_path(lambda p, x: len(x), tree, is_leaf=lambda p, x: len(p) == 1,
                            is_leaf_takes_path=True) == {"a": 2, "b": 2}
    # is_leaf sees None, as in JAX
    assert jt.leaves([1, None], is_leaf=lambda x: x is None) == [1, None]


# -- tree_util extras -------------------------------------------------------------------

def test_treedef_helpers() -> None:
    x, y = [1, 2, 3], {"a": 4, "b": 5}
    assert tu.treedef_tuple([jt.structure(x), jt.structure(y)]) == jt.structure((x, y))
    children = tu.treedef_children(jt.structure([(1, 2), 3, {"a": 4}]))
    assert [tu.treedef_str(c) for c in children] == ["PyTreeDef((*, *))", "PyTreeDef(*)", "PyTreeDef({'a': *})"]
    assert tu.treedef_is_leaf(jt.structure(1)) and tu.treedef_is_leaf(jt.structure(None))
    assert not tu.treedef_is_leaf(jt.structure([1, 2]))
    assert tu.all_leaves(jt.leaves({"a": [1, 2, 3]})) and not tu.all_leaves([{"a": [1, 2, 3]}])
    assert not tu.all_leaves([1, None])
    assert tu.is_tree_node(dict) and tu.is_tree_node(Point) and tu.is_tree_node(Box)
    assert tu.is_tree_node(type(None)) and not tu.is_tree_node(int)


def test_flatten_one_level() -> None:
    assert tu.flatten_one_level({"a": [1, 2], "b": {"c": 3}}) == ([[1, 2], {"c": 3}], ("a", "b"))
    children, aux = tu.flatten_one_level(Box(1, 2, "t"))
    assert list(children) == [1, 2] and aux == "t"
    keyed, aux = tu.flatten_one_level_with_keys(Point(1, 2))
    assert keyed == [(tu.GetAttrKey("x"), 1), (tu.GetAttrKey("y"), 2)] and aux is Point
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
        tu.flatten_one_level(1)


def test_default_registry() -> None:
    registry = tu.default_registry
    assert registry.flatten({"b": (2, 3), "a": 1}) == tu.tree_flatten({"b": (2, 3), "a": 1})
    assert registry.flatten([1, (2, 3)], lambda x: isinstance(x, tuple))[0] == [1, (2, 3)]
    assert registry.flatten_one_level({"a": 1, "b": (2, 3)}) == ([1, (2, 3)], ("a", "b"))
    assert registry.flatten_one_level(3) is None and registry.flatten_one_level_with_keys(3) is None
    assert registry.flatten_one_level(None) == ([], None)
    keyed, aux = registry.flatten_one_level_with_keys({"a": 1})
    assert list(keyed) == [(tu.DictKey("a"), 1)] and aux == ("a",)
    seen = []
    pairs, _ = registry.flatten_with_path([1, (2, 3)], lambda path, x: seen.append(path) or isinstance(x, tuple))
    assert [(tu.keystr(p), x) for p, x in pairs] == [("[0]", 1), ("[1]", (2, 3))]
    assert seen == [(), (tu.SequenceKey(0),), (tu.SequenceKey(1),)]  # the predicate sees every path
    assert registry.is_node(dict) and not registry.is_node(int)

    class Pair:
        def __init__(self, x, y):
            self.x, self.y = x, y
    assert not registry.is_node(Pair)
    registry.register_node(Pair, lambda p: ((p.x,), p.y), lambda aux, children: Pair(children[0], aux))
    assert registry.is_node(Pair) and jt.leaves(Pair(1, "static")) == [1]
    assert jaxc.jit(lambda p: p.x * 2)(Pair(jnp.ones(2), "static")).tolist() == [2.0, 2.0]
    assert registry.flatten_one_level_with_keys(Pair(5, 6)) == ([(tu.FlattenedIndexKey(0), 5)], 6)
    with pytest.raises(ValueError):  # registered twice, as in JAX
        registry.register_node(Pair, lambda p: ((p.x,), p.y), lambda aux, children: Pair(children[0], aux))

    @dataclasses.dataclass
    class Data:
        a: int
        b: str
    registry.register_dataclass_node(Data, ["a"], ["b"])
    leaves, treedef = jt.flatten(Data(1, "meta"))
    assert leaves == [1] and jt.unflatten(treedef, [7]) == Data(7, "meta")


def test_treedef_str() -> None:
    cases = [((1, {"a": 2}), "PyTreeDef((*, {'a': *}))"), (None, "PyTreeDef(None)"), (1, "PyTreeDef(*)"),
             ((1,), "PyTreeDef((*,))"), ((), "PyTreeDef(())"),
             (Point(1, [2]), "PyTreeDef(CustomNode(namedtuple[Point], [*, [*]]))"),
             (Box(1, 2, "t"), "PyTreeDef(CustomNode(Box['t'], [*, *]))"),
             (collections.OrderedDict(b=1, a=2), "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"),
             (collections.defaultdict(int, b=1), "PyTreeDef(CustomNode(defaultdict[(<class 'int'>, ('b',))], [*]))")]
    for tree, text in cases:
        assert tu.treedef_str(jt.structure(tree)) == text


def test_register_pytree_with_keys_and_dataclass() -> None:
    class Pair:
        def __init__(self, u, v):
            self.u, self.v = u, v
    tu.register_pytree_with_keys(Pair, lambda p: (((tu.DictKey("u"), p.u), (tu.DictKey("v"), p.v)), None),
                                 lambda _, ch: Pair(*ch))
    assert [tu.keystr(p) for p, _ in jt.leaves_with_path(Pair(1, [2]))] == ["['u']", "['v'][0]"]
    assert jt.leaves(Pair(1, [2])) == [1, 2]

    @tu.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        y: object
        op: str = jt.static(default="add")

    m = Op(1.0, None)
    leaves, treedef = jt.flatten(m)
    assert leaves == [1.0] and tu.treedef_str(treedef) == "PyTreeDef(CustomNode(Op[('add',)], [*, None]))"
    assert jt.unflatten(treedef, [2.0]) == Op(2.0, None)
    assert jt.leaves_with_path(Op(1, 2, "sub")) == [((tu.GetAttrKey("x"),), 1), ((tu.GetAttrKey("y"),), 2)]

    class Plain:
        def __init__(self, w, n):
            self.w, self.n = w, n
    tu.register_dataclass(Plain, data_fields=["w"], meta_fields=["n"])
    assert jt.map(lambda w: w * 2, Plain(3, 7)).w == 6 and jt.map(lambda w: w * 2, Plain(3, 7)).n == 7


@pytest.mark.parametrize("kwargs, error, message", [
    ({"data_fields": ["x"]}, TypeError, "must both be specified"),
    ({"data_fields": ["x"], "meta_fields": []}, ValueError, "Missing fields: {'y'}"),
    ({"data_fields": ["x", "y", "z"], "meta_fields": []}, ValueError, "Unexpected fields: {'z'}"),
    ({"data_fields": ["x", "y"], "meta_fields": ["x"]}, ValueError, "Unexpected fields|must not overlap"),
])
def test_register_dataclass_errors(kwargs, error, message) -> None:
    @dataclasses.dataclass
    class D:
        x: int
        y: int
    with pytest.raises(error, match=message):
        tu.register_dataclass(D, **kwargs)


def test_register_dataclass_needs_fields_for_plain_class() -> None:
    with pytest.raises(TypeError, match="required when nodetype is not a dataclass"):
        tu.register_dataclass(type("NotADataclass", (), {}))


def test_register_namedtuple_subclass_does_not_warn() -> None:
    Pt = collections.namedtuple("Pt", ["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tu.register_pytree_node(Pt, lambda p: ((p.b,), p.a), lambda a, ch: Pt(a, *ch))
    assert jt.leaves(Pt(1, 2)) == [2] and jt.map(lambda v: v + 1, Pt(1, 2)) == Pt(1, 3)


# -- jit with registered classes --------------------------------------------------------

def test_register_static_under_jit() -> None:
    @tu.register_static
    class StaticStr(str):
        pass
    assert jt.leaves(StaticStr("add")) == []
    f = jaxc.jit(lambda x, y, s: x + y if s == "add" else x - y)
    assert int(f(1, 2, StaticStr("add"))) == 3 and int(f(1, 2, StaticStr("sub"))) == -1


def test_dataclass_under_jit() -> None:
    @tu.register_dataclass
    @dataclasses.dataclass
    class MyStruct:
        x: object
        y: object
        op: str = dataclasses.field(metadata=dict(static=True))

    f = jaxc.jit(lambda m: m.x + m.y if m.op == "add" else m.x - m.y)
    x, y = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(f(MyStruct(jnp.asarray(x), jnp.asarray(y), "add"))), x + y)
    np.testing.assert_array_equal(np.asarray(f(MyStruct(jnp.asarray(x), jnp.asarray(y), "sub"))), x - y)


def test_partial() -> None:
    add_one = tu.Partial(jnp.add, 1)
    assert int(add_one(2)) == 3
    assert jt.leaves(tu.Partial(max, 1, k=2)) == [1, 2]
    assert [tu.keystr(p) for p, _ in jt.leaves_with_path(tu.Partial(max, 1, k=2))] \
        == ["[<flat index 0>][0]", "[<flat index 1>]['k']"]
    call = jaxc.jit(lambda f, *args: f(*args))
    assert int(call(add_one, 2)) == 3
    assert int(call(tu.Partial(jnp.add), 1, 2)) == 3
    inner = tu.Partial(functools.partial(jnp.add, 10))       # a partial's own args stay static
    assert jt.leaves(inner) == [] and int(call(inner, 5)) == 15
    rebuilt = jt.map(lambda v: v * 3, tu.Partial(operator.sub, 5))
    assert isinstance(rebuilt, tu.Partial) and rebuilt(1) == 14


# -- against JAX itself -------------------------------------------------------------------

def _jax_trees(jtu):
    return [1, None, (), (1,), [1, (2, None)], {"b": 1, "a": [2, 3]}, Point(1, [2]),
            {"a": None, "b": (None, 1)}, collections.OrderedDict(b=1, a=2),
            collections.defaultdict(int, {"b": 1, "a": 2})]


def test_against_jax() -> None:
    jax = pytest.importorskip("jax")
    jtu = jax.tree_util
    for tree in _jax_trees(jtu):
        assert jt.leaves(tree) == jax.tree.leaves(tree)
        assert tu.treedef_str(jt.structure(tree)) == str(jax.tree.structure(tree))
        ours = [(tu.keystr(p), repr(p), x) for p, x in jt.leaves_with_path(tree)]
        theirs = [(jtu.keystr(p), repr(p), x) for p, x in jax.tree.leaves_with_path(tree)]
        assert ours == theirs
        for is_leaf in (lambda x: isinstance(x, list), lambda x: x is None):
            assert jt.leaves(tree, is_leaf=is_leaf) == jax.tree.leaves(tree, is_leaf=is_leaf)
            assert [(tu.keystr(p), x) for p, x in jt.leaves_with_path(tree, is_leaf=is_leaf)] \
                == [(jtu.keystr(p), x) for p, x in jax.tree.leaves_with_path(tree, is_leaf=is_leaf)]
        by_path = lambda p, x: len(p) == 1
        ours, our_def = jt.flatten_with_path(tree, is_leaf=by_path, is_leaf_takes_path=True)
        theirs, their_def = jax.tree.flatten_with_path(tree, is_leaf=by_path, is_leaf_takes_path=True)
        assert [(tu.keystr(p), x) for p, x in ours] == [(jtu.keystr(p), x) for p, x in theirs]
        assert tu.treedef_str(our_def) == str(their_def)
        assert tu.is_tree_node(type(tree)) == jtu.is_tree_node(type(tree))
        assert tu.all_leaves([tree]) == jtu.all_leaves([tree])
        if tu.is_tree_node(type(tree)):
            ours, theirs = tu.flatten_one_level(tree), jtu.flatten_one_level(tree)
            assert list(ours[0]) == list(theirs[0]) and ours[1] == theirs[1]
    assert jt.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]]) \
        == jax.tree.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]])
    assert jt.broadcast((1, 2), ((3, 4), {"a": 5})) == jax.tree.broadcast((1, 2), ((3, 4), {"a": 5}))


def test_public_names_match_jax() -> None:
    jax = pytest.importorskip("jax")
    public = lambda m: {n for n in dir(m) if not n.startswith("_")}
    assert public(jax.tree) <= public(jt)
    assert public(jax.tree_util) <= public(tu)
