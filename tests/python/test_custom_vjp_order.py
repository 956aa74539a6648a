"""custom_vjp / custom_jvp under differentiation: which user functions run,
in which order (JAX's: a differentiated custom_vjp call runs fwd then bwd,
never the primal function; vjp's forward pass runs fwd and its pullback bwd),
and derivatives of rules that call the function again (JAX's custom
derivatives tutorial: `fixed_point` with a while loop, to second order)."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def logged_sin(log: list):
    """sin with a custom_vjp whose three functions append their names to `log`;
    the residual is x itself, so bwd must see the value fwd saw."""
    @jaxc.custom_vjp
    def f(x):
        log.append("f")
        return jnp.sin(x)

    def f_fwd(x):
        log.append("fwd")
        return jnp.sin(x), x

    def f_bwd(x, g):
        log.append("bwd")
        return (jnp.cos(x) * g,)

    f.defvjp(f_fwd, f_bwd)
    return f


# ---------------------------------------------------------------------------
# Order and number of calls (JAX: fwd then bwd, once each; never f)
# ---------------------------------------------------------------------------

def test_vjp_runs_fwd_then_the_pullback_runs_bwd() -> None:
    log: list = []
    f = logged_sin(log)
    y, pullback = jaxc.vjp(f, 1.0)
    assert log == ["fwd"]
    assert float(y) == pytest.approx(np.sin(1.0))
    (x_bar,) = pullback(2.0)
    assert log == ["fwd", "bwd"]
    assert float(x_bar) == pytest.approx(2 * np.cos(1.0))


@pytest.mark.parametrize("make", [
    lambda f: jaxc.grad(f),
    lambda f: (lambda x: jaxc.value_and_grad(f)(x)[1]),
    lambda f: jaxc.jit(jaxc.grad(f)),
    lambda f: jaxc.grad(jaxc.jit(f)),
    lambda f: (lambda x: jaxc.vmap(jaxc.grad(f))(jnp.full((3,), x))[0]),
], ids=["grad", "value_and_grad", "jit_grad", "grad_jit", "vmap_grad"])
def test_grad_runs_fwd_then_bwd_once(make) -> None:
    log: list = []
    g = make(logged_sin(log))
    assert float(g(0.5)) == pytest.approx(np.cos(0.5))
    assert log == ["fwd", "bwd"]


def test_second_order_runs_each_rule_once() -> None:
    log: list = []
    f = logged_sin(log)
    assert float(jaxc.grad(jaxc.grad(f))(1.0)) == pytest.approx(-np.sin(1.0))
    assert log == ["fwd", "bwd"]


def test_jitted_pullback() -> None:
    log: list = []
    f = logged_sin(log)
    (x_bar,) = jaxc.jit(jaxc.vjp(f, 4.0)[1])(1.0)
    assert float(x_bar) == pytest.approx(np.cos(4.0))
    assert log == ["fwd", "bwd"]
    # a plain function's pullback, jitted (the example)
    (x_bar,) = jaxc.jit(jaxc.vjp(jnp.sin, 4.0)[1])(1.0)
    assert float(x_bar) == pytest.approx(np.cos(4.0))


def test_pullbacks_use_their_own_residuals() -> None:
    """The pullback's trace is cached across vjp calls of one function: the
    residuals are arguments, not constants of the first call."""
    log: list = []
    f = logged_sin(log)
    assert float(jaxc.vjp(f, 1.0)[1](1.0)[0]) == pytest.approx(np.cos(1.0))
    assert float(jaxc.vjp(f, 2.0)[1](3.0)[0]) == pytest.approx(3 * np.cos(2.0))
    pullback = jaxc.vjp(f, 0.5)[1]
    pullback(1.0)
    assert float(pullback(2.0)[0]) == pytest.approx(2 * np.cos(0.5))
    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jaxc.vjp(f, x)[1](np.ones(5, np.float32))[0]), np.cos(x),
                               rtol=1e-6)


def test_pullback_of_calls_inside_traced_code() -> None:
    """Calls whose fwd ran traced (in a jit, a loop) are traced again by the
    pullback; the values stay right."""
    log: list = []
    f = logged_sin(log)
    jg = jaxc.jit(lambda x: f(x) * 2)

    def h(x):
        return f(x) + jg(x * 3)
    for x in (1.0, 2.0):  # the second time jg's trace is cached
        (x_bar,) = jaxc.vjp(h, x)[1](1.0)
        assert float(x_bar) == pytest.approx(np.cos(x) + 6 * np.cos(3 * x), rel=1e-5)
    (x_bar,) = jaxc.jit(jaxc.vjp(h, 2.0)[1])(1.0)
    assert float(x_bar) == pytest.approx(np.cos(2.0) + 6 * np.cos(6.0), rel=1e-5)

    def loop(x):
        return lax.fori_loop(0, 2, lambda i, c: f(c), x)
    (x_bar,) = jaxc.vjp(loop, 1.0)[1](1.0)
    assert float(x_bar) == pytest.approx(np.cos(np.sin(1.0)) * np.cos(1.0))


def test_vjp_inside_traces_and_derivatives() -> None:
    log: list = []
    f = logged_sin(log)
    # the pullback's result differentiated again: d/dx cos(x) = -sin(x)
    assert float(jaxc.grad(lambda x: jaxc.vjp(f, x)[1](1.0)[0])(1.0)) == pytest.approx(-np.sin(1.0))
    assert float(jaxc.jit(lambda x: jaxc.vjp(f, x)[1](2.0)[0])(1.0)) == pytest.approx(2 * np.cos(1.0))
    y, pullback, aux = jaxc.vjp(lambda x: (f(x), f(2 * x)), 1.0, has_aux=True)
    assert (float(y), float(aux)) == pytest.approx((np.sin(1.0), np.sin(2.0)))
    assert float(pullback(1.0)[0]) == pytest.approx(np.cos(1.0))


def test_rules_closing_over_traced_values() -> None:
    def outer(x, w):
        @jaxc.custom_vjp
        def scaled(v):
            return v * w

        scaled.defvjp(lambda v: (v * w, None), lambda _, g: (g * w,))
        return scaled(x) * x

    # d/dx (w x^2) through the rule: the rule's w + x * w (no derivative for w)
    assert float(jaxc.grad(outer)(3.0, 2.0)) == pytest.approx(2.0 * 3.0 + 3.0 * 2.0)
    assert float(jaxc.grad(outer, argnums=1)(3.0, 2.0)) == pytest.approx(0.0)


# ---------------------------------------------------------------------------
# Errors, as in JAX
# ---------------------------------------------------------------------------

def test_jvp_of_a_custom_vjp_function_is_a_type_error() -> None:
    f = logged_sin([])
    message = "can't apply forward-mode autodiff \\(jvp\\) to a custom_vjp function"
    with pytest.raises(TypeError, match=message):
        jaxc.jvp(f, (1.0,), (1.0,))


def test_bad_rules_under_differentiation() -> None:
    @jaxc.custom_vjp
    def no_pair(x):
        return x

    no_pair.defvjp(lambda x: x, lambda res, g: (g,))
    with pytest.raises(TypeError, match="fwd rule <lambda> must return a pair"):
        jaxc.grad(no_pair)(1.0)
    with pytest.raises(TypeError, match="fwd rule <lambda> must return a pair"):
        jaxc.vjp(no_pair, 1.0)

    @jaxc.custom_vjp
    def short_bwd(x, y):
        return x * y

    short_bwd.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g,))
    with pytest.raises(TypeError, match="one cotangent per differentiable argument \\(2\\), got tuple "
                                        "of length 1"):
        jaxc.grad(short_bwd)(1.0, 2.0)
    with pytest.raises(TypeError, match="one cotangent per differentiable argument"):
        jaxc.vjp(short_bwd, 1.0, 2.0)[1](1.0)


# ---------------------------------------------------------------------------
# Rules holding while loops, differentiated twice (JAX's tutorial)
# ---------------------------------------------------------------------------

@partial(jaxc.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-6

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = jaxc.vjp(lambda a: f(a, x_star), a)
    a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
    return a_bar, jnp.zeros_like(x_star)


def rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = jaxc.vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def test_fixed_point_to_third_order() -> None:
    # sqrt(a) = a^(1/2): derivatives a^(-1/2)/2, -a^(-3/2)/4, 3 a^(-5/2)/8
    grad2 = jaxc.grad(jaxc.grad(newton_sqrt))
    assert float(newton_sqrt(2.0)) == pytest.approx(np.sqrt(2.0), rel=1e-6)
    assert float(jaxc.grad(newton_sqrt)(2.0)) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-5)
    assert float(grad2(2.0)) == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-5)
    assert float(jaxc.jit(grad2)(2.0)) == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-5)
    assert float(jaxc.grad(grad2)(2.0)) == pytest.approx(0.375 * 2.0 ** -2.5, rel=1e-4)
    a = np.array([2.0, 4.0], np.float32)
    np.testing.assert_allclose(np.asarray(jaxc.vmap(grad2)(a)), -0.25 * a ** -1.5, rtol=1e-5)


def test_custom_jvp_with_a_while_loop_in_the_primal() -> None:
    """The rule's primal (a while loop) is not differentiated by reverse mode
    of the rule: only its tangent map is (as JAX transposes the linear part)."""
    @jaxc.custom_jvp
    def sqrt(a):
        return lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6,
                              lambda c: (c[1], 0.5 * (c[1] + a / c[1])), (a, 0.5 * (a + 1.0)))[1]

    @sqrt.defjvp
    def sqrt_jvp(primals, tangents):
        y = sqrt(primals[0])
        return y, tangents[0] / (2 * y)

    assert float(jaxc.grad(sqrt)(2.0)) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-5)
    assert float(jaxc.grad(jaxc.grad(sqrt))(2.0)) == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-5)
    second = jaxc.jvp(lambda y: jaxc.jvp(sqrt, (y,), (1.0,))[1], (2.0,), (1.0,))[1]
    assert float(second) == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-5)


# ---------------------------------------------------------------------------
# Against the installed JAX
# ---------------------------------------------------------------------------

def _orders(api) -> dict:
    """name -> (the rules' calls, value) of each scenario with library `api`."""
    log: list = []

    @api.custom_vjp
    def f(x):
        log.append("f")
        return api.numpy.sin(x)

    f.defvjp(lambda x: (log.append("fwd"), (api.numpy.sin(x), api.numpy.cos(x)))[1],
             lambda c, g: (log.append("bwd"), (c * g,))[1])

    def vjp_then_pullback(x):
        y, pullback = api.vjp(f, x)
        log.append("|")
        return pullback(1.0)[0]

    scenarios = {
        "vjp": vjp_then_pullback,
        "grad": api.grad(f),
        "value_and_grad": lambda x: api.value_and_grad(f)(x)[1],
        "jit_grad": api.jit(api.grad(f)),
        "jit_pullback": lambda x: api.jit(api.vjp(f, x)[1])(1.0)[0],
        "grad_grad": api.grad(api.grad(f)),
    }
    out = {}
    for name, fn in scenarios.items():
        log.clear()
        value = float(fn(0.7))
        out[name] = (list(log), value)
    return out


def test_orders_match_jax() -> None:
    jax = pytest.importorskip("jax")
    ours, theirs = _orders(jaxc), _orders(jax)
    for name, (log, value) in theirs.items():
        assert ours[name][0] == log, name
        assert ours[name][1] == pytest.approx(value, rel=1e-6), name
