"""jaxc.scipy.ndimage.map_coordinates against scipy.ndimage (JAX's 'constant'
and 'wrap' are SciPy's 'grid-constant' and 'grid-wrap') and, when installed,
JAX 0.10's jax.scipy.ndimage: every mode and order, 1-3 dimensions, points
far outside the array, integer inputs and coordinates, jit, vmap against a
loop, derivatives against finite differences, and the errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.ndimage as ndimage
from jaxc.test_util import check_grads

MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]
SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}
SHAPES = [(7,), (5, 6), (4, 5, 3)]


def _case(shape, dtype, n=13, seed=0):
    """Random values and coordinates from far below to far above each axis
    (several periods of the wrap and mirror modes), plus the edges."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    coords = []
    for size in shape:
        c = rng.uniform(-2.5 * size - 1, 2.5 * size + 1, n)
        c[:4] = [0.0, size - 1, -0.3, size - 0.7]
        coords.append(c.astype(dtype))
    return x, coords


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
def test_matches_scipy(shape, order, mode, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x, coords = _case(shape, dtype)
    got = ndimage.map_coordinates(x, coords, order, mode=mode, cval=1.5)
    want = scipy.ndimage.map_coordinates(x, coords, order=order, mode=SCIPY_MODE.get(mode, mode), cval=1.5)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, **_tol(dtype))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1])
def test_jit_matches_eager(order, mode):
    x, coords = _case((5, 6), np.float32, seed=1)
    fn = jaxc.jit(lambda a, c: ndimage.map_coordinates(a, c, order, mode=mode, cval=-2.0))
    got = fn(x, coords)
    want = ndimage.map_coordinates(x, coords, order, mode, -2.0)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    want = scipy.ndimage.map_coordinates(x, coords, order=order, mode=SCIPY_MODE.get(mode, mode), cval=-2.0)
    np.testing.assert_allclose(np.asarray(got), want, **_tol(np.float32))


def test_docstring_example_and_coordinate_forms():
    image = jnp.arange(12.0).reshape(3, 4)
    coords = [jnp.array([0.5, 1.5]), jnp.array([1.5, 2.5])]
    got = ndimage.map_coordinates(image, coords, order=1)
    np.testing.assert_array_equal(np.asarray(got), [3.5, 8.5])
    assert got.dtype == np.float32
    # coordinates as one (ndim, ...) array, as NumPy arrays, broadcasting; a list input
    np.testing.assert_array_equal(np.asarray(ndimage.map_coordinates(image, np.array([[0.5, 1.5], [1.5, 2.5]]), 1)),
                                  [3.5, 8.5])
    out = ndimage.map_coordinates(image, [jnp.array([[0.0], [2.0]]), jnp.array([0.0, 1.0, 3.0])], 1)
    np.testing.assert_array_equal(np.asarray(out), [[0, 1, 3], [8, 9, 11]])
    np.testing.assert_array_equal(np.asarray(ndimage.map_coordinates([1.0, 2.0, 3.0], [[0.5, 1.5]], 1)), [1.5, 2.5])
    assert ndimage.map_coordinates(image, [1.5, 0.25], 1).shape == ()


def test_outside_points_per_mode():
    """Worked values on [0, 1, 2, 3] (JAX's modes, not SciPy's legacy ones)."""
    x = jnp.array([0.0, 1.0, 2.0, 3.0])
    c = [jnp.array([-2.0, -1.0, -0.5, 3.5, 4.0, 5.0])]
    expected = {"constant": [9, 9, 4.5, 6, 9, 9], "nearest": [0, 0, 0, 3, 3, 3], "wrap": [2, 3, 1.5, 1.5, 0, 1],
                "mirror": [2, 1, 0.5, 2.5, 2, 1], "reflect": [1, 0, 0, 3, 3, 2]}
    for mode, want in expected.items():
        got = ndimage.map_coordinates(x, c, 1, mode=mode, cval=9.0)
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=mode)


@pytest.mark.parametrize("mode", MODES)
def test_size_one_axes(mode):
    x = jnp.array([[3.0, 4.0]])
    c = [jnp.array([-2.0, -0.5, 0.0, 0.25, 1.0, 2.5]), jnp.array([0.5] * 6)]
    got = np.asarray(ndimage.map_coordinates(x, c, 1, mode=mode))
    if mode == "constant":
        want = scipy.ndimage.map_coordinates(np.asarray(x), np.asarray(c), order=1, mode="grid-constant")
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, [3.5] * 6)


