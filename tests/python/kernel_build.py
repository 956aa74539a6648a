"""Building the compiled library's kernels for their tests (test_library_*.py):
a kernel's C file compiled here with test flags (a forced instruction-set
family, stubbed allocation) and linked with gemm.c, and a program exported by
jaxc.runtime.aot that calls a kernel, so carries it compiled into itself."""
from __future__ import annotations

import ctypes
import os
import subprocess
from typing import Any, Callable

import numpy as np
import pytest

from jaxc.runtime import aot

DTYPES = {np.float32: "f32", np.float64: "f64"}


def float_entries(kernel: str, argtypes: list) -> Callable[[ctypes.CDLL], dict]:
    """`entries` for `kernel_builder` and `library_fixture`: the f32 and f64
    entry points of `kernel` (``_mlir_ciface_jaxc_<kernel>_f32``, ``_f64``)
    of a loaded library, by NumPy type, their argument types set."""
    def entries(library: ctypes.CDLL) -> dict:
        found = {}
        for dtype, name in DTYPES.items():
            entry = getattr(library, f"_mlir_ciface_jaxc_{kernel}_{name}")
            entry.argtypes, entry.restype = argtypes, None
            found[dtype] = entry
        return found
    return entries


def library_fixture(entries: Callable[[ctypes.CDLL], Any]) -> Any:
    """A module-scoped fixture: `entries` of the built libjaxc_kernels.so."""
    @pytest.fixture(scope="module")
    def library() -> Any:
        from jaxc.runtime import cpu
        return entries(ctypes.CDLL(cpu.kernels_library()))
    return library


def skip_unless_the_cpu_runs(family: str) -> None:
    """Skip the test when this CPU cannot run the instruction-set family
    ("sse2", "avx2" with FMA, "avx512")."""
    from jaxc.passes import host
    flags = host.cpu_flags()
    if (family != "sse2" and not {"avx2", "fma"} <= flags) or (family == "avx512" and "avx512f" not in flags):
        pytest.skip(f"this CPU cannot run {family}")


def kernel_builder(tmp_path_factory: Any, source: str, entries: Callable[[ctypes.CDLL], Any]):
    """(build, tmp): build(name, flags, extra=()) compiles `source` (a kernel's
    C file, "qr.c") with `flags` into a library with gemm.c and `extra`, and
    returns `entries` of it; tmp is the folder. Skips without a C compiler."""
    compiler = aot.find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp(source.removesuffix(".c"))
    sources = {os.path.basename(path): path for path in aot.KERNEL_SOURCES}
    gemm = str(tmp / "gemm.o")
    subprocess.run([*compiler, "-c", "-fPIC", "-O3", "-std=gnu11", "-o", gemm, sources["gemm.c"]], check=True)

    def build(name: str, flags: list[str], extra: list[str] = ()):
        library = str(tmp / f"{name}.so")
        subprocess.run([*compiler, "-shared", "-fPIC", "-O3", "-std=gnu11", *flags, "-o", library,
                        sources[source], gemm, *extra, "-pthread", "-lm"], check=True)
        return entries(ctypes.CDLL(library))

    return build, tmp


def program_calling(kernel: str, arguments: int) -> str:
    """LLVM IR defining run_<kernel>_f32 and _f64, each passing its
    `arguments` i64 arguments to `_mlir_ciface_jaxc_<kernel>_<type>`."""
    types = ", ".join(["i64"] * arguments)
    values = ", ".join(f"i64 %a{i}" for i in range(arguments))
    return "".join(f"declare void @_mlir_ciface_jaxc_{kernel}_{t}({types})\n"
                   f"define void @run_{kernel}_{t}({values}) {{\n"
                   f"  call void @_mlir_ciface_jaxc_{kernel}_{t}({values})\n  ret void\n}}\n"
                   for t in DTYPES.values())


def exported_runs(tmp_path: Any, kernel: str, argtypes: list) -> dict:
    """{dtype: run}: the run_<kernel>_f32/_f64 of a program exported by
    jaxc.runtime.aot (`program_calling`), which compiles the kernel (and
    gemm.c) into itself; `argtypes` are the kernel's. Skips without a C compiler."""
    if aot.find_c_compiler() is None:
        pytest.skip("no C compiler")
    program = ctypes.CDLL(aot._build_library(program_calling(kernel, len(argtypes)), str(tmp_path),
                                             target="cpu", cpu="x86-64-v2"))
    runs = {}
    for dtype, name in DTYPES.items():
        run = getattr(program, f"run_{kernel}_{name}")
        run.argtypes, run.restype = argtypes, None
        runs[dtype] = run
    return runs
