"""jaxc.random keys (PRNGKey, key, split, fold_in, bits, key_data, wrap_key_data)
and the base samplers (uniform, normal, randint, bernoulli, truncated_normal)
against JAX's bits, and the keys' behaviour under jit, vmap, scan and grad."""
import numpy as np
import pytest
from random_cases import Case, check, package_of

import jaxc
import jaxc.numpy as jnp
from jaxc import random

CASES = {
    # seeds: 32-bit wrap of 64-bit seeds without x64, the high word with x64
    "PRNGKey_0": Case(lambda r, np_: r.PRNGKey(0)),
    "PRNGKey_42": Case(lambda r, np_: r.PRNGKey(42)),
    "PRNGKey_minus_1": Case(lambda r, np_: r.PRNGKey(-1)),
    "PRNGKey_2_32_plus_5": Case(lambda r, np_: r.PRNGKey(2 ** 32 + 5)),
    "PRNGKey_max_int64": Case(lambda r, np_: r.PRNGKey(2 ** 63 - 1)),
    "PRNGKey_uint32_seed": Case(lambda r, np_: r.PRNGKey(np.uint32(0xDEADBEEF))),
    "PRNGKey_int64_seed": Case(lambda r, np_: r.PRNGKey(np.int64(2 ** 40 + 3))),
    "PRNGKey_int8_seed": Case(lambda r, np_: r.PRNGKey(np.int8(-3))),
    "PRNGKey_x64_minus_1": Case(lambda r, np_: r.PRNGKey(-1), x64=True),
    "PRNGKey_x64_big": Case(lambda r, np_: r.PRNGKey(2 ** 40 + 3), x64=True),
    "PRNGKey_x64_max": Case(lambda r, np_: r.PRNGKey(2 ** 63 - 1), x64=True),
    "key_typed": Case(lambda r, np_: r.key(7)),
    # split and fold_in
    "split_2": Case(lambda r, np_: r.split(r.PRNGKey(0))),
    "split_5": Case(lambda r, np_: r.split(r.PRNGKey(3), 5)),
    "split_shape": Case(lambda r, np_: r.split(r.key(1), (2, 3))),
    "split_0": Case(lambda r, np_: r.split(r.PRNGKey(1), 0)),
    "split_1": Case(lambda r, np_: r.split(r.PRNGKey(1), 1)),
    "split_of_split": Case(lambda r, np_: r.split(r.split(r.PRNGKey(0))[1], 3)),
    "fold_in": Case(lambda r, np_: r.fold_in(r.PRNGKey(0), 5)),
    "fold_in_typed": Case(lambda r, np_: r.fold_in(r.key(4), 2 ** 32 - 1)),
    "fold_in_array": Case(lambda r, np_: r.fold_in(r.PRNGKey(9), np_.uint32(12345))),
    "wrap_key_data": Case(lambda r, np_: r.normal(r.wrap_key_data(r.key_data(r.split(r.key(0)))[1]), (3,))),
    # bits
    "bits_u32": Case(lambda r, np_: r.bits(r.PRNGKey(0), (7,))),
    "bits_u8": Case(lambda r, np_: r.bits(r.PRNGKey(0), (3, 5), np.uint8)),
    "bits_u16": Case(lambda r, np_: r.bits(r.key(2), (9,), np.uint16)),
    "bits_u64_x64": Case(lambda r, np_: r.bits(r.PRNGKey(0), (5,), np.uint64), x64=True),
    "bits_default_x64": Case(lambda r, np_: r.bits(r.PRNGKey(1), (4,)), x64=True),
    "bits_scalar": Case(lambda r, np_: r.bits(r.PRNGKey(11))),
    "bits_empty": Case(lambda r, np_: r.bits(r.PRNGKey(11), (0, 3))),
    # uniform
    "uniform_f32": Case(lambda r, np_: r.uniform(r.PRNGKey(0), (1000,))),
    "uniform_scalar": Case(lambda r, np_: r.uniform(r.key(5))),
    "uniform_bounds": Case(lambda r, np_: r.uniform(r.PRNGKey(1), (3, 4), minval=-2.0, maxval=5.0)),
    "uniform_array_bounds": Case(lambda r, np_: r.uniform(
        r.PRNGKey(2), (3, 4), minval=np_.arange(4.0), maxval=np_.arange(1.0, 13.0, 3.0))),
    "uniform_f16": Case(lambda r, np_: r.uniform(r.PRNGKey(3), (64,), np_.float16)),
    "uniform_bf16": Case(lambda r, np_: r.uniform(r.PRNGKey(3), (64,), np_.bfloat16, -1, 1)),
    "uniform_f64": Case(lambda r, np_: r.uniform(r.PRNGKey(3), (64,), np_.float64), x64=True),
    "uniform_f64_without_x64": Case(lambda r, np_: r.uniform(r.PRNGKey(3), (8,), np_.float64)),
    "uniform_empty": Case(lambda r, np_: r.uniform(r.PRNGKey(3), (2, 0))),
    # normal
    "normal_f32": Case(lambda r, np_: r.normal(r.PRNGKey(0), (1000,))),
    "normal_2d": Case(lambda r, np_: r.normal(r.key(1), (30, 20))),
    "normal_f16": Case(lambda r, np_: r.normal(r.PRNGKey(2), (64,), np_.float16)),
    "normal_bf16": Case(lambda r, np_: r.normal(r.PRNGKey(2), (64,), np_.bfloat16)),
    "normal_f64": Case(lambda r, np_: r.normal(r.PRNGKey(2), (256,), np_.float64), x64=True),
    "normal_scalar": Case(lambda r, np_: r.normal(r.PRNGKey(6))),
    "normal_c64": Case(lambda r, np_: r.normal(r.PRNGKey(7), (300,), np_.complex64)),
    "normal_c128": Case(lambda r, np_: r.normal(r.PRNGKey(7), (2, 50), np_.complex128), x64=True),
    # truncated_normal
    "truncated_normal": Case(lambda r, np_: r.truncated_normal(r.PRNGKey(0), -1.0, 2.0, (500,))),
    "truncated_normal_bounds_shape": Case(lambda r, np_: r.truncated_normal(
        r.PRNGKey(1), np_.array([-3.0, 0.0, 1.0]), np_.array([[3.0], [0.5]]))),
    "truncated_normal_f64": Case(lambda r, np_: r.truncated_normal(
        r.PRNGKey(1), -0.5, 0.5, (100,), np_.float64), x64=True),
    # bernoulli
    "bernoulli": Case(lambda r, np_: r.bernoulli(r.PRNGKey(0), 0.3, (100,))),
    "bernoulli_p_array": Case(lambda r, np_: r.bernoulli(r.PRNGKey(1), np_.linspace(0.0, 1.0, 11))),
    "bernoulli_high": Case(lambda r, np_: r.bernoulli(r.PRNGKey(2), 1e-3, (200,), mode="high")),
    "bernoulli_default": Case(lambda r, np_: r.bernoulli(r.key(3))),
    # randint
    "randint": Case(lambda r, np_: r.randint(r.PRNGKey(0), (100,), 0, 10)),
    "randint_negative": Case(lambda r, np_: r.randint(r.PRNGKey(1), (50,), -100, 37)),
    "randint_uint8_beyond": Case(lambda r, np_: r.randint(r.PRNGKey(2), (64,), -5, 256, np_.uint8)),
    "randint_int8": Case(lambda r, np_: r.randint(r.PRNGKey(3), (64,), -128, 128, np_.int8)),
    "randint_int16": Case(lambda r, np_: r.randint(r.PRNGKey(3), (64,), 0, 1000, np_.int16)),
    "randint_empty_range": Case(lambda r, np_: r.randint(r.PRNGKey(4), (5,), 3, 3)),
    "randint_array_bounds": Case(lambda r, np_: r.randint(
        r.PRNGKey(5), (2, 3), np_.array([0, 10, 20]), np_.array([[5], [1000]]))),
    "randint_full_int32": Case(lambda r, np_: r.randint(r.PRNGKey(6), (20,), -2 ** 31, 2 ** 31 - 1)),
    "randint_int64_x64": Case(lambda r, np_: r.randint(r.PRNGKey(7), (20,), -2 ** 40, 2 ** 50), x64=True),
    "randint_uint32": Case(lambda r, np_: r.randint(r.PRNGKey(8), (20,), np_.uint32(0), np_.uint32(4_000_000_000), np_.uint32)),
    # under jit and vmap over keys, inside scan
    "jit_normal": Case(lambda r, np_: _jit_of(r)(lambda k: r.normal(k, (5,)))(r.PRNGKey(3))),
    "vmap_over_split_keys": Case(lambda r, np_: _vmap_of(r)(lambda k: r.normal(k, (4,)))(
        r.split(r.PRNGKey(0), 6))),
    "vmap_typed_keys": Case(lambda r, np_: _vmap_of(r)(lambda k: r.uniform(k, (3,)))(
        r.split(r.key(1), 4))),
    "vmap_split": Case(lambda r, np_: _vmap_of(r)(lambda k: r.split(k, 3))(r.split(r.PRNGKey(2), 4))),
    "vmap_fold_in": Case(lambda r, np_: _vmap_of(r)(lambda d: r.fold_in(r.PRNGKey(2), d))(
        np_.arange(5, dtype=np_.uint32))),
    "vmap_randint": Case(lambda r, np_: _vmap_of(r)(lambda k: r.randint(k, (3,), 0, 100))(
        r.split(r.PRNGKey(9), 5))),
    "scan_keys": Case(lambda r, np_: _scan_normals(r)),
    "vmap_keys_unbatched_scale": Case(lambda r, np_: package_of(r).vmap(
        lambda k, s: r.normal(k, (3,)) * s, in_axes=(0, None))(r.split(r.PRNGKey(4), 4), 2.5)),
    "grad_reparameterised": Case(lambda r, np_: package_of(r).grad(
        lambda mu, sigma: np_.sum((mu + sigma * r.normal(r.PRNGKey(5), (8,))) ** 2), argnums=(0, 1))(
        np_.float32(0.5), np_.float32(1.5))),
    "jit_grad_vmap": Case(lambda r, np_: package_of(r).jit(package_of(r).grad(
        lambda s: np_.sum(package_of(r).vmap(lambda k: r.uniform(k, (2,)) * s)(r.split(r.PRNGKey(6), 3)))))(
        np_.float32(2.0))),
}


