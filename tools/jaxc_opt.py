"""jaxc-opt: parse MLIR, run a pass pipeline, print the result -- mlir-opt
for the jaxc project, with the jaxc dialect and the project's Python passes.

Layout of one run: `main` reads the command line; `select_pipeline` decides
what to run (the ONE place that will also handle ``--stage``); the input is
read in this process; the work (parse, passes, printing) runs in a forked
child on a thread with a large stack (`run_guarded`), so a crash or an LLVM
assertion in the compiler becomes an error message instead of a core dump.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import signal
import subprocess
import sys
from typing import Sequence

from mlir import ir

from jaxc.passes import pipeline

from . import diagnostics, mlir_timing, source, stage_runner
from .crash_guard import run_guarded, silence_stdout
from .list_passes import list_passes

PROG = "jaxc-opt"
SPLIT_MARKER = "// -----"
ENV_NO_CRASH_GUARD = "JAXC_OPT_NO_CRASH_GUARD"
ENV_TEST_CRASH = "JAXC_OPT_TEST_CRASH"  # tests only: abort | segv in the child

DESCRIPTION = """\
Parse MLIR (jaxc and every upstream dialect), run a pass pipeline, print the
result. Options follow mlir-opt: any option that is not listed below is a pass
(--canonicalize, -cse, --convert-foo="opt1=1 opt2=2"), run in the order given.
Project passes (see --list-passes) mix freely with upstream ones."""

EPILOG = """\
examples:
  jaxc-opt in.mlir                                   parse, verify, print
  jaxc-opt --canonicalize --cse in.mlir -o out.mlir
  jaxc-opt --pass-pipeline='builtin.module(func.func(canonicalize),jaxc-cleanup)' in.mlir
  jaxc-opt --split-input-file --verify-diagnostics invalid.mlir
  jaxc-opt --mlir-print-ir-after-all --jaxc-cleanup in.mlir
  jaxc-opt --stage=bufferized in.mlir                run the stages up to bufferized
  jaxc-opt --stages in.mlir                          print every stage
  jaxc-opt --stages --target=cuda --chip=sm_80 in.mlir   ... down to the GPU's PTX
  jaxc-opt --run=f --arg='[[1,2],[3,4]]:f32' in.mlir  run @f on the CPU
  jaxc-opt --mlir-timing --stage=llvm in.mlir        time parsing, every stage's passes, printing
  jaxc-opt --list-passes"""


class UsageError(Exception):
    """A command line that cannot be understood."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors exit with status 1 like mlir-opt."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(1, f"{PROG}: error: {message}\n")


