"""jnp.unique (and its Array API forms) and the 1-d set operations of
numpy/_sets.py against NumPy (eager), JAX's documented size=/fill_value=
padding (eager, under jit and vmap), JAX itself where installed, and the
errors JAX raises."""
import numpy as np
import pytest
from jnp_check import assert_close, check_jax

import jaxc
import jaxc.numpy as jnp
from jaxc import core
from jaxc.test_util import check_grads

NAN = np.nan
INTS = np.array([[3, 1, 4], [1, 5, 9], [2, 6, 5]], np.int32)
FLOATS = np.array([2.5, NAN, -1.0, 2.5, NAN, 0.0, -1.0], np.float32)
CASES = [INTS, FLOATS, np.zeros((0,), np.float32), np.array([7], np.int32),
         np.array([True, False, True]), np.array([[1.5, 1.5], [0.5, 1.5]], np.float32)]


def _dtype_ok(result, expected_dtypes):
    for leaf, dtype in zip(result, expected_dtypes):
        assert np.asarray(leaf).dtype == np.dtype(dtype)


# ---------------------------------------------------------------------------
# unique
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("x", CASES, ids=["int2d", "nan", "empty", "one", "bool", "float2d"])
def test_unique_matches_numpy(x):
    ours = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    theirs = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=True)
    assert_close(ours, [theirs[0], theirs[1], theirs[2].reshape(x.shape), theirs[3]])
    _dtype_ok(ours, [x.dtype, np.int32, np.int32, np.int32])
    assert_close(jnp.unique(x), theirs[0])
    assert_close(jnp.unique(x, equal_nan=False), np.unique(x, equal_nan=False))
    check_jax(jnp.unique, "unique", x, return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_axis(axis):
    x = np.array([[1, 2, 1, 2], [0, 5, 0, 4], [1, 2, 1, 2]], np.int32)
    ours = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    theirs = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    assert_close(ours, [theirs[0], theirs[1], theirs[2].ravel(), theirs[3]])
    check_jax(jnp.unique, "unique", x, return_index=True, return_inverse=True, return_counts=True, axis=axis)


def test_unique_size_pads_and_truncates_under_jit():
    x = np.array([3, 1, 1, 2], np.int32)

    def f(x):
        return jnp.unique(x, return_index=True, return_inverse=True, return_counts=True, size=5)
    # JAX's padding: values with the smallest value, the index of that value, zero counts.
    expected = ([1, 2, 3, 1, 1], [1, 3, 0, 1, 1], [2, 0, 0, 1], [2, 1, 1, 0, 0])
    for fn in (f, jaxc.jit(f)):
        assert_close(fn(x), [np.array(e, np.int32) for e in expected])
    filled = jaxc.jit(lambda x: jnp.unique(x, return_counts=True, size=4, fill_value=-7))(x)
    assert_close(filled, [np.array([1, 2, 3, -7], np.int32), np.array([2, 1, 1, 0], np.int32)])
    truncated = jaxc.jit(lambda x: jnp.unique(x, return_index=True, return_counts=True, size=2))(x)
    assert_close(truncated, [np.array([1, 2]), np.array([1, 3]), np.array([2, 1])])
    # An empty input needs fill_value; indices and counts stay empty (JAX).
    empty = jnp.unique(np.zeros((0,), np.float32), return_index=True, return_counts=True, size=2, fill_value=4)
    assert_close(empty, [np.array([4.0, 4.0], np.float32), np.zeros((0,), np.int32), np.zeros((0,), np.int32)])
    for kwargs in (dict(size=5), dict(size=2, fill_value=-7)):
        check_jax(jnp.unique, "unique", x, return_index=True, return_inverse=True, return_counts=True, **kwargs)
    check_jax(jnp.unique, "unique", FLOATS, return_index=True, return_counts=True, size=6)


def test_unique_array_api_forms():
    x = np.array([2.0, NAN, 1.0, NAN, 2.0], np.float32)  # NaNs are distinct here
    values, indices, inverse, counts = jnp.unique_all(x)
    assert_close(values, np.array([1.0, 2.0, NAN, NAN], np.float32))
    assert_close(indices, np.array([2, 0, 1, 3]))
    assert_close(inverse, np.array([1, 2, 0, 3, 1]))
    assert_close(counts, np.array([1, 2, 1, 1]))
    values, indices, inverse, counts = np.unique(INTS, return_index=True, return_inverse=True,
                                                 return_counts=True)  # NumPy's unique_all need not sort
    assert_close(tuple(jnp.unique_all(INTS)), (values, indices, inverse.reshape(INTS.shape), counts))
    assert_close(tuple(jnp.unique_counts(INTS)), (values, counts))
    assert_close(tuple(jnp.unique_inverse(INTS)), (values, inverse.reshape(INTS.shape)))
    assert_close(jnp.unique_values(INTS), values)
    assert jnp.unique_counts(INTS).counts.shape == (7,)
    out = jaxc.jit(lambda x: jnp.unique_all(x, size=6))(x)
    assert_close(out.values, np.array([1.0, 2.0, NAN, NAN, 1.0, 1.0], np.float32))
    assert_close(out.counts, np.array([1, 2, 1, 1, 0, 0]))
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        check_jax(getattr(jnp, name), name, x, size=6)


def test_unique_vmap_and_grad():
    rows = np.array([[3, 1, 1, 2], [5, 5, 5, 5], [0, 1, 2, 3]], np.int32)

    def f(r):
        return jnp.unique(r, return_counts=True, size=3)
    batched = jaxc.vmap(f)(rows)
    assert_close(batched, [np.stack([f(r)[i] for r in rows]) for i in range(2)])
    with jaxc.enable_x64():
        a = np.array([[0.5, -1.0, 2.0], [0.25, 3.0, -2.0]])
        check_grads(lambda a: jnp.unique(a, size=6, fill_value=0.0), (a,), order=1, modes=("fwd", "rev"))


def test_unique_errors():
    x = np.array([3, 1, 1], np.int32)
    with pytest.raises(core.ConcretizationTypeError, match="size="):
        jaxc.jit(jnp.unique)(x)
    with pytest.raises(core.ConcretizationTypeError, match="size="):
        jaxc.vmap(jnp.unique_values)(INTS)
    with pytest.raises(ValueError, match="fill_value must be specified"):
        jnp.unique(np.zeros((0,), np.int32), size=3)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda x, s: jnp.unique(x, size=s))(x, 2)
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.unique(INTS, axis=2)


