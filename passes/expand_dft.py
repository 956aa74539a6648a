"""`jaxc-expand-dft`: each `jaxc.dft` becomes the jaxc ops of
`lax._fft.dft_program` (matrix products with DFT matrices, twiddle
factors, transposes; Bluestein for large primes), and each
`jaxc.hermitian_dft` those of `hermitian_program` (the full spectrum, its
`dft_program`, the real part), for targets that call no
FFT library: the GPU (`library-calls=false`) and a CPU whose library calls
are off (``JAXC_CPU_LIBRARY_CALLS=0``, `host.override(library_calls=False)`).
With library calls on (the CPU's default) the op stays: `jaxc-to-linalg`
lowers it to a generic that `jaxc-schedule` marks as a call of the
compiled FFT (fft.c).

    %y = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<3x4xcomplex<f32>> -> tensor<3x4xcomplex<f32>>
  ->  (library-calls=false)
    %p = jaxc.concatenate(real, imag), dim = 0 ... -> tensor<2x3x4xf32>      the parts
    %t = jaxc.transpose %p ... -> tensor<2x4x3xf32>       the transformed axis first (none for axis 0)
    %c = jaxc.reshape %t ... -> tensor<8x3xf32>
    %d = jaxc.dot_general %dft_matrix, %c, ... : (tensor<8x8xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
    ...  reshaped, transposed back, jaxc.complex of the two parts
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from . import host
from .ir import expand_into_program, integer, ops_named
from .registry import register_pass


@register_pass("jaxc-expand-dft", "jaxc.dft and jaxc.hermitian_dft become matrix products where no FFT "
               "library is called")
def expand_dft(op: ir.Operation, pass_: ExternalPass, *, library_calls: bool = True) -> None:
    """`library-calls=false` expands every DFT; with it true (the default)
    the host's setting decides (`passes.host`: on unless switched off)."""
    if library_calls and host.target().library_calls:
        return
    with op.context:
        for dft in ops_named(op, ["jaxc.dft", "jaxc.hermitian_dft"]):
            _expand(dft)


def _expand(op: ir.Operation) -> None:
    """Replace `op` by the program (`expand_into_program`)."""
    from jaxc.lax._fft import hermitian_program, truncated_program
    axis, sign, scale = integer(op, "axis"), integer(op, "sign"), ir.FloatAttr(op.attributes["scale"]).value
    points = ir.RankedTensorType(op.results[0].type).shape[axis]

    def program(xs: list) -> list:
        if op.name == "jaxc.hermitian_dft":
            return [hermitian_program(xs[0], points, sign, scale, axis)]
        return [truncated_program(xs[0], sign, scale, axis, points)]
    expand_into_program(op, "dft_program", program)
