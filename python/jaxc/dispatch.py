"""Devices, their executors, and eager execution of primitives.

Every device has one executor thread. Running a compiled function enqueues
a task and returns at once; the task's results become the values of the
`Array`s handed back (see `jaxc.array`). Tasks of one device run in order,
so an input made by an earlier task is ready when a later one starts. The
compiled call releases the GIL (ctypes), so Python keeps going meanwhile.

Small programs (at most `INLINE_MAX_ELEMENTS` input and output elements)
run on the calling thread when their device's executor has nothing pending:
handing a task to the executor thread and waking the caller costs tens of
microseconds, more than such a program runs. The semantics are the same
(tasks of a device still run in order; an error still surfaces at the next
synchronization), only the caller waits for the few microseconds of work.
When such a program's inputs are ready Arrays, the C extension
(`jaxc.runtime._fastcall`) runs it and wraps the results without a `Task`:
`Entry.run_ready` for eager kernels here, `JitCache` for jit (api.py).

Eager primitives: ``apply_eager(prim, operands, params)`` looks up a kernel
compiled once per (primitive, operand shapes and dtypes, parameters),

    func.func @sin(%arg0: tensor<3xf32>) -> tensor<3xf32> {
      %0 = jaxc.sin %arg0 : tensor<3xf32>
      return %0 : tensor<3xf32>
    }

and enqueues one call of it. Nothing is compiled again for the same key
(`kernel_cache_info()` tells tests how many kernels exist).
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Sequence

import mlir.ir as ir
import numpy as np
from mlir.dialects import func as func_d

from . import core, monitoring
from ._config import config
from .profiler import traces as _profile


class JaxcRuntimeError(RuntimeError):
    """A computation failed while it ran on a device; raised at the next
    synchronization (`block_until_ready`, `np.asarray`, printing, ...)."""


# ---------------------------------------------------------------------------
# Devices and executors
# ---------------------------------------------------------------------------

class Task:
    """One enqueued call: `run()` fills its result cells or `error`, then the
    task is done. `where` (the user's line, for error messages) may be None
    while the task has not failed: a task run inline finds it after the fact
    (see `run`).

    `cells`, one `[value]` list per result, are shared with the Arrays of the
    results, and the task lets go of them once it has run: each Array then
    holds only its own result (an unread loss keeps no parameters alive, as a
    JAX Array holds only its own buffer)."""

    __slots__ = ("fn", "inputs", "cells", "error", "_lock", "_claim", "what", "where", "executor")

    def __init__(self, fn: Callable[..., Sequence[np.ndarray]], inputs: Sequence[Any], what: str,
                 where: str | None, cells: Sequence[list[Any]] = ()) -> None:
        self.fn = fn
        self.inputs: Sequence[Any] | None = inputs  # dropped once run
        self.cells = cells  # dropped once run
        self.error: BaseException | None = None
        self._lock = threading.Lock()  # held until the task has run (cheaper than an Event)
        self._lock.acquire()
        self._claim = threading.Lock()  # taken by the thread that runs the task
        self.what = what
        self.where = where
        # the executor it was submitted to, when a caller waiting for it may run
        # it itself (`Executor.run_here`); None: only the executor runs it
        self.executor: Executor | None = None

    def claim(self) -> bool:
        """Whether this thread may run the task (the first to ask)."""
        return self._claim.acquire(blocking=False)

    def run(self) -> None:
        session = _profile.SESSION  # a trace records the execution
        start = time.perf_counter_ns() if session is not None else 0
        try:
            inputs = self.inputs
            assert inputs is not None  # a task runs once
            args = [x._ready_value() if type(x) is _Array else x for x in inputs]
            values = self.fn(*args)
            if len(values) != len(self.cells):
                raise RuntimeError(f"{len(values)} results where {len(self.cells)} were expected")
            for cell, value in zip(self.cells, values):
                value.flags.writeable = False
                cell[0] = value
        except BaseException as error:  # noqa: BLE001 -- surfaces at the next sync
            self.error = error
        finally:
            self.inputs = None
            self.cells = ()
            if session is not None:
                session.record(self.what, "execution", start, time.perf_counter_ns())
            self._lock.release()

    def is_done(self) -> bool:
        return not self._lock.locked()

    def wait(self) -> None:
        if self._lock.locked():
            executor = self.executor
            if executor is not None and executor.run_here(self):
                return
            with self._lock:
                pass

    def check(self) -> None:
        """Wait until the task has run; raise its error as a JaxcRuntimeError."""
        self.wait()
        if self.error is not None:
            error = self.error
            if isinstance(error, JaxcRuntimeError):
                raise error
            raise JaxcRuntimeError(f"{self.where}: {self.what} failed while executing: "
                                   f"{type(error).__name__}: {error}") from error


# The executor whose task this thread is running (its worker thread, or a
# caller in `Executor.run_here`): a host callback of that task that computes
# with jaxc runs its programs at once (`run`), never queued behind the task
# that waits for them.
_RUNNING = threading.local()


class Executor:
    """A worker thread that runs a device's tasks in order."""

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[Task | None] = queue.SimpleQueue()
        self._pending = 0  # tasks submitted and not yet run
        self._count_lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, task: Task, *, may_run_here: bool = False) -> Task:
        """Enqueue `task`; with `may_run_here`, a caller that waits for it
        before the executor has started it may run it itself (`run_here`)."""
        if may_run_here:
            task.executor = self
        with self._count_lock:
            self._pending += 1
        self._queue.put(task)
        return task

    def idle(self) -> bool:
        """Whether no submitted task is waiting or running."""
        return self._pending == 0

    def run_here(self, task: Task) -> bool:
        """Run `task` on the calling thread, which is about to wait for it,
        when it is the only task pending (every earlier one has run) and the
        executor has not started it: the caller would sleep until the
        executor thread woke, ran it and woke the caller, two thread
        wake-ups (40-50 us on a 2-core VM; `x * 2 + 1` on 512 x 512 runs in
        18). False, and nothing done, otherwise."""
        if self._pending != 1 or not task.claim():
            return False
        try:
            self._run(task)
        finally:
            with self._count_lock:
                self._pending -= 1
        return True

    def _run(self, task: Task) -> None:
        outer = getattr(_RUNNING, "executor", None)
        _RUNNING.executor = self
        try:
            task.run()
        finally:
            _RUNNING.executor = outer

    def runs_a_task_here(self) -> bool:
        """Whether the calling thread is running one of this executor's tasks
        (a host callback of it is calling jaxc)."""
        return getattr(_RUNNING, "executor", None) is self

    def _work(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            if task.claim():
                self._run(task)
                with self._count_lock:
                    self._pending -= 1
            else:  # a waiting caller runs it: the next task starts after it
                with task._lock:
                    pass


class Device:
    """A CPU device: an id and an executor."""

    platform = "cpu"
    device_kind = "cpu"
    target = "cpu"  # the stages' target (jaxc.passes.stages.TARGETS)
    chip: str | None = None  # the CPU has no chips (a GPU device's is its compute capability)

    @staticmethod
    def place(value: np.ndarray) -> np.ndarray:
        """`value` in this device's memory (the CPU: host memory, as it is)."""
        return value

    process_index = 0  # jaxc.distributed: the process holding the device

    def __init__(self, id: int) -> None:
        self.id = id
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    self._executor = Executor(f"jaxc-{self.platform}-{self.id}")
        return self._executor

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"


class GpuDevice(Device):
    """An NVIDIA GPU (CUDA device 0): programs compile for its chip and run
    through MLIR's CUDA runtime wrappers; its arrays live in managed memory."""

    platform = "gpu"
    target = "cuda"

    def __init__(self, id: int, ordinal: int) -> None:
        from jaxc.runtime import cuda
        super().__init__(id)
        self.ordinal = ordinal
        self.device_kind = cuda.device_name(ordinal)
        self.chip = cuda.chip(ordinal)

    @staticmethod
    def place(value: np.ndarray) -> np.ndarray:
        from jaxc.runtime import cuda
        return cuda.to_managed(value)

    def __repr__(self) -> str:
        return f"CudaDevice(id={self.id})"


_DEVICES: list[Device] = []
_GPU_DEVICES: list[GpuDevice] = []


def devices() -> list[Device]:
    """The CPU devices: `jax_num_cpu_devices` of them (JAX_NUM_CPU_DEVICES),
    or, while that is 1, as many as XLA_FLAGS' `--xla_force_host_platform_device_count`."""
    wanted = local_cpu_device_count()
    if len(_DEVICES) < wanted:
        from . import distributed
        first = distributed.process_index() * wanted  # global ids across processes
        while len(_DEVICES) < wanted:
            device = Device(first + len(_DEVICES))
            device.process_index = distributed.process_index()
            _DEVICES.append(device)
    return _DEVICES[:wanted]


def local_cpu_device_count() -> int:
    wanted = config.jax_num_cpu_devices
    return _xla_flags_device_count() if wanted == 1 else wanted


class RemoteDevice:
    """A CPU device of another process (jaxc.distributed): listed by
    `jaxc.devices()`, never computed on here."""

    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, id: int, process_index: int) -> None:
        self.id = id
        self.process_index = process_index

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"


