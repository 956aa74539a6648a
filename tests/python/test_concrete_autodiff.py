"""grad, jvp, vjp and the jacobians called outside jit see concrete values
(issue #18, item 2): Python control flow on the arguments is decided by them,
as in JAX; under jit it stays a ConcretizationTypeError."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def piecewise(x):
    """JAX's autodiff-cookbook example: x**2 below 3, x above."""
    return x ** 2 if x < 3 else x


def doubling(x):
    while x < 10:       # the trip count depends on the value
        x = x * 2
    return x


@pytest.mark.parametrize("x, expected", [(2.0, 4.0), (4.0, 1.0), (2.999, 5.998)])
def test_grad_follows_the_branch_the_value_takes(x: float, expected: float) -> None:
    assert float(jaxc.grad(piecewise)(x)) == pytest.approx(expected, rel=1e-5)


def test_the_trace_is_not_reused_for_other_values() -> None:
    g = jaxc.grad(piecewise)
    assert [float(g(x)) for x in (2.0, 4.0, 2.0, 5.0)] == pytest.approx([4.0, 1.0, 4.0, 1.0])
    assert g.trace_count == 4 and g._cache_size() == 0   # value-dependent: traced per call


def test_a_function_without_value_control_flow_is_still_cached() -> None:
    g = jaxc.grad(lambda x: jnp.sin(x) * 2.0)
    for x in (1.0, 2.0, 3.0):
        assert float(g(x)) == pytest.approx(2 * np.cos(x), rel=1e-6)
    assert g.trace_count == 1


def test_python_while_loop_on_the_value() -> None:
    # 3 -> 6 -> 12: d/dx (4x) = 4; 6 -> 12: 2
    assert float(jaxc.grad(doubling)(3.0)) == 4.0
    assert float(jaxc.grad(doubling)(6.0)) == 2.0
    assert float(jaxc.grad(doubling)(11.0)) == 1.0


def test_int_index_and_item_are_concrete_float_and_asarray_are_not() -> None:
    """JAX allows int(), __index__ and .item() of a primal under grad, not
    float() or np.asarray (checked against JAX 0.10.2)."""
    assert float(jaxc.grad(lambda x: x * int(x))(2.5)) == 2.0
    assert float(jaxc.grad(lambda x: x * x.item())(2.5)) == 2.5
    assert float(jaxc.grad(lambda x, n: (x * 2.0 ** jnp.arange(n)[-1]).sum())(1.0, 3)) == 4.0

    def by_index(x):
        table = [1.0, 10.0, 100.0]
        return x * table[jnp.int32(x) % 3]   # __index__
    assert float(jaxc.grad(by_index)(4.0)) == 10.0
    with pytest.raises(jaxc.ConcretizationTypeError):
        jaxc.grad(lambda x: x * float(x))(2.0)
    with pytest.raises(jaxc.errors.TracerArrayConversionError):
        jaxc.grad(lambda x: x * np.asarray(x))(2.0)


def test_loop_count_from_an_array_argument() -> None:
    def repeat(x, n):
        for _ in range(int(n)):
            x = jnp.sin(x)
        return x.sum()
    x = np.array([0.3, 0.7], np.float32)
    expected = np.cos(x) * np.cos(np.sin(x))                   # two sin's
    np.testing.assert_allclose(np.asarray(jaxc.grad(repeat)(x, np.int32(2))), expected, rtol=1e-6)


@pytest.mark.parametrize("transform, expected", [
    (lambda f: jaxc.jacfwd(f)(2.0), 4.0),
    (lambda f: jaxc.jacrev(f)(4.0), 1.0),
    (lambda f: jaxc.hessian(f)(2.0), 2.0),
    (lambda f: jaxc.value_and_grad(f)(2.0)[1], 4.0),
    (lambda f: jaxc.jvp(f, (2.0,), (1.0,))[1], 4.0),
    (lambda f: jaxc.vjp(f, 4.0)[1](1.0)[0], 1.0),
    (lambda f: jaxc.grad(jaxc.grad(f))(2.0), 2.0),
    (lambda f: jaxc.grad(jaxc.grad(f))(4.0), 0.0),
    (lambda f: jaxc.vmap(jaxc.grad(f))(jnp.array([1.0, 2.0]))[1] * 0 + 4.0, 4.0),
])
def test_every_transformation_outside_jit(transform, expected) -> None:
    if "vmap" in transform.__code__.co_names:
        # vmap traces its function abstractly (as JAX's batch tracers): stays an error.
        with pytest.raises(jaxc.ConcretizationTypeError):
            transform(piecewise)
        return
    assert float(transform(piecewise)) == pytest.approx(expected)


def test_under_jit_the_error_stays() -> None:
    with pytest.raises(jaxc.errors.TracerBoolConversionError, match="needs a concrete value"):
        jaxc.jit(jaxc.grad(piecewise))(2.0)
    with pytest.raises(jaxc.ConcretizationTypeError):
        jaxc.jit(piecewise)(2.0)
    # JAX's types: int() is a ConcretizationTypeError, __index__ a TracerIntegerConversionError
    # (which, as JAX's, is not a ConcretizationTypeError; both are TypeErrors)
    with pytest.raises(jaxc.ConcretizationTypeError, match="int\\(\\) needs a concrete value"):
        jaxc.jit(lambda x: x * int(x))(2.0)
    with pytest.raises(jaxc.errors.TracerIntegerConversionError) as caught:
        jaxc.jit(lambda i: jnp.arange(5.0)[: range(i)[-1]])(3)
    assert not isinstance(caught.value, jaxc.ConcretizationTypeError) and isinstance(caught.value, TypeError)
    with pytest.raises(jaxc.errors.TracerArrayConversionError) as caught:
        jaxc.jit(lambda x: np.asarray(x))(2.0)
    assert not isinstance(caught.value, jaxc.ConcretizationTypeError)


def test_control_flow_on_constants_works_inside_jit() -> None:
    """A value built from constants only is known while tracing (in JAX it
    is not even a tracer)."""
    @jaxc.jit
    def f(x):
        scale = jnp.float32(3.0) * 2
        return x * 2 if scale > 5 else x
    assert float(f(1.0)) == 2.0


def test_a_long_chain_evaluates_without_recursion() -> None:
    def f(x):
        y = x
        for _ in range(1500):
            y = y + 0.001
        return x * 2 if y > 3.0 else x * 3
    assert float(jaxc.grad(f)(2.0)) == 2.0   # 2 + 1.5 = 3.5 > 3
    assert float(jaxc.grad(f)(1.0)) == 3.0   # 1 + 1.5 = 2.5


def test_lax_bodies_stay_abstract() -> None:
    def f(x):
        return lax.cond(x > 0, lambda v: v * 2 if v > 1 else v, lambda v: v, x)
    with pytest.raises(jaxc.ConcretizationTypeError):
        jaxc.grad(f)(2.0)


def test_against_jax() -> None:
    jax = pytest.importorskip("jax")
    for x in (1.0, 2.5, 3.5, 20.0):
        assert float(jaxc.grad(piecewise)(x)) == pytest.approx(float(jax.grad(piecewise)(x)))
        assert float(jaxc.grad(doubling)(x)) == pytest.approx(float(jax.grad(doubling)(x)))
