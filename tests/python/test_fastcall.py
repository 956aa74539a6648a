"""The per-call path into compiled code (jaxc.runtime._fastcall, docs/frontend.md
"The dispatch path"): the C entry behind `runtime.Function`, and the fast
paths of jit and of eager kernels. They must behave exactly like the Python
path they short-cut: same values, avals and weak types, asynchronous
semantics when the device is busy, inlining inside a trace, retracing when
x64 changes."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import dispatch
from jaxc.runtime import _fastcall, compile_module

ADD = """
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jaxc.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def f32(*values: float) -> jaxc.Array:
    return jnp.asarray(np.array(values, np.float32))


class Subclass(np.ndarray):
    pass


def test_entry_call_takes_exact_arrays_and_declines_the_rest() -> None:
    function = compile_module(ADD)["add"]
    entry = function._entry
    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    (out,) = entry.call(a, b)
    np.testing.assert_array_equal(out, a + b)
    assert out.flags.writeable and out.flags.c_contiguous
    assert entry.nargs == 2 and entry.nresults == 1
    strided = np.arange(8, dtype=np.float32)[::2]
    for args in [(a,), (a, b, b), (a.astype(np.float64), b), (a[:3], b), (strided, b),
                 (list(a), b), (a.view(Subclass), b)]:
        assert entry.call(*args) is None
    # Function converts what the entry declines, or raises as before.
    np.testing.assert_array_equal(function(strided, b)[0], strided + 1)
    with pytest.raises(TypeError, match=r"add\(\) takes 2 arguments, got 1"):
        function(a)
    with pytest.raises(TypeError, match="argument 0 has dtype float64"):
        function(a.astype(np.float64), b)
    with pytest.raises(TypeError, match=r"argument 1 has shape \(3,\)"):
        function(a, b[:3])


def test_call_into_checks_the_buffers() -> None:
    entry = compile_module(ADD)["add"]._entry
    a, out = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    assert entry.call_into([a, a], [out]) is None
    np.testing.assert_array_equal(out, 2 * a)
    with pytest.raises(TypeError, match="output 0 must be a C-contiguous writable ndarray of 16 bytes"):
        entry.call_into([a, a], [np.zeros(3, np.float32)])
    with pytest.raises(TypeError, match="expected 2 inputs and 1 outputs"):
        entry.call_into([a], [out])


def test_concurrent_calls_share_nothing() -> None:
    function = compile_module(ADD)["add"]
    errors = []

    def work(seed: int) -> None:
        x = np.full(4, seed, np.float32)
        for _ in range(2000):
            (y,) = function(x, x)
            if not (y == 2 * seed).all():
                errors.append(seed)
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_jit_fast_path_matches_the_python_path() -> None:
    f = jaxc.jit(lambda a, b: (a + b, a * b))
    x, y = f32(1, 2, 3, 4), f32(2, 2, 2, 2)
    first = f(x, y)               # the Python path; registers the signature
    assert f._fast_size() == 1
    second = f(x, y)              # the C path
    assert f.trace_count == 1 and type(second) is tuple and len(second) == 2
    for a, b in zip(first, second):
        assert type(b) is jaxc.Array and b.is_ready() and b.aval == a.aval
        assert not np.asarray(b).flags.writeable
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # An equal aval held by another object is replaced by the cached one.
    z = f32(1, 2, 3, 4)
    assert z.aval is not x.aval
    f(z, y)
    assert z.aval is x.aval


def test_jit_fast_path_keeps_weak_types_and_single_outputs() -> None:
    f = jaxc.jit(lambda a: a * 2)
    w = jnp.asarray(3.0)          # a weakly typed scalar
    assert w.weak_type
    assert f(w).weak_type and f(w).weak_type
    assert float(f(w)) == 6.0
    s = f32(3)
    assert not f(s).weak_type and not f(s).weak_type
    assert f.trace_count == 2


def test_jit_fast_path_takes_pytrees_and_closed_over_arrays() -> None:
    bias = f32(10, 20, 30, 40)
    f = jaxc.jit(lambda p: {"w": p["w"] * 2 + bias, "b": p["b"] + 1})
    params = {"w": f32(1, 2, 3, 4), "b": f32(0, 0, 0, 0)}
    for _ in range(3):
        out = f(params)
        np.testing.assert_array_equal(np.asarray(out["w"]), [12, 24, 36, 48])
        np.testing.assert_array_equal(np.asarray(out["b"]), [1, 1, 1, 1])
    assert f.trace_count == 1 and f._fast_size() == 1
    other = f({"w": f32(1, 1, 1, 1), "b": f32(1, 1, 1, 1), "c": None})  # another structure
    np.testing.assert_array_equal(np.asarray(other["b"]), [2, 2, 2, 2])
    assert f.trace_count == 2


def test_jit_with_static_keyword_or_numpy_arguments_is_unchanged() -> None:
    g = jaxc.jit(lambda a, n: a * n, static_argnums=1)
    x = f32(1, 2, 3, 4)
    assert float(g(x, 2)[3]) == 8 and float(g(x, 3)[3]) == 12
    assert g._fast_size() == 0 and g.trace_count == 2
    h = jaxc.jit(lambda a, b: a - b)
    np.testing.assert_array_equal(np.asarray(h(x, b=x)), np.zeros(4))
    np.testing.assert_array_equal(np.asarray(h(np.ones(4, np.float32), x)), [0, -1, -2, -3])
    assert h._fast_size() == 0
    none = jaxc.jit(lambda a: None)
    assert none(x) is None and none(x) is None


