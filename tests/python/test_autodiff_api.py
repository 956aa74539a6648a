"""The autodiff API (jaxc/_autodiff.py, jaxc/test_util.py): the requests it
emits (IR), its errors (message and the user's line) and, through the
`jaxc-autodiff` pass that expands the requests, its numbers."""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads


def cube(x):
    return x ** 3 + 2 * x


def ir_of(fun, *args):
    """The traced IR text of `fun(*args)`, after checking the module verifies."""
    ir = jaxc.make_ir(fun)(*args)
    ir.module.operation.verify()
    return str(ir)


def private_function(text: str, name: str) -> str:
    """The text of ``func.func private @name`` in `text`."""
    match = re.search(rf"  func\.func private @{name}\(.*?\n  }}\n", text, re.S)
    assert match, f"no private function @{name} in\n{text}"
    return match.group(0)


def line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError(f"{text!r} not in {fn.__name__}")


# ---------------------------------------------------------------------------
# The requests in the IR
# ---------------------------------------------------------------------------

def test_grad_emits_a_vjp_request_of_a_private_callee() -> None:
    text = ir_of(jaxc.grad(cube), 2.0)
    assert "func.func @jit_grad_cube(%arg0: tensor<f32>) -> tensor<f32>" in text
    assert re.search(r"%0 = jaxc.constant dense<1.0+e\+00> : tensor<f32>\n"
                     r"\s+%1:2 = jaxc.vjp @cube_0\(%arg0\) cotangents\(%0\) : "
                     r"\(tensor<f32>, tensor<f32>\) -> \(tensor<f32>, tensor<f32>\)\n"
                     r"\s+return %1#1 : tensor<f32>", text)
    callee = private_function(text, "cube_0")
    assert "(%arg0: tensor<f32>) -> tensor<f32>" in callee
    assert "jaxc.mul %arg0, %arg0" in callee and "jaxc.vjp" not in callee  # x ** 3: integer_pow


def test_nested_grads_nest_requests_innermost_in_the_deepest_callee() -> None:
    text = ir_of(jaxc.grad(jaxc.grad(cube)), 2.0)
    assert "jaxc.vjp @grad_cube_0(%arg0)" in text
    outer = private_function(text, "grad_cube_0")
    assert "jaxc.vjp @cube_0(%arg0)" in outer
    assert "jaxc.mul %arg0, %arg0" in private_function(text, "cube_0")
    assert text.count("jaxc.vjp") == 2


def test_captured_values_are_extra_operands_and_callee_arguments() -> None:
    w = jnp.arange(3.0)  # a concrete Array: becomes an argument of the jit function

    def outer(x, y):
        return jaxc.grad(lambda v: jnp.sum(jnp.sin(v * y) * w))(x)  # closes over y and w

    text = ir_of(outer, jnp.ones(3), 2.0)
    assert "func.func @jit_outer(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<3xf32>)" in text
    assert re.search(r"jaxc.vjp @lambda_0\(%arg0, %arg1, %arg2\) cotangents\(%\d+\) : "
                     r"\(tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>\) -> "
                     r"\(tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>\)", text)
    assert "(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<3xf32>) -> tensor<f32>" in \
        private_function(text, "lambda_0")


def test_jvp_passes_zero_tangents_for_captured_values() -> None:
    def outer(x, y):
        return jaxc.jvp(lambda v: v * y, (x,), (jnp.ones(()),))

    text = ir_of(outer, 1.0, 2.0)
    match = re.search(r"jaxc.jvp @lambda_0\(%arg0, %arg1\) tangents\((%\d+), (%\d+)\)", text)
    assert match, text
    zero = match.group(2)
    assert re.search(rf"{zero} = jaxc.broadcast_in_dim %\d+, dims = \[\]|{zero} = jaxc.constant dense<0", text)
    assert "(tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)" in text


def test_value_and_grad_with_argnums_tuple() -> None:
    text = ir_of(jaxc.value_and_grad(lambda x, w: jnp.sum(x * w), argnums=(0, 1)), jnp.ones(3), 2.0)
    assert re.search(r"%\d+:3 = jaxc.vjp @lambda_0\(%arg0, %arg1\) cotangents\(%\d+\) : "
                     r"\(tensor<3xf32>, tensor<f32>, tensor<f32>\) -> "
                     r"\(tensor<f32>, tensor<3xf32>, tensor<f32>\)", text)
    assert re.search(r"return %\d+#0, %\d+#1, %\d+#2 : tensor<f32>, tensor<3xf32>, tensor<f32>", text)


