"""`jaxc-canonicalize-contractions`: every contraction in the form the
contraction schedule (`schedules/contraction.py`) tiles and vectorizes:
loops ordered batch, m, n, k, one loop of each.

Two things make other forms. `jaxc-to-linalg` gives a dot_general one loop
per free dim, so ``x @ w`` with ``x: f32[8, 128, 512]`` has two m loops; and
`linalg-fuse-elementwise-ops` folds reshapes and transposes of a product's
operands and result into the product by splitting its loops, so
``(a @ b).reshape(2, 32, 32, 256)`` runs over four. Such a kernel was
scheduled as a plain reduction, 50 to 100 times slower than the matmul it
is. Each loop has a role by the operands that read it (all three: batch;
lhs and result: m; rhs and result: n; lhs and rhs: k); the loops of one
role become one loop, the operands are collapsed onto them (views of the
same memory) and the result expanded back. An operand that reads a role's
loops apart or in another order than the result (k: than the lhs) is first
copied into order by a transpose kernel (one pass over it, against a
product that reads it m or n times); a result in another order is left as
it is.

    %r = linalg.generic {indexing_maps = [(d0, d1, d2, d3) -> (d0, d1, d3),
                                          (d0, d1, d2, d3) -> (d3, d2),
                                          (d0, d1, d2, d3) -> (d0, d1, d2)],
                         iterator_types = [parallel, parallel, parallel, reduction]}
           ins(%x, %w : tensor<8x128x512xf32>, tensor<512x512xf32>) outs(%fill : tensor<8x128x512xf32>)
  ->
    %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x128x512xf32> into tensor<1024x512xf32>
    %r2 = linalg.generic {(d0, d1, d2) -> (d0, d2), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1)}
           ins(%x2, %w) outs(%fill2 : tensor<1024x512xf32>)
    %r = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [8, 128, 512]

A zero fill as the output becomes a fill of the collapsed shape, so the
schedule still sees (and splits between the threads) the fill it owns.
"""
from __future__ import annotations

import dataclasses
import math

from mlir import ir
from mlir.dialects import tensor
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .lowering.common import generic, identity_map
from .registry import register_pass
from .schedules.contraction import filled_with, generic_taking_body
from .schedules.kernel import Kernel, describe


@register_pass("jaxc-canonicalize-contractions",
               "contractions in the form the contraction schedule takes: loops ordered batch, m, n, k, "
               "one loop each (operands collapsed or transposed, result expanded)")
