"""BFGS as `jax.scipy.optimize` runs it: Algorithm 6.1 of Nocedal and Wright,
'Numerical Optimization' (1999), pp. 136-143, one `lax.while_loop` over the
iterations, the step from `_line_search.line_search`."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ... import lax, numpy as jnp
from ..._autodiff import value_and_grad
from ._line_search import line_search

_HIGHEST = lax.Precision.HIGHEST


class BFGSResults(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    line_search_status: Any


def minimize_bfgs(fun: Callable, x0: Any, maxiter: int | None = None, norm: Any = np.inf, gtol: float = 1e-5,
                  line_search_maxiter: int = 10) -> tuple[BFGSResults, Any]:
    """Minimise `fun` from `x0` (1-D) until the `norm`-norm of the gradient
    is below `gtol`; returns the final state and the status code (0
    converged, 1 maxiter, 2 + line-search status when it failed, -1 other)."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    n = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    zero = jnp.asarray(0)
    state = BFGSResults(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=jnp.asarray(False), k=zero,
                        nfev=jnp.asarray(1), ngev=jnp.asarray(1), x_k=x0, f_k=f_0, g_k=g_0,
                        H_k=jnp.eye(n, dtype=x0.dtype), old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2,
                        line_search_status=zero)

    def body(s: BFGSResults) -> BFGSResults:
        p_k = -jnp.dot(s.H_k, s.g_k, precision=_HIGHEST)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval, gfk=s.g_k,
                         maxiter=line_search_maxiter)
        step = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho = jnp.reciprocal(jnp.dot(y_k, step, precision=_HIGHEST))
        w = jnp.eye(n, dtype=rho.dtype) - rho * step[:, None] * y_k[None, :]
        h_new = jnp.einsum("ij,jk,lk", w, s.H_k, w, precision=_HIGHEST) + rho * step[:, None] * step[None, :]
        return BFGSResults(converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol, failed=ls.failed, k=s.k + 1,
                           nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, x_k=s.x_k + step, f_k=ls.f_k, g_k=ls.g_k,
                           H_k=jnp.where(jnp.isfinite(rho), h_new, s.H_k), old_old_fval=s.f_k,
                           line_search_status=ls.status)

    state = lax.while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state, status
