"""`jaxc.custom_batching`: custom_vmap and sequential_vmap (JAX's semantics,
docs/batching.md), checked against a Python loop, finite differences in
float64 and, where it is installed, JAX itself."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.custom_batching import custom_vmap, sequential_vmap


def product_under_vmap():
    """JAX's documented example: x + y, but x * y when batched."""
    @custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        assert all(in_batched)
        assert xs.shape[0] == axis_size and ys.shape[0] == axis_size
        return xs * ys, True

    return f


def test_the_rule_runs_only_under_vmap():
    f = product_under_vmap()
    xs, ys = np.arange(3, dtype=np.int32), np.arange(1, 4, dtype=np.int32)
    np.testing.assert_array_equal(jaxc.vmap(f)(xs, ys), xs * ys)
    np.testing.assert_array_equal(jaxc.jit(jaxc.vmap(f))(xs, ys), xs * ys)
    np.testing.assert_array_equal(f(xs, ys), xs + ys)
    np.testing.assert_array_equal(jaxc.jit(f)(xs, ys), xs + ys)
    text = jaxc.jit(f).lower(xs, ys).as_text(stage="traced")
    assert "jaxc.custom_vmap" in text and "call @f_" in text


def test_against_jax():
    jax = pytest.importorskip("jax")
    xs, ys = np.arange(3, dtype=np.int32), np.arange(1, 4, dtype=np.int32)
    ref = jax.custom_batching.custom_vmap(lambda x, y: x + y)
    ref.def_vmap(lambda n, b, x, y: (x * y, True))
    np.testing.assert_array_equal(jaxc.vmap(product_under_vmap())(xs, ys), jax.vmap(ref)(xs, ys))


def _sin_with_rule(lib):
    np_ = lib.numpy
    f = lib.custom_batching.custom_vmap(lambda v: np_.sin(v))
    f.def_vmap(lambda n, b, v: (np_.sin(v) * v, True))
    return f


def test_derivatives_against_jax():
    jax = pytest.importorskip("jax")
    x = np.linspace(-1, 1, 5).astype(np.float32)
    results = []
    for lib in (jaxc, jax):
        f = _sin_with_rule(lib)
        results.append((lib.jvp(f, (np.float32(0.5),), (np.float32(1.0),))[1],
                        lib.vmap(lambda v: lib.jvp(f, (v,), (lib.numpy.ones_like(v),)))(x)[1],
                        lib.grad(lambda v: lib.numpy.sum(lib.vmap(f)(v)))(x)))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_in_batched_and_out_batched_are_pytrees():
    calls = []

    @custom_vmap
    def f(params, x):
        return {"y": params["w"] * jnp.sin(x), "w": params["w"]}

    @f.def_vmap
    def rule(axis_size, in_batched, params, x):
        calls.append((axis_size, in_batched))
        out = {"y": params["w"] * jnp.sin(x), "w": params["w"]}
        return out, {"y": True, "w": in_batched[0]["w"]}

    x = np.linspace(-1, 1, 5).astype(np.float32)
    got = jaxc.vmap(f, in_axes=({"w": None}, 0))({"w": np.float32(3.0)}, x)
    assert calls == [(5, ({"w": False}, True))]
    np.testing.assert_allclose(got["y"], 3 * np.sin(x), rtol=1e-6)
    np.testing.assert_array_equal(got["w"], np.full(5, 3.0, np.float32))  # unbatched: broadcast at out_axes


def test_a_single_out_batched_covers_a_tuple_output():
    @custom_vmap
    def f(x):
        return x, 2 * x

    f.def_vmap(lambda n, b, x: ((x, 2 * x), True))
    a, b = jaxc.vmap(f)(np.arange(4.0, dtype=np.float32))
    np.testing.assert_array_equal(b, 2 * np.arange(4.0))


def test_sequential_vmap_is_a_loop_over_the_lanes():
    @sequential_vmap
    def f(x, s):
        return jnp.cumsum(x) * s  # any function: the loop calls it per lane

    xs, s = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32), np.float32(0.5)
    got = jaxc.vmap(f, in_axes=(0, None))(xs, s)
    np.testing.assert_allclose(got, np.stack([np.cumsum(x) * s for x in xs]), rtol=1e-5, atol=1e-6)
    text = jaxc.jit(jaxc.vmap(f, in_axes=(0, None))).lower(xs, s).as_text(stage="transformed")
    assert "jaxc.scan" in text and "length = 4" in text


