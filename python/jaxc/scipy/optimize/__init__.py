"""`jaxc.scipy.optimize`: `minimize` with method="BFGS" (and JAX's
"l-bfgs-experimental-do-not-rely-on-this" left out), returning
`OptimizeResults`; gradients by `jaxc.grad`, iterations in `lax.while_loop`,
so it runs under `jaxc.jit`, with the line search and steps of JAX 0.10.2.

    def rosen(x):
        return jnp.sum(100. * (x[1:] - x[:-1] ** 2) ** 2 + (1. - x[:-1]) ** 2)
    res = jaxc.scipy.optimize.minimize(rosen, jnp.zeros(3), method="BFGS")
    res.x, res.success, res.nit
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from ... import numpy as jnp
from ._bfgs import minimize_bfgs

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
    """Result of `minimize`: solution `x`, `success`, `status` (0 converged,
    1 max BFGS iterations, 3 zoom failed, 4 saddle point, 5 max line-search
    iterations, -1 undefined), value `fun`, gradient `jac`, inverse-Hessian
    estimate `hess_inv`, and the counts `nfev`, `njev`, `nit`."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun: Callable, x0: Any, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimise the scalar `fun(x, *args)` from the 1-D `x0`. `method` is
    required ("BFGS"); `options` are the solver's (maxiter, norm, gtol,
    line_search_maxiter); `tol` is accepted and, as in JAX, unused."""
    if options is None:
        options = {}
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    if method.lower() == "bfgs":
        state, status = minimize_bfgs(lambda x: fun(x, *args), x0, **options)
        return OptimizeResults(x=state.x_k, success=state.converged & jnp.logical_not(state.failed), status=status,
                               fun=state.f_k, jac=state.g_k, hess_inv=state.H_k, nfev=state.nfev,
                               njev=state.ngev, nit=state.k)
    raise ValueError(f"Method {method} not recognized")