def _package(r):
    return package_of(r)


def _jit_of(r):
    return _package(r).jit


def _vmap_of(r):
    return _package(r).vmap


def _scan_normals(r):
    """Ten steps of `key, sub = split(key); x = normal(sub)` in lax.scan."""
    lax = _package(r).lax

    def step(key, _):
        key, sub = r.split(key)
        return key, r.normal(sub, (2,))
    key, xs = lax.scan(step, r.PRNGKey(0), None, length=10)
    return key, xs


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


# ---------------------------------------------------------------------------
# Typed keys
# ---------------------------------------------------------------------------

def test_typed_key_array_shape_dtype_and_indexing():
    keys = random.split(random.key(0), (2, 3))
    assert keys.shape == (2, 3) and keys.ndim == 2 and keys.size == 6
    assert str(keys.dtype) == "key<fry>" and jnp.issubdtype(keys.dtype, jaxc.dtypes.prng_key)
    assert not jnp.issubdtype(np.float32, jaxc.dtypes.prng_key)
    assert random.key_data(keys).shape == (2, 3, 2)
    np.testing.assert_array_equal(random.key_data(keys[1, 2]), random.key_data(keys)[1, 2])
    np.testing.assert_array_equal(random.key_data(keys[..., 0]), random.key_data(keys)[:, 0])
    assert keys.reshape(-1).shape == (6,) and keys.T.shape == (3, 2)
    assert len(keys) == 2 and [k.shape for k in keys] == [(3,), (3,)]
    assert bool(random.key(3) == random.wrap_key_data(random.key_data(random.key(3))))
    assert bool(random.key(3) != random.key(4))
    assert random.key_impl(keys) == "threefry2x32" and random.key_impl(random.PRNGKey(0)) == "threefry2x32"
    assert random.key_dtype() == keys.dtype
    assert "key<fry>" in repr(random.key(0))


