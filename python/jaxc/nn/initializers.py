"""`jaxc.nn.initializers`: the weight initializers of `jax.nn.initializers`.

    from jaxc.nn import initializers
    init = initializers.glorot_uniform()
    w = init(random.PRNGKey(0), (784, 512))          # JAX's numbers for the same key

An initializer is a function `init(key, shape, dtype=None)` returning an
array of `shape` (dtype defaults to the default float: float32, or float64
with x64). The builders (`uniform(scale)`, `variance_scaling(...)`,
`orthogonal()`, ...) return initializers; `zeros` and `ones` are
initializers themselves. Each draws its numbers with `jaxc.random` in the
same order and with the same float steps as JAX 0.10, so the same key gives
the same array: exactly for the uniform-based ones, to jaxc's `erf_inv`
(a few ulps) for the normal ones, and to the QR's rounding for
`orthogonal` (see docs/nn.md). They work eagerly and under `jit`/`vmap`.
"""
from __future__ import annotations

import math
import operator
import typing
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .. import dtypes, numpy as jnp, random

Array = Any
Shape = Sequence[int]
DTypeLikeInexact = Any
RealNumeric = Any

# The standard deviation of a standard normal truncated to (-2, 2): dividing
# by it makes the truncated samples' standard deviation the requested one.
_TRUNCATED_STDDEV = 0.87962566103423978


@typing.runtime_checkable
class Initializer(Protocol):
    """What the builders return: `init(key, shape, dtype=None, out_sharding=None)`."""

    def __call__(self, key: Array, shape: Shape, dtype: DTypeLikeInexact | None = None,
                 out_sharding: Any = None) -> Array:
        raise NotImplementedError


def _dtype(dtype: Any) -> Any:
    return dtypes.default_float() if dtype is None else dtype


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.") \
            from None


# -- constant initializers ------------------------------------------------------------

def zeros(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = None, out_sharding: Any = None) -> Array:
    """An array of zeros (the key is not used)."""
    return jnp.zeros(shape, _dtype(dtype))


def ones(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = None, out_sharding: Any = None) -> Array:
    """An array of ones (the key is not used)."""
    return jnp.ones(shape, _dtype(dtype))


def constant(value: Any, dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer filling its arrays with `value` (`dtype`: its default dtype)."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return init


# -- random initializers -----------------------------------------------------------------

def uniform(scale: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer drawing uniformly from [0, scale)."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        dtype = _dtype(dtype)
        sample = random.uniform(key, shape, dtype)
        return sample * jnp.array(scale, dtype)
    return init


def normal(stddev: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer drawing from a normal distribution with mean 0 and
    standard deviation `stddev`."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        dtype = _dtype(dtype)
        sample = random.normal(key, shape, dtype)
        return sample * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None, lower: RealNumeric = -2.0,
                     upper: RealNumeric = 2.0) -> Initializer:
    """An initializer drawing standard normals truncated to (lower, upper),
    then multiplied by `stddev` (no correction of the truncated variance:
    that is what `variance_scaling` adds)."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        dtype = _dtype(dtype)
        sample = random.truncated_normal(key, lower, upper, shape, dtype)
        return sample * jnp.array(stddev, dtype)
    return init


# -- variance scaling ---------------------------------------------------------------------

def _axes_size(shape: tuple[int, ...], axes: int | Sequence[int]) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[a] for a in axes)


def _compute_fans(shape: Sequence[int], in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = ()) -> tuple[float, float]:
    """(fan_in, fan_out) of a weight array: the sizes of the input and output
    axes, each times the receptive field (the product of every axis that is
    neither input, output nor batch). Floats, as in JAX."""
    shape = tuple(shape)
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) < 2:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor "
                         "with the default in_axis: give a shape of at least 2 dimensions, or in_axis.")
    in_size = _axes_size(shape, in_axis)
    out_size = _axes_size(shape, out_axis)
    batch_size = _axes_size(shape, batch_axis)
    # Python floats, divided one at a time in this order: the rounding is JAX's.
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(scale: RealNumeric, mode: str, distribution: str, in_axis: int | Sequence[int] = -2,
                     out_axis: int | Sequence[int] = -1, batch_axis: int | Sequence[int] = (),
                     dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer whose samples have variance `scale / n`, n chosen by
    `mode` from the weight shape's fans ("fan_in", "fan_out", "fan_avg": their
    mean, "fan_geo_avg": their geometric mean); `distribution` is
    "truncated_normal" (truncated at 2 standard deviations, rescaled so that
    the truncated variance is the target), "normal" or "uniform" (on
    [-sqrt(3 scale / n), sqrt(3 scale / n))). Axes that are neither
    `in_axis`, `out_axis` nor `batch_axis` count as the receptive field.
    A bad `mode` or `distribution` is a ValueError when the initializer is
    called, as in JAX."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode} (one of {_MODES})")
        # scale / n in Python floats, rounded once to the dtype; the square
        # roots and the products are then in the dtype, as in JAX.
        variance = jnp.array(scale / denominator, dtype=dtype)
        if distribution == "truncated_normal":
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution} "
                         f"(one of {_DISTRIBUTIONS})")
    return init


def glorot_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                   batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """Glorot (Xavier) uniform: variance_scaling(1, "fan_avg", "uniform")."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis=in_axis, out_axis=out_axis, batch_axis=batch_axis,
                            dtype=dtype)


def glorot_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """Glorot (Xavier) normal: variance_scaling(1, "fan_avg", "truncated_normal")."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def lecun_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """LeCun uniform: variance_scaling(1, "fan_in", "uniform")."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis, batch_axis=batch_axis,
                            dtype=dtype)


