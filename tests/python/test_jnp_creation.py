"""jnp creation functions against NumPy, eagerly and under jit, with JAX's dtypes."""
import numpy as np
import pytest
from jnp_check import assert_close, check, check_jax, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import dispatch


@pytest.fixture
def kernel_log(monkeypatch):
    """The names of the eager kernels launched while the test runs."""
    launched = []
    original = dispatch.apply_eager

    def recording(prim, operands, params):
        launched.append(prim.name)
        return original(prim, operands, params)
    monkeypatch.setattr(dispatch, "apply_eager", recording)
    return launched


def no_args_jit(fn):
    """fn() traced by jit (all its arguments are static)."""
    return jaxc.jit(fn)()


# -- array / asarray ----------------------------------------------------------

@pytest.mark.parametrize("value, dtype, weak", [
    (1.0, "float32", True), (3, "int32", True), (True, "bool", False),
    ([1, 2.5], "float32", False), ([True, 2], "int32", False), ([], "float32", False),
    ([[], []], "float32", False), ([np.float16(1), 2.0], "float16", False),
    ([np.uint8(1), 200], "uint8", False), (np.arange(3, dtype=np.int64), "int32", False),
    (np.float64(2.5), "float32", False), ([[1, 2], [3, 4]], "int32", False),
])
def test_array_dtype_and_weak_type(value, dtype, weak):
    out = jnp.array(value)
    assert out.dtype == np.dtype(dtype) and out.weak_type == weak
    assert_close(out, np.asarray(value).astype(dtype))
    assert jnp.asarray(value).dtype == np.dtype(dtype)


def test_array_x64_keeps_64_bits(x64):
    assert jnp.array([1, 2]).dtype == np.int64
    assert jnp.array(np.float64(1)).dtype == np.float64
    assert jnp.zeros(2).dtype == np.float64
    assert jnp.arange(3).dtype == np.int64


def test_array_dtype_ndmin_and_copy():
    x = jnp.array([1.7, -2.5], dtype=jnp.int32)
    assert x.dtype == np.int32
    assert_close(x, np.array([1, -2], np.int32))
    assert jnp.array([1, 2], ndmin=3).shape == (1, 1, 2)
    assert jnp.array(5.0, ndmin=1).shape == (1,)
    y = jnp.ones(3)
    assert jnp.asarray(y) is y
    copied = jnp.copy(y)
    assert copied is not y
    assert_close(copied, np.ones(3, np.float32))
    assert jnp.copy(jnp.asarray(1.0)).weak_type
    with pytest.raises(NotImplementedError, match="jnp.array: only order=.K."):
        jnp.array([1], order="F")
    with pytest.raises(TypeError, match="jnp.array: cannot convert str"):
        jnp.array(["a"])


def test_array_of_arrays_and_scalars():
    a, b = rand((2,), np.float32), rand((2,), np.float32)
    check(lambda a, b: jnp.array([a, b]), lambda a, b: np.array([a, b]), a, b, dtype="float32")
    check(lambda a, b: jnp.array([[a, 1.0], [2, b]]), lambda a, b: np.array([[a, 1.0], [2, b]]),
          np.float32(1.5), np.float32(-2.0), dtype="float32")
    ints = jnp.asarray(np.array([1, 2], np.int8))
    assert jnp.array([ints, ints]).dtype == np.int8
    pending = jnp.sin(jnp.asarray(a))  # not necessarily computed yet: stacked with kernels
    assert_close(jnp.array([pending, pending * 2]), np.array([np.sin(a), 2 * np.sin(a)]), rtol=1e-6)
    with pytest.raises(ValueError, match="jnp.array: .*inhomogeneous"):
        jaxc.jit(lambda u, v: jnp.array([u, v]))(np.ones(2, np.float32), np.ones(3, np.float32))
    with pytest.raises(OverflowError):
        jnp.array([np.uint8(1), 300])


# -- filled arrays ----------------------------------------------------------------

