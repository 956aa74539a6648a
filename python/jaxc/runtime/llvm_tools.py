"""The CPU compiler that runs the pinned LLVM tools: machine code for a module
at the `llvm` stage, made on every core, as a shared library.

    library = build_library(llvm_ir, ["f"], directory)   # directory/program.so
    # cpu.py loads it (compile_cache.CachedLibrary) and calls ``_mlir__mlir_ciface_f``

The steps, for LLVM IR text (`stages.to_llvm_ir`) and the public function names:

    program.ll  = the IR + one packed entry point per function, as the execution engine
                  makes them:  void _mlir__mlir_ciface_f(void **args)
    part0..N-1  = llvm-split -j N program.ll    (N: usable cores, for a large module)
    partK.o     = opt -O3 -mtriple=HOST -mcpu=native partK | llc -O3 -mtriple=HOST -mcpu=native
                  -relocation-model=pic
                  (one pair of processes per part, all parts at once)
    program.so  = cc -shared part*.o + the runtime libraries (`link_shared`)

Only ``jaxc_cpu_compiler="tools"`` uses them: the process's own JIT
(`orc`) splits a large module over the cores the same way, in threads,
without starting processes or linking with `cc` (an MNIST-sized training
step: 0.41 against 0.59 s; docs/performance.md, "Compile time: one JIT per
process"). One ``opt | llc`` pair is slower than the execution engine on
the same module (process starts, parsing the IR, linking: matmul 1000²
0.40 against 0.28 s).

Splitting (``llvm-split``, the default name-hash partition) makes the module's
internal functions hidden external symbols of the library, so no optimization
sees across parts: parts are functions as the engine compiles them, and the
OpenMP regions of one jit function (outlined functions called through
``__kmpc_fork_call``) were never inlined anyway.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from typing import Sequence

# Split a module into parts compiled at once from this many lines on.
SPLIT_LINES = 2000
MAX_PARTS = 8
TIMEOUT_S = 600


class ToolError(Exception):
    """A tool failed or is missing: what ran and what it said."""


def tool_paths() -> dict[str, str]:
    """opt, llc and llvm-split from the pinned wheel (`stages.tool_path`);
    `ToolError` when one is missing."""
    from jaxc.passes import stages

    try:
        return {name: stages.tool_path("llvm", name) for name in ("opt", "llc", "llvm-split")}
    except stages.StageError as error:
        raise ToolError(str(error)) from None


def host_triple() -> str:
    """The host's target triple (`stages.host_triple`), as a `ToolError` when llc cannot say."""
    from jaxc.passes import stages

    try:
        return stages.host_triple()
    except stages.StageError as error:
        raise ToolError(str(error)) from None


def c_compiler() -> list[str]:
    """The C compiler that links (`aot.find_c_compiler`); `ToolError` without one."""
    from .aot import find_c_compiler

    compiler = find_c_compiler()
    if compiler is None:
        raise ToolError("no C compiler to link with (looked for $CC, cc, gcc, clang on PATH)")
    return compiler


def unusable() -> str | None:
    """Why this compiler cannot run here (a missing tool), or None."""
    try:
        host_triple()
        c_compiler()
    except ToolError as error:
        return str(error)
    return None


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# ----------------------------------------------------------------------------
# Packed entry points
# ----------------------------------------------------------------------------

def packed_entry_points(llvm_ir: str, names: Sequence[str]) -> str:
    """LLVM IR of ``_mlir__mlir_ciface_NAME(ptr %args)`` for each name: the
    execution engine's packed wrapper, which `cpu.Function` calls. Argument i
    is loaded from the cell that ``args[i]`` points to::

        define void @_mlir__mlir_ciface_f(ptr %args) {
          %p0 = getelementptr inbounds ptr, ptr %args, i64 0
          %c0 = load ptr, ptr %p0
          %a0 = load ptr, ptr %c0
          call void @_mlir_ciface_f(ptr %a0)
          ret void
        }

    `ToolError` when a function's C interface is missing or takes more than
    descriptor pointers (jaxc's take nothing else)."""
    wrappers = []
    for name in names:
        ciface = "_mlir_ciface_" + name
        found = re.search(r"^define void @" + re.escape(ciface) + r"\(([^)]*)\)", llvm_ir, re.MULTILINE)
        if found is None:
            raise ToolError(f"no C interface '{ciface}' in the LLVM IR")
        params = [param.strip() for param in found.group(1).split(",") if param.strip()]
        if any(param.split()[0] != "ptr" for param in params):
            raise ToolError(f"'{ciface}' takes more than pointers: {found.group(1)}")
        lines = [f"define void @_mlir_{ciface}(ptr %args) {{"]
        for i in range(len(params)):
            lines += [f"  %p{i} = getelementptr inbounds ptr, ptr %args, i64 {i}",
                      f"  %c{i} = load ptr, ptr %p{i}",
                      f"  %a{i} = load ptr, ptr %c{i}"]
        arguments = ", ".join(f"ptr %a{i}" for i in range(len(params)))
        lines += [f"  call void @{ciface}({arguments})", "  ret void", "}"]
        wrappers.append("\n".join(lines))
    return "\n\n".join(wrappers) + "\n"


