"""The Python op classes generated from the ODS: building, type inference,
verification, printing, parsing back into typed classes, and error messages.

Result types are worked out by hand from the op semantics (XLA / jax.lax) in
the comments of each case; the dialect must infer the same.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Callable, Sequence

import mlir.ir as ir
import pytest
from mlir.dialects import func

import jaxc.dialect as jd
from jaxc.dialect import make_context


@pytest.fixture(scope="module")
def ctx() -> ir.Context:
    return make_context()


@pytest.fixture
def loc(ctx: ir.Context):
    """Enter the context and an unknown location for the test's duration."""
    with ctx, ir.Location.unknown() as location:
        yield location


def tensor(spec: str) -> ir.Type:
    """`tensor("2x3xf32")` -> tensor<2x3xf32>; `tensor("f32")` -> tensor<f32>."""
    return ir.Type.parse(f"tensor<{spec}>")


def build_func(arg_specs: Sequence[str], body: Callable, name: str = "f") -> ir.Module:
    """A module holding `func.func @name` whose body is `body(*args)`.

    `body` returns the value(s) to return (results of the ops it builds).
    """
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        func.FuncOp.from_py_func(*[tensor(s) for s in arg_specs], name=name)(body)
    return module


def func_body(module: ir.Module, index: int = 0) -> list[ir.OpView]:
    """The operations of the body of the `index`-th function of `module`."""
    fn = module.body.operations[index]
    return list(fn.regions[0].blocks[0].operations)


def reparse(module: ir.Module, ctx: ir.Context, generic: bool = False) -> ir.Module:
    """Print `module` (pretty or generic) and parse it again."""
    text = module.operation.get_asm(print_generic_op_form=generic)
    return ir.Module.parse(text, ctx)


# ---------------------------------------------------------------------------
# Result-type inference: (argument types, builder, expected result types).
# Every builder omits the result type; the op infers it.
# ---------------------------------------------------------------------------

