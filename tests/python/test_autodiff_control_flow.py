"""Derivatives through control flow (cond, switch, scan, fori_loop in both
modes; while in forward mode) against finite differences in float64, and the
composition stress test: one value through jit, grad, jvp and vjp in every
order."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads

pytestmark = pytest.mark.usefixtures("x64")  # conftest.py: 64-bit defaults in every test


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("p", [True, False])
def test_cond_both_modes(p):
    def f(x):
        return lax.cond(p, lambda a: jnp.sin(a) * a, lambda a: jnp.exp(a) + a ** 3, x)
    check_grads(f, (X,), order=2)


def test_cond_on_a_traced_predicate_and_closure():
    def f(x, w):
        return lax.cond(jnp.sum(x) > 0, lambda a: a * w, lambda a: jnp.tanh(a) * w ** 2, x)
    check_grads(f, (X, np.array([1.5, 2.0, -0.5])), order=2)
    check_grads(f, (-X - 1, np.array([1.5, 2.0, -0.5])), order=2)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_switch(index):
    branches = [lambda a: a * a, lambda a: jnp.cos(a), lambda a: a / (1 + a * a)]
    check_grads(lambda x: lax.switch(index, branches, x), (X,), order=2)


def test_scan_both_modes():
    def f(c0, xs):
        def step(c, x):
            c = jnp.sin(c) * x + c * c * 0.1
            return c, c * x
        c, ys = lax.scan(step, c0, xs)
        return c + jnp.sum(ys)
    check_grads(f, (0.4, np.array([0.5, -1.2, 0.8, 0.3])), order=2)


def test_scan_reverse_with_vector_carry_and_closure():
    w = np.array([[0.5, -0.2], [0.1, 0.9]])

    def f(h0, xs):
        def step(h, x):
            h = jnp.tanh(w @ h + x)
            return h, h * 2.0
        h, ys = lax.scan(step, h0, xs, reverse=True)
        return jnp.sum(h) + jnp.sum(ys ** 2)
    check_grads(f, (np.array([0.1, -0.3]), np.array([[0.2, 0.1], [-0.5, 0.4], [0.3, 0.3]])), order=2)


def test_fori_loop_reverse_mode_with_static_bounds():
    def f(x):
        return lax.fori_loop(0, 5, lambda i, acc: acc * jnp.cos(acc) + i * 0.1, x)
    check_grads(f, (X,), order=2)


def test_while_loop_forward_mode():
    def f(x):
        return lax.while_loop(lambda s: s[1] < 4, lambda s: (s[0] * jnp.sin(s[0]) + 1.0, s[1] + 1), (x, 0))[0]
    check_grads(f, (X,), order=2, modes=("fwd",))


def test_while_loop_reverse_mode_is_an_error_naming_the_loop():
    def f(x):
        return lax.while_loop(lambda s: s < 10.0, lambda s: s * 2.0, x)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop") as info:
        jaxc.grad(f)(1.0)
    assert f'test_autodiff_control_flow.py":{f.__code__.co_firstlineno + 1}:' in str(info.value)


def test_grad_values_through_every_order_of_jit_grad_jvp_vjp():
    """f(x) = x**3 + 2x at 2: f' = 14, f'' = 12, f''' = 6, however composed."""
    def f(x):
        return x ** 3 + 2 * x

    def via_jvp(g):
        return lambda x: jaxc.jvp(g, (x,), (jnp.ones_like(x),))[1]

    def via_vjp(g):
        return lambda x: jaxc.vjp(g, x)[1](jnp.ones_like(x))[0]

    derivatives = {"grad": jaxc.grad, "jvp": via_jvp, "vjp": via_vjp}
    expected = {1: 14.0, 2: 12.0, 3: 6.0}
    for order in (1, 2, 3):
        for names in itertools.product(derivatives, repeat=order):
            g = f
            for name in names:
                g = derivatives[name](g)
            for wrap in (lambda h: h, jaxc.jit):
                assert float(wrap(g)(2.0)) == pytest.approx(expected[order]), names


def test_hessian_equals_jacfwd_of_jacrev():
    def f(x):
        return jnp.sum(jnp.sin(x) * x[::-1]) + jnp.prod(x)
    h = np.asarray(jaxc.hessian(f)(X))
    np.testing.assert_allclose(np.asarray(jaxc.jacfwd(jaxc.jacrev(f))(X)), h, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jaxc.jacrev(jaxc.jacfwd(f))(X)), h, rtol=1e-12)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)


def test_jit_inside_grad_and_grad_inside_jit():
    inner = jaxc.jit(lambda x: jnp.sum(jnp.tanh(x) ** 2))
    outer = jaxc.jit(jaxc.grad(lambda x: inner(x) * 3.0))
    expected = 3 * 2 * np.tanh(X) * (1 - np.tanh(X) ** 2)
    np.testing.assert_allclose(np.asarray(outer(X)), expected, rtol=1e-12)