# ----------------------------------------------------------------------------
# Building the library
# ----------------------------------------------------------------------------

def parts_for(llvm_ir: str, cores: int | None = None, split_lines: int = SPLIT_LINES) -> int:
    """How many parts to compile at once: one per usable core (at most
    `MAX_PARTS`) for a module of `split_lines` lines or more with as many
    function definitions, else 1. (The JIT splits from `orc.SPLIT_LINES`.)"""
    cores = usable_cores() if cores is None else cores
    if cores < 2 or llvm_ir.count("\n") < split_lines:
        return 1
    return max(1, min(cores, MAX_PARTS, len(re.findall(r"^define ", llvm_ir, re.MULTILINE))))


def build_library(llvm_ir: str, names: Sequence[str], directory: str, *, opt_level: int = 3,
                  parts: int | None = None) -> str:
    """``directory/program.so`` from LLVM IR text (a module at the `llvm`
    stage, translated) whose public functions are `names`. `parts`: how
    many parts to compile at once (None: `parts_for`). Raises `ToolError`."""
    tools = tool_paths()
    source = os.path.join(directory, "program.ll")
    with open(source, "w") as f:
        f.write(llvm_ir)
        f.write("\n")
        f.write(packed_entry_points(llvm_ir, names))
    parts = parts_for(llvm_ir) if parts is None else parts
    inputs = [source]
    if parts > 1:
        prefix = os.path.join(directory, "part")
        _run([tools["llvm-split"], f"-j{parts}", "-o", prefix, source])
        inputs = [f"{prefix}{i}" for i in range(parts)]
    objects = _compile_objects(tools, inputs, opt_level)
    library = os.path.join(directory, "program.so")
    link_shared(objects, library)
    return library


def _compile_objects(tools: dict[str, str], inputs: list[str], opt_level: int) -> list[str]:
    """``opt | llc`` on each input, all at once; the object files."""
    running = []
    target = [f"-mtriple={host_triple()}", "-mcpu=native"]
    try:
        for path in inputs:
            opt = [tools["opt"], f"-O{opt_level}", *target, "-o", "-", path]
            llc = [tools["llc"], f"-O{opt_level}", *target, "-relocation-model=pic",
                   "-filetype=obj", "-o", path + ".o", "-"]
            first = subprocess.Popen(opt, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            second = subprocess.Popen(llc, stdin=first.stdout, stderr=subprocess.PIPE)
            assert first.stdout is not None  # stdout=PIPE
            first.stdout.close()  # llc holds the pipe now: opt sees it close if llc dies
            first.stdout = None  # communicate() reads opt's stderr only
            running.append((opt, first, llc, second))
    except OSError as error:
        _kill(running)
        raise ToolError(f"cannot start the LLVM tools: {error}") from None
    failures = []
    for opt, first, llc, second in running:
        for command, proc in ((opt, first), (llc, second)):
            try:
                _, stderr = proc.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                _kill(running)
                raise ToolError(f"{shlex.join(command)} ran over {TIMEOUT_S} s") from None
            if proc.returncode != 0:
                failures.append(f"{shlex.join(command)} failed (exit status {proc.returncode}): "
                                f"{stderr.decode(errors='replace').strip()}")
    if failures:
        raise ToolError(failures[0])
    return [path + ".o" for path in inputs]


def _kill(running: list) -> None:
    for _, first, _, second in running:
        for proc in (first, second):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def link_shared(objects: Sequence[str], library: str) -> None:
    """Link object files into the shared library `library`, against the
    runtime libraries as needed and against their own dependencies where
    those define a symbol (``--copy-dt-needed-entries``: ``__truncsfbf2`` is
    in libmlir_float16_utils, which the runner utilities load); DT_NEEDED
    then tells a load which libraries to load first (by SONAME: no paths in
    the library). ``-z defs``: a symbol none of them defines fails here, not
    at a later load. `ToolError` when the link fails."""
    from . import cpu

    _run([*c_compiler(), "-shared", "-o", library, *objects, "-Wl,--as-needed",
          "-Wl,--copy-dt-needed-entries", *cpu.runtime_libraries(), "-lm", "-Wl,-z,defs"])


def _run(command: list[str]) -> None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"{shlex.join(command)} failed: {error}") from None
    if proc.returncode != 0:
        raise ToolError(f"{shlex.join(command)} failed (exit status {proc.returncode}): "
                        f"{proc.stderr.strip()}")
