"""lax.cond / switch / while_loop / fori_loop / scan / map: numerics against
Python loops, eagerly and under jit; pytrees, closures, nesting, weak-type
carries, the compile cache, source locations and the error messages."""
from __future__ import annotations

import os
import re
from collections import namedtuple

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.runtime import cpu

X3 = rand((3,), np.float32)
XS = rand((5, 3), np.float32)
THIS_FILE = os.path.basename(__file__)


def both(fn, *args):
    """fn(*args) eagerly and under jit (the arguments traced)."""
    return fn(*args), jaxc.jit(fn)(*args)


# ---------------------------------------------------------------------------
# cond and switch
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("pred", [True, False, np.int32(0), np.int32(-4)])
def test_cond_picks_branch(pred):
    def f(p, x):
        return lax.cond(p, lambda a: lax.sin(a) + 1.0, lambda a: a * 2.0, x)
    expected = np.sin(X3) + 1 if pred else X3 * 2
    check(f, None, np.asarray(pred), X3, expected=expected, dtype=np.float32)


def test_cond_pytree_operands_and_outputs():
    def f(p, x, n):
        def true_fun(d, k):
            return {"sum": d["a"] + d["b"], "k": k + 1}

        def false_fun(d, k):
            return {"sum": d["a"] - d["b"], "k": k * 2}
        return lax.cond(p, true_fun, false_fun, {"a": x, "b": x * 3.0}, n)
    for p, s, k in [(True, X3 * 4, 8), (False, X3 * -2, 14)]:
        for out in both(f, np.bool_(p), X3, np.int32(7)):
            assert set(out) == {"sum", "k"}
            assert_close(out["sum"], s.astype(np.float32), rtol=1e-6)
            assert int(out["k"]) == k and out["k"].dtype == np.int32


def test_cond_closes_over_outer_tracer_and_concrete_array():
    w = jnp.asarray(np.float32([1.0, 10.0, 100.0]))

    def f(p, x, y):
        return lax.cond(p, lambda: x * w, lambda: y + w)
    for p, expected in [(True, X3 * [1, 10, 100]), (False, X3 + 1 + [1, 10, 100])]:
        for out in both(f, np.bool_(p), X3, X3 + 1):
            assert_close(out, expected.astype(np.float32), rtol=1e-6)


def test_cond_without_operands_or_results_and_weak_types():
    out = lax.cond(True, lambda: 1.5, lambda: 2.5)
    assert float(out) == 1.5 and out.dtype == np.float32 and out.weak_type
    mixed = lax.cond(False, lambda: 1.5, lambda: jnp.asarray(np.float32(2.5)))
    assert float(mixed) == 2.5 and not mixed.weak_type
    assert lax.cond(True, lambda: None, lambda: None) is None


@pytest.mark.parametrize("index,dtype", [(0, np.int32), (1, np.int32), (2, np.int32), (7, np.int32),
                                         (-5, np.int32), (200, np.uint8)])
def test_switch_three_branches_clamps_index(index, dtype):
    branches = [lambda a: a + 1.0, lambda a: a * a, lambda a: -a]
    expected = [X3 + 1, X3 * X3, -X3][min(max(index, 0), 2)]

    def f(i, x):
        return lax.switch(i, branches, x)
    check(f, None, np.asarray(index, dtype), X3, expected=expected, dtype=np.float32)


def test_switch_single_branch_and_python_index():
    assert float(lax.switch(5, [lambda a: a * 3], 2.0)) == 6.0
    assert_close(lax.switch(1, (lambda: X3, lambda: X3 * 2)), X3 * 2)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_branch_result_survives_later_ops_of_its_shape(index):
    """A branch result stays live while later ops fill buffers of the same
    shape (scf.index_switch lost its result to the next op: docs/toolchain.md)."""
    branches = [lambda m: m // 2, lambda m: 3 * m + 1, lambda m: m - 5][:max(index + 1, 2)]

    def f(i, n, steps):
        return lax.switch(i % 7, branches, n), steps + 1
    expected = [27 // 2, 82, 22][index]
    for out, count in both(f, np.int32(index), np.int32(27), np.int32(0)):
        assert (int(out), int(count)) == (expected, 1)


def test_collatz_cond_inside_while():
    def steps(n):
        def body(state):
            n, count = state
            return lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n), count + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]
    assert [int(s) for s in both(steps, np.int32(27))] == [111, 111]


def test_traced_single_branch_switch():
    for out in both(lambda i, x: lax.switch(i, [lambda a: a * 3.0], x), np.int32(4), X3):
        assert_close(out, X3 * 3, rtol=1e-6)


