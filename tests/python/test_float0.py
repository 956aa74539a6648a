"""float0: the tangents and cotangents of integer and bool values, as JAX
gives them (`grad(..., allow_int=True)`, vjp, jvp), through jit and vmap."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp

FLOAT0 = np.dtype([("float0", np.void, 0)])


def is_float0_zeros(x, shape) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == FLOAT0 and x.shape == tuple(shape)


def scaled_count(p):
    return p["w"] * jnp.sum(p["n"].astype(jnp.float32))


PARAMS = {"w": np.float32(2.0), "n": np.arange(3, dtype=np.int32)}


def test_the_dtype():
    assert jaxc.dtypes.float0 == FLOAT0 and jaxc.float0 is jaxc.dtypes.float0


@pytest.mark.parametrize("transform", [lambda f: f, jaxc.jit], ids=["eager", "jit"])
def test_grad_with_allow_int(transform):
    g = transform(jaxc.grad(scaled_count, allow_int=True))(PARAMS)
    np.testing.assert_allclose(g["w"], 3.0)
    assert is_float0_zeros(g["n"], (3,))
    value, g = transform(jaxc.value_and_grad(scaled_count, allow_int=True))(PARAMS)
    np.testing.assert_allclose(value, 6.0)
    assert is_float0_zeros(g["n"], (3,))
    g = transform(jaxc.grad(lambda x, flag: x * flag, argnums=1, allow_int=True))(np.float32(1.0), True)
    assert is_float0_zeros(g, ())


def test_grad_of_an_integer_without_allow_int_is_a_type_error():
    with pytest.raises(TypeError, match="use vjp or set allow_int to True"):
        jaxc.grad(scaled_count)(PARAMS)


def test_vjp_gives_float0_for_integer_primals():
    out, pullback = jaxc.vjp(lambda x, n: (x * n, n * 2), np.float32(1.0), np.int32(3))
    for ct_of_int in (np.zeros((), FLOAT0), np.int32(1)):  # float0, or the int's own dtype (as JAX takes)
        x_bar, n_bar = pullback((np.float32(1.0), ct_of_int))
        np.testing.assert_allclose(x_bar, 3.0)
        assert is_float0_zeros(n_bar, ())
    with pytest.raises(TypeError, match="cotangent of dtype float0 for a value of dtype float32"):
        pullback((np.zeros((), FLOAT0), np.int32(1)))


def test_jvp_takes_and_gives_float0_for_integers():
    f = lambda x, n: (x * n, n * 2)  # noqa: E731
    (y, m), (y_dot, m_dot) = jaxc.jvp(f, (np.float32(1.0), np.int32(3)), (np.float32(1.0), np.zeros((), FLOAT0)))
    np.testing.assert_allclose((y, m, y_dot), (3.0, 6, 3.0))
    assert is_float0_zeros(m_dot, ())
    with pytest.raises(TypeError, match="the tangent dtype must be float0"):
        jaxc.jvp(f, (np.float32(1.0), np.int32(3)), (np.float32(1.0), np.int32(1)))


@pytest.mark.parametrize("out_axes, shape", [(0, (4, 2)), ((0, 1), (2, 4)), ((0, None), (2,))])
def test_vmap_maps_float0_results(out_axes, shape):
    f = jaxc.grad(lambda x, n: x * jnp.sum(n), argnums=(0, 1), allow_int=True)
    xs, ns = np.ones(4, np.float32), np.arange(8, dtype=np.int32).reshape(4, 2)
    x_bar, n_bar = jaxc.vmap(f, out_axes=out_axes)(xs, ns)
    np.testing.assert_allclose(x_bar, ns.sum(1))
    assert is_float0_zeros(n_bar, shape)


def test_float0_arguments_pass_through_jit():
    calls = []

    @jaxc.jit
    def update(x, g):
        calls.append(g)
        return x + 1, g

    out, g = update(np.float32(1.0), np.zeros((2,), FLOAT0))
    np.testing.assert_allclose(out, 2.0)
    assert is_float0_zeros(g, (2,)) and is_float0_zeros(calls[0], (2,))
    update(np.float32(1.0), np.zeros((2,), FLOAT0))
    assert len(calls) == 1  # the same structure: compiled once
    update(np.float32(1.0), np.zeros((3,), FLOAT0))
    assert len(calls) == 2  # another shape: another program


def test_against_jax():
    jax = pytest.importorskip("jax")
    for lib in (jaxc, jax):
        g = lib.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(1.0, 3)
        assert g[1].dtype == FLOAT0 and g[1].shape == ()
        _, t = lib.jvp(lambda n: n * 2, (np.arange(3),), (np.zeros((3,), lib.dtypes.float0),))
        assert t.dtype == FLOAT0 and t.shape == (3,)
