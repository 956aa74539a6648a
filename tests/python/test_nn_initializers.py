"""jaxc.nn.initializers against JAX 0.10.2's jax.nn.initializers.

Each case of INITIALIZERS builds an initializer from an initializers module
(jaxc's or JAX's), calls it with a fixed key, shape and dtype, and the
results are compared with JAX's, recorded by
`data/nn/record_initializers.py` in `data/nn/initializers.npz` (JAX is not
needed; where it is installed, a few cases are also compared with JAX
directly). Cases in JIT run also under `jit` (the key traced), VMAP cases
under `vmap` over three keys.

How exact (per case, `kind`):
- "exact": zeros/ones/constant and everything drawn from `random.uniform`
  (uniform, the "uniform" variance scalings): the same bits as JAX, compared
  with assert_array_equal.
- "float": the normal and truncated-normal draws pass through jaxc's
  `erf_inv` (a few ulps from XLA's, docs/random.md), and orthogonal through
  jaxc's Householder QR (not LAPACK's): float tolerance, float32 rtol 1e-5
  atol 1e-6 (float16 2e-3, bfloat16 2e-2, float64 1e-12).
After changing a case, rerun the recorder and commit the npz.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import random
from jaxc.nn import initializers

JAX_VERSION = "0.10.2"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "nn", "initializers.npz")


@dataclass(frozen=True)
class Case:
    build: Callable[[Any, Any], Any]     # (initializers module, numpy module) -> initializer
    shape: tuple[int, ...]
    dtype: str | None = None             # passed at the call (None: the initializer's default)
    kind: str = "float"                  # "exact" or "float" (see the module docstring)
    seed: int = 0
    typed_key: bool = False              # random.key(seed) rather than PRNGKey(seed)
    x64: bool = False


CONV = (3, 3, 4, 5)  # HWIO: receptive field 9, fan_in 36, fan_out 45

INITIALIZERS = {
    # constants
    "zeros": Case(lambda I, np_: I.zeros, (2, 3), kind="exact"),
    "zeros_int32": Case(lambda I, np_: I.zeros, (2, 3), "int32", kind="exact"),
    "ones": Case(lambda I, np_: I.ones, (3,), kind="exact"),
    "ones_bfloat16": Case(lambda I, np_: I.ones, (2, 2), "bfloat16", kind="exact"),
    "constant": Case(lambda I, np_: I.constant(-7.0), (2, 3), kind="exact"),
    "constant_int_dtype": Case(lambda I, np_: I.constant(3, dtype=np.int32), (4,), kind="exact"),
    "constant_array": Case(lambda I, np_: I.constant(np_.array([1.5, 2.0, -1.0])), (2, 3), kind="exact"),
    "constant_call_dtype": Case(lambda I, np_: I.constant(0.1), (3,), "float16", kind="exact"),
    # plain distributions
    "uniform": Case(lambda I, np_: I.uniform(), (4, 5), kind="exact", seed=1),
    "uniform_scale": Case(lambda I, np_: I.uniform(3.0), (4, 5), kind="exact", seed=2),
    "uniform_float16": Case(lambda I, np_: I.uniform(2.0, dtype=np.float16), (4, 5), kind="exact", seed=3),
    "uniform_bfloat16": Case(lambda I, np_: I.uniform(0.5), (4, 5), "bfloat16", kind="exact", seed=3),
    "uniform_typed_key": Case(lambda I, np_: I.uniform(1.0), (4, 5), kind="exact", seed=4, typed_key=True),
    "normal": Case(lambda I, np_: I.normal(), (4, 5), seed=5),
    "normal_stddev": Case(lambda I, np_: I.normal(2.5), (4, 5), seed=6),
    "normal_float16": Case(lambda I, np_: I.normal(1.0), (4, 5), "float16", seed=7),
    "truncated_normal": Case(lambda I, np_: I.truncated_normal(), (4, 5), seed=8),
    "truncated_normal_bounds": Case(lambda I, np_: I.truncated_normal(0.5, lower=-1.0, upper=3.0), (4, 5), seed=9),
    # variance scaling: every mode with every distribution (on a conv kernel)
    **{f"variance_scaling_{mode}_{dist}": Case(
        lambda I, np_, mode=mode, dist=dist: I.variance_scaling(1.5, mode, dist), CONV,
        kind="exact" if dist == "uniform" else "float", seed=10 + 3 * m + d)
       for m, mode in enumerate(["fan_in", "fan_out", "fan_avg", "fan_geo_avg"])
       for d, dist in enumerate(["truncated_normal", "normal", "uniform"])},
    # in_axis / out_axis / batch_axis
    "variance_scaling_axes": Case(lambda I, np_: I.variance_scaling(
        2.0, "fan_avg", "uniform", in_axis=(0, 1), out_axis=-1, batch_axis=2), (2, 3, 4, 5), kind="exact", seed=30),
    "variance_scaling_swapped_axes": Case(lambda I, np_: I.variance_scaling(
        1.0, "fan_in", "truncated_normal", in_axis=0, out_axis=1), (5, 4), seed=31),
    "variance_scaling_batch_axis": Case(lambda I, np_: I.variance_scaling(
        1.0, "fan_out", "normal", in_axis=-2, out_axis=-1, batch_axis=0), (3, 4, 5), seed=32),
    "variance_scaling_out_axes": Case(lambda I, np_: I.variance_scaling(
        0.5, "fan_out", "uniform", in_axis=0, out_axis=(1, 2)), (4, 5, 3), kind="exact", seed=33),
    # dtypes: the builder's default and one given at the call
    "variance_scaling_float16": Case(lambda I, np_: I.variance_scaling(
        1.0, "fan_in", "uniform", dtype=np.float16), (4, 5), kind="exact", seed=34),
    "variance_scaling_call_bfloat16": Case(lambda I, np_: I.variance_scaling(
        1.0, "fan_avg", "truncated_normal"), (4, 5), "bfloat16", seed=35),
    "he_uniform_float64": Case(lambda I, np_: I.he_uniform(), (4, 5), "float64", kind="exact", seed=36, x64=True),
    "glorot_normal_float64": Case(lambda I, np_: I.glorot_normal(), (4, 5), "float64", seed=37, x64=True),
    # the named variance scalings and their aliases
    "glorot_uniform": Case(lambda I, np_: I.glorot_uniform(), (4, 5), kind="exact", seed=40),
    "glorot_uniform_conv": Case(lambda I, np_: I.glorot_uniform(), CONV, kind="exact", seed=41),
    "glorot_normal": Case(lambda I, np_: I.glorot_normal(), (4, 5), seed=42),
    "xavier_uniform": Case(lambda I, np_: I.xavier_uniform(in_axis=0, out_axis=1), (4, 5), kind="exact", seed=43),
    "xavier_normal": Case(lambda I, np_: I.xavier_normal(), CONV, seed=44),
    "lecun_uniform": Case(lambda I, np_: I.lecun_uniform(), (4, 5), kind="exact", seed=45),
    "lecun_normal": Case(lambda I, np_: I.lecun_normal(), CONV, seed=46),
    "he_uniform": Case(lambda I, np_: I.he_uniform(), CONV, kind="exact", seed=47),
    "he_normal": Case(lambda I, np_: I.he_normal(), (4, 5), seed=48),
    "kaiming_uniform": Case(lambda I, np_: I.kaiming_uniform(batch_axis=0), (3, 4, 5), kind="exact", seed=49),
    "kaiming_normal": Case(lambda I, np_: I.kaiming_normal(dtype=np.float16), (4, 5), seed=50),
    # orthogonal
    "orthogonal_square": Case(lambda I, np_: I.orthogonal(), (5, 5), seed=60),
    "orthogonal_wide": Case(lambda I, np_: I.orthogonal(), (3, 6), seed=61),
    "orthogonal_tall": Case(lambda I, np_: I.orthogonal(2.0), (6, 3), seed=62),
    "orthogonal_column_axis": Case(lambda I, np_: I.orthogonal(column_axis=0), (4, 2, 3), seed=63),
    "orthogonal_empty": Case(lambda I, np_: I.orthogonal(), (0, 3), kind="exact", seed=64),
    "delta_orthogonal_3d": Case(lambda I, np_: I.delta_orthogonal(), (3, 2, 4), seed=70),
    "delta_orthogonal_4d": Case(lambda I, np_: I.delta_orthogonal(1.5), (3, 2, 3, 3), seed=71),
    "delta_orthogonal_5d": Case(lambda I, np_: I.delta_orthogonal(), (2, 3, 1, 2, 2), seed=72),
}

# Also run under jit (the key traced) and under vmap over three keys.
JIT = ["uniform", "normal_stddev", "truncated_normal_bounds", "variance_scaling_fan_avg_uniform",
       "variance_scaling_fan_geo_avg_normal", "he_normal", "orthogonal_tall", "delta_orthogonal_4d", "constant"]
VMAP = ["glorot_uniform", "lecun_normal"]

# float tolerances (rtol, atol) by dtype name, for kind "float"
TOLERANCE = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-13)}


# -- the harness, shared with the recorder (`package` is jaxc or jax) ---------------------

@contextlib.contextmanager
def x64(package: Any, enabled: bool):
    before = bool(package.config.read("jax_enable_x64")) if hasattr(package.config, "read") else \
        bool(package.config.jax_enable_x64)
    package.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        package.config.update("jax_enable_x64", before)


def make_key(package: Any, case: Case) -> Any:
    return package.random.key(case.seed) if case.typed_key else package.random.PRNGKey(case.seed)


def call(package: Any, initializers_module: Any, name: str, mode: str) -> np.ndarray:
    """Case `name` with `package` (jaxc or jax): mode "eager", "jit" (the
    initializer under jit, the key traced) or "vmap" (three keys split from
    the case's key)."""
    case = INITIALIZERS[name]
    with x64(package, case.x64):
        init = case.build(initializers_module, package.numpy)
        dtype = None if case.dtype is None else package.numpy.dtype(case.dtype)

        def run(key: Any) -> Any:
            return init(key, case.shape) if dtype is None else init(key, case.shape, dtype)
        key = make_key(package, case)
        if mode == "eager":
            return np.asarray(run(key))
        if mode == "jit":
            return np.asarray(package.jit(run)(key))
        assert mode == "vmap"
        return np.asarray(package.vmap(run)(package.random.split(key, 3)))


def to_stored(value: np.ndarray) -> tuple[str, np.ndarray]:
    """npz has no bfloat16: such arrays are stored as their uint16 bits."""
    if str(value.dtype) == "bfloat16":
        return ":bfloat16", value.view(np.uint16)
    return "", value


def modes(name: str) -> list[str]:
    return ["eager"] + (["jit"] if name in JIT else []) + (["vmap"] if name in VMAP else [])


# -- recorded values ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    import ml_dtypes
    assert os.path.isfile(DATA), f"{DATA} is missing: run data/nn/record_initializers.py"
    values = {}
    with np.load(DATA) as data:
        for key in data.files:
            name, _, kind = key.partition(":")
            values[name] = data[key].view(ml_dtypes.bfloat16) if kind == "bfloat16" else data[key]
    assert str(values["jax_version"]) == JAX_VERSION
    return values


def assert_matches(got: np.ndarray, expected: np.ndarray, case: Case, label: str) -> None:
    assert got.shape == expected.shape, f"{label}: shape {got.shape}, expected {expected.shape}"
    assert str(got.dtype) == str(expected.dtype), f"{label}: dtype {got.dtype}, expected {expected.dtype}"
    if case.kind == "exact":
        np.testing.assert_array_equal(got, expected, err_msg=label)
    else:
        rtol, atol = TOLERANCE[str(got.dtype)]
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=label)