def test_order0_rounds_half_away_from_zero():
    x = jnp.arange(5.0)
    got = ndimage.map_coordinates(x, [jnp.array([-0.5, 0.5, 1.5, 2.5, -1.5, 2.49])], 0, mode="nearest")
    np.testing.assert_array_equal(np.asarray(got), [0, 1, 2, 3, 0, 2])
    got = ndimage.map_coordinates(x, [jnp.array([-0.5, -0.49, 4.49, 4.5])], 0, cval=7.0)
    np.testing.assert_array_equal(np.asarray(got), [7, 0, 4, 7])


def test_integer_inputs():
    """Integer arrays: float weights, the result rounded half away from zero
    and cast back; integer coordinates; a cval converted to the input dtype."""
    ints = jnp.arange(5)
    got = ndimage.map_coordinates(ints, [jnp.array([0.5, 1.5, 2.25, -0.5, 4.5])], 1)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), [1, 2, 2, 0, 2])
    for order in (0, 1):
        got = ndimage.map_coordinates(ints, [jnp.array([0, 1, -1, 5])], order)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), [0, 1, 0, 0])
    got = ndimage.map_coordinates(jnp.arange(5.0), [jnp.array([0, 3, -1, 5])], 1, cval=7.5)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), [0, 3, 7.5, 7.5])
    np.testing.assert_array_equal(np.asarray(ndimage.map_coordinates(ints, [jnp.array([-1.0])], 0, cval=-2.7)), [-2])
    u8 = ndimage.map_coordinates(jnp.array([0, 255, 10], jnp.uint8), [jnp.array([0.5, 1.5, -0.5])], 1)
    assert u8.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(u8), [128, 133, 0])
    # integer coordinates against SciPy (exact: no interpolation happens)
    x, _ = _case((5, 6), np.float32)
    c = [np.array([0, 4, -3, 7, 2]), np.array([5, 0, 2, -8, 11])]
    for mode in MODES:
        want = scipy.ndimage.map_coordinates(x, c, order=1, mode=SCIPY_MODE.get(mode, mode))
        np.testing.assert_array_equal(np.asarray(ndimage.map_coordinates(x, c, 1, mode=mode)), want)


def test_dtypes(x64):
    x64_in = np.arange(6.0).reshape(2, 3)
    c32 = [np.array([0.3], np.float32), np.array([1.7], np.float32)]
    assert ndimage.map_coordinates(x64_in, c32, 1).dtype == np.float64
    assert ndimage.map_coordinates(x64_in.astype(np.float32), [c.astype(np.float64) for c in c32], 1).dtype == \
        np.float32
    assert ndimage.map_coordinates(x64_in.astype(np.complex64), c32, 1).dtype == np.complex64
    assert ndimage.map_coordinates(x64_in.astype(np.float16), c32, 0).dtype == np.float16


