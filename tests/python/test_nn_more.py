"""jaxc.nn's newer names (identity, tanh, mish, squareplus, sparse_plus,
sparse_sigmoid, log1mexp, logmeanexp, dot_product_attention) against
float64 NumPy references: eagerly, under jit and under vmap, gradients
against finite differences, and JAX's dtypes and errors. Where JAX is
installed the same cases are compared with jax.nn too."""
import math

import numpy as np
import pytest
from batching_util import check_vmap
from jnp_check import assert_close, check, numerical_gradient, rand

import jaxc
import jaxc.nn as nn
from jaxc.test_util import check_grads

nan, inf = np.nan, np.inf
X = np.array([[-6.0, -2.5, -1.0, -0.999, -0.25, 0.0], [0.25, 0.999, 1.0, 2.5, 6.0, 30.0]], np.float32)
LOG2 = math.log(2)
POSITIVE = np.array([1e-6, 1e-3, 0.1, 0.5, 0.6931, 0.6932, 0.7, 1.0, 2.0, 3.0, 4.0, 5.0, 20.0, 60.0], np.float32)
F32_MAX = float(np.finfo(np.float32).max)


@pytest.fixture
def x64():
    jaxc.config.update("jax_enable_x64", True)
    yield
    jaxc.config.update("jax_enable_x64", False)


def jax_nn():
    """jax.nn, or skip the test where JAX is not installed."""
    return pytest.importorskip("jax.nn")


def same_as_jax(ours, theirs, rtol=2e-6, atol=1e-6, what=""):
    """Same values, dtype and weak type as JAX's result."""
    assert_close(ours, np.asarray(theirs), rtol=rtol, atol=atol, what=f"{what} vs JAX")
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), what


# -- float64 NumPy references ---------------------------------------------------------

def _f64(x):
    return np.asarray(x, np.float64)


def _mish(x):
    x = _f64(x)
    return x * np.tanh(np.logaddexp(0.0, x))


def _squareplus(x, b=4.0):
    x = _f64(x)
    return (x + np.sqrt(x * x + b)) / 2


def _sparse_plus(x):
    x = _f64(x)
    return np.select([x <= -1, x >= 1], [0.0 * x, x], (x + 1) ** 2 / 4)


def _sparse_sigmoid(x):
    x = _f64(x)
    return np.select([x <= -1, x >= 1], [0.0 * x, 1.0 + 0 * x], (x + 1) / 2)