def test_has_aux_outputs_get_zero_cotangents() -> None:
    text = ir_of(jaxc.grad(lambda x: (x * x, x.astype(jnp.int32)), has_aux=True), 2.0)
    assert re.search(r"jaxc.vjp @lambda_0\(%arg0\) cotangents\(%\d+, %\d+\) : "
                     r"\(tensor<f32>, tensor<f32>, tensor<i32>\) -> "
                     r"\(tensor<f32>, tensor<i32>, tensor<f32>\)", text)


def test_repeated_requests_get_fresh_symbols() -> None:
    def two(x):
        return jaxc.grad(cube)(x) + jaxc.grad(cube)(x)

    text = ir_of(two, 1.0)
    assert "func.func private @cube_0" in text and "func.func private @cube_1" in text


def test_request_carries_the_users_line() -> None:
    def f(x):
        return jaxc.grad(jnp.sin)(x)  # the request line

    text = jaxc.make_ir(f)(1.0).as_text(debug_info=True)
    line = line_of(f, "the request line")
    request = next(l for l in text.splitlines() if "jaxc.vjp" in l)
    alias = re.search(r"loc\((#loc\d*)\)$", request).group(1)
    assert f'{alias} = loc("{__file__}":{line}:' in text


def test_grad_inside_lax_cond_puts_the_callee_in_the_module() -> None:
    def f(p, x):
        return lax.cond(p, lambda v: jaxc.grad(lambda z: z * v)(v), lambda v: v, x)

    text = ir_of(f, True, 2.0)
    assert "jaxc.vjp @lambda_0" in text and "func.func private @lambda_0" in text


def test_jacfwd_and_jacrev_map_one_request_over_the_basis_with_vmap() -> None:
    fwd = ir_of(jaxc.jacfwd(jnp.sin), jnp.ones(3))
    assert fwd.count("jaxc.jvp @sin_0(") == 1 and fwd.count("jaxc.vmap @") == 1
    assert re.search(r"jaxc\.vmap @\w+\(%\w+, %arg0\) in_axes = \[0, -1\] out_axes = \[0\] axis_size = 3", fwd)
    assert "dense<[[1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, " in fwd
    rev = ir_of(jaxc.jacrev(lambda x: jnp.sin(x)[:2]), jnp.ones(3))
    assert rev.count("jaxc.vjp @lambda_0(") == 1 and "axis_size = 2" in rev
    assert re.search(r"return %\d+ : tensor<2x3xf32>", rev)


def test_hessian_is_jacfwd_of_jacrev() -> None:
    text = ir_of(jaxc.hessian(lambda x: jnp.sum(x ** 3)), jnp.ones(2))
    assert text.count("jaxc.jvp @jacrev_lambda_0") == 1 and text.count("jaxc.vmap @") == 2
    assert "jaxc.vmap @" in private_function(text, "jacrev_lambda_0") and "jaxc.vjp @lambda_0" in text
    assert "-> tensor<2x2xf32>" in text


def test_vjp_and_linearize_emit_requests_when_applied() -> None:
    def pull(x):
        out, vjp_fn = jaxc.vjp(jnp.sin, x)
        return vjp_fn(jnp.ones_like(out))

    text = ir_of(pull, jnp.ones(2))
    assert re.search(r"jaxc.vjp @sin_0\(%arg0\) cotangents\(%\d+\) : \(tensor<2xf32>, tensor<2xf32>\)", text)

    def push(x):
        _, f_jvp = jaxc.linearize(jnp.sin, x)
        return f_jvp(jnp.ones_like(x))

    assert "jaxc.jvp @sin_0(%arg0) tangents(" in ir_of(push, jnp.ones(2))


# Custom rules used by the IR and the numeric tests.

@jaxc.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return softplus(x), x_dot * jaxc.nn.sigmoid(x)


@jaxc.custom_jvp
def fake_sin(x):  # a rule that differs from the function, to prove it is used
    return jnp.sin(x)


