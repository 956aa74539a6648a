"""`jit`, `make_ir`, and moving arrays to devices.

`jit(f)` traces `f` once per signature into a `jaxc` module,

    func.func @f(%arg0: tensor<3xf32>) -> tensor<3xf32> {
      %0 = jaxc.sin %arg0 : tensor<3xf32> loc("model.py":4:11)
      return %0 : tensor<3xf32>
    }

compiles it through the stages of `jaxc.passes.stages`, and runs it on the
device's executor. The signature is the input pytree structure, each leaf's
aval (shape, dtype, weak type), the static arguments and the tracing context
(x64 and the options of `_config.TRACE_OPTIONS`, `dtypes.trace_context()`); a
second call with the same signature reuses the compiled function
(`f.trace_count`, `f._cache_size()` show it).

Fast path: a call with positional jaxc Arrays only, whose signature ran
before as a small program on the CPU, is handled by `_fastcall.JitCache`
(C): it compares the avals, checks that the inputs are ready and the device
idle, calls the compiled code and wraps the results as Arrays, all without
the Python path below. Anything else takes that path (docs/frontend.md).
"""
from __future__ import annotations

import functools
import inspect
import re
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Sequence

import mlir.ir as ir
import numpy as np
import optree
from mlir.dialects import func as func_d

from . import _config, core, dispatch, dtypes, monitoring, tree_util
from .array import Array
from .core import ArrayBase, ShapedArray
from .profiler import traces as _profile
from .runtime import _fastcall

# (leaves, treedef) of a call's positional arguments, for the fast path's pytree signatures.
_flatten_arguments: Callable[[Any], tuple[list[Any], optree.PyTreeSpec]] = functools.partial(
    optree.tree_flatten, none_is_leaf=False, namespace=tree_util.NAMESPACE)


# ---------------------------------------------------------------------------
# Tracing a function into a module
# ---------------------------------------------------------------------------

class Traced:
    """A function traced for one signature: the module (with its public
    function `name`), the output structure, the captured constants."""

    def __init__(self, module: ir.Module, name: str, out_tree: Any, out_avals: list[ShapedArray],
                 consts: list[Array], python_name: str | None = None, ref_outputs: Sequence[Any] = (),
                 ref_args: Sequence[int] = (), key_patterns: Sequence[tuple[int, Any]] = ()) -> None:
        self.module = module
        self.name = name
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.consts = consts  # closed-over Arrays, and Refs (read at each call)
        self.python_name = python_name  # the traced function's __name__, where there was one
        # after the results: the last values of the Refs the function wrote, each
        # an argument position (int) or a closed-over core.Ref
        self.ref_outputs = list(ref_outputs)
        self.ref_args = list(ref_args)  # the argument positions that are Refs
        # under jax_debug_key_reuse: (position among the argument keys, the keys the
        # function consumes) for each typed key argument it draws from
        self.key_patterns = list(key_patterns)
        # whether a run reads or writes Refs (`Compiled._run_with_refs`)
        self.uses_refs = bool(self.ref_outputs) or any(type(c) is core.Ref for c in consts)

    @property
    def label(self) -> str:
        """How errors name the function: ``jit(f)``."""
        return f"jit({self.name.removeprefix('jit_')})"

    def text(self, debug_info: bool = False) -> str:
        return self.module.operation.get_asm(enable_debug_info=debug_info)


