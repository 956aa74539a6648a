"""Keys of `jaxc.random`: typed key arrays over the key data of a PRNG
implementation (`_impls.py`: threefry2x32 by default, five others).

A *legacy* key is key data itself, a uint32 array whose last axis is the
implementation's key shape (`PRNGKey(0)` is `[0, 0]` for threefry2x32); a
*typed* key (`key(0)`) is a `PRNGKeyArray` of shape `data.shape[:-1]` and
dtype `key<fry>` (`key<rbg>`, ...) over such data. Every function accepts
both and returns keys in the style it was given; legacy data belongs to the
default implementation (`jax_default_prng_impl`). The samplers work on typed
keys throughout (`check_key` makes one), so one sampler serves every
implementation:

    split_keys(k, (2,))[0]   -> a typed key of k's implementation
    key_bits(k, 32, shape)   -> uint32 bits of shape

A PRNGKeyArray is a pytree over its data (the implementation is static), so
it passes through jit, vmap, grad, scan and fori_loop like any array.
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
from . import _impls
from ._impls import PRNGImpl


class KeyDType:
    """The dtype of typed keys of one implementation, printed `key<tag>`."""

    _is_prng_key = True

    def __init__(self, impl: PRNGImpl) -> None:
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def impl(self) -> str:
        return self._impl.name

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, KeyDType) and other._impl is self._impl

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPES = {name: KeyDType(impl) for name, impl in _impls.IMPLS.items()}


class PRNGKeyArray:
    """An array of typed keys: shape `data.shape[:-1]`, dtype `key<tag>`.

        >>> k = random.split(random.key(0), 3)
        >>> k.shape, k.dtype, random.key_data(k).shape
        ((3,), key<fry>, (3, 2))
    """

    __slots__ = ("_data", "_impl", "_consumed")
    __array_priority__ = 100

    def __init__(self, data: Any, impl: PRNGImpl | None = None) -> None:
        self._data = data
        self._impl = impl if impl is not None else _impls.IMPLS["threefry2x32"]
        # under jax_debug_key_reuse: which keys were consumed (a bool array of
        # the keys' shape, shared with the keys indexed out of these)
        self._consumed: np.ndarray | None = None

    def _like(self, data: Any) -> "PRNGKeyArray":
        return PRNGKeyArray(data, self._impl)

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
        return KEY_DTYPES[self._impl.name]

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        # unstacked copies, as JAX's: their consumption is their own
        return (self._like(self._data[i]) for i in range(self.shape[0]))

    def __getitem__(self, index: Any) -> "PRNGKeyArray":
        index = index if isinstance(index, tuple) else (index,)
        data_index = (*index, slice(None)) if any(i is Ellipsis for i in index) else index
        out = self._like(self._data[data_index])
        if config.jax_debug_key_reuse:
            out._consumed = _mask_of_part(_mask(self), index, out.shape)
        return out

    def reshape(self, *shape: Any) -> "PRNGKeyArray":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        size = self.size
        shape = tuple(int(d) for d in shape)
        if shape.count(-1) == 1:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(size // known if d == -1 else d for d in shape)
        return self._like(lax.reshape(self._data, (*shape, *self._impl.key_shape)))

    def ravel(self) -> "PRNGKeyArray":
        return self.reshape(-1)

    @property
    def T(self) -> "PRNGKeyArray":
        perm = (*reversed(range(self.ndim)), self.ndim)
        return self._like(lax.transpose(self._data, perm))

    def _comparable(self, other: Any, op: str) -> bool:
        if not isinstance(other, PRNGKeyArray):
            return False
        if other._impl is not self._impl:
            raise TypeError(f"{op} does not accept dtypes {self.dtype}, {other.dtype}.")
        return True

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not self._comparable(other, "equal"):
            return NotImplemented
        return lax.reduce_and(lax.eq(self._data, other._data), (self._data.ndim - 1,))

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not self._comparable(other, "not_equal"):
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
            return f"Traced<{self.dtype}[{','.join(map(str, self.shape))}]>"
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._data)}"

    __str__ = __repr__


def _unflatten(impl: PRNGImpl, leaves: Any) -> PRNGKeyArray:
    (data,) = leaves
    return PRNGKeyArray(data, impl)


register_pytree_node(PRNGKeyArray, lambda k: ((k._data,), k._impl), _unflatten)


# ---------------------------------------------------------------------------
# Checking keys
# ---------------------------------------------------------------------------

def _invalid(what: str) -> TypeError:
    return TypeError(f"JAX encountered invalid PRNG key data: {what}")


_LEGACY_KEY = ("Legacy uint32 key array passed as key to jax.random function. Please create keys using "
               "jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key=\"allow\".")


def check_key(name: str, key: Any, *, allow_batched: bool = False, legacy_policy: bool = True,
              impl: PRNGImpl | None = None, consumes: bool = True) -> tuple["PRNGKeyArray", bool]:
    """(the key as a typed key, was it legacy data?).

    Legacy data belongs to `impl` (by default `jax_default_prng_impl`) and
    is checked as JAX checks it (TypeError naming the dtype or the shape),
    then, with `legacy_policy`, refused or warned about as
    `jax_legacy_prng_key` and `jax_enable_custom_prng` say; a key array
    where one key is expected is a ValueError, as in JAX. `consumes`: the
    caller draws from the key (`consume`; typed keys only, as JAX checks)."""
    if isinstance(key, PRNGKeyArray):
        typed, legacy = key, False
        if consumes:
            consume(typed, name)
    elif hasattr(key, "shape") and hasattr(key, "dtype"):
        impl = impl if impl is not None else _impls.default()
        if key.dtype != np.uint32:
            raise _invalid(f"expected key_data.dtype = uint32; got dtype={np.dtype(key.dtype)}")
        if len(key.shape) < 1 or tuple(key.shape[-1:]) != impl.key_shape:
            raise _invalid(f"expected key_data.shape to end with {impl.key_shape}; got "
                           f"shape={tuple(key.shape)} for impl={impl.name}")
        typed = PRNGKeyArray(key if isinstance(key, core.ArrayBase) else _as_array(key), impl)
        legacy = True
        if legacy_policy:
            _legacy_key_policy(impl)
    else:
        raise _invalid(f"expected key_data to have ndim, shape, and dtype attributes. Got {key!r}")
    if not allow_batched and typed.ndim > 0:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{typed.shape if not legacy else tuple(key.shape)} != (). "
                         "Use jax.vmap for batching.")
    return typed, legacy


def _legacy_key_policy(impl: PRNGImpl) -> None:
    """JAX's answer to a uint32 key array: ValueError ('error'), UserWarning
    ('warn'), or under 'allow' a FutureWarning with jax_enable_custom_prng."""
    policy = config.jax_legacy_prng_key
    if policy == "error":
        raise ValueError(_LEGACY_KEY)
    if policy == "warn":
        warnings.warn(_LEGACY_KEY, stacklevel=4)
    elif config.jax_enable_custom_prng:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. Assuming valid "
                      f"{impl.name} key for now.", FutureWarning, stacklevel=4)


def returned(legacy: bool, keys: "PRNGKeyArray") -> Any:
    """Keys in the style the caller passed: legacy data or typed keys (always
    typed under `jax_enable_custom_prng`, as in JAX)."""
    return keys._data if legacy and not config.jax_enable_custom_prng else keys


def _as_array(x: Any) -> Any:
    from ..numpy import asarray
    return asarray(x)


# ---------------------------------------------------------------------------
# jax_debug_key_reuse: consumed keys
# ---------------------------------------------------------------------------

KeyReuseError = core.KeyReuseError


def _mask(keys: "PRNGKeyArray") -> np.ndarray:
    if keys._consumed is None:
        keys._consumed = np.zeros(keys.shape, np.bool_)
    return keys._consumed


def _mask_of_part(mask: np.ndarray, index: tuple, shape: tuple[int, ...]) -> np.ndarray:
    """The part of `mask` that `index` selects: a view where NumPy gives one
    (ints and slices), so consuming a part marks the whole; else a copy."""
    if index.count(Ellipsis) == 1:
        at = index.index(Ellipsis)
        index = (*index[:at], *[slice(None)] * (mask.ndim - len(index) + 1), *index[at + 1:])
    if all(isinstance(i, (int, np.integer, slice)) for i in index) and len(index) <= mask.ndim:
        as_slices = tuple(slice(int(i) % mask.shape[d], int(i) % mask.shape[d] + 1)
                          if isinstance(i, (int, np.integer)) else i for d, i in enumerate(index))
        try:
            view = mask[as_slices]
            return view.reshape(shape) if view.size == math.prod(shape) else np.zeros(shape, np.bool_)
        except (IndexError, ValueError):
            pass
    try:
        return np.array(mask[tuple(np.asarray(i) if isinstance(i, core.ArrayBase) else i for i in index)],
                        np.bool_).reshape(shape)
    except Exception:  # a traced index: the part cannot be told
        return np.zeros(shape, np.bool_)


def _tracked(keys: "PRNGKeyArray") -> bool:
    """Whether this key's consumption is tracked here: outside any trace, or
    inside one for keys whose data belongs to the innermost scope (made or
    passed in there). Keys closed over from outside a trace or region are
    not (each trace of a region would consume them again)."""
    scope = core.current_scope()
    if scope is None:
        return not isinstance(keys._data, core.Tracer)
    return isinstance(keys._data, core.Tracer) and keys._data.scope is scope


def _in_a_loop_body(keys: "PRNGKeyArray") -> bool:
    """Whether a loop body lies between the current scope and where `keys`
    come from: drawing from them there draws in every iteration."""
    home = keys._data.scope if isinstance(keys._data, core.Tracer) else None
    scope = core.current_scope()
    while scope is not None and scope is not home:
        if scope.repeats:
            return True
        scope = scope.parent
    return False


def consume(keys: "PRNGKeyArray", name: str) -> None:
    """Under `jax_debug_key_reuse`: KeyReuseError if any of `keys` was
    consumed before, or if a loop body draws from keys made outside it,
    else mark them consumed."""
    if not config.jax_debug_key_reuse:
        return
    if not _tracked(keys):
        if _in_a_loop_body(keys):
            raise KeyReuseError(f"Previously-consumed key passed to {name} at index 0: a loop body draws "
                                "from a key made outside it, in every iteration (key reuse when repeatedly "
                                "executed)")
        return
    mask = _mask(keys)
    if mask.any():
        raise KeyReuseError(f"Previously-consumed key passed to {name} at index 0")
    mask[...] = True


def consumed_pattern(keys: Any) -> np.ndarray | None:
    """The consumed mask of a PRNGKeyArray (None if it has none or is
    not one): what a jit trace did to a key argument."""
    return keys._consumed if isinstance(keys, PRNGKeyArray) and keys._consumed is not None \
        and keys._consumed.any() else None


def consume_pattern(keys: Any, pattern: np.ndarray, position: int) -> None:
    """A jit call consumes `pattern` of its key argument `keys`."""
    if not isinstance(keys, PRNGKeyArray) or not _tracked(keys):
        return
    mask = _mask(keys)
    if (mask & pattern).any():
        raise KeyReuseError(f"Previously-consumed key passed to jit-compiled function at index {position}")
    mask |= pattern


# ---------------------------------------------------------------------------
# What the samplers call
# ---------------------------------------------------------------------------

def split_keys(key: PRNGKeyArray, shape: tuple[int, ...]) -> PRNGKeyArray:
    """Keys of `shape` split from one typed key, of its implementation."""
    return key._like(key._impl.split(key._data, shape))


def key_bits(key: PRNGKeyArray, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Unsigned bits of `bit_width` (8/16/32/64) and `shape` from one typed key."""
    return key._impl.random_bits(key._data, bit_width, shape)


