"""jnp reductions against NumPy (values) and JAX's dtype rules, eagerly and
under jit: sum/prod/max/min/mean/var/std, arg-reductions, all/any,
cumulative sums, median, average, the NaN-ignoring variants, where=/initial,
empty axes and the error messages."""
import warnings
from functools import partial

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp

X = rand((2, 3, 4))                      # the shared float32 operand
XI = rand((2, 3, 4), np.int32, -5, 5)     # ... and its int32 twin
NAN = X.copy()
NAN[0, 1, 2] = NAN[1, 0, 0] = NAN[1, 2, 3] = np.nan
EMPTY = np.zeros((0, 3), np.float32)


# ---------------------------------------------------------------------------
# Values over axes, eager and jit
# ---------------------------------------------------------------------------

AXES = [(None, False), (-1, True), ((0, 2), False), (1, False)]


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std", "ptp"])
@pytest.mark.parametrize("axis,keepdims", AXES)
def test_float_reductions(name, axis, keepdims):
    check(getattr(jnp, name), getattr(np, name), X, axis=axis, keepdims=keepdims, dtype=np.float32,
          rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "all", "any", "count_nonzero"])
def test_int_reductions(name):
    check(getattr(jnp, name), getattr(np, name), XI, axis=1)


@pytest.mark.parametrize("name", ["median", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar",
                                  "nanstd"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (-1, True), ((0, 2), False)])
def test_median_and_nan_reductions(name, axis, keepdims):
    check(getattr(jnp, name), getattr(np, name), NAN, axis=axis, keepdims=keepdims, dtype=np.float32,
          rtol=2e-5, atol=1e-5)


def test_median_even_odd_and_nan():
    even = rand((3, 6))
    check(jnp.median, np.median, even, axis=1)
    check(jnp.median, np.median, even, axis=0)
    check(jnp.median, np.median, NAN, axis=-1)  # NaN where a NaN is present
    assert_close(jnp.median(XI), np.median(XI))
    assert jnp.median(XI).dtype == np.float32


# ---------------------------------------------------------------------------
# JAX's dtype rules
# ---------------------------------------------------------------------------

DTYPE_RULES = [
    ("sum", np.bool_, np.int32), ("sum", np.int8, np.int32), ("sum", np.int16, np.int32),
    ("sum", np.uint8, np.uint32), ("sum", np.uint16, np.uint32), ("sum", np.int32, np.int32),
    ("sum", np.float16, np.float16), ("prod", np.int8, np.int32), ("prod", np.bool_, np.int32),
    ("max", np.int8, np.int8), ("max", np.bool_, np.bool_), ("min", np.uint8, np.uint8),
    ("mean", np.int32, np.float32), ("mean", np.bool_, np.float32), ("mean", np.float16, np.float16),
    ("var", np.int32, np.float32), ("std", np.uint8, np.float32), ("argmax", np.float16, np.int32),
    ("argmin", np.bool_, np.int32), ("all", np.int32, np.bool_), ("any", np.float32, np.bool_),
    ("count_nonzero", np.uint8, np.int32), ("cumsum", np.bool_, np.int32), ("cumsum", np.int8, np.int8),
    ("cumprod", np.uint16, np.uint16), ("median", np.int32, np.float32), ("ptp", np.int16, np.int16),
    ("nansum", np.int8, np.int32), ("nanmean", np.int32, np.float32),
]


@pytest.mark.parametrize("name,in_dtype,out_dtype", DTYPE_RULES)
def test_dtype_rules(name, in_dtype, out_dtype):
    x = rand((2, 3), in_dtype, 0, 4)
    with np.errstate(over="ignore"):
        check(getattr(jnp, name), getattr(np, name), x, axis=0, dtype=out_dtype, jit=False, rtol=2e-3, atol=2e-3)


