"""`jaxc-elide-result-copies`: compute a result in its out-parameter when
it was computed in a reshaped temporary and copied out.

`buffer-results-to-out-params{hoist-static-allocs}` writes a result into its
out-parameter only when the function returned a `memref.alloc` as it is. A
packed contraction computes C as panels (m/MR, MR, n/NR, NR) and returns
their `collapse_shape`, so the pass allocates the panels and copies them
into the out-parameter afterwards: one more pass over the whole result
(512x512: 1 MB). This pass, run right after it, rewrites

    %alloc = memref.alloc() : memref<128x4x32x16xf32>
    ... (the kernel writes %alloc)
    %c = memref.collapse_shape %alloc [[0, 1], [2, 3]] : ... into memref<512x512xf32>
    memref.copy %c, %out : memref<512x512xf32> to memref<512x512xf32>

into

    %alloc = memref.expand_shape %out [[0, 1], [2, 3]] output_shape [128, 4, 32, 16] : ...
    ... (the kernel writes %out through it)

when %out is a function argument used by nothing else, %alloc has static
sizes and identity layout, and nothing after the copy touches %alloc. A
`memref.expand_shape` view is rewritten the same way, with `collapse_shape`,
and a copy of the temporary itself (a result that a call wrote: the pass
updates return ops before call sites, so it copies those) becomes the
out-parameter without a view:

    %alloc = memref.alloc() : memref<256x256xf32>
    call @jaxc_kernel_3(%x, %g, %alloc) : (...) -> ()
    memref.copy %alloc, %out
  ->
    call @jaxc_kernel_3(%x, %g, %out) : (...) -> ()
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import first_op, ops_named
from .registry import register_pass

INVERSE = {"memref.collapse_shape": "memref.expand_shape", "memref.expand_shape": "memref.collapse_shape"}


@register_pass("jaxc-elide-result-copies",
               "compute a result copied out of a reshaped temporary in its out-parameter")
def elide_result_copies(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for function in ops_named(op, ["func.func"]):
            if not function.regions[0].blocks:
                continue
            entry = function.regions[0].blocks[0]
            for copy in [inner for inner in entry.operations if inner.name == "memref.copy"]:
                _elide(copy.operation, entry)


def _elide(copy: ir.Operation, entry: ir.Block) -> None:
    source, target = copy.operands[0], copy.operands[1]
    view = source.owner if isinstance(source, ir.OpResult) else None
    if view is not None and view.name == "memref.alloc":
        view, alloc = None, view  # the copy reads the temporary itself
    elif view is None or view.name not in INVERSE:
        return
    else:
        alloc = view.operands[0].owner if isinstance(view.operands[0], ir.OpResult) else None
    if alloc is None or alloc.name != "memref.alloc" or alloc.operands:  # no dynamic sizes
        return
    alloc_type = ir.MemRefType(alloc.results[0].type)
    if alloc_type.layout.value != ir.AffineMap.get_identity(alloc_type.rank):
        return
    if view is None and alloc_type != target.type:
        return
    if not (isinstance(target, ir.BlockArgument) and target.owner == entry) or _uses(target) != 1:
        return
    if _touched_after(copy, entry, [alloc.results[0]] + ([view.results[0]] if view is not None else [])):
        return
    if view is None:
        replacement = target
    else:
        attributes = {"reassociation": view.attributes["reassociation"]}
        if INVERSE[view.name] == "memref.expand_shape":
            attributes["static_output_shape"] = ir.DenseI64ArrayAttr.get(list(alloc_type.shape))
        with ir.InsertionPoint(alloc), alloc.location:
            replacement = ir.Operation.create(INVERSE[view.name], results=[alloc_type], operands=[target],
                                              attributes=attributes).results[0]
    copy.erase()
    if view is not None and _uses(view.results[0]) == 0:
        view.erase()
    alloc.results[0].replace_all_uses_with(replacement)
    alloc.erase()


def _uses(value: ir.Value) -> int:
    return sum(1 for _ in value.uses)


def _touched_after(copy: ir.Operation, block: ir.Block, values: list[ir.Value]) -> bool:
    """Whether an op after `copy` in `block` (or nested in one) uses `values`."""
    def uses_values(nested: ir.Operation) -> bool:
        return any(operand == value for operand in nested.operands for value in values)

    after = False
    for inner in block.operations:
        if after and first_op(inner.operation, uses_values) is not None:
            return True
        after = after or inner.operation == copy
    return False
