"""jaxc.sort on the CPU against NumPy: 1-D and 2-D along each dimension,
floats in total order (-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN),
signed, unsigned and boolean keys, stability with a payload, and two keys;
line lengths with odd and even merge-pass counts, and long lines."""
import numpy as np
import pytest

from jaxc.runtime import compile_module


def _module(types: list[str], dim: int, num_keys: int = 1, stable: bool = True) -> str:
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%r{i}" for i in range(len(types)))
    args = ", ".join(f"%a{i}" for i in range(len(types)))
    all_types = ", ".join(types)
    flag = " stable" if stable else ""
    return (f"func.func @f({params}) -> ({all_types}) {{\n"
            f"  {names} = jaxc.sort({args}), dim = {dim}, num_keys = {num_keys}{flag} : {all_types}\n"
            f"  return {names} : {all_types}\n}}\n")


def _sort(arrays, types, dim, num_keys=1):
    return compile_module(_module(types, dim, num_keys))["f"](*arrays)


def test_f32_1d_random():
    x = np.random.default_rng(0).standard_normal(17).astype(np.float32)
    (r,) = _sort([x], ["tensor<17xf32>"], 0)
    np.testing.assert_array_equal(r, np.sort(x))


def test_f32_order_matches_lax_sort():
    """As jax.lax.sort: -0.0 and 0.0 tie (stable: input order kept), every NaN
    ties with every other NaN after +inf; the values themselves are kept."""
    nan = np.float32(np.nan)
    neg_nan = -np.abs(nan)
    x = np.array([1.0, nan, -0.0, np.inf, 0.0, -np.inf, neg_nan, -2.5, 0.0, -0.0], np.float32)
    (r,) = _sort([x], ["tensor<10xf32>"], 0)
    # -inf, -2.5, the zeros in input order (-0, 0, 0, -0), 1, inf, the NaNs in input order.
    order = [5, 7, 2, 4, 8, 9, 0, 3, 1, 6]
    np.testing.assert_array_equal(r.view(np.int32), x[order].view(np.int32))


@pytest.mark.parametrize("dim", [0, 1])
def test_f32_2d_each_dim(dim):
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    x[1, 2] = np.nan
    x[3, 0] = -np.inf
    (r,) = _sort([x], ["tensor<4x5xf32>"], dim)
    np.testing.assert_array_equal(r, np.sort(x, axis=dim))


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_i32_3d_each_dim(dim):
    x = np.random.default_rng(2).integers(-50, 50, size=(3, 4, 2), dtype=np.int32)
    (r,) = _sort([x], ["tensor<3x4x2xi32>"], dim)
    np.testing.assert_array_equal(r, np.sort(x, axis=dim))


def test_i32_extremes():
    x = np.array([5, -2**31, 2**31 - 1, 0, -1, -2**31], np.int32)
    (r,) = _sort([x], ["tensor<6xi32>"], 0)
    np.testing.assert_array_equal(r, np.sort(x))


def test_unsigned():
    x = np.array([3, 0xFFFFFFFF, 0, 0x80000000, 7, 0x7FFFFFFF], np.uint32)
    (r,) = _sort([x], ["tensor<6xui32>"], 0)
    np.testing.assert_array_equal(r.view(np.uint32), np.sort(x))


def test_unsigned_8bit_2d():
    x = np.random.default_rng(3).integers(0, 256, size=(3, 6), dtype=np.uint8)
    (r,) = _sort([x], ["tensor<3x6xui8>"], 1)
    np.testing.assert_array_equal(r.view(np.uint8), np.sort(x, axis=1))


def test_bool():
    x = np.array([True, False, True, True, False, False, True], np.bool_)
    (r,) = _sort([x], ["tensor<7xi1>"], 0)
    np.testing.assert_array_equal(np.asarray(r).astype(np.bool_), np.sort(x))


def test_f64_and_f16():
    x = np.random.default_rng(4).standard_normal(9)
    (r,) = _sort([x], ["tensor<9xf64>"], 0)
    np.testing.assert_array_equal(r, np.sort(x))
    h = x.astype(np.float16)
    (r,) = _sort([h], ["tensor<9xf16>"], 0)
    np.testing.assert_array_equal(r, np.sort(h))


