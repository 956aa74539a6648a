"""`jaxc-gpu-parallel-dims-outer`: a generic's parallel loops go before its
reductions, so the whole op becomes one kernel.

`convert-linalg-to-parallel-loops` keeps the iterator order: a column sum
(a reduction over rows, then the parallel columns) becomes a host `scf.for`
over the rows that launches one kernel per row (128 launches for a bias
gradient of batch 128). Interchanged, it is one kernel: each thread walks
the rows of its own column (`transform.structured.interchange`).

Before::

    linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1)],
                    iterator_types = ["reduction", "parallel"]} ...

After::

    linalg.generic {indexing_maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0)],
                    iterator_types = ["parallel", "reduction"]} ...
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from ..ir import apply_transform_script, ops_named
from ..registry import register_pass

MARK = "jaxc.interchange"  # which permutation a generic gets, while the pass runs


@register_pass("jaxc-gpu-parallel-dims-outer",
               "interchange linalg.generic loops so parallel dims come before reductions")
def parallel_dims_outer(op: ir.Operation, pass_: ExternalPass) -> None:
    permutations: list[list[int]] = []
    with op.context:
        for generic in ops_named(op, ["linalg.generic"]):
            permutation = parallel_first(generic)
            if permutation is None:
                continue
            if permutation not in permutations:
                permutations.append(permutation)
            generic.attributes[MARK] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                          permutations.index(permutation))
        if not permutations:
            return
        apply_transform_script(op, _script(permutations))
        for generic in ops_named(op, ["linalg.generic"]):
            if MARK in generic.attributes:
                del generic.attributes[MARK]


def parallel_first(generic: ir.Operation) -> list[int] | None:
    """The loop order with the parallel dims first (each group in its own
    order), or None when no reduction comes before a parallel dim."""
    kinds = ["reduction" if "reduction" in str(kind) else "parallel"
             for kind in generic.attributes["iterator_types"]]
    order = ([d for d, kind in enumerate(kinds) if kind == "parallel"]
             + [d for d, kind in enumerate(kinds) if kind == "reduction"])
    return None if order == list(range(len(kinds))) else order


def _script(permutations: list[list[int]]) -> str:
    any_op = "!transform.any_op"
    lines = []
    for index, permutation in enumerate(permutations):
        lines.append(f"%g{index} = transform.structured.match ops{{[\"linalg.generic\"]}} "
                     f"attributes {{{MARK} = {index} : i64}} in %root : ({any_op}) -> {any_op}")
        lines.append(f"%i{index} = transform.structured.interchange %g{index} "
                     f"iterator_interchange = {permutation} : ({any_op}) -> {any_op}")
    body = "\n    ".join(lines)
    return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: {any_op} {{transform.readonly}}) {{
    {body}
    transform.yield
  }}
}}"""
