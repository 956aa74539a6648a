"""jaxc.random.gumbel, categorical, choice and permutation against JAX's bits
(every mode and option), their argument errors, their behaviour under jit,
vmap over keys and scan, their distributions, and the private top-k and
searchsorted they are built on."""
import math

import ml_dtypes
import numpy as np
import pytest
from random_cases import Case, check, package_of, x64

import jaxc
import jaxc.numpy as jnp
from jaxc import random
from jaxc.random import _discrete

# p whose partial sums are exact in any summation order (dyadic fractions):
# JAX's CPU cumsum adds in a different order than jaxc's, see test_choice_p_random
DYADIC_P = [0.125, 0.25, 0.0625, 0.3125, 0.25]


def _package(r):
    return package_of(r)


def _jit_of(r):
    return _package(r).jit


def _vmap_of(r):
    return _package(r).vmap


def _scan_draws(r, np_):
    """Five steps of `key, sub = split(key)` drawing from each function."""
    lax = _package(r).lax

    def step(key, _):
        key, sub = r.split(key)
        return key, (r.gumbel(sub, (2,)), r.categorical(sub, np_.zeros((2, 4))),
                     r.choice(sub, 6, (3,), replace=False), r.permutation(sub, 5))
    return lax.scan(step, r.PRNGKey(0), None, length=5)


