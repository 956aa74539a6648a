"""JAX's smaller top-level names (jaxc/_toplevel.py) and the config
contexts of jaxc/_config.py."""
import logging
import re
import warnings

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import _toplevel


def f(x, w):
    return jnp.sum(jnp.tanh(x @ w) ** 2) + jnp.sin(x).sum()


X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
W = np.linspace(0.5, -0.5, 8, dtype=np.float32).reshape(4, 2)


# ---------------------------------------------------------------- checkpoint

@pytest.mark.parametrize("policy", [None, jaxc.checkpoint_policies.dots_saveable,
                                    jaxc.checkpoint_policies.save_only_these_names("h")])
def test_checkpoint_values_and_derivatives_are_the_functions(policy):
    g = jaxc.checkpoint(f, policy=policy)
    assert g.__name__ == "f"
    np.testing.assert_array_equal(np.asarray(g(X, W)), np.asarray(f(X, W)))
    for argnums in (0, 1, (0, 1)):
        ours = jaxc.grad(g, argnums=argnums)(X, W)
        theirs = jaxc.grad(f, argnums=argnums)(X, W)
        for a, b in zip(jaxc.tree_util.tree_leaves(ours), jaxc.tree_util.tree_leaves(theirs)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(np.asarray(jaxc.jit(jaxc.grad(g))(X, W)),
                                  np.asarray(jaxc.jit(jaxc.grad(f))(X, W)))
    xs = np.stack([X, 2 * X])
    np.testing.assert_array_equal(np.asarray(jaxc.vmap(jaxc.grad(g), (0, None))(xs, W)),
                                  np.asarray(jaxc.vmap(jaxc.grad(f), (0, None))(xs, W)))


def test_checkpoint_inside_a_function_and_remat_alias():
    def loss(x, w):
        h = jaxc.remat(lambda v: jnp.tanh(v @ w))(x)
        return jnp.sum(jaxc.checkpoint(jnp.sin)(h))
    expected = jaxc.grad(lambda x, w: jnp.sum(jnp.sin(jnp.tanh(x @ w))), argnums=1)(X, W)
    np.testing.assert_array_equal(np.asarray(jaxc.jit(jaxc.grad(loss, argnums=1))(X, W)),
                                  np.asarray(jaxc.jit(jaxc.grad(
                                      lambda x, w: jnp.sum(jnp.sin(jnp.tanh(x @ w))), argnums=1))(X, W)))
    np.testing.assert_allclose(np.asarray(jaxc.grad(loss, argnums=1)(X, W)), np.asarray(expected),
                               rtol=1e-6)


def test_checkpoint_static_argnums():
    def power(x, n):
        for _ in range(n):  # Python control flow on the static argument
            x = x * jnp.cos(x)
        return x
    g = jaxc.checkpoint(power, static_argnums=(1,))
    assert float(jaxc.grad(g)(0.5, 3)) == float(jaxc.grad(power)(0.5, 3))
    assert float(jaxc.jit(g, static_argnums=1)(0.5, 2)) == float(power(jnp.float32(0.5), 2))
    with pytest.raises(ValueError, match="can only take integer values greater than or equal to"):
        jaxc.checkpoint(power, static_argnums=2)(0.5, 3)
    with pytest.raises(TypeError, match="must be an int, tuple of ints"):
        jaxc.checkpoint(power, static_argnums=[1])(0.5, 3)


def test_checkpoint_bad_options():
    with pytest.raises(TypeError, match="prevent_cse must be a bool or tuple of bools"):
        jaxc.checkpoint(f, prevent_cse=1)
    with pytest.raises(NotImplementedError, match="removed in JAX v0.10.0"):
        jaxc.checkpoint(f, concrete=True)
    jaxc.checkpoint(f, prevent_cse=(True, False))  # accepted, as in JAX


def test_checkpoint_policies():
    p = jaxc.checkpoint_policies
    assert p.everything_saveable() is True and p.nothing_saveable() is False
    assert p.checkpoint_dots is p.dots_saveable
    dot = jaxc.lax._ops.DOT_GENERAL
    batched = {"dimension_numbers": (((2,), (1,)), ((0,), (0,)))}
    plain = {"dimension_numbers": (((1,), (0,)), ((), ()))}
    assert p.dots_saveable(dot, **batched) is True
    assert p.dots_with_no_batch_dims_saveable(dot, **batched) is False
    assert p.dots_with_no_batch_dims_saveable(dot, **plain) is True
    names = p.save_only_these_names("a")
    name_prim = type("P", (), {"name": "name"})()
    assert names(name_prim, name="a") and not names(name_prim, name="b") and not names(dot)
    assert p.save_any_names_but_these("a")(name_prim, name="b")
    assert not p.save_any_names_but_these("a")(name_prim, name="a") and not p.save_any_names_but_these("a")(dot)
    assert p.save_anything_except_these_names("a")(dot, **plain)
    assert not p.save_anything_except_these_names("a")(name_prim, name="a")
    offload = p.save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"])
    assert offload(name_prim, name="a") and offload(name_prim, name="b") and not offload(name_prim, name="c")
    assert p.offload_dot_with_no_batch_dims() is p.dots_with_no_batch_dims_saveable
    assert p.save_from_both_policies(names, p.dots_saveable)(dot) is True
    with pytest.raises(ValueError, match="should be a boolean"):
        p.save_from_both_policies(lambda *a, **k: "x", names)(dot)
    x = jnp.arange(3.0)
    assert _toplevel.checkpoint_name(x, "h") is x  # eagerly: the value itself
    with pytest.raises(TypeError, match="name must be a string"):
        _toplevel.checkpoint_name(x, 3)


def test_checkpoint_policy_names_are_jaxs():
    jax = pytest.importorskip("jax")
    assert set(vars(jaxc.checkpoint_policies)) == set(vars(jax.checkpoint_policies))


# ---------------------------------------------------------------- derivatives

def test_custom_gradient():
    @jaxc.custom_gradient
    def f1(x):
        return jnp.sin(x), lambda g: g * 3.0 * x  # not the true derivative, on purpose

    assert float(f1(1.0)) == pytest.approx(np.sin(1.0))
    assert float(jaxc.grad(f1)(2.0)) == 6.0
    assert float(jaxc.jit(jaxc.grad(f1))(2.0)) == 6.0
    np.testing.assert_array_equal(np.asarray(jaxc.vmap(jaxc.grad(f1))(jnp.arange(3.0))), [0., 3., 6.])

    @jaxc.custom_gradient
    def f2(x, y):
        return x * y, lambda g: (g * y, g * x * 10)

    assert [float(v) for v in jaxc.grad(f2, argnums=(0, 1))(2.0, 3.0)] == [3.0, 20.0]
    _, pullback = jaxc.vjp(f2, 2.0, 3.0)
    assert [float(v) for v in pullback(1.0)] == [3.0, 20.0]


def test_custom_gradient_matches_jax():
    jax = pytest.importorskip("jax")

    def rule(np_):
        def clip(x):
            return x, lambda g: (np_.clip(g, -1.0, 1.0),)
        return clip
    xs = np.array([0.5, -2.0, 3.0], np.float32)
    ours = jaxc.grad(lambda x: jnp.sum(jaxc.custom_gradient(rule(jnp))(x) * 5.0))(xs)
    theirs = jax.grad(lambda x: jax.numpy.sum(jax.custom_gradient(rule(jax.numpy))(x) * 5.0))(xs)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_linear_transpose():
    scalar = jaxc.ShapeDtypeStruct((), np.float32)
    t = jaxc.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, scalar, scalar)
    assert [float(v) for v in t(1.0)] == [0.5, -0.5]  # JAX's documented example
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    t2 = jaxc.linear_transpose(lambda v: {"y": jnp.asarray(a) @ v}, np.zeros(3, np.float32))
    ct = np.array([1.0, -2.0], np.float32)
    (out,) = t2({"y": ct})
    np.testing.assert_allclose(np.asarray(out), a.T @ ct)
    with pytest.raises(TypeError, match="cotangent tree does not match function output"):
        t2(ct)
    with pytest.raises(TypeError, match="cotangent type does not match function output"):
        t2({"y": np.ones(3, np.float32)})
    with pytest.raises(TypeError, match="linear_transpose only supports"):
        jaxc.linear_transpose(lambda v: v, np.zeros(3, np.int32))
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        jaxc.linear_transpose(lambda v: v, scalar, reduce_axes=("i",))
    # Python scalars stand for weak 0-d arrays, as in JAX
    (ct_x,) = jaxc.linear_transpose(lambda v: 2 * v, 1.0)(3.0)
    assert ct_x.shape == () and ct_x.dtype == np.float32 and float(ct_x) == 6.0
    ct_pair = jaxc.linear_transpose(lambda x, y: x + 3 * y[0], 1.0, np.zeros(2, np.float32))(1.0)
    assert float(ct_pair[0]) == 1.0 and np.asarray(ct_pair[1]).tolist() == [3.0, 0.0]


