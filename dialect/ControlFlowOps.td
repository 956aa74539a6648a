// Control flow with regions: cond, while, scan and their terminator yield.
#ifndef JAXC_CONTROL_FLOW_OPS_TD
#define JAXC_CONTROL_FLOW_OPS_TD

include "JaxcBase.td"

def Jaxc_CondOp : Jaxc_Op<"cond", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "run one of N branches chosen by an index or a predicate";
  let description = [{
    `index` is a 0-d integer (clamped into range, as `lax.switch`) or a 0-d
    i1 predicate (branch 0 when false, branch 1 when true, as `lax.cond`).
    Each branch receives `branch_operands` as block arguments and yields the results.

    ```mlir
    %r = jaxc.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
    ^bb0(%a: tensor<f32>):
      %n = jaxc.neg %a : tensor<f32>
      jaxc.yield %n : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      jaxc.yield %a : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Jaxc_ScalarIndex:$index, Variadic<Jaxc_Tensor>:$branch_operands);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = "$index `(` $branch_operands `)` attr-dict `:` type($index) `,` functional-type($branch_operands, $results) $branches";
  let hasRegionVerifier = 1;
}

def Jaxc_WhileOp : Jaxc_Op<"while", [RecursiveMemoryEffects, IsolatedFromAbove,
    InferTypeOpAdaptor]> {
  let summary = "loop while a predicate holds";
  let description = [{
    `cond` maps the carried values to a 0-d i1; `body` maps them to new
    carried values. The results are the carried values when `cond` is false.

    ```mlir
    %r = jaxc.while (%x : tensor<i32>) cond {
    ^bb0(%i: tensor<i32>):
      %p = jaxc.compare lt, %i, %ten : tensor<i32>
      jaxc.yield %p : tensor<i1>
    } do {
    ^bb0(%i: tensor<i32>):
      %n = jaxc.add %i, %one : tensor<i32>
      jaxc.yield %n : tensor<i32>
    }
    ```
    (With `%ten`, `%one` defined by constants inside the regions, which are
    isolated from above.)
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$init);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = "`(` ($init^ `:` type($init))? `)` attr-dict `cond` $cond `do` $body";
  let hasRegionVerifier = 1;
}

def Jaxc_ScanOp : Jaxc_Op<"scan", [RecursiveMemoryEffects, IsolatedFromAbove,
    AttrSizedOperandSegments]> {
  let summary = "loop over the leading axis of xs with a carry (lax.scan)";
  let description = [{
    The body maps (carry..., x slices...) to (carry..., y slices...). Results
    are the final carry followed by the ys stacked along a new leading axis of
    size `length`. With `reverse`, iteration runs from the last slice.

    ```mlir
    %c, %ys = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5
                -> tensor<f32>, tensor<5xf32> {
    ^bb0(%c: tensor<f32>, %x: tensor<f32>):
      %s = jaxc.add %c, %x : tensor<f32>
      jaxc.yield %s, %s : tensor<f32>, tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$init, Variadic<Jaxc_Tensor>:$xs,
                   I64Attr:$length, UnitAttr:$reverse);
  let results = (outs Variadic<Jaxc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `init` `(` ($init^ `:` type($init))? `)` `xs` `(` ($xs^ `:` type($xs))? `)`
    `length` `=` $length (`reverse` $reverse^)? attr-dict `->` type($results) $body
  }];
  let hasRegionVerifier = 1;
}

def Jaxc_YieldOp : Jaxc_Op<"yield", [Pure, Terminator,
    ParentOneOf<["CondOp", "WhileOp", "ScanOp", "ScatterOp"]>]> {
  let summary = "return values from a jaxc region";
  let description = [{
    ```mlir
    jaxc.yield %a, %b : tensor<f32>, tensor<4xi32>
    ```
  }];
  let arguments = (ins Variadic<Jaxc_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // JAXC_CONTROL_FLOW_OPS_TD
