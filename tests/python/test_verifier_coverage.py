"""Every verifier message in dialect/*.cpp has a negative lit test.

Each `emitOpError() << ...` / `emitOpErrorAt(loc, name) << ...` statement is a
message template. Its key is its first string literal that holds a word; a
key of fewer than three words also takes the next worded literal (for
`<< kind << " dimension lhs[" << l << "] of size "` the key is
"dimension lhs[" ... "] of size"). The test fails, listing the templates, when
no `expected-error {{...}}` in tests/lit/dialect/invalid-*.mlir contains every
part of a key, in order. Templates no textual IR can reach are listed, with
the reason, in UNREACHABLE.
"""
from __future__ import annotations

import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIALECT = os.path.join(ROOT, "dialect")
INVALID = os.path.join(ROOT, "tests", "lit", "dialect")

# `emitOpError(` or `emitOpErrorAt(` with one level of nested parentheses,
# then `<<`: the start of a diagnostic statement.
EMIT = re.compile(r"\bemitOpError(?:At)?\((?:[^()]|\([^()]*\))*\)\s*<<")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
WORD = re.compile(r"[A-Za-z_]{2,}")
EXPECTED = re.compile(r"expected-error\s*(?:@[^{]*)?\{\{(.*?)\}\}")

# Messages no textual IR can reach: a check that runs earlier always fails
# first. Each must still exist in the C++ (see the last test), so the list
# cannot go stale silently.
UNREACHABLE = {
    # Custom syntax always gives 2 / 4 operands; in the generic form the ODS
    # operand-count check ("expected 2 operands, but found 3") fails first.
    "expects 2 operands (lhs, rhs), got",
    "expects 4 operands (key0, key1, x0, x1)",
    # `value` is a required ElementsAttr: parser and ODS check it first.
    "requires a `value` elements attribute",
    # Regions are SizedRegion<1>: ODS reports "region with 1 blocks" first.
    "region must not be empty",
    # convert is Elementwise: the trait reports a shape change first ("all
    # non-scalar operands/results must have the same shape and base type").
    "differ; convert changes only the element type",
}


def _statement_literals(text: str, start: int) -> list[str]:
    """The string literals of the C++ statement that continues at `start`."""
    literals = []
    i = start
    while i < len(text) and text[i] != ";":
        if text[i] == '"':
            match = STRING.match(text, i)
            literals.append(bytes(match.group(1), "utf-8").decode("unicode_escape"))
            i = match.end()
        elif text.startswith("//", i):
            i = text.index("\n", i)
        else:
            i += 1
    return literals


def message_templates() -> dict[tuple[str, ...], tuple[str, str]]:
    """Key (worded literal fragments, in order) -> ('file:line', full template).

    The full template joins the statement's literals with `{}` where a value
    is streamed in; it names the template in failure messages.
    """
    templates: dict[tuple[str, ...], tuple[str, str]] = {}
    for path in sorted(glob.glob(os.path.join(DIALECT, "*.cpp"))):
        with open(path) as f:
            text = f.read()
        for match in EMIT.finditer(text):
            literals = _statement_literals(text, match.end())
            worded = [s.strip() for s in literals if WORD.search(s)]
            if not worded:
                continue
            key = [worded[0]]
            if len(worded[0].split()) < 3 and len(worded) > 1:
                key.append(worded[1])
            line = text.count("\n", 0, match.start()) + 1
            templates.setdefault(tuple(key), (f"{os.path.basename(path)}:{line}",
                                              "{}".join(literals)))
    return templates


def expected_errors() -> list[str]:
    texts = []
    for path in sorted(glob.glob(os.path.join(INVALID, "invalid-*.mlir"))):
        with open(path) as f:
            texts += EXPECTED.findall(f.read())
    return texts


def _covered(key: tuple[str, ...], text: str) -> bool:
    position = 0
    for part in key:
        found = text.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def test_extraction_finds_the_messages():
    templates = message_templates()
    # A broken regex would find nothing and make the coverage test vacuous.
    assert len(templates) > 80, f"only {len(templates)} message templates in dialect/*.cpp"
    assert ("cannot reshape", "elements) into") in templates
    assert ("dimension lhs[", "] of size") in templates
    assert ("perm sends to device",) in templates


def test_every_verifier_message_has_a_negative_test():
    errors = expected_errors()
    assert errors, "no expected-error lines in tests/lit/dialect/invalid-*.mlir"
    missing = []
    for key, (where, template) in sorted(message_templates().items(),
                                         key=lambda item: item[1]):
        if any(message in template for message in UNREACHABLE):
            continue
        if not any(_covered(key, text) for text in errors):
            missing.append(f"{where}: {template!r} (looked for {' ... '.join(key)!r})")
    assert not missing, (
        "verifier messages without an expected-error in tests/lit/dialect/invalid-*.mlir:\n  "
        + "\n  ".join(missing))


def test_unreachable_list_is_current():
    templates = [template for _, template in message_templates().values()]
    stale = sorted(message for message in UNREACHABLE
                   if not any(message in template for template in templates))
    assert not stale, f"UNREACHABLE names messages no longer in dialect/*.cpp: {stale}"
