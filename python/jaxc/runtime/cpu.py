"""Compile a module for the CPU once, then call its functions on NumPy arrays.

    exe = compile_module(text)          # stages up to `llvm`, then the JIT; cached by text
    (y,) = exe["f"](x, w)               # NumPy in, a tuple of NumPy arrays out

Calling convention (see docs/stages.md): after the `bufferized` stage every
function result is an out-parameter (a memref appended to the arguments), and
the `llvm` stage gives every function a C interface ``_mlir_ciface_NAME``
that takes one pointer to a memref descriptor per argument. The execution
engine wraps that in ``_mlir__mlir_ciface_NAME(void **args)``; `Function`
calls the wrapper with an argument array built once per function:

    packed[i] -> cell[i] -> descriptor i = {allocated, aligned, offset, sizes..., strides...}

Shapes are static, so offsets, sizes and strides are written once too; a call
only stores two data pointers per array (inputs made contiguous, outputs
allocated) and calls the wrapper with the GIL released. That call is the C
extension `jaxc.runtime._fastcall` (`_fastcall.c`): about 0.2 µs for a tiny
function, where building the arguments with ctypes took several µs.
"""
from __future__ import annotations

import importlib
import os
import threading
import time
import warnings
import weakref
from typing import Any, Callable, Sequence, cast

import jaxc_aot
import numpy as np
from jaxc_aot import BF16_BITS
from mlir import ir

from . import _fastcall, malloc

malloc.tune()  # reuse large buffers instead of a fresh mmap per call (malloc.py)

# MLIR element type -> NumPy dtype: the table of the AOT loader, which
# calls compiled functions the same way (bf16 travels as its 16 raw bits,
# see `bf16_dtype`). (mypy infers the table's values as `object`.)
_DTYPES = cast("dict[str, np.dtype]", jaxc_aot.DTYPES)


def bf16_dtype() -> np.dtype:
    """The dtype of bf16 results: ``ml_dtypes.bfloat16`` when ml_dtypes is
    installed, else ``uint16`` holding the raw bits (bf16 = the top half of an
    f32: ``(x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)``)."""
    return jaxc_aot.BF16


def numpy_dtype(element_type: str) -> np.dtype:
    """The NumPy dtype for an MLIR element type name (``f32``, ``ui8``, ``bf16``)."""
    if element_type == "bf16":
        return bf16_dtype()
    try:
        return _DTYPES[element_type]
    except KeyError:
        raise TypeError(f"element type '{element_type}' has no NumPy dtype in jaxc's runtime "
                        f"(supported: {', '.join(['bf16', *_DTYPES])})") from None


class CompileError(Exception):
    """The module could not be compiled; `diagnostics` holds MLIR's messages."""

    def __init__(self, message: str, diagnostics: str = "") -> None:
        super().__init__(f"{message}\n{diagnostics}" if diagnostics else message)
        self.diagnostics = diagnostics


# The static type of one argument or result (shape, element type, dtype):
# the AOT loader's class, so that both read signatures the same way.
ArgSpec = jaxc_aot.Spec


