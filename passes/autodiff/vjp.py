"""Reverse mode: derive `@f_vjp(primals..., cotangents...) -> (outs...,
input cotangents...)` from `@f` with adjoint rules.

The forward sweep copies every op onto the primal values (an op in
`FORWARD` may also compute values its adjoint needs, e.g. a scan stacking
its carries). The backward sweep visits the ops in reverse; for each op
whose results have a cotangent, its rule in `VJP` returns one cotangent (or
None) per operand, which are summed per value; a rule may give a
zero-argument function instead, called only if that operand is active (for
a cotangent that costs work or that JAX refuses, e.g. scatter_mul's in its
updates). Both sweeps live in one
function, so the adjoint reads forward values directly (no residual
plumbing), and canonicalize/CSE/DCE afterwards drop what is unused. Only
*active* values (those that depend on the arguments other than through a
zero-derivative op such as `stop_gradient`) get cotangents, so an op on
inactive values is never differentiated. A function may mark its first
arguments constant for this request (`CONSTANT_ARGS`): a custom_jvp rule's
tangent map does, so a while loop computing a primal in it is not
differentiated. Its last arguments may be values the traced function closed
over (`CAPTURED_ARGS`, set by jaxc.grad and friends): constants too, as JAX
differentiates only the arguments it is given, so
`grad(lambda x, y: pure_callback(g, s, y) * x)` needs no rule for the
callback on `y`.

    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.sin %x : tensor<f32>
      return %0 : tensor<f32>
    }
  ->
    func.func private @f_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = jaxc.sin %x : tensor<f32>
      %1 = jaxc.cos %x : tensor<f32>
      %2 = jaxc.mul %ct, %1 : tensor<f32>
      return %0, %2 : tensor<f32>, tensor<f32>
    }
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from mlir import ir

from ..ir import finish_function, first_op, is_inexact, module_of, new_function, symbol_name
from .jvp import CONSTANT_ARGS, ZERO_DERIVATIVE, apply_op, captured_arguments, instantiate, marked_count, no_rule

Cotangent = Optional[Any]

# op name -> rule(op, xs, ys, cts) -> one cotangent (or None) per operand;
# `ys` holds the op's results followed by what its FORWARD rule saved.
VJP: dict[str, Callable[..., list[Cotangent]]] = {}
# op name -> rule(op, xs) -> results followed by values saved for VJP
FORWARD: dict[str, Callable[..., list[Any]]] = {}
# attribute of a function: its first this-many arguments are constants for
# the vjp derived from it (their cotangents are zero)


# op name -> rule(op, xs) -> the op's results, computed by a copy of it whose
# regions call functions outlined from them (the copy carries FORWARD_CALLS_ATTR);
# the op's VJP rule then differentiates those functions (`OUTLINED`). Used by a
# vjp whose primal results are dropped: a cond's adjoint recomputes its branch
# itself, so its forward copy is often dead, and a copy of its regions (a nest
# of N conds, at each of its N levels) was N^2/2 ops built and then erased, each
# erase costing the depth of the nest again (issue #20).
FORWARD_BY_CALLS: dict[str, Callable[..., list[Any]]] = {}
FORWARD_CALLS_ATTR = "jaxc.forward_by_calls"
# op -> the functions a FORWARD_BY_CALLS rule outlined from its regions, during one derivation
OUTLINED: dict[ir.Operation, list[str]] = {}


def derive_vjp(callee: ir.Operation, primal_results_unused: bool = False) -> str:
    """Build `@<callee>_vjp` next to `callee`; return its name.
    `primal_results_unused`: the caller drops the primal results, and erases
    the forward copies (`FORWARD_BY_CALLS`) that the cotangents do not use."""
    from jaxc.core import emitting
    module = module_of(callee)
    body = callee.regions[0].blocks[0]
    ret = list(body.operations)[-1]
    arg_types = [a.type for a in body.arguments]
    out_types = [v.type for v in ret.operands]
    fn, block = new_function(module, f"{symbol_name(callee)}_vjp", arg_types + out_types, callee.location)
    n = len(arg_types)
    try:
        with emitting(block, callee.location) as e:
            primal = {arg: e.wrap(new) for arg, new in zip(body.arguments, block.arguments[:n])}

            def by_calls(op: ir.Operation) -> Optional[list]:
                rule = FORWARD_BY_CALLS.get(op.name) if primal_results_unused else None
                return rule(op, [primal[v] for v in op.operands]) if rule else None
            tape, active = forward_sweep(e, callee, primal, by_calls)
            cts_in = backward_sweep(e, callee, tape, active, primal, [e.wrap(ct) for ct in block.arguments[n:]])
            outs = [primal[v].value for v in ret.operands]
    finally:
        OUTLINED.clear()
    finish_function(fn, block, outs + cts_in, callee.location)
    return symbol_name(fn)


def erase_unused_forward_calls(fn: ir.Operation) -> None:
    """Erase the forward copies made by `FORWARD_BY_CALLS` rules in `fn`
    whose results nothing uses (canonicalize keeps them: calls may have
    effects); the others lose their mark."""
    for op in list(fn.regions[0].blocks[0].operations):
        if FORWARD_CALLS_ATTR in op.attributes:
            if any(True for result in op.results for _ in result.uses):
                del op.attributes[FORWARD_CALLS_ATTR]
            else:
                op.erase()


def forward_sweep(e, callee: ir.Operation, primal: dict,
                  given: Callable[[ir.Operation], Optional[list]] = lambda op: None) -> tuple[list, set]:
    """Copy `callee`'s ops onto the values of `primal` (which maps its
    arguments and gains every result); returns the tape of (op, operands,
    results and saved values) and the set of active values. `given(op)`
    may return the results of an op instead of computing them (remat's
    saved values)."""
    body = callee.regions[0].blocks[0]
    active = set(active_arguments(callee))
    tape = []
    for op in list(body.operations)[:-1]:
        if _is_active(op, active):
            active.update(op.results)
        e.at(op.location)
        xs = [primal[v] for v in op.operands]
        ys = given(op)
        if ys is None:
            ys = FORWARD[op.name](op, xs) if op.name in FORWARD else apply_op(op, xs)
        for result, y in zip(op.results, ys):
            primal[result] = y
        tape.append((op, xs, ys))
    return tape, active


def backward_sweep(e, callee: ir.Operation, tape: list, active: set, primal: dict,
                   output_cts: list) -> list[ir.Value]:
    """The adjoints of the `tape` in reverse, seeded with `output_cts` (one
    per result of `callee`); returns one cotangent per argument."""
    body = callee.regions[0].blocks[0]
    ret = list(body.operations)[-1]
    e.at(ret.location)
    cotangent: dict = {}
    for value, ct in zip(ret.operands, output_cts):
        if value in active:
            _accumulate(cotangent, value, ct)
    for op, xs, ys in reversed(tape):
        cts = [cotangent.pop(r, None) for r in op.results]
        if all(c is None for c in cts) or op.name in ZERO_DERIVATIVE:
            continue
        if op.name not in VJP:
            raise no_rule(op, "reverse-mode (vjp)")
        e.at(op.location)
        for operand, ct in zip(op.operands, VJP[op.name](op, xs, ys, cts)):
            if operand in active:
                _accumulate(cotangent, operand, ct() if callable(ct) else ct)
    e.at(ret.location)
    return [instantiate(cotangent.get(arg), primal[arg]).value for arg in body.arguments]


def active_arguments(callee: ir.Operation) -> list[ir.Value]:
    """The arguments of `callee` a vjp request differentiates: all but the
    first `CONSTANT_ARGS` and the captured ones."""
    first = marked_count(callee, CONSTANT_ARGS)
    return [arg for arg in list(callee.regions[0].blocks[0].arguments)[first:]
            if arg not in captured_arguments(callee)]


def _is_active(op: ir.Operation, active: set) -> bool:
    """Whether `op`'s results depend on an active value: an operand, or a
    value its regions use from above."""
    if op.name in ZERO_DERIVATIVE:
        return False
    if any(v in active for v in op.operands):
        return True
    return len(op.regions) > 0 and first_op(op, lambda child: any(v in active for v in child.operands)) is not None


def _accumulate(cotangent: dict, value: ir.Value, ct: Cotangent) -> None:
    if ct is None or not is_inexact(value.type):
        return
    from jaxc import lax
    old = cotangent.get(value)
    cotangent[value] = ct if old is None else lax.add(old, ct)

