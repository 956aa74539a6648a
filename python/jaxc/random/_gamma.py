"""Gamma and the samplers built on it: gamma, loggamma, beta, dirichlet,
chisquare, t, f, generalized_normal, ball.

Gamma is JAX's Marsaglia–Tsang rejection sampler, element by element, so
the bits are JAX's: the key is split into one key per element (row-major),
and each element runs

    key, sub = split(key)
    alpha' = alpha (alpha >= 1) or alpha + 1;  d = alpha' - 1/3;  c = 1/3 / sqrt(d)
    repeat:                                  (while_loop, starting rejected)
        key, x_key, u_key = split(key, 3)
        repeat: x_key, s = split(x_key); x = normal(s); v = 1 + c x   until v > 0
        X = x^2;  V = v^3;  U = uniform(u_key)
    until U < 1 - 0.0331 X^2  or  log U < X / 2 + d (1 - V + log V)
    gamma    = d V                      * (1 - uniform(sub)) ** (1 / alpha)   (boost when alpha < 1)
    loggamma = log d + log V            - exponential(sub) / alpha

The elements are mapped with `vmap` for threefry2x32 keys, as JAX lowers
it, so the loops run until every element is accepted; keys of the other
implementations are mapped with `lax.map`, as JAX does (their bits under
vmap are not a loop's: `lax.rng_bit_generator`). The derivative with respect to `a` is
JAX's implicit reparameterisation: d sample / d a = -(dF/da) / (dF/dx) for
the gamma CDF F, computed by the same series / continued fraction as JAX's
`random_gamma_grad` (in float32 for float16 and bfloat16).

The other samplers are JAX's compositions of gamma/loggamma with normal,
uniform and bernoulli draws from split keys.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import dtypes, lax, numpy as jnp
from .._autodiff import custom_jvp
from .._batching import vmap
from ..api import jit
from ._keys import canonical_shape, check_key, split_keys
from ._uniform import (
    bernoulli,
    check_safe_to_cast,
    check_shape,
    normal_body,
    param_shape,
    shape_or_params,
    uniform_body,
)

__all__ = ["ball", "beta", "chisquare", "dirichlet", "f", "gamma", "generalized_normal", "loggamma",
           "t"]


# ---------------------------------------------------------------------------
# Argument checks, as JAX makes them
# ---------------------------------------------------------------------------

def _float_dtype(dtype: Any, name: str) -> np.dtype:
    """The canonical float dtype (float32 by default, float64 with x64);
    JAX's ValueError for anything else (complex included)."""
    dtype = _any_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _any_dtype(dtype: Any) -> np.dtype:
    """The canonical dtype, unchecked (generalized_normal and ball leave the
    check to gamma)."""
    if dtype is None:
        return dtypes.default_float()
    if _is_complex(dtype):  # not a jaxc dtype, but JAX's error is the float check's
        return np.dtype(np.complex128 if dtypes.x64_enabled() else np.complex64)
    return dtypes.canonicalize(dtype)


def _is_complex(dtype: Any) -> bool:
    try:
        return dtype is complex or np.dtype(dtype).kind == "c"
    except TypeError:
        return False


def _array(x: Any, name: str) -> Any:
    """A parameter as an array (lists are rejected as JAX's jit rejects them)."""
    if isinstance(x, (list, tuple)):
        raise TypeError(f"{name}: parameters must be arrays or scalars, got a {type(x).__name__}")
    return x


# ---------------------------------------------------------------------------
# One gamma sample
# ---------------------------------------------------------------------------

def _split2(data: Any) -> tuple[Any, Any]:
    keys = split_keys(data, (2,))
    return keys[0], keys[1]


