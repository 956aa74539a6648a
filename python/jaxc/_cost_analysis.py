"""`Lowered.cost_analysis()` and `Compiled.cost_analysis()`: an estimate of
a program's work, counted on its jaxc IR after the `optimized` stage
(transformations expanded). JAX's comes from XLA's HloCostAnalysis of the
optimized HLO; jaxc counts the same quantities by the same conventions:

    jit(lambda a, b: jnp.sin(a @ b)).lower(x, y).cost_analysis()   # x: 4x8, y: 8x5
    {"flops": 320.0, "transcendentals": 20.0, "bytes accessed": 496.0}

- "flops": 2·(result elements)·(contracted size) per `dot_general`, 2 per
  multiply-add of a convolution (kernel taps on padding do not count),
  one per result element of each elementwise op that is not transcendental,
  one per operand element of a reduction or cumulative op, LAPACK's counts
  for the factorizations, 5·n·log2(n) per DFT of length n;
- "transcendentals": one per result element of exp, log, sin, tanh, pow,
  sqrt, erf, ... (`TRANSCENDENTAL`);
- "bytes accessed": every op that computes or moves data reads its operands
  and writes its results once (constants, reshapes and loop plumbing cost
  nothing). Before fusion, so an upper bound of what the fused kernels
  move.

Loop bodies (`scan`, `while`) and both branches of a `cond` count once,
as XLA counts a while body once.
"""
from __future__ import annotations

import math
from typing import Callable

from mlir import ir

from .dialect.op_table import ops_in
from .passes.ir import integer, ints
from .passes.lowering.common import bit_width

TRANSCENDENTAL = frozenset(f"jaxc.{name}" for name in (
    "exp", "exp2", "expm1", "log", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
    "asinh", "acosh", "atanh", "atan2", "pow", "sqrt", "rsqrt", "cbrt", "logistic", "erf", "erf_inv", "lgamma",
    "digamma"))
# no arithmetic and no data moved: the op is a view, a value known at compile
# time, or the plumbing of a region
FREE = frozenset({"jaxc.constant", "jaxc.reshape", "jaxc.expand_dims", "jaxc.squeeze", "jaxc.yield",
                  "jaxc.stop_gradient", "jaxc.optimization_barrier", "jaxc.checkpoint_name", "jaxc.cond",
                  "jaxc.while", "jaxc.scan", "jaxc.custom_jvp_call", "jaxc.custom_vjp_call", "jaxc.remat",
                  "func.func", "func.return", "func.call", "builtin.module"})


def cost_analysis(module: ir.Module) -> dict[str, float]:
    """The estimate of `module` (jaxc IR at the `optimized` stage)."""
    totals = {"flops": 0.0, "transcendentals": 0.0, "bytes accessed": 0.0}

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if name not in FREE and name.startswith("jaxc."):
            if name in TRANSCENDENTAL:
                totals["transcendentals"] += _elements(op.results[0].type)
            else:
                rule = _FLOPS.get(name) or (_each_result_element if name in _ELEMENTWISE else None)
                if rule is not None:
                    totals["flops"] += rule(op)
            totals["bytes accessed"] += sum(_bytes(v.type) for v in [*op.operands, *op.results])
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return totals


def _elements(t: ir.Type) -> int:
    return math.prod(ir.ShapedType(t).shape) if isinstance(t, ir.ShapedType) else 1


