"""`jaxc-check-lowered`: fail if a `jaxc` op survived the lowering to linalg.

The `linalg` stage runs `jaxc-to-linalg` and then this pass as its
post-condition, so a missing lowering rule is reported at the op's location
instead of surfacing later as a bufferization error::

    %0 = jaxc.add %x, %y : tensor<4xf32>
    // error: 'jaxc.add' was not lowered to linalg (is the jaxc-to-linalg pass registered?)

IR that holds no `jaxc` op passes through unchanged.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_where
from .registry import lookup, register_pass

LOWERING_PASS = "jaxc-to-linalg"


@register_pass("jaxc-check-lowered", "fail if any jaxc op remains (post-condition of jaxc-to-linalg)")
def check_lowered(op: ir.Operation, pass_: ExternalPass) -> None:
    """Emit one error per remaining `jaxc.*` op under `op`; fail if there was any."""
    found = ops_where(op, lambda child: child.name.startswith("jaxc."))
    if lookup(LOWERING_PASS) is None:
        why = f"the {LOWERING_PASS} pass is not registered yet"
    else:
        why = f"{LOWERING_PASS} has no rule for it"
    for child in found:
        child.location.emit_error(f"'{child.name}' was not lowered to linalg: {why}")
    if found:
        pass_.signal_pass_failure()
