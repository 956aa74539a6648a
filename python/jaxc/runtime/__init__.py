"""`jaxc.runtime`: run compiled modules on the CPU.

    from jaxc.runtime import compile_module
    exe = compile_module(mlir_text)     # through the `llvm` stage, then the JIT; cached
    (y,) = exe["f"](x)                  # NumPy arrays in and out

See docs/stages.md for the calling convention and the measured overheads.
"""
from .cpu import (
    ArgSpec,
    CompileError,
    Executable,
    Function,
    bf16_dtype,
    compile_module,
    function_signatures,
    jit_lowered,
    numpy_dtype,
)

__all__ = ["ArgSpec", "CompileError", "Executable", "Function", "bf16_dtype", "compile_module",
           "function_signatures", "jit_lowered", "numpy_dtype"]
