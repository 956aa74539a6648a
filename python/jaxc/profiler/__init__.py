"""`jaxc.profiler`: traces and device memory profiles, as `jax.profiler` has them.

    with jaxc.profiler.trace("/tmp/logs", create_perfetto_trace=True):
        for step in range(3):
            with jaxc.profiler.StepTraceAnnotation("train", step_num=step):
                params = update(params, batch)
    jaxc.profiler.save_device_memory_profile("memory.prof")   # go tool pprof -top memory.prof

See docs/profiling.md.
"""
from .memory import device_memory_profile, save_device_memory_profile
from .traces import (
    ProfileOptions,
    StepTraceAnnotation,
    TraceAnnotation,
    annotate_function,
    start_trace,
    stop_trace,
    trace,
)

__all__ = ["ProfileOptions", "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "device_memory_profile", "save_device_memory_profile", "start_trace", "stop_trace",
           "trace"]