_REMOTE: dict[int, RemoteDevice] = {}


def global_devices() -> list:
    """Every process's CPU devices, by process (this one's are `devices()`)."""
    from . import distributed
    local = devices()
    if distributed.process_count() == 1:
        return local
    out: list[Device | RemoteDevice] = []
    for process in range(distributed.process_count()):
        if process == distributed.process_index():
            out += local
            continue
        for i in range(len(local)):
            id_ = process * len(local) + i
            out.append(_REMOTE.setdefault(id_, RemoteDevice(id_, process)))
    return out


def _xla_flags_device_count() -> int:
    import os
    import re
    found = re.findall(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return max(1, int(found[-1])) if found else 1


def gpu_devices() -> list[Device]:
    """The GPU devices: CUDA device 0 where a driver reports one, else none."""
    from jaxc.runtime import cuda
    if not _GPU_DEVICES and cuda.available():
        _GPU_DEVICES.append(GpuDevice(0, 0))
    return list(_GPU_DEVICES)


PLATFORMS = ("cpu", "gpu", "cuda")  # the names `platform_devices` (and jaxc.devices) take


def platform_devices(platform: str) -> list[Device]:
    """The devices of `platform` ("cpu", "gpu"/"cuda"); a RuntimeError for a GPU without one."""
    if platform == "cpu":
        return devices()
    gpus = gpu_devices()
    if not gpus:
        raise RuntimeError(f"backend {platform!r} requested, but no GPU is present: the NVIDIA "
                           "driver (libcuda.so.1) is not loadable or reports no device")
    return gpus


def default_device() -> Device:
    """`jax_default_device` (`with jaxc.default_device(d):`) or the first CPU device."""
    chosen = config.jax_default_device
    if chosen is None:
        return devices()[0]
    return platform_devices(chosen)[0] if isinstance(chosen, str) else chosen


def wait_for_all() -> None:
    """Wait until every task enqueued so far on any device has run (a device
    whose executor never started has none)."""
    tasks = [device.executor.submit(Task(lambda: [], [], "wait_for_all", None))
             for device in _DEVICES + _GPU_DEVICES if device._executor is not None]
    for task in tasks:
        task.wait()


INLINE_MAX_ELEMENTS = 1 << 14


def runs_inline(inputs: Sequence[Any], out_avals: Sequence[core.ShapedArray]) -> bool:
    """Whether a program with these inputs (arrays, avals or scalars) and
    results is small enough to run on the caller's thread."""
    return (sum(getattr(x, "size", 1) for x in inputs) + sum(a.size for a in out_avals)
            <= INLINE_MAX_ELEMENTS)


def run(fn: Callable[..., Sequence[np.ndarray]], inputs: Sequence[Any],
        out_avals: Sequence[core.ShapedArray], what: str, device: Device | None = None,
        inline: bool = False) -> list[Any]:
    """Enqueue `fn(*inputs)` on `device` and return its results as Arrays at
    once; with `inline` (a small program) run it here if the device is idle.
    A program for the host that forks no OpenMP team (`fn.parallel` false)
    may be run by the thread that waits for its results (`Executor.run_here`);
    a parallel one stays on the executor thread, whose OpenMP workers are
    already spinning (a team per calling thread: two teams would share the
    cores)."""
    if config.jax_no_execution:
        label = what if what.startswith("jit(") else f"jit({what})"
        raise RuntimeError(f"jaxc tried to execute function {label}, but the no_execution config "
                           "option is set")
    for x in inputs:  # a deleted input is the caller's error, raised here (JAX's RuntimeError)
        if type(x) is _Array and x._value is None and x.is_deleted():
            x._ready_value()  # raises the deleted Array's RuntimeError
    device = device or _device_of(inputs)
    executor = device.executor
    cells: list[list[Any]] = [[None] for _ in out_avals]
    if (inline and executor.idle()) or executor.runs_a_task_here():
        # (in a host callback of this executor's task: queued, it would wait for
        # the task that waits for it)
        task = Task(fn, inputs, what, None, cells)
        task.run()
        if task.error is None:
            ready = _Array._ready
            return [ready(cell[0], aval, device) for cell, aval in zip(cells, out_avals)]
        task.where = core.where()  # the caller's frames are still the launching ones
    else:
        may_run_here = device.target == "cpu" and getattr(fn, "parallel", True) is False
        task = executor.submit(Task(fn, inputs, what, core.where(), cells), may_run_here=may_run_here)
    pending = _Array._pending
    return [pending(aval, task, cell, device) for aval, cell in zip(out_avals, cells)]


def transfer(value: np.ndarray, device: Device) -> np.ndarray:
    """`value` (host data, not shared with anyone) placed on `device`, read-only."""
    session = _profile.SESSION
    start = time.perf_counter_ns() if session is not None else 0
    value = device.place(value)
    value.flags.writeable = False
    if session is not None:
        session.record("transfer to device", "transfer", start, time.perf_counter_ns(),
                       {"bytes": value.nbytes, "device": repr(device)})
    return value


def _device_of(inputs: Sequence[Any]) -> Device:
    for x in inputs:
        if type(x) is _Array and x.device is not None:
            return x.device
    return default_device()


# ---------------------------------------------------------------------------
# Eager primitives
# ---------------------------------------------------------------------------

class Kernel:
    """A compiled one-primitive function and the avals of its results;
    `entry` is its C entry point when a small program on the host may take
    the fast path (`Entry.run_ready`), else None."""

    __slots__ = ("function", "out_avals", "weak_out_avals", "name", "inline", "entry")

    def __init__(self, function: Any, out_avals: Sequence[core.ShapedArray], name: str,
                 inline: bool = False) -> None:
        self.function = function
        self.inline = inline
        self.out_avals = tuple(out_avals)
        self.weak_out_avals = tuple(core.ShapedArray(a.shape, a.dtype, True) for a in out_avals)
        self.name = name
        self.entry = function._entry if inline and getattr(function, "_host", False) else None


_KERNELS: dict[tuple, Kernel] = {}
_KERNELS_LOCK = threading.Lock()


def kernel_cache_info() -> dict[str, int]:
    """How many eager kernels have been compiled (one per key)."""
    return {"kernels": len(_KERNELS)}


def apply_eager(prim: core.Primitive, operands: Sequence[Any], params: dict) -> Any:
    try:
        arrays = [x if type(x) is _Array else _Array._from_value(x) for x in operands]
    except RuntimeError:  # an array spanning processes cannot be read
        from ._global_array import GlobalArray
        if not any(isinstance(x, GlobalArray) for x in operands):
            raise
        return _apply_across_processes(prim, operands, params)
    avals = [a.aval for a in arrays]
    device = _device_of(arrays)
    key = (prim, *[a.strong for a in avals], *(sorted(params.items()) if params else ()),
           config.jaxc_eager_opt_level, device.target)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _compile_kernel(prim, avals, params, key, device)
    out_avals = kernel.weak_out_avals if prim.weak(avals, **params) else kernel.out_avals
    # the checked path: results checked (waits for them), or `run` refuses under no_execution
    if config.jax_debug_nans or config.jax_debug_infs or config.jax_no_execution:
        from ._toplevel import check_finite
        outs = run(kernel.function, arrays, out_avals, prim.name, device, inline=kernel.inline)
        check_finite(outs, prim.name)
        return outs if prim.multiple_results else outs[0]
    if kernel.entry is not None:
        outs = kernel.entry.run_ready(arrays, out_avals, device)  # None: pending inputs, busy device
        if outs is not None:
            return outs if prim.multiple_results else outs[0]
    outs = run(kernel.function, arrays, out_avals, prim.name, device, inline=kernel.inline)
    return outs if prim.multiple_results else outs[0]


_ACROSS: dict[tuple, Callable] = {}


def _apply_across_processes(prim: core.Primitive, operands: Sequence[Any], params: dict) -> Any:
    """`prim` on arrays spanning processes (`_global_array.py`), as JAX
    runs it: a jit of the one primitive, partitioned across the processes
    by the operands' shardings (one per primitive and parameters)."""
    key = (prim, *(sorted(params.items()) if params else ()))
    jitted = _ACROSS.get(key)
    if jitted is None:
        from .api import jit

        def apply(*xs: Any) -> Any:
            return prim.bind(*xs, **params)
        apply.__name__ = prim.name.replace(".", "_")
        jitted = _ACROSS[key] = jit(apply)
    return jitted(*operands)


def _compile_kernel(prim: core.Primitive, avals: Sequence[core.ShapedArray], params: dict,
                    key: tuple, device: Device) -> Kernel:
    from jaxc.runtime import CompileError, compile_module
    ctx = core.context()
    name = "jaxc_" + prim.name.replace(".", "_")  # never a C library name (`sin`)
    with _KERNELS_LOCK:
        kernel = _KERNELS.get(key)
        if kernel is not None:
            return kernel
        with ctx, core.user_location(), monitoring.timed(monitoring.TRACE_EVENT, fun_name=prim.name):
            module = ir.Module.create()
            with ir.InsertionPoint(module.body):
                arg_types = [core.ir_type(a.shape, a.dtype) for a in avals]
                fn = func_d.FuncOp(name, ir.FunctionType.get(arg_types, []))
                block = fn.add_entry_block()
                with ir.InsertionPoint(block):
                    results = core.build_checked(prim, list(block.arguments), params)
                    func_d.ReturnOp(results)
                fn.attributes["function_type"] = ir.TypeAttr.get(
                    ir.FunctionType.get(arg_types, [r.type for r in results]))
        out_avals = [core.aval_of_type(r.type) for r in results]
        try:
            with monitoring.timed(monitoring.BACKEND_COMPILE_EVENT, fun_name=f"jit({prim.name})"):
                executable = compile_module(module.operation.get_asm(enable_debug_info=True),
                                            opt_level=min(config.jaxc_eager_opt_level, 3),
                                            target=device.target, chip=device.chip)
        except CompileError as error:
            raise core.JaxcTypeError(f"{core.where()}: cannot compile {prim.name} for "
                                     f"{', '.join(a.str_short() for a in avals)}: {error}") from None
        kernel = Kernel(executable[name], out_avals, name, runs_inline(avals, out_avals))
        _KERNELS[key] = kernel
    return kernel


from .array import Array as _Array  # noqa: E402 -- array imports this module lazily
from .runtime import _fastcall  # noqa: E402

_fastcall.configure(_Array, core.ShapedArray, config, core._STATE)
