"""`jaxc.nn`: activation functions, softmax, attention and one-hot encoding, as `jax.nn`.

    import jaxc.nn as nn
    nn.relu(x); nn.gelu(x); nn.softmax(logits, axis=-1); nn.one_hot(labels, 10)
    nn.dot_product_attention(q, k, v, is_causal=True)   # q: (B, T, N, H), k, v: (B, S, K, H)
    nn.initializers.glorot_uniform()(key, (784, 512))   # jaxc.nn.initializers: docs/nn.md

Activations that need a float (sigmoid, gelu, softmax, ...) turn ints into
the default float; relu and leaky_relu keep integer dtypes (as JAX). Softmax
and log_softmax subtract the maximum first, so large logits do not overflow.
`scaled_matmul`, `scaled_dot_general` and `get_scaled_dot_general_config`
are not provided: they need block-scaled low-precision types (docs/nn.md).
"""
from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from .. import core, dtypes, lax, numpy as jnp
from .._autodiff import custom_jvp
from .._config import config
from ..numpy import _elementwise as ew  # first: jaxc.numpy sets up the front end
from ..numpy._util import (
    asarray,
    broadcast_shapes,
    broadcast_to,
    canonicalize_axes,
    canonicalize_axis,
    promote_dtypes_inexact,
)
from ..scipy.special import expand_reduced, logsumexp

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float(name: str, x: Any) -> Any:
    return promote_dtypes_inexact(name, x)[0]


def _const(x: Any, value: float) -> Any:
    return lax.full_like(x, value)


# -- activations ------------------------------------------------------------------

def identity(x: Any) -> Any:
    """x unchanged (as an array)."""
    return asarray(x, fn="identity")


tanh = ew.tanh


@custom_jvp
def relu(x: Any) -> Any:
    """max(x, 0); its derivative at 0 is 0, as in JAX (not the 1/2 of max's tie)."""
    return ew.maximum(x, 0)


relu.defjvps(lambda g, out, x: ew.where(ew.greater(x, 0), g, lax.full_like(g, 0)))


@custom_jvp
def relu6(x: Any) -> Any:
    """min(max(x, 0), 6); its derivative is 0 at 0 and at 6, as in JAX."""
    return ew.minimum(ew.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, out, x: ew.where(ew.logical_and(ew.greater(x, 0), ew.less(x, 6)),
                                         lax.convert_element_type(g, out.dtype), lax.full_like(out, 0)))


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x))."""
    return lax.logistic(_float("sigmoid", x))


def log_sigmoid(x: Any) -> Any:
    """log(sigmoid(x)) = -softplus(-x), without underflow."""
    return ew.negative(softplus(ew.negative(_float("log_sigmoid", x))))


def silu(x: Any) -> Any:
    """x * sigmoid(x) (also called swish)."""
    x = _float("silu", x)
    return lax.mul(x, lax.logistic(x))


swish = silu


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), stable for large |x|."""
    return ew.logaddexp(_float("softplus", x), 0)


def soft_sign(x: Any) -> Any:
    """x / (1 + |x|)."""
    x = _float("soft_sign", x)
    return lax.div(x, lax.add(_const(x, 1), lax.abs(x)))


def elu(x: Any, alpha: Any = 1.0) -> Any:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    x = _float("elu", x)
    positive = lax.gt(x, _const(x, 0))
    negative_part = ew.multiply(alpha, lax.expm1(lax.select(positive, _const(x, 0), x)))
    return lax.select(positive, x, lax.convert_element_type(negative_part, x.dtype, x.weak_type))


def celu(x: Any, alpha: Any = 1.0) -> Any:
    """max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)."""
    x = _float("celu", x)
    zero = _const(x, 0)
    negative_part = ew.multiply(alpha, lax.expm1(ew.true_divide(lax.min(x, zero), alpha)))
    return lax.add(lax.max(x, zero), lax.convert_element_type(negative_part, x.dtype, x.weak_type))


