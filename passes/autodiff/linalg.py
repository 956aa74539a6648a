"""Derivative rules of `jaxc.lu`, `jaxc.triangular_solve` and
`jaxc.cholesky` (JAX's). `jaxc.qr`, `jaxc.eigh`, `jaxc.svd` and `jaxc.eig` have none
here: `lax.linalg.qr`, `eigh`, `svd` and `eig` bind them inside a `custom_jvp` whose rule is
JAX's (python/jaxc/lax/linalg.py), so the pass differentiates the rule, and
an op met outside one is an error that says so. `jaxc.hessenberg` and
`jaxc.schur` have none (nor do JAX's).

lu: with P the row order the pivots make, L (m x m, unit lower) and U
(n x n, upper; identity below row min(m, n)) read from the factors,

    Phi = L^-1 P dA U^-1           (two triangular solves)
    dLU = L tril(Phi, -1) + triu(Phi) U

and the adjoint is that map transposed (without conjugation, JAX's
convention for complex values):

    Phi_ct = tril(L^T ct, -1) + triu(ct U^T)
    dA_ct  = P^T L^-T Phi_ct U^-T

Pivots and permutation are integers: no derivative.

triangular_solve, X = op(A)^-1 B (left side; X op(A)^-1 on the right): linear
in B, the same solve of the tangent, and its adjoint the solve with
op(A) transposed; in A, dX = -op(A)^-1 op(dA) X with dA restricted to the
triangle the op reads (its diagonal too unless unit_diagonal), whose
adjoint is that triangle of -op^T(Z X^T), Z the cotangent's solve.

cholesky, L L^H = A with A Hermitian from the operand's lower triangle:
dL = L phi(L^-1 dA L^-H), phi the lower triangle with its diagonal halved,
dA made Hermitian from the tangent's lower triangle as the op reads it;
the adjoint (no conjugation) is L^-T phi(L^T ct) conj(L)^-1 folded back
onto the lower triangle.

    %x = jaxc.triangular_solve %a, %b left_side lower : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  -> vjp
    %z = jaxc.triangular_solve %a, %ct left_side lower transpose_a : ...      the cotangent of b
    %p = jaxc.dot_general %z, %x, batch = [] x [], contract = [1] x [1] ...   -z x^T, its lower triangle: of a
"""
from __future__ import annotations

import numpy as np

from jaxc import lax

from .jvp import JVP, NOT_DIFFERENTIABLE, REFUSED_AS
from .vjp import VJP

FLAGS = ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal")  # jaxc.triangular_solve's


def _iotas(shape) -> tuple:
    """Row and column indices of matrices of `shape` (..., r, c)."""
    return (lax.broadcasted_iota(np.int32, shape, len(shape) - 2),
            lax.broadcasted_iota(np.int32, shape, len(shape) - 1))


def _where(mask, x):
    return lax.select(mask, x, lax.full(x.shape, 0, x.dtype))


def _matmul(a, b, transpose_a: bool = False, transpose_b: bool = False):
    """a @ b (a^T, b^T with the flags) over matrices, the leading axes batch axes."""
    batch = tuple(range(a.ndim - 2))
    contract = (a.ndim - 2 if transpose_a else a.ndim - 1, b.ndim - 1 if transpose_b else b.ndim - 2)
    return lax.dot_general(a, b, (((contract[0],), (contract[1],)), (batch, batch)))


def _solve(a, b, **flags):
    """`jaxc.triangular_solve` with `flags` set (the others off)."""
    from jaxc.lax._linalg_ops import TRIANGULAR_SOLVE
    return TRIANGULAR_SOLVE.bind(a, b, **{flag: bool(flags.get(flag)) for flag in FLAGS})


def _transpose(x):
    return lax.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _permutation_matrix(permutation, dtype):
    """P (..., m, m) with P[i, permutation[i]] = 1: (P x)[i] = x[permutation[i]]."""
    m = permutation.shape[-1]
    shape = (*permutation.shape, m)
    wanted = lax.broadcast_in_dim(permutation, shape, tuple(range(permutation.ndim)))
    return lax.convert_element_type(lax.eq(wanted, _iotas(shape)[1]), dtype)


