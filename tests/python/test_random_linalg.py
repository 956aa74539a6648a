"""jaxc.random.multivariate_normal and orthogonal against JAX's outputs (the
factorizations under them, jaxc.lax.linalg's, are tested in
test_linalg_decompositions.py)."""
import numpy as np
import pytest
from random_cases import Case, check, package_of

import jaxc
import jaxc.numpy as jnp
from jaxc import random

_RNG = np.random.default_rng(0)
_A = _RNG.normal(size=(4, 4))
COV = (_A @ _A.T + np.eye(4)).astype(np.float32)
COV_BATCH = np.stack([COV, 2 * COV + np.eye(4, dtype=np.float32)])
DIAGONAL = np.diag([1.0, 3.0, 2.0, 0.5]).astype(np.float32)
MEAN = np.arange(4.0, dtype=np.float32)

CASES = {
    "mvn_cholesky": Case(lambda r, np_: r.multivariate_normal(r.PRNGKey(0), MEAN, COV)),
    "mvn_shape": Case(lambda r, np_: r.multivariate_normal(r.PRNGKey(1), MEAN, COV, (5, 2))),
    "mvn_batched_cov": Case(lambda r, np_: r.multivariate_normal(r.PRNGKey(2), MEAN, COV_BATCH)),
    "mvn_batched_mean": Case(lambda r, np_: r.multivariate_normal(
        r.PRNGKey(3), np.stack([MEAN, -MEAN]), COV, (3, 2))),
    "mvn_f64": Case(lambda r, np_: r.multivariate_normal(
        r.PRNGKey(4), MEAN.astype(np.float64), COV.astype(np.float64), (6,)), x64=True),
    "mvn_int_mean": Case(lambda r, np_: r.multivariate_normal(r.key(5), np.arange(4), COV, (2,))),
    # eigenvectors are unique up to sign; LAPACK's and ours agree on a diagonal matrix
    "mvn_eigh_diagonal": Case(lambda r, np_: r.multivariate_normal(
        r.PRNGKey(6), MEAN, DIAGONAL, (3,), method="eigh")),
    "mvn_svd_diagonal": Case(lambda r, np_: r.multivariate_normal(
        r.PRNGKey(6), MEAN, DIAGONAL, (3,), method="svd")),
    "mvn_jit": Case(lambda r, np_: _package(r).jit(
        lambda k: r.multivariate_normal(k, MEAN, COV, (2,)))(r.PRNGKey(7))),
    "mvn_vmap_keys": Case(lambda r, np_: _package(r).vmap(
        lambda k: r.multivariate_normal(k, MEAN, COV))(r.split(r.PRNGKey(8), 3))),
    "orthogonal": Case(lambda r, np_: r.orthogonal(r.PRNGKey(0), 5)),
    "orthogonal_batch": Case(lambda r, np_: r.orthogonal(r.PRNGKey(1), 3, (2, 2))),
    "orthogonal_wide": Case(lambda r, np_: r.orthogonal(r.PRNGKey(2), 3, m=6)),
    "orthogonal_tall": Case(lambda r, np_: r.orthogonal(r.key(3), 6, m=2)),
    "orthogonal_f64": Case(lambda r, np_: r.orthogonal(r.PRNGKey(4), 4, dtype=np.float64), x64=True),
    "orthogonal_1": Case(lambda r, np_: r.orthogonal(r.PRNGKey(5), 1)),
    "orthogonal_vmap_keys": Case(lambda r, np_: _package(r).vmap(
        lambda k: r.orthogonal(k, 3))(r.split(r.PRNGKey(9), 2))),
}


def _package(r):
    return package_of(r)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    check(__name__, name, CASES[name])


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_has_the_covariance(method):
    x = np.asarray(random.multivariate_normal(random.PRNGKey(0), MEAN, COV, (20_000,), method=method))
    np.testing.assert_allclose(x.mean(0), MEAN, atol=0.1)
    np.testing.assert_allclose(np.cov(x.T), COV, rtol=0.05, atol=0.1)


def test_orthogonal_is_orthogonal():
    q = np.asarray(random.orthogonal(random.PRNGKey(0), 6, (3,)))
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(6), (3, 6, 6)), atol=1e-5)
    wide = np.asarray(random.orthogonal(random.PRNGKey(1), 2, m=5))
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)


def test_errors():
    key = random.PRNGKey(0)
    with pytest.raises(ValueError, match="method must be one of"):
        random.multivariate_normal(key, MEAN, COV, method="lu")
    with pytest.raises(ValueError, match="requires mean.ndim >= 1"):
        random.multivariate_normal(key, 0.0, COV)
    with pytest.raises(ValueError, match="requires cov.ndim >= 2"):
        random.multivariate_normal(key, MEAN, MEAN)
    with pytest.raises(ValueError, match=r"cov.shape == \(..., n, n\) for n=4"):
        random.multivariate_normal(key, MEAN, COV[:3, :3])
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: shapes=\[\(3,\), \(\), \(2,\)\]"):
        random.multivariate_normal(key, MEAN, COV_BATCH, (3,))
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.multivariate_normal(key, MEAN, COV_BATCH, (1,))
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.multivariate_normal(key, MEAN, COV, dtype=jnp.int32)
    with pytest.raises(jaxc.ConcretizationTypeError, match="orthogonal"):
        jaxc.jit(lambda n: random.orthogonal(key, n))(3)
