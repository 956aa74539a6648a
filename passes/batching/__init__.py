"""`jaxc-batch`: vmap requests expanded into batched code (see expand.py)."""
from . import expand  # noqa: F401  registers the pass
