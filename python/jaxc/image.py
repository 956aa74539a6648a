"""`jax.image`: resizing, scaling and translating images.

    jaxc.image.resize(img, (64, 64, 3), "bilinear")
    jaxc.image.scale_and_translate(img, (64, 64, 3), (0, 1), scale, translation, "lanczos3")

As JAX's `jax/_src/image/scale.py`: every spatial dimension is resampled by
a dense weight matrix (input size x output size) built from the method's
kernel, and the matrices are contracted with the image by one `jnp.einsum`.
Pixels are half-centered (pixel `i` sits at `i + 0.5`); when downsampling
with `antialias` the kernel is widened by the inverse scale (a low-pass
filter); each output pixel's weights are normalized to sum to 1, and an
output pixel whose sample point lies outside the input is 0. `nearest`
gathers (`floor((i + 0.5) * in / out)`). Everything is ordinary jnp code,
so `grad`, `vmap` and `jit` apply. `precision` is accepted and has no effect
(jaxc contracts float32 in float32).
"""
from __future__ import annotations

import enum
from typing import Any, Sequence

import numpy as np

from . import numpy as jnp
from .api import jit
from .numpy._util import promote_dtypes_inexact


class ResizeMethod(enum.Enum):
    """Image resize methods (JAX's enum, same values)."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> "ResizeMethod":
        try:
            return _METHOD_NAMES[s]
        except KeyError:
            raise ValueError(f'Unknown resize method "{s}"') from None


_METHOD_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(["linear", "bilinear", "trilinear", "triangle"], ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(["cubic", "bicubic", "tricubic"], ResizeMethod.CUBIC),
    **dict.fromkeys(["cubic-pytorch", "bicubic-pytorch"], ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}


def _lanczos(radius: float, x: Any) -> Any:
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
    return jnp.where(x > radius, 0., out)


def _keys_cubic(x: Any) -> Any:
    """Keys' cubic kernel, A = -0.5 (Pillow, TensorFlow, PyTorch with antialias)."""
    out = ((1.5 * x - 2.5) * x) * x + 1.
    out = jnp.where(x >= 1., ((-0.5 * x + 2.5) * x - 4.) * x + 2., out)
    return jnp.where(x >= 2., 0., out)


def _opencv_cubic(x: Any) -> Any:
    """The cubic kernel with A = -0.75 (OpenCV, PyTorch without antialias)."""
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _triangle(x: Any) -> Any:
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # the area "kernel": overlap lengths, not a function of the distance

