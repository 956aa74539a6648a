"""Structured control flow: `cond`, `switch`, `while_loop`, `fori_loop`,
`scan` and `map`, with JAX's signatures and semantics.

Each function traces the user's functions into the regions of one `jaxc`
op (`core.trace_region`) and emits the op into the active scope:

    lax.cond(p, f, g, x)      ->  jaxc.cond %p (%x) {g's ops}, {f's ops}
    lax.while_loop(c, b, x)   ->  jaxc.while (%x) cond {c's ops} do {b's ops}
    lax.scan(f, c, xs)        ->  jaxc.scan init(%c) xs(%xs) length = n {f's ops}

Regions are isolated from above, so whatever a function closes over (outer
tracers, concrete Arrays) becomes an extra operand: a branch operand of
`cond`, a carried value of `while` and `scan` (yielded back unchanged and
dropped from the results). Outside any trace, the call is compiled with
`jaxc.jit` (the compiled module is cached by its text, so repeating a call
does not recompile).
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import mlir.ir as ir
import numpy as np

import jaxc.dialect as jd

from .. import _config, core, dtypes, tree_util
from ..core import ShapedArray, TracedRegion
from . import _ops as lax

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------

def _leaves(tree: Any, what: str) -> tuple[list[Any], Any]:
    """The leaves of `tree` as arrays (Arrays or tracers), and its structure."""
    leaves, treedef = tree_util.tree_flatten(tree)
    return [core.as_operand(leaf, f"lax.{what}") for leaf in leaves], treedef


def _types(avals: Sequence[ShapedArray]) -> str:
    """Avals as a Python tuple would print: ``(float32[3], int32[])``."""
    names = [a.str_short() for a in avals]
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _map(f: Callable, *seqs: Sequence[Any]) -> list[Any]:
    """Python's builtin map as a list (this module defines `lax.map`)."""
    return [f(*args) for args in zip(*seqs)]