@pytest.mark.parametrize("fn, np_fn", [(jnp.zeros, np.zeros), (jnp.ones, np.ones), (jnp.empty, np.zeros)])
def test_zeros_ones_empty(fn, np_fn):
    check(lambda: fn((2, 3)), None, expected=np_fn((2, 3), np.float32), dtype="float32")
    check(lambda: fn(4, jnp.int8), None, expected=np_fn(4, np.int8), dtype="int8")
    check(lambda: fn((0, 2), jnp.int32), None, expected=np_fn((0, 2), np.int32), dtype="int32")
    assert fn((0, 2), bool).shape == (0, 2)  # jit: size-0 bool/unsigned constants do not lower (reported)
    assert fn(()).shape == ()
    with pytest.raises(TypeError, match=f"jnp.{fn.__name__}: negative dimensions"):  # JAX's class
        fn((2, -1))
    with pytest.raises(TypeError, match="jaxc does not support dtype"):
        fn(2, np.float128 if hasattr(np, "float128") else np.str_)
    check(lambda: fn(3, jnp.complex64), None, expected=np_fn(3, np.complex64), dtype="complex64")


def test_full():
    check(lambda: jnp.full((2, 2), 1.5), None, expected=np.full((2, 2), 1.5, np.float32), dtype="float32")
    assert jnp.full((2,), 1.0).weak_type and jnp.full((2,), 3).weak_type
    assert jnp.full((2,), 3).dtype == np.int32
    assert not jnp.full((2,), 3.0, dtype=jnp.float32).weak_type
    assert jnp.full((2,), np.int8(3)).dtype == np.int8
    check(lambda: jnp.full((2,), 1.5, dtype=jnp.int32), None, expected=np.array([1, 1], np.int32), dtype="int32")
    row = rand((3,), np.int32)
    check(lambda r: jnp.full((2, 3), r), lambda r: np.full((2, 3), r), row, dtype="int32")
    check(lambda v: jnp.full((2, 3), v), lambda v: np.full((2, 3), v), np.float32(2.5), dtype="float32")
    with pytest.raises(ValueError, match="jnp.full: cannot broadcast"):
        jnp.full((2, 2), np.ones(3))


def test_like_functions():
    x = rand((2, 3), np.int8)
    check(jnp.zeros_like, np.zeros_like, x, dtype="int8")
    check(jnp.ones_like, np.ones_like, x, dtype="int8")
    check(jnp.empty_like, np.zeros_like, x, dtype="int8")
    check(lambda a: jnp.full_like(a, 3.7), lambda a: np.full_like(a, 3.7), x, dtype="int8")
    check(lambda a: jnp.ones_like(a, dtype=jnp.float16), lambda a: np.ones_like(a, np.float16), x,
          dtype="float16")
    check(lambda a: jnp.zeros_like(a, shape=(4,)), lambda a: np.zeros((4,), np.int8), x, dtype="int8")
    check(lambda a: jnp.full_like(a, np.array([1, 2, 3])), lambda a: np.full_like(a, [1, 2, 3]), x,
          dtype="int8")
    assert jnp.zeros_like(jnp.asarray(1.0)).weak_type
    assert not jnp.zeros_like(jnp.asarray(1.0), dtype=jnp.float32).weak_type
    assert jnp.ones_like(np.array([1, 2])).dtype == np.int32
    with pytest.raises(TypeError, match="jnp.ones_like requires ndarray or scalar arguments"):
        jnp.ones_like([1, 2])  # lists are refused as in JAX
    assert jnp.zeros_like(np.ones((2, 2), np.float64)).dtype == np.float32
    assert jnp.full_like(3.0, 1).shape == () and jnp.full_like(3.0, 1).weak_type


def test_static_creation_runs_no_kernel(kernel_log):
    jnp.zeros((3, 4)), jnp.ones(5, jnp.int32), jnp.full((2, 2), 7.0), jnp.zeros_like(np.ones(3))
    jnp.array([[1, 2], [3, 4]]), jnp.asarray(np.ones((2, 2))), jnp.arange(10), jnp.arange(0, 1, 0.25)
    jnp.linspace(0, 1, 5), jnp.logspace(0, 2, 3), jnp.geomspace(1, 8, 4), jnp.eye(3, 4, 1)
    jnp.identity(3), jnp.tri(3), jnp.indices((2, 3)), jnp.tril_indices(4), jnp.diag_indices(3)
    ready = jnp.ones(3)
    jnp.array([ready, ready]), jnp.full_like(ready, 2.0)
    assert kernel_log == []


