"""glibc malloc settings for the large, short-lived buffers of compiled code
(docs/performance.md, "Memory").

A training step allocates and frees the same megabyte-sized buffers every
call: its outputs (NumPy arrays) and the temporaries of its kernels
(`memref.alloc` is `malloc`). glibc serves a block over its mmap threshold
(128 KiB at first, raised dynamically only up to the size of blocks already
freed) from a fresh `mmap` and unmaps it at `free`, so every step pays a page
fault per 4 KiB touched. `tune()` sets, once per process:

    M_MMAP_THRESHOLD = 32 MiB   (glibc's maximum: smaller blocks come from the heap and are reused)
    M_TRIM_THRESHOLD = 256 MiB  (free memory at the top of the heap is kept up to this)

It leaves malloc alone where the user chose its settings (MALLOC_MMAP_THRESHOLD_,
MALLOC_TRIM_THRESHOLD_ or a glibc.malloc tunable in GLIBC_TUNABLES), where
JAXC_MALLOC_TUNING=0, and where the C library has no `mallopt` (not glibc).
The MNIST-style training epoch of bench/ runs about 25% faster with it.
"""
from __future__ import annotations

import ctypes
import os

M_TRIM_THRESHOLD = -1  # glibc <malloc.h>
M_MMAP_THRESHOLD = -3
SETTINGS = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 256 << 20}
USER_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")

_STATE: dict[str, str] = {}


def tune() -> str:
    """Apply `SETTINGS` once; returns what happened: "tuned", or why not
    ("disabled", "user settings", "no mallopt", "refused")."""
    if "result" not in _STATE:
        _STATE["result"] = _apply()
    return _STATE["result"]


def _apply() -> str:
    if os.environ.get("JAXC_MALLOC_TUNING", "1") == "0":
        return "disabled"
    if any(v in os.environ for v in USER_VARIABLES) or "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return "user settings"
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "no mallopt"
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    ok = all(mallopt(param, value) == 1 for param, value in SETTINGS.items())
    return "tuned" if ok else "refused"