# ---------------------------------------------------------------------------
# Public key functions
# ---------------------------------------------------------------------------

def _resolve_impl(impl: Any, dtype: Any, where: str) -> PRNGImpl:
    """The implementation an `impl=` (a name or a key dtype) or `dtype=`
    argument names; the default where neither is given."""
    if impl is not None and dtype is not None:
        raise ValueError(f"Cannot specify both `impl` and `dtype` arguments to jax.random.{where}")
    spec = dtype if dtype is not None else impl
    if spec is None:
        return _impls.default()
    if isinstance(spec, KeyDType):
        return spec._impl
    if isinstance(spec, PRNGImpl):
        return spec
    return _impls.by_name(spec)


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
    """A typed PRNG key (shape (), dtype key<fry> or the `impl`'s) from an
    integer seed."""
    impl_ = _resolve_impl(impl, dtype, "key")
    return PRNGKeyArray(impl_.seed(_seed_array(seed, "key")), impl_)


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """A legacy key: the implementation's uint32 key data (threefry2x32:
    `[seed >> 32, seed & 0xFFFFFFFF]`); a typed key under
    `jax_enable_custom_prng`."""
    impl_ = _resolve_impl(impl, None, "PRNGKey")
    return returned(True, PRNGKeyArray(impl_.seed(_seed_array(seed, "PRNGKey")), impl_))


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
    typed, legacy = check_key("split", key)
    return returned(legacy, split_keys(typed, _split_shape(num)))