# ---------------------------------------------------------------------------
# union1d, intersect1d, setdiff1d, setxor1d
# ---------------------------------------------------------------------------

PAIRS = [
    (np.array([3, 1, 1, 2, 5], np.int32), np.array([[1, 5], [5, 7]], np.int32)),
    (np.array([2.5, NAN, -1.0, 2.5], np.float32), np.array([2.5, 0.0, NAN], np.float32)),
    (np.array([1, 2], np.int32), np.array([0.5, 2.0], np.float32)),
    (np.zeros((0,), np.float32), np.array([1.0, 3.0], np.float32)),
    (np.array([4], np.int32), np.array([4], np.int32)),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=["ints", "nan", "mixed", "empty", "one"])
def test_set_ops_match_numpy(a, b):
    dtype = np.result_type(a, b) if a.dtype != b.dtype else a.dtype
    dtype = np.float32 if np.dtype(dtype).kind == "f" else dtype
    for name in ("union1d", "setxor1d", "intersect1d"):
        ours = getattr(jnp, name)(a, b)
        assert_close(ours, getattr(np, name)(a, b).astype(dtype), what=name)
        assert ours.dtype == dtype, name
    diff = jnp.setdiff1d(a, b)
    assert_close(diff, np.setdiff1d(a, b).astype(a.dtype))
    assert diff.dtype == a.dtype  # ar1's dtype, as JAX
    ours = jnp.intersect1d(a, b, return_indices=True)
    assert_close(ours, [r.astype(d) for r, d in zip(np.intersect1d(a, b, return_indices=True),
                                                    (dtype, np.int32, np.int32))])
    for name in ("union1d", "setxor1d", "intersect1d", "setdiff1d"):
        check_jax(getattr(jnp, name), name, a, b)


