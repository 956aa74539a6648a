"""`jaxc.lu` and `jaxc.triangular_solve`: the ops `lax.linalg.lu` and
`lax.linalg.triangular_solve` bind, and the programs of jaxc ops that
`jaxc-expand-linalg` replaces them by where no library computes them
(complex or 16-bit elements, the GPU, library calls off). Built with lax
only: passes import this module, and rules may not run jnp's promotion
(docs/architecture.md's layering); lax.linalg checks the arguments.

LU at step k, on rows r and columns c of `a`:

    p = argmax over r >= k of |a[r, k]|           (the pivot row)
    swap rows k and p
    l[r] = a[r, k] / a[k, k]        for r > k     (unscaled when a[k, k] == 0, as LAPACK)
    a[r, c] -= l[r] * a[k, c]       for r > k, c > k
    a[r, k] = l[r]                  for r > k

blocked from two blocks of `_LU_BLOCK` columns on (`lu_program`), and the
triangular solve blocked the same way over rows (`_substitute`).
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
from mlir import ir

import jaxc.dialect as jd

from . import _more, _ops
from ._control_flow import fori_loop

_LU_BLOCK = 32  # columns per block of the blocked LU (from two blocks on)


def _lu_op(x: Any) -> list[Any]:
    """`jaxc.lu` on matrices x (..., m, n): its three results."""
    operand = ir.RankedTensorType(x.type)
    *batch, m, n = operand.shape
    i32 = ir.IntegerType.get_signless(32)
    return list(jd.LuOp(operand, ir.RankedTensorType.get([*batch, min(m, n)], i32),
                        ir.RankedTensorType.get([*batch, m], i32), x).results)


LU = _ops._primitive("lu", _lu_op, multiple_results=True, weak=_ops._never_weak)


def lu_program(x: Any) -> tuple[Any, Any, Any]:
    """`jaxc.lu` as jaxc ops (`jaxc-expand-linalg`), for a non-empty x; built
    with lax only (the pass runs it).

    Blocked as LAPACK's getrf (right-looking), in a loop over blocks of
    `_LU_BLOCK` columns: the block's columns (all rows) are factored by the
    module docstring's steps, its row swaps applied to the whole matrix
    once, U's block row solved from L's diagonal block, and the trailing
    matrix updated by one product, so most of the work is a matrix product
    instead of a rank-1 update of the whole matrix per column. The products
    keep the matrix's shape (rows and columns outside the trailing part
    multiply zeros), so every block is one loop body:

        [A11 A12]  ->  P [L11  ] [U11 U12]     L11 U11, L21 U11 = the block's LU
        [A21 A22]        [L21 I] [    S  ]     U12 = L11^-1 A12; S = A22 - L21 U12

    Columns left after the last whole block take the steps on the whole
    matrix."""
    *batch, m, n = x.shape
    steps = min(m, n)
    start = (x, _iota((*batch, m), len(batch)), _ops.full((*batch, steps), 0, np.int32))
    blocks = steps // _LU_BLOCK if steps >= 2 * _LU_BLOCK else 0
    state = fori_loop(0, blocks, _lu_block, start) if blocks else start
    if blocks * _LU_BLOCK < steps:
        state = fori_loop(blocks * _LU_BLOCK, steps, functools.partial(_lu_step, offset=0), state)
    factors, permutation, pivots = state
    return factors, pivots, permutation


def _iota(shape: tuple[int, ...], dimension: int) -> Any:
    return _ops.broadcasted_iota(np.int32, shape, dimension)


def _int32(index: Any) -> Any:
    """A loop index as int32 (a pass traces with 64-bit indices)."""
    return index if index.dtype == np.int32 else _ops.convert_element_type(index, np.int32)


def _scalar(value: Any, shape: tuple[int, ...]) -> Any:
    """An int32 scalar (traced or Python) broadcast to `shape`."""
    value = _ops.full((), value, np.int32) if isinstance(value, int) else value
    return _ops.broadcast_in_dim(value, shape, ())


def _spread(x: Any, shape: tuple[int, ...]) -> Any:
    """x (its axes the leading ones of `shape`) broadcast to `shape`."""
    return _ops.broadcast_in_dim(x, shape, tuple(range(x.ndim)))


def _select(mask: Any, x: Any, y: Any = 0) -> Any:
    """Where `mask`, x, else y (0 by default), all broadcast to mask's shape
    by their leading axes (a scalar y: filled)."""
    shape = mask.shape
    x = _spread(x, shape) if x.shape != shape else x
    y = _ops.full(shape, y, x.dtype) if isinstance(y, (int, float)) else y
    return _ops.select(mask, x, _spread(y, shape) if y.shape != shape else y)


def _matmul(a: Any, b: Any) -> Any:
    """a @ b over matrices (..., m, k) x (..., k, n), the leading axes batch axes."""
    batch = tuple(range(a.ndim - 2))
    return _ops.dot_general(a, b, (((a.ndim - 1,), (b.ndim - 2,)), (batch, batch)))


def _rows_at(a: Any, rows: Any) -> Any:
    """a[..., rows[..., i], :] for each i: matrices a (..., m, c), row
    indices (..., r) per matrix -> (..., r, c); one gather."""
    *batch, m, c = a.shape
    r = rows.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    first = _ops.mul(_iota((count, r), 0), _ops.full((count, r), m, np.int32))
    flat = _ops.reshape(_ops.add(first, _ops.reshape(rows, (count, r))), (count * r, 1))
    dims = _ops.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    return _ops.reshape(_ops.gather(_ops.reshape(a, (count * m, c)), flat, dims, (1, c)), (*batch, r, c))


def _entries_at(v: Any, index: Any) -> Any:
    """v[..., index[..., i]] for vectors v (..., m), indices (..., r)."""
    return _ops.reshape(_rows_at(_ops.reshape(v, (*v.shape, 1)), index), index.shape)


def _lu_step(k: Any, state: tuple[Any, Any, Any], offset: Any) -> tuple[Any, Any, Any]:
    """Step k of the unblocked LU on columns offset, offset + 1, ... of the
    matrix (all of them, or a block): pivot, swap, scale, rank-1 update.
    State: (those columns, the row order so far, the pivots)."""
    a, order, pivots = state
    *batch, m, c = a.shape
    nb = len(batch)
    k = _int32(k)
    t = _ops.sub(k, _scalar(offset, ()))  # k's column in `a`
    rows = _iota((*batch, m), nb)
    column = _more.dynamic_index_in_dim(a, t, axis=nb + 1, keepdims=False)
    modulus = _ops.abs(column)
    p = _ops.argmax(_select(_ops.ge(rows, _scalar(k, rows.shape)), modulus, -1), nb, np.int32)
    at_p = _ops.reshape(p, (*batch, 1))

    def swapped(v: Any, is_k: Any, is_p: Any, v_k: Any, v_p: Any) -> Any:  # rows k and p of v exchanged
        return _select(is_k, v_p, _select(is_p, v_k, v))

    is_k, is_p = _ops.eq(rows, _scalar(k, rows.shape)), _ops.eq(rows, _spread(p, rows.shape))
    row_p = _ops.reshape(_rows_at(a, at_p), (*batch, c))
    pivot = _more.dynamic_index_in_dim(row_p, t, axis=nb, keepdims=False)
    column = swapped(column, is_k, is_p, _more.dynamic_index_in_dim(column, k, axis=nb, keepdims=False), pivot)
    order = swapped(order, is_k, is_p, _more.dynamic_index_in_dim(order, k, axis=nb, keepdims=False),
                    _ops.reshape(_entries_at(order, at_p), tuple(batch)))
    steps = pivots.shape[-1]
    pivots = _select(_ops.eq(_iota((*batch, steps), nb), _scalar(k, (*batch, steps))), p, pivots)
    nonzero = _spread(_ops.ne(pivot, _ops.full(pivot.shape, 0, pivot.dtype)), column.shape)
    scaled = _ops.select(nonzero, _ops.div(column, _spread(pivot, column.shape)), column)  # unscaled at a zero pivot
    multipliers = _select(_ops.gt(rows, _scalar(k, rows.shape)), scaled)
    cols = _ops.add(_iota((*batch, c), nb), _scalar(offset, (*batch, c)))
    pivot_row = _select(_ops.gt(cols, _scalar(k, cols.shape)), row_p)
    shape = a.shape
    row_k = _more.dynamic_index_in_dim(a, k, axis=nb, keepdims=True)
    every_axis = tuple(range(a.ndim))
    a = swapped(a, _spread(is_k, shape), _spread(is_p, shape), _ops.broadcast_in_dim(row_k, shape, every_axis),
                _ops.broadcast_in_dim(_ops.reshape(row_p, (*batch, 1, c)), shape, every_axis))
    update = _ops.mul(_spread(multipliers, shape), _ops.broadcast_in_dim(pivot_row, shape, (*range(nb), nb + 1)))
    a = _ops.sub(a, update)
    matrix_rows, matrix_cols = _iota(shape, nb), _ops.add(_iota(shape, nb + 1), _scalar(offset, shape))
    at_column = _ops.bitwise_and(_ops.gt(matrix_rows, _scalar(k, shape)), _ops.eq(matrix_cols, _scalar(k, shape)))
    return _select(at_column, multipliers, a), order, pivots


def _lu_block(b: Any, state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    """Block b of the blocked LU (`lu_program`): columns j = b * _LU_BLOCK onwards."""
    a, permutation, pivots = state
    *batch, m, n = a.shape
    nb = len(batch)
    w = _LU_BLOCK
    j = _ops.mul(_int32(b), _scalar(w, ()))
    end = _ops.add(j, _scalar(w, ()))
    panel = _more.dynamic_slice_in_dim(a, j, w, axis=nb + 1)
    panel, order, pivots = fori_loop(j, end, functools.partial(_lu_step, offset=j),
                                     (panel, _iota((*batch, m), nb), pivots))
    a = _rows_at(a, order)
    permutation = _entries_at(permutation, order)
    a = _more.dynamic_update_slice_in_dim(a, panel, j, axis=nb + 1)
    block_rows = _more.dynamic_slice_in_dim(a, j, w, axis=nb)
    right = _ops.ge(_iota(block_rows.shape, nb + 1), _scalar(end, block_rows.shape))
    u12 = _substitute(_more.dynamic_slice_in_dim(panel, j, w, axis=nb), _select(right, block_rows),
                      lower=True, unit_diagonal=True)
    a = _more.dynamic_update_slice_in_dim(a, _select(right, u12, block_rows), j, axis=nb)
    l21 = _select(_ops.ge(_iota(panel.shape, nb), _scalar(end, panel.shape)), panel)
    return _ops.sub(a, _matmul(l21, u12)), permutation, pivots


def _triangular_solve_op(a: Any, b: Any, **flags: bool) -> Any:
    return jd.TriangularSolveOp(b.type, a, b, **{name: value or None for name, value in flags.items()}).result


TRIANGULAR_SOLVE = _ops._primitive("triangular_solve", _triangular_solve_op, weak=_ops._never_weak)
TRIANGULAR_SOLVE_FLAGS = ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal")


def triangular_solve_program(a: Any, b: Any, *, left_side: bool, lower: bool, transpose_a: bool,
                             conjugate_a: bool, unit_diagonal: bool) -> Any:
    """`jaxc.triangular_solve` as jaxc ops (`jaxc-expand-linalg`), for a
    non-empty b; built with lax only (passes run it)."""
    return solve_triangular(_ops.conj(a) if conjugate_a else a, b, left_side=left_side, lower=lower,
                            transpose_a=transpose_a, unit_diagonal=unit_diagonal)


def _swap_last(x: Any) -> Any:
    return _ops.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def solve_triangular(a: Any, b: Any, *, left_side: bool, lower: bool, transpose_a: bool,
                     unit_diagonal: bool) -> Any:
    """`triangular_solve` on checked arrays of one dtype, built with lax
    only (the `jaxc.lu` derivative rules call it inside jaxc-autodiff)."""
    if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        return _swap_last(solve_triangular(a, _swap_last(b), left_side=True, lower=lower,
                                           transpose_a=not transpose_a, unit_diagonal=unit_diagonal))
    if transpose_a:  # the transpose of a lower triangle is an upper one
        a, lower = _swap_last(a), not lower
    return _substitute(a, b, lower, unit_diagonal)


def _substitute(t: Any, b: Any, lower: bool, unit_diagonal: bool) -> Any:
    """Forward (`lower`) or backward substitution: x with t x = b. From two
    blocks of `_LU_BLOCK` rows on, blocked (LAPACK's trsm): each block's
    right side is b's rows less one product with the rows of x solved
    before it (a product of the whole shape, unsolved rows zero), then the
    block is solved row by row; rows left after the whole blocks go row by
    row on the whole matrix."""
    n = t.shape[-1]
    x = _ops.full(b.shape, 0, b.dtype)
    if n == 0:
        return x
    w = _LU_BLOCK
    blocks = n // w if n >= 2 * w else 0
    nb = t.ndim - 2

    def block(k: Any, x: Any) -> Any:
        k = _int32(k)
        # the block's first row: k w, or n - (k + 1) w from the bottom
        first = _ops.mul(k, _scalar(w, ())) if lower else _ops.sub(_scalar(n - w, ()), _ops.mul(k, _scalar(w, ())))
        rows_of_t = _more.dynamic_slice_in_dim(t, first, w, axis=nb)
        cols = _iota(rows_of_t.shape, nb + 1)
        known = _ops.lt(cols, _scalar(first, cols.shape)) if lower else \
            _ops.ge(cols, _ops.add(_scalar(first, cols.shape), _scalar(w, cols.shape)))
        rhs = _ops.sub(_more.dynamic_slice_in_dim(b, first, w, axis=nb), _matmul(_select(known, rows_of_t), x))
        diagonal = _more.dynamic_slice_in_dim(rows_of_t, first, w, axis=nb + 1)
        solved = _substitute_rows(diagonal, rhs, lower, unit_diagonal, 0, _ops.full(rhs.shape, 0, rhs.dtype))
        return _more.dynamic_update_slice_in_dim(x, solved, first, axis=nb)

    if blocks:
        x = fori_loop(0, blocks, block, x)
    return _substitute_rows(t, b, lower, unit_diagonal, blocks * w, x) if blocks * w < n else x


def _substitute_rows(t: Any, b: Any, lower: bool, unit_diagonal: bool, first: int, x: Any) -> Any:
    """Substitution row by row from step `first` on (rows first, first + 1,
    ... for `lower`, else n - 1 - first, ...), x holding the rows solved
    before it (the rest zero)."""
    n = t.shape[-1]
    nb = t.ndim - 2

    def step(s: Any, x: Any) -> Any:
        s = _int32(s)
        i = s if lower else _ops.sub(_scalar(n - 1, ()), s)
        row = _more.dynamic_index_in_dim(t, i, axis=nb, keepdims=True)  # (..., 1, n)
        cols = _iota(row.shape, nb + 1)
        known = _ops.lt(cols, _scalar(i, cols.shape)) if lower else _ops.gt(cols, _scalar(i, cols.shape))
        value = _ops.sub(_more.dynamic_index_in_dim(b, i, axis=nb, keepdims=True), _matmul(_select(known, row), x))
        if not unit_diagonal:
            diagonal = _more.dynamic_index_in_dim(row, i, axis=nb + 1, keepdims=True)  # (..., 1, 1)
            value = _ops.div(value, _ops.broadcast_in_dim(diagonal, value.shape, tuple(range(value.ndim))))
        at_i = _ops.eq(_iota(x.shape, nb), _scalar(i, x.shape))
        return _ops.select(at_i, _ops.broadcast_in_dim(value, x.shape, tuple(range(x.ndim))), x)

    return fori_loop(first, n, step, x)


def _cholesky_op(x: Any) -> Any:
    return jd.CholeskyOp(x).result


CHOLESKY = _ops._primitive("cholesky", _cholesky_op, weak=_ops._never_weak)


def cholesky_program(x: Any) -> Any:
    """`jaxc.cholesky` as jaxc ops (`jaxc-expand-linalg`), for a non-empty
    x: a loop over the columns (left-looking), column j of L the residual
    x[:, j] - L L[j, :]^H below the diagonal divided by the square root of
    its diagonal entry; all NaN unless every pivot is positive and every
    entry finite."""
    *batch, n, _ = x.shape
    nb = len(batch)
    complex_input = np.dtype(x.dtype).kind == "c"
    batch_axes = tuple(range(nb))

    def step(j: Any, factor: Any) -> Any:
        j = _int32(j)
        row_j = _more.dynamic_index_in_dim(factor, j, axis=nb, keepdims=True)  # (..., 1, n)
        row_j = _ops.conj(row_j) if complex_input else row_j
        done = _ops.dot_general(factor, row_j, (((nb + 1,), (nb + 1,)), (batch_axes, batch_axes)))  # (..., n, 1)
        residual = _ops.sub(_more.dynamic_index_in_dim(x, j, axis=nb + 1, keepdims=False),
                            _ops.reshape(done, (*batch, n)))
        pivot = _more.dynamic_index_in_dim(residual, j, axis=nb, keepdims=False)
        if complex_input:  # the pivot of a Hermitian matrix is real
            diagonal = _ops.convert_element_type(_ops.sqrt(_ops.real(pivot)), x.dtype)
        else:
            diagonal = _ops.sqrt(pivot)
        rows = _iota(residual.shape, nb)
        column = _select(_ops.gt(rows, _scalar(j, rows.shape)), _ops.div(residual, _spread(diagonal, rows.shape)),
                         _select(_ops.eq(rows, _scalar(j, rows.shape)), diagonal))
        at_j = _ops.eq(_iota(factor.shape, nb + 1), _scalar(j, factor.shape))
        return _ops.select(at_j, _spread(column, factor.shape), factor)

    factor = fori_loop(0, n, step, _ops.full(x.shape, 0, x.dtype))
    on_diagonal = _ops.eq(_iota(x.shape, nb), _iota(x.shape, nb + 1))
    diagonal = _ops.reduce_sum(_select(on_diagonal, _ops.real(factor) if complex_input else factor), (nb + 1,))
    positive = _ops.reduce_and(_ops.gt(diagonal, _ops.full(diagonal.shape, 0, diagonal.dtype)), (nb,))
    finite = _ops.is_finite(_ops.real(factor)) if complex_input else _ops.is_finite(factor)
    if complex_input:
        finite = _ops.bitwise_and(finite, _ops.is_finite(_ops.imag(factor)))
    ok = _ops.bitwise_and(positive, _ops.reduce_and(finite, (nb, nb + 1)))
    return _ops.select(_spread(ok, x.shape), factor, _ops.full(x.shape, np.nan, x.dtype))


def _qr_op(x: Any, *, full_matrices: bool) -> list[Any]:
    """`jaxc.qr` on matrices x (..., m, n): (q, r)."""
    operand = ir.RankedTensorType(x.type)
    *batch, m, n = operand.shape
    k = m if full_matrices else min(m, n)
    element = operand.element_type
    return list(jd.QrOp(ir.RankedTensorType.get([*batch, m, k], element),
                        ir.RankedTensorType.get([*batch, k, n], element), x,
                        full_matrices=full_matrices or None).results)


QR = _ops._primitive("qr", _qr_op, multiple_results=True, weak=_ops._never_weak)


def _real_part_type(element: ir.Type) -> ir.Type:
    """The element type of eigenvalues and singular values: a complex
    element's parts (complex<f32> -> f32), a real element itself."""
    return ir.ComplexType(element).element_type if isinstance(element, ir.ComplexType) else element


def _eigh_op(x: Any, *, lower: bool) -> list[Any]:
    """`jaxc.eigh` on square matrices x (..., n, n): (vectors, values)."""
    operand = ir.RankedTensorType(x.type)
    real = _real_part_type(operand.element_type)
    return list(jd.EighOp(operand, ir.RankedTensorType.get(operand.shape[:-1], real), x,
                          lower=lower or None).results)


EIGH = _ops._primitive("eigh", _eigh_op, multiple_results=True, weak=_ops._never_weak)


def _svd_op(x: Any, *, full_matrices: bool) -> list[Any]:
    """`jaxc.svd` on matrices x (..., m, n): (s, u, vh)."""
    operand = ir.RankedTensorType(x.type)
    *batch, m, n = operand.shape
    k = min(m, n)
    element = operand.element_type
    return list(jd.SvdOp(ir.RankedTensorType.get([*batch, k], _real_part_type(element)),
                         ir.RankedTensorType.get([*batch, m, m if full_matrices else k], element),
                         ir.RankedTensorType.get([*batch, n if full_matrices else k, n], element),
                         x, full_matrices=full_matrices or None).results)


SVD = _ops._primitive("svd", _svd_op, multiple_results=True, weak=_ops._never_weak)


def library_computes(x: Any) -> bool:
    """Whether `jaxc.hessenberg`, `jaxc.schur` and `jaxc.eig` of x are bound:
    real f32 or f64 matrices where the compiled library is called (eig.c;
    `passes.host`: on unless switched off). These ops have no program for a
    pass to expand them into, so elsewhere (complex elements, 16-bit ones,
    library calls off) lax traces the jnp programs of lax/_eig.py instead."""
    from jaxc.passes import host
    return np.dtype(x.dtype) in (np.dtype(np.float32), np.dtype(np.float64)) and host.target().library_calls


def _hessenberg_op(x: Any) -> list[Any]:
    """`jaxc.hessenberg` on square matrices x (..., n, n): (a, taus), gehrd's packing."""
    return list(jd.HessenbergOp(x).results)


HESSENBERG = _ops._primitive("hessenberg", _hessenberg_op, multiple_results=True, weak=_ops._never_weak)


def _schur_op(x: Any) -> list[Any]:
    """`jaxc.schur` on square real matrices x (..., n, n): (t, z)."""
    return list(jd.SchurOp(x).results)


SCHUR = _ops._primitive("schur", _schur_op, multiple_results=True, weak=_ops._never_weak)


def _eig_op(x: Any, *, left: bool, right: bool) -> list[Any]:
    """`jaxc.eig` on square real matrices x (..., n, n): (w, vl, vr), complex."""
    return list(jd.EigOp(x, left=left or None, right=right or None).results)


EIG = _ops._primitive("eig", _eig_op, multiple_results=True, weak=_ops._never_weak)
