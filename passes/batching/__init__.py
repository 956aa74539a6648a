"""`jaxc-batch`: vmap requests expanded into batched code (see batch.py; the interpreter is interpreter.py)."""
from . import batch  # noqa: F401  registers the pass
