"""jaxc.random's closed-form samplers (exponential, laplace, logistic, cauchy,
pareto, rayleigh, maxwell, double_sided_maxwell, weibull_min, rademacher,
lognormal, triangular, wald) against JAX's outputs, their argument errors,
and their statistics."""
import math

import numpy as np
import pytest
from random_cases import Case, check, check_error, package_of, scan_keys, vmap_keys

import jaxc
import jaxc.numpy as jnp
from jaxc import random

_package, _vmap_keys, _scan = package_of, vmap_keys, scan_keys


def _jit(r, f):
    return _package(r).jit(f)


K = lambda r, seed=0: r.PRNGKey(seed)  # noqa: E731

CASES = {
    # exponential
    "exponential": Case(lambda r, np_: r.exponential(K(r), (1000,))),
    "exponential_scalar": Case(lambda r, np_: r.exponential(K(r, 1))),
    "exponential_2d_typed_key": Case(lambda r, np_: r.exponential(r.key(2), (20, 30))),
    "exponential_int_shape": Case(lambda r, np_: r.exponential(K(r, 3), 7)),
    "exponential_empty": Case(lambda r, np_: r.exponential(K(r), (0, 4))),
    "exponential_f16": Case(lambda r, np_: r.exponential(K(r), (256,), np_.float16)),
    "exponential_bf16": Case(lambda r, np_: r.exponential(K(r), (256,), np_.bfloat16)),
    "exponential_f64": Case(lambda r, np_: r.exponential(K(r), (256,), np_.float64), x64=True),
    "exponential_default_x64": Case(lambda r, np_: r.exponential(K(r), (64,)), x64=True),
    "exponential_f64_without_x64": Case(lambda r, np_: r.exponential(K(r), (8,), np_.float64)),
    # laplace
    "laplace": Case(lambda r, np_: r.laplace(K(r), (1000,))),
    "laplace_scalar": Case(lambda r, np_: r.laplace(r.key(1))),
    "laplace_f16": Case(lambda r, np_: r.laplace(K(r, 2), (256,), np_.float16)),
    "laplace_bf16": Case(lambda r, np_: r.laplace(K(r, 2), (256,), np_.bfloat16)),
    "laplace_f64": Case(lambda r, np_: r.laplace(K(r, 2), (256,), np_.float64), x64=True),
    "laplace_empty": Case(lambda r, np_: r.laplace(K(r), (0,))),
    # logistic
    "logistic": Case(lambda r, np_: r.logistic(K(r), (1000,))),
    "logistic_2d": Case(lambda r, np_: r.logistic(r.key(3), (10, 7))),
    "logistic_f16": Case(lambda r, np_: r.logistic(K(r, 4), (256,), np_.float16)),
    "logistic_bf16": Case(lambda r, np_: r.logistic(K(r, 4), (256,), np_.bfloat16)),
    "logistic_f64": Case(lambda r, np_: r.logistic(K(r, 4), (256,), np_.float64), x64=True),
    # cauchy
    "cauchy": Case(lambda r, np_: r.cauchy(K(r), (1000,))),
    "cauchy_scalar": Case(lambda r, np_: r.cauchy(K(r, 5))),
    "cauchy_f16": Case(lambda r, np_: r.cauchy(K(r, 6), (256,), np_.float16)),
    "cauchy_bf16": Case(lambda r, np_: r.cauchy(K(r, 6), (256,), np_.bfloat16)),
    "cauchy_f64": Case(lambda r, np_: r.cauchy(K(r, 6), (256,), np_.float64), x64=True),
    # pareto: shape from b when None, else b broadcast to it
    "pareto": Case(lambda r, np_: r.pareto(K(r), 2.5, (1000,))),
    "pareto_scalar": Case(lambda r, np_: r.pareto(K(r, 1), 3.0)),
    "pareto_b_array": Case(lambda r, np_: r.pareto(K(r, 2), np_.array([0.5, 1.0, 2.0, 8.0]))),
    "pareto_b_broadcast": Case(lambda r, np_: r.pareto(K(r, 3), np_.array([[1.0], [4.0]]), (2, 5))),
    "pareto_int_b": Case(lambda r, np_: r.pareto(K(r, 4), 2, (10,))),
    "pareto_int32_b": Case(lambda r, np_: r.pareto(K(r, 4), np_.arange(1, 6, dtype=np_.int32))),
    "pareto_f16": Case(lambda r, np_: r.pareto(K(r, 5), 3.0, (256,), np_.float16)),
    "pareto_bf16": Case(lambda r, np_: r.pareto(K(r, 5), 3.0, (256,), np_.bfloat16)),
    "pareto_f64": Case(lambda r, np_: r.pareto(K(r, 5), np_.float64(3.0), (256,), np_.float64), x64=True),
    "pareto_empty": Case(lambda r, np_: r.pareto(K(r), np_.ones((0, 2)))),
    # rayleigh
    "rayleigh": Case(lambda r, np_: r.rayleigh(K(r), 2.0, (1000,))),
    "rayleigh_scalar": Case(lambda r, np_: r.rayleigh(r.key(1), 1.0)),
    "rayleigh_scale_array": Case(lambda r, np_: r.rayleigh(K(r, 2), np_.array([0.5, 1.0, 3.0]), (4, 3))),
    "rayleigh_f16": Case(lambda r, np_: r.rayleigh(K(r, 3), 1.5, (256,), np_.float16)),
    "rayleigh_bf16": Case(lambda r, np_: r.rayleigh(K(r, 3), 1.5, (256,), np_.bfloat16)),
    "rayleigh_f64": Case(lambda r, np_: r.rayleigh(K(r, 3), 1.5, (256,), np_.float64), x64=True),
    # maxwell
    "maxwell": Case(lambda r, np_: r.maxwell(K(r), (1000,))),
    "maxwell_scalar": Case(lambda r, np_: r.maxwell(K(r, 1))),
    "maxwell_2d": Case(lambda r, np_: r.maxwell(r.key(2), (5, 6))),
    "maxwell_f16": Case(lambda r, np_: r.maxwell(K(r, 3), (256,), np_.float16)),
    "maxwell_bf16": Case(lambda r, np_: r.maxwell(K(r, 3), (256,), np_.bfloat16)),
    "maxwell_f64": Case(lambda r, np_: r.maxwell(K(r, 3), (256,), np_.float64), x64=True),
    "maxwell_empty": Case(lambda r, np_: r.maxwell(K(r), (3, 0))),
    # double_sided_maxwell: the result's shape is shape + params' shape, and
    # an empty shape is replaced by the params' shape first (JAX's quirk)
    "double_sided_maxwell": Case(lambda r, np_: r.double_sided_maxwell(K(r), 1.0, 2.0, (1000,))),
    "double_sided_maxwell_scalar": Case(lambda r, np_: r.double_sided_maxwell(K(r, 1), 0.0, 1.0)),
    "double_sided_maxwell_params_empty_shape": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 2), np_.array([0.0, 10.0, -5.0]), 0.5)),
    "double_sided_maxwell_params_shape": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 3), np_.array([[0.0], [1.0]]), np_.array([1.0, 2.0, 3.0]), (4,))),
    "double_sided_maxwell_int_params": Case(lambda r, np_: r.double_sided_maxwell(K(r, 4), 3, 2, (50,))),
    "double_sided_maxwell_f16": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 5), 0.0, 1.0, (256,), np_.float16)),
    "double_sided_maxwell_bf16": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 5), 0.0, 1.0, (256,), np_.bfloat16)),
    "double_sided_maxwell_f32_params_f16": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 5), np_.float32(0.5), np_.float32(1.0), (64,), np_.float16)),
    "double_sided_maxwell_f64": Case(lambda r, np_: r.double_sided_maxwell(
        K(r, 5), 0.0, 1.0, (256,), np_.float64), x64=True),
    # weibull_min: uniform of `shape`, broadcast with the parameters
    "weibull_min": Case(lambda r, np_: r.weibull_min(K(r), 2.0, 1.5, (1000,))),
    "weibull_min_scalar": Case(lambda r, np_: r.weibull_min(K(r, 1), 1.0, 0.5)),
    "weibull_min_param_arrays": Case(lambda r, np_: r.weibull_min(
        K(r, 2), np_.array([1.0, 2.0, 3.0]), np_.array([[0.5], [1.0], [4.0]]), (3, 3))),
    "weibull_min_params_broadcast_shape": Case(lambda r, np_: r.weibull_min(
        K(r, 3), 1.0, np_.array([1.0, 2.0]))),
    "weibull_min_int_params": Case(lambda r, np_: r.weibull_min(K(r, 4), 3, 2, (20,))),
    "weibull_min_f16": Case(lambda r, np_: r.weibull_min(K(r, 5), 1.0, 2.0, (256,), np_.float16)),
    "weibull_min_bf16": Case(lambda r, np_: r.weibull_min(K(r, 5), 1.0, 2.0, (256,), np_.bfloat16)),
    "weibull_min_f32_params_f16": Case(lambda r, np_: r.weibull_min(
        K(r, 5), np_.float32(1.0), np_.float32(2.0), (64,), np_.float16)),
    "weibull_min_f64": Case(lambda r, np_: r.weibull_min(K(r, 5), 1.0, 2.0, (256,), np_.float64), x64=True),
    # rademacher
    "rademacher": Case(lambda r, np_: r.rademacher(K(r), (1000,))),
    "rademacher_scalar": Case(lambda r, np_: r.rademacher(r.key(1))),
    "rademacher_int8": Case(lambda r, np_: r.rademacher(K(r, 2), (64,), np_.int8)),
    "rademacher_uint8": Case(lambda r, np_: r.rademacher(K(r, 2), (64,), np_.uint8)),
    "rademacher_f32": Case(lambda r, np_: r.rademacher(K(r, 2), (64,), np_.float32)),
    "rademacher_f16": Case(lambda r, np_: r.rademacher(K(r, 2), (64,), np_.float16)),
    "rademacher_bool": Case(lambda r, np_: r.rademacher(K(r, 2), (16,), np_.bool_)),
    "rademacher_x64": Case(lambda r, np_: r.rademacher(K(r, 3), (64,)), x64=True),
    "rademacher_empty": Case(lambda r, np_: r.rademacher(K(r), (0,))),
    # lognormal
    "lognormal": Case(lambda r, np_: r.lognormal(K(r), 0.5, (1000,))),
    "lognormal_default_sigma": Case(lambda r, np_: r.lognormal(K(r, 1))),
    "lognormal_default_sigma_shape": Case(lambda r, np_: r.lognormal(K(r, 1), shape=(5, 4))),
    "lognormal_sigma_array": Case(lambda r, np_: r.lognormal(K(r, 2), np_.array([0.1, 1.0, 2.0]))),
    "lognormal_sigma_broadcast": Case(lambda r, np_: r.lognormal(K(r, 2), np_.array([0.1, 1.0]), (3, 2))),
    "lognormal_f16": Case(lambda r, np_: r.lognormal(K(r, 3), 0.5, (256,), np_.float16)),
    "lognormal_bf16": Case(lambda r, np_: r.lognormal(K(r, 3), 0.5, (256,), np_.bfloat16)),
    "lognormal_f64": Case(lambda r, np_: r.lognormal(K(r, 3), 0.5, (256,), np_.float64), x64=True),
    "lognormal_default_x64": Case(lambda r, np_: r.lognormal(K(r, 3), shape=(16,)), x64=True),
    # triangular
    "triangular": Case(lambda r, np_: r.triangular(K(r), -1.0, 0.5, 2.0, (1000,))),
    "triangular_scalar": Case(lambda r, np_: r.triangular(K(r, 1), 0.0, 0.0, 1.0)),
    "triangular_mode_at_right": Case(lambda r, np_: r.triangular(K(r, 1), 0.0, 1.0, 1.0, (20,))),
    "triangular_arrays": Case(lambda r, np_: r.triangular(
        K(r, 2), np_.array([0.0, -1.0, 5.0]), np_.array([[0.5], [0.0]]), 6.0)),
    "triangular_int_params": Case(lambda r, np_: r.triangular(K(r, 3), 0, 1, 3, (10,))),
    "triangular_f16": Case(lambda r, np_: r.triangular(K(r, 4), -1.0, 0.5, 2.0, (256,), np_.float16)),
    "triangular_bf16": Case(lambda r, np_: r.triangular(K(r, 4), -1.0, 0.5, 2.0, (256,), np_.bfloat16)),
    "triangular_f64": Case(lambda r, np_: r.triangular(
        K(r, 4), -1.0, 0.5, 2.0, (256,), np_.float64), x64=True),
    # wald
    "wald": Case(lambda r, np_: r.wald(K(r), 1.5, (1000,))),
    "wald_scalar": Case(lambda r, np_: r.wald(r.key(1), 1.0)),
    "wald_mean_array": Case(lambda r, np_: r.wald(K(r, 2), np_.array([0.1, 1.0, 10.0]))),
    "wald_mean_broadcast": Case(lambda r, np_: r.wald(K(r, 2), np_.array([[0.5], [2.0]]), (2, 6))),
    "wald_f16": Case(lambda r, np_: r.wald(K(r, 3), 1.5, (256,), np_.float16)),
    "wald_bf16": Case(lambda r, np_: r.wald(K(r, 3), 1.5, (256,), np_.bfloat16)),
    "wald_f64": Case(lambda r, np_: r.wald(K(r, 3), 1.5, (256,), np_.float64), x64=True),
    # under jit
    "jit_exponential_laplace_logistic_cauchy": Case(lambda r, np_: _jit(r, lambda k: (
        r.exponential(k, (5,)), r.laplace(k, (5,)), r.logistic(k, (5,)), r.cauchy(k, (5,))))(K(r, 7))),
    "jit_pareto_rayleigh_lognormal_wald": Case(lambda r, np_: _jit(r, lambda k, p: (
        r.pareto(k, p, (3, 5)), r.rayleigh(k, p), r.lognormal(k, p), r.wald(k, p)))(K(r, 7), np_.arange(1.0, 6.0))),
    "jit_triangular": Case(lambda r, np_: _jit(r, lambda k, a: r.triangular(k, a, a + 1.0, a + 3.0))(
        K(r, 7), np_.linspace(-2.0, 2.0, 9))),
    "jit_maxwell_family": Case(lambda r, np_: _jit(r, lambda k, s: (
        r.maxwell(k, (4,)), r.rademacher(k, (4,)), r.double_sided_maxwell(k, s, s, (4,)),
        r.weibull_min(k, s, s, (4,))))(K(r, 7), 2.0)),
    # vmap over split keys
    "vmap_exponential_laplace_logistic_cauchy": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.exponential(k, (3,)), r.laplace(k, (3,)), r.logistic(k, (3,)), r.cauchy(k, (3,))))),
    "vmap_pareto_rayleigh_lognormal_wald": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.pareto(k, 2.0, (3,)), r.rayleigh(k, np_.array([1.0, 2.0, 3.0])), r.lognormal(k, 0.5, (3,)),
        r.wald(k, 2.0, (3,))), n=5, seed=1)),
    "vmap_triangular": Case(lambda r, np_: _vmap_keys(r, lambda k: r.triangular(k, 0.0, 0.3, 1.0, (3,)))),
    "vmap_maxwell_family": Case(lambda r, np_: _vmap_keys(r, lambda k: (
        r.maxwell(k, (3,)), r.rademacher(k, (3,)), r.double_sided_maxwell(k, 1.0, 2.0, (3,)),
        r.weibull_min(k, 1.0, 1.5, (3,))), n=3, seed=2)),
    "vmap_typed_keys": Case(lambda r, np_: _package(r).vmap(lambda k: r.wald(k, 1.0, (2,)))(
        r.split(r.key(3), 4))),
    "vmap_batched_parameter": Case(lambda r, np_: _package(r).vmap(
        lambda k, b: r.pareto(k, b, (3,)))(r.split(K(r, 4), 3), np_.array([1.0, 2.0, 4.0]))),
    # inside scan
    "vmap_batched_parameters": Case(lambda r, np_: _package(r).vmap(lambda k, s: (
        r.weibull_min(k, s, 2.0, (3,)), r.double_sided_maxwell(k, s, 1.0, (3,)),
        r.triangular(k, s - 1.0, s, s + 2.0, (3,)), r.lognormal(k, s, (3,)), r.rayleigh(k, s, (3,))))(
        r.split(K(r, 5), 4), np_.arange(1.0, 5.0))),
    "scan_samplers": Case(lambda r, np_: _scan(r, lambda k: (
        r.exponential(k, (2,)), r.maxwell(k, (2,)), r.triangular(k, 0.0, 0.5, 1.0, (2,)),
        r.rademacher(k, (2,)), r.wald(k, 1.0, (2,)), r.double_sided_maxwell(k, 0.0, 1.0, (2,)),
        r.pareto(k, 3.0, (2,)), r.cauchy(k, (2,))))),
}


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


