"""jaxc.flatten_util.ravel_pytree (JAX's jax.flatten_util): leaves raveled
in tree order into one vector of their common dtype, and back."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.flatten_util import ravel_pytree

TREE = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": (np.array([7, 8], np.int32), 9.5)}


def test_round_trip_with_several_dtypes():
    flat, unravel = ravel_pytree(TREE)
    assert flat.dtype == np.float32 and flat.shape == (9,)
    np.testing.assert_array_equal(flat, [7, 8, 9.5, 0, 1, 2, 3, 4, 5])  # dict keys in sorted order
    back = unravel(flat * 2)
    assert jaxc.tree_util.tree_structure(back) == jaxc.tree_util.tree_structure(TREE)
    np.testing.assert_array_equal(back["w"], TREE["w"] * 2)
    assert back["b"][0].dtype == np.int32 and back["b"][0].tolist() == [14, 16]  # converted back
    assert float(back["b"][1]) == 19.0
    with pytest.raises(TypeError, match="given array of dtype float16, but expected dtype float32"):
        unravel(flat.astype(jnp.float16))
    with pytest.raises(ValueError, match=r"expects a 1-d array of 9 elements .* got shape \(4,\)"):
        unravel(flat[:4])


def test_one_dtype_keeps_what_unravel_is_given_and_empty_trees():
    flat, unravel = ravel_pytree([np.ones(2, np.float32), np.zeros((1, 3), np.float32)])
    pieces = unravel(flat.astype(jnp.int32))
    assert [p.dtype for p in pieces] == [np.int32, np.int32] and pieces[1].shape == (1, 3)
    empty, unravel_empty = ravel_pytree({})
    assert empty.shape == (0,) and empty.dtype == np.float32 and unravel_empty(empty) == {}


def test_under_jit_grad_vmap_and_as_a_static_argument():
    flat, unravel = ravel_pytree(TREE)
    assert unravel == ravel_pytree(TREE)[1] and hash(unravel) == hash(ravel_pytree(TREE)[1])
    jitted = jaxc.jit(lambda v, u: u(v)["w"].sum(), static_argnums=1)
    assert float(jitted(flat, unravel)) == 15.0  # w: 0 + 1 + ... + 5
    params = {"a": np.array([1.0, -2.0], np.float32), "c": np.float32(3.0)}
    grads = jaxc.grad(lambda p: jnp.sum(ravel_pytree(p)[0] ** 2))(params)
    np.testing.assert_array_equal(grads["a"], [2.0, -4.0])
    assert float(grads["c"]) == 6.0
    rows = jaxc.vmap(lambda a: ravel_pytree({"x": a, "y": a[:1]})[0])(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(rows, [[0, 1, 0], [2, 3, 2], [4, 5, 4]])


def test_equal_to_jax():
    pytest.importorskip("jax")
    from jax.flatten_util import ravel_pytree as jax_ravel
    tree = {"z": [np.float32(1.5), np.arange(3, dtype=np.int8)], "a": np.ones((2, 2), np.float16)}
    ours, theirs = ravel_pytree(tree)[0], jax_ravel(tree)[0]
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
