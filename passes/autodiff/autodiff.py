"""`jaxc-autodiff`: replace every `jaxc.jvp` / `jaxc.vjp` request by the
body of a derived function, innermost first, until none is left; then
inline the remaining `custom_jvp_call` / `custom_vjp_call` / `remat`
(outside any derivative they are plain calls).

    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.mul %x, %x : tensor<f32>
      return %0 : tensor<f32>
    }
    func.func @g(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
      %y, %dx = jaxc.vjp @f(%x) cotangents(%ct) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      return %dx : tensor<f32>
    }
  -> (after jaxc-cleanup)
    func.func @g(%x: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
      %0 = jaxc.mul %ct, %x : tensor<f32>
      %1 = jaxc.add %0, %0 : tensor<f32>
      return %1 : tensor<f32>
    }

A request is ready when its callee reaches no request (through calls,
requests and custom rules); expanding it derives `@f_jvp` / `@f_vjp` once
per callee (kept as private functions, removed by symbol DCE once unused)
and inlines it at the request. Derived functions may hold new requests
(a cond's adjoint differentiates each branch), which later rounds expand.
"""
from __future__ import annotations

from collections import Counter
from contextlib import AbstractContextManager, nullcontext

from mlir import ir
from mlir.passmanager import ExternalPass, PassManager

from ..ir import CALLERS, RuleError, functions, inline_body, inline_call, ops_named, referenced
from ..registry import register_pass

REQUESTS = ("jaxc.jvp", "jaxc.vjp")
CUSTOM_CALLS = ("jaxc.custom_jvp_call", "jaxc.custom_vjp_call", "jaxc.remat")
_NAMING = frozenset(CALLERS + REQUESTS)  # ops whose attributes name functions


@register_pass("jaxc-autodiff", "expand jaxc.jvp and jaxc.vjp requests into derivative code")
def autodiff(op: ir.Operation, pass_: ExternalPass, *, max_rounds: int = 100_000) -> None:
    """`max_rounds`: a safety net against rules that keep making requests
    (a round per level of nested control flow under a derivative: grad of
    300 nested conds takes 300; each round costs only what it builds)."""
    with op.context, op.location:
        _run(op, pass_, max_rounds)


def _derivers() -> dict:
    """request op -> the function deriving its callee (loads the rule tables)."""
    from . import callbacks, collectives, control_flow, elementwise, linalg, reductions, remat, structural, windowed  # noqa: F401  fill the tables
    from .jvp import derive_jvp
    from .vjp import derive_vjp
    return {"jaxc.jvp": derive_jvp, "jaxc.vjp": derive_vjp}


def _run(op: ir.Operation, pass_: ExternalPass, max_rounds: int) -> None:
    try:
        requests = _Requests(op)
        for _ in range(max_rounds):
            if not requests.expand_ready():
                break
        else:
            op.location.emit_error(f"jaxc-autodiff: requests remain after {max_rounds} rounds")
            pass_.signal_pass_failure()
            return
        _inline_custom_calls(op)
    except RuleError as error:
        error.op.location.emit_error(str(error))
        pass_.signal_pass_failure()


