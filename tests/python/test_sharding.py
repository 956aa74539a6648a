"""jaxc.sharding and shard_map on a mesh of CPU devices (docs/parallel.md).

shard_map runs as one per-device program on mesh.size threads (collectives
within groups of the mesh); inside jit it is nested vmaps. Every case is
checked three ways: the SPMD run, the same under jit (the vmap form, the
reference) and NumPy.
"""
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax, nn as jax_nn
from jaxc.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding


@pytest.fixture(autouse=True)
def eight_devices():
    before = jaxc.config.jax_num_cpu_devices
    jaxc.config.update("jax_num_cpu_devices", 8)
    yield
    jaxc.config.update("jax_num_cpu_devices", before)


@pytest.fixture
def mesh():
    return jaxc.make_mesh((2, 4), ("x", "y"))


def rand(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def three_ways(f, *args, rtol=1e-5):
    """shard_map run on the devices, and under jit; both must agree."""
    spmd = f(*args)
    traced = jaxc.jit(f)(*args)
    for a, b in zip(jaxc.tree_util.tree_leaves(spmd), jaxc.tree_util.tree_leaves(traced)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-5)
    return spmd


# ---------------------------------------------------------------------------
# Meshes, specs, shardings
# ---------------------------------------------------------------------------

def test_mesh_and_named_sharding(mesh):
    assert mesh.shape == {"x": 2, "y": 4} and mesh.size == 8 and mesh.axis_names == ("x", "y")
    assert mesh.devices.shape == (2, 4) and mesh.devices[1, 2] is jaxc.devices()[6]
    s = NamedSharding(mesh, P("x", ("y",)))
    assert s.shard_shape((8, 12)) == (4, 3) and s.num_devices == 8 and not s.is_fully_replicated
    index = s.devices_indices_map((8, 12))
    assert index[jaxc.devices()[6]] == (slice(4, 8), slice(6, 9))
    assert NamedSharding(mesh, P()).is_fully_replicated
    assert NamedSharding(mesh, P("x", None)) == NamedSharding(mesh, P("x"))
    both = NamedSharding(mesh, P(("x", "y")))
    assert both.devices_indices_map((16,))[jaxc.devices()[5]] == (slice(10, 12),)
    assert repr(P("x", None)) == "P('x', None)"  # JAX 0.10's repr
    assert [repr(P()), repr(P("x")), repr(P(None)), repr(P(("x", "y")))] == ["P()", "P('x',)", "P(None,)",
                                                                            "P(('x', 'y'),)"]
    with pytest.raises(ValueError, match="Resource axis: z of P\\('z',?\\) is not found in mesh"):
        NamedSharding(mesh, P("z"))
    with pytest.raises(ValueError, match="should be divisible by 4, but it is equal to 6"):
        NamedSharding(mesh, P(None, "y")).shard_shape((2, 6))
    with pytest.raises(ValueError, match="Number of devices 8 must be >= the product of mesh_shape"):
        jaxc.make_mesh((4, 4), ("a", "b"))
    with pytest.raises(ValueError, match="2 dimensions but 1 axis names"):
        Mesh(np.array(jaxc.devices()).reshape(2, 4), ("x",))


def test_device_put_on_a_mesh_gives_views_as_shards(mesh):
    x = rand(8, 12)
    a = jaxc.device_put(x, NamedSharding(mesh, P("x", "y")))
    assert a.sharding == NamedSharding(mesh, P("x", "y")) and a.devices() == set(jaxc.devices())
    shards = a.addressable_shards
    assert len(shards) == 8
    for shard in shards:
        np.testing.assert_array_equal(np.asarray(shard.data), x[shard.index])
        assert shard.data.shape == (4, 3) and shard.replica_id == 0
    replicated = jaxc.device_put(x, NamedSharding(mesh, P("x")))
    assert sorted(s.replica_id for s in replicated.addressable_shards) == [0, 0, 1, 1, 2, 2, 3, 3]
    np.testing.assert_array_equal(np.asarray(a + 1), x + 1)  # eager ops read the whole value
    tree = jaxc.device_put({"w": x, "b": x[0]}, {"w": NamedSharding(mesh, P("x")), "b": None})
    assert tree["w"].sharding.spec == P("x") and isinstance(tree["b"].sharding, SingleDeviceSharding)
    with pytest.raises(ValueError, match="divisible"):
        jaxc.device_put(rand(3, 4), NamedSharding(mesh, P("x")))
    with pytest.raises(TypeError, match="not a device or a sharding"):
        jaxc.device_put({"w": x}, {"w": "cpu"})


def test_jit_shardings_and_with_sharding_constraint(mesh):
    a, b = rand(8, 4), rand(4, 8, seed=1)
    f = jaxc.jit(lambda a, b: a @ b, in_shardings=(NamedSharding(mesh, P("x")), None),
                 out_shardings=NamedSharding(mesh, P("x", "y")))
    out = f(a, b)
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5)
    assert out.sharding.spec == P("x", "y") and out.addressable_shards[1].index == (slice(0, 4), slice(2, 4))
    with pytest.raises(ValueError, match="divisible"):
        f(rand(3, 4), rand(4, 8))
    # as in JAX, in_shardings describe the dynamic arguments only (not the static n)
    scale = jaxc.jit(lambda v, n: v * n, in_shardings=NamedSharding(mesh, P("x")), static_argnums=1)
    np.testing.assert_allclose(np.asarray(scale(a, 3)), a * 3, rtol=1e-6)
    with jaxc.sharding.use_mesh(mesh):
        g = jaxc.jit(lambda v: lax.with_sharding_constraint(v * 2, P("y")), out_shardings=P(None, "x"))
        out = g(a)
        np.testing.assert_allclose(np.asarray(out), 2 * a)
        assert out.sharding == NamedSharding(mesh, P(None, "x"))
        assert lax.with_sharding_constraint(a, P("x")).sharding.spec == P("x")
    with pytest.raises(ValueError, match="needs a mesh"):
        lax.with_sharding_constraint(a, P("x"))


