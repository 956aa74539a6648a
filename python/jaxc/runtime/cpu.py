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
allocated here with `np.empty`) and makes one ctypes call, which releases the
GIL while the compiled code runs.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Any, Sequence

import jaxc_aot
import numpy as np
from jaxc_aot import BF16_BITS, c_strides as _c_strides
from mlir import ir

# MLIR element type -> NumPy dtype: the table of the AOT loader, which
# calls compiled functions the same way (bf16 travels as its 16 raw bits,
# see `bf16_dtype`).
_DTYPES = jaxc_aot.DTYPES


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


class ArgSpec:
    """The static type of one argument or result: shape, element type, dtype."""

    __slots__ = ("shape", "element_type", "dtype")

    def __init__(self, shape: tuple[int, ...], element_type: str) -> None:
        self.shape = shape
        self.element_type = element_type
        self.dtype = numpy_dtype(element_type)

    def __repr__(self) -> str:
        return f"tensor<{'x'.join(map(str, self.shape)) + 'x' if self.shape else ''}{self.element_type}>"

    def accepts(self, dtype: np.dtype) -> bool:
        if self.element_type == "bf16":
            return dtype == BF16_BITS or dtype == self.dtype
        return dtype == self.dtype


class Function:
    """A compiled function: call it with NumPy arrays (or anything
    `np.asarray` takes, of the right dtype); returns a tuple of arrays."""

    def __init__(self, name: str, address: int, args: Sequence[ArgSpec],
                 results: Sequence[ArgSpec], owner: "Executable") -> None:
        self.name = name
        self.args = tuple(args)
        self.results = tuple(results)
        self._owner = owner  # keeps the JIT (and so `address`) alive
        self._call = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        specs = self.args + self.results
        # One int64 buffer holds every descriptor: [alloc, aligned, offset, sizes, strides].
        self._slots: list[int] = []  # index of `allocated` for each memref
        words: list[int] = []
        for spec in specs:
            self._slots.append(len(words))
            strides = _c_strides(spec.shape)
            words += [0, 0, 0, *spec.shape, *strides]
        self._desc = (ctypes.c_int64 * max(len(words), 1))(*words)
        base = ctypes.addressof(self._desc)
        self._cells = (ctypes.c_void_p * max(len(specs), 1))(*[base + 8 * s for s in self._slots])
        cells = ctypes.addressof(self._cells)
        self._packed = (ctypes.c_void_p * max(len(specs), 1))(*[cells + 8 * i for i in range(len(specs))])
        self._lock = threading.Lock()
        self._out_dtypes = tuple(
            BF16_BITS if spec.element_type == "bf16" else spec.dtype for spec in self.results)
        # bf16 results are written as raw bits and viewed as the result dtype.
        self._view_results = self._out_dtypes != tuple(spec.dtype for spec in self.results)

    def __repr__(self) -> str:
        return (f"<jaxc.runtime.Function {self.name}({', '.join(map(repr, self.args))}) -> "
                f"({', '.join(map(repr, self.results))})>")

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}() takes {len(self.args)} arguments, got {len(args)}")
        inputs = [self._place(jaxc_aot.checked_argument(self.name, i, spec, value))
                  for i, (spec, value) in enumerate(zip(self.args, args))]
        outputs = [self._empty(spec.shape, dtype) for spec, dtype in zip(self.results, self._out_dtypes)]
        desc, slots = self._desc, self._slots
        with self._lock:
            for slot, array in zip(slots, inputs + outputs):
                desc[slot] = desc[slot + 1] = array.ctypes.data
            self._call(self._packed)
        if self._view_results:
            outputs = [out.view(spec.dtype) for out, spec in zip(outputs, self.results)]
        return tuple(outputs)

    # Where buffers live: host memory here; `cuda.CudaFunction` uses managed memory.
    _empty = staticmethod(np.empty)

    @staticmethod
    def _place(array: np.ndarray) -> np.ndarray:
        return array


class Executable:
    """A module compiled by the execution engine; ``exe["f"]`` is a `Function`."""

    def __init__(self, engine: Any, module: ir.Module,
                 signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                 function_class: type = Function) -> None:
        self.engine = engine
        self.module = module  # the LLVM-dialect module (keeps its context alive)
        self.functions: dict[str, Function] = {}
        for name, (args, results) in signatures.items():
            address = engine.raw_lookup("_mlir_ciface_" + name)
            if not address:
                raise CompileError(f"function '{name}' has no C interface after compilation")
            self.functions[name] = function_class(name, address, args, results, self)

    def __getitem__(self, name: str) -> Function:
        try:
            return self.functions[name]
        except KeyError:
            known = ", ".join(sorted(self.functions)) or "none"
            raise KeyError(f"no public function '{name}' in the module (functions: {known})") from None

    def __contains__(self, name: str) -> bool:
        return name in self.functions


