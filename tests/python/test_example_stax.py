"""jaxc.example_libraries.stax against JAX 0.10.2's jax.example_libraries.stax.

Each case of LAYERS builds a layer (from a stax module and its package,
jaxc or jax), runs `init_fun(PRNGKey(seed), input.shape)` and then
`apply_fun` on a fixed input, with the parameters JAX's init gave (so that
the apply check sees apply's arithmetic alone). Cases in JIT also run
`jit(apply_fun)`. `data/example_libraries/record_stax.py` runs the same
cases with JAX and writes `data/example_libraries/stax.npz`: the inputs,
the output shapes, the parameters' structure and leaves, and the outputs;
the tests compare with those (JAX is not needed), and with JAX itself when
it is installed.

How exact:
- output shapes and parameter structures: equal;
- parameters: float32 rtol 1e-5, atol 1e-6 (glorot_normal and normal
  go through jaxc's erf_inv, a few ulps from XLA's; ones/zeros exact);
- outputs: exact (assert_array_equal) where both compute the same float
  operations in the same order (`exact=True`: max pooling, reshapes,
  relu/leaky_relu, dropout's bernoulli mask and division, done eagerly);
  otherwise float32 rtol 1e-5, atol 2e-6: XLA's dot, convolution and
  window-sum orders are not jaxc's (XLA sums a 2-D pooling window in an
  order of its own, not row-major), transcendental functions differ by
  ulps, and under jit XLA fuses and rewrites divisions.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import random
from jaxc.example_libraries import stax
from jaxc.tree_util import tree_structure

JAX_VERSION = "0.10.2"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "example_libraries", "stax.npz")

NHWC = (2, 6, 5, 3)
NCHW = (2, 3, 6, 5)
MATRIX = (3, 4)


@dataclass(frozen=True)
class Layer:
    build: Callable[[Any, Any], Any]   # (stax module, its package: jaxc or jax) -> (init_fun, apply_fun)
    input_shape: tuple[int, ...]
    seed: int = 0
    exact: bool = False                # apply's output compared exactly (see the module docstring)
    rng: bool = False                  # apply_fun(params, x, rng=PRNGKey(seed + 100))


LAYERS = {
    # dense and convolutions
    "dense": Layer(lambda s, p: s.Dense(5), MATRIX, seed=1),
    "dense_3d_initializers": Layer(lambda s, p: s.Dense(3, W_init=p.nn.initializers.he_uniform(),
                                                        b_init=p.nn.initializers.zeros), (2, 3, 4), seed=2),
    "conv_same_strided": Layer(lambda s, p: s.Conv(4, (3, 3), strides=(2, 1), padding="SAME"), NHWC, seed=3),
    "conv_valid": Layer(lambda s, p: s.Conv(2, (2, 2)), NHWC, seed=4),
    "conv_explicit_padding": Layer(lambda s, p: s.Conv(3, (2, 3), padding=((1, 0), (2, 1))), NHWC, seed=5),
    "general_conv_nchw": Layer(lambda s, p: s.GeneralConv(("NCHW", "OIHW", "NHWC"), 4, (2, 3), strides=(1, 2)),
                               NCHW, seed=6),
    "conv_transpose_same": Layer(lambda s, p: s.ConvTranspose(4, (3, 2), strides=(2, 2), padding="SAME"), NHWC,
                                 seed=7),
    "conv_transpose_valid": Layer(lambda s, p: s.ConvTranspose(2, (3, 3), strides=(2, 1)), NHWC, seed=8),
    "conv1d_transpose": Layer(lambda s, p: s.Conv1DTranspose(4, (3,), strides=(2,), padding="VALID"), (2, 7, 3),
                              seed=9),
    # stride > kernel - 1: SAME's leading padding is kernel - 1, not half the total
    "conv1d_transpose_same_wide_stride": Layer(lambda s, p: s.Conv1DTranspose(3, (2,), strides=(3,), padding="SAME"),
                                               (2, 7, 3), seed=17),
    "general_conv_transpose": Layer(lambda s, p: s.GeneralConvTranspose(
        ("NCHW", "IOHW", "NCHW"), 3, (2, 2), strides=(2, 2), padding="SAME"), NCHW, seed=10),
    # normalization and dropout
    "batchnorm": Layer(lambda s, p: s.BatchNorm(), NHWC, seed=11),
    "batchnorm_axis_no_center": Layer(lambda s, p: s.BatchNorm(axis=0, center=False), MATRIX, seed=12),
    "batchnorm_axes_no_scale": Layer(lambda s, p: s.BatchNorm(axis=(0, 2), scale=False,
                                                              beta_init=p.nn.initializers.normal(1.0)), (3, 4, 5),
                                     seed=13),
    "batchnorm_neither": Layer(lambda s, p: s.BatchNorm(axis=(0,), center=False, scale=False, epsilon=1e-3),
                               MATRIX, seed=14),
    "dropout_train": Layer(lambda s, p: s.Dropout(0.7), NHWC, seed=15, exact=True, rng=True),
    "dropout_test": Layer(lambda s, p: s.Dropout(0.5, mode="test"), NHWC, seed=16, exact=True, rng=True),
    # pooling
    "maxpool_same": Layer(lambda s, p: s.MaxPool((2, 2), strides=(2, 1), padding="SAME"), NHWC, exact=True),
    "maxpool_valid": Layer(lambda s, p: s.MaxPool((3, 2)), NHWC, exact=True),
    "maxpool_spec": Layer(lambda s, p: s.MaxPool((2, 3), strides=(1, 2), spec="NCHW"), NCHW, exact=True),
    "avgpool_same": Layer(lambda s, p: s.AvgPool((3, 2), strides=(2, 2), padding="SAME"), NHWC),
    "avgpool_spec": Layer(lambda s, p: s.AvgPool((2, 2), padding="SAME", spec="NCHW"), NCHW),
    "sumpool": Layer(lambda s, p: s.SumPool((2, 3)), NHWC),
    "sumpool_1d": Layer(lambda s, p: s.SumPool((3,), strides=(2,), padding="SAME"), (2, 7, 3)),
    # shape layers
    "flatten": Layer(lambda s, p: s.Flatten, NHWC, exact=True),
    "identity": Layer(lambda s, p: s.Identity, MATRIX, exact=True),
    # activations
    "tanh": Layer(lambda s, p: s.Tanh, MATRIX),
    "relu": Layer(lambda s, p: s.Relu, MATRIX, exact=True),
    "exp": Layer(lambda s, p: s.Exp, MATRIX),
    "log_softmax": Layer(lambda s, p: s.LogSoftmax, MATRIX),
    "softmax": Layer(lambda s, p: s.Softmax, MATRIX),
    "softplus": Layer(lambda s, p: s.Softplus, MATRIX),
    "sigmoid": Layer(lambda s, p: s.Sigmoid, MATRIX),
    "elu": Layer(lambda s, p: s.Elu, MATRIX),
    "leaky_relu": Layer(lambda s, p: s.LeakyRelu, MATRIX, exact=True),
    "selu": Layer(lambda s, p: s.Selu, MATRIX),
    "gelu": Layer(lambda s, p: s.Gelu, MATRIX),
    "elementwise_kwargs": Layer(lambda s, p: s.elementwise(p.nn.leaky_relu, negative_slope=0.25), MATRIX,
                                exact=True),
    # combinators
    "serial_mlp": Layer(lambda s, p: s.serial(s.Dense(8), s.Relu, s.Dense(4), s.LogSoftmax), MATRIX, seed=20),
    "serial_cnn": Layer(lambda s, p: s.serial(
        s.Conv(3, (2, 2), padding="SAME"), s.BatchNorm(), s.Relu, s.MaxPool((2, 2), strides=(2, 2)), s.Flatten,
        s.Dense(5), s.Softmax), NHWC, seed=21),
    "serial_dropout": Layer(lambda s, p: s.serial(s.Dense(6), s.Dropout(0.8), s.Tanh), MATRIX, seed=22, rng=True),
    "parallel_fan_in_sum": Layer(lambda s, p: s.serial(
        s.FanOut(2), s.parallel(s.Dense(3), s.serial(s.Dense(3), s.Relu)), s.FanInSum), MATRIX, seed=23),
    "parallel_fan_in_concat": Layer(lambda s, p: s.serial(
        s.FanOut(3), s.parallel(s.Dense(2), s.Identity, s.Tanh), s.FanInConcat()), MATRIX, seed=24),
    "fan_in_concat_axis0": Layer(lambda s, p: s.serial(
        s.FanOut(2), s.parallel(s.Identity, s.Relu), s.FanInConcat(axis=0)), MATRIX, exact=True),
    "shape_dependent": Layer(lambda s, p: s.shape_dependent(lambda shape: s.Dense(shape[-1] + 1)), MATRIX, seed=25),
}

JIT = ["dense", "conv_same_strided", "conv_transpose_same", "batchnorm", "dropout_train", "maxpool_same",
       "avgpool_same", "serial_cnn", "serial_dropout", "parallel_fan_in_sum"]

PARAM_TOLERANCE = (1e-5, 1e-6)
OUTPUT_TOLERANCE = (1e-5, 2e-6)


# -- the harness, shared with the recorder (`package` is jaxc or jax) --------------------------

def make_inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"input/{name}": rng.normal(size=case.input_shape).astype(np.float32) for name, case in LAYERS.items()}


def structure(tree: Any) -> str:
    """The nesting of lists and tuples, leaves as `*`: "[(*, *), ()]"."""
    if isinstance(tree, list):
        return "[" + ", ".join(structure(t) for t in tree) + "]"
    if isinstance(tree, tuple):
        return "(" + ", ".join(structure(t) for t in tree) + ")"
    return "*"


def shape_array(shape: Any) -> np.ndarray:
    """An output shape (a tuple, or a list of tuples after FanOut) as ints, -1 separated."""
    if shape and isinstance(shape[0], (tuple, list)):
        return np.asarray([d for s in shape for d in (*s, -1)], np.int64)
    return np.asarray([int(d) for d in shape], np.int64)


def run_init(package: Any, stax_module: Any, name: str) -> dict[str, Any]:
    case = LAYERS[name]
    init_fun, _ = case.build(stax_module, package)
    output_shape, params = init_fun(package.random.PRNGKey(case.seed), case.input_shape)
    result = {"output_shape": shape_array(output_shape), "structure": np.asarray(structure(params))}
    for i, leaf in enumerate(package.tree_util.tree_leaves(params)):
        result[f"param/{i}"] = np.asarray(leaf)
    return result


def run_apply(package: Any, stax_module: Any, name: str, params: Any, x: np.ndarray, mode: str) -> np.ndarray:
    """apply_fun(params, x) (with rng= where the case needs one), eagerly or
    under jit (params, x and the key traced)."""
    case = LAYERS[name]
    _, apply_fun = case.build(stax_module, package)
    key = package.random.PRNGKey(case.seed + 100)

    def apply(params, x, key):
        return apply_fun(params, x, rng=key) if case.rng else apply_fun(params, x)
    if mode == "jit":
        apply = package.jit(apply)
    return np.asarray(apply(params, package.numpy.asarray(x), key))


def recorded_params(package: Any, stax_module: Any, name: str, recorded: dict[str, np.ndarray]) -> Any:
    """JAX's recorded parameters in the parameter tree `package`'s init builds."""
    case = LAYERS[name]
    init_fun, _ = case.build(stax_module, package)
    _, params = init_fun(package.random.PRNGKey(case.seed), case.input_shape)
    leaves, treedef = package.tree_util.tree_flatten(params)
    stored = [package.numpy.asarray(recorded[f"{name}/init/param/{i}"]) for i in range(len(leaves))]
    return package.tree_util.tree_unflatten(treedef, stored)


def modes(name: str) -> list[str]:
    return ["eager"] + (["jit"] if name in JIT else [])


# -- recorded values ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    assert os.path.isfile(DATA), f"{DATA} is missing: run data/example_libraries/record_stax.py"
    with np.load(DATA) as data:
        values = {key: data[key] for key in data.files}
    assert str(values["jax_version"]) == JAX_VERSION
    return values


def test_recorded_cases_are_current(recorded: dict[str, np.ndarray]) -> None:
    names = {key.split("/")[0] for key in recorded if "/" in key and not key.startswith("input/")}
    assert names == set(LAYERS), "rerun data/example_libraries/record_stax.py"
    for name in LAYERS:
        assert recorded[f"input/{name}"].shape == LAYERS[name].input_shape, "rerun record_stax.py"


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_jax(name: str, recorded: dict[str, np.ndarray]) -> None:
    case = LAYERS[name]
    got = run_init(jaxc, stax, name)
    prefix = f"{name}/init"
    np.testing.assert_array_equal(got["output_shape"], recorded[f"{prefix}/output_shape"], err_msg="output shape")
    assert str(got["structure"]) == str(recorded[f"{prefix}/structure"]), "parameter structure"
    n_params = sum(1 for key in recorded if key.startswith(f"{prefix}/param/"))
    assert len([k for k in got if k.startswith("param/")]) == n_params
    for i in range(n_params):
        expected = recorded[f"{prefix}/param/{i}"]
        assert got[f"param/{i}"].shape == expected.shape and got[f"param/{i}"].dtype == expected.dtype
        np.testing.assert_allclose(got[f"param/{i}"], expected, *PARAM_TOLERANCE, err_msg=f"{name}: parameter {i}")
    params = recorded_params(jaxc, stax, name, recorded)
    x = recorded[f"input/{name}"]
    for mode in modes(name):
        out = run_apply(jaxc, stax, name, params, x, mode)
        expected = recorded[f"{name}/apply/{mode}"]
        assert out.shape == expected.shape and out.dtype == expected.dtype, (name, mode, out.shape, expected.shape)
        np.testing.assert_array_equal(shape_array(out.shape), got["output_shape"], err_msg="init's output shape")
        if case.exact and mode == "eager":
            np.testing.assert_array_equal(out, expected, err_msg=f"{name} ({mode})")
        else:
            np.testing.assert_allclose(out, expected, *OUTPUT_TOLERANCE, err_msg=f"{name} ({mode})")


def test_recorded_outputs_are_not_trivial(recorded: dict[str, np.ndarray]) -> None:
    """The cases have something to compare: outputs vary, parameters are
    random where the initializer is."""
    for name in LAYERS:
        out = recorded[f"{name}/apply/eager"]
        assert len(np.unique(out)) >= min(out.size // 4, 8), name
    dropped = recorded["dropout_train/apply/eager"]
    assert 0.15 < np.mean(dropped == 0) < 0.45  # keep probability 0.7


# -- behaviour, independent of the recorded data ---------------------------------------------------

def test_dropout_modes_and_rng() -> None:
    x = jnp.ones((4, 50))
    _, apply_fun = stax.Dropout(0.5)
    a = np.asarray(apply_fun((), x, rng=random.PRNGKey(0)))
    b = np.asarray(apply_fun((), x, rng=random.PRNGKey(1)))
    assert set(np.unique(a)) == {0.0, 2.0} and not np.array_equal(a, b)
    np.testing.assert_array_equal(np.asarray(apply_fun((), x, rng=random.PRNGKey(0))), a)  # a function of the key
    keep = np.asarray(random.bernoulli(random.PRNGKey(0), 0.5, (4, 50)))
    np.testing.assert_array_equal(a, np.where(keep, 2.0, 0.0))
    _, test_apply = stax.Dropout(0.5, mode="test")
    np.testing.assert_array_equal(np.asarray(test_apply((), x, rng=random.PRNGKey(0))), np.ones((4, 50)))
    # typed keys work too
    assert np.asarray(apply_fun((), x, rng=random.key(3))).shape == (4, 50)
    for layer in (stax.Dropout(0.5), stax.Dropout(0.5, mode="test")):
        with pytest.raises(ValueError, match="PRNG key"):
            layer[1]((), x)
    with pytest.raises(ValueError, match="PRNG key"):
        stax.serial(stax.Dense(2), stax.Dropout(0.5))[1](stax.serial(stax.Dense(2), stax.Dropout(0.5))[0](
            random.PRNGKey(0), (1, 3))[1], jnp.ones((1, 3)))


def test_batchnorm_normalizes() -> None:
    x = np.random.default_rng(4).normal(3.0, 2.0, size=(8, 3, 3, 2)).astype(np.float32)
    init_fun, apply_fun = stax.BatchNorm()
    shape, (beta, gamma) = init_fun(random.PRNGKey(0), x.shape)
    assert shape == x.shape and beta.shape == gamma.shape == (2,)
    z = np.asarray(apply_fun((beta, gamma), jnp.asarray(x)))
    np.testing.assert_allclose(z.mean(axis=(0, 1, 2)), 0, atol=1e-5)
    np.testing.assert_allclose(z.std(axis=(0, 1, 2)), 1, atol=1e-3)
    z2 = np.asarray(apply_fun((jnp.full(2, 1.0), jnp.full(2, 3.0)), jnp.asarray(x)))
    np.testing.assert_allclose(z2, 3 * z + 1, rtol=1e-5, atol=1e-5)
    assert stax.BatchNorm(center=False, scale=False)[0](random.PRNGKey(0), x.shape)[1] == ((), ())


def test_pooling_against_numpy() -> None:
    x = np.random.default_rng(5).normal(size=(1, 4, 4, 2)).astype(np.float32)
    blocks = x.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5)
    for layer, reduce in ((stax.MaxPool, np.max), (stax.SumPool, np.sum), (stax.AvgPool, np.mean)):
        init_fun, apply_fun = layer((2, 2), strides=(2, 2))
        assert init_fun(None, x.shape) == ((1, 2, 2, 2), ())
        np.testing.assert_allclose(np.asarray(apply_fun((), jnp.asarray(x))),
                                   reduce(blocks, axis=(3, 4)), rtol=1e-6, atol=1e-6)
    # SAME average pooling divides by the number of real (unpadded) elements
    ones = jnp.ones((1, 3, 3, 1))
    np.testing.assert_array_equal(np.asarray(stax.AvgPool((2, 2), padding="SAME")[1]((), ones)), np.ones((1, 3, 3, 1)))
    np.testing.assert_array_equal(np.asarray(stax.SumPool((2, 2), padding="SAME")[1]((), ones))[0, :, :, 0],
                                  [[4, 4, 2], [4, 4, 2], [2, 2, 1]])


def test_serial_model_trains_under_jit() -> None:
    """init, a jitted gradient step and the structure of params through
    jit: the loss of a small MLP goes down."""
    init_fun, apply_fun = stax.serial(stax.Dense(8), stax.Tanh, stax.Dense(1))
    shape, params = init_fun(random.PRNGKey(0), (-1, 3))
    assert shape == (-1, 1)
    rng = np.random.default_rng(6)
    x = jnp.asarray(rng.normal(size=(16, 3)).astype(np.float32))
    y = jnp.asarray(rng.normal(size=(16, 1)).astype(np.float32))

    def loss(params):
        return jnp.mean((apply_fun(params, x) - y) ** 2)

    @jaxc.jit
    def step(params):
        grads = jaxc.grad(loss)(params)
        return jaxc.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    first = float(loss(params))
    for _ in range(20):
        params = step(params)
    assert tree_structure(params) == tree_structure(init_fun(random.PRNGKey(0), (-1, 3))[1])
    assert float(loss(params)) < 0.9 * first


def test_serial_splits_keys_as_jax() -> None:
    """serial's init gives layer i the second half of the i-th split."""
    init_fun, _ = stax.serial(stax.Dense(3), stax.Relu, stax.Dense(2))
    _, params = init_fun(random.PRNGKey(7), (5, 4))
    key = random.PRNGKey(7)
    key, k0 = random.split(key)
    key, _ = random.split(key)
    _, k2 = random.split(key)
    for layer, (init, _), shape in ((0, stax.Dense(3), (5, 4)), (2, stax.Dense(2), (5, 3))):
        expected = init(k0 if layer == 0 else k2, shape)[1]
        for got, want in zip(params[layer], expected, strict=True):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert params[1] == ()


