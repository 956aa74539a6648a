"""`jaxc-propagate-shardings`: upstream `sharding-propagation` on a program
annotated by `jaxc-annotate-shardings`: every op's operands and results get
`shard.shard` annotations consistent with the arguments' and results'.

Upstream's shard passes abort the process on some programs
(docs/toolchain.md), so this one runs in a forked child (its stderr
captured, its faulthandler off); a crash there is this pass's error, and
`jit` then runs the program whole (docs/parallel.md). `in_child` serves
`jaxc-partition` the same way.

    %a_ = shard.shard %a to %s : tensor<8x16xf32>
    %b = linalg.generic ... ins(%a_ ...)
  ->
    %a_ = shard.shard %a to %s : tensor<8x16xf32>
    %b = linalg.generic ... ins(%a_ ...)
    %b_ = shard.shard %b to %s : tensor<8x16xf32>      (and so on)

A module without the grid is left as it is.
"""
from __future__ import annotations

import os
import signal

from mlir import ir
from mlir.passmanager import ExternalPass, PassManager

from .annotate_shardings import annotated
from .registry import register_pass

PROPAGATION = "builtin.module(func.func(sharding-propagation{traversal=forward-backward}))"


def in_child(text: str, pipeline: str) -> tuple[str | None, str]:
    """`pipeline` run on the module `text` in a forked child: (the text it
    gives, "") or (None, why)."""
    import tempfile

    from jaxc.dialect import make_context
    read, write = os.pipe()
    errors = tempfile.TemporaryFile()  # the child's stderr: an assertion's message
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            os.dup2(errors.fileno(), 2)
            import faulthandler
            faulthandler.disable()  # an abort here is expected, and reported by the parent
            context = make_context()
            module = ir.Module.parse(text, context)
            with context:
                PassManager.parse(pipeline, context).run(module.operation)
                _drop_empty_annotations(module.operation)
            data = module.operation.get_asm(enable_debug_info=True).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(write, view):]
            code = 0
        except BaseException as error:  # noqa: BLE001 -- reported by the parent
            notes = "; ".join(str(d.message) for d in getattr(error, "error_diagnostics", []))
            os.write(write, f"\0{type(error).__name__}: {error}{': ' + notes if notes else ''}".encode()[:4000])
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    errors.seek(0)
    said = errors.read().decode(errors="replace").strip().splitlines()
    errors.close()
    if os.WIFSIGNALED(status):
        return None, (f"{pipeline} crashed "
                      f"({signal.Signals(os.WTERMSIG(status)).name}) on this program"
                      + (f": {said[-1][-300:]}" if said else ""))
    if os.waitstatus_to_exitcode(status) != 0:
        return None, data.lstrip(b"\0").decode(errors="replace") or "the partition failed"
    return data.decode(), ""


def _drop_empty_annotations(module: ir.Operation) -> None:
    """Remove the `shard.shard` ops whose sharding has no split axes at all
    (`split_axes = []`: the propagation's annotation of scalars), which
    upstream prints but cannot parse (docs/toolchain.md); the partition's
    own propagation derives them again. (Writing `[[]]` instead parses, but
    upstream does not treat it as the same sharding and then aborts.)"""
    dropped: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "shard.shard":
            sharding = op.operands[1].owner
            if isinstance(sharding, ir.OpView) and sharding.operation.name == "shard.sharding" \
                    and str(sharding.operation.attributes["split_axes"]).endswith("axisarray[]>"):
                dropped.append(op)
        return ir.WalkResult.ADVANCE
    module.walk(visit)
    for op in dropped:
        op.results[0].replace_all_uses_with(op.operands[0])
        sharding = op.operands[1].owner
        op.erase()
        if not list(sharding.results[0].uses):
            sharding.operation.erase()


def run_upstream(op: ir.Operation, pass_: ExternalPass, pipeline: str, who: str) -> bool:
    """`pipeline` run on the module `op` in a forked child, whose result
    replaces `op`'s body; False (after an error at the module, naming the
    pass `who`) where the child failed or died."""
    text, why = in_child(op.get_asm(enable_debug_info=True), pipeline)
    if text is None:
        op.location.emit_error(f"{who}: {why}")
        pass_.signal_pass_failure()
        return False
    new = ir.Module.parse(text, op.context)
    body = op.regions[0].blocks[0]
    for old in list(body.operations):
        old.erase()
    for operation in list(new.body.operations):
        body.append(operation)
    return True


@register_pass("jaxc-propagate-shardings", "upstream sharding-propagation on a program annotated by "
                                           "jaxc-annotate-shardings, in a forked child (it aborts on some)")
def propagate_shardings(op: ir.Operation, pass_: ExternalPass) -> None:
    if not annotated(op):
        return
    with op.context, op.location:
        run_upstream(op, pass_, PROPAGATION, "jaxc-propagate-shardings")
