"""`jaxc-denormal-mode`: tell LLVM how the host treats denormals while our
code runs.

On x86-64 compiled code runs with MXCSR's FTZ and DAZ bits set, as XLA runs
it (runtime/_fastcall.c, aot_support.c): denormal results are flushed to
zero and denormal inputs read as zero. LLVM assumes IEEE denormals unless a
function says otherwise, and folds accordingly: an integer test of a float's
bits, `(bitcast(x) & 0x7fffffff) == 0`, becomes `fcmp oeq x, 0.0`, which
DAZ makes true for every denormal (`jnp.frexp` of a denormal returned
exponent 0 once its bit tests and its float math sat in one kernel).
This pass sets every function's `denormal_fp_math` (LLVM's
"denormal-fp-math"), for f32 too, to the mode the code runs under:

    llvm.func @f(%arg0: f32) -> i1 { ... }
      ->
    llvm.func @f(%arg0: f32) -> i1 attributes {denormal_fp_math = "preserve-sign,preserve-sign",
                                                denormal_fp_math_f32 = "preserve-sign,preserve-sign"} { ... }

`mode` defaults to the host's: "preserve-sign" where the call path flushes
(x86-64), "ieee" elsewhere. Only the module's own functions: the kernels of
a `gpu.module` keep the GPU's mode. Runs last in the CPU's `llvm` stage.
"""
from __future__ import annotations

import platform

from mlir import ir
from mlir.passmanager import ExternalPass

from .registry import register_pass

MODES = ("ieee", "preserve-sign", "positive-zero", "dynamic")
# Where runtime/_fastcall.c sets FTZ and DAZ around each call.
FLUSHING_HOSTS = ("x86_64", "AMD64", "i386", "i686")


def host_mode() -> str:
    """The denormal mode compiled code runs under on this host."""
    return "preserve-sign" if platform.machine() in FLUSHING_HOSTS else "ieee"


@register_pass("jaxc-denormal-mode",
               "declare on every llvm.func the denormal mode the code runs under (default: the host's; "
               "preserve-sign on x86-64, where calls set FTZ and DAZ)")
def denormal_mode(op: ir.Operation, pass_: ExternalPass, *, mode: str = "") -> None:
    mode = mode or host_mode()
    if mode not in MODES:
        op.location.emit_error(f"jaxc-denormal-mode: mode must be one of {', '.join(MODES)}, not '{mode}'")
        pass_.signal_pass_failure()
        return
    with op.context:
        both = ir.StringAttr.get(f"{mode},{mode}")
        for function in op.regions[0].blocks[0].operations:
            # host definitions only: a gpu.module's kernels keep the GPU's own mode
            if function.name == "llvm.func" and function.regions[0].blocks:
                function.attributes["denormal_fp_math"] = both
                function.attributes["denormal_fp_math_f32"] = both
