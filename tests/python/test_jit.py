"""jit: tracing, the cache keyed by avals and static arguments, pytrees in
and out, lowering to every stage, make_ir and source locations."""
from __future__ import annotations

import collections
import inspect
import re

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax, tree_util
from jaxc.runtime import cpu as runtime_cpu


def x32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1


def test_decorator_and_call_forms_agree_with_eager() -> None:
    def f(a, b):
        return jnp.sin(a) * b + 1.0

    x = x32(3)
    eager = f(jnp.asarray(x), jnp.asarray(x))
    for jitted in (jaxc.jit(f), jaxc.jit()(f), jaxc.jit(static_argnums=())(f)):
        np.testing.assert_allclose(np.asarray(jitted(x, x)), np.sin(x) * x + 1, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(jitted(x, x)), np.asarray(eager))


def test_second_call_with_same_avals_does_not_retrace() -> None:
    calls = []

    @jaxc.jit
    def f(a):
        calls.append(1)
        return a * 2

    f(x32(3))
    compiled_before = runtime_cpu.compile_count
    f(x32(3) + 5)              # same aval: no trace, no compile
    f(jnp.asarray(x32(3)))     # an Array of the same aval: same entry
    assert (f.trace_count, len(calls), f._cache_size()) == (1, 1, 1)
    assert runtime_cpu.compile_count == compiled_before
    f(x32(4))                  # new shape: retrace
    f(np.arange(3, dtype=np.int32))  # new dtype: retrace
    assert (f.trace_count, f._cache_size()) == (3, 3)


def test_weak_type_is_part_of_the_key() -> None:
    @jaxc.jit
    def f(a):
        return a + 1

    r1 = f(2.0)                       # weak float32 scalar
    r2 = f(np.float32(2.0))           # strong float32 scalar
    assert f.trace_count == 2
    assert r1.weak_type and not r2.weak_type
    assert float(r1) == float(r2) == 3.0


def test_static_argnums_and_argnames() -> None:
    @jaxc.jit
    def plain(x, n):
        return x * n

    def power(x, n):
        out = x
        for _ in range(n - 1):   # Python loop over a static int
            out = out * x
        return out

    by_num = jaxc.jit(power, static_argnums=1)
    by_name = jaxc.jit(power, static_argnames="n")
    x = x32(3)
    np.testing.assert_allclose(np.asarray(by_num(x, 3)), x ** 3)
    np.testing.assert_allclose(np.asarray(by_name(x, n=4)), x ** 4)
    np.testing.assert_allclose(np.asarray(by_name(x, 2)), x ** 2)  # the name also makes the position static
    by_num(x, 3)
    # One cache for both wrappers (the same static positions): n=3, n=4 by name, n=2.
    assert by_num.trace_count == by_name.trace_count == 3
    by_num(x, 5)
    assert by_num.trace_count == 4
    with pytest.raises(jaxc.errors.TracerIntegerConversionError):
        jaxc.jit(power)(x, 3)   # n traced: range() needs a concrete int (__index__, JAX's error type)
    assert float(plain(2.0, 3)) == 6.0


def test_unhashable_static_argument_is_an_error() -> None:
    f = jaxc.jit(lambda x, shape: x, static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported.*list"):
        f(x32(2), [1, 2])


def test_donate_argnums_is_accepted() -> None:
    f = jaxc.jit(lambda a, b: a + b, donate_argnums=(0,))
    a = jnp.asarray(x32(3))
    np.testing.assert_array_equal(np.asarray(f(a, a)), 2 * x32(3))
    np.testing.assert_array_equal(np.asarray(a), x32(3))  # donation is a no-op on the CPU


def test_jax_jit_options_are_accepted() -> None:
    """donate_argnames (checked like static_argnames), keep_unused, inline and
    empty compiler_options change no result; XLA compiler options, a device
    or a backend are refused by name."""
    f = jaxc.jit(lambda a, b: a + b, donate_argnames="b", keep_unused=True, inline=True, compiler_options={},
                 device=None, backend=None)
    np.testing.assert_array_equal(np.asarray(f(x32(3), x32(3))), 2 * x32(3))
    assert f.donate_argnums == (1,)
    unused = jaxc.jit(lambda a, b: a * 2, keep_unused=True)
    np.testing.assert_array_equal(np.asarray(unused(x32(2), x32(5))), 2 * x32(2))
    outer = jaxc.jit(lambda a: jaxc.jit(lambda v: v + 1, inline=True)(a) * 3)
    np.testing.assert_array_equal(np.asarray(outer(x32(2))), (x32(2) + 1) * 3)
    with pytest.raises(ValueError, match=r"invalid argnames \{'c'\} in donate_argnames"):
        jaxc.jit(lambda a, b: a, donate_argnames="c")
    with pytest.raises(ValueError, match="none of XLA's compiler options"):
        jaxc.jit(lambda a: a, compiler_options={"xla_cpu_enable_fast_math": True})
    with pytest.raises(TypeError, match="unsupported options: device"):
        jaxc.jit(lambda a: a, device=jaxc.devices()[0])


Point = collections.namedtuple("Point", ["x", "y"])


@tree_util.register_pytree_node_class
class Box:
    def __init__(self, value, label):
        self.value = value
        self.label = label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)


