"""The input side of jaxc-opt: read the file, split it on ``// -----``, and
parse a chunk into a ``builtin.module`` the way mlir-opt does.
"""
from __future__ import annotations

import dataclasses
import re
import sys

from mlir import ir

SPLIT_MARKER = "// -----"
BYTECODE_MAGIC = b"ML\xefR"


class InputError(Exception):
    """The input cannot be read or decoded; `where` is ``FILE:LINE:COL`` when
    the problem has a position."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


@dataclasses.dataclass
class Source:
    """The whole input: `name` is the path as given, or ``<stdin>``."""

    name: str
    text: str  # empty for bytecode
    data: bytes

    @property
    def is_bytecode(self) -> bool:
        return self.data.startswith(BYTECODE_MAGIC)

    @property
    def lines(self) -> list[str]:
        return [line.rstrip("\r") for line in self.text.split("\n")]


def read_input(path: str) -> Source:
    """Read `path` (``-``: stdin) as bytes; text must be valid UTF-8."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
    except OSError as error:
        raise InputError(f"cannot open input file '{path}': {error.strerror or error}") from None
    if data.startswith(BYTECODE_MAGIC):
        return Source(name, "", data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(f"input is not valid UTF-8 text (byte 0x{data[error.start]:02x}: "
                         f"{error.reason})", f"{name}:{line}:{col}") from None
    return Source(name, text, data)


@dataclasses.dataclass
class Chunk:
    """A piece of the input, padded so MLIR's lines and columns are the file's."""

    text: str
    first_line: int


def split_input(source: Source, marker: str | None) -> tuple[list[Chunk], list[tuple[int, int]]]:
    """Split on `marker` (anywhere in a line, like mlir-opt); None: one chunk.

    Returns the chunks and the (line, column) of each near miss -- the marker
    without its last two characters, not followed by them -- for a warning.
    An empty input has no chunks at all (mlir-opt prints nothing for it).
    """
    text = source.text
    if marker is None:
        return [Chunk(text, 1)], []
    if not text:
        return [], []
    prefix = marker[:-2] if len(marker) > 2 else marker
    bounds, near_misses = [], []
    start = search = 0
    while (found := text.find(prefix, search)) >= 0:
        if text.startswith(marker, found):
            bounds.append((start, found))
            start = search = found + len(marker)
        else:
            near_misses.append(_line_col(text, found + len(prefix)))
            search = found + len(prefix)
    bounds.append((start, len(text)))
    return [_padded(text, begin, end) for begin, end in bounds], near_misses


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and byte column of `offset`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, len(text[line_start:offset].encode("utf-8")) + 1


def _padded(text: str, begin: int, end: int) -> Chunk:
    line, col = _line_col(text, begin)
    return Chunk("\n" * (line - 1) + " " * (col - 1) + text[begin:end], line)


# ----------------------------------------------------------------------------
# Parsing a chunk
# ----------------------------------------------------------------------------

_COUNT_RE = re.compile(r"source must contain a single top-level operation, found: (\d+)")
# `name = [i, j, ...]`: the integer lists of custom op syntax (linalg.reduce's
# `dimensions`, linalg.transpose's `permutation`, ...).
_INTEGER_LIST_RE = re.compile(r"\b[A-Za-z_][\w$.]*\s*=\s*\[([-+\d\s,]*)\]")
_INTEGER_RE = re.compile(r"[-+]?\d+")
INT64_MAX = (1 << 63) - 1


def oversized_list_integer(text: str) -> tuple[int, str] | None:
    """The offset and text of the first integer in a ``name = [...]`` list
    that does not fit 64 bits, or None. Upstream custom parsers (linalg.reduce
    ``dimensions``, linalg.broadcast) build a null attribute from one and
    abort in ``NamedAttrList::set`` (mlir-opt 22.1.8 aborts too), so jaxc-opt
    reports it before MLIR sees the text."""
    for match in _INTEGER_LIST_RE.finditer(text):
        for number in _INTEGER_RE.finditer(match.group(1)):
            if abs(int(number.group())) > INT64_MAX:
                return match.start(1) + number.start(), number.group()
    return None


def parse_module(text: str, source_name: str, context: ir.Context):
    """Parse `text` into a ``builtin.module`` (returned as its owner, an
    `ir.Module` or the module op): a lone module is kept, anything else is
    wrapped in one, like mlir-opt. Raises `ir.MLIRError`.

    `Operation.parse` takes the source name (so locations carry the file);
    only `Module.parse`, which names every location ``"-"``, can hold several
    top-level ops, so that case is renamed afterwards.
    """
    oversized = oversized_list_integer(text)
    if oversized is not None:
        offset, number = oversized
        line, col = _line_col(text, offset)
        raise InputError(f"integer {number} does not fit in 64 bits", f"{source_name}:{line}:{col}")
    try:
        op = ir.Operation.parse(text, source_name=source_name, context=context)
    except ir.MLIRError as error:
        count = _top_level_count(error)
        if count is None:
            raise
        if count == 0:
            return ir.Module.create(loc=ir.Location.file(source_name, 0, 0, context))
        module = ir.Module.parse(text, context)
        rename_file_locations(module.operation, "-", source_name)
        return module
    if op.operation.name == "builtin.module":
        return op
    module = ir.Module.create(loc=ir.Location.file(source_name, 0, 0, context))
    module.body.append(op)
    module.operation.verify()  # symbol uses are checked only inside a module
    return module


def parse_bytecode(data: bytes, context: ir.Context) -> ir.Module:
    """Parse MLIR bytecode (its locations come from the bytecode)."""
    return ir.Module.parse(data, context)


def _top_level_count(error: ir.MLIRError) -> int | None:
    """N when parsing failed only because the text holds N != 1 top-level ops."""
    if len(error.error_diagnostics) != 1:
        return None
    found = _COUNT_RE.fullmatch(error.error_diagnostics[0].message)
    return int(found.group(1)) if found else None


def rename_file_locations(root: ir.Operation, old: str, new: str) -> None:
    """Rename the file `old` to `new` in every op and block-argument location."""

    def fix(loc: ir.Location) -> ir.Location:
        if loc.is_a_file():
            if loc.filename != old:
                return loc
            if (loc.start_line, loc.start_col) == (loc.end_line, loc.end_col):
                return ir.Location.file(new, loc.start_line, loc.start_col, loc.context)
            return ir.Location.file(new, loc.start_line, loc.start_col, loc.end_line,
                                    loc.end_col, loc.context)
        if loc.is_a_callsite():
            return ir.Location.callsite(fix(loc.callee), [fix(loc.caller)], loc.context)
        if loc.is_a_name():
            return ir.Location.name(loc.name_str, fix(loc.child_loc), loc.context)
        if loc.is_a_fused():
            children = loc.locations
            fixed = [fix(child) for child in children]
            if fixed != children:  # the bindings cannot read a fused loc's metadata
                return ir.Location.fused(fixed, context=loc.context)
        return loc

    def visit(op: ir.Operation) -> ir.WalkResult:
        op.location = fix(op.location)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    arg.set_location(fix(arg.location))
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
