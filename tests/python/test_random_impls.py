"""JAX's six PRNG implementations (threefry2x32, threefry4x32, philox2x32,
philox4x32, rbg, unsafe_rbg), `jaxc.default_prng_impl` and
`lax.rng_bit_generator` against JAX's bits: keys, split, fold_in, bits of
every width, samplers that split in loops, under jit and vmap."""
import numpy as np
import pytest
from random_cases import Case, check, check_error, package_of

import jaxc
import jaxc.numpy as jnp
from jaxc import lax, random

IMPLS = ("threefry4x32", "philox2x32", "philox4x32", "rbg", "unsafe_rbg")


def _impl_cases(impl: str) -> dict[str, Case]:
    def key(r, seed=1):
        return r.key(seed, impl=impl)
    return {
        f"{impl}/key": Case(lambda r, np_: key(r)),
        f"{impl}/key_minus_1": Case(lambda r, np_: key(r, -1)),
        f"{impl}/key_x64_big": Case(lambda r, np_: key(r, 2 ** 40 + 3), x64=True),
        f"{impl}/PRNGKey": Case(lambda r, np_: r.PRNGKey(7, impl=impl)),
        f"{impl}/split": Case(lambda r, np_: r.split(key(r), 3)),
        f"{impl}/split_shape": Case(lambda r, np_: r.split(key(r, 2), (2, 3))),
        f"{impl}/split_0": Case(lambda r, np_: r.split(key(r), 0)),
        f"{impl}/split_of_split": Case(lambda r, np_: r.split(r.split(key(r))[1], 2)),
        f"{impl}/fold_in": Case(lambda r, np_: r.fold_in(key(r), 5)),
        f"{impl}/fold_in_max": Case(lambda r, np_: r.fold_in(key(r, 3), 2 ** 32 - 1)),
        f"{impl}/bits_u32": Case(lambda r, np_: r.bits(key(r), (7,))),
        f"{impl}/bits_u8": Case(lambda r, np_: r.bits(key(r), (3, 5), np.uint8)),
        f"{impl}/bits_u16": Case(lambda r, np_: r.bits(key(r), (9,), np.uint16)),
        f"{impl}/bits_u64_x64": Case(lambda r, np_: r.bits(key(r), (5,), np.uint64), x64=True),
        f"{impl}/bits_scalar": Case(lambda r, np_: r.bits(key(r, 4))),
        f"{impl}/uniform": Case(lambda r, np_: r.uniform(key(r), (3, 33))),
        f"{impl}/normal": Case(lambda r, np_: r.normal(key(r, 2), (50,))),
        f"{impl}/normal_f64": Case(lambda r, np_: r.normal(key(r, 2), (20,), np_.float64), x64=True),
        f"{impl}/randint": Case(lambda r, np_: r.randint(key(r), (40,), -5, 1000)),
        f"{impl}/gamma": Case(lambda r, np_: r.gamma(key(r, 5), np_.array([0.3, 1.0, 4.5]), (2, 3))),
        f"{impl}/binomial": Case(lambda r, np_: r.binomial(key(r, 6), 20, np_.array([0.1, 0.5, 0.9]), (2, 3))),
        f"{impl}/dirichlet": Case(lambda r, np_: r.dirichlet(key(r), np_.array([1.0, 2.0, 3.0]), (2,))),
        f"{impl}/choice": Case(lambda r, np_: r.choice(key(r), 10, (4,), replace=False)),
        f"{impl}/permutation": Case(lambda r, np_: r.permutation(key(r), 20)),
        f"{impl}/categorical": Case(lambda r, np_: r.categorical(key(r), np_.log(np_.arange(1.0, 6.0)), shape=(12,))),
        f"{impl}/jit_normal": Case(lambda r, np_: package_of(r).jit(lambda k: r.normal(k, (4,)))(key(r))),
        f"{impl}/vmap_uniform": Case(lambda r, np_: package_of(r).vmap(lambda k: r.uniform(k, (3,)))(
            r.split(key(r), 4))),
        f"{impl}/legacy_data_as_default": Case(lambda r, np_: _under_default(
            r, impl, lambda: r.normal(r.PRNGKey(3), (6,)))),
        f"{impl}/default_key": Case(lambda r, np_: _under_default(r, impl, lambda: r.key(3))),
    }


def _under_default(r, impl, f):
    with package_of(r).default_prng_impl(impl):
        return f()


def _rbg(r, key, shape, dtype, algorithm):
    lax_ = package_of(r).lax
    return lax_.rng_bit_generator(np.array(key, np.uint32), shape, dtype, lax_.RandomAlgorithm(algorithm))


_STATES = {"small": [1, 2, 3, 4], "carry": [0xFFFFFFFF, 7, 0xFFFFFFFE, 0xFFFFFFFF]}
_SHAPES = {"scalar": (), "odd": (7,), "2d": (3, 5), "even": (2, 3), "unit_dim": (3, 1, 5), "empty": (0, 3)}