CASES = {
    # gumbel, mode "low" (the default): -log(-log(uniform(tiny, 1)))
    "gumbel_f32": Case(lambda r, np_: r.gumbel(r.PRNGKey(0), (1000,))),
    "gumbel_scalar": Case(lambda r, np_: r.gumbel(r.key(1))),
    "gumbel_2d_typed_key": Case(lambda r, np_: r.gumbel(r.key(2), (20, 30))),
    "gumbel_f16": Case(lambda r, np_: r.gumbel(r.PRNGKey(3), (500,), np_.float16)),
    "gumbel_bf16": Case(lambda r, np_: r.gumbel(r.PRNGKey(3), (500,), np_.bfloat16)),
    "gumbel_f64": Case(lambda r, np_: r.gumbel(r.PRNGKey(3), (500,), np_.float64), x64=True),
    "gumbel_default_x64": Case(lambda r, np_: r.gumbel(r.PRNGKey(4), (50,)), x64=True),
    "gumbel_empty": Case(lambda r, np_: r.gumbel(r.PRNGKey(5), (3, 0))),
    "gumbel_int_shape": Case(lambda r, np_: r.gumbel(r.PRNGKey(5), 7)),
    # mode "high": two uniforms per value
    "gumbel_high_f32": Case(lambda r, np_: r.gumbel(r.PRNGKey(0), (1000,), mode="high")),
    "gumbel_high_f16": Case(lambda r, np_: r.gumbel(r.PRNGKey(6), (300,), np_.float16, mode="high")),
    "gumbel_high_bf16": Case(lambda r, np_: r.gumbel(r.PRNGKey(6), (300,), np_.bfloat16, mode="high")),
    "gumbel_high_f64": Case(lambda r, np_: r.gumbel(r.PRNGKey(6), (300,), np_.float64, mode="high"),
                            x64=True),
    # mode "highest": 64 bits per float32 value; other dtypes as "high"
    "gumbel_highest_f32": Case(lambda r, np_: r.gumbel(r.PRNGKey(0), (2000,), mode="highest")),
    "gumbel_highest_2d": Case(lambda r, np_: r.gumbel(r.key(7), (4, 6), mode="highest")),
    "gumbel_highest_f16": Case(lambda r, np_: r.gumbel(r.PRNGKey(7), (100,), np_.float16, mode="highest")),
    "gumbel_highest_f64": Case(lambda r, np_: r.gumbel(r.PRNGKey(7), (100,), np_.float64,
                                                       mode="highest"), x64=True),

    # categorical with replacement: argmax(gumbel + logits)
    "categorical_1d": Case(lambda r, np_: r.categorical(r.PRNGKey(0), np_.log(np_.arange(1.0, 6.0)),
                                                        shape=(2000,))),
    "categorical_default_shape": Case(lambda r, np_: r.categorical(
        r.PRNGKey(1), np_.arange(12.0).reshape(3, 4) / 4)),
    "categorical_axis0": Case(lambda r, np_: r.categorical(
        r.PRNGKey(2), np_.arange(12.0).reshape(3, 4) / 4, axis=0)),
    "categorical_axis1_of_3d": Case(lambda r, np_: r.categorical(
        r.key(3), np_.sin(np_.arange(24.0)).reshape(2, 3, 4), axis=1, shape=(5, 2, 4))),
    "categorical_prefix_shape": Case(lambda r, np_: r.categorical(
        r.PRNGKey(4), np_.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]), shape=(6, 2))),
    "categorical_broadcast_batch": Case(lambda r, np_: r.categorical(
        r.PRNGKey(5), np_.array([[0.0, 1.0, -1.0, 0.5]]), shape=(3, 7))),
    "categorical_neg_inf": Case(lambda r, np_: r.categorical(
        r.PRNGKey(6), np_.array([-np_.inf, 0.0, -np_.inf, 1.0]), shape=(500,))),
    "categorical_int_shape": Case(lambda r, np_: r.categorical(r.PRNGKey(6), np_.zeros(3), shape=4)),
    "categorical_high": Case(lambda r, np_: r.categorical(r.PRNGKey(7), np_.zeros(10), shape=(300,),
                                                          mode="high")),
    "categorical_highest": Case(lambda r, np_: r.categorical(r.PRNGKey(7), np_.zeros(10), shape=(300,),
                                                             mode="highest")),
    "categorical_f16": Case(lambda r, np_: r.categorical(r.PRNGKey(8), np_.zeros((4, 6), np_.float16))),
    "categorical_bf16": Case(lambda r, np_: r.categorical(r.PRNGKey(8), np_.zeros(6, np_.bfloat16),
                                                          shape=(100,))),
    "categorical_f64": Case(lambda r, np_: r.categorical(r.PRNGKey(8), np_.log(np_.arange(1.0, 9.0)),
                                                         shape=(200,)), x64=True),
    "categorical_empty_shape": Case(lambda r, np_: r.categorical(r.PRNGKey(8), np_.zeros(3), shape=(0,))),
    "categorical_batch_of_2d_logits": Case(lambda r, np_: r.categorical(
        r.PRNGKey(9), r.normal(r.PRNGKey(10), (40, 25)), shape=(30, 40))),
    # without replacement: top k of logits + gumbel (int32 even with x64)
    "categorical_no_replace_1d": Case(lambda r, np_: r.categorical(
        r.PRNGKey(0), np_.log(np_.arange(1.0, 9.0)), shape=(5,), replace=False)),
    "categorical_no_replace_all": Case(lambda r, np_: r.categorical(
        r.PRNGKey(1), np_.zeros(7), shape=(7,), replace=False)),
    "categorical_no_replace_batch": Case(lambda r, np_: r.categorical(
        r.PRNGKey(2), np_.arange(12.0).reshape(3, 4), shape=(4, 3), replace=False)),
    "categorical_no_replace_axis0": Case(lambda r, np_: r.categorical(
        r.key(3), np_.arange(12.0).reshape(3, 4) / 3, axis=0, shape=(2, 4), replace=False)),
    "categorical_no_replace_3d": Case(lambda r, np_: r.categorical(
        r.PRNGKey(4), np_.cos(np_.arange(60.0)).reshape(3, 5, 4), axis=1, shape=(2, 2, 3, 4),
        replace=False)),
    "categorical_no_replace_default": Case(lambda r, np_: r.categorical(
        r.PRNGKey(5), np_.zeros((3, 5)), replace=False)),
    "categorical_no_replace_zero": Case(lambda r, np_: r.categorical(
        r.PRNGKey(5), np_.zeros((3, 5)), shape=(0, 3), replace=False)),
    "categorical_no_replace_neg_inf": Case(lambda r, np_: r.categorical(
        r.PRNGKey(6), np_.array([-np_.inf, 0.0, -np_.inf, 0.0, -np_.inf]), shape=(5,), replace=False)),
    "categorical_no_replace_high": Case(lambda r, np_: r.categorical(
        r.PRNGKey(7), np_.zeros(20), shape=(10,), replace=False, mode="high")),
    "categorical_no_replace_bf16": Case(lambda r, np_: r.categorical(
        r.PRNGKey(8), np_.zeros(12, np_.bfloat16), shape=(12,), replace=False)),
    "categorical_no_replace_x64": Case(lambda r, np_: r.categorical(
        r.PRNGKey(9), np_.zeros(6), shape=(4,), replace=False), x64=True),
    "categorical_x64": Case(lambda r, np_: r.categorical(r.PRNGKey(9), np_.zeros(6), shape=(4,)),
                            x64=True),

    # choice without p: randint (replace) or a permutation's head (no replace)
    "choice_int": Case(lambda r, np_: r.choice(r.PRNGKey(0), 10, (50,))),
    "choice_scalar": Case(lambda r, np_: r.choice(r.key(1), 7)),
    "choice_2d_shape": Case(lambda r, np_: r.choice(r.PRNGKey(2), 100, (4, 5))),
    "choice_array": Case(lambda r, np_: r.choice(r.PRNGKey(3), np_.arange(10.0) * 1.5, (8,))),
    "choice_array_axis1": Case(lambda r, np_: r.choice(
        r.PRNGKey(4), np_.arange(24).reshape(2, 3, 4), (2, 5), axis=1)),
    "choice_array_axis_neg": Case(lambda r, np_: r.choice(
        r.PRNGKey(4), np_.arange(24).reshape(2, 3, 4), (3,), axis=-1)),
    "choice_float_a": Case(lambda r, np_: r.choice(r.PRNGKey(5), 3.5, (6,))),
    "choice_empty": Case(lambda r, np_: r.choice(r.PRNGKey(5), np_.arange(5.0), (0,))),
    "choice_empty_int": Case(lambda r, np_: r.choice(r.PRNGKey(5), 0, (2, 0))),
    "choice_no_replace_int": Case(lambda r, np_: r.choice(r.PRNGKey(6), 20, (10,), replace=False)),
    "choice_no_replace_all": Case(lambda r, np_: r.choice(r.PRNGKey(6), 9, (3, 3), replace=False)),
    "choice_no_replace_array": Case(lambda r, np_: r.choice(
        r.PRNGKey(7), np_.arange(20.0).reshape(4, 5), (3,), replace=False, axis=1)),
    "choice_no_replace_rows": Case(lambda r, np_: r.choice(
        r.PRNGKey(8), np_.arange(20).reshape(5, 4), (2, 2), replace=False)),
    "choice_x64": Case(lambda r, np_: r.choice(r.PRNGKey(9), 1000, (20,)), x64=True),
    "choice_no_replace_x64": Case(lambda r, np_: r.choice(r.PRNGKey(9), 30, (10,), replace=False),
                                  x64=True),
    # choice with p: searchsorted on cumsum(p) (replace) or Gumbel top-k of log(p)
    "choice_p": Case(lambda r, np_: r.choice(r.PRNGKey(0), 5, (2000,), p=np_.array(DYADIC_P))),
    "choice_p_array_a": Case(lambda r, np_: r.choice(
        r.PRNGKey(1), np_.arange(10).reshape(5, 2) * 3, (4,), p=np_.array(DYADIC_P))),
    "choice_p_axis1": Case(lambda r, np_: r.choice(
        r.PRNGKey(2), np_.arange(15.0).reshape(3, 5), (2, 3), p=np_.array(DYADIC_P), axis=1)),
    "choice_p_zeros": Case(lambda r, np_: r.choice(
        r.PRNGKey(3), 6, (300,), p=np_.array([0.0, 0.5, 0.0, 0.25, 0.25, 0.0]))),
    "choice_p_unnormalised": Case(lambda r, np_: r.choice(r.PRNGKey(4), 4, (100,),
                                                          p=np_.array([1.0, 2.0, 4.0, 1.0]))),
    "choice_p_int": Case(lambda r, np_: r.choice(r.PRNGKey(4), 4, (100,), p=np_.array([1, 2, 4, 1]))),
    "choice_p_f16": Case(lambda r, np_: r.choice(r.PRNGKey(5), 5, (200,),
                                                 p=np_.array(DYADIC_P, np_.float16))),
    "choice_p_bf16": Case(lambda r, np_: r.choice(r.PRNGKey(5), 5, (200,),
                                                  p=np_.array(DYADIC_P, np_.bfloat16))),
    "choice_p_random": Case(lambda r, np_: r.choice(r.PRNGKey(6), 50, (2000,),
                                                    p=r.uniform(r.PRNGKey(7), (50,)))),
    "choice_p_x64": Case(lambda r, np_: r.choice(r.PRNGKey(8), 5, (500,), p=np_.array(DYADIC_P)),
                         x64=True),
    "choice_p_no_replace": Case(lambda r, np_: r.choice(r.PRNGKey(0), 5, (3,), replace=False,
                                                        p=np_.array(DYADIC_P))),
    "choice_p_no_replace_all": Case(lambda r, np_: r.choice(
        r.PRNGKey(1), 8, (8,), replace=False, p=r.uniform(r.PRNGKey(2), (8,)))),
    "choice_p_no_replace_array": Case(lambda r, np_: r.choice(
        r.PRNGKey(3), np_.arange(10.0).reshape(2, 5), (2, 2), replace=False, p=np_.array(DYADIC_P),
        axis=1)),
    "choice_p_no_replace_zeros": Case(lambda r, np_: r.choice(
        r.PRNGKey(4), 6, (4,), replace=False, p=np_.array([0.0, 0.5, 0.0, 0.25, 0.25, 0.0]))),
    "choice_p_no_replace_high": Case(lambda r, np_: r.choice(
        r.PRNGKey(5), 30, (10,), replace=False, p=r.uniform(r.PRNGKey(6), (30,)), mode="high")),
    "choice_p_no_replace_highest": Case(lambda r, np_: r.choice(
        r.PRNGKey(5), 30, (10,), replace=False, p=r.uniform(r.PRNGKey(6), (30,)), mode="highest")),
    "choice_p_no_replace_x64": Case(lambda r, np_: r.choice(
        r.PRNGKey(7), 5, (5,), replace=False, p=np_.array(DYADIC_P)), x64=True),

    # permutation: sorts by random uint32 keys, 1 round up to 1625 elements, then 2
    "permutation_int": Case(lambda r, np_: r.permutation(r.PRNGKey(0), 10)),
    "permutation_int_typed_key": Case(lambda r, np_: r.permutation(r.key(1), 100)),
    "permutation_two_rounds": Case(lambda r, np_: r.permutation(r.PRNGKey(2), 2000)),
    "permutation_zero": Case(lambda r, np_: r.permutation(r.PRNGKey(3), 0)),
    "permutation_one": Case(lambda r, np_: r.permutation(r.PRNGKey(3), 1)),
    "permutation_negative": Case(lambda r, np_: r.permutation(r.PRNGKey(3), -2)),
    "permutation_int_axis_neg": Case(lambda r, np_: r.permutation(r.PRNGKey(3), 6, axis=-1)),
    "permutation_numpy_int": Case(lambda r, np_: r.permutation(r.PRNGKey(3), np.int64(12))),
    "permutation_array": Case(lambda r, np_: r.permutation(r.PRNGKey(4), np_.arange(15.0) ** 2)),
    "permutation_bool": Case(lambda r, np_: r.permutation(r.PRNGKey(4), np_.arange(9) % 3 == 0)),
    "permutation_rows": Case(lambda r, np_: r.permutation(r.PRNGKey(5), np_.arange(20).reshape(5, 4))),
    "permutation_axis1": Case(lambda r, np_: r.permutation(r.PRNGKey(6), np_.arange(20).reshape(4, 5),
                                                           axis=1)),
    "permutation_independent": Case(lambda r, np_: r.permutation(
        r.PRNGKey(7), np_.arange(20).reshape(4, 5), independent=True)),
    "permutation_independent_axis1": Case(lambda r, np_: r.permutation(
        r.PRNGKey(7), np_.arange(24.0).reshape(2, 3, 4), axis=1, independent=True)),
    "permutation_independent_two_rounds": Case(lambda r, np_: r.permutation(
        r.PRNGKey(8), np_.arange(2000).reshape(40, 50), axis=1, independent=True)),
    "permutation_1d_independent": Case(lambda r, np_: r.permutation(
        r.PRNGKey(8), np_.arange(7), independent=True)),
    "permutation_x64": Case(lambda r, np_: r.permutation(r.PRNGKey(9), 30), x64=True),
    "permutation_f64_x64": Case(lambda r, np_: r.permutation(r.PRNGKey(9), np_.linspace(0.0, 1.0, 9)),
                                x64=True),

    # under jit, vmap over split keys (or over parameters), scan
    "jit_gumbel": Case(lambda r, np_: _jit_of(r)(lambda k: r.gumbel(k, (5,), mode="high"))(r.PRNGKey(1))),
    "jit_categorical": Case(lambda r, np_: _jit_of(r)(
        lambda k, l: r.categorical(k, l, shape=(6,)))(r.PRNGKey(1), np_.arange(4.0))),
    "jit_choice": Case(lambda r, np_: _jit_of(r)(lambda k, p: (
        r.choice(k, 6, (4,), p=p), r.choice(k, 6, (3,), replace=False, p=p)))(
        r.PRNGKey(2), np_.array([0.125, 0.125, 0.25, 0.25, 0.125, 0.125]))),
    "jit_permutation": Case(lambda r, np_: _jit_of(r)(
        lambda k, x: (r.permutation(k, x), r.permutation(k, 8)))(r.PRNGKey(3), np_.arange(6.0))),
    "vmap_gumbel": Case(lambda r, np_: _vmap_of(r)(lambda k: r.gumbel(k, (3,), mode="highest"))(
        r.split(r.PRNGKey(0), 5))),
    "vmap_categorical": Case(lambda r, np_: _vmap_of(r)(
        lambda k: r.categorical(k, np_.zeros((2, 6)), shape=(4, 2)))(r.split(r.PRNGKey(1), 5))),
    "vmap_categorical_no_replace": Case(lambda r, np_: _vmap_of(r)(
        lambda k: r.categorical(k, np_.zeros((2, 6)), shape=(4, 2), replace=False))(r.split(r.key(2), 5))),
    "vmap_categorical_over_logits": Case(lambda r, np_: _vmap_of(r)(
        lambda l: r.categorical(r.PRNGKey(3), l, shape=(5,)))(np_.arange(12.0).reshape(3, 4) / 2)),
    "vmap_choice": Case(lambda r, np_: _vmap_of(r)(lambda k: (
        r.choice(k, 7, (3,)), r.choice(k, np_.arange(10.0), (3,), replace=False),
        r.choice(k, 5, (3,), p=np_.array(DYADIC_P)),
        r.choice(k, 5, (3,), replace=False, p=np_.array(DYADIC_P))))(r.split(r.PRNGKey(4), 6))),
    "vmap_choice_over_p": Case(lambda r, np_: _vmap_of(r)(lambda p: r.choice(r.PRNGKey(5), 4, (6,), p=p))(
        np_.array([[0.5, 0.25, 0.125, 0.125], [0.0, 0.0, 0.5, 0.5]]))),
    "vmap_permutation": Case(lambda r, np_: _vmap_of(r)(lambda k: (
        r.permutation(k, 7), r.permutation(k, np_.arange(12).reshape(3, 4), axis=1),
        r.permutation(k, np_.arange(12).reshape(3, 4), axis=1, independent=True)))(
        r.split(r.key(6), 5))),
    "scan_draws": Case(lambda r, np_: _scan_draws(r, np_)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


# ---------------------------------------------------------------------------
# The orderings random relies on: lax.top_k (choice without replacement) and
# the private jnp.searchsorted
# ---------------------------------------------------------------------------

SPECIALS = [1.0, np.nan, -0.0, np.inf, 0.0, -np.inf, -np.nan, -2.5, 0.0, -0.0, 1.0, np.nan, 3.0, 3.0]
# lax.top_k's order of SPECIALS: total order (NaN first, -NaN last, 0.0 before
# -0.0), ties to the lower index
TOP_K_ORDER = [1, 11, 3, 12, 13, 0, 10, 4, 8, 2, 9, 7, 5, 6]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_top_k_orders_floats_as_lax_top_k(dtype):
    x = jnp.asarray(np.array(SPECIALS, np.float32)).astype(dtype)
    np.testing.assert_array_equal(jaxc.lax.top_k(x, 14)[1], TOP_K_ORDER)
    np.testing.assert_array_equal(jaxc.lax.top_k(x, 3)[1], TOP_K_ORDER[:3])


def test_top_k_breaks_ties_by_index_along_the_last_axis():
    x = np.random.default_rng(0).integers(-3, 3, (4, 50)).astype(np.float32)
    expected = np.argsort(-x, axis=-1, kind="stable")[:, :20]
    got = jaxc.lax.top_k(jnp.asarray(x), 20)[1]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("a, v", [
    (np.sort(np.random.default_rng(1).random(17)).astype(np.float32),
     np.random.default_rng(2).random(100).astype(np.float32)),
    (np.array([0.0, 1, 1, 1, 2, 2, 5], np.float32),
     np.array([-1, 0, 0.5, 1, 1.5, 2, 5, 6, -0.0, np.inf, -np.inf], np.float32)),
    (np.array([3], np.int32), np.array([2, 3, 4], np.int32)),
    (np.arange(1000, dtype=np.int32) // 3, np.arange(-5, 400, dtype=np.int32)),
    (np.arange(1, 9, dtype=np.float32), np.array([[0.5, 8.0], [8.5, 3.0]], np.float32)),
    (np.zeros(0, np.float32), np.array([1.0, -1.0], np.float32)),
])
def test_searchsorted_matches_numpy(a, v):
    got = jnp.searchsorted(jnp.asarray(a), jnp.asarray(v))
    assert got.dtype == np.int32 and got.shape == v.shape
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side="left"))


