"""Diagnostics for jaxc-opt: collect them from a context, print them the way
mlir-opt does (``FILE:LINE:COL: error: message``, the source line, a caret),
and check them against ``// expected-error {{...}}`` lines
(``--verify-diagnostics``).
"""
from __future__ import annotations

import dataclasses
import re
import sys
from typing import Callable, TextIO

from mlir import ir

_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


@dataclasses.dataclass(frozen=True)
class FileLoc:
    """A position in a source file; line and column count from 1 (0: unknown)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclasses.dataclass
class Diag:
    """A diagnostic copied out of MLIR (MLIR's objects die with the callback)."""

    severity: str
    message: str
    where: FileLoc | None  # the file location to show, if the location has one
    loc_text: str  # the location as MLIR prints it, for locations without a file
    called_from: list[FileLoc]
    notes: list[Diag]

    @classmethod
    def from_mlir(cls, diag, stdin_name: str) -> Diag:
        """Copy an `ir.Diagnostic` or `ir.DiagnosticInfo` (with its notes)."""
        loc = diag.location
        where = _file_loc(loc, stdin_name)
        return cls(
            severity=_SEVERITY.get(diag.severity, "error"),
            message=diag.message,
            where=where,
            loc_text="" if where or _is_unknown(loc) else str(loc),
            called_from=_call_stack(loc, stdin_name),
            notes=[cls.from_mlir(note, stdin_name) for note in diag.notes],
        )


def _is_unknown(loc: ir.Location) -> bool:
    return str(loc) == "loc(unknown)"


def _file_loc(loc: ir.Location, stdin_name: str) -> FileLoc | None:
    """The file location MLIR would show for `loc` (callee of a call site,
    first file inside a fused or named location), like mlir-opt's handler."""
    if loc.is_a_file():
        # Module.parse names its buffer "-"; that is our input.
        file = stdin_name if loc.filename == "-" else loc.filename
        return FileLoc(file, loc.start_line, loc.start_col)
    if loc.is_a_callsite():
        return _file_loc(loc.callee, stdin_name)
    if loc.is_a_name():
        return _file_loc(loc.child_loc, stdin_name)
    if loc.is_a_fused():
        for child in loc.locations:
            found = _file_loc(child, stdin_name)
            if found:
                return found
    return None


def _call_stack(loc: ir.Location, stdin_name: str, limit: int = 10) -> list[FileLoc]:
    """The callers of a call-site location, shown as 'called from' notes."""
    stack = []
    while loc.is_a_callsite() and len(stack) < limit:
        loc = loc.caller
        found = _file_loc(loc, stdin_name)
        if found:
            stack.append(found)
    return stack


class Collector:
    """Receives every diagnostic of a context, in the order MLIR emits them,
    and hands each to `sink` (printing it, or checking it)."""

    def __init__(self, context: ir.Context, stdin_name: str, sink: Callable[[Diag], None],
                 drop_op_notes: bool = False) -> None:
        self.error_count = 0
        self._stdin_name = stdin_name
        self._sink = sink
        # mlir-opt --verify-diagnostics turns off the "see current operation"
        # notes; the bindings cannot, so they are dropped here.
        self._drop_op_notes = drop_op_notes
        # Errors go to handlers instead of being hidden in MLIRError.
        context.emit_error_diagnostics = True
        self._handler = context.attach_diagnostic_handler(self._on_diagnostic)

    def _on_diagnostic(self, diag) -> bool:
        try:
            self.add(Diag.from_mlir(diag, self._stdin_name))
        except Exception as error:  # never let an exception into C++
            print(f"jaxc-opt: internal error while reading a diagnostic: {error}", file=sys.stderr)
        return True

    def add(self, diag: Diag) -> None:
        if self._drop_op_notes:
            diag.notes = [n for n in diag.notes if not n.message.startswith("see current operation:")]
        self.error_count += diag.severity == "error"
        self._sink(diag)

    def add_error(self, error: ir.MLIRError) -> None:
        """Errors an MLIRError carried (when the context captured them)."""
        for info in error.error_diagnostics:
            self.add(Diag.from_mlir(info, self._stdin_name))


# ----------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------

class Printer:
    """Prints diagnostics like llvm::SourceMgr: location, kind, message, then
    the source line and a caret when the file is the input."""

    def __init__(self, sources: dict[str, list[str]], out: TextIO | None = None) -> None:
        self.sources = sources
        self.out = out or sys.stderr

    def emit(self, diag: Diag) -> None:
        self.message(diag.where, diag.severity, diag.message, loc_text=diag.loc_text)
        last = diag.where
        for caller in diag.called_from:
            self.message(caller, "note", "called from")
        for note in diag.notes:
            self.message(note.where, note.severity, note.message,
                         loc_text=note.loc_text, show_source=note.where != last)
            last = note.where

    def message(self, where: FileLoc | None, severity: str, text: str, *,
                loc_text: str = "", show_source: bool = True, length: int = 1) -> None:
        """One message; `length` > 1 underlines that many characters."""
        if where is None:
            prefix = f"{loc_text}: " if loc_text else ""
            self.out.write(f"<unknown>:0: {severity}: {prefix}{text}\n")
            return
        self.out.write(f"{where}: {severity}: {text}\n")
        if show_source:
            self.out.write(self.source_excerpt(where, length))

    def source_excerpt(self, where: FileLoc, length: int = 1) -> str:
        """The source line and a caret line under the column (tabs expanded)."""
        lines = self.sources.get(where.file)
        if not lines or not 1 <= where.line <= len(lines) or where.col < 1:
            return ""
        line = lines[where.line - 1]
        raw = line.encode("utf-8")
        # MLIR columns count bytes; find the character they point at.
        start = len(raw[:where.col - 1].decode("utf-8", "replace"))
        if start > len(line):
            return ""
        end = min(len(line), start + max(length, 1))
        shown = line.expandtabs(8)
        caret_start = len(line[:start].expandtabs(8))
        caret_end = max(len(line[:end].expandtabs(8)), caret_start + 1)
        caret = " " * caret_start + "^" + "~" * (caret_end - caret_start - 1)
        return f"{shown}\n{caret}\n"


# ----------------------------------------------------------------------------
# --verify-diagnostics
# ----------------------------------------------------------------------------

# mlir-opt's pattern, plus `@N` (an absolute line: a jaxc extension).
_EXPECTED_RE = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *"
    r"(@([+-][0-9]+|above|below|unknown|[0-9]+))? *\{\{(.*)\}\}$")

