"""The op table: every jaxc op with its generated class, family, operands
and attributes, generated from the ODS at build time (make_op_table.py).

jaxc.lax makes its elementwise primitives from it, jaxc-batch gives every
elementwise op its rule from it, and the completeness tests check the rule
tables against it, so adding an op does not mean adding its name to lists:

    >>> OPS["jaxc.sin"]
    OpInfo(cls='SinOp', family='unary', operands=(('operand', 'Jaxc_InexactTensor'),), attributes=())
    >>> ops_in("binary")[:3]
    ['jaxc.add', 'jaxc.and', 'jaxc.atan2']

Families (the ODS `family` field, dialect/JaxcBase.td): "unary" and
"binary" (elementwise, one or two operands of one type, no attributes,
result type inferred), "elementwise" (the other elementwise ops), "" (the rest).
"""
from __future__ import annotations

from typing import NamedTuple

from ._jaxc_op_table import OPS as _GENERATED

FAMILIES = ("unary", "binary", "elementwise", "")


class OpInfo(NamedTuple):
    cls: str  # the generated op class in jaxc.dialect (`SinOp`)
    family: str
    operands: tuple[tuple[str, str], ...]  # (name, ODS type constraint)
    attributes: tuple[tuple[str, str], ...]  # (name, ODS attribute constraint)


OPS: dict[str, OpInfo] = {name: OpInfo(*entry) for name, entry in _GENERATED.items()}


def ops_in(*families: str) -> list[str]:
    """Names of the ops in any of `families`, sorted."""
    unknown = set(families) - set(FAMILIES)
    if unknown:
        raise ValueError(f"unknown op families {sorted(unknown)}; the families are {FAMILIES}")
    return [name for name, info in OPS.items() if info.family in families]
