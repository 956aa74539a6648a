"""Choosing among items: gumbel, categorical, choice, permutation.

All four follow JAX 0.10's algorithms, so the same key gives the same items:

    gumbel       low:     -log(-log(uniform(tiny, 1)))
                 high:    two uniforms u1, u2; x = u1 if u1 >= 0.5 else
                          u1 + 2**-nmant * u2 + tiny; -log(-log1p(-x))
                 highest: (float32) 64 random bits read as a float in (0, 1)
                          with full precision near 0 and near 1
    categorical  with replacement: argmax(logits + gumbel) (Gumbel-max);
                 without: the top k of logits + gumbel (Gumbel top-k)
    permutation  rounds of "sort by fresh random uint32 keys" (a stable
                 sort), ceil(3 ln(size) / ln(2**32 - 1)) rounds, each with
                 `key, sub = split(key)`
    choice       randint (with replacement), a permutation's head (without),
                 searchsorted on cumsum(p) (p, with replacement), or the
                 Gumbel top-k of log(p) (p, without)

Top-k and argmax order floats as XLA does: top_k by the total order
(-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN), ties to the lower
index; argmax takes the first NaN, else the first maximum.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import core, dtypes, lax, numpy as jnp
from .._config import config
from ..api import jit
from ._keys import canonical_shape, key_bits, split_keys
from ._uniform import check_shape, float_dtype, key_data_of, randint, uniform_body

__all__ = ["categorical", "choice", "gumbel", "permutation"]

_GUMBEL_MODES = ("highest", "high", "low")

# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

def _check_arraylike(name: str, *args: Any) -> None:
    """JAX's TypeError for arguments that are not arrays or scalars (lists)."""
    for position, arg in enumerate(args):
        if not (isinstance(arg, (core.ArrayBase, np.ndarray, np.generic, bool, int, float, complex))
                or hasattr(arg, "__jax_array__")):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(arg)} "
                            f"at position {position}.")


def _canonical_axis(axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _concrete_int(x: Any, what: str) -> int:
    if isinstance(x, core.Tracer):
        raise core.ConcretizationTypeError(x, what)
    return int(x)


def _gumbel_mode(mode: Any) -> str:
    if mode is None:
        try:
            high = bool(config.read("jax_use_high_dynamic_range_gumbel"))
        except AttributeError:  # jaxc has no such option: JAX's default
            high = False
        mode = "high" if high else "low"
    if mode not in _GUMBEL_MODES:
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return mode


# ---------------------------------------------------------------------------
# gumbel
# ---------------------------------------------------------------------------

def _neg_log_neg(x: Any) -> Any:
    return lax.neg(lax.log(lax.neg(x)))


def _bits_to_unit_float32(bits: Any) -> Any:
    """uint32[2, ...] (high word, low word) -> float32 in (0, 1): the 64-bit
    fixed-point fraction rounded down, keeping 24 significant bits after the
    leading one wherever it is (JAX's _safe_int_to_float)."""
    u32 = np.uint32
    hi, lo = bits[0], bits[1]
    clz = lax.clz(bits)
    hiclz, loclz = clz[0], clz[1]
    hi_empty = lax.eq(hiclz, lax.full((), 32, u32))
    thirty_two = lax.full(hiclz.shape, 32, u32)
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax.select(hi_empty, lax.shift_left(lo, loclz),
                   lax.shift_right_logical(lo, lax.sub(thirty_two, hiclz))))  # shifts by 32 give 0
    mantissa = lax.shift_right_logical(mantissa, lax.full((), 32 - 23 - 1, u32))
    mantissa = lax.bitwise_and(mantissa, lax.full((), (1 << 23) - 1, u32))
    leading = lax.select(hi_empty, lax.add(thirty_two, loclz), hiclz)
    exponent = lax.shift_left(lax.sub(lax.full(hiclz.shape, 126, u32), leading), lax.full((), 23, u32))
    exponent = lax.bitwise_and(exponent, lax.full((), (1 << 30) - (1 << 22), u32))
    return lax.bitcast_convert_type(lax.bitwise_or(exponent, mantissa), np.float32)


