// Randomness, collectives and transformation requests.
#ifndef JAXC_MISC_OPS_TD
#define JAXC_MISC_OPS_TD

include "JaxcBase.td"

//===----------------------------------------------------------------------===//
// Randomness
//===----------------------------------------------------------------------===//

def Jaxc_Threefry2x32Op : Jaxc_Op<"threefry2x32", [Pure,
    InferTypeOpAdaptor]> {
  let family = "elementwise";
  let summary = "the Threefry-2x32 block cipher (20 rounds)";
  let description = [{
    Encrypts the counter pairs (`x0`, `x1`) under the key (`key0`, `key1`).
    Keys are 0-d or of the counters' shape; all are ui32.

    ```mlir
    %y0, %y1 = jaxc.threefry2x32 %k0, %k1, %x0, %x1 : tensor<ui32>, tensor<4xui32>
    ```
  }];
  let arguments = (ins Jaxc_UI32Tensor:$key0, Jaxc_UI32Tensor:$key1,
                   Jaxc_UI32Tensor:$x0, Jaxc_UI32Tensor:$x1);
  let results = (outs Jaxc_UI32Tensor:$out0, Jaxc_UI32Tensor:$out1);
  let assemblyFormat = "$key0 `,` $key1 `,` $x0 `,` $x1 attr-dict `:` custom<SameType>(type($key0), type($key1)) `,` custom<SameType>(type($x0), type($x1))";
}