def test_python_if_on_traced_pred_in_branch_raises():
    def branch(x):
        if lax.reduce_sum(x, [0]) > 0:
            return x
        return -x
    with pytest.raises(jaxc.core.ConcretizationTypeError):
        lax.cond(True, branch, lambda x: x, X3)


# ---------------------------------------------------------------------------
# while_loop and fori_loop
# ---------------------------------------------------------------------------

def test_while_loop_counts_like_python():
    def f(limit):
        return lax.while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))
    i, v = 0, 1.0
    while i < 9:
        i, v = i + 1, v * 2
    for count, power in both(f, np.int32(9)):
        assert int(count) == i and float(power) == v
        assert count.dtype == np.int32 and power.dtype == np.float32


def test_while_loop_zero_iterations_and_closure():
    step = jnp.asarray(np.float32(0.5))

    def f(x):
        return lax.while_loop(lambda v: lax.reduce_sum(v, [0]) < 0.0, lambda v: v + step, x)
    assert_close(f(jnp.asarray(np.float32([1.0, 2.0]))), np.float32([1.0, 2.0]))
    for out in both(f, np.float32([-3.0, 1.0])):
        assert_close(out, np.float32([-2.0, 2.0]))


def test_while_loop_weak_init_promoted_like_jax():
    out = lax.while_loop(lambda v: v < 3.0, lambda v: v + 1.25, 0)
    assert float(out) == 3.75 and out.dtype == np.float32


@pytest.mark.parametrize("lower,upper", [(0, 6), (2, 5), (4, 1)])
def test_fori_loop_python_bounds_accumulates(lower, upper):
    total, prod = 0, 1.0
    for i in range(lower, upper):
        total, prod = total + i * i, prod * (i + 1)

    def f(x):
        def body(i, c):
            return c[0] + i * i, c[1] * lax.convert_element_type(i + 1, np.float32)
        return lax.fori_loop(lower, upper, body, (0, x))
    for s, p in both(f, np.float32(1.0)):
        assert int(s) == total and float(p) == pytest.approx(prod)


def test_fori_loop_python_bounds_lowers_to_scan_traced_bounds_to_while():
    def static(x):
        return lax.fori_loop(0, 4, lambda i, v: v + x, x)

    def dynamic(x, n):
        return lax.fori_loop(0, n, lambda i, v: v + x, x)
    static_ir = jaxc.make_ir(static)(X3).as_text()
    assert "jaxc.scan" in static_ir and "length = 4" in static_ir and "jaxc.while" not in static_ir
    assert "jaxc.while" in jaxc.make_ir(dynamic)(X3, 4).as_text()
    assert_close(jaxc.jit(dynamic)(X3, 4), X3 * 5, rtol=1e-6)
    assert_close(jaxc.jit(dynamic)(X3, -2), X3)
    assert_close(static(X3), X3 * 5, rtol=1e-6)


def test_fori_loop_index_dtype():
    seen = []

    def body(i, v):
        seen.append(i.aval)
        return v + i
    assert int(lax.fori_loop(0, 3, body, 0)) == 3
    assert seen[-1].dtype == np.int32 and seen[-1].weak_type
    assert int(lax.fori_loop(np.uint8(1), 3, body, np.uint8(0))) == 3
    assert seen[-1].dtype == np.uint8


# ---------------------------------------------------------------------------
# scan and map
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reverse", [False, True])
def test_scan_cumulative_sum(reverse):
    def f(init, xs):
        return lax.scan(lambda c, x: (c + x, c + x), init, xs, reverse=reverse)
    init = np.zeros(3, np.float32)
    expected_ys = np.cumsum(XS[::-1], axis=0)[::-1] if reverse else np.cumsum(XS, axis=0)
    for carry, ys in both(f, init, XS):
        assert_close(carry, XS.sum(0), rtol=1e-5)
        assert_close(ys, expected_ys, rtol=1e-5)


def test_scan_pytrees_of_carry_xs_ys():
    Carry = namedtuple("Carry", ["total", "count"])

    def step(carry, x):
        total = carry.total + x["v"] * x["w"]
        return Carry(total, carry.count + 1), (total, {"neg": -x["v"]})

    def f(v, w):
        return lax.scan(step, Carry(np.float32(0), 0), {"v": v, "w": w})
    v, w = rand((4,), np.float32), rand((4,), np.float32)
    for carry, (totals, extra) in both(f, v, w):
        assert isinstance(carry, Carry) and int(carry.count) == 4
        assert_close(totals, np.cumsum(v * w), rtol=1e-5)
        assert_close(carry.total, np.sum(v * w), rtol=1e-5)
        assert_close(extra["neg"], -v)


