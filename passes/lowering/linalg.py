"""Lowering of `jaxc.lu`, `jaxc.triangular_solve`, `jaxc.cholesky`,
`jaxc.qr`, `jaxc.eigh`, `jaxc.svd`, `jaxc.top_k`, `jaxc.hessenberg`,
`jaxc.schur` and `jaxc.eig` (f32, f64; `jaxc-expand-linalg` and
`jaxc-expand-top-k` have rewritten every other one into jaxc ops; lax binds
the last three only where the library computes them): calls of the compiled
library (lu.c, triangular_solve.c, cholesky.c, qr.c, eigh.c, svd.c, top_k.c,
eig.c) on buffers, as
`jaxc.callback`'s lowering hands buffers to the host. The operands are
read in place; the results are new buffers the call fills, handed back as
tensors. The buffers go to the call as unranked memrefs (one declaration
serves every shape), so bufferization and buffer deallocation see their
uses; `jaxc-library-calls` later passes their aligned pointers instead:

    %lu, %pivots, %permutation = jaxc.lu %a : tensor<2x5x3xf32> -> (tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x5xi32>)
  ->
    func.func private @jaxc_lu_f32(index, index, index, memref<*xf32>, memref<*xf32>, memref<*xi32>, memref<*xi32>)
    ...
    %f = memref.alloc() : memref<2x5x3xf32>      (and %p: memref<2x3xi32>, %q: memref<2x5xi32>)
    %ab = bufferization.to_buffer %a read_only : tensor<2x5x3xf32> to memref<2x5x3xf32>
    %au = memref.cast %ab : memref<2x5x3xf32> to memref<*xf32>      (and %fu, %pu, %qu)
    func.call @jaxc_lu_f32(%c2, %c5, %c3, %au, %fu, %pu, %qu) : (index, index, index, memref<*xf32>, ...) -> ()
    %lu = bufferization.to_tensor %f restrict writable : memref<2x5x3xf32> to tensor<2x5x3xf32>
    ...

lu.c reads `batch` row-major m x n matrices and writes the factors, the
pivots and the permutation of each (C interface, `_mlir_ciface_jaxc_lu_f32`:
`(long batch, long m, long n, intptr_t x, intptr_t lu, intptr_t pivots,
intptr_t permutation)`). A triangular solve passes the counts of b (batch,
m, n), the buffers of a, b and the result, then its flags as 0 or 1
(left_side, lower, transpose_a, unit_diagonal; conjugate_a means nothing
for real elements):

    %x = jaxc.triangular_solve %l, %b left_side lower : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  ->
    func.call @jaxc_triangular_solve_f32(%c1, %c4, %c2, %lu, %bu, %xu, %c1_0, %c1_1, %c0, %c0_2)

A Cholesky factorization passes the matrices and their size, then the
buffers of the operand and the factor: `@jaxc_cholesky_f64(%batch, %n, %a, %l)`.
A QR decomposition passes (batch, m, n, full_matrices as 0 or 1) and the
buffers of the operand, q and r; a singular value decomposition the same
counts and the buffers of the operand, s, u and vh; an eigendecomposition
(batch, n, lower) and the buffers of the operand, the vectors and the
values:

    %q, %r = jaxc.qr %a full_matrices : tensor<5x3xf32> -> (tensor<5x5xf32>, tensor<5x3xf32>)
  ->
    func.call @jaxc_qr_f32(%c1, %c5, %c3, %c1_0, %au, %qu, %ru)

A Hessenberg reduction passes (matrices, size) and the buffers of the
operand, the packed matrices and the taus; a real Schur decomposition the
same counts and the buffers of the operand, t and z; an eigendecomposition
(matrices, size, left, right) and the buffers of the operand, w, vl and vr
(complex buffers: interleaved parts). A top_k passes (rows, n, k) and the
buffers of the operand, the values and the indices:

    %v, %i = jaxc.top_k %x, k = 8 : tensor<4x100xf32>
  ->
    func.call @jaxc_top_k_f32(%c4, %c100, %c8, %xu, %vu, %iu)
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref

from ..ir import declare_function
from .common import LoweringError, element_type, shape_of, signless

LIBRARY_ELEMENTS = ("f32", "f64")  # what lu.c, ..., svd.c, top_k.c and eig.c compute


def _library_function(op: ir.Operation, base: str) -> str:
    """`jaxc_<base>_f32` or `_f64` for the op's element type; a LoweringError for any other."""
    element = element_type(op.operands[0])
    if str(element) not in LIBRARY_ELEMENTS:
        raise LoweringError(op, f"'{op.name}' of {element} has no library call (the library computes "
                                f"{' and '.join(LIBRARY_ELEMENTS)}): run "
                                f"{'jaxc-expand-top-k' if op.name == 'jaxc.top_k' else 'jaxc-expand-linalg'} first")
    return f"jaxc_{base}_{element}"


