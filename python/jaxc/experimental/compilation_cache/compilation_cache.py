"""`jax.experimental.compilation_cache.compilation_cache`: where compiled
programs are kept between processes.

    from jaxc.experimental.compilation_cache import compilation_cache as cc
    cc.set_cache_dir("/tmp/jaxc-cache")   # same as config.update("jax_compilation_cache_dir", ...)
    jaxc.jit(f)(x)                        # compiled, then written to /tmp/jaxc-cache
    # a later process that sets the same directory loads f's machine code instead of compiling

The cache itself is jaxc.runtime.compile_cache (CPU programs, one file per
program, programs with host callbacks never cached). It reads the directory
at every compilation, so a new `set_cache_dir` takes effect at once.
"""
from __future__ import annotations

from typing import Any

__all__ = ["reset_cache", "set_cache_dir"]


def set_cache_dir(path: Any) -> None:
    """Keep compiled programs in directory `path` (created on the first
    write) and look there before compiling; None turns the cache off."""
    from jaxc._config import config
    if path is not None and not isinstance(path, str):
        raise ValueError("new string config value must be None or of type str, "
                         f"got {path} of type {type(path)}.")
    config.update("jax_compilation_cache_dir", path)


def reset_cache() -> None:
    """Back to the state of a fresh process: wait for the entries still
    being written, and warn again about a directory that cannot be written
    (each is reported once). The directory setting stays as it is, as in JAX."""
    from jaxc.runtime import compile_cache
    compile_cache.wait()
    with compile_cache._STATS_LOCK:
        compile_cache._WARNED_DIRS.clear()
