"""`jaxc-autodiff`: replace every `jaxc.jvp` / `jaxc.vjp` request by the
body of a derived function, innermost first, until none is left; then
inline the remaining `custom_jvp_call` / `custom_vjp_call` (outside any
derivative they are plain calls).

    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.mul %x, %x : tensor<f32>
      return %0 : tensor<f32>
    }
    func.func @g(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
      %y, %dx = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      return %dx : tensor<f32>
    }
  -> (after jaxc-cleanup)
    func.func @g(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.mul %ct, %x : tensor<f32>
      %1 = jaxc.add %0, %0 : tensor<f32>
      return %1 : tensor<f32>
    }

A request is ready when its callee reaches no request (through calls,
requests and custom rules); expanding it derives `@f_jvp` / `@f_vjp` once
per callee (kept as private functions, removed by symbol DCE once unused)
and inlines it at the request. Derived functions may hold new requests
(a cond's adjoint differentiates each branch), which later rounds expand.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from ..registry import register_pass
from .ir_util import RuleError, functions, inline_call, ops_named, reaching, referenced

REQUESTS = ("jaxc.jvp", "jaxc.vjp")
CUSTOM_CALLS = ("jaxc.custom_jvp_call", "jaxc.custom_vjp_call")


@register_pass("jaxc-autodiff", "expand jaxc.jvp and jaxc.vjp requests into derivative code")
def autodiff(op: ir.Operation, pass_: ExternalPass, *, max_rounds: int = 100) -> None:
    with op.context, op.location:
        _run(op, pass_, max_rounds)


def _derivers() -> dict:
    """request op -> the function deriving its callee (loads the rule tables)."""
    from . import callbacks, control_flow, elementwise, reductions, structural, windowed  # noqa: F401  fill the tables
    from .jvp import derive_jvp
    from .vjp import derive_vjp
    return {"jaxc.jvp": derive_jvp, "jaxc.vjp": derive_vjp}


def _run(op: ir.Operation, pass_: ExternalPass, max_rounds: int) -> None:
    try:
        for _ in range(max_rounds):
            if not _expand_ready_requests(op):
                break
        else:
            op.location.emit_error(f"jaxc-autodiff: requests remain after {max_rounds} rounds")
            pass_.signal_pass_failure()
            return
        _inline_custom_calls(op)
    except RuleError as error:
        error.op.location.emit_error(str(error))
        pass_.signal_pass_failure()


def _expand_ready_requests(module: ir.Operation) -> bool:
    """Expand every request whose callee reaches no request; False when
    there was none at all. A request that can never be ready (its callee
    reaches itself) is an error at the request."""
    requests = ops_named(module, REQUESTS)
    if not requests:
        return False
    derive = _derivers()
    funcs = functions(module)
    reaches = reaching(funcs, REQUESTS)
    ready = [r for r in requests if not any(reaches.get(name, False) for name in referenced(r))]
    if not ready:
        raise RuleError(requests[0], f"jaxc-autodiff: '{requests[0].name}' cannot be expanded: its "
                        "callee is recursive or differentiates itself")
    derived: dict[tuple[str, str], str] = {}
    for request in ready:
        callee = referenced(request)[0]
        if callee not in funcs:
            raise RuleError(request, f"jaxc-autodiff: no function named @{callee}")
        key = (request.name, callee)
        if key not in derived:
            derived[key] = derive[request.name](funcs[callee])
            funcs = functions(module)
        inline_call(request, funcs[derived[key]])
    return True


def _inline_custom_calls(module: ir.Operation) -> None:
    """Inline custom calls (their callees may hold more) until none is left."""
    calls = ops_named(module, CUSTOM_CALLS)
    while calls:
        funcs = functions(module)
        for call in calls:
            inline_call(call, funcs[referenced(call)[0]])
        calls = ops_named(module, CUSTOM_CALLS)
