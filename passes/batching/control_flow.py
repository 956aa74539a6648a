"""Batching rules of control flow, calls, requests and custom rules.

Region bodies are outlined into private functions and the batched op holds
*vmap requests* on them, which later rounds of `jaxc-batch` expand (the pass
repeats until no vmap is left); the outputs of these ops are always batched.

    cond, unbatched index   the same cond; branch k is `jaxc.vmap @branch_k`
    cond, batched index     every branch runs (a vmap request each) and a
                            select per lane picks the result: lane i gets
                            branch index[i] (clamped, as lax.switch)
    while                   the carry is batched; the loop runs while any
                            lane's predicate holds, and a lane whose
                            predicate is false keeps its carry (a select)
    scan                    the carry is batched, batched xs are moved to
                            (length, batch, ...), the body is a vmap request;
                            stacked ys come back as (batch, length, ...)
    func.call               a vmap request on the callee; a custom_vmap
                            function's call (`jaxc.custom_vmap`): its rule
    jvp / vjp request       the same request on `@f_batched`, a function
                            holding `jaxc.vmap @f` (every input mapped);
                            jaxc-autodiff expands it after this pass
    custom_jvp_call         the callee and the rule both batched that way
    custom_vjp_call         the callee, fwd and bwd batched that way
    remat                   the callee batched that way (same policy)
    optimization_barrier    the barrier on the operands as they are

    %r = jaxc.cond %p (%x) ... (p batched)
  ->
    %a = jaxc.vmap @branch(%xs) in_axes = [0] out_axes = [0] axis_size = 8 ...
    %b = jaxc.vmap @branch_0(%xs) in_axes = [0] out_axes = [0] axis_size = 8 ...
    %r = jaxc.select %p8, %b, %a : tensor<8x3xi1>, tensor<8x3xf32>
"""
from __future__ import annotations

from typing import Any, Sequence

from mlir import ir

import jaxc.dialect as jd
from jaxc import core, lax

from ..ir import (
    CAPTURED_ARGS,
    RULE_ERROR,
    append_block,
    emit_op,
    finish_function,
    functions,
    module_of,
    new_function,
    outline_region,
    outline_regions,
    referenced,
)
from .interpreter import BATCH, Axis, batched_all, batched_type, broadcast_batch, moveaxis


def _scope():
    return core.current_scope()


def _value(x: Any) -> ir.Value:
    return _scope().value(x)


def _vmap_op(callee: str, operands: Sequence[ir.Value], batched: Sequence[bool], result_types: Sequence[ir.Type],
             axis: Axis) -> ir.Operation:
    """`jaxc.vmap @callee(operands)`: batched operands mapped at 0, every
    result batched at 0 (`result_types` are the unbatched types)."""
    name = None if axis.name is None else ir.StringAttr.get(axis.name)
    return jd.VmapOp([batched_type(t, axis.size) for t in result_types], callee, list(operands),
                     [0 if b else -1 for b in batched], [0] * len(result_types), axis.size,
                     axis_name=name).operation


def _function_results(name: str) -> list[ir.Type]:
    fn = functions(module_of(_scope().block.owner))[name]
    return list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).results)


def _mapped(xs: Sequence[Any], batched: Sequence[bool], callee: str, axis: Axis) -> list[Any]:
    """`jaxc.vmap @callee(xs)` in the block being emitted."""
    return emit_op(lambda: _vmap_op(callee, [_value(x) for x in xs], batched, _function_results(callee), axis))


def _yield(block: ir.Block, values: Sequence[ir.Value]) -> None:
    with core.user_location(), ir.InsertionPoint(block):
        jd.YieldOp(list(values))


def _batched_function(name: str, axis: Axis, mapped: Sequence[bool] | None = None) -> str:
    """`@<name>_batched`: the inputs in `mapped` (default: all) and every
    output gain a leading batch axis; its body is `jaxc.vmap @name`, which a
    later round expands."""
    module = module_of(_scope().block.owner)
    original = functions(module)[name]
    signature = ir.FunctionType(ir.TypeAttr(original.attributes["function_type"]).value)
    inputs, results = list(signature.inputs), list(signature.results)
    mapped = [True] * len(inputs) if mapped is None else list(mapped)
    location = core.user_location()
    arg_types = [batched_type(t, axis.size) if m else t for t, m in zip(inputs, mapped)]
    fn, block = new_function(module, f"{name}_batched", arg_types, location)
    with location, ir.InsertionPoint(block):
        request = _vmap_op(name, list(block.arguments), mapped, results, axis)
    finish_function(fn, block, list(request.results), location)
    # the arguments keep their places: a request's constants stay constants;
    # a failed custom_jvp rule stays marked
    for name_ in (CAPTURED_ARGS, RULE_ERROR):
        if name_ in original.attributes:
            fn.attributes[name_] = original.attributes[name_]
    return ir.StringAttr(fn.attributes["sym_name"]).value