def _log1mexp(x):
    """log(1 - exp(-x)) in float64; each form where it is accurate to far
    better than float32 (switching at 1, not at log 2 as the code does)."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        return np.where(x <= 1, np.log(-np.expm1(-x)), np.log1p(-np.exp(-x)))


def _logmeanexp(x, axis=None, where=None, keepdims=False):
    x = _f64(x)
    if where is not None:
        x = np.where(where, x, -inf)
    with np.errstate(all="ignore"):
        shift = np.max(x, axis=axis, keepdims=True)
        shift = np.where(np.isfinite(shift), shift, 0)
        total = np.sum(np.exp(x - shift), axis=axis, keepdims=True)
        count = np.sum(np.broadcast_to(True if where is None else where, x.shape), axis=axis, keepdims=True)
        out = np.log(total) + shift - np.log(count)
    return out if keepdims else np.squeeze(out, axis=axis)


ELEMENTWISE = {  # name -> (float64 reference, input, kwargs)
    "identity": (_f64, X, {}),
    "tanh": (lambda x: np.tanh(_f64(x)), X, {}),
    "mish": (_mish, X, {}),
    "squareplus": (_squareplus, X, {}),
    "sparse_plus": (_sparse_plus, X, {}),
    "sparse_sigmoid": (_sparse_sigmoid, X, {}),
    "log1mexp": (_log1mexp, POSITIVE, {}),
}


# -- elementwise activations ----------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_eager_and_jit(name):
    reference, x, kwargs = ELEMENTWISE[name]
    fn = getattr(nn, name)
    check(lambda v: fn(v, **kwargs), None, x, expected=reference(x).astype(np.float32), dtype="float32",
          rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_vmap(name):
    reference, x, _ = ELEMENTWISE[name]
    fn = getattr(nn, name)
    x = x.reshape(-1, 1)
    check_vmap(fn, (x,))
    assert_close(jaxc.vmap(fn)(x), reference(x).astype(np.float32), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_same_as_jax(name):
    theirs = jax_nn()
    _, x, kwargs = ELEMENTWISE[name]
    same_as_jax(getattr(nn, name)(x, **kwargs), getattr(theirs, name)(x, **kwargs), what=name)


# JAX 0.10.2's result (dtype, weak type) for an int32 array, a Python int,
# a Python float and a float16 array
RESULT_TYPES = {
    "mish": [("float32", False), ("float32", True), ("float32", True), ("float16", False)],
    "squareplus": [("float32", False), ("float32", True), ("float32", True), ("float16", False)],
    "sparse_plus": [("float32", True), ("float32", True), ("float32", True), ("float16", False)],
    "sparse_sigmoid": [("float32", True), ("float32", True), ("float32", True), ("float16", False)],
    "log1mexp": [("float32", False), ("float32", True), ("float32", True), ("float16", False)],
    "logmeanexp": [("float32", False), ("float32", False), ("float32", False), ("float16", False)],
    "tanh": [("float32", False), ("float32", True), ("float32", True), ("float16", False)],
    "identity": [("int32", False), ("int32", True), ("float32", True), ("float16", False)],
}
TYPE_INPUTS = [np.arange(1, 4, dtype=np.int32), 2, 2.0, np.array([0.5, 2.0], np.float16)]


@pytest.mark.parametrize("name", sorted(RESULT_TYPES))
def test_result_dtypes_and_weak_types(name):
    fn = getattr(nn, name)
    got = [(str(fn(x).dtype), fn(x).weak_type) for x in TYPE_INPUTS]
    assert got == RESULT_TYPES[name]
    jitted = [(str(r.dtype), r.weak_type) for r in (jaxc.jit(fn)(x) for x in TYPE_INPUTS)]
    assert jitted == RESULT_TYPES[name]


@pytest.mark.parametrize("name", sorted(RESULT_TYPES))
def test_result_dtypes_same_as_jax(name):
    theirs = jax_nn()
    for x in TYPE_INPUTS:
        same_as_jax(getattr(nn, name)(x), getattr(theirs, name)(x), rtol=2e-3, atol=1e-3, what=f"{name}({x!r})")


def test_identity_and_tanh():
    assert nn.tanh is jaxc.numpy.tanh
    ints = np.array([-3, 0, 7], np.int32)
    check(nn.identity, None, ints, expected=ints, dtype="int32")
    check(nn.tanh, None, ints, expected=np.tanh(ints.astype(np.float64)).astype(np.float32), dtype="float32",
          rtol=2e-6)


def test_squareplus_b():
    for b in (0.0, 1.0, 9.0):
        check(lambda v: nn.squareplus(v, b), None, X, expected=_squareplus(X, b).astype(np.float32), rtol=2e-6)
    b = np.array([[0.5], [16.0]], np.float32)  # b broadcasts and may be traced
    check(nn.squareplus, None, X, b, expected=_squareplus(X, b).astype(np.float32), dtype="float32", rtol=2e-6)
    assert_close(nn.squareplus(X, b=0), np.maximum(X, 0), rtol=0, atol=0)  # b = 0 is relu
    check_vmap(nn.squareplus, (X, b[:, 0]))


def test_sparse_plus_and_sigmoid_kinks():
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0], np.float32)
    assert_close(nn.sparse_plus(x), np.array([0, 0.0625, 0.25, 0.5625, 1], np.float32), rtol=0, atol=0)
    assert_close(nn.sparse_sigmoid(x), np.array([0, 0.25, 0.5, 0.75, 1], np.float32), rtol=0, atol=0)
    # sparse_sigmoid is sparse_plus's derivative
    inside = np.array([-2.0, -0.7, -0.1, 0.3, 0.9, 3.0], np.float32)
    assert_close(jaxc.vmap(jaxc.grad(nn.sparse_plus))(inside), nn.sparse_sigmoid(inside), rtol=1e-6)


def test_log1mexp_both_sides_of_log2_and_edges():
    # the two forms meet at log 2; each side keeps its relative accuracy
    x = np.array([LOG2 * (1 - 1e-6), LOG2, LOG2 * (1 + 1e-6)], np.float32)
    check(nn.log1mexp, None, x, expected=_log1mexp(x).astype(np.float32), rtol=2e-6)
    tiny = np.array([1e-30, 1e-20, 1e-10], np.float32)  # log(x) for small x: 1 - exp(-x) = x
    check(nn.log1mexp, None, tiny, expected=np.log(_f64(tiny)).astype(np.float32), rtol=2e-6)
    big = np.array([30.0, 40.0, 80.0], np.float32)  # -exp(-x): no cancellation to 0
    check(nn.log1mexp, None, big, expected=(-np.exp(-_f64(big))).astype(np.float32), rtol=2e-6, atol=0)
    with np.errstate(invalid="ignore"):
        check(nn.log1mexp, None, np.array([0.0, -1.0, inf, nan], np.float32),
              expected=np.array([-inf, nan, 0.0, nan], np.float32))


def test_log1mexp_switches_forms_at_log2():
    """As JAX: log(-expm1(-x)) below log 2, log1p(-exp(-x)) from log 2 on
    (the float32 forms differ in the last bits at most points, so a switch
    elsewhere changes the result)."""
    x = np.linspace(0.05, 8.0, 400).astype(np.float32)
    small_form = np.asarray(jaxc.numpy.log(-jaxc.numpy.expm1(-x)))
    large_form = np.asarray(jaxc.numpy.log1p(-jaxc.numpy.exp(-x)))
    below = x < np.float32(LOG2)
    assert (small_form != large_form)[below].sum() >= 5 and (small_form != large_form)[~below].sum() >= 100
    np.testing.assert_array_equal(np.asarray(nn.log1mexp(x)), np.where(below, small_form, large_form))


def test_log1mexp_derivative():
    x = np.array([1e-3, 0.3, LOG2, 1.5, 10.0], np.float32)
    expected = 1 / np.expm1(_f64(x))  # d/dx log(1 - exp(-x)) = 1 / (exp(x) - 1)
    assert_close(jaxc.vmap(jaxc.grad(nn.log1mexp))(x), expected.astype(np.float32), rtol=1e-5)
    assert_close(jaxc.jit(jaxc.vmap(jaxc.grad(nn.log1mexp)))(x), expected.astype(np.float32), rtol=1e-5)
    assert float(jaxc.grad(nn.log1mexp)(0.0)) == inf  # JAX's rule, 1 / expm1(0); not NaN
    _, x_dot = jaxc.jvp(nn.log1mexp, (x,), (np.ones_like(x),))
    assert_close(x_dot, expected.astype(np.float32), rtol=1e-5)


# -- logmeanexp ------------------------------------------------------------------------

@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True), ((0, 1), True), (-1, True)])
def test_logmeanexp(axis, keepdims):
    a = X * 20  # up to 600: exp overflows without the shift
    check(lambda v: nn.logmeanexp(v, axis=axis, keepdims=keepdims), None, a,
          expected=_logmeanexp(a, axis, keepdims=keepdims).astype(np.float32), dtype="float32", rtol=2e-6,
          atol=1e-6)


def test_logmeanexp_where_vmap_and_jax():
    a = rand((3, 4), np.float32)
    where = np.array([[True, False, True, True], [False, False, False, True], [True, True, True, True]])
    check(lambda v, w: nn.logmeanexp(v, axis=1, where=w), None, a, where,
          expected=_logmeanexp(a, 1, where).astype(np.float32), rtol=2e-6)
    check(lambda v, w: nn.logmeanexp(v, axis=1, where=w, keepdims=True), None, a, where,
          expected=_logmeanexp(a, 1, where, True).astype(np.float32), rtol=2e-6)
    row = np.array([True, False, True, False])  # broadcasts against a
    check(lambda v: nn.logmeanexp(v, where=row), None, a, expected=np.float32(_logmeanexp(a, None, row)), rtol=2e-6)
    with np.errstate(all="ignore"):  # nothing to average: -inf - log(0) is NaN, as JAX
        check(lambda v: nn.logmeanexp(v, axis=1, where=np.zeros((3, 1), bool)), None, a,
              expected=np.full(3, nan, np.float32))
    assert_close(nn.logmeanexp(np.zeros((2, 5), np.float32), axis=1), np.zeros(2, np.float32), atol=1e-7)
    check_vmap(lambda v: nn.logmeanexp(v), (a,))
    check_vmap(lambda v, w: nn.logmeanexp(v, where=w), (a, where))
    assert_close(jaxc.vmap(lambda v, w: nn.logmeanexp(v, where=w))(a, where),
                 _logmeanexp(a, 1, where).astype(np.float32), rtol=2e-6)
    assert nn.logmeanexp(np.arange(4, dtype=np.int32)).dtype == np.float32
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        nn.logmeanexp(a, axis=2)
    theirs = pytest.importorskip("jax.nn")
    same_as_jax(nn.logmeanexp(a, axis=1, where=where), theirs.logmeanexp(a, axis=1, where=where), what="where")
    same_as_jax(nn.logmeanexp(a, axis=0, keepdims=True), theirs.logmeanexp(a, axis=0, keepdims=True))


# -- gradients, float64 ------------------------------------------------------------------

GRAD_CASES = {  # name -> (function, arguments in its smooth domain, order)
    "tanh": (nn.tanh, (np.array([-2.0, -0.3, 0.4, 1.7]),), 2),
    "mish": (nn.mish, (np.array([-4.0, -1.1, -0.2, 0.0, 0.6, 3.0]),), 2),
    "squareplus": (nn.squareplus, (np.array([-3.0, -0.4, 0.0, 0.8, 2.5]), 2.5), 2),
    "sparse_plus": (nn.sparse_plus, (np.array([-3.0, -0.8, -0.1, 0.5, 0.95, 2.0]),), 2),
    "sparse_sigmoid": (nn.sparse_sigmoid, (np.array([-3.0, -0.8, -0.1, 0.5, 0.95, 2.0]),), 1),
    "log1mexp": (nn.log1mexp, (np.array([0.3, 0.5, 0.69, 0.7, 1.5, 6.0]),), 2),
    "logmeanexp": (lambda v: nn.logmeanexp(v, axis=1), (np.array([[-1.0, 0.5, 2.0], [3.0, -2.0, 0.1]]),), 2),
    "logmeanexp_where": (lambda v: nn.logmeanexp(v, axis=0, where=np.array([[True], [False], [True]])),
                         (np.array([[-1.0, 0.5], [2.0, 3.0], [-2.0, 0.1]]),), 2),
    "identity": (nn.identity, (np.array([-1.0, 2.0]),), 1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients(name, x64):
    fn, args, order = GRAD_CASES[name]
    check_grads(fn, args, order=order, modes=("fwd", "rev"))
    check_grads(jaxc.jit(fn), args, order=1, modes=("fwd", "rev"))


def test_gradients_are_checked():
    """check_grads catches a wrong derivative (so the cases above mean something)."""
    wrong = jaxc.custom_jvp(lambda v: nn.mish(v))
    wrong.defjvps(lambda v_dot, out, v: 2 * v_dot)
    with pytest.raises(AssertionError):
        check_grads(wrong, (np.array([0.3, 1.0], np.float32),), order=1, modes=("fwd",))


def test_x64_values(x64):
    x = X.astype(np.float64)
    for name in ("mish", "squareplus", "sparse_plus", "sparse_sigmoid", "tanh"):
        reference, _, _ = ELEMENTWISE[name]
        out = jaxc.jit(getattr(nn, name))(x)
        assert out.dtype == np.float64, name
        assert_close(out, reference(x), rtol=1e-13, atol=1e-15, what=name)
    p = POSITIVE.astype(np.float64)
    assert_close(jaxc.jit(nn.log1mexp)(p), _log1mexp(p), rtol=1e-12, what="log1mexp")
    assert_close(jaxc.jit(lambda v: nn.logmeanexp(v, axis=1))(x * 20), _logmeanexp(x * 20, 1), rtol=1e-13)


# -- dot_product_attention -------------------------------------------------------------

def attention_reference(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None, kv_len=None,
                        window=None):
    """Attention in float64 with explicit loops over heads: (B, T, N, H) or
    (T, N, H) inputs; masked logits become JAX's -0.7 * float32 max."""
    unbatched = np.ndim(q) == 3
    q, k, v = (_f64(t)[None] if unbatched else _f64(t) for t in (q, k, v))
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    scale = 1 / math.sqrt(H) if scale is None else scale
    out = np.zeros((B, T, N, H))
    lse = np.zeros((B, T, N))
    bias4 = None if bias is None else _f64(bias).reshape((1,) * (4 - np.ndim(bias)) + np.shape(bias))
    mask4 = None if mask is None else np.asarray(mask).reshape((1,) * (4 - np.ndim(mask)) + np.shape(mask))
    if isinstance(window, int):
        window = (window, window)
    for b in range(B):
        for n in range(N):
            kv_head = n // (N // K)
            logits = q[b, :, n, :] @ k[b, :, kv_head, :].T * scale  # (T, S)
            if bias4 is not None:
                logits = logits + bias4[b % bias4.shape[0], n % bias4.shape[1]]
            keep = np.ones((T, S), bool)
            if mask4 is not None:
                keep &= np.broadcast_to(mask4[b % mask4.shape[0], n % mask4.shape[1]], (T, S))
            for i in range(T):
                for j in range(S):
                    if is_causal and j > i:
                        keep[i, j] = False
                    if window is not None and not (i - window[0] <= j <= i + window[1]):
                        keep[i, j] = False
                    if q_len is not None and i >= q_len[b]:
                        keep[i, j] = False
                    if kv_len is not None and j >= kv_len[b]:
                        keep[i, j] = False
            logits = np.where(keep, logits, -0.7 * F32_MAX)
            shift = logits.max(-1, keepdims=True)
            weights = np.exp(logits - shift)
            lse[b, :, n] = np.log(weights.sum(-1)) + shift[:, 0]
            out[b, :, n, :] = (weights / weights.sum(-1, keepdims=True)) @ v[b, :, kv_head, :]
            if q_len is not None:
                out[b, q_len[b]:, n, :] = 0
    return (out[0], lse[0]) if unbatched else (out, lse)


