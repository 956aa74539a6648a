"""`jaxc-infer-vma`: JAX's varying-manual-axes typing (`check_vma`) of a
shard_map body, made explicit in the IR.

Inside `jax.shard_map` every value is either the same on all devices of a
mesh axis (invariant) or may differ among them (varying): an argument varies
over the axes its in_spec names, `axis_index` over its axis, and an op's
result over every axis one of its operands varies over. JAX types this and
it changes the derivatives: where an invariant value meets a varying one, JAX
inserts `pvary`, whose transpose is a `psum`, and `psum` of a varying value
gives an invariant one whose transpose is a `pvary` (not a `psum`). So the
gradient of a replicated parameter sums every device's contribution.

The pass runs on each function carrying `jaxc.vma = {manual = [axes...],
args = [[axes of argument 0], ...]}` (shard_map sets it on its per-device
body) and, for the types of its values:

- inserts `jaxc.pvary` where an op reads an operand that varies over fewer
  axes than another operand (every operand of such an op then varies over
  the union), where a collective's operand is invariant over an axis it
  names, and where a branch, loop carry or derivative seed would otherwise
  differ from its counterpart;
- marks `psum`/`pmax`/`pmin` over manual axes `invariant`, and writes such
  a `pmean` as an invariant psum divided by the group size;
- specializes every function the body calls or names in a request (a nested
  `jit`, `grad`, `vmap`, custom rules) for the types of its operands: a copy
  that is rewritten the same way, so a function used elsewhere keeps its
  meaning.

Loop carries take the union of what they start and what the body makes
(a fixpoint). A cond's predicate does not make its results vary, as in JAX.
`varying_results(fn)` gives each result's axes, which shard_map checks
against its `out_specs`.

    func.func private @body(%a: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32>
        attributes {jaxc.vma = {args = [["i"], []], manual = ["i"], sizes = [4]}} {
      %p = jaxc.mul %a, %w : tensor<2xf32>
      %s = jaxc.psum %p, axes = ["i"] : tensor<2xf32>
      return %s : tensor<2xf32>
    }
  ->
      %v = jaxc.pvary %w, axes = ["i"] : tensor<2xf32>
      %p = jaxc.mul %a, %v : tensor<2xf32>
      %s = jaxc.psum %p, axes = ["i"] invariant : tensor<2xf32>
"""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import (
    CALLERS,
    RuleError,
    functions,
    module_of,
    ops_named,
    reaching,
    referenced,
    symbol_name,
    symbol_names,
    unique_name,
)
from .registry import register_pass

VMA_ATTR = "jaxc.vma"  # on a shard_map body: {manual = [...], args = [[...], ...]}
RESULTS_ATTR = "jaxc.vma_results"  # left on a rewritten body: each result's axes

Vma = frozenset  # the manual axes a value varies over

_REDUCTIONS = frozenset({"jaxc.psum", "jaxc.pmean", "jaxc.pmax", "jaxc.pmin"})
_VARYING_COLLECTIVES = frozenset({"jaxc.all_gather", "jaxc.all_to_all", "jaxc.ppermute"})


def _names(attr: ir.Attribute) -> list[str]:
    return [ir.StringAttr(a).value for a in ir.ArrayAttr(attr)]


def _axes_attr(names: Sequence[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.StringAttr.get(n) for n in names])


def _union(vmas: Sequence[Vma]) -> Vma:
    return Vma().union(*vmas)