def build_arg_parser() -> argparse.ArgumentParser:
    """The options jaxc-opt itself understands (pass flags are split off first)."""
    parser = _Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG, allow_abbrev=False,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     usage="%(prog)s [options] [--pass-pipeline=PIPELINE | --PASS[=OPTIONS]...] [INPUT]")
    parser.add_argument("input", nargs="?", default="-", help="input file; '-' or none: stdin")
    parser.add_argument("-o", dest="output", default="-", metavar="FILE",
                        help="output file (default: stdout)")
    parser.add_argument("--pass-pipeline", metavar="PIPELINE",
                        help="textual pipeline, e.g. 'builtin.module(func.func(cse),jaxc-cleanup)'")
    parser.add_argument("--list-passes", action="store_true",
                        help="list the project passes, then the upstream ones, and exit")
    staging = parser.add_argument_group("stages (docs/stages.md; not with passes)")
    staging.add_argument("--stage", metavar="NAME",
                         help="run the stages up to and including NAME and print that stage")
    staging.add_argument("--stages", action="store_true",
                         help="print every stage in order, each under a '// ===== stage: NAME' line")
    staging.add_argument("--print-schedule", action="store_true",
                         help="print the transform-dialect schedule of every kernel (the input "
                              "lowered to linalg and fused) instead of the IR")
    staging.add_argument("--list-stages", action="store_true",
                         help="list the stages with their pipelines and exit")
    staging.add_argument("--target", choices=("cpu", "cuda"),
                         help="the stages' target (default: cpu, or cuda when --stage names a "
                              "GPU stage: gpu, nvvm, ptx, binary)")
    staging.add_argument("--chip", metavar="SM", default=None,
                         help="--target=cuda: the compute capability to compile for (default: sm_90)")
    staging.add_argument("--run", metavar="FUNC",
                         help="compile through the llvm stage, run @FUNC on the CPU, print its results")
    staging.add_argument("--input", dest="run_input", metavar="FILE.npz",
                         help="--run's arguments: arrays arr_0, arr_1, ... of an .npz file")
    staging.add_argument("--arg", dest="run_args", action="append", metavar="VALUE[:TYPE]",
                         help="--run's next argument, e.g. '[[1,2],[3,4]]:f32' (repeat per parameter)")
    parser.add_argument("--split-input-file", nargs="?", const=SPLIT_MARKER, metavar="MARKER",
                        help=f"process each chunk between '{SPLIT_MARKER}' lines (or MARKER) "
                             "on its own")
    parser.add_argument("--output-split-marker", default=SPLIT_MARKER, metavar="MARKER",
                        help=f"line between the outputs of the chunks (default: '{SPLIT_MARKER}')")
    parser.add_argument("--verify-diagnostics", nargs="?", const="all",
                        choices=("all", "only-expected"),
                        help="check diagnostics against expected-* lines in the input; "
                             "=only-expected ignores unexpected ones")
    parser.add_argument("--allow-unregistered-dialect", action="store_true",
                        help="accept ops of dialects that are not registered")
    parser.add_argument("--verify-each", action=argparse.BooleanOptionalAction, default=True,
                        help="verify the IR after each pass (default: on)")
    printing = parser.add_argument_group("printing")
    printing.add_argument("--mlir-print-op-generic", action="store_true",
                          help="print ops in generic form")
    printing.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    printing.add_argument("--mlir-pretty-debuginfo", action="store_true",
                          help="print locations in pretty form")
    printing.add_argument("--mlir-print-local-scope", action="store_true",
                          help="print types and attributes inline, without aliases")
    printing.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, metavar="N",
                          help="elide elements attributes with more than N elements")
    dumps = parser.add_argument_group("IR dumps (to stderr)")
    for when, help_text in (("before-all", "before every pass"), ("after-all", "after every pass"),
                            ("after-change", "after every pass that changed it"),
                            ("after-failure", "after a pass that failed")):
        dumps.add_argument(f"--mlir-print-ir-{when}", action="store_true",
                           help=f"print the IR {help_text}")
    dumps.add_argument("--mlir-print-ir-module-scope", action="store_true",
                       help="always print the whole module in IR dumps")
    timing = parser.add_argument_group("timing (report to stderr)")
    timing.add_argument("--mlir-timing", action="store_true",
                        help="print the time of parsing, of every pass (of every stage) and of "
                             "printing, as mlir-opt does")
    timing.add_argument("--mlir-timing-display", choices=("list", "tree"), default="tree",
                        help="tree: nested as run (default); list: added up by name, slowest first")
    timing.add_argument("--mlir-output-format", choices=("text", "json"), default="text",
                        help="the report as text (default) or JSON")
    parser.add_argument("--no-crash-guard", action="store_true",
                        help=f"work in this process, not a forked child (for debuggers); "
                             f"also {ENV_NO_CRASH_GUARD}=1")
    return parser


