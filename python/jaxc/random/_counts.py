"""Count samplers: poisson, binomial, geometric, multinomial.

Each follows JAX 0.10's algorithm draw for draw, so a key gives JAX's
counts:

    poisson      lam < 10 (or NaN): Knuth -- multiply uniforms (add their
                 logs) until the product drops below exp(-lam); else
                 Hormann's transformed rejection (PTRS). Both run over the
                 whole array (a `while_loop` until every element is done)
                 and a select picks per element; lam == 0 gives 0.
    binomial     n * min(p, 1 - p) <= 10: inversion (count geometric
                 waiting times until they pass n); else Kachitvichyanukul
                 and Schmeiser's BTRS. Computed with q = min(p, 1 - p) and
                 mirrored back (n - k) when p >= 0.5; NaN for p < 0, p > 1,
                 NaN p, n < 0 or NaN n; inf for n = inf.
    geometric    floor(log(u) / log1p(-p)) + 1 (u == 0 read as 1).
    multinomial  a scan over the categories: binomial(remaining trials,
                 p_i / sum of p_j for j >= i), one split key per category.

As in JAX: both algorithms of a sampler run on the whole array, the lanes
of the other regime with stand-in parameters (lam = 1e5; n = 1e4, q = 1/2);
a loop runs until every lane is done, and a rejection lane keeps the count
of the last round that accepted it, not the first. The rejection loops draw
from `split(key, 3)` per round (the first key carries on), Knuth and the
inversion from `split(key)` (Knuth carries the first key, the inversion the
second). Poisson computes in float32, binomial and geometric in the float
type of `p`; multinomial's sums of the remaining probabilities add in the
order of JAX's reverse cumsum on the CPU.

Knuth, the inversion, geometric and multinomial's bookkeeping give JAX's
numbers. The rejection steps compare two computed log densities; XLA fuses
a*b + c into an FMA and has its own log and lgamma, so an acceptance within
a few ulps can go the other way (about 1e-3 of samples at lam = 3000,
fewer for smaller lam and for binomial; see tests/python/test_random_counts.py).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import core, dtypes, lax, numpy as jnp
from ..api import jit
from ..numpy._util import promote_dtypes_inexact
from ._keys import check_key, split_keys
from ._uniform import broadcast_shapes, check_shape, uniform_body

__all__ = ["binomial", "geometric", "multinomial", "poisson"]


# ---------------------------------------------------------------------------
# Argument checks, with JAX's exception types and messages
# ---------------------------------------------------------------------------

def _check_arraylike(name: str, *args: Any) -> None:
    """Arrays and scalars only: a list or tuple is a TypeError, as in JAX."""
    for position, arg in enumerate(args):
        if isinstance(arg, (core.ArrayBase, np.ndarray, np.generic, bool, int, float, complex)):
            continue
        if hasattr(arg, "__jax_array__") or (hasattr(arg, "shape") and hasattr(arg, "dtype")):
            continue
        raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(arg)} at "
                        f"position {position}.")


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    """JAX's canonicalize_shape: an int or a sequence of ints (TypeError)."""
    seq = shape if isinstance(shape, (tuple, list)) else (shape,)
    try:
        return tuple(operator.index(d) for d in seq)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {tuple(seq)}.") from None


def _non_negative(shape: tuple[int, ...], broadcast_in_dim: bool = False) -> tuple[int, ...]:
    """A negative dimension is a TypeError (JAX's words differ by sampler)."""
    if any(d < 0 for d in shape):
        if broadcast_in_dim:
            raise TypeError("broadcast_in_dim shape must have every element be nonnegative, "
                            f"got {shape}.")
        raise TypeError("Only non-negative indices are allowed when broadcasting static shapes, "
                        f"but got shape {shape}.")
    return shape


def _check_broadcast_to(from_shape: tuple[int, ...], to_shape: tuple[int, ...], dtype: Any) -> None:
    """What jnp.broadcast_to(x, to_shape) accepts, with JAX's ValueErrors."""
    if len(from_shape) > len(to_shape):
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={from_shape} shape={to_shape}")
    tail = to_shape[len(to_shape) - len(from_shape):]
    if any(d != 1 and d != t for d, t in zip(from_shape, tail)):
        name = dtypes.canonicalize(dtype).name
        raise ValueError(f"Incompatible types for broadcasting: input type={name}{list(from_shape)} "
                         f"and requested type={name}{list(to_shape)}")


def _int_dtype_info(dtype: np.dtype) -> Any:
    """np.iinfo's ValueError for a non-integer dtype (JAX's poisson asks it)."""
    if not dtypes.is_int(dtype):
        raise ValueError(f"Invalid integer data type {np.dtype(dtype).kind!r}.")
    return dtypes.iinfo(dtype)


def _float_or_array(x: Any) -> Any:
    return x if isinstance(x, core.ArrayBase) else jnp.asarray(x)


