"""The IR toolkit every pass shares: finding ops (`all_ops`, `ops_named`,
`ops_where`, `first_op`, `preorder_ops` instead of hand-written walk
callbacks), symbols and functions, cloning an op onto new operands,
outlining a region into a private function, inlining a call, and, for the
rule interpreters of autodiff and batching, the error a rule raises and
`emit_op`::

    for loop in ops_named(module, ("scf.for",)):       # every scf.for, nested ones too
        ...
    bad = first_op(module, lambda op: op.name.startswith("jaxc."))   # None when there is none
"""
from __future__ import annotations

import importlib
from typing import Callable, Collection, Sequence

from mlir import ir
from mlir.dialects import func

# Function attribute of a jvp/vjp request's callee: its last N arguments are
# values the traced function closed over, constants for the request (JAX
# differentiates only the arguments it is given). Set by jaxc.grad and friends,
# kept by batching, read by autodiff.
CAPTURED_ARGS = "jaxc.captured_args"
# Function attribute of a custom_jvp rule or custom_vjp bwd that raised when
# traced under jit (jaxc._autodiff._failed_rule): [error id, message]. Its body is a stand-in
# (zeros); jaxc-autodiff raises the error if the call is differentiated (JAX
# traces a rule only then). Kept by batching.
RULE_ERROR = "jaxc.rule_error"


