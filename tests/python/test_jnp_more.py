"""The jnp functions of numpy/_more.py (issue #17) against NumPy (eager,
under jit, result dtypes), JAX where it is installed, vmap against a Python
loop, float64 finite-difference gradients, and their errors."""
import numpy as np
import pytest
from jnp_check import assert_close, check, check_jax, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import core
from jaxc.test_util import check_grads

F = rand((3, 5))
I = rand((3, 5), np.int32)
V = rand((7,))
W = rand((3,))


def f64(*shape, low=-1.0, high=1.0):
    return np.random.default_rng(1).uniform(low, high, size=shape)


# ---------------------------------------------------------------------------
# diff, ediff1d, append, cumulative sums, nan_to_num, select
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("x, kwargs", [(V, {}), (F, dict(n=2)), (F, dict(axis=0)), (F, dict(n=0)),
                                       (I, dict(axis=-1)), (F, dict(n=7)),
                                       (V, dict(prepend=1.5, append=np.array([2.0, 3.0], np.float32))),
                                       (F, dict(axis=0, prepend=np.zeros((2, 5), np.float32)))])
def test_diff(x, kwargs):
    check(jnp.diff, np.diff, x, dtype=x.dtype, **kwargs)
    check_jax(jnp.diff, "diff", x, **kwargs)


def test_diff_dtypes_and_errors():
    check(jnp.diff, np.diff, np.array([True, False, False, True]), dtype=np.bool_)
    check(jnp.diff, np.diff, np.array([1, 5, 2], np.int8), dtype=np.int8)
    assert jnp.diff(np.arange(3, dtype=np.int32), prepend=1.5).dtype == np.float32  # weak float promotes
    assert_close(jnp.diff(np.arange(3, dtype=np.int32), prepend=1.5), np.array([-1.5, 1.0, 1.0], np.float32))
    assert jnp.diff(np.zeros((0,), np.float32)).shape == (0,)
    with pytest.raises(ValueError, match="order must be non-negative"):
        jnp.diff(V, n=-1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        jnp.diff(np.float32(1))
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda n: jnp.diff(V, n=n))(1)


def test_ediff1d_and_append():
    a = np.array([[1, 2], [4, 7]], np.int32)
    check(jnp.ediff1d, np.ediff1d, a, dtype=np.int32)
    out = check(jnp.ediff1d, None, a, to_begin=np.array([0.5]), to_end=np.array([9, 8]),
                expected=np.array([0, 1, 2, 3, 9, 8]))  # to_begin cast to int32, as JAX
    assert out.dtype == np.int32
    check(jnp.append, np.append, F, W, dtype=np.float32)
    check(jnp.append, np.append, F, F[:1], axis=0, dtype=np.float32)
    assert jnp.append(np.array([1, 2], np.int32), 2.5).dtype == np.float32
    check_jax(jnp.ediff1d, "ediff1d", a, to_begin=np.array([0.5]))
    check_jax(jnp.append, "append", I, F[:1], axis=0)


@pytest.mark.parametrize("x, kwargs", [(V, {}), (F, dict(axis=0)), (F, dict(axis=-1, include_initial=True)),
                                       (I, dict(axis=1)), (I, dict(axis=0, include_initial=True)),
                                       (np.zeros((0,), np.float32), dict(include_initial=True))])
def test_cumulative_sum_and_prod(x, kwargs):
    include = kwargs.get("include_initial", False)

    def ref(fn, identity):
        def apply(x, axis=0, include_initial=False):
            out = fn(x, axis=axis).astype(x.dtype)
            if include:
                shape = list(x.shape)
                shape[axis] = 1
                out = np.concatenate([np.full(shape, identity, x.dtype), out], axis=axis)
            return out
        return apply
    check(jnp.cumulative_sum, ref(np.cumsum, 0), x, dtype=x.dtype, **kwargs)
    check(jnp.cumulative_prod, ref(np.cumprod, 1), x, dtype=x.dtype, rtol=1e-4, **kwargs)
    check_jax(jnp.cumulative_sum, "cumulative_sum", x, **kwargs)


