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

# Splitting a kernel over the threads: only when its work (elements x cost
# per element, below) is at least PARALLEL_MIN_WORK and it has at least
# PARALLEL_MIN_ELEMENTS. A fork/join costs ~5-20 us on a quiet machine, and a
# time slice when another runtime's threads hold the cores (an XLA pool
# thread spins ~100 ms after each JAX call): a 256 x 256 copy (20-60 us alone)
# split over 2 threads next to JAX made linalg.inv 30x slower.
PARALLEL_MIN_ELEMENTS = 1 << 15
PARALLEL_MIN_WORK = 1 << 19
# Cost of a body op per element, in quarters of the element's own load and
# store (the 1 every element costs); ops not named cost 1 (a vector arith op).
OP_COST = {"linalg.yield": 0, "linalg.index": 0, "tensor.extract": 4, "arith.divf": 4,
           "arith.divsi": 4, "arith.divui": 4, "arith.remf": 4, "arith.remsi": 4, "arith.remui": 4,
           "math.sqrt": 4, "math.rsqrt": 4, "math.absf": 1, "math.copysign": 1, "math.fma": 1,
           "math.floor": 1, "math.ceil": 1, "math.roundeven": 1, "math.round": 1, "math.trunc": 1}
MATH_COST = 16  # any other math op: a vector polynomial or a libmvec call


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

    @property
    def cost_per_element(self) -> float:
        """The element's load and store (1) plus its body ops (`OP_COST`, in
        quarters): `x + 1` 1.25, `tanh(x)` 5, a gather `x[i]` 3."""
        ops = sum(OP_COST.get(name, MATH_COST if name.startswith("math.") else 1)
                  for name in self.body_ops)
        return 1 + ops / 4

    def threads(self, available: int) -> int:
        """How many of the `available` threads to split the kernel over: all
        when its work pays for a fork/join (`PARALLEL_MIN_WORK`), else 1."""
        work = self.size * self.cost_per_element
        return available if self.size >= PARALLEL_MIN_ELEMENTS and work >= PARALLEL_MIN_WORK else 1

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
