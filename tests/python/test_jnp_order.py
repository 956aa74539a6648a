"""The jnp functions of numpy/_order.py (lexsort, partition, quantiles,
index conversion, bits, value-dependent selections, insert/delete,
place/put) against NumPy (eager and under jit), JAX's documented layouts
and padding, JAX itself where installed, vmap, float64 finite-difference
gradients, and the errors JAX raises."""
import warnings

import numpy as np
import pytest
from jnp_check import assert_close, check, check_jax, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import core
from jaxc.test_util import check_grads

NAN = np.nan
I = rand((4, 6), np.int32, -5, 5)
F = rand((3, 5))
FN = F.copy()
FN[0, 1] = NAN
FN[2, :] = NAN


# ---------------------------------------------------------------------------
# lexsort, partition, argpartition
# ---------------------------------------------------------------------------

def test_lexsort():
    check(jnp.lexsort, np.lexsort, (I[0], I[1]), jit=False, dtype=np.int32)
    check(jnp.lexsort, np.lexsort, I, dtype=np.int32)
    check(jnp.lexsort, np.lexsort, I[:2], axis=0, dtype=np.int32)
    check(jnp.lexsort, None, [np.array([1.0, NAN, 0.0]), np.array([0, 0, 0])], jit=False,
          expected=np.array([2, 0, 1]))  # NaN sorts last
    assert int(jnp.lexsort((np.array(3),))) == 0
    check_jax(jnp.lexsort, "lexsort", I)
    with pytest.raises(TypeError, match="len > 0"):
        jnp.lexsort(())
    with pytest.raises(ValueError, match="same shape"):
        jnp.lexsort((I[0], I[0, :3]))


@pytest.mark.parametrize("x, kth, axis", [(I, 2, -1), (I, -1, 0),
                                          (np.array([3.0, NAN, 1, 0, 2, 1], np.float32), 2, -1),
                                          (np.array([7], np.int32), 0, 0)])
def test_partition(x, kth, axis):
    n = x.shape[axis]
    k = kth % n
    ordered = np.sort(x, axis=axis)
    # JAX's layout: the k+1 smallest ascending, then the rest descending.
    expected = np.concatenate([np.take(ordered, np.arange(k + 1), axis),
                               np.flip(np.take(ordered, np.arange(k + 1, n), axis), axis)], axis)
    part = check(jnp.partition, None, x, kth=kth, axis=axis, expected=expected, dtype=x.dtype)
    assert_close(np.take(np.asarray(part), [k], axis), np.take(np.partition(x, kth, axis), [k], axis))
    order = np.argsort(x, axis=axis, kind="stable")
    taken = np.take(order, np.arange(k + 1), axis)
    args = check(jnp.argpartition, None, x, kth=kth, axis=axis, dtype=np.int32,
                 expected=np.concatenate([taken, np.sort(np.take(order, np.arange(k + 1, n), axis), axis)], axis))
    picked = np.take_along_axis(x, np.asarray(args), axis)
    assert_close(np.take(picked, np.arange(k + 1), axis), np.take(ordered, np.arange(k + 1), axis))
    assert_close(np.sort(picked, axis), ordered)  # a permutation
    check_jax(jnp.partition, "partition", x, kth, axis)
    check_jax(jnp.argpartition, "argpartition", x, kth, axis)


def test_partition_errors_and_vmap():
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.partition(I, 6)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(jnp.partition)(I, 1)
    assert_close(jaxc.vmap(lambda r: jnp.argpartition(r, 1))(I), np.stack([jnp.argpartition(r, 1) for r in I]))


# ---------------------------------------------------------------------------
# Quantiles
# ---------------------------------------------------------------------------

Q = np.array([0.0, 0.3, 0.55, 1.0], np.float32)  # no position is exactly halfway (NumPy's 'nearest' differs there)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_methods(method):
    check(jnp.quantile, np.quantile, F, Q, axis=1, method=method, dtype=np.float32)
    check(jnp.quantile, np.quantile, F, np.float32(0.3), method=method, keepdims=True, dtype=np.float32)
    check(jnp.quantile, np.quantile, FN, Q, axis=1, method=method, dtype=np.float32)  # NaN rows give NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on the all-NaN row
        check(jnp.nanquantile, np.nanquantile, FN, Q, axis=(0, 1), method=method, keepdims=True)
        check(jnp.nanquantile, np.nanquantile, FN, np.float32(0.7), axis=1, method=method)
    check_jax(jnp.quantile, "quantile", F, Q, axis=0, method=method)
    check_jax(jnp.nanquantile, "nanquantile", FN, Q, axis=1, method=method, keepdims=True)