def test_cumulative_dtypes_and_errors():
    assert jnp.cumulative_sum(np.array([True, False, True])).dtype == np.int32
    assert_close(jnp.cumulative_sum(np.array([True, False, True])), np.array([1, 1, 2], np.int32))
    out = jnp.cumulative_prod(np.array([1, 2, 3], np.int8), include_initial=True)
    assert out.dtype == np.int8
    assert_close(out, np.array([1, 1, 2, 6], np.int8))
    assert jnp.cumulative_sum(V, dtype=np.int32).dtype == np.int32
    with pytest.raises(ValueError, match="axis was not set"):
        jnp.cumulative_sum(F)
    with pytest.raises(ValueError, match="non-scalar"):
        jnp.cumulative_prod(np.float32(2))


def test_nan_to_num():
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0], np.float32)
    check(jnp.nan_to_num, np.nan_to_num, x, dtype=np.float32)
    check(jnp.nan_to_num, np.nan_to_num, x, nan=-1.0, posinf=9.0, neginf=-9.0, dtype=np.float32)
    check(jnp.nan_to_num, np.nan_to_num, I, dtype=np.int32)
    check_jax(jnp.nan_to_num, "nan_to_num", x, nan=3.0)


def test_select():
    c1, c2 = F > 1, F < -1
    check(lambda a, b, x: jnp.select([a, b], [x, -x], 0.5), None, c1, c2, F,
          expected=np.select([c1, c2], [F, -F], 0.5), dtype=np.float32)
    # broadcasting conditions and scalar choices; int choices with a weak float default -> float32
    out = check(lambda c, x: jnp.select([c], [x], 0.5), None, c1[0], I,
                expected=np.select([c1[0]], [I], 0.5).astype(np.float32), dtype=np.float32)
    assert out.shape == (3, 5)
    assert jnp.select([c1], [I]).dtype == np.int32
    with pytest.raises(ValueError, match="condlist must have length equal to choicelist"):
        jnp.select([c1], [F, F])
    with pytest.raises(ValueError, match="condlist must be non-empty"):
        jnp.select([], [])


# ---------------------------------------------------------------------------
# trapezoid, polynomials, vander
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("y, kwargs", [(V, {}), (F, dict(dx=0.5)), (F, dict(axis=0)),
                                       (F, dict(x=np.sort(rand((5,))))), (F, dict(x=np.cumsum(np.abs(F), 0),
                                                                                axis=0)),
                                       (I, {}), (F, dict(dx=np.full((3, 1), 0.25, np.float32)))])
def test_trapezoid(y, kwargs):
    dtype = np.float32
    check(jnp.trapezoid, np.trapezoid, y, dtype=dtype, rtol=1e-5, atol=1e-5, **kwargs)
    check_jax(jnp.trapezoid, "trapezoid", y, atol=1e-5, **kwargs)


@pytest.mark.parametrize("p, x", [(W, V), (np.array([1, 2, 3], np.int32), np.arange(4, dtype=np.int32)),
                                  (rand((3, 4)), rand((4,))), (np.array([2.0], np.float32), F)])
def test_polyval(p, x):
    dtype = np.result_type(p, x)
    check(jnp.polyval, np.polyval if p.ndim == 1 else
          (lambda p, x: sum(p[i] * x ** (len(p) - 1 - i) for i in range(len(p)))), p, x, dtype=dtype,
          rtol=1e-5, atol=1e-5)
    check_jax(jnp.polyval, "polyval", p, x, atol=1e-5)


def test_polyval_weak_scalar():
    assert jnp.polyval(np.array([1, 2], np.int32), 3).dtype == np.int32
    assert jnp.polyval(np.array([1, 2], np.int32), 3.0).dtype == np.float32
    assert_close(jnp.polyval(np.array([1, 2], np.int32), 3.0), np.float32(5.0))


def test_polyadd_polysub_polymul():
    a, b = np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32)
    check(jnp.polyadd, np.polyadd, a, b, dtype=np.int32)
    check(jnp.polyadd, np.polyadd, b, a, dtype=np.int32)
    check(jnp.polysub, np.polysub, a, b, dtype=np.int32)
    check(jnp.polysub, np.polysub, W, V, dtype=np.float32)
    check(jnp.polymul, np.polymul, a, b, dtype=np.float32)  # inexact, as JAX
    check(jnp.polymul, np.polymul, W, V, dtype=np.float32, rtol=1e-5, atol=1e-5)
    out = jnp.polymul(np.array([0.0, 0.0, 1.0, 2.0], np.float32), np.array([0.0, 3.0], np.float32),
                      trim_leading_zeros=True)
    assert_close(out, np.array([3.0, 6.0], np.float32))
    check_jax(jnp.polymul, "polymul", a, b)
    check_jax(jnp.polysub, "polysub", a, b)


