"""jaxc.random has jax.random's public names (JAX 0.10.2) with JAX's
signatures."""
import inspect

import pytest
from random_cases import jax_or_none

from jaxc import random

# dir(jax.random) in JAX 0.10.2, public names
JAX_RANDOM_NAMES = [
    "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare",
    "choice", "clone", "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
    "generalized_normal", "geometric", "gumbel", "key", "key_data", "key_dtype", "key_impl", "laplace",
    "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal",
    "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint", "random_gamma_p",
    "rayleigh", "split", "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
    "wrap_key_data",
]
# JAX internals that are public by accident and have no use without JAX's
# primitive machinery
NOT_PROVIDED = {"random_gamma_p": "a jax.core.Primitive (jaxc's primitives are jaxc ops)"}


@pytest.mark.parametrize("name", [n for n in JAX_RANDOM_NAMES if n not in NOT_PROVIDED])
def test_name_exists_and_is_listed(name):
    assert callable(getattr(random, name)), name
    assert name in random.__all__


def test_the_list_is_jaxs():
    jax = jax_or_none()
    if jax is None:
        pytest.skip("JAX 0.10.2 is not installed")
    import jax.random as jr
    assert sorted(n for n in dir(jr) if not n.startswith("_")) == sorted(JAX_RANDOM_NAMES)


@pytest.mark.parametrize("name", [n for n in JAX_RANDOM_NAMES if n not in NOT_PROVIDED])
def test_signature_matches_jax(name):
    jax = jax_or_none()
    if jax is None:
        pytest.skip("JAX 0.10.2 is not installed")
    import jax.random as jr

    def shape(fn):
        return [(p.name, p.kind, repr(p.default), type(p.default))
                for p in inspect.signature(fn).parameters.values()]
    assert shape(getattr(random, name)) == shape(getattr(jr, name))
