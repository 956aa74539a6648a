"""Every differentiable op against finite differences in float64, forward
and reverse mode, to second order (jaxc.test_util.check_grads), eagerly
and under jit. Each case is a small function that applies one op (through
lax/jnp) to arguments in its smooth domain."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads

pytestmark = pytest.mark.usefixtures("x64")  # conftest.py: 64-bit defaults in every test


RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _draws_of_this_test(request):
    """Each test draws from its own seed (its name): with one RNG for the
    module, a test's data depended on which tests an xdist worker ran
    before it, and a draw near a kink (a min or select tie) could fail the
    finite differences in one order and not another."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(request.node.name.encode()))


def rand(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape)


POS = dict(low=0.5, high=2.0)
UNIT = dict(low=-0.8, high=0.8)

UNARY = {
    "neg": (lax.neg, {}), "abs": (lax.abs, POS), "exp": (lax.exp, {}), "exp2": (lax.exp2, {}),
    "expm1": (lax.expm1, {}), "log": (lax.log, POS), "log1p": (lax.log1p, POS), "sin": (lax.sin, {}),
    "cos": (lax.cos, {}), "tan": (lax.tan, UNIT), "asin": (lax.asin, UNIT), "acos": (lax.acos, UNIT),
    "atan": (lax.atan, {}), "sinh": (lax.sinh, {}), "cosh": (lax.cosh, {}), "tanh": (lax.tanh, {}),
    "asinh": (lax.asinh, {}), "acosh": (lax.acosh, dict(low=1.5, high=3.0)), "atanh": (lax.atanh, UNIT),
    "logistic": (lax.logistic, {}), "sqrt": (lax.sqrt, POS), "rsqrt": (lax.rsqrt, POS),
    "cbrt": (lax.cbrt, POS), "erf": (lax.erf, {}), "erf_inv": (lax.erf_inv, UNIT),
    "lgamma": (lax.lgamma, POS), "digamma": (lax.digamma, POS),
    "square": (jnp.square, {}), "reciprocal": (jnp.reciprocal, POS),
}

BINARY = {
    "add": (lax.add, {}, {}), "sub": (lax.sub, {}, {}), "mul": (lax.mul, {}, {}), "div": (lax.div, {}, POS),
    "pow": (lax.pow, POS, {}), "max": (lax.max, {}, {}), "min": (lax.min, {}, {}),
    "atan2": (lax.atan2, POS, POS)
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn, domain = UNARY[name]
    check_grads(fn, (rand(2, 3, **domain),), order=2, modes=("fwd", "rev"))


def test_rem_away_from_its_jumps():
    a, b = np.array([0.7, 1.3, 1.9, -1.1]), np.array([0.4, 0.5, 0.45, 0.6])
    check_grads(lax.rem, (a, b), order=2)


def test_digamma_left_of_zero_uses_the_reflection():
    # first order only: near the poles finite differences of the second derivative are too coarse
    check_grads(lax.digamma, (rand(3, low=-0.9, high=-0.1),), order=1)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    fn, da, db = BINARY[name]
    check_grads(fn, (rand(4, **da), rand(4, **db)), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(UNARY)[:6] + ["mul", "div"])
def test_under_jit(name):
    if name in UNARY:
        fn, domain = UNARY[name]
        check_grads(jaxc.jit(fn), (rand(3, **domain),), order=2)
    else:
        fn, da, db = BINARY[name]
        check_grads(jaxc.jit(fn), (rand(3, **da), rand(3, **db)), order=2)


STRUCTURAL = {
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), (3, 4)),
    "broadcast_stretch": (lambda x: lax.broadcast_in_dim(x, (3, 4), (0, 1)), (1, 4)),
    "reshape": (lambda x: lax.reshape(x, (6, 2)) * 2.0, (3, 4)),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), (2, 3, 4)),
    "rev": (lambda x: lax.rev(x, (0,)) * x, (3, 4)),
    "slice": (lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), (4, 5)),
    "pad": (lambda x: lax.pad(x, 1.5, [(1, -1, 1), (0, 2, 0)]), (3, 4)),
    "pad_value": (lambda x: lax.pad(x[:2], x[2, 0], [(1, 1, 0), (1, 0, 1)]), (3, 4)),
    "concatenate": (lambda x: lax.concatenate([x, x * x], 1), (2, 3)),
    "squeeze": (lambda x: lax.squeeze(x, (0,)), (1, 4)),
    "expand_dims": (lambda x: lax.expand_dims(x, (1,)), (4,)),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (1, jnp.int32(2)), (2, 2)), (4, 5)),
    "dynamic_update_slice": (lambda x: lax.dynamic_update_slice(x, x[:2, :2] ** 2, (1, 1)), (4, 5)),
    "getitem_gather": (lambda x: x[jnp.array([2, 0, 2])], (4, 3)),
    "at_set_scatter": (lambda x: jnp.asarray(x).at[jnp.array([0, 2])].set(x[1] ** 2), (4, 3)),
    "at_add_scatter": (lambda x: jnp.asarray(x).at[jnp.array([0, 2, 0])].add(x[:3] * 2.0), (4, 3)),
    "at_mul_scatter": (lambda x: jnp.asarray(x).at[jnp.array([0, 2])].mul(x[1] ** 2, unique_indices=True), (4, 3)),
    "at_max_scatter": (lambda x: jnp.asarray(x).at[jnp.array([0, 2, 0])].max(x[1:] * 2.0), (4, 3)),
    "at_min_scatter": (lambda x: jnp.asarray(x).at[jnp.array([3, 1, 3])].min(x[:3] * 2.0), (4, 3)),
    "select": (lambda x: lax.select(x > 0, x * x, lax.sin(x)), (3, 4)),
    "clamp": (lambda x: lax.clamp(-0.5, x, 0.5), (3, 4)),
    "convert": (lambda x: lax.convert_element_type(x, np.float32).astype(np.float64) * x, (3,)),
    "where": (lambda x: jnp.where(x > 0, x, 2 * x), (5,)),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_structural(name):
    fn, shape = STRUCTURAL[name]
    tol = 1e-3 if name == "convert" else None
    check_grads(fn, (rand(*shape),), order=2, atol=tol, rtol=tol)


