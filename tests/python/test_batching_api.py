"""jaxc.vmap: in_axes/out_axes forms, sizes, errors, and composition with
jit, grad and itself. References: a Python loop (batching_util), NumPy, and
hand-derived derivatives."""
from __future__ import annotations

import re

import numpy as np
import pytest
from batching_util import check_vmap

import jaxc
import jaxc.numpy as jnp

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def transformed_ir(f, *args, stage="optimized"):
    return jaxc.jit(f).lower(*args).as_text(stage=stage)


# --- in_axes / out_axes ----------------------------------------------------

@pytest.mark.parametrize("in_axes,shapes", [
    (0, [(4, 3), (4, 3)]),
    (1, [(3, 4), (3, 4)]),
    (-1, [(3, 4), (2, 4)]),
    ((0, None), [(4, 3), (3,)]),
    ((None, 1), [(3,), (3, 4)]),
    ((-2, 0), [(4, 3), (4, 3)]),
    ([1, 0], [(3, 4), (4, 3)]),
])
def test_in_axes_forms_match_the_loop(in_axes, shapes):
    a, b = (normal(*s) for s in shapes)
    if shapes[1] == (2, 4):
        check_vmap(lambda u, v: jnp.sum(u) * v, [a, b], in_axes)
    else:
        check_vmap(lambda u, v: jnp.sin(u) * v + 1.0, [a, b], in_axes)


@pytest.mark.parametrize("out_axes", [0, 1, -1, 2])
def test_out_axes_place_the_batch_axis(out_axes):
    x = normal(4, 2, 3)
    check_vmap(lambda u: u * 2.0, [x], 0, out_axes)


def test_pytree_in_axes_with_dicts_and_out_axes_pytree():
    params = {"w": normal(3, 2), "b": normal(5, 2)}
    xs = normal(5, 3)

    def f(p, x):
        return {"y": x @ p["w"] + p["b"], "n": jnp.sum(x)}

    out = jaxc.vmap(f, in_axes=({"w": None, "b": 0}, 0), out_axes={"y": 1, "n": 0})(params, xs)
    want_y = np.stack([xs[i] @ params["w"] + params["b"][i] for i in range(5)], axis=1)
    np.testing.assert_allclose(out["y"], want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["n"], xs.sum(1), rtol=1e-5)


def test_tuple_outputs_and_out_axes_none_for_an_unbatched_output():
    xs, w = normal(6, 3), normal(3)
    ys, ws = jaxc.vmap(lambda x, v: (x * v, v + 1.0), in_axes=(0, None), out_axes=(0, None))(xs, w)
    np.testing.assert_allclose(ys, xs * w, rtol=1e-6)
    np.testing.assert_allclose(ws, w + 1.0, rtol=1e-6)


def test_keyword_arguments_are_mapped_over_axis_0():
    xs, ys = normal(4, 3), normal(4, 3)
    out = jaxc.vmap(lambda x, y: x - y)(xs, y=ys)
    np.testing.assert_allclose(out, xs - ys)


def test_axis_size_without_mapped_inputs_broadcasts():
    out = jaxc.vmap(lambda: jnp.arange(3.0), in_axes=(), axis_size=4)()
    np.testing.assert_array_equal(out, np.tile(np.arange(3.0, dtype=np.float32), (4, 1)))


def test_closure_over_an_outer_tracer_is_an_unmapped_input():
    w = normal(3)

    @jaxc.jit
    def f(xs, v):
        return jaxc.vmap(lambda x: jnp.dot(x, v))(xs)
    xs = normal(5, 3)
    np.testing.assert_allclose(f(xs, w), xs @ w, rtol=1e-5)


def test_integer_and_boolean_inputs():
    check_vmap(lambda i, b: jnp.where(b, i * 2, -i), [np.arange(6, dtype=np.int32).reshape(3, 2),
                                                     np.array([[True, False]] * 3)], (0, 0))


# --- errors ------------------------------------------------------------------

def test_inconsistent_sizes_name_the_arguments_and_sizes():
    with pytest.raises(ValueError) as info:
        jaxc.vmap(lambda xs, ys: xs + ys)(np.ones((4, 3)), np.ones((5, 3)))
    message = str(info.value)
    assert "test_batching_api.py" in message and "inconsistent sizes" in message
    assert "argument xs of type float32[4,3] has size 4" in message
    assert "argument ys of type float32[5,3] has size 5" in message


