"""Contractions (dot_general: A·B, Aᵀ·B, A·Bᵀ, batched): cache tiles, a
register tile of accumulators kept across the k loop, vectorized as
outer products (one FMA per accumulator register per k step). When the
register tile divides the sizes, B (and, where its panel rows fit cache
lines, A) is first packed into contiguous panels by the threads
(`pack_panels`, `schedule_packed`); otherwise B is read in place.

Loops are (batch..., m, n, k) as `jaxc-to-linalg` emits them. The schedule:

    forall over row blocks of m (threads)          tile_using_forall
      for n0, k0, m0 in cache tiles [MC, NC, KC]   tile_using_for, interchange
        for n1, m1 in register tiles [NR, MR], k1  tile_using_for (peeled when MR/NR
                                                   do not divide)
          vector.contract  vector<MRx1> * vector<1xNR> + vector<MRxNR>

`register_tile` picks MR x NR for the vector registers and the sizes: on
AVX2 (16 ymm) 10 x 8 for 1000², 4 x 16 for powers of two.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from .. import linalg_ops as linalg
from ..host import Target
from ..lowering.common import empty, filled
from .kernel import Kernel, defining_op, describe
from .script import Plan, Script

PARALLEL_MIN_FLOPS = 1 << 21  # below this one thread is faster than a fork/join
REGISTERS = {512: 32, 256: 16, 128: 16}  # vector registers by vector width (zmm, ymm, xmm)
CACHE_TILE = (128, 512, 256)  # about MC, NC, KC (tiles that divide the sizes are preferred)
# KC of packed kernels: their panels are streams, so a longer k loop pays (fewer passes over
# C). Medians, KC 256 -> 512, compiled both ways and timed interleaved on 2 threads, two
# runs: A.B 128x1024x1024 3.28 -> 3.06 and 3.02 -> 2.83 ms, A.Bt 128x1024x1024 3.76 -> 3.37
# and 3.60 -> 3.23, 512x784x1024 7.75 -> 7.16; 128x784x1024 2.79 -> 2.53 and 2.19 -> 2.27;
# 2048^2 within noise. Read in place (1000^2, 10 x 8 tiles) KC = 512 lost 10%.
PACKED_KC = 512
# After vectorization: the register tile's multiply-adds become one vector.contract.
CONTRACT_PATTERNS = ("vector.reduction_to_contract", "vector.transfer_permutation_patterns")


def schedule(kernel: Kernel, target: Target) -> Plan | None:
    if not kernel.is_contraction or len(kernel.reduction) != 1:
        return None
    n_loops = len(kernel.ranges)
    batch = n_loops - 3
    if batch < 0 or kernel.parallel != tuple(range(n_loops - 1)):
        return None  # one m, one n, one k: other shapes stay scalar for now
    m_dim, n_dim, k_dim = batch, batch + 1, batch + 2
    lhs, rhs, out = kernel.projections()
    if sorted(lhs[batch:]) != [m_dim, k_dim] or sorted(rhs[batch:]) != [n_dim, k_dim]:
        return None
    if rhs[-1] != n_dim:
        return None  # B read across n with a stride: not vectorizable as rows (A·Bᵀ)
    m, n, k = kernel.ranges[m_dim], kernel.ranges[n_dim], kernel.ranges[k_dim]
    lanes = target.lanes(kernel.element_bits)
    if n < lanes or m * n * k < 4096:
        return None
    mr, nr = register_tile(m, n, lanes, target.vector_bits)
    flops = 2 * m * n * k
    threads = target.threads if flops >= PARALLEL_MIN_FLOPS else 1
    rows = m  # rows of one thread's block
    if threads > 1 and m >= threads * mr:
        rows = m // threads if m % (threads * mr) == 0 else _round_up(-(-m // threads), mr)
    mc = _tile(rows, mr, CACHE_TILE[0])
    nc = _tile(n, nr, CACHE_TILE[1])
    kc = _k_tile(k)
    s = Script(kernel.ident)
    op = s.match_kernel()
    zeros = [0] * batch
    if batch:
        op, _ = s.tile(op, [1] * batch + [0, 0, 0])
    if rows < m:
        op, _ = s.tile_forall_sizes(op, zeros + [rows, 0, 0])
    op, _ = s.tile(op, zeros + [mc, nc, kc], interchange=list(range(batch)) + [batch + 1, batch + 2, batch])
    # register tiles: n outer, m inner, so one NR-wide panel of B (KC rows) stays
    # in L1 while the MR-row panels of A stream through it
    _, loops = s.tile(op, zeros + [mr, nr, 1], interchange=list(range(batch)) + [batch + 1, batch, batch + 2])
    n_loop, m_loop = loops[0], loops[1]
    # Where the tiles do not divide, the last partial tiles are peeled off and stay
    # scalar (sizes with a divisor never get here: the tiles are chosen to divide).
    if m % rows or rows % mc or mc % mr:
        s.peel(m_loop)
    if n % nc or nc % nr:
        s.peel(n_loop)
    return Plan(s.text(), CONTRACT_PATTERNS)


def register_tile(m: int, n: int, lanes: int, vector_bits: int) -> tuple[int, int]:
    """(MR, NR): MR rows of A times NR = v vectors of B into MR x v accumulator
    registers, plus v registers of B and one broadcast of A. The best tile has
    the most multiply-adds per load, MR*v / (MR + v), among those that divide
    m and n (so no scalar remainder is left); one that does not divide counts
    at half. AVX2 (16 registers) on 1000 x 1000: 10 x 8 (10 accumulators);
    on 128 x 512: 4 x 16."""
    registers = REGISTERS[vector_bits]
    best, best_score = (1, lanes), -1.0
    for v in (1, 2, 4):  # powers of two: LLVM splits other vector lengths badly (spills)
        nr = lanes * v
        if nr > n:
            break
        for mr in range(1, min(m, 12) + 1):
            if mr * v + v + 1 > registers:
                break
            score = mr * v / (mr + v) * (1.0 if m % mr == 0 and n % nr == 0 else 0.5)
            if score > best_score:
                best, best_score = (mr, nr), score
    return best


def _k_tile(k: int, kc: int = CACHE_TILE[2]) -> int:
    """The cache tile of the k loop: all of k unless it is over twice `kc`."""
    return _tile(k, 1, kc) if k > 2 * kc else k


def _tile(extent: int, multiple: int, target: int) -> int:
    """The largest multiple of `multiple` up to about `target` that divides
    `extent`; else `target` rounded to the multiple (the last tile is partial)."""
    for size in range(_round_up(min(target, extent), multiple), multiple - 1, -multiple):
        if extent % size == 0 and size >= min(target, extent) // 4:
            return size
    return min(_round_up(target, multiple), _round_up(extent, multiple))


PACK_MIN_ROWS = 16  # packing costs one pass over A and B: worth it when A has this many rows


def pack_panels(kernel: Kernel, target: Target) -> tuple[ir.Operation, int, int, bool] | None:
    """Copy B (k x n) into NR-wide panels (n/NR, k, NR) and, when an A panel's
    row fills whole cache lines or an exact fraction of one (`packs_a`), A
    (m x k) into MR-row panels (m/MR, k, MR), each panel contiguous; compute
    the product as a 5-loop generic over (panel i, row s, panel j, lane r, k).
    The register tile then reads B (and A) as streams instead of rows n (k)
    floats apart, which at power-of-two sizes also evict each other from L1.
    An A that is not packed is only reshaped to (m/MR, MR, k). Returns the new
    op and the register tile (MR, NR); None when the kernel does not qualify
    (batched, small m, or the tile does not divide m and n). Aᵀ (k x m) and
    Bᵀ (n x k) are packed straight from their rows.

        C = A·B  ->  Ap = transpose(expand_shape(A) : m/MR x MR x k, [0, 2, 1])
                     Bp = transpose(expand_shape(B) : k x n/NR x NR, [1, 0, 2])
                     C4 = generic (i, s, j, r, k): C4[i, s, j, r] += Ap[i, k, s] * Bp[j, k, r]
                     C = collapse_shape(C4)
    """
    if (not kernel.is_contraction or len(kernel.ranges) != 3 or kernel.parallel != (0, 1)
            or kernel.maps[1] not in ([2, 1], [1, 2]) or kernel.maps[2] != [0, 1]
            or kernel.maps[0] not in ([0, 2], [2, 0])):
        return None
    m, n, k = kernel.ranges
    lanes = target.lanes(kernel.element_bits)
    mr, nr = register_tile(m, n, lanes, target.vector_bits)
    if m < PACK_MIN_ROWS or n % nr or m % mr or m * n * k < 4096:
        return None
    op = kernel.op
    a, b, init = op.operands[0], op.operands[1], op.operands[2]
    c_type = ir.RankedTensorType(init.type)
    with ir.InsertionPoint(op), op.location:
        d = [ir.AffineDimExpr.get(i) for i in range(5)]  # i, s, j, r, k
        a_k_first = kernel.maps[0] == [2, 0]
        if packs_a(mr, kernel.element_bits):
            a3, a_map = _panels(a, k_first=a_k_first, count=m // mr, width=mr, k=k), [d[0], d[4], d[1]]
        elif a_k_first:  # read in place as (k, m/MR, MR)
            a3, a_map = _expand(a, [k, m // mr, mr], [[0], [1, 2]]), [d[4], d[0], d[1]]
        else:  # read in place as (m/MR, MR, k)
            a3, a_map = _expand(a, [m // mr, mr, k], [[0, 1], [2]]), [d[0], d[1], d[4]]
        packed_b = _panels(b, k_first=kernel.maps[1] == [2, 1], count=n // nr, width=nr, k=k)
        c4_shape = [m // mr, mr, n // nr, nr]
        c4_type = ir.RankedTensorType.get(c4_shape, c_type.element_type)
        value = filled_with(init)
        if value is not None:  # a fill of this kernel's own, fused into its tiles by the schedule
            c4 = result_of(filled(c4_shape, c_type.element_type, value))
        else:
            c4 = tensor.expand_shape(c4_type, init, [[0, 1], [2, 3]], [], c4_shape)
        maps = [ir.AffineMap.get(5, 0, a_map), ir.AffineMap.get(5, 0, [d[2], d[4], d[3]]),
                ir.AffineMap.get(5, 0, [d[0], d[1], d[2], d[3]])]
        new = generic_taking_body(op, c4_type, [a3, packed_b], c4, maps, ["parallel"] * 4 + ["reduction"])
        result = tensor.collapse_shape(c_type, new.results[0], [[0, 1], [2, 3]])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return new, mr, nr, value is not None


CACHE_LINE_BYTES = 64


def packs_a(mr: int, element_bits: int) -> bool:
    """Whether A is packed: when one k step of an A panel (MR elements) is a
    whole number of cache lines or divides one. Measured on AVX2 (Zen 3),
    interleaved in one process: 4-row panels gain 10-30% at 128 x 1024 x 1024,
    1024 x 128 x 1024 and 2048^2; 10-row panels (1000^2) lose 25%."""
    row = mr * element_bits // 8
    return row % CACHE_LINE_BYTES == 0 or CACHE_LINE_BYTES % row == 0


def a_is_packed(kernel: Kernel) -> bool:
    """Whether `pack_panels`'s generic reads A as packed panels (i, k, s)."""
    return kernel.maps[0] == [0, 4, 1]