def test_recorded_cases_are_current(recorded: dict[str, np.ndarray]) -> None:
    expected = {f"{name}/{mode}" for name in INITIALIZERS for mode in modes(name)}
    assert {key for key in recorded if key != "jax_version"} == expected, "rerun data/nn/record_initializers.py"


@pytest.mark.parametrize("name", list(INITIALIZERS))
def test_matches_jax(name: str, recorded: dict[str, np.ndarray]) -> None:
    case = INITIALIZERS[name]
    for mode in modes(name):
        got = call(jaxc, initializers, name, mode)
        assert_matches(got, recorded[f"{name}/{mode}"], case, f"{name} ({mode})")


def test_recorded_values_are_not_trivial(recorded: dict[str, np.ndarray]) -> None:
    """The random cases really are random (so a broken key cannot pass), and
    different seeds give different numbers."""
    for name, case in INITIALIZERS.items():
        value = recorded[f"{name}/eager"].astype(np.float64)
        if case.kind == "exact" and ("zeros" in name or "ones" in name or "constant" in name or value.size == 0):
            continue
        nonzero = value[value != 0]
        assert nonzero.size > 0 and len(np.unique(nonzero)) > nonzero.size // 2, name


# -- properties, independent of the recorded data --------------------------------------------

def test_variance_scaling_statistics() -> None:
    """The samples have the variance the mode asks for, from the fans of the
    shape (fan_in 36, fan_out 45 for a 3x3x4x5 kernel times 20 here)."""
    shape = (3, 3, 40, 50)  # fan_in 360, fan_out 450
    fans = {"fan_in": 360.0, "fan_out": 450.0, "fan_avg": 405.0, "fan_geo_avg": np.sqrt(360.0 * 450.0)}
    for (mode, n), dist in zip(fans.items(), ["uniform", "normal", "truncated_normal", "uniform"]):
        x = np.asarray(initializers.variance_scaling(2.0, mode, dist)(random.PRNGKey(1), shape), np.float64)
        np.testing.assert_allclose(x.var(), 2.0 / n, rtol=0.05, err_msg=f"{mode}, {dist}")
        bound = {"uniform": np.sqrt(6.0 / n), "normal": np.inf, "truncated_normal": 2 * np.sqrt(2.0 / n) / 0.8796}
        assert np.abs(x).max() <= bound[dist] * (1 + 1e-6)


