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
  names, where a loop body yields a carry varying over fewer axes than it
  started with, and where a derivative seed would otherwise differ from its
  counterpart;
- raises JAX's errors (`VmaError`, at the op's location): a TypeError for a
  loop carry that the body makes vary over an axis its start does not, and
  for cond branches whose outputs vary differently; a ValueError for a
  `pvary` (`lax.pcast(..., to='varying')`) of a value already varying over
  one of its axes;
- replaces each `jaxc.select {jaxc.vma_like}` (`jnp.zeros_like(a)` and
  friends traced in a shard_map body: `select(true, fill, a)`) by its fill,
  typed as `a` is (JAX types `zeros_like(a)` as `a`);
- marks `psum`/`pmax`/`pmin` over manual axes `invariant`, and writes such
  a `pmean` as an invariant psum divided by the group size;
- specializes every function the body calls or names in a request (a nested
  `jit`, `grad`, `vmap`, custom rules) for the types of its operands: a copy
  that is rewritten the same way, so a function used elsewhere keeps its
  meaning.

A loop carry keeps the type it starts with; a cond's predicate does not
make its results vary, as in JAX.
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

import re
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
LIKE_ATTR = "jaxc.vma_like"  # on `select(true, fill, a)`: fill typed as `a` (zeros_like)
SCAN_VMA_DOC = ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma "
                "for more information.\n\n")


class VmaError(RuleError):
    """JAX's typing error for `op` (`kind`: TypeError or ValueError)."""

    def __init__(self, op: ir.Operation, kind: type, message: str) -> None:
        super().__init__(op, message)
        self.kind = kind


def source_line(op: ir.Operation) -> str:
    """`file:line` of `op`'s location (the user's line, for traced code)."""
    found = re.search(r'loc\("([^"]+)":(\d+):\d+', str(op.location))
    return f"{found.group(1)}:{found.group(2)}" if found else "<unknown>"


