"""The persistent compilation cache (jaxc/runtime/compile_cache.py): a second
process loads what the first compiled; a changed module or CPU option misses;
damaged entries and unusable directories warn and compile; the options'
types are checked."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import jaxc
from jaxc._config import OPTIONS, _from_environment
from jaxc.runtime import compile_cache, compile_module, cpu, llvm_tools
from jaxc.runtime.compile_cache import CompilationCacheWarning

PROGRAM = textwrap.dedent("""
    import json
    import numpy as np
    import jaxc, jaxc.numpy as jnp
    from jaxc.runtime import compile_cache, cpu

    @jaxc.jit
    def f(x, w):
        return jnp.tanh(x @ w).sum(axis=0), x[::2, 1:3] * 2.0

    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    a, b = f(x, np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5))
    print(json.dumps({"compiled": cpu.compile_count, "loaded": cpu.cache_load_count,
                      "a": np.asarray(a).tolist(), "b": np.asarray(b).tolist(),
                      "stats": compile_cache.stats()}))
""")


def run_program(cache: str, **env: str) -> dict:
    environment = {**os.environ, "JAX_COMPILATION_CACHE_DIR": cache,
                   "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0", **env}
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env=environment, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "CompilationCacheWarning" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_program_instead_of_compiling(tmp_path) -> None:
    cache = str(tmp_path / "cache")  # created on the first write
    first = run_program(cache)
    assert first["compiled"] >= 1 and first["loaded"] == 0
    assert first["stats"]["misses"] >= 1
    written = compile_cache.entries(cache)
    assert written, "the first process exited without writing its entry"
    second = run_program(cache)
    assert second["compiled"] == 0, "the second process compiled instead of loading"
    assert second["loaded"] == first["compiled"] and second["stats"]["hits"] == second["loaded"]
    assert (second["a"], second["b"]) == (first["a"], first["b"])
    assert compile_cache.entries(cache) == written
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    w = np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5)
    np.testing.assert_allclose(second["a"], np.tanh(x @ w).sum(0), rtol=1e-5)
    np.testing.assert_array_equal(second["b"], x[::2, 1:3] * 2)
    # an entry names the shared libraries it needs beyond libc
    for path in written:
        meta = compile_cache.read_metadata(path)
        assert meta["needed"] == compile_cache.needed_libraries(open(path, "rb").read())


def test_a_jaxc_cpu_environment_variable_is_part_of_the_key(tmp_path) -> None:
    cache = str(tmp_path)
    first = run_program(cache)
    other = run_program(cache, JAXC_CPU_VECTOR_BITS="128")
    assert other["loaded"] == 0 and other["compiled"] == first["compiled"]
    assert other["a"] == pytest.approx(first["a"], rel=1e-5)
    assert len(compile_cache.entries(cache)) == 2 * first["compiled"]


def test_processes_writing_the_same_entry_at_once(tmp_path) -> None:
    cache = str(tmp_path)
    environment = {**os.environ, "JAX_COMPILATION_CACHE_DIR": cache,
                   "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    procs = [subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=environment) for _ in range(2)]
    outs = [proc.communicate(timeout=600) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outs]
    assert not [name for name in os.listdir(cache) if not name.startswith(compile_cache.PREFIX)]
    for path in compile_cache.entries(cache):
        compile_cache.read_metadata(path)  # whole entries only
    assert run_program(cache)["compiled"] == 0


# ----------------------------------------------------------------------------
# In this process
# ----------------------------------------------------------------------------

ADD = """
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %e = tensor.empty() : tensor<{n}xf32>
  %r = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.{op} %x, %y : f32
    linalg.yield %s : f32
  }} -> tensor<{n}xf32>
  return %r : tensor<{n}xf32>
}}
"""
_sizes = iter(range(1001, 2000))


def fresh_module(op: str = "addf") -> tuple[str, int]:
    """A module text no other test compiles: @f(a, b) = a op b on n floats."""
    n = next(_sizes)
    return ADD.format(n=n, op=op), n


def compile_again(text: str):
    """compile_module as a new process would: past this process's cache of texts."""
    for key in [key for key in cpu._CACHE if key[0] == text]:
        del cpu._CACHE[key]
    executable = compile_module(text)
    compile_cache.wait()
    return executable


def check_add(executable, n: int) -> None:
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    np.testing.assert_array_equal(executable["f"](a, b)[0], a + b)


@pytest.fixture
def cache_dir(tmp_path):
    """The cache on in `tmp_path`, every compilation written; restored after."""
    saved = {name: jaxc.config.read(name) for name in
             ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
              "jax_persistent_cache_min_entry_size_bytes")}
    jaxc.config.update("jax_compilation_cache_dir", str(tmp_path))
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    yield str(tmp_path)
    compile_cache.wait()
    for name, value in saved.items():
        jaxc.config.update(name, value)


