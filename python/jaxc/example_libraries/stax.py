"""`jaxc.example_libraries.stax`: JAX's example neural-network layer
library, as `jax.example_libraries.stax`.

A layer is a pair `(init_fun, apply_fun)`:

    from jaxc.example_libraries import stax
    init_fun, apply_fun = stax.serial(stax.Dense(512), stax.Relu, stax.Dense(10), stax.LogSoftmax)
    output_shape, params = init_fun(random.PRNGKey(0), (-1, 784))
    logits = apply_fun(params, inputs)

`init_fun(rng, input_shape)` returns the output shape and the parameters
(drawn with `jaxc.nn.initializers`, with JAX's key splits, so the same key
gives JAX's parameters); `apply_fun(params, inputs, **kwargs)` computes the
layer (`rng=key` for Dropout). Combinators (`serial`, `parallel`, `FanOut`,
`FanInSum`, `FanInConcat`, `shape_dependent`) build models from layers.

Two pieces JAX takes from `jax.lax` are written here over jaxc's lax:
`conv_transpose` (a convolution with `lhs_dilation`, as JAX builds it) and
the windowed reductions of the pooling layers (`lax.reduce_window` does not
exist in jaxc yet: the windows are strided slices of the padded input,
combined in the window's row-major order, the order in which XLA reduces).
See docs/example_libraries.md.
"""
from __future__ import annotations

import functools
import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

import jaxc.numpy as jnp
from jaxc import lax, random
from jaxc.nn import elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus, standardize
from jaxc.nn.initializers import glorot_normal, normal, ones, zeros

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


# -- shapes and windows (JAX's lax helpers that jaxc's lax does not have) ---------------------

def _stride_dim(size: int, window: int, stride: int) -> int:
    return max((size - window) // stride + 1, 0)


def _conv_permutations(dimension_numbers: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """For each of (lhs, rhs, out) spec strings: the axes of (batch or O,
    feature or I, spatial axes in the rhs's order)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        spec = dimension_numbers[i]
        if spec.count(a) != 1 or spec.count(b) != 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain '{a}' and '{b}' exactly once, "
                            f"got {spec}")
        if len(set(spec)) != len(spec):
            raise TypeError(f"convolution dimension_numbers[{i}] has a repeated character: {spec}")
    if not set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}:
        raise TypeError(f"convolution dimension_numbers must have the same spatial characters, "
                        f"got {dimension_numbers}")

    def permutation(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)
    return tuple(permutation(spec, pair) for spec, pair in zip(dimension_numbers, pairs))


def _in_layout(shape: Sequence[int], permutation: Sequence[int]) -> list[int]:
    return [shape[i] for i in permutation]


def _from_layout(canonical: Sequence[int], permutation: Sequence[int]) -> tuple[int, ...]:
    out = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        out[axis] = int(canonical[position])
    return tuple(out)


def _conv_shape(lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int], padding: Any,
                dimension_numbers: Sequence[str]) -> tuple[int, ...]:
    """The output shape of lax.conv_general_dilated (JAX's conv_general_shape_tuple)."""
    lhs_perm, rhs_perm, out_perm = _conv_permutations(dimension_numbers)
    lhs = _in_layout(lhs_shape, lhs_perm)
    rhs = _in_layout(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = lax.padtype_to_pads(lhs[2:], rhs[2:], strides, padding)
    if len(padding) != len(lhs) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {len(lhs) - 2}, "
                        f"got {len(padding)}.")
    padded = [size + lo + hi for size, (lo, hi) in zip(lhs[2:], padding)]
    if any(size < 0 for size in padded):
        raise ValueError(f"Negative padding is larger than the size of the corresponding dimension: "
                         f"got padding={padding} for lhs_shape[2:]={lhs[2:]}")
    spatial = [_stride_dim(size, window, stride) for size, window, stride in zip(padded, rhs[2:], strides)]
    return _from_layout([lhs[0], rhs[0], *spatial], out_perm)


def _conv_transpose_padding(kernel: int, stride: int, padding: Any) -> tuple[int, int]:
    """(before, after) padding of the dilated input of a transposed
    convolution whose forward convolution had `padding` (JAX's rule)."""
    if padding == "SAME":
        total = kernel + stride - 2
        before = kernel - 1 if stride > kernel - 1 else int(np.ceil(total / 2))
    elif padding == "VALID":
        total = kernel + stride - 2 + max(kernel - stride, 0)
        before = kernel - 1
    elif isinstance(padding, tuple):
        pads = tuple(kernel - p - 1 for p in padding)
        before, total = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


def _conv_transpose_shape(lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int], padding: Any,
                          dimension_numbers: Sequence[str]) -> tuple[int, ...]:
    """The output shape of `_conv_transpose` (JAX's conv_transpose_shape_tuple)."""
    lhs_perm, rhs_perm, out_perm = _conv_permutations(dimension_numbers)
    lhs = _in_layout(lhs_shape, lhs_perm)
    rhs = _in_layout(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], strides)]
    totals = [sum(p) for p in padding]
    spatial = [(i - 1) * s - k + 2 + total for i, k, s, total in zip(lhs[2:], rhs[2:], strides, totals)]
    return _from_layout([lhs[0], rhs[0], *spatial], out_perm)