def test_pytrees_in_and_out() -> None:
    @jaxc.jit
    def f(params, batch):
        w, b = params["w"], params["b"]
        out = {"sum": w * batch.x + b, "pair": (batch.y, None), "list": [w]}
        return out, Box(batch.x * 2, "doubled")

    params = {"w": x32(3), "b": np.float32(1)}
    out, box = f(params, Point(x32(3), np.int32(7)))
    assert set(out) == {"sum", "pair", "list"}
    np.testing.assert_allclose(np.asarray(out["sum"]), x32(3) ** 2 + 1)
    assert out["pair"][1] is None and int(out["pair"][0]) == 7
    assert isinstance(box, Box) and box.label == "doubled"
    np.testing.assert_array_equal(np.asarray(box.value), 2 * x32(3))
    f(params, Point(x32(3), np.int32(8)))
    assert f.trace_count == 1
    f({"w": x32(3), "b": np.float32(1), "extra": 1.0}, Point(x32(3), np.int32(8)))
    assert f.trace_count == 2  # a different tree structure retraces


def test_keyword_arguments_are_dynamic() -> None:
    f = jaxc.jit(lambda a, *, scale: a * scale)
    np.testing.assert_allclose(np.asarray(f(x32(2), scale=3.0)), 3 * x32(2))
    f(x32(2), scale=4.0)
    assert f.trace_count == 1


def test_closure_over_concrete_array_becomes_an_argument() -> None:
    table = jnp.asarray(x32(4) * 10)
    f = jaxc.jit(lambda a: a + table)
    ir_text = f.lower(x32(4)).as_text()
    signature = re.search(r"func\.func @\w+\(([^)]*)\)", ir_text).group(1)
    assert signature.count("tensor<4xf32>") == 2  # the closed-over array is passed, not embedded
    np.testing.assert_allclose(np.asarray(f(x32(4))), x32(4) * 11)


def test_nested_jit_is_inlined() -> None:
    inner = jaxc.jit(lambda a: jnp.exp(a))
    outer = jaxc.jit(lambda a: inner(a) + 1)
    text = outer.lower(x32(2)).as_text()
    assert text.count("func.func") == 1 and "jaxc.exp" in text
    np.testing.assert_allclose(np.asarray(outer(x32(2))), np.exp(x32(2)) + 1, rtol=1e-6)


def test_python_scalars_and_constants_in_outputs() -> None:
    f = jaxc.jit(lambda a: (a, 1.5, np.int32(3)))
    a, b, c = f(x32(2))
    assert isinstance(b, jaxc.Array) and float(b) == 1.5 and b.weak_type
    assert c.dtype == np.int32 and int(c) == 3


def test_lower_shows_every_stage_and_compiles() -> None:
    from jaxc.passes.stages import CPU_STAGES

    def f(a):
        return jnp.tanh(a) * 2

    lowered = jaxc.jit(f).lower(x32(2, 2))
    expected_marker = {"traced": "jaxc.tanh", "transformed": "jaxc.tanh", "optimized": "jaxc.tanh",
                       "linalg": "linalg.generic", "annotated": "linalg.generic", "propagated": "linalg.generic",
                       "partitioned": "linalg.generic", "scheduled": "linalg.generic",
                       "bufferized": "memref",
                       "loops": "scf.for",
                       "llvm": "llvm.func", "llvmir": "define", "asm": "ret"}
    assert set(expected_marker) == {s.name for s in CPU_STAGES}
    for stage, marker in expected_marker.items():
        assert marker in lowered.as_text(stage=stage), stage
    with pytest.raises(ValueError, match="unknown stage 'nope'"):
        lowered.as_text(stage="nope")
    compiled = lowered.compile()
    np.testing.assert_allclose(np.asarray(compiled(x32(2, 2))), np.tanh(x32(2, 2)) * 2, rtol=1e-6)
    with pytest.raises(TypeError, match=r"Argument 'args\[0\]' compiled with float32\[2,2\] and called "
                                        r"with float32\[3\]"):
        compiled(x32(3))
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled(x32(2, 2), x32(2, 2))