# ---------------------------------------------------------------- names, contexts, devices

def test_named_call_and_named_scope():
    g = jaxc.named_call(f, name="layer")
    assert g.__name__ == "f"
    np.testing.assert_array_equal(np.asarray(g(X, W)), np.asarray(f(X, W)))
    with jaxc.named_scope("block"):
        y = jaxc.jit(f)(X, W)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(f(X, W)))
    with pytest.raises(TypeError, match="named_scope name argument must be a string"):
        with jaxc.named_scope(3):
            pass


def test_ensure_compile_time_eval_is_accepted():
    @jaxc.jit
    def g(x):
        with jaxc.ensure_compile_time_eval():
            c = jnp.arange(3.0) * 2
        return x + c
    np.testing.assert_array_equal(np.asarray(g(np.ones(3, np.float32))), [1., 3., 5.])
    with jaxc.ensure_compile_time_eval():
        assert isinstance(jnp.arange(3.0) * 2, jaxc.Array)  # outside jit: eager, as in JAX


def test_effects_barrier_waits_for_pending_work():
    big = jnp.ones((512, 512))
    ys = [big @ big for _ in range(3)]
    jaxc.effects_barrier()
    assert all(y.is_ready() for y in ys)
    assert float(ys[-1][0, 0]) == 512.0


