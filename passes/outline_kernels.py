"""`jaxc-outline-kernels`: every kernel that occurs more than once in a
module becomes one private function, called wherever it occurred.

A deep model repeats the same few kernels (a layer's products and its
activation) once per layer. Scheduled and compiled in place, each copy costs
the whole pipeline again: `jaxc-schedule`, bufferization and LLVM grow with
the number of copies, not the number of distinct kernels (a 20-layer MLP
gradient: 60 products, 3 distinct). Runs in the `scheduled` stage, after
fusion and before `jaxc-schedule`, which then schedules each function once.

A kernel is a statically shaped `linalg.generic` of at least
`schedule.MIN_ELEMENTS` iterations that no fused row group takes, together
with the fill or empty tensor that initializes it when nothing else uses
that (so a product still zeroes its accumulator inside its own tiles).
Constants and static `tensor.empty` ops it reads are copied in; every other
value it reads is an argument. Two kernels are the same when their outlined
functions print the same.

    %p = linalg.generic {...} ins(%x, %w0 : tensor<64x256xf32>, tensor<256x256xf32>)
                              outs(%zero : tensor<64x256xf32>) {... mulf, addf ...}
    %q = linalg.generic {...} ins(%t, %w1 : ...) outs(%zero1 : ...) {... same body ...}
  ->
    %p = func.call @jaxc_kernel_0(%x, %w0) : (...) -> tensor<64x256xf32>
    %q = func.call @jaxc_kernel_0(%t, %w1) : (...) -> tensor<64x256xf32>
    func.func private @jaxc_kernel_0(%a: tensor<64x256xf32>, %b: tensor<256x256xf32>)
        -> tensor<64x256xf32> attributes {jaxc.outlined_kernel} {
      %zero = linalg.generic ... (the fill) ...
      %p = linalg.generic {...} ins(%a, %b ...) outs(%zero ...)
      return %p : tensor<64x256xf32>
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func
from mlir.passmanager import ExternalPass

from .ir import all_ops, ops_named, unique_symbol
from .registry import register_pass
from .schedule import MIN_ELEMENTS, kernels_of, row_groups
from .schedules.contraction import filled_with
from .schedules.kernel import Kernel, defining_op

OUTLINED_ATTR = "jaxc.outlined_kernel"  # on the functions this pass creates
COPIED_IN = ("arith.constant", "tensor.empty")  # copied into the function when they have no operands
PREFIX = "jaxc_kernel_"


@register_pass("jaxc-outline-kernels", "one private function per kernel that occurs more than once")
def outline_kernels(op: ir.Operation, pass_: ExternalPass, *, min_copies: int = 2) -> None:
    """Option `min-copies`: how many copies of a kernel make it a function."""
    with op.context, op.location:
        outline_repeated_kernels(op, max(min_copies, 1))


def outline_repeated_kernels(module: ir.Operation, min_copies: int = 2) -> int:
    """Outline the kernels of `module` that occur at least `min_copies` times;
    returns how many functions it made."""
    functions = [f for f in module.regions[0].blocks[0].operations
                 if f.operation.name == "func.func" and OUTLINED_ATTR not in f.attributes]
    candidates: list[tuple[list[ir.Operation], ir.Operation]] = []
    for function in functions:
        for kernel in _outlinable(function.operation):
            candidates.append(_outline(kernel, module))
    by_text: dict[str, list[int]] = {}
    for i, (_, callee) in enumerate(candidates):
        by_text.setdefault(_key(callee), []).append(i)
    made = 0
    for indices in by_text.values():
        callees = [candidates[i][1] for i in indices]
        if len(indices) < min_copies:
            for callee in callees:
                callee.erase()
            continue
        name = unique_symbol(module, f"{PREFIX}{made}")
        callees[0].attributes["sym_name"] = ir.StringAttr.get(name)
        for callee in callees[1:]:
            callee.erase()
        for i in indices:
            _call(candidates[i][0], name)
        made += 1
    return made


def _outlinable(function: ir.Operation) -> list[Kernel]:
    """The kernels of `function` that would be scheduled on their own."""
    kernels = kernels_of(function)
    grouped = {k.ident for group in row_groups(kernels) for k in group}
    return [k for k in kernels if k.size >= MIN_ELEMENTS and k.ident not in grouped and not _is_fill(k)]


def _is_fill(kernel: Kernel) -> bool:
    """A generalized fill: reads nothing, writes one value everywhere."""
    return kernel.n_inputs == 0 and kernel.n_outputs == 1 and filled_with(kernel.op.results[0]) is not None


def _initializer(kernel: Kernel) -> ir.Operation | None:
    """The fill (or empty tensor) that initializes the kernel's one output:
    a fill even when others share it (each user gets a copy), an empty
    tensor when the kernel is its only user."""
    if kernel.n_outputs != 1:
        return None
    init = kernel.op.operands[len(kernel.op.operands) - 1]
    producer = defining_op(init)
    if producer is None or producer.block != kernel.op.block:
        return None
    if filled_with(init) is not None:
        return producer
    if producer.name == "tensor.empty" and not list(producer.operands) and len(list(init.uses)) == 1:
        return producer
    return None


def _outline(kernel: Kernel, module: ir.Operation) -> tuple[list[ir.Operation], ir.Operation]:
    """A function computing the kernel (placed at the end of `module`) and
    the ops it replaces."""
    moved = [op for op in (_initializer(kernel), kernel.op) if op is not None]
    arguments, copied = _captures(moved)
    results = list(kernel.op.results)
    with ir.InsertionPoint(module.regions[0].blocks[0]), kernel.op.location:
        callee = func.FuncOp(PREFIX, ([a.type for a in arguments], [r.type for r in results]),
                             visibility="private")
        callee.attributes[OUTLINED_ATTR] = ir.UnitAttr.get()
        # LLVM's inliner would put the function back into every caller (at -O3
        # most are small: their loops are in OpenMP's outlined bodies) and compile
        # it again there: 3.1 s of LLVM for a 40-layer MLP gradient, 1.5 s without
        callee.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get("noinline")])
        block = callee.add_entry_block()
    mapping = dict(zip(arguments, block.arguments))
    with ir.InsertionPoint(block):
        for op in [*copied, *moved]:
            clone = op.clone()
            _remap(clone, mapping)
            for old, new in zip(op.results, clone.results):
                mapping[old] = new
        func.ReturnOp([mapping[r] for r in results])
    return moved, callee.operation


def _captures(moved: list[ir.Operation]) -> tuple[list[ir.Value], list[ir.Operation]]:
    """What the ops `moved` read from outside: the values that become the
    function's arguments (in order of first use) and the operand-less
    constants and empty tensors that are copied in instead."""
    inside = _defined_in(moved)
    arguments: list[ir.Value] = []
    copied: list[ir.Operation] = []
    for value in _used_in(moved):
        if value in inside or value in arguments:
            continue
        producer = defining_op(value)
        if producer is not None and producer.name in COPIED_IN and not list(producer.operands):
            if producer not in copied:
                copied.append(producer)
        else:
            arguments.append(value)
    return arguments, copied


def _call(moved: list[ir.Operation], name: str) -> None:
    """Replace the kernel (the last of `moved`) by a call of `name`. The
    arguments are found again here: kernels outlined before this one have
    replaced values it reads."""
    kernel = moved[-1]
    arguments, _ = _captures(moved)
    result_types = [r.type for r in kernel.results]
    with ir.InsertionPoint(kernel), kernel.location:
        call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(name), arguments)
    for old, new in zip(kernel.results, call.results):
        old.replace_all_uses_with(new)
    for op in reversed(moved):
        if not any(list(r.uses) for r in op.results):
            op.erase()  # a fill that other kernels share stays for them


def _defined_in(ops: list[ir.Operation]) -> set[ir.Value]:
    """Every value that `ops` or the ops nested in them define."""
    defined: set[ir.Value] = set()
    for inner in (nested for op in ops for nested in all_ops(op)):
        defined.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                defined.update(block.arguments)
    return defined


def _used_in(ops: list[ir.Operation]) -> list[ir.Value]:
    """Every operand of `ops` and then of the ops nested in them, once each."""
    used: dict[ir.Value, None] = {}
    for op in ops:
        for value in op.operands:
            used.setdefault(value, None)
    for inner in (nested for op in ops for nested in all_ops(op)):
        for value in inner.operands:
            used.setdefault(value, None)
    return list(used)


def _remap(op: ir.Operation, mapping: dict[ir.Value, ir.Value]) -> None:
    """Replace the operands of `op` and of the ops nested in it by `mapping`."""
    for inner in all_ops(op):
        for i, value in enumerate(inner.operands):
            if value in mapping:
                inner.operands[i] = mapping[value]


def _key(callee: ir.Operation) -> str:
    """What makes two outlined kernels the same: the function's text without locations."""
    return callee.get_asm(enable_debug_info=False, print_generic_op_form=True,
                        assume_verified=True, use_local_scope=True)


def outlined_functions(module: ir.Operation) -> list[ir.Operation]:
    """The functions this pass made in `module`."""
    return [f for f in ops_named(module, ["func.func"]) if OUTLINED_ATTR in f.attributes]