def test_parallel_init_returns_a_zip() -> None:
    init_fun, apply_fun = stax.parallel(stax.Dense(2), stax.Identity)
    result = init_fun(random.PRNGKey(0), [(3, 4), (3, 5)])
    assert isinstance(result, zip)
    shapes, params = result
    assert shapes == ((3, 2), (3, 5)) and len(params) == 2 and params[1] == ()
    out = apply_fun(params, [jnp.ones((3, 4)), jnp.ones((3, 5))])
    assert isinstance(out, list) and [o.shape for o in out] == [(3, 2), (3, 5)]


def test_public_names() -> None:
    names = {"Dense", "Conv", "Conv1DTranspose", "ConvTranspose", "GeneralConv", "GeneralConvTranspose", "BatchNorm",
             "Dropout", "MaxPool", "AvgPool", "SumPool", "Flatten", "Identity", "FanOut", "FanInSum", "FanInConcat",
             "serial", "parallel", "shape_dependent", "elementwise", "Tanh", "Relu", "Exp", "LogSoftmax", "Softmax",
             "Softplus", "Sigmoid", "Elu", "LeakyRelu", "Selu", "Gelu", "glorot", "randn", "logsoftmax"}
    assert names <= set(stax.__all__) and all(hasattr(stax, n) for n in names)
    for alias in ("relu", "log_softmax", "softmax", "softplus", "sigmoid", "elu", "leaky_relu", "selu", "gelu",
                  "standardize", "glorot_normal", "normal", "ones", "zeros"):
        assert hasattr(stax, alias), alias
    assert jaxc.example_libraries.stax is stax