def test_copy_to_host_async_reaches_every_leaf_with_the_method():
    class Leaf:
        copies = 0

        def copy_to_host_async(self):
            Leaf.copies += 1
    x = jnp.arange(3.0) * 2
    tree = {"a": x, "b": [Leaf(), 1.5, Leaf()]}
    assert jaxc.copy_to_host_async(tree) is tree and Leaf.copies == 2
    np.testing.assert_array_equal(x, [0.0, 2.0, 4.0])


def test_process_and_device_counts():
    assert jaxc.local_device_count() == len(jaxc.local_devices()) == jaxc.device_count()
    assert jaxc.process_count() == jaxc.host_count() == 1
    assert jaxc.process_index() == jaxc.host_id() == 0
    assert jaxc.process_indices() == jaxc.host_ids() == [0]
    assert jaxc.float0 == np.dtype([("float0", np.void, 0)]) and jaxc.float0.itemsize == 0


def test_version_module():
    assert jaxc.version.__version__ == jaxc.__version__
    assert jaxc.version._version == jaxc.__version__
    assert ".".join(map(str, jaxc.version.__version_info__)) == jaxc.__version__
    jax = pytest.importorskip("jax")
    assert type(jax.version.__version_info__) is type(jaxc.version.__version_info__)


def test_print_environment_info(capsys):
    text = jaxc.print_environment_info(return_string=True)
    assert f"jaxc:    {jaxc.__version__}" in text and f"numpy:   {np.__version__}" in text
    assert "device info: cpu-1, 1 local devices" in text and "process_count: 1" in text
    assert jaxc.print_environment_info() is None
    assert "python:" in capsys.readouterr().out


