"""Write the op table (`_jaxc_op_table.py`) from the ODS records.

Run at build time by dialect/CMakeLists.txt on the output of
`mlir-tblgen --print-records dialect/JaxcOps.td`; `jaxc.dialect.op_table`
reads the result. One entry per jaxc op, in ODS order of its arguments:

    def Jaxc_SinOp : Jaxc_UnaryOp<"sin", Jaxc_InexactTensor, "sine">;
  ->
    "jaxc.sin": ("SinOp", "unary", (("operand", "Jaxc_InexactTensor"),), ()),

that is (generated class, family, operands, attributes), each operand and
attribute a (name, constraint) pair. Standard library only: it runs under
the Python that drives the build.
"""
from __future__ import annotations

import re
import sys

# `def Name {\t// Super1 Super2 ...` up to the record's closing brace.
RECORD = re.compile(r"^def (\w+) \{\t// (.*?)\n(.*?)^\}", re.S | re.M)


def _field(body: str, name: str) -> str | None:
    """The value of a one-line field `  <type> name = value;` of a record."""
    match = re.search(rf"^  \S+ {name} = (.*);$", body, re.M)
    return match.group(1) if match else None


def _unquote(value: str | None) -> str:
    return value[1:-1] if value and value.startswith('"') else ""


def _constraint(name: str, records: dict[str, tuple[list[str], str]]) -> str:
    """A constraint's def name; an anonymous one (`Variadic<Jaxc_Tensor>`,
    `DefaultValuedAttr<...>`) spelled as its class and base."""
    if not name.startswith("anonymous_"):
        return name
    supers, body = records[name]
    base = _field(body, "baseType") or _field(body, "baseAttr") or "?"
    return f"{supers[-1]}<{_constraint(base, records)}>"


def op_table(text: str) -> dict[str, tuple[str, str, tuple, tuple]]:
    """Op name -> (class, family, operands, attributes) of every jaxc op in
    the `--print-records` text."""
    records = {m.group(1): (m.group(2).split(), m.group(3)) for m in RECORD.finditer(text)}
    table = {}
    for def_name, (supers, body) in records.items():
        if "Op" not in supers or _field(body, "opDialect") != "Jaxc_Dialect":
            continue
        operands, attributes = [], []
        arguments = re.search(r"^  dag arguments = \(ins(.*)\);$", body, re.M)
        for constraint, name in re.findall(r"(\w+):\$(\w+)", arguments.group(1) if arguments else ""):
            kinds = records[constraint][0] if constraint in records else []
            (attributes if "Attr" in kinds else operands).append((name, _constraint(constraint, records)))
        op_name = "jaxc." + _unquote(_field(body, "opName"))
        table[op_name] = (def_name.removeprefix("Jaxc_"), _unquote(_field(body, "family")),
                          tuple(operands), tuple(attributes))
    return dict(sorted(table.items()))


def main(argv: list[str]) -> None:
    records_path, out_path = argv
    with open(records_path) as f:
        table = op_table(f.read())
    if not table:
        raise SystemExit(f"{records_path}: no jaxc ops found in the records")
    lines = ['"""Generated from the ODS by dialect/make_op_table.py; do not edit."""', "OPS = {"]
    lines += [f"    {name!r}: {entry!r}," for name, entry in table.items()]
    lines.append("}")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