def test_searchsorted_nan_and_signed_zero_as_jax():
    """NaN sorts after +inf; -0.0 equals 0.0 (jnp.searchsorted's comparator)."""
    a = np.array([-0.0, 0.0, 1.0, np.nan, np.nan], np.float32)
    v = np.array([np.nan, 0.0, -0.0, 1.0, 2.0, np.inf, -np.inf], np.float32)
    np.testing.assert_array_equal(jnp.searchsorted(jnp.asarray(a), jnp.asarray(v)),
                                  [3, 0, 0, 2, 3, 3, 0])


@pytest.mark.parametrize("size, rounds", [(0, 0), (1, 0), (2, 1), (1625, 1), (1626, 2),
                                          (2_642_245, 2), (2_642_246, 3), (10 ** 9, 3)])
def test_shuffle_rounds(size, rounds):
    """JAX's round count ceil(3 ln(size) / ln(2**32 - 1)): the 3-round sizes
    are too large for a bit-exact recorded case."""
    assert _discrete._shuffle_rounds(size) == rounds


# ---------------------------------------------------------------------------
# Dtypes, shapes and what comes out
# ---------------------------------------------------------------------------

def test_output_dtypes_and_shapes():
    key = random.PRNGKey(0)
    assert random.gumbel(key).shape == () and random.gumbel(key).dtype == np.float32
    assert random.gumbel(key, (2,), jnp.bfloat16).dtype == jnp.bfloat16
    assert random.categorical(key, jnp.zeros((3, 4))).shape == (3,)
    assert random.categorical(key, jnp.zeros((3, 4)), axis=0).shape == (4,)
    assert random.categorical(key, jnp.zeros((3, 4)), shape=(2, 3)).dtype == np.int32
    assert random.choice(key, 5).shape == ()
    assert random.choice(key, jnp.arange(12.0).reshape(3, 4), (2, 5), axis=1).shape == (3, 2, 5)
    assert random.choice(key, 3.0, (0,)).dtype == np.float32  # JAX: zeros of a's dtype
    assert random.permutation(key, jnp.zeros((2, 3, 4)), axis=2).shape == (2, 3, 4)
    with x64(jaxc.config, True):
        assert random.choice(key, 5, (2,)).dtype == np.int64
        assert random.categorical(key, jnp.zeros(4), shape=(2,), replace=False).dtype == np.int32
        assert random.gumbel(key, (2,)).dtype == np.float64