def _result_types(op: ir.Operation, axis: Axis) -> list[ir.Type]:
    return [batched_type(r.type, axis.size) for r in op.results]


# --- cond -----------------------------------------------------------------

def _cond(op, xs, batched, axis: Axis):
    index, operands, flags = xs[0], xs[1:], batched[1:]
    branches = outline_regions(op, "branch")
    if batched[0]:
        return _cond_batched_index(index, operands, flags, branches, axis), [True] * len(op.results)
    types = [r.type for r in op.results]
    arg_types = [_value(x).type for x in operands]

    def make():
        cond = jd.CondOp([batched_type(t, axis.size) for t in types], _value(index),
                         [_value(x) for x in operands], len(branches))
        for region, name in zip(cond.regions, branches):
            block = append_block(region, arg_types)
            with ir.InsertionPoint(block):
                request = _vmap_op(name, list(block.arguments), flags, types, axis)
            _yield(block, list(request.results))
        return cond
    return emit_op(make), [True] * len(op.results)


def _cond_batched_index(index, operands, flags, branches, axis: Axis) -> list[Any]:
    """Every branch, then per lane the result of branch index[lane]."""
    outs = [_mapped(operands, flags, name, axis) for name in branches]
    if index.dtype == bool:
        choose = [index]  # branch 1 where true
    else:
        last = len(branches) - 1
        clamped = lax.clamp(lax.full((), 0, index.dtype), index, lax.full((), last, index.dtype))
        choose = [lax.eq(clamped, lax.full((), k, index.dtype)) for k in range(1, last + 1)]
    results = outs[0]
    for pred, branch_outs in zip(choose, outs[1:]):
        results = [lax.select(lax.broadcast_in_dim(pred, y.shape, (0,)), y, r)
                   for y, r in zip(branch_outs, results)]
    return results


# --- while ----------------------------------------------------------------

def _while(op, xs, batched, axis: Axis):
    cond_fn, body_fn = outline_region(op, 0, "while_cond"), outline_region(op, 1, "while_body")
    carry = batched_all(xs, batched, axis.size)
    types = [_value(x).type for x in carry]
    flags = [True] * len(carry)
    location = core.user_location()

    def make():
        loop = jd.WhileOp(types, [_value(x) for x in carry])
        before = append_block(loop.regions[0], types)
        with core.emitting(before, location) as e:
            pred = _mapped([e.wrap(a) for a in before.arguments], flags, cond_fn, axis)[0]
            any_lane = lax.reduce_or(pred, (0,)).value
        _yield(before, [any_lane])
        body = append_block(loop.regions[1], types)
        with core.emitting(body, location) as e:
            args = [e.wrap(a) for a in body.arguments]
            pred = _mapped(args, flags, cond_fn, axis)[0]
            new = _mapped(args, flags, body_fn, axis)
            kept = [lax.select(lax.broadcast_in_dim(pred, n.shape, (0,)), n, a).value
                    for n, a in zip(new, args)]
        _yield(body, kept)
        return loop
    return emit_op(make), flags


# --- scan -----------------------------------------------------------------

def _scan(op, xs, batched, axis: Axis):
    n_init = _first_segment(op)
    body_fn = outline_region(op, 0, "scan_body")
    init = batched_all(xs[:n_init], batched[:n_init], axis.size)
    seqs = [moveaxis(x, 0, 1) if b else x for x, b in zip(xs[n_init:], batched[n_init:])]
    seq_flags = list(batched[n_init:])
    flags = [True] * n_init + seq_flags
    body_types = ([_value(x).type for x in init]
                  + [_slice_type(_value(x).type) for x in seqs])
    unbatched_results = _function_results(body_fn)
    length = ir.IntegerAttr(op.attributes["length"]).value
    result_types = ([batched_type(t, axis.size) for t in unbatched_results[:n_init]]
                    + [_stacked_type(batched_type(t, axis.size), length) for t in unbatched_results[n_init:]])

    def make():
        scan = jd.ScanOp(result_types, [_value(x) for x in init], [_value(x) for x in seqs], length,
                         reverse=op.attributes["reverse"] if "reverse" in op.attributes else None)
        block = append_block(scan.regions[0], body_types)
        with ir.InsertionPoint(block):
            request = _vmap_op(body_fn, list(block.arguments), flags, unbatched_results, axis)
        _yield(block, list(request.results))
        return scan
    outs = emit_op(make)
    ys = [moveaxis(y, 1, 0) for y in outs[n_init:]]
    return outs[:n_init] + ys, [True] * len(outs)


