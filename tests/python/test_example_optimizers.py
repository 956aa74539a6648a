"""jaxc.example_libraries.optimizers against JAX 0.10.2's
jax.example_libraries.optimizers.

Every optimizer case runs 20 steps on a fixed nested parameter pytree with
fixed per-step gradients, eagerly and with `jit(update)`, and every schedule
case is evaluated at steps 0..30 (a Python int eagerly, a traced int32 under
jit). `data/example_libraries/record_optimizers.py` runs the same cases with
JAX and writes `data/example_libraries/optimizers.npz`; the tests compare
with those values (JAX is not needed), and with JAX itself when it is
installed. After changing a case, rerun the recorder and commit the npz.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.example_libraries import optimizers
from jaxc.tree_util import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten

JAX_VERSION = "0.10.2"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "example_libraries", "optimizers.npz")
STEPS = 20
SCHEDULE_STEPS = 31

# name -> function of an optimizers module (jaxc's or JAX's) giving an Optimizer.
# Default and non-default hyperparameters, constant and scheduled step sizes.
OPTIMIZERS = {
    "sgd": lambda o: o.sgd(0.1),
    "sgd_exponential": lambda o: o.sgd(o.exponential_decay(0.1, 5, 0.5)),
    "sgd_lambda": lambda o: o.sgd(lambda i: 0.2 / (1.0 + i)),
    "momentum": lambda o: o.momentum(0.05, 0.9),
    "momentum_piecewise": lambda o: o.momentum(o.piecewise_constant([5, 12], [0.1, 0.05, 0.01]), mass=0.5),
    "nesterov": lambda o: o.nesterov(0.05, 0.9),
    "nesterov_inverse_time": lambda o: o.nesterov(o.inverse_time_decay(0.1, 4, 0.5), 0.7),
    "adagrad": lambda o: o.adagrad(0.1),
    "adagrad_polynomial": lambda o: o.adagrad(o.polynomial_decay(0.2, 15, 0.01, 2.0), momentum=0.5),
    "rmsprop": lambda o: o.rmsprop(0.01),
    "rmsprop_staircase": lambda o: o.rmsprop(o.inverse_time_decay(0.02, 3, 1.0, staircase=True),
                                             gamma=0.8, eps=1e-6),
    "rmsprop_momentum": lambda o: o.rmsprop_momentum(0.01),
    "rmsprop_momentum_exponential": lambda o: o.rmsprop_momentum(o.exponential_decay(0.02, 10, 0.3),
                                                                 gamma=0.95, eps=1e-4, momentum=0.5),
    "adam": lambda o: o.adam(0.01),
    "adam_polynomial": lambda o: o.adam(o.polynomial_decay(0.05, 10, 0.001), b1=0.5, b2=0.9, eps=1e-4),
    "adamax": lambda o: o.adamax(0.01),
    "adamax_piecewise": lambda o: o.adamax(o.piecewise_constant([3, 8], [0.05, 0.02, 0.005]),
                                           b1=0.8, b2=0.99, eps=1e-5),
    "sm3": lambda o: o.sm3(0.1),
    "sm3_exponential": lambda o: o.sm3(o.exponential_decay(0.2, 8, 0.1), momentum=0.0),
}

# name -> function of an optimizers module giving a schedule.
SCHEDULES = {
    "constant": lambda o: o.constant(0.1),
    "exponential_decay": lambda o: o.exponential_decay(0.1, 5, 0.5),
    "exponential_decay_fractional": lambda o: o.exponential_decay(2.0, 7.5, 0.9),
    "inverse_time_decay": lambda o: o.inverse_time_decay(0.1, 4, 0.5),
    "inverse_time_decay_staircase": lambda o: o.inverse_time_decay(0.1, 4, 0.5, staircase=True),
    "polynomial_decay": lambda o: o.polynomial_decay(0.1, 10, 0.01),
    "polynomial_decay_power2": lambda o: o.polynomial_decay(0.1, 10, 0.01, power=2.0),
    "polynomial_decay_sqrt": lambda o: o.polynomial_decay(1.0, 25, 0.0, power=0.5),
    "piecewise_constant": lambda o: o.piecewise_constant([5, 12], [0.1, 0.05, 0.01]),
    "piecewise_constant_int": lambda o: o.piecewise_constant([3, 20], [4, 2, 1]),
    "piecewise_constant_float_boundaries": lambda o: o.piecewise_constant([2.5, 10.0, 20.0], [1.0, 0.5, 0.25, 0.1]),
    "make_schedule_scalar": lambda o: o.make_schedule(0.3),
}


# -- the harness, shared with the recorder (`np_` is jaxc.numpy or jax.numpy) ---------

def make_inputs(seed: int = 0) -> dict[str, np.ndarray]:
    """Initial parameters and 20 steps of gradients (float32). The gradient of
    w[0, 0] is always 0 and that of s is 0 at step 0, so adagrad's and sm3's
    zero-accumulator branches run."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    inputs = {
        "params/w": rng.normal(size=(3, 4)).astype(f32),
        "params/b": rng.normal(size=(4,)).astype(f32),
        "params/s": np.asarray(rng.normal(), f32),
        "grads/w": (0.5 * rng.normal(size=(STEPS, 3, 4))).astype(f32),
        "grads/b": (0.5 * rng.normal(size=(STEPS, 4))).astype(f32),
        "grads/s": (0.5 * rng.normal(size=(STEPS,))).astype(f32),
    }
    inputs["grads/w"][:, 0, 0] = 0.0
    inputs["grads/s"][0] = 0.0
    return inputs


