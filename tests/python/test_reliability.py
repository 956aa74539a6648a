"""Regression tests of the reliability study (issue #20): faults it found,
JAX's derivative conventions at kinks and ties, hostile Python inputs, and
many threads calling jitted functions and eager ops at once.

The derivative table holds JAX 0.10.2's values (checked against JAX itself
below when it is installed)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

# --- compile failures and wrong results --------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_ops_along_size_one_axes(axis, reverse):
    """A (1, 4, 1) array scanned along each axis: the running slice once came
    from an ambiguous rank-reducing slice that canonicalize made invalid."""
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1)
    for ours, reference in ((lax.cumsum, np.cumsum), (lax.cumprod, np.cumprod),
                            (lax.cummax, np.maximum.accumulate)):
        expected = reference(np.flip(x, axis), axis=axis) if reverse else reference(x, axis=axis)
        expected = np.flip(expected, axis) if reverse else expected
        np.testing.assert_array_equal(ours(x, axis=axis, reverse=reverse), expected)
        np.testing.assert_array_equal(jaxc.jit(lambda v: ours(v, axis=axis, reverse=reverse))(x), expected)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_of_a_zero_dim_array(axis):
    """As JAX: a 0-d array repeats as a 1-d one, whatever the axis."""
    np.testing.assert_array_equal(jnp.repeat(jnp.float32(3), 2, axis=axis), [3.0, 3.0])
    np.testing.assert_array_equal(jaxc.jit(lambda v: jnp.repeat(v, 3, axis=axis))(np.float32(2)), [2.0] * 3)
    assert float(jaxc.grad(lambda v: jnp.repeat(v, 3, axis=axis).sum())(2.0)) == 3.0
    np.testing.assert_array_equal(jaxc.vmap(lambda v: jnp.repeat(v, 2, axis=axis))(jnp.arange(3.0)),
                                  np.repeat(np.arange(3.0)[:, None], 2, axis=1))


_EMPTY_BATCH = [
    # (name, function, batched arguments, unbatched arguments, in_axes)
    ("scatter-add, traced indices", lambda x, i: x.at[i].add(1.0), [np.zeros((0, 3), np.float32)],
     [np.array([0, 2], np.int32)], (0, None)),
    ("scatter-max, batched indices", lambda x, i: x.at[i].max(1.0),
     [np.zeros((0, 3), np.float32), np.zeros((0, 2), np.int32)], [], 0),
    ("gather, operand and indices", lambda x, i: x[i],
     [np.zeros((0, 3), np.float32), np.zeros((0, 2), np.int32)], [], 0),
    ("take_along_axis", lambda x, i: jnp.take_along_axis(x, i, axis=0),
     [np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int32)], [], 0),
    ("conv, both operands", lambda l, r: lax.conv_general_dilated(l, r, (1,), "VALID"),
     [np.zeros((0, 1, 1, 3), np.float32), np.zeros((0, 1, 1, 1), np.float32)], [], 0),
    ("inv", jnp.linalg.inv, [np.zeros((0, 3, 3), np.float32)], [], 0),
    ("cholesky", jnp.linalg.cholesky, [np.zeros((0, 3, 3), np.float32)], [], 0),
    ("det", jnp.linalg.det, [np.zeros((0, 3, 3), np.float32)], [], 0),
    ("solve", jnp.linalg.solve, [np.zeros((0, 3, 3), np.float32), np.zeros((0, 3), np.float32)], [], 0),
    ("svd", lambda a: jnp.linalg.svd(a)[1], [np.zeros((0, 3, 2), np.float32)], [], 0),
    ("eigh", lambda a: jnp.linalg.eigh(a)[0], [np.zeros((0, 2, 2), np.float32)], [], 0),
]


@pytest.mark.parametrize("name, fn, batched, unbatched, in_axes", _EMPTY_BATCH, ids=[c[0] for c in _EMPTY_BATCH])
def test_vmap_over_an_empty_batch(name, fn, batched, unbatched, in_axes):
    """vmap over a batch of 0 gives the empty batch of each lane's result (a
    loop over no lanes), eagerly and under jit. The scatter once aborted the
    process, the others failed to compile (a gather window of 1 on the
    size-0 axis, a conv with feature_group_count 0)."""
    one = [np.ones((1, *a.shape[1:]), a.dtype) if a.dtype.kind == "f" else np.zeros((1, *a.shape[1:]), a.dtype)
           for a in batched]
    lane = jaxc.vmap(fn, in_axes=in_axes)(*one, *unbatched)
    for run in (jaxc.vmap(fn, in_axes=in_axes), jaxc.jit(jaxc.vmap(fn, in_axes=in_axes))):
        out = run(*batched, *unbatched)
        assert out.shape == (0, *lane.shape[1:]) and out.dtype == lane.dtype


def test_scans_that_stack_empty_values():
    """A scan whose per-step values are empty stacks them into an empty
    array (the slice ops once rejected offset 0 on the size-0 axis), and
    reverse mode through it (its residuals are stacked too) gives empty
    gradients."""
    carry, ys = lax.scan(lambda c, t: (c + 1.0, c * 2.0), np.zeros((0,), np.float32), None, length=3)
    assert carry.shape == (0,) and ys.shape == (3, 0)
    total, ys = lax.scan(lambda c, t: (c + jnp.sum(t), t * 2.0), np.float32(1), np.zeros((3, 0), np.float32))
    assert float(total) == 1.0 and ys.shape == (3, 0)
    g = jaxc.grad(lambda x: jnp.sum(lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c), x)))(np.ones(0))
    assert g.shape == (0,)
    g = jaxc.grad(lambda a: jnp.sum(jnp.linalg.inv(a)))(np.zeros((0, 3, 3)))
    assert g.shape == (0, 3, 3)
    lanes = jaxc.vmap(lambda x: lax.scan(lambda c, t: (c + t, c), np.float32(0), x)[1])(np.zeros((0, 3), np.float32))
    assert lanes.shape == (0, 3)


@pytest.mark.parametrize("lhs_size, rhs_size, padding, dilation, expected", [
    (0, 1, (1, 0), 1, [0.0]), (0, 2, (2, 1), 1, [0.0, 0.0]), (0, 1, (1, 1), 2, [0.0, 0.0]),
    (3, 1, (-1, -2), 1, []), (3, 2, (1, -4), 1, [])])
def test_convolutions_over_empty_or_cropped_inputs(lhs_size, rhs_size, padding, dilation, expected):
    """Padding an empty spatial axis (once an insert_slice at an offset past
    the size-0 axis) or cropping the input away: JAX's shapes and zeros."""
    out = lax.conv_general_dilated(np.ones((1, 1, lhs_size), np.float32), np.ones((1, 1, rhs_size), np.float32),
                                   (1,), [padding], lhs_dilation=(dilation,))
    np.testing.assert_array_equal(out, np.reshape(expected, (1, 1, -1)))


