"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``,
``stats``, ``linalg``, ``signal``, ``integrate``, ``optimize``, ``fft``, ``ndimage``,
``interpolate``, ``cluster``, ``spatial``, ``sparse``).

Each submodule is imported on first use (``jaxc.scipy.special.logsumexp``
imports `special` only), as JAX's lazy loader does: importing all twelve
takes tens of milliseconds that a first call should not pay."""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal", "sparse",
           "spatial", "special", "stats"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'jaxc.scipy' has no attribute '{name}'")
    module = importlib.import_module(f".{name}", __name__)
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
