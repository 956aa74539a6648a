"""The jax.lax names of jaxc/lax/_extra.py: shape helpers, scatter variants,
mulhi / reduce_precision, custom_linear_solve / custom_root (implicit
differentiation), convolution shape arithmetic and conv_general_dilated_local,
the option enums, rng_uniform / rng_bit_generator, psum_scatter / axis_size,
approx top-k, ragged_dot and the small conveniences. Each against NumPy or
hand-computed references (values, shapes, dtypes), eagerly and under
`jaxc.jit`, under `jaxc.vmap` where it means something, gradients with
`check_grads` in float64, and errors with JAX's exception types. JAX is not
needed.
"""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import assert_close, check

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads

RNG = np.random.default_rng(11)


def floats(*shape, dtype=np.float32):
    return RNG.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------------------
# Shapes and indexing
# ---------------------------------------------------------------------------

def test_split():
    x = floats(3, 6)
    out = check(lambda x: lax.split(x, (1, 0, 5), axis=1), lambda x: np.split(x, [1, 1], axis=1), x)
    assert isinstance(out, list) and [o.shape for o in out] == [(3, 1), (3, 0), (3, 5)]
    check(lambda x: lax.split(x, (2, 1), axis=-2), lambda x: np.split(x, [2], axis=0), x)
    assert lax.split(np.zeros((0, 2)), (), 0) == []
    with pytest.raises(ValueError, match="Sum of sizes"):
        lax.split(x, (1, 2), axis=1)
    with pytest.raises(ValueError, match="nonnegative"):
        lax.split(x, (7, -1), axis=1)
    with pytest.raises(ValueError, match="out of bounds"):
        lax.split(x, (6,), axis=2)


def test_tile():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(lambda x: lax.tile(x, (2, 3)), lambda x: np.tile(x, (2, 3)), x, dtype=np.int32)
    check(lambda x: lax.tile(x, (0, 1)), lambda x: np.tile(x, (0, 1)), x)
    assert lax.tile(x, (1, 1)).shape == (2, 3)
    scalar = lax.tile(2.0, ())
    assert scalar.shape == () and scalar.weak_type
    with pytest.raises(TypeError, match="reps length"):
        lax.tile(x, (2,))
    with pytest.raises(ValueError, match="non-negative"):
        lax.tile(x, (-1, 1))


def test_stack_and_unstack():
    x, y = floats(3, 4), floats(3, 4)
    check(lambda x, y: lax.stack([x, y], axis=1), lambda x, y: np.stack([x, y], axis=1), x, y)
    check(lambda x, y: lax.stack((x, y), axis=-1), lambda x, y: np.stack([x, y], axis=-1), x, y)
    mixed = lax.stack([np.int32(2), 3])
    assert mixed.dtype == np.int32 and mixed.tolist() == [2, 3]
    out = check(lambda x: lax.unstack(x, axis=1), lambda x: tuple(np.moveaxis(x, 1, 0)), x)
    assert isinstance(out, tuple) and len(out) == 4 and out[0].shape == (3,)
    check(lambda x: lax.unstack(x, axis=-2), lambda x: tuple(x), x)
    with pytest.raises(ValueError, match="same shape"):
        lax.stack([x, x[:2]])
    with pytest.raises(TypeError, match="same dtypes"):
        lax.stack([x, x.astype(np.int32)])
    with pytest.raises(ValueError, match="out of bounds"):
        lax.stack([x, y], axis=3)
    with pytest.raises(IndexError):
        lax.stack([])
    with pytest.raises(ValueError, match="out of bounds"):
        lax.unstack(np.float32(1.0))


def test_empty_and_broadcast_like():
    e = lax.empty((2, 3), np.float32)
    assert e.shape == (2, 3) and e.dtype == np.float32 and not e.weak_type
    assert lax.empty(4, "int32").dtype == np.int32 and lax.empty((), bool).shape == ()
    assert jaxc.jit(lambda: lax.empty((2,), np.uint8))().dtype == np.uint8
    like = np.zeros((2, 4, 3), np.float32)
    v = np.array([[1], [2], [3], [4]], np.int32)
    check(lambda v: lax.broadcast_like(v, like), lambda v: np.broadcast_to(v, (2, 4, 3)), v, dtype=np.int32)
    weak = lax.broadcast_like(1.5, like)
    assert weak.shape == (2, 4, 3) and weak.dtype == np.float32 and weak.weak_type
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        lax.broadcast_like(np.ones(5), like)
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        lax.broadcast_like(np.ones((1, 2, 4, 3)), like)


def test_index_take():
    src = floats(4, 5, 6)
    i0, i2 = np.array([0, -1, 5, 3]), np.array([1, 7, -2, 0])
    check(lambda s, a, b: lax.index_take(s, (a, b), (0, 2)), lambda s, a, b: s[a % 4, :, b % 6], src, i0, i2)
    check(lambda s, a: lax.index_take(s, (a,), (1,)), lambda s, a: np.moveaxis(s[:, a % 5], 1, 0), src, i2)
    with pytest.raises(TypeError, match="sorted"):
        lax.index_take(src, (i0, i2), (2, 0))
    with pytest.raises(ValueError, match="one index array per axis"):
        lax.index_take(src, (i0,), (0, 1))
    with pytest.raises(ValueError, match="one length"):
        lax.index_take(src, (i0, i2[:2]), (0, 1))


