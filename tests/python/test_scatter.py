"""jaxc.scatter on the CPU against NumPy: set, add with duplicate indices
(np.add.at), max, 2-D row scatter, point scatter, unsigned indices, an
implicit index vector, and out-of-bounds windows, which XLA skips entirely."""
import numpy as np

from jaxc.runtime import compile_module


def _module(name, operand, indices, updates, dims, body, elem):
    window, inserted, to_operand, ivd = dims
    s = f"tensor<{elem}>"
    return (f"func.func @{name}(%x: {operand}, %i: {indices}, %u: {updates}) -> {operand} {{\n"
            f"  %r = jaxc.scatter %x[%i], %u update_window_dims = {window}, "
            f"inserted_window_dims = {inserted}, scatter_dims_to_operand_dims = {to_operand}, "
            f"index_vector_dim = {ivd} : ({operand}, {indices}, {updates}) -> {operand} {{\n"
            f"  ^bb0(%old: {s}, %new: {s}):\n{body}"
            f"  }}\n  return %r : {operand}\n}}\n")


SET = "    jaxc.yield %new : {s}\n"
ADD = "    %s = jaxc.add %old, %new : {s}\n    jaxc.yield %s : {s}\n"
MAX = "    %s = jaxc.max %old, %new : {s}\n    jaxc.yield %s : {s}\n"
OR = "    %s = jaxc.or %old, %new : {s}\n    jaxc.yield %s : {s}\n"


def _compile(operand, indices, updates, dims, body, elem):
    text = _module("f", operand, indices, updates, dims, body.format(s=f"tensor<{elem}>"), elem)
    return compile_module(text)["f"]


POINTS_1D = ("[]", "[0]", "[0]", 1)  # x[i[n, 0]] op= u[n]
ROWS_2D = ("[1]", "[0]", "[0]", 1)  # x[i[n, 0], :] op= u[n, :]


def test_set_1d():
    f = _compile("tensor<6xf32>", "tensor<3x1xi32>", "tensor<3xf32>", POINTS_1D, SET, "f32")
    x = np.arange(6, dtype=np.float32)
    idx = np.array([[4], [0], [2]], np.int32)
    u = np.array([10, 20, 30], np.float32)
    (r,) = f(x, idx, u)
    expected = x.copy()
    expected[idx[:, 0]] = u
    np.testing.assert_array_equal(r, expected)
    np.testing.assert_array_equal(x, np.arange(6, dtype=np.float32))  # input untouched


def test_set_duplicates_last_wins():
    f = _compile("tensor<4xi32>", "tensor<3x1xi32>", "tensor<3xi32>", POINTS_1D, SET, "i32")
    (r,) = f(np.zeros(4, np.int32), np.array([[1], [1], [1]], np.int32), np.array([5, 6, 7], np.int32))
    np.testing.assert_array_equal(r, [0, 7, 0, 0])


def test_add_with_duplicates():
    f = _compile("tensor<5xf32>", "tensor<7x1xi32>", "tensor<7xf32>", POINTS_1D, ADD, "f32")
    x = np.linspace(-1, 1, 5).astype(np.float32)
    idx = np.array([[0], [3], [0], [4], [3], [0], [1]], np.int32)
    u = np.arange(1, 8, dtype=np.float32)
    (r,) = f(x, idx, u)
    expected = x.copy()
    np.add.at(expected, idx[:, 0], u)
    np.testing.assert_allclose(r, expected, rtol=1e-6)


def test_max_i32():
    f = _compile("tensor<4xi32>", "tensor<5x1xi32>", "tensor<5xi32>", POINTS_1D, MAX, "i32")
    x = np.array([0, 5, -3, 9], np.int32)
    idx = np.array([[1], [2], [1], [3], [2]], np.int32)
    u = np.array([7, -10, 2, 4, -1], np.int32)
    (r,) = f(x, idx, u)
    expected = x.copy()
    np.maximum.at(expected, idx[:, 0], u)
    np.testing.assert_array_equal(r, expected)


def test_add_rows_2d():
    f = _compile("tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>", ROWS_2D, ADD, "f32")
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    idx = np.array([[4], [0], [4], [2]], np.int32)
    u = np.arange(12, dtype=np.float32).reshape(4, 3) * 10
    (r,) = f(x, idx, u)
    expected = x.copy()
    np.add.at(expected, idx[:, 0], u)
    np.testing.assert_array_equal(r, expected)