def _symbol(fun: Callable) -> str:
    """The IR name of a jitted function: ``jit_`` + its Python name. The
    prefix keeps user names off C library symbols: a function named ``@sin``
    would capture the libm ``sin`` its own body calls (docs/toolchain.md)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", getattr(fun, "__name__", "fn"))
    return f"jit_{name}"


def trace_function(fun: Callable, flat_avals: Sequence[ShapedArray], rebuild: Callable[[list], Any],
                   name: str, values: Sequence[Any] | None = None) -> Traced:
    """Trace ``fun(*rebuild(tracers))`` into a new module; `rebuild` turns
    the flat list of argument tracers into (args, kwargs). `values`: the
    arguments' concrete values, which Python control flow on the tracers may
    then use (`core.concrete`)."""
    ctx = core.context()
    with ctx, ir.Location.unknown(ctx):
        module = ir.Module.create()
        arg_types = [core.ir_type(a.shape, a.dtype) for a in flat_avals]
        with ir.InsertionPoint(module.body):
            fn = func_d.FuncOp(name, ir.FunctionType.get(arg_types, []))
        block = fn.add_entry_block()
        scope = core.Scope(block, None, "function")
        with scope, ir.InsertionPoint(block):
            recipes = values if values is not None else [None] * len(flat_avals)
            tracers: list[Any] = [core.Tracer(scope, v, a, r)
                                  for v, a, r in zip(block.arguments, flat_avals, recipes)]
            ref_args = {}  # id of the Ref the function gets -> its argument position
            for i, a in enumerate(flat_avals):
                if isinstance(a, core.RefAval):
                    held = core.Tracer(scope, block.arguments[i], ShapedArray(a.shape, a.dtype, a.weak_type))
                    ref = tracers[i] = core.Ref(held, held.aval)
                    ref._home = None  # made outside: its writes are results
                    ref_args[id(ref)] = i
            args, kwargs = rebuild(tracers)
            out = tree_util._float0_as_nodes(fun(*args, **kwargs))  # float0 results: structure
            leaves, out_tree = tree_util.tree_flatten(out)
            out_tree = tree_util._jax_key_order(out_tree)  # dicts come back sorted, on every call path
            core.check_no_refs(leaves, f"function {getattr(fun, '__name__', name)} traced for jit")
            key_patterns = _key_patterns((args, kwargs)) if _config.config.jax_debug_key_reuse else []
            outs = [core.as_operand(leaf, f"the result of {name}") for leaf in leaves]
            values = [scope.value(x) for x in outs]
            written = core.finish_ref_writes(scope)
            ref_outputs = [ref_args.get(id(ref), ref) for ref, _ in written]
            with core.user_location():
                func_d.ReturnOp(values + [v for _, v in written])
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in values] + [v.type for _, v in written]))
    out_avals = [x.aval for x in outs]
    return Traced(module, name, out_tree, out_avals, list(scope.captured), getattr(fun, "__name__", None),
                  ref_outputs, sorted(ref_args.values()), key_patterns)


def _argument_keys(tree: Any) -> list[Any]:
    """The leaves of `tree` with typed key arrays as leaves."""
    from .random._keys import PRNGKeyArray
    return tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, PRNGKeyArray))


def _key_patterns(arguments: Any) -> list[tuple[int, Any]]:
    """What a trace consumed of its typed key arguments (`jax_debug_key_reuse`)."""
    from .random._keys import consumed_pattern
    found = [(i, consumed_pattern(leaf)) for i, leaf in enumerate(_argument_keys(arguments))]
    return [(i, pattern.copy()) for i, pattern in found if pattern is not None]


def _consume_keys(arguments: Any, patterns: list[tuple[int, Any]]) -> None:
    """A call consumes what its trace consumed of each key argument:
    KeyReuseError for a key consumed before."""
    from .random._keys import consume_pattern
    leaves = _argument_keys(arguments)
    for i, pattern in patterns:
        consume_pattern(leaves[i], pattern, i)


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

def _leaf_aval(x: Any) -> ShapedArray:
    if isinstance(x, ArrayBase):
        return x.aval
    if type(x) is core.Ref:
        return core.RefAval(x.aval.shape, x.aval.dtype, x.aval.weak_type)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), dtypes.canonicalize(x.dtype), False)
    if isinstance(x, (bool, int, float, complex)):
        dtype, weak = dtypes.scalar_dtype(x)
        return ShapedArray((), dtype, weak)
    if hasattr(x, "__jax_array__"):
        return _leaf_aval(x.__jax_array__())
    raise TypeError(f"argument of type {type(x).__name__} is not a valid jaxc type (arrays, NumPy "
                    "values, Python scalars, or pytrees of them; mark other arguments static)")


def _check_distinct_refs(leaves: Sequence[Any], name: str) -> None:
    """One Ref passed twice is JAX's ValueError (the function would see two
    names for one buffer)."""
    seen: dict[int, int] = {}
    for i, x in enumerate(leaves):
        if type(x) is core.Ref:
            if id(x) in seen:
                raise ValueError(f"only one reference to a mutable array may be passed as an argument to a "
                                 f"function, but when tracing {name.removeprefix('jit_')} for jit the mutable "
                                 f"array reference of type Ref{{{x.aval.str_short()}}} appeared at both "
                                 f"argument leaves {seen[id(x)]} and {i}.")
            seen[id(x)] = i


def _leaf_value(x: Any, aval: ShapedArray) -> Any:
    """What the executor receives for an argument leaf: an Array (maybe
    pending), a NumPy array of the aval's dtype, or a Ref (read at the run)."""
    if isinstance(x, (Array, core.Ref)):
        return x
    return np.asarray(x, dtype=aval.dtype)


class _Static:
    """A static argument in a cache key: hashed and compared by value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        try:
            hash(value)
        except TypeError as error:  # JAX's type and wording
            raise ValueError("Non-hashable static arguments are not supported. An error occurred "
                             f"while trying to hash an object of type {type(value)}, {value!r}. The "
                             f"error was:\nTypeError: {error}\n(use a tuple, not a list or array)") from None
        self.value = value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Static) and type(self.value) is type(other.value) and self.value == other.value


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

def compile_traced(traced: Traced) -> Any:
    """The CPU function of a traced module (logged as a compile); a compile
    error is a JaxcTypeError naming the traced function."""
    from jaxc.runtime import CompileError, compile_module

    from ._toplevel import log_compile
    log_compile(traced.label)
    try:
        fun_name = f"jit({traced.python_name})" if traced.python_name else traced.label  # JAX's name
        with monitoring.timed(monitoring.BACKEND_COMPILE_EVENT, fun_name=fun_name):
            executable = compile_module(traced.text(debug_info=True))
    except CompileError as error:
        raise core.JaxcTypeError(f"{traced.label}: cannot compile: {error}") from None
    return executable[traced.name]


def compiled_call_leaves(tree: Any, avals: Sequence[ShapedArray], args: tuple, kwargs: dict) -> list[Any]:
    """The argument leaves of a call of a `Compiled`, checked against the
    (dynamic) argument tree and types it was compiled for; JAX's TypeErrors
    where they differ."""
    leaves, called = tree_util.tree_flatten((args, kwargs))
    if called != tree:
        raise TypeError("Function compiled with input pytree does not match the input pytree it was called "
                        f"with: compiled for {tree_util.treedef_str(tree)}, called with "
                        f"{tree_util.treedef_str(called)} (pass only the dynamic arguments: the static "
                        "ones are part of the compiled program)")
    mismatches = []
    for (path, x), aval in zip(tree_util.tree_flatten_with_path((args, kwargs))[0], avals):
        got = x.aval if isinstance(x, ArrayBase) else _leaf_aval(x)
        if (got.shape, got.dtype) != (aval.shape, aval.dtype):
            name = ("args" if path[0].idx == 0 else "kwargs") + tree_util.keystr(path[1:])
            mismatches.append(f"Argument '{name}' compiled with {aval.str_short()} and "
                              f"called with {got.str_short()}")
    if mismatches:
        raise TypeError("Argument types differ from the types for which this computation was compiled. "
                        "The mismatches are:\n" + "\n".join(mismatches))
    return [_leaf_value(x, a) for x, a in zip(leaves, avals)]


class Compiled:
    """A function traced and compiled for one signature: call it with the
    same kind of arguments."""

    def __init__(self, traced: Traced, rule: "_SignatureRule | None" = None) -> None:
        self.traced = traced
        self._rule = rule
        self._key: Any = None
        self.function = compile_traced(traced)
        self._gpu_functions: dict[str | None, Any] = {}  # chip -> the program compiled for a GPU
        self.out_avals = traced.out_avals
        self._inline: bool | None = None  # small enough to run on the caller's thread (first run decides)
        self._fast_ok: bool | None = None  # may take the C fast path (JitFunction._add_fast decides)

    def run(self, leaves: Sequence[Any]) -> Any:
        traced = self.traced
        inputs = list(leaves) + traced.consts
        if traced.uses_refs:
            return self._run_with_refs(inputs)
        if self._inline is None:
            self._inline = dispatch.runs_inline(inputs, self.out_avals)
        device = dispatch._device_of(inputs)
        function = self.function if device.target == "cpu" else self._gpu_function(device)
        outs = dispatch.run(function, inputs, self.out_avals, traced.label, device,
                            inline=self._inline)
        return tree_util.tree_unflatten(traced.out_tree, outs)

    def _run_with_refs(self, inputs: list[Any]) -> Any:
        """A run that reads Refs (arguments or closed over) and writes back
        the ones the function wrote: their last values follow the results."""
        traced = self.traced
        values = [x._read() if type(x) is core.Ref else x for x in inputs]
        written = [inputs[r] if isinstance(r, int) else r for r in traced.ref_outputs]
        avals = self.out_avals + [ref.aval for ref in written]
        device = dispatch._device_of(values)
        function = self.function if device.target == "cpu" else self._gpu_function(device)
        outs = dispatch.run(function, values, avals, traced.label, device, inline=False)
        n = len(self.out_avals)
        for ref, value in zip(written, outs[n:]):
            ref._write(value)
        return tree_util.tree_unflatten(traced.out_tree, outs[:n])

    def _gpu_function(self, device: dispatch.Device) -> Any:
        """The program compiled for `device`'s chip (once per chip)."""
        from jaxc.runtime import CompileError, compile_module
        function = self._gpu_functions.get(device.chip)
        if function is None:
            try:
                executable = compile_module(self.traced.text(debug_info=True), target=device.target,
                                            chip=device.chip)
            except CompileError as error:
                raise core.JaxcTypeError(f"{self.traced.label}: cannot compile for {device}: "
                                         f"{error}") from None
            function = self._gpu_functions[device.chip] = executable[self.traced.name]
        return function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run on arguments like the dynamic ones it was lowered for (as in
        JAX, the static arguments are part of the program, not passed again)."""
        if self._rule is None or self._key is None:
            raise TypeError("call a Compiled obtained from jit(f).lower(...).compile()")
        tree, avals = self._key[0], self._key[1]
        return self.run(compiled_call_leaves(tree, avals, args, kwargs))

    def as_text(self, stage: str = "traced", *, chip: str | None = None) -> str:
        return Lowered(self.traced).as_text(stage, chip=chip)

    def cost_analysis(self) -> dict[str, float]:
        """The program's estimated flops, transcendentals and bytes accessed
        (`jaxc._cost_analysis`), as JAX's `Compiled.cost_analysis()`."""
        return Lowered(self.traced).cost_analysis()