# ---------------------------------------------------------------------------
# Scatter variants
# ---------------------------------------------------------------------------

DN = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
DN_ROWS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))


def test_scatter_sub():
    op = np.arange(6, dtype=np.float32)
    idx = np.array([[1], [3], [1], [9]])  # 9 is out of range: dropped
    up = np.array([1, 2, 3, 4], np.float32)
    expected = op.copy()
    np.subtract.at(expected, [1, 3, 1], up[:3])
    check(lambda o, i, u: lax.scatter_sub(o, i, u, DN), None, op, idx, up, expected=expected, dtype=np.float32)
    small = lax.scatter_sub(np.zeros(3, np.uint8), np.array([[0], [0]]), np.array([1, 2], np.uint8), DN)
    assert small.dtype == np.uint8 and small.tolist() == [253, 0, 0]  # wraps
    fill = lax.scatter_sub(op, idx, up, DN, mode=lax.GatherScatterMode.FILL_OR_DROP)
    assert_close(fill, expected)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.scatter_sub(op, idx, up.astype(np.int32), DN)


def test_scatter_apply():
    op = np.arange(5, dtype=np.float32)
    idx = np.array([[1], [3], [1]])
    # index 1 twice: func applied twice there
    expected = np.array([0, (1 * 3 + 1) * 3 + 1, 2, 3 * 3 + 1, 4], np.float32)
    check(lambda o, i: lax.scatter_apply(o, i, lambda v: v * 3 + 1, DN, update_shape=(3,)), None, op, idx,
          expected=expected, dtype=np.float32)
    rows = lax.scatter_apply(np.ones((3, 2), np.float32), np.array([[1], [1], [2]]), jnp.exp, DN_ROWS,
                             update_shape=(3, 2))
    assert_close(rows, np.array([[1, 1], [np.exp(np.e)] * 2, [np.e] * 2]), rtol=1e-6)
    batched = jaxc.vmap(lambda o: lax.scatter_apply(o, idx, lambda v: v * 3 + 1, DN, update_shape=(3,)))(
        np.stack([op, op + 1]))
    assert_close(batched, np.stack([expected, np.array([1, 22, 3, 13, 5], np.float32)]))
    ints = lax.scatter_apply(np.arange(4, dtype=np.int32), np.array([[0], [3], [7]]), lambda v: -v, DN,
                             update_shape=(3,))
    assert ints.dtype == np.int32 and ints.tolist() == [0, 1, 2, -3]
    with pytest.raises(TypeError, match="callable"):
        lax.scatter_apply(op, idx, 3, DN, update_shape=(3,))


# ---------------------------------------------------------------------------
# Integer and float helpers
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_mulhi(dtype):
    info = np.iinfo(dtype)
    bits = info.bits
    a = RNG.integers(info.min, info.max, 64, endpoint=True).astype(dtype)
    b = RNG.integers(info.min, info.max, 64, endpoint=True).astype(dtype)
    a[:4] = [info.min, info.max, info.min, 0]
    b[:4] = [info.min, info.max, info.max, info.max]
    expected = np.array([(int(x) * int(y)) >> bits for x, y in zip(a, b)], np.int64)
    expected = ((expected - info.min) % (1 << bits) + info.min).astype(dtype)  # as N-bit values
    check(lambda x, y: lax.mulhi(x, y), None, a, b, expected=expected, dtype=dtype)


def test_mulhi_errors_and_broadcasting():
    assert lax.mulhi(np.int32(-7), np.int32(1 << 30)).tolist() == -2
    assert lax.mulhi(np.array([3, -3], np.int32), np.int32(1 << 31 - 1)).dtype == np.int32
    with pytest.raises(TypeError, match="mulhi does not accept dtype float32"):
        lax.mulhi(np.float32(1), np.float32(2))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.mulhi(np.int32(1), np.uint32(2))


def test_reduce_precision_matches_narrower_formats():
    # normal values of each narrower format: a round trip through it (round to nearest even)
    import ml_dtypes
    sign = np.where(RNG.random(500) < 0.5, -1.0, 1.0)
    x = (sign * RNG.uniform(1, 2, 500) * np.exp2(RNG.integers(-13, 15, 500))).astype(np.float32)
    x[:4] = [1.0009765625, 1.0029296875, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11]  # ties in float16
    check(lambda x: lax.reduce_precision(x, 5, 10), None, x, expected=x.astype(np.float16).astype(np.float32),
          rtol=0, atol=0, dtype=np.float32)
    check(lambda x: lax.reduce_precision(x, 8, 7), None, x,
          expected=x.astype(ml_dtypes.bfloat16).astype(np.float32), rtol=0, atol=0)
    h = x.astype(np.float16)
    assert_close(lax.reduce_precision(h, 5, 2), h.astype(ml_dtypes.float8_e5m2).astype(np.float16), 0, 0)


def test_reduce_precision_float64(x64):
    x = RNG.normal(size=200) * np.exp2(RNG.integers(-60, 60, 200))
    x[:2] = [1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24]  # ties in float32
    out = lax.reduce_precision(x, 8, 23)
    assert out.dtype == np.float64
    assert_close(out, x.astype(np.float32).astype(np.float64), 0, 0)