def _factors(lu):
    """L (..., m, m) and U (..., n, n) of the packed factors (..., m, n)."""
    *batch, m, n = lu.shape
    k = min(m, n)
    zero = lax.full((), 0, lu.dtype)
    edges = [(0, 0, 0)] * len(batch)
    lower = lax.pad(lax.slice_in_dim(lu, 0, k, axis=lu.ndim - 1), zero, [*edges, (0, 0, 0), (0, m - k, 0)])
    rows, cols = _iotas(lower.shape)
    l = lax.add(_where(lax.gt(rows, cols), lower), lax.convert_element_type(lax.eq(rows, cols), lu.dtype))
    upper = lax.pad(lax.slice_in_dim(lu, 0, k, axis=lu.ndim - 2), zero, [*edges, (0, n - k, 0), (0, 0, 0)])
    rows, cols = _iotas(upper.shape)
    below = lax.bitwise_and(lax.eq(rows, cols), lax.ge(rows, lax.full(rows.shape, k, np.int32)))
    u = lax.add(_where(lax.le(rows, cols), upper), lax.convert_element_type(below, lu.dtype))
    return l, u


def _lu_jvp(op, xs, ys, ts):
    lu, _, permutation = ys
    if ts[0] is None:
        return [None, None, None]
    l, u = _factors(lu)
    x = _matmul(_permutation_matrix(permutation, lu.dtype), ts[0])
    la = _solve(l, x, left_side=True, lower=True, unit_diagonal=True)
    phi = _solve(u, la)
    rows, cols = _iotas(phi.shape)
    return [lax.add(_matmul(l, _where(lax.gt(rows, cols), phi)), _matmul(_where(lax.le(rows, cols), phi), u)),
            None, None]


def _lu_vjp(op, xs, ys, cts):
    lu, _, permutation = ys[:3]
    ct = cts[0]
    if ct is None:
        return [None]
    l, u = _factors(lu)
    rows, cols = _iotas(ct.shape)
    phi = lax.add(_where(lax.gt(rows, cols), _matmul(l, ct, transpose_a=True)),
                  _where(lax.le(rows, cols), _matmul(ct, _transpose(u))))
    la = _solve(u, phi, transpose_a=True)
    x = _solve(l, la, left_side=True, lower=True, transpose_a=True, unit_diagonal=True)
    return [_matmul(_permutation_matrix(permutation, lu.dtype), x, transpose_a=True)]


def _flags(op) -> dict:
    return {flag: flag in op.attributes for flag in FLAGS}


def _read_triangle(m, flags: dict):
    """The part of m (..., k, k) a solve with `flags` reads: a triangle, with
    its diagonal unless unit_diagonal."""
    rows, cols = _iotas(m.shape)
    if flags["lower"]:
        keep = lax.gt(rows, cols) if flags["unit_diagonal"] else lax.ge(rows, cols)
    else:
        keep = lax.lt(rows, cols) if flags["unit_diagonal"] else lax.le(rows, cols)
    return _where(keep, m)


def _op(m, flags: dict):
    """op(m): transposed with transpose_a, conjugated with conjugate_a."""
    m = _transpose(m) if flags["transpose_a"] else m
    return lax.conj(m) if flags["conjugate_a"] else m


def _triangular_solve_jvp(op, xs, ys, ts):
    a, _ = xs
    x, flags = ys[0], _flags(op)
    out = None if ts[1] is None else _solve(a, ts[1], **flags)
    if ts[0] is not None:
        g = _op(_read_triangle(ts[0], flags), flags)
        product = _matmul(g, x) if flags["left_side"] else _matmul(x, g)
        by_a = _solve(a, lax.neg(product), **flags)
        out = by_a if out is None else lax.add(out, by_a)
    return [out]


