"""jaxc.Array: properties, conversions, repr, immutability, devices, and the
asynchronous execution model (work runs on the device's executor thread;
errors surface at the next synchronization)."""
from __future__ import annotations

import gc
import pickle
import threading
import time
import weakref

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import dispatch, lax


def test_properties() -> None:
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert (x.shape, x.dtype, x.ndim, x.size, len(x)) == ((2, 3), np.float32, 2, 6, 2)
    assert x.T.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(x.T), np.arange(6).reshape(2, 3).T)
    assert isinstance(x, jnp.ndarray) and isinstance(x, jaxc.Array)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.asarray(1.0))


def test_repr_and_str() -> None:
    assert repr(jnp.asarray(np.array([1.0, 2.5], np.float32))) == "Array([1. , 2.5], dtype=float32)"
    assert repr(jnp.asarray(np.array([[1, 2], [3, 4]], np.int32))) == (
        "Array([[1, 2],\n       [3, 4]], dtype=int32)")
    assert repr(jnp.asarray(3.0)) == "Array(3., dtype=float32, weak_type=True)"
    assert repr(jnp.asarray(np.bool_(True))) == "Array(True, dtype=bool)"
    assert str(jnp.asarray(np.array([1, 2], np.int32))) == "[1 2]"
    assert f"{jnp.asarray(np.float32(2.5)):.2f}" == "2.50"


def test_conversions() -> None:
    x = jnp.asarray(np.array([1.5, -2.0], np.float32))
    assert np.asarray(x).dtype == np.float32
    assert x.tolist() == [1.5, -2.0]
    assert x[0].item() == 1.5 and float(x[0]) == 1.5 and int(x[1]) == -2
    assert bool(jnp.asarray(True)) is True
    assert [float(v) for v in x] == [1.5, -2.0]  # __iter__
    assert list(range(10))[jnp.asarray(np.int32(3))] == 3  # __index__
    with pytest.raises(TypeError, match="only integer arrays"):
        list(range(3))[x[0]]
    y = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))


def test_arrays_are_immutable() -> None:
    x = jnp.asarray(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="immutable.*at\\[idx\\].set"):
        x[0] = 1.0
    view = np.asarray(x)
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        jaxc.Array()
    source = np.zeros(3, np.float32)
    y = jnp.asarray(source)
    source[0] = 5.0          # changing the NumPy source later does not change the Array
    assert float(y[0]) == 0.0