def _gumbel_highest_f32(data: Any, shape: tuple[int, ...]) -> Any:
    u32 = np.uint32
    bits = key_bits(data, 32, (2, *shape))
    flipped = lax.bitwise_not(bits)
    # 1 - bits as a 64-bit fixed-point number: ~bits + 1, the carry to the high word
    carry = lax.convert_element_type(lax.eq(flipped[1], lax.full((), 0xFFFFFFFF, u32)), u32)
    increment = lax.concatenate([lax.expand_dims(carry, (0,)),
                                 lax.expand_dims(lax.full(carry.shape, 1, u32), (0,))], 0)
    flipped = lax.add(flipped, increment)
    small = lax.lt(bits[0], lax.full((), 1 << 31, u32))
    x = _bits_to_unit_float32(lax.select(jnp.broadcast_to(small, bits.shape), bits, flipped))
    # x in (0, 0.5): log1p(-x) keeps its precision; else log(x)
    return lax.select(small, _neg_log_neg(lax.log1p(lax.neg(x))), _neg_log_neg(lax.log(x)))


def gumbel_body(data: Any, shape: tuple[int, ...], dtype: np.dtype, mode: str) -> Any:
    """Standard Gumbel floats of `shape` from one key (traceable)."""
    info = dtypes.finfo(dtype)
    if mode == "highest" and dtype == np.float32:
        return _gumbel_highest_f32(data, shape)
    if mode in ("high", "highest"):
        u = uniform_body(data, (2, *shape), dtype, 0.0, 1.0)
        high, low = u[0], u[1]
        finer = lax.add(lax.add(high, lax.mul(lax.full((), 2.0 ** -info.nmant, dtype), low)),
                        lax.full((), info.tiny, dtype))
        x = lax.select(lax.ge(high, lax.full((), 0.5, dtype)), high, finer)
        return _neg_log_neg(lax.log1p(lax.neg(x)))
    u = uniform_body(data, shape, dtype, np.array(info.tiny, dtype), np.array(1.0, dtype))
    return _neg_log_neg(lax.log(u))


@jit(static_argnums=(1, 2, 3))
def _gumbel(data, shape, dtype, mode):
    return gumbel_body(data, shape, dtype, mode)


def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None, *,
           out_sharding: Any = None) -> Any:
    """Standard Gumbel floats (density exp(-(x + exp(-x)))); mode "high"
    or "highest" spends twice the bits on a finer tail."""
    data = key_data_of("gumbel", key)
    dtype = float_dtype(dtype, "gumbel")
    shape = canonical_shape(shape, "gumbel")
    return _gumbel(data, shape, dtype, _gumbel_mode(mode))


# ---------------------------------------------------------------------------
# categorical
# ---------------------------------------------------------------------------

@jit(static_argnums=(2, 3, 4, 5, 6))
def _categorical(data, logits, shape, batch_shape, axis, replace, mode):
    ndim = logits.ndim
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        axis = axis - ndim if axis >= 0 else axis
        sample_shape = list(shape[len(shape) - len(batch_shape):])
        sample_shape.insert(axis % ndim, logits.shape[axis])
        noise = gumbel_body(data, (*prefix, *sample_shape), logits.dtype, mode)
        return jnp.argmax(noise + lax.expand_dims(logits, tuple(range(len(prefix)))), axis=axis)
    perturbed = logits + gumbel_body(data, logits.shape, logits.dtype, mode)
    indices = lax.top_k(jnp.moveaxis(perturbed, axis, -1), math.prod(prefix))[1]
    # (*batch, k) -> (k, *batch) -> shape
    indices = lax.transpose(indices, (indices.ndim - 1, *range(indices.ndim - 1)))
    return lax.reshape(indices, shape)


def _check_categorical_shape(shape: tuple[int, ...], batch_shape: tuple[int, ...]) -> None:
    try:
        np.broadcast_shapes(shape, batch_shape)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes=[{shape}, {batch_shape}]") from None
    check_shape("categorical", shape, batch_shape)