def test_orthogonal_rows_and_columns() -> None:
    tall = np.asarray(initializers.orthogonal(3.0)(random.PRNGKey(0), (6, 4)))
    np.testing.assert_allclose(tall.T @ tall, 9.0 * np.eye(4), atol=1e-4)
    wide = np.asarray(initializers.orthogonal()(random.PRNGKey(1), (2, 5)))
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)
    # column_axis=0 of (4, 2, 3): the 6 rows (axes 1, 2 flattened) are orthonormal 4-vectors' transposes
    cube = np.asarray(initializers.orthogonal(column_axis=0)(random.PRNGKey(2), (4, 2, 3)))
    m = np.moveaxis(cube, 0, -1).reshape(6, 4)
    np.testing.assert_allclose(m.T @ m, np.eye(4), atol=1e-5)
    delta = np.asarray(initializers.delta_orthogonal()(random.PRNGKey(3), (3, 3, 2, 4)))
    centre = delta[1, 1]
    np.testing.assert_allclose(centre @ centre.T, np.eye(2), atol=1e-5)
    assert np.count_nonzero(delta) == np.count_nonzero(centre) == 8


def test_defaults_and_dtypes() -> None:
    key = random.PRNGKey(0)
    assert initializers.zeros(key, (2,)).dtype == np.float32
    assert initializers.glorot_uniform()(key, (2, 3)).dtype == np.float32
    assert initializers.uniform(dtype=jnp.float16)(key, (2,)).dtype == np.float16
    assert initializers.uniform(dtype=jnp.float16)(key, (2,), jnp.float32).dtype == np.float32
    assert initializers.constant(2, dtype=jnp.int32)(key, [3]).dtype == np.int32
    with x64(jaxc, True):
        assert initializers.normal()(key, (2,)).dtype == np.float64
        assert initializers.ones(key, (2,)).dtype == np.float64
    assert initializers.xavier_uniform is initializers.glorot_uniform
    assert initializers.kaiming_normal is initializers.he_normal
    for init in (initializers.zeros, initializers.uniform(), initializers.orthogonal()):
        assert isinstance(init, initializers.Initializer)
    # a list shape, the key ignored by the constants
    np.testing.assert_array_equal(np.asarray(initializers.ones(None, [2, 1])), np.ones((2, 1), np.float32))