INFERENCE_CASES = {
    # Elementwise: the operands' type.
    "add_f32": (["4xf32", "4xf32"], lambda x, y: jd.AddOp(x, y), ["4xf32"]),
    "sub_ui16_0d": (["ui16", "ui16"], lambda x, y: jd.SubOp(x, y), ["ui16"]),
    "mul_i1": (["3xi1", "3xi1"], lambda x, y: jd.MulOp(x, y), ["3xi1"]),
    "shift_left_i64": (["2x2xi64", "2x2xi64"], lambda x, y: jd.ShiftLeftOp(x, y), ["2x2xi64"]),
    "atan2_bf16": (["0x3xbf16", "0x3xbf16"], lambda x, y: jd.Atan2Op(x, y), ["0x3xbf16"]),
    "exp_f16": (["2x3xf16"], lambda x: jd.ExpOp(x), ["2x3xf16"]),
    "not_ui8": (["5xui8"], lambda x: jd.NotOp(x), ["5xui8"]),
    "round_even": (["4xf64"], lambda x: jd.RoundOp(x, rounding_method=jd.RoundingMethod.ToNearestEven), ["4xf64"]),
    "stop_gradient_i1": (["i1"], lambda x: jd.StopGradientOp(x), ["i1"]),
    # is_finite and compare give i1 of the operand's shape.
    "is_finite": (["2x3xbf16"], lambda x: jd.IsFiniteOp(x), ["2x3xi1"]),
    "compare_f32": (["4xf32", "4xf32"], lambda x, y: jd.CompareOp(jd.ComparisonDirection.LT, x, y), ["4xi1"]),
    "compare_ui32_0d": (["ui32", "ui32"], lambda x, y: jd.CompareOp(jd.ComparisonDirection.GE, x, y), ["i1"]),
    # select / clamp: the type of the (non-predicate, non-bound) operand.
    "select_scalar_pred": (["i1", "2x3xf32", "2x3xf32"], lambda p, x, y: jd.SelectOp(p, x, y), ["2x3xf32"]),
    "clamp_scalar_bounds": (["i8", "4xi8", "i8"], lambda lo, x, hi: jd.ClampOp(lo, x, hi), ["4xi8"]),
    # Constant: the value's type.
    "constant": ([], lambda: jd.ConstantOp(
        ir.DenseElementsAttr.get_splat(tensor("2x2xf32"), ir.FloatAttr.get_f32(1.5))), ["2x2xf32"]),
    # Result dim i is operand dim perm[i]: 2x3x4 with [1, 2, 0] -> 3x4x2.
    "transpose": (["2x3x4xi8"], lambda x: jd.TransposeOp(x, [1, 2, 0]), ["3x4x2xi8"]),
    "transpose_2d": (["2x3xf32"], lambda x: jd.TransposeOp(x, [1, 0]), ["3x2xf32"]),
    "reverse": (["2x3xf32"], lambda x: jd.ReverseOp(x, [0]), ["2x3xf32"]),
    # ceil((limit - start) / stride) per dim: (8-1)/3 -> 3, (6-0)/4 -> 2.
    "slice_strided": (["10x6xf32"], lambda x: jd.SliceOp(x, [1, 0], [8, 6], [3, 4]), ["3x2xf32"]),
    "dynamic_slice": (["4x4xf32", "i32", "ui8"], lambda x, i, j: jd.DynamicSliceOp(x, [i, j], [1, 2]), ["1x2xf32"]),
    "dynamic_update_slice": (["4x4xf32", "1x2xf32", "i32", "i32"],
                             lambda x, u, i, j: jd.DynamicUpdateSliceOp(x, u, [i, j]), ["4x4xf32"]),
    "concatenate": (["2x1xi32", "2x0xi32", "2x4xi32"],
                    lambda a, b, c: jd.ConcatenateOp([a, b, c], 1), ["2x5xi32"]),
    # low + high + size + (size - 1) * interior: -1 + 0 + 4 = 3; 2 - 1 + 5 + 4 * 2 = 14.
    "pad": (["4x5xi32", "i32"], lambda x, v: jd.PadOp(x, v, [-1, 2], [0, -1], [0, 2]), ["3x14xi32"]),
    "squeeze": (["1x3x1xf32"], lambda x: jd.SqueezeOp(x, [0, 2]), ["3xf32"]),
    "expand_dims": (["3xf32"], lambda x: jd.ExpandDimsOp(x, [0, 2]), ["1x3x1xf32"]),
    # x[idx] rows: batch [2], offsets [3] -> 2x3.
    "gather": (["5x3xf32", "2x1xi32"], lambda x, i: jd.GatherOp(x, i, [1], [0], [0], 1, [1, 3]), ["2x3xf32"]),
    # batch [2, 3]; offset sizes [8, 2] at result dims 0 and 3 -> 8x2x3x2.
    "gather_windows": (["8x6xi16", "2x3x1xui32"],
                       lambda x, i: jd.GatherOp(x, i, [0, 3], [], [1], 2, [8, 2]), ["8x2x3x2xi16"]),
    # reduce removes the reduced dims.
    "reduce_sum": (["2x3x4xf32"], lambda x: jd.ReduceOp(jd.ReduceKind.Sum, x, [0, 2]), ["3xf32"]),
    "reduce_all_dims": (["2x3xi1"], lambda x: jd.ReduceOp(jd.ReduceKind.And, x, [0, 1]), ["i1"]),
    "cumulative": (["5xf32"], lambda x: jd.CumulativeOp(jd.CumulativeKind.Sum, x, 0, reverse=True), ["5xf32"]),
    "sort_two": (["5xf32", "5xi32"], lambda k, v: jd.SortOp([k, v], 0, num_keys=1, is_stable=True),
                 ["5xf32", "5xi32"]),
    # batch dims, then free lhs dims, then free rhs dims.
    "dot_matmul": (["2x3xf32", "3x4xf32"], lambda a, b: jd.DotGeneralOp(a, b, [], [], [1], [0]), ["2x4xf32"]),
    "dot_batched": (["4x2x3xf64", "4x3x5xf64"],
                    lambda a, b: jd.DotGeneralOp(a, b, [0], [0], [2], [1]), ["4x2x5xf64"]),
    "dot_batch_inner": (["3x8x2xf16", "2x8x5xf16"],
                        lambda a, b: jd.DotGeneralOp(a, b, [1], [1], [2], [0]), ["8x3x5xf16"]),
    "dot_vector": (["3xi32", "3xi32"], lambda a, b: jd.DotGeneralOp(a, b, [], [], [0], [0]), ["i32"]),
    # NHWC/HWIO/NHWC: H (9+2-5)/2+1 = 4, W (10+2-3)/3+1 = 4 -> 2x4x4x8.
    "conv_nhwc": (["2x9x10x3xf32", "3x3x3x8xf32"], lambda x, w: jd.ConvGeneralDilatedOp(
        x, w, [2, 3], [1, 1, 2, 0], [1, 1], [2, 1], [0, 3, 1, 2], [3, 2, 0, 1], [0, 3, 1, 2],
        feature_group_count=1, batch_group_count=1), ["2x4x4x8xf32"]),
    # depthwise: 4 groups -> 1x8x3x3.
    "conv_groups": (["1x4x5x5xf32", "8x1x3x3xf32"], lambda x, w: jd.ConvGeneralDilatedOp(
        x, w, [1, 1], [0, 0, 0, 0], [1, 1], [1, 1], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3],
        feature_group_count=4, batch_group_count=1), ["1x8x3x3xf32"]),
    "threefry": (["ui32", "ui32", "4xui32", "4xui32"],
                 lambda k0, k1, x0, x1: jd.Threefry2x32Op(k0, k1, x0, x1), ["4xui32", "4xui32"]),
    "psum": (["4xf32"], lambda x: jd.PsumOp(x, ["i"]), ["4xf32"]),
    "all_gather": (["3xf32"], lambda x: jd.AllGatherOp(x, ["i"], 1, 4), ["3x4xf32"]),
    "all_gather_tiled": (["2x3xf32"], lambda x: jd.AllGatherOp(x, ["i"], 1, 4, tiled=True), ["2x12xf32"]),
    "all_to_all": (["4x3xf32"], lambda x: jd.AllToAllOp(x, ["i"], 0, 1, 2), ["2x6xf32"]),
    "ppermute": (["3xf32"], lambda x: jd.PpermuteOp(x, ["i"], [0, 1, 1, 0]), ["3xf32"]),
}