def _bytes(t: ir.Type) -> int:
    if not isinstance(t, ir.ShapedType):
        return 0
    return _elements(t) * max(1, bit_width(ir.ShapedType(t).element_type) // 8)  # a bool is a byte


def _shape(value: ir.Value) -> list[int]:
    return list(ir.ShapedType(value.type).shape)


def _each_result_element(op: ir.Operation) -> float:
    return float(sum(_elements(r.type) for r in op.results))


def _each_operand_element(op: ir.Operation) -> float:
    return float(_elements(op.operands[0].type))


def _dot_general(op: ir.Operation) -> float:
    lhs = _shape(op.operands[0])
    contracted = math.prod(lhs[d] for d in ints(op, "lhs_contracting_dimensions"))
    return 2.0 * _elements(op.results[0].type) * contracted


def _convolution(op: ir.Operation) -> float:
    """2 x (output batch x features) x (input features of a group) x the
    kernel taps that land on input elements, not on padding or between
    dilated elements (XLA's count: a 3x3 SAME convolution of 5x5 has 169
    taps per feature pair, not 225)."""
    lhs, rhs, out = _shape(op.operands[0]), _shape(op.operands[1]), _shape(op.results[0])
    lhs_spec, rhs_spec, out_spec = (ints(op, name) for name in ("lhs_spec", "rhs_spec", "out_spec"))
    padding = ints(op, "padding")
    strides, lhs_dilation, rhs_dilation = (ints(op, name) for name in
                                           ("window_strides", "lhs_dilation", "rhs_dilation"))
    taps = 1
    for d in range(len(lhs_spec) - 2):
        size, window, positions = lhs[lhs_spec[2 + d]], rhs[rhs_spec[2 + d]], out[out_spec[2 + d]]
        extent = (size - 1) * lhs_dilation[d] + 1  # the dilated input
        taps *= sum(1 for o in range(positions) for k in range(window)
                    if 0 <= (at := o * strides[d] - padding[2 * d] + k * rhs_dilation[d]) < extent
                    and at % lhs_dilation[d] == 0)
    return 2.0 * out[out_spec[0]] * out[out_spec[1]] * rhs[rhs_spec[1]] * taps


def _dft(op: ir.Operation) -> float:
    n = _shape(op.operands[0])[integer(op, "axis")]
    transforms = _elements(op.operands[0].type) / max(n, 1)
    return 5.0 * transforms * n * math.log2(max(n, 2))


def _sort(op: ir.Operation) -> float:
    n = _shape(op.operands[0])[integer(op, "dimension")]
    return float(_elements(op.operands[0].type)) * math.ceil(math.log2(max(n, 2)))


def _matrices(op: ir.Operation, operand: int = 0) -> tuple[float, int, int]:
    """(batch, rows, columns) of a batch of matrices."""
    shape = _shape(op.operands[operand])
    return float(math.prod(shape[:-2])), shape[-2], shape[-1]


def _lapack(per_matrix: Callable[[int, int], float]) -> Callable[[ir.Operation], float]:
    def count(op: ir.Operation) -> float:
        batch, m, n = _matrices(op)
        return batch * per_matrix(m, n)
    return count


def _triangular_solve(op: ir.Operation) -> float:
    batch, n, _ = _matrices(op, 0)
    b = _shape(op.operands[1])
    right_sides = b[-1] if "left_side" in op.attributes else b[-2]
    return batch * n * n * right_sides


_ELEMENTWISE = frozenset(ops_in("unary", "binary", "elementwise")) - TRANSCENDENTAL
# op -> its flops; elementwise ops not named here count one per result element
_FLOPS: dict[str, Callable[[ir.Operation], float]] = {
    "jaxc.dot_general": _dot_general,
    "jaxc.conv_general_dilated": _convolution,
    "jaxc.reduce": _each_operand_element,
    "jaxc.cumulative": _each_operand_element,
    "jaxc.argmax": _each_operand_element,
    "jaxc.argmin": _each_operand_element,
    "jaxc.top_k": _each_operand_element,
    "jaxc.psum": _each_operand_element,
    "jaxc.pmean": _each_operand_element,
    "jaxc.pmax": _each_operand_element,
    "jaxc.pmin": _each_operand_element,
    "jaxc.scatter": lambda op: float(_elements(op.operands[2].type)),
    "jaxc.sort": _sort,
    "jaxc.dft": _dft,
    "jaxc.hermitian_dft": _dft,
    "jaxc.cholesky": _lapack(lambda m, n: n ** 3 / 3),
    "jaxc.lu": _lapack(lambda m, n: m * n * min(m, n) - (m + n) * min(m, n) ** 2 / 2 + min(m, n) ** 3 / 3),
    "jaxc.qr": _lapack(lambda m, n: 2 * m * n * n - 2 * n ** 3 / 3 if m >= n else 2 * n * m * m - 2 * m ** 3 / 3),
    "jaxc.eigh": _lapack(lambda m, n: 9 * n ** 3),
    "jaxc.svd": _lapack(lambda m, n: 4 * m * n * min(m, n) + 8 * min(m, n) ** 3),
    "jaxc.eig": _lapack(lambda m, n: 25 * n ** 3),
    "jaxc.schur": _lapack(lambda m, n: 25 * n ** 3),
    "jaxc.hessenberg": _lapack(lambda m, n: 10 * n ** 3 / 3),
    "jaxc.triangular_solve": _triangular_solve,
}
