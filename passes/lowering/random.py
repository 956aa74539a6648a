"""Lowering rule for threefry2x32: the Threefry-2x32 block cipher, 20 rounds.

One linalg.generic over the counters; keys may be 0-d (broadcast). The body
is the cipher on i32 words (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3", as used by jax.random):

    ks = [k0, k1, k0 ^ k1 ^ 0x1BD11BDA]
    x0 += ks[0]; x1 += ks[1]
    for i in 1..5:
        for r in ROTATIONS[(i - 1) % 2]:
            x0 += x1; x1 = rotl(x1, r) ^ x0
        x0 += ks[i % 3]; x1 += ks[(i + 1) % 3] + i
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import broadcast_map, generic, identity_map, scalar_const, shape_of

ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
KEY_PARITY = 0x1BD11BDA


def _rotl(x: ir.Value, r: int, t: ir.Type) -> ir.Value:
    """Rotate a 32-bit word left by r."""
    return arith.ori(arith.shli(x, scalar_const(t, r)), arith.shrui(x, scalar_const(t, 32 - r)))


def _cipher(k0: ir.Value, k1: ir.Value, x0: ir.Value, x1: ir.Value) -> list[ir.Value]:
    t = ir.IntegerType.get_signless(32)
    ks = [k0, k1, arith.xori(arith.xori(k0, k1), scalar_const(t, KEY_PARITY))]
    x0, x1 = arith.addi(x0, ks[0]), arith.addi(x1, ks[1])
    for i in range(1, 6):
        for r in ROTATIONS[(i - 1) % 2]:
            x0 = arith.addi(x0, x1)
            x1 = arith.xori(_rotl(x1, r, t), x0)
        x0 = arith.addi(x0, ks[i % 3])
        x1 = arith.addi(x1, arith.addi(ks[(i + 1) % 3], scalar_const(t, i)))
    return [x0, x1]


def threefry2x32(op, elements) -> list[ir.Value]:
    k0, k1, x0, x1 = op.operands
    rank = len(shape_of(x0))
    maps = [broadcast_map(rank, k0), broadcast_map(rank, k1), identity_map(rank),
            identity_map(rank), identity_map(rank), identity_map(rank)]
    return generic([op.results[0].type, op.results[1].type], [k0, k1, x0, x1], maps,
                   ["parallel"] * rank, lambda a, b, c, d, _o0, _o1: _cipher(a, b, c, d))


RULES = {"jaxc.threefry2x32": threefry2x32}