@pytest.mark.parametrize("order", [0, 1])
def test_vmap_matches_loop(order):
    x, _ = _case((5, 6), np.float32)
    rng = np.random.default_rng(3)
    coords = rng.uniform(-2, 7, (4, 2, 9)).astype(np.float32)   # a batch of 4 (2, 9) coordinate arrays
    fn = lambda c: ndimage.map_coordinates(x, c, order, mode="reflect")   # noqa: E731
    got = jaxc.vmap(fn)(coords)
    want = np.stack([np.asarray(fn(c)) for c in coords])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
    # batched over the input, coordinates shared; and both batched, under jit
    xs = rng.standard_normal((3, 5, 6)).astype(np.float32)
    g = lambda a, c: ndimage.map_coordinates(a, [c[0], c[1]], order, mode="constant", cval=0.5)   # noqa: E731
    got = jaxc.vmap(g, in_axes=(0, None))(xs, coords[0])
    np.testing.assert_allclose(np.asarray(got), np.stack([np.asarray(g(a, coords[0])) for a in xs]), rtol=1e-6,
                               atol=1e-6)
    got = jaxc.jit(jaxc.vmap(g))(xs, coords[:3])
    np.testing.assert_allclose(np.asarray(got), np.stack([np.asarray(g(a, c)) for a, c in zip(xs, coords)]),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_gradients(mode, x64):
    """Linear interpolation is linear in the input and, away from integer
    coordinates (and the mirror points), piecewise linear in the coordinates."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 5))
    whole = rng.integers(-5, 9, (2, 6)).astype(np.float64)
    coords = whole + rng.uniform(0.2, 0.8, (2, 6))
    f = lambda a, c: ndimage.map_coordinates(a, [c[0], c[1]], 1, mode=mode, cval=0.5)   # noqa: E731
    check_grads(f, (x, coords), order=1, modes=("fwd", "rev"))
    check_grads(lambda a: ndimage.map_coordinates(a, list(coords), 0, mode=mode), (x,), order=1,
                modes=("fwd", "rev"))
    # the gradient in the coordinates is the local slope
    slope = jaxc.grad(lambda t: ndimage.map_coordinates(jnp.array([0.0, 2.0, 3.0]), [t], 1, mode=mode))(0.4)
    assert float(slope) == pytest.approx(2.0)


def test_errors():
    x = jnp.arange(5.0)
    with pytest.raises(ValueError, match="length input.ndim"):
        ndimage.map_coordinates(x, [x, x], 1)
    with pytest.raises(NotImplementedError, match="mode 'grid-wrap'"):
        ndimage.map_coordinates(x, [x], 1, mode="grid-wrap")
    with pytest.raises(NotImplementedError, match="order<=1"):
        ndimage.map_coordinates(x, [x], 3)
    with pytest.raises(NotImplementedError, match="order<=1"):
        ndimage.map_coordinates(x, [x], -1)
    with pytest.raises(ValueError, match="Non-hashable"):   # cval is static, as in JAX
        ndimage.map_coordinates(x, [x], 1, cval=np.array(2.0))


BAD_CALLS = [
    ("length", lambda m, x: m(x, [x, x], 1)),
    ("mode", lambda m, x: m(x, [x], 1, mode="grid-constant")),
    ("order", lambda m, x: m(x, [x], 2)),
    ("mode and order", lambda m, x: m(x, [x], 2, mode="foo")),
    ("array cval", lambda m, x: m(x, [x], 1, cval=np.array(1.0))),
    ("0-d input", lambda m, x: m(x[0], [], 1)),
]


@pytest.mark.parametrize("name,call", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_error_types_match_jax(name, call):
    pytest.importorskip("jax")
    import jax.scipy.ndimage

    with pytest.raises(Exception) as theirs:
        call(jax.scipy.ndimage.map_coordinates, jax.numpy.arange(5.0))
    with pytest.raises(Exception) as ours:
        call(ndimage.map_coordinates, jnp.arange(5.0))
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


JAX_CASES = [
    ("float32", np.float32, np.float32),
    ("int32 input", np.int32, np.float32),
    ("int32 coordinates", np.float32, np.int32),
    ("uint8", np.uint8, np.float32),
    ("complex64", np.complex64, np.float32),
    ("bool", np.bool_, np.float32),
]


@pytest.mark.parametrize("name,in_dtype,c_dtype", JAX_CASES, ids=[c[0] for c in JAX_CASES])
def test_matches_jax(name, in_dtype, c_dtype):
    pytest.importorskip("jax")
    import jax.scipy.ndimage

    rng = np.random.default_rng(5)
    for shape in SHAPES:
        x = rng.uniform(0, 250, shape)
        x = (x > 125 if in_dtype == np.bool_ else x + 1j * x[::-1] if in_dtype == np.complex64 else x).astype(in_dtype)
        coords = [np.concatenate([rng.uniform(-2 * s - 1, 2 * s + 1, 15), [-0.5, 0.5, np.nan]]).astype(np.float32)
                  if c_dtype == np.float32 else rng.integers(-2 * s, 2 * s + 1, 18).astype(c_dtype)
                  for s in shape]
        for order in (0, 1):
            for mode in MODES:
                want = jax.scipy.ndimage.map_coordinates(x, coords, order, mode=mode, cval=3.0)
                got = ndimage.map_coordinates(x, coords, order, mode=mode, cval=3.0)
                assert got.dtype == want.dtype, (shape, order, mode)
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=2e-5,
                                           err_msg=f"{shape} order={order} mode={mode}")


def test_matches_jax_x64(jax_x64, x64):
    import jax.scipy.ndimage

    x, coords = _case((4, 5, 3), np.float64, seed=6)
    for order in (0, 1):
        for mode in MODES:
            want = jax.scipy.ndimage.map_coordinates(x, coords, order, mode=mode)
            got = ndimage.map_coordinates(x, coords, order, mode=mode)
            assert got.dtype == want.dtype == np.float64
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14, atol=1e-14)
            want = jax.scipy.ndimage.map_coordinates(x.astype(np.float32), coords, order, mode=mode)
            got = ndimage.map_coordinates(x.astype(np.float32), coords, order, mode=mode)
            assert got.dtype == want.dtype == np.float32
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
