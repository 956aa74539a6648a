"""jaxc.tree_util (optree underneath) and jaxc.config."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import tree_util

Pair = collections.namedtuple("Pair", ["a", "b"])


class Node:
    def __init__(self, left, right, name):
        self.left, self.right, self.name = left, right, name


tree_util.register_pytree_node(Node, lambda n: ((n.left, n.right), n.name),
                               lambda name, children: Node(*children, name))


def test_flatten_unflatten_round_trip() -> None:
    tree = {"b": [1, (2, None)], "a": Pair(3, {"z": 4, "y": 5}), "c": Node(6, 7, "n")}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [3, 5, 4, 1, 2, 6, 7]           # dict keys sorted, None has no leaves
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert rebuilt["a"] == Pair(3, {"z": 4, "y": 5}) and rebuilt["b"] == [1, (2, None)]
    assert isinstance(rebuilt["c"], Node) and rebuilt["c"].name == "n" and rebuilt["c"].right == 7
    assert tree_util.tree_leaves(tree) == leaves
    assert tree_util.tree_structure(tree) == treedef
    assert treedef.num_leaves == 7


def test_tree_map_with_several_trees() -> None:
    out = tree_util.tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
    assert out == {"a": 11, "b": (22, 33)}
    with pytest.raises(ValueError):
        tree_util.tree_map(lambda x, y: x, {"a": 1}, {"b": 1})
    assert tree_util.tree_map(lambda x: x * 2, [1, None, 2]) == [2, None, 4]
    assert tree_util.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and x[:1] == [2]) == [1, [2, 3]]


def test_arrays_are_leaves() -> None:
    x = jnp.asarray(np.ones(3, np.float32))
    leaves, treedef = tree_util.tree_flatten({"w": x, "n": np.zeros(2)})
    assert leaves[1] is x and len(leaves) == 2


def test_config_update_and_read() -> None:
    assert jaxc.config.jax_enable_x64 is False
    jaxc.config.update("jax_enable_x64", True)
    try:
        assert jaxc.config.read("jax_enable_x64") is True
        assert jnp.asarray(1.0).dtype == np.float64
        assert jnp.asarray(np.arange(3)).dtype == np.int64
        assert (jnp.asarray(np.ones(2, np.float32)) + 1.0).dtype == np.float32  # weak scalar
    finally:
        jaxc.config.update("jax_enable_x64", False)
    assert jnp.asarray(1.0).dtype == np.float32
    assert jnp.asarray(np.arange(3)).dtype == np.int32
    assert jnp.asarray(np.ones(2, np.float64)).dtype == np.float32


def test_enable_x64_context_and_decorator() -> None:
    assert jaxc.config.jax_enable_x64 is False
    double = jaxc.jit(lambda x: x * 2)
    with jaxc.enable_x64():
        assert jaxc.config.jax_enable_x64 is True
        assert jnp.zeros(2).dtype == np.float64
        assert double(jnp.ones(2)).dtype == np.float64  # traced again for 64-bit defaults
        with jaxc.enable_x64(False):  # nested: the inner setting, then the outer one back
            assert jnp.zeros(2).dtype == np.float32
        assert jnp.arange(3).dtype == np.int64
    assert jnp.zeros(2).dtype == np.float32 and double(jnp.ones(2)).dtype == np.float32

    @jaxc.enable_x64(True)
    def zeros_dtype():
        return jnp.zeros(2).dtype

    assert zeros_dtype() == np.float64 and jaxc.config.jax_enable_x64 is False
    with pytest.raises(RuntimeError), jaxc.enable_x64():
        raise RuntimeError("the setting is restored on the way out")
    assert jaxc.config.jax_enable_x64 is False
    with pytest.raises(TypeError, match="expected a bool"), jaxc.enable_x64("yes"):
        pass
    assert jaxc.config.jax_enable_x64 is False


def test_config_errors() -> None:
    with pytest.raises(AttributeError, match="no option 'jax_nope'"):
        jaxc.config.update("jax_nope", 1)
    with pytest.raises(TypeError, match="expected a bool"):
        jaxc.config.update("jax_enable_x64", "yes")
    with pytest.raises(ValueError, match="at least 1"):
        jaxc.config.update("jax_num_cpu_devices", 0)
    with pytest.raises(AttributeError, match="use jaxc.config.update"):
        jaxc.config.jax_enable_x64 = True


def test_num_cpu_devices() -> None:
    jaxc.config.update("jax_num_cpu_devices", 4)
    try:
        devices = jaxc.devices()
        assert [d.id for d in devices] == [0, 1, 2, 3]
        x = jaxc.device_put(np.ones(2, np.float32), devices[2])
        y = x * 3                                # runs on x's device
        assert y.device is devices[2]
        np.testing.assert_array_equal(np.asarray(y), np.full(2, 3.0))
    finally:
        jaxc.config.update("jax_num_cpu_devices", 1)
    assert len(jaxc.devices()) == 1


def test_options_start_from_environment_variables() -> None:
    import os
    import subprocess
    import sys
    code = ("import jaxc, jaxc.numpy as jnp; "
            "print(jaxc.config.jax_enable_x64, jnp.asarray(1.0).dtype, len(jaxc.devices()))")
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_NUM_CPU_DEVICES="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "float64", "3"]


def test_eager_opt_level_option() -> None:
    import jaxc.numpy as jnp
    level = jaxc.config.jaxc_eager_opt_level
    try:
        for opt in (0, 3):
            jaxc.config.update("jaxc_eager_opt_level", opt)
            np.testing.assert_allclose(np.asarray(jnp.exp(np.arange(3, dtype=np.float32))),
                                       np.exp(np.arange(3, dtype=np.float32)), rtol=1e-6)
    finally:
        jaxc.config.update("jaxc_eager_opt_level", level)
    with pytest.raises(ValueError, match="at least 0"):
        jaxc.config.update("jaxc_eager_opt_level", -1)