def counts() -> tuple[int, int]:
    return cpu.compile_count, cpu.cache_load_count


def test_load_in_process_and_a_changed_module_misses(cache_dir) -> None:
    text, n = fresh_module()
    before = counts()
    check_add(compile_again(text), n)
    path = compile_cache.entry_path(compile_cache.key_for(text))
    assert os.path.isfile(path) and compile_cache.entries() == [path]
    assert counts() == (before[0] + 1, before[1])
    loaded = compile_again(text)
    assert isinstance(loaded.engine, compile_cache.CachedLibrary) and loaded.module is None
    check_add(loaded, n)
    assert counts() == (before[0] + 1, before[1] + 1)
    assert repr(loaded["f"].args) == repr(cpu.compile_module(text)["f"].args)

    changed = text.replace("arith.addf", "arith.subf")
    compile_again(changed)
    assert counts() == (before[0] + 2, before[1] + 1)
    assert len(compile_cache.entries()) == 2
    other_level = compile_cache.key_for(text, opt_level=0)
    assert other_level.digest != compile_cache.key_for(text).digest


def _traced_here(scale: float):
    """The traced text (debug info on) of the same program, jitted at this line."""
    return jaxc.jit(lambda x: jaxc.numpy.sin(x) * scale).lower(np.ones(7, np.float32)).as_text(debug_info=True)


def _traced_there(scale: float):  # another line: other locations
    return jaxc.jit(lambda x: jaxc.numpy.sin(x) * scale).lower(np.ones(7, np.float32)).as_text(debug_info=True)


def test_the_key_ignores_debug_locations(cache_dir) -> None:
    """The same program traced at two call sites has two texts (its ops'
    locations) and one key, as in JAX; another program has another key."""
    here, there = _traced_here(2.0), _traced_there(2.0)
    assert here != there and "loc(" in here
    assert "loc(" not in compile_cache.without_locations(here)
    assert compile_cache.without_locations(here) == compile_cache.without_locations(there)
    assert compile_cache.key_for(here).digest == compile_cache.key_for(there).digest
    assert compile_cache.key_for(here).digest != compile_cache.key_for(_traced_here(3.0)).digest
    before = counts()
    compile_again(here)
    compile_again(there)  # as a new process jitting the function from another line would
    assert counts() == (before[0] + 1, before[1] + 1)


def test_a_jaxc_cpu_option_changes_the_key(cache_dir, monkeypatch) -> None:
    text, n = fresh_module()
    key = compile_cache.key_for(text)
    monkeypatch.setenv("JAXC_CPU_SOMETHING", "1")
    assert compile_cache.key_for(text).digest != key.digest
    monkeypatch.delenv("JAXC_CPU_SOMETHING")
    assert compile_cache.key_for(text).digest == key.digest
    # every config option named jaxc_cpu* takes part, read generically
    monkeypatch.setitem(OPTIONS, "jaxc_cpu_test_option", (7, int, 0, "a test option"))
    monkeypatch.setitem(jaxc.config._values, "jaxc_cpu_test_option", 7)
    with_option = compile_cache.key_for(text)
    assert with_option.fields["cpu_options"]["config"]["jaxc_cpu_test_option"] == 7
    monkeypatch.setitem(jaxc.config._values, "jaxc_cpu_test_option", 8)
    assert compile_cache.key_for(text).digest != with_option.digest


