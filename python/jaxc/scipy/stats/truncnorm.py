"""`jax.scipy.stats.truncnorm`: the normal distribution truncated to [a, b]
(in standard units: the support is [loc + a scale, loc + b scale])."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from ...api import jit
from .. import special
from . import norm
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _log_diff(x: Any, y: Any) -> Any:
    """log(exp(x) - exp(y))."""
    return special.logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a: Any, b: Any) -> Any:
    """log(ndtr(b) - ndtr(a)), from whichever tail or the centre keeps precision."""
    a, b = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
    case_left = b <= 0
    case_right = a > 0
    a_tail = jnp.where(case_right, -b, a)
    b_tail = jnp.where(case_right, -a, b)
    mass_tail = _log_diff(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
    mass_central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return jnp.where(~(case_left | case_right), mass_central, mass_tail)


@jit
def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """norm.logpdf - log(mass of [a, b]); -inf outside [a, b]; NaN where a >= b."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    x_scaled = (x - loc) / scale
    val = jnp.where((x_scaled < a) | (x_scaled > b), -np.inf, val)
    return jnp.where(a >= b, np.nan, val)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


@jit
def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """logcdf(-x, -b, -a, -loc, scale)."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@jit
def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logsf)."""
    return jnp.exp(logsf(x, a, b, loc, scale))


@jit
def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """log(mass of [a, x]) - log(mass of [a, b]), or log1p(-sf) where that is
    above -0.1; 0 above b, -inf below a, NaN where a >= b."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x = (x - loc) / scale
    lgm_ab = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, x) - lgm_ab
    log_sf = _log_gauss_mass(x, b) - lgm_ab
    log_cdf = jnp.select([x >= b, x <= a, log_cdf > -0.1, x > a],
                         [jnp.zeros_like(x), jnp.full_like(x, -np.inf), jnp.log1p(-jnp.exp(log_sf)), log_cdf])
    return jnp.where(a >= b, np.nan, log_cdf)


@jit
def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """exp(logcdf)."""
    return jnp.exp(logcdf(x, a, b, loc, scale))
