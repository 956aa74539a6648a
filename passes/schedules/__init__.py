"""Transform-dialect schedules, one module per kernel class.

Each module has ``schedule(kernel, target) -> str | None``: the body of a
``transform.named_sequence`` that tiles, vectorizes and parallelizes one
linalg op (matched by its ``jaxc.kernel`` attribute), or None when the op is
left to the scalar loops. `script.Script` writes the transform ops.
"""