fake_sin.defjvp(lambda primals, tangents: (fake_sin(primals[0]), 10.0 * tangents[0]))

SCALE = jnp.asarray(3.0)  # a concrete Array the bwd rule closes over


@jaxc.custom_vjp
def clipped_sin(x, y):
    return jnp.sin(x) * y


def clipped_sin_fwd(x, y):
    return clipped_sin(x, y), (jnp.cos(x), jnp.sin(x), y)


def clipped_sin_bwd(res, g):
    cos_x, sin_x, y = res
    return (jnp.clip(cos_x * y * g, -SCALE, SCALE), sin_x * g)


clipped_sin.defvjp(clipped_sin_fwd, clipped_sin_bwd)


def test_custom_jvp_call_and_its_rule() -> None:
    text = ir_of(jaxc.grad(softplus), 1.0)
    callee = private_function(text, "softplus_1")
    assert re.search(r"jaxc.custom_jvp_call @softplus_1\(%arg0\) jvp = @softplus_jvp_0 : "
                     r"\(tensor<f32>\) -> tensor<f32>", private_function(text, "softplus_0"))
    assert "jaxc.log1p" in callee
    rule = private_function(text, "softplus_jvp_0")
    assert "(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>)" in rule
    assert "jaxc.custom_jvp_call" not in rule  # softplus(x) inside its own rule is its body
    assert "jaxc.log1p" in rule and "jaxc.logistic" in rule


def test_custom_jvp_defjvps_rule_differentiates_its_output_by_the_rule_again() -> None:
    """As JAX's defjvps: the primal output a rule receives comes from the
    custom_jvp function itself, so higher derivatives use the rule too (the
    raw body here has derivative 0)."""
    f = jaxc.custom_jvp(lambda x: lax.stop_gradient(jnp.exp(x)))
    f.defjvps(lambda t, ans, x: ans * t)
    for order in (1, 2, 3):
        g = f
        for _ in range(order):
            g = jaxc.grad(g)
        np.testing.assert_allclose(float(g(1.0)), np.e, rtol=1e-6)
        np.testing.assert_allclose(float(jaxc.jit(g)(0.5)), np.exp(0.5), rtol=1e-6)


