"""jaxc.experimental.io_callback (issue #21): a host call with side effects,
eagerly, under jit (kept when its result is unused, in program order),
under vmap (once per lane, in JAX's order) and under grad (refused), with
results checked as pure_callback checks them; against Python references
and, where installed, JAX."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.experimental import io_callback

F32 = jaxc.ShapeDtypeStruct((), np.float32)

class Recorder:
    """A host function with a side effect: it keeps every value it is called with."""

    def __init__(self, scale: float = 1.0) -> None:
        self.calls: list = []
        self.scale = scale

    def __call__(self, x):
        self.calls.append(np.asarray(x).tolist())
        return (np.asarray(x) * self.scale).astype(np.asarray(x).dtype)


def test_signature_is_jaxs() -> None:
    jax_experimental = pytest.importorskip("jax.experimental")
    assert inspect.signature(io_callback).parameters.keys() == \
        inspect.signature(jax_experimental.io_callback).parameters.keys()
    ours, theirs = inspect.signature(io_callback), inspect.signature(jax_experimental.io_callback)
    for name, p in theirs.parameters.items():
        assert (ours.parameters[name].kind, ours.parameters[name].default) == (p.kind, p.default), name
    assert jaxc.experimental.io_callback is io_callback


# --- eager ---------------------------------------------------------------------------------

def test_eager_runs_at_once_with_arrays_pytrees_and_keywords() -> None:
    seen = []

    def host(tree, *, tag, scale):
        seen.append((type(tree["a"]).__name__, tag))
        return {"sum": np.asarray(tree["a"]) + np.asarray(tree["b"]) * np.asarray(scale),
                "n": np.int32(len(seen))}

    shapes = {"sum": jaxc.ShapeDtypeStruct((3,), np.float32), "n": jaxc.ShapeDtypeStruct((), np.int32)}
    a, b = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
    out = io_callback(host, shapes, {"a": a, "b": b}, tag="first", scale=np.float32(2))
    assert seen == [("Array", "first")]  # ran before returning; a non-array argument passes as it is
    assert isinstance(out["sum"], jaxc.Array) and out["sum"].dtype == np.float32 and not out["sum"].weak_type
    np.testing.assert_array_equal(np.asarray(out["sum"]), a + 2 * b)
    assert int(out["n"]) == 1
    assert io_callback(lambda: None, None) is None


# --- jit --------------------------------------------------------------------------------------

def test_jit_runs_on_every_call_even_with_the_result_unused() -> None:
    log = Recorder()

    @jaxc.jit
    def f(x):
        io_callback(log, F32, x * 2)                # result unused: still called
        io_callback(lambda v: None, None, x)        # no result at all
        return x + 1
    assert float(f(1.0)) == 2.0 and float(f(5.0)) == 6.0
    assert log.calls == [2.0, 10.0]
    text = f.lower(1.0).as_text(stage="optimized")
    assert text.count("jaxc.callback") == 2 and "jaxc.io_callback" in text


def test_jit_values_against_numpy() -> None:
    x = np.linspace(-2, 2, 7).astype(np.float32)

    def f(v):
        y = io_callback(lambda a: np.sin(np.asarray(a)), jaxc.ShapeDtypeStruct(v.shape, v.dtype), v)
        return y * 2 + 1
    np.testing.assert_allclose(np.asarray(jaxc.jit(f)(x)), np.sin(x) * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f(x)), np.sin(x) * 2 + 1, rtol=1e-6)


def test_ordered_calls_follow_program_order_in_loops() -> None:
    events = []

    def note(tag):
        return lambda v: (events.append((tag, float(v))), np.asarray(v))[1]

    @jaxc.jit
    def f(xs):
        def body(carry, x):
            io_callback(note("scan"), F32, x, ordered=True)
            jaxc.debug.callback(lambda v: events.append(("debug", float(v))), carry)
            return carry + x, carry
        total, _ = lax.scan(body, jnp.float32(0), xs)
        io_callback(note("after"), F32, total, ordered=True)
        return total
    assert float(f(jnp.arange(3.0))) == 3.0
    expected, carry = [], 0.0
    for x in range(3):  # the Python reference
        expected += [("scan", float(x)), ("debug", carry)]
        carry += x
    assert events == expected + [("after", 3.0)]
    assert "jaxc.ordered" in f.lower(jnp.arange(3.0)).as_text()


# --- vmap -------------------------------------------------------------------------------------

@pytest.mark.parametrize("jit", [False, True])
def test_vmap_calls_once_per_lane_with_unbatched_values(jit: bool) -> None:
    seen = []

    def host(x, s):
        seen.append((np.asarray(x).shape, float(s)))
        return np.asarray(x) * np.asarray(s)

    f = jaxc.vmap(lambda x, s: io_callback(host, jaxc.ShapeDtypeStruct((2,), np.float32), x, s),
                  in_axes=(0, None))
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = (jaxc.jit(f) if jit else f)(xs, 3.0)
    np.testing.assert_array_equal(np.asarray(out), xs * 3)
    assert seen == [((2,), 3.0)] * 3


def test_nested_vmap_visits_lanes_in_jaxs_order() -> None:
    log = Recorder(scale=10.0)
    xs = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    f = jaxc.vmap(jaxc.vmap(jaxc.vmap(lambda x: io_callback(log, F32, x))))
    np.testing.assert_array_equal(np.asarray(f(xs)), xs * 10)
    # JAX loops over the innermost vmap's axis outside (each vmap of the callback is a lax.map)
    expected = [float(xs[i, j, k]) for k in range(4) for j in range(3) for i in range(2)]
    assert log.calls == expected
    jax = pytest.importorskip("jax")
    from jax.experimental import io_callback as jax_io_callback
    theirs = Recorder(scale=10.0)
    jax.vmap(jax.vmap(jax.vmap(lambda x: jax_io_callback(theirs, jax.ShapeDtypeStruct((), np.float32), x))))(xs)
    assert theirs.calls == log.calls


def test_vmap_of_a_call_without_batched_operands_runs_once() -> None:
    log = Recorder()
    out = jaxc.vmap(lambda x: x + io_callback(log, F32, np.float32(2)))(jnp.arange(3.0))
    np.testing.assert_array_equal(np.asarray(out), np.arange(3.0) + 2)
    assert log.calls == [2.0]


def test_ordered_under_vmap_is_jaxs_value_error() -> None:
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback."):
        jaxc.vmap(lambda x: io_callback(Recorder(), F32, x, ordered=True))(jnp.arange(3.0))


# --- grad -------------------------------------------------------------------------------------

@pytest.mark.parametrize("transform", ["grad", "jit_grad", "jvp"])
def test_differentiating_it_is_jaxs_value_error(transform: str) -> None:
    f = lambda x: io_callback(Recorder(), F32, x) * x  # noqa: E731
    run = {"grad": lambda: jaxc.grad(f)(1.0), "jit_grad": lambda: jaxc.jit(jaxc.grad(f))(1.0),
           "jvp": lambda: jaxc.jvp(f, (1.0,), (1.0,))}[transform]
    with pytest.raises(ValueError, match="IO callbacks do not support JVP."):
        run()


def test_grad_of_a_function_calling_it_on_constants_runs_it_once() -> None:
    log = Recorder(scale=3.0)

    def f(x):
        return io_callback(log, F32, lax.stop_gradient(x)) * x ** 2   # d/dx = 3 x * 2 x

    assert float(jaxc.grad(f)(2.0)) == pytest.approx(3 * 2 * 2 * 2)
    assert float(jaxc.jit(jaxc.grad(f))(1.5)) == pytest.approx(3 * 1.5 * 2 * 1.5)
    assert log.calls == [2.0, 1.5]


def test_its_result_has_no_value_while_an_eager_grad_traces() -> None:
    log = Recorder()

    def f(x):
        y = io_callback(log, F32, lax.stop_gradient(x))
        return x * y if y > 0 else -x
    with pytest.raises(jaxc.errors.TracerBoolConversionError):
        jaxc.grad(f)(2.0)
    assert log.calls == []   # not called while tracing, so no side effect happens twice


# --- results and errors -----------------------------------------------------------------------

def test_results_are_checked_as_pure_callbacks_are() -> None:
    wrong_shape = jaxc.jit(lambda x: io_callback(lambda v: np.ones(4, np.float32),
                                                 jaxc.ShapeDtypeStruct((3,), np.float32), x))
    with pytest.raises(jaxc.JaxcRuntimeError, match=r"io_callback: result 0 of the callback has shape \(4,\)"):
        np.asarray(wrong_shape(jnp.ones(3)))
    wrong_kind = jaxc.jit(lambda x: io_callback(lambda v: np.ones(3, np.float32),
                                                jaxc.ShapeDtypeStruct((3,), np.int32), x))
    with pytest.raises(jaxc.JaxcRuntimeError, match="has dtype float32, expected int32"):
        np.asarray(wrong_kind(jnp.ones(3)))
    with pytest.raises(TypeError, match="io_callback: the callback returned"):
        io_callback(lambda v: (v, v), jaxc.ShapeDtypeStruct((3,), np.float32), jnp.ones(3))
    with pytest.raises(TypeError, match="io_callback: the callback returned"):
        io_callback(lambda v: v, None, jnp.ones(3))   # None: the callback must return None


def test_an_exception_in_the_callback_surfaces_at_the_next_sync() -> None:
    def boom(x):
        raise OSError("disk full")
    y = jaxc.jit(lambda x: io_callback(boom, F32, x))(1.0)
    with pytest.raises(jaxc.JaxcRuntimeError, match="OSError: disk full"):
        np.asarray(y)
    with pytest.raises(OSError, match="disk full"):
        io_callback(boom, F32, 1.0)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="io_callback: expected a callable"):
        io_callback(3, F32, 1.0)
    with pytest.raises(ValueError, match="cannot specify 64-bit types when `jax_enable_x64` is disabled"):
        io_callback(lambda v: v, jaxc.ShapeDtypeStruct((), np.float64), 1.0)
    with pytest.raises(TypeError, match="sharding must be a jax.sharding.Sharding"):
        io_callback(lambda v: v, F32, 1.0, sharding="cpu")
    with pytest.raises(TypeError, match="must have .shape and .dtype"):
        io_callback(lambda v: v, 3, 1.0)
    single = jaxc.sharding.SingleDeviceSharding(jaxc.devices()[0])
    assert float(jaxc.jit(lambda x: io_callback(lambda v: v, F32, x, sharding=single))(2.0)) == 2.0


def test_64_bit_results_with_x64(x64) -> None:
    out = jaxc.jit(lambda x: io_callback(lambda v: np.asarray(v) * 2, jaxc.ShapeDtypeStruct((), np.float64), x))(
        np.float64(1.25))
    assert out.dtype == np.float64 and float(out) == 2.5


# --- against JAX ------------------------------------------------------------------------------

def test_values_and_call_counts_match_jax() -> None:
    jax = pytest.importorskip("jax")
    from jax.experimental import io_callback as jax_io_callback
    xs = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)

    def program(api, call, log):
        shape = api.ShapeDtypeStruct((3,), np.float32)

        def f(x):
            call(log, shape, x)           # its result unused
            return call(lambda v: np.tanh(np.asarray(v)), shape, x) + 1
        return np.asarray(api.jit(api.vmap(f))(xs)), np.asarray(f(xs[0]))

    ours_log, theirs_log = Recorder(), Recorder()
    ours = program(jaxc, io_callback, ours_log)
    theirs = program(jax, jax_io_callback, theirs_log)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert ours_log.calls == theirs_log.calls