def test_every_operator_and_its_reflected_form() -> None:
    a_np = np.array([5, 6, 7], np.int32)
    b_np = np.array([2, 3, 4], np.int32)
    a = jnp.asarray(a_np)
    cases = {
        "+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": lambda p, q: p * q,
        "/": lambda p, q: p / q, "//": lambda p, q: p // q, "%": lambda p, q: p % q,
        "**": lambda p, q: p ** q, "&": lambda p, q: p & q, "|": lambda p, q: p | q,
        "^": lambda p, q: p ^ q, "<<": lambda p, q: p << q, ">>": lambda p, q: p >> q,
        "<": lambda p, q: p < q, "<=": lambda p, q: p <= q, ">": lambda p, q: p > q,
        ">=": lambda p, q: p >= q, "==": lambda p, q: p == q, "!=": lambda p, q: p != q,
    }
    for name, op in cases.items():
        expected = op(a_np, b_np)
        np.testing.assert_allclose(np.asarray(op(a, b_np)), expected, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(np.asarray(op(a_np.tolist()[0], a)), op(a_np[0], a_np), rtol=1e-6,
                                   err_msg=f"reflected {name}")
    np.testing.assert_array_equal(np.asarray(-a), -a_np)
    np.testing.assert_array_equal(np.asarray(+a), a_np)
    np.testing.assert_array_equal(np.asarray(~a), ~a_np)
    np.testing.assert_array_equal(np.asarray(abs(-a)), a_np)
    m = jnp.asarray(np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(m @ np.ones((3,), np.float32)), np.ones(3))
    np.testing.assert_array_equal(np.asarray(np.ones((3,), np.float32) @ m), np.ones(3))


def test_methods_route_to_jnp() -> None:
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.astype(np.int32).dtype == np.int32
    assert float(x.sum()) == 15.0 and float(x.mean()) == 2.5
    assert float(x.max()) == 5.0 and float(x.min()) == 0.0 and int(x.argmax()) == 5


def test_operations_return_before_the_work_is_done() -> None:
    """An executor that is blocked does not block the caller; results are
    pending until it runs, and block_until_ready waits for them."""
    gate = threading.Event()
    device = jaxc.devices()[0]
    device.executor.submit(dispatch.Task(lambda: (gate.wait(10), [])[1], [], "gate", "test"))
    x = jnp.asarray(np.ones(3, np.float32))
    y = x + x                      # enqueued behind the gate
    assert not y.is_ready()
    assert y.shape == (3,) and y.dtype == np.float32  # avals are known at once
    gate.set()
    assert y.block_until_ready() is y and y.is_ready()
    np.testing.assert_array_equal(np.asarray(y), 2 * np.ones(3))


def test_compiled_code_releases_the_gil() -> None:
    """While a long kernel runs on the executor, Python keeps running."""
    n = 400
    a = jnp.asarray(np.random.default_rng(0).random((n, n), dtype=np.float32))
    slow = jaxc.jit(lambda m: m @ m @ m @ m)
    slow(a).block_until_ready()             # compile first
    start = time.perf_counter()
    result = slow(a)
    ticks = 0
    while not result.is_ready():
        ticks += 1                           # the main thread makes progress meanwhile
    elapsed = time.perf_counter() - start
    assert elapsed > 0.01, "the kernel was too fast to observe"
    assert ticks > 100


def test_an_unread_result_keeps_no_other_result_of_its_call_alive() -> None:
    """A training loop keeps each step's loss pending until the end; a loss
    must hold only its own value, not the step's other results (the new
    parameters), or every step's parameters stay in memory until then."""
    gate = threading.Event()
    step = jaxc.jit(lambda w: (w * 2, w.sum()))
    w = jnp.asarray(np.ones((300, 300), np.float32))
    step(w)[0].block_until_ready()           # compile first
    jaxc.devices()[0].executor.submit(dispatch.Task(lambda: (gate.wait(10), [])[1], [], "gate", "test"))
    params, loss = step(w)                   # enqueued behind the gate: both pending
    assert not params.is_ready() and not loss.is_ready()
    gate.set()
    params_value = weakref.ref(np.asarray(params))
    del params
    gc.collect()
    assert params_value() is None, "the pending loss keeps the parameters alive"
    assert loss._value is None            # still unread
    assert float(loss) == 90000.0


def test_execution_error_surfaces_at_the_next_synchronization() -> None:
    """A failing call does not raise where it was launched; the error comes
    at block_until_ready (and at every later use), naming the operation and
    the line that launched it, chained to the original exception."""
    f = jaxc.jit(lambda a: a * 3)
    x = np.ones(2, np.float32)
    f(x).block_until_ready()
    compiled = next(iter(f._cache.values()))
    original = compiled.function

    def failing(*args):
        raise MemoryError("out of device memory (injected)")
    compiled.function = failing
    try:
        y = f(x)                             # returns normally: the failure is pending
        launch_line = y._task.where
    finally:
        compiled.function = original
    z = y + 1                                # depends on the failed value: also fails
    with pytest.raises(jaxc.JaxcRuntimeError, match="jit\\(_lambda_\\) failed while executing") as info:
        y.block_until_ready()
    assert launch_line.endswith(f"test_array.py:{info.tb.tb_frame.f_lineno - 5}") or "test_array.py" in launch_line
    assert "test_array.py" in str(info.value)
    assert isinstance(info.value.__cause__, MemoryError)
    with pytest.raises(jaxc.JaxcRuntimeError, match="injected"):
        np.asarray(z)
    with pytest.raises(jaxc.JaxcRuntimeError):
        repr(y)
    np.testing.assert_array_equal(np.asarray(f(x)), 3 * x)  # the next call is fine


def test_tasks_of_a_device_run_in_order() -> None:
    x = jnp.asarray(np.zeros(4, np.float32))
    for _ in range(50):
        x = x + 1
    np.testing.assert_array_equal(np.asarray(x), np.full(4, 50.0))


class _Serial:
    """A host function that forks no OpenMP team (`parallel` False, as a
    compiled program's): a caller waiting for its task may run it."""

    parallel = False

    def __init__(self, log: list, name: str, release: threading.Event | None = None) -> None:
        self.log, self.name, self.release = log, name, release

    def __call__(self) -> list:
        if self.release is not None:
            assert self.release.wait(10)
        self.log.append((self.name, threading.current_thread().name))
        if self.name == "fails":
            raise ValueError("bad value")
        return [np.zeros(1, np.float32)]


def _stopped_executor() -> dispatch.Executor:
    """An executor whose thread has not started (the test starts its loop)."""
    import queue
    executor = dispatch.Executor.__new__(dispatch.Executor)
    executor._queue, executor._pending, executor._count_lock = queue.SimpleQueue(), 0, threading.Lock()
    return executor


def test_a_waiting_caller_runs_a_task_the_executor_has_not_started() -> None:
    """`Executor.run_here`: the only pending task, not started, is run by the
    thread that waits for it (no two thread wake-ups); the executor then
    finds it claimed and skips it. Its error surfaces as from the executor."""
    executor, log = _stopped_executor(), []
    task = executor.submit(dispatch.Task(_Serial(log, "mine"), [], "mine", "here", [[None]]), may_run_here=True)
    waiter = threading.Thread(target=task.check, name="the-waiter")  # no executor thread runs
    waiter.start()
    waiter.join(10)
    assert not waiter.is_alive() and log == [("mine", "the-waiter")] and executor.idle()
    failing = executor.submit(dispatch.Task(_Serial(log, "fails"), [], "fails", "line 7", [[None]]),
                              may_run_here=True)
    assert executor.run_here(failing) and not executor.run_here(failing)
    with pytest.raises(dispatch.JaxcRuntimeError, match="line 7: fails failed while executing: ValueError"):
        failing.check()
    worker = threading.Thread(target=executor._work)
    worker.start()
    executor._queue.put(None)
    worker.join(10)
    assert not worker.is_alive() and len(log) == 2 and executor.idle()


def test_a_waiting_caller_never_runs_a_task_ahead_of_an_earlier_one() -> None:
    """With an earlier task pending, the waiting caller leaves its task to
    the executor (tasks of a device run in order); a task submitted
    without `may_run_here` (a parallel program) always runs there."""
    executor, log, release = _stopped_executor(), [], threading.Event()
    first = executor.submit(dispatch.Task(_Serial(log, "first", release), [], "first", "a", [[None]]),
                            may_run_here=True)
    second = executor.submit(dispatch.Task(_Serial(log, "second"), [], "second", "b", [[None]]),
                             may_run_here=True)
    assert not executor.run_here(second)  # "first" is ahead of it
    worker = threading.Thread(target=executor._work, name="the-executor")
    worker.start()
    waiter = threading.Thread(target=second.check)
    waiter.start()
    release.set()
    waiter.join(10)
    first.check()
    assert [name for name, _ in log] == ["first", "second"]
    parallel = _Serial(log, "parallel")
    parallel.parallel = True
    third = executor.submit(dispatch.Task(parallel, [], "parallel", "c", [[None]]))
    third.check()
    assert log[-1] == ("parallel", "the-executor")
    executor._queue.put(None)
    worker.join(10)


def test_jit_programs_without_threads_may_run_on_the_waiting_thread() -> None:
    """A mid-size jit program that forks no OpenMP team is submitted so that
    the caller waiting for it may run it; one split over the threads is not."""
    serial = np.arange(512 * 128, dtype=np.float32).reshape(128, 512)  # 65536 x 1.5: one thread
    f = jaxc.jit(lambda a: a * 2.0 + 1.0)
    assert f.lower(serial).compile().function.parallel is False
    for _ in range(20):
        np.testing.assert_array_equal(np.asarray(f(serial)), serial * 2 + 1)
    y = f(serial)
    assert y._task is None or y._task.executor is not None  # (None: already run)
    big = np.ones((1024, 1024), np.float32)
    g = jaxc.jit(jnp.tanh)
    if g.lower(big).compile().function.parallel:  # a host with 2 threads or more
        z = g(big)
        assert z._task is None or z._task.executor is None
        np.testing.assert_allclose(np.asarray(z), np.tanh(big), rtol=1e-6)


def test_devices_and_device_put() -> None:
    devices = jaxc.devices()
    assert devices[0].platform == "cpu" and jaxc.default_backend() == "cpu"
    assert jaxc.device_count() == len(devices) >= 1
    x = jaxc.device_put(np.arange(3, dtype=np.float64))
    assert isinstance(x, jaxc.Array) and x.dtype == np.float32  # canonicalized (x64 off)
    assert x.device is devices[0] and x.devices() == {devices[0]}
    tree = jaxc.device_put({"a": np.ones(2), "b": (1.0, None)}, devices[0])
    assert isinstance(tree["a"], jaxc.Array) and tree["b"][1] is None
    assert jaxc.block_until_ready(tree) is tree
    with pytest.raises(TypeError, match="is not a device"):
        jaxc.device_put(np.ones(2), "gpu")
    with pytest.raises(RuntimeError, match="unknown backend 'tpu'"):
        jaxc.devices("tpu")
    from jaxc.runtime import cuda
    if not cuda.available():  # a GPU machine lists its GPU (tests/python/test_gpu.py)
        assert all(d.platform == "cpu" for d in devices)
        with pytest.raises(RuntimeError, match="backend 'gpu' requested, but no GPU is present"):
            jaxc.devices("gpu")


def test_eager_kernels_are_compiled_once_per_signature() -> None:
    x = jnp.asarray(np.arange(5, dtype=np.float32))
    jnp.cos(x).block_until_ready()
    before = dispatch.kernel_cache_info()["kernels"]
    from jaxc.runtime import cpu
    compiled = cpu.compile_count
    for _ in range(20):
        jnp.cos(x)
    jnp.cos(x + 1).block_until_ready()   # same op and aval
    assert dispatch.kernel_cache_info()["kernels"] == before + 1  # only the `add` of x + 1 is new
    assert cpu.compile_count == compiled + 1
    jnp.cos(jnp.asarray(np.arange(6, dtype=np.float32)))  # new shape: one new kernel
    assert dispatch.kernel_cache_info()["kernels"] == before + 2


def test_lax_op_errors_name_the_op_and_the_types() -> None:
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes, got float32, int32"):
        lax.add(jnp.asarray(np.ones(2, np.float32)), jnp.asarray(np.ones(2, np.int32)))
    with pytest.raises(TypeError, match="cannot reshape an array of shape \\(2,\\) \\(size 2\\) into shape \\(3,\\)"):
        lax.reshape(jnp.asarray(np.ones(2, np.float32)), (3,))
    with pytest.raises(TypeError, match="test_array.py:\\d+: transpose cannot be applied to"):
        lax.transpose(jnp.asarray(np.ones((2, 3), np.float32)), (0, 0))


def test_small_programs_run_on_the_calling_thread_when_the_device_is_idle() -> None:
    """A small jit program is done when the call returns (no executor
    hand-off); a large one is still handed to the executor."""
    f = jaxc.jit(lambda a: a * 2.0 + 1.0)
    small = np.ones(8, np.float32)
    f(small).block_until_ready()
    y = f(small)
    assert y.is_ready()
    np.testing.assert_array_equal(np.asarray(y), 3 * small)
    large = np.ones(dispatch.INLINE_MAX_ELEMENTS + 1, np.float32)
    compiled = jaxc.jit(lambda a: a * 2.0 + 1.0).lower(large).compile()
    z = compiled(large)
    assert compiled._inline is False and next(iter(f._cache.values()))._inline is True
    np.testing.assert_array_equal(np.asarray(z), 3 * large)


def test_delete_frees_the_buffer_and_any_later_use_raises() -> None:
    x = jnp.arange(4.0) * 2  # computed (possibly still pending)
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    for use in (lambda: x + 1, lambda: jaxc.jit(lambda v: v * 2)(x), lambda: np.asarray(x),
                lambda: x.block_until_ready(), lambda: float(x[0])):
        with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[4\]"):
            use()
    big = jaxc.jit(lambda v: v + 1)(np.ones(1 << 20, np.float32))  # on the executor thread
    big.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        jnp.sum(big)


def test_buffer_pointer_and_size() -> None:
    import ctypes
    x = jnp.asarray(np.array([1.5, -2.0, 3.25], np.float32))
    pointer = x.unsafe_buffer_pointer()
    assert list((ctypes.c_float * 3).from_address(pointer)) == [1.5, -2.0, 3.25]
    assert x.on_device_size_in_bytes() == x.nbytes == 12


@pytest.mark.parametrize("source, target, shape", [
    (np.float32, np.int32, (2, 3)), (np.float32, np.uint16, (2, 3)), (np.uint8, np.float32, (3, 8)),
    (np.int16, np.float16, (5,)), (np.float64, np.uint32, (4,)), (np.int32, np.float64, (2, 2)),
])
def test_view_reinterprets_the_bits_as_numpy(source, target, shape, x64) -> None:
    values = (np.arange(np.prod(shape)) * 37 % 251).astype(source).reshape(shape)
    expected = values.view(target)
    for got in (jnp.asarray(values).view(target), jaxc.jit(lambda v: v.view(target))(values)):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), expected.view(np.uint8))
    with pytest.raises(ValueError, match="divisor of the total size"):
        jnp.ones(3, np.uint8).view(np.float32)


def test_more_numpy_methods() -> None:
    x = jnp.asarray(np.array([3, 1, 4, 1, 5], np.int32))
    assert x.tobytes() == np.asarray(x).tobytes()
    np.testing.assert_array_equal(jnp.sort(x).searchsorted(np.array([2, 4]), side="right"), [2, 4])
    np.testing.assert_array_equal(jnp.sort(x[x.argpartition(2)[:2]]), [1, 1])
    np.testing.assert_array_equal(jnp.asarray(np.array([0, 2, 1])).choose(jnp.asarray([[1, 2, 3], [4, 5, 6], [7, 8, 9]])),
                                  [1, 8, 6])
    np.testing.assert_array_equal(x.compress(np.array([True, False, True, False, True])), [3, 4, 5])
    copied = x.copy()
    assert copied is not x
    np.testing.assert_array_equal(copied, x)
