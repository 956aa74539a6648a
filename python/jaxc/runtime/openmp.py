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
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
import threading

_LOCK = threading.Lock()
_STATE: dict[str, object] = {}


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
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        _STATE["library"] = library
    set_threads(configured_threads())
    return path


def configured_threads() -> int:
    from jaxc._config import config

    return config.jaxc_cpu_threads or len(os.sched_getaffinity(0))


def set_threads(count: int) -> None:
    """Threads of every later parallel kernel (no-op before the runtime is loaded)."""
    library = _STATE.get("library")
    if library is not None:
        library.omp_set_num_threads(ctypes.c_int(int(count)))


def _on_config_update(name: str, value: object) -> None:
    """`jaxc_cpu_threads` reaches the schedules (through the environment that
    `jaxc.passes.host` reads) and the running OpenMP runtime."""
    if name != "jaxc_cpu_threads":
        return
    if value:
        os.environ["JAXC_CPU_THREADS"] = str(value)
    else:
        os.environ.pop("JAXC_CPU_THREADS", None)
    set_threads(configured_threads())


def _register() -> None:
    from jaxc._config import config

    config.on_update(_on_config_update)


_register()