def test_a_custom_rule_that_raises_matters_only_when_differentiated() -> None:
    """A custom_jvp rule, a custom_vjp bwd. As in JAX, which traces them
    only under differentiation: under jit
    (which may be differentiated later) the rule's error is deferred to the
    request that needs the rule, through vmap too; the primal computes."""
    @jaxc.custom_jvp
    def f(x):
        return jnp.sin(x) * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        raise NotImplementedError("no derivative here")

    x = np.linspace(0.1, 1.0, 3).astype(np.float32)
    np.testing.assert_allclose(jaxc.jit(f)(x), np.sin(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(jaxc.vmap(jaxc.jit(f))(x), np.sin(x) * 2, rtol=1e-6)
    assert "jaxc.rule_error" in jaxc.jit(f).lower(x).as_text()
    for differentiated in (jaxc.grad(f), jaxc.grad(jaxc.jit(f)), jaxc.jit(jaxc.grad(f)),
                           lambda v: jaxc.jvp(jaxc.jit(f), (v,), (1.0,)),
                           lambda v: jaxc.grad(lambda u: jaxc.vmap(jaxc.jit(f))(u).sum())(np.full(3, v))):
        with pytest.raises(NotImplementedError, match="no derivative here"):
            differentiated(0.5)

    @jaxc.custom_vjp
    def g(x):
        return jnp.sin(x) * 2.0

    def g_bwd(residuals, ct):
        raise NotImplementedError("no cotangent here")
    g.defvjp(lambda x: (g(x), x), g_bwd)
    np.testing.assert_allclose(jaxc.jit(g)(x), np.sin(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(jaxc.vmap(jaxc.jit(g))(x), np.sin(x) * 2, rtol=1e-6)
    for differentiated in (jaxc.grad(g), jaxc.grad(jaxc.jit(g)), jaxc.jit(jaxc.grad(g)),
                           lambda v: jaxc.grad(lambda u: jaxc.vmap(jaxc.jit(g))(u).sum())(np.full(3, v))):
        with pytest.raises(NotImplementedError, match="no cotangent here"):
            differentiated(0.5)


def test_custom_jvp_rule_takes_captured_values_and_their_tangents() -> None:
    def f(x, w):
        @jaxc.custom_jvp
        def scaled(v):
            return v * w

        scaled.defjvp(lambda p, t: (scaled(p[0]), t[0] * w))
        return scaled(x)

    text = ir_of(f, 1.0, 2.0)
    assert re.search(r"jaxc.custom_jvp_call @scaled_0\(%arg0, %arg1\) jvp = @scaled_jvp_0", text)
    assert ("(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<f32>) -> "
            "(tensor<f32>, tensor<f32>)") in private_function(text, "scaled_jvp_0")


def test_custom_vjp_call_fwd_and_bwd() -> None:
    text = ir_of(clipped_sin, 1.0, 2.0)
    assert re.search(r"jaxc.custom_vjp_call @clipped_sin_0\(%arg0, %arg1, %arg2\) fwd = "
                     r"@clipped_sin_fwd_0 bwd = @clipped_sin_bwd_0", text)
    # fwd: (x, y, SCALE) -> (out, cos, sin, y, SCALE as an extra residual for bwd)
    fwd = private_function(text, "clipped_sin_fwd_0")
    assert re.search(r"return %\d+, %\d+, %\d+, %arg1, %arg2 : tensor<f32>, tensor<f32>, tensor<f32>, "
                     r"tensor<f32>, tensor<f32>", fwd)
    # bwd: (cos, sin, y, SCALE, ct) -> (x_bar, y_bar, zero for SCALE)
    bwd = private_function(text, "clipped_sin_bwd_0")
    assert re.search(r"@clipped_sin_bwd_0\(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>, "
                     r"%arg3: tensor<f32>, %arg4: tensor<f32>\) -> \(tensor<f32>, tensor<f32>, "
                     r"tensor<f32>\)", bwd)


def test_custom_functions_run_their_body_eagerly() -> None:
    np.testing.assert_allclose(float(softplus(1.0)), np.log1p(np.e), rtol=1e-6)
    np.testing.assert_allclose(float(clipped_sin(1.0, 2.0)), np.sin(1.0) * 2, rtol=1e-6)


# ---------------------------------------------------------------------------
# Errors: message and the user's line
# ---------------------------------------------------------------------------

def vector_loss(x):
    return x * 2.0


def test_non_scalar_output_is_a_type_error_naming_function_and_line() -> None:
    for call in (lambda: jaxc.grad(vector_loss)(jnp.ones(3)),  # the eager call
                 lambda: jaxc.jit(jaxc.grad(vector_loss))(jnp.ones(3))):  # the jit call
        with pytest.raises(TypeError) as info:
            call()
        message = str(info.value)
        assert "grad requires real scalar outputs, got shape (3,)" in message
        assert "vector_loss" in message
    line = line_of(test_non_scalar_output_is_a_type_error_naming_function_and_line, "the jit call")
    assert f"{__file__}:{line}:" in message


def test_integer_input_is_a_type_error() -> None:
    with pytest.raises(TypeError) as info:
        jaxc.grad(cube)(2)  # the offending call
    message = str(info.value)
    assert ("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
            "np.inexact), but got int32") in message
    assert "cube" in message
    line = line_of(test_integer_input_is_a_type_error, "the offending call")
    assert f"{__file__}:{line}:" in message
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        jaxc.jacfwd(cube)(jnp.arange(3))


def test_integer_output_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="grad requires real-valued outputs .* got int32"):
        jaxc.grad(lambda x: jnp.zeros((), jnp.int32))(1.0)


def test_bad_argnums() -> None:
    with pytest.raises(TypeError, match="argnums must be an int or a sequence of ints"):
        jaxc.grad(cube, argnums="x")
    with pytest.raises(TypeError) as info:
        jaxc.grad(cube, argnums=1)(2.0)
    assert ("differentiating with respect to argnums=1 requires at least 2 positional arguments "
            "to be passed by the caller, but got only 1") in str(info.value)
    with pytest.raises(TypeError, match="argnums=\\(0, 3\\) requires at least 4"):
        jaxc.value_and_grad(lambda a, b: a * b, argnums=(0, 3))(1.0, 2.0)


def test_has_aux_needs_a_pair() -> None:
    with pytest.raises(TypeError, match="has_aux=True requires cube to return a pair"):
        jaxc.grad(cube, has_aux=True)(1.0)


def test_jvp_argument_errors() -> None:
    with pytest.raises(TypeError, match="must be tuples or lists"):
        jaxc.jvp(cube, 1.0, 1.0)
    with pytest.raises(ValueError, match="tangent of shape \\(2,\\) for a value of shape \\(\\)"):
        jaxc.jvp(cube, (1.0,), (jnp.ones(2),))
    with pytest.raises(TypeError, match="same tree structure"):
        jaxc.jvp(lambda t: t[0], ((1.0, 2.0),), ((1.0,),))
    with pytest.raises(TypeError, match="tangent of dtype int32 for a value of dtype float32"):
        jaxc.jvp(cube, (np.float32(1.0),), (np.int32(1),))


def test_vjp_cotangent_structure_error() -> None:
    def f(x):
        out, vjp_fn = jaxc.vjp(lambda v: (v, v), x)
        return vjp_fn(out[0])

    with pytest.raises(TypeError, match="tree structure of the cotangent"):
        jaxc.make_ir(f)(1.0)


def test_custom_rule_errors() -> None:
    @jaxc.custom_jvp
    def no_rule(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function no_rule"):
        jaxc.make_ir(no_rule)(1.0)

    @jaxc.custom_jvp
    def bad_rule(x):
        return x

    bad_rule.defjvp(lambda p, t: (p[0], (t[0], t[0])))
    jaxc.make_ir(bad_rule)(1.0)  # as JAX, which traces a rule only when differentiating
    with pytest.raises(TypeError, match="tangent outputs with the structure of the function's output"):
        jaxc.grad(bad_rule)(1.0)
    with pytest.raises(TypeError, match="tangent outputs with the structure of the function's output"):
        jaxc.grad(jaxc.jit(bad_rule))(1.0)

    @jaxc.custom_vjp
    def bad_bwd(x, y):
        return x * y

    bad_bwd.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g,))
    jaxc.make_ir(bad_bwd)(1.0, 2.0)  # bwd's error waits for a derivative (JAX traces bwd only then)
    with pytest.raises(TypeError, match="one cotangent per differentiable argument \\(2\\), got tuple "
                                        "of length 1"):
        jaxc.grad(jaxc.jit(bad_bwd))(1.0, 2.0)


# ---------------------------------------------------------------------------
# Numbers (need the jaxc-autodiff pass)
# ---------------------------------------------------------------------------

def test_grad_of_a_cubic_to_third_order() -> None:
    assert float(jaxc.grad(cube)(2.0)) == pytest.approx(14.0)
    assert float(jaxc.grad(jaxc.grad(cube))(2.0)) == pytest.approx(12.0)
    assert float(jaxc.grad(jaxc.grad(jaxc.grad(cube)))(2.0)) == pytest.approx(6.0)


def test_compositions_with_jit_and_jvp() -> None:
    assert float(jaxc.jit(jaxc.grad(cube))(2.0)) == pytest.approx(14.0)
    assert float(jaxc.grad(jaxc.jit(cube))(2.0)) == pytest.approx(14.0)
    y, y_dot = jaxc.jvp(jaxc.grad(cube), (2.0,), (1.0,))
    assert (float(y), float(y_dot)) == pytest.approx((14.0, 12.0))
    # the inner derivative closes over the outer variable (no perturbation confusion)
    assert float(jaxc.grad(lambda x: x * jaxc.grad(lambda y: x * y)(1.0))(3.0)) == pytest.approx(6.0)


def test_eager_grad_traces_once_per_signature() -> None:
    g = jaxc.grad(cube)
    g(1.0)
    g(2.0)
    assert (g.trace_count, g._cache_size()) == (1, 1)
    g(np.float32(2.0))  # strong float32: a new signature
    assert g.trace_count == 2


def test_value_and_grad_has_aux_and_weak_types() -> None:
    value, g = jaxc.value_and_grad(cube)(2.0)
    assert (float(value), float(g)) == pytest.approx((12.0, 14.0))
    assert g.weak_type and g.dtype == np.float32
    assert not jaxc.grad(cube)(np.float32(2.0)).weak_type
    g, aux = jaxc.grad(lambda x: (x * x, {"double": 2 * x}), has_aux=True)(3.0)
    assert float(g) == pytest.approx(6.0) and float(aux["double"]) == pytest.approx(6.0)
    (value, aux), g = jaxc.value_and_grad(lambda x: (x * x, x + 1), has_aux=True)(3.0)
    assert (float(value), float(aux), float(g)) == pytest.approx((9.0, 4.0, 6.0))


def test_pytree_arguments_and_argnums() -> None:
    params = {"w": jnp.asarray([1.0, 2.0]), "b": 0.5}

    def loss(p, x):
        return jnp.sum((p["w"] * x + p["b"]) ** 2)

    x = jnp.asarray([3.0, -1.0])
    g = jaxc.grad(loss)(params, x)
    r = np.asarray(params["w"]) * np.asarray(x) + 0.5
    np.testing.assert_allclose(np.asarray(g["w"]), 2 * r * np.asarray(x), rtol=1e-6)
    assert float(g["b"]) == pytest.approx(float(np.sum(2 * r)))
    g_p, g_x = jaxc.grad(loss, argnums=(0, 1))(params, x)
    np.testing.assert_allclose(np.asarray(g_x), 2 * r * np.asarray(params["w"]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g_p["w"]), np.asarray(g["w"]), rtol=1e-6)
    assert float(jaxc.grad(lambda a, b: a * b, argnums=-1)(2.0, 5.0)) == pytest.approx(2.0)


def test_jvp_vjp_linearize() -> None:
    x = jnp.asarray([0.5, 1.0, 2.0])
    t = jnp.asarray([1.0, 0.0, -1.0])
    y, y_dot = jaxc.jvp(jnp.sin, (x,), (t,))
    np.testing.assert_allclose(np.asarray(y), np.sin(np.asarray(x)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(y_dot), np.cos(np.asarray(x)) * np.asarray(t), rtol=1e-6)
    out, vjp_fn = jaxc.vjp(lambda a, b: a * b, x, 3.0)
    x_bar, b_bar = vjp_fn(t)
    np.testing.assert_allclose(np.asarray(x_bar), 3.0 * np.asarray(t), rtol=1e-6)
    assert float(b_bar) == pytest.approx(float(np.dot(np.asarray(x), np.asarray(t))))
    out, f_jvp = jaxc.linearize(jnp.sin, x)
    np.testing.assert_allclose(np.asarray(f_jvp(t)), np.asarray(y_dot), rtol=1e-6)
    _, _, aux = jaxc.jvp(lambda v: (v * v, v + 1), (2.0,), (1.0,), has_aux=True)
    assert float(aux) == 3.0


def test_jacobians_and_hessian() -> None:
    x = np.asarray([0.5, 1.0, 2.0], np.float32)
    expected = np.diag(np.cos(x))
    np.testing.assert_allclose(np.asarray(jaxc.jacfwd(jnp.sin)(x)), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.jacrev(jnp.sin)(x)), expected, rtol=1e-6)

    def f(v):  # R^3 -> R^2
        return jnp.stack([v[0] * v[1], jnp.sum(v ** 2)])

    jac = np.asarray([[x[1], x[0], 0.0], 2 * x])
    np.testing.assert_allclose(np.asarray(jaxc.jacfwd(f)(x)), jac, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.jacrev(f)(x)), jac, rtol=1e-6)
    hess = np.asarray(jaxc.hessian(lambda v: jnp.sum(v ** 3) + v[0] * v[2])(x))
    np.testing.assert_allclose(hess, np.diag(6 * x) + np.asarray([[0, 0, 1], [0, 0, 0], [1, 0, 0]]),
                               rtol=1e-6)
    ja, jb = jaxc.jacrev(lambda a, b: a * b, argnums=(0, 1))(x, 2.0)
    np.testing.assert_allclose(np.asarray(ja), 2 * np.eye(3), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jb), x, rtol=1e-6)