def test_inconsistent_sizes_name_pytree_leaves():
    with pytest.raises(ValueError, match=r"argument p\['b'\] .* has size 2"):
        jaxc.vmap(lambda p: p["a"] + p["b"][:1])({"a": np.ones((3, 1)), "b": np.ones((2, 1))})


def test_axis_size_disagreeing_with_the_inputs():
    with pytest.raises(ValueError, match="axis_size is 3"):
        jaxc.vmap(lambda x: x, axis_size=3)(np.ones(4))


def test_in_axis_out_of_range_names_the_argument():
    with pytest.raises(ValueError, match=r"along axis 2, .* only 1 \(its shape is \(4,\); argument x\)"):
        jaxc.vmap(lambda x: x, in_axes=2)(np.ones(4))


def test_in_axes_tuple_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"len\(in_axes\)=1, len\(args\)=2"):
        jaxc.vmap(lambda a, b: a + b, in_axes=(0,))(np.ones(2), np.ones(2))


def test_in_axes_not_a_prefix_of_the_arguments():
    with pytest.raises(ValueError, match="tree prefix"):
        jaxc.vmap(lambda a, b: a + b, in_axes=({"k": 0}, 0))(np.ones(2), np.ones(2))


def test_in_axes_of_a_bad_type():
    with pytest.raises(TypeError, match=r"got 0.5 \(float\)"):
        jaxc.vmap(lambda a: a, in_axes=0.5)


def test_nothing_mapped_and_no_axis_size():
    with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
        jaxc.vmap(lambda a: a, in_axes=None)(np.ones(2))


def test_out_axes_none_for_a_mapped_output_names_the_line():
    with pytest.raises(jaxc.JaxcTypeError if hasattr(jaxc, "JaxcTypeError") else Exception) as info:
        jaxc.vmap(lambda a: a * 2.0, out_axes=None)(np.ones((3, 2), np.float32))
    message = str(info.value)
    assert re.search(r"test_batching_api\.py\":\d+:\d+\): error: jaxc-batch: out_axes\[0\] is None", message)


def test_out_axes_out_of_range():
    with pytest.raises(ValueError, match="out_axes=3 is out of range"):
        jaxc.vmap(lambda a: a, out_axes=3)(np.ones((2, 2)))


# --- composition ---------------------------------------------------------------

def f_scalar(t):
    return jnp.sin(t) * t ** 2


def df_scalar(t):
    return np.cos(t) * t ** 2 + 2 * t * np.sin(t)


def d2f_scalar(t):
    return -np.sin(t) * t ** 2 + 4 * t * np.cos(t) + 2 * np.sin(t)


def test_mat_vec_from_a_vec_vec_dot():
    m, v = normal(4, 3), normal(3)
    mv = jaxc.vmap(jnp.dot, in_axes=(0, None))
    np.testing.assert_allclose(mv(m, v), m @ v, rtol=1e-5)
    text = transformed_ir(mv, m, v)
    assert text.count("jaxc.dot_general") == 1 and "contract = [1] x [0]" in text
    assert "scf." not in text and "jaxc.while" not in text


def test_vmap_of_vmap_is_a_matrix_product():
    a, b = normal(4, 3), normal(3, 5)
    mm = jaxc.vmap(jaxc.vmap(jnp.dot, in_axes=(None, 1)), in_axes=(0, None))
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-5, atol=1e-6)
    assert transformed_ir(mm, a, b).count("jaxc.dot_general") == 1


