"""Textual pass pipelines that mix upstream MLIR passes and project passes.

``parse_pipeline("builtin.module(func.func(cse),jaxc-cleanup{max-iterations=3})")``
gives a tree of `Anchor` and `PassRef` nodes; `build_pass_manager` turns the
tree into ONE `mlir.passmanager.PassManager`: upstream elements go in as
text (``pm.add("func.func(cse)")``), project passes as Python callables
(``pm.add(run, name=..., argument=...)``).

Nesting a project pass under an op anchor (``func.func(jaxc-cleanup)``): the
Python bindings have no ``PassManager.nest`` and cannot add a Python pass to a
nested pass manager, so such a pass is added at the top level and runs itself
on every op its anchors select (direct children, anchor by anchor, exactly as
a nested pass manager would pick them). Upstream passes around it stay in
real nested pass managers, so ``func.func(canonicalize,jaxc-cleanup,cse)``
becomes ``func.func(canonicalize)``, the project pass, ``func.func(cse)`` --
the same result for op-local passes. IR dumps show the project pass once, on
the whole module.

Two binding pitfalls this module steps around (LLVM 22.1.8):
  * ``PassManager.add(callable, op_name=...)`` keeps a pointer to a temporary
    string, so op-specific Python passes fail to schedule at random; project
    passes are therefore always added as generic passes, and `op_name` is
    checked here and again when the pass runs.
  * a failed ``pm.add(text)`` can leave half the element in the pass manager,
    so every upstream element is first tried on a throw-away pass manager.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import sys
import tempfile
import threading
import traceback
from typing import Callable, Iterator, Sequence, Union

from mlir import ir
from mlir.passmanager import ExternalPass, PassManager

from . import registry

ROOT_OP = "builtin.module"


class PipelineError(ValueError):
    """A pipeline that cannot be parsed or built; `pos` indexes the pipeline text."""

    def __init__(self, message: str, pos: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos

    def render(self, text: str) -> str:
        """The message, then the pipeline text with a caret under `pos`."""
        if self.pos is None or not text:
            return self.message
        return f"{self.message}\n  {text}\n  {' ' * min(self.pos, len(text))}^"


@dataclasses.dataclass
class PassRef:
    """A pass in a pipeline: ``name`` or ``name{options}``."""

    name: str
    options: str | None = None
    pos: int = 0

    def text(self) -> str:
        return self.name if self.options is None else f"{self.name}{{{self.options}}}"


@dataclasses.dataclass
class Anchor:
    """An op anchor with its nested pipeline: ``func.func(...)``."""

    op_name: str
    children: list[Node] = dataclasses.field(default_factory=list)
    pos: int = 0

    def text(self) -> str:
        return f"{self.op_name}({','.join(child.text() for child in self.children)})"


Node = Union[PassRef, Anchor]


# ----------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------

_NAME_RE = re.compile(r"[A-Za-z0-9_.$-]+")


def parse_pipeline(text: str) -> Anchor:
    """Parse ``anchor(element, ...)`` where an element is a pass, a pass with
    ``{options}``, or a nested ``anchor(...)``."""
    parser = _Parser(text)
    try:
        root = parser.parse_element()
    except RecursionError:
        raise PipelineError("pass pipeline is nested too deeply", 0) from None
    parser.skip_space()
    if parser.pos < len(text):
        raise PipelineError(f"unexpected '{text[parser.pos]}' after the pipeline", parser.pos)
    if not isinstance(root, Anchor):
        raise PipelineError(
            "expected pass pipeline to be wrapped with the anchor operation type, "
            "e.g. 'builtin.module(...)'", root.pos)
    return root


def pipeline_from_flags(flags: Sequence[tuple[str, str | None]]) -> Anchor:
    """The pipeline that mlir-opt style flags (``--cse``, ``--foo=opts``) ask for."""
    root = Anchor(ROOT_OP)
    offset = len(ROOT_OP) + 1
    for name, options in flags:
        ref = PassRef(name, options, offset)
        root.children.append(ref)
        offset += len(ref.text()) + 1
    return root


class _Parser:
    """Recursive descent over the pipeline text; positions go into errors."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse_element(self) -> Node:
        self.skip_space()
        start = self.pos
        match = _NAME_RE.match(self.text, self.pos)
        if not match:
            found = f"'{self.text[start]}'" if start < len(self.text) else "end of pipeline"
            raise PipelineError(f"expected a pass or op name, found {found}", start)
        self.pos = match.end()
        name = match.group()
        if self.peek() == "(":
            return self.parse_anchor(name, start)
        if self.peek() == "{":
            return PassRef(name, self.parse_options(name), start)
        return PassRef(name, None, start)

    def parse_anchor(self, op_name: str, start: int) -> Anchor:
        open_pos = self.pos
        self.pos += 1
        anchor = Anchor(op_name, [], start)
        if self.peek() == ")":
            self.pos += 1
            return anchor
        while True:
            anchor.children.append(self.parse_element())
            char = self.peek()
            if char == ",":
                self.pos += 1
            elif char == ")":
                self.pos += 1
                return anchor
            elif char == "":
                raise PipelineError(
                    f"unbalanced parentheses: '(' of '{op_name}' is never closed", open_pos)
            else:
                raise PipelineError(f"expected ',' or ')', found '{char}'", self.pos)

    def parse_options(self, name: str) -> str:
        open_pos = self.pos
        depth, i = 0, self.pos
        while i < len(self.text):
            char = self.text[i]
            if char in "\"'":
                end = self.text.find(char, i + 1)
                if end < 0:
                    raise PipelineError(f"unterminated {char} in the options of '{name}'", i)
                i = end + 1
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth == 0:
                self.pos = i + 1
                return self.text[open_pos + 1:i].strip()
            i += 1
        raise PipelineError(f"missing closing '}}' for the options of '{name}'", open_pos)