def test_custom_rules_are_used() -> None:
    assert float(jaxc.grad(fake_sin)(0.3)) == pytest.approx(10.0)
    assert float(jaxc.grad(softplus)(1.0)) == pytest.approx(1 / (1 + np.exp(-1.0)), rel=1e-6)
    x_bar, y_bar = jaxc.grad(clipped_sin, argnums=(0, 1))(0.1, 100.0)
    assert float(x_bar) == pytest.approx(3.0)  # clipped by the bwd rule
    assert float(y_bar) == pytest.approx(np.sin(0.1), rel=1e-6)


def test_check_grads_passes_and_fails() -> None:
    x = np.linspace(0.1, 1.0, 4).astype(np.float32)
    check_grads(lambda v: jnp.sum(jnp.sin(v) * v ** 2), (x,), order=2)
    check_grads(lambda a, b: jnp.tanh(a) * b, (x, 2.0), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="JVP: tangent output differs from central finite differences"):
        check_grads(fake_sin, (np.float32(0.3),), order=1)


def test_check_grads_in_float64() -> None:
    jaxc.config.update("jax_enable_x64", True)
    try:
        x = np.linspace(0.2, 1.5, 3)
        check_grads(lambda v: jnp.exp(jnp.sin(v)) / (1 + v ** 2), (x,), order=2, eps=1e-5)
        check_grads(softplus, (x,), order=1)
    finally:
        jaxc.config.update("jax_enable_x64", False)


