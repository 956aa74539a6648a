"""Derivative rules of control flow, calls and custom rules.

Region bodies are outlined into private functions, and the derived op's
regions hold *requests* on them, which later rounds of the pass expand (the
pass repeats until no request is left):

    cond (jvp)   a cond over (operands, tangents) whose branch k is
                 `jaxc.jvp @branch_k`
    cond (vjp)   the forward cond as it is; the adjoint is a cond on the same
                 index whose branch k is `jaxc.vjp @branch_k` (it recomputes
                 that branch's forward values)
    while (jvp)  carries (primals, tangents); the body is `jaxc.jvp @body`
    scan (jvp)   carries and xs paired with their tangents; `jaxc.jvp @body`
    scan (vjp)   the forward scan also stacks the carry of every step; the
                 adjoint is a scan the other way over (stacked carries, xs,
                 output cotangents) whose body is `jaxc.vjp @body`
    func.call    a request on the callee
    custom_jvp_call  forward: the rule; reverse: the adjoint of the rule's
                 tangent map (a vjp request on it, the primals constant)
    custom_vjp_call  reverse: the fwd function, then the bwd function;
                 forward mode is an error, as in JAX
    while (vjp)  an error: the trip count is not static (use fori_loop with
                 static bounds, or scan)
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from mlir import ir
from mlir.dialects import func

import jaxc.dialect as jd
from jaxc import core

from ..ir import (
    RULE_ERROR,
    RuleError,
    append_block,
    emit_op,
    finish_function,
    functions,
    inline_call,
    module_of,
    new_function,
    ops_named,
    outline_region,
    outline_regions,
    symbol_name,
)
from ..pipeline import RefusedProgram, UserCodeError
from .jvp import JVP_FULL, instantiate
from .vjp import CONSTANT_ARGS, FORWARD, FORWARD_BY_CALLS, FORWARD_CALLS_ATTR, OUTLINED, VJP


def _scope():
    return core.current_scope()


def _values(xs: Sequence[Any]) -> list[ir.Value]:
    return [_scope().value(x) for x in xs]


def _types(xs: Sequence[Any]) -> list[ir.Type]:
    return [_scope().value(x).type for x in xs]


def _request(kind, types, callee: str, primals, others) -> ir.Operation:
    return kind(list(types), ir.FlatSymbolRefAttr.get(callee), list(primals), list(others))


def _call_inline(callee: str, operands: Sequence[Any], result_types: Sequence[ir.Type]) -> list[Any]:
    """`func.call @callee(operands)`, inlined at once; its results."""
    scope = _scope()
    module = module_of(scope.block.owner)
    with core.user_location(), ir.InsertionPoint(scope.block):
        call = func.CallOp(list(result_types), ir.FlatSymbolRefAttr.get(callee), _values(operands))
    return [scope.tracer(v) for v in inline_call(call.operation, functions(module)[callee])]


def _result_types(op) -> list[ir.Type]:
    return [r.type for r in op.results]


# --- outlining -------------------------------------------------------------

# The function whose regions a derivation may take instead of copying (the
# pass erases it right after), and the functions made of its regions.
_taking: list[tuple[ir.Operation, list[str]]] = []


@contextmanager
def taking_regions_of(callee: ir.Operation) -> Iterator[list[str]]:
    """While deriving `callee`, which jaxc-autodiff erases next (a function it
    made that only this derivation's requests name), the cond, while and scan
    jvp rules and the cond vjp rule move its ops' regions into the outlined
    functions instead of copying them; yields the names of those functions.
    Each level of a nest of N conds was copied whole into the next level's
    function, then erased with the callee: N^2/2 ops (issue #20)."""
    _taking.append((callee, []))
    try:
        yield _taking[-1][1]
    finally:
        _taking.pop()


def _outline(op, base: str, indices: Sequence[int] | None = None) -> list[str]:
    """`outline_regions`, moving the regions where `taking_regions_of` allows
    (a rule that outlines the same op twice, like scan's forward and adjoint,
    must call outline_region itself)."""
    take = bool(_taking) and op.parent == _taking[-1][0]
    names = outline_regions(op, base, indices, take=take)
    if take:
        _taking[-1][1].extend(names)
    return names


# --- cond -----------------------------------------------------------------

def _branches(op) -> list[str]:
    """The functions of `op`'s branches: those its forward copy calls, else outlined now."""
    return OUTLINED.pop(op.operation, None) or _outline(op, "branch")


def _cond_forward_by_calls(op, xs):
    """The cond on `xs`, its branches calling the functions outlined from
    `op`'s (kept in `OUTLINED` for `_cond_vjp`)."""
    index, operands = xs[0], xs[1:]
    branches = _outline(op, "branch")
    OUTLINED[op.operation] = branches
    types, in_types = _result_types(op), _types(operands)

    def make():
        cond = jd.CondOp(types, _scope().value(index), _values(operands), len(branches))
        cond.operation.attributes[FORWARD_CALLS_ATTR] = ir.UnitAttr.get()
        for region, name in zip(cond.regions, branches):
            block = append_block(region, in_types)
            with ir.InsertionPoint(block):
                call = func.CallOp(types, ir.FlatSymbolRefAttr.get(name), list(block.arguments))
                jd.YieldOp(list(call.results))
        return cond
    return emit_op(make)


def _cond_jvp(op, xs, ts):
    index, operands = xs[0], xs[1:]
    tangents = [instantiate(t, x) for t, x in zip(ts[1:], operands)]
    branches = _branches(op)
    types = _result_types(op)
    arg_types = _types(operands) * 2
    n = len(operands)

    def make():
        cond = jd.CondOp(types + types, _scope().value(index), _values(operands + tangents), len(branches))
        for region, name in zip(cond.regions, branches):
            block = append_block(region, arg_types)
            with ir.InsertionPoint(block):
                request = _request(jd.JvpOp, types + types, name, block.arguments[:n], block.arguments[n:])
                jd.YieldOp(list(request.results))
        return cond
    outs = emit_op(make)
    return outs[:len(types)], outs[len(types):]


def _cond_vjp(op, xs, ys, cts):
    index, operands = xs[0], xs[1:]
    cts = [instantiate(c, y) for c, y in zip(cts, ys)]
    branches = _branches(op)
    in_types, out_types = _types(operands), _result_types(op)
    n = len(operands)

    def make():
        cond = jd.CondOp(in_types, _scope().value(index), _values(operands + cts), len(branches))
        for region, name in zip(cond.regions, branches):
            block = append_block(region, in_types + out_types)
            with ir.InsertionPoint(block):
                request = _request(jd.VjpOp, out_types + in_types, name, block.arguments[:n],
                                   block.arguments[n:])
                jd.YieldOp(list(request.results)[len(out_types):])
        return cond
    return [None] + emit_op(make)


# --- while ----------------------------------------------------------------

def _while_jvp(op, xs, ts):
    tangents = [instantiate(t, x) for t, x in zip(ts, xs)]
    cond_fn, body_fn = _outline(op, "while_cond", [0])[0], _outline(op, "while_body", [1])[0]
    types = _types(xs)
    n = len(xs)

    def make():
        loop = jd.WhileOp(types + types, _values(xs + tangents))
        before = append_block(loop.regions[0], types + types)
        with ir.InsertionPoint(before):
            call = func.CallOp([ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))],
                               ir.FlatSymbolRefAttr.get(cond_fn), list(before.arguments[:n]))
            jd.YieldOp(list(call.results))
        after = append_block(loop.regions[1], types + types)
        with ir.InsertionPoint(after):
            request = _request(jd.JvpOp, types + types, body_fn, after.arguments[:n], after.arguments[n:])
            jd.YieldOp(list(request.results))
        return loop
    outs = emit_op(make)
    _inline_calls_to(cond_fn)
    return outs[:n], outs[n:]