def _call(op: ir.Operation, name: str, counts: list[int], flags: list[bool]) -> list[ir.Value]:
    """A call of `name`(counts, the operands' and results' buffers, flags) as
    the module docstring shows; the results as tensors."""
    index = ir.IndexType.get()
    values = [*op.operands, *op.results]
    unranked = [ir.UnrankedMemRefType.get(element_type(v), None) for v in values]
    declare_function(op, name, [index] * len(counts) + unranked + [index] * len(flags))
    outs = [memref.AllocOp(ir.MemRefType.get(shape_of(r), element_type(r)), [], []).result for r in op.results]
    ins = [bufferization.ToBufferOp(ir.MemRefType.get(shape_of(v), element_type(v)), v, read_only=True).result
           for v in op.operands]
    buffers = [memref.CastOp(t, v).result for t, v in zip(unranked, ins + outs)]
    constants = [arith.ConstantOp(index, int(c)).result for c in [*counts, *flags]]
    func.CallOp([], ir.FlatSymbolRefAttr.get(name), constants[:len(counts)] + buffers + constants[len(counts):])
    return [bufferization.ToTensorOp(signless(r.type), out, restrict=True, writable=True).result
            for r, out in zip(op.results, outs)]


def lu(op, elements):
    *batch, m, n = shape_of(op.operands[0])
    return _call(op, _library_function(op, "lu"), [math.prod(batch), m, n], [])


TRIANGULAR_SOLVE_FLAGS = ("left_side", "lower", "transpose_a", "unit_diagonal")  # as triangular_solve.c takes them


def triangular_solve(op, elements):
    *batch, m, n = shape_of(op.operands[1])
    return _call(op, _library_function(op, "triangular_solve"), [math.prod(batch), m, n],
                 [flag in op.attributes for flag in TRIANGULAR_SOLVE_FLAGS])


def cholesky(op, elements):
    *batch, n, _ = shape_of(op.operands[0])
    return _call(op, _library_function(op, "cholesky"), [math.prod(batch), n], [])


def qr(op, elements):
    *batch, m, n = shape_of(op.operands[0])
    return _call(op, _library_function(op, "qr"), [math.prod(batch), m, n, "full_matrices" in op.attributes], [])


def svd(op, elements):
    *batch, m, n = shape_of(op.operands[0])
    return _call(op, _library_function(op, "svd"), [math.prod(batch), m, n, "full_matrices" in op.attributes], [])


def eigh(op, elements):
    *batch, n, _ = shape_of(op.operands[0])
    return _call(op, _library_function(op, "eigh"), [math.prod(batch), n, "lower" in op.attributes], [])


def hessenberg(op, elements):
    *batch, n, _ = shape_of(op.operands[0])
    return _call(op, _library_function(op, "hessenberg"), [math.prod(batch), n], [])


def schur(op, elements):
    *batch, n, _ = shape_of(op.operands[0])
    return _call(op, _library_function(op, "schur"), [math.prod(batch), n], [])


def eig(op, elements):
    *batch, n, _ = shape_of(op.operands[0])
    return _call(op, _library_function(op, "eig"),
                 [math.prod(batch), n, "left" in op.attributes, "right" in op.attributes], [])


def top_k(op, elements):
    *rows, n = shape_of(op.operands[0])
    return _call(op, _library_function(op, "top_k"), [math.prod(rows), n, op.attributes["k"].value], [])


RULES: dict = {"jaxc.top_k": top_k, "jaxc.hessenberg": hessenberg, "jaxc.schur": schur, "jaxc.eig": eig,
               "jaxc.lu": lu, "jaxc.triangular_solve": triangular_solve, "jaxc.cholesky": cholesky,
               "jaxc.qr": qr, "jaxc.eigh": eigh, "jaxc.svd": svd}