# ---------------------------------------------------------------------------
# Signatures and errors, as JAX's
# ---------------------------------------------------------------------------

NAMES = ["cauchy", "double_sided_maxwell", "exponential", "laplace", "logistic", "lognormal",
         "maxwell", "pareto", "rademacher", "rayleigh", "triangular", "wald", "weibull_min"]


def _key(r):
    return r.PRNGKey(0)


# (call, exception type, message fragment); each is checked against jaxc and,
# when installed, JAX itself
ERRORS = {
    "exponential_int_dtype": (lambda r, np_: r.exponential(_key(r), (2,), np_.int32), ValueError,
                              "dtype argument to `exponential` must be a float dtype"),
    "laplace_int_dtype": (lambda r, np_: r.laplace(_key(r), (2,), np_.int32), ValueError,
                          "dtype argument to `laplace` must be a float dtype"),
    "logistic_bool_dtype": (lambda r, np_: r.logistic(_key(r), (2,), np_.bool_), ValueError,
                            "dtype argument to `logistic` must be a float dtype"),
    "cauchy_uint_dtype": (lambda r, np_: r.cauchy(_key(r), (2,), np_.uint32), ValueError,
                          "dtype argument to `cauchy` must be a float dtype"),
    "maxwell_int_dtype": (lambda r, np_: r.maxwell(_key(r), (2,), np_.int32), ValueError,
                          "dtype argument to `maxwell` must be a float dtype"),
    "double_sided_maxwell_int_dtype": (
        lambda r, np_: r.double_sided_maxwell(_key(r), 0.0, 1.0, (2,), np_.int32), ValueError,
        "dtype argument to `double_sided_maxwell` must be a float dtype"),
    "weibull_min_int_dtype": (lambda r, np_: r.weibull_min(_key(r), 1.0, 1.0, (2,), np_.int16), ValueError,
                              "dtype argument to `weibull_min` must be a float dtype"),
    "pareto_int_dtype": (lambda r, np_: r.pareto(_key(r), 1.0, (2,), np_.int32), ValueError,
                         "dtype argument to `pareto` must be a float dtype"),
    "rayleigh_int_dtype": (lambda r, np_: r.rayleigh(_key(r), 1.0, (2,), np_.int32), ValueError,
                           "dtype argument to `rayleigh` must be a float dtype"),
    "wald_int_dtype": (lambda r, np_: r.wald(_key(r), 1.0, (2,), np_.int32), ValueError,
                       "dtype argument to `wald` must be a float dtype"),
    "triangular_int_dtype": (lambda r, np_: r.triangular(_key(r), 0.0, 0.5, 1.0, (2,), np_.int32),
                             ValueError, "dtype argument to `triangular` must be a float dtype"),
    "lognormal_int_dtype": (lambda r, np_: r.lognormal(_key(r), 1.0, (2,), np_.int32), ValueError,
                            "dtype argument to `lognormal` must be a float or complex dtype"),
    # parameters that do not broadcast to `shape`, or not at all
    "pareto_shape": (lambda r, np_: r.pareto(_key(r), np_.ones(3), (4,)), ValueError,
                     "Incompatible shapes for broadcasting: shapes=[(4,), (3,)]"),
    "pareto_shape_smaller": (lambda r, np_: r.pareto(_key(r), np_.ones((2, 3)), (3,)), ValueError,
                             "pareto parameter shapes must be broadcast-compatible with shape argument, "
                             "and the result of broadcasting the shapes must equal the shape argument, "
                             "but got result (2, 3) for shape argument (3,)"),
    "rayleigh_shape": (lambda r, np_: r.rayleigh(_key(r), np_.ones(3), (2,)), ValueError,
                       "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
    "rayleigh_shape_smaller": (lambda r, np_: r.rayleigh(_key(r), np_.ones((4, 1)), (1,)), ValueError,
                               "rayleigh parameter shapes must be broadcast-compatible"),
    "wald_shape": (lambda r, np_: r.wald(_key(r), np_.ones(3), (2, 2)), ValueError,
                   "Incompatible shapes for broadcasting: shapes=[(2, 2), (3,)]"),
    "wald_shape_smaller": (lambda r, np_: r.wald(_key(r), np_.ones((2, 3)), (3,)), ValueError,
                           "wald parameter shapes must be broadcast-compatible"),
    "lognormal_shape": (lambda r, np_: r.lognormal(_key(r), np_.ones(3), (5,)), ValueError,
                        "Incompatible shapes for broadcasting: shapes=[(5,), (3,)]"),
    "lognormal_shape_smaller": (lambda r, np_: r.lognormal(_key(r), np_.ones((2, 1)), ()), ValueError,
                                "lognormal parameter shapes must be broadcast-compatible"),
    "triangular_shape": (lambda r, np_: r.triangular(_key(r), 0.0, np_.ones(2) * 0.5, 1.0, (3,)),
                         ValueError, "Incompatible shapes for broadcasting: shapes=[(3,), (), (2,), ()]"),
    "triangular_params_no_shape": (lambda r, np_: r.triangular(_key(r), np_.zeros(2), np_.ones(3) * 0.5, 1.0),
                                   ValueError, "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]"),
    "double_sided_maxwell_params": (lambda r, np_: r.double_sided_maxwell(_key(r), np_.ones(2), np_.ones(3)),
                                    ValueError, "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
    "weibull_min_pow_shapes": (lambda r, np_: r.weibull_min(_key(r), np_.ones((3, 1)), np_.ones(4), (2,)),
                               TypeError, "pow got incompatible shapes for broadcasting: (2,), (4,)."),
    "weibull_min_mul_shapes": (lambda r, np_: r.weibull_min(_key(r), np_.ones(3), 2.0, (2,)),
                               TypeError, "mul got incompatible shapes for broadcasting: (2,), (3,)."),
    "weibull_min_rank_shapes": (lambda r, np_: r.weibull_min(_key(r), 1.0, np_.ones((3, 4)), (2,)),
                                ValueError, "Incompatible shapes for broadcasting: shapes=[(2,), (3, 4)]"),
    # parameters that do not cast safely to dtype (TypePromotionError, a ValueError)
    "pareto_unsafe_cast": (lambda r, np_: r.pareto(_key(r), np_.float32(2.0), (2,), np_.float16),
                           ValueError, "In arguments to pareto, cannot safely cast argument of type "
                           "float32 to float16"),
    "rayleigh_unsafe_cast": (lambda r, np_: r.rayleigh(_key(r), np_.ones(2), (2,), np_.bfloat16),
                             ValueError, "In arguments to rayleigh, cannot safely cast"),
    "wald_unsafe_cast": (lambda r, np_: r.wald(_key(r), np_.ones(2), None, np_.float16), ValueError,
                         "In arguments to wald, cannot safely cast"),
    "triangular_unsafe_cast": (
        lambda r, np_: r.triangular(_key(r), 0.0, np_.float32(0.5), 1.0, (2,), np_.float16), ValueError,
        "In arguments to triangular, cannot safely cast argument of type float32 to float16"),
    "lognormal_default_sigma_f16": (lambda r, np_: r.lognormal(_key(r), dtype=np_.float16), ValueError,
                                    "In arguments to lognormal, cannot safely cast argument of type "
                                    "float32 to float16"),
    # keys and shapes
    "key_array": (lambda r, np_: r.exponential(r.split(_key(r)), (2,)), ValueError,
                  "exponential accepts a single key"),
    "key_array_wald": (lambda r, np_: r.wald(r.split(r.key(0)), 1.0), ValueError,
                       "wald accepts a single key"),
    "rademacher_bad_dtype": (lambda r, np_: r.rademacher(_key(r), (2,), object), TypeError, "object"),
    "bad_key_dtype": (lambda r, np_: r.laplace(np.zeros(2, np.int32)), TypeError, "key_data.dtype = uint32"),
    "bad_shape": (lambda r, np_: r.maxwell(_key(r), (2.5,)), TypeError, "got (2.5,)"),
    "bad_shape_pareto": (lambda r, np_: r.pareto(_key(r), 1.0, ("a",)), TypeError, "got ('a',)"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(*ERRORS[name])


def test_type_promotion_error_is_jaxc_dtypes_type_promotion_error():
    with pytest.raises(jaxc.dtypes.TypePromotionError) as info:
        random.pareto(random.PRNGKey(0), jnp.float32(2.0), (2,), jnp.float16)
    assert isinstance(info.value, ValueError)


def test_weak_parameters_cast_safely_to_narrow_dtypes():
    key = random.PRNGKey(0)
    assert random.pareto(key, 2.0, (3,), jnp.float16).dtype == jnp.float16
    assert random.pareto(key, 2, (3,), jnp.float16).dtype == jnp.float16
    assert random.pareto(key, jnp.arange(1, 4, dtype=jnp.int8), None, jnp.bfloat16).dtype == jnp.bfloat16
    # JAX's double_sided_maxwell and weibull_min do not check: the result promotes
    assert random.weibull_min(key, jnp.float32(1), jnp.float32(2), (3,), jnp.float16).dtype == jnp.float32


# ---------------------------------------------------------------------------
# Transformations beyond the recorded cases
# ---------------------------------------------------------------------------

def test_eager_jit_and_vmap_agree():
    keys = random.split(random.PRNGKey(11), 3)
    samplers = {
        "exponential": lambda k: random.exponential(k, (4,)),
        "laplace": lambda k: random.laplace(k, (4,)),
        "logistic": lambda k: random.logistic(k, (4,)),
        "cauchy": lambda k: random.cauchy(k, (4,)),
        "pareto": lambda k: random.pareto(k, 2.0, (4,)),
        "rayleigh": lambda k: random.rayleigh(k, 2.0, (4,)),
        "maxwell": lambda k: random.maxwell(k, (4,)),
        "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 1.0, 2.0, (4,)),
        "weibull_min": lambda k: random.weibull_min(k, 1.0, 2.0, (4,)),
        "rademacher": lambda k: random.rademacher(k, (4,)),
        "lognormal": lambda k: random.lognormal(k, 0.5, (4,)),
        "triangular": lambda k: random.triangular(k, 0.0, 0.25, 1.0, (4,)),
        "wald": lambda k: random.wald(k, 2.0, (4,)),
    }
    assert sorted(samplers) == NAMES
    for name, f in samplers.items():
        eager = np.stack([np.asarray(f(k)) for k in keys])
        np.testing.assert_array_equal(np.asarray(jaxc.jit(f)(keys[0])), eager[0], err_msg=name)
        np.testing.assert_array_equal(np.asarray(jaxc.vmap(f)(keys)), eager, err_msg=name)


def test_fori_loop_sums_exponentials():
    def body(i, carry):
        key, total = carry
        key, sub = random.split(key)
        return key, total + random.exponential(sub)
    _, total = jaxc.lax.fori_loop(0, 4, body, (random.PRNGKey(2), jnp.float32(0)))
    expected, k = 0.0, random.PRNGKey(2)
    for _ in range(4):
        k, sub = random.split(k)
        expected += float(random.exponential(sub))
    np.testing.assert_allclose(float(total), expected, rtol=1e-6)


def test_grad_through_reparameterised_samplers():
    key = random.PRNGKey(3)
    e = np.asarray(random.exponential(key, (5,)), np.float64)
    g = jaxc.grad(lambda b: jnp.sum(random.pareto(key, b, (5,))))(2.0)
    np.testing.assert_allclose(float(g), np.sum(np.exp(e / 2) * -e / 4), rtol=1e-5)
    z = np.asarray(random.normal(key, (5,)), np.float64)
    g = jaxc.grad(lambda s: jnp.sum(random.lognormal(key, s, (5,))))(0.5)
    np.testing.assert_allclose(float(g), np.sum(np.exp(0.5 * z) * z), rtol=1e-5)


# ---------------------------------------------------------------------------
# Statistics: sample mean and variance against the distribution's
# ---------------------------------------------------------------------------

N = 200_000


def _moments(sample, mean, var, mean_sds=6.0, var_rtol=0.04):
    x = np.asarray(sample, np.float64)
    assert x.shape == (N,) and np.all(np.isfinite(x))
    assert abs(x.mean() - mean) < mean_sds * math.sqrt(var / N), (x.mean(), mean)
    assert abs(x.var() - var) < var_rtol * var, (x.var(), var)


def test_statistics_exponential_laplace_logistic():
    key = random.PRNGKey(100)
    x = np.asarray(random.exponential(key, (N,)))
    assert x.min() >= 0
    _moments(x, 1.0, 1.0)
    _moments(random.laplace(key, (N,)), 0.0, 2.0)
    _moments(random.logistic(key, (N,)), 0.0, math.pi ** 2 / 3)


def test_statistics_cauchy():
    x = np.asarray(random.cauchy(random.PRNGKey(101), (N,)), np.float64)
    assert np.all(np.isfinite(x))
    q1, median, q3 = np.quantile(x, [0.25, 0.5, 0.75])  # the quartiles of Cauchy(0, 1): -1, 0, 1
    assert abs(median) < 0.02 and abs(q1 + 1) < 0.03 and abs(q3 - 1) < 0.03


def test_statistics_pareto_rayleigh():
    key = random.PRNGKey(102)
    b = 6.0
    x = np.asarray(random.pareto(key, b, (N,)))
    assert x.min() >= 1
    _moments(x, b / (b - 1), b / ((b - 1) ** 2 * (b - 2)), var_rtol=0.08)
    s = 2.0
    _moments(random.rayleigh(key, s, (N,)), s * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * s * s)


def test_statistics_maxwell_family():
    key = random.PRNGKey(103)
    x = np.asarray(random.maxwell(key, (N,)))
    assert x.min() >= 0
    _moments(x, 2 * math.sqrt(2 / math.pi), 3 - 8 / math.pi)
    _moments(random.double_sided_maxwell(key, 1.5, 2.0, (N,)), 1.5, 3 * 2.0 ** 2)
    r = np.asarray(random.rademacher(key, (N,)))
    assert set(np.unique(r)) == {-1, 1}
    _moments(r, 0.0, 1.0)
    lam, k = 2.0, 1.5
    w = np.asarray(random.weibull_min(key, lam, k, (N,)))
    g1, g2 = math.gamma(1 + 1 / k), math.gamma(1 + 2 / k)
    _moments(w, lam * g1, lam * lam * (g2 - g1 * g1))


def test_statistics_lognormal_triangular_wald():
    key = random.PRNGKey(104)
    s = 0.5
    _moments(random.lognormal(key, s, (N,)), math.exp(s * s / 2), (math.exp(s * s) - 1) * math.exp(s * s))
    a, c, b = -1.0, 0.5, 2.0
    t = np.asarray(random.triangular(key, a, c, b, (N,)))
    assert t.min() >= a and t.max() <= b
    _moments(t, (a + b + c) / 3, (a * a + b * b + c * c - a * b - a * c - b * c) / 18)
    mu = 1.5
    w = np.asarray(random.wald(key, mu, (N,)))
    assert w.min() > 0
    _moments(w, mu, mu ** 3, var_rtol=0.08)