R = np.random.default_rng(7)


def normal(*shape, dtype=np.float32):
    return R.standard_normal(shape).astype(dtype)


B, T, S, N, K, H = 2, 5, 6, 6, 2, 8  # G = 3 query heads per key head
Q, KEY, VALUE = normal(B, T, N, H), normal(B, S, K, H), normal(B, S, K, H)
BIAS = normal(B, N, T, S)
MASK = R.random((B, 1, T, S)) < 0.7
Q_LEN, KV_LEN = np.array([3, 5], np.int32), np.array([6, 2], np.int32)

# name -> (arrays, keyword arguments): arrays are query, key, value[, bias[, mask]]
ATTENTION_CASES = {
    "plain": ((Q, KEY, VALUE), {}),
    "multi_head": ((Q, normal(B, S, N, H), normal(B, S, N, H)), {}),
    "multi_query": ((Q, KEY[:, :, :1], VALUE[:, :, :1]), {}),
    "scale": ((Q, KEY, VALUE), {"scale": 0.3}),
    "bias": ((Q, KEY, VALUE, BIAS), {}),
    "bias_shared_over_heads": ((Q, KEY, VALUE, normal(1, 1, T, S)), {}),
    "bias_3d": ((Q, KEY, VALUE, normal(N, T, S)), {}),
    "mask": ((Q, KEY, VALUE, None, MASK), {}),
    "mask_per_head": ((Q, KEY, VALUE, None, R.random((1, N, T, S)) < 0.6), {}),
    "causal": ((Q, KEY, VALUE), {"is_causal": True}),
    "seq_lengths": ((Q, KEY, VALUE), {"query_seq_lengths": Q_LEN, "key_value_seq_lengths": KV_LEN}),
    "query_seq_lengths": ((Q, KEY, VALUE), {"query_seq_lengths": Q_LEN}),
    "key_value_seq_lengths_zero": ((Q, KEY, VALUE), {"key_value_seq_lengths": np.array([0, 4], np.int32)}),
    "window": ((Q, KEY, VALUE), {"local_window_size": (2, 1)}),
    "window_int": ((Q, KEY, VALUE), {"local_window_size": 1}),
    "everything": ((Q, KEY, VALUE, BIAS, MASK),
                   {"is_causal": True, "local_window_size": (3, 0), "query_seq_lengths": Q_LEN,
                    "key_value_seq_lengths": KV_LEN, "scale": 0.5}),
    "unbatched": ((Q[0], KEY[0], VALUE[0]), {}),
    "unbatched_bias_mask_causal": ((Q[0], KEY[0], VALUE[0], BIAS[0], MASK[0]), {"is_causal": True}),
}


