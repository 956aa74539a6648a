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
"""

__version__ = "0.1.0"

from ._config import config  # noqa: E402
from . import dtypes  # noqa: E402
from .array import Array  # noqa: E402
from .core import ConcretizationTypeError, ShapedArray, TracerLeakError  # noqa: E402
from .dispatch import JaxcRuntimeError  # noqa: E402
from .api import (block_until_ready, default_backend, device_count, device_put, devices, jit,  # noqa: E402
                  local_devices, make_ir)
from . import tree_util  # noqa: E402
from . import lax  # noqa: E402
from . import numpy  # noqa: E402

errors = type("errors", (), {"ConcretizationTypeError": ConcretizationTypeError,
                             "TracerLeakError": TracerLeakError,
                             "UnexpectedTracerError": TracerLeakError})

__all__ = ["Array", "ConcretizationTypeError", "JaxcRuntimeError", "ShapedArray", "block_until_ready",
           "config", "default_backend", "device_count", "device_put", "devices", "dtypes", "jit", "lax",
           "local_devices", "make_ir", "numpy", "tree_util"]
