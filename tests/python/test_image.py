"""jaxc.image: resize and scale_and_translate, against a NumPy version of
the kernel formula and against JAX where it is installed."""
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import image

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 7, 2)).astype(np.float32)


def linear_weights(m: int, n: int, scale: float, translation: float, antialias: bool) -> np.ndarray:
    """The (m, n) matrix of linear resampling, from the formula: output pixel
    j samples the input at s = (j + 0.5 - t) / scale - 0.5 with the triangle
    kernel, widened by 1/scale when downsampling with antialias, normalized."""
    width = max(1 / scale, 1.0) if antialias else 1.0
    s = (np.arange(n) + 0.5 - translation) / scale - 0.5
    w = np.maximum(0.0, 1 - np.abs(s[None, :] - np.arange(m)[:, None]) / width)
    total = w.sum(axis=0, keepdims=True)
    w = w / np.where(total > 0, total, 1)
    return np.where((s >= -0.5) & (s <= m - 0.5), w, 0.0)


@pytest.mark.parametrize("shape,antialias", [((9, 4, 2), True), ((9, 4, 2), False), ((3, 12, 2), True)])
def test_linear_resize_is_the_kernel_formula(shape, antialias):
    a = linear_weights(5, shape[0], shape[0] / 5, 0.0, antialias)
    b = linear_weights(7, shape[1], shape[1] / 7, 0.0, antialias)
    expected = np.einsum("ijc,ik,jl->klc", X.astype(np.float64), a, b)
    out = image.resize(X, shape, "bilinear", antialias=antialias)
    assert out.shape == shape and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-5)


def test_scale_and_translate_linear_is_the_kernel_formula():
    out = image.scale_and_translate(X, (8, 5, 2), (0, 1), jnp.array([1.7, 0.6]),
                                    jnp.array([0.3, -1.2]), "linear")
    a = linear_weights(5, 8, 1.7, 0.3, True)
    b = linear_weights(7, 5, 0.6, -1.2, True)
    expected = np.einsum("ijc,ik,jl->klc", X.astype(np.float64), a, b)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-5)


def test_nearest_keeps_dtype_and_picks_pixels():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = image.resize(x, (6, 2), "nearest")
    assert out.dtype == np.int32
    rows = np.floor((np.arange(6) + 0.5) * 3 / 6).astype(int)
    cols = np.floor((np.arange(2) + 0.5) * 4 / 2).astype(int)
    np.testing.assert_array_equal(np.asarray(out), x[rows][:, cols])


def test_identity_resize_and_int_promotion():
    out = image.resize(np.arange(6, dtype=np.int32).reshape(2, 3), (2, 3), "cubic")
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.arange(6.0).reshape(2, 3))


def test_method_names_and_errors():
    assert image.ResizeMethod.from_string("bilinear") is image.ResizeMethod.LINEAR
    assert image.ResizeMethod.from_string("tricubic") is image.ResizeMethod.CUBIC
    assert [m.name for m in image.ResizeMethod] == ["NEAREST", "LINEAR", "LANCZOS3", "LANCZOS5",
                                                    "CUBIC", "CUBIC_PYTORCH", "AREA"]
    with pytest.raises(ValueError, match='Unknown resize method "bogus"'):
        image.resize(X, (3, 3, 2), "bogus")
    with pytest.raises(ValueError, match="shape must have length equal"):
        image.resize(X, (3, 3), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not currently supported"):
        image.scale_and_translate(X, (3, 3, 2), (0,), jnp.ones(1), jnp.zeros(1), "nearest")


def test_grad_and_vmap():
    x = X[..., 0]
    # resize is linear in the image: the gradient of sum(resize(x) * c) is resize's transpose of c.
    a = linear_weights(5, 3, 3 / 5, 0.0, True)
    b = linear_weights(7, 9, 9 / 7, 0.0, True)
    c = RNG.standard_normal((3, 9)).astype(np.float32)
    g = jaxc.grad(lambda v: jnp.sum(image.resize(v, (3, 9), "linear") * c))(x)
    np.testing.assert_allclose(np.asarray(g), a @ c @ b.T, rtol=1e-5, atol=1e-5)
    # gradient with respect to the scale, against a central difference
    def f(s):
        return jnp.sum(image.scale_and_translate(x, (4, 6), (0, 1), s, jnp.zeros(2), "cubic") ** 2)
    s = jnp.array([0.8, 0.9])
    gs = np.asarray(jaxc.grad(f)(s))
    eps = 1e-2
    for i in range(2):
        d = np.zeros(2, np.float32)
        d[i] = eps
        fd = (float(f(s + d)) - float(f(s - d))) / (2 * eps)
        np.testing.assert_allclose(gs[i], fd, rtol=2e-2)
    batched = jaxc.vmap(lambda v: image.resize(v, (9, 4), "lanczos3"), in_axes=2, out_axes=2)(X)
    for k in range(2):
        np.testing.assert_allclose(np.asarray(batched[..., k]),
                                   np.asarray(image.resize(X[..., k], (9, 4), "lanczos3")), atol=1e-6)


def test_jit():
    f = jaxc.jit(lambda v: image.resize(v, (9, 4, 2), "lanczos5"))
    np.testing.assert_allclose(np.asarray(f(X)), np.asarray(image.resize(X, (9, 4, 2), "lanczos5")),
                               atol=1e-6)


@pytest.mark.parametrize("method", ["nearest", "linear", "cubic", "lanczos3", "lanczos5",
                                    "cubic-pytorch", "area"])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_matches_jax(method, antialias):
    jax = pytest.importorskip("jax")
    for shape in [(9, 4, 2), (3, 11, 2)]:
        ours = np.asarray(image.resize(X, shape, method, antialias))
        theirs = np.asarray(jax.image.resize(X, shape, method, antialias))
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "cubic-pytorch", "area"])
def test_scale_and_translate_matches_jax(method):
    jax = pytest.importorskip("jax")
    s, t = np.array([1.7, 0.6], np.float32), np.array([0.3, -1.2], np.float32)
    for antialias in (True, False):
        ours = image.scale_and_translate(X, (8, 5, 2), (0, 1), s, t, method, antialias)
        theirs = jax.image.scale_and_translate(X, (8, 5, 2), (0, 1), s, t, method, antialias)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=2e-6)
