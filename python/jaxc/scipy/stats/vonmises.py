"""`jax.scipy.stats.vonmises`: the von Mises distribution on the circle."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as jnp
from .. import special
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, kappa: Any) -> Any:
    """kappa (cos(x) - 1) - log(2 pi i0e(kappa)); NaN where kappa <= 0."""
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    value = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * special.i0e(kappa))
    return jnp.where(kappa > 0, value, np.nan)


def pdf(x: Any, kappa: Any) -> Any:
    """exp(logpdf)."""
    return jnp.exp(logpdf(x, kappa))