def test_module_is_reachable_as_in_jax() -> None:
    import importlib
    assert jaxc.nn.initializers is initializers
    assert importlib.import_module("jaxc.nn.initializers") is initializers
    names = {"constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
             "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
             "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
             "Initializer"}
    assert names <= set(initializers.__all__) and all(hasattr(initializers, n) for n in names)
    with pytest.raises(AttributeError):
        jaxc.nn.no_such_module  # noqa: B018


def test_grad_through_an_initializer() -> None:
    """The scale is differentiable: d/ds sum(uniform(s)) = sum(uniform(1))."""
    key = random.PRNGKey(4)
    unit = np.asarray(initializers.uniform(1.0)(key, (3,)))
    g = jaxc.grad(lambda s: jnp.sum(initializers.uniform(s)(key, (3,))))(2.0)
    np.testing.assert_allclose(float(g), unit.sum(), rtol=1e-6)


# -- errors: JAX's exception types --------------------------------------------------------------

def _key(package: Any) -> Any:
    return package.random.PRNGKey(0)


ERRORS = {
    "bad_mode": (lambda p, I: I.variance_scaling(1.0, "fan_sum", "normal")(_key(p), (2, 3)), ValueError),
    "bad_distribution": (lambda p, I: I.variance_scaling(1.0, "fan_in", "cauchy")(_key(p), (2, 3)), ValueError),
    "fans_of_a_vector": (lambda p, I: I.glorot_uniform()(_key(p), (4,)), ValueError),
    "fans_of_a_scalar": (lambda p, I: I.lecun_normal()(_key(p), ()), ValueError),
    "in_axis_out_of_range": (lambda p, I: I.variance_scaling(1.0, "fan_in", "normal", in_axis=5)(_key(p), (2, 3)),
                             IndexError),
    "orthogonal_vector": (lambda p, I: I.orthogonal()(_key(p), (4,)), ValueError),
    "delta_orthogonal_2d": (lambda p, I: I.delta_orthogonal()(_key(p), (3, 3)), ValueError),
    "delta_orthogonal_6d": (lambda p, I: I.delta_orthogonal()(_key(p), (1, 1, 1, 1, 3, 3)), ValueError),
    "delta_orthogonal_fan_in": (lambda p, I: I.delta_orthogonal()(_key(p), (3, 4, 2)), ValueError),
    "uniform_int_dtype": (lambda p, I: I.uniform()(_key(p), (2,), p.numpy.int32), ValueError),
    "normal_int_dtype": (lambda p, I: I.normal()(_key(p), (2,), p.numpy.int32), ValueError),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    fn, error = ERRORS[name]
    with pytest.raises(error):
        fn(jaxc, initializers)


def test_mode_and_distribution_are_checked_at_the_call() -> None:
    """As in JAX, building with a bad mode or distribution is fine; calling is the ValueError."""
    init = initializers.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ValueError, match="mode"):
        init(random.PRNGKey(0), (2, 3))
    with pytest.raises(ValueError, match="distribution"):
        initializers.variance_scaling(1.0, "fan_in", "cauchy")(random.PRNGKey(0), (2, 3))