# ---------------------------------------------------------------- config options

CONTEXTS = {
    "debug_nans": ("jax_debug_nans", True), "debug_infs": ("jax_debug_infs", True),
    "log_compiles": ("jax_log_compiles", True), "check_tracer_leaks": ("jax_check_tracer_leaks", True),
    "explain_cache_misses": ("jax_explain_cache_misses", True),
    "default_device": ("jax_default_device", "cpu"),
    "no_tracing": ("jax_no_tracing", True),
    "no_execution": ("jax_no_execution", True),
    "enable_checks": ("jax_enable_checks", True),
    "numpy_rank_promotion": ("jax_numpy_rank_promotion", "raise"),
    "numpy_dtype_promotion": ("jax_numpy_dtype_promotion", "strict"),
    "default_matmul_precision": ("jax_default_matmul_precision", "highest"),
    "transfer_guard": ("jax_transfer_guard", "disallow"),
    "transfer_guard_host_to_device": ("jax_transfer_guard_host_to_device", "log"),
}


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_config_contexts(name):
    option, value = CONTEXTS[name]
    before = jaxc.config.read(option)
    with getattr(jaxc, name)(value):
        assert getattr(jaxc.config, option) == value
    assert jaxc.config.read(option) == before
    jaxc.config.update(option, value)
    try:
        assert jaxc.config.read(option) == value
    finally:
        jaxc.config.update(option, before)


def test_config_context_defaults_and_bad_values():
    with jaxc.debug_nans():  # a bool option defaults to True, as in JAX
        assert jaxc.config.jax_debug_nans is True
    with jaxc.checking_leaks():
        assert jaxc.config.jax_check_tracer_leaks is True
    with pytest.raises(TypeError, match="numpy_rank_promotion config option requires an argument"):
        jaxc.numpy_rank_promotion()
    with pytest.raises(ValueError, match=r"new enum value must be in \['allow', 'warn', 'raise'\]"):
        jaxc.config.update("jax_numpy_rank_promotion", "bogus")
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        jaxc.config.update("jax_default_matmul_precision", "fastest")
    with pytest.raises(TypeError, match="expected a bool"):
        jaxc.config.update("jax_debug_nans", "yes")
    with jaxc.default_matmul_precision(None):
        assert jaxc.config.jax_default_matmul_precision is None


def test_check_finite_and_log_compile(caplog):
    values = [np.array([1.0, np.nan], np.float32), np.array([np.inf]), np.array([1, 2])]
    _toplevel.check_finite(values, "f")  # options off: nothing
    with jaxc.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
            _toplevel.check_finite([jnp.log(-1.0)], "log")
        _toplevel.check_finite(values[1:], "f")  # inf and ints: fine
    with jaxc.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in jit\(f\)"):
            _toplevel.check_finite(values[1:], "jit(f)")
    with caplog.at_level(logging.WARNING, logger="jaxc"):
        _toplevel.log_compile("jit(g)")
        assert "Compiling jit(g)" not in caplog.text
        with jaxc.log_compiles():
            _toplevel.log_compile("jit(g)")
    assert "Compiling jit(g)" in caplog.text


def test_options_match_jax():
    jax = pytest.importorskip("jax")
    from jaxc._config import CHOICES, OPTIONS
    for name in CONTEXTS.values():
        option = name[0]
        theirs = jax.config._value_holders[option].value
        ours = OPTIONS[option][0]
        assert ours == getattr(theirs, "value", theirs), option
    assert set(CHOICES["jax_numpy_rank_promotion"]) == {"allow", "warn", "raise"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jax.float0 == jaxc.float0


def test_check_rank_promotion():
    check = _toplevel.check_rank_promotion
    check("add", [(2, 3), (3,)])  # 'allow': nothing
    with jaxc.numpy_rank_promotion("raise"):
        check("add", [(2, 3), (), (2, 3)])  # scalars never count
        with pytest.raises(ValueError, match=r"Operands could not be broadcast together for add on "
                                             r"shapes \(2, 3\) \(3,\) and with the config option "
                                             r"jax_numpy_rank_promotion='raise'"):
            check("add", [(2, 3), (3,)])
    with jaxc.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"Following NumPy automatic rank promotion for mul on "
                                             r"shapes \(1, 3\) \(3,\)"):
            check("mul", [(1, 3), (3,)])


