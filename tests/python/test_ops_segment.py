"""jaxc.ops: segment_sum/prod/max/min against a NumPy loop, eagerly, under
jit and vmap, their gradients against float64 finite differences, and the
errors JAX gives."""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import numerical_gradient

import jaxc
import jaxc.numpy as jnp
from jaxc import ops

REDUCTIONS = {"sum": (ops.segment_sum, np.add, 0), "prod": (ops.segment_prod, np.multiply, 1),
              "max": (ops.segment_max, np.maximum, None), "min": (ops.segment_min, np.minimum, None)}


def identity(reduction: str, dtype: np.dtype):
    if REDUCTIONS[reduction][2] is not None:
        return REDUCTIONS[reduction][2]
    lowest = reduction == "max"
    if dtype == np.bool_:
        return not lowest
    if np.issubdtype(dtype, np.floating):
        return -np.inf if lowest else np.inf
    return np.iinfo(dtype).min if lowest else np.iinfo(dtype).max


def reference(reduction: str, data: np.ndarray, ids: np.ndarray, num_segments: int) -> np.ndarray:
    """The segment reduction as a Python loop over the rows of `data`."""
    combine = REDUCTIONS[reduction][1]
    out = np.full((num_segments,) + data.shape[1:], identity(reduction, data.dtype), data.dtype)
    for row, segment in zip(data, ids):
        if 0 <= segment < num_segments:
            out[segment] = combine(out[segment], row)
    return out


IDS = np.array([3, 0, 0, 5, 2, -1, 2, 7, 0], np.int32)  # -1 and 7 fall outside 6 segments
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("reduction", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("trailing", [(), (2, 3)])
def test_segments_match_a_numpy_loop(reduction, dtype, trailing):
    data = (RNG.uniform(-3, 3, (len(IDS),) + trailing) * 4).astype(dtype)
    expected = reference(reduction, data, IDS, 6)
    fn = REDUCTIONS[reduction][0]
    eager = fn(data, IDS, 6)
    jitted = jaxc.jit(lambda d, i: fn(d, i, num_segments=6))(data, IDS)
    for got in (eager, jitted):
        assert got.dtype == dtype and got.shape == (6,) + trailing
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


@pytest.mark.parametrize("reduction", ["max", "min"])
def test_bool_extremes(reduction):
    data = np.array([True, False, False, True])
    ids = np.array([0, 0, 1, 3])
    got = REDUCTIONS[reduction][0](data, ids, 4)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got), reference(reduction, data, ids, 4))


def test_num_segments_defaults_to_the_largest_id_plus_one():
    data = np.arange(5, dtype=np.float32)
    got = ops.segment_sum(data, np.array([0, 2, 2, 4, 1]))
    np.testing.assert_array_equal(np.asarray(got), [0, 4, 3, 0, 3])


def test_num_segments_is_needed_under_jit():
    with pytest.raises(jaxc.ConcretizationTypeError):
        jaxc.jit(ops.segment_sum)(np.ones(3, np.float32), np.array([0, 1, 1]))


def test_clip_mode_clamps_out_of_range_ids():
    data = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    ids = np.array([-3, 0, 1, 9])
    np.testing.assert_array_equal(np.asarray(ops.segment_sum(data, ids, 2)), [2, 4])
    np.testing.assert_array_equal(np.asarray(ops.segment_sum(data, ids, 2, mode="clip")), [3, 12])


def test_sorted_and_bucketed_calls_give_the_same_result():
    data = RNG.standard_normal(9).astype(np.float32)
    plain = ops.segment_sum(data, IDS, 6)
    hinted = ops.segment_sum(data, IDS, 6, indices_are_sorted=False, unique_indices=False, bucket_size=4)
    np.testing.assert_array_equal(np.asarray(plain), np.asarray(hinted))


def test_empty_inputs_give_the_identity():
    got = ops.segment_max(np.zeros((0, 2), np.float32), np.zeros(0, np.int32), 3)
    np.testing.assert_array_equal(np.asarray(got), np.full((3, 2), -np.inf, np.float32))
    assert ops.segment_sum(np.ones(3, np.float32), np.array([0, 1, 2]), 0).shape == (0,)


def test_extremes_keep_signed_zeros_infinities_and_nans():
    data = np.array([-0.0, np.inf, 1.0, -np.inf, np.nan], np.float32)
    got = np.asarray(ops.segment_max(data, np.array([0, 1, 1, 2, 3]), 5))
    np.testing.assert_array_equal(got, [-0.0, np.inf, -np.inf, np.nan, -np.inf])
    assert np.signbit(got[0])


def test_vmap_matches_a_python_loop():
    data = RNG.standard_normal((4, 9, 2)).astype(np.float32)
    for reduction in ("sum", "max"):
        fn = REDUCTIONS[reduction][0]
        got = jaxc.vmap(lambda d: fn(d, IDS, 6))(data)
        expected = np.stack([reference(reduction, d, IDS, 6) for d in data])
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)




@pytest.mark.parametrize("reduction", ["sum", "max", "min"])
def test_gradients_match_finite_differences(reduction):
    fn = REDUCTIONS[reduction][0]
    weights = np.arange(1.0, 7.0)
    data = RNG.standard_normal(len(IDS))  # no ties: the extremes are differentiable

    def numpy_loss(d):
        out = reference(reduction, d, IDS, 6)
        return float(np.sum(np.where(np.isfinite(out), out, 0) * weights))

    with jaxc.enable_x64():  # empty segments hold +-inf: where() keeps them out of the loss
        got = np.asarray(jaxc.grad(lambda d: (jnp.where(jnp.isfinite(out := fn(d, IDS, 6)), out, 0)
                                              * weights).sum())(data))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, numerical_gradient(numpy_loss, data), rtol=1e-6, atol=1e-9)


def test_tied_extremes_share_the_derivative_as_in_jax():
    data = np.array([0.0, 1.0, 1.0, 3.0, 2.0], np.float32)
    ids = np.array([0, 1, 1, 2, 2])
    got = jaxc.grad(lambda d: ops.segment_max(d, ids, 3).sum())(data)
    np.testing.assert_array_equal(np.asarray(got), [1.0, 0.5, 0.5, 1.0, 0.0])


def test_bad_arguments():
    with pytest.raises(TypeError, match="segment_ids must be integers"):
        ops.segment_sum(np.ones(3), np.array([0.0, 1.0, 1.0]), 2)
    with pytest.raises(ValueError, match="num_segments must be non-negative"):
        ops.segment_sum(np.ones(3), np.array([0, 1, 1]), -1)
    with pytest.raises(ValueError, match="do not index the leading"):
        ops.segment_sum(np.ones(3), np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="unknown mode"):
        ops.segment_sum(np.ones(3), np.array([0, 1, 1]), 2, mode="wrap")


def test_matches_jax_where_installed():
    jax = pytest.importorskip("jax")
    data = RNG.standard_normal((len(IDS), 2)).astype(np.float32)
    for name in ("segment_sum", "segment_prod", "segment_max", "segment_min"):
        ours = getattr(ops, name)(data, IDS, 6)
        theirs = getattr(jax.ops, name)(data, IDS, 6)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)

