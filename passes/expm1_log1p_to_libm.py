"""`jaxc-expm1-log1p-to-libm`: call libm's `expm1`/`log1p` instead of the
inexact formulas of `convert-math-to-llvm`.

Upstream `convert-math-to-llvm` lowers `math.expm1` to `exp(x) - 1` and (by
default) `math.log1p` to `log(1 + x)`, which lose every digit for |x| near
1e-8; `convert-math-to-libm` would call the exact libm functions but insists
on converting *every* math op (it fails on `math.ctpop`). The `llvm` stage
therefore runs this pass first: it rewrites just these two ops on f32/f64
scalars into calls of `expm1f`/`expm1`/`log1pf`/`log1p`, declared private in
the module::

    %y = math.expm1 %x : f32
    // becomes
    %y = call @expm1f(%x) : (f32) -> f32
    func.func private @expm1f(f32) -> f32 attributes {llvm.readnone}

Other element types (f16, bf16) are widened to f32 beforehand by
`math-extend-to-supported-types`; vector operands are left alone.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func
from mlir.passmanager import ExternalPass

from .ir import ops_named
from .registry import register_pass

# (op name, element type) -> libm function
LIBM = {
    ("math.expm1", "f32"): "expm1f", ("math.expm1", "f64"): "expm1",
    ("math.log1p", "f32"): "log1pf", ("math.log1p", "f64"): "log1p",
}


@register_pass("jaxc-expm1-log1p-to-libm",
               "rewrite math.expm1/math.log1p on f32/f64 into exact libm calls",
               op_name="builtin.module")
def expm1_log1p_to_libm(op: ir.Operation, pass_: ExternalPass) -> None:
    """Replace each scalar f32/f64 `math.expm1`/`math.log1p` under the module
    `op` by a call to libm, declaring the callee once."""
    found = ops_named(op, ("math.expm1", "math.log1p"))
    if not found:
        return
    declared = {ir.StringAttr(o.attributes["sym_name"]).value
                for o in op.regions[0].blocks[0].operations if "sym_name" in o.attributes}
    module_body = op.regions[0].blocks[0]
    for math_op in found:
        type_ = math_op.results[0].type
        name = LIBM.get((math_op.name, str(type_)))
        if name is None:
            continue
        if name not in declared:
            with ir.InsertionPoint.at_block_begin(module_body), op.location:
                decl = func.FuncOp(name, ir.FunctionType.get([type_], [type_]), visibility="private")
                decl.attributes["llvm.readnone"] = ir.UnitAttr.get()
            declared.add(name)
        with ir.InsertionPoint(math_op), math_op.location:
            call = func.CallOp([type_], ir.FlatSymbolRefAttr.get(name), [math_op.operands[0]])
        math_op.results[0].replace_all_uses_with(call.results[0])
        math_op.erase()