class _Typing:
    """The vma of every value of the functions it walks, in one module;
    `rewrite` makes the types explicit (pvary, invariant reductions,
    specialized callees), else it only computes them (loop fixpoints)."""

    def __init__(self, module: ir.Operation, manual: Sequence[tuple[str, int]]) -> None:
        self.module = module
        self.manual = [name for name, _ in manual]  # mesh order: pvary names axes in this order
        self.sizes = dict(manual)
        self.funcs = functions(module)
        self.taken = symbol_names(module)
        self.specialized: dict[tuple[str, tuple[Vma, ...]], tuple[str, list[Vma]]] = {}
        self.computed: dict[tuple[str, tuple[Vma, ...]], list[Vma]] = {}
        self.active: set[tuple[str, tuple[Vma, ...]]] = set()
        self.yields: dict[tuple[ir.Block, tuple[Vma, ...]], list[Vma]] = {}  # `_block_vmas`

    # -- values ------------------------------------------------------------
    def _manual(self, names: Sequence[str]) -> Vma:
        return Vma(n for n in names if n in self.manual)

    def _ordered(self, axes: Vma) -> list[str]:
        return [n for n in self.manual if n in axes]

    def _vary(self, value: ir.Value, has: Vma, wanted: Vma, before: ir.Operation) -> ir.Value:
        """`value` (varying over `has`) as varying over `wanted` too."""
        missing = wanted - has
        if not missing:
            return value
        with ir.InsertionPoint(before), before.location:
            return ir.Operation.create("jaxc.pvary", results=[value.type], operands=[value],
                                       attributes={"axes": _axes_attr(self._ordered(missing))}).result

    def _vary_operands(self, op: ir.Operation, types: dict, wanted: Sequence[Vma], rewrite: bool,
                       first: int = 0) -> None:
        """With `rewrite`, operands `first`... of `op` made to vary over
        `wanted` (a pvary for each that varies over fewer axes)."""
        if not rewrite:
            return
        for k, want in enumerate(wanted):
            i = first + k
            has = types.get(op.operands[i], Vma())
            if not want <= has:
                varied = self._vary(op.operands[i], has, want, op)
                op.operands[i] = varied
                types[varied] = has | want

    # -- blocks and functions ---------------------------------------------
    def block(self, block: ir.Block, arg_vmas: Sequence[Vma], rewrite: bool) -> list[Vma]:
        """The vmas of what `block`'s terminator returns."""
        types: dict = {arg: vma for arg, vma in zip(block.arguments, arg_vmas)}
        for view in list(block.operations):
            op = view.operation
            rule = _RULES.get(op.name, _elementwise)
            if op.name in ("func.return", "jaxc.yield"):
                return [types.get(v, Vma()) for v in op.operands]
            results = list(op.results)
            out = rule(self, op, types, rewrite)  # [] where the rule replaced the op
            for result, vma in zip(results, out):
                types[result] = vma
        return []

    def function(self, name: str, arg_vmas: Sequence[Vma], rewrite: bool) -> tuple[str, list[Vma]]:
        """@name typed for `arg_vmas`: (the name to call, its results' vmas).
        With `rewrite`, a specialized copy (made once per argument types)."""
        key = (name, tuple(arg_vmas))
        fn = self.funcs.get(name)
        if fn is None or not fn.regions[0].blocks:
            raise RuleError(fn or self.module, f"jaxc-infer-vma: no body for the function @{name}")
        if key in self.active:  # recursion: every input reaches every result
            n = len(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).results)
            return name, [_union(arg_vmas)] * n
        if rewrite and key in self.specialized:
            return self.specialized[key]
        if not rewrite and key in self.computed:
            return name, self.computed[key]
        self.active.add(key)
        try:
            if rewrite:
                copy = fn.clone(ip=ir.InsertionPoint.after(fn))
                new_name = unique_name(f"{name}_vma", self.taken)
                self.taken.add(new_name)
                copy.attributes["sym_name"] = ir.StringAttr.get(new_name)
                copy.attributes["sym_visibility"] = ir.StringAttr.get("private")
                self.funcs[new_name] = copy
                out = self.block(copy.regions[0].blocks[0], arg_vmas, True)
                self.specialized[key] = (new_name, out)
                return new_name, out
            out = self.block(fn.regions[0].blocks[0], arg_vmas, False)
            self.computed[key] = out
            return name, out
        finally:
            self.active.discard(key)


# ---------------------------------------------------------------------------
# Rules: op -> the vmas of its results (rewriting the op when asked)
# ---------------------------------------------------------------------------