# ----------------------------------------------------------------------------
# Building one PassManager
# ----------------------------------------------------------------------------

@dataclasses.dataclass
class _ProjectPass:
    """A project pass resolved from the registry, with parsed options."""

    info: registry.PassInfo
    options: dict
    pos: int


@dataclasses.dataclass
class _ProjectStep:
    """A project pass to add at the top level, running on the ops `path` selects."""

    path: list[str]
    project: _ProjectPass


def build_pass_manager(root: Anchor, context: ir.Context, *,
                       implicit_nesting: bool = False) -> PassManager:
    """One PassManager running `root` on a ``builtin.module``.

    `implicit_nesting` (used for per-pass flags, like mlir-opt) nests a pass
    that only runs on one kind of op under that op's anchor instead of
    failing.
    """
    if root.op_name not in (ROOT_OP, "any"):
        raise PipelineError(
            f"the pipeline is anchored on '{root.op_name}', but jaxc-opt runs it on a "
            f"'{ROOT_OP}'; nest it: {ROOT_OP}({root.op_name}(...))", root.pos)
    resolved = _resolve(root, context, implicit_nesting)
    pm = PassManager(root.op_name, context=context)
    for segment in _segments(resolved.children, []):
        if isinstance(segment, _ProjectStep):
            info = segment.project.info
            pm.add(_runner(segment.project, segment.path), name=info.name,
                   argument=info.argument, description=info.summary)
            continue
        try:
            with _captured_stderr() as captured:
                pm.add(segment.text())
        except ValueError as error:
            raise PipelineError(_clean_mlir_message(str(error), captured.text),
                                segment.pos) from None
    return pm


def _resolve(anchor: Anchor, context: ir.Context, implicit_nesting: bool) -> Anchor:
    """Check every element; project passes become `_ProjectPass` leaves."""
    children: list = []
    for child in anchor.children:
        if isinstance(child, Anchor):
            children.append(_resolve(child, context, implicit_nesting))
            continue
        info = registry.lookup(child.name)
        if info is None:
            children.append(_check_upstream(child, anchor.op_name, context, implicit_nesting))
            continue
        try:
            options = info.parse_options(child.options)
        except registry.PassOptionError as error:
            raise PipelineError(str(error), child.pos) from None
        project = _ProjectPass(info, options, child.pos)
        if info.op_name and anchor.op_name not in (info.op_name, "any"):
            if not implicit_nesting:
                raise PipelineError(
                    f"pass '{info.argument}' runs on '{info.op_name}' ops, not on "
                    f"'{anchor.op_name}'; nest it: {info.op_name}({child.text()})", child.pos)
            nested: list = [project]  # as `children`: resolved anchors hold `_ProjectPass` leaves
            children.append(Anchor(info.op_name, nested, child.pos))
        else:
            children.append(project)
    return Anchor(anchor.op_name, children, anchor.pos)


def _check_upstream(ref: PassRef, anchor: str, context: ir.Context,
                    implicit_nesting: bool) -> Node:
    """Try an upstream pass on a throw-away pass manager anchored like its place."""
    try:
        with _captured_stderr() as captured:
            PassManager(anchor, context=context).add(ref.text())
        return ref
    except ValueError as error:
        message = str(error)
    restricted = re.search(r"restricted to '([^']+)'", message)
    if implicit_nesting and restricted:
        nested = Anchor(restricted.group(1), [ref], ref.pos)
        return _resolve(nested, context, implicit_nesting=False)
    raise PipelineError(_clean_mlir_message(message, captured.text), ref.pos)


def _has_project_pass(node) -> bool:
    """Whether a resolved node is, or holds, a project pass."""
    if isinstance(node, _ProjectPass):
        return True
    return isinstance(node, Anchor) and any(_has_project_pass(c) for c in node.children)


def _segments(children: list, path: list[str]) -> Iterator[Node | _Sequence | _ProjectStep]:
    """Split resolved children, in order, into upstream elements to add as
    text (runs of them, wrapped in the anchors of `path`) and project steps."""
    run: list[Node] = []

    def flush() -> Iterator[Node | _Sequence]:
        if run:
            yield _wrap(list(run), path)
            run.clear()

    for child in children:
        if not _has_project_pass(child):
            run.append(child)
        elif isinstance(child, _ProjectPass):
            yield from flush()
            yield _ProjectStep(list(path), child)
        else:
            yield from flush()
            yield from _segments(child.children, path + [child.op_name])
    yield from flush()