def test_a_changed_jaxc_cpu_option_compiles_again(cache_dir) -> None:
    names = [name for name in OPTIONS if name.startswith("jaxc_cpu") and OPTIONS[name][1] is int]
    if not names:
        pytest.skip("no jaxc_cpu* option in this jaxc")
    name = names[0]
    text, n = fresh_module()
    saved = jaxc.config.read(name)
    compile_again(text)
    before = counts()
    jaxc.config.update(name, saved + 1)
    try:
        check_add(compile_again(text), n)
        assert counts() == (before[0] + 1, before[1])  # a miss, not a load
    finally:
        jaxc.config.update(name, saved)
    compile_again(text)
    assert counts() == (before[0] + 1, before[1] + 1)  # the first entry again


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other key"])
def test_a_bad_entry_warns_and_compiles(cache_dir, damage) -> None:
    text, n = fresh_module()
    compile_again(text)
    path = compile_cache.entry_path(compile_cache.key_for(text))
    data = open(path, "rb").read()
    if damage == "truncate":
        data = data[:len(data) // 2]
    elif damage == "flip":
        middle = len(data) // 3
        data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
    elif damage == "garbage":
        data = os.urandom(4096)
    elif damage == "empty":
        data = b""
    else:  # a whole entry of another module under this key's name
        other, _ = fresh_module("mulf")
        compile_again(other)
        data = open(compile_cache.entry_path(compile_cache.key_for(other)), "rb").read()
    with open(path, "wb") as f:
        f.write(data)
    before = counts()
    with pytest.warns(CompilationCacheWarning, match=re.escape(path)):
        executable = compile_again(text)
    check_add(executable, n)
    assert counts() == (before[0] + 1, before[1])
    compile_cache.read_metadata(path)  # rewritten whole
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_add(compile_again(text), n)
    assert counts() == (before[0] + 1, before[1] + 1)


def test_an_unwritable_directory_warns_once(tmp_path, cache_dir) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    jaxc.config.update("jax_compilation_cache_dir", str(blocker / "cache"))
    with pytest.warns(CompilationCacheWarning, match="cannot write to .*a-file") as record:
        for _ in range(2):
            text, n = fresh_module()
            check_add(compile_again(text), n)
    assert len([w for w in record if issubclass(w.category, CompilationCacheWarning)]) == 1


def test_a_missing_directory_is_created(tmp_path, cache_dir) -> None:
    where = tmp_path / "new" / "nested"
    jaxc.config.update("jax_compilation_cache_dir", str(where))
    text, n = fresh_module()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_add(compile_again(text), n)
    assert len(compile_cache.entries(str(where))) == 1


def test_thresholds_skip_writing(cache_dir) -> None:
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)
    text, n = fresh_module()
    skipped = compile_cache.stats()["skipped"]
    check_add(compile_again(text), n)
    assert compile_cache.entries() == [] and compile_cache.stats()["skipped"] == skipped + 1
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jaxc.config.update("jax_persistent_cache_min_entry_size_bytes", 1 << 40)
    check_add(compile_again(text), n)
    assert compile_cache.entries() == [] and compile_cache.stats()["skipped"] == skipped + 2
    jaxc.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    compile_again(text)
    assert len(compile_cache.entries()) == 1


def test_concurrent_writers_in_one_process(cache_dir) -> None:
    text, n = fresh_module()
    executable = compile_again(text)
    path = compile_cache.entry_path(compile_cache.key_for(text))
    os.remove(path)
    meta = {"key": compile_cache.key_for(text).fields,
            "signatures": {"f": ([[[n], "f32"]] * 2, [[[n], "f32"]])}}
    threads = [threading.Thread(target=compile_cache._write_entry, args=(path, executable.engine, meta))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert compile_cache.entries() == [path]
    compile_cache.read_metadata(path)
    check_add(compile_again(text), n)


def test_clear_removes_entries(cache_dir) -> None:
    for _ in range(2):
        compile_again(fresh_module()[0])
    open(os.path.join(cache_dir, ".tmp-jaxc-leftover.so-x"), "w").close()
    open(os.path.join(cache_dir, "unrelated.txt"), "w").close()
    assert len(compile_cache.entries()) == 2
    assert compile_cache.clear() == 2
    assert compile_cache.entries() == []
    assert sorted(os.listdir(cache_dir)) == ["unrelated.txt"]


def test_off_by_default_and_for_cuda(cache_dir) -> None:
    assert OPTIONS["jax_compilation_cache_dir"][0] is None
    assert compile_cache.enabled("cpu") and not compile_cache.enabled("cuda")
    jaxc.config.update("jax_compilation_cache_dir", None)
    assert not compile_cache.enabled() and compile_cache.cache_dir() is None
    before = counts()
    text, n = fresh_module()
    check_add(compile_again(text), n)
    assert counts() == (before[0] + 1, before[1]) and compile_cache.entries(cache_dir) == []
    with pytest.raises(ValueError, match="off"):
        compile_cache.entry_path(compile_cache.key_for(text))


def test_option_types(cache_dir) -> None:
    update = jaxc.config.update
    for bad in (3, b"/tmp", True):
        with pytest.raises(TypeError, match="jax_compilation_cache_dir.*expected a str or None"):
            update("jax_compilation_cache_dir", bad)
    update("jax_compilation_cache_dir", None)
    assert jaxc.config.jax_compilation_cache_dir is None and not compile_cache.enabled()
    update("jax_compilation_cache_dir", "/tmp/somewhere")
    assert jaxc.config.jax_compilation_cache_dir == "/tmp/somewhere"

    update("jax_persistent_cache_min_compile_time_secs", 2)  # an int is a float here
    assert jaxc.config.jax_persistent_cache_min_compile_time_secs == 2.0
    assert isinstance(jaxc.config.jax_persistent_cache_min_compile_time_secs, float)
    for bad in ("1", True, None):
        with pytest.raises(TypeError, match="expected a float"):
            update("jax_persistent_cache_min_compile_time_secs", bad)
    with pytest.raises(ValueError, match="at least 0"):
        update("jax_persistent_cache_min_compile_time_secs", -1.0)
    update("jax_persistent_cache_min_entry_size_bytes", -1)
    for bad in (1.5, None, False):
        with pytest.raises(TypeError, match="expected an? int"):
            update("jax_persistent_cache_min_entry_size_bytes", bad)
    # the other options keep their checks
    with pytest.raises(TypeError):
        update("jax_enable_x64", None)
    with pytest.raises(TypeError):
        update("jax_num_cpu_devices", 2.0)
    with pytest.raises(ValueError):
        update("jax_num_cpu_devices", 0)


def test_options_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/tmp/jaxc-env-cache")
    assert _from_environment("jax_compilation_cache_dir", None, str) == "/tmp/jaxc-env-cache"
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "")
    assert _from_environment("jax_compilation_cache_dir", None, str) is None
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR")
    assert _from_environment("jax_compilation_cache_dir", None, str) is None
    monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.25")
    assert _from_environment("jax_persistent_cache_min_compile_time_secs", 0.1, float) == 0.25


