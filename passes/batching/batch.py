"""`jaxc-batch`: replace every `jaxc.vmap` request by the body of a batched
function, innermost first, until none is left.

    func.func private @dot(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
      %0 = jaxc.dot_general %x, %w, batch = [] x [], contract = [0] x [0] : ...
      return %0 : tensor<f32>
    }
    %y = jaxc.vmap @dot(%m, %w) in_axes = [0, -1] out_axes = [0] axis_size = 4
           : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
  ->
    %y = jaxc.dot_general %m, %w, batch = [] x [], contract = [1] x [0] : ... -> tensor<4xf32>

A request is ready when its callee reaches no vmap request (through calls,
requests and custom rules). Expanding it derives `@f_vmap` once per (callee,
in_axes, out_axes, axis_size, axis_name) and inlines it at the request.
After each round the derived functions and the private functions nothing
names any more are erased (a request left in one would be expanded again
in every later round, and must not reach jaxc-autodiff).
Rules may leave new requests: control flow batches its regions through vmap
requests on outlined functions, and a jvp/vjp request (vmap of grad) becomes
a request on a batched callee; later rounds expand the vmaps, and
`jaxc-autodiff` (after this pass in the `transformed` stage) the rest.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from ..ir import RuleError, erase_unused_private_functions, functions, inline_call, ops_named, reaching, referenced
from ..registry import register_pass

REQUEST = "jaxc.vmap"


@register_pass("jaxc-batch", "expand jaxc.vmap requests into batched code")
def batch(op: ir.Operation, pass_: ExternalPass, *, max_rounds: int = 100_000) -> None:
    """`max_rounds`: a safety net against rules that keep making requests (a
    round per level of nested control flow: vmap of 300 nested conds takes 300)."""
    with op.context, op.location:
        try:
            for _ in range(max_rounds):
                if not _expand_ready_requests(op):
                    erase_unused_private_functions(op)
                    return
            op.location.emit_error(f"jaxc-batch: vmap requests remain after {max_rounds} rounds")
            pass_.signal_pass_failure()
        except RuleError as error:
            error.op.location.emit_error(str(error))
            pass_.signal_pass_failure()


def _derive():
    """The deriving function (loads the rule tables)."""
    from . import callbacks, collectives, control_flow, elementwise, linalg, random, reductions, shape  # noqa: F401
    from .interpreter import derive_vmap
    return derive_vmap


def _key(request: ir.Operation) -> tuple:
    attrs = request.attributes
    return (referenced(request)[0], str(attrs["in_axes"]), str(attrs["out_axes"]), str(attrs["axis_size"]),
            str(attrs["axis_name"]) if "axis_name" in attrs else None,
            tuple(str(v.type) for v in request.operands))


def _expand_ready_requests(module: ir.Operation) -> bool:
    """Expand every vmap whose callee reaches no vmap; False when there was
    none. One that can never be ready (a recursive callee) is an error."""
    requests = ops_named(module, (REQUEST,))
    if not requests:
        return False
    derive = _derive()
    funcs = functions(module)
    reaches = reaching(funcs, (REQUEST,))
    ready = [r for r in requests if not reaches.get(referenced(r)[0], False)]
    if not ready:
        raise RuleError(requests[0], "jaxc-batch: 'jaxc.vmap' cannot be expanded: its callee is "
                        "recursive or maps itself")
    derived: dict[tuple, str] = {}
    for request in ready:
        callee = referenced(request)[0]
        if callee not in funcs:
            raise RuleError(request, f"jaxc-batch: no function named @{callee}")
        key = _key(request)
        if key not in derived:
            derived[key] = derive(request, funcs[callee])
            funcs = functions(module)
        inline_call(request, funcs[derived[key]])
    # Each derived function is inlined everywhere it was needed; left in the
    # module, the requests its rules made would be expanded again in it, every
    # round: vmap of N nested conds expanded ~N^2/2 requests (issue #20).
    for name in derived.values():
        funcs[name].erase()
    erase_unused_private_functions(module)
    return True
