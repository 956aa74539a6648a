"""`jaxc-to-linalg`: lower jaxc ops to linalg, tensor, arith and math on tensors.

An interpreter over every function body with one rule per op name
(`passes/lowering/*.py`, merged into `lowering.RULES`). Unsigned element
types become signless (`tensor<4xui32>` -> `tensor<4xi32>`) in function
signatures, calls and every lowered value; each rule gets, beside its op,
the element types the op's operands had before any rule ran (`Rule`). An op without a rule is an error at its
location naming the op.

Before::

    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = jaxc.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }

After::

    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
             ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
           ^bb0(%in: f32, %out: f32):
             %1 = math.exp %in : f32
             linalg.yield %1 : f32
           } -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func
from mlir.passmanager import ExternalPass

from .ir import preorder_ops
from .lowering import RULES
from .lowering.common import LoweringError, signless
from .registry import register_pass

_REQUEST = "a transformation request: expand it first (jaxc-autodiff / jaxc-batch)"

# Ops that have no lowering by design, and why (anything else missing is a bug).
NOT_LOWERED = {
    **{f"jaxc.{name}": _REQUEST for name in
       ("jvp", "vjp", "vmap", "custom_jvp_call", "custom_vjp_call", "remat")},
}


@register_pass("jaxc-to-linalg", "lower jaxc ops to linalg/tensor/arith/math on signless tensors")
def jaxc_to_linalg(op: ir.Operation, pass_: ExternalPass) -> None:
    """Lower every jaxc op under `op` (a module or a function)."""
    with op.context, op.location:
        _lower(op, pass_)


def _lower(op: ir.Operation, pass_: ExternalPass) -> None:
    jaxc_ops: list[ir.OpView] = []
    functions: list[ir.OpView] = []
    calls: list[ir.OpView] = []
    for inner in preorder_ops(op, stop_at=lambda inner: False):
        name = inner.name
        if name == "jaxc.yield":
            pass  # rewritten by the rule of its parent (cond, while, scan)
        elif name.startswith("jaxc."):
            jaxc_ops.append(inner.opview)
        elif name == "func.func":
            functions.append(inner.opview)
        elif name == "func.call":
            calls.append(inner.opview)
    missing = [o for o in jaxc_ops if o.name not in RULES]
    if missing:
        for o in missing:
            reason = NOT_LOWERED.get(o.name, "no lowering yet; it cannot run on the CPU")
            o.location.emit_error(f"jaxc-to-linalg: '{o.name}': {reason}")
        pass_.signal_pass_failure()
        return
    # Read before any rule runs: lowering a producer makes its uses signless.
    operand_elements = [[_element(v.type) for v in o.operands] for o in jaxc_ops]
    for fn in functions:
        _make_signature_signless(fn)
    for call in calls:  # before the rules, which read their operands' types (as the arguments')
        _make_call_signless(call)
    # Ops nested in a region that a rule left in place (e.g. the combiner of a
    # scatter with no updates) are destroyed with their parent: skip them by
    # position, never touching the destroyed op.
    position = {o.operation: i for i, o in enumerate(jaxc_ops)}
    dropped: set[int] = set()
    for i, (jaxc_op, elements) in enumerate(zip(jaxc_ops, operand_elements)):
        if i in dropped:
            continue
        try:
            with ir.InsertionPoint(jaxc_op), jaxc_op.location:
                replacements = RULES[jaxc_op.name](jaxc_op, elements)
        except LoweringError as error:
            error.location.emit_error(str(error))
            pass_.signal_pass_failure()
            return
        for old, new in zip(jaxc_op.results, replacements):
            old.replace_all_uses_with(new)
        if jaxc_op.regions:
            dropped.update(position[o] for o in preorder_ops(jaxc_op.operation, stop_at=lambda inner: False)
                           if o in position)
        jaxc_op.operation.erase()


def _element(t: ir.Type) -> ir.Type:
    """A tensor's element type; any other type as it is."""
    return t.element_type if isinstance(t, ir.RankedTensorType) else t


def _make_signature_signless(fn: ir.OpView) -> None:
    """Signless argument and result types in the function type and entry block."""
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    inputs = [signless(t) for t in fn_type.inputs]
    results = [signless(t) for t in fn_type.results]
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    if len(fn.regions[0].blocks):
        for arg, t in zip(fn.regions[0].blocks[0].arguments, inputs):
            arg.set_type(t)
    _mark_arguments_read_only(fn, len(inputs))


def _mark_arguments_read_only(fn: ir.OpView, count: int) -> None:
    """Arguments are immutable arrays: bufferization must not write into their
    buffers (a dynamic_update_slice of an argument copies it first)."""
    old = list(ir.ArrayAttr(fn.attributes["arg_attrs"])) if "arg_attrs" in fn.attributes \
        else [ir.DictAttr.get({})] * count
    new = []
    for attrs in old:
        entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
        entries["bufferization.writable"] = ir.BoolAttr.get(False)
        new.append(ir.DictAttr.get(entries))
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(new)


def _make_call_signless(call: ir.OpView) -> None:
    """Recreate a func.call whose result types mention unsigned integers."""
    types = [r.type for r in call.results]
    new_types = [signless(t) for t in types]
    if new_types == types:
        return
    with ir.InsertionPoint(call), call.location:
        new_call = func.CallOp(new_types, call.attributes["callee"].value, list(call.operands))
    for old, new in zip(call.results, new_call.results):
        old.replace_all_uses_with(new)
    call.operation.erase()
