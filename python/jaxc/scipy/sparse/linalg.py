"""`jaxc.scipy.sparse.linalg`: the iterative solvers of
`jax.scipy.sparse.linalg` (JAX 0.10): conjugate gradients `cg`, `bicgstab`
and restarted `gmres`. `A` (and the preconditioner `M`) is a square matrix
or a function computing the product with one; `b` and `x0` are arrays or
pytrees of arrays. Each returns `(x, info)`; the iterations run in
`lax.while_loop`s (so the solvers work under `jaxc.jit` and `jaxc.vmap`)
inside `lax.custom_linear_solve`, so derivatives are implicit: another
solve of the same (or the transposed) system.

    x, info = jaxc.scipy.sparse.linalg.cg(A, b)                  # A symmetric positive definite
    x, info = jaxc.scipy.sparse.linalg.gmres(lambda v: A @ v, b, restart=10,
                                             solve_method="incremental")
"""
from __future__ import annotations

import operator
from functools import partial
from typing import Any, Callable

import numpy as np

from ... import core, dtypes, lax, numpy as _jnp
from ...api import device_put
from ...tree_util import Partial, tree_leaves, tree_map, tree_structure
from .. import linalg as _dense

__all__ = ["bicgstab", "cg", "gmres"]

# jnp's elementwise functions (sqrt, maximum, where...) are made from tables at
# import time, which mypy cannot see.
jnp: Any = _jnp

_HIGHEST = lax.Precision.HIGHEST


# --- vectors that are pytrees of arrays -------------------------------------

def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=_HIGHEST)


def _real_inner(x: Any, y: Any) -> Any:
    """Re(x^H y) of two arrays, as x.real . y.real + x.imag . y.imag (the
    cross terms left out: every use is a z^H M z with M Hermitian)."""
    out = jnp.vdot(x.real, y.real, precision=_HIGHEST)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + jnp.vdot(x.imag, y.imag, precision=_HIGHEST)
    return out


def _tree_real_inner(x: Any, y: Any) -> Any:
    return sum(tree_leaves(tree_map(_real_inner, x, y)))


def _tree_inner(x: Any, y: Any) -> Any:
    """x^H y, summed over the leaves."""
    return sum(tree_leaves(tree_map(partial(jnp.vdot, precision=_HIGHEST), x, y)))


def _norm(x: Any) -> Any:
    return jnp.sqrt(sum(_real_inner(v, v) for v in tree_leaves(x)))


def _scale(s: Any, x: Any) -> Any:
    return tree_map(lambda v: s * v, x)


def _plus(x: Any, y: Any) -> Any:
    return tree_map(operator.add, x, y)


def _minus(x: Any, y: Any) -> Any:
    return tree_map(operator.sub, x, y)


