"""The process's own JIT (jaxc/runtime/orc.py, ``jaxc_cpu_compiler="jit"``):
the same machine code as MLIR's execution engine, programs freed and their
JITDylibs reused, LLVM's errors as exceptions, the fallback to the engine and
the persistent cache storing its objects. Values are checked against NumPy and
the engine."""
from __future__ import annotations

import ctypes
import gc
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from cpu_compilers import compiled, compiler

import jaxc
import jaxc.numpy as jnp
from jaxc.runtime import cpu, llvm_tools, orc


def kernels(x):
    """OpenMP teams, libmvec (sin, exp), bf16/f16 conversions, a strided
    reduction and a product (the compiled library)."""
    y = jnp.sin(x) * 0.5 + jnp.exp(-x * x)
    return (y, y.astype(jnp.bfloat16).astype(jnp.float32), y.astype(jnp.float16), x[::2, ::3].sum(0),
            x[:64, :48] @ x[:48, :40])


def test_the_jit_makes_the_engines_numbers_bit_for_bit() -> None:
    x = np.linspace(-30, 30, 512 * 1024, dtype=np.float32).reshape(1024, 512)
    with compiler("jit"):
        executable, out = compiled(kernels, x)
    assert isinstance(executable.engine, orc.Program)
    assert executable.code_bytes == sum(map(len, executable.engine.objects)) > 0
    assert any(fn.parallel for fn in executable.functions.values())
    with compiler("engine"):
        engine_executable, engine_out = compiled(kernels, x)
    assert not isinstance(engine_executable.engine, orc.Program)
    for got, engine in zip(out, engine_out):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(engine))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(out[0]), np.sin(x64) * 0.5 + np.exp(-x64 ** 2), rtol=2e-6, atol=2e-7)
    np.testing.assert_allclose(np.asarray(out[4]), x64[:64, :48] @ x64[:48, :40], rtol=1e-5)


def test_auto_compiles_small_programs_in_the_jit() -> None:
    with compiler("auto"):
        executable, out = compiled(lambda a, b: a * b + 1, np.arange(5, dtype=np.float32),
                                   np.full(5, 2, np.float32))
    assert isinstance(executable.engine, orc.Program)
    np.testing.assert_array_equal(np.asarray(out), [1, 3, 5, 7, 9])


def test_every_opt_level_compiles(monkeypatch) -> None:
    text = jaxc.jit(lambda a: jnp.tanh(a) * 3).lower(np.ones((3, 7), np.float32)).as_text()
    x = np.linspace(-2, 2, 21, dtype=np.float32).reshape(3, 7)
    with compiler("jit"):
        for level in range(4):
            executable = cpu.compile_module(text, opt_level=level)
            assert isinstance(executable.engine, orc.Program)
            (got,) = executable[next(iter(executable.functions))](x)
            np.testing.assert_allclose(got, np.tanh(x.astype(np.float64)) * 3, rtol=2e-6, atol=1e-6)


def test_freed_programs_give_their_jitdylib_to_the_next() -> None:
    jit = orc.jit()
    with compiler("jit"):
        for i in range(3):  # compile, use and free a few programs
            executable, out = compiled(lambda a, i=i: a + i, np.zeros(3, np.float32))
            np.testing.assert_array_equal(np.asarray(out), i)
            del executable, out
            jaxc.clear_caches()
            gc.collect()
        made = jit.dylib_count
        assert jit.free_dylibs, "a freed program's JITDylib is kept for reuse"
        executable, out = compiled(lambda a: a * 7, np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(out), 7)
    assert jit.dylib_count == made  # reused, not created


def test_llvm_errors_are_exceptions_and_the_jit_goes_on() -> None:
    with pytest.raises(orc.OrcError, match="cannot parse the module"):
        orc.compile_objects("define void @f( {\n")
    calls_missing = textwrap.dedent("""
        declare void @jaxc_test_no_such_function()
        define void @_mlir_ciface_f() {
          call void @jaxc_test_no_such_function()
          ret void
        }
        define void @_mlir__mlir_ciface_f(ptr %args) {
          call void @_mlir_ciface_f()
          ret void
        }
    """)
    objects = orc.compile_objects(calls_missing)
    with pytest.raises(orc.OrcError, match="jaxc_test_no_such_function"):
        orc.Program(objects, ["_mlir_ciface_f"], [])
    with compiler("jit"):  # the JIT still compiles after a failed link
        executable, out = compiled(lambda a: a - 1, np.ones(2, np.float32))
    assert isinstance(executable.engine, orc.Program)
    np.testing.assert_array_equal(np.asarray(out), 0)


def _calling(callee: str) -> str:
    """LLVM IR of an entry point that calls `callee` (declared, not defined)."""
    return textwrap.dedent(f"""
        declare void @{callee}(i64, ptr, ptr)
        define void @_mlir_ciface_f() {{
          call void @{callee}(i64 0, ptr null, ptr null)
          ret void
        }}
        define void @_mlir__mlir_ciface_f(ptr %args) {{
          call void @_mlir_ciface_f()
          ret void
        }}
    """)


