"""`jaxc-cleanup`: canonicalize, CSE and symbol DCE until nothing changes.

Expansion passes (`jaxc-autodiff`, `jaxc-batch`) leave duplicated and dead
code behind; DESIGN.md section 3 runs this cleanup after them so derivative
code is lean. One round is upstream `canonicalize,cse` plus `symbol-dce` when
the op holds a symbol table (a module); rounds repeat until the IR stops
changing, because CSE can expose new folds and DCE can orphan private
functions.

Before (`jaxc-opt --jaxc-cleanup`)::

    func.func @f(%x: i32) -> i32 {
      %c0 = arith.constant 0 : i32
      %0 = arith.addi %x, %c0 : i32     // x + 0 = x
      %1 = arith.muli %0, %x : i32
      %2 = arith.muli %x, %x : i32      // same value as %1
      %3 = arith.addi %1, %2 : i32
      return %3 : i32
    }
    func.func private @unused() -> i32

After::

    func.func @f(%x: i32) -> i32 {
      %0 = arith.muli %x, %x : i32
      %1 = arith.addi %0, %0 : i32
      return %1 : i32
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass, PassManager

from .registry import register_pass

_ROUND = "canonicalize,cse"


@register_pass("jaxc-cleanup", "canonicalize, CSE and symbol DCE until nothing changes")
def cleanup(op: ir.Operation, pass_: ExternalPass, *, max_iterations: int = 10) -> None:
    """Run cleanup rounds on `op` until a round leaves it unchanged.

    Fails (with an error at `op`) when `max_iterations` rounds still change
    the IR: patterns that undo each other are a bug worth hearing about.
    """
    if max_iterations < 1:
        op.location.emit_error("jaxc-cleanup: max-iterations must be at least 1")
        pass_.signal_pass_failure()
        return
    round_pm = PassManager(op.name, context=op.context)
    round_pm.add(_ROUND + (",symbol-dce" if _is_symbol_table(op) else ""))
    before = _fingerprint(op)
    for _ in range(max_iterations):
        if not _run_round(round_pm, op, pass_):
            return
        after = _fingerprint(op)
        if after == before:
            return
        before = after
    op.location.emit_error(
        f"jaxc-cleanup did not converge within max-iterations={max_iterations} rounds; "
        "raise it, or look for rewrite patterns that undo each other")
    pass_.signal_pass_failure()


def _run_round(round_pm: PassManager, op: ir.Operation, pass_: ExternalPass) -> bool:
    """Run one round; on failure re-emit its errors from this pass and fail it."""
    try:
        round_pm.run(op)
        return True
    except ir.MLIRError as error:
        # Errors arrive here only when the context captures them; otherwise
        # the handlers have already seen them.
        for diag in error.error_diagnostics:
            diag.location.emit_error(f"jaxc-cleanup: {diag.message}")
        pass_.signal_pass_failure()
        return False


def _is_symbol_table(op: ir.Operation) -> bool:
    """Whether `op` defines a symbol table (symbol DCE only runs on those)."""
    try:
        ir.SymbolTable(op)
        return True
    except TypeError:
        return False


def _fingerprint(op: ir.Operation) -> str:
    """A text that changes whenever the IR under `op` does (locations included)."""
    return op.get_asm(print_generic_op_form=True, enable_debug_info=True, assume_verified=True)
