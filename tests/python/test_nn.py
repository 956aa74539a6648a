"""jaxc.nn (activations, softmax, one_hot) and jaxc.scipy.special against
NumPy / math references, eagerly and under jit, in float32 and float64."""
import math

import numpy as np
import pytest
from jnp_check import assert_close, check, flushed, rand

import jaxc
import jaxc.nn as nn
import jaxc.scipy.special as special

nan, inf = np.nan, np.inf
X = np.array([[-6.0, -2.5, -1.0, -0.25, 0.0], [0.25, 1.0, 2.5, 6.0, 30.0]], np.float32)
INTS = np.array([-3, -1, 0, 2, 7], np.int32)

try:
    import jax.nn as _jax_nn
    import jax.scipy.special as _jax_special
except ImportError:  # pragma: no cover - JAX is an optional extra
    _jax_nn = _jax_special = None


@pytest.fixture
def x64():
    jaxc.config.update("jax_enable_x64", True)
    yield
    jaxc.config.update("jax_enable_x64", False)


def compare_with_jax(module, name, *args, rtol=2e-6, **kwargs):
    """Same values, dtype and weak type as JAX's function, where JAX is installed."""
    theirs_module = {nn: _jax_nn, special: _jax_special}[module]
    if theirs_module is None:
        return
    ours = getattr(module, name)(*args, **kwargs)
    theirs = getattr(theirs_module, name)(*args, **kwargs)
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    assert_close(ours, tuple(np.asarray(t) for t in theirs), rtol=rtol, atol=1e-6, what=f"{name} vs JAX")
    assert [(o.dtype, o.weak_type) for o in ours] == [(t.dtype, t.weak_type) for t in theirs]


def f64_jit(fn, *args):
    """fn under jit in float64. Eager float64 kernels that call libm (exp,
    log, ...) crash at the moment (kernels named like the libm function
    they call: reported), so the float64 cases run traced only."""
    def special_f64(*a):
        return fn(*a)
    return jaxc.jit(special_f64)(*args)


# -- activations ------------------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


def _gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


_erf = np.vectorize(math.erf)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

ACTIVATIONS = {  # name -> (float64 reference, kwargs)
    "relu": (lambda x: np.maximum(x, 0), {}),
    "relu6": (lambda x: np.clip(x, 0, 6), {}),
    "sigmoid": (_sigmoid, {}),
    "log_sigmoid": (lambda x: -np.logaddexp(0, -x.astype(np.float64)), {}),
    "silu": (lambda x: x * _sigmoid(x), {}),
    "swish": (lambda x: x * _sigmoid(x), {}),
    "softplus": (lambda x: np.logaddexp(0, x.astype(np.float64)), {}),
    "soft_sign": (lambda x: x / (1 + np.abs(x)), {}),
    "elu": (lambda x: np.where(x > 0, x, 2.0 * np.expm1(np.minimum(x, 0).astype(np.float64))), {"alpha": 2.0}),
    "celu": (lambda x: np.maximum(x, 0) + 0.5 * np.expm1(np.minimum(x, 0).astype(np.float64) / 0.5), {"alpha": 0.5}),
    "selu": (lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0).astype(np.float64))),
             {}),
    "leaky_relu": (lambda x: np.where(x >= 0, x, 0.2 * x), {"negative_slope": 0.2}),
    "hard_tanh": (lambda x: np.clip(x, -1, 1), {}),
    "hard_sigmoid": (lambda x: np.clip(x + 3, 0, 6) / 6, {}),
    "hard_silu": (lambda x: x * np.clip(x + 3, 0, 6) / 6, {}),
    "hard_swish": (lambda x: x * np.clip(x + 3, 0, 6) / 6, {}),
    "gelu": (_gelu_tanh, {}),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name):
    reference, kwargs = ACTIVATIONS[name]
    fn = getattr(nn, name)
    check(lambda x: fn(x, **kwargs), None, X, expected=reference(X).astype(np.float32), dtype="float32",
          rtol=2e-6, atol=2e-7)
    compare_with_jax(nn, name, X, **kwargs)


@pytest.mark.parametrize("name, dtype", [("relu", "int32"), ("leaky_relu", "float32"), ("hard_tanh", "int32"),
                                         ("relu6", "float32"), ("sigmoid", "float32"), ("gelu", "float32")])