def test_on_demand_libraries_join_only_for_symbols_nothing_else_defines() -> None:
    """Not for a symbol of libc, of the given libraries, or of another part
    of the same program (a part's calls into its siblings are undefined in it)."""
    missing = orc.compile_objects(_calling("jaxc_test_no_such_function"))
    assert orc.undefined_symbols(missing[0]) == {"jaxc_test_no_such_function"}
    assert orc.libraries_for(missing, [], ["on-demand.so"]) == ["on-demand.so"]
    in_libc = orc.compile_objects(_calling("free"))
    assert orc.undefined_symbols(in_libc[0]) == {"free"}
    assert orc.libraries_for(in_libc, [], ["on-demand.so"]) == []
    kernels = cpu.kernels_library()
    assert orc.libraries_for(missing, [kernels], []) == [kernels]
    # compiled in two parts, one calls a function the other defines: nothing on demand
    module = _calling("jaxc_test_sibling").replace("declare void @jaxc_test_sibling(i64, ptr, ptr)\n", "")
    module += textwrap.dedent("""
        define void @jaxc_test_sibling(i64 %n, ptr %a, ptr %b) {
          ret void
        }
    """)
    parts = orc.compile_objects(module, 3, 2)
    across = set().union(*map(orc.undefined_symbols, parts)) & set().union(*map(orc.defined_symbols, parts))
    assert len(parts) == 2 and across  # a part calls a function of the other
    assert orc.libraries_for(parts, [], ["on-demand.so"]) == []


FRESH_PROCESS = textwrap.dedent("""
    import os, sys
    import numpy as np
    import jaxc, jaxc.numpy as jnp
    from jaxc.runtime import cpu, orc
    sys.path.insert(0, {tests!r})
    from test_orc import _calling

    def lib_mlir_loaded():
        return any(line.rstrip().endswith("/libMLIR.so") for line in open("/proc/self/maps"))

    out = jaxc.jit(lambda a: jnp.sin(a) * 2 + a.T)(np.ones((3, 3), np.float32))
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin(1) + 1, rtol=1e-6)
    assert not lib_mlir_loaded(), "a program that calls no runner utility loaded them"
    runner = [p for p in cpu.runtime_libraries() if os.path.basename(p) == cpu.RUNNER_UTILS]
    objects = orc.compile_objects(_calling("memrefCopy"))
    libraries = orc.libraries_for(objects, [], runner)
    assert libraries == runner and not lib_mlir_loaded()
    assert orc.Program(objects, ["_mlir_ciface_f"], libraries).raw_lookup("_mlir_ciface_f")
    assert lib_mlir_loaded()
    print("ok")
""")


def test_a_process_loads_the_runner_utilities_only_for_a_program_that_calls_them() -> None:
    env = {**os.environ, "JAXC_CPU_COMPILER": "jit"}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    program = FRESH_PROCESS.format(tests=os.path.dirname(__file__))
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0 and proc.stdout.split() == ["ok"], proc.stderr


def test_a_failing_jit_warns_and_the_engine_compiles(monkeypatch) -> None:
    def refuse(llvm_ir, opt_level=3, parts=1):
        raise orc.OrcError("LLVM code generation failed: out of luck")

    monkeypatch.setattr(orc, "compile_objects", refuse)
    monkeypatch.setattr(cpu, "_WARNED_LLVM_TOOLS", set())
    with compiler("jit"), pytest.warns(RuntimeWarning, match="in-process JIT failed.*out of luck"):
        executable, out = compiled(lambda a: jnp.exp(a), np.zeros(4, np.float32))
    assert not isinstance(executable.engine, orc.Program)
    np.testing.assert_array_equal(np.asarray(out), 1)


PROGRAM = textwrap.dedent("""
    import json
    import numpy as np
    import jaxc, jaxc.numpy as jnp
    from jaxc.runtime import cpu
    x = np.linspace(-3, 3, 4096, dtype=np.float32).reshape(64, 64)
    out = jaxc.jit(lambda a: (jnp.sin(a) @ a).sum(1))(x)
    print(json.dumps({"compiled": cpu.compile_count, "loaded": cpu.cache_load_count,
                      "out": np.asarray(out).tolist()}))
""")


def test_a_second_process_loads_what_the_jit_compiled(tmp_path) -> None:
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path), "JAXC_CPU_COMPILER": "jit",
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                              timeout=600, env=env)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.splitlines()[-1]))
    first, second = runs
    assert first["compiled"] >= 1 and first["loaded"] == 0
    assert second["loaded"] >= 1 and second["compiled"] < first["compiled"]
    x = np.linspace(-3, 3, 4096).reshape(64, 64)
    np.testing.assert_array_equal(first["out"], second["out"])
    np.testing.assert_allclose(first["out"], (np.sin(x) @ x).sum(1), rtol=1e-4, atol=1e-3)


# ----------------------------------------------------------------------------
# Programs compiled in parts at once
# ----------------------------------------------------------------------------