def _reference_kwargs(kwargs):
    renames = {"query_seq_lengths": "q_len", "key_value_seq_lengths": "kv_len", "local_window_size": "window"}
    return {renames.get(k, k): v for k, v in kwargs.items() if k != "implementation"}


def _call(arrays, kwargs, **extra):
    return nn.dot_product_attention(*arrays, **kwargs, **extra)


@pytest.mark.parametrize("name", sorted(ATTENTION_CASES))
def test_attention_against_numpy(name):
    arrays, kwargs = ATTENTION_CASES[name]
    expected, lse = attention_reference(*arrays, **_reference_kwargs(kwargs))
    out = _call(arrays, kwargs)
    assert out.shape == arrays[0].shape and out.dtype == np.float32
    assert_close(out, expected, rtol=2e-5, atol=2e-6, what=f"{name} eager")
    assert_close(_call(arrays, kwargs, implementation="xla"), expected, rtol=2e-5, atol=2e-6, what="xla")
    # under jit, the arrays (sequence lengths included) traced
    present = [i for i, a in enumerate(arrays) if a is not None]
    traced_keys = [k for k in ("query_seq_lengths", "key_value_seq_lengths") if k in kwargs]

    def traced(*values):
        full = list(arrays)
        for i, a in zip(present, values):
            full[i] = a
        extra = dict(kwargs, **dict(zip(traced_keys, values[len(present):])))
        return nn.dot_product_attention(*full, **extra)
    jitted = jaxc.jit(traced)(*[arrays[i] for i in present], *[kwargs[k] for k in traced_keys])
    assert_close(jitted, expected, rtol=2e-5, atol=2e-6, what=f"{name} jit")
    out, residual = _call(arrays, kwargs, return_residual=True)
    assert residual.shape == arrays[0].shape[:-1] and residual.dtype == np.float32
    assert_close(out, expected, rtol=2e-5, atol=2e-6, what=f"{name} with the residual")
    assert_close(residual, lse, rtol=2e-6, atol=2e-5, what=f"{name} residual")