def canonicalize_contractions(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for candidate in ops_named(op, ("linalg.generic",)):
            kernel = describe(candidate, 0)
            if kernel is None or not kernel.is_contraction or kernel.n_inputs != 2:
                continue
            form = canonical_form(kernel)
            if form is not None and form.changes(kernel):
                _rewrite(kernel, form)


# Which operands read a loop (lhs, rhs, out) -> the loop's role.
ROLES = {(True, True, True): "batch", (True, False, True): "m", (False, True, True): "n",
         (True, True, False): "k"}
ROLE_ORDER = ("batch", "m", "n", "k")


@dataclasses.dataclass
class CanonicalForm:
    """The loops of each role (batch, m, n in the output's order, k in the
    lhs's) and the order in which each operand should read them."""
    loops: dict[str, list[int]]
    reads: list[list[int]]  # lhs, rhs, out: loops in the order of the operand's dims

    @property
    def order(self) -> list[int]:
        return [d for role in ROLE_ORDER for d in self.loops[role]]

    def changes(self, kernel: Kernel) -> bool:
        return (self.order != list(range(len(kernel.ranges))) or self.reads != kernel.maps
                or any(len(loops) > 1 for loops in self.loops.values()))


def canonical_form(kernel: Kernel) -> CanonicalForm | None:
    """None where a loop has no role (read by one operand only, or a
    diagonal), a role has the wrong iterator kind, or the output reads its
    loops in an order other than batch, m, n."""
    reads = kernel.projections()
    lhs, rhs, out = reads
    if any(len(set(read)) != len(read) for read in reads):
        return None
    role = {d: ROLES.get((d in lhs, d in rhs, d in out)) for d in range(len(kernel.ranges))}
    if any(r is None or (kernel.iterators[d] == "reduction") != (r == "k") for d, r in role.items()):
        return None
    loops = {r: [d for d in (lhs if r == "k" else out) if role[d] == r] for r in ROLE_ORDER}
    batch, m, n, k = (loops[r] for r in ROLE_ORDER)
    if out != batch + m + n:
        return None
    lhs_read = lhs if lhs in (batch + m + k, batch + k + m) else batch + m + k
    rhs_read = rhs if rhs in (batch + k + n, batch + n + k) else batch + k + n
    return CanonicalForm(loops, [lhs_read, rhs_read, out])


def _rewrite(kernel: Kernel, form: CanonicalForm) -> None:
    """The kernel over one loop per role: operands transposed where they read
    their loops in another order, then collapsed; the result expanded."""
    op = kernel.op
    group_of = {d: g for g, role in enumerate(r for r in ROLE_ORDER if form.loops[r])
                for d in form.loops[role]}
    n_groups = len(set(group_of.values()))
    group_size = {g: math.prod(kernel.ranges[d] for d, h in group_of.items() if h == g)
                  for g in range(n_groups)}
    operands, maps = [], []
    with ir.InsertionPoint(op), op.location:
        for index, (value, read, target) in enumerate(zip(op.operands, kernel.projections(), form.reads)):
            if target != read:
                value = _transposed(value, [read.index(d) for d in target])
            reassociation = _reassociation(target, group_of)
            groups = [group_of[target[dims[0]]] for dims in reassociation]
            maps.append(ir.AffineMap.get(n_groups, 0, [ir.AffineDimExpr.get(g) for g in groups]))
            operands.append(_collapsed(value, [group_size[g] for g in groups], reassociation,
                                       is_init=index == kernel.n_inputs))
        k_group = group_of[form.loops["k"][0]]  # a contraction reduces over at least one loop
        iterators = ["reduction" if g == k_group else "parallel" for g in range(n_groups)]
        new = generic_taking_body(op, operands[-1].type, operands[:-1], operands[-1], maps, iterators)
        original = ir.RankedTensorType(op.results[0].type)
        result = new.results[0]
        out_reassociation = _reassociation(form.reads[-1], group_of)
        if len(out_reassociation) != original.rank:
            result = tensor.expand_shape(original, result, out_reassociation, [], list(original.shape))
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _reassociation(read: list[int], group_of: dict[int, int]) -> list[list[int]]:
    """The operand's dims, in runs that read loops of one group."""
    runs: list[list[int]] = []
    for position, loop in enumerate(read):
        if runs and group_of[read[position - 1]] == group_of[loop]:
            runs[-1].append(position)
        else:
            runs.append([position])
    return runs


def _transposed(value: ir.Value, permutation: list[int]) -> ir.Value:
    """`value` with dim i of the result being dim permutation[i] of `value`:
    a copy kernel (a generic, so that jaxc-schedule vectorizes it)."""
    t = ir.RankedTensorType(value.type)
    rank = t.rank
    read = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(permutation.index(j)) for j in range(rank)])
    result_type = ir.RankedTensorType.get([t.shape[p] for p in permutation], t.element_type)
    return generic([result_type], [value], [read, identity_map(rank)], ["parallel"] * rank,
                   lambda x, _: [x])[0]


def _collapsed(value: ir.Value, shape: list[int], reassociation: list[list[int]], is_init: bool) -> ir.Value:
    """`value` collapsed to `shape`; a filled init becomes a fill of `shape`."""
    if all(len(dims) == 1 for dims in reassociation):
        return value
    element = ir.RankedTensorType(value.type).element_type
    scalar = filled_with(value) if is_init else None
    if scalar is not None:
        return _fill(scalar, ir.RankedTensorType.get(shape, element))
    return tensor.collapse_shape(ir.RankedTensorType.get(shape, element), value, reassociation)


def _fill(scalar: ir.Value, result_type: ir.RankedTensorType) -> ir.Value:
    """A generalized linalg.fill of `scalar`: ins(%scalar) outs(%empty) { yield %in }."""
    rank = result_type.rank
    return generic([result_type], [scalar], [ir.AffineMap.get(rank, 0, []), identity_map(rank)],
                   ["parallel"] * rank, lambda x, _: [x])[0]