def test_partition_balances_functions_by_size() -> None:
    module = "".join(f"define void @f{i}() {{\n" + "  ; line\n" * size + "}\n"
                     for i, size in enumerate([50, 10, 40, 30, 5]))
    shares = orc.partition(module, 2)
    assert sorted(map(sorted, shares)) == [["f0", "f1", "f4"], ["f2", "f3"]]  # 65 and 70 lines
    assert sorted(orc.partition(module, 9), key=min) == [frozenset({f"f{i}"}) for i in range(5)]  # none empty
    small = "define void @a() {\n  ; line\n}\ndefine void @b() {\n}\n"
    assert llvm_tools.parts_for(small, cores=4, split_lines=orc.SPLIT_LINES) == 1  # too small to split
    assert llvm_tools.parts_for(module, cores=4, split_lines=1000) == 1
    big = module + "define internal void @\"g.x\"() {\n" + "  ; line\n" * orc.SPLIT_LINES + "}\n"
    assert llvm_tools.parts_for(big, cores=4, split_lines=orc.SPLIT_LINES) == 4
    assert llvm_tools.parts_for(big, cores=1, split_lines=orc.SPLIT_LINES) == 1
    assert frozenset({"g.x"}) in orc.partition(big, 4)


SHARED_STATE = textwrap.dedent("""
    @counter = internal global i64 5
    @table = private constant [2 x i64] [i64 100, i64 200]

    define internal i64 @bump(i64 %by) {
      %old = load i64, ptr @counter
      %new = add i64 %old, %by
      store i64 %new, ptr @counter
      %second = getelementptr [2 x i64], ptr @table, i64 0, i64 1
      %t = load i64, ptr %second
      %r = add i64 %new, %t
      ret i64 %r
    }

    define void @_mlir_ciface_f(ptr %out) {
      %a = call i64 @bump(i64 1)
      %b = call i64 @bump(i64 10)
      %c = load i64, ptr @counter
      %s = add i64 %a, %b
      %r = add i64 %s, %c
      store i64 %r, ptr %out
      ret void
    }

    define void @_mlir__mlir_ciface_f(ptr %args) {
      %cell = load ptr, ptr %args
      %out = load ptr, ptr %cell
      call void @_mlir_ciface_f(ptr %out)
      ret void
    }
""")


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_parts_share_internal_functions_and_variables(parts) -> None:
    """Internal functions and variables used across parts: one counter for
    the whole program, constants copied into each part."""
    objects = orc.compile_objects(SHARED_STATE, 3, parts)
    assert len(objects) == parts
    program = orc.Program(objects, ["_mlir_ciface_f"], [])
    out = ctypes.c_int64()
    cell = ctypes.pointer(out)
    args = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p))
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(program.raw_lookup("_mlir_ciface_f"))(args)
    assert out.value == (6 + 200) + (16 + 200) + 16  # the second call sees the first call's store


def test_a_program_split_over_the_cores_equals_one_object(monkeypatch) -> None:
    args = [np.random.default_rng(6).standard_normal(s).astype(np.float32) for s in [(96, 80), (80, 40)]]

    def f(a, b):
        h = jnp.tanh(a @ b)
        return jaxc.grad(lambda w: jnp.sum(jnp.sin(a @ w) ** 2))(b), jaxc.nn.softmax(h, axis=1), h.sum(0)

    with compiler("jit"):
        monkeypatch.setattr(llvm_tools, "parts_for", lambda llvm_ir, cores=None, split_lines=0: 1)
        whole, whole_out = compiled(f, *args)
        monkeypatch.setattr(llvm_tools, "parts_for", lambda llvm_ir, cores=None, split_lines=0: 2)
        split, split_out = compiled(f, *args)
    assert len(whole.engine.objects) == 1 and len(split.engine.objects) == 2
    for got, want in zip(split_out, whole_out):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-7)
    a64, b64 = (x.astype(np.float64) for x in args)
    np.testing.assert_allclose(np.asarray(split_out[2]), np.tanh(a64 @ b64).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("choice", ["jit", "engine"])
def test_a_program_without_branches_is_compiled_at_O0(choice) -> None:
    """All of a product's work is the library's gemm and an FFT's the
    library's transform: no branch is left at the `llvm` stage, LLVM compiles
    it at -O0 (`cpu.codegen_opt_level`), with the same numbers. A program
    with loops keeps -O3."""
    rng = np.random.RandomState(0)
    a, b = rng.randn(96, 80).astype(np.float32), rng.randn(80, 64).astype(np.float32)
    z = (rng.randn(8, 64) + 1j * rng.randn(8, 64)).astype(np.complex64)
    with compiler(choice):
        product, out = compiled(lambda a, b: a @ b, a, b)
        assert product.opt_level == 0
        np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5, atol=1e-5)
        fft, out = compiled(jnp.fft.fft, z)
        assert fft.opt_level == 0
        np.testing.assert_allclose(np.asarray(out), np.fft.fft(z), rtol=1e-4, atol=1e-4)
        loop, out = compiled(lambda x: jnp.sin(x).sum(0), a)
        assert loop.opt_level == 3
        np.testing.assert_allclose(np.asarray(out), np.sin(a).sum(0), rtol=1e-5, atol=1e-5)
