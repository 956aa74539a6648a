"""Lowering rule for `jaxc.sort`: a stable insertion sort in scf.for loops.

For every position of the other dimensions (one scf.for per dimension), the
line along `dimension` is sorted by insertion: for i in 1..n, the element at
i sinks towards the front, swapping with its left neighbour while its keys
compare strictly less. All inputs are carried as iter_args and swapped
together (tensor.extract / arith.select / tensor.insert). Only strictly
smaller keys move forward, so equal keys keep their order (stable).

    for p in other positions:              # scf.for per other dimension
      for i in 1..n:                       # scf.for
        for k in 0..i:                     # scf.for, j = i - k
          a, b = x[.., j-1, ..], x[.., j, ..]   # every input
          swap = less(b, a)                # lexicographic over the keys
          x[j-1], x[j] = select(swap, b, a), select(swap, a, b)

Keys compare ascending: floats in total order (-NaN < -inf < ... < -0.0 <
0.0 < ... < inf < NaN) through their bits mapped to a signed integer
(`bits ^ ((bits >>s (w-1)) & 0x7F..F)`), signed integers as signed,
unsigned integers and booleans (stored as i8 0/1) as unsigned.
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .common import (bit_width, is_float, is_unsigned, operand_element, scalar_const,
                     shape_of)

RULES: dict = {}


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _key(t: ir.Type, x: ir.Value) -> ir.Value:
    """A scalar whose integer order (signed for floats) is the sort order of `x`.

    As jax.lax.sort, floats are first canonicalized: -0.0 becomes 0.0 and
    every NaN the positive quiet NaN, so zeros tie (a stable sort keeps their
    order) and NaNs tie after +inf.
    """
    if not is_float(t):
        return x
    width = bit_width(t)
    int_type = ir.IntegerType.get_signless(width)
    zero = arith.constant(x.type, ir.FloatAttr.get(x.type, 0.0))
    nan = arith.constant(x.type, ir.FloatAttr.get(x.type, float("nan")))
    x = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, zero), zero, x)
    x = arith.select(arith.cmpf(arith.CmpFPredicate.UNO, x, x), nan, x)
    bits = arith.bitcast(int_type, x)
    sign = arith.shrsi(bits, scalar_const(int_type, width - 1))
    return arith.xori(bits, arith.andi(sign, scalar_const(int_type, (1 << (width - 1)) - 1)))


def _less(types: Sequence[ir.Type], lhs: Sequence[ir.Value], rhs: Sequence[ir.Value]) -> ir.Value:
    """lhs < rhs lexicographically over the keys (strict)."""
    result = None
    for t, a, b in reversed(list(zip(types, lhs, rhs))):
        ka, kb = _key(t, a), _key(t, b)
        unsigned = not is_float(t) and is_unsigned(t)
        lt = arith.cmpi(arith.CmpIPredicate.ult if unsigned else arith.CmpIPredicate.slt, ka, kb)
        if result is None:
            result = lt
        else:
            eq = arith.cmpi(arith.CmpIPredicate.eq, ka, kb)
            result = arith.ori(lt, arith.andi(eq, result))
    return result


def sort(op) -> list[ir.Value]:
    inputs = list(op.operands)
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    num_keys = ir.IntegerAttr(op.attributes["num_keys"]).value if "num_keys" in op.attributes else 1
    types = [operand_element(op, i) for i in range(len(inputs))]
    key_types = types[:num_keys]
    shape = shape_of(inputs[0])
    rank = len(shape)
    if rank == 0:
        return inputs
    dim %= rank
    length = shape[dim]
    if length <= 1 or 0 in shape:
        return inputs
    others = [d for d in range(rank) if d != dim]

    def sort_line(position: dict, values: list[ir.Value]) -> list[ir.Value]:
        """Insertion sort of the line through `position` (other dims -> index)."""
        outer = scf.ForOp(_index(1), _index(length), _index(1), values)
        with ir.InsertionPoint(outer.body):
            i = outer.body.arguments[0]
            inner = scf.ForOp(_index(0), i, _index(1), list(outer.body.arguments[1:]))
            with ir.InsertionPoint(inner.body):
                k = inner.body.arguments[0]
                current = list(inner.body.arguments[1:])
                j = arith.subi(i, k)
                j_left = arith.subi(j, _index(1))

                def at(p):
                    return [position[d] if d != dim else p for d in range(rank)]
                left = [tensor.extract(v, at(j_left)) for v in current]
                right = [tensor.extract(v, at(j)) for v in current]
                swap = _less(key_types, right[:num_keys], left[:num_keys])
                updated = []
                for v, a, b in zip(current, left, right):
                    lo = arith.select(swap, b, a)
                    hi = arith.select(swap, a, b)
                    v = tensor.insert(lo, v, at(j_left))
                    updated.append(tensor.insert(hi, v, at(j)))
                scf.YieldOp(updated)
            scf.YieldOp(list(inner.results))
        return list(outer.results)

    def nest(level: int, position: dict, values: list[ir.Value]) -> list[ir.Value]:
        if level == len(others):
            return sort_line(position, values)
        d = others[level]
        loop = scf.ForOp(_index(0), _index(shape[d]), _index(1), values)
        with ir.InsertionPoint(loop.body):
            inner_position = dict(position)
            inner_position[d] = loop.body.arguments[0]
            scf.YieldOp(nest(level + 1, inner_position, list(loop.body.arguments[1:])))
        return list(loop.results)

    return nest(0, {}, inputs)


RULES["jaxc.sort"] = sort
