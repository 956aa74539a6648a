"""jaxc.distributed over MPI: pmap and shard_map across 2 processes started
by mpiexec (the mpich and mpi4py wheels, which `make test` installs;
skipped without them). docs/parallel.md."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")

try:
    import mpi4py  # noqa: F401
except ImportError:
    mpi4py = None

needs_mpi = pytest.mark.skipif(mpi4py is None or MPIEXEC is None,
                               reason="the mpi extra (mpich, mpi4py) is not installed")


def mpirun(*args, processes=2, timeout=600):
    out = subprocess.run([MPIEXEC, "-n", str(processes), sys.executable, *args], capture_output=True,
                         text=True, timeout=timeout, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@needs_mpi
def test_collectives_span_the_processes(tmp_path):
    mpirun(os.path.join(HERE, "mpi_collectives.py"), str(tmp_path))
    lines = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert sorted(r["rank"] for r in lines) == [0, 1]
    rows = np.concatenate([np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r for r in range(2)])  # (4, 3)
    for r in lines:
        rank, out = r["rank"], r["out"]
        assert r["count"] == 2 and r["devices"] == [0, 1, 2, 3] and r["local"] == [2 * rank, 2 * rank + 1]
        np.testing.assert_allclose(out["psum"], np.broadcast_to(rows.sum(0), (2, 3)))
        np.testing.assert_allclose(out["pmean"], np.broadcast_to(rows.mean(0), (2, 3)))
        np.testing.assert_allclose(out["pmax"], np.broadcast_to(rows.max(0), (2, 3)))
        np.testing.assert_allclose(out["pmin"], np.broadcast_to(rows.min(0), (2, 3)))
        assert out["index"] == [2 * rank, 2 * rank + 1] and out["size"] == [4, 4]
        np.testing.assert_allclose(out["gather"], np.broadcast_to(rows, (2, 4, 3)))
        mine = rows[2 * rank:2 * rank + 2]
        np.testing.assert_allclose(out["grad"], 2 * 4 * mine, rtol=1e-6)  # psum transposes to psum
        # ppermute: device g gets the row of the device sending to it (zeros where none does)
        np.testing.assert_array_equal(out["ring"], np.roll(rows, 1, axis=0)[2 * rank:2 * rank + 2])
        pairs = np.zeros((4, 3), np.int32)
        pairs[3], pairs[1] = rows[0], rows[3]
        np.testing.assert_array_equal(out["pairs"], pairs[2 * rank:2 * rank + 2])
        # all_to_all (split and concat axis 0, tiled): device g gets chunk g of every device's
        # stack [v, -v, 2v, 3v], in device order
        scale = np.array([1, -1, 2, 3], np.float32)
        expected = np.stack([np.stack([scale[g] * rows[d] for d in range(4)]) for g in range(4)])
        np.testing.assert_array_equal(out["to_all"], expected[2 * rank:2 * rank + 2])


@needs_mpi
def test_shard_map_on_a_mesh_of_both_processes(tmp_path):
    """shard_map over 2 processes x 2 devices against NumPy and against the
    same script in one process of 4 devices; arrays spanning the processes
    (make_array_from_process_local_data) and their errors."""
    script = os.path.join(HERE, "mpi_shard_map.py")
    mpirun(script, str(tmp_path))
    single = subprocess.run([sys.executable, script, str(tmp_path), "--single"], capture_output=True, text=True,
                            timeout=600, cwd=ROOT)
    assert single.returncode == 0, single.stderr
    one = json.loads((tmp_path / "single.json").read_text())
    rows = np.arange(8 * 3, dtype=np.float32).reshape(8, 3) / 7 - 1
    w = np.array([0.5, -1.0, 2.0], np.float32)
    blocks = rows.reshape(4, 2, 3)
    grid = rows.reshape(2, 2, 6)
    expected = {"psum": blocks.sum(0), "double": 2 * rows, "index": np.arange(4), "gather": rows,
                "pmax": blocks.sum((1, 2)).max(), "pmean": blocks.mean(0), "from_numpy": rows.sum(0),
                "loss": ((rows @ w) ** 2).sum(), "grad": 2 * rows.T @ (rows @ w),
                "psum_both": grid.reshape(4, 6).sum(0).reshape(1, 1, 6),
                "psum_m": grid.sum(1, keepdims=True),
                "d_psum": grid.sum(0, keepdims=True), "d_pmean": grid.mean(0, keepdims=True),
                "d_pmax": grid.max(0, keepdims=True), "d_gather": grid, "d_index": np.repeat(np.arange(2)[:, None], 2, axis=1),
                "d_ppermute": grid[::-1], "md_psum": grid.reshape(4, 6).sum(0).reshape(1, 1, 6),
                "jit_loss": ((rows @ w) ** 2).sum(), "jit_grad": 2 * rows.T @ (rows @ w), "jit_double": 2 * rows,
                "jit_colsum": rows.sum(0), "put": rows, "made": rows, "put_replicated": w}
    mean, std = rows.mean(0), rows.std(0)
    eager = {"mul_add": ("GlobalArray", 2 * rows + 1), "sum": ("Array", rows.sum()), "mean0": ("Array", mean),
             "tanh_w": ("GlobalArray", np.tanh(rows) @ w), "norm": ("GlobalArray", (rows - mean) / std),
             "where": ("GlobalArray", np.where(rows > 0, rows, 0)), "max1": ("GlobalArray", rows.max(1)),
             "transpose": ("GlobalArray", rows.T), "row": ("Array", rows[5]), "column": ("Array", rows[:, 1]),
             "reshape": ("Array", rows.reshape(4, 6)), "argmax": ("Array", rows.argmax(1)), "rows": ("Array", rows[6]),
             "float_sum": ("float", (rows ** 2).sum()), "grad": ("Array", 2 * rows.T @ (rows @ w))}
    for rank in range(2):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert got["devices"] == [0, 1, 2, 3] == one["devices"]
        for name, value in expected.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-5, err_msg=name)
            np.testing.assert_allclose(got[name], one[name], rtol=1e-5, atol=1e-6, err_msg=name)
        # this process's part of the global batch: its two devices' rows
        assert got["jit_kinds"] == ["Array", "Array", "GlobalArray", "Array"]  # split over the processes or not
        assert got["put_kind"] == "GlobalArray"
        assert got["dtypes"] == ["float32", "float32"] == one["dtypes"]
        assert got["asked"] == [[4 * rank, 4 * rank + 2], [4 * rank + 2, 4 * rank + 4]]  # its own devices' rows
        assert one["asked"] == [[0, 2], [2, 4], [4, 6], [6, 8]]
        assert got["global"]["shape"] == [8, 3]
        assert got["global"]["shards"] == [[2 * rank, 4 * rank, 4 * rank + 2], [2 * rank + 1, 4 * rank + 2, 4 * rank + 4]]
        np.testing.assert_allclose(np.concatenate(got["global"]["local"]), rows[4 * rank:4 * rank + 4])
        for what in ("asarray", "float", "tolist"):  # JAX's RuntimeError for reading an array spanning processes
            assert got[what].startswith("Fetching value for `jax.Array` that spans non-addressable"), what
        # operators and jnp functions on it: JAX's values; split over the processes or replicated, as JAX
        for name, (kind, reference) in eager.items():
            assert got[f"eager_{name}"][0] == kind, name
            np.testing.assert_allclose(got[f"eager_{name}"][1], reference, rtol=1e-5, atol=1e-5, err_msg=name)
            np.testing.assert_allclose(got[f"eager_{name}"][1], one[f"eager_{name}"][1], rtol=1e-5, atol=1e-6,
                                       err_msg=name)
        kind, reshaped, mine, row_kind, row = got["whole_jit"]
        assert (kind, row_kind) == ("GlobalArray", "Array")
        np.testing.assert_allclose(reshaped, rows.reshape(4, 6) + 1)
        np.testing.assert_allclose(mine, rows.reshape(4, 6)[2 * rank:2 * rank + 2] + 1)
        np.testing.assert_allclose(row, rows[3])
        kinds, values = got["jit_of_shard_map"]
        assert kinds == ["Array", "GlobalArray", "GlobalArray", "Array", "Array", "Array"]  # as the direct call's
        for name, value in zip(["psum", "double", "index", "gather", "pmax", "pmean"], values):
            np.testing.assert_allclose(value, expected[name], rtol=1e-5, atol=1e-5, err_msg=name)
        kind, inside = got["shard_map_inside_jit"]
        assert kind == "Array"
        np.testing.assert_allclose(inside, expected["grad"], rtol=1e-5)
        assert "mpi_shard_map.py" in got["bad_mesh"] \
            and "shard_map across processes: each process's devices" in got["bad_mesh"] \
            and "[[0], [1], [0], [1]]" in got["bad_mesh"]
        plain_loss, kind, plain_double = got["plain_jit"]
        np.testing.assert_allclose(plain_loss, expected["jit_loss"], rtol=1e-5)
        assert kind == "GlobalArray"
        np.testing.assert_allclose(plain_double, 2 * rows)


@needs_mpi
@pytest.mark.parametrize("mode", ["pmap", "shard_map"])
def test_data_parallel_training_over_two_processes_equals_one(tmp_path, mode):
    example = os.path.join(ROOT, "examples", "mpi_data_parallel.py")
    mpirun(example, "--mode", mode, "--out", str(tmp_path / "mpi.npz"))
    single = subprocess.run([sys.executable, example, "--single", "--out", str(tmp_path / "one.npz")],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert single.returncode == 0, single.stderr
    a, b = np.load(tmp_path / "mpi.npz"), np.load(tmp_path / "one.npz")
    assert sorted(a) == sorted(b) == ["b1", "b2", "w1", "w2"]
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-6)


def test_initialize_errors():
    """After the devices exist, initialize is JAX's RuntimeError; without
    MPI it says which extra to install."""
    code = ("import jaxc, numpy as np\n"
            "jaxc.numpy.ones(3).block_until_ready()\n"
            "try:\n    jaxc.distributed.initialize()\nexcept RuntimeError as e:\n    print('ERR', e)\n"
            "print(jaxc.process_count(), jaxc.process_index(), jaxc.distributed.is_initialized())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "must be called before any jaxc computations" in out.stdout
    assert out.stdout.strip().endswith("1 0 False")