class Function:
    """A compiled function: call it with NumPy arrays (or anything
    `np.asarray` takes, of the right dtype); returns a tuple of arrays.

    The call itself is `_fastcall.Entry.call` (C): it takes ndarrays of
    exactly the right dtype and shape, C-contiguous, allocates the results,
    fills the descriptors and calls with the GIL released. Anything else
    (lists, scalars, strided views, the wrong count, dtype or shape) goes
    through `_checked_call`, which converts or raises."""

    # Where results live: host memory (the extension allocates them);
    # `cuda.CudaFunction` allocates managed memory itself and sets this False.
    _host = True

    def __init__(self, name: str, address: int, args: Sequence[ArgSpec],
                 results: Sequence[ArgSpec], owner: "Executable", parallel: bool = False) -> None:
        self.name = name
        self.args = tuple(args)
        self.results = tuple(results)
        self.parallel = parallel  # forks OpenMP teams (its caller's workers are pinned: openmp.py)
        self._owner = owner  # keeps the JIT (and so `address`) alive
        # bf16 travels as its raw bits: a uint16 argument is accepted too.
        self._entry = _fastcall.Entry(
            address,
            [(spec.shape, spec.dtype, BF16_BITS if spec.element_type == "bf16" else None)
             for spec in self.args],
            [(spec.shape, spec.dtype) for spec in self.results], owner, parallel)
        self._out_dtypes = tuple(
            BF16_BITS if spec.element_type == "bf16" else spec.dtype for spec in self.results)

    def __repr__(self) -> str:
        return (f"<jaxc.runtime.Function {self.name}({', '.join(map(repr, self.args))}) -> "
                f"({', '.join(map(repr, self.results))})>")

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        if self._host:
            outputs = self._entry.call(*args)
            if outputs is not None:
                return outputs
        return self._checked_call(args)

    def _checked_call(self, args: Sequence[Any]) -> tuple[np.ndarray, ...]:
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}() takes {len(self.args)} arguments, got {len(args)}")
        inputs = [self._place(jaxc_aot.checked_argument(self.name, i, spec, value))
                  for i, (spec, value) in enumerate(zip(self.args, args))]
        if self._host:
            outputs = self._entry.call(*inputs)
            if outputs is None:  # checked_argument returns exact, contiguous ndarrays
                raise TypeError(f"{self.name}(): the arguments do not fit the compiled signature")
            return outputs
        outputs = [self._empty(spec.shape, dtype) for spec, dtype in zip(self.results, self._out_dtypes)]
        self._entry.call_into(inputs, outputs)
        # bf16 results are written as raw bits and viewed as the result dtype.
        return tuple(out.view(spec.dtype) if out.dtype != spec.dtype else out
                     for out, spec in zip(outputs, self.results))

    # Where buffers live: host memory here; `cuda.CudaFunction` uses managed memory.
    _empty: Callable[..., np.ndarray] = staticmethod(np.empty)

    @staticmethod
    def _place(array: np.ndarray) -> np.ndarray:
        return array


class Executable:
    """A module compiled by the execution engine; ``exe["f"]`` is a `Function`.

    `engine` is anything with the engine's ``raw_lookup(name)`` (the address
    of the packed wrapper of ``name``, 0 if absent): an ExecutionEngine, or a
    `compile_cache.CachedLibrary` loaded from the persistent compilation
    cache (then `module` is None). The Executable keeps it alive."""

    def __init__(self, engine: Any, module: ir.Module | None,
                 signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                 function_class: type = Function, parallel: bool = False) -> None:
        self.engine = engine
        self.module = module  # the LLVM-dialect module (keeps its context alive)
        self.functions: dict[str, Function] = {}
        # For jaxc.profiler's memory profile: the machine code's size (set by
        # whoever made the engine) and where the compilation was asked for.
        self.code_bytes = os.path.getsize(engine.path) if hasattr(engine, "path") else 0
        self.opt_level: int | None = None  # LLVM's -O level (`codegen_opt_level`; None: from the disk cache)
        self._traceback = _fastcall.traceback()
        LIVE_EXECUTABLES.add(self)
        for name, (args, results) in signatures.items():
            address = engine.raw_lookup("_mlir_ciface_" + name)
            if not address:
                raise CompileError(f"function '{name}' has no C interface after compilation")
            self.functions[name] = function_class(name, address, args, results, self, parallel)

    def __getitem__(self, name: str) -> Function:
        try:
            return self.functions[name]
        except KeyError:
            known = ", ".join(sorted(self.functions)) or "none"
            raise KeyError(f"no public function '{name}' in the module (functions: {known})") from None

    def __contains__(self, name: str) -> bool:
        return name in self.functions


class CallbackFunction(Function):
    """A compiled function whose program calls host callbacks
    (`jaxc._callback`): an exception a callback raised is raised when the
    call returns (it cannot unwind through compiled code)."""

    has_callbacks = True

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        from jaxc import _callback
        _callback.reset_pending()
        outputs = super().__call__(*args)
        _callback.raise_pending(self.name)
        return outputs


