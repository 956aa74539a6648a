"""JAX's options that change what a function traces to: they are part of the
jit cache key (a function is traced again when one changes, also on the
compiled fast path, and jax_explain_cache_misses names the option), and
what two of them do: `jax_allow_f16_reductions` (JAX's ValueError for a
float16/bfloat16 sum) and `jax_softmax_custom_jvp` (nn.softmax's derivative
from its custom_jvp rule). The random options are in test_random_legacy.py."""
import logging

import ml_dtypes
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import _config, lax

TRACE_CONTEXTS = {
    "jax_numpy_rank_promotion": jaxc.numpy_rank_promotion("warn"),
    "jax_threefry_partitionable": jaxc.threefry_partitionable(False),
    "jax_default_prng_impl": jaxc.default_prng_impl("rbg"),
    "jax_debug_key_reuse": jaxc.debug_key_reuse(True),
    "jax_softmax_custom_jvp": jaxc.softmax_custom_jvp(True),
    "jax_allow_f16_reductions": jaxc.allow_f16_reductions(False),
}


def test_every_trace_option_has_a_context_here():
    assert set(TRACE_CONTEXTS) == set(_config.TRACE_OPTIONS)


@pytest.mark.parametrize("option", sorted(TRACE_CONTEXTS))
def test_a_trace_option_retraces_a_jit_function(option):
    traces = []

    def f(x):
        traces.append(jaxc.config.read(option))
        return x * 2

    g = jaxc.jit(f)
    x = jnp.ones(3)
    g(x), g(x)
    with TRACE_CONTEXTS[option]:
        g(x), g(x)  # traced once more, then from the cache (the compiled fast path)
    g(x)
    assert len(traces) == 2 and traces[0] == _config.OPTIONS[option][0] != traces[1]
    assert g._cache_size() == 2


def test_explain_cache_misses_names_the_option(caplog):
    f = jaxc.jit(lambda x: x + 1)
    with caplog.at_level(logging.WARNING, logger="jaxc"), jaxc.explain_cache_misses():
        f(jnp.ones(3))
        caplog.clear()
        with jaxc.softmax_custom_jvp(True):
            f(jnp.ones(3))
    (message,) = [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    assert "different tracing context (jax_softmax_custom_jvp now True and before False)" in message


def test_options_that_do_not_change_traces_do_not_retrace():
    f = jaxc.jit(lambda x: x + 1)
    f(jnp.ones(2))
    with jaxc.legacy_prng_key("warn"), jaxc.log_compiles(False):
        f(jnp.ones(2))
    assert f._cache_size() == 1


# -- jax_allow_f16_reductions --------------------------------------------------------

F16_MESSAGE = "reduce_sum on operand {} is not allowed when jax_allow_f16_reductions=False."


@pytest.mark.parametrize("dtype,short", [(np.float16, "f16"), (ml_dtypes.bfloat16, "bf16")])
def test_f16_sums_raise_as_in_jax(dtype, short):
    x = jnp.ones((3, 4), dtype)
    with jaxc.allow_f16_reductions(False):
        with pytest.raises(ValueError) as error:
            lax.reduce_sum(x, (0,))
        assert str(error.value) == F16_MESSAGE.format(f"{short}[3,4]")
        with pytest.raises(ValueError, match=r"operand .*\[2,3\] is not allowed"):
            jaxc.jit(lambda v: lax.reduce_sum(v, (1,)))(jnp.ones((2, 3), dtype))
        with pytest.raises(ValueError, match=r"\[0,4\]"):
            lax.reduce_sum(jnp.ones((0, 4), dtype), (0,))
        with pytest.raises(ValueError):
            lax.reduce(x, dtype(0), lax.add, (0,))
        # allowed: axes of length 1, no axes, other dtypes and reductions, and jnp's
        # sums (which add float16 in float32, as JAX's do)
        np.testing.assert_array_equal(lax.reduce_sum(jnp.ones((1, 4), dtype), (0,)), np.ones(4))
        assert lax.reduce_sum(x, ()).shape == (3, 4)
        assert float(lax.reduce_sum(jnp.ones((3, 4)), (0, 1))) == 12.0
        assert float(lax.reduce_max(x, (0, 1))) == 1.0
        assert float(jnp.sum(x)) == 12.0 and float(jnp.mean(x)) == 1.0
        np.testing.assert_array_equal(jaxc.vmap(lambda v: lax.reduce_sum(v, (0,)))(jnp.ones((2, 1), dtype)),
                                      np.ones(2))
    assert float(lax.reduce_sum(x, (0, 1))) == 12.0  # allowed again


# -- jax_softmax_custom_jvp ----------------------------------------------------------

X = np.array([[1.0, 2.0, -np.inf, 0.5], [3.0, 3.0, 3.0, 3.0], [0.1, -2.0, 4.0, 1.5]], np.float32)
WHERE = np.array([[True, True, False, True], [True, False, True, True], [True, True, True, True]])


def _softmax_tangent(custom, x, x_dot, where=None):
    with jaxc.softmax_custom_jvp(custom):
        return jaxc.jvp(lambda v: jaxc.nn.softmax(v, where=where), (x,), (x_dot,))


def test_softmax_custom_jvp_gives_the_rule_exactly():
    """The tangent is JAX's rule y * (dx - sum(y * dx)) computed from y, to
    the bit; the formula's own derivative agrees only to rounding."""
    dx = np.ones_like(X)
    y, rule = _softmax_tangent(True, X, dx)
    y = np.asarray(y)
    weighted = (y * dx).sum(-1, keepdims=True, dtype=np.float32)
    np.testing.assert_array_equal(rule, y * (dx - weighted))
    y_old, formula = _softmax_tangent(False, X, dx)
    np.testing.assert_array_equal(y, y_old)
    np.testing.assert_allclose(formula, rule, atol=1e-7)
    assert not np.array_equal(formula, rule)  # two derivatives, not one


def test_softmax_custom_jvp_traces_a_custom_call():
    f = jaxc.jit(jaxc.grad(lambda v: (jaxc.nn.softmax(v) * jnp.arange(4.0)).sum()))
    assert "custom_jvp_call" not in f.lower(X[1]).as_text()
    with jaxc.softmax_custom_jvp(True):
        assert "custom_jvp_call" in f.lower(X[1]).as_text()


@pytest.mark.parametrize("custom", [False, True])
def test_softmax_derivatives_in_float64(custom):
    """Both derivatives, with and without `where`, against finite differences."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4))
    with jaxc.enable_x64(), jaxc.softmax_custom_jvp(custom):
        jaxc.test_util.check_grads(lambda v: jaxc.nn.softmax(v), (x,), order=2)
        jaxc.test_util.check_grads(lambda v: jaxc.nn.softmax(v, axis=0, where=WHERE), (x,), order=1)


@pytest.mark.parametrize("custom", [False, True])
def test_softmax_grad_with_where_and_minus_inf(custom):
    weights = jnp.arange(4.0)
    with jaxc.softmax_custom_jvp(custom):
        grad = jaxc.grad(lambda v: (jaxc.nn.softmax(v, where=WHERE) * weights).sum())(X)
    grad = np.asarray(grad)
    assert np.isfinite(grad).all()
    assert (grad[~WHERE] == 0).all()
    y = np.asarray(jaxc.nn.softmax(X, where=WHERE))
    expected = y * (np.arange(4.0) - (y * np.arange(4.0)).sum(-1, keepdims=True))
    np.testing.assert_allclose(grad, expected, atol=1e-6)
