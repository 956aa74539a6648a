"""`jaxc-schedule`: tile, vectorize and parallelize every linalg.generic by
its kernel class, through transform-dialect scripts generated from static
shapes (`passes/schedules/`: elementwise, reduction, contraction).

Each generic gets a `jaxc.kernel` id; the class's generator writes a
transform script for it (`schedule_plans(module)` returns them,
`schedule_text` and ``jaxc-opt --print-schedule`` print them); the transform
interpreter applies each one. A kernel whose class has no schedule, or whose script the
interpreter refuses, stays as it is and becomes scalar loops later.

Before::

    %0 = linalg.generic {iterator_types = ["parallel"]} ins(%x : tensor<1024xf32>) ... {
      math.sin ...
    }

After (AVX2: 8 lanes, tiles of 16)::

    %0 = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %e) -> (tensor<1024xf32>) {
      %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : tensor<1024xf32>, vector<16xf32>
      %s = math.sin %v : vector<16xf32>
      ...
"""
from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.passmanager import ExternalPass

from . import host
from .ir import all_ops, apply_transform_script, ops_named
from .registry import register_pass
from .schedules import contraction, convolution, elementwise, library, reduction, rows
from .schedules.kernel import Kernel, describe
from .schedules.script import Plan, canonicalize_script, cleanup_script, vectorize_script

KERNEL_ATTR = "jaxc.kernel"  # on every generic (and its tiles) while the pass runs
VECTORIZE_ATTR = "jaxc.vectorize"  # on the tiles with static shapes

MIN_ELEMENTS = 1024  # iteration space below which a kernel stays scalar

# Kernel class -> script generator; the first that returns a script wins.
GENERATORS: tuple[tuple[str, Callable], ...] = (
    ("contraction", contraction.schedule),
    ("reduction", reduction.schedule),
    ("elementwise", elementwise.schedule),
)


@register_pass("jaxc-schedule", "tile, vectorize and parallelize linalg.generic ops (transform dialect)")
def schedule(op: ir.Operation, pass_: ExternalPass, *, vector_bits: int = 0, threads: int = 0,
             library_calls: bool = True) -> None:
    """Options (0: the host's, `jaxc.passes.host`): `vector-bits` 128/256/512,
    `threads`; `library-calls=false` (or ``JAXC_CPU_LIBRARY_CALLS=0``)
    generates every f32/f64 product as a loop nest instead of calling the
    compiled library (`schedules/library.py`)."""
    target = host.target()
    target = host.Target(vector_bits or target.vector_bits, threads or target.threads, target.features,
                         library_calls and target.library_calls)
    with op.context, op.location:
        apply_schedules(op, target)


def _has_complex_elements(op: ir.Operation) -> bool:
    """Complex elements have no vector form (`vector<8xcomplex<f32>>` is invalid)."""
    return any(isinstance(v.type, ir.ShapedType) and isinstance(v.type.element_type, ir.ComplexType)
               for v in [*op.operands, *op.results])


def _has_bf16_elements(op: ir.Operation) -> bool:
    return any(isinstance(v.type, ir.ShapedType) and isinstance(v.type.element_type, ir.BF16Type)
               for v in [*op.operands, *op.results])


def kernels_of(root: ir.Operation) -> list[Kernel]:
    """Every statically shaped linalg.generic under `root` without complex
    elements (those stay scalar loops; a DFT the library computes is one),
    numbered in walk order. On a CPU with
    AVX512-BF16, kernels with bf16 elements stay scalar too: LLVM 22.1.8's
    X86 backend aborts on their vectors ("Do not know how to soft promote
    this operator's operand", docs/toolchain.md)."""
    kernels: list[Kernel] = []
    skip_bf16 = host.bf16_vectors_abort()
    for op in ops_named(root, ["linalg.generic"]):
        if library.marked_dft(op) is not None:
            kernel = library.describe_dft(op, len(kernels))
            if kernel is not None:
                kernels.append(kernel)
            continue
        if _has_complex_elements(op) or (skip_bf16 and _has_bf16_elements(op)):
            continue
        kernel = describe(op, len(kernels))
        if kernel is not None:
            kernels.append(kernel)
    return kernels


def _redescribe(op: ir.Operation, ident: int) -> Kernel:
    """`describe` of a kernel that a contraction rewrite made from one that
    had a description (static shapes still, the same kind of maps)."""
    kernel = describe(op, ident)
    assert kernel is not None, "a rewritten kernel lost its description"
    return kernel


def row_groups(kernels: list[Kernel]) -> list[list[Kernel]]:
    """The fused row groups (`rows.groups`) among kernels big enough to
    schedule, or elementwise."""
    return rows.groups([k for k in kernels if (k.size >= MIN_ELEMENTS or not k.reduction)
                        and library.marked_dft(k.op) is None])


