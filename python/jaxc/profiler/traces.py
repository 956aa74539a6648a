"""Traces: `start_trace`/`stop_trace`/`trace`, the annotations, and the
events jaxc records while a trace runs.

A trace is a list of timed events, written at `stop_trace` as a Chrome /
Perfetto JSON trace to ``<log_dir>/plugins/profile/<timestamp>/<host>.trace.json.gz``
(and ``perfetto_trace.json.gz`` beside it with ``create_perfetto_trace=True``).
jaxc records (category in brackets):

    trace jit(f)            [tracing]    Python tracing of a jit function
    stage linalg            [compile]    one stage of the pipeline, and under it
    Canonicalizer           [mlir-pass]  each pass (MLIR's pass timing)
    llvm compile            [compile]    LLVM code generation and JIT linking
    jit(f) / add            [execution]  a program run on the device executor
    transfer to device      [transfer]   device_put / jnp.asarray of host data
    transfer to host        [transfer]   np.asarray(x) and other reads of an Array
    <name>                  [annotation] TraceAnnotation / annotate_function
    <name>                  [step]       StepTraceAnnotation (args: step_num)

Instrumented code checks `SESSION` (None when no trace runs) and calls
`SESSION.record(...)`; hot paths pay one global read when no trace runs.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import gzip
import json
import os
import socket
import threading
import time
from typing import Any, Callable, Iterator

SESSION: "Session | None" = None
_LOCK = threading.Lock()


@dataclasses.dataclass
class ProfileOptions:
    """What a trace records (jax.profiler.ProfileOptions' fields).

    `host_tracer_level`: 0 records nothing on the host, 1 only annotations
    (TraceAnnotation, StepTraceAnnotation, annotate_function), 2 (default)
    also jaxc's own events (tracing, compiling, transfers), 3 the same.
    `device_tracer_level`: 0 drops the executions on the device executors.
    `python_tracer_level`: 1 also records every Python function call and
    return (``sys.setprofile``; slows the program down).
    `start_timestamp_ns` (``time.time_ns()`` clock) and `duration_ms` keep
    only events inside that window (0: no limit).
    """

    host_tracer_level: int = 2
    device_tracer_level: int = 1
    python_tracer_level: int = 0
    start_timestamp_ns: int = 0
    duration_ms: int = 0


# Which option level each event category needs: (option, minimum level).
_CATEGORY_LEVEL = {
    "annotation": ("host_tracer_level", 1),
    "step": ("host_tracer_level", 1),
    "tracing": ("host_tracer_level", 2),
    "compile": ("host_tracer_level", 2),
    "mlir-pass": ("host_tracer_level", 2),
    "transfer": ("host_tracer_level", 2),
    "execution": ("device_tracer_level", 1),
    "python": ("python_tracer_level", 1),
}


class Session:
    """A running trace: its events (appended from any thread) and where it goes."""

    def __init__(self, log_dir: str, perfetto: bool, options: ProfileOptions,
                 serve_link: bool = False) -> None:
        self.log_dir = log_dir
        self.perfetto = perfetto or serve_link
        self.serve_link = serve_link
        self.options = options
        self.start_ns = time.perf_counter_ns()
        self.wall_start_ns = time.time_ns()
        self.events: list[tuple] = []  # (name, category, start_ns, end_ns, tid, args)
        self.threads: dict[int, str] = {}
        self.enabled = {cat for cat, (option, level) in _CATEGORY_LEVEL.items()
                        if getattr(options, option) >= level}
        self.window = _window(options, self.start_ns, self.wall_start_ns)

    def record(self, name: str, category: str, start_ns: int, end_ns: int,
               args: dict | None = None) -> None:
        """One complete event on the calling thread (perf_counter_ns times)."""
        if category not in self.enabled:
            return
        if self.window is not None and not (self.window[0] <= start_ns and end_ns <= self.window[1]):
            return
        tid = threading.get_ident()
        if tid not in self.threads:
            self.threads[tid] = threading.current_thread().name
        self.events.append((name, category, start_ns, end_ns, tid, args))

    def chrome_trace(self) -> dict:
        """The events as a Chrome trace (times in microseconds since the start)."""
        pid = os.getpid()
        out: list[dict] = [{"ph": "M", "pid": pid, "name": "process_name",
                            "args": {"name": f"jaxc host ({socket.gethostname()})"}}]
        for tid, name in self.threads.items():
            out.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}})
        for name, category, start, end, tid, args in sorted(self.events, key=lambda e: e[2]):
            event = {"ph": "X", "pid": pid, "tid": tid, "name": name, "cat": category,
                     "ts": (start - self.start_ns) / 1e3, "dur": (end - start) / 1e3}
            if args:
                event["args"] = {k: _json_value(v) for k, v in args.items()}
            out.append(event)
        return {"displayTimeUnit": "ns", "traceEvents": out}


def _window(options: ProfileOptions, start_ns: int, wall_start_ns: int) -> tuple[int, float] | None:
    """The perf_counter_ns interval the options keep, or None (everything)."""
    if not options.start_timestamp_ns and not options.duration_ms:
        return None
    begin = start_ns + max(0, options.start_timestamp_ns - wall_start_ns)
    end = begin + options.duration_ms * 1_000_000 if options.duration_ms else float("inf")
    return begin, end


def _json_value(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)


def _set_fast_paths(profiling: bool) -> None:
    """While a trace runs, calls skip the C fast paths (which record nothing)."""
    from jaxc.runtime import _fastcall
    _fastcall.set_profiling(profiling)


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start a trace that `stop_trace` writes under `log_dir`. Only one trace
    runs at a time (RuntimeError otherwise)."""
    global SESSION
    options = profiler_options if profiler_options is not None else ProfileOptions()
    if not isinstance(options, ProfileOptions):
        raise TypeError(f"profiler_options must be a jaxc.profiler.ProfileOptions, not "
                        f"{type(options).__name__}")
    with _LOCK:
        if SESSION is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run at a time.")
        log_dir = os.fspath(log_dir)
        os.makedirs(log_dir, exist_ok=True)  # fail now, not after the work
        session = Session(log_dir, create_perfetto_trace, options, create_perfetto_link)
        if "python" in session.enabled:
            _python_tracer(session, True)
        _set_fast_paths(True)
        SESSION = session


def stop_trace() -> None:
    """Stop the trace and write it (RuntimeError when none runs)."""
    global SESSION
    with _LOCK:
        session = SESSION
        if session is None:
            raise RuntimeError("No profile started")
        SESSION = None
        _set_fast_paths(False)
        if "python" in session.enabled:
            _python_tracer(session, False)
        trace_file = write_trace(session)
    if session.serve_link:
        _serve_perfetto_link(os.path.join(os.path.dirname(trace_file), "perfetto_trace.json.gz"))


@contextlib.contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False,
          profiler_options: ProfileOptions | None = None) -> Iterator[None]:
    """``with trace(log_dir):`` -- `start_trace` on entry, `stop_trace` on exit."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def write_trace(session: Session) -> str:
    """Write the session's files; returns the path of ``<host>.trace.json.gz``."""
    stamp = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(session.wall_start_ns / 1e9))
    base = os.path.join(session.log_dir, "plugins", "profile", stamp)
    folder, n = base, 0
    while os.path.exists(folder):  # two traces in one second: keep both
        n += 1
        folder = f"{base}_{n}"
    os.makedirs(folder)
    data = session.chrome_trace()
    path = os.path.join(folder, f"{socket.gethostname()}.trace.json.gz")
    with gzip.open(path, "wt", encoding="utf-8") as file:
        json.dump({**data, "metadata": _metadata()}, file)
    if session.perfetto:
        with gzip.open(os.path.join(folder, "perfetto_trace.json.gz"), "wt", encoding="utf-8") as file:
            json.dump(data, file)
    return path


