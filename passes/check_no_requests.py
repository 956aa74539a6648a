"""`jaxc-check-no-requests`: fail if a transformation request op remains.

The `transformed` stage expands every request (`jaxc.jvp`, `jaxc.vjp`,
`jaxc.vmap`, `jaxc.custom_jvp_call`, `jaxc.custom_vjp_call`, `jaxc.remat`). Until the
expansion passes exist, this pass stands in for them: IR without requests
passes through unchanged, and each request that is left draws an error at its
location that names the pass that will expand it::

    func.func @g(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0:2 = jaxc.vjp @f(%x) cotangents(%ct) : ...
      // error: 'jaxc.vjp' request cannot be expanded yet: the jaxc-autodiff pass does not exist
      ...
    }

Once `jaxc-autodiff` and `jaxc-batch` exist, the stage runs them and keeps
this pass after them as a post-condition.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass

# request op -> the pass that expands it
EXPANDED_BY = {
    "jaxc.jvp": "jaxc-autodiff",
    "jaxc.vjp": "jaxc-autodiff",
    "jaxc.custom_jvp_call": "jaxc-autodiff",
    "jaxc.custom_vjp_call": "jaxc-autodiff",
    "jaxc.remat": "jaxc-autodiff",
    "jaxc.vmap": "jaxc-batch",
}


@register_pass("jaxc-check-no-requests",
               "fail if a transformation request (jvp, vjp, vmap, custom_*_call, remat) remains")
def check_no_requests(op: ir.Operation, pass_: ExternalPass) -> None:
    """Emit one error per request op under `op`; fail if there was any."""
    found = ops_named(op, EXPANDED_BY)
    for request in found:
        expander = EXPANDED_BY[request.name]
        exists = _is_registered(expander)
        why = (f"the {expander} pass did not expand it" if exists
               else f"the {expander} pass does not exist yet")
        request.location.emit_error(f"'{request.name}' request cannot be expanded yet: {why}")
    if found:
        pass_.signal_pass_failure()


def _is_registered(argument: str) -> bool:
    from .registry import lookup

    return lookup(argument) is not None