def test_activation_dtypes_for_ints(name, dtype):
    reference, kwargs = ACTIVATIONS[name]
    check(lambda x: getattr(nn, name)(x, **kwargs), None, INTS, dtype=dtype, rtol=2e-6,
          expected=reference(INTS.astype(np.float64)).astype(dtype))


def test_gelu_exact_and_float16():
    exact = 0.5 * X.astype(np.float64) * (1 + _erf(X.astype(np.float64) / np.sqrt(2)))
    check(lambda x: nn.gelu(x, approximate=False), None, X, expected=exact.astype(np.float32), dtype="float32",
          rtol=2e-6, atol=1e-7)
    compare_with_jax(nn, "gelu", X, approximate=False)
    h = X[:, :4].astype(np.float16)
    check(nn.gelu, None, h, expected=_gelu_tanh(h).astype(np.float16), dtype="float16", rtol=2e-3, atol=2e-3)
    check(nn.relu, None, h, expected=np.maximum(h, 0), dtype="float16")


def test_activations_at_extremes():
    big = np.array([-1e4, -100.0, 100.0, 1e4, nan], np.float32)
    assert_close(nn.softplus(big), np.array([0, 0, 100, 1e4, nan], np.float32))
    assert_close(nn.log_sigmoid(big), np.array([-1e4, -100, 0, 0, nan], np.float32))
    assert_close(nn.sigmoid(big), np.array([0, 0, 1, 1, nan], np.float32))
    assert_close(nn.silu(big), np.array([0, 0, 100, 1e4, nan], np.float32))


def test_activations_x64(x64):
    x = X.astype(np.float64)
    for name in ("sigmoid", "gelu", "softplus", "elu"):
        reference, kwargs = ACTIVATIONS[name]
        out = f64_jit(lambda v: getattr(nn, name)(v, **kwargs), x)
        assert out.dtype == np.float64
        assert_close(out, reference(x), rtol=1e-13, atol=1e-15)


def test_glu():
    x = rand((3, 4), np.float32)
    expected = x[:, :2] * _sigmoid(x[:, 2:])
    check(nn.glu, None, x, expected=expected.astype(np.float32), dtype="float32", rtol=2e-6)
    check(lambda v: nn.glu(v, axis=0), None, x[:2], expected=(x[:1] * _sigmoid(x[1:2])).astype(np.float32))
    with pytest.raises(ValueError, match=r"nn.glu: axis 1 of shape \(3, 5\) must have an even size"):
        nn.glu(np.ones((3, 5), np.float32))


# -- softmax and friends ------------------------------------------------------------

def _softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(x, axis):
    x = x.astype(np.float64)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", [-1, 0, None, (0, 1)])
def test_softmax_and_log_softmax(axis):
    x = X * 10  # logits up to 300: exp would overflow without the shift
    check(lambda v: nn.softmax(v, axis=axis), None, x, expected=_softmax(x, axis), dtype="float32", atol=1e-7)
    check(lambda v: nn.log_softmax(v, axis=axis), None, x, expected=_log_softmax(x, axis), dtype="float32",
          rtol=2e-6, atol=2e-5)
    compare_with_jax(nn, "softmax", x, axis=axis)
    compare_with_jax(nn, "log_softmax", x, axis=axis, rtol=2e-5)


def test_softmax_special_rows_and_mask():
    x = np.array([[1.0, 2.0, -inf], [-inf, -inf, -inf], [inf, 1.0, 2.0]], np.float32)
    with np.errstate(invalid="ignore"):
        check(nn.softmax, None, x, expected=np.array([[0.26894142, 0.7310586, 0], [nan] * 3, [nan] * 3]))
        check(nn.log_softmax, None, x,
              expected=np.array([[-1.3132616, -0.31326166, -inf], [nan] * 3, [nan] * 3]))
    mask = np.array([True, False, True, True])
    y = np.array([[1.0, 50.0, 2.0, 3.0]], np.float32)
    kept = _softmax(y[:, mask], -1)
    check(lambda v: nn.softmax(v, where=mask), None, y, expected=np.insert(kept, 1, 0.0, axis=1), atol=1e-7)
    check(lambda v: nn.log_softmax(v, where=mask), None, y,
          expected=np.insert(np.log(kept), 1, -inf, axis=1), rtol=2e-6)
    check(nn.softmax, None, INTS, expected=_softmax(INTS, -1), dtype="float32", atol=1e-7)
    check(nn.softmax, None, np.zeros((2, 0), np.float32), expected=np.zeros((2, 0)))
    with pytest.raises(ValueError, match="jnp.softmax: axis 2 is out of bounds"):
        nn.softmax(X, axis=2)