def schedule_plans(root: ir.Operation, target: host.Target | None = None,
                   refused: frozenset[int] = frozenset()) -> list[tuple[Kernel, str, Plan]]:
    """(kernel, class name, plan) for every kernel that has a schedule
    (products the compiled library computes: calls, unless the target says
    not)."""
    target = target or host.target()
    for op in ops_named(root, ["linalg.generic"]):
        convolution.im2col(op)  # convolutions become copy + contraction + transpose kernels
    for op in ops_named(root, ["linalg.generic"]):
        if library.is_dft(op):
            if target.library_calls and library.marked_dft(op) is None:
                library.mark_dft(op)  # a call of the FFT; else the direct sum stays, as loops
        elif not (target.library_calls and _mark_library_product(op, target)):
            contraction.split_columns(op, target)  # the columns whole register tiles cover: a packed product
    plans = []
    kernels = kernels_of(root)
    grouped: set[int] = set()
    for group in row_groups(kernels):
        if group[-1].ident in refused:
            continue  # refused as a group: its kernels are scheduled one by one
        rows.give_producers_their_own_outputs(group)
        plans.append((group[-1], "fused rows", rows.schedule(group, target)))
        grouped.update(k.ident for k in group)
    for kernel in kernels:
        if kernel.ident in grouped:
            continue
        if (name := library.marked_dft(kernel.op)) is not None:
            plans.append((kernel, f"dft, library call {name}", library.dft_schedule(kernel, target)))
            continue
        if kernel.size < MIN_ELEMENTS:
            continue  # small (and 0-d, empty) kernels: scalar loops run as fast, compile faster
        if library.marked_family(kernel.op) is not None:
            name = ir.StringAttr(kernel.op.attributes["library_call"]).value
            plans.append((kernel, f"contraction, library call {name}", library.schedule(kernel, target)))
            continue
        narrow = contraction.narrow_product(kernel, target)
        how = ""
        if narrow is not None:
            kernel, how = _redescribe(narrow[0], kernel.ident), f" ({narrow[1]})"
        else:
            packed = contraction.pack_panels(kernel, target)
            if packed is not None:
                op, mr, nr, own_fill = packed
                kernel = _redescribe(op, kernel.ident)
                what = "A and B packed" if contraction.a_is_packed(kernel) else "B packed"
                plans.append((kernel, f"contraction, {what}",
                              contraction.schedule_packed(kernel, target, mr, nr, own_fill)))
                continue
            if contraction.rows_of_b_contiguous(kernel):
                kernel = _redescribe(kernel.op, kernel.ident)
        for name, generate in GENERATORS:
            plan = generate(kernel, target)
            if plan is not None:
                plans.append((kernel, name + how, plan))
                break
    return plans


def _mark_library_product(op: ir.Operation, target: host.Target) -> bool:
    """`library.mark` of a kernel big enough to schedule: whether `op` is
    now a call of the compiled library."""
    if library.marked_family(op) is not None:
        return True
    kernel = describe(op, 0)
    return kernel is not None and kernel.size >= MIN_ELEMENTS and library.mark(kernel, target)


def schedule_text(root: ir.Operation, target: host.Target | None = None) -> str:
    """Every kernel's schedule as transform-dialect text (``jaxc-opt --print-schedule``)."""
    parts = []
    for kernel, name, plan in schedule_plans(root, target):
        call = library.marked_family(kernel.op)
        call_name = library.PREFIX + call[0] if call else library.marked_dft(kernel.op)
        then = (f"a call of {call_name} (jaxc-library-calls, after bufferization)" if call_name else
                f"vectorize the static tiles, {', '.join(plan.patterns + ('canonicalization',))}, "
                "hoist loop-invariant transfers")
        parts.append(f"// kernel {kernel.ident}: {name}, loops {list(kernel.ranges)} "
                     f"{list(kernel.iterators)} at {kernel.op.location}\n{plan.tiling}// then: {then}\n")
    return "\n".join(parts)


def apply_schedules(module: ir.Operation, target: host.Target | None = None) -> None:
    """Apply every kernel's plan. When the interpreter refuses one, the
    module goes back to how it was and is scheduled again without that
    kernel, which becomes scalar loops (rare: one copy of the module is kept
    for it)."""
    refused: set[int] = set()
    batched = True
    while True:
        # the copy is taken before `schedule_plans` rewrites kernels (convolutions,
        # packed contractions), so a retry starts from the same module and numbers
        # the kernels alike; a rewritten kernel left without its plan would fall
        # to a worse schedule
        backup = module.clone()
        plans = [p for p in schedule_plans(module, target, frozenset(refused)) if p[0].ident not in refused]
        failed = _apply_plans(module, plans, batched) if plans else None
        if failed is None:
            backup.erase()
            return
        _restore(module, backup)
        backup.erase()
        if failed == SOME_KERNEL:
            batched = False  # find the kernel: one at a time
        else:
            refused.add(failed)


SOME_KERNEL = -1  # `_apply_plans`: a batched step failed, the kernel is not known