def test_polyder_polyint():
    p = np.array([1, 2, 3, 4], np.int32)
    for m in (0, 1, 2, 3, 5):
        check(jnp.polyder, lambda p, m: np.polyder(p, m).astype(np.float32), p, m=m, dtype=np.float32)
        check(jnp.polyint, lambda p, m: np.polyint(p, m).astype(np.float32), p, m=m, dtype=np.float32)
    check(jnp.polyint, np.polyint, W, m=2, k=np.array([1.0, 2.0]), dtype=np.float32, rtol=1e-5)
    with pytest.raises(TypeError, match="jnp.polyint requires ndarray or scalar arguments"):
        jnp.polyint(W, m=2, k=[1.0, 2.0])  # a list, refused as in JAX
    check(jnp.polyint, np.polyint, W, m=2, k=3.0, dtype=np.float32, rtol=1e-5)
    check_jax(jnp.polyint, "polyint", p, m=2, k=3)
    check_jax(jnp.polyder, "polyder", p, m=2)
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(p, -1)
    with pytest.raises(ValueError, match="Order of integral must be positive"):
        jnp.polyint(p, -1)
    with pytest.raises(ValueError, match="k must be a scalar or a rank-1 array of length 1 or m"):
        jnp.polyint(p, 2, k=np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("x, kwargs", [(np.array([1, 2, 3], np.int32), {}), (W, dict(N=4)),
                                       (W, dict(increasing=True)), (W, dict(N=0)),
                                       (np.zeros((0,), np.float32), {})])
def test_vander(x, kwargs):
    check(jnp.vander, np.vander, x, dtype=x.dtype, rtol=1e-5, **kwargs)
    check_jax(jnp.vander, "vander", x, **kwargs)


def test_vander_errors():
    with pytest.raises(ValueError, match="x must be a one-dimensional array"):
        jnp.vander(F)
    with pytest.raises(ValueError, match="N must be nonnegative"):
        jnp.vander(W, -1)


# ---------------------------------------------------------------------------
# convolve, correlate, cov, corrcoef
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("a, v", [(V, W), (W, V), (np.arange(4, dtype=np.int32), np.array([1, 0, 2], np.int32)),
                                  (V, V[:1])])
def test_convolve_correlate(mode, a, v):
    check(jnp.convolve, np.convolve, a, v, mode=mode, dtype=np.float32, rtol=1e-5, atol=1e-5)
    check(jnp.correlate, np.correlate, a, v, mode=mode, dtype=np.float32, rtol=1e-5, atol=1e-5)
    check_jax(jnp.convolve, "convolve", a, v, mode=mode, atol=1e-5)
    check_jax(jnp.correlate, "correlate", a, v, mode=mode, atol=1e-5)


def test_convolve_options_and_errors():
    out = jnp.convolve(V, W, precision="highest")
    assert_close(out, np.convolve(V, W), rtol=1e-5, atol=1e-5)
    assert jnp.correlate(np.array([True, False]), np.array([True, True])).dtype == np.float32
    with pytest.raises(ValueError, match="only support 1-dimensional inputs"):
        jnp.convolve(F, W)
    with pytest.raises(ValueError, match="inputs cannot be empty"):
        jnp.correlate(np.zeros((0,), np.float32), W)
    with pytest.raises(ValueError, match="mode must be one of"):
        jnp.convolve(V, W, mode="wide")


@pytest.mark.parametrize("m, kwargs", [(F, {}), (F, dict(rowvar=False)), (F, dict(bias=True)),
                                       (F, dict(ddof=2)), (I, {}), (V, {}), (F[0], dict(y=F[1])),
                                       (F, dict(fweights=np.array([1, 2, 1, 3, 1]))),
                                       (F, dict(aweights=np.array([0.5, 1.0, 2.0, 1.0, 0.25]))),
                                       (F, dict(fweights=np.array([1, 2, 1, 3, 1]),
                                                aweights=np.array([0.5, 1.0, 2.0, 1.0, 0.25])))])
def test_cov(m, kwargs):
    check(jnp.cov, np.cov, m, dtype=np.float32, rtol=1e-4, atol=1e-5, **kwargs)
    check_jax(jnp.cov, "cov", m, rtol=1e-4, atol=1e-5, **kwargs)


def test_cov_edge_cases_and_corrcoef():
    assert jnp.cov(np.zeros((0, 3), np.float32)).shape == (0, 0)
    assert np.isnan(np.asarray(jnp.cov(np.zeros((1, 0), np.float32))))
    check(jnp.corrcoef, np.corrcoef, F, dtype=np.float32, rtol=1e-4, atol=1e-5)
    check(jnp.corrcoef, np.corrcoef, F, rowvar=False, dtype=np.float32, rtol=1e-4, atol=1e-5)
    check(jnp.corrcoef, np.corrcoef, V, W[:1].repeat(7) + V * 2, dtype=np.float32, rtol=1e-4, atol=1e-5)
    check_jax(jnp.corrcoef, "corrcoef", F, atol=1e-5)
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        jnp.cov(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="dtype must be a subclass of float"):
        jnp.cov(F, dtype=np.int32)
    with pytest.raises(TypeError, match="fweights must be integer"):
        jnp.cov(F, fweights=np.ones(5, np.float32))
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and aweights"):
        jnp.cov(F, aweights=np.ones(4, np.float32))


# ---------------------------------------------------------------------------
# isin, searchsorted, digitize, interp
# ---------------------------------------------------------------------------

def test_isin():
    elements = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    tests = np.array([2, 6, 9], np.int32)
    check(jnp.isin, np.isin, elements, tests, dtype=np.bool_)
    check(jnp.isin, np.isin, elements, tests, invert=True, dtype=np.bool_)
    check(jnp.isin, np.isin, F, F[1], dtype=np.bool_)
    check(jnp.isin, np.isin, elements, np.zeros((0,), np.int32), dtype=np.bool_)
    assert_close(jnp.isin(2.0, elements), np.bool_(True))
    check_jax(jnp.isin, "isin", elements, tests, invert=True)


SORTED = np.array([-2.0, -1.0, -1.0, 0.5, 3.0, 3.0, 7.0], np.float32)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("a, v", [(SORTED, np.array([-3.0, -1.0, 0.0, 3.0, 7.0, 8.0], np.float32)),
                                  (SORTED, rand((3, 4))), (SORTED[:1], rand((5,))),
                                  (np.arange(10, dtype=np.int32), np.array([-1, 0, 4, 9, 12], np.int32)),
                                  (np.zeros((0,), np.float32), rand((3,))),
                                  (np.array([1.0, 2.0, np.nan], np.float32),
                                   np.array([np.nan, 2.0, 5.0, -np.inf], np.float32))])
def test_searchsorted(side, a, v):
    check(jnp.searchsorted, np.searchsorted, a, v, side=side, dtype=np.int32)
    check_jax(jnp.searchsorted, "searchsorted", a, v, side=side)


def test_searchsorted_sorter_scalar_and_errors():
    a = np.array([3.0, 1.0, 2.0, 5.0], np.float32)
    sorter = np.argsort(a).astype(np.int32)
    check(jnp.searchsorted, np.searchsorted, a, np.array([0.0, 2.5, 9.0], np.float32), sorter=sorter,
          dtype=np.int32)
    assert_close(jnp.searchsorted(SORTED, 0.0), np.int32(3))
    with pytest.raises(ValueError, match="a should be 1-dimensional"):
        jnp.searchsorted(F, 1.0)
    with pytest.raises(ValueError, match="invalid value for keyword 'side'"):
        jnp.searchsorted(SORTED, 1.0, side="middle")


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [np.array([0.0, 1.0, 2.5, 4.0], np.float32),
                                  np.array([4.0, 2.5, 1.0, 0.0], np.float32), np.zeros((0,), np.float32)])
