// Reductions and contractions: reduce argmax argmin cumulative sort
// dot_general conv_general_dilated dft lu triangular_solve cholesky.
#ifndef JAXC_REDUCTION_OPS_TD
#define JAXC_REDUCTION_OPS_TD

include "JaxcBase.td"

def Jaxc_ReduceOp : Jaxc_Op<"reduce", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "reduce over dimensions with sum, prod, max, min, and or or";
  let description = [{
    Removes `dimensions` from the shape. `and`/`or` need integer or i1
    elements; `max`/`min` of floats propagate NaN.

    ```mlir
    %s = jaxc.reduce sum %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Jaxc_ReduceKind:$kind, Jaxc_Tensor:$operand,
                   DenseI64ArrayAttr:$dimensions);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$kind $operand `,` `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)";
}

class Jaxc_ArgReduceOp<string mnemonic, string what> : Jaxc_Op<mnemonic, [Pure]> {
  let summary = "index of the " # what # " along an axis";
  let description = "The first index of the " # what # " along `axis` "
    # "(NaN counts as the " # what # "); the result's integer type is the "
    # "index type.\n\n```mlir\n%i = jaxc." # mnemonic
    # " %x, axis = 1 : tensor<2x3xf32> -> tensor<2xi32>\n```";
  let arguments = (ins Jaxc_Tensor:$operand, I64Attr:$axis);
  let results = (outs Jaxc_IntTensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}
def Jaxc_ArgMaxOp : Jaxc_ArgReduceOp<"argmax", "maximum">;
def Jaxc_ArgMinOp : Jaxc_ArgReduceOp<"argmin", "minimum">;

def Jaxc_CumulativeOp : Jaxc_Op<"cumulative", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "inclusive scan with sum, prod, max or min along an axis";
  let description = [{
    With `reverse` the scan runs from the end of the axis.

    ```mlir
    %c = jaxc.cumulative sum %x, axis = 0 reverse : tensor<5xf32>
    ```
  }];
  let arguments = (ins Jaxc_CumulativeKind:$kind, Jaxc_NumericTensor:$operand,
                   I64Attr:$axis, UnitAttr:$reverse);
  let results = (outs Jaxc_NumericTensor:$result);
  let assemblyFormat = "$kind $operand `,` `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` type($operand)";
}

def Jaxc_SortOp : Jaxc_Op<"sort", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "sort tensors along a dimension by their first keys";
  let description = [{
    All operands have the same shape; they are permuted together, ordered
    ascending lexicographically by the first `num_keys` operands. As
    `jax.lax.sort`, float keys compare with -0.0 equal to 0.0 and every NaN
    equal to every other NaN and greater than +inf.

    ```mlir
    %k, %v = jaxc.sort(%keys, %vals), dim = 0, num_keys = 1 stable
               : tensor<5xf32>, tensor<5xi32>
    ```
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$inputs, I64Attr:$dimension,
                   DefaultValuedAttr<I64Attr, "1">:$num_keys, UnitAttr:$is_stable);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "`(` $inputs `)` `,` `dim` `=` $dimension `,` `num_keys` `=` $num_keys (`stable` $is_stable^)? attr-dict `:` type($inputs)";
}

