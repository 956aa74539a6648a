"""Host callbacks (issue #18 item 5, #21): jax.debug.print, jax.debug.callback
and jax.pure_callback, eagerly and from compiled code (jit, scan, while,
cond, vmap, grad), checked against NumPy and Python loops."""
from __future__ import annotations

import os

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.runtime import CompileError, compile_cache, compile_module


def printed(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


# --- debug.print ---------------------------------------------------------------------

def test_print_under_jit_shows_each_runs_values(capsys) -> None:
    @jaxc.jit
    def f(x):
        jaxc.debug.print("x = {x}, sum = {}", x.sum(), x=x)
        y = x * 2
        jaxc.debug.print("y[0] = {:.2f}", y[0])
        return y
    jaxc.block_until_ready(f(jnp.arange(3.0)))
    jaxc.block_until_ready(f(jnp.arange(3.0) + 1))   # the C fast path must not skip it
    assert printed(capsys) == ["x = [0. 1. 2.], sum = 3.0", "y[0] = 0.00",
                               "x = [1. 2. 3.], sum = 6.0", "y[0] = 2.00"]


def test_print_outside_jit_prints_at_once(capsys) -> None:
    jaxc.debug.print("{} and {name}", jnp.ones(2, jnp.int32), name=3)
    assert printed(capsys) == ["[1 1] and 3"]


def test_print_in_loops_follows_program_order(capsys) -> None:
    def body(carry, x):
        jaxc.debug.print("scan {} {}", carry, x)
        return carry + x, carry

    def while_body(i):
        jaxc.debug.print("while {}", i)
        return i + 1

    @jaxc.jit
    def f(xs):
        total, _ = lax.scan(body, 0, xs)
        lax.while_loop(lambda i: i < 2, while_body, 0)
        lax.cond(total > 2, lambda t: jaxc.debug.print("big {}", t), lambda t: jaxc.debug.print("small {}", t),
                 total)
        return total
    assert int(f(jnp.arange(3))) == 3
    expected, carry = [], 0
    for x in range(3):            # the Python reference
        expected.append(f"scan {carry} {x}")
        carry += x
    expected += ["while 0", "while 1", "big 3"]
    assert printed(capsys) == expected


def test_print_under_vmap_runs_once_per_lane(capsys) -> None:
    xs = jnp.arange(6.0).reshape(2, 3)
    jaxc.vmap(lambda x, s: jaxc.debug.print("{} {}", x, s), in_axes=(0, None))(xs, 7.0)
    jaxc.jit(jaxc.vmap(jaxc.vmap(lambda x: jaxc.debug.print("n={}", x))))(xs)
    out = printed(capsys)
    assert out[:2] == ["[0. 1. 2.] 7.0", "[3. 4. 5.] 7.0"]
    # JAX's order: the inner vmap's index slowest
    assert out[2:] == [f"n={float(v)}" for v in (0, 3, 1, 4, 2, 5)]


def test_print_under_grad_shows_primals(capsys) -> None:
    def f(x):
        jaxc.debug.print("primal {}", x)
        return x * x
    assert float(jaxc.grad(f)(3.0)) == 6.0
    assert float(jaxc.jit(jaxc.grad(f))(4.0)) == 8.0
    assert float(jaxc.jacfwd(f)(5.0)) == 10.0
    assert printed(capsys) == ["primal 3.0", "primal 4.0", "primal 5.0"]


# --- debug.callback ---------------------------------------------------------------------

def test_callback_gets_arrays_pytrees_and_keywords() -> None:
    seen = []

    def record(tree, *, scale):
        seen.append((type(tree["a"]).__name__, np.asarray(tree["a"]), np.asarray(tree["b"][0]), float(scale)))

    @jaxc.jit
    def f(x):
        jaxc.debug.callback(record, {"a": x, "b": (x.astype(jnp.int32) + 1,)}, scale=x.sum())
        return x
    f(jnp.array([1.5, 2.5])).block_until_ready()
    kind, a, b, scale = seen[0]
    assert kind == "Array" and scale == 4.0
    np.testing.assert_array_equal(a, [1.5, 2.5])
    np.testing.assert_array_equal(b, [2, 3])


def test_an_exception_in_a_callback_surfaces_at_the_next_sync() -> None:
    def boom(x):
        raise ValueError("boom from the callback")
    y = jaxc.jit(lambda x: (jaxc.debug.callback(boom, x), x + 1)[1])(jnp.ones(2))
    with pytest.raises(jaxc.JaxcRuntimeError, match="ValueError: boom from the callback"):
        np.asarray(y)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="debug.callback: expected a callable"):
        jaxc.debug.callback(3, jnp.ones(2))
    with pytest.raises(TypeError, match="debug.print: the format must be a str"):
        jaxc.debug.print(jnp.ones(2))
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        jaxc.pure_callback(np.sin, jaxc.ShapeDtypeStruct((2,), np.float32), jnp.ones(2),
                           vmap_method="parallel")