def test_results_are_permutations_and_samples_distinct():
    key = random.PRNGKey(3)
    np.testing.assert_array_equal(np.sort(random.permutation(key, 300)), np.arange(300))
    x = jnp.arange(60).reshape(6, 10)
    rows = np.asarray(random.permutation(key, x))
    assert sorted(map(tuple, rows)) == sorted(map(tuple, np.asarray(x)))
    independent = np.asarray(random.permutation(key, x, axis=1, independent=True))
    np.testing.assert_array_equal(np.sort(independent, axis=1), np.asarray(x))
    assert len({tuple(np.argsort(row)) for row in independent}) > 1  # rows shuffled differently
    draws = np.asarray(random.choice(key, 50, (50,), replace=False))
    assert sorted(draws) == list(range(50))
    weighted = np.asarray(random.choice(key, 40, (20,), replace=False, p=jnp.arange(1.0, 41.0)))
    assert len(set(weighted)) == 20
    cats = np.asarray(random.categorical(key, jnp.zeros((3, 9)), shape=(9, 3), replace=False))
    for b in range(3):
        assert sorted(cats[:, b]) == list(range(9))


def test_zero_probability_items_are_never_drawn():
    key = random.PRNGKey(4)
    p = jnp.array([0.0, 0.3, 0.0, 0.7, 0.0])
    assert set(np.asarray(random.choice(key, 5, (2000,), p=p))) <= {1, 3}
    assert set(np.asarray(random.choice(key, 5, (2,), replace=False, p=p))) == {1, 3}
    logits = jnp.array([-jnp.inf, 0.0, -jnp.inf, 2.0])
    assert set(np.asarray(random.categorical(key, logits, shape=(2000,)))) == {1, 3}