def test_dtype_argument():
    # check's own `dtype=` is the expected result dtype; the function's goes through partial.
    check(partial(jnp.sum, axis=0, dtype=np.float32), partial(np.sum, axis=0), XI, dtype=np.float32)
    check(partial(jnp.sum, dtype=np.int32), None, X, expected=np.sum(X.astype(np.int32)), dtype=np.int32)
    check(partial(jnp.mean, dtype=np.float16), np.mean, XI, dtype=np.float16, rtol=1e-3, atol=1e-3)
    check(partial(jnp.cumsum, axis=1, dtype=np.float32), partial(np.cumsum, axis=1), XI, dtype=np.float32)
    bools = np.array([True, True, False])
    check(partial(jnp.prod, dtype=np.bool_), None, bools, expected=np.bool_(False), dtype=np.bool_)
    assert jnp.sum(rand((4,), np.int8), promote_integers=False).dtype == np.int8


def test_float16_sums_accumulate_in_float32():
    x = np.full((4096,), 1.0, np.float16)  # float16 alone would stop counting at 2048
    assert float(jnp.sum(x)) == 4096.0
    assert float(jnp.mean(x)) == 1.0


def test_results_are_strongly_typed():
    assert not jnp.sum(jnp.asarray(2.0)).weak_type
    assert jnp.sum(2.0).dtype == np.float32 and jnp.sum(2).dtype == np.int32


# ---------------------------------------------------------------------------
# 0-d, empty axes, where= and initial
# ---------------------------------------------------------------------------

def test_zero_d():
    s = np.float32(3.5)
    for name in ["sum", "prod", "max", "mean", "var", "median"]:
        assert_close(getattr(jnp, name)(s), getattr(np, name)(s), what=name)
    assert int(jnp.argmax(s)) == 0
    assert jnp.sum(s, keepdims=True).shape == ()
    assert_close(jnp.cumsum(s), np.cumsum(s))


def test_empty_axes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(jnp.sum, np.sum, EMPTY, axis=0)
        check(jnp.prod, np.prod, EMPTY, axis=0)
        check(jnp.mean, np.mean, EMPTY, axis=0, dtype=np.float32)  # nan
        check(jnp.var, np.var, EMPTY, axis=0)
        check(jnp.median, np.median, EMPTY, axis=0)
        check(jnp.all, np.all, EMPTY)
        check(jnp.any, np.any, EMPTY)
        check(jnp.max, np.max, EMPTY, axis=1)  # a non-empty axis of an empty array is fine
        check(jnp.cumsum, np.cumsum, EMPTY, axis=0)
    check(jnp.max, None, EMPTY, axis=0, initial=-1.0, expected=np.full((3,), -1.0))


@pytest.mark.parametrize("name", ["max", "min", "amax", "ptp", "nanmax", "argmax", "argmin"])
def test_empty_axis_without_identity_raises(name):
    with pytest.raises(ValueError, match=r"(zero-size array to reduction operation (max|min) which has no "
                                         r"identity|attempt to get arg(max|min) of an empty sequence)"):
        getattr(jnp, name)(EMPTY, axis=0)


def test_where():
    mask = X > 0
    check(jnp.sum, np.sum, X, where=mask)
    check(jnp.sum, np.sum, X, axis=1, where=mask[:, :1, :])  # broadcast mask
    check(jnp.prod, np.prod, X, axis=0, where=mask)
    check(jnp.mean, np.mean, X, axis=-1, where=mask)
    check(jnp.var, np.var, X, axis=(0, 1), where=mask, rtol=1e-4)
    check(jnp.max, np.max, X, axis=2, where=mask, initial=-10.0)
    check(jnp.all, np.all, X > -1, axis=0, where=mask)
    check(jnp.any, np.any, X > 2, axis=0, where=mask)
    check(jnp.nansum, np.nansum, NAN, axis=0, where=mask)
    with pytest.raises(ValueError, match="max has no identity.*initial"):
        jnp.max(X, where=mask)


def test_initial():
    check(jnp.sum, np.sum, XI, axis=0, initial=100)
    check(jnp.max, np.max, X, axis=1, initial=2.0)
    check(jnp.min, np.min, XI, initial=-100)
    check(jnp.prod, np.prod, X, axis=(1, 2), initial=0.5, rtol=1e-4)
    with pytest.raises(ValueError, match="initial must be a scalar"):
        jnp.sum(X, initial=np.ones(2))