def _conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Any, dimension_numbers: Sequence[str]) -> Any:
    """JAX's lax.conv_transpose (kernel not flipped): a unit-stride
    convolution of the input dilated by `strides`, padded per
    `_conv_transpose_padding` for "SAME"/"VALID" (explicit pads as given)."""
    _, rhs_perm, _ = _conv_permutations(dimension_numbers)
    kernel = [rhs.shape[i] for i in rhs_perm[2:]]
    if isinstance(padding, str) and padding in ("SAME", "VALID"):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(kernel, strides)]
    one = (1,) * len(kernel)
    return lax.conv_general_dilated(lhs, rhs, one, padding, lhs_dilation=tuple(strides), rhs_dilation=one,
                                    dimension_numbers=tuple(dimension_numbers))


def _reduce_window(x: Any, init_value: float, combine: Callable[[Any, Any], Any], window: Sequence[int],
                   strides: Sequence[int], padding: Any) -> Any:
    """lax.reduce_window for an associative `combine` with identity
    `init_value` (max with -inf, add with 0): the input padded with
    `init_value`, then one strided slice per window offset, combined in the
    window's row-major order."""
    x = jnp.asarray(x)
    window, strides = tuple(window), tuple(strides)
    pads = lax.padtype_to_pads(x.shape, window, strides, padding) if isinstance(padding, str) else \
        [tuple(p) for p in padding]
    out_shape = _reduce_window_shape(x.shape, window, strides, pads)
    if 0 in out_shape or 0 in window:
        return lax.full(out_shape, init_value, x.dtype)
    if any(lo or hi for lo, hi in pads):
        x = lax.pad(x, lax.full((), init_value, x.dtype), [(lo, hi, 0) for lo, hi in pads])
    result = None
    for offset in itertools.product(*(range(w) for w in window)):
        limit = [o + (n - 1) * s + 1 for o, n, s in zip(offset, out_shape, strides)]
        piece = lax.slice(x, offset, limit, strides)
        result = piece if result is None else combine(result, piece)
    return result


def _reduce_window_shape(shape: Sequence[int], window: Sequence[int], strides: Sequence[int],
                         pads: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    return tuple(_stride_dim(size + lo + hi, w, s) for size, w, s, (lo, hi) in zip(shape, window, strides, pads))


# -- layers ----------------------------------------------------------------------------------

def Dense(out_dim: int, W_init: Callable = glorot_normal(), b_init: Callable = normal()) -> tuple[Callable, Callable]:
    """A fully connected layer: inputs @ W + b, W of shape (in, out_dim)."""
    def init_fun(rng, input_shape):
        output_shape = tuple(input_shape[:-1]) + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(lhs_spec: str, rhs_spec: str, out_chan: int, filter_shape: Sequence[int],
                  input_shape: Sequence[int]) -> list[int]:
    spatial = iter(filter_shape)
    return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
            for c in rhs_spec]