def test_attention_fully_masked_rows_are_uniform():
    # with no key left a row's logits are all equal: the mean of the values (as JAX), not NaN
    out = nn.dot_product_attention(Q, KEY, VALUE, mask=np.zeros((1, 1, T, S), bool))
    group_means = np.repeat(VALUE.astype(np.float64).mean(1, keepdims=True), N // K, axis=2)
    assert_close(out, np.broadcast_to(group_means, Q.shape), rtol=1e-5, atol=1e-6)
    assert not np.isnan(np.asarray(out)).any()


def _attention_of_given(arrays, kwargs):
    """(f, positions): f takes the arrays of `arrays` that are not None, in
    order, and calls dot_product_attention with them in their places."""
    present = [i for i, a in enumerate(arrays) if a is not None]

    def f(*values):
        full = list(arrays)
        for i, a in zip(present, values):
            full[i] = a
        return nn.dot_product_attention(*full, **kwargs)
    return f, present


@pytest.mark.parametrize("name", ["plain", "bias", "mask", "everything", "unbatched"])
def test_attention_vmap(name):
    arrays, kwargs = ATTENTION_CASES[name]
    kwargs = {k: v for k, v in kwargs.items() if k not in ("query_seq_lengths", "key_value_seq_lengths")}
    stacked = [None if a is None else np.stack([a, a[..., ::-1, :] * 0.5 if a.dtype != np.bool_ else ~a])
               for a in arrays]
    f, present = _attention_of_given(arrays, kwargs)
    args = [stacked[i] for i in present]
    check_vmap(f, args, rtol=2e-5, atol=2e-6)
    got = jaxc.vmap(f)(*args)
    for m in range(2):
        member = [None if a is None else a[m] for a in stacked]
        expected, _ = attention_reference(*member, **_reference_kwargs(kwargs))
        assert_close(got[m], expected, rtol=2e-5, atol=2e-6, what=f"{name} member {m}")


def test_attention_vmap_over_sequence_lengths_and_unmapped_key():
    kv_lengths = np.array([[6, 2], [1, 4], [3, 3]], np.int32)

    def f(q, lengths):
        return nn.dot_product_attention(q, KEY, VALUE, key_value_seq_lengths=lengths, is_causal=True)
    qs = np.stack([Q, Q * 2, -Q])
    check_vmap(f, (qs, kv_lengths), rtol=2e-5, atol=2e-6)
    got = jaxc.jit(jaxc.vmap(f))(qs, kv_lengths)
    for m in range(3):
        expected, _ = attention_reference(qs[m], KEY, VALUE, is_causal=True, kv_len=kv_lengths[m])
        assert_close(got[m], expected, rtol=2e-5, atol=2e-6)




@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True, "local_window_size": (1, 1)},
                                    {"key_value_seq_lengths": np.array([3, 2], np.int32)}])
