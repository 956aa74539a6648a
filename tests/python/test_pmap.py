"""pmap on N CPU devices: one per-device program run on N threads at once,
collectives through the SPMD runtime (docs/parallel.md).

Every collective is checked against NumPy and against the same function
under vmap (whose expansion of the collectives is the reference), for
several in/out axes; gradients inside pmap against closed forms; the
nesting with vmap, jit and grad; the sharding of the results; errors.
"""
import subprocess
import sys

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

N = 4


@pytest.fixture(autouse=True)
def four_devices():
    before = jaxc.config.jax_num_cpu_devices
    jaxc.config.update("jax_num_cpu_devices", N)
    yield
    jaxc.config.update("jax_num_cpu_devices", before)


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def both(f, *args, **kwargs):
    """pmap(f) and vmap(f) (the reference) on the same arguments."""
    p = jaxc.pmap(f, **kwargs)(*args)
    v = jaxc.vmap(f, **kwargs)(*args)
    return p, v


# ---------------------------------------------------------------------------
# Collectives
# ---------------------------------------------------------------------------

REDUCTIONS = [
    ("psum", lambda x: x.sum(0, dtype=x.dtype), [np.float32, np.float64, np.int32, np.uint8]),
    ("pmean", lambda x: x.mean(0), [np.float32, np.float64]),
    ("pmax", lambda x: x.max(0), [np.float32, np.int32, np.int8, np.uint16]),
    ("pmin", lambda x: x.min(0), [np.float32, np.int64, np.uint32]),
]