def GeneralConv(dimension_numbers: Sequence[str], out_chan: int, filter_shape: Sequence[int],
                strides: Sequence[int] | None = None, padding: Any = "VALID", W_init: Callable | None = None,
                b_init: Callable = normal(1e-6)) -> tuple[Callable, Callable]:
    """A convolution with layouts `dimension_numbers` = (lhs, rhs, out)
    spec strings, `out_chan` output channels and a `filter_shape` window.
    W defaults to glorot_normal over the kernel's I and O axes; b has the
    output's rank, out_chan along C."""
    one = (1,) * len(filter_shape)

    def convolve(inputs, W, strides):
        return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                        dimension_numbers=tuple(dimension_numbers))
    return _conv_layer(_conv_shape, convolve, dimension_numbers, out_chan, filter_shape, strides, padding,
                       W_init, b_init)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers: Sequence[str], out_chan: int, filter_shape: Sequence[int],
                         strides: Sequence[int] | None = None, padding: Any = "VALID",
                         W_init: Callable | None = None, b_init: Callable = normal(1e-6)) -> tuple[Callable, Callable]:
    """A transposed convolution (JAX's lax.conv_transpose: the input dilated
    by `strides`, the kernel not flipped), laid out as GeneralConv."""
    def convolve(inputs, W, strides):
        return _conv_transpose(inputs, W, strides, padding, dimension_numbers)
    return _conv_layer(_conv_transpose_shape, convolve, dimension_numbers, out_chan, filter_shape, strides,
                       padding, W_init, b_init)


def _conv_layer(output_shape_of: Callable, convolve: Callable, dimension_numbers: Sequence[str], out_chan: int,
                filter_shape: Sequence[int], strides: Sequence[int] | None, padding: Any,
                W_init: Callable | None, b_init: Callable) -> tuple[Callable, Callable]:
    """GeneralConv and GeneralConvTranspose: the kernel and bias shapes and
    initialization they share; `output_shape_of` and `convolve(inputs, W,
    strides)` are what differs."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape)
        output_shape = output_shape_of(input_shape, kernel_shape, strides, padding, dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return convolve(inputs, W, strides) + b
    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis: Any = (0, 1, 2), epsilon: float = 1e-5, center: bool = True, scale: bool = True,
              beta_init: Callable = zeros, gamma_init: Callable = ones) -> tuple[Callable, Callable]:
    """Normalizes over `axis` (the batch statistics of each call: stax keeps
    no running averages), then gamma * z + beta with parameters over the
    other axes (each left out with center=False / scale=False: then `()`)."""
    axis = (axis,) if np.ndim(axis) == 0 else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[expand] * z + beta[expand]
        if center:
            return z + beta[expand]
        if scale:
            return gamma[expand] * z
        return z
    return init_fun, apply_fun


def elementwise(fun: Callable, **fun_kwargs: Any) -> tuple[Callable, Callable]:
    """A parameterless layer applying `fun(inputs, **fun_kwargs)`."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _pooling_layer(combine: Callable, init_value: float, rescaler: Callable | None = None) -> Callable:
    def PoolingLayer(window_shape: Sequence[int], strides: Sequence[int] | None = None, padding: Any = "VALID",
                     spec: str | None = None) -> tuple[Callable, Callable]:
        """A pooling layer over the spatial axes (all but N and C of `spec`;
        without a spec, all but the first and the last) with a
        `window_shape` window, `strides` (default 1) and `padding`."""
        window_shape, strides = tuple(window_shape), tuple(strides or (1,) * len(window_shape))
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        non_spatial_axes = (0, len(window_shape) + 1) if spec is None else (spec.index("N"), spec.index("C"))
        for i in sorted(non_spatial_axes):
            window_shape = window_shape[:i] + (1,) + window_shape[i:]
            strides = strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window_shape, strides, padding) \
                if isinstance(padding, str) else padding
            return _reduce_window_shape(input_shape, window_shape, strides, pads), ()

        def apply_fun(params, inputs, **kwargs):
            out = _reduce_window(inputs, init_value, combine, window_shape, strides, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -np.inf)