def _exponential(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """-log(1 - u) for u uniform in [0, 1)."""
    return lax.neg(lax.log1p(lax.neg(uniform_body(data, shape, dtype))))


def _gamma_one(data: Any, alpha: Any, log_space: bool) -> Any:
    """One Marsaglia–Tsang sample (or its log) of Gamma(alpha), alpha 0-d."""
    dtype = alpha.dtype

    def const(value: float) -> Any:
        return lax.full((), value, dtype)

    zero, one, minus_one, two = const(0), const(1), const(-1), const(2)
    half, third, squeeze = const(0.5), const(1.0 / 3.0), const(0.0331)

    # alpha < 1: sample Gamma(alpha + 1) and scale by U ** (1 / alpha)
    boost = lax.ge(alpha, one)
    boosted = lax.select(boost, alpha, lax.add(alpha, one))
    d = lax.sub(boosted, third)
    # JAX writes 1/3 / sqrt(d); XLA's simplifier turns it into 1/3 * rsqrt(d)
    # (not in bfloat16, which XLA computes op by op in float32): what gives
    # JAX's bits (float16, bfloat16, float64 exactly)
    if dtype == np.dtype(dtypes.bfloat16):
        c = lax.div(third, lax.sqrt(d))
    else:
        c = lax.mul(third, lax.rsqrt(d))

    def rejected(state: tuple) -> Any:
        _, X, V, U = state
        squeeze_fails = lax.ge(U, lax.sub(one, lax.mul(squeeze, lax.mul(X, X))))
        log_fails = lax.ge(lax.log(U), lax.add(lax.mul(X, half),
                                               lax.mul(d, lax.add(lax.sub(one, V), lax.log(V)))))
        return lax.bitwise_and(squeeze_fails, log_fails)

    def next_x(state: tuple) -> tuple:
        key, sub = _split2(state[0])
        x = normal_body(sub, (), dtype)
        return key, x, lax.add(one, lax.mul(x, c))

    def propose(state: tuple) -> tuple:
        keys = split_keys(state[0], (3,))
        key, x_key, u_key = keys[0], keys[1], keys[2]
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_x, (x_key, zero, minus_one))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        return key, X, V, uniform_body(u_key, (), dtype)

    key, sub = _split2(data)
    _, _, V, _ = lax.while_loop(rejected, propose, (key, zero, one, two))  # starts rejected
    if log_space:
        log_u = lax.neg(_exponential(sub, (), dtype))
        log_boost = lax.select(lax.bitwise_or(boost, lax.eq(log_u, zero)), zero,
                               lax.mul(log_u, lax.div(one, alpha)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    u = lax.sub(one, uniform_body(sub, (), dtype))
    scale = lax.select(boost, one, lax.pow(u, lax.div(one, alpha)))
    return lax.mul(lax.mul(d, V), scale)


def _gamma_samples(data: Any, a: Any, log_space: bool) -> Any:
    """Samples of the shape of `a` (already in the output dtype and shape):
    element i uses key split(key, a.size)[i]."""
    shape, n = a.shape, math.prod(a.shape)
    if n == 0:
        return lax.full(shape, 0, a.dtype)
    keys = split_keys(data, (n,))
    alphas = lax.reshape(a, (n,))
    if keys._impl.name == "threefry2x32":
        samples = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    else:
        samples = lax.map(lambda k_al: _gamma_one(k_al[0], k_al[1], log_space), (keys, alphas))
    return lax.reshape(samples, shape)


# ---------------------------------------------------------------------------
# The derivative of a sample with respect to alpha
# ---------------------------------------------------------------------------

def _any(x: Any) -> Any:
    return lax.reduce_or(x, tuple(range(x.ndim))) if x.ndim else x


def _series_grad(x: Any, a: Any, enabled: Any, eps: float) -> Any:
    """d sample / d a where the series for P(a, x) converges (x <= max(1, a))."""

    def body(vals: tuple) -> tuple:
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r_new = lax.add(r, lax.full_like(r, 1))
        dc_da_new = lax.sub(lax.mul(dc_da, lax.div(x, r_new)),
                            lax.div(lax.mul(c, x), lax.mul(r_new, r_new)))
        dans_da_new = lax.add(dans_da, dc_da_new)
        c_new = lax.mul(c, lax.div(x, r_new))
        ans_new = lax.add(ans, c_new)
        going = lax.bitwise_and(enabled, lax.gt(lax.abs(lax.div(dc_da_new, dans_da_new)),
                                                lax.full_like(r, eps)))
        keep = lambda new, old: lax.select(enabled, new, old)  # noqa: E731
        return (going, keep(r_new, r), keep(c_new, c), keep(ans_new, ans), keep(x, vals[4]),
                keep(dc_da_new, dc_da), keep(dans_da_new, dans_da))

    one, zero = lax.full_like(a, 1), lax.full_like(a, 0)
    vals = lax.while_loop(lambda v: _any(v[0]), body, (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, one)))
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _continued_fraction_grad(x: Any, a: Any, enabled: Any, eps: float) -> Any:
    """-(d sample / d a) where the continued fraction for Q(a, x) converges."""
    dtype = x.dtype

    def cond(vals: tuple) -> Any:
        return lax.bitwise_and(lax.lt(vals[5], lax.full((), 2000, dtype)), _any(vals[0]))

    def body(vals: tuple) -> tuple:
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = lax.add(c, lax.full((), 1, dtype))
        y = lax.add(y, lax.full_like(y, 1))
        z = lax.add(z, lax.full_like(z, 2))
        yc = lax.mul(y, c)
        pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
        nonzero = lax.ne(qk, lax.full_like(qk, 0))
        r = lax.div(pk, qk)
        t = lax.select(nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(nonzero, r, ans)
        dpk_da = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_da, z), pkm1), lax.mul(dpkm2_da, yc)),
                         lax.mul(pkm2, c))
        dqk_da = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_da, z), qkm1), lax.mul(dqkm2_da, yc)),
                         lax.mul(qkm2, c))
        dans_da_new = lax.select(nonzero, lax.div(lax.sub(dpk_da, lax.mul(ans, dqk_da)), qk), dans_da)
        change = lax.select(nonzero, lax.abs(lax.sub(dans_da_new, dans_da)), lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.full_like(pk, 1 / eps))
        small = lax.full_like(pk, eps)
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = (
            lax.select(rescale, lax.mul(v, small), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da))
        going = lax.bitwise_and(enabled, lax.gt(change, lax.full_like(change, eps)))
        keep = lambda new, old: lax.select(enabled, new, old)  # noqa: E731
        return (going, keep(ans, vals[1]), keep(t, vals[2]), keep(y, vals[3]), keep(z, vals[4]), c,
                keep(pkm1, vals[6]), keep(qkm1, vals[7]), keep(pkm2, vals[8]), keep(qkm2, vals[9]),
                keep(dpkm2_da, vals[10]), keep(dqkm2_da, vals[11]), keep(dpkm1_da, vals[12]),
                keep(dqkm1_da, vals[13]), keep(dans_da_new, vals[14]))

    one = lax.full_like(x, 1)
    y = lax.sub(one, a)
    z = lax.add(lax.add(x, y), one)
    pkm1 = lax.add(x, one)
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    zero = lax.full_like(x, 0)
    dqkm1_da = lax.neg(x)
    dans_da = lax.div(lax.sub(zero, lax.mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, one, y, z, lax.full((), 0, dtype), pkm1, qkm1, one, x,
            zero, zero, zero, dqkm1_da, dans_da)
    vals = lax.while_loop(cond, body, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.neg(lax.mul(lax.add(dans_da, lax.mul(ans, dlogax_da)), x))


def _random_gamma_grad(a: Any, x: Any) -> Any:
    """d x / d a for a sample x of Gamma(a) at fixed CDF value (JAX's
    `random_gamma_grad`; float16 and bfloat16 computed in float32)."""
    dtype = a.dtype
    narrow = dtype in (np.dtype(np.float16), np.dtype(dtypes.bfloat16))
    if narrow:
        a, x = lax.convert_element_type(a, np.float32), lax.convert_element_type(x, np.float32)
    info = dtypes.finfo(a.dtype)
    zero = lax.full_like(x, 0)
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, zero)
    domain_error = lax.bitwise_or(lax.lt(x, zero), lax.le(a, lax.full_like(a, 0)))
    use_fraction = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(log_ax, lax.neg(lax.log(lax.full((), info.max, a.dtype))))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(x_is_zero, domain_error),
                                                            underflow), is_nan))
    eps = float(info.eps)
    out = lax.select(
        use_fraction,
        lax.neg(_continued_fraction_grad(x, a, lax.bitwise_and(enabled, use_fraction), eps)),
        _series_grad(x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_fraction)), eps))
    out = lax.select(x_is_zero, zero, out)
    out = lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, np.nan), out)
    return lax.convert_element_type(out, dtype) if narrow else out