@pytest.mark.parametrize("name,reference,types", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions_match_numpy_and_vmap(x64, name, reference, types):
    collective = getattr(lax, name)
    for dtype in types:
        x = (rand(N, 3, 5) * 20).astype(dtype)
        p, v = both(lambda a: collective(a, "i"), x, axis_name="i")
        expected = np.broadcast_to(reference(x), x.shape)
        np.testing.assert_allclose(np.asarray(p), expected, rtol=1e-6, err_msg=f"{name} {dtype}")
        np.testing.assert_allclose(np.asarray(p), np.asarray(v), rtol=1e-6)
        assert p.dtype == v.dtype


def test_reductions_of_half_precision_and_booleans():
    x = rand(N, 7).astype(np.float16)
    p = jaxc.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(x)
    assert p.dtype == np.float16
    np.testing.assert_allclose(np.asarray(p, np.float32), np.broadcast_to(x.astype(np.float32).sum(0), x.shape),
                               rtol=2e-3)
    b = rand(N, 6) > 0
    np.testing.assert_array_equal(np.asarray(jaxc.pmap(lambda a: lax.pmax(a, "i"), axis_name="i")(b)),
                                  np.broadcast_to(b.any(0), b.shape))
    np.testing.assert_array_equal(np.asarray(jaxc.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(b)),
                                  np.broadcast_to(b.sum(0), b.shape))


def test_pmax_propagates_nan():
    x = rand(N, 3)
    x[2, 1] = np.nan
    out = np.asarray(jaxc.pmap(lambda a: lax.pmax(a, "i"), axis_name="i")(x))
    assert np.isnan(out[:, 1]).all() and not np.isnan(out[:, [0, 2]]).any()


@pytest.mark.parametrize("axis,tiled", [(0, False), (1, False), (2, False), (0, True), (1, True)])
def test_all_gather(axis, tiled):
    x = rand(N, 3, 2)
    p, v = both(lambda a: lax.all_gather(a, "i", axis=axis, tiled=tiled), x, axis_name="i")
    stacked = np.stack(list(x), axis) if not tiled else np.concatenate(list(x), axis)
    for lane in range(N):
        np.testing.assert_array_equal(np.asarray(p)[lane], stacked)
    np.testing.assert_array_equal(np.asarray(p), np.asarray(v))


@pytest.mark.parametrize("split,concat,tiled", [(0, 0, True), (0, 1, True), (1, 0, True), (0, 0, False),
                                                (0, 1, False), (1, 0, False)])
def test_all_to_all(split, concat, tiled):
    shape = [N * 2, 3] if tiled else [N, 3]
    if split == 1:
        shape = shape[::-1]
    x = rand(N, *shape)
    p, v = both(lambda a: lax.all_to_all(a, "i", split, concat, tiled=tiled), x, axis_name="i")
    np.testing.assert_array_equal(np.asarray(p), np.asarray(v))
    # NumPy: lane l gets chunk l of every lane's split axis, in lane order along concat
    for lane in range(N):
        chunks = [np.array_split(x[s], N, axis=split)[lane] for s in range(N)]
        if tiled:
            expected = np.concatenate(chunks, concat)
        else:
            expected = np.stack([c.squeeze(split) for c in chunks], concat)
        np.testing.assert_array_equal(np.asarray(p)[lane], expected)


@pytest.mark.parametrize("perm", [[(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 3), (3, 0)], [(1, 1)]])
def test_ppermute(perm):
    x = rand(N, 5).astype(np.float64)
    p, v = both(lambda a: lax.ppermute(a, "i", perm), x, axis_name="i")
    expected = np.zeros_like(x)
    for s, d in perm:
        expected[d] = x[s]
    np.testing.assert_array_equal(np.asarray(p), expected.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(p), np.asarray(v))


def test_axis_index_and_psum_scatter():
    x = rand(N, N * 3)
    p, v = both(lambda a: (lax.axis_index("i"), lax.psum_scatter(a, "i", tiled=True)), x, axis_name="i")
    np.testing.assert_array_equal(np.asarray(p[0]), np.arange(N))
    total = x.sum(0)
    for lane in range(N):
        np.testing.assert_allclose(np.asarray(p[1])[lane], total[lane * 3:(lane + 1) * 3], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(p[1]), np.asarray(v[1]), rtol=1e-6)


@pytest.mark.parametrize("groups", [[[0, 2], [1, 3]], [[3, 0], [2, 1]], [[0, 1, 2, 3]]])
def test_axis_index_groups(groups):
    """Each member reduces / gathers within its group (in the group's order);
    the values of JAX's pmap (checked against JAX 0.10 once)."""
    x = rand(N, 3)
    group_of = {m: g for g in groups for m in g}
    for name, reduce in (("psum", np.sum), ("pmax", np.max), ("pmin", np.min), ("pmean", np.mean)):
        p, v = both(lambda a, name=name: getattr(lax, name)(a, "i", axis_index_groups=groups), x, axis_name="i")
        expected = np.stack([reduce(x[group_of[m]], 0) for m in range(N)])
        np.testing.assert_allclose(np.asarray(p), expected, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(np.asarray(v), expected, rtol=1e-6, err_msg=name)
    ints = jaxc.pmap(lambda a: lax.psum(a, "i", axis_index_groups=groups), axis_name="i")(np.arange(N))
    np.testing.assert_array_equal(np.asarray(ints), [sum(group_of[m]) for m in range(N)])
    size = jaxc.pmap(lambda a: a * lax.psum(1, "i", axis_index_groups=groups), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(size), x * len(groups[0]), rtol=1e-6)
    for tiled in (False, True):
        p, v = both(lambda a: lax.all_gather(a, "i", axis_index_groups=groups, axis=0, tiled=tiled), x,
                    axis_name="i")
        expected = np.stack([x[group_of[m]] for m in range(N)])  # (member, group member, 3)
        if tiled:
            expected = expected.reshape(N, -1)  # concatenated along the rows' one dim
        np.testing.assert_array_equal(np.asarray(p), expected)
        np.testing.assert_array_equal(np.asarray(v), expected)
    # psum_scatter: the group's sum, chunk k to the group's k-th member
    rows = rand(N, len(groups[0]) * 2, seed=1)
    for tiled in (False, True):
        arg = rows if tiled else rows[:, :len(groups[0])]
        p, v = both(lambda a: lax.psum_scatter(a, "i", scatter_dimension=0, axis_index_groups=groups,
                                               tiled=tiled), arg, axis_name="i")
        chunk = 2 if tiled else 1
        position = {m: g.index(m) for g in groups for m in g}
        expected = np.stack([arg[group_of[m]].sum(0)[position[m] * chunk:(position[m] + 1) * chunk]
                             for m in range(N)])
        expected = expected if tiled else expected[:, 0]
        np.testing.assert_allclose(np.asarray(p), expected, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(v), expected, rtol=1e-5)
    # all_to_all: chunk k of each group member's split axis to the group's k-th member,
    # concatenated in the group's order
    blocks = rand(N, len(groups[0]) * 2, 3, seed=2)
    p, v = both(lambda a: lax.all_to_all(a, "i", 0, 1, axis_index_groups=groups, tiled=True), blocks,
                axis_name="i")
    expected = np.stack([np.concatenate([blocks[q][position[m] * 2:position[m] * 2 + 2] for q in group_of[m]], 1)
                         for m in range(N)])
    np.testing.assert_array_equal(np.asarray(p), expected)
    np.testing.assert_array_equal(np.asarray(v), expected)
    # the gradient of a grouped psum: the group's cotangents summed
    g = jaxc.pmap(jaxc.grad(lambda a: jnp.sum(jnp.sin(lax.psum(a, "i", axis_index_groups=groups)))),
                  axis_name="i")(x)
    sums = np.stack([x[group_of[m]].sum(0) for m in range(N)])
    np.testing.assert_allclose(np.asarray(g), np.stack([np.cos(sums[group_of[m]]).sum(0) for m in range(N)]),
                               rtol=1e-5)


def test_repeated_calls_take_the_fast_path_with_the_first_calls_results():
    """A call whose arguments are all arrays, with a signature seen before,
    skips the checks and the tracing-cache key (PmapFunction._fast_key)."""
    f = jaxc.pmap(lambda a, b: a * b + 1, axis_name="i")
    x = rand(N, 3)
    first = np.asarray(f(x, {"b": x}["b"]))
    assert len(f._fast) == 1
    np.testing.assert_array_equal(np.asarray(f(x, x)), first)
    # float64 NumPy arguments are converted as on the first call (x64 off), a program per signature
    wide = f(x.astype(np.float64), x)
    assert wide.dtype == np.float32 and len(f._fast) == 2
    np.testing.assert_array_equal(np.asarray(f(x.astype(np.float64), x)), first)
    # a weak-typed argument is a signature of its own: its result stays weak
    g = jaxc.pmap(lambda a: a * 2)
    weak = jaxc.jit(lambda: jnp.full((N,), 1.5))()
    strong = jnp.asarray(np.full((N,), 1.5, np.float32))
    assert weak.weak_type and not strong.weak_type
    assert g(weak).weak_type and not g(strong).weak_type
    assert g(weak).weak_type and not g(strong).weak_type  # the fast path, both
    assert len(g._fast) == 2
    # a pmap result fed back (device arrays) and another shape each get their entry
    np.testing.assert_array_equal(np.asarray(f(f(x, x), x)), first * x + 1)
    np.testing.assert_array_equal(np.asarray(f(x[:2], x[:2])), first[:2])


def test_several_collectives_in_one_program():
    """Lanes meet at every collective in order, in loops too (fori_loop)."""
    def f(a):
        def body(i, c):
            return lax.ppermute(c, "i", [(k, (k + 1) % N) for k in range(N)]) + lax.pmean(c, "i")
        return lax.fori_loop(0, 5, body, a) / lax.psum(1, "i")
    x = rand(N, 4)
    p, v = both(f, x, axis_name="i")
    np.testing.assert_allclose(np.asarray(p), np.asarray(v), rtol=1e-5)


def test_a_branch_with_a_collective_is_run_by_every_lane():
    """A cond whose predicate differs between the lanes and whose branch
    holds a collective: lanes that skipped it would leave the others waiting
    forever (JAX's XLA aborts after 40 s). Every lane runs every branch of
    such a cond and keeps its own branch's values: vmap's values."""
    x = np.array([[1.0, 2.0], [-1.0, 3.0], [2.0, -2.0], [-3.0, 1.0]], np.float32)

    def two(v):
        return lax.cond(v[0] > 0, lambda: lax.psum(v, "i"), lambda: v * 10)

    def three(v):
        index = (v[0] > 0).astype(jnp.int32) + (v[1] > 2).astype(jnp.int32)
        return lax.switch(index, [lambda: v, lambda: lax.pmax(v, "i"), lambda: lax.all_gather(v, "i").sum(0) * 2])
    for f in (two, three):
        p, v = both(f, x, axis_name="i")
        np.testing.assert_allclose(np.asarray(p), np.asarray(v), rtol=1e-6)
    # the psum is over every lane's v: each lane ran the branch (as under vmap)
    np.testing.assert_allclose(np.asarray(both(two, x, axis_name="i")[0]),
                               [x.sum(0), x[1] * 10, x.sum(0), x[3] * 10])
    ir = jaxc.pmap(two, axis_name="i").lower(x).as_text(stage="optimized")
    assert "jaxc.cond" not in ir and "jaxc.select" in ir  # both branches, then this lane's


def test_a_loop_with_a_collective_runs_while_any_lane_needs_it():
    """A while_loop whose trip count differs between the lanes and whose body
    holds a collective: it runs while any lane's predicate holds, a lane
    whose own is false keeping its carry (vmap's values; nested in a cond
    too)."""
    x = np.array([1.0, 3.0, 2.0, 5.0], np.float32)

    def loop(v):
        def body(c):
            i, y = c
            return i + 1, y + lax.psum(y, "i") * 0.01
        return lax.while_loop(lambda c: c[0] < v, body, (jnp.float32(0), v))[1]
    p, v = both(loop, x, axis_name="i")
    np.testing.assert_allclose(np.asarray(p), np.asarray(v), rtol=1e-6)
    nested = lambda v: lax.cond(v > 1.5, lambda: loop(v), lambda: lax.pmean(v, "i"))  # noqa: E731
    p, v = both(nested, x, axis_name="i")
    np.testing.assert_allclose(np.asarray(p), np.asarray(v), rtol=1e-6)
    ir = jaxc.pmap(loop, axis_name="i").lower(x).as_text(stage="optimized")
    assert 'jaxc.pmax' in ir  # the loop's predicate over every lane


# ---------------------------------------------------------------------------
# Axes, pytrees, static arguments
# ---------------------------------------------------------------------------

def test_in_and_out_axes_pytrees_and_kwargs():
    params = {"w": rand(3, 2), "b": rand(2, seed=1)}
    xs = rand(5, N, 3, seed=2)  # mapped over axis 1

    def f(params, x, scale=1.0):
        return {"y": (x @ params["w"] + params["b"]) * scale, "n": lax.psum(jnp.sum(x), "i")}
    out = jaxc.pmap(f, axis_name="i", in_axes=(None, 1), out_axes={"y": 1, "n": None})(params, xs)
    assert out["y"].shape == (5, N, 2) and out["n"].shape == ()
    expected = np.einsum("bld,dk->blk", xs, params["w"]) + params["b"]
    np.testing.assert_allclose(np.asarray(out["y"]), expected, rtol=1e-5)
    np.testing.assert_allclose(float(out["n"]), xs.sum(), rtol=1e-5)
    scaled = jaxc.pmap(f, axis_name="i", in_axes=(None, 1))(params, xs, scale=np.full((N,), 2.0, np.float32))
    np.testing.assert_allclose(np.asarray(scaled["y"]), 2 * np.moveaxis(expected, 1, 0), rtol=1e-5)


def test_static_broadcasted_argnums_and_axis_size():
    f = jaxc.pmap(lambda x, n, y: x * n + y, static_broadcasted_argnums=(1,), in_axes=(0, None))
    x = rand(N, 3)
    np.testing.assert_allclose(np.asarray(f(x, 3, np.float32(1))), x * 3 + 1, rtol=1e-6)
    assert np.asarray(f(x, 2, np.float32(0))).tolist() == (x * 2).tolist()
    g = jaxc.pmap(lambda: lax.axis_index("i") * 2, axis_name="i", axis_size=3)
    np.testing.assert_array_equal(np.asarray(g()), [0, 2, 4])


def test_fewer_lanes_than_devices_and_explicit_devices():
    x = rand(2, 3)
    out = jaxc.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(x)
    assert out.devices() == set(jaxc.devices()[:2])
    chosen = [jaxc.devices()[3], jaxc.devices()[1]]
    out = jaxc.pmap(lambda a: a + lax.axis_index("i"), axis_name="i", devices=chosen)(x)
    assert [s.device for s in out.addressable_shards] == chosen
    np.testing.assert_allclose(np.asarray(out), x + np.arange(2)[:, None])


# ---------------------------------------------------------------------------
# Gradients and nesting
# ---------------------------------------------------------------------------

def test_grad_inside_pmap_transposes_the_collectives():
    x = rand(N, 3) + 2
    # psum's transpose is psum: every lane's output depends on every input
    g = jaxc.pmap(jaxc.grad(lambda v: lax.psum(v ** 2, "i").sum()), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(g), 2 * N * x, rtol=1e-5)
    g = jaxc.pmap(jaxc.grad(lambda v: lax.pmean(v ** 2, "i").sum()), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(g), 2 * x, rtol=1e-5)
    weights = np.arange(1.0, N + 1, dtype=np.float32)[:, None]
    g = jaxc.pmap(jaxc.grad(lambda v: (lax.all_gather(v, "i") * weights).sum()), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(g), N * np.broadcast_to(weights, x.shape), rtol=1e-6)
    ring = [(k, (k + 1) % N) for k in range(N)]
    g = jaxc.pmap(jaxc.grad(lambda v: (lax.ppermute(v, "i", ring) * (lax.axis_index("i") + 1)).sum()),
                  axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(g), np.broadcast_to(((np.arange(N) + 1) % N + 1)[:, None], x.shape))
    g = jaxc.pmap(jaxc.grad(lambda v: (lax.all_to_all(v, "i", 0, 0, tiled=True) * weights[:, 0]).sum()),
                  axis_name="i")(rand(N, N))
    np.testing.assert_allclose(np.asarray(g), np.broadcast_to(weights, (N, N)), rtol=1e-6)
    with pytest.raises(Exception, match="pmax and pmin are not differentiable"):
        jaxc.pmap(jaxc.grad(lambda v: lax.pmax(v, "i").sum()), axis_name="i")(x)


def test_data_parallel_training_step_matches_the_full_batch():
    rng = np.random.RandomState(0)
    params = {"w": rng.randn(3, 2).astype(np.float32), "b": np.zeros(2, np.float32)}
    xs, ys = rng.randn(N, 8, 3).astype(np.float32), rng.randn(N, 8, 2).astype(np.float32)

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p["w"] + p["b"]) - y) ** 2)

    def step(p, x, y):
        grads = lax.pmean(jaxc.grad(loss)(p, x, y), "i")
        return jaxc.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)
    replicated = jaxc.tree_util.tree_map(lambda a: np.stack([a] * N), params)
    p = replicated
    for _ in range(3):
        p = jaxc.pmap(step, axis_name="i")(p, xs, ys)
    q = params
    for _ in range(3):
        grads = jaxc.grad(loss)(q, xs.reshape(-1, 3), ys.reshape(-1, 2))
        q = jaxc.tree_util.tree_map(lambda a, g: a - 0.1 * g, q, grads)
    for name in params:
        for lane in range(N):
            np.testing.assert_allclose(np.asarray(p[name])[lane], np.asarray(q[name]), rtol=2e-5, atol=1e-6)