# ---------------------------------------------------------------------------
# NaN behaviour
# ---------------------------------------------------------------------------

def test_nan_propagation():
    check(jnp.max, np.max, NAN, axis=0)
    check(jnp.sum, np.sum, NAN, axis=-1)
    check(jnp.argmax, np.argmax, NAN, axis=2)   # the first NaN wins, as in NumPy
    check(jnp.argmin, np.argmin, NAN)


def test_all_nan_slices():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(jnp.nanmax, np.nanmax, x, axis=1)
        check(jnp.nanmin, np.nanmin, x, axis=1)
        check(jnp.nanmean, np.nanmean, x, axis=1)
        check(jnp.nanvar, np.nanvar, x, axis=1)
        check(jnp.nansum, np.nansum, x, axis=1)
        check(jnp.nanprod, np.nanprod, x, axis=1)
    check(jnp.nanargmax, None, x, axis=1, expected=np.array([-1, 0]))  # JAX: -1 for all-NaN slices
    check(jnp.nanargmin, np.nanargmin, NAN, axis=0)
    check(jnp.nanargmax, np.nanargmax, NAN)


def test_nan_functions_on_ints_are_plain_reductions():
    check(jnp.nanmax, np.max, XI, axis=0)
    check(jnp.nansum, np.sum, XI, axis=1, dtype=np.int32)
    check(jnp.nanmean, np.mean, XI, dtype=np.float32)


# ---------------------------------------------------------------------------
# Arg-reductions and cumulative reductions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (-1, False), (0, True)])
def test_arg_reductions(name, axis, keepdims):
    check(getattr(jnp, name), getattr(np, name), XI, axis=axis, keepdims=keepdims, dtype=np.int32)


def test_arg_reductions_pick_the_first_tie():
    x = np.array([[1, 3, 3], [0, 0, -1]], np.int32)
    check(jnp.argmax, np.argmax, x, axis=1)
    check(jnp.argmin, np.argmin, x, axis=0)
    check(jnp.argmax, np.argmax, np.array([False, True, True]))


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, -1, 0])
def test_cumulative(name, axis):
    check(getattr(jnp, name), getattr(np, name), NAN if name.startswith("nan") else X, axis=axis,
          dtype=np.float32, rtol=1e-4, atol=1e-5)


def test_cumulative_of_bools_counts():
    check(jnp.cumsum, np.cumsum, X > 0, axis=1, dtype=np.int32)
    check(partial(jnp.cumsum, axis=1, dtype=np.bool_), None, X > 0, expected=np.cumsum(X > 0, axis=1) > 0,
          dtype=np.bool_)


# ---------------------------------------------------------------------------
# average, count_nonzero, ptp
# ---------------------------------------------------------------------------

def test_average():
    w = rand((4,), np.float32, 0.5, 2.0)
    check(jnp.average, np.average, X, dtype=np.float32)
    check(jnp.average, np.average, X, axis=(0, 1))
    check(lambda x, w: jnp.average(x, axis=-1, weights=w), None, X, w,
          expected=np.average(X, axis=-1, weights=w))
    check(lambda x, w: jnp.average(x, axis=1, weights=w), None, X, X + 4,
          expected=np.average(X, axis=1, weights=X + 4), rtol=1e-4)
    avg, total = jnp.average(X, axis=2, weights=w, returned=True)
    ref_avg, ref_total = np.average(X, axis=2, weights=w, returned=True)
    assert_close(avg, ref_avg)
    assert_close(total, ref_total)
    avg, total = jnp.average(XI, axis=1, returned=True)
    assert avg.dtype == total.dtype == np.float32
    assert_close(total, np.full((2, 4), 3.0))
    assert jnp.average(X, axis=0, keepdims=True).shape == (1, 3, 4)


