"""Forward mode: derive `@f_jvp(primals..., tangents...) -> (outs...,
out tangents...)` from `@f` by walking its body once.

Each op is copied onto the primal values, then its rule from `JVP` gives the
tangents of its results from the primal operands and results and the
operand tangents. A tangent is None while it is known to be zero (integer
values, constants, `stop_gradient`), so zero tangents cost nothing; they are
materialized only where a function returns them. Ops whose primal part
changes too (control flow, custom rules) have a rule in `JVP_FULL` instead.

    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.sin %x : tensor<f32>
      return %0 : tensor<f32>
    }
  ->
    func.func private @f_jvp(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = jaxc.sin %x : tensor<f32>
      %1 = jaxc.cos %x : tensor<f32>
      %2 = jaxc.mul %t, %1 : tensor<f32>
      return %0, %2 : tensor<f32>, tensor<f32>
    }
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from mlir import ir

from ..ir import CAPTURED_ARGS, RuleError, clone_into, finish_function, is_inexact, module_of, new_function, symbol_name
from ..pipeline import RefusedProgram

Tangent = Optional[Any]  # a Tracer, or None for a zero tangent

# op name -> rule(op, xs, ys, ts) -> one tangent (or None) per result
JVP: dict[str, Callable[..., list[Tangent]]] = {}
# op name -> rule(op, xs, ts) -> (result tracers, tangents): builds the primal part itself
JVP_FULL: dict[str, Callable[..., tuple[list[Any], list[Tangent]]]] = {}
# ops whose results never carry a derivative (integer, boolean, random, constants)
ZERO_DERIVATIVE: set[str] = set()
# ops no rule differentiates, with the reason the error gives
_COLLECTIVE = "pmax and pmin are not differentiable (as in JAX)"
NOT_DIFFERENTIABLE: dict[str, str] = {
    "jaxc.vmap": "expand it with jaxc-batch first (the transformed stage runs jaxc-batch before jaxc-autodiff)",
    "jaxc.jvp": "requests inside a callee are expanded first (this one should have been)",
    "jaxc.vjp": "requests inside a callee are expanded first (this one should have been)",
    "jaxc.yield": "a region terminator; its region's op is differentiated as a whole",
    **{f"jaxc.{name}": _COLLECTIVE for name in ("pmax", "pmin")},
}
# ops JAX refuses to differentiate with an exception of its own: Python gets that type
REFUSED_AS: dict[str, type[BaseException]] = {}


def zeros_like(x: Any) -> Any:
    from jaxc import lax
    return lax.full(x.shape, 0, x.dtype)


def instantiate(t: Tangent, like: Any) -> Any:
    return zeros_like(like) if t is None else t


def apply_op(op: ir.Operation, operands: list[Any]) -> list[Any]:
    """`op` copied onto `operands` (tracers) in the block being emitted."""
    from jaxc import core
    scope = core.current_scope()
    copy = clone_into(op, scope.block, [scope.value(x) for x in operands])
    return [scope.tracer(r) for r in copy.results]


# Function attribute: a vjp request's callee's first N arguments are constants (a custom_jvp
# tangent map); the last ones may be too (`CAPTURED_ARGS`).
CONSTANT_ARGS = "jaxc.constant_args"


def marked_count(callee: ir.Operation, attribute: str) -> int:
    return ir.IntegerAttr(callee.attributes[attribute]).value if attribute in callee.attributes else 0


def captured_arguments(callee: ir.Operation) -> list[ir.Value]:
    """The last `CAPTURED_ARGS` arguments of `callee`: constants for any
    request on it, as JAX differentiates only the arguments it is given."""
    arguments = list(callee.regions[0].blocks[0].arguments)
    return arguments[len(arguments) - marked_count(callee, CAPTURED_ARGS):]


def derive_jvp(callee: ir.Operation) -> str:
    """Build `@<callee>_jvp` next to `callee`; return its name."""
    from jaxc.core import emitting
    module = module_of(callee)
    body = callee.regions[0].blocks[0]
    arg_types = [a.type for a in body.arguments]
    fn, block = new_function(module, f"{symbol_name(callee)}_jvp", arg_types + arg_types, callee.location)
    n = len(arg_types)
    with emitting(block, callee.location) as e:
        primal = {}
        tangent = {}
        constant = set(captured_arguments(callee))  # their tangents are zeros
        for arg, new, new_t in zip(body.arguments, block.arguments[:n], block.arguments[n:]):
            primal[arg] = e.wrap(new)
            tangent[arg] = e.wrap(new_t) if is_inexact(arg.type) and arg not in constant else None
        ops = list(body.operations)
        for op in ops[:-1]:
            e.at(op.location)
            jvp_op(op, primal, tangent)
        e.at(ops[-1].location)
        outs = [primal[v] for v in ops[-1].operands]
        touts = [instantiate(tangent.get(v), primal[v]) for v in ops[-1].operands]
        results = [x.value for x in outs + touts]
    finish_function(fn, block, results, callee.location)
    return symbol_name(fn)


def jvp_op(op: ir.Operation, primal: dict, tangent: dict) -> None:
    """Emit the primal and tangent computation of one op; record both."""
    xs = [primal[v] for v in op.operands]
    ts = [tangent.get(v) for v in op.operands]
    if op.name in JVP_FULL:
        ys, touts = JVP_FULL[op.name](op, xs, ts)
    else:
        ys = apply_op(op, xs)
        if all(t is None for t in ts) or op.name in ZERO_DERIVATIVE:
            touts = [None] * len(ys)
        elif op.name in JVP:
            touts = JVP[op.name](op, xs, ys, ts)
        else:
            raise no_rule(op, "forward-mode (jvp)")
    for result, y, t in zip(op.results, ys, touts):
        primal[result] = y
        tangent[result] = t if is_inexact(result.type) else None


def no_rule_message(name: str, mode: str) -> str:
    why = NOT_DIFFERENTIABLE.get(name)
    return f"jaxc-autodiff: '{name}' has no {mode} rule" + (f": {why}" if why else "")


def no_rule(op: ir.Operation, mode: str) -> Exception:
    """The error for an op no rule differentiates: JAX's exception type where
    JAX has one for it (`REFUSED_AS`), else a RuleError."""
    message = no_rule_message(op.name, mode)
    error_type = REFUSED_AS.get(op.name)
    return RefusedProgram(op, error_type, message) if error_type else RuleError(op, message)