# ----------------------------------------------------------------------------
# Compilation
# ----------------------------------------------------------------------------

_CACHE: dict[tuple, Executable] = {}
_CACHE_LOCK = threading.Lock()
compile_count = 0  # how many modules were actually compiled (tests check the cache)
cache_load_count = 0  # how many were loaded from the persistent compilation cache instead


def compile_module(module: str | ir.Module, *, first_stage: str | None = None,
                   opt_level: int = 3, target: str = "cpu", chip: str | None = None) -> Executable:
    """Compile `module` (text or `ir.Module`, at stage `first_stage`; None:
    traced) through the `llvm` stage and JIT it; for ``target="cuda"``
    through the `binary` stage for `chip`, linked to MLIR's CUDA runtime
    wrappers (`jaxc.runtime.cuda`). The same text is compiled only once per
    process and target; with ``jax_compilation_cache_dir`` set, a CPU program
    compiled by an earlier process is loaded from disk instead
    (`compile_cache`). Raises `CompileError`."""
    from jaxc.passes import stages
    text = module if isinstance(module, str) else str(module)
    try:
        record = stages.target_named(target)
    except stages.StageError as error:
        raise CompileError(f"cannot compile the module: {error}") from None
    chip = record.chip(chip)
    from jaxc.passes import host
    key = (text, first_stage, opt_level, record.name, chip, host.target())  # the code depends on the CPU target
    with _CACHE_LOCK:
        executable = _CACHE.get(key)
        if executable is None:
            executable = _compile(text, first_stage, opt_level, record, chip)
            _CACHE[key] = executable
    return executable


_COMPILE_CONTEXT: dict[str, Any] = {}  # "context" and its stage "pass_managers", made once


def _compile(text: str, first_stage: str | None, opt_level: int, target: Any,
             chip: str | None) -> Executable:
    """`_compile_here`, on one thread where libiomp5 is missing: intel-openmp
    is a dependency, but without it parallel kernels could not be linked (the
    JIT would fail on `__kmpc_fork_call`), so a broken install warns once and
    runs serial code instead."""
    from jaxc.passes import host

    from . import openmp

    if SPMD_AXES in text:  # a pmap program: its lanes are the threads (one per device)
        with host.override(threads=1):
            return _compile_here(text, first_stage, opt_level, target, chip)
    if not target.host_calls or openmp.libiomp5_path() is not None:  # OpenMP: the host's threads
        return _compile_here(text, first_stage, opt_level, target, chip)
    if not _WARNED_NO_OPENMP:
        _WARNED_NO_OPENMP.append(True)
        warnings.warn("jaxc: libiomp5.so (the intel-openmp wheel) is not installed: compiled CPU code "
                      "runs on one thread", RuntimeWarning, stacklevel=4)
    with host.override(threads=1):
        return _compile_here(text, first_stage, opt_level, target, chip)


_WARNED_NO_OPENMP: list[bool] = []