def test_legacy_and_typed_keys_give_the_same_numbers():
    legacy, typed = random.PRNGKey(5), random.key(5)
    np.testing.assert_array_equal(random.key_data(typed), legacy)
    np.testing.assert_array_equal(random.normal(legacy, (4,)), random.normal(typed, (4,)))
    np.testing.assert_array_equal(random.split(legacy), random.key_data(random.split(typed)))
    assert isinstance(random.split(typed), random.PRNGKeyArray)
    assert not isinstance(random.split(legacy), random.PRNGKeyArray)
    cloned = random.clone(typed)  # a new key array over the same data (unconsumed: test_key_reuse.py)
    assert cloned is not typed and bool(cloned == typed)


def test_typed_keys_pass_through_jit_and_come_out_typed():
    f = jaxc.jit(lambda k: random.split(k, 3))
    out = f(random.key(2))
    assert isinstance(out, random.PRNGKeyArray) and out.shape == (3,)
    np.testing.assert_array_equal(random.key_data(out), random.key_data(random.split(random.key(2), 3)))


def test_fori_loop_carries_a_key():
    def body(i, carry):
        key, total = carry
        key, sub = random.split(key)
        return key, total + random.uniform(sub)
    key, total = jaxc.lax.fori_loop(0, 5, body, (random.PRNGKey(0), jnp.float32(0)))
    expected, k = 0.0, random.PRNGKey(0)
    for _ in range(5):
        k, sub = random.split(k)
        expected += float(random.uniform(sub))
    np.testing.assert_allclose(float(total), expected, rtol=1e-6)
    np.testing.assert_array_equal(key, k)