def test_percentile_median_and_dtypes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(jnp.percentile, np.percentile, I, np.float32(40), axis=0, dtype=np.float32)  # ints -> float32
        check(jnp.nanpercentile, np.nanpercentile, FN, np.array([10.0, 90.0], np.float32), axis=1, dtype=np.float32)
        check(jnp.nanmedian, np.nanmedian, FN, axis=1, dtype=np.float32)
        check(jnp.nanmedian, np.nanmedian, FN, dtype=np.float32)
        check(jnp.nanmedian, np.nanmedian, FN, axis=0, keepdims=True, dtype=np.float32)
    check(jnp.quantile, np.quantile, np.array([2.0], np.float32), np.array([0.0, 1.0], np.float32))
    check_jax(jnp.percentile, "percentile", I, 40, axis=0)
    check_jax(jnp.nanmedian, "nanmedian", FN, axis=1)


@pytest.mark.usefixtures("x64")
def test_quantile_grads():
    a = np.random.default_rng(1).normal(size=(3, 4))
    for method in ("linear", "lower", "midpoint", "nearest"):
        check_grads(lambda a: jnp.quantile(a, np.array([0.3, 0.75]), axis=1, method=method), (a,), order=1,
                    modes=("fwd", "rev"))
    check_grads(lambda a: jnp.nanpercentile(a, 40.0, axis=(0, 1)), (a,), order=2, modes=("fwd", "rev"))
    check_grads(jaxc.jit(lambda a: jnp.nanmedian(a, axis=0)), (a,), order=1, modes=("rev",))