@pytest.mark.parametrize("case", sorted(INFERENCE_CASES))
def test_result_type_inference(case: str, ctx: ir.Context, loc) -> None:
    arg_specs, make_op, expected = INFERENCE_CASES[case]
    built = []

    def body(*args):
        op = make_op(*args)
        built.append(op)
        return list(op.results)

    module = build_func(arg_specs, body)
    (op,) = built
    assert [str(r.type) for r in op.results] == [f"tensor<{s}>" for s in expected]
    assert module.operation.verify()
    # The generic form parses back to the same module (the custom forms are
    # round-tripped by tests/lit/dialect).
    assert str(reparse(module, ctx, generic=True)) == str(module)


# Attributes with a default (sort's num_keys, conv's group counts) may be left
# out of the builder call. Run in a child process: a crash must fail this test,
# not end the pytest process.
OMITTED_DEFAULTS = {
    "sort_num_keys": (["5xf32"], "jd.SortOp([x], 0)"),
    "conv_group_counts": (["1x3x8x8xf32", "4x3x3x3xf32"], "jd.ConvGeneralDilatedOp(x, w, "
                          "[1, 1], [0, 0, 0, 0], [1, 1], [1, 1], [0, 1, 2, 3], [0, 1, 2, 3], "
                          "[0, 1, 2, 3])"),
}


@pytest.mark.parametrize("case", sorted(OMITTED_DEFAULTS))
def test_default_valued_attributes_may_be_omitted(case: str) -> None:
    arg_specs, call = OMITTED_DEFAULTS[case]
    names = ", ".join(["x", "w"][: len(arg_specs)])
    types = ", ".join(f'ir.Type.parse("tensor<{s}>")' for s in arg_specs)
    script = textwrap.dedent(f"""
        import mlir.ir as ir
        from mlir.dialects import func
        import jaxc.dialect as jd
        with jd.make_context(), ir.Location.unknown():
            module = ir.Module.create()
            with ir.InsertionPoint(module.body):
                @func.FuncOp.from_py_func({types})
                def f({names}):
                    return list({call}.results)
            assert module.operation.verify()
            print(module)
        """)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, (
        f"building {call} without its defaulted attributes failed (exit status "
        f"{child.returncode}; negative: killed by that signal):\n{child.stderr[-2000:]}")


