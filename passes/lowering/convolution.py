"""Lowering rule for `jaxc.conv_general_dilated` (lax.conv_general_dilated).

Two steps:

1. Pad and dilate the lhs spatial dimensions (as `pad` does): a zero-filled
   tensor, the lhs inserted with stride lhs_dilation at max(low, 0), then a
   crop of what negative padding removes.
2. One linalg.generic over (result dims..., input feature in group, kernel
   spatial dims...), the last ones reductions:

       out[n, o, y...] += lhs_p[batch(n, o), feature(o, c), y*stride + k*rhs_dilation]
                          * rhs[o, c, k...]

   with, as the StableHLO spec splits lhs and rhs into contiguous groups,
       feature(o, c) = (o floordiv (O/G)) * (C/G) + c     (G = feature_group_count)
       batch(n, o)   = (o floordiv (O/B)) * (N/B) + n     (B = batch_group_count)

Both operands are converted to the result (preferred) element type before
multiplying, and the sum accumulates in it, as `dot_general` does.
"""
from __future__ import annotations

from mlir import ir

from .common import element_type, empty, filled, generic, padded, scalar_const, shape_of
from .elementwise import BINARY, _convert_scalar, scalar_rule


def _array(op, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _int(op, name: str, default: int = 1) -> int:
    if name not in op.attributes:
        return default
    return ir.IntegerAttr(op.attributes[name]).value


def _const(value: int) -> ir.AffineExpr:
    return ir.AffineConstantExpr.get(value)


def _pad_lhs(lhs: ir.Value, t: ir.Type, spatial_dims: list[int], padding: list[int],
             lhs_dilation: list[int]) -> ir.Value:
    """lhs with zero edge padding (negative crops) and interior padding
    lhs_dilation - 1 on its spatial dimensions."""
    rank = len(shape_of(lhs))
    low, high, interior = [0] * rank, [0] * rank, [0] * rank
    for i, d in enumerate(spatial_dims):
        low[d], high[d], interior[d] = padding[2 * i], padding[2 * i + 1], lhs_dilation[i] - 1
    if not any(low) and not any(high) and not any(interior):
        return lhs
    return padded(lhs, t, scalar_const(t, 0), low, high, interior)


def conv_general_dilated(op: ir.Operation, elements: list[ir.Type]) -> list[ir.Value]:
    lhs, rhs = op.operands
    result_type = op.results[0].type
    out_shape = shape_of(result_type)
    src, dst = elements[0], element_type(result_type)
    ls, rs, os_ = (_array(op, n) for n in ("lhs_spec", "rhs_spec", "out_spec"))
    strides = _array(op, "window_strides")
    padding = _array(op, "padding")
    lhs_dilation = _array(op, "lhs_dilation")
    rhs_dilation = _array(op, "rhs_dilation")
    groups = _int(op, "feature_group_count")
    batch_groups = _int(op, "batch_group_count")
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    rank = len(lhs_shape)
    n_spatial = rank - 2

    if 0 in out_shape:
        return [empty(out_shape, dst)]
    kernel_in = rhs_shape[rs[1]]
    kernel_spatial = [rhs_shape[rs[2 + i]] for i in range(n_spatial)]
    if kernel_in == 0 or 0 in kernel_spatial:  # an empty sum
        return [filled(out_shape, dst, scalar_const(dst, 0))]

    padded = _pad_lhs(lhs, src, ls[2:], padding, lhs_dilation)

    # Loops: result dims (in result order), then c in group, then kernel spatial.
    loops = rank + 1 + n_spatial
    dim = ir.AffineDimExpr.get
    batch_loop, feature_loop = dim(os_[0]), dim(os_[1])
    c_loop = dim(rank)
    out_features = rhs_shape[rs[0]]
    batch = lhs_shape[ls[0]]

    lhs_exprs: list[ir.AffineExpr | None] = [None] * rank
    if batch_groups > 1:
        group = ir.AffineFloorDivExpr.get(feature_loop, _const(out_features // batch_groups))
        lhs_exprs[ls[0]] = group * (batch // batch_groups) + batch_loop
    else:
        lhs_exprs[ls[0]] = batch_loop
    if groups > 1:
        group = ir.AffineFloorDivExpr.get(feature_loop, _const(out_features // groups))
        lhs_exprs[ls[1]] = group * kernel_in + c_loop
    else:
        lhs_exprs[ls[1]] = c_loop
    for i in range(n_spatial):
        k_loop = dim(rank + 1 + i)
        lhs_exprs[ls[2 + i]] = dim(os_[2 + i]) * strides[i] + k_loop * rhs_dilation[i]

    rhs_dims = [0] * rank
    rhs_dims[rs[0]] = os_[1]
    rhs_dims[rs[1]] = rank
    for i in range(n_spatial):
        rhs_dims[rs[2 + i]] = rank + 1 + i

    maps = [ir.AffineMap.get(loops, 0, lhs_exprs),
            ir.AffineMap.get(loops, 0, [dim(d) for d in rhs_dims]),
            ir.AffineMap.get(loops, 0, [dim(d) for d in range(rank)])]
    iterators = ["parallel"] * rank + ["reduction"] * (1 + n_spatial)
    add, mul = scalar_rule(BINARY["jaxc.add"], dst), scalar_rule(BINARY["jaxc.mul"], dst)
    init = filled(out_shape, dst, scalar_const(dst, 0))

    def body(a, b, acc):
        a, b = _convert_scalar(src, dst, a), _convert_scalar(src, dst, b)
        return [add(dst, acc, mul(dst, a, b))]
    return generic([result_type], [padded, rhs], maps, iterators, body, inits=[init])


RULES = {
    "jaxc.conv_general_dilated": conv_general_dilated,
}