def test_digitize(right, bins):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 4.0, 5.0], np.float32)
    check(jnp.digitize, np.digitize, x, bins, right=right, dtype=np.int32)
    check_jax(jnp.digitize, "digitize", x, bins, right=right)


@pytest.mark.parametrize("kwargs", [{}, dict(left=-1.0, right=9.0), dict(period=3.0)])
def test_interp(kwargs):
    x = np.array([-1.0, 0.0, 0.3, 1.0, 1.7, 2.5, 3.0, 4.0], np.float32)
    xp = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
    fp = np.array([1.0, 3.0, 2.0, 0.0], np.float32)
    check(jnp.interp, np.interp, x, xp, fp, dtype=np.float32, rtol=1e-5, atol=1e-6, **kwargs)
    check(jnp.interp, np.interp, x, np.array([0, 1, 2, 3], np.int32), np.array([1, 3, 2, 0], np.int32),
          dtype=np.float32, **kwargs)
    check_jax(jnp.interp, "interp", x, xp, fp, **kwargs)


def test_interp_extrapolate_and_errors():
    xp = np.array([0.0, 1.0, 2.0], np.float32)
    fp = np.array([0.0, 10.0, 30.0], np.float32)
    out = jnp.interp(np.array([-1.0, 3.0], np.float32), xp, fp, left="extrapolate", right="extrapolate")
    assert_close(out, np.array([-10.0, 50.0], np.float32))
    with pytest.raises(ValueError, match="xp and fp must be one-dimensional arrays of equal size"):
        jnp.interp(1.0, xp, fp[:2])
    with pytest.raises(ValueError, match="only valid string value of `left`"):
        jnp.interp(1.0, xp, fp, left="clamp")