class _Requests:
    """The module's requests, and per function what its body names.

    The module is walked once; afterwards only what a round adds is walked
    (the ops inlined at a request, the functions rules create), and what a
    round leaves unused is erased at once: derived functions once inlined,
    functions the pass created (outlined regions) once nothing names them.
    A request whose primal results are unused (a cond's adjoint recomputes
    its branch only for the cotangents) gets a derived function without them,
    canonicalized before it is inlined, so dead forward code is not copied
    level after level. A function the pass made that only this round's
    requests of one derivation name gives its regions to the functions its
    rules outline (no copy), and what they get is not walked when it named
    no function. So a round costs what it builds: N nested conds under grad
    take N rounds, and walking the whole module in each made the pass cubic
    in N; copying and walking the nest below each level, quadratic (issue #20).
    """

    def __init__(self, module: ir.Operation) -> None:
        self.module = module
        self.funcs = functions(module)
        self.original = set(self.funcs)
        self.names: dict[str, Counter] = {}  # function -> what its ops name, with counts
        self.uses: Counter = Counter()  # function -> how often the walked functions name it
        self.count: dict[str, int] = {}  # function -> requests directly in it
        self.pending: list[tuple[ir.Operation, str]] = []  # (request, function holding it)
        self._trim: PassManager | None = None  # the pass manager that canonicalizes a trimmed derived function
        self._summarize_new()

    def _summarize_new(self) -> None:
        """Walk the functions not seen yet (new ones the rules created)."""
        for name, fn in self.funcs.items():
            if name not in self.names:
                self.names[name], self.count[name] = Counter(), 0
                self._add(name, [fn])

    def _add(self, name: str, roots) -> None:
        """Record the calls and requests under `roots`, which are in function `name`."""
        for root in roots:
            for found in ops_named(root, _NAMING):
                named = referenced(found)
                self.names[name].update(named)
                self.uses.update(named)
                if found.name in REQUESTS:
                    self.count[name] += 1
                    self.pending.append((found, name))

    def _reaching(self) -> set[str]:
        """The functions that hold a request, directly or through what they name."""
        callers: dict[str, list[str]] = {}
        for name, named in self.names.items():
            for callee, uses in named.items():
                if uses > 0:
                    callers.setdefault(callee, []).append(name)
        reach = {name for name, n in self.count.items() if n > 0}
        work = list(reach)
        while work:
            for caller in callers.get(work.pop(), ()):
                if caller not in reach:
                    reach.add(caller)
                    work.append(caller)
        return reach

    def expand_ready(self) -> bool:
        """One round: expand every request whose callee reaches no request;
        False when there was none at all."""
        if not self.pending:
            return False
        derive = _derivers()
        from .control_flow import taking_regions_of
        reach = self._reaching()
        ready: list[tuple[ir.Operation, str]] = []
        waiting: list[tuple[ir.Operation, str]] = []
        for entry in self.pending:
            (ready if not any(name in reach for name in referenced(entry[0])) else waiting).append(entry)
        if not ready:
            request = self.pending[0][0]
            raise RuleError(request, f"jaxc-autodiff: '{request.name}' cannot be expanded: its "
                            "callee is recursive or differentiates itself")
        self.pending = waiting
        keys = []
        for request, _ in ready:
            callee = referenced(request)[0]
            if callee not in self.funcs:
                raise RuleError(request, f"jaxc-autodiff: no function named @{callee}")
            n_out = len(ir.FunctionType(ir.TypeAttr(self.funcs[callee].attributes["function_type"]).value).results)
            skip = n_out if not any(_used(r) for r in list(request.results)[:n_out]) else 0
            keys.append((request.name, callee, skip))
        # a function this pass made, named only by requests of one key here, is erased after the
        # round: its derivation may take its regions (see taking_regions_of)
        derivations_of, requests_on = Counter(key[1] for key in set(keys)), Counter(key[1] for key in keys)
        takeable = {callee for callee in requests_on if callee not in self.original
                    and derivations_of[callee] == 1 and self.uses[callee] == requests_on[callee]}
        derived: dict[tuple[str, str, int], ir.Operation] = {}
        names_nothing: set[str] = set()  # functions made of regions of a callee that names no function
        expanded = set()
        for (request, holder), key in zip(ready, keys):
            _, callee, skip = key
            if key not in derived:
                # a vjp whose primal results are dropped need not compute what only they need
                unused = {"primal_results_unused": True} if skip and request.name == "jaxc.vjp" else {}
                taking: AbstractContextManager[list[str]] = nullcontext([])
                if callee in takeable:
                    taking = taking_regions_of(self.funcs[callee])
                with taking as taken:
                    name = derive[request.name](self.funcs[callee], **unused)
                if not +self.names[callee]:
                    names_nothing.update(taken)
                derived[key] = ir.SymbolTable(self.module)[name].operation
                if skip:
                    self._drop_results(derived[key], skip)
            named = referenced(request)
            self.names[holder].subtract(named)
            self.uses.subtract(named)
            self.count[holder] -= 1
            expanded.update(named)
            self._add(holder, inline_body(request, derived[key], first_result=skip))
        for fn in derived.values():  # inlined at every request that needed it
            fn.erase()
        self.funcs = functions(self.module)
        for name in names_nothing:  # what they hold came from a function that names nothing
            self.names[name], self.count[name] = Counter(), 0
        self._summarize_new()
        self._erase_unused(expanded)
        return True

    def _drop_results(self, fn: ir.Operation, n: int) -> None:
        """Make `fn` return all but its first `n` results, then canonicalize
        it (which erases what only those results needed)."""
        from mlir.dialects import func

        block = fn.regions[0].blocks[0]
        ret = block.operations[len(block.operations) - 1]
        kept = list(ret.operands)[n:]
        with ret.location, ir.InsertionPoint(ret):
            func.ReturnOp(kept)
        ret.erase()
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in kept]))
        if self._trim is None:
            self._trim = PassManager.parse("func.func(canonicalize)", self.module.context)
        self._trim.run(fn)
        from .vjp import erase_unused_forward_calls
        erase_unused_forward_calls(fn)

    def _erase_unused(self, candidates) -> None:
        """Erase the candidates (and then what they name) that this pass
        created and that nothing names any more."""
        work = list(candidates)
        while work:
            name = work.pop()
            if name in self.original or name not in self.funcs or self.uses[name] > 0:
                continue
            for callee, uses in self.names.pop(name).items():
                self.uses[callee] -= uses
                work.append(callee)
            self.count.pop(name)
            self.funcs.pop(name).erase()


def _used(value: ir.Value) -> bool:
    return any(True for _ in value.uses)


def _inline_custom_calls(module: ir.Operation) -> None:
    """Inline custom calls (their callees may hold more) until none is left."""
    calls = ops_named(module, CUSTOM_CALLS)
    while calls:
        funcs = functions(module)
        for call in calls:
            inline_call(call, funcs[referenced(call)[0]])
        calls = ops_named(module, CUSTOM_CALLS)
