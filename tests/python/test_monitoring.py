"""jaxc.monitoring: JAX's listener API, and the events jaxc records with
JAX's names (a trace and a compile of each jit function and eager kernel,
the persistent cache's requests, hits, misses and times)."""
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import monitoring
from jaxc.runtime import compile_cache, cpu

JAX_NAMES = ["clear_event_listeners", "record_event", "record_event_duration_secs", "record_event_time_span",
             "record_scalar", "register_event_duration_secs_listener", "register_event_listener",
             "register_event_time_span_listener", "register_scalar_listener", "unregister_event_duration_listener",
             "unregister_event_listener", "unregister_event_time_span_listener", "unregister_scalar_listener"]


@pytest.fixture
def recorded():
    """Every event of every kind recorded while the test runs, in order."""
    events = []
    listeners = [
        (monitoring.register_event_listener, monitoring.unregister_event_listener,
         lambda event, **kw: events.append(("event", event, kw))),
        (monitoring.register_event_duration_secs_listener, monitoring.unregister_event_duration_listener,
         lambda event, seconds, **kw: events.append(("duration", event, kw, seconds))),
        (monitoring.register_event_time_span_listener, monitoring.unregister_event_time_span_listener,
         lambda event, start, end, **kw: events.append(("span", event, kw, start, end))),
        (monitoring.register_scalar_listener, monitoring.unregister_scalar_listener,
         lambda event, value, **kw: events.append(("scalar", event, kw, value))),
    ]
    for register, _, callback in listeners:
        register(callback)
    yield events
    for _, unregister, callback in listeners:
        unregister(callback)


def test_the_namespace_has_jax_names():
    assert all(callable(getattr(jaxc.monitoring, name)) for name in JAX_NAMES)


def test_listeners_get_what_is_recorded(recorded):
    monitoring.record_event("/my/event", step=3)
    monitoring.record_event_duration_secs("/my/duration", 0.25, kind="x")
    monitoring.record_event_time_span("/my/span", 1.0, 2.5)
    monitoring.record_scalar("/my/scalar", 7)
    assert recorded == [("event", "/my/event", {"step": 3}), ("duration", "/my/duration", {"kind": "x"}, 0.25),
                        ("span", "/my/span", {}, 1.0, 2.5), ("scalar", "/my/scalar", {}, 7)]


def test_unregistered_listeners_stop_and_unknown_ones_are_an_error():
    seen = []

    def listener(event, **kw):
        seen.append(event)
    monitoring.register_event_listener(listener)
    monitoring.record_event("/a")
    monitoring.unregister_event_listener(listener)
    monitoring.record_event("/b")
    assert seen == ["/a"]
    with pytest.raises(AssertionError):
        monitoring.unregister_event_listener(listener)


def test_jit_records_a_trace_and_a_compile(recorded):
    def double_it(x):
        return x * 2

    f = jaxc.jit(double_it)
    f(jnp.ones(5))
    durations = [(e[1], e[2]) for e in recorded if e[0] == "duration"]
    assert durations == [(monitoring.TRACE_EVENT, {"fun_name": "double_it"}),
                         (monitoring.BACKEND_COMPILE_EVENT, {"fun_name": "jit(double_it)"})]
    for kind, event, kw, *times in recorded:
        if kind == "duration":
            assert 0 <= times[0] < 60
        if kind == "span":
            assert times[0] <= times[1]
    assert [e[1] for e in recorded if e[0] == "scalar"] == [monitoring.TRACE_EVENT, monitoring.BACKEND_COMPILE_EVENT]
    recorded.clear()
    f(jnp.ones(5))  # cached: nothing to record
    assert recorded == []


def test_an_eager_kernel_records_its_compile(recorded):
    jnp.cbrt(jnp.full((3, 7, 2), 8.0))  # a shape no other test compiles a cbrt for
    names = [(e[1], e[2]["fun_name"]) for e in recorded if e[0] == "duration"]
    assert (monitoring.BACKEND_COMPILE_EVENT, "jit(cbrt)") in names
    assert (monitoring.TRACE_EVENT, "cbrt") in names


def test_a_failed_compile_still_records_its_duration(recorded):
    with pytest.raises(Exception):
        cpu.compile_module("func.func @f() { this is not IR }")
    # a module that does not parse fails before the compile event; the trace event of a
    # jit whose function raises is recorded as JAX records it (on exit)
    with pytest.raises(ZeroDivisionError):
        jaxc.jit(lambda x: 1 / 0)(1.0)
    assert [(e[1], e[2]) for e in recorded if e[0] == "duration"] == [
        (monitoring.TRACE_EVENT, {"fun_name": "<lambda>"})]


@pytest.fixture
def cache_dir(tmp_path):
    saved = {name: jaxc.config.read(name) for name in
             ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs")}
    jaxc.config.update("jax_compilation_cache_dir", str(tmp_path))
    jaxc.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    yield
    compile_cache.wait()
    for name, value in saved.items():
        jaxc.config.update(name, value)


MODULE = """
func.func @f(%a: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = jaxc.mul %a, %a : tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}
"""


def test_the_persistent_cache_records_jax_events(cache_dir, recorded):
    text = MODULE.format(n=np.random.default_rng().integers(10**6, 10**7))  # never compiled before

    def compile_fresh():
        for key in [key for key in cpu._CACHE if key[0] == text]:
            del cpu._CACHE[key]
        executable = cpu.compile_module(text)
        compile_cache.wait()
        return executable

    compile_fresh()
    events = [e[1] for e in recorded if e[0] == "event"]
    assert events == [monitoring.CACHE_EVENTS["requests"], monitoring.CACHE_EVENTS["misses"]]
    recorded.clear()
    compile_fresh()
    events = [e[1] for e in recorded if e[0] == "event"]
    assert events == [monitoring.CACHE_EVENTS["requests"], monitoring.CACHE_EVENTS["hits"]]
    durations = {e[1]: e[3] for e in recorded if e[0] == "duration"}
    assert set(durations) == {monitoring.CACHE_EVENTS["retrieval"], monitoring.CACHE_EVENTS["saved"]}
    assert durations[monitoring.CACHE_EVENTS["retrieval"]] >= 0


def test_without_the_cache_no_cache_events(recorded):
    assert jaxc.config.jax_compilation_cache_dir is None
    jaxc.jit(lambda x: x - 3)(jnp.ones(4))
    assert not any(e[1].startswith("/jax/compilation_cache") for e in recorded)