def test_average_weight_errors():
    with pytest.raises(ValueError, match=r"jnp.average: 1-d weights of shape \(4,\) need a single axis"):
        jnp.average(X, weights=np.ones(4))
    with pytest.raises(ValueError, match=r"length of weights 4 differs from a.shape\[1\] = 3"):
        jnp.average(X, axis=1, weights=np.ones(4))
    with pytest.raises(ValueError, match=r"weights of shape \(3, 4\) must be 1-d"):
        jnp.average(X, axis=1, weights=np.ones((3, 4)))


def test_count_nonzero_and_ptp():
    x = rand((3, 5), np.int32, -1, 2)
    check(jnp.count_nonzero, np.count_nonzero, x, dtype=np.int32)
    check(jnp.count_nonzero, np.count_nonzero, x, axis=0, keepdims=True)
    check(jnp.ptp, np.ptp, x, axis=-1)
    with pytest.raises(TypeError, match="jnp.ptp is not defined for booleans"):
        jnp.ptp(x > 0)


def test_var_ddof():
    check(jnp.var, np.var, X, axis=1, ddof=1)
    check(jnp.std, np.std, X, axis=(0, 2), ddof=2, rtol=1e-5)
    check(jnp.var, None, X, axis=0, ddof=2, expected=np.full((3, 4), np.nan))  # N - ddof <= 0
    check(jnp.var, np.var, X, correction=1)
    with pytest.raises(ValueError, match="ddof and correction"):
        jnp.var(X, ddof=1, correction=1)
    with pytest.raises(ValueError, match="jnp.std: dtype must be a float dtype"):
        jnp.std(X, dtype=np.int32)


# ---------------------------------------------------------------------------
# Methods, errors, jit
# ---------------------------------------------------------------------------

def test_methods():
    x = jnp.asarray(X)
    assert_close(x.sum(axis=0), X.sum(axis=0))
    assert_close(x.prod(), X.prod(), rtol=1e-4)
    assert_close(x.mean(axis=(1, 2), keepdims=True), X.mean(axis=(1, 2), keepdims=True))
    assert_close(x.var(ddof=1), X.var(ddof=1))
    assert_close(x.std(axis=-1), X.std(axis=-1))
    assert_close(x.max(axis=1), X.max(axis=1))
    assert_close(x.min(), X.min())
    assert_close(x.argmax(), X.argmax())
    assert_close(x.argmin(axis=0), X.argmin(axis=0))
    assert_close(x.all(), X.all())
    assert_close((x > 0).any(axis=2), (X > 0).any(axis=2))
    assert_close(x.cumsum(axis=1), X.cumsum(axis=1), rtol=1e-5, atol=1e-5)
    assert_close(x.cumprod(), X.cumprod(), rtol=1e-4)
    assert_close(x.ptp(axis=0), np.ptp(X, axis=0))


def test_methods_under_jit():
    f = jaxc.jit(lambda x: x.sum(axis=0) + x.mean(axis=0) - x.max(axis=0) * x.std(axis=0))
    assert_close(f(X), X.sum(0) + X.mean(0) - X.max(0) * X.std(0), rtol=1e-5, atol=1e-5)


def test_axis_errors():
    with pytest.raises(ValueError, match="jnp.sum: axis 3 is out of bounds for an array of dimension 3"):
        jnp.sum(X, axis=3)
    with pytest.raises(ValueError, match="jnp.mean: axis -4 is out of bounds"):
        jnp.mean(X, axis=-4)
    with pytest.raises(ValueError, match=r"jnp.max: repeated axis in \(0, -3\)"):
        jnp.max(X, axis=(0, -3))
    with pytest.raises(ValueError, match="jnp.argmax: axis 5 is out of bounds"):
        jnp.argmax(X, axis=5)
    with pytest.raises(NotImplementedError, match="jnp.sum: the 'out' argument is not supported"):
        jnp.sum(X, out=np.zeros(()))


def test_traced_axis_is_an_error():
    with pytest.raises(jaxc.ConcretizationTypeError, match="the axis argument of jnp.sum"):
        jaxc.jit(lambda x, a: jnp.sum(x, axis=a))(X, 0)
    with pytest.raises(TypeError, match="jnp.sum: axis must be an int"):
        jnp.sum(X, axis="0")