def _first_segment(op: ir.Operation) -> int:
    """How many operands the first variadic group has (scan's init, a vjp's primals)."""
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[0]


def _slice_type(type_: ir.Type) -> ir.Type:
    t = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get(t.shape[1:], t.element_type)


def _stacked_type(type_: ir.Type, length: int) -> ir.Type:
    t = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get([length, *t.shape], t.element_type)


# --- calls, requests, custom rules -----------------------------------------

def _call(op, xs, batched, axis: Axis):
    from jaxc import custom_batching
    if custom_batching.ATTRIBUTE in op.attributes:  # a custom_vmap function: its rule
        return custom_batching.batch_call(op, xs, batched, axis.size)
    return _mapped(xs, batched, referenced(op)[0], axis), [True] * len(op.results)


def _jvp_request(op, xs, batched, axis: Axis):
    n = len(xs) // 2
    pair = [bp or bt for bp, bt in zip(batched[:n], batched[n:])]
    primals = _batched_where(xs[:n], batched[:n], pair, axis)
    tangents = _batched_where(xs[n:], batched[n:], pair, axis)
    # only inputs whose primal or tangent is batched are mapped: a tangent that
    # is the same in every lane needs no broadcast in forward mode
    callee = _batched_function(referenced(op)[0], axis, pair)
    types = _result_types(op, axis)
    return emit_op(lambda: jd.JvpOp(types, callee, [_value(x) for x in primals],
                                  [_value(x) for x in tangents])), [True] * len(op.results)


def _batched_where(xs, batched, wanted, axis: Axis) -> list[Any]:
    """`xs` with the unbatched ones broadcast where `wanted`."""
    return [broadcast_batch(x, axis.size) if w and not b else x for x, b, w in zip(xs, batched, wanted)]


def _vjp_request(op, xs, batched, axis: Axis):
    n = _first_segment(op)
    operands = batched_all(xs, batched, axis.size)  # every primal mapped: input cotangents are per lane
    callee = _batched_function(referenced(op)[0], axis)
    types = _result_types(op, axis)
    return emit_op(lambda: jd.VjpOp(types, callee, [_value(x) for x in operands[:n]],
                                  [_value(x) for x in operands[n:]])), [True] * len(op.results)


def _custom_jvp_call(op, xs, batched, axis: Axis):
    operands = batched_all(xs, batched, axis.size)
    callee = _batched_function(referenced(op)[0], axis)
    rule = _batched_function(ir.FlatSymbolRefAttr(op.attributes["jvp"]).value, axis)
    types = _result_types(op, axis)
    return emit_op(lambda: jd.CustomJvpCallOp(types, callee, rule, [_value(x) for x in operands])), \
        [True] * len(op.results)


def _custom_vjp_call(op, xs, batched, axis: Axis):
    operands = batched_all(xs, batched, axis.size)
    callee = _batched_function(referenced(op)[0], axis)
    fwd = _batched_function(ir.FlatSymbolRefAttr(op.attributes["fwd"]).value, axis)
    bwd = _batched_function(ir.FlatSymbolRefAttr(op.attributes["bwd"]).value, axis)
    types = _result_types(op, axis)
    return emit_op(lambda: jd.CustomVjpCallOp(types, callee, fwd, bwd, [_value(x) for x in operands])), \
        [True] * len(op.results)


def _remat(op, xs, batched, axis: Axis):
    operands = batched_all(xs, batched, axis.size)
    callee = _batched_function(referenced(op)[0], axis)
    attrs = {name: op.attributes[name] for name in ("policy", "names", "prevent_cse") if name in op.attributes}
    types = _result_types(op, axis)

    def make():
        remat = jd.RematOp(types, callee, [_value(x) for x in operands])
        for name, attr in attrs.items():
            remat.operation.attributes[name] = attr
        return remat
    return emit_op(make), [True] * len(op.results)


def _optimization_barrier(op, xs, batched, axis: Axis):
    return emit_op(lambda: jd.OptimizationBarrierOp([_value(x) for x in xs])), list(batched)


BATCH.update({"jaxc.remat": _remat, "jaxc.optimization_barrier": _optimization_barrier})
BATCH.update({"jaxc.cond": _cond, "jaxc.while": _while, "jaxc.scan": _scan, "func.call": _call,
              "jaxc.jvp": _jvp_request, "jaxc.vjp": _vjp_request,
              "jaxc.custom_jvp_call": _custom_jvp_call, "jaxc.custom_vjp_call": _custom_vjp_call})