def test_scan_xs_none_with_length_and_closure():
    scale = jnp.asarray(np.float32(3.0))

    def f(c0):
        return lax.scan(lambda c, x: (c * scale, c), c0, None, length=4)
    for carry, ys in both(f, np.float32(1.0)):
        assert float(carry) == 81.0
        assert_close(ys, np.float32([1, 3, 9, 27]))


def test_scan_zero_length_and_int_bool_carries():
    carry, ys = lax.scan(lambda c, x: (c + x, x > 0), np.int32(5), np.zeros((0,), np.int32))
    assert int(carry) == 5 and ys.shape == (0,) and ys.dtype == np.bool_
    flags = np.array([True, False, True, True])
    carry, ys = lax.scan(lambda c, x: (c ^ x, c), False, flags)
    assert bool(carry) == bool(np.logical_xor.reduce(flags))
    assert_close(ys, np.array([False, True, True, False]))


def test_scan_weak_init_promoted_and_closure_over_outer_tracer():
    def f(xs, bias):
        return lax.scan(lambda c, x: (c + x + bias, c), 0, xs)
    xs = rand((4,), np.float32)
    for carry, ys in both(f, xs, np.float32(0.5)):
        assert carry.dtype == np.float32
        assert_close(carry, np.sum(xs + 0.5), rtol=1e-5)
        assert_close(ys, np.concatenate([[0], np.cumsum(xs + 0.5)[:-1]]).astype(np.float32), rtol=1e-5)


def test_map_over_pytree():
    def f(xs):
        first_column = lax.index_in_dim(xs, 0, 1, keepdims=False)
        return lax.map(lambda d: (d["a"] * 2.0, lax.reduce_sum(d["b"], [0])), {"a": first_column, "b": xs})
    for doubled, sums in both(f, XS):
        assert_close(doubled, XS[:, 0] * 2)
        assert_close(sums, XS.sum(1), rtol=1e-5)


@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 12])
def test_map_in_batches(batch_size):
    """batch_size: vmap over chunks in a scan, then the remainder, as JAX;
    same values as the loop for sizes that divide 10, that do not, and that
    exceed it."""
    xs = np.linspace(-1, 1, 20).reshape(10, 2)
    def f(xs):
        return lax.map(lambda row: (row.sum(), jnp.sin(row) * row[0]), xs, batch_size=batch_size)
    for sums, waves in both(f, xs):
        assert_close(sums, xs.sum(1))
        assert_close(waves, np.sin(xs) * xs[:, :1])
    grad = jaxc.grad(lambda x: jnp.sum(lax.map(jnp.sin, x, batch_size=batch_size)))(xs[:, 0])
    assert_close(grad, np.cos(xs[:, 0]))
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        lax.map(jnp.sin, xs, batch_size=0)


def test_nested_scan_inside_cond_inside_while():
    def f(x, xs):
        def body(c):
            i, v = c
            v = lax.cond(i % 2 == 0,
                         lambda v: lax.scan(lambda a, b: (a + b, a), v, xs)[0],
                         lambda v: v * 0.5, v)
            return i + 1, v
        return lax.while_loop(lambda c: c[0] < 4, body, (0, x))
    v = X3.copy()
    for i in range(4):
        v = v + XS.sum(0) if i % 2 == 0 else v * 0.5
    for i, out in both(f, X3, XS):
        assert int(i) == 4
        assert_close(out, v.astype(np.float32), rtol=1e-5)


def test_eager_calls_reuse_compiled_code():
    def body(c, x):
        return c + x, c * x

    def run():
        return lax.scan(body, np.zeros(3, np.float32), XS)
    expected = run()
    before = cpu.compile_count
    for _ in range(3):
        assert_close(run(), expected)
    assert cpu.compile_count == before