class Lowered:
    """`jit(f).lower(*args)`: the traced module, shown at any stage."""

    def __init__(self, traced: Traced, jitted: "JitFunction | None" = None, key: Any = None) -> None:
        self.traced = traced
        self._jitted = jitted
        self._key = key

    def as_text(self, stage: str = "traced", *, debug_info: bool = False,
                chip: str | None = None) -> str:
        """The module at `stage` (see `jaxc-opt --list-stages`). The GPU stages
        (`gpu`, `nvvm`, `ptx`, `binary`) lower for CUDA `chip` (default sm_90)."""
        from jaxc.passes import stages
        names = [s.name for s in stages.CPU_STAGES + stages.cuda_stages()]
        if stage not in names:
            raise ValueError(f"unknown stage {stage!r} (stages: {', '.join(dict.fromkeys(names))})")
        target = stages.target_of_stage(stage)
        if chip is not None and stages.target_named(target).default_chip is None:
            raise ValueError(f"chip={chip!r} applies to the GPU stages only, not to {stage!r}")
        if stage == "traced":
            return self.traced.text(debug_info=debug_info)
        module, result = self._lowered_to(stage, target, chip)
        if isinstance(result, str):
            return result
        return module.operation.get_asm(enable_debug_info=debug_info)

    def _lowered_to(self, stage: str, target: str = "cpu", chip: str | None = None) -> tuple[ir.Module, Any]:
        """The traced module run through the stages up to `stage`, and what the
        last one returned (the text of a text stage)."""
        from jaxc.dialect import make_context
        from jaxc.passes import stages
        module = ir.Module.parse(self.traced.text(debug_info=True), make_context())
        try:
            return module, stages.run_stages(module, stage, target=target, chip=chip)
        except ValueError as error:  # StageError, an unsupported chip, a pipeline error
            raise core.JaxcTypeError(f"lowering {self.traced.name} to stage {stage!r}: {error}") from None

    def cost_analysis(self) -> dict[str, float]:
        """The program's estimated flops, transcendentals and bytes accessed,
        counted on its jaxc IR after the `optimized` stage (`jaxc._cost_analysis`):
        JAX's `Lowered.cost_analysis()` keys and conventions."""
        from ._cost_analysis import cost_analysis
        module, _ = self._lowered_to("optimized")
        return cost_analysis(module)

    def export(self, path: Any, *, target: str = "cpu", chip: str | None = None) -> None:
        """Compile ahead of time for `target` ("cpu", or "cuda" for `chip`,
        default sm_90) and write one file that `jaxc_aot.load(path)` runs
        without the compiler (docs/aot.md). The exported function is named
        like the traced one and takes the flattened argument leaves."""
        from jaxc.runtime import aot
        if self.traced.ref_args or self.traced.uses_refs:
            raise ValueError(f"{self.traced.label}: cannot export a function of Ref arguments or closed-over "
                             "Refs (an exported program takes and returns arrays)")
        if self.traced.consts:
            raise ValueError(f"{self.traced.label}: cannot export a function that closes over "
                             f"{len(self.traced.consts)} array(s); pass them as arguments")
        aot.export_module(self.traced.text(debug_info=True), path, target=target, chip=chip)

    def compile(self) -> Compiled:
        """Compile for this signature; later calls of the jit function with the
        same signature reuse it (as in JAX, `lower().compile()` warms the cache)."""
        if self._jitted is not None and self._key is not None:
            cached = self._jitted._cache.get(self._key)
            if cached is not None and cached.traced is self.traced:
                return cached
        compiled = Compiled(self.traced, None if self._jitted is None else self._jitted._rule)
        compiled._key = self._key
        if self._jitted is not None and self._key is not None:
            self._jitted._cache.setdefault(self._key, compiled)
        return compiled


