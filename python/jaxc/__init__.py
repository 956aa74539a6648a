"""jaxc: JAX rebuilt on MLIR.

    import jaxc as jax
    import jaxc.numpy as jnp

    @jax.jit
    def f(x):
        return jnp.sin(x) ** 2 + 1.0

    f(jnp.arange(4.0))

Every program is traced into the `jaxc` dialect, lowered through linalg to
LLVM and run on the CPU; `jit(f).lower(x).as_text(stage=...)` shows each
stage. See docs/frontend.md.

The front end is loaded on first use of any of its names, so tools that
need only the dialect and the passes (`jaxc-opt`) do not pay for it.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> (module, attribute) of the public front-end API.
_API = {
    "config": ("._config", "config"),
    "enable_x64": ("._config", "enable_x64"),
    "dtypes": (".dtypes", None),
    "Array": (".array", "Array"),
    "ShapedArray": (".core", "ShapedArray"),
    "ConcretizationTypeError": (".core", "ConcretizationTypeError"),
    "TracerLeakError": (".core", "TracerLeakError"),
    "JaxcRuntimeError": (".dispatch", "JaxcRuntimeError"),
    "jit": (".api", "jit"),
    "make_ir": (".api", "make_ir"),
    "device_put": (".api", "device_put"),
    "devices": (".api", "devices"),
    "local_devices": (".api", "local_devices"),
    "device_count": (".api", "device_count"),
    "default_backend": (".api", "default_backend"),
    "block_until_ready": (".api", "block_until_ready"),
    "tree_util": (".tree_util", None),
    "lax": (".lax", None),
    "numpy": (".numpy", None),
    "nn": (".nn", None),
    "random": (".random", None),
    "scipy": (".scipy", None),
    "ops": (".ops", None),
    "errors": (".errors", None),
    "example_libraries": (".example_libraries", None),
    "grad": ("._autodiff", "grad"),
    "value_and_grad": ("._autodiff", "value_and_grad"),
    "jvp": ("._autodiff", "jvp"),
    "vjp": ("._autodiff", "vjp"),
    "linearize": ("._autodiff", "linearize"),
    "jacfwd": ("._autodiff", "jacfwd"),
    "jacrev": ("._autodiff", "jacrev"),
    "hessian": ("._autodiff", "hessian"),
    "custom_jvp": ("._autodiff", "custom_jvp"),
    "custom_vjp": ("._autodiff", "custom_vjp"),
    "stop_gradient": ("._autodiff", "stop_gradient"),
    "vmap": ("._batching", "vmap"),
    "test_util": (".test_util", None),
    "profiler": (".profiler", None),
    "live_arrays": (".profiler.memory", "live_arrays"),
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'jaxc' has no attribute '{name}'")
    module_name, attribute = _API[name]
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