# ---------------------------------------------------------------------------
# unstack, splits, rollaxis, matvec, vecmat
# ---------------------------------------------------------------------------

def test_unstack():
    for axis in (0, 1, -1):
        out = jnp.unstack(F, axis=axis)
        assert isinstance(out, tuple)
        assert_close(out, tuple(np.moveaxis(F, axis, 0)))
    out = jaxc.jit(lambda x: jnp.unstack(x, axis=1))(I)
    assert_close(out, tuple(I.T))
    with pytest.raises(ValueError, match="Unstack requires arrays with rank > 0"):
        jnp.unstack(np.float32(1))


def test_hsplit_vsplit_dsplit():
    a3 = rand((4, 6, 2))
    for fn, ref, x, sections in [(jnp.hsplit, np.hsplit, a3, 3), (jnp.hsplit, np.hsplit, V[:6], [2, 5]),
                                 (jnp.vsplit, np.vsplit, a3, [1, 3]), (jnp.dsplit, np.dsplit, a3, 2)]:
        check(fn, ref, x, sections)
    with pytest.raises(ValueError, match="vsplit only works on arrays of 2 or more dimensions"):
        jnp.vsplit(V, 7)
    with pytest.raises(ValueError, match="dsplit only works on arrays of 3 or more dimensions"):
        jnp.dsplit(F, 1)


@pytest.mark.parametrize("axis, start", [(2, 0), (0, 3), (1, 1), (-1, -2), (0, 2)])
def test_rollaxis(axis, start):
    x = rand((2, 3, 4))
    check(jnp.rollaxis, np.rollaxis, x, axis=axis, start=start)


def test_rollaxis_errors():
    with pytest.raises(ValueError, match="must satisfy"):
        jnp.rollaxis(rand((2, 3)), 0, 5)


def test_matvec_vecmat():
    m, v = rand((4, 2, 3)), rand((3,))
    check(jnp.matvec, lambda a, b: np.einsum("...ij,...j->...i", a, b), m, v, dtype=np.float32)
    check(jnp.vecmat, lambda a, b: np.einsum("...i,...ij->...j", a, b), rand((4, 2)), m, dtype=np.float32)
    assert jnp.matvec(np.ones((2, 3), np.int32), np.ones(3, np.float32)).dtype == np.float32
    check_jax(jnp.matvec, "matvec", m, v)
    check_jax(jnp.vecmat, "vecmat", rand((4, 2)), m)


# ---------------------------------------------------------------------------
# Windows and predicates
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["hamming", "hanning", "bartlett", "blackman"])
@pytest.mark.parametrize("M", [0, 1, 2, 5, 12])
def test_windows(name, M):
    out = getattr(jnp, name)(M)
    assert out.dtype == np.float32 and out.shape == (M,)
    assert_close(out, getattr(np, name)(M).astype(np.float32), rtol=1e-5, atol=2e-7)
    check_jax(getattr(jnp, name), name, M, atol=2e-7)


