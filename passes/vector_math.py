"""`jaxc-vector-math-to-libmvec`: vector math ops become calls of glibc's
libmvec (the AVX2 ``_ZGVdN8v_*`` / AVX-512 ``_ZGVeN16v_*`` entry points).

Upstream lowers a `math.sin` on a vector to one scalar libm call per lane
(`convert-math-to-libm`); libmvec computes 8 or 16 lanes at once, at 1-4 ulp
(docs/performance.md has the measured error of every function). A vector
longer than the register is cut into register-wide pieces; a 2-D vector goes
through `vector.shape_cast`. Other element types and ops stay as they are.

Before (AVX2)::

    %y = math.sin %x : vector<16xf32>

After::

    %a = vector.extract_strided_slice %x {offsets = [0], sizes = [8], strides = [1]} : ...
    %s0 = call @_ZGVdN8v_sinf(%a) : (vector<8xf32>) -> vector<8xf32>
    ... (the second half) ...
    %y = vector.insert_strided_slice %s1, %t {offsets = [8], strides = [1]} : ...
    func.func private @_ZGVdN8v_sinf(vector<8xf32>) -> vector<8xf32>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func, vector
from mlir.passmanager import ExternalPass

from . import host
from .ir import ops_where
from .registry import register_pass

# math op -> libmvec base name (f64; f32 adds "f") and its number of operands.
FUNCTIONS: dict[str, tuple[str, int]] = {
    "math.sin": ("sin", 1), "math.cos": ("cos", 1), "math.tan": ("tan", 1),
    "math.asin": ("asin", 1), "math.acos": ("acos", 1), "math.atan": ("atan", 1),
    "math.sinh": ("sinh", 1), "math.cosh": ("cosh", 1), "math.tanh": ("tanh", 1),
    "math.asinh": ("asinh", 1), "math.acosh": ("acosh", 1), "math.atanh": ("atanh", 1),
    "math.exp": ("exp", 1), "math.exp2": ("exp2", 1), "math.expm1": ("expm1", 1),
    "math.log": ("log", 1), "math.log2": ("log2", 1), "math.log10": ("log10", 1),
    "math.log1p": ("log1p", 1), "math.cbrt": ("cbrt", 1), "math.erf": ("erf", 1),
    "math.atan2": ("atan2", 2), "math.powf": ("pow", 2),
}

# vector register bits -> (ISA letter of the vector ABI, lanes of f32, lanes of f64)
ISAS = {256: ("d", 8, 4), 512: ("e", 16, 8)}


def libmvec_name(base: str, element: str, vector_bits: int) -> tuple[str, int] | None:
    """The libmvec symbol and its lane count for `base` on `element` (f32/f64)."""
    if vector_bits not in ISAS or element not in ("f32", "f64"):
        return None
    letter, lanes32, lanes64 = ISAS[vector_bits]
    lanes = lanes32 if element == "f32" else lanes64
    arity = dict(FUNCTIONS.values()).get(base)
    if arity is None:
        return None
    suffix = "f" if element == "f32" else ""
    return f"_ZGV{letter}N{lanes}{'v' * arity}_{base}{suffix}", lanes


@register_pass("jaxc-vector-math-to-libmvec", "vector math ops become calls of glibc's libmvec",
               op_name="builtin.module")
def vector_math_to_libmvec(op: ir.Operation, pass_: ExternalPass, *, vector_bits: int = 0) -> None:
    bits = vector_bits or host.target().vector_bits
    found = ops_where(op, lambda child: child.name in FUNCTIONS and isinstance(child.results[0].type, ir.VectorType))
    body = op.regions[0].blocks[0]
    declared = {ir.StringAttr(o.attributes["sym_name"]).value
                for o in body.operations if "sym_name" in o.attributes}
    with op.context, op.location:
        for math_op in found:
            _rewrite(math_op, bits, body, declared)


def _rewrite(math_op: ir.Operation, bits: int, module_body: ir.Block, declared: set[str]) -> None:
    vtype = ir.VectorType(math_op.results[0].type)
    element = str(vtype.element_type)
    base, arity = FUNCTIONS[math_op.name]
    named = libmvec_name(base, element, bits)
    if named is None:
        return
    symbol, lanes = named
    total = 1
    for d in vtype.shape:
        total *= d
    if total % lanes or vtype.scalable:
        return
    piece_type = ir.VectorType.get([lanes], vtype.element_type)
    flat_type = ir.VectorType.get([total], vtype.element_type)
    if symbol not in declared:
        with ir.InsertionPoint.at_block_begin(module_body), math_op.location:
            decl = func.FuncOp(symbol, ir.FunctionType.get([piece_type] * arity, [piece_type]),
                               visibility="private")
            decl.attributes["llvm.readnone"] = ir.UnitAttr.get()
        declared.add(symbol)
    with ir.InsertionPoint(math_op), math_op.location:
        flat = [a if vtype.rank == 1 else vector.shape_cast(flat_type, a) for a in math_op.operands]
        result = flat[0]
        for start in range(0, total, lanes):
            args = [a if total == lanes else
                    vector.extract_strided_slice(piece_type, a, [start], [lanes], [1]) for a in flat]
            piece = func.CallOp([piece_type], ir.FlatSymbolRefAttr.get(symbol), args).results[0]
            result = piece if total == lanes else vector.insert_strided_slice(piece, result, [start], [1])
        if vtype.rank != 1:
            result = vector.shape_cast(vtype, result)
    math_op.results[0].replace_all_uses_with(result)
    math_op.erase()