def params_tree(np_: Any, inputs: dict[str, np.ndarray]) -> Any:
    """A dict holding a list holding a tuple: {"w": (3,4), "layers": [b (4,), (s (),)]}."""
    return {"w": np_.asarray(inputs["params/w"]),
            "layers": [np_.asarray(inputs["params/b"]), (np_.asarray(inputs["params/s"]),)]}


def grads_tree(np_: Any, inputs: dict[str, np.ndarray], k: int) -> Any:
    return {"w": np_.asarray(inputs["grads/w"][k]),
            "layers": [np_.asarray(inputs["grads/b"][k]), (np_.asarray(inputs["grads/s"][k]),)]}


def ravel(tree: Any, leaves: Any, dtype: Any = np.float32) -> np.ndarray:
    """Every leaf of `tree` (flattened with `leaves`) in one vector."""
    return np.concatenate([np.ravel(np.asarray(x, dtype)) for x in leaves(tree)])


def run_optimizer(package: Any, o: Any, name: str, inputs: dict[str, np.ndarray], mode: str) -> dict[str, np.ndarray]:
    """20 steps of case `name` with `package` (jaxc or jax) and its optimizers
    module `o`; mode "eager" or "jit" (jit of the update, the step traced).
    Returns the parameters after each step and the final state's leaves."""
    np_ = package.numpy
    leaves = package.tree_util.tree_leaves
    opt_init, opt_update, get_params = OPTIMIZERS[name](o)
    update = package.jit(opt_update) if mode == "jit" else opt_update
    state = opt_init(params_tree(np_, inputs))
    trajectory = []
    for k in range(STEPS):
        state = update(k, grads_tree(np_, inputs, k), state)
        trajectory.append(ravel(get_params(state), leaves))
    return {"params": np.stack(trajectory), "state": ravel(state, leaves, np.float64)}


def schedule_kind(value: Any) -> str:
    """'float' / 'int' for a Python number, else the array's dtype."""
    if isinstance(value, (float, int)):
        return type(value).__name__
    return str(np.asarray(value).dtype)


