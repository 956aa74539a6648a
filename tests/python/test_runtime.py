"""jaxc.runtime on the CPU: numerics against NumPy for every dtype, 0-d and
size-0 arrays, the math ops, compile errors, the compile cache and memory."""
from __future__ import annotations

import math
import os
import time

import numpy as np
import pytest

from jaxc import runtime
from jaxc.runtime import CompileError, compile_module

ELEMENTWISE = """
#map = affine_map<({dims}) -> ({dims})>
func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = [{iters}]}}
      ins(%a, %b : {t}, {t}) outs(%e : {t}) {{
  ^bb0(%x: {el}, %y: {el}, %o: {el}):
    %s = {op} %x, %y : {el}
    linalg.yield %s : {el}
  }} -> {t}
  return %r : {t}
}}
"""


def elementwise(op: str, shape: tuple[int, ...], element: str, signed_element: str | None = None) -> str:
    """A module with @f(a, b) = op(a, b) elementwise; the signature may use
    `signed_element` (ui8) while the body computes on the signless `element`."""
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    t = f"tensor<{''.join(f'{n}x' for n in shape)}{element}>"
    return ELEMENTWISE.format(dims=dims, t=t, el=element, op=op,
                              iters=", ".join(['"parallel"'] * len(shape)))


CASES = [  # (element type, arith op, NumPy dtype, NumPy function)
    ("f32", "arith.addf", np.float32, np.add),
    ("f64", "arith.mulf", np.float64, np.multiply),
    ("f16", "arith.subf", np.float16, np.subtract),
    ("i8", "arith.addi", np.int8, np.add),
    ("i16", "arith.muli", np.int16, np.multiply),
    ("i32", "arith.subi", np.int32, np.subtract),
    ("i64", "arith.maxsi", np.int64, np.maximum),
    ("i32", "arith.divsi", np.int32, lambda a, b: np.trunc(a / b).astype(np.int32)),
]


def _random(shape, dtype, rng, nonzero=False):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        low, high = max(info.min, -100), min(info.max, 100)
        values = rng.integers(low, high, shape).astype(dtype)
        return np.where(values == 0, 1, values).astype(dtype) if nonzero else values
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (7,), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("element,op,dtype,reference", CASES, ids=[c[0] + c[1][5:] for c in CASES])
def test_elementwise_matches_numpy(element, op, dtype, reference, shape):
    rng = np.random.default_rng(0)
    f = compile_module(elementwise(op, shape, element))["f"]
    a, b = _random(shape, dtype, rng), _random(shape, dtype, rng, nonzero=True)
    (out,) = f(a, b)
    assert out.dtype == np.dtype(dtype) and out.shape == shape
    np.testing.assert_array_equal(out, reference(a, b).astype(dtype))


@pytest.mark.parametrize("unsigned", ["ui8", "ui16", "ui32", "ui64"])
def test_unsigned_signature_gives_unsigned_arrays(unsigned):
    # jaxc-to-linalg makes tensors signless; the runtime reads the dtypes
    # from the signature the module had before lowering.
    bits = unsigned[2:]
    text = f"""
    func.func @f(%a: tensor<3x{unsigned}>) -> tensor<3x{unsigned}> {{
      return %a : tensor<3x{unsigned}>
    }}"""
    dtype = np.dtype(f"uint{bits}")
    f = compile_module(text)["f"]
    x = np.array([0, 1, np.iinfo(dtype).max], dtype)
    (out,) = f(x)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, x)


def test_bf16_travels_as_raw_bits():
    f = compile_module(elementwise("arith.addf", (4,), "bf16"))["f"]
    a = np.array([1.0, 2.5, -3.0, 0.0], np.float32)
    b = np.array([0.5, 0.5, 1.0, 7.0], np.float32)
    (out,) = f(_to_bf16(a), _to_bf16(b))
    assert out.dtype == runtime.bf16_dtype()
    np.testing.assert_array_equal(_from_bf16(out.view(np.uint16)), a + b)


def _to_bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_bool_tensors_fail_cleanly_instead_of_aborting():
    # LLVM 22.1.8's finalize-memref-to-llvm asserts on i1 loads (docs/toolchain.md);
    # whichever stage refuses i1 first, the process must not abort.
    with pytest.raises(CompileError):
        compile_module(elementwise("arith.xori", (3,), "i1"))