def _inline_calls_to(name: str) -> None:
    """Inline the calls to `name` that a rule just built (inside regions)."""
    function = _scope().block.owner
    callee = functions(module_of(function))[name]
    for call in ops_named(function, ("func.call",)):
        if _callee(call) == name:
            inline_call(call, callee)


def _while_vjp(op, xs, ys, cts):
    raise RefusedProgram(op, ValueError, "jaxc-autodiff: Reverse-mode differentiation does not work for "
                         "lax.while_loop or lax.fori_loop with dynamic start/stop values (the trip count "
                         "is not static). Try using lax.scan, or using fori_loop with static start/stop.")


# --- scan -----------------------------------------------------------------

def _scan_parts(op):
    n_carry = len(op.init)
    n_x = len(op.xs)
    length = ir.IntegerAttr(op.attributes["length"]).value
    reverse = "reverse" in op.attributes
    return n_carry, n_x, length, reverse


def _slice_types(types: Sequence[ir.Type]) -> list[ir.Type]:
    out = []
    for t in types:
        ranked = ir.RankedTensorType(t)
        out.append(ir.RankedTensorType.get(list(ranked.shape)[1:], ranked.element_type))
    return out


def _stacked_types(types: Sequence[ir.Type], length: int) -> list[ir.Type]:
    return [ir.RankedTensorType.get([length] + list(ir.RankedTensorType(t).shape),
                                    ir.RankedTensorType(t).element_type) for t in types]


