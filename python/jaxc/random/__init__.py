"""`jaxc.random`: JAX's functional PRNG, bit for bit.

    from jaxc import random
    key = random.key(0)                 # or the legacy random.PRNGKey(0)
    key, sub = random.split(key)
    x = random.normal(sub, (3, 2))      # the numbers jax.random.normal gives

Keys are threefry2x32 keys with JAX's defaults (partitionable threefry),
or of JAX's five other implementations (`key(0, impl="rbg")`,
`jaxc.default_prng_impl`); every sampler follows JAX's algorithm so that the same key, shape and dtype
give the same bits as JAX 0.10, eagerly, under jit, under vmap over keys and
inside scan/fori_loop. See docs/random.md.
"""
from __future__ import annotations

from . import _continuous, _counts, _discrete, _gamma, _keys, _linalg, _uniform  # noqa: F401
from ._continuous import *  # noqa: F401,F403
from ._counts import *  # noqa: F401,F403
from ._discrete import *  # noqa: F401,F403
from ._gamma import *  # noqa: F401,F403
from ._keys import (PRNGKey, PRNGKeyArray, bits, clone, fold_in, key, key_data, key_dtype, key_impl,  # noqa: F401
                    split, wrap_key_data)
from ._linalg import *  # noqa: F401,F403
from ._uniform import bernoulli, normal, randint, truncated_normal, uniform  # noqa: F401

__all__ = sorted([
    "PRNGKey", "PRNGKeyArray", "bernoulli", "bits", "clone", "fold_in", "key", "key_data", "key_dtype",
    "key_impl", "normal", "randint", "split", "truncated_normal", "uniform", "wrap_key_data",
    *_continuous.__all__, *_counts.__all__, *_discrete.__all__, *_gamma.__all__, *_linalg.__all__,
])