def test_same_key_same_numbers_and_split_keys_differ():
    key = random.PRNGKey(0)
    np.testing.assert_array_equal(random.normal(key, (3,)), random.normal(key, (3,)))
    a, b = random.split(key)
    assert not np.array_equal(random.normal(a, (3,)), random.normal(b, (3,)))


def test_grad_through_reparameterised_normal():
    key = random.PRNGKey(0)
    eps = np.asarray(random.normal(key, (5,)))

    def loss(mu, sigma):
        return jnp.sum((mu + sigma * random.normal(key, (5,))) ** 2)
    g_mu, g_sigma = jaxc.grad(loss, argnums=(0, 1))(1.5, 0.5)
    np.testing.assert_allclose(float(g_mu), np.sum(2 * (1.5 + 0.5 * eps)), rtol=1e-5)
    np.testing.assert_allclose(float(g_sigma), np.sum(2 * (1.5 + 0.5 * eps) * eps), rtol=1e-5)


def test_vmap_with_unbatched_key_and_batched_parameter():
    key = random.PRNGKey(1)
    out = jaxc.vmap(lambda k, m: random.uniform(k, (3,), minval=m, maxval=m + 1.0),
                    in_axes=(None, 0))(key, jnp.arange(4.0))
    for i in range(4):
        np.testing.assert_allclose(out[i], random.uniform(key, (3,), minval=float(i), maxval=i + 1.0),
                                   rtol=1e-6)


def test_statistics_of_the_base_samplers():
    key = random.PRNGKey(0)
    u = np.asarray(random.uniform(key, (100_000,)))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    z = np.asarray(random.normal(key, (100_000,)))
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    t = np.asarray(random.truncated_normal(key, -0.5, 1.0, (10_000,)))
    assert t.min() > -0.5 and t.max() < 1.0
    i = np.asarray(random.randint(key, (10_000,), 3, 9))
    assert set(np.unique(i)) == set(range(3, 9))


# ---------------------------------------------------------------------------
# Errors, as JAX raises them
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad, error, message", [
    (np.zeros(3, np.uint32), TypeError, "shape to end with (2,)"),
    (np.zeros(2, np.int32), TypeError, "key_data.dtype = uint32"),
    (5, TypeError, "ndim, shape, and dtype"),
    (np.zeros((2, 2), np.uint32), ValueError, "normal accepts a single key"),
])
def test_bad_keys(bad, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        random.normal(bad, (3,))


def test_bad_arguments():
    key = random.PRNGKey(0)
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.uniform(key, (2,), jnp.int32)
    with pytest.raises(ValueError, match="must be an unsigned int dtype"):
        random.bits(key, (2,), jnp.int32)
    with pytest.raises(TypeError, match="randint only accepts integer dtypes"):
        random.randint(key, (2,), 0, 5, jnp.float32)
    with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
        random.uniform(key, (3,), minval=jnp.zeros(4))
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: shapes=\[\(3,\), \(4,\), \(\)\]"):
        random.truncated_normal(key, jnp.zeros(4), 1.0, (3,))
    with pytest.raises(ValueError, match=r"got result \(2, 4\) for shape argument \(4,\)"):
        random.bernoulli(key, jnp.zeros((2, 1)) + 0.5, (4,))
    with pytest.raises(TypeError, match="must have a floating dtype"):
        random.bernoulli(key, 1)
    with pytest.raises(ValueError, match="expected 'high' or 'low'"):
        random.bernoulli(key, 0.5, mode="mid")
    with pytest.raises(TypeError, match="scalar seed"):
        random.PRNGKey(np.arange(2))
    with pytest.raises(TypeError, match="seed must be an integer"):
        random.PRNGKey(1.5)
    with pytest.raises(OverflowError):
        random.PRNGKey(2 ** 64)
    with pytest.raises(OverflowError, match="out of bounds for uint32"):
        random.fold_in(key, -2)
    with pytest.raises(TypeError, match="fold_in accepts a scalar"):
        random.fold_in(key, np.arange(3))
    with pytest.raises(ValueError, match="split accepts a single key"):
        random.split(random.split(random.key(0)))
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "rgb". Did you mean one of: "rbg"'):
        random.key(0, impl="rgb")