def test_against_jax() -> None:
    jax = pytest.importorskip("jax")
    jax_np = pytest.importorskip("jax.numpy")
    x = np.asarray([0.3, -1.2, 2.0], np.float32)

    def ours(v):
        return jnp.sum(jnp.tanh(v) * jnp.exp(-v ** 2))

    def theirs(v):
        return jax_np.sum(jax_np.tanh(v) * jax_np.exp(-v ** 2))

    np.testing.assert_allclose(np.asarray(jaxc.grad(ours)(x)), np.asarray(jax.grad(theirs)(x)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.hessian(ours)(x)), np.asarray(jax.hessian(theirs)(x)),
                               rtol=1e-4, atol=1e-5)
    assert jaxc.grad(ours)(2.0).weak_type == jax.grad(theirs)(2.0).weak_type


# ---------------------------------------------------------------- fwd_and_bwd

def _layer(x, w):
    return jnp.tanh(x @ w)


def test_fwd_and_bwd_gives_vjp_cotangents_and_compiles_bwd_once():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 3)).astype(np.float32)
    ct = rng.normal(size=(5, 3)).astype(np.float32)
    fwd, bwd = jaxc.fwd_and_bwd(_layer, argnums=(0, 1))
    for step in range(3):
        x = rng.normal(size=(5, 4)).astype(np.float32)
        y, residuals = fwd(x, w)
        cot_x, cot_w = bwd(residuals, ct)
        # float64 reference: d tanh(x w) = (1 - t^2) * ct
        t = np.tanh(x.astype(np.float64) @ w)
        np.testing.assert_allclose(np.asarray(y), t, rtol=1e-5, atol=1e-6)
        g = (1 - t * t) * ct
        np.testing.assert_allclose(np.asarray(cot_x), g @ w.T, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(cot_w), x.T @ g, rtol=1e-4, atol=1e-5)
    assert bwd.trace_count == 1 and fwd.trace_count == 1
    assert len(residuals(ct)) == 2  # the residuals are callable, as JAX's vjp function


