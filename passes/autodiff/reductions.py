"""Derivative rules of reductions, sort and contractions.

    reduce sum      linear: forward applies it to the tangent, the adjoint
                    broadcasts the cotangent back
    reduce max/min  the derivative flows to the positions that attain the
                    result, shared equally between ties (as JAX)
    reduce prod     d/dx_i = product of the others (exclusive cumulative
                    products, so zeros are handled exactly)
    sort            the tangents ride along as payloads; the adjoint sorts
                    the cotangent back by the permutation
    top_k           the values' tangent is the operand's at the indices
                    (a gather); the adjoint adds the cotangent there (a
                    scatter-add into zeros); the indices have none
    dot_general     bilinear: forward is two dot_generals, the adjoint a
                    dot_general and a transpose per operand (as XLA's)
    dft             linear: forward applies it to the tangent; the DFT
                    matrix is symmetric, so its adjoint (a transpose
                    without conjugation, JAX's convention) is the same
                    DFT (of the cotangent padded with zeros where the op
                    kept only the first frequencies); a real operand takes
                    the real part of that
    hermitian_dft   linear: forward applies it to the tangent; the adjoint
                    is the same DFT of the cotangent (made complex), the
                    conjugates of the mirrored points added to the points
                    they mirror

    %y = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<8xf32> -> tensor<8xcomplex<f32>>
  -> vjp
    %0 = jaxc.dft %ct, axis = 0, sign = -1, scale = 1.0 : tensor<8xcomplex<f32>> -> tensor<8xcomplex<f32>>
    %dx = jaxc.real %0 : tensor<8xcomplex<f32>> -> tensor<8xf32>
"""
from __future__ import annotations

import math

import numpy as np
from mlir import ir

from jaxc import lax

from ..ir import integer, ints, is_inexact
from .jvp import JVP, JVP_FULL, ZERO_DERIVATIVE, apply_op
from .vjp import FORWARD, VJP

ZERO_DERIVATIVE.update({"jaxc.argmax", "jaxc.argmin"})


def kind_of(op) -> str:
    """`sum`, `max`, ... of a reduce or cumulative op's kind attribute (an
    integer enum attribute)."""
    import jaxc.dialect as jd
    enum = jd.ReduceKind if op.name == "jaxc.reduce" else jd.CumulativeKind
    return enum(ir.IntegerAttr(op.attributes["kind"]).value).name.lower()


def _kept(x, dims):
    return [d for d in range(x.ndim) if d not in dims]


def _back(ct, x, dims):
    """A reduced value broadcast back over the reduced `dims` of `x`."""
    return lax.broadcast_in_dim(ct, x.shape, _kept(x, dims))


def _argmax_mask(x, y, dims):
    """(where x attains the reduced result, as x's dtype; how many do)."""
    mask = lax.convert_element_type(lax.eq(x, _back(y, x, dims)), x.dtype)
    return mask, lax.reduce_sum(mask, dims)


def _prod_of_others(x, dims):
    """For each element, the product of the other elements of its reduction."""
    kept = _kept(x, dims)
    perm = kept + list(dims)
    moved = lax.transpose(x, perm)
    n = math.prod(x.shape[d] for d in dims)
    outer = [x.shape[d] for d in kept]
    if n == 0:
        return lax.full(x.shape, 0, x.dtype)
    flat = lax.reshape(moved, outer + [n])
    ones = lax.full(outer + [1], 1, x.dtype)
    last = len(outer)
    before = lax.concatenate([ones, lax.slice_in_dim(flat, 0, n - 1, axis=last)], last)
    after = lax.concatenate([lax.slice_in_dim(flat, 1, n, axis=last), ones], last)
    others = lax.cumprod(before, last) * lax.cumprod(after, last, reverse=True)
    return lax.transpose(lax.reshape(others, list(moved.shape)), np.argsort(perm).tolist())


def _reduce_jvp(op, xs, ys, ts):
    x, t, dims = xs[0], ts[0], ints(op, "dimensions")
    kind = kind_of(op)
    if kind == "sum":
        return apply_op(op, [t])
    if kind in ("max", "min"):
        mask, count = _argmax_mask(x, ys[0], dims)
        return [lax.reduce_sum(t * mask, dims) / count]
    if kind == "prod":
        return [lax.reduce_sum(t * _prod_of_others(x, dims), dims)]
    return [None]


def _reduce_vjp(op, xs, ys, cts):
    x, ct, dims = xs[0], cts[0], ints(op, "dimensions")
    kind = kind_of(op)
    if kind == "sum":
        return [_back(ct, x, dims)]
    if kind in ("max", "min"):
        mask, count = _argmax_mask(x, ys[0], dims)
        return [_back(ct / count, x, dims) * mask]
    if kind == "prod":
        return [_back(ct, x, dims) * _prod_of_others(x, dims)]
    return [None]


# --- sort -----------------------------------------------------------------

def _sort_params(op):
    return dict(dimension=integer(op, "dimension"), is_stable="is_stable" in op.attributes,
                num_keys=integer(op, "num_keys"))


def _sort_jvp_full(op, xs, ts):
    floats = [i for i, x in enumerate(xs) if is_inexact(x.value.type) and ts[i] is not None]
    outs = lax.sort(tuple(xs) + tuple(ts[i] for i in floats), **_sort_params(op))
    tangents = [None] * len(xs)
    for k, i in enumerate(floats):
        tangents[i] = outs[len(xs) + k]
    return list(outs[:len(xs)]), tangents