def Jaxc_TopKOp : Jaxc_Op<"top_k", [Pure, InferTypeOpAdaptor]> {
  let summary = "the k largest entries along the last axis, and their indices";
  let description = [{
    For each position of the leading axes, the `k` largest entries of the
    operand along its last axis, largest first, and their `i32` indices;
    equal entries in index order. As `jax.lax.top_k`, entries are ordered
    by their bits: floats as integers with the magnitude of negatives
    flipped, so NaN ranks above +inf, a NaN with the sign bit set below
    -inf, and 0.0 above -0.0. `lax.top_k` binds it (after moving its axis
    last). On the CPU an f32 or f64 one is a call of the compiled library
    (top_k.c); `jaxc-expand-top-k` rewrites it into jaxc ops (rounds of
    max over the chunks with the largest maxima, or a sort for large `k`)
    for other element types and where no library is called.

    ```mlir
    %values, %indices = jaxc.top_k %x, k = 8 : tensor<4096x1024xf32>
    %v, %i = jaxc.top_k %y, k = 2 : tensor<5xi32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[Jaxc_Float, Jaxc_Int, I1]>:$operand, I64Attr:$k);
  let results = (outs StaticShapeTensorOf<[Jaxc_Float, Jaxc_Int, I1]>:$values, TensorOf<[I32]>:$indices);
  let assemblyFormat = "$operand `,` `k` `=` $k attr-dict `:` type($operand)";
}

def Jaxc_DotGeneralOp : Jaxc_Op<"dot_general", [Pure,
    // Shapes must match; the element type is the preferred one.
    InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "general tensor contraction";
  let description = [{
    Result dimensions: batch dimensions, then free lhs dimensions, then free
    rhs dimensions. The result element type is the preferred element type
    (inferred as the lhs element type when not given).

    ```mlir
    %c = jaxc.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1]
           : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
    ```
  }];
  let arguments = (ins Jaxc_NumericTensor:$lhs, Jaxc_NumericTensor:$rhs,
                   DenseI64ArrayAttr:$lhs_batching_dimensions,
                   DenseI64ArrayAttr:$rhs_batching_dimensions,
                   DenseI64ArrayAttr:$lhs_contracting_dimensions,
                   DenseI64ArrayAttr:$rhs_contracting_dimensions);
  let results = (outs Jaxc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch` `=` $lhs_batching_dimensions `x` $rhs_batching_dimensions
    `,` `contract` `=` $lhs_contracting_dimensions `x` $rhs_contracting_dimensions
    attr-dict `:` functional-type(operands, results)
  }];
}

