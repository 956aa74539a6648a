"""The CPU compiler that runs the pinned LLVM tools (jaxc/runtime/llvm_tools.py):
its packed entry points, programs split over cores, its choice against the
process's JIT and the execution engine (`jaxc_cpu_compiler`), and its
fallbacks when a tool is missing or fails. Values are checked against NumPy
and against the engine."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from cpu_compilers import compiled, compiler

import jaxc
import jaxc.numpy as jnp
from jaxc.runtime import compile_cache, cpu, llvm_tools, orc

if llvm_tools.unusable() is not None:
    pytest.skip(f"the LLVM tools cannot run here: {llvm_tools.unusable()}", allow_module_level=True)


def mlp_step(params, x, y):
    """A training step: products in three layouts, tanh, a softmax cross-entropy."""
    def loss(params):
        w1, w2 = params
        logits = jnp.tanh(x @ w1) @ w2
        return -jnp.mean(jnp.sum(jaxc.nn.log_softmax(logits) * y, axis=1))
    grads = jaxc.grad(loss)(params)
    return [w - 0.1 * g for w, g in zip(params, grads)]


def mlp_args(rng):
    params = [rng.standard_normal((70, 48)).astype(np.float32) * 0.1,
              rng.standard_normal((48, 10)).astype(np.float32) * 0.1]
    x = rng.standard_normal((33, 70)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 33)]
    return params, x, y


def mlp_step_numpy(params, x, y):
    w1, w2 = (p.astype(np.float64) for p in params)
    x, y = x.astype(np.float64), y.astype(np.float64)
    h = np.tanh(x @ w1)
    logits = h @ w2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    d_logits = (p - y) / len(x)
    g2 = h.T @ d_logits
    g1 = x.T @ ((d_logits @ w2.T) * (1 - h * h))
    return [w1 - 0.1 * g1, w2 - 0.1 * g2]


# ----------------------------------------------------------------------------
# Packed entry points
# ----------------------------------------------------------------------------

CIFACE = textwrap.dedent("""
    define void @_mlir_ciface_f(ptr %0, ptr %1, ptr %2) {
      ret void
    }