# --- derivative conventions at kinks and ties ----------------------------------------

def _clamp_grads(lo, x, hi):
    return jaxc.grad(lambda a, b, c: lax.clamp(a, b, c), argnums=(0, 1, 2))(lo, x, hi)


# (name, function of the grad, arguments, JAX's derivative)
CONVENTIONS = [
    ("abs at 0", lambda g: g(jnp.abs), 0.0, 1.0),
    ("abs at -0", lambda g: g(jnp.abs), -0.0, 1.0),
    ("abs at -2", lambda g: g(jnp.abs), -2.0, -1.0),
    ("sqrt(abs) at 0", lambda g: g(lambda x: jnp.sqrt(jnp.abs(x))), 0.0, np.inf),
    ("maximum tie", lambda g: g(lambda x: jnp.maximum(x, 1.0)), 1.0, 0.5),
    ("minimum tie", lambda g: g(lambda x: jnp.minimum(x, 1.0)), 1.0, 0.5),
    ("maximum(x, x)", lambda g: g(lambda x: jnp.maximum(x, x)), 1.0, 1.0),
    ("clip at the top", lambda g: g(lambda x: jnp.clip(x, 0.0, 1.0)), 1.0, 0.5),
    ("clip at the bottom", lambda g: g(lambda x: jnp.clip(x, 0.0, 1.0)), 0.0, 0.5),
    ("relu at 0", lambda g: g(jaxc.nn.relu), 0.0, 0.0),
    ("relu at 1", lambda g: g(jaxc.nn.relu), 1.0, 1.0),
    ("relu6 at 0", lambda g: g(jaxc.nn.relu6), 0.0, 0.0),
    ("relu6 at 6", lambda g: g(jaxc.nn.relu6), 6.0, 0.0),
    ("relu6 at 3", lambda g: g(jaxc.nn.relu6), 3.0, 1.0),
    ("hard_sigmoid at 3", lambda g: g(jaxc.nn.hard_sigmoid), 3.0, 0.0),
    ("hard_silu at 3", lambda g: g(jaxc.nn.hard_silu), 3.0, 1.0),
    ("hard_silu at -3", lambda g: g(jaxc.nn.hard_silu), -3.0, 0.0),
    ("where at the switch", lambda g: g(lambda x: jnp.where(x > 0, x, 0.0)), 0.0, 0.0),
    ("sign", lambda g: g(jnp.sign), 0.0, 0.0),
]


