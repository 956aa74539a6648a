"""`jaxc-widen-i1-memrefs`: store i1 memref elements as i8.

The pinned `finalize-memref-to-llvm` asserts (aborting the process) on loads
and stores of i1. jaxc's own boolean tensors are already stored as i8 (see
docs/semantics.md), but upstream `buffer-deallocation-pipeline` keeps
ownership flags in `memref<?xi1>` buffers. This pass retypes every memref of
i1 to i8, widens stored values with `arith.extui` and narrows loaded values
with `arith.trunci`, so the flags survive the trip to LLVM.

Before::

    %flags = memref.alloca() : memref<2xi1>
    memref.store %owned, %flags[%c0] : memref<2xi1>
    %f = memref.load %flags[%c0] : memref<2xi1>

After::

    %flags = memref.alloca() : memref<2xi8>
    %w = arith.extui %owned : i1 to i8
    memref.store %w, %flags[%c0] : memref<2xi8>
    %l = memref.load %flags[%c0] : memref<2xi8>
    %f = arith.trunci %l : i8 to i1
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref
from mlir.passmanager import ExternalPass

from .ir import preorder_ops
from .registry import register_pass


@register_pass("jaxc-widen-i1-memrefs", "store i1 memref elements as i8 (LLVM lowering asserts on i1)")
def widen_i1_memrefs(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context, op.location:
        _widen(op)


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _is_i1_memref(t: ir.Type) -> bool:
    return isinstance(t, ir.MemRefType) and isinstance(t.element_type, ir.IntegerType) \
        and ir.IntegerType(t.element_type).width == 1


def _widened(t: ir.Type) -> ir.Type:
    """memref<...xi1> with i8 elements (same shape, layout and memory space)."""
    if not _is_i1_memref(t):
        return t
    m = ir.MemRefType(t)
    return ir.MemRefType.get(m.shape, ir.IntegerType.get_signless(8), m.layout, m.memory_space)


def _widen(root: ir.Operation) -> None:
    loads: list[ir.Operation] = []
    stores: list[ir.Operation] = []

    for op in preorder_ops(root, stop_at=lambda op: False):  # an op before the ones nested in it
        if op.name == "func.func":
            fn_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                [_widened(t) for t in fn_type.inputs], [_widened(t) for t in fn_type.results]))
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if _is_i1_memref(arg.type):
                        arg.set_type(_widened(arg.type))
        # The memref operand may already be retyped: look at the element value.
        if op.name == "memref.load" and _is_i1(op.results[0].type):
            loads.append(op)
        elif op.name == "memref.store" and _is_i1(op.operands[0].type):
            stores.append(op)
        for result in op.results:
            if _is_i1_memref(result.type):
                result.set_type(_widened(result.type))
    i1, i8 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(8)
    for load in loads:  # the memref operand is i8 now
        with ir.InsertionPoint(load), load.location:
            wide = memref.LoadOp(load.operands[0], list(load.operands[1:])).result
            narrow = arith.trunci(i1, wide)
        load.results[0].replace_all_uses_with(narrow)
        load.erase()
    for store in stores:
        with ir.InsertionPoint(store), store.location:
            wide = arith.extui(i8, store.operands[0])
            memref.StoreOp(wide, store.operands[1], list(store.operands[2:]))
        store.erase()
