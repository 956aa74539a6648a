"""jaxc-opt's ``--mlir-timing``: what one run measured, printed once at the end
as mlir-opt's execution time report.

Rows, in order: "Parser" (parsing every chunk, timed here), the passes of the
``--pass-pipeline``/pass-flag pass manager as MLIR times them, or for
``--stage``/``--stages``/``--run`` one row per stage, ``stage 'NAME'``, with
that stage's passes nested under it (and ``run '@FUNC'``: compiling and
calling it); then "Output" (printing), "Rest" and "Total". The chunks of
``--split-input-file`` add up: they share the pass managers (one per stage),
and MLIR adds up their times.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Any, Callable, Iterator

from jaxc.passes import pass_timing
from jaxc.passes.pass_timing import Timing

PARSER, OUTPUT = "Parser", "Output"


def stage_row(name: str) -> str:
    """The report row of a stage: ``stage 'linalg'``."""
    return f"stage '{name}'"


@dataclasses.dataclass
class RunTimer:
    """Times of one jaxc-opt run: rows by name (Parser, stage rows, Output) and
    the pass managers whose timings the report shows."""

    start: float = dataclasses.field(default_factory=time.perf_counter)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)  # row -> wall seconds
    pass_managers: list = dataclasses.field(default_factory=list)  # the pipeline's (top-level rows)
    stage_pass_managers: dict[str, Any] = dataclasses.field(default_factory=dict)  # stage row -> pm

    @contextlib.contextmanager
    def measure(self, row: str) -> Iterator[None]:
        """Add the time spent in the ``with`` block to `row` (also when it raises)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[row] = self.seconds.get(row, 0.0) + time.perf_counter() - start

    def stage_pass_manager(self, stage: str, build: Callable[[], Any]):
        """The stage's timed pass manager, built by `build` (and timing
        enabled) on first use and shared by every chunk; None for no passes."""
        row = stage_row(stage)
        if row not in self.stage_pass_managers:
            pm = build()
            if pm is not None:
                pm.enable_timing()
            self.stage_pass_managers[row] = pm
        return self.stage_pass_managers[row]

    def report(self, display: str = "tree", output_format: str = "text") -> str:
        """The report (destroys the pass managers: call once, at the end,
        when nothing else references them)."""
        total = time.perf_counter() - self.start
        rows = [Timing(PARSER, self.seconds.get(PARSER, 0.0), [])]
        rows += pass_timing.collect(self.pass_managers)
        for row, seconds in self.seconds.items():  # stages (and --run), in the order run
            if row not in (PARSER, OUTPUT):
                passes = pass_timing.collect([self.stage_pass_managers.pop(row, None)])
                rows.append(Timing(row, seconds, passes))
        rows.append(Timing(OUTPUT, self.seconds.get(OUTPUT, 0.0), []))
        return pass_timing.format_report(rows, display=display, output_format=output_format, total=total)


def measure(timer: RunTimer | None, row: str):
    """`timer.measure(row)`, or a no-op without a timer."""
    return contextlib.nullcontext() if timer is None else timer.measure(row)
