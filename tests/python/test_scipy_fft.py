"""jaxc.scipy.fft (dct, idct, dctn, idctn) against scipy.fft in float32 and
float64 (odd and even lengths, size-1 axes, `n`/`s` truncating and padding,
negative axes, several axes, every norm JAX takes, complex inputs), the
idct(dct(x)) round trip, result dtypes, jit, vmap (a Python loop), gradients
(check_grads in float64), the errors for bad arguments, and JAX 0.10's
signatures, values and exception types where JAX is installed."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.fft

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.fft as jfft
from jaxc.test_util import check_grads

NAMES = ("dct", "dctn", "idct", "idctn")
NORMS = (None, "backward", "ortho")
RNG = np.random.default_rng(0)


def _rand(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _close(got, want, dtype):
    """`got` has `dtype`, want's shape, and want's values: relative to the
    largest magnitude (float32: a few ulps times log n; float64: ~1e-13)."""
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
    single = np.dtype(dtype) in (np.float32, np.complex64)
    np.testing.assert_allclose(got, want, rtol=0, atol=(3e-6 if single else 1e-13) * scale)


@pytest.fixture(params=[np.float32, np.float64])
def real_dtype(request):
    if request.param == np.float64:
        request.getfixturevalue("x64")
    return request.param


ONE_AXIS_CASES = [
    # shape, n, axis
    ((1,), None, -1), ((2,), None, -1), ((3,), None, 0), ((8,), None, -1), ((17,), None, -1),
    ((4, 9), None, -1), ((4, 9), None, 0), ((4, 9), None, -2), ((5, 1), None, -1), ((1, 6), None, 0),
    ((6,), 3, -1), ((7,), 1, -1), ((7,), 12, -1), ((4, 6), 9, 0), ((4, 6), 2, -1), ((3, 5, 2), 4, 1),
    ((3, 5, 2), 7, -3), ((3, 1), 5, -1),
]


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("shape, n, axis", ONE_AXIS_CASES)
def test_one_axis_matches_scipy(name, shape, n, axis, real_dtype):
    x = _rand(shape, real_dtype)
    for norm in NORMS:
        got = getattr(jfft, name)(x, n=n, axis=axis, norm=norm)
        want = getattr(scipy.fft, name)(x.astype(np.float64), n=n, axis=axis, norm=norm)
        _close(got, want, real_dtype)


def test_one_axis_default_arguments(real_dtype):
    x = _rand((3, 10), real_dtype)
    _close(jfft.dct(x), scipy.fft.dct(x.astype(np.float64)), real_dtype)
    _close(jfft.idct(x), scipy.fft.idct(x.astype(np.float64)), real_dtype)
    _close(jfft.dct(x, 2, 4, 0, "ortho"), scipy.fft.dct(x.astype(np.float64), 2, 4, 0, "ortho"), real_dtype)


MANY_AXES_CASES = [
    dict(), dict(norm="ortho"), dict(axes=(0, 2)), dict(axes=(-1, 0)), dict(axes=1), dict(axes=[2]),
    dict(s=(2, 7), axes=(2, 0)), dict(s=(3, 6, 5), norm="ortho"), dict(s=3), dict(s=(1, 9)),
    dict(s=(4, 2), axes=(-3, -1), norm="backward"), dict(axes=(2, 0, 1)), dict(s=(6, 1, 8)),
]


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("kwargs", MANY_AXES_CASES, ids=str)
def test_many_axes_match_scipy(name, kwargs, real_dtype):
    x = _rand((3, 4, 5), real_dtype)
    got = getattr(jfft, name)(x, **kwargs)
    want = getattr(scipy.fft, name)(x.astype(np.float64), **kwargs)
    _close(got, want, real_dtype)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
def test_many_axes_size_one_and_odd_shapes(name, real_dtype):
    for shape in [(1, 1), (1, 7), (5, 1, 3), (9, 11)]:
        x = _rand(shape, real_dtype)
        for norm in NORMS:
            _close(getattr(jfft, name)(x, norm=norm), getattr(scipy.fft, name)(x.astype(np.float64), norm=norm),
                   real_dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_input(dtype, request):
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    x = _rand((3, 7), dtype)
    want_x = x.astype(np.complex128)
    for norm in NORMS:
        _close(jfft.dct(x, norm=norm), scipy.fft.dct(want_x, norm=norm), dtype)
        _close(jfft.idct(x, n=4, axis=0, norm=norm), scipy.fft.idct(want_x, n=4, axis=0, norm=norm), dtype)
        _close(jfft.dctn(x, norm=norm), scipy.fft.dctn(want_x, norm=norm), dtype)
        _close(jfft.idctn(x, s=(5, 2), norm=norm), scipy.fft.idctn(want_x, s=(5, 2), norm=norm), dtype)


def test_round_trip(real_dtype):
    for shape in [(1,), (2,), (5,), (8,), (3, 7)]:
        x = _rand(shape, real_dtype)
        for norm in NORMS:
            _close(jfft.idct(jfft.dct(x, norm=norm), norm=norm), x, real_dtype)
            _close(jfft.dct(jfft.idct(x, norm=norm), norm=norm), x, real_dtype)
            _close(jfft.idctn(jfft.dctn(x, norm=norm), norm=norm), x, real_dtype)
    x = _rand((4, 6), real_dtype)
    _close(jfft.idct(jfft.dct(x, axis=0), axis=0), x, real_dtype)
    # ortho is orthonormal: it keeps the 2-norm.
    y = np.asarray(jfft.dctn(x, norm="ortho"))
    assert np.isclose(np.linalg.norm(y), np.linalg.norm(x), rtol=1e-5)


# JAX 0.10.2's result dtypes (the same for all four functions).
DTYPES_X32 = {np.int32: np.float32, np.int64: np.float32, np.uint8: np.float32, np.bool_: np.float32,
              np.float16: np.float32, jnp.bfloat16: np.float32, np.float32: np.float32, np.float64: np.float32,
              np.complex64: np.complex64, np.complex128: np.complex64}
DTYPES_X64 = {np.int8: np.float32, np.int32: np.float32, np.int64: np.float64, np.uint8: np.float32,
              np.bool_: np.float32, np.float16: np.float32, jnp.bfloat16: np.float32, np.float32: np.float32,
              np.float64: np.float64, np.complex64: np.complex64, np.complex128: np.complex128}


@pytest.mark.parametrize("x64_on", [False, True])
def test_result_dtypes(x64_on, request):
    if x64_on:
        request.getfixturevalue("x64")
    table = DTYPES_X64 if x64_on else DTYPES_X32
    for dtype, want in table.items():
        x = np.ones((2, 3), dtype)
        for name in NAMES:
            got = getattr(jfft, name)(x)
            assert got.dtype == np.dtype(want), (name, dtype, got.dtype)
            assert not got.weak_type
    # Integer values give the float transform of the same values.
    xi = np.arange(6, dtype=np.int32)
    _close(jfft.dct(xi), scipy.fft.dct(xi.astype(np.float64)), np.float32)
    _close(jfft.idctn(xi.reshape(2, 3)), scipy.fft.idctn(xi.reshape(2, 3).astype(np.float64)), np.float32)


def test_no_axes_returns_input():
    # As JAX: no axes to transform (axes=(), s=[] or a 0-d input) returns x as it is, even an int array.
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    for name in ("dctn", "idctn"):
        fn = getattr(jfft, name)
        for out in (fn(x, axes=()), fn(x, s=[])):
            assert out.dtype == np.int32 and np.array_equal(np.asarray(out), x)
        assert fn(np.int32(3)).dtype == np.int32 and int(fn(np.int32(3))) == 3
        assert float(fn(2.5)) == 2.5


def test_empty_batch():
    x = np.ones((0, 4), np.float32)
    for name in ("dct", "idct"):
        out = getattr(jfft, name)(x)
        assert out.shape == (0, 4) and out.dtype == np.float32
    out = jfft.dctn(np.ones((0, 4), np.complex64), axes=[1], s=[6])
    assert out.shape == (0, 6) and out.dtype == np.complex64


def test_under_jit_matches_eager():
    x = _rand((4, 7), np.float32)
    cases = [(jfft.dct, dict(norm="ortho")), (jfft.dct, dict(n=10, axis=0)), (jfft.idct, dict(n=3)),
             (jfft.idct, dict(axis=-2, norm="backward")), (jfft.dctn, dict(s=(6, 5))),
             (jfft.idctn, dict(axes=(1, 0), norm="ortho")), (jfft.dctn, dict(axes=-1))]
    for fn, kwargs in cases:
        eager = np.asarray(fn(x, **kwargs))
        jitted = jaxc.jit(lambda v, fn=fn, kwargs=kwargs: fn(v, **kwargs))(x)
        _close(jitted, eager, np.float32)
    xc = _rand((3, 5), np.complex64)
    _close(jaxc.jit(jfft.idctn)(xc), np.asarray(jfft.idctn(xc)), np.complex64)
    # The composition inverts itself under jit too.
    _close(jaxc.jit(lambda v: jfft.idct(jfft.dct(v, norm="ortho"), norm="ortho"))(x), x, np.float32)


def test_vmap_matches_loop():
    x = _rand((5, 4, 6), np.float32)
    cases = [(jfft.dct, dict()), (jfft.idct, dict(n=9, norm="ortho")), (jfft.dct, dict(axis=0, n=3)),
             (jfft.dctn, dict()), (jfft.idctn, dict(s=(2, 8))), (jfft.dctn, dict(axes=(-1,), norm="ortho"))]
    for fn, kwargs in cases:
        def one(v, fn=fn, kwargs=kwargs):
            return fn(v, **kwargs)
        loop = np.stack([np.asarray(one(x[i])) for i in range(x.shape[0])])
        _close(jaxc.vmap(one)(x), loop, np.float32)
        loop = np.stack([np.asarray(one(x[:, :, i])) for i in range(x.shape[2])], axis=-1)
        _close(jaxc.vmap(one, in_axes=2, out_axes=-1)(x), loop, np.float32)


@pytest.mark.parametrize("fn, kwargs", [
    (jfft.dct, dict()), (jfft.dct, dict(norm="ortho", n=7)), (jfft.dct, dict(n=3, axis=0)),
    (jfft.idct, dict()), (jfft.idct, dict(norm="ortho", axis=0)), (jfft.idct, dict(n=8)),
    (jfft.dctn, dict()), (jfft.dctn, dict(s=(3, 7), norm="ortho")), (jfft.idctn, dict(axes=(1, 0))),
    (jfft.idctn, dict(s=(6, 2), norm="ortho")),
], ids=lambda v: getattr(v, "__name__", None) or str(v))  # names, not addresses: xdist compares ids
def test_gradients(fn, kwargs, x64):
    x = _rand((4, 5), np.float64)
    check_grads(lambda v: fn(v, **kwargs), (x,), order=1, modes=("fwd", "rev"))


def test_complex_gradients(x64):
    x = _rand((6,), np.complex128)
    check_grads(lambda v: jfft.dct(v, norm="ortho"), (x,), order=1, modes=("fwd", "rev"))
    check_grads(lambda v: jfft.idct(v), (x,), order=1, modes=("fwd", "rev"))


def test_gradient_of_sum_is_the_transform_of_ones(x64):
    # d/dx sum(dct(x)) = dct^T(1): the DCT-II matrix's column sums.
    x = _rand((7,), np.float64)
    grad = np.asarray(jaxc.grad(lambda v: jnp.sum(jfft.dct(v)))(x))
    matrix = scipy.fft.dct(np.eye(7), axis=0)
    np.testing.assert_allclose(grad, matrix.sum(axis=0), rtol=1e-12, atol=1e-12)


BAD_CASES = [
    # function, args, kwargs, exception type (JAX 0.10.2's)
    ("dct", (np.ones(4),), dict(type=1), NotImplementedError),
    ("dct", (np.ones(4),), dict(type=3, norm="bad"), NotImplementedError),
    ("dct", (np.ones(4),), dict(type="2"), NotImplementedError),
    ("idct", (np.ones(4),), dict(type=4), NotImplementedError),
    ("dctn", (np.ones((2, 2)),), dict(type=1), NotImplementedError),
    ("idctn", (np.ones((2, 2)),), dict(type=3), NotImplementedError),
    ("dct", (np.ones(4),), dict(norm="forward"), ValueError),
    ("idct", (np.ones(4),), dict(norm="Ortho"), ValueError),
    ("dctn", (np.ones((2, 2)),), dict(norm="forward"), ValueError),
    ("idctn", (np.ones((2, 2)),), dict(norm="x"), ValueError),
    ("dct", ([1.0, 2.0],), dict(), TypeError),
    ("idctn", ([[1.0]],), dict(), TypeError),
    ("dct", (np.ones((2, 3)),), dict(axis=2), ValueError),
    ("idct", (np.ones((2, 3)),), dict(axis=-3), ValueError),
    ("dct", (np.ones((2, 3)),), dict(axis=1.0), TypeError),
    ("dct", (1.0,), dict(), ValueError),
    ("dct", (np.ones((2, 3)),), dict(n=0), TypeError),
    ("idct", (np.ones((2, 3)),), dict(n=0), TypeError),
    ("dct", (np.ones((2, 0)),), dict(), TypeError),
    ("idct", (np.ones((2, 3)),), dict(n=-1), ValueError),
    ("dct", (np.ones((2, 3)),), dict(n=2.0), TypeError),
    ("dctn", (np.ones((2, 3)),), dict(s=[3, 3, 3]), ValueError),
    ("idctn", (np.ones((2, 3)),), dict(s=2.0), TypeError),
    ("dctn", (np.ones((2, 3)),), dict(s=[-1, 2]), ValueError),
    ("idctn", (np.ones((2, 3)),), dict(s=[0, 2]), TypeError),
    ("dctn", (np.ones((2, 3)),), dict(s=[], axes=[0]), IndexError),
    ("dctn", (np.ones((2, 3)),), dict(axes=[0, 0]), ValueError),
    ("idctn", (np.ones((2, 3)),), dict(axes=[1, -1]), ValueError),
    ("dctn", (np.ones((2, 3)),), dict(axes=[0, 2]), ValueError),
    ("idctn", (np.ones((2, 3)),), dict(axes=np.array([0, 1])), TypeError),
]


@pytest.mark.parametrize("name, args, kwargs, error", BAD_CASES, ids=str)
def test_bad_arguments_raise(name, args, kwargs, error):
    with pytest.raises(error, match=r"\S"):
        getattr(jfft, name)(*args, **kwargs)


def test_error_messages():
    with pytest.raises(NotImplementedError, match="only DCT type 2"):
        jfft.dct(np.ones(3), type=1)
    with pytest.raises(ValueError, match="norm='forward' is not implemented"):
        jfft.idctn(np.ones(3), norm="forward")
    with pytest.raises(ValueError, match=r"at most x.ndim \(2\) elements, got 3"):
        jfft.dctn(np.ones((2, 2)), s=(1, 2, 3))
    with pytest.raises(TypeError, match="at least one point"):
        jfft.dct(np.ones(3), n=0)


def test_signatures_match_jax():
    jsf = pytest.importorskip("jax.scipy.fft")
    for name in NAMES:
        ours = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(jfft, name)).parameters.values()]
        theirs = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(jsf, name)).parameters.values()]
        assert ours == theirs, name
    assert sorted(jfft.__all__) == sorted(NAMES)


@pytest.mark.parametrize("name, args, kwargs, error", BAD_CASES, ids=str)
def test_bad_arguments_match_jax(name, args, kwargs, error):
    jsf = pytest.importorskip("jax.scipy.fft")
    with pytest.raises(error):
        getattr(jsf, name)(*args, **kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
def test_matches_jax(dtype, request):
    jsf = pytest.importorskip("jax.scipy.fft")
    if dtype == np.float64:
        request.getfixturevalue("x64")
        request.getfixturevalue("jax_x64")
    x = (RNG.integers(-5, 5, (3, 5, 4)) if dtype == np.int32 else _rand((3, 5, 4), dtype)).astype(dtype)
    want_dtype = np.float32 if dtype == np.int32 else dtype
    cases = [("dct", dict()), ("dct", dict(n=2, axis=1, norm="ortho")), ("dct", dict(n=9, axis=0)),
             ("idct", dict(norm="backward")), ("idct", dict(n=3, axis=-2)), ("idct", dict(n=6, norm="ortho")),
             ("dctn", dict()), ("dctn", dict(axes=(0, 2), norm="ortho")), ("dctn", dict(s=(2, 7), axes=(2, 0))),
             ("dctn", dict(s=3)), ("dctn", dict(s=[2, 3], axes=[0])), ("dctn", dict(s=[2], axes=[0, 1])),
             ("idctn", dict()), ("idctn", dict(axes=1)), ("idctn", dict(s=(4, 1, 6), norm="ortho")),
             ("idctn", dict(axes=())), ("idctn", dict(s=[6, 2], axes=(1, 2, 0)))]
    for name, kwargs in cases:
        want = getattr(jsf, name)(x, **kwargs)
        got = getattr(jfft, name)(x, **kwargs)
        expected = want_dtype if kwargs.get("axes") != () else dtype
        assert np.asarray(want).dtype == np.dtype(expected), (name, kwargs)
        _close(got, np.asarray(want).astype(np.complex128 if np.iscomplexobj(want) else np.float64), expected)
