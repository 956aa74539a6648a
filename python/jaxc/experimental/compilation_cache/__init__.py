"""`jax.experimental.compilation_cache`: its module `compilation_cache`
sets the persistent compilation cache's directory."""
from . import compilation_cache

__all__ = ["compilation_cache"]