def test_vmap_inside_and_outside_pmap():
    x = rand(N, 5, 3)
    inner = jaxc.pmap(jaxc.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="j"), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(inner), np.broadcast_to(x.sum((0, 1)), x.shape), rtol=1e-5)
    inner_only = jaxc.pmap(jaxc.vmap(lambda v: lax.psum(v, "i") - lax.psum(v, "j"), axis_name="j"),
                           axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(inner_only), x.sum(0)[None] - x.sum(1)[:, None], rtol=1e-5, atol=1e-5)
    stacked = np.stack([x[:, 0], x[:, 1]])
    outer = jaxc.vmap(jaxc.pmap(lambda v: lax.psum(v, "i"), axis_name="i"))(stacked)
    np.testing.assert_allclose(np.asarray(outer), np.broadcast_to(stacked.sum(1, keepdims=True), stacked.shape),
                               rtol=1e-5)


def test_pmap_under_jit_and_grad_means_the_same():
    x = rand(N, 3)
    f = jaxc.pmap(lambda v: v * lax.psum(v, "i"), axis_name="i")
    np.testing.assert_allclose(np.asarray(jaxc.jit(f)(x)), np.asarray(f(x)), rtol=1e-6)
    g = jaxc.grad(lambda v: f(v).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.broadcast_to(2 * x.sum(0), x.shape), rtol=1e-5)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

