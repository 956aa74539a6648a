"""jaxc.random under JAX's PRNG options: `jax_threefry_partitionable` False
(the bits of JAX before 0.5) against JAX's bits, and `jax_legacy_prng_key` /
`jax_enable_custom_prng` (what a uint32 key array gets) against JAX's
errors, warnings and key types."""
import warnings

import numpy as np
import pytest
from random_cases import Case, check, package_of

import jaxc
import jaxc.numpy as jnp
from jaxc import random


def legacy(fn):
    """The case `fn` with jax_threefry_partitionable False."""
    def run(r, np_):
        with package_of(r).threefry_partitionable(False):
            return fn(r, np_)
    return run


def _jit_in_both_modes(r):
    """One jit function called in both modes: each call gets its own mode's bits."""
    package = package_of(r)
    f = package.jit(lambda k: r.uniform(k, (3,)))
    with package.threefry_partitionable(False):
        old = f(r.PRNGKey(0))
    return old, f(r.PRNGKey(0))


def _scan_normals(r):
    def step(key, _):
        key, sub = r.split(key)
        return key, r.normal(sub, (2,))
    return package_of(r).lax.scan(step, r.PRNGKey(0), None, length=5)


CASES = {
    # split: the counters 0 .. 2n-1 hashed in two halves
    "split_2": Case(legacy(lambda r, np_: r.split(r.PRNGKey(0)))),
    "split_5": Case(legacy(lambda r, np_: r.split(r.PRNGKey(3), 5))),
    "split_shape_typed": Case(legacy(lambda r, np_: r.split(r.key(1), (2, 3)))),
    "split_0": Case(legacy(lambda r, np_: r.split(r.PRNGKey(1), 0))),
    "split_1": Case(legacy(lambda r, np_: r.split(r.PRNGKey(1), 1))),
    "fold_in": Case(legacy(lambda r, np_: r.fold_in(r.PRNGKey(0), 5))),
    # bits: an odd number of words (a zero appended), 8/16-bit pieces of words, 64-bit halves
    "bits_u32_odd": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(0), (7,)))),
    "bits_u32_even": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(0), (2, 4)))),
    "bits_u8": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(0), (3, 5), np.uint8))),
    "bits_u8_one": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(4), (1,), np.uint8))),
    "bits_u16_odd_words": Case(legacy(lambda r, np_: r.bits(r.key(2), (9,), np.uint16))),
    "bits_u64_x64": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(0), (5,), np.uint64)), x64=True),
    "bits_scalar": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(11)))),
    "bits_empty": Case(legacy(lambda r, np_: r.bits(r.PRNGKey(11), (0, 3)))),
    # samplers built on them
    "uniform": Case(legacy(lambda r, np_: r.uniform(r.PRNGKey(0), (100,)))),
    "uniform_f64": Case(legacy(lambda r, np_: r.uniform(r.PRNGKey(3), (9,), np_.float64)), x64=True),
    "uniform_bf16": Case(legacy(lambda r, np_: r.uniform(r.PRNGKey(3), (33,), np_.bfloat16))),
    "normal": Case(legacy(lambda r, np_: r.normal(r.key(1), (30, 20)))),
    "randint": Case(legacy(lambda r, np_: r.randint(r.PRNGKey(0), (101,), -5, 1000))),
    "randint_int8": Case(legacy(lambda r, np_: r.randint(r.PRNGKey(3), (17,), -128, 128, np_.int8))),
    "bernoulli": Case(legacy(lambda r, np_: r.bernoulli(r.PRNGKey(0), 0.3, (50,)))),
    "permutation": Case(legacy(lambda r, np_: r.permutation(r.PRNGKey(2), 20))),
    "choice": Case(legacy(lambda r, np_: r.choice(r.PRNGKey(5), 10, (4,), replace=False))),
    "gamma": Case(legacy(lambda r, np_: r.gamma(r.PRNGKey(6), 2.5, (6,)))),
    "truncated_normal": Case(legacy(lambda r, np_: r.truncated_normal(r.PRNGKey(0), -1.0, 2.0, (40,)))),
    # under jit, vmap and scan; one jit function in both modes
    "jit_normal": Case(legacy(lambda r, np_: package_of(r).jit(lambda k: r.normal(k, (5,)))(r.PRNGKey(3)))),
    "vmap_over_split_keys": Case(legacy(lambda r, np_: package_of(r).vmap(lambda k: r.normal(k, (4,)))(
        r.split(r.PRNGKey(0), 6)))),
    "scan_keys": Case(legacy(lambda r, np_: _scan_normals(r))),
    "jit_in_both_modes": Case(lambda r, np_: _jit_in_both_modes(r)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


def test_the_modes_differ_and_the_option_comes_back():
    new = np.asarray(random.bits(random.PRNGKey(0), (4,)))
    with jaxc.threefry_partitionable(False):
        old = np.asarray(random.bits(random.PRNGKey(0), (4,)))
    assert not np.array_equal(old, new)
    assert jaxc.config.jax_threefry_partitionable is True
    np.testing.assert_array_equal(random.bits(random.PRNGKey(0), (4,)), new)


LEGACY_MESSAGE = "Legacy uint32 key array passed as key to jax.random function"
RAW_KEY_USES = {
    "uniform": lambda k: random.uniform(k),
    "split": lambda k: random.split(k),
    "fold_in": lambda k: random.fold_in(k, 1),
    "key_data": lambda k: random.key_data(k),
    "normal_jit": lambda k: jaxc.jit(lambda k: random.normal(k))(k),
}


@pytest.mark.parametrize("use", sorted(RAW_KEY_USES))
def test_legacy_prng_key_error_refuses_raw_keys(use):
    with jaxc.legacy_prng_key("error"):
        with pytest.raises(ValueError, match=LEGACY_MESSAGE):
            RAW_KEY_USES[use](random.PRNGKey(0))
        RAW_KEY_USES[use](random.key(0))  # typed keys are fine


def test_legacy_prng_key_error_leaves_wrap_and_clone_alone():
    with jaxc.legacy_prng_key("error"):
        typed = random.wrap_key_data(random.PRNGKey(3))
        assert str(typed.dtype) == "key<fry>"
        random.clone(random.PRNGKey(3))


def test_legacy_prng_key_warn_and_allow():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with jaxc.legacy_prng_key("warn"):
            warned = random.normal(random.PRNGKey(0))
        plain = random.normal(random.PRNGKey(0))
    assert [w.category for w in caught] == [UserWarning]
    assert LEGACY_MESSAGE in str(caught[0].message)
    assert float(warned) == float(plain)


def test_legacy_prng_key_takes_only_jax_values():
    with pytest.raises(ValueError, match="new enum value must be"):
        jaxc.config.update("jax_legacy_prng_key", "sometimes")
    assert jaxc.config.jax_legacy_prng_key == "allow"


def test_enable_custom_prng_types_keys_and_warns_on_raw_ones():
    raw = np.array([0, 0], np.uint32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with jaxc.enable_custom_prng(True):
            key = random.PRNGKey(0)
            keys = random.split(raw)
            folded = random.fold_in(raw, 3)
            value = random.normal(raw)
    assert str(key.dtype) == "key<fry>" and key.shape == ()
    assert str(keys.dtype) == "key<fry>" and keys.shape == (2,)
    assert str(folded.dtype) == "key<fry>"
    assert [w.category for w in caught] == [FutureWarning] * 3
    assert float(value) == float(random.normal(random.key(0)))
    assert random.PRNGKey(0).dtype == np.uint32  # and back


def test_partitionable_option_is_part_of_the_jit_key():
    f = jaxc.jit(lambda k: random.bits(k, (3,)))
    key = random.PRNGKey(1)
    new = np.asarray(f(key))
    with jaxc.threefry_partitionable(False):
        old = np.asarray(f(key))
        np.testing.assert_array_equal(f(key), old)  # the fast path keeps the modes apart too
    np.testing.assert_array_equal(f(key), new)
    assert f._cache_size() == 2 and not np.array_equal(old, new)


def test_environment_variable_sets_the_mode(monkeypatch):
    from jaxc import _config
    monkeypatch.setenv("JAX_THREEFRY_PARTITIONABLE", "0")
    assert _config.Config().jax_threefry_partitionable is False


def test_vmap_of_bits_matches_a_loop():
    keys = random.split(random.PRNGKey(7), 4)
    with jaxc.threefry_partitionable(False):
        batched = np.asarray(jaxc.vmap(lambda k: random.bits(k, (5,), jnp.uint16))(keys))
        looped = np.stack([np.asarray(random.bits(k, (5,), jnp.uint16)) for k in keys])
    np.testing.assert_array_equal(batched, looped)
