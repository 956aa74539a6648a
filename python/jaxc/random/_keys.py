"""Keys of `jaxc.random`: threefry2x32 key data and typed key arrays over it.

A key is two uint32 words. A *legacy* key is that data itself, a uint32
array whose last axis has length 2 (`PRNGKey(0)` is `[0, 0]`); a *typed*
key (`key(0)`) is a `PRNGKeyArray` of shape `data.shape[:-1]` and dtype
`key<fry>` over the same data. Every function accepts both and returns keys
in the style it was given. All key arithmetic is JAX's (partitionable
threefry, the default since JAX 0.5; with `jax_threefry_partitionable`
False, JAX's earlier bits, `_split_data_original`), so the bits are JAX's bits:

    seed s        -> [s >> 32, s & 0xFFFFFFFF]            (int64 seeds; else [0, s])
    split(k, shape)[i] = threefry2x32(k, (hi(i), lo(i)))   (i: row-major flat index)
    fold_in(k, d) = threefry2x32(k, (0, d))
    bits(k, shape)[i] = b1 ^ b2 of threefry2x32(k, (hi(i), lo(i)))   (32 bits)

A PRNGKeyArray is a pytree over its data, so it passes through jit, vmap,
grad, scan and fori_loop like any array.
"""
from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from .._config import config
from ..tree_util import register_pytree_node

IMPL = "threefry2x32"
KEY_SHAPE = (2,)


class KeyDType:
    """The dtype of typed threefry2x32 keys, printed `key<fry>`."""

    name = "key<fry>"
    impl = IMPL
    _is_prng_key = True

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, KeyDType)

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = KeyDType()


class PRNGKeyArray:
    """An array of typed keys: shape `data.shape[:-1]`, dtype `key<fry>`.

        >>> k = random.split(random.key(0), 3)
        >>> k.shape, k.dtype, random.key_data(k).shape
        ((3,), key<fry>, (3, 2))
    """

    __slots__ = ("_data",)
    __array_priority__ = 100

    def __init__(self, data: Any) -> None:
        self._data = data

    # -- what it is ---------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> KeyDType:
        return KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, index: Any) -> "PRNGKeyArray":
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            index = (*index, slice(None))
        return PRNGKeyArray(self._data[index])

    def reshape(self, *shape: Any) -> "PRNGKeyArray":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        size = self.size
        shape = tuple(int(d) for d in shape)
        if shape.count(-1) == 1:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(size // known if d == -1 else d for d in shape)
        return PRNGKeyArray(lax.reshape(self._data, (*shape, *KEY_SHAPE)))

    def ravel(self) -> "PRNGKeyArray":
        return self.reshape(-1)

    @property
    def T(self) -> "PRNGKeyArray":
        perm = (*reversed(range(self.ndim)), self.ndim)
        return PRNGKeyArray(lax.transpose(self._data, perm))

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax.reduce_and(lax.eq(self._data, other._data), (self._data.ndim - 1,))

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax.reduce_or(lax.ne(self._data, other._data), (self._data.ndim - 1,))

    __hash__ = None  # type: ignore[assignment]

    def block_until_ready(self) -> "PRNGKeyArray":
        if hasattr(self._data, "block_until_ready"):
            self._data.block_until_ready()
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("a typed PRNG key array cannot become a NumPy array; "
                        "use jaxc.random.key_data(keys) for its uint32 data")

    def __repr__(self) -> str:
        if isinstance(self._data, core.Tracer):
            return f"Traced<key<fry>[{','.join(map(str, self.shape))}]>"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(self._data)}"

    __str__ = __repr__


register_pytree_node(PRNGKeyArray, lambda k: ((k._data,), None), lambda _, data: PRNGKeyArray(*data))


# ---------------------------------------------------------------------------
# Checking keys
# ---------------------------------------------------------------------------

def _invalid(what: str) -> TypeError:
    return TypeError(f"JAX encountered invalid PRNG key data: {what}")


_LEGACY_KEY = ("Legacy uint32 key array passed as key to jax.random function. Please create keys using "
               "jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key=\"allow\".")


def check_key(name: str, key: Any, *, allow_batched: bool = False, legacy_policy: bool = True) -> tuple[Any, bool]:
    """(uint32 key data of shape (..., 2), was the key legacy data?).

    A typed key gives its data; legacy data is checked as JAX checks it
    (TypeError naming the dtype or the shape), then, with `legacy_policy`,
    refused or warned about as `jax_legacy_prng_key` and
    `jax_enable_custom_prng` say; a key array where one key is expected is a
    ValueError, as in JAX."""
    if isinstance(key, PRNGKeyArray):
        data, legacy = key._data, False
    elif hasattr(key, "shape") and hasattr(key, "dtype"):
        if key.dtype != np.uint32:
            raise _invalid(f"expected key_data.dtype = uint32; got dtype={np.dtype(key.dtype)}")
        if len(key.shape) < 1 or tuple(key.shape[-1:]) != KEY_SHAPE:
            raise _invalid(f"expected key_data.shape to end with (2,); got shape={tuple(key.shape)} "
                           f"for impl={IMPL}")
        data = key if isinstance(key, core.ArrayBase) else _as_array(key)
        legacy = True
        if legacy_policy:
            _legacy_key_policy()
    else:
        raise _invalid(f"expected key_data to have ndim, shape, and dtype attributes. Got {key!r}")
    if not allow_batched and data.ndim > 1:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{tuple(data.shape[:-1]) if not legacy else tuple(key.shape)} != (). "
                         "Use jax.vmap for batching.")
    return data, legacy


