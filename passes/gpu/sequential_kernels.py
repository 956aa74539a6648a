"""`jaxc-gpu-sequential-kernels`: host code with no parallel loop (a full
reduction, a sort, a cumulative sum, a 0-d computation) runs as a kernel of
one thread instead of on the host.

After `convert-linalg-to-parallel-loops` the parallel dimensions of every
linalg op are `scf.parallel` loops, which become kernels; what has none is
left in host code: `scf.for` nests, and scalar loads, arithmetic and stores.
This pass groups each maximal run of such ops in a host block and wraps it
in a one-iteration `scf.parallel`, so it is outlined into a kernel like the
rest. Ops stay on the host when host code needs them:

- ops whose results are used after the run (a while loop's predicate, a
  dynamic_slice start), and the ops they are computed from;
- ops touching host memory (`memref.alloca`, `memref.get_global` buffers);
- nests holding a parallel loop, a call or a gpu op (they launch kernels
  themselves, or call host functions).

Before::

    scf.for %k = %c0 to %c1024 step %c1 { ... }
    %a = memref.load %x[] : memref<f32>
    %s = math.sin %a : f32
    memref.store %s, %y[] : memref<f32>

After::

    scf.parallel (%unused) = (%c0) to (%c1) step (%c1) {
      scf.for %k = %c0 to %c1024 step %c1 { ... }
      %a = memref.load %x[] : memref<f32>
      %s = math.sin %a : f32
      memref.store %s, %y[] : memref<f32>
      scf.reduce
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import ExternalPass

from ..ir import ops_named, preorder_ops
from ..registry import register_pass
from . import buffers, loops

# Control flow that may run inside a kernel when nothing in it must stay on the host.
_CONTROL_OPS = ("scf.for", "scf.if", "scf.while", "scf.index_switch")
# Inside one of these, code is already device code.
_DEVICE_REGIONS = ("scf.parallel", "gpu.launch", "gpu.func", "gpu.module")
# A nest holding one of these stays on the host.
_STAYS_ON_HOST = ("scf.parallel", "func.call", "gpu.launch", "gpu.alloc", "gpu.dealloc",
                  "gpu.wait", "memref.alloca", "memref.alloc", "memref.dealloc")


@register_pass("jaxc-gpu-sequential-kernels",
               "run host loop nests and scalar code without parallel loops as one-thread kernels")
def sequential_kernels(op: ir.Operation, pass_: ExternalPass) -> None:
    # A nest that may become one kernel is wrapped whole, not piece by piece.
    def kept_whole(inner: ir.Operation) -> bool:
        return inner.name in _DEVICE_REGIONS or _device_able(inner)

    blocks = [block for inner in preorder_ops(op, stop_at=kept_whole) if not kept_whole(inner)
              for region in inner.regions for block in region.blocks]
    with op.context:
        for block in blocks:
            for run in _device_runs(block):
                _wrap(run)


def _device_runs(block: ir.Block) -> list[list[ir.Operation]]:
    """Maximal runs of consecutive device-able ops whose values stay in the run."""
    runs: list[list[ir.Operation]] = [[]]
    for inner in block.operations:
        inner = inner.operation
        if _device_able(inner):
            runs[-1].append(inner)
        elif runs[-1]:
            runs.append([])
    result = []
    for run in runs:
        result += _split_at_host_uses(run)
    return [run for run in result if any(_does_work(o) for o in run)]


def _device_able(op: ir.Operation) -> bool:
    name = op.name
    if name in ("memref.load", "memref.store"):
        return not _touches_host_memory(op)
    if name.startswith("math.") or (name.startswith("arith.") and name != "arith.constant"):
        return True
    if name in _CONTROL_OPS:
        return not _contains_host_work(op)
    return False


def _does_work(op: ir.Operation) -> bool:
    """Whether the op is worth a kernel (index arithmetic alone is not)."""
    return op.name in ("memref.store", *_CONTROL_OPS)


def _touches_host_memory(op: ir.Operation) -> bool:
    """A load or store of a host buffer (a stack buffer or a global)."""
    if op.name == "memref.load":
        return buffers.in_host_memory(op.operands[0])
    return op.name == "memref.store" and buffers.in_host_memory(op.operands[1])


def _contains_host_work(root: ir.Operation) -> bool:
    return any(inner.name in _STAYS_ON_HOST or _touches_host_memory(inner)
               for inner in ops_named(root, [*_STAYS_ON_HOST, "memref.load", "memref.store"]))


def _split_at_host_uses(run: list[ir.Operation]) -> list[list[ir.Operation]]:
    """Keep on the host every op whose value is used after the run, and what
    it is computed from; the ops between them form smaller runs, each kept
    only if its values are used inside it alone."""
    if not run:
        return []
    members = set(run)
    host: set = set()
    for op in reversed(run):
        if op in host or any(_user(use) not in members or _user(use) in host
                             for result in op.results for use in result.uses):
            host.add(op)
    pieces: list[list[ir.Operation]] = [[]]
    for op in run:
        if op in host:
            pieces.append([])
        else:
            pieces[-1].append(op)
    kept = []
    for piece in pieces:
        inside = set(piece)
        if piece and all(_user(use) in inside for op in piece for result in op.results
                         for use in result.uses):
            kept.append(piece)
    return kept


def _user(use) -> ir.Operation:
    return use.owner.operation


def _wrap(run: list[ir.Operation]) -> None:
    index = ir.IndexType.get()
    first = run[0]
    with ir.InsertionPoint(first), first.location:
        zero, one = arith.constant(index, 0), arith.constant(index, 1)
        body = loops.parallel_loop([zero], [one], [one], first.location)
    terminator = loops.end_body(body, first.location)
    for op in run:
        op.move_before(terminator)