class _SignatureRule:
    """How a call's arguments become a cache key: which are static, and the
    function's IR name (for messages). Holds no reference to the function,
    so compiled programs in the shared trace cache do not keep it alive."""

    __slots__ = ("static_argnums", "static_argnames", "name")

    def __init__(self, static_argnums: frozenset, static_argnames: frozenset, name: str) -> None:
        self.static_argnums = static_argnums
        self.static_argnames = static_argnames
        self.name = name

    def signature(self, args: tuple, kwargs: dict) -> tuple[Any, list[Any], Callable]:
        """(cache key, flat dynamic leaves, rebuild) for a call; `rebuild(tracers)`
        gives back (args, kwargs) with the tracers in the dynamic places."""
        static_pos, static_names = self.static_argnums, self.static_argnames
        if static_pos:
            dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
            statics = tuple((i, _Static(a)) for i, a in enumerate(args) if i in static_pos)
        else:
            dyn_args, statics = args, ()
        if kwargs:
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
            statics += tuple((k, _Static(kwargs[k])) for k in sorted(kwargs) if k in static_names)
        else:
            dyn_kwargs = kwargs
        leaves, tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        try:
            avals = tuple([x.aval if type(x) is Array else _leaf_aval(x) for x in leaves])
        except TypeError as error:
            if not any(dtypes.is_float0(x) for x in leaves):
                raise TypeError(f"jit({self.name.removeprefix('jit_')}): {error}") from None
            # float0 arguments (tangents of integers) hold no data: they are part of the
            # structure (their shapes in the key), given to the function as they are
            leaves, tree = tree_util.tree_flatten(tree_util._float0_as_nodes((dyn_args, dyn_kwargs)))
            try:
                avals = tuple([x.aval if type(x) is Array else _leaf_aval(x) for x in leaves])
            except TypeError as error:
                raise TypeError(f"jit({self.name.removeprefix('jit_')}): {error}") from None
        if any(type(a) is core.RefAval for a in avals):
            _check_distinct_refs(leaves, self.name)
        key = (tree, avals, statics, dtypes.trace_context())
        values = [x if type(x) is Array else _leaf_value(x, a) for x, a in zip(leaves, avals)]
        return key, values, functools.partial(self.rebuild, args, kwargs, tree)

    def rebuild(self, args: tuple, kwargs: dict, tree: Any, tracers: list) -> tuple[tuple, dict]:
        dyn_a, dyn_k = tree_util.tree_unflatten(tree, tracers)
        it = iter(dyn_a)
        full = tuple(args[i] if i in self.static_argnums else next(it) for i in range(len(args)))
        full_kwargs = {k: (kwargs[k] if k in self.static_argnames else dyn_k[k]) for k in kwargs}
        return full, full_kwargs


class _Traces:
    """The traces and compiled programs of one function under one set of
    jit options, shared by every `jit(f)` wrapper of it (as JAX's cache):
    ``jit(f)(4.); jit(f)(5.)`` traces once."""

    __slots__ = ("compiled", "count", "lock", "__weakref__")

    def __init__(self) -> None:
        self.compiled: dict[Any, Compiled] = {}
        self.count = 0  # how many times the function was traced
        self.lock = threading.Lock()  # one trace of a signature at a time


# function -> {(static_argnums, static_argnames): _Traces}; an entry goes with its function.
_SHARED_TRACES: "weakref.WeakKeyDictionary[Callable, dict]" = weakref.WeakKeyDictionary()
_LIVE_JITS: "weakref.WeakSet[JitFunction]" = weakref.WeakSet()  # for clear_caches


def _traces_of(fun: Callable, options: tuple) -> _Traces:
    """The shared `_Traces` of (fun, options); a private one for a callable
    that cannot be weakly referenced or hashed."""
    try:
        per_fun = _SHARED_TRACES.setdefault(fun, {})
    except TypeError:
        return _Traces()
    traces = per_fun.get(options)
    if traces is None:
        traces = per_fun[options] = _Traces()
    return traces


def _clear_fast_paths() -> None:
    """Empty every jit wrapper's C fast-path table (their next calls take
    the Python path, which sees `clear_caches` and `disable_jit`)."""
    for jitted in list(_LIVE_JITS):
        jitted._fast_clear()


# Options the C fast path does not look at: turning one on sends calls back to `_call_slow`.
_SLOW_PATH_OPTIONS = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs", "jax_no_execution",
                      "jax_debug_key_reuse")
_config.config.on_update(lambda name, value: _clear_fast_paths() if name in _SLOW_PATH_OPTIONS else None)


def clear_caches() -> None:
    """Drop every traced and compiled program (`jax.clear_caches`): the next
    call of any jit function traces and compiles again, the next eager op
    compiles its kernel again. Compiled code still referenced elsewhere (an
    Executable a caller holds) stays alive."""
    from jaxc import dispatch
    from jaxc.runtime import cpu
    for per_fun in list(_SHARED_TRACES.values()):
        for traces in per_fun.values():
            traces.compiled.clear()
    _clear_fast_paths()
    with cpu._CACHE_LOCK:
        cpu._CACHE.clear()
    with dispatch._KERNELS_LOCK:
        dispatch._KERNELS.clear()


