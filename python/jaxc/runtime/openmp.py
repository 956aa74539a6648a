"""The OpenMP runtime that parallel kernels call, and glibc's libmvec.

`make` installs PyPI's ``intel-openmp``, whose ``libiomp5.so`` has the
``__kmpc_*`` ABI that upstream ``convert-openmp-to-llvm`` targets. It is
loaded once, process-wide, before the first compiled module; the number of
threads follows ``jaxc.config.jaxc_cpu_threads`` (environment variable
``JAXC_CPU_THREADS``; default: every core this process may use) through
``omp_set_num_threads``. Idle workers spin for 10 ms before they sleep
(``KMP_BLOCKTIME=10`` unless set): long enough to bridge the gaps between
the kernels of one program and between calls in a loop (waking a sleeping
worker costs tens of µs per parallel kernel: the MLP step ran 1.6x JAX with
0 ms, 0.9-1.0x with 10 ms), short enough that an idle program gives the
cores back (the default 200 ms spun through other work).

Workers are pinned, the calling thread is not (`pin_workers`): each thread
that runs a parallel function first pins its own team, worker i to the
i-th allowed core from the last. Unpinned, a worker woken after a pause
(Python work between calls) often landed on the caller's core, and the
kernels ran at one thread's speed for several milliseconds until the
scheduler moved it: (X-mean)/std of 10000x100 took 1.4 ms after a 30 ms
pause instead of 0.5 ms. Binding every thread (``KMP_AFFINITY``) fixed that
too but pinned the caller, and with it every thread it later starts, to one
core. Off with ``jaxc_cpu_pin_workers`` (``JAXC_CPU_PIN_WORKERS=0``), and
when ``KMP_AFFINITY``, ``OMP_PROC_BIND`` or ``OMP_PLACES`` is set (the
runtime's own binding then decides).

Dynamic teams (``jaxc_cpu_dynamic_threads``, ``JAXC_CPU_DYNAMIC_THREADS=1``;
off by default) are for machines that other processes keep busy: the
runtime then forks smaller teams (its ``load_balance`` mode counts the
machine's running threads, at most once a second). A parallel kernel waits
at its end for every worker of its team, and a worker whose core another
process holds runs only when the scheduler gives it a turn. Beside one busy
process, SELU of 1e6 floats took 1.4-1.5 ms with dynamic teams against
1.9 ms with a fixed team of 2 (quiet: 0.8-1.0 ms). Off by default because
the count is a snapshot: a thread that happens to run when it is taken (a
kernel thread, the caller's own Python thread) costs a second of smaller
teams, and on a quiet machine SELU's median went from 0.8-1.0 to 0.8-1.8 ms.
``OMP_DYNAMIC`` set in the environment takes precedence.

OpenMP keeps the thread count and the dynamic flag per calling thread, so
both are applied by `prepare_thread`, which the compiled-call extension runs
in each thread before its first parallel function, and again after any of
these settings changes.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
import threading
from typing import cast

_LOCK = threading.Lock()
_STATE: dict[str, object] = {}


def _library() -> ctypes.CDLL | None:
    """The loaded libiomp5 (None before `load` found it)."""
    return cast("ctypes.CDLL | None", _STATE.get("library"))


def libiomp5_path() -> str | None:
    """Where the intel-openmp wheel put libiomp5.so (None when it is not installed)."""
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(sys.executable)))):
        path = os.path.join(prefix, "lib", "libiomp5.so")
        if os.path.exists(path):
            return path
    return None


@functools.lru_cache(maxsize=1)
def libmvec_path() -> str | None:
    """glibc's vector math library (None off glibc); looked up once (find_library
    runs a subprocess)."""
    name = ctypes.util.find_library("mvec")
    if name is None:
        return None
    for directory in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return path
    return name


def load() -> str | None:
    """Load libiomp5 globally (once) and apply the configured thread count;
    returns its path, or None when the wheel is missing."""
    with _LOCK:
        if "path" in _STATE:
            return _STATE["path"]  # type: ignore[return-value]
        path = libiomp5_path()
        _STATE["path"] = path
        if path is None:
            return None
        os.environ.setdefault("KMP_BLOCKTIME", "10")
        os.environ.setdefault("KMP_DYNAMIC_MODE", "load_balance")  # the default on Linux; said here
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        _STATE["library"] = library
    _new_generation()
    return path


_USER_BINDING = ("KMP_AFFINITY", "OMP_PROC_BIND", "OMP_PLACES")


class _Ident(ctypes.Structure):
    """OpenMP's ``ident_t``: where a parallel region is, for the runtime's messages."""
    _fields_ = [("reserved_1", ctypes.c_int32), ("flags", ctypes.c_int32),
                ("reserved_2", ctypes.c_int32), ("reserved_3", ctypes.c_int32),
                ("psource", ctypes.c_char_p)]


_MICROTASK = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32))
_IDENT = _Ident(0, 2, 0, 0, b";jaxc;pin_workers;0;0;;")  # flags 2: KMP_IDENT_KMPC


def pin_workers() -> list[int]:
    """Pin the OpenMP workers of the calling thread's team: worker i (1, 2,
    ...) to the i-th of this thread's allowed cores counted from the last;
    the calling thread (worker 0) stays free. Returns the cores the workers
    were pinned to. Called by the compiled-call extension once per thread
    before its first parallel function (which moves the caller off these
    cores for the call when it finds it on one: `_fastcall.c`)."""
    library = _library()
    if library is None:
        return []
    cores = sorted(os.sched_getaffinity(0))
    pinned: list[int] = []

    def pin(global_id, bound_id) -> None:
        worker = library.omp_get_thread_num()
        if worker > 0:
            core = cores[(len(cores) - worker) % len(cores)]
            try:
                os.sched_setaffinity(0, {core})
            except OSError:
                return  # not allowed here (a container's policy): the worker stays free
            pinned.append(core)

    task = _MICROTASK(pin)
    library.__kmpc_fork_call(ctypes.byref(_IDENT), ctypes.c_int32(0), task)
    return pinned if len(pinned) < len(cores) else []  # every core taken: nowhere to move the caller


def _pinning_wanted() -> bool:
    from jaxc._config import config

    return bool(config.jaxc_cpu_pin_workers) and not any(os.environ.get(v) for v in _USER_BINDING)


def _dynamic_wanted() -> bool:
    from jaxc._config import _from_environment, config

    user = _from_environment("omp_dynamic", None, bool)  # OMP_DYNAMIC, read as jaxc's own switches
    return bool(config.jaxc_cpu_dynamic_threads) if user is None else user


def prepare_thread() -> list[int]:
    """Apply the settings to the calling thread's own OpenMP state: its thread
    count (`configured_threads`), dynamic teams, and its workers pinned when
    pinning is wanted (`pin_workers`, with a full team). Returns the cores the
    workers were pinned to. The compiled-call extension calls it once per
    thread before the thread's first parallel function, and again after
    `_new_generation`."""
    library = _library()
    if library is None:
        return []
    library.omp_set_num_threads(ctypes.c_int(configured_threads()))
    pinned: list[int] = []
    if _pinning_wanted():
        library.omp_set_dynamic(ctypes.c_int(0))  # every worker of a full team gets a core
        pinned = pin_workers()
    library.omp_set_dynamic(ctypes.c_int(int(_dynamic_wanted())))
    return pinned


def _new_generation() -> None:
    """Make every thread run `prepare_thread` again before its next parallel
    function (a new thread count also means new, unpinned workers)."""
    from . import _fastcall

    _fastcall.set_thread_hook(prepare_thread)


def configured_threads() -> int:
    from jaxc._config import config

    return config.jaxc_cpu_threads or len(os.sched_getaffinity(0))


_SETTINGS = ("jaxc_cpu_threads", "jaxc_cpu_pin_workers", "jaxc_cpu_dynamic_threads")


def _on_config_update(name: str, value: object) -> None:
    """`jaxc_cpu_threads` reaches the schedules (through the environment that
    `jaxc.passes.host` reads); every setting of `_SETTINGS` reaches each
    calling thread through `prepare_thread`."""
    if name not in _SETTINGS:
        return
    if name == "jaxc_cpu_threads":
        if value:
            os.environ["JAXC_CPU_THREADS"] = str(value)
        else:
            os.environ.pop("JAXC_CPU_THREADS", None)
    if "library" in _STATE:
        _new_generation()


def _register() -> None:
    from jaxc._config import config

    config.on_update(_on_config_update)


_register()
