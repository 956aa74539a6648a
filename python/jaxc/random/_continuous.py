"""Samplers that transform uniform or normal draws in closed form: exponential,
laplace, logistic, cauchy, pareto, rayleigh, maxwell, double_sided_maxwell,
weibull_min, rademacher, lognormal, triangular, wald.

Each follows JAX's algorithm step by step (the same draws from the same
keys, the same float operations in the same order), so the bits are JAX's
up to the last ulp of our transcendental functions:

    exponential           -log1p(-u),                      u ~ U[0, 1)
    laplace               sign(u) * log1p(-|u|),           u ~ U[-1 + epsneg, 1)
    logistic              log(u) - log1p(-u),              u = max(tiny, U[0, 1))
    cauchy                tan(pi * (u - 1/2)),             u ~ U[eps, 1)
    pareto                exp(exponential / b)
    rayleigh              scale * sqrt(-2 * log(u))
    maxwell               |z| of z ~ N(0, 1)^3
    double_sided_maxwell  rademacher * maxwell * scale + loc    (key split in 2)
    weibull_min           (-log1p(-u)) ** (1 / concentration) * scale
    rademacher            2 * bernoulli(1/2) - 1
    lognormal             exp(sigma * normal)
    triangular            inverse CDF of the triangle (left, mode, right)
    wald                  Michael-Schucany-Haas: a normal and a uniform  (key split in 2)

Where XLA's rewrites change JAX's numbers, we follow what XLA computes
(logistic's lower bound, pareto's division by a broadcast b: see there).

As in JAX, the functions whose `shape` defaults to None take
the parameters' broadcast shape, and pareto, rayleigh, wald, triangular and
lognormal refuse parameters that cannot be cast to `dtype` without losing
precision (TypePromotionError, a ValueError).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax, numpy as jnp
from ..api import jit
from ._keys import canonical_shape, split_keys
from ._uniform import float_dtype, key_data_of, normal_body, param_shape, uniform_body

__all__ = ["cauchy", "double_sided_maxwell", "exponential", "laplace", "logistic", "lognormal",
           "maxwell", "pareto", "rademacher", "rayleigh", "triangular", "wald", "weibull_min"]


def _broadcast(shapes: Sequence[tuple[int, ...]], op: str | None = None) -> tuple[int, ...]:
    """The broadcast of `shapes`, or JAX's error: for two shapes of one rank
    meeting in the lax operation `op`, a TypeError naming it; otherwise the
    "Incompatible shapes" ValueError."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        if op is not None and len({len(s) for s in shapes}) == 1:
            raise TypeError(f"{op} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, shapes))}.") from None
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None


def _const(dtype: np.dtype, value: Any) -> Any:
    return lax.full((), value, dtype)


def _param(value: Any, dtype: np.dtype, shape: tuple[int, ...]) -> Any:
    """A parameter converted to `dtype` and broadcast to `shape`."""
    return jnp.broadcast_to(lax.convert_element_type(value, dtype), shape)


# ---------------------------------------------------------------------------
# From one uniform draw, no parameters
# ---------------------------------------------------------------------------