def test_softmax_x64(x64):
    x = X.astype(np.float64) * 10
    assert_close(f64_jit(nn.softmax, x), _softmax(x, -1), rtol=1e-13, atol=1e-300)
    assert_close(f64_jit(nn.log_softmax, x), _log_softmax(x, -1), rtol=1e-13)


def test_standardize():
    x = rand((3, 4), np.float32)
    mean = x.astype(np.float64).mean(-1, keepdims=True)
    variance = (x.astype(np.float64) ** 2).mean(-1, keepdims=True) - mean ** 2
    check(nn.standardize, None, x, expected=(x - mean) / np.sqrt(variance + 1e-5), dtype="float32", rtol=1e-4,
          atol=1e-5)
    check(lambda v: nn.standardize(v, axis=0, mean=0.5, variance=2.0), None, x,
          expected=(x - 0.5) / np.sqrt(2.0 + 1e-5), rtol=1e-5)
    mask = np.array([True, True, False, True])
    sub = x[:, mask].astype(np.float64)
    m, v = sub.mean(-1, keepdims=True), (sub ** 2).mean(-1, keepdims=True) - sub.mean(-1, keepdims=True) ** 2
    check(lambda a: nn.standardize(a, where=mask), None, x, expected=(x - m) / np.sqrt(v + 1e-5), rtol=1e-4,
          atol=1e-5)
    compare_with_jax(nn, "standardize", x, rtol=1e-4)


def test_one_hot():
    labels = np.array([[0, 2], [5, -1]], np.int32)  # 5 and -1 are out of range: all-zero rows
    expected = np.array([[[1, 0, 0], [0, 0, 1]], [[0, 0, 0], [0, 0, 0]]], np.float32)
    check(lambda v: nn.one_hot(v, 3), None, labels, expected=expected, dtype="float32")
    check(lambda v: nn.one_hot(v, 3, axis=0), None, labels, expected=np.moveaxis(expected, -1, 0))
    check(lambda v: nn.one_hot(v, 3, axis=1, dtype=np.int8), None, labels,
          expected=np.moveaxis(expected, -1, 1).astype(np.int8), dtype="int8")
    check(lambda v: nn.one_hot(v, 3), None, np.array([0.0, 1.5, 2.0], np.float32),
          expected=np.array([[1, 0, 0], [0, 0, 0], [0, 0, 1]], np.float32))
    check(lambda v: nn.one_hot(v, 4), None, np.array(2, np.uint8), expected=np.array([0, 0, 1, 0], np.float32))
    assert nn.one_hot(np.zeros((0,), np.int32), 2).shape == (0, 2)
    wide = np.zeros((2, 300), np.float32)
    wide[0, 4], wide[1, 255] = 1, 1
    check(lambda v: nn.one_hot(v, 300), None, np.array([4, 255], np.uint8), expected=wide)  # no wrap-around
    compare_with_jax(nn, "one_hot", labels, 3)
    with pytest.raises(jaxc.ConcretizationTypeError, match="num_classes argument of nn.one_hot"):
        jaxc.jit(lambda v, n: nn.one_hot(v, n))(labels, 3)
    with pytest.raises(ValueError, match="jnp.one_hot: axis 3 is out of bounds"):
        nn.one_hot(labels, 3, axis=3)


# -- scipy.special -------------------------------------------------------------------

_lgamma = np.vectorize(math.lgamma)
_erfc = np.vectorize(math.erfc)
EULER = 0.57721566490153286060


def _erfinv_reference(y):
    """Bisection on math.erf (exact to rounding)."""
    def one(v):
        if abs(v) == 1:
            return math.copysign(inf, v)
        if abs(v) > 1 or math.isnan(v):
            return nan
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
        return (lo + hi) / 2
    return np.vectorize(one)(y)