def test_needed_libraries_reads_dt_needed() -> None:
    import ctypes.util

    libm = ctypes.util.find_library("m")
    path = next((os.path.join(d, libm) for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                                 "/lib64", "/usr/lib64")
                 if libm and os.path.exists(os.path.join(d, libm))), None)
    if path is None:
        pytest.skip("no libm found")
    assert "libc.so.6" in compile_cache.needed_libraries(open(path, "rb").read())
    with pytest.raises(ValueError, match="not a 64-bit"):
        compile_cache.needed_libraries(b"#!/bin/sh\n")


class ObjectEngine:
    """Stands in for an execution engine: its "object code" is C compiled here."""

    def __init__(self, tmp_path, source: str) -> None:
        self.object = str(tmp_path / "fake.o")
        c_file = tmp_path / "fake.c"
        c_file.write_text(source)
        subprocess.run([*llvm_tools.c_compiler(), "-c", "-fPIC", "-O1", "-o", self.object, str(c_file)],
                       check=True, capture_output=True)

    def dump_to_object_file(self, path: str) -> None:
        with open(self.object, "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())


RUNTIME_USER = """
extern void memrefCopy(long, void *, void *);
extern unsigned short __truncsfbf2(float);  /* MLIR's float16 utilities: a dependency of the runner utilities */
void _mlir__mlir_ciface_f(void **args) { memrefCopy(4, args[0], args[1]); }
unsigned short to_bf16(float x) { return __truncsfbf2(x); }
"""


def test_an_entry_names_the_runtime_libraries_it_needs_and_loads_in_a_fresh_process(
        tmp_path, cache_dir) -> None:
    if not any(os.path.basename(p) == "libmlir_c_runner_utils.so" for p in cpu.runtime_libraries()):
        pytest.skip("MLIR's runner utilities are not a runtime library here")
    key = compile_cache.key_for(fresh_module()[0])
    spec = cpu.ArgSpec((4,), "f32")
    assert compile_cache.store(key, ObjectEngine(tmp_path, RUNTIME_USER), {"f": ([spec], [spec])}, 1.0)
    compile_cache.wait()
    meta = compile_cache.read_metadata(compile_cache.entry_path(key))
    assert {"libmlir_c_runner_utils.so", "libmlir_float16_utils.so"} <= set(meta["needed"])
    # In a process that has loaded no runtime library yet, the load finds
    # them (the float16 utilities come with the runner utilities).
    check = textwrap.dedent(f"""
        import ctypes, os
        from jaxc.runtime import compile_cache
        compile_cache.load_runtime_libraries({meta["needed"]!r})
        library = compile_cache.CachedLibrary({compile_cache.entry_path(key)!r})
        assert library.raw_lookup("_mlir_ciface_f") and not library.raw_lookup("_mlir_ciface_g")
        print(library.library.to_bf16.__name__)
    """)
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_a_symbol_no_library_defines_is_not_cached(tmp_path, cache_dir) -> None:
    key = compile_cache.key_for(fresh_module()[0])
    engine = ObjectEngine(tmp_path, "extern void jaxc_no_such_symbol(void);\n"
                                    "void _mlir__mlir_ciface_f(void **a) { jaxc_no_such_symbol(); }\n")
    spec = cpu.ArgSpec((4,), "f32")
    with pytest.warns(CompilationCacheWarning, match="jaxc_no_such_symbol"):
        compile_cache.store(key, engine, {"f": ([spec], [spec])}, 1.0)
        compile_cache.wait()
    assert compile_cache.entries() == []
    assert not [name for name in os.listdir(cache_dir) if name.startswith(".tmp-")]
