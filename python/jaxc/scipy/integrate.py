"""`jaxc.scipy.integrate`: `trapezoid`, the trapezoidal rule of
`jax.scipy.integrate` (the same as `jaxc.numpy.trapezoid`).

    area = jaxc.scipy.integrate.trapezoid(y, x)        # irregular grid
    area = jaxc.scipy.integrate.trapezoid(y, dx=0.1)   # spacing 0.1
"""
from __future__ import annotations

from typing import Any

from .. import numpy as jnp

__all__ = ["trapezoid"]


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """Integrate `y` along `axis` by the trapezoidal rule, at the sample
    points `x` or (when `x` is None) with spacing `dx`."""
    return jnp.trapezoid(y, x, dx, axis)