# method -> (kernel radius, kernel)
_KERNELS: dict[ResizeMethod, tuple[int, Any]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, lambda x: _lanczos(3., x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _lanczos(5., x)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}

_TINY = 1000. * float(np.finfo(np.float32).eps)  # weight sums below this give 0


def _normalize(weights: Any) -> Any:
    total = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > _TINY, jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def compute_weight_mat(input_size: int, output_size: int, scale: Any, translation: Any,
                       kernel: Any, antialias: bool, edge_padding: bool, radius: int) -> Any:
    """The (input_size, output_size) resampling matrix of one dimension."""
    dtype = jnp.result_type(scale, translation)
    inv_scale = 1. / scale
    # Downsampling widens the kernel (a low-pass filter); upsampling only interpolates.
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    # The input coordinate of each output pixel's center.
    sample_f = (jnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    k = radius if edge_padding else 0  # edge padding only without antialias (as in JAX)
    expanded = jnp.arange(-k, input_size + k, dtype=dtype)
    if kernel is _AREA:
        left = jnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right = left + inv_scale
        in_left = jnp.arange(input_size, dtype=dtype)
        weights = jnp.maximum(0.0, jnp.minimum(right[np.newaxis, :], in_left[:, np.newaxis] + 1.0)
                              - jnp.maximum(left[np.newaxis, :], in_left[:, np.newaxis]))
    else:
        weights = kernel(jnp.abs(sample_f[np.newaxis, :] - expanded[:, np.newaxis]) / kernel_scale)
    if edge_padding:
        # Weights of pixels beyond the edges go to the edge pixels.
        clamped = jnp.clip(expanded.astype(jnp.int32), 0, input_size - 1)
        columns = jnp.broadcast_to(jnp.arange(output_size)[np.newaxis, :], weights.shape)
        matrix = jnp.zeros((input_size, output_size), dtype=dtype)
        return _normalize(matrix.at[clamped[:, np.newaxis], columns].add(weights))
    weights = _normalize(weights)
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return jnp.where(inside[np.newaxis, :], weights, 0)


def _scale_and_translate(x: Any, shape: tuple[int, ...], spatial_dims: Sequence[int], scale: Any,
                         translation: Any, method: ResizeMethod, antialias: bool) -> Any:
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    if not spatial_dims:
        return x
    operands: list[Any] = [x, list(range(x.ndim))]
    out_indices = list(range(x.ndim))
    for i, d in enumerate(spatial_dims):
        d = _axis(d, x.ndim)
        w = compute_weight_mat(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias,
                               edge_padding, radius).astype(x.dtype)
        operands += [w, [d, x.ndim + i]]
        out_indices[d] = x.ndim + i
    return jnp.einsum(*operands, out_indices)


def _axis(d: int, ndim: int) -> int:
    if not -ndim <= d < ndim:
        raise ValueError(f"axis {d} is out of bounds for array of dimension {ndim}")
    return d % ndim


def _method(method: Any) -> ResizeMethod:
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    if not isinstance(method, ResizeMethod):
        raise TypeError(f"method must be a string or a ResizeMethod, got {method!r}")
    return method


def _shape(image: Any, shape: Any) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if len(shape) != np.ndim(image):
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {np.shape(image)}")
    return shape


def scale_and_translate(image: Any, shape: Sequence[int], spatial_dims: Sequence[int], scale: Any,
                        translation: Any, method: str | ResizeMethod, antialias: bool = True,
                        precision: Any = None) -> Any:
    """Resample `image` to `shape`: an input location ``x`` of dimension
    ``spatial_dims[i]`` moves to ``x * scale[i] + translation[i]`` (pixel
    centers at ``i + 0.5``); output pixels that map outside the input are 0.
    `nearest` is not supported here (as in JAX)."""
    image = jnp.asarray(image)
    shape = _shape(image, shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    if len(spatial_dims) != len(scale) or len(spatial_dims) != len(translation):
        raise ValueError(f"scale_and_translate: spatial_dims ({len(spatial_dims)}), scale "
                         f"({len(scale)}) and translation ({len(translation)}) must have one entry "
                         "per spatial dimension")
    return _scale_and_translate_jit(image, shape, tuple(spatial_dims), scale, translation, method,
                                    bool(antialias))


@jit(static_argnums=(1, 2, 5, 6))
def _scale_and_translate_jit(image: Any, shape: tuple[int, ...], spatial_dims: tuple[int, ...],
                             scale: Any, translation: Any, method: ResizeMethod, antialias: bool) -> Any:
    image, = promote_dtypes_inexact("scale_and_translate", image)
    scale, translation = promote_dtypes_inexact("scale_and_translate", scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, method, antialias)


def _resize_nearest(x: Any, shape: tuple[int, ...]) -> Any:
    for d, (m, n) in enumerate(zip(x.shape, shape)):
        if m != n:
            offsets = (jnp.arange(n, dtype=np.float32) + 0.5) * m / n
            index: list[Any] = [slice(None)] * x.ndim
            index[d] = jnp.floor(offsets).astype(np.int32)
            x = x[tuple(index)]
    return x


def resize(image: Any, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision: Any = None) -> Any:
    """Resize `image` to `shape` (every dimension; a batch or channel
    dimension keeps its size). Methods: ``"nearest"`` (keeps the dtype),
    ``"linear"``/``"bilinear"``/``"trilinear"``/``"triangle"``,
    ``"cubic"``/``"bicubic"``/``"tricubic"`` (Keys, A = -0.5),
    ``"cubic-pytorch"``, ``"lanczos3"``, ``"lanczos5"``, ``"area"``, or a
    `ResizeMethod`; the others return a floating result. `antialias` widens
    the kernel when downsampling."""
    image = jnp.asarray(image)
    return _resize(image, _shape(image, shape), _method(method), bool(antialias))


@jit(static_argnums=(1, 2, 3))
def _resize(image: Any, shape: tuple[int, ...], method: ResizeMethod, antialias: bool) -> Any:
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact("resize", image)
    # Identity dimensions are skipped: every kernel interpolates.
    spatial_dims = tuple(d for d in range(image.ndim) if image.shape[d] != shape[d])
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.] * len(spatial_dims),
                                method, antialias)