# ---------------------------------------------------------------------------
# Distributions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["low", "high", "highest"])
def test_gumbel_mean_and_variance(mode):
    x = np.asarray(random.gumbel(random.PRNGKey(0), (200_000,), mode=mode), np.float64)
    assert np.isfinite(x).all()
    assert abs(x.mean() - np.euler_gamma) < 0.01
    assert abs(x.var() - np.pi ** 2 / 6) < 0.03


def test_highest_mode_reads_64_bits_as_a_float_in_0_1():
    """(hi, lo) -> the fraction (hi * 2**32 + lo) / 2**64 cut to 24
    significant bits: tiny fractions keep full precision, so "highest"
    reaches Gumbel values near 44 where "low" stops near 16.6."""
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2 ** 32, (2, 200), dtype=np.uint64)
    words[0, :50] = 0  # high word empty: the leading one is in the low word
    words[0, 50:60] >>= rng.integers(1, 32, 10, dtype=np.uint64)
    words[:, 60] = [0, 1]
    bits = jnp.asarray(words.astype(np.uint32))
    got = np.asarray(_discrete._bits_to_unit_float32(bits))
    np.testing.assert_array_equal(jaxc.jit(_discrete._bits_to_unit_float32)(bits), got)
    for i in range(words.shape[1]):
        v = int(words[0, i]) << 32 | int(words[1, i])
        n = v.bit_length()
        top = v >> (n - 24) if n >= 24 else v << (24 - n)
        assert got[i] == np.float32(math.ldexp(top, n - 24 - 64)), i
    assert got[60] == np.float32(2.0 ** -64)
    assert -np.log(-np.log1p(-np.float64(got[60]))) > 44 > -np.log(-np.log1p(-2.0 ** -24)) + 27