def test_results_are_sharded_over_the_devices():
    x = rand(N, 2, 3)
    out = jaxc.pmap(lambda a: a * 2, out_axes=0)(x)
    sharding = out.sharding
    assert type(sharding).__name__ == "PmapSharding" and sharding.num_devices == N
    assert out.devices() == set(jaxc.devices()) and not out.is_fully_replicated
    assert sharding.shard_shape(out.shape) == (2, 3)
    shards = out.addressable_shards
    assert [s.device for s in shards] == jaxc.devices()
    for lane, shard in enumerate(shards):
        assert shard.index[0] == lane and shard.data.shape == (2, 3)
        np.testing.assert_array_equal(np.asarray(shard.data), x[lane] * 2)
        assert shard.data.device is jaxc.devices()[lane]
    np.testing.assert_array_equal(np.asarray(out.addressable_data(1)), x[1] * 2)
    # later eager ops and other pmaps read it
    np.testing.assert_allclose(np.asarray(out + 1), x * 2 + 1)
    again = jaxc.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(out)
    np.testing.assert_allclose(np.asarray(again), np.broadcast_to((x * 2).sum(0), x.shape), rtol=1e-5)
    assert jaxc.jit(lambda a: a.sum())(x).sharding.num_devices == 1


def test_the_per_device_program_is_shown_and_compiled_once():
    f = jaxc.pmap(lambda a: lax.psum(a, "i") * 2, axis_name="i")
    x = rand(N, 3)
    lowered = f.lower(x)
    text = lowered.as_text()
    assert "jaxc.spmd_axes = [[\"i\", 4]]" in text and "jaxc.psum" in text
    assert "tensor<3xf32>" in text and "tensor<4x3xf32>" not in text
    llvm = lowered.as_text(stage="linalg")
    assert "call @jaxc_spmd_all_reduce__0" in llvm and "jaxc.psum" not in llvm
    from jaxc.runtime import cpu
    f(x)
    before = cpu.compile_count
    f(x + 1)
    f(x * 3)
    assert cpu.compile_count == before


