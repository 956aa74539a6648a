"""`jaxc-keep-loops-rolled`: tell LLVM not to unroll the loops the schedules
made, except the loops over vector lanes.

The schedules (passes/schedules/) decide how much of a kernel is unrolled:
a product's register tile is a `vector.contract` of dozens of FMAs, an
elementwise kernel's body a vector of the host's width. LLVM's unrollers
(`LoopUnrollPass`, `LoopFullUnrollPass`) then copied those bodies again
(partially, by 2 to 25, and fully for small trip counts), and instruction
selection, strength reduction and register allocation paid for every copy:
41% of the compile time of a 1000² matmul, a third of a convolution's, with
the same or slower code (docs/performance.md, "Compile time: loops LLVM does
not unroll").

Loops whose body inserts or extracts vector lanes at the loop's index (the
element-by-element transfers `convert-vector-to-scf` leaves, e.g. a column
sum's strided reads) stay LLVM's to unroll: only complete unrolling turns
their dynamic lane positions into constants (a column sum ran 3-4x slower
without it).

Every other `scf.for` gets the annotation that `convert-scf-to-cf` moves onto
the loop's back edge (`llvm.br`'s `loop_annotation`), and LLVM IR
translation turns into ``!llvm.loop !{..., !{!"llvm.loop.unroll.disable"}}``:

    scf.for %i = %c0 to %c1000 step %c8 {
      vector.transfer_write %v, %out[%i] : vector<8xf32>, memref<1000xf32>
    }

becomes

    scf.for %i = %c0 to %c1000 step %c8 {
      vector.transfer_write %v, %out[%i] : vector<8xf32>, memref<1000xf32>
    } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}

Runs last in the `loops` stage (canonicalization may rebuild a loop without
its attributes).
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass

# The name of llvm.br's inherent attribute: convert-scf-to-cf copies an
# scf.for's attributes onto its back edge, and the cf-to-llvm conversion sets
# them on the llvm.br, where this name is the loop's metadata.
ANNOTATION = "loop_annotation"
NO_UNROLL = "#llvm.loop_annotation<unroll = <disable = true>>"
# op -> how many operands it has without dynamic lane positions
_LANE_OPS = {"vector.insert": 2, "vector.extract": 1}


@register_pass("jaxc-keep-loops-rolled",
               "mark every scf.for except loops over vector lanes so that LLVM does not unroll it "
               "(the schedules unrolled what pays)")
def keep_loops_rolled(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        annotation = ir.Attribute.parse(NO_UNROLL)
        for loop in ops_named(op, ("scf.for",)):
            if ANNOTATION not in loop.attributes and not moves_lanes(loop):
                loop.attributes[ANNOTATION] = annotation


def moves_lanes(loop: ir.Operation) -> bool:
    """Whether the loop's own body inserts or extracts a vector lane at a
    computed position (`vector.insert %x, %v [%i]`)."""
    for inner in loop.regions[0].blocks[0].operations:
        fixed = _LANE_OPS.get(inner.operation.name)
        if fixed is not None and len(inner.operation.operands) > fixed:
            return True
    return False