def _compile_here(text: str, first_stage: str | None, opt_level: int, target: Any,
                  chip: str | None) -> Executable:
    """Parse and lower `text` in the one compile context (creating a context
    and the stages' pass managers costs more than lowering a small module),
    verifying the module after each stage rather than after every pass;
    callers hold `_CACHE_LOCK`. A CPU program is first looked up in the
    persistent compilation cache and written there after compiling."""
    # calls into this process (host callbacks, the SPMD runtime): never cached on disk
    has_callbacks = "jaxc.callback" in text or SPMD_AXES in text
    if has_callbacks and not target.host_calls:
        raise CompileError(f"host callbacks (jax.debug.print, jax.debug.callback, jax.pure_callback) "
                           f"run only in programs for the CPU, not the {target.device}")
    if SPMD_AXES in text and not target.host_calls:
        raise CompileError(f"pmap programs run only on CPU devices, not the {target.device}")
    cache_key = None if has_callbacks else _cache_key(text, first_stage, opt_level, target.name)
    if cache_key is not None:
        executable = _load_cached(cache_key)
        if executable is not None:
            return executable
    started = time.perf_counter()
    from jaxc.dialect import make_context
    from jaxc.passes import pipeline, stages

    if not _COMPILE_CONTEXT:
        _COMPILE_CONTEXT.update(context=make_context(), pass_managers={})
    context = _COMPILE_CONTEXT["context"]
    from jaxc.profiler import traces as profile
    timings: list[Any] | None = [] if profile.SESSION is not None else None  # a trace records each pass
    with _captured_diagnostics(context) as diags:
        try:
            module = ir.Module.parse(text, context)
            if PARTITIONED in text and target.host_calls and first_stage in (None, "traced"):
                # a program split by its shardings takes one device's blocks: its
                # signature is read after the `partitioned` stage (docs/parallel.md)
                stages.run_stages(module, "partitioned", first=first_stage,
                                  pass_managers=_COMPILE_CONTEXT["pass_managers"], timings=timings,
                                  verify_each=False)
                first_stage = "partitioned"
            signatures = function_signatures(module)
            stages.run_stages(module, target.final_stage, first=first_stage,
                              pass_managers=_COMPILE_CONTEXT["pass_managers"],
                              target=target.name, chip=chip, timings=timings, verify_each=False)
            ops = stages.check_translatable(module)
            parallel = "omp.parallel" in ops
            if target.host_calls:
                opt_level = codegen_opt_level(ops, opt_level)
        except ir.MLIRError as error:
            raise CompileError(f"cannot compile the module for the {target.device}",
                               _format_error(error, diags)) from None
        except (pipeline.PipelineError, stages.StageError) as error:
            raise CompileError(f"cannot compile the module for the {target.device}: {error}",
                               "\n".join(diags)) from None
    if timings:
        profile.record_stages(timings)
    # the target's runtime module (this one, or cuda.py) makes the program runnable
    runtime = importlib.import_module(target.runtime)
    return runtime.load(module, signatures, opt_level, parallel, has_callbacks, cache_key, started)


def codegen_opt_level(ops: Any, opt_level: int) -> int:
    """-O0 for a program without a branch (`ops`: the `llvm` stage's op
    counts): no loop, so its work is in library calls (a matmul's gemm, an
    FFT, a factorization) or a few straight-line operations, and LLVM's
    optimizations and instruction selection above -O0 (8-12 ms of a 1000²
    matmul's compile; docs/performance.md) speed up nothing. Any other
    program keeps `opt_level`."""
    return opt_level if ops.keys() & {"llvm.cond_br", "llvm.switch"} else 0


def load(module: ir.Module, signatures: dict, opt_level: int, parallel: bool, has_callbacks: bool,
         cache_key: Any, started: float) -> Executable:
    """A CPU program (`llvm` stage) as machine code: the LLVM tools, the
    process's JIT (`orc`) or the execution engine (programs that call back
    into Python, or ``jaxc_cpu_compiler="engine"``), then written to the
    persistent cache where it may be."""
    executable = None
    if not has_callbacks:
        executable = _jit_with_llvm_tools(module, signatures, opt_level, parallel, cache_key, started)
        if executable is not None:  # (the tools' library is already in the cache)
            executable.opt_level = opt_level
            return executable
        executable = _jit_in_process(module, signatures, opt_level, parallel)
    if executable is None:
        executable = jit_lowered(module, signatures, opt_level=opt_level,
                                 object_dump=cache_key is not None, parallel=parallel)
    if cache_key is not None:
        from . import compile_cache
        compile_cache.store(cache_key, executable.engine, signatures,
                            time.perf_counter() - started, parallel=parallel)
    executable.opt_level = opt_level
    return executable


