"""Every op of the dialect has a batching rule in jaxc-batch, or is marked:
never batched (no operands) or not batchable with a reason (DESIGN.md
section 3)."""
from __future__ import annotations

from jaxc.dialect import op_table
from jaxc.passes.batching import batch, interpreter

batch._derive()  # load the rule tables
OPS = set(op_table.OPS)  # every op of the dialect, from the ODS
MARKED = set(interpreter.NEVER_BATCHED) | set(interpreter.NOT_BATCHABLE)


def test_every_op_has_a_batching_rule_or_is_marked():
    missing = OPS - set(interpreter.BATCH) - MARKED
    assert not missing, f"ops without a batching rule or a mark: {sorted(missing)}"


def test_marks_name_real_ops_and_do_not_overlap_rules():
    assert MARKED <= OPS
    assert not (MARKED & set(interpreter.BATCH))
    assert interpreter.AXIS_OPS <= set(interpreter.BATCH)


def test_func_call_has_a_rule():
    assert "func.call" in interpreter.BATCH
