"""Counter-based hashes (Philox 4x32 and 2x32, Threefry 4x32) and
`rng_bit_generator` with XLA's CPU bits, written with uint32 lax ops only
(so they give the same bits with or without x64).

    philox4x32(k0, k1, x0, x1, x2, x3) -> 4 words   (Random123, 10 rounds)
    rng_bit_generator(uint32[4] key, shape) -> (new key, bits)

The uint32[4] key of `rng_bit_generator` is XLA's u64[2] state
(s0 = w0 | w1 << 32, s1 = w2 | w3 << 32). Philox (RNG_DEFAULT on the CPU,
RNG_PHILOX) hashes the 128-bit counters (s0:s1) + i with the key s0 and
returns the words of block i round-robin; ThreeFry (RNG_THREE_FRY) hashes
the 64-bit counters s1 + i with threefry2x32 under the key s0. Both return
[s0, s1 + the number of counters used].
"""
from __future__ import annotations

import enum
import functools
import math
from typing import Any, Sequence

import numpy as np

from . import _ops as L

U32 = np.dtype(np.uint32)

_PHILOX_M4 = (0xD2511F53, 0xCD9E8D57)
_PHILOX_M2 = 0xD256D193
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_THREEFRY4_ROTATIONS = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_SKEIN_PARITY = 0x1BD11BDA