# ----------------------------------------------------------------------------
# Compilation
# ----------------------------------------------------------------------------

_CACHE: dict[tuple, Executable] = {}
_CACHE_LOCK = threading.Lock()
compile_count = 0  # how many modules were actually compiled (tests check the cache)


def compile_module(module: str | ir.Module, *, first_stage: str | None = None,
                   opt_level: int = 3, target: str = "cpu", chip: str = "sm_90") -> Executable:
    """Compile `module` (text or `ir.Module`, at stage `first_stage`; None:
    traced) through the `llvm` stage and JIT it; for ``target="cuda"``
    through the `binary` stage for `chip`, linked to MLIR's CUDA runtime
    wrappers (`jaxc.runtime.cuda`). The same text is compiled only once per
    process and target. Raises `CompileError`."""
    text = module if isinstance(module, str) else str(module)
    key = (text, first_stage, opt_level, target, chip if target == "cuda" else None)
    with _CACHE_LOCK:
        executable = _CACHE.get(key)
        if executable is None:
            executable = _compile(text, first_stage, opt_level, target, chip)
            _CACHE[key] = executable
    return executable


_COMPILE_CONTEXT: dict[str, Any] = {}  # "context" and its stage "pass_managers", made once


def _compile(text: str, first_stage: str | None, opt_level: int, target: str = "cpu",
             chip: str = "sm_90") -> Executable:
    """Parse and lower `text` in the one compile context (creating a context
    and the stages' pass managers costs more than lowering a small module);
    callers hold `_CACHE_LOCK`."""
    from jaxc.dialect import make_context
    from jaxc.passes import pipeline, stages

    if not _COMPILE_CONTEXT:
        _COMPILE_CONTEXT.update(context=make_context(), pass_managers={})
    context = _COMPILE_CONTEXT["context"]
    with _captured_diagnostics(context) as diags:
        try:
            module = ir.Module.parse(text, context)
            signatures = function_signatures(module)
            stages.run_stages(module, "llvm" if target == "cpu" else "binary", first=first_stage,
                              pass_managers=_COMPILE_CONTEXT["pass_managers"],
                              target=target, chip=chip)
            stages.check_translatable(module)
        except ir.MLIRError as error:
            raise CompileError(f"cannot compile the module for the {_DEVICE_NAMES[target]}",
                               _format_error(error, diags)) from None
        except (pipeline.PipelineError, stages.StageError) as error:
            raise CompileError(f"cannot compile the module for the {_DEVICE_NAMES[target]}: {error}",
                               "\n".join(diags)) from None
    if target == "cpu":
        return jit_lowered(module, signatures, opt_level=opt_level)
    from . import cuda
    return jit_lowered(module, signatures, opt_level=opt_level, shared_libs=cuda.runtime_libraries(),
                       function_class=cuda.CudaFunction, initialize=True)


_DEVICE_NAMES = {"cpu": "CPU", "cuda": "GPU"}


def jit_lowered(module: ir.Module, signatures: dict[str, tuple[list[ArgSpec], list[ArgSpec]]],
                *, opt_level: int = 3, shared_libs: list[str] | None = None,
                function_class: type = Function, initialize: bool = False) -> Executable:
    """JIT a module already at the `llvm` stage (CUDA: `binary`). `signatures`
    come from `function_signatures` of the module *before* lowering. Not cached.
    `initialize` runs the module's global constructors (a CUDA program's
    constructors load its kernels with ``mgpuModuleLoad``)."""
    global compile_count
    from mlir.execution_engine import ExecutionEngine

    try:
        engine = ExecutionEngine(module, opt_level=opt_level,
                                 shared_libs=runtime_libraries() if shared_libs is None else shared_libs,
                                 enable_object_dump=False)
        if initialize:
            engine.initialize()
    except Exception as error:  # noqa: BLE001 -- the bindings raise RuntimeError and others
        raise CompileError(f"the execution engine rejected the module: {error}") from None
    compile_count += 1
    return Executable(engine, module, signatures, function_class)


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


def runtime_libraries() -> list[str]:
    """MLIR's C runner utilities (memrefCopy and friends) from the pinned wheel."""
    import mlir

    for root in mlir.__path__:
        path = os.path.join(root, "lib", "libmlir_c_runner_utils.so")
        if os.path.exists(path):
            return [path]
    return []


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