def test_can_cast_and_isdtype():
    assert jnp.can_cast(jnp.int8, jnp.int32) and not jnp.can_cast(jnp.int32, jnp.float32)
    assert jnp.can_cast(jnp.float32, jnp.int32, casting="unsafe")
    assert jnp.can_cast(jnp.zeros(2, jnp.int16), jnp.float32)
    assert jnp.isdtype(jnp.float32, "real floating") and not jnp.isdtype(jnp.int32, "real floating")
    assert jnp.isdtype(jnp.bfloat16, "real floating") and jnp.isdtype(jnp.uint8, "integral")
    assert jnp.isdtype(jnp.int8, ("bool", "signed integer")) and not jnp.isdtype(jnp.uint8, "signed integer")
    assert jnp.isdtype(jnp.bool_, "bool") and not jnp.isdtype(jnp.bool_, "numeric")
    assert jnp.isdtype(jnp.float16, jnp.float16)
    with pytest.raises(ValueError, match="Unrecognized kind"):
        jnp.isdtype(jnp.float32, "floating point")


def test_type_predicates():
    assert jnp.isscalar(1) and jnp.isscalar(np.float32(2)) and jnp.isscalar(jnp.asarray(3.0))
    assert not jnp.isscalar(jnp.ones(2)) and not jnp.isscalar([1])
    assert jnp.iterable([1]) and jnp.iterable(jnp.ones(2)) and not jnp.iterable(jnp.asarray(1.0))
    assert jnp.isrealobj(F) and not jnp.iscomplexobj(jnp.ones(2)) and jnp.iscomplexobj(1j)
    check(jnp.isreal, np.isreal, F, dtype=np.bool_)
    check(jnp.iscomplex, np.iscomplex, I, dtype=np.bool_)


# ---------------------------------------------------------------------------
# gcd, lcm, ldexp, frexp, spacing
# ---------------------------------------------------------------------------

def test_gcd_lcm():
    a = np.array([12, -6, 0, 0, 17, 100, -35], np.int32)
    b = np.array([8, 4, 5, 0, 5, -75, 21], np.int32)
    check(jnp.gcd, np.gcd, a, b, dtype=np.int32)
    check(jnp.lcm, np.lcm, a, b, dtype=np.int32)
    check(jnp.gcd, np.gcd, a.reshape(7, 1), b, dtype=np.int32)  # broadcasting
    check(jnp.gcd, np.gcd, np.array([12, 18], np.int8), 4, dtype=np.int8)
    check_jax(jnp.lcm, "lcm", a, b)
    with pytest.raises(ValueError, match="must be integers"):
        jnp.gcd(F, F)
    with pytest.raises(ValueError, match="must be integers"):
        jnp.lcm(1.5, 2)


FLOATS = np.array([8.0, 0.0, -0.0, -3.0, np.inf, -np.inf, np.nan, 1e-40, -3e-44, 1.5e-38, 3e38, 0.7],
                  np.float32)


def test_frexp():
    check(jnp.frexp, np.frexp, FLOATS)  # subnormal inputs normalized exactly, as NumPy
    mant, exp = jnp.frexp(np.array([1, 6, -4], np.int32))
    assert mant.dtype == np.float32 and exp.dtype == np.int32
    assert_close((mant, exp), np.frexp(np.array([1.0, 6.0, -4.0], np.float32)))
    mant, exp = jnp.frexp(np.array([3.0, 0.1], np.float16))
    assert mant.dtype == np.float16 and exp.dtype == np.int32
    assert_close((mant, exp), np.frexp(np.array([3.0, 0.1], np.float16)))
    # JAX (XLA) reads subnormal inputs as zero here; compare the others
    normal = FLOATS[~((np.abs(FLOATS) < np.finfo(np.float32).tiny) & (FLOATS != 0))]
    check_jax(jnp.frexp, "frexp", normal)


def test_frexp_float64(x64):
    x = np.array([8.0, -3.0, 1e-310, 1e300, 0.0, np.inf], np.float64)
    check(jnp.frexp, np.frexp, x)