def test_reduce_precision_edges():
    x = np.array([65520.0, 65504.0, 1e-5, -1e-5, 6e-8, np.inf, -np.inf, -0.0, np.nan, 3e38], np.float32)
    out = check(lambda x: lax.reduce_precision(x, 5, 10), None, x,
                expected=np.array([np.inf, 65504.0, 0.0, -0.0, 0.0, np.inf, -np.inf, -0.0, np.nan, np.inf]))
    assert np.signbit(np.asarray(out)[[3, 7]]).all()  # underflows keep their sign
    assert lax.reduce_precision(np.float32([1.5, 2.5]), 8, 0).tolist() == [2.0, 2.0]  # ties to even
    assert lax.reduce_precision(np.float32([1.5, 2.5]), 1, 3).tolist() == [0.0, np.inf]
    assert np.isnan(lax.reduce_precision(np.float32(np.nan), 2, 0))
    weak = lax.reduce_precision(1.5, 8, 0)
    assert weak.weak_type and weak.dtype == np.float32 and float(weak) == 2.0
    same = lax.reduce_precision(np.float32([1.1]), 11, 52)
    assert same.tolist() == np.float32([1.1]).tolist()
    with pytest.raises(ValueError, match="exponent_bits must be positive"):
        lax.reduce_precision(x, 0, 3)
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative"):
        lax.reduce_precision(x, 2, -1)
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        lax.reduce_precision(np.int32([1]), 2, 1)


def test_optimization_barrier_and_dtype():
    tree = (1.0, {"a": np.int32(2)}, np.ones(2, np.float32))
    out = lax.optimization_barrier(tree)
    assert out[0].weak_type and out[1]["a"].dtype == np.int32 and out[2].shape == (2,)
    assert lax.optimization_barrier(None) is None
    jitted = jaxc.jit(lambda x: lax.optimization_barrier((x, x * 2)))(np.float32(3))
    assert [float(v) for v in jitted] == [3.0, 6.0]
    assert lax.dtype(1) == np.int32 and lax.dtype(1.0) == np.float32 and lax.dtype(True) == np.bool_
    assert lax.dtype(np.float64) == np.float32 and lax.dtype("float16") == np.float16
    assert lax.dtype(np.arange(3)) == np.int32 and lax.dtype(jnp.ones(2, jnp.bfloat16)) == jnp.bfloat16
    with pytest.raises(TypeError, match="Cannot determine dtype"):
        lax.dtype([1, 2])


def test_dtype_x64(x64):
    assert lax.dtype(1) == np.int64 and lax.dtype(np.float64) == np.float64


# ---------------------------------------------------------------------------
# custom_linear_solve
# ---------------------------------------------------------------------------

def _cramer(mv, r):
    """A 2x2 solve from the matvec's columns (differentiable, no while loop)."""
    c0, c1 = mv(jnp.array([1.0, 0.0], r.dtype)), mv(jnp.array([0.0, 1.0], r.dtype))
    det = c0[0] * c1[1] - c1[0] * c0[1]
    return jnp.stack([(r[0] * c1[1] - c1[0] * r[1]) / det, (c0[0] * r[1] - r[0] * c0[1]) / det])


def _cg(mv, b):
    """Conjugate gradients, 8 steps in a while loop (not differentiable in reverse mode)."""
    def body(carry):
        x, r, p, rs, i = carry
        ap = mv(p)
        alpha = rs / jnp.vdot(p, ap)
        x, r = x + alpha * p, r - alpha * ap
        new = jnp.vdot(r, r)
        return x, r, r + new / rs * p, new, i + 1
    return lax.while_loop(lambda c: (c[4] < 8) & (c[3] > 1e-30), body,
                          (jnp.zeros_like(b), b, b, jnp.vdot(b, b), 0))[0]


A2 = np.array([[4.0, 1.0], [0.5, 3.0]])
B2 = np.array([1.0, 2.0])
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _linear(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b, _cramer, _cramer)


def test_custom_linear_solve_values():
    a, b = A2.astype(np.float32), B2.astype(np.float32)
    check(_linear, np.linalg.solve, a, b, dtype=np.float32)
    batched = jaxc.vmap(_linear, in_axes=(None, 0))(a, np.stack([b, 2 * b, -b]))
    assert_close(batched, np.linalg.solve(a, np.stack([b, 2 * b, -b]).T).T)
    # pytrees, has_aux (aux has no derivative)
    def tree_solve(mv, r):
        x = {"u": r["u"] / 2, "v": r["v"] / 3}
        return x, jnp.int32(7)
    x, aux = lax.custom_linear_solve(lambda x: {"u": 2 * x["u"], "v": 3 * x["v"]},
                                     {"u": np.float32(4), "v": np.ones(2, np.float32)}, tree_solve, has_aux=True)
    assert float(x["u"]) == 2.0 and np.allclose(x["v"], 1 / 3) and int(aux) == 7