# -- ranges ------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, dtype", [
    ((5,), {}, "int32"), ((5.0,), {}, "float32"), ((2.5,), {}, "float32"), ((np.int16(5),), {}, "int16"),
    ((0, 1, 0.1), {}, "float32"), ((10, 2, -3), {}, "int32"), ((1, 7, 2), {"dtype": jnp.float16}, "float16"),
    ((5, 2), {}, "int32"), ((-3, 3), {"dtype": jnp.int8}, "int8"), ((5,), {"step": 2}, "int32"),
    ((2.5,), {"dtype": jnp.int32}, "int32"),
])
def test_arange(args, kwargs, dtype):
    expected = np.arange(*args, **{**kwargs, "dtype": dtype})
    out = check(lambda: jnp.arange(*args, **kwargs), None, expected=expected, dtype=dtype)
    assert not out.weak_type
    check_jax(jnp.arange, "arange", *args, **kwargs)


def test_arange_arguments_must_be_static():
    assert_close(jnp.arange(jnp.asarray(4)), np.arange(4, dtype=np.int32))
    with pytest.raises(jaxc.ConcretizationTypeError, match="stop argument of jnp.arange|start argument"):
        jaxc.jit(lambda n: jnp.arange(n))(4)
    with pytest.raises(ZeroDivisionError, match="jnp.arange: step must not be zero"):  # JAX's class
        jnp.arange(0, 5, 0)
    with pytest.raises(TypeError, match="jnp.arange: start must be a scalar"):
        jnp.arange(np.ones(2))


def test_traced_index_patterns_use_iota_not_constants():
    for fn in (lambda: jnp.arange(1000), lambda: jnp.eye(300), lambda: jnp.tril(jnp.ones((200, 200)))):
        text = str(jaxc.make_ir(fn)())
        assert "jaxc.iota" in text
        assert "dense<[" not in text and "dense<\"" not in text  # no element-by-element constant