def test_ldexp():
    x = np.array([1.0, 2.0, 1e-30, 0.7, 0.0, -2.0, np.inf, 5.0, 3.0, 1e-40], np.float32)
    e = np.array([3, 4, 120, -100, 5, 3, -3, -2147483647, 200, 100], np.int32)
    with np.errstate(over="ignore"):
        expected = np.ldexp(x, e)
    check(jnp.ldexp, None, x, e, expected=expected, dtype=np.float32)
    check(jnp.ldexp, None, np.array([1, 2], np.int32), 3, expected=np.array([8.0, 16.0], np.float32),
          dtype=np.float32)
    check(jnp.ldexp, None, np.array([3.0], np.float16), np.array([2], np.int8),
          expected=np.array([12.0], np.float16), dtype=np.float16)
    check_jax(jnp.ldexp, "ldexp", x[:-1], e[:-1])
    with pytest.raises(ValueError, match="ldexp not supported for input types"):
        jnp.ldexp(x, x)


def test_spacing():
    x = np.array([1.0, 0.0, -1.0, 1e10, -3.5, np.inf], np.float32)
    check(jnp.spacing, np.spacing, x, dtype=np.float32)
    check(jnp.spacing, np.spacing, np.array([1.0, 0.0, -2.0], np.float16), dtype=np.float16)
    check_jax(jnp.spacing, "spacing", x)


# ---------------------------------------------------------------------------
# vmap against a loop, gradients against float64 finite differences
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: jnp.diff(x, n=2),
    lambda x: jnp.trapezoid(x, dx=0.5),
    lambda x: jnp.polyval(x[:3], x),
    lambda x: jnp.convolve(x, jnp.asarray(W), mode="same"),
    lambda x: jnp.cumulative_sum(x, include_initial=True),
    lambda x: jnp.searchsorted(jnp.asarray(SORTED), x),
    lambda x: jnp.interp(x, jnp.asarray(SORTED[::2]), jnp.asarray(W.repeat(2)[:4])),
    lambda x: jnp.isin(jnp.round(x), jnp.asarray([0.0, 1.0])),
    lambda x: jnp.nan_to_num(1.0 / x),
    lambda x: jnp.frexp(x)[1],
])
def test_vmap_matches_loop(fn):
    xs = rand((4, 6))
    batched = jaxc.vmap(fn)(xs)
    looped = np.stack([np.asarray(fn(jnp.asarray(x))) for x in xs])
    assert_close(batched, looped, rtol=1e-5, atol=1e-6)


def test_vmap_gcd_and_cov():
    a = rand((3, 5), np.int32, low=-20, high=20)
    b = rand((3, 5), np.int32, low=-20, high=20)
    assert_close(jaxc.vmap(jnp.gcd)(a, b), np.gcd(a, b))
    ms = rand((4, 2, 6))
    assert_close(jaxc.vmap(jnp.cov)(ms), np.stack([np.cov(m) for m in ms]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn, shape", [
    (lambda x: jnp.diff(x, n=2, prepend=0.5), (6,)),
    (lambda x: jnp.trapezoid(x, x=jnp.cumsum(jnp.abs(x)) + 1.0), (5,)),
    (lambda x: jnp.trapezoid(x, axis=0), (4, 3)),
    (lambda x: jnp.polyval(x[:3], x[3:]), (7,)),
    (lambda x: jnp.convolve(x[:5], x[5:], mode="full"), (8,)),
    (lambda x: jnp.correlate(x[:3], x[3:], mode="same"), (8,)),
    (lambda x: jnp.cov(x), (2, 5)),
    (lambda x: jnp.corrcoef(x), (2, 5)),
    (lambda x: jnp.interp(x, jnp.asarray([-1.0, -0.2, 0.3, 1.0]), jnp.asarray([0.0, 2.0, 1.0, 4.0])), (6,)),
    (lambda x: jnp.interp(jnp.asarray([-0.5, 0.1, 0.6]), jnp.asarray([-1.0, 0.0, 1.0]), x), (3,)),
    (lambda x: jnp.nan_to_num(x * 2.0), (4,)),
    (lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True), (2, 3)),
    (lambda x: jnp.ldexp(x, jnp.asarray([1, -2, 3])), (3,)),
    (lambda x: jnp.frexp(x * 5.0)[0], (3,)),
])
def test_grads(x64, fn, shape):
    x = f64(*shape)
    check_grads(fn, (x,), order=2, modes=("fwd", "rev"))
    check_grads(jaxc.jit(fn), (x,), order=1, modes=("rev",))


# ---------------------------------------------------------------------------
# bincount and histograms
# ---------------------------------------------------------------------------