def test_custom_linear_solve_gradients(x64):
    a, b = jnp.asarray(A2), jnp.asarray(B2)
    check_grads(_linear, (a, b), order=2)
    # analytic: x = A^-1 b; d sum(x)/db = A^-T 1, d sum(x)/dA = -(A^-T 1) x^T
    ga, gb = jaxc.grad(lambda a, b: _linear(a, b).sum(), argnums=(0, 1))(a, b)
    w = np.linalg.solve(A2.T, np.ones(2))
    assert_close(gb, w, rtol=1e-12)
    assert_close(ga, -np.outer(w, np.linalg.solve(A2, B2)), rtol=1e-12)
    # forward mode: dx = A^-1 (db - dA x)
    da, db = np.array([[0.1, -0.2], [0.3, 0.05]]), np.array([0.7, -0.4])
    x, dx = jaxc.jvp(_linear, (a, b), (jnp.asarray(da), jnp.asarray(db)))
    assert_close(dx, np.linalg.solve(A2, db - da @ np.linalg.solve(A2, B2)), rtol=1e-12)
    # the gradient under vmap; the Jacobian in reverse mode is A^-1
    gbs = jaxc.vmap(jaxc.grad(lambda b: _linear(a, b).sum()))(jnp.stack([b, 2 * b]))
    assert_close(gbs, np.stack([w, w]), rtol=1e-12)
    assert_close(jaxc.jacrev(_linear, argnums=1)(a, b), np.linalg.inv(A2), rtol=1e-12)
    # with has_aux: aux gets no derivative, x its implicit one
    def with_aux(mv, r):
        return _cramer(mv, r), jnp.sum(r)
    ga = jaxc.grad(lambda a: lax.custom_linear_solve(lambda x: a @ x, b, with_aux, with_aux, has_aux=True)[0].sum())(a)
    assert_close(ga, -np.outer(w, np.linalg.solve(A2, B2)), rtol=1e-12)


def test_custom_linear_solve_never_differentiates_the_solver(x64):
    # CG in a while loop: reverse mode must go through transpose_solve (here
    # `symmetric`), forward mode through solve applied to the tangent
    m, b = jnp.asarray(SPD), jnp.array([1.0, 2.0, 3.0])

    def f(m, b):
        return lax.custom_linear_solve(lambda x: m @ x, b, _cg, symmetric=True)
    assert_close(jaxc.jit(f)(m, b), np.linalg.solve(SPD, [1.0, 2.0, 3.0]), rtol=1e-10)
    check_grads(f, (m, b), order=1, atol=1e-6, rtol=1e-6)
    w = np.linalg.solve(SPD, np.ones(3))
    gm, gb = jaxc.grad(lambda m, b: f(m, b).sum(), argnums=(0, 1))(m, b)
    assert_close(gb, w, rtol=1e-10)
    assert_close(gm, -np.outer(w, np.linalg.solve(SPD, [1.0, 2.0, 3.0])), rtol=1e-10)


def test_custom_linear_solve_errors():
    a, b = A2.astype(np.float32), B2.astype(np.float32)

    def no_transpose(a, b):
        return lax.custom_linear_solve(lambda x: a @ x, b, _cramer).sum()
    assert jaxc.jvp(no_transpose, (a, b), (a, b))[1].shape == ()  # forward mode needs no transpose_solve
    with pytest.raises(TypeError, match="transpose_solve required"):
        jaxc.grad(no_transpose, argnums=1)(a, b)
    with pytest.raises(ValueError, match="matvec\\(\\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: (a @ x)[:1], b, _cramer)
    with pytest.raises(TypeError, match="matvec\\(\\) output pytree structure must match b"):
        lax.custom_linear_solve(lambda x: {"a": a @ x}, b, _cramer)
    with pytest.raises(TypeError, match="solve\\(\\) output pytree structure must match b"):
        lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: {"a": r})
    with pytest.raises(ValueError, match="auxiliary output"):
        jaxc.jit(lambda b: lax.custom_linear_solve(lambda x: a @ x, b, _cramer, has_aux=True))(b)


# ---------------------------------------------------------------------------
# custom_root
# ---------------------------------------------------------------------------

def _newton(f, x0):
    def body(carry):
        x, i = carry
        fx, dfx = jaxc.jvp(f, (x,), (jnp.ones_like(x),))
        return x - fx / dfx, i + 1
    return lax.while_loop(lambda c: c[1] < 25, body, (x0, 0))[0]


def _sqrt(a):
    return lax.custom_root(lambda x: x * x - a, a, _newton, lambda g, y: y / g(1.0))


def test_custom_root_scalar():
    check(_sqrt, np.sqrt, np.float32(2.0), rtol=1e-6, dtype=np.float32)
    assert_close(jaxc.vmap(_sqrt)(np.array([1.0, 4.0, 9.0], np.float32)), np.array([1.0, 2.0, 3.0]), rtol=1e-6)
    assert_close(jaxc.vmap(jaxc.grad(_sqrt))(np.array([1.0, 4.0, 9.0], np.float32)),
                 np.array([0.5, 0.25, 1 / 6]), rtol=1e-5)


def test_custom_root_gradients(x64):
    a = jnp.float64(2.0)
    assert_close(jaxc.grad(_sqrt)(a), 0.5 / np.sqrt(2.0), rtol=1e-12)
    assert_close(jaxc.grad(jaxc.grad(_sqrt))(a), -0.25 * 2.0 ** -1.5, rtol=1e-12)
    assert_close(jaxc.jvp(_sqrt, (a,), (jnp.float64(3.0),))[1], 1.5 / np.sqrt(2.0), rtol=1e-12)
    check_grads(_sqrt, (a,), order=2)


