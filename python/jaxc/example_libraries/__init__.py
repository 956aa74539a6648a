"""`jaxc.example_libraries`: JAX's small example libraries, as
`jax.example_libraries`.

    from jaxc.example_libraries import optimizers
    opt_init, opt_update, get_params = optimizers.adam(1e-3)

JAX's package has two modules, `optimizers` and `stax`. Only `optimizers`
exists here; `stax` (the neural-network layer combinators) is not built yet.
`jaxc.example_libraries.optimizers` also works after a bare `import jaxc`
(the module is loaded on first use). See docs/example_libraries.md.
"""
from __future__ import annotations

import importlib
from typing import Any

_MODULES = ("optimizers",)


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'jaxc.example_libraries' has no attribute '{name}'")
    return importlib.import_module(f".{name}", __name__)