def test_printed_ops(ctx: ir.Context, loc) -> None:
    def body(x, y, a, b):
        s = jd.AddOp(x, y)
        c = jd.CompareOp(jd.ComparisonDirection.LT, s.result, y)
        t = jd.TransposeOp(a, [1, 0])
        d = jd.DotGeneralOp(a, b, [], [], [1], [0])
        r = jd.ReduceOp(jd.ReduceKind.Max, d.result, [1])
        return s.result, c.result, t.result, r.result

    module = build_func(["4xf32", "4xf32", "2x3xf32", "3x5xf32"], body, name="printed")
    assert module.operation.verify()
    text = str(module)
    assert "func.func @printed(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2x3xf32>, " \
           "%arg3: tensor<3x5xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<3x2xf32>, tensor<2xf32>)" in text
    for line in [
        "%0 = jaxc.add %arg0, %arg1 : tensor<4xf32>",
        "%1 = jaxc.compare lt, %0, %arg1 : tensor<4xf32>",
        "%2 = jaxc.transpose %arg2, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>",
        "%3 = jaxc.dot_general %arg2, %arg3, batch = [] x [], contract = [1] x [0] "
        ": (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>",
        "%4 = jaxc.reduce max %3, dims = [1] : tensor<2x5xf32> -> tensor<2xf32>",
        "return %0, %1, %2, %4 : tensor<4xf32>, tensor<4xi1>, tensor<3x2xf32>, tensor<2xf32>",
    ]:
        assert line in text, f"{line!r} not in:\n{text}"


def test_explicit_result_types(ctx: ir.Context, loc) -> None:
    """Ops whose result type is not inferred take it first."""

    def body(x, key, h):
        c = jd.ConvertOp(tensor("2x3xi32"), x)
        b = jd.BitcastConvertOp(tensor("2x3x2xui16"), x)
        r = jd.ReshapeOp(tensor("6xf32"), x)
        bc = jd.BroadcastInDimOp(tensor("4x2x3xf32"), x, [1, 2])
        i = jd.IotaOp(tensor("2x3xf32"), 1)
        am = jd.ArgMaxOp(tensor("2xi32"), x, 1)
        an = jd.ArgMinOp(tensor("3xui64"), x, 0)
        rb = jd.RandomBitsOp(tensor("3x4xui8"), key)
        ai = jd.AxisIndexOp(tensor("i32"), "i")
        w = jd.BitcastConvertOp(tensor("f32"), h)
        return [op.result for op in (c, b, r, bc, i, am, an, rb, ai, w)]

    module = build_func(["2x3xf32", "2xui32", "2xf16"], body)
    assert module.operation.verify()
    text = str(module)
    for line in [
        "jaxc.convert %arg0 : tensor<2x3xf32> -> tensor<2x3xi32>",
        "jaxc.bitcast_convert %arg0 : tensor<2x3xf32> -> tensor<2x3x2xui16>",
        "jaxc.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>",
        "jaxc.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>",
        "jaxc.iota dim = 1 : tensor<2x3xf32>",
        "jaxc.argmax %arg0, axis = 1 : tensor<2x3xf32> -> tensor<2xi32>",
        "jaxc.argmin %arg0, axis = 0 : tensor<2x3xf32> -> tensor<3xui64>",
        "jaxc.random_bits %arg1 : tensor<2xui32> -> tensor<3x4xui8>",
        'jaxc.axis_index "i" : tensor<i32>',
        "jaxc.bitcast_convert %arg2 : tensor<2xf16> -> tensor<f32>",
    ]:
        assert line in text, f"{line!r} not in:\n{text}"
    assert str(reparse(module, ctx)) == text


def test_preferred_element_type(ctx: ir.Context, loc) -> None:
    """dot_general infers the lhs element type; a given (preferred) one is kept."""

    def body(a, b):
        inferred = jd.DotGeneralOp(a, b, [], [], [1], [0])
        preferred = jd.DotGeneralOp(a, b, [], [], [1], [0], results=[tensor("2x4xf32")])
        return inferred.result, preferred.result

    module = build_func(["2x3xbf16", "3x4xbf16"], body)
    fn_type = module.body.operations[0].type
    assert [str(t) for t in fn_type.results] == ["tensor<2x4xbf16>", "tensor<2x4xf32>"]
    assert module.operation.verify()
    assert "-> tensor<2x4xf32>" in str(reparse(module, ctx))