def test_fwd_and_bwd_int_argnums_aux_and_unjitted():
    def f(a, b):
        return jnp.sum(a * b), {"n": a.shape[0]}

    for jitted in (True, False):
        fwd, bwd = jaxc.fwd_and_bwd(f, -1, has_aux=True, jitted=jitted)
        y, residuals, aux = fwd(jnp.arange(3.0), jnp.ones(3))
        assert float(y) == 3.0 and int(aux["n"]) == 3
        (cot_b,) = bwd(residuals, 2.0)
        np.testing.assert_array_equal(np.asarray(cot_b), [0.0, 2.0, 4.0])


def test_fwd_and_bwd_errors():
    with pytest.raises(TypeError, match="argnums must be an int or a sequence of ints"):
        jaxc.fwd_and_bwd(_layer, argnums="x")
    fwd, bwd = jaxc.fwd_and_bwd(_layer, argnums=2, jitted=False)
    with pytest.raises(TypeError, match="requires at least 3 positional arguments"):
        fwd(jnp.ones((2, 2)), jnp.ones((2, 2)))
    with pytest.raises(TypeError, match="bwd takes the residuals that fwd returned"):
        bwd((jnp.ones(2),), jnp.ones(2))
    fwd, _ = jaxc.fwd_and_bwd(_layer, 0, has_aux=True, jitted=False)
    with pytest.raises(TypeError, match="has_aux=True requires"):
        fwd(jnp.ones((2, 2)), jnp.ones((2, 2)))


