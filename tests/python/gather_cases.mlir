func.func @rows(%x: tensor<5x3xf32>, %idx: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}
func.func @points(%x: tensor<5x3xf32>, %idx: tensor<2x2xui32>) -> tensor<2xf32> {
  %g = jaxc.gather %x[%idx] offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2x2xui32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func @windows(%x: tensor<6xi32>, %idx: tensor<3xi32>) -> tensor<3x2xi32> {
  %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [], start_index_map = [0], index_vector_dim = 1, slice_sizes = [2] : (tensor<6xi32>, tensor<3xi32>) -> tensor<3x2xi32>
  return %g : tensor<3x2xi32>
}