class RandomAlgorithm(enum.IntEnum):
    """The bit generator `rng_bit_generator` is asked for (RNG_DEFAULT is
    Philox, as on XLA's CPU)."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


def _u32(value: int) -> Any:
    return L.full((), value & 0xFFFFFFFF, U32)


def _mulhi(x: Any, m: int) -> Any:
    from ._extra import _mulhi_unsigned
    return _mulhi_unsigned(x, L.full(x.shape, m, U32))


def _rotl(x: Any, d: int) -> Any:
    return L.bitwise_or(L.shift_left(x, _u32(d)), L.shift_right_logical(x, _u32(32 - d)))


def xor_all(*xs: Any) -> Any:
    """xs[0] ^ xs[1] ^ ..."""
    out = xs[0]
    for x in xs[1:]:
        out = L.bitwise_xor(out, x)
    return out


def word(data: Any, j: int) -> Any:
    """data[j] of a 1-d array of words, as a 0-d array."""
    return L.reshape(L.slice(data, (j,), (j + 1,)), ())


def stack_words(words: Sequence[Any], shape: tuple[int, ...]) -> Any:
    """Words of `shape` side by side on a new last axis: (*shape, len(words))."""
    return L.concatenate([L.reshape(w, (*shape, 1)) for w in words], len(shape))


def join64(high: Any, low: Any) -> Any:
    """(high << 32) | low of uint32 words, as uint64."""
    u64 = np.dtype(np.uint64)
    return L.bitwise_or(L.shift_left(L.convert_element_type(high, u64), L.full((), 32, u64)),
                        L.convert_element_type(low, u64))


def _broadcast(*xs: Any) -> list[Any]:
    """`xs` in their common shape. Only counters are: a 0-d key word stays
    0-d and each op broadcasts it afresh, so every broadcast has one use and
    fuses into the hash's one kernel (a broadcast used by every round would
    stay a kernel of its own, and split the rounds into ~100 kernels)."""
    shape = np.broadcast_shapes(*(np.shape(x) for x in xs))
    return [x if tuple(x.shape) == shape else L.broadcast_in_dim(x, shape, ()) for x in xs]


def philox4x32(k0: Any, k1: Any, x0: Any, x1: Any, x2: Any, x3: Any) -> tuple[Any, Any, Any, Any]:
    """Philox-4x32-10 of the counters (x0, x1, x2, x3) under the 0-d key
    words (k0, k1)."""
    x0, x1, x2, x3 = _broadcast(x0, x1, x2, x3)
    for round_ in range(10):
        if round_:
            k0, k1 = L.add(k0, _u32(_PHILOX_W[0])), L.add(k1, _u32(_PHILOX_W[1]))
        lo0, hi0 = L.mul(x0, _u32(_PHILOX_M4[0])), _mulhi(x0, _PHILOX_M4[0])
        lo1, hi1 = L.mul(x2, _u32(_PHILOX_M4[1])), _mulhi(x2, _PHILOX_M4[1])
        x0, x1, x2, x3 = xor_all(hi1, x1, k0), lo1, xor_all(hi0, x3, k1), lo0
    return x0, x1, x2, x3


def philox2x32(k0: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """Philox-2x32-10 of the counters (x0, x1) under the 0-d key word k0."""
    x0, x1 = _broadcast(x0, x1)
    for round_ in range(10):
        if round_:
            k0 = L.add(k0, _u32(_PHILOX_W[0]))
        lo, hi = L.mul(x0, _u32(_PHILOX_M2)), _mulhi(x0, _PHILOX_M2)
        x0, x1 = xor_all(hi, x1, k0), lo
    return x0, x1


def threefry4x32(key: Sequence[Any], x: Sequence[Any]) -> tuple[Any, Any, Any, Any]:
    """Threefry-4x32-20 of the counters x (4 words) under the 0-d key words."""
    x0, x1, x2, x3 = _broadcast(*x)
    ks = [*key, xor_all(*key, _u32(_SKEIN_PARITY))]
    x0, x1, x2, x3 = (L.add(v, k) for v, k in zip((x0, x1, x2, x3), ks))
    for round_ in range(20):
        r0, r1 = _THREEFRY4_ROTATIONS[round_ % 8]
        if round_ % 2 == 0:
            x0 = L.add(x0, x1)
            x1 = L.bitwise_xor(x0, _rotl(x1, r0))
            x2 = L.add(x2, x3)
            x3 = L.bitwise_xor(x2, _rotl(x3, r1))
        else:
            x0 = L.add(x0, x3)
            x3 = L.bitwise_xor(x0, _rotl(x3, r0))
            x2 = L.add(x2, x1)
            x1 = L.bitwise_xor(x2, _rotl(x1, r1))
        if round_ % 4 == 3:
            s = round_ // 4
            x0, x1, x2 = L.add(x0, ks[(1 + s) % 5]), L.add(x1, ks[(2 + s) % 5]), L.add(x2, ks[(3 + s) % 5])
            x3 = L.add(L.add(x3, ks[(4 + s) % 5]), _u32(1 + s))
    return x0, x1, x2, x3


def flat_index_words(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """(hi, lo) uint32 words of each element's row-major flat index (JAX's
    iota_2x32_shape)."""
    n = math.prod(shape)
    if n >= 2 ** 32:
        flat = L.reshape(L.iota(np.uint64, n), shape)
        hi = L.convert_element_type(L.shift_right_logical(flat, L.full((), 32, np.uint64)), U32)
        return hi, L.convert_element_type(flat, U32)
    return L.full(shape, 0, U32), L.reshape(L.iota(U32, n), shape)


def _add_with_carry(a: Any, b: Any) -> tuple[Any, Any]:
    """(a + b mod 2**32, the carry as uint32 0/1)."""
    total = L.add(a, b)
    return total, L.convert_element_type(L.lt(total, a), U32)


def _add64(lo: Any, hi: Any, add_lo: Any, add_hi: Any) -> tuple[Any, Any, Any]:
    """(lo, hi) + (add_lo, add_hi) as 64-bit words: (lo, hi, carry out)."""
    lo, carry = _add_with_carry(lo, add_lo)
    hi, c1 = _add_with_carry(hi, add_hi)
    hi, c2 = _add_with_carry(hi, carry)
    return lo, hi, L.bitwise_or(c1, c2)


def _philox_bits(key: Any, shape: tuple[int, ...], width: int) -> tuple[Any, Any]:
    """XLA's PhiloxBitGenerator on the state (s0, s1): counter block i is
    (s1 lo, s1 hi, s0 lo, s0 hi) + i as a 128-bit number, hashed under s0."""
    w0, w1, w2, w3 = (word(key, j) for j in range(4))
    n = math.prod(shape)
    words = 2 * n if width == 64 else n
    blocks = -(-words // 4)
    zero = L.full((blocks,), 0, U32)
    ihi, ilo = flat_index_words((blocks,))
    c0, c1, carry = _add64(*_broadcast(w2, w3, ilo, ihi))
    c2, c3, _ = _add64(*_broadcast(w0, w1, carry, zero))
    out: tuple[Any, ...] = philox4x32(w0, w1, c0, c1, c2, c3)
    if width == 64:
        out = (join64(out[1], out[0]), join64(out[3], out[2]))
    flat = L.reshape(stack_words(out, (blocks,)), (len(out) * blocks,))
    bits = L.reshape(L.slice(flat, (0,), (n,)), shape)
    lo, hi, _ = _add64(w2, w3, _u32(blocks), _u32(blocks >> 32))
    return stack_words((w0, w1, lo, hi), ()), bits


def _split_dimension(shape: tuple[int, ...]) -> int:
    """XLA's SplitShapeIntoHalves: the first even dimension, else the largest."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def _threefry_bits(key: Any, shape: tuple[int, ...], width: int) -> tuple[Any, Any]:
    """XLA's ThreeFryBitGenerator on the state (s0, s1): threefry2x32 under
    s0 of the 64-bit counters s1 + i; 32 bits and narrower hash half the
    elements and interleave the two output words along one dimension."""
    w0, w1, w2, w3 = (word(key, j) for j in range(4))
    if width == 64:
        count_shape = shape
    elif not shape:
        count_shape = (1,)
    else:
        axis = _split_dimension(shape)
        count_shape = (*shape[:axis], -(-shape[axis] // 2), 1, *shape[axis + 1:])
    count = math.prod(count_shape)
    ihi, ilo = flat_index_words(count_shape)
    lo, hi, _ = _add64(*_broadcast(w2, w3, ilo, ihi))
    y0, y1 = L.threefry2x32(w0, w1, lo, hi)
    if width == 64:
        bits = join64(y1, y0)
    elif not shape:
        bits = L.reshape(y0, ())
    else:
        joined = L.concatenate([y0, y1], axis + 1)
        even = (*shape[:axis], 2 * count_shape[axis], *shape[axis + 1:])
        bits = L.reshape(joined, even)
        if even != shape:
            bits = L.slice(bits, (0,) * len(shape), shape)
    new_lo, new_hi, _ = _add64(w2, w3, _u32(count), _u32(count >> 32))
    return stack_words((w0, w1, new_lo, new_hi), ()), bits


_GENERATORS = {RandomAlgorithm.RNG_DEFAULT: _philox_bits, RandomAlgorithm.RNG_PHILOX: _philox_bits,
               RandomAlgorithm.RNG_THREE_FRY: _threefry_bits}
@functools.lru_cache(maxsize=None)
def _generator(shape: tuple[int, ...], width: int, algorithm: RandomAlgorithm) -> Any:
    """The generator of `shape` as a function of the key, batched as JAX
    batches rng_bit_generator: a batch of keys draws (batch, *shape) bits
    from its first key, and only that key advances.

        vmap(rng_bit_generator(keys[i], (3,)))  ==  rng_bit_generator(keys[0], (n, 3))
    """
    from ..custom_batching import custom_vmap

    @custom_vmap
    def generate(key: Any) -> tuple[Any, Any]:
        return _GENERATORS[algorithm](key, shape, width)

    @generate.def_vmap
    def from_the_first_key(axis_size: int, in_batched: Any, keys: Any) -> tuple[Any, Any]:
        new_key, bits = _generator((axis_size, *shape), width, algorithm)(L.index_in_dim(keys, 0, 0, False))
        return (L.dynamic_update_slice(keys, L.reshape(new_key, (1, 4)), (0, 0)), bits), (True, True)

    return generate


_BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))


def rng_bit_generator(key: Any, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: Any = RandomAlgorithm.RNG_DEFAULT, *, out_sharding: Any = None) -> tuple[Any, Any]:
    """(new key, bits): unsigned random bits of `shape` and `dtype` (uint8
    to uint64; uint64 is uint32 without x64) from a uint32[4] key, and the
    key to use next: XLA's CPU bits for each algorithm (module docstring)."""
    if out_sharding is not None:
        raise NotImplementedError("lax.rng_bit_generator: out_sharding is not supported (jaxc has no sharding)")
    algorithm = RandomAlgorithm(algorithm)  # ValueError for anything else
    from .. import dtypes
    requested = dtypes.canonicalize(np.dtype(dtype))
    if requested not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {np.dtype(dtype)}")
    k = L._array(key, "rng_bit_generator")
    if k.dtype != U32 or k.shape != (4,):
        raise TypeError(f"rng_bit_generator: the key must be uint32[4], got {k.aval.str_short()}")
    shape = L._shape(shape, "lax.rng_bit_generator")
    width = requested.itemsize * 8
    new_key, bits = _generator(shape, 64 if width == 64 else 32, algorithm)(k)
    if width < 32:
        bits = L.convert_element_type(bits, requested)
    return new_key, bits