def _same_type(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal shape and dtype; weak types may differ (as JAX's typematch)."""
    return a.shape == b.shape and a.dtype == b.dtype


def _check_callable(what: str, **funs: Any) -> None:
    for name, fun in funs.items():
        if not callable(fun):
            raise TypeError(f"lax.{what}: {name} must be callable, got {type(fun).__name__}")


def _union_captures(regions: Sequence[TracedRegion]) -> list[Any]:
    """Every object any region captured, once, in first-seen order."""
    seen: dict[int, Any] = {}
    for region in regions:
        for obj in region.captured:
            seen.setdefault(id(obj), obj)
    return list(seen.values())


def _arg_types(avals: Sequence[ShapedArray]) -> list[ir.Type]:
    return [core.ir_type(a.shape, a.dtype) for a in avals]


def _emit(make_op: Callable[[list[ir.Value], list[ir.Type]], Any], operands: Sequence[Any],
          result_avals: Sequence[ShapedArray], fill_regions: Callable[[Any], None]) -> list[core.Tracer]:
    """Build an op in the current scope at the user's line: `make_op(operand
    values, result types)`, then `fill_regions(op)`; return its results as
    tracers with the weak types of `result_avals`."""
    scope = core.current_scope()
    assert scope is not None  # cond, while_loop, scan: only under a trace (else they run eagerly)
    with core.context(), core.user_location(), ir.InsertionPoint(scope.block):
        values = [scope.value(x) for x in operands]
        op = make_op(values, _arg_types(result_avals))
        fill_regions(op)
    return [scope.tracer(v, a.weak_type) for v, a in zip(op.results, result_avals)]


# When set, ``functionalize_hook(name, *args, **kwargs)`` may take over a call
# of cond, switch, while_loop or scan made inside a trace: it returns the
# call's result, or NotImplemented to let the call go on as usual.
# jaxc.experimental.checkify sets it while a checkify trace is active, to
# thread its error state through the branches and loop bodies.
functionalize_hook: Callable[..., Any] | None = None


def _hooked(name: str, *args: Any, **kwargs: Any) -> Any:
    hook = functionalize_hook
    return NotImplemented if hook is None else hook(name, *args, **kwargs)


def _compiled(name: str, fun: Callable[..., Any], *args: Any) -> Any:
    """Run `fun(*args)` (which emits control flow) outside any trace by
    compiling it with `jit`; the module text cache makes repeats cheap."""
    from ..api import JitFunction

    def run(*traced: Any) -> Any:
        return fun(*traced)
    run.__name__ = name
    return JitFunction(run, compile_always=True)(*args)


# ---------------------------------------------------------------------------
# cond and switch
# ---------------------------------------------------------------------------

def _scalar(x: Any, what: str, name: str) -> Any:
    x = core.as_operand(x, f"lax.{what}")
    if x.shape != ():
        raise TypeError(f"lax.{what}: {name} must be a scalar, got {x.aval.str_short()}")
    return x


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    """``true_fun(*operands) if pred else false_fun(*operands)``, with both
    branches traced and compiled. `pred` is a boolean or integer scalar
    (nonzero is true); both branches must return the same types."""
    _check_callable("cond", true_fun=true_fun, false_fun=false_fun)
    if core.current_scope() is None:
        return _compiled("cond", lambda p, ops: cond(p, true_fun, false_fun, *ops), pred, operands)
    if (out := _hooked("cond", pred, true_fun, false_fun, *operands)) is not NotImplemented:
        return out
    pred = _scalar(pred, "cond", "pred")
    if pred.dtype != dtypes.bool_:
        if not dtypes.is_int(pred.dtype):
            raise TypeError(f"lax.cond: pred must be a boolean or integer scalar, got "
                            f"{pred.aval.str_short()}")
        pred = lax.ne(pred, 0)
    # Branch 0 of jaxc.cond runs when the predicate is false.
    return _branch_op("cond", pred, [true_fun, false_fun], ["true_fun", "false_fun"], operands,
                      region_order=[1, 0])


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
    """``branches[clamp(index, 0, len(branches) - 1)](*operands)``: `index` is
    an integer scalar; every branch must return the same types."""
    branches = list(branches) if isinstance(branches, (list, tuple)) else branches
    if not isinstance(branches, list):
        raise TypeError(f"lax.switch: branches must be a sequence of functions, got "
                        f"{type(branches).__name__}")
    if not branches:
        raise ValueError("lax.switch: empty branch sequence")
    _check_callable("switch", **{f"branches[{i}]": f for i, f in enumerate(branches)})
    if core.current_scope() is None:
        return _compiled("switch", lambda i, ops: switch(i, branches, *ops), index, operands)
    if (out := _hooked("switch", index, branches, *operands)) is not NotImplemented:
        return out
    index = _scalar(index, "switch", "index")
    if not dtypes.is_int(index.dtype):
        raise TypeError(f"lax.switch: index must be an integer scalar, got {index.aval.str_short()}")
    if len(branches) == 1:
        return branches[0](*operands)
    names = [f"branches[{i}]" for i in range(len(branches))]
    return _branch_op("switch", index, branches, names, operands, region_order=range(len(branches)))


def _branch_op(what: str, index: Any, funs: Sequence[Callable], names: Sequence[str],
               operands: Sequence[Any], region_order: Sequence[int]) -> Any:
    """Trace each branch on `operands`, check they agree with the first and
    emit a `jaxc.cond` whose region k is branch `region_order[k]`."""
    leaves, in_tree = _leaves(list(operands), what)
    in_avals = [x.aval for x in leaves]

    def call(fun: Callable) -> Callable:
        return lambda *args: fun(*tree_util.tree_unflatten(in_tree, args))

    regions = [core.trace_region(call(fun), in_avals, f"lax.{what}: {name}", writes_refs=True)
               for fun, name in zip(funs, names)]
    first = regions[0]
    for region, name in zip(regions[1:], names[1:]):
        if region.out_tree != first.out_tree:
            raise TypeError(f"lax.{what}: {names[0]} and {name} output must have the same pytree "
                            f"structure, got {first.out_tree} and {region.out_tree}")
        if not all(_map(_same_type, first.out_avals, region.out_avals)):
            raise TypeError(f"lax.{what}: {names[0]} and {name} output must have identical types, "
                            f"got {_types(first.out_avals)} and {_types(region.out_avals)}")
    out_avals = [ShapedArray(a.shape, a.dtype, all(r.out_avals[i].weak_type for r in regions))
                 for i, a in enumerate(first.out_avals)]
    captured = _union_captures(regions)
    arg_types = _arg_types(in_avals)
    # Refs any branch writes: extra results, each branch's last value (its
    # captured value where the branch leaves the Ref alone)
    written = list({id(ref): ref for region in regions for ref, _ in region.ref_writes}.values())
    position = {id(c): len(in_avals) + i for i, c in enumerate(captured)}

    def yielding_refs(region: TracedRegion) -> Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]]:
        last = {id(ref): value for ref, value in region.ref_writes}
        return lambda outs, args: outs + [last.get(id(ref), args[position[id(ref)]]) for ref in written]

    def fill(op: Any) -> None:
        for k, branch in enumerate(region_order):
            regions[branch].move_into(op.regions[k], arg_types, captured,
                                      yield_values=yielding_refs(regions[branch]))

    outs = _emit(lambda values, types: jd.CondOp(types, values[0], values[1:], len(regions)),
                 [index, *leaves, *captured], out_avals + [ref.aval for ref in written], fill)
    _write_refs(written, outs[len(out_avals):])
    return tree_util.tree_unflatten(first.out_tree, outs[:len(out_avals)])