# POSIX classes that llvm::Regex knows and Python's re does not.
_POSIX_CLASSES = {
    "[:alnum:]": "a-zA-Z0-9", "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9",
    "[:lower:]": "a-z", "[:upper:]": "A-Z", "[:xdigit:]": "0-9A-Fa-f",
    "[:space:]": r"\s", "[:blank:]": r" \t", "[:punct:]": r"!-/:-@\[-`{-~",
    "[:word:]": r"\w",
}


@dataclasses.dataclass
class Expected:
    """One ``expected-KIND {{text}}`` designator."""

    severity: str
    line: int  # the line the diagnostic must be on (0 for @unknown)
    where: FileLoc  # where the designator is written
    text: str
    regex: re.Pattern | None = None
    matched: bool = False

    def match(self, message: str) -> bool:
        return bool(self.regex.search(message)) if self.regex else self.text in message


class Verifier:
    """mlir-opt's SourceMgrDiagnosticVerifierHandler, for one input file."""

    def __init__(self, file: str, text: str, printer: Printer, only_expected: bool = False) -> None:
        self.file = file
        self.printer = printer
        self.only_expected = only_expected  # unexpected diagnostics are fine
        self.ok = True
        self.expected: list[Expected] = []
        self.unknown_loc: list[Expected] = []
        self._scan(text.split("\n"))

    def _scan(self, lines: list[str]) -> None:
        last_plain = 0  # the last line (0-based) that holds no designator
        pending_below: list[Expected] = []
        for index, line in enumerate(lines):
            found = _EXPECTED_RE.search(line.rstrip())
            if not found:
                for record in pending_below:
                    record.line = index + 1
                pending_below.clear()
                last_plain = index
                continue
            kind, is_regex, _, offset, text = found.groups()
            where = FileLoc(self.file, index + 1, len(line[:found.start()].encode("utf-8")) + 1)
            record = Expected(kind, index + 1, where, text)
            if is_regex and not self._compile(record):
                continue
            if offset is None:
                pass
            elif offset[0] in "+-":
                record.line += int(offset)
            elif offset == "unknown":
                record.line = 0
                self.unknown_loc.append(record)
                continue
            elif offset == "above":
                record.line = last_plain + 1
            elif offset == "below":
                record.line = len(lines)  # if nothing follows
                pending_below.append(record)
            else:
                record.line = int(offset)
            self.expected.append(record)

    def _compile(self, record: Expected) -> bool:
        """Build the regex of an ``expected-*-re``: text outside ``{{...}}`` is literal."""
        pieces, rest = [], record.text
        while rest:
            start = rest.find("{{")
            if start < 0:
                pieces.append(re.escape(rest))
                break
            pieces.append(re.escape(rest[:start]))
            rest = rest[start + 2:]
            end = rest.find("}}")
            if end < 0:
                return self._fail(record, "found start of regex with no end '}}'")
            pattern = rest[:end]
            for posix, python in _POSIX_CLASSES.items():
                pattern = pattern.replace(posix, python)
            try:
                re.compile(pattern)
            except re.error as error:
                return self._fail(record, f"invalid regex: {error}")
            pieces.append(f"({pattern})")
            rest = rest[end + 2:]
        record.regex = re.compile("".join(pieces))
        return True

    def _fail(self, record: Expected, message: str) -> bool:
        self.printer.message(record.where, "error", message, length=len(record.text))
        self.ok = False
        return False

    def check(self, diag: Diag) -> None:
        """Match a diagnostic, and each of its notes, against the designators."""
        for one in [diag, *diag.notes]:
            self._check_one(one)

    def _check_one(self, diag: Diag) -> None:
        where = diag.where
        if where is None:
            candidates = self.unknown_loc
        elif where.file == self.file:
            candidates = [e for e in self.expected if e.line == where.line]
        else:
            candidates = []
        near_miss = None
        for expected in candidates:
            if expected.match(diag.message):
                if expected.severity == diag.severity:
                    expected.matched = True
                    return
                near_miss = expected
        if self.only_expected:
            return
        self.ok = False
        if near_miss:
            self.printer.message(
                near_miss.where, "error",
                f"'{diag.severity}' diagnostic emitted when expecting a '{near_miss.severity}'")
        else:
            self.printer.message(where, "error", f"unexpected {diag.severity}: {diag.message}",
                                 loc_text=diag.loc_text)

    def finish(self) -> bool:
        """Report designators no diagnostic matched; True if all went as expected."""
        for expected in self.expected + self.unknown_loc:
            if not expected.matched:
                self.ok = False
                self.printer.message(
                    expected.where, "error",
                    f'expected {expected.severity} "{expected.text}" was not produced',
                    length=len(expected.text))
        return self.ok
