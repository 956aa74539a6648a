"""Fused row-wise reductions (softmax, log-softmax, layer norm): an
elementwise kernel over rows and every reduction over those rows that feeds
it (max, exp, sum, ...) become one loop over the rows, each row's
reductions and elementwise ops tiled and vectorized inside it. A row is
read from memory once per pass over it while it sits in the L1 cache,
instead of once per kernel from RAM.

    softmax: m = max(x, 1); e = exp(x - m); s = sum(e, 1); y = e / s
    ->  scf.forall (%row) in (4096) {       // OpenMP splits the rows over the threads
                                             // (an scf.for where the work is too small: group_threads)
          m = max of the row       (32 partial maxima in registers)
          e = exp(row - m)         (16 lanes a step)
          s = sum of e             (32 partial sums)
          y[row] = e / s
        }
"""
from __future__ import annotations

from mlir import ir

from ..host import Target
from ..lowering.common import empty
from . import elementwise, reduction
from .kernel import PARALLEL_MIN_ELEMENTS, PARALLEL_MIN_WORK, Kernel, defining_op
from .script import Plan, Script

MIN_ROW = 64  # shorter rows: the per-row overhead costs more than the fusion saves


def groups(kernels: list[Kernel]) -> list[list[Kernel]]:
    """Each group: a consumer last, elementwise over rows or reducing them,
    its row-shaped producers before it (in program order), at least one of
    them a reduction over the last dimension (argmax: the row's max, then
    the first index holding it; logsumexp: max, then the sum of exp(x - max))."""
    by_result = {}
    for kernel in kernels:
        for result in kernel.op.results:
            by_result[result] = kernel
    found: list[list[Kernel]] = []
    taken: set[int] = set()
    for consumer in reversed(kernels):
        if consumer.ident in taken or not (_is_row_elementwise(consumer) or _is_row_reduction(consumer)):
            continue
        rows = consumer.ranges[:-1]
        members = {consumer.ident: consumer}
        stack = [consumer]
        while stack:
            kernel = stack.pop()
            for index, operand in enumerate(kernel.op.operands):
                producer = by_result.get(operand)
                if (producer is None or producer.ident in members or producer.ident in taken
                        or not _read_by_row(kernel, index, rows)
                        or _shared_accumulator_fill(producer, rows)
                        or not _row_shaped(producer, rows, consumer.ranges[-1])):
                    continue
                members[producer.ident] = producer
                stack.append(producer)
        group = sorted(members.values(), key=lambda k: k.ident)
        if any(k.reduction for k in group[:-1]) and consumer.ranges[-1] >= MIN_ROW:
            found.append(group)
            taken.update(members)
    return found


def give_producers_their_own_outputs(group: list[Kernel]) -> None:
    """A producer whose output is the same `tensor.empty` as the consumer's
    (CSE merged them) would be fused to write into the consumer's row, which
    bufferization then copies before every row to keep both values: give it a
    `tensor.empty` of its own (a fresh row buffer, nothing copied)."""
    for kernel in group[:-1]:
        index = len(kernel.op.operands) - 1
        init = kernel.op.operands[index]
        owner = defining_op(init)
        if owner is None or owner.name != "tensor.empty":
            continue
        with ir.InsertionPoint(kernel.op), kernel.op.location:
            kernel.op.operands[index] = empty(init.type.shape, init.type.element_type)


def _shared_accumulator_fill(kernel: Kernel, rows: tuple[int, ...]) -> bool:
    """One value per row computed from nothing that is the initial value
    (output operand) of more than one op: CSE merged the fills of several
    reductions."""
    if kernel.n_inputs or kernel.ranges != rows:
        return False
    as_init = [use for use in kernel.op.results[0].uses
               if use.operand_number == len(use.owner.operands) - 1]
    return len(as_init) > 1


def _read_by_row(kernel: Kernel, operand: int, rows: tuple[int, ...]) -> bool:
    """Whether `kernel` reads its operand `operand` at its own row: the whole
    (rows..., width) element, or the one value of the row (rows...). A
    vector read along the columns, `w[None, :]` in `r - v[:, None] * w[None,
    :]`, is not, even where the matrix is square and w has a row's length:
    fused per row, each row would compute its own w[i] where it reads w[j]."""
    read = kernel.maps[operand]
    return read in (list(range(len(rows) + 1)), list(range(len(rows))))