# -- errors and JAX itself ------------------------------------------------------------------------------

ERRORS = {
    "dropout_without_rng": (lambda s, p: s.Dropout(0.5)[1]((), p.numpy.ones(3)), ValueError),
    "conv_bad_spec": (lambda s, p: s.GeneralConv(("NHWC", "HWIO", "NHWD"), 2, (2, 2))[0](
        p.random.PRNGKey(0), (1, 4, 4, 3)), TypeError),
    "conv_transpose_bad_padding": (lambda s, p: s.ConvTranspose(2, (2, 2), padding="FULL")[0](
        p.random.PRNGKey(0), (1, 4, 4, 3)), ValueError),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    fn, error = ERRORS[name]
    with pytest.raises(error):
        fn(stax, jaxc)


def test_errors_match_jax() -> None:
    jax = pytest.importorskip("jax")
    from jax.example_libraries import stax as jax_stax
    for name, (fn, error) in ERRORS.items():
        with pytest.raises(error):
            fn(jax_stax, jax)


def test_recorded_data_matches_jax(recorded: dict[str, np.ndarray]) -> None:
    """JAX itself, where installed, still gives the recorded values: the
    initializers bit for bit (they are the PRNG's), the forward pass to a few
    ulp (XLA's float code depends on the host CPU's vector width: recorded on
    AVX2, an AVX-512 host differs in the last bit)."""
    jax = pytest.importorskip("jax")
    from jax.example_libraries import stax as jax_stax
    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"recorded with JAX {JAX_VERSION}, found {jax.__version__}")
    for name in ("serial_cnn", "dropout_train"):
        got = run_init(jax, jax_stax, name)
        for key, value in got.items():
            np.testing.assert_array_equal(value, recorded[f"{name}/init/{key}"])
        params = recorded_params(jax, jax_stax, name, recorded)
        np.testing.assert_allclose(run_apply(jax, jax_stax, name, params, recorded[f"input/{name}"], "eager"),
                                   recorded[f"{name}/apply/eager"], rtol=4e-6, atol=1e-7)