# ---------------------------------------------------------------------------
# shard_map
# ---------------------------------------------------------------------------

def test_blocks_and_results_follow_the_specs(mesh):
    x = rand(8, 12)
    seen = jaxc.shard_map(lambda a: a * 1, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    out = three_ways(seen, x)
    np.testing.assert_array_equal(np.asarray(out), x)
    assert out.sharding == NamedSharding(mesh, P("x", "y"))
    swapped = jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P("x", "y"), out_specs=P("y", "x"))
    # blocks (4, 3) laid out with y over rows and x over columns: (16, 6)
    out = three_ways(swapped, x)
    # block (i, j) = x[4i:4i+4, 3j:3j+3] goes to out[4j:4j+4, 3i:3i+3]
    np.testing.assert_array_equal(np.asarray(out), x.reshape(2, 4, 4, 3).transpose(2, 1, 0, 3).reshape(16, 6))
    merged = jaxc.shard_map(lambda a: a + lax.axis_index(("x", "y")).astype(np.float32), mesh=mesh,
                            in_specs=P(("x", "y")), out_specs=P(("x", "y")))
    v = rand(16)
    np.testing.assert_allclose(np.asarray(three_ways(merged, v)), v + np.repeat(np.arange(8), 2), rtol=1e-6)


def test_collectives_within_groups(mesh):
    x = rand(8, 12)
    rows = jaxc.shard_map(lambda a: lax.psum(a, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", None))
    np.testing.assert_allclose(np.asarray(three_ways(rows, x)), x.reshape(8, 4, 3).sum(1), rtol=1e-5)
    cols = jaxc.shard_map(lambda a: lax.pmax(a, "x"), mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))
    np.testing.assert_allclose(np.asarray(three_ways(cols, x)), x.reshape(2, 4, 12).max(0))
    everything = jaxc.shard_map(lambda a: lax.pmean(a, ("x", "y")), mesh=mesh, in_specs=P("x", "y"),
                                out_specs=P())
    np.testing.assert_allclose(np.asarray(three_ways(everything, x)),
                               x.reshape(2, 4, 4, 3).mean((0, 2)), rtol=1e-5)
    # replicated over y: all_gather's result varies (JAX 0.10), all_gather_invariant's does not
    gathered = jaxc.shard_map(lambda a: lax.all_gather(a, "y", axis=1, tiled=True, to="invarying"), mesh=mesh,
                              in_specs=P("x", "y"), out_specs=P("x", None))
    np.testing.assert_array_equal(np.asarray(three_ways(gathered, x)), x)
    ring = [(k, (k + 1) % 4) for k in range(4)]
    shifted = jaxc.shard_map(lambda a: lax.ppermute(a, "y", ring), mesh=mesh, in_specs=P("x", "y"),
                             out_specs=P("x", "y"))
    np.testing.assert_array_equal(np.asarray(three_ways(shifted, x)), np.roll(x.reshape(8, 4, 3), 1, 1).reshape(8, 12))
    index = jaxc.shard_map(lambda a: jnp.full((1, 1), lax.axis_index("x") * 10 + lax.axis_index("y")), mesh=mesh,
                           in_specs=P(), out_specs=P("x", "y"))
    np.testing.assert_array_equal(np.asarray(three_ways(index, x)), [[0, 1, 2, 3], [10, 11, 12, 13]])
    swap = jaxc.shard_map(lambda a: lax.all_to_all(a, "y", 0, 1, tiled=True), mesh=mesh,
                          in_specs=P("x", "y"), out_specs=P("x", "y"))
    three_ways(swap, rand(8, 16))


def test_collectives_over_several_axes(mesh):
    """Members of ("x", "y") are numbered x-major, as axis_index numbers them."""
    x = rand(16, 16)
    block = [x[8 * i:8 * i + 8, 4 * j:4 * j + 4] for i in range(2) for j in range(4)]  # device order
    gathered = jaxc.shard_map(lambda a: lax.all_gather(a, ("x", "y"), axis=0, tiled=True, to="invarying"),
                              mesh=mesh, in_specs=P("x", "y"), out_specs=P())
    np.testing.assert_array_equal(np.asarray(three_ways(gathered, x)), np.concatenate(block, 0))
    # ("y", "x"): member k is the device at y = k // 2, x = k % 2
    stacked = jaxc.shard_map(lambda a: lax.all_gather(a, ("y", "x"), axis=1, to="invarying"),
                             mesh=mesh, in_specs=P("x", "y"), out_specs=P())
    np.testing.assert_array_equal(np.asarray(three_ways(stacked, x)),
                                  np.stack([block[(k % 2) * 4 + k // 2] for k in range(8)], 1))
    perm = [(i, (i + 3) % 8) for i in range(7)]  # member 3 receives nothing: zeros
    moved = jaxc.shard_map(lambda a: lax.ppermute(a, ("x", "y"), perm), mesh=mesh, in_specs=P("x", "y"),
                           out_specs=P("x", "y"))
    sources = {d: s for s, d in perm}
    expected = [block[sources[d]] if d in sources else np.zeros((8, 4), np.float32) for d in range(8)]
    np.testing.assert_array_equal(np.asarray(three_ways(moved, x)),
                                  np.block([expected[0:4], expected[4:8]]))
    swapped = jaxc.shard_map(lambda a: lax.all_to_all(a, ("x", "y"), 0, 1, tiled=True), mesh=mesh,
                             in_specs=P("x", "y"), out_specs=P("x", "y"))
    # device j: row j of every device's block, concatenated in device order
    rows = [np.concatenate([block[i][j:j + 1] for i in range(8)], 1) for j in range(8)]
    np.testing.assert_array_equal(np.asarray(three_ways(swapped, x)), np.block([rows[0:4], rows[4:8]]))
    # untiled: the split dim (8, the member count) goes, a member dim comes at concat_axis
    untiled = jaxc.shard_map(lambda a: lax.all_to_all(a, ("x", "y"), 0, 1), mesh=mesh, in_specs=P("x", "y"),
                             out_specs=P("x", "y"))
    cols = [np.stack([block[i][j] for i in range(8)], 1) for j in range(8)]  # (4, 8) on device j
    np.testing.assert_array_equal(np.asarray(three_ways(untiled, x)), np.block([cols[0:4], cols[4:8]]))


def test_a_sharded_matmul_with_psum(mesh):
    """The shard_map tutorial's first program: contract over a split k."""
    a, b = rand(8, 16), rand(16, 4, seed=1)
    matmul = jaxc.shard_map(lambda x, w: lax.psum(x @ w, "y"), mesh=mesh,
                            in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None))
    np.testing.assert_allclose(np.asarray(three_ways(matmul, a, b)), a @ b, rtol=1e-4, atol=1e-5)


def test_grad_inside_and_around_shard_map(mesh):
    w, x = rand(12, 3), rand(8, 12, seed=2)

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    def step(check_vma):
        return jaxc.shard_map(lambda w, x: lax.pmean(jaxc.grad(loss)(w, x), ("x", "y")), mesh=mesh,
                              in_specs=(P(), P(("x", "y"))), out_specs=P(), check_vma=check_vma)
    # JAX's check_vma typing: w is the same on all 8 devices, so its gradient is the sum of
    # theirs (the transpose of the implicit pvary) and pmean of that sum is itself (JAX 0.10
    # gives 8x the full-batch gradient here); without the check, each device's own gradient
    g = np.asarray(three_ways(step(True), w, np.concatenate([x, x])))
    np.testing.assert_allclose(g, 8 * np.asarray(jaxc.grad(loss)(w, x)), rtol=1e-4, atol=1e-6)
    g = np.asarray(three_ways(step(False), w, np.concatenate([x, x])))
    np.testing.assert_allclose(g, np.asarray(jaxc.grad(loss)(w, x)), rtol=1e-4, atol=1e-6)
    outer = jaxc.grad(lambda w: jaxc.shard_map(lambda w, x: lax.psum((x @ w).sum(), "x"), mesh=mesh,
                                              in_specs=(P(), P("x")), out_specs=P())(w, x).sum())(w)
    # the value is sum(x @ w) (psum over x of each row block's; every y device the same)
    np.testing.assert_allclose(np.asarray(outer), np.broadcast_to(x.sum(0)[:, None], w.shape), rtol=1e-4)


def test_mesh_from_the_context_axis_names_and_decorator(mesh):
    x = rand(8, 4)
    with jaxc.sharding.use_mesh(mesh):
        out = jaxc.shard_map(lambda a: lax.psum(a, "x"), in_specs=P("x"), out_specs=P())(x)
    np.testing.assert_allclose(np.asarray(out), x.reshape(2, 4, 4).sum(0), rtol=1e-6)
    with jaxc.set_mesh(mesh):
        @jaxc.shard_map(in_specs=P("y"), out_specs=P("y"))
        def double(a):
            return a * 2
        np.testing.assert_allclose(np.asarray(double(x)), 2 * x)
    only_y = jaxc.shard_map(lambda a: lax.psum(a, "y"), mesh=mesh, in_specs=P("y"), out_specs=P(),
                            axis_names={"y"})
    np.testing.assert_allclose(np.asarray(only_y(x)), x.reshape(4, 2, 4).sum(0), rtol=1e-6)
    with pytest.raises(ValueError, match="shard_map needs a mesh"):
        jaxc.shard_map(lambda a: a, in_specs=P(), out_specs=P())(x)


def test_compiled_once_and_shown():
    mesh = jaxc.make_mesh((4,), ("i",))
    f = jaxc.shard_map(lambda a: lax.psum(a, "i"), mesh=mesh, in_specs=P("i"), out_specs=P())
    x = rand(8, 3)
    f(x)
    from jaxc.runtime import cpu
    before = cpu.compile_count
    f(x + 1)
    assert cpu.compile_count == before
    program = next(iter(f._programs.values()))[0]
    text = program.text()
    assert 'jaxc.spmd_axes = [["i", 4]]' in text and "tensor<2x3xf32>" in text


def test_errors(mesh):
    x = rand(8, 12)
    with pytest.raises(ValueError, match="not divisible by 4"):
        jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P("y"), out_specs=P("y"))(rand(6, 2))
    with pytest.raises(ValueError, match="names the axis 'z'"):
        jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P("z"), out_specs=P())(x)
    with pytest.raises(ValueError, match="has 3 entries but the value has rank 2"):
        jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P("x", None, None), out_specs=P())(x)
    with pytest.raises(NameError, match="unbound axis name: q"):
        jaxc.shard_map(lambda a: lax.psum(a, "q"), mesh=mesh, in_specs=P("x"), out_specs=P())(x)
    with pytest.raises(TypeError, match="out_specs"):
        jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P())
    with pytest.raises(ValueError, match="tree prefix"):
        jaxc.shard_map(lambda a, b: a, mesh=mesh, in_specs=(P(), P(), P()), out_specs=P())(x, x)