# ---------------------------------------------------------------------------
# Pieces shared by the loops
# ---------------------------------------------------------------------------

def _keys(data: Any, n: int) -> list[Any]:
    keys = split_keys(data, (n,))
    return [keys[i] for i in range(n)]


def _counter() -> Any:
    """The loops' iteration counter (JAX's weak Python int 0)."""
    return lax.full((), 0, dtypes.default_int())


def _below(i: Any, limit: Any, dtype: np.dtype) -> Any:
    """`i < limit` as JAX evaluates it: its weak int counter against a
    `dtype` scalar is a comparison in `dtype`."""
    return lax.lt(lax.convert_element_type(i, dtype), lax.full((), limit, dtype))


def _step(i: Any) -> Any:
    return lax.add(i, lax.full((), 1, i.dtype))


def _full(shape: tuple[int, ...], value: Any, dtype: np.dtype) -> Any:
    return lax.full(shape, value, dtype)


def _nan(x: Any) -> Any:
    return lax.ne(x, x)


# ---------------------------------------------------------------------------
# poisson
# ---------------------------------------------------------------------------

def _poisson_knuth(data: Any, lam: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Knuth: k is one less than the number of uniforms whose product first
    drops below exp(-lam) (sums of logs, in float32)."""
    limit = _int_dtype_info(dtype).max
    neg_lam = -lam

    def going(log_prod):
        return lax.gt(log_prod, neg_lam)

    def cond(carry):
        i, _, _, log_prod = carry
        return jnp.logical_and(jnp.any(going(log_prod)), _below(i, limit, dtype))

    def body(carry):
        i, k, key, log_prod = carry
        key, sub = _keys(key, 2)
        k = lax.select(going(log_prod), k + 1, k)
        u = uniform_body(sub, shape, np.dtype(np.float32))
        return _step(i), k, key, log_prod + lax.log(u)

    init = (_counter(), _full(shape, 0, dtype), data, _full(shape, 0.0, np.dtype(np.float32)))
    k = lax.while_loop(cond, body, init)[1]
    return (k - 1).astype(dtype)


def _poisson_rejection(data: Any, lam: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Hormann's PTRS: a candidate from a transformed uniform, accepted by a
    squeeze or by comparing log densities (lgamma)."""
    limit = _int_dtype_info(dtype).max
    fdtype = lam.dtype
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.logical_and(jnp.any(~accepted), _below(i, limit, dtype))

    def body(carry):
        i, k_out, accepted, key = carry
        key, key_u, key_v = _keys(key, 3)
        u = uniform_body(key_u, shape, fdtype) - 0.5
        v = uniform_body(key_v, shape, fdtype)
        us = 0.5 - jnp.abs(u)
        k = lax.floor((2 * a / us + b) * u + lam + 0.43)
        log_ratio = lax.log(v * inv_alpha / (a / (us * us) + b))
        log_target = -lam + k * log_lam - lax.lgamma(k + 1)
        squeeze = (us >= 0.07) & (v <= v_r)
        hopeless = (k < 0) | ((us < 0.013) & (v > us))
        accept = squeeze | (~hopeless & (log_ratio <= log_target))
        return _step(i), lax.select(accept, k, k_out), accepted | accept, key

    init = (_counter(), _full(shape, -1.0, fdtype), _full(shape, False, np.dtype(np.bool_)), data)
    k = lax.while_loop(cond, body, init)[1]
    return k.astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(data, lam, shape, dtype):
    use_knuth = _nan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, jnp.zeros_like(lam))
    lam_rejection = lax.select(use_knuth, jnp.full_like(lam, 1e5), lam)
    result = lax.select(use_knuth, _poisson_knuth(data, lam_knuth, shape, dtype),
                        _poisson_rejection(data, lam_rejection, shape, dtype))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


def poisson(key: Any, lam: Any, shape: Any = None, dtype: Any = None, *,
            out_sharding: Any = None) -> Any:
    """Poisson counts with rate `lam` (broadcast to `shape`), as integers of
    `dtype` (default int32, int64 with x64); threefry2x32 keys only, as in JAX."""
    data, _ = check_key("poisson", key)
    if data._impl.name != "threefry2x32":
        raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, not {data._impl}")
    dtype = dtypes.canonicalize(int if dtype is None else dtype)
    shape = np.shape(lam) if shape is None else _non_negative(_shape_tuple(shape), True)
    _check_arraylike("broadcast_to", lam)
    lam = _float_or_array(lam)
    _check_broadcast_to(tuple(lam.shape), shape, lam.dtype)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    _int_dtype_info(dtype)
    return _poisson(data, lam, shape, dtype)


# ---------------------------------------------------------------------------
# geometric
# ---------------------------------------------------------------------------

