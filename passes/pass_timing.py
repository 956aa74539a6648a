"""Pass timing: MLIR's execution time reports, read back and printed again.

A pass manager with ``enable_timing()`` prints its report to fd 2 when it is
destroyed (times add up over its runs); `collect` destroys it while capturing
that text and `parse_report` turns it into `Timing` trees, which
`format_report` prints the way ``mlir-opt --mlir-timing`` does::

    pms = [PassManager.parse("builtin.module(canonicalize,func.func(cse))")]
    pms[0].enable_timing()
    pms[0].run(module.operation)
    timings = collect(pms)   # [Timing("Canonicalizer", 0.0004, []),
                             #  Timing("'func.func' Pipeline", 0.0002, [Timing("CSE", ...)])]
    print(format_report([Timing("Parser", 0.001, []), *timings], total=0.01))
"""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Callable

from .pipeline import _captured_stderr


@dataclasses.dataclass
class Timing:
    """One row of a report: a pass (or pipeline, analysis, phase), its wall
    time in seconds and the rows nested under it."""

    name: str
    seconds: float
    children: list[Timing] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class StageTiming:
    """One stage of `stages.run_stages(..., timings=...)`: its run on the
    ``time.perf_counter_ns`` clock and its pass manager's timings."""

    stage: str
    start_ns: int
    end_ns: int
    passes: list[Timing]


# ----------------------------------------------------------------------------
# Reading reports
# ----------------------------------------------------------------------------

_TITLE = "... Execution time report ..."
_TITLE_LINE = re.compile(r"^\s*" + re.escape(_TITLE) + r"\s*$")
# "    0.0004 (  1.5%)    0.0004 (  1.5%)      CSE": a `time (pct%)` pair per
# column (User Time, Wall Time); the wall time is the last one; then two
# spaces, two more per nesting level, and the name.
_PAIR = r"\s+\S+ \(\s*[^()]*%\)"
_ROW = re.compile(rf"^(?:{_PAIR})*\s+(?P<wall>\S+) \(\s*[^()]*%\)  (?P<indent> *)(?P<name>\S.*?)\s*$")
_DROPPED = ("Rest", "Total")


def parse_report(text: str) -> list[list[Timing]]:
    """Every tree-display text report in `text`, each as its top-level
    timings in order ("Rest" and "Total" dropped); other lines are ignored."""
    reports: list[list[Timing]] = []
    stack: list[list[Timing]] | None = None  # stack[d]: the rows of depth d being filled
    for line in text.splitlines():
        if _TITLE_LINE.match(line):
            stack = [[]]
            reports.append(stack[0])
            continue
        if stack is None:
            continue
        match = _ROW.match(line)
        if match is None:
            continue
        depth = min(len(match["indent"]) // 2, len(stack) - 1)
        name = match["name"]
        if depth == 0 and name in _DROPPED:
            if name == "Total":
                stack = None  # the report's last row
            continue
        timing = Timing(name, float(match["wall"]), [])
        del stack[depth + 1:]
        stack[depth].append(timing)
        stack.append(timing.children)
    return reports


def collect(pass_managers: list) -> list[Timing]:
    """Destroy the pass managers in `pass_managers` (empties the list; it
    must hold their only references) and return their timings, concatenated.
    A pass manager still referenced elsewhere prints nothing now: [] for it."""
    with _captured_stderr() as captured:
        pass_managers.clear()
    return [timing for report in parse_report(captured.text) for timing in report]


# ----------------------------------------------------------------------------
# Printing reports (mlir-opt's formats, Wall Time column only)
# ----------------------------------------------------------------------------

class _Text:
    """mlir-opt's text output: a banner, then one row per timing."""

    def header(self, total: float) -> str:
        rule = "===" + "-" * 73 + "===\n"
        return (f"{rule}{' ' * ((80 - len(_TITLE)) // 2)}{_TITLE}\n{rule}"
                f"  Total Execution Time: {total:.4f} seconds\n\n"
                "  ----Wall Time----  ----Name----\n")

    def tree_entry(self, depth: int, name: str, seconds: float, total: float, inner: str) -> str:
        return f"  {seconds:8.4f} ({_percent(seconds, total):5.1f}%)  {'  ' * depth}{name}\n{inner}"

    def list_entry(self, name: str, seconds: float, total: float, last: bool) -> str:
        return self.tree_entry(0, name, seconds, total, "")

    def footer(self) -> str:
        return ""


class _Json:
    """mlir-opt's JSON output: a list of entries; a tree entry's "passes" list
    holds its children and ends with ``{}`` (as upstream prints it)."""

    def header(self, total: float) -> str:
        return "[\n"

    def _fields(self, name: str, seconds: float, total: float) -> str:
        percent = _percent(seconds, total)
        return (f'"wall": {{"duration": {seconds:8.4f}, "percentage": {percent:5.1f}}}, '
                f'"name": {json.dumps(name)}')

    def tree_entry(self, depth: int, name: str, seconds: float, total: float, inner: str) -> str:
        indent = "  " * depth
        return (f'{indent}{{{self._fields(name, seconds, total)}, "passes": [\n'
                f"{inner}{indent}{{}}]}},\n")

    def list_entry(self, name: str, seconds: float, total: float, last: bool) -> str:
        return f"{{{self._fields(name, seconds, total)}}}{'' if last else ','}\n"

    def footer(self) -> str:
        return "]\n"


def _percent(seconds: float, total: float) -> float:
    return 100.0 * seconds / total if total > 0 else 0.0


def _tree_body(style: _Text | _Json, timings: list[Timing], total: float, depth: int = 0) -> str:
    """Each timing, its children below it, indented one level deeper."""
    return "".join(style.tree_entry(depth, t.name, t.seconds, total,
                                    _tree_body(style, t.children, total, depth + 1))
                   for t in timings)


def _list_body(style: _Text | _Json, timings: list[Timing], total: float) -> str:
    """Every timing of the tree, added up by name, slowest first."""
    merged: dict[str, float] = {}

    def add(rows: list[Timing]) -> None:
        for row in rows:
            merged[row.name] = merged.get(row.name, 0.0) + row.seconds
            add(row.children)

    add(timings)
    rows = sorted(merged.items(), key=lambda item: -item[1])
    return "".join(style.list_entry(name, seconds, total, False) for name, seconds in rows)


_STYLES: dict[str, _Text | _Json] = {"text": _Text(), "json": _Json()}
_DISPLAYS: dict[str, Callable[[_Text | _Json, list[Timing], float], str]] = {
    "tree": _tree_body, "list": _list_body}


def format_report(timings: list[Timing], *, display: str = "tree", output_format: str = "text",
                  total: float | None = None) -> str:
    """The report of `timings` as ``mlir-opt --mlir-timing`` prints it:
    `display` "tree" or "list", `output_format` "text" or "json". The "Rest"
    row is `total` (seconds) minus the top-level rows; without `total`, or
    with a smaller one, it is 0 and "Total" is their sum."""
    if display not in _DISPLAYS:
        raise ValueError(f"unknown timing display '{display}'; use one of: {', '.join(_DISPLAYS)}")
    if output_format not in _STYLES:
        raise ValueError(f"unknown timing output format '{output_format}'; "
                         f"use one of: {', '.join(_STYLES)}")
    style = _STYLES[output_format]
    measured = sum(t.seconds for t in timings)
    total = measured if total is None else max(total, measured)
    return (style.header(total) + _DISPLAYS[display](style, timings, total)
            + style.list_entry("Rest", total - measured, total, False)
            + style.list_entry("Total", total, total, True) + style.footer())
