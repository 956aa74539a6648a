"""jaxc.random's gamma family (gamma, loggamma, beta, dirichlet, chisquare,
t, f, generalized_normal, ball) against JAX's outputs, their gradients with
respect to the shape parameters, their argument errors and their statistics.

Gamma is a rejection sampler: a sample is JAX's only if every accept/reject
decision on the way is JAX's, and in every case here each one is. float16 and
bfloat16 results are bit-exact; float32 and float64 ones agree to a few ulps
(XLA's log, pow and rsqrt differ from ours in the last bits; pow(u, 1/alpha)
for tiny alpha and exp of very negative log-gammas amplify that), within the
default tolerances. Results that are subnormal in jaxc are 0 in JAX (XLA
flushes denormals); the absolute tolerance covers them.
"""
import math

import numpy as np
import pytest
from random_cases import Case, check, check_error, package_of, scan_keys, vmap_keys

import jaxc
import jaxc.numpy as jnp
from jaxc import random

_package, _vmap_keys = package_of, vmap_keys


def _jit(r, f):
    return _package(r).jit(f)


def _scan(r, sample, length=5):
    return scan_keys(r, sample, length)


def _grad(r, f, x):
    return _package(r).grad(f)(x)


K = lambda r, seed=0: r.PRNGKey(seed)  # noqa: E731
ALPHAS = np.geomspace(0.01, 100.0, 24)  # both sides of the alpha < 1 boost
EDGE_ALPHAS = [0.0, -1.0, np.nan, np.inf, 1e-30, 1e30]  # 0, NaN, inf, ... as JAX gives them