class RuleError(Exception):
    """A rule cannot differentiate `op`; the pass reports `message` at the
    op's location (the user's line, for traced code)."""

    def __init__(self, op: ir.Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


def module_of(op: ir.Operation) -> ir.Operation:
    while op.name != "builtin.module":
        op = op.parent
    return op


def apply_transform_script(payload: ir.Operation | ir.OpView, text: str) -> None:
    """Parse `text`, a module holding a ``transform.named_sequence``, and
    apply that sequence to `payload` with the transform interpreter (which
    raises `ir.MLIRError` when it refuses)::

        module attributes {transform.with_named_sequence} {
          transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
            %g = transform.structured.match ops{["linalg.generic"]} in %root ...

    The interpreter comes from its binding module, not `mlir.dialects.transform`
    (13 ms of a process's first compile to import its op classes)."""
    script = ir.Module.parse(text)
    entry = next(op for op in script.body.operations if op.operation.name == "transform.named_sequence")
    interpreter = importlib.import_module("mlir._mlir_libs._mlirTransformInterpreter")
    interpreter.apply_named_sequence(payload.operation, entry.operation, script.operation)


def all_ops(op: ir.Operation) -> list[ir.Operation]:
    """Every op under `op`, itself included, in MLIR's walk order (an op
    after the ops nested in it). Collect first, then change the IR."""
    found = []

    def visit(child: ir.Operation) -> ir.WalkResult:
        found.append(child)
        return ir.WalkResult.ADVANCE
    op.walk(visit)
    return found


def ops_where(op: ir.Operation, predicate: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """Every op under `op` (itself included) for which `predicate` holds."""
    found = []

    def visit(child: ir.Operation) -> ir.WalkResult:
        if predicate(child):
            found.append(child)
        return ir.WalkResult.ADVANCE
    op.walk(visit)
    return found


def ops_named(op: ir.Operation, names: Collection[str]) -> list[ir.Operation]:
    """Every op under `op` (itself included) whose name is in `names`."""
    return ops_where(op, lambda child: child.name in names)


def first_op(op: ir.Operation, predicate: Callable[[ir.Operation], bool]) -> ir.Operation | None:
    """The first op under `op` (walk order) for which `predicate` holds, or
    None; the walk stops there."""
    found = []

    def visit(child: ir.Operation) -> ir.WalkResult:
        if predicate(child):
            found.append(child)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    op.walk(visit)
    return found[0] if found else None


def preorder_ops(op: ir.Operation, stop_at: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """The ops under `op` (itself included), each before the ops nested in
    it, not entering an op for which `stop_at` holds (that op is listed, its
    regions are not)."""
    found = []

    def visit(child: ir.Operation) -> ir.WalkResult:
        found.append(child)
        return ir.WalkResult.SKIP if stop_at(child) else ir.WalkResult.ADVANCE
    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def symbol_name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def functions(module: ir.Operation) -> dict[str, ir.Operation]:
    return {symbol_name(o.operation): o.operation for o in module.regions[0].blocks[0].operations
            if o.operation.name == "func.func"}


def function_named(module: ir.Operation, name: str) -> ir.Operation | None:
    """The func.func @name at the top level of `module`, or None."""
    for o in module.regions[0].blocks[0].operations:
        if o.operation.name == "func.func" and symbol_name(o.operation) == name:
            return o.operation
    return None


def declare_function(op: ir.Operation, name: str, inputs: Sequence[ir.Type],
                     results: Sequence[ir.Type] = ()) -> bool:
    """`func.func private @name(inputs) -> results` in `op`'s module, once
    (a runtime or library function that calls will name). True when @name
    has that type (declared here or before); False when the module already
    has an @name of another type, for the caller to report.

        func.func private @jaxc_qr_f32(index, index, index, index, memref<*xf32>, memref<*xf32>, memref<*xf32>)"""
    module = module_of(op)
    wanted = ir.FunctionType.get(list(inputs), list(results))
    existing = function_named(module, name)
    if existing is not None:
        return ir.TypeAttr(existing.attributes["function_type"]).value == wanted
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), ir.Location.unknown():
        func.FuncOp(name, wanted, visibility="private")
    return True


_CALLEE_ATTRIBUTES = ("callee", "jvp", "fwd", "bwd")
CALLERS = ("func.call", "jaxc.jvp", "jaxc.vjp", "jaxc.vmap", "jaxc.custom_jvp_call", "jaxc.custom_vjp_call",
           "jaxc.remat")


def referenced(op: ir.Operation) -> list[str]:
    """The functions a call, request or custom call names (callee first)."""
    return [ir.FlatSymbolRefAttr(op.attributes[a]).value for a in _CALLEE_ATTRIBUTES
            if a in op.attributes]


def reaching(funcs: dict[str, ir.Operation], names: Sequence[str]) -> dict[str, bool]:
    """function name -> whether its body holds an op in `names`, directly or
    through the functions it calls or names in requests and custom calls."""
    direct: dict[str, bool] = {}
    calls: dict[str, list[str]] = {}
    for name, fn in funcs.items():
        ops = ops_named(fn, CALLERS + tuple(names))
        direct[name] = any(o.name in names for o in ops)
        calls[name] = [callee for o in ops for callee in referenced(o)]
    reaches = dict(direct)
    changed = True
    while changed:
        changed = False
        for name in funcs:
            if not reaches[name] and any(reaches.get(c, False) for c in calls[name]):
                reaches[name] = changed = True
    return reaches


def erase_unused_private_functions(module: ir.Operation) -> None:
    """Erase private functions nothing else names (callees of expanded
    requests, outlined regions), until none is left: a leftover request in
    one of them must not reach the next pass."""
    while True:
        funcs = functions(module)
        used = {name for fn_name, fn in funcs.items() for o in ops_named(fn, CALLERS)
                for name in referenced(o) if name != fn_name}
        unused = [fn for name, fn in funcs.items() if name not in used
                  and "sym_visibility" in fn.attributes
                  and ir.StringAttr(fn.attributes["sym_visibility"]).value == "private"]
        if not unused:
            return
        for fn in unused:
            fn.erase()


def symbol_names(op: ir.Operation) -> set[str]:
    """The names of the symbols in `op`'s body (a module, a gpu.module)."""
    return {symbol_name(o.operation) for o in op.regions[0].blocks[0].operations
            if "sym_name" in o.operation.attributes}


def unique_name(base: str, taken: Collection[str]) -> str:
    """`base`, or `base_1`, `base_2`, ...: the first not in `taken`."""
    name, n = base, 1
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def unique_symbol(module: ir.Operation, base: str) -> str:
    return unique_name(base, symbol_names(module))


def new_function(module: ir.Operation, base: str, arg_types: Sequence[ir.Type],
                 location: ir.Location) -> tuple[ir.Operation, ir.Block]:
    """An empty private `func.func` (result types are set by `finish_function`)."""
    name = unique_symbol(module, base)
    with location, ir.InsertionPoint(module.regions[0].blocks[0]):
        fn = func.FuncOp(name, ir.FunctionType.get(list(arg_types), []), visibility="private")
        return fn.operation, fn.add_entry_block()


def finish_function(fn: ir.Operation, block: ir.Block, results: Sequence[ir.Value],
                    location: ir.Location) -> None:
    with location, ir.InsertionPoint(block):
        func.ReturnOp(list(results))
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
        [a.type for a in block.arguments], [v.type for v in results]))


def clone_into(op: ir.Operation, block: ir.Block, operands: Sequence[ir.Value]) -> ir.Operation:
    """A copy of `op` (regions included) at the end of `block`, on `operands`."""
    copy = op.clone(ip=ir.InsertionPoint(block))
    for i, value in enumerate(operands):
        copy.operands[i] = value
    return copy


def outline_region(op: ir.Operation, index: int, base: str, take: bool = False) -> str:
    """Copy region `index` of `op` into a new private function (its block
    arguments become the parameters, its `jaxc.yield` the return); return
    the function's name. `take`: move the region instead of copying it
    (`op` is left without it, for a caller about to erase `op`)."""
    return outline_regions(op, base, [index], take)[0]