def test_region_ops_from_python(ctx: ir.Context, loc) -> None:
    """while, cond, scan and scatter built with their regions and yields."""
    i32, f32 = tensor("i32"), tensor("f32")

    def body(n, x, xs, m, idx, upd):
        loop = jd.WhileOp([i32], [n])
        cond_block = loop.cond.blocks.append(i32)
        with ir.InsertionPoint(cond_block):
            ten = jd.ConstantOp(ir.DenseElementsAttr.get_splat(i32, ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), 10)))
            lt = jd.CompareOp(jd.ComparisonDirection.LT, cond_block.arguments[0], ten.result)
            jd.YieldOp([lt.result])
        body_block = loop.body.blocks.append(i32)
        with ir.InsertionPoint(body_block):
            jd.YieldOp([body_block.arguments[0]])

        pred = jd.CompareOp(jd.ComparisonDirection.GT, x, x)
        branch = jd.CondOp([f32], pred.result, [x], 2)
        for region, make in zip(branch.branches, [jd.NegOp, jd.SinOp]):
            block = region.blocks.append(f32)
            with ir.InsertionPoint(block):
                jd.YieldOp([make(block.arguments[0]).result])

        scan = jd.ScanOp([f32, tensor("5xf32")], [x], [xs], 5, reverse=True)
        scan_block = scan.body.blocks.append(f32, f32)
        with ir.InsertionPoint(scan_block):
            s = jd.AddOp(*scan_block.arguments)
            jd.YieldOp([s.result, s.result])

        scatter = jd.ScatterOp(tensor("5x3xf32"), m, idx, upd, [1], [0], [0], 1,
                               unique_indices=True)
        combine = scatter.update_computation.blocks.append(f32, f32)
        with ir.InsertionPoint(combine):
            jd.YieldOp([jd.MaxOp(*combine.arguments).result])
        return [loop.results[0], branch.results[0], *scan.results, scatter.result]

    module = build_func(["i32", "f32", "5xf32", "5x3xf32", "2x1xi32", "2x3xf32"], body)
    assert module.operation.verify(), str(module)
    text = str(module)
    assert "jaxc.while(%arg0 : tensor<i32>) cond {" in text
    assert "jaxc.cond %" in text and "} do {" in text
    assert "length = 5 reverse" in text
    assert "unique_indices" in text
    assert str(reparse(module, ctx, generic=True)) == text


def test_request_ops_from_python(ctx: ir.Context, loc) -> None:
    """jvp / vjp / vmap name a function of the same module and verify against it."""
    f32, vec = tensor("f32"), tensor("8xf32")
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        @func.FuncOp.from_py_func(f32, name="f")
        def f(x):
            return jd.SinOp(x).result

        @func.FuncOp.from_py_func(f32, f32, vec, name="use")
        def use(x, t, xs):
            jvp = jd.JvpOp([f32, f32], "f", [x], [t])
            vjp = jd.VjpOp([f32, f32], "f", [x], [t])
            vmap = jd.VmapOp([vec], "f", [xs], [0], [0], 8, axis_name="i")
            return [*jvp.results, *vjp.results, vmap.results[0]]

    assert module.operation.verify(), str(module)
    text = str(module)
    assert "jaxc.jvp @f(%arg0) tangents(%arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)" in text
    assert 'jaxc.vmap @f(%arg2) in_axes = [0] out_axes = [0] axis_size = 8 axis_name = "i" ' \
           ": (tensor<8xf32>) -> tensor<8xf32>" in text
    assert str(reparse(module, ctx)) == text


# ---------------------------------------------------------------------------
# Parsing returns the typed classes.
# ---------------------------------------------------------------------------

PARSED = """
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>, %a: tensor<2x3xf32>) -> tensor<4xi1> {
  %e = jaxc.exp %x : tensor<4xf32>
  %s = jaxc.add %e, %y : tensor<4xf32>
  %c = jaxc.compare ge, %s, %y : tensor<4xf32>
  %t = jaxc.transpose %a, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = jaxc.reduce prod %t, dims = [0] : tensor<3x2xf32> -> tensor<2xf32>
  %d = jaxc.round %x, to_nearest_even : tensor<4xf32>
  return %c : tensor<4xi1>
}
"""


