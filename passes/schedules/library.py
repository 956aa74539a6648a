"""Contractions and DFTs as calls of the precompiled library.

Contractions call the matrix product (`jaxc.runtime`'s
gemm.c, built with jaxc into libjaxc_kernels.so): the schedule of an f32 or
f64 product C = A·B in any layout (A·B, Aᵀ·B, A·Bᵀ, batched) splits C over
the threads and marks each thread's part with the family to call; after
bufferization `jaxc-library-calls` turns the marked op into the call.
Generating and compiling a tiled loop nest per product cost 100-300 ms of
LLVM time per shape; the call costs next to nothing to compile and runs as
fast (docs/performance.md, "Matrix products from a compiled library").

    %c = linalg.generic (m, n, k) ins(%a, %b : tensor<1000x1000xf32>, ...) outs(%zero) {mulf, addf}
  ->
    %c = scf.forall (%i) in (2) shared_outs(%o = %empty) {          threads over rows of C
      %p = linalg.generic {library_call = "jaxc_gemm_f32_avx512", jaxc.gemm_overwrite}
             ins(%a[%i*500, 0] [500, 1000], %b) outs(%o[%i*500, 0] [500, 1000])
      ...

The generic a `jaxc.dft` lowers to (loops (c, k, j): sequence, frequency,
point; lowering/reduction.py) calls the FFT (fft.c: `jaxc_dft_f32`,
`jaxc_dft_f64`, which pick the CPU's vector width themselves; a
`jaxc.hermitian_dft`'s, with a real result, `jaxc_hermitian_dft_f32`/`_f64`); the threads
split its sequences in whole vectors, and its zero init goes (the call
writes every element):

    %y = linalg.generic {jaxc.dft_sign = -1, jaxc.dft_scale = 1.0}
           ins(%x : tensor<256x1024xcomplex<f32>>) ...
  ->
    %y = scf.forall (%i) in (2) shared_outs(%o = %empty) {
      %p = linalg.generic {library_call = "jaxc_dft_f32", ...} ins(%x[%i*128, 0] [128, 1024]) ...
"""
from __future__ import annotations

import dataclasses

from mlir import ir

from ..host import Target
from ..lowering.common import empty
from ..lowering.reduction import DFT_SIGN
from .contraction import PARALLEL_MIN_FLOPS, filled_with
from .kernel import Kernel
from .script import Plan, Script

# (element bits, vector bits) -> the family's register tile (MR, NR) in gemm.c:
# each thread's part of C is a whole number of these where it can be.
FAMILIES = {
    (32, 512): ("f32_avx512", 14, 32), (64, 512): ("f64_avx512", 14, 16),
    (32, 256): ("f32_avx2", 6, 16), (64, 256): ("f64_avx2", 6, 8),
    (32, 128): ("f32_sse2", 4, 8), (64, 128): ("f64_sse2", 4, 4),
}
PREFIX = "jaxc_gemm_"  # library_call = PREFIX + family
OVERWRITE_ATTR = "jaxc.gemm_overwrite"  # unit: the call writes C (its init was a zero fill)
MIN_ROWS = 8  # narrower products (a matrix-vector product) read B once in place: the generated loops
PRODUCT_BODY = ("arith.mulf", "arith.addf", "linalg.yield")


@dataclasses.dataclass(frozen=True)
class Layout:
    """Which loops of a product are its m, n and k, and which are batch loops."""

    m: int
    n: int
    k: int
    batch: tuple[int, ...]


def layout(maps: list[list[int] | None], iterators: tuple[str, ...]) -> Layout | None:
    """The loops of C = A·B (+ batch loops that A, B and C all read), as the
    library computes it, from the loop dims each operand reads (`Kernel.maps`:
    A, B, C) and the loops' iterator kinds: any order of the loops and any
    order of each operand's dims; None for anything else (a broadcast in C, a
    dim only A or only B reads besides m and n, several reductions)."""
    reduction = [d for d, kind in enumerate(iterators) if kind == "reduction"]
    if len(maps) != 3 or len(reduction) != 1 or any(read is None for read in maps):
        return None
    lhs, rhs, out = (list(read or ()) for read in maps)
    k = reduction[0]
    parallel = {d for d, kind in enumerate(iterators) if kind == "parallel"}
    a_only, b_only = (set(lhs) - set(rhs)) & parallel, (set(rhs) - set(lhs)) & parallel
    if len(a_only) != 1 or len(b_only) != 1 or sorted(out) != sorted(parallel):
        return None
    m, n = a_only.pop(), b_only.pop()
    batch = tuple(sorted(parallel - {m, n}))
    if sorted(lhs) != sorted((*batch, m, k)) or sorted(rhs) != sorted((*batch, n, k)):
        return None
    return Layout(m, n, k, batch)