def test_stable_with_payload():
    keys = np.array([3, 1, 2, 1, 3, 0, 2, 1, 3, 0], np.int32)
    payload = np.arange(10, dtype=np.int32)
    k, p = _sort([keys, payload], ["tensor<10xi32>", "tensor<10xi32>"], 0, 1)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(p, order)


def test_stable_float_keys_payload_2d_dim0():
    keys = np.array([[1.0, 2.0], [0.5, 2.0], [1.0, 2.0], [0.5, -1.0]], np.float32)
    payload = np.broadcast_to(np.arange(4, dtype=np.float32)[:, None], (4, 2)).copy()
    k, p = _sort([keys, payload], ["tensor<4x2xf32>", "tensor<4x2xf32>"], 0, 1)
    order = np.argsort(keys, axis=0, kind="stable")
    np.testing.assert_array_equal(k, np.take_along_axis(keys, order, 0))
    np.testing.assert_array_equal(p, order.astype(np.float32))


def test_two_keys():
    a = np.array([2, 1, 2, 1, 0, 2, 1], np.int32)
    b = np.array([0.5, 3.0, -1.0, 3.0, 9.0, 0.5, -2.0], np.float32)
    payload = np.arange(7, dtype=np.int32)
    ra, rb, rp = _sort([a, b, payload], ["tensor<7xi32>", "tensor<7xf32>", "tensor<7xi32>"], 0, 2)
    order = np.lexsort((b, a))  # last key is primary; lexsort is stable
    np.testing.assert_array_equal(ra, a[order])
    np.testing.assert_array_equal(rb, b[order])
    np.testing.assert_array_equal(rp, order)


def test_single_element_and_unstable_flag():
    x = np.array([4.0], np.float32)
    (r,) = _sort([x], ["tensor<1xf32>"], 0)
    np.testing.assert_array_equal(r, x)
    y = np.array([3, 1, 2], np.int64)
    (r,) = compile_module(_module(["tensor<3xi64>"], 0, stable=False))["f"](y)
    np.testing.assert_array_equal(r, np.sort(y))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33])
def test_stable_merge_for_every_pass_count(n):
    """Lengths around powers of two: ceil(log2 n) merge passes, odd or even
    (an odd count ends with a copy pass), the last run partial or empty."""
    keys = np.random.default_rng(n).integers(0, 3, n).astype(np.int32)
    payload = np.arange(n, dtype=np.int32)
    k, p = _sort([keys, payload], [f"tensor<{n}xi32>", f"tensor<{n}xi32>"], 0, 1)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(p, order)


@pytest.mark.parametrize("dim", [0, 1])
def test_two_keys_and_payload_along_each_dim_of_2d(dim):
    """Each line is merged through scratch tensors; the other lines (already
    sorted or not yet) must come through untouched, for every operand."""
    rng = np.random.default_rng(5)
    shape = (37, 6) if dim == 0 else (6, 37)  # 37: 6 passes; 6: 3 passes, then a copy
    a = rng.integers(0, 3, shape).astype(np.uint32)
    b = rng.integers(0, 3, shape).astype(np.int32)
    c = rng.standard_normal(shape).astype(np.float32)
    t = [f"tensor<{shape[0]}x{shape[1]}x{e}>" for e in ("ui32", "i32", "f32")]
    ra, rb, rc = _sort([a, b, c], t, dim, 2)
    for line in range(shape[1 - dim]):
        take = (slice(None), line) if dim == 0 else (line, slice(None))
        order = np.lexsort((b[take], a[take]))
        np.testing.assert_array_equal(ra.view(np.uint32)[take], a[take][order])
        np.testing.assert_array_equal(rb[take], b[take][order])
        np.testing.assert_array_equal(rc[take], c[take][order])


def test_long_line_with_many_ties():
    """100 000 keys with 100 distinct values (n log n: the insertion sort this
    replaced took 12 s here), stable against NumPy's stable argsort."""
    n = 100_000
    keys = np.random.default_rng(6).integers(0, 100, n).astype(np.float32)
    payload = np.arange(n, dtype=np.int32)
    k, p = _sort([keys, payload], [f"tensor<{n}xf32>", f"tensor<{n}xi32>"], 0, 1)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(p, order)