def _expand(x: ir.Value, shape: list[int], reassociation: list[list[int]]) -> ir.Value:
    element = ir.RankedTensorType(x.type).element_type
    return tensor.expand_shape(ir.RankedTensorType.get(shape, element), x, reassociation, [], shape)


def _panels(x: ir.Value, *, k_first: bool, count: int, width: int, k: int) -> ir.Value:
    """`x` as `count` contiguous panels of k rows x `width` lanes, (count, k, width):
    from (k, count*width) when `k_first`, else from (count*width, k)."""
    if k_first:  # (k, n) -> (k, n/W, W) -> (n/W, k, W)
        x3, permutation = _expand(x, [k, count, width], [[0], [1, 2]]), [1, 0, 2]
    else:  # (n, k) -> (n/W, W, k) -> (n/W, k, W)
        x3, permutation = _expand(x, [count, width, k], [[0, 1], [2]]), [0, 2, 1]
    return transposed(x3, permutation)


def transposed(value: ir.Value, permutation: list[int]) -> ir.Value:
    """`value` with its dims in the order `permutation`: one linalg.transpose
    (`value` itself for the identity)."""
    if permutation == list(range(len(permutation))):
        return value
    t = ir.RankedTensorType(value.type)
    moved = linalg.transpose(value, outs=[empty([t.shape[p] for p in permutation], t.element_type)],
                             permutation=permutation)
    return result_of(moved)


