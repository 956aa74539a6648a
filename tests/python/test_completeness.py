"""Every op of the dialect has a round-trip lit test and documentation, and
the op table (jaxc.dialect.op_table) describes the ops the bindings define.

- Each op name the generated Python module defines must appear as an op in a
  round-trip file tests/lit/dialect/*.mlir (the invalid-*.mlir files, which
  test diagnostics, do not count; neither do comments and CHECK lines).
- Each op in the ODS (dialect/*.td) must have a summary and a description.
"""
from __future__ import annotations

import functools
import glob
import importlib.util
import inspect
import os
import re
import shutil
import subprocess

import mlir
import pytest

from jaxc.dialect import _jaxc_ops_gen, op_table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIT_DIALECT = os.path.join(ROOT, "tests", "lit", "dialect")
DIALECT_DIR = os.path.join(ROOT, "dialect")

# `jaxc.add` in pretty form, `"jaxc.add"` in generic form; not `#jaxc.x` / `!jaxc.x`.
OP_NAME = re.compile(r'(?<![#!\w.])"?(jaxc\.[a-z][a-z0-9_]*)\b')


def generated_op_classes() -> dict[str, type]:
    """Op name -> generated OpView class."""
    ops = {}
    for _, cls in inspect.getmembers(_jaxc_ops_gen, inspect.isclass):
        name = getattr(cls, "OPERATION_NAME", None)
        if isinstance(name, str) and name.startswith("jaxc."):
            ops[name] = cls
    return ops


def test_op_table_lists_every_generated_class() -> None:
    assert {name: info.cls for name, info in op_table.OPS.items()} == {
        name: cls.__name__ for name, cls in generated_op_classes().items()}


def test_op_table_families_fit_their_ops() -> None:
    """"unary"/"binary": that many operands and no attributes (lax builds
    them from the operands alone)."""
    operand_counts = {"unary": 1, "binary": 2}
    for name, info in op_table.OPS.items():
        assert info.family in op_table.FAMILIES, name
        if info.family in operand_counts:
            assert len(info.operands) == operand_counts[info.family] and not info.attributes, name
            assert not any(c.startswith(("Variadic", "Optional")) for _, c in info.operands), name


def test_op_table_rejects_an_unknown_family() -> None:
    with pytest.raises(ValueError, match="unknown op families"):
        op_table.ops_in("unary", "elementwize")


def round_trip_files() -> list[str]:
    files = sorted(glob.glob(os.path.join(LIT_DIALECT, "*.mlir")))
    return [f for f in files if not os.path.basename(f).startswith("invalid-")]


def ops_used_in(path: str) -> set[str]:
    """Op names used in the IR of a lit file, ignoring `//` comments."""
    used = set()
    with open(path) as f:
        for line in f:
            code = line.split("//", 1)[0]
            used.update(OP_NAME.findall(code))
    return used


def test_the_dialect_has_ops() -> None:
    ops = generated_op_classes()
    # A sanity floor: the catalogue of DESIGN.md section 2 has about 100 ops.
    assert len(ops) >= 90, sorted(ops)
    assert "jaxc.add" in ops and "jaxc.yield" in ops


def test_every_op_has_a_round_trip_test() -> None:
    files = round_trip_files()
    assert files, f"no round-trip files in {LIT_DIALECT}"
    used: set[str] = set()
    for path in files:
        used |= ops_used_in(path)
    missing = sorted(set(generated_op_classes()) - used)
    assert not missing, (
        f"{len(missing)} ops have no round-trip test in tests/lit/dialect/*.mlir "
        f"(invalid-*.mlir excluded): {', '.join(missing)}")


def test_round_trip_files_name_only_real_ops() -> None:
    """Catches typos such as `jaxc.exp_2` that would count as coverage."""
    known = set(generated_op_classes())
    unknown = {}
    for path in round_trip_files():
        extra = sorted(ops_used_in(path) - known)
        if extra:
            unknown[os.path.basename(path)] = extra
    assert not unknown, f"unknown jaxc op names: {unknown}"


def test_round_trip_files_run_both_forms() -> None:
    """Each round-trip file checks the custom and the generic form."""
    for path in round_trip_files():
        with open(path) as f:
            text = f.read()
        name = os.path.basename(path)
        assert "// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s" in text, name
        assert "// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s" in text, name


def test_every_generated_class_has_a_docstring() -> None:
    """The generated classes carry the ODS description as their docstring."""
    undocumented = sorted(name for name, cls in generated_op_classes().items()
                          if not (cls.__doc__ or "").strip())
    assert not undocumented, f"ops without a description: {', '.join(undocumented)}"


