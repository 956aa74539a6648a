"""Rematerialization (`jaxc.remat`, `jax.checkpoint`) and the two identity
ops that serve it, `jaxc.checkpoint_name` and `jaxc.optimization_barrier`.

Reverse mode of `%y = jaxc.remat @g(%x)`:

- forward sweep: `@g` inlined, returning its outputs and the values the
  policy saves (`SAVES`); the rest of g's forward values die there;
- backward sweep: `@g_remat_vjp(%x, saved..., %ct)` inlined: the arguments
  and saved values that the recomputation reads go through one
  `jaxc.optimization_barrier` (unless `prevent_cse = false`), g's forward
  values are recomputed from them
  (saved ones are taken, not recomputed), and the adjoints read the
  recomputed values. The barrier keeps CSE from merging the recomputation
  into the forward sweep, so the forward values are freed after the forward
  sweep and exist again only while the adjoint of g runs.

    func.func private @g(%x: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.sin %x : tensor<f32>
      %1 = jaxc.sin %0 : tensor<f32>
      return %1 : tensor<f32>
    }
    %y, %dx = jaxc.vjp @f(%x) cotangents(%ct)  // @f holds `jaxc.remat @g(%x)`
  -> (cleaned up)
    %0 = jaxc.sin %x                             // forward
    %1 = jaxc.sin %0
    %2 = jaxc.optimization_barrier %x            // backward: recompute ...
    %3 = jaxc.sin %2
    %4 = jaxc.cos %3                             // ... then the adjoints
    ...

Forward mode ignores the policy: `jaxc.remat` differentiates like a call.
"""
from __future__ import annotations

from typing import Callable

from mlir import ir

import jaxc.dialect as jd

from ..ir import all_ops, emit_op, finish_function, functions, module_of, new_function, symbol_name
from .control_flow import _call_inline, _call_jvp, _call_vjp, _callee, _types, _values
from .jvp import JVP, JVP_FULL, instantiate
from .vjp import FORWARD, VJP, backward_sweep, forward_sweep


def _name_of(op: ir.Operation) -> str | None:
    return ir.StringAttr(op.attributes["label"]).value if op.name == "jaxc.checkpoint_name" else None


def _no_batch_dims(op: ir.Operation) -> bool:
    return (op.name == "jaxc.dot_general"
            and len(ir.DenseI64ArrayAttr(op.attributes["lhs_batching_dimensions"])) == 0)


def _not_excluded(op: ir.Operation, names: frozenset) -> bool:
    """Anything, except a value named in `names` (and what is only named so)."""
    if _name_of(op) in names:
        return False
    return not any(_name_of(use.owner) in names for r in op.results for use in r.uses)


_DOTS = ("jaxc.dot_general", "jaxc.conv_general_dilated")

# policy -> (op, names) -> whether the op's results are saved
SAVES: dict[str, Callable[[ir.Operation, frozenset], bool]] = {
    "nothing_saveable": lambda op, names: False,
    "everything_saveable": lambda op, names: True,
    "dots_saveable": lambda op, names: op.name in _DOTS,
    "dots_with_no_batch_dims_saveable": lambda op, names: _no_batch_dims(op),
    "save_only_these_names": lambda op, names: _name_of(op) in names,
    "save_any_names_but_these": lambda op, names: _name_of(op) not in names | {None},
    "save_anything_except_these_names": _not_excluded,
}


def _policy(op: ir.Operation) -> tuple[str, frozenset]:
    """The remat op's policy and names (the defaults where absent)."""
    attrs = op.attributes
    policy = ir.StringAttr(attrs["policy"]).value if "policy" in attrs else "nothing_saveable"
    names = frozenset(ir.StringAttr(a).value for a in ir.ArrayAttr(attrs["names"])) if "names" in attrs else frozenset()
    return policy, names


def _prevent_cse(op: ir.Operation) -> bool:
    return ir.BoolAttr(op.attributes["prevent_cse"]).value if "prevent_cse" in op.attributes else True


def saved_ops(callee: ir.Operation, remat: ir.Operation) -> list[ir.Operation]:
    """The ops of `callee` whose results the policy of `remat` saves: those
    it marks, except ops without operands (constants cost nothing to
    recompute) and ops whose reverse mode needs more than their results."""
    policy, names = _policy(remat)
    saves = SAVES[policy]
    body = callee.regions[0].blocks[0]
    return [op for op in list(body.operations)[:-1]
            if len(op.operands) and op.name not in FORWARD and saves(op, names)]


def _callee_function(op: ir.Operation) -> ir.Operation:
    return functions(module_of(op))[_callee(op)]


def _plain(op: ir.Operation) -> bool:
    """Whether reverse mode of `op` is that of a call: everything is saved."""
    return _policy(op)[0] == "everything_saveable"


def _remat_forward(op, xs):
    """The callee inlined: its outputs, then the values the policy saves."""
    callee = _callee_function(op)
    saved = [] if _plain(op) else [r for o in saved_ops(callee, op) for r in o.results]
    if not saved:
        return _call_inline(_callee(op), xs, [r.type for r in op.results])
    return _inline_once(_saving_function(callee, saved), xs, [r.type for r in op.results] +
                        [v.type for v in saved])


