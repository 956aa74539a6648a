"""The inexact line search of `jax.scipy.optimize`'s BFGS: strong Wolfe
conditions, Algorithm 3.5 (search) and 3.6 (zoom) of Nocedal and Wright,
'Numerical Optimization' (1999), pp. 59-61, as two `lax.while_loop`s with
JAX's constants, step choices and counters (so BFGS takes JAX's steps)."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, TypeVar

import numpy as np

from ... import lax, numpy as jnp
from ..._autodiff import value_and_grad
from ...numpy._util import promote_dtypes_inexact

_HIGHEST = lax.Precision.HIGHEST


_State = TypeVar("_State", bound=NamedTuple)


def _select(pred: Any, state: _State, **new: Any) -> _State:
    """`state` with the fields in `new` replaced where `pred` holds."""
    return state._replace(**{k: jnp.where(pred, v, getattr(state, k)) for k, v in new.items()})


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """Minimiser of the cubic through (a, fa) with slope fpa, (b, fb), (c, fc)."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    r1, r2 = fb - fa - fpa * db, fc - fa - fpa * dc
    big_a = (dc ** 2 * r1 - db ** 2 * r2) / denom
    big_b = (-dc ** 3 * r1 + db ** 3 * r2) / denom
    return a + (-big_b + jnp.sqrt(big_b * big_b - 3. * big_a * fpa)) / (3. * big_a)


def _quadmin(a, fa, fpa, b, fb):
    """Minimiser of the quadratic through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    return a - fpa / (2. * ((fb - fa - fpa * db) / db ** 2))


class _Zoom(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(phi_and_grad, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, g_0, skip):
    """Shrink [a_lo, a_hi] (cubic, then quadratic, then bisection steps) to a
    step meeting both Wolfe conditions; does nothing where `skip` holds."""
    false, zero = jnp.asarray(False), jnp.asarray(0)
    state = _Zoom(false, false, zero, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, (a_lo + a_hi) / 2.,
                  (phi_lo + phi_hi) / 2., jnp.ones_like(a_lo), phi_lo, dphi_lo, g_0, zero, zero)
    threshold = 1e-5 if jnp.finfo(a_lo.dtype).bits < 64 else 1e-10

    def body(s: _Zoom) -> _Zoom:
        dalpha = s.a_hi - s.a_lo
        lo, hi = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        s = s._replace(failed=s.failed | (dalpha <= threshold))
        a_cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > lo + 0.2 * dalpha) & (a_cubic < hi - 0.2 * dalpha)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > lo + 0.1 * dalpha) & (a_quad < hi - 0.1 * dalpha)
        a_j = jnp.where(use_cubic, a_cubic, jnp.where(use_quad, a_quad, (s.a_lo + s.a_hi) / 2.))
        phi_j, dphi_j, g_j = phi_and_grad(a_j)
        phi_j, dphi_j, g_j = (phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype),
                              g_j.astype(s.g_star.dtype))
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j

        s = _select(hi_to_j, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _select(star_to_j, s, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = s._replace(done=s.done | star_to_j)
        s = _select(hi_to_lo, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _select(lo_to_j & ~hi_to_lo, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _select(lo_to_j, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        return s._replace(j=s.j + 1, failed=s.failed | (s.j + 1 >= 30))

    return lax.while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, state)


class _Search(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """Outcome of `line_search`: `a_k` the step, `f_k`/`g_k` the value and
    gradient there; status 0 passed, 1 zoom failed, 3 maxiter reached."""
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f: Callable, xk: Any, pk: Any, old_fval: Any = None, old_old_fval: Any = None, gfk: Any = None,
                c1: float = 1e-4, c2: float = 0.9, maxiter: int = 20) -> LineSearchResults:
    """Inexact line search from `xk` along the descent direction `pk` for a
    step meeting the strong Wolfe conditions (constants c1, c2)."""
    xk, pk = promote_dtypes_inexact("line_search", xk, pk)
    dtype = pk.dtype

    def phi_and_grad(t):
        phi, g = value_and_grad(f)(xk + jnp.asarray(t, dtype=dtype) * pk)
        return phi, jnp.real(jnp.dot(g, pk, precision=_HIGHEST)), g

    given = old_fval is not None and gfk is not None
    if given:
        phi_0, dphi_0 = jnp.asarray(old_fval), jnp.real(jnp.dot(gfk, pk, precision=_HIGHEST))
    else:
        phi_0, dphi_0, gfk = phi_and_grad(0.)
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = jnp.where(candidate > 1, 1.0, candidate).astype(dtype)
    else:
        start = jnp.asarray(1.0, dtype=dtype)

    def wolfe_one(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    count = jnp.asarray(0 if given else 1)
    state = _Search(jnp.asarray(False), jnp.asarray(False), jnp.asarray(1), jnp.zeros((), dtype), phi_0, dphi_0,
                    count, count, jnp.zeros((), dtype), phi_0, dphi_0, gfk)

    def body(s: _Search) -> _Search:
        a_i = jnp.where(s.i == 1, start, s.a_i1 * 2.)
        phi_i, dphi_i, g_i = phi_and_grad(a_i)
        to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        to_i = wolfe_two(dphi_i) & ~to_zoom1
        to_zoom2 = (dphi_i >= 0.) & ~to_zoom1 & ~to_i
        z1 = _zoom(phi_and_grad, wolfe_one, wolfe_two, s.a_i1, s.phi_i1, s.dphi_i1, a_i, phi_i, dphi_i, gfk,
                   ~to_zoom1)
        z2 = _zoom(phi_and_grad, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, s.a_i1, s.phi_i1, s.dphi_i1, gfk,
                   ~to_zoom2)
        s = s._replace(nfev=s.nfev + 1 + z1.nfev + z2.nfev, ngev=s.ngev + 1 + z1.ngev + z2.ngev,
                       done=s.done | to_zoom1 | to_i | to_zoom2,
                       failed=s.failed | (to_zoom1 & z1.failed) | (to_zoom2 & z2.failed))
        s = _select(to_zoom1, s, a_star=z1.a_star, phi_star=z1.phi_star, dphi_star=z1.dphi_star, g_star=z1.g_star)
        s = _select(to_i, s, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
        s = _select(to_zoom2, s, a_star=z2.a_star, phi_star=z2.phi_star, dphi_star=z2.dphi_star, g_star=z2.g_star)
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = jnp.where(state.failed, 1, jnp.where(state.i > maxiter, 3, 0))
    a_k = state.a_star
    if np.dtype(a_k.dtype).itemsize * 8 != 64:  # JAX keeps float32 steps away from 0
        a_k = jnp.where(jnp.abs(a_k) < 1e-8, jnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResults(failed=state.failed | ~state.done, nit=state.i - 1, nfev=state.nfev, ngev=state.ngev,
                             k=state.i, a_k=a_k, f_k=state.phi_star, g_k=state.g_star, status=status)