# ---------------------------------------------------------------------------
# Summaries and descriptions straight from the .td files, resolved through
# their base classes by `mlir-tblgen --print-records`.
# ---------------------------------------------------------------------------


def _load_make_op_table():
    """dialect/make_op_table.py, the build step that makes the op table (not installed)."""
    spec = importlib.util.spec_from_file_location("make_op_table", os.path.join(DIALECT_DIR, "make_op_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_op_table = _load_make_op_table()
RECORD = make_op_table.RECORD  # one record of `--print-records`: name, superclasses, body
# `string summary = "...";` or `code description = [{...}];` (the printed
# strings are not escaped: they end at the first `";` that ends a line).
FIELD = r'^  (?:string|code) {name} = (?:"(.*?)"|\[\{{(.*?)\}}\]);$'


def _tblgen() -> tuple[str, str] | None:
    """(mlir-tblgen, MLIR include dir), or None when the tools are missing."""
    mlir_dir = list(mlir.__path__)[0]
    tool = os.path.join(mlir_dir, "bin", "mlir-tblgen")
    if not os.path.isfile(tool):
        tool = shutil.which("mlir-tblgen") or ""
    include = os.path.join(mlir_dir, "include")
    if not tool or not os.path.isfile(os.path.join(include, "mlir", "IR", "OpBase.td")):
        return None
    return tool, include


@functools.cache
def _records_text() -> str:
    """`mlir-tblgen --print-records` of the dialect's ODS (run once)."""
    found = _tblgen()
    if found is None:
        pytest.skip("mlir-tblgen or the MLIR .td includes (xtc-mlir-dev) are not installed")
    tool, include = found
    return subprocess.run(
        [tool, "--print-records", "-I", DIALECT_DIR, "-I", include,
         os.path.join(DIALECT_DIR, "JaxcOps.td")],
        check=True, capture_output=True, text=True).stdout


def _records() -> list[tuple[list[str], str]]:
    """(superclasses, body) of every jaxc op record of the ODS."""
    ops = [(m.group(2).split(), m.group(3)) for m in RECORD.finditer(_records_text())]
    return [(supers, body) for supers, body in ops
            if "Op" in supers and "Dialect opDialect = Jaxc_Dialect;" in body]


def ods_op_docs() -> dict[str, tuple[str, str]]:
    """ODS op name -> (summary, description) for every jaxc op."""
    docs = {}
    for superclasses, body in _records():
        op_name = re.search(r'^  string opName = "(.*)";$', body, re.M).group(1)
        fields = []
        for field in ("summary", "description"):
            m = re.search(FIELD.format(name=field), body, re.M | re.S)
            fields.append((m.group(1) or m.group(2) or "") if m else "")
        docs["jaxc." + op_name] = (fields[0].strip(), fields[1].strip())
    return docs


def test_every_op_with_the_elementwise_trait_has_an_elementwise_family() -> None:
    """So that jaxc-batch and lax see it (the family is set by hand on ops
    that do not derive from Jaxc_UnaryOp/Jaxc_BinaryOp)."""
    elementwise = [body for _, body in _records()
                   if re.search(r"^  list<Trait> traits = \[.*\bElementwise\b", body, re.M)]
    assert elementwise, "no op has the Elementwise trait: the record format changed"
    unfiled = sorted(re.search(r'^  string opName = "(.*)";$', body, re.M).group(1) for body in elementwise
                     if '  string family = "";' in body)
    assert not unfiled, f"ops with the Elementwise trait but no family in the ODS: {unfiled}"


def test_op_table_is_current() -> None:
    """The installed table is what make_op_table.py makes of the ODS now."""
    fresh = make_op_table.op_table(_records_text())
    assert fresh == {name: tuple(info) for name, info in op_table.OPS.items()}, (
        "the op table is stale: rebuild the dialect")


def test_ods_and_generated_classes_agree() -> None:
    assert set(ods_op_docs()) == set(generated_op_classes()), (
        "the generated Python module is stale: rebuild the dialect")


def test_every_op_has_a_summary_and_description() -> None:
    docs = ods_op_docs()
    no_summary = sorted(name for name, (summary, _) in docs.items() if not summary)
    no_description = sorted(name for name, (_, description) in docs.items() if not description)
    assert not no_summary, f"ops without a summary: {', '.join(no_summary)}"
    assert not no_description, f"ops without a description: {', '.join(no_description)}"
