"""`jaxc.monitoring`: named events and the listeners they call, as
`jax.monitoring`.

    durations = []
    jaxc.monitoring.register_event_duration_secs_listener(
        lambda event, seconds, **kw: durations.append((event, seconds, kw)))
    jaxc.jit(f)(x)
    # [('/jax/core/compile/jaxpr_trace_duration', 0.004, {'fun_name': 'f'}),
    #  ('/jax/core/compile/backend_compile_duration', 0.061, {'fun_name': 'f'})]

jaxc records JAX's event names where it does the same work:

- `TRACE_EVENT` (duration, time span; a scalar with the start time when it
  begins) for each trace of a jit function, `fun_name` its name;
- `BACKEND_COMPILE_EVENT` (the same kinds) for each compile of a traced
  program (the stages and LLVM) or of an eager op's kernel (`fun_name` the
  op's name). jaxc has no step between the two: tracing makes the MLIR
  module, so JAX's `/jax/core/compile/jaxpr_to_mlir_module_duration` never
  occurs;
- the persistent compilation cache's events (`CACHE_EVENTS`): a compile
  that asks the cache, hits, misses, the retrieval time and the compile
  time a hit saved.

Listeners run on the thread that records the event, in registration order.
"""
from __future__ import annotations

import time
from typing import Any, Callable

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_EVENTS = {
    "requests": "/jax/compilation_cache/compile_requests_use_cache",
    "hits": "/jax/compilation_cache/cache_hits",
    "misses": "/jax/compilation_cache/cache_misses",
    "retrieval": "/jax/compilation_cache/cache_retrieval_time_sec",
    "saved": "/jax/compilation_cache/compile_time_saved_sec",
}

_event_listeners: list[Callable[..., Any]] = []
_event_duration_secs_listeners: list[Callable[..., Any]] = []
_event_time_span_listeners: list[Callable[..., Any]] = []
_scalar_listeners: list[Callable[..., Any]] = []


def record_event(event: str, **kwargs: str | int) -> None:
    """Call every event listener with `event` and `kwargs`."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
    """Call every duration listener with `event`, `duration` (seconds) and `kwargs`."""
    for callback in list(_event_duration_secs_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float, **kwargs: str | int) -> None:
    """Call every time-span listener with `event` and its start and end (seconds, `time.time()`)."""
    for callback in list(_event_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
    """Call every scalar listener with `event`, `value` and `kwargs`."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback: Callable[..., Any]) -> None:
    """`callback(event, **kwargs)` at every `record_event`."""
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable[..., Any]) -> None:
    """`callback(event, duration, **kwargs)` at every `record_event_duration_secs`."""
    _event_duration_secs_listeners.append(callback)


def register_event_time_span_listener(callback: Callable[..., Any]) -> None:
    """`callback(event, start_time, end_time, **kwargs)` at every `record_event_time_span`."""
    _event_time_span_listeners.append(callback)


def register_scalar_listener(callback: Callable[..., Any]) -> None:
    """`callback(event, value, **kwargs)` at every `record_scalar`."""
    _scalar_listeners.append(callback)


def _unregister(listeners: list[Callable[..., Any]], callback: Callable[..., Any]) -> None:
    assert callback in listeners  # JAX's check: unregistering an unknown callback is a bug
    listeners.remove(callback)


def unregister_event_listener(callback: Callable[..., Any]) -> None:
    _unregister(_event_listeners, callback)


def unregister_event_duration_listener(callback: Callable[..., Any]) -> None:
    _unregister(_event_duration_secs_listeners, callback)


def unregister_event_time_span_listener(callback: Callable[..., Any]) -> None:
    _unregister(_event_time_span_listeners, callback)


def unregister_scalar_listener(callback: Callable[..., Any]) -> None:
    _unregister(_scalar_listeners, callback)


def clear_event_listeners() -> None:
    """Remove every listener of every kind."""
    for listeners in (_event_listeners, _event_duration_secs_listeners, _event_time_span_listeners,
                      _scalar_listeners):
        listeners.clear()


class timed:
    """``with timed(TRACE_EVENT, fun_name="f"):`` records the block as JAX
    records a compile step: a scalar (the start time) on entry, then its
    duration and time span on exit (also when it raised, as JAX's)."""

    def __init__(self, event: str, **kwargs: str | int) -> None:
        self.event, self.kwargs = event, kwargs

    def __enter__(self) -> "timed":
        self.start = time.time()
        if _scalar_listeners:
            record_scalar(self.event, self.start, **self.kwargs)
        return self

    def __exit__(self, *_: Any) -> None:
        if not (_event_duration_secs_listeners or _event_time_span_listeners):
            return
        end = time.time()
        record_event_duration_secs(self.event, end - self.start, **self.kwargs)
        record_event_time_span(self.event, self.start, end, **self.kwargs)


__all__ = ["record_event", "record_event_duration_secs", "record_event_time_span", "record_scalar",
           "register_event_listener", "register_event_duration_secs_listener",
           "register_event_time_span_listener", "register_scalar_listener", "unregister_event_listener",
           "unregister_event_duration_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener", "clear_event_listeners"]