def test_vmap_of_grad():
    x = normal(7)
    np.testing.assert_allclose(jaxc.vmap(jaxc.grad(f_scalar))(x), df_scalar(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jaxc.jit(jaxc.vmap(jaxc.grad(f_scalar)))(x), df_scalar(x), rtol=1e-5, atol=1e-6)


def test_grad_of_a_vmapped_sum():
    x = normal(7)
    g = jaxc.grad(lambda v: jnp.sum(jaxc.vmap(f_scalar)(v)))
    np.testing.assert_allclose(g(x), df_scalar(x), rtol=1e-5, atol=1e-6)


def test_jit_grad_grad_vmap():
    c = np.linspace(0.2, 1.0, 5).astype(np.float32)

    def total(s):
        return jnp.sum(jaxc.vmap(f_scalar)(s * c))
    g2 = jaxc.jit(jaxc.grad(jaxc.grad(total)))
    s = np.float32(0.7)
    np.testing.assert_allclose(g2(s), np.sum(c ** 2 * d2f_scalar(s * c)), rtol=1e-4)


def test_vmap_of_grad_of_a_function_with_unmapped_weights():
    w, xs = normal(3), normal(6, 3)

    def loss(w, x):
        return jnp.sum(jnp.tanh(w * x))
    per_example = jaxc.vmap(jaxc.grad(loss), in_axes=(None, 0))(w, xs)
    want = xs * (1 - np.tanh(w * xs) ** 2)
    np.testing.assert_allclose(per_example, want, rtol=1e-5, atol=1e-6)


def test_vmap_of_jvp_and_of_vjp():
    x = normal(5)
    tangents = jaxc.vmap(lambda a: jaxc.jvp(f_scalar, (a,), (jnp.ones_like(a),))[1])(x)
    np.testing.assert_allclose(tangents, df_scalar(x), rtol=1e-5, atol=1e-6)
    cotangents = jaxc.vmap(lambda a: jaxc.vjp(f_scalar, a)[1](jnp.float32(1.0))[0])(x)
    np.testing.assert_allclose(cotangents, df_scalar(x), rtol=1e-5, atol=1e-6)


def test_jacfwd_and_jacrev_of_a_vmapped_function():
    x = normal(4)
    f = jaxc.vmap(f_scalar)
    np.testing.assert_allclose(jaxc.jacfwd(f)(x), np.diag(df_scalar(x)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jaxc.jacrev(f)(x), np.diag(df_scalar(x)), rtol=1e-5, atol=1e-6)


def test_jacobians_built_on_vmap_match_a_dense_reference():
    a = normal(3, 4)

    def f(x):
        return jnp.tanh(a @ x)
    x = normal(4)
    want = (1 - np.tanh(a @ x) ** 2)[:, None] * a
    np.testing.assert_allclose(jaxc.jacfwd(f)(x), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jaxc.jacrev(f)(x), want, rtol=1e-5, atol=1e-6)
    text = transformed_ir(jaxc.jacrev(f), x, stage="traced")
    assert text.count("jaxc.vjp") == 1 and text.count("jaxc.vmap") == 1


def test_custom_jvp_and_custom_vjp_under_vmap():
    @jaxc.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    @softplus.defjvp
    def softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * jaxc.nn.sigmoid(x) * 2.0  # deliberately twice the true derivative

    @jaxc.custom_vjp
    def cube(x):
        return x ** 3

    def cube_fwd(x):
        return x ** 3, x

    def cube_bwd(x, ct):
        return (ct * 30.0 * x,)  # deliberately ten times the true derivative
    cube.defvjp(cube_fwd, cube_bwd)
    x = normal(5)
    np.testing.assert_allclose(jaxc.vmap(softplus)(x), np.log1p(np.exp(x)), rtol=1e-5)
    np.testing.assert_allclose(jaxc.vmap(jaxc.grad(softplus))(x), 2 / (1 + np.exp(-x)), rtol=1e-5)
    np.testing.assert_allclose(jaxc.vmap(jaxc.grad(cube))(x), 30 * x, rtol=1e-5)
    np.testing.assert_allclose(jaxc.grad(lambda v: jnp.sum(jaxc.vmap(cube)(v)))(x), 30 * x, rtol=1e-5)


def test_vmap_cache_traces_once_per_signature():
    f = jaxc.vmap(lambda x: x + 1.0)
    f(np.ones((3, 2), np.float32))
    f(np.zeros((3, 2), np.float32))
    assert f.trace_count == 1
    f(np.zeros((4, 2), np.float32))
    assert f.trace_count == 2


class _Box:
    """A pytree whose constructor takes arrays only (as RegularGridInterpolator's)."""

    def __init__(self, x):
        self.x = jnp.asarray(x)


jaxc.tree_util.register_pytree_node(_Box, lambda b: ((b.x,), None), lambda _, children: _Box(*children))


@pytest.mark.parametrize("out_axes", [0, 1])
def test_vmap_returns_a_pytree_whose_constructor_takes_only_arrays(out_axes):
    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    box = jaxc.vmap(lambda x: _Box(x * 2), out_axes=out_axes)(xs)
    assert isinstance(box, _Box)
    np.testing.assert_array_equal(np.asarray(box.x), (xs * 2) if out_axes == 0 else (xs * 2).T)