CASES = {name: case for impl in IMPLS for name, case in _impl_cases(impl).items()}
CASES.update({
    f"rng_bit_generator/{state}/{shape}/{dtype}/{algorithm}": Case(
        lambda r, np_, k=_STATES[state], s=_SHAPES[shape], d=dtype, a=algorithm: _rbg(r, k, s, d, a),
        x64=dtype == "uint64")
    for state in _STATES for shape in _SHAPES for dtype in ("uint8", "uint16", "uint32", "uint64")
    for algorithm in (0, 1, 2)
})
CASES.update({
    "rbg/split_not_partitionable": Case(lambda r, np_: _not_partitionable(
        r, lambda: r.split(r.key(1, impl="rbg"), 3))),
    "threefry2x32/default_after_rbg": Case(lambda r, np_: (
        _under_default(r, "rbg", lambda: r.PRNGKey(0)), r.PRNGKey(0))),
})


def _not_partitionable(r, f):
    with package_of(r).threefry_partitionable(False):
        return f()


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


@pytest.mark.parametrize("impl", ["threefry2x32", *IMPLS])
def test_key_dtype_shape_and_names(impl):
    k = random.key(0, impl=impl)
    tag = {"threefry2x32": "fry", "threefry4x32": "fry4", "philox2x32": "phx2", "philox4x32": "phx4",
           "rbg": "rbg", "unsafe_rbg": "urbg"}[impl]
    assert str(k.dtype) == f"key<{tag}>" and f"dtype=key<{tag}>" in repr(k)
    assert random.key_impl(k) == impl and random.key_dtype(impl) == k.dtype
    assert random.key(0, impl=random.key_dtype(impl)).dtype == k.dtype
    assert random.key(0, dtype=k.dtype).dtype == k.dtype
    width = random.key_data(k).shape[-1]
    assert random.split(k, (2, 3)).shape == (2, 3) and random.key_data(random.split(k, 4)).shape == (4, width)
    wrapped = random.wrap_key_data(random.key_data(k), impl=impl)
    assert wrapped.dtype == k.dtype and bool(wrapped == k)
    with jaxc.default_prng_impl(impl):
        assert random.key(0).dtype == k.dtype and random.key_impl(random.PRNGKey(0)) == impl
        assert random.PRNGKey(0).shape == (width,)


def test_a_traced_key_keeps_its_implementation():
    """The implementation is static pytree data: jit of a function of an rbg
    key traces with rbg, and returns rbg keys."""
    k = random.key(5, impl="philox4x32")
    out = jaxc.jit(lambda k: random.split(k, 2))(k)
    assert out.dtype == k.dtype
    np.testing.assert_array_equal(random.key_data(out), random.key_data(random.split(k, 2)))
    seen = []
    jaxc.jit(lambda k: seen.append(repr(k)) or k)(k)
    assert seen == ["Traced<key<phx4>[]>"]


def test_default_prng_impl_retraces_a_jit_function_of_legacy_keys():
    f = jaxc.jit(lambda seed: random.PRNGKey(seed))
    assert f(0).shape == (2,)
    with jaxc.default_prng_impl("rbg"):
        assert f(0).shape == (4,)
    assert f(0).shape == (2,)


def test_bad_implementations_and_key_data():
    check_error(lambda r, np_: r.key(0, impl="foo"), ValueError, 'unrecognized PRNG implementation "foo"')
    check_error(lambda r, np_: r.key(0, impl="rbg", dtype=r.key_dtype("rbg")), ValueError,
                "Cannot specify both `impl` and `dtype` arguments")
    check_error(lambda r, np_: r.wrap_key_data(np_.zeros(2, np_.uint32), impl="rbg"), TypeError,
                "expected key_data.shape to end with (4,); got shape=(2,)")
    with jaxc.default_prng_impl("philox2x32"):
        with pytest.raises(TypeError, match=r"expected key_data.shape to end with \(1,\); got shape=\(2,\) "
                                            r"for impl=philox2x32"):
            random.normal(jnp.zeros(2, jnp.uint32))
    check_error(lambda r, np_: r.poisson(r.key(0, impl="rbg"), 3.0), NotImplementedError,
                "`poisson` is only implemented for the threefry2x32 RNG")
    with pytest.raises(TypeError, match="equal does not accept dtypes key<rbg>, key<fry>"):
        random.key(0, impl="rbg") == random.key(0)  # noqa: B015
    with pytest.raises(ValueError, match="new enum value must be in"):
        jaxc.config.update("jax_default_prng_impl", "foo")


def test_rng_bit_generator_bad_arguments():
    key = jnp.array([1, 2, 3, 4], jnp.uint32)
    with pytest.raises(TypeError, match="the key must be uint32"):
        lax.rng_bit_generator(jnp.zeros(2, jnp.uint32), (3,))
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(key, (3,), jnp.float32)
    with pytest.raises(ValueError):
        lax.rng_bit_generator(key, (3,), algorithm=7)


def test_rng_bit_generator_key_advances_by_the_counters_used():
    """Philox uses one counter per 4 words, ThreeFry one per 2 (per element
    for 64 bits): the new state's second word counts them, with the carry."""
    key = jnp.array([1, 2, 0xFFFFFFFF, 0], jnp.uint32)
    for algorithm, shape, used in ((lax.RandomAlgorithm.RNG_PHILOX, (9,), 3),
                                   (lax.RandomAlgorithm.RNG_THREE_FRY, (4, 3), 6)):
        new_key, _ = lax.rng_bit_generator(key, shape, algorithm=algorithm)
        expected = 0xFFFFFFFF + used
        np.testing.assert_array_equal(new_key, [1, 2, expected & 0xFFFFFFFF, expected >> 32])