def test_point_scatter_2d_unsigned_indices():
    dims = ("[]", "[0, 1]", "[0, 1]", 1)
    f = _compile("tensor<3x4xf32>", "tensor<4x2xui32>", "tensor<4xf32>", dims, ADD, "f32")
    x = np.zeros((3, 4), np.float32)
    idx = np.array([[1, 2], [0, 3], [1, 2], [2, 0]], np.uint32)
    u = np.array([1, 2, 3, 4], np.float32)
    (r,) = f(x, idx, u)
    expected = x.copy()
    np.add.at(expected, (idx[:, 0], idx[:, 1]), u)
    np.testing.assert_array_equal(r, expected)


def test_unsigned_huge_index_is_skipped():
    f = _compile("tensor<4xf32>", "tensor<3x1xui32>", "tensor<3xf32>", POINTS_1D, SET, "f32")
    idx = np.array([[0xFFFFFFFF], [2], [0x80000000]], np.uint32)
    (r,) = f(np.zeros(4, np.float32), idx, np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(r, [0, 0, 2, 0])


def test_out_of_bounds_points_are_skipped():
    f = _compile("tensor<5xf32>", "tensor<5x1xi32>", "tensor<5xf32>", POINTS_1D, ADD, "f32")
    idx = np.array([[-1], [5], [4], [100], [0]], np.int32)
    (r,) = f(np.zeros(5, np.float32), idx, np.array([1, 2, 3, 4, 5], np.float32))
    np.testing.assert_array_equal(r, [5, 0, 0, 0, 3])


def test_out_of_bounds_windows_are_skipped_whole():
    # Windows of 2 columns along dim 1 of a 3x4 operand: starts 0..2 fit, 3 does not.
    dims = ("[1]", "[0]", "[0, 1]", 1)
    f = _compile("tensor<3x4xi32>", "tensor<4x2xi64>", "tensor<4x2xi32>", dims, SET, "i32")
    x = np.zeros((3, 4), np.int32)
    idx = np.array([[0, 2], [1, 3], [2, -1], [1, 0]], np.int64)
    u = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32)
    (r,) = f(x, idx, u)
    expected = x.copy()
    expected[0, 2:4] = [1, 2]
    expected[1, 0:2] = [7, 8]  # [1, 3] and [2, -1] are skipped, not clamped or partial
    np.testing.assert_array_equal(r, expected)


def test_implicit_index_vector_and_batch_2d():
    # indices of shape (2, 3) with index_vector_dim = 2 (implicit size-1 vector).
    dims = ("[]", "[0]", "[0]", 2)
    f = _compile("tensor<6xi64>", "tensor<2x3xi32>", "tensor<2x3xi64>", dims, ADD, "i64")
    idx = np.array([[0, 5, 5], [2, 0, 6]], np.int32)
    u = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    (r,) = f(np.zeros(6, np.int64), idx, u)
    expected = np.zeros(6, np.int64)
    ok = idx < 6
    np.add.at(expected, idx[ok], u[ok])
    np.testing.assert_array_equal(r, expected)


def test_index_vector_dim_first():
    # indices of shape (1, 3): the index vector is dimension 0.
    dims = ("[]", "[0]", "[0]", 0)
    f = _compile("tensor<4xf32>", "tensor<1x3xi32>", "tensor<3xf32>", dims, SET, "f32")
    (r,) = f(np.zeros(4, np.float32), np.array([[3, 1, 0]], np.int32), np.array([7, 8, 9], np.float32))
    np.testing.assert_array_equal(r, [9, 8, 0, 7])


def test_bool_or():
    f = _compile("tensor<5xi1>", "tensor<3x1xi32>", "tensor<3xi1>", POINTS_1D, OR, "i1")
    x = np.array([False, True, False, False, False])
    idx = np.array([[0], [1], [3]], np.int32)
    u = np.array([True, False, False])
    (r,) = f(x, idx, u)
    np.testing.assert_array_equal(np.asarray(r).astype(bool), [True, True, False, False, False])


def test_unsigned_values_max():
    f = _compile("tensor<3xui32>", "tensor<2x1xi32>", "tensor<2xui32>", POINTS_1D, MAX, "ui32")
    x = np.array([1, 2, 0x80000000], np.uint32)
    idx = np.array([[0], [2]], np.int32)
    u = np.array([0xFFFFFFFF, 5], np.uint32)
    (r,) = f(x, idx, u)
    np.testing.assert_array_equal(np.asarray(r).view(np.uint32), [0xFFFFFFFF, 2, 0x80000000])


