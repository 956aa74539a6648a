"""jaxc-opt as a program: exit codes, the crash guard, --split-input-file and
--verify-diagnostics; plus the pipeline parser and the pass registry behind
it. (IR-level behaviour is in tests/lit/cli.)"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

from jaxc.passes import pipeline, registry

OK_IR = """\
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
"""

BAD_RETURN_IR = """\
func.func @g(%a: i32) -> i64 {
  return %a : i32
}
"""

SPLIT = "\n// -----\n"


def jaxc_opt_command() -> list[str]:
    """The console script next to this interpreter, else on PATH, else the module."""
    script = Path(sys.executable).with_name("jaxc-opt")
    if script.exists():
        return [str(script)]
    found = shutil.which("jaxc-opt")
    return [found] if found else [sys.executable, "-m", "jaxc.tools.jaxc_opt"]


def run(*args: str, stdin: str | bytes | None = None, env: dict[str, str] | None = None,
        module: bool = False) -> subprocess.CompletedProcess:
    """Run jaxc-opt (as `python -m` when `module`) and capture its output."""
    command = [sys.executable, "-m", "jaxc.tools.jaxc_opt"] if module else jaxc_opt_command()
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **(env or {})}
    result = subprocess.run(command + list(args), input=data, capture_output=True,
                            env=full_env, timeout=120)
    result.stdout = result.stdout.decode("utf-8", "replace")
    result.stderr = result.stderr.decode("utf-8", "replace")
    return result


@pytest.fixture
def ok_file(tmp_path: Path) -> Path:
    path = tmp_path / "ok.mlir"
    path.write_text(OK_IR)
    return path


# ----------------------------------------------------------------------------
# Exit codes
# ----------------------------------------------------------------------------

def test_success_prints_the_module(ok_file: Path) -> None:
    result = run(str(ok_file))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("module {\n  func.func @f(%arg0: i32) -> i32 {")
    assert result.stdout.endswith("}\n\n")  # mlir-opt's trailing blank line
    assert result.stderr == ""


def test_module_is_runnable_with_python_m(ok_file: Path) -> None:
    result = run(str(ok_file), module=True)
    assert result.returncode == 0, result.stderr
    assert "func.func @f" in result.stdout


@pytest.mark.parametrize("args, stdin, message", [
    ((), "func.func @f() {\n  %0 = arith.addi %a : i32\n}\n", "<stdin>:2:21: error: expected ','"),
    ((), BAD_RETURN_IR, "<stdin>:2:3: error: type of return operand 0"),
    (("--pass-pipeline=builtin.module(nope)",), OK_IR,
     "jaxc-opt: error: invalid pass pipeline: 'nope' does not refer to a registered pass"),
    (("--no-such-pass",), OK_IR, "jaxc-opt: error: invalid pass pipeline: 'no-such-pass'"),
    (("/no/such/file.mlir",), None, "jaxc-opt: error: cannot open input file '/no/such/file.mlir'"),
    (("--pass-pipeline=builtin.module(cse)", "--cse"), OK_IR, "can't be used with individual pass"),
    (("-o",), OK_IR, "jaxc-opt: error: option '-o' requires a value"),
    ((), b"\xff\xfe", "<stdin>:1:1: error: input is not valid UTF-8 text"),
])
def test_errors_exit_1_with_a_message(args, stdin, message) -> None:
    result = run(*args, stdin=stdin)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_output_file_written_only_on_success(tmp_path: Path, ok_file: Path) -> None:
    out = tmp_path / "out.mlir"
    assert run(str(ok_file), "-o", str(out)).returncode == 0
    assert "func.func @f" in out.read_text()

    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD_RETURN_IR)
    missing = tmp_path / "missing.mlir"
    assert run(str(bad), "-o", str(missing)).returncode == 1
    assert not missing.exists()  # not even an empty file is left behind
    assert run(str(bad), "-o", str(out)).returncode == 1
    assert "func.func @f" in out.read_text()  # an existing file is not clobbered


def test_unwritable_output_is_reported_before_any_work(ok_file: Path, tmp_path: Path) -> None:
    result = run(str(ok_file), "-o", str(tmp_path / "no" / "such" / "dir.mlir"))
    assert result.returncode == 1
    assert "jaxc-opt: error: cannot open output file" in result.stderr


def test_missing_dialect_is_a_clean_error(ok_file: Path) -> None:
    code = ("import sys; sys.modules['jaxc.dialect'] = None\n"
            "from jaxc.tools.jaxc_opt import main\n"
            f"sys.exit(main([{str(ok_file)!r}]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert result.stderr.startswith("jaxc-opt: error: cannot load the jaxc dialect:")
    assert "Traceback" not in result.stderr


# ----------------------------------------------------------------------------
# Crash guard
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("crash, name", [("abort", "SIGABRT"), ("segv", "SIGSEGV")])
def test_crash_in_the_child_becomes_an_error(ok_file: Path, crash: str, name: str) -> None:
    result = run(str(ok_file), env={"JAXC_OPT_TEST_CRASH": crash})
    assert result.returncode == 1
    assert (f"{ok_file}: error: jaxc-opt crashed ({name}) while processing this input; "
            "this is a bug in jaxc, please report it") in result.stderr
    assert result.stdout == ""


def test_crash_on_stdin_names_stdin() -> None:
    result = run(stdin=OK_IR, env={"JAXC_OPT_TEST_CRASH": "abort"})
    assert result.returncode == 1
    assert "<stdin>: error: jaxc-opt crashed (SIGABRT)" in result.stderr


@pytest.mark.parametrize("how", [("--no-crash-guard",), ()])
def test_without_the_guard_a_crash_kills_the_process(ok_file: Path, how: tuple) -> None:
    env = {"JAXC_OPT_TEST_CRASH": "abort"}
    if not how:
        env["JAXC_OPT_NO_CRASH_GUARD"] = "1"
    result = run(str(ok_file), *how, env=env)
    assert result.returncode == -signal.SIGABRT


def test_guard_off_gives_the_same_result(ok_file: Path) -> None:
    guarded = run(str(ok_file), "--jaxc-cleanup")
    unguarded = run(str(ok_file), "--jaxc-cleanup", "--no-crash-guard")
    assert (guarded.returncode, guarded.stdout, guarded.stderr) == \
        (unguarded.returncode, unguarded.stdout, unguarded.stderr)


# ----------------------------------------------------------------------------
# --split-input-file and --verify-diagnostics
# ----------------------------------------------------------------------------

def test_split_joins_outputs_and_fails_if_any_chunk_fails() -> None:
    text = OK_IR + SPLIT + BAD_RETURN_IR + SPLIT + OK_IR.replace("@f", "@h")
    result = run("--split-input-file", stdin=text)
    assert result.returncode == 1
    first, second, third = result.stdout.split("// -----\n")
    assert "@f" in first and second == "" and "@h" in third
    # Line numbers are those of the whole input: @g's return is on line 8.
    assert result.stderr.startswith("<stdin>:8:3: error: type of return operand 0")


def test_split_without_failures_exits_0() -> None:
    result = run("--split-input-file", stdin=OK_IR + SPLIT + OK_IR)
    assert result.returncode == 0
    assert result.stdout.count("// -----\n") == 1


VERIFY_OK = """\
func.func @g(%a: i32) -> i64 {
  // expected-error @+1 {{doesn't match function result type ('i64')}}
  return %a : i32
}
"""


def test_verify_diagnostics_passes_when_everything_matches() -> None:
    result = run("--verify-diagnostics", "--split-input-file", stdin=VERIFY_OK + SPLIT + OK_IR)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_verify_diagnostics_reports_unexpected_and_missing() -> None:
    text = VERIFY_OK.replace("doesn't match", "never said") + SPLIT + BAD_RETURN_IR
    result = run("--verify-diagnostics", "--split-input-file", stdin=text)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert lines == [
        "<stdin>:3:3: error: unexpected error: type of return operand 0 ('i32') doesn't match "
        "function result type ('i64') in function @g",
        "<stdin>:8:3: error: unexpected error: type of return operand 0 ('i32') doesn't match "
        "function result type ('i64') in function @g",
        "<stdin>:2:6: error: expected error \"never said function result type ('i64')\" "
        "was not produced",
    ]


def test_verify_only_expected_ignores_unexpected() -> None:
    result = run("--verify-diagnostics=only-expected", "--split-input-file",
                 stdin=VERIFY_OK + SPLIT + BAD_RETURN_IR)
    assert result.returncode == 0, result.stderr


def test_verify_unknown_location_designator_does_not_crash() -> None:
    # mlir-opt 22 aborts on an unmatched `@unknown` designator.
    result = run("--verify-diagnostics", stdin="// expected-error @unknown {{x}}\n" + OK_IR)
    assert result.returncode == 1
    assert 'error: expected error "x" was not produced' in result.stderr


# ----------------------------------------------------------------------------
# The pipeline parser and the registry (in process)
# ----------------------------------------------------------------------------

def test_parse_pipeline_tree() -> None:
    text = ("builtin.module(func.func(canonicalize{max-iterations=3 region-simplify=disabled}, cse),"
            " jaxc-cleanup)")
    root = pipeline.parse_pipeline(text)
    assert root.text() == ("builtin.module(func.func(canonicalize{max-iterations=3 "
                           "region-simplify=disabled},cse),jaxc-cleanup)")
    func, cleanup = root.children
    assert isinstance(func, pipeline.Anchor) and func.op_name == "func.func"
    assert func.children[0].options == "max-iterations=3 region-simplify=disabled"
    assert isinstance(cleanup, pipeline.PassRef) and cleanup.pos == text.index("jaxc-cleanup")


@pytest.mark.parametrize("text, pos, message", [
    ("builtin.module(cse", 14, "never closed"),
    ("builtin.module(cse{a=1)", 18, "missing closing '}'"),
    ("builtin.module(cse,)", 19, "expected a pass or op name, found ')'"),
    ("cse", 0, "wrapped with the anchor operation type"),
    ("builtin.module(cse) x", 20, "unexpected 'x'"),
    ("builtin.module(" * 5000, 0, "nested too deeply"),
])
def test_parse_pipeline_errors(text: str, pos: int, message: str) -> None:
    with pytest.raises(pipeline.PipelineError) as caught:
        pipeline.parse_pipeline(text)
    assert message in caught.value.message
    assert caught.value.pos == pos


def test_split_options() -> None:
    assert registry.split_options('a=1 b="x y" c={p,q} flag d=') == [
        ("a", "1"), ("b", '"x y"'), ("c", "{p,q}"), ("flag", None), ("d", "")]


def test_pass_options_are_keyword_only_parameters() -> None:
    info = registry.lookup("jaxc-cleanup")
    assert info is not None and info.name == "JaxcCleanup"
    assert [(o.name, o.type, o.default) for o in info.options] == [("max-iterations", int, 10)]
    assert info.parse_options("max-iterations=0x10") == {"max_iterations": 16}
    with pytest.raises(registry.PassOptionError, match="has no option 'bogus'"):
        info.parse_options("bogus=1")


def _run_pipeline(text: str, source: str) -> tuple[str, list[str]]:
    """Build `text` with the project's builder and run it; (IR, error messages)."""
    context = ir.Context()
    context.enable_multithreading(False)
    module = ir.Module.parse(source, context)
    pm = pipeline.build_pass_manager(pipeline.parse_pipeline(text), context)
    try:
        pm.run(module.operation)
        return str(module), []
    except ir.MLIRError as error:
        return str(module), [d.message for d in error.error_diagnostics]


def test_a_raising_project_pass_is_an_error_not_a_crash() -> None:
    name = "test-cli-raising-pass"
    if registry.lookup(name) is None:
        @registry.register_pass(name, "raises, for tests")
        def _raising(op, pass_) -> None:
            raise ValueError("boom")

    _, errors = _run_pipeline(f"builtin.module({name})", OK_IR)
    assert errors == [f"internal error in pass '{name}': ValueError: boom; "
                      "this is a bug in jaxc, please report it"]


def test_nested_project_pass_runs_on_each_anchored_op() -> None:
    name = "test-cli-recording-pass"
    seen: list[str] = []
    if registry.lookup(name) is None:
        @registry.register_pass(name, "records op names, for tests", op_name="func.func")
        def _recording(op, pass_) -> None:
            seen.append(ir.StringAttr(op.attributes["sym_name"]).value)

    source = OK_IR + OK_IR.replace("@f", "@h")
    _run_pipeline(f"builtin.module(func.func(cse,{name},canonicalize))", source)
    assert seen == ["f", "h"]
    with pytest.raises(pipeline.PipelineError, match="runs on 'func.func' ops, not on "
                                                     "'builtin.module'"):
        _run_pipeline(f"builtin.module({name})", source)
