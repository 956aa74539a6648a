"""The linalg ops the passes build, without importing `mlir.dialects.linalg`.

That package defines every named op in Python (opdsl) on import: 60-90 ms,
the largest part of a process's first compile. The ops' classes come from the
ODS-generated module it wraps, and `fill`, `copy` and `transpose` here build
the same ops as its helpers of those names (same signature, same IR)::

    from .. import linalg_ops as linalg
    zero = linalg.fill(c0, outs=[tensor.empty(...)])   # %z = linalg.fill ins(%c0 : f32) outs(...)
    t = linalg.transpose(x, outs=[init], permutation=[1, 0])
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir._mlir_libs._mlirDialectsLinalg import fill_builtin_region
from mlir.dialects._linalg_ops_gen import CopyOp, FillOp, GenericOp, IndexOp, TransposeOp, YieldOp

__all__ = ["GenericOp", "IndexOp", "YieldOp", "copy", "fill", "transpose"]


def _named(op: ir.OpView) -> ir.OpView:
    """`op` with its body, the scalar computation its name stands for."""
    fill_builtin_region(op.operation)
    return op


def _tensor_results(init: ir.Value) -> list[ir.Type]:
    """A named op returns a tensor when its init is one (none on memrefs)."""
    return [init.type] if isinstance(init.type, ir.RankedTensorType) else []


def fill(value: ir.Value, *, outs: Sequence[ir.Value]) -> ir.Value | ir.Operation:
    """``linalg.fill ins(value) outs(outs[0])``: its result, or the op on memrefs."""
    op = _named(FillOp(_tensor_results(outs[0]), [value], list(outs)))
    return op.result if op.results else op.operation


def copy(source: ir.Value, *, outs: Sequence[ir.Value]) -> ir.Value | ir.Operation:
    """``linalg.copy ins(source) outs(outs[0])``: its result, or the op on memrefs."""
    op = _named(CopyOp(_tensor_results(outs[0]), [source], list(outs),
                       cast=ir.Attribute.parse("#linalg.type_fn<cast_signed>")))
    return op.result if op.results else op.operation


def transpose(source: ir.Value, *, outs: Sequence[ir.Value], permutation: Sequence[int]) -> TransposeOp:
    """``linalg.transpose ins(source) outs(outs[0]) permutation = ...``: the op."""
    return _named(TransposeOp(_tensor_results(outs[0]), source, outs[0], list(permutation)))