def test_grad_of_vmap_differentiates_the_rule():
    @custom_vmap
    def f(x):
        return jnp.sin(x)

    f.def_vmap(lambda n, b, x: (jnp.sin(x) * x, True))  # batched: x sin x
    jaxc.config.update("jax_enable_x64", True)
    try:
        x = np.linspace(-1, 1, 5)
        g = jaxc.grad(lambda x: jnp.sum(jaxc.vmap(f)(x)))(x)
        h = 1e-6
        fd = [(np.sum((x + h * e) * np.sin(x + h * e)) - np.sum((x - h * e) * np.sin(x - h * e))) / (2 * h)
              for e in np.eye(5)]
        np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)
        # unbatched, a derivative is f's (JAX: forward mode; it refuses reverse mode with a
        # ValueError, jaxc differentiates f); batched, the rule's, as JAX's vmap of jvp
        np.testing.assert_allclose(jaxc.grad(f)(0.5), np.cos(0.5), rtol=1e-12)
        np.testing.assert_allclose(jaxc.jvp(f, (0.5,), (1.0,))[1], np.cos(0.5), rtol=1e-12)
        rule_derivative = np.sin(x) + x * np.cos(x)
        np.testing.assert_allclose(jaxc.vmap(jaxc.grad(f))(x), rule_derivative, rtol=1e-12)
        _, tangents = jaxc.vmap(lambda v: jaxc.jvp(f, (v,), (jnp.ones_like(v),)))(x)
        np.testing.assert_allclose(tangents, rule_derivative, rtol=1e-12)
    finally:
        jaxc.config.update("jax_enable_x64", False)


def test_nested_vmap_runs_the_rule_for_the_inner_one():
    sizes = []

    @custom_vmap
    def f(x):
        return x + 1

    @f.def_vmap
    def rule(n, b, x):
        sizes.append(n)
        return x * 10, True

    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(jaxc.vmap(jaxc.vmap(f))(xs), xs * 10)
    assert sizes == [3]


def test_with_custom_vjp():
    """JAX's documented combination: custom_vjp over custom_vmap."""
    @jaxc.custom_vjp
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) * ys, True

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return cos_x * g * y, sin_x * g

    f.defvjp(f_fwd, f_bwd)
    x, y = np.float32(0.3), np.float32(2.0)
    xs = np.linspace(0, 1, 4).astype(np.float32)
    np.testing.assert_allclose(f(x, y), np.sin(x) * y, rtol=1e-6)
    np.testing.assert_allclose(jaxc.vmap(f, in_axes=(0, None))(xs, y), np.cos(xs) * y, rtol=1e-6)
    np.testing.assert_allclose(jaxc.grad(f)(x, y), np.cos(x) * y, rtol=1e-6)


# ---------------------------------------------------------------- errors

def _failing(rule):
    @custom_vmap
    def f(x):
        return jnp.sin(x)

    f.def_vmap(rule)
    return f


def test_the_rules_exception_reaches_the_caller():
    def rule(n, b, x):
        raise KeyError("not batchable here")

    with pytest.raises(KeyError, match="not batchable here"):
        jaxc.vmap(_failing(rule))(np.ones(3, np.float32))
    np.testing.assert_allclose(jaxc.vmap(jnp.sin)(np.zeros(2, np.float32)), 0)  # the next compile is clean


@pytest.mark.parametrize("rule, error, match", [
    (lambda n, b, x: jnp.sin(x), TypeError, "must return a pair"),
    (lambda n, b, x: ((x, x), True), ValueError, "structure"),
    (lambda n, b, x: (x, (True, False)), ValueError, "output batching specification"),
    (lambda n, b, x: (x[0], True), ValueError, r"returned output 0 of type float32\[\], expected f32\[3\]"),
    (lambda n, b, x: (x, False), ValueError, "unbatched, as out_batched says"),
    (lambda n, b, x: (x.astype(jnp.int32), True), ValueError, "returned output 0 of type int32"),
], ids=["no pair", "other structure", "not a prefix", "lost the axis", "batched but says not", "dtype"])
def test_a_result_that_does_not_fit_is_an_error_naming_the_rule(rule, error, match):
    with pytest.raises(error, match=match):
        jaxc.vmap(_failing(rule))(np.ones(3, np.float32))


def test_no_rule_is_an_attribute_error():
    f = custom_vmap(lambda x: x)
    with pytest.raises(AttributeError, match="No batching rule defined"):
        f(np.ones(2))


def test_closing_over_a_mapped_value_is_refused():
    f = product_under_vmap()

    def g(x):
        inner = custom_vmap(lambda y: y * x)  # closes over the mapped x
        inner.def_vmap(lambda n, b, y: (y, True))
        return inner(np.float32(1.0))

    with pytest.raises(ValueError, match="closes over a value the vmap maps"):
        jaxc.vmap(g)(np.ones(3, np.float32))
    assert f is not None


def test_a_marked_call_without_its_rule_is_an_error_at_its_line(tmp_path):
    path = tmp_path / "marked.mlir"
    path.write_text("""
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @f(%x) {jaxc.custom_vmap = 999999 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.vmap @g(%x) in_axes = [0] out_axes = [0] axis_size = 4 : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
""")
    proc = subprocess.run([sys.executable, "-m", "jaxc.tools.jaxc_opt", str(path), "--jaxc-batch"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "marked.mlir:6:8: error: jaxc-batch: no custom_vmap rule numbered 999999 (for @f)" in proc.stderr
    assert "Traceback" not in proc.stderr
