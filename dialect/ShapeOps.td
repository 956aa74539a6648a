// Shape ops: broadcast_in_dim reshape transpose reverse slice dynamic_slice
// dynamic_update_slice concatenate pad squeeze expand_dims gather scatter.
#ifndef JAXC_SHAPE_OPS_TD
#define JAXC_SHAPE_OPS_TD

include "JaxcBase.td"

def Jaxc_BroadcastInDimOp : Jaxc_Op<"broadcast_in_dim", [Pure]> {
  let summary = "broadcast into a larger shape";
  let description = [{
    Operand dimension `i` maps to result dimension `broadcast_dimensions[i]`
    (strictly increasing); its size is 1 or equals the result's.

    ```mlir
    %b = jaxc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $broadcast_dimensions attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jaxc_ReshapeOp : Jaxc_Op<"reshape", [Pure]> {
  let summary = "reshape without changing the element count";
  let description = [{
    Row-major reshape; the element counts of operand and result agree.

    ```mlir
    %r = jaxc.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

def Jaxc_TransposeOp : Jaxc_Op<"transpose", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %t = jaxc.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `perm` `=` $permutation attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

def Jaxc_ReverseOp : Jaxc_Op<"reverse", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "reverse the order of elements along dimensions";
  let description = [{
    ```mlir
    %r = jaxc.reverse %x, dims = [0] : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dimensions attr-dict `:` type($operand)";
}

def Jaxc_SliceOp : Jaxc_Op<"slice", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "a static strided slice";
  let description = [{
    Takes `[start, limit)` with `strides` in every dimension.

    ```mlir
    %s = jaxc.slice %x, start = [0, 1], limit = [2, 3], strides = [1, 1]
           : tensor<2x3xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$start_indices,
                   DenseI64ArrayAttr:$limit_indices, DenseI64ArrayAttr:$strides);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `start` `=` $start_indices `,` `limit` `=` $limit_indices `,` `strides` `=` $strides attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_DynamicSliceOp : Jaxc_Op<"dynamic_slice", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "a slice of static size at run-time start indices";
  let description = [{
    One 0-d integer start index per dimension; starts are clamped so the
    slice stays in bounds (as XLA).

    ```mlir
    %s = jaxc.dynamic_slice %x[%i, %j], sizes = [1, 2]
           : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, Variadic<Jaxc_ScalarInt>:$start_indices,
                   DenseI64ArrayAttr:$slice_sizes);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `[` $start_indices `]` `,` `sizes` `=` $slice_sizes attr-dict `:` functional-type(operands, results)";
}

def Jaxc_DynamicUpdateSliceOp : Jaxc_Op<"dynamic_update_slice", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "overwrite a block at run-time start indices";
  let description = [{
    Writes `update` into `operand` at the (clamped) start indices.

    ```mlir
    %r = jaxc.dynamic_update_slice %x, %u[%i, %j]
           : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, Jaxc_Tensor:$update,
                   Variadic<Jaxc_ScalarInt>:$start_indices);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` $update `[` $start_indices `]` attr-dict `:` functional-type(operands, results)";
}

def Jaxc_ConcatenateOp : Jaxc_Op<"concatenate", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "join tensors along a dimension";
  let description = [{
    All inputs have the same rank and element type and agree in every
    dimension but `dimension`.

    ```mlir
    %c = jaxc.concatenate(%x, %y), dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$inputs, I64Attr:$dimension);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "`(` $inputs `)` `,` `dim` `=` $dimension attr-dict `:` functional-type($inputs, $result)";
  let hasFolder = 1;
}

def Jaxc_PadOp : Jaxc_Op<"pad", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "pad with a value at the edges and between elements";
  let description = [{
    Low and high padding may be negative (cropping); interior padding is >= 0.

    ```mlir
    %p = jaxc.pad %x, %zero, low = [1], high = [0], interior = [1]
           : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, Jaxc_Scalar:$padding_value,
                   DenseI64ArrayAttr:$edge_padding_low, DenseI64ArrayAttr:$edge_padding_high,
                   DenseI64ArrayAttr:$interior_padding);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` `high` `=` $edge_padding_high `,` `interior` `=` $interior_padding attr-dict `:` functional-type(operands, results)";
}

def Jaxc_SqueezeOp : Jaxc_Op<"squeeze", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "remove dimensions of size 1";
  let description = [{
    ```mlir
    %s = jaxc.squeeze %x, dims = [0] : tensor<1x3xf32> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_ExpandDimsOp : Jaxc_Op<"expand_dims", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "insert dimensions of size 1";
  let description = [{
    `dimensions` are positions in the result.

    ```mlir
    %e = jaxc.expand_dims %x, dims = [0, 2] : tensor<3xf32> -> tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_GatherOp : Jaxc_Op<"gather", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "gather slices at run-time indices (XLA semantics)";
  let description = [{
    The dimension numbers follow `lax.GatherDimensionNumbers`. Out-of-bounds
    starts are clamped.

    ```mlir
    // x[idx] for x : 5x3, idx : 2 indices
    %g = jaxc.gather %x[%idx] offset_dims = [1], collapsed_slice_dims = [0],
           start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3]
           : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, Jaxc_IntTensor:$start_indices,
                   DenseI64ArrayAttr:$offset_dims, DenseI64ArrayAttr:$collapsed_slice_dims,
                   DenseI64ArrayAttr:$start_index_map, I64Attr:$index_vector_dim,
                   DenseI64ArrayAttr:$slice_sizes, UnitAttr:$indices_are_sorted);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `offset_dims` `=` $offset_dims
    `,` `collapsed_slice_dims` `=` $collapsed_slice_dims
    `,` `start_index_map` `=` $start_index_map
    `,` `index_vector_dim` `=` $index_vector_dim
    `,` `slice_sizes` `=` $slice_sizes
    (`indices_are_sorted` $indices_are_sorted^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Jaxc_ScatterOp : Jaxc_Op<"scatter", [
    InferTypeOpAdaptor,
    RecursiveMemoryEffects]> {
  let summary = "combine updates into slices at run-time indices (XLA semantics)";
  let description = [{
    The dimension numbers follow `lax.ScatterDimensionNumbers`. The region
    combines the current value with an update (two 0-d tensors) and yields the
    new value; a region that yields its second argument is a plain set.

    ```mlir
    %r = jaxc.scatter %x[%idx], %upd update_window_dims = [1],
           inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
           index_vector_dim = 1
           : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32> {
    ^bb0(%old: tensor<f32>, %new: tensor<f32>):
      %s = jaxc.add %old, %new : tensor<f32>
      jaxc.yield %s : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, Jaxc_IntTensor:$scatter_indices,
                   Jaxc_Tensor:$updates,
                   DenseI64ArrayAttr:$update_window_dims, DenseI64ArrayAttr:$inserted_window_dims,
                   DenseI64ArrayAttr:$scatter_dims_to_operand_dims, I64Attr:$index_vector_dim,
                   UnitAttr:$indices_are_sorted, UnitAttr:$unique_indices);
  let results = (outs Jaxc_Tensor:$result);
  let regions = (region SizedRegion<1>:$update_computation);
  let assemblyFormat = [{
    $operand `[` $scatter_indices `]` `,` $updates
    `update_window_dims` `=` $update_window_dims
    `,` `inserted_window_dims` `=` $inserted_window_dims
    `,` `scatter_dims_to_operand_dims` `=` $scatter_dims_to_operand_dims
    `,` `index_vector_dim` `=` $index_vector_dim
    (`indices_are_sorted` $indices_are_sorted^)?
    (`unique_indices` $unique_indices^)?
    attr-dict `:` functional-type(operands, results) $update_computation
  }];
  let hasVerifier = 1;
}

#endif // JAXC_SHAPE_OPS_TD
