"""`jaxc-serial-foralls`: the bufferized `scf.forall`s a schedule marked
``jaxc.serial`` become `scf.for` nests, so that no OpenMP team runs them.

The row schedule (schedules/rows.py) fuses a row group into one forall over
the rows: the producers are fused into it with `fuse_into_containing_op`,
which needs the forall. When the group's work is too small to pay for a
fork/join (`rows.group_threads`) the schedule marks the forall; the
transform dialect's `loop.forall_to_for` only takes a forall without shared
outputs, so this runs after bufferization, before `scf-forall-to-parallel`
turns the others into parallel loops:

    scf.forall (%i) in (128) {
      ...
    } {jaxc.serial}

becomes

    scf.for %i = %c0 to %c128 step %c1 {
      ...
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import apply_transform_script, ops_where
from .registry import register_pass

MARK = "jaxc.serial"
NOW = "jaxc.serial_now"  # the one forall being converted
# `loop.forall_to_for` gives one handle per induction variable: a script per forall.
SCRIPT = """
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %forall = transform.structured.match ops{{["scf.forall"]}} attributes {{{now}}} in %root
      : (!transform.any_op) -> !transform.any_op
    %loops:{n} = transform.loop.forall_to_for %forall : (!transform.any_op) -> ({results})
    transform.yield
  }}
}}
"""


@register_pass("jaxc-serial-foralls",
               "bufferized scf.forall ops marked jaxc.serial become scf.for nests (one thread runs them)")
def serial_foralls(op: ir.Operation, pass_: ExternalPass) -> None:
    marked = ops_where(op, lambda child: child.name == "scf.forall" and MARK in child.attributes)
    with op.context, op.location:
        for forall in marked:
            n = len(forall.regions[0].blocks[0].arguments)
            del forall.attributes[MARK]
            forall.attributes[NOW] = ir.UnitAttr.get()
            apply_transform_script(op, SCRIPT.format(now=NOW, n=n, results=", ".join(["!transform.any_op"] * n)))
