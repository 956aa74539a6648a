"""jaxc.gather on the CPU against NumPy indexing: row gathers, point gathers
with unsigned indices, sliding windows, and an implicit index vector
(index_vector_dim == rank of the indices). Out-of-range starts are clamped so
the slice stays in bounds, as XLA does."""
import os

import numpy as np
import pytest

from jaxc.runtime import compile_module

HERE = os.path.dirname(os.path.abspath(__file__))

IMPLICIT = """
func.func @implicit(%x: tensor<5x3xf32>, %idx: tensor<4xi64>) -> tensor<4x3xf32> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}
"""


@pytest.fixture(scope="module")
def exe():
    with open(os.path.join(HERE, "gather_cases.mlir")) as f:
        return compile_module(f.read() + IMPLICIT)


def test_rows_are_clamped(exe):
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    idx = np.array([[4], [0], [-3], [9]], np.int32)
    (r,) = exe["rows"](x, idx)
    np.testing.assert_array_equal(r, x[np.clip(idx[:, 0], 0, 4)])


def test_points_with_unsigned_indices(exe):
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    idx = np.array([[1, 2], [7, 1]], np.uint32)
    (r,) = exe["points"](x, idx)
    np.testing.assert_array_equal(r, x[np.clip(idx[:, 0], 0, 4), np.clip(idx[:, 1], 0, 2)])


def test_windows_keep_the_slice_in_bounds(exe):
    x = np.arange(6, dtype=np.int32) * 10
    starts = np.array([0, 5, -1], np.int32)
    (r,) = exe["windows"](x, starts)
    expected = np.stack([x[s:s + 2] for s in np.clip(starts, 0, 4)])
    np.testing.assert_array_equal(r, expected)


def test_implicit_index_vector(exe):
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    idx = np.array([3, 1, 1, -7], np.int64)
    (r,) = exe["implicit"](x, idx)
    np.testing.assert_array_equal(r, x[np.clip(idx, 0, 4)])
