"""Test helpers for choosing the CPU compiler (`jaxc_cpu_compiler`) and
getting at the program it compiled (test_llvm_tools.py, test_orc.py)."""
from __future__ import annotations

import contextlib

import jaxc
from jaxc.runtime import cpu


@contextlib.contextmanager
def compiler(choice: str):
    """`jaxc_cpu_compiler` set to `choice` for the block."""
    saved = jaxc.config.read("jaxc_cpu_compiler")
    jaxc.config.update("jaxc_cpu_compiler", choice)
    try:
        yield
    finally:
        jaxc.config.update("jaxc_cpu_compiler", saved)


def compiled(f, *args):
    """jit(f) compiled for `args` past every cache of this process: (the
    runtime Executable, the results)."""
    jaxc.clear_caches()
    out = jaxc.jit(f)(*args)
    executables = [e for key, e in cpu._CACHE.items() if key[3] == "cpu"]
    assert len(executables) == 1, "expected one compiled program"
    return executables[0], out