def _jit_with_llvm_tools(module: ir.Module, signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                         opt_level: int, parallel: bool, cache_key: Any,
                         started: float) -> Executable | None:
    """The module (at the `llvm` stage) compiled by the pinned LLVM tools on
    every core (`llvm_tools`) when ``jaxc_cpu_compiler`` is "tools"; None
    where the process compiles it: another choice, or the tools are missing
    or failed (a warning once per cause)."""
    global compile_count
    from jaxc._config import config
    from jaxc.passes import stages

    from . import llvm_tools

    choice = config.jaxc_cpu_compiler
    if choice != "tools":
        return None
    from . import compile_cache
    why = llvm_tools.unusable()
    if why is not None:
        _warn_llvm_tools(f"jaxc: the LLVM tools cannot compile here ({why}); the program is "
                         "compiled in-process instead")
        return None
    import tempfile
    started_ns = time.perf_counter_ns()
    try:
        llvm_ir = stages.to_llvm_ir(module)
        with tempfile.TemporaryDirectory(prefix="jaxc-llvm-") as tmp:
            path = llvm_tools.build_library(llvm_ir, list(signatures), tmp, opt_level=opt_level)
            with open(path, "rb") as f:
                elf = f.read()
            compile_cache.load_runtime_libraries(compile_cache.needed_libraries(elf))
            executable = Executable(compile_cache.CachedLibrary(path), module, signatures,
                                    parallel=parallel)
    except (llvm_tools.ToolError, stages.StageError, OSError, ValueError) as error:
        _warn_llvm_tools(f"jaxc: the LLVM tools failed, the program is compiled in-process instead: {error}")
        return None
    compile_count += 1
    from jaxc.profiler import traces as profile
    if profile.SESSION is not None:
        profile.SESSION.record("llvm compile", "compile", started_ns, time.perf_counter_ns(),
                               {"code_bytes": executable.code_bytes, "compiler": "llvm tools"})
    if cache_key is not None:
        compile_cache.store(cache_key, elf, signatures, time.perf_counter() - started, parallel=parallel)
    return executable


_WARNED_LLVM_TOOLS: set[str] = set()


def _jit_in_process(module: ir.Module, signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                    opt_level: int, parallel: bool) -> Executable | None:
    """The module (at the `llvm` stage) compiled and linked by the process's
    JIT (`orc`: one target machine and LLJIT for every program), or None
    where the execution engine compiles it: ``jaxc_cpu_compiler`` is
    "engine", or the JIT failed (a warning once per cause)."""
    global compile_count
    from jaxc._config import config
    from jaxc.passes import stages

    from . import llvm_tools, orc

    if config.jaxc_cpu_compiler == "engine":
        return None
    started_ns = time.perf_counter_ns()
    try:
        llvm_ir = stages.to_llvm_ir(module)
        llvm_ir += "\n" + llvm_tools.packed_entry_points(llvm_ir, list(signatures))
        objects = orc.compile_objects(llvm_ir, opt_level, llvm_tools.parts_for(llvm_ir, split_lines=orc.SPLIT_LINES))
        libraries = runtime_libraries()
        on_demand = [path for path in libraries if os.path.basename(path) == RUNNER_UTILS]
        program = orc.Program(objects, ["_mlir_ciface_" + name for name in signatures],
                              orc.libraries_for(objects, [p for p in libraries if p not in on_demand], on_demand))
    except (orc.OrcError, llvm_tools.ToolError, stages.StageError, OSError, AttributeError) as error:
        # AttributeError: a libLLVM.so without the C API entry points used
        _warn_llvm_tools(f"jaxc: the in-process JIT failed, the execution engine compiles instead: {error}")
        return None
    compile_count += 1
    executable = Executable(program, module, signatures, parallel=parallel)
    executable.code_bytes = sum(len(code) for code in objects)
    from jaxc.profiler import traces as profile
    if profile.SESSION is not None:
        profile.SESSION.record("llvm compile", "compile", started_ns, time.perf_counter_ns(),
                               {"code_bytes": executable.code_bytes, "compiler": "jit"})
    return executable


def _warn_llvm_tools(message: str) -> None:
    """Warn once per message (a missing tool would warn at every compilation)."""
    if message not in _WARNED_LLVM_TOOLS:
        _WARNED_LLVM_TOOLS.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=5)