def test_visualize_and_inspect(mesh, capsys):
    a = jaxc.device_put(np.zeros((8, 8), np.float32), NamedSharding(mesh, P("x", "y")))
    jaxc.debug.visualize_array_sharding(a)
    jaxc.debug.visualize_sharding((8,), NamedSharding(mesh, P("y")))
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "| CPU 0 | CPU 1 | CPU 2 | CPU 3 |" and out[3] == "| CPU 4 | CPU 5 | CPU 6 | CPU 7 |"
    assert out[6] == "| CPU 0,4 | CPU 1,5 | CPU 2,6 | CPU 3,7 |"
    seen = []
    jaxc.debug.inspect_array_sharding(a, callback=seen.append)
    jaxc.jit(lambda v: jaxc.debug.inspect_array_sharding(v, callback=seen.append) or v)(a)
    assert seen[0] == a.sharding and isinstance(seen[1], SingleDeviceSharding)
    with pytest.raises(ValueError, match="1 or 2 dimensions"):
        jaxc.debug.visualize_sharding((2, 2, 2), a.sharding)


def test_the_distributed_arrays_tutorial_gives_numpys_values(mesh):
    """The programs of JAX's "distributed arrays and automatic
    parallelization" tutorial, on 8 CPU devices."""
    x = np.random.RandomState(0).normal(size=(8192, 8192 // 64)).astype(np.float32)
    y = jaxc.device_put(x, NamedSharding(mesh, P("x", "y")))
    z = jnp.sin(y)
    np.testing.assert_allclose(np.asarray(z), np.sin(x), rtol=1e-6)
    w = jaxc.device_put(np.ones((128, 8), np.float32), NamedSharding(mesh, P("y", None)))

    @jaxc.jit
    def predict(x, w):
        return jnp.maximum(x @ w, 0)
    np.testing.assert_allclose(np.asarray(predict(y, w)), np.maximum(x @ np.ones((128, 8)), 0), rtol=1e-4,
                               atol=1e-3)
    layer = jaxc.jit(lambda x, w: jnp.tanh(x @ w), in_shardings=(NamedSharding(mesh, P("x")), None),
                     out_shardings=NamedSharding(mesh, P("x", None)))
    out = layer(x, np.ones((128, 8), np.float32) / 128)
    assert out.sharding.spec == P("x", None)
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ (np.ones((128, 8)) / 128)), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------
# jit partitioned by its shardings (the shard dialect)
# ---------------------------------------------------------------------------

PARTITIONED_CASES = {
    "elementwise, rows": (lambda a: jnp.sin(a) + 1, ((("i",),), ("i",)), lambda a, w: np.sin(a) + 1),
    "rows to replicated": (lambda a: jnp.sin(a), ((("i",),), ()), lambda a, w: np.sin(a)),
    "sum over the split rows": (lambda a: a.sum(0), ((("i",),), ()), lambda a, w: a.sum(0)),
    "sum along the rows": (lambda a: a.sum(1), ((("i",),), ("i",)), lambda a, w: a.sum(1)),
    "matmul, rows split": (lambda a, w: a @ w, ((("i",), ()), ("i",)), lambda a, w: a @ w),
    "matmul, k split": (lambda a, w: a @ w, (((None, "i"), ("i",)), ()), lambda a, w: a @ w),
    "layer": (lambda a, w: jnp.tanh(a @ w), ((("i",), ()), ("i",)), lambda a, w: np.tanh(a @ w)),
    # scalars: a scalar op on a sum, a rank-0 constant, a mean (docs/toolchain.md)
    "tanh of a sum": (lambda a: jnp.tanh(a.sum() / 100), ((("i",),), ()), lambda a, w: np.tanh(a.sum() / 100)),
    "mean of row sums": (lambda a: jnp.mean(jnp.sum(a, axis=-1)) + 1, ((("i",),), ()),
                         lambda a, w: a.sum(-1).mean() + 1),
    "cross-entropy of a layer": (lambda a, w: -jnp.mean(jnp.sum(jax_nn.log_softmax(a @ w), axis=-1)),
                                 ((("i",), ()), ()),
                                 lambda a, w: -np.mean(np.sum((a @ w) - np.log(np.exp(a @ w).sum(-1, keepdims=True)),
                                                              axis=-1))),
    "gradient of a layer's loss": (lambda a, w: jaxc.grad(lambda v: jnp.tanh(a @ v).sum())(w), ((("i",), ()), ()),
                                   lambda a, w: a.T @ (1 - np.tanh(a @ w) ** 2)),
}


@pytest.mark.parametrize("given", ["replicated", "None"])
def test_a_replicated_operand_of_a_split_elementwise_op_is_sliced(given):
    """`a * b`, a split over rows and b replicated (or not given): upstream
    aborted on this (docs/toolchain.md); each device now multiplies its rows by
    its rows of b (sliced in the per-device program)."""
    mesh = jaxc.make_mesh((4,), ("i",))
    a, b = rand(8, 16), rand(8, 16, seed=1)
    second = NamedSharding(mesh, P()) if given == "replicated" else None
    f = jaxc.jit(lambda a, b: a * b + 1, in_shardings=(NamedSharding(mesh, P("i")), second))
    result = f(a, b)
    assert f.partitioned
    np.testing.assert_allclose(np.asarray(result), a * b + 1, rtol=1e-6)
    assert result.sharding == NamedSharding(mesh, P("i"))
    per_device = f.lower(a, b).as_text(stage="partitioned")  # b comes whole, each device slices its rows
    assert "%arg1: tensor<8x16xf32>" in per_device and "tensor.extract_slice %arg1" in per_device


@pytest.mark.parametrize("name", list(PARTITIONED_CASES))
def test_jit_is_partitioned_through_the_shard_dialect(name):
    mesh = jaxc.make_mesh((4,), ("i",))
    fn, (ins, out), reference = PARTITIONED_CASES[name]
    a, w = rand(8, 16), rand(16, 4, seed=1)
    args = (a, w)[:len(ins)]
    f = jaxc.jit(fn, in_shardings=tuple(NamedSharding(mesh, P(*s)) for s in ins),
                 out_shardings=NamedSharding(mesh, P(*out)))
    result = f(*args)
    assert f.partitioned, name
    np.testing.assert_allclose(np.asarray(result), reference(a, w), rtol=1e-4, atol=1e-5)
    assert result.sharding == NamedSharding(mesh, P(*out))
    per_device = f.lower(*args).as_text(stage="partitioned")
    assert "jaxc.spmd_axes" in per_device and "jaxc.sharding" not in per_device and "shard." not in per_device
    annotated = f.lower(*args).as_text(stage="annotated")  # the steps before, each a stage
    assert "shard.grid @jaxc_mesh(shape = 4)" in annotated and "shard.shard %arg0 to %sharding :" in annotated
    propagated = f.lower(*args).as_text(stage="propagated")
    assert propagated.count("shard.shard") >= annotated.count("shard.shard")
    if name == "matmul, k split":  # each device contracts its quarter of k, then a psum
        assert "tensor<8x4xf32>" in per_device and "tensor<4x4xf32>" in per_device
        assert "jaxc_spmd_all_reduce" in per_device


def _mlp_problem():
    rng = np.random.RandomState(0)
    params = {"w1": rng.randn(16, 8).astype(np.float32) * 0.3, "b1": rng.randn(8).astype(np.float32) * 0.1,
              "w2": rng.randn(8, 5).astype(np.float32) * 0.3, "b2": np.zeros(5, np.float32)}
    x, y = rng.randn(32, 16).astype(np.float32), np.eye(5, dtype=np.float32)[rng.randint(0, 5, 32)]

    def loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return -jnp.mean(jnp.sum(y * jax_nn.log_softmax(h @ p["w2"] + p["b2"]), axis=-1))
    return params, x, y, loss


def test_an_mlp_gradient_partitions(caplog):
    """The cross-entropy gradient of a two-layer MLP, the batch split: the results (partial sums
    over the batch) without out_shardings are left to the propagation, then all-reduced."""
    mesh = jaxc.make_mesh((4,), ("d",))
    params, x, y, loss = _mlp_problem()
    split = NamedSharding(mesh, P("d"))
    f = jaxc.jit(lambda p, x, y: (loss(p, x, y), jaxc.grad(loss)(p, x, y)),
                 in_shardings=(NamedSharding(mesh, P()), split, split))
    with caplog.at_level("WARNING", logger="jaxc"):
        value, grads = f(params, x, y)
    assert f.partitioned and "not partitioned" not in caplog.text
    want_value, want = jaxc.jit(jaxc.value_and_grad(loss))(params, x, y)  # one device
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5)
    for k in params:
        np.testing.assert_allclose(np.asarray(grads[k]), np.asarray(want[k]), rtol=1e-4, atol=1e-6, err_msg=k)
        assert grads[k].sharding == NamedSharding(mesh, P())
    assert f.lower(params, x, y).as_text(stage="partitioned").count("jaxc_spmd_all_reduce") >= 2