# --- pure_callback -------------------------------------------------------------------------

def host_sin(x):
    return np.sin(np.asarray(x))


@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_values(jit: bool) -> None:
    x = np.linspace(-2, 2, 7).astype(np.float32)

    def f(v):
        y = jaxc.pure_callback(host_sin, jaxc.ShapeDtypeStruct(v.shape, v.dtype), v)
        return y * 2 + 1
    fn = jaxc.jit(f) if jit else f
    np.testing.assert_allclose(np.asarray(fn(x)), np.sin(x) * 2 + 1, rtol=1e-6)


CALLBACK_COMPUTES_WITH_JAXC = """
import numpy as np, jaxc, jaxc.numpy as jnp
def host(x):
    return np.asarray(jnp.sin(jnp.asarray(x)) + 1)   # jaxc inside the callback
f = jaxc.jit(lambda x: jaxc.pure_callback(host, jaxc.ShapeDtypeStruct(x.shape, x.dtype), x * 2) + 1)
for shape in [(8, 8), (256, 256)]:   # run where called / on the executor or by its waiter
    x = np.ones(shape, np.float32)
    waited = [np.asarray(f(x)) for _ in range(3)]
    queued = [f(x) for _ in range(3)]
    for y in waited + [np.asarray(q) for q in queued]:
        np.testing.assert_allclose(y, np.full(shape, np.sin(2.0) + 2), rtol=1e-6)
print("done")
"""


def test_a_callback_may_compute_with_jaxc() -> None:
    """A host callback that calls jaxc ops runs their programs at once, on
    its own thread: queued on the device's executor they waited for the task
    that was waiting for them (a deadlock, for programs of 16384 elements or
    more). In a subprocess: a deadlock would hang this worker's executor."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", CALLBACK_COMPUTES_WITH_JAXC], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]


def test_pure_callback_pytrees_and_dtypes() -> None:
    def host(x, n):
        x = np.asarray(x)
        return {"big": x > 1, "count": (np.asarray(n) + np.arange(3, dtype=np.uint32),)}
    shapes = {"big": jaxc.ShapeDtypeStruct((3,), np.bool_),
              "count": (jaxc.ShapeDtypeStruct((3,), np.uint32),)}
    out = jaxc.jit(lambda x, n: jaxc.pure_callback(host, shapes, x, n))(jnp.arange(3.0), jnp.uint32(5))
    np.testing.assert_array_equal(np.asarray(out["big"]), [False, False, True])
    np.testing.assert_array_equal(np.asarray(out["count"][0]), np.array([5, 6, 7], np.uint32))
    assert out["count"][0].dtype == np.uint32


def test_pure_callback_under_vmap_is_sequential() -> None:
    calls = []

    def host(x):
        calls.append(np.asarray(x).shape)
        return np.asarray(x) * 10

    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = jaxc.jit(jaxc.vmap(lambda x: jaxc.pure_callback(host, jaxc.ShapeDtypeStruct((2,), np.float32), x)))(xs)
    np.testing.assert_array_equal(np.asarray(out), xs * 10)
    assert calls == [(2,)] * 3   # one call per lane, each with an unbatched value


def test_pure_callback_result_errors() -> None:
    wrong_shape = jaxc.jit(lambda x: jaxc.pure_callback(lambda v: np.ones(4, np.float32),
                                                        jaxc.ShapeDtypeStruct((3,), np.float32), x))
    with pytest.raises(jaxc.JaxcRuntimeError, match=r"result 0 of the callback has shape \(4,\), expected \(3,\)"):
        np.asarray(wrong_shape(jnp.ones(3)))
    wrong_kind = jaxc.jit(lambda x: jaxc.pure_callback(lambda v: np.ones(3, np.float32),
                                                       jaxc.ShapeDtypeStruct((3,), np.int32), x))
    with pytest.raises(jaxc.JaxcRuntimeError, match="has dtype float32, expected int32"):
        np.asarray(wrong_kind(jnp.ones(3)))
    with pytest.raises(TypeError, match="the callback returned"):
        jaxc.pure_callback(lambda v: (v, v), jaxc.ShapeDtypeStruct((3,), np.float32), jnp.ones(3))


def test_pure_callback_has_no_derivative() -> None:
    f = lambda x: jaxc.pure_callback(host_sin, jaxc.ShapeDtypeStruct((), np.float32), x)  # noqa: E731
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):   # JAX's class
        jaxc.grad(f)(1.0)
    # only the arguments grad is given are differentiated: a callback on another one needs no rule
    h = lambda x, y: f(y) * x  # noqa: E731
    assert float(jaxc.grad(h)(2.0, 0.5)) == pytest.approx(np.sin(0.5), rel=1e-6)
    assert float(jaxc.jit(jaxc.grad(h))(2.0, 0.5)) == pytest.approx(np.sin(0.5), rel=1e-6)
    assert float(jaxc.jacfwd(h)(2.0, 0.5)) == pytest.approx(np.sin(0.5), rel=1e-6)
    np.testing.assert_allclose(jaxc.vmap(jaxc.grad(h))(jnp.ones(3), jnp.arange(3.0)), np.sin(np.arange(3.0)),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jaxc.grad(h, argnums=1)(2.0, 0.5)

    @jaxc.custom_jvp
    def g(x):
        return jaxc.pure_callback(host_sin, jaxc.ShapeDtypeStruct((), np.float32), x)
    g.defjvp(lambda primals, tangents: (g(primals[0]), jnp.cos(primals[0]) * tangents[0]))
    assert float(jaxc.grad(g)(1.0)) == pytest.approx(np.cos(1.0), rel=1e-6)


# --- compilation -------------------------------------------------------------------------

def test_programs_with_callbacks_are_not_cached_on_disk(tmp_path) -> None:
    saved = (jaxc.config.jax_compilation_cache_dir, jaxc.config.jax_persistent_cache_min_compile_time_secs)
    jaxc.config.update("jax_compilation_cache_dir", str(tmp_path))
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    try:
        jaxc.jit(lambda x: jaxc.pure_callback(host_sin, jaxc.ShapeDtypeStruct((5,), np.float32), x))(
            np.ones(5, np.float32)).block_until_ready()
        compile_cache.wait()
        assert os.listdir(tmp_path) == []
    finally:
        jaxc.config.update("jax_compilation_cache_dir", saved[0])
        jaxc.config.update("jax_persistent_cache_min_compile_time_secs", saved[1])


def test_callbacks_are_refused_on_the_gpu() -> None:
    text = jaxc.jit(lambda x: (jaxc.debug.print("{}", x), x)[1]).lower(jnp.ones(2)).as_text()
    with pytest.raises(CompileError, match="host callbacks .* run only in programs for the CPU"):
        compile_module(text, target="cuda")


def test_a_module_from_elsewhere_names_an_unknown_callback() -> None:
    text = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      jaxc.callback 999999 (%x) : (tensor<2xf32>) -> ()
      return %x : tensor<2xf32>
    }"""
    with pytest.raises(RuntimeError, match="host callback 999999 is not registered in this process"):
        compile_module(text)["f"](np.ones(2, np.float32))


