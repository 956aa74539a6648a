"""`jax.experimental.shard_map`: the older spelling of `jaxc.shard_map`.

    from jaxc.experimental.shard_map import shard_map     # DeprecationWarning, as in JAX
    f = shard_map(g, mesh, in_specs=P("x"), out_specs=P("x"), check_rep=False)

JAX 0.8 deprecated it in favour of `jax.shard_map`; it stays usable with a
DeprecationWarning when the name is looked up. `check_rep` is the new
`check_vma`; the function maps over every axis of `mesh`.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

__all__: list[str] = []  # shard_map is reached through __getattr__, which warns

_DEPRECATED = "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead."


def _shard_map(f: Callable, mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True) -> Any:
    """`jaxc.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
    check_vma=check_rep)` over every axis of `mesh`."""
    from jaxc._shard_map import shard_map
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)


_shard_map.__name__ = _shard_map.__qualname__ = "shard_map"


def __getattr__(name: str) -> Any:
    if name == "shard_map":
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
        return _shard_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