def selu(x: Any) -> Any:
    """scale * elu(x, alpha) with the self-normalizing constants."""
    x = _float("selu", x)
    return lax.mul(_const(x, _SELU_SCALE), elu(x, _SELU_ALPHA))


def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    """x for x >= 0, negative_slope * x otherwise."""
    x = asarray(x, fn="leaky_relu")
    return ew.where(ew.greater_equal(x, 0), x, ew.multiply(negative_slope, x))


def hard_tanh(x: Any) -> Any:
    """x clipped to [-1, 1] (integer dtypes are kept)."""
    x = asarray(x, fn="hard_tanh")
    return ew.where(ew.greater(x, 1), 1, ew.where(ew.less(x, -1), -1, x))


def hard_sigmoid(x: Any) -> Any:
    """relu6(x + 3) / 6."""
    x = _float("hard_sigmoid", x)
    return lax.div(relu6(lax.add(x, _const(x, 3))), _const(x, 6))


def hard_silu(x: Any) -> Any:
    """x * hard_sigmoid(x) (also called hard_swish)."""
    x = _float("hard_silu", x)
    return lax.mul(x, hard_sigmoid(x))


hard_swish = hard_silu


def gelu(x: Any, approximate: bool = True) -> Any:
    """The Gaussian error linear unit: x * Phi(x). `approximate` uses the
    tanh form (JAX's default); otherwise the exact erf form."""
    x = _float("gelu", x)
    half = _const(x, 0.5)
    if approximate:
        cube = lax.mul(x, lax.mul(x, x))
        inner = lax.mul(_const(x, np.sqrt(2 / np.pi)), lax.add(x, lax.mul(_const(x, 0.044715), cube)))
        return lax.mul(lax.mul(half, x), lax.add(_const(x, 1), lax.tanh(inner)))
    return lax.mul(lax.mul(half, x), lax.add(_const(x, 1), lax.erf(lax.mul(x, _const(x, np.sqrt(0.5))))))


