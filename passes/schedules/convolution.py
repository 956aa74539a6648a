"""Convolutions as matrix products (im2col): a `jaxc.conv_general_dilated`
lowers to one linalg.generic whose lhs map adds loop dims (`y*stride +
k*dilation`), which no schedule tiles or vectorizes. `im2col` rewrites it,
before the kernels are numbered, into three kernels the other schedules
handle: a copy of the lhs windows into a patches matrix, a contraction
(packed and vectorized like any matrix product), and a transpose into the
result's layout (none for channels-last results).

    out[n, f, y, x] += lhs[n, c, y + i, x + j] * rhs[f, c, i, j]
    ->  patches[c, i, j, n, y, x] = lhs[n, c, y + i, x + j]        (K = c·i·j, M = n·y·x)
        prod[m, f] += patches[k, m] * rhs'[k, f]                    (rhs' = rhs as (c, i, j, f))
        out = transpose(expand_shape(prod) : n x y x x x f, [0, 3, 1, 2])

With channels last (NHWC lhs, HWIO rhs) the patches are M x K, c innermost,
and neither the rhs nor the result moves:

    patches[n, y, x, i, j, c] = lhs[n, y + i, x + j, c]
    prod[m, f] += patches[m, k] * rhs[k, f]       (out = expand_shape(prod))

The loops of the lhs (the rows: every parallel dim it reads) and of the rhs
(the columns: the parallel dims it alone reads) must be apart, every
reduction dim read by both, and the result start as a fill: feature and
batch groups (which index the lhs by the output feature) keep the direct
loops. The patches matrix costs M·K elements of memory: a 128 x 32 x 8 x 8
batch with 3 x 3 windows is 9 MB.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, tensor

from ..lowering.common import filled, generic
from .contraction import filled_with, generic_taking_body, result_of, transposed
from .kernel import Kernel, describe

MIN_FLOPS = 1 << 16  # smaller convolutions stay direct loops


def im2col(op: ir.Operation) -> bool:
    """Rewrite one convolution-shaped linalg.generic (see the module doc);
    returns whether it did. A convolution whose rhs operands' producers were
    fused into it (a kernel gradient: `linalg-fuse-elementwise-ops` puts the
    cotangent's elementwise chain in its body) is first split in two by
    `unfuse_rhs`."""
    kernel = describe(op, 0)
    if kernel is not None and kernel.n_inputs > 2:
        split = unfuse_rhs(op, kernel)
        if split is not None:
            op, kernel = split, describe(split, 0)
    if kernel is None or kernel.n_inputs != 2 or kernel.n_outputs != 1 or not kernel.reduction:
        return False
    if kernel.maps[0] is not None or kernel.maps[1] is None or kernel.maps[2] is None:
        return False  # not a sum-indexed lhs with a plain rhs and result
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    lhs_dims = sorted(_dims_of(maps[0]))
    rows = [d for d in kernel.parallel if d in lhs_dims]
    cols = [d for d in kernel.parallel if d not in lhs_dims]
    red = list(kernel.reduction)
    rhs, out = kernel.maps[1], kernel.maps[2]
    if (not rows or not cols or set(rhs) != set(cols) | set(red) or not set(red) <= set(lhs_dims)
            or sorted(out) != sorted(kernel.parallel) or len(set(rhs)) != len(rhs)):
        return False
    body = set(kernel.body_ops) - {"linalg.yield", "arith.extf", "arith.extsi", "arith.sitofp"}
    if body not in ({"arith.mulf", "arith.addf"}, {"arith.muli", "arith.addi"}):
        return False
    init_value = filled_with(op.operands[2])
    if init_value is None or 2 * kernel.size < MIN_FLOPS:
        return False
    ranges = kernel.ranges
    m, n, k = (math.prod(ranges[d] for d in ds) for ds in (rows, cols, red))
    lhs, rhs_value, init = op.operands[0], op.operands[1], op.operands[2]
    out_type = ir.RankedTensorType(init.type)
    # The patches' innermost loop is the widest loop of the lhs's last
    # (contiguous) dim, so that the copy reads and writes in order: a row dim
    # (NCHW: x) gives K x M patches (loops red + rows), a reduction dim (NHWC:
    # c; a kernel gradient's x) M x K (loops rows + red), that loop last.
    inner = max(_expr_dims(maps[0].results[-1]), key=lambda d: kernel.ranges[d], default=None)
    m_by_k = inner in red
    if inner is not None:
        if m_by_k:
            red = [d for d in red if d != inner] + [inner]
        else:
            rows = [d for d in rows if d != inner] + [inner]
    loops = rows + red if m_by_k else red + rows
    with ir.InsertionPoint(op), op.location:
        # patches: reading the lhs through its own map
        to_new = ir.AffineMap.get(len(loops), 0, [ir.AffineDimExpr.get(loops.index(d)) if d in loops
                                                  else ir.AffineConstantExpr.get(0)
                                                  for d in range(len(ranges))])
        patch_map = ir.AffineMap.get(len(loops), 0, [e.compose(to_new) for e in maps[0].results])
        lhs_element = ir.RankedTensorType(lhs.type).element_type
        patch_type = ir.RankedTensorType.get([ranges[d] for d in loops], lhs_element)
        (patches,) = generic([patch_type], [lhs], [patch_map, ir.AffineMap.get_identity(len(loops))],
                             ["parallel"] * len(loops), lambda x, _: [x])
        first = len(rows) if m_by_k else len(red)
        a = tensor.collapse_shape(ir.RankedTensorType.get([m, k] if m_by_k else [k, m], lhs_element),
                                  patches, [list(range(first)), list(range(first, len(loops)))])
        # the rhs as (red, cols), then (k, n): rows of B, as the contraction reads them
        # (HWIO kernels and NHWC cotangents are already in that order: no copy)
        b = transposed(rhs_value, [rhs.index(d) for d in red + cols])
        rhs_element = ir.RankedTensorType(b.type).element_type
        b = tensor.collapse_shape(ir.RankedTensorType.get([k, n], rhs_element), b,
                                  [list(range(len(red))), list(range(len(red), len(red) + len(cols)))])
        prod_init = result_of(filled([m, n], out_type.element_type, init_value))
        d0, d1, d2 = (ir.AffineDimExpr.get(i) for i in range(3))
        product_maps = [ir.AffineMap.get(3, 0, [d0, d2] if m_by_k else [d2, d0]),
                        ir.AffineMap.get(3, 0, [d2, d1]), ir.AffineMap.get(3, 0, [d0, d1])]
        product = generic_taking_body(op, ir.RankedTensorType.get([m, n], out_type.element_type), [a, b],
                                      prod_init, product_maps, ["parallel", "parallel", "reduction"])
        # back to the result's layout: (rows..., cols...) -> the order of `out`
        expanded = tensor.expand_shape(ir.RankedTensorType.get([ranges[d] for d in rows + cols],
                                                               out_type.element_type),
                                       product.results[0],
                                       [list(range(len(rows))), list(range(len(rows), len(rows) + len(cols)))],
                                       [], [ranges[d] for d in rows + cols])
        result = transposed(expanded, [(rows + cols).index(d) for d in out])
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def _dims_of(amap: ir.AffineMap) -> set[int]:
    return set().union(*(_expr_dims(e) for e in amap.results))


def _expr_dims(expr: ir.AffineExpr) -> set[int]:
    """The loop dims an affine expression reads."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position}
    if isinstance(expr, ir.AffineBinaryExpr):
        return _expr_dims(expr.lhs) | _expr_dims(expr.rhs)
    return set()


def unfuse_rhs(op: ir.Operation, kernel: Kernel) -> ir.Operation | None:
    """Split `out += lhs * f(rhs_1, ..., rhs_r)`, whose rhs operands all share
    one projected map, into an elementwise generic computing f over the rhs
    operands' shape and a convolution `out += lhs * t` reading its result;
    returns the new convolution (the old op is erased), or None when `op`
    is not of that form.

        %k = linalg.generic ins(%x, %a, %b) {(d) -> (n, c, y + i, x + j), M, M} {
          %t = (ops of %a, %b only); yield %acc + %x * %t }
        ->  %t = linalg.generic ins(%a, %b) {identity} { (the same ops); yield %t }
            %k = linalg.generic ins(%x, %t) {(d) -> (n, c, y + i, x + j), M} { yield %acc + %x * %t }
    """
    if kernel.n_outputs != 1 or kernel.n_inputs < 3:
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    rhs_maps = maps[1:-1]
    if any(m != rhs_maps[0] for m in rhs_maps) or not rhs_maps[0].is_projected_permutation:
        return None
    block = op.regions[0].blocks[0]
    lhs_arg, out_arg = block.arguments[0], block.arguments[len(op.operands) - 1]
    body = list(block.operations)
    yielded = body[-1].operands[0]
    add = yielded.owner if isinstance(yielded, ir.OpResult) else None
    if add is None or add.name != "arith.addf" or out_arg not in list(add.operands):
        return None
    product = [v for v in add.operands if v != out_arg][0]
    mul = product.owner if isinstance(product, ir.OpResult) else None
    if mul is None or mul.name != "arith.mulf" or lhs_arg not in list(mul.operands):
        return None
    t = [v for v in mul.operands if v != lhs_arg][0]
    rhs_ops = [inner for inner in body[:-1] if inner not in (add, mul)]
    if any(v in (lhs_arg, out_arg) for inner in rhs_ops for v in inner.operands) or any(
            inner.regions for inner in rhs_ops):
        return None
    element = ir.RankedTensorType(op.results[0].type).element_type
    if t.type != element or lhs_arg.type != element:
        return None
    shape = list(ir.RankedTensorType(op.operands[1].type).shape)
    rank = len(shape)
    rhs_values = list(op.operands[1:-1])
    with ir.InsertionPoint(op), op.location:
        identity = ir.AffineMap.get_identity(rank)

        def rhs_body(*args):
            mapping = {old: new for old, new in zip(block.arguments[1:len(rhs_values) + 1], args)}
            for inner in rhs_ops:
                clone = inner.clone()
                for i, v in enumerate(clone.operands):
                    if v in mapping:
                        clone.operands[i] = mapping[v]
                mapping.update(zip(inner.results, clone.results))
            return [mapping.get(t, t)]

        (t_tensor,) = generic([ir.RankedTensorType.get(shape, element)], rhs_values,
                              [identity] * (len(rhs_values) + 1), ["parallel"] * rank, rhs_body)
        (convolved,) = generic([op.results[0].type], [op.operands[0], t_tensor], [maps[0], rhs_maps[0], maps[-1]],
                               kernel.iterators, lambda x, y, acc: [arith.addf(acc, arith.mulf(x, y))],
                               inits=[op.operands[-1]])
    op.results[0].replace_all_uses_with(convolved)
    op.erase()
    return convolved.owner.operation