REDUCTIONS = {
    "sum": (lambda x: lax.reduce_sum(x, (1,)), (3, 4)),
    "sum_all": (lambda x: jnp.sum(x * x), (3, 4)),
    "max": (lambda x: lax.reduce_max(x, (0,)), (3, 4)),
    "min": (lambda x: lax.reduce_min(x, (0, 1)), (3, 4)),
    "prod": (lambda x: lax.reduce_prod(x, (1,)), (3, 4)),
    "prod_two_dims": (lambda x: lax.reduce_prod(x, (0, 2)), (2, 3, 2)),
    "cumsum": (lambda x: lax.cumsum(x, 1), (3, 4)),
    "cumsum_reverse": (lambda x: lax.cumsum(x, 0, reverse=True), (3, 4)),
    "sort": (lambda x: lax.sort(x, 1), (3, 4)),
    "sort_two_operands": (lambda x: lax.sort((x[0], x[1]), 0, num_keys=1)[1], (2, 5)),
    "dot": (lambda x: x @ x.T, (3, 4)),
    "matvec": (lambda x: x @ x[0], (4, 4)),
    "batched_dot": (lambda x: lax.dot_general(x, x, (((2,), (1,)), ((0,), (0,)))), (2, 3, 3)),
    "einsum": (lambda x: jnp.einsum("ij,jk->ik", x, x[:, ::-1].T), (3, 3)),
    "mean_var": (lambda x: jnp.var(x, axis=0) + jnp.mean(x), (4, 3)),
    "logsumexp": (lambda x: jaxc.nn.logsumexp(x, axis=1), (3, 4)),
    "softmax": (lambda x: jaxc.nn.softmax(x), (2, 5)),
    "argmax_zero": (lambda x: x[jnp.argmax(x)] * 2.0, (5,)),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name):
    fn, shape = REDUCTIONS[name]
    check_grads(fn, (rand(*shape),), order=2)


def test_prod_with_a_zero_is_exact():
    x = np.array([[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]])
    grad = jaxc.grad(lambda x: jnp.sum(lax.reduce_prod(x, (1,))))(x)
    np.testing.assert_allclose(np.asarray(grad), [[0.0, 6.0, 0.0], [20.0, 5.0, 4.0]])


def test_max_splits_ties_equally_as_jax():
    grad = jaxc.grad(lambda x: lax.reduce_max(x, (0,)))(np.array([1.0, 3.0, 3.0]))
    np.testing.assert_allclose(np.asarray(grad), [0.0, 0.5, 0.5])