def Jaxc_ConvGeneralDilatedOp : Jaxc_Op<"conv_general_dilated", [Pure,
    // Shapes must match; the element type is the preferred one.
    InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "general dilated convolution (lax.conv_general_dilated)";
  let description = [{
    `lhs_spec`, `rhs_spec` and `out_spec` are `lax.ConvDimensionNumbers`:
    (batch, feature, spatial...) for lhs and out, (out feature, in feature,
    spatial...) for rhs. `padding` holds (low, high) per spatial dimension.

    ```mlir
    %y = jaxc.conv_general_dilated %x, %w, window_strides = [1, 1],
           padding = [0, 0, 0, 0], lhs_dilation = [1, 1], rhs_dilation = [1, 1],
           lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3],
           feature_group_count = 1, batch_group_count = 1
           : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins Jaxc_NumericTensor:$lhs, Jaxc_NumericTensor:$rhs,
                   DenseI64ArrayAttr:$window_strides, DenseI64ArrayAttr:$padding,
                   DenseI64ArrayAttr:$lhs_dilation, DenseI64ArrayAttr:$rhs_dilation,
                   DenseI64ArrayAttr:$lhs_spec, DenseI64ArrayAttr:$rhs_spec,
                   DenseI64ArrayAttr:$out_spec,
                   DefaultValuedAttr<I64Attr, "1">:$feature_group_count,
                   DefaultValuedAttr<I64Attr, "1">:$batch_group_count);
  let results = (outs Jaxc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `window_strides` `=` $window_strides `,` `padding` `=` $padding
    `,` `lhs_dilation` `=` $lhs_dilation `,` `rhs_dilation` `=` $rhs_dilation
    `,` `lhs_spec` `=` $lhs_spec `,` `rhs_spec` `=` $rhs_spec `,` `out_spec` `=` $out_spec
    `,` `feature_group_count` `=` $feature_group_count `,` `batch_group_count` `=` $batch_group_count
    attr-dict `:` functional-type(operands, results)
  }];
}

def Jaxc_DftOp : Jaxc_Op<"dft", [Pure]> {
  let summary = "discrete Fourier transform along one axis";
  let description = [{
    `scale * sum_j x_j exp(sign 2 pi i j k / n)` for every sequence `x` along
    axis `axis` (n points), at every position of the other axes: `sign = -1`
    is the forward transform, `+1` the unscaled inverse. The operand is
    complex, or real (f32, f64: imaginary parts zero); the result is complex
    of the operand's shape, or holds only the first m <= n frequencies on
    the axis (its type says m: a real FFT keeps n//2 + 1). `lax.fft` is
    built on it; on the CPU it is a call of the compiled FFT, which reads
    sequences along any axis where they are (rows, columns), and
    `jaxc-expand-dft` rewrites it into matrix products (Cooley-Tukey,
    Bluestein) where no FFT library is called.

    ```mlir
    %y = jaxc.dft %x, axis = 1, sign = -1, scale = 1.0 : tensor<256x1024xcomplex<f32>> -> tensor<256x1024xcomplex<f32>>
    %c = jaxc.dft %x, axis = 0, sign = -1, scale = 1.0 : tensor<256x1024xcomplex<f32>> -> tensor<256x1024xcomplex<f32>>
    %z = jaxc.dft %r, axis = 0, sign = 1, scale = 0.125 : tensor<8xf64> -> tensor<8xcomplex<f64>>
    %h = jaxc.dft %r, axis = 0, sign = -1, scale = 1.0 : tensor<8xf64> -> tensor<5xcomplex<f64>>
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand, I64Attr:$axis, I64Attr:$sign, F64Attr:$scale);
  let results = (outs Jaxc_ComplexTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = "$operand `,` `axis` `=` $axis `,` `sign` `=` $sign `,` `scale` `=` $scale attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_HermitianDftOp : Jaxc_Op<"hermitian_dft", [Pure]> {
  let summary = "discrete Fourier transform of Hermitian sequences, real result";
  let description = [{
    The real sequences `y_j = scale * Re(sum_k X_k exp(sign 2 pi i j k / n))`
    along axis `axis`, where the n points of each `X` are Hermitian
    (`X_(n-k) = conj(X_k)`) and the operand holds their first n//2 + 1: the
    result has n points on that axis (its type says n), the operand's other
    axes. The imaginary parts of `X_0` and, for an even n, `X_(n/2)` do not
    count. With `sign = 1` and `scale = 1/n` this is the inverse of a real
    FFT (`lax.fft`'s IRFFT, numpy's `irfft`). On the CPU it is a call of
    the compiled FFT (two real sequences per complex transform);
    `jaxc-expand-dft` rewrites it into the full spectrum and a `jaxc.dft`
    where no FFT library is called.

    ```mlir
    %y = jaxc.hermitian_dft %x, axis = 1, sign = 1, scale = 0.001953125 : tensor<512x257xcomplex<f32>> -> tensor<512x512xf32>
    %z = jaxc.hermitian_dft %c, axis = 0, sign = -1, scale = 1.0 : tensor<4x3xcomplex<f64>> -> tensor<7x3xf64>
    ```
  }];
  let arguments = (ins Jaxc_ComplexTensor:$operand, I64Attr:$axis, I64Attr:$sign, F64Attr:$scale);
  let results = (outs Jaxc_FloatTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = "$operand `,` `axis` `=` $axis `,` `sign` `=` $sign `,` `scale` `=` $scale attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_LuOp : Jaxc_Op<"lu", [Pure]> {
  let summary = "LU decomposition with partial pivoting";
  let description = [{
    Factors each (m, n) matrix of the operand (its last two axes; the axes
    before them are batch axes) as `P a = L U`, row by row as LAPACK's
    getrf: at step k < min(m, n) the row with the first largest modulus in
    column k (rows k and below) is swapped with row k, and the multipliers
    below the pivot are divided by it (left unscaled when it is zero).
    `lu` holds U on and above the diagonal and L's multipliers below it
    (L's unit diagonal is implied); `pivots` (min(m, n) per matrix) the row
    swapped with row k at step k; `permutation` (m per matrix) the row
    order they make: `a[permutation] = L U`. `lax.linalg.lu` binds it. On
    the CPU an f32 or f64 one is a call of the compiled library (lu.c);
    `jaxc-expand-linalg` rewrites it into jaxc ops (a blocked loop over the
    columns) for other element types and where no library is called.

    ```mlir
    %lu, %pivots, %permutation = jaxc.lu %a : tensor<256x256xf32> -> (tensor<256x256xf32>, tensor<256xi32>, tensor<256xi32>)
    %f, %p, %q = jaxc.lu %b : tensor<8x5x3xcomplex<f64>> -> (tensor<8x5x3xcomplex<f64>>, tensor<8x3xi32>, tensor<8x5xi32>)
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand);
  let results = (outs Jaxc_InexactTensor:$lu, StaticShapeTensorOf<[I32]>:$pivots,
                 StaticShapeTensorOf<[I32]>:$permutation);
  let hasVerifier = 1;
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` `(` type($lu) `,` type($pivots) `,` type($permutation) `)`";
}

def Jaxc_TriangularSolveOp : Jaxc_Op<"triangular_solve", [Pure]> {
  let summary = "solve a triangular system of linear equations";
  let description = [{
    X with `op(a) X = b` (`left_side`) or `X op(a) = b`, for each matrix of
    `a` (k x k) and `b` (m x n, k = m when `left_side`, else n); the axes
    before the last two are batch axes, the same in `a` and `b`. `op(a)` is
    `a`, or its transpose with `transpose_a`, conjugated with `conjugate_a`
    (complex `a`). Only the lower triangle of `a` is read with `lower`, else
    the upper; `unit_diagonal` takes its diagonal as ones, unread. The
    result has `b`'s type. `lax.linalg.triangular_solve` binds it. On the
    CPU an f32 or f64 one is a call of the compiled library
    (triangular_solve.c); `jaxc-expand-linalg` rewrites it into jaxc ops
    (blocked substitution) for other element types and where no library is
    called.

    ```mlir
    %x = jaxc.triangular_solve %l, %b left_side lower unit_diagonal : (tensor<256x256xf32>, tensor<256x8xf32>) -> tensor<256x8xf32>
    %y = jaxc.triangular_solve %u, %c transpose_a : (tensor<2x4x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$a, Jaxc_InexactTensor:$b, UnitAttr:$left_side, UnitAttr:$lower,
                   UnitAttr:$transpose_a, UnitAttr:$conjugate_a, UnitAttr:$unit_diagonal);
  let results = (outs Jaxc_InexactTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $a `,` $b (`left_side` $left_side^)? (`lower` $lower^)? (`transpose_a` $transpose_a^)?
    (`conjugate_a` $conjugate_a^)? (`unit_diagonal` $unit_diagonal^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Jaxc_CholeskyOp : Jaxc_Op<"cholesky", [Pure, SameOperandsAndResultType]> {
  let summary = "Cholesky factorization";
  let description = [{
    The lower Cholesky factor L (L L^H = A, L's diagonal real and positive,
    zeros above it) of each matrix of the operand (its last two axes; the
    axes before them are batch axes), where A is the Hermitian (real:
    symmetric) matrix whose lower triangle is the operand's: the upper
    triangle is not read, nor the imaginary part of the diagonal. A matrix
    that is not positive definite (or has a NaN or infinity in its lower
    triangle) gives a matrix of NaNs, as JAX. `lax.linalg.cholesky` binds
    it (after symmetrizing its input). On the CPU an f32 or f64 one is a
    call of the compiled library (cholesky.c); `jaxc-expand-linalg` rewrites
    it into jaxc ops (a loop over the columns) for other element types and
    where no library is called.

    ```mlir
    %l = jaxc.cholesky %a : tensor<256x256xf32>
    %m = jaxc.cholesky %b : tensor<8x3x3xcomplex<f64>>
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand);
  let results = (outs Jaxc_InexactTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Jaxc_QrOp : Jaxc_Op<"qr", [Pure]> {
  let summary = "QR decomposition";
  let description = [{
    Factors each (m, n) matrix of the operand (its last two axes; the axes
    before them are batch axes) as `a = q r` by Householder reflections as
    LAPACK's geqrf and orgqr: with k = min(m, n), `q` holds the first m
    (`full_matrices`) or k columns of `H_0 ... H_(k-1)` (orthonormal
    columns; unitary for complex elements) and `r` the first m or k rows
    of the reduced matrix, upper triangular (exact zeros below the
    diagonal), its diagonal real. Reflector j maps column j below row j onto
    `beta e_j` with `beta = -sign(Re alpha) |column|` (no reflection where
    the column is already zero below the diagonal and alpha real), so `q`
    and `r` are LAPACK's (NumPy's). `lax.linalg.qr` binds it. On the CPU an
    f32 or f64 one is a call of the compiled library (qr.c);
    `jaxc-expand-linalg` rewrites it into jaxc ops (a loop over the columns)
    for other element types and where no library is called.

    ```mlir
    %q, %r = jaxc.qr %a full_matrices : tensor<256x128xf32> -> (tensor<256x256xf32>, tensor<256x128xf32>)
    %q2, %r2 = jaxc.qr %b : tensor<8x3x5xcomplex<f64>> -> (tensor<8x3x3xcomplex<f64>>, tensor<8x3x5xcomplex<f64>>)
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand, UnitAttr:$full_matrices);
  let results = (outs Jaxc_InexactTensor:$q, Jaxc_InexactTensor:$r);
  let hasVerifier = 1;
  let assemblyFormat = "$operand (`full_matrices` $full_matrices^)? attr-dict `:` type($operand) `->` `(` type($q) `,` type($r) `)`";
}

def Jaxc_EighOp : Jaxc_Op<"eigh", [Pure]> {
  let summary = "eigendecomposition of symmetric (Hermitian) matrices";
  let description = [{
    The eigenvalues (real, ascending) and orthonormal eigenvectors (the
    columns of `vectors`: `A vectors = vectors diag(values)`) of each matrix
    A of the operand (its last two axes; the axes before them are batch
    axes), where A is the symmetric (complex: Hermitian) matrix whose lower
    triangle (`lower`) or upper triangle is the operand's: the other
    triangle is not read, nor the imaginary part of the diagonal. A matrix
    with a NaN or infinity in that triangle gives NaNs. `lax.linalg.eigh`
    binds it (after symmetrizing its input). On the CPU an f32 or f64 one
    is a call of the compiled library (eigh.c: tridiagonal reduction and
    QL iterations); `jaxc-expand-linalg` rewrites it into jaxc ops (cyclic
    Jacobi sweeps) for other element types and where no library is called.

    ```mlir
    %v, %w = jaxc.eigh %a lower : tensor<256x256xf32> -> (tensor<256x256xf32>, tensor<256xf32>)
    %u, %e = jaxc.eigh %b : tensor<8x4x4xcomplex<f64>> -> (tensor<8x4x4xcomplex<f64>>, tensor<8x4xf64>)
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand, UnitAttr:$lower);
  let results = (outs Jaxc_InexactTensor:$vectors, Jaxc_FloatTensor:$values);
  let hasVerifier = 1;
  let assemblyFormat = "$operand (`lower` $lower^)? attr-dict `:` type($operand) `->` `(` type($vectors) `,` type($values) `)`";
}

def Jaxc_SvdOp : Jaxc_Op<"svd", [Pure]> {
  let summary = "singular value decomposition";
  let description = [{
    `a = u diag(s) vh` for each (m, n) matrix of the operand (its last two
    axes; the axes before them are batch axes), with k = min(m, n): `s` the
    k singular values (real, non-negative, descending), `u` (m x m with
    `full_matrices`, else m x k) and `vh` (n x n, else k x n) with
    orthonormal (complex: unitary) columns and rows, a complete basis for
    zero singular values and `full_matrices` too. The signs (phases) of the
    singular vectors are the implementation's. A matrix holding a NaN or an
    infinity gives NaNs. `lax.linalg.svd` binds it. On the CPU an f32 or
    f64 one is a call of the compiled library (svd.c); `jaxc-expand-linalg`
    rewrites it into jaxc ops (one-sided Jacobi sweeps) for other element
    types and where no library is called.

    ```mlir
    %s, %u, %vh = jaxc.svd %a full_matrices : tensor<256x128xf32> -> (tensor<128xf32>, tensor<256x256xf32>, tensor<128x128xf32>)
    %t, %v, %wh = jaxc.svd %b : tensor<8x3x5xcomplex<f64>> -> (tensor<8x3xf64>, tensor<8x3x3xcomplex<f64>>, tensor<8x3x5xcomplex<f64>>)
    ```
  }];
  let arguments = (ins Jaxc_InexactTensor:$operand, UnitAttr:$full_matrices);
  let results = (outs Jaxc_FloatTensor:$s, Jaxc_InexactTensor:$u, Jaxc_InexactTensor:$vh);
  let hasVerifier = 1;
  let assemblyFormat = "$operand (`full_matrices` $full_matrices^)? attr-dict `:` type($operand) `->` `(` type($s) `,` type($u) `,` type($vh) `)`";
}

def Jaxc_HessenbergOp : Jaxc_Op<"hessenberg", [Pure, InferTypeOpAdaptor]> {
  let summary = "Hessenberg reduction, packed as LAPACK's gehrd";
  let description = [{
    For each n x n matrix of the operand (its last two axes; the axes
    before them are batch axes), `a` holds the upper Hessenberg matrix h
    on and above the first subdiagonal and, below it, the Householder
    vectors: reflector j is `I - taus[j] v v^T` with v zero above row j + 1,
    1 at row j + 1 (not stored) and column j of `a` below; `operand = q h
    q^T` with q the product of the reflectors. The signs are LAPACK's
    (dlarfg). `lax.linalg.hessenberg` binds it for f32 and f64 matrices
    where the compiled library is called (eig.c); a call of it is the CPU's
    only lowering.

    ```mlir
    %a, %taus = jaxc.hessenberg %x : tensor<256x256xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$operand);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$a, StaticShapeTensorOf<[F32, F64]>:$taus);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Jaxc_SchurOp : Jaxc_Op<"schur", [Pure, InferTypeOpAdaptor]> {
  let summary = "real Schur decomposition";
  let description = [{
    `operand = z t z^T` for each n x n matrix of the operand (its last two
    axes; the axes before them are batch axes), as LAPACK's gees without
    sorting: z orthogonal, t quasi upper triangular, with 1 x 1 blocks for
    real eigenvalues and 2 x 2 blocks for complex-conjugate pairs in
    standard form (equal diagonal entries, off-diagonal entries of opposite
    signs). A matrix with a NaN or an infinity gives NaNs.
    `lax.linalg.schur` binds it for f32 and f64 matrices where the compiled
    library is called (eig.c: Hessenberg reduction, then Francis
    double-shift QR); a call of it is the CPU's only lowering.

    ```mlir
    %t, %z = jaxc.schur %x : tensor<8x64x64xf64>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$operand);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$t, StaticShapeTensorOf<[F32, F64]>:$z);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Jaxc_EigOp : Jaxc_Op<"eig", [Pure, InferTypeOpAdaptor]> {
  let summary = "eigenvalues and eigenvectors of general real matrices";
  let description = [{
    The eigenvalues `w` (complex, in the order of the real Schur form's
    diagonal blocks, a pair with positive imaginary part first) of each
    n x n matrix of the operand (its last two axes; the axes before them
    are batch axes), and with `right` the right eigenvectors (the columns
    of `vr`: `operand vr = vr diag(w)`), with `left` the left ones (the
    columns of `vl`: `vl^H operand = diag(w) vl^H`), each of norm 1 with its
    component of largest modulus real, as LAPACK's geev; `vl` (`vr`) is
    all zeros without `left` (`right`). `lax.linalg.eig` binds it for f32
    and f64 matrices where the compiled library is called (eig.c); a call
    of it is the CPU's only lowering.

    ```mlir
    %w, %vl, %vr = jaxc.eig %x right : tensor<256x256xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$operand, UnitAttr:$left, UnitAttr:$right);
  let results = (outs StaticShapeTensorOf<[Jaxc_Complex]>:$w, StaticShapeTensorOf<[Jaxc_Complex]>:$vl,
                      StaticShapeTensorOf<[Jaxc_Complex]>:$vr);
  let assemblyFormat = "$operand (`left` $left^)? (`right` $right^)? attr-dict `:` type($operand)";
}

#endif // JAXC_REDUCTION_OPS_TD