def run_schedule(package: Any, o: Any, name: str) -> dict[str, np.ndarray]:
    """Case `name` at steps 0..30, eagerly (Python ints) and under jit (traced)."""
    schedule = SCHEDULES[name](o)
    jitted = package.jit(schedule)
    eager = [schedule(i) for i in range(SCHEDULE_STEPS)]
    return {"eager": np.asarray([np.asarray(v, np.float64) for v in eager]),
            "eager_kind": np.asarray(schedule_kind(eager[0])),
            "jit": np.asarray([np.asarray(jitted(i)) for i in range(SCHEDULE_STEPS)])}


# -- recorded values --------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    assert os.path.isfile(DATA), f"{DATA} is missing: run data/example_libraries/record_optimizers.py"
    with np.load(DATA) as data:
        values = {key: data[key] for key in data.files}
    assert str(values["jax_version"]) == JAX_VERSION
    return values


@pytest.fixture(scope="module")
def inputs(recorded: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The recorded inputs (the test does not rely on NumPy's generator being stable)."""
    return {key: value for key, value in recorded.items() if key.startswith(("params/", "grads/"))}


# float32 tolerances (rtol, atol) against JAX. Eagerly, every op is one
# kernel in both, so the trajectories match exactly (checked to 1e-6; adam's
# and adamax's bias corrections `b ** n` for a Python int n are integer_pow
# in both, repeated multiplication). Under jit,
# XLA contracts multiplies and adds into FMAs and divisions by constants into
# multiplications, so values differ by ulps (at most 2.4e-7 here, relatively
# larger only near zero).
EAGER_TOLERANCE = (1e-6, 1e-7)
JIT_TOLERANCE = (1e-5, 1e-6)


def tolerance(name: str, mode: str) -> tuple[float, float]:
    return JIT_TOLERANCE if mode == "jit" else EAGER_TOLERANCE


# Schedules whose jit value JAX gets from an XLA rewrite, with the reason; for
# these jaxc's jit values are compared with JAX's eager ones.
JIT_AS_EAGER = {
    # XLA computes 1 - i / 25 as fma(-i, 1/25, 1): 2.2e-8, not 0, for i >= 25,
    # whose square root is 1.5e-4 where JAX's eager value (and jaxc's) is
    # final_step_size, 0.
    "polynomial_decay_sqrt": "XLA's reciprocal-and-FMA rewrite of 1 - i / decay_steps",
}


def test_recorded_cases_are_current(recorded: dict[str, np.ndarray]) -> None:
    recorded_optimizers = {key.split("/")[1] for key in recorded if key.startswith("optimizer/")}
    recorded_schedules = {key.split("/")[1] for key in recorded if key.startswith("schedule/")}
    assert recorded_optimizers == set(OPTIMIZERS), "rerun record_optimizers.py"
    assert recorded_schedules == set(SCHEDULES), "rerun record_optimizers.py"


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_trajectory_matches_jax(name: str, mode: str, recorded: dict, inputs: dict) -> None:
    got = run_optimizer(jaxc, optimizers, name, inputs, mode)
    rtol, atol = tolerance(name, mode)
    expected = recorded[f"optimizer/{name}/{mode}/params"]
    assert got["params"].shape == expected.shape == (STEPS, 17)
    np.testing.assert_allclose(got["params"], expected, rtol=rtol, atol=atol, err_msg=f"{name} ({mode})")
    np.testing.assert_allclose(got["state"], recorded[f"optimizer/{name}/{mode}/state"], rtol=rtol, atol=atol,
                               err_msg=f"{name} ({mode}): final state")


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_matches_jax(name: str, recorded: dict) -> None:
    got = run_schedule(jaxc, optimizers, name)
    prefix = f"schedule/{name}"
    assert got["eager_kind"] == recorded[f"{prefix}/eager_kind"]
    # A Python float comes from float64 arithmetic in both: equal to rounding.
    np.testing.assert_allclose(got["eager"], recorded[f"{prefix}/eager"], rtol=1e-6, atol=0)
    expected_jit = recorded[f"{prefix}/jit"]
    assert got["jit"].dtype == expected_jit.dtype
    if name in JIT_AS_EAGER:
        differs = ~np.isclose(recorded[f"{prefix}/eager"], expected_jit, rtol=1e-6, atol=0)
        assert differs.any(), f"JAX no longer differs for {name}: drop it from JIT_AS_EAGER"
        expected_jit = np.where(differs, recorded[f"{prefix}/eager"], expected_jit).astype(expected_jit.dtype)
    np.testing.assert_allclose(got["jit"], expected_jit, rtol=1e-6, atol=0)


@pytest.mark.parametrize("name", ["exponential_decay", "polynomial_decay_power2", "piecewise_constant",
                                  "inverse_time_decay_staircase"])
def test_schedule_under_vmap(name: str, recorded: dict) -> None:
    """A batch of traced steps: the schedule is elementwise in the step."""
    schedule = SCHEDULES[name](optimizers)
    got = jaxc.vmap(schedule)(jnp.arange(SCHEDULE_STEPS))
    np.testing.assert_allclose(np.asarray(got), recorded[f"schedule/{name}/jit"], rtol=1e-6, atol=0)


def test_schedules_by_hand() -> None:
    """A few values worked out by hand, independent of the recorded data."""
    o = optimizers
    assert o.constant(0.25)(1000) == 0.25
    assert o.exponential_decay(1.0, 2, 0.5)(4) == pytest.approx(0.25)
    assert o.inverse_time_decay(1.0, 2, 1.0)(2) == pytest.approx(0.5)
    assert float(o.inverse_time_decay(1.0, 2, 1.0, staircase=True)(3)) == pytest.approx(0.5)
    assert float(o.polynomial_decay(1.0, 4, 0.2)(2)) == pytest.approx(0.6)
    assert float(o.polynomial_decay(1.0, 4, 0.2)(400)) == pytest.approx(0.2)
    pc = o.piecewise_constant([2, 5], [3.0, 2.0, 1.0])
    assert [float(pc(i)) for i in (0, 2, 3, 5, 6)] == [3.0, 3.0, 2.0, 2.0, 1.0]
    assert float(o.piecewise_constant([], [7.0])(100)) == 7.0
    schedule = o.exponential_decay(0.1, 5, 0.5)
    assert o.make_schedule(schedule) is schedule
    assert o.make_schedule(0.5)(3) == 0.5
    assert float(o.make_schedule(jnp.float32(0.5))(3)) == 0.5


# -- the pytree of states ----------------------------------------------------------------

def small_params() -> Any:
    return {"w": jnp.arange(6.0).reshape(2, 3), "layers": [jnp.ones(3), (jnp.asarray(2.0), None)]}


def small_grads() -> Any:
    return {"w": jnp.full((2, 3), 0.5), "layers": [jnp.arange(3.0), (jnp.asarray(-1.0), None)]}


def same_state(a: Any, b: Any) -> None:
    assert type(a) is type(b) is optimizers.OptimizerState
    assert a.tree_def == b.tree_def and a.subtree_defs == b.subtree_defs
    assert tree_structure(a) == tree_structure(b)
    for x, y in zip(tree_leaves(a), tree_leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_optimizer_state_is_a_pytree() -> None:
    opt_init, opt_update, get_params = optimizers.adam(0.1)
    params = small_params()
    state = opt_init(params)
    # Only the arrays are leaves: x, m, v for each of the three parameters (None is no leaf).
    leaves, treedef = tree_flatten(state)
    assert len(leaves) == 9 and all(isinstance(x, jaxc.Array) for x in leaves)
    assert state.tree_def == tree_structure(params)
    same_state(tree_unflatten(treedef, leaves), state)
    doubled = tree_map(lambda x: 2 * x, state)
    same_state(doubled, optimizers.OptimizerState(
        tuple([2 * x for x in packed] for packed in state.packed_state), state.tree_def, state.subtree_defs))
    # Through jit: in and out, and the step inside.
    same_state(jaxc.jit(lambda s: s)(state), state)
    stepped = jaxc.jit(opt_update)(0, small_grads(), state)
    same_state(stepped, opt_update(0, small_grads(), state))
    assert tree_structure(get_params(stepped)) == tree_structure(params)
    assert get_params(state) is not None and get_params(state)["layers"][1][1] is None


def test_optimizer_state_under_vmap() -> None:
    """A batch of three independent optimizations, against a loop over them."""
    opt_init, opt_update, get_params = optimizers.adam(0.1)
    rng = np.random.default_rng(3)
    params = {"w": rng.normal(size=(3, 3, 2)).astype(np.float32), "b": rng.normal(size=(3, 2)).astype(np.float32)}
    grads = {"w": rng.normal(size=(3, 3, 2)).astype(np.float32), "b": rng.normal(size=(3, 2)).astype(np.float32)}
    states = jaxc.vmap(opt_init)(tree_map(jnp.asarray, params))
    assert type(states) is optimizers.OptimizerState
    stepped = jaxc.vmap(lambda g, s: opt_update(3, g, s))(tree_map(jnp.asarray, grads), states)
    for k in range(3):
        one = opt_update(3, tree_map(lambda g: jnp.asarray(g[k]), grads),
                         opt_init(tree_map(lambda p: jnp.asarray(p[k]), params)))
        for got, want in zip(tree_leaves(get_params(stepped)), tree_leaves(get_params(one)), strict=True):
            np.testing.assert_allclose(np.asarray(got)[k], np.asarray(want), rtol=1e-6, atol=1e-7)


def test_state_through_fori_loop() -> None:
    """The state as a loop carry, the step (traced) into a piecewise schedule."""
    from jaxc import lax
    opt_init, opt_update, get_params = optimizers.momentum(optimizers.piecewise_constant([2], [0.1, 0.01]), 0.9)
    grads = small_grads()
    looped = lax.fori_loop(0, 5, lambda i, state: opt_update(i, grads, state), opt_init(small_params()))
    state = opt_init(small_params())
    for i in range(5):
        state = opt_update(i, grads, state)
    assert tree_structure(looped) == tree_structure(state)
    for got, want in zip(tree_leaves(looped), tree_leaves(state), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["adam", "sm3"])
def test_pack_unpack_round_trip(name: str) -> None:
    opt_init, opt_update, get_params = OPTIMIZERS[name](optimizers)
    state = opt_update(0, small_grads(), opt_init(small_params()))
    marked = optimizers.unpack_optimizer_state(state)
    # The parameter tree, with a JoinPoint holding each parameter's state.
    join_points, outer = tree_flatten(marked)
    assert outer == state.tree_def and len(join_points) == 3
    assert all(isinstance(p, optimizers.JoinPoint) for p in join_points)
    assert list(join_points[0]) == [join_points[0].subtree]
    assert isinstance(marked["layers"][1][0], optimizers.JoinPoint) and marked["layers"][1][1] is None
    x = marked["w"].subtree[0]
    np.testing.assert_array_equal(np.asarray(x), np.asarray(get_params(state)["w"]))
    packed = optimizers.pack_optimizer_state(marked)
    same_state(packed, state)
    same_state(opt_update(1, small_grads(), packed), opt_update(1, small_grads(), state))


def test_l2_norm_and_clip_grads() -> None:
    rng = np.random.default_rng(5)
    tree = {"a": rng.normal(size=(3, 4)).astype(np.float32), "b": [rng.normal(size=5).astype(np.float32),
                                                                  (np.float32(1.5),)]}
    leaves = [np.asarray(x, np.float64) for x in tree_leaves(tree)]
    norm = np.sqrt(sum(np.sum(x * x) for x in leaves))
    jtree = tree_map(jnp.asarray, tree)
    np.testing.assert_allclose(float(optimizers.l2_norm(jtree)), norm, rtol=1e-6)
    np.testing.assert_allclose(float(jaxc.jit(optimizers.l2_norm)(jtree)), norm, rtol=1e-6)
    assert float(optimizers.l2_norm({})) == 0.0
    np.testing.assert_allclose(float(optimizers.l2_norm([jnp.arange(3)])), np.sqrt(5.0), rtol=1e-6)
    # Above max_norm: scaled to max_norm. Below: unchanged.
    for clip in (optimizers.clip_grads, jaxc.jit(optimizers.clip_grads)):
        clipped = clip(jtree, 1.0)
        assert tree_structure(clipped) == tree_structure(jtree)
        for got, x in zip(tree_leaves(clipped), leaves, strict=True):
            np.testing.assert_allclose(np.asarray(got), x / norm, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(float(optimizers.l2_norm(clipped)), 1.0, rtol=1e-5)
        kept = clip(jtree, 2 * norm)
        for got, x in zip(tree_leaves(kept), tree_leaves(jtree), strict=True):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(x))


def test_custom_optimizer_with_the_decorator() -> None:
    @optimizers.optimizer
    def sign_sgd(step_size):
        """x <- x - step_size * sign(g), on one array."""
        def init(x0):
            return (x0,)

        def update(i, g, state):
            return (state[0] - step_size * jnp.sign(g),)

        def get_params(state):
            return state[0]
        return init, update, get_params

    assert sign_sgd.__name__ == "sign_sgd" and "sign(g)" in sign_sgd.__doc__
    opt = sign_sgd(0.5)
    assert isinstance(opt, optimizers.Optimizer) and opt._fields == ("init_fn", "update_fn", "params_fn")
    assert opt.init_fn.__name__ == "init" and opt.update_fn.__name__ == "update"
    params = opt.params_fn(opt.update_fn(0, small_grads(), opt.init_fn(small_params())))
    np.testing.assert_array_equal(np.asarray(params["w"]), np.arange(6.0).reshape(2, 3) - 0.5)
    np.testing.assert_array_equal(np.asarray(params["layers"][0]), [1.0, 0.5, 0.5])
    assert float(params["layers"][1][0]) == 2.5 and params["layers"][1][1] is None
    # An empty parameter tree is an empty state.
    empty = opt.init_fn({})
    assert empty.packed_state == () and empty.subtree_defs == () and opt.params_fn(empty) == {}


def test_public_names() -> None:
    names = {"optimizer", "Optimizer", "OptimizerState", "sgd", "momentum", "nesterov", "adagrad", "rmsprop",
             "rmsprop_momentum", "adam", "adamax", "sm3", "constant", "exponential_decay", "inverse_time_decay",
             "polynomial_decay", "piecewise_constant", "make_schedule", "unpack_optimizer_state",
             "pack_optimizer_state", "JoinPoint", "clip_grads", "l2_norm", "Array", "Params", "State", "Updates",
             "InitFn", "Step", "UpdateFn", "ParamsFn", "Schedule"}
    assert names <= set(optimizers.__all__) and all(hasattr(optimizers, n) for n in names)
    assert optimizers.OptimizerState._fields == ("packed_state", "tree_def", "subtree_defs")
    assert jaxc.example_libraries.optimizers is optimizers


# -- errors: JAX's exception types ------------------------------------------------------

def _bad_update_structure(o: Any) -> Any:
    @o.optimizer
    def grows(step_size):
        return (lambda x0: (x0,), lambda i, g, state: (state[0], g), lambda state: state[0])
    opt_init, opt_update, _ = grows(0.1)
    return opt_update(0, 1.0, opt_init(1.0))


def _mismatched_grads(o: Any) -> Any:
    opt_init, opt_update, _ = o.sgd(0.1)
    return opt_update(0, {"a": 1.0}, opt_init({"a": 1.0, "b": 2.0}))


ERRORS = {
    "piecewise_constant_lengths": (lambda o: o.piecewise_constant([1, 2], [1.0]), ValueError),
    "piecewise_constant_2d": (lambda o: o.piecewise_constant([[1]], [[1.0, 2.0]]), ValueError),
    "piecewise_constant_scalar": (lambda o: o.piecewise_constant(1, [1.0, 2.0]), ValueError),
    "piecewise_constant_ragged": (lambda o: o.piecewise_constant([1, [2]], [1.0, 2.0, 3.0]), ValueError),
    "piecewise_constant_strings": (lambda o: o.piecewise_constant(["a"], [1.0, 2.0]), TypeError),
    "make_schedule_vector": (lambda o: o.make_schedule([0.1, 0.2]), TypeError),
    "sgd_vector_step_size": (lambda o: o.sgd(np.ones(3, np.float32)), TypeError),
    "momentum_without_mass": (lambda o: o.momentum(0.1), TypeError),
    "update_mismatched_grads": (_mismatched_grads, TypeError),
    "update_not_a_state": (lambda o: o.sgd(0.1).update_fn(0, 1.0, 5), TypeError),
    "update_changes_structure": (_bad_update_structure, TypeError),
    "pack_without_join_points": (lambda o: o.pack_optimizer_state({"a": 1.0}), AssertionError),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name: str) -> None:
    fn, error = ERRORS[name]
    with pytest.raises(error):
        fn(optimizers)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # JAX's own, for these bad inputs
def test_errors_match_jax() -> None:
    pytest.importorskip("jax")
    from jax.example_libraries import optimizers as jax_optimizers
    for name, (fn, error) in ERRORS.items():
        with pytest.raises(error):
            fn(jax_optimizers)


def test_recorded_data_matches_jax(recorded: dict, inputs: dict) -> None:
    """JAX itself, where installed, still gives the recorded values."""
    jax = pytest.importorskip("jax")
    import jax.numpy  # noqa: F401,F811
    from jax.example_libraries import optimizers as jax_optimizers
    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"recorded with JAX {JAX_VERSION}, found {jax.__version__}")
    for name in ("adam", "sm3_exponential"):
        got = run_optimizer(jax, jax_optimizers, name, inputs, "jit")
        np.testing.assert_array_equal(got["params"], recorded[f"optimizer/{name}/jit/params"])
    got = run_schedule(jax, jax_optimizers, "polynomial_decay_sqrt")
    np.testing.assert_array_equal(got["jit"], recorded["schedule/polynomial_decay_sqrt/jit"])


# -- end to end ---------------------------------------------------------------------------

def test_adam_solves_least_squares_under_jit() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(size=(32, 5)).astype(np.float32)
    y = (a @ rng.normal(size=5) + 1.0 + 0.3 * rng.normal(size=32)).astype(np.float32)
    design = np.concatenate([a, np.ones((32, 1))], axis=1).astype(np.float64)
    best = np.linalg.lstsq(design, y.astype(np.float64), rcond=None)[0]
    best_loss = np.mean((design @ best - y) ** 2)

    def loss(p, a, y):
        return jnp.mean((a @ p["x"] + p["c"] - y) ** 2)

    opt_init, opt_update, get_params = optimizers.adam(optimizers.exponential_decay(0.1, 100, 0.1))

    @jaxc.jit
    def step(i, state, a, y):
        value, grads = jaxc.value_and_grad(loss)(get_params(state), a, y)
        return value, opt_update(i, grads, state)

    state = opt_init({"x": jnp.zeros(5), "c": jnp.zeros(())})
    losses = []
    for i in range(300):
        value, state = step(i, state, a, y)
        losses.append(float(value))
    assert losses[0] > 10 * best_loss
    assert losses[-1] < losses[0] and float(loss(get_params(state), a, y)) == pytest.approx(best_loss, rel=1e-4)
    params = get_params(state)
    np.testing.assert_allclose(np.asarray(params["x"]), best[:5], atol=2e-3)
    np.testing.assert_allclose(float(params["c"]), best[5], atol=2e-3)