class JitFunction(_fastcall.JitCache):
    """The callable `jit(f)` returns. Calling it runs `_fastcall.JitCache`'s
    fast path (C) for signatures registered by `_add_fast`, else `_call_slow`.
    Traces live in a `_Traces` shared by all wrappers of the same function
    and options; the fast-path table is per wrapper."""

    def __init__(self, fun: Callable, static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
                 donate_argnums: Sequence[int] = (), *, donate_argnames: Sequence[str] = (),
                 compile_always: bool = False, concrete_trace: bool = False) -> None:
        """`compile_always`: compile also under `disable_jit` (jaxc's own
        wrappers, e.g. an eager `grad` or `lax.cond`, which need a trace).
        `concrete_trace`: trace with the call's argument values known, so
        Python control flow may use them (an eager `grad`, as in JAX); a
        trace that did is run once and not cached."""
        if not callable(fun):
            raise TypeError(f"jit: expected a function, got {type(fun).__name__}")
        # Signatures that skip the Python path: positional Arrays, or pytrees of Arrays.
        super().__init__(_flatten_arguments)
        functools.update_wrapper(self, fun, updated=())  # not fun.__dict__: a wrapped jit's state
        self.fun = fun
        self._name = _symbol(fun)
        try:
            self._signature_obj: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            self._signature_obj = None
        static_argnums = _as_tuple(static_argnums)
        static_argnames = tuple(_as_tuple(static_argnames))
        donate_argnums = tuple(_as_tuple(donate_argnums))
        donate_argnames = tuple(_as_tuple(donate_argnames))
        # Like JAX: a static name also makes its position static, and vice versa.
        params = list(self._signature_obj.parameters.values()) if self._signature_obj else []
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if self._signature_obj is not None:
            _check_argnums(params, positional, static_argnums, "static_argnums")
            _check_argnums(params, positional, donate_argnums, "donate_argnums")
            _check_argnames(params, static_argnames)
            _check_argnames(params, donate_argnames, "donate_argnames")
        nums = {n if n >= 0 else n + len(positional) for n in static_argnums}
        names = set(static_argnames)
        for n in list(nums):
            if 0 <= n < len(positional):
                names.add(positional[n])
        for name in list(names):
            if name in positional:
                nums.add(positional.index(name))
        self._positional = positional  # the names of the positional parameters
        self.static_argnums = frozenset(nums)
        self.static_argnames = frozenset(names)
        # a donated name donates its position too (nothing is donated on the CPU)
        self.donate_argnums = tuple(sorted({*donate_argnums,
                                            *(positional.index(n) for n in donate_argnames if n in positional)}))
        self._compile_always = compile_always or concrete_trace
        self._concrete_trace = concrete_trace
        self._rule = _SignatureRule(self.static_argnums, self.static_argnames, self._name)
        self._traces = _traces_of(fun, (self.static_argnums, self.static_argnames))
        self._cache = self._traces.compiled
        _LIVE_JITS.add(self)

    def __repr__(self) -> str:
        return f"<jaxc.jit {self._name}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    # A jit function is an immutable callable (its caches aside): copies are itself.
    def __copy__(self) -> "JitFunction":
        return self

    def __deepcopy__(self, memo: Any) -> "JitFunction":
        return self

    @property
    def trace_count(self) -> int:
        """How many times the function was traced (shared by its jit wrappers)."""
        return self._traces.count

    def _signature(self, args: tuple, kwargs: dict) -> tuple[Any, list[Any], Callable]:
        return self._rule.signature(args, kwargs)

    def _compiled(self, args: tuple, kwargs: dict) -> tuple[Compiled, list[Any]]:
        key, leaves, rebuild = self._signature(args, kwargs)
        compiled = self._cache.get(key)
        if compiled is None:
            with self._traces.lock:
                compiled = self._cache.get(key)
                if compiled is None:
                    if _config.config.jax_no_tracing:  # JAX's error
                        raise RuntimeError(f"re-tracing function {self.fun} for `jit`, but 'no_tracing' is set")
                    before = core.concretizations()
                    started = time.perf_counter()
                    traced = self._trace(key, rebuild, leaves if self._concrete_trace else None)
                    if _config.config.jax_explain_cache_misses:
                        from ._toplevel import explain_cache_miss
                        explain_cache_miss(self.fun, self._positional, self.static_argnums, key,
                                           list(self._cache), time.perf_counter() - started)
                    compiled = Compiled(traced, self._rule)
                    compiled._key = key
                    if not self._concrete_trace or core.concretizations() == before:
                        self._cache[key] = compiled
                    else:  # Python control flow used the argument values: only good for these
                        compiled._fast_ok = False
        return compiled, leaves

    def _trace(self, key: Any, rebuild: Callable, values: Sequence[Any] | None = None) -> Traced:
        self._traces.count += 1
        with _profile.span(f"trace jit({self._name.removeprefix('jit_')})", "tracing"), \
                monitoring.timed(monitoring.TRACE_EVENT, fun_name=getattr(self.fun, "__name__", self._name)):
            return trace_function(self.fun, key[1], rebuild, self._name, values)

    # __call__ is JitCache's (C): a registered signature runs there, anything else here.
    if TYPE_CHECKING:  # declared for mypy: the C base class is untyped
        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def _call_slow(self, *args: Any, **kwargs: Any) -> Any:
        if core.current_scope() is not None or (_config.config.jax_disable_jit
                                                 and not self._compile_always):
            # Inside another trace: inline (the outer jit compiles it all).
            # Under disable_jit: run the Python function op by op.
            return self.fun(*args, **kwargs)
        spans = getattr(self.fun, "spans_processes", None)
        if spans is not None and spans():  # jit(shard_map(f, mesh=...)) across processes: its per-device program
            return self.fun(*args, **kwargs)
        try:
            compiled, leaves = self._compiled(args, kwargs)
        except RuntimeError:
            across = self._across_processes(args, kwargs)
            if across is None:
                raise
            return across[0]
        if compiled.traced.key_patterns:
            _consume_keys((args, kwargs), compiled.traced.key_patterns)
        out = compiled.run(leaves)
        if _config.config.jax_debug_key_reuse:
            return out  # no C fast path while checking
        if _config.config.jax_debug_nans or _config.config.jax_debug_infs:
            from ._toplevel import check_finite
            check_finite(tree_util.tree_leaves(out), compiled.traced.label)
            return out  # no C fast path while checking
        if not kwargs and compiled._fast_ok is not False:
            self._add_fast(compiled, args, leaves)
        return out

    def _across_processes(self, args: tuple, kwargs: dict) -> tuple[Any] | None:
        """A call given arrays spanning processes (`_global_array.py`): as JAX,
        their shardings are the in_shardings, the others' replicated, and
        the program is partitioned across the processes (`_ShardedJit`);
        (the results,), or None where no argument spans processes."""
        from ._global_array import GlobalArray
        if not any(isinstance(x, GlobalArray) for x in tree_util.tree_leaves((args, kwargs))):
            return None
        if kwargs:
            raise ValueError(f"{core.where()}: jit of arrays spanning processes takes positional arguments only")
        sharded = self.__dict__.get("_sharded")
        if sharded is None:
            sharded = self.__dict__["_sharded"] = _ShardedJit(self, None, None)
        return (sharded._across_processes(args, None),)

    def _add_fast(self, compiled: Compiled, args: tuple, leaves: list) -> None:
        """Let the next calls with this signature take the C fast path when
        it allows: positional arguments only, none static, whose leaves are
        Arrays; a small program on a CPU device."""
        if compiled._fast_ok is None:
            compiled._fast_ok = bool(
                compiled._inline and getattr(compiled.function, "_host", False)
                and not getattr(compiled.function, "has_callbacks", False)
                and compiled.traced.out_tree.num_leaves > 0
                and all(type(c) is Array for c in compiled.traced.consts))
            if not compiled._fast_ok:
                return
        if (any(type(x) is not Array for x in leaves)
                or any(i < len(args) for i in self.static_argnums)):
            return
        consts = tuple(compiled.traced.consts)
        device = dispatch._device_of(tuple(leaves) + consts)
        if device.target != "cpu":
            return
        positional = len(leaves) == len(args) and all(type(a) is Array for a in args)
        out_tree = compiled.traced.out_tree
        self._fast_add(tuple(x.aval for x in leaves), dtypes.trace_context_id(), compiled.function._entry,
                       consts, tuple(compiled.out_avals), device,
                       None if out_tree.is_leaf() else out_tree.unflatten,
                       None if positional else _flatten_arguments(args)[1])

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace for the signature of `args`, which may be abstract
        (`ShapeDtypeStruct`s, anything with .shape and .dtype)."""
        from ._api_more import abstract_arguments
        args, kwargs = abstract_arguments(self, args, kwargs, "jit")
        key, _, rebuild = self._signature(args, kwargs)
        compiled = self._cache.get(key)
        traced = compiled.traced if compiled is not None else self._trace(key, rebuild)
        return Lowered(traced, self, key)

    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast_clear()


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


def _check_argnums(params: list, positional: list[str], argnums: Sequence[int], what: str) -> None:
    """JAX's ValueError for a position the function does not have (unless it takes *args)."""
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    if any(not -len(positional) <= n < len(positional) for n in argnums):
        raise ValueError(f"Jitted function has {what}={tuple(argnums)}, but only accepts "
                         f"{len(positional)} positional arguments.")


