"""The samplers every other one builds on: uniform, normal, randint,
bernoulli, truncated_normal.

Each public function checks its arguments as JAX does, then calls a jitted
body with the shape and dtype static, so an eager call compiles once per
(shape, dtype) and a traced call inlines. The bodies follow JAX's
algorithms step by step, which is what makes the bits JAX's:

    uniform:  bits >> (nbits - nmant) | bits_of(1.0)  ->  float in [1, 2) - 1
              -> u * (maxval - minval) + minval, at least minval
    normal:   sqrt(2) * erf_inv(uniform(nextafter(-1, 0), 1))
    randint:  two draws of nbits from split keys, combined modulo the span
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes, lax, numpy as jnp
from ..api import jit
from ._keys import canonical_shape, check_key, key_bits, split_keys

UINT_OF_BITS: dict[int, np.dtype] = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                64: np.dtype(np.uint64)}


# ---------------------------------------------------------------------------
# Argument checks shared by the samplers
# ---------------------------------------------------------------------------

def float_dtype(dtype: Any, name: str, category: Any = np.floating, what: str = "a float") -> np.dtype:
    """The canonical float dtype a sampler computes in (default float32, or
    float64 with x64); ValueError naming the sampler otherwise."""
    dtype = dtypes.canonicalize(dtypes.default_float() if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, category):
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {dtype}")
    return dtype


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of `shapes`, or JAX's "Incompatible shapes" ValueError."""
    try:
        return tuple(np.broadcast_shapes(*map(tuple, shapes)))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}") \
            from None


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: Sequence[int]) -> None:
    """The parameters must broadcast to exactly `shape` (JAX's ValueErrors)."""
    if not param_shapes:
        return
    result = broadcast_shapes(shape, *param_shapes)
    if result != tuple(shape):
        raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                         f"and the result of broadcasting the shapes must equal the shape argument, "
                         f"but got result {result} for shape argument {tuple(shape)}.")


def shape_or_params(name: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """`shape` checked against the parameters' shapes, or their broadcast
    shape when `shape` is None."""
    shapes = [np.shape(p) for p in params]
    if shape is None:
        return broadcast_shapes(*shapes) if shapes else ()
    shape = canonical_shape(shape, name)
    check_shape(name, shape, *shapes)
    return shape


def check_safe_to_cast(name: str, dtype: np.dtype, *params: Any) -> None:
    """JAX's rule for sampler parameters: each must promote with `dtype`
    (strong) to `dtype` itself, so a float64 array or a complex value is a
    TypePromotionError; Python scalars are weak and always pass."""
    for param in params:
        if isinstance(param, complex) or np.dtype(getattr(param, "dtype", np.float32)).kind == "c":
            given = np.dtype(np.complex128 if dtypes.x64_enabled() else np.complex64)
        else:
            try:
                typed = dtypes.dtype_and_weak(param)
            except TypeError:
                typed = (dtypes.canonicalize(np.asarray(param).dtype), False)
            if typed[0] == dtype or dtypes.promote(typed, (dtype, False))[0] == dtype:
                continue
            given = typed[0]
        raise dtypes.TypePromotionError(f"In arguments to {name}, cannot safely cast argument of type "
                                        f"{given} to {dtype}")


def param_shape(name: str, dtype: np.dtype, shape: Any, *params: Any) -> tuple[int, ...]:
    """The checks of a sampler with float parameters, in JAX's order:
    `shape_or_params`, then `check_safe_to_cast`; returns the shape."""
    shape = shape_or_params(name, shape, *params)
    check_safe_to_cast(name, dtype, *params)
    return shape


def key_data_of(name: str, key: Any) -> Any:
    return check_key(name, key)[0]


# ---------------------------------------------------------------------------
# uniform
# ---------------------------------------------------------------------------

def uniform_body(data: Any, shape: tuple[int, ...], dtype: np.dtype, minval: Any = 0.0,
                 maxval: Any = 1.0) -> Any:
    """Floats in [minval, maxval) of `shape` from one key (traceable)."""
    info = dtypes.finfo(dtype)
    nbits, nmant = info.bits, info.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = UINT_OF_BITS[nbits]
    bits = key_bits(data, rng_bits, shape)
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint)
    one_bits = np.array(1.0, dtype).view(uint)
    mantissa = lax.shift_right_logical(bits, lax.full((), rng_bits - nmant, uint))
    floats = lax.bitcast_convert_type(lax.bitwise_or(mantissa, lax.full((), one_bits, uint)), dtype)
    floats = lax.sub(floats, lax.full((), 1.0, dtype))
    minval = jnp.broadcast_to(lax.convert_element_type(minval, dtype), shape)
    maxval = jnp.broadcast_to(lax.convert_element_type(maxval, dtype), shape)
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