def _sample_grad(sample: Any, a: Any, log_space: bool) -> Any:
    if not log_space:
        return _random_gamma_grad(a, sample)
    # d log x = dx / x, with x = exp(log x) kept away from 0
    x = lax.exp(sample)
    x = lax.select(lax.eq(x, lax.full_like(x, 0)), lax.full_like(x, dtypes.finfo(x.dtype).tiny), x)
    return lax.div(_random_gamma_grad(a, x), x)


def _gamma_with_grad(data: Any, a: Any, log_space: bool) -> Any:
    """Gamma samples (or their logs) of the shape of `a`, differentiable in `a`."""

    @custom_jvp
    def sample(a):
        return _gamma_samples(data, a, log_space)

    @sample.defjvp
    def _sample_jvp(primals, tangents):
        (a,), (a_dot,) = primals, tangents
        # stop_gradient: the rule's primal part (while loops) is not to be
        # differentiated; jaxc's reverse mode of a custom_jvp would otherwise
        # try to, and it cannot reverse a while loop
        out = lax.stop_gradient(sample(a))
        return out, lax.mul(a_dot, lax.stop_gradient(_sample_grad(out, a, log_space)))

    return sample(a)


# ---------------------------------------------------------------------------
# gamma, loggamma
# ---------------------------------------------------------------------------