@pytest.mark.parametrize("name, build, x, expected", CONVENTIONS, ids=[c[0] for c in CONVENTIONS])
def test_derivatives_at_kinks_follow_jax(name, build, x, expected):
    assert float(build(jaxc.grad)(x)) == expected


# lax.clamp(lo, x, hi): d/dlo, d/dx, d/dhi (JAX: x strictly inside gets it; lo where lo > x
# and lo < hi; hi where hi < x; a tie gives 0 to everyone)
CLAMP = [((0.0, 0.0, 1.0), (0, 0, 0)), ((0.0, 1.0, 1.0), (0, 0, 0)), ((0.0, 0.5, 1.0), (0, 1, 0)),
         ((0.0, -1.0, 1.0), (1, 0, 0)), ((0.0, 2.0, 1.0), (0, 0, 1)), ((1.0, 0.5, 0.0), (0, 0, 1)),
         ((1.0, 1.0, 1.0), (0, 0, 0)), ((1.0, 2.0, 0.0), (0, 0, 1))]


@pytest.mark.parametrize("args, expected", CLAMP)
def test_clamp_derivatives_follow_jax(args, expected):
    assert tuple(float(v) for v in _clamp_grads(*args)) == expected
    # forward mode agrees with reverse mode
    tangents = jaxc.jvp(lambda a, b, c: lax.clamp(a, b, c), args, (1.0, 0.0, 0.0))[1], \
        jaxc.jvp(lambda a, b, c: lax.clamp(a, b, c), args, (0.0, 1.0, 0.0))[1], \
        jaxc.jvp(lambda a, b, c: lax.clamp(a, b, c), args, (0.0, 0.0, 1.0))[1]
    assert tuple(float(t) for t in tangents) == expected