def test_custom_root_vector_pytree_and_aux(x64):
    # x0 * x1 = p, x0 - x1 = q: a 2-equation system with a tangent_solve by Cramer's rule
    def roots(p, q):
        def f(x):  # residuals named like the unknowns (custom_root wants f's output shaped as x)
            return {"a": x["a"] * x["b"] - p, "b": x["a"] - x["b"] - q}

        def solve(f, guess):
            # closed form, so the forward pass is exact
            b = (-q + jnp.sqrt(q * q + 4 * p)) / 2
            return {"a": b + q, "b": b}, jnp.int32(1)

        def tangent_solve(g, y):
            e0 = g({"a": jnp.float64(1.0), "b": jnp.float64(0.0)})
            e1 = g({"a": jnp.float64(0.0), "b": jnp.float64(1.0)})
            m = jnp.array([[e0["a"], e1["a"]], [e0["b"], e1["b"]]])
            v = _cramer(lambda z: m @ z, jnp.stack([y["a"], y["b"]]))
            return {"a": v[0], "b": v[1]}
        x, aux = lax.custom_root(f, {"a": jnp.float64(1.0), "b": jnp.float64(1.0)}, solve, tangent_solve,
                                 has_aux=True)
        return x["a"] + 2 * x["b"], aux
    p, q = jnp.float64(6.0), jnp.float64(1.0)  # a = 3, b = 2
    value, aux = roots(p, q)
    assert float(value) == 7.0 and int(aux) == 1
    # implicit: [[b, a], [1, -1]] [da, db] = [dp, dq]  =>  at (3, 2): da = (dp + 3 dq) / 5, db = (dp - 2 dq) / 5
    gp, gq = jaxc.grad(lambda p, q: roots(p, q)[0], argnums=(0, 1))(p, q)
    assert_close(gp, 3 / 5, rtol=1e-12)
    assert_close(gq, (3 - 4) / 5, rtol=1e-12)
    check_grads(lambda p, q: roots(p, q)[0], (p, q), order=1)


def test_custom_root_errors():
    with pytest.raises(TypeError, match="f\\(\\) output pytree structure must match initial_guess"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)
    with pytest.raises(TypeError, match="solve\\(\\) output pytree structure must match initial_guess"):
        lax.custom_root(lambda x: x, 1.0, lambda f, x: (x, x), lambda g, y: y)
    with pytest.raises(ValueError, match="auxiliary output"):
        lax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True)


# ---------------------------------------------------------------------------
# Convolution and window shapes
# ---------------------------------------------------------------------------

def test_conv_general_permutations():
    assert lax.conv_general_permutations(("NCHW", "OIHW", "NCHW")) == ((0, 1, 2, 3),) * 3
    assert lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    # spatial dimensions ordered as in the rhs string
    assert lax.conv_general_permutations(("NWHC", "WHOI", "CHWN")) == ((0, 3, 1, 2), (2, 3, 0, 1), (3, 0, 2, 1))
    with pytest.raises(TypeError, match="'O' and 'I' exactly once"):
        lax.conv_general_permutations(("NHWC", "HWIX", "NHWC"))
    with pytest.raises(TypeError, match="same set of spatial"):
        lax.conv_general_permutations(("NHWC", "HWIO", "NHXC"))
    with pytest.raises(TypeError, match="'N' and 'C' exactly once"):
        lax.conv_general_permutations(lax.conv_dimension_numbers((1, 1, 1, 1), (1, 1, 1, 1), None))


def test_conv_shape_tuples():
    assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), ((0, 0), (0, 0))) == (2, 4, 8, 8)
    assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (2, 3), ((1, 1), (2, 0))) == (2, 4, 5, 4)
    assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (2, 3), "SAME") == (2, 4, 5, 4)
    assert lax.conv_shape_tuple((2, 3, 2, 2), (4, 3, 3, 3), (1, 1), "VALID") == (2, 4, 0, 0)
    assert lax.conv_shape_tuple((4, 3, 10, 10), (4, 3, 3, 3), (1, 1), "VALID", batch_group_count=2)[0] == 2
    with pytest.raises(TypeError, match="Wrong number of explicit pads"):
        lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), ((0, 0),))
    with pytest.raises(ValueError, match="batch_group_count"):
        lax.conv_shape_tuple((4, 3, 10, 10), (4, 3, 3, 3), (1, 1), "VALID", batch_group_count=3)
    # the shapes the operations produce
    lhs, rhs = floats(2, 9, 8, 3), floats(3, 2, 3, 4)
    dn = ("NHWC", "HWIO", "NCHW")
    for padding in ("SAME", "VALID", ((1, 2), (0, 1))):
        out = lax.conv_general_dilated(lhs, rhs, (2, 1), padding, dimension_numbers=dn)
        assert lax.conv_general_shape_tuple(lhs.shape, rhs.shape, (2, 1), padding, dn) == out.shape
        dn_t = ("NHWC", "HWIO", "NHWC")
        out = lax.conv_transpose(lhs, rhs, (2, 3), padding, dimension_numbers=dn_t)
        assert lax.conv_transpose_shape_tuple(lhs.shape, rhs.shape, (2, 3), padding, dn_t) == out.shape
    spec = lax.conv_dimension_numbers(lhs.shape, rhs.shape, dn)
    assert lax.conv_general_shape_tuple(lhs.shape, rhs.shape, (1, 1), "VALID", spec) == (2, 4, 7, 7)
    with pytest.raises(TypeError, match="dimension_numbers"):
        lax.conv_general_shape_tuple(lhs.shape, rhs.shape, (1, 1), "VALID", None)