def _gamma_body(data: Any, a: Any, shape: Any, dtype: np.dtype, log_space: bool) -> Any:
    if shape is None:
        shape = tuple(np.shape(a))
    else:
        check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if a.shape != shape:
        a = jnp.broadcast_to(a, shape)
    return _gamma_with_grad(data, a, log_space)


@jit(static_argnums=(2, 3, 4))
def _gamma(data, a, shape, dtype, log_space):
    return _gamma_body(data, a, shape, dtype, log_space)


def _gamma_public(name: str, key: Any, a: Any, shape: Any, dtype: Any, log_space: bool) -> Any:
    data, _ = check_key(name, key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonical_shape(shape)
    return _gamma(data, _array(a, name), shape, dtype, log_space)


def gamma(key: Any, a: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Gamma(a, 1) samples (`shape` defaults to `a`'s shape); differentiable in `a`."""
    return _gamma_public("gamma", key, a, shape, dtype, False)


def loggamma(key: Any, a: Any, shape: Any = None, dtype: Any = None, *,
             out_sharding: Any = None) -> Any:
    """log of Gamma(a, 1) samples, accurate where the samples underflow (small `a`)."""
    return _gamma_public("loggamma", key, a, shape, dtype, True)


# ---------------------------------------------------------------------------
# beta, dirichlet
# ---------------------------------------------------------------------------

@jit(static_argnums=(3, 4))
def _beta(data, a, b, shape, dtype):
    a = jnp.broadcast_to(lax.convert_element_type(a, dtype), shape)
    b = jnp.broadcast_to(lax.convert_element_type(b, dtype), shape)
    key_a, key_b = _split2(data)
    log_a = _gamma_with_grad(key_a, a, True)
    log_b = _gamma_with_grad(key_b, b, True)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger one
    log_max = lax.max(log_a, log_b)
    scaled_a = lax.exp(lax.sub(log_a, log_max))
    scaled_b = lax.exp(lax.sub(log_b, log_max))
    return lax.div(scaled_a, lax.add(scaled_a, scaled_b))


def beta(key: Any, a: Any, b: Any, shape: Any = None, dtype: Any = None, *,
         out_sharding: Any = None) -> Any:
    """Beta(a, b) samples in [0, 1], from two log-gamma draws."""
    data, _ = check_key("beta", key)
    dtype = _float_dtype(dtype, "beta")
    check_safe_to_cast("beta", dtype, a, b)
    shape = shape_or_params("beta", shape, a, b)
    return _beta(data, _array(a, "beta"), _array(b, "beta"), shape, dtype)


def _divide_broadcast(x: Any, y: Any) -> Any:
    """x / y where y broadcasts to x's shape. XLA rewrites A / broadcast(B)
    into A * broadcast(1 / B) except in bfloat16 (which it computes in
    float32); doing the same gives JAX's bits."""
    y = lax.convert_element_type(y, x.dtype)
    if x.dtype == np.dtype(dtypes.bfloat16):
        return jnp.divide(x, y)
    return jnp.multiply(x, lax.div(lax.full_like(y, 1), y))


@custom_jvp
def _softmax(x: Any) -> Any:
    """softmax over the last axis, rounded as JAX's (jax.nn.softmax) is: the
    sum in float32 for 16-bit floats; bfloat16's exponentials enter the sum
    unrounded (XLA computes bfloat16 elementwise ops in float32)."""
    shifted = lax.sub(x, lax.stop_gradient(jnp.max(x, -1, keepdims=True)))
    if x.dtype != np.dtype(dtypes.bfloat16):
        unnormalized = jnp.exp(shifted)
        return _divide_broadcast(unnormalized, jnp.sum(unnormalized, -1, keepdims=True))
    wide = lax.exp(lax.convert_element_type(shifted, np.float32))
    total = lax.convert_element_type(jnp.sum(wide, -1, keepdims=True), x.dtype)
    numerator = lax.convert_element_type(lax.convert_element_type(wide, x.dtype), np.float32)
    return lax.convert_element_type(
        jnp.divide(numerator, lax.convert_element_type(total, np.float32)), x.dtype)


@_softmax.defjvp
def _softmax_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    y = _softmax(x)
    return y, y * (x_dot - (y * x_dot).sum(-1, keepdims=True))


@jit(static_argnums=(2, 3))
def _dirichlet(data, alpha, shape, dtype):
    alpha = lax.convert_element_type(alpha, dtype)
    full = (*shape, alpha.shape[-1])
    if alpha.shape != full:
        alpha = jnp.broadcast_to(alpha, full)
    return _softmax(_gamma_with_grad(data, alpha, True))


def dirichlet(key: Any, alpha: Any, shape: Any = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """Dirichlet(alpha) samples over the last axis of `alpha`; `shape` is the
    batch shape (default `alpha.shape[:-1]`)."""
    data, _ = check_key("dirichlet", key)
    dtype = _float_dtype(dtype, "dirichlet")
    if shape is not None:
        shape = canonical_shape(shape)
    alpha = _array(alpha, "dirichlet")
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
    if shape is None:
        shape = tuple(np.shape(alpha)[:-1])
    else:
        check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    return _dirichlet(data, alpha, shape, dtype)


# ---------------------------------------------------------------------------
# chisquare, t, f
# ---------------------------------------------------------------------------

def _chisquare_body(data: Any, df: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    return lax.mul(_exp_half_chisquare(data, df, shape, dtype), lax.full((), 2, dtype))


def _exp_half_chisquare(data: Any, df: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """exp(loggamma(df / 2)): a chi-squared sample over 2."""
    df = lax.convert_element_type(df, dtype)
    return lax.exp(_gamma_body(data, lax.div(df, lax.full((), 2, dtype)), shape, dtype, True))


@jit(static_argnums=(2, 3))
def _chisquare(data, df, shape, dtype):
    return _chisquare_body(data, df, shape, dtype)


def chisquare(key: Any, df: Any, shape: Any = None, dtype: Any = None, *,
              out_sharding: Any = None) -> Any:
    """Chi-squared samples with `df` degrees of freedom (2 * Gamma(df / 2))."""
    data, _ = check_key("chisquare", key)
    dtype = _float_dtype(dtype, "chisquare")
    shape = param_shape("chisquare", dtype, shape, df)
    return _chisquare(data, _array(df, "chisquare"), shape, dtype)


@jit(static_argnums=(2, 3))
def _t(data, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split2(data)
    n = normal_body(key_n, shape, dtype)
    half_df = lax.div(df, lax.full((), 2, dtype))
    g = _gamma_body(key_g, half_df, shape, dtype, False)
    return jnp.multiply(n, jnp.sqrt(jnp.divide(half_df, g)))


def t(key: Any, df: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Student's t samples with `df` degrees of freedom (normal / sqrt(chi2 / df))."""
    data, _ = check_key("t", key)
    dtype = _float_dtype(dtype, "t")
    shape = param_shape("t", dtype, shape, df)
    return _t(data, _array(df, "t"), shape, dtype)


@jit(static_argnums=(3, 4))
def _f(data, dfnum, dfden, shape, dtype):
    for df in (dfnum, dfden):  # JAX divides with lax.div, which broadcasts only 0-d and equal ranks
        if np.ndim(df) not in (0, len(shape)):
            raise TypeError(f"div: arrays must have the same number of dimensions, got "
                            f"{ {len(shape), np.ndim(df)} }")
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split2(data)
    if dtype == np.dtype(dtypes.bfloat16):
        chi2_num = _chisquare_body(key_dfn, dfnum, shape, dtype)
        chi2_den = _chisquare_body(key_dfd, dfden, shape, dtype)
        return lax.div(lax.div(chi2_num, dfnum), lax.div(chi2_den, dfden))
    # (2 g_num / dfnum) / (2 g_den / dfden), reassociated as XLA does it:
    # (g_num * (dfden * 2)) / (dfnum * (g_den * 2))
    two = lax.full((), 2, dtype)
    g_num = _exp_half_chisquare(key_dfn, dfnum, shape, dtype)
    g_den = _exp_half_chisquare(key_dfd, dfden, shape, dtype)
    return jnp.divide(jnp.multiply(g_num, lax.mul(dfden, two)),
                      jnp.multiply(dfnum, lax.mul(g_den, two)))


def f(key: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = None, *,
      out_sharding: Any = None) -> Any:
    """F-distribution samples: (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)."""
    data, _ = check_key("f", key)
    dtype = _float_dtype(dtype, "f")
    shape = param_shape("f", dtype, shape, dfnum, dfden)
    return _f(data, _array(dfnum, "f"), _array(dfden, "f"), shape, dtype)


# ---------------------------------------------------------------------------
# generalized_normal, ball
# ---------------------------------------------------------------------------

def _generalized_normal_body(data: Any, p: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    key_g, key_r = _split2(data)
    inv_p = jnp.divide(1, p)
    g = _gamma_body(key_g, inv_p, shape, dtype, False)
    signs = bernoulli(key_r, 0.5, shape)
    r = jnp.subtract(jnp.multiply(2, signs), 1).astype(dtype)
    return jnp.multiply(r, jnp.power(g, inv_p))


@jit(static_argnums=(2, 3))
def _generalized_normal(data, p, shape, dtype):
    return _generalized_normal_body(data, p, shape, dtype)


def generalized_normal(key: Any, p: Any, shape: Any = (), dtype: Any = None, *,
                       out_sharding: Any = None) -> Any:
    """Samples of density proportional to exp(-|x| ** p): sign * Gamma(1 / p) ** (1 / p)."""
    shape = canonical_shape(shape)
    data, _ = check_key("generalized_normal", key)
    dtype = _any_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `gamma` must be a float dtype, got {dtype}")
    return _generalized_normal(data, _array(p, "generalized_normal"), shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _ball(data, p, d, shape, dtype):
    k1, k2 = _split2(data)
    g = _generalized_normal_body(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    inv_p = jnp.divide(1, p)
    if dtype == np.dtype(dtypes.bfloat16):
        # XLA computes bfloat16 |g| ** p in float32 and sums it unrounded
        wide = lax.pow(lax.convert_element_type(jnp.abs(g), np.float32),
                       lax.convert_element_type(lax.convert_element_type(p, dtype), np.float32))
        total = lax.convert_element_type(jnp.sum(wide, -1), dtype)
        return jnp.divide(g, jnp.power(jnp.add(total, e), inv_p)[..., None])
    # g / (sum |g| ** p + e) ** (1 / p), as XLA rewrites it: g * (...) ** -(1 / p)
    total = jnp.add(jnp.power(jnp.abs(g), p).sum(-1), e)
    return jnp.multiply(g, lax.pow(total, lax.neg(lax.convert_element_type(inv_p, dtype)))[..., None])


def ball(key: Any, d: int, p: float = 2, shape: Any = (), dtype: Any = None, *,
         out_sharding: Any = None) -> Any:
    """Points uniform in the unit Lp ball of dimension `d`, of shape (*shape, d)."""
    shape = canonical_shape(shape)
    data, _ = check_key("ball", key)
    dtype = _any_dtype(dtype)
    d = operator.index(d)
    canonical_shape((*shape, d))
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `gamma` must be a float dtype, got {dtype}")
    return _ball(data, _array(p, "ball"), d, shape, dtype)
