"""Batching rule of random_bits (threefry2x32 is elementwise, see
elementwise.py).

`jaxc.random_bits` takes one key `tensor<2xui32>`, so a batched key
`tensor<Bx2xui32>` cannot go to the op itself. The rule writes out what the
op computes (JAX's partitionable threefry bits, see
passes/lowering/special.py) with the batch axis in front: element i of a
lane's result is threefry2x32(key[0], key[1], hi(i), lo(i)) for the row-major
flat index i of the result, then (b1 << 32) | b2 for 64 bits, b1 ^ b2 for 32
and its low bits for 8/16. One threefry2x32 over the whole batch, no loop:

    %r = jaxc.random_bits %k : tensor<2xui32> -> tensor<3xui32>    (k batched)
  ->
    %k0 = (%ks[:, 0] as tensor<8xui32>, broadcast to tensor<8x3xui32>)
    %k1 = (%ks[:, 1] likewise)
    %lo = jaxc.iota dim = 1 : tensor<8x3xui32>        (the flat counter)
    %hi = jaxc.constant dense<0> : tensor<8x3xui32>
    %b1, %b2 = jaxc.threefry2x32 %k0, %k1, %hi, %lo : tensor<8x3xui32>, tensor<8x3xui32>
    %r = jaxc.xor %b1, %b2 : tensor<8x3xui32>

The counter's high word is 0 unless the result has 2**32 elements or more;
then the counter is a ui64 iota split into its words.
"""
from __future__ import annotations

import math

import numpy as np
from mlir import ir

from jaxc import lax

from .interpreter import BATCH, Axis, RuleError

# results with at least this many elements count in 64 bits (a module
# constant so that a test can take that path on a small result)
WIDE_COUNTER_ELEMENTS = 2 ** 32


def _counters(shape: tuple[int, ...], size: int):
    """(hi, lo) words of the row-major flat index of each element of
    `shape`, broadcast along a leading batch axis of `size`."""
    n = math.prod(shape)
    full = (size, *shape)
    dims = tuple(range(1, len(shape) + 1))
    if n < WIDE_COUNTER_ELEMENTS:
        lo = lax.reshape(lax.iota(np.uint32, n), shape)
        hi = lax.full(full, 0, np.uint32)
    else:
        flat = lax.reshape(lax.iota(np.uint64, n), shape)
        hi = lax.convert_element_type(lax.shift_right_logical(flat, np.uint64(32)), np.uint32)
        lo = lax.convert_element_type(flat, np.uint32)  # keeps the low word
        hi = lax.broadcast_in_dim(hi, full, dims)
    return hi, lax.broadcast_in_dim(lo, full, dims)


def _key_word(keys, j: int, full: tuple[int, ...]):
    """keys[:, j] broadcast to `full` (batch axis first)."""
    size = keys.shape[0]
    word = lax.reshape(lax.slice(keys, (0, j), (size, j + 1)), (size,))
    return lax.broadcast_in_dim(word, full, (0,))


def _random_bits(op, xs, batched, axis: Axis):
    (keys,) = xs
    result = ir.RankedTensorType(op.results[0].type)
    shape = tuple(result.shape)
    width = ir.IntegerType(result.element_type).width
    if width not in (8, 16, 32, 64):
        raise RuleError(op, f"jaxc-batch: random_bits of ui{width} elements")
    full = (axis.size, *shape)
    hi, lo = _counters(shape, axis.size)
    b1, b2 = lax.threefry2x32(_key_word(keys, 0, full), _key_word(keys, 1, full), hi, lo)
    if width == 64:
        high = lax.shift_left(lax.convert_element_type(b1, np.uint64), np.uint64(32))
        bits = lax.bitwise_or(high, lax.convert_element_type(b2, np.uint64))
    else:
        bits = lax.bitwise_xor(b1, b2)
        if width < 32:
            bits = lax.convert_element_type(bits, np.dtype(f"uint{width}"))  # the low bits
    return [bits], [True]


BATCH["jaxc.random_bits"] = _random_bits
