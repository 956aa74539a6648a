"""`jax.experimental`: the names JAX keeps outside its stable API.

    from jaxc.experimental import io_callback          # a host call with side effects
    from jaxc.experimental.compilation_cache import compilation_cache
    compilation_cache.set_cache_dir("/tmp/jaxc-cache")  # the persistent compilation cache

As in JAX, `io_callback` and `compilation_cache` are attributes of the
package; the other submodules (`mesh_utils`, `multihost_utils`,
`shard_map`, `pjit`, `ode`, ...) are imported by name (``from
jaxc.experimental import mesh_utils``).
"""
from .._callback import io_callback
from . import compilation_cache

__all__ = ["compilation_cache", "io_callback"]