def _legacy_key_policy() -> None:
    """JAX's answer to a uint32 key array: ValueError ('error'), UserWarning
    ('warn'), or under 'allow' a FutureWarning with jax_enable_custom_prng."""
    policy = config.jax_legacy_prng_key
    if policy == "error":
        raise ValueError(_LEGACY_KEY)
    if policy == "warn":
        warnings.warn(_LEGACY_KEY, stacklevel=4)
    elif config.jax_enable_custom_prng:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. Assuming valid "
                      "threefry2x32 key for now.", FutureWarning, stacklevel=4)


def returned(legacy: bool, data: Any) -> Any:
    """Keys in the style the caller passed: legacy data or typed keys (always
    typed under `jax_enable_custom_prng`, as in JAX)."""
    return data if legacy and not config.jax_enable_custom_prng else PRNGKeyArray(data)


def _as_array(x: Any) -> Any:
    from ..numpy import asarray
    return asarray(x)


# ---------------------------------------------------------------------------
# The threefry2x32 key operations on data
# ---------------------------------------------------------------------------

def _word(data: Any, j: int) -> Any:
    """data[..., j] of a single key: a 0-d uint32."""
    return lax.reshape(lax.slice(data, (j,), (j + 1,)), ())


def counters(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """(hi, lo) uint32 words of each element's row-major flat index."""
    n = math.prod(shape)
    if n >= 2 ** 32:
        flat = lax.reshape(lax.iota(np.uint64, n), shape)
        hi = lax.convert_element_type(lax.shift_right_logical(flat, np.uint64(32)), np.uint32)
        return hi, lax.convert_element_type(flat, np.uint32)
    lo = lax.reshape(lax.iota(np.uint32, n), shape)
    return lax.full(shape, 0, np.uint32), lo


def split_data(data: Any, shape: tuple[int, ...]) -> Any:
    """Key data of shape (*shape, 2): key i is threefry2x32(key, counter i)
    (under `jax_threefry_partitionable` False: JAX's earlier split, below)."""
    if not config.jax_threefry_partitionable:
        return _split_data_original(data, shape)
    hi, lo = counters(shape)
    b1, b2 = lax.threefry2x32(_word(data, 0), _word(data, 1), hi, lo)
    return lax.concatenate([lax.expand_dims(b1, (len(shape),)), lax.expand_dims(b2, (len(shape),))],
                           len(shape))


def fold_in_data(data: Any, message: Any) -> Any:
    """threefry2x32(key, (0, message)) as a new key."""
    zero = lax.full((), 0, np.uint32)
    b1, b2 = lax.threefry2x32(_word(data, 0), _word(data, 1), zero, message)
    return lax.concatenate([lax.reshape(b1, (1,)), lax.reshape(b2, (1,))], 0)


def seed_data(seed: Any) -> Any:
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
    return lax.concatenate([lax.reshape(hi, (1,)), lax.reshape(lo, (1,))], 0)


def random_bits(data: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Unsigned bits of `bit_width` (8/16/32/64) from one key's data."""
    if not config.jax_threefry_partitionable:
        return _random_bits_original(data, bit_width, shape)
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
    b1, b2 = lax.threefry2x32(_word(data, 0), _word(data, 1), lax.slice(flat, (0,), (half,)),
                              lax.slice(flat, (half,), (2 * half,)))
    return lax.reshape(lax.slice(lax.concatenate([b1, b2], 0), (0,), (n,)), count.shape)


def _split_data_original(data: Any, shape: tuple[int, ...]) -> Any:
    """threefry_2x32(key, [0, 1, ..., 2 * num - 1]) as num keys."""
    return lax.reshape(_threefry_2x32(data, lax.iota(np.uint32, 2 * math.prod(shape))), (*shape, 2))


def _random_bits_original(data: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
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
        hi, lo = (lax.convert_element_type(lax.slice(bits, (start,), (start + size,)), dtype)
                  for start in (0, size))
        bits = lax.bitwise_or(lax.shift_left(hi, lax.full((), 32, dtype)), lo)
    elif bit_width in (8, 16):
        per_word = 32 // bit_width
        shifts = lax.mul(lax.iota(np.uint32, per_word), lax.full((per_word,), bit_width, np.uint32))
        pieces = lax.shift_right_logical(lax.broadcast_in_dim(bits, (words, per_word), (0,)),
                                         lax.broadcast_in_dim(shifts, (words, per_word), (1,)))
        pieces = lax.bitwise_and(pieces, lax.full((words, per_word), (1 << bit_width) - 1, np.uint32))
        bits = lax.slice(lax.reshape(lax.convert_element_type(pieces, dtype), (words * per_word,)), (0,), (size,))
    return lax.reshape(bits, shape)


# ---------------------------------------------------------------------------
# Public key functions
# ---------------------------------------------------------------------------

def _impl_name(impl: Any, dtype: Any, where: str) -> None:
    if impl is not None and dtype is not None:
        raise ValueError(f"Cannot specify both `impl` and `dtype` arguments to jax.random.{where}")
    spec = dtype if dtype is not None else impl
    if spec is None or spec == IMPL or isinstance(spec, KeyDType):
        return
    raise ValueError(f"jaxc.random supports the PRNG implementation {IMPL!r} only, got {spec!r}")


def _seed_array(seed: Any, ctor: str) -> Any:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{ctor} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, core.ArrayBase):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, np.ndarray)):
        array = _as_array(seed)
        return array
    if isinstance(seed, int):
        seed = np.int64(seed)  # OverflowError beyond 64 bits, as in JAX
    seed = np.asarray(seed)
    if seed.dtype.itemsize == 8 and not dtypes.x64_enabled():
        seed = seed.astype(np.uint32 if seed.dtype.kind == "u" else np.int32)  # wraps, as JAX's x32 mode
    return _as_array(seed)