# --- JAX's print and log forms -------------------------------------------------------------

def test_print_forms_and_format_checks(capsys) -> None:
    @jaxc.jit
    def f(x):
        jaxc.debug.print(ordered=True)("two-call {}", x)       # the two-call form
        jaxc.debug.print("no placeholders:", x, x + 1, skip_format_check=True)   # joined after the text
        jaxc.debug.print("{name} {}", x, name="static")         # a non-array argument passes as is
        return x
    f(jnp.int32(4)).block_until_ready()
    assert printed(capsys) == ["two-call 4", "no placeholders: 4 5", "static 4"]
    with pytest.raises(ValueError, match="Unused keyword arguments to `jax.debug.print`: \\['y'\\]"):
        jaxc.debug.print("{x}", x=1, y=2)
    with pytest.raises(ValueError, match="Unused positional arguments"):
        jaxc.debug.print("{}", 1, 2)
    with pytest.raises(TypeError, match="two-call form"):
        jaxc.debug.print(None, 3)


def test_print_uses_the_printoptions_of_the_call(capsys) -> None:
    f = jaxc.jit(lambda x: (jaxc.debug.print("{}", x), x)[1])
    with np.printoptions(precision=2):
        f(jnp.array([1 / 3, 2 / 3])).block_until_ready()
    assert printed(capsys) == ["[0.33 0.67]"]


def test_log_goes_to_the_logger_with_the_users_line(caplog) -> None:
    import logging
    with caplog.at_level(logging.INFO, logger="jaxc.debug"):
        jaxc.jit(lambda x: (jaxc.debug.log("value {}", x), x)[1])(jnp.float32(2.5)).block_until_ready()
    (record,) = [r for r in caplog.records if r.name == "jaxc.debug"]
    assert record.getMessage() == "value 2.5" and record.levelno == logging.INFO
    assert record.pathname.endswith("test_callbacks.py")


def test_callback_two_call_form_and_static_arguments() -> None:
    seen = []
    jaxc.jit(lambda x: jaxc.debug.callback(ordered=True)(lambda tag, v: seen.append((tag, float(v))), "tag", x))(
        jnp.float32(1.5))
    jaxc.effects_barrier()
    assert seen == [("tag", 1.5)]
