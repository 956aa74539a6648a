"""jaxc-opt's ``--stage``, ``--stages`` and ``--run``: lower a parsed module
through the named stages of `jaxc.passes.stages`, print it, or run one of
its functions on the CPU and print the results.

``--run=FUNC`` takes its arguments from ``--input FILE.npz`` (arrays
``arr_0, arr_1, ...`` as ``np.savez`` names them, else in file order) or from
``--arg`` values, one per parameter, in order::

    --arg='[[1, 2], [3, 4]]:f32'    nested lists, then ':' and an element type
    --arg='2.5'                     without a type: the parameter's element type
    --arg='[nan, inf, -inf]:f64'    nan/inf are accepted; true/false for i1

Each result prints as ``result N: <NumPy repr with dtype>``.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import sys
from typing import Callable

import numpy as np
from mlir import ir

from jaxc.passes import stages as stage_table

from . import mlir_timing

HEADER = "// ===== stage: {} ====="


@dataclasses.dataclass
class StageRequest:
    """What --stage/--stages/--run asked for."""

    stages: list  # the stages to run, in order
    print_each: bool = False  # --stages
    run: str | None = None  # --run=FUNC
    print_schedule: bool = False  # --print-schedule
    inputs: list[np.ndarray | tuple[str, str | None]] = dataclasses.field(default_factory=list)


def make_request(stage: str | None, all_stages: bool, run: str | None,
                 npz: str | None, arg_texts: list[str] | None, *, target: str | None = None,
                 chip: str | None = None, print_schedule: bool = False) -> StageRequest:
    """Check the options; raises `stage_table.StageError` or ValueError."""
    if print_schedule:
        if stage is not None or all_stages or run is not None or (target is not None and
                                                                   stage_table.target_named(target)
                                                                   is not stage_table.CPU):
            raise ValueError("'--print-schedule' prints the CPU schedules of the input; "
                             "it takes no '--stage', '--stages', '--run' or '--target'")
        fusion = stage_table.Stage("fused", stage_table.FUSION, "the scheduled stage's fusion")
        return StageRequest(stage_table.stages_between(None, "linalg") + [fusion], print_schedule=True)
    if target is None:
        target = stage_table.target_of_stage(stage) if stage is not None else "cpu"
    record = stage_table.target_named(target)
    if chip is not None and record.default_chip is None:
        raise ValueError("'--chip' needs '--target=cuda' (or a GPU stage)")
    chip = record.chip(chip)
    chosen = [name for name, on in (("--stage", stage is not None), ("--stages", all_stages),
                                    ("--run", run is not None)) if on]
    if len(chosen) > 1:
        raise ValueError(f"'{chosen[0]}' and '{chosen[1]}' cannot be used together")
    if (npz is not None or arg_texts) and run is None:
        raise ValueError("'--input' and '--arg' need '--run=FUNC'")
    if npz is not None and arg_texts:
        raise ValueError("give the arguments either with '--input FILE.npz' or with '--arg', not both")
    if run is not None:
        if record is not stage_table.CPU:
            raise ValueError("'--run' runs on the CPU only; jit on a GPU device runs CUDA programs")
        request = StageRequest(stage_table.stages_between(None, "llvm"), run=run)
        request.inputs = _load_npz(npz) if npz is not None else [_split_arg(t) for t in arg_texts or []]
        return request
    table = stage_table.target_stages(target, chip)
    last = stage if stage is not None else table[-1].name
    return StageRequest(stage_table.stages_between(None, last, target, chip), print_each=all_stages)


def process_module(module: ir.Module, request: StageRequest, asm_flags: dict,
                   configure: Callable | None = None,
                   timer: mlir_timing.RunTimer | None = None) -> str:
    """Lower `module` as `request` says; returns the text to print.
    With a `timer` (--mlir-timing) each stage runs on its timed pass manager
    and adds to its row, printing to "Output", --run's compile and call to
    ``run '@FUNC'``.

    MLIR failures raise `ir.MLIRError`; stage and run problems raise
    `stage_table.StageError` (message printed as ``jaxc-opt: error: ...``).
    """
    from jaxc.runtime import CompileError, function_signatures, jit_lowered

    signatures = None
    if request.run is not None:
        try:
            signatures = function_signatures(module)
        except CompileError as error:
            raise stage_table.StageError(str(error)) from None
        if request.run not in signatures:
            known = ", ".join(sorted(signatures)) or "none"
            raise stage_table.StageError(
                f"--run: no public function '@{request.run}' with a body (functions: {known})")
    parts: list[str] = []
    text = ""
    result: ir.Module | str = module
    for i, stage in enumerate(request.stages):
        pm = _pass_manager(stage, module, configure, timer)
        with mlir_timing.measure(timer, mlir_timing.stage_row(stage.name)):
            result = stage_table.run_stage(stage, module, result, pm)
        last = i == len(request.stages) - 1
        if isinstance(result, str):  # llvmir, asm (asm reads the llvmir text)
            text = result
        elif request.print_each or (last and request.run is None):
            with mlir_timing.measure(timer, mlir_timing.OUTPUT):
                text = module.operation.get_asm(**asm_flags) + "\n"  # printed only when shown
        if request.print_each:
            parts.append(HEADER.format(stage.name) + "\n" + text)
    if request.print_schedule:
        from jaxc.passes import schedule
        return schedule.schedule_text(module.operation) or "// no kernel to schedule\n"
    if request.run is None:
        return "".join(parts) if request.print_each else text
    try:
        with mlir_timing.measure(timer, f"run '@{request.run}'"):  # compile and call
            function = jit_lowered(_as_module(module), signatures)[request.run]
            _check_memory(function)
            args = [_to_array(value, spec) for value, spec in
                    zip(_check_count(request.inputs, function), function.args)]
            results = function(*args)
    except (CompileError, TypeError, ValueError) as error:
        raise stage_table.StageError(f"--run=@{request.run}: {error}") from None
    except MemoryError as error:
        raise stage_table.StageError(f"--run=@{request.run}: out of memory ({error})") from None
    return "".join(f"result {i}: {array_repr(r)}\n" for i, r in enumerate(results))


def _pass_manager(stage, module: ir.Module, configure, timer=None):
    """The stage's pass manager with jaxc-opt's printing options (`configure`);
    None for a text stage or a stage without passes. With a `timer`, the
    stage's timed pass manager, built once for all chunks."""
    if stage.kind != stage_table.MLIR:
        return None
    if timer is not None:
        pm = timer.stage_pass_manager(stage.name, lambda: _build_pass_manager(stage, module, configure))
    else:
        pm = _build_pass_manager(stage, module, configure)
    sys.stderr.flush()
    return pm