def test_reduction_ties_share_the_derivative():
    np.testing.assert_array_equal(jaxc.grad(jnp.max)(jnp.array([1.0, 1.0, 0.0])), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(jaxc.grad(jnp.amax)(jnp.array([2.0, 2.0, 2.0])), [1 / 3] * 3, rtol=1e-6)
    np.testing.assert_array_equal(jaxc.grad(lambda x: jnp.sort(x)[0])(jnp.array([1.0, 1.0])), [1.0, 0.0])


# x.at[i].max/min(u) at x = [1, 2, 3], i = [0, 0, 2], u = [1, 1, 3], loss sum(out * [1, 2, 3]):
# the operand and the updates tying for an element share its derivative (JAX 0.10.2's values)
SCATTER_TIES = {"max": ([1 / 3, 2.0, 1.5], [1 / 3, 1 / 3, 1.5]), "min": ([1 / 3, 2.0, 1.5], [1 / 3, 1 / 3, 1.5])}


def _scatter_tie_grads(grad, np_, kind):
    x, u = np_.array([1.0, 2.0, 3.0]), np_.array([1.0, 1.0, 3.0])
    i = np.array([0, 0, 2])
    return grad(lambda x, u: np_.sum(getattr(x.at[i], kind)(u) * np_.arange(1.0, 4.0)), argnums=(0, 1))(x, u)


@pytest.mark.parametrize("kind", sorted(SCATTER_TIES))
def test_scatter_min_max_ties_share_the_derivative(kind):
    dx, du = _scatter_tie_grads(jaxc.grad, jnp, kind)
    np.testing.assert_allclose(dx, SCATTER_TIES[kind][0], rtol=1e-6)
    np.testing.assert_allclose(du, SCATTER_TIES[kind][1], rtol=1e-6)
    # forward mode: the tangents of the tying contenders averaged
    x, u, i = jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 1.0, 3.0]), np.array([0, 0, 2])
    _, t = jaxc.jvp(lambda x, u: getattr(x.at[i], kind)(u), (x, u), (jnp.ones(3), 10 * jnp.ones(3)))
    np.testing.assert_allclose(t, [7.0, 1.0, 5.5], rtol=1e-6)
    # a dropped update (mode "drop") gets nothing, and the operand keeps its element
    dx, du = jaxc.grad(lambda x, u: jnp.sum(getattr(x.at[np.array([0, 5])], kind)(u, mode="drop")),
                       argnums=(0, 1))(x, jnp.array([7.0, 7.0]) * (1 if kind == "max" else -1))
    np.testing.assert_array_equal(dx, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(du, [1.0, 0.0])


def test_scatter_mul_gradients_need_unique_indices_as_in_jax():
    x, u, i = jnp.array([1.0, 2.0, 3.0]), jnp.array([2.0, 3.0, 4.0]), np.array([0, 0, 2])
    # in the operand: always (x scaled by the updates)
    np.testing.assert_array_equal(jaxc.grad(lambda x: jnp.sum(x.at[i].mul(u) * jnp.arange(3.0)))(x), [0.0, 1.0, 8.0])
    # in the updates: only under the promise of unique indices (then d(x * u)/du = x)
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        jaxc.grad(lambda u: jnp.sum(x.at[i].mul(u)))(u)
    np.testing.assert_array_equal(jaxc.grad(lambda u: jnp.sum(x.at[i].mul(u, unique_indices=True)))(u),
                                  [1.0, 1.0, 3.0])


def test_conventions_match_jax_itself():
    """The tables above, recomputed with JAX (when installed)."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jjnp
    mapping = {jnp.abs: jjnp.abs, jnp.sign: jjnp.sign, jaxc.nn.relu: jax.nn.relu,
               jaxc.nn.relu6: jax.nn.relu6, jaxc.nn.hard_sigmoid: jax.nn.hard_sigmoid,
               jaxc.nn.hard_silu: jax.nn.hard_silu}
    for name, build, x, expected in CONVENTIONS:
        def jax_grad(f):
            if f in mapping:
                return jax.grad(mapping[f])
            # the lambdas use jnp: run them with JAX's numpy in their globals
            code = f.__code__
            return jax.grad(type(f)(code, {**f.__globals__, "jnp": jjnp}, closure=f.__closure__))
        assert float(build(jax_grad)(x)) == expected, name
    for args, expected in CLAMP:
        got = jax.grad(lambda a, b, c: jax.lax.clamp(a, b, c), argnums=(0, 1, 2))(*args)
        assert tuple(float(v) for v in got) == expected
    for kind, (dx, du) in SCATTER_TIES.items():
        got = _scatter_tie_grads(jax.grad, jjnp, kind)
        np.testing.assert_allclose(got[0], dx, rtol=1e-6)
        np.testing.assert_allclose(got[1], du, rtol=1e-6)


# --- the Python API with bad input -------------------------------------------------------

def test_jit_rejects_argnums_and_argnames_the_function_lacks():
    with pytest.raises(ValueError, match=r"static_argnums=\(5,\), but only accepts 1 positional"):
        jaxc.jit(lambda x: x, static_argnums=5)
    with pytest.raises(ValueError, match=r"static_argnums=\(-2,\)"):
        jaxc.jit(lambda x: x, static_argnums=-2)
    with pytest.raises(ValueError, match=r"donate_argnums=\(3,\)"):
        jaxc.jit(lambda x, y: x, donate_argnums=3)
    with pytest.raises(ValueError, match=r"invalid argnames \{'y'\} in static_argnames"):
        jaxc.jit(lambda x: x, static_argnames="y")
    # what JAX accepts: -1, *args, **kwargs, builtins without a signature
    assert float(jaxc.jit(lambda x, n: x * n, static_argnums=-1)(2.0, 3)) == 6.0
    assert float(jaxc.jit(lambda *xs: xs[0] + xs[1], static_argnums=1)(2.0, 3)) == 5.0
    assert float(jaxc.jit(lambda x, **kw: x * kw["y"], static_argnames="y")(2.0, y=4)) == 8.0
    jaxc.jit(max, static_argnums=5)


@pytest.mark.parametrize("value", ["abc", b"ab", None, object(), {}, {1}])
@pytest.mark.parametrize("fn", ["sin", "add", "sum"])
def test_non_arrays_are_type_errors_naming_the_function(value, fn):
    f = getattr(jnp, fn)
    with pytest.raises(TypeError, match=rf"jnp\.{fn} requires ndarray or scalar arguments, got <class"):
        f(value, 1.0) if fn == "add" else f(value)


def test_asarray_of_none_is_a_value_error_as_in_jax():
    with pytest.raises(ValueError, match=r"None is not a valid value for jnp\.(as)?array"):
        jnp.asarray(None)
    with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
        jnp.array(None)


def test_array_protocols_as_in_jax():
    """``__jax_array__`` objects are arrays to every jnp function;
    ``__array__`` ones only to jnp.asarray/array (JAX refuses them elsewhere)."""
    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(3.0, dtype=np.float32)

    class HasJaxArray:
        def __jax_array__(self):
            return jnp.arange(3.0)

    np.testing.assert_allclose(jnp.sin(jnp.asarray(HasArray())), np.sin(np.arange(3.0)), rtol=1e-6)
    with pytest.raises(TypeError, match="jnp.sin requires ndarray or scalar arguments"):
        jnp.sin(HasArray())
    np.testing.assert_allclose(jnp.add(HasJaxArray(), 1.0), np.arange(3.0) + 1)


# --- threads -------------------------------------------------------------------------------

def test_many_threads_call_jitted_functions_and_eager_ops():
    """8 threads at once: one fresh jit function that all of them call first
    (one trace and compile), functions of their own, and eager ops; every
    result is right and the shared function was traced once."""
    traces = []

    def shared(x):
        traces.append(1)
        return jnp.sin(x) * 2.0 + 1.0

    shared_jit = jaxc.jit(shared)
    start = threading.Barrier(8)
    errors: list[BaseException] = []
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((64,)).astype(np.float32) for _ in range(8)]

    def worker(i: int) -> None:
        try:
            x = inputs[i]
            own = jaxc.jit(lambda v, k=i: v * k - jnp.cos(v))
            start.wait()
            for _ in range(40):
                np.testing.assert_allclose(shared_jit(x), np.sin(x) * 2 + 1, rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(own(x), x * i - np.cos(x), rtol=1e-5, atol=1e-5)
                np.testing.assert_allclose(jnp.exp(x) + i, np.exp(x) + i, rtol=1e-5)
                np.testing.assert_allclose(jnp.sum(jnp.asarray(x) * 2), (x * 2).sum(), rtol=1e-4, atol=1e-4)
        except BaseException as error:  # noqa: BLE001 -- reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hangs"
    assert not errors, errors[0]
    assert len(traces) == 1


def test_outer_product_fused_into_a_broadcast():
    """Found by the property tests: a dot_general without contracting dims
    (an outer product, the transpose of a vector product) lowered to a
    generic that accumulated into its init; fused into a broadcasting
    consumer it added once per broadcast element (jit gave 2x, 3x, ...)."""
    s, v = np.float32(1), np.array([1.0, 2.0, 3.0], np.float32)
    f = lambda s, v: lax.broadcast_in_dim(lax.dot_general(s, v, (((), ()), ((), ()))), (3, 2), (0,))  # noqa: E731
    np.testing.assert_array_equal(jaxc.jit(f)(s, v), [[1, 1], [2, 2], [3, 3]])
    ones = jnp.ones((3, 2))
    np.testing.assert_array_equal(jaxc.grad(lambda x: jnp.dot(jnp.sum(x, axis=0), jnp.ones(2)))(ones), np.ones((3, 2)))
    np.testing.assert_array_equal(jaxc.grad(lambda x: jnp.dot(jnp.sum(x, axis=1), jnp.ones(3)))(ones), np.ones((3, 2)))
    a, b = np.arange(12.0, dtype=np.float32).reshape(4, 3), np.arange(20.0, dtype=np.float32).reshape(4, 5)
    batched = jaxc.jit(lambda a, b: lax.dot_general(a, b, (((), ()), ((0,), (0,)))) + 1)(a, b)
    np.testing.assert_array_equal(batched, np.einsum("bi,bj->bij", a, b) + 1)


def _growth(call, warmup: int = 20, calls: int = 300) -> int:
    """Bytes still allocated (tracemalloc: Python objects and NumPy buffers)
    after `calls` more calls than a warmed-up baseline."""
    import gc
    import tracemalloc

    for _ in range(warmup):
        call()
    jaxc.effects_barrier()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(calls):
            call()
        jaxc.effects_barrier()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("what", ["jit", "eager op", "array creation", "grad under jit"])
def test_no_memory_growth_per_call(what):
    """Each call's arrays are freed: 300 calls leave less than one call's
    worth of 4 KiB results behind (a leak of one result per call would
    leave 1.2 MB)."""
    x = jaxc.device_put(np.ones(1024, np.float32))
    f = jaxc.jit(lambda v: jnp.sin(v) * 2.0 + v)
    g = jaxc.jit(jaxc.grad(lambda v: jnp.sum(jnp.tanh(v) ** 2)))
    calls = {
        "jit": lambda: f(x).block_until_ready(),
        "eager op": lambda: (jnp.exp(x) + 1.0).block_until_ready(),
        "array creation": lambda: jnp.asarray(np.arange(1024, dtype=np.float32)).block_until_ready(),
        "grad under jit": lambda: g(x).block_until_ready(),
    }
    assert _growth(calls[what]) < 64 * 1024
