"""Every op of the dialect has a forward-mode and a reverse-mode rule in
jaxc-autodiff, or is marked: zero derivative, or not differentiable with a
reason (DESIGN.md section 3)."""
from __future__ import annotations

from jaxc.dialect import op_table
from jaxc.passes.autodiff import autodiff, jvp, vjp

autodiff._derivers()  # load the rule tables
OPS = set(op_table.OPS)  # every op of the dialect, from the ODS
MARKED = jvp.ZERO_DERIVATIVE | set(jvp.NOT_DIFFERENTIABLE)


def test_every_op_has_a_forward_rule_or_is_marked():
    missing = OPS - set(jvp.JVP) - set(jvp.JVP_FULL) - MARKED
    assert not missing, f"ops without a jvp rule or a mark: {sorted(missing)}"


def test_every_op_has_a_reverse_rule_or_is_marked():
    missing = OPS - set(vjp.VJP) - MARKED
    assert not missing, f"ops without a vjp rule or a mark: {sorted(missing)}"


def test_marks_name_real_ops_and_do_not_overlap_rules():
    assert MARKED <= OPS | {"func.call"}
    assert not (set(jvp.NOT_DIFFERENTIABLE) & (set(jvp.JVP) | set(vjp.VJP) | jvp.ZERO_DERIVATIVE))