def _lattice(x: Any) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) of an operation on all the leaves of `x`."""
    return dtypes.promote(*[dtypes.dtype_and_weak(v) for v in tree_leaves(x)])


@Partial
def _identity(x: Any) -> Any:
    return x


def _as_operator(f: Any) -> Callable[[Any], Any]:
    """`f` as a function computing its product with a vector: a callable
    itself, a square matrix (ValueError otherwise), or another object with
    `__matmul__` and a square `shape` (TypeError for anything else)."""
    if callable(f):
        return f
    if isinstance(f, (np.ndarray, core.ArrayBase)):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(_dot, f)
    if hasattr(f, "__matmul__"):
        shape = f.shape  # an AttributeError without one, as in JAX
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {shape}")
        return partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


def _check_structure(x0: Any, b: Any) -> None:
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}")


def _size(b: Any) -> int:
    return sum(v.size for v in tree_leaves(b))


# --- conjugate gradients and BiCGSTAB ----------------------------------------

def _cg_iterate(A: Callable, b: Any, x0: Any, *, maxiter: Any, tol: Any, atol: Any, M: Callable) -> Any:
    """Preconditioned conjugate gradients from `x0`, until |r|^2 is at most
    max(tol^2 |b|^2, atol^2) or after `maxiter` steps."""
    bound = jnp.maximum(jnp.square(tol) * _tree_real_inner(b, b), jnp.square(atol))
    r0 = _minus(b, A(x0))
    z0 = M(r0)
    dtype = dtypes.result_type(*tree_leaves(z0))
    gamma0 = _tree_real_inner(r0, z0).astype(dtype)
    plain = M is _identity  # then gamma = r^H r already

    def going(state: tuple) -> Any:
        _, r, gamma, _, k = state
        rr = gamma.real if plain else _tree_real_inner(r, r)
        return (rr > bound) & (k < maxiter)

    def step(state: tuple) -> tuple:
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _tree_real_inner(p, ap).astype(dtype)
        x = _plus(x, _scale(alpha, p))
        r = _minus(r, _scale(alpha, ap))
        z = M(r)
        gamma_next = _tree_real_inner(r, z).astype(dtype)
        p = _plus(z, _scale(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    return lax.while_loop(going, step, (x0, r0, gamma0, z0, 0))[0]


def _bicgstab_iterate(A: Callable, b: Any, x0: Any, *, maxiter: Any, tol: Any, atol: Any, M: Callable) -> Any:
    """Preconditioned BiCGSTAB from `x0`, stopping as `_cg_iterate` does or
    at a breakdown (rho = 0, or alpha or omega = 0: the count goes negative)."""
    bound = jnp.maximum(jnp.square(tol) * _tree_real_inner(b, b), jnp.square(atol))
    r0 = _minus(b, A(x0))
    one = lax.convert_element_type(1, *_lattice(b))

    def going(state: tuple) -> Any:
        r, k = state[1], state[-1]
        return (_tree_real_inner(r, r) > bound) & (k < maxiter) & (k >= 0)

    def step(state: tuple) -> tuple:
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_next = _tree_inner(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _plus(r, _scale(beta, _minus(p, _scale(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _tree_inner(rhat, q)
        s = _minus(r, _scale(alpha, q))
        half_done = _tree_real_inner(s, s) < bound  # s is small enough: skip the second half-step
        shat = M(s)
        t = A(shat)
        omega = _tree_inner(t, s) / _tree_inner(t, t)
        pick = partial(jnp.where, half_done)
        x = tree_map(pick, _plus(x, _scale(alpha, phat)), _plus(x, _plus(_scale(alpha, phat), _scale(omega, shat))))
        r = tree_map(pick, s, _minus(s, _scale(omega, t)))
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    return lax.while_loop(going, step, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _solve_iteratively(iterate: Callable, A: Any, b: Any, x0: Any, *, tol: Any, atol: Any, maxiter: Any, M: Any,
                       symmetric_when_real: bool) -> tuple[Any, None]:
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = device_put((b, x0))
    if maxiter is None:
        maxiter = 10 * _size(b)  # SciPy's default
    M = _as_operator(_identity if M is None else M)
    A = _as_operator(A)
    _check_structure(x0, b)
    x0_shapes, b_shapes = [np.shape(v) for v in tree_leaves(x0)], [np.shape(v) for v in tree_leaves(b)]
    if x0_shapes != b_shapes:
        raise ValueError(f"arrays in x0 and b must have matching shapes: {x0_shapes} vs {b_shapes}")
    solve = partial(iterate, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real positive definite operator is symmetric: reverse mode reuses `solve`
    symmetric = symmetric_when_real and not any(np.issubdtype(v.dtype, np.complexfloating) for v in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0, maxiter: Any = None,
       M: Any = None) -> tuple[Any, None]:
    """Solve ``A x = b`` for Hermitian positive definite `A` by (with `M`,
    an approximate inverse of `A`, preconditioned) conjugate gradients,
    until ``norm(b - A x) <= max(tol * norm(b), atol)`` or after `maxiter`
    (default 10 * size of b) steps. Returns ``(x, None)``; derivatives solve
    again with `cg`."""
    return _solve_iteratively(_cg_iterate, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                              symmetric_when_real=True)


def bicgstab(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0, maxiter: Any = None,
             M: Any = None) -> tuple[Any, None]:
    """Solve ``A x = b`` for a general `A` by BiCGSTAB, with the tolerances,
    `maxiter` and `M` of `cg`. Returns ``(x, None)``; derivatives solve the
    system (or its transpose) again with `bicgstab`."""
    return _solve_iteratively(_bicgstab_iterate, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                              symmetric_when_real=False)


# --- GMRES --------------------------------------------------------------------

def _safe_normalize(x: Any, thresh: Any = None) -> tuple[Any, Any]:
    """(x / |x|, |x|), or zeros and 0 when |x| is at most `thresh` (by
    default the machine epsilon of x's dtype)."""
    norm = _norm(x)
    dtype, weak = _lattice(x)
    if thresh is None:
        thresh = dtypes.finfo(norm.dtype).eps
    thresh = thresh.astype(dtype).real
    nonzero = norm > thresh
    divisor = lax.convert_element_type(norm, dtype, weak)
    unit = tree_map(lambda v: jnp.where(nonzero, v / divisor, 0.0), x)
    return unit, jnp.where(nonzero, norm, 0.0)


def _basis(unit_residual: Any, restart: int) -> Any:
    """Room for restart + 1 Krylov vectors (in a last axis), the first set."""
    return tree_map(lambda v: jnp.pad(v[..., None], ((0, 0),) * v.ndim + ((0, restart),)), unit_residual)


def _project(X: Any, v: Any) -> Any:
    """X^H v for the columns X[..., j] (JAX's einsum "...n,...->n")."""
    axes = list(range(np.ndim(v)))
    return jnp.tensordot(X.conj(), v, axes=(axes, axes), precision=_HIGHEST)


def _arnoldi_step(k: Any, A: Callable, M: Callable, V: Any, H: Any) -> tuple[Any, Any, Any]:
    """Add the k-th Arnoldi vector: M A V[..., k] orthogonalized against V
    and normalized, into V[..., k + 1]; its coefficients into the row H[k];
    and whether it vanished (an invariant subspace: breakdown)."""
    dtype, _ = _lattice(V)
    w = M(A(tree_map(lambda X: X[..., k], V)))
    _, w_norm = _safe_normalize(w)
    # One pass of classical Gram-Schmidt: JAX's "twice is enough" loop (with
    # max_iterations=2) never makes its second pass.
    h = sum(tree_leaves(tree_map(_project, V, w)))
    w = _minus(w, tree_map(lambda X: _dot(X, h), V))
    unit, w_norm = _safe_normalize(w, thresh=dtypes.finfo(dtype).eps * w_norm)
    V = tree_map(lambda X, u: X.at[..., k + 1].set(u), V, unit)
    H = H.at[k, :].set(h.at[k + 1].set(w_norm.astype(dtype)))
    return V, H, w_norm == 0.0


def _rotate(v: Any, i: Any, cs: Any, sn: Any) -> Any:
    """Apply the Givens rotation (cs, sn) to entries i, i + 1 of `v`."""
    a, b = v[i], v[i + 1]
    return v.at[i].set(cs.conj() * a - sn.conj() * b).at[i + 1].set(sn * a + cs * b)


def _givens(a: Any, b: Any) -> tuple[Any, Any]:
    """The rotation (cs, sn) that zeroes b in (a, b)."""
    b_small = abs(b) == 0
    a_smaller = abs(a) < abs(b)
    t = -jnp.where(a_smaller, a, b) / jnp.where(a_smaller, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_small, 1, jnp.where(a_smaller, r * t, r))
    sn = jnp.where(b_small, 0, jnp.where(a_smaller, r, r * t))
    return cs, sn


def _triangularize_row(row: Any, givens: Any, k: Any) -> tuple[Any, Any]:
    """Apply the k rotations so far to the row H[k], then a new one (kept
    in givens[k]) zeroing its entry k + 1."""
    row = lax.fori_loop(0, k, lambda i, v: _rotate(v, i, givens[i, 0], givens[i, 1]), row)
    cs, sn = _givens(row[k], row[k + 1])
    return _rotate(row, k, cs, sn), givens.at[k, :].set(jnp.stack([cs, sn]))


def _cycle_incremental(A: Callable, b: Any, x0: Any, unit_residual: Any, residual_norm: Any, ptol: Any,
                       restart: int, M: Callable) -> tuple[Any, Any, Any]:
    """One GMRES cycle updating a QR factorization of the Hessenberg matrix
    by Givens rotations as the Krylov space grows, which stops early once
    the residual it estimates is at most `ptol`."""
    V = _basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_leaves(b))
    R = jnp.eye(restart, restart + 1, dtype=dtype)  # rows not reached stay those of the identity
    givens = jnp.zeros((restart, 2), dtype=dtype)
    rhs = jnp.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def going(state: tuple) -> Any:
        k, err = state[0], state[1]
        return (k < restart) & (err > ptol)

    def step(state: tuple) -> tuple:
        k, _, V, R, rhs, givens = state
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row, givens = _triangularize_row(H[k, :], givens, k)
        rhs = _rotate(rhs, k, givens[k, 0], givens[k, 1])
        return k + 1, abs(rhs[k + 1]), V, R.at[k, :].set(row), rhs, givens

    _, _, V, R, rhs, _ = lax.while_loop(going, step, (0, residual_norm, V, R, rhs, givens))
    y = _dense.solve_triangular(R[:, :-1].T, rhs[:-1])
    x = _plus(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit, norm = _safe_normalize(M(_minus(b, A(x))))
    return x, unit, norm


def _cycle_batched(A: Callable, b: Any, x0: Any, unit_residual: Any, residual_norm: Any, ptol: Any,
                   restart: int, M: Callable) -> tuple[Any, Any, Any]:
    """One GMRES cycle building the whole Krylov space (or up to a
    breakdown), then solving its least-squares problem by the normal
    equations."""
    del ptol
    V = _basis(unit_residual, restart)
    dtype, weak = _lattice(b)
    H = lax.convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def going(state: tuple) -> Any:
        _, _, broke, k = state
        return (k < restart) & jnp.logical_not(broke)

    def step(state: tuple) -> tuple:
        V, H, _, k = state
        V, H, broke = _arnoldi_step(k, A, M, V, H)
        return V, H, broke, k + 1

    V, H, _, _ = lax.while_loop(going, step, (V, H, False, 0))
    rhs = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    HT = H.T
    y = _dense.solve(_dot(HT.T.conj(), HT), _dot(HT.T.conj(), rhs), assume_a="pos")
    x = _plus(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit, norm = _safe_normalize(M(_minus(b, A(x))))
    return x, unit, norm


def _gmres_iterate(A: Callable, b: Any, x0: Any, atol: Any, ptol: Any, restart: int, maxiter: Any, M: Callable,
                   cycle: Callable) -> Any:
    """Restart `cycle` from its last solution until the preconditioned
    residual is at most `atol` or after `maxiter` cycles."""
    unit, norm = _safe_normalize(M(_minus(b, A(x0))))

    def going(state: tuple) -> Any:
        _, k, _, norm = state
        return (k < maxiter) & (norm > atol)

    def step(state: tuple) -> tuple:
        x, k, unit, norm = state
        x, unit, norm = cycle(A, b, x, unit, norm, ptol, restart, M)
        return x, k + 1, unit, norm

    return lax.while_loop(going, step, (x0, 0, unit, norm))[0]


def gmres(A: Any, b: Any, x0: Any = None, *, tol: Any = 1e-5, atol: Any = 0.0, restart: int = 20,
          maxiter: Any = None, M: Any = None, solve_method: str = "batched") -> tuple[Any, Any]:
    """Solve ``A x = b`` for a general `A` by GMRES restarted every `restart`
    steps, at most `maxiter` (default 10 * size of b) cycles, until
    ``norm(M (b - A x)) <= max(tol * norm(b), atol)``. `solve_method`
    "batched" solves each cycle's least-squares problem at its end;
    "incremental" keeps a QR factorization by Givens rotations and can stop
    within a cycle. Returns ``(x, info)``, info -1 when x has a NaN, else 0."""
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    M = _as_operator(_identity if M is None else M)
    A = _as_operator(A)
    b, x0 = device_put((b, x0))
    size = _size(b)
    if maxiter is None:
        maxiter = 10 * size  # SciPy's default
    restart = min(restart, size)
    _check_structure(x0, b)
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        cycle = _cycle_incremental
    elif solve_method == "batched":
        cycle = _cycle_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'")

    def solve(matvec: Callable, rhs: Any) -> Any:
        return _gmres_iterate(matvec, rhs, x0, atol, ptol, restart, maxiter, M, cycle)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    return x, jnp.where(jnp.isnan(_norm(x)), -1, 0)