@pytest.mark.parametrize("program", ["value_and_grad", "sgd step"])
def test_an_mlp_training_step_partitions(caplog, program):
    """value_and_grad of the loss (its 1/N made by the derivative passes) and
    a whole SGD step returning the new parameters: both aborted upstream
    (docs/toolchain.md); they partition now, with the one-device values."""
    mesh = jaxc.make_mesh((4,), ("d",))
    params, x, y, loss = _mlp_problem()

    def sgd(p, x, y):
        return jaxc.tree.map(lambda a, g: a - 0.1 * g, p, jaxc.grad(loss)(p, x, y))
    fn = jaxc.value_and_grad(loss) if program == "value_and_grad" else sgd
    split = NamedSharding(mesh, P("d"))
    f = jaxc.jit(fn, in_shardings=(NamedSharding(mesh, P()), split, split))
    with caplog.at_level("WARNING", logger="jaxc"):
        got = f(params, x, y)
    assert f.partitioned and "not partitioned" not in caplog.text
    want = jaxc.jit(fn)(params, x, y)  # one device
    for g, w in zip(jaxc.tree.leaves(got), jaxc.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)
    assert f.lower(params, x, y).as_text(stage="partitioned").count("jaxc_spmd_all_reduce") >= 2


def test_arrays_a_partitioned_program_closes_over_are_replicated_arguments(caplog):
    mesh = jaxc.make_mesh((4,), ("i",))
    a, w, b = rand(8, 16), rand(16, 4, seed=1), rand(4, seed=2)
    w_dev, b_dev = jnp.asarray(w), jnp.asarray(b)  # captured: arguments of the program
    f = jaxc.jit(lambda a: jnp.tanh(a @ w_dev) + b_dev, in_shardings=NamedSharding(mesh, P("i")),
                 out_shardings=NamedSharding(mesh, P("i")))
    np.testing.assert_allclose(np.asarray(f(a)), np.tanh(a @ w) + b, rtol=1e-4, atol=1e-5)
    assert f.partitioned
    per_device = f.lower(a).as_text(stage="partitioned")
    assert "tensor<2x16xf32>" in per_device and "tensor<16x4xf32>" in per_device  # w whole on every device
    # NumPy arrays are constants of the program, which shard-partition cannot slice
    # (docs/toolchain.md): they are made arguments too; splat constants stay
    g = jaxc.jit(lambda a: jnp.tanh(a @ w) + b * jnp.full((4,), 2.0), in_shardings=NamedSharding(mesh, P("i")),
                 out_shardings=NamedSharding(mesh, P("i")))
    with caplog.at_level("WARNING", logger="jaxc"):
        np.testing.assert_allclose(np.asarray(g(a)), np.tanh(a @ w) + 2 * b, rtol=1e-4, atol=1e-5)
    assert g.partitioned and "not partitioned" not in caplog.text
    per_device = g.lower(a).as_text(stage="partitioned")
    signature = next(line for line in per_device.splitlines() if "func.func @" in line)
    assert ": tensor<16x4xf32> {" in signature and ": tensor<4xf32> {" in signature  # b * 2, folded
    ints = jaxc.jit(lambda a: a + np.arange(16, dtype=np.uint32), in_shardings=NamedSharding(mesh, P("i")),
                    out_shardings=NamedSharding(mesh, P("i")))
    np.testing.assert_array_equal(np.asarray(ints(np.ones((8, 16), np.uint32))), 1 + np.arange(16) + np.zeros((8, 1)))
    assert ints.partitioned