def test_fwd_and_bwd_matches_jax():
    jax = pytest.importorskip("jax")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    w = np.linspace(0.5, -0.5, 8, dtype=np.float32).reshape(4, 2)
    ct = np.ones((3, 2), np.float32)
    ours = jaxc.fwd_and_bwd(_layer, (0, 1))
    theirs = jax.fwd_and_bwd(lambda x, w: jax.numpy.tanh(x @ w), (0, 1))
    y, r = ours[0](x, w)
    y_j, r_j = theirs[0](x, w)
    np.testing.assert_allclose(np.asarray(y), np.asarray(y_j), rtol=1e-6)
    for got, want in zip(ours[1](r, ct), theirs[1](r_j, ct)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- closure_convert

def _apply_with_custom_vjp():
    """JAX's closure_convert example: a custom_vjp applier whose rule
    differentiates the closure-converted function, consts included."""
    import functools

    @functools.partial(jaxc.custom_vjp, nondiff_argnums=(0,))
    def apply(f, x, *consts):
        return f(x, *consts)

    def apply_fwd(f, x, *consts):
        return f(x, *consts), (x, consts)

    def apply_bwd(f, residuals, g):
        x, consts = residuals
        return jaxc.vjp(f, x, *consts)[1](g)

    apply.defvjp(apply_fwd, apply_bwd)
    return apply


def test_closure_convert_lets_a_custom_rule_differentiate_closed_over_tracers():
    apply = _apply_with_custom_vjp()
    hoisted = []

    def loss(w, x):
        f = lambda z: jnp.sin(w * z)  # noqa: E731 -- closes over w, a tracer under grad
        f_converted, consts = jaxc.closure_convert(f, x)
        hoisted.append(consts)
        return apply(f_converted, x, *consts).sum()

    x = np.linspace(0.0, 1.0, 5).astype(np.float32)
    want = np.sum(np.cos(0.7 * x.astype(np.float64)) * x)  # d/dw sum(sin(w x))
    for grad in (jaxc.grad(loss), jaxc.jit(jaxc.grad(loss))):
        np.testing.assert_allclose(float(grad(0.7, x)), want, rtol=1e-5)
        assert len(hoisted[-1]) == 1 and hoisted[-1][0].shape == ()


def test_closure_convert_values_and_errors():
    x = jnp.arange(3.0)
    converted, consts = jaxc.closure_convert(lambda z: z * 2.0, x)
    assert consts == []  # nothing traced is closed over
    np.testing.assert_array_equal(np.asarray(converted(x)), [0.0, 2.0, 4.0])
    kept = []

    @jaxc.jit
    def outer(w, y):
        f_converted, consts = jaxc.closure_convert(lambda z: z * w + y, x)
        assert len(consts) == 2  # w and y, in the order f reads them
        kept.append(f_converted)
        return f_converted(x, *consts)

    np.testing.assert_array_equal(np.asarray(outer(3.0, 1.0)), [1.0, 4.0, 7.0])
    # Called after its trace ended, with other constants: traced anew on them.
    np.testing.assert_array_equal(np.asarray(kept[0](x, 10.0, 0.5)), [0.5, 10.5, 20.5])
    with pytest.raises(TypeError, match="takes 1 arguments and 2 constants, got 2 values"):
        kept[0](x, 10.0)


def test_custom_derivatives_module_has_the_top_level_functions():
    from jaxc import custom_derivatives
    for name in custom_derivatives.__all__:
        assert getattr(custom_derivatives, name) is getattr(jaxc, name)
    jax = pytest.importorskip("jax")
    import jax.custom_derivatives  # noqa: F401,F811
    missing = [n for n in custom_derivatives.__all__ if not hasattr(jax.custom_derivatives, n)]
    assert missing == []