def test_categorical_frequencies():
    logits = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    draws = np.asarray(random.categorical(random.PRNGKey(1), logits, shape=(40_000,)))
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.3, 0.4], atol=0.01)
    # without replacement: the first draw is distributed as softmax(logits)
    keys = random.split(random.PRNGKey(2), 4000)
    first = np.asarray(jaxc.vmap(lambda k: random.categorical(k, logits, shape=(2,), replace=False))(keys))
    assert (first[:, 0] != first[:, 1]).all()
    np.testing.assert_allclose(np.bincount(first[:, 0], minlength=4) / 4000, [0.1, 0.2, 0.3, 0.4],
                               atol=0.025)


def test_choice_frequencies():
    p = np.array([0.5, 0.1, 0.15, 0.25])
    draws = np.asarray(random.choice(random.PRNGKey(3), 4, (40_000,), p=p))
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / draws.size, p, atol=0.01)
    uniform = np.asarray(random.choice(random.PRNGKey(4), 5, (50_000,)))
    np.testing.assert_allclose(np.bincount(uniform, minlength=5) / uniform.size, 0.2, atol=0.01)
    keys = random.split(random.PRNGKey(5), 4000)
    first = np.asarray(jaxc.vmap(lambda k: random.choice(k, 4, (2,), replace=False, p=p))(keys))[:, 0]
    np.testing.assert_allclose(np.bincount(first, minlength=4) / 4000, p, atol=0.025)