def test_branch_ops_carry_user_source_line():
    def f(x):
        return lax.cond(lax.reduce_sum(x, [0]) > 0, lambda a: lax.exp(a), lambda a: a, x)  # exp line
    text = jaxc.make_ir(f)(X3).as_text(debug_info=True)
    line = f.__code__.co_firstlineno + 1
    exp_line = next(ln for ln in text.splitlines() if "jaxc.exp" in ln)
    alias = re.search(r"loc\((#loc\d+)\)", exp_line).group(1)
    definition = re.search(rf"^{alias} = loc\((.*)\)$", text, re.M).group(1)
    assert f'{THIS_FILE}":{line}:' in definition


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_cond_branch_type_errors():
    with pytest.raises(TypeError, match=r"lax.cond: true_fun and false_fun output must have identical "
                                        r"types, got \(float32\[3\],\) and \(int32\[3\],\)"):
        lax.cond(True, lambda x: x, lambda x: lax.convert_element_type(x, np.int32), X3)
    with pytest.raises(TypeError, match=r"lax.cond: true_fun and false_fun output must have the same "
                                        r"pytree structure"):
        lax.cond(True, lambda x: (x, x), lambda x: x, X3)
    with pytest.raises(TypeError, match=r"lax.switch: branches\[0\] and branches\[2\] output must have "
                                        r"identical types, got \(float32\[3\],\) and \(float32\[1\],\)"):
        lax.switch(0, [lambda x: x, lambda x: x, lambda x: lax.slice_in_dim(x, 0, 1)], X3)


def test_pred_and_index_errors():
    with pytest.raises(TypeError, match=r"lax.cond: pred must be a scalar, got bool\[3\]"):
        lax.cond(np.array([True, False, True]), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match=r"lax.cond: pred must be a boolean or integer scalar, got "
                                        r"float32\[\]"):
        jaxc.jit(lambda p: lax.cond(p, lambda: 1, lambda: 2))(np.float32(1))
    with pytest.raises(TypeError, match=r"lax.switch: index must be an integer scalar, got bool\[\]"):
        lax.switch(True, [lambda: 1, lambda: 2])
    with pytest.raises(ValueError, match="lax.switch: empty branch sequence"):
        lax.switch(0, [])
    with pytest.raises(TypeError, match="lax.cond: true_fun must be callable"):
        lax.cond(True, 1, lambda: 2)


def test_loop_carry_errors():
    with pytest.raises(TypeError, match=r"lax.while_loop: body_fun carry output must have the same types "
                                        r"as the carry input, got \(float32\[\],\) for the output and "
                                        r"\(int32\[\],\) for the input"):
        lax.while_loop(lambda c: c < 3, lambda c: lax.convert_element_type(c, np.float32), np.int32(0))
    with pytest.raises(TypeError, match=r"lax.while_loop: body_fun carry output must have the same pytree"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: c[0], (np.int32(0), np.int32(1)))
    with pytest.raises(TypeError, match=r"lax.while_loop: cond_fun must return a boolean scalar, got "
                                        r"\(int32\[\],\)"):
        lax.while_loop(lambda c: c, lambda c: c - 1, np.int32(3))
    with pytest.raises(TypeError, match=r"lax.scan: f carry output must have the same types as the carry "
                                        r"input, got \(float32\[2,3\],\)"):
        lax.scan(lambda c, x: (lax.broadcast(c, (2,)) * x, x), X3, np.ones((5, 2, 3), np.float32))
    with pytest.raises(TypeError, match=r"lax.scan: f must return a pair \(carry, y\), got Tracer"):
        lax.scan(lambda c, x: c + x, X3, XS)


def test_scan_xs_errors():
    with pytest.raises(TypeError, match=r"lax.scan: xs leaves have different leading axis sizes 4, 5"):
        lax.scan(lambda c, x: (c, x), 0.0, (XS, XS[:4]))
    with pytest.raises(TypeError, match=r"lax.scan: length 3 disagrees with the leading axis size 5"):
        lax.scan(lambda c, x: (c, x), 0.0, XS, length=3)
    with pytest.raises(ValueError, match=r"lax.scan: xs has no arrays to scan over, so length must be given"):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(TypeError, match=r"lax.scan: xs leaves need a leading axis to scan over, got "
                                        r"float32\[\]"):
        lax.scan(lambda c, x: (c, x), 0.0, np.float32(1))
    with pytest.raises(TypeError, match=r"lax.fori_loop: upper must be an integer scalar, got float32\[\]"):
        lax.fori_loop(0, 2.5, lambda i, v: v, 0)


def test_failed_trace_leaves_jit_usable():
    def bad(x):
        return lax.cond(True, lambda a: a, lambda a: (a, a), x)
    with pytest.raises(TypeError):
        jaxc.jit(bad)(X3)
    def good(x):
        return lax.cond(lax.reduce_sum(x, [0]) > 100, lambda a: a, lambda a: a + 1.0, x)
    assert_close(jaxc.jit(good)(X3), X3 + 1)