""")


def test_packed_entry_point_loads_each_argument_from_its_cell() -> None:
    wrapper = llvm_tools.packed_entry_points(CIFACE, ["f"])
    assert wrapper.startswith("define void @_mlir__mlir_ciface_f(ptr %args) {")
    for i in range(3):
        assert f"%p{i} = getelementptr inbounds ptr, ptr %args, i64 {i}" in wrapper
        assert f"%a{i} = load ptr, ptr %c{i}" in wrapper
    assert "call void @_mlir_ciface_f(ptr %a0, ptr %a1, ptr %a2)" in wrapper


def test_packed_entry_point_errors_name_the_function() -> None:
    with pytest.raises(llvm_tools.ToolError, match="no C interface '_mlir_ciface_g'"):
        llvm_tools.packed_entry_points(CIFACE, ["g"])
    scalar = "define void @_mlir_ciface_h(ptr %0, i64 %1) {\n  ret void\n}\n"
    with pytest.raises(llvm_tools.ToolError, match="'_mlir_ciface_h' takes more than pointers"):
        llvm_tools.packed_entry_points(scalar, ["h"])


def test_parts_follow_the_module_size_and_the_cores() -> None:
    small = "define void @a() {\n}\n" * 10
    big = "define void @a() {\n" + "  ; line\n" * llvm_tools.SPLIT_LINES + "}\n" + "define void @b() {\n}\n"
    assert llvm_tools.parts_for(small, cores=4) == 1
    assert llvm_tools.parts_for(big, cores=1) == 1
    assert llvm_tools.parts_for(big, cores=4) == 2  # no more parts than definitions
    many = big + "define void @c() {\n}\n" * 20
    assert llvm_tools.parts_for(many, cores=64) == llvm_tools.MAX_PARTS


# ----------------------------------------------------------------------------
# Programs compiled by the tools
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("parts", [1, 2, 3])
def test_a_training_step_split_into_parts_equals_numpy_and_the_engine(monkeypatch, parts) -> None:
    args = mlp_args(np.random.default_rng(0))
    monkeypatch.setattr(llvm_tools, "parts_for", lambda llvm_ir, cores=None: parts)
    with compiler("tools"):
        executable, tools_out = compiled(mlp_step, *args)
    assert isinstance(executable.engine, compile_cache.CachedLibrary)
    with compiler("engine"):
        executable, engine_out = compiled(mlp_step, *args)
    assert not isinstance(executable.engine, compile_cache.CachedLibrary)
    for got, engine, want in zip(tools_out, engine_out, mlp_step_numpy(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(got), np.asarray(engine), rtol=1e-6, atol=1e-7)


def test_parallel_kernels_and_runtime_helpers() -> None:
    """OpenMP teams (a large elementwise chain), libmvec (sin), bf16 and f16
    conversions (the runtime's float16 helpers) and a strided input."""
    x = np.linspace(-30, 30, 512 * 1024, dtype=np.float32).reshape(1024, 512)

    def f(x):
        y = jnp.sin(x) * 0.5 + jnp.exp(-x * x)
        return y, y.astype(jnp.bfloat16).astype(jnp.float32), y.astype(jnp.float16), x[::2, ::3].sum(0)

    with compiler("tools"):
        executable, out = compiled(f, x)
    assert isinstance(executable.engine, compile_cache.CachedLibrary)
    assert any(fn.parallel for fn in executable.functions.values())
    with compiler("engine"):
        _, engine_out = compiled(f, x)
    for got, engine in zip(out, engine_out):  # the same IR through the same LLVM
        np.testing.assert_array_equal(np.asarray(got), np.asarray(engine))
    want = np.sin(x.astype(np.float64)) * 0.5 + np.exp(-x.astype(np.float64) ** 2)
    np.testing.assert_allclose(np.asarray(out[0]), want, rtol=2e-6, atol=2e-7)
    np.testing.assert_allclose(np.asarray(out[1]), np.asarray(out[0]), rtol=2 ** -8)
    np.testing.assert_array_equal(np.asarray(out[2]), np.asarray(out[0]).astype(np.float16))
    # 512 terms up to 30 in magnitude: f32 rounding allows ~1e-6 of their absolute sum (7.7e3)
    np.testing.assert_allclose(np.asarray(out[3]), x[::2, ::3].astype(np.float64).sum(0), atol=0.05)


def test_auto_uses_the_jit_for_small_and_large_modules() -> None:
    """The tools only when asked for: the JIT splits large modules too."""
    with compiler("auto"):
        small, out = compiled(lambda a, b: a + b, np.ones(4, np.float32), np.ones(4, np.float32))
        np.testing.assert_array_equal(np.asarray(out), 2.0)
        large, _ = compiled(mlp_step, *mlp_args(np.random.default_rng(1)))
    assert isinstance(small.engine, orc.Program)
    assert isinstance(large.engine, orc.Program)


def test_host_callbacks_stay_with_the_engine() -> None:
    """Programs that call back into Python resolve their callees in the
    engine: with "tools" they still compile there and work."""
    seen = []
    with compiler("tools"):
        out = jaxc.jit(lambda x: jaxc.debug.callback(lambda v: seen.append(np.asarray(v)), x) or x * 2)(
            np.arange(3, dtype=np.float32))
        jaxc.effects_barrier()
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
    np.testing.assert_array_equal(seen[0], [0, 1, 2])


def test_code_is_unloaded_with_its_last_executable() -> None:
    with compiler("tools"):
        executable, _ = compiled(mlp_step, *mlp_args(np.random.default_rng(2)))
    path = executable.engine.path
    handle = executable.engine.library._handle
    del executable
    jaxc.clear_caches()
    gc.collect()
    with open("/proc/self/maps") as maps:
        mapped = maps.read()
    assert path not in mapped.replace(" (deleted)", ""), "the library is still mapped"
    assert handle  # (it was loaded)


# ----------------------------------------------------------------------------
# Missing and failing tools
# ----------------------------------------------------------------------------

def test_a_missing_tool_warns_once_and_the_jit_compiles(monkeypatch) -> None:
    monkeypatch.setattr(llvm_tools, "unusable", lambda: "no C compiler to link with")
    monkeypatch.setattr(cpu, "_WARNED_LLVM_TOOLS", set())
    args = mlp_args(np.random.default_rng(3))
    with compiler("tools"), pytest.warns(RuntimeWarning, match="cannot compile here .no C compiler"):
        executable, out = compiled(mlp_step, *args)
    assert not isinstance(executable.engine, compile_cache.CachedLibrary)
    for got, want in zip(out, mlp_step_numpy(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    with compiler("tools"), warnings.catch_warnings():
        warnings.simplefilter("error")  # the second compilation does not warn again
        compiled(lambda a: a * 3, np.ones(3, np.float32))
    monkeypatch.setattr(cpu, "_WARNED_LLVM_TOOLS", set())
    with compiler("auto"), warnings.catch_warnings():
        warnings.simplefilter("error")  # "auto" never asks for the tools: no word about them
        executable, out = compiled(mlp_step, *args)
    assert isinstance(executable.engine, orc.Program)


def test_a_failing_tool_warns_with_its_message_and_the_jit_compiles(monkeypatch, tmp_path) -> None:
    failing = tmp_path / "opt"
    failing.write_text("#!/bin/sh\necho 'opt: out of luck' >&2\nexit 3\n")
    failing.chmod(0o755)
    real = llvm_tools.tool_paths()
    monkeypatch.setattr(llvm_tools, "tool_paths", lambda: {**real, "opt": str(failing)})
    monkeypatch.setattr(cpu, "_WARNED_LLVM_TOOLS", set())
    args = mlp_args(np.random.default_rng(4))
    with compiler("tools"), pytest.warns(RuntimeWarning, match=r"exit status 3\): opt: out of luck"):
        executable, out = compiled(mlp_step, *args)
    assert not isinstance(executable.engine, compile_cache.CachedLibrary)
    for got, want in zip(out, mlp_step_numpy(*args)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_the_option_is_checked() -> None:
    with pytest.raises(ValueError, match="jaxc_cpu_compiler"):
        jaxc.config.update("jaxc_cpu_compiler", "gcc")
    assert jaxc.config.read("jaxc_cpu_compiler") in ("auto", "tools", "jit", "engine")


# ----------------------------------------------------------------------------
# The persistent compilation cache stores the tools' library
# ----------------------------------------------------------------------------

PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    import jaxc, jaxc.numpy as jnp
    from jaxc.runtime import cpu
    sys.path.insert(0, {tests!r})
    from test_llvm_tools import mlp_step, mlp_args
    out = jaxc.jit(mlp_step)(*mlp_args(np.random.default_rng(5)))
    print(json.dumps({{"compiled": cpu.compile_count, "loaded": cpu.cache_load_count,
                      "out": [np.asarray(o).tolist() for o in out]}}))
""")


def test_a_second_process_loads_what_the_tools_built(tmp_path) -> None:
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path), "JAXC_CPU_COMPILER": "tools",
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    program = PROGRAM.format(tests=os.path.dirname(os.path.abspath(__file__)))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              timeout=600, env=env)
        assert proc.returncode == 0, proc.stderr
        runs.append(__import__("json").loads(proc.stdout.splitlines()[-1]))
    first, second = runs
    assert first["compiled"] >= 1 and first["loaded"] == 0
    assert second["loaded"] >= 1 and second["compiled"] < first["compiled"]
    for a, b, want in zip(first["out"], second["out"], mlp_step_numpy(*mlp_args(np.random.default_rng(5)))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_allclose(np.asarray(a), want, rtol=1e-5, atol=1e-6)