def test_bincount():
    x = np.array([0, 1, 1, 5, 3, 3, 3], np.int32)
    check(lambda v: jnp.bincount(v, length=6), lambda v: np.bincount(v, minlength=6), x, dtype="int32")
    np.testing.assert_array_equal(np.asarray(jnp.bincount(x)), np.bincount(x))
    np.testing.assert_array_equal(np.asarray(jnp.bincount(x, minlength=9)), np.bincount(x, minlength=9))
    w = np.linspace(0.5, 3.5, 7).astype(np.float32)
    check(lambda v, w: jnp.bincount(v, w, length=6), lambda v, w: np.bincount(v, w, minlength=6).astype(np.float32),
          x, w, dtype="float32")
    # JAX's rules past NumPy's: negative values count in bin 0, values past `length` are dropped
    got = jnp.bincount(np.array([0, 1, 1, 5, -2, 3]), length=4)
    np.testing.assert_array_equal(np.asarray(got), [2, 2, 0, 1])
    assert jnp.bincount(np.zeros(0, np.int32)).shape == (0,)


def test_bincount_errors():
    with pytest.raises(TypeError, match="integer type"):
        jnp.bincount(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="only 1-dimensional"):
        jnp.bincount(np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match="weights must match"):
        jnp.bincount(np.array([1, 2]), np.ones(3))
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(jnp.bincount)(np.array([1, 2]))


@pytest.mark.parametrize("kwargs", [dict(bins=7), dict(bins=5, range=(-1, 1)), dict(bins=4, density=True),
                                    dict(bins=np.array([-2.0, -0.5, 0.0, 0.25, 3.0]))])
def test_histogram_matches_numpy(kwargs):
    a = np.random.default_rng(1).standard_normal((10, 10)).astype(np.float32)
    counts, edges = jnp.histogram(a, **kwargs)
    ref_counts, ref_edges = np.histogram(a, **kwargs)
    assert counts.dtype == np.float32 and edges.dtype == np.float32
    np.testing.assert_allclose(np.asarray(edges), ref_edges, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(counts), ref_counts, rtol=1e-5)
    jit_counts, jit_edges = jaxc.jit(lambda v: jnp.histogram(v, **kwargs))(a)
    np.testing.assert_array_equal(np.asarray(jit_counts), np.asarray(counts))
    np.testing.assert_array_equal(np.asarray(jit_edges), np.asarray(edges))


def test_histogram_edges_weights_and_ints():
    # the maximum lands in the last bin (closed on the right); a flat range is widened by 0.5
    counts, edges = jnp.histogram(np.ones(3), bins=2)
    np.testing.assert_array_equal(np.asarray(counts), [0.0, 3.0])
    np.testing.assert_array_equal(np.asarray(edges), [0.5, 1.0, 1.5])
    counts, _ = jnp.histogram(np.arange(5), bins=3, weights=np.arange(5))
    np.testing.assert_array_equal(np.asarray(counts), np.histogram(np.arange(5), bins=3, weights=np.arange(5))[0])
    assert counts.dtype == np.float32  # ints are counted in the default float, as JAX
    np.testing.assert_allclose(np.asarray(jnp.histogram_bin_edges(np.arange(10), bins=3)),
                               np.histogram_bin_edges(np.arange(10), bins=3), rtol=1e-6)
    with pytest.raises(NotImplementedError):
        jnp.histogram(np.arange(5), bins="auto")
    with pytest.raises(ValueError, match="same shape"):
        jnp.histogram(np.arange(5), weights=np.ones(4))
    with pytest.raises(ValueError, match="range"):
        jnp.histogram_bin_edges(np.arange(5), bins=3, range=(0, 1, 2))


def test_histogram_and_bincount_match_jax():
    jnp_ref = pytest.importorskip("jax.numpy")
    a = np.random.default_rng(2).standard_normal(50).astype(np.float32)
    for kwargs in (dict(bins=6), dict(bins=3, range=(-1.0, 0.5), density=True)):
        for ours, theirs in zip(jnp.histogram(a, **kwargs), jnp_ref.histogram(a, **kwargs)):
            np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)
    x = np.array([0, 3, 3, -1, 7])
    np.testing.assert_array_equal(np.asarray(jnp.bincount(x, length=5)), np.asarray(jnp_ref.bincount(x, length=5)))