def test_non_contiguous_inputs_are_made_contiguous():
    f = compile_module(elementwise("arith.addf", (3, 4), "f32"))["f"]
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    a, b = base[::2, ::2], base[1::2, 1::2].T.T
    assert not a.flags.c_contiguous
    (out,) = f(a, b)
    np.testing.assert_array_equal(out, a + b)
    (out,) = f(np.asfortranarray(base[:3, :4]), b)
    np.testing.assert_array_equal(out, base[:3, :4] + b)


def test_wrong_dtype_or_shape_is_a_type_error():
    f = compile_module(elementwise("arith.addf", (3,), "f32"))["f"]
    with pytest.raises(TypeError, match="dtype float64, expected float32"):
        f(np.zeros(3), np.zeros(3, np.float32))
    with pytest.raises(TypeError, match=r"shape \(4,\), expected \(3,\)"):
        f(np.zeros(4, np.float32), np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        f(np.zeros(3, np.float32))


UNARY = ["sin", "cos", "tan", "sinh", "cosh", "tanh", "asinh", "atan", "exp", "exp2", "expm1",
         "log", "log2", "log10", "log1p", "sqrt", "cbrt", "erf", "absf", "ceil", "floor", "round",
         "roundeven", "trunc"]
NUMPY_UNARY = {"absf": np.abs, "round": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x),
               "roundeven": np.round, "asinh": np.arcsinh, "atan": np.arctan,
               "erf": np.vectorize(math.erf)}
BINARY = {"atan2": np.arctan2, "powf": np.power}
DOMAIN = {"acosh": (1.0, 5.0), "atanh": (-0.9, 0.9), "log": (0.1, 5.0), "log2": (0.1, 5.0),
          "log10": (0.1, 5.0), "log1p": (-0.9, 5.0), "sqrt": (0.0, 5.0)}


def _math_module(ops: list[str], element: str, n: int) -> str:
    t = f"tensor<{n}x{element}>"
    lines = ["#map = affine_map<(d0) -> (d0)>",
             f"func.func @f(%x: {t}, %y: {t}) -> ({', '.join([t] * len(ops))}) {{",
             f"  %e = tensor.empty() : {t}"]
    for i, op in enumerate(ops):
        binary = op in BINARY
        lines += [f"  %r{i} = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = [\"parallel\"]}}"
                  f" ins(%x, %y : {t}, {t}) outs(%e : {t}) {{",
                  f"  ^bb0(%a: {element}, %b: {element}, %o: {element}):",
                  f"    %v = math.{op} %a{', %b' if binary else ''} : {element}",
                  f"    linalg.yield %v : {element}", f"  }} -> {t}"]
    lines += [f"  return {', '.join(f'%r{i}' for i in range(len(ops)))} : {', '.join([t] * len(ops))}", "}"]
    return "\n".join(lines)


@pytest.mark.parametrize("element,dtype,rtol", [("f32", np.float32, 2e-6), ("f64", np.float64, 1e-13),
                                                ("f16", np.float16, 2e-3)])
def test_float_math_ops_match_numpy(element, dtype, rtol):
    ops = UNARY + ["acosh", "atanh"] + list(BINARY)
    f = compile_module(_math_module(ops, element, 64))["f"]
    rng = np.random.default_rng(1)
    x = rng.uniform(-3, 3, 64).astype(dtype)
    y = rng.uniform(0.5, 2, 64).astype(dtype)
    x[:4] = [1e-9, -1e-7, 0.5, 2.5]  # expm1/log1p accuracy near 0; round/roundeven ties
    inputs = {op: np.clip(x, *DOMAIN[op]).astype(dtype) if op in DOMAIN else x for op in ops}
    # One module, one x: ops with a domain get x clipped by calling again.
    for op, out in zip(ops, f(x, y)):
        if op in DOMAIN:
            out = f(inputs[op], y)[ops.index(op)]
        ref_fn = BINARY.get(op) or NUMPY_UNARY.get(op) or getattr(np, {"acosh": "arccosh", "atanh": "arctanh"}.get(op, op))
        args = (inputs[op].astype(np.float64), y.astype(np.float64)) if op in BINARY else (inputs[op].astype(np.float64),)
        ref = ref_fn(*args)
        np.testing.assert_allclose(out.astype(np.float64), ref, rtol=rtol, atol=rtol * 1e-3,
                                   err_msg=f"math.{op} on {element}")


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the in-process JIT compiles it (no fallback)
def test_integer_math_ops():
    text = """
    #map = affine_map<(d0) -> (d0)>
    func.func @f(%x: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
      %e = tensor.empty() : tensor<6xi32>
      %0:3 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
          ins(%x : tensor<6xi32>) outs(%e, %e, %e : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
      ^bb0(%a: i32, %o0: i32, %o1: i32, %o2: i32):
        %p = math.ctpop %a : i32
        %l = math.ctlz %a : i32
        %c3 = arith.constant 3 : i32
        %q = math.ipowi %a, %c3 : i32
        linalg.yield %p, %l, %q : i32, i32, i32
      } -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>)
      return %0#0, %0#1, %0#2 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
    }"""
    x = np.array([0, 1, 7, 255, -1, 1 << 20], np.int32)
    popcount, clz, cube = compile_module(text)["f"](x)
    np.testing.assert_array_equal(popcount, [bin(int(v) & 0xFFFFFFFF).count("1") for v in x])
    np.testing.assert_array_equal(clz, [32 - (int(v) & 0xFFFFFFFF).bit_length() for v in x])
    np.testing.assert_array_equal(cube, x * x * x)