def _is_row_elementwise(kernel: Kernel) -> bool:
    return (not kernel.reduction and len(kernel.ranges) >= 2 and kernel.n_outputs == 1
            and kernel.is_identity(len(kernel.maps) - 1))


def _is_row_reduction(kernel: Kernel) -> bool:
    """A reduction of each row to one value whose inputs are read along the
    rows: the whole row, one value per row, or one value per column (argmax's
    indices); not a product (its rows would be columns of the other operand)."""
    rank = len(kernel.ranges)
    along_rows = (list(range(rank)), list(range(rank - 1)), [rank - 1])
    return (rank >= 2 and bool(kernel.reduction) and _row_shaped(kernel, kernel.ranges[:-1], kernel.ranges[-1])
            and all(m in along_rows for m in kernel.maps[:-1]))


def _row_shaped(kernel: Kernel, rows: tuple[int, ...], width: int) -> bool:
    """Elementwise over (rows..., width) or (rows...), or a reduction of (rows..., width) to (rows...)."""
    if kernel.n_outputs != 1 or any(m is None for m in kernel.maps):
        return False
    if not kernel.reduction:
        return kernel.ranges in (rows + (width,), rows) and kernel.is_identity(len(kernel.maps) - 1)
    return (kernel.ranges == rows + (width,) and kernel.reduction == (len(rows),)
            and kernel.maps[-1] == list(range(len(rows))))


def schedule(group: list[Kernel], target: Target) -> Plan:
    """The consumer tiled one row per forall iteration, the producers fused
    into that loop (latest first), then each op tiled inside the row."""
    consumer = group[-1]
    s = Script(consumer.ident)
    rank = len(consumer.ranges)
    ops = {kernel.ident: s.match_kernel(value=kernel.ident) for kernel in group}
    tiled, forall = s.tile_forall_sizes(ops[consumer.ident], [1] * (rank - 1) + [0])
    fused = {consumer.ident: tiled}
    for kernel in reversed(group[:-1]):
        h, forall = s.fuse_into(ops[kernel.ident], forall)
        # A producer used twice in the row (exp by the sum and by the division)
        # was fused once per use, each copy reading its own producers: merged
        # now, or a chain of rounds multiplies the copies (docs/toolchain.md).
        s.cse(forall)
        fused[kernel.ident] = h
    # Each op is found again by its mark once the function is CSE'd.
    for kernel in group:
        s.annotate(fused[kernel.ident], "jaxc.row_op", kernel.ident)
        s.annotate(fused[kernel.ident])  # every op of the row joins the consumer's kernel id
    func = s.parent_func(forall)
    s.cse(func)
    for kernel in group:
        if kernel.ranges == consumer.ranges[:-1]:
            continue  # one value per row (a fill of the accumulators): nothing to tile
        h = s.match_kernel("jaxc.row_op", kernel.ident, where=func)
        lanes = target.lanes(kernel.element_bits)
        if kernel.reduction:
            reduction.reduce_row(s, h, kernel, reduction.partial_width(lanes, kernel.ranges[-1]))
        else:
            step = lanes * elementwise.UNROLL
            _, loops = s.tile(h, [0] * (rank - 1) + [step])
            if kernel.ranges[-1] % step:
                s.peel(loops[-1])
    if group_threads(group, target.threads) == 1:  # too little work to pay for a fork/join:
        row_op = s.match_kernel("jaxc.row_op", consumer.ident, where=func)  # one thread's loop
        s.mark(s.parent(row_op, "scf.forall"), "jaxc.serial")  # jaxc-serial-foralls, `loops` stage
    return Plan(s.text())


def group_threads(group: list[Kernel], available: int) -> int:
    """The threads a row group is split over: all when the work of its
    kernels together pays for a fork/join (`kernel.PARALLEL_MIN_WORK`),
    else 1. (A softmax of 128 x 128 split over 2 threads took 40-70 us
    alone, against ~40 on one, and milliseconds while other threads held
    the cores.)"""
    work = sum(k.size * k.cost_per_element for k in group)
    enough = group[-1].size >= PARALLEL_MIN_ELEMENTS and work >= PARALLEL_MIN_WORK
    return available if enough else 1