def test_rank_promotion_messages_match_jax():
    jax = pytest.importorskip("jax")
    with jax.numpy_rank_promotion("raise"), jaxc.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError) as theirs:
            jax.numpy.add(np.ones((2, 3)), np.ones(3))
        with pytest.raises(ValueError) as ours:
            _toplevel.check_rank_promotion("add", [(2, 3), (3,)])
    assert str(ours.value) == str(theirs.value)


def test_debug_nans_and_infs_raise_on_eager_ops_and_jit_calls():
    negative = -jnp.ones(2)
    log = jaxc.jit(jnp.log)
    log(negative).block_until_ready()          # on the C fast path before the option is on
    with jaxc.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
            jnp.log(negative)
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in jit\(log\)"):
            log(negative)
        np.testing.assert_allclose(np.asarray(log(jnp.ones(2))), 0.0)   # finite: no error
    with jaxc.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in div"):
            jnp.ones(2) / 0.0
    assert np.isnan(np.asarray(log(negative))).all()   # off again


def test_log_compiles_logs_each_jit_compilation(caplog):
    with caplog.at_level(logging.WARNING, logger="jaxc"), jaxc.log_compiles(True):
        jaxc.jit(lambda x: x * 3.5)(np.float32(1.0))
    assert any("Compiling jit(_lambda_)" in r.getMessage() for r in caplog.records)


@pytest.fixture
def two_cpu_devices():
    before = jaxc.config.read("jax_num_cpu_devices")
    jaxc.config.update("jax_num_cpu_devices", 2)
    yield jaxc.devices("cpu")
    jaxc.config.update("jax_num_cpu_devices", before)


def test_default_device_places_new_arrays_and_computations(two_cpu_devices):
    first, second = two_cpu_devices
    with jaxc.default_device(second):
        x = jnp.ones(3)
        assert x.devices() == {second}
        assert jaxc.device_put(np.ones(2)).devices() == {second}
        assert jaxc.random.PRNGKey(0).devices() == {second}
        y = jaxc.jit(lambda a: a * 2)(np.arange(3.0))  # NumPy in: runs on the default device
        assert y.devices() == {second}
        np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0, 4.0])
        assert (x + 1).devices() == {second}
        on_first = jaxc.device_put(np.ones(2), first)  # an explicit device wins
        assert (on_first * 3).devices() == {first}
    assert jnp.ones(3).devices() == {first}
    jaxc.config.update("jax_default_device", second)
    try:
        assert jnp.zeros(2).devices() == {second}
        with jaxc.default_device("cpu"):
            assert jnp.zeros(2).devices() == {first}
    finally:
        jaxc.config.update("jax_default_device", None)
    assert jnp.zeros(2).devices() == {first}


@pytest.mark.parametrize("value", ["tpu", 3, "CPU"])
def test_default_device_takes_devices_and_platform_names_only(value):
    with pytest.raises(ValueError, match="must be passed either a Device object"):
        jaxc.config.update("jax_default_device", value)
    assert jaxc.config.jax_default_device is None


def test_default_device_gpu_without_a_gpu_says_so():
    if jaxc.dispatch.gpu_devices():
        pytest.skip("a GPU is present")
    with jaxc.default_device("gpu"):
        with pytest.raises(RuntimeError, match="no GPU is present"):
            jnp.ones(2)