def fold_in(key: Any, data: Any) -> Any:
    """A new key from `key` and a 32-bit integer `data`."""
    typed, legacy = check_key("fold_in", key, consumes=False)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, int) and not 0 <= data < 2 ** 32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    message = _as_array(data).astype(np.uint32) if not isinstance(data, int) \
        else _as_array(np.uint32(data))
    return returned(legacy, typed._like(typed._impl.fold_in(typed._data, message)))


def clone(key: Any) -> Any:
    """The same key, not yet consumed (`jax_debug_key_reuse`): a way to use
    one key twice on purpose."""
    typed, legacy = check_key("clone", key, allow_batched=True, legacy_policy=False, consumes=False)
    return key if legacy else typed._like(typed._data)


def key_data(keys: Any) -> Any:
    """The uint32 data (..., *key shape) under typed or legacy keys."""
    typed, _ = check_key("key_data", keys, allow_batched=True, consumes=False)
    return typed._data


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """Typed keys of `impl` (the default implementation if not given) over
    uint32 data whose last axis is that implementation's key shape."""
    impl_ = _resolve_impl(impl, dtype, "wrap_key_data")
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data: the argument is already a typed key array")
    typed, _ = check_key("wrap_key_data", key_bits_array, allow_batched=True, legacy_policy=False, impl=impl_,
                         consumes=False)
    return typed


def key_impl(keys: Any) -> str:
    """The name of the keys' PRNG implementation ('threefry2x32', 'rbg', ...;
    uint32 key data: the default implementation's)."""
    typed, _ = check_key("key_impl", keys, allow_batched=True, consumes=False)
    return typed._impl.name


def key_dtype(impl_spec: Any = None) -> KeyDType:
    """The dtype of typed keys of an implementation (the default if None)."""
    return KEY_DTYPES[_resolve_impl(impl_spec, None, "key_dtype").name]


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Uniform random unsigned integers (uint32 by default, uint64 with x64)."""
    typed, _ = check_key("bits", key)
    dtype = dtypes.canonicalize(np.uint64 if dtype is None and dtypes.x64_enabled()
                                else np.uint32 if dtype is None else dtype)
    if not np.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return key_bits(typed, dtype.itemsize * 8, canonical_shape(shape, "bits"))


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