def test_compiled_takes_the_dynamic_arguments_only():
    """As JAX's: the static arguments of `lower` are part of the program."""
    f = jaxc.jit(lambda a, n, b=None: a * n + b, static_argnums=(1,))
    a, b = x32(3), x32(3) + 1
    compiled = f.lower(a, 4, b=b).compile()
    np.testing.assert_allclose(np.asarray(compiled(a * 2, b=b)), a * 8 + b, rtol=1e-6)
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled(a, 4, b=b)
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled(a, b)  # b given by position: another tree
    with pytest.raises(TypeError, match=r"Argument 'kwargs\['b'\]' compiled with float32\[3\] and called "
                                        r"with int32\[3\]"):
        compiled(a, b=np.ones(3, np.int32))


def test_make_ir_prints_the_traced_function_with_source_lines() -> None:
    def f(a, b):
        c = jnp.sin(a)
        return c * b

    ir = jaxc.make_ir(f)(x32(3), x32(3))
    text = str(ir)
    assert re.search(r"func\.func @jit_f\(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>\) -> tensor<3xf32>", text)
    assert "jaxc.sin %arg0 : tensor<3xf32>" in text and "jaxc.mul" in text
    sin_line = inspect.getsourcelines(f)[1] + 1
    located = ir.as_text(debug_info=True)
    assert f'loc("{__file__}":{sin_line}:' in located
    assert f'loc("{__file__}":{sin_line + 1}:' in located


def test_make_ir_of_a_lax_primitive() -> None:
    text = str(jaxc.make_ir(lambda a: lax.reduce_max(a, (1,)))(x32(2, 3)))
    assert "jaxc.reduce max" in text or "jaxc.reduce" in text
    assert "-> tensor<2xf32>" in text


def test_jit_of_a_method_needs_self_static() -> None:
    import functools

    class Model:
        def __init__(self, w):
            self.w = w

        @functools.partial(jaxc.jit, static_argnums=0)
        def apply(self, x):
            return x * self.w

        @jaxc.jit
        def broken(self, x):
            return x

    np.testing.assert_array_equal(np.asarray(Model(3).apply(x32(2))), 3 * x32(2))
    with pytest.raises(TypeError, match="jit\\(broken\\): argument of type Model is not a valid jaxc type"):
        Model(1).broken(x32(2))


def test_x64_flag_is_part_of_the_key() -> None:
    f = jaxc.jit(lambda a: a * 2)
    assert f(1.0).dtype == np.float32
    jaxc.config.update("jax_enable_x64", True)
    try:
        assert f(1.0).dtype == np.float64
        assert f(np.float64(1.0)).dtype == np.float64
    finally:
        jaxc.config.update("jax_enable_x64", False)
    assert f.trace_count == 3


def test_the_same_value_returned_twice() -> None:
    """`return %y, %y` used to crash buffer-results-to-out-params (see
    docs/toolchain.md); jaxc-distinct-results gives each its own buffer."""
    x = x32(3)
    a, b, c = jaxc.jit(lambda v: (v * 2, v * 2, v))(x)
    np.testing.assert_array_equal(np.asarray(a), 2 * x)
    np.testing.assert_array_equal(np.asarray(b), 2 * x)
    np.testing.assert_array_equal(np.asarray(c), x)
    empty = jaxc.jit(lambda v: (lax.slice(v, (1,), (1,)), lax.slice(v, (2,), (2,))))(x)
    assert [e.shape for e in empty] == [(0,), (0,)]
    p, q = jaxc.jit(lambda v: (v, v))(x)
    np.testing.assert_array_equal(np.asarray(q), x)


def test_lower_compile_warms_the_jit_cache() -> None:
    """`jit(f).lower(x).compile()` then `jit(f)(x)`: one trace, one compilation (as in JAX)."""
    from jaxc.runtime import cpu

    f = jaxc.jit(lambda a: jnp.sin(a) * 3)
    x = x32(3, 5)
    compiled = f.lower(x).compile()
    before = cpu.compile_count
    np.testing.assert_allclose(np.asarray(f(x)), np.sin(x) * 3, rtol=1e-6)
    assert cpu.compile_count == before and f.trace_count == 1
    assert f.lower(x).compile() is compiled


