"""`jaxc-outline-deep-regions`: the regions that hold control flow, of the
`jaxc.cond`, `jaxc.while` and `jaxc.scan` ops nested `max-depth` such ops
deep, move into private functions, so no function holds a deeper nest.

Upstream passes take time growing with the depth of a nest at every level
of it (the greedy rewriter puts a changed op's enclosing ops back on its
worklist; erasing an op drops the references of everything under it at
each level: docs/toolchain.md), so every stage after `transformed` took
time growing as N^2 in the depth of N nested conds (grad of 1280 nested
`lax.cond`: 74 s). XLA keeps each branch of a conditional as a computation
of its own. Cut into functions of bounded depth, the nest costs each pass
time in proportion to its size. The ops are isolated from above, so a
region's block becomes the function's body as it is; the region keeps a
block that calls it. Shallow programs (all of them but generated nests) are
left as they are, and LLVM's inliner puts the bodies back together after
the MLIR passes.

    (max-depth=1: the outer cond keeps its first branch, which holds no
    control flow, and calls its second)
    %r = jaxc.cond %i(%x) : ... {
    ^bb0(%a: tensor<f32>):
      jaxc.yield %a : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %s = jaxc.cond %j(%a) : ... { ...inner branches... }
      jaxc.yield %s : tensor<f32>
    }
  ->
    %r = jaxc.cond %i(%x) : ... {
    ^bb0(%a: tensor<f32>):
      jaxc.yield %a : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %0 = func.call @jaxc_region(%a) : (tensor<f32>) -> tensor<f32>
      jaxc.yield %0 : tensor<f32>
    }
    func.func private @jaxc_region(%a: tensor<f32>) -> tensor<f32> {
      %s = jaxc.cond %j(%a) : ... { ...inner branches... }
      return %s : tensor<f32>
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func
from mlir.passmanager import ExternalPass

from .ir import append_block, function_named, functions, module_of, outline_region
from .registry import register_pass

NESTING_OPS = frozenset({"jaxc.cond", "jaxc.while", "jaxc.scan"})  # isolated from above: regions move as they are
PREFIX = "jaxc_region"


@register_pass("jaxc-outline-deep-regions",
               "move the regions of control flow nested max-depth deep into functions (upstream passes "
               "take time growing with the nesting depth at every level)")
def outline_deep_regions(op: ir.Operation, pass_: ExternalPass, *, max_depth: int = 16) -> None:
    """Option `max-depth` (at least 1): how many nested control-flow ops a
    function may hold, one inside the other."""
    if max_depth < 1:
        op.location.emit_error("jaxc-outline-deep-regions: max-depth must be at least 1")
        pass_.signal_pass_failure()
        return
    with op.context, op.location:
        work = list(functions(op).values())
        while work:
            work.extend(_outline_below(work.pop().regions[0].blocks[0], 0, max_depth))


def _outline_below(block: ir.Block, depth: int, max_depth: int) -> list[ir.Operation]:
    """Outline the regions that hold a nesting op, of the nesting ops in
    `block` (which lies `depth` of them deep) that are `max_depth` deep;
    the functions made."""
    made = []
    for op in list(block.operations):
        if op.name not in NESTING_OPS:
            continue
        for index, region in enumerate(op.regions):
            if depth + 1 < max_depth:
                made.extend(_outline_below(region.blocks[0], depth + 1, max_depth))
            elif any(inner.name in NESTING_OPS for inner in region.blocks[0].operations):
                made.append(_outline(op, index))
    return made


def _outline(op: ir.Operation, index: int) -> ir.Operation:
    """Move region `index` of `op` into a new function; the region gets a
    block that calls it. Returns the function."""
    import jaxc.dialect as jd  # not at import: listing passes never needs the compiled dialect
    region = op.regions[index]
    arg_types = [a.type for a in region.blocks[0].arguments]
    name = outline_region(op, index, PREFIX, take=True)
    callee = function_named(module_of(op), name)
    assert callee is not None
    result_types = ir.FunctionType(ir.TypeAttr(callee.attributes["function_type"]).value).results
    block = append_block(region, arg_types)
    with op.location, ir.InsertionPoint(block):
        call = func.CallOp(list(result_types), ir.FlatSymbolRefAttr.get(name), list(block.arguments))
        jd.YieldOp(list(call.results))
    return callee