def split_pass_flags(argv: Sequence[str], parser: argparse.ArgumentParser
                     ) -> tuple[list[str], list[tuple[str, str | None]]]:
    """Separate jaxc-opt's own options from pass flags, mlir-opt style.

    Own options may be spelled with one dash or two (``-split-input-file``);
    a boolean option also takes ``=true``/``=false``. Anything else that
    starts with a dash is a pass: ``--name`` or ``--name=options``.
    """
    actions = parser._option_string_actions  # option string -> action
    own: list[str] = []
    flags: list[tuple[str, str | None]] = []
    args = iter(argv)
    for arg in args:
        if arg == "-" or not arg.startswith("-"):
            own.append(arg)
            continue
        if arg == "--":
            own.extend([arg, *args])
            break
        spelled, has_value, value = arg.partition("=")
        option = spelled if spelled in actions else "--" + spelled.lstrip("-")
        action = actions.get(option)
        if action is None:
            flags.append(_pass_flag(spelled.lstrip("-"), value if has_value else None))
        elif action.nargs == 0 and has_value:
            own.extend(_boolean_option(option, action, value))
        elif action.nargs == "?" and not has_value:
            own.append(f"{option}={action.const}")  # never swallow the next argument
        elif action.nargs != 0 and not has_value:
            value = next(args, None)
            if value is None:
                raise UsageError(f"option '{spelled}' requires a value")
            own.extend([option, value])
        else:
            own.append(f"{option}={value}" if has_value else option)
    return own, flags


def _pass_flag(name: str, value: str | None) -> tuple[str, str | None]:
    if name.startswith("mlir-") or not re.fullmatch(r"[A-Za-z0-9_.$][A-Za-z0-9_.$-]*", name):
        raise UsageError(f"unknown or unsupported option '-{name}' (see {PROG} --help)")
    return name, value


def _boolean_option(option: str, action: argparse.Action, value: str) -> list[str]:
    """``--flag=true`` / ``--flag=false`` as LLVM's command line accepts them."""
    truth = {"true": True, "1": True, "false": False, "0": False}.get(value.lower())
    if truth is None:
        raise UsageError(f"option '{option}' expects true or false, got '{value}'")
    if isinstance(action, argparse.BooleanOptionalAction):
        return [option if truth else "--no-" + option[2:]]
    return [option] if truth else []


# ----------------------------------------------------------------------------
# What to run
# ----------------------------------------------------------------------------

@dataclasses.dataclass
class PipelineRequest:
    """A pipeline to build: its tree, its text (for error carets) and whether
    op-specific passes may be nested implicitly (per-pass flags, like mlir-opt)."""

    root: pipeline.Anchor
    text: str
    implicit_nesting: bool


def select_pipeline(args: argparse.Namespace, pass_flags: list[tuple[str, str | None]]
                    ) -> PipelineRequest | stage_runner.StageRequest | None:
    """Decide what pipeline the command line asks for (None: parse and print);
    --stage/--stages/--run give a `stage_runner.StageRequest`.

    Raises `UsageError` or `pipeline.PipelineError`.
    """
    staged = [name for name, on in (("--stage", args.stage is not None), ("--stages", args.stages),
                                    ("--run", args.run is not None),
                                    ("--print-schedule", args.print_schedule)) if on]
    if staged and (args.pass_pipeline is not None or pass_flags):
        raise UsageError(f"'{staged[0]}' can't be used with '--pass-pipeline' or individual pass options")
    if staged or args.run_input is not None or args.run_args:
        try:
            return stage_runner.make_request(args.stage, args.stages, args.run, args.run_input,
                                             args.run_args, target=args.target, chip=args.chip,
                                             print_schedule=args.print_schedule)
        except ValueError as error:  # StageError included
            raise UsageError(str(error)) from None
    if args.pass_pipeline is not None and pass_flags:
        raise UsageError("'--pass-pipeline' option can't be used with individual pass options")
    if args.pass_pipeline is not None:
        return PipelineRequest(pipeline.parse_pipeline(args.pass_pipeline), args.pass_pipeline, False)
    if pass_flags:
        root = pipeline.pipeline_from_flags(pass_flags)
        return PipelineRequest(root, root.text(), True)
    return None


# ----------------------------------------------------------------------------
# The work: parse, run, print
# ----------------------------------------------------------------------------