def _saving_function(callee: ir.Operation, saved: list[ir.Value]) -> str:
    """A copy of `callee` that also returns `saved` (values of its body)."""
    from jaxc.core import emitting

    from .jvp import apply_op

    body = callee.regions[0].blocks[0]
    ret = list(body.operations)[-1]
    fn, block = new_function(module_of(callee), f"{symbol_name(callee)}_remat_fwd",
                             [a.type for a in body.arguments], callee.location)
    with emitting(block, callee.location) as e:
        value = {arg: e.wrap(new) for arg, new in zip(body.arguments, block.arguments)}
        for op in list(body.operations)[:-1]:
            e.at(op.location)
            for result, y in zip(op.results, apply_op(op, [value[v] for v in op.operands])):
                value[result] = y
        outs = [value[v].value for v in list(ret.operands) + saved]
    finish_function(fn, block, outs, callee.location)
    return symbol_name(fn)


def derive_remat_vjp(callee: ir.Operation, remat: ir.Operation) -> str:
    """`@<callee>_remat_vjp(args..., saved..., output cts...) -> arg cts`:
    the backward sweep of `callee` over recomputed forward values."""
    from jaxc.core import emitting

    body = callee.regions[0].blocks[0]
    ret = list(body.operations)[-1]
    kept = saved_ops(callee, remat)
    saved_types = [r.type for o in kept for r in o.results]
    arg_types = [a.type for a in body.arguments]
    fn, block = new_function(module_of(callee), f"{symbol_name(callee)}_remat_vjp",
                             arg_types + saved_types + [v.type for v in ret.operands], callee.location)
    n, n_saved = len(arg_types), len(saved_types)
    with emitting(block, callee.location) as e:
        inputs = [e.wrap(v) for v in list(block.arguments)[:n + n_saved]]
        originals = list(body.arguments) + [r for o in kept for r in o.results]
        named = _named_producers(kept)
        read = _read_by_recomputation(callee, kept + list(named))
        apart = [i for i, v in enumerate(originals) if v in read] if _prevent_cse(remat) else []
        if apart:
            e.at(remat.location)
            for i, y in zip(apart, _barrier([inputs[i] for i in apart])):
                inputs[i] = y
        primal = dict(zip(body.arguments, inputs[:n]))
        given = {}
        rest = iter(inputs[n:])
        for o in kept:
            given[o] = [next(rest) for _ in o.results]
        for producer, name_op in named.items():  # the value a saved name holds
            given[producer] = given[name_op]
        tape, active = forward_sweep(e, callee, primal, given=given.get)
        cts = backward_sweep(e, callee, tape, active, primal, [e.wrap(v) for v in list(block.arguments)[n + n_saved:]])
    finish_function(fn, block, cts, callee.location)
    return symbol_name(fn)


def _named_producers(kept: list[ir.Operation]) -> dict:
    """producer op -> the saved `checkpoint_name` op naming its one result:
    the saved value is the producer's too, so the producer is not recomputed."""
    found = {}
    for op in kept:
        if op.name != "jaxc.checkpoint_name" or isinstance(op.operands[0].owner, ir.Block):
            continue
        producer = op.operands[0].owner
        if len(producer.results) == 1 and producer.name not in FORWARD and producer not in kept:
            found[producer] = op
    return found


def _read_by_recomputation(callee: ir.Operation, kept: list[ir.Operation]) -> set[ir.Value]:
    """The values the recomputed (not saved) ops of `callee` read: only
    those must pass the barrier (the adjoints may read the rest directly)."""
    body = callee.regions[0].blocks[0]
    read: set[ir.Value] = set()
    for op in list(body.operations)[:-1]:
        if op not in kept:
            for child in all_ops(op.operation):
                read.update(child.operands)
    return read


def _barrier(xs: list) -> list:
    return emit_op(lambda: jd.OptimizationBarrierOp(_values(xs)))


def _remat_vjp(op, xs, ys, cts):
    if _plain(op):
        return _call_vjp(op, xs, ys, cts)
    n_out = len(op.results)
    cts = [instantiate(c, y) for c, y in zip(cts, ys[:n_out])]
    name = derive_remat_vjp(_callee_function(op), op)
    return _inline_once(name, list(xs) + list(ys[n_out:]) + cts, _types(xs))


def _inline_once(name: str, operands: list, types: list) -> list:
    """`_call_inline` of a function made for this one call, then erased."""
    from jaxc import core
    outs = _call_inline(name, operands, types)
    functions(module_of(core.current_scope().block.owner))[name].erase()
    return outs


def _identity_jvp(op, xs, ys, ts):
    return list(ts)


def _identity_vjp(op, xs, ys, cts):
    return list(cts)


JVP.update({"jaxc.checkpoint_name": _identity_jvp, "jaxc.optimization_barrier": _identity_jvp})
JVP_FULL.update({"jaxc.remat": _call_jvp})
FORWARD.update({"jaxc.remat": _remat_forward})
VJP.update({"jaxc.checkpoint_name": _identity_vjp, "jaxc.optimization_barrier": _identity_vjp,
            "jaxc.remat": _remat_vjp})