def _element_types(op: ir.Operation) -> set[str]:
    """The element types of `op`'s operands ("scalar" for one that is not shaped)."""
    return {str(ir.ShapedType(v.type).element_type) if isinstance(v.type, ir.ShapedType) else "scalar"
            for v in op.operands}


def is_plain_product(op: ir.Operation) -> bool:
    """Whether the body is ``yield(acc + a * b)`` on the block's own arguments
    (no conversion, no other op), so that the library computes exactly it."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if tuple(inner.name for inner in body) != PRODUCT_BODY:
        return False
    mul, add, done = body
    a, b, acc = block.arguments
    return ({*mul.operands} == {a, b} and len(mul.operands) == 2 and mul.operands[0] != mul.operands[1]
            and {*add.operands} == {mul.results[0], acc} and done.operands[0] == add.results[0])


def family(kernel: Kernel, target: Target) -> tuple[str, int, int] | None:
    """(family, MR, NR) of gemm.c that computes `kernel` on `target`, or None
    (other element types, a body that converts, a layout that is not a
    product, fewer than `MIN_ROWS` rows, or fewer columns than a vector has
    lanes: the generated narrow schedules read those in place)."""
    if kernel.n_inputs != 2 or kernel.n_outputs != 1 or len(kernel.op.regions[0].blocks[0].arguments) != 3:
        return None
    types = _element_types(kernel.op)
    if types not in ({"f32"}, {"f64"}) or not is_plain_product(kernel.op):
        return None
    found = layout(kernel.maps, kernel.iterators)
    if (found is None or kernel.ranges[found.m] < MIN_ROWS
            or kernel.ranges[found.n] < target.lanes(kernel.element_bits)):
        return None
    return FAMILIES.get((kernel.element_bits, target.vector_bits))


def mark(kernel: Kernel, target: Target) -> bool:
    """Mark `kernel` with the family that computes it (``library_call``);
    when its C is a zero fill, the fill goes (erased if nothing else reads
    it) and the call writes C (`OVERWRITE_ATTR`). Runs before the kernels
    are numbered, so that a dropped fill is no kernel. False: not a product
    the library computes."""
    found = family(kernel, target)
    if found is None:
        return False
    op = kernel.op
    with op.context:
        op.attributes["library_call"] = ir.StringAttr.get(PREFIX + found[0])
        init = op.operands[2]
        value = filled_with(init)
        if value is not None and _is_zero(value):
            _init_empty(op, 2)
            op.attributes[OVERWRITE_ATTR] = ir.UnitAttr.get()
    return True


def _init_empty(op: ir.Operation, index: int) -> None:
    """Operand `index` of `op` (a filled init the call overwrites) becomes an
    empty tensor; the fill goes if nothing else reads it."""
    init = op.operands[index]
    with ir.InsertionPoint(op), op.location:
        t = ir.RankedTensorType(init.type)
        op.operands[index] = empty(list(t.shape), t.element_type)
    fill = init.owner
    if isinstance(fill, ir.OpView):
        fill = fill.operation
    if not list(init.uses):
        fill.erase()


def marked_family(op: ir.Operation) -> tuple[str, int, int] | None:
    """The family of gemm.c that `op`'s ``library_call`` names, or None."""
    if "library_call" not in op.attributes:
        return None
    name = ir.StringAttr(op.attributes["library_call"]).value
    return next((found for found in FAMILIES.values() if PREFIX + found[0] == name), None)