@jit(static_argnums=(2, 3))
def _geometric(data, p, shape, dtype):
    u = uniform_body(data, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)
    log_q = jnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(lax.log(u), log_q)) + 1).astype(dtype)


def geometric(key: Any, p: Any, shape: Any = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """The number of Bernoulli(p) trials up to and including the first
    success (integers of `dtype`, default int32, int64 with x64)."""
    data, _ = check_key("geometric", key)
    dtype = dtypes.canonicalize(int if dtype is None else dtype)
    if not dtypes.is_int(dtype):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = broadcast_shapes(np.shape(p)) if shape is None else _non_negative(_shape_tuple(shape))
    check_shape("geometric", shape, np.shape(p))
    _check_arraylike("geometric", p)
    (p,) = promote_dtypes_inexact("geometric", p)
    return _geometric(data, p, shape, dtype)


# ---------------------------------------------------------------------------
# binomial
# ---------------------------------------------------------------------------

# log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2] for k = 0..9
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k: Any) -> Any:
    """The error of Stirling's approximation to log(k!): the table for
    k <= 9, else the series 1/12 - ... evaluated (as JAX does) at k clamped
    to 9."""
    table = lax.constant(np.array(_STIRLING_TAIL, k.dtype))
    small = k <= 9
    k = lax.clamp(lax.full((), 0.0, k.dtype), k, lax.full((), 9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return lax.select(small, table[lax.convert_element_type(lax.floor(k), np.int32)], series)


def _binomial_inversion(data, count, prob, shape, dtype):
    """Sum geometric waiting times ceil(log u / log(1 - p)) until they pass
    `count`; the number of them less one is the count of successes."""
    limit = dtypes.finfo(dtype).max
    fdtype = prob.dtype
    log_q = jnp.log1p(-prob)

    def cond(carry):
        i, _, total, _ = carry
        return jnp.logical_and(jnp.any(total <= count), _below(i, limit, dtype))

    def body(carry):
        i, n, total, key = carry
        sub, key = _keys(key, 2)
        n = lax.select(total <= count, n + 1, n)
        u = uniform_body(sub, shape, fdtype)
        total = total + jnp.ceil(jnp.log(u) / log_q)
        return _step(i), n, total, key

    init = (_counter(), _full(shape, 0.0, fdtype), _full(shape, 0.0, fdtype), data)
    n = lax.while_loop(cond, body, init)[1]
    return (n - 1).astype(dtype)


def _btrs(data, count, prob, shape, dtype):
    """BTRS (Kachitvichyanukul & Schmeiser / Hormann): transformed rejection
    with a squeeze and a Stirling-corrected log density bound."""
    limit = dtypes.finfo(dtype).max
    fdtype = prob.dtype
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)
    mode_terms = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1))))

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.logical_and(jnp.any(~accepted), _below(i, limit, dtype))

    def body(carry):
        i, k_out, accepted, key = carry
        key, key_u, key_v = _keys(key, 3)
        u = uniform_body(key_u, shape, fdtype)
        v = uniform_body(key_v, shape, fdtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        squeeze = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        out_of_range = (k < 0) | (k > count)
        log_v = jnp.log(v * alpha / (a / (us * us) + b))
        bound = (mode_terms
                 + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
                 + _stirling_approx_tail(m)
                 + _stirling_approx_tail(count - m)
                 - _stirling_approx_tail(k)
                 - _stirling_approx_tail(count - k))
        accept = squeeze | (~out_of_range & (log_v <= bound))
        return _step(i), lax.select(accept, k, k_out), accepted | accept, key

    init = (_counter(), _full(shape, -1.0, fdtype), _full(shape, False, np.dtype(np.bool_)), data)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


def binomial_body(data: Any, count: Any, prob: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Binomial(count, prob) samples of `shape` as floats of `dtype`;
    `prob` is a float array, `count` of its dtype (traceable)."""
    count = jnp.broadcast_to(count, shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _nan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_nan = _nan(q)
    q_negative = q < 0.0
    q = lax.select(q_nan | q_negative, jnp.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # a float count rounds down, as np.random.binomial
    samples = lax.select(
        use_inversion,
        _binomial_inversion(data, lax.select(use_inversion, count, jnp.zeros_like(count)), q,
                            shape, dtype),
        _btrs(data, lax.select(use_inversion, jnp.full_like(count, 1e4), count),
              lax.select(use_inversion, jnp.full_like(q, 0.5), q), shape, dtype))
    invalid = q_negative | q_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan), samples)
    samples = lax.select(count_inf & ~invalid, jnp.full_like(samples, np.inf), samples)
    mirrored = p_lt_half | count_nan_or_neg | q_nan | count_inf
    return lax.select(mirrored, samples, count.astype(dtype) - samples)


@jit(static_argnums=(3, 4))
def _binomial(data, count, prob, shape, dtype):
    return binomial_body(data, count, prob, shape, dtype)


def _binomial_args(count: Any, prob: Any) -> tuple[Any, Any]:
    """`prob` as an inexact array and `count` converted to its dtype."""
    (prob,) = promote_dtypes_inexact("binomial", prob)
    return lax.convert_element_type(_float_or_array(count), prob.dtype), prob


def binomial(key: Any, n: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Binomial(n, p) counts as floats of `dtype` (default float32, float64
    with x64); computed in the float type of `p`."""
    data, _ = check_key("binomial", key)
    _check_arraylike("binomial", n, p)
    dtype = dtypes.canonicalize(float if dtype is None else dtype)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    if shape is None:
        shape = broadcast_shapes(np.shape(n), np.shape(p))
    else:
        shape = _non_negative(_shape_tuple(shape))
        check_shape("binomial", shape, np.shape(n), np.shape(p))
    count, prob = _binomial_args(n, p)
    return _binomial(data, count, prob, shape, dtype)


# ---------------------------------------------------------------------------
# multinomial
# ---------------------------------------------------------------------------

_WINDOW_BASE = 16


def _suffix_sums(x: Any) -> Any:
    """Sums of x[i:] along axis 0 in the order XLA's CPU reduce-window
    cumsum adds them (JAX's reverse lax.cumsum): each sum left to right
    from x[i] for up to 16 terms; longer axes in blocks of 16 (the tail
    padded with zeros), each block's sums plus the suffix sums of the
    later blocks' totals."""
    n = x.shape[0]
    if math.prod(x.shape) == 0:  # nothing to add (and lax.pad cannot compile a 0-size pad)
        return x
    if n <= _WINDOW_BASE:
        acc = x
        for d in range(1, n):
            shifted = lax.pad(lax.slice_in_dim(x, d, n, axis=0), lax.full((), 0, x.dtype),
                              [(0, d, 0)] + [(0, 0, 0)] * (x.ndim - 1))
            acc = lax.add(acc, shifted)
        return acc
    blocks = -(-n // _WINDOW_BASE)
    rest = x.shape[1:]
    padded = lax.pad(x, lax.full((), 0, x.dtype),
                     [(0, blocks * _WINDOW_BASE - n, 0)] + [(0, 0, 0)] * (x.ndim - 1))
    grouped = jnp.moveaxis(lax.reshape(padded, (blocks, _WINDOW_BASE, *rest)), 1, 0)
    within = _suffix_sums(grouped)  # (16, blocks, *rest)
    later = _suffix_sums(within[0])  # (blocks, *rest): totals of blocks b..
    later = lax.pad(lax.slice_in_dim(later, 1, blocks, axis=0), lax.full((), 0, x.dtype),
                    [(0, 1, 0)] + [(0, 0, 0)] * (x.ndim - 1))
    total = lax.add(within, lax.broadcast_in_dim(later, within.shape, tuple(range(1, within.ndim))))
    total = lax.reshape(jnp.moveaxis(total, 0, 1), (blocks * _WINDOW_BASE, *rest))
    return lax.slice_in_dim(total, 0, n, axis=0)


@jit(static_argnums=(3, 4, 5))
def _multinomial(data, n, p, shape, dtype, unroll):
    if math.prod(shape) == 0:  # no draws (and jaxc's scan cannot compile 0-size slices)
        return lax.full(shape, 0, dtype)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = _suffix_sums(p)
    ratios = p / jnp.where(remaining == 0, 1, remaining)
    keys = split_keys(data, (ratios.shape[0],))

    def draw(remainder, ratio_and_key):
        ratio, key = ratio_and_key
        prob = jnp.minimum(jnp.maximum(ratio, 0), 1)
        count = binomial_body(key, remainder, prob, remainder.shape, remainder.dtype)
        return remainder - count, count

    _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


def multinomial(key: Any, n: Any, p: Any, *, shape: Any = None, dtype: Any = None,
                unroll: Any = 1) -> Any:
    """Counts of `n` trials over the categories on the last axis of `p`
    (floats of `dtype`, default float32, float64 with x64); `shape`, when
    given, is the whole result shape (categories last)."""
    data, _ = check_key("multinomial", key)
    _check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact("multinomial", n, p)
    shape = tuple(p.shape) if shape is None else shape
    batch = shape[:-1]
    shape = tuple(shape)
    _non_negative(shape, True)
    _check_broadcast_to(tuple(n.shape), tuple(batch), n.dtype)
    _check_broadcast_to(tuple(p.shape), shape, p.dtype)
    if not shape:
        raise ValueError("axis -1 is out of bounds for array of dimension 0")
    dtype = dtypes.canonicalize(float if dtype is None else dtype)
    if isinstance(unroll, (bool, np.bool_)):
        unroll = bool(unroll)
    return _multinomial(data, n, p, shape, dtype, unroll)