def process(args: argparse.Namespace, src: source.Source, request: PipelineRequest | None) -> int:
    """Parse each chunk of `src`, run the pipeline, print diagnostics and the
    result. Returns the exit status."""
    from jaxc.dialect import make_context  # imported (and checked) by main

    context = make_context()
    # --mlir-timing's Total counts from here: like mlir-opt's, it leaves out start-up.
    timer = mlir_timing.RunTimer() if args.mlir_timing else None
    context.allow_unregistered_dialects = args.allow_unregistered_dialect
    printer = diagnostics.Printer({src.name: src.lines})
    verifier = None
    if args.verify_diagnostics is not None:
        verifier = diagnostics.Verifier(src.name, src.text, printer,
                                        only_expected=args.verify_diagnostics == "only-expected")
    collector = diagnostics.Collector(context, src.name, verifier.check if verifier else printer.emit,
                                      drop_op_notes=verifier is not None)
    _maybe_test_crash()
    pm = None
    if isinstance(request, PipelineRequest):
        try:
            pm = pipeline.build_pass_manager(request.root, context,
                                             implicit_nesting=request.implicit_nesting)
        except pipeline.PipelineError as error:
            return _fail(f"invalid pass pipeline: {error.render(request.text)}")
        _configure_pass_manager(pm, args)
        if timer is not None:
            pm.enable_timing()
            timer.pass_managers.append(pm)

    chunks, near_misses = source.split_input(
        src, None if src.is_bytecode else args.split_input_file)
    for line, col in near_misses:
        printer.message(diagnostics.FileLoc(src.name, line, col), "warning",
                        "near miss with file split marker")
    outputs, failed = [], False
    for chunk in chunks:
        errors_before = collector.error_count
        output, ok = _process_chunk(chunk.text, src, context, pm, args, collector, request, timer)
        if not ok and not verifier and collector.error_count == errors_before:
            printer.message(diagnostics.FileLoc(src.name, chunk.first_line, 0), "error",
                            "the pass pipeline failed without a diagnostic")
        outputs.append(output)
        failed = failed or not ok
    ok = verifier.finish() if verifier else not failed
    result = (args.output_split_marker + "\n").join(outputs)
    with mlir_timing.measure(timer, mlir_timing.OUTPUT):
        status = _write_output(args.output, result, keep_file=ok) or (0 if ok else 1)
    if timer is not None:
        del pm  # the timer's list must hold the last reference: destroying it prints its times
        sys.stderr.write(timer.report(args.mlir_timing_display, args.mlir_output_format))
    return status


def _process_chunk(text: str, src: source.Source, context: ir.Context, pm,
                   args: argparse.Namespace, collector: diagnostics.Collector,
                   request=None, timer: mlir_timing.RunTimer | None = None) -> tuple[str, bool]:
    """Parse one chunk, run the pass manager on it; the printed module (with
    mlir-opt's trailing blank line) or "" on failure. Diagnostics go to the
    collector; times to `timer` (--mlir-timing)."""
    try:
        # Parse errors are collected by the bindings (so the "N top-level ops"
        # case can be recognised); everything else reaches the handler live.
        context.emit_error_diagnostics = False
        try:
            with mlir_timing.measure(timer, mlir_timing.PARSER):
                module = (source.parse_bytecode(src.data, context) if src.is_bytecode
                          else source.parse_module(text, src.name, context))
        finally:
            context.emit_error_diagnostics = True
        if isinstance(request, stage_runner.StageRequest):
            return stage_runner.process_module(
                module, request, _print_flags(args),
                configure=lambda stage_pm: _configure_pass_manager(stage_pm, args), timer=timer), True
        if pm is not None:
            sys.stderr.flush()
            pm.run(module.operation)
        with mlir_timing.measure(timer, mlir_timing.OUTPUT):
            return module.operation.get_asm(**_print_flags(args)) + "\n", True
    except ir.MLIRError as error:
        collector.add_error(error)
        return "", False
    except source.InputError as error:  # found before parsing (source.parse_module)
        file, line, col = error.where.rsplit(":", 2)
        collector.add(diagnostics.Diag("error", error.message, diagnostics.FileLoc(file, int(line), int(col)),
                                       "", [], []))
        return "", False
    except stage_runner.stage_table.StageError as error:
        _fail(str(error))
        collector.error_count += 1  # reported: no "failed without a diagnostic" note
        return "", False


