"""jaxc.experimental (issues #16, #21): the package's attributes,
compilation_cache (a second process loads what the first compiled),
mesh_utils, the deprecated shard_map and pjit spellings, and
multihost_utils in one process and, under mpiexec, across two; against
NumPy and, where installed, JAX (io_callback: test_io_callback.py)."""
from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import textwrap
import types
import warnings

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.experimental import mesh_utils, multihost_utils
from jaxc.experimental.compilation_cache import compilation_cache as cc
from jaxc.runtime import compile_cache
from jaxc.runtime.compile_cache import CompilationCacheWarning
from jaxc.sharding import Mesh, NamedSharding, PartitionSpec as P

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture
def eight_devices():
    before = jaxc.config.jax_num_cpu_devices
    jaxc.config.update("jax_num_cpu_devices", 8)
    yield jaxc.devices()
    jaxc.config.update("jax_num_cpu_devices", before)


def same_signature(ours, theirs) -> None:
    """Parameter names, kinds and defaults as JAX's."""
    a, b = inspect.signature(ours).parameters, inspect.signature(theirs).parameters
    assert list(a) == list(b)
    for name, p in b.items():
        assert a[name].kind == p.kind, name
        if "Unspecified" not in repr(p.default):   # JAX's sentinel; jaxc's None means the same
            assert a[name].default == p.default, name


def ids(mesh: np.ndarray) -> list:
    return np.vectorize(lambda d: d.id, otypes=[int])(mesh).tolist()


# --- the package ------------------------------------------------------------------------------

