"""`jaxc.config`: global switches, read and written as in JAX.

    jaxc.config.update("jax_enable_x64", True)   # 64-bit types by default
    jaxc.config.jax_enable_x64                   # -> True
    jaxc.config.update("jax_num_cpu_devices", 4) # how many CPU devices devices() lists

Only the options below exist; an unknown name or a value of the wrong type
raises at once.
"""
from __future__ import annotations

from typing import Any

# name -> (default, type, what it does)
OPTIONS: dict[str, tuple[Any, type, str]] = {
    "jax_enable_x64": (False, bool, "64-bit ints and floats (else they become 32-bit)"),
    "jax_num_cpu_devices": (1, int, "number of CPU devices that jaxc.devices() lists"),
}


class Config:
    """The option values; `update(name, value)` changes one."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {name: default for name, (default, _, _) in OPTIONS.items()})
        object.__setattr__(self, "_listeners", [])

    def update(self, name: str, value: Any) -> None:
        if name not in OPTIONS:
            raise AttributeError(f"jaxc.config has no option '{name}' (options: {', '.join(OPTIONS)})")
        _, kind, _ = OPTIONS[name]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            raise TypeError(f"jaxc.config.update('{name}', {value!r}): expected a {kind.__name__}")
        if kind is int and value < 1:
            raise ValueError(f"jaxc.config.update('{name}', {value!r}): must be at least 1")
        self._values[name] = value
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