def _check_argnames(params: list, argnames: Sequence[str], option: str = "static_argnames") -> None:
    """JAX's ValueError for a static (or donated) name the function does not
    take (unless it takes **kwargs)."""
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return
    taken = {p.name for p in params if p.kind != p.VAR_POSITIONAL}
    invalid = set(argnames) - taken
    if invalid:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {option}. "
                         "Function does not take these args.")


def jit(fun: Callable | None = None, *, static_argnums: Any = (), static_argnames: Any = (),
        donate_argnums: Any = (), donate_argnames: Any = (), in_shardings: Any = None,
        out_shardings: Any = None, keep_unused: bool = False, inline: bool = False,
        compiler_options: dict | None = None, **unsupported: Any) -> Any:
    """Compile `fun` (traced once per signature). Usable as ``@jit``,
    ``@jit(static_argnums=0)`` or ``jit(f, static_argnames="n")``.
    `donate_argnums` / `donate_argnames` are checked and accepted; on the
    CPU nothing is donated. `keep_unused` and `inline` are accepted: neither
    changes a result (jaxc keeps every argument in the compiled signature,
    and a jit called inside a trace is traced into it). `compiler_options`
    (XLA's flags) must be empty: jaxc's compiler has none of XLA's.
    `in_shardings` / `out_shardings` (Shardings, or PartitionSpecs of the
    current mesh, as pytree prefixes of the positional arguments / the
    result) are checked against the shapes and the results get
    `out_shardings`; on a mesh the program is split into one device's
    program through the shard dialect where its passes can, else it runs
    whole (docs/parallel.md)."""
    # device=None / backend=None are JAX's defaults; jaxc runs a jit where its arguments live
    unsupported = {k: v for k, v in unsupported.items() if not (k in ("device", "backend") and v is None)}
    if unsupported:
        raise TypeError(f"jit() got unsupported options: {', '.join(sorted(unsupported))}")
    if compiler_options:
        raise ValueError(f"jit: jaxc has none of XLA's compiler options, got {sorted(compiler_options)}")

    def make(f: Callable) -> Any:
        jitted = JitFunction(f, static_argnums, static_argnames, donate_argnums, donate_argnames=donate_argnames)
        if in_shardings is None and out_shardings is None:
            return jitted
        return _ShardedJit(jitted, in_shardings, out_shardings)
    return make if fun is None else make(fun)