def test_permutation_positions_are_uniform():
    keys = random.split(random.PRNGKey(6), 5000)
    perms = np.asarray(jaxc.vmap(lambda k: random.permutation(k, 6))(keys))
    # where item 0 lands, and which item lands first: each uniform over 6
    landing = np.argmax(perms == 0, axis=1)
    np.testing.assert_allclose(np.bincount(landing, minlength=6) / 5000, 1 / 6, atol=0.02)
    np.testing.assert_allclose(np.bincount(perms[:, 0], minlength=6) / 5000, 1 / 6, atol=0.02)
    assert abs(perms[:, 0].mean() - 2.5) < 0.06


# ---------------------------------------------------------------------------
# Errors, as JAX raises them
# ---------------------------------------------------------------------------

KEY = np.array([0, 0], np.uint32)


@pytest.mark.parametrize("call, error, message", [
    (lambda: random.gumbel(KEY, (2,), jnp.int32), ValueError, "must be a float dtype, got int32"),
    (lambda: random.gumbel(KEY, (2,), mode="mid"), ValueError, "valid mode for gumbel got: mid"),
    (lambda: random.gumbel(KEY, (2.0,)), TypeError, r"Shapes must be 1D sequences .* got \(2.0,\)"),
    (lambda: random.gumbel(np.zeros((2, 2), np.uint32)), ValueError, "gumbel accepts a single key"),
    (lambda: random.categorical(KEY, jnp.array([1, 2, 3])), ValueError, "must be a float dtype"),
    (lambda: random.categorical(KEY, [1.0, 2.0]), TypeError, "categorical requires ndarray or scalar"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), axis=2), IndexError, "out of bounds"),
    (lambda: random.categorical(KEY, jnp.float32(1.0)), IndexError, "out of bounds"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), shape=(4,)), ValueError, "Incompatible shapes"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), shape=(2, 4)), ValueError, "Incompatible shapes"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3, 4)), shape=(3,)), ValueError,
     "broadcast-compatible with shape"),
    (lambda: random.categorical(KEY, jnp.zeros((1, 3)), shape=(2, 2), replace=False), AssertionError,
     "batch shape"),  # JAX: a bare assert
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), shape=(4, 2), replace=False), ValueError,
     r"Number of samples without replacement \(4\) cannot exceed number of categories \(3\)"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 3)), mode="x"), ValueError, "valid mode"),
    (lambda: random.categorical(KEY, jnp.zeros((2, 0))), ValueError, "argmax of an empty sequence"),
    (lambda: random.categorical(np.zeros((3, 2), np.uint32), jnp.zeros(3)), ValueError,
     "categorical accepts a single key"),
    (lambda: random.choice(KEY, 5, 3), TypeError, "shape argument of jax.random.choice must be a sequence"),
    (lambda: random.choice(KEY, [1, 2, 3], (3,)), TypeError, "choice requires ndarray or scalar"),
    (lambda: random.choice(KEY, 0, (3,)), ValueError, "a must be greater than 0"),
    (lambda: random.choice(KEY, 3, (4,), replace=False), ValueError,
     r"Cannot take a larger sample \(size 4\) than population \(size 3\)"),
    (lambda: random.choice(KEY, 3, (2,), p=jnp.ones(4)), ValueError,
     r"p must be None or a 1D vector .* p has shape \(4,\) and a.shape\[axis\] is 3"),
    (lambda: random.choice(KEY, 3, (2,), p=[1.0, 1.0, 1.0]), TypeError, "choice requires ndarray"),
    (lambda: random.choice(KEY, 3, (2,), replace=False, p=jnp.ones(3), mode="x"), ValueError, "valid mode"),
    (lambda: random.choice(KEY, jnp.zeros((2, 3)), (2,), axis=2), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda: random.choice(KEY, 3, (2,), replace=False, axis=1), ValueError, "axis 1 is out of bounds"),
    (lambda: jaxc.jit(lambda a: random.choice(KEY, a, (2,)))(3), jaxc.core.ConcretizationTypeError,
     "jax.random.choice"),
    (lambda: random.choice(np.zeros((2, 2), np.uint32), 3), ValueError, "choice accepts a single key"),
    (lambda: random.permutation(KEY, 3.0), TypeError, "x must be an integer or at least 1-dimensional"),
    (lambda: random.permutation(KEY, True), TypeError, "x must be an integer or at least 1-dimensional"),
    (lambda: random.permutation(KEY, [1, 2]), TypeError, "permutation requires ndarray or scalar"),
    (lambda: random.permutation(KEY, jnp.arange(3), axis=1), ValueError,
     "axis 1 is out of bounds for array of dimension 1"),
    (lambda: random.permutation(KEY, 3, axis=1), ValueError, "axis 1 is out of bounds"),
    (lambda: random.permutation(KEY, jnp.zeros((2, 3)), axis=1.0), TypeError, "integer"),
    (lambda: jaxc.jit(lambda n: random.permutation(KEY, n))(3), jaxc.core.ConcretizationTypeError,
     "permutation"),
    (lambda: random.permutation(np.zeros((2, 2), np.uint32), 3), ValueError,
     "permutation accepts a single key"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_choice_p_random_is_exact_given_jaxs_cumsum():
    """choice(p, replace=True) searches cumsum(p); JAX's CPU cumsum adds in
    XLA's reduce-window order, jaxc's in sequence, so a draw within an ulp of
    a boundary of cumsum(p) can differ for long random p. Given the same
    cumsum, the search and the draws are JAX's."""
    jax = pytest.importorskip("jax")
    p = np.asarray(jax.random.uniform(jax.random.PRNGKey(1), (1000,)))
    cdf = np.asarray(jax.numpy.cumsum(p))
    r = np.asarray(cdf[-1] * (1 - jax.random.uniform(jax.random.PRNGKey(0), (5000,))))
    np.testing.assert_array_equal(jnp.searchsorted(jnp.asarray(cdf), jnp.asarray(r)),
                                  np.asarray(jax.numpy.searchsorted(cdf, r)))
    draws = np.asarray(random.choice(random.PRNGKey(0), 1000, (5000,), p=jnp.asarray(p)))
    expected = np.asarray(jax.random.choice(jax.random.PRNGKey(0), 1000, (5000,), p=p))
    assert (draws != expected).sum() <= 5  # boundary flips only (1 of 5000 here)
    assert math.isclose(float(jnp.cumsum(jnp.asarray(p))[-1]), float(cdf[-1]), rel_tol=1e-5)
