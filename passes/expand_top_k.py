"""`jaxc-expand-top-k`: each `jaxc.top_k` that the compiled library does not
compute becomes the jaxc ops of `lax._more.top_k_program`: for small k,
k rounds of "the largest key not taken yet, then the first index holding
it" over integer keys in top_k's order, run over the entries of the k
chunks with the largest maxima only; for large k a sort on those keys.
Every element type but f32 and f64 expands everywhere, and every
`jaxc.top_k` on targets that call no library: the GPU (`library-calls=false`)
and a CPU whose library calls are off (``JAXC_CPU_LIBRARY_CALLS=0``,
`host.override(library_calls=False)`). An f32 or f64 one on the CPU stays:
`jaxc-to-linalg` lowers it to a call of top_k.c.

    %v, %i = jaxc.top_k %x, k = 2 : tensor<3x40xi32>
  ->
    %keys = ... (integers as they are; floats' bits with negatives' magnitude flipped)
    %m = jaxc.reduce max ... (3, 5, 8) -> (3, 5)      chunk maxima
    %r:3 = jaxc.scan ... length = 2 { a round over the maxima }    the 2 best chunks
    ... their 16 entries gathered, 2 rounds over them, the values gathered
"""
from __future__ import annotations

import functools

from mlir import ir
from mlir.passmanager import ExternalPass

from . import host
from .ir import expand_into_program, integer, ops_named
from .lowering.linalg import LIBRARY_ELEMENTS
from .registry import register_pass


@register_pass("jaxc-expand-top-k", "jaxc.top_k becomes rounds of max (or a sort) of jaxc ops where the "
               "compiled library does not compute it")
def expand_top_k(op: ir.Operation, pass_: ExternalPass, *, library_calls: bool = True) -> None:
    """`library-calls=false` expands every `jaxc.top_k`; with it true (the
    default) the host's setting decides (`passes.host`: on unless switched
    off), and only those of element types other than f32 and f64 expand."""
    calls = library_calls and host.target().library_calls
    with op.context:
        for top_k in ops_named(op, ["jaxc.top_k"]):
            element = str(ir.RankedTensorType(top_k.operands[0].type).element_type)
            if not (calls and element in LIBRARY_ELEMENTS):
                expand_into_program(top_k, "top_k_program", functools.partial(_program, integer(top_k, "k")))


def _program(k: int, xs: list) -> list:
    from jaxc.lax._more import top_k_program
    return list(top_k_program(xs[0], k))
