"""`jaxc.nn`: activation functions, softmax and one-hot encoding, as `jax.nn`.

    import jaxc.nn as nn
    nn.relu(x); nn.gelu(x); nn.softmax(logits, axis=-1); nn.one_hot(labels, 10)
    nn.initializers.glorot_uniform()(key, (784, 512))   # jaxc.nn.initializers: docs/nn.md

Activations that need a float (sigmoid, gelu, softmax, ...) turn ints into
the default float; relu and leaky_relu keep integer dtypes (as JAX). Softmax
and log_softmax subtract the maximum first, so large logits do not overflow.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..numpy import _elementwise as ew  # first: jaxc.numpy sets up the front end
from .. import core, dtypes, lax
from ..numpy._util import asarray, broadcast_shapes, broadcast_to, canonicalize_axes, canonicalize_axis, \
    promote_dtypes_inexact
from ..scipy.special import expand_reduced, logsumexp

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float(name: str, x: Any) -> Any:
    return promote_dtypes_inexact(name, x)[0]


def _const(x: Any, value: float) -> Any:
    return lax.full_like(x, value)


# -- activations ------------------------------------------------------------------

def relu(x: Any) -> Any:
    """max(x, 0)."""
    return ew.maximum(x, 0)


def relu6(x: Any) -> Any:
    """min(max(x, 0), 6)."""
    return ew.minimum(ew.maximum(x, 0), 6.0)


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
        inner = lax.mul(_const(x, np.sqrt(2 / np.pi)), lax.add(x, lax.mul(_const(x, 0.044715), lax.mul(x, lax.mul(x, x)))))
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
    shift = lax.stop_gradient(lax.reduce_max(x, axes))  # as JAX: an inf in the row gives NaNs
    unnormalized = lax.exp(lax.sub(x, expand_reduced(shift, axes, x.shape)))
    total = lax.reduce_sum(unnormalized, axes)
    out = lax.div(unnormalized, expand_reduced(total, axes, x.shape))
    return out if mask is None else lax.select(mask, out, lax.full_like(out, 0))


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """x - logsumexp(x) over `axis`; entries outside `where` are -inf."""
    x = _float("log_softmax", x)
    x, mask = _masked("log_softmax", x, where, -np.inf)
    axes = canonicalize_axes(axis, x.ndim, "log_softmax")
    shifted = lax.sub(x, expand_reduced(lax.stop_gradient(lax.reduce_max(x, axes)), axes, x.shape))
    log_total = lax.log(lax.reduce_sum(lax.exp(shifted), axes))
    out = lax.sub(shifted, expand_reduced(log_total, axes, x.shape))
    return out if mask is None else lax.select(mask, out, lax.full_like(out, -np.inf))


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
    num_classes = int(num_classes)
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


def __getattr__(name: str) -> Any:
    if name == "initializers":  # loaded on first use, as jaxc's other submodules
        import importlib
        return importlib.import_module(".initializers", __name__)
    raise AttributeError(f"module 'jaxc.nn' has no attribute '{name}'")


__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
           "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
           "soft_sign", "softmax", "softplus", "standardize", "swish"]
