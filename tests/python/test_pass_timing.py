"""Pass timing (jaxc.passes.pass_timing): reading MLIR's execution time
reports, printing them as mlir-opt does, timed stages, and
``jaxc-opt --mlir-timing``. (The report's layout is also in
tests/lit/cli/timing.mlir.)"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mlir import ir
from mlir.passmanager import PassManager

from jaxc.dialect import make_context
from jaxc.passes import stages
from jaxc.passes.pass_timing import StageTiming, Timing, collect, format_report, parse_report
from jaxc.passes.pipeline import _captured_stderr

SAMPLE = """\
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %b = arith.addi %a, %c0 : i32
  %c = arith.muli %b, %b : i32
  %d = arith.muli %b, %b : i32
  %e = arith.addi %c, %d : i32
  return %e : i32
}
"""

# What traced code looks like (jaxc ops, as `jit(f).lower(x).as_text()` prints them).
TRACED = """\
func.func @f(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = jaxc.exp %x : tensor<2x2xf32>
  %d = jaxc.dot_general %e, %w, batch = [] x [], contract = [1] x [0]
         : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = jaxc.add %d, %x : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
"""

# Real `mlir-opt --mlir-timing` output (LLVM 22.1.8): when user and wall time
# differ it prints both columns.
USER_AND_WALL = """\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0033 seconds

  ----User Time----  ----Wall Time----  ----Name----
    0.0010 ( 29.8%)    0.0010 ( 31.3%)  Parser
    0.0007 ( 19.2%)    0.0007 ( 20.2%)  Canonicalizer
    0.0002 (  4.7%)    0.0002 (  5.0%)  'func.func' Pipeline
    0.0001 (  2.6%)    0.0001 (  2.7%)    CSE
    0.0000 (  0.2%)    0.0000 (  0.2%)      (A) DominanceInfo
    0.0001 (  1.9%)    0.0001 (  2.0%)    Canonicalizer
    0.0002 (  6.2%)    0.0002 (  6.6%)  SymbolDCE
    0.0003 (  9.4%)    0.0003 (  9.9%)  Output
    0.0004 ( 12.3%)    0.0004 ( 12.9%)  Rest
    0.0035 (100.0%)    0.0033 (100.0%)  Total
"""

UPSTREAM_PIPELINE = "builtin.module(canonicalize,func.func(cse,canonicalize),symbol-dce)"


def shape(timings: list[Timing]) -> list:
    """The names of a timing tree, nested like it: [name, [children...]] per row."""
    return [[t.name, shape(t.children)] for t in timings]


def rounded(timings: list[Timing]) -> list[Timing]:
    return [Timing(t.name, round(t.seconds, 4), rounded(t.children)) for t in timings]


def timed_pass_manager(context: ir.Context) -> list:
    """[pm]: canonicalize, cse and canonicalize on each function, and a Python pass."""
    with context:
        pm = PassManager.parse("builtin.module(canonicalize,func.func(cse,canonicalize))")
        pm.add(lambda op, pass_: None, name="PythonPass", argument="python-pass")
        pm.enable_timing()
    return [pm]


# ----------------------------------------------------------------------------
# parse_report
# ----------------------------------------------------------------------------

def test_parse_a_real_report_with_a_python_pass_and_a_nested_pipeline():
    context = make_context()
    module = ir.Module.parse(SAMPLE, context)
    pms = timed_pass_manager(context)
    pms[0].run(module.operation)
    with _captured_stderr() as captured:
        pms.clear()
    assert "Execution time report" in captured.text
    [report] = parse_report("noise before\n" + captured.text + "noise after\n")
    assert shape(report) == [
        ["Canonicalizer", []],
        ["'func.func' Pipeline", [["CSE", [["(A) DominanceInfo", []]]], ["Canonicalizer", []]]],
        ["PythonPass", []],
    ]
    assert all(t.seconds >= 0 for t in report)


def test_parse_the_user_time_column_takes_the_wall_time():
    [report] = parse_report(USER_AND_WALL)
    assert [t.name for t in report] == ["Parser", "Canonicalizer", "'func.func' Pipeline", "SymbolDCE",
                                        "Output"]
    assert report[0].seconds == 0.0010 and report[1].seconds == 0.0007
    assert shape(report[2].children) == [["CSE", [["(A) DominanceInfo", []]]], ["Canonicalizer", []]]


def test_parse_live_mlir_opt_output(tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text(SAMPLE)
    mlir_opt = stages.tool_path("mlir", "mlir-opt")
    result = subprocess.run([mlir_opt, "--mlir-timing", f"--pass-pipeline={UPSTREAM_PIPELINE}",
                             str(source), "-o", "/dev/null"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    [report] = parse_report(result.stderr)
    assert [t.name for t in report] == ["Parser", "Canonicalizer", "'func.func' Pipeline", "SymbolDCE",
                                        "Output"]


def test_parse_several_reports():
    assert parse_report(USER_AND_WALL + "between\n" + USER_AND_WALL) == parse_report(USER_AND_WALL) * 2
    assert parse_report("no report here\n") == []


# ----------------------------------------------------------------------------
# format_report
# ----------------------------------------------------------------------------

TREE = [
    Timing("Parser", 0.00123456, []),
    Timing("'func.func' Pipeline", 0.0031, [
        Timing("CSE", 0.0012, [Timing("(A) DominanceInfo", 0.00004, [])]),
        Timing("Canonicalizer", 0.0017, []),
    ]),
    Timing("Canonicalizer", 0.0021, []),
    Timing("Output", 0.0005, []),
]


def test_text_tree_round_trip():
    text = format_report(TREE, total=0.01)
    assert parse_report(text) == [rounded(TREE)]
    assert "  Total Execution Time: 0.0100 seconds\n" in text
    assert "    0.0031 ( 31.0%)  'func.func' Pipeline\n    0.0012 ( 12.0%)    CSE\n" in text
    assert text.endswith("    0.0031 ( 30.7%)  Rest\n    0.0100 (100.0%)  Total\n")


def test_text_list_adds_up_by_name_slowest_first():
    [rows] = parse_report(format_report(TREE, display="list", total=0.01))
    assert [(t.name, t.seconds) for t in rows] == [
        ("Canonicalizer", 0.0038), ("'func.func' Pipeline", 0.0031), ("Parser", 0.0012),
        ("CSE", 0.0012), ("Output", 0.0005), ("(A) DominanceInfo", 0.0)]


def from_json_tree(entries: list[dict]) -> list[Timing]:
    """Timings from mlir-opt's JSON tree (each "passes" list ends with {})."""
    return [Timing(e["name"], e["wall"]["duration"], from_json_tree(e.get("passes", [])))
            for e in entries if e]


def test_json_tree_round_trip():
    entries = json.loads(format_report(TREE, output_format="json", total=0.01))
    assert entries[-2]["name"] == "Rest" and entries[-1] == {
        "wall": {"duration": 0.01, "percentage": 100.0}, "name": "Total"}
    assert from_json_tree(entries[:-2]) == rounded(TREE)
    assert entries[1]["passes"][0]["wall"] == {"duration": 0.0012, "percentage": 12.0}


def test_json_list():
    entries = json.loads(format_report(TREE, display="list", output_format="json"))
    assert [e["name"] for e in entries] == ["Canonicalizer", "'func.func' Pipeline", "Parser", "CSE",
                                            "Output", "(A) DominanceInfo", "Rest", "Total"]
    assert all(set(e) == {"wall", "name"} for e in entries)


def test_rest_and_total():
    rows = [Timing("A", 0.25, []), Timing("B", 0.5, [])]
    assert format_report(rows).endswith(" 0.0000 (  0.0%)  Rest\n    0.7500 (100.0%)  Total\n")
    assert format_report(rows, total=0.5) == format_report(rows)  # a total below the rows' sum
    assert "    0.2500 ( 25.0%)  Rest\n    1.0000 (100.0%)  Total\n" in format_report(rows, total=1.0)
    assert "0.0000 (  0.0%)  Total" in format_report([])


@pytest.mark.parametrize("options", [{"display": "flat"}, {"output_format": "yaml"}])
def test_unknown_display_or_format(options):
    with pytest.raises(ValueError, match="unknown timing"):
        format_report(TREE, **options)


# ----------------------------------------------------------------------------
# collect
# ----------------------------------------------------------------------------

def test_collect_destroys_the_pass_managers_and_returns_their_timings(capfd):
    context = make_context()
    module = ir.Module.parse(SAMPLE, context)
    pms = timed_pass_manager(context) + timed_pass_manager(context)
    for pm in pms:
        pm.run(module.operation)
        pm.run(module.operation)  # times add up over runs
    del pm
    timings = collect(pms)
    assert pms == []
    assert [t.name for t in timings] == ["Canonicalizer", "'func.func' Pipeline", "PythonPass"] * 2
    assert "Execution time report" not in capfd.readouterr().err


def test_collect_returns_nothing_while_a_reference_is_held():
    context = make_context()
    pms = timed_pass_manager(context)
    held = pms[0]
    assert collect(pms) == [] and pms == []
    with _captured_stderr() as captured:
        del held
    assert "Execution time report" in captured.text  # printed when the last reference goes


# ----------------------------------------------------------------------------
# run_stages(..., timings=)
# ----------------------------------------------------------------------------

def test_run_stages_times_every_stage_on_fresh_pass_managers(capfd):
    untimed = ir.Module.parse(TRACED, make_context())
    stages.run_stages(untimed, "llvm")
    module = ir.Module.parse(TRACED, make_context())
    timings: list[StageTiming] = []
    cache: dict = {}
    text = stages.run_stages(module, "llvmir", timings=timings, pass_managers=cache)
    assert "define void @f(" in text
    assert cache == {}  # the cached pass managers are not used
    assert [t.stage for t in timings] == [s.name for s in stages.stages_between(None, "llvmir")]
    for before, after in zip(timings, timings[1:]):
        assert before.start_ns <= before.end_ns <= after.start_ns <= after.end_ns
    by_stage = {t.stage: t for t in timings}
    assert by_stage["traced"].passes == [] and by_stage["llvmir"].passes == []
    assert [t.name for t in by_stage["linalg"].passes] == ["JaxcToLinalg", "JaxcCheckLowered",
                                                            "Canonicalizer", "CSE", "Canonicalizer"]
    assert "Canonicalizer" in [t.name for t in by_stage["llvm"].passes]
    assert "Execution time report" not in capfd.readouterr().err
    # Timing changes nothing in the result.
    module_at_llvm = ir.Module.parse(TRACED, make_context())
    stages.run_stages(module_at_llvm, "llvm", timings=[])
    assert str(module_at_llvm) == str(untimed)


def test_a_failing_stage_is_timed_and_its_report_collected(capfd):
    requested = """
    func.func private @g(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = jaxc.vmap @g(%x) in_axes = [0] out_axes = [0] axis_size = 4 : (tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    }"""
    module = ir.Module.parse(requested, make_context())
    timings: list[StageTiming] = []
    with pytest.raises(ir.MLIRError, match="a transformation request: expand it first"):
        stages.run_stages(module, "linalg", first="optimized", timings=timings)
    [linalg] = timings
    assert linalg.stage == "linalg" and [t.name for t in linalg.passes] == ["JaxcToLinalg"]
    assert "Execution time report" not in capfd.readouterr().err  # not left to print later


# ----------------------------------------------------------------------------
# jaxc-opt --mlir-timing
# ----------------------------------------------------------------------------

def jaxc_opt(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxc.tools.jaxc_opt", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_jaxc_opt_times_each_stage():
    result = jaxc_opt("--mlir-timing", "--stage=loops", "-", stdin=TRACED)
    assert result.returncode == 0, result.stderr
    assert "scf.for" in result.stdout
    [report] = parse_report(result.stderr)
    loops = [s.name for s in stages.stages_between(None, "loops")]
    assert [t.name for t in report] == ["Parser", *(f"stage '{name}'" for name in loops), "Output"]
    linalg = report[1 + loops.index("linalg")]
    assert [t.name for t in linalg.children] == ["JaxcToLinalg", "JaxcCheckLowered", "Canonicalizer",
                                                 "CSE", "Canonicalizer"]
    assert linalg.seconds >= sum(t.seconds for t in linalg.children) - 0.0002  # rounding


def test_jaxc_opt_reports_once_for_all_chunks():
    result = jaxc_opt("--mlir-timing", "--split-input-file", "--canonicalize", "-",
                      stdin=SAMPLE + "// -----\n" + SAMPLE)
    assert result.returncode == 0, result.stderr
    assert [[t.name for t in report] for report in parse_report(result.stderr)] == [
        ["Parser", "Canonicalizer", "Output"]]