def test_quantile_vmap_and_errors():
    out = jaxc.vmap(lambda r: jnp.quantile(r, Q))(F)
    assert_close(out, np.stack([np.quantile(r, Q) for r in F]), rtol=1e-5)
    with pytest.raises(ValueError, match="method can only be"):
        jnp.quantile(F, 0.5, method="bogus")
    with pytest.raises(ValueError, match="overwrite_input"):
        jnp.quantile(F, 0.5, overwrite_input=True)
    with pytest.raises(ValueError, match="rank <= 1"):
        jnp.quantile(F, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.quantile(F, 0.5, axis=(0, 0))
    with pytest.raises(NotImplementedError, match="weights"):
        jnp.quantile(F, 0.5, method="inverted_cdf", weights=F)


# ---------------------------------------------------------------------------
# ravel_multi_index, unravel_index
# ---------------------------------------------------------------------------

def test_ravel_multi_index():
    rows, cols = np.array([0, 4, 2], np.int32), np.array([5, 0, 3], np.int32)
    for order in ("C", "F"):
        check(jnp.ravel_multi_index, np.ravel_multi_index, (rows, cols), (5, 6), order=order, jit=False,
              dtype=np.int32)
    bad = (np.array([-1, 7], np.int32), np.array([6, 2], np.int32))
    for mode in ("wrap", "clip"):
        f = jaxc.jit(lambda r, c, mode=mode: jnp.ravel_multi_index((r, c), (5, 6), mode=mode))
        assert_close(f(*bad), np.ravel_multi_index(bad, (5, 6), mode=mode))
    check_jax(jnp.ravel_multi_index, "ravel_multi_index", bad, (5, 6), mode="wrap")
    assert jnp.ravel_multi_index((np.array([1], np.int8),), (100,)).dtype == np.int8
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.ravel_multi_index(bad, (5, 6))
    with pytest.raises(core.ConcretizationTypeError, match="mode='raise'"):
        jaxc.jit(lambda r, c: jnp.ravel_multi_index((r, c), (5, 6)))(rows, cols)
    with pytest.raises(ValueError, match="not an integer type"):  # JAX: the float result dtype first
        jnp.ravel_multi_index((np.array([1.0]),), (3,))
    with pytest.raises(TypeError, match="only int indices"):
        jnp.ravel_multi_index((np.array([1.0]),), (3,), dtype=np.int32)
    with pytest.raises(ValueError, match="not large enough"):
        jnp.ravel_multi_index((np.array([1], np.int8),), (1000,))
    with pytest.raises(ValueError, match="invalid mode"):
        jnp.ravel_multi_index((rows,), (5,), mode="bogus")


def test_unravel_index():
    flat = np.array([0, 7, 29, 13], np.int32)
    check(jnp.unravel_index, np.unravel_index, flat, (5, 6), dtype=np.int32)
    check(jnp.unravel_index, np.unravel_index, np.int32(4), 6)
    # JAX clips out-of-range indices: -1 is the last element, past the ends the first/last.
    out = jaxc.jit(lambda i: jnp.unravel_index(i, (5, 6)))(np.array([-1, -31, 30, 100], np.int32))
    assert_close(out, (np.array([4, 0, 4, 4]), np.array([5, 0, 5, 5])))
    check_jax(jnp.unravel_index, "unravel_index", np.array([-1, -31, 30, 100, 7], np.int32), (5, 6))
    with pytest.raises(ValueError, match="scalar or 1D"):
        jnp.unravel_index(flat, [(5, 6)])


# ---------------------------------------------------------------------------
# packbits, unpackbits
# ---------------------------------------------------------------------------

def test_packbits_and_unpackbits():
    u8 = rand((2, 3), np.uint8, 0, 256)
    bits = I > 0
    check(jnp.packbits, np.packbits, bits, dtype=np.uint8)
    check(jnp.packbits, np.packbits, I, axis=1, bitorder="little", dtype=np.uint8)
    check(jnp.packbits, np.packbits, bits, axis=0, dtype=np.uint8)
    check(jnp.packbits, np.packbits, np.zeros((0,), np.bool_), dtype=np.uint8)
    check(jnp.unpackbits, np.unpackbits, u8, dtype=np.uint8)
    check(jnp.unpackbits, np.unpackbits, u8, axis=1, count=13, dtype=np.uint8)
    check(jnp.unpackbits, np.unpackbits, u8, axis=0, count=-3, bitorder="little", dtype=np.uint8)
    check_jax(jnp.packbits, "packbits", I, axis=1)
    check_jax(jnp.unpackbits, "unpackbits", u8, count=5)
    with pytest.raises(TypeError, match="integer or boolean"):
        jnp.packbits(F)
    with pytest.raises(TypeError, match="unsigned byte"):
        jnp.unpackbits(I)
    with pytest.raises(ValueError, match="'little' or 'big'"):
        jnp.packbits(I, bitorder="middle")


# ---------------------------------------------------------------------------
# trim_zeros, compress, extract
# ---------------------------------------------------------------------------

def test_trim_zeros():
    x = np.array([0, 0, 1, 0, 2, 0], np.int32)
    for trim in ("fb", "f", "b", "B"):
        check(jnp.trim_zeros, np.trim_zeros, x, trim=trim, jit=False, dtype=np.int32)
    m = np.array([[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 2, 0]], np.float32)
    for axis in (None, 0, 1, (0, 1)):
        check(jnp.trim_zeros, np.trim_zeros, m, axis=axis, jit=False)
    check(jnp.trim_zeros, np.trim_zeros, np.zeros(3, np.float32), jit=False)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(jnp.trim_zeros)(x)


def test_compress_and_extract():
    cond = np.array([True, False, True])
    check(jnp.compress, np.compress, cond, F, axis=0, jit=False)
    check(jnp.compress, np.compress, np.array([0, 1, 0, 1, 1]), F, axis=1, jit=False)
    check(jnp.compress, np.compress, np.array([True, False, True] + [False] * 20), F, jit=False)
    check(jnp.extract, np.extract, F > 0, F, jit=False)
    # size= pads with fill_value (default 0) and works under jit and vmap.
    check(jnp.compress, None, cond, F, axis=0, size=3, fill_value=7.0,
          expected=np.concatenate([F[[0, 2]], np.full((1, 5), 7.0, np.float32)]))
    check(jnp.extract, None, F > 0, F, size=F.size,
          expected=np.concatenate([F[F > 0], np.zeros(F.size - (F > 0).sum(), np.float32)]))
    out = jaxc.vmap(lambda r: jnp.extract(r > 0, r, size=2, fill_value=-1))(I)
    assert_close(out, np.stack([np.concatenate([r[r > 0], [-1, -1]])[:2] for r in I]))
    check_jax(jnp.compress, "compress", cond, F, axis=0, size=3, fill_value=7.0)
    with pytest.raises(ValueError, match="1D"):
        jnp.compress(F > 0, F)
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.compress(np.array([False, False, False, True]), F, axis=0)
    with pytest.raises(ValueError, match="size must be"):
        jnp.compress(cond, F, axis=0, size=4)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda c: jnp.compress(c, F, axis=0))(cond)


