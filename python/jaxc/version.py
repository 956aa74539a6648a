"""`jaxc.version`: jaxc's version, as JAX's `jax.version` module gives JAX's.

    >>> jaxc.version.__version__, jaxc.version.__version_info__
    ('0.1.0', (0, 1, 0))
"""
from __future__ import annotations

from . import __version__

_version: str = __version__
__version_info__: tuple[int, ...] = tuple(int(part) for part in __version__.split("."))