def test_attention_gradients(kwargs):
    """Gradients with respect to query, key, value and bias against central
    differences of the float64 NumPy reference (the softmax is float32
    whatever the inputs, so finite differences of jaxc itself are coarse)."""
    q, k, v, bias = normal(2, 3, 4, 3), normal(2, 4, 2, 3), normal(2, 4, 2, 3), normal(1, 4, 3, 4)
    weights = normal(2, 3, 4, 3)

    def loss(*arrays):
        return (nn.dot_product_attention(*arrays, **kwargs) * weights).sum()
    grads = jaxc.grad(loss, argnums=(0, 1, 2, 3))(q, k, v, bias)
    jitted = jaxc.jit(jaxc.grad(loss, argnums=(0, 1, 2, 3)))(q, k, v, bias)
    base = [_f64(a) for a in (q, k, v, bias)]
    ref_kwargs = _reference_kwargs(kwargs)
    for position, (got, got_jit) in enumerate(zip(grads, jitted)):
        def reference_loss(x, position=position):
            arrays = list(base)
            arrays[position] = x
            return float((attention_reference(*arrays, **ref_kwargs)[0] * weights).sum())
        expected = numerical_gradient(reference_loss, base[position])
        assert_close(got, expected, rtol=1e-3, atol=1e-4, what=f"gradient {position}")
        assert_close(got_jit, expected, rtol=1e-3, atol=1e-4, what=f"jit gradient {position}")
    # and the finite-difference checker on jaxc itself, in float32 with a coarse step
    check_grads(lambda a, b, c: nn.dot_product_attention(a, b, c, **kwargs), (q, k, v), order=1,
                modes=("fwd", "rev"), eps=1e-2, atol=2e-2, rtol=2e-2)