def _metadata() -> dict:
    from jaxc import __version__
    return {"jaxc_version": __version__, "host": socket.gethostname()}


def _serve_perfetto_link(path: str, port: int = 9001) -> None:
    """Serve `path` once on localhost and print the ui.perfetto.dev link that
    opens it (as jax.profiler does with create_perfetto_link); blocks until
    the trace has been fetched."""
    import http.server

    with open(path, "rb") as file:
        body = file.read()

    class Handler(http.server.BaseHTTPRequestHandler):
        served = False

        def do_GET(self) -> None:  # noqa: N802 -- http.server's name
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "https://ui.perfetto.dev")
            self.send_header("Content-Type", "application/gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            Handler.served = True

        def log_message(self, *args: Any) -> None:
            pass

    with http.server.HTTPServer(("127.0.0.1", port), Handler) as server:
        print(f"Open URL in browser: https://ui.perfetto.dev/#!/?url=http://127.0.0.1:{port}/"
              f"{os.path.basename(path)}", flush=True)
        while not Handler.served:
            server.handle_request()


# ---------------------------------------------------------------------------
# Recording helpers for jaxc's own code
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def span(name: str, category: str, args: dict | None = None) -> Iterator[None]:
    """Record the enclosed code as one event (for paths that are not hot)."""
    session = SESSION
    if session is None:
        yield
        return
    start = time.perf_counter_ns()
    try:
        yield
    finally:
        session.record(name, category, start, time.perf_counter_ns(), args)


def record_stages(timings: list) -> None:
    """Events for the stages of one compilation (`passes.pass_timing.StageTiming`
    list) and their passes, laid out one after the other inside each stage
    (MLIR's pass timing gives durations, not start times)."""
    session = SESSION
    if session is None:
        return
    for stage in timings:
        session.record(f"stage {stage.stage}", "compile", stage.start_ns, stage.end_ns)
        _record_passes(session, stage.passes, stage.start_ns)


def _record_passes(session: Session, passes: list, start_ns: int) -> None:
    at = start_ns
    for timing in passes:
        end = at + int(timing.seconds * 1e9)
        session.record(timing.name, "mlir-pass", at, end)
        _record_passes(session, timing.children, at)
        at = end


# ---------------------------------------------------------------------------
# Annotations
# ---------------------------------------------------------------------------

class TraceAnnotation:
    """``with TraceAnnotation("name", **kwargs):`` records the enclosed code
    as an event named `name` with `kwargs` as its arguments (nothing when no
    trace runs)."""

    _category = "annotation"
    __slots__ = ("name", "kwargs", "_start", "_session")

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name = name
        self.kwargs = kwargs
        self._session: Session | None = None

    def __enter__(self) -> "TraceAnnotation":
        self._session = SESSION
        if self._session is not None:
            self._start = time.perf_counter_ns()
        return self

    def __exit__(self, *exc: Any) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.record(self.name, self._category, self._start, time.perf_counter_ns(),
                           self.kwargs or None)

    def set_metadata(self, **kwargs: Any) -> None:
        """Add arguments to the event (while it is open)."""
        self.kwargs = {**self.kwargs, **kwargs}

    @staticmethod
    def is_enabled() -> bool:
        """Whether a trace is running."""
        return SESSION is not None


class StepTraceAnnotation(TraceAnnotation):
    """A training step: ``with StepTraceAnnotation("train", step_num=i):``;
    recorded in the ``step`` category with its `step_num`."""

    _category = "step"
    __slots__ = ()


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any) -> Callable:
    """Decorator: every call of `func` is recorded as a `TraceAnnotation`
    named `name` (default: the function's qualified name)."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


# ---------------------------------------------------------------------------
# The Python tracer (python_tracer_level=1)
# ---------------------------------------------------------------------------

def _python_tracer(session: Session, on: bool) -> None:
    """Record Python calls (``sys.setprofile`` here and in threads started
    meanwhile)."""
    import sys

    if not on:
        sys.setprofile(None)
        threading.setprofile(None)
        return
    stacks = threading.local()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if SESSION is not session:
            return
        if event == "call":
            stack = getattr(stacks, "stack", None)
            if stack is None:
                stack = stacks.stack = []
            stack.append(time.perf_counter_ns())
        elif event == "return":
            stack = getattr(stacks, "stack", None)
            if stack:
                code = frame.f_code
                session.record(getattr(code, "co_qualname", code.co_name), "python", stack.pop(),
                               time.perf_counter_ns(),
                               {"file": code.co_filename, "line": code.co_firstlineno})

    sys.setprofile(profile)
    threading.setprofile(profile)