_ELEMENT_NAMES = {"i1": "bool", "bf16": "bfloat16", "complex<f32>": "complex64", "complex<f64>": "complex128"}
_PREFIXES = (("ui", "uint"), ("i", "int"), ("f", "float"))  # ui8 -> uint8, i32 -> int32, f32 -> float32
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
    specialized callees), else it only computes them (a region's yields)."""

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

    def type_str(self, type_: ir.Type, vma: Vma) -> str:
        """A value's type as JAX prints it: `float32[2,2]{V:(x,y)}`."""
        tensor = ir.RankedTensorType(type_)
        element = str(tensor.element_type)
        if element in _ELEMENT_NAMES:
            element = _ELEMENT_NAMES[element]
        else:
            short, long = next((p for p in _PREFIXES if element.startswith(p[0])), ("", ""))
            element = long + element[len(short):]
        axes = self._ordered(vma)
        varying = "" if not axes else "{V:" + (axes[0] if len(axes) == 1 else f"({','.join(axes)})") + "}"
        return f"{element}[{','.join(map(str, tensor.shape))}]{varying}"

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
    """JAX's ValueErrors for a value already varying over (some of) the axes."""
    has = types.get(op.operands[0], Vma())
    names = _names(op.attributes["axes"])
    axes = t._manual(names)
    if axes & has:
        value = t.type_str(op.operands[0].type, has)
        if axes <= has:
            raise VmaError(op, ValueError, "Unsupported pcast from=varying, to='varying'")
        raise VmaError(op, ValueError,
                       "jax.lax.pcast can only accept axis_name which corresponds to one of varying, unreduced, "
                       f"reduced or invarying state of the input. Got input type: {value}, axes: {tuple(names)} "
                       "and input state: {'invarying', 'varying'}")
    return [has | axes]


def _like(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """`select(true, fill, a)` marked `jaxc.vma_like`: the fill, typed as `a`;
    rewritten, the fill (with a pvary)."""
    pred, fill, like = op.operands
    want = types.get(like, Vma())
    if not rewrite:
        return [want]
    varied = t._vary(fill, types.get(fill, Vma()), want, op)
    op.results[0].replace_all_uses_with(varied)
    op.erase()
    if getattr(pred.owner, "name", None) == "jaxc.constant" and not list(pred.uses):
        pred.owner.erase()
    types[varied] = want
    return []


def _select(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    return (_like if LIKE_ATTR in op.attributes else _elementwise)(t, op, types, rewrite)


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
    (block, types): each nested region is typed before it is rewritten,
    so nested loops would otherwise walk their inner bodies once per level
    (exponential in the depth)."""
    key = (block, tuple(arg_vmas))
    if key not in t.yields:
        t.yields[key] = t.block(block, arg_vmas, rewrite=False)
    return t.yields[key]


def _cond(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Every branch must give each output the same type (JAX's TypeError)."""
    args = [types.get(v, Vma()) for v in list(op.operands)[1:]]
    branches = [region.blocks[0] for region in op.regions]
    per_branch = [_block_vmas(t, b, args) for b in branches]
    if not per_branch:
        return []
    for k, outs in enumerate(per_branch[1:], 1):
        if outs != per_branch[0]:
            raise VmaError(op, TypeError, _branch_message(t, op, branches, per_branch, k))
    if rewrite:
        for b in branches:
            t.block(b, args, rewrite=True)
    return per_branch[0]


def _branch_message(t: _Typing, op: ir.Operation, blocks: list[ir.Block], per_branch: list[list[Vma]],
                    k: int) -> str:
    """JAX's message for branches 0 and k of a cond whose outputs differ.
    Region 0 of a cond on a predicate is lax.cond's false_fun."""
    predicate = ir.RankedTensorType(op.operands[0].type).element_type == ir.IntegerType.get_signless(1)
    api = "cond" if predicate and len(blocks) == 2 else "switch"
    names = ["false_fun", "true_fun"] if api == "cond" else [f"branch {i}" for i in range(len(blocks))]
    first, other = (1, 0) if api == "cond" else (0, k)
    results = list(op.results)
    diffs, fixes = [], []
    for i, (a, b) in enumerate(zip(per_branch[first], per_branch[other])):
        if a == b:
            continue
        at = f" at output {i}" if len(results) > 1 else ""
        type_ = results[i].type
        diffs.append(f"the output of {names[first]}{at} has type {t.type_str(type_, a)} but the corresponding "
                     f"output of {names[other]} has type {t.type_str(type_, b)}, so the manual axis types "
                     "do not match")
        for name, has, want in ((names[first], a, b), (names[other], b, a)):
            if want - has:
                fixes.append(f"applying `jax.lax.pcast(..., {tuple(t._ordered(want - has))}, to='varying')` "
                             f"to the output of {name}{at}")
    return (f"{api} branches must have equal output types but they differ.\n\n"
            + _listed(diffs) + _fixed(fixes)
            + f"Revise {names[first]} and/or {names[other]} so that all output types match.")


def _listed(items: list[str]) -> str:
    if len(items) == 1:
        return items[0][0].upper() + items[0][1:] + ".\n\n"
    return "".join(f"  * {d};\n" for d in items[:-1]) + f"  * {items[-1]}.\n\n"


def _fixed(fixes: list[str]) -> str:
    if not fixes:
        return ""
    if len(fixes) == 1:
        return f"This might be fixed by {fixes[0]}.\n" + SCAN_VMA_DOC
    return ("This might be fixed by:\n" + "".join(f"  * {d};\n" for d in fixes[:-1])
            + f"  * {fixes[-1]}.\n" + SCAN_VMA_DOC)


def _check_carry(t: _Typing, op: ir.Operation, body: ir.Block, carry: list[Vma], out: list[Vma]) -> None:
    """A body that makes a carry vary over an axis its start does not: JAX's
    TypeError. (One that makes it vary over fewer is joined: jaxc's types
    are by data flow, so JAX's type of the yield may be wider.)"""
    api = "while_loop" if op.name == "jaxc.while" else "scan"
    diffs, fixes = [], []
    for k, (has, got) in enumerate(zip(carry, out)):
        if got <= has:
            continue
        type_ = body.arguments[k].type
        diffs.append(f"the input carry component {k} has type {t.type_str(type_, has)} but the corresponding "
                     f"output carry component has type {t.type_str(type_, got | has)}, so the manual axis "
                     "types do not match")
        fixes.append(f"applying `jax.lax.pcast(..., {tuple(t._ordered(got - has))}, to='varying')`, to the "
                     f"initial carry value corresponding to the input carry component {k}")
    if diffs:
        raise VmaError(op, TypeError,
                       f"{api} body function carry input and carry output must have equal types, but they "
                       "differ:\n\n" + _listed(diffs) + _fixed(fixes)
                       + "Revise the function so that all output types match the corresponding input types.")


def _while(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    carry = [types.get(v, Vma()) for v in op.operands]
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    _check_carry(t, op, body, carry, _block_vmas(t, body, carry))
    if rewrite:
        t.block(cond, carry, rewrite=True)
        _join_yields(t, body, t.block(body, carry, rewrite=True), carry)
    return carry


def _scan(t: _Typing, op: ir.Operation, types: dict, rewrite: bool) -> list[Vma]:
    """Operands: carries then xs; the body takes carries then x slices and
    yields carries then y slices; results: carries then ys."""
    body = op.regions[0].blocks[0]
    n_carry = _segments(op)[0]
    operands = [types.get(v, Vma()) for v in op.operands]
    carry = operands[:n_carry]
    out = _block_vmas(t, body, operands)
    _check_carry(t, op, body, carry, out[:n_carry])
    ys = out[n_carry:]
    if rewrite:
        _join_yields(t, body, t.block(body, operands, rewrite=True), carry + ys)
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
    "jaxc.select": _select,
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
