"""Transform-dialect schedules, one module per kernel class.

Each module has ``schedule(kernel, target) -> Plan | None``: a
``transform.named_sequence`` that tiles and parallelizes one linalg op
(matched by its ``jaxc.kernel`` attribute) and the patterns to run once its
static tiles are vectorized, or None when the op is left to the scalar
loops. `script.Script` writes the transform ops.
"""
