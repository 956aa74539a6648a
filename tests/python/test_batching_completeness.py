"""Every op of the dialect has a batching rule in jaxc-batch, or is marked:
never batched (no operands) or not batchable with a reason (DESIGN.md
section 3)."""
from __future__ import annotations

from jaxc.passes.batching import batch, expand
from test_completeness import generated_op_classes

expand._derive()  # load the rule tables
OPS = set(generated_op_classes())
MARKED = set(batch.NEVER_BATCHED) | set(batch.NOT_BATCHABLE)


def test_every_op_has_a_batching_rule_or_is_marked():
    missing = OPS - set(batch.BATCH) - MARKED
    assert not missing, f"ops without a batching rule or a mark: {sorted(missing)}"


def test_marks_name_real_ops_and_do_not_overlap_rules():
    assert MARKED <= OPS
    assert not (MARKED & set(batch.BATCH))
    assert batch.AXIS_OPS <= set(batch.BATCH)


def test_func_call_has_a_rule():
    assert "func.call" in batch.BATCH
