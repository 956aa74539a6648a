"""`jaxc.example_libraries`: JAX's small example libraries, as
`jax.example_libraries`.

    from jaxc.example_libraries import optimizers, stax
    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    init_fun, apply_fun = stax.serial(stax.Dense(64), stax.Relu, stax.Dense(10))

JAX's package has two modules, both here: `optimizers` (optimizers and
step-size schedules) and `stax` (neural-network layers and combinators).
`jaxc.example_libraries.optimizers` and `.stax` also work after a bare
`import jaxc` (the modules are loaded on first use). See
docs/example_libraries.md.
"""
from __future__ import annotations

import importlib
from typing import Any

_MODULES = ("optimizers", "stax")


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'jaxc.example_libraries' has no attribute '{name}'")
    return importlib.import_module(f".{name}", __name__)
