"""`jax.stages`: the classes of jit's ahead-of-time path.

    jitted = jaxc.jit(f)                  # Wrapped
    traced = jitted.trace(x)              # Traced
    lowered = jitted.lower(x)             # Lowered: .as_text(stage=...), .compile()
    compiled = lowered.compile()          # Compiled: callable
"""
from .api import Compiled, JitFunction as Wrapped, Lowered, Traced

__all__ = ["Compiled", "Lowered", "Traced", "Wrapped"]