def _sort_forward(op, xs):
    """The sorted operands, then the permutation that sorted them."""
    dim = integer(op, "dimension")
    iota = lax.broadcasted_iota(np.int32, xs[0].shape, dim)
    return list(lax.sort(tuple(xs) + (iota,), **_sort_params(op)))


def _sort_vjp(op, xs, ys, cts):
    dim, perm = integer(op, "dimension"), ys[-1]
    return [None if ct is None else lax.sort((perm, ct), dimension=dim, num_keys=1)[1] for ct in cts]


# --- top_k ----------------------------------------------------------------

def _top_k_jvp(op, xs, ys, ts):
    from jaxc.lax._more import top_k_tangent
    return [None if ts[0] is None else top_k_tangent(ts[0], ys[1]), None]


def _top_k_vjp(op, xs, ys, cts):
    from jaxc.lax._more import top_k_cotangent
    return [None if cts[0] is None else top_k_cotangent(cts[0], ys[1], xs[0].shape[-1])]


# --- dot_general ----------------------------------------------------------

def _dims(op):
    return (ints(op, "lhs_contracting_dimensions"), ints(op, "rhs_contracting_dimensions"),
            ints(op, "lhs_batching_dimensions"), ints(op, "rhs_batching_dimensions"))


def _dot_jvp(op, xs, ys, ts):
    a, b = xs
    terms = []
    if ts[0] is not None:
        terms += apply_op(op, [ts[0], b])
    if ts[1] is not None:
        terms += apply_op(op, [a, ts[1]])
    return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


def _dot_transpose_lhs(ct, x, y, x_contract, y_contract, x_batch, y_batch, swap_ans=False):
    """The cotangent of x in dot_general(x, y) (XLA's result order: batch,
    lhs free, rhs free; `swap_ans` when x was the rhs)."""
    x_kept = [d for d in range(x.ndim) if d not in x_contract and d not in x_batch]
    y_kept = [d for d in range(y.ndim) if d not in y_contract and d not in y_batch]
    nb = len(x_batch)
    batch = list(range(nb))
    if swap_ans:
        ans_y = list(range(nb, nb + len(y_kept)))
    else:
        ans_y = list(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
    out = lax.dot_general(ct, y, ((ans_y, y_kept), (batch, y_batch)))
    x_contract_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    result = lax.transpose(out, np.argsort(list(x_batch) + x_kept + x_contract_by_y).tolist())
    return lax.convert_element_type(result, x.dtype) if result.dtype != x.dtype else result


def _dot_vjp(op, xs, ys, cts):
    a, b = xs
    lc, rc, lb, rb = _dims(op)
    ct = cts[0]
    ct_a = _dot_transpose_lhs(ct, a, b, lc, rc, lb, rb) if is_inexact(a.value.type) else None
    ct_b = _dot_transpose_lhs(ct, b, a, rc, lc, rb, lb, swap_ans=True) if is_inexact(b.value.type) else None
    return [ct_a, ct_b]


def _dft_jvp(op, xs, ys, ts):
    return apply_op(op, [ts[0]])


def _dft_vjp(op, xs, ys, cts):
    """The same DFT of the cotangent (zero-padded back to n points when the
    op kept fewer frequencies)."""
    from jaxc.lax._fft import dft
    axis, ct = integer(op, "axis"), cts[0]
    n, m = xs[0].shape[axis], ys[0].shape[axis]
    if m < n:
        padding = [(0, 0, 0)] * ct.ndim
        padding[axis] = (0, n - m, 0)
        ct = lax.pad(ct, lax.full((), 0, ct.dtype), padding)
    ct = dft(ct, integer(op, "sign"), ir.FloatAttr(op.attributes["scale"]).value, axis)
    return [ct if xs[0].dtype.kind == "c" else lax.real(ct)]


def _hermitian_dft_vjp(op, xs, ys, cts):
    """The transposes of the full spectrum's real DFT: the cotangent as a
    complex one, the same DFT, then the mirrored points' conjugates added to
    the points they mirror (JAX conjugates in the transpose of conj only)."""
    from jaxc.lax._fft import dft
    axis, n, m = integer(op, "axis"), ys[0].shape[integer(op, "axis")], xs[0].shape[integer(op, "axis")]
    ct = cts[0]
    g = dft(lax.complex(ct, lax.full_like(ct, 0)), integer(op, "sign"), ir.FloatAttr(op.attributes["scale"]).value,
            axis)
    head = lax.slice_in_dim(g, 0, m, axis=axis)
    mirrored = n - m
    if not mirrored:
        return [head]
    tail = lax.conj(lax.rev(lax.slice_in_dim(g, m, n, axis=axis), (axis,)))
    padding = [(0, 0, 0)] * g.ndim
    padding[axis] = (1, m - 1 - mirrored, 0)
    return [lax.add(head, lax.pad(tail, lax.full((), 0, tail.dtype), padding))]


JVP.update({"jaxc.reduce": _reduce_jvp, "jaxc.dot_general": _dot_jvp,
            "jaxc.conv_general_dilated": _dot_jvp, "jaxc.dft": _dft_jvp, "jaxc.hermitian_dft": _dft_jvp,
            "jaxc.top_k": _top_k_jvp})
JVP_FULL["jaxc.sort"] = _sort_jvp_full
FORWARD["jaxc.sort"] = _sort_forward
VJP.update({"jaxc.reduce": _reduce_vjp, "jaxc.sort": _sort_vjp,
            "jaxc.dot_general": _dot_vjp, "jaxc.dft": _dft_vjp, "jaxc.hermitian_dft": _hermitian_dft_vjp,
            "jaxc.top_k": _top_k_vjp})