def test_no_tracing_refuses_a_trace_and_allows_cached_calls():
    f = jaxc.jit(lambda x: x * 2)
    f(jnp.ones(3))
    with jaxc.no_tracing():
        np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), 2.0)  # cached: fine
        with pytest.raises(RuntimeError, match="re-tracing function .* for `jit`, but 'no_tracing' is set"):
            f(jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(4))), 2.0)  # off again


def test_no_execution_refuses_to_run_compiled_code_and_still_compiles():
    f = jaxc.jit(lambda x: x * 2)
    x = jnp.ones(3)
    np.testing.assert_array_equal(np.asarray(f(x)), 2.0)  # the C fast path now knows this call
    compiled = jaxc.jit(lambda x: x + 1).lower(x).compile()
    message = "jaxc tried to execute function {}, but the no_execution config option is set"
    with jaxc.no_execution():
        for call, name in ((lambda: f(x), "jit(_lambda_)"), (lambda: compiled(x), "jit(_lambda_)"),
                           (lambda: jnp.sin(x), "jit(sin)"), (lambda: x + x, "jit(add)"),
                           (lambda: jaxc.jit(lambda y: y - 1)(x), "jit(_lambda_)")):
            with pytest.raises(RuntimeError, match=re.escape(message.format(name))):
                call()
        assert jaxc.jit(lambda y: y * 3).lower(x).compile() is not None  # compiling is allowed
    np.testing.assert_array_equal(np.asarray(f(x)), 2.0)  # off again
    np.testing.assert_array_equal(np.asarray(compiled(x)), 2.0)


def test_make_user_context_is_part_of_the_jit_cache_key():
    traces = []

    def g(x):
        traces.append(1)
        return x * 2

    f = jaxc.jit(g)
    mode = jaxc.make_user_context(default_value=5)
    assert mode.value == 5 and mode.get_global() == 5
    f(1.0), f(1.0)
    assert len(traces) == 1
    with mode(7):
        assert mode.value == 7
        f(1.0), f(1.0)
        assert len(traces) == 2
    assert mode.value == 5
    f(1.0)
    assert len(traces) == 2  # traced under 5 before: cached
    mode.set_global(9)
    try:
        f(1.0)
        assert len(traces) == 3 and mode.get_global() == 9
        with pytest.raises(TypeError, match="unhashable"):
            with mode([1]):
                pass
        assert mode.value == 9
    finally:
        mode.set_global(5)
    other = jaxc.make_user_context()  # independent of the first
    assert other.value is None
    with other("x"):
        f(1.0)
        assert len(traces) == 4


