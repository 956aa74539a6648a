"""The PRNG implementations of `jaxc.random`: JAX 0.10's six, as arithmetic
on one key's uint32 data, each giving JAX's bits.

    name          key   dtype       split / fold_in / bits of key k, element i
    threefry2x32  (2,)  key<fry>    threefry2x32(k, (hi(i), lo(i)))       (the default)
    threefry4x32  (4,)  key<fry4>   threefry4x32(k, (0, 0, hi, lo))  / bits (hi, lo, 0, 0)
    philox2x32    (1,)  key<phx2>   philox2x32(k, (hi, lo))
    philox4x32    (2,)  key<phx4>   philox4x32(k, (0, 0, hi, lo))    / bits (hi, lo, 0, 0)
    rbg           (4,)  key<rbg>    threefry2x32 on each half of k    / bits lax.rng_bit_generator
    unsafe_rbg    (4,)  key<urbg>   every 10th row of rng_bit_generator(k, (10 n, 4))

(hi(i), lo(i) are the words of the row-major flat index.) The default for
keys made without `impl=` and for uint32 key data is `jax_default_prng_impl`
(`with jaxc.default_prng_impl("rbg"):`).
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import lax
from .._config import config
from ..lax._bit_generator import (
    flat_index_words,
    join64,
    philox2x32,
    philox4x32,
    stack_words,
    threefry4x32,
    word,
    xor_all,
)

U32 = np.dtype(np.uint32)


@dataclass(frozen=True)
class PRNGImpl:
    """One PRNG implementation: its key data shape and four functions of one
    key's data (seed: a 0-d integer; split: a shape; fold_in: a 0-d uint32;
    random_bits: a bit width 8/16/32/64 and a shape)."""
    name: str
    tag: str
    key_shape: tuple[int, ...]
    seed: Callable[[Any], Any]
    split: Callable[[Any, tuple[int, ...]], Any]
    fold_in: Callable[[Any, Any], Any]
    random_bits: Callable[[Any, int, tuple[int, ...]], Any]

    def __repr__(self) -> str:
        return f"PRNGImpl({self.name!r}, key_shape={self.key_shape})"


# ---------------------------------------------------------------------------
# threefry2x32 (JAX's default)
# ---------------------------------------------------------------------------

def _threefry_split(data: Any, shape: tuple[int, ...]) -> Any:
    """Key data of shape (*shape, 2): key i is threefry2x32(key, counter i)
    (under `jax_threefry_partitionable` False: JAX's earlier split, below)."""
    if not config.jax_threefry_partitionable:
        return _threefry_split_original(data, shape)
    hi, lo = flat_index_words(shape)
    return stack_words(lax.threefry2x32(word(data, 0), word(data, 1), hi, lo), shape)


def _threefry_fold_in(data: Any, message: Any) -> Any:
    """threefry2x32(key, (0, message)) as a new key."""
    zero = lax.full((), 0, np.uint32)
    return stack_words(lax.threefry2x32(word(data, 0), word(data, 1), zero, message), ())


def seed_words(seed: Any) -> Any:
    """[seed >> 32, low 32 bits of seed] as uint32 (JAX's threefry_seed)."""
    if seed.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if not np.issubdtype(seed.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if np.dtype(seed.dtype).itemsize == 8:
        shift = lax.full((), 32, seed.dtype)
        hi = lax.convert_element_type(lax.shift_right_logical(seed, shift), np.uint32)
    else:
        hi = lax.full((), 0, np.uint32)
    lo = lax.convert_element_type(seed, np.uint32)  # the low word (sign-extended if narrower)
    return stack_words((hi, lo), ())


def _threefry_bits(data: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Unsigned bits of `bit_width` (8/16/32/64) from one key's data."""
    if not config.jax_threefry_partitionable:
        return _threefry_bits_original(data, bit_width, shape)
    return lax.random_bits(data, bit_width, shape)


# JAX's threefry before its partitionable form (`jax_threefry_partitionable`
# False, the default before JAX 0.5): the counters are 0, 1, ..., n - 1 hashed
# in two halves, so every bit depends on n.

def _threefry_2x32(data: Any, count: Any) -> Any:
    """JAX's `threefry_2x32(key, count)`: the flat uint32 counts, a zero
    appended when there is an odd number, hashed as (first half, second half)
    and put back in count's shape."""
    n = math.prod(count.shape)
    flat = lax.reshape(count, (n,))
    if n % 2:
        flat = lax.concatenate([flat, lax.full((1,), 0, np.uint32)], 0)
    half = (n + 1) // 2
    b1, b2 = lax.threefry2x32(word(data, 0), word(data, 1), lax.slice(flat, (0,), (half,)),
                              lax.slice(flat, (half,), (2 * half,)))
    return lax.reshape(lax.slice(lax.concatenate([b1, b2], 0), (0,), (n,)), count.shape)


def _threefry_split_original(data: Any, shape: tuple[int, ...]) -> Any:
    """threefry_2x32(key, [0, 1, ..., 2 * num - 1]) as num keys."""
    return lax.reshape(_threefry_2x32(data, lax.iota(np.uint32, 2 * math.prod(shape))), (*shape, 2))


def _threefry_bits_original(data: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """ceil(bit_width * size / 32) hashed counters: 64-bit values join the
    first half (high words) and the second half (low words); 8- and 16-bit
    values are the words' pieces, lowest first (a view of the words)."""
    size = math.prod(shape)
    words = -(-bit_width * size // 32)
    if words >= 2 ** 32 - 1:
        raise NotImplementedError(f"random bits of shape {shape} need {words} 32-bit words; with "
                                  "jax_threefry_partitionable False jaxc makes fewer than 2**32 - 1")
    bits = _threefry_2x32(data, lax.iota(np.uint32, words))
    dtype = np.dtype(f"uint{bit_width}")
    if bit_width == 64:
        bits = join64(*(lax.slice(bits, (start,), (start + size,)) for start in (0, size)))
    elif bit_width in (8, 16):
        per_word = 32 // bit_width
        shifts = lax.mul(lax.iota(np.uint32, per_word), lax.full((per_word,), bit_width, np.uint32))
        pieces = lax.shift_right_logical(lax.broadcast_in_dim(bits, (words, per_word), (0,)),
                                         lax.broadcast_in_dim(shifts, (words, per_word), (1,)))
        pieces = lax.bitwise_and(pieces, lax.full((words, per_word), (1 << bit_width) - 1, np.uint32))
        bits = lax.slice(lax.reshape(lax.convert_element_type(pieces, dtype), (words * per_word,)), (0,), (size,))
    return lax.reshape(bits, shape)


# ---------------------------------------------------------------------------
# threefry4x32, philox2x32, philox4x32
# ---------------------------------------------------------------------------

def _words(data: Any) -> list[Any]:
    return [word(data, j) for j in range(data.shape[-1])]


def _zeros(shape: tuple[int, ...]) -> Any:
    return lax.full(shape, 0, U32)


def _join_bits(width: int, high: Any, low: Any, mixed: Any) -> Any:
    """64 bits as (high << 32) | low; 32 bits `mixed`; 8 and 16 its low bits."""
    if width == 64:
        return join64(high, low)
    return mixed if width == 32 else lax.convert_element_type(mixed, np.dtype(f"uint{width}"))


def _seed_pair(seed: Any) -> tuple[Any, Any]:
    w = seed_words(seed)
    return word(w, 0), word(w, 1)


def _threefry4x32_seed(seed: Any) -> Any:
    k0, k1 = _seed_pair(seed)
    return stack_words(threefry4x32((k0, k1, _zeros(()), _zeros(())), [_zeros(())] * 4), ())


def _threefry4x32_split(data: Any, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    return stack_words(threefry4x32(_words(data), (_zeros(shape), _zeros(shape), hi, lo)), shape)


def _threefry4x32_fold_in(data: Any, message: Any) -> Any:
    return stack_words(threefry4x32(_words(data), (_zeros(()), _zeros(()), _zeros(()), message)), ())


def _threefry4x32_bits(data: Any, width: int, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    o0, o1, o2, o3 = threefry4x32(_words(data), (hi, lo, _zeros(shape), _zeros(shape)))
    return _join_bits(width, xor_all(o0, o2), xor_all(o1, o3), xor_all(o0, o1, o2, o3))


def _philox2x32_seed(seed: Any) -> Any:
    k0, k1 = _seed_pair(seed)
    return stack_words(philox2x32(_zeros(()), k0, k1)[:1], ())


def _philox2x32_split(data: Any, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    return stack_words(philox2x32(word(data, 0), hi, lo)[:1], shape)


def _philox2x32_fold_in(data: Any, message: Any) -> Any:
    return stack_words(philox2x32(word(data, 0), _zeros(()), message)[:1], ())


def _philox2x32_bits(data: Any, width: int, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    o0, o1 = philox2x32(word(data, 0), hi, lo)
    return _join_bits(width, o0, o1, xor_all(o0, o1))


def _philox4x32_seed(seed: Any) -> Any:
    k0, k1 = _seed_pair(seed)
    return stack_words(philox4x32(_zeros(()), _zeros(()), k0, k1, _zeros(()), _zeros(()))[:2], ())


def _philox4x32_split(data: Any, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    k0, k1 = _words(data)
    return stack_words(philox4x32(k0, k1, _zeros(shape), _zeros(shape), hi, lo)[:2], shape)


def _philox4x32_fold_in(data: Any, message: Any) -> Any:
    k0, k1 = _words(data)
    return stack_words(philox4x32(k0, k1, _zeros(()), _zeros(()), _zeros(()), message)[:2], ())


def _philox4x32_bits(data: Any, width: int, shape: tuple[int, ...]) -> Any:
    hi, lo = flat_index_words(shape)
    k0, k1 = _words(data)
    o0, o1, o2, o3 = philox4x32(k0, k1, hi, lo, _zeros(shape), _zeros(shape))
    return _join_bits(width, o0, o1, xor_all(o0, o1, o2, o3))


# ---------------------------------------------------------------------------
# rbg and unsafe_rbg: bits from lax.rng_bit_generator
# ---------------------------------------------------------------------------

def _halves(data: Any) -> tuple[Any, Any]:
    return lax.slice(data, (0,), (2,)), lax.slice(data, (2,), (4,))


def _rbg_seed(seed: Any) -> Any:
    half = seed_words(seed)
    return lax.concatenate([half, half], 0)


def _rbg_split(data: Any, shape: tuple[int, ...]) -> Any:
    """Each half of the key split as a threefry2x32 key, side by side."""
    return lax.concatenate([_threefry_split(h, shape) for h in _halves(data)], len(shape))


def _rbg_fold_in(data: Any, message: Any) -> Any:
    return lax.concatenate([_threefry_fold_in(h, message) for h in _halves(data)], 0)


def _rbg_bits(data: Any, width: int, shape: tuple[int, ...]) -> Any:
    return lax.rng_bit_generator(data, shape, np.dtype(f"uint{width}"))[1]


def _unsafe_rbg_split(data: Any, shape: tuple[int, ...]) -> Any:
    """Rows 0, 10, 20, ... of rng_bit_generator(key, (10 n, 4))."""
    n = math.prod(shape)
    rows = lax.rng_bit_generator(data, (10 * n, 4), U32)[1]
    return lax.reshape(lax.slice(rows, (0, 0), (10 * n, 4), (10, 1)), (*shape, 4))


def _unsafe_rbg_fold_in(data: Any, message: Any) -> Any:
    """The key xor the last row of rng_bit_generator(rbg seed of message, (10, 4))."""
    rows = lax.rng_bit_generator(_rbg_seed(message), (10, 4), U32)[1]
    return lax.bitwise_xor(data, lax.reshape(lax.slice(rows, (9, 0), (10, 4)), (4,)))


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------

IMPLS: dict[str, PRNGImpl] = {impl.name: impl for impl in (
    PRNGImpl("threefry2x32", "fry", (2,), seed_words, _threefry_split, _threefry_fold_in, _threefry_bits),
    PRNGImpl("threefry4x32", "fry4", (4,), _threefry4x32_seed, _threefry4x32_split, _threefry4x32_fold_in,
             _threefry4x32_bits),
    PRNGImpl("rbg", "rbg", (4,), _rbg_seed, _rbg_split, _rbg_fold_in, _rbg_bits),
    PRNGImpl("unsafe_rbg", "urbg", (4,), _rbg_seed, _unsafe_rbg_split, _unsafe_rbg_fold_in, _rbg_bits),
    PRNGImpl("philox2x32", "phx2", (1,), _philox2x32_seed, _philox2x32_split, _philox2x32_fold_in,
             _philox2x32_bits),
    PRNGImpl("philox4x32", "phx4", (2,), _philox4x32_seed, _philox4x32_split, _philox4x32_fold_in,
             _philox4x32_bits),
)}


def default() -> PRNGImpl:
    """The implementation `jax_default_prng_impl` names."""
    return IMPLS[config.jax_default_prng_impl]


def by_name(name: str) -> PRNGImpl:
    """The implementation called `name` (JAX's ValueError, with the names, otherwise)."""
    impl = IMPLS.get(name) if isinstance(name, str) else None
    if impl is None:
        names = sorted(IMPLS, key=lambda n: (-difflib.SequenceMatcher(None, str(name), n).ratio(), n))
        raise ValueError(f'unrecognized PRNG implementation "{name}". Did you mean one of: '
                         + ", ".join(f'"{n}"' for n in names) + "?")
    return impl
