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

Where a kernel of our own is faster at the same or better accuracy, the
pieces call it instead: `math.exp` on f32 with AVX-512 calls
`@jaxc_expf_avx512` (`OWN_KERNELS`), defined in the module as MLIR ops and
inlined by LLVM.
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


# exp(x) = 2^n e^r with n = round(x log2 e), r = x - n ln 2 in two FMAs (ln 2's
# high part has few bits), e^r a degree-7 polynomial (Cephes' expf
# coefficients, in Horner form), 2^n applied by AVX-512's vscalefps, which
# also overflows to inf and underflows to 0 as exp does. Out of range inputs
# (+-inf among them: r would be inf - inf) are selected. 0.86 ulp against
# float64 over -104 ... 89 (libmvec's _ZGVeN16v_expf: 2.4); inlined, 17 vector
# instructions per 16 lanes and no call (libmvec's spills the loop's live
# vectors): a row softmax of 4096 x 1024 took 1.31 ms instead of 1.41
# (docs/performance.md).
EXPF_AVX512 = """
func.func private @jaxc_expf_avx512(%x: vector<16xf32>) -> vector<16xf32>
    attributes {llvm.linkage = #llvm.linkage<internal>} {
  %log2e = arith.constant dense<1.44269502> : vector<16xf32>
  %minus_ln2_hi = arith.constant dense<-0.693359375> : vector<16xf32>
  %minus_ln2_lo = arith.constant dense<2.12194440e-04> : vector<16xf32>
  %p7 = arith.constant dense<1.98756915e-04> : vector<16xf32>
  %p6 = arith.constant dense<1.39819994e-03> : vector<16xf32>
  %p5 = arith.constant dense<8.33345205e-03> : vector<16xf32>
  %p4 = arith.constant dense<4.16657962e-02> : vector<16xf32>
  %p3 = arith.constant dense<1.66666657e-01> : vector<16xf32>
  %p2 = arith.constant dense<5.00000012e-01> : vector<16xf32>
  %one = arith.constant dense<1.0> : vector<16xf32>
  %largest = arith.constant dense<88.7228394> : vector<16xf32>
  %smallest = arith.constant dense<-103.972084> : vector<16xf32>
  %inf = arith.constant dense<0x7F800000> : vector<16xf32>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %every_lane = arith.constant -1 : i16
  %current_rounding = arith.constant 4 : i32
  %t = arith.mulf %x, %log2e : vector<16xf32>
  %n = math.roundeven %t : vector<16xf32>
  %r_hi = math.fma %n, %minus_ln2_hi, %x : vector<16xf32>
  %r = math.fma %n, %minus_ln2_lo, %r_hi : vector<16xf32>
  %q6 = math.fma %p7, %r, %p6 : vector<16xf32>
  %q5 = math.fma %q6, %r, %p5 : vector<16xf32>
  %q4 = math.fma %q5, %r, %p4 : vector<16xf32>
  %q3 = math.fma %q4, %r, %p3 : vector<16xf32>
  %q2 = math.fma %q3, %r, %p2 : vector<16xf32>
  %q1 = math.fma %q2, %r, %one : vector<16xf32>
  %exp_r = math.fma %q1, %r, %one : vector<16xf32>
  // exp_r * 2^n (the operands: value, exponent, then the masked-off lanes' value)
  %scaled = x86vector.avx512.mask.scalef %exp_r, %n, %exp_r, %every_lane, %current_rounding : vector<16xf32>
  %over = arith.cmpf ogt, %x, %largest : vector<16xf32>
  %under = arith.cmpf olt, %x, %smallest : vector<16xf32>
  %capped = arith.select %over, %inf, %scaled : vector<16xi1>, vector<16xf32>
  %y = arith.select %under, %zero, %capped : vector<16xi1>, vector<16xf32>
  return %y : vector<16xf32>
}
"""

# (libmvec base name, element type, vector bits) -> (symbol, lanes, definition)
# of our own kernel, called instead of libmvec's.
OWN_KERNELS: dict[tuple[str, str, int], tuple[str, int, str]] = {
    ("exp", "f32", 512): ("jaxc_expf_avx512", 16, EXPF_AVX512),
}


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
    own = OWN_KERNELS.get((base, element, bits))
    named = own[:2] if own else libmvec_name(base, element, bits)
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
        if own:
            _define(own[2], module_body)
        else:
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


def _define(text: str, module_body: ir.Block) -> None:
    """Put the function defined by `text` at the start of the module."""
    parsed = ir.Module.parse(text)
    definition = parsed.body.operations[0].detach_from_parent()
    ir.InsertionPoint.at_block_begin(module_body).insert(definition)