def _print_flags(args: argparse.Namespace) -> dict:
    """Keyword arguments for `Operation.get_asm` from the printing options."""
    return dict(
        print_generic_op_form=args.mlir_print_op_generic,
        enable_debug_info=args.mlir_print_debuginfo or args.mlir_pretty_debuginfo,
        pretty_debug_info=args.mlir_pretty_debuginfo,
        use_local_scope=args.mlir_print_local_scope,
        large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
    )


def _configure_pass_manager(pm, args: argparse.Namespace) -> None:
    """Verifier and IR dumps, as mlir-opt's --verify-each and --mlir-print-ir-*."""
    pm.enable_verifier(args.verify_each)
    dumps = dict(print_before_all=args.mlir_print_ir_before_all,
                 print_after_all=args.mlir_print_ir_after_all,
                 print_after_change=args.mlir_print_ir_after_change,
                 print_after_failure=args.mlir_print_ir_after_failure)
    if any(dumps.values()):
        pm.enable_ir_printing(**dumps, print_module_scope=args.mlir_print_ir_module_scope,
                              large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
                              enable_debug_info=args.mlir_print_debuginfo,
                              print_generic_op_form=args.mlir_print_op_generic)


def check_output_file(path: str) -> bool:
    """Make sure `path` can be written before the work starts (mlir-opt opens
    it early, too); creates it if missing. Returns whether it existed."""
    if path == "-":
        return True
    existed = os.path.exists(path)
    with open(path, "a", encoding="utf-8"):
        pass
    return existed


def _write_output(path: str, text: str, keep_file: bool) -> int:
    """Write the result to stdout (always) or to the file `path` (only when
    the run succeeded). Returns 0, or 1 after printing why it failed."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    if not keep_file:
        return 0
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as error:
        return _fail(f"cannot write output file '{path}': {error.strerror or error}")
    return 0


def _maybe_test_crash() -> None:
    """Tests simulate a compiler crash with JAXC_OPT_TEST_CRASH=abort|segv."""
    crash = os.environ.get(ENV_TEST_CRASH)
    if crash == "abort":
        os.abort()
    if crash == "segv":
        # raise() signals this thread synchronously; os.kill could let the
        # worker print before the signal lands.
        signal.raise_signal(signal.SIGSEGV)


def _fail(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return 1


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """The console script `jaxc-opt`; returns the exit status."""
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away: `jaxc-opt --list-passes | head`
        silence_stdout()
        return 1


def _main(argv: list[str]) -> int:
    parser = build_arg_parser()
    try:
        own, pass_flags = split_pass_flags(argv, parser)
    except UsageError as error:
        return _fail(str(error))
    args = parser.parse_args(own)
    if args.list_passes:
        try:
            list_passes(sys.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as error:
            return _fail(f"cannot list upstream passes: {error}")
        return 0
    if args.list_stages:
        try:
            stage_runner.list_stages(sys.stdout, args.target or "cpu", args.chip)
        except ValueError as error:  # StageError: an unsupported chip
            return _fail(str(error))
        return 0
    try:
        request = select_pipeline(args, pass_flags)
    except UsageError as error:
        return _fail(str(error))
    except pipeline.PipelineError as error:
        return _fail(f"invalid pass pipeline: {error.render(args.pass_pipeline or '')}")
    try:
        src = source.read_input(args.input)
    except source.InputError as error:
        if error.where is None:
            return _fail(error.message)
        sys.stderr.write(f"{error.where}: error: {error.message}\n")
        return 1
    try:
        import jaxc.dialect  # noqa: F401  loaded before forking, once
    except (ImportError, OSError) as error:
        return _fail(f"cannot load the jaxc dialect: {error}")
    try:
        created = not check_output_file(args.output)
    except OSError as error:
        return _fail(f"cannot open output file '{args.output}': {error.strerror or error}")
    guard = not (args.no_crash_guard or os.environ.get(ENV_NO_CRASH_GUARD))
    status = run_guarded(lambda: process(args, src, request), src.name, guard, prog=PROG)
    if status != 0 and created:
        _remove_quietly(args.output)  # leave no empty output file behind
    return status


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
