"""`jaxc-tree-horizontal-reductions`: the last step of a row reduction, the
lanes of its partial-sum vector added into one number, as a tree.

A row reduction (`schedules/reduction.py`) keeps W lanes of partial results
and ends each row with a `vector.multi_reduction` of those lanes. Upstream
`lower-vector-multi-reduction` turns that into W - 1 dependent scalar ops, a
chain of ~100 cycles per row that dominated short rows: the sum over rows of
a 4096 x 1024 array ran at half JAX's speed. This pass rewrites a
multi_reduction whose reduced dims are its innermost ones, every other dim
being 1, as one `vector.reduction`, which LLVM lowers to log2(W) shuffle
steps. Float additions and multiplications get the `reassoc` flag that lets
it: the lanes are then combined pairwise (the accumulator added last), not
from the first lane to the last; other kinds are exact in any order.
Reductions over outer dims keep upstream's lowering (vector adds).

    %r = vector.multi_reduction <add>, %p, %acc [1] : vector<1x32xf32> to vector<1xf32>
  ->
    %f = vector.shape_cast %p : vector<1x32xf32> to vector<32xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    %s = vector.reduction <add>, %f, %a fastmath<reassoc> : vector<32xf32> into f32
    %r = vector.broadcast %s : f32 to vector<1xf32>
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import vector
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .lowering.common import is_float
from .registry import register_pass

REASSOCIATED_KINDS = ("add", "mul")  # float kinds whose result depends on the order


@register_pass("jaxc-tree-horizontal-reductions",
               "a vector.multi_reduction of a vector's innermost dims becomes one vector.reduction "
               "(a tree of shuffles; float add/mul reassociated)")
def tree_horizontal_reductions(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        for reduction in ops_named(op, ("vector.multi_reduction",)):
            if _is_horizontal(reduction):
                _rewrite(reduction)


def _is_horizontal(reduction: ir.Operation) -> bool:
    """Whether the reduced dims are the innermost ones and every other dim is 1."""
    source = ir.VectorType(reduction.operands[0].type)
    if source.scalable:
        return False
    dims = sorted(ir.DenseI64ArrayAttr(reduction.attributes["reduction_dims"]))
    first = source.rank - len(dims)
    return bool(dims) and dims == list(range(first, source.rank)) and all(
        source.shape[d] == 1 for d in range(first))


def _rewrite(reduction: ir.Operation) -> None:
    source_value, acc = reduction.operands[0], reduction.operands[1]
    source = ir.VectorType(source_value.type)
    element = source.element_type
    kind = ir.Attribute(reduction.attributes["kind"])
    kind_name = str(kind).split("<")[-1].rstrip(">")
    result_type = reduction.results[0].type
    with ir.InsertionPoint(reduction), reduction.location:
        flat_type = ir.VectorType.get([math.prod(source.shape)], element)
        flat = source_value if source.rank == 1 else vector.shape_cast(flat_type, source_value)
        if isinstance(result_type, ir.VectorType):
            rank = ir.VectorType(result_type).rank
            acc = vector.extract(acc, [], [0] * rank)
        fastmath = None
        if kind_name in REASSOCIATED_KINDS and is_float(element):
            fastmath = ir.Attribute.parse("#arith.fastmath<reassoc>")
        total = vector.reduction(element, kind, flat, acc=acc, fastmath=fastmath)
        if isinstance(result_type, ir.VectorType):
            total = vector.broadcast(result_type, total)
    reduction.results[0].replace_all_uses_with(total)
    reduction.erase()