def test_jit_fast_path_waits_for_a_busy_device() -> None:
    f = jaxc.jit(lambda a: a + 1)
    x = f32(1, 2, 3, 4)
    f(x)
    gate = threading.Event()
    device = jaxc.devices()[0]
    device.executor.submit(dispatch.Task(lambda: (gate.wait(10), [])[1], [], "gate", "test"))
    y = f(x)                      # enqueued behind the gate, as before
    assert not y.is_ready()
    z = f(y)                      # a pending input
    gate.set()
    np.testing.assert_array_equal(np.asarray(z), [3, 4, 5, 6])
    assert f.trace_count == 1


def test_jit_inside_a_trace_is_inlined_not_run() -> None:
    inner = jaxc.jit(lambda a: jnp.sin(a))
    x = f32(1, 2, 3, 4)
    inner(x)
    inner(x)
    ir = str(jaxc.make_ir(lambda a: inner(a) + inner(x))(x))
    assert ir.count("jaxc.sin") == 2


def test_jit_retraces_when_x64_changes() -> None:
    f = jaxc.jit(lambda a: a + 1.0)
    x = jnp.asarray(np.arange(4, dtype=np.int32))
    assert f(x).dtype == np.float32 and f(x).dtype == np.float32
    jaxc.config.update("jax_enable_x64", True)
    try:
        assert f(x).dtype == np.float64 and f(x).dtype == np.float64
    finally:
        jaxc.config.update("jax_enable_x64", False)
    assert f(x).dtype == np.float32
    assert f.trace_count == 2


def test_clear_cache_forgets_fast_signatures() -> None:
    f = jaxc.jit(lambda a: a * 3)
    x = f32(1, 2, 3, 4)
    f(x)
    assert f._fast_size() == 1
    f.clear_cache()
    assert f._fast_size() == 0
    np.testing.assert_array_equal(np.asarray(f(x)), [3, 6, 9, 12])
    assert f.trace_count == 2


def test_eager_fast_path_gives_ready_arrays() -> None:
    x, y = f32(1, 2, 3, 4), f32(1, 1, 1, 1)
    x + y
    z = x + y
    assert z.is_ready() and z._task is None
    np.testing.assert_array_equal(np.asarray(z), [2, 3, 4, 5])
    w = jnp.asarray(2.0) + jnp.asarray(1.0)
    assert w.weak_type and float(w) == 3.0


def test_run_ready_declines_what_it_cannot_run() -> None:
    function = compile_module(ADD)["add"]
    device = jaxc.devices()[0]
    x = f32(1, 2, 3, 4)
    aval = x.aval
    (out,) = function._entry.run_ready([x, x], (aval,), device)
    assert out.aval is aval and out.device is device
    np.testing.assert_array_equal(np.asarray(out), [2, 4, 6, 8])
    assert function._entry.run_ready([x, np.ones(4, np.float32)], (aval,), device) is None
    assert function._entry.run_ready([x, jnp.asarray(np.ones(4, np.int32))], (aval,), device) is None
    assert function._entry.run_ready([x], (aval,), device) is None
    assert function._entry.run_ready([x, x], (aval,), dispatch.Device(99)) is None  # another device


def test_jit_cache_holds_eight_signatures() -> None:
    f = jaxc.jit(lambda a: a + 1)
    for n in range(1, 11):
        f(jnp.asarray(np.zeros(n, np.float32)))
    assert f._fast_size() == 8 and f._cache_size() == 10
    assert isinstance(f, _fastcall.JitCache)


def test_an_unused_executable_is_collected() -> None:
    """Function -> Entry -> owner (the Executable) -> Function is a cycle
    the collector sees (the entry is a GC object)."""
    import gc
    import weakref

    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    from jaxc.runtime import cpu

    module = ir.Module.parse(ADD, make_context())
    signatures = cpu.function_signatures(module)
    stages.run_stages(module, "llvm")
    executable = cpu.jit_lowered(module, signatures)
    np.testing.assert_array_equal(executable["add"](np.ones(4, np.float32), np.ones(4, np.float32))[0],
                                  2 * np.ones(4))
    alive = weakref.ref(executable)
    del executable
    gc.collect()
    assert alive() is None


def test_a_declined_signature_is_registered_once() -> None:
    f = jaxc.jit(lambda p: p["a"] + 1)
    params = {"a": f32(1, 2, 3, 4)}
    f(params)
    gate = threading.Event()
    jaxc.devices()[0].executor.submit(dispatch.Task(lambda: (gate.wait(10), [])[1], [], "gate", "test"))
    outs = [f(params) for _ in range(3)]   # a busy device: the Python path, which registers again
    gate.set()
    for out in outs:
        np.testing.assert_array_equal(np.asarray(out), [2, 3, 4, 5])
    assert f._fast_size() == 1 and f.trace_count == 1


def test_jit_functions_copy_as_themselves() -> None:
    import copy

    f = jaxc.jit(lambda a: a + 1)
    assert copy.copy(f) is f and copy.deepcopy([f])[0] is f
    assert f.__name__ == "<lambda>" and callable(f.__wrapped__)