CASES = {
    # gamma
    "gamma_alphas": Case(lambda r, np_: r.gamma(K(r), np_.array(ALPHAS, np_.float32))),
    "gamma_scalar_alpha_shape": Case(lambda r, np_: r.gamma(K(r, 1), 0.5, (500,))),
    "gamma_broadcast": Case(lambda r, np_: r.gamma(r.key(2), np_.array([0.5, 2.0, 9.0]), (4, 3))),
    "gamma_scalar": Case(lambda r, np_: r.gamma(K(r, 3), 3.0)),
    "gamma_int_alpha": Case(lambda r, np_: r.gamma(K(r, 4), 2, (5,))),
    "gamma_empty": Case(lambda r, np_: r.gamma(K(r, 5), 1.0, (0, 3))),
    "gamma_tiny_alpha": Case(lambda r, np_: r.gamma(K(r, 6), 1e-3, (50,))),
    "gamma_huge_alpha": Case(lambda r, np_: r.gamma(K(r, 7), np_.array([1e3, 1e4, 1e6]))),
    "gamma_edge_alphas": Case(lambda r, np_: r.gamma(K(r, 1), np_.array(EDGE_ALPHAS))),
    "gamma_f16": Case(lambda r, np_: r.gamma(K(r, 8), np_.array(ALPHAS, np_.float16), dtype=np_.float16)),
    "gamma_bf16": Case(lambda r, np_: r.gamma(K(r, 8), np_.array(ALPHAS, np_.bfloat16), dtype=np_.bfloat16)),
    "gamma_f64": Case(lambda r, np_: r.gamma(K(r, 8), np_.array(ALPHAS), dtype=np_.float64), x64=True),
    "gamma_f64_default_x64": Case(lambda r, np_: r.gamma(K(r, 9), 0.7, (100,)), x64=True),
    "gamma_f64_without_x64": Case(lambda r, np_: r.gamma(K(r, 9), 0.7, (10,), np_.float64)),
    # loggamma
    "loggamma_alphas": Case(lambda r, np_: r.loggamma(K(r), np_.array(ALPHAS, np_.float32))),
    "loggamma_tiny_alpha": Case(lambda r, np_: r.loggamma(K(r, 1), 1e-4, (200,))),
    "loggamma_broadcast": Case(lambda r, np_: r.loggamma(r.key(2), np_.array([[0.1], [3.0]]), (2, 4))),
    "loggamma_edge_alphas": Case(lambda r, np_: r.loggamma(K(r, 1), np_.array(EDGE_ALPHAS))),
    "loggamma_f16": Case(lambda r, np_: r.loggamma(K(r, 3), np_.array(ALPHAS, np_.float16), None,
                                                   np_.float16)),
    "loggamma_bf16": Case(lambda r, np_: r.loggamma(K(r, 3), np_.array(ALPHAS, np_.bfloat16), None,
                                                    np_.bfloat16)),
    "loggamma_f64": Case(lambda r, np_: r.loggamma(K(r, 3), np_.array(ALPHAS), dtype=np_.float64),
                         x64=True),
    # beta
    "beta": Case(lambda r, np_: r.beta(K(r), np_.array([0.1, 0.5, 1.0, 2.0, 5.0]), 2.0)),
    "beta_broadcast": Case(lambda r, np_: r.beta(K(r, 1), np_.array([0.3, 3.0]), np_.array([[1.0], [0.05]]),
                                                 (3, 2, 2))),
    "beta_shape": Case(lambda r, np_: r.beta(r.key(2), 0.01, 0.02, (100,))),
    "beta_f16": Case(lambda r, np_: r.beta(K(r, 3), 0.7, 1.5, (30,), np_.float16)),
    "beta_bf16": Case(lambda r, np_: r.beta(K(r, 3), 0.7, 1.5, (30,), np_.bfloat16)),
    "beta_f64": Case(lambda r, np_: r.beta(K(r, 3), 0.7, 1.5, (30,)), x64=True),
    # dirichlet
    "dirichlet": Case(lambda r, np_: r.dirichlet(K(r), np_.array([0.1, 0.5, 1.0, 2.0, 5.0]))),
    "dirichlet_batch": Case(lambda r, np_: r.dirichlet(K(r, 1), np_.array([0.3, 1.0, 3.0]), (4, 2))),
    "dirichlet_alpha_batch": Case(lambda r, np_: r.dirichlet(r.key(2), np_.array([[0.5, 0.5], [2.0, 7.0]]),
                                                             (3, 2))),
    "dirichlet_small_alpha": Case(lambda r, np_: r.dirichlet(K(r, 3), np_.full(6, 0.01), (5,))),
    "dirichlet_shape_int": Case(lambda r, np_: r.dirichlet(K(r, 4), np_.ones(3), 2)),
    "dirichlet_f16": Case(lambda r, np_: r.dirichlet(K(r, 5), np_.array([0.5, 1.0, 4.0], np_.float16), (8,),
                                                     np_.float16)),
    "dirichlet_bf16": Case(lambda r, np_: r.dirichlet(K(r, 5), np_.array([0.5, 1.0, 4.0], np_.bfloat16), (8,),
                                                      np_.bfloat16)),
    "dirichlet_f64": Case(lambda r, np_: r.dirichlet(K(r, 5), np_.array([0.5, 1.0, 4.0]), (8,)), x64=True),
    # chisquare
    "chisquare": Case(lambda r, np_: r.chisquare(K(r), np_.array([0.1, 0.5, 1.0, 2.0, 5.0, 30.0]))),
    "chisquare_shape": Case(lambda r, np_: r.chisquare(K(r, 1), 3, (4, 5))),
    "chisquare_f16": Case(lambda r, np_: r.chisquare(K(r, 2), 4.0, (20,), np_.float16)),
    "chisquare_bf16": Case(lambda r, np_: r.chisquare(K(r, 2), 4.0, (20,), np_.bfloat16)),
    "chisquare_f64": Case(lambda r, np_: r.chisquare(K(r, 2), 4.0, (20,)), x64=True),
    # t
    "t": Case(lambda r, np_: r.t(K(r), np_.array([0.5, 1.0, 2.0, 5.0, 30.0]))),
    "t_shape": Case(lambda r, np_: r.t(K(r, 1), 3.0, (4, 5))),
    "t_f16": Case(lambda r, np_: r.t(K(r, 2), 4.0, (20,), np_.float16)),
    "t_bf16": Case(lambda r, np_: r.t(K(r, 2), 4.0, (20,), np_.bfloat16)),
    "t_f64": Case(lambda r, np_: r.t(K(r, 2), 4.0, (20,)), x64=True),
    # f
    "f": Case(lambda r, np_: r.f(K(r), np_.array([0.5, 1.0, 2.0, 5.0]), 3.0)),
    "f_broadcast": Case(lambda r, np_: r.f(K(r, 1), np_.array([[1.0, 4.0]]), np_.array([[2.0], [9.0], [3.0]]),
                                           (3, 2))),
    "f_f16": Case(lambda r, np_: r.f(K(r, 2), 4.0, 6.0, (20,), np_.float16)),
    "f_f64": Case(lambda r, np_: r.f(K(r, 2), 4.0, 6.0, (20,)), x64=True),
    # generalized_normal
    "generalized_normal_p2": Case(lambda r, np_: r.generalized_normal(K(r), 2.0, (50,))),
    "generalized_normal_p_half": Case(lambda r, np_: r.generalized_normal(K(r, 1), 0.5, (4, 5))),
    "generalized_normal_p_array": Case(lambda r, np_: r.generalized_normal(
        r.key(2), np_.array([0.5, 1.0, 2.0, 8.0]), (4,))),
    "generalized_normal_scalar": Case(lambda r, np_: r.generalized_normal(K(r, 3), 1.0)),
    "generalized_normal_f16": Case(lambda r, np_: r.generalized_normal(K(r, 4), 1.5, (30,), np_.float16)),
    "generalized_normal_bf16": Case(lambda r, np_: r.generalized_normal(K(r, 4), 1.5, (30,), np_.bfloat16)),
    "generalized_normal_f64": Case(lambda r, np_: r.generalized_normal(K(r, 4), 1.5, (30,)), x64=True),
    # ball
    "ball_l2": Case(lambda r, np_: r.ball(K(r), 3)),
    "ball_l1_batch": Case(lambda r, np_: r.ball(K(r, 1), 5, 1.0, (4,))),
    "ball_p_half": Case(lambda r, np_: r.ball(r.key(2), 2, 0.5, (3, 2))),
    "ball_d1": Case(lambda r, np_: r.ball(K(r, 3), 1, 3.0, (6,))),
    "ball_f16": Case(lambda r, np_: r.ball(K(r, 4), 3, 1.5, (10,), np_.float16)),
    "ball_bf16": Case(lambda r, np_: r.ball(K(r, 4), 3, 1.5, (10,), np_.bfloat16)),
    "ball_f64": Case(lambda r, np_: r.ball(K(r, 4), 3, 1.5, (10,)), x64=True),
    # under jit, vmap (over keys and over parameters) and scan
    "jit_gamma": Case(lambda r, np_: _jit(r, lambda k, a: r.gamma(k, a, (2, 3)))(
        K(r, 5), np_.array([0.2, 3.0, 1.0]))),
    "jit_loggamma_beta": Case(lambda r, np_: _jit(r, lambda k: (
        r.loggamma(k, 0.1, (4,)), r.beta(k, 2.0, 0.3, (4,))))(K(r, 6))),
    "jit_others": Case(lambda r, np_: _jit(r, lambda k: (
        r.dirichlet(k, np_.ones(3)), r.chisquare(k, 2.0, (2,)), r.t(k, 5.0, (2,)), r.f(k, 2.0, 3.0, (2,)),
        r.generalized_normal(k, 3.0, (2,)), r.ball(k, 2, 2.0, (2,))))(K(r, 7))),
    "vmap_gamma_keys": Case(lambda r, np_: _vmap_keys(r, lambda k: r.gamma(k, 0.5, (3,)))),
    "vmap_gamma_alpha": Case(lambda r, np_: _package(r).vmap(lambda a: r.gamma(K(r), a, (3,)))(
        np_.array([0.3, 1.0, 4.0]))),
    "vmap_loggamma_keys_and_alpha": Case(lambda r, np_: _package(r).vmap(lambda k, a: r.loggamma(k, a))(
        r.split(r.key(0), 3), np_.array([[0.3, 1.0], [4.0, 2.0], [0.01, 7.0]]))),
    "vmap_beta_dirichlet": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.beta(k, 0.5, 2.0, (3,)), r.dirichlet(k, np_.array([0.5, 2.0, 1.0]))), seed=1)),
    "vmap_chisquare_t_f": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.chisquare(k, 3.0, (2,)), r.t(k, 3.0, (2,)), r.f(k, 3.0, 4.0, (2,))), seed=2)),
    "vmap_generalized_normal_ball": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.generalized_normal(k, 0.7, (2,)), r.ball(k, 3, 1.5)), seed=3)),
    "vmap_generalized_normal_p": Case(lambda r, np_: _package(r).vmap(
        lambda p: r.generalized_normal(K(r), p, (2,)))(np_.array([0.5, 1.0, 2.0, 4.0]))),
    "scan_gamma": Case(lambda r, np_: _scan(r, lambda k: r.gamma(k, 0.8, (2,)))),
    "scan_beta": Case(lambda r, np_: _scan(r, lambda k: r.beta(k, 0.8, 1.2, (2,)))),
    # gradients with respect to the shape parameters (implicit reparameterisation)
    "grad_gamma": Case(lambda r, np_: _grad(r, lambda a: r.gamma(K(r), a).sum(),
                                            np_.array(ALPHAS, np_.float32))),
    "grad_loggamma": Case(lambda r, np_: _grad(r, lambda a: r.loggamma(K(r, 1), a).sum(),
                                               np_.array(ALPHAS, np_.float32))),
    "grad_edge_alphas": Case(lambda r, np_: _grad(
        r, lambda a: r.gamma(K(r, 1), a).sum() + r.loggamma(K(r, 2), a).sum(),
        np_.array([0.0, -1.0, np.nan, 1e-30, 1e30, 1e-6]))),
    "grad_gamma_f64": Case(lambda r, np_: _grad(r, lambda a: r.gamma(K(r), a).sum(), np_.array(ALPHAS)),
                           x64=True, rtol=1e-9),
    "grad_gamma_f16": Case(lambda r, np_: _grad(r, lambda a: r.gamma(K(r), a, dtype=np_.float16).sum(),
                                                np_.array([0.3, 1.0, 2.5, 10.0], np_.float16))),
    "grad_beta": Case(lambda r, np_: _grad(r, lambda a: (r.beta(K(r, 2), a, 2.0) ** 2).sum(),
                                           np_.array([0.1, 0.5, 1.0, 2.0, 5.0]))),
    "grad_dirichlet": Case(lambda r, np_: _grad(r, lambda a: r.dirichlet(K(r, 3), a, (4,))[:, 0].sum(),
                                                np_.array([0.5, 1.0, 3.0]))),
    "grad_chisquare_t_f": Case(lambda r, np_: _grad(r, lambda df: (
        r.chisquare(K(r, 4), df).sum() + r.t(K(r, 5), df).sum() + r.f(K(r, 6), df, 3.0).sum()),
        np_.array([3.0, 5.0, 8.0])), rtol=1e-4),
    "grad_generalized_normal_p": Case(lambda r, np_: _grad(
        r, lambda p: r.generalized_normal(K(r, 7), p, (6,)).sum(), 1.5)),
    "vmap_grad_gamma": Case(lambda r, np_: _package(r).vmap(_package(r).grad(lambda a: r.gamma(K(r), a)))(
        np_.array([0.3, 1.0, 4.0]))),
}


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