def test_lower_compile_runs_ahead_of_time_on_the_dynamic_arguments():
    f = jaxc.pmap(lambda a, n, b: {"s": lax.psum(a * n, "i"), "b": b + n}, axis_name="i",
                  in_axes=(0, None), static_broadcasted_argnums=(1,))
    x, b = rand(N, 3), rand(2, seed=1)
    compiled = f.lower(x, 3, b).compile()
    assert isinstance(compiled, jaxc.stages.Compiled)
    from jaxc.runtime import cpu
    before = cpu.compile_count
    out = compiled(x, b)
    out2 = compiled(x + 1, b)  # other values of the same signature: nothing compiled
    assert cpu.compile_count == before
    np.testing.assert_allclose(out["s"], np.broadcast_to(3 * x.sum(0), (N, 3)), rtol=1e-5)
    np.testing.assert_allclose(out2["s"], np.broadcast_to(3 * (x + 1).sum(0), (N, 3)), rtol=1e-5)
    np.testing.assert_allclose(out["b"], np.broadcast_to(b + 3, (N, 2)), rtol=1e-6)
    assert isinstance(out["s"].sharding, jaxc.sharding.PmapSharding)
    assert [s.device for s in out["s"].addressable_shards] == jaxc.devices()[:N]
    np.testing.assert_allclose(jaxc.pmap(lambda y: y + 1)(out["s"]), out["s"] + 1)  # a pmap reads it
    assert "jaxc.psum" in compiled.as_text() and compiled.cost_analysis()["flops"] > 0
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled(x, 3, b)  # the static argument is part of the program
    with pytest.raises(TypeError, match=r"Argument 'args\[0\]' compiled with float32\[4,3\] and called "
                                        r"with float32\[4,2\]"):
        compiled(x[:, :2], b)
    with pytest.raises(TypeError, match=r"Argument 'args\[1\]' compiled with float32\[2\] and called "
                                        r"with int32\[2\]"):
        compiled(x, np.ones(2, np.int32))
    with pytest.raises(ValueError, match="runs on several devices"):
        f.lower(x, 3, b).export("/nonexistent/never-written")


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_errors():
    x = rand(N, 3)
    with pytest.raises(ValueError, match="requires 6 logical devices, but only 4"):
        jaxc.pmap(lambda a: a)(rand(6, 3))
    with pytest.raises(ValueError, match="pmap got inconsistent sizes"):
        jaxc.pmap(lambda a, b: a + b)(x, rand(3, 3))
    with pytest.raises(NameError, match="unbound axis name: j"):
        jaxc.pmap(lambda a: lax.psum(a, "j"), axis_name="i")(x)
    with pytest.raises(ValueError, match="mapped axis has size 4 but 2 devices"):
        jaxc.pmap(lambda a: a, devices=jaxc.devices()[:2])(x)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jaxc.pmap(lambda a, s: a, static_broadcasted_argnums=1)(x, [1, 2])
    with pytest.raises(ValueError, match="must have at least one non-None value in in_axes"):
        jaxc.pmap(lambda a: a, in_axes=None)(x)
    with pytest.raises(ValueError, match="pmap was requested to map its argument along axis 2"):
        jaxc.pmap(lambda a: a, in_axes=2)(x)
    with pytest.raises(TypeError, match="must be callable"):
        jaxc.pmap(3)
    with pytest.raises(ValueError, match="CPU devices"):
        jaxc.pmap(lambda a: a, devices=["cpu:0"])