def test_a_partitioned_program_with_static_arguments():
    mesh = jaxc.make_mesh((4,), ("i",))
    a, b = rand(8, 16), rand(8, 16, seed=1)
    rows = NamedSharding(mesh, P("i"))
    f = jaxc.jit(lambda a, k, b: jnp.sin(a) * k + b, static_argnums=1, in_shardings=(rows, rows),
                 out_shardings=rows)
    for k in (3.0, 2.0):  # a program per static value
        np.testing.assert_allclose(np.asarray(f(a, k, b)), np.sin(a) * k + b, rtol=1e-5, atol=1e-6)
    assert f.partitioned and f(a, 2.0, b).sharding == rows
    assert "tensor<2x16xf32>" in f.lower(a, 2.0, b).as_text(stage="partitioned")
    g = jaxc.jit(lambda a, b=1.0: a * b, in_shardings=rows)
    with pytest.raises(ValueError, match="pjit does not support kwargs when in_shardings is specified"):
        g(a, b=b)  # JAX's error


def test_a_program_the_shard_passes_cannot_partition_runs_whole(mesh, caplog):
    """The shard passes abort on a 2-D reshard inside the program
    (docs/toolchain.md): in a child process, so jit falls back to the whole
    program and says so."""
    a = rand(8, 16)
    f = jaxc.jit(lambda a: (a.T @ a).sum(0), in_shardings=NamedSharding(mesh, P("x", "y")),
                 out_shardings=NamedSharding(mesh, P()))
    with caplog.at_level("WARNING", logger="jaxc"):
        out = f(a)
    np.testing.assert_allclose(np.asarray(out), (a.T @ a).sum(0), rtol=1e-4, atol=1e-4)
    assert not f.partitioned
    assert "not partitioned by its shardings" in caplog.text and "crashed (SIGABRT)" in caplog.text
    assert out.sharding == NamedSharding(mesh, P())


