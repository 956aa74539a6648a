"""vmap of cond, switch, while_loop, fori_loop, scan and calls, against a
Python loop over the batch (batching_util.check_vmap)."""
from __future__ import annotations

import numpy as np
import pytest
from batching_util import check_vmap

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

RNG = np.random.default_rng(1)
X = RNG.normal(size=(5, 3)).astype(np.float32)
W = RNG.normal(size=(3,)).astype(np.float32)
PRED = np.array([True, False, True, True, False])
INDEX = np.array([0, 1, 2, 5, -1], np.int32)  # out-of-range indices clamp, as lax.switch


def cond_on_unmapped(a, b):
    return lax.cond(jnp.sum(b) > 0, lambda u: jnp.sin(u), lambda u: u * 2.0, a)


def cond_on_mapped(a, p):
    return lax.cond(p, lambda u: jnp.sin(u), lambda u: u * 2.0, a)


def switch(a, i):
    return lax.switch(i, [jnp.sin, lambda u: u * 2.0, lambda u: -u], a)


def cond_with_two_operands(a, b, p):
    return lax.cond(p, lambda u, v: (u * v, jnp.sum(v)), lambda u, v: (u - v, jnp.max(u)), a, b)


@pytest.mark.parametrize("f,args,in_axes,out_axes", [
    (cond_on_unmapped, [X, W], (0, None), 0),
    (cond_on_unmapped, [X.T, W], (1, None), 1),
    (cond_on_mapped, [X, PRED], 0, 0),
    (cond_on_mapped, [X.T, PRED], (1, 0), 1),
    (cond_on_mapped, [W, PRED], (None, 0), 0),
    (switch, [X, INDEX], 0, 0),
    (switch, [W, INDEX], (None, 0), 1),
    (cond_with_two_operands, [X, W, PRED], (0, None, 0), (0, 0)),
    (cond_with_two_operands, [X, X, np.bool_(True)], (0, 0, None), (1, 0)),
])
def test_cond_and_switch(f, args, in_axes, out_axes):
    check_vmap(f, args, in_axes, out_axes)


def collatz_steps(n):
    def body(c):
        n, k = c
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), k + 1
    return lax.while_loop(lambda c: c[0] != 1, body, (n, 0))[1]


def newton_sqrt(a, tol):
    def body(c):
        x, i = c
        return 0.5 * (x + a / x), i + 1
    return lax.while_loop(lambda c: jnp.abs(c[0] * c[0] - a) > tol, body, (a, 0))


@pytest.mark.parametrize("f,args,in_axes", [
    (collatz_steps, [np.array([1, 6, 7, 27, 9], np.int32)], 0),  # lanes finish at different steps
    (newton_sqrt, [np.array([4.0, 9.0, 2.0, 100.0], np.float32), np.float32(1e-3)], (0, None)),
    (newton_sqrt, [np.float32(2.0), np.array([1e-1, 1e-3, 1e-5], np.float32)], (None, 0)),
])
def test_while_loop_runs_until_every_lane_is_done(f, args, in_axes):
    check_vmap(f, args, in_axes, exact=True)


def cumulative(a, b):
    return lax.scan(lambda c, x: (c * x + b, c + x), b, a)


@pytest.mark.parametrize("args,in_axes,out_axes", [
    ([np.stack([X, X * 2]), W], (1, None), 0),     # xs mapped at axis 1
    ([X, np.stack([W] * 5)], (None, 0), (0, 1)),   # only the carry mapped
    ([np.stack([X] * 2), np.stack([W] * 2)], (0, 0), 0),
])
def test_scan(args, in_axes, out_axes):
    check_vmap(cumulative, args, in_axes, out_axes)


def test_reverse_scan_and_fori_loop():
    check_vmap(lambda a: lax.scan(lambda c, x: (c + x, c * x), 0.0, a, reverse=True), [X])
    check_vmap(lambda a: lax.fori_loop(0, 3, lambda i, c: c * a + i, a), [X])


def test_nested_control_flow():
    def f(a, p):
        def body(i, c):
            return lax.cond(p, lambda u: u + jnp.sin(u), lambda u: u * 0.5, c)
        return lax.fori_loop(0, 4, body, a)
    check_vmap(f, [X, PRED], 0)


def test_a_jitted_call_inside_vmap():
    inner = jaxc.jit(lambda u, v: jnp.tanh(u) @ v)
    check_vmap(lambda a, b: inner(a, b), [X, W], (0, None))


def test_vmap_of_grad_through_cond_and_scan():
    def f(x):
        y = lax.cond(x > 0, lambda u: u * u, lambda u: -u, x)
        return lax.scan(lambda c, _: (c * 1.5 + jnp.sin(c), None), y, None, length=3)[0]
    xs = np.array([-1.0, 0.5, 2.0], np.float32)
    loop = np.array([float(jaxc.grad(f)(x)) for x in xs], np.float32)
    np.testing.assert_allclose(jaxc.vmap(jaxc.grad(f))(xs), loop, rtol=1e-5)


def test_a_collective_inside_a_cond_with_unbatched_operands_still_sees_the_lanes():
    v, w = np.arange(4.0, dtype=np.float32), np.float32(2.0)
    f = jaxc.vmap(lambda v, w: lax.cond(True, lambda u: lax.psum(u, "i"), lambda u: u, w) + v,
                  in_axes=(0, None), axis_name="i")
    np.testing.assert_allclose(f(v, w), 4 * w + v)


def test_vmap_of_grad_of_a_psum_leaves_no_request_behind():
    v = np.arange(4.0, dtype=np.float32)
    g = jaxc.vmap(jaxc.grad(lambda x: lax.psum(x * x, "i")), axis_name="i")
    # psum's cotangent is summed over the lanes, as JAX's psum transpose does
    np.testing.assert_allclose(g(v), 2 * v * 4)