def lecun_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                 batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """LeCun normal: variance_scaling(1, "fan_in", "truncated_normal")."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def he_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
               batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """He (Kaiming) uniform: variance_scaling(2, "fan_in", "uniform")."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis, batch_axis=batch_axis,
                            dtype=dtype)


def he_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
              batch_axis: int | Sequence[int] = (), dtype: DTypeLikeInexact | None = None) -> Initializer:
    """He (Kaiming) normal: variance_scaling(2, "fan_in", "truncated_normal")."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


# -- orthogonal ----------------------------------------------------------------------------

def orthogonal(scale: RealNumeric = 1.0, column_axis: int = -1, dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer of (semi-)orthogonal matrices times `scale`: the array
    seen as a matrix whose columns run along `column_axis` (the other axes
    flattened into rows) has orthonormal rows or columns, whichever are
    fewer. The shape needs at least 2 dimensions (ValueError)."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        if out_sharding is not None:
            raise NotImplementedError("nn.initializers.orthogonal: out_sharding is not supported")
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(f"the orthogonal initializer needs a shape of at least 2 dimensions, got {shape}")
        if 0 in shape:
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        axis = column_axis % len(shape)
        rows_shape = shape[:axis] + shape[axis + 1:]
        q = jnp.moveaxis(jnp.reshape(q, rows_shape + (n_cols,)), -1, column_axis)
        return jnp.array(scale, dtype) * q
    return init


def delta_orthogonal(scale: RealNumeric = 1.0, column_axis: int = -1,
                     dtype: DTypeLikeInexact | None = None) -> Initializer:
    """An initializer of delta-orthogonal convolution kernels (Xiao et al.
    2018): zeros except at the spatial centre, which holds an orthogonal
    (in_channels, out_channels) matrix. The shape must be 3-, 4- or 5-D
    (spatial axes first) with in_channels <= out_channels (ValueError)."""
    default = dtype

    def init(key: Array, shape: Shape, dtype: DTypeLikeInexact | None = default, out_sharding: Any = None) -> Array:
        if out_sharding is not None:
            raise NotImplementedError("nn.initializers.delta_orthogonal: out_sharding is not supported")
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"the delta orthogonal initializer needs a 3-, 4- or 5-D shape, got {shape}")
        if shape[-1] < shape[-2]:
            raise ValueError(f"the delta orthogonal initializer needs fan_in <= fan_out (shape[-2] <= shape[-1]), "
                             f"got {shape}")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(matrix)
    return init


__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
           "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
           "orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform",
           "zeros"]
