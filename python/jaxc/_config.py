"""`jaxc.config`: global switches, read and written as in JAX.

    jaxc.config.update("jax_enable_x64", True)   # 64-bit types by default
    jaxc.config.jax_enable_x64                   # -> True
    jaxc.config.update("jax_num_cpu_devices", 4) # how many CPU devices devices() lists
    jaxc.config.update("jax_compilation_cache_dir", "/tmp/jaxc-cache")  # persistent cache (None: off)

Only the options below exist; an unknown name or a value of the wrong type
raises at once. As in JAX, an environment variable named like the option in
capitals (``JAX_ENABLE_X64=1``) sets its initial value.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any

# name -> (default, type, smallest int allowed, what it does)
OPTIONS: dict[str, tuple[Any, type, int, str]] = {
    "jax_enable_x64": (False, bool, 0, "64-bit ints and floats (else they become 32-bit)"),
    "jax_num_cpu_devices": (1, int, 1, "number of CPU devices that jaxc.devices() lists"),
    "jaxc_eager_opt_level": (3, int, 0, "LLVM optimization level (0-3) of eager one-op kernels; "
                                        "0 compiles about 5x faster, 3 runs faster (jit always uses 3)"),
    "jaxc_cpu_threads": (0, int, 0, "threads of parallel CPU kernels (OpenMP); 0: every core "
                                    "this process may use"),
    # The persistent compilation cache (jaxc/runtime/compile_cache.py); a
    # None default makes None a valid value too (the cache is off).
    "jax_compilation_cache_dir": (None, str, 0, "directory of the persistent compilation cache "
                                                "(None: off)"),
    "jax_persistent_cache_min_compile_time_secs": (0.1, float, 0, "cache only programs that took "
                                                   "at least this long to compile (JAX: 1.0)"),
    "jax_persistent_cache_min_entry_size_bytes": (0, int, -1, "cache only entries at least this "
                                                  "large (0 or -1: any size)"),
}


def _from_environment(name: str, default: Any, kind: type) -> Any:
    text = os.environ.get(name.upper())
    if text is None:
        return default
    if kind is bool:
        return text.strip().lower() in ("1", "true", "yes", "on")
    if default is None and not text:
        return None  # an empty variable leaves an optional option unset
    return kind(text)


class Config:
    """The option values; `update(name, value)` changes one."""

    def __init__(self) -> None:
        values = {name: _from_environment(name, default, kind)
                  for name, (default, kind, _, _) in OPTIONS.items()}
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_listeners", [])
        for name, value in values.items():
            object.__setattr__(self, name, value)  # plain attribute reads: on the dispatch path

    def update(self, name: str, value: Any) -> None:
        if name not in OPTIONS:
            raise AttributeError(f"jaxc.config has no option '{name}' (options: {', '.join(OPTIONS)})")
        default, kind, smallest, _ = OPTIONS[name]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # a float option takes an int, as in JAX
        optional = default is None and value is None  # an option whose default is None takes None
        if not optional and (kind in (int, float) and isinstance(value, bool) or not isinstance(value, kind)):
            expected = f"a {kind.__name__}" + (" or None" if default is None else "")
            raise TypeError(f"jaxc.config.update('{name}', {value!r}): expected {expected}")
        if kind in (int, float) and value < smallest:
            raise ValueError(f"jaxc.config.update('{name}', {value!r}): must be at least {smallest}")
        self._values[name] = value
        object.__setattr__(self, name, value)
        for listener in self._listeners:
            listener(name, value)

    def read(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"jaxc.config has no option '{name}'") from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("use jaxc.config.update(name, value)")

    def on_update(self, listener) -> None:
        """Call `listener(name, value)` after every update (caches that depend on options)."""
        self._listeners.append(listener)


config = Config()


class _OptionContext(contextlib.ContextDecorator):
    """Sets a config option for a `with` block (or a decorated function's
    calls) and puts the previous value back afterwards."""

    def __init__(self, name: str, value: Any) -> None:
        self._name, self._value, self._saved = name, value, []

    def __enter__(self) -> None:
        self._saved.append(config.read(self._name))
        config.update(self._name, self._value)

    def __exit__(self, *exc: Any) -> None:
        config.update(self._name, self._saved.pop())


def enable_x64(new_val: bool = True) -> _OptionContext:
    """``with jaxc.enable_x64():`` (or ``@jaxc.enable_x64(True)``): 64-bit
    defaults inside, the previous setting after, as JAX's context manager.
    Unlike JAX's, the setting is process-wide, not per thread."""
    return _OptionContext("jax_enable_x64", new_val)