def test_package_attributes_as_jaxs() -> None:
    code = ("import jaxc\n"          # no explicit import of jaxc.experimental, as with jax
            "e = jaxc.experimental\n"
            "print(e.io_callback.__module__, e.compilation_cache.compilation_cache.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["jaxc._callback", "jaxc.experimental.compilation_cache.compilation_cache"]
    jax_experimental = pytest.importorskip("jax.experimental")
    for name in ("io_callback", "compilation_cache"):
        assert hasattr(jax_experimental, name) and hasattr(jaxc.experimental, name)
    from jax.experimental.compilation_cache import compilation_cache as jcc
    public = lambda m: {n for n in dir(m) if not n.startswith("_") and inspect.isfunction(getattr(m, n))}  # noqa: E731
    assert public(cc) == public(jcc) == {"set_cache_dir", "reset_cache"}


def test_signatures_are_jaxs() -> None:
    pytest.importorskip("jax")
    from jax.experimental import mesh_utils as jmu, multihost_utils as jmh
    from jax.experimental.compilation_cache import compilation_cache as jcc
    for name in ("set_cache_dir", "reset_cache"):
        same_signature(getattr(cc, name), getattr(jcc, name))
    for name in ("create_device_mesh", "create_hybrid_device_mesh"):
        same_signature(getattr(mesh_utils, name), getattr(jmu, name))
    for name in multihost_utils.__all__:
        same_signature(getattr(multihost_utils, name), getattr(jmh, name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from jax.experimental.pjit import pjit as jax_pjit
        from jax.experimental.shard_map import shard_map as jax_shard_map

        from jaxc.experimental.pjit import pjit
        from jaxc.experimental.shard_map import shard_map
    same_signature(pjit, jax_pjit)
    same_signature(shard_map, jax_shard_map)


# --- compilation_cache ------------------------------------------------------------------------

CACHED_PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    import jaxc, jaxc.numpy as jnp
    from jaxc.experimental.compilation_cache import compilation_cache as cc
    from jaxc.runtime import cpu

    cc.set_cache_dir(sys.argv[1])
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    f = jaxc.jit(lambda x, w: jnp.tanh(x @ w).sum(axis=0))
    y = f(np.arange(6, dtype=np.float32).reshape(2, 3) / 10, np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    print(json.dumps({"compiled": cpu.compile_count, "loaded": cpu.cache_load_count, "y": np.asarray(y).tolist()}))
""")


def test_set_cache_dir_makes_a_second_process_load_the_program(tmp_path) -> None:
    cache = str(tmp_path / "cache")

    def run() -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_COMPILATION_CACHE")}
        out = subprocess.run([sys.executable, "-c", CACHED_PROGRAM, cache], capture_output=True, text=True,
                             timeout=600, env=env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    first = run()
    assert first["compiled"] >= 1 and first["loaded"] == 0
    assert compile_cache.entries(cache), "set_cache_dir's directory got no entry"
    second = run()
    assert second["compiled"] == 0 and second["loaded"] == first["compiled"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(second["y"], np.tanh(x @ w).sum(0), rtol=1e-5)
    assert second["y"] == first["y"]


@pytest.fixture
def cache_settings():
    saved = {n: jaxc.config.read(n) for n in ("jax_compilation_cache_dir",
                                              "jax_persistent_cache_min_compile_time_secs")}
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    yield
    compile_cache.wait()
    for name, value in saved.items():
        jaxc.config.update(name, value)


def test_set_cache_dir_is_the_config_option_and_reset_cache_starts_afresh(tmp_path, cache_settings) -> None:
    cc.set_cache_dir(str(tmp_path / "here"))
    assert jaxc.config.jax_compilation_cache_dir == str(tmp_path / "here")
    cc.set_cache_dir(None)
    assert jaxc.config.jax_compilation_cache_dir is None
    with pytest.raises(ValueError, match="must be None or of type str"):
        cc.set_cache_dir(tmp_path)   # a Path: JAX's ValueError too
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    cc.set_cache_dir(str(blocker / "cache"))

    def compile_new(k: float) -> None:   # a program this process has not compiled yet
        jaxc.jit(lambda x: x * k + 0.25)(np.ones(3, np.float32)).block_until_ready()
        compile_cache.wait()

    with pytest.warns(CompilationCacheWarning, match="cannot write to .*a-file") as record:
        compile_new(1.5)
        compile_new(2.5)          # warned once per directory...
        cc.reset_cache()
        compile_new(3.5)          # ...until reset_cache
    assert len([w for w in record if issubclass(w.category, CompilationCacheWarning)]) == 2
    assert jaxc.config.jax_compilation_cache_dir == str(blocker / "cache")   # reset keeps the setting


# --- mesh_utils -------------------------------------------------------------------------------

def test_create_device_mesh(eight_devices) -> None:
    mesh = mesh_utils.create_device_mesh((2, 4))
    assert mesh.shape == (2, 4) and mesh.dtype == object
    assert ids(mesh) == np.arange(8).reshape(2, 4).tolist()
    assert mesh[1, 2] is eight_devices[6]
    assert ids(mesh_utils.create_device_mesh([4], eight_devices[4:])) == [4, 5, 6, 7]
    assert mesh_utils.create_device_mesh((2, 2, 2), contiguous_submeshes=True,
                                         allow_split_physical_axes=True).shape == (2, 2, 2)
    # usable for a Mesh: place an array on it and map over it
    m = Mesh(mesh, ("x", "y"))
    a = jaxc.device_put(np.arange(32.0).reshape(4, 8), NamedSharding(m, P("x", "y")))
    assert a.sharding.shard_shape(a.shape) == (2, 2)
    out = jaxc.shard_map(lambda b: lax.psum(b, "y"), mesh=m, in_specs=P("x", "y"), out_specs=P("x"))(a)
    np.testing.assert_allclose(np.asarray(out), np.arange(32.0).reshape(4, 4, 2).sum(1))


def test_create_device_mesh_errors_are_jaxs(eight_devices) -> None:
    with pytest.raises(ValueError, match=r"Number of devices 8 must equal the product of mesh_shape \(3, 2\)"):
        mesh_utils.create_device_mesh((3, 2))
    with pytest.raises(ValueError, match="should be a sequence of ints. Got"):
        mesh_utils.create_device_mesh(("a", 2))
    with pytest.raises(ValueError, match="does not have attribute slice_index. See `process_is_granule`"):
        mesh_utils.create_hybrid_device_mesh((2, 4), (1, 1))
    with pytest.raises(ValueError, match=r"Number of slices 1 must equal the product of dcn_mesh_shape \(2,\)"):
        mesh_utils.create_hybrid_device_mesh((4,), (2,), process_is_granule=True)


def test_hybrid_mesh_of_this_process(eight_devices) -> None:
    mesh = mesh_utils.create_hybrid_device_mesh((2, 4), (1, 1), process_is_granule=True)
    assert ids(mesh) == np.arange(8).reshape(2, 4).tolist()


@pytest.mark.parametrize("shapes", [((2, 2), (2, 1)), ((4,), (2,)), ((1, 4), (2, 1)), ((2, 2), (1, 2))])
def test_hybrid_mesh_of_several_processes_as_jaxs(shapes) -> None:
    """Devices of two processes (stand-ins with a process_index), laid out as JAX lays them out."""
    jax = pytest.importorskip("jax")  # noqa: F841
    from jax.experimental import mesh_utils as jmu
    devices = [types.SimpleNamespace(id=i, process_index=(i + 4) % 8 // 4, device_kind="cpu", platform="cpu")
               for i in range(8)]
    ours = mesh_utils.create_hybrid_device_mesh(*shapes, devices, process_is_granule=True)
    theirs = jmu.create_hybrid_device_mesh(*shapes, devices, process_is_granule=True)
    assert ours.shape == theirs.shape == tuple(a * b for a, b in zip(*shapes))
    assert ids(ours) == ids(theirs)
    unsorted = mesh_utils.create_hybrid_device_mesh(*shapes, devices, process_is_granule=True,
                                                    should_sort_granules_by_key=False)
    assert ids(unsorted) == ids(jmu.create_hybrid_device_mesh(*shapes, devices, process_is_granule=True,
                                                              should_sort_granules_by_key=False))


def test_a_device_kind_handler_builds_the_mesh(eight_devices) -> None:
    def reversed_mesh(shape, devices, *, contiguous_submeshes):
        return np.array(devices[::-1], dtype=object).reshape(shape)
    mesh_utils.device_kind_handler_dict["cpu"] = reversed_mesh
    try:
        assert ids(mesh_utils.create_device_mesh((8,))) == list(range(7, -1, -1))
    finally:
        del mesh_utils.device_kind_handler_dict["cpu"]


# --- shard_map and pjit (deprecated spellings) ------------------------------------------------

def test_experimental_shard_map(eight_devices) -> None:
    with pytest.warns(DeprecationWarning, match="jax.experimental.shard_map is deprecated"):
        from jaxc.experimental.shard_map import shard_map
    mesh = Mesh(mesh_utils.create_device_mesh((2, 4)), ("x", "y"))
    x = np.random.RandomState(0).randn(4, 8).astype(np.float32)
    f = shard_map(lambda a: lax.psum(a * 2, "y"), mesh, in_specs=P("x", "y"), out_specs=P("x", None),
                  check_rep=False)
    expected = (x * 2).reshape(4, 4, 2).sum(1)
    np.testing.assert_allclose(np.asarray(f(x)), expected, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jaxc.jit(f)(x)), expected, rtol=1e-5)
    new = jaxc.shard_map(lambda a: lax.psum(a * 2, "y"), mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", None))
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(new(x)))
    # under grad (as JAX: each element of x reaches the output once, times 2)
    g = jaxc.grad(lambda v: f(v).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.full_like(x, 2.0))


def test_experimental_pjit(eight_devices) -> None:
    with pytest.warns(DeprecationWarning, match="jax.experimental.pjit.pjit has been deprecated"):
        from jaxc.experimental.pjit import pjit
    mesh = Mesh(mesh_utils.create_device_mesh((8,)), ("x",))
    rows, whole = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    f = pjit(lambda a, b: jnp.tanh(a) * b, (rows, whole), whole)
    x = np.linspace(-2, 2, 32, dtype=np.float32).reshape(8, 4)
    y = f(x, np.float32(3))
    np.testing.assert_allclose(np.asarray(y), np.tanh(x) * 3, rtol=1e-6)
    assert y.sharding == whole
    with pytest.raises(ValueError, match="divisible by 8"):
        f(np.ones((6, 4), np.float32), np.float32(3))
    power = pjit(lambda a, n: a ** n, static_argnums=1, static_argnames=None)
    np.testing.assert_allclose(np.asarray(power(x, 3)), x ** 3, rtol=1e-6)
    with pytest.raises(TypeError, match="unsupported options: device"):
        pjit(lambda a: a, device=jaxc.devices()[0])
    g = pjit(lambda a: (a ** 2).sum(), in_shardings=rows, donate_argnames="a")
    np.testing.assert_allclose(np.asarray(jaxc.grad(g)(x)), 2 * x, rtol=1e-6)


def test_deprecated_modules_have_only_their_name() -> None:
    import jaxc.experimental.pjit as pjit_module
    with pytest.raises(AttributeError, match="has no attribute 'jit'"):
        pjit_module.jit  # noqa: B018


# --- multihost_utils in one process -----------------------------------------------------------

def test_process_allgather_and_broadcast_in_one_process() -> None:
    tree = {"a": jnp.arange(3.0), "b": [np.int32(7)]}
    stacked = multihost_utils.process_allgather(tree)
    np.testing.assert_array_equal(stacked["a"], [[0.0, 1.0, 2.0]])
    assert isinstance(stacked["a"], np.ndarray) and stacked["b"][0].shape == (1,)
    tiled = multihost_utils.process_allgather(tree, tiled=True)
    np.testing.assert_array_equal(tiled["a"], [0.0, 1.0, 2.0])
    assert tiled["b"][0].shape == ()
    out = multihost_utils.broadcast_one_to_all({"w": jnp.ones(2), "n": 3})
    assert isinstance(out["w"], np.ndarray) and out["n"] == 3
    multihost_utils.sync_global_devices("step 1")
    multihost_utils.assert_equal(np.arange(3))
    jax = pytest.importorskip("jax")  # noqa: F841
    from jax.experimental import multihost_utils as jmh
    for tiled_ in (False, True):
        for ours, theirs in zip(jaxc.tree_util.tree_leaves(multihost_utils.process_allgather(tree, tiled=tiled_)),
                                jaxc.tree_util.tree_leaves(jmh.process_allgather(
                                    {"a": np.arange(3.0, dtype=np.float32), "b": [np.int32(7)]}, tiled=tiled_))):
            assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
            np.testing.assert_array_equal(ours, theirs)


def test_host_local_and_global_arrays_in_one_process(eight_devices) -> None:
    mesh = Mesh(mesh_utils.create_device_mesh((2, 4)), ("x", "y"))
    local = {"w": np.arange(16.0, dtype=np.float32).reshape(4, 4), "b": np.ones(4, np.float32)}
    glob = multihost_utils.host_local_array_to_global_array(local, mesh, {"w": P("x", "y"), "b": P()})
    assert glob["w"].sharding == NamedSharding(mesh, P("x", "y")) and glob["b"].sharding == NamedSharding(mesh, P())
    np.testing.assert_array_equal(np.asarray(glob["w"]), local["w"])
    assert glob["w"].addressable_shards[5].index == (slice(2, 4), slice(1, 2))
    back = multihost_utils.global_array_to_host_local_array(glob, mesh, P())
    assert back["w"] is glob["w"]   # one process: a global Array is its own local part, as in JAX
    placed = multihost_utils.global_array_to_host_local_array(local["w"], mesh, P("x"))
    assert placed.sharding == NamedSharding(mesh, P("x"))
    np.testing.assert_array_equal(np.asarray(placed), local["w"])
    # under jit, grad and vmap the value passes through
    f = lambda v: (multihost_utils.host_local_array_to_global_array(v, mesh, P()) ** 2).sum()  # noqa: E731
    np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(f))(local["w"])), 2 * local["w"])
    np.testing.assert_allclose(np.asarray(jaxc.vmap(f)(local["w"])), (local["w"] ** 2).sum(1))
    with pytest.raises(ValueError, match="`None` is not a valid input to the pspecs argument"):
        multihost_utils.host_local_array_to_global_array(local, mesh, {"w": P(), "b": None})
    with pytest.raises(ValueError, match="divisible by 2"):
        multihost_utils.host_local_array_to_global_array(np.ones(3), mesh, P("x"))
    with pytest.raises(TypeError, match="expected a jax.sharding.Mesh"):
        multihost_utils.host_local_array_to_global_array(np.ones(4), "mesh", P())


# --- multihost_utils across two processes (mpiexec) -------------------------------------------

MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
try:
    import mpi4py  # noqa: F401
except ImportError:
    mpi4py = None

MPI_PROGRAM = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import jaxc
    jaxc.distributed.initialize()
    jaxc.config.update("jax_num_cpu_devices", 2)
    from jaxc.experimental import mesh_utils, multihost_utils as mh
    from jaxc.sharding import Mesh, PartitionSpec as P

    rank = jaxc.process_index()
    out = {"rank": rank}
    tree = {"v": np.arange(3, dtype=np.float32) + 10 * rank, "s": np.int32(rank)}
    out["gather"] = {k: np.asarray(v).tolist() for k, v in mh.process_allgather(tree).items()}
    out["tiled"] = {k: np.asarray(v).tolist() for k, v in mh.process_allgather(tree, tiled=True).items()}
    out["from0"] = np.asarray(mh.broadcast_one_to_all(tree)["v"]).tolist()
    out["from1"] = np.asarray(mh.broadcast_one_to_all(tree, is_source=rank == 1)["v"]).tolist()
    out["bool"] = np.asarray(mh.broadcast_one_to_all(np.array([rank == 0, False]))).tolist()
    mh.sync_global_devices("checkpoint")
    try:
        mh.sync_global_devices(f"name of {rank}")
    except AssertionError as e:
        out["mismatch"] = str(e)
    try:
        mh.assert_equal(np.float32(rank), "ranks differ")
    except AssertionError as e:
        out["unequal"] = str(e)
    try:
        mh.process_allgather(np.zeros(rank + 1))
    except ValueError as e:
        out["shapes"] = str(e)
    mesh = Mesh(mesh_utils.create_hybrid_device_mesh((2,), (2,), process_is_granule=True), ("x",))
    out["mesh"] = [d.id for d in mesh.devices]
    g = mh.host_local_array_to_global_array({"v": np.arange(2.0) + 10 * rank, "r": np.ones(3)}, mesh,
                                            {"v": P("x"), "r": P()})
    out["global"] = {"shape": list(g["v"].shape), "r": type(g["r"]).__name__,
                     "back": np.asarray(mh.global_array_to_host_local_array(g, mesh, P())["v"]).tolist(),
                     "all": mh.process_allgather(g["v"]).tolist()}
    with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
""")


@pytest.mark.skipif(mpi4py is None or MPIEXEC is None, reason="the mpi extra (mpich, mpi4py) is not installed")
def test_multihost_utils_across_two_processes(tmp_path) -> None:
    script = tmp_path / "multihost.py"
    script.write_text(MPI_PROGRAM)
    run = subprocess.run([MPIEXEC, "-n", "2", sys.executable, str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    results = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    for r in results:
        assert r["gather"] == {"v": [[0, 1, 2], [10, 11, 12]], "s": [0, 1]}
        assert r["tiled"] == {"v": [0, 1, 2, 10, 11, 12], "s": [0, 1]}   # a scalar is stacked
        assert r["from0"] == [0, 1, 2] and r["from1"] == [10, 11, 12]
        assert r["bool"] == [True, False]
        assert "sync_global_devices name mismatch ('name of" in r["mismatch"]
        assert r["unequal"].startswith("ranks differ. Expected: [0. 1.]")
        assert "same shape and dtype" in r["shapes"] and "process 1: float64[2]" in r["shapes"]
        assert r["mesh"] == [0, 1, 2, 3]
        # an array split over the processes: this process's rows, the global value gathered
        assert r["global"]["shape"] == [4] and r["global"]["r"] == "Array"
        assert r["global"]["all"] == [0, 1, 10, 11]
        assert r["global"]["back"] == [10 * results.index(r), 10 * results.index(r) + 1]