def test_attention_low_precision_and_x64():
    q, k, v = (a.astype(np.float16) for a in (Q, KEY, VALUE))
    out = nn.dot_product_attention(q, k, v, is_causal=True)
    assert out.dtype == np.float16
    expected, _ = attention_reference(q, k, v, is_causal=True)
    assert_close(out, expected, rtol=1e-2, atol=5e-3)
    jaxc.config.update("jax_enable_x64", True)
    try:
        q, k, v = (a.astype(np.float64) for a in (Q, KEY, VALUE))
        out, residual = jaxc.jit(lambda a, b, c: nn.dot_product_attention(a, b, c, return_residual=True))(q, k, v)
        assert out.dtype == residual.dtype == np.float64
        expected, lse = attention_reference(q, k, v)
        assert_close(out, expected, rtol=1e-5, atol=1e-6)  # the softmax is float32, as JAX
        assert_close(residual, lse, rtol=1e-5, atol=1e-6)
    finally:
        jaxc.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("name", sorted(ATTENTION_CASES))
def test_attention_same_as_jax(name):
    theirs = jax_nn()
    arrays, kwargs = ATTENTION_CASES[name]
    same_as_jax(_call(arrays, kwargs), theirs.dot_product_attention(*arrays, **kwargs), rtol=2e-5, atol=2e-6,
                what=name)
    _, our_residual = _call(arrays, kwargs, return_residual=True)
    _, residual = theirs.dot_product_attention(*arrays, **kwargs, return_residual=True)
    same_as_jax(our_residual, residual, rtol=2e-5, atol=2e-5, what=f"{name} residual")


def test_attention_float16_same_as_jax():
    theirs = jax_nn()
    q, k, v, bias = (a.astype(np.float16) for a in (Q, KEY, VALUE, BIAS))
    same_as_jax(nn.dot_product_attention(q, k, v, bias, MASK), theirs.dot_product_attention(q, k, v, bias, MASK),
                rtol=2e-2, atol=2e-3)