def test_errors_match_jax() -> None:
    pytest.importorskip("jax")
    import jax
    from jax.nn import initializers as jax_initializers
    for name, (fn, error) in ERRORS.items():
        with pytest.raises(error):
            fn(jax, jax_initializers)


def test_recorded_data_matches_jax(recorded: dict[str, np.ndarray]) -> None:
    """JAX itself, where installed, still gives the recorded values: bit for
    bit where they come from the PRNG alone, to a few ulp for `orthogonal`
    (a QR decomposition: XLA's float code depends on the host CPU; recorded
    on AVX2, an AVX-512 host differs in the last bits)."""
    jax = pytest.importorskip("jax")
    from jax.nn import initializers as jax_initializers
    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"recorded with JAX {JAX_VERSION}, found {jax.__version__}")
    for name in ("glorot_uniform_conv", "variance_scaling_fan_avg_truncated_normal", "orthogonal_tall",
                 "uniform_bfloat16"):
        for mode in modes(name):
            got = call(jax, jax_initializers, name, mode)
            if name.startswith("orthogonal"):
                np.testing.assert_allclose(got, recorded[f"{name}/{mode}"], rtol=4e-6, atol=1e-6,
                                           err_msg=f"{name} ({mode})")
            else:
                np.testing.assert_array_equal(got, recorded[f"{name}/{mode}"], err_msg=f"{name} ({mode})")