def _scan(types, init, xs, length, reverse):
    return jd.ScanOp(list(types), _values(init), _values(xs), length, reverse=True if reverse else None)


def _scan_jvp(op, xs, ts):
    n_carry, n_x, length, reverse = _scan_parts(op)
    body = _outline(op, "scan_body", [0])[0]
    tangents = [instantiate(t, x) for t, x in zip(ts, xs)]
    carry, x_in = xs[:n_carry], xs[n_carry:]
    t_carry, t_x = tangents[:n_carry], tangents[n_carry:]
    result_types = _result_types(op)
    carry_types, y_types = result_types[:n_carry], result_types[n_carry:]
    x_types = _slice_types(_types(x_in))
    y_slice_types = _slice_types(y_types)
    body_out = carry_types + y_slice_types

    def make():
        scan = _scan(carry_types * 2 + y_types * 2, carry + t_carry, x_in + t_x, length, reverse)
        block = append_block(scan.regions[0], carry_types * 2 + x_types * 2)
        args = list(block.arguments)
        c, tc, x, tx = (args[:n_carry], args[n_carry:2 * n_carry], args[2 * n_carry:2 * n_carry + n_x],
                        args[2 * n_carry + n_x:])
        with ir.InsertionPoint(block):
            r = list(_request(jd.JvpOp, body_out * 2, body, c + x, tc + tx).results)
            m = len(body_out)
            jd.YieldOp(r[:n_carry] + r[m:m + n_carry] + r[n_carry:m] + r[m + n_carry:])
        return scan
    outs = emit_op(make)
    n_y = len(y_types)
    primal = outs[:n_carry] + outs[2 * n_carry:2 * n_carry + n_y]
    tangent = outs[n_carry:2 * n_carry] + outs[2 * n_carry + n_y:]
    return primal, tangent


def _scan_forward(op, xs):
    """The scan, also stacking each step's incoming carry (for the adjoint)."""
    n_carry, n_x, length, reverse = _scan_parts(op)
    body = outline_region(op, 0, "scan_body")
    result_types = _result_types(op)
    carry_types = result_types[:n_carry]
    x_types = _slice_types(_types(xs[n_carry:]))
    body_out = carry_types + _slice_types(result_types[n_carry:])

    def make():
        scan = _scan(result_types + _stacked_types(carry_types, length), xs[:n_carry], xs[n_carry:], length,
                     reverse)
        block = append_block(scan.regions[0], carry_types + x_types)
        with ir.InsertionPoint(block):
            call = func.CallOp(body_out, ir.FlatSymbolRefAttr.get(body), list(block.arguments))
            jd.YieldOp(list(call.results) + list(block.arguments[:n_carry]))
        return scan
    outs = emit_op(make)
    _inline_calls_to(body)
    return outs


def _scan_vjp(op, xs, ys, cts):
    n_carry, n_x, length, reverse = _scan_parts(op)
    body = outline_region(op, 0, "scan_body")
    n_y = len(op.results) - n_carry
    results = ys[:n_carry + n_y]
    stacked_carries = ys[n_carry + n_y:]
    cts = [instantiate(c, y) for c, y in zip(cts, results)]
    carry_types = _types(xs[:n_carry])
    x_stacked_types = _types(xs[n_carry:])
    y_types = [r.type for r in op.results[n_carry:]]
    x_types, y_slice_types = _slice_types(x_stacked_types), _slice_types(y_types)
    body_out = carry_types + y_slice_types

    def make():
        scan = _scan(carry_types + x_stacked_types, cts[:n_carry],
                     list(stacked_carries) + list(xs[n_carry:]) + cts[n_carry:], length, not reverse)
        block = append_block(scan.regions[0], carry_types * 2 + x_types + y_slice_types)
        args = list(block.arguments)
        ct_c, c, x, ct_y = (args[:n_carry], args[n_carry:2 * n_carry], args[2 * n_carry:2 * n_carry + n_x],
                            args[2 * n_carry + n_x:])
        with ir.InsertionPoint(block):
            r = list(_request(jd.VjpOp, body_out + carry_types + x_types, body, c + x, ct_c + ct_y).results)
            jd.YieldOp(r[len(body_out):])
        return scan
    return emit_op(make)


# --- calls and custom rules -----------------------------------------------

def _callee(op, attribute="callee") -> str:
    return ir.FlatSymbolRefAttr(op.attributes[attribute]).value


def _call_jvp(op, xs, ts):
    tangents = [instantiate(t, x) for t, x in zip(ts, xs)]
    types = _result_types(op)
    outs = emit_op(lambda: _request(jd.JvpOp, types + types, _callee(op), _values(xs), _values(tangents)))
    return outs[:len(types)], outs[len(types):]