def test_compile_error_carries_diagnostics():
    bad = """
    func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
      %0 = "test.unknown"(%a) : (tensor<3xf32>) -> tensor<3xf32>
      return %0 : tensor<3xf32>
    }"""
    with pytest.raises(CompileError) as info:
        compile_module(bad)
    assert "3:26): error: operation being parsed with an unregistered dialect" in info.value.diagnostics


def test_jvp_and_vmap_requests_run_through_the_transformed_stage():
    text = """
    func.func private @g(%x: tensor<f32>) -> tensor<f32> {
      %y = jaxc.sin %x : tensor<f32>
      return %y : tensor<f32>
    }
    func.func @f(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %y:2 = jaxc.jvp @g(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      return %y#0, %y#1 : tensor<f32>, tensor<f32>
    }"""
    y, t = compile_module(text)["f"](np.float32(0.5), np.float32(2.0))
    np.testing.assert_allclose([y, t], [np.sin(0.5), 2 * np.cos(0.5)], rtol=1e-6)
    mapped = text.replace("@f(", "@h(").replace(
        "jaxc.jvp @g(%x) tangents(%t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)",
        "jaxc.vmap @g(%x) in_axes = [-1] out_axes = [0] axis_size = 3 : (tensor<f32>) -> tensor<3xf32>").replace(
        "%y:2", "%y").replace("return %y#0, %y#1 : tensor<f32>, tensor<f32>", "return %y : tensor<3xf32>").replace(
        "-> (tensor<f32>, tensor<f32>) {\n      %y = jaxc.vmap", "-> tensor<3xf32> {\n      %y = jaxc.vmap")
    (ys,) = compile_module(mapped)["h"](np.float32(0.5), np.float32(2.0))
    np.testing.assert_allclose(ys, np.full(3, np.sin(0.5), np.float32), rtol=1e-6)


def test_scalar_signature_is_rejected():
    with pytest.raises(CompileError, match="statically shaped tensors only"):
        compile_module("func.func @f(%a: f32) -> f32 { return %a : f32 }")


def test_compiles_once_per_module():
    text = elementwise("arith.addf", (5,), "f32").replace("@f", "@cached")
    before = runtime.cpu.compile_count
    first = compile_module(text)
    second = compile_module(text)
    assert first is second
    assert runtime.cpu.compile_count == before + 1
    x = np.ones(5, np.float32)
    for _ in range(3):
        first["cached"](x, x)
    assert runtime.cpu.compile_count == before + 1


CHAIN = """
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e0 = tensor.empty() : tensor<256xf32>
  %0 = linalg.exp ins(%x : tensor<256xf32>) outs(%e0 : tensor<256xf32>) -> tensor<256xf32>
  %e1 = tensor.empty() : tensor<256xf32>
  %1 = linalg.negf ins(%0 : tensor<256xf32>) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %2 = linalg.add ins(%0, %1 : tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  %e3 = tensor.empty() : tensor<256xf32>
  %3 = linalg.mul ins(%2, %0 : tensor<256xf32>, tensor<256xf32>) outs(%e3 : tensor<256xf32>) -> tensor<256xf32>
  return %3 : tensor<256xf32>
}
"""


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_intermediates_are_freed():
    f = compile_module(CHAIN)["chain"]
    x = np.linspace(-1, 1, 256, dtype=np.float32)
    (out,) = f(x)
    np.testing.assert_array_equal(out, np.zeros(256, np.float32))
    for _ in range(1000):  # warm up
        f(x)
    before = _rss_bytes()
    for _ in range(10_000):
        f(x)
    grown = _rss_bytes() - before
    assert grown < 10 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 10000 calls"