SPECIAL_X = np.array([-3.0, -1.2, -0.4, 0.0, 0.3, 0.9, 1.7, 4.0, nan], np.float32)
UNIT_X = np.array([-1.0, -0.999, -0.5, -0.1, 0.0, 0.2, 0.75, 0.9999, 1.0, 1.5], np.float32)
GAMMA_X = np.array([-2.5, -0.5, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 55.5, 0.0, -1.0], np.float32)
UNARY_SPECIAL = {  # name -> (input, float64 reference, rtol in float32); see ATOL
    "erf": (SPECIAL_X, np.vectorize(math.erf), 2e-6),
    "erfc": (np.array([-3.0, -1.0, -0.3, 0.0, 0.5, 1.0, 1.5, 2.0, 4.0, 9.0, 30.0, inf, -inf, nan], np.float32),
             _erfc, 2e-6),
    "erfinv": (UNIT_X, _erfinv_reference, 1e-5),
    "expit": (np.array([-100.0, -3.0, 0.0, 0.5, 3.0, 100.0, nan], np.float32), _sigmoid, 2e-6),
    "logit": (np.array([0.0, 1e-4, 0.25, 0.5, 0.9, 1.0, 1.5, nan], np.float32),
              lambda p: np.log(p.astype(np.float64) / (1 - p.astype(np.float64))), 2e-6),
    "gammaln": (GAMMA_X, lambda x: np.array([math.lgamma(v) if v > 0 or v % 1 else inf for v in x]), 1e-5),
    "ndtr": (SPECIAL_X, lambda x: 0.5 * _erfc(-x.astype(np.float64) / np.sqrt(2)), 2e-6),
    "entr": (np.array([-1.0, 0.0, 0.5, 1.0, 3.0, nan], np.float32),
             lambda x: np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)), np.where(x == 0, 0.0, -inf)) + 0 * x,
             2e-6),
}


# Absolute tolerances where the result is 0: lgamma(1) = lgamma(2) = 0 is
# computed to about one ulp of the nearby values; erfinv(0)'s bisection
# reference is tiny, not 0.
ATOL = {"gammaln": (1e-6, 2e-15), "erfinv": (1e-7, 1e-15)}


@pytest.mark.parametrize("name", sorted(UNARY_SPECIAL))
def test_special_unary(name):
    x, reference, rtol = UNARY_SPECIAL[name]
    with np.errstate(all="ignore"):
        expected = reference(x.astype(np.float64))
    check(getattr(special, name), None, x, expected=expected.astype(np.float32), dtype="float32", rtol=rtol,
          atol=ATOL.get(name, (1e-7,))[0])
    with np.errstate(all="ignore"):
        expected_ints = np.asarray(reference(np.array([0.0, 1.0])), np.float32)
    check(getattr(special, name), None, np.array([0, 1], np.int32), dtype="float32", expected=expected_ints,
          rtol=rtol, atol=ATOL.get(name, (1e-7,))[0])
    if name != "entr":
        compare_with_jax(special, name, x[np.isfinite(x)], rtol=max(rtol, 1e-5))


@pytest.mark.parametrize("name", sorted(UNARY_SPECIAL))
def test_special_unary_x64(name, x64):
    x, reference, _ = UNARY_SPECIAL[name]
    with np.errstate(all="ignore"):
        expected = reference(x.astype(np.float64))
    out = f64_jit(getattr(special, name), x.astype(np.float64))
    assert out.dtype == np.float64
    rtol = {"erfinv": 1e-12, "gammaln": 1e-13}.get(name, 1e-14)
    assert_close(out, expected, rtol=rtol, atol=ATOL.get(name, (0, 1e-300))[1])


def test_erfc_keeps_relative_accuracy_in_the_tail():
    x = np.linspace(-5.0, 9.5, 59).astype(np.float32)
    expected = _erfc(x.astype(np.float64)).astype(np.float32)
    # subnormal results (x > 9.19) are flushed to zero, as in JAX (docs/semantics.md)
    expected = flushed(expected)
    check(special.erfc, None, x, expected=expected, rtol=2e-6, atol=0)


def test_erfc_tail_x64(x64):
    x = np.linspace(-5.0, 26.0, 63)
    assert_close(f64_jit(special.erfc, x), _erfc(x), rtol=1e-13, atol=0)