class _ShardedJit:
    """`jit(f, in_shardings=..., out_shardings=...)`: the jit function, with
    the argument shapes checked against `in_shardings`, partitioned where it
    can be (`_partitioned_jit`), and the results given `out_shardings`."""

    def __init__(self, jitted: "JitFunction", in_shardings: Any, out_shardings: Any) -> None:
        self._jitted = jitted
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        functools.update_wrapper(self, jitted.fun, updated=())

    def __getattr__(self, name: str) -> Any:  # trace_count, ...
        return getattr(self._jitted, name)

    def lower(self, *args: Any, **kwargs: Any) -> "Lowered":
        """The program; where it is partitioned by its shardings, with its
        marks, so that `as_text(stage="partitioned")` shows one device's program."""
        if not kwargs:
            self._partitioned(args, _shardings_for(self._in_shardings, self._dynamic(args))
                              if self._in_shardings is not None else None, run=False)
            program = self.__dict__.get("_programs", {}).get(self._jitted._signature(args, {})[0])
            if program:
                return program.lowered()
        return self._jitted.lower(*args, **kwargs)

    def _dynamic(self, args: tuple) -> tuple:
        """The arguments but the static ones (in_shardings describe those, as in JAX)."""
        n = len(args)
        static = {i % n for i in self._jitted.static_argnums if -n <= i < n}
        return tuple(x for i, x in enumerate(args) if i not in static)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        in_shardings = None
        if self._in_shardings is not None:
            if kwargs:  # JAX's error
                raise ValueError(f"{core.where()}: pjit does not support kwargs when in_shardings is specified.")
            dynamic = self._dynamic(args)
            in_shardings = _shardings_for(self._in_shardings, dynamic)
            for leaf, sharding in zip(tree_util.tree_leaves(dynamic), in_shardings):
                if sharding is not None:
                    sharding.shard_shape(np.shape(leaf))
        if not kwargs and core.current_scope() is None:
            across = self._across_processes(args, in_shardings)
            if across is not None:
                return across
            out = self._partitioned(args, in_shardings)
            if out is not None:
                return out
        out = self._jitted(*args, **kwargs)
        if self._out_shardings is None:
            return out
        leaves, tree = tree_util.tree_flatten(out)
        for leaf, sharding in zip(leaves, _shardings_for(self._out_shardings, out)):
            if sharding is not None:
                sharding.shard_shape(np.shape(leaf))
                if isinstance(leaf, Array):
                    leaf._sharding = sharding
        return out


    def _out_shardings_of(self, traced: Traced) -> list:
        """One Sharding (or None) per result leaf of `traced`, from out_shardings."""
        if self._out_shardings is None:
            return [None] * len(traced.out_avals)
        return _shardings_for(self._out_shardings, tree_util.tree_unflatten(traced.out_tree, traced.out_avals))

    def _across_processes(self, args: tuple, in_shardings: list | None) -> Any:
        """Under jaxc.distributed, on a mesh of several processes' devices (or
        with arrays spanning processes): the partitioned program run on this
        process's devices, on its part of each argument (`_partitioned_jit`);
        None where the call involves one process only."""
        from . import distributed
        if distributed.process_count() == 1:
            return None
        from . import _partitioned_jit as P
        from ._api_more import abstract_arguments
        from ._global_array import GlobalArray, aval_of, check_process_mesh, spans_processes
        from .sharding import NamedSharding
        dynamic = self._dynamic(args)
        leaves = tree_util.tree_leaves(dynamic)
        if in_shardings is None:  # JAX takes a committed argument's sharding
            in_shardings = [x.sharding if isinstance(x, GlobalArray) else None for x in leaves]
        abstract, _ = abstract_arguments(self._jitted, args, {}, "jit")
        key = ("across", tuple(in_shardings)) + self._jitted._signature(abstract, {})[0]
        programs = self.__dict__.setdefault("_programs", {})
        program = programs.get(key)
        if program is None:
            if not any(isinstance(x, GlobalArray) for x in leaves):
                named = [s for s in tree_util.tree_leaves(self._out_shardings) if isinstance(s, NamedSharding)]
                mesh = P.mesh_of(list(in_shardings) + named)
                if mesh is None or not spans_processes(mesh):
                    return None
            traced = self._jitted.lower(*abstract).traced
            outs = self._out_shardings_of(traced)
            mesh = P.mesh_of(list(in_shardings) + list(outs))
            if mesh is None or not spans_processes(mesh):
                raise ValueError(f"{core.where()}: jit of arrays spanning processes needs in_shardings / "
                                 "out_shardings on one mesh of every process's devices")
            check_process_mesh(mesh, "jit")  # once per program: its runs take the layout as checked
            program = P.PartitionedProgram(
                traced, [aval_of(x) for x in leaves], mesh,
                P.specs_for(in_shardings), P.specs_for(outs, None), across=True)
            if not program.ok:  # every process runs it whole on the gathered arguments
                P.warn_whole(traced.label, program.why)
                program = P.WholeAcrossProcesses(self._jitted, outs)
            programs[key] = program
        if isinstance(program, P.WholeAcrossProcesses):
            return program.run(args)
        outs = program.run_across_processes(leaves)
        return tree_util.tree_unflatten(program.traced.out_tree, outs)

    def _partitioned(self, args: tuple, in_shardings: list | None, run: bool = True) -> Any:
        """Run as one device's program on every device of the shardings' mesh
        (`_partitioned_jit`), or None to run whole."""
        from . import _partitioned_jit as P
        if any(isinstance(x, core.Tracer) for x in tree_util.tree_leaves(args)):
            return None
        key, leaves, _ = self._jitted._signature(args, {})  # the dynamic arguments' leaves
        programs = self.__dict__.setdefault("_programs", {})
        program = programs.get(key)
        if program is None:
            traced = self._jitted.lower(*args).traced
            in_avals = [_leaf_aval(x) for x in leaves]
            ins = in_shardings if in_shardings is not None else [None] * len(in_avals)
            outs = self._out_shardings_of(traced)
            mesh = P.mesh_of(list(ins) + list(outs))
            if mesh is None:
                programs[key] = program = False
            else:
                program = P.PartitionedProgram(traced, in_avals, mesh, P.specs_for(ins),
                                               P.specs_for(outs, None))
                if not program.ok:
                    P.warn_whole(traced.label, program.why)
                    program = False
                programs[key] = program
        if program is False or not run:
            return None
        outs = program.run(list(leaves))
        return tree_util.tree_unflatten(program.traced.out_tree, outs)

    @property
    def partitioned(self) -> bool:
        """Whether the last signature called ran as a per-device program."""
        return any(p is not False for p in self.__dict__.get("_programs", {}).values())


def _shardings_for(prefix: Any, tree: Any) -> list:
    """One Sharding (or None) per leaf of `tree`; PartitionSpecs name axes of the current mesh."""
    from .sharding import NamedSharding, PartitionSpec, Sharding, current_mesh

    def resolve(s: Any) -> Any:
        if isinstance(s, PartitionSpec):
            mesh = current_mesh()
            if mesh is None:
                raise ValueError(f"{core.where()}: jit shardings: a PartitionSpec needs a mesh "
                                 "(jaxc.set_mesh or `with mesh:`); or pass a NamedSharding")
            return NamedSharding(mesh, s)
        if s is not None and not isinstance(s, Sharding):
            raise TypeError(f"{core.where()}: jit shardings must be Shardings or PartitionSpecs, got {s!r}")
        return s
    try:
        full = optree.broadcast_prefix(prefix, tree, none_is_leaf=True, namespace=tree_util.NAMESPACE)
    except ValueError as error:
        raise ValueError(f"{core.where()}: jit shardings must be a tree prefix of the value: {error}") from None
    return [resolve(s) for s in full]