def _apply_plans(module: ir.Operation, plans: list[tuple[Kernel, str, Plan]],
                 batched: bool = True) -> int | None:
    """Apply the plans; the id of the first refused kernel (`SOME_KERNEL`
    when a batched step fails), or None.

    Batched: every kernel is tiled, then every function canonicalized once,
    then the static tiles of the kernels with the same patterns vectorized
    together, and everything cleaned up once (`cleanup_script`). Cleaning up
    the whole function after each kernel instead costs time in proportion to
    kernels x function size (1 s of the 2.8 s compile of an MLP training
    step); kernel by kernel is only the way to find a refused kernel."""
    i64 = ir.IntegerType.get_signless(64)
    for kernel in kernels_of(module):  # every kernel: a plan may match its producers too
        kernel.op.attributes[KERNEL_ATTR] = ir.IntegerAttr.get(i64, kernel.ident)
    if not batched:
        for kernel, _, plan in plans:
            try:
                _apply(module, plan.tiling)
                order_parallel_inserts(module)
                _apply(module, canonicalize_script(kernel.ident))
                if _mark_static_tiles(module, {kernel.ident}, kernel.ident):
                    _apply(module, vectorize_script(kernel.ident, plan.patterns))
            except Exception:  # noqa: BLE001 -- the interpreter refused this kernel's plan
                return kernel.ident
        _strip(module, (KERNEL_ATTR, VECTORIZE_ATTR, "jaxc.row_op"))
        return None
    for kernel, _, plan in plans:
        try:
            _apply(module, plan.tiling)
        except Exception:  # noqa: BLE001 -- the interpreter refused this kernel's plan
            return kernel.ident
    order_parallel_inserts(module)
    by_patterns: dict[tuple[str, ...], set[int]] = {}
    for kernel, _, plan in plans:
        by_patterns.setdefault(plan.patterns, set()).add(kernel.ident)
    try:
        _apply(module, canonicalize_script(None))
        for group, (patterns, idents) in enumerate(by_patterns.items()):
            if _mark_static_tiles(module, idents, group):
                _apply(module, vectorize_script(group, patterns))
        _apply(module, cleanup_script())
    except Exception:  # noqa: BLE001 -- refused, but which kernel's tiles?
        return SOME_KERNEL
    _strip(module, (KERNEL_ATTR, VECTORIZE_ATTR, "jaxc.row_op"))
    return None


def order_parallel_inserts(root: ir.Operation) -> None:
    """Put the `tensor.parallel_insert_slice` ops that end each one-iteration
    `scf.forall` in the order of the shared outputs they write. MLIR 22.1.8's
    canonicalization folds such a loop away and pairs its results with those
    ops in their order, so out of order (fusion appends results with their
    inserts in its own order) it swaps results: wrong numbers, or an invalid
    module when the types differ. Loops of more iterations keep their order:
    one-shot-bufferize copies their inserts in order, and fusion's order is
    the one it gets right (docs/toolchain.md).

        scf.forall (%i) in (1) shared_outs(%a = %x, %b = %y) ... { insert %v into %b; insert %u into %a }
        ->                                                      { insert %u into %a; insert %v into %b }
    """
    for forall in ops_named(root, ["scf.forall"]):
        if not _one_iteration(forall):
            continue
        in_parallel = list(forall.regions[0].blocks[0].operations)[-1]
        inserts = list(in_parallel.regions[0].blocks[0].operations)
        if not all(isinstance(op.operands[1], ir.BlockArgument) for op in inserts):
            continue
        ordered = sorted(inserts, key=lambda op: ir.BlockArgument(op.operands[1]).arg_number)
        if ordered == inserts:
            continue
        ordered[0].move_before(inserts[0])
        for before, op in zip(ordered, ordered[1:]):
            op.move_after(before)


def _one_iteration(forall: ir.Operation) -> bool:
    bounds = [list(ir.DenseI64ArrayAttr(forall.attributes[name]))
              for name in ("staticLowerBound", "staticUpperBound", "staticStep")]
    dynamic = ir.ShapedType.get_dynamic_size()
    return all(dynamic not in (lo, up, step) and 0 < up - lo <= step for lo, up, step in zip(*bounds))


def _mark_static_tiles(module: ir.Operation, idents: set[int], mark: int) -> bool:
    """Mark the tiles of kernels `idents` whose operands all have static
    shapes with ``jaxc.vectorize = mark``."""
    marked = [op for op in ops_named(module, ["linalg.generic", "linalg.fill", "linalg.reduce",
                                              "linalg.transpose"])
              if KERNEL_ATTR in op.attributes and ir.IntegerAttr(op.attributes[KERNEL_ATTR]).value in idents
              and "library_call" not in op.attributes  # a call, not a loop nest
              and all(not isinstance(v.type, ir.ShapedType) or v.type.has_static_shape
                      for v in op.operands)]
    value = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), mark)
    for op in marked:
        op.attributes[VECTORIZE_ATTR] = value
    return bool(marked)


def _apply(module: ir.Operation, text: str) -> None:
    apply_transform_script(module, text)


def _restore(module: ir.Operation, backup: ir.Operation) -> None:
    body = module.regions[0].blocks[0]
    for inner in list(body.operations):
        inner.erase()
    for inner in list(backup.regions[0].blocks[0].operations):
        body.append(inner)


def _strip(module: ir.Operation, names: tuple[str, ...]) -> None:
    for inner in all_ops(module):
        for name in names:
            if name in inner.attributes:
                del inner.attributes[name]