def test_parsed_ops_are_typed(ctx: ir.Context, loc) -> None:
    module = ir.Module.parse(PARSED, ctx)
    assert module.operation.verify()
    exp, add, cmp, transpose, reduce, rnd, ret = func_body(module)
    assert isinstance(exp, jd.ExpOp)
    assert isinstance(add, jd.AddOp)
    assert isinstance(cmp, jd.CompareOp)
    assert isinstance(transpose, jd.TransposeOp)
    assert isinstance(reduce, jd.ReduceOp)
    assert isinstance(rnd, jd.RoundOp)
    assert not isinstance(ret, jd.AddOp)
    # Operand accessors name the ODS operands.
    assert add.lhs == exp.result
    assert add.rhs == module.body.operations[0].regions[0].blocks[0].arguments[1]
    assert cmp.lhs == add.result
    assert str(cmp.result.type) == "tensor<4xi1>"
    # Attribute accessors.
    assert list(transpose.permutation) == [1, 0]
    assert list(reduce.dimensions) == [0]
    assert str(transpose.result.type) == "tensor<3x2xf32>"
    assert int(ir.IntegerAttr(cmp.comparison_direction)) == int(jd.ComparisonDirection.GE)
    assert int(ir.IntegerAttr(reduce.kind)) == int(jd.ReduceKind.Prod)
    assert int(ir.IntegerAttr(rnd.rounding_method)) == int(jd.RoundingMethod.ToNearestEven)


def test_op_names_match_classes(ctx: ir.Context, loc) -> None:
    module = ir.Module.parse(PARSED, ctx)
    for op in func_body(module)[:-1]:
        assert op.operation.name == type(op).OPERATION_NAME


# ---------------------------------------------------------------------------
# Inference failures raise, naming the operands and their types.
# ---------------------------------------------------------------------------

def _error_text(excinfo: pytest.ExceptionInfo) -> str:
    error = excinfo.value
    parts = [str(error)]
    parts += [str(d) for d in getattr(error, "error_diagnostics", [])]
    return "\n".join(parts)


def test_add_type_mismatch_names_operand_types(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["4xf32", "2x3xf32"], lambda x, y: jd.AddOp(x, y).result)
    message = _error_text(excinfo)
    assert "jaxc.add" in message
    assert "tensor<4xf32>" in message and "tensor<2x3xf32>" in message
    assert "'lhs'" in message and "'rhs'" in message


def test_add_element_type_mismatch(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["4xf32", "4xf16"], lambda x, y: jd.AddOp(x, y).result)
    message = _error_text(excinfo)
    assert "tensor<4xf32>" in message and "tensor<4xf16>" in message


def test_compare_type_mismatch(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["4xi32", "4xui32"],
                   lambda x, y: jd.CompareOp(jd.ComparisonDirection.EQ, x, y).result)
    message = _error_text(excinfo)
    assert "jaxc.compare" in message
    assert "tensor<4xi32>" in message and "tensor<4xui32>" in message


def test_transpose_bad_permutation(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["2x3xf32"], lambda x: jd.TransposeOp(x, [0, 0]).result)
    message = _error_text(excinfo)
    assert "jaxc.transpose" in message and "permutation" in message


def test_dot_general_contracting_mismatch(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["2x3xf32", "4x5xf32"],
                   lambda a, b: jd.DotGeneralOp(a, b, [], [], [1], [0]).result)
    message = _error_text(excinfo)
    assert "jaxc.dot_general" in message
    assert "tensor<2x3xf32>" in message and "tensor<4x5xf32>" in message


def test_reduce_dimension_out_of_range(ctx: ir.Context, loc) -> None:
    with pytest.raises(ir.MLIRError) as excinfo:
        build_func(["2x3xf32"], lambda x: jd.ReduceOp(jd.ReduceKind.Sum, x, [2]).result)
    message = _error_text(excinfo)
    assert "jaxc.reduce" in message and "dimensions" in message


def test_verifier_error_on_explicit_wrong_result(ctx: ir.Context, loc) -> None:
    """An explicit result type that contradicts inference fails to verify."""
    module = build_func(["2x3xf32"], lambda x: jd.TransposeOp(
        x, [1, 0], results=[tensor("2x3xf32")]).result)
    with pytest.raises(ir.MLIRError) as excinfo:
        module.operation.verify()
    assert "jaxc.transpose" in _error_text(excinfo)