def outline_regions(op: ir.Operation, base: str, indices: Sequence[int] | None = None,
                    take: bool = False) -> list[str]:
    """`outline_region` of each region in `indices` (default: all), from one
    copy of `op` (a copy per region copied every region each time: a cond
    holding a nest of N conds, twice, then erased the copy of the nest the
    region left behind), or from `op` itself with `take`. Each region's block
    moves into its function whole, so outlining costs the same whatever the
    region holds.

        %r = jaxc.cond %i, %x {^bb0(%a): jaxc.yield %a} {^bb0(%a): ...}
      -> func.func private @branch(%a: tensor<f32>) -> tensor<f32> { return %a }"""
    module = module_of(op)
    indices = range(len(op.regions)) if indices is None else indices
    source = op if take else op.clone(ip=ir.InsertionPoint(op))
    names = []
    for index in indices:
        block = source.regions[index].blocks[0]
        with op.location, ir.InsertionPoint(module.regions[0].blocks[0]):
            fn = func.FuncOp(unique_symbol(module, base), ir.FunctionType.get([], []), visibility="private")
        block.append_to(fn.regions[0])
        terminator = block.operations[len(block.operations) - 1]
        yielded = list(terminator.operands)
        terminator.erase()
        finish_function(fn.operation, block, yielded, op.location)
        names.append(symbol_name(fn.operation))
    if not take:
        source.erase()
    return names


def _splice_ops(block: ir.Block, arg_values: Sequence[ir.Value],
                before: ir.Operation) -> tuple[list[ir.Value], list[ir.Operation]]:
    """Move `block`'s ops but its terminator before `before`, its arguments
    replaced by `arg_values`; return what the terminator yields, and the ops
    it moved."""
    for arg, value in zip(block.arguments, arg_values):
        arg.replace_all_uses_with(value)
    inner = list(block.operations)
    for child in inner[:-1]:
        child.move_before(before)
    return list(inner[-1].operands), inner[:-1]


def inline_call(call: ir.Operation, callee: ir.Operation) -> list[ir.Value]:
    """Replace `call` (any op whose operands are the callee's arguments and
    whose results are its results) by a copy of the callee's body; return
    the values that replace its results."""
    return _inline(call, callee)[0]


def inline_body(call: ir.Operation, callee: ir.Operation, first_result: int = 0) -> list[ir.Operation]:
    """`inline_call`, returning the ops it inserted (their regions hold the
    rest of the copy). The callee returns the call's results from
    `first_result` on (the ones before must be unused)."""
    return _inline(call, callee, first_result)[1]


def _inline(call: ir.Operation, callee: ir.Operation,
            first_result: int = 0) -> tuple[list[ir.Value], list[ir.Operation]]:
    copy = callee.clone(ip=ir.InsertionPoint(call))
    returned, moved = _splice_ops(copy.regions[0].blocks[0], list(call.operands), call)
    for result, value in zip(list(call.results)[first_result:], returned):
        result.replace_all_uses_with(value)
    copy.erase()
    call.erase()
    return returned, moved


def expand_into_program(op: ir.Operation, base: str, program: Callable[[list], Sequence]) -> None:
    """Replace `op` by the jaxc ops `program` emits on its operands (tracers:
    `program(xs)` returns the results' tracers), built in a private function
    named after `base`, then inlined; what the expansion passes do.

        %v, %i = jaxc.top_k %x, k = 2 : tensor<3x5xf32>
      ->  (program: lax ops on x)
        %0 = jaxc.bitcast_convert %x ... (the ops, inlined where the op was)
    """
    from jaxc.core import emitting
    fn, block = new_function(module_of(op), base, [v.type for v in op.operands], op.location)
    with emitting(block, op.location) as e:
        results = [r.value for r in program([e.wrap(a) for a in block.arguments])]
    finish_function(fn, block, results, op.location)
    inline_call(op, fn)
    fn.erase()


def emit_op(make: Callable[[], ir.OpView]) -> list:
    """Build an op with `make()` at the end of the block being emitted (see
    `jaxc.core.emitting`), at the current location; its results as tracers."""
    from jaxc import core
    scope = core.current_scope()
    with core.user_location(), ir.InsertionPoint(scope.block):
        op = make()
    return [scope.tracer(r) for r in op.results]


def append_block(region: ir.Region, types: Sequence[ir.Type]) -> ir.Block:
    """A new block with arguments of `types` at the end of `region`."""
    return region.blocks.append(*types)


def is_inexact(type_: ir.Type) -> bool:
    """Float or complex elements: a value that has a tangent and a cotangent."""
    element = ir.RankedTensorType(type_).element_type
    return isinstance(element, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type, ir.ComplexType))


def ints(op: ir.Operation, name: str) -> list[int]:
    """A DenseI64ArrayAttr attribute of `op` as a list."""
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def integer(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value