def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed PRNG key (shape (), dtype key<fry>) from an integer seed."""
    _impl_name(impl, dtype, "key")
    return PRNGKeyArray(seed_data(_seed_array(seed, "key")))


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """A legacy key: uint32[2] data `[seed >> 32, seed & 0xFFFFFFFF]` (a
    typed key under `jax_enable_custom_prng`)."""
    _impl_name(impl, None, "PRNGKey")
    return returned(True, seed_data(_seed_array(seed, "PRNGKey")))


def _split_shape(num: Any) -> tuple[int, ...]:
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"split: num must be an integer or a tuple of integers, got {num!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"split: num must be non-negative, got {num!r}")
    return shape


def split(key: Any, num: Any = 2) -> Any:
    """`num` new keys (an int or a shape) along new leading axes."""
    data, legacy = check_key("split", key)
    return returned(legacy, split_data(data, _split_shape(num)))


def fold_in(key: Any, data: Any) -> Any:
    """A new key from `key` and a 32-bit integer `data`."""
    key_data_, legacy = check_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, int) and not 0 <= data < 2 ** 32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    message = _as_array(data).astype(np.uint32) if not isinstance(data, int) \
        else _as_array(np.uint32(data))
    return returned(legacy, fold_in_data(key_data_, message))


def clone(key: Any) -> Any:
    """The same key (JAX uses it to mark a key as consumed twice on purpose)."""
    check_key("clone", key, allow_batched=True, legacy_policy=False)
    return key


def key_data(keys: Any) -> Any:
    """The uint32 data (..., 2) under typed or legacy keys."""
    data, _ = check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """Typed keys over uint32 data whose last axis has length 2."""
    _impl_name(impl, dtype, "wrap_key_data")
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data: the argument is already a typed key array")
    data, _ = check_key("wrap_key_data", key_bits_array, allow_batched=True, legacy_policy=False)
    return PRNGKeyArray(data)


def key_impl(keys: Any) -> str:
    """The name of the keys' PRNG implementation ('threefry2x32')."""
    check_key("key_impl", keys, allow_batched=True)
    return IMPL


def key_dtype(impl_spec: Any = None) -> KeyDType:
    """The dtype of typed keys of an implementation (only threefry2x32)."""
    _impl_name(impl_spec, None, "key_dtype")
    return KEY_DTYPE


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Uniform random unsigned integers (uint32 by default, uint64 with x64)."""
    data, _ = check_key("bits", key)
    dtype = dtypes.canonicalize(np.uint64 if dtype is None and dtypes.x64_enabled()
                                else np.uint32 if dtype is None else dtype)
    if not np.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return random_bits(data, dtype.itemsize * 8, canonical_shape(shape, "bits"))


def canonical_shape(shape: Any, name: str = "") -> tuple[int, ...]:
    """`shape` as a tuple of non-negative ints, with JAX's TypeErrors (`name`,
    the sampler, is for the caller's reading only: JAX's words do not say it)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        result = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {tuple(shape) if isinstance(shape, (list, tuple)) else shape}.") from None
    if any(d < 0 for d in result):
        raise TypeError("Only non-negative indices are allowed when broadcasting static shapes, "
                        f"but got shape {result}.")
    return result