def test_set_ops_assume_unique():
    a, b = np.array([5, 3, 1, 7], np.int32), np.array([3, 2, 7], np.int32)
    assert_close(jnp.setdiff1d(a, b, assume_unique=True), np.array([5, 1]))  # a's order kept
    assert_close(jnp.setxor1d(a, b, assume_unique=True), np.setxor1d(a, b, assume_unique=True))
    assert_close(jnp.intersect1d(a, b, assume_unique=True, return_indices=True),
                 np.intersect1d(a, b, assume_unique=True, return_indices=True))


def test_set_ops_size_under_jit_and_vmap():
    a = np.array([3, 1, 1, 2, 5], np.int32)
    b = np.array([1, 5, 5, 7], np.int32)
    cases = [  # JAX's padding: the smallest result (0 when none) or fill_value; setdiff1d pads 0
        (lambda a, b: jnp.union1d(a, b, size=7), [1, 2, 3, 5, 7, 1, 1]),
        (lambda a, b: jnp.union1d(a, b, size=3), [1, 2, 3]),
        (lambda a, b: jnp.setxor1d(a, b, size=5), [2, 3, 7, 2, 2]),
        (lambda a, b: jnp.setxor1d(a, a, size=2), [0, 0]),
        (lambda a, b: jnp.setdiff1d(a, b, size=3), [2, 3, 0]),
        (lambda a, b: jnp.setdiff1d(a, b, size=3, fill_value=9), [2, 3, 9]),
        (lambda a, b: jnp.intersect1d(a, b, size=3), [1, 5, 1]),
        (lambda a, b: jnp.intersect1d(a, b, size=3, fill_value=-1), [1, 5, -1]),
    ]
    for fn, expected in cases:
        for f in (fn, jaxc.jit(fn)):
            assert_close(f(a, b), np.array(expected, np.int32))
    # Indices are padded with len(ar1), len(ar2).
    out = jaxc.jit(lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=3))(a, b)
    assert_close(out, [np.array([1, 5, 1]), np.array([1, 4, 5]), np.array([0, 1, 4])])
    rows = np.array([[3, 1, 1, 2], [5, 5, 5, 5], [0, 1, 2, 3]], np.int32)
    for name in ("union1d", "setxor1d", "setdiff1d", "intersect1d"):
        def f(r, name=name):
            return getattr(jnp, name)(r, b, size=3)
        assert_close(jaxc.vmap(f)(rows), np.stack([np.asarray(f(r)) for r in rows]), what=name)
        check_jax(getattr(jnp, name), name, a, b, size=3)
        check_jax(getattr(jnp, name), name, a, b, size=7, fill_value=-2)
    check_jax(jnp.intersect1d, "intersect1d", a, b, return_indices=True, size=4)
    empty, ones = np.zeros((0,), np.float32), np.ones((3,), np.float32)
    assert_close(jnp.intersect1d(empty, ones, return_indices=True, size=2),
                 [np.zeros(2, np.float32), np.array([0, 0]), np.array([3, 3])])
    assert_close(jnp.setdiff1d(ones, empty, size=2), np.array([1.0, 0.0], np.float32))
    assert_close(jnp.setxor1d(empty, empty, size=2), np.zeros(2, np.float32))
    assert jnp.union1d(a, b, size=0).shape == (0,)
    with pytest.raises(ValueError, match="fill_value must be specified"):
        jnp.union1d(empty, empty, size=2)


def test_set_ops_errors():
    a, b = np.array([1, 2], np.int32), np.array([2], np.int32)
    for name in ("union1d", "setxor1d", "setdiff1d", "intersect1d"):
        with pytest.raises(core.ConcretizationTypeError, match="size="):
            jaxc.jit(getattr(jnp, name))(a, b)
    with pytest.raises(ValueError, match="size must be non-negative"):
        jnp.union1d(a, b, size=-1)