def _triangular_solve_vjp(op, xs, ys, cts):
    a, _ = xs
    x, flags = ys[0], _flags(op)
    if cts[0] is None:
        return [None, None]
    z = _solve(a, cts[0], **{**flags, "transpose_a": not flags["transpose_a"]})

    def ct_a():  # the adjoint of dA -> op(dA): op's transpose, then the triangle
        product = lax.neg(_matmul(z, x, transpose_b=True) if flags["left_side"] else _matmul(x, z, transpose_a=True))
        return _read_triangle(_op(product, flags), flags)

    return [ct_a, z]


def _hermitian_from_lower(t):
    """The Hermitian matrix whose lower triangle is t's (the real part of
    its diagonal): what jaxc.cholesky reads of its operand."""
    rows, cols = _iotas(t.shape)
    strict = _where(lax.gt(rows, cols), t)
    diagonal = _where(lax.eq(rows, cols), t)
    if np.dtype(t.dtype).kind == "c":
        diagonal = lax.complex(lax.real(diagonal), lax.full(diagonal.shape, 0, lax.real(diagonal).dtype))
        return lax.add(lax.add(strict, lax.conj(_transpose(strict))), diagonal)
    return lax.add(lax.add(strict, _transpose(strict)), diagonal)


def _fold_onto_lower(g):
    """The adjoint of `_hermitian_from_lower`."""
    rows, cols = _iotas(g.shape)
    upper = _transpose(g)
    upper = lax.conj(upper) if np.dtype(g.dtype).kind == "c" else upper
    diagonal = _where(lax.eq(rows, cols), g)
    if np.dtype(g.dtype).kind == "c":
        diagonal = lax.complex(lax.real(diagonal), lax.full(diagonal.shape, 0, lax.real(diagonal).dtype))
    return lax.add(_where(lax.gt(rows, cols), lax.add(g, upper)), diagonal)


def _phi(x):
    """The lower triangle of x, its diagonal halved."""
    rows, cols = _iotas(x.shape)
    halves = lax.add(lax.convert_element_type(lax.gt(rows, cols), x.dtype),
                     lax.mul(lax.convert_element_type(lax.eq(rows, cols), x.dtype), lax.full(x.shape, 0.5, x.dtype)))
    return lax.mul(x, halves)


def _cholesky_jvp(op, xs, ys, ts):
    if ts[0] is None:
        return [None]
    factor = ys[0]
    conjugate = np.dtype(factor.dtype).kind == "c"
    right = _solve(factor, _hermitian_from_lower(ts[0]), lower=True, transpose_a=True, conjugate_a=conjugate)
    return [_matmul(factor, _phi(_solve(factor, right, left_side=True, lower=True)))]


def _cholesky_vjp(op, xs, ys, cts):
    if cts[0] is None:
        return [None]
    factor = ys[0]
    conjugate = np.dtype(factor.dtype).kind == "c"
    left = _solve(factor, _phi(_matmul(factor, cts[0], transpose_a=True)), left_side=True, lower=True,
                  transpose_a=True)
    return [_fold_onto_lower(_solve(factor, left, lower=True, conjugate_a=conjugate))]


JVP.update({"jaxc.lu": _lu_jvp, "jaxc.triangular_solve": _triangular_solve_jvp, "jaxc.cholesky": _cholesky_jvp})
VJP.update({"jaxc.lu": _lu_vjp, "jaxc.triangular_solve": _triangular_solve_vjp, "jaxc.cholesky": _cholesky_vjp})
NOT_DIFFERENTIABLE.update({
    f"jaxc.{name}": f"lax.linalg.{name} binds it inside a custom_jvp carrying JAX's rule: "
                    f"differentiate lax.linalg.{name} (or jnp.linalg), not the bare op"
    for name in ("qr", "eigh", "svd", "eig")})
NOT_DIFFERENTIABLE.update({
    f"jaxc.{name}": f"Differentiation rule for '{name}' not implemented (lax.linalg.{name} has none in JAX either)"
    for name in ("hessenberg", "schur")})
REFUSED_AS.update({"jaxc.hessenberg": NotImplementedError, "jaxc.schur": NotImplementedError})