# --- one trace cache per function (JAX's), clear_caches, disable_jit ---------------

def test_jit_wrappers_of_one_function_share_its_traces() -> None:
    calls = []

    def f(x):
        calls.append(1)
        return x * 2.0
    assert float(jaxc.jit(f)(4.0)) == 8.0
    assert float(jaxc.jit(f)(5.0)) == 10.0           # a new wrapper: no new trace
    for i in range(3):
        assert float(jaxc.jit(f)(float(i))) == 2.0 * i  # jit inside a loop
    assert len(calls) == 1 and jaxc.jit(f).trace_count == 1
    jaxc.jit(f)(np.ones(3, np.float32))              # a new signature traces
    assert len(calls) == 2 and jaxc.jit(f)._cache_size() == 2


def test_jit_cache_is_per_function_and_options() -> None:
    calls = []

    def f(x, n):
        calls.append(n)
        return x * n
    jaxc.jit(f, static_argnums=1)(1.0, 2)
    jaxc.jit(f, static_argnames="n")(1.0, 2)          # the same static position: shared
    assert calls == [2]
    jaxc.jit(f)(1.0, 2)                               # n traced: other options, another trace
    assert len(calls) == 2
    g = lambda x: x + 1.0                             # noqa: E731
    h = lambda x: x + 1.0                             # noqa: E731 (an equal but distinct function)
    jaxc.jit(g)(1.0)
    assert jaxc.jit(h).trace_count == 0 and jaxc.jit(g).trace_count == 1


def test_shared_traces_go_with_their_function() -> None:
    import gc
    import weakref

    from jaxc import api

    def f(x):
        return x - 1.0
    jaxc.jit(f)(3.0)
    ref = weakref.ref(f)
    assert f in api._SHARED_TRACES
    del f
    gc.collect()
    assert ref() is None  # the cache kept neither the function nor its wrappers alive


def test_clear_caches_retraces_everything() -> None:
    calls = []

    def f(x):
        calls.append(1)
        return x + 1.0
    jitted = jaxc.jit(f)
    x = jnp.asarray(x32(3))
    jitted(x), jitted(x)                              # the second call takes the C fast path
    assert len(calls) == 1
    np.testing.assert_allclose(np.asarray(jnp.sin(x)), np.sin(x32(3)), rtol=1e-6)  # an eager kernel
    assert jaxc.dispatch.kernel_cache_info()["kernels"] > 0
    jaxc.clear_caches()
    assert jaxc.dispatch.kernel_cache_info()["kernels"] == 0  # eager kernels go too, as in JAX
    np.testing.assert_allclose(np.asarray(jitted(x)), x32(3) + 1)
    assert len(calls) == 2 and jitted._cache_size() == 1
    np.testing.assert_allclose(np.asarray(jnp.sin(x)), np.sin(x32(3)), rtol=1e-6)


def test_disable_jit_runs_python_op_by_op() -> None:
    seen = []

    @jaxc.jit
    def f(x):
        seen.append(type(x).__name__)
        return jnp.sin(x) + float(x.sum() > 0)      # float() of a traced value needs disable_jit
    x = jnp.asarray(x32(3))
    with pytest.raises(jaxc.ConcretizationTypeError):
        f(x)
    with jaxc.disable_jit():
        assert jaxc.config.jax_disable_jit
        out = f(x)
        assert float(jaxc.grad(lambda v: jnp.sin(v).sum())(2.0)) == pytest.approx(np.cos(2.0))
        assert float(jaxc.lax.cond(True, lambda v: v + 1, lambda v: v, 1.0)) == 2.0
    assert not jaxc.config.jax_disable_jit
    assert seen[-1] == "Array"                        # concrete arrays, no tracer
    np.testing.assert_allclose(np.asarray(out), np.sin(x32(3)) + 1.0, rtol=1e-6)


def test_disable_jit_applies_to_signatures_already_on_the_fast_path() -> None:
    seen = []

    @jaxc.jit
    def f(x):
        seen.append(type(x).__name__)
        return x * 3.0
    x = jnp.asarray(x32(3))
    f(x), f(x)
    with jaxc.disable_jit():
        np.testing.assert_allclose(np.asarray(f(x)), 3 * x32(3))
    assert seen == ["Tracer", "Array"]