@pytest.mark.parametrize("kwargs", [
    dict(start=0, stop=1, num=7), dict(start=0, stop=1, num=7, endpoint=False),
    dict(start=-2.5, stop=4, num=1), dict(start=0, stop=1, num=0), dict(start=0, stop=10, num=4, dtype=np.int32),
    dict(start=np.float16(0), stop=10, num=4), dict(start=2, stop=-3, num=6, retstep=True),
])
def test_linspace_static(kwargs):
    expected = np.linspace(**{**kwargs, **({"dtype": kwargs.get("dtype", None)})})
    dtype = kwargs.get("dtype") or (np.float16 if isinstance(kwargs["start"], np.float16) else np.float32)
    expected = tuple(np.asarray(e, dtype) for e in expected) if kwargs.get("retstep") else expected.astype(dtype)
    check(lambda: jnp.linspace(**kwargs), None, expected=expected, dtype=dtype, rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_linspace_array_bounds_and_axis():
    start, stop = rand((2,), np.float32), rand((3, 1), np.float32)
    for axis in (0, 1, -1):
        check(lambda a, b: jnp.linspace(a, b, 5, axis=axis), lambda a, b: np.linspace(a, b, 5, axis=axis),
              start, stop, dtype="float32", atol=1e-5)
    check(lambda a: jnp.linspace(a, 2.0, 4, retstep=True), lambda a: np.linspace(a, 2.0, 4, retstep=True),
          start, dtype="float32", atol=1e-5)
    check(lambda a: jnp.linspace(a, 2.0, 4, axis=1),
          lambda a: np.linspace(a, 2.0, 4, axis=1), start, atol=1e-5)
    with pytest.raises(ValueError, match="jnp.linspace: number of samples, -1, must be non-negative"):
        jnp.linspace(0, 1, -1)
    with pytest.raises(jaxc.ConcretizationTypeError, match="num argument of jnp.linspace"):
        jaxc.jit(lambda n: jnp.linspace(0, 1, n))(3)
    with pytest.raises(ValueError, match="jnp.linspace: axis 3 is out of bounds"):
        jnp.linspace(start, 1.0, 3, axis=3)


def test_logspace_and_geomspace():
    check(lambda: jnp.logspace(0, 2, 3, base=2.0), None, expected=np.logspace(0, 2, 3, base=2.0).astype(np.float32),
          dtype="float32")
    check(lambda: jnp.logspace(-1, 1, 5, endpoint=False), None,
          expected=np.logspace(-1, 1, 5, endpoint=False).astype(np.float32), dtype="float32")
    check(lambda: jnp.geomspace(-1.0, -100.0, 3), None, expected=np.array([-1, -10, -100], np.float32),
          dtype="float32", rtol=1e-5)
    bounds = np.array([0.0, 1.0], np.float32)
    check(lambda a: jnp.logspace(a, 3.0, 4, axis=1), lambda a: np.logspace(a, 3.0, 4, axis=1), bounds,
          rtol=1e-5)
    check(lambda b: jnp.geomspace(1.0, b, 4, axis=1), lambda b: np.geomspace(1.0, b, 4, axis=1),
          np.array([10.0, 1000.0], np.float32), rtol=1e-5)
    with pytest.raises(ValueError, match="jnp.geomspace: a geometric sequence cannot include zero"):
        jnp.geomspace(0, 10, 3)


# -- diagonals and triangles --------------------------------------------------------

@pytest.mark.parametrize("n, m, k", [(3, None, 0), (2, 4, 1), (4, 3, -2), (3, 3, 5), (0, 2, 0)])
def test_eye_and_tri(n, m, k):
    check(lambda: jnp.eye(n, m, k), None, expected=np.eye(n, m, k, dtype=np.float32), dtype="float32")
    check(lambda: jnp.tri(n, m, k, dtype=jnp.int32), None, expected=np.tri(n, m, k, dtype=np.int32), dtype="int32")


def test_eye_identity_tri_dtypes():
    assert_close(jnp.identity(2, dtype=bool), np.identity(2, dtype=bool))
    assert jnp.tri(3).dtype == np.float32
    assert jnp.eye(2, dtype=jnp.uint8).dtype == np.uint8
    with pytest.raises(jaxc.ConcretizationTypeError, match="N argument of jnp.eye"):
        jaxc.jit(lambda n: jnp.eye(n))(3)
    with pytest.raises(TypeError, match="jnp.eye: k must be an integer"):
        jnp.eye(3, k=1.5)


@pytest.mark.parametrize("k", [0, 1, -2])
def test_tril_triu(k):
    x = rand((2, 3, 4), np.float32)
    check(lambda a: jnp.tril(a, k), lambda a: np.tril(a, k), x, dtype="float32")
    check(lambda a: jnp.triu(a, k), lambda a: np.triu(a, k), x, dtype="float32")


def test_tril_triu_other_inputs():
    check(jnp.tril, np.tril, rand((3, 3), np.bool_), dtype="bool")
    assert_close(jnp.triu(np.array([[1, 2], [3, 4]], np.int32)), np.array([[1, 2], [0, 4]], np.int32))
    with pytest.raises(TypeError, match="jnp.triu requires ndarray or scalar arguments"):
        jnp.triu([[1, 2], [3, 4]])  # lists are refused as in JAX
    assert_close(jnp.tril(np.ones((0, 3), np.float32)), np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match=r"jnp.tril: the argument must be at least 2-D, got shape \(3,\)"):
        jnp.tril(np.ones(3))


@pytest.mark.parametrize("k", [0, 2, -1, 5])
def test_diag(k):
    check(lambda v: jnp.diag(v, k), lambda v: np.diag(v, k), rand((3,), np.int32), dtype="int32")
    check(lambda m: jnp.diag(m, k), lambda m: np.diag(m, k), rand((3, 4), np.float32), dtype="float32")


def test_diagflat_and_diag_errors():
    check(lambda v: jnp.diagflat(v, 1), lambda v: np.diagflat(v, 1), rand((2, 2), np.float32), dtype="float32")
    check(jnp.diagflat, np.diagflat, rand((3,), np.bool_), dtype="bool")
    assert_close(jnp.diag(np.zeros((0,), np.float32)), np.zeros((0, 0), np.float32))
    with pytest.raises(ValueError, match=r"jnp.diag: the input must be 1-d or 2-d, got shape \(2, 2, 2\)"):
        jnp.diag(np.ones((2, 2, 2)))


# -- grids and index arrays --------------------------------------------------------------

@pytest.mark.parametrize("indexing, sparse", [("xy", False), ("ij", False), ("xy", True), ("ij", True)])
def test_meshgrid(indexing, sparse):
    x, y, z = rand((2,), np.float32), rand((3,), np.int32), rand((4,), np.float32)
    check(lambda a, b, c: jnp.meshgrid(a, b, c, indexing=indexing, sparse=sparse),
          lambda a, b, c: list(np.meshgrid(a, b, c, indexing=indexing, sparse=sparse)), x, y, z)
    check(lambda a, b: jnp.meshgrid(a, b, indexing=indexing, sparse=sparse),
          lambda a, b: list(np.meshgrid(a, b, indexing=indexing, sparse=sparse)), x, y)


def test_meshgrid_errors_and_edge_cases():
    assert jnp.meshgrid() == []
    assert_close(jnp.meshgrid(np.arange(3)), [np.arange(3)])
    with pytest.raises(ValueError, match=r"jnp.meshgrid: arguments must be 1-D, got shapes \[\(2, 2\), \(3,\)\]"):
        jnp.meshgrid(np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="jnp.meshgrid: indexing must be 'xy' or 'ij'"):
        jnp.meshgrid(np.ones(2), indexing="yx")


def test_index_arrays():
    check(lambda: jnp.indices((2, 3)), None, expected=np.indices((2, 3)).astype(np.int32), dtype="int32")
    check(lambda: jnp.indices((2, 3), sparse=True), None,
          expected=tuple(g.astype(np.int32) for g in np.indices((2, 3), sparse=True)), dtype="int32")
    check(lambda: jnp.tril_indices(3, -1), None, expected=tuple(i.astype(np.int32) for i in np.tril_indices(3, -1)),
          dtype="int32")
    check(lambda: jnp.triu_indices(3, 1, 4), None,
          expected=tuple(i.astype(np.int32) for i in np.triu_indices(3, 1, 4)), dtype="int32")
    check(lambda: jnp.diag_indices(3, 3), None, expected=tuple(i.astype(np.int32) for i in np.diag_indices(3, 3)))
    m = np.ones((3, 4))
    assert_close(jnp.tril_indices_from(m, 1), np.tril_indices_from(m, 1))
    assert_close(jnp.triu_indices_from(m), np.triu_indices_from(m))
    assert_close(jnp.diag_indices_from(np.ones((2, 2))), np.diag_indices_from(np.ones((2, 2))))
    with pytest.raises(ValueError, match="jnp.diag_indices_from: the input must be square"):
        jnp.diag_indices_from(m)
    with pytest.raises(ValueError, match="jnp.tril_indices_from: the input must be 2-d"):
        jnp.tril_indices_from(np.ones(3))


def test_asarray_of_a_bfloat16_numpy_array():
    import ml_dtypes
    x = np.array([1.5, -2.0, 3.25], ml_dtypes.bfloat16)  # NumPy reports dtype kind "V"
    y = jnp.asarray(x)
    assert y.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(y).astype(np.float32), x.astype(np.float32))


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float32, jnp.int8])
def test_large_splat_constants_of_every_dtype(dtype):
    # more than 64 elements: the lowering fills instead of storing the splat
    f = jaxc.jit(lambda x: x - jaxc.lax.full((65,), 3, dtype))
    out = f(jnp.ones((65,), dtype) * 5)
    np.testing.assert_array_equal(np.asarray(out).astype(np.float32), np.full(65, 2, np.float32))