def test_digamma_known_values_and_identities():
    x = np.array([1.0, 0.5, 2.0, 0.0, -1.0, -2.5], np.float32)
    expected = np.array([-EULER, -EULER - 2 * math.log(2), 1 - EULER, nan, nan,
                         1.1031566406452431872], np.float32)  # psi(-2.5) by the recurrence from psi(0.5)
    check(special.digamma, None, x, expected=expected, dtype="float32", rtol=1e-5)
    y = np.array([0.3, 1.7, 4.2, 9.9, 25.0], np.float32)
    step = np.asarray(special.digamma(y + 1)) - np.asarray(special.digamma(y))
    assert_close(step, 1 / y, rtol=1e-5)  # psi(x + 1) - psi(x) = 1 / x
    compare_with_jax(special, "digamma", y, rtol=1e-5)


def test_xlogy_xlog1py():
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0], np.float32)
    y = np.array([0.0, -1.0, inf, 2.0, 3.0, 0.5, nan], np.float32)
    check(special.xlogy, None, x, y, dtype="float32",
          expected=np.array([0, 0, 0, math.log(2), 2 * math.log(3), -math.log(0.5), nan], np.float32))
    check(special.xlog1py, None, x, y - 1, dtype="float32",
          expected=np.array([0, 0, 0, math.log(2), 2 * math.log(3), -math.log(0.5), nan], np.float32))
    check(special.xlogy, None, np.array([1, 2], np.int32), 3, dtype="float32",
          expected=np.log([3.0, 9.0]).astype(np.float32))


def _logsumexp_reference(a, axis=None, b=None, keepdims=False):
    a = a.astype(np.float64)
    shift = np.max(a, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0)
    terms = np.exp(a - shift) * (1 if b is None else b)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(terms, axis=axis, keepdims=True)) + shift
    return out if keepdims else np.squeeze(out, axis=axis)


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True), ((0, 1), True), (-1, True)])
def test_logsumexp(axis, keepdims):
    a = X * 20  # up to 600: exp overflows without the shift
    for fn in (special.logsumexp, nn.logsumexp):
        check(lambda v: fn(v, axis=axis, keepdims=keepdims), None, a,
              expected=_logsumexp_reference(a, axis, keepdims=keepdims).astype(np.float32), dtype="float32",
              rtol=2e-6)
    compare_with_jax(special, "logsumexp", a, axis=axis, keepdims=keepdims)


def test_logsumexp_special_rows_weights_and_signs():
    a = np.array([[-inf, -inf, -inf], [1.0, 2.0, -inf], [inf, 1.0, 2.0], [nan, 1.0, 2.0]], np.float32)
    check(lambda v: special.logsumexp(v, axis=1), None, a, dtype="float32",
          expected=np.array([-inf, math.log(math.exp(1) + math.exp(2)), inf, nan], np.float32))
    b = np.array([1.0, 0.0, 2.0], np.float32)
    x = np.array([[1.0, inf, 2.0], [3.0, 100.0, -1.0]], np.float32)  # weight 0 ignores the middle column
    check(lambda v, w: special.logsumexp(v, axis=1, b=w), None, x, b,
          expected=_logsumexp_reference(np.where(b != 0, x, -inf), 1, b).astype(np.float32), rtol=2e-6)
    pair, weights = np.array([1.0, 2.0], np.float32), np.array([1.0, -2.0], np.float32)
    magnitude = math.log(2 * math.exp(2) - math.exp(1))
    check(lambda v, w: special.logsumexp(v, b=w, return_sign=True), None, pair, weights,
          expected=(np.float32(magnitude), np.float32(-1)))
    check(lambda v, w: special.logsumexp(v, b=w), None, pair, weights, expected=np.float32(nan))
    mask = np.array([[True, False, True]])
    check(lambda v: special.logsumexp(v, axis=1, where=mask), None, x,
          expected=_logsumexp_reference(np.where(mask, x, -inf), 1).astype(np.float32), rtol=2e-6)
    check(lambda v: special.logsumexp(v, axis=0), None, np.zeros((0, 2), np.float32),
          expected=np.array([-inf, -inf], np.float32))
    check(special.logsumexp, None, INTS, expected=np.float32(_logsumexp_reference(INTS)), dtype="float32")
    compare_with_jax(special, "logsumexp", pair, b=weights, return_sign=True)
    with pytest.raises(ValueError, match="jnp.logsumexp: repeated axis"):
        special.logsumexp(x, axis=(1, 1))


def test_logsumexp_x64(x64):
    a = X.astype(np.float64) * 20
    assert_close(f64_jit(lambda v: special.logsumexp(v, axis=1), a), _logsumexp_reference(a, 1), rtol=1e-14)
