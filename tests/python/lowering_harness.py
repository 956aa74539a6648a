"""Test support: lower a jaxc module with jaxc-to-linalg and run one function.

A stand-in for `jaxc.runtime` (being written alongside) so the lowering's
numerics can be checked against NumPy now; tests call `run(...)` only.
The pipeline has no buffer deallocation: with the pinned LLVM, ownership-based
deallocation of loops stores i1 ownership flags in memrefs, and lowering
those to LLVM asserts (docs/toolchain.md). Tests leak a little; that's all.
"""
import ctypes, sys, numpy as np
import mlir.ir as ir
from mlir.passmanager import PassManager
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import get_ranked_memref_descriptor
from jaxc.dialect import make_context
from jaxc.passes.jaxc_to_linalg import jaxc_to_linalg

PIPE = ("builtin.module(canonicalize,cse,"
        "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops},"
        "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},convert-bufferization-to-memref,"
        "convert-linalg-to-loops,expand-strided-metadata,lower-affine,convert-scf-to-cf,"
        "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,"
        "func.func(llvm-request-c-wrappers),convert-func-to-llvm,reconcile-unrealized-casts)")

class _Pass:
    """The ExternalPass stand-in for calling a pass function directly."""

    def signal_pass_failure(self):
        raise RuntimeError("jaxc-to-linalg failed (see the emitted errors)")

def run(text: str, fn: str, args, out_specs):
    """Run `fn` of the jaxc module `text` on NumPy `args`; `out_specs` lists
    (shape, dtype) of each result. Returns the results as NumPy arrays."""
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        jaxc_to_linalg(m.operation, _Pass())
        PassManager.parse(PIPE).run(m.operation)
        import mlir, os
        lib = os.path.join(list(mlir.__path__)[0], "lib")
        libs = [os.path.join(lib, n) for n in ("libmlir_c_runner_utils.so",) if os.path.exists(os.path.join(lib, n))]
        ee = ExecutionEngine(m, opt_level=2, shared_libs=libs)
        outs = [np.zeros(s, d) for s, d in out_specs]
        ptrs = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(np.ascontiguousarray(a)))) for a in list(args) + outs]
        ee.invoke(fn, *ptrs)
        return outs