def _call_vjp(op, xs, ys, cts):
    cts = [instantiate(c, y) for c, y in zip(cts, ys)]
    types = _result_types(op)
    outs = emit_op(lambda: _request(jd.VjpOp, types + _types(xs), _callee(op), _values(xs), _values(cts)))
    return outs[len(types):]


# RULE_ERROR's error id -> the exception the rule raised (in the process that traced it)
_RULE_ERRORS: dict[int, Exception] = {}


def defer_rule_error(error: Exception) -> int:
    """Keep `error` for the pass; its id."""
    key = len(_RULE_ERRORS) + 1
    _RULE_ERRORS[key] = error
    return key


def _rule(op, which: str) -> str:
    """A custom call's rule (`jvp`, `bwd`); if its tracing failed, that
    error, raised again (the user's exception in the process that traced it,
    else a diagnostic at the call)."""
    rule = _callee(op, which)
    attrs = functions(module_of(op))[rule].attributes
    if RULE_ERROR in attrs:
        key, message = ir.ArrayAttr(attrs[RULE_ERROR])
        error = _RULE_ERRORS.get(ir.IntegerAttr(key).value)
        if error is not None:
            raise UserCodeError(op, error)
        raise RuleError(op, f"jaxc-autodiff: {ir.StringAttr(message).value}")
    return rule


def _custom_jvp_jvp(op, xs, ts):
    tangents = [instantiate(t, x) for t, x in zip(ts, xs)]
    types = _result_types(op)
    outs = _call_inline(_rule(op, "jvp"), xs + tangents, types + types)
    return outs[:len(types)], outs[len(types):]


def _tangent_map(op) -> str:
    """A function (primals..., tangents...) -> output tangents of the rule:
    the rule's body, with the primals marked constant (`CONSTANT_ARGS`) for
    the vjp request on it, so that only the tangent computation is
    differentiated (JAX transposes only the linear part of a rule; the
    primal part may hold a while loop). Outer derivatives see all of it."""
    module = module_of(op)
    rule = _rule(op, "jvp")
    arg_types = [v.type for v in op.operands] * 2
    types = _result_types(op)
    fn, block = new_function(module, f"{rule}_tangents", arg_types, op.location)
    n = len(op.operands)
    with op.location, ir.InsertionPoint(block):
        call = func.CallOp(types + types, ir.FlatSymbolRefAttr.get(rule), list(block.arguments))
        fn.attributes[CONSTANT_ARGS] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)
    outs = inline_call(call.operation, functions(module)[rule])
    finish_function(fn, block, list(outs)[len(types):], op.location)
    return symbol_name(fn)


def _custom_jvp_vjp(op, xs, ys, cts):
    cts = [instantiate(c, y) for c, y in zip(cts, ys)]
    zeros = [instantiate(None, x) for x in xs]
    tmap = _tangent_map(op)
    in_types = _types(xs)
    outs = emit_op(lambda: _request(jd.VjpOp, _result_types(op) + in_types * 2, tmap, _values(xs + zeros),
                                  _values(cts)))
    return outs[len(op.results) + len(xs):]


def _custom_vjp_jvp(op, xs, ts):
    raise RuleError(op, "jaxc-autodiff: can't apply forward-mode autodiff (jvp) to a custom_vjp function")


def _custom_vjp_forward(op, xs):
    """fwd's outputs, then its residuals."""
    module = module_of(op)
    fwd = functions(module)[_callee(op, "fwd")]
    types = list(ir.FunctionType(ir.TypeAttr(fwd.attributes["function_type"]).value).results)
    return _call_inline(_callee(op, "fwd"), xs, types)


def _custom_vjp_vjp(op, xs, ys, cts):
    cts = [instantiate(c, y) for c, y in zip(cts, ys[:len(op.results)])]
    residuals = ys[len(op.results):]
    return _call_inline(_rule(op, "bwd"), list(residuals) + cts, _types(xs))


JVP_FULL.update({"jaxc.cond": _cond_jvp, "jaxc.while": _while_jvp, "jaxc.scan": _scan_jvp,
                 "func.call": _call_jvp, "jaxc.custom_jvp_call": _custom_jvp_jvp,
                 "jaxc.custom_vjp_call": _custom_vjp_jvp})
FORWARD.update({"jaxc.scan": _scan_forward, "jaxc.custom_vjp_call": _custom_vjp_forward})
FORWARD_BY_CALLS["jaxc.cond"] = _cond_forward_by_calls
VJP.update({"jaxc.cond": _cond_vjp, "jaxc.while": _while_vjp, "jaxc.scan": _scan_vjp, "func.call": _call_vjp,
            "jaxc.custom_jvp_call": _custom_jvp_vjp, "jaxc.custom_vjp_call": _custom_vjp_vjp})