def test_per_call_overhead_is_small():
    f = compile_module(elementwise("arith.addf", (4,), "f32").replace("@f", "@tiny"))["tiny"]
    a = np.ones(4, np.float32)
    for _ in range(1000):
        f(a, a)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(10_000):
            f(a, a)
        best = min(best, (time.perf_counter() - start) / 10_000)
    print(f"per-call overhead: {best * 1e6:.2f} us")
    assert best < 50e-6  # generous: a loaded 2-core machine; typically a few us


@pytest.mark.parametrize("env, expected", [
    ({}, "tuned"),
    ({"JAXC_MALLOC_TUNING": "0"}, "disabled"),
    ({"MALLOC_TRIM_THRESHOLD_": "1000000"}, "user settings"),
    ({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1000000"}, "user settings"),
])
def test_malloc_is_tuned_once_unless_the_user_chose(env, expected):
    """Importing the runtime raises glibc's mmap and trim thresholds (large
    buffers are reused instead of mapped and unmapped per call), except where
    the user set malloc's own variables or JAXC_MALLOC_TUNING=0."""
    import ctypes
    import subprocess
    import sys
    try:
        ctypes.CDLL(None).mallopt
    except AttributeError:
        pytest.skip("not glibc: no mallopt")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("JAXC_MALLOC_TUNING", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")}
    code = ("import jaxc.runtime; from jaxc.runtime import malloc; "
            "print(malloc._STATE['result'], malloc.tune(), sep='|')")
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().split("|") == [expected, expected]


def test_without_libiomp5_kernels_compile_serial_with_a_warning(monkeypatch):
    """A broken install without the intel-openmp wheel still runs parallel-sized
    kernels (on one thread, with a warning) instead of failing to link
    `__kmpc_fork_call` in the JIT."""
    from jaxc.runtime import cpu, openmp
    monkeypatch.setattr(openmp, "libiomp5_path", lambda: None)
    monkeypatch.setattr(cpu, "_WARNED_NO_OPENMP", [])
    n = 136  # a size no other test compiles: not in the compile cache
    text = f"""
func.func @f(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0]
         : (tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %c : tensor<{n}x{n}xf32>
}}"""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    with pytest.warns(RuntimeWarning, match="libiomp5.so .* one thread"):
        (c,) = compile_module(text)["f"](a, a)
    np.testing.assert_allclose(c, a.astype(np.float64) @ a, rtol=1e-4, atol=1e-4)


_PINNING_SCRIPT = r'''
import os, sys, threading
import numpy as np
from jaxc import _callback
from jaxc.runtime import compile_module

cores = sorted(os.sched_getaffinity(0))
seen = []

def record(x):
    seen.append(frozenset(os.sched_getaffinity(0)))
    return [np.asarray(x)]

n = 512  # 262144 elements: a parallel kernel
ident = _callback.register(record)
text = f"""
func.func @f(%x: tensor<{n}x{n}xf32>) -> (tensor<{n}x{n}xf32>, tensor<2x1xf32>) {{
  %y = jaxc.sin %x : tensor<{n}x{n}xf32>
  %s = jaxc.slice %y, start = [0, 0], limit = [2, 1], strides = [1, 1] : tensor<{n}x{n}xf32> -> tensor<2x1xf32>
  %c = jaxc.callback {ident} (%s) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  return %y, %c : tensor<{n}x{n}xf32>, tensor<2x1xf32>
}}"""
f = compile_module(text)["f"]
tiny = compile_module("""
func.func @tiny(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = jaxc.sin %x : tensor<4xf32>
  return %y : tensor<4xf32>
}""")["tiny"]
x = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)

threads_before = len(os.listdir("/proc/self/task"))
tiny(np.ones(4, np.float32))
assert len(os.listdir("/proc/self/task")) == threads_before, "a serial function started workers"

moved = False
for _ in range(20):  # put the caller on the last core (a worker's), then free it again
    os.sched_setaffinity(0, {cores[-1]})
    os.sched_setaffinity(0, set(cores))
    y, _ = f(x)
    np.testing.assert_allclose(y, np.sin(x), rtol=1e-5, atol=1e-6)
    assert os.sched_getaffinity(0) == set(cores), "the caller's mask was not restored"
    moved = moved or seen[-1] == frozenset(cores[:-1])
    assert seen[-1] in (frozenset(cores), frozenset(cores[:-1])), seen[-1]

def masks():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/status") as status:
                for line in status:
                    if line.startswith("Cpus_allowed_list:"):
                        out[int(tid)] = line.split(":")[1].strip()
        except FileNotFoundError:
            pass  # a thread that has just ended
    return out

pinned = sorted(mask for tid, mask in masks().items() if mask == str(cores[-1]))
seen_by_other = []

def second_caller():  # pins a team of its own; counted while it is alive (an ended
    f(x)              # thread's team goes back to the runtime's pool)
    seen_by_other.extend(mask for tid, mask in masks().items() if mask == str(cores[-1]))

other = threading.Thread(target=second_caller)
other.start(); other.join()
pinned_after = seen_by_other
print(f.parallel, tiny.parallel, moved, len(pinned), len(pinned_after))
'''


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity") else True,
                    reason="pinning needs two cores")
@pytest.mark.parametrize("pin", ["1", "0"])
def test_openmp_workers_are_pinned_and_the_caller_stays_free(pin):
    """Each thread's OpenMP workers are pinned to the last cores; a parallel
    call made while the caller sits on a worker's core moves it off for the
    call and restores its mask; a serial function starts no workers.
    JAXC_CPU_PIN_WORKERS=0 leaves every thread free (subprocess: the
    runtime's threads are process-wide)."""
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("KMP_AFFINITY", "OMP_PROC_BIND", "OMP_PLACES")}
    env.update(JAXC_CPU_PIN_WORKERS=pin, JAXC_CPU_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _PINNING_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    parallel, tiny_parallel, moved, pinned, pinned_after = out.stdout.split()
    assert (parallel, tiny_parallel) == ("True", "False")
    if pin == "1":
        assert moved == "True"
        assert (int(pinned), int(pinned_after)) == (1, 2)  # one worker per calling thread
    else:
        assert (moved, pinned, pinned_after) == ("False", "0", "0")


_THREAD_SETTINGS_SCRIPT = r"""
import threading
import numpy as np
import jaxc, jaxc.numpy as jnp
from jaxc.runtime import openmp

seen = []
def probe(y):  # runs on the thread that runs the program
    lib = openmp._STATE["library"]
    seen.append((lib.omp_get_max_threads(), lib.omp_get_dynamic()))
    return np.zeros((), np.float32)

f = jaxc.jit(lambda x: jnp.sin(x) * 2 + jaxc.pure_callback(probe, jaxc.ShapeDtypeStruct((), jnp.float32), x[0]))
x = jnp.ones((1 << 20,))
f(x).block_until_ready()
jaxc.config.update("jaxc_cpu_threads", 1)
other = threading.Thread(target=lambda: f(x).block_until_ready())  # from another caller
other.start(); other.join()
jaxc.config.update("jaxc_cpu_dynamic_threads", True)
f(x).block_until_ready()
print(seen)
"""


@pytest.mark.parametrize("env, expected", [
    ({}, [(2, 0), (1, 0), (1, 1)]),
    ({"JAXC_CPU_DYNAMIC_THREADS": "1"}, [(2, 1), (1, 1), (1, 1)]),
    ({"OMP_DYNAMIC": "false"}, [(2, 0), (1, 0), (1, 0)]),
])
def test_thread_count_and_dynamic_teams_reach_the_thread_that_runs_kernels(env, expected):
    """OpenMP keeps the thread count and the dynamic-team flag per thread:
    `jaxc_cpu_threads` and `jaxc_cpu_dynamic_threads` (off by default) reach
    the thread that runs the program, also when updated after the first call
    and when another thread calls; OMP_DYNAMIC in the environment wins
    (subprocess: the runtime is process-wide)."""
    import ast
    import subprocess
    import sys
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_DYNAMIC", "JAXC_CPU_DYNAMIC_THREADS")}
    out = subprocess.run([sys.executable, "-c", _THREAD_SETTINGS_SCRIPT],
                         env={**clean, "JAXC_CPU_THREADS": "2", **env}, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert ast.literal_eval(out.stdout.strip().splitlines()[-1]) == expected