def exponential_body(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Standard exponential floats (traceable): -log1p(-u), u in [0, 1)."""
    u = uniform_body(data, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


@jit(static_argnums=(1, 2))
def _exponential(data, shape, dtype):
    return exponential_body(data, shape, dtype)


def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
                out_sharding: Any = None) -> Any:
    """Standard exponential floats: density exp(-x) on [0, inf)."""
    data = key_data_of("exponential", key)
    dtype = float_dtype(dtype, "exponential")
    return _exponential(data, canonical_shape(shape, "exponential"), dtype)


@jit(static_argnums=(1, 2))
def _laplace(data, shape, dtype):
    lo = _const(dtype, -1.0 + dtypes.finfo(dtype).epsneg)
    u = uniform_body(data, shape, dtype, lo, _const(dtype, 1.0))
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def laplace(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """Standard Laplace floats: density exp(-|x|) / 2."""
    data = key_data_of("laplace", key)
    dtype = float_dtype(dtype, "laplace")
    return _laplace(data, canonical_shape(shape, "laplace"), dtype)


@jit(static_argnums=(1, 2))
def _logistic(data, shape, dtype):
    # JAX draws u ~ U[tiny, 1): max(tiny, f * (1 - tiny) + tiny) for f in
    # [0, 1). XLA folds 1 - tiny to 1 and reassociates (bits - 1) + tiny
    # into bits + (-1 + tiny) = bits - 1, so what JAX computes is
    # max(tiny, f). That is the same number except in float16, whose tiny
    # (2**-14) is not lost when added to f >= 2**-10; we give JAX's numbers.
    u = lax.max(_const(dtype, dtypes.finfo(dtype).tiny), uniform_body(data, shape, dtype))
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


def logistic(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
             out_sharding: Any = None) -> Any:
    """Standard logistic floats: density exp(-x) / (1 + exp(-x))**2."""
    data = key_data_of("logistic", key)
    dtype = float_dtype(dtype, "logistic")
    return _logistic(data, canonical_shape(shape, "logistic"), dtype)


@jit(static_argnums=(1, 2))
def _cauchy(data, shape, dtype):
    u = uniform_body(data, shape, dtype, _const(dtype, dtypes.finfo(dtype).eps), _const(dtype, 1.0))
    return lax.tan(lax.mul(_const(dtype, np.pi), lax.sub(u, _const(dtype, 0.5))))


def cauchy(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
           out_sharding: Any = None) -> Any:
    """Standard Cauchy floats: density proportional to 1 / (x**2 + 1)."""
    data = key_data_of("cauchy", key)
    dtype = float_dtype(dtype, "cauchy")
    return _cauchy(data, canonical_shape(shape, "cauchy"), dtype)


# ---------------------------------------------------------------------------
# One parameter, shape defaulting to the parameter's
# ---------------------------------------------------------------------------

@jit(static_argnums=(2, 3))
def _pareto(data, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = exponential_body(data, shape, dtype)
    if tuple(b.shape) != tuple(shape) and dtype != dtypes.bfloat16:
        # XLA on CPU divides by a broadcast divisor as a product with its
        # reciprocal (1 / b rounded to dtype, then broadcast): JAX's numbers
        # for a b smaller than `shape`, e.g. a scalar. bfloat16 is computed
        # in float32 there, where the rounded product is the exact quotient's.
        return jnp.exp(jnp.multiply(e, lax.div(lax.full_like(b, 1), b)))
    return jnp.exp(lax.div(e, b))


def pareto(key: Any, b: Any, shape: Any = None, dtype: Any = None, *,
           out_sharding: Any = None) -> Any:
    """Pareto floats: density b / x**(b + 1) on [1, inf)."""
    data = key_data_of("pareto", key)
    dtype = float_dtype(dtype, "pareto")
    shape = param_shape("pareto", dtype, shape, b)
    return _pareto(data, b, shape, dtype)


@jit(static_argnums=(2, 3))
def _rayleigh(data, scale, shape, dtype):
    u = uniform_body(data, shape, dtype)
    scale = _param(scale, dtype, shape)
    root = lax.sqrt(lax.mul(lax.log(u), _const(dtype, -2)))
    return lax.mul(scale, root)


def rayleigh(key: Any, scale: Any, shape: Any = None, dtype: Any = None, *,
             out_sharding: Any = None) -> Any:
    """Rayleigh floats: density proportional to x exp(-x**2 / (2 scale**2))."""
    data = key_data_of("rayleigh", key)
    dtype = float_dtype(dtype, "rayleigh")
    shape = param_shape("rayleigh", dtype, shape, scale)
    return _rayleigh(data, scale, shape, dtype)


@jit(static_argnums=(2, 3))
def _lognormal(data, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return jnp.exp(jnp.multiply(normal_body(data, shape, dtype), sigma))


def lognormal(key: Any, sigma: Any = np.float32(1), shape: Any = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """Lognormal floats: exp(sigma * z) for standard normal z."""
    data = key_data_of("lognormal", key)
    dtype = float_dtype(dtype, "lognormal", np.inexact, "a float or complex")
    shape = param_shape("lognormal", dtype, shape, sigma)
    return _lognormal(data, sigma, shape, dtype)


@jit(static_argnums=(2, 3))
def _wald(data, mean, shape, dtype):
    keys = split_keys(data, (2,))
    mean = _param(mean, dtype, shape)
    v = normal_body(keys[0], shape, dtype)
    z = uniform_body(keys[1], shape, dtype)
    y = lax.mul(v, v)
    y_sq = lax.mul(y, y)
    mean_sq = lax.mul(mean, mean)
    two = _const(dtype, 2)
    root = lax.sqrt(lax.add(lax.mul(lax.mul(_const(dtype, 4), mean), y), lax.mul(mean_sq, y_sq)))
    x = lax.sub(lax.add(mean, lax.div(lax.mul(mean_sq, y), two)), lax.mul(lax.div(mean, two), root))
    return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


def wald(key: Any, mean: Any, shape: Any = None, dtype: Any = None, *,
         out_sharding: Any = None) -> Any:
    """Wald (inverse Gaussian) floats of mean `mean` and shape parameter 1."""
    data = key_data_of("wald", key)
    dtype = float_dtype(dtype, "wald")
    shape = param_shape("wald", dtype, shape, mean)
    return _wald(data, mean, shape, dtype)


@jit(static_argnums=(4, 5))
def _triangular(data, left, mode, right, shape, dtype):
    left = _param(left, dtype, shape)
    right = _param(right, dtype, shape)
    mode = _param(mode, dtype, shape)
    width = lax.sub(right, left)
    below = lax.div(lax.sub(mode, left), width)
    u = uniform_body(data, shape, dtype)
    one = _const(dtype, 1)
    rising = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, width), lax.sub(mode, left))))
    falling = lax.sub(right, lax.sqrt(lax.mul(lax.mul(lax.sub(one, u), width), lax.sub(right, mode))))
    return lax.select(lax.lt(u, below), rising, falling)


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Any = None, dtype: Any = None, *,
               out_sharding: Any = None) -> Any:
    """Triangular floats on [left, right] peaking at `mode`."""
    data = key_data_of("triangular", key)
    dtype = float_dtype(dtype, "triangular")
    shape = param_shape("triangular", dtype, shape, left, mode, right)
    return _triangular(data, left, mode, right, shape, dtype)


# ---------------------------------------------------------------------------
# Maxwell, Rademacher, and the two with a prepended `shape`
# ---------------------------------------------------------------------------

def maxwell_body(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """One-sided Maxwell floats (traceable): the norm of 3 standard normals."""
    return jnp.linalg.norm(normal_body(data, (*shape, 3), dtype), axis=-1)


@jit(static_argnums=(1, 2))
def _maxwell(data, shape, dtype):
    return maxwell_body(data, shape, dtype)


def maxwell(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """One-sided Maxwell floats: density proportional to x**2 exp(-x**2 / 2)."""
    data = key_data_of("maxwell", key)
    dtype = float_dtype(dtype, "maxwell")
    return _maxwell(data, canonical_shape(shape, "maxwell"), dtype)


def rademacher_body(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """-1 or 1 of `dtype` (traceable): 2 * bernoulli(p=1/2) - 1, where the
    bernoulli draws a uniform of the default float dtype, as JAX's."""
    half = jnp.asarray(0.5)
    coin = lax.lt(uniform_body(data, shape, half.dtype), half).astype(dtype)
    return (2 * coin - 1).astype(dtype)


@jit(static_argnums=(1, 2))
def _rademacher(data, shape, dtype):
    return rademacher_body(data, shape, dtype)


def rademacher(key: Any, shape: Sequence[int] = (), dtype: Any = None, *,
               out_sharding: Any = None) -> Any:
    """-1 or 1 with equal probability (default int dtype)."""
    data = key_data_of("rademacher", key)
    dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
    return _rademacher(data, canonical_shape(shape, "rademacher"), dtype)


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(data, loc, scale, shape, dtype):
    param_shape = _broadcast([np.shape(loc), np.shape(scale)])
    # as JAX: an empty `shape` becomes the parameters' shape, and the
    # parameters' shape is then appended to it (so () with (3,) gives (3, 3))
    shape = (*(shape or param_shape), *param_shape)
    keys = split_keys(data, (2,))
    magnitude = maxwell_body(keys[0], shape, dtype)
    sign = rademacher_body(keys[1], shape, dtype)
    return sign * magnitude * scale + loc


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Sequence[int] = (),
                         dtype: Any = None) -> Any:
    """Double-sided Maxwell floats: density proportional to z**2 exp(-z**2 / 2),
    z = (x - loc) / scale, of shape `shape + broadcast(loc, scale).shape`."""
    data = key_data_of("double_sided_maxwell", key)
    dtype = float_dtype(dtype, "double_sided_maxwell")
    _broadcast([np.shape(loc), np.shape(scale)])
    return _double_sided_maxwell(data, loc, scale, canonical_shape(shape, "double_sided_maxwell"),
                                 dtype)


@jit(static_argnums=(3, 4))
def _weibull_min(data, scale, concentration, shape, dtype):
    u = uniform_body(data, shape, dtype)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Sequence[int] = (),
                dtype: Any = None) -> Any:
    """Weibull floats: density proportional to x**(c - 1) exp(-(x / scale)**c),
    c = concentration (the result broadcasts `shape` with the parameters)."""
    data = key_data_of("weibull_min", key)
    dtype = float_dtype(dtype, "weibull_min")
    shape = canonical_shape(shape, "weibull_min")
    powered = _broadcast([shape, np.shape(concentration)], "pow")
    _broadcast([powered, np.shape(scale)], "mul")
    return _weibull_min(data, scale, concentration, shape, dtype)