def _elementwise(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Any op without a rule: every result varies over every axis any
    operand does; operands varying over fewer get a pvary (JAX's implicit
    pvary). An op with regions is taken as a whole."""
    vmas = [types.get(v, Vma()) for v in op.operands]
    out = _union(vmas)
    if len(set(vmas)) > 1:
        t._vary_operands(op, types, [out] * len(vmas), rewrite)
    return [out] * len(op.results)


def _per_operand(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Result i is operand i (optimization_barrier)."""
    return [types.get(v, Vma()) for v in op.operands]


def _pvary(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    return [types.get(op.operands[0], Vma()) | t._manual(_names(op.attributes["axes"]))]


def _reduction(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """psum and friends: varying over their axes in, invariant over them out.
    A pmean over manual axes only becomes an invariant psum divided by the
    group size (the transpose of an invariant psum is a pvary)."""
    names = _names(op.attributes["axes"])
    axes = t._manual(names)
    has = types.get(op.operands[0], Vma())
    if axes:
        t._vary_operands(op, types, [has | axes], rewrite)
        if rewrite and op.name == "jaxc.pmean" and len(axes) == len(names):
            _mean_as_sum(t, op, types, has - axes)
            return []
        if rewrite and op.name != "jaxc.pmean":
            op.attributes["invariant"] = ir.UnitAttr.get()
    return [has - axes]


def _mean_as_sum(t: _Typing, op: ir.Operation, types: dict, out: Vma) -> None:
    """Replace the pmean `op` by an invariant psum divided by the group size."""
    size = 1
    for name in _names(op.attributes["axes"]):
        size *= t.sizes[name]
    type_ = op.results[0].type
    element = ir.RankedTensorType(type_).element_type
    with ir.InsertionPoint(op), op.location:
        total = ir.Operation.create("jaxc.psum", results=[type_], operands=[op.operands[0]],
                                    attributes={"axes": op.attributes["axes"],
                                                "invariant": ir.UnitAttr.get()}).result
        count = ir.Operation.create("jaxc.constant", results=[type_], attributes={
            "value": ir.DenseElementsAttr.get_splat(type_, ir.FloatAttr.get(element, float(size)))}).result
        mean = ir.Operation.create("jaxc.div", results=[type_], operands=[total, count]).result
    op.results[0].replace_all_uses_with(mean)
    op.erase()
    types.update({total: out, count: Vma(), mean: out})


def _varying_collective(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """all_gather, all_to_all, ppermute: varying in and out."""
    axes = t._manual(_names(op.attributes["axes"]))
    want = types.get(op.operands[0], Vma()) | axes
    t._vary_operands(op, types, [want], rewrite)
    return [want]


def _all_gather(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Varying in; out varying too, or invariant over its axes when marked
    `invariant` (all_gather_invariant)."""
    (want,) = _varying_collective(t, op, types, rewrite)
    if "invariant" in op.attributes:
        return [want - t._manual(_names(op.attributes["axes"]))]
    return [want]


def _axis_index(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    return [t._manual([ir.StringAttr(op.attributes["axis_name"]).value])]


def _join_yields(t: _Typing, block: ir.Block, has: Sequence[Vma], outs: Sequence[Vma]) -> None:
    """Make what `block` yields (varying over `has`) vary over `outs`."""
    terminator = block.operations[len(block.operations) - 1].operation
    t._vary_operands(terminator, dict(zip(terminator.operands, has)), outs, rewrite=True)


def _block_vmas(t: _Typing, block: ir.Block, arg_vmas: Sequence[Vma]) -> list[Vma]:
    """What a region yields for these argument types, computed once per
    (block, types): nested loops would otherwise repeat their inner
    fixpoints at every outer iteration (exponential in the depth)."""
    key = (block, tuple(arg_vmas))
    if key not in t.yields:
        t.yields[key] = t.block(block, arg_vmas, rewrite=False)
    return t.yields[key]


def _cond(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    args = [types.get(v, Vma()) for v in list(op.operands)[1:]]
    branches = [region.blocks[0] for region in op.regions]
    per_branch = [_block_vmas(t, b, args) for b in branches]
    outs = [_union(vs) for vs in zip(*per_branch)] if per_branch else []
    if rewrite:
        for b in branches:
            _join_yields(t, b, t.block(b, args, rewrite=True), outs)
    return outs


def _fixpoint(t: _Typing, body: ir.Block, carry: list[Vma], n_carry: int, extra: list[Vma]) -> list[Vma]:
    """Carry vmas that the body keeps: start, then add what it makes."""
    while True:
        out = _block_vmas(t, body, carry + extra)
        grown = [c | o for c, o in zip(carry, out[:n_carry])]
        if grown == carry:
            return carry
        carry = grown


def _while(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    init = [types.get(v, Vma()) for v in op.operands]
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    carry = _fixpoint(t, body, init, len(init), [])
    if rewrite:
        t._vary_operands(op, types, carry, rewrite)
        t.block(cond, carry, rewrite=True)
        _join_yields(t, body, t.block(body, carry, rewrite=True), carry)
    return carry


def _scan(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Operands: carries then xs; the body takes carries then x slices and
    yields carries then y slices; results: carries then ys."""
    body = op.regions[0].blocks[0]
    n_carry = _segments(op)[0]
    operands = [types.get(v, Vma()) for v in op.operands]
    xs = operands[n_carry:]
    carry = _fixpoint(t, body, operands[:n_carry], n_carry, xs)
    ys = _block_vmas(t, body, carry + xs)[n_carry:]
    if rewrite:
        t._vary_operands(op, types, carry, rewrite)
        _join_yields(t, body, t.block(body, carry + xs, rewrite=True), carry + ys)
    return carry + ys


def _callee(op: ir.Operation, attr: str = "callee") -> str:
    return ir.FlatSymbolRefAttr(op.attributes[attr]).value


def _set_callee(op: ir.Operation, name: str, attr: str = "callee") -> None:
    op.attributes[attr] = ir.FlatSymbolRefAttr.get(name)


def _call(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """func.call, jaxc.vmap, jaxc.remat: the callee typed for the operands."""
    args = [types.get(v, Vma()) for v in op.operands]
    name, outs = t.function(_callee(op), args, rewrite)
    if rewrite:
        _set_callee(op, name)
    return outs


def _segments(op: ir.Operation) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


def _request(t: _Typing, op: ir.Operation, types: dict, rewrite: bool,
             seeds_outputs: bool) -> tuple[list[Vma], list[Vma]]:
    """A jvp/vjp request: the callee typed for the primals (the first
    operand segment); the tangents or cotangents (the second) made to vary
    as the primals they perturb or the outputs they seed. (The primals',
    the outputs' vmas.)"""
    n = _segments(op)[0]
    primals = [types.get(v, Vma()) for v in list(op.operands)[:n]]
    name, outs = t.function(_callee(op), primals, rewrite)
    t._vary_operands(op, types, outs if seeds_outputs else primals, rewrite, first=n)
    if rewrite:
        _set_callee(op, name)
    return primals, outs


def _jvp(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Output tangents vary as the outputs."""
    _, outs = _request(t, op, types, rewrite, seeds_outputs=False)
    return outs + outs


def _vjp(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Input cotangents vary as their primals (the transposes of the
    callee's pvarys sum the rest)."""
    primals, outs = _request(t, op, types, rewrite, seeds_outputs=True)
    return outs + primals


def _custom_jvp(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    args = [types.get(v, Vma()) for v in op.operands]
    name, outs = t.function(_callee(op), args, rewrite)
    rule, _ = t.function(_callee(op, "jvp"), args + args, rewrite)
    if rewrite:
        _set_callee(op, name)
        _set_callee(op, rule, "jvp")
    return outs


def _custom_vjp(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    args = [types.get(v, Vma()) for v in op.operands]
    name, outs = t.function(_callee(op), args, rewrite)
    fwd, fwd_outs = t.function(_callee(op, "fwd"), args, rewrite)
    residuals = fwd_outs[len(outs):]
    bwd, _ = t.function(_callee(op, "bwd"), residuals + outs, rewrite)
    if rewrite:
        _set_callee(op, name)
        _set_callee(op, fwd, "fwd")
        _set_callee(op, bwd, "bwd")
    return outs


_RULES: dict[str, Callable[[_Typing, ir.Operation, dict, bool], list[Vma]]] = {
    "jaxc.pvary": _pvary,
    "jaxc.axis_index": _axis_index,
    "jaxc.optimization_barrier": _per_operand,
    "jaxc.cond": _cond,
    "jaxc.while": _while,
    "jaxc.scan": _scan,
    "func.call": _call,
    "jaxc.vmap": _call,
    "jaxc.remat": _call,
    "jaxc.jvp": _jvp,
    "jaxc.vjp": _vjp,
    "jaxc.custom_jvp_call": _custom_jvp,
    "jaxc.custom_vjp_call": _custom_vjp,
    **{name: _reduction for name in _REDUCTIONS},
    **{name: _varying_collective for name in _VARYING_COLLECTIVES},
    "jaxc.all_gather": _all_gather,
}


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------

def mark(fn: ir.Operation, manual: Sequence[tuple[str, int]], arg_axes: Sequence[Sequence[str]]) -> None:
    """Give a shard_map body its `jaxc.vma` attribute: the manual axes
    (name, size) in mesh order and each argument's varying axes."""
    i64 = ir.IntegerType.get_signless(64)
    fn.attributes[VMA_ATTR] = ir.DictAttr.get({
        "manual": _axes_attr([n for n, _ in manual]),
        "sizes": ir.ArrayAttr.get([ir.IntegerAttr.get(i64, s) for _, s in manual]),
        "args": ir.ArrayAttr.get([_axes_attr(a) for a in arg_axes])})


def infer(fn: ir.Operation) -> list[list[str]]:
    """Rewrite the marked function `fn` (see the module docstring); each
    result's axes, in mesh order. The attribute goes; `jaxc.vma_results`
    records the result axes."""
    spec = ir.DictAttr(fn.attributes[VMA_ATTR])
    names = _names(spec["manual"])
    sizes = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(spec["sizes"])] if "sizes" in spec else []
    if len(sizes) != len(names):
        raise RuleError(fn, f"jaxc-infer-vma: {VMA_ATTR} needs one size per manual axis ({names})")
    manual = list(zip(names, sizes))
    arg_axes = [Vma(_names(a)) for a in ir.ArrayAttr(spec["args"])]
    block = fn.regions[0].blocks[0]
    if len(arg_axes) != len(block.arguments):
        raise RuleError(fn, f"jaxc-infer-vma: {VMA_ATTR} lists {len(arg_axes)} arguments, "
                            f"@{symbol_name(fn)} takes {len(block.arguments)}")
    typing = _Typing(module_of(fn), manual)
    unknown = sorted(set().union(*arg_axes) - set(names)) if arg_axes else []
    if unknown:
        raise RuleError(fn, f"jaxc-infer-vma: argument axes {unknown} are not manual axes {names}")
    outs = typing.block(block, arg_axes, rewrite=True)
    del fn.attributes[VMA_ATTR]
    result = [typing._ordered(v) for v in outs]
    fn.attributes[RESULTS_ATTR] = ir.ArrayAttr.get([_axes_attr(a) for a in result])
    return result


def expand_requests_first(fn: ir.Operation, manual: Sequence[tuple[str, int]]) -> None:
    """Expand the jvp/vjp (and vmap) requests that the typed function `fn`
    reaches, now: a shard_map body inside a trace is mapped over its mesh
    axes by vmap requests, and `jaxc-batch` runs before `jaxc-autodiff`,
    which would differentiate the batched body (vmap of grad: per-device
    cotangents of replicated values) where JAX differentiates the
    per-device program (their sum). `fn` and the functions it reaches are
    transformed in a module of their own whose `jaxc.spmd_axes` binds the
    mesh axes, and come back under fresh names (`fn` keeps its own)."""
    from .lowering.collectives import SPMD_AXES
    from .stages import run_stages

    module = module_of(fn)
    funcs = functions(module)
    name = symbol_name(fn)
    if not reaching(funcs, ("jaxc.jvp", "jaxc.vjp")).get(name, False):
        return
    needed, todo = [name], [name]
    while todo:
        for o in ops_named(funcs[todo.pop()], CALLERS):
            for callee in referenced(o):
                if callee not in needed:
                    needed.append(callee)
                    todo.append(callee)
    i64 = ir.IntegerType.get_signless(64)
    with fn.location:
        own = ir.Module.create()
    own.operation.attributes[SPMD_AXES] = ir.ArrayAttr.get([
        ir.ArrayAttr.get([ir.StringAttr.get(n), ir.IntegerAttr.get(i64, s)]) for n, s in manual])
    with ir.InsertionPoint(own.body):
        for callee in needed:
            funcs[callee].clone()
    del functions(own.operation)[name].attributes["sym_visibility"]  # public: kept
    run_stages(own, "transformed", first="traced")
    taken = symbol_names(module)
    for old, g in functions(own.operation).items():
        if old != name:
            new = unique_name(old, taken)
            taken.add(new)
            ir.SymbolTable.replace_all_symbol_uses(old, new, own.operation)
            g.attributes["sym_name"] = ir.StringAttr.get(new)
    anchor = fn
    for g in functions(own.operation).values():
        anchor = g.clone(ip=ir.InsertionPoint.after(anchor))
        anchor.attributes["sym_visibility"] = ir.StringAttr.get("private")
    fn.erase()


@register_pass("jaxc-infer-vma",
               "make JAX's varying-manual-axes types of shard_map bodies explicit: pvary where "
               "invariant meets varying, invariant psums, callees specialized")
def infer_vma(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context, op.location:
        try:
            for fn in [f for f in functions(op).values() if VMA_ATTR in f.attributes]:
                infer(fn)
        except RuleError as error:
            error.op.location.emit_error(str(error))
            pass_.signal_pass_failure()