def result_of(built: ir.Value | ir.OpView) -> ir.Value:
    """The value a builder returned: the bindings give some ops' result, some the op."""
    return built if isinstance(built, ir.Value) else built.results[0]


def generic_taking_body(op: ir.Operation, result_type: ir.Type, inputs: list[ir.Value], init: ir.Value,
                        maps: list[ir.AffineMap], iterators: list[str]) -> ir.Operation:
    """A linalg.generic over `maps` and `iterators` ("parallel"/"reduction")
    that takes `op`'s body over: the new op's block arguments are the same
    (inputs, then init), so the body moves as it is. `op` is left bodiless."""
    new = linalg.GenericOp([result_type], inputs, [init], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                           ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{t}>") for t in iterators]))
    op.regions[0].blocks[0].append_to(new.regions[0])
    return new.operation


def filled_with(init: ir.Value) -> ir.Value | None:
    """The scalar a fill writes, when `init` is a fill: a generic that yields a
    value from outside (after canonicalization) or its one scalar input (a
    generalized linalg.fill). A zero shared by several contractions would be
    copied once per contraction by bufferization."""
    op = defining_op(init)
    if op is None or op.name != "linalg.generic" or len(op.operands) not in (1, 2):
        return None
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 1 or body[0].name != "linalg.yield":
        return None
    value = body[0].operands[0]
    inside = isinstance(value, ir.BlockArgument) and value.owner == block
    if len(op.operands) == 1:
        return None if inside else value
    scalar = op.operands[0]  # ins(%cst : f32) outs(...) { yield %in }
    if isinstance(scalar.type, ir.ShapedType) or not inside or ir.BlockArgument(value).arg_number != 0:
        return None
    return scalar


def schedule_packed(kernel: Kernel, target: Target, mr: int, nr: int, own_fill: bool) -> Plan:
    """The schedule of `pack_panels`'s generic, loops (panel i, row s, panel j,
    lane r, k): forall over blocks of A's panels (threads), cache tiles in
    order j, k, i, then register tiles of 1 A panel (MR rows) x 1 B panel
    (NR lanes) x 1 k, in order j, i, k. Both packing copies are split
    between the threads by panels and vectorized in tiles of up to 8 k-rows."""
    panels_a, _, panels_b, _, k = kernel.ranges
    m = panels_a * mr
    threads = target.threads if 2 * m * panels_b * nr * k >= PARALLEL_MIN_FLOPS else 1
    rows = m // threads if threads > 1 and m % (threads * mr) == 0 else m
    ic = max(1, _tile(rows, mr, CACHE_TILE[0]) // mr)
    jc = max(1, _tile(panels_b * nr, nr, CACHE_TILE[1]) // nr)
    kc = _k_tile(k, PACKED_KC)
    s = Script(kernel.ident)
    op = s.match_kernel()
    rows_per_copy = max(d for d in range(1, 9) if k % d == 0)  # divides k: every copy tile is full
    copies = ((0, panels_a), (1, panels_b)) if a_is_packed(kernel) else ((1, panels_b),)
    for operand, panels in copies:
        pack = s.producer_of_operand(op, operand)
        if threads > 1 and panels >= threads:  # the threads copy panels of their own
            pack, _ = s.tile_forall_sizes(pack, [-(-panels // threads), 0, 0])
        pack_tile, _ = s.tile(pack, [1, rows_per_copy, 0])
        s.annotate(pack_tile)
    if rows < m:
        init = s.producer_of_operand(op, 2) if own_fill else None
        op, forall = s.tile_forall_sizes(op, [rows // mr, 0, 0, 0, 0])
        if init:  # each thread zeroes its rows of C: no shared zero buffer to copy (a plain
            s.fuse_into(init, forall)  # loop that LLVM turns into wide stores: not one giant vector)
    op, _ = s.tile(op, [ic, 0, jc, 0, kc], interchange=[2, 4, 0, 1, 3])
    s.tile(op, [1, 0, 1, 0, 1], interchange=[2, 0, 4, 1, 3])  # MR divides m: every tile is full
    return Plan(s.text(), CONTRACT_PATTERNS)


SPLIT_MIN_FLOPS = 1 << 24  # a split product is two kernels: worth it for big ones only


def split_columns(op: ir.Operation, target: Target) -> bool:
    """C = A·B whose n no register tile divides (1000 = 15·64 + 40 on
    AVX-512), so that B cannot be packed and the whole product reads it in
    place: compute the columns that whole 4-vector tiles cover as a product
    of their own, which packs, and the rest as another, each into its part
    of C. Runs before the kernels are numbered (as `convolution.im2col`);
    returns whether it rewrote.

        %c = generic (m, n, k) ins(%a : 1000x1000, %b : 1000x1000) outs(%zero : 1000x1000)
      ->
        %b0 = tensor.extract_slice %b[0, 0] [1000, 960]   %c0 = generic ins(%a, %b0) outs(%zero0 : 1000x960)
        %b1 = tensor.extract_slice %b[0, 960] [1000, 40]  %c1 = generic ins(%a, %b1) outs(%zero1 : 1000x40)
        %c = tensor.insert_slice %c1 into (tensor.insert_slice %c0 into %empty[0, 0]) [0, 960]
    """
    kernel = describe(op, 0)
    if (kernel is None or not kernel.is_contraction or len(kernel.ranges) != 3 or kernel.parallel != (0, 1)
            or kernel.maps[2] != [0, 1] or sorted(kernel.projection(0)) != [0, 2]
            or sorted(kernel.projection(1)) != [1, 2]):
        return False
    m, n, k = kernel.ranges
    lanes = target.lanes(kernel.element_bits)
    width = 4 * lanes
    mr, nr = register_tile(m, n, lanes, target.vector_bits)
    main = n // width * width
    if n % nr == 0 or main == 0 or main == n or m < PACK_MIN_ROWS or 2 * m * n * k < SPLIT_MIN_FLOPS:
        return False
    mr_main, nr_main = register_tile(m, main, lanes, target.vector_bits)
    if m % mr_main or main % nr_main:
        return False  # the main part would not be packed either
    a, b, init = op.operands[0], op.operands[1], op.operands[2]
    c_type = ir.RankedTensorType(init.type)
    element = c_type.element_type
    b_type = ir.RankedTensorType(b.type)
    n_first = kernel.maps[1] == [1, 2]  # B read as (n, k)
    value = filled_with(init)
    maps = [ir.AffineMapAttr(attr).value for attr in ir.ArrayAttr(op.attributes["indexing_maps"])]
    with ir.InsertionPoint(op), op.location:
        # each part starts from its columns of C (filled, or the init's values) and is
        # inserted back there: bufferization then computes it in place, with no copy
        result = empty([m, n], element) if value is not None else init
        for start, cols in ((0, main), (main, n - main)):
            sizes = [cols, k] if n_first else [k, cols]
            offsets = [start, 0] if n_first else [0, start]
            b_part = tensor.extract_slice(ir.RankedTensorType.get(sizes, b_type.element_type), b, [], [], [],
                                          offsets, sizes, [1, 1])
            part_init = tensor.extract_slice(ir.RankedTensorType.get([m, cols], element), result, [], [], [],
                                             [0, start], [m, cols], [1, 1])
            if value is not None:
                part_init = result_of(linalg.fill(value, outs=[part_init]))
            part = _generic_copying_body(op, ir.RankedTensorType.get([m, cols], element), [a, b_part], part_init,
                                         maps, kernel.iterators)
            result = tensor.insert_slice(part.results[0], result, [], [], [], [0, start], [m, cols], [1, 1])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    fill = defining_op(init)
    if value is not None and fill is not None and not list(init.uses):
        fill.erase()  # the parts have fills of their own: not a kernel to schedule
    return True


def narrow_product(kernel: Kernel, target: Target) -> tuple[ir.Operation, str] | None:
    """C = A·B with n narrower than a vector (n < lanes), as a logits layer's
    products: the register tile runs along C's rows, so it would have no
    full vector. Returns the product rewritten and how (None: not such a
    product):

    - A read as (k, m) (its rows run along m, Aᵀ·B: the 1024 x 10 weight
      gradient) and m >= lanes: compute Cᵀ = Bᵀ·Aᵀ (loops batch, n, m, k; B
      becomes the lhs, A the rhs), scheduled as a contraction along m, and
      write C as one small transpose of it;
    - A read as (m, k) (A·B: 128 x 1024 by 1024 x 10): B is copied as (n, k)
      (n rows: small) so that each element of C is a dot product of two
      contiguous rows, scheduled as a row reduction along k.

        %c = generic (m, n, k) ins(%a : 128x1024 read (k, m), %b : 128x10) outs(%zero : 1024x10)
      ->
        %ct = generic (n, m, k) ins(%b, %a) outs(%zero' : 10x1024)
        %c = linalg.transpose %ct [1, 0]
    """
    if not kernel.is_contraction or len(kernel.reduction) != 1:
        return None
    n_loops = len(kernel.ranges)
    batch = n_loops - 3
    if batch < 0 or kernel.parallel != tuple(range(n_loops - 1)):
        return None
    m_dim, n_dim, k_dim = batch, batch + 1, batch + 2
    lhs, rhs, out = kernel.projections()
    if (out != list(range(n_loops - 1)) or sorted(lhs[batch:]) != [m_dim, k_dim]
            or sorted(rhs[batch:]) != [n_dim, k_dim] or lhs[:batch] != out[:batch] or rhs[:batch] != out[:batch]):
        return None
    m, n, k = kernel.ranges[m_dim], kernel.ranges[n_dim], kernel.ranges[k_dim]
    if n >= target.lanes(kernel.element_bits) or m * n * k < 4096:
        return None
    if lhs[-1] == m_dim:
        if m < target.lanes(kernel.element_bits):
            return None
        return _transposed_product(kernel), "narrow, computed as its transpose"
    if rhs[-1] == n_dim:  # B as (n, k): a copy of n rows
        _read_rhs_as(kernel, out[:batch] + [n_dim, k_dim])
    return kernel.op, "narrow, dot products of rows"


def _transposed_product(kernel: Kernel) -> ir.Operation:
    """`narrow_product`'s Cᵀ = Bᵀ·Aᵀ, C = transpose(Cᵀ)."""
    op = kernel.op
    n_loops = len(kernel.ranges)
    batch = n_loops - 3
    m_dim, n_dim, k_dim = batch, batch + 1, batch + 2
    lhs, rhs, out = kernel.projections()
    a, b, init = op.operands[0], op.operands[1], op.operands[2]
    c_type = ir.RankedTensorType(init.type)
    swap = list(range(batch)) + [n_dim, m_dim]  # C's dims <-> Cᵀ's dims
    loop_of = {m_dim: n_dim, n_dim: m_dim, k_dim: k_dim} | {d: d for d in range(batch)}
    with ir.InsertionPoint(op), op.location:
        ct_shape = [c_type.shape[d] for d in swap]
        value = filled_with(init)
        if value is not None:
            ct_init = result_of(filled(ct_shape, c_type.element_type, value))
        else:
            ct_init = transposed(init, swap)
        maps = [ir.AffineMap.get(n_loops, 0, [ir.AffineDimExpr.get(loop_of[d]) for d in read])
                for read in (rhs, lhs)] + [ir.AffineMap.get(n_loops, 0, [ir.AffineDimExpr.get(d) for d in out])]
        ct_type = ir.RankedTensorType.get(ct_shape, c_type.element_type)
        new = _generic_copying_body(op, ct_type, [b, a], ct_init, maps, kernel.iterators, swap_inputs=True)
        result = transposed(new.results[0], swap)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return new


def _generic_copying_body(op: ir.Operation, result_type: ir.Type, inputs: list[ir.Value], init: ir.Value,
                          maps: list[ir.AffineMap], iterators: tuple[str, ...], *,
                          swap_inputs: bool = False) -> ir.Operation:
    """A linalg.generic over `maps` with a copy of `op`'s body (of a product:
    two inputs and the accumulator); `swap_inputs`: the copy takes the two
    inputs in the other order (the multiply's operands too)."""
    new = linalg.GenericOp([result_type], inputs, [init], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                           ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{t}>") for t in iterators]))
    old = op.regions[0].blocks[0]
    first, second, acc = old.arguments
    if swap_inputs:
        block = new.regions[0].blocks.append(second.type, first.type, acc.type)
        mapping = {first: block.arguments[1], second: block.arguments[0], acc: block.arguments[2]}
    else:
        block = new.regions[0].blocks.append(first.type, second.type, acc.type)
        mapping = dict(zip(old.arguments, block.arguments))
    with ir.InsertionPoint(block):
        for inner in old.operations:
            copy = inner.clone()
            operands = [mapping.get(v, v) for v in copy.operands]
            if swap_inputs and inner.name in MULTIPLIES:  # the new lhs first: the tile is then a plain outer product
                operands.reverse()
            for i, v in enumerate(operands):
                copy.operands[i] = v
            mapping.update(zip(inner.results, copy.results))
    return new.operation


MULTIPLIES = ("arith.mulf", "arith.muli")


def rows_of_b_contiguous(kernel: Kernel) -> bool:
    """A·Bᵀ (B read as (n, k)): put a transpose of B before the kernel so
    that the register tile reads rows of B (the transpose is one pass over
    B; the k·m reads it saves are strided). Returns whether it rewrote."""
    if not kernel.is_contraction or len(kernel.reduction) != 1:
        return False
    n_loops = len(kernel.ranges)
    batch = n_loops - 3
    rhs = kernel.maps[1]
    if batch < 0 or rhs is None or sorted(rhs[batch:]) != [batch + 1, batch + 2] or rhs[-1] != batch + 2:
        return False
    _read_rhs_as(kernel, rhs[:batch] + [batch + 2, batch + 1])
    return True


def _read_rhs_as(kernel: Kernel, read: list[int]) -> None:
    """Give the kernel a transposed copy of its rhs (B) that it reads as
    `read`, the same loops in another order."""
    op = kernel.op
    rhs = kernel.projection(1)
    perm = [rhs.index(d) for d in read]
    with ir.InsertionPoint(op), op.location:
        b_rows = transposed(op.operands[1], perm)
        maps = list(ir.ArrayAttr(op.attributes["indexing_maps"]))
        old = ir.AffineMapAttr(maps[1]).value
        results = [old.results[p] for p in perm]
        maps[1] = ir.AffineMapAttr.get(ir.AffineMap.get(old.n_dims, old.n_symbols, results))
        op.attributes["indexing_maps"] = ir.ArrayAttr.get(maps)
    op.operands[1] = b_rows


def _round_up(x: int, multiple: int) -> int:
    return -(-x // multiple) * multiple