def categorical(key: Any, logits: Any, axis: int = -1, shape: Sequence[int] | None = None,
                replace: bool = True, mode: str | None = None, *, out_sharding: Any = None) -> Any:
    """Indices drawn from the categorical distributions softmax(logits, axis)
    (default int dtype; int32 without replacement); `shape` must end with
    the batch shape, its leading axes count independent draws."""
    data = key_data_of("categorical", key)
    _check_arraylike("categorical", logits)
    logits = jnp.asarray(logits)
    batch_shape = tuple(int(d) for d in np.delete(np.array(logits.shape, dtype=np.int64), axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape(shape, "categorical")
        _check_categorical_shape(shape, batch_shape)
    float_dtype(logits.dtype, "gumbel")
    mode = _gumbel_mode(mode)
    axis = operator.index(axis)
    replace = bool(replace)
    if replace:
        if logits.shape[axis] == 0:
            raise ValueError("attempt to get argmax of an empty sequence")
    else:
        k = math.prod(shape[:len(shape) - len(batch_shape)])
        if k > logits.shape[axis]:
            raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                             f"categories ({logits.shape[axis]}).")
        if shape[len(shape) - len(batch_shape):] != batch_shape:
            raise AssertionError(f"categorical without replacement: shape {shape} must end with the "
                                 f"batch shape {batch_shape}")
    return _categorical(data, logits, shape, batch_shape, axis, replace, mode)


# ---------------------------------------------------------------------------
# permutation
# ---------------------------------------------------------------------------

def _shuffle_rounds(size: int) -> int:
    """Sorts by random 32-bit keys until collisions are unlikely to bias the
    result: ceil(3 ln(size) / ln(2**32 - 1)) (0 for one element or none)."""
    return int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))


def _shuffle_body(data: Any, x: Any, axis: int) -> Any:
    for _ in range(_shuffle_rounds(math.prod(x.shape))):
        keys = split_keys(data, (2,))
        data, sub = keys[0], keys[1]
        _, x = lax.sort_key_val(key_bits(sub, 32, x.shape), x, axis, is_stable=True)
    return x


@jit(static_argnums=(2,))
def _shuffle(data, x, axis):
    return _shuffle_body(data, x, axis)


@jit(static_argnums=(2, 3))
def _permutation(data, x, axis, independent):
    if independent or x.ndim == 1:
        return _shuffle_body(data, x, axis)
    order = _shuffle_body(data, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, order, axis=axis)


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False, *,
                out_sharding: Any = None) -> Any:
    """A random permutation of arange(x) (an int) or of x's slices along
    `axis` (each 1-D slice on its own with `independent=True`)."""
    data = key_data_of("permutation", key)
    _check_arraylike("permutation", x)
    axis = _canonical_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(jnp.asarray(x).dtype, np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = _concrete_int(x, "argument x of jax.random.permutation()")
        return _shuffle(data, jnp.arange(n), axis)
    return _permutation(data, jnp.asarray(x), axis, bool(independent))


# ---------------------------------------------------------------------------
# choice
# ---------------------------------------------------------------------------

@jit(static_argnums=(2,))
def _choice_cdf(data, p, shape):
    cdf = jnp.cumsum(p)
    total = cdf[-1]
    r = total * (1 - uniform_body(data, shape, cdf.dtype))
    return jnp.searchsorted(cdf, r).astype(dtypes.default_int())


@jit(static_argnums=(2, 3))
def _choice_gumbel(data, p, n_draws, mode):
    g = gumbel_body(data, p.shape, p.dtype, mode) + jnp.log(p)
    return lax.top_k(g, n_draws)[1].astype(dtypes.default_int())


def choice(key: Any, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None,
           axis: int = 0, mode: str | None = None) -> Any:
    """Samples of shape `shape` from arange(a) (an int) or from a's slices
    along `axis`, with or without replacement, uniformly or with
    probabilities `p`."""
    data = key_data_of("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    _check_arraylike("choice", a)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = _concrete_int(a, "The error occurred in jax.random.choice()")
    else:
        axis = _canonical_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    shape = canonical_shape(shape, "choice")
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
                         "when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(data._like(data._data), shape, 0, n_inputs)  # the draw of this call
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
        else:
            head = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(data._like(data._data), n_inputs if arr.ndim == 0 else arr, axis)[head]
    else:
        _check_arraylike("choice", p)
        p_arr = jnp.asarray(p)
        if not dtypes.issubdtype(p_arr.dtype, np.floating):
            p_arr = p_arr.astype(dtypes.to_inexact(p_arr.dtype))
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            ind = _choice_cdf(data, p_arr, shape)
        else:
            ind = _choice_gumbel(data, p_arr, n_draws, _gumbel_mode(mode))
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return result.reshape(out_shape)