# ---------------------------------------------------------------------------
# Names, signatures and errors, as JAX's
# ---------------------------------------------------------------------------

def _key(r):
    return r.PRNGKey(0)


# (call, exception type, message fragment); each is checked against jaxc and,
# when installed, JAX itself
ERRORS = {
    "gamma_int_dtype": (lambda r, np_: r.gamma(_key(r), 1.0, dtype=np_.int32), ValueError,
                        "dtype argument to `gamma` must be a float dtype, got int32"),
    "gamma_complex_dtype": (lambda r, np_: r.gamma(_key(r), 1.0, dtype=np.complex64), ValueError,
                            "dtype argument to `gamma` must be a float dtype, got complex64"),
    "loggamma_int_dtype": (lambda r, np_: r.loggamma(_key(r), 1.0, dtype=np_.int32), ValueError,
                           "dtype argument to `gamma` must be a float dtype"),
    "beta_int_dtype": (lambda r, np_: r.beta(_key(r), 1.0, 1.0, dtype=np_.int32), ValueError,
                       "dtype argument to `beta` must be a float dtype"),
    "dirichlet_int_dtype": (lambda r, np_: r.dirichlet(_key(r), np_.ones(3), dtype=np_.int32), ValueError,
                            "dtype argument to `dirichlet` must be a float dtype"),
    "chisquare_int_dtype": (lambda r, np_: r.chisquare(_key(r), 1.0, dtype=np_.int32), ValueError,
                            "dtype argument to `chisquare` must be a float dtype"),
    "t_int_dtype": (lambda r, np_: r.t(_key(r), 1.0, dtype=np_.int32), ValueError,
                    "dtype argument to `t` must be a float dtype"),
    "f_int_dtype": (lambda r, np_: r.f(_key(r), 1.0, 1.0, dtype=np_.int32), ValueError,
                    "dtype argument to `f` must be a float dtype"),
    "generalized_normal_int_dtype": (lambda r, np_: r.generalized_normal(_key(r), 2.0, dtype=np_.int32),
                                     ValueError, "dtype argument to `gamma` must be a float dtype"),
    "ball_int_dtype": (lambda r, np_: r.ball(_key(r), 2, dtype=np_.int32), ValueError,
                       "dtype argument to `gamma` must be a float dtype"),
    # shapes
    "gamma_shape": (lambda r, np_: r.gamma(_key(r), np_.ones(3), (4,)), ValueError,
                    "Incompatible shapes for broadcasting: shapes=[(4,), (3,)]"),
    "gamma_shape_smaller": (lambda r, np_: r.gamma(_key(r), np_.ones((2, 3)), (3,)), ValueError,
                            "gamma parameter shapes must be broadcast-compatible with shape argument"),
    "loggamma_shape": (lambda r, np_: r.loggamma(_key(r), np_.ones(3), (4,)), ValueError,
                       "Incompatible shapes for broadcasting: shapes=[(4,), (3,)]"),
    "gamma_float_shape": (lambda r, np_: r.gamma(_key(r), 1.0, (2.5,)), TypeError,
                          "Shapes must be 1D sequences of concrete values of integer type, got (2.5,)."),
    "gamma_negative_shape": (lambda r, np_: r.gamma(_key(r), 1.0, (-1,)), TypeError,
                             "Only non-negative indices are allowed"),
    "beta_params": (lambda r, np_: r.beta(_key(r), np_.ones(3), np_.ones(2)), ValueError,
                    "Incompatible shapes for broadcasting: shapes=[(3,), (2,)]"),
    "beta_shape": (lambda r, np_: r.beta(_key(r), np_.ones(3), 1.0, (2,)), ValueError,
                   "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]"),
    "dirichlet_0d": (lambda r, np_: r.dirichlet(_key(r), 1.0), ValueError,
                     "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0"),
    "dirichlet_shape": (lambda r, np_: r.dirichlet(_key(r), np_.ones((2, 3)), (3,)), ValueError,
                        "Incompatible shapes for broadcasting: shapes=[(3,), (2,)]"),
    "chisquare_shape": (lambda r, np_: r.chisquare(_key(r), np_.ones(3), (2,)), ValueError,
                        "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
    "t_shape": (lambda r, np_: r.t(_key(r), np_.ones(3), (2,)), ValueError,
                "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
    "f_params": (lambda r, np_: r.f(_key(r), np_.ones(3), np_.ones(2)), ValueError,
                 "Incompatible shapes for broadcasting: shapes=[(3,), (2,)]"),
    # JAX's f divides with lax.div: parameters of a lower rank than `shape` fail there
    "f_rank": (lambda r, np_: r.f(_key(r), np_.array([1.0, 4.0]), np_.array([[2.0], [9.0]]), (3, 2, 2)),
               TypeError, "div"),
    "generalized_normal_negative_shape": (lambda r, np_: r.generalized_normal(_key(r), 2.0, (-1,)), TypeError,
                                          "Only non-negative indices are allowed"),
    "ball_float_d": (lambda r, np_: r.ball(_key(r), 2.5), TypeError, "cannot be interpreted as an integer"),
    "ball_negative_d": (lambda r, np_: r.ball(_key(r), -1), TypeError, "Only non-negative indices"),
    "ball_traced_d": (lambda r, np_: _jit(r, lambda d: r.ball(_key(r), d))(2), TypeError, "concrete value"),
    # parameters that do not cast safely to dtype (TypePromotionError, a ValueError)
    "beta_unsafe_cast": (lambda r, np_: r.beta(_key(r), np_.float32(2.0), 1.0, (2,), np_.float16), ValueError,
                         "In arguments to beta, cannot safely cast argument of type float32 to float16"),
    "beta_complex": (lambda r, np_: r.beta(_key(r), np.ones(2, np.complex64), 1.0), ValueError,
                     "In arguments to beta, cannot safely cast argument of type complex64 to float32"),
    "chisquare_unsafe_cast": (lambda r, np_: r.chisquare(_key(r), np_.ones(2), None, np_.bfloat16),
                              ValueError, "In arguments to chisquare, cannot safely cast"),
    "t_unsafe_cast": (lambda r, np_: r.t(_key(r), np_.ones(2), None, np_.float16), ValueError,
                      "In arguments to t, cannot safely cast argument of type float32 to float16"),
    "f_unsafe_cast": (lambda r, np_: r.f(_key(r), 1.0, np_.float32(3.0), (2,), np_.float16), ValueError,
                      "In arguments to f, cannot safely cast argument of type float32 to float16"),
    # keys
    "key_array": (lambda r, np_: r.gamma(r.split(_key(r)), 1.0), ValueError, "gamma accepts a single key"),
    "key_array_dirichlet": (lambda r, np_: r.dirichlet(r.split(r.key(0)), np_.ones(2)), ValueError,
                            "dirichlet accepts a single key"),
    "bad_key_dtype": (lambda r, np_: r.beta(np.zeros(2, np.int32), 1.0, 1.0), TypeError,
                      "key_data.dtype = uint32"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(*ERRORS[name])


def test_type_promotion_error_is_jaxc_dtypes_type_promotion_error():
    with pytest.raises(jaxc.dtypes.TypePromotionError) as info:
        random.t(random.PRNGKey(0), jnp.float32(2.0), (2,), jnp.float16)
    assert isinstance(info.value, ValueError)


def test_weak_and_integer_parameters_cast_safely():
    key = random.PRNGKey(0)
    assert random.t(key, 3.0, (3,), jnp.float16).dtype == jnp.float16
    assert random.chisquare(key, 3, (3,), jnp.bfloat16).dtype == jnp.bfloat16
    assert random.beta(key, jnp.arange(1, 4, dtype=jnp.int8), 2, None, jnp.float16).dtype == jnp.float16
    # gamma itself does not check: the parameter is converted
    assert random.gamma(key, jnp.float32(2.0), (3,), jnp.float16).dtype == jnp.float16


def test_typed_and_legacy_keys_agree():
    legacy, typed = random.PRNGKey(3), random.key(3)
    for sample in (lambda k: random.gamma(k, 0.4, (5,)), lambda k: random.dirichlet(k, jnp.ones(3)),
                   lambda k: random.ball(k, 2)):
        np.testing.assert_array_equal(sample(legacy), sample(typed))


def test_eager_jit_and_vmap_agree():
    keys = random.split(random.PRNGKey(11), 3)
    alphas = jnp.array([0.05, 0.9, 6.0])
    eager = np.stack([np.asarray(random.gamma(k, alphas)) for k in keys])
    jitted = np.stack([np.asarray(jaxc.jit(random.gamma)(k, alphas)) for k in keys])
    mapped = np.asarray(jaxc.vmap(lambda k: random.gamma(k, alphas))(keys))
    np.testing.assert_array_equal(eager, jitted)
    np.testing.assert_array_equal(eager, mapped)
    # each element has its own key: element i does not depend on the others
    alone = random.gamma(keys[0], jnp.array([0.05, 0.9, 7.0]))
    np.testing.assert_array_equal(np.asarray(alone)[:2], eager[0, :2])


def test_loggamma_is_the_log_of_gamma():
    key = random.PRNGKey(4)
    a = jnp.array([0.3, 0.8, 1.0, 2.5, 20.0])
    np.testing.assert_allclose(np.exp(random.loggamma(key, a, (100, 5))), random.gamma(key, a, (100, 5)),
                               rtol=2e-5)
    # where gamma underflows to 0, loggamma stays finite
    tiny = np.asarray(random.loggamma(key, 1e-3, (1000,)))
    assert np.all(np.isfinite(tiny)) and tiny.min() < -200


def _cdf_grad(a, x):
    """d x / d a at fixed F(a, x), F the gamma CDF: -(dF/da) / (dF/dx), with
    dF/da by float64 central differences of scipy's gammainc."""
    special = pytest.importorskip("scipy.special")
    a, x = np.asarray(a, np.float64), np.asarray(x, np.float64)
    h = 1e-6 * a
    dF_da = (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)
    dF_dx = np.exp((a - 1) * np.log(x) - x - special.gammaln(a))
    return -dF_da / dF_dx


class _x64:
    def __enter__(self):
        self.before = bool(jaxc.config.jax_enable_x64)
        jaxc.config.update("jax_enable_x64", True)

    def __exit__(self, *exc):
        jaxc.config.update("jax_enable_x64", self.before)


ALPHAS_FOR_GRAD = [0.05, 0.3, 0.9, 1.0, 1.7, 4.0, 25.0, 300.0]


def test_grad_matches_cdf_definition_float64():
    with _x64():
        key = random.PRNGKey(12)
        a = jnp.array(ALPHAS_FOR_GRAD)
        x = np.asarray(random.gamma(key, a))
        g = np.asarray(jaxc.grad(lambda a: random.gamma(key, a).sum())(a))
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, _cdf_grad(ALPHAS_FOR_GRAD, x), rtol=1e-6)


def test_grad_matches_cdf_definition_float32():
    key = random.PRNGKey(13)
    a = jnp.array(ALPHAS_FOR_GRAD, jnp.float32)
    x = np.asarray(random.gamma(key, a))
    g = np.asarray(jaxc.grad(lambda a: random.gamma(key, a).sum())(a))
    np.testing.assert_allclose(g, _cdf_grad(np.asarray(a), x), rtol=2e-4)
    # loggamma: d log x / d a = (d x / d a) / x
    lx = np.asarray(random.loggamma(key, a))
    lg = np.asarray(jaxc.grad(lambda a: random.loggamma(key, a).sum())(a))
    np.testing.assert_allclose(lg, _cdf_grad(np.asarray(a), np.exp(lx)) / np.exp(lx), rtol=2e-4)


def test_jvp_and_grad_agree():
    key = random.PRNGKey(14)
    a = jnp.array([0.3, 2.0, 9.0])
    _, tangent = jaxc.jvp(lambda a: random.loggamma(key, a), (a,), (jnp.ones(3),))
    grads = jaxc.grad(lambda a: random.loggamma(key, a).sum())(a)
    np.testing.assert_allclose(tangent, grads, rtol=1e-6)


# ---------------------------------------------------------------------------
# Statistics: sample moments against the distribution's
# ---------------------------------------------------------------------------

N = 50_000


def _moments(sample, mean, var, mean_sds=6.0, var_rtol=0.06):
    x = np.asarray(sample, np.float64)
    assert x.shape == (N,) and np.all(np.isfinite(x))
    assert abs(x.mean() - mean) < mean_sds * math.sqrt(var / N), (x.mean(), mean)
    assert abs(x.var() - var) < var_rtol * var, (x.var(), var)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.5])
def test_statistics_gamma(alpha):
    x = random.gamma(random.PRNGKey(100), alpha, (N,))
    _moments(x, alpha, alpha, var_rtol=0.1 if alpha < 1 else 0.06)
    assert np.asarray(x).min() >= 0


def test_statistics_loggamma():
    # log of Gamma(a) has mean digamma(a) and variance trigamma(a); at a = 1/2
    # these are -euler_gamma - 2 log 2 and pi**2 / 2
    a = 0.5
    x = np.asarray(random.loggamma(random.PRNGKey(101), a, (N,)), np.float64)
    _moments(x, -np.euler_gamma - 2 * np.log(2), np.pi ** 2 / 2)


def test_statistics_beta_dirichlet():
    a, b = 0.5, 2.0
    _moments(random.beta(random.PRNGKey(102), a, b, (N,)), a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    alpha = np.array([0.5, 1.0, 3.0])
    x = np.asarray(random.dirichlet(random.PRNGKey(103), jnp.asarray(alpha), (N,)), np.float64)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    s = alpha.sum()
    for i in range(3):
        _moments(x[:, i], alpha[i] / s, alpha[i] * (s - alpha[i]) / (s * s * (s + 1)))


def test_statistics_chisquare_t_f():
    _moments(random.chisquare(random.PRNGKey(104), 3.0, (N,)), 3.0, 6.0)
    _moments(random.t(random.PRNGKey(105), 6.0, (N,)), 0.0, 6.0 / 4.0, var_rtol=0.1)
    d1, d2 = 5.0, 12.0
    var = 2 * d2 ** 2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4))
    _moments(random.f(random.PRNGKey(106), d1, d2, (N,)), d2 / (d2 - 2), var, var_rtol=0.15)