def test_scatter_inside_while_body():
    # The region of a scatter nested in another region is lowered too.
    text = """
func.func @f(%x: tensor<4xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %c = jaxc.constant dense<0> : tensor<i32>
  %r:4 = jaxc.while (%c, %x, %i, %u : tensor<i32>, tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) cond {
  ^bb0(%n: tensor<i32>, %a: tensor<4xf32>, %j: tensor<2x1xi32>, %v: tensor<2xf32>):
    %three = jaxc.constant dense<3> : tensor<i32>
    %p = jaxc.compare lt, %n, %three : tensor<i32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%n: tensor<i32>, %a: tensor<4xf32>, %j: tensor<2x1xi32>, %v: tensor<2xf32>):
    %one = jaxc.constant dense<1> : tensor<i32>
    %m = jaxc.add %n, %one : tensor<i32>
    %s = jaxc.scatter %a[%j], %v update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32> {
    ^bb1(%old: tensor<f32>, %new: tensor<f32>):
      %t = jaxc.add %old, %new : tensor<f32>
      jaxc.yield %t : tensor<f32>
    }
    jaxc.yield %m, %s, %j, %v : tensor<i32>, tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""
    f = compile_module(text)["f"]
    (r,) = f(np.zeros(4, np.float32), np.array([[1], [1]], np.int32), np.array([1, 2], np.float32))
    np.testing.assert_array_equal(r, [0, 9, 0, 0])


def test_scalar_operand_without_scatter_dims():
    # No index components: every update combines into the single element.
    dims = ("[]", "[]", "[]", 1)
    f = _compile("tensor<f32>", "tensor<3x0xi32>", "tensor<3xf32>", dims, ADD, "f32")
    (r,) = f(np.array(1.0, np.float32), np.zeros((3, 0), np.int32), np.array([1, 2, 4], np.float32))
    assert float(r) == 8.0


def test_f16_add_3d_windows():
    # Scatter 2x2 windows into a 2x4x4 operand at (batch, row, col) starts.
    dims = ("[1, 2]", "[0]", "[0, 1, 2]", 1)
    f = _compile("tensor<2x4x4xf16>", "tensor<3x3xi32>", "tensor<3x2x2xf16>", dims, ADD, "f16")
    x = np.zeros((2, 4, 4), np.float16)
    idx = np.array([[0, 1, 1], [1, 2, 0], [0, 3, 0]], np.int32)  # the last window sticks out
    u = np.arange(12, dtype=np.float16).reshape(3, 2, 2) + 1
    (r,) = f(x, idx, u)
    expected = x.copy()
    expected[0, 1:3, 1:3] += u[0]
    expected[1, 2:4, 0:2] += u[1]
    np.testing.assert_array_equal(r, expected)


def test_window_dims_before_scatter_dims():
    # updates (3, 2): window dim 0 (the columns), scatter dim 1; x[:, i[n]] += u[:, n].
    dims = ("[0]", "[1]", "[1]", 1)
    f = _compile("tensor<3x4xf32>", "tensor<2x1xi32>", "tensor<3x2xf32>", dims, ADD, "f32")
    idx = np.array([[3], [1]], np.int32)
    u = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
    (r,) = f(np.ones((3, 4), np.float32), idx, u)
    expected = np.ones((3, 4), np.float32)
    expected[:, idx[:, 0]] += u
    np.testing.assert_array_equal(r, expected)


# A chain of elementwise ops runs on scalars: old + new * new.
ADD_SQUARE = ("    %q = jaxc.mul %new, %new : {s}\n    %s = jaxc.add %old, %q : {s}\n"
              "    jaxc.yield %s : {s}\n")
# jaxc.select has no scalar rule: the region is lowered as 0-d tensor ops per element.
SELECT_LARGER = ("    %p = jaxc.compare gt, %new, %old : {s}\n"
                 "    %s = jaxc.select %p, %new, %old : tensor<i1>, {s}\n    jaxc.yield %s : {s}\n")


def test_elementwise_chain_on_scalars():
    f = _compile("tensor<3x2xf32>", "tensor<4x1xi32>", "tensor<4x2xf32>", ROWS_2D, ADD_SQUARE, "f32")
    idx = np.array([[2], [0], [2], [7]], np.int32)
    u = np.arange(8, dtype=np.float32).reshape(4, 2) - 3
    (r,) = f(np.ones((3, 2), np.float32), idx, u)
    expected = np.ones((3, 2), np.float32)
    np.add.at(expected, idx[:3, 0], u[:3] ** 2)  # row 7 does not fit
    np.testing.assert_array_equal(r, expected)


def test_region_without_scalar_rules():
    f = _compile("tensor<3x2xf32>", "tensor<4x1xi32>", "tensor<4x2xf32>", ROWS_2D, SELECT_LARGER, "f32")
    idx = np.array([[2], [0], [2], [-1]], np.int32)
    u = np.array([[5, -5], [0, 2], [4, 9], [100, 100]], np.float32)
    (r,) = f(np.ones((3, 2), np.float32), idx, u)
    np.testing.assert_array_equal(r, [[1, 2], [1, 1], [5, 9]])