SumPool = _pooling_layer(lax.add, 0.0)


def _normalize_by_window_size(dims: Sequence[int], strides: Sequence[int], padding: Any) -> Callable:
    """Divides a window sum by the number of input (not padding) elements in
    each window."""
    def rescale(outputs, inputs, spec):
        non_spatial_axes = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim) if i not in non_spatial_axes)
        window_sizes = _reduce_window(jnp.ones(spatial_shape, dtype=inputs.dtype), 0.0, lax.add, dims, strides,
                                      padding)
        for i in sorted(non_spatial_axes):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes
    return rescale


AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)


def _flatten() -> tuple[Callable, Callable]:
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = _flatten()  # all axes but the first flattened into one


def _identity() -> tuple[Callable, Callable]:
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return inputs
    return init_fun, apply_fun


Identity = _identity()


def FanOut(num: int) -> tuple[Callable, Callable]:
    """The input repeated `num` times (a list), for `parallel`."""
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num
    return init_fun, apply_fun


def _fan_in_sum() -> tuple[Callable, Callable]:
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)
    return init_fun, apply_fun


FanInSum = _fan_in_sum()  # the sum of a sequence of inputs


def FanInConcat(axis: int = -1) -> tuple[Callable, Callable]:
    """A sequence of inputs concatenated along `axis`."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return tuple(input_shape[0][:ax]) + (size,) + tuple(input_shape[0][ax + 1:]), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> tuple[Callable, Callable]:
    """Dropout keeping each element with probability `rate` (JAX's stax
    calls the keep probability `rate`) and scaling the kept ones by 1/rate,
    in mode "train"; any other mode passes the inputs through. apply_fun
    needs `rng=key` in every mode (ValueError otherwise)."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key argument: "
                             "call it as apply_fun(params, inputs, rng=key) with a key from jax.random.key "
                             "(in every mode).")
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, _divide_by_scalar(inputs, rate), 0)
        return inputs
    return init_fun, apply_fun


def _divide_by_scalar(x: Any, divisor: Any) -> Any:
    """x / divisor as JAX computes it: XLA turns a division by a constant
    (a Python or NumPy scalar) into a product with its reciprocal, rounded
    to x's dtype, so that is what gives JAX's bits (up to 1 ulp from the
    quotient); a traced divisor is divided by."""
    x = jnp.asarray(x)
    if isinstance(divisor, (int, float, np.number)) and jnp.issubdtype(x.dtype, jnp.floating):
        reciprocal = lax.div(lax.full((), 1, x.dtype), lax.full((), divisor, x.dtype))
        return x * reciprocal
    return x / divisor


# -- combinators -------------------------------------------------------------------------------

def serial(*layers: tuple[Callable, Callable]) -> tuple[Callable, Callable]:
    """The layers one after the other. init_fun splits its key once per
    layer (a fresh key each time) and returns the list of their parameters;
    apply_fun gives layer i the i-th of `split(rng, len(layers))` when called
    with `rng=`."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for layer_init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = layer_init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, layer_rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers: tuple[Callable, Callable]) -> tuple[Callable, Callable]:
    """The layers side by side: layer i takes the i-th input (a sequence,
    as FanOut makes) and gives the i-th output. As in JAX, init_fun returns
    a `zip` of (output shapes, parameters), to be unpacked in two."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        return zip(*[layer_init(layer_rng, shape) for layer_init, layer_rng, shape
                     in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], tuple[Callable, Callable]]) -> tuple[Callable, Callable]:
    """A layer built by `make_layer(input_shape)` once the input shape is
    known (at init and at every apply)."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun


__all__ = ["AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout", "Elu", "Exp",
           "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv", "GeneralConvTranspose",
           "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu", "Selu", "Sigmoid", "Softmax", "Softplus",
           "SumPool", "Tanh", "elementwise", "glorot", "logsoftmax", "parallel", "randn", "serial",
           "shape_dependent"]