# on a 4x2 mesh: (function, in specs, out spec or "free", the result's sharding: JAX 0.10's where "free",
# recorded from jax.jit(f, in_shardings=...)(...).sharding.spec)
TWO_AXES_CASES = {
    "elementwise": (lambda a: jnp.sin(a), [("a", "b")], "free", ("a", "b")),
    "full sum, a scalar": (lambda a: a.sum(), [("a", "b")], "free", ()),
    "sum over the split rows": (lambda a: a.sum(0), [("a", "b")], "free", ("b",)),
    "matmul, k split": (lambda a, w: a @ w, [("a", "b"), ("b", None)], "free", ("a",)),
    "transpose": (lambda a: a.T, [("a", "b")], "free", ("b", "a")),
    "rows": (lambda a: a * 2, [("a",)], "free", ("a",)),
    # out_shardings the partition cannot reshard to: the results as propagated, labelled as asked
    "elementwise, out transposed": (lambda a: jnp.sin(a), [("a", "b")], ("b", "a"), ("b", "a")),
    "elementwise, out replicated": (lambda a: jnp.sin(a), [("a", "b")], (), ()),
    "scalar, out replicated": (lambda a: jnp.tanh(a).sum(), [("a", "b")], (), ()),
    "elementwise, out rows": (lambda a: a * 2, [("a", "b")], ("a", None), ("a", None)),
    "two axes on the rows, out one": (lambda a: a * 2, [(("a", "b"),)], ("a",), ("a",)),
}


