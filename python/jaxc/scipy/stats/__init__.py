"""`jaxc.scipy.stats`: JAX's probability distributions (one module each, with
the functions JAX's has, its argument names, defaults, formulas and edge cases),
and mode, rankdata, sem and gaussian_kde."""
from . import (  # noqa: F401
               bernoulli,
               beta,
               betabinom,
               binom,
               cauchy,
               chi2,
               dirichlet,
               expon,
               gamma,
               gennorm,
               geom,
               gumbel_l,
               gumbel_r,
               laplace,
               logistic,
               multinomial,
               multivariate_normal,
               nbinom,
               norm,
               pareto,
               poisson,
               t,
               truncnorm,
               uniform,
               vonmises,
               wrapcauchy,
)
from ._core import mode, rankdata, sem  # noqa: F401
from .kde import gaussian_kde  # noqa: F401