# ---------------------------------------------------------------------------
# delete, insert, place, put
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("obj, axis", [(3, None), (-1, 0), (slice(1, 4), None), (np.array([0, 2, 2]), 1),
                                       (np.array([True, False, True, False]), 0), (slice(None, None, 2), 1)])
def test_delete(obj, axis):
    check(jnp.delete, np.delete, I, obj, axis=axis, jit=False, dtype=np.int32)


def test_delete_traced_and_errors():
    f = jaxc.jit(lambda i: jnp.delete(I, i, axis=1, assume_unique_indices=True))
    assert_close(f(np.array([4, 0], np.int32)), np.delete(I, [4, 0], axis=1))
    check_jax(jnp.delete, "delete", I, np.array([0, 2]), axis=1)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda i: jnp.delete(I, i))(np.array([1], np.int32))
    with pytest.raises(ValueError, match="boolean indices"):
        jnp.delete(I, np.array([True, False]), axis=0)
    with pytest.raises(ValueError, match="integer or bool"):
        jnp.delete(I, np.array([1.0]))


@pytest.mark.parametrize("obj, values, axis", [
    (np.array([0, 3, 3, -1]), np.array([9, 8, 7, 6]), None), (2, np.arange(6), 0), (2, 9, 1),
    (slice(0, 6, 2), 5, 1), (np.array([1]), np.array([[7], [8], [9], [6]]), 1),
    (6, np.array([1.5, 2.5]), None)])
def test_insert(obj, values, axis):
    check(jnp.insert, np.insert, I, obj, values, axis=axis, jit=False, dtype=np.int32)


def test_insert_traced_and_errors():
    f = jaxc.jit(lambda i, v: jnp.insert(F, i, v, axis=1))
    assert_close(f(np.array([0, 5], np.int32), np.float32(2.0)), np.insert(F, [0, 5], 2.0, axis=1))
    assert_close(jaxc.vmap(lambda r: jnp.insert(r, np.array([1]), r[:1]))(I),
                 np.stack([np.insert(r, [1], r[:1]) for r in I]))
    check_jax(jnp.insert, "insert", I, np.array([0, 3, 3, -1]), np.array([9, 8, 7, 6]))
    with pytest.raises(ValueError, match="integer typed"):
        jnp.insert(I, np.array([1.0]), 1)
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.insert(I, np.array([[1]]), 1)


def test_place_and_put():
    def np_place(arr, mask, vals):
        out = arr.copy()
        np.place(out, mask, vals)
        return out

    def np_put(arr, ind, v, mode="raise"):
        out = arr.copy()
        np.put(out, ind, v, mode=mode)
        return out
    check(jnp.place, lambda a, m, v, inplace: np_place(a, m, v), I, I > 0, np.array([100, 200], np.int32),
          inplace=False, dtype=np.int32)
    check(jnp.put, lambda a, i, v, inplace: np_put(a, i, v), I, np.array([0, 5, 23]),
          np.array([100, 200], np.int32), inplace=False, dtype=np.int32)
    for mode in ("clip", "wrap"):
        check(jnp.put, lambda a, i, v, mode, inplace: np_put(a, i, v, mode), I, np.array([0, 30, -1, 100]),
              np.array([100, 200, 300], np.int32), mode=mode, inplace=False)
    # mode=None goes through unravel_index, which clips (JAX).
    out = jnp.put(I, np.array([-1, 100]), np.array([7, 8]), inplace=False)
    assert_close(out, np_put(I, [23], [8]))
    check_jax(jnp.put, "put", I, np.array([0, 30, -1, 100]), np.array([1, 2, 3]), inplace=False)
    check_jax(jnp.place, "place", I, I > 0, np.array([100, 200]), inplace=False)
    with pytest.raises(ValueError, match="immutable"):
        jnp.put(I, np.array([0]), 1)
    with pytest.raises(ValueError, match="immutable"):
        jnp.place(I, I > 0, 1)
    with pytest.raises(NotImplementedError, match="'raise' mode"):
        jnp.put(I, np.array([0]), 1, mode="raise", inplace=False)
    with pytest.raises(ValueError, match="same size"):
        jnp.place(I, np.array([True]), 1, inplace=False)
    with pytest.raises(ValueError, match="empty array"):
        jnp.place(I, I > 0, np.zeros((0,), np.int32), inplace=False)
