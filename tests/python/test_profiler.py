"""jaxc.profiler: traces (files, events, annotations, options, errors) and
device memory profiles (decoded here with an independent protobuf reader;
compared with JAX's when JAX is installed; `go tool pprof` when go is)."""
from __future__ import annotations

import glob
import gzip
import inspect
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import profiler

# ---------------------------------------------------------------------------
# Reading what the profiler wrote
# ---------------------------------------------------------------------------

def read_trace(log_dir, name: str = None) -> dict:
    """The one trace under `log_dir` (its .trace.json.gz, or `name`)."""
    folders = glob.glob(os.path.join(str(log_dir), "plugins", "profile", "*"))
    assert len(folders) == 1, folders
    pattern = name or f"{socket.gethostname()}.trace.json.gz"
    (path,) = glob.glob(os.path.join(folders[0], pattern))
    with gzip.open(path, "rt") as file:
        return json.load(file)


def events(trace: dict, category: str | None = None) -> list[dict]:
    return [e for e in trace["traceEvents"]
            if e["ph"] == "X" and (category is None or e["cat"] == category)]


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def _fields(data: bytes) -> list[tuple[int, object]]:
    """(field number, int or bytes) of one protobuf message."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            value, i = data[i:i + size], i + size
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((number, value))
    return out


def _ints(value) -> list[int]:
    if isinstance(value, int):
        return [value]
    out, i = [], 0
    while i < len(value):
        x, i = _varint(value, i)
        out.append(x)
    return out


def decode_profile(data: bytes) -> dict:
    """A gzipped pprof Profile as {"sample_types": [...], "samples": [(values,
    labels, [(function, file, line), ...])]}."""
    message = _fields(gzip.decompress(data))
    strings = [v.decode() for n, v in message if n == 6]
    assert strings[0] == ""
    functions = {}
    for n, v in message:
        if n == 5:
            f = dict(_fields(v))
            functions[f[1]] = (strings[f.get(2, 0)], strings[f.get(4, 0)])
    locations = {}
    for n, v in message:
        if n == 4:
            fields = _fields(v)
            (line,) = [dict(_fields(x)) for k, x in fields if k == 4]
            locations[dict(fields)[1]] = (*functions[line[1]], line.get(2, 0))
    samples = []
    for n, v in message:
        if n == 2:
            ids, values, labels = [], [], {}
            for k, x in _fields(v):
                if k == 1:
                    ids += _ints(x)
                elif k == 2:
                    values += _ints(x)
                elif k == 3:
                    label = dict(_fields(x))
                    labels[strings[label[1]]] = strings[label.get(2, 0)]
            samples.append((values, labels, [locations[i] for i in ids]))
    sample_types = [tuple(strings[x] for _, x in _fields(v)) for n, v in message if n == 1]
    return {"sample_types": sample_types, "samples": samples}


@pytest.fixture(autouse=True)
def no_trace_left():
    yield
    if profiler.TraceAnnotation.is_enabled():
        profiler.stop_trace()
        pytest.fail("a test left a trace running")


# ---------------------------------------------------------------------------
# Traces
# ---------------------------------------------------------------------------

def test_trace_files_and_compile_events(tmp_path) -> None:
    def scaled_sin(a):
        return jnp.sin(a) * 2.0 + 1.0

    f = jaxc.jit(scaled_sin)
    x = np.linspace(0, 1, 200 * 200, dtype=np.float32).reshape(200, 200)
    with profiler.trace(tmp_path, create_perfetto_trace=True):
        xd = jaxc.device_put(x)
        y = np.asarray(f(xd))
    np.testing.assert_allclose(y, np.sin(x) * 2 + 1, rtol=1e-6)
    trace = read_trace(tmp_path)
    perfetto = read_trace(tmp_path, "perfetto_trace.json.gz")
    assert trace["metadata"]["jaxc_version"] == jaxc.__version__
    assert "metadata" not in perfetto and perfetto["traceEvents"] == trace["traceEvents"]

    (traced,) = events(trace, "tracing")
    assert traced["name"] == "trace jit(scaled_sin)"
    stages = {e["name"]: e for e in events(trace, "compile") if e["name"].startswith("stage ")}
    assert list(stages) == [f"stage {s}" for s in ("traced", "transformed", "optimized", "linalg",
                                                   "annotated", "propagated", "partitioned", "scheduled", "bufferized",
                                                   "loops", "llvm")]
    assert traced["ts"] + traced["dur"] <= stages["stage traced"]["ts"]
    passes = events(trace, "mlir-pass")
    linalg = stages["stage linalg"]
    inside = [p["name"] for p in passes
              if linalg["ts"] <= p["ts"] and p["ts"] + p["dur"] <= linalg["ts"] + linalg["dur"] + 1e-3]
    assert "JaxcToLinalg" in inside and "Canonicalizer" in inside
    (llvm,) = [e for e in events(trace, "compile") if e["name"] == "llvm compile"]
    assert llvm["ts"] >= stages["stage llvm"]["ts"] + stages["stage llvm"]["dur"] - 1e-3
    assert llvm["args"]["code_bytes"] > 0

    (execution,) = events(trace, "execution")
    assert execution["name"] == "jit(scaled_sin)" and execution["ts"] >= llvm["ts"] + llvm["dur"]
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    # 40000 elements: enqueued on the device's executor, or run by this thread
    # waiting for it before the executor started it (no OpenMP team: run_here)
    assert names[execution["tid"]] in ("jaxc-cpu-0", threading.current_thread().name)
    to_device, to_host = events(trace, "transfer")
    assert (to_device["name"], to_device["args"]["bytes"]) == ("transfer to device", x.nbytes)
    assert (to_host["name"], to_host["args"]["bytes"]) == ("transfer to host", x.nbytes)
    assert to_host["ts"] + to_host["dur"] >= execution["ts"] + execution["dur"] - 1e-3


def test_fast_path_calls_are_recorded(tmp_path) -> None:
    """Small programs normally run in C without the executor; during a trace
    they take the Python path and are recorded (then the fast path returns)."""
    f = jaxc.jit(lambda a, b: a * b + 1.0)
    a = jnp.ones(4)
    for _ in range(3):
        f(a, a)  # registered for the C fast path
    with profiler.trace(tmp_path):
        for _ in range(3):
            f(a, a)
        a + a  # an eager op's fast path, too
    names = [e["name"] for e in events(read_trace(tmp_path), "execution")]
    assert names == ["jit(_lambda_)"] * 3 + ["add"]
    np.testing.assert_array_equal(f(a, a), np.full(4, 2.0, np.float32))


def test_annotations(tmp_path) -> None:
    @profiler.annotate_function
    def load_batch(n):
        return jnp.arange(float(n))

    @jaxc.profiler.annotate_function
    def plain():
        return 1

    named = profiler.annotate_function(lambda: 2, name="custom", phase="eval")
    assert load_batch.__name__ == "load_batch"
    with profiler.trace(tmp_path):
        for step in range(2):
            with profiler.StepTraceAnnotation("train", step_num=step):
                with profiler.TraceAnnotation("forward", batch=8) as annotation:
                    load_batch(3).block_until_ready()
                    annotation.set_metadata(extra="yes")
        assert plain() == 1 and named() == 2
    trace = read_trace(tmp_path)
    steps = events(trace, "step")
    assert [(e["name"], e["args"]) for e in steps] == [("train", {"step_num": 0}),
                                                       ("train", {"step_num": 1})]
    annotations = events(trace, "annotation")
    forward = [e for e in annotations if e["name"] == "forward"]
    assert [e["args"] for e in forward] == [{"batch": 8, "extra": "yes"}] * 2
    qualname = "test_annotations.<locals>.load_batch"
    loads = [e for e in annotations if e["name"] == qualname]
    assert len(loads) == 2
    for step, outer, inner in zip(steps, forward, loads):  # nested in time
        assert step["ts"] <= outer["ts"] <= inner["ts"]
        assert inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] <= step["ts"] + step["dur"]
    assert [e for e in annotations if e["name"] == "custom"][0]["args"] == {"phase": "eval"}
    assert any(e["name"] == "test_annotations.<locals>.plain" for e in annotations)


def test_annotations_without_a_trace_record_nothing(tmp_path) -> None:
    with profiler.TraceAnnotation("idle"):
        pass
    assert not profiler.TraceAnnotation.is_enabled()
    with profiler.trace(tmp_path):
        assert profiler.TraceAnnotation.is_enabled()
    assert [e["name"] for e in events(read_trace(tmp_path))] == []


def test_start_stop_errors(tmp_path) -> None:
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path / "a")
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path / "b")
        with pytest.raises(RuntimeError, match="already been started"):
            with profiler.trace(tmp_path / "c"):
                pass
    finally:
        profiler.stop_trace()
    assert not (tmp_path / "b").exists()
    with pytest.raises(ValueError, match="boom"):
        with profiler.trace(tmp_path / "d"):
            raise ValueError("boom")
    assert not profiler.TraceAnnotation.is_enabled()
    read_trace(tmp_path / "d")  # written all the same
    (tmp_path / "file").write_text("")
    with pytest.raises(FileExistsError):
        profiler.start_trace(tmp_path / "file")
    assert not profiler.TraceAnnotation.is_enabled()
    with pytest.raises(TypeError, match="ProfileOptions"):
        profiler.start_trace(tmp_path / "e", profiler_options={"host_tracer_level": 1})


def test_two_traces_in_one_second_keep_both(tmp_path) -> None:
    for _ in range(2):
        with profiler.trace(tmp_path):
            pass
    assert len(glob.glob(str(tmp_path / "plugins" / "profile" / "*" / "*.trace.json.gz"))) == 2


@pytest.mark.parametrize("options, categories", [
    (profiler.ProfileOptions(), {"annotation", "tracing", "compile", "mlir-pass", "execution"}),
    (profiler.ProfileOptions(host_tracer_level=1), {"annotation", "execution"}),
    (profiler.ProfileOptions(device_tracer_level=0),
     {"annotation", "tracing", "compile", "mlir-pass"}),
    (profiler.ProfileOptions(host_tracer_level=0, device_tracer_level=0), set()),
])
def test_profile_options_levels(tmp_path, options, categories) -> None:
    shift = float(len(categories) + 10 * options.host_tracer_level)  # a program not compiled yet
    f = jaxc.jit(lambda a: a - shift)
    x = jnp.ones(3)
    with profiler.trace(tmp_path, profiler_options=options):
        with profiler.TraceAnnotation("work"):
            f(x).block_until_ready()
    assert {e["cat"] for e in events(read_trace(tmp_path))} == categories


def test_python_tracer(tmp_path) -> None:
    def helper_function(x):
        return x + 1

    with profiler.trace(tmp_path, profiler_options=profiler.ProfileOptions(python_tracer_level=1)):
        helper_function(1)
    python = events(read_trace(tmp_path), "python")
    (call,) = [e for e in python if e["name"].endswith("helper_function")]
    assert call["args"]["line"] == inspect.getsourcelines(helper_function)[1]


def test_profile_window(tmp_path) -> None:
    later = time.time_ns() + 10**12  # starts in 1000 s: nothing inside
    options = profiler.ProfileOptions(start_timestamp_ns=later, duration_ms=5)
    with profiler.trace(tmp_path, profiler_options=options):
        with profiler.TraceAnnotation("outside"):
            pass
    assert events(read_trace(tmp_path)) == []


def test_perfetto_link(tmp_path, capsys) -> None:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 9001)) == 0:
            pytest.skip("port 9001 is in use")
    profiler.start_trace(tmp_path, create_perfetto_link=True)
    with profiler.TraceAnnotation("linked"):
        pass
    stopper = threading.Thread(target=profiler.stop_trace)
    stopper.start()
    body = None
    for _ in range(200):
        try:
            with urllib.request.urlopen("http://127.0.0.1:9001/perfetto_trace.json.gz", timeout=5) as r:
                body = r.read()
            break
        except OSError:
            time.sleep(0.05)
    stopper.join(timeout=30)
    assert not stopper.is_alive()
    assert [e["name"] for e in events(json.loads(gzip.decompress(body)))] == ["linked"]
    assert "https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# Device memory profiles
# ---------------------------------------------------------------------------

def make_user_array():
    return jnp.zeros((123, 7), jnp.float32) + 1.0  # line checked below


def _samples_from(profile: dict, function: str) -> list:
    return [s for s in profile["samples"] if any(frame[0] == function for frame in s[2])]


def test_memory_profile_buffers_and_executables(tmp_path) -> None:
    kept = make_user_array()
    line = inspect.getsourcelines(make_user_array)[1] + 1
    profile = decode_profile(profiler.device_memory_profile())
    assert profile["sample_types"] == [("allocations", "count"), ("space", "bytes")]
    (sample,) = [s for s in _samples_from(profile, "make_user_array") if s[0][1] == 123 * 7 * 4]
    values, labels, stack = sample
    assert values == [1, 123 * 7 * 4]
    assert labels == {"kind": "buffer", "device": "cpu:0"}
    frame = [f for f in stack if f[0] == "make_user_array"][0]
    assert frame[1] == __file__ and frame[2] == line
    caller = stack.index(frame) + 1  # innermost first: the test calls make_user_array
    assert stack[caller][0] == "test_memory_profile_buffers_and_executables"
    executables = [s for s in profile["samples"] if s[1] == {"kind": "executable"}]
    assert executables and all(s[0][0] == 1 and s[0][1] >= 0 for s in executables)
    assert any(s[0][1] > 0 for s in executables)

    profiler.save_device_memory_profile(tmp_path / "memory.prof")
    saved = decode_profile((tmp_path / "memory.prof").read_bytes())
    def user_buffers(profile):
        return [s for s in _samples_from(profile, "make_user_array") if s[0][1] == 123 * 7 * 4]

    assert len(user_buffers(saved)) == 1
    assert len(user_buffers(decode_profile(profiler.device_memory_profile("cpu")))) == 1
    del kept
    assert user_buffers(decode_profile(profiler.device_memory_profile())) == []
    with pytest.raises(RuntimeError, match="unknown backend 'tpu'"):
        profiler.device_memory_profile("tpu")


def jit_in_user_code(f, x):
    return f(x)


def test_memory_profile_stack_of_a_fast_path_result() -> None:
    f = jaxc.jit(lambda a: a * 5.0)
    x = jnp.ones(3)
    for _ in range(2):
        f(x)  # the C fast path creates the Arrays from now on
    kept = jit_in_user_code(f, x)
    (sample,) = _samples_from(decode_profile(profiler.device_memory_profile()), "jit_in_user_code")
    assert sample[0] == [1, 12]
    assert sample[2][0][0] == "jit_in_user_code"  # created in C: the innermost Python frame
    del kept


def test_live_arrays() -> None:
    kept = jnp.full((5,), 2.0)
    assert any(a is kept for a in jaxc.live_arrays())
    assert any(a is kept for a in jaxc.live_arrays("cpu"))


def test_memory_profile_shape_matches_jax() -> None:
    jax = pytest.importorskip("jax")
    kept_jax = jax.numpy.ones((10, 10))
    kept = jnp.ones((10, 10))
    # a live compiled program for the "executable" samples, whatever earlier tests freed
    add_one = jaxc.jit(lambda a: a + 1)
    kept_sum = add_one(kept)
    theirs = decode_profile(jax.profiler.device_memory_profile())
    ours = decode_profile(profiler.device_memory_profile())
    assert ours["sample_types"] == theirs["sample_types"]
    for kind in ("buffer", "executable"):
        their_keys = {tuple(sorted(s[1])) for s in theirs["samples"] if s[1]["kind"] == kind}
        our_keys = {tuple(sorted(s[1])) for s in ours["samples"] if s[1]["kind"] == kind}
        assert our_keys == their_keys
    their_devices = {s[1]["device"] for s in theirs["samples"] if s[1]["kind"] == "buffer"}
    assert their_devices == {"cpu:0"}
    assert {s[0][1] for s in theirs["samples"]} & {s[0][1] for s in ours["samples"]} >= {400}
    del kept, kept_jax, kept_sum, add_one


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_pprof_reads_the_profile(tmp_path) -> None:
    kept = make_user_array()
    profiler.save_device_memory_profile(tmp_path / "memory.prof")
    out = subprocess.run(["go", "tool", "pprof", "-top", "-sample_index=space",
                          str(tmp_path / "memory.prof")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "make_user_array" in out.stdout or "Array._ready" in out.stdout
    del kept
