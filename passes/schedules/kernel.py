"""What a schedule needs to know about one linalg.generic: loop ranges,
iterator kinds, indexing maps, element width and the ops of its body.

    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d0)],
                         iterator_types = ["parallel", "reduction"]} ...
    -> Kernel(ranges=(4096, 1024), parallel=(0,), reduction=(1,), ...)
"""
from __future__ import annotations

import dataclasses
import math

from mlir import ir

CONTRACTION_BODIES = ({"arith.mulf", "arith.addf"}, {"arith.muli", "arith.addi"})


@dataclasses.dataclass
class Kernel:
    op: ir.Operation
    ident: int
    ranges: tuple[int, ...]  # static trip count of each loop
    iterators: tuple[str, ...]  # "parallel" / "reduction" per loop
    maps: list[list[int] | None]  # per operand: loop dims its results read (None: not a projection)
    n_inputs: int
    n_outputs: int
    element_bits: int  # widest element type among operands
    body_ops: tuple[str, ...]

    @property
    def parallel(self) -> tuple[int, ...]:
        return tuple(i for i, it in enumerate(self.iterators) if it == "parallel")

    @property
    def reduction(self) -> tuple[int, ...]:
        return tuple(i for i, it in enumerate(self.iterators) if it == "reduction")

    @property
    def reads_index(self) -> bool:
        """Whether the body reads its loop indices (`linalg.index`: argmax's
        first index). Such a reduction is never split into partial results:
        `tile_reduction_using_for` does not offset the index, so each partial
        would see its own position, not the row's."""
        return "linalg.index" in self.body_ops

    @property
    def size(self) -> int:
        return math.prod(self.ranges)

    def is_identity(self, operand: int) -> bool:
        return self.maps[operand] == list(range(len(self.ranges)))

    def projection(self, operand: int) -> list[int]:
        """`maps[operand]` of an operand known to be a projection (every
        operand of a contraction is)."""
        read = self.maps[operand]
        assert read is not None, f"operand {operand} is not a projection"
        return read

    def projections(self) -> list[list[int]]:
        """`maps` of a kernel whose operands are all projections."""
        return [self.projection(i) for i in range(len(self.maps))]

    @property
    def is_contraction(self) -> bool:
        body = set(self.body_ops) - {"linalg.yield", "arith.extf", "arith.extsi", "arith.sitofp"}
        return (self.n_inputs == 2 and self.n_outputs == 1 and len(self.reduction) >= 1
                and body in CONTRACTION_BODIES and all(m is not None for m in self.maps))


def _has_nonpositive_multiplier(expr: ir.AffineExpr) -> bool:
    """Whether `expr` multiplies by a constant <= 0, as a reversal's
    `-d0 + 1999` does: upstream tiling asserts on such maps (TileCheck in
    Linalg/Utils.cpp aborts the process), so those kernels stay unscheduled."""
    if isinstance(expr, ir.AffineMulExpr) and isinstance(expr.rhs, ir.AffineConstantExpr) \
            and expr.rhs.value <= 0:
        return True
    if isinstance(expr, ir.AffineBinaryExpr):
        return _has_nonpositive_multiplier(expr.lhs) or _has_nonpositive_multiplier(expr.rhs)
    return False


def describe(op: ir.Operation, ident: int) -> Kernel | None:
    """The kernel of a linalg.generic with static shapes (None otherwise,
    and None for maps that upstream tiling cannot take)."""
    attrs = op.attributes
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(attrs["indexing_maps"])]
    if any(_has_nonpositive_multiplier(e) for m in maps for e in m.results):
        return None
    iterators = tuple(str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(attrs["iterator_types"]))
    n_loops = len(iterators)
    ranges: list[int | None] = [None] * n_loops
    dims: list[list[int] | None] = []
    bits = 0
    for value, amap in zip(op.operands, maps):
        t = value.type
        if isinstance(t, ir.ShapedType):
            if not t.has_static_shape:
                return None
            shape, element = list(t.shape), t.element_type
        else:
            shape, element = [], t
        bits = max(bits, _bits(element))
        read: list[int] = []
        for size, expr in zip(shape, amap.results):
            if isinstance(expr, ir.AffineDimExpr):
                d = expr.position
                ranges[d] = size
                read.append(d)
            else:
                dims.append(None)  # not a projection
                break
        else:
            dims.append(read)
    static_ranges = tuple(r for r in ranges if r is not None)
    if len(static_ranges) != n_loops or bits == 0:
        return None
    body = tuple(inner.operation.name for inner in op.regions[0].blocks[0].operations)
    n_outputs = len(op.results)
    return Kernel(op, ident, static_ranges, iterators, dims, len(maps) - n_outputs, n_outputs,
                  bits, body)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op that defines `value` (None for a block argument)."""
    owner = value.owner
    if isinstance(owner, ir.Operation):
        return owner
    return getattr(owner, "operation", None) if not isinstance(owner, ir.Block) else None


def _bits(t: ir.Type) -> int:
    for cls in (ir.F16Type, ir.BF16Type):
        if isinstance(t, cls):
            return 16
    if isinstance(t, ir.F32Type):
        return 32
    if isinstance(t, ir.F64Type):
        return 64
    if isinstance(t, ir.IntegerType):
        w = ir.IntegerType(t).width
        return 8 if w == 1 else w
    if isinstance(t, ir.IndexType):
        return 64
    return 0