def _no_consumed_keys(carry: Any, what: str) -> Any:
    """Under jax_debug_key_reuse: a loop body that hands a key it consumed
    on to the next iteration consumes it again there (JAX's KeyReuseError)."""
    if _config.config.jax_debug_key_reuse:
        for leaf in tree_util.tree_leaves(carry, is_leaf=lambda x: hasattr(x, "_consumed")):
            consumed = getattr(leaf, "_consumed", None)
            if consumed is not None and consumed.any():
                raise core.KeyReuseError(f"{what} leads to key reuse when repeatedly executed: it returns, "
                                         "as the next carry, a key it consumed")
    return carry


def _write_refs(refs: Sequence[Any], values: Sequence[Any]) -> None:
    """Each Ref's value after the op: its result (the op carried it)."""
    for ref, value in zip(refs, values):
        ref._write(value)


def _carried_refs(region: TracedRegion, captured: Sequence[Any]) -> dict[int, ir.Value]:
    """Position among `captured` -> the region's last value, for each Ref
    made outside that the loop body writes (a carry, not a constant)."""
    last = {id(ref): value for ref, value in region.ref_writes}
    return {i: last[id(c)] for i, c in enumerate(captured) if id(c) in last}


# ---------------------------------------------------------------------------
# Loop carries
# ---------------------------------------------------------------------------

def _trace_carry(what: str, fun_name: str, init: list[Any], in_tree: Any,
                 trace: Callable[[list[ShapedArray]], tuple[TracedRegion, Any, list[ShapedArray]]]
                 ) -> tuple[list[Any], TracedRegion, list[ShapedArray]]:
    """Trace a loop body whose carry starts at `init` (leaves, structure
    `in_tree`); `trace(carry avals)` returns (region, carry output structure,
    carry output avals). As in JAX, a weakly typed init leaf that the body
    turns into another dtype (``0`` carried through ``x + 0.5``) is promoted
    and the body traced again. Returns (init, region, carry output avals)."""
    region, out_tree, out_avals = trace([x.aval for x in init])
    if out_tree != in_tree:
        raise TypeError(f"lax.{what}: {fun_name} carry output must have the same pytree structure "
                        f"as the carry input, got {out_tree} for the output and {in_tree} for the input")
    promoted = [lax.convert_element_type(x, dtypes.promote((x.dtype, True), (out.dtype, out.weak_type))[0])
                if x.weak_type and x.shape == out.shape and x.dtype != out.dtype else x
                for x, out in zip(init, out_avals)]
    if any(p is not x for p, x in zip(promoted, init)):
        init = promoted
        region, _, out_avals = trace([x.aval for x in init])
    in_avals = [x.aval for x in init]
    if not all(_map(_same_type, in_avals, out_avals)):
        raise TypeError(f"lax.{what}: {fun_name} carry output must have the same types as the carry "
                        f"input, got {_types(out_avals)} for the output and {_types(in_avals)} for "
                        "the input")
    return init, region, out_avals