def _cache_misses(caplog) -> list[str]:
    messages = [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    caplog.clear()
    return messages


def test_explain_cache_misses_says_what_differs(caplog):
    def step(x, params, n):
        return x * params["w"] * n

    f = jaxc.jit(step, static_argnums=2)
    with caplog.at_level(logging.WARNING, logger="jaxc"), jaxc.explain_cache_misses():
        f(jnp.ones(3), {"w": jnp.ones(3)}, 2)
        (first,) = _cache_misses(caplog)
        assert first.startswith(f"TRACING CACHE MISS at {__file__}:") and " costing " in first
        assert f"never seen function:\n    step id={id(step)} defined at {__file__}:" in first
        f(jnp.ones(3), {"w": jnp.ones(3)}, 2)
        assert _cache_misses(caplog) == []  # a cache hit is not explained
        f(jnp.ones((2, 3)), {"w": jnp.ones(3)}, 2)
        (shape,) = _cache_misses(caplog)
        assert "  for step defined at" in shape and "Closest previous key:" in shape
        assert "* key with different input types:\n      at x, now float32[2,3] and before float32[3]" in shape
        assert "params" not in shape  # only what changed
        f(jnp.ones(3), {"w": jnp.ones(3)}, 5)
        (static,) = _cache_misses(caplog)
        assert "different value of static argument n: now 5 and before 2" in static
        f(jnp.ones(3), {"w": jnp.ones(3), "b": jnp.ones(3)}, 2)
        (tree,) = _cache_misses(caplog)
        assert "different input pytree structure" in tree and "'b'" in tree
        f(jnp.ones(3), {"w": jnp.ones(1)}, 2)
        (nested,) = _cache_misses(caplog)
        assert "at params['w'], now float32[1] and before float32[3]" in nested
        with jaxc.enable_x64():
            f(np.ones(3), {"w": np.ones(3)}, 2)
        (context,) = _cache_misses(caplog)
        assert "different tracing context (jax_enable_x64 now True and before False)" in context
    f(jnp.ones(7), {"w": jnp.ones(7)}, 2)  # option off: traced, not explained
    assert _cache_misses(caplog) == []


def test_explain_cache_misses_spots_a_function_redefined_on_one_line(caplog):
    with caplog.at_level(logging.WARNING, logger="jaxc"), jaxc.explain_cache_misses(True):
        for _ in range(2):
            jaxc.jit(lambda x: x + 1)(1.0)
    first, second = _cache_misses(caplog)
    assert "never seen function:\n    <lambda>" in first and "re-defined repeatedly" not in first
    assert "seen another function defined on the same line" in second


def test_numpy_rank_promotion_applies_to_jnp_broadcasting():
    a, b = jnp.ones(3), jnp.ones((2, 3))
    with jaxc.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            a + b
        with pytest.raises(ValueError, match="for multiply on shapes"):
            jaxc.jit(jnp.multiply)(a, b)
        np.testing.assert_array_equal(np.asarray(a + 1.0), 2.0)   # scalars never count
    with jaxc.numpy_rank_promotion("warn"), pytest.warns(UserWarning, match="automatic rank promotion for add"):
        a + b
    np.testing.assert_array_equal(np.asarray(a + b), np.full((2, 3), 2.0))


# ---------------------------------------------------------------- small namespaces

def test_dlpack_both_ways():
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6.0).reshape(2, 3))
    y = jaxc.dlpack.from_dlpack(np.arange(4, dtype=np.int16))
    assert isinstance(y, jaxc.Array) and y.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(y), np.arange(4))
    assert jaxc.dlpack.is_supported_dtype(np.float32) and jaxc.dlpack.is_supported_dtype(jnp.bfloat16)
    assert not jaxc.dlpack.is_supported_dtype(np.dtype("U3"))
    with pytest.raises(TypeError, match="has no __dlpack__"):
        jaxc.dlpack.from_dlpack([1, 2])
    with pytest.raises(ValueError, match="requires a copy since its dtype float64 becomes float32"):
        jaxc.dlpack.from_dlpack(np.ones(2), copy=False)  # without x64: a copy is needed

    class OnGpu:
        def __dlpack__(self, **kw):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return (2, 0)
    with pytest.raises(BufferError, match="device type 2"):
        jaxc.dlpack.from_dlpack(OnGpu())


def test_typing_stages_device_and_make_array_from_callback():
    from typing import get_args
    assert jaxc.Array in get_args(jaxc.typing.ArrayLike) and np.dtype in get_args(jaxc.typing.DTypeLike)
    lowered = jaxc.jit(lambda v: v * 2).lower(np.ones(3, np.float32))
    assert isinstance(lowered, jaxc.stages.Lowered) and isinstance(lowered.compile(), jaxc.stages.Compiled)
    assert isinstance(jaxc.jit(jnp.sin), jaxc.stages.Wrapped)
    assert all(isinstance(d, jaxc.Device) for d in jaxc.devices())
    sharding = jnp.zeros(1).sharding
    seen = []

    def data(index):
        seen.append(index)
        return np.arange(6).reshape(2, 3)[index]
    a = jaxc.make_array_from_callback((2, 3), sharding, data, dtype=np.float32)
    assert seen == [(slice(None), slice(None))] and a.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(a), np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="returned an array of shape"):
        jaxc.make_array_from_callback((3, 3), sharding, data)