def Jaxc_RandomBitsOp : Jaxc_Op<"random_bits", [Pure]> {
  let summary = "random unsigned bits of the result's shape from a key";
  let description = [{
    The key is a raw threefry key `tensor<2xui32>`; the result's element type
    (ui8, ui16, ui32, ui64) sets the bit width.

    ```mlir
    %b = jaxc.random_bits %key : tensor<2xui32> -> tensor<3x4xui32>
    ```
  }];
  let arguments = (ins Jaxc_UI32Tensor:$key);
  let results = (outs Jaxc_UnsignedTensor:$result);
  let assemblyFormat = "$key attr-dict `:` type($key) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives over named axes
//===----------------------------------------------------------------------===//

class Jaxc_AllReduceOp<string mnemonic, string what>
    : Jaxc_Op<mnemonic, [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "the " # what # " over the devices of named axes";
  let description = "Every participant receives the " # what # " of `operand` "
    # "over the mapped axes named in `axes`. `invariant` (set by "
    # "`jaxc-infer-vma` in a shard_map body) makes it JAX's varying-to-invariant "
    # "collective: its transpose is `jaxc.pvary`, not itself."
    # "\n\n```mlir\n%s = jaxc." # mnemonic
    # " %x, axes = [\"i\"] : tensor<4xf32>\n%t = jaxc." # mnemonic
    # " %x, axes = [\"i\"] invariant : tensor<4xf32>\n```";
  let arguments = (ins Jaxc_Tensor:$operand, StrArrayAttr:$axes, UnitAttr:$invariant);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `axes` `=` $axes (`invariant` $invariant^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def Jaxc_PsumOp : Jaxc_AllReduceOp<"psum", "sum">;
def Jaxc_PmaxOp : Jaxc_AllReduceOp<"pmax", "maximum">;
def Jaxc_PminOp : Jaxc_AllReduceOp<"pmin", "minimum">;
def Jaxc_PmeanOp : Jaxc_AllReduceOp<"pmean", "mean">;

def Jaxc_PvaryOp : Jaxc_Op<"pvary", [Pure, SameOperandsAndResultType]> {
  let summary = "mark a device-invariant value as varying over named axes";
  let description = [{
    The identity on values (JAX's `pcast(x, axes, to='varying')`): every
    device of `axes` holds the same operand, and the result is typed as
    differing among them. Its transpose is an invariant `jaxc.psum` over
    `axes`, so the gradient of a value replicated across a shard_map's
    devices sums their contributions. `jaxc-infer-vma` inserts it where a
    shard_map body combines invariant and varying values.

    ```mlir
    %v = jaxc.pvary %w, axes = ["x", "y"] : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, StrArrayAttr:$axes);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `axes` `=` $axes attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jaxc_AllGatherOp : Jaxc_Op<"all_gather", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "gather the operands of all devices of a named axis";
  let description = [{
    Stacks the `axis_size` operands along a new dimension `dimension`, or
    concatenates them along it when `tiled`. `invariant` is JAX's
    `all_gather_invariant` (`to='invarying'`): the result is typed as the
    same on every device, and its transpose is this device's slice of the
    cotangent, not a reduce-scatter.

    ```mlir
    %g = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 : tensor<3xf32> -> tensor<4x3xf32>
    %h = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 4 tiled invariant : tensor<3xf32> -> tensor<12xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, StrArrayAttr:$axes, I64Attr:$dimension,
                   I64Attr:$axis_size, UnitAttr:$tiled, UnitAttr:$invariant);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `axes` `=` $axes `,` `dim` `=` $dimension `,` `axis_size` `=` $axis_size (`tiled` $tiled^)? (`invariant` $invariant^)? attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_AllToAllOp : Jaxc_Op<"all_to_all", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "split along one axis, exchange, concatenate along another";
  let description = [{
    ```mlir
    %r = jaxc.all_to_all %x, axes = ["i"], split_axis = 0, concat_axis = 1, axis_size = 2
           : tensor<4x3xf32> -> tensor<2x6xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, StrArrayAttr:$axes, I64Attr:$split_axis,
                   I64Attr:$concat_axis, I64Attr:$axis_size);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `axes` `=` $axes `,` `split_axis` `=` $split_axis `,` `concat_axis` `=` $concat_axis `,` `axis_size` `=` $axis_size attr-dict `:` type($operand) `->` type($result)";
}

def Jaxc_PpermuteOp : Jaxc_Op<"ppermute", [Pure, SameOperandsAndResultType,
    InferTypeOpInterface]> {
  let summary = "send the operand from each source to its destination device";
  let description = [{
    `perm` lists (source, destination) pairs flattened; devices that receive
    nothing get zeros.

    ```mlir
    %r = jaxc.ppermute %x, axes = ["i"], perm = [0, 1, 1, 0] : tensor<3xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, StrArrayAttr:$axes, DenseI64ArrayAttr:$perm);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `,` `axes` `=` $axes `,` `perm` `=` $perm attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jaxc_AxisIndexOp : Jaxc_Op<"axis_index", [Pure]> {
  let summary = "this device's index along a named axis";
  let description = [{
    ```mlir
    %i = jaxc.axis_index "i" : tensor<i32>
    ```
  }];
  let arguments = (ins StrAttr:$axis_name);
  let results = (outs 0DTensorOf<[I32]>:$result);
  let assemblyFormat = "$axis_name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Host callbacks
//===----------------------------------------------------------------------===//

def Jaxc_CallbackOp : Jaxc_Op<"callback", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "call a Python function of this process on the operands' values";
  let description = [{
    Runs host callback `id` (registered by `jax.debug.callback`,
    `jax.debug.print` or `jax.pure_callback` in the process that compiles the
    module) on the operands' values when the program reaches it, in program
    order; the results are what it returns. The leading `batch_rank` dims of
    every operand and result are vmapped axes: the callback runs once per
    index of them. It has side effects, so it is neither moved past another
    callback nor removed.

    ```mlir
    jaxc.callback 7 (%x) : (tensor<3xf32>) -> ()
    %y = jaxc.callback 8 (%x) : (tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins I64Attr:$callback_id, Variadic<Jaxc_Tensor>:$args,
                   DefaultValuedAttr<I64Attr, "0">:$batch_rank);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "$callback_id `(` $args `)` attr-dict `:` functional-type($args, $results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Transformation requests (expanded by jaxc-autodiff and jaxc-batch)
//===----------------------------------------------------------------------===//

def Jaxc_JvpOp : Jaxc_Op<"jvp", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "request: forward-mode derivative of a function";
  let description = [{
    Results are the callee's outputs followed by their tangents, for the
    given primals and tangents (one per callee input, of the same types).

    ```mlir
    %y, %y_dot = jaxc.jvp @f(%x) tangents(%x_dot)
                   : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Jaxc_Tensor>:$primals,
                   Variadic<Jaxc_Tensor>:$tangents);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "$callee `(` $primals `)` `tangents` `(` $tangents `)` attr-dict `:` functional-type(operands, results)";
}

def Jaxc_VjpOp : Jaxc_Op<"vjp", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "request: reverse-mode derivative of a function";
  let description = [{
    Results are the callee's outputs followed by one cotangent per callee
    input, given the primals and one cotangent per callee output.

    ```mlir
    %y, %x_bar = jaxc.vjp @f(%x) cotangents(%ct)
                   : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Jaxc_Tensor>:$primals,
                   Variadic<Jaxc_Tensor>:$cotangents);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "$callee `(` $primals `)` `cotangents` `(` $cotangents `)` attr-dict `:` functional-type(operands, results)";
}

def Jaxc_VmapOp : Jaxc_Op<"vmap", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "request: the callee mapped over a batch axis";
  let description = [{
    `in_axes[i]` is the batch dimension of input i, or -1 when it is not
    batched; `out_axes[j]` places the batch dimension in output j.

    ```mlir
    %ys = jaxc.vmap @f(%xs, %w) in_axes = [0, -1] out_axes = [0] axis_size = 8
            : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Jaxc_Tensor>:$inputs,
                   DenseI64ArrayAttr:$in_axes, DenseI64ArrayAttr:$out_axes,
                   I64Attr:$axis_size, OptionalAttr<StrAttr>:$axis_name);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $inputs `)` `in_axes` `=` $in_axes `out_axes` `=` $out_axes
    `axis_size` `=` $axis_size (`axis_name` `=` $axis_name^)?
    attr-dict `:` functional-type($inputs, $results)
  }];
}

def Jaxc_CustomJvpCallOp : Jaxc_Op<"custom_jvp_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a function whose forward derivative is a given rule";
  let description = [{
    Evaluates `callee`; differentiation uses `jvp`, a function from
    (primals..., tangents...) to (outputs..., output tangents...).

    ```mlir
    %y = jaxc.custom_jvp_call @f(%x) jvp = @f_rule : (tensor<f32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, FlatSymbolRefAttr:$jvp,
                   Variadic<Jaxc_Tensor>:$args);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "$callee `(` $args `)` `jvp` `=` $jvp attr-dict `:` functional-type($args, $results)";
}

def Jaxc_CustomVjpCallOp : Jaxc_Op<"custom_vjp_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a function whose reverse derivative is a given rule";
  let description = [{
    Evaluates `callee`; reverse mode runs `fwd` (inputs -> outputs...,
    residuals...) and `bwd` (residuals..., output cotangents... -> input
    cotangents...).

    ```mlir
    %y = jaxc.custom_vjp_call @f(%x) fwd = @f_fwd bwd = @f_bwd : (tensor<f32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, FlatSymbolRefAttr:$fwd,
                   FlatSymbolRefAttr:$bwd, Variadic<Jaxc_Tensor>:$args);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "$callee `(` $args `)` `fwd` `=` $fwd `bwd` `=` $bwd attr-dict `:` functional-type($args, $results)";
}

def Jaxc_RematOp : Jaxc_Op<"remat", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a function whose residuals reverse mode recomputes (jax.checkpoint)";
  let description = [{
    Evaluates `callee`. Under a `jaxc.vjp`, `jaxc-autodiff` keeps only what
    `policy` saves of the callee's forward values and recomputes the rest in
    the backward sweep, from the arguments behind a
    `jaxc.optimization_barrier` (so CSE cannot merge the recomputation back
    into the forward values unless `prevent_cse` is false). Policies:
    `nothing_saveable` (the default), `everything_saveable`, `dots_saveable`
    (`dot_general` and `conv` results), `dots_with_no_batch_dims_saveable`,
    `save_only_these_names`, `save_any_names_but_these` and
    `save_anything_except_these_names` (the last three read `names`, which
    `jaxc.checkpoint_name` gives values). Outside reverse mode it is a call.

    ```mlir
    %y = jaxc.remat @layer(%w, %x) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %z = jaxc.remat @layer(%w, %x) policy = "save_only_these_names" names = ["h"]
           : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Jaxc_Tensor>:$args,
                   DefaultValuedAttr<StrAttr, "\"nothing_saveable\"">:$policy,
                   OptionalAttr<StrArrayAttr>:$names,
                   DefaultValuedAttr<BoolAttr, "true">:$prevent_cse);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` (`policy` `=` $policy^)? (`names` `=` $names^)?
    attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

def Jaxc_CheckpointNameOp : Jaxc_Op<"checkpoint_name", [Pure, SameOperandsAndResultType]> {
  let family = "elementwise";
  let summary = "identity that names a value for a remat policy";
  let description = [{
    The identity on values (and on derivatives). The policies
    `save_only_these_names` and friends of `jaxc.remat` save or recompute
    the operand by its name (the attribute is `label`: an op's `name` is
    taken in the Python bindings).

    ```mlir
    %h = jaxc.checkpoint_name %x name = "hidden" : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jaxc_Tensor:$operand, StrAttr:$label);
  let results = (outs Jaxc_Tensor:$result);
  let assemblyFormat = "$operand `name` `=` $label attr-dict `:` type($operand)";
}

def Jaxc_OptimizationBarrierOp : Jaxc_Op<"optimization_barrier", [Pure, InferTypeOpAdaptor]> {
  let summary = "identity that no optimization looks through";
  let description = [{
    Returns its operands unchanged. Nothing computed from the results is
    merged (CSE) or fused with what is computed from the operands: the
    lowering copies each operand into a buffer of its own. Reverse mode
    puts one before the recomputation of a `jaxc.remat`.

    ```mlir
    %a, %b = jaxc.optimization_barrier %x, %y : tensor<4xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$operands);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

#endif // JAXC_MISC_OPS_TD
