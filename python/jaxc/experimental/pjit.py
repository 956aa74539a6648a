"""`jax.experimental.pjit`: `pjit`, the older name of `jit` with shardings.

    from jaxc.experimental.pjit import pjit     # DeprecationWarning, as in JAX
    f = pjit(step, in_shardings=NamedSharding(mesh, P("x")), out_shardings=NamedSharding(mesh, P()))

JAX deprecated it in favour of `jax.jit`; it stays usable with a
DeprecationWarning when the name is looked up. It is `jaxc.jit` with JAX's
positional parameter order and its options (a `device` or `backend` other
than None is refused by `jaxc.jit` with a TypeError).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Sequence

__all__: list[str] = []  # pjit is reached through __getattr__, which warns

_DEPRECATED = "jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead."


def _pjit(fun: Callable, in_shardings: Any = None, out_shardings: Any = None,
          static_argnums: int | Sequence[int] | None = None, static_argnames: str | Iterable[str] | None = None,
          donate_argnums: int | Sequence[int] | None = None, donate_argnames: str | Iterable[str] | None = None,
          keep_unused: bool = False, device: Any = None, backend: str | None = None, inline: bool = False,
          compiler_options: dict[str, Any] | None = None) -> Any:
    """`jaxc.jit(fun, in_shardings=..., out_shardings=..., ...)`; None
    shardings leave the placement to jaxc. `donate_argnames`, like
    `donate_argnums`, is accepted: on the CPU nothing is donated."""
    from jaxc.api import jit
    return jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
               static_argnums=() if static_argnums is None else static_argnums,
               static_argnames=() if static_argnames is None else static_argnames,
               donate_argnums=() if donate_argnums is None else donate_argnums,
               donate_argnames=() if donate_argnames is None else donate_argnames,
               keep_unused=keep_unused, inline=inline, compiler_options=compiler_options,
               device=device, backend=backend)


_pjit.__name__ = _pjit.__qualname__ = "pjit"


def __getattr__(name: str) -> Any:
    if name == "pjit":
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
        return _pjit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
