"""`jaxc-expand-linalg`: each `jaxc.lu`, `jaxc.triangular_solve`,
`jaxc.cholesky`, `jaxc.qr`, `jaxc.eigh` and `jaxc.svd` that the compiled library does
not compute becomes jaxc ops (lax/_linalg_ops.py,
lax/_decomposition_programs.py, lax/_svd_program.py): `lu_program` (a `fori_loop` over blocks of
columns: pivot, swap and rank-1 steps on the block, one product for the
trailing matrix), `triangular_solve_program` (blocked substitution: a
product per block of rows, the block row by row), `cholesky_program` (a
loop over the columns), `qr_program` (a Householder reflection per column),
`eigh_program` (cyclic Jacobi sweeps) and `svd_program` (one-sided Jacobi
sweeps). Complex and 16-bit ones expand
everywhere, and every one on targets that call no library: the GPU
(`library-calls=false`) and a CPU whose library calls are off
(``JAXC_CPU_LIBRARY_CALLS=0``, `host.override(library_calls=False)`). An
f32 or f64 one on the CPU stays: `jaxc-to-linalg` lowers it to a call of
lu.c, triangular_solve.c, cholesky.c, qr.c, eigh.c or svd.c. A
`jaxc.hessenberg`, `jaxc.schur` or `jaxc.eig` has no program: where no
library is called it is an error (lax.linalg binds them only where the
library computes them).

    %f, %p, %q = jaxc.lu %a : tensor<4x4xcomplex<f32>> -> (tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<4xi32>)
  ->
    %0:4 = jaxc.scan init(%c0, %a, %order, %zeros ...) xs() length = 4 ... {
      argmax of the column's moduli, the pivot row (a gather), the rows swapped by selects,
      the multipliers, the rank-1 update }
"""
from __future__ import annotations

import functools
from typing import Any

from mlir import ir
from mlir.passmanager import ExternalPass

from . import host
from .ir import expand_into_program, ops_named
from .lowering.linalg import LIBRARY_ELEMENTS
from .registry import register_pass


def _lu(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._linalg_ops import lu_program
    return list(lu_program(x[0]))


def _triangular_solve(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._linalg_ops import TRIANGULAR_SOLVE_FLAGS, triangular_solve_program
    return [triangular_solve_program(*x, **{flag: flag in op.attributes for flag in TRIANGULAR_SOLVE_FLAGS})]


def _cholesky(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._linalg_ops import cholesky_program
    return [cholesky_program(x[0])]


def _qr(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._decomposition_programs import qr_program
    return list(qr_program(x[0], "full_matrices" in op.attributes))


def _eigh(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._decomposition_programs import eigh_program
    return list(eigh_program(x[0], "lower" in op.attributes))


def _svd(op: ir.Operation, x: Any) -> list[Any]:
    from jaxc.lax._svd_program import svd_program
    return list(svd_program(x[0], "full_matrices" in op.attributes))


# Ops with no program to expand into: lax binds them only where the library computes them.
LIBRARY_ONLY = ("jaxc.hessenberg", "jaxc.schur", "jaxc.eig")

PROGRAMS = {"jaxc.lu": _lu, "jaxc.triangular_solve": _triangular_solve, "jaxc.cholesky": _cholesky,
            "jaxc.qr": _qr, "jaxc.eigh": _eigh, "jaxc.svd": _svd}  # op -> jaxc ops


@register_pass("jaxc-expand-linalg", "jaxc.lu, jaxc.triangular_solve, jaxc.cholesky, jaxc.qr, jaxc.eigh and jaxc.svd "
               "become loops of jaxc ops where the compiled library does not compute them")
def expand_linalg(op: ir.Operation, pass_: ExternalPass, *, library_calls: bool = True) -> None:
    """`library-calls=false` expands every such op; with it true (the
    default) the host's setting decides (`passes.host`: on unless switched
    off), and only complex and 16-bit ones expand."""
    calls = library_calls and host.target().library_calls
    with op.context:
        if not calls:
            for library_op in ops_named(op, list(LIBRARY_ONLY)):
                library_op.location.emit_error(
                    f"'{library_op.name}' is computed by the CPU's compiled library (eig.c) only, and this target "
                    "calls no library: run it on a CPU device (lax.linalg binds it only where library calls are "
                    "on; with them off it traces a program)")
                pass_.signal_pass_failure()
                return
        for linalg_op in ops_named(op, list(PROGRAMS)):
            element = str(ir.RankedTensorType(linalg_op.operands[0].type).element_type)
            if not (calls and element in LIBRARY_ELEMENTS):
                expand_into_program(linalg_op, linalg_op.name.removeprefix("jaxc.") + "_program",
                                    functools.partial(PROGRAMS[linalg_op.name], linalg_op))