@pytest.mark.parametrize("fn,weight", [(jnp.logaddexp, np.exp), (jnp.logaddexp2, np.exp2)])
def test_logaddexp_derivatives_as_jax(fn, weight):
    """JAX's rule: each tangent weighed by exp(x_i - out) (base 2 for
    logaddexp2), with +inf read as 0: 1/2 each at a tie (the select that
    handles equal infinities gave (1, 0)), so softplus'(0) = 1/2."""
    x = np.array([0.0, 1.0, 1.0, -3.0, np.inf, np.inf, 50.0])
    y = np.array([0.0, 1.0, 2.0, 4.0, np.inf, 1.0, -50.0])
    dx, dy = jaxc.grad(lambda a, b: jnp.sum(fn(a, b)), argnums=(0, 1))(x, y)
    out = np.asarray(fn(x, y))
    finite = np.where(np.isposinf(out), 0.0, out)
    np.testing.assert_allclose(np.asarray(dx), weight(np.where(np.isposinf(x), 0.0, x) - finite), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dy), weight(np.where(np.isposinf(y), 0.0, y) - finite), rtol=1e-12)
    assert np.asarray(dx)[0] == np.asarray(dy)[0] == 0.5
    assert float(jaxc.grad(jaxc.nn.softplus)(0.0)) == 0.5
    check_grads(lambda a, b: fn(a, b), (rand(5), rand(5)), order=2)


def test_fmax_fmin_ties_go_to_the_second_argument_as_jax():
    """jnp.fmax/fmin are `where(x1 > x2 | isnan(x2), x1, x2)` in JAX: at a tie
    the derivative is x2's (lax.max would split it), NaN takes the other."""
    x = np.array([1.0, 1.0, 2.0, np.nan])
    y = np.array([1.0, 2.0, 1.0, 3.0])
    for fn, first in ((jnp.fmax, [0.0, 0.0, 1.0, 0.0]), (jnp.fmin, [0.0, 1.0, 0.0, 0.0])):
        dx, dy = jaxc.grad(lambda a, b: jnp.sum(fn(a, b)), argnums=(0, 1))(x, y)
        np.testing.assert_array_equal(np.asarray(dx), first)
        np.testing.assert_array_equal(np.asarray(dy), 1 - np.asarray(first))
    np.testing.assert_array_equal(np.asarray(jnp.fmax(x, y)), np.fmax(x, y))


def test_xlogy_xlog1py_and_entr_derivatives_as_jax():
    """JAX's rules: d xlogy = x' log(y) + y' x / y, d xlog1py = x' log1p(y) +
    y' x / (1 + y), d entr = -(log(x) + 1): at the points the functions
    define by a select (x = 0) the rules still give the limits."""
    from jaxc.scipy import special
    dx, dy = jaxc.grad(special.xlogy, argnums=(0, 1))(0.0, 0.0)
    assert float(dx) == -np.inf and np.isnan(float(dy))
    dx, dy = jaxc.grad(special.xlogy, argnums=(0, 1))(0.0, 2.0)
    assert float(dx) == np.log(2.0) and float(dy) == 0.0
    dx, dy = jaxc.grad(special.xlog1py, argnums=(0, 1))(0.0, -1.0)
    assert float(dx) == -np.inf and np.isnan(float(dy))
    assert float(jaxc.grad(special.entr)(0.0)) == np.inf
    assert float(jaxc.grad(special.entr)(np.e)) == -2.0
    assert float(special.xlogy(0.0, 0.0)) == 0.0 and float(special.entr(0.0)) == 0.0
    positive = rand(4, low=0.5, high=2.0)
    check_grads(special.xlogy, (rand(4), positive), order=2)
    check_grads(special.xlog1py, (rand(4), positive), order=2)
    check_grads(special.entr, (positive,), order=2)


def test_integer_and_stop_gradient_have_zero_derivatives():
    def f(x):
        n = lax.convert_element_type(x * 10, np.int32)
        return jnp.sum(x * lax.stop_gradient(x) + n.astype(np.float64) + lax.floor(x) + lax.sign(x))
    x = rand(4)
    np.testing.assert_allclose(np.asarray(jaxc.grad(f)(x)), x)
    _, tangent = jaxc.jvp(f, (x,), (np.ones(4),))
    np.testing.assert_allclose(float(tangent), np.sum(x))