def _cache_key(text: str, first_stage: str | None, opt_level: int, target: str) -> Any:
    """The persistent cache's key for this compilation, or None when the
    cache is off (``jax_compilation_cache_dir`` unset) or the target is not the CPU."""
    from jaxc._config import config
    if not config.jax_compilation_cache_dir:  # off: not even the module (hashlib: OpenSSL)
        return None
    from . import compile_cache

    if not compile_cache.enabled(target):
        return None
    return compile_cache.key_for(text, first_stage, opt_level, target)


def _load_cached(key: Any) -> Executable | None:
    """The Executable of `key`'s cache entry, or None (a bad entry warns)."""
    global cache_load_count
    from . import compile_cache

    def build(library: Any, stored: dict, parallel: bool) -> Executable:
        signatures = {name: ([ArgSpec(tuple(shape), element) for shape, element in args],
                             [ArgSpec(tuple(shape), element) for shape, element in results])
                      for name, (args, results) in stored.items()}
        return Executable(library, None, signatures, parallel=parallel)

    executable = compile_cache.load(key, build)
    if executable is not None:
        cache_load_count += 1
    return executable


def jit_lowered(module: ir.Module, signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                *, opt_level: int = 3, shared_libs: list[str] | None = None,
                function_class: type = Function, initialize: bool = False,
                object_dump: bool = False, parallel: bool | None = None) -> Executable:
    """JIT a module already at the `llvm` stage (CUDA: `binary`). `signatures`
    come from `function_signatures` of the module *before* lowering. Not cached.
    `initialize` runs the module's global constructors (a CUDA program's
    constructors load its kernels with ``mgpuModuleLoad``). `object_dump`
    keeps the object code, position independent, for
    ``engine.dump_to_object_file`` (the persistent compilation cache links it).
    `parallel`: whether the module forks OpenMP teams (None: look)."""
    global compile_count
    from mlir.execution_engine import ExecutionEngine

    code_before = jit_code_bytes()
    started = time.perf_counter_ns()
    try:
        engine = ExecutionEngine(module, opt_level=opt_level,
                                 shared_libs=runtime_libraries() if shared_libs is None else shared_libs,
                                 enable_object_dump=object_dump, enable_pic=object_dump)
        if initialize:
            engine.initialize()
    except Exception as error:  # noqa: BLE001 -- the bindings raise RuntimeError and others
        raise CompileError(f"the execution engine rejected the module: {error}") from None
    from jaxc import _callback
    register_spmd_runtime(engine, module)
    if _callback.register_trampolines(engine, module) and function_class is Function:
        function_class = CallbackFunction
    compile_count += 1
    if parallel is None:
        from jaxc.passes import stages
        parallel = "omp.parallel" in stages.check_translatable(module)
    executable = Executable(engine, module, signatures, function_class,  # looks up: code is made
                            parallel=parallel)
    executable.code_bytes = max(0, jit_code_bytes() - code_before)
    from jaxc.profiler import traces as profile
    if profile.SESSION is not None:
        profile.SESSION.record("llvm compile", "compile", started, time.perf_counter_ns(),
                               {"code_bytes": executable.code_bytes})
    return executable


SPMD_AXES = "jaxc.spmd_axes"  # the module attribute of a pmap program (passes/lowering/collectives.py)
PARTITIONED = "jaxc.sharding"  # argument/result attribute of a program split by its shardings (passes/partition.py)


def register_spmd_runtime(engine: Any, module: ir.Module) -> None:
    """Resolve the SPMD runtime's functions (`_fastcall.c`, "SPMD") that
    the LLVM-dialect `module` calls: collectives and the lane index."""
    import ctypes
    library = None
    for op in module.body.operations:
        if op.operation.name != "llvm.func":
            continue
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        if not name.startswith("_mlir_ciface_jaxc_spmd_") or len(op.operation.regions[0].blocks):
            continue
        if library is None:
            library = ctypes.CDLL(_fastcall.__file__)
        function = name.removeprefix("_mlir_ciface_").split("__")[0]  # one declaration per signature
        address = ctypes.cast(getattr(library, function), ctypes.c_void_p)
        engine.raw_register_runtime(name, address)