def test_attention_gradients_same_as_jax():
    theirs = jax_nn()
    import jax
    q, k, v = Q[:, :3], KEY[:, :4], VALUE[:, :4]

    def loss(module):
        return lambda *a: (module.dot_product_attention(*a, is_causal=True) ** 2).sum()
    ours = jaxc.grad(loss(nn), argnums=(0, 1, 2))(q, k, v)
    reference = jax.grad(loss(theirs), argnums=(0, 1, 2))(q, k, v)
    for mine, other in zip(ours, reference):
        assert_close(mine, np.asarray(other), rtol=1e-4, atol=1e-5)


ATTENTION_ERRORS = [  # (arguments, keyword arguments, exception type, message)
    ((Q, KEY, VALUE[:, :5]), {}, ValueError, r"value shape should be \[2, 6, 2, 8\]: but got \(2, 5, 2, 8\)"),
    ((Q, KEY, VALUE.astype(np.float16)), {}, ValueError, "value dtype should be float32, but got float16"),
    ((Q.astype(np.float16), KEY, VALUE), {}, ValueError, "query dtype should be float32, but got float16"),
    ((Q[..., :4], KEY, VALUE), {}, ValueError, r"query shape should be \[2, -1, -1, 8\]"),
    ((Q[:1], KEY, VALUE), {}, ValueError, "query shape should be"),
    ((Q[None], KEY, VALUE), {}, ValueError, "query ndim should be 4, but got 5"),
    ((Q, KEY[None], VALUE), {}, ValueError, "key ndim should be 4, but got 5"),
    ((Q[:, :, :3], KEY, VALUE), {}, ValueError,
     "number of query heads must be a multiple of key/value heads, but got 3 vs 2"),
    ((Q, KEY, VALUE, None, MASK.astype(np.float32)), {}, ValueError, "mask dtype should be bool, but got float32"),
    ((Q, KEY, VALUE, None, MASK[None]), {}, ValueError, "mask ndim should be 4, but got 5"),
    ((Q, KEY, VALUE, BIAS[None]), {}, ValueError, "bias ndim should be 4, but got 5"),
    ((Q, KEY, VALUE, BIAS[:, :3]), {}, ValueError, "bias of shape .* must have 1 or 6"),
    ((Q, KEY, VALUE), {"query_seq_lengths": np.array([3, 5], np.int16)}, ValueError,
     "query_seq_lengths dtype should be int32, but got int16"),
    ((Q, KEY, VALUE), {"key_value_seq_lengths": np.array([3, 5, 1], np.int32)}, ValueError,
     r"key_value_seq_lengths shape should be \[2\]"),
    ((Q, KEY, VALUE), {"key_value_seq_lengths": np.array([[3, 5]], np.int32)}, ValueError,
     "key_value_seq_lengths ndim should be 1, but got 2"),
    ((Q, KEY, VALUE), {"implementation": "flash"}, ValueError, "unsupported implementation option: flash"),
    ((Q, KEY, VALUE), {"implementation": "cudnn"}, RuntimeError, "implementation='cudnn' needs cuDNN"),
]


@pytest.mark.parametrize("case", range(len(ATTENTION_ERRORS)))
def test_attention_errors(case):
    arrays, kwargs, error, message = ATTENTION_ERRORS[case]
    with pytest.raises(error, match=message):
        nn.dot_product_attention(*arrays, **kwargs)
    traced, present = _attention_of_given(arrays, kwargs)
    with pytest.raises(error, match=message):
        jaxc.jit(traced)(*[arrays[i] for i in present])


@pytest.mark.parametrize("case", range(len(ATTENTION_ERRORS)))
def test_attention_error_types_same_as_jax(case):
    theirs = jax_nn()
    arrays, kwargs, error, _ = ATTENTION_ERRORS[case]
    if error is RuntimeError or "must have 1 or 6" in ATTENTION_ERRORS[case][3]:
        pytest.skip("JAX: cuDNN's own error; an AssertionError for a bias with the wrong number of heads")
    with pytest.raises(error):
        theirs.dot_product_attention(*arrays, **kwargs)


def test_not_provided_names():
    for name in ("scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"):
        assert not hasattr(nn, name)
    for name in ("identity", "tanh", "mish", "squareplus", "sparse_plus", "sparse_sigmoid", "log1mexp",
                 "logmeanexp", "dot_product_attention"):
        assert name in nn.__all__ and callable(getattr(nn, name))