def _carry_result_avals(init: Sequence[Any], out_avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    """The final carry: the init's types, weak only if the body kept it weak."""
    return [ShapedArray(x.shape, x.dtype, x.weak_type and out.weak_type) for x, out in zip(init, out_avals)]


# ---------------------------------------------------------------------------
# while_loop and fori_loop
# ---------------------------------------------------------------------------

def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """``val = init_val; while cond_fun(val): val = body_fun(val)``; returns
    `val`. `cond_fun` returns a boolean scalar; `body_fun` returns a value of
    the type of `init_val`."""
    _check_callable("while_loop", cond_fun=cond_fun, body_fun=body_fun)
    if core.current_scope() is None:
        return _compiled("while_loop", lambda init: while_loop(cond_fun, body_fun, init), init_val)
    if (out := _hooked("while_loop", cond_fun, body_fun, init_val)) is not NotImplemented:
        return out
    init, in_tree = _leaves(init_val, "while_loop")
    n = len(init)

    def trace_body(avals: list[ShapedArray]) -> tuple[TracedRegion, Any, list[ShapedArray]]:
        region = core.trace_region(
            lambda *c: _no_consumed_keys(body_fun(tree_util.tree_unflatten(in_tree, c)), "while_loop body_fun"),
            avals, "lax.while_loop: body_fun", writes_refs=True, repeats=True)
        return region, region.out_tree, region.out_avals

    init, body, out_avals = _trace_carry("while_loop", "body_fun", init, in_tree, trace_body)
    carry_avals = [x.aval for x in init]
    cond_region = core.trace_region(lambda *c: cond_fun(tree_util.tree_unflatten(in_tree, c)),
                                    carry_avals, "lax.while_loop: cond_fun")
    pred = cond_region.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != dtypes.bool_ \
            or not cond_region.out_tree.is_leaf():
        got = _types(pred) if pred else str(cond_region.out_tree)
        raise TypeError(f"lax.while_loop: cond_fun must return a boolean scalar, got {got}")
    captured = _union_captures([cond_region, body])
    result_avals = _carry_result_avals(init, out_avals) + [c.aval for c in captured]
    arg_types = _arg_types(carry_avals)
    carried = _carried_refs(body, captured)

    def fill(op: Any) -> None:
        cond_region.move_into(op.regions[0], arg_types, captured)
        body.move_into(op.regions[1], arg_types, captured,
                       yield_values=lambda outs, args: outs + [carried.get(i, a) for i, a in enumerate(args[n:])])

    outs = _emit(lambda values, types: jd.WhileOp(types, values), [*init, *captured], result_avals, fill)
    _write_refs([captured[i] for i in carried], [outs[n + i] for i in carried])
    return tree_util.tree_unflatten(in_tree, outs[:n])


def _loop_bound(x: Any) -> int | None:
    """A fori_loop bound as a Python int, or None when it is not concrete
    (a tracer raises ConcretizationTypeError, a TypeError)."""
    try:
        return operator.index(x)
    except TypeError:
        return None


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *, unroll: Any = None) -> Any:
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``.
    Concrete bounds give a `scan` with a static trip count (reverse-mode
    differentiable); traced bounds a `while_loop`. `unroll` is accepted and
    ignored."""
    _check_callable("fori_loop", body_fun=body_fun)
    typed = []
    for name, bound in (("lower", lower), ("upper", upper)):
        dtype, weak = dtypes.dtype_and_weak(bound)
        if np.shape(bound) != () or not dtypes.is_int(dtype):
            raise TypeError(f"lax.fori_loop: {name} must be an integer scalar, got "
                            f"{ShapedArray(np.shape(bound), dtype).str_short()}")
        typed.append((dtype, weak))
    dtype, weak = dtypes.promote(*typed)
    lo, hi = _loop_bound(lower), _loop_bound(upper)
    if lo is not None and hi is not None:
        def step(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], None]:
            i, val = carry
            return (lax.add(i, 1), body_fun(i, val)), None

        start = lax.constant(lo, dtype, weak_type=weak)
        (_, result), _ = scan(step, (start, init_val), None, length=max(hi - lo, 0))
        return result

    lower_arr = lax.convert_element_type(core.as_operand(lower, "lax.fori_loop"), dtype, weak)
    upper_arr = lax.convert_element_type(core.as_operand(upper, "lax.fori_loop"), dtype, weak)

    def keep_going(carry: tuple[Any, Any, Any]) -> Any:
        i, stop, _ = carry
        return lax.lt(i, stop)

    def step_while(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        i, stop, val = carry
        return lax.add(i, 1), stop, body_fun(i, val)

    return while_loop(keep_going, step_while, (lower_arr, upper_arr, init_val))[2]


# ---------------------------------------------------------------------------
# scan and map
# ---------------------------------------------------------------------------

def _scan_length(xs: Sequence[Any], length: Any) -> int:
    """The trip count: the common leading size of `xs`, which must agree
    with `length` when both are given."""
    if length is not None:
        try:
            length = operator.index(length)
        except TypeError:
            raise TypeError(f"lax.scan: length must be a Python int, got {type(length).__name__}") from None
        if length < 0:
            raise ValueError(f"lax.scan: length must be >= 0, got {length}")
    for x in xs:
        if x.ndim == 0:
            raise TypeError(f"lax.scan: xs leaves need a leading axis to scan over, got "
                            f"{x.aval.str_short()}")
    sizes = sorted({x.shape[0] for x in xs})
    if len(sizes) > 1:
        raise TypeError(f"lax.scan: xs leaves have different leading axis sizes "
                        f"{', '.join(_map(str, sizes))} ({_types([x.aval for x in xs])})")
    if sizes and length is not None and sizes[0] != length:
        raise TypeError(f"lax.scan: length {length} disagrees with the leading axis size "
                        f"{sizes[0]} of xs")
    if not sizes and length is None:
        raise ValueError("lax.scan: xs has no arrays to scan over, so length must be given")
    return sizes[0] if sizes else length


def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None, reverse: bool = False,
         unroll: Any = 1) -> tuple[Any, Any]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of `xs` (pytrees);
    returns the final carry and the ys stacked on a new leading axis. With
    ``xs=None``, `f` gets ``None`` and `length` gives the trip count; with
    `reverse`, iteration starts from the end (ys keep the xs order). `unroll`
    is accepted and ignored."""
    _check_callable("scan", f=f)
    if core.current_scope() is None:
        return _compiled("scan", lambda c, x: scan(f, c, x, length, reverse, unroll), init, xs)
    if (out := _hooked("scan", f, init, xs, length, reverse, unroll)) is not NotImplemented:
        return out
    carry, carry_tree = _leaves(init, "scan")
    x_leaves, x_tree = _leaves(xs, "scan")
    length = _scan_length(x_leaves, length)
    n_carry, n_xs = len(carry), len(x_leaves)
    slice_avals = [ShapedArray(x.shape[1:], x.dtype, x.weak_type) for x in x_leaves]

    def body(*args: Any) -> tuple[Any, Any]:
        c = tree_util.tree_unflatten(carry_tree, args[:n_carry])
        x = tree_util.tree_unflatten(x_tree, args[n_carry:])
        out = f(c, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"lax.scan: f must return a pair (carry, y), got {type(out).__name__}")
        _no_consumed_keys(out[0], "scan body function")
        return tuple(out)

    def trace_body(avals: list[ShapedArray]) -> tuple[TracedRegion, Any, list[ShapedArray]]:
        region = core.trace_region(body, avals + slice_avals, "lax.scan: f", writes_refs=True, repeats=True)
        return region, region.out_tree.children()[0], region.out_avals[:n_carry]

    carry, region, carry_out = _trace_carry("scan", "f", carry, carry_tree, trace_body)
    y_tree = region.out_tree.children()[1]
    y_avals = region.out_avals[n_carry:]
    captured = _union_captures([region])
    result_avals = (_carry_result_avals(carry, carry_out) + [c.aval for c in captured]
                    + [ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in y_avals])

    def make(values: list[ir.Value], types: list[ir.Type]) -> Any:
        n_init = n_carry + len(captured)
        return jd.ScanOp(types, values[:n_init], values[n_init:], length, reverse=True if reverse else None)

    carried = _carried_refs(region, captured)

    def fill(op: Any) -> None:
        # move_into puts the captured values last; the scan body wants them
        # among the carries (before the x slices), so the slice arguments are
        # re-added at the end and the originals erased.
        def yield_values(outs: list[ir.Value], args: list[ir.Value]) -> list[ir.Value]:
            kept = [carried.get(i, a) for i, a in enumerate(args[n_carry + n_xs:])]
            return outs[:n_carry] + kept + outs[n_carry:]
        region.move_into(op.regions[0], _arg_types([x.aval for x in carry] + slice_avals), captured,
                         yield_values=yield_values)
        block = op.regions[0].blocks[0]
        for _ in range(n_xs):
            old = block.arguments[n_carry]
            new = block.add_argument(old.type, ir.Location.unknown())
            old.replace_all_uses_with(new)
            block.erase_argument(n_carry)

    outs = _emit(make, [*carry, *captured, *x_leaves], result_avals, fill)
    _write_refs([captured[i] for i in carried], [outs[n_carry + i] for i in carried])
    final_carry = tree_util.tree_unflatten(carry_tree, outs[:n_carry])
    ys = tree_util.tree_unflatten(y_tree, outs[n_carry + len(captured):])
    return final_carry, ys


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:
    """``stack([f(x) for x in xs])`` over the leading axis of the pytree `xs`,
    as a `scan` without carry. With `batch_size`, as JAX: `vmap(f)` over
    chunks of that many elements, scanned, then `vmap(f)` of the remainder
    (``map(f, xs[:10], batch_size=4)``: a scan of 2 chunks of 4, then 2)."""
    _check_callable("map", f=f)
    if batch_size is None:
        _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
        return ys
    batch_size = operator.index(batch_size)
    if batch_size < 1:
        raise ValueError(f"lax.map: batch_size must be a positive integer, got {batch_size}")
    from .._batching import vmap
    leaves, tree = _leaves(xs, "map")
    length = _scan_length(leaves, None)
    chunks, rest = divmod(length, batch_size)
    whole = chunks * batch_size
    parts = []
    if chunks:
        batched = tree_util.tree_unflatten(
            tree, [lax.reshape(leaf[:whole], (chunks, batch_size, *leaf.shape[1:])) for leaf in leaves])
        _, ys = scan(lambda carry, x: (carry, vmap(f)(x)), (), batched)
        parts.append(tree_util.tree_map(lambda y: lax.reshape(y, (whole, *y.shape[2:])), ys))
    if rest or not chunks:
        parts.append(vmap(f)(tree_util.tree_unflatten(tree, [leaf[whole:] for leaf in leaves])))
    if len(parts) == 1:
        return parts[0]
    return tree_util.tree_map(lambda a, b: lax.concatenate([a, b], 0), *parts)