@pytest.mark.parametrize("name", list(TWO_AXES_CASES))
def test_jit_partitions_on_a_mesh_of_two_axes(name, caplog):
    mesh = jaxc.make_mesh((4, 2), ("a", "b"))
    fn, ins, out, expected = TWO_AXES_CASES[name]
    a, w = rand(8, 16), rand(16, 4, seed=1)
    args = (a, w)[:len(ins)]
    outs = {} if out == "free" else {"out_shardings": NamedSharding(mesh, P(*out))}
    f = jaxc.jit(fn, in_shardings=tuple(NamedSharding(mesh, P(*s)) for s in ins), **outs)
    with caplog.at_level("WARNING", logger="jaxc"):
        result = f(*args)
    assert f.partitioned and "not partitioned" not in caplog.text, name
    np.testing.assert_allclose(np.asarray(result), fn(*args).__array__(), rtol=1e-4, atol=1e-4)
    assert result.sharding == NamedSharding(mesh, P(*expected))
    per_device = f.lower(*args).as_text(stage="partitioned")
    assert "shard." not in per_device and "jaxc.spmd_axes" in per_device


def test_a_dense_layer_then_a_sum_partitions():
    """`tanh(x @ w).sum()`: the matmul's init and tanh's shared one tensor.empty, which the
    propagation annotated twice and aborted on (docs/toolchain.md); each use gets its own."""
    mesh = jaxc.make_mesh((8,), ("d",))
    x, w = rand(16, 8), rand(8, 4, seed=1)
    f = jaxc.jit(lambda x, w: jnp.tanh(x @ w).sum(), in_shardings=(NamedSharding(mesh, P("d")), None))
    out = f(x, w)
    assert f.partitioned and out.sharding == NamedSharding(mesh, P())
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ w).sum(), rtol=1e-4)
    assert "jaxc_spmd_all_reduce" in f.lower(x, w).as_text(stage="partitioned")
    rows = jaxc.jit(lambda x, w: x @ w, in_shardings=(NamedSharding(mesh, P("d")), None))(x, w)
    assert rows.sharding == NamedSharding(mesh, P("d"))  # JAX's: the propagation's, not replicated


