"""jaxc.scipy.cluster.vq.vq against scipy.cluster.vq.vq (float32 and float64,
1-D and 2-D inputs, eagerly and under jit), vmap against a loop, gradients
of the distances, JAX's dtypes and exception types, and JAX itself where it
is installed."""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import assert_close
from scipy.cluster import vq as scipy_vq

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.cluster as cluster
import jaxc.scipy.cluster.vq as vq
from jaxc.test_util import check_grads

RNG = np.random.default_rng(7)


def test_module_layout():
    assert cluster.vq is vq
    assert vq.__all__ == ["vq"]


@pytest.mark.parametrize("shapes", [((10, 3), (4, 3)), ((1, 5), (1, 5)), ((7, 1), (3, 1)), ((6,), (4,)),
                                    ((50, 8), (9, 8))])
def test_against_scipy_float32(shapes):
    obs = RNG.normal(size=shapes[0]).astype(np.float32)
    book = RNG.normal(size=shapes[1]).astype(np.float32)
    want_code, want_dist = scipy_vq.vq(obs, book)
    for fn in (vq.vq, jaxc.jit(vq.vq)):
        code, dist = fn(obs, book)
        assert code.dtype == np.int32 and dist.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(code), want_code)
        assert_close(dist, want_dist, rtol=1e-5, atol=1e-6)


def test_against_scipy_float64(x64):
    obs = RNG.normal(size=(20, 4))
    book = RNG.normal(size=(6, 4))
    code, dist = vq.vq(obs, book)
    want_code, want_dist = scipy_vq.vq(obs, book)
    assert code.dtype == np.int64 and dist.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(code), want_code)
    assert_close(dist, want_dist, rtol=1e-13, atol=1e-14)


def test_docstring_example_and_ties():
    obs = jnp.array([[1.1, 2.1, 3.1], [5.9, 4.8, 6.2]])
    book = jnp.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0], [4.0, 5.0, 6.0]])
    code, dist = vq.vq(obs, book)
    np.testing.assert_array_equal(np.asarray(code), [0, 3])
    assert_close(dist, np.array([0.17320499, 1.9209373]), rtol=1e-6)
    # Equidistant codes: the lowest index wins, as argmin.
    code, dist = vq.vq(np.array([[0.0, 0.0]], np.float32), np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]], np.float32))
    assert int(code[0]) == 0 and float(dist[0]) == 1.0


def test_integer_inputs_become_float32():
    code, dist = vq.vq(np.array([[1, 2], [5, 5]]), np.array([[1, 2], [3, 4]]))
    assert code.dtype == np.int32 and dist.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(code), [0, 1])
    assert_close(dist, np.array([0.0, np.sqrt(5.0)]))


def test_vmap_matches_a_loop():
    obs = RNG.normal(size=(5, 8, 3)).astype(np.float32)
    book = RNG.normal(size=(4, 3)).astype(np.float32)
    code, dist = jaxc.vmap(vq.vq, in_axes=(0, None))(obs, book)
    for n in range(5):
        want_code, want_dist = vq.vq(obs[n], book)
        np.testing.assert_array_equal(np.asarray(code[n]), np.asarray(want_code))
        assert_close(dist[n], np.asarray(want_dist))


def test_gradients_of_the_distances(x64):
    obs = RNG.normal(size=(6, 3))
    book = RNG.normal(size=(4, 3))
    check_grads(lambda o, b: vq.vq(o, b)[1], (obs, book), order=1, modes=("fwd", "rev"))
    # d|o - c|/do = (o - c) / |o - c| for the nearest code c.
    code, dist = vq.vq(obs, book)
    grad = jaxc.grad(lambda o: jnp.sum(vq.vq(o, book)[1]))(obs)
    nearest = book[np.asarray(code)]
    assert_close(grad, (obs - nearest) / np.asarray(dist)[:, None], rtol=1e-12, atol=1e-12)


BAD_INPUTS = [  # (name, obs, code_book, the exception JAX raises)
    ("list obs", [[1.0, 2.0]], np.ones((2, 2)), TypeError),
    ("tuple code book", np.ones((2, 2)), ((1.0, 2.0),), TypeError),
    ("rank mismatch", np.ones((2, 3)), np.ones(3), ValueError),
    ("3-D", np.ones((2, 3, 1)), np.ones((2, 3, 1)), ValueError),
    ("0-D", np.float32(1.0), np.float32(1.0), ValueError),
    ("feature mismatch", np.ones((2, 3)), np.ones((4, 2)), TypeError),
]


@pytest.mark.parametrize("name, obs, book, error", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_inputs(name, obs, book, error):
    with pytest.raises(error):
        vq.vq(obs, book)


@pytest.mark.parametrize("name, obs, book, error", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_inputs_raise_what_jax_raises(name, obs, book, error):
    pytest.importorskip("jax")
    import jax.scipy.cluster.vq

    with pytest.raises(error):
        jax.scipy.cluster.vq.vq(obs, book)


def test_against_jax():
    pytest.importorskip("jax")
    import jax.scipy.cluster.vq

    obs = RNG.normal(size=(30, 5)).astype(np.float32)
    book = RNG.normal(size=(7, 5)).astype(np.float32)
    for args in ((obs, book), (obs[:, 0], book[:, 0])):
        code, dist = vq.vq(*args)
        jax_code, jax_dist = jax.scipy.cluster.vq.vq(*args)
        assert code.dtype == jax_code.dtype and dist.dtype == jax_dist.dtype
        np.testing.assert_array_equal(np.asarray(code), np.asarray(jax_code))
        assert_close(dist, np.asarray(jax_dist), rtol=1e-6, atol=1e-6)