def schedule(kernel: Kernel, target: Target) -> Plan:
    """The plan of a kernel `mark` marked: batch loops one at a time, C's
    rows (or, when C is wider than tall, its columns) split between the
    threads in whole register tiles; nothing else (the call is the rest)."""
    s = Script(kernel.ident)
    handle = s.match_kernel()
    found = marked_family(kernel.op)
    where = layout(kernel.maps, kernel.iterators)
    if found is None or where is None:  # marked by hand, wrongly: jaxc-library-calls says what is wrong
        return Plan(s.text())
    _, mr, nr = found
    ranges = kernel.ranges
    m, n, k = ranges[where.m], ranges[where.n], ranges[where.k]
    batches = 1
    for d in where.batch:
        batches *= ranges[d]
    threads = target.threads if 2 * batches * m * n * k >= PARALLEL_MIN_FLOPS else 1
    one_batch = [1 if d in where.batch else 0 for d in range(len(ranges))]
    if where.batch and batches >= threads > 1:  # the threads take whole products
        s.tile_forall_sizes(handle, one_batch)
        return Plan(s.text())
    if where.batch:
        handle, _ = s.tile(handle, one_batch)
    if threads > 1:
        dim, extent, tile = (where.m, m, mr) if m >= n else (where.n, n, nr)
        part = -(-extent // threads)
        part = min(extent, -(-part // tile) * tile)
        if part < extent:
            sizes = [0] * len(ranges)
            sizes[dim] = part
            s.tile_forall_sizes(handle, sizes)
    return Plan(s.text())


DFT_PREFIX = "jaxc_dft_"  # library_call = DFT_PREFIX + the element type of the parts
HERMITIAN_PREFIX = "jaxc_hermitian_dft_"  # the same for a jaxc.hermitian_dft (a real result)
DFT_VECTOR_BITS = 512  # sequences per vector of fft.c: 16 f32, 8 f64; each thread takes whole vectors
DFT_SEQUENCES = 0  # loop c of the generic (c, k, j)


def is_dft(op: ir.Operation) -> bool:
    """Whether `op` is the generic of a `jaxc.dft` or `jaxc.hermitian_dft`
    (lowering/reduction.py)."""
    return DFT_SIGN in op.attributes


def is_hermitian_dft(op: ir.Operation) -> bool:
    """Whether `op` is the generic of a `jaxc.hermitian_dft`: a DFT's with a real result."""
    return is_dft(op) and not isinstance(ir.ShapedType(op.operands[-1].type).element_type, ir.ComplexType)


def marked_dft(op: ir.Operation) -> str | None:
    """The library function that `op`'s ``library_call`` names if it is a DFT, or None."""
    if "library_call" not in op.attributes:
        return None
    name = ir.StringAttr(op.attributes["library_call"]).value
    return name if name.startswith((DFT_PREFIX, HERMITIAN_PREFIX)) else None


def dft_part_type(op: ir.Operation) -> str | None:
    """"f32" or "f64": the parts of the DFT's result (complex, or real for a
    Hermitian one), or None (another type)."""
    result = ir.ShapedType(op.operands[-1].type).element_type
    if isinstance(result, ir.ComplexType):
        result = ir.ComplexType(result).element_type
    part = str(result)
    return part if part in ("f32", "f64") else None


def mark_dft(op: ir.Operation) -> bool:
    """Mark the generic of a `jaxc.dft` (`jaxc.hermitian_dft`) as a call of
    the FFT; its zero init becomes an empty tensor (the call writes all of it)."""
    part = dft_part_type(op)
    if part is None or len(op.operands) != 2:
        return False
    with op.context:
        prefix = HERMITIAN_PREFIX if is_hermitian_dft(op) else DFT_PREFIX
        op.attributes["library_call"] = ir.StringAttr.get(prefix + part)
        if filled_with(op.operands[1]) is not None:
            _init_empty(op, 1)
    return True


def dft_in_columns(op: ir.Operation) -> bool:
    """Whether the DFT's sequences are the columns of its operands (maps
    (c, k, j) -> (j, c), (k, c)) rather than their rows ((c, j), (c, k))."""
    first = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[0]).value
    return str(first.results[0]) == "d2"


def describe_dft(op: ir.Operation, ident: int) -> Kernel | None:
    """The kernel of a DFT's generic, loops (c, k, j) (`describe` takes no
    complex elements, which other kernels leave as scalar loops)."""
    x, y = (ir.ShapedType(v.type) for v in op.operands)
    part = dft_part_type(op)
    if part is None or not (x.has_static_shape and y.has_static_shape) or x.rank != 2:
        return None
    columns = dft_in_columns(op)
    (n_in, sequences), n_out = (x.shape, y.shape[0]) if columns else (reversed(x.shape), y.shape[1])
    body = tuple(inner.operation.name for inner in op.regions[0].blocks[0].operations)
    maps: list[list[int] | None] = [[2, 0], [1, 0]] if columns else [[0, 2], [0, 1]]
    return Kernel(op, ident, (sequences, n_out, n_in), ("parallel", "parallel", "reduction"), maps,
                  1, 1, 64 if part == "f64" else 32, body)


def dft_schedule(kernel: Kernel, target: Target) -> Plan:
    """The plan of a DFT `mark_dft` marked: its sequences split between the
    threads in whole vectors (when there is work enough for them)."""
    s = Script(kernel.ident)
    handle = s.match_kernel()
    sequences, n = kernel.ranges[DFT_SEQUENCES], kernel.ranges[1]
    flops = 5 * sequences * n * max(1, n.bit_length())
    if target.threads > 1 and flops >= PARALLEL_MIN_FLOPS:
        lanes = DFT_VECTOR_BITS // kernel.element_bits
        part = -(-sequences // target.threads)
        part = min(sequences, -(-part // lanes) * lanes)
        if part < sequences:
            sizes = [0] * len(kernel.ranges)
            sizes[DFT_SEQUENCES] = part
            s.tile_forall_sizes(handle, sizes)
    return Plan(s.text())


def _is_zero(value: ir.Value) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, ir.Operation) else getattr(owner, "operation", None)
    if op is None or op.name != "arith.constant":
        return False
    attr = op.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0 \
        and not str(attr).startswith("-")