def test_a_collective_outside_pmap_is_an_error_at_its_location():
    text = """
module {
  func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}"""
    from jaxc.runtime import CompileError, compile_module
    with pytest.raises(CompileError, match=r"loc\(.*4:10\).*'jaxc.psum' over the axes \['i'\]: a collective runs only "
                                           r"inside a mapped computation"):
        compile_module(text)


def test_num_cpu_devices_from_the_environment():
    """JAX_NUM_CPU_DEVICES and XLA's --xla_force_host_platform_device_count."""
    code = ("import jaxc, numpy as np; from jaxc import lax; "
            "print(jaxc.device_count(), jaxc.pmap(lambda a: lax.psum(a, 'i'), axis_name='i')"
            "(np.ones((jaxc.device_count(), 2), np.float32)).tolist()[0])")
    for env in ({"JAX_NUM_CPU_DEVICES": "3"}, {"XLA_FLAGS": "--xla_force_host_platform_device_count=5"}):
        import os
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        count = int(next(iter(env.values()))[-1])
        assert out.stdout.split()[0] == str(count)
        assert f"[{float(count)}, {float(count)}]" in out.stdout


def test_concurrent_calls_each_get_all_their_lanes():
    """The lanes run on pooled worker threads: calls from several threads at
    once (each needing every one of its lanes running) must not share them."""
    import threading
    f = jaxc.pmap(lambda a: lax.psum(a, "i") + lax.axis_index("i"), axis_name="i")
    xs = [rand(N, 5, seed=s) for s in range(4)]
    expected = [np.broadcast_to(x.sum(0), x.shape) + np.arange(N)[:, None] for x in xs]
    errors = []

    def work(k):
        try:
            for _ in range(20):
                np.testing.assert_allclose(np.asarray(f(xs[k])), expected[k], rtol=1e-5)
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors[0]
    assert not any(t.is_alive() for t in threads)