def test_reduce_window_shape_tuple():
    x = floats(4, 6)
    for args in (((2, 2), (1, 1), ((0, 0), (0, 0)), None, None),
                 ((2, 3), (2, 2), ((1, 0), (0, 1)), (2, 1), (1, 2)),
                 ((9, 3), (1, 1), ((0, 0), (0, 0)), None, None)):
        window, strides, pads, base, wdil = args
        out = lax.reduce_window(x, 0.0, lax.add, window, strides, pads, base, wdil)
        assert lax.reduce_window_shape_tuple(x.shape, window, strides, pads, base, wdil) == out.shape
    assert lax.reduce_window_shape_tuple((0, 6), (1, 3), (1, 1), ((0, 0), (0, 0)), (2, 1)) == (0, 4)
    with pytest.raises(ValueError):
        lax.reduce_window_shape_tuple((4, 6), (2, 3), (2, 2), "SAME")
    with pytest.raises(ValueError):
        lax.reduce_window_shape_tuple((4, 6), (2,), (1, 1), ((0, 0), (0, 0)))


def _local_reference(lhs, rhs, filt, strides, pads):
    """NCHW lhs, (O, I, H', W') rhs with I = C * kh * kw (channel-major): loops."""
    n, c, h, w = lhs.shape
    o, _, oh, ow = rhs.shape
    padded = np.pad(lhs, ((0, 0), (0, 0), pads[0], pads[1]))
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = padded[:, :, i * strides[0]:i * strides[0] + filt[0], j * strides[1]:j * strides[1] + filt[1]]
            out[:, :, i, j] = patch.reshape(n, -1) @ rhs[:, :, i, j].T
    return out


def test_conv_general_dilated_local():
    lhs = floats(2, 3, 6, 5)
    filt, strides, pads = (3, 2), (1, 2), ((1, 0), (0, 1))
    oh, ow = (6 + 1 - 3) // 1 + 1, (5 + 1 - 2) // 2 + 1
    rhs = floats(4, 3 * 3 * 2, oh, ow)
    expected = _local_reference(lhs.astype(np.float64), rhs.astype(np.float64), filt, strides, pads)
    check(lambda l, r: lax.conv_general_dilated_local(l, r, strides, pads, filt), None, lhs, rhs,
          expected=expected, rtol=1e-5, atol=1e-5, dtype=np.float32)
    # the same in NHWC / HWIO-like layouts: the result is the transposed one
    out = lax.conv_general_dilated_local(lhs.transpose(0, 2, 3, 1), rhs.transpose(2, 3, 1, 0), strides, pads, filt,
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert_close(out, expected.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="rhs must have the output's spatial shape"):
        lax.conv_general_dilated_local(lhs, rhs[..., :1], strides, pads, filt)


# ---------------------------------------------------------------------------
# Option enums and aliases
# ---------------------------------------------------------------------------

def test_enums():
    P, G, R = lax.Precision, lax.GatherScatterMode, lax.RandomAlgorithm
    assert [m.name for m in P] == ["DEFAULT", "HIGH", "HIGHEST"] and P.HIGHEST.value == 2
    assert P("highest") is P.HIGHEST and P("bfloat16") is P.DEFAULT and P("tensorfloat32") is P.HIGH
    assert str(P.HIGH) == "HIGH" and repr(P.HIGH) == "Precision.HIGH"
    with pytest.raises(ValueError):
        P("foo")
    assert [m.name for m in G] == ["CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS", "ONE_HOT"]
    assert G.from_any(None) is G.FILL_OR_DROP and G.from_any("clip") is G.CLIP and G.from_any(G.ONE_HOT) is G.ONE_HOT
    with pytest.raises(ValueError):
        G.from_any("wrap")
    assert [(m.name, int(m)) for m in R] == [("RNG_DEFAULT", 0), ("RNG_THREE_FRY", 1), ("RNG_PHILOX", 2)]
    assert str(R.RNG_PHILOX) == "RNG_PHILOX"
    assert lax.DotDimensionNumbers is not None and lax.PrecisionLike is not None
    assert lax.ConvGeneralDilatedDimensionNumbers is not None


def test_enums_are_accepted_by_the_operations():
    a, b = floats(2, 3), floats(3, 4)
    expected = a @ b
    for precision in (lax.Precision.HIGHEST, (lax.Precision.HIGH, lax.Precision.DEFAULT), "highest"):
        assert_close(lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=precision), expected)
    assert_close(lax.dot(a, b, precision=lax.Precision.HIGH), expected)
    assert_close(jnp.dot(a, b, precision=lax.Precision.HIGHEST), expected)
    assert_close(jnp.matmul(a, b, precision=lax.Precision.HIGHEST), expected)
    x, k = floats(1, 2, 5, 5), floats(3, 2, 2, 2)
    conv = lax.conv_general_dilated(x, k, (1, 1), "VALID", precision=lax.Precision.HIGHEST)
    assert conv.shape == (1, 3, 4, 4)
    operand = np.arange(5, dtype=np.float32)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    got = lax.gather(operand, np.array([[1], [9]]), dn, (1,), mode=lax.GatherScatterMode.CLIP)
    assert got.tolist() == [1.0, 4.0]
    put = lax.scatter(operand, np.array([[1], [9]]), np.float32([7, 8]), DN, mode=lax.GatherScatterMode.FILL_OR_DROP)
    assert put.tolist() == [0.0, 7.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="not supported"):
        lax.gather(operand, np.array([[1]]), dn, (1,), mode=lax.GatherScatterMode.ONE_HOT)