@jit(static_argnums=(3, 4))
def _uniform(data, minval, maxval, shape, dtype):
    return uniform_body(data, shape, dtype, minval, maxval)


def uniform(key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0, *, out_sharding: Any = None) -> Any:
    """Uniform floats in [minval, maxval) (bounds broadcast to `shape`)."""
    data = key_data_of("uniform", key)
    dtype = float_dtype(dtype, "uniform")
    shape = canonical_shape(shape, "uniform")
    for bound in (minval, maxval):  # JAX finds these in its arithmetic: a TypeError
        try:
            fits = np.broadcast_shapes(np.shape(bound), shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise TypeError(f"mul got incompatible shapes for broadcasting: {shape}, {np.shape(bound)}.")
    return _uniform(data, minval, maxval, shape, dtype)


# ---------------------------------------------------------------------------
# normal
# ---------------------------------------------------------------------------

def normal_body(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Standard normal floats of `shape` from one key (traceable). A complex
    dtype takes its parts from the two halves of a split, each times
    1/sqrt(2) rounded to the part's dtype (variance 1 in all; XLA turns
    JAX's division by sqrt(2) into this product, so the bits agree)."""
    if dtypes.is_complex(dtype):
        part = dtypes.real_dtype(dtype)
        keys = split_keys(data, (2,))
        scale = lax.full(shape, 1 / np.sqrt(2), part)
        real, imag = (lax.mul(normal_body(keys[i], shape, part), scale) for i in (0, 1))
        return lax.complex(real, imag)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform_body(data, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(lax.full((), np.sqrt(2), dtype), lax.erf_inv(u))


@jit(static_argnums=(1, 2))
def _normal(data, shape, dtype):
    return normal_body(data, shape, dtype)


def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Standard normal floats."""
    data = key_data_of("normal", key)
    shape = canonical_shape(shape, "normal")
    dtype = float_dtype(dtype, "normal", np.inexact, "a float or complex")
    return _normal(data, shape, dtype)


# ---------------------------------------------------------------------------
# truncated_normal
# ---------------------------------------------------------------------------

@jit(static_argnums=(3, 4))
def _truncated_normal(data, lower, upper, shape, dtype):
    sqrt2 = lax.full((), np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, lax.erf_inv(uniform_body(data, shape, dtype, a, b)))
    lowest = lax.nextafter(lax.stop_gradient(lower), lax.full_like(lower, np.inf))
    highest = lax.nextafter(lax.stop_gradient(upper), lax.full_like(upper, -np.inf))
    return jnp.clip(out, lowest, highest)


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Any = None, dtype: Any = None, *,
                     out_sharding: Any = None) -> Any:
    """Standard normal floats truncated to the open interval (lower, upper)."""
    shape = shape_or_params("truncated_normal", shape, lower, upper)
    data = key_data_of("truncated_normal", key)
    dtype = float_dtype(dtype, "truncated_normal")
    return _truncated_normal(data, lower, upper, shape, dtype)


# ---------------------------------------------------------------------------
# bernoulli
# ---------------------------------------------------------------------------

@jit(static_argnums=(2, 3))
def _bernoulli(data, p, shape, mode):
    dtype = p.dtype
    if mode == "high":
        u = uniform_body(data, (2, *shape), dtype)
        u1, u2 = u[0], u[1]
        u2 = lax.mul(u2, lax.full((), 2.0 ** -dtypes.finfo(dtype).nmant, dtype))
        return lax.lt(u2, lax.sub(jnp.broadcast_to(p, shape), u1))
    return lax.lt(uniform_body(data, shape, dtype), jnp.broadcast_to(p, shape))


def bernoulli(key: Any, p: Any = 0.5, shape: Any = None, mode: str = "low", *,
              out_sharding: Any = None) -> Any:
    """Booleans that are True with probability `p`."""
    if shape is not None:
        shape = canonical_shape(shape, "bernoulli")
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data = key_data_of("bernoulli", key)
    p = jnp.asarray(p)
    if not dtypes.issubdtype(p.dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p.dtype}.")
    shape = shape_or_params("bernoulli", shape, p)
    return _bernoulli(data, p, shape, mode)


# ---------------------------------------------------------------------------
# randint
# ---------------------------------------------------------------------------

def _clip_convert(value: Any, dtype: np.dtype) -> Any:
    """An integer array converted to `dtype`, clipped to its range instead of
    wrapping."""
    lo = max(int(dtypes.iinfo(dtype).min), int(dtypes.iinfo(value.dtype).min))
    hi = min(int(dtypes.iinfo(dtype).max), int(dtypes.iinfo(value.dtype).max))
    clipped = lax.clamp(lax.full((), lo, value.dtype), value, lax.full((), hi, value.dtype))
    return lax.convert_element_type(clipped, dtype)


@jit(static_argnums=(3, 4))
def _randint(data, minval, maxval, shape, dtype):
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(dtypes.default_int())
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(dtypes.default_int())
    top = _clip_convert(jnp.asarray(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = jnp.broadcast_to(_clip_convert(minval, dtype), shape)
    maxval = jnp.broadcast_to(_clip_convert(maxval, dtype), shape)
    maxval_out_of_range = jnp.broadcast_to(maxval_out_of_range, shape)
    nbits = dtypes.iinfo(dtype).bits
    keys = split_keys(data, (2,))
    higher = key_bits(keys[0], nbits, shape)
    lower = key_bits(keys[1], nbits, shape)
    uint = UINT_OF_BITS[nbits]
    one = lax.full((), 1, uint)
    span = lax.convert_element_type(lax.sub(maxval, minval), uint)
    # span 1 when maxval <= minval (minval is returned); one more when maxval
    # was beyond the dtype (wraps to 0 at the full range: the rem is a no-op)
    span = lax.select(lax.le(maxval, minval), jnp.broadcast_to(one, shape), span)
    span = lax.select(lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)),
                      lax.add(span, jnp.broadcast_to(one, shape)), span)
    # (hi * 2**nbits + lo) % span with 2**nbits % span = ((2**(nbits/2)) % span)**2 % span
    multiplier = lax.rem(jnp.broadcast_to(lax.full((), 2 ** (nbits // 2), uint), shape), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """Integers in [minval, maxval), bounds clipped to the dtype's range (a
    maxval beyond it still reaches the dtype's maximum)."""
    data = key_data_of("randint", key)
    dtype = dtypes.canonicalize(dtypes.default_int() if dtype is None else dtype)
    shape = canonical_shape(shape, "randint")
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    info = dtypes.iinfo(dtype)
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    sampling = dtype
    if info.bits < 32:  # sample in 32 bits: less modulo bias
        sampling = np.dtype(np.int32)
        minval = jnp.clip(minval.astype(np.int32), int(info.min), int(info.max))
        maxval = jnp.clip(maxval.astype(np.int32), int(info.min), int(info.max) + 1)
    return _randint(data, minval, maxval, shape, sampling).astype(dtype)