def _wrap(nodes: list[Node], path: list[str]) -> Node | _Sequence:
    """Nest upstream nodes under the anchors of `path` (outermost first)."""
    if not path:
        return _Sequence(nodes)
    node: Node = Anchor(path[-1], nodes, nodes[0].pos)
    for op_name in reversed(path[:-1]):
        node = Anchor(op_name, [node], node.pos)
    return node


@dataclasses.dataclass
class _Sequence:
    """Top-level upstream elements added together: ``canonicalize,cse``."""

    nodes: list[Node]

    @property
    def pos(self) -> int:
        return self.nodes[0].pos

    def text(self) -> str:
        return ",".join(node.text() for node in self.nodes)


# ----------------------------------------------------------------------------
# Running a project pass
# ----------------------------------------------------------------------------

class UserCodeError(Exception):
    """A pass ran user code (a custom_vmap rule) and it raised `error`. The
    runner reports the failure at `op` and holds `error`; whoever ran the
    pass manager raises it again in place of the failure (`take_user_error`,
    `stages.run_stage`), so the user sees their own exception."""

    def __init__(self, op: ir.Operation, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.op = op
        self.error = error

    def diagnostic(self, pass_name: str) -> str:
        return f"pass '{pass_name}': user code raised {self}"


class RefusedProgram(UserCodeError):
    """A pass refuses the program with the exception JAX raises for it:
    jaxc-opt reports `message` at `op`, Python gets `error_type` with the
    op's location in front (e.g. ValueError for reverse mode through a
    while loop)."""

    def __init__(self, op: ir.Operation, error_type: type[BaseException], message: str) -> None:
        super().__init__(op, error_type(f"{op.location}: {message}"))
        self.message = message

    def diagnostic(self, pass_name: str) -> str:
        return self.message


_HELD = threading.local()


def take_user_error() -> BaseException | None:
    """The exception user code raised in a pass since the last call on this
    thread (None if none)."""
    error = getattr(_HELD, "error", None)
    _HELD.error = None
    return error


def _runner(project: _ProjectPass, path: list[str]) -> Callable[[ir.Operation, ExternalPass], None]:
    """The callable given to the PassManager: runs the pass on each op that
    `path` selects under the op it is given, and never lets an exception
    escape into C++."""
    info, options = project.info, project.options

    def run(op: ir.Operation, pass_: ExternalPass) -> None:
        for target in ops_under(op, path):
            if info.op_name and target.name != info.op_name:
                target.location.emit_error(
                    f"pass '{info.argument}' runs on '{info.op_name}' ops, not '{target.name}'")
                pass_.signal_pass_failure()
                return
            try:
                info.run(target, pass_, **options)
            except UserCodeError as error:
                _HELD.error = error.error
                error.op.location.emit_error(error.diagnostic(info.argument))
                pass_.signal_pass_failure()
                return
            except Exception as error:  # a bug in the pass: report it, keep going
                traceback.print_exc(file=sys.stderr)
                target.location.emit_error(
                    f"internal error in pass '{info.argument}': {type(error).__name__}: "
                    f"{error}; this is a bug in jaxc, please report it")
                pass_.signal_pass_failure()
                return

    return run


def ops_under(op: ir.Operation, path: Sequence[str]) -> list[ir.Operation]:
    """The ops a nested pipeline ``path[0](path[1](...))`` would run on under
    `op`: at each level the direct children (of every region and block) whose
    name matches, ``any`` matching all."""
    ops = [op]
    for anchor in path:
        ops = [child.operation
               for parent in ops
               for region in parent.regions
               for block in region.blocks
               for child in block.operations
               if anchor == "any" or child.operation.name == anchor]
    return ops


# ----------------------------------------------------------------------------
# Error text from the bindings
# ----------------------------------------------------------------------------

class _Captured:
    text = ""


@contextlib.contextmanager
def _captured_stderr() -> Iterator[_Captured]:
    """Collect what C++ writes to fd 2 meanwhile (LLVM's option parser prints
    its complaints there instead of returning them)."""
    captured = _Captured()
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        yield captured
        return
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.text = sink.read().decode("utf-8", "replace")


_PARSER_PREFIX = re.compile(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: ")


def _clean_mlir_message(message: str, stderr_text: str = "") -> str:
    """One line from the bindings' multi-line error text: drop the parser's
    position prefix and its echo of the element with a caret (our own caret
    points into the whole pipeline)."""
    lines = [line.strip() for line in (stderr_text + "\n" + message).splitlines()]
    kept: list[str] = []
    for index, line in enumerate(lines):
        if not line or set(line) <= {"^", " ", "~"}:
            continue
        if index + 1 < len(lines) and lines[index + 1].startswith("^") and kept:
            continue  # the echoed element above a caret line
        kept.append(_PARSER_PREFIX.sub("", line).lstrip(": "))
    return "; ".join(kept) or "invalid pass pipeline element"