# ---------------------------------------------------------------------------
# Random bits
# ---------------------------------------------------------------------------

KEY = np.array([1, 2, 3, 4], np.uint32)


def test_rng_bit_generator():
    key, bits = lax.rng_bit_generator(KEY, (2, 3))
    assert key.shape == (4,) and key.dtype == np.uint32 and bits.shape == (2, 3) and bits.dtype == np.uint32
    again_key, again = jaxc.jit(lambda k: lax.rng_bit_generator(k, (2, 3)))(KEY)
    assert again.tolist() == bits.tolist() and again_key.tolist() == key.tolist()  # deterministic in the key
    assert not np.array_equal(key, KEY)
    _, chained = lax.rng_bit_generator(key, (2, 3))
    assert not np.array_equal(chained, bits)
    for word in range(4):  # every key word matters
        other = KEY.copy()
        other[word] += 1
        assert not np.array_equal(lax.rng_bit_generator(other, (2, 3))[1], bits)
    for dtype in (np.uint8, np.uint16, np.uint32):
        assert lax.rng_bit_generator(KEY, (5,), dtype)[1].dtype == dtype
    assert lax.rng_bit_generator(KEY, (5,), np.uint64)[1].dtype == np.uint32  # without x64
    _, many = lax.rng_bit_generator(KEY, (4096,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    ones = np.unpackbits(np.asarray(many).view(np.uint8)).mean()
    assert abs(ones - 0.5) < 0.01  # well distributed bits
    keys = np.stack([KEY, KEY + 1, KEY + 2])
    new_keys, batched = jaxc.vmap(lambda k: lax.rng_bit_generator(k, (3,)))(keys)
    first_key, from_the_first = lax.rng_bit_generator(KEY, (3, 3))  # JAX's batching: one draw of the first key
    np.testing.assert_array_equal(batched, from_the_first)
    np.testing.assert_array_equal(new_keys, np.stack([first_key, KEY + 1, KEY + 2]))
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(KEY, (2,), np.int32)
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(KEY[:2], (2,))


def test_rng_bit_generator_x64(x64):
    assert lax.rng_bit_generator(KEY, (3,), np.uint64)[1].dtype == np.uint64


def test_rng_uniform():
    u = lax.rng_uniform(np.float32(-1), np.float32(3), (2000,))
    assert u.shape == (2000,) and u.dtype == np.float32 and not u.weak_type
    values = np.asarray(u)
    assert values.min() >= -1 and values.max() < 3 and abs(values.mean() - 1) < 0.15
    assert not np.array_equal(values, np.asarray(lax.rng_uniform(np.float32(-1), np.float32(3), (2000,))))
    assert lax.rng_uniform(0.0, 1.0, (3,)).weak_type
    i = np.asarray(lax.rng_uniform(np.int32(3), np.int32(7), (500,)))
    assert i.dtype == np.int32 and set(i.tolist()) == {3, 4, 5, 6}
    with pytest.raises(ValueError, match="identical dtypes"):
        lax.rng_uniform(np.int32(0), np.float32(1), (2,))
    with pytest.raises(ValueError, match="must be scalars"):
        lax.rng_uniform(np.zeros(2, np.float32), np.ones(2, np.float32), (2,))


# ---------------------------------------------------------------------------
# Collectives
# ---------------------------------------------------------------------------

def test_psum_scatter_and_axis_size():
    xs = floats(3, 4, 3)
    out = jaxc.vmap(lambda x: lax.psum_scatter(x, "i", scatter_dimension=1), axis_name="i")(xs)
    total = xs.sum(0)  # (4, 3): member j gets total[:, j]
    assert_close(out, total.T, rtol=1e-5)
    xs = floats(3, 6, 2)
    out = jaxc.vmap(lambda x: lax.psum_scatter(x, "i", tiled=True), axis_name="i")(xs)
    assert_close(out, xs.sum(0).reshape(3, 2, 2), rtol=1e-5)
    jitted = jaxc.jit(jaxc.vmap(lambda x: lax.psum_scatter({"a": x}, "i", tiled=True)["a"], axis_name="i"))(xs)
    assert_close(jitted, xs.sum(0).reshape(3, 2, 2), rtol=1e-5)
    sizes = jaxc.vmap(jaxc.vmap(lambda x: x * lax.axis_size(("i", "j")) + lax.axis_size("j"), axis_name="j"),
                      axis_name="i")(np.ones((2, 3), np.float32))
    assert np.asarray(sizes).tolist() == [[9.0] * 3] * 2
    seen = []
    jaxc.vmap(lambda x: (seen.append(lax.axis_size("i")), x)[1], axis_name="i")(np.ones(3, np.float32))
    assert seen == [3] and type(seen[0]) is int
    with pytest.raises(ValueError, match="divisible"):
        jaxc.vmap(lambda x: lax.psum_scatter(x, "i", tiled=True), axis_name="i")(floats(3, 4))
    with pytest.raises(ValueError, match="to equal x.shape"):
        jaxc.vmap(lambda x: lax.psum_scatter(x, "i"), axis_name="i")(floats(3, 4))
    with pytest.raises(NameError, match="unbound axis name"):
        jaxc.vmap(lambda x: lax.psum_scatter(x, "k"), axis_name="i")(floats(3, 3))
    with pytest.raises(NameError, match="unbound axis name"):
        lax.axis_size("i")


# ---------------------------------------------------------------------------
# approx top-k, ragged_dot, platform_dependent and small conveniences
# ---------------------------------------------------------------------------

def test_approx_max_and_min_k():
    x = floats(3, 7)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    check(lambda x: lax.approx_max_k(x, 3), None, x,
          expected=(np.take_along_axis(x, order, 1), order.astype(np.int32)))
    order = np.argsort(x, axis=0, kind="stable")[:2]
    values, indices = check(lambda x: lax.approx_min_k(x, 2, reduction_dimension=0), None, x,
                            expected=(np.take_along_axis(x, order, 0), order.astype(np.int32)))
    assert indices.dtype == np.int32
    ties = lax.approx_min_k(np.float32([2, 1, 2, 1]), 3, aggregate_to_topk=False)
    assert ties[1].tolist() == [1, 3, 0]
    with pytest.raises(ValueError, match="floating"):
        lax.approx_max_k(np.arange(3), 2)
    with pytest.raises(ValueError, match="k must be smaller"):
        lax.approx_max_k(x, 8)
    with pytest.raises(ValueError, match="k must be positive"):
        lax.approx_min_k(x, 0)
    with pytest.raises(IndexError):
        lax.approx_max_k(x, 2, reduction_dimension=2)


def _ragged_reference(lhs, rhs, sizes):
    out = np.zeros((lhs.shape[0], rhs.shape[2]))
    start = 0
    for g, size in enumerate(sizes):
        out[start:start + size] = lhs[start:start + size] @ rhs[g]
        start += size
    return out


def test_ragged_dot():
    lhs, rhs = floats(6, 3), floats(3, 3, 4)
    for sizes in ([1, 2, 2], [3, 0, 3], [0, 0, 0], [6, 0, 0]):
        check(lambda l, r, s: lax.ragged_dot(l, r, s), None, lhs, rhs, np.array(sizes, np.int32),
              expected=_ragged_reference(lhs.astype(np.float64), rhs.astype(np.float64), sizes), rtol=1e-5,
              atol=1e-5, dtype=np.float32)
    ints = lax.ragged_dot(np.arange(12, dtype=np.int32).reshape(4, 3), np.arange(24, dtype=np.int32).reshape(2, 3, 4),
                          np.array([1, 2], np.int32), preferred_element_type=np.float32)
    assert ints.dtype == np.float32
    assert_close(ints, _ragged_reference(np.arange(12).reshape(4, 3), np.arange(24).reshape(2, 3, 4), [1, 2]))
    with pytest.raises(TypeError, match="group dimension size"):
        lax.ragged_dot(lhs, rhs, np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="np.integer"):
        lax.ragged_dot(lhs, rhs, np.array([1.0, 2.0, 3.0]))
    with pytest.raises(NotImplementedError):
        lax.ragged_dot(lhs, rhs, np.array([1, 2, 3], np.int32), group_offset=np.array([0], np.int32))


def test_platform_dependent():
    assert lax.platform_dependent(2.0, cpu=lambda x: x * 10, tpu=lambda x: x) == 20.0
    assert lax.platform_dependent(2.0, tpu=lambda x: x * 10, default=lambda x: x + 1) == 3.0
    assert lax.platform_dependent(default=lambda: 3) == 3
    out = jaxc.jit(lambda x: lax.platform_dependent(x, cuda=jnp.sin, cpu=jnp.cos))(np.float32(0.5))
    assert_close(out, np.cos(np.float32(0.5)))
    with pytest.raises(NotImplementedError):
        lax.platform_dependent(2.0, tpu=lambda x: x)
    with pytest.raises(ValueError, match="'cuda' or 'rocm'"):
        lax.platform_dependent(2.0, gpu=lambda x: x, default=lambda x: x)


def test_small_conveniences():
    add = lax.composite(lambda x, y: x + y, name="my.add")
    out = add(1.0, 2.0)
    assert float(out) == 3.0 and out.weak_type
    scale = lax.composite(lambda x, *, k: x * k, name="my.scale", version=2)
    assert_close(jaxc.jit(lambda x: scale(x, k=3.0))(np.ones(2, np.float32)), np.array([3.0, 3.0]))
    staged = lax.stage(1.0)
    assert staged.weak_type and staged.shape == ()
    assert jaxc.jit(lambda x: lax.stage(x) + 1)(np.float32(1)).tolist() == 2.0
    assert lax.dce_sink(np.ones(2)) is None
    shape = lax.shape_as_value((2, 3))
    assert shape.dtype == np.int32 and shape.tolist() == [2, 3]
    assert lax.shape_as_value(()).shape == (0,)