def glu(x: Any, axis: int = -1) -> Any:
    """The gated linear unit: first half * sigmoid(second half) along `axis`."""
    x = _float("glu", x)
    axis = canonicalize_axis(axis, x.ndim, "glu")
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"nn.glu: axis {axis} of shape {x.shape} must have an even size")
    first = lax.slice_in_dim(x, 0, size // 2, axis=axis)
    second = lax.slice_in_dim(x, size // 2, size, axis=axis)
    return lax.mul(first, lax.logistic(second))


def mish(x: Any) -> Any:
    """x * tanh(softplus(x))."""
    x = asarray(x, fn="mish")
    return ew.multiply(x, ew.tanh(softplus(x)))


def squareplus(x: Any, b: Any = 4) -> Any:
    """(x + sqrt(x**2 + b)) / 2, a smooth relu (`b` sets the smoothness)."""
    x, b = asarray(x, fn="squareplus"), asarray(b, fn="squareplus")
    return ew.true_divide(ew.add(x, ew.sqrt(ew.add(ew.square(x), b))), 2)


def sparse_plus(x: Any) -> Any:
    """0 for x <= -1, (x + 1)**2 / 4 for -1 < x < 1, x for x >= 1."""
    x = asarray(x, fn="sparse_plus")
    middle = ew.true_divide(ew.square(ew.add(x, 1.0)), 4)
    return ew.where(ew.less_equal(x, -1.0), 0.0, ew.where(ew.greater_equal(x, 1.0), x, middle))


def sparse_sigmoid(x: Any) -> Any:
    """0 for x <= -1, (x + 1) / 2 for -1 < x < 1, 1 for x >= 1 (the
    derivative of sparse_plus)."""
    x = asarray(x, fn="sparse_sigmoid")
    return ew.multiply(0.5, ew.clip(ew.add(x, 1.0), 0.0, 2.0))


@custom_jvp
def _log1mexp(x: Any) -> Any:
    # log(1 - exp(-x)): log(-expm1(-x)) below log 2, log1p(-exp(-x)) above
    # (Maechler's switch: each keeps its relative accuracy on its side)
    negative = ew.negative(x)
    return ew.where(ew.less(x, float(np.log(2.0))), ew.log(ew.negative(ew.expm1(negative))),
                    ew.log1p(ew.negative(ew.exp(negative))))


_log1mexp.defjvps(lambda x_dot, out, x: ew.true_divide(x_dot, ew.expm1(x)))  # d/dx = 1 / (exp(x) - 1)


def log1mexp(x: Any) -> Any:
    """log(1 - exp(-x)) for x >= 0, accurate for small and large x (NaN
    for x < 0, -inf at 0)."""
    return _log1mexp(_float("log1mexp", x))


# -- normalizations over axes ------------------------------------------------------

def _masked(name: str, x: Any, where: Any, fill: float) -> tuple[Any, Any]:
    """(x with `fill` where the mask is false, the broadcast bool mask or None)."""
    if where is None:
        return x, None
    mask = asarray(where, fn=name)
    if mask.dtype != np.bool_:
        mask = lax.ne(mask, lax.full_like(mask, 0))
    shape = broadcast_shapes(name, mask.shape, x.shape)
    mask, x = broadcast_to(mask, shape, name), broadcast_to(x, shape, name)
    return lax.select(mask, x, lax.full_like(x, fill)), mask


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """exp(x) / sum(exp(x)) over `axis` (int, tuple or None), computed as
    exp(x - max); entries outside `where` are 0 and do not count. As in
    JAX, a row with +inf, or with only -inf, gives NaNs."""
    x = _float("softmax", x)
    x, mask = _masked("softmax", x, where, -np.inf)
    axes = canonicalize_axes(axis, x.ndim, "softmax")
    if config.jax_softmax_custom_jvp:
        out = _softmax_with_rule(x, axes)
    else:
        out = _softmax_formula(x, axes, lax.stop_gradient)
    return out if mask is None else lax.select(mask, out, lax.full_like(out, 0))


def _softmax_formula(x: Any, axes: tuple[int, ...], shifted: Any = lambda m: m) -> Any:
    """exp(x - max) / sum(exp(x - max)) over `axes` (as JAX: an inf in the
    row gives NaNs); `shifted` is applied to the max."""
    shift = shifted(lax.reduce_max(x, axes))
    unnormalized = lax.exp(lax.sub(x, expand_reduced(shift, axes, x.shape)))
    total = lax.reduce_sum(unnormalized, axes)
    return lax.div(unnormalized, expand_reduced(total, axes, x.shape))


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax_with_rule(x: Any, axes: tuple[int, ...]) -> Any:
    """softmax under `jax_softmax_custom_jvp`: the same values, and the
    derivative from JAX's rule dy = y * (dx - sum(y * dx))."""
    return _softmax_formula(x, axes)


@_softmax_with_rule.defjvp
def _softmax_jvp(axes: tuple[int, ...], primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    (x,), (x_dot,) = primals, tangents
    y = _softmax_with_rule(x, axes)
    weighted = lax.reduce_sum(lax.mul(y, x_dot), axes)
    return y, lax.mul(y, lax.sub(x_dot, expand_reduced(weighted, axes, x.shape)))


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """x - logsumexp(x) over `axis`; entries outside `where` are -inf."""
    x = _float("log_softmax", x)
    x, mask = _masked("log_softmax", x, where, -np.inf)
    axes = canonicalize_axes(axis, x.ndim, "log_softmax")
    shifted = lax.sub(x, expand_reduced(lax.stop_gradient(lax.reduce_max(x, axes)), axes, x.shape))
    log_total = lax.log(lax.reduce_sum(lax.exp(shifted), axes))
    out = lax.sub(shifted, expand_reduced(log_total, axes, x.shape))
    return out if mask is None else lax.select(mask, out, lax.full_like(out, -np.inf))


def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """log(mean(exp(x))) over `axis` = logsumexp(x) - log(n), n the number
    of entries reduced (of those in `where`)."""
    x = asarray(x, fn="logmeanexp")
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    if where is None:
        axes = canonicalize_axes(axis, x.ndim, "logmeanexp")
        count = lax.convert_element_type(int(np.prod([x.shape[a] for a in axes])), lse.dtype)
    else:
        mask = broadcast_to(asarray(where, fn="logmeanexp"), x.shape, "logmeanexp")
        count = jnp.sum(mask, axis=axis, dtype=lse.dtype, keepdims=keepdims)
    return ew.subtract(lse, ew.log(count))


def _masked_mean(values: Any, axes: tuple[int, ...], mask: Any) -> Any:
    """The mean over `axes` (of the entries in `mask`), broadcast back to values' shape."""
    total = expand_reduced(lax.reduce_sum(values, axes), axes, values.shape)
    if mask is None:
        return lax.div(total, lax.full_like(total, int(np.prod([values.shape[a] for a in axes]))))
    count = lax.reduce_sum(lax.convert_element_type(mask, values.dtype), axes)
    return lax.div(total, expand_reduced(count, axes, values.shape))


def standardize(x: Any, axis: Any = -1, mean: Any = None, variance: Any = None, epsilon: float = 1e-5,
                where: Any = None) -> Any:
    """(x - mean) / sqrt(variance + epsilon), the moments taken over `axis`
    (of the entries in `where`) unless given; the variance is
    mean(x**2) - mean(x)**2, as in JAX."""
    x = _float("standardize", x)
    filled, mask = _masked("standardize", x, where, 0)
    axes = canonicalize_axes(axis, filled.ndim, "standardize")
    if mean is None:
        mean = _masked_mean(filled, axes, mask)
    if variance is None:
        variance = ew.subtract(_masked_mean(lax.mul(filled, filled), axes, mask), ew.square(mean))
    return ew.multiply(ew.subtract(x, mean), lax.rsqrt(ew.add(variance, epsilon)))


# -- encodings -----------------------------------------------------------------------

def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: Any = -1) -> Any:
    """1 where the class index equals x along a new axis of size
    `num_classes`, else 0; out-of-range indices give all-zero rows."""
    if isinstance(num_classes, core.Tracer):
        raise core.ConcretizationTypeError(num_classes, "the num_classes argument of nn.one_hot")
    num_classes = operator.index(num_classes)  # a float is JAX's TypeError
    x = asarray(x, fn="one_hot")
    if dtypes.is_int(x.dtype) and num_classes - 1 > np.iinfo(x.dtype).max:
        x = lax.convert_element_type(x, dtypes.default_int())  # class numbers must not wrap around
    dtype = dtypes.canonicalize(dtype) if dtype is not None else dtypes.default_float()
    axis = canonicalize_axis(axis, x.ndim + 1, "one_hot")
    shape = x.shape[:axis] + (num_classes,) + x.shape[axis:]
    classes = lax.broadcasted_iota(x.dtype, shape, axis) if core.current_scope() is not None else \
        lax.constant(np.ascontiguousarray(np.broadcast_to(
            np.arange(num_classes, dtype=x.dtype).reshape([-1 if d == axis else 1 for d in range(len(shape))]),
            shape)))
    spread = lax.broadcast_in_dim(x, shape, tuple(d for d in range(len(shape)) if d != axis))
    return lax.convert_element_type(lax.eq(spread, classes), dtype)


# -- attention -----------------------------------------------------------------------

def _to_4d(t: Any) -> Any:
    """t with leading unit axes added up to 4 dimensions."""
    t = asarray(t, fn="dot_product_attention")
    return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check_attention_arg(t: Any, shape: tuple[int, ...], dtype: Any, name: str) -> None:
    """ValueError unless `t` (if given) has len(shape) dimensions, `dtype`
    (if given) and `shape` (-1: any size), as JAX checks."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"nn.dot_product_attention: {name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != np.dtype(dtype):
        raise ValueError(f"nn.dot_product_attention: {name} dtype should be {np.dtype(dtype)}, but got {t.dtype}")
    if any(want != -1 and got != want for want, got in zip(shape, t.shape)):
        raise ValueError(f"nn.dot_product_attention: {name} shape should be {list(shape)}: but got {t.shape}")


def _grouped(t: Any, num_heads: int, kv_heads: int, name: str) -> Any:
    """A (b, N or 1, t, s) bias or mask as (b, K or 1, G or 1, t, s), query head n = k * G + g."""
    if t is None:
        return None
    tb, tn, tt, ts = t.shape
    if tn == 1:
        return lax.reshape(t, (tb, 1, 1, tt, ts))
    if tn != num_heads:
        raise ValueError(f"nn.dot_product_attention: {name} of shape {t.shape} must have 1 or {num_heads} "
                         "(the number of query heads) heads on axis 1")
    return lax.reshape(t, (tb, kv_heads, num_heads // kv_heads, tt, ts))


def _attention_mask(mask: Any, is_causal: bool, local_window_size: Any, q_seqlen: Any, kv_seqlen: Any,
                    T: int, S: int) -> Any:
    """The bool mask of the (B, K, G, T, S) logits that take part, or None for all."""
    parts = [] if mask is None else [mask]
    query_pos = np.arange(T, dtype=np.int32)[:, None]
    key_pos = np.arange(S, dtype=np.int32)[None, :]
    if is_causal:
        parts.append(asarray(key_pos <= query_pos))  # tril: query i sees keys 0..i
    if local_window_size is not None:
        left, right = (int(w) for w in local_window_size)
        parts.append(asarray((key_pos >= query_pos - left) & (key_pos <= query_pos + right)))
    if q_seqlen is not None:  # queries at or past the length, keys at or past theirs, take no part
        parts.append(ew.less(query_pos[None, None, None, :, :], jnp.reshape(q_seqlen, (-1, 1, 1, 1, 1))))
    if kv_seqlen is not None:
        parts.append(ew.less(key_pos[None, None, None, :, :], jnp.reshape(kv_seqlen, (-1, 1, 1, 1, 1))))
    if not parts:
        return None
    combined = parts[0]
    for part in parts[1:]:
        combined = ew.logical_and(combined, part)
    return combined


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None, *,
                          scale: Any = None, is_causal: bool = False, query_seq_lengths: Any = None,
                          key_value_seq_lengths: Any = None, local_window_size: Any = None,
                          implementation: Any = None, return_residual: bool = False) -> Any:
    """softmax(query . key^T * scale + bias) . value per head, as JAX's
    "xla" implementation.

    query (B, T, N, H) or (T, N, H); key and value (B, S, K, H) or (S, K, H),
    N a multiple of K (grouped-query attention: query head n uses key head
    n // (N // K)). `scale` defaults to 1 / sqrt(H). `bias` (added to the
    logits) and the bool `mask` (True: take part) broadcast to (B, N, T, S).
    `is_causal`: query i sees keys 0..i; `local_window_size` (left, right)
    or an int for both: keys i - left..i + right; the int32 (B,) sequence
    lengths mask out padded queries (their outputs are 0) and keys. Masked
    logits are set to -0.7 * the float32 maximum; the softmax is in
    float32, whatever the inputs' dtype. `return_residual` also returns the
    logsumexp of the logits, (B, T, N). Returns query's shape."""
    output_shape = asarray(query, fn="dot_product_attention").shape
    query, key, value = _to_4d(query), _to_4d(key), _to_4d(value)
    bias = None if bias is None else _to_4d(bias)
    mask = None if mask is None else _to_4d(mask)
    if query_seq_lengths is not None:
        query_seq_lengths = asarray(query_seq_lengths, fn="dot_product_attention")
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = asarray(key_value_seq_lengths, fn="dot_product_attention")
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)

    if key.ndim != 4:
        raise ValueError(f"nn.dot_product_attention: key ndim should be 4, but got {key.ndim}")
    B, S, K, H = key.shape
    _check_attention_arg(value, (B, S, K, H), key.dtype, "value")
    _check_attention_arg(query, (B, -1, -1, H), key.dtype, "query")
    _check_attention_arg(mask, (-1,) * 4, np.bool_, "mask")
    _check_attention_arg(bias, (-1,) * 4, None, "bias")
    _check_attention_arg(query_seq_lengths, (B,), np.int32, "query_seq_lengths")
    _check_attention_arg(key_value_seq_lengths, (B,), np.int32, "key_value_seq_lengths")
    T, N = query.shape[1], query.shape[2]
    if N % K != 0:
        raise ValueError("nn.dot_product_attention: the number of query heads must be a multiple of key/value "
                         f"heads, but got {N} vs {K}")
    if implementation == "cudnn":
        raise RuntimeError("nn.dot_product_attention: implementation='cudnn' needs cuDNN, which jaxc does not "
                           "use; pass implementation='xla' or None")
    if implementation not in (None, "xla"):
        raise ValueError(f"nn.dot_product_attention: unsupported implementation option: {implementation}")
    G = N // K
    scale = 1.0 / np.sqrt(H) if scale is None else scale

    logits_dtype = dtypes.promote_types(query.dtype, np.float32)
    grouped_query = lax.reshape(query, (B, T, K, G, H))
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", grouped_query, key, preferred_element_type=logits_dtype)
    logits = ew.multiply(logits, lax.convert_element_type(asarray(scale), logits_dtype))
    if bias is not None:
        logits = lax.convert_element_type(ew.add(logits, _grouped(bias, N, K, "bias")), logits_dtype)
    combined = _attention_mask(_grouped(mask, N, K, "mask"), is_causal, local_window_size, query_seq_lengths,
                               key_value_seq_lengths, T, S)
    if combined is not None:
        # JAX's "large negative": finite in float32, so a fully masked row is uniform, not NaN
        large_negative = -0.7 * min(np.finfo(logits_dtype).max, np.finfo(np.float32).max)
        logits = ew.where(combined, logits, lax.convert_element_type(asarray(large_negative), logits_dtype))
    logits = lax.convert_element_type(logits, np.float32)  # the softmax is always in float32
    probs = lax.convert_element_type(softmax(logits, axis=-1), key.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, value)
    if query_seq_lengths is not None:
        valid = ew.less(np.arange(T, dtype=np.int32)[None, :, None, None, None],
                        jnp.reshape(query_seq_lengths, (-1, 1, 1, 1, 1)))
        encoded = ew.multiply(encoded, lax.convert_element_type(valid, encoded.dtype))
    out = lax.reshape(lax.reshape(encoded, (B, T, N, H)), output_shape)
    if not return_residual:
        return out
    residual = lax.convert_element_type(logsumexp(logits, axis=-1), key.dtype)  # (B, K, G, T)
    residual = lax.reshape(lax.transpose(residual, (0, 3, 1, 2)), (B, T, N))
    return out, lax.reshape(lax.stop_gradient(residual), output_shape[:-1])


def __getattr__(name: str) -> Any:
    if name == "initializers":  # loaded on first use, as jaxc's other submodules
        import importlib
        return importlib.import_module(".initializers", __name__)
    raise AttributeError(f"module 'jaxc.nn' has no attribute '{name}'")


__all__ = ["celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
           "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp",
           "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax",
           "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "swish", "tanh"]