class IR:
    """What `make_ir(f)(*args)` returns: the traced module; `str()` is the
    IR text, `as_text(debug_info=True)` adds the source locations."""

    def __init__(self, traced: Traced) -> None:
        self.traced = traced
        self.module = traced.module
        self.out_avals = traced.out_avals

    def as_text(self, debug_info: bool = False) -> str:
        return self.traced.text(debug_info=debug_info)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()


def make_ir(fun: Callable, *, static_argnums: Any = (), static_argnames: Any = ()) -> Callable[..., IR]:
    """Like `jax.make_jaxpr`: ``make_ir(f)(*args)`` traces f and returns its IR."""
    jitted = JitFunction(fun, static_argnums, static_argnames)

    def trace(*args: Any, **kwargs: Any) -> IR:
        key, _, rebuild = jitted._signature(args, kwargs)
        return IR(jitted._trace(key, rebuild))
    return trace


# ---------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------

def devices(backend: str | None = None) -> list[dispatch.Device]:
    """The devices of `backend` ("cpu", "gpu"/"cuda"); None: the CPU devices,
    then the GPU where a CUDA driver reports one (docs/gpu.md)."""
    if backend is None:
        return dispatch.global_devices() + dispatch.gpu_devices()
    if backend == "cpu":
        return dispatch.global_devices()
    if backend in dispatch.PLATFORMS:
        return dispatch.platform_devices(backend)
    raise RuntimeError(f"unknown backend {backend!r}; available: "
                       + ", ".join(["cpu"] + (["gpu"] if dispatch.gpu_devices() else [])))


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[dispatch.Device]:
    """This process's devices (with jaxc.distributed, `jaxc.devices()` also
    lists the other processes')."""
    if isinstance(process_index, str) and backend is None:  # local_devices("cpu")
        process_index, backend = None, process_index
    from . import distributed
    if process_index not in (None, distributed.process_index()):
        return [d for d in devices(backend) if d.process_index == process_index]
    if backend is None:
        return dispatch.devices() + dispatch.gpu_devices()
    return dispatch.platform_devices(backend)


def device_count() -> int:
    return len(devices())


def default_backend() -> str:
    return "cpu"


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: bool = False,
               may_alias: Any = None) -> Any:
    """Copy `x` (a pytree of arrays / NumPy values / scalars) to `device`: a
    Device, a Sharding (`NamedSharding`: the array split over a mesh; its
    shards are views of one buffer, docs/parallel.md), or a pytree prefix of
    them. `src`, `donate` and `may_alias` are accepted (nothing is donated)."""
    from .sharding import Sharding
    if isinstance(device, (dispatch.Device, Sharding)) or device is None:
        return tree_util.tree_map(lambda leaf: _put(leaf, device), x)
    leaves, tree = tree_util.tree_flatten(x)
    targets = optree.broadcast_prefix(device, x, none_is_leaf=True, namespace=tree_util.NAMESPACE) \
        if not isinstance(device, str) else [device]
    for target in targets:
        if target is not None and not isinstance(target, (dispatch.Device, Sharding)):
            raise TypeError(f"device_put: {target!r} is not a device or a sharding (see jaxc.devices(), "
                            "jaxc.sharding)")
    return tree_util.tree_unflatten(tree, [_put(leaf, t) for leaf, t in zip(leaves, targets)])


def _put_across_processes(leaf: Any, target: Any) -> Any:
    """device_put onto a NamedSharding of several processes' devices: every
    process passes the global value and keeps its part (as JAX's)."""
    from ._global_array import aval_of, check_process_mesh, local_input, process_dimension, result
    check_process_mesh(target.mesh, "device_put")
    aval = aval_of(leaf)
    target.shard_shape(aval.shape)
    dim = process_dimension(target, aval.ndim)
    return result(local_input(leaf, aval.dtype, dim, f"device_put to {target.spec}"), aval.shape, target, dim)


def _put(leaf: Any, target: Any) -> Any:
    from .sharding import NamedSharding, Sharding, SingleDeviceSharding
    if target is not None and not isinstance(target, (dispatch.Device, Sharding)):
        raise TypeError(f"device_put: {target!r} is not a device or a sharding (see jaxc.devices(), "
                        "jaxc.sharding)")
    if isinstance(leaf, core.Tracer):
        return leaf
    if isinstance(target, NamedSharding):
        from ._global_array import spans_processes
        if spans_processes(target.mesh):  # (False at once in a single process)
            return _put_across_processes(leaf, target)
    sharding = None
    if isinstance(target, SingleDeviceSharding):

        target = next(iter(target.device_set))
    elif isinstance(target, Sharding):
        sharding = target
        sharding.shard_shape(np.shape(leaf))  # the parts must divide the shape
        target = _first_device(sharding)
    if isinstance(leaf, Array):
        if target is None or leaf.device is target:
            out = leaf
        else:
            out = Array._ready(dispatch.transfer(leaf._ready_value(), target), leaf.aval, target)
    else:
        out = Array._from_value(leaf, device=target)
    if sharding is not None:
        if out is leaf:  # another view of the same value, with its own sharding
            out = Array._ready(leaf._ready_value(), leaf.aval, target)
        out._sharding = sharding
    return out


def _first_device(sharding: Any) -> dispatch.Device:
    devices = getattr(sharding, "mesh", None)
    if devices is not None:
        return devices.devices.ravel()[0]
    if hasattr(sharding, "devices"):
        return sharding.devices.ravel()[0]
    return min(sharding.device_set, key=lambda d: d.id)


def block_until_ready(x: Any) -> Any:
    """Wait for every Array in the pytree `x`; return `x`."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x
