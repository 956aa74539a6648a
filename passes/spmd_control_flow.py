"""`jaxc-spmd-control-flow`: in a per-device program of pmap or shard_map
(a module with `jaxc.spmd_axes`), a `jaxc.cond` or `jaxc.while` whose
regions run a collective that waits for the other lanes is rewritten so
that every lane reaches the same collectives in the same order, with the
values vmap's rules give (the reference the per-device programs are tested
against):

    cond    every branch runs; a select per result keeps this lane's
            branch's values (a collective in a branch is over every lane's
            values of that branch)
    while   the loop runs while any lane's predicate holds (a pmax of the
            predicate over every mesh axis); a lane whose own predicate is
            false keeps its carry

On a predicate that differs between the lanes, the `scf.if` or `scf.while`
these would otherwise become leaves some lanes waiting at a collective the
others never reach: the program hangs (JAX's XLA aborts after 40 s).
Control flow without such collectives, and every other module, is left as
it is. The regions are outlined into private functions called in place.

    module attributes {jaxc.spmd_axes = [["i", 4]]} {
      %r = jaxc.cond %p (%x) {A: ... jaxc.psum ...} {B}
  ->
      %a = func.call @branch(%x) ; %b = func.call @branch_0(%x)
      %r = jaxc.select %p, %b, %a

      %r = jaxc.while (%c) {C} {D: ... jaxc.psum ...}
  ->
      %r = jaxc.while (%c) {^bb0(%a): %p = func.call @while_cond(%a)
                                      %any = jaxc.pmax %p, axes = ["i"]
                                      jaxc.yield %any}
                           {^bb0(%a): %p = func.call @while_cond(%a)
                                      %n = func.call @while_body(%a)
                                      jaxc.yield (jaxc.select %p, %n, %a)}
"""
from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import func
from mlir.passmanager import ExternalPass

from .ir import ops_named, outline_region, outline_regions
from .lowering.collectives import RULES as COLLECTIVES, spmd_axes
from .registry import register_pass

# Collectives whose lanes wait for each other (axis_index does not).
BARRIERS = frozenset(COLLECTIVES) - {"jaxc.axis_index"}


@register_pass("jaxc-spmd-control-flow",
               "cond/while holding collectives in a per-device program: every lane runs them alike")
def spmd_control_flow(op: ir.Operation, pass_: ExternalPass) -> None:
    names = [name for name, _ in spmd_axes(op)]
    if not names:
        return
    callees = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in ops_named(op, ("func.func",))}
    with op.context:
        for flow in ops_named(op, tuple(RULES)):
            if _meets_other_lanes(flow, callees):
                RULES[flow.name](flow, names)


def _meets_other_lanes(op: ir.Operation, callees: dict[str, ir.Operation]) -> bool:
    """Whether a region of `op` runs a barrier collective, in it or in a
    function it calls."""
    pending = [o for region in op.regions for block in region for o in block]
    seen: set[str] = set()
    while pending:
        inner = pending.pop().operation
        if inner.name in BARRIERS:
            return True
        if inner.name == "func.call":
            callee = ir.FlatSymbolRefAttr(inner.attributes["callee"]).value
            if callee in callees and callee not in seen:
                seen.add(callee)
                pending.extend(o for region in callees[callee].regions for block in region for o in block)
        pending.extend(o for region in inner.regions for block in region for o in block)
    return False


def _call(name: str, operands: list[ir.Value], types: list[ir.Type]) -> list[ir.Value]:
    return list(func.CallOp(types, name, operands).results)


def _every_branch(op: ir.Operation, axes: list[str]) -> None:
    """Every branch called, then this lane's branch's results selected
    (a bool picks branch 1 where true; an index is clamped, as lax.switch)."""
    import jaxc.dialect as jd
    types = [r.type for r in op.results]
    index, operands = op.operands[0], list(op.operands[1:])
    names = outline_regions(op, "branch", take=True)
    with op.location, ir.InsertionPoint(op):
        outs = [_call(name, operands, types) for name in names]
        results = outs[0]
        for k in range(1, len(names)):
            results = [jd.SelectOp(_is_branch(index, k, len(names)), mine, rest).result
                       for mine, rest in zip(outs[k], results)]
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.erase()


def _is_branch(index: ir.Value, k: int, count: int) -> ir.Value:
    """tensor<i1>: whether `index` (a bool, or an int clamped into range)
    picks branch k > 0 of `count`."""
    import jaxc.dialect as jd
    element = ir.RankedTensorType(index.type).element_type
    if isinstance(element, ir.IntegerType) and element.width == 1:
        return index
    scalar = ir.RankedTensorType.get([], element)
    bound = jd.ConstantOp(ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(element, k))).result
    direction = jd.ComparisonDirection.GE if k == count - 1 else jd.ComparisonDirection.EQ
    return jd.CompareOp(direction, index, bound).result


def _any_lane(op: ir.Operation, axes: list[str]) -> None:
    """The loop runs while any lane's predicate holds; a lane whose own is
    false keeps its carry."""
    import jaxc.dialect as jd
    types = [r.type for r in op.results]
    cond_fn, body_fn = outline_region(op, 0, "while_cond", take=True), outline_region(op, 1, "while_body", take=True)
    axes_attr = ir.ArrayAttr.get([ir.StringAttr.get(n) for n in axes])
    with op.location, ir.InsertionPoint(op):
        loop = jd.WhileOp(types, list(op.operands))
        before = loop.regions[0].blocks.append(*types)
        with ir.InsertionPoint(before):
            (mine,) = _call(cond_fn, list(before.arguments), [_predicate_type()])
            jd.YieldOp([jd.PmaxOp(mine, axes_attr).result])
        body = loop.regions[1].blocks.append(*types)
        with ir.InsertionPoint(body):
            (mine,) = _call(cond_fn, list(body.arguments), [_predicate_type()])
            new = _call(body_fn, list(body.arguments), types)
            jd.YieldOp([jd.SelectOp(mine, n, a).result for n, a in zip(new, body.arguments)])
    for old, result in zip(op.results, loop.results):
        old.replace_all_uses_with(result)
    op.erase()


def _predicate_type() -> ir.Type:
    return ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))


RULES: dict[str, Callable[[ir.Operation, list[str]], None]] = {
    "jaxc.cond": _every_branch,
    "jaxc.while": _any_lane,
}