@pytest.mark.parametrize("p", [0.7, 2.0, 5.0])
def test_statistics_generalized_normal(p):
    var = math.gamma(3 / p) / math.gamma(1 / p)
    _moments(random.generalized_normal(random.PRNGKey(107), p, (N,)), 0.0, var, var_rtol=0.1)
    if p == 2.0:  # exp(-x^2): a normal of variance 1/2
        x = np.asarray(random.generalized_normal(random.PRNGKey(108), p, (N,)), np.float64)
        assert abs(np.mean(x ** 4) - 3 * 0.25) < 0.05


def test_statistics_ball():
    d = 3
    x = np.asarray(random.ball(random.PRNGKey(109), d, 2.0, (N,)), np.float64)
    norms = np.linalg.norm(x, axis=-1)
    assert x.shape == (N, d) and norms.max() <= 1.0
    # uniform in the unit ball: |x|^2 has mean d / (d + 2); directions are symmetric
    assert abs(np.mean(norms ** 2) - d / (d + 2)) < 0.01
    assert np.all(np.abs(x.mean(0)) < 0.02)
    x1 = np.asarray(random.ball(random.PRNGKey(110), 4, 1.0, (N,)), np.float64)
    assert np.abs(x1).sum(-1).max() <= 1.0 + 1e-6