# --- building sharded arrays from parts (JAX's make_array_from_*) ----------------

def test_make_array_from_callback_calls_once_per_device(mesh):
    sharding = NamedSharding(mesh, P("x", "y"))
    whole = rand(4, 8)
    seen = []

    def data(index):
        seen.append(index)
        return whole[index]

    a = jaxc.make_array_from_callback((4, 8), sharding, data)
    assert len(seen) == 8 and a.sharding == sharding
    assert sorted((i[0].start, i[1].start) for i in seen) == sorted((r, c) for r in (0, 2) for c in (0, 2, 4, 6))
    np.testing.assert_array_equal(np.asarray(a), whole)
    for shard in a.addressable_shards:
        np.testing.assert_array_equal(np.asarray(shard.data), whole[shard.index])
    replicated = jaxc.make_array_from_callback((4, 8), NamedSharding(mesh, P(None, "y")), lambda i: whole[i])
    np.testing.assert_array_equal(np.asarray(replicated), whole)
    with pytest.raises(ValueError, match=r"the callback returned an array of shape \(4, 8\) for the shard"):
        jaxc.make_array_from_callback((4, 8), sharding, lambda i: whole)


def test_make_array_from_single_device_arrays(mesh):
    sharding = NamedSharding(mesh, P("x", "y"))
    whole = rand(4, 8)
    parts = [jaxc.device_put(whole[index], device) for device, index in sharding.devices_indices_map((4, 8)).items()]
    a = jaxc.make_array_from_single_device_arrays((4, 8), sharding, parts[::-1])  # each goes by its device
    np.testing.assert_array_equal(np.asarray(a), whole)
    assert a.sharding == sharding
    with pytest.raises(ValueError, match="the sharding has 8 devices, but 7 arrays"):
        jaxc.make_array_from_single_device_arrays((4, 8), sharding, parts[:7])
    with pytest.raises(ValueError, match=r"got an array of shape \(2, 1\) for the shard"):
        jaxc.make_array_from_single_device_arrays((4, 8), sharding, [p[:, :1] for p in parts])
    with pytest.raises(ValueError, match="not on one device of the sharding"):
        jaxc.make_array_from_single_device_arrays((4, 8), sharding, parts[:7] + [parts[0]])


def test_make_array_from_process_local_data(mesh):
    sharding = NamedSharding(mesh, P("x"))
    whole = rand(4, 8)
    a = jaxc.make_array_from_process_local_data(sharding, whole)
    np.testing.assert_array_equal(np.asarray(a), whole)
    assert a.sharding == sharding
    np.testing.assert_array_equal(np.asarray(jaxc.make_array_from_process_local_data(sharding, whole, (4, 8))), whole)
    with pytest.raises(ValueError, match="the local data is the whole array"):
        jaxc.make_array_from_process_local_data(sharding, whole, (8, 8))