def _build_pass_manager(stage, module: ir.Module, configure):
    try:
        pm = stage_table.build_stage_pass_manager(stage, module.context)
    except ValueError as error:  # pipeline.PipelineError
        raise stage_table.StageError(f"stage '{stage.name}': {error}") from None
    if pm is not None and configure is not None:
        configure(pm)
    return pm


def array_repr(array: np.ndarray) -> str:
    """NumPy's repr, always with the dtype (NumPy leaves out float64, int64, bool)."""
    text = np.array_repr(array)
    if "dtype=" not in text:
        text = text[:-1] + f", dtype={array.dtype})"
    return text


def _check_memory(function) -> None:
    """Refuse a call whose arguments and results cannot fit in this machine's
    memory before allocating any of them."""
    from jaxc.runtime import numpy_dtype

    specs = list(function.args) + list(function.results)
    needed = sum(int(np.prod(spec.shape, dtype=object)) * np.dtype(numpy_dtype(spec.element_type)).itemsize
                 for spec in specs)
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return
    if needed > memory:
        raise ValueError(f"its arguments and results need {needed / 2**30:.4g} GiB, more than this "
                         f"machine's {memory / 2**30:.4g} GiB of memory")


def _check_count(inputs: list, function) -> list:
    if len(inputs) != len(function.args):
        raise ValueError(f"takes {len(function.args)} arguments, {len(inputs)} given "
                         "(one --arg per parameter, or --input FILE.npz)")
    return inputs


def _split_arg(text: str) -> tuple[str, str | None]:
    """``'[1, 2]:f32'`` -> ("[1, 2]", "f32"); no type -> (text, None)."""
    match = re.fullmatch(r"(.*):\s*([a-z]+[0-9]+|complex<f(?:32|64)>)\s*", text, re.S)
    return (match.group(1), match.group(2)) if match else (text, None)


def _to_array(value, spec) -> np.ndarray:
    """An --arg value (or an array from --input) as an array of `spec`'s dtype."""
    from jaxc.runtime import numpy_dtype

    if isinstance(value, np.ndarray):
        return value
    literal, element_type = value
    if element_type is not None and element_type != spec.element_type:
        raise ValueError(f"--arg '{literal}:{element_type}' does not match parameter type {spec!r}")
    try:
        if spec.element_type.startswith("complex"):  # Python literals: '[1+2j, -1j, 3]'
            data = ast.literal_eval(literal)
        else:
            data = json.loads(re.sub(r"\b(nan|inf|true|false|True|False)\b", _json_word, literal))
    except (json.JSONDecodeError, ValueError, SyntaxError):
        raise ValueError(f"--arg '{literal}' is not a number or nested list of numbers") from None
    if spec.element_type == "bf16":  # NumPy has no bf16: round f32 to its top 16 bits
        bits = np.asarray(data, np.float32).view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype(np.uint16).reshape(spec.shape)
    array = np.asarray(data, numpy_dtype(spec.element_type))
    if array.shape != spec.shape and array.size == 1 and array.ndim == 0:
        array = np.broadcast_to(array, spec.shape)  # a scalar fills the whole parameter
    return array


def _json_word(match: re.Match) -> str:
    return {"nan": "NaN", "inf": "Infinity", "True": "true", "False": "false"}.get(
        match.group(1), match.group(1))


def _load_npz(path: str) -> list[np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            names = list(data.files)
            if all(re.fullmatch(r"arr_\d+", n) for n in names):
                names.sort(key=lambda n: int(n[4:]))
            return [np.asarray(data[name]) for name in names]
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read --input '{path}': {error}") from None


def list_stages(out, target: str = "cpu", chip: str | None = None) -> None:
    """``--list-stages``: each stage of `target`, its description and its pipeline."""
    for stage in stage_table.target_stages(target, chip):
        out.write(f"{stage.name:<12} {stage.description}\n")
        if stage.kind == stage_table.MLIR and stage.passes:
            out.write(f"{'':<12}   {stage.pipeline_text()}\n")
        elif stage.kind != stage_table.MLIR:
            out.write(f"{'':<12}   ({stage.kind}: not a pass pipeline)\n")


def _as_module(module) -> ir.Module:
    """`module` as the `ir.Module` the execution engine takes: an input that
    is one `module {...}` parses to the module op itself (source.parse_module),
    which is printed and parsed again, locations included."""
    if isinstance(module, ir.Module):
        return module
    return ir.Module.parse(module.operation.get_asm(enable_debug_info=True), module.context)