LIVE_EXECUTABLES: "weakref.WeakSet[Executable]" = weakref.WeakSet()


def jit_code_bytes() -> int:
    """Bytes of anonymous executable memory mapped in this process: the
    machine code the JIT has made (pages; 0 where /proc/self/maps is missing)."""
    total = 0
    try:
        with open("/proc/self/maps", "rb") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) == 5 and fields[1][2:3] == b"x":  # no path: anonymous
                    low, high = fields[0].split(b"-")
                    total += int(high, 16) - int(low, 16)
    except OSError:
        return 0
    return total


def function_signatures(module: ir.Module) -> dict[str, tuple[list[ArgSpec], list[ArgSpec]]]:
    """Argument and result specs of each public function with a body,
    read before lowering (so ``ui8`` etc. keep their signedness)."""
    signatures = {}
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        op = op.operation
        visibility = op.attributes["sym_visibility"].value if "sym_visibility" in op.attributes else "public"
        if visibility != "public" or len(op.regions[0].blocks) == 0:
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        signatures[name] = ([_spec(name, "argument", i, t) for i, t in enumerate(ftype.inputs)],
                            [_spec(name, "result", i, t) for i, t in enumerate(ftype.results)])
    return signatures


def _spec(func: str, what: str, index: int, type_: ir.Type) -> ArgSpec:
    if not isinstance(type_, ir.RankedTensorType) or not type_.has_static_shape:
        raise CompileError(f"@{func}: {what} {index} has type {type_}; the CPU runtime takes "
                           "statically shaped tensors only (a scalar is a 0-d tensor)")
    try:
        return ArgSpec(tuple(type_.shape), str(type_.element_type))
    except TypeError as error:
        raise CompileError(f"@{func}: {what} {index}: {error}") from None


RUNNER_UTILS = "libmlir_c_runner_utils.so"


def runtime_libraries() -> list[str]:
    """The shared libraries compiled CPU code calls: MLIR's C runner utilities
    (memrefCopy and friends, from the pinned wheel), glibc's libmvec (vector
    math, `jaxc-vector-math-to-libmvec`), the OpenMP runtime of the
    intel-openmp wheel (parallel kernels; `openmp.py`) and jaxc's own kernels
    (matrix products, `jaxc-library-calls`; built with jaxc beside `_fastcall`)."""
    import mlir

    from . import openmp

    libraries = []
    for root in mlir.__path__:
        path = os.path.join(root, "lib", RUNNER_UTILS)
        if os.path.exists(path):
            libraries.append(path)
            break
    libraries += [path for path in (openmp.libmvec_path(), openmp.load()) if path]
    return libraries + [kernels_library()]


def kernels_library() -> str:
    """libjaxc_kernels.so, built and installed beside the `_fastcall` extension."""
    return os.path.join(os.path.dirname(_fastcall.__file__), "libjaxc_kernels.so")


class _captured_diagnostics:
    """Collect every diagnostic of `context` as text while compiling."""

    def __init__(self, context: ir.Context) -> None:
        self.context = context
        self.lines: list[str] = []

    def __enter__(self) -> list[str]:
        def handler(diag) -> bool:
            self.lines.append(_format_diagnostic(diag))
            return True

        self.handle = self.context.attach_diagnostic_handler(handler)
        return self.lines

    def __exit__(self, *exc) -> None:
        self.handle.detach()


def _format_diagnostic(diag, indent: str = "") -> str:
    severity = str(diag.severity).rsplit(".", 1)[-1].lower()
    text = f"{indent}{diag.location}: {severity}: {diag.message}"
    notes = [_format_diagnostic(note, indent + "  ") for note in diag.notes]
    return "\n".join([text, *notes])


def _format_error(error: ir.MLIRError, captured: list[str]) -> str:
    lines = list(captured)
    lines += [_format_diagnostic(d) for d in error.error_diagnostics]
    return "\n".join(lines) or str(error)
